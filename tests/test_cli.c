/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cli.c - the gpusim program as a user meets it: exit codes and the
 * exact error messages for bad input, determinism of stored runs (two
 * replays with the same inputs and seed store identical rows), and runs
 * stored without pod rows (--no-pods), and Kubernetes snapshots (--state):
 * the bundled one's node table, a replay from it, bad snapshots refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>

#include "core/grow.h"
#include "tmpdir.h"

static char out[65536];

/* Runs `gpusim ARGS` with stdout and stderr captured in out; returns the exit status. */
static int gpusim(const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	FILE *f;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s 2>&1", gs_test_tmpdir(), GS_GPUSIM_BIN, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Runs the shell line LINE (not gpusim's arguments) in the test directory, like gpusim(). */
static int gpusim_sh(const char *fmt, ...)
{
	char line[4096], cmd[8192];
	va_list ap;
	FILE *f;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd %s && { %s; } 2>&1", gs_test_tmpdir(), line);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static const char nodes_csv[] =
	"sn,cpu_milli,memory_mib,gpu,model\n"
	"n0,32000,131072,2,T4\n"
	"n1,64000,262144,4,V100M32\n";

static const char pods_csv[] =
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
	"deletion_time,scheduled_time\n"
	"p0,4000,8192,1,500,,LS,Running,0,500,0\n"
	"p1,4000,8192,1,1000,T4,LS,Running,10,300,10\n"
	"p2,8000,16384,4,1000,,LS,Running,20,400,20\n"
	"p3,2000,4096,1,250,,BE,Running,20,90,20\n"
	"p4,2000,4096,0,0,,BE,Running,30,60,30\n"
	"p5,4000,8192,2,1000,,LS,Running,40,100,40\n"
	"p6,4000,8192,1,700,V100M32,LS,Running,50,200,50\n";

static int setup(void **state)
{
	(void)state;
	if (gs_test_tmpdir_make("test-cli"))
		return -1;
	gs_test_write("nodes.csv", nodes_csv, NULL, 0);
	gs_test_write("pods.csv", pods_csv, NULL, 0);
	return 0;
}

static void test_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(gpusim(""), 2);
	assert_non_null(strstr(out, "usage: gpusim COMMAND"));
	assert_int_equal(gpusim("frobnicate"), 2);
	assert_string_equal(out, "gpusim: 'frobnicate' is not a gpusim command; see 'gpusim --help'\n");
	assert_int_equal(gpusim("--help"), 0);
	assert_int_equal(gpusim("replay --help"), 0);
	assert_non_null(strstr(out, "--time-scale X"));
	assert_int_equal(gpusim("replay --pods pods.csv"), 2);
	assert_string_equal(out, "gpusim replay: --nodes and --pods are required, or --state; "
				 "try 'gpusim replay --help'\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack,nope"), 2);
	assert_string_equal(out, "gpusim replay: --policy: 'nope' is not a policy; "
				 "'gpusim policies' lists them\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --mode warp"), 2);
	assert_string_equal(out, "gpusim replay: --mode: 'warp' is not 'time' or 'inflate'\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --time-scale -3"), 2);
	assert_string_equal(out, "gpusim replay: --time-scale: '-3' is not a positive number\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --seed 12x"), 2);
	assert_string_equal(out, "gpusim replay: --seed: '12x' is not a non-negative integer\n");
	assert_int_equal(gpusim("policies"), 0);
	assert_non_null(strstr(out, "binpack"));
	assert_non_null(strstr(out, "first-fit"));
}

/* What every command gets from its option table: one message format, --version, conflicts. */
static void test_option_table(void **state)
{
	static const char *const cmds[] = { "replay", "sweep", "gen", "inspect", "policies", "plot",
					    "bench-import" };
	char version[256], path[512];
	size_t i;

	(void)state;
	assert_int_equal(gpusim("--version"), 0);
	assert_true(strncmp(out, "gpusim 0.", 9) == 0);
	assert_non_null(strchr(out, '+'));  /* the git commit, or "unknown" */
	assert_true(strlen(out) < sizeof(version));
	memcpy(version, out, strlen(out) + 1);
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		assert_int_equal(gpusim("%s --version", cmds[i]), 0);
		assert_string_equal(out, version);
		assert_int_equal(gpusim("%s --bogus", cmds[i]), 2);
		assert_true(strncmp(out, "gpusim ", 7) == 0);
		assert_non_null(strstr(out, ": unknown option '--bogus'; try 'gpusim "));
	}
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --seed +5"), 2);
	assert_string_equal(out, "gpusim replay: --seed: '+5' is not a non-negative integer\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --seed ' 5'"), 2);
	assert_string_equal(out, "gpusim replay: --seed: ' 5' is not a non-negative integer\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --inflate +1"), 2);
	assert_string_equal(out, "gpusim replay: --inflate: '+1' is not a number above 0 and at "
				 "most 100\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --compat --exact"), 2);
	assert_string_equal(out, "gpusim replay: --compat and --exact cannot be used together\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --compat --ties index"), 2);
	assert_string_equal(out, "gpusim replay: --ties index: compat scoring breaks ties in a "
				 "shuffled node order, as the FGD reference does; give --exact for "
				 "the file's order\n");
	assert_int_equal(gpusim("sweep --nodes nodes.csv --pods pods.csv --ties first"), 2);
	assert_string_equal(out, "gpusim sweep: --ties: 'first' is not 'index' or 'shuffled'\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --db x.db --no-db"), 2);
	assert_string_equal(out, "gpusim replay: --db and --no-db cannot be used together\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db "
				"--policy binpack,binpack"), 2);
	assert_string_equal(out, "gpusim replay: --policy: 'binpack' is given twice\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --policy all,fgd"), 2);
	assert_string_equal(out, "gpusim replay: --policy: 'fgd' is given twice\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --quiet=1"), 2);
	assert_string_equal(out, "gpusim replay: --quiet takes no value; try 'gpusim replay --help'\n");
	assert_int_equal(gpusim("sweep --nodes nodes.csv --pods pods.csv,pods.csv"), 2);
	assert_string_equal(out, "gpusim sweep: --pods: 'pods.csv' is given twice\n");
	assert_int_equal(gpusim("sweep --nodes nodes.csv --pods pods.csv --seeds 1-3,2"), 2);
	assert_string_equal(out, "gpusim sweep: --seeds: seed 2 is given twice\n");
	assert_int_equal(gpusim("sweep --nodes nodes.csv --pods pods.csv --jobs 0"), 2);
	assert_string_equal(out, "gpusim sweep: --jobs: '0' is not an integer from 1 to 1024\n");
	/* Nothing of the refused commands was written. */
	gs_test_path("x.db", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
}

