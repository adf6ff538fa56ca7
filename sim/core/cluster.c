/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster.c - the allocator: node list, the filter, bind and unbind, and
 * the invariant check (see cluster.h).
 *
 * bind and unbind validate the whole request before touching anything, so
 * a refused placement leaves the cluster exactly as it was. Derived fields
 * (per-node GPU summaries, cluster totals) are updated incrementally; the
 * check recomputes them from scratch and compares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/cluster_internal.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"

static const char *const fit_str[] = {
#define GS_FIT_STR(name, msg) msg,
	GS_FIT_MAP(GS_FIT_STR)
#undef GS_FIT_STR
};

const char *gs_fit_str(enum gs_fit f)
{
	if ((unsigned)f >= GS_FIT__COUNT)
		return "unknown";
	return fit_str[f];
}

void gs_cluster_init(struct gs_cluster *c)
{
	memset(c, 0, sizeof(*c));
	gs_models_builtin(&c->models);
}

void gs__select_release(struct gs_cluster *c);
int gs__select_copy(struct gs_cluster *dst, const struct gs_cluster *src);

void gs_cluster_release(struct gs_cluster *c)
{
	int32_t i;

	gs__select_release(c);
	for (i = 0; i < c->n_nodes; i++)
		free(c->node_names[i]);
	free(c->node_names);
	free(c->nodes);
	free(c->share);
	gs_cluster_init(c);
}

int gs_cluster_copy(struct gs_cluster *dst, const struct gs_cluster *src)
{
	int32_t i;

	gs_cluster_release(dst);
	*dst = *src;
	dst->nodes = NULL;
	dst->node_names = NULL;
	dst->share = NULL;
	dst->n_nodes = 0;
	dst->cap_nodes = 0;
	if (gs__select_copy(dst, src))
		goto fail;
	if (src->n_nodes == 0)
		return 0;
	if (gs__share_copy(dst, src))
		goto fail;

	dst->nodes = malloc((size_t)src->n_nodes * sizeof(*dst->nodes));
	dst->node_names = calloc((size_t)src->n_nodes, sizeof(*dst->node_names));
	if (!dst->nodes || !dst->node_names)
		goto fail;
	memcpy(dst->nodes, src->nodes, (size_t)src->n_nodes * sizeof(*dst->nodes));
	dst->cap_nodes = src->n_nodes;
	for (i = 0; i < src->n_nodes; i++) {
		dst->node_names[i] = strdup(src->node_names[i]);
		dst->n_nodes = i + 1; /* so release frees what was copied */
		if (!dst->node_names[i])
			goto fail;
	}
	return 0;
fail:
	gs_cluster_release(dst);
	return GS_ENOMEM;
}

void gs_node_refresh(struct gs_node *n)
{
	int32_t i, total = 0, max = 0, whole = 0;

	for (i = 0; i < n->num_gpu; i++) {
		int32_t f = n->gpu_free_milli[i];

		total += f;
		if (f > max)
			max = f;
		if (f == GS_MILLI_PER_GPU)
			whole++;
	}
	n->gpu_free_total_milli = total;
	n->gpu_free_max_milli = max;
	n->gpu_whole_free = whole;
}

