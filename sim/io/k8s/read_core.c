/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read_core.c - Nodes, Pods, workloads (Deployment, StatefulSet,
 * ReplicaSet, Job) and the NVIDIA device plugin's ConfigMap.
 *
 * A pod's requests are counted as the scheduler counts them
 * (k8s.io/component-helpers resource.PodRequests): for each resource the
 * larger of (the app containers plus every sidecar, an init container with
 * restartPolicy Always) and (each ordinary init container plus the
 * sidecars started before it), plus spec.overhead; a request that is
 * missing takes the container's limit, as the API server defaults it.
 * Constraints gpusim cannot model (matchFields, required pod
 * (anti-)affinity, hard topology spread) are recorded in
 * gs_k8s_pod.unsupported and refused if the pod has to be placed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/k8s/snapshot_internal.h"

/* --- resources ------------------------------------------------------------ */

#define RES_MAX 64   /* distinct resource names in one pod */

/* Sums per resource name while a pod's containers are read. */
struct resacc {
	int n;
	const char *name[RES_MAX];
	struct gs_quantity q[RES_MAX];
};

static struct gs_quantity *acc_at(struct resacc *a, const char *name)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->name[i] == name)
			return &a->q[i];
	if (a->n == RES_MAX)
		return NULL;
	a->name[a->n] = name;
	memset(&a->q[a->n], 0, sizeof(a->q[0]));
	return &a->q[a->n++];
}

/* Reads one container's requests (limits where a request is missing) into one. */
static int container_requests(struct gs_k8s_rctx *c, const struct gs_kdoc *ct,
			      const struct gs_k8s_path *field, struct resacc *one)
{
	const struct gs_k8s_path *fres = GS_K8S_DOT(field, "resources");
	const struct gs_kdoc *res, *req = NULL, *lim = NULL, *v;
	int rc, pass;

	one->n = 0;
	res = gs_kdoc_get(ct, "resources");
	if (!res || res->kind == GS_KDOC_NULL)
		return 0;
	req = gs_kdoc_get(res, "requests");
	lim = gs_kdoc_get(res, "limits");
	if (res->kind != GS_KDOC_MAP || (req && req->kind != GS_KDOC_MAP && req->kind != GS_KDOC_NULL) ||
	    (lim && lim->kind != GS_KDOC_MAP && lim->kind != GS_KDOC_NULL)) {
		/* Said with the field that is wrong. */
		if ((rc = gs_k8s_get_map(c, ct, "resources", field, &res)) ||
		    (rc = gs_k8s_get_map(c, res, "requests", fres, &req)))
			return rc;
		return gs_k8s_get_map(c, res, "limits", fres, &lim);
	}
	/* Requests first; then limits for the names without a request. */
	for (pass = 0; pass < 2; pass++) {
		const struct gs_kdoc *m = pass ? lim : req;

		for (v = m ? m->child : NULL; v; v = v->next) {
			struct gs_quantity q, *slot;
			const char *name, *why;

			/* Parsed here: gs_k8s_quantity() again only to say what is wrong. */
			if (v->kind != GS_KDOC_STR || gs_quantity_parse(v->str, &q, &why)) {
				const char *which = pass ? "limits" : "requests";

				return gs_k8s_quantity(c, v, GS_K8S_KEY(GS_K8S_DOT(fres, which), v->key),
						       &q);
			}
			if (pass && gs_kdoc_get(req, v->key))
				continue;
			if (!(name = gs_k8s_str(c, v->key)))
				return gs_k8s_oom(c);
			slot = acc_at(one, name);
			if (!slot)
				return gs_k8s_refuse(c, v, field, "more than %d distinct resources",
						     RES_MAX);
			*slot = q;
		}
	}
	return 0;
}

/* a[name] += b[name] (max false) or a[name] = max(a[name], b[name]) for every name of b. */
static int acc_merge(struct gs_k8s_rctx *c, struct resacc *a, const struct resacc *b,
		     const struct gs_k8s_path *field, bool max)
{
	int i;

	for (i = 0; i < b->n; i++) {
		struct gs_quantity *q = acc_at(a, b->name[i]);

		if (!max && (!q || !gs_quantity_add(q, &b->q[i])))
			return gs_k8s_refuse(c, NULL, field, "the requests of %s add up past what "
					     "gpusim can count", b->name[i]);
		if (max && !q)
			return gs_k8s_refuse(c, NULL, field, "more than %d distinct resources",
					     RES_MAX);
		if (max && gs_quantity_cmp(&b->q[i], q) > 0)
			*q = b->q[i];
	}
	return 0;
}