static void has(const char *text);

/*
 * --ties: on eight identical nodes the pods of a time-mode run tie, so the
 * node order decides. With the default (index) every seed places the first
 * pod on the first node; with --ties shuffled the seeds' orders differ,
 * the run records GS_POLICY_SHUFFLED (policy_flags 2) and its scores stay
 * exact. advise shuffles by default.
 */
static void test_ties(void **state)
{
	char nodes[512] = "name,cpu_milli,memory_mib,num_gpu,gpu_model\n";
	int i;

	(void)state;
	for (i = 0; i < 8; i++)
		snprintf(nodes + strlen(nodes), sizeof(nodes) - strlen(nodes),
			 "t%d,32000,131072,2,T4\n", i);
	gs_test_write("ties-nodes.csv", nodes, NULL, 0);
	for (i = 1; i <= 6; i++) {
		assert_int_equal(gpusim("replay --nodes ties-nodes.csv --pods pods.csv -P binpack "
					"--seed %d --db ties.db -q", i), 0);
		assert_int_equal(gpusim("replay --nodes ties-nodes.csv --pods pods.csv -P binpack "
					"--seed %d --ties shuffled --db ties.db -q", i), 0);
	}
	/* p0's node: always t0 by index; more than one node over six shuffled seeds. */
	assert_int_equal(gpusim_sh("sqlite3 ties.db \"select json_extract(r.params_json, "
				   "'$.policy_flags'), json_extract(r.params_json, '$.compat'), "
				   "count(*), count(distinct p.node_idx) > 1, min(p.node_idx) from "
				   "runs r join pods p using (run_id) where p.name = 'p0' group by 1, "
				   "2 order by 1\""),
			 0);
	assert_int_equal(strncmp(out, "0|0|6|0|0\n2|0|6|1|", 18), 0);
	assert_int_equal(gpusim("inspect --db ties.db -o ID,SCORING --raw"), 0);
	has("ID SCORING\n1 exact\n2 exact/shuffled\n");
	assert_int_equal(gpusim("advise --nodes ties-nodes.csv --pods pods.csv -P binpack "
				"--sharing exclusive --seeds 1-2 --max-seeds 2 --trace-times "
				"--no-reference --db ties-advise.db --json"), 0);
	assert_int_equal(gpusim_sh("sqlite3 ties-advise.db \"select distinct json_extract("
				   "params_json, '$.policy_flags') from runs\""), 0);
	assert_string_equal(out, "2\n");
}

static void test_bad_input_exits_2_and_writes_nothing(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --nodes missing.csv --pods pods.csv --db r.db"), 2);
	assert_string_equal(out, "gpusim replay: missing.csv: cannot open: No such file or directory\n");
	gs_test_write("bad.csv",
		      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
		      "creation_time,deletion_time,scheduled_time\n"
		      "p0,1000,1024,1,500,,LS,Running,0,100,0\n"
		      "p1,1000,1024,1,12x,,LS,Running,0,100,0\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods bad.csv --db r.db"), 2);
	assert_string_equal(out, "gpusim replay: bad.csv:3: column gpu_milli: '12x' is not an integer\n");
	/* A database under a file: its directory cannot be made. */
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --db bad.csv/sub/r.db"), 2);
	assert_string_equal(out, "gpusim replay: bad.csv: cannot create: Not a directory\n");
	/* Every command that writes a database says the same, with the same status. */
	assert_int_equal(gpusim("bound --nodes nodes.csv --pods pods.csv --db bad.csv/sub/r.db"), 2);
	assert_string_equal(out, "gpusim bound: bad.csv: cannot create: Not a directory\n");
	assert_int_equal(gpusim("sweep -q --nodes nodes.csv --pods pods.csv --db bad.csv/sub/r.db"),
			 2);
	assert_string_equal(out, "gpusim sweep: bad.csv: cannot create: Not a directory\n");
	/* None of the failed commands created the database. */
	assert_int_equal(gpusim("inspect --db r.db"), 2);
}

static void test_strict_refuses_impossible_pods(void **state)
{
	(void)state;
	gs_test_write("big.csv",
		      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
		      "creation_time,deletion_time,scheduled_time\n"
		      "ok,1000,1024,1,500,,LS,Running,0,100,0\n"
		      "huge,1000,1024,8,1000,,LS,Running,0,100,0\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods big.csv --no-db -q"), 0);
	assert_string_equal(out, "gpusim replay: big.csv: 1 pods fit on no node even when the "
				 "cluster is empty; they will never be placed\n");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods big.csv --no-db -q --strict"), 2);
	assert_non_null(strstr(out, "gpusim replay: big.csv: pod 'huge' is the first that fits on "
				    "no node\n"));
}

/* Concatenates every row of a query, for comparing two databases. */
static char *dump(const char *db_name, const char *sql)
{
	char path[512];
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int i, rows = 0;

	assert_non_null(buf);
	buf[0] = '\0';
	gs_test_path(db_name, path, sizeof(path));
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			size_t n = strlen(v ? v : "NULL") + 2;

			while (len + n >= cap) {
				buf = gs_grow(buf, &cap, len + n, 1, 0);
				assert_non_null(buf);
			}
			len += (size_t)snprintf(buf + len, cap - len, "%s|", v ? v : "NULL");
		}
		buf[len++] = '\n';
		buf[len] = '\0';
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_true(rows > 0);
	return buf;
}

