/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound_batch.h - the bounds of many (trace, seed) pairs (engine/bound.h),
 * computed by worker threads (GLPK keeps one environment per thread) and
 * stored in the results database (store/bounds.h) in matrix order, traces
 * then seeds, each in its own transaction; pairs the database already
 * bounds with the same options are skipped.
 *
 * Ownership: the batch's inputs are borrowed; each job's points are owned
 * by the batch and valid during the callback only.
 */
#ifndef GS_BOUND_BATCH_H
#define GS_BOUND_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/bound.h"
#include "run/inputs.h"
#include "store/results.h"

struct gs_bound_batch {
	const struct gs_inputs *in;       /* the traces, each with its cluster */
	const char *nodes_path;           /* as given */
	const char *const *pods_paths;    /* [in->n], as given */
	const uint64_t *seeds;
	size_t n_seeds;
	struct gs_bound_opts opts;        /* the seed is each job's */
	const int32_t *arrived;           /* the buckets, [n_arrived] */
	size_t n_arrived;
	struct gs_db *db;                 /* NULL: nothing stored, nothing skipped */
	int jobs;                         /* worker threads, >= 1 */
};

/* One (trace, seed) as the callback sees it. */
struct gs_bound_job {
	size_t trace;
	uint64_t seed;
	bool skipped;                     /* the database already had it */
	int rc;                           /* gs_bound_compute()'s or the store's; err says why */
	char err[512];
	int64_t bound_id;                 /* stored as (0: not stored) */
	const struct gs_bound_point *pts; /* [n_arrived] */
};

/* Called in matrix order for every job, when it is done (and stored). */
typedef void gs_bound_done_fn(void *arg, const struct gs_bound_job *j);

/*
 * Runs the batch; done(arg, job) for each job in order. A job that fails
 * is reported with its rc and the rest go on. Returns 0, or GS_ENOMEM /
 * GS_EDB (the lookup of stored bounds) with err set, before any job ran.
 */
int gs_bound_batch_run(const struct gs_bound_batch *b, gs_bound_done_fn *done, void *arg,
		       char *err, size_t err_len);

#endif
