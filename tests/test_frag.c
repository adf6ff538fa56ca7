/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_frag.c - the fragmentation measure of Weng et al., ATC 2023
 * (sim/core/frag.h): per-kind amounts on nodes built by hand, their expectation
 * over a workload, the cluster totals kept one node at a time, and the
 * typical pod set of small traces (and of openb's default trace when it
 * is present). Every expected value is worked out in the comments.
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
#include "core/frag.h"
#include "policies/gpu_pick.h"
#include "policies/policy.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"
#include "testutil.h"

/* A node of n GPUs with the given free milli per GPU and cpu_free milli of CPU free. */
static struct gs_node node_with(int32_t cpu_free, int32_t model, int n, const int32_t *free_milli)
{
	struct gs_node nd;
	int i;

	memset(&nd, 0, sizeof(nd));
	nd.cpu_milli = 64000;
	nd.cpu_free_milli = cpu_free;
	nd.mem_mib = nd.mem_free_mib = 262144;
	nd.num_gpu = n;
	nd.model = n ? model : -1;
	for (i = 0; i < n; i++) {
		nd.gpu_free_milli[i] = free_milli[i];
		nd.gpu_mem_free_mib[i] = 16384;
	}
	gs_node_refresh(&nd);
	return nd;
}

static struct gs_kind kind(int32_t cpu, int32_t ngpu, int32_t milli, uint32_t mask, double p)
{
	struct gs_kind k;

	memset(&k, 0, sizeof(k));
	k.cpu_milli = cpu;
	k.num_gpu = ngpu;
	k.gpu_milli = milli;
	k.model_mask = mask;
	k.p = p;
	return k;
}

/*
 * Node A: 8 GPUs of model 2, 59000 CPU milli free, free GPU milli
 * [1000, 1000, 500, 200, 0, 1000, 800, 300]: the sum is 4800.
 */
static const int32_t a_free[8] = { 1000, 1000, 500, 200, 0, 1000, 800, 300 };

static void test_kind_amounts(void **st)
{
	struct gs_node a = node_with(59000, 2, 8, a_free);
	struct gs_node cpu_node = node_with(64000, -1, 0, NULL);
	struct gs_kind k;

	(void)st;
	/* No GPU asked: every free GPU milli is a fragment for it: 4800. */
	k = kind(4000, 0, 0, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 4800);
	/* 500 milli on one GPU: GPUs with >= 500 free exist (0, 1, 2, 5, 6); the
	 * ones too small are GPU 3 (200), 4 (0) and 7 (300): 500. */
	k = kind(4000, 1, 500, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 500);
	/* One whole GPU: GPUs 0, 1, 5 are whole; the rest is 500+200+0+800+300 = 1800. */
	k = kind(4000, 1, 1000, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 1800);
	/* Four whole GPUs: only three are free, so it does not fit: all 4800. */
	k = kind(4000, 4, 1000, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 4800);
	/* Three whole GPUs fit exactly: 1800 again. */
	k = kind(4000, 3, 1000, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 1800);
	/* Too little CPU (60000 > 59000): all 4800. Exactly enough CPU: 500. */
	k = kind(60000, 1, 500, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 4800);
	k = kind(59000, 1, 500, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 500);
	/* Model set {0, 1} excludes model 2: all 4800; {2, 5} includes it: 500. */
	k = kind(4000, 1, 500, 0x3u, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 4800);
	k = kind(4000, 1, 500, (1u << 2) | (1u << 5), 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 500);
	/* A kind asking 801 milli: GPUs with >= 801 are 0, 1, 5; too small:
	 * 500 + 200 + 0 + 800 + 300 = 1800. */
	k = kind(4000, 1, 801, 0, 1);
	assert_int_equal(gs_node_frag_kind(&a, &k), 1800);
	/* A node without GPUs has nothing to fragment. */
	k = kind(4000, 1, 500, 0, 1);
	assert_int_equal(gs_node_frag_kind(&cpu_node, &k), 0);
	k = kind(4000, 0, 0, 0, 1);
	assert_int_equal(gs_node_frag_kind(&cpu_node, &k), 0);
}

