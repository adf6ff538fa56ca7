/* SPDX-License-Identifier: Apache-2.0 */
/*
 * job.h - one run of a batch in flight: simulated by one worker, then
 * stored by whichever worker stores the ready runs in order (run/ring.h).
 *
 * From a successful gs_job_run() to gs_job_release() the job owns a live
 * simulation; the run info it fills borrows the batch's strings.
 * A job is not shared: the ring hands each to one thread at a time.
 */
#ifndef GS_JOB_H
#define GS_JOB_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

#include "engine/replay.h"
#include "run/batch.h"
#include "run/outcome.h"
#include "store/results.h"

struct gs_job {
	size_t cell;                 /* index of the run in the batch */
	struct gs_outcome out;
	struct gs_run_info ri;       /* what gs_db_write_run() stores with it */
	struct gs_sim sim;           /* alive from a successful gs_job_run() to gs_job_release() */
};

/* What is the same for every run of a batch: how it is stored, and what stops it. */
struct gs_job_opts {
	bool no_pods;                /* gs_run_info.no_pods */
	bool arrival_samples;        /* gs_run_info.arrival_samples */
	/* When set, a run stops at its next event once *stop is nonzero (run/signals.h). */
	const volatile sig_atomic_t *stop;
};

/*
 * Simulates run cell of b into j (j->sim, j->ri, and the figures and wall
 * time of j->out; j->out's other fields are left as they are), without
 * storing it. Returns 0 with j->sim alive; or GS_EINTR (stopped through
 * jo->stop), GS_ENOMEM, GS_ECHECK, GS_ELIMIT or the policy's error, with
 * "PODS, POLICY, seed N: why" in err and nothing alive.
 */
int gs_job_run(struct gs_job *j, const struct gs_batch *b, size_t cell,
	       const struct gs_job_opts *jo, char *err, size_t err_len);

/*
 * Stores the run gs_job_run() left in j through db, in one transaction
 * (the caller serialises writers). Returns 0 with j->out.run_id set, or
 * GS_EINVAL, GS_ENOMEM or GS_EDB with a message in err.
 */
int gs_job_store(struct gs_job *j, struct gs_db *db, char *err, size_t err_len);

/* Frees the simulation of a run gs_job_run() made, stored or not. */
void gs_job_release(struct gs_job *j);

#endif
