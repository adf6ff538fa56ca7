/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results.c - the SQLite results store: schema, versioning, opening, and
 * writing one run per transaction. The readers are in results_read.c.
 *
 * The DDL below is the definition of the schema; results/SCHEMA.md
 * documents it column by column and must be kept in step with it. See
 * results.h for the version rule and the threading design.
 */
#include "store/results.h"
#include "store/results_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/version.h"
#include "engine/arrived.h"
#include "io/json.h"
#include "io/path.h"
#include "policies/sched.h"

/*
 * The samples sample_metrics m of run r that the inflate-mode statistic
 * "at arrived workload 100 %" averages: the 100 % bucket, or, when one pod
 * jumped over it and it is empty, the samples of 99..101 %, as the
 * reference analysis does. gs_sim_summarize() uses the same rule. Spelled
 * once here and pasted into each column of run_summary that needs it.
 */
#define AT_100                                                                  \
	" m.run_id = r.run_id AND m.arrived_pct BETWEEN 99 AND 101"             \
	" AND (m.arrived_pct = 100 OR NOT EXISTS (SELECT 1 FROM samples e"      \
	"  WHERE e.run_id = r.run_id AND e.arrived_pct = 100))"

/*
 * The columns schema 1.1 added to runs: the time-mode figures computed
 * from the events (engine/metrics.h). Spelled once: the CREATE TABLE of a
 * new database ends with them, and the migration from 1.0 adds them with
 * ALTER TABLE, so both give the same table.
 */
static const char *const runs_columns_1_1[] = {
	"event_metrics INTEGER NOT NULL DEFAULT 0 CHECK (event_metrics IN (0, 1))",
	"t_first_arrival_s INTEGER",
	"t_last_arrival_s INTEGER",
	"makespan_s INTEGER",
	"busy_s INTEGER",
	"wait_p50_s INTEGER",
	"wait_p90_s INTEGER",
	"wait_p99_s INTEGER",
	"wait_max_s INTEGER",
	"n_completed INTEGER",
	"completion_mean_s REAL",
	"completion_p50_s INTEGER",
	"completion_p90_s INTEGER",
	"completion_p99_s INTEGER",
	"completion_max_s INTEGER",
	"slowdown_mean REAL",
	"slowdown_p99 REAL",
	"pending_avg REAL",
	"pending_peak INTEGER",
	"gpu_alloc_arrival_pct REAL",
	"gpu_alloc_busy_pct REAL",
	"gpu_alloc_peak_pct REAL",
	"frag_avg_pct REAL",
	"n_timed_out INTEGER",
	"offered_load_pct REAL",
};
#define N_RUNS_COLUMNS_1_1 (sizeof(runs_columns_1_1) / sizeof(runs_columns_1_1[0]))

/*
 * The columns schema 1.2 added: the GPU-sharing model (engine/sharing.h).
 * Like 1.1's, spelled once for both new databases and the migration.
 */
static const char *const columns_1_2[] = {
	"runs ADD COLUMN sharing TEXT NOT NULL DEFAULT 'ideal'",
	"runs ADD COLUMN interference_sha256 TEXT",
	"runs ADD COLUMN eff_util_pct REAL",
	"runs ADD COLUMN eff_util_busy_pct REAL",
	"runs ADD COLUMN n_oversubscribed INTEGER NOT NULL DEFAULT 0",
	"runs ADD COLUMN mig_idle_pct REAL",
	"runs ADD COLUMN mig_slack_pct REAL",
	"run_nodes ADD COLUMN sharing TEXT",
	"pods ADD COLUMN coloc REAL",
	"pods ADD COLUMN mig TEXT",
};
#define N_COLUMNS_1_2 (sizeof(columns_1_2) / sizeof(columns_1_2[0]))

/* Schema 1.3: each pod's duration in the trace, for slowdowns read back from pods. */
static const char *const columns_1_3[] = {
	"pods ADD COLUMN duration_s INTEGER",
};
#define N_COLUMNS_1_3 (sizeof(columns_1_3) / sizeof(columns_1_3[0]))

/*
 * The columns schema 1.4 added to runs: whether every sample is stored
 * (inflate runs keep their statistics in arrived_stats instead of one
 * sample per arrival) and the inflate-mode figures "at arrived 100 %",
 * computed by the engine (engine/arrived.h) exactly as the views used to
 * compute them from the samples.
 */
static const char *const columns_1_4[] = {
	"runs ADD COLUMN samples_stored INTEGER NOT NULL DEFAULT 1"
	" CHECK (samples_stored IN (0, 1))",
	"runs ADD COLUMN at100_n INTEGER",
	"runs ADD COLUMN at100_gpu_alloc_pct REAL",
	"runs ADD COLUMN at100_frag_ratio_pct REAL",
	"runs ADD COLUMN at100_frag_amount_pct REAL",
};
#define N_COLUMNS_1_4 (sizeof(columns_1_4) / sizeof(columns_1_4[0]))

/*
 * Schema 1.6: pod groups (engine/gang.h) and the idle GPU capacity by
 * reason (core/idle.h), per run and per sample. Older rows have NULL
 * (and 0 groups).
 */
static const char *const columns_1_6[] = {
	"runs ADD COLUMN n_groups INTEGER NOT NULL DEFAULT 0",
	"runs ADD COLUMN n_groups_placed INTEGER NOT NULL DEFAULT 0",
	"runs ADD COLUMN n_groups_failed INTEGER NOT NULL DEFAULT 0",
	"runs ADD COLUMN group_wait_mean_s REAL",
	"runs ADD COLUMN idle_frac_pct REAL",
	"runs ADD COLUMN idle_nocpu_pct REAL",
	"runs ADD COLUMN idle_stranded_pct REAL",
	"samples ADD COLUMN idle_frac_milli INTEGER",
	"samples ADD COLUMN idle_nocpu_milli INTEGER",
	"samples ADD COLUMN idle_stranded_milli INTEGER",
};
#define N_COLUMNS_1_6 (sizeof(columns_1_6) / sizeof(columns_1_6[0]))

/*
 * run_summary, schema 1.4. gpu_alloc_pct, the headline allocation of a
 * run, as gs_sim_summarize() computes it. Inflate mode: the mean over the
 * arrived = 100 % bucket (Weng et al., figure 7), or over 99..101 % when
 * no sample fell in it, from the runs columns of 1.4 (the migration to 1.4
 * filled them for older runs from their samples with AT_100). Time mode,
 * runs with event_metrics = 1: the mean over the arrival window from the
 * events; older runs (written by schema 1.0): the time-weighted mean of
 * the samples read as a step function (a value holds until the next
 * sample; the engine always samples the final state), or the last
 * sample's value when all samples share one time. mean_wait_s comes from
 * the runs row, so it holds for runs stored without pod rows too.
 * peak_gpu_alloc_pct and peak_pending come from the events where they
 * were computed from them, otherwise from the samples. The time-mode
 * figures after wall_ms are the runs columns of 1.1, NULL for inflate
 * mode and for older runs.
 */
#define RUN_SUMMARY_VIEW                                                                   \
	"CREATE VIEW run_summary AS"                                                       \
	" SELECT x.*, 100.0 - x.gpu_alloc_pct AS unalloc_gpu_pct FROM ("                   \
	" SELECT r.run_id, r.policy, r.mode, r.seed,"                                      \
	"  substr(r.pods_path, length(rtrim(r.pods_path, replace(r.pods_path, '/', ''))) + 1)" \
	"   AS pods_file,"                                                                 \
	"  r.n_pods, r.n_placed, r.n_failed,"                                              \
	"  100.0 * r.n_failed / NULLIF(r.n_pods, 0) AS failed_pct,"                        \
	"  1.0 * r.wait_total_s / NULLIF(r.n_placed, 0) AS mean_wait_s,"                   \
	"  CASE WHEN r.mode = 'inflate' THEN r.at100_gpu_alloc_pct"                       \
	"   WHEN r.event_metrics = 1 THEN r.gpu_alloc_arrival_pct"                         \
	"   ELSE (SELECT CASE WHEN total(w.dt) > 0"                                        \
	"     THEN 100.0 * total(w.gpu_alloc_milli * w.dt) / total(w.dt)"                  \
	"     ELSE 100.0 * max(w.last_alloc) END / r.gpu_milli_capacity"                   \
	"    FROM (SELECT s.gpu_alloc_milli,"                                              \
	"      lead(s.t_s, 1, s.t_s) OVER win - s.t_s AS dt,"                              \
	"      CASE WHEN lead(s.t_s) OVER win IS NULL THEN s.gpu_alloc_milli END AS last_alloc" \
	"     FROM samples s WHERE s.run_id = r.run_id"                                    \
	"     WINDOW win AS (ORDER BY s.sample_idx)) w)"                                   \
	"   END AS gpu_alloc_pct,"                                                         \
	"  CASE WHEN r.mode = 'inflate' THEN r.at100_frag_ratio_pct END AS frag_ratio_pct,"   \
	"  CASE WHEN r.mode = 'inflate' THEN r.at100_frag_amount_pct END AS frag_amount_pct," \
	"  CASE WHEN r.event_metrics = 1 THEN r.gpu_alloc_peak_pct"                        \
	"   ELSE (SELECT 100.0 * max(s.gpu_alloc_milli) / r.gpu_milli_capacity FROM samples s" \
	"    WHERE s.run_id = r.run_id) END AS peak_gpu_alloc_pct,"                        \
	"  CASE WHEN r.event_metrics = 1 THEN r.pending_peak"                              \
	"   ELSE (SELECT max(s.pods_pending) FROM samples s WHERE s.run_id = r.run_id) END"  \
	"   AS peak_pending,"                                                              \
	"  r.params_json, r.wall_ms,"                                                      \
	"  json_extract(r.params_json, '$.load') AS load_pct,"                             \
	"  r.offered_load_pct, r.wait_p50_s, r.wait_p90_s, r.wait_p99_s, r.wait_max_s,"     \
	"  r.completion_mean_s, r.completion_p50_s, r.completion_p90_s, r.completion_p99_s," \
	"  r.completion_max_s, r.slowdown_mean, r.slowdown_p99, r.pending_avg, r.makespan_s," \
	"  r.gpu_alloc_busy_pct, r.frag_avg_pct, r.n_timed_out,"                           \
	"  r.sharing, r.eff_util_pct, r.eff_util_busy_pct, r.n_oversubscribed,"             \
	"  r.mig_idle_pct, r.mig_slack_pct, r.n_groups, r.n_groups_placed, r.n_groups_failed," \
	"  r.group_wait_mean_s, r.idle_frac_pct, r.idle_nocpu_pct, r.idle_stranded_pct"     \
	" FROM runs r WHERE r.status = 'complete') x"

