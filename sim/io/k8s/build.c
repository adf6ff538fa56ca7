/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build.c - gs_k8s_build(): nodes, their GPUs and sharing modes, the
 * starting state and the queue from a snapshot (the rules are in build.h;
 * which nodes a pod may use is worked out in select.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "core/mem.h"
#include "core/mig.h"
#include "io/k8s/build.h"
#include "io/k8s/build_internal.h"

const char *gs_k8s_gpu_kind_str(int kind)
{
	static const char *const names[] = { "-", "device-plugin", "mig-mixed", "gpushare", "hami",
					     "dra" };

	return kind >= 0 && kind <= GS_K8S_GPU_DRA ? names[kind] : "-";
}

int gs_k8s_boom(struct gs_k8s_bctx *b)
{
	gs_errf(b->err, b->err_len, "out of memory");
	return GS_ENOMEM;
}

/* A whole number of an extended resource (GPU counts are integers in Kubernetes). */
static bool whole(const struct gs_quantity *q, int64_t *out)
{
	if (!q || !gs_quantity_is_int(q))
		return false;
	*out = q->whole;
	return true;
}

/* --- models ------------------------------------------------------------------------ */

/*
 * The model index for a product label and memory: gpusim's built-in name
 * when the product maps to one whose memory agrees (within 8%), else the
 * product name itself (without "NVIDIA-" and "-SHARED"), added.
 */
static int model_for(struct gs_k8s_bctx *b, const char *product, int64_t mem_mib,
		     const struct gs_k8s_origin *o)
{
	struct gs_cluster *c = b->c;
	char name[GS_MODEL_NAME_MAX], prod[128];
	const char *builtin;
	size_t n;
	int k;

	snprintf(prod, sizeof(prod), "%s", product ? product : "GPU");
	n = strlen(prod);
	if (n > 7 && strcmp(prod + n - 7, "-SHARED") == 0)
		prod[n - 7] = '\0';
	builtin = gs_models_from_device(prod);
	if (builtin) {
		k = gs_models_find(&c->models, builtin);
		if (k >= 0 && (mem_mib <= 0 || (c->models.m[k].mem_mib * 92 <= mem_mib * 100 &&
						mem_mib * 92 <= c->models.m[k].mem_mib * 100)))
			return k;
	}
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(name) - 1,
		 strncmp(prod, "NVIDIA-", 7) == 0 ? prod + 7 : prod);
	k = gs_models_find(&c->models, name);
	if (k >= 0 && (mem_mib <= 0 || c->models.m[k].mem_mib == mem_mib))
		return k;
	if (k >= 0) {
		/* The same product with another memory: tell them apart by the memory. */
		char alt[GS_MODEL_NAME_MAX + 24];

		snprintf(alt, sizeof(alt), "%.20s-%lldM", name, (long long)mem_mib);
		snprintf(name, sizeof(name), "%.*s", (int)sizeof(name) - 1, alt);
	}
	k = gs_models_set(&c->models, name, mem_mib > 0 ? mem_mib : 0);
	if (k == GS_ERANGE)
		return GS_K8S_BERR(b, o, "metadata.labels[nvidia.com/gpu.product]", "more than %d "
				   "distinct GPU models in the snapshot", GS_MAX_MODELS);
	if (k < 0)
		return GS_K8S_BERR(b, o, "metadata.labels[nvidia.com/gpu.product]", "'%s' cannot be "
				   "a GPU model name", name);
	return k;
}

static int64_t label_int(const struct gs_k8s_node *n, const char *key)
{
	const char *v = gs_k8s_node_label(n, key);
	char *end;
	long long x;

	if (!v || !*v)
		return -1;
	x = strtoll(v, &end, 10);
	return *end || x < 0 ? -2 : x;
}

/* --- the device plugin's sharing ------------------------------------------------------ */

/* The plugin config that applies to node n (the key its label names, or the only key). */
static const struct gs_k8s_plugin_config *plugin_config(const struct gs_k8s_snapshot *s,
							const struct gs_k8s_node *n,
							const char *resource)
{
	const char *want = gs_k8s_node_label(n, "nvidia.com/device-plugin.config");
	const struct gs_k8s_plugin_config *only = NULL;
	size_t i;
	int keys = 0;
	int32_t r;

	for (i = 0; i < s->n_plugin_configs; i++) {
		const struct gs_k8s_plugin_config *pc = &s->plugin_configs[i];
		bool has = false;

		for (r = 0; r < pc->n; r++)
			has |= strcmp(pc->resources[r], resource) == 0;
		if (!has)
			continue;
		if (want && strcmp(pc->key, want) == 0)
			return pc;
		if (!only || strcmp(only->key, pc->key) != 0)
			keys++;
		only = pc;
	}
	return !want && keys == 1 ? only : NULL;
}

