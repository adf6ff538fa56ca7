/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster_share.c - the allocator's side of GPU sharing (cluster.h,
 * "sharing"): per-GPU modes, what a request costs on each, MIG instances.
 *
 * What a GPU pod costs on one GPU, by mode (docs/sharing.md):
 *   ideal, vgpu  its gpu_milli and gpu_mem_mib, as requested
 *   exclusive    the whole GPU: 1000 milli (its memory is then free to no one)
 *   timeslice    one replica: floor(1000 / replicas) milli and no memory
 *                (time-slicing does not isolate memory; the replay fails a
 *                pod whose memory does not fit when it starts)
 *   mps          one replica, if its memory is within the pinned limit
 *   mig          the instance it gets: the instance profile's share
 *                (floor(compute x 1000 / 7)) and memory
 *
 * MIG placeability is kept per GPU as the largest profile that can still
 * be placed (mig_cap). Because a table's profiles form a chain (mig.h), a
 * profile fits exactly when it is not larger than mig_cap, so the filter
 * costs the same as for share-based GPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster_internal.h"
#include "core/error.h"

static struct gs_share_cfg ideal_cfg = { .mode = GS_SHARE_IDEAL };

static int64_t card_mib(const struct gs_cluster *c, const struct gs_node *n)
{
	return n->model >= 0 ? c->models.m[n->model].mem_mib : 0;
}

static const struct gs_mig_table *node_table(const struct gs_node_share *ns)
{
	return ns->mig_table >= 0 ? gs_mig_table_at(ns->mig_table) : NULL;
}

/* Memory an instance of profile prof reserves on a card of card MiB. */
static int64_t inst_mib(const struct gs_mig_table *t, int prof, int64_t card)
{
	return (int64_t)t->p[prof].mem_slices * card / GS_MIG_MEM_SLICES;
}

/*
 * What one GPU of mode cfg charges pod p: *milli and *mem. Returns
 * GS_FIT_OK, or why no GPU of this mode can ever take it. MIG GPUs are not
 * share-based: for them *milli and *mem describe the covering profile,
 * *prof its index.
 */
static enum gs_fit demand(const struct gs_cluster *c, const struct gs_node *n,
			  const struct gs_node_share *ns, const struct gs_share_cfg *cfg,
			  const struct gs_pod *p, int32_t *milli, int64_t *mem, int *prof)
{
	const struct gs_mig_table *t;

	*prof = -1;
	/*
	 * A pod asking more memory than the card has fits on no GPU of it in
	 * any mode: every mode must agree with the plain filter (and with the
	 * replay's "fit on no node" audit), or a mode that does not track
	 * memory would run pods no card can hold.
	 */
	if (cfg->mode != GS_SHARE_MIG && p->gpu_mem_mib > card_mib(c, n))
		return GS_FIT_GPU_MEM;
	switch (cfg->mode) {
	case GS_SHARE_EXCLUSIVE:
		/*
		 * The whole share is enough to keep others off the GPU; leaving
		 * memory out keeps the filter on its fast path for whole GPUs.
		 */
		*milli = GS_MILLI_PER_GPU;
		*mem = 0;
		return GS_FIT_OK;
	case GS_SHARE_TIMESLICE:
		*milli = gs_share_slot_milli(cfg->replicas);
		*mem = 0;
		return GS_FIT_OK;
	case GS_SHARE_MPS:
		*milli = gs_share_slot_milli(cfg->replicas);
		*mem = 0;
		if (p->gpu_mem_mib > gs_share_mps_pinned_mib(cfg, card_mib(c, n)))
			return GS_FIT_MPS_MEM;
		return GS_FIT_OK;
	case GS_SHARE_MIG:
		t = node_table(ns);
		*prof = t ? gs_mig_profile_cover(t, p->gpu_milli, p->gpu_mem_mib) : -1;
		if (*prof < 0)
			return GS_FIT_MIG_PROFILE;
		*milli = gs_mig_profile_milli(&t->p[*prof]);
		*mem = inst_mib(t, *prof, card_mib(c, n));
		return GS_FIT_OK;
	default: /* ideal, vgpu, unset */
		*milli = p->gpu_milli;
		*mem = p->gpu_mem_mib;
		return GS_FIT_OK;
	}
}

static const struct gs_share_cfg *gpu_cfg(const struct gs_cluster *c,
					  const struct gs_gpu_share *gs)
{
	return &c->share_cfg[gs->cfg];
}

/* Largest profile that can still be placed on g, or -1. */
static int8_t mig_cap(const struct gs_mig_table *t, const struct gs_mig_gpu *g)
{
	int i, best = -1;

	if (g->fixed) {
		for (i = 0; i < g->n; i++)
			if (!g->inst[i].busy && g->inst[i].profile > best)
				best = g->inst[i].profile;
		return (int8_t)best;
	}
	for (i = t->n - 1; i >= 0; i--)
		if (gs_mig_find_start(t, g, i) >= 0)
			return (int8_t)i;
	return -1;
}