/*
 * Each sample in percent of capacity. Schema 1.6 adds the idle breakdown
 * (NULL for the samples of older runs).
 */
#define SAMPLE_METRICS_VIEW                                                                \
	"CREATE VIEW sample_metrics AS"                                                    \
	" SELECT s.run_id, s.sample_idx, s.t_s, s.arrived_pct,"                           \
	"  100.0 * s.gpu_alloc_milli / r.gpu_milli_capacity AS gpu_alloc_pct,"            \
	"  100.0 - 100.0 * s.gpu_alloc_milli / r.gpu_milli_capacity AS unalloc_gpu_pct,"  \
	"  r.gpu_milli_capacity - s.gpu_alloc_milli AS idle_gpu_milli,"                   \
	"  CASE WHEN s.frag_milli IS NULL THEN NULL"                                       \
	"   WHEN r.gpu_milli_capacity > s.gpu_alloc_milli"                                 \
	"   THEN 100.0 * s.frag_milli / (r.gpu_milli_capacity - s.gpu_alloc_milli)"       \
	"   ELSE 0.0 END AS frag_ratio_pct,"                                               \
	"  100.0 * s.frag_milli / r.gpu_milli_capacity AS frag_amount_pct,"               \
	"  100.0 * s.gpus_in_use / r.gpu_count AS gpus_in_use_pct,"                       \
	"  100.0 * s.cpu_alloc_milli / r.cpu_milli_capacity AS cpu_alloc_pct,"            \
	"  100.0 * s.mem_alloc_mib / r.mem_mib_capacity AS mem_alloc_pct,"                \
	"  s.pods_running, s.pods_pending, s.pods_failed,"                                 \
	"  100.0 * s.idle_frac_milli / r.gpu_milli_capacity AS idle_frac_pct,"            \
	"  100.0 * s.idle_nocpu_milli / r.gpu_milli_capacity AS idle_nocpu_pct,"          \
	"  100.0 * s.idle_stranded_milli / r.gpu_milli_capacity AS idle_stranded_pct"     \
	" FROM samples s JOIN runs r ON r.run_id = s.run_id"                               \
	" WHERE r.status = 'complete'"

/*
 * Weng et al., ATC 2023, section 5: the statistic per integer percent of
 * arrived workload is the mean over the samples in that bucket. Schema 1.4
 * keeps, per run and bucket, the count and the sums the means divide
 * (engine/arrived.h forms them in the order SQLite summed the samples), so
 * an inflate run needs no sample per arrival for its figures.
 */
#define ARRIVED_STATS_TABLE                                                     \
	"CREATE TABLE arrived_stats ("                                          \
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"  \
	" arrived_pct INTEGER NOT NULL,"                                        \
	" n_samples INTEGER NOT NULL,"                                          \
	" gpu_alloc_pct_sum REAL NOT NULL,"                                     \
	" unalloc_gpu_pct_sum REAL NOT NULL,"                                   \
	" frag_ratio_pct_sum REAL,"                                             \
	" frag_amount_pct_sum REAL,"                                            \
	" PRIMARY KEY (run_id, arrived_pct)"                                    \
	") WITHOUT ROWID"

#define ARRIVED_BUCKETS_VIEW                                                    \
	"CREATE VIEW arrived_buckets AS"                                        \
	" SELECT a.run_id, a.arrived_pct, a.n_samples,"                         \
	"  a.gpu_alloc_pct_sum / a.n_samples AS gpu_alloc_pct,"                 \
	"  a.unalloc_gpu_pct_sum / a.n_samples AS unalloc_gpu_pct,"             \
	"  a.frag_ratio_pct_sum / a.n_samples AS frag_ratio_pct,"               \
	"  a.frag_amount_pct_sum / a.n_samples AS frag_amount_pct"              \
	" FROM arrived_stats a JOIN runs r ON r.run_id = a.run_id"              \
	" WHERE r.status = 'complete'"

/*
 * The migration to 1.4 computes, for the runs already stored, what the
 * writer now stores: arrived_stats from the samples, with the grouping and
 * the index order of the arrived_buckets view of 1.0 to 1.3 (sum instead
 * of avg, so that sum / n is that avg to the bit), and the at100 columns
 * with the subqueries run_summary used (AT_100).
 */
#define MIGRATE_1_4                                                             \
	"INSERT INTO arrived_stats SELECT run_id, arrived_pct, count(*),"       \
	"  sum(gpu_alloc_pct), sum(unalloc_gpu_pct), sum(frag_ratio_pct),"      \
	"  sum(frag_amount_pct)"                                                \
	" FROM sample_metrics WHERE arrived_pct IS NOT NULL"                    \
	" GROUP BY run_id, arrived_pct; "                                       \
	"UPDATE runs AS r SET"                                                  \
	" at100_n = (SELECT count(*) FROM sample_metrics m WHERE" AT_100 "),"   \
	" at100_gpu_alloc_pct = (SELECT avg(m.gpu_alloc_pct) FROM sample_metrics m" \
	"  WHERE" AT_100 "),"                                                   \
	" at100_frag_ratio_pct = (SELECT avg(m.frag_ratio_pct) FROM sample_metrics m" \
	"  WHERE" AT_100 "),"                                                   \
	" at100_frag_amount_pct = (SELECT avg(m.frag_amount_pct) FROM sample_metrics m" \
	"  WHERE" AT_100 ")"                                                    \
	" WHERE r.mode = 'inflate' AND r.status = 'complete'; "                 \
	"DROP VIEW arrived_buckets; " ARRIVED_BUCKETS_VIEW "; "                 \
	"DROP VIEW run_summary; " RUN_SUMMARY_VIEW

/*
 * Schema 1.5: what lets sweeps share a matrix (store/plan.h). A sweep
 * records its whole matrix, every shard the same, so that merged shards
 * can tell which runs are missing; and claims each run before it runs it,
 * so that two sweeps on one database never run the same run.
 */
#define SWEEP_PLANS_TABLE                                                       \
	"CREATE TABLE sweep_plans ("                                            \
	" plan_id TEXT NOT NULL,"                                               \
	" cell INTEGER NOT NULL,"                                               \
	" pods_sha256 TEXT NOT NULL,"                                           \
	" policy TEXT NOT NULL,"                                                \
	" seed INTEGER NOT NULL,"                                               \
	" nodes_sha256 TEXT NOT NULL,"                                          \
	" params_json TEXT NOT NULL,"                                           \
	" pods_path TEXT,"                                                      \
	" nodes_path TEXT,"                                                     \
	" PRIMARY KEY (plan_id, cell)"                                          \
	") WITHOUT ROWID"

#define RUN_CLAIMS_TABLE                                                        \
	"CREATE TABLE run_claims ("                                             \
	" pods_sha256 TEXT NOT NULL,"                                           \
	" policy TEXT NOT NULL,"                                                \
	" seed INTEGER NOT NULL,"                                               \
	" nodes_sha256 TEXT NOT NULL,"                                          \
	" params_json TEXT NOT NULL,"                                           \
	" owner TEXT NOT NULL,"                                                 \
	" claimed_unix INTEGER NOT NULL,"                                       \
	" PRIMARY KEY (pods_sha256, policy, seed, nodes_sha256, params_json)"   \
	") WITHOUT ROWID"

/*
 * Schema 1.1. Units are in the column names; NULL means "does not apply"
 * or "never" (for example t_start_s of a pod that was never placed), so
 * SQL aggregates skip it. Child tables are WITHOUT ROWID with (run_id, idx)
 * primary keys: the rows of one run are contiguous on disk and every
 * per-run lookup is an index range.
 */
