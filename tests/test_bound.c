/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bound.c - the bounds of `gpusim bound` (engine/bound.h): the pattern
 * LP and the integer program on instances solved by hand, the buckets and
 * floors of the inflation experiment on a trace whose optimum does not
 * depend on the order, refusals, the store (store/bounds.h) beside a real
 * inflate run, and the command's output and exit status.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "core/error.h"
#include "engine/bound.h"
#include "engine/bound_internal.h"
#include "engine/replay.h"
#include "io/trace/load.h"
#include "store/bounds.h"
#include "store/results.h"
#include "testutil.h"
#include "tmpdir.h"

/*
 * One node of two GPUs; pods of 600 milli (3 of them) and 500 milli (2),
 * 1000 CPU each, on a node of `cpu` CPU. With 10000 CPU the best placement
 * is 500 + 500 on one GPU and 600 on the other, 1600; the LP cannot do
 * better, because a GPU holding a 600 has no room for anything else (600 +
 * 500 > 1000), while pooling the GPU share would allow all 2000 (the
 * aggregate bound). With 2000 CPU only two pods fit: two 600s, 1200; the
 * LP's CPU row allows a + b <= 2 and its GPU row a + b/2 <= 2, so 1200.
 */
static void two_type_problem(struct gs_cluster *c, struct gs_bound_problem *pb,
			     struct gs_bound_node_type *nt, struct gs_bound_pod_type *pt,
			     uint8_t *allowed, int32_t cpu)
{
	gs_cluster_init(c);
	assert_true(gs_cluster_add_node(c, "n0", cpu, 65536, 2, "T4") == 0);
	memset(pb, 0, sizeof(*pb));
	nt[0].node = 0;
	nt[0].count = 1;
	pt[0].req = tu_pod(1000, 1024, 1, 600);
	pt[0].count = 3;
	pt[1].req = tu_pod(1000, 1024, 1, 500);
	pt[1].count = 2;
	allowed[0] = allowed[1] = 1;
	pb->c = c;
	pb->nt = nt;
	pb->n_nt = 1;
	pb->pt = pt;
	pb->n_pt = 2;
	pb->allowed = allowed;
}

static void test_lp_by_hand(void **st)
{
	struct gs_cluster c;
	struct gs_bound_problem pb;
	struct gs_bound_node_type nt[1];
	struct gs_bound_pod_type pt[2];
	uint8_t allowed[2];
	int64_t lp = -1, best = -1, proven = -1;
	int32_t cols = -1;
	char err[256] = "";

	(void)st;
	two_type_problem(&c, &pb, nt, pt, allowed, 10000);
	assert_int_equal(gs_bound_glpk_lp(&pb, &lp, &cols, err, sizeof(err)), 0);
	assert_int_equal(lp, 1600);
	assert_true(cols >= 0);
	assert_int_equal(gs_bound_mip_solve(&pb, lp, NULL, 10, &best, &proven, err, sizeof(err)),
			 0);
	assert_int_equal(best, 1600);
	assert_int_equal(proven, 1600);
	gs_cluster_release(&c);

	two_type_problem(&c, &pb, nt, pt, allowed, 2000);
	assert_int_equal(gs_bound_glpk_lp(&pb, &lp, &cols, err, sizeof(err)), 0);
	assert_int_equal(lp, 1200);
	assert_int_equal(gs_bound_mip_solve(&pb, -1, NULL, 10, &best, &proven, err, sizeof(err)),
			 0);
	assert_int_equal(best, 1200);
	assert_int_equal(proven, 1200);
	gs_cluster_release(&c);
}

/*
 * Whole GPUs and a multi-GPU pod on two nodes of 4 GPUs: a 4-GPU pod
 * (4000) and 1-GPU pods (1000 each, 5 of them): all but one fit, 8000.
 * The LP's GPU rows hold 4 + 4: 8000. With 3 CPU per node and 1 CPU per
 * 1-GPU pod, 3 CPU for the 4-GPU pod: a node takes the big pod or three
 * small ones, 4000 + 3000 = 7000, and so does the LP (CPU pooled per type:
 * 6000 CPU, the big pod 3000 of it for 4000 milli, the small ones 1000
 * each, and 8 GPUs).
 */
