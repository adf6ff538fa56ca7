/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results.h - the SQLite results store.
 *
 * Every simulation run goes into one SQLite database: the run's inputs and
 * parameters (table runs), the cluster it ran on (run_nodes), every pod's
 * outcome (pods) and the sampled time series (samples), plus views that
 * derive the headline numbers (run_summary, sample_metrics,
 * arrived_buckets). results/SCHEMA.md documents every column; the DDL in
 * results_schema.c is the definition and the two must agree.
 *
 * Versioning: PRAGMA user_version holds major * 1000 + minor. A minor bump
 * only adds (tables, views, columns with defaults), so this build reads and
 * writes any database of its own major; an older minor is migrated on open.
 * A newer major is refused with GS_ESCHEMA.
 *
 * A run is written in one transaction: a crash or an error leaves no trace
 * of it, and runs.status = 'complete' is set by the last statement of that
 * transaction.
 *
 * Threads: a struct gs_db is one SQLite connection. The intended design for
 * parallel sweeps is one gs_db per worker thread on the same file: the
 * database is in WAL mode (readers never block the writer), each run's
 * write transaction takes the write lock up front (BEGIN IMMEDIATE) and
 * waits up to GS_DB_BUSY_TIMEOUT_MS for it. A single gs_db may also be
 * shared by threads: every function below holds the handle's mutex for its
 * whole duration, so calls are serialised. gs_db_sqlite() bypasses that
 * mutex.
 *
 * Ownership: gs_db_open*() returns a heap object freed with gs_db_close().
 * Rows returned by the read helpers are owned by the caller and freed with
 * the matching _free function.
 */
#ifndef GS_RESULTS_H
#define GS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/cluster.h"
#include "engine/replay.h"

#define GS_DB_SCHEMA_MAJOR 1
#define GS_DB_SCHEMA_MINOR 9
#define GS_DB_SCHEMA_VERSION (GS_DB_SCHEMA_MAJOR * 1000 + GS_DB_SCHEMA_MINOR)
#define GS_DB_BUSY_TIMEOUT_MS 60000

struct gs_db;
struct sqlite3;

/*
 * The bench tables' DDL (bench/cuda results), defined in store/bench_schema.c
 * by the benchmark harness. gs_db_open() executes it after its own DDL in
 * the same transaction when it creates or migrates a database, so it must
 * be idempotent (CREATE TABLE IF NOT EXISTS ...). Adding tables there is a
 * minor schema change: bump GS_DB_SCHEMA_MINOR and add an entry to the
 * migration list in results_schema.c.
 */
extern const char *const gs_bench_schema_sql;

/*
 * Opens the results database at path, creating the file and the schema
 * when it is new or empty (and the directories above it when missing);
 * ":memory:" is SQLite's in-memory database, no file. Refuses, with a
 * message in err naming the file:
 *   - a file that is not a SQLite database (GS_EDB),
 *   - a SQLite database of another program, with tables but no gpusim
 *     schema version (GS_ESCHEMA),
 *   - a gpusim database of a newer major schema version (GS_ESCHEMA).
 * Migrates an older minor version in place. On success stores a new handle
 * in *out (caller frees with gs_db_close) and returns 0; *out is untouched
 * on failure.
 */
int gs_db_open(const char *path, struct gs_db **out, char *err, size_t err_len);

/*
 * Like gs_db_open(), but the file must already exist and hold a gpusim
 * schema (GS_ENOENT when there is no such file, GS_ESCHEMA when it has no
 * gpusim tables). For readers such as `gpusim inspect`, which must never
 * create a database by mistake. The file is opened read-write so that an
 * older minor can be migrated; a write-protected file is opened read-only.
 */
int gs_db_open_existing(const char *path, struct gs_db **out, char *err, size_t err_len);

/* Closes the connection and frees the handle. NULL is allowed. */
void gs_db_close(struct gs_db *db);

/* The path the handle was opened with (owned by the handle). */
const char *gs_db_path(const struct gs_db *db);

/*
 * The raw SQLite connection, for importers and tests that run their own
 * SQL. Not covered by the handle's mutex: use it from one thread only.
 */
struct sqlite3 *gs_db_sqlite(struct gs_db *db);