static const char *const schema_sql[] = {
	"CREATE TABLE runs ("
	" run_id INTEGER PRIMARY KEY,"
	" status TEXT NOT NULL DEFAULT 'writing' CHECK (status IN ('writing', 'complete')),"
	" policy TEXT NOT NULL,"
	" mode TEXT NOT NULL CHECK (mode IN ('time', 'inflate')),"
	" seed INTEGER NOT NULL CHECK (seed >= 0),"
	" nodes_path TEXT,"
	" nodes_sha256 TEXT NOT NULL,"
	" pods_path TEXT,"
	" pods_sha256 TEXT NOT NULL,"
	" params_json TEXT NOT NULL,"
	" gpusim_version TEXT NOT NULL,"
	" started_at TEXT,"
	" ended_at TEXT,"
	" wall_ms REAL,"
	" n_nodes INTEGER NOT NULL,"
	" gpu_count INTEGER NOT NULL,"
	" gpu_milli_capacity INTEGER NOT NULL,"
	" cpu_milli_capacity INTEGER NOT NULL,"
	" mem_mib_capacity INTEGER NOT NULL,"
	" n_pods INTEGER NOT NULL,"
	" n_placed INTEGER NOT NULL,"
	" n_failed INTEGER NOT NULL,"
	" n_done INTEGER NOT NULL,"
	" n_pending_end INTEGER NOT NULL,"
	" n_events INTEGER NOT NULL,"
	" n_retries INTEGER NOT NULL,"
	" t_end_s INTEGER NOT NULL,"
	" wait_total_s INTEGER NOT NULL DEFAULT 0,"
	" pods_stored INTEGER NOT NULL DEFAULT 1 CHECK (pods_stored IN (0, 1))"
	")",
	/* The columns of 1.1 follow, added by create_runs_1_1(). */

	/* The key a resumable sweep looks up (gs_db_find_run). */
	"CREATE INDEX runs_key ON runs (pods_sha256, policy, seed)",

	"CREATE TABLE run_nodes ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" node_idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" cpu_milli INTEGER NOT NULL,"
	" memory_mib INTEGER NOT NULL,"
	" num_gpu INTEGER NOT NULL,"
	" gpu_model TEXT,"
	" gpu_mem_mib INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, node_idx)"
	") WITHOUT ROWID",

	/*
	 * A placed pod must name a node of its own run: the foreign key on
	 * (run_id, node_idx) catches a corrupt placement at write time.
	 */
	"CREATE TABLE pods ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" pod_idx INTEGER NOT NULL,"
	" src_idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" cpu_milli INTEGER NOT NULL,"
	" memory_mib INTEGER NOT NULL,"
	" num_gpu INTEGER NOT NULL,"
	" gpu_milli INTEGER NOT NULL,"
	" gpu_mem_mib INTEGER NOT NULL,"
	" gpu_spec TEXT,"
	" state TEXT NOT NULL CHECK (state IN ('new', 'pending', 'running', 'done', 'failed')),"
	" node_idx INTEGER,"
	" gpus TEXT,"
	" t_arrive_s INTEGER,"
	" t_start_s INTEGER,"
	" t_end_s INTEGER,"
	" wait_s INTEGER,"
	" fail_reason TEXT,"
	" PRIMARY KEY (run_id, pod_idx),"
	" FOREIGN KEY (run_id, node_idx) REFERENCES run_nodes (run_id, node_idx)"
	"  ON DELETE CASCADE"
	") WITHOUT ROWID",

	"CREATE TABLE samples ("
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" sample_idx INTEGER NOT NULL,"
	" t_s INTEGER NOT NULL,"
	" event INTEGER NOT NULL,"
	" cpu_alloc_milli INTEGER NOT NULL,"
	" mem_alloc_mib INTEGER NOT NULL,"
	" gpu_alloc_milli INTEGER NOT NULL,"
	" gpus_in_use INTEGER NOT NULL,"
	" arrived_gpu_milli INTEGER NOT NULL,"
	" pods_running INTEGER NOT NULL,"
	" pods_pending INTEGER NOT NULL,"
	" pods_failed INTEGER NOT NULL,"
	" frag_milli REAL,"
	" arrived_pct INTEGER,"
	" PRIMARY KEY (run_id, sample_idx)"
	") WITHOUT ROWID",

	/*
	 * The FGD statistics read one arrived-workload bucket of a run; the
	 * index covers the columns they read, so the table is not touched.
	 */
	"CREATE INDEX samples_arrived ON samples (run_id, arrived_pct, gpu_alloc_milli,"
	" frag_milli)",

	SAMPLE_METRICS_VIEW,

	ARRIVED_STATS_TABLE,
	SWEEP_PLANS_TABLE,
	RUN_CLAIMS_TABLE,
	ARRIVED_BUCKETS_VIEW,
	RUN_SUMMARY_VIEW,
};

/*
 * migration_sql[m] upgrades minor m - 1 to minor m within this major (NULL
 * when that minor changed only the bench tables); it runs inside the open
 * transaction, followed by gs_bench_schema_sql. Entry 0 has no
 * predecessor. 1.1 adds runs_columns_1_1 (added by add_runs_columns_1_1()
 * before this SQL runs) and the new run_summary; 1.2 adds columns_1_2
 * (add_columns_1_2()) and shows them in run_summary; 1.3 adds columns_1_3;
 * 1.4 adds columns_1_4, arrived_stats and new arrived_buckets and
 * run_summary views; 1.5 adds sweep_plans and run_claims; 1.6 adds
 * columns_1_6 and new run_summary and sample_metrics views (a view is
 * not checked when it is made, so the
 * run_summary of 1.1 and 1.2, which names 1.4's columns, is harmless until
 * 1.4 makes it anew).
 */
static const char *const migration_sql[] = {
	NULL,
	"DROP VIEW run_summary; " RUN_SUMMARY_VIEW,
	"DROP VIEW run_summary; " RUN_SUMMARY_VIEW,
	NULL,
	ARRIVED_STATS_TABLE "; " MIGRATE_1_4,
	SWEEP_PLANS_TABLE "; " RUN_CLAIMS_TABLE,
	"DROP VIEW run_summary; " RUN_SUMMARY_VIEW "; DROP VIEW sample_metrics; "
	SAMPLE_METRICS_VIEW,
};
_Static_assert(sizeof(migration_sql) / sizeof(migration_sql[0]) == GS_DB_SCHEMA_MINOR + 1,
	       "one migration per minor schema version");

const char *const gs_db_pod_state[GS_DB_POD_STATES] = {
	[GS_POD_NEW] = "new",
	[GS_POD_PENDING] = "pending",
	[GS_POD_RUNNING] = "running",
	[GS_POD_DONE] = "done",
	[GS_POD_FAILED] = "failed",
};

int gs_db_fail(char *err, size_t err_len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && err_len) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return code;
}

int gs_db_sqlfail(struct gs_db *db, char *err, size_t err_len, const char *what)
{
	return gs_db_fail(err, err_len, GS_EDB, "%s: %s: %s", db->path, what,
			  sqlite3_errmsg(db->conn));
}

static int exec_sql(struct gs_db *db, const char *sql, char *err, size_t err_len)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->conn, sql, NULL, NULL, &msg);

	if (rc == SQLITE_OK)
		return 0;
	gs_db_fail(err, err_len, GS_EDB, "%s: %s: %s", db->path, sql,
		   msg ? msg : sqlite3_errstr(rc));
	sqlite3_free(msg);
	return GS_EDB;
}

/* Reads PRAGMA user_version; SQLITE_NOTADB becomes a plain message. */
static int read_user_version(struct gs_db *db, int *version_out, char *err, size_t err_len)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*version_out = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW)
			return 0;
	}
	if ((rc & 0xff) == SQLITE_NOTADB)
		return gs_db_fail(err, err_len, GS_ESCHEMA, "%s: not a SQLite database", db->path);
	return gs_db_sqlfail(db, err, err_len, "cannot read the schema version");
}

static int count_tables(struct gs_db *db, int *n_out, char *err, size_t err_len)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->conn,
				"SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot read the schema");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n_out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return gs_db_sqlfail(db, err, err_len, "cannot read the schema");
	return 0;
}

static int refuse_newer(struct gs_db *db, int version, char *err, size_t err_len)
{
	return gs_db_fail(err, err_len, GS_ESCHEMA,
			  "%s: database schema version %d.%d is newer than this gpusim supports "
			  "(%d.%d); use a newer gpusim or another database file",
			  db->path, version / 1000, version % 1000, GS_DB_SCHEMA_MAJOR,
			  GS_DB_SCHEMA_MINOR);
}

static int refuse_foreign(struct gs_db *db, int n_tables, char *err, size_t err_len)
{
	return gs_db_fail(err, err_len, GS_ESCHEMA, "%s: not a gpusim results database (%s)",
			  db->path,
			  n_tables > 0 ? "it has tables but no gpusim schema version"
			  : "it is empty");
}

static int set_user_version(struct gs_db *db, int version, char *err, size_t err_len)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	return exec_sql(db, sql, err, err_len);
}