/* The pod's effective requests into p (cpu, memory and extended resources). */
static int pod_requests(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
			const struct gs_k8s_path *field, struct gs_k8s_pod *p)
{
	const struct gs_k8s_path *finit = GS_K8S_DOT(field, "initContainers"),
				 *fcont = GS_K8S_DOT(field, "containers"),
				 *fover = GS_K8S_DOT(field, "overhead");
	struct resacc app, sidecars, init_max, one, tmp;
	const struct gs_kdoc *seq, *ct, *ov;
	const char *cpu = c->s->str_cpu, *mem = c->s->str_memory;
	int64_t i;
	int rc, k, n_ext = 0;

	if (!cpu || !mem)
		return gs_k8s_oom(c);
	app.n = sidecars.n = init_max.n = 0;
	if ((rc = gs_k8s_get_seq(c, spec, "initContainers", field, &seq)))
		return rc;
	for (ct = seq ? seq->child : NULL, i = 0; ct; ct = ct->next, i++) {
		const struct gs_k8s_path *f = GS_K8S_INDEX(finit, i);
		const char *restart;

		if (ct->kind != GS_KDOC_MAP)
			return gs_k8s_refuse(c, ct, f, "is %s, not a container", gs_kdoc_kind_str(ct));
		if ((rc = container_requests(c, ct, f, &one)))
			return rc;
		restart = gs_kdoc_str(ct, "restartPolicy");
		if (restart && strcmp(restart, "Always") == 0) {
			if ((rc = acc_merge(c, &sidecars, &one, f, false)))
				return rc;
			continue;
		}
		/* An init container runs next to the sidecars started before it. */
		tmp = sidecars;
		if ((rc = acc_merge(c, &tmp, &one, f, false)) ||
		    (rc = acc_merge(c, &init_max, &tmp, f, true)))
			return rc;
	}
	if ((rc = gs_k8s_get_seq(c, spec, "containers", field, &seq)))
		return rc;
	if (!seq || !seq->child)
		return gs_k8s_refuse(c, seq, fcont, "a pod needs at least one container");
	for (ct = seq->child, i = 0; ct; ct = ct->next, i++) {
		const struct gs_k8s_path *f = GS_K8S_INDEX(fcont, i);

		if (ct->kind != GS_KDOC_MAP)
			return gs_k8s_refuse(c, ct, f, "is %s, not a container", gs_kdoc_kind_str(ct));
		if ((rc = container_requests(c, ct, f, &one)) ||
		    (rc = acc_merge(c, &app, &one, f, false)))
			return rc;
	}
	if ((rc = acc_merge(c, &app, &sidecars, field, false)) ||
	    (rc = acc_merge(c, &app, &init_max, field, true)))
		return rc;
	if ((rc = gs_k8s_get_map(c, spec, "overhead", field, &ov)))
		return rc;
	if (ov) {
		one.n = 0;
		for (ct = ov->child; ct; ct = ct->next) {
			struct gs_quantity q, *slot;

			if ((rc = gs_k8s_quantity(c, ct, GS_K8S_KEY(fover, ct->key), &q)))
				return rc;
			slot = acc_at(&one, gs_k8s_str(c, ct->key));
			if (!slot)
				return gs_k8s_oom(c);
			*slot = q;
		}
		if ((rc = acc_merge(c, &app, &one, fover, false)))
			return rc;
	}

	for (k = 0; k < app.n; k++)
		n_ext += app.name[k] != cpu && app.name[k] != mem;
	p->ext = n_ext ? gs_k8s_alloc(c, (size_t)n_ext, sizeof(*p->ext)) : NULL;
	if (n_ext && !p->ext)
		return gs_k8s_oom(c);
	for (k = 0; k < app.n; k++) {
		if (app.name[k] == cpu) {
			if (!gs_quantity_milli(&app.q[k], &p->cpu_milli) || p->cpu_milli > INT32_MAX)
				return gs_k8s_refuse(c, NULL, field, "a CPU request of more than %d "
						     "milli-cores", INT32_MAX);
		} else if (app.name[k] == mem) {
			p->mem_mib = gs_quantity_mib(&app.q[k]);
		} else if (!gs_quantity_is_zero(&app.q[k])) {
			p->ext[p->n_ext].name = app.name[k];
			p->ext[p->n_ext++].q = app.q[k];
		}
	}
	return 0;
}

