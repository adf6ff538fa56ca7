/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sharing.c - sharing modes in the allocator: specs and their
 * canonical form, what a pod costs under each mode, the filter's reasons,
 * MIG instances through the scheduler, mixed nodes, and that bind and
 * unbind keep every invariant (c->check is on throughout).
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
#include "core/sharing.h"
#include "policies/policy.h"
#include "policies/sched.h"
#include "testutil.h"

static struct gs_share_cfg spec(const char *s)
{
	struct gs_share_cfg cfg;
	char err[200];

	if (gs_share_parse(s, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	return cfg;
}

static void test_specs(void **state)
{
	struct gs_share_cfg cfg;
	char err[200], buf[GS_SHARE_SPEC_MAX];
	static const char *const canonical[] = {
		"ideal", "exclusive", "timeslice", "timeslice:replicas=7", "mps",
		"mps:replicas=7;threads=50;pinned_mib=10240", "vgpu", "vgpu:capped", "mig",
		"mig:layout=3g.40gb+4g.40gb",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++)
		assert_string_equal(gs_share_format((cfg = spec(canonical[i]), &cfg), buf,
						    sizeof(buf)), canonical[i]);
	/* Defaults are dropped from the canonical form. */
	cfg = spec("timeslice:replicas=4");
	assert_string_equal(gs_share_format(&cfg, buf, sizeof(buf)), "timeslice");
	cfg = spec("vgpu:elastic");
	assert_string_equal(gs_share_format(&cfg, buf, sizeof(buf)), "vgpu");
	assert_int_equal(cfg.elastic, 1);
	/* The device plugin's integer 100 / replicas percent: 8 replicas get 12 %, 3 get 33 %. */
	cfg = spec("mps:replicas=8");
	assert_int_equal(gs_share_mps_thread_milli(&cfg), 120);
	assert_int_equal(gs_share_mps_pinned_mib(&cfg, 81920), 10240);
	cfg = spec("mps:replicas=3");
	assert_int_equal(gs_share_mps_thread_milli(&cfg), 330);
	assert_int_equal(gs_share_mps_pinned_mib(&cfg, 81920), 27306);
	/* An interception limiter's accuracy: 1 by default, in thousandths, printed as given. */
	cfg = spec("vgpu:capped");
	assert_int_equal(cfg.accuracy_milli, 1000);
	cfg = spec("vgpu:capped;accuracy=0.2");
	assert_int_equal(cfg.accuracy_milli, 200);
	assert_string_equal(gs_share_format(&cfg, buf, sizeof(buf)), "vgpu:capped;accuracy=0.2");
	cfg = spec("vgpu:accuracy=0.125");
	assert_int_equal(cfg.accuracy_milli, 125);
	assert_string_equal(gs_share_format(&cfg, buf, sizeof(buf)), "vgpu:accuracy=0.125");
	cfg = spec("vgpu:accuracy=1.000");
	assert_string_equal(gs_share_format(&cfg, buf, sizeof(buf)), "vgpu");
	assert_int_equal(gs_share_parse("vgpu:accuracy=1.5", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "accuracy='1.5' is out of range (0 to 1, at most 3 decimals)"));
	assert_int_equal(gs_share_parse("vgpu:accuracy=0.1234", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("vgpu:accuracy=.5", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("vgpu:accuracy", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "'accuracy' is not a setting of vgpu (it takes: capped or "
				    "elastic, accuracy=FRACTION)"));
	assert_int_equal(gs_share_parse("mps:accuracy=0.5", &cfg, err, sizeof(err)), GS_EINVAL);

	/* Errors name the bad part and what is allowed. */
	assert_int_equal(gs_share_parse("timeslot", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "'timeslot' is not a sharing mode"));
	assert_int_equal(gs_share_parse("default", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("timeslice:replicas=33", &cfg, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "replicas='33' is out of range (1 to 32)"));
	assert_int_equal(gs_share_parse("exclusive:replicas=2", &cfg, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "'replicas' is not a setting of exclusive"));
	assert_int_equal(gs_share_parse("mps:threads=0", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("vgpu:lent", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("mig:layout=3G", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("mig:", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("", &cfg, err, sizeof(err)), GS_EINVAL);
	/* A setting given twice, or an empty one, is refused rather than the last one winning. */
	assert_int_equal(gs_share_parse("mps:replicas=2;replicas=3", &cfg, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "replicas is given twice"));
	assert_int_equal(gs_share_parse("vgpu:capped;elastic", &cfg, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "elastic/capped is given twice"));
	assert_int_equal(gs_share_parse("mps:replicas=2;;threads=5", &cfg, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "has an empty setting"));
	assert_int_equal(gs_share_parse("mps:;", &cfg, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_share_parse("timeslice:replicas=2;", &cfg, err, sizeof(err)),
			 GS_EINVAL);
}

/*
 * A run's default spec is checked against every GPU it would apply to
 * before anything runs: a layout that fits no H100, profiles of no MIG
 * model on a cluster without MIG GPUs, an MPS pinned limit above the card.
 * GPUs the cluster file sets are not the default's business.
 */
static void test_share_check(void **state)
{
	struct gs_cluster c;
	char err[256];

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "t", 64000, 524288, 2, "T4"), 0);
	/* No MIG GPU: a known layout is fine (the T4s run exclusive), unknown profiles are not. */
	assert_int_equal(gs_cluster_share_check(&c, (struct gs_share_cfg[]){ spec("mig") }, err,
						sizeof(err)), 0);
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mig:layout=4g.40gb+3g.40gb") },
						err, sizeof(err)), 0);
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mig:layout=foo+bar") },
						err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "mig layout 'foo+bar' is not a layout of any MIG model"));
	/* T4: 16 GiB = 15,360 MiB in the model table. */
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mps:pinned_mib=99999999") },
						err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "node t: mps pinned_mib=99999999 is above its T4's memory"));

	assert_int_equal(gs_cluster_add_node(&c, "h", 64000, 524288, 2, "H100"), 1);
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mig:layout=4g.40gb+4g.40gb") },
						err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "node h: layout '4g.40gb+4g.40gb' does not fit"));
	/*
	 * Once h's GPUs are set by the cluster file, the default no longer
	 * applies to them; a layout no model can hold is still refused.
	 */
	assert_int_equal(gs_cluster_set_share(&c, 1, -1, (struct gs_share_cfg[]){ spec("vgpu") },
					      err, sizeof(err)), 0);
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mig:layout=4g.40gb+3g.40gb") },
						err, sizeof(err)), 0);
	assert_int_equal(gs_cluster_share_check(&c,
						(struct gs_share_cfg[]){ spec("mig:layout=4g.40gb+4g.40gb") },
						err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "is not a layout of any MIG model"));
	/* set_share holds the cluster file's own specs to the card too. */
	assert_int_equal(gs_cluster_set_share(&c, 0, 0,
					      (struct gs_share_cfg[]){ spec("mps:pinned_mib=20000") },
					      err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "is above its T4's memory"));
	gs_cluster_release(&c);
}

