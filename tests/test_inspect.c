/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_inspect.c - `gpusim inspect` end to end: stores hand-built runs
 * (results_fixture.h) with gs_db_write_run(), runs the gpusim binary on the
 * database and checks its tables, its JSON and its error exits, including
 * the one for a run stored without pod rows; and a small cluster replayed
 * for real whose placements, fragmentation, sort orders, filters, subtotals,
 * pod details, column choice and widths are worked out by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/error.h"
#include "store/results.h"
#include "results_fixture.h"

static char db_path[512];
static char out_path[600], err_path[600];
static char out[65536], errs[8192];

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Runs `gpusim inspect ARGS`; stdout lands in out, stderr in errs. Returns the exit status. */
static int inspect(const char *args)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' inspect %s >'%s' 2>'%s'", GS_GPUSIM_BIN, args, out_path,
		 err_path);
	st = system(cmd);
	slurp(out_path, out, sizeof(out));
	slurp(err_path, errs, sizeof(errs));
	if (st == -1 || !WIFEXITED(st))
		fail_msg("cannot run %s", cmd);
	return WEXITSTATUS(st);
}

static int inspect_db(const char *fmt, ...)
{
	char rest[1024], args[1600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rest, sizeof(rest), fmt, ap);
	va_end(ap);
	snprintf(args, sizeof(args), "--db '%s' %s", db_path, rest);
	return inspect(args);
}

/*
 * The line of out whose first word is `first`, with its runs of blanks
 * squeezed to one space, compared with want.
 */
static void expect_row(const char *first, const char *want)
{
	static char got[1024];
	const char *line = out;
	size_t flen = strlen(first);

	for (;;) {
		if (strncmp(line, first, flen) == 0 && (line[flen] == ' ' || line[flen] == '\n'))
			break;
		line = strchr(line, '\n');
		if (!line)
			fail_msg("no row '%s' in:\n%s", first, out);
		line++;
	}
	{
		size_t n = 0;
		int blank = 0;

		for (; *line && *line != '\n' && n + 1 < sizeof(got); line++) {
			if (*line == ' ') {
				blank = 1;
				continue;
			}
			if (blank && n)
				got[n++] = ' ';
			blank = 0;
			got[n++] = *line;
		}
		got[n] = '\0';
	}
	if (strcmp(got, want) != 0)
		fail_msg("row '%s' is\n  '%s', expected\n  '%s'\nin:\n%s", first, got, want, out);
}

static void expect_no_row(const char *first)
{
	char pat[128];

	snprintf(pat, sizeof(pat), "\n%s ", first);
	if (strstr(out, pat))
		fail_msg("row '%s' should not be shown:\n%s", first, out);
}

static void expect_out(const char *text)
{
	if (!strstr(out, text))
		fail_msg("stdout lacks '%s':\n%s", text, out);
}

static void expect_err(const char *text)
{
	if (!strstr(errs, text))
		fail_msg("stderr lacks '%s':\n%s", text, errs);
}

