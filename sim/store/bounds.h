/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bounds.h - the bounds of `gpusim bound` (engine/bound.h) in the results
 * database, beside the runs they bound: tables bounds and bound_points and
 * the view bound_gap (results/SCHEMA.md).
 *
 * Ownership: rows read back are the caller's, freed with the matching
 * _free function.
 */
#ifndef GS_BOUNDS_H
#define GS_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/bound.h"
#include "store/results.h"

/*
 * The DDL of the bound tables and view, idempotent (IF NOT EXISTS):
 * gs_db_open() runs it with its own whenever it creates or migrates a
 * database (schema 1.6).
 */
extern const char *const gs_bounds_schema_sql;

/* What a bound was computed from; strings are borrowed. */
struct gs_bound_info {
	const char *pods_path, *pods_sha256;     /* the trace */
	const char *nodes_path, *nodes_sha256;   /* the cluster */
	uint64_t seed;                           /* at most INT64_MAX */
	double inflate;
	unsigned methods;                        /* GS_BOUND_* asked for */
	double exact_time_limit_s;               /* stored only with GS_BOUND_EXACT */
	int64_t n_nodes, gpu_milli, n_arrivals;
	double wall_ms;
};

/*
 * Writes one bound and its points (those with n_samples > 0 and the empty
 * ones alike) in one transaction; its id into *bound_id_out (may be NULL).
 * Returns 0, or GS_EINVAL (a seed above INT64_MAX, NULL keys), GS_EDB or
 * GS_ENOMEM with err naming the database; nothing is written on failure.
 */
int gs_bounds_write(struct gs_db *db, const struct gs_bound_info *bi,
		    const struct gs_bound_point *pts, size_t n, int64_t *bound_id_out, char *err,
		    size_t err_len);

/*
 * Whether the database holds a bound of this trace, cluster, seed,
 * inflation, methods (and time limit, for exact) with a point for every
 * bucket of pcts[0..n): what `gpusim bound` skips. Returns 1, 0, or
 * GS_EDB / GS_EINVAL with err set.
 */
int gs_bounds_have(struct gs_db *db, const struct gs_bound_info *bi, const int32_t *pcts,
		   size_t n, char *err, size_t err_len);

/*
 * The bound of one stored inflate run: for each arrived percent 0..max_pct,
 * the tightest stored floor of the bucket's mean unallocated GPU % among
 * the bounds of the run's trace, cluster, seed and --inflate, NAN where
 * none has it, into out[0..max_pct]. Returns the number of percents
 * filled, or GS_EDB with err set.
 */
int gs_bounds_of_run(struct gs_db *db, int64_t run_id, double *out, int32_t max_pct, char *err,
		     size_t err_len);

#endif