/* For every replica count, exactly `replicas` slots fit in a GPU. */
static void test_slot_milli(void **state)
{
	int r;

	(void)state;
	for (r = 1; r <= GS_SHARE_REPLICAS_MAX; r++) {
		int32_t m = gs_share_slot_milli(r);

		assert_true((int64_t)r * m <= 1000);
		assert_true((int64_t)(r + 1) * m > 1000);
	}
}

/* One node of 2 H100 (80 GiB each), 64 cores. */
static void make_h100(struct gs_cluster *c, const char *mode)
{
	struct gs_share_cfg cfg = spec(mode);
	char err[200];

	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "h0", 64000, 524288, 2, "H100"), 0);
	if (gs_cluster_share_default(c, &cfg, NULL, err, sizeof(err)))
		fail_msg("%s", err);
	c->check = true;
}

static struct gs_pod gpu_pod(int32_t milli, int64_t mem)
{
	struct gs_pod p = tu_pod(1000, 1024, 1, milli);

	p.gpu_mem_mib = mem;
	return p;
}

/* exclusive: a 100-milli pod takes a whole GPU, a second one the other GPU. */
static void test_exclusive(void **state)
{
	struct gs_cluster c;
	struct gs_pod p = gpu_pod(100, 0), tmp;
	struct gs_placement pl0 = tu_pl(0, 1, (int[]){ 0 }), pl1 = tu_pl(0, 1, (int[]){ 1 });

	(void)state;
	make_h100(&c, "exclusive");
	assert_int_equal(gs_cluster_node_mode(&c, 0), GS_SHARE_EXCLUSIVE);
	assert_int_equal(gs_cluster_node_pod(&c, 0, &p, &tmp)->gpu_milli, 1000);
	assert_int_equal(gs_cluster_bind(&c, &p, &pl0), 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 0);
	assert_int_equal(gs_cluster_bind(&c, &p, &pl0), GS_ENOFIT);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_OK);
	assert_int_equal(gs_cluster_bind(&c, &p, &pl1), 0);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_GPU_SHARE);
	assert_int_equal(c.gpu_free_milli, 0);
	assert_int_equal(gs_cluster_unbind(&c, &p, &pl0), 0);
	assert_int_equal(c.gpu_free_milli, 1000);
	assert_int_equal(gs_cluster_unbind(&c, &p, &pl0), GS_EINVAL);
	gs_cluster_release(&c);
}