/*
 * mig_cap() of g after one instance was created on it (dir +1) or
 * destroyed (-1), given what it was before. Creating takes slices,
 * compute and an instance slot, so no profile larger than before fits;
 * destroying gives them back, so the one that fitted still does: the
 * search starts or stops there.
 */
static int8_t mig_cap_after(const struct gs_mig_table *t, const struct gs_mig_gpu *g, int was,
			    int dir)
{
	int i;

	if (g->fixed)
		return mig_cap(t, g);
	if (dir > 0) {
		for (i = was < t->n ? was : t->n - 1; i >= 0; i--)
			if (gs_mig_find_start(t, g, i) >= 0)
				return (int8_t)i;
		return -1;
	}
	for (i = t->n - 1; i > was; i--)
		if (gs_mig_find_start(t, g, i) >= 0)
			return (int8_t)i;
	return (int8_t)was;
}

static void refresh_mig_cap(struct gs_node_share *ns, int num_gpu)
{
	int i;

	ns->mig_cap_max = -1;
	for (i = 0; i < num_gpu; i++)
		if (ns->gpu[i].mode == GS_SHARE_MIG && ns->gpu[i].mig_cap > ns->mig_cap_max)
			ns->mig_cap_max = ns->gpu[i].mig_cap;
}

/* --- the filter -------------------------------------------------------------- */

void gs_cluster_share_demand(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			     struct gs_share_demand *d)
{
	const struct gs_node_share *ns = &c->share[node];
	int32_t milli;
	int64_t mem;

	d->eff = *p;
	d->why = demand(c, &c->nodes[node], ns, &c->share_cfg[ns->cfg], p, &milli, &mem, &d->prof);
	if (d->why == GS_FIT_OK) {
		d->eff.gpu_milli = milli;
		d->eff.gpu_mem_mib = mem;
	}
}

/* The GPU part of the filter on a node whose GPUs share one config, given its demand. */
static enum gs_fit fits_uniform(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
				const struct gs_share_demand *d)
{
	const struct gs_node *n = &c->nodes[node];
	const struct gs_node_share *ns = &c->share[node];
	int32_t i, ok = 0;

	if (d->why != GS_FIT_OK)
		return d->why;
	if (ns->mode != GS_SHARE_MIG)
		return gs__fits_gpus(n, &d->eff);
	if (d->prof > ns->mig_cap_max)
		return GS_FIT_MIG_SLOT;
	/* mig_cap_max is one of the GPUs' mig_cap: that GPU takes a 1-GPU pod. */
	if (p->num_gpu <= 1)
		return GS_FIT_OK;
	for (i = 0; i < n->num_gpu && ok < p->num_gpu; i++)
		ok += ns->gpu[i].mig_cap >= d->prof;
	return ok >= p->num_gpu ? GS_FIT_OK : GS_FIT_MIG_SLOT;
}

enum gs_fit gs_cluster_fits_demand(const struct gs_cluster *c, int32_t node,
				   const struct gs_pod *p, const struct gs_share_demand *d)
{
	enum gs_fit f = gs__fits_host(c, node, p);

	if (f != GS_FIT_OK || gs_pod_cpu_only(p))
		return f;
	return fits_uniform(c, node, p, d);
}

enum gs_fit gs__share_fits(const struct gs_cluster *c, int32_t node, const struct gs_pod *p)
{
	const struct gs_node *n = &c->nodes[node];
	const struct gs_node_share *ns = &c->share[node];
	enum gs_fit f, worst = GS_FIT_GPU_SHARE;
	int32_t milli, i, ok = 0;
	int64_t mem;
	int prof;

	if (ns->mode != GS_SHARE_MIXED) {
		struct gs_share_demand d;

		gs_cluster_share_demand(c, node, p, &d);
		return fits_uniform(c, node, p, &d);
	}

	/* GPUs of different modes: each one on its own terms. */
	for (i = 0; i < n->num_gpu && ok < p->num_gpu; i++) {
		const struct gs_gpu_share *gs = &ns->gpu[i];

		f = demand(c, n, ns, gpu_cfg(c, gs), p, &milli, &mem, &prof);
		if (f == GS_FIT_OK) {
			if (gs->mode == GS_SHARE_MIG)
				f = gs->mig_cap >= prof ? GS_FIT_OK : GS_FIT_MIG_SLOT;
			else if (n->gpu_free_milli[i] < milli)
				f = GS_FIT_GPU_SHARE;
			else if (n->gpu_mem_free_mib[i] < mem)
				f = GS_FIT_GPU_MEM;
		}
		if (f == GS_FIT_OK)
			ok++;
		else if (f > worst)
			worst = f;
	}
	return ok >= p->num_gpu ? GS_FIT_OK : worst;
}

