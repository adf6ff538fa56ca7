/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sched_index.c - the scheduler's node index (policies/sched_index.c)
 * must choose exactly what filtering and scoring every node chooses.
 *
 * Part 1, for every policy in the registry, in index order and in a
 * shuffled (compat) order: two schedulers on two copies of a cluster get
 * the same long stream of arrivals and departures; one has its index, the
 * other has it taken away and scans. Every choice and every "0/N nodes
 * are available" count must agree, and the indexed one also runs with
 * the cluster's check flag, under which the scheduler compares each of its
 * answers with a scan itself. The stream is long enough to compact the
 * change log and recycle group slots many times over. The same again on
 * a cluster with GPU sharing modes (time-slicing, MPS, MIG with and
 * without a fixed layout, and nodes whose GPUs differ in mode), where a
 * node's state includes its sharing state and the policy scores what the
 * pod costs there.
 * Part 2: cases worked out by hand: ties to the earliest node in visit
 * order, a cluster changed behind the scheduler's back, more request
 * shapes than the index holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/sharing.h"
#include "policies/policy.h"
#include "policies/sched.h"
#include "policies/sched_index.h"
#include "testutil.h"

/* n nodes in five shapes, so that many nodes share a state. */
static void cluster_n(struct gs_cluster *c, int n)
{
	char name[16];
	int i;

	gs_cluster_init(c);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%02d", i);
		switch (i % 5) {
		case 0:
			gs_cluster_add_node(c, name, 96000, 393216, 8, "V100M32");
			break;
		case 1:
			gs_cluster_add_node(c, name, 32000, 131072, 2, "T4");
			break;
		case 2:
			gs_cluster_add_node(c, name, 64000, 262144, 4, "T4");
			break;
		case 3:
			gs_cluster_add_node(c, name, 64000, 262144, 0, NULL);
			break;
		default:
			gs_cluster_add_node(c, name, 128000, 1048576, 8, "A100");
			break;
		}
	}
}

/* Gives cluster_n()'s GPU nodes sharing modes: every kind, mixed nodes too. */
static void share40(struct gs_cluster *c)
{
	static const char *const by_class[10] = {
		"timeslice:replicas=4", "mps:replicas=2", NULL, NULL, "mig",
		"timeslice:replicas=2", "vgpu:capped", NULL, NULL,
		"mig:layout=3g.20gb+2g.10gb+1g.5gb+1g.5gb",
	};
	struct gs_share_cfg cfg;
	char err[256];
	int32_t i;
	int g;

	for (i = 0; i < c->n_nodes; i++) {
		const char *spec = by_class[i % 10];

		if (c->nodes[i].num_gpu == 0)
			continue;
		if (spec) {
			assert_int_equal(gs_share_parse(spec, &cfg, err, sizeof(err)), 0);
			if (gs_cluster_set_share(c, i, -1, &cfg, err, sizeof(err)))
				fail_msg("node %d, %s: %s", i, spec, err);
			continue;
		}
		/* The 4-GPU T4 nodes: half exclusive, half MPS, or ideal and vgpu. */
		for (g = 0; g < c->nodes[i].num_gpu; g++) {
			spec = g < 2 ? (i % 10 == 2 ? "exclusive" : "ideal")
				     : (i % 10 == 2 ? "mps:replicas=4" : "vgpu");
			assert_int_equal(gs_share_parse(spec, &cfg, err, sizeof(err)), 0);
			if (gs_cluster_set_share(c, i, g, &cfg, err, sizeof(err)))
				fail_msg("node %d GPU %d, %s: %s", i, g, spec, err);
		}
	}
	assert_non_null(c->share);
}

/* An openb-like request: CPU-only, sharing, whole and multi-GPU, some pinned, some with GPU memory. */
static struct gs_pod stream_pod(struct gs_rng *r, const struct gs_cluster *c)
{
	static const int32_t share[] = { 100, 230, 250, 470, 500, 810 };
	uint64_t k = gs_rng_below(r, 20);
	struct gs_pod p;

	if (k < 3)
		p = tu_pod(2000 + 1000 * (int32_t)gs_rng_below(r, 6), 4096, 0, 0);
	else if (k < 11)
		p = tu_pod(4000, 8192 * (1 + (int64_t)gs_rng_below(r, 2)), 1, share[gs_rng_below(r, 6)]);
	else if (k < 17)
		p = tu_pod(8000, 16384, 1, 1000);
	else
		p = tu_pod(16000, 32768, 1u << (1 + gs_rng_below(r, 3)), 1000);
	if (!gs_pod_cpu_only(&p) && gs_rng_below(r, 6) == 0)
		p.model_mask = 1u << gs_models_find(&c->models, "T4");
	if (!gs_pod_cpu_only(&p) && p.num_gpu == 1 && gs_rng_below(r, 8) == 0)
		p.gpu_mem_mib = 4096;
	/* Now and then a one-off size, so that rare shapes fall far behind the log. */
	if (gs_rng_below(r, 50) == 0)
		p.cpu_milli += 1 + (int32_t)gs_rng_below(r, 3);
	return p;
}