/* timeslice with 3 replicas: 3 pods of any size per GPU, memory not accounted. */
static void test_timeslice(void **state)
{
	struct gs_cluster c;
	struct gs_pod big = gpu_pod(1000, 60 * 1024);
	struct gs_placement pl = tu_pl(0, 1, (int[]){ 0 });
	int i;

	(void)state;
	make_h100(&c, "timeslice:replicas=3");
	for (i = 0; i < 3; i++)
		assert_int_equal(gs_cluster_bind(&c, &big, &pl), 0);
	/* 3 x 333 = 999 milli; memory: 3 x 60 GiB asked, nothing accounted. */
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 1);
	assert_int_equal(c.nodes[0].gpu_mem_free_mib[0], 81920);
	assert_int_equal(c.share[0].gpu[0].pods, 3);
	assert_int_equal(gs_cluster_bind(&c, &big, &pl), GS_ENOFIT);
	/* A 2-GPU pod takes one replica on each of two GPUs. */
	big.num_gpu = 2;
	assert_int_equal(gs_cluster_fits(&c, 0, &big), GS_FIT_GPU_SHARE);
	gs_cluster_release(&c);
}

/* mps: the pinned-memory limit is card / replicas unless set. */
static void test_mps(void **state)
{
	struct gs_cluster c;
	struct gs_pod ok = gpu_pod(500, 20 * 1024), fat = gpu_pod(100, 20 * 1024 + 1);
	struct gs_placement pl = tu_pl(0, 1, (int[]){ 1 });

	(void)state;
	make_h100(&c, "mps"); /* 4 replicas: 20 GiB pinned each */
	assert_int_equal(gs_cluster_fits(&c, 0, &ok), GS_FIT_OK);
	assert_int_equal(gs_cluster_fits(&c, 0, &fat), GS_FIT_MPS_MEM);
	assert_int_equal(gs_cluster_bind(&c, &fat, &pl), GS_ENOFIT);
	assert_int_equal(gs_cluster_bind(&c, &ok, &pl), 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[1], 750);
	gs_cluster_release(&c);
	make_h100(&c, "mps:replicas=2;pinned_mib=30000");
	assert_int_equal(gs_cluster_fits(&c, 0, &fat), GS_FIT_OK);
	gs_cluster_release(&c);
}