/*
 * The filter above reads of the sharing state the node's and each GPU's
 * config, the MIG table and mig_cap; demand() reads the config and the
 * table. Nothing reads the instances themselves or the pods per GPU. On
 * a node whose GPUs share one config other than MIG, each GPU's config
 * is the node's and no mig_cap is read: the GPUs' fields are left zero
 * there, and their entries (a cache line for two GPUs, not in the caches
 * on most binds of a large cluster) are not read.
 */
void gs_cluster_share_key(const struct gs_cluster *c, int32_t node, struct gs_node_share_key *k)
{
	const struct gs_node_share *ns = &c->share[node];
	int32_t i, g = c->nodes[node].num_gpu;

	memset(k, 0, sizeof(*k));
	k->mode = ns->mode;
	k->cfg = ns->cfg;
	k->combo = ns->combo;
	k->mig_table = ns->mig_table;
	k->mig_cap_max = ns->mig_cap_max;
	if (ns->mode != GS_SHARE_MIG && ns->mode != GS_SHARE_MIXED)
		return;
	for (i = 0; i < g; i++) {
		k->gpu_cfg[i] = ns->gpu[i].cfg;
		k->gpu_mig_cap[i] = ns->gpu[i].mig_cap;
	}
}

/* --- placing ----------------------------------------------------------------- */

const struct gs_pod *gs_cluster_node_pod(const struct gs_cluster *c, int32_t node,
					 const struct gs_pod *p, struct gs_pod *tmp)
{
	const struct gs_node_share *ns;
	int32_t milli;
	int64_t mem;
	int prof;

	if (!c->share || gs_pod_cpu_only(p))
		return p;
	ns = &c->share[node];
	if (ns->mode == GS_SHARE_MIXED || ns->mode == GS_SHARE_IDEAL ||
	    ns->mode == GS_SHARE_VGPU || ns->mode == GS_SHARE_DEFAULT)
		return p;
	if (demand(c, &c->nodes[node], ns, &c->share_cfg[ns->cfg], p, &milli, &mem, &prof) !=
	    GS_FIT_OK)
		return p;
	*tmp = *p;
	tmp->gpu_milli = milli;
	tmp->gpu_mem_mib = mem;
	return tmp;
}

bool gs_cluster_share_picks(const struct gs_cluster *c, int32_t node)
{
	return c->share && (c->share[node].mode == GS_SHARE_MIG ||
			    c->share[node].mode == GS_SHARE_MIXED);
}

/* What a GPU of config cfg charges the pod being picked for (demand()), kept across its GPUs. */
struct pick_demand {
	int cfg;                  /* the config it is for; -1: none yet */
	enum gs_fit why;
	int32_t milli;
	int64_t mem;
	int prof;
	const struct gs_mig_table *t; /* the node's MIG table, NULL if none */
};

/*
 * Whether GPU i can take p, and how much room it has left (for the
 * tightest choice): *room is mig_cap on MIG GPUs, the free share otherwise.
 * d holds the demand of the config of the GPU asked before.
 */
static bool gpu_takes(const struct gs_cluster *c, const struct gs_node *n,
		      const struct gs_node_share *ns, int i, const struct gs_pod *p, int32_t *room,
		      struct pick_demand *d)
{
	const struct gs_gpu_share *gs = &ns->gpu[i];
	int32_t milli;
	int64_t mem;
	int prof;

	if (d->cfg != gs->cfg) {
		d->cfg = gs->cfg;
		d->why = demand(c, n, ns, gpu_cfg(c, gs), p, &d->milli, &d->mem, &d->prof);
	}
	milli = d->milli;
	mem = d->mem;
	prof = d->prof;
	if (d->why != GS_FIT_OK)
		return false;
	if (gs->mode == GS_SHARE_MIG) {
		/* Room in milli-GPU, as for the other modes: the largest placeable instance. */
		*room = gs->mig_cap >= 0 && d->t ? gs_mig_profile_milli(&d->t->p[gs->mig_cap]) : 0;
		return gs->mig_cap >= prof;
	}
	*room = n->gpu_free_milli[i];
	return n->gpu_free_milli[i] >= milli && n->gpu_mem_free_mib[i] >= mem;
}

int gs_cluster_share_assign(const struct gs_cluster *c, const struct gs_pod *p,
			    struct gs_placement *pl)
{
	const struct gs_node *n = &c->nodes[pl->node];
	const struct gs_node_share *ns;
	const struct gs_mig_table *t;
	int k, prof, q, start;

	memset(pl->mig, 0, sizeof(pl->mig));
	if (!c->share)
		return 0;
	ns = &c->share[pl->node];
	t = node_table(ns);
	for (k = 0; k < pl->num_gpu; k++) {
		const struct gs_gpu_share *gs = &ns->gpu[pl->gpu[k]];

		if (gs->mode != GS_SHARE_MIG)
			continue;
		prof = t ? gs_mig_profile_cover(t, p->gpu_milli, p->gpu_mem_mib) : -1;
		if (prof < 0 || gs_mig_choose(t, &gs->mig, prof, &q, &start))
			return GS_ENOFIT;
		pl->mig[k] = (uint8_t)(start + 1);
	}
	(void)n;
	return 0;
}