/* Sharing of a device-plugin node: labels first, then the plugin's configuration. */
static int plugin_node(struct gs_k8s_bctx *b, int32_t node, const char *resource,
		       int64_t alloc, struct gs_share_cfg *cfg, int32_t *num_gpu)
{
	const struct gs_k8s_node *n = &b->s->nodes[node];
	struct gs_k8s_node_gpu *g = &b->st->nodes[node];
	const char *strategy = gs_k8s_node_label(n, "nvidia.com/gpu.sharing-strategy");
	int64_t replicas = label_int(n, "nvidia.com/gpu.replicas");
	int64_t count = label_int(n, "nvidia.com/gpu.count");
	uint8_t mode = GS_SHARE_EXCLUSIVE;

	if (replicas == -2 || count == -2)
		return GS_K8S_BERR(b, &n->o, replicas == -2 ? "metadata.labels[nvidia.com/gpu.replicas]"
							    : "metadata.labels[nvidia.com/gpu.count]",
				   "is not a whole number");
	if (strategy || replicas > 0) {
		g->source = "labels";
		if (strategy && strcmp(strategy, "time-slicing") == 0)
			mode = GS_SHARE_TIMESLICE;
		else if (strategy && strcmp(strategy, "mps") == 0)
			mode = GS_SHARE_MPS;
		else if (strategy && strcmp(strategy, "none") != 0)
			return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/gpu.sharing-strategy]",
					   "'%s' is not none, time-slicing or mps", strategy);
	} else {
		const struct gs_k8s_plugin_config *pc = plugin_config(b->s, n, "nvidia.com/gpu");
		int32_t r;

		if (pc) {
			for (r = 0; r < pc->n; r++)
				if (strcmp(pc->resources[r], "nvidia.com/gpu") == 0)
					replicas = pc->replicas[r];
			mode = pc->strategy;
			g->source = pc->o.name;
		}
	}
	if (replicas < 1)
		replicas = 1;
	if (replicas > GS_SHARE_REPLICAS_MAX)
		return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/gpu.replicas]", "%lld "
				   "replicas, more than gpusim models (%d)", (long long)replicas,
				   GS_SHARE_REPLICAS_MAX);
	if (replicas == 1)
		mode = GS_SHARE_EXCLUSIVE;
	if (count < 0) {
		if (alloc % replicas)
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "%s %lld is not a multiple "
					   "of %lld replicas", resource, (long long)alloc,
					   (long long)replicas);
		count = alloc / replicas;
	} else if (count * replicas != alloc) {
		snprintf(g->note, sizeof(g->note), "%s %lld, not nvidia.com/gpu.count %lld x %lld "
			 "replicas: %lld GPUs used", resource, (long long)alloc, (long long)count,
			 (long long)replicas, (long long)(alloc / replicas));
		count = alloc / replicas;
	}
	if (count > GS_MAX_GPUS)
		return GS_K8S_BERR(b, &n->o, "status.allocatable", "%lld GPUs, more than the %d a "
				   "gpusim node has", (long long)count, GS_MAX_GPUS);
	gs_share_cfg_init(cfg, (enum gs_share_mode)mode);
	if (mode != GS_SHARE_EXCLUSIVE)
		cfg->replicas = (uint8_t)replicas;
	g->replicas = (int32_t)replicas;
	*num_gpu = (int32_t)count;
	return 0;
}

/* --- MIG mixed strategy ------------------------------------------------------------------ */

struct mig_req {
	int prof;
	int64_t n;
};

/* Whether every GPU's layout can be created (gs_mig_layout_parse() on a scratch GPU). */
static bool layouts_ok(const struct gs_mig_table *t, char layout[][GS_SHARE_LAYOUT_MAX], int n)
{
	struct gs_mig_gpu g;
	char msg[160];
	int i;

	for (i = 0; i < n; i++) {
		gs_mig_gpu_init(&g);
		if (!layout[i][0] || gs_mig_layout_parse(t, layout[i], &g, msg, sizeof(msg)))
			return false;
	}
	return true;
}

static void layout_add(char *layout, const char *name)
{
	if (layout[0])
		strncat(layout, "+", GS_SHARE_LAYOUT_MAX - strlen(layout) - 1);
	strncat(layout, name, GS_SHARE_LAYOUT_MAX - strlen(layout) - 1);
}

/*
 * Spreads the node's MIG instances over m GPUs, the way mig-parted's
 * configurations apply one layout to every GPU: largest profile first,
 * instance k of all on GPU k mod m. Fills layout[0..m-1]; false when a
 * GPU's share does not fit its geometry.
 */
static bool mig_spread(const struct gs_mig_table *t, struct mig_req *req, int n_req, int m,
		       char layout[][GS_SHARE_LAYOUT_MAX])
{
	int i, g, next = 0;
	int64_t k;

	for (g = 0; g < m; g++)
		layout[g][0] = '\0';
	for (i = 0; i < n_req; i++)
		for (k = 0; k < req[i].n; k++)
			layout_add(layout[next++ % m], t->p[req[i].prof].name);
	return layouts_ok(t, layout, m);
}

/*
 * Lays the node's MIG instances out on its MIG GPUs: max of them when the
 * nvidia.com/gpu.count label says how many, else the fewest that hold
 * them. Returns 0 and *n_gpus, or GS_EPARSE.
 */
static int mig_pack(struct gs_k8s_bctx *b, const struct gs_k8s_node *n,
		    const struct gs_mig_table *t, struct mig_req *req, int n_req, int max_gpus,
		    bool exact, char layout[][GS_SHARE_LAYOUT_MAX], int *n_gpus)
{
	int i, k, m;

	/* Largest profile first: by memory slices, then compute slices. */
	for (i = 1; i < n_req; i++)
		for (k = i; k > 0 && (t->p[req[k].prof].mem_slices > t->p[req[k - 1].prof].mem_slices ||
				      (t->p[req[k].prof].mem_slices ==
					       t->p[req[k - 1].prof].mem_slices &&
				       t->p[req[k].prof].compute > t->p[req[k - 1].prof].compute));
		     k--) {
			struct mig_req tmp = req[k];

			req[k] = req[k - 1];
			req[k - 1] = tmp;
		}
	for (m = exact ? max_gpus : 1; m <= max_gpus; m++)
		if (mig_spread(t, req, n_req, m, layout)) {
			*n_gpus = m;
			return 0;
		}
	return GS_K8S_BERR(b, &n->o, "status.allocatable", "its MIG instances cannot be laid out "
			   "on %d %s GPUs", max_gpus, t->product);
}