static int setup(void **state)
{
	struct rf_run t, f;
	struct gs_db *db;
	char err[512];

	(void)state;
	/* Tables fit $COLUMNS: the tests below set it where they mean to. */
	unsetenv("COLUMNS");
	if (access(GS_GPUSIM_BIN, X_OK) != 0) {
		fprintf(stderr, "%s is not built\n", GS_GPUSIM_BIN);
		return -1;
	}
	snprintf(db_path, sizeof(db_path), "%s", rf_temp_db("inspect"));
	snprintf(out_path, sizeof(out_path), "%s.out", db_path);
	snprintf(err_path, sizeof(err_path), "%s.err", db_path);
	if (gs_db_open(db_path, &db, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	rf_build_time(&t);
	rf_build_inflate(&f);
	/*
	 * Run 1: the time fixture; run 2: the same, corrupted below; run 3:
	 * inflate; run 4: the time fixture again, stored with --no-pods.
	 */
	if (gs_db_write_run(db, &t.info, &t.sim, NULL, err, sizeof(err)) ||
	    gs_db_write_run(db, &t.info, &t.sim, NULL, err, sizeof(err)) ||
	    gs_db_write_run(db, &f.info, &f.sim, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	t.info.no_pods = true;
	if (gs_db_write_run(db, &t.info, &t.sim, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	/*
	 * A GPU holding more than a whole GPU, from rows each in range: pod 1
	 * (a whole GPU on each of two) moved onto pod 0's GPU 2 of node-a.
	 * Only a corrupt database can say that; written as another program
	 * would, without the run's checksum (test_refusals: a checksummed run
	 * changed is refused as damaged before this check).
	 */
	sqlite3_exec(gs_db_sqlite(db),
		     "UPDATE pods SET node_idx = 0, gpus = '1,2' WHERE run_id = 2 AND pod_idx = 1;"
		     "UPDATE runs SET rows_checksum = NULL WHERE run_id = 2",
		     NULL, NULL, NULL);
	gs_db_close(db);
	rf_release(&t);
	rf_release(&f);
	return 0;
}

static int teardown(void **state)
{
	char side[600];

	(void)state;
	unlink(db_path);
	snprintf(side, sizeof(side), "%s-wal", db_path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", db_path);
	unlink(side);
	unlink(out_path);
	unlink(err_path);
	{
		char cmd[1300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s.small' '%s.share'", db_path, db_path);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s.small\n", db_path);
	}
	return 0;
}

static void test_list(void **state)
{
	(void)state;
	assert_int_equal(inspect_db(""), 0);
	expect_row("ID", "ID POLICY MODE SEED TRACE LOAD SCORING SHARING PLACED FAILED UNALLOC% "
			 "WAIT");
	/*
	 * Time mode's headline is the mean wait, 10 s / 3 (results_fixture.c),
	 * not its time-weighted share; inflate mode's is UNALLOC%. The
	 * fixture's params give a time scale and no inflation factor.
	 */
	expect_row("1", "1 binpack time 42 pods.csv scale 1 exact ideal 3 1 - 3.3");
	expect_row("3", "3 fgd inflate 42 pods.csv - exact ideal 1 1 20.00 -");
	/* Without pod rows the counts and the summary are still there. */
	expect_row("4", "4 binpack time 42 pods.csv scale 1 exact ideal 3 1 - 3.3");
	assert_string_equal(errs, "");
}

/* A run stored with --no-pods has nothing to rebuild: an error, never an empty cluster. */
static void test_run_without_pods(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want),
		 "gpusim inspect: run 4 was stored without pod rows (--no-pods), so its "
		 "allocations cannot be shown; replay it without --no-pods to inspect it\n");
	assert_int_equal(inspect_db("--run 4"), 2);
	assert_string_equal(errs, want);
	assert_string_equal(out, "");
	assert_int_equal(inspect_db("--run 4 --at peak --json"), 2);
	assert_string_equal(errs, want);
	assert_string_equal(out, "");
}

/*
 * At the end (t = 110) only pod 0 still runs: 500 milli on node-a's GPU 2.
 * Its fragmentation: the trace's five pods are five kinds of p = 1/5 (all
 * needed for 95% coverage); with free shares 1000, 1000, 500, 1000, the
 * 1 x 500 pod wastes nothing, the 2-GPU T4 pod and the CPU-only pod all
 * 3500, the 1 x 700 and 1 x 1000 pods GPU 2's 500: (3500 x 2 + 500 x 2) / 5
 * = 1600 milli-GPU.
 */
static void test_run_at_end(void **state)
{
	(void)state;
	assert_int_equal(inspect_db("--run 1 --at end"), 0);
	expect_out("run 1: binpack, time mode, seed 42, pods pods.csv, at t=110 (end t=110)\n");
	expect_out("GPUS milli-GPU held on each GPU (1000 = whole); FREE milli-GPU; GPUMEM MiB; "
		   "CPU cores; MEM GiB; FRAG milli-GPU\n");
	expect_row("NAME", "NAME MODEL GPUS FREE GPUMEM CPU MEM FRAG PODS");
	/* Compact cells: as many as the node has GPUs. */
	expect_row("node-a", "node-a V100M16 0 0 500 0 3500 0/65536 4/64 8/256 1600 1");
	expect_no_row("node-b");
	expect_no_row("node-c");
	expect_out("Allocated/Total GPU share in cluster: 500/6000 milli-GPU (8.3%), "
		   "GPUs in use: 1/6\n");
	expect_out("Allocated/Total CPU in cluster: 4000/112000 milli (3.6%)\n");
	expect_out("Allocated/Total memory in cluster: 8192/458752 MiB (1.8%)\n");
	expect_out("Pods running: 1 on 1 of 3 nodes; 2 idle nodes not shown "
		   "(--nodes all shows them)\n");
}

/* At t = 50 pods 0, 1 and 3 run; pod 2 failed and pod 4 never started. */
static void test_run_at_time(void **state)
{
	(void)state;
	assert_int_equal(inspect_db("--run 1 --at 50"), 0);
	expect_row("node-a", "node-a V100M16 0 0 500 0 3500 0/65536 4/64 8/256 1600 1");
	expect_row("node-b", "node-b T4 1000 1000 0 0/30720 8/32 16/128 0 1");
	expect_row("node-c", "node-c - - 0 0/0 1/16 2/64 0 1");
	expect_out("Allocated/Total GPU share in cluster: 2500/6000 milli-GPU (41.7%), "
		   "GPUs in use: 3/6\n");
	expect_out("Pods running: 3 on 3 of 3 nodes\n");

	/* A pod ending at T no longer counts at T; one starting at T does. */
	assert_int_equal(inspect_db("--run 1 --at 100"), 0);
	expect_no_row("node-b");
	assert_int_equal(inspect_db("--run 1 --at 30"), 0);
	expect_row("node-b", "node-b T4 1000 1000 0 0/30720 8/32 16/128 0 1");
	assert_int_equal(inspect_db("--run 1 --at 29"), 0);
	expect_no_row("node-b");
	/* Before anything started. */
	assert_int_equal(inspect_db("--run 1 --at 0"), 0);
	expect_out("Allocated/Total GPU share in cluster: 0/6000 milli-GPU (0.0%)");
	expect_out("Pods running: 0 on 0 of 3 nodes; 3 idle nodes not shown");
}

static void test_all_nodes_and_peak(void **state)
{
	(void)state;
	assert_int_equal(inspect_db("--run 1 --at 30 --nodes all"), 0);
	expect_row("node-c", "node-c - - 0 0/0 0/16 0/64 0 0");
	expect_out("Pods running: 2 on 2 of 3 nodes\n");
	/* The highest sampled allocation is 2500 milli at t = 30; in time mode the default. */
	assert_int_equal(inspect_db("--run 1 --at peak"), 0);
	expect_out("at t=30 (peak; end t=110)\n");
	assert_int_equal(inspect_db("--run 1"), 0);
	expect_out("at t=30 (peak; end t=110)\n");
	expect_row("node-b", "node-b T4 1000 1000 0 0/30720 8/32 16/128 0 1");
	/* Inflate mode: t is the arrival index, the end the default; pod 0 holds 500 of GPU 0. */
	assert_int_equal(inspect_db("--run 3 -o name,model,gpus,free,gpumem,cpu,mem,pods"), 0);
	expect_out("run 3: fgd, inflate mode, seed 42, pods pods.csv, at t=4 (end t=4)");
	expect_row("node-a", "node-a V100M16 500 0 0 0 3500 0/65536 1/64 1/256 1");
}

static void test_json(void **state)
{
	cJSON *root, *nodes, *gpus, *cl;

	(void)state;
	assert_int_equal(inspect_db("--run 1 --at 50 --json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_int_equal(cJSON_GetObjectItem(root, "t_s")->valueint, 50);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "run"), "policy")
				    ->valuestring,
			    "binpack");
	nodes = cJSON_GetObjectItem(root, "nodes");
	assert_int_equal(cJSON_GetArraySize(nodes), 3);
	gpus = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 1), "gpu_alloc_milli");
	assert_int_equal(cJSON_GetArraySize(gpus), 2);
	assert_int_equal(cJSON_GetArrayItem(gpus, 0)->valueint, 1000);
	cl = cJSON_GetObjectItem(root, "cluster");
	assert_int_equal(cJSON_GetObjectItem(cl, "gpu_alloc_milli")->valueint, 2500);
	assert_int_equal(cJSON_GetObjectItem(cl, "gpu_milli")->valueint, 6000);
	assert_int_equal(cJSON_GetObjectItem(cl, "idle_nodes")->valueint, 0);
	cJSON_Delete(root);

	assert_int_equal(inspect_db("--json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "runs")), 4);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(root, "runs"), 0), "pods_stored")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(root, "runs"), 3), "pods_stored")));
	cJSON_Delete(root);
}

static void test_errors(void **state)
{
	char want[1024], args[700];
	const char *missing;

	(void)state;
	assert_int_equal(inspect_db("--run 99"), 2);
	snprintf(want, sizeof(want), "gpusim inspect: run 99 not found in %s", db_path);
	expect_err(want);
	assert_string_equal(out, "");

	missing = rf_temp_db("no-such");
	snprintf(args, sizeof(args), "--db '%s'", missing);
	assert_int_equal(inspect(args), 2);
	snprintf(want, sizeof(want), "gpusim inspect: %s: no such database file", missing);
	expect_err(want);
	assert_int_equal(access(missing, F_OK), -1);

	assert_int_equal(inspect("--run 1"), 2);
	expect_err("gpusim inspect: --db is required, or --state; try 'gpusim inspect --help'");
	assert_int_equal(inspect_db("--run 1 --at -3"), 2);
	expect_err("--at: '-3' is not 'end', 'peak' or a time in seconds (a non-negative "
		   "integer)");
	assert_int_equal(inspect_db("--run x"), 2);
	expect_err("--run: 'x' is not a non-negative integer");
	assert_int_equal(inspect_db("--run 1 --nodes some"), 2);
	expect_err("--nodes: 'some' is not 'used' or 'all'");
	assert_int_equal(inspect_db("--at 5"), 2);
	expect_err("--at needs --run ID");
	assert_int_equal(inspect_db("extra"), 2);
	expect_err("unexpected argument 'extra'");

	assert_int_equal(inspect("--help"), 0);
	expect_out("usage: gpusim inspect [OPTIONS]");
	assert_string_equal(errs, "");
}

/* A database the engine could not have written is a failure (1), not a table. */
static void test_inconsistent_run(void **state)
{
	(void)state;
	assert_int_equal(inspect_db("--run 2"), 1);
	expect_err("gpusim inspect: run 2 at t=30: node node-a GPU 2 holds 1500 of 1000 milli");
}

/*
 * Sharing modes in a stored run, worked out by hand. One H100 node, GPU 0
 * cut into 4g.40gb (slices 0-3) + 3g.40gb (slices 4-7), GPU 1 time-sliced
 * in 2 replicas. A (0.3 of a GPU, 3 slices) takes the smallest idle
 * instance, the 3g; B (a whole GPU) fits no instance and takes a replica
 * of GPU 1; C (0.5) could take the 4g (571 milli of room) or the other
 * replica (500): the tighter, GPU 1. At t=50 GPU 0 holds 428 milli (the
 * 3g), GPU 1 2 x 500; the 4g is idle.
 */
static void test_sharing_modes(void **state)
{
	char dir[600], cmd[2048];
	FILE *f;
	int st;

	(void)state;
	snprintf(dir, sizeof(dir), "%s.share", db_path);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/nodes.csv", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_model,sharing\n"
	      "h,64000,524288,2,H100,mig:layout=4g.40gb+3g.40gb|timeslice:replicas=2\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/pods.csv", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time,"
	      "deletion_time\n"
	      "A,1000,1024,1,300,0,,0,100\nB,1000,1024,1,1000,0,,0,100\n"
	      "C,1000,1024,1,500,0,,1,101\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' replay --nodes nodes.csv --pods pods.csv "
		 "--db s.db -q >/dev/null 2>&1", dir, GS_GPUSIM_BIN);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "--db '%s/s.db' --run 1 --at 50", dir);
	assert_int_equal(inspect(cmd), 0);
	expect_row("NAME", "NAME MODEL SHARING GPUS FREE GPUMEM CPU MEM FRAG PODS");
	/*
	 * FRAG counts free shares as the FGD measure does: of GPU 0's 572 the
	 * 1 x 1000 kind can use none, the other two all: 572 / 3.
	 */
	expect_row("h", "h H100 mig:layout=4g.40gb+3g.40gb|timeslice:replicas=2 428 1000 572 "
			"0/163840 3/64 3/512 191 3");
	expect_out("MIG instances (profile@first memory slice):\n"
		   "  h GPU0: 4g.40gb@0 idle, 3g.40gb@4 busy\n");
	snprintf(cmd, sizeof(cmd), "--db '%s/s.db' --run 1 --at 50 --json", dir);
	assert_int_equal(inspect(cmd), 0);
	expect_out("\"sharing\":\t\"mig:layout=4g.40gb+3g.40gb|timeslice:replicas=2\"");
	expect_out("\"4g.40gb@0 idle, 3g.40gb@4 busy\"");

	/*
	 * A MIG instance gpusim did not write is refused, not read as far as
	 * it goes: "@4x" was read as slice 4 and "@" as slice 0, and an
	 * instance of another profile at that slice was taken as the pod's.
	 */
	{
		/* The last: slice 0 holds the layout's 4g.40gb, not a 3g. */
		static const char *const bad[] = { "3g.40gb@4x", "3g.40gb@", "3g.40gb@-4",
						   "3g.40gb@99999999999999999999", "3g.40gb@0" };
		char copy[700], sql[256];
		sqlite3 *conn;
		size_t k;

		snprintf(copy, sizeof(copy), "%s/bad.db", dir);
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			snprintf(cmd, sizeof(cmd), "cp '%s/s.db' '%s'", dir, copy);
			assert_int_equal(system(cmd), 0);
			assert_int_equal(sqlite3_open(copy, &conn), SQLITE_OK);
			snprintf(sql, sizeof(sql), "UPDATE pods SET mig = '%s' WHERE run_id = 1 AND "
				 "mig = '3g.40gb@4'", bad[k]);
			assert_int_equal(sqlite3_exec(conn, sql, NULL, NULL, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_changes(conn), 1);
			/* As another program would write it: no checksum to hold the run to. */
			assert_int_equal(sqlite3_exec(conn, "UPDATE runs SET rows_checksum = NULL", NULL,
						      NULL, NULL), SQLITE_OK);
			sqlite3_close(conn);
			snprintf(cmd, sizeof(cmd), "--db '%s' --run 1 --at 50", copy);
			assert_int_equal(inspect(cmd), 1);
			snprintf(sql, sizeof(sql), ": MIG instance '%s' is not one gpusim writes\n",
				 bad[k]);
			expect_err(sql);
		}
	}

	/* A mode shorter than its header keeps the columns under their headers. */
	snprintf(cmd, sizeof(cmd), "%s/plain.csv", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_model\nh,64000,524288,2,H100\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' replay --nodes plain.csv --pods pods.csv "
		 "--sharing mig --db s.db -q >/dev/null 2>&1", dir, GS_GPUSIM_BIN);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "--db '%s/s.db' --run 2 --at 50", dir);
	assert_int_equal(inspect(cmd), 0);
	{
		const char *hdr = strstr(out, "NAME "), *row = strstr(out, "\nh ");
		const char *gpu0 = hdr ? strstr(hdr, "GPUS") : NULL;

		assert_non_null(hdr);
		assert_non_null(row);
		assert_non_null(gpu0);
		row++;
		assert_int_equal(strncmp(row + (strstr(hdr, "SHARING") - hdr), "mig ", 4), 0);
		/* GPU 0's cell: a number right-aligned in the first four characters. */
		assert_true(row[gpu0 - hdr - 1] == ' ' && row[gpu0 - hdr + 3] >= '0' &&
			    row[gpu0 - hdr + 3] <= '9');
	}
}

static void test_newer_schema(void **state)
{
	const char *path = rf_temp_db("inspect-newer");
	char args[700], want[1024];
	sqlite3 *c;

	(void)state;
	assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
	assert_int_equal(sqlite3_exec(c, "CREATE TABLE runs (x); PRAGMA user_version = 3001",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(c);
	snprintf(args, sizeof(args), "--db '%s'", path);
	assert_int_equal(inspect(args), 2);
	snprintf(want, sizeof(want),
		 "gpusim inspect: %s: database schema version 3.1 is newer than this gpusim "
		 "supports (%d.%d)",
		 path, GS_DB_SCHEMA_MAJOR, GS_DB_SCHEMA_MINOR);
	expect_err(want);
	unlink(path);
}

/*
 * A small cluster replayed for real, worked out by hand. Three nodes, one
 * per model, listed out of name order: c-v100 (2 x V100M16), a-t4
 * (4 x T4), b-p100 (2 x P100); every pod names its model, so where it goes
 * is decided: on c-v100, A (500, 4096 MiB of GPU memory) takes GPU 0 and
 * binpack puts B (300, 2048 MiB) next to it, 800 in all; on a-t4, C (2
 * whole GPUs) takes GPUs 0 and 1 and D (250, 1024 MiB) GPU 2; on b-p100, F
 * takes GPU 0 whole and G (600) GPU 1 until it leaves at t = 10.
 *
 * At t = 50, free shares: c-v100 200 + 1000, a-t4 0 + 0 + 750 + 1000,
 * b-p100 0 + 1000. The six pods are six kinds of p = 1/6. Fragmentation:
 *   c-v100: A and B fit and waste GPU 0's 200 each, the four others (other
 *           models) all 1200: (400 + 4800) / 6 = 866.7;
 *   a-t4:   C does not fit (one whole GPU free) and the four of other
 *           models waste all 1750, D fits and wastes nothing: 8750 / 6 =
 *           1458.3;
 *   b-p100: F and G fit and waste nothing, the four others 1000: 666.7.
 */
static char small_db[700];

static void make_small(void)
{
	char dir[600], cmd[2048];
	FILE *f;
	int st;

	if (small_db[0])
		return;
	snprintf(dir, sizeof(dir), "%s.small", db_path);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/nodes.csv", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_model\n"
	      "c-v100,32000,131072,2,V100M16\na-t4,32000,131072,4,T4\nb-p100,16000,65536,2,P100\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/pods.csv", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time,"
	      "deletion_time\n"
	      "A,2000,4096,1,500,4096,V100M16,0,100\nB,1000,2048,1,300,2048,V100M16,0,100\n"
	      "C,8000,16384,2,1000,0,T4,0,100\nD,1000,1024,1,250,1024,T4,0,100\n"
	      "F,4000,8192,1,1000,0,P100,0,100\nG,500,512,1,600,0,P100,0,10\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' replay --nodes nodes.csv --pods pods.csv "
		 "--policy binpack --db s.db -q >/dev/null 2>&1 && '%s' replay --nodes nodes.csv "
		 "--pods pods.csv --policy spread --mode inflate --db s.db -q >/dev/null 2>&1",
		 dir, GS_GPUSIM_BIN, GS_GPUSIM_BIN);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(small_db, sizeof(small_db), "%s/s.db", dir);
}

static int inspect_small(const char *fmt, ...)
{
	char rest[1024], args[1800];
	va_list ap;

	make_small();
	va_start(ap, fmt);
	vsnprintf(rest, sizeof(rest), fmt, ap);
	va_end(ap);
	snprintf(args, sizeof(args), "--db '%s' %s", small_db, rest);
	return inspect(args);
}

/* The rows whose first words are given, in this order, and no other node row. */
static void expect_order(const char *a, const char *b, const char *c)
{
	const char *pa = strstr(out, a), *pb = strstr(out, b), *pc = strstr(out, c);

	if (!pa || !pb || !pc || !(pa < pb && pb < pc))
		fail_msg("rows not in the order %s, %s, %s:\n%s", a, b, c, out);
}

static void test_small_by_hand(void **state)
{
	(void)state;
	assert_int_equal(inspect_small("--run 1 --at 50"), 0);
	expect_out("run 1: binpack, time mode, seed 42, pods pods.csv, at t=50 (end t=100)\n");
	expect_row("c-v100", "c-v100 V100M16 800 0 1200 6144/32768 3/32 6/128 867 2");
	expect_row("a-t4", "a-t4 T4 1000 1000 250 0 1750 1024/65536 9/32 17/128 1458 2");
	expect_row("b-p100", "b-p100 P100 1000 0 1000 0/32768 4/16 8/64 667 1");
	/* Subtotals per model, by name, and all of them. */
	expect_out("Per GPU model (every node, idle ones too; ALLOC, FREE, FRAG in milli-GPU):\n");
	expect_row("MODEL", "MODEL NODES GPUS ALLOC ALLOC% FREE FRAG FRAG%FREE PODS");
	expect_row("P100", "P100 1 2 1000/2000 50.0 1000 667 66.7 1");
	expect_row("T4", "T4 1 4 2250/4000 56.2 1750 1458 83.3 2");
	expect_row("V100M16", "V100M16 1 2 800/2000 40.0 1200 867 72.2 2");
	expect_row("all", "all 3 8 4050/8000 50.6 3950 2992 75.7 5");
	expect_out("Allocated/Total GPU memory in cluster: 7168/131072 MiB (5.5%)\n");
	expect_out("Fragmentation in cluster: 2992 milli-GPU, 75.7% of the free share\n");
	/* At t = 5 G still holds 600 of b-p100's GPU 1; the peak is t = 0. */
	assert_int_equal(inspect_small("--run 1 --at 5 -o name,gpus,free"), 0);
	expect_row("b-p100", "b-p100 1000 600 400");
	assert_int_equal(inspect_small("--run 1 -o name,gpus"), 0);
	expect_out("at t=0 (peak; end t=100)\n");
	expect_row("b-p100", "b-p100 1000 600");
}

/* -d: each pod under its node, its share on the GPUs it holds and '-' on the others. */
static void test_details(void **state)
{
	(void)state;
	assert_int_equal(inspect_small("--run 1 --at 50 -d -o name,gpus,gpumem,cpu,mem"), 0);
	expect_row("c-v100", "c-v100 800 0 6144/32768 3/32 6/128");
	expect_row("|-A", "|-A 500 - 4096 2 4");
	expect_row("`-B", "`-B 300 - 2048 1 2");
	expect_row("|-C", "|-C 1000 1000 - - 0 8 16");
	expect_row("`-D", "`-D - - 250 - 1024 1 1");
	expect_row("`-F", "`-F 1000 - 0 4 8");
	expect_no_row("`-G");
	/* The same in JSON. */
	assert_int_equal(inspect_small("--run 1 --at 50 -d --json"), 0);
	{
		cJSON *root = cJSON_Parse(out), *n0, *pods, *p1;

		assert_non_null(root);
		n0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "nodes"), 0);
		assert_string_equal(cJSON_GetObjectItem(n0, "name")->valuestring, "c-v100");
		assert_int_equal(cJSON_GetObjectItem(n0, "gpu_mem_alloc_mib")->valueint, 6144);
		assert_true(fabs(cJSON_GetObjectItem(n0, "frag_milli")->valuedouble - 5200.0 / 6) <
			    1e-9);
		pods = cJSON_GetObjectItem(n0, "pod_list");
		assert_int_equal(cJSON_GetArraySize(pods), 2);
		p1 = cJSON_GetArrayItem(pods, 1);
		assert_string_equal(cJSON_GetObjectItem(p1, "name")->valuestring, "B");
		assert_int_equal(
			cJSON_GetArrayItem(cJSON_GetObjectItem(p1, "gpu_alloc_milli"), 0)->valueint,
			300);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "models")), 3);
		assert_string_equal(cJSON_GetObjectItem(root, "at")->valuestring == NULL
					    ? "null" : "x", "null");
		cJSON_Delete(root);
	}
}

