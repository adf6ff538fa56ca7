/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sched.h - the scheduler: one placement policy bound to one cluster.
 *
 * It runs kube-scheduler's two phases for each pod: the filter
 * (gs_cluster_fits on every node, counting why nodes are rejected) and the
 * score (the policy's score on each feasible node, the best kept, ties to
 * the earlier node in the visit order). Binding goes through the allocator
 * and then tells the policy. An index over node states (sched_index.h)
 * gives the same answers without visiting every node. Plain C, libc and
 * libm only.
 */
#ifndef GS_SCHED_H
#define GS_SCHED_H

#include "core/cluster.h"
#include "policies/policy.h"

/* Per-reason counts of nodes rejected by the filter, for failure messages. */
struct gs_nofit {
	int32_t nodes;
	int32_t count[GS_FIT__COUNT];
};

/*
 * Writes a kube-scheduler style reason, for example
 * "0/1213 nodes are available: 1100 Insufficient GPU share, 113 GPU model
 * not allowed", into buf. Returns buf.
 */
char *gs_nofit_format(const struct gs_nofit *nf, char *buf, size_t len);

/*
 * A policy instance bound to one cluster: the policy, its state and the
 * order in which nodes are visited (ties go to the earlier node).
 */
struct gs_sched_index;

struct gs_sched {
	const struct gs_policy *policy;
	void *state;
	int32_t *order;      /* owned; a permutation of node indices */
	int32_t n_order;
	struct gs_sched_index *index;  /* owned; NULL: filter and score every node */
};

/*
 * Starts a policy on a cluster. With GS_POLICY_COMPAT or GS_POLICY_SHUFFLED
 * in env->flags the node order is a permutation shuffled with env->seed,
 * otherwise 0..n-1.
 * Returns 0, GS_ENOMEM, or the policy's init error.
 */
int gs_sched_init(struct gs_sched *s, const struct gs_policy *pol,
		  const struct gs_policy_env *env);
/* Releases the policy's state and the node order, and zeroes s. */
void gs_sched_release(struct gs_sched *s);

/*
 * Chooses a placement for p. Returns 0 and fills *out, or GS_ENOFIT and,
 * when why is not NULL, the per-reason counts. Changes nothing in c.
 * The choice is always that of filtering and scoring every node in visit
 * order; an index (sched_index.h) finds it without visiting every node.
 * With c->check set, every indexed choice is compared with that full scan
 * and a difference returns GS_ECHECK.
 */
int gs_sched_pick(struct gs_sched *s, const struct gs_cluster *c, const struct gs_pod *p,
		  struct gs_placement *out, struct gs_nofit *why);

/*
 * Binds/unbinds through the allocator and tells the policy and the index.
 * Return the allocator's status. A cluster changed other than through
 * these is noticed (by its version) and re-indexed at the next pick.
 */
int gs_sched_bind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		  const struct gs_placement *pl);
/* Returns p's placement pl to the allocator and tells the policy; the allocator's status. */
int gs_sched_unbind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		    const struct gs_placement *pl);

#endif
