/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_results.c - how long storing one run takes: replays a trace once
 * (inflate mode, the FGD experiment's run size) and writes that run to a
 * fresh results database REPEATS times, reporting the median, min and max
 * of gs_db_write_run() and of reading run_summary back.
 *
 *   bench_results NODES.csv PODS.csv [REPEATS] [POLICY]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_inputs.h"
#include "bench_time.h"
#include "core/error.h"
#include "engine/replay.h"
#include "store/results.h"
#include "run/inputs.h"

static void report(const char *what, double *ms, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), bench_cmp_double);
	printf("%-28s median %8.2f ms  min %8.2f  max %8.2f  (%d runs)\n", what, ms[n / 2], ms[0],
	       ms[n - 1], n);
}

int main(int argc, char **argv)
{
	struct gs_inputs in;
	struct gs_replay_opts o;
	struct gs_sim sim;
	struct gs_run_info ri;
	struct gs_db *db;
	struct gs_run_row row;
	char err[1024], path[256], *params;
	const char *policy_name = argc > 4 ? argv[4] : "fgd";
	double write_ms[64], read_ms[64];
	int repeats = argc > 3 ? atoi(argv[3]) : 7, i;

	if (argc < 3 || repeats < 1 || repeats > 64) {
		fprintf(stderr, "usage: bench_results NODES PODS [REPEATS (1-64)] [POLICY]\n");
		return 2;
	}
	if (bench_inputs_load("bench_results", &in, argv))
		return 2;
	gs_replay_opts_init(&o);
	o.mode = GS_MODE_INFLATE;
	o.frag = true;
	if (!gs_policy_find(policy_name) ||
	    gs_sim_init(&sim, in.clusters, in.traces, gs_policy_find(policy_name), &o, err,
			sizeof(err)) ||
	    gs_sim_run(&sim, err, sizeof(err)) || gs_replay_params_json(&o, &params)) {
		fprintf(stderr, "bench_results: %s: cannot run: %s\n", policy_name, err);
		return 1;
	}
	memset(&ri, 0, sizeof(ri));
	ri.policy = policy_name;
	ri.mode = "inflate";
	ri.seed = o.seed;
	ri.nodes_path = argv[1];
	ri.nodes_sha256 = in.nodes_sha256;
	ri.pods_path = argv[2];
	ri.pods_sha256 = in.traces[0].sha256;
	ri.params_json = params;
	printf("one run: %d nodes, %zu pods, %zu samples\n", in.clusters[0].n_nodes, sim.n_pods,
	       sim.n_samples);

	snprintf(path, sizeof(path), "/tmp/gpusim-bench-results-%ld.db", (long)getpid());
	unlink(path);
	if (gs_db_open(path, &db, err, sizeof(err))) {
		fprintf(stderr, "bench_results: %s\n", err);
		return 1;
	}
	for (i = 0; i < repeats; i++) {
		int64_t id;
		double t0 = gs_clock_ms();

		if (gs_db_write_run(db, &ri, &sim, &id, err, sizeof(err))) {
			fprintf(stderr, "bench_results: %s\n", err);
			return 1;
		}
		write_ms[i] = gs_clock_ms() - t0;
		t0 = gs_clock_ms();
		if (gs_db_get_run(db, id, &row, err, sizeof(err))) {
			fprintf(stderr, "bench_results: %s\n", err);
			return 1;
		}
		read_ms[i] = gs_clock_ms() - t0;
		if (i == 0)
			printf("unalloc_gpu_pct %.2f, frag_ratio_pct %.2f\n", row.unalloc_gpu_pct,
			       row.frag_ratio_pct);
		gs_run_row_release(&row);
	}
	report("gs_db_write_run", write_ms, repeats);
	report("run_summary of one run", read_ms, repeats);
	gs_db_close(db);
	unlink(path);
	strcat(path, "-wal");
	unlink(path);
	free(params);
	gs_sim_release(&sim);
	gs_inputs_release(&in);
	return 0;
}
