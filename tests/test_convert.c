/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_convert.c - the converters of public traces (io/trace/convert.h):
 * PAI, DLRM, spot, Philly, Helios and Acme, each on small files written
 * here from the trace's published schema (no row of a real trace), with
 * every pod, node and count worked out by hand; the errors with their
 * exact messages; round trips through gpusim's writers and readers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "io/trace/convert.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"
#include "io/trace/write.h"
#include "tmpdir.h"

static char err[2048];

struct run {
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_conv_report rep;
	struct gs_conv_opts o;
};

/* Options for format f with in-memory inputs named "jobs" and "machines" (NULL: absent). */
static void run_init(struct run *r, enum gs_conv_format f, const char *jobs,
		     const char *machines)
{
	memset(r, 0, sizeof(*r));
	gs_cluster_init(&r->c);
	gs_trace_init(&r->t);
	gs_conv_opts_init(&r->o, f);
	if (jobs) {
		r->o.jobs.name = "jobs";
		r->o.jobs.data = jobs;
		r->o.jobs.len = strlen(jobs);
	}
	if (machines) {
		r->o.machines.name = "machines";
		r->o.machines.data = machines;
		r->o.machines.len = strlen(machines);
	}
}

static int run_go(struct run *r)
{
	err[0] = '\0';
	return gs_convert(&r->o, &r->c, &r->t, &r->rep, err, sizeof(err));
}

static void run_ok(struct run *r)
{
	int rc = run_go(r);

	if (rc)
		fail_msg("conversion failed (%d): %s", rc, err);
	assert_string_equal(err, "");
}

static void run_release(struct run *r)
{
	gs_trace_release(&r->t);
	gs_cluster_release(&r->c);
}

/* Converts and expects rc with exactly the message want. */
static void conv_fail(enum gs_conv_format f, const char *jobs, const char *machines, int rc,
		      const char *want)
{
	struct run r;

	run_init(&r, f, jobs, machines);
	assert_int_equal(run_go(&r), rc);
	assert_string_equal(err, want);
	run_release(&r);
}

static size_t note(const struct run *r, const char *prefix)
{
	int i;

	for (i = 0; i < r->rep.n_notes; i++)
		if (strncmp(r->rep.notes[i].what, prefix, strlen(prefix)) == 0)
			return r->rep.notes[i].n;
	return 0;
}

static int32_t node(const struct run *r, const char *name)
{
	int32_t i;

	for (i = 0; i < r->c.n_nodes; i++)
		if (strcmp(r->c.node_names[i], name) == 0)
			return i;
	fail_msg("no node %s", name);
	return -1;
}

static size_t pod(const struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->t.n_pods; i++)
		if (strcmp(r->t.pod_names[i], name) == 0)
			return i;
	fail_msg("no pod %s", name);
	return 0;
}

static void check_node(const struct run *r, const char *name, int32_t cpu, int64_t mem,
		       int32_t gpus, const char *model)
{
	const struct gs_node *n = &r->c.nodes[node(r, name)];

	assert_int_equal(n->cpu_milli, cpu);
	assert_int_equal(n->mem_mib, mem);
	assert_int_equal(n->num_gpu, gpus);
	if (gpus)
		assert_string_equal(r->c.models.m[n->model].name, model);
}

/* Pod name's request and times, its model constraint (NULL none) and its group ("" none). */
static void check_pod(const struct run *r, const char *name, int32_t cpu, int64_t mem,
		      int32_t gpus, int32_t milli, int64_t create, int64_t del, const char *spec,
		      const char *group)
{
	size_t i = pod(r, name);
	const struct gs_pod *p = &r->t.pods[i];

	assert_int_equal(p->cpu_milli, cpu);
	assert_int_equal(p->mem_mib, mem);
	assert_int_equal(p->num_gpu, gpus);
	assert_int_equal(p->gpu_milli, milli);
	assert_int_equal(p->t_create_s, create);
	assert_int_equal(p->t_delete_s, del);
	if (spec) {
		int m = gs_models_find(&r->c.models, spec);

		assert_true(m >= 0);
		assert_int_equal(p->model_mask, 1u << m);
	} else {
		assert_int_equal(p->model_mask, 0);
	}
	assert_string_equal(gs_trace_group_name(&r->t, gs_trace_pod_group(&r->t, i)), group);
}

static int64_t model_mib(const struct run *r, const char *name)
{
	int m = gs_models_find(&r->c.models, name);

	assert_true(m >= 0);
	return r->c.models.m[m].mem_mib;
}

/*
 * Writes the conversion with gpusim's writers, reads it back with its
 * readers and checks that nothing changed: every node, every pod with its
 * group and class.
 */