/* One column of run_summary for run 1 of db_name as a double; NAN for NULL. */
static double summary_value(const char *db_name, const char *column, int64_t run_id)
{
	char path[512], sql[256];
	sqlite3 *db;
	sqlite3_stmt *st;
	double v = NAN;

	gs_test_path(db_name, path, sizeof(path));
	snprintf(sql, sizeof(sql), "select %s from run_summary where run_id = %lld", column,
		 (long long)run_id);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	if (sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/*
 * --json: replay prints one object per run whose numbers are the stored
 * run_summary's (the binpack run worked out in test_replay_table: mean wait
 * 710 / 7, p99 360); it excludes -q; policies lists the registry.
 */
static void test_json(void **state)
{
	static const char *const keys[] = {
		"n_pods", "n_placed", "n_failed", "failed_pct", "mean_wait_s", "gpu_alloc_pct",
		"unalloc_gpu_pct", "peak_gpu_alloc_pct", "peak_pending", "offered_load_pct",
		"wait_p50_s", "wait_p90_s", "wait_p99_s", "wait_max_s", "completion_mean_s",
		"completion_p50_s", "completion_p90_s", "completion_p99_s", "completion_max_s",
		"slowdown_mean", "slowdown_p99", "pending_avg", "makespan_s", "gpu_alloc_busy_pct",
		"frag_avg_pct", "n_timed_out", "load_pct", "frag_ratio_pct", "eff_util_pct",
		"n_oversubscribed", "mig_idle_pct", "mig_slack_pct",
	};
	cJSON *root, *o, *v;
	size_t i, k;

	(void)state;
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack,spread "
				"--db j.db --json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_true(cJSON_IsArray(root));
	assert_int_equal(cJSON_GetArraySize(root), 2);
	o = cJSON_GetArrayItem(root, 0);
	assert_string_equal(cJSON_GetObjectItem(o, "policy")->valuestring, "binpack");
	assert_true(fabs(cJSON_GetObjectItem(o, "mean_wait_s")->valuedouble - 710.0 / 7) < 1e-9);
	assert_true(cJSON_GetObjectItem(o, "wait_p99_s")->valuedouble == 360);
	assert_false(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "params"), "frag")->valueint);
	for (i = 0; i < 2; i++) {
		o = cJSON_GetArrayItem(root, (int)i);
		assert_true(cJSON_GetObjectItem(o, "run_id")->valuedouble == (double)(i + 1));
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			double want = summary_value("j.db", keys[k], (int64_t)i + 1);

			v = cJSON_GetObjectItem(o, keys[k]);
			if (!v)
				fail_msg("run %zu: no key %s", i + 1, keys[k]);
			if (isnan(want) ? !cJSON_IsNull(v) :
					  !(fabs(v->valuedouble - want) <= 1e-9 * (1 + fabs(want))))
				fail_msg("run %zu: %s is %s in JSON, %g in run_summary", i + 1, keys[k],
					 cJSON_PrintUnformatted(v), want);
		}
	}
	cJSON_Delete(root);
	/* Without a database there is no run id. */
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 0), "run_id")));
	cJSON_Delete(root);
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --json -q"), 2);
	/*
	 * A seed above 2^53 is printed exactly, not through a double
	 * (9007199254740993 read as 9.00719925474099e+15), here and in
	 * inspect's list of the stored run.
	 */
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack "
				"--seed 9007199254740993 --db seed.db --json"), 0);
	assert_non_null(strstr(out, "\"seed\":\t9007199254740993,"));
	root = cJSON_Parse(out);
	assert_non_null(root);
	cJSON_Delete(root);
	assert_int_equal(gpusim("inspect --db seed.db --json"), 0);
	assert_non_null(strstr(out, "\"seed\":\t9007199254740993,"));
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack "
				"--seed 9223372036854775807 --no-db --json"), 0);
	assert_non_null(strstr(out, "\"seed\":\t9223372036854775807,"));
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack "
				"--seed 42 --no-db --json"), 0);
	assert_non_null(strstr(out, "\"seed\":\t42,"));

	assert_int_equal(gpusim("policies --json"), 0);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_true(cJSON_GetArraySize(root) >= 9);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 0), "name")->valuestring,
			    "binpack");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 0), "summary"));
	cJSON_Delete(root);
}

/* Appends the shape of v to *buf: its keys, in order, and the type of each value (numbers not). */
static void json_shape(const cJSON *v, char *buf, size_t cap)
{
	const cJSON *c;
	size_t len = strlen(buf);

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		snprintf(buf + len, cap - len, "%c", cJSON_IsObject(v) ? '{' : '[');
		for (c = v->child; c; c = c->next) {
			len = strlen(buf);
			if (c->string)
				snprintf(buf + len, cap - len, "%s:", c->string);
			json_shape(c, buf, cap);
		}
		len = strlen(buf);
		snprintf(buf + len, cap - len, "%c", cJSON_IsObject(v) ? '}' : ']');
		return;
	}
	snprintf(buf + len, cap - len, "%c,", cJSON_IsBool(v) ? 'b' : cJSON_IsNumber(v) ? 'n' :
				     cJSON_IsString(v) ? 's' : cJSON_IsRaw(v) ? 'r' : '0');
}

/*
 * Runs `PREP; GS_TEST_JSON_FAIL_AT=N gpusim ARGS` for N = 0, 1, ... (then
 * in steps) until it succeeds: each run whose allocation N failed exits 1
 * with "gpusim CMD: out of memory" and nothing on stdout, never a document
 * with fields or rows missing; the one that succeeds prints the document
 * a run without failures prints, to the shape.
 */
