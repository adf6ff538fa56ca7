/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster_internal.h - what cluster.c and cluster_share.c share; not a
 * public contract. cluster.c owns the node list, the filter for ideal GPUs
 * and the common bookkeeping of bind and unbind; cluster_share.c owns the
 * GPU part of all three for clusters with sharing modes.
 */
#ifndef GS_CLUSTER_INTERNAL_H
#define GS_CLUSTER_INTERNAL_H

#include <stdio.h>

#include "core/cluster.h"
#include "core/error.h"

/*
 * The part of the filter before a node's GPUs, every mode alike: the
 * pod's node selection, CPU, memory, then for a CPU-only pod its device
 * claims (the last filter, cluster.h), for a GPU pod the model and the GPU
 * count. Returns the first check that fails, else GS_FIT_OK; for a GPU pod
 * the GPUs decide after that.
 */
static inline enum gs_fit gs__fits_host(const struct gs_cluster *c, int32_t node,
					const struct gs_pod *p)
{
	const struct gs_node *n = &c->nodes[node];

	if (!gs_node_sel_ok(c, n, p))
		return GS_FIT_SELECTOR;
	if (p->cpu_milli > n->cpu_free_milli)
		return GS_FIT_CPU;
	if (p->mem_mib > n->mem_free_mib)
		return GS_FIT_MEM;
	if (gs_pod_cpu_only(p))
		return gs_cluster_claims_fit(c, node, p);
	if (!gs_node_model_ok(n, p))
		return GS_FIT_MODEL;
	if (p->num_gpu > n->num_gpu)
		return GS_FIT_GPU_COUNT;
	return GS_FIT_OK;
}

/* The GPU part of the filter for GPUs that account requests as given. */
enum gs_fit gs__fits_gpus(const struct gs_node *n, const struct gs_pod *p);

/* The GPU part of the filter on a node with sharing state. */
enum gs_fit gs__share_fits(const struct gs_cluster *c, int32_t node, const struct gs_pod *p);

/*
 * What each GPU of a placement takes or gives back, as gs__share_gpu_check()
 * worked it out for gs__share_gpu_apply(), which would otherwise work it
 * out again (on a MIG GPU: the pod's profile and the instance's).
 */
struct gs__share_plan {
	int32_t milli[GS_MAX_GPUS];
	int64_t mem_mib[GS_MAX_GPUS];
	int8_t prof[GS_MAX_GPUS];  /* MIG: the instance's profile; -1 elsewhere */
};

/*
 * Checks that the GPUs of pl can take (dir = +1) or give back (dir = -1)
 * pod p under their modes and fills *plan; changes nothing else. Returns
 * 0, GS_ENOFIT or GS_EINVAL (then *plan is partly written).
 */
int gs__share_gpu_check(const struct gs_cluster *c, const struct gs_pod *p,
			const struct gs_placement *pl, int dir, struct gs__share_plan *plan);

/* Applies the plan gs__share_gpu_check() accepted to the node's GPU arrays and sharing state. */
void gs__share_gpu_apply(struct gs_cluster *c, const struct gs_placement *pl, int dir,
			 const struct gs__share_plan *plan);

/*
 * For the invariant checks (gs_cluster_check(), gs__share_check()): writes
 * the message into msg (when there is room) and returns GS_ECHECK from the
 * function it is used in, which has msg and msg_len.
 */
#define GS__CHECK_FAIL(...)                                  \
	do {                                                 \
		if (msg && msg_len)                          \
			snprintf(msg, msg_len, __VA_ARGS__); \
		return GS_ECHECK;                            \
	} while (0)

/* Verifies the sharing state of every node (gs_cluster_check()). */
int gs__share_check(const struct gs_cluster *c, char *msg, size_t msg_len);

/* Copies and frees the sharing state (gs_cluster_copy(), _release()). */
int gs__share_copy(struct gs_cluster *dst, const struct gs_cluster *src);

/* Makes room for one more node's sharing state, unset (gs_cluster_add_node()). */
int gs__share_add_node(struct gs_cluster *c, int32_t node);

#endif