int gs_cluster_add_node(struct gs_cluster *c, const char *name, int32_t cpu_milli,
			int64_t mem_mib, int32_t num_gpu, const char *model)
{
	struct gs_node *n;
	int model_idx = -1;
	int64_t mem_total;
	int32_t i;
	char *copy;

	if (!name || !*name || cpu_milli < 0 || mem_mib < 0 || num_gpu < 0)
		return GS_EINVAL;
	if (num_gpu > GS_MAX_GPUS || mem_mib > GS_MIB_MAX)
		return GS_ERANGE;
	/*
	 * Each node's memory is in range, but enough of them overflow the
	 * cluster's total; CPU (2^31 milli per node) and GPU totals cannot,
	 * with at most 2^31 nodes.
	 */
	if (!gs_add_i64(c->mem_mib, mem_mib, &mem_total) || c->n_nodes == INT32_MAX)
		return GS_ERANGE;
	if (num_gpu > 0) {
		if (!model || !*model)
			return GS_EINVAL;
		model_idx = gs_models_find(&c->models, model);
		if (model_idx < 0)
			model_idx = gs_models_set(&c->models, model, 0);
		if (model_idx < 0)
			return model_idx;
	}
	if (c->n_nodes == c->cap_nodes) {
		/* Parallel arrays, one capacity, which must fit the int32_t node indices. */
		size_t cap = gs_grow_cap((size_t)c->cap_nodes, 64);

		if (cap > INT32_MAX || GS_GROW_RESIZE(c->nodes, cap) ||
		    GS_GROW_RESIZE(c->node_names, cap) ||
		    (c->share && GS_GROW_RESIZE(c->share, cap)))
			return GS_ENOMEM;
		c->cap_nodes = (int32_t)cap;
	}
	copy = strdup(name);
	if (!copy)
		return GS_ENOMEM;

	n = &c->nodes[c->n_nodes];
	memset(n, 0, sizeof(*n));
	n->cpu_milli = n->cpu_free_milli = cpu_milli;
	n->mem_mib = n->mem_free_mib = mem_mib;
	n->num_gpu = num_gpu;
	n->model = model_idx;
	for (i = 0; i < num_gpu; i++) {
		n->gpu_free_milli[i] = GS_MILLI_PER_GPU;
		n->gpu_mem_free_mib[i] = c->models.m[model_idx].mem_mib;
	}
	gs_node_refresh(n);
	c->node_names[c->n_nodes] = copy;
	gs__share_add_node(c, c->n_nodes);

	c->cpu_milli += cpu_milli;
	c->cpu_free_milli += cpu_milli;
	c->mem_mib = mem_total;
	c->mem_free_mib += mem_mib;
	c->gpu_count += num_gpu;
	c->gpu_milli += (int64_t)num_gpu * GS_MILLI_PER_GPU;
	c->gpu_free_milli += (int64_t)num_gpu * GS_MILLI_PER_GPU;
	return c->n_nodes++;
}

int gs_cluster_find_node(const struct gs_cluster *c, const char *name)
{
	int32_t i;

	for (i = 0; i < c->n_nodes; i++)
		if (strcmp(c->node_names[i], name) == 0)
			return i;
	return -1;
}

uint32_t gs_cluster_model_mask(const struct gs_cluster *c)
{
	uint32_t mask = 0;
	int32_t i;

	for (i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].num_gpu > 0 && c->nodes[i].model >= 0)
			mask |= 1u << c->nodes[i].model;
	return mask;
}

bool gs_pod_valid(const struct gs_pod *p)
{
	if (p->cpu_milli < 0 || p->mem_mib < 0 || p->gpu_mem_mib < 0)
		return false;
	if (p->num_gpu < 0 || p->num_gpu > GS_MAX_GPUS)
		return false;
	if (p->gpu_milli < 0 || p->gpu_milli > GS_MILLI_PER_GPU)
		return false;
	if ((p->num_gpu == 0) != (p->gpu_milli == 0))
		return false;
	/* Fractional GPUs only for single-GPU pods, as in openb and gpushare. */
	if (p->num_gpu > 1 && p->gpu_milli != GS_MILLI_PER_GPU)
		return false;
	return true;
}

int64_t gs_pod_duration_s(const struct gs_pod *p)
{
	if (p->t_delete_s < 0)
		return -1;
	if (p->t_create_s < 0 || p->t_delete_s < p->t_create_s)
		return 0;
	return p->t_delete_s - p->t_create_s;
}

enum gs_fit gs__fits_gpus(const struct gs_node *n, const struct gs_pod *p)
{
	int32_t i, share_ok, both_ok;

	/* Fast paths on the derived fields before scanning GPUs. */
	if (p->gpu_milli > n->gpu_free_max_milli)
		return GS_FIT_GPU_SHARE;
	if (p->gpu_mem_mib == 0) {
		if (p->num_gpu == 1)
			return GS_FIT_OK;
		if (p->gpu_milli == GS_MILLI_PER_GPU)
			return n->gpu_whole_free >= p->num_gpu ? GS_FIT_OK : GS_FIT_GPU_SHARE;
	}

	share_ok = both_ok = 0;
	for (i = 0; i < n->num_gpu; i++) {
		if (n->gpu_free_milli[i] < p->gpu_milli)
			continue;
		share_ok++;
		if (n->gpu_mem_free_mib[i] >= p->gpu_mem_mib)
			both_ok++;
	}
	if (both_ok >= p->num_gpu)
		return GS_FIT_OK;
	return share_ok >= p->num_gpu ? GS_FIT_GPU_MEM : GS_FIT_GPU_SHARE;
}

