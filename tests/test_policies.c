/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_policies.c - the scheduler and the basic policies.
 *
 * Part 1: contract tests run for one policy, `test_policies SUFFIX` for the
 * policy gs_policy_SUFFIX of policies.def: never over-commits, same seed
 * gives the same placements, a pod that fits nowhere is reported cleanly
 * with per-reason counts. tests/CMakeLists.txt registers one CTest entry
 * per line of policies.def (test_policy_SUFFIX), so a new policy is
 * covered automatically and a failure names the policy.
 * Part 2 (no argument): the choices of binpack, spread, first-fit and
 * random on small clusters built by hand, with the expected placements
 * written out, and the registry against policies.def.
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
#include "policies/policy.h"
#include "policies/sched.h"
#include "policies/sched_index.h"
#include "testutil.h"

/* A mixed cluster: 6 nodes of 2-8 GPUs of three models plus a CPU node. */
static void mixed_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	gs_cluster_add_node(c, "a", 64000, 262144, 8, "V100M16");
	gs_cluster_add_node(c, "b", 32000, 131072, 2, "T4");
	gs_cluster_add_node(c, "c", 96000, 393216, 8, "A100");
	gs_cluster_add_node(c, "d", 32000, 131072, 4, "T4");
	gs_cluster_add_node(c, "e", 64000, 262144, 0, NULL);
	gs_cluster_add_node(c, "f", 48000, 196608, 4, "V100M32");
	c->check = true;
}

/* A deterministic stream of openb-like pods. */
static struct gs_pod workload_pod(struct gs_rng *r, const struct gs_cluster *c)
{
	static const int32_t share[] = { 100, 250, 300, 500, 700 };
	uint64_t k = gs_rng_below(r, 10);
	struct gs_pod p;

	if (k < 2)
		p = tu_pod(2000 + 1000 * (int32_t)gs_rng_below(r, 8), 4096, 0, 0);
	else if (k < 6)
		p = tu_pod(4000, 8192, 1, share[gs_rng_below(r, 5)]);
	else if (k < 9)
		p = tu_pod(8000, 16384, 1, 1000);
	else
		p = tu_pod(16000, 32768, 1u << gs_rng_below(r, 3), 1000);
	if (gs_rng_below(r, 5) == 0 && !gs_pod_cpu_only(&p))
		p.model_mask = 1u << gs_models_find(&c->models, "T4");
	return p;
}

/*
 * The environment a policy starts in. Workload-aware policies (FGD) get
 * 300 pods of the same stream the contract tests place.
 */
static struct gs_policy_env env_for(const struct gs_cluster *c, uint64_t seed)
{
	static struct gs_pod workload[300];
	struct gs_policy_env env;
	struct gs_rng r;
	size_t i;

	gs_rng_seed(&r, 1234);
	for (i = 0; i < 300; i++)
		workload[i] = workload_pod(&r, c);
	memset(&env, 0, sizeof(env));
	env.cluster = c;
	env.workload = workload;
	env.n_workload = 300;
	env.seed = seed;
	return env;
}

/* Places pods until 40 in a row fail; returns the placements in out[]. */
static int fill(const struct gs_policy *pol, uint64_t seed, struct gs_placement *out, int max)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_rng r;
	int n = 0, misses = 0;

	mixed_cluster(&c);
	env = env_for(&c, seed);
	assert_int_equal(gs_sched_init(&s, pol, &env), 0);
	gs_rng_seed(&r, 99);
	while (misses < 40 && n < max) {
		struct gs_pod p = workload_pod(&r, &c);
		struct gs_placement pl;
		int rc = gs_sched_pick(&s, &c, &p, &pl, NULL);

		if (rc == GS_ENOFIT) {
			misses++;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(gs_cluster_fits(&c, pl.node, &p), GS_FIT_OK);
		/* bind runs the invariant check (c.check is on). */
		assert_int_equal(gs_sched_bind(&s, &c, &p, &pl), 0);
		out[n++] = pl;
	}
	assert_int_equal(gs_cluster_check(&c, NULL, 0), 0);
	assert_true(c.cpu_free_milli >= 0 && c.gpu_free_milli >= 0);
	gs_sched_release(&s);
	gs_cluster_release(&c);
	return n;
}

