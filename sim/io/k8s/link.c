/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link.c - gs_k8s_snapshot_finish(): the checks and links that need every
 * object read first. Pods meet their nodes, workloads and claims; claims
 * made from templates are created for pods that have none yet (as the
 * resource claim controller would); requests meet their DeviceClasses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/k8s/snapshot_internal.h"

/* --- duplicates ------------------------------------------------------------------- */

struct named {
	const char *ns, *name;
	const struct gs_k8s_origin *o;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	if (c)
		return c;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* The first in reading order first, so the message names the later copy. */
	return x->o < y->o ? -1 : x->o > y->o;
}

/* Refuses two objects of one kind with one namespace/name. */
static int no_duplicates(struct gs_k8s_rctx *c, const struct gs_k8s_origin *first, size_t n,
			 size_t stride)
{
	struct named *v;
	size_t i;

	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return gs_k8s_oom(c);
	for (i = 0; i < n; i++) {
		const struct gs_k8s_origin *o = (const void *)((const char *)first + i * stride);

		v[i].ns = o->ns ? o->ns : "";
		v[i].name = o->name;
		v[i].o = o;
	}
	qsort(v, n, sizeof(*v), cmp_named);
	for (i = 1; i < n; i++)
		if (strcmp(v[i].ns, v[i - 1].ns) == 0 && strcmp(v[i].name, v[i - 1].name) == 0) {
			char where[300];
			int rc;

			c->o = *v[i].o;
			gs_k8s_origin_format(v[i - 1].o, where, sizeof(where));
			rc = gs_k8s_refuse(c, NULL, GS_K8S_PATH("metadata.name"), "a second %s of "
					   "this name (the first: %s)", v[i].o->kind, where);
			free(v);
			return rc;
		}
	free(v);
	return 0;
}

/* --- indices ----------------------------------------------------------------------- */

struct by_name {
	const char *name;
	int32_t i;
};

static int cmp_by_name(const void *a, const void *b)
{
	const struct by_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Indices of n names sorted by name (into *out, malloc'd). */
static int sort_names(struct gs_k8s_rctx *c, size_t n, const char *(*name_of)(const void *, size_t),
		      const void *arg, int32_t **out)
{
	struct by_name *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i;

	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!v || !*out) {
		free(v);
		free(*out);
		*out = NULL;
		return gs_k8s_oom(c);
	}
	for (i = 0; i < n; i++) {
		v[i].name = name_of(arg, i);
		v[i].i = (int32_t)i;
	}
	qsort(v, n, sizeof(*v), cmp_by_name);
	for (i = 0; i < n; i++)
		(*out)[i] = v[i].i;
	free(v);
	return 0;
}

static const char *node_name_of(const void *arg, size_t i)
{
	return ((const struct gs_k8s_snapshot *)arg)->nodes[i].o.name;
}

static const char *workload_uid_of(const void *arg, size_t i)
{
	const char *u = ((const struct gs_k8s_snapshot *)arg)->workloads[i].uid;

	return u ? u : "";
}

/* The nodes by name, for gs_k8s_snapshot_node_at(). Names are unique by now. */
static int index_nodes(struct gs_k8s_rctx *c)
{
	return sort_names(c, c->s->n_nodes, node_name_of, c->s, &c->s->node_by_name);
}

/* --- workloads ---------------------------------------------------------------------- */

static struct gs_k8s_workload *find_workload(struct gs_k8s_snapshot *s, const char *ns,
					     const char *kind, const char *name, const char *uid)
{
	size_t i;

	int32_t *workload_by_uid = s->workload_by_uid;

	if (uid && *uid && workload_by_uid) {
		size_t lo = 0, hi = s->n_workloads;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(workload_uid_of(s, (size_t)workload_by_uid[mid]), uid);

			if (c == 0)
				return &s->workloads[workload_by_uid[mid]];
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* A uid decides: the owner is not in the snapshot (a DaemonSet, ...). */
		return NULL;
	}
	if (!kind || !name)
		return NULL;
	for (i = 0; i < s->n_workloads; i++) {
		struct gs_k8s_workload *w = &s->workloads[i];

		if (strcmp(w->o.kind, kind) == 0 && strcmp(w->o.name, name) == 0 &&
		    strcmp(w->o.ns, ns) == 0)
			return w;
	}
	return NULL;
}

/* Marks the workloads whose pods are in the snapshot, and their owners. */
static int mark_live(struct gs_k8s_rctx *c)
{
	struct gs_k8s_snapshot *s = c->s;
	size_t i;
	int rc;

	if (!s->n_workloads)
		return 0;
	if ((rc = sort_names(c, s->n_workloads, workload_uid_of, s, &s->workload_by_uid)))
		return rc;
	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];
		struct gs_k8s_workload *w = find_workload(s, p->o.ns, p->owner_kind, p->owner_name,
							  p->owner_uid);
		int depth;

		/* Pod -> ReplicaSet -> Deployment. */
		for (depth = 0; w && depth < 4; depth++) {
			w->live = true;
			w = find_workload(s, w->o.ns, w->owner_kind, w->owner_name, w->owner_uid);
		}
	}
	return 0;
}

