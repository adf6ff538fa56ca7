/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gang.c - pod groups (gangs) in the replay (engine/gang.h): a
 * group placed all together or not at all, waiting whole while smaller
 * pods go past it, taking its turn in the pending queue's FIFO order,
 * forming as its pods arrive, giving up with its first pod's --max-wait,
 * failing whole in inflate mode, one group per copy of the trace; and the
 * inflation that keeps a group's pods together. Every placement and time
 * is worked out by hand in the comments, with first-fit (the first node
 * that fits, the first free GPUs).
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

#include "core/error.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "testutil.h"

/* A pod of ngpu whole GPUs (0.5 of one when ngpu is -1) from at for d s (d < 0: stays). */
static size_t add(struct gs_trace *t, const char *name, int32_t ngpu, int64_t at, int64_t d,
		  const char *group)
{
	struct gs_pod p = ngpu < 0 ? tu_pod(1000, 1024, 1, 500) : tu_pod(1000, 1024, ngpu, 1000);

	if (ngpu == 0)
		p.gpu_milli = 0;
	p.t_create_s = at;
	p.t_delete_s = d < 0 ? -1 : at + d;
	assert_int_equal(gs_trace_append(t, name, &p), 0);
	if (group) {
		int g = gs_trace_group(t, group);

		assert_true(g > 0);
		assert_int_equal(gs_trace_set_group(t, t->n_pods - 1, g), 0);
	}
	return t->n_pods - 1;
}

/* n nodes of 2 T4s each, 32 cores, 64 GiB. */
static void cluster(struct gs_cluster *c, int n)
{
	char name[16];
	int i;

	gs_cluster_init(c);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(gs_cluster_add_node(c, name, 32000, 65536, 2, "T4"), i);
	}
}

