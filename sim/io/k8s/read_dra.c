/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read_dra.c - the Dynamic Resource Allocation objects of resource.k8s.io/v1:
 * ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate, and
 * the NVIDIA DRA driver's opaque GpuConfig / MigDeviceConfig sharing
 * settings (resource.nvidia.com/v1beta1).
 *
 * Field names and rules follow the API reference (k8s.io/api/resource/v1
 * types.go): a device attribute has exactly one of int, bool, string and
 * version; names without a domain belong to the driver's domain and are
 * stored fully qualified; a request has exactly one of exactly and
 * firstAvailable; allocationMode is ExactCount (count, default 1) or All.
 * Selectors are compiled when read, so an unsupported CEL expression is
 * refused with the object and field that hold it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/k8s/cel.h"
#include "io/k8s/snapshot_internal.h"

/* A name qualified with the driver's domain when it has none. */
static const char *qualify(struct gs_k8s_rctx *c, const char *driver, const char *name)
{
	char buf[512];

	if (strchr(name, '/'))
		return gs_k8s_str(c, name);
	snprintf(buf, sizeof(buf), "%s/%s", driver, name);
	return gs_k8s_str(c, buf);
}

/*
 * The quantities of map m (NULL: none), one per key, named field[key] in
 * messages; with driver, names without a domain get the driver's.
 */
static int read_quantities(struct gs_k8s_rctx *c, const struct gs_kdoc *m,
			   const struct gs_k8s_path *field, const char *driver,
			   struct gs_k8s_res **out, int32_t *n_out)
{
	const struct gs_kdoc *x;
	int32_t i = 0;
	int rc;

	if (!m || !m->n)
		return 0;
	*out = gs_k8s_alloc(c, (size_t)m->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (x = m->child; x; x = x->next, i++) {
		(*out)[i].name = driver ? qualify(c, driver, x->key) : gs_k8s_str(c, x->key);
		if (!(*out)[i].name)
			return gs_k8s_oom(c);
		if ((rc = gs_k8s_quantity(c, x, GS_K8S_KEY(field, x->key), &(*out)[i].q)))
			return rc;
	}
	*n_out = i;
	return 0;
}

/* --- CEL ------------------------------------------------------------------------- */

/* The compiled selector of expr, shared by every object that uses the same text. */
static int compile(struct gs_k8s_rctx *c, const struct gs_kdoc *at,
		   const struct gs_k8s_path *field, const char *expr,
		   struct gs_k8s_selector_cel *out)
{
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_selector_cel *slot;
	char why[256];
	bool oom;
	size_t i;