/* mig through the scheduler: 14 pods of 1g.10gb fill 2 H100, the next is refused. */
static void test_mig_through_scheduler(void **state)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_pod p = gpu_pod(100, 8 * 1024), huge = gpu_pod(1000, 90 * 1024);
	struct gs_placement pl[15];
	struct gs_nofit why;
	char buf[160];
	int i;

	(void)state;
	make_h100(&c, "mig");
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	assert_int_equal(gs_sched_init(&s, gs_policy_find("binpack"), &env), 0);
	for (i = 0; i < 14; i++) {
		assert_int_equal(gs_sched_pick(&s, &c, &p, &pl[i], NULL), 0);
		/* Tightest GPU first: GPU 0 fills up (starts 6, 5, ... 0), then GPU 1. */
		assert_int_equal(pl[i].gpu[0], i / 7);
		assert_int_equal(pl[i].mig[0], 6 - i % 7 + 1);
		assert_int_equal(gs_sched_bind(&s, &c, &p, &pl[i]), 0);
	}
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 1000 - 7 * 142);
	assert_int_equal(c.nodes[0].gpu_mem_free_mib[0], 81920 - 7 * 10240);
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl[14], &why), GS_ENOFIT);
	assert_string_equal(gs_nofit_format(&why, buf, sizeof(buf)),
			    "0/1 nodes are available: 1 No free MIG slot for the profile");
	/* More memory than any profile: a clear reason, even on an empty cluster. */
	assert_int_equal(gs_cluster_fits(&c, 0, &huge), GS_FIT_MIG_PROFILE);
	/* Leaving: the instance is destroyed and a 4g.40gb fits on GPU 0 again. */
	for (i = 0; i < 4; i++)
		assert_int_equal(gs_sched_unbind(&s, &c, &p, &pl[6 - i]), 0); /* starts 0-3 */
	p.gpu_milli = 500; /* 4 slices */
	p.gpu_mem_mib = 0;
	assert_int_equal(gs_sched_pick(&s, &c, &p, &pl[14], NULL), 0);
	assert_int_equal(pl[14].gpu[0], 0);
	assert_int_equal(pl[14].mig[0], 0 + 1);
	assert_int_equal(gs_sched_bind(&s, &c, &p, &pl[14]), 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 1000 - 3 * 142 - 571);
	gs_sched_release(&s);
	gs_cluster_release(&c);
}

/*
 * gs_cluster_share_pick() on a MIG node and the node's largest placeable
 * profile (H100: 1g.10gb 0, 1g.20gb 1, 2g 2, 3g 3, 4g 4, 7g 5) as binds
 * and unbinds move each GPU's: c->check compares both with a full count
 * after every change.
 */
static void test_mig_pick_and_cap_max(void **state)
{
	struct gs_cluster c;
	struct gs_pod two = gpu_pod(1000, 0), one = gpu_pod(100, 8 * 1024), p3 = gpu_pod(400, 0);
	struct gs_pod p4 = gpu_pod(500, 0);
	struct gs_placement pl2, pl1, pl3, pl4;
	char err[200];

	(void)state;
	make_h100(&c, "mig");
	assert_int_equal(c.share[0].mig_cap_max, 5);
	/* A 2-GPU pod takes the first two GPUs that can, a 7g on each. */
	two.num_gpu = 2;
	gs_cluster_share_pick(&c, 0, &two, &pl2);
	assert_int_equal(pl2.num_gpu, 2);
	assert_int_equal(pl2.gpu[0], 0);
	assert_int_equal(pl2.gpu[1], 1);
	assert_int_equal(pl2.mig[0], 1);
	assert_int_equal(pl2.mig[1], 1);
	assert_int_equal(gs_cluster_bind(&c, &two, &pl2), 0);
	assert_int_equal(c.share[0].mig_cap_max, -1);
	assert_int_equal(gs_cluster_fits(&c, 0, &one), GS_FIT_MIG_SLOT);
	assert_int_equal(gs_cluster_unbind(&c, &two, &pl2), 0);
	assert_int_equal(c.share[0].mig_cap_max, 5);
	/* Equal room on both GPUs: the lower index, a 1g at the highest start. */
	gs_cluster_share_pick(&c, 0, &one, &pl1);
	assert_int_equal(pl1.num_gpu, 1);
	assert_int_equal(pl1.gpu[0], 0);
	assert_int_equal(pl1.mig[0], 7);
	assert_int_equal(gs_cluster_bind(&c, &one, &pl1), 0);
	assert_int_equal(c.share[0].gpu[0].mig_cap, 4);
	/* The tightest GPU: a 3g at slice 0 of GPU 0, which keeps room for a 2g at 4. */
	gs_cluster_share_pick(&c, 0, &p3, &pl3);
	assert_int_equal(pl3.gpu[0], 0);
	assert_int_equal(pl3.mig[0], 1);
	assert_int_equal(gs_cluster_bind(&c, &p3, &pl3), 0);
	assert_int_equal(c.share[0].gpu[0].mig_cap, 2);
	assert_int_equal(c.share[0].mig_cap_max, 5);
	/* GPU 1 held the largest and shrinks below it: the node asks both GPUs again. */
	gs_cluster_share_pick(&c, 0, &p4, &pl4);
	assert_int_equal(pl4.gpu[0], 1);
	assert_int_equal(pl4.mig[0], 1);
	assert_int_equal(gs_cluster_bind(&c, &p4, &pl4), 0);
	assert_int_equal(c.share[0].gpu[1].mig_cap, 3);
	assert_int_equal(c.share[0].mig_cap_max, 3);
	assert_int_equal(gs_cluster_fits(&c, 0, &p4), GS_FIT_MIG_SLOT);
	/* Leaving gives the 7g back to GPU 1, and the node its largest profile. */
	assert_int_equal(gs_cluster_unbind(&c, &p4, &pl4), 0);
	assert_int_equal(c.share[0].gpu[1].mig_cap, 5);
	assert_int_equal(c.share[0].mig_cap_max, 5);
	/* A stale node-wide value is an invariant the check names. */
	c.share[0].mig_cap_max = 4;
	assert_int_equal(gs_cluster_check(&c, err, sizeof(err)), GS_ECHECK);
	assert_non_null(strstr(err, "node h0: largest placeable MIG profile 4, its GPUs say 5"));
	c.share[0].mig_cap_max = 5;
	assert_int_equal(gs_cluster_check(&c, err, sizeof(err)), 0);
	gs_cluster_release(&c);
}