static void test_sort(void **state)
{
	(void)state;
	/* Node order by default; FREE 1200, 1750, 1000; FRAG 867, 1458, 667; PODS 2, 2, 1. */
	assert_int_equal(inspect_small("--run 1 --at 50"), 0);
	expect_order("\nc-v100", "\na-t4", "\nb-p100");
	assert_int_equal(inspect_small("--run 1 --at 50 --sort free"), 0);
	expect_order("\na-t4", "\nc-v100", "\nb-p100");
	assert_int_equal(inspect_small("--run 1 --at 50 --sort frag"), 0);
	expect_order("\na-t4", "\nc-v100", "\nb-p100");
	/* A tie keeps node order. */
	assert_int_equal(inspect_small("--run 1 --at 50 -s pods"), 0);
	expect_order("\nc-v100", "\na-t4", "\nb-p100");
	assert_int_equal(inspect_small("--run 1 --at 50 --sort name"), 0);
	expect_order("\na-t4", "\nb-p100", "\nc-v100");
	assert_int_equal(inspect_small("--run 1 --at 50 --sort name --json"), 0);
	expect_order("\"a-t4\"", "\"b-p100\"", "\"c-v100\"");
}

static void test_filters(void **state)
{
	(void)state;
	assert_int_equal(inspect_small("--run 1 --at 50 --model T4,P100"), 0);
	expect_no_row("c-v100");
	expect_row("a-t4", "a-t4 T4 1000 1000 250 0 1750 1024/65536 9/32 17/128 1458 2");
	expect_row("b-p100", "b-p100 P100 1000 0 1000 0/32768 4/16 8/64 667 1");
	/* Subtotals of the selected nodes; the cluster's totals stay whole. */
	expect_out("Per GPU model (the nodes the filters select, idle ones too;");
	expect_row("selected", "selected 2 6 3250/6000 54.2 2750 2125 77.3 3");
	expect_no_row("V100M16");
	expect_out("Allocated/Total GPU share in cluster: 4050/8000 milli-GPU (50.6%)");
	expect_out("; 2 nodes shown of the 2 the filters select\n");
	assert_int_equal(inspect_small("--run 1 --at 50 --node '?-[tp]*'"), 0);
	expect_no_row("c-v100");
	expect_out("\na-t4 ");
	expect_out("\nb-p100 ");
	/* At least 1200 milli free: a-t4 (1750) and c-v100 (1200), not b-p100 (1000). */
	assert_int_equal(inspect_small("--run 1 --at 50 --min-free 1200"), 0);
	expect_out("\nc-v100 ");
	expect_out("\na-t4 ");
	expect_no_row("b-p100");
	/* Filters together. */
	assert_int_equal(inspect_small("--run 1 --at 50 -M V100M16 -N 'c-*' -f 1300"), 0);
	expect_out("(no node to show)\n");
	expect_out("; 0 nodes shown of the 0 the filters select\n");
}