enum gs_fit gs_cluster_fits(const struct gs_cluster *c, int32_t node, const struct gs_pod *p)
{
	const struct gs_node *n = &c->nodes[node];
	enum gs_fit f = gs__fits_host(c, node, p);

	if (f != GS_FIT_OK || gs_pod_cpu_only(p))
		return f;
	if (c->share)
		return gs__share_fits(c, node, p);
	return gs__fits_gpus(n, p);
}

/* Validates a placement's shape: node, GPU count, indices, no repeats. */
static int placement_valid(const struct gs_cluster *c, const struct gs_pod *p,
			   const struct gs_placement *pl)
{
	const struct gs_node *n;
	uint32_t seen = 0;
	int32_t i, want = gs_pod_cpu_only(p) ? 0 : p->num_gpu;

	if (!gs_pod_valid(p) || pl->node < 0 || pl->node >= c->n_nodes)
		return GS_EINVAL;
	n = &c->nodes[pl->node];
	if (pl->num_gpu != want)
		return GS_EINVAL;
	for (i = 0; i < pl->num_gpu; i++) {
		uint32_t bit;

		/* The index is checked before it is used as a shift count. */
		if (pl->gpu[i] >= n->num_gpu)
			return GS_EINVAL;
		bit = 1u << pl->gpu[i];
		if (seen & bit)
			return GS_EINVAL;
		seen |= bit;
	}
	return 0;
}

static int64_t node_gpus_in_use(const struct gs_node *n)
{
	int32_t i, used = 0;

	for (i = 0; i < n->num_gpu; i++)
		used += n->gpu_free_milli[i] < GS_MILLI_PER_GPU;
	return used;
}

/* What the devices allocator's use does to a node's GPUs: sign +1 takes, -1 gives back. */
static void devices_apply(struct gs_node *n, const struct gs_devices_use *use, int sign)
{
	int32_t i;

	for (i = 0; i < n->num_gpu; i++) {
		n->gpu_free_milli[i] -= sign * use->gpu_milli[i];
		n->gpu_mem_free_mib[i] -= sign * use->gpu_mem_mib[i];
	}
}

/* True when a use fits the free GPUs of node n (taking) or their capacity (giving back). */
static bool devices_use_ok(const struct gs_cluster *c, const struct gs_node *n,
			   const struct gs_devices_use *use, int sign)
{
	int64_t card = n->model >= 0 ? c->models.m[n->model].mem_mib : 0;
	int32_t i;

	for (i = 0; i < GS_MAX_GPUS; i++) {
		if (i >= n->num_gpu) {
			if (use->gpu_milli[i] || use->gpu_mem_mib[i])
				return false;
			continue;
		}
		if (use->gpu_milli[i] < 0 || use->gpu_mem_mib[i] < 0)
			return false;
		if (sign > 0 && (use->gpu_milli[i] > n->gpu_free_milli[i] ||
				 use->gpu_mem_mib[i] > n->gpu_mem_free_mib[i]))
			return false;
		if (sign < 0 && (n->gpu_free_milli[i] + use->gpu_milli[i] > GS_MILLI_PER_GPU ||
				 n->gpu_mem_free_mib[i] + use->gpu_mem_mib[i] > card))
			return false;
	}
	return true;
}

/*
 * Takes (sign +1) or gives back (sign -1) what pod p uses under placement
 * pl on node n, once the caller's own checks have passed. The devices
 * allocator acts first on the pod's claims and is the last that may
 * refuse: a use that does not fit the node's GPUs is GS_ECHECK, devices
 * just taken given back. Then CPU, memory, the GPUs (shared or not), the
 * devices' use, and the node's and the cluster's totals (with sharing
 * modes, the GPUs as gs__share_gpu_check() planned). Returns 0, the
 * allocator's error, GS_ECHECK, or gs_cluster_check()'s error when
 * checking is on.
 */