/* The workload used below: CPU-only 1/4, 500-milli share 1/2, one whole GPU 1/4. */
static struct gs_kind three_kinds[3];

static struct gs_workload three_kind_workload(void)
{
	struct gs_workload w;

	three_kinds[0] = kind(4000, 0, 0, 0, 0.25);
	three_kinds[1] = kind(4000, 1, 500, 0, 0.5);
	three_kinds[2] = kind(4000, 1, 1000, 0, 0.25);
	w.kinds = three_kinds;
	w.n = 3;
	return w;
}

static void test_node_expectation(void **st)
{
	struct gs_node a = node_with(59000, 2, 8, a_free);
	struct gs_workload w = three_kind_workload();

	(void)st;
	/* 0.25 * 4800 + 0.5 * 500 + 0.25 * 1800 = 1200 + 250 + 450 = 1900. */
	assert_true(fabs(gs_node_frag(&a, &w) - 1900.0) < 1e-9);
}

/*
 * gs_node_frag_categories, the reference's summation order. On node A
 * (4800 free, 59000 CPU), seven kinds of p = 1/8, one per category:
 *   (60000 CPU, 1 x 500): GPUs fit, CPU lacks, "lack CPU": 4800;
 *   (60000, 4 x 1000): neither fits, "lack both": 4800;
 *   (4000, 4 x 1000): only three whole GPUs, "lack GPU": 4800;
 *   (4000, 1 x 500, models {0, 1}): "no access": 4800;
 *   (4000, 1 x 500): fits, 500 on GPUs too small under "lack GPU";
 *   CPU-only 60000 and 4000: "lack CPU" and "satisfied" of CPU-only: 4800 each.
 * (6 x 4800 + 500) / 8 = 3662.5, exact in binary, equal to gs_node_frag.
 *
 * The rounding that matters: p = 4/7, 2/7, 1/7 for (2000 CPU, 1 x 600),
 * CPU-only 4000 and CPU-only 1000, in that order, on an 8-GPU node with
 * [500, 1000 x 7] free (7500). With 8000 CPU free the share kind fits with
 * 500 too small ("lack GPU" 4/7 x 500) and both CPU-only kinds fit
 * ("satisfied" 2/7 x 7500 + 1/7 x 7500); with 3000 free the 4000 kind moves
 * to "lack CPU". Both are 285.71 + 3214.29 = 3500 exactly, and so is
 * gs_node_frag, but the reference adds the two CPU-only amounts in one
 * category before the other categories in the first case and after them in
 * the second: 285.71... + (2142.86... + 1071.43...) = 3499.9999999999995
 * and (285.71... + 1071.43...) + 2142.86... = 3500, 4.5e-13 apart.
 */