struct running {
	struct gs_pod pod;
	struct gs_placement pl;
};

/*
 * The stream on n nodes: steps of it, as many per node as on 40 nodes, so
 * that a larger cluster fills up as well.
 */
static void same_stream(const struct gs_policy *pol, unsigned flags, uint64_t seed, bool share,
			int nodes)
{
	static struct gs_pod workload[400];
	static struct running run[4096];
	struct gs_cluster ci, cs;
	struct gs_sched si, ss;
	struct gs_policy_env env;
	struct gs_rng r;
	int n_run = 0, step, placed = 0, failed = 0;
	size_t i;

	cluster_n(&ci, nodes);
	cluster_n(&cs, nodes);
	if (share) {
		share40(&ci);
		share40(&cs);
	}
	ci.check = true;
	gs_rng_seed(&r, 777);
	for (i = 0; i < 400; i++)
		workload[i] = stream_pod(&r, &ci);
	memset(&env, 0, sizeof(env));
	env.workload = workload;
	env.n_workload = 400;
	env.seed = seed;
	env.flags = flags;
	env.cluster = &ci;
	assert_int_equal(gs_sched_init(&si, pol, &env), 0);
	env.cluster = &cs;
	assert_int_equal(gs_sched_init(&ss, pol, &env), 0);
	assert_non_null(si.index);
	/* The reference scans: take its index away. */
	gs_sched_index_free(ss.index);
	ss.index = NULL;

	gs_rng_seed(&r, seed * 31 + 5);
	for (step = 0; step < 150 * nodes; step++) {
		if (n_run > 0 && (gs_rng_below(&r, 100) < 45 || n_run == 4096)) {
			int k = (int)gs_rng_below(&r, (uint64_t)n_run);

			assert_int_equal(gs_sched_unbind(&si, &ci, &run[k].pod, &run[k].pl), 0);
			assert_int_equal(gs_sched_unbind(&ss, &cs, &run[k].pod, &run[k].pl), 0);
			run[k] = run[--n_run];
		} else {
			struct gs_pod p = stream_pod(&r, &ci);
			struct gs_placement a, b;
			struct gs_nofit wa, wb;
			int ra, rb;

			memset(&wa, 0, sizeof(wa));
			memset(&wb, 0, sizeof(wb));
			ra = gs_sched_pick(&si, &ci, &p, &a, &wa);
			rb = gs_sched_pick(&ss, &cs, &p, &b, &wb);
			assert_int_equal(ra, rb);
			if (ra == GS_ENOFIT) {
				assert_int_equal(wa.nodes, wb.nodes);
				assert_memory_equal(wa.count, wb.count, sizeof(wa.count));
				failed++;
				continue;
			}
			assert_int_equal(ra, 0);
			assert_int_equal(a.node, b.node);
			assert_int_equal(a.num_gpu, b.num_gpu);
			assert_memory_equal(a.gpu, b.gpu, sizeof(a.gpu));
			assert_int_equal(gs_sched_bind(&si, &ci, &p, &a), 0);
			assert_int_equal(gs_sched_bind(&ss, &cs, &p, &b), 0);
			run[n_run].pod = p;
			run[n_run++].pl = a;
			placed++;
		}
	}
	/* The stream must exercise both outcomes. */
	assert_true(placed > 12 * nodes);
	assert_true(failed > nodes);
	gs_sched_release(&si);
	gs_sched_release(&ss);
	gs_cluster_release(&ci);
	gs_cluster_release(&cs);
}

static void index_equals_scan_index_order(void **state)
{
	same_stream(*state, 0, 3, false, 40);
}

static void index_equals_scan_shuffled_order(void **state)
{
	same_stream(*state, GS_POLICY_COMPAT, 11, false, 40);
}

static void index_equals_scan_sharing(void **state)
{
	same_stream(*state, GS_POLICY_COMPAT, 19, true, 40);
}

/* 300 nodes: score trees of four levels, with partly empty nodes at every level. */
static void index_equals_scan_300_nodes(void **state)
{
	same_stream(*state, GS_POLICY_COMPAT, 23, false, 300);
}

/* --- by hand ------------------------------------------------------------------- */

