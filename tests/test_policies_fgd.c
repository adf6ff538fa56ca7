/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_policies_fgd.c - the policies of the FGD paper's comparison (Weng
 * et al., ATC 2023): dotprod, gpuclustering, gpupacking, bestfit and fgd,
 * each on a small cluster built by hand with its scores and placements
 * worked out in the comments, in exact and in compat (integer) scoring;
 * and fgd-lookahead, whose three terms each change a choice FGD makes.
 * The contract tests every policy passes are in test_policies.c.
 *
 * Pods already running are bound through gs_sched_bind so that stateful
 * policies hear of them. In compat mode the scheduler visits nodes in a
 * seed-shuffled order, so where nodes tie the test asks which of them
 * comes first in that order.
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
#include "policies/policy.h"
#include "policies/sched.h"
#include "testutil.h"

struct fixture {
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_pod workload[16];
	size_t n_workload;
};

static void start(struct fixture *f, const char *policy, unsigned flags)
{
	struct gs_policy_env env;
	const struct gs_policy *pol = gs_policy_find(policy);

	assert_non_null(pol);
	memset(&env, 0, sizeof(env));
	env.cluster = &f->c;
	env.workload = f->workload;
	env.n_workload = f->n_workload;
	env.seed = 42;
	env.flags = flags;
	assert_int_equal(gs_sched_init(&f->s, pol, &env), 0);
}

static void stop(struct fixture *f)
{
	gs_sched_release(&f->s);
	gs_cluster_release(&f->c);
}

/* Binds p on node with the listed GPUs through the scheduler. */
static void run_on(struct fixture *f, struct gs_pod p, int32_t node, int n, const int *gpus)
{
	struct gs_placement pl = tu_pl(node, n, gpus);

	assert_int_equal(gs_sched_bind(&f->s, &f->c, &p, &pl), 0);
}

static double score(struct fixture *f, int32_t node, const struct gs_pod *p)
{
	return f->s.policy->score(f->s.state, &f->c, node, p);
}

static struct gs_placement pick(struct fixture *f, const struct gs_pod *p)
{
	struct gs_placement pl;

	assert_int_equal(gs_sched_pick(&f->s, &f->c, p, &pl, NULL), 0);
	return pl;
}

/* Of nodes a and b, the one the scheduler visits first. */
static int32_t first_of(const struct fixture *f, int32_t a, int32_t b)
{
	int32_t i;

	for (i = 0; i < f->s.n_order; i++)
		if (f->s.order[i] == a || f->s.order[i] == b)
			return f->s.order[i];
	return -1;
}

static const int g0[] = { 0 }, g1[] = { 1 };

/* ---- dotprod ---------------------------------------------------------- */

/*
 * Nodes: 0 (32000 CPU, 2 GPUs), 1 (96000, 8), 2 and 3 (8000, 1) alike.
 * Pod 4000 CPU, one whole GPU. 1 - (C/128000 * 4000/128000 + SL/8000 *
 * 1000/8000) / 2:
 *   node 0: (0.25 * 0.03125 + 0.25 * 0.125) / 2 = 0.01953125 -> 0.98046875, 98;
 *   node 1: (0.75 * 0.03125 + 1 * 0.125) / 2 = 0.07421875 -> 0.92578125, 92;
 *   nodes 2, 3: (0.0625 * 0.03125 + 0.125 * 0.125) / 2 = 0.0087890625
 *   -> 0.9912109375, 99.
 * Nodes 2 and 3 tie; exact mode visits 0..n-1 and takes node 2.
 */
static void dotprod_cluster(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	gs_cluster_init(&f->c);
	gs_cluster_add_node(&f->c, "n0", 32000, 131072, 2, "T4");
	gs_cluster_add_node(&f->c, "n1", 96000, 393216, 8, "V100M32");
	gs_cluster_add_node(&f->c, "n2", 8000, 65536, 1, "P100");
	gs_cluster_add_node(&f->c, "n3", 8000, 65536, 1, "P100");
	f->c.check = true;
}