/* ALTER TABLE runs ADD COLUMN for each column of 1.1. */
static int add_runs_columns_1_1(struct gs_db *db, char *err, size_t err_len)
{
	char sql[256];
	size_t i;
	int rc;

	for (i = 0; i < N_RUNS_COLUMNS_1_1; i++) {
		snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN %s", runs_columns_1_1[i]);
		rc = exec_sql(db, sql, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

/* ALTER TABLE for each of n column definitions. */
static int add_columns(struct gs_db *db, const char *const *cols, size_t n, char *err,
		       size_t err_len)
{
	char sql[256];
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql), "ALTER TABLE %s", cols[i]);
		rc = exec_sql(db, sql, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

/* The columns of 1.2, then those of 1.3. */
static int add_columns_1_2(struct gs_db *db, char *err, size_t err_len)
{
	return add_columns(db, columns_1_2, N_COLUMNS_1_2, err, err_len);
}

static int add_columns_1_3(struct gs_db *db, char *err, size_t err_len)
{
	return add_columns(db, columns_1_3, N_COLUMNS_1_3, err, err_len);
}

static int add_columns_1_4(struct gs_db *db, char *err, size_t err_len)
{
	return add_columns(db, columns_1_4, N_COLUMNS_1_4, err, err_len);
}

static int add_columns_1_6(struct gs_db *db, char *err, size_t err_len)
{
	return add_columns(db, columns_1_6, N_COLUMNS_1_6, err, err_len);
}

/*
 * Creates or migrates the schema inside one IMMEDIATE transaction, after
 * looking at the version again under the write lock: another connection
 * (a sweep's other worker) may have done it in the meantime.
 */
static int setup_schema(struct gs_db *db, bool create, char *err, size_t err_len)
{
	int version = 0, n_tables = 0, rc;
	size_t i;

	rc = exec_sql(db, "BEGIN IMMEDIATE", err, err_len);
	if (rc)
		return rc;
	rc = read_user_version(db, &version, err, err_len);
	if (rc)
		goto rollback;
	if (version / 1000 > GS_DB_SCHEMA_MAJOR) {
		rc = refuse_newer(db, version, err, err_len);
		goto rollback;
	}
	if (version >= GS_DB_SCHEMA_VERSION)
		goto commit;
	if (version == 0) {
		rc = count_tables(db, &n_tables, err, err_len);
		if (rc)
			goto rollback;
		if (n_tables > 0 || !create) {
			rc = refuse_foreign(db, n_tables, err, err_len);
			goto rollback;
		}
		for (i = 0; i < sizeof(schema_sql) / sizeof(schema_sql[0]); i++) {
			/* run_summary is last: give the tables the columns of 1.2 before it. */
			if (i + 1 == sizeof(schema_sql) / sizeof(schema_sql[0])) {
				rc = add_columns_1_2(db, err, err_len);
				if (rc == 0)
					rc = add_columns_1_3(db, err, err_len);
				if (rc == 0)
					rc = add_columns_1_4(db, err, err_len);
				if (rc == 0)
					rc = add_columns_1_6(db, err, err_len);
			}
			if (rc == 0)
				rc = exec_sql(db, schema_sql[i], err, err_len);
			/* runs is first: give it the columns of 1.1 before anything refers to them. */
			if (rc == 0 && i == 0)
				rc = add_runs_columns_1_1(db, err, err_len);
			if (rc)
				goto rollback;
		}
	} else if (version / 1000 < GS_DB_SCHEMA_MAJOR) {
		rc = gs_db_fail(err, err_len, GS_ESCHEMA,
				"%s: database schema version %d.%d is older than %d.%d "
				"and cannot be migrated; use another database file",
				db->path, version / 1000, version % 1000, GS_DB_SCHEMA_MAJOR,
				GS_DB_SCHEMA_MINOR);
		goto rollback;
	} else {
		for (i = (size_t)(version % 1000) + 1; i <= GS_DB_SCHEMA_MINOR; i++) {
			rc = i == 1 ? add_runs_columns_1_1(db, err, err_len)
			     : i == 2 ? add_columns_1_2(db, err, err_len)
			     : i == 3 ? add_columns_1_3(db, err, err_len)
			     : i == 4 ? add_columns_1_4(db, err, err_len)
			     : i == 6 ? add_columns_1_6(db, err, err_len) : 0;
			/* NULL: a minor that only added bench tables (below). */
			if (rc == 0 && migration_sql[i])
				rc = exec_sql(db, migration_sql[i], err, err_len);
			if (rc)
				goto rollback;
		}
	}
	rc = exec_sql(db, gs_bench_schema_sql, err, err_len);
	if (rc)
		goto rollback;
	rc = set_user_version(db, GS_DB_SCHEMA_VERSION, err, err_len);
	if (rc)
		goto rollback;
commit:
	return exec_sql(db, "COMMIT", err, err_len);
rollback:
	sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Reads the version (and for 0, whether the file is someone else's) in one snapshot. */
static int look(struct gs_db *db, bool create, int *version_out, char *err, size_t err_len)
{
	int n_tables = 0, rc;

	rc = exec_sql(db, "BEGIN", err, err_len);
	if (rc)
		return rc;
	rc = read_user_version(db, version_out, err, err_len);
	if (!rc && *version_out / 1000 > GS_DB_SCHEMA_MAJOR)
		rc = refuse_newer(db, *version_out, err, err_len);
	if (!rc && *version_out == 0) {
		rc = count_tables(db, &n_tables, err, err_len);
		if (!rc && (n_tables > 0 || !create))
			rc = refuse_foreign(db, n_tables, err, err_len);
	}
	sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* Reads PRAGMA journal_mode into mode (lower case). */
static int journal_mode(struct gs_db *db, const char *sql, char *mode, size_t len)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(mode, len, "%s", (const char *)sqlite3_column_text(st, 0));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Switches a new database to WAL. The mode is stored in the file, so this
 * only does anything the first time. Sweep workers opening a new file
 * together race here, and SQLite answers the losers "database is locked"
 * at once rather than through the busy handler: retry for up to the busy
 * timeout. A file system without WAL support keeps its mode; that is
 * slower for concurrent readers but still correct.
 */
static int set_wal(struct gs_db *db, char *err, size_t err_len)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	char mode[16] = "";
	int tries, rc;

	for (tries = 0; tries < GS_DB_BUSY_TIMEOUT_MS / 10; tries++) {
		rc = journal_mode(db, "PRAGMA journal_mode", mode, sizeof(mode));
		if (rc == SQLITE_OK && strcmp(mode, "wal") == 0)
			return 0;
		if (rc == SQLITE_OK)
			rc = journal_mode(db, "PRAGMA journal_mode = WAL", mode, sizeof(mode));
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		nanosleep(&pause, NULL);
	}
	return gs_db_sqlfail(db, err, err_len, "cannot switch to WAL mode");
}

/* The directory part of path ("." when there is none) must be a directory. */
static int db_open(const char *path, bool create, struct gs_db **out, char *err, size_t err_len)
{
	struct gs_db *db;
	struct stat sb;
	int version = 0, flags, rc;

	if (!path || !*path || !out)
		return gs_db_fail(err, err_len, GS_EINVAL, "no database path given");
	if (create) {
		/* The directory of a new database is made when missing (results/ by default). */
		rc = gs_mkdir_parent(path, err, err_len);
		if (rc)
			return rc;
	} else if (stat(path, &sb) != 0) {
		return gs_db_fail(err, err_len, GS_ENOENT, "%s: no such database file", path);
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: is a directory, not a database file", path);

	db = calloc(1, sizeof(*db));
	if (!db)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	db->path = strdup(path);
	if (!db->path) {
		rc = gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
		goto free_db;
	}
	if (pthread_mutex_init(&db->lock, NULL) != 0) {
		rc = gs_db_fail(err, err_len, GS_ENOMEM, "cannot create a mutex");
		goto free_path;
	}
	/* The handle's own mutex serialises every call; SQLite's would be a second one. */
	flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &db->conn, flags, NULL) != SQLITE_OK) {
		rc = gs_db_fail(err, err_len, GS_EDB, "%s: cannot open: %s", path,
				db->conn ? sqlite3_errmsg(db->conn) : "out of memory");
		goto close;
	}
	sqlite3_extended_result_codes(db->conn, 1);
	sqlite3_busy_timeout(db->conn, GS_DB_BUSY_TIMEOUT_MS);

	/*
	 * Look before changing anything, so a refused file is left as it was.
	 * The version and the table count come from one read transaction:
	 * another sweep worker may be creating the schema right now.
	 */
	rc = look(db, create, &version, err, err_len);
	if (rc)
		goto close;
	rc = exec_sql(db, "PRAGMA foreign_keys = ON", err, err_len);
	if (rc)
		goto close;
	if (!sqlite3_db_readonly(db->conn, "main")) {
		/*
		 * WAL lets readers (inspect, plots) run while a sweep writes;
		 * synchronous=NORMAL is safe in WAL mode (a power cut can lose
		 * the last runs, never corrupt the file or half-write a run).
		 */
		rc = set_wal(db, err, err_len);
		if (!rc)
			rc = exec_sql(db, "PRAGMA synchronous = NORMAL", err, err_len);
		if (rc)
			goto close;
	}
	if (version < GS_DB_SCHEMA_VERSION) {
		rc = setup_schema(db, create, err, err_len);
		if (rc)
			goto close;
	}
	*out = db;
	return 0;

close:
	sqlite3_close(db->conn);
	pthread_mutex_destroy(&db->lock);
free_path:
	free(db->path);
free_db:
	free(db);
	return rc;
}

int gs_db_open(const char *path, struct gs_db **out, char *err, size_t err_len)
{
	return db_open(path, true, out, err, err_len);
}

int gs_db_open_existing(const char *path, struct gs_db **out, char *err, size_t err_len)
{
	return db_open(path, false, out, err, err_len);
}

void gs_db_close(struct gs_db *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->st_run);
	sqlite3_finalize(db->st_run_done);
	sqlite3_finalize(db->st_node);
	sqlite3_finalize(db->st_nodes);
	sqlite3_finalize(db->st_pod);
	sqlite3_finalize(db->st_pods);
	sqlite3_finalize(db->st_sample);
	sqlite3_finalize(db->st_samples);
	sqlite3_finalize(db->st_stat);
	sqlite3_finalize(db->st_unclaim);
	sqlite3_finalize(db->st_find);
	sqlite3_close(db->conn);
	pthread_mutex_destroy(&db->lock);
	free(db->path);
	free(db);
}

const char *gs_db_path(const struct gs_db *db)
{
	return db->path;
}

struct sqlite3 *gs_db_sqlite(struct gs_db *db)
{
	return db->conn;
}

int gs_replay_params_json(const struct gs_replay_opts *o, char **json_out)
{
	cJSON *obj = cJSON_CreateObject();
	char *text, *copy = NULL;
	bool ok;

	if (!obj)
		return GS_ENOMEM;
	ok = cJSON_AddStringToObject(obj, "mode",
				     o->mode == GS_MODE_INFLATE ? "inflate" : "time") &&
	     cJSON_AddNumberToObject(obj, "time_scale", o->time_scale) &&
	     cJSON_AddNumberToObject(obj, "max_wait_s", (double)o->max_wait_s) &&
	     cJSON_AddNumberToObject(obj, "sample_every", (double)o->sample_every) &&
	     cJSON_AddNumberToObject(obj, "sample_interval_s", (double)o->sample_interval_s) &&
	     cJSON_AddNumberToObject(obj, "inflate", o->inflate) &&
	     cJSON_AddNumberToObject(obj, "frag_coverage", o->frag_coverage) &&
	     cJSON_AddBoolToObject(obj, "frag", o->frag) &&
	     cJSON_AddBoolToObject(obj, "compat", (o->policy_flags & GS_POLICY_COMPAT) != 0) &&
	     cJSON_AddNumberToObject(obj, "policy_flags", (double)o->policy_flags);
	/*
	 * Keys added after schema 1.0 appear only when they are set, so that
	 * a run with the old options keeps the old text and a resumed sweep
	 * still finds it.
	 */
	if (ok && o->load_pct > 0)
		ok = cJSON_AddNumberToObject(obj, "load", o->load_pct) &&
		     cJSON_AddStringToObject(obj, "arrivals", gs_arrivals_str(o->arrivals)) &&
		     cJSON_AddNumberToObject(obj, "repeat", (double)o->load_repeat);
	if (ok && o->sharing.mode != GS_SHARE_IDEAL) {
		char spec[GS_SHARE_SPEC_MAX];

		ok = cJSON_AddStringToObject(obj, "sharing",
					     gs_share_format(&o->sharing, spec, sizeof(spec))) != NULL;
	}
	if (ok && o->interference)
		ok = cJSON_AddStringToObject(obj, "interference", o->interference->sha256) != NULL;
	if (ok && (o->idle_job.num_gpu != 1 || o->idle_job.cpu_milli != 8000 ||
		   o->idle_job.mem_mib != 0)) {
		cJSON *job = cJSON_AddObjectToObject(obj, "idle_job");

		ok = job && cJSON_AddNumberToObject(job, "num_gpu", o->idle_job.num_gpu) &&
		     cJSON_AddNumberToObject(job, "cpu_milli", o->idle_job.cpu_milli) &&
		     cJSON_AddNumberToObject(job, "mem_mib", (double)o->idle_job.mem_mib);
	}
	text = ok ? cJSON_PrintUnformatted(obj) : NULL;
	cJSON_Delete(obj);
	if (text) {
		copy = strdup(text);
		cJSON_free(text);
	}
	if (!copy)
		return GS_ENOMEM;
	*json_out = copy;
	return 0;
}

/* --- writing ------------------------------------------------------------ */

static const char sql_insert_run[] =
	"INSERT INTO runs (policy, mode, seed, nodes_path, nodes_sha256, pods_path, pods_sha256,"
	" params_json, gpusim_version, started_at, ended_at, wall_ms, n_nodes, gpu_count,"
	" gpu_milli_capacity, cpu_milli_capacity, mem_mib_capacity, n_pods, n_placed, n_failed,"
	" n_done, n_pending_end, n_events, n_retries, t_end_s, wait_total_s, pods_stored,"
	" event_metrics, t_first_arrival_s, t_last_arrival_s, makespan_s, busy_s, wait_p50_s,"
	" wait_p90_s, wait_p99_s, wait_max_s, n_completed, completion_mean_s, completion_p50_s,"
	" completion_p90_s, completion_p99_s, completion_max_s, slowdown_mean, slowdown_p99,"
	" pending_avg, pending_peak, gpu_alloc_arrival_pct, gpu_alloc_busy_pct,"
	" gpu_alloc_peak_pct, frag_avg_pct, n_timed_out, offered_load_pct, sharing,"
	" interference_sha256, eff_util_pct, eff_util_busy_pct, n_oversubscribed, mig_idle_pct,"
	" mig_slack_pct, samples_stored, at100_n, at100_gpu_alloc_pct, at100_frag_ratio_pct,"
	" at100_frag_amount_pct, n_groups, n_groups_placed, n_groups_failed, group_wait_mean_s,"
	" idle_frac_pct, idle_nocpu_pct, idle_stranded_pct)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
	" ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34,"
	" ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, ?51,"
	" ?52, ?53, ?54, ?55, ?56, ?57, ?58, ?59, ?60, ?61, ?62, ?63, ?64, ?65, ?66, ?67, ?68,"
	" ?69, ?70, ?71)";
static const char sql_run_done[] =
	"UPDATE runs SET status = 'complete' WHERE run_id = ?1";
#define N_NODE_COLUMNS 9
static const char node_columns[] =
	"run_id, node_idx, name, cpu_milli, memory_mib, num_gpu, gpu_model, gpu_mem_mib, sharing";
/*
 * Nodes, pods and samples go in with multi-row INSERTs of ROWS_PER_INSERT rows
 * (the tail one row at a time): one statement per 32 rows instead of per
 * row roughly halves the cost of a run's write. The column lists are
 * spelled once; both statements are generated from them.
 */
#define ROWS_PER_INSERT 32
#define N_POD_COLUMNS 21
static const char pod_columns[] =
	"run_id, pod_idx, src_idx, name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_mem_mib,"
	" gpu_spec, state, node_idx, gpus, t_arrive_s, t_start_s, t_end_s, wait_s, fail_reason,"
	" coloc, mig, duration_s";
#define N_SAMPLE_COLUMNS 17
static const char sample_columns[] =
	"run_id, sample_idx, t_s, event, cpu_alloc_milli, mem_alloc_mib, gpu_alloc_milli,"
	" gpus_in_use, arrived_gpu_milli, pods_running, pods_pending, pods_failed, frag_milli,"
	" arrived_pct, idle_frac_milli, idle_nocpu_milli, idle_stranded_milli";
static const char sql_insert_stat[] =
	"INSERT INTO arrived_stats (run_id, arrived_pct, n_samples, gpu_alloc_pct_sum,"
	" unalloc_gpu_pct_sum, frag_ratio_pct_sum, frag_amount_pct_sum)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char sql_unclaim[] =
	"DELETE FROM run_claims WHERE pods_sha256 = ?1 AND policy = ?2 AND seed = ?3"
	" AND nodes_sha256 = ?4 AND params_json = ?5";
static const char sql_find_run[] =
	"SELECT run_id FROM runs WHERE pods_sha256 = ?1 AND policy = ?2 AND seed = ?3"
	" AND nodes_sha256 = ?4 AND params_json = ?5 AND status = 'complete'"
	" ORDER BY run_id DESC LIMIT 1";

static int prepare(struct gs_db *db, const char *sql, sqlite3_stmt **st, char *err,
		   size_t err_len)
{
	if (*st)
		return 0;
	if (sqlite3_prepare_v3(db->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) !=
	    SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot prepare a statement");
	return 0;
}

/* Prepares "INSERT INTO table (columns) VALUES (?, ...), ..." for n_rows rows. */
static int prepare_insert(struct gs_db *db, const char *table, const char *columns, int n_cols,
			  int n_rows, sqlite3_stmt **st, char *err, size_t err_len)
{
	/* "(?,?,...)," is 2 * n_cols + 2 characters per row. */
	size_t len = strlen(table) + strlen(columns) + 64 +
		     (size_t)n_rows * (2 * (size_t)n_cols + 3);
	size_t used;
	char *sql;
	int r, c, rc;

	if (*st)
		return 0;
	sql = malloc(len);
	if (!sql)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	used = (size_t)snprintf(sql, len, "INSERT INTO %s (%s) VALUES ", table, columns);
	for (r = 0; r < n_rows; r++) {
		sql[used++] = r ? ',' : ' ';
		sql[used++] = '(';
		for (c = 0; c < n_cols; c++) {
			if (c)
				sql[used++] = ',';
			sql[used++] = '?';
		}
		sql[used++] = ')';
	}
	sql[used] = '\0';
	rc = prepare(db, sql, st, err, err_len);
	free(sql);
	return rc;
}

static int prepare_writers(struct gs_db *db, char *err, size_t err_len)
{
	int rc;

	rc = prepare(db, sql_insert_run, &db->st_run, err, err_len);
	if (!rc)
		rc = prepare(db, sql_run_done, &db->st_run_done, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "run_nodes", node_columns, N_NODE_COLUMNS, 1, &db->st_node,
				    err, err_len);
	if (!rc)
		rc = prepare_insert(db, "run_nodes", node_columns, N_NODE_COLUMNS, ROWS_PER_INSERT,
				    &db->st_nodes, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "pods", pod_columns, N_POD_COLUMNS, 1, &db->st_pod, err,
				    err_len);
	if (!rc)
		rc = prepare_insert(db, "pods", pod_columns, N_POD_COLUMNS, ROWS_PER_INSERT,
				    &db->st_pods, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "samples", sample_columns, N_SAMPLE_COLUMNS, 1,
				    &db->st_sample, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "samples", sample_columns, N_SAMPLE_COLUMNS,
				    ROWS_PER_INSERT, &db->st_samples, err, err_len);
	if (!rc)
		rc = prepare(db, sql_insert_stat, &db->st_stat, err, err_len);
	if (!rc)
		rc = prepare(db, sql_unclaim, &db->st_unclaim, err, err_len);
	return rc;
}

/* Binds text, or NULL for a NULL pointer. The text must outlive the step. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Binds a time or index, or NULL for the engine's -1 ("never"). */
static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Binds a real, or NULL for NAN. */
static void bind_opt_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Binds a whole number held in a double (a percentile of integers), or NULL for NAN. */
static void bind_opt_whole(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, (int64_t)llround(v));
}

/* Steps an INSERT/UPDATE once and resets it; returns the SQLite code. */
static int step_once(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* ISO-8601 UTC with milliseconds, as SQLite's date functions read it; "" when unset. */
static void format_utc(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char day[32];

	buf[0] = '\0';
	if (ts->tv_sec == 0 && ts->tv_nsec == 0)
		return;
	if (!gmtime_r(&ts->tv_sec, &tm))
		return;
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", day, ts->tv_nsec / 1000000L);
}

/* "0,3": the GPUs of a placement. Returns false for an impossible placement. */
static bool format_gpus(const struct gs_placement *pl, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	if (pl->num_gpu < 0 || pl->num_gpu > GS_MAX_GPUS)
		return false;
	for (i = 0; i < pl->num_gpu; i++) {
		if (pl->gpu[i] >= GS_MAX_GPUS)
			return false;
		used += (size_t)snprintf(buf + used, len - used, i ? ",%u" : "%u",
					 (unsigned)pl->gpu[i]);
	}
	return true;
}

/* "A10|T4": the allowed models of a pod, NULL for any. Returns false for an unknown bit. */
static bool format_spec(const struct gs_models *m, uint32_t mask, char *buf, size_t len,
			const char **out)
{
	size_t used = 0;
	int i;

	*out = NULL;
	if (mask == 0)
		return true;
	buf[0] = '\0';
	for (i = 0; i < GS_MAX_MODELS; i++) {
		if (!((mask >> i) & 1u))
			continue;
		if (i >= m->n)
			return false;
		used += (size_t)snprintf(buf + used, len - used, used ? "|%s" : "%s", m->m[i].name);
		if (used >= len)
			return false;
	}
	*out = buf;
	return true;
}

/* "3g.40gb@4,1g.10gb@0": the MIG instance on each GPU of a placed pod; false when none. */
static bool format_mig(const struct gs_sim *sim, const struct gs_pod_outcome *o, char *buf,
		       size_t len)
{
	const struct gs_mig_table *t = gs_cluster_mig_table(&sim->cluster, o->pl.node);
	size_t used = 0;
	int k;

	buf[0] = '\0';
	if (!t)
		return false;
	for (k = 0; k < o->pl.num_gpu && used < len; k++)
		if (o->pl.mig[k] && o->mig_prof[k] >= 0 && o->mig_prof[k] < t->n)
			used += (size_t)snprintf(buf + used, len - used, "%s%s@%d", used ? "," : "",
						 t->p[o->mig_prof[k]].name, o->pl.mig[k] - 1);
	return buf[0] != '\0';
}

struct run_counts {
	int64_t placed, failed, done, pending_end;
	int64_t wait_total_s;     /* sum of the pods' wait_s, stored or not */
};

static int validate_run(const struct gs_db *db, const struct gs_run_info *ri,
			const struct gs_sim *sim, struct run_counts *cnt, char *err,
			size_t err_len)
{
	const char *missing = NULL;
	size_t i;

	if (!ri || !sim)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: no run to write", db->path);
	if (!ri->policy)
		missing = "policy";
	else if (!ri->mode)
		missing = "mode";
	else if (!ri->nodes_sha256)
		missing = "nodes_sha256";
	else if (!ri->pods_sha256)
		missing = "pods_sha256";
	else if (!ri->params_json)
		missing = "params_json";
	else if (!sim->trace)
		missing = "trace";
	else if (sim->n_pods && (!sim->pods || !sim->out))
		missing = "pod outcomes";
	else if (sim->n_samples && !sim->samples)
		missing = "samples";
	if (missing)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: run not written: no %s given",
				  db->path, missing);
	if (ri->seed > (uint64_t)INT64_MAX)
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: seed %" PRIu64 " is above %" PRId64,
				  db->path, ri->seed, INT64_MAX);

	memset(cnt, 0, sizeof(*cnt));
	for (i = 0; i < sim->n_pods; i++) {
		const struct gs_pod_outcome *o = &sim->out[i];

		if (o->state >= GS_DB_POD_STATES)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: pod %zu has unknown state %u",
					  db->path, i, (unsigned)o->state);
		if (o->src < 0 || (size_t)o->src >= sim->trace->n_pods)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: pod %zu comes from trace row "
					  "%" PRId32 ", the trace has %zu",
					  db->path, i, o->src, sim->trace->n_pods);
		switch (o->state) {
		case GS_POD_DONE:
			cnt->done++;
			/* fall through */
		case GS_POD_RUNNING:
			cnt->placed++;
			/* As bind_pod() computes pods.wait_s. */
			if (o->t_start_s >= 0 && o->t_arrive_s >= 0)
				cnt->wait_total_s += o->t_start_s - o->t_arrive_s;
			break;
		case GS_POD_FAILED:
			cnt->failed++;
			break;
		case GS_POD_PENDING:
			cnt->pending_end++;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* The 1.1 columns from event_metrics on, at parameters base .. base + 24. */
static void bind_time_metrics(sqlite3_stmt *st, int base, const struct gs_sim *sim)
{
	const struct gs_time_metrics *m = &sim->tm;
	bool on = sim->opts.mode == GS_MODE_TIME && m->valid;
	int i;

	sqlite3_bind_int64(st, base, sim->opts.mode == GS_MODE_TIME ? 1 : 0);
	if (!on) {
		for (i = 1; i < (int)N_RUNS_COLUMNS_1_1; i++)
			sqlite3_bind_null(st, base + i);
		return;
	}
	sqlite3_bind_int64(st, base + 1, m->t_first_arrival_s);
	sqlite3_bind_int64(st, base + 2, m->t_last_arrival_s);
	sqlite3_bind_int64(st, base + 3, m->makespan_s);
	sqlite3_bind_int64(st, base + 4, m->busy_s);
	bind_opt_whole(st, base + 5, m->wait_p50_s);
	bind_opt_whole(st, base + 6, m->wait_p90_s);
	bind_opt_whole(st, base + 7, m->wait_p99_s);
	bind_opt_whole(st, base + 8, m->wait_max_s);
	sqlite3_bind_int64(st, base + 9, m->n_completed);
	bind_opt_real(st, base + 10, m->completion_mean_s);
	bind_opt_whole(st, base + 11, m->completion_p50_s);
	bind_opt_whole(st, base + 12, m->completion_p90_s);
	bind_opt_whole(st, base + 13, m->completion_p99_s);
	bind_opt_whole(st, base + 14, m->completion_max_s);
	bind_opt_real(st, base + 15, m->slowdown_mean);
	bind_opt_real(st, base + 16, m->slowdown_p99);
	bind_opt_real(st, base + 17, m->pending_avg);
	sqlite3_bind_int64(st, base + 18, m->pending_peak);
	bind_opt_real(st, base + 19, m->gpu_alloc_arrival_pct);
	bind_opt_real(st, base + 20, m->gpu_alloc_busy_pct);
	bind_opt_real(st, base + 21, m->gpu_alloc_peak_pct);
	bind_opt_real(st, base + 22, m->frag_avg_pct);
	sqlite3_bind_int64(st, base + 23, m->n_timed_out);
	bind_opt_real(st, base + 24, m->offered_load_pct);
}

/*
 * Which samples a run stores: all of them, or, for an inflate run without
 * ri->arrival_samples, only the ones its summary reads (the first with the
 * largest allocation, the first with the longest queue if that is not 0,
 * and the last); the per-percent statistics stand in for the rest.
 */
static bool all_samples(const struct gs_run_info *ri, const struct gs_sim *sim)
{
	return sim->opts.mode != GS_MODE_INFLATE || ri->arrival_samples;
}

static int insert_run(struct gs_db *db, const struct gs_run_info *ri, const struct gs_sim *sim,
		      const struct run_counts *cnt, const struct gs_arrived_stats *stats)
{
	const struct gs_cluster *c = &sim->cluster;
	sqlite3_stmt *st = db->st_run;
	char started[48], ended[48];

	format_utc(&ri->started_at, started, sizeof(started));
	format_utc(&ri->ended_at, ended, sizeof(ended));
	bind_text(st, 1, ri->policy);
	bind_text(st, 2, ri->mode);
	sqlite3_bind_int64(st, 3, (int64_t)ri->seed);
	bind_text(st, 4, ri->nodes_path);
	bind_text(st, 5, ri->nodes_sha256);
	bind_text(st, 6, ri->pods_path);
	bind_text(st, 7, ri->pods_sha256);
	bind_text(st, 8, ri->params_json);
	bind_text(st, 9, ri->gpusim_version ? ri->gpusim_version : gs_version());
	bind_text(st, 10, started[0] ? started : NULL);
	bind_text(st, 11, ended[0] ? ended : NULL);
	sqlite3_bind_double(st, 12, ri->wall_ms);
	sqlite3_bind_int64(st, 13, c->n_nodes);
	sqlite3_bind_int64(st, 14, c->gpu_count);
	sqlite3_bind_int64(st, 15, c->gpu_milli);
	sqlite3_bind_int64(st, 16, c->cpu_milli);
	sqlite3_bind_int64(st, 17, c->mem_mib);
	sqlite3_bind_int64(st, 18, (int64_t)sim->n_pods);
	sqlite3_bind_int64(st, 19, cnt->placed);
	sqlite3_bind_int64(st, 20, cnt->failed);
	sqlite3_bind_int64(st, 21, cnt->done);
	sqlite3_bind_int64(st, 22, cnt->pending_end);
	sqlite3_bind_int64(st, 23, sim->stats.events);
	sqlite3_bind_int64(st, 24, sim->stats.retries);
	sqlite3_bind_int64(st, 25, sim->stats.t_end_s);
	sqlite3_bind_int64(st, 26, cnt->wait_total_s);
	sqlite3_bind_int64(st, 27, ri->no_pods ? 0 : 1);
	bind_time_metrics(st, 28, sim);
	{
		char spec[GS_SHARE_SPEC_MAX];
		bool time = sim->opts.mode == GS_MODE_TIME;

		sqlite3_bind_text(st, 53, gs_share_format(&sim->opts.sharing, spec, sizeof(spec)), -1,
				  SQLITE_TRANSIENT);
		bind_text(st, 54, sim->share_on ? sim->share.tbl->sha256 : NULL);
		bind_opt_real(st, 55, time ? sim->eff_util_pct : NAN);
		bind_opt_real(st, 56, time ? sim->eff_util_busy_pct : NAN);
		sqlite3_bind_int64(st, 57, sim->oversubscribed);
		bind_opt_real(st, 58, time ? sim->mig_idle_pct : NAN);
		bind_opt_real(st, 59, time ? sim->mig_slack_pct : NAN);
	}
	sqlite3_bind_int64(st, 60, all_samples(ri, sim) ? 1 : 0);
	if (sim->opts.mode == GS_MODE_INFLATE) {
		sqlite3_bind_int64(st, 61, stats->at100_n);
		bind_opt_real(st, 62, stats->at100_gpu_alloc_pct);
		bind_opt_real(st, 63, stats->at100_frag_ratio_pct);
		bind_opt_real(st, 64, stats->at100_frag_amount_pct);
	} else {
		sqlite3_bind_null(st, 61);
		sqlite3_bind_null(st, 62);
		sqlite3_bind_null(st, 63);
		sqlite3_bind_null(st, 64);
	}
	{
		struct gs_summary sum;

		gs_sim_summarize(sim, &sum);
		sqlite3_bind_int64(st, 65, sum.groups);
		sqlite3_bind_int64(st, 66, sum.groups_placed);
		sqlite3_bind_int64(st, 67, sum.groups_failed);
		bind_opt_real(st, 68, sum.group_mean_wait_s);
		bind_opt_real(st, 69, sum.idle_frac_pct);
		bind_opt_real(st, 70, sum.idle_nocpu_pct);
		bind_opt_real(st, 71, sum.idle_stranded_pct);
	}
	return step_once(st);
}

/* Binds node i to parameters base + 1 .. base + N_NODE_COLUMNS of st. */
static int bind_node(struct gs_db *db, sqlite3_stmt *st, int base, int64_t run_id,
		     const struct gs_cluster *c, int32_t i, char *err, size_t err_len)
{
	const struct gs_node *n = &c->nodes[i];
	const struct gs_gpu_model *m = NULL;
	char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

	if (n->num_gpu > 0) {
		if (n->model < 0 || n->model >= c->models.n)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: node %" PRId32
					  " has GPU model index %" PRId32 ", the table has %d",
					  db->path, i, n->model, c->models.n);
		m = &c->models.m[n->model];
	}
	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, i);
	bind_text(st, base + 3, c->node_names && c->node_names[i] ? c->node_names[i] : "");
	sqlite3_bind_int64(st, base + 4, n->cpu_milli);
	sqlite3_bind_int64(st, base + 5, n->mem_mib);
	sqlite3_bind_int64(st, base + 6, n->num_gpu);
	bind_text(st, base + 7, m ? m->name : NULL);
	sqlite3_bind_int64(st, base + 8, m ? m->mem_mib : 0);
	gs_cluster_node_share_text(c, i, share, sizeof(share));
	if (share[0])
		sqlite3_bind_text(st, base + 9, share, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, base + 9);
	return 0;
}

static int insert_nodes(struct gs_db *db, int64_t run_id, const struct gs_cluster *c,
			char *err, size_t err_len)
{
	int32_t i = 0, j, rows;
	int rc;

	while (i < c->n_nodes) {
		sqlite3_stmt *st;

		rows = c->n_nodes - i >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 1;
		st = rows > 1 ? db->st_nodes : db->st_node;
		for (j = 0; j < rows; j++) {
			rc = bind_node(db, st, j * N_NODE_COLUMNS, run_id, c, i + j, err, err_len);
			if (rc)
				return rc;
		}
		if (step_once(st) != SQLITE_OK) {
			char what[64];

			snprintf(what, sizeof(what), "cannot write nodes %" PRId32 "-%" PRId32, i,
				 i + rows - 1);
			return gs_db_sqlfail(db, err, err_len, what);
		}
		i += rows;
	}
	return 0;
}

/* Text a pod row binds with SQLITE_STATIC: it must live until the statement steps. */
struct pod_text {
	char gpus[GS_MAX_GPUS * 4 + 1];
	char mig[GS_MAX_GPUS * (GS_MIG_NAME_MAX + 4)];
	char spec[GS_MAX_MODELS * GS_MODEL_NAME_MAX];
	char reason[256];
};

/* Binds pod i to parameters base + 1 .. base + N_POD_COLUMNS of st. */
static int bind_pod(struct gs_db *db, sqlite3_stmt *st, int base, int64_t run_id,
		    const struct gs_sim *sim, size_t i, struct pod_text *txt, char *err,
		    size_t err_len)
{
	const struct gs_pod *p = &sim->pods[i];
	const struct gs_pod_outcome *o = &sim->out[i];
	const char *name = sim->trace->pod_names ? sim->trace->pod_names[o->src] : NULL;
	const char *spec_text;
	bool placed = o->state == GS_POD_RUNNING || o->state == GS_POD_DONE;
	bool unplaced = o->state == GS_POD_FAILED || o->state == GS_POD_PENDING;

	if (!format_spec(&sim->cluster.models, p->model_mask, txt->spec, sizeof(txt->spec),
			 &spec_text))
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: pod %zu allows GPU model bits %#x, the "
				  "cluster has %d models",
				  db->path, i, p->model_mask, sim->cluster.models.n);
	if (placed && !format_gpus(&o->pl, txt->gpus, sizeof(txt->gpus)))
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: pod %zu has an impossible placement "
				  "(%" PRId32 " GPUs)",
				  db->path, i, o->pl.num_gpu);
	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, (int64_t)i);
	sqlite3_bind_int64(st, base + 3, o->src);
	bind_text(st, base + 4, name ? name : "");
	sqlite3_bind_int64(st, base + 5, p->cpu_milli);
	sqlite3_bind_int64(st, base + 6, p->mem_mib);
	sqlite3_bind_int64(st, base + 7, p->num_gpu);
	sqlite3_bind_int64(st, base + 8, p->gpu_milli);
	sqlite3_bind_int64(st, base + 9, p->gpu_mem_mib);
	bind_text(st, base + 10, spec_text);
	bind_text(st, base + 11, gs_db_pod_state[o->state]);
	if (placed) {
		sqlite3_bind_int64(st, base + 12, o->pl.node);
		bind_text(st, base + 13, o->pl.num_gpu > 0 ? txt->gpus : NULL);
	} else {
		sqlite3_bind_null(st, base + 12);
		sqlite3_bind_null(st, base + 13);
	}
	bind_opt_int(st, base + 14, o->t_arrive_s);
	bind_opt_int(st, base + 15, placed ? o->t_start_s : -1);
	/* Placed pods: when they left; failed ones: when they gave up. */
	bind_opt_int(st, base + 16, o->t_end_s);
	if (placed && o->t_start_s >= 0 && o->t_arrive_s >= 0)
		sqlite3_bind_int64(st, base + 17, o->t_start_s - o->t_arrive_s);
	else
		sqlite3_bind_null(st, base + 17);
	if (o->state == GS_POD_FAILED && (o->fail == GS_FAIL_GPU_MEM || o->fail == GS_FAIL_GROUP))
		bind_text(st, base + 18, gs_fail_reason_str((enum gs_fail_reason)o->fail));
	else
		bind_text(st, base + 18, unplaced ? gs_nofit_format(&o->why, txt->reason,
								    sizeof(txt->reason)) : NULL);
	if (placed && sim->share_on && o->pl.num_gpu)
		sqlite3_bind_double(st, base + 19, o->coloc);
	else
		sqlite3_bind_null(st, base + 19);
	bind_text(st, base + 20, placed && format_mig(sim, o, txt->mig, sizeof(txt->mig))
		  ? txt->mig : NULL);
	bind_opt_int(st, base + 21, gs_pod_duration_s(p));
	return 0;
}