/* What a run was given: everything not already in struct gs_sim. */
struct gs_run_info {
	const char *policy;           /* required, as typed (registry name) */
	const char *mode;             /* required: "time" or "inflate" */
	uint64_t seed;                /* at most INT64_MAX (SQLite integers are signed) */
	const char *nodes_path;       /* as given on the command line; may be NULL */
	const char *nodes_sha256;     /* required: 64 hex digits of the cluster file */
	const char *pods_path;        /* may be NULL */
	const char *pods_sha256;      /* required */
	const char *params_json;      /* required: from gs_replay_params_json() */
	struct timespec started_at;   /* CLOCK_REALTIME, stored as ISO-8601 UTC */
	struct timespec ended_at;
	double wall_ms;               /* wall time of the simulation itself */
	const char *gpusim_version;   /* NULL: this build's gs_version() */
	/*
	 * --no-pods: write no rows to pods (most of a run's size). The runs
	 * row keeps the counts and the wait total, the samples and the
	 * summary are whole; only gpusim inspect --run has nothing to show.
	 */
	bool no_pods;
	/*
	 * --arrival-samples: an inflate run stores one sample per arrival, as
	 * before schema 1.2. Without it only the samples its summary reads are
	 * stored (runs.samples_stored = 0); the figures come from the
	 * per-percent statistics (arrived_stats), which every run stores.
	 * Time-mode runs always store every sample.
	 */
	bool arrival_samples;
};

/*
 * Writes one finished run: the runs row, the cluster's nodes, every pod's
 * outcome (none with ri->no_pods), its samples (for an inflate run without
 * ri->arrival_samples only those its summary reads) and its per-percent
 * statistics (engine/arrived_stats.h), in one transaction
 * with prepared statements. On success stores the new run id in
 * *run_id_out (may be NULL) and returns 0. On any failure rolls back, so
 * no row of the run remains, leaves *run_id_out untouched and returns
 * GS_EINVAL (missing or out-of-range fields in ri or sim, for example a
 * stored placement naming a node the cluster does not have), GS_ENOMEM or
 * GS_EDB, with a message in err naming the database file.
 */
int gs_db_write_run(struct gs_db *db, const struct gs_run_info *ri, const struct gs_sim *sim,
		    int64_t *run_id_out, char *err, size_t err_len);

/*
 * Looks up a complete run with this key (what a resumable sweep skips).
 * Whether the run kept its pod rows (--no-pods) is not part of the key:
 * it changes no result. Returns 0 and the newest such run's id in
 * *run_id_out (may be NULL), GS_ENOENT when there is none, GS_EINVAL for
 * NULL strings or a seed above INT64_MAX, or GS_EDB.
 */
int gs_db_find_run(struct gs_db *db, const char *policy, const char *pods_sha256,
		   const char *nodes_sha256, uint64_t seed, const char *params_json,
		   int64_t *run_id_out);

/*
 * One complete run, as listed by gpusim inspect: the runs row and the
 * run_summary numbers. Strings are owned by the row. NAN stands for SQL
 * NULL in the double fields.
 */
struct gs_run_row {
	int64_t run_id;
	char *policy;
	char *mode;
	uint64_t seed;
	char *nodes_path;             /* NULL when not recorded */
	char *pods_path;              /* NULL when not recorded */
	char *pods_file;              /* basename of pods_path, NULL with it */
	char *params_json;
	char *gpusim_version;
	char *started_at;             /* ISO-8601 UTC */
	double wall_ms;
	int64_t n_nodes, gpu_count;
	int64_t gpu_milli_capacity, cpu_milli_capacity, mem_mib_capacity;
	int64_t n_pods, n_placed, n_failed, n_events;
	int64_t t_end_s;              /* simulated time of the last event */
	double failed_pct;
	double mean_wait_s;
	double gpu_alloc_pct;         /* as gs_sim_summarize(): see results/SCHEMA.md */
	double unalloc_gpu_pct;       /* 100 - gpu_alloc_pct */
	double frag_ratio_pct;        /* at arrived 100 %, when tracked */
	bool pods_stored;             /* false: written with --no-pods, no pod rows */
	/*
	 * The time-mode figures of run_summary (schema 1.1; NAN in inflate
	 * mode and for runs written by 1.0, except the peaks, which 1.0 took
	 * from the samples). Counts are held as doubles for the NAN.
	 */
	double wait_p50_s, wait_p99_s, wait_max_s;
	double completion_mean_s, completion_p99_s;
	double slowdown_mean, slowdown_p99;
	double pending_avg, peak_pending, peak_gpu_alloc_pct;
	double offered_load_pct, load_pct;  /* load_pct: the --load given, NAN without */
	double makespan_s, n_timed_out;
	double frag_amount_pct, wait_p90_s, completion_p50_s, completion_p90_s, completion_max_s;
	double gpu_alloc_busy_pct, frag_avg_pct;
	/* Schema 1.2: the sharing model ("ideal" and NAN for older runs). */
	char *sharing;
	double eff_util_pct, n_oversubscribed, mig_idle_pct, mig_slack_pct;
	/* Schema 1.9: pod groups (0 for older runs) and the idle breakdown (NAN for older runs). */
	int64_t n_groups, n_groups_placed, n_groups_failed;
	double group_wait_mean_s, idle_frac_pct, idle_nocpu_pct, idle_stranded_pct;
};