static void test_lp_whole_gpus(void **st)
{
	struct gs_cluster c;
	struct gs_bound_problem pb;
	struct gs_bound_node_type nt[1] = { { 0, 2 } };
	struct gs_bound_pod_type pt[2];
	uint8_t allowed[2] = { 1, 1 };
	int64_t lp = -1, best = -1, proven = -1;
	int32_t cols;
	char err[256] = "";
	int k;

	(void)st;
	for (k = 0; k < 2; k++) {
		int32_t cpu = k ? 3000 : 64000;

		gs_cluster_init(&c);
		assert_true(gs_cluster_add_node(&c, "n0", cpu, 65536, 4, "V100M16") == 0);
		assert_true(gs_cluster_add_node(&c, "n1", cpu, 65536, 4, "V100M16") == 1);
		memset(&pb, 0, sizeof(pb));
		pt[0].req = tu_pod(k ? 3000 : 1000, 1024, 4, 1000);
		pt[0].count = 1;
		pt[1].req = tu_pod(1000, 1024, 1, 1000);
		pt[1].count = 5;
		pb.c = &c;
		pb.nt = nt;
		pb.n_nt = 1;
		pb.pt = pt;
		pb.n_pt = 2;
		pb.allowed = allowed;
		assert_int_equal(gs_bound_glpk_lp(&pb, &lp, &cols, err, sizeof(err)), 0);
		assert_int_equal(lp, k ? 7000 : 8000);
		assert_int_equal(gs_bound_mip_solve(&pb, lp, NULL, 10, &best, &proven, err,
						    sizeof(err)), 0);
		assert_int_equal(best, k ? 7000 : 8000);
		assert_int_equal(proven, best);
		gs_cluster_release(&c);
	}
}

static const char cluster_csv[] = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,2,T4\n";

/* Five rows of 600 milli: the inflation to 1.3 x 2000 takes all five and no clone. */
static const char trace_csv[] =
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
	"deletion_time,scheduled_time\n"
	"p0,1000,1024,1,600,,LS,Running,0,10,0\n"
	"p1,1000,1024,1,600,,LS,Running,0,10,0\n"
	"p2,1000,1024,1,600,,LS,Running,0,10,0\n"
	"p3,1000,1024,1,600,,LS,Running,0,10,0\n"
	"p4,1000,1024,1,600,,LS,Running,0,10,0\n";

static void load_tiny(struct gs_cluster *c, struct gs_trace *t, char *nodes_sha)
{
	char err[256];

	gs_cluster_init(c);
	gs_trace_init(t);
	assert_int_equal(gs_load_cluster_mem("tiny-nodes.csv", cluster_csv, strlen(cluster_csv), c,
					     nodes_sha, err, sizeof(err)), 0);
	assert_int_equal(gs_load_trace_mem("tiny-pods.csv", trace_csv, strlen(trace_csv), c, t,
					   err, sizeof(err)), 0);
}

/*
 * Arrived after pod i: 600 (i + 1) of 2000, so 30, 60, 90, 120, 150 %.
 * Any placement holds at most two 600s (one per GPU): OPT = 600, 1200, then
 * 1200. Bucket 90 (one arrival, 1800 arrived): floor 100 - 1200 / 20 = 40;
 * the aggregate bound only knows the 1800 arrived: 10. Bucket 30: 70 (the
 * arrived share is the limit). Bucket 100: no arrival rounds to 99..101.
 */
static void test_compute_buckets(void **st)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_bound_opts o;
	struct gs_bound_point p[3];
	char sha[GS_SHA256_HEX], err[256] = "";

	(void)st;
	load_tiny(&c, &t, sha);
	gs_bound_opts_init(&o);
	o.methods = GS_BOUND_AGGREGATE | GS_BOUND_LP | GS_BOUND_EXACT;
	o.exact_time_limit_s = 10;
	p[0].arrived_pct = 30;
	p[1].arrived_pct = 90;
	p[2].arrived_pct = 100;
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 3, err, sizeof(err)), 0);

	assert_int_equal(p[0].n_samples, 1);
	assert_int_equal(p[0].n_pods, 1);
	assert_true(fabs(p[0].unalloc_pct_min - 70.0) < 1e-9);
	assert_true(fabs(p[0].aggregate_unalloc_pct_min - 70.0) < 1e-9);

	assert_int_equal(p[1].n_samples, 1);
	assert_int_equal(p[1].n_pods, 3);
	assert_int_equal(p[1].arrived_gpu_milli, 1800);
	assert_int_equal(p[1].aggregate_milli, 1800);
	assert_int_equal(p[1].lp_milli, 1200);
	assert_int_equal(p[1].exact_milli, 1200);
	assert_int_equal(p[1].exact_bound_milli, 1200);
	assert_true(p[1].exact_optimal);
	assert_true(fabs(p[1].aggregate_unalloc_pct_min - 10.0) < 1e-9);
	assert_true(fabs(p[1].lp_unalloc_pct_min - 40.0) < 1e-9);
	assert_true(fabs(p[1].unalloc_pct_min - 40.0) < 1e-9);
	assert_string_equal(p[1].method, "exact");

	assert_int_equal(p[2].n_samples, 0);
	assert_true(isnan(p[2].unalloc_pct_min));
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Bounds are for shares as requested: a cluster with sharing modes is refused, so are bad options. */
static void test_refusals(void **st)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_bound_opts o;
	struct gs_bound_point p[1] = { { .arrived_pct = 100 } };
	struct gs_share_cfg cfg;
	char sha[GS_SHA256_HEX], err[256] = "";

	(void)st;
	load_tiny(&c, &t, sha);
	gs_bound_opts_init(&o);
	o.inflate = 0;
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 1, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "--inflate"));
	gs_bound_opts_init(&o);
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 0, err, sizeof(err)), GS_ERANGE);
	p[0].arrived_pct = -1;
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 1, err, sizeof(err)), GS_ERANGE);
	p[0].arrived_pct = 100;
	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = GS_SHARE_EXCLUSIVE;
	assert_int_equal(gs_cluster_set_share(&c, 0, -1, &cfg, err, sizeof(err)), 0);
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 1, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "sharing modes"));
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The store: a real inflate run of the tiny trace with seed 7 and its
 * bound at 90 % and 120 %; the run's bound curve, the resume lookup and
 * the bound_gap view (the run's unallocated share at arrived 100 % falls
 * back to 99..101 %, which no arrival has, so it is NULL there).
 */