static void round_trip(const struct run *r, const char *tag)
{
	char npath[512], ppath[512], name[64];
	struct gs_cluster c;
	struct gs_trace t;
	size_t i;

	snprintf(name, sizeof(name), "%s-nodes.json", tag);
	gs_test_path(name, npath, sizeof(npath));
	snprintf(name, sizeof(name), "%s-pods.csv", tag);
	gs_test_path(name, ppath, sizeof(ppath));
	assert_int_equal(gs_write_cluster_json(npath, &r->c, err, sizeof(err)), 0);
	assert_int_equal(gs_write_trace_csv(ppath, &r->t, &r->c, err, sizeof(err)), 0);
	gs_cluster_init(&c);
	gs_trace_init(&t);
	if (gs_load_cluster(npath, &c, NULL, err, sizeof(err)) ||
	    gs_load_trace(ppath, &c, &t, err, sizeof(err)))
		fail_msg("round trip: %s", err);
	assert_int_equal(c.n_nodes, r->c.n_nodes);
	for (i = 0; i < (size_t)c.n_nodes; i++) {
		assert_string_equal(c.node_names[i], r->c.node_names[i]);
		assert_int_equal(c.nodes[i].cpu_milli, r->c.nodes[i].cpu_milli);
		assert_int_equal(c.nodes[i].mem_mib, r->c.nodes[i].mem_mib);
		assert_int_equal(c.nodes[i].num_gpu, r->c.nodes[i].num_gpu);
		if (c.nodes[i].num_gpu) {
			const struct gs_gpu_model *a = &c.models.m[c.nodes[i].model];
			const struct gs_gpu_model *b = &r->c.models.m[r->c.nodes[i].model];

			assert_string_equal(a->name, b->name);
			assert_int_equal(a->mem_mib, b->mem_mib);
		}
	}
	assert_int_equal(t.n_pods, r->t.n_pods);
	assert_int_equal(t.n_groups, r->t.n_groups);
	for (i = 0; i < t.n_pods; i++) {
		const struct gs_pod *a = &t.pods[i], *b = &r->t.pods[i];

		assert_string_equal(t.pod_names[i], r->t.pod_names[i]);
		assert_int_equal(a->cpu_milli, b->cpu_milli);
		assert_int_equal(a->mem_mib, b->mem_mib);
		assert_int_equal(a->num_gpu, b->num_gpu);
		assert_int_equal(a->gpu_milli, b->gpu_milli);
		assert_int_equal(a->t_create_s, b->t_create_s);
		assert_int_equal(a->t_delete_s, b->t_delete_s);
		assert_string_equal(gs_trace_class_name(&t, a->wclass),
				    gs_trace_class_name(&r->t, b->wclass));
		assert_string_equal(gs_trace_group_name(&t, gs_trace_pod_group(&t, i)),
				    gs_trace_group_name(&r->t, gs_trace_pod_group(&r->t, i)));
		assert_string_equal(r->t.pod_specs[i] ? r->t.pod_specs[i] : "",
				    t.pod_specs[i] ? t.pod_specs[i] : "");
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-convert");
}

/* --- PAI ------------------------------------------------------------------ */

#define PAI_MACHINES "m-cpu,CPU,96,512,0\n" \
		     "m-misc,MISC,96,512,8\n" \
		     "m-v100,V100,96,384,8\n"

#define PAI_TASKS "j1,worker,2.0,Terminated,1000.0,1100.0,800.0,14.6484375,25.0,V100\n" \
		  "j1,ps,1.0,Terminated,1010.0,1200.0,400.0,10.0,,\n" \
		  "j2,tensorflow,1.0,Terminated,990.0,,200.0,4.0,150.0,MISC\n" \
		  "j3,tensorflow,1.0,Failed,0.0,0.0,100.0,1.0,100.0,T4\n" \
		  "j4,tensorflow,0.0,Waiting,,,100.0,1.0,100.0,T4\n"

static void test_pai_machines(void **state)
{
	struct run r;

	(void)state;
	/* Headerless, as the trace ships it, and with the .header line. */
	run_init(&r, GS_CONV_PAI, NULL, PAI_MACHINES);
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 3);
	assert_int_equal(r.rep.machine_rows, 3);
	check_node(&r, "m-cpu", 96000, 512 * 1024, 0, NULL);
	check_node(&r, "m-misc", 96000, 512 * 1024, 8, "MISC");
	check_node(&r, "m-v100", 96000, 384 * 1024, 8, "V100M16");
	assert_int_equal(model_mib(&r, "MISC"), 8192);
	assert_int_equal(r.t.n_pods, 0);
	run_release(&r);

	run_init(&r, GS_CONV_PAI, NULL, "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n" PAI_MACHINES);
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 3);
	assert_int_equal(r.c.gpu_count, 16);
	run_release(&r);
}