static int mig_node(struct gs_k8s_bctx *b, int32_t node, int model, int64_t whole_gpus,
		    struct gs_share_cfg *cfg, int32_t *num_gpu)
{
	const struct gs_k8s_node *n = &b->s->nodes[node];
	struct gs_k8s_node_gpu *g = &b->st->nodes[node];
	const struct gs_mig_table *t = gs_mig_table_for_model(b->c->models.m[model].name);
	char layout[GS_MAX_GPUS][GS_SHARE_LAYOUT_MAX];
	struct mig_req req[GS_MIG_MAX_PROFILES];
	int64_t count = label_int(n, "nvidia.com/gpu.count"), room;
	int n_req = 0, n_mig = 0, max, i, rc;
	const char *strategy = gs_k8s_node_label(n, "nvidia.com/mig.strategy");

	if (strategy && strcmp(strategy, "single") == 0)
		return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/mig.strategy]", "the single "
				   "strategy is not supported (its nvidia.com/gpu means a MIG "
				   "instance); use the mixed strategy");
	if (!t)
		return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/gpu.product]", "MIG "
				   "resources on %s, a GPU gpusim has no MIG profile table for "
				   "(A100 40GB and 80GB, H100 80GB, H200)",
				   b->c->models.m[model].name);
	for (i = 0; i < n->n_ext; i++) {
		const char *name = n->ext[i].name;
		int64_t k;
		int p;

		if (strncmp(name, "nvidia.com/mig-", 15) != 0 || gs_quantity_is_zero(&n->ext[i].q))
			continue;
		p = gs_mig_profile_find(t, name + 15);
		if (p < 0)
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "%s: '%s' is not a MIG "
					   "profile of %s", name, name + 15, t->product);
		if (!whole(&n->ext[i].q, &k))
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "%s is not a whole number",
					   name);
		req[n_req].prof = p;
		req[n_req++].n = k;
	}
	max = (int)(count > 0 ? count - whole_gpus : GS_MAX_GPUS - whole_gpus);
	if (max < 1)
		return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/gpu.count]", "%lld GPUs "
				   "leave none for the MIG instances beside %lld whole GPUs",
				   (long long)count, (long long)whole_gpus);
	if (max > GS_MAX_GPUS)
		max = GS_MAX_GPUS;
	/* A GPU holds at most one instance per compute slice: more cannot be laid out, nor tried. */
	room = (int64_t)max * GS_MIG_MAX_INSTANCES;
	for (i = 0; i < n_req; room -= req[i++].n)
		if (req[i].n > room)
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "its MIG instances "
					   "cannot be laid out on %d %s GPUs (at most %d each)", max,
					   t->product, GS_MIG_MAX_INSTANCES);
	if ((rc = mig_pack(b, n, t, req, n_req, max, count > 0, layout, &n_mig)))
		return rc;
	if (whole_gpus + n_mig > GS_MAX_GPUS)
		return GS_K8S_BERR(b, &n->o, "status.allocatable", "more than %d GPUs",
				   GS_MAX_GPUS);
	for (i = 0; i < whole_gpus; i++)
		gs_share_cfg_init(&cfg[i], GS_SHARE_EXCLUSIVE);
	for (i = 0; i < n_mig; i++) {
		gs_share_cfg_init(&cfg[whole_gpus + i], GS_SHARE_MIG);
		memcpy(cfg[whole_gpus + i].layout, layout[i], GS_SHARE_LAYOUT_MAX);
	}
	g->source = gs_k8s_node_label(n, "nvidia.com/mig.config");
	*num_gpu = (int32_t)(whole_gpus + n_mig);
	return 0;
}

/* --- HAMi ---------------------------------------------------------------------------- */

/* Parses hami.io/node-nvidia-register: healthy devices, their type and memory. */
static int hami_node(struct gs_k8s_bctx *b, int32_t node, const char **type, int64_t *mem_mib,
		     int32_t *num_gpu)
{
	const struct gs_k8s_node *n = &b->s->nodes[node];
	const char *p = n->hami_register, *field = "metadata.annotations[hami.io/node-nvidia-register]";
	int32_t count = 0;

	*type = NULL;
	*mem_mib = 0;
	while (*p) {
		char dev[512], *f[8], *save = NULL, *tok;
		size_t len = strcspn(p, ":");
		int nf = 0;
		int64_t mem;

		if (len >= sizeof(dev))
			return GS_K8S_BERR(b, &n->o, field, "an entry longer than %d characters",
					   (int)sizeof(dev) - 1);
		memcpy(dev, p, len);
		dev[len] = '\0';
		p += len + (p[len] == ':');
		if (!len)
			continue;
		for (tok = strtok_r(dev, ",", &save); tok && nf < 8; tok = strtok_r(NULL, ",", &save))
			f[nf++] = tok;
		if (nf < 5)
			return GS_K8S_BERR(b, &n->o, field, "'%s': an entry is "
					   "uuid,count,memory,cores,type[,numa,healthy]", f[0]);
		mem = strtoll(f[2], NULL, 10);
		if (mem <= 0)
			return GS_K8S_BERR(b, &n->o, field, "device %s: memory '%s' is not a number of "
					   "MiB", f[0], f[2]);
		if (nf >= 7 && strcmp(f[6], "false") == 0)
			continue;
		if (*type && strcmp(*type, f[4]) != 0)
			return GS_K8S_BERR(b, &n->o, field, "GPUs of two types (%s and %s) on one node",
					   *type, f[4]);
		if (!*type && !(*type = gs_strpool_get((struct gs_strpool *)&b->s->pool, f[4])))
			return gs_k8s_boom(b);
		if (mem > *mem_mib)
			*mem_mib = mem;
		if (++count > GS_MAX_GPUS)
			return GS_K8S_BERR(b, &n->o, field, "more than %d GPUs", GS_MAX_GPUS);
	}
	*num_gpu = count;
	return 0;
}

