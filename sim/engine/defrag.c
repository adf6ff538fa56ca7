/* SPDX-License-Identifier: Apache-2.0 */
/*
 * defrag.c - the descheduler of time mode (see defrag.h): the budget, the
 * choice of the pods to move, and the moves themselves through the
 * scheduler, with their departures rescheduled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "engine/defrag.h"
#include "engine/replay.h"

void gs_defrag_opts_init(struct gs_defrag_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cost = GS_DEFRAG_LOST;
}

void gs_defrag_release(struct gs_defrag *d)
{
	GS_MEM_FREE(d->gen, d->run_s, d->end_s, d->node_first, d->node_pods);
	memset(d, 0, sizeof(*d));
}

int gs_defrag_init(struct gs_defrag *d, const struct gs_defrag_opts *o, size_t n_pods)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->gen = calloc(n_pods + 1, sizeof(*d->gen));
	d->run_s = malloc((n_pods + 1) * sizeof(*d->run_s));
	d->end_s = malloc((n_pods + 1) * sizeof(*d->end_s));
	d->node_pods = malloc((n_pods + 1) * sizeof(*d->node_pods));
	if (!d->gen || !d->run_s || !d->end_s || !d->node_pods) {
		gs_defrag_release(d);
		return GS_ENOMEM;
	}
	for (i = 0; i < n_pods; i++)
		d->run_s[i] = d->end_s[i] = -1;
	d->tokens = o->per_hour;
	d->t_tokens = -1;
	return 0;
}

/* Moves the budget allows now (refilling the hourly bucket up to t_s). */
static int64_t budget(struct gs_sim *sim, int64_t t_s)
{
	const struct gs_defrag_opts *o = &sim->opts.defrag;
	struct gs_defrag *d = &sim->defrag;
	int64_t cap = GS_DEFRAG_MAX_MOVES;

	if (o->budget_pct > 0) {
		int64_t allowed = (int64_t)floor(o->budget_pct / 100.0 * (double)sim->stats.arrived);

		cap = allowed - d->st.moves < cap ? allowed - d->st.moves : cap;
	}
	if (o->per_hour > 0) {
		if (d->t_tokens >= 0 && t_s > d->t_tokens)
			d->tokens = fmin(o->per_hour,
					 d->tokens + (double)(t_s - d->t_tokens) * o->per_hour / 3600.0);
		d->t_tokens = t_s;
		if ((int64_t)floor(d->tokens) < cap)
			cap = (int64_t)floor(d->tokens);
	}
	return cap > 0 ? cap : 0;
}

/* The running pods of each node, rebuilt when the cluster changed since. */
static int index_nodes(struct gs_sim *sim)
{
	struct gs_defrag *d = &sim->defrag;
	const struct gs_cluster *c = &sim->cluster;
	int32_t n, *fill;
	size_t i;

	if (d->index_valid && d->index_version == c->version)
		return 0;
	if (!d->node_first) {
		d->node_first = calloc((size_t)c->n_nodes + 2, sizeof(*d->node_first));
		if (!d->node_first)
			return GS_ENOMEM;
	}
	memset(d->node_first, 0, ((size_t)c->n_nodes + 2) * sizeof(*d->node_first));
	for (i = 0; i < sim->n_pods; i++)
		if (sim->out[i].state == GS_POD_RUNNING)
			d->node_first[sim->out[i].pl.node + 2]++;
	for (n = 0; n < c->n_nodes; n++)
		d->node_first[n + 2] += d->node_first[n + 1];
	/* node_first[n + 1] is now the start of node n; fill advances it. */
	fill = d->node_first + 1;
	for (i = 0; i < sim->n_pods; i++)
		if (sim->out[i].state == GS_POD_RUNNING)
			d->node_pods[fill[sim->out[i].pl.node]++] = (int32_t)i;
	/* fill[n] is now the end of node n: the start of n + 1, as node_first[n + 1] must be. */
	d->index_version = c->version;
	d->index_valid = true;
	return 0;
}

/* Lost work of moving pod v at t_s, in seconds and in GPU-seconds, and its departure after. */
struct move_cost {
	double lost_s, gpu_s;
	int64_t new_end;        /* -1: it never leaves */
};

