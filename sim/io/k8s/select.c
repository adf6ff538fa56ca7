/* SPDX-License-Identifier: Apache-2.0 */
/*
 * select.c - which nodes a pod may use, as kube-scheduler's filters other
 * than resources decide it: NodeUnschedulable (a cordoned node), taints
 * and tolerations (NoSchedule and NoExecute; PreferNoSchedule only
 * scores), nodeSelector and the required node affinity (In, NotIn,
 * Exists, DoesNotExist, Gt, Lt), and the extended resources a pod asks
 * for, which only nodes that publish them can give.
 *
 * Nodes are grouped by what these rules look at (the labels pending pods
 * select by, taints, cordon, published resource names, how GPUs are
 * published), pods by what they ask; each (class, group) pair is decided
 * once on one node of the group. The cluster then filters with one table
 * lookup per node (core/cluster_select.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/strbuf.h"
#include "io/k8s/build_internal.h"

/* Ends each piece of a signature: the unit separator is never in a label or a name. */
#define SEP "\x1f"

/* --- matching one pod to one node ---------------------------------------------------------- */

static bool tolerates(const struct gs_k8s_toleration *t, int32_t n, const char *key,
		      const char *value, uint8_t effect)
{
	int32_t i;

	for (i = 0; i < n; i++) {
		if (t[i].effect != GS_K8S_EFFECT_ANY && t[i].effect != effect)
			continue;
		if (*t[i].key && strcmp(t[i].key, key) != 0)
			continue;
		if (!*t[i].key && !t[i].exists)
			continue;
		if (!t[i].exists && strcmp(t[i].value, value) != 0)
			continue;
		return true;
	}
	return false;
}

static bool hard(uint8_t effect)
{
	return effect == GS_K8S_EFFECT_NO_SCHEDULE || effect == GS_K8S_EFFECT_NO_EXECUTE;
}

static bool expr_ok(const struct gs_k8s_expr *x, const struct gs_k8s_node *n)
{
	const char *v = gs_k8s_node_label(n, x->key);
	int32_t i;
	bool in = false;
	char *end;
	long long a, b;

	for (i = 0; v && i < x->n_values; i++)
		in |= strcmp(v, x->values[i]) == 0;
	switch (x->op) {
	case GS_K8S_OP_IN:
		return in;
	case GS_K8S_OP_NOT_IN:
		return !in;
	case GS_K8S_OP_EXISTS:
		return v != NULL;
	case GS_K8S_OP_DOES_NOT_EXIST:
		return v == NULL;
	default:
		if (!v)
			return false;
		a = strtoll(v, &end, 10);
		if (*end || !*v)
			return false;
		b = strtoll(x->values[0], NULL, 10);
		return x->op == GS_K8S_OP_GT ? a > b : a < b;
	}
}

/* Extended resources that are modifiers of another request, not something a node publishes. */
static bool modifier(const char *name)
{
	return strcmp(name, "nvidia.com/gpumem") == 0 ||
	       strcmp(name, "nvidia.com/gpumem-percentage") == 0 ||
	       strcmp(name, "nvidia.com/gpucores") == 0 || strcmp(name, "aliyun.com/gpu-count") == 0;
}

static bool pod_fits_node(const struct gs_k8s_pod *p, const struct gs_k8s_node *n)
{
	int32_t i, t, e;

	if (n->unschedulable && !tolerates(p->tolerations, p->n_tolerations,
					   "node.kubernetes.io/unschedulable", "",
					   GS_K8S_EFFECT_NO_SCHEDULE))
		return false;
	for (i = 0; i < n->n_taints; i++)
		if (hard(n->taints[i].effect) &&
		    !tolerates(p->tolerations, p->n_tolerations, n->taints[i].key,
			       n->taints[i].value, n->taints[i].effect))
			return false;
	for (i = 0; i < p->n_node_selector; i++) {
		const char *v = gs_k8s_node_label(n, p->node_selector[i].key);

		if (!v || strcmp(v, p->node_selector[i].value) != 0)
			return false;
	}
	if (p->has_affinity) {
		bool any = false;

		for (t = 0; t < p->affinity.n && !any; t++) {
			bool all = true;

			for (e = 0; e < p->affinity.terms[t].n && all; e++)
				all = expr_ok(&p->affinity.terms[t].exprs[e], n);
			/* A term without expressions matches nothing (Kubernetes' rule). */
			any = all && p->affinity.terms[t].n > 0;
		}
		if (!any)
			return false;
	}
	for (i = 0; i < p->n_ext; i++) {
		const struct gs_quantity *q;

		if (modifier(p->ext[i].name))
			continue;
		q = gs_k8s_node_ext(n, p->ext[i].name);
		if (!q || gs_quantity_is_zero(q))
			return false;
	}
	return true;
}

