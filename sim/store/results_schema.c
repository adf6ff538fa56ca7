/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_schema.c - the results store's schema: the DDL of a new
 * database, the migrations from each older minor version, and the
 * version checks that refuse a newer or a foreign file.
 *
 * The DDL below is the definition of the schema; results/SCHEMA.md
 * documents it column by column and must be kept in step with it. See
 * results.h for the version rule.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "store/bounds.h"
#include "store/decision.h"
#include "store/results.h"
#include "store/results_internal.h"
#include "store/run_defrag.h"

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

/* The number of elements of array a. */
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The columns schema 1.1 added to runs: the time-mode figures computed
 * from the events (engine/metrics.h). Spelled once: the CREATE TABLE of a
 * new database ends with them, and the migration from 1.0 adds them with
 * ALTER TABLE, so both give the same table.
 */
static const char *const columns_1_1[] = {
	"runs ADD COLUMN event_metrics INTEGER NOT NULL DEFAULT 0 CHECK (event_metrics IN (0, 1))",
	"runs ADD COLUMN t_first_arrival_s INTEGER",
	"runs ADD COLUMN t_last_arrival_s INTEGER",
	"runs ADD COLUMN makespan_s INTEGER",
	"runs ADD COLUMN busy_s INTEGER",
	"runs ADD COLUMN wait_p50_s INTEGER",
	"runs ADD COLUMN wait_p90_s INTEGER",
	"runs ADD COLUMN wait_p99_s INTEGER",
	"runs ADD COLUMN wait_max_s INTEGER",
	"runs ADD COLUMN n_completed INTEGER",
	"runs ADD COLUMN completion_mean_s REAL",
	"runs ADD COLUMN completion_p50_s INTEGER",
	"runs ADD COLUMN completion_p90_s INTEGER",
	"runs ADD COLUMN completion_p99_s INTEGER",
	"runs ADD COLUMN completion_max_s INTEGER",
	"runs ADD COLUMN slowdown_mean REAL",
	"runs ADD COLUMN slowdown_p99 REAL",
	"runs ADD COLUMN pending_avg REAL",
	"runs ADD COLUMN pending_peak INTEGER",
	"runs ADD COLUMN gpu_alloc_arrival_pct REAL",
	"runs ADD COLUMN gpu_alloc_busy_pct REAL",
	"runs ADD COLUMN gpu_alloc_peak_pct REAL",
	"runs ADD COLUMN frag_avg_pct REAL",
	"runs ADD COLUMN n_timed_out INTEGER",
	"runs ADD COLUMN offered_load_pct REAL",
};
_Static_assert(N_OF(columns_1_1) == GS_DB_RUNS_COLUMNS_1_1, "the writer binds every 1.1 column");

/*
 * The columns schema 1.2 added: the GPU-sharing model (engine/share_model.h).
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

/* Schema 1.3: each pod's duration in the trace, for slowdowns read back from pods. */
static const char *const columns_1_3[] = {
	"pods ADD COLUMN duration_s INTEGER",
};

/*
 * The columns schema 1.4 added to runs: whether every sample is stored
 * (inflate runs keep their statistics in arrived_stats instead of one
 * sample per arrival) and the inflate-mode figures "at arrived 100 %",
 * computed by the engine (engine/arrived_stats.h) exactly as the views of
 * 1.0 to 1.3 compute them from the samples.
 */
static const char *const columns_1_4[] = {
	("runs ADD COLUMN samples_stored INTEGER NOT NULL DEFAULT 1"
	 " CHECK (samples_stored IN (0, 1))"),
	"runs ADD COLUMN at100_n INTEGER",
	"runs ADD COLUMN at100_gpu_alloc_pct REAL",
	"runs ADD COLUMN at100_frag_ratio_pct REAL",
	"runs ADD COLUMN at100_frag_amount_pct REAL",
};

/*
 * The column schema 1.7 added to runs: the checksum of the run's rows
 * (store/digest.h), "1:<hex>", NULL for runs stored before it.
 */
static const char *const columns_1_7[] = {
	"runs ADD COLUMN rows_checksum TEXT",
};

/*
 * Schema 1.9: pod groups (engine/gang.h) and the idle GPU capacity by
 * reason (core/idle.h), per run and per sample. Older rows have NULL
 * (and 0 groups).
 */