static bool cost_of(const struct gs_sim *sim, int32_t v, int64_t t_s, struct move_cost *mc)
{
	const struct gs_pod *p = &sim->pods[v];
	const struct gs_pod_outcome *o = &sim->out[v];
	const struct gs_defrag *d = &sim->defrag;
	int64_t dur = gs_pod_duration_s(p);
	int64_t run = d->run_s[v] >= 0 ? d->run_s[v] : o->t_start_s;
	int64_t end = d->end_s[v] >= 0 ? d->end_s[v] : dur >= 0 ? o->t_start_s + dur : -1;
	double gpus = gs_pod_cpu_only(p) ? 0 : (double)gs_pod_gpu_milli(p) / GS_MILLI_PER_GPU;

	/*
	 * A pod of a group (engine/gang.h) stays: moving it would restart one
	 * worker of a job whose other workers run on, which a gang forbids.
	 */
	if (gs_gangs_of(&sim->gangs, v) >= 0)
		return false;
	/* A pod ending now is leaving anyway. */
	if (end >= 0 && end <= t_s)
		return false;
	if (sim->opts.defrag.cost == GS_DEFRAG_RESTART) {
		mc->lost_s = (double)sim->opts.defrag.restart_s;
		mc->new_end = end >= 0 ? end + sim->opts.defrag.restart_s : -1;
	} else {
		mc->lost_s = (double)(t_s - run);
		mc->new_end = dur >= 0 ? t_s + dur : -1;
	}
	mc->gpu_s = gpus * mc->lost_s;
	return true;
}

/* Whether pod p fits on node n as it would be (ideal sharing: the allocator's filter). */
static bool node_fits(const struct gs_node *n, const struct gs_pod *p)
{
	int32_t i, fit = 0;

	if (n->cpu_free_milli < p->cpu_milli || n->mem_free_mib < p->mem_mib)
		return false;
	if (gs_pod_cpu_only(p))
		return true;
	if (!gs_node_model_ok(n, p) || p->num_gpu > n->num_gpu)
		return false;
	for (i = 0; i < n->num_gpu; i++)
		if (gs_gpu_fits(n, i, p))
			fit++;
	return fit >= p->num_gpu;
}

/* Node n with pod v's resources returned. */
static void give_back(struct gs_node *n, const struct gs_pod *v, const struct gs_placement *pl)
{
	int32_t k;

	n->cpu_free_milli += v->cpu_milli;
	n->mem_free_mib += v->mem_mib;
	for (k = 0; k < pl->num_gpu; k++) {
		n->gpu_free_milli[pl->gpu[k]] += v->gpu_milli;
		n->gpu_mem_free_mib[pl->gpu[k]] += v->gpu_mem_mib;
	}
}

/* A node's plan: the pods to move off it, cheapest first in the order chosen. */
struct plan {
	int32_t node;
	int32_t pos;             /* in the scheduler's visit order */
	int32_t n;
	int32_t victim[GS_DEFRAG_MAX_MOVES];
	struct move_cost mc[GS_DEFRAG_MAX_MOVES];
	double gpu_s;
};

/* A candidate victim on a node. */
struct cand {
	int32_t pod;
	struct move_cost mc;
	bool taken;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->mc.gpu_s != y->mc.gpu_s)
		return x->mc.gpu_s < y->mc.gpu_s ? -1 : 1;
	if (x->mc.lost_s != y->mc.lost_s)
		return x->mc.lost_s < y->mc.lost_s ? -1 : 1;
	return (x->pod > y->pod) - (x->pod < y->pod);
}

static bool on_gpu(const struct gs_placement *pl, int32_t g)
{
	int32_t k;

	for (k = 0; k < pl->num_gpu; k++)
		if (pl->gpu[k] == g)
			return true;
	return false;
}

/* Takes candidate k into the plan and returns its resources to the node copy. */
static bool take(struct plan *pl, struct cand *cd, int32_t k, struct gs_node *n,
		 const struct gs_sim *sim, int32_t max)
{
	if (cd[k].taken)
		return true;
	if (pl->n >= max)
		return false;
	cd[k].taken = true;
	pl->victim[pl->n] = cd[k].pod;
	pl->mc[pl->n++] = cd[k].mc;
	pl->gpu_s += cd[k].mc.gpu_s;
	give_back(n, &sim->pods[cd[k].pod], &sim->out[cd[k].pod].pl);
	return true;
}

/*
 * The cheapest plan on node `node` for pod p with GPUs `target` emptied
 * (mask; sharing pods: only until the share fits), then more pods by cost
 * for CPU and memory. False when none fits within max moves.
 */
static bool plan_with(const struct gs_sim *sim, int32_t node, const struct gs_pod *p,
		      struct cand *cd, int32_t n_cd, uint32_t target, int32_t max, struct plan *out)
{
	struct gs_node n = sim->cluster.nodes[node];
	int32_t k, g;