/* A pod from a gpusim trace (no tolerations, no selectors): see gs_k8s_select_trace(). */
static bool trace_fits_node(const struct gs_k8s_state *st, int32_t node, bool gpu)
{
	const struct gs_k8s_node *n = &st->s->nodes[node];
	const struct gs_k8s_node_gpu *g = &st->nodes[node];
	int32_t i;

	if (n->unschedulable)
		return false;
	if (gpu && (g->kind == GS_K8S_GPU_NONE || g->kind == GS_K8S_GPU_DRA))
		return false;
	for (i = 0; i < n->n_taints; i++) {
		const char *key = n->taints[i].key;

		if (!hard(n->taints[i].effect))
			continue;
		/* ExtendedResourceToleration: a pod asking for a resource tolerates its taint. */
		if (gpu && (strcmp(key, "nvidia.com/gpu") == 0 || strcmp(key, g->resource) == 0 ||
			    (strncmp(key, "nvidia.com/mig-", 15) == 0 && g->kind == GS_K8S_GPU_MIG) ||
			    strcmp(key, "aliyun.com/gpu-mem") == 0))
			continue;
		return false;
	}
	return true;
}

/* --- groups and classes ------------------------------------------------------------------ */

struct table {
	char **key;
	int32_t *id;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The id of key in t, or -1 with *slot where it would go. Grows t first when half full. */
static int32_t table_find(struct table *t, const char *key, size_t *slot)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64, k;
		char **nk = calloc(cap, sizeof(*nk));
		int32_t *ni = calloc(cap, sizeof(*ni));

		if (!nk || !ni) {
			free(nk);
			free(ni);
			return -2;
		}
		for (k = 0; k < t->cap; k++) {
			if (!t->key[k])
				continue;
			for (i = hash_str(t->key[k]) & (cap - 1); nk[i]; i = (i + 1) & (cap - 1))
				;
			nk[i] = t->key[k];
			ni[i] = t->id[k];
		}
		free(t->key);
		free(t->id);
		t->key = nk;
		t->id = ni;
		t->cap = cap;
	}
	for (i = hash_str(key) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (strcmp(t->key[i], key) == 0)
			return t->id[i];
	*slot = i;
	return -1;
}

static void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->key[i]);
	free(t->key);
	free(t->id);
}

/* The label keys pending pods select by, and the resource names they ask for. */
struct wanted {
	struct table keys, res;
};

static int want(struct table *t, const char *name)
{
	size_t slot;
	int32_t id = table_find(t, name, &slot);

	if (id == -2)
		return GS_ENOMEM;
	if (id >= 0)
		return 0;
	if (!(t->key[slot] = strdup(name)))
		return GS_ENOMEM;
	t->id[slot] = (int32_t)t->n++;
	return 0;
}

static int collect_wanted(struct gs_k8s_bctx *b, struct wanted *w)
{
	const struct gs_k8s_snapshot *s = b->s;
	size_t i;
	int32_t k, t, e;
	int rc = 0;

	for (i = 0; i < s->n_pods && !rc; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];

		if (b->st->role[i] != GS_K8S_ROLE_QUEUED)
			continue;
		for (k = 0; k < p->n_node_selector && !rc; k++)
			rc = want(&w->keys, p->node_selector[k].key);
		for (t = 0; t < p->affinity.n && !rc; t++)
			for (e = 0; e < p->affinity.terms[t].n && !rc; e++)
				rc = want(&w->keys, p->affinity.terms[t].exprs[e].key);
		for (k = 0; k < p->n_ext && !rc; k++)
			rc = want(&w->res, p->ext[k].name);
	}
	return rc;
}

/* A node's signature: everything the rules look at. */
static void node_sig(const struct gs_k8s_state *st, int32_t node, const struct wanted *w,
		     struct gs_strbuf *sb)
{
	const struct gs_k8s_node *n = &st->s->nodes[node];
	size_t k;
	int32_t i;

