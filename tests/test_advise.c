/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_advise.c - `gpusim advise` end to end, on clusters and traces made
 * so that the right verdict follows by hand from memory and whole-GPU
 * arithmetic, not from the rate model's figures:
 *   mig_wins         pods of 0.3 GPU and 30 GiB on H100s at 40 % load:
 *                    MIG holds two per GPU (3g.40gb each), exclusive one
 *                    (it queues), time-slicing four, whose memory
 *                    (4 x 30 GiB > 80) fails pods, MPS none (30 GiB above
 *                    its 20 GiB pinned limit);
 *   exclusive_wins   pods of a whole GPU and 70 GiB: time-slicing fails
 *                    them on memory, MPS never starts them, vgpu and MIG
 *                    hold one per GPU as exclusive does and can at best
 *                    match it (a pod never runs faster than alone);
 *   tie              binpack and spread on one node of whole-GPU pods
 *                    place alike: no significant difference, more seeds
 *                    run up to --max-seeds, and the verdict says so;
 *   capacity         a pod every 100 s for 999 s needs exactly 10 GPUs:
 *                    5 nodes of 2 GPUs (scaling), or 4 one-GPU nodes added
 *                    to 3 nodes of 2;
 *   bad input        exit 2 naming the option, before anything is stored.
 * And the decision record: the runs it names hold the figures it reports;
 * a second advise finds every run and says the same.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "io/path.h"
#include "tmpdir.h"

static char out_buf[1 << 20];

/* Runs gpusim with args, stdout into out_buf (stderr into err.txt). Returns the exit status. */
static int gpusim(const char *args)
{
	char cmd[8192], path[512];
	FILE *f;
	size_t n;
	int st;

	gs_test_path("out.txt", path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "'%s' advise %s >'%s' 2>'%s/err.txt'", GS_GPUSIM_BIN, args, path,
		 gs_test_tmpdir());
	st = system(cmd);
	f = fopen(path, "r");
	n = f ? fread(out_buf, 1, sizeof(out_buf) - 1, f) : 0;
	out_buf[n] = '\0';
	if (f)
		fclose(f);
	if (getenv("GS_TEST_VERBOSE"))
		fprintf(stderr, "%s\n", cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The stderr of the last gpusim() (static buffer). */
static const char *err_text(void)
{
	static char buf[65536];
	char path[512];
	FILE *f;
	size_t n;

	gs_test_path("err.txt", path, sizeof(path));
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static int setup(void **st)
{
	(void)st;
	if (access(GS_GPUSIM_BIN, X_OK) != 0)
		return -1;
	return gs_test_tmpdir_make("test-advise");
}

/* n nodes of g GPUs of model (NULL: CPU only), into file name. */
static void write_nodes(const char *name, int n, int g, const char *model, char *path,
			size_t len)
{
	char text[8192];
	size_t o = 0;
	int i;

	o += (size_t)snprintf(text, sizeof(text), "name,cpu_milli,memory_mib,num_gpu,gpu_model\n");
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "n%02d,256000,2097152,%d,%s\n", i,
				      g, model ? model : "");
	gs_test_write(name, text, path, len);
}

/* n pods of ngpu x milli and mem MiB, duration d, arriving every gap s. */
static void write_pods(const char *name, int n, int ngpu, int milli, int mem, int d, int gap,
		       char *path, size_t len)
{
	static char text[1 << 18];
	size_t o = 0;
	int i;

	o += (size_t)snprintf(text, sizeof(text), "name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
				  "gpu_mem_mib,gpu_spec,creation_time,deletion_time\n");
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "p%04d,1000,4096,%d,%d,%d,,%d,%d\n",
				      i, ngpu, milli, mem, i * gap, i * gap + d);
	gs_test_write(name, text, path, len);
}

static cJSON *parse_out(void)
{
	cJSON *doc = cJSON_Parse(out_buf);

	if (!doc)
		fail_msg("not JSON: %.300s", out_buf);
	return doc;
}

static cJSON *verdict(cJSON *doc, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "verdicts"), i);
}

static const char *str(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The candidate object of sharing + policy in verdict v. */
static cJSON *cand(cJSON *v, const char *sharing, const char *policy)
{
	cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "candidates"))
		if (!strcmp(str(c, "sharing"), sharing) && !strcmp(str(c, "policy"), policy))
			return c;
	fail_msg("no candidate %s + %s", sharing, policy);
	return NULL;
}