/* --- nodes --------------------------------------------------------------------------- */

/* Extended resource q of node n as a whole number (0 when absent); -1 when fractional. */
static int64_t node_count(const struct gs_k8s_node *n, const char *name)
{
	const struct gs_quantity *q = gs_k8s_node_ext(n, name);
	int64_t v = 0;

	if (q && !whole(q, &v))
		return -1;
	return v;
}

static bool has_mig_resources(const struct gs_k8s_node *n)
{
	int32_t i;

	for (i = 0; i < n->n_ext; i++)
		if (strncmp(n->ext[i].name, "nvidia.com/mig-", 15) == 0 &&
		    !gs_quantity_is_zero(&n->ext[i].q))
			return true;
	return false;
}

/* The name of the plugin's GPU resource on n: nvidia.com/gpu, .shared or a rename. */
static const char *plugin_resource(const struct gs_k8s_snapshot *s, const struct gs_k8s_node *n)
{
	size_t i;
	int32_t r;

	if (node_count(n, "nvidia.com/gpu"))
		return "nvidia.com/gpu";
	if (node_count(n, "nvidia.com/gpu.shared"))
		return "nvidia.com/gpu.shared";
	for (i = 0; i < s->n_plugin_configs; i++)
		for (r = 0; r < s->plugin_configs[i].n; r++)
			if (s->plugin_configs[i].renames[r] &&
			    node_count(n, s->plugin_configs[i].renames[r]))
				return s->plugin_configs[i].renames[r];
	return NULL;
}

static int add_node(struct gs_k8s_bctx *b, int32_t node)
{
	const struct gs_k8s_node *n = &b->s->nodes[node];
	struct gs_k8s_node_gpu *g = &b->st->nodes[node];
	struct gs_share_cfg cfg[GS_MAX_GPUS];
	const char *product = gs_k8s_node_label(n, "nvidia.com/gpu.product");
	int64_t mem = label_int(n, "nvidia.com/gpu.memory"), whole_gpus;
	int32_t num_gpu = 0, i, units = 0;
	int model = -1, rc;
	char msg[256];
	const char *res;

	g->replicas = 1;
	if (mem == -2)
		return GS_K8S_BERR(b, &n->o, "metadata.labels[nvidia.com/gpu.memory]", "is not a "
				   "whole number of MiB");
	if (b->st->dra) {
		const char *prod[GS_MAX_GPUS];
		int64_t umem[GS_MAX_GPUS];

		units = gs_dra_units(b->st->dra, node, prod, umem, GS_MAX_GPUS);
		if (units) {
			g->kind = GS_K8S_GPU_DRA;
			g->product = prod[0] ? prod[0] : product;
			for (i = 0; i < units; i++)
				if (umem[i] > mem)
					mem = umem[i];
		}
	}
	res = plugin_resource(b->s, n);
	if (units && (res || has_mig_resources(n) || n->hami_register))
		return GS_K8S_BERR(b, &n->o, "status.allocatable", "GPUs published both by a DRA "
				   "driver and by %s", res ? res : "a device plugin");
	if (units) {
		num_gpu = units;
		for (i = 0; i < num_gpu; i++)
			gs_share_cfg_init(&cfg[i], GS_SHARE_IDEAL);
		g->resource = "resource.k8s.io";
	} else if (n->hami_register) {
		const char *type;

		if ((rc = hami_node(b, node, &type, &mem, &num_gpu)))
			return rc;
		g->kind = GS_K8S_GPU_HAMI;
		g->resource = "nvidia.com/gpu";
		g->product = type;
		product = type;
		for (i = 0; i < num_gpu; i++)
			gs_share_cfg_init(&cfg[i], GS_SHARE_VGPU);
		if (mem > b->st->hami_card_max_mib)
			b->st->hami_card_max_mib = mem;
		if (!b->st->hami_card_min_mib || mem < b->st->hami_card_min_mib)
			b->st->hami_card_min_mib = mem;
	} else if (node_count(n, "aliyun.com/gpu-mem")) {
		int64_t total = node_count(n, "aliyun.com/gpu-mem");
		int64_t count = node_count(n, "aliyun.com/gpu-count");

		if (total < 0 || count <= 0)
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "aliyun.com/gpu-mem needs "
					   "a whole aliyun.com/gpu-count of at least 1 beside it");
		if (count > GS_MAX_GPUS)
			return GS_K8S_BERR(b, &n->o, "status.allocatable[aliyun.com/gpu-count]",
					   "%lld GPUs, more than the %d a gpusim node has",
					   (long long)count, GS_MAX_GPUS);
		g->kind = GS_K8S_GPU_GPUSHARE;
		g->resource = "aliyun.com/gpu-mem";
		num_gpu = (int32_t)count;
		mem = total / count * b->st->gpushare_unit_mib;
		if (mem > b->st->gpushare_card_mib)
			b->st->gpushare_card_mib = mem;
		/*
		 * gpushare schedules by memory and enforces neither memory nor
		 * compute: the pods take turns on the GPU as time-slicing gives
		 * them, which on an H200 and an H100 was 50/50 whatever the pods
		 * asked (results/bench/). That is vgpu's accounting (as asked)
		 * with a limiter that enforces nothing of the asks: accuracy 0.
		 */
		for (i = 0; i < num_gpu; i++) {
			gs_share_cfg_init(&cfg[i], GS_SHARE_VGPU);
			cfg[i].accuracy_milli = 0;
		}
	} else if (has_mig_resources(n)) {
		whole_gpus = node_count(n, "nvidia.com/gpu");
		if (whole_gpus < 0)
			return GS_K8S_BERR(b, &n->o, "status.allocatable[nvidia.com/gpu]", "is not a "
					   "whole number");
		g->kind = GS_K8S_GPU_MIG;
		g->resource = "nvidia.com/mig-*";
		if ((model = model_for(b, product, mem, &n->o)) < 0)
			return model;
		if ((rc = mig_node(b, node, model, whole_gpus, cfg, &num_gpu)))
			return rc;
	} else if (res) {
		int64_t alloc = node_count(n, res);

		if (alloc < 0)
			return GS_K8S_BERR(b, &n->o, "status.allocatable", "%s is not a whole number",
					   res);
		g->kind = GS_K8S_GPU_PLUGIN;
		g->resource = res;
		if ((rc = plugin_node(b, node, res, alloc, &cfg[0], &num_gpu)))
			return rc;
		for (i = 1; i < num_gpu; i++)
			cfg[i] = cfg[0];
	}
	if (g->kind != GS_K8S_GPU_DRA && !g->product)
		g->product = product;
	if (num_gpu && model < 0 && (model = model_for(b, g->product, mem, &n->o)) < 0)
		return model;
	rc = gs_cluster_add_node(b->c, n->o.name, (int32_t)n->cpu_milli, n->mem_mib, num_gpu,
				 num_gpu ? b->c->models.m[model].name : NULL);
	if (rc < 0)
		return GS_K8S_BERR(b, &n->o, "status.allocatable", "gpusim cannot hold this node "
				   "(%s)", gs_strerror(rc));
	for (i = 0; i < num_gpu; i++) {
		rc = gs_cluster_set_share(b->c, node, i, &cfg[i], msg, sizeof(msg));
		if (rc)
			return GS_K8S_BERR(b, &n->o, NULL, "GPU %d: %s", (int)i, msg);
	}
	return 0;
}