static void check_json_oom(const char *cmd, const char *prep, const char *args)
{
	static char want[32768], got[32768];
	char line[4096], msg[128];
	cJSON *root;
	int n, st;

	snprintf(line, sizeof(line), "%s; gpusim_json() { %s %s; }; gpusim_json", prep,
		 GS_GPUSIM_BIN, args);
	assert_int_equal(gpusim_sh("%s", line), 0);
	root = cJSON_Parse(out);
	if (!root)
		fail_msg("gpusim %s: no JSON: %s", args, out);
	want[0] = '\0';
	json_shape(root, want, sizeof(want));
	cJSON_Delete(root);
	snprintf(msg, sizeof(msg), "gpusim %s: out of memory\n", cmd);
	for (n = 0;; n += n < 64 ? 1 : 7) {
		snprintf(line, sizeof(line),
			 "%s; GS_TEST_JSON_FAIL_AT=%d %s %s >o.json 2>e.txt; echo $?", prep, n,
			 GS_GPUSIM_BIN, args);
		assert_int_equal(gpusim_sh("%s", line), 0);
		st = atoi(out);
		if (st == 0)
			break;
		if (st != 1)
			fail_msg("gpusim %s, allocation %d failing: exit %d", args, n, st);
		assert_int_equal(gpusim_sh("cat e.txt; wc -c <o.json"), 0);
		if (!strstr(out, msg) || !strstr(out, "\n0\n"))
			fail_msg("gpusim %s, allocation %d failing: exit 1 with %s", args, n,
				 out);
		if (n > 100000)
			fail_msg("gpusim %s: still failing at allocation %d", args, n);
	}
	assert_int_equal(gpusim_sh("cat o.json"), 0);
	root = cJSON_Parse(out);
	if (!root)
		fail_msg("gpusim %s, allocation %d failing: exit 0 with %s", args, n, out);
	got[0] = '\0';
	json_shape(root, got, sizeof(got));
	cJSON_Delete(root);
	if (strcmp(got, want))
		fail_msg("gpusim %s, allocation %d failing: exit 0 with a document of shape\n"
			 "%s\nnot\n%s", args, n, got, want);
}

/*
 * --json when memory runs out while the document is built (the test
 * build's GS_TEST_JSON_FAIL_AT): exit 1 and the message, never a
 * document with fields or rows dropped and exit 0. Sweep is checked
 * resuming a finished matrix: its JSON is read back from the database.
 */
static void test_json_out_of_memory(void **state)
{
	(void)state;
	check_json_oom("policies", ":", "policies --json");
	check_json_oom("replay", ":",
		       "replay --nodes nodes.csv --pods pods.csv --policy binpack,fgd --no-db --json");
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack,spread "
				"--db oom.db -q"), 0);
	check_json_oom("inspect", ":", "inspect --db oom.db --json");
	check_json_oom("inspect", ":", "inspect --db oom.db --run 1 --nodes all --details --json");
	assert_int_equal(gpusim("sweep --nodes nodes.csv --pods pods.csv --policy binpack,spread "
				"--seeds 1 --db sw.db -q"), 0);
	check_json_oom("sweep", ":",
		       "sweep --nodes nodes.csv --pods pods.csv --policy binpack,spread --seeds 1 "
		       "--db sw.db "
		       "--json");
}

/*
 * Storing a run when a cJSON allocation fails (GS_TEST_JSON_FAIL_AT=N, no
 * --json: the failures fall on params_json's check in the store, among
 * others): sweep and replay exit 1 and say out of memory, for every N up
 * to the first that succeeds; never exit 2 or "params_json is not valid
 * JSON", which is for bad input.
 */
static void test_store_out_of_memory(void **state)
{
	static const char *const cmds[] = {
		"sweep --nodes nodes.csv --pods pods.csv --policy binpack,spread --seeds 1,2",
		"replay --nodes nodes.csv --pods pods.csv --policy binpack,spread",
	};
	char msg[64];
	size_t c;
	int n, st, n_fail;

	(void)state;
	for (c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		snprintf(msg, sizeof(msg), "gpusim %.*s: ", (int)strcspn(cmds[c], " "), cmds[c]);
		for (n = 0, n_fail = 0;; n++) {
			assert_int_equal(gpusim_sh("rm -f som.db*; GS_TEST_JSON_FAIL_AT=%d %s %s "
						   "--db som.db -q >/dev/null 2>e.txt; echo $?",
						   n, GS_GPUSIM_BIN, cmds[c]), 0);
			st = atoi(out);
			if (st == 0)
				break;
			assert_int_equal(gpusim_sh("cat e.txt"), 0);
			if (st != 1 || !strstr(out, msg) || !strstr(out, "out of memory") ||
			    strstr(out, "not valid JSON"))
				fail_msg("%s, allocation %d failing: exit %d with %s", cmds[c], n, st,
					 out);
			n_fail++;
			if (n > 10000)
				fail_msg("%s: still failing at allocation %d", cmds[c], n);
		}
		assert_true(n_fail > 0);
	}
}

static void test_same_seed_same_rows(void **state)
{
	static const char *const queries[] = {
		"select * from pods order by run_id, pod_idx",
		"select * from samples order by run_id, 1, 2, 3",
		"select policy, seed, params_json, pods_sha256, nodes_sha256, n_placed, n_failed "
		"from runs order by run_id",
	};
	size_t i;

	(void)state;
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy all --seed 7 "
				"--db a.db -q"), 0);
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy all --seed 7 "
				"--db b.db -q"), 0);
	assert_int_equal(gpusim("replay --mode inflate --nodes nodes.csv --pods pods.csv "
				"--policy random,fgd --seed 3 --db a.db -q"), 0);
	assert_int_equal(gpusim("replay --mode inflate --nodes nodes.csv --pods pods.csv "
				"--policy random,fgd --seed 3 --db b.db -q"), 0);
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		char *a = dump("a.db", queries[i]), *b = dump("b.db", queries[i]);

		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/* out with every run of blanks made one space, in a static buffer. */