static void contract_never_overcommits_and_is_deterministic(void **state)
{
	const struct gs_policy *pol = *state;
	static struct gs_placement a[512], b[512];
	int na, nb;

	na = fill(pol, 42, a, 512);
	nb = fill(pol, 42, b, 512);
	assert_true(na > 20);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, sizeof(a[0]) * (size_t)na);
}

static void contract_reports_no_fit(void **state)
{
	const struct gs_policy *pol = *state;
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_placement pl, untouched;
	struct gs_nofit why;
	struct gs_pod p = tu_pod(1000, 1024, 16, 1000);
	char buf[256];

	mixed_cluster(&c);
	env = env_for(&c, 1);
	assert_int_equal(gs_sched_init(&s, pol, &env), 0);
	memset(&pl, 0x5a, sizeof(pl));
	untouched = pl;
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, &why), GS_ENOFIT);
	assert_memory_equal(&pl, &untouched, sizeof(pl));
	assert_int_equal(why.nodes, 6);
	assert_int_equal(why.count[GS_FIT_GPU_COUNT], 6);
	assert_string_equal(gs_nofit_format(&why, buf, sizeof(buf)),
			    "0/6 nodes are available: 6 Insufficient GPUs");
	/* 50 cores and a T4: b, d, f lack CPU; a, c (other models) and e (no GPU) the model. */
	p = tu_pod(50000, 1024, 1, 500);
	p.model_mask = 1u << gs_models_find(&c.models, "T4");
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, &why), GS_ENOFIT);
	assert_string_equal(gs_nofit_format(&why, buf, sizeof(buf)),
			    "0/6 nodes are available: 3 Insufficient cpu, 3 GPU model not allowed");
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

/* --- hand-built expectations ------------------------------------------------ */

/* Three 4-GPU nodes; node 1 has GPU 2 at 0.6 used and GPU 0 at 0.2 used. */
static void three_nodes(struct gs_cluster *c)
{
	struct gs_pod p6 = tu_pod(1000, 1024, 1, 600), p2 = tu_pod(1000, 1024, 1, 200);

	gs_cluster_init(c);
	gs_cluster_add_node(c, "n0", 32000, 131072, 4, "T4");
	gs_cluster_add_node(c, "n1", 32000, 131072, 4, "T4");
	gs_cluster_add_node(c, "n2", 32000, 131072, 4, "T4");
	c->check = true;
	assert_int_equal(gs_cluster_bind(c, &p6, &(struct gs_placement){ .node = 1, .num_gpu = 1, .gpu = { 2 } }), 0);
	assert_int_equal(gs_cluster_bind(c, &p2, &(struct gs_placement){ .node = 1, .num_gpu = 1, .gpu = { 0 } }), 0);
}

static struct gs_placement pick(const char *name, struct gs_cluster *c, struct gs_pod p)
{
	const struct gs_policy *pol = gs_policy_find(name);
	struct gs_policy_env env = env_for(c, 7);
	struct gs_placement pl;
	struct gs_sched s;

	assert_non_null(pol);
	assert_int_equal(gs_sched_init(&s, pol, &env), 0);
	assert_int_equal(gs_sched_pick(&s, c, &p, &pl, NULL), 0);
	gs_sched_release(&s);
	return pl;
}

static void test_binpack_choices(void **state)
{
	struct gs_cluster c;
	struct gs_placement pl;

	(void)state;
	three_nodes(&c);
	/* 0.3 share: n1 is fuller; inside it GPU 2 (0.4 free) is the tightest fit. */
	pl = pick("binpack", &c, tu_pod(1000, 1024, 1, 300));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.num_gpu, 1);
	assert_int_equal(pl.gpu[0], 2);
	/* 0.5 share: GPU 2 is too small, GPU 0 (0.8 free) is tighter than 1, 3. */
	pl = pick("binpack", &c, tu_pod(1000, 1024, 1, 500));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.gpu[0], 0);
	/* 2 whole GPUs: n1 still has GPUs 1 and 3 fully free, first two by index. */
	pl = pick("binpack", &c, tu_pod(1000, 1024, 2, 1000));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.num_gpu, 2);
	assert_int_equal(pl.gpu[0], 1);
	assert_int_equal(pl.gpu[1], 3);
	/* 3 whole GPUs fit only on n0 and n2; equal scores, lowest index wins. */
	pl = pick("binpack", &c, tu_pod(1000, 1024, 3, 1000));
	assert_int_equal(pl.node, 0);
	assert_int_equal(pl.gpu[2], 2);
	/* CPU-only: MostAllocated on CPU and memory, n1 has 2 cores in use. */
	pl = pick("binpack", &c, tu_pod(4000, 4096, 0, 0));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.num_gpu, 0);
	gs_cluster_release(&c);
}