/* GiB or MiB: gpushare's unit, decided once for the cluster (no card has 512 GiB). */
static void gpushare_unit(struct gs_k8s_state *st)
{
	size_t i;

	st->gpushare_unit_mib = 1024;
	for (i = 0; i < st->s->n_nodes; i++) {
		const struct gs_k8s_node *n = &st->s->nodes[i];
		int64_t total = node_count(n, "aliyun.com/gpu-mem");
		int64_t count = node_count(n, "aliyun.com/gpu-count");

		if (total > 0 && count > 0 && total / count > 512)
			st->gpushare_unit_mib = 1;
	}
}

/* --- pods ------------------------------------------------------------------------------- */

/* The MIG profile called name in any built-in table, or NULL. */
static const struct gs_mig_profile *mig_profile_named(const char *name)
{
	int i, p;

	for (i = 0; i < gs_mig_table_count(); i++) {
		const struct gs_mig_table *t = gs_mig_table_at(i);

		if ((p = gs_mig_profile_find(t, name)) >= 0)
			return &t->p[p];
	}
	return NULL;
}

int gs_k8s_pod_request(struct gs_k8s_bctx *b, const struct gs_k8s_pod *p, struct gs_pod *out)
{
	struct gs_k8s_state *st = b->st;
	const char *kind = NULL, *field = "spec.containers[].resources";
	int64_t gpus = 0, gpumem = -1, pct = -1, cores = -1, v;
	int32_t i;

	memset(out, 0, sizeof(*out));
	out->cpu_milli = (int32_t)p->cpu_milli;
	out->mem_mib = p->mem_mib;
	out->t_create_s = out->t_delete_s = -1;
	for (i = 0; i < p->n_ext; i++) {
		const char *name = p->ext[i].name;
		const char *this = NULL;

		if (strcmp(name, "nvidia.com/gpumem") == 0 ||
		    strcmp(name, "nvidia.com/gpumem-percentage") == 0 ||
		    strcmp(name, "nvidia.com/gpucores") == 0) {
			if (!whole(&p->ext[i].q, &v))
				return GS_K8S_BERR(b, &p->o, field, "%s is not a whole number", name);
			if (name[15] == 'e')
				gpumem = v;
			else if (name[14] == 'm')
				pct = v;
			else
				cores = v;
			continue;
		}
		if (strcmp(name, "nvidia.com/gpu") == 0 || strcmp(name, "nvidia.com/gpu.shared") == 0)
			this = "gpu";
		else if (strncmp(name, "nvidia.com/mig-", 15) == 0)
			this = name;
		else if (strcmp(name, "aliyun.com/gpu-mem") == 0)
			this = "gpushare";
		else if (strcmp(name, "aliyun.com/gpu-count") == 0)
			continue;
		else {
			size_t k;
			int32_t r;

			/* A resource the device plugin's config renames nvidia.com/gpu to. */
			for (k = 0; k < b->s->n_plugin_configs && !this; k++)
				for (r = 0; r < b->s->plugin_configs[k].n; r++)
					if (b->s->plugin_configs[k].renames[r] &&
					    strcmp(b->s->plugin_configs[k].renames[r], name) == 0)
						this = "gpu";
		}
		if (!this)
			continue;
		if (kind && strcmp(kind, this) != 0)
			return GS_K8S_BERR(b, &p->o, field, "asks for GPUs two ways (%s and %s); "
					   "gpusim models one kind of GPU request per pod",
					   kind[0] == 'n' ? kind : kind, this);
		kind = this;
		if (!whole(&p->ext[i].q, &v) || v < 1 || v > GS_MAX_GPUS * 1024)
			return GS_K8S_BERR(b, &p->o, field, "%s: '%lld%s' is not a whole number of "
					   "GPUs gpusim can place", name, (long long)p->ext[i].q.whole,
					   p->ext[i].q.nano ? " and a fraction" : "");
		gpus = v;
	}
	if ((gpumem >= 0 || pct >= 0 || cores >= 0) && (!kind || strcmp(kind, "gpu") != 0))
		return GS_K8S_BERR(b, &p->o, field, "HAMi's nvidia.com/gpumem, gpumem-percentage and "
				   "gpucores go with nvidia.com/gpu");
	if (!kind)
		return 0;
	if (strcmp(kind, "gpushare") == 0) {
		int64_t card = st->gpushare_card_mib;

		out->num_gpu = 1;
		out->gpu_mem_mib = gpus * st->gpushare_unit_mib;
		out->gpu_milli = card > 0 ? (int32_t)((out->gpu_mem_mib * 1000 + card - 1) / card)
					  : 1000;
		if (out->gpu_milli > 1000 || out->gpu_milli < 1)
			out->gpu_milli = out->gpu_milli < 1 ? 1 : 1000;
		return 0;
	}
	if (gpus > GS_MAX_GPUS)
		return GS_K8S_BERR(b, &p->o, field, "%lld GPUs, more than a gpusim node has (%d)",
				   (long long)gpus, GS_MAX_GPUS);
	out->num_gpu = (int32_t)gpus;
	out->gpu_milli = GS_MILLI_PER_GPU;
	if (strncmp(kind, "nvidia.com/mig-", 15) == 0) {
		const struct gs_mig_profile *mp = mig_profile_named(kind + 15);

		if (!mp)
			return GS_K8S_BERR(b, &p->o, field, "%s: '%s' is not a MIG profile gpusim knows",
					   kind, kind + 15);
		out->gpu_milli = gs_mig_profile_milli(mp);
		out->gpu_mem_mib = mp->mem_mib;
	} else if (gpumem >= 0 || pct >= 0 || cores >= 0) {
		/* HAMi: memory per vGPU and a share of the GPU's compute. */
		if (cores > 100 || pct > 100)
			return GS_K8S_BERR(b, &p->o, field, "HAMi's gpucores and gpumem-percentage "
					   "are percentages (0 to 100)");
		if (gpumem >= 0)
			out->gpu_mem_mib = gpumem;
		else if (pct >= 0)
			out->gpu_mem_mib = st->hami_card_min_mib * pct / 100;
		if (cores > 0)
			out->gpu_milli = (int32_t)(cores * 10);
		else if (gpumem >= 0 && st->hami_card_max_mib > 0)
			out->gpu_milli = (int32_t)((gpumem * 1000 + st->hami_card_max_mib - 1) /
						   st->hami_card_max_mib);
		else if (pct >= 0)
			out->gpu_milli = (int32_t)(pct * 10);
		if (out->gpu_milli < 1)
			out->gpu_milli = 1;
		if (out->gpu_milli > GS_MILLI_PER_GPU)
			out->gpu_milli = GS_MILLI_PER_GPU;
	}
	/* MIG instances and HAMi vGPUs: several of less than a GPU would share GPUs among them. */
	if (gpus > 1 && out->gpu_milli < GS_MILLI_PER_GPU)
		return GS_K8S_BERR(b, &p->o, field, "%s: %lld %s of less than a whole GPU each: "
				   "gpusim shares a GPU with one-GPU pods only (one per pod, or a "
				   "whole GPU each)", kind[0] == 'g' ? "nvidia.com/gpu" : kind,
				   (long long)gpus, kind[0] == 'g' ? "vGPUs" : "instances");
	return 0;
}

