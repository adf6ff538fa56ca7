/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_plan.c - sweeps beyond one process (store/plan.h): plans, claims,
 * merging databases, and `gpusim sweep --shard` / `gpusim merge` end to
 * end.
 *
 * Store level, with the runs of results_fixture.h: a plan's id; a claim
 * that is ours, taken by a live process, taken over from a dead one or a
 * stale one of another host, dropped when the run is stored; a merge that
 * copies, recognises an identical run, refuses one with other results
 * (and then copies nothing), and refuses another major schema; a plan's
 * missing runs. Command line, on the bundled sample trace: three shards
 * merged hold what one sweep makes, to the last digit; bad --shard values;
 * two sweeps at once on one database run every run once.
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/error.h"
#include "engine/bound.h"
#include "store/bounds.h"
#include "store/decision.h"
#include "store/merge.h"
#include "store/plan.h"
#include "store/results.h"
#include "results_fixture.h"
#include "tmpdir.h"

/* The first column of the first row of sql, as text ("NULL" for NULL). */
static const char *one(sqlite3 *db, const char *sql)
{
	static char buf[4096];
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	else
		snprintf(buf, sizeof(buf), "NULL");
	sqlite3_finalize(st);
	return buf;
}

static struct gs_db *open_db(const char *path)
{
	struct gs_db *db = NULL;
	char err[512] = "";

	if (gs_db_open(path, &db, err, sizeof(err)))
		fail_msg("gs_db_open: %s", err);
	return db;
}

static int64_t write_run(struct gs_db *db, struct rf_run *r)
{
	char err[512] = "";
	int64_t id = -1;

	if (gs_db_write_run(db, &r->info, &r->sim, &id, err, sizeof(err)))
		fail_msg("gs_db_write_run: %s", err);
	return id;
}

/* The key of the time-mode fixture with another seed. */
static struct gs_plan_cell fixture_key(uint64_t seed)
{
	struct gs_plan_cell c;

	memset(&c, 0, sizeof(c));
	c.policy = "binpack";
	c.pods_sha256 = RF_PODS_SHA;
	c.nodes_sha256 = RF_NODES_SHA;
	c.params_json = RF_PARAMS;
	c.pods_path = RF_PODS_PATH;
	c.seed = seed;
	return c;
}

static void test_plan_id(void **state)
{
	struct gs_plan_cell a[2] = { fixture_key(1), fixture_key(2) }, b[2];
	char x[65], y[65];

	(void)state;
	gs_plan_id(a, 2, x);
	assert_int_equal(strlen(x), 64);
	assert_int_equal(strspn(x, "0123456789abcdef"), 64);
	/* Paths are not part of a run's key, nor of the plan's id. */
	b[0] = a[0];
	b[1] = a[1];
	b[0].pods_path = "elsewhere/pods.csv";
	gs_plan_id(b, 2, y);
	assert_string_equal(x, y);
	/* Another order, or another seed, is another matrix. */
	b[0] = a[1];
	b[1] = a[0];
	gs_plan_id(b, 2, y);
	assert_string_not_equal(x, y);
	b[0] = a[0];
	b[1] = fixture_key(3);
	gs_plan_id(b, 2, y);
	assert_string_not_equal(x, y);
}

