/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_bench_import.c - fuzz target: `gpusim bench-import`, the reader of
 * gpusim-bench's key=value results files (sim/store/bench_import.c), into
 * an in-memory results database.
 *
 * Properties: a refused file says why, naming the file and leaves the
 * database without any of its rows (one transaction); an accepted file is
 * stored with as many runs as the import reports, and importing it again
 * changes nothing. The results are written by the GPU harness, which the
 * simulator does not link, so there is no round trip here.
 */
#include <unistd.h>

#include <sqlite3.h>

#include "core/error.h"
#include "fuzz.h"
#include "store/bench_import.h"
#include "store/results.h"

static struct gs_db *db;
static char path[512];
static unsigned long calls;

/* Rows of table sql counts (a SELECT count(*) ...). */
static long long count(const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	/* No table yet: nothing imported so far. */
	if (sqlite3_prepare_v2(gs_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n < 0 ? 0 : n;
}

static void remove_file(void)
{
	unlink(path);
}

/* A fresh database every few thousand inputs keeps it small and fast. */
static void open_db(void)
{
	char err[1024];

	if (db && calls % 2048)
		return;
	gs_db_close(db);
	FUZZ_CHECK(gs_db_open(":memory:", &db, err, sizeof(err)) == 0, "cannot open: %s", err);
	if (!path[0]) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/gpusim-fuzz-%ld.txt", dir && *dir ? dir : "/tmp",
			 (long)getpid());
		atexit(remove_file);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_bench_import_stats st, again;
	char err[2048] = "";
	long long runs_before, runs_after;
	FILE *f;
	int rc;

	open_db();
	calls++;
	f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s",
		   path);
	runs_before = count("SELECT count(*) FROM bench_runs");
	rc = gs_bench_import(db, path, &st, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(path, err);
		FUZZ_CHECK(count("SELECT count(*) FROM bench_runs") == runs_before,
			   "a refused file left rows");
		return 0;
	}
	runs_after = count("SELECT count(*) FROM bench_runs");
	if (!st.existing_runs)
		FUZZ_CHECK(runs_after - runs_before == (long long)st.n_runs,
			   "%zu runs reported, %lld stored", st.n_runs, runs_after - runs_before);
	rc = gs_bench_import(db, path, &again, err, sizeof(err));
	FUZZ_CHECK(rc == 0 && again.existing_runs > 0, "a second import did not see the first: %s",
		   err);
	FUZZ_CHECK(count("SELECT count(*) FROM bench_runs") == runs_after,
		   "a second import added rows");
	return 0;
}