static const char *squeezed(void)
{
	static char buf[sizeof(out)];
	size_t i, n = 0;

	for (i = 0; out[i]; i++) {
		if (out[i] == ' ' && n && buf[n - 1] == ' ')
			continue;
		buf[n++] = out[i];
	}
	buf[n] = '\0';
	return buf;
}

/*
 * binpack on the two nodes: p0 (0.5) and p1 (T4) go to n0, p2 takes n1's
 * four GPUs, p3 joins p0. p5 (2 whole GPUs, at 40) and p6 (0.7 of a
 * V100M32, at 50) wait for p2 to leave at 400: waits 360 and 350, the
 * others 0, mean 710 / 7 = 101.4 s; p50 (rank 4) 0, p99 (rank 7) 360.
 * Completion times 500, 290, 380, 70, 30, 420, 500: mean 312.9, p99 500.
 */
static void test_replay_table(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack "
				"--db t.db"), 0);
	assert_non_null(strstr(squeezed(), "POLICY PODS PLACED FAILED PEND WAIT(s) P50W P99W MAXW "
				    "COMPL(s) P99C"));
	/* All 7 pods placed, none failed or pending. */
	assert_non_null(strstr(squeezed(), "binpack 7 7 0 0 101.4 0 360 360 312.9 500 "));
	assert_int_equal(gpusim("inspect --db t.db --run 1 --at 25"), 0);
	assert_non_null(strstr(out, "n1"));
	/* -q prints the new runs' ids and nothing else. */
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --policy binpack,spread "
				"--db t.db -q"), 0);
	assert_string_equal(out, "2\n3\n");
}

/*
 * The same replay with and without --no-pods: the second stores no pod row
 * but the same runs counts and run_summary figures (mean wait included: in
 * time mode some pods wait here), and inspect refuses to rebuild it.
 */
static void test_replay_no_pods(void **state)
{
	static const char summary[] =
		"select n_pods, n_placed, n_failed, failed_pct, mean_wait_s, gpu_alloc_pct,"
		" unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct, params_json"
		" from run_summary where run_id = ";
	char sql[512], *a, *b;

	(void)state;
	assert_int_equal(gpusim("replay --help"), 0);
	assert_non_null(strstr(out, "--no-pods"));
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --time-scale 4 "
				"--db np.db -q"), 0);
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --time-scale 4 "
				"--db np.db --no-pods"), 0);
	assert_non_null(strstr(out, "stored in np.db without pod rows (--no-pods); "
				    "'gpusim inspect --db np.db' lists the runs\n"));
	a = dump("np.db", "select run_id, pods_stored, count(p.pod_idx) from runs"
			  " left join pods p using (run_id) group by run_id order by run_id");
	assert_string_equal(a, "1|1|7|\n2|0|0|\n");
	free(a);
	a = dump("np.db", "select mean_wait_s > 0 from run_summary where run_id = 1");
	assert_string_equal(a, "1|\n");
	free(a);
	snprintf(sql, sizeof(sql), "%s1", summary);
	a = dump("np.db", sql);
	snprintf(sql, sizeof(sql), "%s2", summary);
	b = dump("np.db", sql);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = dump("np.db", "select n_pods, n_placed, n_failed, n_done, n_pending_end, n_events,"
			  " n_retries, t_end_s, wait_total_s from runs where run_id = 1");
	b = dump("np.db", "select n_pods, n_placed, n_failed, n_done, n_pending_end, n_events,"
			  " n_retries, t_end_s, wait_total_s from runs where run_id = 2");
	assert_string_equal(a, b);
	free(a);
	free(b);

	assert_int_equal(gpusim("inspect --db np.db --run 2"), 2);
	assert_string_equal(out, "gpusim inspect: run 2 was stored without pod rows (--no-pods), "
				 "so its allocations cannot be shown; replay it without --no-pods "
				 "to inspect it\n");
	assert_int_equal(gpusim("inspect --db np.db"), 0);
	assert_non_null(strstr(out, "\n2 "));
	assert_int_equal(gpusim("inspect --db np.db --run 1"), 0);
}

/*
 * --sharing and --interference from the command line. Two pods that each
 * need a whole GPU for 100 s, time-sliced on one A100 (replicas=2), with a
 * table that loses 20% to switching at two pods: each runs at
 * 0.5 x 0.8 = 0.4, so both end at 100 / 0.4 = 250 s; the useful work,
 * 2 x 100 GPU-s over 250 s of one GPU, is 80% of the busy time. The run
 * stores its spec, each node's modes and the table's SHA-256. Bad specs and
 * tables are exit status 2 with the file, line and column; inflate mode
 * says the modes only decide placement.
 */
