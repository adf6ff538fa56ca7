/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.c - the checksum of a run's rows (digest.h): the columns of
 * versions 1 and 2 and the canonical form hashed with XXH3-128 (xxHash, Debian's
 * libxxhash): a checksum against damage, not a signature against an
 * adversary, so the fast hash serves; SHA-256 took as long as writing the
 * run (40 % of an openb replay's instructions), XXH3 a few percent.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "core/error.h"
#include "store/digest.h"
#include "store/results_internal.h"

/* Version 1: the tables of a run, their columns as schema 1.7 has them (results_internal.h), and keys. */
static const struct {
	const char *table, *columns, *order;
} v1[] = {
	{ "runs", GS_DB_RUNS_COLUMN_LIST_1_7, "run_id" },
	{ "run_nodes", GS_DB_NODE_COLUMN_LIST_1_7, "node_idx" },
	{ "pods", GS_DB_POD_COLUMN_LIST_1_7, "pod_idx" },
	{ "samples", GS_DB_SAMPLE_COLUMN_LIST_1_7, "sample_idx" },
	{ "arrived_stats", GS_DB_STAT_COLUMN_LIST_1_7, "arrived_pct" },
	{ "run_defrag", GS_DB_DEFRAG_COLUMN_LIST_1_7, "run_id" },
};
#define N_TABLES (sizeof(v1) / sizeof(v1[0]))

/* Version 2: version 1's and, after them, the columns schema 1.9 added (pod groups, idle GPUs). */
static const char *const v2_more[N_TABLES] = {
	GS_DB_RUNS_COLUMN_LIST_1_9, "", "", GS_DB_SAMPLE_COLUMN_LIST_1_9, "", "",
};

/*
 * The canonical bytes of the rows, gathered in a buffer and hashed in
 * pieces of up to its size: one hash update per few rows rather than per
 * value.
 */
struct feed {
	XXH3_state_t *h;
	size_t n;
	uint8_t buf[4096];
};

static void flush(struct feed *f)
{
	if (f->n)
		XXH3_128bits_update(f->h, f->buf, f->n);
	f->n = 0;
}

static void put_bytes(struct feed *f, const void *p, size_t n)
{
	if (f->n + n > sizeof(f->buf)) {
		flush(f);
		if (n > sizeof(f->buf)) {
			XXH3_128bits_update(f->h, p, n);
			return;
		}
	}
	memcpy(f->buf + f->n, p, n);
	f->n += n;
}

static void put_u64(struct feed *f, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
	put_bytes(f, b, 8);
}

/* One value: its type, then an integer's or a real's 8 bytes, or a text's or blob's length and bytes. */
static void put_value(struct feed *f, sqlite3_stmt *st, int col)
{
	int type = sqlite3_column_type(st, col);
	uint8_t t = (uint8_t)type;
	double d;
	uint64_t bits;
	int n;

	put_bytes(f, &t, 1);
	switch (type) {
	case SQLITE_INTEGER:
		put_u64(f, (uint64_t)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		memcpy(&bits, &d, sizeof(bits));
		put_u64(f, bits);
		break;
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		n = sqlite3_column_bytes(st, col);
		put_u64(f, (uint64_t)n);
		if (n > 0)
			put_bytes(f, type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, col) :
				  sqlite3_column_blob(st, col), (size_t)n);
		break;
	default: /* NULL: the type alone */
		break;
	}
}

int gs_db_digest_run(struct gs_db *db, const char *schema, int64_t run_id, int version,
		     char out[GS_DB_DIGEST_LEN], char *err, size_t err_len)
{
	struct feed f;
	XXH128_canonical_t sum;
	char sql[2048];
	size_t t;
	int i, rc = 0;

	f.n = 0;
	f.h = XXH3_createState();
	if (!f.h || XXH3_128bits_reset(f.h) != XXH_OK) {
		XXH3_freeState(f.h);
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	}
	for (t = 0; t < N_TABLES && !rc; t++) {
		sqlite3_stmt *st;
		int64_t rows = 0;
		int step, cols;

		snprintf(sql, sizeof(sql), "SELECT %s%s FROM \"%s\".%s WHERE run_id = ?1 ORDER BY %s",
			 v1[t].columns, version >= 2 ? v2_more[t] : "", schema, v1[t].table,
			 v1[t].order);
		if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
			rc = gs_db_sqlfail(db, err, err_len, "cannot checksum a run");
			break;
		}
		sqlite3_bind_int64(st, 1, run_id);
		cols = sqlite3_column_count(st);
		put_bytes(&f, v1[t].table, strlen(v1[t].table) + 1);
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			for (i = 0; i < cols; i++)
				put_value(&f, st, i);
			rows++;
		}
		sqlite3_finalize(st);
		if (step != SQLITE_DONE)
			rc = gs_db_sqlfail(db, err, err_len, "cannot checksum a run");
		else if (t == 0 && rows == 0)
			rc = gs_db_fail(err, err_len, GS_ENOENT, "%s: no run %" PRId64, db->path,
					run_id);
		/* The row count ends each table, so that rows cannot move between tables. */
		put_u64(&f, (uint64_t)rows);
	}
	if (!rc) {
		static const char hexd[] = "0123456789abcdef";

		flush(&f);
		XXH128_canonicalFromHash(&sum, XXH3_128bits_digest(f.h));
		out[0] = (char)('0' + version);
		out[1] = ':';
		for (i = 0; i < 16; i++) {
			out[2 + 2 * i] = hexd[sum.digest[i] >> 4];
			out[3 + 2 * i] = hexd[sum.digest[i] & 15];
		}
		out[GS_DB_DIGEST_LEN - 1] = '\0';
	}
	XXH3_freeState(f.h);
	return rc;
}

int gs_db_digest_check(struct gs_db *db, const char *schema, const char *label, int64_t run_id,
		       char *err, size_t err_len)
{
	char sql[256], got[GS_DB_DIGEST_LEN], stored[GS_DB_DIGEST_LEN] = "";
	sqlite3_stmt *st;
	int rc, step;

	snprintf(sql, sizeof(sql), "SELECT rows_checksum FROM \"%s\".runs WHERE run_id = ?1", schema);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot read a run's checksum");
	sqlite3_bind_int64(st, 1, run_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		snprintf(stored, sizeof(stored), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return gs_db_sqlfail(db, err, err_len, "cannot read a run's checksum");
	if (step == SQLITE_DONE)
		return gs_db_fail(err, err_len, GS_ENOENT, "%s: no run %" PRId64, label, run_id);
	if (!stored[0])
		return 0;
	/* A run is checked with the version it was stored with. */
	if (stored[0] < '1' || stored[0] > '0' + GS_DB_DIGEST_VERSION || stored[1] != ':')
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: run %" PRId64 " has a checksum of a "
				  "kind this gpusim does not know ('%.8s...'); it is damaged or "
				  "from a newer gpusim", label, run_id, stored);
	rc = gs_db_digest_run(db, schema, run_id, stored[0] - '0', got, err, err_len);
	if (rc)
		return rc;
	if (strcmp(stored, got) != 0)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: run %" PRId64 " is damaged: its "
				  "rows no longer match the checksum stored with them "
				  "(runs.rows_checksum); restore the file from a copy or run it again",
				  label, run_id);
	return 0;
}
