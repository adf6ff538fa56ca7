/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binpack.c - fill the fullest node first.
 *
 * Node score: for a GPU pod, the fraction of the node's GPU share that
 * would be allocated after placing it (the gpushare scheduler extender and
 * HAMi's "binpack" node policy both rank nodes by device usage), ties
 * broken by CPU and memory usage. For a CPU-only pod, kube-scheduler's
 * NodeResourcesFit "MostAllocated" strategy: the mean of the CPU and
 * memory fractions in use after placing it.
 *
 * GPU choice: the fitting GPU with the least free share (HAMi's "binpack"
 * GPU policy), ties to the lowest index; whole GPUs by index.
 */
#include "policies/alloc_ratio.h"
#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double binpack_score(void *state, const struct gs_cluster *c, int32_t node,
			    const struct gs_pod *p)
{
	const struct gs_node *n = &c->nodes[node];

	(void)state;
	if (gs_pod_cpu_only(p))
		return gs_alloc_ratio_cpu_mem_after(n, p);
	return gs_alloc_ratio_gpu_after(n, p) + GS_TIE_WEIGHT * gs_alloc_ratio_cpu_mem_after(n, p);
}

const struct gs_policy gs_policy_binpack = {
	.name = "binpack",
	.summary = "fullest node first, tightest GPU inside it (gpushare/HAMi binpack)",
	.score = binpack_score,
	.pick_gpus = gs_gpu_pick_tightest,
	.node_score = true,
};
