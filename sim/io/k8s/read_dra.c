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
static int read_quantities(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *field,
			   const char *driver, struct gs_k8s_res **out, int32_t *n_out)
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
		char f[400];

		gs_k8s_fieldf(f, sizeof(f), "%s[%s]", field, x->key);
		(*out)[i].name = driver ? qualify(c, driver, x->key) : gs_k8s_str(c, x->key);
		if (!(*out)[i].name)
			return gs_k8s_oom(c);
		if ((rc = gs_k8s_quantity(c, x, f, &(*out)[i].q)))
			return rc;
	}
	*n_out = i;
	return 0;
}

/* --- CEL ------------------------------------------------------------------------- */

/* The compiled selector of expr, shared by every object that uses the same text. */
static int compile(struct gs_k8s_rctx *c, const struct gs_kdoc *at, const char *field,
		   const char *expr, struct gs_k8s_selector_cel *out)
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

static int read_selectors(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *field,
			  struct gs_k8s_selector_cel **out, int32_t *n_out)
{
	const struct gs_kdoc *seq, *v;
	char f[300];
	int32_t i = 0;
	int rc;

	*n_out = 0;
	gs_k8s_fieldf(f, sizeof(f), "%s.selectors", field);
	if ((rc = gs_k8s_get_seq(c, m, "selectors", f, &seq)) || !seq || !seq->n)
		return rc;
	*out = gs_k8s_alloc(c, (size_t)seq->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (v = seq->child; v; v = v->next, i++) {
		const struct gs_kdoc *cel;
		const char *expr;

		gs_k8s_fieldf(f, sizeof(f), "%s.selectors[%d].cel.expression", field, (int)i);
		if ((rc = gs_k8s_get_map(c, v, "cel", f, &cel)) ||
		    (rc = gs_k8s_get_str(c, cel, "expression", f, &expr)))
			return rc;
		if (!expr || !*expr)
			return gs_k8s_refuse(c, v, f, "missing (cel is the only selector type)");
		if ((rc = compile(c, v, f, expr, &(*out)[i])))
			return rc;
	}
	*n_out = i;
	return 0;
}

/* The request names of list seq (NULL: none), which a config or a constraint applies to. */
static int read_request_names(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
			      const char *field, const char ***out, int32_t *n_out)
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

static int read_sharing(struct gs_k8s_rctx *c, const struct gs_kdoc *sh, const char *field,
			struct gs_k8s_config *cfg)
{
	const char *strategy;
	char f[320];
	int rc;