/* A pid that ran here and is gone now. */
static long dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	assert_true(p > 0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void test_claims(void **state)
{
	struct gs_db *db = open_db(rf_temp_db("claims"));
	sqlite3 *sq = gs_db_sqlite(db);
	struct gs_plan_cell k = fixture_key(42);
	struct rf_run r;
	char me[512], host[256], other[600], sql[1024], err[512];
	int64_t id = 0;

	(void)state;
	gs_claim_owner(me, sizeof(me));
	assert_int_equal(sscanf(me, "%255s", host), 1);
	assert_int_equal(gs_db_claim(db, &k, me, 0, &id, err, sizeof(err)), GS_CLAIM_OURS);
	assert_string_equal(one(sq, "SELECT count(*) FROM run_claims"), "1");
	/* Ours again: a claim is not held against its owner. */
	assert_int_equal(gs_db_claim(db, &k, me, 0, &id, err, sizeof(err)), GS_CLAIM_OURS);
	/* Another process sees it taken: this one is alive. */
	assert_int_equal(gs_db_claim(db, &k, "someone 1 1", 0, &id, err, sizeof(err)),
			 GS_CLAIM_TAKEN);

	/* A claim of a process of this host that is gone is taken over. */
	snprintf(other, sizeof(other), "%s %ld 1", host, dead_pid());
	snprintf(sql, sizeof(sql), "UPDATE run_claims SET owner = '%s'", other);
	assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_db_claim(db, &k, "someone 1 1", 0, &id, err, sizeof(err)),
			 GS_CLAIM_OURS);
	assert_string_equal(one(sq, "SELECT owner FROM run_claims"), "someone 1 1");

	/* Another host's: held until it is older than the limit (0: forever). */
	snprintf(sql, sizeof(sql), "UPDATE run_claims SET owner = 'far-away 7 7',"
		 " claimed_unix = %lld", (long long)time(NULL) - 100);
	assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_db_claim(db, &k, me, 0, &id, err, sizeof(err)), GS_CLAIM_TAKEN);
	assert_int_equal(gs_db_claim(db, &k, me, 3600, &id, err, sizeof(err)), GS_CLAIM_TAKEN);
	assert_int_equal(gs_db_claim(db, &k, me, 50, &id, err, sizeof(err)), GS_CLAIM_OURS);

	/* Storing the run ends its claim; the next claimant finds it done. */
	rf_build_time(&r);
	r.info.seed = 42;
	assert_int_equal(write_run(db, &r), 1);
	assert_string_equal(one(sq, "SELECT count(*) FROM run_claims"), "0");
	assert_int_equal(gs_db_claim(db, &k, "someone 1 1", 0, &id, err, sizeof(err)),
			 GS_CLAIM_DONE);
	assert_int_equal(id, 1);

	/* A sweep that stops drops what it still holds, and only that. */
	k.seed = 43;
	assert_int_equal(gs_db_claim(db, &k, me, 0, &id, err, sizeof(err)), GS_CLAIM_OURS);
	k.seed = 44;
	assert_int_equal(gs_db_claim(db, &k, "someone 1 1", 0, &id, err, sizeof(err)),
			 GS_CLAIM_OURS);
	assert_int_equal(gs_db_release_claims(db, me, err, sizeof(err)), 0);
	assert_string_equal(one(sq, "SELECT group_concat(seed) FROM run_claims"), "44");

	rf_release(&r);
	gs_db_close(db);
}

/* Which plan rows missing() was told of, as "cell,seed;" text. */
static int note_missing(void *arg, const char *plan_id, int64_t cell,
			const struct gs_plan_cell *c)
{
	char *buf = arg;

	(void)plan_id;
	snprintf(buf + strlen(buf), 256 - strlen(buf), "%lld,%llu;", (long long)cell,
		 (unsigned long long)c->seed);
	return 0;
}