	memset(out, 0, sizeof(*out));
	out->node = node;
	for (k = 0; k < n_cd; k++)
		cd[k].taken = false;
	for (g = 0; g < n.num_gpu; g++) {
		if (!((target >> g) & 1u))
			continue;
		for (k = 0; k < n_cd; k++) {
			if (p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU &&
			    gs_gpu_fits(&n, g, p))
				break;
			if (on_gpu(&sim->out[cd[k].pod].pl, g) && !take(out, cd, k, &n, sim, max))
				return false;
		}
	}
	for (k = 0; k < n_cd && !node_fits(&n, p); k++)
		if (!take(out, cd, k, &n, sim, max))
			return false;
	return node_fits(&n, p) && out->n > 0;
}

/* The best plan on one node (false: none within max moves). */
static bool plan_node(const struct gs_sim *sim, int32_t node, const struct gs_pod *p,
		      struct cand *cd, int32_t n_cd, int32_t max, struct plan *best)
{
	const struct gs_node *n = &sim->cluster.nodes[node];
	struct plan pl;
	bool found = false;
	int32_t g;

	/* Even empty it could not take p: no plan. */
	if (n->cpu_milli < p->cpu_milli || n->mem_mib < p->mem_mib ||
	    (!gs_pod_cpu_only(p) && (!gs_node_model_ok(n, p) || p->num_gpu > n->num_gpu)))
		return false;
	if (gs_pod_cpu_only(p))
		return plan_with(sim, node, p, cd, n_cd, 0, max, best);
	if (p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU) {
		for (g = 0; g < n->num_gpu; g++) {
			if (!plan_with(sim, node, p, cd, n_cd, 1u << g, max, &pl))
				continue;
			if (!found || pl.n < best->n || (pl.n == best->n && pl.gpu_s < best->gpu_s)) {
				*best = pl;
				found = true;
			}
		}
		return found;
	} else {
		/* The num_gpu GPUs cheapest to empty: the lost work of the pods on each. */
		double cost[GS_MAX_GPUS];
		uint32_t target = 0;
		int32_t k, i;

		for (g = 0; g < n->num_gpu; g++) {
			cost[g] = 0;
			for (k = 0; k < n_cd; k++)
				if (on_gpu(&sim->out[cd[k].pod].pl, g))
					cost[g] += cd[k].mc.gpu_s + 1e-9;
			if (n->gpu_free_milli[g] == GS_MILLI_PER_GPU)
				cost[g] = 0;
		}
		for (i = 0; i < p->num_gpu; i++) {
			int32_t pick = -1;

			for (g = 0; g < n->num_gpu; g++)
				if (!((target >> g) & 1u) && (pick < 0 || cost[g] < cost[pick]))
					pick = g;
			target |= 1u << pick;
		}
		return plan_with(sim, node, p, cd, n_cd, target, max, best);
	}
}

/* Binds pod v on node m through the scheduler, at the GPUs the policy picks; the placement into *pl. */
static int bind_at(struct gs_sim *sim, int32_t v, int32_t m, struct gs_placement *pl)
{
	const struct gs_pod *p = &sim->pods[v];

	memset(pl, 0, sizeof(*pl));
	pl->node = m;
	if (!gs_pod_cpu_only(p))
		sim->sched.policy->pick_gpus(sim->sched.state, &sim->cluster, m, p, pl);
	return gs_sim_bind(sim, v, pl);
}

/* The node, other than `except`, the run's policy would put pod v on; -1: none fits. */
static int32_t best_node_except(struct gs_sim *sim, int32_t v, int32_t except)
{
	const struct gs_policy *pol = sim->sched.policy;
	const struct gs_pod *p = &sim->pods[v];
	double best_score = -INFINITY;
	int32_t i, best = -1;

	for (i = 0; i < sim->sched.n_order; i++) {
		int32_t m = sim->sched.order[i];
		double s;

		if (m == except || gs_cluster_fits(&sim->cluster, m, p) != GS_FIT_OK)
			continue;
		s = pol->score(sim->sched.state, &sim->cluster, m, p);
		if (best < 0 || s > best_score) {
			best = m;
			best_score = s;
		}
	}
	return best;
}

/*
 * Carries out a plan: its pods leave the node, each goes where the policy
 * puts it on another node; if one finds no node, everything is put back
 * and GS_ENOFIT returned. new_pl gets the pods' new placements.
 */
