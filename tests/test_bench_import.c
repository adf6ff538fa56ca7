/*
 * test_bench_import.c - `gpusim bench-import`: a results file of
 * gpusim-bench goes into the bench tables whole or not at all, is not
 * imported twice, and its CSV export holds what the plots need. Bad files
 * are refused with the file, the line and the key named, and leave the
 * database as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

static char dir[64];
static char out[8192];

/* The shape of a file gpusim-bench writes (compare tests/test_bench_harness.c). */
static const char good[] =
	"# gpusim-bench results 1\n"
	"host format=1 hostname=gpu1 gpus=1 gpu0_mem_mib=81559 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/exclusive/0 scenario=c measure=compute mode=exclusive repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=10 wall_s=25.5 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/exclusive/0 scenario=c mode=exclusive repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=3000 unit=GB/s wall_s=12.1 alone=3000 factor=1 slowdown=1 share_req=0.300 log=/tmp/x.log d2d_gbps=3100 ratio_d2d=0.967 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/exclusive/0 scenario=c mode=exclusive repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=3000 unit=GB/s wall_s=12.1 alone=3000 factor=1 slowdown=1 share_req=0.700 note=\"a \\\"quoted\\\" value\" device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/hook/0 scenario=c measure=compute mode=hook repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:05:05Z duration_s=10 wall_s=14 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/hook/0 scenario=c mode=hook repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=930 unit=GB/s wall_s=13 alone=3000 factor=0.31 slowdown=3.2258 share_req=0.300 share=0.3163 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/hook/0 scenario=c mode=hook repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=2010 unit=GB/s wall_s=13 alone=3000 factor=0.67 slowdown=1.4925 share_req=0.700 share=0.6837 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/mps/0 scenario=c measure=compute mode=mps repeat=0 policy=binpack clients=2 status=skipped reason=\"nvidia-cuda-mps-control not found in PATH\" started=2025-01-02T03:06:05Z duration_s=10 wall_s=0 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"slowdown scenario=c kernel=vecadd colocated=2 mode=hook factor=0.49 samples=2 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n";

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-bimport-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void write_text(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Runs gpusim with args (relative paths are in dir); output in out. */
static int gpusim(const char *args)
{
	char cmd[1024], path[256];
	size_t n;
	FILE *f;
	int status;

	snprintf(path, sizeof(path), "%s/out.txt", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out.txt 2>&1", dir, GS_GPUSIM_BIN, args);
	status = system(cmd);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first column of the first row of sql, as text ("" for NULL or no row). */
static const char *query(const char *sql)
{
	static char buf[1024];
	char path[256];
	sqlite3 *db;
	sqlite3_stmt *st;

	snprintf(path, sizeof(path), "%s/b.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	buf[0] = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

static void test_import_and_again(void **state)
{
	(void)state;
	write_text("r.txt", good);
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_non_null(strstr(out, "r.txt: 3 runs, 4 client results, 1 slowdown rows into b.db"));
	assert_string_equal(query("SELECT count(*) FROM bench_runs"), "3");
	assert_string_equal(query("SELECT count(*) FROM bench_results"), "4");
	assert_string_equal(query("SELECT count(*) FROM bench_slowdown"), "1");
	assert_string_equal(query("SELECT status || ':' || reason FROM bench_runs WHERE mode = 'mps'"),
			    "skipped:nvidia-cuda-mps-control not found in PATH");
	assert_string_equal(query("SELECT share FROM bench_results r JOIN bench_runs b"
				  " USING (bench_run_id) WHERE b.mode = 'hook' AND r.client = 'p30'"),
			    "0.3163");
	/* Fields of the absent kind are NULL, not 0. */
	assert_string_equal(query("SELECT coalesce(share, 'null') || coalesce(overhead_pct, 'null')"
				  " FROM bench_results WHERE client = 'p30' AND colocated = 1"),
			    "nullnull");
	/* The client's own fields stay, as JSON. */
	assert_string_equal(query("SELECT json_extract(extra_json, '$.ratio_d2d') FROM bench_results"
				  " WHERE client = 'p30' AND colocated = 1"),
			    "0.967");
	assert_string_equal(query("SELECT json_extract(extra_json, '$.note') FROM bench_results"
				  " WHERE client = 'p70' AND colocated = 1"),
			    "a \"quoted\" value");
	assert_string_equal(query("SELECT device || '|' || driver || '|' || cuda FROM bench_slowdown"),
			    "NVIDIA H100 80GB HBM3|550.54.15|12.4");
	assert_string_equal(query("SELECT count(DISTINCT source_sha256) FROM bench_runs"), "1");

	/* The same file again: nothing new. */
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_non_null(strstr(out, "r.txt is already in b.db (3 runs); nothing imported"));
	assert_string_equal(query("SELECT count(*) FROM bench_results"), "4");
}

static void test_csv_export(void **state)
{
	char path[256], buf[2048];
	size_t n;
	FILE *f;

	(void)state;
	write_text("r.txt", good);
	assert_int_equal(gpusim("bench-import --db b.db --csv-dir csv r.txt"), 0);
	snprintf(path, sizeof(path), "%s/csv/shares.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_string_equal(buf, "scenario,mode,client,share_req,share,samples,device\n"
				 "c,hook,p30,0.3,0.3163,1,\"NVIDIA H100 80GB HBM3\"\n"
				 "c,hook,p70,0.7,0.6837,1,\"NVIDIA H100 80GB HBM3\"\n");
	snprintf(path, sizeof(path), "%s/csv/slowdown.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_string_equal(buf, "kernel,colocated,mode,factor,samples,device\n"
				 "vecadd,2,hook,0.49,2,\"NVIDIA H100 80GB HBM3\"\n");
	snprintf(path, sizeof(path), "%s/csv/overhead.csv", dir);
	assert_int_equal(access(path, R_OK), 0);
}

/* Replaces the first occurrence of from in good with to. */
static void write_variant(const char *name, const char *from, const char *to)
{
	char buf[sizeof(good) + 256];
	const char *p = strstr(good, from);

	assert_non_null(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
	write_text(name, buf);
}

static void expect_refused(const char *name, const char *msg)
{
	char args[256];

	snprintf(args, sizeof(args), "bench-import --db b.db %s", name);
	assert_int_equal(gpusim(args), 2);
	if (!strstr(out, msg))
		fail_msg("output '%s' lacks '%s'", out, msg);
	/* All or nothing: not even the runs before the bad line are stored. */
	assert_string_equal(query("SELECT count(*) FROM bench_runs"), "0");
}

static void test_bad_files(void **state)
{
	(void)state;
	/* Make the database (and its tables) first, with nothing in them. */
	write_text("empty.txt", "");
	assert_int_equal(gpusim("bench-import --db b.db empty.txt"), 2);
	assert_non_null(strstr(out, "empty.txt:1: empty file; not a gpusim-bench results file"));

	write_variant("v2.txt", "# gpusim-bench results 1", "# gpusim-bench results 2");
	expect_refused("v2.txt", "v2.txt:1: results format 2; this gpusim reads format 1");
	write_variant("other.txt", "# gpusim-bench results 1", "kernel,mode,factor");
	expect_refused("other.txt", "other.txt:1: not a gpusim-bench results file");
	write_variant("gpu.txt", "name=p70 kernel=vecadd gpu=0", "name=p70 kernel=vecadd gpu=x");
	expect_refused("gpu.txt", "gpu.txt:5: client record: gpu='x' is not an integer from 0 to 1023");
	write_variant("miss.txt", " kernel=vecadd gpu=0 gpu_milli=700", " gpu=0 gpu_milli=700");
	expect_refused("miss.txt", "miss.txt:5: client record: missing key 'kernel'");
	write_variant("quote.txt", "note=\"a \\\"quoted\\\" value\"", "note=\"open");
	expect_refused("quote.txt", "quote.txt:5: column ");
	write_variant("type.txt", "slowdown scenario=c", "slow scenario=c");
	expect_refused("type.txt", "type.txt:10: unknown record type 'slow' (host, run, client, slowdown)");
	write_variant("orphan.txt", "client run=c/hook/0 scenario=c mode=hook repeat=0 name=p30",
		      "client run=c/other/0 scenario=c mode=hook repeat=0 name=p30");
	expect_refused("orphan.txt", "orphan.txt:7: client record: run 'c/other/0' has no run record above it");
	write_variant("mode.txt", "mode=hook repeat=0 policy", "mode=vgpu repeat=0 policy");
	expect_refused("mode.txt", "mode.txt:6: run record rejected by the database: CHECK constraint failed");
	write_variant("nan.txt", "throughput=930", "throughput=nan");
	expect_refused("nan.txt", "nan.txt:7: client record: throughput='nan' is not a number");

	assert_int_equal(gpusim("bench-import --db b.db nosuch.txt"), 2);
	assert_non_null(strstr(out, "gpusim bench-import: nosuch.txt: No such file or directory"));
	assert_int_equal(gpusim("bench-import r.txt"), 2);
	assert_non_null(strstr(out, "gpusim bench-import: --db is required"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import_and_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv_export, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
	};

	if (access(GS_GPUSIM_BIN, X_OK) != 0) {
		fprintf(stderr, "%s is not built\n", GS_GPUSIM_BIN);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