/* --- node selection ----------------------------------------------------------- */

static int note_unsupported(struct gs_k8s_rctx *c, struct gs_k8s_pod *p, const char *what)
{
	if (!p->unsupported && !(p->unsupported = gs_k8s_str(c, what)))
		return gs_k8s_oom(c);
	return 0;
}

#define HARD "requiredDuringSchedulingIgnoredDuringExecution"

static int pod_affinity(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
			const struct gs_k8s_path *field, struct gs_k8s_pod *p)
{
	const struct gs_k8s_path *faff = GS_K8S_DOT(field, "affinity"),
				 *fna = GS_K8S_DOT(faff, "nodeAffinity"),
				 *fhard = GS_K8S_DOT(fna, HARD),
				 *fterms = GS_K8S_DOT(fhard, "nodeSelectorTerms");
	const struct gs_kdoc *aff, *na, *req, *v;
	char f[200], msg[240];
	int rc;

	if ((rc = gs_k8s_get_map(c, spec, "affinity", field, &aff)) || !aff)
		return rc;
	if ((rc = gs_k8s_get_map(c, aff, "nodeAffinity", faff, &na)) ||
	    (rc = gs_k8s_get_map(c, na, HARD, fna, &req)))
		return rc;
	if (req) {
		const struct gs_kdoc *terms;

		if ((rc = gs_k8s_get_seq(c, req, "nodeSelectorTerms", fhard, &terms)))
			return rc;
		if (!terms || !terms->child)
			return gs_k8s_refuse(c, req, fterms, "a required node affinity needs at "
					     "least one term");
		rc = gs_k8s_read_terms(c, terms, fterms, &p->affinity);
		if (rc == GS_ENOENT) {
			/* matchFields: the pod is fine while it runs, refused if it must be placed. */
			snprintf(msg, sizeof(msg), "%s: matchFields is not supported",
				 gs_k8s_path_format(fterms, f, sizeof(f)));
			return note_unsupported(c, p, msg);
		}
		if (rc)
			return rc;
		p->has_affinity = true;
	}
	/* Inter-pod affinity and anti-affinity: hard forms cannot be modelled. */
	for (v = aff->child; v; v = v->next) {
		const struct gs_kdoc *hard;

		if (strcmp(v->key, "podAffinity") != 0 && strcmp(v->key, "podAntiAffinity") != 0)
			continue;
		hard = gs_kdoc_get(v, HARD);
		if (!hard || hard->kind == GS_KDOC_NULL || (hard->kind == GS_KDOC_SEQ && !hard->n))
			continue;
		snprintf(msg, sizeof(msg), "%s.%s." HARD ": inter-pod %s is not supported",
			 gs_k8s_path_format(faff, f, sizeof(f)), v->key,
			 v->key[3] == 'A' ? "anti-affinity" : "affinity");
		if ((rc = note_unsupported(c, p, msg)))
			return rc;
	}
	return 0;
}

static int pod_spread(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
		      const struct gs_k8s_path *field, struct gs_k8s_pod *p)
{
	const struct gs_kdoc *seq, *t;
	char f[200];
	int i = 0, rc;

	if ((rc = gs_k8s_get_seq(c, spec, "topologySpreadConstraints", field, &seq)) || !seq)
		return rc;
	for (t = seq->child; t; t = t->next, i++) {
		const char *w = gs_kdoc_str(t, "whenUnsatisfiable");
		char msg[300];

		if (w && strcmp(w, "ScheduleAnyway") == 0)
			continue;
		gs_k8s_path_format(GS_K8S_DOT(field, "topologySpreadConstraints"), f, sizeof(f));
		snprintf(msg, sizeof(msg), "%s[%d]: a DoNotSchedule topology spread constraint is "
			 "not supported", f, i);
		return note_unsupported(c, p, msg);
	}
	return 0;
}