	for (i = 0; i < s->n_cels; i++)
		if (strcmp(s->cels[i].expr, expr) == 0) {
			*out = s->cels[i];
			return 0;
		}
	out->expr = gs_k8s_str(c, expr);
	if (!out->expr)
		return gs_k8s_oom(c);
	out->cel = gs_cel_compile(expr, why, sizeof(why), &oom);
	if (!out->cel)
		return oom ? gs_k8s_oom(c)
			   : gs_k8s_refuse(c, at, field, "CEL expression '%s': %s", expr, why);
	GS_K8S_PUSH(s, cels, slot);
	if (!slot) {
		gs_cel_free(out->cel);
		return gs_k8s_oom(c);
	}
	*slot = *out;
	return 0;
}

/* One selector of a list (a gs_k8s_item_fn): its CEL expression, compiled. */
static int read_selector(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
			 const struct gs_k8s_path *field, void *elem, void *arg)
{
	const struct gs_k8s_path *f = GS_K8S_DOT(GS_K8S_DOT(field, "cel"), "expression");
	const struct gs_kdoc *cel;
	const char *expr;
	int rc;

	(void)arg;
	/* Whatever is wrong in a selector is said of its expression. */
	if ((rc = gs_k8s_get_map(c, v, "cel", GS_K8S_SELF(f), &cel)) ||
	    (rc = gs_k8s_get_str(c, cel, "expression", f->up, &expr)))
		return rc;
	if (!expr || !*expr)
		return gs_k8s_refuse(c, v, f, "missing (cel is the only selector type)");
	return compile(c, v, f, expr, elem);
}

static int read_selectors(struct gs_k8s_rctx *c, const struct gs_kdoc *m,
			  const struct gs_k8s_path *field, struct gs_k8s_selector_cel **out,
			  int32_t *n_out)
{
	const struct gs_kdoc *seq;
	void *items;
	int rc;

	*n_out = 0;
	if ((rc = gs_k8s_get_seq(c, m, "selectors", field, &seq)) ||
	    (rc = gs_k8s_read_items(c, seq, GS_K8S_DOT(field, "selectors"), NULL, sizeof(**out),
				    read_selector, NULL, &items, n_out)))
		return rc;
	*out = items;
	return 0;
}

/* The request names of list seq (NULL: none), which a config or a constraint applies to. */
static int read_request_names(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
			      const struct gs_k8s_path *field, const char ***out, int32_t *n_out)
{
	const struct gs_kdoc *v;

	if (!seq || !seq->n)
		return 0;
	*out = gs_k8s_alloc(c, (size_t)seq->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (v = seq->child; v; v = v->next) {
		if (v->kind != GS_KDOC_STR)
			return gs_k8s_refuse(c, v, field, "a request name is %s",
					     gs_kdoc_kind_str(v));
		if (!((*out)[(*n_out)++] = gs_k8s_str(c, v->str)))
			return gs_k8s_oom(c);
	}
	return 0;
}

/* --- opaque configuration --------------------------------------------------------- */

static int read_sharing(struct gs_k8s_rctx *c, const struct gs_kdoc *sh,
			const struct gs_k8s_path *field, struct gs_k8s_config *cfg)
{
	const struct gs_k8s_path *f = GS_K8S_DOT(field, "strategy"),
				 *fmps = GS_K8S_DOT(field, "mpsConfig");
	const char *strategy;
	int rc;

	if ((rc = gs_k8s_get_str(c, sh, "strategy", field, &strategy)))
		return rc;
	if (!strategy)
		return gs_k8s_refuse(c, sh, f, "missing");
	if (strcmp(strategy, "TimeSlicing") == 0) {
		gs_share_cfg_init(&cfg->sharing, GS_SHARE_TIMESLICE);
	} else if (strcmp(strategy, "MPS") == 0) {
		const struct gs_kdoc *mps;
		int64_t pct = 0;

		gs_share_cfg_init(&cfg->sharing, GS_SHARE_MPS);
		if ((rc = gs_k8s_get_map(c, sh, "mpsConfig", field, &mps)) ||
		    (rc = gs_k8s_get_int(c, mps, "defaultActiveThreadPercentage", fmps, 1, 100,
					 &pct)))
			return rc;
		cfg->sharing.thread_pct = (uint8_t)pct;
		if (gs_kdoc_get(mps, "defaultPinnedDeviceMemoryLimit")) {
			const struct gs_k8s_path *fpin = GS_K8S_DOT(fmps,
								    "defaultPinnedDeviceMemoryLimit");
			struct gs_quantity q;

			if ((rc = gs_k8s_quantity(c, gs_kdoc_get(mps, "defaultPinnedDeviceMemoryLimit"),
						  fpin, &q)))
				return rc;
			cfg->sharing.pinned_mib = q.whole >> 20;
			if (cfg->sharing.pinned_mib <= 0)
				return gs_k8s_refuse(c, mps, fpin, "below 1Mi");
		}
	} else {
		return gs_k8s_refuse(c, sh, f, "'%s' is not a sharing strategy gpusim models "
				     "(TimeSlicing or MPS)", strategy);
	}
	cfg->has_sharing = true;
	return 0;
}

/* One opaque configuration (a gs_k8s_item_fn; arg: whether it may name requests). */
static int read_config(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		       const struct gs_k8s_path *field, void *elem, void *arg)
{
	const struct gs_k8s_path *fop = GS_K8S_DOT(field, "opaque"),
				 *fparams = GS_K8S_DOT(fop, "parameters");
	const bool *with_requests = arg;
	struct gs_k8s_config *cfg = elem;
	const struct gs_kdoc *op, *params, *reqs, *sh;
	const char *api;
	int rc;

	if ((rc = gs_k8s_get_map(c, v, "opaque", field, &op)))
		return rc;
	if (!op)
		return gs_k8s_refuse(c, v, fop, "missing (opaque is the only configuration type)");
	if ((rc = gs_k8s_get_str(c, op, "driver", fop, &cfg->driver)))
		return rc;
	if (!cfg->driver)
		return gs_k8s_refuse(c, op, GS_K8S_DOT(fop, "driver"), "missing");
	if (*with_requests &&
	    ((rc = gs_k8s_get_seq(c, v, "requests", field, &reqs)) ||
	     (rc = read_request_names(c, reqs, GS_K8S_DOT(field, "requests"), &cfg->requests,
				      &cfg->n_requests))))
		return rc;
	if ((rc = gs_k8s_get_map(c, op, "parameters", fop, &params)))
		return rc;
	if (!params)
		return gs_k8s_refuse(c, op, fparams, "missing");
	cfg->kind = gs_k8s_str(c, gs_kdoc_str(params, "kind"));
	api = gs_kdoc_str(params, "apiVersion");
	/* Only NVIDIA's sharing settings matter to gpusim; other parameters are the driver's. */
	if (!api || strncmp(api, "resource.nvidia.com/", 20) != 0 || !cfg->kind ||
	    (strcmp(cfg->kind, "GpuConfig") != 0 && strcmp(cfg->kind, "MigDeviceConfig") != 0))
		return 0;
	if ((rc = gs_k8s_get_map(c, params, "sharing", fparams, &sh)))
		return rc;
	return sh ? read_sharing(c, sh, GS_K8S_DOT(fparams, "sharing"), cfg) : 0;
}

static int read_configs(struct gs_k8s_rctx *c, const struct gs_kdoc *m,
			const struct gs_k8s_path *field, bool with_requests,
			struct gs_k8s_config **out, int32_t *n_out)
{
	const struct gs_kdoc *seq;
	void *items;
	int rc;

	*n_out = 0;
	if ((rc = gs_k8s_get_seq(c, m, "config", field, &seq)) ||
	    (rc = gs_k8s_read_items(c, seq, GS_K8S_DOT(field, "config"), NULL, sizeof(**out),
				    read_config, &with_requests, &items, n_out)))
		return rc;
	*out = items;
	return 0;
}

/* --- ResourceSlice ------------------------------------------------------------------ */

/* The counters of m; field is their path ("spec.sharedCounters[0].counters"). */
static int read_counters(struct gs_k8s_rctx *c, const struct gs_kdoc *m,
			 const struct gs_k8s_path *field, struct gs_k8s_counter **out,
			 int32_t *n_out)
{
	const struct gs_kdoc *map, *v;
	int32_t i = 0;
	int rc;

	*n_out = 0;
	if ((rc = gs_k8s_get_map(c, m, "counters", GS_K8S_SELF(field), &map)))
		return rc;
	if (!map || !map->n)
		return gs_k8s_refuse(c, m, field, "missing (at least one counter)");
	if (map->n > 32)
		return gs_k8s_refuse(c, map, field, "%d counters, more than the 32 allowed", map->n);
	*out = gs_k8s_alloc(c, (size_t)map->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (v = map->child; v; v = v->next, i++) {
		const struct gs_k8s_path *f = GS_K8S_DOT(GS_K8S_KEY(field, v->key), "value");

		(*out)[i].name = gs_k8s_str(c, v->key);
		if (!(*out)[i].name)
			return gs_k8s_oom(c);
		if (v->kind != GS_KDOC_MAP)
			return gs_k8s_refuse(c, v, f, "a counter is a map with a value");
		if ((rc = gs_k8s_quantity(c, gs_kdoc_get(v, "value"), f, &(*out)[i].value)))
			return rc;
	}
	*n_out = i;
	return 0;
}

/*
 * Reads one entry of a device's attributes or capacity (v, the field at
 * path f, called name once qualified) into elem. Returns 0 or an error.
 */
typedef int (*entry_fn)(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
			const struct gs_k8s_path *f, const char *name, void *elem);

/*
 * Reads every entry of map m (NULL or empty: none) with fn into a new
 * array of size-byte elements, *out and *n_out (NULL and 0 when none);
 * entry key is named field[key] and qualified with the driver's domain.
 */
static int read_entries(struct gs_k8s_rctx *c, const struct gs_kdoc *m,
			const struct gs_k8s_path *field, const char *driver, size_t size,
			entry_fn fn, void **out, int32_t *n_out)
{
	const struct gs_kdoc *x;
	const char *name;
	char *items;
	int32_t i = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	if (!m || !m->n)
		return 0;
	if (!(items = gs_k8s_alloc(c, (size_t)m->n, size)))
		return gs_k8s_oom(c);
	for (x = m->child; x; x = x->next, i++) {
		if (!(name = qualify(c, driver, x->key)))
			return gs_k8s_oom(c);
		if ((rc = fn(c, x, GS_K8S_KEY(field, x->key), name, items + (size_t)i * size)))
			return rc;
	}
	*out = items;
	*n_out = i;
	return 0;
}

static int read_attr(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		     const struct gs_k8s_path *f, const char *name, void *elem)
{
	static const char *const types[] = { "int", "bool", "string", "version" };
	struct gs_k8s_attr *a = elem;
	const struct gs_kdoc *x = NULL;
	int k, found = -1, rc;

	a->name = name;
	if (v->kind != GS_KDOC_MAP)
		return gs_k8s_refuse(c, v, f, "an attribute is a map with one of int, bool, string, "
				     "version");
	for (k = 0; k < 4; k++)
		if (gs_kdoc_get(v, types[k])) {
			if (found >= 0)
				return gs_k8s_refuse(c, v, f, "has both %s and %s", types[found],
						     types[k]);
			found = k;
			x = gs_kdoc_get(v, types[k]);
		}
	if (found < 0 || v->n != 1)
		return gs_k8s_refuse(c, v, f, "needs exactly one of int, bool, string, version");
	a->type = (uint8_t)found;
	if (found == GS_K8S_ATTR_INT) {
		int64_t i = 0;

		rc = gs_k8s_get_int(c, v, "int", GS_K8S_SELF(f), INT64_MIN, INT64_MAX, &i);
		a->i = i;
		return rc;
	}
	if (found == GS_K8S_ATTR_BOOL)
		return gs_k8s_get_bool(c, v, "bool", GS_K8S_SELF(f), &a->b);
	if (x->kind != GS_KDOC_STR)
		return gs_k8s_refuse(c, x, f, "is %s, not a string", gs_kdoc_kind_str(x));
	if (strlen(x->str) > 64)
		return gs_k8s_refuse(c, x, f, "longer than 64 characters");
	if (found == GS_K8S_ATTR_VERSION && gs_cel_semver_cmp(x->str, x->str) == -2)
		return gs_k8s_refuse(c, x, f, "'%s' is not a semantic version (semver.org 2.0.0)",
				     x->str);
	a->s = gs_k8s_str(c, x->str);
	return a->s ? 0 : gs_k8s_oom(c);
}

static int read_cap(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		    const struct gs_k8s_path *f, const char *name, void *elem)
{
	const struct gs_k8s_path *fpol = GS_K8S_DOT(f, "requestPolicy"),
				 *fvals = GS_K8S_DOT(fpol, "validValues"),
				 *frange = GS_K8S_DOT(fpol, "validRange");
	const struct gs_kdoc *pol, *range, *vals, *x;
	struct gs_k8s_cap *cp = elem;
	int rc;

	cp->name = name;
	if (v->kind != GS_KDOC_MAP)
		return gs_k8s_refuse(c, v, f, "a capacity is a map with a value");
	if ((rc = gs_k8s_quantity(c, gs_kdoc_get(v, "value"), GS_K8S_DOT(f, "value"),
				  &cp->value)))
		return rc;
	if ((rc = gs_k8s_get_map(c, v, "requestPolicy", f, &pol)) || !pol)
		return rc;
	if (gs_kdoc_get(pol, "default")) {
		if ((rc = gs_k8s_quantity(c, gs_kdoc_get(pol, "default"), GS_K8S_DOT(fpol, "default"),
					  &cp->def)))
			return rc;
		cp->has_default = true;
	}
	if ((rc = gs_k8s_get_seq(c, pol, "validValues", fpol, &vals)))
		return rc;
	if (vals && vals->n) {
		int32_t i = 0;

		cp->valid = gs_k8s_alloc(c, (size_t)vals->n, sizeof(*cp->valid));
		if (!cp->valid)
			return gs_k8s_oom(c);
		for (x = vals->child; x; x = x->next, i++) {
			if ((rc = gs_k8s_quantity(c, x, fvals, &cp->valid[i])))
				return rc;
			if (i && gs_quantity_cmp(&cp->valid[i - 1], &cp->valid[i]) >= 0)
				return gs_k8s_refuse(c, x, fvals, "must be sorted in ascending order");
		}
		cp->n_valid = i;
	}
	if ((rc = gs_k8s_get_map(c, pol, "validRange", fpol, &range)))
		return rc;
	if (range) {
		const struct gs_k8s_path *fstep = GS_K8S_DOT(frange, "step");

		if (cp->n_valid)
			return gs_k8s_refuse(c, range, frange, "validValues and validRange exclude "
					     "each other");
		cp->has_range = true;
		if (!gs_kdoc_get(range, "min"))
			return gs_k8s_refuse(c, range, frange, "min is required");
		if ((rc = gs_k8s_quantity(c, gs_kdoc_get(range, "min"), GS_K8S_DOT(frange, "min"),
					  &cp->min)))
			return rc;
		if ((cp->has_max = gs_kdoc_get(range, "max") != NULL) &&
		    (rc = gs_k8s_quantity(c, gs_kdoc_get(range, "max"), GS_K8S_DOT(frange, "max"),
					  &cp->max)))
			return rc;
		if ((cp->has_step = gs_kdoc_get(range, "step") != NULL)) {
			if ((rc = gs_k8s_quantity(c, gs_kdoc_get(range, "step"), fstep, &cp->step)))
				return rc;
			if (gs_quantity_is_zero(&cp->step))
				return gs_k8s_refuse(c, range, fstep, "a step of 0");
		}
	}
	if ((cp->n_valid || cp->has_range) && !cp->has_default)
		return gs_k8s_refuse(c, pol, f, "requestPolicy.default is required with validValues "
				     "or validRange");
	return 0;
}

/* One device of slice arg (a gs_k8s_item_fn). */
static int read_device(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		       const struct gs_k8s_path *field, void *elem, void *arg)
{
	const struct gs_k8s_path *fcons = GS_K8S_DOT(field, "consumesCounters");
	const struct gs_k8s_slice *sl = arg;
	const struct gs_kdoc *attrs, *caps, *cons, *taints, *x;
	struct gs_k8s_device *d = elem;
	void *items;
	int32_t i;
	int rc;

	d->line = v->line;
	if ((rc = gs_k8s_need_str(c, v, "name", field, &d->name)) ||
	    (rc = gs_k8s_get_map(c, v, "attributes", field, &attrs)) ||
	    (rc = gs_k8s_get_map(c, v, "capacity", field, &caps)))
		return rc;
	if ((attrs ? attrs->n : 0) + (caps ? caps->n : 0) > 32)
		return gs_k8s_refuse(c, v, field, "more than 32 attributes and capacities");
	if ((rc = read_entries(c, attrs, GS_K8S_DOT(field, "attributes"), sl->driver,
			       sizeof(*d->attrs), read_attr, &items, &d->n_attrs)))
		return rc;
	d->attrs = items;
	if ((rc = read_entries(c, caps, GS_K8S_DOT(field, "capacity"), sl->driver,
			       sizeof(*d->caps), read_cap, &items, &d->n_caps)))
		return rc;
	d->caps = items;
	if ((rc = gs_k8s_get_bool(c, v, "allowMultipleAllocations", field, &d->multi)))
		return rc;
	for (i = 0; i < d->n_caps; i++)
		if ((d->caps[i].n_valid || d->caps[i].has_range || d->caps[i].has_default) &&
		    !d->multi)
			return gs_k8s_refuse(c, v, field, "a requestPolicy needs "
					     "allowMultipleAllocations: true");
	if ((rc = gs_k8s_get_seq(c, v, "consumesCounters", field, &cons)))
		return rc;
	if (cons && cons->n) {
		if (cons->n > 2)
			return gs_k8s_refuse(c, cons, fcons, "%d entries, more than the 2 allowed",
					     cons->n);
		d->consumes = gs_k8s_alloc(c, (size_t)cons->n, sizeof(*d->consumes));
		if (!d->consumes)
			return gs_k8s_oom(c);
		for (x = cons->child, i = 0; x; x = x->next, i++) {
			const struct gs_k8s_path *fi = GS_K8S_INDEX(fcons, i),
						 *fset = GS_K8S_DOT(fi, "counterSet");

			if ((rc = gs_k8s_get_str(c, x, "counterSet", fi, &d->consumes[i].set)))
				return rc;
			if (!d->consumes[i].set)
				return gs_k8s_refuse(c, x, fset, "missing");
			if (i && d->consumes[0].set == d->consumes[i].set)
				return gs_k8s_refuse(c, x, fset, "'%s' twice (one entry per counter "
						     "set)", d->consumes[i].set);
			if ((rc = read_counters(c, x, GS_K8S_DOT(fi, "counters"), &d->consumes[i].c,
						&d->consumes[i].n)))
				return rc;
		}
		d->n_consumes = i;
	}
	if ((rc = gs_k8s_get_seq(c, v, "taints", field, &taints)))
		return rc;
	if (taints && (rc = gs_k8s_read_taints(c, taints, GS_K8S_DOT(field, "taints"), true,
					       &d->taints, &d->n_taints)))
		return rc;
	x = gs_kdoc_get(v, "bindingConditions");
	if (x && x->kind == GS_KDOC_SEQ && x->n)
		return gs_k8s_refuse(c, x, GS_K8S_PATH("bindingConditions"), "devices with binding "
				     "conditions are not supported");
	if ((rc = gs_k8s_get_str(c, v, "nodeName", field, &d->node_name)) ||
	    (rc = gs_k8s_get_bool(c, v, "allNodes", field, &d->all_nodes)))
		return rc;
	if (!sl->per_device && (d->node_name || d->all_nodes || gs_kdoc_get(v, "nodeSelector")))
		return gs_k8s_refuse(c, v, field, "a device's node selection needs "
				     "spec.perDeviceNodeSelection: true");
	if (sl->per_device) {
		if (gs_kdoc_get(v, "nodeSelector"))
			return gs_k8s_refuse(c, v, field, "a device nodeSelector is not supported: use "
					     "nodeName or allNodes");
		if (!d->node_name == !d->all_nodes)
			return gs_k8s_refuse(c, v, field, "with perDeviceNodeSelection a device needs "
					     "exactly one of nodeName and allNodes");
	}
	return 0;
}

int gs_k8s_read_slice(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_k8s_path *fspec = GS_K8S_PATH("spec"), *fpool = GS_K8S_DOT(fspec, "pool"),
				 *fdevs = GS_K8S_DOT(fspec, "devices"),
				 *fsets = GS_K8S_DOT(fspec, "sharedCounters");
	const struct gs_kdoc *spec, *pool, *devs, *sets, *v, *sel;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_slice *sl;
	void *items;
	int32_t i;
	int rc, modes;

	GS_K8S_PUSH(s, slices, sl);
	if (!sl)
		return gs_k8s_oom(c);
	sl->o = c->o;
	if ((rc = gs_k8s_need_map(c, obj, "spec", NULL, &spec)) ||
	    (rc = gs_k8s_need_str(c, spec, "driver", fspec, &sl->driver)) ||
	    (rc = gs_k8s_need_map(c, spec, "pool", fspec, &pool)) ||
	    (rc = gs_k8s_need_str(c, pool, "name", fpool, &sl->pool)))
		return rc;
	sl->slice_count = -1;
	if ((rc = gs_k8s_get_int(c, pool, "generation", fpool, 0, INT64_MAX, &sl->generation)) ||
	    (rc = gs_k8s_get_int(c, pool, "resourceSliceCount", fpool, 1, INT64_MAX,
				 &sl->slice_count)))
		return rc;
	if (sl->slice_count < 0)
		return gs_k8s_refuse(c, pool, GS_K8S_DOT(fpool, "resourceSliceCount"), "missing");
	if ((rc = gs_k8s_get_str(c, spec, "nodeName", fspec, &sl->node_name)) ||
	    (rc = gs_k8s_get_bool(c, spec, "allNodes", fspec, &sl->all_nodes)) ||
	    (rc = gs_k8s_get_bool(c, spec, "perDeviceNodeSelection", fspec, &sl->per_device)) ||
	    (rc = gs_k8s_get_map(c, spec, "nodeSelector", fspec, &sel)))
		return rc;
	if (sel) {
		const struct gs_k8s_path *fsel = GS_K8S_DOT(fspec, "nodeSelector"),
					 *fterms = GS_K8S_DOT(fsel, "nodeSelectorTerms");
		const struct gs_kdoc *terms = gs_kdoc_get(sel, "nodeSelectorTerms");

		if (!terms)
			return gs_k8s_refuse(c, sel, fterms, "missing");
		rc = gs_k8s_read_terms(c, terms, fterms, &sl->node_selector);
		if (rc == GS_ENOENT)
			return gs_k8s_refuse(c, sel, fsel, "matchFields is not supported");
		if (rc)
			return rc;
		sl->has_node_selector = true;
	}
	if ((rc = gs_k8s_get_seq(c, spec, "devices", fspec, &devs)) ||
	    (rc = gs_k8s_get_seq(c, spec, "sharedCounters", fspec, &sets)))
		return rc;
	modes = (sl->node_name != NULL) + sl->all_nodes + sl->per_device + sl->has_node_selector;
	/* A slice of counter sets only needs no node selection of its own. */
	if (modes != 1 && !(modes == 0 && sets && sets->n && (!devs || !devs->n)))
		return gs_k8s_refuse(c, spec, fspec, "exactly one of nodeName, nodeSelector, "
				     "allNodes and perDeviceNodeSelection must be set");
	if (devs && devs->n > 128)
		return gs_k8s_refuse(c, devs, fdevs, "%d devices, more than the 128 "
				     "allowed", devs->n);
	if (sets && sets->n > 8)
		return gs_k8s_refuse(c, sets, fsets, "%d counter sets, more than "
				     "the 8 allowed", sets->n);
	if (sets && sets->n) {
		sl->sets = gs_k8s_alloc(c, (size_t)sets->n, sizeof(*sl->sets));
		if (!sl->sets)
			return gs_k8s_oom(c);
		for (v = sets->child, i = 0; v; v = v->next, i++) {
			const struct gs_k8s_path *f = GS_K8S_INDEX(fsets, i);

			if ((rc = gs_k8s_get_str(c, v, "name", f, &sl->sets[i].name)))
				return rc;
			if (!sl->sets[i].name)
				return gs_k8s_refuse(c, v, GS_K8S_DOT(f, "name"), "missing");
			if ((rc = read_counters(c, v, GS_K8S_DOT(f, "counters"), &sl->sets[i].c,
						&sl->sets[i].n)))
				return rc;
		}
		sl->n_sets = i;
	}
	if ((rc = gs_k8s_read_items(c, devs, fdevs, "a device", sizeof(*sl->devices),
				    read_device, sl, &items, &sl->n_devices)))
		return rc;
	sl->devices = items;
	return 0;
}

/* --- DeviceClass ------------------------------------------------------------------- */

int gs_k8s_read_class(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *spec;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_class *cl;
	int rc;

	GS_K8S_PUSH(s, classes, cl);
	if (!cl)
		return gs_k8s_oom(c);
	cl->o = c->o;
	if ((rc = gs_k8s_get_map(c, obj, "spec", NULL, &spec)) || !spec)
		return rc;
	if ((rc = read_selectors(c, spec, GS_K8S_PATH("spec"), &cl->selectors, &cl->n_selectors)))
		return rc;
	return read_configs(c, spec, GS_K8S_PATH("spec"), false, &cl->configs, &cl->n_configs);
}

/* --- claims ---------------------------------------------------------------------------- */

/*
 * A request's device part: exactly, or (arg true, a gs_k8s_item_fn) one
 * of its firstAvailable subrequests, which have names of their own.
 */
static int read_subrequest(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
			   const struct gs_k8s_path *field, void *elem, void *arg)
{
	const struct gs_k8s_path *fcap = GS_K8S_DOT(field, "capacity");
	const bool *sub = arg;
	struct gs_k8s_subrequest *r = elem;
	const struct gs_kdoc *cap, *reqs, *tol;
	const char *mode;
	int rc;

	if (*sub && (rc = gs_k8s_need_str(c, v, "name", field, &r->name)))
		return rc;
	if ((rc = gs_k8s_get_str(c, v, "deviceClassName", field, &r->class_name)))
		return rc;
	if (!r->class_name || !*r->class_name)
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "deviceClassName"), "missing (a request "
				     "names its DeviceClass)");
	if ((rc = read_selectors(c, v, field, &r->selectors, &r->n_selectors)) ||
	    (rc = gs_k8s_get_str(c, v, "allocationMode", field, &mode)))
		return rc;
	if (mode && strcmp(mode, "All") == 0)
		r->mode = GS_K8S_ALL;
	else if (mode && strcmp(mode, "ExactCount") != 0)
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "allocationMode"), "'%s' is not "
				     "ExactCount or All", mode);
	r->count = 1;
	if ((rc = gs_k8s_get_int(c, v, "count", field, 1, 32, &r->count)))
		return rc;
	if (r->mode == GS_K8S_ALL && gs_kdoc_get(v, "count"))
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "count"), "count is for "
				     "allocationMode ExactCount");
	if ((rc = gs_k8s_get_bool(c, v, "adminAccess", field, &r->admin)))
		return rc;
	if (*sub && gs_kdoc_get(v, "adminAccess"))
		return gs_k8s_refuse(c, v, GS_K8S_DOT(field, "adminAccess"), "not a field of a "
				     "firstAvailable subrequest");
	if ((rc = gs_k8s_get_seq(c, v, "tolerations", field, &tol)))
		return rc;
	if (tol && (rc = gs_k8s_read_tolerations(c, tol, GS_K8S_DOT(field, "tolerations"),
						 &r->tolerations, &r->n_tolerations)))
		return rc;
	if ((rc = gs_k8s_get_map(c, v, "capacity", field, &cap)) ||
	    (rc = gs_k8s_get_map(c, cap, "requests", fcap, &reqs)))
		return rc;
	return read_quantities(c, reqs, GS_K8S_DOT(fcap, "requests"), NULL, &r->cap_requests,
			       &r->n_cap_requests);
}