static void test_pai_tasks(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_PAI, PAI_TASKS, PAI_MACHINES);
	run_ok(&r);
	assert_int_equal(r.rep.job_rows, 5);
	assert_int_equal(r.t.n_pods, 4);
	assert_int_equal(r.t.n_groups, 1);
	/* Times from the earliest start that became a pod, j2's 990. */
	assert_int_equal(r.rep.t0_s, 990);
	/* 800 % of a core, 14.6484375 GB = 15000 MiB, 25 % of one GPU; two instances. */
	check_pod(&r, "j1.worker-0", 8000, 15000, 1, 250, 10, 110, NULL, "j1.worker");
	check_pod(&r, "j1.worker-1", 8000, 15000, 1, 250, 10, 110, NULL, "j1.worker");
	/* No plan_gpu: a CPU pod. */
	check_pod(&r, "j1.ps", 4000, 10240, 0, 0, 20, 210, NULL, "");
	/* 150 % of a GPU: two whole GPUs; no end time: never leaves. */
	check_pod(&r, "j2.tensorflow", 2000, 4096, 2, 1000, 0, -1, NULL, "");
	assert_int_equal(note(&r, "tasks that never started"), 1);
	assert_int_equal(note(&r, "tasks of 0 instances"), 1);
	assert_int_equal(note(&r, "tasks still running"), 1);
	assert_int_equal(note(&r, "tasks asking for more than one GPU"), 1);
	assert_string_equal(r.t.format, "pai");
	round_trip(&r, "pai");
	run_release(&r);

	/* The GPU type the trace gave a task becomes a constraint only on request. */
	run_init(&r, GS_CONV_PAI, PAI_TASKS, PAI_MACHINES);
	r.o.pin_models = true;
	run_ok(&r);
	check_pod(&r, "j1.worker-1", 8000, 15000, 1, 250, 10, 110, "V100M16", "j1.worker");
	check_pod(&r, "j1.ps", 4000, 10240, 0, 0, 20, 210, NULL, "");
	check_pod(&r, "j2.tensorflow", 2000, 4096, 2, 1000, 0, -1, "MISC", "");
	round_trip(&r, "pai-pinned");
	run_release(&r);
}

static void test_pai_instances(void **state)
{
	static const char insts[] =
		"job_name,task_name,inst_name,worker_name,inst_id,status,start_time,end_time,"
		"machine\n"
		"j1,worker,i0,w0,id1,Terminated,1005.0,1090.0,m-v100\n"
		"j1,worker,i1,w1,id1,Terminated,1007.0,1100.0,m-v100\n"
		"j1,ps,i2,w2,id1,Terminated,1010.0,,m-cpu\n"
		"j9,x,i3,w3,id9,Terminated,1.0,2.0,m-cpu\n"
		"j2,tensorflow,i4,w4,id2,Failed,0.0,0.0,m-misc\n";
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_PAI, PAI_TASKS, PAI_MACHINES);
	r.o.instances.name = "insts";
	r.o.instances.data = insts;
	r.o.instances.len = strlen(insts);
	run_ok(&r);
	assert_int_equal(r.t.n_pods, 3);
	assert_int_equal(r.rep.t0_s, 1005);
	/* Each instance keeps its own times; the task's request. */
	check_pod(&r, "j1.worker-0", 8000, 15000, 1, 250, 0, 85, NULL, "j1.worker");
	check_pod(&r, "j1.worker-1", 8000, 15000, 1, 250, 2, 95, NULL, "j1.worker");
	check_pod(&r, "j1.ps", 4000, 10240, 0, 0, 5, -1, NULL, "");
	assert_int_equal(note(&r, "instances of tasks the task table does not have"), 1);
	assert_int_equal(note(&r, "instances that never started"), 1);
	assert_int_equal(note(&r, "tasks none of whose instances started"), 1);
	assert_int_equal(note(&r, "instances still running"), 1);
	run_release(&r);
}

static void test_pai_errors(void **state)
{
	(void)state;
	conv_fail(GS_CONV_PAI, "j5,w,1.0,T,100.0,200.0,-600.0,1.0,50.0,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:1: column plan_cpu: '-600.0' is negative");
	conv_fail(GS_CONV_PAI, "j5,w,1.5,T,100.0,200.0,600.0,1.0,50.0,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:1: column inst_num: '1.5' is not a whole number");
	conv_fail(GS_CONV_PAI, PAI_TASKS "j5,w,1,T,100.0,200.0,600.0,abc,50.0,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:6: column plan_mem: 'abc' is not a number");
	conv_fail(GS_CONV_PAI, PAI_TASKS "j5,w,1,T,100.0,200.0,600.0,1.0,50.0\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:6: expected 10 columns, found 9");
	conv_fail(GS_CONV_PAI, "j5,w,1,T,100.0,200.0,600.0,1.0,2000.0,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:1: column plan_gpu: '20' GPUs in one pod is more than 16");
	conv_fail(GS_CONV_PAI, "j5,w,1e9,T,100.0,200.0,600.0,1.0,50.0,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:1: 1000000000 pods (workers, instances or nodes) for one job is "
		  "more than the 10000 gpusim makes of one record");
	conv_fail(GS_CONV_PAI, NULL, "a,b\n", GS_EPARSE,
		  "machines:1: unrecognised header 'a,b'; expected 'machine,gpu_type,cap_cpu,"
		  "cap_mem,cap_gpu', or no header and rows of that many columns");
	conv_fail(GS_CONV_PAI, NULL, "m1,K40,96,512,8\n", GS_EPARSE,
		  "machines:1: column gpu_type: 'K40' is not a GPU model of this trace gpusim "
		  "knows (known: MISC, P100, T4, V100, V100M32); give its memory per GPU with "
		  "--model-mem 'K40=MIB'");
	conv_fail(GS_CONV_PAI, NULL, "m1,CPU,96,512,2\n", GS_EPARSE,
		  "machines:1: column cap_gpu: '2' GPUs on a machine of gpu_type CPU");
	conv_fail(GS_CONV_PAI, NULL, "m1,T4,96,512,2.5\n", GS_EPARSE,
		  "machines:1: column cap_gpu: '2.5' is not a whole number");
	conv_fail(GS_CONV_PAI, NULL, "m1,T4,96,512,2\nm1,T4,96,512,2\n", GS_EPARSE,
		  "machines:2: column machine: duplicate node name 'm1' (first on line 1)");
	conv_fail(GS_CONV_PAI, PAI_TASKS, NULL, GS_EINVAL,
		  "the pai format takes its cluster from --machines (pai_machine_spec); give it, "
		  "or a gpusim cluster with --nodes");
	conv_fail(GS_CONV_PAI, "j1,w,1,T,1.0,2.0,1,1,,\nj1,w,1,T,1.0,2.0,1,1,,\n", PAI_MACHINES,
		  GS_EPARSE, "jobs:2: pod name 'j1.w' made twice (first from record 1): the job "
		  "ids are not unique");
}

