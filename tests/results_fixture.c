/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_fixture.c - the hand-built runs of results_fixture.h.
 */
#include "results_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

static void build_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "node-a", 64000, 262144, 4, "V100M16"), 0);
	assert_int_equal(gs_cluster_add_node(c, "node-b", 32000, 131072, 2, "T4"), 1);
	assert_int_equal(gs_cluster_add_node(c, "node-c", 16000, 65536, 0, NULL), 2);
	/* Explicit sizes, so the stored values do not depend on the built-in table. */
	assert_true(gs_models_set(&c->models, "V100M16", 16384) >= 0);
	assert_true(gs_models_set(&c->models, "T4", 15360) >= 0);
	assert_int_equal(c->gpu_milli, 6000);
}

static void info_init(struct gs_run_info *ri, const char *mode)
{
	memset(ri, 0, sizeof(*ri));
	ri->policy = "binpack";
	ri->mode = mode;
	ri->seed = 42;
	ri->nodes_path = RF_NODES_PATH;
	ri->nodes_sha256 = RF_NODES_SHA;
	ri->pods_path = RF_PODS_PATH;
	ri->pods_sha256 = RF_PODS_SHA;
	ri->params_json = RF_PARAMS;
	/* 2024-01-02T03:04:05.678Z and 1.5 s later. */
	ri->started_at.tv_sec = 1704164645;
	ri->started_at.tv_nsec = 678000000;
	ri->ended_at.tv_sec = 1704164647;
	ri->ended_at.tv_nsec = 178000000;
	ri->wall_ms = 1500.25;
}

static struct gs_sample sample(int64_t t_s, int64_t gpu_alloc, int64_t arrived, double frag)
{
	struct gs_sample s;

	memset(&s, 0, sizeof(s));
	s.t_s = t_s;
	s.gpu_alloc_milli = gpu_alloc;
	s.arrived_gpu_milli = arrived;
	s.frag_milli = frag;
	return s;
}

void rf_build_time(struct rf_run *r)
{
	static const int gpu2[] = { 2 }, gpu01[] = { 0, 1 };
	struct gs_sim *sim = &r->sim;
	struct gs_pod p[5];
	char name[8];
	int i;

	memset(r, 0, sizeof(*r));
	build_cluster(&sim->cluster);
	gs_replay_opts_init(&sim->opts);
	sim->opts.mode = GS_MODE_TIME;

	p[0] = tu_pod(4000, 8192, 1, 500);
	p[1] = tu_pod(8000, 16384, 2, 1000);
	p[1].model_mask = 1u << gs_models_find(&sim->cluster.models, "T4");
	p[2] = tu_pod(2000, 4096, 1, 700);
	p[2].gpu_mem_mib = 8000;
	p[3] = tu_pod(1000, 2048, 0, 0);
	p[4] = tu_pod(500, 1024, 1, 1000);
	/* Trace row k holds arrival pod 4 - k. */
	gs_trace_init(&r->trace);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		assert_int_equal(gs_trace_append(&r->trace, name, &p[4 - i]), 0);
	}
	sim->trace = &r->trace;
	sim->n_pods = 5;
	sim->pods = calloc(5, sizeof(*sim->pods));
	sim->out = calloc(5, sizeof(*sim->out));
	assert_non_null(sim->pods);
	assert_non_null(sim->out);
	for (i = 0; i < 5; i++) {
		sim->pods[i] = p[i];
		sim->out[i].src = 4 - i;
		sim->out[i].t_arrive_s = sim->out[i].t_start_s = sim->out[i].t_end_s = -1;
	}
	sim->out[0].state = GS_POD_RUNNING;
	sim->out[0].pl = tu_pl(0, 1, gpu2);
	sim->out[0].t_arrive_s = sim->out[0].t_start_s = 10;

	sim->out[1].state = GS_POD_DONE;
	sim->out[1].pl = tu_pl(1, 2, gpu01);
	sim->out[1].t_arrive_s = 20;
	sim->out[1].t_start_s = 30;
	sim->out[1].t_end_s = 100;

	sim->out[2].state = GS_POD_FAILED;
	sim->out[2].t_arrive_s = 40;
	sim->out[2].t_end_s = 70;
	sim->out[2].why.nodes = 3;
	sim->out[2].why.count[GS_FIT_CPU] = 1;
	sim->out[2].why.count[GS_FIT_GPU_SHARE] = 2;

	sim->out[3].state = GS_POD_DONE;
	sim->out[3].pl = tu_pl(2, 0, NULL);
	sim->out[3].t_arrive_s = sim->out[3].t_start_s = 50;
	sim->out[3].t_end_s = 60;

	sim->out[4].state = GS_POD_PENDING;
	sim->out[4].t_arrive_s = 70;
	sim->out[4].why.nodes = 3;
	sim->out[4].why.count[GS_FIT_GPU_COUNT] = 1;
	sim->out[4].why.count[GS_FIT_GPU_SHARE] = 2;

	sim->n_samples = sim->cap_samples = 4;
	sim->samples = calloc(4, sizeof(*sim->samples));
	assert_non_null(sim->samples);
	sim->samples[0] = sample(10, 500, 500, NAN);
	sim->samples[1] = sample(30, 2500, 2500, NAN);
	sim->samples[2] = sample(100, 500, 3200, NAN);
	sim->samples[3] = sample(110, 500, 4200, NAN);
	/* Every other field distinct, to catch a swapped column. */
	for (i = 0; i < 4; i++) {
		struct gs_sample *s = &sim->samples[i];

		s->event = 2 * i + 1;
		s->cpu_alloc_milli = 1000 * (i + 1);
		s->mem_alloc_mib = 100 * (i + 1);
		s->gpus_in_use = i + 1;
		s->pods_running = 10 + i;
		s->pending = 20 + i;
		s->failed = 30 + i;
		s->idle_frac_milli = 40 + i;
		s->idle_nocpu_milli = 50 + i;
		s->idle_stranded_milli = 60 + i;
	}

	sim->stats.events = 9;
	sim->stats.arrived = 5;
	sim->stats.placed = 3;
	sim->stats.failed = 1;
	sim->stats.done = 2;
	sim->stats.retries = 4;
	sim->stats.wait_total_s = 10;
	sim->stats.t_end_s = 110;
	sim->ran = true;

	/* The event figures (results_fixture.h); frag not tracked. */
	gs_time_metrics_clear(&sim->tm, 55.5);
	sim->tm.valid = true;
	sim->tm.t_first_arrival_s = 10;
	sim->tm.t_last_arrival_s = 70;
	sim->tm.t_end_s = 110;
	sim->tm.makespan_s = 100;
	sim->tm.busy_s = 90;
	sim->tm.n_waits = 3;
	sim->tm.wait_mean_s = 10.0 / 3;
	sim->tm.wait_p50_s = 0;
	sim->tm.wait_p90_s = sim->tm.wait_p99_s = sim->tm.wait_max_s = 10;
	sim->tm.n_completed = 2;
	sim->tm.completion_mean_s = 45;
	sim->tm.completion_p50_s = 10;
	sim->tm.completion_p90_s = sim->tm.completion_p99_s = sim->tm.completion_max_s = 80;
	sim->tm.slowdown_mean = 4.5;
	sim->tm.slowdown_p99 = 8;
	sim->tm.pending_avg = 0.4;
	sim->tm.pending_peak = 2;
	sim->tm.gpu_alloc_arrival_pct = 30;
	sim->tm.gpu_alloc_busy_pct = 35;
	sim->tm.gpu_alloc_peak_pct = 100.0 * 2500 / 6000;
	sim->tm.n_timed_out = 1;
	info_init(&r->info, "time");
}