static int insert_pods(struct gs_db *db, int64_t run_id, const struct gs_sim *sim, char *err,
		       size_t err_len)
{
	struct pod_text *txt = malloc(ROWS_PER_INSERT * sizeof(*txt));
	sqlite3_stmt *st;
	size_t i = 0, j, rows;
	int rc = 0;

	if (!txt)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	while (i < sim->n_pods) {
		rows = sim->n_pods - i >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 1;
		st = rows > 1 ? db->st_pods : db->st_pod;

		for (j = 0; j < rows && !rc; j++)
			rc = bind_pod(db, st, (int)j * N_POD_COLUMNS, run_id, sim, i + j, &txt[j],
				      err, err_len);
		if (rc)
			break;
		if (step_once(st) != SQLITE_OK) {
			char what[64];

			if (rows > 1)
				snprintf(what, sizeof(what), "cannot write pods %zu-%zu", i,
					 i + rows - 1);
			else
				snprintf(what, sizeof(what), "cannot write pod %zu", i);
			rc = gs_db_sqlfail(db, err, err_len, what);
			break;
		}
		i += rows;
	}
	/* The statements point into txt: forget those pointers before freeing it. */
	sqlite3_clear_bindings(db->st_pod);
	sqlite3_clear_bindings(db->st_pods);
	free(txt);
	return rc;
}