/* One constraint of a claim (a gs_k8s_item_fn); whatever is wrong is said of the constraint. */
static int read_constraint(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
			   const struct gs_k8s_path *field, void *elem, void *arg)
{
	const struct gs_k8s_path *self = GS_K8S_SELF(field);
	struct gs_k8s_constraint *k = elem;
	const struct gs_kdoc *names;
	int rc;

	(void)arg;
	if ((rc = gs_k8s_get_str(c, v, "matchAttribute", self, &k->match)) ||
	    (rc = gs_k8s_get_str(c, v, "distinctAttribute", self, &k->distinct)) ||
	    (rc = gs_k8s_get_seq(c, v, "requests", self, &names)))
		return rc;
	if (!k->match == !k->distinct)
		return gs_k8s_refuse(c, v, field, "exactly one of matchAttribute and "
				     "distinctAttribute must be set");
	if (!strchr(k->match ? k->match : k->distinct, '/'))
		return gs_k8s_refuse(c, v, field, "'%s' must include the domain (domain/name)",
				     k->match ? k->match : k->distinct);
	return read_request_names(c, names, field, &k->requests, &k->n_requests);
}

static int read_claim_spec(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
			   const struct gs_k8s_path *field, struct gs_k8s_claim_spec *cs)
{
	const struct gs_k8s_path *fdev = GS_K8S_DOT(field, "devices"),
				 *f = GS_K8S_DOT(fdev, "requests");
	const struct gs_kdoc *devices, *reqs, *cons, *v;
	void *items;
	int32_t i;
	int rc;

	if ((rc = gs_k8s_get_map(c, spec, "devices", field, &devices)) || !devices)
		return rc;
	if ((rc = gs_k8s_get_seq(c, devices, "requests", fdev, &reqs)))
		return rc;
	if (reqs && reqs->n > 32)
		return gs_k8s_refuse(c, reqs, f, "more than 32 requests");
	if (reqs && reqs->n) {
		cs->requests = gs_k8s_alloc(c, (size_t)reqs->n, sizeof(*cs->requests));
		if (!cs->requests)
			return gs_k8s_oom(c);
		for (v = reqs->child, i = 0; v; v = v->next, i++) {
			struct gs_k8s_request *r = &cs->requests[i];
			const struct gs_k8s_path *g = GS_K8S_INDEX(f, i);
			const struct gs_kdoc *ex, *fa;
			bool exactly = false, first = true;
			void *subs;
			int32_t k;

			if ((rc = gs_k8s_need_str(c, v, "name", g, &r->name)))
				return rc;
			for (k = 0; k < i; k++)
				if (cs->requests[k].name == r->name)
					return gs_k8s_refuse(c, v, GS_K8S_DOT(g, "name"), "'%s' twice",
							     r->name);
			/* Either one that is not what it should be is said of the request. */
			if ((rc = gs_k8s_get_map(c, v, "exactly", GS_K8S_SELF(g), &ex)) ||
			    (rc = gs_k8s_get_seq(c, v, "firstAvailable", GS_K8S_SELF(g), &fa)))
				return rc;
			if (!ex == !(fa && fa->n))
				return gs_k8s_refuse(c, v, g, "exactly one of exactly and "
						     "firstAvailable must be set");
			if (ex) {
				r->n_sub = 1;
				r->sub = gs_k8s_alloc(c, 1, sizeof(*r->sub));
				if (!r->sub)
					return gs_k8s_oom(c);
				r->sub->name = r->name;
				if ((rc = read_subrequest(c, ex, GS_K8S_DOT(g, "exactly"), r->sub,
							  &exactly)))
					return rc;
				continue;
			}
			if (fa->n > 8)
				return gs_k8s_refuse(c, fa, g, "more than 8 firstAvailable subrequests");
			r->first_available = true;
			if ((rc = gs_k8s_read_items(c, fa, GS_K8S_DOT(g, "firstAvailable"), "a request",
						    sizeof(*r->sub), read_subrequest, &first, &subs,
						    &r->n_sub)))
				return rc;
			r->sub = subs;
		}
		cs->n_requests = i;
	}
	if ((rc = gs_k8s_get_seq(c, devices, "constraints", fdev, &cons)) ||
	    (rc = gs_k8s_read_items(c, cons, GS_K8S_DOT(fdev, "constraints"), NULL,
				    sizeof(*cs->constraints), read_constraint, NULL, &items,
				    &cs->n_constraints)))
		return rc;
	cs->constraints = items;
	return read_configs(c, devices, fdev, true, &cs->configs, &cs->n_configs);
}

