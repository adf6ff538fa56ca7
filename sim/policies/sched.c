/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sched.c - the scheduling cycle: filter every node, score the feasible
 * ones with the policy, keep the best, let the policy choose the GPUs.
 *
 * This mirrors kube-scheduler's filter and score phases. Nodes are visited
 * in s->order and a later node must score strictly higher to win, so ties
 * go to the earlier node: the lowest index by default, a shuffled order in
 * compat mode (the FGD reference simulator shuffles its node list per seed,
 * Weng et al., ATC 2023, section 6) and with GS_POLICY_SHUFFLED (exact
 * scores, ties as the kube-scheduler's: not the cluster file's order). The
 * shuffle's seed mixes the run's seed with the workload's identity
 * (env->workload_id): the reference draws its node order after the
 * trace-dependent inflation, so its tie orders differ between workloads,
 * and with the seed alone every workload would share the same ten tie
 * orders and their errors would be correlated.
 *
 * That loop visits every node for every pod, which grows with nodes x pods.
 * The index (sched_index.c) answers the same question from per-shape
 * verdicts and score trees kept up to date on bind and unbind; the loop
 * stays for what the index cannot answer (a new shape past its size limit,
 * a policy without node_score under sharing modes), and to check it under
 * --check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "policies/policy.h"
#include "policies/sched.h"
#include "policies/sched_index.h"

int gs_sched_init(struct gs_sched *s, const struct gs_policy *pol,
		  const struct gs_policy_env *env)
{
	const struct gs_cluster *c = env->cluster;
	int32_t i;
	int err;

	memset(s, 0, sizeof(*s));
	if (!pol || !pol->score || !pol->pick_gpus)
		return GS_EINVAL;
	s->policy = pol;
	s->n_order = c->n_nodes;
	s->order = malloc(((size_t)c->n_nodes + 1) * sizeof(*s->order));
	if (!s->order)
		return GS_ENOMEM;
	for (i = 0; i < c->n_nodes; i++)
		s->order[i] = i;
	if (env->flags & (GS_POLICY_COMPAT | GS_POLICY_SHUFFLED)) {
		struct gs_rng rng;

		gs_rng_seed(&rng, env->seed ^ env->workload_id);
		gs_rng_shuffle_i32(&rng, s->order, s->n_order);
	}
	if (pol->state_size) {
		s->state = calloc(1, pol->state_size);
		if (!s->state) {
			free(s->order);
			memset(s, 0, sizeof(*s));
			return GS_ENOMEM;
		}
	}
	if (pol->init) {
		err = pol->init(s->state, env);
		if (err) {
			gs_sched_release(s);
			return err;
		}
	}
	/* Without memory for the index the scheduler still works, by scanning. */
	s->index = gs_sched_index_new(c, s->order, pol, s->state);
	return 0;
}

void gs_sched_release(struct gs_sched *s)
{
	gs_sched_index_free(s->index);
	if (s->policy && s->policy->release)
		s->policy->release(s->state);
	free(s->state);
	free(s->order);
	memset(s, 0, sizeof(*s));
}

/*
 * The filter's verdict on node for p and, where it fits, what p costs
 * there (*pn: p itself without sharing modes). dem holds p's demand per
 * (config, model) combination under sharing modes.
 */
static enum gs_fit scan_fits(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			     const struct gs_share_demand *dem, struct gs_pod *tmp,
			     const struct gs_pod **pn)
{
	const struct gs_share_demand *d;
	enum gs_fit f;
	int combo;

	*pn = p;
	if (!c->share)
		return gs_cluster_fits(c, node, p);
	combo = gs_cluster_share_combo(c, node);
	d = combo >= 0 ? &dem[combo] : NULL;
	f = d ? gs_cluster_fits_demand(c, node, p, d) : gs_cluster_fits(c, node, p);
	/* The policy sees what the pod costs on this node. */
	*pn = d && d->why == GS_FIT_OK ? &d->eff : gs_cluster_node_pod(c, node, p, tmp);
	return f;
}

/*
 * The reference: filter and score every node in visit order. Returns the
 * node or -1. A policy with best_of() is told how many nodes fit and
 * names the place of its choice among them instead of scoring each.
 */
static int32_t scan(struct gs_sched *s, const struct gs_cluster *c, const struct gs_pod *p,
		    struct gs_nofit *why)
{
	const struct gs_policy *pol = s->policy;
	int32_t i, best = -1, n_fit = 0;
	double best_score = -INFINITY;
	int32_t count[GS_FIT__COUNT] = { 0 };
	struct gs_pod tmp;
	/* Sharing: what p costs per (config, model) combination, computed once per pick. */
	struct gs_share_demand dem[GS_MAX_SHARE_COMBOS];
	int32_t k;

	for (k = 0; c->share && k < c->n_share_combos; k++)
		gs_cluster_share_demand(c, c->share_combo_node[k], p, &dem[k]);

