/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.h - what lets many sweeps share one run matrix: the plan a sweep
 * records (every run of its matrix, sharded or not), and claims that keep
 * two sweeps writing to one database from running the same run. Merging
 * the databases of shards into one is merge.h's.
 *
 * A run is identified, as gs_db_find_run() does, by its key: policy, trace
 * and cluster checksums, seed and params_json. The plan and the claims are
 * tables of the results database (sweep_plans, run_claims; schema 1.4 in
 * results/SCHEMA.md).
 *
 * Ownership: strings in a struct gs_plan_cell are borrowed; the report and
 * the rows gs_db_plan_report() returns are the caller's (free with
 * gs_plan_report_free()).
 */
#ifndef GS_PLAN_H
#define GS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/* One run of a matrix: its key, and the file paths as given (not part of the key). */
struct gs_plan_cell {
	const char *policy;
	const char *pods_path;        /* may be NULL */
	const char *pods_sha256;
	const char *nodes_path;       /* may be NULL */
	const char *nodes_sha256;
	const char *params_json;
	uint64_t seed;                /* at most INT64_MAX */
};

/*
 * The id of a plan: the SHA-256, in 64 hex digits and a NUL, of the keys
 * of cells[0..n) in order, so that every shard of one sweep computes the
 * same id. id_out holds at least 65 bytes.
 */
void gs_plan_id(const struct gs_plan_cell *cells, size_t n, char *id_out);

/*
 * Records plan plan_id (cells[0..n), cell i at index i) in sweep_plans,
 * in one transaction; a plan already there is left as it is. Returns 0,
 * GS_EINVAL or GS_EDB (message in err).
 */
int gs_db_add_plan(struct gs_db *db, const char *plan_id, const struct gs_plan_cell *cells,
		   size_t n, char *err, size_t err_len);

/*
 * This process as the owner of claims: "HOST PID START", START being the
 * process's start time in clock ticks since boot (0 where /proc cannot
 * tell), so that a later process with the same pid is not taken for it.
 * Writes at most len bytes (len >= 64 recommended).
 */
void gs_claim_owner(char *buf, size_t len);

/* What gs_db_claim() found. */
enum gs_claim {
	GS_CLAIM_OURS = 0,    /* the run is now claimed by owner: run it */
	GS_CLAIM_DONE = 1,    /* a complete run with the key exists (*run_id_out) */
	GS_CLAIM_TAKEN = 2,   /* another live process claimed it: leave it */
};

/*
 * Claims the run with key for owner, in one write transaction, before a
 * sweep runs it. A claim of a process that is gone (same host, pid not
 * running or started at another time) or older than stale_s seconds
 * (another host; 0: never stale) is taken over. The claim is dropped by
 * gs_db_write_run() when the run is stored, or by gs_db_release_claims().
 * Returns enum gs_claim (>= 0), or GS_EINVAL or GS_EDB (message in err).
 */
int gs_db_claim(struct gs_db *db, const struct gs_plan_cell *key, const char *owner,
		int64_t stale_s, int64_t *run_id_out, char *err, size_t err_len);

/* Drops every claim of owner (after a failed run, or as a sweep ends). 0 or GS_EDB. */
int gs_db_release_claims(struct gs_db *db, const char *owner, char *err, size_t err_len);

/* One plan in a database and how much of it is there. */
struct gs_plan_status {
	char plan_id[65];
	int64_t cells;         /* runs in the plan */
	int64_t present;       /* of which a complete run with the key exists */
};

/*
 * Every plan of db and, through missing(arg, plan_id, cell_index, cell)
 * (may be NULL), each of its runs that has no complete run; a non-zero
 * return from missing() stops the listing and is returned. Stores a
 * malloc'ed array in *plans_out (NULL when none; free with
 * gs_plan_status_free) and its length in *n_out, unless plans_out is NULL.
 * Returns 0, GS_ENOMEM or GS_EDB.
 */
int gs_db_plan_status(struct gs_db *db,
		      int (*missing)(void *arg, const char *plan_id, int64_t cell,
				     const struct gs_plan_cell *c),
		      void *arg, struct gs_plan_status **plans_out, size_t *n_out, char *err,
		      size_t err_len);

/* Frees an array from gs_db_plan_status(); NULL is allowed. */
void gs_plan_status_free(struct gs_plan_status *plans);

#endif