static void test_dotprod(void **st)
{
	struct fixture f;
	struct gs_pod p = tu_pod(4000, 8192, 1, 1000);
	struct gs_placement pl;

	(void)st;
	dotprod_cluster(&f);
	start(&f, "dotprod", 0);
	assert_true(fabs(score(&f, 0, &p) - 0.98046875) < 1e-12);
	assert_true(fabs(score(&f, 1, &p) - 0.92578125) < 1e-12);
	assert_true(fabs(score(&f, 2, &p) - 0.9912109375) < 1e-12);
	pl = pick(&f, &p);
	assert_int_equal(pl.node, 2);
	assert_int_equal(pl.num_gpu, 1);
	assert_int_equal(pl.gpu[0], 0);
	stop(&f);

	dotprod_cluster(&f);
	start(&f, "dotprod", GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &p) == 98.0);
	assert_true(score(&f, 1, &p) == 92.0);
	assert_true(score(&f, 2, &p) == 99.0);
	pl = pick(&f, &p);
	assert_int_equal(pl.node, first_of(&f, 2, 3));
	stop(&f);
}

/* ---- bestfit ---------------------------------------------------------- */

/*
 * Nodes: 0 (32000 CPU, 2 GPUs free), 1 (8000, 1 GPU), 2 (16000, 3 GPUs
 * with 500 and 200 milli already used on GPUs 1 and 2 by pods of 500
 * CPU: 15000 CPU and [1000, 500, 800] free). Pod 4000 CPU, 400 milli.
 * Left over 0.5 (C - c)/128000 + 0.5 (SL - r)/8000:
 *   node 0: 0.5 * 28000/128000 + 0.5 * 1600/8000 = 0.109375 + 0.1 = 0.209375, 79;
 *   node 1: 0.5 * 4000/128000 + 0.5 * 600/8000 = 0.015625 + 0.0375 = 0.053125, 94;
 *   node 2: 0.5 * 11000/128000 + 0.5 * 1900/8000 = 0.04296875 + 0.11875
 *           = 0.16171875, 83.
 * Node 1 wins. A second pod then finds node 1 full (CPU 4000 left, GPU 600
 * left: fits again, left 0.5*0 + 0.5*200/8000 = 0.0125, 98).
 * On node 2 alone the pod takes GPU 1 (500 free, the tightest that fits).
 */
static void bestfit_cluster(struct fixture *f, const char *policy, unsigned flags)
{
	memset(f, 0, sizeof(*f));
	gs_cluster_init(&f->c);
	gs_cluster_add_node(&f->c, "n0", 32000, 131072, 2, "T4");
	gs_cluster_add_node(&f->c, "n1", 8000, 65536, 1, "P100");
	gs_cluster_add_node(&f->c, "n2", 16000, 65536, 3, "T4");
	f->c.check = true;
	start(f, policy, flags);
	run_on(f, tu_pod(500, 1024, 1, 500), 2, 1, g1);
	run_on(f, tu_pod(500, 1024, 1, 200), 2, 1, (const int[]){ 2 });
}

static void test_bestfit(void **st)
{
	struct fixture f;
	struct gs_pod p = tu_pod(4000, 8192, 1, 400);
	struct gs_placement pl;

	(void)st;
	bestfit_cluster(&f, "bestfit", GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &p) == 79.0);
	assert_true(score(&f, 1, &p) == 94.0);
	assert_true(score(&f, 2, &p) == 83.0);
	pl = pick(&f, &p);
	assert_int_equal(pl.node, 1);
	assert_int_equal(gs_sched_bind(&f.s, &f.c, &p, &pl), 0);
	assert_true(score(&f, 1, &p) == 98.0);
	f.s.policy->pick_gpus(f.s.state, &f.c, 2, &p, &pl);
	assert_int_equal(pl.num_gpu, 1);
	assert_int_equal(pl.gpu[0], 1);
	stop(&f);

	bestfit_cluster(&f, "bestfit", 0);
	assert_true(fabs(score(&f, 0, &p) + 0.209375) < 1e-12);
	assert_true(fabs(score(&f, 2, &p) + 0.16171875) < 1e-12);
	assert_int_equal(pick(&f, &p).node, 1);
	stop(&f);
}

/* ---- gpuclustering ----------------------------------------------------- */