static void test_replay_sharing(void **state)
{
	static const char one[] = "sn,cpu_milli,memory_mib,gpu,model\na,64000,262144,1,A100-80G\n";
	static const char two[] =
		"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
		"deletion_time,scheduled_time\n"
		"A,1000,1024,1,1000,,LS,Running,0,100,0\n"
		"B,1000,1024,1,1000,,LS,Running,0,100,0\n";
	static const char ts80[] = "mode,gpu_model,n,class,efficiency,source\n"
				   "timeslice,*,1,*,1.0,test\n"
				   "timeslice,*,2,*,0.8,test: 20% lost to switching\n";
	static const char bad[] = "mode,gpu_model,n,class,efficiency,source\n"
				  "mps,*,1,*,1.0,test\n"
				  "mps,*,2,*,abc,test\n";
	char *a;

	(void)state;
	gs_test_write("one.csv", one, NULL, 0);
	gs_test_write("two.csv", two, NULL, 0);
	gs_test_write("ts80.csv", ts80, NULL, 0);
	gs_test_write("badtable.csv", bad, NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --db share.db --policy binpack "
				"--sharing timeslice:replicas=2 --interference ts80.csv"), 0);
	assert_non_null(strstr(out, "sharing: timeslice:replicas=2 (GPUs the cluster file leaves "
				    "unset), interference table: ts80.csv\n"));
	assert_non_null(strstr(out, "USEFUL%"));
	a = dump("share.db", "select name, t_start_s, t_end_s, coloc, duration_s from pods order by name");
	assert_string_equal(a, "A|0|250|2.0|100|\nB|0|250|2.0|100|\n");
	free(a);
	a = dump("share.db", "select r.sharing, n.sharing, r.eff_util_busy_pct, r.n_oversubscribed,"
			     " json_extract(r.params_json, '$.sharing') from runs r join run_nodes n"
			     " using (run_id)");
	assert_string_equal(a, "timeslice:replicas=2|timeslice:replicas=2|80.0|0|timeslice:replicas=2|\n");
	free(a);
	/* The SHA-256 of ts80.csv's bytes (sha256sum), not of the built-in table. */
	a = dump("share.db", "select interference_sha256 from runs");
	assert_string_equal(a, "985e1073ebffea8dd1ff3c59e5f42531cc119984cdafc31236a80acdd3948d81|\n");
	free(a);
	/* The built-in table: two time-sliced pods lose about 5% (nos, interpolated). */
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --db share.db --policy binpack "
				"--sharing timeslice:replicas=2 -q"), 0);
	a = dump("share.db", "select count(*) from runs where run_id = 2 and interference_sha256"
			     " <> (select interference_sha256 from runs where run_id = 1)");
	assert_string_equal(a, "1|\n");
	free(a);
	a = dump("share.db", "select t_end_s > 200 and t_end_s < 220 from pods where run_id = 2");
	assert_string_equal(a, "1|\n1|\n");
	free(a);
	/*
	 * --busy: two pods busy half their time ask for one GPU between them
	 * (B = 1, E(1) = 1 in ts80.csv): neither slows, both end at 100 s; the
	 * run records the spec.
	 */
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --db busy.db --policy binpack "
				"--sharing timeslice:replicas=2 --interference ts80.csv --busy 0.5"), 0);
	assert_non_null(strstr(out, "busy fractions of pods the trace leaves without one: 0.5\n"));
	a = dump("busy.db", "select name, t_end_s from pods order by name");
	assert_string_equal(a, "A|100|\nB|100|\n");
	free(a);
	a = dump("busy.db", "select json_extract(params_json, '$.busy') from runs");
	assert_string_equal(a, "0.5|\n");
	free(a);
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing timeslice "
				"--busy 1.5"), 2);
	assert_string_equal(out, "gpusim replay: --busy: busy spec '1.5': '1.5' is not a busy "
				 "fraction in (0, 1], genai or a distribution file (a name with '/' "
				 "or ending in .csv)\n");
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing timeslice "
				"--busy nothere.csv"), 2);
	assert_non_null(strstr(out, "gpusim replay: --busy: nothere.csv: cannot open"));
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db "
				"--sharing 'vgpu:capped;accuracy=1.5'"), 2);
	assert_non_null(strstr(out, "accuracy"));
	/* Without --sharing: ideal, as before the model; no table, no modes. */
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --db share.db --policy binpack -q"),
			 0);
	a = dump("share.db", "select r.sharing, r.interference_sha256 is null, n.sharing is null,"
			     " json_extract(r.params_json, '$.sharing') is null from runs r"
			     " join run_nodes n using (run_id) where run_id = 3");
	assert_string_equal(a, "ideal|1|1|1|\n");
	free(a);

	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing bogus"), 2);
	assert_string_equal(out, "gpusim replay: --sharing: 'bogus' is not a sharing mode (ideal, "
				 "exclusive, timeslice, mps, vgpu, mig)\n");
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db "
				"--sharing timeslice:replicas=0"), 2);
	assert_non_null(strstr(out, "replicas='0' is out of range (1 to 32)"));
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing mps "
				"--interference none.csv"), 2);
	assert_non_null(strstr(out, "gpusim replay: --interference: none.csv: cannot open"));
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing mps "
				"--interference badtable.csv"), 2);
	assert_string_equal(out, "gpusim replay: --interference: badtable.csv:3: column efficiency: "
				 "'abc' is not a decimal number\n");
	/* MIG on GPUs without it: exclusive, and said so. */
	assert_int_equal(gpusim("replay --nodes nodes.csv --pods pods.csv --no-db --sharing mig "
				"--policy binpack"), 0);
	assert_non_null(strstr(out, "sharing: 6 GPUs of models without MIG run exclusive\n"));
	assert_int_equal(gpusim("replay --nodes one.csv --pods two.csv --no-db --sharing mig "
				"--mode inflate --policy binpack"), 0);
	assert_non_null(strstr(out, "inflate mode: the modes decide where pods fit"));
	assert_null(strstr(out, "USEFUL%"));
}

/*
 * The build's `--man DIR` and `--completion SHELL [FILE]`: a shell it does
 * not know is a usage error that leaves FILE as it was (it used to empty
 * it before looking at the shell); bash and zsh write a script. --man
 * makes a missing DIR (it exited 1), and refuses a DIR too long for its
 * pages' paths (they were cut at 4096 bytes, and the pages written under
 * the cut name).
 */