static int read_claim_ref(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
			  const struct gs_k8s_path *field, void *elem, void *arg)
{
	struct gs_k8s_claim_ref *r = elem;
	int rc;

	(void)arg;
	if ((rc = gs_k8s_get_str(c, v, "name", field, &r->name)))
		return rc;
	if (!r->name)
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "name"), "missing");
	if ((rc = gs_k8s_get_str(c, v, "resourceClaimName", field, &r->claim)) ||
	    (rc = gs_k8s_get_str(c, v, "resourceClaimTemplateName", field, &r->tmpl)))
		return rc;
	if (!r->claim == !r->tmpl)
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "resourceClaimTemplateName"),
				     "exactly one of resourceClaimName and "
				     "resourceClaimTemplateName must be set");
	return 0;
}

static int pod_claims(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
		      const struct gs_k8s_path *field, struct gs_k8s_pod *p)
{
	const struct gs_kdoc *seq;
	void *refs;
	int rc;

	if ((rc = gs_k8s_get_seq(c, spec, "resourceClaims", field, &seq)) ||
	    (rc = gs_k8s_read_items(c, seq, GS_K8S_DOT(field, "resourceClaims"),
				    "a claim reference", sizeof(*p->claims), read_claim_ref, NULL,
				    &refs, &p->n_claims)))
		return rc;
	p->claims = refs;
	return 0;
}

int gs_k8s_read_pod_spec(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
			 const struct gs_k8s_path *field, struct gs_k8s_pod *p)
{
	const struct gs_kdoc *tol;
	int rc;

	if (!spec)
		return gs_k8s_refuse(c, NULL, field, "missing");
	if (spec->kind != GS_KDOC_MAP)
		return gs_k8s_refuse(c, spec, field, "is %s, not a pod spec", gs_kdoc_kind_str(spec));
	if ((rc = pod_requests(c, spec, field, p)))
		return rc;
	if ((rc = gs_k8s_get_str(c, spec, "nodeName", field, &p->node_name)))
		return rc;
	if (p->node_name && !*p->node_name)
		p->node_name = NULL;
	if ((rc = gs_k8s_get_kv(c, spec, "nodeSelector", field, &p->node_selector,
				&p->n_node_selector)))
		return rc;
	if ((rc = pod_affinity(c, spec, field, p)) || (rc = pod_spread(c, spec, field, p)))
		return rc;
	if ((rc = gs_k8s_get_seq(c, spec, "tolerations", field, &tol)))
		return rc;
	if (tol && (rc = gs_k8s_read_tolerations(c, tol, GS_K8S_DOT(field, "tolerations"),
						 &p->tolerations, &p->n_tolerations)))
		return rc;
	return pod_claims(c, spec, field, p);
}

/* --- Pod ----------------------------------------------------------------------- */

static int read_owner(struct gs_k8s_rctx *c, const struct gs_kdoc *meta, const char **kind,
		      const char **name, const char **uid)
{
	const struct gs_k8s_path *f = GS_K8S_PATH("metadata.ownerReferences");
	const struct gs_kdoc *seq, *v;
	int rc;

	if ((rc = gs_k8s_get_seq(c, meta, "ownerReferences", GS_K8S_PATH("metadata"), &seq)))
		return rc;
	for (v = seq ? seq->child : NULL; v; v = v->next) {
		const char *ctl = gs_kdoc_str(v, "controller");

		if (!ctl || strcmp(ctl, "true") != 0)
			continue;
		if ((rc = gs_k8s_get_str(c, v, "kind", f, kind)) ||
		    (rc = gs_k8s_get_str(c, v, "name", f, name)) ||
		    (rc = gs_k8s_get_str(c, v, "uid", f, uid)))
			return rc;
		break;
	}
	return 0;
}

static const char *const phases[] = { "Pending", "Running", "Succeeded", "Failed", "Unknown" };

