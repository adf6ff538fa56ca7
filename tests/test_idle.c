/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_idle.c - the idle GPU capacity split by reason (core/idle.h): each
 * category on nodes built by hand and bound with the allocator, the
 * tracker kept one node at a time against a full recount, and the run
 * metrics a replay derives from it (time averages over the arrival
 * window), every value worked out in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "core/idle.h"
#include "engine/replay.h"
#include "testutil.h"

static const struct gs_idle_job job_1x8 = { 1, 8000, 0 };

static void bind(struct gs_cluster *c, int32_t node, int32_t cpu, int32_t ngpu, int32_t milli,
		 const int *gpus)
{
	struct gs_pod p = tu_pod(cpu, 1024, ngpu, milli);
	struct gs_placement pl = tu_pl(node, ngpu, gpus);

	assert_int_equal(gs_cluster_bind(c, &p, &pl), 0);
}

static void expect(const struct gs_idle *v, int64_t frac, int64_t nocpu, int64_t stranded,
		   int64_t usable)
{
	assert_int_equal(v->frac_milli, frac);
	assert_int_equal(v->nocpu_milli, nocpu);
	assert_int_equal(v->stranded_milli, stranded);
	assert_int_equal(v->usable_milli, usable);
}

/*
 * n0: 4 GPUs, 32 cores. A pod of 0.3 GPU and 28 cores on GPU 0 leaves
 * 0.7 of it (fractional) and 3 whole GPUs, but 4 cores: short of CPU for
 * a job of 1 GPU and 8 cores (3000 nocpu).
 * n1: 2 GPUs, 16 cores, one taken whole with 2 cores: 1 whole GPU and 14
 * cores: usable for 1x8, stranded for a 2-GPU job.
 * n2: 2 GPUs, 16 cores, untouched: usable for both.
 * n3: no GPU: nothing idle.
 */
static void test_categories(void **state)
{
	static const int g0[] = { 0 }, g1[] = { 1 };
	struct gs_idle_job job_2x8 = { 2, 8000, 0 };
	struct gs_cluster c;
	struct gs_idle v, sum;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 4, "T4"), 0);
	assert_int_equal(gs_cluster_add_node(&c, "n1", 16000, 65536, 2, "T4"), 1);
	assert_int_equal(gs_cluster_add_node(&c, "n2", 16000, 65536, 2, "T4"), 2);
	assert_int_equal(gs_cluster_add_node(&c, "n3", 16000, 65536, 0, NULL), 3);
	bind(&c, 0, 28000, 1, 300, g0);
	bind(&c, 1, 2000, 1, 1000, g1);

	gs_idle_node(&c, 0, &job_1x8, &v);
	expect(&v, 700, 3000, 0, 0);
	gs_idle_node(&c, 1, &job_1x8, &v);
	expect(&v, 0, 0, 0, 1000);
	gs_idle_node(&c, 1, &job_2x8, &v);
	expect(&v, 0, 0, 1000, 0);
	gs_idle_node(&c, 2, &job_2x8, &v);
	expect(&v, 0, 0, 0, 2000);
	gs_idle_node(&c, 3, &job_1x8, &v);
	expect(&v, 0, 0, 0, 0);
	/* The four add up to the free GPU capacity: 10 GPUs less 1.3 in use. */
	gs_idle_cluster(&c, &job_2x8, &sum);
	expect(&sum, 700, 3000, 1000, 2000);
	assert_int_equal(sum.frac_milli + sum.nocpu_milli + sum.stranded_milli + sum.usable_milli,
			 c.gpu_free_milli);

	/* Memory short counts like CPU: a job of 100 GiB finds no node with it. */
	{
		struct gs_idle_job big = { 1, 1000, 102400 };

		gs_idle_cluster(&c, &big, &sum);
		expect(&sum, 700, 6000, 0, 0);
	}
	gs_cluster_release(&c);
}

