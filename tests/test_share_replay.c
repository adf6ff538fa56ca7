/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_share_replay.c - the rate model inside the replay engine, on traces
 * worked out by hand: time-slicing without overhead (issue 9's first
 * check), pods that are not always busy under every mechanism (issue 21),
 * exclusive mode against the engine without sharing, nos' published
 * aggregate throughputs with the default table, memory oversubscription
 * under time-slicing, the MIG and utilisation figures, MIG pods' neighbours
 * and the interference table's reader.
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
#include "io/interference.h"
#include "io/trace/load.h"
#include "testutil.h"

/* A pod on one GPU: milli share, gpu_mem MiB, need (0 = its share), arriving at `at` for d s. */
static void add(struct gs_trace *t, const char *name, int32_t milli, int64_t mem, int32_t need,
		int64_t at, int64_t d)
{
	struct gs_pod p = tu_pod(1000, 1024, milli ? 1 : 0, milli);

	p.gpu_mem_mib = mem;
	p.need_milli = need;
	p.t_create_s = at;
	p.t_delete_s = d < 0 ? -1 : at + d;
	assert_int_equal(gs_trace_append(t, name, &p), 0);
}

static struct gs_share_cfg spec(const char *s)
{
	struct gs_share_cfg cfg;
	char err[200];

	if (gs_share_parse(s, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	return cfg;
}

static void one_node(struct gs_cluster *c, int ngpu, const char *model)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "n0", 256000, 1 << 20, ngpu, model), 0);
}

