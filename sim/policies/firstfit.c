/* SPDX-License-Identifier: Apache-2.0 */
/*
 * firstfit.c - the first feasible node in visit order, the first fitting
 * GPU(s) by index. The classic bin-packing heuristic (Johnson, 1973) and
 * the cheapest baseline: every feasible node scores the same, and the
 * scheduler keeps the first one on ties.
 */
#include "policies/gpu_pick.h"
#include "policies/policy.h"

static double firstfit_score(void *state, const struct gs_cluster *c, int32_t node,
			     const struct gs_pod *p)
{
	(void)state;
	(void)c;
	(void)node;
	(void)p;
	return 0.0;
}

const struct gs_policy gs_policy_firstfit = {
	.name = "first-fit",
	.summary = "first feasible node, first fitting GPU (baseline)",
	.score = firstfit_score,
	.pick_gpus = gs_gpu_pick_first,
	.node_score = true,
};