/*
 * Four nodes of 4 GPUs, 64000 CPU. Node 0 holds a 500-milli share pod
 * (tag share, SL 3500), node 1 a whole-GPU pod (tag 1, SL 3000), node 2
 * nothing (SL 4000), node 3 one of each (SL 2500). Base 25 (8000 - SL)/8000
 * truncated: 14 (14.0625), 15 (15.625), 12 (12.5), 17 (17.1875).
 *   share pod:  node 0 only shares 14 + 75 = 89, node 1 other tag 15 + 0,
 *               node 2 empty 12 + 25 = 37, node 3 mixed 17 + 50 = 67;
 *   1 GPU pod:  14, 15 + 75 = 90, 37, 67;
 *   2 GPU pod:  14, 15, 37, 17 (nobody holds that tag);
 *   CPU-only:   0 everywhere.
 */
static void clustering_cluster(struct fixture *f, unsigned flags)
{
	int i;

	memset(f, 0, sizeof(*f));
	gs_cluster_init(&f->c);
	for (i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		gs_cluster_add_node(&f->c, name, 64000, 262144, 4, "T4");
	}
	f->c.check = true;
	start(f, "gpuclustering", flags);
	run_on(f, tu_pod(1000, 1024, 1, 500), 0, 1, g0);
	run_on(f, tu_pod(1000, 1024, 1, 1000), 1, 1, g0);
	run_on(f, tu_pod(1000, 1024, 1, 500), 3, 1, g0);
	run_on(f, tu_pod(1000, 1024, 1, 1000), 3, 1, g1);
}

static void test_gpuclustering(void **st)
{
	struct fixture f;
	struct gs_pod share = tu_pod(2000, 4096, 1, 300);
	struct gs_pod one = tu_pod(2000, 4096, 1, 1000);
	struct gs_pod two = tu_pod(2000, 4096, 2, 1000);
	struct gs_pod cpu = tu_pod(2000, 4096, 0, 0);
	struct gs_placement pl;

	(void)st;
	clustering_cluster(&f, GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &share) == 89.0);
	assert_true(score(&f, 1, &share) == 15.0);
	assert_true(score(&f, 2, &share) == 37.0);
	assert_true(score(&f, 3, &share) == 67.0);
	assert_true(score(&f, 1, &one) == 90.0);
	assert_true(score(&f, 3, &one) == 67.0);
	assert_true(score(&f, 2, &two) == 37.0);
	assert_true(score(&f, 3, &two) == 17.0);
	assert_true(score(&f, 0, &cpu) == 0.0);
	pl = pick(&f, &share);
	assert_int_equal(pl.node, 0);
	/* Tightest GPU on node 0: GPU 0 has 500 free, the others 1000. */
	assert_int_equal(pl.gpu[0], 0);
	assert_int_equal(pick(&f, &one).node, 1);
	assert_int_equal(pick(&f, &two).node, 2);
	assert_int_equal(pick(&f, &cpu).node, f.s.order[0]);

	/* Unbinding node 0's share pod leaves it empty: 12 + 25 = 37. */
	pl = tu_pl(0, 1, g0);
	{
		struct gs_pod gone = tu_pod(1000, 1024, 1, 500);

		assert_int_equal(gs_sched_unbind(&f.s, &f.c, &gone, &pl), 0);
	}
	assert_true(score(&f, 0, &share) == 37.0);
	stop(&f);

	/* Exact: the bases are not truncated, 14.0625 + 75. */
	clustering_cluster(&f, 0);
	assert_true(fabs(score(&f, 0, &share) - 89.0625) < 1e-12);
	assert_true(fabs(score(&f, 3, &two) - 17.1875) < 1e-12);
	assert_int_equal(pick(&f, &cpu).node, 0);
	stop(&f);
}

/* ---- gpupacking ------------------------------------------------------- */

/*
 * Node 0: 8 GPUs all free; node 1: 2 GPUs all free; node 2: 4 GPUs, a
 * 300-milli pod on GPU 0 (700 free); node 3: 4 GPUs, 800 and 500 milli
 * used on GPUs 0 and 1 (200 and 500 free).
 *   all-free nodes: 33 - n, at least n: node 0 25, node 1 31;
 *   400-milli pod: node 2 shares GPU 0: 100 - (700*100/1000)/10 = 93;
 *                  node 3 shares GPU 1 (500, tightest that fits): 95;
 *   600-milli pod: node 2 GPU 0: 93; node 3 needs a free GPU: 50 - 1 = 49;
 *   one whole GPU: nodes 2 and 3 both 49 (a tie), node 0 25, node 1 31;
 *   CPU-only: 0 everywhere.
 */
