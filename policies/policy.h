/*
 * policy.h - the placement policy interface and the scheduler that drives it.
 *
 * A policy is a table of functions (struct gs_policy). The scheduler runs
 * the filter (gs_cluster_fits) on every node, asks the policy to score each
 * feasible node, keeps the best (the first in visit order on ties) and then
 * asks the policy which GPUs of that node to use. Policies see the cluster
 * read-only; only the allocator (cluster.h) changes it. A policy that keeps
 * private state gets init/release and is told of every bind and unbind.
 *
 * Every policy is listed once in policies.def; the registry, the CLI,
 * `gpusim policies` and the test matrix all come from that list.
 *
 * Like the allocator, this layer depends on nothing beyond libc and libm.
 */
#ifndef GS_POLICY_H
#define GS_POLICY_H

#include "../sim/cluster.h"
#include "../sim/rng.h"

/* Flags for struct gs_policy_env.flags. */
enum {
	/*
	 * Reproduce the FGD reference simulator's scoring: integer scores 0-100
	 * and ties broken by a node order shuffled per seed.
	 */
	GS_POLICY_COMPAT = 1u << 0,
};

/* What a policy may look at when it starts. All pointers are borrowed. */
struct gs_policy_env {
	const struct gs_cluster *cluster;
	const struct gs_pod *workload;   /* the original trace, for workload-aware policies */
	size_t n_workload;
	uint64_t seed;
	unsigned flags;
};

struct gs_policy {
	const char *name;      /* as typed on the command line */
	const char *summary;   /* one line for `gpusim policies` */

	/*
	 * Optional. Creates private state in *state_out. Returns 0 or a
	 * negative GS_E* code. The state is freed with release().
	 */
	int (*init)(const struct gs_policy_env *env, void **state_out);
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
};

/* The registry. gs_policies_count() entries, in policies.def order. */
size_t gs_policies_count(void);
const struct gs_policy *gs_policy_at(size_t i);
/* Returns the policy with this name, or NULL. */
const struct gs_policy *gs_policy_find(const char *name);

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
struct gs_sched {
	const struct gs_policy *policy;
	void *state;
	int32_t *order;      /* owned; a permutation of node indices */
	int32_t n_order;
};

/*
 * Starts a policy on a cluster. With GS_POLICY_COMPAT in env->flags the
 * node order is a permutation shuffled with env->seed, otherwise 0..n-1.
 * Returns 0, GS_ENOMEM, or the policy's init error.
 */
int gs_sched_init(struct gs_sched *s, const struct gs_policy *pol,
		  const struct gs_policy_env *env);
void gs_sched_release(struct gs_sched *s);

/*
 * Chooses a placement for p. Returns 0 and fills *out, or GS_ENOFIT and,
 * when why is not NULL, the per-reason counts. Changes nothing in c.
 */
int gs_sched_pick(struct gs_sched *s, const struct gs_cluster *c, const struct gs_pod *p,
		  struct gs_placement *out, struct gs_nofit *why);

/*
 * Binds/unbinds through the allocator and tells the policy. Return the
 * allocator's status.
 */
int gs_sched_bind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		  const struct gs_placement *pl);
int gs_sched_unbind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		    const struct gs_placement *pl);

/*
 * GPU choices shared by several policies. All fill pl for a node on which
 * the pod fits. Whole-GPU and multi-GPU pods always take the first
 * num_gpu GPUs that fit, by index.
 */
/* The fitting GPU with the least free share (tightest fit); ties to the lowest index. */
void gs_pick_gpus_tightest(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			   struct gs_placement *pl);
/* The fitting GPU with the most free share; ties to the lowest index. */
void gs_pick_gpus_loosest(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			  struct gs_placement *pl);
/* The first fitting GPU(s) by index. */
void gs_pick_gpus_first(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			struct gs_placement *pl);

#endif
