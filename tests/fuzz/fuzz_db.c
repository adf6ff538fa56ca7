/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_db.c - fuzz target: a results database as an input, damaged or
 * foreign, given to what reads one: gpusim merge (gs_db_merge_check(),
 * gs_db_merge()), inspect's loaders (gs_db_load_nodes(),
 * gs_db_load_pods()) and regress's reader (gs_rset_from_db()).
 *
 * Properties: nothing crashes; every refusal says why; a merge that
 * succeeds leaves an output that passes SQLite's integrity check and
 * holds every copied run whole (its node and pod rows as many as its runs
 * row says), and a merge that fails leaves the output without a run.
 */
#include <unistd.h>

#include <sqlite3.h>

#include "core/error.h"
#include "fuzz.h"
#include "store/merge.h"
#include "store/regress_data.h"
#include "store/results.h"

static char in_path[512], out_path[512];

static void remove_files(void)
{
	char side[600];

	unlink(in_path);
	snprintf(side, sizeof(side), "%s-wal", in_path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", in_path);
	unlink(side);
	unlink(out_path);
	snprintf(side, sizeof(side), "%s-wal", out_path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", out_path);
	unlink(side);
}

/* The first column of the first row of sql on db, or -1. */
static long long number(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void check_output(struct gs_db *out, bool merged)
{
	sqlite3 *db = gs_db_sqlite(out);
	sqlite3_stmt *st;
	const char *ok = NULL;

	if (!merged) {
		FUZZ_CHECK(number(db, "SELECT count(*) FROM runs") == 0,
			   "a failed merge left runs in the output");
		return;
	}
	FUZZ_CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK,
		   "integrity_check: %s", sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = (const char *)sqlite3_column_text(st, 0);
	FUZZ_CHECK(ok && strcmp(ok, "ok") == 0, "the output is damaged: %s", ok ? ok : "?");
	sqlite3_finalize(st);
	FUZZ_CHECK(number(db, "SELECT count(*) FROM runs r WHERE"
			      " (SELECT count(*) FROM run_nodes n WHERE n.run_id = r.run_id) != r.n_nodes"
			      " OR (r.pods_stored AND (SELECT count(*) FROM pods p"
			      "  WHERE p.run_id = r.run_id) != r.n_pods)") == 0,
		   "a copied run is not whole");
}

static void read_runs(void)
{
	struct gs_db *db = NULL;
	struct gs_rset rs;
	sqlite3_stmt *st;
	char err[2048] = "";
	int64_t ids[8];
	size_t n = 0, i;
	int rc;

	rc = gs_db_open_existing(in_path, &db, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(err[0] != '\0', "open: status %s without a message", gs_strerror(rc));
		return;
	}
	if (sqlite3_prepare_v2(gs_db_sqlite(db), "SELECT run_id FROM runs LIMIT 8", -1, &st,
			       NULL) == SQLITE_OK) {
		while (n < 8 && sqlite3_step(st) == SQLITE_ROW)
			ids[n++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	for (i = 0; i < n; i++) {
		struct gs_db_node *nodes = NULL;
		struct gs_db_pod *pods = NULL;
		size_t nn = 0, np = 0;

		err[0] = '\0';
		rc = gs_db_load_nodes(db, ids[i], &nodes, &nn, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || err[0], "load_nodes: status %s without a message",
			   gs_strerror(rc));
		gs_db_nodes_free(nodes, nn);
		err[0] = '\0';
		rc = gs_db_load_pods(db, ids[i], &pods, &np, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || err[0], "load_pods: status %s without a message",
			   gs_strerror(rc));
		gs_db_pods_free(pods, np);
	}
	gs_rset_init(&rs);
	err[0] = '\0';
	rc = gs_rset_from_db(db, &rs, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || err[0], "rset: status %s without a message", gs_strerror(rc));
	gs_rset_release(&rs);
	gs_db_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_merge_stats ms;
	struct gs_db *out = NULL;
	char err[2048] = "";
	FILE *f;
	int rc;

	if (!in_path[0]) {
		snprintf(in_path, sizeof(in_path), "/tmp/gpusim-fuzz-db-%ld-in.db", (long)getpid());
		snprintf(out_path, sizeof(out_path), "/tmp/gpusim-fuzz-db-%ld-out.db",
			 (long)getpid());
		atexit(remove_files);
	}
	remove_files();
	f = fopen(in_path, "wb");
	FUZZ_CHECK(f != NULL, "cannot write %s", in_path);
	FUZZ_CHECK(fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s",
		   in_path);

	rc = gs_db_merge_check(in_path, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || err[0], "merge check: status %s without a message",
		   gs_strerror(rc));
	if (rc == 0) {
		FUZZ_CHECK(gs_db_open(out_path, &out, err, sizeof(err)) == 0, "output: %s", err);
		err[0] = '\0';
		rc = gs_db_merge(out, in_path, &ms, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || err[0], "merge: status %s without a message",
			   gs_strerror(rc));
		check_output(out, rc == 0);
		gs_db_close(out);
	}
	read_runs();
	return 0;
}
