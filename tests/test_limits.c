/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_limits.c - the legal ranges of core/limits.h and how every layer
 * keeps them (issue 14): the CSV and JSON readers accept the same range
 * and say the same thing past it, whatever a writer produces reads back,
 * the cluster's memory total is checked, the engine refuses or gets right
 * what lies at the edge of int64 time, inflation is bounded, the
 * generator copes with 32 GPU models and a rate too slow for its count,
 * and an endless input stops at once. Each case failed before its fix.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/error.h"
#include "core/limits.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "io/trace/gen.h"
#include "io/trace/load.h"
#include "io/trace/write.h"
#include "testutil.h"
#include "tmpdir.h"

static char err[2048];

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-limits");
}

#define POD_HDR \
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
	"deletion_time\n"
#define NODE_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_model\n"
#define ONE_T4 NODE_HDR "n0,32000,65536,1,T4\n"

/* Loads name (written from text) as a cluster; returns the status, message in err. */
static int load_nodes(const char *name, const char *text, struct gs_cluster *c)
{
	char path[512];

	gs_test_write(name, text, path, sizeof(path));
	gs_cluster_init(c);
	return gs_load_cluster(path, c, NULL, err, sizeof(err));
}

/* Loads pods from text against the one-T4 cluster c (initialised here). */
static int load_pods(const char *name, const char *text, struct gs_cluster *c,
		     struct gs_trace *t)
{
	char path[512];

	assert_int_equal(load_nodes("one_t4.csv", ONE_T4, c), 0);
	gs_test_write(name, text, path, sizeof(path));
	gs_trace_init(t);
	return gs_load_trace(path, c, t, err, sizeof(err));
}

/* err must be "<tmpdir>/<suffix>". */
static void assert_err(const char *suffix)
{
	char want[2048];

	snprintf(want, sizeof(want), "%s/%s", gs_test_tmpdir(), suffix);
	assert_string_equal(err, want);
}

/*
 * One range for both readers: 2^53-1 is the last legal MiB and second in
 * CSV and in JSON, and one past it is refused in the same words. Before,
 * CSV took up to 2^63-1 (deletion_time 2^63-1 was legal) and JSON only
 * up to 2^53.
 */