/*
 * Lists the complete runs in run_id order. Stores a malloc'ed array in
 * *rows_out (NULL when there are none) and its length in *n_out. Returns
 * 0, GS_ENOMEM or GS_EDB (message in err).
 */
int gs_db_list_runs(struct gs_db *db, struct gs_run_row **rows_out, size_t *n_out, char *err,
		    size_t err_len);

/* One run by id: 0, GS_ENOENT (no complete run with that id), GS_ENOMEM or GS_EDB. */
int gs_db_get_run(struct gs_db *db, int64_t run_id, struct gs_run_row *out, char *err,
		  size_t err_len);

/* Frees the strings of one row (not r itself); NULL is allowed. */
void gs_run_row_release(struct gs_run_row *r);
/* Frees an array of n rows from gs_db_list_runs() and the array itself. */
void gs_run_rows_free(struct gs_run_row *rows, size_t n);

/* One row of run_nodes: a node of the cluster a run used. */
struct gs_db_node {
	int32_t idx;
	char *name;                   /* owned */
	int32_t cpu_milli;
	int64_t memory_mib;
	int32_t num_gpu;
	char *gpu_model;              /* owned; NULL for a node without GPUs */
	int64_t gpu_mem_mib;          /* per card; 0 without GPUs */
	char *sharing;                /* owned: run_nodes.sharing; NULL without modes */
};

/*
 * Loads a run's nodes in index order into a malloc'ed array (*nodes_out,
 * *n_out). Returns 0, GS_ENOENT (no complete run run_id), GS_ENOMEM or
 * GS_EDB (also for a row outside the readers' ranges, core/limits.h: so
 * num_gpu is 0 to GS_MAX_GPUS, and may size arrays).
 */
int gs_db_load_nodes(struct gs_db *db, int64_t run_id, struct gs_db_node **nodes_out,
		     size_t *n_out, char *err, size_t err_len);
/* Frees the n nodes from gs_db_load_nodes() and the array; NULL is allowed. */
void gs_db_nodes_free(struct gs_db_node *nodes, size_t n);

/* One row of pods. Times and indices are -1 where the column is NULL. */
struct gs_db_pod {
	int32_t pod_idx;
	int32_t src_idx;
	char *name;                   /* owned */
	int32_t cpu_milli;
	int64_t memory_mib;
	int32_t num_gpu;
	int32_t gpu_milli;            /* per GPU */
	int64_t gpu_mem_mib;          /* per GPU */
	uint8_t state;                /* enum gs_pod_state */
	int32_t node_idx;
	int32_t n_gpus;               /* GPUs held, parsed from the gpus column */
	uint8_t gpus[GS_MAX_GPUS];
	int64_t t_arrive_s, t_start_s, t_end_s, wait_s;
	char *fail_reason;            /* owned; NULL when none */
	char *mig;                    /* owned: pods.mig, "3g.40gb@4,..."; NULL when none */
	double coloc;                 /* pods.coloc; NAN when NULL */
	char *gpu_spec;               /* owned: pods.gpu_spec, "V100M16|V100M32"; NULL for any */
};

/*
 * Loads a run's pods in pod_idx order, like gs_db_load_nodes(). A gpus
 * value that does not parse, a state this build does not know, or an
 * amount outside the readers' ranges (gpu_milli above GS_MILLI_PER_GPU,
 * num_gpu above GS_MAX_GPUS) is GS_EDB naming the run and the pod.
 */
int gs_db_load_pods(struct gs_db *db, int64_t run_id, struct gs_db_pod **pods_out,
		    size_t *n_out, char *err, size_t err_len);
/* Frees the n pods from gs_db_load_pods() and the array; NULL is allowed. */
void gs_db_pods_free(struct gs_db_pod *pods, size_t n);

/*
 * The simulated time of the run's sample with the highest GPU allocation
 * (the earliest one on ties). Returns 0, GS_ENOENT (no such run or no
 * samples) or GS_EDB.
 */
int gs_db_peak_time(struct gs_db *db, int64_t run_id, int64_t *t_s_out, char *err,
		    size_t err_len);

#endif
