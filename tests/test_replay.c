/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_replay.c - the event engine on traces small enough to work out by
 * hand: arrival, FIFO waiting, departure and retry, bounded waits, the
 * time scale, inflate mode (with a pod jumping over the 100 % bucket), the
 * summary figures, and determinism.
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
#include "engine/replay.h"
#include "testutil.h"

/* A pod of one GPU share arriving at t and running for d seconds (d < 0: never leaves). */
static void add(struct gs_trace *t, const char *name, int32_t milli, int64_t at, int64_t d)
{
	struct gs_pod p = tu_pod(1000, 1024, milli ? 1 : 0, milli);

	p.t_create_s = at;
	p.t_delete_s = d < 0 ? -1 : at + d;
	assert_int_equal(gs_trace_append(t, name, &p), 0);
}

static void one_gpu_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "n0", 32000, 65536, 1, "T4"), 0);
}

static struct gs_replay_opts time_opts(void)
{
	struct gs_replay_opts o;

	gs_replay_opts_init(&o);
	o.check = true;
	return o;
}

static void run(struct gs_sim *sim, const struct gs_cluster *c, const struct gs_trace *t,
		const char *policy, const struct gs_replay_opts *o)
{
	char err[256] = "";

	assert_int_equal(gs_sim_init(sim, c, t, gs_policy_find(policy), o, err, sizeof(err)), 0);
	assert_int_equal(gs_sim_run(sim, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/*
 * One T4. A takes the whole GPU for t=0..100. B (0.5, from 10 for 50 s)
 * and C (0.5, from 20 for 10 s) wait; at 100 both fit and start in FIFO
 * order: B ends at 150, C at 110.
 */
static void test_wait_and_retry(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_summary s;

	(void)state;
	one_gpu_cluster(&c);
	gs_trace_init(&t);
	add(&t, "A", 1000, 0, 100);
	add(&t, "B", 500, 10, 50);
	add(&t, "C", 500, 20, 10);
	run(&sim, &c, &t, "binpack", &o);

	assert_int_equal(sim.out[0].state, GS_POD_DONE);
	assert_int_equal(sim.out[0].t_start_s, 0);
	assert_int_equal(sim.out[0].t_end_s, 100);
	assert_int_equal(sim.out[1].t_arrive_s, 10);
	assert_int_equal(sim.out[1].t_start_s, 100);
	assert_int_equal(sim.out[1].t_end_s, 150);
	assert_int_equal(sim.out[2].t_start_s, 100);
	assert_int_equal(sim.out[2].t_end_s, 110);
	assert_int_equal(sim.out[1].pl.gpu[0], 0);
	/* B waited because the only GPU lacked share. */
	assert_int_equal(sim.out[1].why.count[GS_FIT_GPU_SHARE], 1);
	assert_int_equal(sim.stats.events, 6);
	assert_int_equal(sim.stats.placed, 3);
	assert_int_equal(sim.stats.retries, 2);
	assert_int_equal(sim.stats.wait_total_s, 90 + 80);
	/* Samples after each of the 6 events. */
	assert_int_equal(sim.n_samples, 6);
	assert_int_equal(sim.samples[1].pending, 1);  /* B arrived */
	assert_int_equal(sim.samples[2].pending, 2);  /* C arrived */
	assert_int_equal(sim.samples[3].t_s, 100);    /* A left, B and C started */
	assert_int_equal(sim.samples[3].gpu_alloc_milli, 1000);
	assert_int_equal(sim.samples[3].pending, 0);
	assert_int_equal(sim.samples[4].gpu_alloc_milli, 500);
	assert_int_equal(sim.samples[5].gpu_alloc_milli, 0);

	/*
	 * GPU allocation over the arrival window [0, 20]: A holds the whole
	 * GPU, 100 %. (The figures from the events are checked in
	 * test_metrics.c.)
	 */
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.placed, 3);
	assert_int_equal(s.failed, 0);
	assert_true(fabs(s.gpu_alloc_pct - 100.0) < 1e-9);
	assert_true(fabs(s.unalloc_gpu_pct - (100 - s.gpu_alloc_pct)) < 1e-9);
	assert_true(fabs(s.mean_wait_s - 170.0 / 3) < 1e-9);
	assert_true(fabs(s.peak_gpu_alloc_pct - 100.0) < 1e-9);
	assert_int_equal(s.peak_pending, 2);
	assert_true(isnan(s.frag_ratio_pct));
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* With --max-wait 50, C (arrived at 20) gives up at 70; B waits 90 s and still runs. */
static void test_bounded_wait(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();

	(void)state;
	one_gpu_cluster(&c);
	gs_trace_init(&t);
	add(&t, "A", 1000, 0, 100);
	add(&t, "B", 500, 10, 50);
	add(&t, "C", 500, 20, 10);
	o.max_wait_s = 90;
	run(&sim, &c, &t, "binpack", &o);
	assert_int_equal(sim.out[1].state, GS_POD_DONE);   /* waits exactly 90 s: placed first */
	assert_int_equal(sim.out[2].state, GS_POD_DONE);
	gs_sim_release(&sim);

	o.max_wait_s = 50;
	run(&sim, &c, &t, "binpack", &o);
	assert_int_equal(sim.out[1].state, GS_POD_FAILED);
	assert_int_equal(sim.out[1].t_end_s, 60);
	assert_int_equal(sim.out[2].state, GS_POD_FAILED);
	assert_int_equal(sim.out[2].t_end_s, 70);
	assert_int_equal(sim.stats.failed, 2);
	assert_int_equal(sim.out[0].t_end_s, 100);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* --time-scale 10 divides arrivals and keeps durations. */
static void test_time_scale(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();

	(void)state;
	one_gpu_cluster(&c);
	gs_trace_init(&t);
	add(&t, "A", 300, 1000, 500);
	add(&t, "B", 300, 2005, 100);
	o.time_scale = 10;
	run(&sim, &c, &t, "binpack", &o);
	assert_int_equal(sim.out[0].t_start_s, 100);
	assert_int_equal(sim.out[0].t_end_s, 600);
	assert_int_equal(sim.out[1].t_start_s, 200);  /* floor(200.5) */
	assert_int_equal(sim.out[1].t_end_s, 300);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Pods without times arrive at 0 in file order and stay; a pod that never fits stays pending. */
static void test_never_leaving_and_never_fitting(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_summary s;
	struct gs_pod big = tu_pod(1000, 1024, 2, 1000);

	(void)state;
	one_gpu_cluster(&c);
	gs_trace_init(&t);
	add(&t, "A", 600, -1, -1);
	add(&t, "B", 600, -1, -1);
	assert_int_equal(gs_trace_append(&t, "big", &big), 0);
	run(&sim, &c, &t, "first-fit", &o);
	assert_int_equal(sim.out[0].state, GS_POD_RUNNING);
	assert_int_equal(sim.out[1].state, GS_POD_PENDING);
	assert_int_equal(sim.out[2].state, GS_POD_PENDING);
	assert_int_equal(sim.out[2].why.count[GS_FIT_GPU_COUNT], 1);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.running, 1);
	assert_int_equal(s.pending, 2);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* A heavier random trace on a small cluster: --check verifies every step. */
static void random_trace(struct gs_trace *t, uint64_t seed, size_t n)
{
	static const int32_t share[] = { 0, 100, 250, 500, 1000, 1000 };
	struct gs_rng r;
	size_t i;

	gs_rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "p%zu", i);
		add(t, name, share[gs_rng_below(&r, 6)], (int64_t)(i * 7 + gs_rng_below(&r, 5)),
		    (int64_t)gs_rng_below(&r, 400));
	}
}

static void small_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	gs_cluster_add_node(c, "n0", 16000, 65536, 2, "T4");
	gs_cluster_add_node(c, "n1", 32000, 131072, 4, "T4");
	gs_cluster_add_node(c, "n2", 8000, 32768, 1, "V100M16");
}

static void test_deterministic_under_check(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim a, b;
	struct gs_replay_opts o = time_opts();
	const char *const pols[] = { "binpack", "spread", "random" };
	size_t i;

	(void)state;
	small_cluster(&c);
	gs_trace_init(&t);
	random_trace(&t, 11, 600);
	for (i = 0; i < 3; i++) {
		run(&a, &c, &t, pols[i], &o);
		run(&b, &c, &t, pols[i], &o);
		assert_true(a.stats.retries > 0);  /* the queue was exercised */
		assert_int_equal(a.n_pods, b.n_pods);
		assert_int_equal(a.n_samples, b.n_samples);
		assert_memory_equal(a.out, b.out, a.n_pods * sizeof(*a.out));
		/* frag_milli is NAN here, and NAN != NAN, but the bytes are equal. */
		assert_memory_equal(a.samples, b.samples, a.n_samples * sizeof(*a.samples));
		gs_sim_release(&a);
		gs_sim_release(&b);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Inflate mode: arrivals are steps, nothing leaves, a pod that does not fit fails at once. */
static void test_inflate_mode(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_summary s;
	int64_t req = 0;
	size_t i;

	(void)state;
	small_cluster(&c);
	gs_trace_init(&t);
	random_trace(&t, 3, 10);   /* about 4.7 GPUs of requests: it must grow */
	o.mode = GS_MODE_INFLATE;
	o.inflate = 1.5;
	run(&sim, &c, &t, "binpack", &o);
	for (i = 0; i < sim.n_pods; i++) {
		req += gs_pod_gpu_milli(&sim.pods[i]);
		assert_int_equal(sim.out[i].t_arrive_s, (int64_t)i);
		assert_true(sim.out[i].state == GS_POD_RUNNING || sim.out[i].state == GS_POD_FAILED);
		assert_int_equal(sim.out[i].t_end_s, sim.out[i].state == GS_POD_FAILED ? (int64_t)i : -1);
	}
	/* 7 GPUs x 1.5 = 10500 milli: reached by the last clone, not before. */
	assert_true(sim.n_pods > t.n_pods);
	assert_true(req >= 10500);
	assert_true(req - gs_pod_gpu_milli(&sim.pods[sim.n_pods - 1]) < 10500);
	assert_true(sim.stats.failed > 0);
	assert_int_equal(sim.stats.placed + sim.stats.failed, (int64_t)sim.n_pods);
	assert_int_equal(sim.n_samples, sim.n_pods);
	assert_int_equal(sim.samples[sim.n_pods - 1].arrived_gpu_milli, req);
	assert_false(isnan(sim.samples[0].frag_milli));
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.failed, sim.stats.failed);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Two T4s (2000 milli) and one pod of 990 milli, inflated to 1.3: three
 * copies arrive (2970 >= 2600). Arrived workload goes 49.5 (rounds to 50),
 * 99 and 148.5 (149) %: one pod jumps over the 100 % bucket. The summary
 * then takes the 99..101 % samples, here the one after the second pod:
 * both GPUs hold 990, 99 % allocated. The third pod fits nowhere.
 */
static void test_inflate_jumps_over_100(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_summary s;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 2, "T4"), 0);
	gs_trace_init(&t);
	add(&t, "A", 990, 0, -1);
	o.mode = GS_MODE_INFLATE;
	o.inflate = 1.3;
	run(&sim, &c, &t, "binpack", &o);
	assert_int_equal(sim.n_pods, 3);
	assert_int_equal(sim.n_samples, 3);
	assert_int_equal(gs_sample_arrived_pct(&sim.samples[0], 2000), 50);
	assert_int_equal(gs_sample_arrived_pct(&sim.samples[1], 2000), 99);
	assert_int_equal(gs_sample_arrived_pct(&sim.samples[2], 2000), 149);
	assert_int_equal(sim.samples[1].gpu_alloc_milli, 1980);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.placed, 2);
	assert_int_equal(s.failed, 1);
	assert_true(fabs(s.gpu_alloc_pct - 99.0) < 1e-9);
	assert_true(fabs(s.unalloc_gpu_pct - 1.0) < 1e-9);
	/* The 10 milli left on each GPU fits no 990 pod: all idle share is fragment. */
	assert_true(fabs(s.frag_ratio_pct - 100.0) < 1e-9);
	assert_true(fabs(s.frag_amount_pct - 1.0) < 1e-9);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The policies hear of the workload through the first 64 bits of the
 * trace's SHA-256 (gs_policy_env.workload_id), so the compat node order
 * of a run is the order of seed ^ those bits; a trace without a checksum
 * (built in memory) leaves the seed alone.
 */
static void test_order_per_workload(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_sched ref;
	struct gs_policy_env env;
	struct gs_replay_opts o = time_opts();
	char err[256];
	int i;

	(void)state;
	gs_cluster_init(&c);
	for (i = 0; i < 32; i++)
		assert_true(gs_cluster_add_node(&c, "n", 32000, 65536, 1, "T4") >= 0);
	gs_trace_init(&t);
	add(&t, "A", 500, 0, 10);
	o.mode = GS_MODE_INFLATE;
	o.policy_flags = GS_POLICY_COMPAT;
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	env.flags = GS_POLICY_COMPAT;

	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("first-fit"), &o, err,
				     sizeof(err)), 0);
	env.seed = o.seed;
	assert_int_equal(gs_sched_init(&ref, gs_policy_find("first-fit"), &env), 0);
	assert_memory_equal(sim.sched.order, ref.order, 32 * sizeof(int32_t));
	gs_sim_release(&sim);

	snprintf(t.sha256, sizeof(t.sha256), "%s",
		 "0123456789abcdef0000000000000000000000000000000000000000000000ff");
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("first-fit"), &o, err,
				     sizeof(err)), 0);
	assert_memory_not_equal(sim.sched.order, ref.order, 32 * sizeof(int32_t));
	gs_sched_release(&ref);
	env.seed = o.seed ^ 0x0123456789abcdefull;
	assert_int_equal(gs_sched_init(&ref, gs_policy_find("first-fit"), &env), 0);
	assert_memory_equal(sim.sched.order, ref.order, 32 * sizeof(int32_t));
	gs_sched_release(&ref);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The fragmentation a run records uses FGD's typical pods: under compat
 * grouped by gpu_spec text as the reference does, so two pods of one
 * shape written "T4|V100M16" and "T4|V100M16|V100M16" are two kinds;
 * otherwise by model set, one kind.
 */