static void test_merge(void **state)
{
	char a_path[512], b_path[512], c_path[512], err[1024] = "", plan_id[65], missing[256] = "";
	struct gs_plan_cell plan[3] = { fixture_key(1), fixture_key(2), fixture_key(3) };
	struct gs_plan_status *ps = NULL;
	struct gs_merge_stats st;
	struct gs_db *a, *b, *c;
	struct rf_run r;
	size_t n = 0;

	(void)state;
	snprintf(a_path, sizeof(a_path), "%s", rf_temp_db("merge-a"));
	snprintf(b_path, sizeof(b_path), "%s", rf_temp_db("merge-b"));
	a = open_db(a_path);
	b = open_db(b_path);
	rf_build_time(&r);
	/* a: seed 1. b: seed 1 (the same run, computed again) and seed 2; its plan has 1, 2, 3. */
	r.info.seed = 1;
	write_run(a, &r);
	write_run(b, &r);
	r.info.seed = 2;
	write_run(b, &r);
	gs_plan_id(plan, 3, plan_id);
	assert_int_equal(gs_db_add_plan(b, plan_id, plan, 3, err, sizeof(err)), 0);
	/* Recording it again changes nothing. */
	assert_int_equal(gs_db_add_plan(b, plan_id, plan, 3, err, sizeof(err)), 0);
	assert_string_equal(one(gs_db_sqlite(b), "SELECT count(*) FROM sweep_plans"), "3");
	gs_db_close(b);

	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.copied, 1);
	assert_int_equal(st.identical, 1);
	assert_int_equal(st.plan_cells, 3);
	/* Every row of the copied run came along, under its new id. */
	assert_string_equal(one(gs_db_sqlite(a), "SELECT group_concat(run_id || ':' || seed)"
						 " FROM (SELECT * FROM runs ORDER BY run_id)"),
			    "1:1,2:2");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT (SELECT count(*) FROM pods WHERE run_id = 2)"
						 " || ',' || (SELECT count(*) FROM samples WHERE run_id = 2)"
						 " || ',' || (SELECT count(*) FROM run_nodes WHERE run_id = 2)"
						 " || ',' || (SELECT count(*) FROM arrived_stats"
						 "  WHERE run_id = 2)"),
			    one(gs_db_sqlite(a), "SELECT (SELECT count(*) FROM pods WHERE run_id = 1)"
						 " || ',' || (SELECT count(*) FROM samples WHERE run_id = 1)"
						 " || ',' || (SELECT count(*) FROM run_nodes WHERE run_id = 1)"
						 " || ',' || (SELECT count(*) FROM arrived_stats"
						 "  WHERE run_id = 1)"));
	/* Merging it again copies nothing. */
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.copied, 0);
	assert_int_equal(st.identical, 2);

	/* The plan: seeds 1 and 2 present, cell 2 (seed 3) missing. */
	assert_int_equal(gs_db_plan_status(a, note_missing, missing, &ps, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ps[0].plan_id, plan_id);
	assert_int_equal(ps[0].cells, 3);
	assert_int_equal(ps[0].present, 2);
	assert_string_equal(missing, "2,3;");
	gs_plan_status_free(ps);

	/* The same key with another result: refused, and nothing of b is copied. */
	b = open_db(b_path);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "UPDATE runs SET n_events = n_events + 1"
				      " WHERE seed = 1", NULL, NULL, NULL), SQLITE_OK);
	r.info.seed = 5;
	write_run(b, &r);
	gs_db_close(b);
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), GS_EEXIST);
	assert_non_null(strstr(err, "has the key of run 1"));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "2");

	/* A database of another major version is refused. */
	snprintf(c_path, sizeof(c_path), "%s", rf_temp_db("merge-c"));
	c = open_db(c_path);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(c), "PRAGMA user_version = 2000", NULL, NULL,
				      NULL), SQLITE_OK);
	gs_db_close(c);
	assert_int_equal(gs_db_merge(a, c_path, &st, err, sizeof(err)), GS_ESCHEMA);
	/* And so is the output itself. */
	assert_int_equal(gs_db_merge(a, a_path, &st, err, sizeof(err)), GS_EINVAL);

	rf_release(&r);
	gs_db_close(a);
	unlink(a_path);
	unlink(b_path);
	unlink(c_path);
}

/*
 * Bounds and decisions come along. a holds runs 1 (seed 7) and 2 (seed
 * 1); b holds run 1 (seed 1, the same as a's run 2), run 2 (seed 2, copied
 * as a's run 3) and run 3 (seed 3, still being written, not copied). b's
 * first decision rests on its runs 1 and 2, so in a it must rest on runs 2
 * and 3, in decision_runs and in its verdict_json; its second rests on
 * run 3 and is left out. A second merge adds nothing.
 */
