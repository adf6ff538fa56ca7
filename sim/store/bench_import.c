/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_import.c - loads the results file of gpusim-bench (bench/cuda)
 * into the bench tables of a results database (bench_import.h).
 *
 * The harness writes plain key=value text (sim/kvline.h) because GPU hosts
 * may lack SQLite's development files; this command is where that text
 * meets the database. The whole file is one transaction: a malformed line
 * anywhere (reported as FILE:LINE: what) leaves the database untouched.
 * A file already imported (same SHA-256) is not imported twice.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/csv.h"
#include "io/kvline.h"
#include "io/sha256.h"
#include "store/bench_import.h"
#include "store/results.h"
#include "store/results_internal.h"

#define RESULTS_FORMAT 1
/* --- reading ------------------------------------------------------------------ */

struct import {
	const char *path;
	sqlite3 *conn;
	char sha[65];
	char now[32];
	int line;
	char *err;
	size_t err_len;
	/* The runs of this file: their id in the file and their bench_run_id. */
	struct run_ref {
		char *key;
		int64_t id;
	} *runs;
	size_t n_runs, cap_runs;
	size_t n_results, n_slowdown;
	int seen_host;
};

__attribute__((format(printf, 2, 3))) static int bad(struct import *im, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(im->err, im->err_len, "%s:%d: %s", im->path, im->line, msg);
	return GS_EPARSE;
}

static int need(struct import *im, const struct gs_kvline *l, const char *key, const char **out)
{
	*out = gs_kvline_get(l, key);
	if (!*out)
		return bad(im, "%s record: missing key '%s'", l->type, key);
	return 0;
}

static int need_int(struct import *im, const struct gs_kvline *l, const char *key, int64_t lo,
		    int64_t hi, int64_t *out)
{
	const char *v;
	char *end;
	long long x;

	if (need(im, l, key, &v))
		return GS_EPARSE;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi)
		return bad(im, "%s record: %s='%s' is not an integer from %lld to %lld", l->type, key,
			   v, (long long)lo, (long long)hi);
	*out = x;
	return 0;
}

/* An optional number; *present says whether it was there. */
static int opt_real(struct import *im, const struct gs_kvline *l, const char *key, double *out,
		    int *present)
{
	const char *v = gs_kvline_get(l, key);
	char *end;

	*present = v != NULL;
	if (!v)
		return 0;
	errno = 0;
	*out = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(*out))
		return bad(im, "%s record: %s='%s' is not a number", l->type, key, v);
	return 0;
}

static int need_real(struct import *im, const struct gs_kvline *l, const char *key, double *out)
{
	int present;

	if (opt_real(im, l, key, out, &present))
		return GS_EPARSE;
	if (!present)
		return bad(im, "%s record: missing key '%s'", l->type, key);
	return 0;
}

static int sql_fail(struct import *im, const char *what)
{
	int code = sqlite3_extended_errcode(im->conn) & 0xff;

	/* A CHECK or UNIQUE failure is the file's fault: bad input. */
	if (code == SQLITE_CONSTRAINT)
		return bad(im, "%s rejected by the database: %s", what, sqlite3_errmsg(im->conn));
	snprintf(im->err, im->err_len, "%s: %s: %s", im->path, what, sqlite3_errmsg(im->conn));
	return GS_EDB;
}