int gs_k8s_read_pod(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *meta = gs_kdoc_get(obj, "metadata"), *status, *seq, *v;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_pod *p;
	const char *t;
	int rc, i;

	GS_K8S_PUSH(s, pods, p);
	if (!p)
		return gs_k8s_oom(c);
	p->o = c->o;
	p->t_create_s = p->t_start_s = -1;
	if ((rc = gs_k8s_get_str(c, meta, "uid", GS_K8S_PATH("metadata"), &p->uid)) ||
	    (rc = read_owner(c, meta, &p->owner_kind, &p->owner_name, &p->owner_uid)))
		return rc;
	if ((t = gs_kdoc_str(meta, "creationTimestamp")) && (p->t_create_s = gs_k8s_time(t)) < 0)
		return gs_k8s_refuse(c, gs_kdoc_get(meta, "creationTimestamp"),
				     GS_K8S_PATH("metadata.creationTimestamp"),
				     "'%s' is not an RFC 3339 time", t);
	p->terminating = gs_kdoc_str(meta, "deletionTimestamp") != NULL;
	if ((rc = gs_k8s_read_pod_spec(c, gs_kdoc_get(obj, "spec"), GS_K8S_PATH("spec"), p)))
		return rc;
	if ((rc = gs_k8s_get_map(c, obj, "status", NULL, &status)))
		return rc;
	p->phase = GS_K8S_PHASE_PENDING;
	if ((t = gs_kdoc_str(status, "phase"))) {
		for (i = 0; i < 5 && strcmp(t, phases[i]) != 0; i++)
			;
		if (i == 5)
			return gs_k8s_refuse(c, gs_kdoc_get(status, "phase"),
					     GS_K8S_PATH("status.phase"), "'%s' is not a pod phase "
					     "(Pending, Running, Succeeded, Failed or Unknown)", t);
		p->phase = (uint8_t)i;
	}
	if ((t = gs_kdoc_str(status, "startTime")) && (p->t_start_s = gs_k8s_time(t)) < 0)
		return gs_k8s_refuse(c, gs_kdoc_get(status, "startTime"),
				     GS_K8S_PATH("status.startTime"), "'%s' is not an RFC 3339 time",
				     t);
	/* The claims made from templates, by the name the control plane gave them. */
	if ((rc = gs_k8s_get_seq(c, status, "resourceClaimStatuses", GS_K8S_PATH("status"), &seq)))
		return rc;
	for (v = seq ? seq->child : NULL; v; v = v->next) {
		const char *name = gs_kdoc_str(v, "name"), *claim = gs_kdoc_str(v, "resourceClaimName");
		int32_t k;

		for (k = 0; name && claim && k < p->n_claims; k++)
			if (strcmp(p->claims[k].name, name) == 0 && p->claims[k].tmpl &&
			    !(p->claims[k].claim = gs_k8s_str(c, claim)))
				return gs_k8s_oom(c);
	}
	return 0;
}

/* --- workloads ------------------------------------------------------------------ */

int gs_k8s_read_workload(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *meta = gs_kdoc_get(obj, "metadata"), *spec, *tmpl;
	const struct gs_k8s_path *fspec = GS_K8S_PATH("spec");
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_workload *w;
	bool job = strcmp(c->o.kind, "Job") == 0;
	int64_t completions = -1;
	int rc;

	GS_K8S_PUSH(s, workloads, w);
	if (!w)
		return gs_k8s_oom(c);
	w->o = c->o;
	w->replicas = 1;
	if ((rc = gs_k8s_get_str(c, meta, "uid", GS_K8S_PATH("metadata"), &w->uid)) ||
	    (rc = read_owner(c, meta, &w->owner_kind, &w->owner_name, &w->owner_uid)))
		return rc;
	if ((rc = gs_k8s_need_map(c, obj, "spec", NULL, &spec)))
		return rc;
	if (job) {
		if ((rc = gs_k8s_get_int(c, spec, "parallelism", fspec, 0, 1000000, &w->replicas)) ||
		    (rc = gs_k8s_get_int(c, spec, "completions", fspec, 0, 1000000, &completions)))
			return rc;
		/* A Job runs parallelism pods at once, never more than its completions. */
		if (completions >= 0 && completions < w->replicas)
			w->replicas = completions;
	} else if ((rc = gs_k8s_get_int(c, spec, "replicas", fspec, 0, 1000000, &w->replicas))) {
		return rc;
	}
	if ((rc = gs_k8s_need_map(c, spec, "template", fspec, &tmpl)))
		return rc;
	w->tmpl.o = c->o;
	w->tmpl.t_create_s = w->tmpl.t_start_s = -1;
	w->tmpl.from_workload = true;
	return gs_k8s_read_pod_spec(c, gs_kdoc_get(tmpl, "spec"), GS_K8S_PATH("spec.template.spec"),
				    &w->tmpl);
}