static void run(struct gs_sim *sim, const struct gs_cluster *c, const struct gs_trace *t,
		const char *sharing, const struct gs_interference *tbl)
{
	struct gs_replay_opts o;
	char err[256] = "";

	gs_replay_opts_init(&o);
	o.check = true;
	o.sharing = spec(sharing);
	o.interference = tbl;
	assert_int_equal(gs_sim_init(sim, c, t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(sim, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* A table where time-slicing costs nothing: every efficiency 1. */
static void free_table(struct gs_interference *tbl)
{
	static const char text[] = "mode,gpu_model,n,class,efficiency,source\n"
				   "timeslice,*,1,*,1.0,test: no switching overhead\n";
	char err[256];

	gs_interference_init(tbl);
	assert_int_equal(gs_interference_parse(tbl, "free.csv", text, sizeof(text) - 1, err,
					       sizeof(err)), 0);
}

/*
 * Issue 9: two pods that each need a whole GPU, time-sliced on one GPU
 * with no switching overhead. Each gets half the GPU, so each finishes at
 * twice its duration: 2 x 100 = 200. With durations 100 and 300, A ends
 * at 200 (100 s of work at 1/2); by then B has done 100 of its 300 s and
 * runs alone at full speed from that moment: 200 more seconds, ending at
 * 400 (not 600, where its first completion event was, which goes stale).
 */
static void test_timeslice_two_whole_gpu_pods(void **state)
{
	struct gs_interference tbl;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	free_table(&tbl);
	one_node(&c, 1, "A100-80G");
	gs_trace_init(&t);
	add(&t, "A", 1000, 0, 0, 0, 100);
	add(&t, "B", 1000, 0, 0, 0, 100);
	run(&sim, &c, &t, "timeslice:replicas=2", &tbl);
	assert_int_equal(sim.out[0].t_start_s, 0);
	assert_int_equal(sim.out[1].t_start_s, 0);
	assert_int_equal(sim.out[0].t_end_s, 200);
	assert_int_equal(sim.out[1].t_end_s, 200);
	assert_true(fabs(sim.out[0].coloc - 2.0) < 1e-6);
	gs_sim_release(&sim);

	gs_trace_release(&t);
	gs_trace_init(&t);
	add(&t, "A", 1000, 0, 0, 0, 100);
	add(&t, "B", 1000, 0, 0, 0, 300);
	run(&sim, &c, &t, "timeslice:replicas=2", &tbl);
	assert_int_equal(sim.out[0].t_end_s, 200);
	assert_int_equal(sim.out[1].t_end_s, 400);
	/* Two arrivals and two departures: the stale completion at 600 is not an event. */
	assert_int_equal(sim.stats.events, 4);
	/* B: 2 pods for 200 s, then 1 for 200 s: 1.5 on average. */
	assert_true(fabs(sim.out[1].coloc - 1.5) < 1e-6);
	/* Useful work 100 + 300 GPU-s over 400 s busy on 1 GPU: 100 %; allocated 2 x 500 milli then 500. */
	{
		struct gs_summary s;

		gs_sim_summarize(&sim, &s);
		assert_true(fabs(s.eff_util_busy_pct - 100.0) < 1e-9);
		assert_true(isnan(s.eff_util_pct)); /* both arrive at 0: no arrival window */
		assert_true(fabs(s.tm.gpu_alloc_busy_pct - 75.0) < 1e-9);
		assert_int_equal(s.tm.completion_max_s, 400);
	}
	gs_sim_release(&sim);

	/*
	 * A pod busy 30 % of its time leaves the rest: B (busy all the time) gets
	 * 0.7. A pod that needs 0.3 of the SMs but is always busy leaves nothing:
	 * contexts take turns, each holds the whole GPU for its slice.
	 */
	gs_trace_release(&t);
	gs_trace_init(&t);
	add(&t, "A", 300, 0, 0, 0, 100);
	add(&t, "B", 1000, 0, 0, 0, 70);
	t.pods[0].busy_milli = 300;
	run(&sim, &c, &t, "timeslice:replicas=2", &tbl);
	assert_int_equal(sim.out[0].t_end_s, 100);  /* rate min(1, 0.3 / 0.3) = 1 */
	assert_int_equal(sim.out[1].t_end_s, 100);  /* 70 s of work at 0.7 */
	gs_sim_release(&sim);
	t.pods[0].busy_milli = 0;
	run(&sim, &c, &t, "timeslice:replicas=2", &tbl);
	assert_int_equal(sim.out[1].t_end_s, 140);  /* 70 s of work at 0.5 */
	assert_int_equal(sim.out[0].t_end_s, 170);  /* 70 s at 0.5, then 30 s alone */
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
	gs_interference_release(&tbl);
}

/* Loads the bundled sample (traces/sample) and makes every GPU pod ask for whole GPUs. */
static void sample(struct gs_cluster *c, struct gs_trace *t, bool whole)
{
	char err[512];
	size_t i;

	gs_cluster_init(c);
	gs_trace_init(t);
	assert_int_equal(gs_load_cluster(GS_SOURCE_DIR "/traces/sample/cluster.csv", c, NULL, err,
					 sizeof(err)), 0);
	assert_int_equal(gs_load_trace(GS_SOURCE_DIR "/traces/sample/pods.csv", c, t, err,
				       sizeof(err)), 0);
	for (i = 0; whole && i < t->n_pods; i++) {
		if (t->pods[i].gpu_milli > 0 && t->pods[i].gpu_milli < 1000) {
			t->pods[i].gpu_milli = 1000;
			t->pods[i].gpu_mem_mib = 0;
		}
	}
}

/*
 * Twelve whole-GPU pods time-sliced on one GPU (more than a GPU's entry
 * in the model holds in itself), durations 10, 20, ..., 120 s, all at 0,
 * no switching overhead: each gets 1/12 until the first has done its 10 s
 * at 120; the next needs 10 s more at 1/11, ending at 230; then 10 s at
 * 1/10 (330), and so on: the k-th ends at the sum of 10 x (13 - j) for j
 * up to k. The last was with 12 pods for 120 s, 11 for 110, ..., 1 for
 * 10: 6500 pod-seconds over 780 s.
 */
static void test_timeslice_many_pods_on_one_gpu(void **state)
{
	struct gs_interference tbl;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	int64_t end = 0;
	int k;

	(void)state;
	free_table(&tbl);
	one_node(&c, 1, "A100-80G");
	gs_trace_init(&t);
	for (k = 1; k <= 12; k++) {
		char name[8];

		snprintf(name, sizeof(name), "p%d", k);
		add(&t, name, 1000, 0, 0, 0, 10 * k);
	}
	run(&sim, &c, &t, "timeslice:replicas=12", &tbl);
	for (k = 1; k <= 12; k++) {
		end += 10 * (13 - k);
		assert_int_equal(sim.out[k - 1].t_start_s, 0);
		assert_int_equal(sim.out[k - 1].t_end_s, end);
	}
	assert_int_equal(end, 780);
	assert_true(fabs(sim.out[11].coloc - 6500.0 / 780.0) < 1e-5);
	assert_true(fabs(sim.out[0].coloc - 12.0) < 1e-6);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
	gs_interference_release(&tbl);
}

/*
 * Issue 9: exclusive mode gives today's results exactly. On a trace whose
 * GPU pods ask for whole GPUs (the sample with its shares rounded up),
 * exclusive mode and the engine without any sharing state place every pod
 * on the same GPUs at the same times, and every figure is the same. On the
 * sample as it is, every pod still runs for exactly its duration.
 */
static void test_exclusive_is_todays_engine(void **state)
{
	static const char *const policies[] = { "binpack", "fgd", "spread" };
	struct gs_cluster c;
	struct gs_trace t;
	size_t k, i;

	(void)state;
	sample(&c, &t, true);
	for (k = 0; k < 3; k++) {
		struct gs_replay_opts o;
		struct gs_sim a, b;
		struct gs_summary sa, sb;
		char err[256];

		gs_replay_opts_init(&o);
		assert_int_equal(gs_sim_init(&a, &c, &t, gs_policy_find(policies[k]), &o, err,
					     sizeof(err)), 0);
		assert_int_equal(gs_sim_run(&a, err, sizeof(err)), 0);
		assert_false(a.share_on);
		o.sharing = spec("exclusive");
		assert_int_equal(gs_sim_init(&b, &c, &t, gs_policy_find(policies[k]), &o, err,
					     sizeof(err)), 0);
		assert_int_equal(gs_sim_run(&b, err, sizeof(err)), 0);
		assert_true(b.share_on);
		assert_int_equal(a.stats.events, b.stats.events);
		assert_int_equal(a.n_samples, b.n_samples);
		for (i = 0; i < t.n_pods; i++) {
			assert_int_equal(a.out[i].state, b.out[i].state);
			assert_int_equal(a.out[i].t_start_s, b.out[i].t_start_s);
			assert_int_equal(a.out[i].t_end_s, b.out[i].t_end_s);
			assert_int_equal(a.out[i].pl.node, b.out[i].pl.node);
			assert_memory_equal(a.out[i].pl.gpu, b.out[i].pl.gpu, GS_MAX_GPUS);
		}
		gs_sim_summarize(&a, &sa);
		gs_sim_summarize(&b, &sb);
		assert_memory_equal(&sa.tm, &sb.tm, sizeof(sa.tm));
		assert_true(fabs(sa.gpu_alloc_pct - sb.gpu_alloc_pct) == 0);
		gs_sim_release(&a);
		gs_sim_release(&b);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);

	/* The sample as it is: shares take whole GPUs, but nobody runs slower. */
	sample(&c, &t, false);
	{
		struct gs_sim sim;
		size_t done = 0;

		run(&sim, &c, &t, "exclusive", NULL);
		for (i = 0; i < t.n_pods; i++) {
			const struct gs_pod *p = &t.pods[i];

			if (sim.out[i].state != GS_POD_DONE)
				continue;
			assert_int_equal(sim.out[i].t_end_s - sim.out[i].t_start_s,
					 p->t_delete_s - p->t_create_s);
			done++;
		}
		assert_true(done > 1000);
		gs_sim_release(&sim);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Issue 9 and 21: 7 identical inference pods on one A100 80GB with the
 * default table against nos' aggregate throughput over one dedicated GPU.
 * Each pod asks for 1/7 of the GPU (142 milli, 8 GiB: a 1g.10gb), is busy
 * all the time (nos' pods run inferences back to back) and needs 0.503 of
 * the SMs: the value its 1g.10gb figure fixes in the sharing validation set
 * (row nos-mig-1g). The aggregate throughput is 7 x D / completion, against
 * 1 for one pod alone on an exclusive GPU. With u = 0.503, a = 0.9:
 *   time-slicing: each pod gets 1/7 of the time at efficiency 0.9010:
 *                 7 x (1/7) x 0.9010 = 0.901               (nos: 0.90x)
 *   MPS, no thread cap (as nos ran it): 7 x 0.503 SMs asked, each gets
 *                 1/7: 7 x (1/7) / 0.503 = 1.988          (nos: 1.93x)
 *   MPS, the device plugin's 14 % thread cap: each runs alone within it at
 *                 1 / (0.9 x 0.503 / 0.14 + 0.1) = 0.29993; 7 x 0.14 SMs
 *                 fit, so 7 x 0.29993 = 2.0995             (no figure)
 *   MIG 1g.10gb:  14 of 108 SMs, 1 of 8 memory slices:
 *                 7 / (0.9 x 0.503 x 108 / 14 + 0.1 x 0.503 x 8)
 *                 = 1.797                                   (nos: 1.80x)
 */
static void test_nos_aggregate_throughput(void **state)
{
	static const struct {
		const char *sharing;
		double published, model;
	} cases[] = {
		{ "timeslice:replicas=7", 0.90, 0.901 },
		{ "mps:replicas=7;threads=100", 1.93, 1.0 / 0.503 },
		{ "mps:replicas=7", 0, 7.0 / (0.9 * 0.503 / 0.14 + 0.1) },
		{ "mig", 1.80, 7.0 / (0.9 * 0.503 * 108 / 14 + 0.1 * 0.503 * 8) },
	};
	const int64_t D = 100000;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	size_t k;
	int i;

	(void)state;
	one_node(&c, 1, "A100-80G");
	gs_trace_init(&t);
	assert_int_equal(gs_trace_class(&t, "inference"), 1);
	add(&t, "alone", 142, 8192, 503, 0, D);
	t.pods[0].wclass = 1;
	run(&sim, &c, &t, "exclusive", NULL);
	assert_int_equal(sim.out[0].t_end_s, D); /* the dedicated GPU: rate 1 */
	gs_sim_release(&sim);
	gs_trace_release(&t);

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double agg;

		gs_trace_init(&t);
		assert_int_equal(gs_trace_class(&t, "inference"), 1);
		for (i = 0; i < 7; i++) {
			char name[8];

			snprintf(name, sizeof(name), "p%d", i);
			add(&t, name, 142, 8192, 503, 0, D);
			t.pods[i].wclass = 1;
		}
		run(&sim, &c, &t, cases[k].sharing, NULL);
		for (i = 0; i < 7; i++) {
			assert_int_equal(sim.out[i].state, GS_POD_DONE);
			assert_int_equal(sim.out[i].pl.node, 0);
			assert_int_equal(sim.out[i].t_end_s, sim.out[0].t_end_s);
		}
		agg = 7.0 * (double)D / (double)sim.out[0].t_end_s;
		print_message("%-28s aggregate %.3fx (model %.3f, nos %.2fx)\n", cases[k].sharing,
			      agg, cases[k].model, cases[k].published);
		assert_true(fabs(agg - cases[k].model) < 1e-3);
		if (cases[k].published > 0)
			assert_true(fabs(agg / cases[k].published - 1.0) <= 0.05);
		gs_sim_release(&sim);
		gs_trace_release(&t);
	}
	gs_cluster_release(&c);
}

/* Pod k of t ends where work d at rate r says: d / r, to the second (rates round up). */
static void assert_rate(const struct gs_sim *sim, int k, int64_t d, double r)
{
	double want = (double)d / r, got = (double)(sim->out[k].t_end_s - sim->out[k].t_start_s);

	if (fabs(got - want) > 1.0)
		fail_msg("pod %d: stay %.0f s, expected %.2f s (rate %.6f)", k, got, want, r);
}

/*
 * Issue 21: pods that are not always busy, worked out by hand. Pods of
 * 100,000 s of work start at 0 on one GPU; the others never leave.
 *   time-slicing, busy 0.5 + 0.5: the busy fractions fit one GPU, no loss.
 *   time-slicing, 0.75 + 0.75: each gets half the time, 0.5 / 0.75 of its
 *     speed, at the efficiency for 1.5 busy pods, 1 + (0.9021 - 1) x 0.5/2.
 *   time-slicing, 3 x 0.4: a third each, 0.3333 / 0.4 x (1 - 0.0979 x 0.2/2).
 *   MPS, 2 x (need 0.6, busy 0.5): 0.3 of the SMs each, they fit: rate 1.
 *   MPS, 2 x (need 0.8, busy 1): 0.5 of the SMs each: 0.5 / 0.8.
 *   MIG 1g.10gb on an H100, need 1, busy 0.5: its GPU work runs at
 *     1 / (0.9 x 132/16 + 0.1 x 8) = 0.12158 and its idle half does not
 *     slow down: 1 / (0.5 + 0.5 / 0.12158).
 *   vgpu capped 0.3 + 0.7, busy 1: 0.3 and 0.7 at the vgpu efficiency for 2,
 *     (0.98985 + 0.8929) / 2; with accuracy 0.2 the 0.3 pod gets
 *     0.2 x 0.3 + 0.8 x 0.5 = 0.46.
 *     With accuracy 0 (a gpushare GPU, which holds none of the asks) each
 *     gets half, as time-slicing gives it.
 *   vgpu elastic 0.3 (busy 1) + 0.7 (busy 0.2): B's idle time is lent to A:
 *     A 0.8, B all it wants, at the efficiency for 1.2 busy pods.
 */
static void test_busy_fractions(void **state)
{
	const int64_t D = 100000;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	double e15 = 1 + (0.9021 - 1) * 0.5 / 2, e12 = 1 + (0.9021 - 1) * 0.2 / 2;
	double v2 = (0.98985 + 0.8929) / 2, v12 = 0.98985 + (0.8929 - 0.98985) * 0.2 / 2;
	int i;

	(void)state;
	one_node(&c, 1, "H100");
	gs_trace_init(&t);
	add(&t, "A", 500, 0, 0, 0, D);
	add(&t, "B", 500, 0, 0, 0, -1);
	t.pods[0].busy_milli = t.pods[1].busy_milli = 500;
	run(&sim, &c, &t, "timeslice:replicas=2", NULL);
	assert_int_equal(sim.out[0].t_end_s, D);
	gs_sim_release(&sim);
	t.pods[0].busy_milli = t.pods[1].busy_milli = 750;
	run(&sim, &c, &t, "timeslice:replicas=2", NULL);
	assert_rate(&sim, 0, D, 0.5 / 0.75 * e15);
	gs_sim_release(&sim);
	/* MPS: need 0.6 busy 0.5 fit; need 0.8 busy 1 share the SMs. */
	t.pods[0].need_milli = t.pods[1].need_milli = 600;
	t.pods[0].busy_milli = t.pods[1].busy_milli = 500;
	run(&sim, &c, &t, "mps:replicas=2;threads=100", NULL);
	assert_int_equal(sim.out[0].t_end_s, D);
	gs_sim_release(&sim);
	t.pods[0].need_milli = t.pods[1].need_milli = 800;
	t.pods[0].busy_milli = t.pods[1].busy_milli = 0;
	run(&sim, &c, &t, "mps:replicas=2;threads=100", NULL);
	assert_rate(&sim, 0, D, 0.5 / 0.8);
	gs_sim_release(&sim);
	gs_trace_release(&t);

	gs_trace_init(&t);
	for (i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "p%d", i);
		add(&t, name, 300, 0, 0, 0, i ? -1 : D);
		t.pods[i].busy_milli = 400;
	}
	run(&sim, &c, &t, "timeslice:replicas=3", NULL);
	assert_rate(&sim, 0, D, (1.0 / 3) / 0.4 * e12);
	gs_sim_release(&sim);
	gs_trace_release(&t);

	/* MIG: the idle phases keep their speed. */
	gs_trace_init(&t);
	add(&t, "A", 100, 0, 1000, 0, D);
	t.pods[0].busy_milli = 500;
	run(&sim, &c, &t, "mig:layout=1g.10gb", NULL);
	assert_rate(&sim, 0, D, 1 / (0.5 + 0.5 / (1 / (0.9 * 132 / 16 + 0.1 * 8))));
	gs_sim_release(&sim);
	gs_trace_release(&t);

	/* vgpu: caps, a limiter that holds a fifth of them, and elastic lending. */
	gs_trace_init(&t);
	add(&t, "A", 300, 0, 1000, 0, D);
	add(&t, "B", 700, 0, 1000, 0, -1);
	run(&sim, &c, &t, "vgpu:capped", NULL);
	assert_rate(&sim, 0, D, 0.3 * v2);
	gs_sim_release(&sim);
	run(&sim, &c, &t, "vgpu:capped;accuracy=0.2", NULL);
	assert_rate(&sim, 0, D, 0.46 * v2);
	gs_sim_release(&sim);
	run(&sim, &c, &t, "vgpu:accuracy=0", NULL);
	assert_rate(&sim, 0, D, 0.5 * v2);
	gs_sim_release(&sim);
	t.pods[1].busy_milli = 200;
	run(&sim, &c, &t, "vgpu", NULL);
	assert_rate(&sim, 0, D, 0.8 * v12);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Issue 9: time-slicing does not isolate memory. On an H100 (80 GiB) with
 * 4 replicas, A (50 GiB) starts at 0; B (40 GiB) starts at 10 and fails,
 * 50 + 40 > 80, with its reason; C (20 GiB) starts at 20 and runs. MPS with
 * its default pinned limit (80 / 4 = 20 GiB) would have refused A at the
 * filter instead.
 */
static void test_timeslice_memory_oversubscription(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;

	(void)state;
	one_node(&c, 1, "H100");
	gs_trace_init(&t);
	add(&t, "A", 500, 50 * 1024, 0, 0, 100);
	add(&t, "B", 500, 40 * 1024, 0, 10, 100);
	add(&t, "C", 500, 20 * 1024, 0, 20, 100);
	run(&sim, &c, &t, "timeslice", NULL);
	assert_int_equal(sim.out[0].state, GS_POD_DONE);
	assert_int_equal(sim.out[1].state, GS_POD_FAILED);
	assert_int_equal(sim.out[1].fail, GS_FAIL_GPU_MEM);
	assert_string_equal(gs_fail_reason_str(sim.out[1].fail),
			    "GPU memory oversubscribed at start");
	assert_int_equal(sim.out[1].t_end_s, 10);
	assert_int_equal(sim.out[2].state, GS_POD_DONE);
	assert_int_equal(sim.out[2].t_start_s, 20);
	gs_sim_summarize(&sim, &s);
	assert_int_equal(s.oversubscribed, 1);
	assert_int_equal(s.failed, 1);
	gs_sim_release(&sim);

	run(&sim, &c, &t, "mps", NULL);
	assert_int_equal(sim.out[0].state, GS_POD_PENDING);
	assert_int_equal(sim.out[0].why.count[GS_FIT_MPS_MEM], 1);
	assert_int_equal(sim.oversubscribed, 0);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Every mode agrees on what fits: a pod asking 30,000 MiB of GPU memory on
 * a V100 of 16 GB (16,384 MiB) fits on no GPU, whatever the mechanism,
 * and stays pending with "Insufficient GPU memory", as in the plain
 * filter; it is never run (exclusive, and mig on a GPU without MIG, which
 * runs exclusive) nor failed at start (timeslice).
 */
static void test_every_mode_refuses_more_than_the_card(void **state)
{
	static const char *const modes[] = { "exclusive", "mig", "ideal", "vgpu", "timeslice",
					     "mps" };
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	size_t i;

	(void)state;
	one_node(&c, 1, "V100M16");
	gs_trace_init(&t);
	add(&t, "big", 1000, 30000, 0, 0, 100);
	add(&t, "fits", 1000, 4096, 0, 10, 100);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		run(&sim, &c, &t, modes[i], NULL);
		if (sim.out[0].state != GS_POD_PENDING)
			fail_msg("--sharing %s: the 30,000 MiB pod ends in state %d", modes[i],
				 (int)sim.out[0].state);
		assert_int_equal(sim.out[0].why.count[GS_FIT_GPU_MEM], 1);
		if (sim.out[1].state != GS_POD_DONE)
			fail_msg("--sharing %s: the 4,096 MiB pod ends in state %d", modes[i],
				 (int)sim.out[1].state);
		gs_sim_release(&sim);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * MIG figures on an H100 with the fixed layout 4g.40gb + 3g.40gb and one
 * pod asking for 0.3 of a GPU (2.1 slices, a 3g.40gb) from 0 to 100: the
 * idle 4g holds 4 of the 7 slices, 57.14 %; the busy 3g reserves 0.9 slice
 * beyond the request, 12.86 %. Exclusive: a 0.25 pod for 100 s on one GPU
 * delivers 25 % useful work on a GPU that is 100 % allocated.
 */
static void test_mig_and_utilisation_figures(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_summary s;

	(void)state;
	one_node(&c, 1, "H100");
	gs_trace_init(&t);
	add(&t, "A", 300, 0, 0, 0, 100);
	run(&sim, &c, &t, "mig:layout=4g.40gb+3g.40gb", NULL);
	assert_int_equal(sim.out[0].t_end_s, 100);
	assert_int_equal(sim.out[0].pl.mig[0], 5); /* the 3g at memory slice 4 */
	gs_sim_summarize(&sim, &s);
	assert_true(fabs(s.mig_idle_pct - 400.0 / 7) < 1e-9);
	assert_true(fabs(s.mig_slack_pct - 90.0 / 7) < 1e-9);
	assert_true(fabs(s.eff_util_busy_pct - 30.0) < 1e-9);
	assert_true(fabs(s.tm.gpu_alloc_busy_pct - 42.8) < 1e-9); /* 428 milli */
	gs_sim_release(&sim);

	/* Chosen as pods land: no idle instance, the same slack. */
	run(&sim, &c, &t, "mig", NULL);
	gs_sim_summarize(&sim, &s);
	assert_true(fabs(s.mig_idle_pct) < 1e-9);
	assert_true(fabs(s.mig_slack_pct - 90.0 / 7) < 1e-9);
	gs_sim_release(&sim);
	gs_trace_release(&t);

	gs_trace_init(&t);
	add(&t, "A", 250, 0, 0, 0, 100);
	/* B arrives at 50 so that the arrival window is [0, 50]. */
	add(&t, "B", 250, 0, 0, 50, 50);
	run(&sim, &c, &t, "exclusive", NULL);
	gs_sim_summarize(&sim, &s);
	assert_true(fabs(s.eff_util_busy_pct - 25.0) < 1e-9);  /* (100 + 50) x 0.25 / 150 */
	assert_true(fabs(s.eff_util_pct - 25.0) < 1e-9);       /* 50 x 0.25 / 50 */
	assert_true(fabs(s.tm.gpu_alloc_busy_pct - 100.0) < 1e-9);
	assert_true(isnan(s.mig_idle_pct));
	gs_sim_release(&sim);
	/* Without sharing the useful work is the allocation. */
	run(&sim, &c, &t, "ideal", NULL);
	gs_sim_summarize(&sim, &s);
	assert_true(fabs(s.eff_util_pct - s.tm.gpu_alloc_arrival_pct) < 1e-9);
	assert_true(fabs(s.eff_util_busy_pct - s.tm.gpu_alloc_busy_pct) < 1e-9);
	assert_true(fabs(s.eff_util_pct - 25.0) < 1e-9);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Pods on MIG instances keep their rate, so a neighbour's start or stop on
 * another instance of their GPU does not visit them: their coloc comes
 * from the GPU's own count of pods over time. On one H100 with 1g
 * instances: A [0, 100), B [20, 60), C [40, 140), D [100, 150) (it
 * arrives in the second A completes: arrivals come first, so its start
 * sees A), E from 0 on, never completing. Pods on the GPU: 2 on [0, 20),
 * 3 on [20, 40), 4 on [40, 60), 3 on [60, 140), 2 on [140, 150), then 1.
 */
static void test_mig_neighbours_and_coloc(void **state)
{
	static const struct {
		const char *name;
		int64_t at, d;
		double coloc;
	} pods[] = {
		{ "A", 0, 100, (2 * 20 + 3 * 20 + 4 * 20 + 3 * 40) / 100.0 },
		{ "B", 20, 40, (3 * 20 + 4 * 20) / 40.0 },
		{ "C", 40, 100, (4 * 20 + 3 * 80) / 100.0 },
		{ "D", 100, 50, (3 * 40 + 2 * 10) / 50.0 },
		{ "E", 0, -1, 0 },
	};
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	size_t k;

	(void)state;
	one_node(&c, 1, "H100");
	gs_trace_init(&t);
	for (k = 0; k < sizeof(pods) / sizeof(pods[0]); k++)
		add(&t, pods[k].name, 100, 0, 0, pods[k].at, pods[k].d);
	run(&sim, &c, &t, "mig", NULL);
	for (k = 0; k + 1 < sizeof(pods) / sizeof(pods[0]); k++) {
		assert_int_equal(sim.out[k].state, GS_POD_DONE);
		assert_int_equal(sim.out[k].t_start_s, pods[k].at);
		assert_int_equal(sim.out[k].t_end_s, pods[k].at + pods[k].d);
		assert_true(fabs(sim.out[k].coloc - pods[k].coloc) < 1e-6);
	}
	/* E still runs at the end of the run, 150: its pods over [0, 150). */
	assert_int_equal(sim.out[4].state, GS_POD_RUNNING);
	assert_true(fabs(sim.out[4].coloc - (300 + 3 * 40 + 2 * 10) / 150.0) < 1e-6);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Determinism: the same inputs give the same run, bit for bit. */
static void test_deterministic(void **state)
{
	static const char *const modes[] = { "timeslice", "mps", "vgpu", "vgpu:capped", "mig" };
	struct gs_cluster c;
	struct gs_trace t;
	size_t k;

	(void)state;
	sample(&c, &t, false);
	for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		struct gs_sim a, b;
		size_t i;

		run(&a, &c, &t, modes[k], NULL);
		run(&b, &c, &t, modes[k], NULL);
		assert_int_equal(a.stats.events, b.stats.events);
		for (i = 0; i < t.n_pods; i++) {
			assert_int_equal(a.out[i].t_end_s, b.out[i].t_end_s);
			assert_int_equal(a.out[i].state, b.out[i].state);
		}
		gs_sim_release(&a);
		gs_sim_release(&b);
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* The table's lookup: specific groups first, interpolation in n, 1 without rows. */
static void test_table_lookup(void **state)
{
	struct gs_interference tbl;
	char err[256];

	(void)state;
	gs_interference_init(&tbl);
	assert_int_equal(gs_interference_default(&tbl, err, sizeof(err)), 0);
	/* nos' time-slicing: 1 at n = 1, 0.9021 at 3; n = 2 halfway; past 7 the 7-pod figure. */
	assert_true(fabs(gs_interference_lookup(&tbl, GS_SHARE_TIMESLICE, "H100", "", 2) -
			 (1.0 + 0.9021) / 2) < 1e-12);
	assert_true(fabs(gs_interference_lookup(&tbl, GS_SHARE_TIMESLICE, "T4", NULL, 20) -
			 0.9010) < 1e-12);
	/* Busy pods that add up to 1.5: halfway between 1 and 2 of the 1-3 line. */
	assert_true(fabs(gs_interference_lookup(&tbl, GS_SHARE_TIMESLICE, "H100", "", 1.5) -
			 (1.0 + (0.9021 - 1.0) * 0.25)) < 1e-12);
	/* MPS costs nothing beyond its SM sharing; MIG has no rows: 1. */
	assert_true(gs_interference_lookup(&tbl, GS_SHARE_MPS, "V100M32", "training", 7) == 1.0);
	assert_true(gs_interference_lookup(&tbl, GS_SHARE_MIG, "H100", "", 3) == 1.0);
	gs_interference_release(&tbl);

	/* A model-specific row beats '*'; a class row beats a model row. */
	{
		static const char text[] = "mode,gpu_model,n,class,efficiency,source\n"
			"mps,*,2,*,1.5,a\nmps,H100,2,*,1.2,b\nmps,*,2,train,0.8,c\n";

		assert_int_equal(gs_interference_parse(&tbl, "t.csv", text, sizeof(text) - 1, err,
						       sizeof(err)), 0);
		assert_true(gs_interference_lookup(&tbl, GS_SHARE_MPS, "H100", "", 2) == 1.2);
		assert_true(gs_interference_lookup(&tbl, GS_SHARE_MPS, "A10", "x", 2) == 1.5);
		assert_true(gs_interference_lookup(&tbl, GS_SHARE_MPS, "H100", "train", 2) == 0.8);
		assert_true(gs_interference_lookup(&tbl, GS_SHARE_MIG, "H100", "train", 1) == 1.0);
		gs_interference_release(&tbl);
	}
}

/* The reader's errors: FILE:LINE: column NAME: what. */
static void test_table_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "mode,model\n", "t.csv:1: unrecognised header 'mode,model'; an interference table "
		  "starts with 'mode,gpu_model,n,class,efficiency,source'" },
		{ "mode,gpu_model,n,class,efficiency,source\nideal,*,1,*,1,x\n",
		  "t.csv:2: column mode: 'ideal' is not a sharing mode with interference (exclusive, "
		  "timeslice, mps, vgpu, mig)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmig,*,8,*,1,x\n",
		  "t.csv:2: column n: '8' is not a MIG instance size (1 to 7 compute slices)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmig,*,2.5,*,1,x\n",
		  "t.csv:2: column n: '2.5' is not a MIG instance size (1 to 7 compute slices)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,0.5,*,1,x\n",
		  "t.csv:2: column n: '0.5' is not a number of busy pods (1 to 64, the sum of their "
		  "busy fractions)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,-2,*,1,x\n",
		  "t.csv:2: column n: '-2' is not a decimal number" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,1\n",
		  "t.csv:2: expected 6 columns, found 5" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,1e0,x\n",
		  "t.csv:2: column efficiency: '1e0' is not a decimal number" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,0,x\n",
		  "t.csv:2: column efficiency: '0' is not an efficiency (above 0, at most 100)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,Big,1,x\n",
		  "t.csv:2: column class: 'Big' is not a workload class name or *" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,1,\n",
		  "t.csv:2: column source: empty source (say where the figure comes from)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,1,a\nmps,*,2.0,*,1.1,b\n",
		  "t.csv:3: duplicate row for mps, *, n 2, * (first on line 2)" },
		{ "mode,gpu_model,n,class,efficiency,source\n", "t.csv: no rows (only a header)" },
		/* The value as written, not as %g rounds it. */
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,100.0001,x\n",
		  "t.csv:2: column efficiency: '100.0001' is not an efficiency (above 0, at most 100)" },
		{ "mode,gpu_model,n,class,efficiency,source\nmps,*,2,*,1,caf\xc3\n",
		  "t.csv:2: column source: the source is not valid UTF-8" },
		/* A long model name is cut in the message, the message is not. */
		{ "mode,gpu_model,n,class,efficiency,source\nmps,"
		  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		  ",2,*,1,x\n",
		  "t.csv:2: column gpu_model: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...' is not a GPU model "
		  "name or *" },
	};
	struct gs_interference tbl;
	char err[512];
	size_t i;

	(void)state;
	gs_interference_init(&tbl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(gs_interference_parse(&tbl, "t.csv", bad[i].text,
						       strlen(bad[i].text), err, sizeof(err)),
				 GS_EPARSE);
		assert_string_equal(err, bad[i].msg);
		assert_int_equal(tbl.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeslice_two_whole_gpu_pods),
		cmocka_unit_test(test_timeslice_many_pods_on_one_gpu),
		cmocka_unit_test(test_exclusive_is_todays_engine),
		cmocka_unit_test(test_nos_aggregate_throughput),
		cmocka_unit_test(test_busy_fractions),
		cmocka_unit_test(test_timeslice_memory_oversubscription),
		cmocka_unit_test(test_every_mode_refuses_more_than_the_card),
		cmocka_unit_test(test_mig_and_utilisation_figures),
		cmocka_unit_test(test_mig_neighbours_and_coloc),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_table_lookup),
		cmocka_unit_test(test_table_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