/* Binds sample i to parameters base + 1 .. base + N_SAMPLE_COLUMNS of st. */
static void bind_sample(sqlite3_stmt *st, int base, int64_t run_id, const struct gs_sim *sim,
			size_t i)
{
	const struct gs_sample *s = &sim->samples[i];
	int64_t cap = sim->cluster.gpu_milli;

	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, (int64_t)i);
	sqlite3_bind_int64(st, base + 3, s->t_s);
	sqlite3_bind_int64(st, base + 4, s->event);
	sqlite3_bind_int64(st, base + 5, s->cpu_alloc_milli);
	sqlite3_bind_int64(st, base + 6, s->mem_alloc_mib);
	sqlite3_bind_int64(st, base + 7, s->gpu_alloc_milli);
	sqlite3_bind_int64(st, base + 8, s->gpus_in_use);
	sqlite3_bind_int64(st, base + 9, s->arrived_gpu_milli);
	sqlite3_bind_int64(st, base + 10, s->pods_running);
	sqlite3_bind_int64(st, base + 11, s->pending);
	sqlite3_bind_int64(st, base + 12, s->failed);
	if (isnan(s->frag_milli))
		sqlite3_bind_null(st, base + 13);
	else
		sqlite3_bind_double(st, base + 13, s->frag_milli);
	/* The engine's own rounding, so the buckets match gs_sim_summarize(). */
	if (cap > 0)
		sqlite3_bind_int64(st, base + 14, gs_sample_arrived_pct(s, cap));
	else
		sqlite3_bind_null(st, base + 14);
	sqlite3_bind_int64(st, base + 15, s->idle_frac_milli);
	sqlite3_bind_int64(st, base + 16, s->idle_nocpu_milli);
	sqlite3_bind_int64(st, base + 17, s->idle_stranded_milli);
}

