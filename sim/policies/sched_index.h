/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sched_index.h - internal to the scheduler (sched.c): an index over the
 * nodes that answers gs_sched_pick() without filtering and scoring every
 * node, with the very same answer.
 *
 * The filter and, for policies that promise it (gs_policy.node_score), the
 * score are functions of a node's state and the pod's request shape. The
 * index keeps, per request shape, the filter outcome of every node and a
 * max-tree of the scores over the nodes in visit order; the scheduler's
 * choice is the leftmost maximum, found in O(log nodes). Nodes in equal
 * states share one computed outcome per shape. Changes are logged and
 * applied to a shape's tree when that shape is next asked for. Plain C,
 * libc only, like the rest of policies/.
 *
 * Ownership: the index is heap-allocated (_new/_free); it borrows the
 * cluster, the visit order, the policy and its state for its lifetime.
 */
#ifndef GS_SCHED_INDEX_H
#define GS_SCHED_INDEX_H

#include "core/cluster.h"
#include "policies/policy.h"
#include "policies/sched.h"

/* gs_sched_index_pick() could not answer: run the plain filter-and-score loop. */
#define GS_SCHED_INDEX_SCAN 1

struct gs_sched_index;

/*
 * Builds an index of cluster c, whose nodes are visited in order[0..n-1]
 * (n = c->n_nodes), for policy pol with state pol_state. Returns NULL when
 * out of memory, or when c has GPU sharing modes (c->share: a pod's cost
 * then depends on the node's modes) and pol has neither node_score nor
 * best_of; the scheduler then scans as before.
 */
struct gs_sched_index *gs_sched_index_new(const struct gs_cluster *c, const int32_t *order,
					  const struct gs_policy *pol, void *pol_state);
/* Frees the index and everything it owns; NULL is allowed. */
void gs_sched_index_free(struct gs_sched_index *x);

/* Records that node changed (after the allocator and the policy's on_bind/on_unbind). */
void gs_sched_index_touch(struct gs_sched_index *x, const struct gs_cluster *c, int32_t node);

/*
 * The node gs_sched_pick() would choose for p: returns 0 and *node_out;
 * GS_ENOFIT and, when why is not NULL, the per-reason counts; or
 * GS_SCHED_INDEX_SCAN when c is not the indexed cluster, gained or lost
 * its sharing modes since, or p's shape is new and the index is at its
 * size limit.
 */
int gs_sched_index_pick(struct gs_sched_index *x, const struct gs_cluster *c,
			const struct gs_pod *p, int32_t *node_out, struct gs_nofit *why);

/*
 * For --check: compares the verdicts the index holds for p's shape with
 * gs_cluster_fits() on every node. Returns 0, GS_ECHECK on a difference,
 * or GS_SCHED_INDEX_SCAN when the index would not answer for p.
 */
int gs_sched_index_check(struct gs_sched_index *x, const struct gs_cluster *c,
			 const struct gs_pod *p);

#endif
