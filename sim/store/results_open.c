/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_open.c - opening and closing the results store: the
 * connection, its lock, WAL mode and the schema check or set-up
 * (results_schema.c) a new or older file gets; the failure messages and
 * the write transaction every writer of the store uses. See results.h
 * for the threading design.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "io/path.h"
#include "store/results.h"
#include "store/results_internal.h"

/*
 * A database path whose directory cannot be made (a file in the way, no
 * permission, a read-only file system) is the caller's --db to correct, so
 * every command reports it as bad usage; out of memory stays a failure.
 */
static int unusable_dir(int rc)
{
	return rc == GS_ENOMEM ? rc : GS_EINVAL;
}

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
	int code = sqlite3_extended_errcode(db->conn), sys = sqlite3_system_errno(db->conn);

	switch (code & 0xff) {
	case SQLITE_NOMEM:
		return gs_db_fail(err, err_len, GS_ENOMEM, "%s: %s: out of memory", db->path, what);
	case SQLITE_FULL:
		return gs_db_fail(err, err_len, GS_EDB, "%s: %s: the disk is full (%s)", db->path,
				  what, sys ? strerror(sys) : sqlite3_errmsg(db->conn));
	case SQLITE_IOERR:
		if (sys == ENOSPC || sys == EDQUOT)
			return gs_db_fail(err, err_len, GS_EDB, "%s: %s: the disk is full (%s)",
					  db->path, what, strerror(sys));
		return gs_db_fail(err, err_len, GS_EDB, "%s: %s: %s%s%s", db->path, what,
				  sqlite3_errmsg(db->conn), sys ? ": " : "", sys ? strerror(sys) : "");
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: %s: the database is damaged (%s); "
				  "restore it from a copy or make it again", db->path, what,
				  sqlite3_errmsg(db->conn));
	default:
		return gs_db_fail(err, err_len, GS_EDB, "%s: %s: %s", db->path, what,
				  sqlite3_errmsg(db->conn));
	}
}

int gs_db_exec(struct gs_db *db, const char *sql, char *err, size_t err_len)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->conn, sql, NULL, NULL, &msg);

	if (rc == SQLITE_OK)
		return 0;
	sqlite3_free(msg);
	/* The connection keeps the statement's error: its code says what kind of failure it was. */
	return gs_db_sqlfail(db, err, err_len, sql);
}

int gs_db_step_done(struct gs_db *db, sqlite3_stmt *st, const char *what, char *err,
		    size_t err_len)
{
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : gs_db_sqlfail(db, err, err_len, what);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int gs_db_tx_begin(struct gs_db *db, const char *what, char *err, size_t err_len)
{
	if (sqlite3_exec(db->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	return gs_db_sqlfail(db, err, err_len, what);
}

int gs_db_tx_end(struct gs_db *db, int rc, const char *what, char *err, size_t err_len)
{
	if (rc == 0 && sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = gs_db_sqlfail(db, err, err_len, what);
	/* A failed COMMIT may have ended the transaction already. */
	if (rc && !sqlite3_get_autocommit(db->conn))
		sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
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
			return unusable_dir(rc);
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
	rc = gs_db_schema_look(db, create, &version, err, err_len);
	if (rc)
		goto close;
	rc = gs_db_exec(db, "PRAGMA foreign_keys = ON", err, err_len);
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
			rc = gs_db_exec(db, "PRAGMA synchronous = NORMAL", err, err_len);
		if (rc)
			goto close;
	}
	if (version < GS_DB_SCHEMA_VERSION) {
		rc = gs_db_schema_setup(db, create, err, err_len);
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

/* Removes a database file and the WAL and shared-memory files beside it. */
static void remove_db_files(const char *path)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	char side[4200];
	size_t i;

	unlink(path);
	for (i = 0; i < 2; i++) {
		int n = snprintf(side, sizeof(side), "%.4096s%s", path, suffix[i]);

		if (n > 0 && (size_t)n < sizeof(side))
			unlink(side);
	}
}

/* Whether db's WAL still holds frames the checkpoint did not copy into the file. */
static bool wal_left(struct gs_db *db)
{
	sqlite3_stmt *st;
	bool left = true;

	if (sqlite3_prepare_v2(db->conn, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &st, NULL) !=
	    SQLITE_OK)
		return true;
	/* Columns: busy, frames in the WAL, frames checkpointed; TRUNCATE leaves 0 and 0. */
	if (sqlite3_step(st) == SQLITE_ROW)
		left = sqlite3_column_int(st, 0) != 0 || sqlite3_column_int(st, 1) > 0;
	sqlite3_finalize(st);
	return left;
}

/*
 * A new database is made whole under a private name beside path, then
 * linked into place: a failure (a full disk, no memory) leaves no file at
 * path, and of two processes creating path at once the first link wins
 * and the other opens that file.
 */
static int db_create(const char *path, struct gs_db **out, char *err, size_t err_len)
{
	static atomic_uint serial;
	struct gs_db *db = NULL;
	char tmp[4096];
	int n, rc;

	rc = gs_mkdir_parent(path, err, err_len);
	if (rc)
		return unusable_dir(rc);
	n = snprintf(tmp, sizeof(tmp), "%s.new-%ld-%u", path, (long)getpid(),
		     atomic_fetch_add(&serial, 1));
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return db_open(path, true, out, err, err_len);
	rc = db_open(tmp, true, &db, err, err_len);
	if (rc) {
		/* The message names the private file: name the one the user gave. */
		char msg[1024];
		size_t tl = strlen(tmp);

		if (strncmp(err, tmp, tl) == 0) {
			snprintf(msg, sizeof(msg), "%s%s", path, err + tl);
			gs_errf(err, err_len, "%s", msg);
		}
		remove_db_files(tmp);
		return rc;
	}
	/*
	 * Everything into the file itself before it gets its name: the WAL is
	 * removed with the private name, so a checkpoint that fails (a full
	 * disk) fails the creation.
	 */
	if (sqlite3_exec(db->conn, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) !=
		    SQLITE_OK ||
	    wal_left(db)) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot write the new database");
		gs_db_close(db);
		remove_db_files(tmp);
		return rc;
	}
	gs_db_close(db);
	if (link(tmp, path) != 0 && errno != EEXIST) {
		/* A file system without hard links: rename, unless someone made path meanwhile. */
		if (access(path, F_OK) != 0 && rename(tmp, path) != 0) {
			rc = gs_db_fail(err, err_len, GS_EDB, "%s: cannot create: %s", path,
					strerror(errno));
			remove_db_files(tmp);
			return rc;
		}
	}
	remove_db_files(tmp);
	return db_open(path, true, out, err, err_len);
}

int gs_db_open(const char *path, struct gs_db **out, char *err, size_t err_len)
{
	struct stat sb;

	/* SQLite's in-memory database has no file to make whole and link. */
	if (path && *path && out && strcmp(path, ":memory:") != 0 && stat(path, &sb) != 0 &&
	    errno == ENOENT)
		return db_create(path, out, err, err_len);
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
	GS_DB_FINALIZE(db->st_run, db->st_run_done, db->st_node, db->st_nodes, db->st_pod,
		       db->st_pods, db->st_sample, db->st_samples, db->st_stat, db->st_unclaim,
		       db->st_find);
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