static int expand(struct gs_k8s_rctx *c)
{
	struct gs_k8s_snapshot *s = c->s;
	size_t i, n = s->n_workloads;

	for (i = 0; i < n; i++) {
		struct gs_k8s_workload *w = &s->workloads[i];
		int64_t k;

		if (w->live)
			continue;
		/* A ReplicaSet of a Deployment in the snapshot: the Deployment makes the pods. */
		if (w->owner_kind && find_workload(s, w->o.ns, w->owner_kind, w->owner_name,
						   w->owner_uid))
			continue;
		for (k = 0; k < w->replicas; k++) {
			struct gs_k8s_pod *p;
			char name[300];

			GS_K8S_PUSH(s, pods, p);
			if (!p)
				return gs_k8s_oom(c);
			w = &s->workloads[i];
			*p = w->tmpl;
			snprintf(name, sizeof(name), "%s-%lld", w->o.name, (long long)k);
			p->o.kind = gs_k8s_str(c, "Pod");
			p->o.name = gs_k8s_str(c, name);
			p->owner_kind = w->o.kind;
			p->owner_name = w->o.name;
			if (!p->o.kind || !p->o.name)
				return gs_k8s_oom(c);
			s->n_expanded++;
		}
	}
	return 0;
}

/* --- claims ------------------------------------------------------------------------- */

static struct gs_k8s_claim *find_claim(struct gs_k8s_snapshot *s, const char *ns,
				       const char *name)
{
	size_t i;

	for (i = 0; i < s->n_claims; i++)
		if (strcmp(s->claims[i].o.name, name) == 0 && strcmp(s->claims[i].o.ns, ns) == 0)
			return &s->claims[i];
	return NULL;
}

static const struct gs_k8s_template *find_template(const struct gs_k8s_snapshot *s,
						   const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_templates; i++)
		if (strcmp(s->templates[i].o.name, name) == 0 && strcmp(s->templates[i].o.ns, ns) == 0)
			return &s->templates[i];
	return NULL;
}

static void pod_ctx(struct gs_k8s_rctx *c, const struct gs_k8s_pod *p)
{
	c->o = p->o;
}

/* Claims from templates for the pods that have none yet; then every reference resolved. */
static int link_claims(struct gs_k8s_rctx *c)
{
	const struct gs_k8s_path *fclaims = GS_K8S_PATH("spec.resourceClaims");
	struct gs_k8s_snapshot *s = c->s;
	size_t i;
	int32_t k;

	for (i = 0; i < s->n_pods; i++) {
		for (k = 0; k < s->pods[i].n_claims; k++) {
			struct gs_k8s_pod *p = &s->pods[i];
			struct gs_k8s_claim_ref *r = &p->claims[k];
			const struct gs_k8s_template *t;
			struct gs_k8s_claim *cl;
			char name[300];

			if (!r->tmpl || (r->claim && find_claim(s, p->o.ns, r->claim)))
				continue;
			t = find_template(s, p->o.ns, r->tmpl);
			if (!t) {
				pod_ctx(c, p);
				return gs_k8s_refuse(c, NULL, GS_K8S_DOT(GS_K8S_INDEX(fclaims, k),
									 "resourceClaimTemplateName"),
						     "no ResourceClaimTemplate %s/%s in the snapshot",
						     p->o.ns, r->tmpl);
			}
			snprintf(name, sizeof(name), "%s-%s", p->o.name, r->name);
			GS_K8S_PUSH(s, claims, cl);
			if (!cl)
				return gs_k8s_oom(c);
			p = &s->pods[i];
			r = &p->claims[k];
			cl->o = t->o;
			cl->o.kind = gs_k8s_str(c, "ResourceClaim");
			cl->o.name = gs_k8s_str(c, r->claim ? r->claim : name);
			cl->spec = t->spec;
			cl->from_template = t->o.name;
			r->claim = cl->o.name;
			if (!cl->o.kind || !cl->o.name)
				return gs_k8s_oom(c);
		}
	}
	for (i = 0; i < s->n_pods; i++) {
		struct gs_k8s_pod *p = &s->pods[i];

		for (k = 0; k < p->n_claims; k++) {
			struct gs_k8s_claim_ref *r = &p->claims[k];

			r->c = find_claim(s, p->o.ns, r->claim);
			if (!r->c) {
				pod_ctx(c, p);
				return gs_k8s_refuse(c, NULL, GS_K8S_DOT(GS_K8S_INDEX(fclaims, k),
									 "resourceClaimName"),
						     "no ResourceClaim %s/%s in the snapshot", p->o.ns,
						     r->claim);
			}
			/* Finished pods no longer use their claims. */
			if (p->phase != GS_K8S_PHASE_SUCCEEDED && p->phase != GS_K8S_PHASE_FAILED)
				r->c->users++;
		}
	}
	return 0;
}