static int64_t db_count(const char *db, const char *sql)
{
	sqlite3 *sq;
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(sq);
		return -1;
	}
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(sq);
	return n;
}

static void test_mig_wins(void **st)
{
	char nodes[512], pods[512], db[512], args[4096];
	cJSON *doc, *v, *c;

	(void)st;
	write_nodes("nodes.csv", 2, 8, "H100", nodes, sizeof(nodes));
	write_pods("pods.csv", 300, 1, 300, 30720, 3600, 60, pods, sizeof(pods));
	gs_test_path("a.db", db, sizeof(db));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive,timeslice,mps,mig --load 40 --seeds 1-3 --max-seeds 3 "
		 "--no-reference -j 2 --json", nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	doc = parse_out();
	v = verdict(doc, 0);
	assert_string_equal(str(cJSON_GetObjectItem(v, "best"), "sharing"), "mig");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(v, "separated")));
	/* Exclusive holds half as many pods per GPU: in, but it loses on waits. */
	c = cand(v, "exclusive", "binpack");
	assert_string_equal(str(c, "status"), "lost");
	assert_non_null(strstr(str(c, "reason"), "longer waits"));
	assert_true(num(cJSON_GetObjectItem(v, "gain"), "pct") < -10);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "gain"),
						     "significant")));
	/* Time-slicing fails pods on memory; MPS never starts a 30 GiB pod. */
	c = cand(v, "timeslice", "binpack");
	assert_string_equal(str(c, "out"), "unfinished");
	assert_non_null(strstr(str(c, "reason"), "failed on GPU memory"));
	assert_true(num(cJSON_GetObjectItem(c, "figures"), "n_oversubscribed") > 0);
	c = cand(v, "mps", "binpack");
	assert_string_equal(str(c, "out"), "unfinished");
	assert_float_equal(num(cJSON_GetObjectItem(c, "figures"), "n_pending"), 300, 0);
	assert_non_null(strstr(str(c, "reason"), "MPS pinned limit"));
	cJSON_Delete(doc);
	/* The record: one decision, its candidate runs in the database. */
	assert_int_equal(db_count(db, "SELECT count(*) FROM decisions"), 1);
	assert_int_equal(db_count(db, "SELECT count(*) FROM decision_runs d JOIN runs r "
				      "USING (run_id) WHERE r.status = 'complete'"), 4 * 3);
	/* The warnings before any run: MPS strands every pod. */
	assert_non_null(strstr(err_text(), "under --sharing mps, 300 pods fit on no node"));
}

static void test_exclusive_wins(void **st)
{
	char nodes[512], pods[512], db[512], args[4096];
	cJSON *doc, *v, *c, *best;

	(void)st;
	write_nodes("nodes.csv", 2, 4, "H100", nodes, sizeof(nodes));
	write_pods("pods.csv", 120, 1, 1000, 71680, 1800, 60, pods, sizeof(pods));
	gs_test_path("b.db", db, sizeof(db));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack,spread "
		 "--load 70 --seeds 1-3 --max-seeds 3 --no-reference -j 2 --json", nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	doc = parse_out();
	v = verdict(doc, 0);
	best = cJSON_GetObjectItem(v, "best");
	assert_string_equal(str(best, "sharing"), "exclusive");
	/* vgpu and MIG hold one pod per GPU too: they match exclusive at best, never beat it. */
	c = cand(v, "vgpu", "binpack");
	assert_true(num(c, "mean") >= num(cand(v, "exclusive", str(best, "policy")), "mean"));
	c = cand(v, "mig", "binpack");
	assert_true(num(c, "mean") >= num(cand(v, "exclusive", str(best, "policy")), "mean"));
	c = cand(v, "timeslice", "spread");
	assert_string_equal(str(c, "out"), "unfinished");
	assert_true(num(cJSON_GetObjectItem(c, "figures"), "n_oversubscribed") > 0);
	c = cand(v, "mps", "spread");
	assert_string_equal(str(c, "out"), "unfinished");
	cJSON_Delete(doc);
}

