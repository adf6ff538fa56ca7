/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cluster.c - the allocator: the filter and its reasons, bind and
 * unbind with exact resource arithmetic, refusals that change nothing,
 * the invariant check, and copies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/cluster.h"
#include "core/error.h"
#include "testutil.h"

/* n0: 4 T4, 32 cores, 128 GiB; n1: 8 V100M32; n2: CPU only. */
static void make_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "n0", 32000, 131072, 4, "T4"), 0);
	assert_int_equal(gs_cluster_add_node(c, "n1", 96000, 393216, 8, "V100M32"), 1);
	assert_int_equal(gs_cluster_add_node(c, "n2", 64000, 262144, 0, NULL), 2);
	c->check = true;
}

static void test_add_and_totals(void **state)
{
	struct gs_cluster c;

	(void)state;
	make_cluster(&c);
	assert_int_equal(c.n_nodes, 3);
	assert_int_equal(c.gpu_count, 12);
	assert_int_equal(c.gpu_milli, 12000);
	assert_int_equal(c.gpu_free_milli, 12000);
	assert_int_equal(c.cpu_milli, 192000);
	assert_int_equal(c.nodes[0].gpu_mem_free_mib[3], 16384);
	assert_int_equal(c.nodes[1].gpu_mem_free_mib[0], 32768);
	assert_int_equal(c.nodes[1].gpu_whole_free, 8);
	assert_int_equal(c.nodes[2].model, -1);
	assert_int_equal(gs_cluster_find_node(&c, "n1"), 1);
	assert_int_equal(gs_cluster_find_node(&c, "nx"), -1);
	/* Bad nodes are refused. */
	assert_int_equal(gs_cluster_add_node(&c, "g", 1000, 1024, 2, NULL), GS_EINVAL);
	assert_int_equal(gs_cluster_add_node(&c, "g", 1000, 1024, 17, "T4"), GS_ERANGE);
	assert_int_equal(gs_cluster_add_node(&c, "", 1000, 1024, 0, NULL), GS_EINVAL);
	assert_int_equal(gs_cluster_add_node(&c, "g", -1, 1024, 0, NULL), GS_EINVAL);
	/* An unknown model is added with 0 MiB per card. */
	assert_int_equal(gs_cluster_add_node(&c, "x", 1000, 1024, 1, "Z9"), 3);
	assert_int_equal(c.models.m[c.nodes[3].model].mem_mib, 0);
	assert_int_equal(gs_cluster_check(&c, NULL, 0), 0);
	gs_cluster_release(&c);
}

static void test_fit_reasons(void **state)
{
	struct gs_cluster c;
	struct gs_pod p;

	(void)state;
	make_cluster(&c);
	p = tu_pod(40000, 1024, 0, 0);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_CPU);
	assert_int_equal(gs_cluster_fits(&c, 1, &p), GS_FIT_OK);
	p = tu_pod(1000, 200000, 0, 0);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_MEM);
	p = tu_pod(1000, 1024, 1, 500);
	assert_int_equal(gs_cluster_fits(&c, 2, &p), GS_FIT_GPU_COUNT);
	p.model_mask = 1u << gs_models_find(&c.models, "V100M32");
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_MODEL);
	assert_int_equal(gs_cluster_fits(&c, 1, &p), GS_FIT_OK);
	p = tu_pod(1000, 1024, 8, 1000);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_GPU_COUNT);
	assert_int_equal(gs_cluster_fits(&c, 1, &p), GS_FIT_OK);
	/* GPU memory: 20 GiB fits a V100M32 but not a T4. */
	p = tu_pod(1000, 1024, 1, 300);
	p.gpu_mem_mib = 20480;
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_GPU_MEM);
	assert_int_equal(gs_cluster_fits(&c, 1, &p), GS_FIT_OK);
	assert_string_equal(gs_fit_str(GS_FIT_GPU_SHARE), "Insufficient GPU share");
	gs_cluster_release(&c);
}