static void test_merge_records(void **state)
{
	char a_path[512], b_path[512], err[1024] = "";
	struct gs_merge_stats st;
	struct gs_db *a, *b;
	struct rf_run r;
	const struct gs_decision_record rec = {
		.nodes_path = "nodes.csv", .nodes_sha256 = "n0", .objective = "completion",
		.constraints = "", .targets = "", .baseline = "exclusive + binpack",
		.alpha = 0.05, .conf = 0.95, .verdict = "run binpack",
		.verdict_json = "{\"verdicts\": [{\"runs\": [{\"seed\": 1, \"run_id\": 1},"
				" {\"seed\": 2, \"run_id\": 2}]}], \"runs\": {\"total\": 2}}",
	}, rec2 = {
		.nodes_path = "nodes.csv", .nodes_sha256 = "n0", .objective = "wait",
		.constraints = "", .targets = "", .baseline = "exclusive + binpack",
		.alpha = 0.05, .conf = 0.95, .verdict = "run spread",
		.verdict_json = "{\"verdicts\": [{\"runs\": [{\"seed\": 3, \"run_id\": 3}]}]}",
	};
	const struct gs_decision_run runs[] = {
		{ 1, "candidate", "pods.csv", NAN, "binpack", "exclusive", 1, -1 },
		{ 2, "reference", "pods.csv", NAN, "binpack", "exclusive", 2, -1 },
	}, runs2[] = { { 3, "candidate", "pods.csv", NAN, "spread", "exclusive", 3, -1 } };
	const struct gs_bound_info bi = {
		.pods_path = "pods.csv", .pods_sha256 = "p0", .nodes_path = "nodes.csv",
		.nodes_sha256 = "n0", .seed = 1, .inflate = 1.5, .methods = GS_BOUND_LP,
		.n_nodes = 2, .gpu_milli = 16000, .n_arrivals = 40, .wall_ms = 3,
	};
	struct gs_bound_point pts[2] = {
		{ .arrived_pct = 50, .n_samples = 20, .n_pods = 20, .arrived_gpu_milli = 8000,
		  .aggregate_milli = 8000, .lp_milli = 7500, .unalloc_pct_min = 53.125,
		  .aggregate_unalloc_pct_min = 50, .lp_unalloc_pct_min = 53.125,
		  .exact_unalloc_pct_min = NAN, .method = "lp" },
		{ .arrived_pct = 100, .n_samples = 20, .n_pods = 40, .arrived_gpu_milli = 16000,
		  .aggregate_milli = 16000, .lp_milli = 15000, .unalloc_pct_min = 6.25,
		  .aggregate_unalloc_pct_min = 0, .lp_unalloc_pct_min = 6.25,
		  .exact_unalloc_pct_min = NAN, .method = "lp" },
	};

	(void)state;
	snprintf(a_path, sizeof(a_path), "%s", rf_temp_db("merge-rec-a"));
	snprintf(b_path, sizeof(b_path), "%s", rf_temp_db("merge-rec-b"));
	a = open_db(a_path);
	b = open_db(b_path);
	rf_build_time(&r);
	r.info.seed = 7;
	write_run(a, &r);
	r.info.seed = 1;
	write_run(a, &r);
	write_run(b, &r);
	r.info.seed = 2;
	write_run(b, &r);
	r.info.seed = 3;
	write_run(b, &r);
	assert_int_equal(gs_decision_add(b, &rec, runs, 2, NULL, err, sizeof(err)), 0);
	assert_int_equal(gs_decision_add(b, &rec2, runs2, 1, NULL, err, sizeof(err)), 0);
	/* Run 3 as an interrupted writer leaves it (its decision can only be older). */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "UPDATE runs SET status = 'writing',"
				      " rows_checksum = NULL WHERE run_id = 3", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(gs_bounds_write(b, &bi, pts, 2, NULL, err, sizeof(err)), 0);
	gs_db_close(b);

	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.copied, 1);
	assert_int_equal(st.identical, 1);
	assert_int_equal(st.bounds, 1);
	assert_int_equal(st.decisions, 1);
	assert_int_equal(st.decisions_left_out, 1);
	assert_string_equal(one(gs_db_sqlite(a), "SELECT group_concat(run_id || ':' || seed)"
						 " FROM (SELECT * FROM runs ORDER BY run_id)"),
			    "1:7,2:1,3:2");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT group_concat(role || ':' || run_id || ':'"
						 " || seed) FROM (SELECT * FROM decision_runs"
						 " ORDER BY run_id)"),
			    "candidate:2:1,reference:3:2");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT group_concat(j.value, ',') FROM decisions,"
						 " json_tree(verdict_json) j WHERE j.key = 'run_id'"),
			    "2,3");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT verdict || '|' || objective || '|'"
						 " || json_extract(verdict_json, '$.runs.total')"
						 " FROM decisions"),
			    "run binpack|completion|2");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT group_concat(arrived_pct || ':' || lp_milli"
						 " || ':' || unalloc_gpu_pct_min) FROM bounds"
						 " JOIN bound_points USING (bound_id)"
						 " WHERE pods_sha256 = 'p0' AND methods = 'aggregate,lp'"),
			    "50:7500:53.125,100:15000:6.25");

	/* Again: the runs are there, and so are the bound and the decision. */
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.copied, 0);
	assert_int_equal(st.bounds, 0);
	assert_int_equal(st.decisions, 0);
	assert_string_equal(one(gs_db_sqlite(a), "SELECT (SELECT count(*) FROM decisions) || ','"
						 " || (SELECT count(*) FROM bounds) || ','"
						 " || (SELECT count(*) FROM bound_points)"),
			    "1,1,2");

	/* A verdict_json that is not JSON is a damaged input: nothing of it is merged. */
	b = open_db(b_path);
	r.info.seed = 4;
	write_run(b, &r);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "UPDATE decisions SET verdict = 'changed',"
				      " verdict_json = '{\"runs\": [' WHERE decision_id = 1",
				      NULL, NULL, NULL), SQLITE_OK);
	gs_db_close(b);
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "decision 1: its verdict_json is not JSON; nothing was merged"));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "3");

	rf_release(&r);
	gs_db_close(a);
	unlink(a_path);
	unlink(b_path);
}

