/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_inputs.h - how the simulator benchmarks that take NODES PODS as
 * their first two arguments load them: one cluster and one trace, through
 * run/inputs.h as gpusim replay does, so that a benchmark times the inputs
 * replay would run.
 */
#ifndef GS_BENCH_INPUTS_H
#define GS_BENCH_INPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include "run/inputs.h"

/*
 * Loads argv[1] (the cluster) and argv[2] (the trace) into in. Returns 0,
 * or -1 having said why on stderr as "PROG: message" (in is then empty).
 */
static inline int bench_inputs_load(const char *prog, struct gs_inputs *in, char **argv)
{
	char err[1024];

	gs_inputs_init(in);
	if (gs_inputs_load(in, argv[1], (const char *const *)&argv[2], 1, false, err,
			   sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	return 0;
}

#endif
