/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dotprod.c - Tetris-style alignment (Grandl et al., SIGCOMM 2014), the
 * "DotProd" baseline of Weng et al., ATC 2023.
 *
 * Node score: 1 - ((C/128000)(c/128000) + (SL/8000)(r/8000)) / 2, higher
 * is better, where C and SL are the node's free CPU milli and free GPU
 * milli summed over its GPUs, and c and r the pod's CPU and total GPU
 * request. Both are normalised by the largest node shape of the openb
 * cluster (128 cores, 8 GPUs), as the reference does with its "merge"
 * GPU dimension and "max" normalisation.
 *
 * With GS_POLICY_COMPAT the score is truncated to an integer 0-100 as
 * kube-scheduler plugins report it, which makes ties (broken by the node
 * order) far more common than with the exact score.
 *
 * GPU choice: the fitting GPU with the least free share; whole GPUs by index.
 */
#include <stdbool.h>

#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double dotprod_score(void *state, const struct gs_cluster *c, int32_t node,
			    const struct gs_pod *p)
{
	const struct gs_policy_compat *d = state;
	const struct gs_node *n = &c->nodes[node];
	int64_t gpu_req = gs_pod_cpu_only(p) ? 0 : gs_pod_gpu_milli(p);
	double cpu_free = (double)n->cpu_free_milli / GS_POLICY_COMPAT_CPU_MAX_MILLI;
	double cpu_req = (double)p->cpu_milli / GS_POLICY_COMPAT_CPU_MAX_MILLI;
	double gpu_free = (double)n->gpu_free_total_milli / GS_POLICY_COMPAT_GPU_MAX_MILLI;
	double gpu_want = (double)gpu_req / GS_POLICY_COMPAT_GPU_MAX_MILLI;
	/* Same operations in the same order as the reference, so the truncation agrees. */
	double score = 1 - (cpu_free * cpu_req + gpu_free * gpu_want) / 2;

	if (d->compat)
		return (double)(int64_t)(100.0 * score);
	return score;
}

const struct gs_policy gs_policy_dotprod = {
	.name = "dotprod",
	.summary = "Tetris dot product of free and requested CPU/GPU, smallest wins (FGD baseline)",
	GS_POLICY_COMPAT_STATE,
	.score = dotprod_score,
	.pick_gpus = gs_gpu_pick_tightest,
	.node_score = true,
};
