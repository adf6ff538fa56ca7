/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.h - the placement policy interface and the registry of policies.
 *
 * A policy is a table of functions (struct gs_policy). The scheduler
 * (sched.h) runs the filter (gs_cluster_fits) on every node, asks the
 * policy to score each feasible node, keeps the best (the first in visit
 * order on ties) and then asks the policy which GPUs of that node to use.
 * Policies see the cluster read-only; only the allocator (core/cluster.h)
 * changes it. A policy that keeps private state names its size; the
 * scheduler allocates it zeroed, an optional init fills it, an optional
 * release frees what init allocated inside it, and the policy may be told
 * of every bind and unbind.
 *
 * Every policy is listed once in policies.def; the registry, the CLI,
 * `gpusim policies` and the test matrix all come from that list.
 *
 * Like the allocator, this layer depends on nothing beyond libc and libm.
 */
#ifndef GS_POLICY_H
#define GS_POLICY_H

#include "core/cluster.h"
#include "core/rng.h"

/* Flags for struct gs_policy_env.flags. */
enum {
	/*
	 * Reproduce the FGD reference simulator's scoring: integer scores 0-100
	 * and ties broken by a node order shuffled per seed and workload.
	 */
	GS_POLICY_COMPAT = 1u << 0,
	/*
	 * Break ties by a node order shuffled per seed and workload, as
	 * GS_POLICY_COMPAT does, but keep exact scores: the verdict of a run
	 * then does not follow the order of the cluster file (the
	 * kube-scheduler breaks ties at random).
	 */
	GS_POLICY_SHUFFLED = 1u << 1,
};

/* What a policy may look at when it starts. All pointers are borrowed. */
struct gs_policy_env {
	const struct gs_cluster *cluster;
	const struct gs_pod *workload;   /* the original trace, for workload-aware policies */
	size_t n_workload;
	/* NULL, or per workload pod its gpu_spec as written (NULL for none): frag.h */
	const char *const *workload_specs;
	uint64_t seed;
	/*
	 * Identifies the workload (the engine uses the first 64 bits of the
	 * trace file's SHA-256; 0 = none). Mixed into the seed of the compat
	 * node order and of the random policy, so that two workloads run with
	 * one seed get independent tie orders.
	 */
	uint64_t workload_id;
	unsigned flags;
};

struct gs_policy {
	const char *name;      /* as typed on the command line */
	const char *summary;   /* one line for `gpusim policies` */

	/*
	 * Bytes of private state. The scheduler allocates them zeroed for each
	 * run, passes them as `state` to every function below and frees them
	 * after release(). 0: no state, and state is NULL.
	 */
	size_t state_size;

	/*
	 * Optional. Fills the zeroed state from env, and may allocate inside
	 * it. Returns 0 or a negative GS_E* code; on error the scheduler still
	 * calls release(), so init leaves the state fit for it.
	 */
	int (*init)(void *state, const struct gs_policy_env *env);
	/* Optional. Frees what init() allocated inside state (not state itself). */
	void (*release)(void *state);

	/*
	 * Required. Scores a node on which the pod fits; higher is better.
	 * Must not change anything the next call could observe except the
	 * policy's own state (random draws, caches).
	 */
	double (*score)(void *state, const struct gs_cluster *c, int32_t node,
			const struct gs_pod *p);

	/*
	 * Required for GPU pods. Chooses pl->num_gpu = p->num_gpu GPUs of the
	 * chosen node into pl->gpu. The node is known to fit.
	 */
	void (*pick_gpus)(void *state, const struct gs_cluster *c, int32_t node,
			  const struct gs_pod *p, struct gs_placement *pl);

	/* Optional. Told after the allocator committed or returned a placement. */
	void (*on_bind)(void *state, const struct gs_cluster *c, const struct gs_pod *p,
			const struct gs_placement *pl);
	void (*on_unbind)(void *state, const struct gs_cluster *c, const struct gs_pod *p,
			  const struct gs_placement *pl);