/* The tracker, updated node by node, equals a recount after every change. */
static void test_tracker(void **state)
{
	struct gs_cluster c;
	struct gs_idle_track t;
	struct gs_placement pl[40];
	struct gs_pod p[40];
	struct gs_idle all;
	int i, k = 0;

	(void)state;
	gs_cluster_init(&c);
	for (i = 0; i < 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(gs_cluster_add_node(&c, name, 24000, 65536, 4, "T4"), i);
	}
	assert_int_equal(gs_idle_track_init(&t, &c, &job_1x8), 0);
	expect(&t.total, 0, 0, 0, 20000);
	for (i = 0; i < 40; i++) {
		int gpu = i % 4;

		p[i] = tu_pod(1000 + 500 * (i % 7), 1024, 1, 100 + 50 * (i % 5));
		pl[i] = tu_pl(i % 5, 1, &gpu);
		if (gs_cluster_fits(&c, i % 5, &p[i]) != GS_FIT_OK)
			continue;
		assert_int_equal(gs_cluster_bind(&c, &p[i], &pl[i]), 0);
		gs_idle_track_update(&t, &c, i % 5);
		gs_idle_cluster(&c, &job_1x8, &all);
		assert_memory_equal(&all, &t.total, sizeof(all));
		k++;
	}
	assert_true(k > 10);
	for (i = 39; i >= 0; i -= 3) {
		if (gs_cluster_unbind(&c, &p[i], &pl[i]) != 0)
			continue;
		gs_idle_track_update(&t, &c, i % 5);
		gs_idle_cluster(&c, &job_1x8, &all);
		assert_memory_equal(&all, &t.total, sizeof(all));
	}
	gs_idle_track_release(&t);
	gs_cluster_release(&c);
}

/*
 * A replay on one node of 2 GPUs and 16 cores, job 1 GPU x 8 cores:
 * A (0.5 GPU, 4 cores) from 0 to 100, B (1 GPU, 10 cores) from 50 to
 * 150, C (CPU only, 1 core) arriving at 100 for 1 s. Over the arrival
 * window [0, 100]:
 *   [0, 50)   GPU 0 half used, GPU 1 free, 12 cores: 500 fractional,
 *             1000 usable;
 *   [50, 100) B on GPU 1, 2 cores left: 500 fractional, nothing whole.
 * Means: fractional 500 milli of 2000 = 25 %, short of CPU and stranded 0.
 * With a 2-GPU job, [0, 50) has its whole GPU stranded: 1000 x 50 / 100
 * / 2000 = 25 %. With 1 GPU x 14 cores, the free GPU of [0, 50) is short
 * of CPU (12 cores): 25 % nocpu. The samples carry the state after each
 * event.
 */
static void test_replay_metrics(void **state)
{
	struct gs_replay_opts o;
	struct gs_summary s;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_pod a = tu_pod(4000, 1024, 1, 500), b = tu_pod(10000, 1024, 1, 1000);
	struct gs_pod cp = tu_pod(1000, 1024, 0, 0);
	char err[256] = "";
	int round;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 16000, 65536, 2, "T4"), 0);
	gs_trace_init(&t);
	a.t_create_s = 0;
	a.t_delete_s = 100;
	b.t_create_s = 50;
	b.t_delete_s = 150;
	cp.t_create_s = 100;
	cp.t_delete_s = 101;
	assert_int_equal(gs_trace_append(&t, "A", &a), 0);
	assert_int_equal(gs_trace_append(&t, "B", &b), 0);
	assert_int_equal(gs_trace_append(&t, "C", &cp), 0);
	for (round = 0; round < 3; round++) {
		gs_replay_opts_init(&o);
		o.check = true;
		if (round == 1)
			o.idle_job = (struct gs_idle_job){ 2, 8000, 0 };
		if (round == 2)
			o.idle_job = (struct gs_idle_job){ 1, 14000, 0 };
		assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("first-fit"), &o, err,
					     sizeof(err)), 0);
		assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
		gs_sim_summarize(&sim, &s);
		assert_true(fabs(s.idle_frac_pct - 25) < 1e-9);
		assert_true(fabs(s.idle_stranded_pct - (round == 1 ? 25 : 0)) < 1e-9);
		assert_true(fabs(s.idle_nocpu_pct - (round == 2 ? 25 : 0)) < 1e-9);
		/* After A's arrival: 500 fractional; after B's: still 500, nothing whole. */
		assert_int_equal(sim.samples[0].idle_frac_milli, 500);
		assert_int_equal(sim.samples[0].idle_stranded_milli, round == 1 ? 1000 : 0);
		assert_int_equal(sim.samples[1].idle_frac_milli, 500);
		assert_int_equal(sim.samples[1].idle_nocpu_milli, 0);
		gs_sim_release(&sim);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_tracker),
		cmocka_unit_test(test_replay_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