/* GPU i with room `room` replaces *best if it has less (asked in index order: ties to the lower). */
static inline void keep_tightest(int32_t i, int32_t room, int32_t *best, int32_t *best_room)
{
	if (*best < 0 || room < *best_room) {
		*best = i;
		*best_room = room;
	}
}

/*
 * gs_cluster_share_pick() on a node whose GPUs are all MIG GPUs of one
 * config: the pod's profile once for the node, then each GPU's mig_cap
 * against it, and the instances from that profile. The choice is
 * gpu_takes()'s and gs_cluster_share_assign()'s: a GPU takes the pod when
 * its mig_cap is at least the profile, a 1-GPU pod goes to the one whose
 * largest placeable instance has the fewest milli-GPUs (ties to the lowest
 * index). Every pick on a MIG node comes here, and the general path asked
 * each GPU through a call (a third of the pick's instructions).
 */
static void pick_mig(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
		     struct gs_placement *pl)
{
	const struct gs_node *n = &c->nodes[node];
	const struct gs_node_share *ns = &c->share[node];
	const struct gs_mig_table *t = node_table(ns);
	int32_t milli, i, best = -1, best_room = 0;
	int64_t mem;
	int k, prof, q, start;

	memset(pl->mig, 0, sizeof(pl->mig));
	if (demand(c, n, ns, &c->share_cfg[ns->cfg], p, &milli, &mem, &prof) != GS_FIT_OK ||
	    prof > ns->mig_cap_max)
		return;
	if (p->num_gpu == 1) {
		for (i = 0; i < n->num_gpu; i++) {
			int cap = ns->gpu[i].mig_cap;

			if (cap < prof)
				continue;
			keep_tightest(i, gs_mig_profile_milli(&t->p[cap]), &best, &best_room);
		}
		if (best >= 0)
			pl->gpu[pl->num_gpu++] = (uint8_t)best;
	} else {
		for (i = 0; i < n->num_gpu && pl->num_gpu < p->num_gpu; i++)
			if (ns->gpu[i].mig_cap >= prof)
				pl->gpu[pl->num_gpu++] = (uint8_t)i;
	}
	for (k = 0; k < pl->num_gpu; k++) {
		if (gs_mig_choose(t, &ns->gpu[pl->gpu[k]].mig, prof, &q, &start))
			return;
		pl->mig[k] = (uint8_t)(start + 1);
	}
}

void gs_cluster_share_pick(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			   struct gs_placement *pl)
{
	const struct gs_node *n = &c->nodes[node];
	const struct gs_node_share *ns = &c->share[node];
	struct pick_demand d = { .cfg = -1, .t = node_table(ns) };
	int32_t i, room, best = -1, best_room = 0;

	pl->node = node;
	pl->num_gpu = 0;
	if (ns->mode == GS_SHARE_MIG) {
		pick_mig(c, node, p, pl);
		return;
	}
	if (p->num_gpu == 1) {
		for (i = 0; i < n->num_gpu; i++) {
			if (gpu_takes(c, n, ns, i, p, &room, &d))
				keep_tightest(i, room, &best, &best_room);
		}
		if (best >= 0)
			pl->gpu[pl->num_gpu++] = (uint8_t)best;
	} else {
		for (i = 0; i < n->num_gpu && pl->num_gpu < p->num_gpu; i++)
			if (gpu_takes(c, n, ns, i, p, &room, &d))
				pl->gpu[pl->num_gpu++] = (uint8_t)i;
	}
	gs_cluster_share_assign(c, p, pl);
}

/* --- bind and unbind ----------------------------------------------------------- */

/*
 * For a MIG GPU: the profile the pod's instance has when it is created
 * (dir +1) or the instance it leaves (dir -1) at memory slice start.
 * Returns the instance's profile, or a negative GS_E* code.
 */
static int mig_plan(const struct gs_mig_table *t, const struct gs_mig_gpu *g,
		    const struct gs_pod *p, int start, int dir)
{
	int i, q, prof;

	if (start < 0)
		return GS_EINVAL;
	i = gs_mig_instance_at(g, start);
	if (dir < 0) {
		if (i < 0 || !g->inst[i].busy)
			return GS_EINVAL;
		return g->inst[i].profile;
	}
	prof = gs_mig_profile_cover(t, p->gpu_milli, p->gpu_mem_mib);
	if (prof < 0)
		return GS_ENOFIT;
	if (g->fixed) {
		if (i < 0 || g->inst[i].busy || g->inst[i].profile < prof)
			return GS_ENOFIT;
		return g->inst[i].profile;
	}
	/* The smallest profile at least prof that fits at this start. */
	for (q = prof; q < t->n; q++)
		if (gs_mig_fits_at(t, g, q, start))
			return q;
	return GS_ENOFIT;
}