static void test_readers_share_one_range(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	assert_int_equal(load_pods("ok.csv", POD_HDR "a,1,9007199254740991,0,0,0,,0,"
				   "9007199254740991\n", &c, &t), 0);
	assert_int_equal(t.pods[0].mem_mib, GS_MIB_MAX);
	assert_int_equal(t.pods[0].t_delete_s, GS_TIME_MAX_S);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	assert_int_equal(load_pods("ok.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
				   "\"memory_mib\": 9007199254740991, \"creation_time\": 0, "
				   "\"deletion_time\": 9007199254740991}]}", &c, &t), 0);
	assert_int_equal(t.pods[0].mem_mib, GS_MIB_MAX);
	assert_int_equal(t.pods[0].t_delete_s, GS_TIME_MAX_S);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	/* The pod: a deletion time of 2^63-1 was accepted and overflowed. */
	assert_int_equal(load_pods("del.csv", POD_HDR "a,1,1,0,0,0,,1,9223372036854775807\n", &c,
				   &t), GS_EPARSE);
	assert_err("del.csv:2: column deletion_time: '9223372036854775807' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);
	assert_int_equal(load_pods("mem.csv", POD_HDR "a,1,9007199254740992,0,0,0,,0,\n", &c, &t),
			 GS_EPARSE);
	assert_err("mem.csv:2: column memory_mib: '9007199254740992' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);
	assert_int_equal(load_pods("mem.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
				   "\"memory_mib\": 9007199254740992}]}", &c, &t), GS_EPARSE);
	assert_err("mem.json: pods[0].memory_mib: '9007199254740992' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);
	assert_int_equal(load_pods("time.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
				   "\"memory_mib\": 1, \"creation_time\": 1e16}]}", &c, &t),
			 GS_EPARSE);
	assert_err("time.json: pods[0].creation_time: '10000000000000000' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);

	/* The nodes: two of 2^63-1 MiB summed to -2 in the database. */
	assert_int_equal(load_nodes("big.csv", NODE_HDR "a,1,9223372036854775807,0,\n"
				    "b,1,9223372036854775807,0,\n", &c), GS_EPARSE);
	assert_err("big.csv:2: column memory_mib: '9223372036854775807' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);
	assert_int_equal(load_nodes("big.json", "{\"gpu_models\": [{\"name\": \"X\", \"mem_mib\": "
				    "9007199254740992}], \"nodes\": [{\"name\": \"a\", "
				    "\"cpu_milli\": 1, \"memory_mib\": 1}]}", &c), GS_EPARSE);
	assert_err("big.json: gpu_models[0].mem_mib: '9007199254740992' is greater than "
		   "9007199254740991");
	gs_cluster_release(&c);
}

/*
 * Inside the range the cluster's memory total can still overflow: 1024
 * nodes of 2^53-1 MiB fit in int64, the 1025th does not and is refused
 * with its line, by the allocator and by the reader.
 */
static void test_cluster_memory_total_is_checked(void **state)
{
	struct gs_cluster c;
	size_t len = 0, cap = 1100 * 48;
	char *text = malloc(cap);
	int i;

	(void)state;
	gs_cluster_init(&c);
	for (i = 0; i < 1024; i++)
		assert_int_equal(gs_cluster_add_node(&c, "n", 1, GS_MIB_MAX, 0, NULL), i);
	assert_int_equal(gs_cluster_add_node(&c, "n", 1, GS_MIB_MAX, 0, NULL), GS_ERANGE);
	assert_int_equal(gs_cluster_add_node(&c, "n", 1, GS_MIB_MAX + 1, 0, NULL), GS_ERANGE);
	assert_int_equal(c.n_nodes, 1024);
	assert_int_equal(c.mem_mib, 1024 * GS_MIB_MAX);
	assert_int_equal(gs_cluster_check(&c, NULL, 0), 0);
	gs_cluster_release(&c);

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, NODE_HDR);
	for (i = 0; i < 1025; i++)
		len += (size_t)snprintf(text + len, cap - len, "n%d,1,9007199254740991,0,\n", i);
	assert_int_equal(load_nodes("many.csv", text, &c), GS_EPARSE);
	assert_err("many.csv:1026: column memory_mib: '9007199254740991' makes the cluster's "
		   "memory add up to more than 9223372036854775807 MiB");
	assert_int_equal(c.n_nodes, 0);
	gs_cluster_release(&c);
	free(text);
}

/* Whatever the writers produce at the edges of the ranges, the readers take back unchanged. */
static void test_writers_round_trip_at_the_edges(void **state)
{
	struct gs_cluster c, back;
	struct gs_trace t, tback;
	struct gs_pod p = tu_pod(GS_CPU_MILLI_MAX, GS_MIB_MAX, 1, 1);
	char json[512], csv[512], pods[512];

	(void)state;
	gs_cluster_init(&c);
	assert_true(gs_models_set(&c.models, "BIG", GS_MIB_MAX) >= 0);
	assert_int_equal(gs_cluster_add_node(&c, "a", GS_CPU_MILLI_MAX, GS_MIB_MAX, 16, "BIG"), 0);
	assert_int_equal(gs_cluster_add_node(&c, "b", 0, 0, 0, NULL), 1);
	gs_test_path("c.json", json, sizeof(json));
	assert_int_equal(gs_write_cluster_json(json, &c, err, sizeof(err)), 0);
	gs_cluster_init(&back);
	assert_int_equal(gs_load_cluster(json, &back, NULL, err, sizeof(err)), 0);
	assert_int_equal(back.nodes[0].mem_mib, GS_MIB_MAX);
	assert_int_equal(back.nodes[0].cpu_milli, GS_CPU_MILLI_MAX);
	assert_int_equal(back.models.m[back.nodes[0].model].mem_mib, GS_MIB_MAX);

	/* A pod at every upper bound, times included, through CSV. */
	p.gpu_mem_mib = GS_MIB_MAX;
	p.t_create_s = GS_TIME_MAX_S;
	p.t_delete_s = GS_TIME_MAX_S;
	gs_trace_init(&t);
	assert_int_equal(gs_trace_append(&t, "p", &p), 0);
	gs_test_path("p.csv", pods, sizeof(pods));
	assert_int_equal(gs_write_trace_csv(pods, &t, &back, err, sizeof(err)), 0);
	gs_trace_init(&tback);
	assert_int_equal(gs_load_trace(pods, &back, &tback, err, sizeof(err)), 0);
	assert_memory_equal(&tback.pods[0], &t.pods[0], sizeof(p));

	/* CSV cannot carry the model's memory: refused before anything is written. */
	gs_test_path("c.csv", csv, sizeof(csv));
	assert_int_equal(gs_write_cluster_csv(csv, &c, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(access(csv, F_OK), -1);
	gs_trace_release(&t);
	gs_trace_release(&tback);
	gs_cluster_release(&back);
	gs_cluster_release(&c);
}

/* A pod asking for the one GPU of one_gpu() from at for d seconds. */
static void add(struct gs_trace *t, const char *name, int64_t at, int64_t del)
{
	struct gs_pod p = tu_pod(1000, 1024, 1, 1000);

	p.t_create_s = at;
	p.t_delete_s = del;
	assert_int_equal(gs_trace_append(t, name, &p), 0);
}

static void one_gpu(struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "n0", 64000, 65536, 1, "T4"), 0);
}

static struct gs_replay_opts opts(void)
{
	struct gs_replay_opts o;

	gs_replay_opts_init(&o);
	o.check = true;
	return o;
}

/*
 * At the top of the time range the answer is right: b waits for a until
 * 2^53-1 and then runs its 2^53-2 seconds, ending at 2^54-3.
 */
static void test_time_at_the_edge_is_right(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_summary s;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	add(&t, "a", 0, GS_TIME_MAX_S);
	add(&t, "b", 1, GS_TIME_MAX_S);
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.out[1].t_start_s, GS_TIME_MAX_S);
	assert_int_equal(sim.out[1].t_end_s, 2 * GS_TIME_MAX_S - 1);
	gs_sim_summarize(&sim, &s);
	assert_true(s.mean_wait_s == (double)(GS_TIME_MAX_S - 1) / 2);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Past int64 the engine refuses instead of wrapping. The case,
 * through the API (the readers now refuse such times): b waits until
 * 2^63-1 and would run 2^63-2 more; its end time was stored as
 * -9223372036854775800.
 */
static void test_departure_past_int64_is_refused(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	add(&t, "a", 0, INT64_MAX);
	add(&t, "b", 1, INT64_MAX);
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), GS_ELIMIT);
	assert_string_equal(err, "simulation refused after event 3: pod 'b' starts at "
				 "9223372036854775807 s and runs for 9223372036854775806 s, past the "
				 "last second gpusim can count (9223372036854775807)");
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Legal times whose waits add up past 2^63-1: 50 pods of 2^53-1 seconds
 * queue for one GPU. The mean wait came out negative; now the run is
 * refused when the sum would wrap (pod k waits (k-1)(2^53-1) s, and the
 * sum first passes 2^63-1 at the 46th).
 */
static void test_wait_sum_past_int64_is_refused(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	char name[16];
	int i;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		add(&t, name, 0, GS_TIME_MAX_S);
	}
	o.check = false; /* 50 pods pending: keep it quick */
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), GS_ELIMIT);
	/* 50 arrivals, then 45 departures each placing the next pod: the 46th's wait overflows. */
	assert_string_equal(err, "simulation refused after event 95: the waits of the placed pods "
				 "add up to more than 9223372036854775807 s, which gpusim cannot count");
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * --max-wait 2^63-1 means waiting forever; the deadline used to wrap to a
 * negative time and fail the pod at once. A sampling grid of 2^63-1 s ends
 * at int64's last second instead of wrapping too.
 */
static void test_max_wait_and_sample_interval_at_int64(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	add(&t, "a", 0, 100);
	add(&t, "b", 10, 20);
	o.max_wait_s = INT64_MAX;
	o.sample_interval_s = INT64_MAX;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.out[1].state, GS_POD_DONE);
	assert_int_equal(sim.out[1].t_start_s, 100);
	assert_int_equal(sim.out[1].t_end_s, 110);
	assert_int_equal(sim.stats.failed, 0);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * A sampling grid of one hour over a trace that spans 2^53 s would be 2.5e12
 * samples: found by the fuzz replay, which ran out of memory on it. Now
 * refused before the run; a grid of 10^12 s over the same trace is fine.
 */
static void test_sampling_grid_bounded(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	add(&t, "a", 0, GS_TIME_MAX_S);
	o.sample_interval_s = 3600;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "--sample-interval 3600 over arrivals and stays up to "
				 "9007199254740991 s takes about 2.5e+12 samples, more than the "
				 "1000000 a run may have (--sample-interval)");
	o.sample_interval_s = 1000000000000;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * A load so low that the arrivals must spread over more than 2^53 s: the
 * window went through llround() unchecked. Now refused before the run.
 */
static void test_load_window_bounded(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_pod p = tu_pod(1000, 1024, 1, 1);

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	p.t_create_s = 0;
	p.t_delete_s = 1000000000000000;
	assert_int_equal(gs_trace_append(&t, "a", &p), 0);
	assert_int_equal(gs_trace_append(&t, "b", &p), 0);
	o.load_pct = 0.0001;
	o.load_repeat = 1;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_non_null(strstr(err, "trace: load 0.0001%: the pods offer 0.0001% of the GPU "
				    "capacity only when their arrivals are spread over "));
	assert_non_null(strstr(err, "past the last simulated second 9007199254740991; ask for a "
				    "higher load"));
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The sharing rate model counts work in 2^-20 s: a never-ending pod that
 * ran 2^53 s overflowed rate x time when the next pod arrived, and a stay
 * of 2^53 s overflowed the work itself (UBSan). Now the first is counted
 * in doubles and the second is refused before the run.
 */
static void test_sharing_at_the_edge(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	{
		struct gs_pod a = tu_pod(1000, 1024, 1, 500), b = a;

		a.t_create_s = 0;
		b.t_create_s = GS_TIME_MAX_S;
		assert_int_equal(gs_trace_append(&t, "a", &a), 0);
		assert_int_equal(gs_trace_append(&t, "b", &b), 0);
	}
	assert_int_equal(gs_share_parse("timeslice", &o.sharing, err, sizeof(err)), 0);
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.out[1].state, GS_POD_RUNNING);
	assert_int_equal(sim.out[1].t_start_s, GS_TIME_MAX_S);
	gs_sim_release(&sim);

	t.pods[0].t_delete_s = GS_TIME_MAX_S;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "trace: pod 'a' stays 9007199254740991 s; with a sharing mode a "
				 "pod may stay at most 4398046511104 s (--sharing)");
	/* Without a sharing mode the same trace runs. */
	gs_share_cfg_init(&o.sharing, GS_SHARE_DEFAULT);
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), 0);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * --time-scale 1e-300 stretched a creation time of 5 s to 5e300 s and
 * converted that to int64 (undefined). Now the arrival is checked against
 * the legal range before the run; a trace whose pods all arrive at 0 is
 * still fine at any scale.
 */