static void packing_cluster(struct fixture *f, unsigned flags)
{
	memset(f, 0, sizeof(*f));
	gs_cluster_init(&f->c);
	gs_cluster_add_node(&f->c, "n0", 96000, 393216, 8, "V100M32");
	gs_cluster_add_node(&f->c, "n1", 32000, 131072, 2, "T4");
	gs_cluster_add_node(&f->c, "n2", 64000, 262144, 4, "T4");
	gs_cluster_add_node(&f->c, "n3", 64000, 262144, 4, "T4");
	f->c.check = true;
	start(f, "gpupacking", flags);
	run_on(f, tu_pod(1000, 1024, 1, 300), 2, 1, g0);
	run_on(f, tu_pod(1000, 1024, 1, 800), 3, 1, g0);
	run_on(f, tu_pod(1000, 1024, 1, 500), 3, 1, g1);
}

static void test_gpupacking(void **st)
{
	struct fixture f;
	struct gs_pod p400 = tu_pod(2000, 4096, 1, 400);
	struct gs_pod p600 = tu_pod(2000, 4096, 1, 600);
	struct gs_pod one = tu_pod(2000, 4096, 1, 1000);
	struct gs_pod cpu = tu_pod(2000, 4096, 0, 0);
	struct gs_placement pl;

	(void)st;
	packing_cluster(&f, GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &p400) == 25.0);
	assert_true(score(&f, 1, &p400) == 31.0);
	assert_true(score(&f, 2, &p400) == 93.0);
	assert_true(score(&f, 3, &p400) == 95.0);
	assert_true(score(&f, 3, &p600) == 49.0);
	assert_true(score(&f, 2, &one) == 49.0);
	pl = pick(&f, &p400);
	assert_int_equal(pl.node, 3);
	assert_int_equal(pl.gpu[0], 1);
	pl = pick(&f, &p600);
	assert_int_equal(pl.node, 2);
	assert_int_equal(pl.gpu[0], 0);
	assert_int_equal(pick(&f, &one).node, first_of(&f, 2, 3));
	assert_int_equal(pick(&f, &cpu).node, f.s.order[0]);
	stop(&f);

	/* Exact: 100 - 700/100 = 93 and 100 - 500/100 = 95 already; all-free 33.33 - n. */
	packing_cluster(&f, 0);
	assert_true(fabs(score(&f, 1, &p400) - (100.0 / 3 - 2)) < 1e-12);
	assert_int_equal(pick(&f, &one).node, 2);
	stop(&f);
}

/* ---- fgd -------------------------------------------------------------- */

/*
 * Workload: 6 x (2000 CPU, 500 milli), 2 x (2000, 1 GPU), 2 x (2000,
 * CPU-only): at 95% all three kinds, p = 0.6, 0.2, 0.2.
 * Nodes 0 and 1: 32000 CPU, 2 GPUs; node 1 runs a (2000, 500) pod on GPU 1:
 * 30000 CPU and [1000, 500] free. Fragmentation:
 *   node 0 [1000, 1000]: CPU-only 0.2*2000 = 400; share and whole fit with
 *          nothing too small: 0. Total 400.
 *   node 1 [1000, 500]: CPU-only 0.2*1500 = 300; share fits, 0; whole fits
 *          on GPU 0, GPU 1's 500 too small: 0.2*500 = 100. Total 400.
 * A (2000, 500) pod:
 *   node 0, GPU 0 -> [500, 1000]: 0.2*1500 + 0 + 0.2*500 = 400, drop 0,
 *          score trunc(100 sigmoid(0)) = 50; GPU 1 the same;
 *   node 1, GPU 0 -> [500, 500]: 0.2*1000 + 0 + 0.2*1000 (no whole GPU)
 *          = 400, drop 0, 50;
 *   node 1, GPU 1 -> [1000, 0]: 0.2*1000 + 0 + 0 = 200, drop 200,
 *          100 sigmoid(0.2) = 54.98, 54.
 * So node 1, GPU 1, score 54 (exact: 200).
 */