int gs__share_gpu_check(const struct gs_cluster *c, const struct gs_pod *p,
			const struct gs_placement *pl, int dir, struct gs__share_plan *plan)
{
	const struct gs_node *n = &c->nodes[pl->node];
	const struct gs_node_share *ns = &c->share[pl->node];
	int64_t card = card_mib(c, n), mem;
	int32_t milli;
	int k, prof;

	for (k = 0; k < pl->num_gpu; k++) {
		int g = pl->gpu[k];
		const struct gs_gpu_share *gs = &ns->gpu[g];

		prof = -1;
		if (gs->mode == GS_SHARE_MIG) {
			const struct gs_mig_table *t = node_table(ns);

			prof = t ? mig_plan(t, &gs->mig, p, pl->mig[k] - 1, dir) : GS_EINVAL;
			if (prof < 0)
				return prof;
			milli = gs_mig_profile_milli(&t->p[prof]);
			mem = inst_mib(t, prof, card);
		} else {
			if (demand(c, n, ns, gpu_cfg(c, gs), p, &milli, &mem, &prof) != GS_FIT_OK)
				return GS_ENOFIT;
			prof = -1;
		}
		if (dir > 0) {
			if (n->gpu_free_milli[g] < milli || n->gpu_mem_free_mib[g] < mem)
				return GS_ENOFIT;
		} else if (n->gpu_free_milli[g] + milli > GS_MILLI_PER_GPU ||
			   n->gpu_mem_free_mib[g] + mem > card || gs->pods == 0) {
			return GS_EINVAL;
		}
		plan->milli[k] = milli;
		plan->mem_mib[k] = mem;
		plan->prof[k] = (int8_t)prof;
	}
	return 0;
}

void gs__share_gpu_apply(struct gs_cluster *c, const struct gs_placement *pl, int dir,
			 const struct gs__share_plan *plan)
{
	struct gs_node *n = &c->nodes[pl->node];
	struct gs_node_share *ns = &c->share[pl->node];
	const struct gs_mig_table *t = node_table(ns);
	bool refresh = false;
	int k;

	for (k = 0; k < pl->num_gpu; k++) {
		int g = pl->gpu[k];
		struct gs_gpu_share *gs = &ns->gpu[g];

		if (gs->mode == GS_SHARE_MIG) {
			int start = pl->mig[k] - 1;
			int i = gs_mig_instance_at(&gs->mig, start);
			int8_t was = gs->mig_cap;

			if (dir > 0) {
				if (i < 0)
					i = gs_mig_create(t, &gs->mig, plan->prof[k], start);
				gs->mig.inst[i].busy = 1;
			} else {
				gs->mig.inst[i].busy = 0;
				if (!gs->mig.fixed)
					gs_mig_destroy(t, &gs->mig, i);
			}
			gs->mig_cap = mig_cap_after(t, &gs->mig, was, dir);
			/*
			 * The node's largest mig_cap follows from this GPU's unless
			 * the GPU held it and now holds less: then ask every GPU.
			 */
			if (gs->mig_cap >= ns->mig_cap_max)
				ns->mig_cap_max = gs->mig_cap;
			else if (was == ns->mig_cap_max)
				refresh = true;
		}
		n->gpu_free_milli[g] -= dir * plan->milli[k];
		n->gpu_mem_free_mib[g] -= dir * plan->mem_mib[k];
		gs->pods = (uint8_t)(gs->pods + dir);
	}
	if (refresh)
		refresh_mig_cap(ns, n->num_gpu);
}

/* --- configuration ----------------------------------------------------------- */

int gs__share_add_node(struct gs_cluster *c, int32_t node)
{
	if (!c->share)
		return 0;
	if (node >= c->cap_nodes)
		return GS_EINVAL;
	memset(&c->share[node], 0, sizeof(c->share[node]));
	c->share[node].mode = GS_SHARE_DEFAULT;
	c->share[node].mig_table = -1;
	c->share[node].mig_cap_max = -1;
	c->share[node].combo = 0xff;
	return 0;
}

int gs__share_copy(struct gs_cluster *dst, const struct gs_cluster *src)
{
	dst->share = NULL;
	if (!src->share)
		return 0;
	dst->share = malloc((size_t)(src->cap_nodes ? src->cap_nodes : 1) * sizeof(*dst->share));
	if (!dst->share)
		return GS_ENOMEM;
	memcpy(dst->share, src->share, (size_t)src->n_nodes * sizeof(*dst->share));
	return 0;
}