	/*
	 * Optional, a promise that lets the scheduler index nodes (sched.h):
	 * score() returns a value other than NaN that depends only on the
	 * node's entry c->nodes[node], node_key() (when given) and the pod's
	 * request (everything but its times), never on which node it is or
	 * on earlier calls. Equal nodes then score equally, and the scheduler
	 * may compute a score once per node state and request shape, at any
	 * time after the node last changed, instead of once per pick.
	 */
	bool node_score;
	/*
	 * Optional, with node_score: the part of the policy's own per-node
	 * state that score() reads (gpuclustering: which pod tags the node
	 * holds). Two nodes with equal entries and equal keys score equally.
	 */
	uint64_t (*node_key)(void *state, const struct gs_cluster *c, int32_t node);
	/*
	 * Optional, with node_score: score() for a caller that keeps the value
	 * itself (the index computes it once per node state and request
	 * shape), returning the same double; a policy that memoises its
	 * scores skips its memo here, which would only cost a lookup.
	 */
	double (*score_once)(void *state, const struct gs_cluster *c, int32_t node,
			     const struct gs_pod *p);
	/*
	 * Optional, for a policy whose choice among the feasible nodes reads
	 * neither the nodes nor the pod, only its own state (random's draws):
	 * returns the place (0..k-1), in visit order, of the node to take
	 * among k > 0 feasible ones. The scheduler, its index and its full
	 * scan alike, then takes that node without calling score().
	 */
	int32_t (*best_of)(void *state, int32_t k);
};

/*
 * The private state of a policy whose only setting is compat scoring
 * (bestfit, dotprod, gpupacking): its descriptor says
 * GS_POLICY_COMPAT_STATE, and score() reads the flag from its state.
 */
struct gs_policy_compat {
	bool compat;   /* GS_POLICY_COMPAT is set */
};

/* init() of struct gs_policy_compat: compat from env->flags. Returns 0. */
int gs_policy_compat_init(void *state, const struct gs_policy_env *env);

/* In a struct gs_policy's initialiser: its state is a struct gs_policy_compat. */
#define GS_POLICY_COMPAT_STATE \
	.state_size = sizeof(struct gs_policy_compat), .init = gs_policy_compat_init

/*
 * What the FGD reference divides CPU and GPU milli by in the bestfit and
 * dotprod baselines ("max" normalisation): the largest node shape of the
 * openb cluster, 128 cores and 8 GPUs. Compat scores truncate, so both
 * must use these same constants to agree with the reference.
 */
#define GS_POLICY_COMPAT_CPU_MAX_MILLI 128000.0
#define GS_POLICY_COMPAT_GPU_MAX_MILLI 8000.0

/* The registry. gs_policies_count() entries, in policies.def order. */
size_t gs_policies_count(void);
/* Policy i of the registry, or NULL when i >= gs_policies_count(). */
const struct gs_policy *gs_policy_at(size_t i);
/* Returns the policy with this name, or NULL. */
const struct gs_policy *gs_policy_find(const char *name);

/*
 * The six policies the FGD paper compares (Weng et al., ATC 2023), in the
 * order of its figures: random, dotprod, gpuclustering, gpupacking,
 * bestfit, fgd (`--policy paper`). gs_policies_paper_count() entries.
 */
size_t gs_policies_paper_count(void);
/* Policy i of the paper's six, or NULL when i >= gs_policies_paper_count(). */
const struct gs_policy *gs_policy_paper_at(size_t i);

/*
 * Orders two policy names for lists, tables and figures: registry order,
 * then names of no policy by strcmp. Returns < 0, 0 or > 0, as strcmp.
 */
int gs_policy_cmp(const char *a, const char *b);
/*
 * The order of the FGD figures and the regression report: the paper's six
 * in the paper's order, then every other name by strcmp. As strcmp.
 */
int gs_policy_cmp_paper(const char *a, const char *b);
/* qsort comparator of an array of policy names (const char *), by gs_policy_cmp(). */
int gs_policy_qsort_cmp(const void *a, const void *b);
/* qsort comparator of an array of policy names, by gs_policy_cmp_paper(). */
int gs_policy_qsort_cmp_paper(const void *a, const void *b);

#endif