static void test_bind_unbind_arithmetic(void **state)
{
	struct gs_cluster c;
	struct gs_pod share = tu_pod(4000, 8192, 1, 300);
	struct gs_pod whole2 = tu_pod(8000, 16384, 2, 1000);
	struct gs_placement pl_share = tu_pl(0, 1, (int[]){ 2 });
	struct gs_placement pl_whole = tu_pl(0, 2, (int[]){ 0, 3 });

	(void)state;
	make_cluster(&c);
	assert_int_equal(gs_cluster_bind(&c, &share, &pl_share), 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[2], 700);
	assert_int_equal(c.nodes[0].cpu_free_milli, 28000);
	assert_int_equal(c.nodes[0].mem_free_mib, 131072 - 8192);
	assert_int_equal(c.nodes[0].gpu_free_total_milli, 3700);
	assert_int_equal(c.nodes[0].gpu_free_max_milli, 1000);
	assert_int_equal(c.nodes[0].gpu_whole_free, 3);
	assert_int_equal(c.gpus_in_use, 1);
	assert_int_equal(gs_cluster_bind(&c, &whole2, &pl_whole), 0);
	assert_int_equal(c.nodes[0].gpu_whole_free, 1);
	assert_int_equal(c.gpus_in_use, 3);
	assert_int_equal(c.gpu_free_milli, 12000 - 300 - 2000);
	assert_int_equal(c.n_pods, 2);
	/* A second 0.8 share does not fit GPU 2 (0.7 left). */
	share.gpu_milli = 800;
	assert_int_equal(gs_cluster_bind(&c, &share, &pl_share), GS_ENOFIT);
	share.gpu_milli = 300;
	assert_int_equal(gs_cluster_unbind(&c, &share, &pl_share), 0);
	assert_int_equal(gs_cluster_unbind(&c, &whole2, &pl_whole), 0);
	assert_int_equal(c.gpu_free_milli, 12000);
	assert_int_equal(c.gpus_in_use, 0);
	assert_int_equal(c.cpu_free_milli, c.cpu_milli);
	assert_int_equal(c.nodes[0].gpu_whole_free, 4);
	/* Unbinding again would exceed capacity. */
	assert_int_equal(gs_cluster_unbind(&c, &share, &pl_share), GS_EINVAL);
	gs_cluster_release(&c);
}

static void test_refusals_change_nothing(void **state)
{
	struct gs_cluster c, before;
	struct gs_pod p = tu_pod(1000, 1024, 2, 1000);
	struct gs_placement pl;

	(void)state;
	make_cluster(&c);
	gs_cluster_init(&before);
	assert_int_equal(gs_cluster_bind(&c, &p, &(struct gs_placement){ 0 }), GS_EINVAL);
	pl = tu_pl(0, 2, (int[]){ 1, 1 });   /* repeated GPU */
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	pl = tu_pl(0, 2, (int[]){ 1, 4 });   /* n0 has GPUs 0..3 */
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	pl = tu_pl(0, 1, (int[]){ 1 });      /* wrong GPU count */
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	pl = tu_pl(7, 2, (int[]){ 0, 1 });   /* no such node */
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	pl = tu_pl(2, 2, (int[]){ 0, 1 });   /* CPU-only node */
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	p = tu_pod(1000, 1024, 2, 500);      /* fractional multi-GPU pods are invalid */
	pl = tu_pl(0, 2, (int[]){ 0, 1 });
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_EINVAL);
	p = tu_pod(1000, 1024, 1, 1000);     /* model not allowed */
	p.model_mask = 1u << gs_models_find(&c.models, "V100M32");
	pl = tu_pl(0, 1, (int[]){ 0 });
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_ENOFIT);
	assert_int_equal(gs_cluster_copy(&before, &c), 0);
	p = tu_pod(33000, 1024, 0, 0);       /* too much CPU */
	pl = tu_pl(0, 0, NULL);
	assert_int_equal(gs_cluster_bind(&c, &p, &pl), GS_ENOFIT);
	assert_memory_equal(c.nodes, before.nodes, sizeof(struct gs_node) * (size_t)c.n_nodes);
	assert_int_equal(c.cpu_free_milli, before.cpu_free_milli);
	assert_int_equal(c.n_pods, 0);
	gs_cluster_release(&before);
	gs_cluster_release(&c);
}

