/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spread.c - fill the emptiest node first.
 *
 * The mirror image of binpack: for a GPU pod, the fraction of the node's
 * GPU share left free after placing it, ties broken by free CPU and memory;
 * for a CPU-only pod, kube-scheduler's NodeResourcesFit "LeastAllocated"
 * strategy. GPU choice: the fitting GPU with the most free share (HAMi's
 * "spread" GPU policy), ties to the lowest index.
 */
#include "policies/alloc_ratio.h"
#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double spread_score(void *state, const struct gs_cluster *c, int32_t node,
			   const struct gs_pod *p)
{
	const struct gs_node *n = &c->nodes[node];

	(void)state;
	if (gs_pod_cpu_only(p))
		return 1.0 - gs_alloc_ratio_cpu_mem_after(n, p);
	return 1.0 - gs_alloc_ratio_gpu_after(n, p) +
	       GS_TIE_WEIGHT * (1.0 - gs_alloc_ratio_cpu_mem_after(n, p));
}

const struct gs_policy gs_policy_spread = {
	.name = "spread",
	.summary = "emptiest node first, loosest GPU inside it (kube LeastAllocated, HAMi spread)",
	.score = spread_score,
	.pick_gpus = gs_gpu_pick_loosest,
	.node_score = true,
};