static void test_tie(void **st)
{
	char nodes[512], pods[512], db[512], args[4096];
	cJSON *doc, *v, *c;

	(void)st;
	write_nodes("nodes.csv", 1, 8, "T4", nodes, sizeof(nodes));
	write_pods("pods.csv", 200, 1, 1000, 0, 600, 30, pods, sizeof(pods));
	gs_test_path("c.db", db, sizeof(db));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack,spread "
		 "--sharing exclusive --load 90 --seeds 1-3 --max-seeds 6 --no-reference -j 2 "
		 "--json", nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	doc = parse_out();
	v = verdict(doc, 0);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(v, "separated")));
	assert_float_equal(num(v, "ties"), 1, 0);
	c = cand(v, "exclusive", "spread");
	assert_string_equal(str(c, "status"), "tie");
	assert_float_equal(num(cJSON_GetObjectItem(c, "vs_best"), "p"), 1, 1e-12);
	/* The tie asked for more seeds, up to --max-seeds, for both. */
	assert_float_equal(num(c, "seeds"), 6, 0);
	assert_float_equal(num(cand(v, "exclusive", "binpack"), "seeds"), 6, 0);
	assert_float_equal(num(cJSON_GetObjectItem(doc, "runs"), "rounds"), 1, 0);
	cJSON_Delete(doc);
	/* In words: the tie, and no significant difference. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack,spread "
		 "--sharing exclusive --load 90 --seeds 1-3 --max-seeds 6 --no-reference -j 2",
		 nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	assert_non_null(strstr(out_buf, "tie (no significant difference from the best): "
				       "exclusive + spread"));
	/* Everything was found: the second advise ran nothing. */
	assert_non_null(strstr(out_buf, "(0 ran, 12 already in"));
}

static void test_capacity(void **st)
{
	char nodes[512], pods[512], db[512], add[512], args[4096];
	cJSON *doc, *v, *z;

	(void)st;
	/* 8 nodes of 2 GPUs; at most 10 pods at once, each a whole GPU: 5 nodes are enough. */
	write_nodes("nodes.csv", 8, 2, "T4", nodes, sizeof(nodes));
	write_pods("pods.csv", 200, 1, 1000, 0, 999, 100, pods, sizeof(pods));
	gs_test_path("d.db", db, sizeof(db));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive --trace-times --seeds 1-2 --no-reference -j 2 --json "
		 "--target 'no pod waits longer than 0 s'", nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	doc = parse_out();
	v = verdict(doc, 0);
	z = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "capacity"), 0);
	assert_string_equal(str(z, "policy"), "binpack");
	assert_float_equal(num(z, "size"), 5, 0);
	assert_float_equal(num(z, "gpus"), 10, 0);
	cJSON_Delete(doc);
	/* The record holds the capacity runs: at 4 nodes (8 GPUs) some pod waited. */
	assert_true(db_count(db, "SELECT count(*) FROM decision_runs WHERE role = 'capacity'") > 0);
	assert_true(db_count(db, "SELECT min(s.wait_max_s) FROM decision_runs d JOIN run_summary s "
				 "USING (run_id) WHERE d.role = 'capacity' AND d.gpu_nodes = 4") > 0);
	assert_int_equal(db_count(db, "SELECT max(s.wait_max_s) FROM decision_runs d JOIN "
				      "run_summary s USING (run_id) WHERE d.role = 'capacity' AND "
				      "d.gpu_nodes = 5"), 0);
	/* The objective gpus: the GPUs each candidate needs, 10 at every seed. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive --trace-times --seeds 1-2 --no-reference -j 2 --json "
		 "--target 'no pod waits longer than 0 s' --objective gpus", nodes, pods, db);
	assert_int_equal(gpusim(args), 0);
	doc = parse_out();
	v = verdict(doc, 0);
	assert_float_equal(num(cand(v, "exclusive", "binpack"), "gpus_needed_mean"), 10, 0);
	assert_float_equal(num(cand(v, "exclusive", "binpack"), "mean"), 10, 0);
	cJSON_Delete(doc);
	/* Adding one-GPU nodes to 3 nodes of 2: four copies. */
	write_nodes("small.csv", 3, 2, "T4", nodes, sizeof(nodes));
	gs_test_write("one.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_model\n"
				 "extra,256000,2097152,1,T4\n", add, sizeof(add));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive --trace-times --seeds 1 --no-reference -j 2 "
		 "--target 'max wait <= 0 s' --add-nodes '%s'", nodes, pods, db, add);
	assert_int_equal(gpusim(args), 0);
	assert_non_null(strstr(out_buf, "the cluster + 4 x (1 node of 1 x T4): 10 GPUs"));
}

