/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec_internal.h - the state one execution of a batch shares among its
 * steps and its workers (exec.c, pool.c, claims.c); not for other layers.
 *
 * Everything but the write lock and the ring is set before the workers
 * start and only read by them. The ring (run/ring.h) has its own lock.
 */
#ifndef GS_EXEC_INTERNAL_H
#define GS_EXEC_INTERNAL_H

#include <pthread.h>

#include "run/batch.h"
#include "run/exec.h"
#include "run/job.h"
#include "run/outcome.h"
#include "run/ring.h"

struct gs_exec {
	const struct gs_batch *batch;
	const struct gs_exec_opts *opts;
	struct gs_job_opts jo;               /* from opts: what every run shares */
	char owner[512];                     /* this process, for run claims (gs_claim_owner) */
	struct gs_outcome *cells;            /* the result's, [batch->n_cells] */
	/*
	 * The workers take turns at writing (claims and runs): SQLite makes a
	 * connection that finds the write lock taken sleep and retry (1, 2,
	 * 5 ms and longer), while a mutex hands the turn over at once. Other
	 * processes on the same database still wait through SQLite.
	 */
	pthread_mutex_t write_lock;
	struct gs_ring ring;
};

#endif
