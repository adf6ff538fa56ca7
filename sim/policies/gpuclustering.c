/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuclustering.c - keep pods of one GPU shape together, the
 * "GpuClustering" baseline of Weng et al., ATC 2023.
 *
 * Each GPU pod has a tag: "share" (one GPU, gpu_milli < 1000) or "k whole
 * GPUs". A node's score is 25 (8000 - SL)/8000, SL being its free GPU
 * milli summed over its GPUs, plus a bonus by the tags of the pods it
 * holds: 75 if they all have the pod's tag, 50 if the pod's tag is among
 * others, 25 if it holds no GPU pod, 0 if it holds only other tags.
 * CPU-only pods score 0 everywhere, so the node order decides.
 *
 * With GS_POLICY_COMPAT the base is the reference's integer division;
 * without it the base is exact.
 *
 * State: per node, the number of bound pods of each tag, kept by
 * on_bind/on_unbind. GPU choice: the fitting GPU with the least free
 * share; whole GPUs by index.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "core/error.h"
#include "policies/gpu_pick.h"
#include "policies/policy.h"

#define CLUSTERING_GPU_MAX_MILLI 8000
/* Tag 0 is "share"; tag k (1..GS_MAX_GPUS) is "k whole GPUs". */
#define CLUSTERING_TAGS (GS_MAX_GPUS + 1)

struct clustering {
	bool compat;
	int32_t n_nodes;
	int32_t *count;    /* [node * CLUSTERING_TAGS + tag], pods bound */
	int32_t *n_tags;   /* [node], tags with a non-zero count */
};

static int tag_of(const struct gs_pod *p)
{
	if (gs_pod_cpu_only(p))
		return -1;
	if (p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU)
		return 0;
	return p->num_gpu <= GS_MAX_GPUS ? p->num_gpu : -1;
}

static void clustering_release(void *state)
{
	struct clustering *s = state;

	free(s->count);
	free(s->n_tags);
}

static int clustering_init(void *state, const struct gs_policy_env *env)
{
	struct clustering *s = state;
	size_t nodes = (size_t)env->cluster->n_nodes + 1;

	s->compat = (env->flags & GS_POLICY_COMPAT) != 0;
	s->n_nodes = env->cluster->n_nodes;
	s->count = calloc(nodes * CLUSTERING_TAGS, sizeof(*s->count));
	s->n_tags = calloc(nodes, sizeof(*s->n_tags));
	if (!s->count || !s->n_tags)
		return GS_ENOMEM;  /* the scheduler calls clustering_release() */
	/* Counts start at zero: start the policy on an empty cluster and bind through it. */
	return 0;
}

static void clustering_track(struct clustering *s, const struct gs_pod *p, int32_t node,
			     int delta)
{
	int tag = tag_of(p);
	int32_t *cnt;

	if (tag < 0 || node < 0 || node >= s->n_nodes)
		return;
	cnt = &s->count[(size_t)node * CLUSTERING_TAGS + (size_t)tag];
	if (*cnt == 0 && delta > 0)
		s->n_tags[node]++;
	*cnt += delta;
	if (*cnt == 0 && delta < 0)
		s->n_tags[node]--;
}

static void clustering_on_bind(void *state, const struct gs_cluster *c, const struct gs_pod *p,
			       const struct gs_placement *pl)
{
	(void)c;
	clustering_track(state, p, pl->node, 1);
}

static void clustering_on_unbind(void *state, const struct gs_cluster *c,
				 const struct gs_pod *p, const struct gs_placement *pl)
{
	(void)c;
	clustering_track(state, p, pl->node, -1);
}

static double clustering_score(void *state, const struct gs_cluster *c, int32_t node,
			       const struct gs_pod *p)
{
	const struct clustering *s = state;
	int32_t free_milli = c->nodes[node].gpu_free_total_milli;
	int tag = tag_of(p);
	int32_t same, tags, bonus;
	double base;

	if (tag < 0)
		return 0;
	same = s->count[(size_t)node * CLUSTERING_TAGS + (size_t)tag];
	tags = s->n_tags[node];
	if (same > 0)
		bonus = tags == 1 ? 75 : 50;
	else
		bonus = tags == 0 ? 25 : 0;
	if (s->compat)
		base = (double)(25 * (CLUSTERING_GPU_MAX_MILLI - free_milli) /
				CLUSTERING_GPU_MAX_MILLI);
	else
		base = 25.0 * (CLUSTERING_GPU_MAX_MILLI - free_milli) / CLUSTERING_GPU_MAX_MILLI;
	return base + bonus;
}

/* Which tags the node holds, one bit per tag: all that the score reads from the counts. */
static uint64_t clustering_node_key(void *state, const struct gs_cluster *c, int32_t node)
{
	const struct clustering *s = state;
	const int32_t *cnt;
	uint64_t key = 0;
	int tag;

	(void)c;
	if (node < 0 || node >= s->n_nodes)
		return 0;
	cnt = &s->count[(size_t)node * CLUSTERING_TAGS];
	for (tag = 0; tag < CLUSTERING_TAGS; tag++)
		if (cnt[tag] > 0)
			key |= 1ull << tag;
	return key;
}

const struct gs_policy gs_policy_gpuclustering = {
	.name = "gpuclustering",
	.summary = "nodes holding pods of the same GPU shape first, then fuller ones (FGD baseline)",
	.state_size = sizeof(struct clustering),
	.init = clustering_init,
	.release = clustering_release,
	.score = clustering_score,
	.pick_gpus = gs_gpu_pick_tightest,
	.on_bind = clustering_on_bind,
	.on_unbind = clustering_on_unbind,
	.node_score = true,
	.node_key = clustering_node_key,
};