static void test_pai_model_mem(void **state)
{
	struct gs_models mm = { .n = 0 };
	struct run r;

	(void)state;
	assert_true(gs_models_set(&mm, "K40", 12288) >= 0);
	assert_true(gs_models_set(&mm, "MISC", 12288) >= 0);
	run_init(&r, GS_CONV_PAI, NULL, "m1,K40,96,512,8\n" PAI_MACHINES);
	r.o.model_mem = &mm;
	run_ok(&r);
	check_node(&r, "m1", 96000, 524288, 8, "K40");
	assert_int_equal(model_mib(&r, "K40"), 12288);
	assert_int_equal(model_mib(&r, "MISC"), 12288);
	run_release(&r);

	run_init(&r, GS_CONV_PAI, NULL, PAI_MACHINES);
	r.o.node_count = 3;
	assert_int_equal(run_go(&r), GS_EINVAL);
	assert_string_equal(err, "--node-*: the pai format takes its nodes from --machines "
				 "(pai_machine_spec)");
	run_release(&r);
}

/* --- DLRM ----------------------------------------------------------------- */

#define DLRM_HDR "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit," \
		 "rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit," \
		 "max_instance_per_node,creation_time,scheduled_time,deletion_time\n"

#define DLRM_ROWS "i0,HN,app_a,10,10,1,1,20,20,100.0,100.0,500.0,600.0,6,,,\n" \
		  "i1,HN,app_a,10,10,1,1,20,20,100.0,100.0,500.0,600.0,6,100.0,100.0,500.0\n" \
		  "i2,HN,app_b,8,8,1,1,25,25,40.0,40.0,1.0,1.0,-1,200.0,201.0,300.0\n" \
		  "i3,CN,app_c,60,60,0,0,2,2,300.0,300.0,200.0,250.0,-1,,,1000.0\n" \
		  "i4,CN,app_c,60,60,0,0,2,2,300.0,300.0,200.0,250.0,-1,50.0,50.0,\n" \
		  "i5,CN,app_3,48,48,0,0,1,1,200.0,200.0,1.0,1.0,2,2000.0,2000.0,2100.0\n"

static void test_dlrm(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_DLRM, DLRM_HDR DLRM_ROWS, NULL);
	run_ok(&r);
	assert_int_equal(r.t.n_pods, 6);
	assert_int_equal(r.t.n_groups, 0);
	check_pod(&r, "i0", 10000, 102400, 1, 1000, 0, -1, NULL, "");
	check_pod(&r, "i1", 10000, 102400, 1, 1000, 100, 500, NULL, "");
	check_pod(&r, "i3", 60000, 307200, 0, 0, 0, 1000, NULL, "");
	check_pod(&r, "i4", 60000, 307200, 0, 0, 50, -1, NULL, "");
	/*
	 * GPU nodes: 8 GPUs with 10 cores and 100 GiB per GPU (i0's ratio);
	 * the peak is 3 GPUs in [200, 300): ceil(3 / 8 x 1.1) = 1 node.
	 */
	check_node(&r, "hn-0", 80000, 8 * 100 * 1024, 8, "dlrm-gpu");
	/*
	 * CPU nodes: the largest CN pod, 60 cores and 300 GiB; the peak is 120
	 * cores and 600 GiB in [50, 1000): ceil(2 x 1.1) = 3 nodes.
	 */
	check_node(&r, "cn-2", 60000, 300 * 1024, 0, NULL);
	assert_int_equal(r.c.n_nodes, 4);
	assert_int_equal(model_mib(&r, "dlrm-gpu"), 0);
	assert_int_equal(note(&r, "instances with a per-app density cap"), 3);
	assert_int_equal(note(&r, "instances created before the trace began"), 2);
	assert_int_equal(note(&r, "instances still running"), 2);
	round_trip(&r, "dlrm");
	run_release(&r);

	/* No headroom, 4 GPUs a node, CPU-only instances left out. */
	run_init(&r, GS_CONV_DLRM, DLRM_HDR DLRM_ROWS, NULL);
	r.o.headroom_pct = 0;
	r.o.node_gpus = 4;
	r.o.gpu_only = true;
	run_ok(&r);
	assert_int_equal(r.t.n_pods, 3);
	assert_int_equal(r.c.n_nodes, 1);
	check_node(&r, "hn-0", 40000, 4 * 100 * 1024, 4, "dlrm-gpu");
	assert_int_equal(note(&r, "instances without GPUs: left out"), 3);
	run_release(&r);

	/* A given node count and shape. */
	run_init(&r, GS_CONV_DLRM, DLRM_HDR DLRM_ROWS, NULL);
	r.o.node_count = 5;
	r.o.cpu_node_count = 2;
	r.o.node_cpu = 100;
	r.o.node_mem_gib = 1000;
	r.o.node_model = "A10";
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 7);
	check_node(&r, "hn-4", 100000, 1000 * 1024, 8, "A10");
	check_node(&r, "cn-1", 60000, 300 * 1024, 0, NULL);
	run_release(&r);
}