/* Binds a 1g.10gb pod on GPU 0 of make_h100()'s node at memory slice start. */
static void bind_1g_at(struct gs_cluster *c, int start)
{
	struct gs_pod p = gpu_pod(100, 8 * 1024);
	struct gs_placement pl = tu_pl(0, 1, (int[]){ 0 });

	pl.mig[0] = (uint8_t)(start + 1);
	assert_int_equal(gs_cluster_bind(c, &p, &pl), 0);
}

/*
 * The sharing key: MIG layouts that leave the same largest placeable
 * profile on each GPU have one key, whatever their instances' order and
 * places, and the filter agrees on them; a layout that leaves less room
 * has another.
 */
static void test_share_key(void **state)
{
	struct gs_cluster a, b, d;
	struct gs_node_share_key ka, kb, kd;
	struct gs_pod p4 = gpu_pod(500, 0), p3 = gpu_pod(400, 0);

	(void)state;
	make_h100(&a, "mig");
	make_h100(&b, "mig");
	make_h100(&d, "mig");
	bind_1g_at(&a, 6); /* slices 5 and 6: 4g.40gb still fits at 0 */
	bind_1g_at(&a, 5);
	bind_1g_at(&b, 4); /* slices 4 and 5, the other way round: the same */
	bind_1g_at(&b, 5);
	bind_1g_at(&d, 3); /* slices 3 and 5: only a 2g.20gb fits (at 0) */
	bind_1g_at(&d, 5);
	assert_memory_not_equal(&a.share[0], &b.share[0], sizeof(a.share[0]));
	assert_memory_equal(&a.nodes[0], &b.nodes[0], sizeof(a.nodes[0]));
	assert_memory_equal(&a.nodes[0], &d.nodes[0], sizeof(a.nodes[0]));
	gs_cluster_share_key(&a, 0, &ka);
	gs_cluster_share_key(&b, 0, &kb);
	gs_cluster_share_key(&d, 0, &kd);
	assert_memory_equal(&ka, &kb, sizeof(ka));
	assert_memory_not_equal(&ka, &kd, sizeof(ka));
	assert_int_equal(ka.gpu_mig_cap[0], 4);
	assert_int_equal(kd.gpu_mig_cap[0], 2);
	/* The 4g.40gb pod asks both GPUs of a and b, and only GPU 1 of d. */
	p4.num_gpu = 2;
	assert_int_equal(gs_cluster_fits(&a, 0, &p4), GS_FIT_OK);
	assert_int_equal(gs_cluster_fits(&b, 0, &p4), GS_FIT_OK);
	assert_int_equal(gs_cluster_fits(&d, 0, &p4), GS_FIT_MIG_SLOT);
	p3.num_gpu = 2; /* 3 slices: a 3g.40gb, which fits at 0 on a and b, nowhere on d's GPU 0 */
	assert_int_equal(gs_cluster_fits(&a, 0, &p3), gs_cluster_fits(&b, 0, &p3));
	assert_int_equal(gs_cluster_fits(&d, 0, &p3), GS_FIT_MIG_SLOT);
	gs_cluster_release(&a);
	gs_cluster_release(&b);
	gs_cluster_release(&d);
}