/* --- the starting state ----------------------------------------------------------------- */

/* GPUs for a running pod on node, as the allocator would choose them; -1 when it does not fit. */
static int pick_gpus(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
		     struct gs_placement *pl)
{
	const struct gs_node *n = &c->nodes[node];
	struct gs_pod tmp;
	const struct gs_pod *e;
	int32_t i, best = -1;

	memset(pl, 0, sizeof(*pl));
	pl->node = node;
	if (gs_cluster_fits(c, node, p) != GS_FIT_OK)
		return -1;
	if (gs_pod_cpu_only(p))
		return 0;
	if (c->share && gs_cluster_share_picks(c, node)) {
		gs_cluster_share_pick(c, node, p, pl);
		return 0;
	}
	e = c->share ? gs_cluster_node_pod(c, node, p, &tmp) : p;
	pl->num_gpu = p->num_gpu;
	if (p->num_gpu == 1) {
		/* The fitting GPU with the least room, as gpusim's allocator prefers. */
		for (i = 0; i < n->num_gpu; i++)
			if (n->gpu_free_milli[i] >= e->gpu_milli &&
			    n->gpu_mem_free_mib[i] >= e->gpu_mem_mib &&
			    (best < 0 || n->gpu_free_milli[i] < n->gpu_free_milli[best]))
				best = i;
		if (best < 0)
			return -1;
		pl->gpu[0] = (uint8_t)best;
		return 0;
	}
	pl->num_gpu = 0;
	for (i = 0; i < n->num_gpu && pl->num_gpu < p->num_gpu; i++)
		if (n->gpu_free_milli[i] >= e->gpu_milli && n->gpu_mem_free_mib[i] >= e->gpu_mem_mib)
			pl->gpu[pl->num_gpu++] = (uint8_t)i;
	return pl->num_gpu == p->num_gpu ? 0 : -1;
}