static void fgd_cluster(struct fixture *f, unsigned flags)
{
	int i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < 6; i++)
		f->workload[f->n_workload++] = tu_pod(2000, 4096, 1, 500);
	for (i = 0; i < 2; i++)
		f->workload[f->n_workload++] = tu_pod(2000, 4096, 1, 1000);
	for (i = 0; i < 2; i++)
		f->workload[f->n_workload++] = tu_pod(2000, 4096, 0, 0);
	gs_cluster_init(&f->c);
	gs_cluster_add_node(&f->c, "n0", 32000, 131072, 2, "T4");
	gs_cluster_add_node(&f->c, "n1", 32000, 131072, 2, "T4");
	f->c.check = true;
	start(f, "fgd", flags);
	run_on(f, tu_pod(2000, 4096, 1, 500), 1, 1, g1);
}

static void test_fgd_share(void **st)
{
	struct fixture f;
	struct gs_pod share = tu_pod(2000, 4096, 1, 500);
	struct gs_placement pl;

	(void)st;
	fgd_cluster(&f, GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &share) == 50.0);
	assert_true(score(&f, 1, &share) == 54.0);
	pl = pick(&f, &share);
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.num_gpu, 1);
	assert_int_equal(pl.gpu[0], 1);
	assert_int_equal(gs_sched_bind(&f.s, &f.c, &share, &pl), 0);
	/*
	 * Node 1 is now [1000, 0] with 28000 CPU: fragmentation 0.2*1000 = 200.
	 * Another share pod on GPU 0 -> [500, 0]: 0.2*500 + 0 + 0.2*500 (no
	 * whole GPU) = 200, drop 0, 50: the cached 54 must not survive the bind.
	 */
	assert_true(score(&f, 1, &share) == 50.0);
	assert_true(score(&f, 0, &share) == 50.0);
	assert_int_equal(pick(&f, &share).node, first_of(&f, 0, 1));
	stop(&f);

	fgd_cluster(&f, 0);
	assert_true(fabs(score(&f, 1, &share) - 200.0) < 1e-9);
	assert_true(fabs(score(&f, 0, &share)) < 1e-9);
	pl = pick(&f, &share);
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.gpu[0], 1);
	stop(&f);
}

/*
 * On the starting state of fgd_cluster:
 * A (2000, 1 GPU) pod takes the first free GPU by index.
 *   node 0 -> [0, 1000]: 0.2*1000 + 0 + 0 = 200, drop 200, 54;
 *   node 1 -> [0, 500]: 0.2*500 + 0 + 0.2*500 (no whole GPU) = 200, drop 200, 54.
 * A tie: node order (exact: node 0).
 * A (30000, CPU-only) pod:
 *   node 0 keeps 2000 CPU, every kind still fits as before: drop 0, 50;
 *   node 1 would keep 0 CPU: no GPU kind fits, all 1500 is fragment for
 *   every kind: 1500, drop -1100, 100 sigmoid(-1.1) = 24.97, 24.
 * Node 0 wins.
 */
static void test_fgd_whole_and_cpu(void **st)
{
	struct fixture f;
	struct gs_pod one = tu_pod(2000, 4096, 1, 1000);
	struct gs_pod cpu = tu_pod(30000, 4096, 0, 0);
	struct gs_placement pl;

	(void)st;
	fgd_cluster(&f, GS_POLICY_COMPAT);
	assert_true(score(&f, 0, &one) == 54.0);
	assert_true(score(&f, 1, &one) == 54.0);
	pl = pick(&f, &one);
	assert_int_equal(pl.node, first_of(&f, 0, 1));
	assert_int_equal(pl.gpu[0], 0);
	assert_true(score(&f, 0, &cpu) == 50.0);
	assert_true(score(&f, 1, &cpu) == 24.0);
	assert_int_equal(pick(&f, &cpu).node, 0);
	stop(&f);

	fgd_cluster(&f, 0);
	assert_true(fabs(score(&f, 0, &one) - 200.0) < 1e-9);
	assert_true(fabs(score(&f, 1, &one) - 200.0) < 1e-9);
	assert_int_equal(pick(&f, &one).node, 0);
	assert_true(fabs(score(&f, 1, &cpu) + 1100.0) < 1e-9);
	stop(&f);
}

