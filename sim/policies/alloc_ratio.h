/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc_ratio.h - internal: how full a node would be after placing a pod,
 * as fractions of its capacity. Used by the kube-style scoring policies
 * (binpack, spread). Not part of the policy interface.
 */
#ifndef GS_ALLOC_RATIO_H
#define GS_ALLOC_RATIO_H

#include "core/cluster.h"

/*
 * Ties on the main term are broken by a secondary term scaled below the
 * main term's resolution: a GPU fraction moves in steps of at least
 * 1/(GS_MAX_GPUS * 1000), and the secondary term is at most 1.
 */
#define GS_TIE_WEIGHT 1e-6

/* used / cap, or 0 when cap is 0 (a node without that resource). */
static inline double gs_alloc_ratio(int64_t used, int64_t cap)
{
	return cap > 0 ? (double)used / (double)cap : 0.0;
}

/* Fraction of n's GPU share (all its GPUs) in use after placing p; 0 on a node without GPUs. */
static inline double gs_alloc_ratio_gpu_after(const struct gs_node *n, const struct gs_pod *p)
{
	int64_t cap = (int64_t)n->num_gpu * GS_MILLI_PER_GPU;

	return gs_alloc_ratio(cap - n->gpu_free_total_milli + gs_pod_gpu_milli(p), cap);
}

/* Mean of the CPU and memory fractions in use after placing p. */
static inline double gs_alloc_ratio_cpu_mem_after(const struct gs_node *n, const struct gs_pod *p)
{
	double cpu = gs_alloc_ratio(n->cpu_milli - n->cpu_free_milli + p->cpu_milli, n->cpu_milli);
	double mem = gs_alloc_ratio(n->mem_mib - n->mem_free_mib + p->mem_mib, n->mem_mib);

	return (cpu + mem) / 2;
}

#endif