static int commit(struct gs_cluster *c, struct gs_node *n, const struct gs_pod *p,
		  const struct gs_placement *pl, int32_t claims, int sign,
		  const struct gs__share_plan *plan)
{
	struct gs_devices_use use;
	int64_t used_before, free_before;
	int32_t i;

	memset(&use, 0, sizeof(use));
	if (claims) {
		int err = sign > 0 ? c->dev_ops->bind(c->dev_state, pl->node, claims, &use)
				   : c->dev_ops->unbind(c->dev_state, pl->node, claims, &use);

		if (err)
			return err;
		if (!devices_use_ok(c, n, &use, sign)) {
			if (sign > 0)
				c->dev_ops->unbind(c->dev_state, pl->node, claims, &use);
			return GS_ECHECK;
		}
	}
	used_before = node_gpus_in_use(n);
	free_before = n->gpu_free_total_milli;
	n->cpu_free_milli -= sign * p->cpu_milli;
	n->mem_free_mib -= sign * p->mem_mib;
	if (c->share && pl->num_gpu) {
		gs__share_gpu_apply(c, pl, sign, plan);
	} else {
		for (i = 0; i < pl->num_gpu; i++) {
			n->gpu_free_milli[pl->gpu[i]] -= sign * p->gpu_milli;
			n->gpu_mem_free_mib[pl->gpu[i]] -= sign * p->gpu_mem_mib;
		}
	}
	devices_apply(n, &use, sign);
	gs_node_refresh(n);
	n->n_pods += sign;

	c->cpu_free_milli -= sign * p->cpu_milli;
	c->mem_free_mib -= sign * p->mem_mib;
	c->gpu_free_milli += n->gpu_free_total_milli - free_before;
	c->gpus_in_use += node_gpus_in_use(n) - used_before;
	c->n_pods += sign;
	c->version++;

	if (c->check)
		return gs_cluster_check(c, NULL, 0);
	return 0;
}

enum gs_fit gs_cluster_claims_fit(const struct gs_cluster *c, int32_t node, const struct gs_pod *p)
{
	int32_t claims = gs_pod_claims(c, p);
	struct gs_devices_use use;

	if (!claims)
		return GS_FIT_OK;
	if (c->dev_ops->fits(c->dev_state, node, claims, &use))
		return GS_FIT_DEVICES;
	/*
	 * Devices the allocator may give together (their counters allow it) can
	 * take more of a GPU than is free by the shares gpusim derives for them
	 * (a snapshot whose devices' counters and profiles disagree): what the
	 * bind would refuse, the filter refuses.
	 */
	return devices_use_ok(c, &c->nodes[node], &use, +1) ? GS_FIT_OK : GS_FIT_DEVICES;
}

int gs_cluster_bind(struct gs_cluster *c, const struct gs_pod *p, const struct gs_placement *pl)
{
	struct gs__share_plan plan;
	struct gs_node *n;
	int32_t i, claims = gs_pod_claims(c, p);
	int err = placement_valid(c, p, pl);

	if (err)
		return err;
	n = &c->nodes[pl->node];
	if (!gs_node_sel_ok(c, n, p))
		return GS_ENOFIT;
	if (p->cpu_milli > n->cpu_free_milli || p->mem_mib > n->mem_free_mib)
		return GS_ENOFIT;
	if (pl->num_gpu && !gs_node_model_ok(n, p))
		return GS_ENOFIT;
	if (c->share && pl->num_gpu) {
		err = gs__share_gpu_check(c, p, pl, +1, &plan);
		if (err)
			return err;
	} else {
		for (i = 0; i < pl->num_gpu; i++)
			if (!gs_gpu_fits(n, pl->gpu[i], p))
				return GS_ENOFIT;
	}
	return commit(c, n, p, pl, claims, +1, &plan);
}

int gs_cluster_unbind(struct gs_cluster *c, const struct gs_pod *p, const struct gs_placement *pl)
{
	struct gs__share_plan plan;
	struct gs_node *n;
	int64_t gpu_mem;
	int32_t i, claims = gs_pod_claims(c, p);
	int err = placement_valid(c, p, pl);

	if (err)
		return err;
	n = &c->nodes[pl->node];
	if (n->n_pods <= 0 || n->cpu_free_milli + p->cpu_milli > n->cpu_milli ||
	    n->mem_free_mib + p->mem_mib > n->mem_mib)
		return GS_EINVAL;
	gpu_mem = n->model >= 0 ? c->models.m[n->model].mem_mib : 0;
	if (c->share && pl->num_gpu) {
		err = gs__share_gpu_check(c, p, pl, -1, &plan);
		if (err)
			return err;
	} else {
		for (i = 0; i < pl->num_gpu; i++) {
			int g = pl->gpu[i];

			if (n->gpu_free_milli[g] + p->gpu_milli > GS_MILLI_PER_GPU ||
			    n->gpu_mem_free_mib[g] + p->gpu_mem_mib > gpu_mem)
				return GS_EINVAL;
		}
	}
	return commit(c, n, p, pl, claims, -1, &plan);
}