/*
 * On a node whose GPUs share a config other than MIG, the key holds the
 * node's config and leaves the GPUs' fields zero: a pod on GPU 1 or on
 * GPU 0 gives the same key, and the filter (which reads the node's entry,
 * where the two differ) is what tells them apart.
 */
static void test_share_key_uniform(void **state)
{
	struct gs_cluster a, b;
	struct gs_node_share_key ka, kb, zero;
	struct gs_pod p = gpu_pod(500, 16 * 1024);

	(void)state;
	memset(&zero, 0, sizeof(zero));
	make_h100(&a, "vgpu");
	make_h100(&b, "vgpu");
	assert_int_equal(gs_cluster_bind(&a, &p, &(struct gs_placement){ .node = 0, .num_gpu = 1,
									  .gpu = { 0 } }),
			 0);
	assert_int_equal(gs_cluster_bind(&b, &p, &(struct gs_placement){ .node = 0, .num_gpu = 1,
									  .gpu = { 1 } }),
			 0);
	gs_cluster_share_key(&a, 0, &ka);
	gs_cluster_share_key(&b, 0, &kb);
	assert_memory_equal(&ka, &kb, sizeof(ka));
	assert_int_equal(ka.mode, GS_SHARE_VGPU);
	assert_int_equal(ka.cfg, a.share[0].cfg);
	assert_memory_equal(ka.gpu_cfg, zero.gpu_cfg, sizeof(ka.gpu_cfg));
	assert_memory_equal(ka.gpu_mig_cap, zero.gpu_mig_cap, sizeof(ka.gpu_mig_cap));
	assert_int_equal(a.nodes[0].gpu_free_milli[0], 500);
	assert_int_equal(b.nodes[0].gpu_free_milli[1], 500);
	gs_cluster_release(&a);
	gs_cluster_release(&b);
}

/* A fixed layout: pods take its idle instances, which stay when they leave. */
static void test_mig_fixed_layout(void **state)
{
	struct gs_cluster c;
	struct gs_pod small = gpu_pod(100, 0), mid = gpu_pod(250, 0);
	struct gs_placement pl = tu_pl(0, 1, (int[]){ 0 }), pl2 = pl;
	char err[200];

	(void)state;
	make_h100(&c, "mig:layout=4g.40gb+3g.40gb");
	assert_int_equal(c.share[0].gpu[0].mig.n, 2);
	assert_int_equal(c.share[0].gpu[0].mig_cap, 4); /* 4g.40gb is index 4 */
	/* A 1-slice pod takes the smallest idle instance, the 3g at 4. */
	assert_int_equal(gs_cluster_share_assign(&c, &small, &pl), 0);
	assert_int_equal(pl.mig[0], 5);
	assert_int_equal(gs_cluster_bind(&c, &small, &pl), 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 1000 - 428);
	/* A 2-slice pod gets the 4g. */
	assert_int_equal(gs_cluster_share_assign(&c, &mid, &pl2), 0);
	assert_int_equal(pl2.mig[0], 1);
	assert_int_equal(gs_cluster_bind(&c, &mid, &pl2), 0);
	assert_int_equal(c.share[0].gpu[0].mig_cap, -1);
	assert_int_equal(gs_cluster_share_assign(&c, &small, &pl2), GS_ENOFIT);
	assert_int_equal(gs_cluster_unbind(&c, &small, &pl), 0);
	assert_int_equal(c.share[0].gpu[0].mig.n, 2); /* the 3g stays, idle */
	assert_int_equal(c.share[0].gpu[0].mig_cap, 3);
	gs_cluster_release(&c);

	/* Layouts and models are checked when the node gets its mode. */
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "t", 64000, 524288, 2, "T4"), 0);
	assert_int_equal(gs_cluster_set_share(&c, 0, -1, (struct gs_share_cfg[]){ spec("mig") }, err,
					      sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "GPU model T4 has no MIG profiles"));
	assert_int_equal(gs_cluster_add_node(&c, "h", 64000, 524288, 2, "H100"), 1);
	assert_int_equal(gs_cluster_set_share(&c, 1, 0,
					      (struct gs_share_cfg[]){ spec("mig:layout=4g.40gb+4g.40gb") },
					      err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "node h: layout '4g.40gb+4g.40gb' does not fit"));
	gs_cluster_release(&c);
}