static void test_docgen_options(void **state)
{
	char path[512], text[64] = "";
	FILE *f;

	(void)state;
	gs_test_write("keep.sh", "echo mine\n", path, sizeof(path));
	assert_int_equal(gpusim("--completion fish keep.sh"), 2);
	assert_string_equal(out, "gpusim: --completion: 'fish' is not 'bash' or 'zsh'\n");
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, "echo mine\n");
	assert_int_equal(gpusim("--completion"), 2);
	assert_non_null(strstr(out, "usage: gpusim --completion bash|zsh [FILE]"));
	assert_int_equal(gpusim("--completion zsh keep.sh && head -n 1 keep.sh"), 0);
	assert_string_equal(out, "#compdef gpusim\n");
	assert_int_equal(gpusim("--man"), 2);
	assert_non_null(strstr(out, "usage: gpusim --man DIR"));
	/* A missing DIR is made, parents too, like plot --out. */
	assert_int_equal(gpusim("--man new/man1 && ls new/man1 | grep -c '[.]1$'"), 0);
	assert_true(atoi(out) >= 10);
	/* DIR where a file is: a usage error naming it. */
	assert_int_equal(gpusim("--man keep.sh/man1"), 2);
	assert_string_equal(out, "gpusim: --man: keep.sh: cannot create: Not a directory\n");
	/* A DIR too long for the pages' paths is refused whole, not cut short. */
	assert_int_equal(gpusim("--man $(printf 'd%%.0s' $(seq 4090))"), 2);
	assert_non_null(strstr(out, "gpusim: --man: DIR is 4090 bytes long; the page paths under it "
				    "need at most 4095"));
	assert_int_equal(gpusim("ls | grep -c '^dddd' || true"), 0);
	assert_string_equal(out, "0\n");
}

/*
 * Output that cannot be written is a failure (1) with a message, not a
 * success: stdout on /dev/full, for a table, JSON and --help.
 */
/*
 * gpusim convert end to end: a spot node list and job list (written here
 * from the trace's published columns) to a JSON cluster and gpusim CSV
 * pods with a pod group, replayed and stored; records left out counted on
 * stderr; bad input exit 2 naming file, line and column, writing nothing;
 * a CSV cluster refused for models gpusim does not have, writing neither.
 */
static void test_convert(void **state)
{
	static const char nodes[] = "gpu_model,gpu_capacity_num,cpu_num,node_name\n"
				    "A10,1,128,0\n"
				    "H800,8,192,1\n"
				    "H800,8,192,2\n";
	static const char jobs[] = "job_name,organization,gpu_model,cpu_request,gpu_request,"
				   "worker_num,submit_time,duration,job_type\n"
				   "7,1,A10,4,1,1,0,600,HP\n"
				   "8,1,H800,16,4,3,30,900,Spot\n"
				   "9,1,H800,16,1,0,40,10,Spot\n";

	(void)state;
	gs_test_write("node_info_df.csv", nodes, NULL, 0);
	gs_test_write("job_info_df.csv", jobs, NULL, 0);
	assert_int_equal(gpusim("convert -f spot -m node_info_df.csv -j job_info_df.csv "
				"-o spot.json -p spot.csv"), 0);
	assert_non_null(strstr(out, "gpusim convert: job_info_df.csv: 1 jobs of 0 workers "
				    "(worker_num 0): left out\n"));
	assert_non_null(strstr(out, "gpusim convert: spot: 3 nodes with 17 GPUs"));
	assert_non_null(strstr(out, "gpusim convert: spot: 3 job records -> 4 pods, 1 pod groups "
				    "-> spot.csv\n"));
	assert_int_equal(gpusim_sh("cat spot.csv"), 0);
	assert_string_equal(out, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
				 "creation_time,deletion_time,class,gpu_need_milli,gpu_busy_milli,"
				 "gpu_compute_milli,pod_group\n"
				 "7,4000,0,1,1000,0,A10,0,600,hp,,,,\n"
				 "8-0,16000,0,4,1000,0,H800,30,930,spot,,,,8\n"
				 "8-1,16000,0,4,1000,0,H800,30,930,spot,,,,8\n"
				 "8-2,16000,0,4,1000,0,H800,30,930,spot,,,,8\n");
	/* The group of three 4-GPU pods needs both H800 nodes: it starts at 30, whole. */
	assert_int_equal(gpusim("replay --nodes spot.json --pods spot.csv --policy first-fit "
				"--db c.db -q"), 0);
	assert_int_equal(gpusim_sh("sqlite3 c.db 'select n_groups, n_groups_placed, "
				   "group_wait_mean_s, n_placed from run_summary; select count(*) "
				   "from pods where name like \"8-%%\" and t_start_s = 30'"), 0);
	assert_string_equal(out, "1|1|0.0|4\n3\n");

	/* Bad input: exit 2, the file, line and column, nothing written. */
	gs_test_write("bad.csv", "job_name,organization,gpu_model,cpu_request,gpu_request,"
		      "worker_num,submit_time,duration,job_type\n7,1,A10,4,1,1,0,600,LP\n", NULL, 0);
	assert_int_equal(gpusim("convert -f spot -m node_info_df.csv -j bad.csv -o x.json "
				"-p x.csv"), 2);
	assert_string_equal(out, "gpusim convert: bad.csv:2: column job_type: 'LP' is not HP or "
				 "Spot\n");
	assert_int_equal(gpusim_sh("ls x.json x.csv"), 2);
	/* H800 is not built in: a CSV cluster cannot record its memory; neither file is written. */
	assert_int_equal(gpusim("convert -f spot -m node_info_df.csv -j job_info_df.csv "
				"-o x.csv -p y.csv"), 2);
	assert_non_null(strstr(out, "is not built in, and a CSV cluster cannot record memory per "
				    "GPU: write a JSON cluster instead\n"));
	assert_int_equal(gpusim_sh("ls x.csv y.csv"), 2);
	assert_int_equal(gpusim("convert -f spot -j job_info_df.csv -o x.json"), 2);
	assert_string_equal(out, "gpusim convert: --jobs needs --pods-out\n");
	assert_int_equal(gpusim("convert -f nope -m node_info_df.csv -o x.json"), 2);
}

static void test_write_error_exits_1(void **state)
{
	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(gpusim("policies >/dev/full 2>err.txt; echo status=$?; cat err.txt"), 0);
	assert_string_equal(out, "status=1\ngpusim: cannot write the output: No space left on "
				 "device\n");
	assert_int_equal(gpusim("policies --json >/dev/full 2>/dev/null; echo status=$?"), 0);
	assert_string_equal(out, "status=1\n");
	assert_int_equal(gpusim("replay --help >/dev/full 2>/dev/null; echo status=$?"), 0);
	assert_string_equal(out, "status=1\n");
	/* A usage error keeps its 2. */
	assert_int_equal(gpusim("replay --mode warp >/dev/full 2>/dev/null; echo status=$?"), 0);
	assert_string_equal(out, "status=2\n");
	assert_int_equal(gpusim("policies >/dev/null"), 0);
}