/* The few samples an inflate run keeps without ri->arrival_samples (all_samples()). */
static int insert_some_samples(struct gs_db *db, int64_t run_id, const struct gs_sim *sim,
			       char *err, size_t err_len)
{
	size_t i, peak = 0, queue = 0, last;

	if (sim->n_samples == 0)
		return 0;
	last = sim->n_samples - 1;
	for (i = 1; i < sim->n_samples; i++) {
		if (sim->samples[i].gpu_alloc_milli > sim->samples[peak].gpu_alloc_milli)
			peak = i;
		if (sim->samples[i].pending > sim->samples[queue].pending)
			queue = i;
	}
	for (i = 0; i < sim->n_samples; i++) {
		if (i != peak && i != last && (i != queue || sim->samples[queue].pending == 0))
			continue;
		bind_sample(db->st_sample, 0, run_id, sim, i);
		if (step_once(db->st_sample) != SQLITE_OK) {
			char what[64];

			snprintf(what, sizeof(what), "cannot write sample %zu", i);
			return gs_db_sqlfail(db, err, err_len, what);
		}
	}
	return 0;
}

static int insert_stats(struct gs_db *db, int64_t run_id, const struct gs_arrived_stats *stats,
			char *err, size_t err_len)
{
	sqlite3_stmt *st = db->st_stat;
	size_t i;

	for (i = 0; i < stats->n_buckets; i++) {
		const struct gs_arrived_bucket *b = &stats->buckets[i];

		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, b->pct);
		sqlite3_bind_int64(st, 3, b->n);
		sqlite3_bind_double(st, 4, b->gpu_alloc_pct_sum);
		sqlite3_bind_double(st, 5, b->unalloc_gpu_pct_sum);
		bind_opt_real(st, 6, b->frag_ratio_pct_sum);
		bind_opt_real(st, 7, b->frag_amount_pct_sum);
		if (step_once(st) != SQLITE_OK) {
			char what[64];

			snprintf(what, sizeof(what), "cannot write the statistics of %" PRId64 " %%",
				 b->pct);
			return gs_db_sqlfail(db, err, err_len, what);
		}
	}
	return 0;
}