int gs_cluster_check(const struct gs_cluster *c, char *msg, size_t msg_len)
{
	int64_t cpu = 0, cpu_free = 0, mem = 0, mem_free = 0, gpus = 0, gpu_free = 0;
	int64_t in_use = 0, pods = 0;
	int32_t i, g;

	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];
		struct gs_node fresh = *n;
		int64_t card = n->model >= 0 ? c->models.m[n->model].mem_mib : 0;
		const char *name = c->node_names[i];

		if (n->cpu_free_milli < 0 || n->cpu_free_milli > n->cpu_milli)
			GS__CHECK_FAIL("node %s: cpu free %d of %d milli", name, n->cpu_free_milli,
				       n->cpu_milli);
		if (n->mem_free_mib < 0 || n->mem_free_mib > n->mem_mib)
			GS__CHECK_FAIL("node %s: memory free %lld of %lld MiB", name,
				       (long long)n->mem_free_mib, (long long)n->mem_mib);
		if (n->num_gpu < 0 || n->num_gpu > GS_MAX_GPUS || (n->num_gpu > 0) != (n->model >= 0))
			GS__CHECK_FAIL("node %s: %d GPUs of model %d", name, n->num_gpu, n->model);
		for (g = 0; g < n->num_gpu; g++) {
			if (n->gpu_free_milli[g] < 0 || n->gpu_free_milli[g] > GS_MILLI_PER_GPU)
				GS__CHECK_FAIL("node %s: GPU %d free share %d milli", name, g,
					       n->gpu_free_milli[g]);
			if (n->gpu_mem_free_mib[g] < 0 || n->gpu_mem_free_mib[g] > card)
				GS__CHECK_FAIL("node %s: GPU %d free memory %lld of %lld MiB",
					       name, g, (long long)n->gpu_mem_free_mib[g],
					       (long long)card);
		}
		gs_node_refresh(&fresh);
		if (fresh.gpu_free_total_milli != n->gpu_free_total_milli ||
		    fresh.gpu_free_max_milli != n->gpu_free_max_milli ||
		    fresh.gpu_whole_free != n->gpu_whole_free)
			GS__CHECK_FAIL("node %s: derived GPU fields are stale", name);
		if (n->n_pods < 0)
			GS__CHECK_FAIL("node %s: %d pods", name, n->n_pods);
		if (n->n_pods == 0 && (n->cpu_free_milli != n->cpu_milli ||
				       n->mem_free_mib != n->mem_mib ||
				       n->gpu_free_total_milli != n->num_gpu * GS_MILLI_PER_GPU))
			GS__CHECK_FAIL("node %s: no pods but resources allocated", name);

		cpu += n->cpu_milli;
		cpu_free += n->cpu_free_milli;
		mem += n->mem_mib;
		mem_free += n->mem_free_mib;
		gpus += n->num_gpu;
		gpu_free += n->gpu_free_total_milli;
		in_use += node_gpus_in_use(n);
		pods += n->n_pods;
	}
	if (cpu != c->cpu_milli || cpu_free != c->cpu_free_milli)
		GS__CHECK_FAIL("cluster cpu totals %lld/%lld, nodes add up to %lld/%lld",
			       (long long)c->cpu_free_milli, (long long)c->cpu_milli,
			       (long long)cpu_free, (long long)cpu);
	if (mem != c->mem_mib || mem_free != c->mem_free_mib)
		GS__CHECK_FAIL("cluster memory totals %lld/%lld, nodes add up to %lld/%lld",
			       (long long)c->mem_free_mib, (long long)c->mem_mib,
			       (long long)mem_free, (long long)mem);
	if (gpus != c->gpu_count || gpus * GS_MILLI_PER_GPU != c->gpu_milli ||
	    gpu_free != c->gpu_free_milli)
		GS__CHECK_FAIL("cluster GPU totals %lld/%lld milli, nodes add up to %lld/%lld",
			       (long long)c->gpu_free_milli, (long long)c->gpu_milli,
			       (long long)gpu_free, (long long)(gpus * GS_MILLI_PER_GPU));
	if (in_use != c->gpus_in_use)
		GS__CHECK_FAIL("cluster says %lld GPUs in use, nodes add up to %lld",
			       (long long)c->gpus_in_use, (long long)in_use);
	if (pods != c->n_pods)
		GS__CHECK_FAIL("cluster says %lld pods, nodes add up to %lld", (long long)c->n_pods,
			       (long long)pods);
	return gs__share_check(c, msg, msg_len);
}