	for (i = 0; i < s->n_order; i++) {
		int32_t node = s->order[i];
		const struct gs_pod *pn;
		enum gs_fit f = scan_fits(c, node, p, dem, &tmp, &pn);
		double score;

		if (f != GS_FIT_OK) {
			count[f]++;
			continue;
		}
		n_fit++;
		if (pol->best_of)
			continue;
		score = pol->score(s->state, c, node, pn);
		if (best < 0 || score > best_score) {
			best = node;
			best_score = score;
		}
	}
	if (pol->best_of && n_fit > 0) {
		int32_t j = pol->best_of(s->state, n_fit);

		for (i = 0; best < 0; i++) {
			const struct gs_pod *pn;

			if (scan_fits(c, s->order[i], p, dem, &tmp, &pn) == GS_FIT_OK && j-- == 0)
				best = s->order[i];
		}
	}
	if (best < 0 && why) {
		why->nodes = c->n_nodes;
		memcpy(why->count, count, sizeof(count));
	}
	return best;
}

static bool nofit_eq(const struct gs_nofit *a, const struct gs_nofit *b)
{
	return a->nodes == b->nodes && memcmp(a->count, b->count, sizeof(a->count)) == 0;
}

int gs_sched_pick(struct gs_sched *s, const struct gs_cluster *c, const struct gs_pod *p,
		  struct gs_placement *out, struct gs_nofit *why)
{
	const struct gs_policy *pol = s->policy;
	struct gs_nofit idx_why;
	struct gs_pod tmp;
	int32_t best = -1;
	int rc = GS_SCHED_INDEX_SCAN;

	if (s->index && c->check && gs_sched_index_check(s->index, c, p) == GS_ECHECK)
		return GS_ECHECK;
	if (s->index) {
		memset(&idx_why, 0, sizeof(idx_why));
		rc = gs_sched_index_pick(s->index, c, p, &best, &idx_why);
	}
	if (rc == GS_SCHED_INDEX_SCAN) {
		best = scan(s, c, p, why);
	} else if (c->check && pol->node_score) {
		/*
		 * Under --check the index must agree with the full scan, counts
		 * included. (A policy without node_score, such as random, draws
		 * from its generator as it scores: scanning twice would change
		 * its choices, so only the verdicts are compared for it, above.)
		 */
		struct gs_nofit scan_why;
		int32_t want;

		memset(&scan_why, 0, sizeof(scan_why));
		want = scan(s, c, p, &scan_why);
		if (want != (rc == 0 ? best : -1) ||
		    (rc == GS_ENOFIT && !nofit_eq(&scan_why, &idx_why)))
			return GS_ECHECK;
	}
	if (rc == GS_ENOFIT && why)
		*why = idx_why;
	if (best < 0)
		return GS_ENOFIT;
	memset(out, 0, sizeof(*out));
	out->node = best;
	if (gs_pod_cpu_only(p))
		return 0;
	if (!c->share)
		pol->pick_gpus(s->state, c, best, p, out);
	else if (gs_cluster_share_picks(c, best))
		gs_cluster_share_pick(c, best, p, out); /* MIG and mixed nodes */
	else
		pol->pick_gpus(s->state, c, best, gs_cluster_node_pod(c, best, p, &tmp), out);
	return 0;
}

/*
 * After the allocator committed or returned pl (err 0): tell the policy
 * through its hook (on_bind or on_unbind, may be NULL), then the index.
 */
static int changed(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		   const struct gs_placement *pl, int err,
		   void (*hook)(void *state, const struct gs_cluster *c, const struct gs_pod *p,
				const struct gs_placement *pl))
{
	if (err)
		return err;
	if (hook)
		hook(s->state, c, p, pl);
	gs_sched_index_touch(s->index, c, pl->node);
	return 0;
}

int gs_sched_bind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		  const struct gs_placement *pl)
{
	return changed(s, c, p, pl, gs_cluster_bind(c, p, pl), s->policy->on_bind);
}

int gs_sched_unbind(struct gs_sched *s, struct gs_cluster *c, const struct gs_pod *p,
		    const struct gs_placement *pl)
{
	return changed(s, c, p, pl, gs_cluster_unbind(c, p, pl), s->policy->on_unbind);
}

char *gs_nofit_format(const struct gs_nofit *nf, char *buf, size_t len)
{
	size_t used;
	int f, first = 1;

	if (!len)
		return buf;
	used = (size_t)snprintf(buf, len, "0/%d nodes are available:", nf->nodes);
	for (f = GS_FIT_OK + 1; f < GS_FIT__COUNT && used < len; f++) {
		if (!nf->count[f])
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s %d %s", first ? "" : ",",
					 nf->count[f], gs_fit_str((enum gs_fit)f));
		first = 0;
	}
	if (first && used < len)
		snprintf(buf + used, len - used, " no nodes in the cluster");
	return buf;
}
