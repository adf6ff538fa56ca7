/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idle.h - the idle GPU capacity of a cluster split by why a job cannot
 * use it, as Alibaba's analysis of its 2026 GPU trace reports it
 * (cluster-trace-gpu-v2026, scripts/build_aggregates.py, the figure
 * idle_gpu_fragmentation): for a reference job of G whole GPUs and C
 * cores (and M MiB), every idle milli-GPU of every node is one of
 *
 *   fractional  free share on a GPU that a pod partly uses: no job of
 *               whole GPUs can have it
 *   nocpu       whole free GPUs on a node whose free CPU (or memory) is
 *               short of the job's: the job fits the GPUs, not the node
 *   stranded    whole free GPUs on a node with enough CPU and memory but
 *               fewer than G whole free GPUs
 *   usable      whole free GPUs on a node that can take the job
 *
 * and the four add up to the cluster's free GPU capacity. Alibaba's
 * script works on each server's total of idle GPUs (a fraction summed
 * over GPUs), counts the fractional part only on servers that can take
 * the job and at most G GPUs as short of CPU; this one sees each GPU and
 * counts every idle milli-GPU once. GPU models are not considered: the
 * reference job takes any.
 *
 * A node's split depends on that node alone, so a tracker keeps the
 * totals current at O(1) per change (gs_idle_track_update() after every
 * bind and unbind), as core/frag.h does for fragmentation.
 *
 * Ownership: struct gs_idle_track is caller-owned (_init/_release) and
 * owns its per-node array; the cluster is borrowed per call.
 */
#ifndef GS_IDLE_H
#define GS_IDLE_H

#include <stdint.h>

#include "core/cluster.h"

/* The reference job: G whole GPUs, C milli-cores, M MiB. */
struct gs_idle_job {
	int32_t num_gpu;
	int32_t cpu_milli;
	int64_t mem_mib;
};

/* The default reference job, Alibaba's first: one GPU and 8 cores. */
#define GS_IDLE_JOB_DEFAULT { 1, 8000, 0 }

/* Idle GPU capacity by reason, in milli-GPU. */
struct gs_idle {
	int64_t frac_milli, nocpu_milli, stranded_milli, usable_milli;
};

/* Node n's idle capacity of cluster c for job into *out. */
void gs_idle_node(const struct gs_cluster *c, int32_t n, const struct gs_idle_job *job,
		  struct gs_idle *out);

/* The whole cluster's, summed over its nodes (O(nodes)). */
void gs_idle_cluster(const struct gs_cluster *c, const struct gs_idle_job *job,
		     struct gs_idle *out);

/* The totals of a cluster kept current as its nodes change. */
struct gs_idle_track {
	struct gs_idle_job job;
	struct gs_idle total;
	struct gs_idle *node;   /* owned: each node's share of the total */
	int32_t n_nodes;
};

/* Computes every node of c for job. Returns 0 or GS_ENOMEM. */
int gs_idle_track_init(struct gs_idle_track *t, const struct gs_cluster *c,
		       const struct gs_idle_job *job);

/* Node n of c changed (a bind or an unbind): its share and the total follow. */
void gs_idle_track_update(struct gs_idle_track *t, const struct gs_cluster *c, int32_t n);

/* Frees t's array; t may be released again. */
void gs_idle_track_release(struct gs_idle_track *t);

#endif
