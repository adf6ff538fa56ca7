/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fgd.h - the scoring machinery of the FGD policy (fgd.c), for the
 * policies that extend it.
 *
 * FGD scores a node by how much its expected fragmentation drops when the
 * pod lands there (frag.h), memoised per request shape and node state. A
 * policy that wants FGD's score plus terms of its own embeds struct gs_fgd
 * as the first member of its state, starts it with gs_fgd_init() and a
 * term function, and points its table's score, pick_gpus, on_bind and
 * on_unbind at the gs_fgd_* functions below: they take the policy state,
 * whose first member is the struct gs_fgd. The term is added to the drop
 * before the score is formed, so compat scoring (the reference's integer
 * sigmoid, ties to the shuffled node order) applies to the sum.
 *
 * Ownership: the struct is inside the policy's state (the scheduler
 * allocates it zeroed); gs_fgd_init() allocates its arrays and
 * gs_fgd_release() frees them.
 */
#ifndef GS_FGD_H
#define GS_FGD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/frag.h"
#include "policies/policy.h"

struct gs_fgd;

/*
 * An extra term, in milli-GPU like the drop, higher is better: the value
 * of the node going from `before` to `after`, the same node with the pod's
 * CPU and GPU shares taken. Only after's cpu_free_milli and
 * gpu_free_milli[] are updated (not its totals or memory). The term must
 * depend on nothing but the two entries and the extending policy's fixed
 * state, so that the memo and the scheduler's index stay valid.
 */
typedef double gs_fgd_term_fn(const struct gs_fgd *f, const struct gs_node *before,
			      const struct gs_node *after);

/* A request shape: what the score depends on besides the node. */
struct gs_fgd_shape {
	int32_t cpu_milli;
	int32_t num_gpu;
	int32_t gpu_milli;
	int64_t gpu_mem_mib;
};

/* A memoised score, valid while stamp == version of its node + 1. */
struct gs_fgd_memo {
	double score;
	uint32_t stamp;
	int32_t gpu;
};

struct gs_fgd {
	bool compat;
	gs_fgd_term_fn *term;     /* NULL for FGD itself */
	struct gs_workload w;     /* the typical pods */
	struct gs_frag_shares shares; /* the kinds, prepared for a node's amounts */

	int32_t n_nodes;
	uint32_t *version;        /* [node], bumped on every bind/unbind there */
	/*
	 * The node's fragmentation as it is, worked out when it is first
	 * scored in a state, not on every change: plain compat keeps the
	 * category total (before), the others the per-kind amounts
	 * (before_kind, [node * w.n + kind]).
	 */
	double *before;
	int64_t *before_kind;
	uint32_t *before_stamp;   /* [node], valid while == version + 1 */
	struct gs_fgd_shape *shapes; /* seen so far */
	int32_t n_shapes, cap_shapes;
	struct gs_fgd_memo *memo; /* [shape * n_nodes + node] */
	int32_t last_shape;       /* the shape of the previous lookup, or -1 */
};

/*
 * Starts f (zeroed) for env's cluster and workload, with an extra term or
 * NULL. With a term the drop is always the sum of the per-kind changes
 * (exactly 0 when nothing changes), under compat too; without one, compat
 * computes it as the reference does (fgd.c). Returns 0, or GS_EINVAL /
 * GS_ENOMEM; on error gs_fgd_release() still frees what was allocated.
 */
int gs_fgd_init(struct gs_fgd *f, const struct gs_policy_env *env, gs_fgd_term_fn *term);
/* Frees the arrays of the struct gs_fgd at the start of state (not state itself). */
void gs_fgd_release(void *state);
/* struct gs_policy's score for a state that starts with a struct gs_fgd. */
double gs_fgd_score(void *state, const struct gs_cluster *c, int32_t node, const struct gs_pod *p);
/* struct gs_policy's score_once: gs_fgd_score() without the memo (the index keeps the value). */
double gs_fgd_score_once(void *state, const struct gs_cluster *c, int32_t node,
			 const struct gs_pod *p);
/* struct gs_policy's pick_gpus: the GPU the score chose for a sharing pod, else the first free. */
void gs_fgd_pick(void *state, const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
		 struct gs_placement *pl);
/* struct gs_policy's on_bind and on_unbind: the node's amounts and version follow it. */
void gs_fgd_on_change(void *state, const struct gs_cluster *c, const struct gs_pod *p,
		      const struct gs_placement *pl);

/*
 * In a struct gs_policy's initialiser, after its state and init/release:
 * FGD's node score, GPU choice and bookkeeping, for a state that starts
 * with a struct gs_fgd (fgd, and fgd-lookahead, which adds terms).
 */
#define GS_FGD_METHODS                                                                        \
	.score = gs_fgd_score, .pick_gpus = gs_fgd_pick, .on_bind = gs_fgd_on_change,           \
	.on_unbind = gs_fgd_on_change, .node_score = true, .score_once = gs_fgd_score_once

#endif