	gs_k8s_fieldf(f, sizeof(f), "%s.strategy", field);
	if ((rc = gs_k8s_get_str(c, sh, "strategy", f, &strategy)))
		return rc;
	if (!strategy)
		return gs_k8s_refuse(c, sh, f, "missing");
	if (strcmp(strategy, "TimeSlicing") == 0) {
		gs_share_cfg_init(&cfg->sharing, GS_SHARE_TIMESLICE);
	} else if (strcmp(strategy, "MPS") == 0) {
		const struct gs_kdoc *mps;
		int64_t pct = 0;

		gs_share_cfg_init(&cfg->sharing, GS_SHARE_MPS);
		gs_k8s_fieldf(f, sizeof(f), "%s.mpsConfig", field);
		if ((rc = gs_k8s_get_map(c, sh, "mpsConfig", f, &mps)))
			return rc;
		gs_k8s_fieldf(f, sizeof(f), "%s.mpsConfig.defaultActiveThreadPercentage", field);
		if ((rc = gs_k8s_get_int(c, mps, "defaultActiveThreadPercentage", f, 1, 100, &pct)))
			return rc;
		cfg->sharing.thread_pct = (uint8_t)pct;
		if (gs_kdoc_get(mps, "defaultPinnedDeviceMemoryLimit")) {
			struct gs_quantity q;

			gs_k8s_fieldf(f, sizeof(f), "%s.mpsConfig.defaultPinnedDeviceMemoryLimit", field);
			if ((rc = gs_k8s_quantity(c, gs_kdoc_get(mps, "defaultPinnedDeviceMemoryLimit"),
						  f, &q)))
				return rc;
			cfg->sharing.pinned_mib = q.whole >> 20;
			if (cfg->sharing.pinned_mib <= 0)
				return gs_k8s_refuse(c, mps, f, "below 1Mi");
		}
	} else {
		return gs_k8s_refuse(c, sh, f, "'%s' is not a sharing strategy gpusim models "
				     "(TimeSlicing or MPS)", strategy);
	}
	cfg->has_sharing = true;
	return 0;
}

static int read_configs(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *field,
			bool with_requests, struct gs_k8s_config **out, int32_t *n_out)
{
	const struct gs_kdoc *seq, *v;
	char f[300];
	int32_t i = 0;
	int rc;

	*n_out = 0;
	gs_k8s_fieldf(f, sizeof(f), "%s.config", field);
	if ((rc = gs_k8s_get_seq(c, m, "config", f, &seq)) || !seq || !seq->n)
		return rc;
	*out = gs_k8s_alloc(c, (size_t)seq->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (v = seq->child; v; v = v->next, i++) {
		struct gs_k8s_config *cfg = &(*out)[i];
		const struct gs_kdoc *op, *params, *reqs, *sh;
		const char *api;
		char g[340];

		gs_k8s_fieldf(g, sizeof(g), "%s.config[%d].opaque", field, (int)i);
		if ((rc = gs_k8s_get_map(c, v, "opaque", g, &op)))
			return rc;
		if (!op)
			return gs_k8s_refuse(c, v, g, "missing (opaque is the only configuration type)");
		gs_k8s_fieldf(g, sizeof(g), "%s.config[%d].opaque.driver", field, (int)i);
		if ((rc = gs_k8s_get_str(c, op, "driver", g, &cfg->driver)))
			return rc;
		if (!cfg->driver)
			return gs_k8s_refuse(c, op, g, "missing");
		if (with_requests) {
			gs_k8s_fieldf(g, sizeof(g), "%s.config[%d].requests", field, (int)i);
			if ((rc = gs_k8s_get_seq(c, v, "requests", g, &reqs)) ||
			    (rc = read_request_names(c, reqs, g, &cfg->requests, &cfg->n_requests)))
				return rc;
		}
		gs_k8s_fieldf(g, sizeof(g), "%s.config[%d].opaque.parameters", field, (int)i);
		if ((rc = gs_k8s_get_map(c, op, "parameters", g, &params)))
			return rc;
		if (!params)
			return gs_k8s_refuse(c, op, g, "missing");
		cfg->kind = gs_k8s_str(c, gs_kdoc_str(params, "kind"));
		api = gs_kdoc_str(params, "apiVersion");
		/* Only NVIDIA's sharing settings matter to gpusim; other parameters are the driver's. */
		if (!api || strncmp(api, "resource.nvidia.com/", 20) != 0 || !cfg->kind ||
		    (strcmp(cfg->kind, "GpuConfig") != 0 && strcmp(cfg->kind, "MigDeviceConfig") != 0))
			continue;
		gs_k8s_fieldf(g, sizeof(g), "%s.config[%d].opaque.parameters.sharing", field, (int)i);
		if ((rc = gs_k8s_get_map(c, params, "sharing", g, &sh)))
			return rc;
		if (sh && (rc = read_sharing(c, sh, g, cfg)))
			return rc;
	}
	*n_out = i;
	return 0;
}

/* --- ResourceSlice ------------------------------------------------------------------ */

static int read_counters(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *field,
			 struct gs_k8s_counter **out, int32_t *n_out)
{
	const struct gs_kdoc *map, *v;
	int32_t i = 0;
	int rc;

	*n_out = 0;
	if ((rc = gs_k8s_get_map(c, m, "counters", field, &map)))
		return rc;
	if (!map || !map->n)
		return gs_k8s_refuse(c, m, field, "missing (at least one counter)");
	if (map->n > 32)
		return gs_k8s_refuse(c, map, field, "%d counters, more than the 32 allowed", map->n);
	*out = gs_k8s_alloc(c, (size_t)map->n, sizeof(**out));
	if (!*out)
		return gs_k8s_oom(c);
	for (v = map->child; v; v = v->next, i++) {
		char f[340];

		gs_k8s_fieldf(f, sizeof(f), "%s[%s].value", field, v->key);
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

static int read_attr(struct gs_k8s_rctx *c, const struct gs_kdoc *v, const char *f,
		     struct gs_k8s_attr *a)
{
	static const char *const types[] = { "int", "bool", "string", "version" };
	const struct gs_kdoc *x = NULL;
	int k, found = -1, rc;

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

		rc = gs_k8s_get_int(c, v, "int", f, INT64_MIN, INT64_MAX, &i);
		a->i = i;
		return rc;
	}
	if (found == GS_K8S_ATTR_BOOL)
		return gs_k8s_get_bool(c, v, "bool", f, &a->b);
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

static int read_cap(struct gs_k8s_rctx *c, const struct gs_kdoc *v, const char *f,
		    struct gs_k8s_cap *cp)
{
	const struct gs_kdoc *pol, *range, *vals, *x;
	char g[400];
	int rc;

	if (v->kind != GS_KDOC_MAP)
		return gs_k8s_refuse(c, v, f, "a capacity is a map with a value");
	gs_k8s_fieldf(g, sizeof(g), "%s.value", f);
	if ((rc = gs_k8s_quantity(c, gs_kdoc_get(v, "value"), g, &cp->value)))
		return rc;
	gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy", f);
	if ((rc = gs_k8s_get_map(c, v, "requestPolicy", g, &pol)) || !pol)
		return rc;
	if (gs_kdoc_get(pol, "default")) {
		gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.default", f);
		if ((rc = gs_k8s_quantity(c, gs_kdoc_get(pol, "default"), g, &cp->def)))
			return rc;
		cp->has_default = true;
	}
	gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.validValues", f);
	if ((rc = gs_k8s_get_seq(c, pol, "validValues", g, &vals)))
		return rc;
	if (vals && vals->n) {
		int32_t i = 0;

		cp->valid = gs_k8s_alloc(c, (size_t)vals->n, sizeof(*cp->valid));
		if (!cp->valid)
			return gs_k8s_oom(c);
		for (x = vals->child; x; x = x->next, i++) {
			if ((rc = gs_k8s_quantity(c, x, g, &cp->valid[i])))
				return rc;
			if (i && gs_quantity_cmp(&cp->valid[i - 1], &cp->valid[i]) >= 0)
				return gs_k8s_refuse(c, x, g, "must be sorted in ascending order");
		}
		cp->n_valid = i;
	}
	gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.validRange", f);
	if ((rc = gs_k8s_get_map(c, pol, "validRange", g, &range)))
		return rc;
	if (range) {
		if (cp->n_valid)
			return gs_k8s_refuse(c, range, g, "validValues and validRange exclude each "
					     "other");
		cp->has_range = true;
		if (!gs_kdoc_get(range, "min"))
			return gs_k8s_refuse(c, range, g, "min is required");
		gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.validRange.min", f);
		if ((rc = gs_k8s_quantity(c, gs_kdoc_get(range, "min"), g, &cp->min)))
			return rc;
		if ((cp->has_max = gs_kdoc_get(range, "max") != NULL)) {
			gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.validRange.max", f);
			if ((rc = gs_k8s_quantity(c, gs_kdoc_get(range, "max"), g, &cp->max)))
				return rc;
		}
		if ((cp->has_step = gs_kdoc_get(range, "step") != NULL)) {
			gs_k8s_fieldf(g, sizeof(g), "%s.requestPolicy.validRange.step", f);
			if ((rc = gs_k8s_quantity(c, gs_kdoc_get(range, "step"), g, &cp->step)))
				return rc;
			if (gs_quantity_is_zero(&cp->step))
				return gs_k8s_refuse(c, range, g, "a step of 0");
		}
	}
	if ((cp->n_valid || cp->has_range) && !cp->has_default)
		return gs_k8s_refuse(c, pol, f, "requestPolicy.default is required with validValues "
				     "or validRange");
	return 0;
}

/* One device of slice arg (a gs_k8s_item_fn). */
static int read_device(struct gs_k8s_rctx *c, const struct gs_kdoc *v, const char *field,
		       void *elem, void *arg)
{
	const struct gs_k8s_slice *sl = arg;
	const struct gs_kdoc *attrs, *caps, *cons, *taints, *x;
	struct gs_k8s_device *d = elem;
	char f[360];
	int32_t i;
	int rc;

	d->line = v->line;
	gs_k8s_fieldf(f, sizeof(f), "%s.name", field);
	if ((rc = gs_k8s_need_str(c, v, "name", f, &d->name)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.attributes", field);
	if ((rc = gs_k8s_get_map(c, v, "attributes", f, &attrs)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.capacity", field);
	if ((rc = gs_k8s_get_map(c, v, "capacity", f, &caps)))
		return rc;
	if ((attrs ? attrs->n : 0) + (caps ? caps->n : 0) > 32)
		return gs_k8s_refuse(c, v, field, "more than 32 attributes and capacities");
	if (attrs && attrs->n) {
		d->attrs = gs_k8s_alloc(c, (size_t)attrs->n, sizeof(*d->attrs));
		if (!d->attrs)
			return gs_k8s_oom(c);
		for (x = attrs->child, i = 0; x; x = x->next, i++) {
			gs_k8s_fieldf(f, sizeof(f), "%s.attributes[%s]", field, x->key);
			if (!(d->attrs[i].name = qualify(c, sl->driver, x->key)))
				return gs_k8s_oom(c);
			if ((rc = read_attr(c, x, f, &d->attrs[i])))
				return rc;
		}
		d->n_attrs = i;
	}
	if (caps && caps->n) {
		d->caps = gs_k8s_alloc(c, (size_t)caps->n, sizeof(*d->caps));
		if (!d->caps)
			return gs_k8s_oom(c);
		for (x = caps->child, i = 0; x; x = x->next, i++) {
			gs_k8s_fieldf(f, sizeof(f), "%s.capacity[%s]", field, x->key);
			if (!(d->caps[i].name = qualify(c, sl->driver, x->key)))
				return gs_k8s_oom(c);
			if ((rc = read_cap(c, x, f, &d->caps[i])))
				return rc;
		}
		d->n_caps = i;
	}
	gs_k8s_fieldf(f, sizeof(f), "%s.allowMultipleAllocations", field);
	if ((rc = gs_k8s_get_bool(c, v, "allowMultipleAllocations", f, &d->multi)))
		return rc;
	for (i = 0; i < d->n_caps; i++)
		if ((d->caps[i].n_valid || d->caps[i].has_range || d->caps[i].has_default) &&
		    !d->multi)
			return gs_k8s_refuse(c, v, field, "a requestPolicy needs "
					     "allowMultipleAllocations: true");
	gs_k8s_fieldf(f, sizeof(f), "%s.consumesCounters", field);
	if ((rc = gs_k8s_get_seq(c, v, "consumesCounters", f, &cons)))
		return rc;
	if (cons && cons->n) {
		if (cons->n > 2)
			return gs_k8s_refuse(c, cons, f, "%d entries, more than the 2 allowed", cons->n);
		d->consumes = gs_k8s_alloc(c, (size_t)cons->n, sizeof(*d->consumes));
		if (!d->consumes)
			return gs_k8s_oom(c);
		for (x = cons->child, i = 0; x; x = x->next, i++) {
			gs_k8s_fieldf(f, sizeof(f), "%s.consumesCounters[%d].counterSet", field, (int)i);
			if ((rc = gs_k8s_get_str(c, x, "counterSet", f, &d->consumes[i].set)))
				return rc;
			if (!d->consumes[i].set)
				return gs_k8s_refuse(c, x, f, "missing");
			if (i && d->consumes[0].set == d->consumes[i].set)
				return gs_k8s_refuse(c, x, f, "'%s' twice (one entry per counter set)",
						     d->consumes[i].set);
			gs_k8s_fieldf(f, sizeof(f), "%s.consumesCounters[%d].counters", field, (int)i);
			if ((rc = read_counters(c, x, f, &d->consumes[i].c, &d->consumes[i].n)))
				return rc;
		}
		d->n_consumes = i;
	}
	gs_k8s_fieldf(f, sizeof(f), "%s.taints", field);
	if ((rc = gs_k8s_get_seq(c, v, "taints", f, &taints)))
		return rc;
	if (taints && (rc = gs_k8s_read_taints(c, taints, f, true, &d->taints, &d->n_taints)))
		return rc;
	x = gs_kdoc_get(v, "bindingConditions");
	if (x && x->kind == GS_KDOC_SEQ && x->n)
		return gs_k8s_refuse(c, x, "bindingConditions", "devices with binding conditions "
				     "are not supported");
	gs_k8s_fieldf(f, sizeof(f), "%s.nodeName", field);
	if ((rc = gs_k8s_get_str(c, v, "nodeName", f, &d->node_name)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.allNodes", field);
	if ((rc = gs_k8s_get_bool(c, v, "allNodes", f, &d->all_nodes)))
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
	if ((rc = gs_k8s_need_map(c, obj, "spec", "spec", &spec)) ||
	    (rc = gs_k8s_need_str(c, spec, "driver", "spec.driver", &sl->driver)) ||
	    (rc = gs_k8s_need_map(c, spec, "pool", "spec.pool", &pool)) ||
	    (rc = gs_k8s_need_str(c, pool, "name", "spec.pool.name", &sl->pool)))
		return rc;
	sl->slice_count = -1;
	if ((rc = gs_k8s_get_int(c, pool, "generation", "spec.pool.generation", 0, INT64_MAX,
				 &sl->generation)) ||
	    (rc = gs_k8s_get_int(c, pool, "resourceSliceCount", "spec.pool.resourceSliceCount", 1,
				 INT64_MAX, &sl->slice_count)))
		return rc;
	if (sl->slice_count < 0)
		return gs_k8s_refuse(c, pool, "spec.pool.resourceSliceCount", "missing");
	if ((rc = gs_k8s_get_str(c, spec, "nodeName", "spec.nodeName", &sl->node_name)) ||
	    (rc = gs_k8s_get_bool(c, spec, "allNodes", "spec.allNodes", &sl->all_nodes)) ||
	    (rc = gs_k8s_get_bool(c, spec, "perDeviceNodeSelection", "spec.perDeviceNodeSelection",
				  &sl->per_device)) ||
	    (rc = gs_k8s_get_map(c, spec, "nodeSelector", "spec.nodeSelector", &sel)))
		return rc;
	if (sel) {
		const struct gs_kdoc *terms = gs_kdoc_get(sel, "nodeSelectorTerms");

		if (!terms)
			return gs_k8s_refuse(c, sel, "spec.nodeSelector.nodeSelectorTerms", "missing");
		rc = gs_k8s_read_terms(c, terms, "spec.nodeSelector.nodeSelectorTerms",
				       &sl->node_selector);
		if (rc == GS_ENOENT)
			return gs_k8s_refuse(c, sel, "spec.nodeSelector", "matchFields is not "
					     "supported");
		if (rc)
			return rc;
		sl->has_node_selector = true;
	}
	if ((rc = gs_k8s_get_seq(c, spec, "devices", "spec.devices", &devs)) ||
	    (rc = gs_k8s_get_seq(c, spec, "sharedCounters", "spec.sharedCounters", &sets)))
		return rc;
	modes = (sl->node_name != NULL) + sl->all_nodes + sl->per_device + sl->has_node_selector;
	/* A slice of counter sets only needs no node selection of its own. */
	if (modes != 1 && !(modes == 0 && sets && sets->n && (!devs || !devs->n)))
		return gs_k8s_refuse(c, spec, "spec", "exactly one of nodeName, nodeSelector, "
				     "allNodes and perDeviceNodeSelection must be set");
	if (devs && devs->n > 128)
		return gs_k8s_refuse(c, devs, "spec.devices", "%d devices, more than the 128 "
				     "allowed", devs->n);
	if (sets && sets->n > 8)
		return gs_k8s_refuse(c, sets, "spec.sharedCounters", "%d counter sets, more than "
				     "the 8 allowed", sets->n);
	if (sets && sets->n) {
		sl->sets = gs_k8s_alloc(c, (size_t)sets->n, sizeof(*sl->sets));
		if (!sl->sets)
			return gs_k8s_oom(c);
		for (v = sets->child, i = 0; v; v = v->next, i++) {
			char f[200];

			gs_k8s_fieldf(f, sizeof(f), "spec.sharedCounters[%d].name", (int)i);
			if ((rc = gs_k8s_get_str(c, v, "name", f, &sl->sets[i].name)))
				return rc;
			if (!sl->sets[i].name)
				return gs_k8s_refuse(c, v, f, "missing");
			gs_k8s_fieldf(f, sizeof(f), "spec.sharedCounters[%d].counters", (int)i);
			if ((rc = read_counters(c, v, f, &sl->sets[i].c, &sl->sets[i].n)))
				return rc;
		}
		sl->n_sets = i;
	}
	if ((rc = gs_k8s_read_items(c, devs, "spec.devices", "a device", sizeof(*sl->devices),
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
	if ((rc = gs_k8s_get_map(c, obj, "spec", "spec", &spec)) || !spec)
		return rc;
	if ((rc = read_selectors(c, spec, "spec", &cl->selectors, &cl->n_selectors)))
		return rc;
	return read_configs(c, spec, "spec", false, &cl->configs, &cl->n_configs);
}

/* --- claims ---------------------------------------------------------------------------- */

/*
 * A request's device part: exactly, or (arg true, a gs_k8s_item_fn) one
 * of its firstAvailable subrequests, which have names of their own.
 */
static int read_subrequest(struct gs_k8s_rctx *c, const struct gs_kdoc *v, const char *field,
			   void *elem, void *arg)
{
	const bool *sub = arg;
	struct gs_k8s_subrequest *r = elem;
	const struct gs_kdoc *cap, *reqs, *tol;
	const char *mode;
	char f[360];
	int rc;

	if (*sub) {
		gs_k8s_fieldf(f, sizeof(f), "%s.name", field);
		if ((rc = gs_k8s_need_str(c, v, "name", f, &r->name)))
			return rc;
	}
	gs_k8s_fieldf(f, sizeof(f), "%s.deviceClassName", field);
	if ((rc = gs_k8s_get_str(c, v, "deviceClassName", f, &r->class_name)))
		return rc;
	if (!r->class_name || !*r->class_name)
		return gs_k8s_refuse(c, v, f, "missing (a request names its DeviceClass)");
	if ((rc = read_selectors(c, v, field, &r->selectors, &r->n_selectors)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.allocationMode", field);
	if ((rc = gs_k8s_get_str(c, v, "allocationMode", f, &mode)))
		return rc;
	if (mode && strcmp(mode, "All") == 0)
		r->mode = GS_K8S_ALL;
	else if (mode && strcmp(mode, "ExactCount") != 0)
		return gs_k8s_refuse(c, v, f, "'%s' is not ExactCount or All", mode);
	r->count = 1;
	gs_k8s_fieldf(f, sizeof(f), "%s.count", field);
	if ((rc = gs_k8s_get_int(c, v, "count", f, 1, 32, &r->count)))
		return rc;
	if (r->mode == GS_K8S_ALL && gs_kdoc_get(v, "count"))
		return gs_k8s_refuse(c, v, f, "count is for allocationMode ExactCount");
	gs_k8s_fieldf(f, sizeof(f), "%s.adminAccess", field);
	if ((rc = gs_k8s_get_bool(c, v, "adminAccess", f, &r->admin)))
		return rc;
	if (*sub && gs_kdoc_get(v, "adminAccess"))
		return gs_k8s_refuse(c, v, f, "not a field of a firstAvailable subrequest");
	gs_k8s_fieldf(f, sizeof(f), "%s.tolerations", field);
	if ((rc = gs_k8s_get_seq(c, v, "tolerations", f, &tol)))
		return rc;
	if (tol && (rc = gs_k8s_read_tolerations(c, tol, f, &r->tolerations, &r->n_tolerations)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.capacity", field);
	if ((rc = gs_k8s_get_map(c, v, "capacity", f, &cap)))
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.capacity.requests", field);
	if ((rc = gs_k8s_get_map(c, cap, "requests", f, &reqs)))
		return rc;
	return read_quantities(c, reqs, f, NULL, &r->cap_requests, &r->n_cap_requests);
}

static int read_claim_spec(struct gs_k8s_rctx *c, const struct gs_kdoc *spec, const char *field,
			   struct gs_k8s_claim_spec *cs)
{
	const struct gs_kdoc *devices, *reqs, *cons, *v;
	char f[300];
	int32_t i;
	int rc;

	gs_k8s_fieldf(f, sizeof(f), "%s.devices", field);
	if ((rc = gs_k8s_get_map(c, spec, "devices", f, &devices)) || !devices)
		return rc;
	gs_k8s_fieldf(f, sizeof(f), "%s.devices.requests", field);
	if ((rc = gs_k8s_get_seq(c, devices, "requests", f, &reqs)))
		return rc;
	if (reqs && reqs->n > 32)
		return gs_k8s_refuse(c, reqs, f, "more than 32 requests");
	if (reqs && reqs->n) {
		cs->requests = gs_k8s_alloc(c, (size_t)reqs->n, sizeof(*cs->requests));
		if (!cs->requests)
			return gs_k8s_oom(c);
		for (v = reqs->child, i = 0; v; v = v->next, i++) {
			struct gs_k8s_request *r = &cs->requests[i];
			const struct gs_kdoc *ex, *fa;
			bool exactly = false, first = true;
			char g[340];
			void *subs;
			int32_t k;

			gs_k8s_fieldf(g, sizeof(g), "%s[%d].name", f, (int)i);
			if ((rc = gs_k8s_need_str(c, v, "name", g, &r->name)))
				return rc;
			for (k = 0; k < i; k++)
				if (cs->requests[k].name == r->name)
					return gs_k8s_refuse(c, v, g, "'%s' twice", r->name);
			gs_k8s_fieldf(g, sizeof(g), "%s[%d]", f, (int)i);
			if ((rc = gs_k8s_get_map(c, v, "exactly", g, &ex)) ||
			    (rc = gs_k8s_get_seq(c, v, "firstAvailable", g, &fa)))
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
				gs_k8s_fieldf(g, sizeof(g), "%s[%d].exactly", f, (int)i);
				if ((rc = read_subrequest(c, ex, g, r->sub, &exactly)))
					return rc;
				continue;
			}
			if (fa->n > 8)
				return gs_k8s_refuse(c, fa, g, "more than 8 firstAvailable subrequests");
			r->first_available = true;
			gs_k8s_fieldf(g, sizeof(g), "%s[%d].firstAvailable", f, (int)i);
			if ((rc = gs_k8s_read_items(c, fa, g, "a request", sizeof(*r->sub),
						    read_subrequest, &first, &subs, &r->n_sub)))
				return rc;
			r->sub = subs;
		}
		cs->n_requests = i;
	}
	gs_k8s_fieldf(f, sizeof(f), "%s.devices.constraints", field);
	if ((rc = gs_k8s_get_seq(c, devices, "constraints", f, &cons)))
		return rc;
	if (cons && cons->n) {
		cs->constraints = gs_k8s_alloc(c, (size_t)cons->n, sizeof(*cs->constraints));
		if (!cs->constraints)
			return gs_k8s_oom(c);
		for (v = cons->child, i = 0; v; v = v->next, i++) {
			struct gs_k8s_constraint *k = &cs->constraints[i];
			const struct gs_kdoc *names;
			char g[340];

			gs_k8s_fieldf(g, sizeof(g), "%s[%d]", f, (int)i);
			if ((rc = gs_k8s_get_str(c, v, "matchAttribute", g, &k->match)) ||
			    (rc = gs_k8s_get_str(c, v, "distinctAttribute", g, &k->distinct)) ||
			    (rc = gs_k8s_get_seq(c, v, "requests", g, &names)))
				return rc;
			if (!k->match == !k->distinct)
				return gs_k8s_refuse(c, v, g, "exactly one of matchAttribute and "
						     "distinctAttribute must be set");
			if (!strchr(k->match ? k->match : k->distinct, '/'))
				return gs_k8s_refuse(c, v, g, "'%s' must include the domain "
						     "(domain/name)", k->match ? k->match : k->distinct);
			if ((rc = read_request_names(c, names, g, &k->requests, &k->n_requests)))
				return rc;
		}
		cs->n_constraints = i;
	}
	gs_k8s_fieldf(f, sizeof(f), "%s.devices", field);
	return read_configs(c, devices, f, true, &cs->configs, &cs->n_configs);
}

static int read_allocation(struct gs_k8s_rctx *c, const struct gs_kdoc *status,
			   struct gs_k8s_claim *cl)
{
	const struct gs_kdoc *alloc, *devices, *results, *reserved, *v;
	int32_t i = 0;
	int rc;

	if ((rc = gs_k8s_get_map(c, status, "allocation", "status.allocation", &alloc)))
		return rc;
	if (!alloc)
		return 0;
	cl->allocated = true;
	if ((rc = gs_k8s_get_map(c, alloc, "devices", "status.allocation.devices", &devices)) ||
	    (rc = gs_k8s_get_seq(c, devices, "results", "status.allocation.devices.results",
				 &results)))
		return rc;
	if (results && results->n) {
		cl->results = gs_k8s_alloc(c, (size_t)results->n, sizeof(*cl->results));
		if (!cl->results)
			return gs_k8s_oom(c);
		for (v = results->child; v; v = v->next, i++) {
			struct gs_k8s_result *r = &cl->results[i];
			const struct gs_kdoc *cons;
			char f[200], g[240];

			gs_k8s_fieldf(f, sizeof(f), "status.allocation.devices.results[%d]", (int)i);
			if ((rc = gs_k8s_get_str(c, v, "request", f, &r->request)) ||
			    (rc = gs_k8s_get_str(c, v, "driver", f, &r->driver)) ||
			    (rc = gs_k8s_get_str(c, v, "pool", f, &r->pool)) ||
			    (rc = gs_k8s_get_str(c, v, "device", f, &r->device)) ||
			    (rc = gs_k8s_get_map(c, v, "consumedCapacity", f, &cons)))
				return rc;
			if (!r->request || !r->driver || !r->pool || !r->device)
				return gs_k8s_refuse(c, v, f, "a result needs request, driver, pool "
						     "and device");
			gs_k8s_fieldf(g, sizeof(g), "%s.consumedCapacity", f);
			if ((rc = read_quantities(c, cons, g, r->driver, &r->consumed,
						  &r->n_consumed)))
				return rc;
		}
	}
	cl->n_results = i;
	if ((rc = gs_k8s_get_seq(c, status, "reservedFor", "status.reservedFor", &reserved)))
		return rc;
	if (reserved && reserved->n) {
		cl->reserved = gs_k8s_alloc(c, (size_t)reserved->n, sizeof(char *));
		if (!cl->reserved)
			return gs_k8s_oom(c);
		for (v = reserved->child; v; v = v->next)
			if ((rc = gs_k8s_get_str(c, v, "name", "status.reservedFor.name",
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
	if ((rc = gs_k8s_get_map(c, obj, "spec", "spec", &spec)))
		return rc;
	if (spec && (rc = read_claim_spec(c, spec, "spec", &cl->spec)))
		return rc;
	if ((rc = gs_k8s_get_map(c, obj, "status", "status", &status)))
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
	if ((rc = gs_k8s_get_map(c, obj, "spec", "spec", &spec)) ||
	    (rc = gs_k8s_get_map(c, spec, "spec", "spec.spec", &inner)))
		return rc;
	if (!inner)
		return gs_k8s_refuse(c, spec ? spec : obj, "spec.spec", "missing (the claim's spec)");
	return read_claim_spec(c, inner, "spec.spec", &t->spec);
}