static void test_dlrm_errors(void **state)
{
	(void)state;
	conv_fail(GS_CONV_DLRM, DLRM_HDR "i9,XN,a,1,1,0,0,0,0,1,1,1,1,-1,,,\n", NULL, GS_EPARSE,
		  "jobs:2: column role: 'XN' is not CN or HN");
	conv_fail(GS_CONV_DLRM, DLRM_HDR "i9,CN,a,1,1,0,0,0,0,1,1,1,1,0,,,\n", NULL, GS_EPARSE,
		  "jobs:2: column max_instance_per_node: '0' is not -1 (no cap) or a whole number "
		  "of instances");
	conv_fail(GS_CONV_DLRM, DLRM_HDR "i9,CN,a,1,1,0,0,0,0,1,1,1,1,-1,5.0,,x\n", NULL,
		  GS_EPARSE, "jobs:2: column deletion_time: 'x' is not a number");
	conv_fail(GS_CONV_DLRM, DLRM_HDR "i9,CN,a,1,1,0,0,-3,0,1,1,1,1,-1,,,\n", NULL, GS_EPARSE,
		  "jobs:2: column rdma_request: '-3' is negative");
	conv_fail(GS_CONV_DLRM, "i9,CN,a,1,1,0,0,0,0,1,1,1,1,-1,,,\n", NULL, GS_EPARSE,
		  "jobs:1: unrecognised header 'i9,CN,a,1,1,0,0,0,0,1,1,1,1,-1,,,'; expected '"
		  "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,"
		  "rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,"
		  "max_instance_per_node,creation_time,scheduled_time,deletion_time'");
	conv_fail(GS_CONV_DLRM, DLRM_HDR DLRM_ROWS, "x\n", GS_EINVAL,
		  "--machines: the dlrm format has no machine list (none is published); give a "
		  "cluster with --nodes, or let the converter build one");
}

/* --- spot ----------------------------------------------------------------- */

#define SPOT_NODES "gpu_model,gpu_capacity_num,cpu_num,node_name\n" \
		   "A10,1,128,0\n" \
		   "H800,8,192,1\n" \
		   "GPU-series-1,4,192,2\n" \
		   "A100-SXM4-80GB,8,128,3\n"

#define SPOT_JOBS "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num," \
		  "submit_time,duration,job_type\n" \
		  "100,7,A10,12,1,1,0,86400,HP\n" \
		  "101,9,A100-SXM4-80GB,14,1,3,500,1000,Spot\n" \
		  "102,57,H800,8,0.5,1,600,10,Spot\n"

static void test_spot(void **state)
{
	struct gs_models mm = { .n = 0 };
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_SPOT, SPOT_JOBS, SPOT_NODES);
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 4);
	assert_int_equal(r.c.gpu_count, 21);
	check_node(&r, "1", 192000, 0, 8, "H800");
	check_node(&r, "2", 192000, 0, 4, "GPU-series-1");
	check_node(&r, "3", 128000, 0, 8, "A100-80G");
	assert_int_equal(model_mib(&r, "H800"), 81920);
	assert_int_equal(model_mib(&r, "GPU-series-1"), 24576);
	assert_int_equal(r.t.n_pods, 5);
	assert_int_equal(r.t.n_groups, 1);
	/* Per worker: 14 cores and one GPU of the job's model; three workers, one group. */
	check_pod(&r, "100", 12000, 0, 1, 1000, 0, 86400, "A10", "");
	check_pod(&r, "101-0", 14000, 0, 1, 1000, 500, 1500, "A100-80G", "101");
	check_pod(&r, "101-2", 14000, 0, 1, 1000, 500, 1500, "A100-80G", "101");
	check_pod(&r, "102", 8000, 0, 1, 500, 600, 610, "H800", "");
	assert_string_equal(gs_trace_class_name(&r.t, r.t.pods[pod(&r, "100")].wclass), "hp");
	assert_string_equal(gs_trace_class_name(&r.t, r.t.pods[pod(&r, "102")].wclass), "spot");
	round_trip(&r, "spot");
	run_release(&r);

	/* Memory the node list lacks, given. */
	run_init(&r, GS_CONV_SPOT, NULL, SPOT_NODES);
	r.o.node_mem_gib = 1024;
	run_ok(&r);
	check_node(&r, "0", 128000, 1024 * 1024, 1, "A10");
	run_release(&r);

	/* --model-mem overrides a stated assumption and lets an unknown model through. */
	assert_true(gs_models_set(&mm, "H800", 1000) >= 0);
	assert_true(gs_models_set(&mm, "B200", 184320) >= 0);
	run_init(&r, GS_CONV_SPOT, NULL, SPOT_NODES "B200,8,224,4\n");
	r.o.model_mem = &mm;
	run_ok(&r);
	assert_int_equal(model_mib(&r, "H800"), 1000);
	check_node(&r, "4", 224000, 0, 8, "B200");
	assert_int_equal(model_mib(&r, "B200"), 184320);
	run_release(&r);

	conv_fail(GS_CONV_SPOT, NULL, SPOT_NODES "B200,8,224,4\n", GS_EPARSE,
		  "machines:6: column gpu_model: 'B200' is not a GPU model of this trace gpusim "
		  "knows (known: A10, A100-SXM4-80GB, A100-PCIE-40GB, A800-SXM4-80GB, H800, A30, "
		  "GPU-series-1, GPU-series-2); give its memory per GPU with --model-mem "
		  "'B200=MIB'");
	conv_fail(GS_CONV_SPOT, SPOT_JOBS "103,1,A10,1,1,1,0,5,LP\n", SPOT_NODES, GS_EPARSE,
		  "jobs:5: column job_type: 'LP' is not HP or Spot");
	conv_fail(GS_CONV_SPOT, SPOT_JOBS "103,1,A10,1,1,2.5,0,5,HP\n", SPOT_NODES, GS_EPARSE,
		  "jobs:5: column worker_num: '2.5' is not a whole number");
	conv_fail(GS_CONV_SPOT, NULL, "gpu_model,gpu_capacity_num,cpu_num,node_name\n", GS_EPARSE,
		  "machines: no node: the machine list is empty, or has no GPU");
	conv_fail(GS_CONV_SPOT, SPOT_JOBS "103,1,A10,1,1,1,-1,5,HP\n", SPOT_NODES, GS_EPARSE,
		  "jobs:5: column submit_time: '-1' is negative");
}