static void run(struct gs_sim *sim, const struct gs_cluster *c, const struct gs_trace *t,
		const struct gs_replay_opts *o)
{
	char err[256] = "";

	assert_int_equal(gs_sim_init(sim, c, t, gs_policy_find("first-fit"), o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(sim, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static struct gs_replay_opts opts(void)
{
	struct gs_replay_opts o;

	gs_replay_opts_init(&o);
	o.check = true;
	return o;
}

static void started(const struct gs_sim *sim, size_t i, int64_t start, int64_t end, int32_t node)
{
	assert_true(sim->out[i].state == GS_POD_RUNNING || sim->out[i].state == GS_POD_DONE);
	assert_int_equal(sim->out[i].t_start_s, start);
	assert_int_equal(sim->out[i].t_end_s, end);
	assert_int_equal(sim->out[i].pl.node, node);
}

/*
 * Two nodes of 2 GPUs. A (1 GPU, 0..100) takes n0's GPU 0. At 10 group G
 * asks for two pods of 2 GPUs: G-0 would fit on n1, G-1 nowhere, so
 * neither starts and both wait. B (1 GPU, 20..50) takes n0's GPU 1 and C
 * (1 GPU, 30..40) n1: the pods that fit go past the waiting group. C's and
 * B's departures leave 2 and then 3 GPUs free, fewer than the group's 4.
 * When A leaves at 100 the group starts whole: G-0 on n0, G-1 on n1, each
 * with its own duration (100 and 50 s). Each of its pods waited 90 s,
 * and the group 90 s from its last pod's arrival.
 */
static void test_group_waits_whole(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;
	size_t a, g0, g1, b, cc;

	(void)state;
	cluster(&c, 2);
	gs_trace_init(&t);
	a = add(&t, "A", 1, 0, 100, NULL);
	g0 = add(&t, "G-0", 2, 10, 100, "G");
	g1 = add(&t, "G-1", 2, 10, 50, "G");
	b = add(&t, "B", 1, 20, 30, NULL);
	cc = add(&t, "C", 1, 30, 10, NULL);
	run(&sim, &c, &t, &o);
	started(&sim, a, 0, 100, 0);
	started(&sim, b, 20, 50, 0);
	started(&sim, cc, 30, 40, 1);
	started(&sim, g0, 100, 200, 0);
	started(&sim, g1, 100, 150, 1);
	assert_int_equal(sim.out[g0].pl.num_gpu, 2);
	assert_int_equal(sim.stats.placed, 5);
	assert_int_equal(sim.stats.wait_total_s, 90 + 90);
	/* After G-1 arrived both waited (the sample after its arrival); C's arrival kept them there. */
	assert_int_equal(sim.samples[2].pending, 2);
	assert_int_equal(sim.samples[4].pending, 2);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.groups, 1);
	assert_int_equal(s.groups_placed, 1);
	assert_int_equal(s.groups_failed, 0);
	assert_true(fabs(s.group_mean_wait_s - 90) < 1e-9);
	assert_true(fabs(s.mean_wait_s - 180.0 / 5) < 1e-9);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The pending queue is walked in the order pods and groups joined it.
 * A (2 GPUs, 0..100) fills n0 and B (2 GPUs, 0..200) n1. First P (1 GPU)
 * waits from 10, then group Q (two pods of 1 GPU) from 20. When A leaves
 * n0 at 100, P goes first (GPU 0 of n0); Q needs 2 GPUs and 1 is free:
 * it waits for B, and at 200 Q-0 takes n0's GPU 1 and Q-1 n1. With the
 * group first (Q from 10, P from 20), Q takes n0's two GPUs at 100 and P
 * waits for B.
 */
static void test_fifo_order_with_groups(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	size_t p, q0, q1;

	(void)state;
	cluster(&c, 2);
	gs_trace_init(&t);
	add(&t, "A", 2, 0, 100, NULL);
	add(&t, "B", 2, 0, 200, NULL);
	p = add(&t, "P", 1, 10, 1000, NULL);
	q0 = add(&t, "Q-0", 1, 20, 1000, "Q");
	q1 = add(&t, "Q-1", 1, 20, 1000, "Q");
	run(&sim, &c, &t, &o);
	started(&sim, p, 100, 1100, 0);
	started(&sim, q0, 200, 1200, 0);
	started(&sim, q1, 200, 1200, 1);
	assert_int_equal(sim.out[q0].pl.gpu[0], 1);
	gs_sim_release(&sim);
	gs_trace_release(&t);

	gs_trace_init(&t);
	add(&t, "A", 2, 0, 100, NULL);
	add(&t, "B", 2, 0, 200, NULL);
	q0 = add(&t, "Q-0", 1, 10, 1000, "Q");
	q1 = add(&t, "Q-1", 1, 10, 1000, "Q");
	p = add(&t, "P", 1, 20, 1000, NULL);
	run(&sim, &c, &t, &o);
	started(&sim, q0, 100, 1100, 0);
	started(&sim, q1, 100, 1100, 0);
	assert_int_equal(sim.out[q1].pl.gpu[0], 1);
	started(&sim, p, 200, 1200, 1);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * A group is tried once its last pod has arrived: H-0 (1 GPU) arrives at
 * 0 on an empty cluster and waits for H-1, which arrives at 30; both
 * start at 30. H-0 waited 30 s, H-1 none, the group none.
 */
static void test_group_forms(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;
	size_t h0, h1;

	(void)state;
	cluster(&c, 1);
	gs_trace_init(&t);
	h0 = add(&t, "H-0", 1, 0, 100, "H");
	h1 = add(&t, "H-1", 1, 30, 100, "H");
	run(&sim, &c, &t, &o);
	started(&sim, h0, 30, 130, 0);
	started(&sim, h1, 30, 130, 0);
	assert_int_equal(sim.samples[0].pending, 1);
	assert_int_equal(sim.samples[1].pending, 0);
	gs_sim_summarize(&sim, &s);
	assert_true(fabs(s.mean_wait_s - 15) < 1e-9);
	assert_true(fabs(s.group_mean_wait_s - 0) < 1e-9);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * --max-wait 20 on one node of 2 GPUs that A (2 GPUs, 0..100) fills. J-0
 * and J-1 (1 GPU each) arrive at 10 and wait for J-2, which arrives at 40.
 * At 30 J-0's deadline passes: the group gives up, J-0 and J-1 fail
 * (waited past --max-wait) and J-2 fails on arrival (its group gave up).
 * K (1 GPU, from 50) would wait for A until 100, and gives up at 70.
 */
static void test_group_gives_up(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;
	size_t j0, j1, j2, k;

	(void)state;
	o.max_wait_s = 20;
	cluster(&c, 1);
	gs_trace_init(&t);
	add(&t, "A", 2, 0, 100, NULL);
	j0 = add(&t, "J-0", 1, 10, 100, "J");
	j1 = add(&t, "J-1", 1, 10, 100, "J");
	j2 = add(&t, "J-2", 1, 40, 100, "J");
	k = add(&t, "K", 1, 50, 10, NULL);
	run(&sim, &c, &t, &o);
	assert_int_equal(sim.out[j0].state, GS_POD_FAILED);
	assert_int_equal(sim.out[j0].fail, GS_FAIL_TIMEOUT);
	assert_int_equal(sim.out[j0].t_end_s, 30);
	assert_int_equal(sim.out[j1].fail, GS_FAIL_TIMEOUT);
	assert_int_equal(sim.out[j2].state, GS_POD_FAILED);
	assert_int_equal(sim.out[j2].fail, GS_FAIL_GROUP);
	assert_int_equal(sim.out[j2].t_end_s, 40);
	assert_string_equal(gs_fail_reason_str(GS_FAIL_GROUP), "its pod group gave up");
	/* K waits 50 s for A, past its own 20 s: it fails too. */
	assert_int_equal(sim.out[k].fail, GS_FAIL_TIMEOUT);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.groups_failed, 1);
	assert_int_equal(s.groups_placed, 0);
	assert_true(isnan(s.group_mean_wait_s));
	assert_int_equal(s.failed, 4);
	assert_int_equal(s.tm.n_timed_out, 3);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Inflate mode on one node of 2 GPUs, factor 1.5 (the trace shuffled, no
 * clone): S asks for 1 GPU, group K for two pods of 1 GPU. K's pods
 * arrive one after the other. Whichever comes first gets its GPUs: S
 * first leaves 1 GPU and K fails whole (both pods, though one would fit);
 * K first takes both and S fails.
 */
static void test_inflate_groups(void **state)
{
	struct gs_replay_opts o;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	uint64_t seed;
	bool seen_s_first = false, seen_k_first = false;

	(void)state;
	cluster(&c, 1);
	gs_trace_init(&t);
	add(&t, "S", 1, 0, -1, NULL);
	add(&t, "K-0", 1, 0, -1, "K");
	add(&t, "K-1", 1, 0, -1, "K");
	for (seed = 1; seed <= 8; seed++) {
		size_t i, s_at = 0;

		gs_replay_opts_init(&o);
		o.mode = GS_MODE_INFLATE;
		/* 3 GPUs asked for, 1.5 x the 2 of the cluster: no clone, no trim. */
		o.inflate = 1.5;
		o.seed = seed;
		o.check = true;
		run(&sim, &c, &t, &o);
		assert_int_equal(sim.n_pods, 3);
		for (i = 0; i < 3; i++)
			if (sim.out[i].src == 0)
				s_at = i;
		/* K's pods are next to each other, in trace order. */
		assert_true(s_at == 0 || s_at == 2);
		assert_int_equal(sim.out[s_at == 0 ? 1 : 0].src, 1);
		assert_int_equal(sim.out[s_at == 0 ? 2 : 1].src, 2);
		if (s_at == 0) {
			seen_s_first = true;
			assert_int_equal(sim.out[0].state, GS_POD_RUNNING);
			assert_int_equal(sim.out[1].fail, GS_FAIL_NOFIT);
			assert_int_equal(sim.out[2].fail, GS_FAIL_NOFIT);
			assert_int_equal(sim.gangs.failed, 1);
		} else {
			seen_k_first = true;
			assert_int_equal(sim.out[0].state, GS_POD_RUNNING);
			assert_int_equal(sim.out[1].state, GS_POD_RUNNING);
			assert_int_equal(sim.out[2].fail, GS_FAIL_NOFIT);
			assert_int_equal(sim.gangs.placed, 1);
		}
		gs_sim_release(&sim);
	}
	assert_true(seen_s_first && seen_k_first);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The inflation of a trace with groups draws whole groups: a group's pods
 * (and each clone's) are consecutive and in trace order, and the clones
 * stop at the first unit that reaches the target.
 */
static void test_inflate_order_keeps_groups(void **state)
{
	struct gs_trace t;
	int32_t *idx = NULL;
	size_t n = 0, i;
	int64_t total = 0;

	(void)state;
	gs_trace_init(&t);
	add(&t, "a", 1, 0, -1, NULL);
	add(&t, "g-0", 1, 0, -1, "g");
	add(&t, "h-0", 2, 0, -1, "h");
	add(&t, "g-1", 1, 0, -1, "g");
	add(&t, "h-1", 2, 0, -1, "h");
	add(&t, "g-2", -1, 0, -1, "g");
	/* 1 + 2.5 + 4 = 7.5 GPUs; the target is 10 x 8 GPUs. */
	assert_int_equal(gs_inflate_order(&t, 7, 10.0, 8000, &idx, &n), 0);
	for (i = 0; i < n; i++) {
		total += gs_pod_gpu_milli(&t.pods[idx[i]]);
		if (idx[i] == 1) {
			/* g-0 is followed by g-1 and g-2. */
			assert_true(i + 2 < n);
			assert_int_equal(idx[i + 1], 3);
			assert_int_equal(idx[i + 2], 5);
		} else if (idx[i] == 2) {
			assert_int_equal(idx[i + 1], 4);
		} else {
			assert_true(idx[i] == 0 || idx[i] == 3 || idx[i] == 4 || idx[i] == 5);
		}
	}
	assert_true(total >= 80000);
	/* The last unit drawn reached the target: without it the total is below. */
	{
		int64_t last = gs_pod_gpu_milli(&t.pods[idx[n - 1]]);

		if (idx[n - 1] == 5)
			last = 2500;
		else if (idx[n - 1] == 4)
			last = 4000;
		assert_true(total - last < 80000);
	}
	free(idx);
	gs_trace_release(&t);
}

/* --load with --repeat 3: one group per copy of the trace, each placed whole. */
static void test_group_per_copy(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;

	(void)state;
	cluster(&c, 4);
	gs_trace_init(&t);
	add(&t, "x", 1, 0, 100, NULL);
	add(&t, "g-0", 2, 0, 300, "g");
	add(&t, "g-1", 2, 50, 300, "g");
	o.load_pct = 50;
	o.load_repeat = 3;
	run(&sim, &c, &t, &o);
	assert_int_equal(sim.n_pods, 9);
	assert_int_equal(sim.gangs.n, 3);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.groups, 3);
	assert_int_equal(s.groups_placed, 3);
	assert_int_equal(s.placed, 9);
	/* The pods of each copy's group start together. */
	assert_int_equal(sim.out[1].t_start_s, sim.out[2].t_start_s);
	assert_int_equal(sim.out[4].t_start_s, sim.out[5].t_start_s);
	assert_int_equal(sim.out[7].t_start_s, sim.out[8].t_start_s);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Under time-slicing with 2 replicas one GPU holds two pods of a whole
 * GPU each: a group of two such pods fits one T4, though together they
 * ask for twice the GPU (the cluster's GPU totals say no: 2000 milli
 * asked, 1000 at most free). B (0 to 100) and C (from 5, for 200) take
 * both replicas; the group arrives at 10 and starts whole on n0 when the
 * later of B and C leaves. Sharing slows the pods down (docs/sharing.md),
 * so those times come from the run, not by hand.
 */
static void test_group_under_sharing(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	char err[256];
	size_t b, cc, s0, s1;
	int64_t gone;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 1, "T4"), 0);
	assert_int_equal(gs_share_parse("timeslice:replicas=2", &o.sharing, err, sizeof(err)), 0);
	gs_trace_init(&t);
	b = add(&t, "B", 1, 0, 100, NULL);
	cc = add(&t, "C", 1, 5, 200, NULL);
	s0 = add(&t, "S-0", 1, 10, 50, "S");
	s1 = add(&t, "S-1", 1, 10, 50, "S");
	run(&sim, &c, &t, &o);
	assert_int_equal(sim.out[b].t_start_s, 0);
	assert_int_equal(sim.out[cc].t_start_s, 5);
	gone = sim.out[b].t_end_s > sim.out[cc].t_end_s ? sim.out[b].t_end_s : sim.out[cc].t_end_s;
	assert_true(gone >= 205);
	assert_int_equal(sim.out[s0].state, GS_POD_DONE);
	assert_int_equal(sim.out[s1].state, GS_POD_DONE);
	assert_int_equal(sim.out[s0].t_start_s, gone);
	assert_int_equal(sim.out[s1].t_start_s, gone);
	assert_int_equal(sim.out[s0].pl.node, 0);
	assert_int_equal(sim.out[s1].pl.node, 0);
	assert_int_equal(sim.gangs.placed, 1);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The descheduler (--defrag) moves a pod alone, never a pod of a group.
 * n0 has 2 GPUs, n1 one. X (1 GPU, from 0) takes n0's GPU 0; D (2 GPUs)
 * arrives at 10 and fits nowhere. Alone, X moves to n1 and D starts at 10
 * on n0. In a group of its own, X stays and D waits until X leaves at 100.
 */
static void test_defrag_leaves_groups(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	size_t x, d;
	int grouped;

	(void)state;
	for (grouped = 0; grouped < 2; grouped++) {
		gs_cluster_init(&c);
		assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 2, "T4"), 0);
		assert_int_equal(gs_cluster_add_node(&c, "n1", 32000, 65536, 1, "T4"), 1);
		o.defrag.budget_pct = 100;
		gs_trace_init(&t);
		x = add(&t, "X", 1, 0, 100, grouped ? "G" : NULL);
		d = add(&t, "D", 2, 10, 50, NULL);
		run(&sim, &c, &t, &o);
		if (grouped) {
			assert_int_equal(sim.defrag.st.moves, 0);
			started(&sim, x, 0, 100, 0);
			started(&sim, d, 100, 150, 0);
		} else {
			assert_int_equal(sim.defrag.st.moves, 1);
			assert_int_equal(sim.out[x].pl.node, 1);
			started(&sim, d, 10, 60, 0);
		}
		gs_sim_release(&sim);
		gs_trace_release(&t);
		gs_cluster_release(&c);
	}
}

/* The same group trace gives the same run twice (--check on). */
static void test_deterministic(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim a, b;
	char name[32];
	int i;

	(void)state;
	cluster(&c, 3);
	gs_trace_init(&t);
	/* Pods 1 and 2 of every five make a group. */
	for (i = 0; i < 60; i++) {
		char group[16];

		snprintf(name, sizeof(name), "p%d", i);
		snprintf(group, sizeof(group), "g%d", i / 5);
		add(&t, name, (i % 2) + 1, i * 7, 40 + (i * 13) % 90,
		    i % 5 == 1 || i % 5 == 2 ? group : NULL);
	}
	run(&a, &c, &t, &o);
	run(&b, &c, &t, &o);
	for (i = 0; i < 60; i++) {
		assert_int_equal(a.out[i].t_start_s, b.out[i].t_start_s);
		assert_int_equal(a.out[i].pl.node, b.out[i].pl.node);
		if (i % 5 == 1)
			assert_int_equal(a.out[i].t_start_s, a.out[i + 1].t_start_s);
	}
	assert_int_equal(t.n_groups, 12);
	assert_int_equal(a.gangs.n, 12);
	assert_int_equal(a.gangs.placed, 12);
	gs_sim_release(&a);
	gs_sim_release(&b);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_waits_whole),
		cmocka_unit_test(test_fifo_order_with_groups),
		cmocka_unit_test(test_group_forms),
		cmocka_unit_test(test_group_gives_up),
		cmocka_unit_test(test_inflate_groups),
		cmocka_unit_test(test_inflate_order_keeps_groups),
		cmocka_unit_test(test_group_per_copy),
		cmocka_unit_test(test_group_under_sharing),
		cmocka_unit_test(test_defrag_leaves_groups),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