static void test_spread_choices(void **state)
{
	struct gs_cluster c;
	struct gs_placement pl;

	(void)state;
	three_nodes(&c);
	/* The emptiest node: n0 and n2 tie, n0 first; the loosest GPU is GPU 0. */
	pl = pick("spread", &c, tu_pod(1000, 1024, 1, 300));
	assert_int_equal(pl.node, 0);
	assert_int_equal(pl.gpu[0], 0);
	/* Leave n1 the only candidate by taking n0's and n2's CPU. */
	c.nodes[0].cpu_free_milli = c.nodes[2].cpu_free_milli = 0;
	c.cpu_free_milli -= 64000;
	/* On n1 the loosest GPUs are 1 and 3 (1.0 free); 1 is first. */
	pl = pick("spread", &c, tu_pod(1000, 1024, 1, 300));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.gpu[0], 1);
	gs_cluster_release(&c);
}

static void test_firstfit_choices(void **state)
{
	struct gs_cluster c;
	struct gs_placement pl;

	(void)state;
	three_nodes(&c);
	pl = pick("first-fit", &c, tu_pod(1000, 1024, 1, 300));
	assert_int_equal(pl.node, 0);
	assert_int_equal(pl.gpu[0], 0);
	c.nodes[0].cpu_free_milli = 0;
	c.cpu_free_milli -= 32000;
	/* n0 is out of CPU: n1, whose first GPU with 0.5 free is GPU 0 (0.8). */
	pl = pick("first-fit", &c, tu_pod(1000, 1024, 1, 500));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.gpu[0], 0);
	pl = pick("first-fit", &c, tu_pod(1000, 1024, 1, 900));
	assert_int_equal(pl.node, 1);
	assert_int_equal(pl.gpu[0], 1);
	gs_cluster_release(&c);
}

static void test_random_is_uniform_and_seeded(void **state)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_pod p = tu_pod(1000, 1024, 1, 300);
	int hits[3] = { 0 }, gpu_hits[4] = { 0 }, i;
	struct gs_placement first[50];

	(void)state;
	three_nodes(&c);
	env = env_for(&c, 5);
	assert_int_equal(gs_sched_init(&s, gs_policy_find("random"), &env), 0);
	for (i = 0; i < 3000; i++) {
		struct gs_placement pl;

		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
		hits[pl.node]++;
		if (pl.node == 1)
			gpu_hits[pl.gpu[0]]++;
		if (i < 50)
			first[i] = pl;
	}
	gs_sched_release(&s);
	/* Each of 3 nodes ~1000 times; 4 sigma is about 100. */
	for (i = 0; i < 3; i++)
		assert_in_range(hits[i], 880, 1120);
	/* On n1 every GPU fits a 0.3 share, GPU 2 (0.4 free) included. */
	for (i = 0; i < 4; i++)
		assert_in_range(gpu_hits[i], hits[1] / 4 - 110, hits[1] / 4 + 110);
	/* The same seed replays the same choices. */
	assert_int_equal(gs_sched_init(&s, gs_policy_find("random"), &env), 0);
	for (i = 0; i < 50; i++) {
		struct gs_placement pl;

		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
		assert_memory_equal(&pl, &first[i], sizeof(pl));
	}
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

/*
 * n nodes with one T4 each; a node fits the test pod unless it is among the
 * gaps: every 7th node, and runs of 300 that cover whole blocks of the
 * index's counts (sched_index.c). Returns the number that fit.
 */