/* --- Philly --------------------------------------------------------------- */

#define PHILLY_MACHINES "machineId,number of GPUs,single GPU mem\n" \
			"m1,8, 24GB\n" \
			"m2,2, 12GB\n" \
			"m3,8, 24GB\n"

#define PHILLY_GPUS8 "[\"gpu0\",\"gpu1\",\"gpu2\",\"gpu3\",\"gpu4\",\"gpu5\",\"gpu6\",\"gpu7\"]"

#define PHILLY_JOBS \
	"[{\"status\": \"Pass\", \"vc\": \"a1b2c3\", \"jobid\": \"application_1_1\", " \
	"\"attempts\": [{\"start_time\": \"2017-11-02 10:00:30\", \"end_time\": " \
	"\"2017-11-02 10:01:44\", \"detail\": [{\"ip\": \"m1\", \"gpus\": " PHILLY_GPUS8 "}, " \
	"{\"ip\": \"m3\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\", \"gpu3\"]}]}], " \
	"\"submitted_time\": \"2017-11-02 10:00:00\", \"user\": \"u1\"},\n" \
	" {\"status\": \"Killed\", \"vc\": \"a1b2c3\", \"jobid\": \"application_1_2\", " \
	"\"attempts\": [], \"submitted_time\": \"2017-11-02 09:00:00\", \"user\": \"u2\"},\n" \
	" {\"status\": \"Pass\", \"vc\": \"a1b2c3\", \"jobid\": \"application_1_3\", " \
	"\"attempts\": [{\"start_time\": \"2017-11-02 11:00:00\", \"end_time\": " \
	"\"2017-11-02 11:10:00\", \"detail\": [{\"ip\": \"m2\", \"gpus\": [\"gpu0\"]}]}, " \
	"{\"start_time\": \"2017-11-02 12:00:00\", \"end_time\": \"None\", \"detail\": []}], " \
	"\"submitted_time\": \"2017-11-02 10:47:21\", \"user\": \"u3\"}]\n"

static void test_philly(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_PHILLY, PHILLY_JOBS, PHILLY_MACHINES);
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 3);
	check_node(&r, "m1", 0, 0, 8, "GPU-24GB");
	check_node(&r, "m2", 0, 0, 2, "GPU-12GB");
	assert_int_equal(model_mib(&r, "GPU-24GB"), 24576);
	assert_int_equal(model_mib(&r, "GPU-12GB"), 12288);
	assert_int_equal(r.rep.job_rows, 3);
	assert_int_equal(r.t.n_pods, 3);
	/* One pod per machine of the first attempt, 74 s from its start to its end. */
	check_pod(&r, "application_1_1-0", 0, 0, 8, 1000, 0, 74, NULL, "application_1_1");
	check_pod(&r, "application_1_1-1", 0, 0, 4, 1000, 0, 74, NULL, "application_1_1");
	/* Submitted 47 min 21 s after the first; its last attempt has not ended. */
	check_pod(&r, "application_1_3", 0, 0, 1, 1000, 2841, -1, NULL, "");
	assert_int_equal(note(&r, "jobs with no scheduling attempt"), 1);
	assert_int_equal(note(&r, "jobs still running"), 1);
	round_trip(&r, "philly");
	run_release(&r);

	/* Cores and memory the list does not have, given. */
	run_init(&r, GS_CONV_PHILLY, NULL, "m1,8,24GB\n");
	r.o.node_cpu = 48;
	r.o.node_mem_gib = 256;
	run_ok(&r);
	check_node(&r, "m1", 48000, 256 * 1024, 8, "GPU-24GB");
	run_release(&r);

	conv_fail(GS_CONV_PHILLY, NULL, "m1,8, 24TB\n", GS_EPARSE,
		  "machines:1: column single GPU mem: '24TB' is not a memory size in GB (such as "
		  "24GB)");
	conv_fail(GS_CONV_PHILLY, "[{\"jobid\": \"a\", \"submitted_time\": \"yesterday\"}]",
		  PHILLY_MACHINES, GS_EPARSE,
		  "jobs: [0].submitted_time: 'yesterday' is not a date and time (YYYY-MM-DD "
		  "[HH:MM:SS], optionally with a zone such as +08:00)");
	conv_fail(GS_CONV_PHILLY, "[{\"jobid\": \"a\", \"submitted_time\": \"2017-02-30 00:00:00\"}]",
		  PHILLY_MACHINES, GS_EPARSE,
		  "jobs: [0].submitted_time: '2017-02-30 00:00:00' is not a date and time "
		  "(YYYY-MM-DD [HH:MM:SS], optionally with a zone such as +08:00)");
	conv_fail(GS_CONV_PHILLY, "[{\"jobid\": 5, \"submitted_time\": \"x\"}]", PHILLY_MACHINES,
		  GS_EPARSE, "jobs: [0].jobid: not a string");
	conv_fail(GS_CONV_PHILLY, "{\"jobs\": []}", PHILLY_MACHINES, GS_EPARSE,
		  "jobs: not a JSON array of jobs (the format of cluster_job_log)");
}