static int execute(struct gs_sim *sim, const struct plan *pl, struct gs_placement *new_pl)
{
	int32_t k, j;
	int rc = 0;

	for (k = 0; k < pl->n && rc == 0; k++)
		rc = gs_sim_unbind(sim, pl->victim[k], &sim->out[pl->victim[k]].pl);
	if (rc)
		return rc;
	for (k = 0; k < pl->n; k++) {
		int32_t m = best_node_except(sim, pl->victim[k], pl->node);

		if (m < 0)
			break;
		rc = bind_at(sim, pl->victim[k], m, &new_pl[k]);
		if (rc)
			return rc;
	}
	if (k == pl->n)
		return 0;
	/* Put back: off their new nodes, onto the old one as they were. */
	for (j = 0; j < k && rc == 0; j++)
		rc = gs_sim_unbind(sim, pl->victim[j], &new_pl[j]);
	for (j = 0; j < pl->n && rc == 0; j++) {
		rc = gs_sched_bind(&sim->sched, &sim->cluster, &sim->pods[pl->victim[j]],
				   &sim->out[pl->victim[j]].pl);
		if (rc == 0 && sim->frag_on)
			gs_frag_update(&sim->frag, &sim->cluster, pl->node);
	}
	return rc ? rc : GS_ENOFIT;
}

/* After a plan went through: outcomes, departures, the budget and the counts. */
static int account(struct gs_sim *sim, const struct plan *pl, const struct gs_placement *new_pl,
		   int64_t t_s)
{
	struct gs_defrag *d = &sim->defrag;
	int32_t k;
	int rc = 0;

	for (k = 0; k < pl->n && rc == 0; k++) {
		int32_t v = pl->victim[k];

		if (d->gen[v] == 0)
			d->st.pods_moved++;
		d->gen[v]++;
		d->run_s[v] = t_s;
		d->end_s[v] = pl->mc[k].new_end;
		sim->out[v].pl = new_pl[k];
		d->st.moves++;
		d->st.lost_gpu_s += pl->mc[k].gpu_s;
		if (pl->mc[k].new_end >= 0)
			rc = gs_heap_push_gen(&sim->events, pl->mc[k].new_end, GS_EV_DEPART, v,
					      d->gen[v]);
	}
	if (sim->opts.defrag.per_hour > 0)
		d->tokens -= pl->n;
	return rc;
}

int gs_defrag_make_room(struct gs_sim *sim, int32_t pod, int64_t t_s,
			struct gs_placement *pl_out)
{
	struct gs_defrag *d = &sim->defrag;
	const struct gs_pod *p = &sim->pods[pod];
	struct plan best[GS_DEFRAG_MAX_NODES];
	struct gs_placement new_pl[GS_DEFRAG_MAX_MOVES];
	struct cand *cd = NULL;
	int32_t i, n_best = 0, max = (int32_t)budget(sim, t_s);
	int rc;

	if (max <= 0)
		return GS_ENOFIT;
	d->st.attempts++;
	rc = index_nodes(sim);
	if (rc)
		return rc;
	/* Room for the pods of any one node: all the running pods. */
	cd = malloc(((size_t)d->node_first[sim->cluster.n_nodes] + 1) * sizeof(*cd));
	if (!cd)
		return GS_ENOMEM;
	/* The best plans of all nodes, kept sorted: fewest moves, least lost work, visit order. */
	for (i = 0; i < sim->sched.n_order; i++) {
		int32_t node = sim->sched.order[i];
		int32_t first = d->node_first[node], last = d->node_first[node + 1], n_cd = 0, k, j;
		struct plan pl;

		if (last == first)
			continue;

		for (k = first; k < last; k++)
			if (cost_of(sim, d->node_pods[k], t_s, &cd[n_cd].mc))
				cd[n_cd++].pod = d->node_pods[k];
		qsort(cd, (size_t)n_cd, sizeof(*cd), cmp_cand);
		if (!plan_node(sim, node, p, cd, n_cd, max, &pl))
			continue;
		pl.pos = i;
		for (j = n_best; j > 0 && (pl.n < best[j - 1].n ||
					   (pl.n == best[j - 1].n && pl.gpu_s < best[j - 1].gpu_s));
		     j--)
			if (j < GS_DEFRAG_MAX_NODES)
				best[j] = best[j - 1];
		if (j < GS_DEFRAG_MAX_NODES) {
			best[j] = pl;
			if (n_best < GS_DEFRAG_MAX_NODES)
				n_best++;
		}
	}
	free(cd);
	for (i = 0; i < n_best; i++) {
		rc = execute(sim, &best[i], new_pl);
		if (rc == GS_ENOFIT)
			continue;
		if (rc)
			return rc;
		/* The node now takes the pod: the GPUs the policy picks there. */
		memset(pl_out, 0, sizeof(*pl_out));
		pl_out->node = best[i].node;
		if (gs_cluster_fits(&sim->cluster, best[i].node, p) != GS_FIT_OK)
			return GS_ECHECK;
		if (!gs_pod_cpu_only(p))
			sim->sched.policy->pick_gpus(sim->sched.state, &sim->cluster, best[i].node, p,
						     pl_out);
		d->st.placed++;
		return account(sim, &best[i], new_pl, t_s);
	}
	return GS_ENOFIT;
}
