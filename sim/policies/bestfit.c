/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bestfit.c - best fit, the "BestFit" baseline of Weng et al., ATC 2023.
 *
 * The node that would have the least left over wins: the smallest
 * 0.5 (C - c)/128000 + 0.5 (SL - r)/8000, where C and SL are the node's
 * free CPU milli and free GPU milli summed over its GPUs, and c and r the
 * pod's CPU and total GPU request.
 *
 * With GS_POLICY_COMPAT the score is the reference's integer
 * (1 - leftover) x 100, truncated. The reference then min-max normalises
 * the scores of the feasible nodes to 0-100 with integer arithmetic; on
 * this cluster the raw scores already lie in 0-100, so that mapping is
 * strictly increasing and changes neither the winner nor the ties, and we
 * leave it out.
 *
 * GPU choice: the fitting GPU with the least free share; whole GPUs by index.
 */
#include <stdbool.h>

#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double bestfit_score(void *state, const struct gs_cluster *c, int32_t node,
			    const struct gs_pod *p)
{
	const struct gs_policy_compat *b = state;
	const struct gs_node *n = &c->nodes[node];
	int64_t gpu_req = gs_pod_cpu_only(p) ? 0 : gs_pod_gpu_milli(p);
	double left = 0;

	/* Same operations in the same order as the reference, so the truncation agrees. */
	left += (double)(n->cpu_free_milli - p->cpu_milli) / GS_POLICY_COMPAT_CPU_MAX_MILLI * 0.5;
	left += (double)(n->gpu_free_total_milli - gpu_req) / GS_POLICY_COMPAT_GPU_MAX_MILLI * 0.5;
	if (b->compat)
		return (double)(int64_t)((1.0 - left) * 100.0);
	return -left;
}

const struct gs_policy gs_policy_bestfit = {
	.name = "bestfit",
	.summary = "least CPU and GPU left over after placing, tightest GPU (FGD baseline)",
	GS_POLICY_COMPAT_STATE,
	.score = bestfit_score,
	.pick_gpus = gs_gpu_pick_tightest,
	.node_score = true,
};
