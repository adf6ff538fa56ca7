/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_pick.h - GPU choices inside a node that several policies share.
 */
#ifndef GS_GPU_PICK_H
#define GS_GPU_PICK_H

#include "core/cluster.h"

/*
 * GPU choices shared by several policies, with the signature of struct
 * gs_policy's pick_gpus so that a policy points at them directly. All fill
 * pl for a node on which the pod fits and ignore state (any policy's, or
 * NULL). Whole-GPU and multi-GPU pods always take the first num_gpu GPUs
 * that fit, by index.
 */
/* The fitting GPU with the least free share (tightest fit); ties to the lowest index. */
void gs_gpu_pick_tightest(void *state, const struct gs_cluster *c, int32_t node,
			  const struct gs_pod *p, struct gs_placement *pl);
/* The fitting GPU with the most free share; ties to the lowest index. */
void gs_gpu_pick_loosest(void *state, const struct gs_cluster *c, int32_t node,
			 const struct gs_pod *p, struct gs_placement *pl);
/* The first fitting GPU(s) by index. */
void gs_gpu_pick_first(void *state, const struct gs_cluster *c, int32_t node,
		       const struct gs_pod *p, struct gs_placement *pl);

#endif
