/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_exec.c - the run layer's API as a new command uses it (run/batch.h,
 * run/exec.h), on a batch that is not a sweep's matrix: two traces, two
 * settings, policies and seeds mixed freely. Checks the cells' order is
 * the order runs are stored and numbered in, whatever the workers; that
 * the outcomes are the stored runs' figures; that the plan is recorded;
 * that a second execution finds every run done and an extended batch runs
 * only its new cells; that shards split the cells by index; that the
 * checks refuse, before anything is stored, a load a trace cannot offer
 * and options an input cannot take, but only for pairs a cell uses; and
 * the errors of bad execution options and of a database that cannot be
 * opened.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/error.h"
#include "run/batch.h"
#include "run/exec.h"
#include "run/inputs.h"
#include "run/ring.h"
#include "store/plan.h"
#include "tmpdir.h"

static char nodes_path[256], timed_path[256], cpu_path[256];

/*
 * 12 nodes of 4 GPUs; a timed trace of 80 pods of four shapes arriving
 * every 20 s; a trace of CPU-only pods, which inflate mode refuses.
 */
static int setup(void **st)
{
	static const int shapes[][3] = {
		/* cpu milli, num_gpu, gpu_milli */
		{ 4000, 1, 500 }, { 8000, 1, 1000 }, { 16000, 2, 1000 }, { 3000, 1, 250 },
	};
	FILE *f;
	int i;

	(void)st;
	if (gs_test_tmpdir_make("test-exec"))
		return -1;
	gs_test_path("nodes.csv", nodes_path, sizeof(nodes_path));
	gs_test_path("timed.csv", timed_path, sizeof(timed_path));
	gs_test_path("cpu.csv", cpu_path, sizeof(cpu_path));
	f = fopen(nodes_path, "w");
	if (!f)
		return -1;
	fprintf(f, "sn,cpu_milli,memory_mib,gpu,model\n");
	for (i = 0; i < 12; i++)
		fprintf(f, "node-%02d,64000,262144,4,%s\n", i, i % 2 ? "T4" : "V100M32");
	fclose(f);
	f = fopen(timed_path, "w");
	if (!f)
		return -1;
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		   "creation_time,deletion_time\n");
	for (i = 0; i < 80; i++) {
		const int *s = shapes[(i * 3 + i / 4) % 4];

		fprintf(f, "t-%03d,%d,8192,%d,%d,0,,%d,%d\n", i, s[0], s[1], s[2], i * 20,
			i * 20 + 300 + (i * 53) % 900);
	}
	fclose(f);
	f = fopen(cpu_path, "w");
	if (!f)
		return -1;
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		   "creation_time,deletion_time\n");
	for (i = 0; i < 10; i++)
		fprintf(f, "c-%02d,2000,4096,0,0,0,,%d,%d\n", i, i * 10, i * 10 + 50);
	fclose(f);
	return 0;
}

