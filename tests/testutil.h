/* SPDX-License-Identifier: Apache-2.0 */
/*
 * testutil.h - small builders shared by the tests: pods and clusters
 * written out inline, so each test states its inputs in one place.
 */
#ifndef GS_TESTUTIL_H
#define GS_TESTUTIL_H

#include <string.h>

#include "core/cluster.h"

/* A pod asking for cpu milli, memory MiB and ngpu GPUs of milli each, any model. */
static inline struct gs_pod tu_pod(int32_t cpu, int64_t mem, int32_t ngpu, int32_t milli)
{
	struct gs_pod p;

	memset(&p, 0, sizeof(p));
	p.cpu_milli = cpu;
	p.mem_mib = mem;
	p.num_gpu = ngpu;
	p.gpu_milli = milli;
	p.t_create_s = p.t_delete_s = -1;
	return p;
}

/* A placement of a pod on node with the listed GPUs. */
static inline struct gs_placement tu_pl(int32_t node, int32_t n, const int *gpus)
{
	struct gs_placement pl;
	int i;

	memset(&pl, 0, sizeof(pl));
	pl.node = node;
	pl.num_gpu = n;
	for (i = 0; i < n; i++)
		pl.gpu[i] = (uint8_t)gpus[i];
	return pl;
}

#endif