static int32_t gappy_cluster(struct gs_cluster *c, int32_t n)
{
	int32_t i, fit = 0;

	gs_cluster_init(c);
	for (i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(gs_cluster_add_node(c, name, 8000, 32768, 1, "T4"), i);
		if (i % 7 == 3 || (i / 300) % 5 == 2) {
			c->nodes[i].cpu_free_milli = 0;
			c->cpu_free_milli -= 8000;
		} else {
			fit++;
		}
	}
	return fit;
}

/* The random policy's generator as random.c seeds it. */
static void random_stream(struct gs_rng *r, const struct gs_policy_env *env)
{
	gs_rng_seed(r, env->seed ^ env->workload_id ^ 0x72616e646f6dull);
}

/*
 * Up to 4096 nodes random draws a score per feasible node and takes the
 * first highest, the draws results stored by earlier versions were made
 * with; above, one draw names the place among the feasible nodes. Both
 * choose uniformly: a chi-square test over the feasible nodes of a
 * 5000-node cluster, whose statistic has mean k - 1 and standard deviation
 * sqrt(2 (k - 1)), about 83 here. The scheduler's full scan (no index)
 * chooses as its index does.
 */
static void test_random_draws_by_cluster_size(void **state)
{
	struct gs_cluster c;
	struct gs_sched s, scan;
	struct gs_policy_env env;
	struct gs_pod p = tu_pod(1000, 1024, 1, 1000);
	struct gs_rng ref;
	int32_t k, i, j, *hits, *place;
	const int picks = 40000;
	double chi2 = 0;

	(void)state;
	/* 4096 nodes: the first highest of k draws, k fitting nodes in visit order. */
	k = gappy_cluster(&c, 4096);
	env = env_for(&c, 11);
	env.workload_id = 0x1234;
	random_stream(&ref, &env);
	assert_int_equal(gs_sched_init(&s, gs_policy_find("random"), &env), 0);
	for (i = 0; i < 20; i++) {
		struct gs_placement pl;
		uint64_t best = 0;
		int32_t at = 0, seen = -1;

		for (j = 0; j < k; j++) {
			uint64_t v = gs_rng_next(&ref) >> 11;

			if (j == 0 || v > best) {
				best = v;
				at = j;
			}
		}
		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
		for (j = 0; j <= pl.node; j++)
			seen += gs_cluster_fits(&c, j, &p) == GS_FIT_OK;
		assert_int_equal(seen, at);
	}
	gs_sched_release(&s);
	gs_cluster_release(&c);

	/* 5000 nodes: one draw per pod, uniform over the fitting nodes. */
	k = gappy_cluster(&c, 5000);
	assert_true(k > 3000);
	env = env_for(&c, 12);
	random_stream(&ref, &env);
	hits = calloc(5000, sizeof(*hits));
	place = calloc(5000, sizeof(*place));
	assert_non_null(hits);
	assert_non_null(place);
	for (i = 0, j = 0; i < 5000; i++)
		place[i] = gs_cluster_fits(&c, i, &p) == GS_FIT_OK ? j++ : -1;
	assert_int_equal(gs_sched_init(&s, gs_policy_find("random"), &env), 0);
	assert_int_equal(gs_sched_init(&scan, gs_policy_find("random"), &env), 0);
	assert_non_null(s.index);
	gs_sched_index_free(scan.index);
	scan.index = NULL;
	for (i = 0; i < picks; i++) {
		struct gs_placement pl, pl_scan;

		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
		assert_true(place[pl.node] >= 0);
		/* A whole-GPU pod takes the first free GPU: no draw for it. */
		assert_int_equal(place[pl.node], (int32_t)gs_rng_below(&ref, (uint64_t)k));
		hits[pl.node]++;
		if (i < 2000) {
			assert_int_equal(gs_sched_pick(&scan, &c, &p, &pl_scan, NULL), 0);
			assert_memory_equal(&pl, &pl_scan, sizeof(pl));
		}
	}
	for (i = 0; i < 5000; i++) {
		double e = (double)picks / k;

		if (place[i] >= 0)
			chi2 += ((double)hits[i] - e) * ((double)hits[i] - e) / e;
		else
			assert_int_equal(hits[i], 0);
	}
	assert_true(fabs(chi2 - (k - 1)) < 6 * sqrt(2.0 * (k - 1)));
	free(hits);
	free(place);
	gs_sched_release(&scan);
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

static void test_compat_order_is_a_seeded_permutation(void **state)
{
	struct gs_cluster c;
	struct gs_sched s1, s2, s3;
	struct gs_policy_env env;
	int32_t seen[6] = { 0 }, i;

	(void)state;
	mixed_cluster(&c);
	env = env_for(&c, 42);
	env.flags = GS_POLICY_COMPAT;
	assert_int_equal(gs_sched_init(&s1, gs_policy_find("first-fit"), &env), 0);
	assert_int_equal(gs_sched_init(&s2, gs_policy_find("first-fit"), &env), 0);
	env.seed = 43;
	assert_int_equal(gs_sched_init(&s3, gs_policy_find("first-fit"), &env), 0);
	for (i = 0; i < 6; i++)
		seen[s1.order[i]]++;
	for (i = 0; i < 6; i++)
		assert_int_equal(seen[i], 1);
	assert_memory_equal(s1.order, s2.order, 6 * sizeof(int32_t));
	assert_memory_not_equal(s1.order, s3.order, 6 * sizeof(int32_t));
	gs_sched_release(&s3);
	/*
	 * The workload is mixed in: seed 42 with another workload is another
	 * order, and the order of (seed, id) is that of seed ^ id alone (id 0
	 * leaves it as the seed gives it).
	 */
	env.seed = 42;
	env.workload_id = 0x9f86d081884c7d65ull;
	assert_int_equal(gs_sched_init(&s3, gs_policy_find("first-fit"), &env), 0);
	assert_memory_not_equal(s1.order, s3.order, 6 * sizeof(int32_t));
	gs_sched_release(&s2);
	env.seed = 42 ^ 0x9f86d081884c7d65ull;
	env.workload_id = 0;
	assert_int_equal(gs_sched_init(&s2, gs_policy_find("first-fit"), &env), 0);
	assert_memory_equal(s2.order, s3.order, 6 * sizeof(int32_t));
	gs_sched_release(&s1);
	gs_sched_release(&s2);
	gs_sched_release(&s3);
	gs_cluster_release(&c);
}

/*
 * GS_POLICY_SHUFFLED: compat's node order (the same permutation for the
 * same seed and workload) with exact scores. On four identical empty
 * nodes every policy's best nodes tie: without the flag the first node
 * takes the pod whatever the seed, with it the first node of the seed's
 * order, and over seeds each of the four.
 */
static void test_shuffled_ties(void **state)
{
	struct gs_cluster c;
	struct gs_sched plain, shuf, compat;
	struct gs_policy_env env;
	struct gs_placement pl;
	struct gs_pod p = tu_pod(4000, 8192, 1, 500);
	int took[4] = { 0 };
	uint64_t seed;
	int i;

	(void)state;
	gs_cluster_init(&c);
	for (i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		gs_cluster_add_node(&c, name, 32000, 131072, 4, "V100M16");
	}
	c.check = true;
	for (seed = 1; seed <= 40; seed++) {
		env = env_for(&c, seed);
		env.flags = 0;
		assert_int_equal(gs_sched_init(&plain, gs_policy_find("binpack"), &env), 0);
		env.flags = GS_POLICY_SHUFFLED;
		assert_int_equal(gs_sched_init(&shuf, gs_policy_find("binpack"), &env), 0);
		env.flags = GS_POLICY_COMPAT;
		assert_int_equal(gs_sched_init(&compat, gs_policy_find("binpack"), &env), 0);
		assert_memory_equal(shuf.order, compat.order, 4 * sizeof(int32_t));
		assert_int_equal(gs_sched_pick(&plain, &c, &p, &pl, NULL), 0);
		assert_int_equal(pl.node, 0);
		assert_int_equal(gs_sched_pick(&shuf, &c, &p, &pl, NULL), 0);
		assert_int_equal(pl.node, shuf.order[0]);
		took[pl.node]++;
		gs_sched_release(&plain);
		gs_sched_release(&shuf);
		gs_sched_release(&compat);
	}
	for (i = 0; i < 4; i++)
		assert_true(took[i] > 0);
	gs_cluster_release(&c);

	/* The scores stay exact: dotprod's compat score is an integer, its exact one is not. */
	mixed_cluster(&c);
	env = env_for(&c, 7);
	p = tu_pod(3000, 5000, 1, 300);
	env.flags = GS_POLICY_SHUFFLED;
	assert_int_equal(gs_sched_init(&shuf, gs_policy_find("dotprod"), &env), 0);
	env.flags = GS_POLICY_COMPAT;
	assert_int_equal(gs_sched_init(&compat, gs_policy_find("dotprod"), &env), 0);
	{
		double e = shuf.policy->score(shuf.state, &c, 0, &p);
		double k = compat.policy->score(compat.state, &c, 0, &p);

		assert_true(e != floor(e));
		assert_true(k == floor(k));
	}
	gs_sched_release(&shuf);
	gs_sched_release(&compat);
	gs_cluster_release(&c);
}

/* The policies by C symbol, in policies.def order, as CMake reads the list. */
#define GS_POLICY(sym) extern const struct gs_policy sym;
#include "policies/policies.def"
#undef GS_POLICY

static const struct {
	const char *symbol;
	const struct gs_policy *policy;
} by_symbol[] = {
#define GS_POLICY(sym) { #sym, &sym },
#include "policies/policies.def"
#undef GS_POLICY
};

#define N_BY_SYMBOL (sizeof(by_symbol) / sizeof(by_symbol[0]))

static void test_registry(void **state)
{
	size_t i, j;

	(void)state;
	assert_true(gs_policies_count() >= 4);
	/* The contract tests CMake registers cover exactly the registry. */
	assert_int_equal(N_BY_SYMBOL, gs_policies_count());
	for (i = 0; i < N_BY_SYMBOL; i++)
		assert_ptr_equal(by_symbol[i].policy, gs_policy_at(i));
	for (i = 0; i < gs_policies_count(); i++) {
		const struct gs_policy *p = gs_policy_at(i);

		assert_non_null(p->name);
		assert_non_null(p->summary);
		assert_non_null(p->score);
		assert_non_null(p->pick_gpus);
		assert_ptr_equal(gs_policy_find(p->name), p);
		for (j = 0; j < i; j++)
			assert_string_not_equal(gs_policy_at(j)->name, p->name);
	}
	assert_null(gs_policy_find("no-such-policy"));
	assert_null(gs_policy_at(gs_policies_count()));
}

/* Runs the contract tests of gs_policy_SUFFIX; 1 when there is no such policy. */
static int run_contract(const char *suffix)
{
	const struct gs_policy *pol = NULL;
	char symbol[128], group[160];
	size_t i;

	snprintf(symbol, sizeof(symbol), "gs_policy_%s", suffix);
	for (i = 0; i < N_BY_SYMBOL && !pol; i++)
		if (!strcmp(by_symbol[i].symbol, symbol))
			pol = by_symbol[i].policy;
	if (!pol) {
		fprintf(stderr, "test_policies: %s is not in policies.def\n", symbol);
		return 1;
	}
	{
		const struct CMUnitTest tests[] = {
			{ "never over-commits, deterministic",
			  contract_never_overcommits_and_is_deterministic, NULL, NULL, (void *)pol },
			{ "reports no fit", contract_reports_no_fit, NULL, NULL, (void *)pol },
		};

		snprintf(group, sizeof(group), "policy %s", pol->name);
		return _cmocka_run_group_tests(group, tests, sizeof(tests) / sizeof(tests[0]), NULL,
					       NULL);
	}
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[16];
	size_t n = 0;

	if (argc == 2)
		return run_contract(argv[1]);
	if (argc > 2) {
		fprintf(stderr, "usage: test_policies [SUFFIX of gs_policy_SUFFIX]\n");
		return 1;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_binpack_choices);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_spread_choices);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_firstfit_choices);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_random_is_uniform_and_seeded);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_random_draws_by_cluster_size);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_compat_order_is_a_seeded_permutation);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_shuffled_ties);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_registry);
	return _cmocka_run_group_tests("policies", tests, n, NULL, NULL);
}