static void test_bad_input(void **st)
{
	char nodes[512], cpu[512], pods[512], big[512], db[512], args[4096];
	struct stat sb;

	(void)st;
	write_nodes("nodes.csv", 2, 2, "T4", nodes, sizeof(nodes));
	write_nodes("cpu.csv", 2, 0, NULL, cpu, sizeof(cpu));
	write_pods("pods.csv", 20, 1, 500, 0, 600, 60, pods, sizeof(pods));
	write_pods("big.csv", 20, 4, 1000, 0, 600, 60, big, sizeof(big));
	gs_test_path("bad.db", db, sizeof(db));
	/* A cluster without GPUs. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s'", cpu, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--nodes: "));
	assert_non_null(strstr(err_text(), "has no GPU"));
	/* A mechanism no GPU of the cluster can do. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --sharing mig", nodes,
		 pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--sharing: mig: no GPU of"));
	/* An objective that does not exist. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --objective fastest",
		 nodes, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--objective: 'fastest': no such objective"));
	/* Impossible targets: a negative bound; pods no node of the cluster can hold. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --target 'p99 wait <= "
		 "-1 min'", nodes, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--target: "));
	assert_non_null(strstr(err_text(), "can never hold"));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --target 'p99 wait <= "
		 "60 s'", nodes, big, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--target: "));
	assert_non_null(strstr(err_text(), "20 pods (the first, 'p0000') fit on no node"));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --target 'completion "
		 "<= 60 s'", nodes, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "take 600 s on average on their own"));
	/* A load the trace cannot offer (every pod at once offers less). */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --load 5000", nodes,
		 pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--load: load 5000%"));
	/* A cluster file that sets every GPU's mode leaves no mechanism to choose. */
	snprintf(args, sizeof(args), "--nodes '%s/traces/h100-mixed/cluster-mixed.csv' --pods "
		 "'%s' --db '%s'", GS_SOURCE_DIR, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "gives every GPU a sharing mode"));
	/* ideal is a reference, never a candidate. */
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --sharing ideal", nodes,
		 pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--sharing: ideal"));
	/* Nothing was stored: the database was never made. */
	assert_int_not_equal(stat(db, &sb), 0);
}

/* The default loads leave out a level a trace cannot offer, and say so; a given one is refused. */
static void test_default_loads(void **st)
{
	char nodes[512], pods[512], db[512], args[4096];
	cJSON *doc;

	(void)st;
	/* 4 GPUs; 7 pods of half a GPU all at once ask for 87.5 % of them: 95 % is out of reach. */
	write_nodes("nodes.csv", 2, 2, "T4", nodes, sizeof(nodes));
	write_pods("pods.csv", 7, 1, 500, 0, 600, 60, pods, sizeof(pods));
	gs_test_path("e.db", db, sizeof(db));
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive --seeds 1 --max-seeds 1 --no-reference -j 1 --json", nodes,
		 pods, db);
	assert_int_equal(gpusim(args), 0);
	assert_non_null(strstr(err_text(), "load 95% left out: "));
	assert_non_null(strstr(err_text(), "87.50% of the GPU capacity"));
	doc = parse_out();
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "verdicts")), 2);
	assert_float_equal(num(verdict(doc, 1), "load_pct"), 80, 0);
	cJSON_Delete(doc);
	snprintf(args, sizeof(args), "--nodes '%s' --pods '%s' --db '%s' --policy binpack "
		 "--sharing exclusive --seeds 1 --load 80,95", nodes, pods, db);
	assert_int_equal(gpusim(args), 2);
	assert_non_null(strstr(err_text(), "--load: load 95%"));
}

/* Distinct names for files of one name in different directories. */
static void test_path_names(void **st)
{
	const char *paths[] = { "a/x/pods.csv", "b/x/pods.csv", "c/other.csv", "a/x/pods.csv",
				"pods.json", "d/openb_pod_list_default.csv" };
	char *names[6];
	size_t i;

	(void)st;
	assert_int_equal(gs_path_names(paths, 6, "openb_pod_list_", names), 0);
	assert_string_equal(names[0], "a-x-pods");
	assert_string_equal(names[1], "b-x-pods");
	assert_string_equal(names[2], "other");
	assert_string_equal(names[3], "a-x-pods");
	assert_string_equal(names[4], "pods");
	assert_string_equal(names[5], "default");
	for (i = 0; i < 6; i++)
		free(names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_names),
		GS_TMPDIR_TEST(test_mig_wins, setup),
		GS_TMPDIR_TEST(test_exclusive_wins, setup),
		GS_TMPDIR_TEST(test_tie, setup),
		GS_TMPDIR_TEST(test_capacity, setup),
		GS_TMPDIR_TEST(test_bad_input, setup),
		GS_TMPDIR_TEST(test_default_loads, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
