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
 * on-disk format (a CHECK constraint in the DDL), so they are spelled here
 * rather than taken from gs_pod_state_str().
 */
extern const char *const gs_db_pod_state[];
#define GS_DB_POD_STATES (GS_POD_FAILED + 1)

/* How many columns schema 1.1 added to runs: results_schema.c spells them, the writer binds them. */
#define GS_DB_RUNS_COLUMNS_1_1 25

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