static const struct gs_k8s_class *find_class(const struct gs_k8s_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_classes; i++)
		if (strcmp(s->classes[i].o.name, name) == 0)
			return &s->classes[i];
	return NULL;
}

static int link_classes(struct gs_k8s_rctx *c, const struct gs_k8s_origin *o,
			struct gs_k8s_claim_spec *cs, const struct gs_k8s_path *field)
{
	int32_t i, k;

	for (i = 0; i < cs->n_requests; i++) {
		struct gs_k8s_request *r = &cs->requests[i];
		const struct gs_k8s_path *f =
			GS_K8S_INDEX(GS_K8S_DOT(GS_K8S_DOT(field, "devices"), "requests"), i);

		for (k = 0; k < r->n_sub; k++) {
			const struct gs_k8s_path *sub;

			r->sub[k].cls = find_class(c->s, r->sub[k].class_name);
			if (r->sub[k].cls)
				continue;
			sub = r->first_available ? GS_K8S_INDEX(GS_K8S_DOT(f, "firstAvailable"), k)
						 : GS_K8S_DOT(f, "exactly");
			c->o = *o;
			return gs_k8s_refuse(c, NULL, GS_K8S_DOT(sub, "deviceClassName"),
					     "no DeviceClass '%s' in the snapshot",
					     r->sub[k].class_name);
		}
	}
	return 0;
}

int gs_k8s_snapshot_finish(struct gs_k8s_snapshot *s, char *err, size_t err_len)
{
	struct gs_k8s_rctx c = {
		.s = s,
		.o = { .file = s->paths ? s->paths : "snapshot", .kind = "snapshot" },
		.err = err,
		.err_len = err_len,
	};
	uint8_t digest[GS_SHA256_BYTES];
	size_t i;
	int rc;

	if (s->finished)
		return 0;
	if (!s->n_nodes) {
		gs_errf(err, err_len, "%s: no Node in the snapshot (kubectl get nodes -o yaml gives "
			"them)", s->paths ? s->paths : "snapshot");
		return GS_EPARSE;
	}
/* Each kind's objects, unique by namespace/name (no address is taken of an empty array). */
#define UNIQUE(arr) (s->n_##arr < 2 ? 0 : no_duplicates(&c, &s->arr[0].o, s->n_##arr, sizeof(s->arr[0])))
	if ((rc = UNIQUE(nodes)) || (rc = UNIQUE(pods)) || (rc = UNIQUE(slices)) ||
	    (rc = UNIQUE(classes)) || (rc = UNIQUE(claims)) || (rc = UNIQUE(templates)))
		return rc;
#undef UNIQUE
	if ((rc = index_nodes(&c)))
		return rc;
	if ((rc = mark_live(&c)) || (rc = expand(&c)))
		return rc;
	for (i = 0; i < s->n_pods; i++) {
		const struct gs_k8s_pod *p = &s->pods[i];

		if (p->phase == GS_K8S_PHASE_SUCCEEDED || p->phase == GS_K8S_PHASE_FAILED)
			s->n_finished++;
		else if (p->node_name && gs_k8s_snapshot_node_at(s, p->node_name) < 0) {
			pod_ctx(&c, p);
			return gs_k8s_refuse(&c, NULL, GS_K8S_PATH("spec.nodeName"), "no Node '%s' in "
					     "the snapshot", p->node_name);
		}
	}
	if ((rc = link_claims(&c)))
		return rc;
	for (i = 0; i < s->n_claims; i++)
		if ((rc = link_classes(&c, &s->claims[i].o, &s->claims[i].spec,
				       GS_K8S_PATH("spec"))))
			return rc;
	for (i = 0; i < s->n_templates; i++)
		if ((rc = link_classes(&c, &s->templates[i].o, &s->templates[i].spec,
				       GS_K8S_PATH("spec.spec"))))
			return rc;
	gs_sha256_final(&s->sha, digest);
	for (i = 0; i < GS_SHA256_BYTES; i++)
		snprintf(s->sha256 + 2 * i, 3, "%02x", digest[i]);
	s->finished = true;
	return 0;
}