void rf_build_inflate(struct rf_run *r)
{
	static const int gpu0[] = { 0 };
	struct gs_sim *sim = &r->sim;
	struct gs_pod p = tu_pod(1000, 1024, 1, 500);
	int i;

	memset(r, 0, sizeof(*r));
	build_cluster(&sim->cluster);
	gs_replay_opts_init(&sim->opts);
	sim->opts.mode = GS_MODE_INFLATE;
	sim->frag_on = true;
	gs_trace_init(&r->trace);
	assert_int_equal(gs_trace_append(&r->trace, "only", &p), 0);
	sim->trace = &r->trace;
	sim->n_pods = 2;
	sim->pods = calloc(2, sizeof(*sim->pods));
	sim->out = calloc(2, sizeof(*sim->out));
	assert_non_null(sim->pods);
	assert_non_null(sim->out);
	for (i = 0; i < 2; i++) {
		sim->pods[i] = p;
		sim->out[i].t_arrive_s = i;
		sim->out[i].t_start_s = sim->out[i].t_end_s = -1;
	}
	sim->out[0].state = GS_POD_RUNNING;
	sim->out[0].pl = tu_pl(0, 1, gpu0);
	sim->out[0].t_start_s = 0;
	sim->out[1].state = GS_POD_FAILED;
	sim->out[1].t_end_s = 1;
	sim->out[1].why.nodes = 3;
	sim->out[1].why.count[GS_FIT_GPU_SHARE] = 3;

	sim->n_samples = sim->cap_samples = 5;
	sim->samples = calloc(5, sizeof(*sim->samples));
	assert_non_null(sim->samples);
	sim->samples[0] = sample(0, 4400, 5940, 200);
	sim->samples[1] = sample(1, 4500, 5970, 300);
	sim->samples[2] = sample(2, 4800, 6000, 600);
	sim->samples[3] = sample(3, 5100, 6029, 900);
	sim->samples[4] = sample(4, 6000, 6030, 0);
	sim->stats.events = 2;
	sim->stats.arrived = 2;
	sim->stats.placed = 1;
	sim->stats.failed = 1;
	sim->stats.t_end_s = 4;
	sim->ran = true;
	gs_time_metrics_clear(&sim->tm, NAN);
	info_init(&r->info, "inflate");
	r->info.policy = "fgd";
}

void rf_release(struct rf_run *r)
{
	free(r->sim.pods);
	free(r->sim.out);
	free(r->sim.samples);
	gs_cluster_release(&r->sim.cluster);
	gs_trace_release(&r->trace);
	memset(r, 0, sizeof(*r));
}

const char *rf_temp_db(const char *tag)
{
	static char path[512];
	const char *dir = getenv("TMPDIR");
	static unsigned n;

	snprintf(path, sizeof(path), "%s/gpusim-%s-%ld-%u.db", dir && *dir ? dir : "/tmp", tag,
		 (long)getpid(), n++);
	unlink(path);
	return path;
}