static void test_node_categories(void **st)
{
	static const int32_t free8[8] = { 500, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	struct gs_node a = node_with(59000, 2, 8, a_free);
	struct gs_node b = node_with(8000, 0, 8, free8);
	struct gs_node c = node_with(3000, 0, 8, free8);
	struct gs_kind k7[7], k3[3];
	struct gs_workload w = { k7, 7 };
	double before, after;

	(void)st;
	k7[0] = kind(60000, 1, 500, 0, 0.125);
	k7[1] = kind(60000, 4, 1000, 0, 0.125);
	k7[2] = kind(4000, 4, 1000, 0, 0.125);
	k7[3] = kind(4000, 1, 500, 0x3u, 0.125);
	k7[4] = kind(4000, 1, 500, 0, 0.125);
	k7[5] = kind(60000, 0, 0, 0, 0.125);
	k7[6] = kind(4000, 0, 0, 0, 0.125);
	assert_true(gs_node_frag_categories(&a, &w) == 3662.5);
	assert_true(gs_node_frag(&a, &w) == 3662.5);

	k3[0] = kind(2000, 1, 600, 0, 4.0 / 7);
	k3[1] = kind(4000, 0, 0, 0, 2.0 / 7);
	k3[2] = kind(1000, 0, 0, 0, 1.0 / 7);
	w.kinds = k3;
	w.n = 3;
	before = gs_node_frag_categories(&b, &w);
	after = gs_node_frag_categories(&c, &w);
	assert_true(before == 4.0 / 7 * 500 + (2.0 / 7 * 7500 + 1.0 / 7 * 7500));
	assert_true(after == (4.0 / 7 * 500 + 1.0 / 7 * 7500) + 2.0 / 7 * 7500);
	assert_true(before < after);
	assert_true(fabs(before - after) < 1e-12);
	assert_true(fabs(gs_node_frag(&b, &w) - 3500) < 1e-9);
	assert_true(fabs(gs_node_frag(&c, &w) - 3500) < 1e-9);
}

/* A node's categories and per-kind amounts through its view, as FGD reads them. */
static double view_categories(const struct gs_frag_shares *s, const struct gs_node *n)
{
	static struct gs_frag_view v;

	gs_frag_view_init(s, n, &v);
	return gs_frag_view_categories(s, &v, n->cpu_free_milli);
}

static void view_kinds(const struct gs_frag_shares *s, const struct gs_node *n, int64_t *out)
{
	static struct gs_frag_view v;

	gs_frag_view_init(s, n, &v);
	gs_frag_view_kinds(s, &v, n->cpu_free_milli, out);
}

/*
 * gs_frag_view_categories() against gs_node_frag_categories(),
 * gs_frag_view_kinds() against gs_node_frag_kind(), gs_frag_view_drop()
 * against the per-kind differences summed in order, and a view with one
 * GPU lowered against the view of the node so changed, on random workloads (GPU counts, shares, CPU sizes and model sets,
 * CPU-only kinds, repeated shares) and random node states (models 0 to 2,
 * and nodes without GPUs, which have no model): the same double, compared
 * with ==.
 */
static void test_shares_match_the_reference(void **st)
{
	static const int32_t share[] = { 100, 230, 250, 500, 500, 1000 };
	struct gs_kind k[24];
	struct gs_workload w = { k, 0 };
	int64_t amounts[24], before[24];
	static struct gs_frag_view view, lowered;
	struct gs_frag_shares fs;
	struct gs_rng r;
	int round, i, m;

	(void)st;
	gs_rng_seed(&r, 2023);
	for (round = 0; round < 200; round++) {
		double left = 1.0;

		w.n = 1 + (int32_t)gs_rng_below(&r, 24);
		for (m = 0; m < w.n; m++) {
			int32_t ngpu = (int32_t)gs_rng_below(&r, 4);
			int32_t milli = ngpu == 1 ? share[gs_rng_below(&r, 6)] : 1000;
			double p = m + 1 < w.n ? left * gs_rng_uniform(&r) : left;

			k[m] = kind(1000 * (int32_t)gs_rng_below(&r, 40), ngpu, ngpu ? milli : 0,
				    (uint32_t)gs_rng_below(&r, 8), p);
			left -= p;
		}
		assert_int_equal(gs_frag_shares_init(&fs, &w), 0);
		for (i = 0; i < 50; i++) {
			int32_t free_milli[GS_MAX_GPUS];
			int n = (int)gs_rng_below(&r, 9), g;
			struct gs_node nd;

			for (g = 0; g < n; g++)
				free_milli[g] = 10 * (int32_t)gs_rng_below(&r, 101);
			nd = node_with(1000 * (int32_t)gs_rng_below(&r, 40), (int32_t)gs_rng_below(&r, 3),
				       n, free_milli);
			assert_true(view_categories(&fs, &nd) == gs_node_frag_categories(&nd, &w));
			view_kinds(&fs, &nd, amounts);
			for (m = 0; m < w.n; m++)
				assert_int_equal(amounts[m], gs_node_frag_kind(&nd, &k[m]));
			gs_frag_view_init(&fs, &nd, &view);
			if (i > 0) {
				double want = 0.25;

				for (m = 0; m < w.n; m++)
					if (before[m] != amounts[m])
						want += k[m].p * (double)(before[m] - amounts[m]);
				assert_true(gs_frag_view_drop(&fs, &view, nd.cpu_free_milli, before,
							      0.25) == want);
			}
			memcpy(before, amounts, sizeof(before));
			if (n > 0) {
				int32_t gpu = (int32_t)gs_rng_below(&r, (uint64_t)n);
				int32_t was = nd.gpu_free_milli[gpu];
				int32_t cpu = 1000 * (int32_t)gs_rng_below(&r, 40);

				gs_frag_view_lower(&fs, &view, was,
						   (int32_t)gs_rng_below(&r, (uint64_t)was + 1), &lowered);
				nd.gpu_free_milli[gpu] = was - (int32_t)(view.total - lowered.total);
				nd.cpu_free_milli = cpu;
				gs_node_refresh(&nd);
				assert_true(gs_frag_view_categories(&fs, &lowered, cpu) ==
					    gs_node_frag_categories(&nd, &w));
				gs_frag_view_kinds(&fs, &lowered, cpu, amounts);
				for (m = 0; m < w.n; m++)
					assert_int_equal(amounts[m], gs_node_frag_kind(&nd, &k[m]));
			}
		}
		gs_frag_shares_release(&fs);
	}
}

static void test_cluster_totals(void **st)
{
	struct gs_workload w = three_kind_workload();
	struct gs_cluster c;
	struct gs_frag f;
	struct gs_pod share = tu_pod(1000, 1024, 1, 300);
	struct gs_pod whole = tu_pod(1000, 1024, 1, 1000);
	struct gs_placement pl;
	int g0 = 0, g1 = 1;
	int32_t node;

	(void)st;
	gs_cluster_init(&c);
	gs_cluster_add_node(&c, "a", 64000, 262144, 2, "T4");
	gs_cluster_add_node(&c, "b", 32000, 131072, 4, "T4");
	assert_int_equal(gs_frag_init(&f, &c, &w), 0);
	/*
	 * Empty: a has 2000 free, b 4000. Only the CPU-only kind sees
	 * fragments: 0.25 * (2000 + 4000) = 1500.
	 */
	assert_true(fabs(gs_frag_total(&f) - 1500.0) < 1e-9);
	assert_true(fabs(gs_frag_node(&f, 0) - 500.0) < 1e-9);

	/*
	 * 300 milli on a's GPU 0: free [700, 1000], 1700 in all. CPU-only: 1700;
	 * 500-share fits with nothing too small: 0; whole GPU fits on GPU 1,
	 * GPU 0's 700 is too small: 700. a = 0.25*1700 + 0.25*700 = 600, and
	 * the total 600 + 0.25 * 4000 = 1600.
	 */
	pl = tu_pl(0, 1, &g0);
	assert_int_equal(gs_cluster_bind(&c, &share, &pl), 0);
	gs_frag_update(&f, &c, 0);
	assert_true(fabs(gs_frag_node(&f, 0) - 600.0) < 1e-9);
	assert_true(fabs(gs_frag_total(&f) - 1600.0) < 1e-9);

	/*
	 * A whole GPU on a's GPU 1: free [700, 0]. CPU-only: 700; 500-share
	 * fits on GPU 0: 0; whole GPU fits nowhere: 700. a = 0.25*700 +
	 * 0.25*700 = 350, total 350 + 1000 = 1350.
	 */
	pl = tu_pl(0, 1, &g1);
	assert_int_equal(gs_cluster_bind(&c, &whole, &pl), 0);
	gs_frag_update(&f, &c, 0);
	assert_true(fabs(gs_frag_node(&f, 0) - 350.0) < 1e-9);
	assert_true(fabs(gs_frag_total(&f) - 1350.0) < 1e-9);

	/* Unbinding both returns to the start exactly: the amounts are integers. */
	assert_int_equal(gs_cluster_unbind(&c, &whole, &pl), 0);
	pl = tu_pl(0, 1, &g0);
	assert_int_equal(gs_cluster_unbind(&c, &share, &pl), 0);
	gs_frag_update(&f, &c, 0);
	assert_true(gs_frag_total(&f) == 1500.0);

	/* Out-of-range nodes are ignored. */
	node = 7;
	gs_frag_update(&f, &c, node);
	assert_true(gs_frag_total(&f) == 1500.0);
	gs_frag_release(&f);
	gs_cluster_release(&c);
}

/* Many random binds and unbinds: the kept total equals a full recount. */
static void test_cluster_totals_no_drift(void **st)
{
	struct gs_workload w = three_kind_workload();
	struct gs_cluster c;
	struct gs_frag f;
	struct gs_pod pods[64];
	struct gs_placement pls[64];
	struct gs_rng r;
	int i, live = 0, step;

	(void)st;
	gs_cluster_init(&c);
	for (i = 0; i < 6; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		gs_cluster_add_node(&c, name, 64000, 262144, 1 + i % 4 * 2, "T4");
	}
	assert_int_equal(gs_frag_init(&f, &c, &w), 0);
	gs_rng_seed(&r, 7);
	for (step = 0; step < 2000; step++) {
		if (live > 0 && (live == 64 || gs_rng_below(&r, 2))) {
			int k = (int)gs_rng_below(&r, (uint64_t)live);

			assert_int_equal(gs_cluster_unbind(&c, &pods[k], &pls[k]), 0);
			gs_frag_update(&f, &c, pls[k].node);
			pods[k] = pods[live - 1];
			pls[k] = pls[live - 1];
			live--;
		} else {
			struct gs_pod p = tu_pod(1000, 1024, 1, 100 * (int32_t)(1 + gs_rng_below(&r, 10)));
			int32_t node = (int32_t)gs_rng_below(&r, 6);

			if (gs_cluster_fits(&c, node, &p) != GS_FIT_OK)
				continue;
			memset(&pls[live], 0, sizeof(pls[live]));
			pls[live].node = node;
			gs_gpu_pick_tightest(NULL, &c, node, &p, &pls[live]);
			assert_int_equal(gs_cluster_bind(&c, &p, &pls[live]), 0);
			gs_frag_update(&f, &c, node);
			pods[live++] = p;
		}
	}
	{
		double full = 0;
		int32_t n;

		for (n = 0; n < c.n_nodes; n++)
			full += gs_node_frag(&c.nodes[n], &w);
		assert_true(fabs(gs_frag_total(&f) - full) < 1e-6);
		/* Kind by kind, the integers exactly. */
		for (i = 0; i < w.n; i++) {
			int64_t sum = 0;

			for (n = 0; n < c.n_nodes; n++)
				sum += gs_node_frag_kind(&c.nodes[n], &w.kinds[i]);
			assert_int_equal(f.kind_total[i], sum);
		}
	}
	gs_frag_release(&f);
	gs_cluster_release(&c);
}

/*
 * A small trace, in order: 5 x (4000, 1 x 500), then D (16000, 2 x 1000),
 * 3 x (8000, 1 x 1000), C (2000, CPU-only). Ten pods; the counts are
 * A 5, B 3, D 1, C 1, and D comes before C.
 */
static size_t small_trace(struct gs_pod *p)
{
	size_t n = 0;
	int i;

	for (i = 0; i < 5; i++)
		p[n++] = tu_pod(4000, 8192, 1, 500);
	p[n++] = tu_pod(16000, 65536, 2, 1000);
	for (i = 0; i < 3; i++)
		p[n++] = tu_pod(8000, 16384, 1, 1000);
	/* CPU-only, written with a GPU count but no share: the same kind as (2000, 0, 0). */
	p[n++] = tu_pod(2000, 4096, 1, 0);
	return n;
}

static void test_typical_small(void **st)
{
	struct gs_pod pods[16];
	struct gs_workload w;
	size_t n = small_trace(pods);

	(void)st;
	/* 0.8 of 10 pods = 8: A (5) then B (8) reach it. p = 5/8, 3/8. */
	gs_workload_init(&w);
	assert_int_equal(gs_workload_typical(pods, n, 0.8, &w), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.kinds[0].cpu_milli, 4000);
	assert_int_equal(w.kinds[0].gpu_milli, 500);
	assert_int_equal(w.kinds[0].count, 5);
	assert_true(fabs(w.kinds[0].p - 0.625) < 1e-12);
	assert_int_equal(w.kinds[1].cpu_milli, 8000);
	assert_true(fabs(w.kinds[1].p - 0.375) < 1e-12);
	gs_workload_release(&w);
	assert_null(w.kinds);

	/* 0.9 = 9 pods: A, B, then the tie of D and C goes to D, seen first. */
	assert_int_equal(gs_workload_typical(pods, n, 0.9, &w), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.kinds[2].num_gpu, 2);
	assert_int_equal(w.kinds[2].gpu_milli, 1000);
	assert_true(fabs(w.kinds[0].p - 5.0 / 9) < 1e-12);
	assert_true(fabs(w.kinds[2].p - 1.0 / 9) < 1e-12);
	gs_workload_release(&w);

	/* Everything: the CPU-only kind is included, as (2000, 0 GPUs, 0 milli). */
	assert_int_equal(gs_workload_typical(pods, n, 1.0, &w), 0);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.kinds[3].cpu_milli, 2000);
	assert_int_equal(w.kinds[3].num_gpu, 0);
	assert_int_equal(w.kinds[3].gpu_milli, 0);
	assert_true(fabs(w.kinds[3].p - 0.1) < 1e-12);
	gs_workload_release(&w);

	/* A model constraint makes a kind of its own. */
	pods[0].model_mask = 1u << 3;
	assert_int_equal(gs_workload_typical(pods, n, 1.0, &w), 0);
	assert_int_equal(w.n, 5);
	assert_int_equal(w.kinds[0].count, 4);
	gs_workload_release(&w);

	/* Bad arguments. */
	assert_int_equal(gs_workload_typical(pods, 0, 0.95, &w), GS_EINVAL);
	assert_int_equal(gs_workload_typical(NULL, 3, 0.95, &w), GS_EINVAL);
	assert_int_equal(gs_workload_typical(pods, n, 0.0, &w), GS_EINVAL);
	assert_int_equal(gs_workload_typical(pods, n, 1.5, &w), GS_EINVAL);
	assert_int_equal(gs_workload_typical(pods, n, NAN, &w), GS_EINVAL);
}