	gs_strbuf_reset(sb);
	gs_strbuf_addf(sb, "%d%s" SEP, (int)st->nodes[node].kind, n->unschedulable ? "u" : "");
	for (i = 0; i < n->n_taints; i++)
		gs_strbuf_addf(sb, "t%s=%s:%d" SEP, n->taints[i].key, n->taints[i].value,
			       (int)n->taints[i].effect);
	for (k = 0; k < w->keys.cap; k++) {
		const char *v;

		if (!w->keys.key[k])
			continue;
		v = gs_k8s_node_label(n, w->keys.key[k]);
		gs_strbuf_addf(sb, "l%d=%s%s" SEP, (int)w->keys.id[k], v ? "" : "!", v ? v : "");
	}
	for (k = 0; k < w->res.cap; k++) {
		const struct gs_quantity *q;

		if (!w->res.key[k])
			continue;
		q = gs_k8s_node_ext(n, w->res.key[k]);
		if (q && !gs_quantity_is_zero(q))
			gs_strbuf_addf(sb, "r%d" SEP, (int)w->res.id[k]);
	}
}

/* A pod's selection key: what it selects by and the claim set it needs. */
static void pod_sig(const struct gs_k8s_pod *p, int32_t set, struct gs_strbuf *sb)
{
	int32_t i, t, e, v;

	gs_strbuf_reset(sb);
	gs_strbuf_addf(sb, "c%d" SEP, (int)set);
	for (i = 0; i < p->n_node_selector; i++)
		gs_strbuf_addf(sb, "s%s=%s" SEP, p->node_selector[i].key,
			       p->node_selector[i].value);
	for (t = 0; t < p->affinity.n; t++) {
		gs_strbuf_addf(sb, "|" SEP);
		for (e = 0; e < p->affinity.terms[t].n; e++) {
			const struct gs_k8s_expr *x = &p->affinity.terms[t].exprs[e];

			gs_strbuf_addf(sb, "a%s:%d" SEP, x->key, (int)x->op);
			for (v = 0; v < x->n_values; v++)
				gs_strbuf_addf(sb, "%s" SEP, x->values[v]);
		}
	}
	for (i = 0; i < p->n_tolerations; i++) {
		const struct gs_k8s_toleration *o = &p->tolerations[i];

		gs_strbuf_addf(sb, "o%s=%s:%d%s" SEP, o->key, o->value, (int)o->effect,
			       o->exists ? "e" : "");
	}
	for (i = 0; i < p->n_ext; i++)
		gs_strbuf_addf(sb, "%s" SEP, p->ext[i].name);
}

/* Adds a class whose row is filled by fill(); returns its number, or a negative GS_E*. */
static int32_t add_class(struct gs_k8s_state *st, const char *key, int32_t claims)
{
	size_t cells;
	int32_t k = st->n_sel;

	if (st->n_sel > UINT16_MAX)
		return GS_ERANGE;
	if (st->n_sel == st->cap_sel) {
		int32_t cap = st->cap_sel ? st->cap_sel * 2 : 64;

		if (GS_GROW_RESIZE(st->ok, (size_t)cap * (size_t)st->n_groups) ||
		    GS_GROW_RESIZE(st->claims, (size_t)cap) ||
		    GS_GROW_RESIZE(st->sel_key, (size_t)cap))
			return GS_ENOMEM;
		st->cap_sel = cap;
	}
	cells = (size_t)st->n_groups;
	memset(st->ok + (size_t)k * cells, 0, cells);
	st->claims[k] = claims;
	if (!(st->sel_key[k] = strdup(key)))
		return GS_ENOMEM;
	st->n_sel++;
	return k;
}

static int push_select(struct gs_k8s_bctx *b)
{
	struct gs_k8s_state *st = b->st;
	int rc = gs_cluster_set_select(b->c, st->node_group, st->n_groups, st->ok, st->claims,
				       st->n_sel);

	if (rc == GS_ENOMEM)
		return gs_k8s_boom(b);
	if (rc) {
		gs_errf(b->err, b->err_len, "the cluster refused the node selection (%s)",
			gs_strerror(rc));
		return rc;
	}
	return 0;
}

/* The claim set of pod p (0 without claims), registered with the allocator. */
static int32_t claim_set(struct gs_k8s_bctx *b, const struct gs_k8s_pod *p)
{
	int32_t idx[64], i;

	if (!p->n_claims || !b->st->dra)
		return 0;
	if (p->n_claims > 64)
		return GS_K8S_BERR(b, &p->o, "spec.resourceClaims", "more than 64 claims");
	for (i = 0; i < p->n_claims; i++)
		idx[i] = gs_dra_claim_index(b->st->dra, p->claims[i].c);
	return gs_dra_claim_set(b->st->dra, idx, p->n_claims);
}