/* --- Kubernetes snapshots (docs/kubernetes.md) --------------------------------- */

static void has(const char *text)
{
	if (!strstr(out, text))
		fail_msg("output lacks '%s':\n%s", text, out);
}

#define K8S GS_SOURCE_DIR "/traces/k8s/"

static void test_inspect_snapshot(void **state)
{
	(void)state;
	assert_int_equal(gpusim("inspect --state " K8S "cluster.yaml " K8S "web.yaml --raw "
				"-o NAME,MODEL,GPUS,FREE,CPU --nodes all"),
			 0);
	/* One line per node, its GPUs held as each mode counts them (docs/kubernetes.md). */
	has("ts-0 T4 500,0 1500 3/16\n");
	has("mps-0 A10 0 1000 0/7.9\n");
	has("mig-0 H100 428,0 1572 4/64\n");
	has("gpushare-0 V100M16 500,0 1500 1/32\n");
	has("hami-0 V100M32 300,0 1700 0/32\n");
	has("cpu-0 - - 0 6/32\n");
	assert_int_equal(gpusim("inspect --state " K8S "cluster.yaml " K8S "web.yaml -d"), 0);
	has("6 nodes, 9 GPUs, 6 running pods, 9 pending");
	has("ml/train-ts");
	has("4 pods made from workloads whose pods the snapshot lacks");
	has("1 finished pod (Succeeded or Failed) holds nothing and is left out");
	has("Pods running: 6 on 5 of 6 nodes; 1 idle node not shown (--nodes all shows it)\n");
	has("mig-0: mig-mixed, NVIDIA-H100-80GB-HBM3, from all-balanced");
	assert_int_equal(gpusim("inspect --state " K8S "dra.yaml"), 0);
	has("ml/llm-gpu");
	has("gpu=dra-0/gpu-0");
	has("ml/shared-ts                     (pending)        0 timeslice:replicas=2");
	/* A view option needs something to view. */
	assert_int_equal(gpusim("inspect --db x.db --details"), 2);
	has("gpusim inspect: --details needs --run ID or --state FILE...\n");
	assert_int_equal(gpusim("inspect --state " K8S "dra.yaml --at 5"), 2);
	has("--at is for a stored run");
}

static void test_replay_state(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --state " K8S "dra.yaml --policy binpack,spread --db s.db "
				"--check"),
			 0);
	has("binpack             6      4      0      2");
	has("spread              6      4      0      2");
	assert_int_equal(gpusim("inspect --db s.db"), 0);
	has("dra.yaml");
	/* A gpusim trace on top of the snapshot's cluster and queue. */
	assert_int_equal(gpusim("replay --state " K8S "cluster.yaml --pods " GS_SOURCE_DIR
				"/traces/sample/pods.csv --policy binpack --no-db -q"),
			 0);
	assert_int_equal(gpusim("replay --state " K8S "cluster.yaml --nodes x.csv --pods y.csv"), 2);
	has("--nodes and --state cannot be used together");
	assert_int_equal(gpusim("replay --pods y.csv"), 2);
	has("gpusim replay: --nodes and --pods are required, or --state; try 'gpusim replay "
	    "--help'\n");
	/* sweep takes it as replay does: the pending pods alone, or each --pods after them. */
	assert_int_equal(gpusim("sweep --state " K8S "dra.yaml --policy binpack,spread --seeds 1,2 "
				"--mode time --db sw.db"),
			 0);
	has("4 runs: 4 ran");
	assert_int_equal(gpusim("sweep --state " K8S "cluster.yaml --pods " GS_SOURCE_DIR
				"/traces/sample/pods.csv --policy binpack --seeds 1 --db sw.db"),
			 0);
	has("1 runs: 1 ran");
	assert_int_equal(gpusim("inspect --db sw.db"), 0);
	has("dra.yaml");
	has("pods.csv");
	assert_int_equal(gpusim("sweep --seeds 1 --db sw.db"), 2);
	has("gpusim sweep: --nodes and --pods are required, or --state");
}

static void test_bad_snapshot(void **state)
{
	static const char bad[] = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n"
				  "  allocatable: {cpu: \"8\", memory: 1.5Gx}\n";
	char path[512];

	(void)state;
	gs_test_write("bad.yaml", bad, NULL, 0);
	assert_int_equal(gpusim("replay --state bad.yaml --db never.db"), 2);
	assert_string_equal(out, "gpusim replay: bad.yaml:5: Node n1: status.allocatable[memory]: "
				 "'1.5Gx' has an unknown suffix (a quantity is a number with an "
				 "optional suffix: 500m, 2, 1.5Gi, 64Mi, 1e3)\n");
	/* Nothing stored: the database was never created. */
	snprintf(path, sizeof(path), "%s/never.db", gs_test_tmpdir());
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(gpusim("inspect --state bad.yaml"), 2);
	assert_int_equal(gpusim("inspect --state missing.yaml"), 2);
	has("missing.yaml: cannot open");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_option_table),
		cmocka_unit_test(test_bad_input_exits_2_and_writes_nothing),
		cmocka_unit_test(test_strict_refuses_impossible_pods),
		cmocka_unit_test(test_same_seed_same_rows),
		cmocka_unit_test(test_replay_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_out_of_memory),
		cmocka_unit_test(test_store_out_of_memory),
		cmocka_unit_test(test_replay_no_pods),
		cmocka_unit_test(test_replay_sharing),
		cmocka_unit_test(test_docgen_options),
		cmocka_unit_test(test_write_error_exits_1),
		cmocka_unit_test(test_convert),
		cmocka_unit_test(test_inspect_snapshot),
		cmocka_unit_test(test_replay_state),
		cmocka_unit_test(test_bad_snapshot),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
