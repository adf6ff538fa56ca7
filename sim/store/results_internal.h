/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_internal.h - what the files of the results store share:
 * results_schema.c (DDL and migrations), results_open.c (opening, WAL),
 * results_write.c (the writer) and results_read.c (the readers behind
 * gpusim inspect). Not part of the store's contract; include results.h
 * instead.
 */
#ifndef GS_RESULTS_INTERNAL_H
#define GS_RESULTS_INTERNAL_H

#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"
#include "store/results.h"

struct gs_db {
	sqlite3 *conn;
	char *path;
	pthread_mutex_t lock;
	/* Writers, prepared on the first write and reused for every row. */
	sqlite3_stmt *st_run, *st_run_done, *st_find;
	sqlite3_stmt *st_node, *st_nodes;       /* one row, ROWS_PER_INSERT rows */
	sqlite3_stmt *st_pod, *st_pods;         /* one row, ROWS_PER_INSERT rows */
	sqlite3_stmt *st_sample, *st_samples;
	sqlite3_stmt *st_stat;                  /* one arrived_stats row */
	sqlite3_stmt *st_unclaim;               /* drops a run's claim (store/plan.h) */
};

/*
 * The names of enum gs_pod_state in pods.state. They are part of the
 * on-disk format (a CHECK constraint in the DDL), so the store owns them.
 */
extern const char *const gs_db_pod_state[];
#define GS_DB_POD_STATES (GS_POD_FAILED + 1)

/* How many columns schema 1.1 added to runs: results_schema.c spells them, the writer binds them. */
#define GS_DB_RUNS_COLUMNS_1_1 25

/*
 * The columns of a run's rows, run_id (and runs' status and rows_checksum)
 * aside: _1_7 as schema 1.7 has them, then _1_9 what schema 1.9 added
 * (each starts with ", "). The writer inserts both (results_write.c); the
 * checksum hashes _1_7 in its version 1 and both in version 2 (digest.c),
 * so these lists are frozen: a later column goes in a new list, read by a
 * new digest version.
 */
#define GS_DB_RUNS_COLUMN_LIST_1_7                                                               \
	"policy, mode, seed, nodes_path, nodes_sha256, pods_path, pods_sha256, params_json,"     \
	" gpusim_version, started_at, ended_at, wall_ms, n_nodes, gpu_count,"                    \
	" gpu_milli_capacity, cpu_milli_capacity, mem_mib_capacity, n_pods, n_placed, n_failed," \
	" n_done, n_pending_end, n_events, n_retries, t_end_s, wait_total_s, pods_stored,"       \
	" event_metrics, t_first_arrival_s, t_last_arrival_s, makespan_s, busy_s, wait_p50_s,"   \
	" wait_p90_s, wait_p99_s, wait_max_s, n_completed, completion_mean_s, completion_p50_s," \
	" completion_p90_s, completion_p99_s, completion_max_s, slowdown_mean, slowdown_p99,"    \
	" pending_avg, pending_peak, gpu_alloc_arrival_pct, gpu_alloc_busy_pct,"                 \
	" gpu_alloc_peak_pct, frag_avg_pct, n_timed_out, offered_load_pct, sharing,"             \
	" interference_sha256, eff_util_pct, eff_util_busy_pct, n_oversubscribed, mig_idle_pct," \
	" mig_slack_pct, samples_stored, at100_n, at100_gpu_alloc_pct, at100_frag_ratio_pct,"    \
	" at100_frag_amount_pct"
#define GS_DB_RUNS_COLUMN_LIST_1_9                                                               \
	", n_groups, n_groups_placed, n_groups_failed, group_wait_mean_s, idle_frac_pct,"        \
	" idle_nocpu_pct, idle_stranded_pct"
#define GS_DB_NODE_COLUMN_LIST_1_7                                                               \
	"node_idx, name, cpu_milli, memory_mib, num_gpu, gpu_model, gpu_mem_mib, sharing"
#define GS_DB_POD_COLUMN_LIST_1_7                                                                \
	"pod_idx, src_idx, name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_mem_mib,"        \
	" gpu_spec, state, node_idx, gpus, t_arrive_s, t_start_s, t_end_s, wait_s, fail_reason," \
	" coloc, mig, duration_s"
