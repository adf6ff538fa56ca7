/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpupacking.c - pack sharing pods onto partly used GPUs, the "GpuPacking"
 * baseline of Weng et al., ATC 2023.
 *
 * Preference, best first, for the GPUs the pod would take (tightest fit):
 *   1. only partly used GPUs: 100 - L/100, at least 50, L being the free
 *      milli of the GPU it would share;
 *   2. some fully free GPUs on a node already in use: 50 - (fully free
 *      GPUs taken), at least 33;
 *   3. a node with every GPU free: 33 - its GPU count (at least that
 *      count), so smaller empty nodes come first.
 * CPU-only pods score 0 everywhere, so the node order decides.
 *
 * With GS_POLICY_COMPAT the scores are the reference's integers (L*100/1000
 * then /10, and 100/3 = 33); without it they are computed exactly.
 *
 * GPU choice: the fitting GPU with the least free share; whole GPUs by index.
 */
#include <stdbool.h>

#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

static double packing_score(void *state, const struct gs_cluster *c, int32_t node,
			    const struct gs_pod *p)
{
	const struct gs_policy_compat *s = state;
	const struct gs_node *n = &c->nodes[node];
	int32_t i, best = -1, whole = n->gpu_whole_free, used_whole;

	if (gs_pod_cpu_only(p))
		return 0;
	if (whole == n->num_gpu) {
		if (s->compat)
			return max_d(100 / 3 - whole, whole);
		return max_d(100.0 / 3 - whole, whole);
	}
	if (p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU) {
		for (i = 0; i < n->num_gpu; i++) {
			if (!gs_gpu_fits(n, i, p))
				continue;
			if (best < 0 || n->gpu_free_milli[i] < n->gpu_free_milli[best])
				best = i;
		}
		if (best < 0)
			return 0;
		used_whole = n->gpu_free_milli[best] == GS_MILLI_PER_GPU;
	} else {
		used_whole = p->num_gpu;
	}
	if (used_whole > 0)
		return max_d(100 / 2 - used_whole, 100 / 3);
	if (s->compat)
		return max_d(100 - n->gpu_free_milli[best] * 100 / GS_MILLI_PER_GPU / 10, 100 / 2);
	return max_d(100 - n->gpu_free_milli[best] / 100.0, 50);
}

const struct gs_policy gs_policy_gpupacking = {
	.name = "gpupacking",
	.summary = "partly used GPUs first, then used nodes, then small empty nodes (FGD baseline)",
	GS_POLICY_COMPAT_STATE,
	.score = packing_score,
	.pick_gpus = gs_gpu_pick_tightest,
	.node_score = true,
};