/* A node whose two GPUs differ: GPU 0 exclusive, GPU 1 timeslice x2. */
static void test_mixed_node_and_copy(void **state)
{
	struct gs_cluster c, d;
	struct gs_pod p = gpu_pod(300, 0);
	struct gs_placement pl;
	char err[200];
	int i;

	(void)state;
	gs_cluster_init(&c);
	gs_cluster_init(&d);
	assert_int_equal(gs_cluster_add_node(&c, "m", 64000, 524288, 2, "A100-80G"), 0);
	assert_int_equal(gs_cluster_set_share(&c, 0, 0,
					      (struct gs_share_cfg[]){ spec("exclusive") }, err,
					      sizeof(err)), 0);
	assert_int_equal(gs_cluster_set_share(&c, 0, 1,
					      (struct gs_share_cfg[]){ spec("timeslice:replicas=2") },
					      err, sizeof(err)), 0);
	c.check = true;
	assert_int_equal(gs_cluster_node_mode(&c, 0), GS_SHARE_MIXED);
	assert_true(gs_cluster_share_picks(&c, 0));
	for (i = 0; i < 3; i++) {
		gs_cluster_share_pick(&c, 0, &p, &pl);
		assert_int_equal(pl.num_gpu, 1);
		assert_int_equal(gs_cluster_bind(&c, &p, &pl), 0);
	}
	/* 1st: GPU 0 (tie at 1000, lowest index) takes 1000; then GPU 1 twice (500 each). */
	assert_int_equal(c.nodes[0].gpu_free_milli[0], 0);
	assert_int_equal(c.nodes[0].gpu_free_milli[1], 0);
	assert_int_equal(gs_cluster_fits(&c, 0, &p), GS_FIT_GPU_SHARE);
	assert_int_equal(gs_cluster_copy(&d, &c), 0);
	assert_ptr_not_equal(d.share, c.share);
	assert_int_equal(d.share[0].gpu[1].pods, 2);
	assert_int_equal(gs_cluster_check(&d, err, sizeof(err)), 0);
	/* An unset node gets the default; the default never overrides a set GPU. */
	assert_int_equal(gs_cluster_add_node(&c, "u", 64000, 524288, 1, "H100"), 1);
	assert_int_equal(gs_cluster_share_default(&c, (struct gs_share_cfg[]){ spec("mig") }, NULL, err,
						  sizeof(err)), 0);
	assert_int_equal(gs_cluster_node_mode(&c, 1), GS_SHARE_MIG);
	assert_int_equal(gs_cluster_gpu_share(&c, 0, 0)->mode, GS_SHARE_EXCLUSIVE);
	gs_cluster_release(&c);
	gs_cluster_release(&d);

	/* All ideal: no sharing state at all. */
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "i", 64000, 524288, 1, "H100"), 0);
	assert_int_equal(gs_cluster_share_default(&c, (struct gs_share_cfg[]){ spec("ideal") }, NULL, err,
						  sizeof(err)), 0);
	assert_null(c.share);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_share_check),
		cmocka_unit_test(test_slot_milli),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_timeslice),
		cmocka_unit_test(test_mps),
		cmocka_unit_test(test_mig_through_scheduler),
		cmocka_unit_test(test_mig_pick_and_cap_max),
		cmocka_unit_test(test_share_key),
		cmocka_unit_test(test_share_key_uniform),
		cmocka_unit_test(test_mig_fixed_layout),
		cmocka_unit_test(test_mixed_node_and_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
