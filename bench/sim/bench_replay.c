/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_replay.c - wall time of one simulation per policy: loads a cluster
 * and a trace once, then for each policy runs gs_sim_init() + gs_sim_run()
 * REPEATS times (the inflation, the typical workload and the policy's own
 * set-up included; no database) and prints the median, min and max wall
 * time and the events per second of the median run.
 *
 *   bench_replay NODES PODS MODE REPEATS POLICY[,POLICY...] [--exact]
 *
 * MODE is 'inflate' (the FGD experiment, compat scoring, seed 42) or
 * 'time' (pods at their trace times, exact scoring). Output: one
 * tab-separated line per policy after a header.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "bench_inputs.h"
#include "bench_time.h"
#include "core/error.h"
#include "engine/replay.h"
#include "run/inputs.h"

int main(int argc, char **argv)
{
	struct gs_inputs in;
	struct gs_replay_opts o;
	char err[1024], *list, *save = NULL, *name;
	int repeats, i, exact = 0, k;
	const char *sharing = NULL;

#ifdef __GLIBC__
	/* As gpusim does (cli/main.c): freed memory stays for the next run. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif

	for (k = 6; k < argc; k++) {
		if (!strcmp(argv[k], "--exact"))
			exact = 1;
		else if (!strcmp(argv[k], "--sharing") && k + 1 < argc)
			sharing = argv[++k];
		else
			break;
	}
	if (argc < 6 || k < argc) {
		fprintf(stderr, "usage: bench_replay NODES PODS inflate|time REPEATS POLICY[,...] "
				"[--exact] [--sharing SPEC]\n");
		return 2;
	}
	repeats = atoi(argv[4]);
	if (repeats < 1 || repeats > 1000) {
		fprintf(stderr, "bench_replay: REPEATS must be 1-1000, not '%s'\n", argv[4]);
		return 2;
	}
	gs_replay_opts_init(&o);
	if (!strcmp(argv[3], "inflate")) {
		o.mode = GS_MODE_INFLATE;
		o.policy_flags = exact ? 0 : GS_POLICY_COMPAT;
	} else if (!strcmp(argv[3], "time")) {
		o.mode = GS_MODE_TIME;
	} else {
		fprintf(stderr, "bench_replay: MODE must be 'inflate' or 'time', not '%s'\n", argv[3]);
		return 2;
	}
	if (sharing && gs_share_parse(sharing, &o.sharing, err, sizeof(err))) {
		fprintf(stderr, "bench_replay: --sharing: %s\n", err);
		return 2;
	}
	if (bench_inputs_load("bench_replay", &in, argv))
		return 2;
	printf("policy\tmode\tscoring\truns\tmedian_ms\tmin_ms\tmax_ms\tevents\tevents_per_s%s\n",
	       sharing ? "\tsharing" : "");
	list = strdup(argv[5]);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct gs_policy *pol = gs_policy_find(name);
		double *ms = malloc((size_t)repeats * sizeof(*ms)), med;
		int64_t events = 0;

		if (!pol || !ms) {
			fprintf(stderr, "bench_replay: '%s' is not a policy\n", name);
			return 2;
		}
		for (i = 0; i < repeats; i++) {
			struct gs_sim sim;
			double t0 = gs_clock_ms();

			if (gs_sim_init(&sim, in.clusters, in.traces, pol, &o, err, sizeof(err)) ||
			    gs_sim_run(&sim, err, sizeof(err))) {
				fprintf(stderr, "bench_replay: %s: %s\n", name, err);
				return 1;
			}
			ms[i] = gs_clock_ms() - t0;
			events = sim.stats.events;
			gs_sim_release(&sim);
		}
		qsort(ms, (size_t)repeats, sizeof(*ms), bench_cmp_double);
		med = repeats % 2 ? ms[repeats / 2] : (ms[repeats / 2 - 1] + ms[repeats / 2]) / 2;
		printf("%s\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%lld\t%.0f%s%s\n", name, argv[3],
		       o.policy_flags & GS_POLICY_COMPAT ? "compat" : "exact", repeats, med, ms[0],
		       ms[repeats - 1], (long long)events, (double)events / (med / 1e3),
		       sharing ? "\t" : "", sharing ? sharing : "");
		fflush(stdout);
		free(ms);
	}
	free(list);
	gs_inputs_release(&in);
	return 0;
}