/* Three equal empty nodes: spread gives each tie to the earliest node in visit order. */
static void ties_go_to_the_earliest_node(void **state)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_placement pl;
	struct gs_pod p = tu_pod(1000, 1024, 1, 500);
	int k;

	(void)state;
	gs_cluster_init(&c);
	for (k = 0; k < 3; k++)
		gs_cluster_add_node(&c, k == 0 ? "x" : k == 1 ? "y" : "z", 32000, 131072, 2, "T4");
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	env.seed = 5;
	env.flags = GS_POLICY_COMPAT;
	assert_int_equal(gs_sched_init(&s, gs_policy_find("spread"), &env), 0);
	/* All three score 1 - 0.5/2 = 0.75: the first in the shuffled order wins ... */
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
	assert_int_equal(pl.node, s.order[0]);
	assert_int_equal(gs_sched_bind(&s, &c, &p, &pl), 0);
	/* ... then it scores 0.5 and the other two still 0.75: the second in order. */
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
	assert_int_equal(pl.node, s.order[1]);
	assert_int_equal(gs_sched_bind(&s, &c, &p, &pl), 0);
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
	assert_int_equal(pl.node, s.order[2]);
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

/* A bind straight through the allocator is noticed by the cluster's version. */
static void change_behind_the_scheduler(void **state)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_placement pl;
	struct gs_pod big = tu_pod(1000, 1024, 2, 1000), half = tu_pod(1000, 1024, 1, 500);
	const int gpus[] = { 0, 1 };

	(void)state;
	gs_cluster_init(&c);
	gs_cluster_add_node(&c, "a", 32000, 131072, 2, "T4");
	gs_cluster_add_node(&c, "b", 32000, 131072, 2, "T4");
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	assert_int_equal(gs_sched_init(&s, gs_policy_find("first-fit"), &env), 0);
	assert_int_equal(gs_sched_pick(&s, &c, &half, &pl, NULL), 0);
	assert_int_equal(pl.node, 0);
	/* Fill node a without the scheduler: first-fit must now answer b. */
	pl = tu_pl(0, 2, gpus);
	assert_int_equal(gs_cluster_bind(&c, &big, &pl), 0);
	assert_int_equal(gs_sched_pick(&s, &c, &half, &pl, NULL), 0);
	assert_int_equal(pl.node, 1);
	/* And back: a is free again and first in order. */
	pl = tu_pl(0, 2, gpus);
	assert_int_equal(gs_cluster_unbind(&c, &big, &pl), 0);
	assert_int_equal(gs_sched_pick(&s, &c, &half, &pl, NULL), 0);
	assert_int_equal(pl.node, 0);
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

/*
 * 5000 different CPU sizes are more shapes than the index keeps (4096): the
 * rest are scanned, with the same answers. binpack puts each 1-core pod on
 * the node it fills most: the 8-core node b until its cores run out.
 */
static void more_shapes_than_the_index_holds(void **state)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_placement pl;
	int k;

	(void)state;
	gs_cluster_init(&c);
	gs_cluster_add_node(&c, "a", 64000000, 131072, 0, NULL);
	gs_cluster_add_node(&c, "b", 8000000, 131072, 0, NULL);
	c.check = true;
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	assert_int_equal(gs_sched_init(&s, gs_policy_find("binpack"), &env), 0);
	for (k = 0; k < 5000; k++) {
		struct gs_pod p = tu_pod(1000 + k, 1, 0, 0);

		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl, NULL), 0);
		/* b holds 8e6 milli: pods 1000..~3000 fill it (sum of 1000+k up to k = 2927). */
		assert_int_equal(pl.node, c.nodes[1].cpu_free_milli >= p.cpu_milli ? 1 : 0);
		assert_int_equal(gs_sched_bind(&s, &c, &p, &pl), 0);
	}
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

int main(void)
{
	struct CMUnitTest tests[140];
	char names[32][4][80];
	size_t n = 0, i;

	for (i = 0; i < gs_policies_count() && i < 32; i++) {
		const struct gs_policy *p = gs_policy_at(i);

		snprintf(names[i][0], sizeof(names[i][0]), "%s: index = scan, index order", p->name);
		snprintf(names[i][1], sizeof(names[i][1]), "%s: index = scan, shuffled order",
			 p->name);
		tests[n++] = (struct CMUnitTest){ names[i][0], index_equals_scan_index_order, NULL,
						  NULL, (void *)p };
		tests[n++] = (struct CMUnitTest){ names[i][1], index_equals_scan_shuffled_order, NULL,
						  NULL, (void *)p };
		snprintf(names[i][2], sizeof(names[i][2]), "%s: index = scan, sharing modes",
			 p->name);
		tests[n++] = (struct CMUnitTest){ names[i][2], index_equals_scan_sharing, NULL,
						  NULL, (void *)p };
		snprintf(names[i][3], sizeof(names[i][3]), "%s: index = scan, 300 nodes", p->name);
		tests[n++] = (struct CMUnitTest){ names[i][3], index_equals_scan_300_nodes, NULL,
						  NULL, (void *)p };
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(ties_go_to_the_earliest_node);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(change_behind_the_scheduler);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(more_shapes_than_the_index_holds);
	return _cmocka_run_group_tests("sched_index", tests, n, NULL, NULL);
}
