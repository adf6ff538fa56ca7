/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_pick.c - GPU choices inside a node, shared by the policies.
 *
 * A pod that asks for whole GPUs takes the first num_gpu fully free GPUs
 * by index, whatever the policy: there is nothing to pack inside a whole
 * GPU, and the FGD reference simulator does the same (Weng et al., ATC
 * 2023). Only a sharing pod (one GPU, gpu_milli < 1000) has a real choice.
 */
#include "policies/gpu_pick.h"
#include "policies/policy.h"

/* Takes the first num_gpu fitting GPUs by index. */
static void pick_first(const struct gs_node *n, const struct gs_pod *p, struct gs_placement *pl)
{
	int32_t i;

	pl->num_gpu = 0;
	for (i = 0; i < n->num_gpu && pl->num_gpu < p->num_gpu; i++)
		if (gs_gpu_fits(n, i, p))
			pl->gpu[pl->num_gpu++] = (uint8_t)i;
}

/*
 * For a sharing pod, the fitting GPU whose free share is least (tight) or
 * most (!tight), the lowest index on ties.
 */
static void pick_by_free(const struct gs_node *n, const struct gs_pod *p,
			 struct gs_placement *pl, int tight)
{
	int32_t i, best = -1;

	if (p->num_gpu != 1 || p->gpu_milli >= GS_MILLI_PER_GPU) {
		pick_first(n, p, pl);
		return;
	}
	for (i = 0; i < n->num_gpu; i++) {
		if (!gs_gpu_fits(n, i, p))
			continue;
		if (best < 0 ||
		    (tight ? n->gpu_free_milli[i] < n->gpu_free_milli[best]
			   : n->gpu_free_milli[i] > n->gpu_free_milli[best]))
			best = i;
	}
	pl->num_gpu = best >= 0;
	pl->gpu[0] = (uint8_t)(best >= 0 ? best : 0);
}

void gs_gpu_pick_tightest(void *state, const struct gs_cluster *c, int32_t node,
			  const struct gs_pod *p, struct gs_placement *pl)
{
	(void)state;
	pick_by_free(&c->nodes[node], p, pl, 1);
}

void gs_gpu_pick_loosest(void *state, const struct gs_cluster *c, int32_t node,
			 const struct gs_pod *p, struct gs_placement *pl)
{
	(void)state;
	pick_by_free(&c->nodes[node], p, pl, 0);
}

void gs_gpu_pick_first(void *state, const struct gs_cluster *c, int32_t node,
		       const struct gs_pod *p, struct gs_placement *pl)
{
	(void)state;
	pick_first(&c->nodes[node], p, pl);
}