/* --- Helios and Acme ------------------------------------------------------ */

#define HELIOS_GPUS "date,vc1,vc2,total\n" \
		    "2020-04-01,8,8,16\n" \
		    "2020-04-02,16,8,24\n"

#define HELIOS_LOG \
	"job_id,user,vc,jname,gpu_num,cpu_num,node_num,state,submit_time,start_time," \
	"end_time,duration,queue\n" \
	"1,u1,vc1,a,16,32,2,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:10," \
	"2020-04-01 01:00:10,3600,10\n" \
	"2,u1,vc1,b,0,4,1,COMPLETED,2020-04-01 00:10:00,2020-04-01 00:10:00," \
	"2020-04-01 00:20:00,600,0\n" \
	"3,u2,vc2,c,1,2,1,CANCELLED,2020-04-01 00:20:00,,2020-04-01 00:25:00,0,300\n" \
	"4,u2,vc2,d,3,6,2,RUNNING,2020-04-01 00:30:00,2020-04-01 00:31:00,,,60\n"

static void test_helios(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_HELIOS, HELIOS_LOG, HELIOS_GPUS);
	run_ok(&r);
	assert_int_equal(r.rep.job_rows, 4);
	assert_int_equal(r.t.n_pods, 5);
	assert_int_equal(r.t.n_groups, 2);
	check_pod(&r, "1-0", 16000, 0, 8, 1000, 0, 3600, NULL, "1");
	check_pod(&r, "1-1", 16000, 0, 8, 1000, 0, 3600, NULL, "1");
	check_pod(&r, "2", 4000, 0, 0, 0, 600, 1200, NULL, "");
	/* 3 GPUs on 2 nodes: 2 each. */
	check_pod(&r, "4-1", 3000, 0, 2, 1000, 1800, -1, NULL, "4");
	assert_int_equal(note(&r, "jobs that never started"), 1);
	assert_int_equal(note(&r, "jobs whose GPUs do not divide"), 1);
	assert_int_equal(note(&r, "jobs still running"), 1);
	/* 24 GPUs at most: 3 nodes of 8, with 16 cores (2 per GPU, job 1's ratio). */
	assert_int_equal(r.c.n_nodes, 3);
	check_node(&r, "node-2", 16000, 0, 8, "V100M16");
	round_trip(&r, "helios");
	run_release(&r);

	/* A machine list past what a built cluster may hold: the list is named (a fuzz finding). */
	conv_fail(GS_CONV_HELIOS, HELIOS_LOG, "date,total\n2020-04-01,8000016\n", GS_EPARSE,
		  "machines: its 8000016 GPUs make 1000002 nodes of 8, more than the 1000000 a "
		  "built cluster may have");

	/* Times before 1970 (a clock that starts before the year 0): only differences count. */
	run_init(&r, GS_CONV_HELIOS,
		 "job_id,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
		 "a,1,1,1,1970-01-01 00:00:00,1970-01-01 00:00:00,1970-01-01 00:01:00\n"
		 "b,1,1,1,1969-12-31 23:59:50,1969-12-31 23:59:50,1970-01-01 00:00:00\n"
		 "c,1,1,1,0001-01-01 00:00:00+01:00,0001-01-01 00:00:00,\n", NULL);
	run_ok(&r);
	check_pod(&r, "c", 1000, 0, 1, 1000, 0, -1, NULL, "");
	check_pod(&r, "b", 1000, 0, 1, 1000, 62135596790 + 3600, 62135596800 + 3600, NULL, "");
	check_pod(&r, "a", 1000, 0, 1, 1000, 62135596800 + 3600, 62135596860 + 3600, NULL, "");
	run_release(&r);

	/* Without the list: the peak of 16 GPUs in use, plus 10 %: 3 nodes. */
	run_init(&r, GS_CONV_HELIOS, HELIOS_LOG, NULL);
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 3);
	run_release(&r);

	conv_fail(GS_CONV_HELIOS, "job_id,gpu_num,node_num,submit_time,start_time,end_time\n",
		  NULL, GS_EPARSE,
		  "jobs:1: no column 'cpu_num' in the header 'job_id,gpu_num,node_num,"
		  "submit_time,start_time,end_time' (a job log has job_id, gpu_num, cpu_num, "
		  "node_num, submit_time, start_time and end_time)");
	conv_fail(GS_CONV_HELIOS,
		  "job_id,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
		  "1,2,4,1,2020-04-01 00:00:00,2020-04-01 25:00:00,\n",
		  NULL, GS_EPARSE,
		  "jobs:2: column start_time: '2020-04-01 25:00:00' is not a date and time "
		  "(YYYY-MM-DD [HH:MM:SS], optionally with a zone such as +08:00)");
	conv_fail(GS_CONV_HELIOS,
		  "job_id,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
		  "1,1.5,4,1,2020-04-01 00:00:00,2020-04-01 00:00:00,\n",
		  NULL, GS_EPARSE, "jobs:2: column gpu_num: '1.5' is not a whole number");
}