static int bind_running(struct gs_k8s_bctx *b)
{
	const struct gs_k8s_snapshot *s = b->s;
	struct gs_k8s_state *st = b->st;
	size_t i;

	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];
		struct gs_pod *req = &st->req[i];
		int32_t node;
		int rc;

		if (st->role[i] != GS_K8S_ROLE_RUNNING)
			continue;
		node = gs_k8s_snapshot_node_at(s, p->node_name);
		if (pick_gpus(b->c, node, req, &st->pl[i])) {
			char why[160];

			snprintf(why, sizeof(why), "%s", gs_fit_str(gs_cluster_fits(b->c, node, req)));
			return GS_K8S_BERR(b, &p->o, "spec.nodeName", "node %s has no room for it in "
					   "gpusim's accounting (%s): the snapshot holds more than "
					   "its nodes allocate", p->node_name, why);
		}
		rc = gs_cluster_bind(b->c, req, &st->pl[i]);
		if (rc)
			return GS_K8S_BERR(b, &p->o, "spec.nodeName", "cannot be bound on node %s "
					   "(%s)", p->node_name, gs_strerror(rc));
		st->n_running++;
	}
	return 0;
}

/* --- the queue ------------------------------------------------------------------------------ */

static int build_queue(struct gs_k8s_bctx *b, struct gs_trace *queue)
{
	const struct gs_k8s_snapshot *s = b->s;
	struct gs_k8s_state *st = b->st;
	size_t i;
	int32_t k;

	st->queue = malloc((s->n_pods ? s->n_pods : 1) * sizeof(*st->queue));
	if (!st->queue)
		return gs_k8s_boom(b);
	st->t0_s = -1;
	for (i = 0; i < s->n_pods; i++)
		if (st->role[i] == GS_K8S_ROLE_QUEUED && s->pods[i].t_create_s >= 0 &&
		    (st->t0_s < 0 || s->pods[i].t_create_s < st->t0_s))
			st->t0_s = s->pods[i].t_create_s;
	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];
		struct gs_pod q;
		char name[600];
		int rc;

		if (st->role[i] != GS_K8S_ROLE_QUEUED)
			continue;
		q = st->req[i];
		q.t_create_s = p->t_create_s >= 0 ? p->t_create_s - st->t0_s : 0;
		if (q.t_create_s > GS_TIME_MAX_S)
			return GS_K8S_BERR(b, &p->o, "metadata.creationTimestamp", "too far after the "
					   "first pending pod");
		q.t_delete_s = -1;
		snprintf(name, sizeof(name), "%s/%s", p->o.ns, p->o.name);
		if ((rc = gs_trace_append(queue, name, &q)))
			return gs_k8s_boom(b);
		st->queue[st->n_queue++] = (int32_t)i;
	}
	/* Pods that fit on no node even in the empty cluster, as the trace readers count them. */
	for (i = 0; i < queue->n_pods; i++) {
		bool any = false;

		for (k = 0; k < b->c->n_nodes && !any; k++)
			any = gs_cluster_fits(b->c, k, &queue->pods[i]) == GS_FIT_OK;
		if (!any)
			queue->audit.larger_than_any_node++;
		if (queue->pods[i].t_delete_s < 0)
			queue->audit.no_deletion_time++;
	}
	queue->format = "kubernetes";
	return 0;
}

/* --- the whole ------------------------------------------------------------------------------- */

void gs_k8s_state_free(struct gs_k8s_state *st)
{
	int32_t i;

	if (!st)
		return;
	GS_MEM_FREE(st->nodes, st->role, st->req, st->pl, st->queue, st->node_group, st->ok,
		    st->claims);
	for (i = 0; i < st->n_sel; i++)
		free(st->sel_key[i]);
	free(st->sel_key);
	gs_dra_free(st->dra);
	free(st);
}

const struct gs_dra_state *gs_k8s_dra_state(const struct gs_k8s_state *st,
					    const struct gs_cluster *c)
{
	return st->dra && c->dev_ops == &gs_dra_ops ? c->dev_state : NULL;
}