static const char *const columns_1_9[] = {
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
 * Each sample in percent of capacity. Schema 1.7 adds the idle breakdown
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
 * (engine/arrived_stats.h forms them in the order SQLite summed the samples), so
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
 * writer stores for a new run: arrived_stats from the samples, with the
 * grouping and the index order of the arrived_buckets view of 1.0 to 1.3
 * (sum instead of avg, so that sum / n is that avg to the bit), and the
 * at100 columns with the subqueries of 1.3's run_summary (AT_100).
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
 * predecessor. 1.1 adds columns_1_1 (added by add_columns() before this
 * SQL runs, as for every minor) and the new run_summary; 1.2 adds
 * columns_1_2 and shows them in run_summary; 1.3 adds columns_1_3;
 * 1.4 adds columns_1_4, arrived_stats and new arrived_buckets and
 * run_summary views; 1.5 adds sweep_plans and run_claims; 1.6 only the
 * bound tables of store/bounds.h and run_defrag (store/run_defrag.h),
 * which run with the bench tables; 1.7 adds columns_1_7, the runs'
 * checksums; 1.8 the decision tables of store/decision.h, which run with
 * the bench tables too; 1.9 adds columns_1_9 (pod groups, idle GPUs) and
 * new run_summary and sample_metrics views (a view is not checked when it
 * is made, so the
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
	NULL,
	NULL,
	NULL,
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
	return gs_db_exec(db, sql, err, err_len);
}

/* The columns each minor version added, as ALTER TABLE clauses (none: only tables). */
static const struct {
	const char *const *alter;
	size_t n;
} columns_of[GS_DB_SCHEMA_MINOR + 1] = {
	[1] = { columns_1_1, N_OF(columns_1_1) },
	[2] = { columns_1_2, N_OF(columns_1_2) },
	[3] = { columns_1_3, N_OF(columns_1_3) },
	[4] = { columns_1_4, N_OF(columns_1_4) },
	[7] = { columns_1_7, N_OF(columns_1_7) },
	[9] = { columns_1_9, N_OF(columns_1_9) },
};

/* ALTER TABLE for each column that minor version `minor` added. */
static int add_columns(struct gs_db *db, size_t minor, char *err, size_t err_len)
{
	char sql[256];
	size_t i;
	int rc;

	for (i = 0; i < columns_of[minor].n; i++) {
		snprintf(sql, sizeof(sql), "ALTER TABLE %s", columns_of[minor].alter[i]);
		rc = gs_db_exec(db, sql, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The version is looked at again under the write lock: another connection
 * (a sweep's other worker) may have created or migrated the schema since
 * gs_db_schema_look().
 */
int gs_db_schema_setup(struct gs_db *db, bool create, char *err, size_t err_len)
{
	int version = 0, n_tables = 0, rc;
	size_t i;

	rc = gs_db_exec(db, "BEGIN IMMEDIATE", err, err_len);
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
			size_t m;

			/* run_summary is last: give the tables the columns of 1.2 on before it. */
			if (i + 1 == sizeof(schema_sql) / sizeof(schema_sql[0]))
				for (m = 2; m <= GS_DB_SCHEMA_MINOR && rc == 0; m++)
					rc = add_columns(db, m, err, err_len);
			if (rc == 0)
				rc = gs_db_exec(db, schema_sql[i], err, err_len);
			/* runs is first: give it the columns of 1.1 before anything refers to them. */
			if (rc == 0 && i == 0)
				rc = add_columns(db, 1, err, err_len);
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
			rc = add_columns(db, i, err, err_len);
			/* NULL: a minor that only added bench or bound tables (below). */
			if (rc == 0 && migration_sql[i])
				rc = gs_db_exec(db, migration_sql[i], err, err_len);
			if (rc)
				goto rollback;
		}
	}
	rc = gs_db_exec(db, gs_bench_schema_sql, err, err_len);
	if (rc == 0)
		rc = gs_db_exec(db, gs_bounds_schema_sql, err, err_len);
	if (rc == 0)
		rc = gs_db_exec(db, gs_run_defrag_schema_sql, err, err_len);
	if (rc == 0)
		rc = gs_db_exec(db, gs_decision_schema_sql, err, err_len);
	if (rc)
		goto rollback;
	rc = set_user_version(db, GS_DB_SCHEMA_VERSION, err, err_len);
	if (rc)
		goto rollback;
commit:
	return gs_db_exec(db, "COMMIT", err, err_len);
rollback:
	sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int gs_db_schema_look(struct gs_db *db, bool create, int *version_out, char *err,
		      size_t err_len)
{
	int n_tables = 0, rc;

	rc = gs_db_exec(db, "BEGIN", err, err_len);
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