static int read_allocation(struct gs_k8s_rctx *c, const struct gs_kdoc *status,
			   struct gs_k8s_claim *cl)
{
	const struct gs_k8s_path *fstatus = GS_K8S_PATH("status"),
				 *falloc = GS_K8S_DOT(fstatus, "allocation"),
				 *fdev = GS_K8S_DOT(falloc, "devices"),
				 *fres = GS_K8S_DOT(fdev, "results");
	const struct gs_kdoc *alloc, *devices, *results, *reserved, *v;
	int32_t i = 0;
	int rc;

	if ((rc = gs_k8s_get_map(c, status, "allocation", fstatus, &alloc)))
		return rc;
	if (!alloc)
		return 0;
	cl->allocated = true;
	if ((rc = gs_k8s_get_map(c, alloc, "devices", falloc, &devices)) ||
	    (rc = gs_k8s_get_seq(c, devices, "results", fdev, &results)))
		return rc;
	if (results && results->n) {
		cl->results = gs_k8s_alloc(c, (size_t)results->n, sizeof(*cl->results));
		if (!cl->results)
			return gs_k8s_oom(c);
		for (v = results->child; v; v = v->next, i++) {
			struct gs_k8s_result *r = &cl->results[i];
			const struct gs_k8s_path *f = GS_K8S_INDEX(fres, i), *self = GS_K8S_SELF(f);
			const struct gs_kdoc *cons;

			/* Whatever is wrong in a result is said of the result. */
			if ((rc = gs_k8s_get_str(c, v, "request", self, &r->request)) ||
			    (rc = gs_k8s_get_str(c, v, "driver", self, &r->driver)) ||
			    (rc = gs_k8s_get_str(c, v, "pool", self, &r->pool)) ||
			    (rc = gs_k8s_get_str(c, v, "device", self, &r->device)) ||
			    (rc = gs_k8s_get_map(c, v, "consumedCapacity", self, &cons)))
				return rc;
			if (!r->request || !r->driver || !r->pool || !r->device)
				return gs_k8s_refuse(c, v, f, "a result needs request, driver, pool "
						     "and device");
			if ((rc = read_quantities(c, cons, GS_K8S_DOT(f, "consumedCapacity"), r->driver,
						  &r->consumed, &r->n_consumed)))
				return rc;
		}
	}
	cl->n_results = i;
	if ((rc = gs_k8s_get_seq(c, status, "reservedFor", fstatus, &reserved)))
		return rc;
	if (reserved && reserved->n) {
		cl->reserved = gs_k8s_alloc(c, (size_t)reserved->n, sizeof(char *));
		if (!cl->reserved)
			return gs_k8s_oom(c);
		for (v = reserved->child; v; v = v->next)
			if ((rc = gs_k8s_get_str(c, v, "name", GS_K8S_DOT(fstatus, "reservedFor"),
						 &cl->reserved[cl->n_reserved++])))
				return rc;
	}
	return 0;
}