/* Which pods run, which wait, which are done; and each one's request. */
static int classify_pods(struct gs_k8s_bctx *b)
{
	const struct gs_k8s_snapshot *s = b->s;
	struct gs_k8s_state *st = b->st;
	size_t i;
	int rc;

	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];

		if (p->phase == GS_K8S_PHASE_SUCCEEDED || p->phase == GS_K8S_PHASE_FAILED)
			st->role[i] = GS_K8S_ROLE_FINISHED;
		else if (p->node_name)
			st->role[i] = GS_K8S_ROLE_RUNNING;
		else
			st->role[i] = GS_K8S_ROLE_QUEUED;
		if (st->role[i] == GS_K8S_ROLE_FINISHED)
			continue;
		if ((rc = gs_k8s_pod_request(b, p, &st->req[i])))
			return rc;
		/* The allocator's own rule is the last word; the request's checks explain it. */
		if (!gs_pod_valid(&st->req[i]))
			return GS_K8S_BERR(b, &p->o, "spec.containers[].resources", "the allocator "
					   "refuses this request (%d GPUs of %d milli, %lld MiB)",
					   st->req[i].num_gpu, st->req[i].gpu_milli,
					   (long long)st->req[i].gpu_mem_mib);
		if (st->role[i] == GS_K8S_ROLE_QUEUED && p->unsupported) {
			char what[400];

			snprintf(what, sizeof(what), "%s", p->unsupported);
			return GS_K8S_BERR(b, &p->o, NULL, "%s (the pod is pending, so gpusim would "
					   "have to place it)", what);
		}
	}
	return 0;
}

int gs_k8s_build(const struct gs_k8s_snapshot *s, struct gs_cluster *c, struct gs_trace *queue,
		 struct gs_k8s_state **state_out, char *err, size_t err_len)
{
	struct gs_k8s_bctx b = { .s = s, .c = c, .err = err, .err_len = err_len };
	struct gs_k8s_state *st;
	size_t i;
	int rc;

	*state_out = NULL;
	if (!s->finished || c->n_nodes || queue->n_pods) {
		gs_errf(err, err_len, "gs_k8s_build: an unfinished snapshot or a non-empty cluster");
		return GS_EINVAL;
	}
	st = b.st = calloc(1, sizeof(*st));
	if (!st)
		return gs_k8s_boom(&b);
	st->s = s;
	st->nodes = calloc(s->n_nodes, sizeof(*st->nodes));
	st->role = calloc(s->n_pods ? s->n_pods : 1, 1);
	st->req = calloc(s->n_pods ? s->n_pods : 1, sizeof(*st->req));
	st->pl = calloc(s->n_pods ? s->n_pods : 1, sizeof(*st->pl));
	if (!st->nodes || !st->role || !st->req || !st->pl) {
		rc = gs_k8s_boom(&b);
		goto fail;
	}
	if (s->n_slices && (rc = gs_dra_new(s, &st->dra, err, err_len)))
		goto fail;
	gpushare_unit(st);
	for (i = 0; i < s->n_nodes; i++)
		if ((rc = add_node(&b, (int32_t)i)))
			goto fail;
	if ((rc = classify_pods(&b)) || (rc = gs_k8s_select_build(&b)) || (rc = bind_running(&b)) ||
	    (rc = build_queue(&b, queue)))
		goto fail;
	*state_out = st;
	return 0;
fail:
	gs_k8s_state_free(st);
	gs_cluster_release(c);
	gs_trace_release(queue);
	gs_trace_init(queue);
	return rc;
}

int gs_k8s_load(const char *const *paths, size_t n, struct gs_k8s_snapshot **snap_out,
		struct gs_cluster *c, struct gs_trace *queue, struct gs_k8s_state **state_out,
		char *err, size_t err_len)
{
	struct gs_k8s_snapshot *s = gs_k8s_snapshot_new();
	size_t i;
	int rc = 0;

	*snap_out = NULL;
	*state_out = NULL;
	if (!s)
		return gs_errf_nomem(err, err_len);
	for (i = 0; i < n && !rc; i++)
		rc = gs_k8s_snapshot_read(s, paths[i], err, err_len);
	if (!rc)
		rc = gs_k8s_snapshot_finish(s, err, err_len);
	if (!rc)
		rc = gs_k8s_build(s, c, queue, state_out, err, err_len);
	if (rc) {
		gs_k8s_snapshot_free(s);
		return rc;
	}
	*snap_out = s;
	return 0;
}

int gs_k8s_queue_add(struct gs_k8s_state *st, struct gs_cluster *c, struct gs_trace *queue,
		     struct gs_trace *extra, char *err, size_t err_len)
{
	size_t i;
	int32_t k;
	int rc = gs_k8s_select_trace(st, c, extra, err, err_len);

	for (i = 0; i < extra->n_pods && !rc; i++) {
		struct gs_pod p = extra->pods[i];
		bool any = false;

		/* The extra trace's workload classes, renumbered in the queue's table. */
		if (p.wclass > 0) {
			int cls = gs_trace_class(queue, gs_trace_class_name(extra, p.wclass));

			if (cls < 0) {
				gs_errf(err, err_len, "%s: more than %d workload classes with the "
					"snapshot's", extra->path, GS_MAX_CLASSES);
				return cls;
			}
			p.wclass = (int16_t)cls;
		}
		rc = gs_trace_append_spec(queue, extra->pod_names[i], &p,
					  extra->pod_specs ? extra->pod_specs[i] : NULL);
		/* Fits nowhere once Kubernetes' rules apply: counted as the trace readers count. */
		for (k = 0; k < c->n_nodes && !any; k++)
			any = gs_cluster_fits(c, k, &p) == GS_FIT_OK;
		queue->audit.larger_than_any_node += !any;
	}
	if (rc)
		return gs_errf_nomem(err, err_len);
	queue->audit.deleted_before_created += extra->audit.deleted_before_created;
	queue->audit.no_deletion_time += extra->audit.no_deletion_time;
	queue->audit.unknown_model += extra->audit.unknown_model;
	return 0;
}