static int step_done(struct import *im, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	/* The error, read before reset and clear_bindings overwrite it. */
	rc = rc == SQLITE_DONE ? 0 : sql_fail(im, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

/*
 * A key of a record and the INSERT parameter it fills: text, an integer
 * from lo to hi, a number, or an optional number or text (NULL when
 * missing). Each record's table lists its keys in the order they are
 * checked, so the first bad or missing one is the one reported.
 */
struct field {
	const char *key;
	enum { F_TEXT, F_INT, F_REAL, F_OPT_REAL, F_OPT_TEXT } kind;
	int col;
	int64_t lo, hi;
};

/* Checks record l's keys of table f (n of them) in order and binds each to its parameter of st. */
static int bind_fields(struct import *im, sqlite3_stmt *st, const struct gs_kvline *l,
		       const struct field *f, size_t n)
{
	for (; n > 0; n--, f++) {
		const char *t;
		int64_t i;
		double d;
		int present;

		switch (f->kind) {
		case F_TEXT:
			if (need(im, l, f->key, &t))
				return GS_EPARSE;
			gs_db_bind_text(st, f->col, t);
			break;
		case F_INT:
			if (need_int(im, l, f->key, f->lo, f->hi, &i))
				return GS_EPARSE;
			sqlite3_bind_int64(st, f->col, i);
			break;
		case F_REAL:
			if (need_real(im, l, f->key, &d))
				return GS_EPARSE;
			sqlite3_bind_double(st, f->col, d);
			break;
		case F_OPT_REAL:
			if (opt_real(im, l, f->key, &d, &present))
				return GS_EPARSE;
			gs_db_bind_real(st, f->col, d, present);
			break;
		case F_OPT_TEXT:
			gs_db_bind_text(st, f->col, gs_kvline_get(l, f->key));
			break;
		}
	}
	return 0;
}
#define N_FIELDS(t) (sizeof(t) / sizeof((t)[0]))

static int do_host(struct import *im, const struct gs_kvline *l)
{
	int64_t format;
	const char *v;

	if (need_int(im, l, "format", 0, 1000000, &format))
		return GS_EPARSE;
	if (format != RESULTS_FORMAT)
		return bad(im, "results format %lld; this gpusim reads format %d",
			   (long long)format, RESULTS_FORMAT);
	if (need(im, l, "device", &v) || need(im, l, "driver", &v) || need(im, l, "cuda", &v))
		return GS_EPARSE;
	im->seen_host = 1;
	return 0;
}

static int do_run(struct import *im, sqlite3_stmt *st, const struct gs_kvline *l)
{
	/* bench_runs: 1-3 are the file's, 4 on the record's. */
	static const struct field fields[] = {
		{ "id", F_TEXT, 4, 0, 0 },
		{ "scenario", F_TEXT, 5, 0, 0 },
		{ "measure", F_TEXT, 6, 0, 0 },
		{ "mode", F_TEXT, 7, 0, 0 },
		{ "policy", F_TEXT, 8, 0, 0 },
		{ "status", F_TEXT, 9, 0, 0 },
		{ "started", F_TEXT, 13, 0, 0 },
		{ "host", F_TEXT, 16, 0, 0 },
		{ "device", F_TEXT, 17, 0, 0 },
		{ "driver", F_TEXT, 18, 0, 0 },
		{ "cuda", F_TEXT, 19, 0, 0 },
		{ "repeat", F_INT, 10, 0, 1000 },
		{ "clients", F_INT, 11, 1, 1000 },
		{ "duration_s", F_REAL, 14, 0, 0 },
		{ "wall_s", F_REAL, 15, 0, 0 },
		{ "reason", F_OPT_TEXT, 12, 0, 0 },
	};
	const char *id;
	struct run_ref *run;
	size_t i;
	int rc;

	if (!im->seen_host)
		return bad(im, "run record before the host record");
	if (bind_fields(im, st, l, fields, N_FIELDS(fields)))
		return GS_EPARSE;
	id = gs_kvline_get(l, "id");
	for (i = 0; i < im->n_runs; i++)
		if (!strcmp(im->runs[i].key, id))
			return bad(im, "run record: id '%s' appears twice", id);
	sqlite3_bind_text(st, 1, im->sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, im->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, im->now, -1, SQLITE_STATIC);
	rc = step_done(im, st, "run record");
	if (rc)
		return rc;
	GS_GROW_PUSH(im->runs, im->n_runs, im->cap_runs, 64, run);
	if (!run || !(run->key = strdup(id)))
		return GS_ENOMEM;
	run->id = sqlite3_last_insert_rowid(im->conn);
	return 0;
}

/* The client's own report fields as a JSON object of strings. */
static char *extra_json(const struct gs_kvline *l)
{
	static const char *const columns[] = {
		"run", "scenario", "mode", "repeat", "name", "kernel", "gpu", "gpu_milli",
		"gpu_mem_mib", "colocated", "status", "exit", "check_ok", "throughput", "unit",
		"wall_s", "alone", "factor", "slowdown", "share_req", "share", "overhead_pct",
		"device", "driver", "cuda", NULL
	};
	size_t cap = 64, len = 0, i, k, need;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	buf[len++] = '{';
	for (i = 0; i < l->n; i++) {
		const char *p;

		for (k = 0; columns[k] && strcmp(columns[k], l->kv[i].key); k++)
			;
		if (columns[k])
			continue;
		/* Worst case: every byte escaped as \u00XX, plus quotes, colon, comma. */
		need = len + 6 * (strlen(l->kv[i].key) + strlen(l->kv[i].val)) + 8;
		if (need > cap) {
			size_t ncap = cap;
			char *more;

			while (ncap && ncap < need)
				ncap = gs_grow_cap(ncap, 0);
			more = ncap ? gs_realloc_n(buf, ncap, 1) : NULL;
			if (!more) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap = ncap;
		}
		if (len > 1)
			buf[len++] = ',';
		for (k = 0; k < 2; k++) {
			buf[len++] = '"';
			for (p = k ? l->kv[i].val : l->kv[i].key; *p; p++) {
				unsigned char ch = (unsigned char)*p;

				if (ch == '"' || ch == '\\') {
					buf[len++] = '\\';
					buf[len++] = (char)ch;
				} else if (ch < 0x20) {
					len += (size_t)snprintf(buf + len, cap - len, "\\u%04x", ch);
				} else {
					buf[len++] = (char)ch;
				}
			}
			buf[len++] = '"';
			if (!k)
				buf[len++] = ':';
		}
	}
	buf[len++] = '}';
	buf[len] = 0;
	return buf;
}

static int do_client(struct import *im, sqlite3_stmt *st, const struct gs_kvline *l)
{
	/* bench_results: 1 is the run's id, 20 the extra fields. */
	static const struct field fields[] = {
		{ "name", F_TEXT, 2, 0, 0 },
		{ "kernel", F_TEXT, 3, 0, 0 },
		{ "status", F_TEXT, 8, 0, 0 },
		{ "device", F_TEXT, 21, 0, 0 },
		{ "driver", F_TEXT, 22, 0, 0 },
		{ "cuda", F_TEXT, 23, 0, 0 },
		{ "gpu", F_INT, 4, 0, 1023 },
		{ "gpu_milli", F_INT, 5, 1, 1000 },
		{ "gpu_mem_mib", F_INT, 6, 0, INT64_MAX },
		{ "colocated", F_INT, 7, 1, 1000 },
		{ "exit", F_INT, 9, -1, 1000 },
		{ "check_ok", F_INT, 10, 0, 1 },
		{ "share_req", F_REAL, 17, 0, 0 },
		{ "wall_s", F_REAL, 13, 0, 0 },
		{ "throughput", F_OPT_REAL, 11, 0, 0 },
		{ "alone", F_OPT_REAL, 14, 0, 0 },
		{ "factor", F_OPT_REAL, 15, 0, 0 },
		{ "slowdown", F_OPT_REAL, 16, 0, 0 },
		{ "share", F_OPT_REAL, 18, 0, 0 },
		{ "overhead_pct", F_OPT_REAL, 19, 0, 0 },
		{ "unit", F_OPT_TEXT, 12, 0, 0 },
	};
	const char *run;
	size_t i;
	int rc;
	char *extra;

	if (need(im, l, "run", &run) || bind_fields(im, st, l, fields, N_FIELDS(fields)))
		return GS_EPARSE;
	for (i = 0; i < im->n_runs && strcmp(im->runs[i].key, run); i++)
		;
	if (i == im->n_runs)
		return bad(im, "client record: run '%s' has no run record above it", run);
	extra = extra_json(l);
	if (!extra)
		return GS_ENOMEM;
	sqlite3_bind_int64(st, 1, im->runs[i].id);
	sqlite3_bind_text(st, 20, extra, -1, SQLITE_TRANSIENT);
	rc = step_done(im, st, "client record");
	free(extra);
	if (!rc)
		im->n_results++;
	return rc;
}

static int do_slowdown(struct import *im, sqlite3_stmt *st, const struct gs_kvline *l)
{
	/* bench_slowdown: 1 is the file's. */
	static const struct field fields[] = {
		{ "scenario", F_TEXT, 2, 0, 0 },
		{ "kernel", F_TEXT, 3, 0, 0 },
		{ "mode", F_TEXT, 5, 0, 0 },
		{ "device", F_TEXT, 8, 0, 0 },
		{ "driver", F_TEXT, 9, 0, 0 },
		{ "cuda", F_TEXT, 10, 0, 0 },
		{ "colocated", F_INT, 4, 1, 1000 },
		{ "samples", F_INT, 7, 1, INT64_MAX },
		{ "factor", F_REAL, 6, 0, 0 },
	};
	int rc;

	if (bind_fields(im, st, l, fields, N_FIELDS(fields)))
		return GS_EPARSE;
	sqlite3_bind_text(st, 1, im->sha, -1, SQLITE_STATIC);
	rc = step_done(im, st, "slowdown record");
	if (!rc)
		im->n_slowdown++;
	return rc;
}

static int import_text(struct import *im, char *text)
{
	static const char *const sql[] = {
		"INSERT INTO bench_runs (source_sha256, source_path, imported_at, run_key, scenario,"
		" measure, mode, policy, status, repeat, n_clients, reason, started_at, duration_s,"
		" wall_s, host, device, driver, cuda)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
		" ?18, ?19)",
		"INSERT INTO bench_results (bench_run_id, client, kernel, gpu, gpu_milli,"
		" gpu_mem_mib, colocated, status, exit_code, check_ok, throughput, unit, wall_s,"
		" alone, factor, slowdown, share_req, share, overhead_pct, extra_json, device,"
		" driver, cuda) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
		" ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
		"INSERT INTO bench_slowdown (source_sha256, scenario, kernel, colocated, mode,"
		" factor, samples, device, driver, cuda)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	};
	sqlite3_stmt *st[3] = { NULL, NULL, NULL };
	char *line = text, *next, perr[128];
	int rc = 0, header = 0, i;

	for (i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(im->conn, sql[i], -1, &st[i], NULL) != SQLITE_OK) {
			rc = sql_fail(im, "preparing the inserts");
			goto out;
		}
	}
	for (im->line = 1; line && *line && !rc; im->line++, line = next) {
		struct gs_kvline l;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!header) {
			int v;
			char extra;

			if (sscanf(line, "# gpusim-bench results %d%c", &v, &extra) != 1) {
				rc = bad(im, "not a gpusim-bench results file (the first line must be "
					     "'# gpusim-bench results %d')", RESULTS_FORMAT);
				break;
			}
			if (v != RESULTS_FORMAT) {
				rc = bad(im, "results format %d; this gpusim reads format %d", v,
					 RESULTS_FORMAT);
				break;
			}
			header = 1;
			continue;
		}
		rc = gs_kvline_parse(line, &l, perr, sizeof(perr));
		if (rc) {
			if (rc == GS_EPARSE)
				bad(im, "%s", perr);
			break;
		}
		if (!l.type)
			;
		else if (!strcmp(l.type, "host"))
			rc = do_host(im, &l);
		else if (!strcmp(l.type, "run"))
			rc = do_run(im, st[0], &l);
		else if (!strcmp(l.type, "client"))
			rc = do_client(im, st[1], &l);
		else if (!strcmp(l.type, "slowdown"))
			rc = do_slowdown(im, st[2], &l);
		else
			rc = bad(im, "unknown record type '%s' (host, run, client, slowdown)", l.type);
		gs_kvline_release(&l);
	}
	if (!rc && !header) {
		im->line = 1;
		rc = bad(im, "empty file; not a gpusim-bench results file");
	}
	if (!rc && !im->n_runs) {
		snprintf(im->err, im->err_len, "%s: no run records", im->path);
		rc = GS_EPARSE;
	}
out:
	for (i = 0; i < 3; i++)
		sqlite3_finalize(st[i]);
	return rc;
}

/* --- the import --------------------------------------------------------------------- */

/*
 * The file through the one bounded reader every input goes through (io/csv.h):
 * a NUL byte, an endless stream or a file over GS_INPUT_MAX_BYTES is refused
 * with a message, and the checksum comes with it.
 */
static int read_file(const char *path, struct gs_csv *r, char *err, size_t len)
{
	int rc = gs_csv_open(r, path, err, len);

	if (rc == GS_EPARSE && strstr(err, "NUL byte"))
		snprintf(err, len, "%s: contains NUL bytes; not a gpusim-bench results file", path);
	return rc;
}

static int exec(sqlite3 *conn, const char *sql, struct import *im, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(conn, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(im->err, im->err_len, "%s: %s: %s", im->path, what, msg ? msg : "?");
	sqlite3_free(msg);
	return GS_EDB;
}

int gs_bench_import(struct gs_db *db, const char *path, struct gs_bench_import_stats *out,
		    char *err, size_t err_len)
{
	struct import im;
	struct gs_csv file;
	sqlite3_stmt *st;
	size_t i;
	int rc, existing = 0;
	time_t t;
	struct tm tm;

	memset(out, 0, sizeof(*out));
	memset(&im, 0, sizeof(im));
	im.path = path;
	im.err = err;
	im.err_len = err_len;
	rc = read_file(im.path, &file, err, err_len);
	if (rc)
		return rc;
	memcpy(im.sha, file.sha256, sizeof(im.sha));
	t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(im.now, sizeof(im.now), "%Y-%m-%dT%H:%M:%SZ", &tm);

	im.conn = gs_db_sqlite(db);
	rc = exec(im.conn, "BEGIN IMMEDIATE", &im, "starting the import");
	/* A database made before the bench tables existed gets them here. */
	if (!rc)
		rc = exec(im.conn, gs_bench_schema_sql, &im, "creating the bench tables");
	if (!rc && sqlite3_prepare_v2(im.conn,
				      "SELECT count(*) FROM bench_runs WHERE source_sha256 = ?1", -1,
				      &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, im.sha, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			existing = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (!rc && !existing)
		rc = import_text(&im, file.buf + file.pos);
	if (!rc)
		rc = exec(im.conn, "COMMIT", &im, "committing the import");
	else
		sqlite3_exec(im.conn, "ROLLBACK", NULL, NULL, NULL);
	if (!rc) {
		memcpy(out->sha256, im.sha, sizeof(out->sha256));
		out->existing_runs = existing;
		out->n_runs = im.n_runs;
		out->n_results = im.n_results;
		out->n_slowdown = im.n_slowdown;
	}
	for (i = 0; i < im.n_runs; i++)
		free(im.runs[i].key);
	free(im.runs);
	gs_csv_close(&file);
	return rc;
}