int gs_k8s_read_claim(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *spec, *status;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_claim *cl;
	int rc;

	GS_K8S_PUSH(s, claims, cl);
	if (!cl)
		return gs_k8s_oom(c);
	cl->o = c->o;
	if ((rc = gs_k8s_get_map(c, obj, "spec", NULL, &spec)))
		return rc;
	if (spec && (rc = read_claim_spec(c, spec, GS_K8S_PATH("spec"), &cl->spec)))
		return rc;
	if ((rc = gs_k8s_get_map(c, obj, "status", NULL, &status)))
		return rc;
	return read_allocation(c, status, cl);
}

int gs_k8s_read_template(struct gs_k8s_rctx *c, const struct gs_kdoc *obj)
{
	const struct gs_kdoc *spec, *inner;
	struct gs_k8s_snapshot *s = c->s;
	struct gs_k8s_template *t;
	int rc;

	GS_K8S_PUSH(s, templates, t);
	if (!t)
		return gs_k8s_oom(c);
	t->o = c->o;
	if ((rc = gs_k8s_get_map(c, obj, "spec", NULL, &spec)) ||
	    (rc = gs_k8s_get_map(c, spec, "spec", GS_K8S_PATH("spec"), &inner)))
		return rc;
	if (!inner)
		return gs_k8s_refuse(c, spec ? spec : obj, GS_K8S_PATH("spec.spec"), "missing (the "
				     "claim's spec)");
	return read_claim_spec(c, inner, GS_K8S_PATH("spec.spec"), &t->spec);
}