/*
 * "No change" in compat: the reference's difference of category totals.
 * Workload: 4 x (2000 CPU, 1 x 600), 2 x CPU-only 4000, 1 x CPU-only 1000;
 * at 95% all three kinds, p = 4/7, 2/7, 1/7 in that order. Nodes 0 and 1 have
 * 8 GPUs, [500, 1000 x 7] free after a (0 CPU, 1 x 500) pod on GPU 0, and
 * 8000 and 32000 CPU. A CPU-only 5000 pod changes no GPU, and on both
 * nodes every kind's amount stays the same: exact mode scores 0 twice and
 * takes node 0. On node 0 the 4000 kind moves from "satisfied" to "lack
 * CPU" (3000 left); the totals are 285.71 + (2142.86 + 1071.43) =
 * 3499.9999999999995 before and (285.71 + 1071.43) + 2142.86 = 3500 after
 * (test_frag.c works them out), delta -4.5e-13, and 100 sigmoid(-4.5e-16)
 * = 49.99999999999999 truncates to 49. Node 1 keeps every kind where it
 * was, delta exactly 0, 50. So compat takes node 1 whatever the node order.
 */
static void test_fgd_no_change(void **st)
{
	struct fixture f;
	struct gs_pod cpu = tu_pod(5000, 4096, 0, 0);
	int i;

	(void)st;
	memset(&f, 0, sizeof(f));
	for (i = 0; i < 4; i++)
		f.workload[f.n_workload++] = tu_pod(2000, 4096, 1, 600);
	for (i = 0; i < 2; i++)
		f.workload[f.n_workload++] = tu_pod(4000, 4096, 0, 0);
	f.workload[f.n_workload++] = tu_pod(1000, 4096, 0, 0);
	gs_cluster_init(&f.c);
	gs_cluster_add_node(&f.c, "n0", 8000, 131072, 8, "V100M32");
	gs_cluster_add_node(&f.c, "n1", 32000, 131072, 8, "V100M32");
	f.c.check = true;
	start(&f, "fgd", GS_POLICY_COMPAT);
	run_on(&f, tu_pod(0, 1024, 1, 500), 0, 1, g0);
	run_on(&f, tu_pod(0, 1024, 1, 500), 1, 1, g0);
	assert_true(score(&f, 0, &cpu) == 49.0);
	assert_true(score(&f, 1, &cpu) == 50.0);
	assert_int_equal(pick(&f, &cpu).node, 1);
	stop(&f);

	f.workload[0] = tu_pod(2000, 4096, 1, 600);
	gs_cluster_init(&f.c);
	gs_cluster_add_node(&f.c, "n0", 8000, 131072, 8, "V100M32");
	gs_cluster_add_node(&f.c, "n1", 32000, 131072, 8, "V100M32");
	start(&f, "fgd", 0);
	run_on(&f, tu_pod(0, 1024, 1, 500), 0, 1, g0);
	run_on(&f, tu_pod(0, 1024, 1, 500), 1, 1, g0);
	assert_true(score(&f, 0, &cpu) == 0.0);
	assert_true(score(&f, 1, &cpu) == 0.0);
	assert_int_equal(pick(&f, &cpu).node, 0);
	stop(&f);
}

/* A workload FGD cannot use is an init error, not a crash. */
static void test_fgd_needs_workload(void **st)
{
	struct fixture f;
	struct gs_policy_env env;

	(void)st;
	memset(&f, 0, sizeof(f));
	gs_cluster_init(&f.c);
	gs_cluster_add_node(&f.c, "n0", 32000, 131072, 2, "T4");
	memset(&env, 0, sizeof(env));
	env.cluster = &f.c;
	assert_int_equal(gs_sched_init(&f.s, gs_policy_find("fgd"), &env), GS_EINVAL);
	gs_cluster_release(&f.c);
}


/* ---- fgd-lookahead ---------------------------------------------------- */