/*
 * Damaged inputs are refused before anything is copied: a table missing
 * (it was reported as an SQL syntax error in the output file), an index
 * that disagrees with its table (SQLite's integrity check), and a run
 * with fewer pod rows than its runs row says (copied in part before).
 */
static void test_merge_damaged(void **state)
{
	char a_path[512], b_path[512], err[1024] = "";
	struct gs_merge_stats st;
	struct gs_db *a, *b;
	struct rf_run r;

	(void)state;
	snprintf(a_path, sizeof(a_path), "%s", rf_temp_db("damaged-a"));
	snprintf(b_path, sizeof(b_path), "%s", rf_temp_db("damaged-b"));
	a = open_db(a_path);
	rf_build_time(&r);
	r.info.seed = 7;

	/*
	 * A value changed behind gpusim's back, which SQLite's integrity check
	 * cannot see: the run's checksum can (a shard with bits flipped in
	 * its values merged with exit 0 before).
	 */
	b = open_db(b_path);
	write_run(b, &r);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "UPDATE pods SET wait_s = wait_s + 1"
				      " WHERE pod_idx = 1", NULL, NULL, NULL), SQLITE_OK);
	gs_db_close(b);
	assert_int_equal(gs_db_merge_check(b_path, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, ": run 1 is damaged: its rows no longer match the checksum"));
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "nothing of it was merged"));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "0");

	/*
	 * Fewer pod rows than n_pods in a run without a checksum (stored before
	 * schema 1.7): the run is not copied in part.
	 */
	unlink(b_path);
	b = open_db(b_path);
	write_run(b, &r);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "DELETE FROM pods WHERE pod_idx = 0;"
				      " UPDATE runs SET rows_checksum = NULL", NULL, NULL, NULL),
			 SQLITE_OK);
	gs_db_close(b);
	assert_int_equal(gs_db_merge_check(b_path, err, sizeof(err)), 0);
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, ": run 1 is damaged: "));
	assert_non_null(strstr(err, " rows in pods where its runs row says "));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "0");
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM run_nodes"), "0");

	/* A table missing. */
	unlink(b_path);
	b = open_db(b_path);
	write_run(b, &r);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(b), "DROP TABLE arrived_stats", NULL, NULL,
				      NULL), SQLITE_OK);
	gs_db_close(b);
	assert_int_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, ": has no table arrived_stats, which every gpusim database "
				    "has"));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "0");

	/* A file cut short: pages the schema points to are gone. */
	unlink(b_path);
	b = open_db(b_path);
	for (r.info.seed = 10; r.info.seed < 14; r.info.seed++)
		write_run(b, &r);
	gs_db_close(b);
	{
		struct stat sb;

		assert_int_equal(stat(b_path, &sb), 0);
		assert_true(sb.st_size > 8 * 4096);
		assert_int_equal(truncate(b_path, sb.st_size / 2), 0);
	}
	assert_int_not_equal(gs_db_merge(a, b_path, &st, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "damaged"));
	assert_string_equal(one(gs_db_sqlite(a), "SELECT count(*) FROM runs"), "0");
	rf_release(&r);
	gs_db_close(a);
	unlink(a_path);
	unlink(b_path);
}