static void test_store(void **st)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_replay_opts ro;
	struct gs_sim sim;
	struct gs_run_info ri;
	struct gs_bound_opts o;
	struct gs_bound_info bi;
	struct gs_bound_point p[2] = { { .arrived_pct = 90 }, { .arrived_pct = 120 } };
	struct gs_db *db = NULL;
	char sha[GS_SHA256_HEX], err[512] = "", path[4096], *params = NULL;
	double curve[131];
	int32_t pcts[2] = { 90, 120 }, other[1] = { 60 };
	int64_t run_id = 0, bound_id = 0;

	(void)st;
	load_tiny(&c, &t, sha);
	gs_replay_opts_init(&ro);
	ro.mode = GS_MODE_INFLATE;
	ro.seed = 7;
	ro.policy_flags = 0;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("first-fit"), &ro, err,
				     sizeof(err)), 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/bounds.db", gs_test_tmpdir());
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	assert_int_equal(gs_replay_params_json(&ro, &params), 0);
	memset(&ri, 0, sizeof(ri));
	ri.policy = "first-fit";
	ri.mode = "inflate";
	ri.seed = 7;
	ri.nodes_sha256 = sha;
	ri.pods_path = "tiny-pods.csv";
	ri.pods_sha256 = t.sha256;
	ri.params_json = params;
	assert_int_equal(gs_db_write_run(db, &ri, &sim, &run_id, err, sizeof(err)), 0);

	gs_bound_opts_init(&o);
	o.seed = 7;
	assert_int_equal(gs_bound_compute(&c, &t, &o, p, 2, err, sizeof(err)), 0);
	memset(&bi, 0, sizeof(bi));
	bi.pods_path = "tiny-pods.csv";
	bi.pods_sha256 = t.sha256;
	bi.nodes_sha256 = sha;
	bi.seed = 7;
	bi.inflate = o.inflate;
	bi.methods = o.methods;
	bi.n_nodes = 1;
	bi.gpu_milli = 2000;
	bi.n_arrivals = 5;
	assert_int_equal(gs_bounds_have(db, &bi, pcts, 2, err, sizeof(err)), 0);
	assert_int_equal(gs_bounds_write(db, &bi, p, 2, &bound_id, err, sizeof(err)), 0);
	assert_true(bound_id > 0);
	assert_int_equal(gs_bounds_have(db, &bi, pcts, 2, err, sizeof(err)), 1);
	assert_int_equal(gs_bounds_have(db, &bi, other, 1, err, sizeof(err)), 0);
	bi.seed = 8;
	assert_int_equal(gs_bounds_have(db, &bi, pcts, 2, err, sizeof(err)), 0);

	assert_int_equal(gs_bounds_of_run(db, run_id, curve, 130, err, sizeof(err)), 2);
	assert_true(fabs(curve[90] - 40.0) < 1e-9);
	assert_true(fabs(curve[120] - 40.0) < 1e-9);
	assert_true(isnan(curve[100]));

	gs_sim_release(&sim);
	free(params);
	gs_db_close(db);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static int setup(void **st)
{
	(void)st;
	return gs_test_tmpdir_make("bound");
}

static int teardown(void **st)
{
	(void)st;
	return gs_test_tmpdir_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lp_by_hand),
		cmocka_unit_test(test_lp_whole_gpus),
		cmocka_unit_test(test_compute_buckets),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_store),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