/* The first column of the first row of sql on db, as a double; NAN when there is none. */
static double query(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	double v = NAN;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* The inputs (the timed trace, then the CPU-only one) and two time-mode settings. */
struct fixture {
	struct gs_inputs in;
	struct gs_batch b;
	const char *pods[2];
};

static void fixture_init(struct fixture *fx)
{
	struct gs_replay_opts o;
	char err[1024];

	fx->pods[0] = timed_path;
	fx->pods[1] = cpu_path;
	gs_inputs_init(&fx->in);
	gs_batch_init(&fx->b);
	if (gs_inputs_load(&fx->in, nodes_path, fx->pods, 2, false, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(gs_inputs_add_to(&fx->in, &fx->b, nodes_path, fx->pods), 0);
	gs_replay_opts_init(&o);
	o.mode = GS_MODE_TIME;
	assert_int_equal(gs_batch_add_setting(&fx->b, &o), 0);
	o.time_scale = 4;
	assert_int_equal(gs_batch_add_setting(&fx->b, &o), 0);
}

static void fixture_release(struct fixture *fx)
{
	gs_batch_release(&fx->b);
	gs_inputs_release(&fx->in);
}

static void add(struct gs_batch *b, size_t input, size_t setting, const char *policy, uint64_t seed)
{
	struct gs_batch_cell c = { .input = input, .setting = setting, .seed = seed };

	c.policy = gs_policy_find(policy);
	assert_non_null(c.policy);
	assert_int_equal(gs_batch_add_cell(b, &c), 0);
}

/* Six runs, in an order no sweep would lay out. */
static void add_six(struct gs_batch *b)
{
	add(b, 0, 1, "fgd", 7);
	add(b, 0, 0, "binpack", 1);
	add(b, 1, 0, "spread", 3);
	add(b, 0, 0, "fgd", 2);
	add(b, 0, 1, "binpack", 1);
	add(b, 1, 1, "binpack", 5);
}

static struct gs_exec_opts exec_opts(const char *db, int jobs)
{
	struct gs_exec_opts xo = { .db_path = db, .jobs = jobs, .name = "test" };

	return xo;
}

static void test_batch_build(void **st)
{
	struct fixture fx;
	struct gs_batch_cell c = { .input = 0, .setting = 0, .seed = 1 };
	struct gs_replay_opts o;
	struct gs_plan_cell k;

	(void)st;
	fixture_init(&fx);
	assert_int_equal(fx.b.n_inputs, 2);
	assert_int_equal(fx.b.n_settings, 2);
	c.policy = NULL;
	assert_int_equal(gs_batch_add_cell(&fx.b, &c), GS_EINVAL);
	c.policy = gs_policy_find("binpack");
	c.input = 2;
	assert_int_equal(gs_batch_add_cell(&fx.b, &c), GS_EINVAL);
	c.input = 1;
	c.setting = 2;
	assert_int_equal(gs_batch_add_cell(&fx.b, &c), GS_EINVAL);
	assert_int_equal(fx.b.n_cells, 0);
	add_six(&fx.b);
	assert_int_equal(fx.b.n_cells, 6);

	/* Run 0: the timed trace, the second setting, fgd, seed 7. */
	k = gs_batch_key(&fx.b, 0);
	assert_string_equal(k.policy, "fgd");
	assert_int_equal(k.seed, 7);
	assert_string_equal(k.pods_path, timed_path);
	assert_string_equal(k.pods_sha256, fx.in.traces[0].sha256);
	assert_string_equal(k.nodes_path, nodes_path);
	assert_string_equal(k.nodes_sha256, fx.in.nodes_sha256);
	assert_string_equal(k.params_json, fx.b.params[1]);
	assert_non_null(strstr(k.params_json, "\"time_scale\":4"));
	o = gs_batch_opts(&fx.b, 0);
	assert_int_equal(o.seed, 7);
	assert_true(o.time_scale == 4);
	o = gs_batch_opts(&fx.b, 2);
	assert_int_equal(o.seed, 3);
	assert_true(o.time_scale == 1);
	k = gs_batch_key(&fx.b, 2);
	assert_string_equal(k.pods_path, cpu_path);
	assert_string_equal(k.pods_sha256, fx.in.traces[1].sha256);
	fixture_release(&fx);
}

/*
 * A load only the pairs a cell uses must offer, and options only the
 * inputs a cell gives them must take.
 */
static void test_batch_check(void **st)
{
	struct fixture fx;
	struct gs_replay_opts o;
	char err[1024], want[512];

	(void)st;
	fixture_init(&fx);
	add_six(&fx.b);
	assert_int_equal(gs_batch_check(&fx.b, err, sizeof(err)), 0);

	/* Setting 2: a load far above what the timed trace can offer. */
	gs_replay_opts_init(&o);
	o.mode = GS_MODE_TIME;
	o.load_pct = 100000;
	assert_int_equal(gs_batch_add_setting(&fx.b, &o), 0);
	assert_int_equal(gs_batch_check(&fx.b, err, sizeof(err)), 0);
	add(&fx.b, 0, 2, "binpack", 1);
	assert_int_equal(gs_batch_check(&fx.b, err, sizeof(err)), GS_EINVAL);
	snprintf(want, sizeof(want), "load 100000%%: %s: the pods offer at most", timed_path);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got '%s', want '%s...'", err, want);
	fixture_release(&fx);

	/* Inflate mode needs GPU requests: the CPU-only trace only fails when a cell pairs them. */
	fixture_init(&fx);
	add_six(&fx.b);
	gs_replay_opts_init(&o);
	o.mode = GS_MODE_INFLATE;
	assert_int_equal(gs_batch_add_setting(&fx.b, &o), 0);
	add(&fx.b, 0, 2, "fgd", 1);
	assert_int_equal(gs_batch_check(&fx.b, err, sizeof(err)), 0);
	add(&fx.b, 1, 2, "fgd", 1);
	assert_int_equal(gs_batch_check(&fx.b, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, cpu_path));
	fixture_release(&fx);
}

/*
 * Six runs on three workers: stored as runs 1 to 6 in the batch's order,
 * each outcome the stored run's figures; the plan recorded; then found
 * done; then two more cells, stored as 7 and 8.
 */
static void test_exec_order_and_resume(void **st)
{
	struct fixture fx;
	struct gs_exec_result r, again;
	struct gs_exec_opts xo;
	struct gs_plan_cell keys[6];
	char db[300], err[1024], sql[512], plan_id[65];
	size_t i;

	(void)st;
	gs_test_path("order.db", db, sizeof(db));
	xo = exec_opts(db, 3);
	fixture_init(&fx);
	add_six(&fx.b);
	if (gs_exec_batch(&fx.b, &xo, &r, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(r.n_cells, 6);
	assert_int_equal(r.n_ran, 6);
	assert_int_equal(r.n_skipped, 0);
	for (i = 0; i < 6; i++) {
		const struct gs_outcome *c = &r.cells[i];
		struct gs_plan_cell k = gs_batch_key(&fx.b, i);

		assert_int_equal(c->run_id, (int64_t)i + 1);
		assert_false(c->skipped);
		assert_false(isnan(c->wall_ms));
		snprintf(sql, sizeof(sql), "select seed from runs where run_id = %zu", i + 1);
		assert_true(query(db, sql) == (double)k.seed);
		snprintf(sql, sizeof(sql), "select count(*) from runs where run_id = %zu and "
			 "policy = '%s' and params_json = '%s'", i + 1, k.policy, k.params_json);
		assert_true(query(db, sql) == 1);
		snprintf(sql, sizeof(sql), "select mean_wait_s from run_summary where run_id = %zu",
			 i + 1);
		assert_true(fabs(query(db, sql) - c->fig[GS_FIG_WAIT_MEAN]) < 1e-9);
		snprintf(sql, sizeof(sql), "select n_failed from run_summary where run_id = %zu",
			 i + 1);
		assert_true(query(db, sql) == c->fig[GS_FIG_FAILED]);
		keys[i] = k;
	}
	/* The CPU-only trace's runs allocate no GPU. */
	assert_true(r.cells[2].fig[GS_FIG_ALLOC] == 0);
	gs_plan_id(keys, 6, plan_id);
	assert_string_equal(r.plan_id, plan_id);
	snprintf(sql, sizeof(sql), "select count(*) from sweep_plans where plan_id = '%s'",
		 plan_id);
	assert_true(query(db, sql) == 6);
	snprintf(sql, sizeof(sql), "select seed from sweep_plans where plan_id = '%s' and cell = 5",
		 plan_id);
	assert_true(query(db, sql) == 5);
	assert_true(query(db, "select count(*) from run_claims") == 0);

	/* Again, one worker: every run found done, with the same ids and figures. */
	xo.jobs = 1;
	if (gs_exec_batch(&fx.b, &xo, &again, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(again.n_ran, 0);
	assert_int_equal(again.n_skipped, 6);
	for (i = 0; i < 6; i++) {
		assert_true(again.cells[i].skipped);
		assert_int_equal(again.cells[i].run_id, r.cells[i].run_id);
		assert_true(fabs(again.cells[i].fig[GS_FIG_COMPL_MEAN] -
				 r.cells[i].fig[GS_FIG_COMPL_MEAN]) < 1e-9);
		assert_true(isnan(again.cells[i].wall_ms));
	}
	gs_exec_result_release(&again);

	/* Two more cells, one between the old ones' keys: only they run, as 7 and 8. */
	add(&fx.b, 0, 0, "spread", 9);
	add(&fx.b, 1, 0, "binpack", 9);
	if (gs_exec_batch(&fx.b, &xo, &again, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(again.n_ran, 2);
	assert_int_equal(again.n_skipped, 6);
	assert_int_equal(again.cells[6].run_id, 7);
	assert_int_equal(again.cells[7].run_id, 8);
	assert_true(query(db, "select count(*) from runs") == 8);
	gs_exec_result_release(&again);
	gs_exec_result_release(&r);
	fixture_release(&fx);
}

/* --shard 2/4 runs cells 1 and 5 only, and records the whole plan. */
static void test_exec_shard(void **st)
{
	struct fixture fx;
	struct gs_exec_result r;
	struct gs_exec_opts xo;
	char db[300], err[1024];
	size_t i;

	(void)st;
	gs_test_path("shard.db", db, sizeof(db));
	xo = exec_opts(db, 2);
	xo.shard_k = 2;
	xo.shard_n = 4;
	fixture_init(&fx);
	add_six(&fx.b);
	if (gs_exec_batch(&fx.b, &xo, &r, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(r.n_ran, 2);
	assert_int_equal(r.n_other_shards, 4);
	for (i = 0; i < 6; i++) {
		assert_int_equal(r.cells[i].other_shard, i % 4 != 1);
		assert_int_equal(r.cells[i].run_id, i == 1 ? 1 : i == 5 ? 2 : -1);
	}
	assert_true(query(db, "select count(*) from sweep_plans") == 6);
	gs_exec_result_release(&r);
	fixture_release(&fx);
}

/*
 * A failure recorded without a message still says what kind it was: the
 * sweep prints the ring's message, and an empty one read "gpusim sweep: ".
 */
static void test_ring_fail_message(void **st)
{
	struct gs_outcome cells[2];
	struct gs_ring r;
	size_t todo[2] = { 0, 1 };

	(void)st;
	memset(cells, 0, sizeof(cells));
	assert_int_equal(gs_ring_init(&r, 2, todo, 2, cells, false, NULL, "test"), 0);
	gs_ring_fail(&r, GS_ENOMEM, "");
	assert_int_equal(r.rc, GS_ENOMEM);
	assert_string_equal(r.err, gs_strerror(GS_ENOMEM));
	/* The first failure is kept. */
	gs_ring_fail(&r, GS_EDB, "later");
	assert_string_equal(r.err, gs_strerror(GS_ENOMEM));
	assert_null(gs_ring_take(&r));
	gs_ring_release(&r);
	assert_int_equal(gs_ring_init(&r, 1, todo, 1, cells, false, NULL, "test"), 0);
	gs_ring_fail(&r, GS_EDB, NULL);
	assert_string_equal(r.err, gs_strerror(GS_EDB));
	gs_ring_release(&r);
}

static void test_exec_errors(void **st)
{
	struct fixture fx;
	struct gs_exec_result r;
	struct gs_exec_opts xo;
	char err[1024], db[600];

	(void)st;
	fixture_init(&fx);
	add_six(&fx.b);
	gs_test_path("errors.db", db, sizeof(db));
	xo = exec_opts(db, 0);
	assert_int_equal(gs_exec_opts_check(&xo, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_exec_batch(&fx.b, &xo, &r, err, sizeof(err)), GS_EINVAL);
	assert_null(r.cells);
	xo = exec_opts(db, 1);
	xo.shard_k = 3;
	xo.shard_n = 2;
	assert_int_equal(gs_exec_batch(&fx.b, &xo, &r, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(err, "shard 3/2: K must be 1 to N");
	/* A database under a regular file: it cannot be made. */
	snprintf(db, sizeof(db), "%s/x.db", timed_path);
	xo = exec_opts(db, 1);
	assert_int_not_equal(gs_exec_batch(&fx.b, &xo, &r, err, sizeof(err)), 0);
	assert_non_null(strstr(err, timed_path));
	assert_null(r.cells);
	assert_int_equal(r.n_ran, 0);
	fixture_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_build),
		cmocka_unit_test(test_batch_check),
		cmocka_unit_test(test_exec_order_and_resume),
		cmocka_unit_test(test_exec_shard),
		cmocka_unit_test(test_exec_errors),
		cmocka_unit_test(test_ring_fail_message),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
