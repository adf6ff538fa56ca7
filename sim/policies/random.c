/* SPDX-License-Identifier: Apache-2.0 */
/*
 * random.c - a uniformly random feasible node and, for a sharing pod, a
 * uniformly random fitting GPU; the "Random" baseline of Weng et al., ATC
 * 2023. Each feasible node draws an independent uniform score, so the
 * maximum is uniform over the feasible set. The generator is seeded with
 * the run's seed and the workload's identity (policy.h): same seed and
 * trace, same choices.
 */

#include "policies/gpu_pick.h"
#include "policies/policy.h"

static int random_init(void *state, const struct gs_policy_env *env)
{
	/* A stream of its own, apart from the compat node shuffle's, and per workload. */
	gs_rng_seed(state, env->seed ^ env->workload_id ^ 0x72616e646f6dull);
	return 0;
}

static double random_score(void *state, const struct gs_cluster *c, int32_t node,
			   const struct gs_pod *p)
{
	(void)c;
	(void)node;
	(void)p;
	return gs_rng_uniform(state);
}

/*
 * k calls of random_score() in one loop. The draws are 53-bit integers
 * scaled by 2^-53, so comparing the integers orders them as the doubles.
 */
static int32_t random_best_of(void *state, int32_t k)
{
	uint64_t best = 0;
	int32_t i, at = 0;

	for (i = 0; i < k; i++) {
		uint64_t v = gs_rng_next(state) >> 11;

		if (i == 0 || v > best) {
			best = v;
			at = i;
		}
	}
	return at;
}

static void random_pick(void *state, const struct gs_cluster *c, int32_t node,
			const struct gs_pod *p, struct gs_placement *pl)
{
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
	pl->gpu[0] = k > 0 ? fit[gs_rng_below(state, (uint64_t)k)] : 0;
}

const struct gs_policy gs_policy_random = {
	.name = "random",
	.summary = "uniformly random feasible node and fitting GPU (seeded baseline)",
	.state_size = sizeof(struct gs_rng),
	.init = random_init,
	.score = random_score,
	.best_of = random_best_of,
	.pick_gpus = random_pick,
};