/* A cluster and a workload of the tests below, in exact scoring. */
static void lookahead_start(struct fixture *f, const char *policy)
{
	f->c.check = true;
	start(f, policy, 0);
}

/*
 * CPU balance. Workload: 4 x (4000 CPU, 1 GPU), 1 x CPU-only 4000: p = 0.8,
 * 0.2; the GPU pods ask 4000 / 1000 = 4 CPU milli per milli-GPU. Nodes 0
 * (8000 CPU) and 1 (32000 CPU), 2 T4 each. A CPU-only 4000 pod changes no
 * kind's fragmentation on either node (the 1-GPU kind still fits), so FGD
 * scores 0 twice and takes node 0. Stranded share G - C/4: node 0 goes from
 * 2000 - 2000 = 0 to 2000 - 1000 = 1000, weight 2: -2000; node 1 stays at
 * 0. fgd-lookahead takes node 1 (no GPU changes: no lookahead term; one
 * model: no pressure).
 */
static void test_lookahead_cpu_balance(void **st)
{
	struct fixture f;
	struct gs_pod cpu = tu_pod(4000, 4096, 0, 0);
	const char *names[] = { "fgd", "fgd-lookahead" };
	int i, k;

	(void)st;
	for (k = 0; k < 2; k++) {
		memset(&f, 0, sizeof(f));
		for (i = 0; i < 4; i++)
			f.workload[f.n_workload++] = tu_pod(4000, 4096, 1, 1000);
		f.workload[f.n_workload++] = tu_pod(4000, 4096, 0, 0);
		gs_cluster_init(&f.c);
		gs_cluster_add_node(&f.c, "n0", 8000, 131072, 2, "T4");
		gs_cluster_add_node(&f.c, "n1", 32000, 131072, 2, "T4");
		lookahead_start(&f, names[k]);
		assert_true(fabs(score(&f, 0, &cpu) - (k ? -2000.0 : 0.0)) < 1e-9);
		assert_true(fabs(score(&f, 1, &cpu)) < 1e-9);
		assert_int_equal(pick(&f, &cpu).node, k);
		stop(&f);
	}
}

/*
 * Lookahead. Workload: 2 x (1000 CPU, 1 x 600), 2 x (1000, 1 x 400): p =
 * 0.5 each. W(g), what a GPU with g free keeps after the next typical pods
 * that fit land on it (K = 100 is as good as the limit here): g below 400;
 * g - 400 up to 600 (only the 400 fits, and leaves less than 400); then
 * the mean over the two pods: W(600) = (0 + 200) / 2 = 100, W(800) =
 * (W(200) + W(400)) / 2 = (200 + 0) / 2 = 100, W(1000) = (W(400) + W(600))
 * / 2 = 50. One node of 3 GPUs with [1000, 600, 800] free (a 400 on GPU 1,
 * a 200 on GPU 2). A 400 pod:
 *   GPU 0 -> [600, 600, 800]: no kind loses a GPU, FGD drop 0; sum of W
 *          250 -> 300, lookahead 4 x -50 = -200; total -200;
 *   GPU 1 -> [1000, 200, 800]: 200 too small for both kinds, drop -200;
 *          W 250 -> 350, -400; total -600;
 *   GPU 2 -> [1000, 600, 400]: 400 too small for the 600 kind, drop
 *          -0.5 x 400 = -200; W 250 -> 150, +400; total +200.
 * FGD takes GPU 0 (0 against -200 twice), fgd-lookahead GPU 2, which a
 * later 400 fills exactly.
 */
static void test_lookahead_gap(void **st)
{
	struct fixture f;
	struct gs_pod p = tu_pod(1000, 1024, 1, 400);
	struct gs_placement pl;
	const char *names[] = { "fgd", "fgd-lookahead" };
	int i, k;

	(void)st;
	for (k = 0; k < 2; k++) {
		memset(&f, 0, sizeof(f));
		for (i = 0; i < 2; i++) {
			f.workload[f.n_workload++] = tu_pod(1000, 1024, 1, 600);
			f.workload[f.n_workload++] = tu_pod(1000, 1024, 1, 400);
		}
		gs_cluster_init(&f.c);
		gs_cluster_add_node(&f.c, "n0", 64000, 262144, 3, "V100M32");
		lookahead_start(&f, names[k]);
		run_on(&f, tu_pod(1000, 1024, 1, 400), 0, 1, g1);
		run_on(&f, tu_pod(1000, 1024, 1, 200), 0, 1, (const int[]){ 2 });
		assert_true(fabs(score(&f, 0, &p) - (k ? 200.0 : 0.0)) < 1e-9);
		pl = pick(&f, &p);
		assert_int_equal(pl.node, 0);
		assert_int_equal(pl.num_gpu, 1);
		assert_int_equal(pl.gpu[0], k ? 2 : 0);
		stop(&f);
	}
}