/* --- the command line -------------------------------------------------------------- */

/* Runs gpusim with args in the test's directory; returns the exit status, output in out. */
static int gpusim(const char *args, char *out, size_t out_len)
{
	char cmd[4096];
	FILE *f;
	size_t n = 0;
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s 2>&1", gs_test_tmpdir(), GS_GPUSIM_BIN,
		 args);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (out && out_len) {
		n = fread(out, 1, out_len - 1, f);
		out[n] = '\0';
	} else {
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), f) > 0)
			;
	}
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define SAMPLE "--nodes " GS_SOURCE_DIR "/traces/sample/cluster.csv --pods " \
	       GS_SOURCE_DIR "/traces/sample/pods.csv --mode time --policy binpack,spread,fgd" \
	       " --seeds 1-4"

static const char summary_sql[] =
	"SELECT group_concat(x, ';') FROM (SELECT policy || ',' || seed || ','"
	" || printf('%!.17g,%!.17g,%!.17g', gpu_alloc_pct, mean_wait_s, slowdown_mean)"
	" || ',' || peak_pending || ',' || wait_p99_s AS x FROM run_summary"
	" ORDER BY policy, seed)";

static char *summary(const char *path)
{
	sqlite3 *db;
	char *s;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	s = strdup(one(db, summary_sql));
	sqlite3_close(db);
	return s;
}

static void test_cli_shards(void **state)
{
	char out[8192], p[512], *all, *merged;
	int k;

	(void)state;
	assert_int_equal(gpusim("sweep " SAMPLE " --db all.db -q --jobs 2", out, sizeof(out)), 0);
	for (k = 1; k <= 3; k++) {
		char args[1024];

		snprintf(args, sizeof(args), "sweep " SAMPLE " --shard %d/3 --db s%d.db --jobs 1", k,
			 k);
		assert_int_equal(gpusim(args, out, sizeof(out)), 0);
		/* 12 runs: cells k-1, k+2, k+5, k+8. */
		assert_non_null(strstr(out, "12 runs: 4 ran, 0 already in"));
		assert_non_null(strstr(out, "8 left to the other shards of 3"));
	}
	assert_int_equal(gpusim("merge merged.db s1.db s2.db", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "12 runs, 8 in merged.db, 4 missing"));
	assert_non_null(strstr(out, "missing: plan"));
	assert_int_equal(gpusim("merge merged.db s3.db s2.db", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "s3.db: 4 runs: 4 copied, 0 already in merged.db"));
	assert_non_null(strstr(out, "s2.db: 4 runs: 0 copied, 4 already in merged.db"));
	assert_non_null(strstr(out, "12 runs, 12 in merged.db, 0 missing"));
	/* The merged shards hold what one sweep makes, to the last digit. */
	gs_test_path("all.db", p, sizeof(p));
	all = summary(p);
	gs_test_path("merged.db", p, sizeof(p));
	merged = summary(p);
	assert_string_equal(merged, all);
	assert_int_equal(strchr(all, ';') != NULL, 1);
	free(all);
	free(merged);
	/* A sweep on the merged database has nothing left to do. */
	assert_int_equal(gpusim("sweep " SAMPLE " --db merged.db", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "12 runs: 0 ran, 12 already in merged.db"));
}