/*
 * The reference's grouping (GS_KINDS_BY_SPEC). Ten pods:
 *   Ka 2 x (4000 CPU, 1 x 500, "V100M16|V100M32"),
 *   Kb 2 x the same with "V100M16|V100M32|V100M32" (the same model set),
 *   Kc 2 x the same with no spec, Kd 3 x CPU-only 2000, Ke 1 x (16000, 2 x 1000).
 * By spec text there are five kinds: Kd (3), then the tie of Ka, Kb and Kc
 * (equal CPU, milli and count) by descending text, Kb > Ka > Kc (""), then
 * Ke. At 0.8 (8 pods): Kd, Kb, Ka reach 7, Kc makes 9; p = (2/10) / (9/10)
 * for Kb, which in doubles is 0.22222222222222224, not 2/9 =
 * 0.22222222222222221. At 1.0 every kind is taken and p = count / 10
 * without renormalising.
 * By model set Ka and Kb are one kind of 4, first: 4, Kd 3, Kc 2 at 0.8.
 */
static void test_typical_by_spec(void **st)
{
	static const char ta[] = "V100M16|V100M32", tb[] = "V100M16|V100M32|V100M32";
	const uint32_t mask = (1u << 2) | (1u << 3);
	struct gs_pod pods[10];
	const char *specs[10];
	struct gs_workload w;
	size_t n = 0, i;

	(void)st;
	for (i = 0; i < 2; i++) {
		specs[n] = ta;
		pods[n] = tu_pod(4000, 8192, 1, 500);
		pods[n++].model_mask = mask;
		specs[n] = tb;
		pods[n] = tu_pod(4000, 8192, 1, 500);
		pods[n++].model_mask = mask;
		specs[n] = NULL;
		pods[n++] = tu_pod(4000, 8192, 1, 500);
	}
	for (i = 0; i < 3; i++) {
		specs[n] = NULL;
		pods[n++] = tu_pod(2000, 4096, 0, 0);
	}
	specs[n] = "";
	pods[n++] = tu_pod(16000, 65536, 2, 1000);

	gs_workload_init(&w);
	assert_int_equal(gs_workload_typical_by(pods, specs, n, 0.8, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.kinds[0].num_gpu, 0);
	assert_int_equal(w.kinds[0].count, 3);
	assert_true(w.kinds[0].p == (3.0 / 10) / (9.0 / 10));
	assert_int_equal(w.kinds[1].count, 2);
	assert_int_equal(w.kinds[1].model_mask, mask);
	assert_true(w.kinds[1].p == (2.0 / 10) / (9.0 / 10));
	assert_true(w.kinds[1].p != 2.0 / 9);
	assert_int_equal(w.kinds[2].count, 2);
	assert_int_equal(w.kinds[2].model_mask, mask);
	assert_int_equal(w.kinds[3].count, 2);
	assert_int_equal(w.kinds[3].model_mask, 0);
	gs_workload_release(&w);

	assert_int_equal(gs_workload_typical_by(pods, specs, n, 1.0, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 5);
	assert_true(w.kinds[0].p == 3.0 / 10);
	assert_int_equal(w.kinds[4].num_gpu, 2);
	assert_true(w.kinds[4].p == 1.0 / 10);
	gs_workload_release(&w);

	assert_int_equal(gs_workload_typical_by(pods, specs, n, 0.8, GS_KINDS_BY_MODEL_SET, &w), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.kinds[0].count, 4);
	assert_int_equal(w.kinds[0].model_mask, mask);
	assert_int_equal(w.kinds[1].count, 3);
	assert_int_equal(w.kinds[2].count, 2);
	assert_true(fabs(w.kinds[0].p - 4.0 / 9) < 1e-15);
	gs_workload_release(&w);

	/* Without texts the spec rule groups by model set and still orders ties. */
	assert_int_equal(gs_workload_typical_by(pods, NULL, n, 1.0, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.kinds[0].count, 4);
	gs_workload_release(&w);
	assert_int_equal(gs_workload_typical_by(pods, specs, n, 0.8, (enum gs_kinds_by)7, &w),
			 GS_EINVAL);

	/*
	 * Ties, one pod each, in file order: (4000, 1 x 500, "T4"), the same
	 * with "V100M32", and (8000, 1 x 500). By spec: descending CPU first,
	 * then descending text, "V100M32" > "T4". By model set: file order.
	 */
	pods[0] = tu_pod(4000, 8192, 1, 500);
	pods[0].model_mask = 1u << 0;
	specs[0] = "T4";
	pods[1] = tu_pod(4000, 8192, 1, 500);
	pods[1].model_mask = 1u << 3;
	specs[1] = "V100M32";
	pods[2] = tu_pod(8000, 8192, 1, 500);
	specs[2] = NULL;
	assert_int_equal(gs_workload_typical_by(pods, specs, 3, 1.0, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.kinds[0].cpu_milli, 8000);
	assert_int_equal(w.kinds[1].model_mask, 1u << 3);
	assert_int_equal(w.kinds[2].model_mask, 1u << 0);
	gs_workload_release(&w);
	assert_int_equal(gs_workload_typical_by(pods, specs, 3, 1.0, GS_KINDS_BY_MODEL_SET, &w), 0);
	assert_int_equal(w.kinds[0].model_mask, 1u << 0);
	assert_int_equal(w.kinds[1].model_mask, 1u << 3);
	assert_int_equal(w.kinds[2].cpu_milli, 8000);
	gs_workload_release(&w);
}

/*
 * openb's default trace (8152 pods, 91 kinds): the 95% set has 35 kinds
 * covering 7766 pods, the most frequent (3152 CPU, 1 x 810) with 1047, and
 * 5 CPU-only kinds holding 1056/7766 = 13.6%. On the empty cluster only
 * those see fragments (no typical kind asks more than 8 GPUs or more CPU
 * than a node has, apart from model constraints), so the fragmentation
 * ratio starts near 14%, as the paper's Fig. 7(b). Values from an
 * independent count of the CSV.
 */
static void test_typical_openb(void **st)
{
	char err[512], path[1024];
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_workload w;
	struct gs_frag f;
	double cpu_only = 0;
	int64_t cum;
	int32_t m;
	FILE *probe;

	(void)st;
	snprintf(path, sizeof(path), "%s/openb_pod_list_default.csv", GS_OPENB_DIR);
	probe = fopen(path, "r");
	if (!probe)
		skip();
	fclose(probe);
	gs_cluster_init(&c);
	gs_trace_init(&t);
	snprintf(path, sizeof(path), "%s/openb_node_list_gpu_node.csv", GS_OPENB_DIR);
	assert_int_equal(gs_load_cluster(path, &c, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/openb_pod_list_default.csv", GS_OPENB_DIR);
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n_pods, 8152);

	assert_int_equal(gs_workload_typical(t.pods, t.n_pods, 0.95, &w), 0);
	assert_int_equal(w.n, 35);
	assert_int_equal(w.kinds[0].cpu_milli, 3152);
	assert_int_equal(w.kinds[0].gpu_milli, 810);
	assert_int_equal(w.kinds[0].count, 1047);
	assert_true(fabs(w.kinds[0].p - 1047.0 / 7766) < 1e-12);
	for (m = 0; m < w.n; m++)
		if (w.kinds[m].num_gpu == 0)
			cpu_only += w.kinds[m].p;
	assert_true(fabs(cpu_only - 1056.0 / 7766) < 1e-12);

	/* 866232.55 milli of 6212000 idle: 13.94%. */
	assert_int_equal(gs_frag_init(&f, &c, &w), 0);
	assert_true(fabs(gs_frag_total(&f) / (double)c.gpu_free_milli - 0.139445) < 1e-5);
	gs_frag_release(&f);
	gs_workload_release(&w);
	gs_trace_release(&t);

	/*
	 * gpuspec25 writes some model sets twice ("V100M16|V100M32" and
	 * "V100M16|V100M32|V100M32"): 303 kinds by model set, 111 of them in the
	 * 95% set (7746 pods); 312 by spec text, 113 in the 95% set (7745 pods),
	 * as the reference counts them.
	 */
	gs_trace_init(&t);
	snprintf(path, sizeof(path), "%s/openb_pod_list_gpuspec25.csv", GS_OPENB_DIR);
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), 0);
	assert_int_equal(gs_workload_typical(t.pods, t.n_pods, 1.0, &w), 0);
	assert_int_equal(w.n, 303);
	gs_workload_release(&w);
	assert_int_equal(gs_workload_typical(t.pods, t.n_pods, 0.95, &w), 0);
	assert_int_equal(w.n, 111);
	gs_workload_release(&w);
	assert_int_equal(gs_workload_typical_by(t.pods, (const char *const *)t.pod_specs, t.n_pods,
						1.0, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 312);
	gs_workload_release(&w);
	assert_int_equal(gs_workload_typical_by(t.pods, (const char *const *)t.pod_specs, t.n_pods,
						0.95, GS_KINDS_BY_SPEC, &w), 0);
	assert_int_equal(w.n, 113);
	for (m = 0, cum = 0; m < w.n; m++)
		cum += w.kinds[m].count;
	assert_int_equal(cum, 7745);
	gs_workload_release(&w);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_amounts),
		cmocka_unit_test(test_node_expectation),
		cmocka_unit_test(test_node_categories),
		cmocka_unit_test(test_shares_match_the_reference),
		cmocka_unit_test(test_cluster_totals),
		cmocka_unit_test(test_cluster_totals_no_drift),
		cmocka_unit_test(test_typical_small),
		cmocka_unit_test(test_typical_by_spec),
		cmocka_unit_test(test_typical_openb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