/*
 * Model pressure. Workload: 2 x (1000 CPU, 1 GPU, T4 only), 2 x (1000, 1 x
 * 500, any model): p = 0.5 each. Nodes 0 (T4) and 1 (P100), 2 GPUs and
 * 32000 CPU each, each with a 500 pod on GPU 0: [500, 1000] free.
 * Demand per GPU, the T4-only kind on the 2 T4 GPUs, the other over all 4:
 * cluster (0.5 x 1000 + 0.5 x 500) / 4 = 187.5; T4 0.5 x 1000 / 2 + 0.5 x
 * 500 / 4 = 312.5, rho 5/3; P100 62.5, rho 1/3. A 500 pod:
 *   FGD, node 0, GPU 0 -> [0, 1000]: the T4 kind's 500 too-small share goes,
 *          drop 0.5 x 500 = 250 (GPU 1 -> [500, 500] would leave it no GPU,
 *          -250); node 1 (the T4 kind sees all of it as fragment), either
 *          GPU: 0.5 x 1500 -> 0.5 x 1000, drop 250. A tie: node 0.
 *   Pressure, weight 3: -3 x (rho - 1) x 500 = -1000 on the T4, +1000 on
 *          the P100. The lookahead moves nothing: a GPU with 500 free ends
 *          empty on both models (only the 500 kind fits it; W(500) = 500 x
 *          (2/3)^100 on the T4, 0 on the P100).
 * fgd-lookahead: 250 - 1000 = -750 and 250 + 1000 = 1250, the P100.
 */
static void test_lookahead_model_pressure(void **st)
{
	struct fixture f;
	struct gs_pod p = tu_pod(1000, 1024, 1, 500);
	const char *names[] = { "fgd", "fgd-lookahead" };
	int i, k, t4;

	(void)st;
	for (k = 0; k < 2; k++) {
		memset(&f, 0, sizeof(f));
		gs_cluster_init(&f.c);
		gs_cluster_add_node(&f.c, "n0", 32000, 131072, 2, "T4");
		gs_cluster_add_node(&f.c, "n1", 32000, 131072, 2, "P100");
		t4 = gs_models_find(&f.c.models, "T4");
		for (i = 0; i < 2; i++) {
			f.workload[f.n_workload] = tu_pod(1000, 1024, 1, 1000);
			f.workload[f.n_workload++].model_mask = 1u << t4;
			f.workload[f.n_workload++] = tu_pod(1000, 1024, 1, 500);
		}
		lookahead_start(&f, names[k]);
		run_on(&f, tu_pod(1000, 1024, 1, 500), 0, 1, g0);
		run_on(&f, tu_pod(1000, 1024, 1, 500), 1, 1, g0);
		assert_true(fabs(score(&f, 0, &p) - (k ? -750.0 : 250.0)) < 1e-9);
		assert_true(fabs(score(&f, 1, &p) - (k ? 1250.0 : 250.0)) < 1e-9);
		assert_int_equal(pick(&f, &p).node, k);
		stop(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dotprod),
		cmocka_unit_test(test_bestfit),
		cmocka_unit_test(test_gpuclustering),
		cmocka_unit_test(test_gpupacking),
		cmocka_unit_test(test_fgd_share),
		cmocka_unit_test(test_fgd_whole_and_cpu),
		cmocka_unit_test(test_fgd_no_change),
		cmocka_unit_test(test_fgd_needs_workload),
		cmocka_unit_test(test_lookahead_cpu_balance),
		cmocka_unit_test(test_lookahead_gap),
		cmocka_unit_test(test_lookahead_model_pressure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
