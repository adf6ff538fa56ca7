/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decision.h - the decision record of `gpusim advise` in the results
 * database (schema 1.8, results/SCHEMA.md): one row of decisions per
 * verdict (what was asked, the verdict as printed and as JSON) and one
 * row of decision_runs per run it rests on, so that a reviewer can check
 * the verdict against the stored runs:
 *
 *   SELECT d.policy, d.sharing, d.load_pct, avg(s.completion_mean_s)
 *   FROM decision_runs d JOIN run_summary s USING (run_id)
 *   WHERE d.decision_id = 1 AND d.role = 'candidate' GROUP BY 1, 2, 3;
 *
 * Ownership: the strings of the structs below are borrowed.
 */
#ifndef GS_DECISION_H
#define GS_DECISION_H

#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/*
 * The DDL of the decision tables, executed by gs_db_open() whenever it
 * creates or migrates a database (idempotent: CREATE TABLE IF NOT EXISTS).
 */
extern const char *const gs_decision_schema_sql;

/* What a verdict was asked and what it said. */
struct gs_decision_record {
	const char *nodes_path;
	const char *nodes_sha256;
	const char *objective;        /* as given: "completion" */
	const char *constraints;      /* "p99-slowdown <= 10", "; "-separated; "" for none */
	const char *targets;          /* capacity targets likewise; "" for none */
	const char *baseline;         /* "exclusive + binpack" */
	double alpha, conf;
	const char *verdict;          /* the verdict as printed */
	const char *verdict_json;     /* the --json document */
};

/* One run a verdict rests on. */
struct gs_decision_run {
	int64_t run_id;
	const char *role;             /* "candidate", "reference" or "capacity" */
	const char *pods_path;
	double load_pct;              /* NAN without --load */
	const char *policy;
	const char *sharing;
	uint64_t seed;
	int64_t gpu_nodes;            /* capacity: GPU nodes of the cluster probed; -1 otherwise */
};

/*
 * Stores a decision and its runs in one transaction; its id in *id_out
 * (may be NULL). Returns 0, GS_EINVAL (a role or a run id that is not
 * valid, a run not in the database) or GS_EDB, with a message in err.
 */
int gs_decision_add(struct gs_db *db, const struct gs_decision_record *rec,
		       const struct gs_decision_run *runs, size_t n, int64_t *id_out, char *err,
		       size_t err_len);

#endif