static void test_frag_kinds_follow_compat(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_pod p = tu_pod(1000, 1024, 1, 500);
	char err[256];

	(void)state;
	gs_cluster_init(&c);
	assert_true(gs_cluster_add_node(&c, "n0", 32000, 65536, 2, "T4") >= 0);
	assert_true(gs_cluster_add_node(&c, "n1", 32000, 65536, 2, "V100M16") >= 0);
	p.model_mask = (1u << c.nodes[0].model) | (1u << c.nodes[1].model);
	gs_trace_init(&t);
	assert_int_equal(gs_trace_append_spec(&t, "a", &p, "T4|V100M16"), 0);
	assert_int_equal(gs_trace_append_spec(&t, "b", &p, "T4|V100M16|V100M16"), 0);
	o.mode = GS_MODE_INFLATE;
	o.policy_flags = GS_POLICY_COMPAT;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("fgd"), &o, err, sizeof(err)), 0);
	assert_int_equal(sim.workload.n, 2);
	gs_sim_release(&sim);
	o.policy_flags = 0;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("fgd"), &o, err, sizeof(err)), 0);
	assert_int_equal(sim.workload.n, 1);
	assert_int_equal(sim.workload.kinds[0].count, 2);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static void test_bad_options(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	char err[256];

	(void)state;
	one_gpu_cluster(&c);
	gs_trace_init(&t);
	add(&t, "A", 1000, 0, 100);
	o.time_scale = 0;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_string_equal(err, "time scale must be a positive number, not 0");
	o = time_opts();
	o.sample_every = 0;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_string_equal(err, "sample-every must be at least 1, not 0");
	o = time_opts();
	assert_int_equal(gs_sim_init(&sim, &c, &t, NULL, &o, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(err, "no policy given");
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_and_retry),
		cmocka_unit_test(test_bounded_wait),
		cmocka_unit_test(test_time_scale),
		cmocka_unit_test(test_never_leaving_and_never_fitting),
		cmocka_unit_test(test_deterministic_under_check),
		cmocka_unit_test(test_inflate_mode),
		cmocka_unit_test(test_inflate_jumps_over_100),
		cmocka_unit_test(test_order_per_workload),
		cmocka_unit_test(test_frag_kinds_follow_compat),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