static int insert_samples(struct gs_db *db, int64_t run_id, const struct gs_sim *sim,
			  char *err, size_t err_len)
{
	sqlite3_stmt *st;
	size_t i = 0, j, rows;

	while (i < sim->n_samples) {
		rows = sim->n_samples - i >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 1;
		st = rows > 1 ? db->st_samples : db->st_sample;

		for (j = 0; j < rows; j++)
			bind_sample(st, (int)j * N_SAMPLE_COLUMNS, run_id, sim, i + j);
		if (step_once(st) != SQLITE_OK) {
			char what[64];

			if (rows > 1)
				snprintf(what, sizeof(what), "cannot write samples %zu-%zu", i,
					 i + rows - 1);
			else
				snprintf(what, sizeof(what), "cannot write sample %zu", i);
			return gs_db_sqlfail(db, err, err_len, what);
		}
		i += rows;
	}
	return 0;
}

static int drop_claim(struct gs_db *db, const struct gs_run_info *ri, char *err, size_t err_len)
{
	sqlite3_stmt *st = db->st_unclaim;

	bind_text(st, 1, ri->pods_sha256);
	bind_text(st, 2, ri->policy);
	sqlite3_bind_int64(st, 3, (int64_t)ri->seed);
	bind_text(st, 4, ri->nodes_sha256);
	bind_text(st, 5, ri->params_json);
	if (step_once(st) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot drop the run's claim");
	return 0;
}

/* The run and node writers bound stack buffers with SQLITE_STATIC: drop those pointers. */
static void clear_writer_bindings(struct gs_db *db)
{
	sqlite3_stmt *st[] = { db->st_run, db->st_run_done, db->st_node, db->st_nodes,
			       db->st_unclaim };
	size_t i;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (st[i])
			sqlite3_clear_bindings(st[i]);
}

int gs_db_write_run(struct gs_db *db, const struct gs_run_info *ri, const struct gs_sim *sim,
		    int64_t *run_id_out, char *err, size_t err_len)
{
	struct run_counts cnt;
	struct gs_arrived_stats stats;
	cJSON *params;
	int64_t run_id;
	int rc;

	if (!db)
		return gs_db_fail(err, err_len, GS_EINVAL, "no database");
	rc = validate_run(db, ri, sim, &cnt, err, err_len);
	if (rc)
		return rc;
	params = ri->params_json ? gs_cjson_parse(ri->params_json, strlen(ri->params_json), NULL)
				 : NULL;
	/* cJSON says NULL for both: an allocation that failed is no bad input. */
	if (!params && gs_cjson_oom())
		return gs_db_fail(err, err_len, GS_ENOMEM, "%s: run not written: out of memory",
				  db->path);
	if (!params)
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: params_json is not valid JSON", db->path);
	cJSON_Delete(params);
	/* Outside the lock and the transaction: it only reads the run. */
	if (gs_arrived_stats_compute(sim->samples, sim->n_samples, sim->cluster.gpu_milli,
				     sim->frag_on, &stats))
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");

	pthread_mutex_lock(&db->lock);
	rc = prepare_writers(db, err, err_len);
	if (rc)
		goto unlock;
	/* IMMEDIATE: take the write lock now and wait for it, never mid-run. */
	if (sqlite3_exec(db->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot start the run's transaction");
		goto unlock;
	}
	if (insert_run(db, ri, sim, &cnt, &stats) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot write the run");
		goto rollback;
	}
	run_id = sqlite3_last_insert_rowid(db->conn);
	rc = insert_nodes(db, run_id, &sim->cluster, err, err_len);
	if (rc)
		goto rollback;
	rc = ri->no_pods ? 0 : insert_pods(db, run_id, sim, err, err_len);
	if (rc)
		goto rollback;
	rc = all_samples(ri, sim) ? insert_samples(db, run_id, sim, err, err_len) :
				    insert_some_samples(db, run_id, sim, err, err_len);
	if (rc)
		goto rollback;
	rc = insert_stats(db, run_id, &stats, err, err_len);
	if (rc)
		goto rollback;
	/* A sweep claimed the run before it ran it (store/plan.h): the claim ends here. */
	rc = drop_claim(db, ri, err, err_len);
	if (rc)
		goto rollback;
	/* Last: only now can anyone see this run as complete. */
	sqlite3_bind_int64(db->st_run_done, 1, run_id);
	if (step_once(db->st_run_done) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot mark the run complete");
		goto rollback;
	}
	if (sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot commit the run");
		goto rollback;
	}
	if (run_id_out)
		*run_id_out = run_id;
	rc = 0;
	goto unlock;

rollback:
	if (!sqlite3_get_autocommit(db->conn))
		sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
unlock:
	clear_writer_bindings(db);
	pthread_mutex_unlock(&db->lock);
	gs_arrived_stats_release(&stats);
	return rc;
}

int gs_db_find_run(struct gs_db *db, const char *policy, const char *pods_sha256,
		   const char *nodes_sha256, uint64_t seed, const char *params_json,
		   int64_t *run_id_out)
{
	sqlite3_stmt *st;
	int rc;

	if (!db || !policy || !pods_sha256 || !nodes_sha256 || !params_json ||
	    seed > (uint64_t)INT64_MAX)
		return GS_EINVAL;
	pthread_mutex_lock(&db->lock);
	rc = prepare(db, sql_find_run, &db->st_find, NULL, 0);
	if (rc)
		goto unlock;
	st = db->st_find;
	bind_text(st, 1, pods_sha256);
	bind_text(st, 2, policy);
	sqlite3_bind_int64(st, 3, (int64_t)seed);
	bind_text(st, 4, nodes_sha256);
	bind_text(st, 5, params_json);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (run_id_out)
			*run_id_out = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? GS_ENOENT : GS_EDB;
	}
	sqlite3_reset(st);
unlock:
	pthread_mutex_unlock(&db->lock);
	return rc;
}