/* --- the device plugin's ConfigMap ----------------------------------------------- */

struct cm_read {
	struct gs_k8s_rctx *c;
	const struct gs_kdoc *at;
	const char *key;
	int found;
};

/* One sharing section (timeSlicing or mps) of a plugin config into a gs_k8s_plugin_config. */
static int plugin_sharing(struct cm_read *r, const struct gs_kdoc *sec, uint8_t strategy)
{
	struct gs_k8s_rctx *c = r->c;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_plugin_config *pc;
	const struct gs_k8s_path *fsec = GS_K8S_DOT(GS_K8S_DOT(GS_K8S_KEY(GS_K8S_PATH("data"),
									     r->key), "sharing"),
						  strategy == GS_SHARE_MPS ? "mps" : "timeSlicing"),
				 *f = GS_K8S_DOT(fsec, "resources");
	const struct gs_kdoc *res, *v;
	int32_t i = 0;
	int rc;

	if ((rc = gs_k8s_get_seq(c, sec, "resources", fsec, &res)) || !res || !res->n)
		return rc;
	GS_K8S_PUSH(s, plugin_configs, pc);
	if (!pc)
		return gs_k8s_oom(c);
	pc->o = c->o;
	pc->key = gs_k8s_str(c, r->key);
	pc->strategy = strategy;
	pc->resources = gs_k8s_alloc(c, (size_t)res->n, sizeof(*pc->resources));
	pc->replicas = gs_k8s_alloc(c, (size_t)res->n, sizeof(*pc->replicas));
	pc->renames = gs_k8s_alloc(c, (size_t)res->n, sizeof(*pc->renames));
	if (!pc->key || !pc->resources || !pc->replicas || !pc->renames)
		return gs_k8s_oom(c);
	/* A renameByDefault that is not a boolean is named as the list it applies to. */
	if ((rc = gs_k8s_get_bool(c, sec, "renameByDefault", GS_K8S_SELF(f),
				  &pc->rename_by_default)))
		return rc;
	for (v = res->child; v; v = v->next, i++) {
		const struct gs_k8s_path *g = GS_K8S_INDEX(f, i);
		int64_t rep = 0;

		if ((rc = gs_k8s_get_str(c, v, "name", g, &pc->resources[i])))
			return rc;
		if (!pc->resources[i])
			return gs_k8s_refuse(c, r->at, GS_K8S_DOT(g, "name"), "missing");
		if ((rc = gs_k8s_get_int(c, v, "replicas", g, 1, GS_SHARE_REPLICAS_MAX, &rep)))
			return rc;
		if (!rep)
			return gs_k8s_refuse(c, r->at, GS_K8S_DOT(g, "replicas"), "missing");
		pc->replicas[i] = (int32_t)rep;
		if ((rc = gs_k8s_get_str(c, v, "rename", g, &pc->renames[i])))
			return rc;
	}
	pc->n = i;
	r->found = 1;
	return 0;
}

static int plugin_config_doc(void *arg, const struct gs_kdoc *doc, int64_t index, int n)
{
	struct cm_read *r = arg;
	const struct gs_kdoc *sharing, *sec;
	int rc;

	(void)index;
	(void)n;
	/* Only a device plugin configuration (version v1 with flags or sharing) is ours. */
	if (!gs_kdoc_str(doc, "version") ||
	    !(gs_kdoc_get(doc, "sharing") || gs_kdoc_get(doc, "flags")))
		return 0;
	sharing = gs_kdoc_get(doc, "sharing");
	if ((sec = gs_kdoc_get(sharing, "timeSlicing")) &&
	    (rc = plugin_sharing(r, sec, GS_SHARE_TIMESLICE)))
		return rc;
	if ((sec = gs_kdoc_get(sharing, "mps")) && (rc = plugin_sharing(r, sec, GS_SHARE_MPS)))
		return rc;
	return 0;
}