#define ACME_KALOS \
	"job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state," \
	"submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n" \
	"dlc1,u01,4,32,480,800,50.0,Pretrain,FAILED,2023-06-01 08:00:00+00:00," \
	"2023-06-01 08:00:10+00:00,2023-06-01 08:00:18+00:00,2023-06-01 08:00:18+00:00,,8," \
	"10.0,256.0\n" \
	"dlc2,u01,1,8,120,500,50.0,SFT,COMPLETED,2023-06-01 16:09:02+08:00," \
	"2023-06-01 16:09:32+08:00,2023-06-01 17:09:32+08:00,,,3600,30,28800\n"

static void test_acme(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, GS_CONV_ACME, ACME_KALOS, NULL);
	run_ok(&r);
	assert_int_equal(r.t.n_pods, 5);
	assert_int_equal(r.t.n_groups, 1);
	/* 800 GB per pod; 8 s from start to end. */
	check_pod(&r, "dlc1-3", 120000, 800 * 1024, 8, 1000, 0, 8, NULL, "dlc1");
	/* 16:09:02+08:00 is 08:09:02 UTC, 542 s after dlc1's submission. */
	check_pod(&r, "dlc2", 120000, 500 * 1024, 8, 1000, 542, 4142, NULL, "");
	assert_string_equal(gs_trace_class_name(&r.t, r.t.pods[pod(&r, "dlc1-0")].wclass),
			    "pretrain");
	assert_string_equal(gs_trace_class_name(&r.t, r.t.pods[pod(&r, "dlc2")].wclass), "sft");
	/* 15 cores and 100 GiB per GPU; a peak of 32 GPUs: ceil(4 x 1.1) = 5 nodes. */
	assert_int_equal(r.c.n_nodes, 5);
	check_node(&r, "node-4", 120000, 800 * 1024, 8, "A100-80G");
	round_trip(&r, "acme");
	run_release(&r);

	conv_fail(GS_CONV_ACME, ACME_KALOS, "x\n", GS_EINVAL,
		  "--machines: the acme format has no machine list (none is published); give a "
		  "cluster with --nodes, or let the converter build one");
}

/* --- a given cluster ------------------------------------------------------ */

static void test_given_cluster(void **state)
{
	static const char nodes[] = "name,cpu_milli,memory_mib,num_gpu,gpu_model\n"
				    "a,64000,262144,8,A100-80G\n";
	struct gs_cluster given;
	char path[512];
	struct run r;

	(void)state;
	gs_test_write("given.csv", nodes, path, sizeof(path));
	gs_cluster_init(&given);
	assert_int_equal(gs_load_cluster(path, &given, NULL, err, sizeof(err)), 0);
	run_init(&r, GS_CONV_SPOT, SPOT_JOBS, NULL);
	r.o.nodes = &given;
	run_ok(&r);
	assert_int_equal(r.c.n_nodes, 1);
	assert_int_equal(r.t.n_pods, 5);
	/* A10 and H800 are in the trace but not in this cluster. */
	assert_int_equal(note(&r, "pods asking for a GPU model no node has"), 2);
	run_release(&r);

	run_init(&r, GS_CONV_SPOT, SPOT_JOBS, SPOT_NODES);
	r.o.nodes = &given;
	assert_int_equal(run_go(&r), GS_EINVAL);
	assert_string_equal(err, "--machines and --nodes both give the cluster; give one of them");
	run_release(&r);
	gs_cluster_release(&given);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pai_machines),
		cmocka_unit_test(test_pai_tasks),
		cmocka_unit_test(test_pai_instances),
		cmocka_unit_test(test_pai_errors),
		cmocka_unit_test(test_pai_model_mem),
		cmocka_unit_test(test_dlrm),
		cmocka_unit_test(test_dlrm_errors),
		cmocka_unit_test(test_spot),
		cmocka_unit_test(test_philly),
		cmocka_unit_test(test_helios),
		cmocka_unit_test(test_acme),
		cmocka_unit_test(test_given_cluster),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