#define GS_DB_SAMPLE_COLUMN_LIST_1_7                                                             \
	"sample_idx, t_s, event, cpu_alloc_milli, mem_alloc_mib, gpu_alloc_milli, gpus_in_use,"  \
	" arrived_gpu_milli, pods_running, pods_pending, pods_failed, frag_milli, arrived_pct"
#define GS_DB_SAMPLE_COLUMN_LIST_1_9 ", idle_frac_milli, idle_nocpu_milli, idle_stranded_milli"
#define GS_DB_STAT_COLUMN_LIST_1_7                                                               \
	"arrived_pct, n_samples, gpu_alloc_pct_sum, unalloc_gpu_pct_sum, frag_ratio_pct_sum,"    \
	" frag_amount_pct_sum"
#define GS_DB_DEFRAG_COLUMN_LIST_1_7                                                             \
	"budget_pct, per_hour, restart_s, n_attempts, n_placed, n_moves, n_pods_moved, lost_gpu_s"

/* Binds text s to parameter i, or NULL when s is NULL; s must outlive the step. */
static inline void gs_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Binds v, or NULL when v is negative (the engine's -1 for "never", a count not known). */
static inline void gs_db_bind_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Binds v, or NULL when it is not there (have false) or NAN. */
static inline void gs_db_bind_real(sqlite3_stmt *st, int i, double v, bool have)
{
	if (!have || isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Finalizes each argument, a prepared statement or NULL: a struct's statements in one list. */
#define GS_DB_FINALIZE(...) GS_MEM_EACH(sqlite3_finalize, sqlite3_stmt *, __VA_ARGS__)

/* Formats a message into err (when not NULL) and returns code. */
__attribute__((format(printf, 4, 5)))
int gs_db_fail(char *err, size_t err_len, int code, const char *fmt, ...);

/*
 * "<path>: <what>: <why>" in err, from the connection's last error, and
 * the code for why: GS_ENOMEM; GS_EINVAL for a damaged file (bad input);
 * GS_EDB for a full disk (said so), another I/O error (with the system's
 * reason) and anything else SQLite refused (a failure, exit 1).
 */
int gs_db_sqlfail(struct gs_db *db, char *err, size_t err_len, const char *what);

/* Runs sql (one or more statements); on failure what gs_db_sqlfail() returns, naming the statement. */
int gs_db_exec(struct gs_db *db, const char *sql, char *err, size_t err_len);

/*
 * Steps st, an INSERT, UPDATE or DELETE, to its end, then resets it and
 * clears its bindings for the next row. Returns 0, or what
 * gs_db_sqlfail() returns for what (read before the reset).
 */
int gs_db_step_done(struct gs_db *db, sqlite3_stmt *st, const char *what, char *err,
		    size_t err_len);

/*
 * Starts an IMMEDIATE transaction (the write lock is taken now, never in
 * the middle of a write); the caller holds db->lock. Returns 0, or what
 * gs_db_sqlfail() returns for what.
 */
int gs_db_tx_begin(struct gs_db *db, const char *what, char *err, size_t err_len);

/*
 * Ends the transaction gs_db_tx_begin() started: commits when rc is 0,
 * rolls back otherwise or when the commit fails. Returns rc, or
 * gs_db_sqlfail()'s code for what when the commit failed.
 */
int gs_db_tx_end(struct gs_db *db, int rc, const char *what, char *err, size_t err_len);

/*
 * Reads the schema version into *version_out, and for version 0 whether
 * the file is someone else's, in one read snapshot, changing nothing.
 * Returns 0, or GS_ESCHEMA for a newer version, a file with tables but no
 * gpusim version, or (create false) an empty file; GS_EDB otherwise.
 */
int gs_db_schema_look(struct gs_db *db, bool create, int *version_out, char *err,
		      size_t err_len);

/*
 * Creates the schema of a new database (create true) or migrates an older
 * minor version to GS_DB_SCHEMA_VERSION, in one IMMEDIATE transaction that
 * is rolled back on failure. Returns 0, GS_ESCHEMA (a newer, foreign or
 * unmigratable file) or GS_EDB, with a message in err.
 */
int gs_db_schema_setup(struct gs_db *db, bool create, char *err, size_t err_len);

#endif