static void test_tiny_time_scale(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	add(&t, "a", 0, 10);
	o.time_scale = 1e-300;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.out[0].t_end_s, 10);
	gs_sim_release(&sim);
	add(&t, "late", 5, 10);
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "trace: pod 'late' would arrive at 5e+300 s (creation_time 5 "
				 "divided by the time scale 1e-300), past the last simulated "
				 "second 9007199254740991 (--time-scale)");
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_ERANGE);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * --inflate has an upper bound (100) and an inflated run at most 10^7
 * arrivals; a huge factor grew the clone list until memory ran out. A
 * trace without GPU requests, or a cluster without GPUs, cannot be
 * inflated and says so (it was "invalid argument" after an empty table).
 */
static void test_inflate_bounds(void **state)
{
	struct gs_replay_opts o = opts();
	struct gs_cluster c, big, cpu;
	struct gs_trace t, cpu_only;
	struct gs_pod small = tu_pod(1, 1, 1, 1), none = tu_pod(1, 1, 0, 0);
	int32_t *idx = NULL;
	size_t n = 0;
	int i;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	assert_int_equal(gs_trace_append(&t, "s", &small), 0);
	o.mode = GS_MODE_INFLATE;
	o.inflate = 1e9;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "inflate factor 1e+09 is greater than 100 (--inflate)");
	assert_int_equal(gs_inflate_order(&t, 1, 1e300, c.gpu_milli, &idx, &n), GS_ERANGE);
	assert_null(idx);

	/* Within the factor, too many arrivals: 1000 x 16 GPUs x 100 / 1 milli each. */
	gs_cluster_init(&big);
	for (i = 0; i < 1000; i++)
		assert_int_equal(gs_cluster_add_node(&big, "g", 1, 1, 16, "T4"), i);
	o.inflate = 100;
	assert_int_equal(gs_sim_validate(&big, &t, &o, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "trace: inflating it to 100 times the GPU capacity takes about "
				 "1.6e+09 pods, more than the 10000000 a run may have (lower "
				 "--inflate)");

	o.inflate = 1.3;
	gs_trace_init(&cpu_only);
	assert_int_equal(gs_trace_append(&cpu_only, "c", &none), 0);
	assert_int_equal(gs_sim_validate(&c, &cpu_only, &o, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(err, "trace: no pod asks for a GPU, so inflate mode cannot grow it to "
				 "1.3 times the GPU capacity (use --mode time)");
	gs_cluster_init(&cpu);
	assert_int_equal(gs_cluster_add_node(&cpu, "c", 1000, 1000, 0, NULL), 0);
	assert_int_equal(gs_sim_validate(&cpu, &t, &o, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(err, "the cluster has no GPUs, and inflate mode fills GPU capacity (use "
				 "--mode time)");
	/* Time mode has no such needs. */
	o.mode = GS_MODE_TIME;
	assert_int_equal(gs_sim_validate(&cpu, &cpu_only, &o, err, sizeof(err)), 0);
	gs_trace_release(&cpu_only);
	gs_trace_release(&t);
	gs_cluster_release(&cpu);
	gs_cluster_release(&big);
	gs_cluster_release(&c);
}

/* A spec whose cluster and mix use models M00..M19 on top of the 12 built-ins. */
static void write_32_model_spec(const char *name, const char *rate, char *path, size_t len)
{
	char text[8192];
	size_t off = 0;
	int i;

	off += (size_t)snprintf(text + off, sizeof(text) - off, "{\"gpu_models\": [");
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%s{\"name\": \"M%02d\", \"mem_mib\": 16384}", i ? ", " : "", i);
	off += (size_t)snprintf(text + off, sizeof(text) - off, "], \"nodes\": [");
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%s{\"name\": \"m%02d\", \"cpu_milli\": 8000, \"memory_mib\": "
					"65536, \"num_gpu\": 2, \"gpu_model\": \"M%02d\"}",
					i ? ", " : "", i, i);
	snprintf(text + off, sizeof(text) - off,
		 "], \"pods\": {\"count\": 20, \"arrivals_per_hour\": %s, \"duration\": "
		 "{\"median_s\": 600, \"sigma\": 0.5}, \"mix\": [{\"weight\": 1, \"cpu_milli\": "
		 "1000, \"memory_mib\": 1024, \"num_gpu\": 1, \"gpu_milli\": 500, \"gpu_spec\": "
		 "\"M19|M18\"}]}}", rate);
	gs_test_write(name, text, path, len);
}

/*
 * 32 models, the documented maximum: writing the pods shifted a 32-bit
 * mask by 32 and failed with a false error after the node file was
 * written. Now both files are written and read back.
 */
static void test_gen_with_32_models(void **state)
{
	struct gs_gen_spec s;
	struct gs_trace t, back;
	struct gs_cluster c;
	char spec[512], nodes[512], pods[512];

	(void)state;
	write_32_model_spec("spec.json", "60", spec, sizeof(spec));
	gs_gen_spec_init(&s);
	assert_int_equal(gs_gen_spec_load(spec, &s, err, sizeof(err)), 0);
	assert_int_equal(s.cluster.models.n, GS_MAX_MODELS);
	gs_trace_init(&t);
	assert_int_equal(gs_gen_pods(&s, 1, &t, err, sizeof(err)), 0);
	gs_test_path("nodes.json", nodes, sizeof(nodes));
	gs_test_path("pods.csv", pods, sizeof(pods));
	assert_int_equal(gs_write_cluster_json(nodes, &s.cluster, err, sizeof(err)), 0);
	assert_int_equal(gs_write_trace_csv(pods, &t, &s.cluster, err, sizeof(err)), 0);
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(nodes, &c, NULL, err, sizeof(err)), 0);
	gs_trace_init(&back);
	assert_int_equal(gs_load_trace(pods, &c, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n_pods, 20);
	assert_int_equal(back.audit.unknown_model, 0);
	gs_trace_release(&back);
	gs_cluster_release(&c);
	gs_trace_release(&t);
	gs_gen_spec_release(&s);
}

/* A rate too slow for the count carried arrivals past int64 (undefined); now refused. */
static void test_gen_rate_too_slow(void **state)
{
	struct gs_gen_spec s;
	struct gs_trace t;
	char spec[512];

	(void)state;
	write_32_model_spec("slow.json", "1e-300", spec, sizeof(spec));
	gs_gen_spec_init(&s);
	assert_int_equal(gs_gen_spec_load(spec, &s, err, sizeof(err)), 0);
	gs_trace_init(&t);
	assert_int_equal(gs_gen_pods(&s, 1, &t, err, sizeof(err)), GS_ERANGE);
	assert_non_null(strstr(err, "pod 'pod-00' would arrive at "));
	assert_non_null(strstr(err, "past the last simulated second 9007199254740991; raise "
				    "pods.arrivals_per_hour or lower pods.count"));
	assert_int_equal(t.n_pods, 0);
	gs_gen_spec_release(&s);
}

/*
 * `gen --nodes-out a.csv --pods-out ./a.csv` compared strings and let the
 * pods overwrite the nodes. Same directory entry however it is spelt is
 * the same output; staged files are written both or neither.
 */
static void test_outputs_compared_as_files(void **state)
{
	char a[512], dot_a[600], b[600], link[512], via_link[600], cwd[1024];
	struct gs_staged st = { NULL, NULL }, st2 = { NULL, NULL };
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_pod p = tu_pod(1, 1, 0, 0);

	(void)state;
	gs_test_path("a.csv", a, sizeof(a));
	gs_test_path("b.csv", b, sizeof(b));
	snprintf(dot_a, sizeof(dot_a), "%s/./a.csv", gs_test_tmpdir());
	gs_test_path("link", link, sizeof(link));
	assert_int_equal(symlink(gs_test_tmpdir(), link), 0);
	snprintf(via_link, sizeof(via_link), "%s/a.csv", link);
	assert_true(gs_write_same_file(a, dot_a));
	assert_true(gs_write_same_file(a, via_link));
	assert_false(gs_write_same_file(a, b));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(gs_test_tmpdir()), 0);
	assert_true(gs_write_same_file("a.csv", "./a.csv"));
	assert_true(gs_write_same_file("a.csv", a));
	assert_false(gs_write_same_file("a.csv", "link"));
	assert_int_equal(chdir(cwd), 0);

	/* Staged: the pods fail (no such directory), so the nodes never appear. */
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n", 1, 1, 0, NULL), 0);
	gs_trace_init(&t);
	assert_int_equal(gs_trace_append(&t, "p", &p), 0);
	assert_int_equal(gs_staged_write_cluster_csv(&st, a, &c, err, sizeof(err)), 0);
	assert_int_equal(access(a, F_OK), -1);
	snprintf(b, sizeof(b), "%s/nodir/p.csv", gs_test_tmpdir());
	assert_int_equal(gs_staged_write_trace_csv(&st2, b, &t, &c, err, sizeof(err)), GS_EIO);
	gs_staged_discard(&st);
	assert_int_equal(access(a, F_OK), -1);
	/* And committed, it is in place. */
	assert_int_equal(gs_staged_write_cluster_csv(&st, a, &c, err, sizeof(err)), 0);
	assert_int_equal(gs_staged_commit(&st, err, sizeof(err)), 0);
	assert_int_equal(access(a, F_OK), 0);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* /dev/zero was read until memory ran out; a NUL byte now stops the read at once. */
static void test_endless_input_stops(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct timespec t0, t1;

	(void)state;
	one_gpu(&c);
	gs_trace_init(&t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(gs_load_trace("/dev/zero", &c, &t, err, sizeof(err)), GS_EPARSE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_string_equal(err, "/dev/zero:1: NUL byte in a line (is this a text file?)");
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	assert_int_equal(gs_load_cluster("/dev/zero", &c, NULL, err, sizeof(err)), GS_EINVAL);
	gs_cluster_release(&c);
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster("/dev/zero", &c, NULL, err, sizeof(err)), GS_EPARSE);
	assert_string_equal(err, "/dev/zero:1: NUL byte in a line (is this a text file?)");
	/* A directory is named as such, not read. */
	assert_int_equal(gs_load_cluster(gs_test_tmpdir(), &c, NULL, err, sizeof(err)), GS_EIO);
	assert_non_null(strstr(err, ": cannot read: Is a directory"));
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readers_share_one_range),
		cmocka_unit_test(test_cluster_memory_total_is_checked),
		cmocka_unit_test(test_writers_round_trip_at_the_edges),
		cmocka_unit_test(test_time_at_the_edge_is_right),
		cmocka_unit_test(test_departure_past_int64_is_refused),
		cmocka_unit_test(test_wait_sum_past_int64_is_refused),
		cmocka_unit_test(test_max_wait_and_sample_interval_at_int64),
		cmocka_unit_test(test_sampling_grid_bounded),
		cmocka_unit_test(test_sharing_at_the_edge),
		cmocka_unit_test(test_load_window_bounded),
		cmocka_unit_test(test_tiny_time_scale),
		cmocka_unit_test(test_inflate_bounds),
		cmocka_unit_test(test_gen_with_32_models),
		cmocka_unit_test(test_gen_rate_too_slow),
		cmocka_unit_test(test_outputs_compared_as_files),
		cmocka_unit_test(test_endless_input_stops),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