int gs_k8s_read_configmap(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *data, *v;
	int rc;

	if ((rc = gs_k8s_get_map(c, obj, "data", NULL, &data)) || !data)
		return rc;
	for (v = data->child; v; v = v->next) {
		struct cm_read r = { c, v, v->key, 0 };
		char name[200], err[512];

		if (v->kind != GS_KDOC_STR || !strstr(v->str, "version"))
			continue;
		snprintf(name, sizeof(name), "%s (ConfigMap %s/%s data[%s])", c->o.file, c->o.ns,
			 c->o.name, v->key);
		err[0] = '\0';
		rc = gs_kdoc_read(name, v->str, strlen(v->str), plugin_config_doc, &r, err,
				  sizeof(err));
		/* Data that is not YAML is someone else's configuration, not a broken one of ours. */
		if (rc == GS_EPARSE && err[0])
			continue;
		if (rc)
			return rc;
	}
	return 0;
}

/* --- Node ------------------------------------------------------------------------- */

#define HAMI_REGISTER "hami.io/node-nvidia-register"

int gs_k8s_read_node(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *meta = gs_kdoc_get(obj, "metadata"), *spec, *status, *alloc, *taints,
			     *ann, *v;
	struct gs_k8s_snapshot *s = c->s;
	const struct gs_k8s_path *fmeta = GS_K8S_PATH("metadata"), *fstatus = GS_K8S_PATH("status"),
				 *fcap = GS_K8S_DOT(fstatus, "capacity"),
				 *field = GS_K8S_DOT(fstatus, "allocatable");
	struct gs_k8s_node *n;
	int32_t n_ext = 0;
	int rc;

	GS_K8S_PUSH(s, nodes, n);
	if (!n)
		return gs_k8s_oom(c);
	n->o = c->o;
	if ((rc = gs_k8s_get_kv(c, meta, "labels", fmeta, &n->labels, &n->n_labels)) ||
	    (rc = gs_k8s_get_map(c, meta, "annotations", fmeta, &ann)))
		return rc;
	if ((rc = gs_k8s_get_str(c, ann, HAMI_REGISTER,
				 GS_K8S_SELF(GS_K8S_KEY(GS_K8S_DOT(fmeta, "annotations"),
							HAMI_REGISTER)), &n->hami_register)))
		return rc;
	if ((rc = gs_k8s_get_map(c, obj, "spec", NULL, &spec)) ||
	    (rc = gs_k8s_get_bool(c, spec, "unschedulable", GS_K8S_PATH("spec"),
				  &n->unschedulable)) ||
	    (rc = gs_k8s_get_seq(c, spec, "taints", GS_K8S_PATH("spec"), &taints)))
		return rc;
	if (taints && (rc = gs_k8s_read_taints(c, taints, GS_K8S_PATH("spec.taints"), false,
					       &n->taints, &n->n_taints)))
		return rc;
	if ((rc = gs_k8s_get_map(c, obj, "status", NULL, &status)) ||
	    (rc = gs_k8s_get_map(c, status, "allocatable", fstatus, &alloc)))
		return rc;
	if (!alloc) {
		/* A hand-written node may give its capacity only. */
		if ((rc = gs_k8s_get_map(c, status, "capacity", fstatus, &alloc)))
			return rc;
		if (!alloc)
			return gs_k8s_refuse(c, status ? status : obj, field, "missing (a node needs "
					     "its allocatable or capacity resources)");
		field = fcap;
	}
	n->ext = gs_k8s_alloc(c, (size_t)alloc->n + 1, sizeof(*n->ext));
	if (!n->ext)
		return gs_k8s_oom(c);
	for (v = alloc->child; v; v = v->next) {
		const struct gs_k8s_path *f = GS_K8S_KEY(field, v->key);
		struct gs_quantity q;

		if ((rc = gs_k8s_quantity(c, v, f, &q)))
			return rc;
		if (strcmp(v->key, "cpu") == 0) {
			if (!gs_quantity_milli(&q, &n->cpu_milli) || n->cpu_milli > INT32_MAX)
				return gs_k8s_refuse(c, v, f, "more than %d milli-cores", INT32_MAX);
		} else if (strcmp(v->key, "memory") == 0) {
			/* Allocatable memory rounds down: a pod never gets the last partial MiB. */
			n->mem_mib = q.whole >> 20;
		} else {
			n->ext[n_ext].name = gs_k8s_str(c, v->key);
			if (!n->ext[n_ext].name)
				return gs_k8s_oom(c);
			n->ext[n_ext++].q = q;
		}
	}
	n->n_ext = n_ext;
	return 0;
}