static void test_check_finds_corruption(void **state)
{
	struct gs_cluster c;
	char msg[256];

	(void)state;
	make_cluster(&c);
	assert_int_equal(gs_cluster_check(&c, msg, sizeof(msg)), 0);
	c.nodes[1].gpu_free_milli[5] = 1200;
	assert_int_equal(gs_cluster_check(&c, msg, sizeof(msg)), GS_ECHECK);
	assert_string_equal(msg, "node n1: GPU 5 free share 1200 milli");
	c.nodes[1].gpu_free_milli[5] = 400;
	assert_int_equal(gs_cluster_check(&c, msg, sizeof(msg)), GS_ECHECK);
	assert_string_equal(msg, "node n1: derived GPU fields are stale");
	gs_node_refresh(&c.nodes[1]);
	c.nodes[1].n_pods = 1;
	c.n_pods = 1;
	assert_int_equal(gs_cluster_check(&c, msg, sizeof(msg)), GS_ECHECK);
	assert_string_equal(msg, "cluster GPU totals 12000/12000 milli, nodes add up to 11400/12000");
	c.nodes[0].cpu_free_milli = -1;
	assert_int_equal(gs_cluster_check(&c, msg, sizeof(msg)), GS_ECHECK);
	assert_string_equal(msg, "node n0: cpu free -1 of 32000 milli");
	gs_cluster_release(&c);
}

static void test_copy_is_deep(void **state)
{
	struct gs_cluster a, b;
	struct gs_pod p = tu_pod(1000, 1024, 1, 250);
	struct gs_placement pl = tu_pl(1, 1, (int[]){ 6 });

	(void)state;
	make_cluster(&a);
	gs_cluster_init(&b);
	assert_int_equal(gs_cluster_copy(&b, &a), 0);
	assert_int_equal(gs_cluster_bind(&b, &p, &pl), 0);
	assert_int_equal(a.nodes[1].gpu_free_milli[6], 1000);
	assert_int_equal(b.nodes[1].gpu_free_milli[6], 750);
	assert_string_equal(b.node_names[2], "n2");
	assert_ptr_not_equal(b.node_names[2], a.node_names[2]);
	gs_cluster_release(&a);
	gs_cluster_release(&b);
}

static void test_models(void **state)
{
	struct gs_models m;

	(void)state;
	gs_models_builtin(&m);
	assert_int_equal(m.m[gs_models_find(&m, "A100-80G")].mem_mib, 81920);
	assert_int_equal(m.m[gs_models_find(&m, "H200")].mem_mib, 141 * 1024);
	assert_int_equal(gs_models_set(&m, "T4", 15360), gs_models_find(&m, "T4"));
	assert_int_equal(m.m[gs_models_find(&m, "T4")].mem_mib, 15360);
	assert_int_equal(gs_models_set(&m, "", 1), GS_EINVAL);
	assert_int_equal(gs_models_set(&m, "X", -1), GS_EINVAL);
	while (m.n < GS_MAX_MODELS) {
		char name[16];

		snprintf(name, sizeof(name), "M%d", m.n);
		assert_true(gs_models_set(&m, name, 1) >= 0);
	}
	assert_int_equal(gs_models_set(&m, "one-too-many", 1), GS_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_totals),
		cmocka_unit_test(test_fit_reasons),
		cmocka_unit_test(test_bind_unbind_arithmetic),
		cmocka_unit_test(test_refusals_change_nothing),
		cmocka_unit_test(test_check_finds_corruption),
		cmocka_unit_test(test_copy_is_deep),
		cmocka_unit_test(test_models),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