/*
 * Runs inspect on a copy of the small database after the SQL sql, and
 * checks that it fails (1) with want on stderr: rows no reader would have
 * let in, which would index past a node's GPU arrays or wrap a sum.
 */
static void expect_bad_row(const char *sql, const char *want)
{
	char copy[800], cmd[2048];
	sqlite3 *conn;

	make_small();
	snprintf(copy, sizeof(copy), "%s.bad", small_db);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", small_db, copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sqlite3_open(copy, &conn), SQLITE_OK);
	assert_int_equal(sqlite3_exec(conn, sql, NULL, NULL, NULL), SQLITE_OK);
	/* As another program would write it: no checksum to hold the run to. */
	assert_int_equal(sqlite3_exec(conn, "UPDATE runs SET rows_checksum = NULL", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(conn);
	snprintf(cmd, sizeof(cmd), "--db '%s' --run 1 --at 50", copy);
	assert_int_equal(inspect(cmd), 1);
	expect_err(want);
	assert_string_equal(out, "");
}

static void test_out_of_range_rows(void **state)
{
	(void)state;
	/* More GPUs than a node can have (GS_MAX_GPUS, 16): never indexed. */
	expect_bad_row("UPDATE run_nodes SET num_gpu = 17 WHERE run_id = 1 AND name = 'c-v100'",
		       "node 0 (c-v100): cpu_milli '32000', memory_mib '131072', num_gpu '17' or "
		       "gpu_mem_mib '16384' is out of range (num_gpu: 0 to 16)\n");
	/* Read whole, not cut to 32 bits (2^32 + 2 would read as 2). */
	expect_bad_row("UPDATE run_nodes SET num_gpu = 4294967298 WHERE run_id = 1 AND name = 'a-t4'",
		       "num_gpu '4294967298'");
	expect_bad_row("UPDATE run_nodes SET cpu_milli = -1 WHERE run_id = 1 AND name = 'a-t4'",
		       "cpu_milli '-1'");
	/* A pod's share per GPU is at most one GPU; larger ones would wrap the node's sums. */
	expect_bad_row("UPDATE pods SET gpu_milli = 2147483647 WHERE run_id = 1 AND name = 'A'",
		       "gpu_milli '2147483647' or gpu_mem_mib '4096' is out of range (gpu_milli: 0 "
		       "to 1000)\n");
	expect_bad_row("UPDATE pods SET num_gpu = 99 WHERE run_id = 1 AND name = 'C'",
		       "num_gpu '99'");
}

/* -o, '+', --raw and --json; every line within $COLUMNS. */
static void test_output_and_width(void **state)
{
	const char *line;
	cJSON *root;

	(void)state;
	assert_int_equal(inspect_small("--run 1 --at 50 -o NAME,frag,Pods"), 0);
	expect_row("NAME", "NAME FRAG PODS");
	expect_row("a-t4", "a-t4 1458 2");
	assert_int_equal(inspect_small("--run 1 --at 50 -o +idx"), 0);
	expect_row("NAME", "NAME MODEL GPUS FREE GPUMEM CPU MEM FRAG PODS IDX");
	expect_row("b-p100", "b-p100 P100 1000 0 1000 0/32768 4/16 8/64 667 1 2");
	/* Raw: one line per node, GPU cells joined by commas, no header line or totals. */
	assert_int_equal(inspect_small("--run 1 --at 50 --raw -o name,gpus,gpubar"), 0);
	assert_string_equal(out, "NAME GPUS GPUBAR\nc-v100 800,0 8.\na-t4 1000,1000,250,0 ##2.\n"
				 "b-p100 1000,0 #.\n");
	/* The run list as JSON, with what tells runs apart. */
	assert_int_equal(inspect_small("--json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "runs")), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "runs"),
								     1),
						 "scoring")->valuestring,
			    "compat");
	cJSON_Delete(root);

	/*
	 * COLUMNS=70: the numbers would take 72 characters, so one character
	 * per GPU; every line, the texts broken at spaces, within 70.
	 */
	setenv("COLUMNS", "70", 1);
	assert_int_equal(inspect_small("--run 1 --at 50"), 0);
	unsetenv("COLUMNS");
	expect_row("a-t4", "a-t4 T4 ##2. 1750 1024/65536 9/32 17/128 1458 2");
	expect_out("GPUBAR one character per GPU: '.' idle, 0-9 tenths held, '#' whole;\n  FREE");
	for (line = out; *line;) {
		size_t len = strcspn(line, "\n");

		if (len > 70)
			fail_msg("a line of %zu characters at COLUMNS=70:\n%s", len, out);
		line += len + (line[len] == '\n');
	}
	/*
	 * Too narrow for any table (COLUMNS=40): nothing is cut, since a
	 * cut name or model reads as another (V100M16 as "V100M", the pods
	 * file as "pods."); the lines are longer instead.
	 */
	setenv("COLUMNS", "40", 1);
	assert_int_equal(inspect_small("--run 1 --at 50 -d"), 0);
	expect_row("c-v100", "c-v100 V100M16 8. 1200 6144/32768 3/32 6/128 867 2");
	expect_row("|-A", "|-A 5. 4096 2 4");
	assert_int_equal(inspect_small(""), 0);
	unsetenv("COLUMNS");
	expect_row("1", "1 binpack time 42 pods.csv scale 1 exact ideal 6 0 - 0.0");
	/* Wide enough: the numbers. */
	setenv("COLUMNS", "120", 1);
	assert_int_equal(inspect_small("--run 1 --at 50"), 0);
	unsetenv("COLUMNS");
	expect_row("a-t4", "a-t4 T4 1000 1000 250 0 1750 1024/65536 9/32 17/128 1458 2");
}

static void test_list_filters(void **state)
{
	(void)state;
	assert_int_equal(inspect_small(""), 0);
	expect_row("1", "1 binpack time 42 pods.csv scale 1 exact ideal 6 0 - 0.0");
	/* An inflate run's headline is UNALLOC% (none here: the clones never fill the cluster). */
	expect_row("2", "2 spread inflate 42 pods.csv inflate 1.3 compat ideal 10 5 - -");
	assert_int_equal(inspect_small("--policy spread"), 0);
	expect_no_row("1");
	expect_out("\n2 ");
	assert_int_equal(inspect_small("--mode time -o id,policy,mode"), 0);
	assert_string_equal(out, "ID POLICY  MODE\n1  binpack time\n");
	assert_int_equal(inspect_small("--trace 'pod*.csv' --limit 1 -o id,policy"), 0);
	assert_string_equal(out, "ID POLICY\n2  spread\n(1 newest of 2 runs)\n");
	assert_int_equal(inspect_small("--trace 'x*' -o id"), 0);
	expect_out(": no run matches the filters\n");
	assert_int_equal(inspect_small("--policy binpack --raw -o policy,wait,unalloc%%"), 0);
	assert_string_equal(out, "POLICY WAIT UNALLOC%\nbinpack 0.0 -\n");
}

/* Bad values: exit 2, and the message names the option and the value. */
static void test_bad_values(void **state)
{
	(void)state;
	assert_int_equal(inspect_small("--run 1 --at later"), 2);
	expect_err("gpusim inspect: --at: 'later' is not 'end', 'peak' or a time in seconds (a "
		   "non-negative integer)\n");
	assert_int_equal(inspect_small("--run 1 --sort size"), 2);
	expect_err("--sort: 'size' is not 'free', 'frag', 'pods' or 'name'");
	assert_int_equal(inspect_small("--run 1 --model A100"), 2);
	expect_err("gpusim inspect: --model: no node of run 1 has GPU model 'A100'; its models "
		   "are V100M16, T4, P100\n");
	assert_int_equal(inspect_small("--run 1 -o name,gpu"), 2);
	expect_err("gpusim inspect: --output: 'gpu' is not a column of the node table; its "
		   "columns are IDX, NAME, MODEL, SHARING, GPUS, GPUBAR, FREE, GPUMEM, CPU, MEM, "
		   "FRAG, PODS\n");
	/* Nothing on stdout before the error, whether or not a table or JSON would follow. */
	assert_string_equal(out, "");
	assert_int_equal(inspect_small("--run 1 -o ''"), 2);
	expect_err("gpusim inspect: --output: '' names no column\n");
	assert_string_equal(out, "");
	assert_int_equal(inspect_small("--run 1 --node 'zzz*' -o bogus"), 2);
	expect_err("--output: 'bogus' is not a column of the node table");
	assert_string_equal(out, "");
	assert_int_equal(inspect_small("--run 1 --json -o bogus"), 2);
	assert_string_equal(out, "");
	assert_int_equal(inspect_small("-o name"), 2);
	expect_err("--output: 'name' is not a column of the run list");
	assert_int_equal(inspect_small("--run 1 --min-free -5"), 2);
	expect_err("--min-free: '-5'");
	assert_int_equal(inspect_small("--limit 0"), 2);
	expect_err("--limit: '0'");
	assert_int_equal(inspect_small("--policy fdg"), 2);
	expect_err("gpusim inspect: --policy: 'fdg' is not a policy; 'gpusim policies' lists them\n");
	assert_int_equal(inspect_small("--mode batch"), 2);
	expect_err("--mode: 'batch' is not 'time' or 'inflate'");
	assert_int_equal(inspect_small("--run 1 --policy fgd"), 2);
	assert_int_equal(inspect_small("--sort free"), 2);
	expect_err("--sort needs --run ID");
	assert_int_equal(inspect_small("--run 1 --raw --json"), 2);
	/* -d is --details here, as in kubectl: a database after it gets a pointed message. */
	assert_int_equal(inspect("-d x.db --run 1"), 2);
	expect_err("gpusim inspect: -d is --details here, as in kubectl inspect gpushare -d; give "
		   "the database with --db x.db\n");
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_run_at_end),
		cmocka_unit_test(test_run_without_pods),
		cmocka_unit_test(test_run_at_time),
		cmocka_unit_test(test_all_nodes_and_peak),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_inconsistent_run),
		cmocka_unit_test(test_newer_schema),
		cmocka_unit_test(test_sharing_modes),
		cmocka_unit_test(test_small_by_hand),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_out_of_range_rows),
		cmocka_unit_test(test_output_and_width),
		cmocka_unit_test(test_list_filters),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