int gs_k8s_select_build(struct gs_k8s_bctx *b)
{
	const struct gs_k8s_snapshot *s = b->s;
	struct gs_k8s_state *st = b->st;
	struct wanted w;
	struct table groups, classes;
	struct gs_strbuf sb;
	int32_t *rep = NULL, g;
	size_t i, slot;
	int rc;

	memset(&w, 0, sizeof(w));
	memset(&groups, 0, sizeof(groups));
	memset(&classes, 0, sizeof(classes));
	memset(&sb, 0, sizeof(sb));
	st->node_group = calloc(s->n_nodes, sizeof(*st->node_group));
	rep = calloc(s->n_nodes, sizeof(*rep));
	if (!st->node_group || !rep || (rc = collect_wanted(b, &w))) {
		rc = gs_k8s_boom(b);
		goto out;
	}
	/* Node groups by signature. */
	for (i = 0; i < s->n_nodes; i++) {
		node_sig(st, (int32_t)i, &w, &sb);
		if (sb.oom || (g = table_find(&groups, sb.s, &slot)) == -2) {
			rc = gs_k8s_boom(b);
			goto out;
		}
		if (g < 0) {
			if (!(groups.key[slot] = strdup(sb.s))) {
				rc = gs_k8s_boom(b);
				goto out;
			}
			g = groups.id[slot] = (int32_t)groups.n++;
			rep[g] = (int32_t)i;
		}
		st->node_group[i] = g;
	}
	st->n_groups = (int32_t)groups.n;
	/* Class 0 (any node), then gpusim traces' GPU and CPU pods. */
	if ((rc = add_class(st, "any", 0)) < 0 || (rc = add_class(st, "trace-gpu", 0)) < 0 ||
	    (rc = add_class(st, "trace-cpu", 0)) < 0)
		goto range;
	st->sel_trace_gpu = 1;
	st->sel_trace_cpu = 2;
	for (g = 0; g < st->n_groups; g++) {
		st->ok[(size_t)1 * (size_t)st->n_groups + (size_t)g] = trace_fits_node(st, rep[g], true);
		st->ok[(size_t)2 * (size_t)st->n_groups + (size_t)g] = trace_fits_node(st, rep[g], false);
	}
	/* Pods: running ones may stay where they are (with their claims); pending ones select. */
	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];
		int32_t set, k;

		if (st->role[i] == GS_K8S_ROLE_FINISHED)
			continue;
		set = claim_set(b, p);
		if (set < 0) {
			rc = set == GS_ENOMEM ? gs_k8s_boom(b) : set;
			goto out;
		}
		if (st->role[i] == GS_K8S_ROLE_RUNNING) {
			if (!set)
				continue;
			gs_strbuf_reset(&sb);
			gs_strbuf_addf(&sb, "running c%d" SEP, (int)set);
		} else {
			pod_sig(p, set, &sb);
		}
		if (sb.oom || (k = table_find(&classes, sb.s, &slot)) == -2) {
			rc = gs_k8s_boom(b);
			goto out;
		}
		if (k < 0) {
			if ((k = add_class(st, sb.s, set)) < 0) {
				rc = k;
				goto range;
			}
			if (!(classes.key[slot] = strdup(sb.s))) {
				rc = gs_k8s_boom(b);
				goto out;
			}
			classes.id[slot] = k;
			classes.n++;
			for (g = 0; g < st->n_groups; g++)
				st->ok[(size_t)k * (size_t)st->n_groups + (size_t)g] =
					st->role[i] == GS_K8S_ROLE_RUNNING ||
					pod_fits_node(p, &s->nodes[rep[g]]);
		}
		st->req[i].sel = (uint16_t)k;
	}
	if ((rc = push_select(b)))
		goto out;
	if (st->dra) {
		struct gs_dra_state *ds;

		if ((rc = gs_dra_state_new(st->dra, &ds, b->err, b->err_len)))
			goto out;
		gs_cluster_set_devices(b->c, &gs_dra_ops, ds);
	}
	rc = 0;
	goto out;
range:
	if (rc == GS_ENOMEM) {
		rc = gs_k8s_boom(b);
	} else {
		gs_errf(b->err, b->err_len, "more than %d distinct ways pods select nodes", UINT16_MAX);
		rc = GS_ERANGE;
	}
out:
	free(rep);
	gs_strbuf_release(&sb);
	table_free(&groups);
	table_free(&classes);
	table_free(&w.keys);
	table_free(&w.res);
	return rc;
}

int gs_k8s_select_trace(struct gs_k8s_state *st, struct gs_cluster *c, struct gs_trace *t,
			char *err, size_t err_len)
{
	size_t i;

	(void)c;
	(void)err;
	(void)err_len;
	for (i = 0; i < t->n_pods; i++)
		t->pods[i].sel = (uint16_t)(gs_pod_cpu_only(&t->pods[i]) ? st->sel_trace_cpu
									  : st->sel_trace_gpu);
	return 0;
}