/* Allocates the sharing state, every GPU unset. */
static int share_alloc(struct gs_cluster *c)
{
	int32_t i;

	if (c->share)
		return 0;
	c->share = calloc((size_t)(c->cap_nodes ? c->cap_nodes : 1), sizeof(*c->share));
	if (!c->share)
		return GS_ENOMEM;
	if (c->n_share_cfg == 0) {
		memset(&c->share_cfg[0], 0, sizeof(c->share_cfg[0]));
		c->n_share_cfg = 1; /* [0]: unset */
	}
	for (i = 0; i < c->n_nodes; i++)
		gs__share_add_node(c, i);
	return 0;
}

/* Index of cfg in the cluster's table, added when new. */
static int cfg_index(struct gs_cluster *c, const struct gs_share_cfg *cfg)
{
	int i;

	for (i = 0; i < c->n_share_cfg; i++)
		if (gs_share_cfg_equal(&c->share_cfg[i], cfg))
			return i;
	if (c->n_share_cfg >= GS_MAX_SHARE_CFGS)
		return GS_ERANGE;
	c->share_cfg[c->n_share_cfg] = *cfg;
	return c->n_share_cfg++;
}

/* The (config, model) combination of a uniform node, added when new; 0xff when full. */
static uint8_t combo_of(struct gs_cluster *c, int32_t node)
{
	const struct gs_node_share *ns = &c->share[node];
	int k;

	for (k = 0; k < c->n_share_combos; k++) {
		int32_t o = c->share_combo_node[k];

		if (c->share[o].cfg == ns->cfg && c->nodes[o].model == c->nodes[node].model)
			return (uint8_t)k;
	}
	if (c->n_share_combos == GS_MAX_SHARE_COMBOS)
		return 0xff;
	c->share_combo_node[c->n_share_combos] = node;
	return (uint8_t)c->n_share_combos++;
}

static void refresh_node_mode(struct gs_cluster *c, int32_t node)
{
	struct gs_node_share *ns = &c->share[node];
	int i, n = c->nodes[node].num_gpu;

	ns->mode = n ? ns->gpu[0].mode : GS_SHARE_DEFAULT;
	ns->cfg = n ? ns->gpu[0].cfg : 0;
	for (i = 1; i < n; i++)
		if (ns->gpu[i].cfg != ns->cfg)
			ns->mode = GS_SHARE_MIXED;
	refresh_mig_cap(ns, n);
	ns->combo = 0xff;
	if (n && ns->mode != GS_SHARE_MIXED)
		ns->combo = combo_of(c, node);
}

/*
 * Can GPUs of node take cfg? Checks what depends on the card: a MIG
 * table for its model and the fixed layout on it, and an MPS pinned
 * limit within its memory. Fills *table and *layout for MIG. Returns 0 or
 * GS_EINVAL with a message naming the node.
 */
static int share_check_node(const struct gs_cluster *c, int32_t node,
			    const struct gs_share_cfg *cfg, const struct gs_mig_table **table,
			    struct gs_mig_gpu *layout, char *err, size_t err_len)
{
	const struct gs_node *n = &c->nodes[node];
	const char *model = c->models.m[n->model].name;

	*table = NULL;
	gs_mig_gpu_init(layout);
	if (cfg->mode == GS_SHARE_MPS && cfg->pinned_mib > card_mib(c, n)) {
		snprintf(err, err_len,
			 "node %s: mps pinned_mib=%lld is above its %s's memory (%lld MiB)",
			 c->node_names[node], (long long)cfg->pinned_mib, model,
			 (long long)card_mib(c, n));
		return GS_EINVAL;
	}
	if (cfg->mode != GS_SHARE_MIG)
		return 0;
	*table = gs_mig_table_for_model(model);
	if (!*table) {
		snprintf(err, err_len,
			 "node %s: GPU model %s has no MIG profiles (MIG models: A100, "
			 "A100-40G, A100-80G, H100, H200)",
			 c->node_names[node], model);
		return GS_EINVAL;
	}
	if (cfg->layout[0]) {
		char msg[160];

		if (gs_mig_layout_parse(*table, cfg->layout, layout, msg, sizeof(msg))) {
			snprintf(err, err_len, "node %s: %s", c->node_names[node], msg);
			return GS_EINVAL;
		}
	}
	return 0;
}

