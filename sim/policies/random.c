/* SPDX-License-Identifier: Apache-2.0 */
/*
 * random.c - a uniformly random feasible node and, for a sharing pod, a
 * uniformly random fitting GPU; the "Random" baseline of Weng et al., ATC
 * 2023. The generator is seeded with the run's seed and the workload's
 * identity (policy.h): same seed and trace, same choices.
 *
 * Two draws, both uniform over the feasible nodes. On a cluster of up to
 * RANDOM_PER_NODE_MAX nodes each feasible node draws an independent
 * uniform score and the first highest wins, as the FGD reference simulator
 * scores nodes, so results stored by earlier versions (the FGD matrix, the
 * regression baseline) stand. On a larger cluster one draw picks the place
 * among the k feasible nodes directly: drawing one number per feasible node
 * made random cost k times more per pod than any other policy (71% of a run
 * at 100,000 nodes). Both are tested for uniformity (tests/test_policies.c).
 */

#include "policies/gpu_pick.h"
#include "policies/policy.h"

/*
 * Clusters up to this many nodes draw one score per feasible node: at most
 * 4096 draws per pod, a few microseconds, and every openb cluster (1213 and
 * 1523 nodes) and the bundled examples are well below it.
 */
#define RANDOM_PER_NODE_MAX 4096

struct random_state {
	struct gs_rng rng;
	bool per_node;  /* draw a score per feasible node and keep the best */
};

static int random_init(void *state, const struct gs_policy_env *env)
{
	struct random_state *r = state;

	/* A stream of its own, apart from the compat node shuffle's, and per workload. */
	gs_rng_seed(&r->rng, env->seed ^ env->workload_id ^ 0x72616e646f6dull);
	r->per_node = env->cluster->n_nodes <= RANDOM_PER_NODE_MAX;
	return 0;
}

static double random_score(void *state, const struct gs_cluster *c, int32_t node,
			   const struct gs_pod *p)
{
	struct random_state *r = state;

	(void)c;
	(void)node;
	(void)p;
	return gs_rng_uniform(&r->rng);
}

/*
 * The place of the node to take among k feasible ones. Per node: what k
 * calls of random_score() in visit order would choose, the first highest
 * (the draws are 53-bit integers scaled by 2^-53, so comparing the
 * integers orders them as the doubles). Otherwise one uniform draw.
 */
static int32_t random_best_of(void *state, int32_t k)
{
	struct random_state *r = state;
	uint64_t best;
	int32_t i, at = 0;

	if (!r->per_node)
		return (int32_t)gs_rng_below(&r->rng, (uint64_t)k);
	/* The first draw is the best so far; the loop then has one test per draw. */
	best = gs_rng_next(&r->rng) >> 11;
	for (i = 1; i < k; i++) {
		uint64_t v = gs_rng_next(&r->rng) >> 11;

		if (v > best) {
			best = v;
			at = i;
		}
	}
	return at;
}

static void random_pick(void *state, const struct gs_cluster *c, int32_t node,
			const struct gs_pod *p, struct gs_placement *pl)
{
	struct random_state *r = state;
	const struct gs_node *n = &c->nodes[node];
	uint8_t fit[GS_MAX_GPUS];
	int32_t i, k = 0;

	if (p->num_gpu != 1 || p->gpu_milli >= GS_MILLI_PER_GPU) {
		gs_gpu_pick_first(state, c, node, p, pl);
		return;
	}
	for (i = 0; i < n->num_gpu; i++)
		if (gs_gpu_fits(n, i, p))
			fit[k++] = (uint8_t)i;
	pl->num_gpu = k > 0;
	pl->gpu[0] = k > 0 ? fit[gs_rng_below(&r->rng, (uint64_t)k)] : 0;
}

const struct gs_policy gs_policy_random = {
	.name = "random",
	.summary = "uniformly random feasible node and fitting GPU (seeded baseline)",
	.state_size = sizeof(struct random_state),
	.init = random_init,
	.score = random_score,
	.best_of = random_best_of,
	.pick_gpus = random_pick,
};