/* Complete plans are counted in one line once there are more than three of them. */
static void test_cli_merge_many_plans(void **state)
{
	char out[8192], args[1024];
	int k;

	(void)state;
	/* Five plans (one per seed, 3 policies each), merged into another database. */
	for (k = 1; k <= 5; k++) {
		snprintf(args, sizeof(args), "sweep " SAMPLE " --seeds %d --db many.db -q", k);
		assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	}
	assert_int_equal(gpusim("merge many-merged.db many.db", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "5 plans complete: 15 runs, all in many-merged.db"));
	assert_null(strstr(out, "plan "));
	/* A shard that misses runs is named even among many complete plans. */
	assert_int_equal(gpusim("sweep " SAMPLE " --seeds 9 --shard 1/3 --db part.db -q", out,
				sizeof(out)), 0);
	assert_int_equal(gpusim("merge many-merged.db part.db", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "5 plans complete: 15 runs, all in many-merged.db"));
	assert_non_null(strstr(out, "3 runs, 1 in many-merged.db, 2 missing"));
}

static void test_cli_errors(void **state)
{
	static const char *const bad[] = { "0/3", "4/3", "1/0", "x", "1/", "/2", "-1/2", "1/2x" };
	char out[4096], args[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "sweep " SAMPLE " --shard '%s' --db e.db", bad[i]);
		assert_int_equal(gpusim(args, out, sizeof(out)), 2);
		assert_non_null(strstr(out, "is not K/N with 1 <= K <= N"));
	}
	assert_int_equal(gpusim("merge only.db", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "give OUT IN..."));
	assert_int_equal(gpusim("merge out.db no-such.db", out, sizeof(out)), 2);
}

/* Two sweeps at once on one database: every run stored once, both complete. */
static void test_cli_concurrent(void **state)
{
	static char oa[16384], ob[16384];
	char cmd[4096], p[512];
	sqlite3 *db;
	FILE *a, *b;
	int sa, sb;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' sweep " SAMPLE " --seeds 1-8 --db both.db"
		 " --jobs 1 2>&1", gs_test_tmpdir(), GS_GPUSIM_BIN);
	a = popen(cmd, "r");
	b = popen(cmd, "r");
	assert_non_null(a);
	assert_non_null(b);
	oa[fread(oa, 1, sizeof(oa) - 1, a)] = '\0';
	ob[fread(ob, 1, sizeof(ob) - 1, b)] = '\0';
	sa = pclose(a);
	sb = pclose(b);
	if (!WIFEXITED(sa) || WEXITSTATUS(sa) != 0 || !WIFEXITED(sb) || WEXITSTATUS(sb) != 0)
		fail_msg("sweeps exited %d and %d:\n%s\n%s", sa, sb, oa, ob);
	gs_test_path("both.db", p, sizeof(p));
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_string_equal(one(db, "SELECT count(*) || ' ' || count(DISTINCT policy || seed)"
				    " FROM runs WHERE status = 'complete'"), "24 24");
	assert_string_equal(one(db, "SELECT count(*) FROM run_claims"), "0");
	sqlite3_close(db);
}

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-plan");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_id),
		cmocka_unit_test(test_claims),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_records),
		cmocka_unit_test(test_merge_damaged),
		cmocka_unit_test(test_cli_shards),
		cmocka_unit_test(test_cli_merge_many_plans),
		cmocka_unit_test(test_cli_errors),
		cmocka_unit_test(test_cli_concurrent),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