int gs_cluster_set_share(struct gs_cluster *c, int32_t node, int gpu,
			 const struct gs_share_cfg *cfg, char *err, size_t err_len)
{
	struct gs_node *n;
	struct gs_node_share *ns;
	const struct gs_mig_table *t = NULL;
	struct gs_mig_gpu layout;
	int i, lo, hi, idx = 0, rc;

	if (node < 0 || node >= c->n_nodes) {
		snprintf(err, err_len, "no node %d", node);
		return GS_EINVAL;
	}
	n = &c->nodes[node];
	if (n->num_gpu == 0) {
		snprintf(err, err_len, "node %s has no GPUs to share", c->node_names[node]);
		return GS_EINVAL;
	}
	if (gpu < -1 || gpu >= n->num_gpu) {
		snprintf(err, err_len, "node %s has no GPU %d", c->node_names[node], gpu);
		return GS_EINVAL;
	}
	if (n->n_pods) {
		snprintf(err, err_len, "node %s has pods; set its sharing mode before the run",
			 c->node_names[node]);
		return GS_EINVAL;
	}
	rc = share_check_node(c, node, cfg, &t, &layout, err, err_len);
	if (rc)
		return rc;
	if (cfg->mode >= GS_SHARE__COUNT) {
		snprintf(err, err_len, "bad sharing mode %d", cfg->mode);
		return GS_EINVAL;
	}
	rc = share_alloc(c);
	if (rc == 0) {
		idx = cfg_index(c, cfg);
		rc = idx < 0 ? idx : 0;
	}
	if (rc < 0) {
		snprintf(err, err_len, "%s", rc == GS_ERANGE
			 ? "more than 32 different sharing settings in one cluster"
			 : gs_strerror(rc));
		return rc;
	}
	ns = &c->share[node];
	lo = gpu < 0 ? 0 : gpu;
	hi = gpu < 0 ? n->num_gpu : gpu + 1;
	for (i = lo; i < hi; i++) {
		struct gs_gpu_share *gs = &ns->gpu[i];

		gs->cfg = (uint8_t)idx;
		gs->mode = cfg->mode;
		gs->pods = 0;
		gs->mig = layout;
		gs->mig_cap = t ? mig_cap(t, &gs->mig) : -1;
	}
	if (t) {
		for (i = 0; i < gs_mig_table_count(); i++)
			if (gs_mig_table_at(i) == t)
				ns->mig_table = (int8_t)i;
	}
	refresh_node_mode(c, node);
	return 0;
}

int gs_cluster_share_default(struct gs_cluster *c, const struct gs_share_cfg *cfg,
			     int32_t *n_exclusive, char *err, size_t err_len)
{
	struct gs_share_cfg excl;
	int32_t node;
	int i, rc;

	gs_share_cfg_init(&excl, GS_SHARE_EXCLUSIVE);
	if (n_exclusive)
		*n_exclusive = 0;

	if (!c->share && cfg->mode == GS_SHARE_IDEAL)
		return 0;
	rc = share_alloc(c);
	if (rc) {
		snprintf(err, err_len, "%s", gs_strerror(rc));
		return rc;
	}
	for (node = 0; node < c->n_nodes; node++) {
		const struct gs_node_share *ns = &c->share[node];

		/* A MIG default leaves GPUs without MIG whole, as a real cluster does. */
		bool no_mig = cfg->mode == GS_SHARE_MIG && c->nodes[node].num_gpu &&
			      !gs_mig_table_for_model(c->models.m[c->nodes[node].model].name);

		for (i = 0; i < c->nodes[node].num_gpu; i++) {
			if (ns->gpu[i].mode != GS_SHARE_DEFAULT)
				continue;
			rc = gs_cluster_set_share(c, node, i, no_mig ? &excl : cfg, err, err_len);
			if (rc)
				return rc;
			if (no_mig && n_exclusive)
				(*n_exclusive)++;
		}
	}
	/* Nothing but ideal GPUs: back to the plain allocator. */
	for (node = 0; node < c->n_nodes; node++)
		if (c->nodes[node].num_gpu && c->share[node].mode != GS_SHARE_IDEAL)
			return 0;
	free(c->share);
	c->share = NULL;
	c->n_share_combos = 0;
	return 0;
}

/* Is a MIG layout made of profiles of at least one MIG table? For a cluster with no MIG GPU. */
static int layout_known(const char *layout, char *err, size_t err_len)
{
	struct gs_mig_gpu g;
	char msg[160];
	int i;

	for (i = 0; i < gs_mig_table_count(); i++)
		if (gs_mig_layout_parse(gs_mig_table_at(i), layout, &g, msg, sizeof(msg)) == 0)
			return 0;
	snprintf(err, err_len, "mig layout '%s' is not a layout of any MIG model (A100-40G, "
		 "A100-80G, H100, H200): %s", layout, msg);
	return GS_EINVAL;
}

int gs_cluster_share_check(const struct gs_cluster *c, const struct gs_share_cfg *cfg,
			   char *err, size_t err_len)
{
	const struct gs_mig_table *t;
	struct gs_mig_gpu layout;
	int32_t node;
	int i, rc;
	bool mig_seen = false;

	for (node = 0; node < c->n_nodes; node++) {
		const struct gs_node *n = &c->nodes[node];
		bool unset = false;

		for (i = 0; i < n->num_gpu; i++)
			unset |= !c->share || c->share[node].gpu[i].mode == GS_SHARE_DEFAULT;
		if (!unset)
			continue;
		/* Under a MIG default, GPUs without MIG run exclusive (gs_cluster_share_default()). */
		if (cfg->mode == GS_SHARE_MIG &&
		    !gs_mig_table_for_model(c->models.m[n->model].name))
			continue;
		rc = share_check_node(c, node, cfg, &t, &layout, err, err_len);
		if (rc)
			return rc;
		mig_seen |= t != NULL;
	}
	/* With no MIG GPU to try it on, the layout must still be one of some model. */
	if (cfg->mode == GS_SHARE_MIG && cfg->layout[0] && !mig_seen)
		return layout_known(cfg->layout, err, err_len);
	return 0;
}

