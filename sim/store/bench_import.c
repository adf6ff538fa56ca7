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
	static const char *const text_keys[] = { "id", "scenario", "measure", "mode", "policy",
						 "status", "started", "host", "device", "driver",
						 "cuda" };
	const char *t[sizeof(text_keys) / sizeof(text_keys[0])];
	struct run_ref *run;
	int64_t repeat, clients;
	double duration, wall;
	size_t i;
	int rc;

	if (!im->seen_host)
		return bad(im, "run record before the host record");
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++)
		if (need(im, l, text_keys[i], &t[i]))
			return GS_EPARSE;
	if (need_int(im, l, "repeat", 0, 1000, &repeat) ||
	    need_int(im, l, "clients", 1, 1000, &clients) ||
	    need_real(im, l, "duration_s", &duration) || need_real(im, l, "wall_s", &wall))
		return GS_EPARSE;
	for (i = 0; i < im->n_runs; i++)
		if (!strcmp(im->runs[i].key, t[0]))
			return bad(im, "run record: id '%s' appears twice", t[0]);
	sqlite3_bind_text(st, 1, im->sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, im->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, im->now, -1, SQLITE_STATIC);
	for (i = 0; i < 6; i++) /* id scenario measure mode policy status */
		gs_db_bind_text(st, 4 + (int)i, t[i]);
	sqlite3_bind_int64(st, 10, repeat);
	sqlite3_bind_int64(st, 11, clients);
	gs_db_bind_text(st, 12, gs_kvline_get(l, "reason"));
	gs_db_bind_text(st, 13, t[6]);
	sqlite3_bind_double(st, 14, duration);
	sqlite3_bind_double(st, 15, wall);
	for (i = 7; i < 11; i++) /* host device driver cuda */
		gs_db_bind_text(st, 16 + (int)(i - 7), t[i]);
	rc = step_done(im, st, "run record");
	if (rc)
		return rc;
	GS_GROW_PUSH(im->runs, im->n_runs, im->cap_runs, 64, run);
	if (!run || !(run->key = strdup(t[0])))
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
	static const char *const reals[] = { "throughput", "alone", "factor", "slowdown", "share",
					     "overhead_pct" };
	const char *run, *name, *kernel, *status, *device, *driver, *cuda;
	int64_t gpu, milli, mem, colocated, exit_code, check_ok;
	double share_req, wall, v[6];
	int present[6], rc;
	size_t i;
	char *extra;

	if (need(im, l, "run", &run) || need(im, l, "name", &name) ||
	    need(im, l, "kernel", &kernel) || need(im, l, "status", &status) ||
	    need(im, l, "device", &device) || need(im, l, "driver", &driver) ||
	    need(im, l, "cuda", &cuda) || need_int(im, l, "gpu", 0, 1023, &gpu) ||
	    need_int(im, l, "gpu_milli", 1, 1000, &milli) ||
	    need_int(im, l, "gpu_mem_mib", 0, INT64_MAX, &mem) ||
	    need_int(im, l, "colocated", 1, 1000, &colocated) ||
	    need_int(im, l, "exit", -1, 1000, &exit_code) ||
	    need_int(im, l, "check_ok", 0, 1, &check_ok) ||
	    need_real(im, l, "share_req", &share_req) || need_real(im, l, "wall_s", &wall))
		return GS_EPARSE;
	for (i = 0; i < 6; i++)
		if (opt_real(im, l, reals[i], &v[i], &present[i]))
			return GS_EPARSE;
	for (i = 0; i < im->n_runs && strcmp(im->runs[i].key, run); i++)
		;
	if (i == im->n_runs)
		return bad(im, "client record: run '%s' has no run record above it", run);
	extra = extra_json(l);
	if (!extra)
		return GS_ENOMEM;
	sqlite3_bind_int64(st, 1, im->runs[i].id);
	gs_db_bind_text(st, 2, name);
	gs_db_bind_text(st, 3, kernel);
	sqlite3_bind_int64(st, 4, gpu);
	sqlite3_bind_int64(st, 5, milli);
	sqlite3_bind_int64(st, 6, mem);
	sqlite3_bind_int64(st, 7, colocated);
	gs_db_bind_text(st, 8, status);
	sqlite3_bind_int64(st, 9, exit_code);
	sqlite3_bind_int64(st, 10, check_ok);
	gs_db_bind_real(st, 11, v[0], present[0]);
	gs_db_bind_text(st, 12, gs_kvline_get(l, "unit"));
	sqlite3_bind_double(st, 13, wall);
	gs_db_bind_real(st, 14, v[1], present[1]);
	gs_db_bind_real(st, 15, v[2], present[2]);
	gs_db_bind_real(st, 16, v[3], present[3]);
	sqlite3_bind_double(st, 17, share_req);
	gs_db_bind_real(st, 18, v[4], present[4]);
	gs_db_bind_real(st, 19, v[5], present[5]);
	sqlite3_bind_text(st, 20, extra, -1, SQLITE_TRANSIENT);
	gs_db_bind_text(st, 21, device);
	gs_db_bind_text(st, 22, driver);
	gs_db_bind_text(st, 23, cuda);
	rc = step_done(im, st, "client record");
	free(extra);
	if (!rc)
		im->n_results++;
	return rc;
}

static int do_slowdown(struct import *im, sqlite3_stmt *st, const struct gs_kvline *l)
{
	const char *scenario, *kernel, *mode, *device, *driver, *cuda;
	int64_t colocated, samples;
	double factor;
	int rc;

	if (need(im, l, "scenario", &scenario) || need(im, l, "kernel", &kernel) ||
	    need(im, l, "mode", &mode) || need(im, l, "device", &device) ||
	    need(im, l, "driver", &driver) || need(im, l, "cuda", &cuda) ||
	    need_int(im, l, "colocated", 1, 1000, &colocated) ||
	    need_int(im, l, "samples", 1, INT64_MAX, &samples) ||
	    need_real(im, l, "factor", &factor))
		return GS_EPARSE;
	sqlite3_bind_text(st, 1, im->sha, -1, SQLITE_STATIC);
	gs_db_bind_text(st, 2, scenario);
	gs_db_bind_text(st, 3, kernel);
	sqlite3_bind_int64(st, 4, colocated);
	gs_db_bind_text(st, 5, mode);
	sqlite3_bind_double(st, 6, factor);
	sqlite3_bind_int64(st, 7, samples);
	gs_db_bind_text(st, 8, device);
	gs_db_bind_text(st, 9, driver);
	gs_db_bind_text(st, 10, cuda);
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