const struct gs_share_cfg *gs_cluster_gpu_share(const struct gs_cluster *c, int32_t node,
						int gpu)
{
	if (!c->share || gpu < 0 || gpu >= c->nodes[node].num_gpu)
		return &ideal_cfg;
	return &c->share_cfg[c->share[node].gpu[gpu].cfg];
}

int gs_cluster_node_mode(const struct gs_cluster *c, int32_t node)
{
	if (!c->share)
		return GS_SHARE_IDEAL;
	return c->share[node].mode;
}

char *gs_cluster_node_share_text(const struct gs_cluster *c, int32_t node, char *buf, size_t len)
{
	const struct gs_node_share *ns;
	char spec[GS_SHARE_SPEC_MAX];
	size_t used = 0;
	int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!c->share || c->nodes[node].num_gpu == 0)
		return buf;
	ns = &c->share[node];
	if (ns->mode == GS_SHARE_DEFAULT)
		return buf;
	if (ns->mode != GS_SHARE_MIXED)
		return gs_share_format(&c->share_cfg[ns->cfg], buf, len);
	for (i = 0; i < c->nodes[node].num_gpu && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "",
					 ns->gpu[i].mode == GS_SHARE_DEFAULT ? "ideal"
					 : gs_share_format(gpu_cfg(c, &ns->gpu[i]), spec,
							   sizeof(spec)));
	return buf;
}

const struct gs_mig_table *gs_cluster_mig_table(const struct gs_cluster *c, int32_t node)
{
	if (!c->share)
		return NULL;
	return node_table(&c->share[node]);
}

/* --- invariants ---------------------------------------------------------------- */

int gs__share_check(const struct gs_cluster *c, char *msg, size_t msg_len)
{
	int32_t node;
	int i, k, cap_max;

	if (!c->share)
		return 0;
	for (node = 0; node < c->n_nodes; node++) {
		const struct gs_node *n = &c->nodes[node];
		const struct gs_node_share *ns = &c->share[node];
		const struct gs_mig_table *t = node_table(ns);
		const char *name = c->node_names[node];
		int pods = 0;

		for (i = 0; i < n->num_gpu; i++) {
			const struct gs_gpu_share *gs = &ns->gpu[i];
			int32_t milli = 0;
			int64_t mem = 0;
			int busy = 0;

			pods += gs->pods;
			if (gs->cfg >= c->n_share_cfg || gs->mode != c->share_cfg[gs->cfg].mode)
				GS__CHECK_FAIL("node %s: GPU %d has a bad sharing config", name, i);
			if (gs->mode != GS_SHARE_MIG)
				continue;
			if (!t)
				GS__CHECK_FAIL("node %s: MIG GPU %d without a MIG table", name, i);
			for (k = 0; k < gs->mig.n; k++) {
				if (!gs->mig.inst[k].busy)
					continue;
				busy++;
				milli += gs_mig_profile_milli(&t->p[gs->mig.inst[k].profile]);
				mem += inst_mib(t, gs->mig.inst[k].profile, card_mib(c, n));
			}
			if (busy != gs->pods)
				GS__CHECK_FAIL("node %s: MIG GPU %d has %d busy instances and %d pods",
					       name, i, busy, gs->pods);
			if (GS_MILLI_PER_GPU - n->gpu_free_milli[i] != milli ||
			    card_mib(c, n) - n->gpu_mem_free_mib[i] != mem)
				GS__CHECK_FAIL("node %s: MIG GPU %d: instances reserve %d milli and "
					       "%lld MiB, the GPU says %d and %lld",
					       name, i, milli, (long long)mem,
					       GS_MILLI_PER_GPU - n->gpu_free_milli[i],
					       (long long)(card_mib(c, n) - n->gpu_mem_free_mib[i]));
			if (gs->mig_cap != mig_cap(t, &gs->mig))
				GS__CHECK_FAIL("node %s: MIG GPU %d: stale largest placeable "
					       "profile", name, i);
		}
		if (pods > 0 && n->n_pods == 0)
			GS__CHECK_FAIL("node %s: GPUs hold %d pods, the node none", name, pods);
		for (i = 0, cap_max = -1; i < n->num_gpu; i++)
			if (ns->gpu[i].mode == GS_SHARE_MIG && ns->gpu[i].mig_cap > cap_max)
				cap_max = ns->gpu[i].mig_cap;
		if (ns->mig_cap_max != cap_max)
			GS__CHECK_FAIL("node %s: largest placeable MIG profile %d, its GPUs say %d",
				       name, ns->mig_cap_max, cap_max);
	}
	return 0;
}
