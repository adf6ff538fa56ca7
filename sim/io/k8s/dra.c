/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dra.c - the structured allocator (dra.h): the immutable view built from
 * a snapshot, the mutable state one cluster copy owns, and the search.
 *
 * The view flattens every usable device of every pool into one array and
 * keeps, per node, the devices that node can use in the allocator's visit
 * order. Which devices each request admits (class and request selectors,
 * capacity requests) never changes, so it is computed once into a bit
 * set per request. The state holds what allocations take: exclusive
 * devices in use, counters consumed per pool, capacity consumed per
 * device, and per claim its devices, node and users. The search mutates
 * the state and undoes each step it backs out of.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "io/k8s/cel.h"
#include "io/k8s/dra.h"

/* --- the immutable view ------------------------------------------------------------ */

struct counter {
	const char *set, *name;
	struct gs_quantity total;
};

struct pool {
	const char *driver, *name;
	int32_t counter_off, n_counters;
	int64_t generation;
	bool usable;                /* complete (every slice of the generation present) */
};

struct use_of {                 /* a device's consumption of one counter */
	int32_t counter;
	struct gs_quantity q;
};

struct dev {
	const struct gs_k8s_slice *slice;
	const struct gs_k8s_device *d;
	int32_t pool;
	int32_t node;               /* node-local: its node; -1: every node; -2: a selector */
	int32_t unit;               /* GPU unit on its node, -1 none */
	int32_t milli;              /* what an exclusive allocation takes from the unit */
	int64_t mem_mib;
	int32_t use_off, n_use;     /* into uses[] */
	int32_t cap_off;            /* first of its capacities in the state's cap_used[] */
	int32_t unit_cap;           /* multi devices: the capacity whose share goes to the unit, -1 */
};

struct unit {
	const char *key;            /* counter set, uuid, or device name */
	const char *product;
	int64_t mem_mib;
};

/* A request or subrequest of a claim spec, with the devices it admits. */
struct sub {
	const struct gs_k8s_subrequest *r;
	uint64_t *match;            /* bit per device */
	bool shared;                /* match belongs to an earlier sub */
};

struct claim {
	const struct gs_k8s_claim *k;
	int32_t *sub;               /* [request][subrequest] -> index in subs[], flattened */
	int32_t *sub_off;           /* [request] -> first in sub[] */
	bool has_sharing;
	struct gs_share_cfg sharing;
};

struct set {
	int32_t off, n;             /* into set_claims[] */
};

struct gs_dra {
	const struct gs_k8s_snapshot *s;
	int32_t n_nodes;
	struct pool *pools;
	struct counter *counters;
	struct use_of *uses;
	struct dev *devs;
	int32_t n_pools, n_counters, n_uses, n_devs, n_caps;
	size_t words;               /* uint64_t words of a device bit set */
	int32_t *cand, *cand_off;   /* per node: devices in visit order */
	int32_t *local, *local_off; /* per node: its node-local devices, in visit order */
	struct unit *units;
	int32_t *unit_off;          /* per node: first unit; n_nodes + 1 entries */
	struct sub *subs;
	size_t n_subs, cap_subs;
	struct claim *claims;
	int32_t n_claims;
	struct set *sets;
	int32_t *set_claims;
	size_t n_sets, cap_sets, n_set_claims, cap_set_claims;
};

/* --- the mutable state ------------------------------------------------------------- */

struct result {
	int32_t dev;
	int16_t req, sub;           /* request and subrequest of the claim spec */
};

struct cstate {
	uint8_t allocated;
	uint8_t pre;                /* allocated in the snapshot */
	int8_t n;
	int32_t node;               /* -1: node-independent devices only */
	int32_t users;
	struct result r[GS_DRA_RESULTS_MAX];
};

struct gs_dra_state {
	const struct gs_dra *d;
	uint8_t *dev_used;          /* exclusive allocations of each device (0 or 1) */
	int32_t *dev_shares;        /* allocations of each multi device */
	struct gs_quantity *counter_used;
	struct gs_quantity *cap_used; /* per device capacity (multi devices) */
	struct cstate *claims;
};

/* --- helpers --------------------------------------------------------------------- */

static bool bit(const uint64_t *b, int32_t i)
{
	return (b[i / 64] >> (i % 64)) & 1u;
}

static const struct gs_k8s_attr *dev_attr(const struct gs_k8s_device *d, const char *driver,
					  const char *name)
{
	int32_t i;

	for (i = 0; i < d->n_attrs; i++)
		if (strcmp(d->attrs[i].name, name) == 0)
			return &d->attrs[i];
	/* A short name means the driver's domain. */
	return strchr(name, '/') ? NULL : gs_k8s_device_attr(d, driver, name);
}

/* The device capacity a request's capacity name denotes (short names: the driver's domain). */
static int32_t cap_index(const struct gs_k8s_device *d, const char *driver, const char *name)
{
	int32_t i;

	for (i = 0; i < d->n_caps; i++) {
		const char *c = d->caps[i].name;

		if (strcmp(c, name) == 0 || (!strchr(name, '/') && gs_k8s_qname_is(c, driver, name)))
			return i;
	}
	return -1;
}

/*
 * What a request consumes of capacity k of a multi device: its request (or
 * the policy's default, or the whole capacity), rounded up by the policy.
 * Returns false when the policy cannot be met.
 */
static bool consumption(const struct gs_k8s_subrequest *r, const struct gs_k8s_device *d,
			const char *driver, int32_t k, struct gs_quantity *out)
{
	const struct gs_k8s_cap *cp = &d->caps[k];
	struct gs_quantity want;
	bool asked = false;
	int32_t i;

	for (i = 0; i < r->n_cap_requests; i++)
		if (cap_index(d, driver, r->cap_requests[i].name) == k) {
			want = r->cap_requests[i].q;
			asked = true;
		}
	if (!asked) {
		*out = cp->has_default ? cp->def : cp->value;
		return true;
	}
	if (cp->n_valid) {
		for (i = 0; i < cp->n_valid; i++)
			if (gs_quantity_cmp(&cp->valid[i], &want) >= 0) {
				*out = cp->valid[i];
				return true;
			}
		return false;
	}
	if (cp->has_range) {
		if (gs_quantity_cmp(&want, &cp->min) < 0)
			want = cp->min;
		if (cp->has_step) {
			/* min + n * step, the smallest not below the request. */
			struct gs_quantity v = cp->min;

			while (gs_quantity_cmp(&v, &want) < 0)
				if (!gs_quantity_add(&v, &cp->step))
					return false;
			want = v;
		}
		if (cp->has_max && gs_quantity_cmp(&want, &cp->max) > 0)
			return false;
	}
	*out = want;
	return true;
}

/* --- building the view ------------------------------------------------------------------ */

struct build {
	struct gs_dra *d;
	const struct gs_k8s_snapshot *s;
	char *err;
	size_t err_len;
};

static int boom(struct build *b)
{
	gs_errf(b->err, b->err_len, "out of memory");
	return GS_ENOMEM;
}

static int cmp_str(const char *a, const char *b)
{
	int c = strcmp(a, b);

	return c < 0 ? -1 : c > 0;
}

/* Node selection of a slice (or, per device, of a device) against node i's labels. */
static bool node_selected(const struct gs_k8s_selector *sel, const struct gs_k8s_node *n)
{
	int32_t t, e, v;

	for (t = 0; t < sel->n; t++) {
		const struct gs_k8s_term *term = &sel->terms[t];
		bool ok = true;

		for (e = 0; e < term->n && ok; e++) {
			const struct gs_k8s_expr *x = &term->exprs[e];
			const char *val = gs_k8s_node_label(n, x->key);
			bool in = false;

			for (v = 0; val && v < x->n_values; v++)
				in |= strcmp(val, x->values[v]) == 0;
			switch (x->op) {
			case GS_K8S_OP_IN:
				ok = in;
				break;
			case GS_K8S_OP_NOT_IN:
				ok = !in;
				break;
			case GS_K8S_OP_EXISTS:
				ok = val != NULL;
				break;
			case GS_K8S_OP_DOES_NOT_EXIST:
				ok = val == NULL;
				break;
			default:
				ok = val && strtoll(val, NULL, 10) != 0 &&
				     (x->op == GS_K8S_OP_GT ? strtoll(val, NULL, 10) >
							      strtoll(x->values[0], NULL, 10)
							    : strtoll(val, NULL, 10) <
							      strtoll(x->values[0], NULL, 10));
			}
		}
		if (ok)
			return true;
	}
	return false;
}

/* Pools: the newest generation of each (driver, pool), sorted; counters of their sets. */
static int build_pools(struct build *b)
{
	struct gs_dra *d = b->d;
	const struct gs_k8s_snapshot *s = b->s;
	size_t i, j, cap = 0;
	int32_t k, c;

	d->pools = calloc(s->n_slices ? s->n_slices : 1, sizeof(*d->pools));
	if (!d->pools)
		return boom(b);
	for (i = 0; i < s->n_slices; i++) {
		const struct gs_k8s_slice *sl = &s->slices[i];

		for (k = 0; k < d->n_pools; k++)
			if (strcmp(d->pools[k].driver, sl->driver) == 0 &&
			    strcmp(d->pools[k].name, sl->pool) == 0)
				break;
		if (k == d->n_pools) {
			d->pools[k].driver = sl->driver;
			d->pools[k].name = sl->pool;
			d->pools[k].generation = sl->generation;
			d->n_pools++;
		} else if (sl->generation > d->pools[k].generation) {
			d->pools[k].generation = sl->generation;
		}
	}
	/* Sorted by driver, then pool name (Kubernetes leaves this order to a Go map). */
	for (i = 1; i < (size_t)d->n_pools; i++)
		for (j = i; j > 0; j--) {
			struct pool *x = &d->pools[j - 1], *y = &d->pools[j], t;
			int cmp = cmp_str(x->driver, y->driver);

			if (cmp < 0 || (cmp == 0 && cmp_str(x->name, y->name) <= 0))
				break;
			t = *x;
			*x = *y;
			*y = t;
		}
	/* Completeness and counters. */
	for (k = 0; k < d->n_pools; k++) {
		struct pool *p = &d->pools[k];
		int64_t seen = 0, want = -1;

		p->counter_off = d->n_counters;
		for (i = 0; i < s->n_slices; i++) {
			const struct gs_k8s_slice *sl = &s->slices[i];

			if (strcmp(sl->driver, p->driver) != 0 || strcmp(sl->pool, p->name) != 0 ||
			    sl->generation != p->generation)
				continue;
			seen++;
			want = sl->slice_count;
			for (c = 0; c < sl->n_sets; c++) {
				int32_t m, q;

				for (q = p->counter_off; q < d->n_counters; q++)
					if (strcmp(d->counters[q].set, sl->sets[c].name) == 0)
						return GS_K8S_BERR(b, &sl->o, "spec.sharedCounters",
							    "counter set '%s' twice in pool %s",
							    sl->sets[c].name, p->name);
				for (m = 0; m < sl->sets[c].n; m++) {
					d->counters = gs_grow(d->counters, &cap, (size_t)d->n_counters,
							      sizeof(*d->counters), 64);
					if (!d->counters)
						return boom(b);
					d->counters[d->n_counters].set = sl->sets[c].name;
					d->counters[d->n_counters].name = sl->sets[c].c[m].name;
					d->counters[d->n_counters++].total = sl->sets[c].c[m].value;
				}
			}
		}
		p->n_counters = d->n_counters - p->counter_off;
		p->usable = seen == want;
	}
	return 0;
}

static int32_t pool_of(const struct gs_dra *d, const struct gs_k8s_slice *sl)
{
	int32_t k;

	for (k = 0; k < d->n_pools; k++)
		if (strcmp(d->pools[k].driver, sl->driver) == 0 &&
		    strcmp(d->pools[k].name, sl->pool) == 0)
			return k;
	return -1;
}

static int32_t counter_of(const struct gs_dra *d, const struct pool *p, const char *set,
			  const char *name)
{
	int32_t q;

	for (q = p->counter_off; q < p->counter_off + p->n_counters; q++)
		if (strcmp(d->counters[q].set, set) == 0 && strcmp(d->counters[q].name, name) == 0)
			return q;
	return -1;
}

/* The unit key of a device: its first counter set, else its (parent) uuid, else its name. */
static const char *unit_key(const struct gs_k8s_device *dv)
{
	const struct gs_k8s_attr *a;

	if (dv->n_consumes)
		return dv->consumes[0].set;
	if ((a = gs_k8s_device_attr(dv, NULL, "parentUUID")) && a->type == GS_K8S_ATTR_STRING)
		return a->s;
	if ((a = gs_k8s_device_attr(dv, NULL, "uuid")) && a->type == GS_K8S_ATTR_STRING)
		return a->s;
	return dv->name;
}

static int build_devices(struct build *b)
{
	struct gs_dra *d = b->d;
	const struct gs_k8s_snapshot *s = b->s;
	int32_t k, i, c, m;
	size_t si, cap_devs = 0, cap_uses = 0;

	/* Devices in visit order: pools sorted, slices in snapshot order, devices in slice order. */
	for (k = 0; k < d->n_pools; k++) {
		const struct pool *p = &d->pools[k];
		int32_t first = d->n_devs;

		for (si = 0; si < s->n_slices; si++) {
			const struct gs_k8s_slice *sl = &s->slices[si];

			if (pool_of(d, sl) != k || sl->generation != p->generation)
				continue;
			for (i = 0; i < sl->n_devices; i++) {
				const struct gs_k8s_device *dv = &sl->devices[i];
				struct dev *x;
				int32_t node = -2;

				for (c = first; c < d->n_devs; c++)
					if (strcmp(d->devs[c].d->name, dv->name) == 0)
						return GS_K8S_BERR(b, &sl->o, "spec.devices", "device '%s' twice in "
							    "pool %s", dv->name, p->name);
				/* -1: every node, -2: the slice's node selector, -3: a node not in the snapshot. */
				if (sl->per_device && dv->all_nodes)
					node = -1;
				else if (sl->per_device || sl->node_name)
					node = gs_k8s_snapshot_node_at(s, sl->per_device ? dv->node_name
											 : sl->node_name);
				else if (sl->all_nodes)
					node = -1;
				if ((sl->per_device && !dv->all_nodes) || sl->node_name)
					node = node < 0 ? -3 : node;
				/* A device of a node the snapshot lacks serves nobody here. */
				if (node == -3)
					continue;
				x = gs_grow(d->devs, &cap_devs, (size_t)d->n_devs, sizeof(*x), 64);
				if (!x)
					return boom(b);
				d->devs = x;
				x = &d->devs[d->n_devs++];
				memset(x, 0, sizeof(*x));
				x->slice = sl;
				x->d = dv;
				x->pool = k;
				x->node = node;
				x->unit = -1;
				x->unit_cap = -1;
				x->cap_off = d->n_caps;
				d->n_caps += dv->n_caps;
				x->use_off = d->n_uses;
				for (c = 0; c < dv->n_consumes; c++) {
					for (m = 0; m < dv->consumes[c].n; m++) {
						int32_t q = counter_of(d, p, dv->consumes[c].set,
								       dv->consumes[c].c[m].name);
						struct use_of *u;

						if (q < 0)
							return GS_K8S_BERR(b, &sl->o, "spec.devices",
								    "device '%s' consumes counter '%s' of "
								    "set '%s', which pool %s does not "
								    "have", dv->name,
								    dv->consumes[c].c[m].name,
								    dv->consumes[c].set, p->name);
						u = gs_grow(d->uses, &cap_uses, (size_t)d->n_uses,
							    sizeof(*u), 64);
						if (!u)
							return boom(b);
						d->uses = u;
						d->uses[d->n_uses].counter = q;
						d->uses[d->n_uses++].q = dv->consumes[c].c[m].value;
					}
				}
				x->n_use = d->n_uses - x->use_off;
			}
		}
	}
	d->words = ((size_t)d->n_devs + 63) / 64;
	return 0;
}

/* The share of its unit a device takes: counters (multiprocessors, else memory), else its profile. */
static void device_share(struct gs_dra *d, struct dev *x, const struct unit *u)
{
	const struct gs_k8s_device *dv = x->d;
	const struct gs_k8s_cap *mem = gs_k8s_device_cap(dv, NULL, "memory");
	const struct gs_k8s_attr *prof = gs_k8s_device_attr(dv, NULL, "profile");
	double ratio = -1;
	int32_t i;

	for (i = x->use_off; i < x->use_off + x->n_use && ratio < 0; i++) {
		const struct counter *ct = &d->counters[d->uses[i].counter];

		if (strcmp(ct->name, "multiprocessors") == 0)
			ratio = gs_quantity_ratio(&d->uses[i].q, &ct->total);
	}
	for (i = x->use_off; i < x->use_off + x->n_use; i++) {
		const struct counter *ct = &d->counters[d->uses[i].counter];

		if (strcmp(ct->name, "memory") == 0) {
			x->mem_mib = gs_quantity_mib(&d->uses[i].q);
			if (ratio < 0)
				ratio = gs_quantity_ratio(&d->uses[i].q, &ct->total);
		}
	}
	if (ratio < 0 && prof && prof->type == GS_K8S_ATTR_STRING && prof->s[0] >= '1' &&
	    prof->s[0] <= '7' && prof->s[1] == 'g')
		ratio = (prof->s[0] - '0') / 7.0;
	if (ratio < 0 && mem && u->mem_mib > 0)
		ratio = (double)gs_quantity_mib(&mem->value) / (double)u->mem_mib;
	if (ratio < 0 || ratio > 1)
		ratio = 1;
	if (!x->mem_mib && mem)
		x->mem_mib = gs_quantity_mib(&mem->value);
	if (x->mem_mib > u->mem_mib)
		x->mem_mib = u->mem_mib;
	x->milli = ratio >= 1 ? GS_MILLI_PER_GPU : (int32_t)(ratio * GS_MILLI_PER_GPU + 0.5);
	if (dv->multi)
		x->unit_cap = mem ? (int32_t)(mem - dv->caps) : dv->n_caps ? 0 : -1;
}

/* Each node's node-local devices in visit order (a counting sort keeps the order). */
static int build_local(struct build *b)
{
	struct gs_dra *d = b->d;
	int32_t i, node, *fill;

	d->local_off = calloc((size_t)d->n_nodes + 1, sizeof(*d->local_off));
	d->local = malloc(((size_t)d->n_devs + 1) * sizeof(*d->local));
	fill = calloc((size_t)d->n_nodes + 1, sizeof(*fill));
	if (!d->local_off || !d->local || !fill) {
		free(fill);
		return boom(b);
	}
	for (i = 0; i < d->n_devs; i++)
		if (d->devs[i].node >= 0)
			d->local_off[d->devs[i].node + 1]++;
	for (node = 0; node < d->n_nodes; node++)
		d->local_off[node + 1] += d->local_off[node];
	for (i = 0; i < d->n_devs; i++) {
		node = d->devs[i].node;
		if (node >= 0)
			d->local[d->local_off[node] + fill[node]++] = i;
	}
	free(fill);
	return 0;
}

/* Units of each node from its node-local devices, and each device's share of its unit. */
static int build_units(struct build *b)
{
	struct gs_dra *d = b->d;
	int32_t node, i, u, q;

	d->unit_off = calloc((size_t)d->n_nodes + 1, sizeof(*d->unit_off));
	d->units = calloc((size_t)d->n_devs + 1, sizeof(*d->units));
	if (!d->unit_off || !d->units)
		return boom(b);
	for (node = 0; node < d->n_nodes; node++) {
		int32_t first = d->unit_off[node], n = 0;

		for (i = d->local_off[node]; i < d->local_off[node + 1]; i++) {
			struct dev *x = &d->devs[d->local[i]];
			const char *key;
			const struct gs_k8s_attr *prod;
			const struct gs_k8s_cap *mem;

			key = unit_key(x->d);
			for (u = 0; u < n; u++)
				if (strcmp(d->units[first + u].key, key) == 0)
					break;
			if (u == n) {
				if (n == GS_MAX_GPUS)
					return GS_K8S_BERR(b, &b->s->nodes[node].o, NULL, "its ResourceSlices "
						    "publish more than %d GPUs", GS_MAX_GPUS);
				d->units[first + n].key = key;
				n++;
			}
			x->unit = u;
			prod = gs_k8s_device_attr(x->d, NULL, "productName");
			if (prod && prod->type == GS_K8S_ATTR_STRING && !d->units[first + u].product)
				d->units[first + u].product = prod->s;
			/* The unit's memory: the largest a device of it has. */
			mem = gs_k8s_device_cap(x->d, NULL, "memory");
			if (mem && gs_quantity_mib(&mem->value) > d->units[first + u].mem_mib)
				d->units[first + u].mem_mib = gs_quantity_mib(&mem->value);
			/* A counter set's memory counter is the card's. */
			for (q = x->use_off; q < x->use_off + x->n_use; q++) {
				const struct counter *ct = &d->counters[d->uses[q].counter];

				if (ct->set == key && strcmp(ct->name, "memory") == 0 &&
				    gs_quantity_mib(&ct->total) > d->units[first + u].mem_mib)
					d->units[first + u].mem_mib = gs_quantity_mib(&ct->total);
			}
		}
		d->unit_off[node + 1] = first + n;
	}
	for (i = 0; i < d->n_devs; i++)
		if (d->devs[i].node >= 0)
			device_share(d, &d->devs[i], &d->units[d->unit_off[d->devs[i].node] +
								d->devs[i].unit]);
	return 0;
}

/* Per node, the devices it can use, in visit order: its own merged with the shared ones. */
static int build_candidates(struct build *b)
{
	struct gs_dra *d = b->d;
	int32_t node, i, j, n = 0, n_shared = 0, *shared;
	size_t cap = 0;

	d->cand_off = calloc((size_t)d->n_nodes + 1, sizeof(*d->cand_off));
	shared = malloc(((size_t)d->n_devs + 1) * sizeof(*shared));
	if (!d->cand_off || !shared) {
		free(shared);
		return boom(b);
	}
	for (i = 0; i < d->n_devs; i++)
		if (d->devs[i].node < 0 && d->pools[d->devs[i].pool].usable)
			shared[n_shared++] = i;
	for (node = 0; node < d->n_nodes; node++) {
		const struct gs_k8s_node *kn = &b->s->nodes[node];

		d->cand_off[node] = n;
		i = d->local_off[node];
		j = 0;
		while (i < d->local_off[node + 1] || j < n_shared) {
			int32_t dev;
			const struct dev *x;

			if (j == n_shared || (i < d->local_off[node + 1] && d->local[i] < shared[j]))
				dev = d->local[i++];
			else
				dev = shared[j++];
			x = &d->devs[dev];
			if (!d->pools[x->pool].usable)
				continue;
			if (x->node == -2 && !(x->slice->has_node_selector &&
					       node_selected(&x->slice->node_selector, kn)))
				continue;
			if (!(d->cand = gs_grow(d->cand, &cap, (size_t)n, sizeof(*d->cand), 256))) {
				free(shared);
				return boom(b);
			}
			d->cand[n++] = dev;
		}
	}
	d->cand_off[d->n_nodes] = n;
	free(shared);
	return 0;
}

/* Two subrequests that admit the same devices: same class, selectors and capacity requests. */
static bool same_sub(const struct gs_k8s_subrequest *a, const struct gs_k8s_subrequest *b)
{
	int32_t i;

	if (a == b)
		return true;
	if (a->cls != b->cls || a->n_selectors != b->n_selectors ||
	    a->n_cap_requests != b->n_cap_requests || a->n_tolerations || b->n_tolerations)
		return false;
	for (i = 0; i < a->n_selectors; i++)
		if (a->selectors[i].cel != b->selectors[i].cel)
			return false;
	for (i = 0; i < a->n_cap_requests; i++)
		if (strcmp(a->cap_requests[i].name, b->cap_requests[i].name) != 0 ||
		    gs_quantity_cmp(&a->cap_requests[i].q, &b->cap_requests[i].q) != 0)
			return false;
	return true;
}

/* The devices one (sub)request admits: class and request selectors, capacity requests. */
static int build_sub(struct build *b, const struct gs_k8s_claim *cl, const char *field,
		     const struct gs_k8s_subrequest *r, int32_t *out)
{
	struct gs_dra *d = b->d;
	struct sub *sb;
	int32_t i, k;
	size_t n;

	if (r->admin)
		return GS_K8S_BERR(b, &cl->o, field, "adminAccess is not supported");
	/* Requests that admit the same devices share one bit set (its own request kept). */
	for (n = 0; n < d->n_subs; n++)
		if (same_sub(d->subs[n].r, r)) {
			if (!(d->subs = gs_grow(d->subs, &d->cap_subs, d->n_subs, sizeof(*d->subs), 16)))
				return boom(b);
			d->subs[d->n_subs].r = r;
			d->subs[d->n_subs].match = d->subs[n].match;
			d->subs[d->n_subs].shared = true;
			*out = (int32_t)d->n_subs++;
			return 0;
		}
	if (r->admin)
		return GS_K8S_BERR(b, &cl->o, field, "adminAccess is not supported");
	if (!(d->subs = gs_grow(d->subs, &d->cap_subs, d->n_subs, sizeof(*d->subs), 16)))
		return boom(b);
	sb = &d->subs[d->n_subs];
	sb->r = r;
	sb->shared = false;
	sb->match = calloc(d->words ? d->words : 1, sizeof(uint64_t));
	if (!sb->match)
		return boom(b);
	*out = (int32_t)d->n_subs++;
	for (i = 0; i < d->n_devs; i++) {
		const struct dev *x = &d->devs[i];
		struct gs_cel_device cd = { x->slice->driver, x->d };
		bool ok = true;
		int pass;

		for (pass = 0; pass < 2 && ok; pass++) {
			const struct gs_k8s_selector_cel *sel = pass ? r->selectors : r->cls->selectors;
			int32_t ns = pass ? r->n_selectors : r->cls->n_selectors;

			for (k = 0; k < ns && ok; k++) {
				char why[256];
				int v = gs_cel_eval(sel[k].cel, &cd, why, sizeof(why));

				if (v < 0) {
					char f[400];

					snprintf(f, sizeof(f), "%s%s.selectors[%d]", pass ? field : "",
						 pass ? "" : "spec", (int)k);
					return GS_K8S_BERR(b, pass ? &cl->o : &r->cls->o, f, "CEL expression "
						    "'%s' fails on device %s/%s/%s: %s", sel[k].expr,
						    x->slice->driver, x->slice->pool, x->d->name, why);
				}
				ok = v == 1;
			}
		}
		/* A capacity request needs the capacity; a device for one allocation needs enough. */
		for (k = 0; k < r->n_cap_requests && ok; k++) {
			int32_t c = cap_index(x->d, x->slice->driver, r->cap_requests[k].name);

			if (c < 0)
				ok = false;
			else if (!x->d->multi)
				ok = gs_quantity_cmp(&x->d->caps[c].value, &r->cap_requests[k].q) >= 0;
		}
		if (ok)
			sb->match[i / 64] |= UINT64_C(1) << (i % 64);
	}
	return 0;
}

static int build_claims(struct build *b)
{
	struct gs_dra *d = b->d;
	const struct gs_k8s_snapshot *s = b->s;
	size_t ci;

	d->n_claims = (int32_t)s->n_claims;
	d->claims = calloc(s->n_claims ? s->n_claims : 1, sizeof(*d->claims));
	if (!d->claims)
		return boom(b);
	for (ci = 0; ci < s->n_claims; ci++) {
		const struct gs_k8s_claim *cl = &s->claims[ci];
		const struct gs_k8s_claim_spec *cs = &cl->spec;
		struct claim *x = &d->claims[ci];
		int32_t r, k, n = 0;

		x->k = cl;
		x->sub_off = calloc((size_t)cs->n_requests + 1, sizeof(*x->sub_off));
		for (r = 0; r < cs->n_requests; r++)
			n += cs->requests[r].n_sub;
		x->sub = calloc((size_t)n + 1, sizeof(*x->sub));
		if (!x->sub_off || !x->sub)
			return boom(b);
		n = 0;
		for (r = 0; r < cs->n_requests; r++) {
			x->sub_off[r] = n;
			for (k = 0; k < cs->requests[r].n_sub; k++) {
				char f[200];
				int rc;

				if (cs->requests[r].first_available)
					snprintf(f, sizeof(f), "spec.devices.requests[%d].firstAvailable[%d]",
						 (int)r, (int)k);
				else
					snprintf(f, sizeof(f), "spec.devices.requests[%d].exactly", (int)r);
				if ((rc = build_sub(b, cl, f, &cs->requests[r].sub[k], &x->sub[n++])))
					return rc;
			}
		}
		x->sub_off[cs->n_requests] = n;
		/* The claim's own configuration, else its requests' classes'. */
		for (k = 0; k < cs->n_configs; k++)
			if (cs->configs[k].has_sharing) {
				x->has_sharing = true;
				x->sharing = cs->configs[k].sharing;
			}
		for (r = 0; r < cs->n_requests && !x->has_sharing; r++) {
			const struct gs_k8s_class *cls = cs->requests[r].sub[0].cls;

			for (k = 0; cls && k < cls->n_configs && !x->has_sharing; k++)
				if (cls->configs[k].has_sharing) {
					x->has_sharing = true;
					x->sharing = cls->configs[k].sharing;
				}
		}
		/* Time-slicing among the claim's users: as many replicas as pods share it. */
		if (x->has_sharing && x->sharing.mode == GS_SHARE_TIMESLICE)
			x->sharing.replicas = (uint8_t)(cl->users < 1 ? 1 : cl->users > 32 ? 32
											 : cl->users);
		if (x->has_sharing && x->sharing.mode == GS_SHARE_MPS)
			x->sharing.replicas = (uint8_t)(cl->users < 1 ? 1 : cl->users > 32 ? 32
											 : cl->users);
	}
	return 0;
}

void gs_dra_free(struct gs_dra *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n_subs; i++)
		if (!d->subs[i].shared)
			free(d->subs[i].match);
	for (i = 0; i < (size_t)d->n_claims; i++)
		GS_MEM_FREE(d->claims[i].sub, d->claims[i].sub_off);
	GS_MEM_FREE(d->subs, d->claims, d->pools, d->counters, d->uses, d->devs, d->cand,
		    d->cand_off, d->local, d->local_off, d->units, d->unit_off, d->sets,
		    d->set_claims);
	free(d);
}

int gs_dra_new(const struct gs_k8s_snapshot *s, struct gs_dra **out, char *err, size_t err_len)
{
	struct build b;
	int rc;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	b.s = s;
	b.err = err;
	b.err_len = err_len;
	b.d = calloc(1, sizeof(*b.d));
	if (!b.d)
		return boom(&b);
	b.d->s = s;
	b.d->n_nodes = (int32_t)s->n_nodes;
	if ((rc = build_pools(&b)) || (rc = build_devices(&b)) || (rc = build_local(&b)) ||
	    (rc = build_units(&b)) ||
	    (rc = build_candidates(&b)) || (rc = build_claims(&b))) {
		gs_dra_free(b.d);
		return rc;
	}
	*out = b.d;
	return 0;
}

int32_t gs_dra_units(const struct gs_dra *d, int32_t node, const char **product,
		     int64_t *mem_mib, int32_t max)
{
	int32_t n = d->unit_off[node + 1] - d->unit_off[node], i;

	for (i = 0; i < n && i < max; i++) {
		product[i] = d->units[d->unit_off[node] + i].product;
		mem_mib[i] = d->units[d->unit_off[node] + i].mem_mib;
	}
	return n;
}

int32_t gs_dra_claim_index(const struct gs_dra *d, const struct gs_k8s_claim *c)
{
	return (int32_t)(c - d->s->claims);
}

int32_t gs_dra_claim_set(struct gs_dra *d, const int32_t *claims, int32_t n)
{
	size_t i;
	struct set *st;

	for (i = 0; i < d->n_sets; i++)
		if (d->sets[i].n == n &&
		    memcmp(&d->set_claims[d->sets[i].off], claims, (size_t)n * sizeof(*claims)) == 0)
			return (int32_t)i + 1;
	if (!(d->sets = gs_grow(d->sets, &d->cap_sets, d->n_sets, sizeof(*d->sets), 16)))
		return GS_ENOMEM;
	for (i = 0; i < (size_t)n; i++) {
		if (!(d->set_claims = gs_grow(d->set_claims, &d->cap_set_claims, d->n_set_claims,
					      sizeof(*d->set_claims), 64)))
			return GS_ENOMEM;
		d->set_claims[d->n_set_claims++] = claims[i];
	}
	st = &d->sets[d->n_sets++];
	st->off = (int32_t)(d->n_set_claims - (size_t)n);
	st->n = n;
	return (int32_t)d->n_sets;
}

const struct gs_share_cfg *gs_dra_claim_sharing(const struct gs_dra *d, int32_t c)
{
	return d->claims[c].has_sharing ? &d->claims[c].sharing : NULL;
}

int32_t gs_dra_device_unit(const struct gs_dra *d, const char *driver, const char *pool,
			   const char *device, int32_t *node_out)
{
	int32_t i;

	for (i = 0; i < d->n_devs; i++) {
		const struct dev *x = &d->devs[i];

		if (strcmp(x->slice->driver, driver) == 0 && strcmp(x->slice->pool, pool) == 0 &&
		    strcmp(x->d->name, device) == 0) {
			*node_out = x->node;
			return x->unit;
		}
	}
	*node_out = -1;
	return -1;
}

/* --- taking and giving back ------------------------------------------------------------ */

static bool tolerated(const struct gs_k8s_subrequest *r, const struct gs_k8s_taint *t)
{
	int32_t i;

	for (i = 0; i < r->n_tolerations; i++) {
		const struct gs_k8s_toleration *o = &r->tolerations[i];

		if (o->effect != GS_K8S_EFFECT_ANY && o->effect != t->effect)
			continue;
		if (*o->key && strcmp(o->key, t->key) != 0)
			continue;
		if (!o->exists && strcmp(o->value, t->value) != 0)
			continue;
		return true;
	}
	return false;
}

/* The request name as results spell it: "req" or "req/sub". */
static const char *request_name(const struct gs_k8s_request *rq, int32_t sub, char *buf,
				size_t len)
{
	if (!rq->first_available)
		return rq->name;
	snprintf(buf, len, "%s/%s", rq->name, rq->sub[sub].name);
	return buf;
}

/* Whether constraint k of spec applies to request rq (subrequest sub). */
static bool constraint_applies(const struct gs_k8s_constraint *k, const struct gs_k8s_request *rq,
			       int32_t sub)
{
	char full[300];
	int32_t i;

	if (!k->n_requests)
		return true;
	request_name(rq, sub, full, sizeof(full));
	for (i = 0; i < k->n_requests; i++)
		if (strcmp(k->requests[i], rq->name) == 0 || strcmp(k->requests[i], full) == 0)
			return true;
	return false;
}

static bool attr_equal(const struct gs_k8s_attr *a, const struct gs_k8s_attr *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case GS_K8S_ATTR_INT:
		return a->i == b->i;
	case GS_K8S_ATTR_BOOL:
		return a->b == b->b;
	default:
		return strcmp(a->s, b->s) == 0;
	}
}

/* Whether adding device dev for (req, sub) keeps claim c's constraints. */
static bool constraints_ok(const struct gs_dra_state *st, int32_t c, int32_t dev, int32_t req,
			   int32_t sub)
{
	const struct gs_dra *d = st->d;
	const struct gs_k8s_claim_spec *cs = &d->claims[c].k->spec;
	const struct cstate *x = &st->claims[c];
	const struct dev *nd = &d->devs[dev];
	int32_t k, i;

	for (k = 0; k < cs->n_constraints; k++) {
		const struct gs_k8s_constraint *con = &cs->constraints[k];
		const char *name = con->match ? con->match : con->distinct;
		const struct gs_k8s_attr *a;

		if (!constraint_applies(con, &cs->requests[req], sub))
			continue;
		a = dev_attr(nd->d, nd->slice->driver, name);
		if (!a)
			return false;
		for (i = 0; i < x->n; i++) {
			const struct dev *od = &d->devs[x->r[i].dev];
			const struct gs_k8s_attr *b;

			if (!constraint_applies(con, &cs->requests[x->r[i].req], x->r[i].sub))
				continue;
			b = dev_attr(od->d, od->slice->driver, name);
			if (!b)
				return false;
			if (con->match && !attr_equal(a, b))
				return false;
			if (con->distinct && attr_equal(a, b))
				return false;
		}
	}
	return true;
}

/* Whether the counters of device dev still fit, and takes them when take is set. */
static bool counters_fit(struct gs_dra_state *st, int32_t dev, int sign)
{
	const struct gs_dra *d = st->d;
	const struct dev *x = &d->devs[dev];
	int32_t i;

	if (sign > 0)
		for (i = x->use_off; i < x->use_off + x->n_use; i++) {
			struct gs_quantity v = st->counter_used[d->uses[i].counter];

			if (!gs_quantity_add(&v, &d->uses[i].q) ||
			    gs_quantity_cmp(&v, &d->counters[d->uses[i].counter].total) > 0)
				return false;
		}
	for (i = x->use_off; i < x->use_off + x->n_use; i++) {
		if (sign > 0)
			gs_quantity_add(&st->counter_used[d->uses[i].counter], &d->uses[i].q);
		else
			gs_quantity_sub(&st->counter_used[d->uses[i].counter], &d->uses[i].q);
	}
	return true;
}

/*
 * Counts device dev as taken (one share more when it allows several
 * allocations, in use otherwise) and appends it to the claim's results as
 * (request req, subrequest sub); the claim has room for it.
 */
static void add_result(struct gs_dra_state *st, struct cstate *cx, int32_t dev, int32_t req,
		       int32_t sub)
{
	if (st->d->devs[dev].d->multi)
		st->dev_shares[dev]++;
	else
		st->dev_used[dev] = 1;
	cx->r[cx->n].dev = dev;
	cx->r[cx->n].req = (int16_t)req;
	cx->r[cx->n].sub = (int16_t)sub;
	cx->n++;
}

/*
 * Takes device dev for (claim c, request req, subrequest sub), or returns
 * false changing nothing: in use, capacity or counters short, a taint not
 * tolerated, a constraint broken.
 */
static bool take(struct gs_dra_state *st, int32_t c, int32_t dev, int32_t req, int32_t sub)
{
	const struct gs_dra *d = st->d;
	const struct dev *x = &d->devs[dev];
	const struct gs_k8s_subrequest *r = &d->claims[c].k->spec.requests[req].sub[sub];
	struct cstate *cx = &st->claims[c];
	struct gs_quantity want[32];
	int32_t i;

	if (cx->n == GS_DRA_RESULTS_MAX)
		return false;
	if (!x->d->multi && st->dev_used[dev])
		return false;
	for (i = 0; i < x->d->n_taints; i++)
		if ((x->d->taints[i].effect == GS_K8S_EFFECT_NO_SCHEDULE ||
		     x->d->taints[i].effect == GS_K8S_EFFECT_NO_EXECUTE) &&
		    !tolerated(r, &x->d->taints[i]))
			return false;
	if (x->d->multi) {
		for (i = 0; i < x->d->n_caps && i < 32; i++) {
			struct gs_quantity v = st->cap_used[x->cap_off + i];

			if (!consumption(r, x->d, x->slice->driver, i, &want[i]) ||
			    !gs_quantity_add(&v, &want[i]) ||
			    gs_quantity_cmp(&v, &x->d->caps[i].value) > 0)
				return false;
		}
	}
	if (!constraints_ok(st, c, dev, req, sub))
		return false;
	/* Counters: a device shared many times consumes them once, with its first share. */
	if (!(x->d->multi && st->dev_shares[dev]) && !counters_fit(st, dev, +1))
		return false;
	if (x->d->multi)
		for (i = 0; i < x->d->n_caps && i < 32; i++)
			gs_quantity_add(&st->cap_used[x->cap_off + i], &want[i]);
	add_result(st, cx, dev, req, sub);
	return true;
}

/* Gives back the last device taken for claim c. */
static void untake(struct gs_dra_state *st, int32_t c)
{
	const struct gs_dra *d = st->d;
	struct cstate *cx = &st->claims[c];
	const struct result *rs = &cx->r[--cx->n];
	const struct dev *x = &d->devs[rs->dev];
	const struct gs_k8s_subrequest *r = &d->claims[c].k->spec.requests[rs->req].sub[rs->sub];
	int32_t i;

	if (x->d->multi) {
		for (i = 0; i < x->d->n_caps && i < 32; i++) {
			struct gs_quantity want;

			if (consumption(r, x->d, x->slice->driver, i, &want))
				gs_quantity_sub(&st->cap_used[x->cap_off + i], &want);
		}
		if (--st->dev_shares[rs->dev] == 0)
			counters_fit(st, rs->dev, -1);
	} else {
		st->dev_used[rs->dev] = 0;
		counters_fit(st, rs->dev, -1);
	}
}

/* --- the search ------------------------------------------------------------------------ */

struct search {
	struct gs_dra_state *st;
	int32_t node;
	const int32_t *cand;
	int32_t n_cand;
	const int32_t *claims;      /* claims to allocate */
	int32_t n_claims;
	int32_t all[GS_DRA_RESULTS_MAX + 1];   /* allocationMode All: the devices */
};

static bool search(struct search *s, int32_t ci, int32_t ri, int32_t sub, int32_t di,
		   int32_t start);

/* All of a request's matching devices on the node (mode All); -1 when more than fit a claim. */
static int32_t all_devices(struct search *s, int32_t si, int32_t *out)
{
	const struct gs_dra *d = s->st->d;
	int32_t i, n = 0;

	for (i = 0; i < s->n_cand; i++)
		if (bit(d->subs[si].match, s->cand[i])) {
			if (n == GS_DRA_RESULTS_MAX)
				return -1;
			out[n++] = s->cand[i];
		}
	return n;
}

static bool search(struct search *s, int32_t ci, int32_t ri, int32_t sub, int32_t di,
		   int32_t start)
{
	struct gs_dra_state *st = s->st;
	const struct gs_dra *d = st->d;
	int32_t c, si, pos, count;
	const struct claim *cl;
	const struct gs_k8s_request *rq;
	const struct gs_k8s_subrequest *r;

	if (ci == s->n_claims)
		return true;
	c = s->claims[ci];
	cl = &d->claims[c];
	if (ri == cl->k->spec.n_requests)
		return search(s, ci + 1, 0, -1, 0, 0);
	rq = &cl->k->spec.requests[ri];
	if (sub < 0) {
		/* firstAvailable: the first subrequest that leads to a solution. */
		for (sub = 0; sub < rq->n_sub; sub++)
			if (search(s, ci, ri, sub, 0, 0))
				return true;
		return false;
	}
	r = &rq->sub[sub];
	si = cl->sub[cl->sub_off[ri] + sub];
	if (r->mode == GS_K8S_ALL) {
		int32_t all[GS_DRA_RESULTS_MAX];

		count = all_devices(s, si, all);
		if (count <= 0)
			return false;
		if (di == count)
			return search(s, ci, ri + 1, -1, 0, 0);
		/* Every matching device, or nothing: no other order to try. */
		if (!take(st, c, all[di], ri, sub))
			return false;
		if (search(s, ci, ri, sub, di + 1, 0))
			return true;
		untake(st, c);
		return false;
	}
	count = (int32_t)r->count;
	if (di == count)
		return search(s, ci, ri + 1, -1, 0, 0);
	for (pos = start; pos < s->n_cand; pos++) {
		int32_t dev = s->cand[pos];

		if (!bit(d->subs[si].match, dev) || !take(st, c, dev, ri, sub))
			continue;
		if (search(s, ci, ri, sub, di + 1, pos + 1))
			return true;
		untake(st, c);
	}
	return false;
}

/* The claims of a set still to allocate, after checking the allocated ones suit node. */
static int32_t pending_claims(const struct gs_dra_state *st, int32_t set, int32_t node,
			      int32_t *out)
{
	const struct gs_dra *d = st->d;
	const struct set *x = &d->sets[set - 1];
	int32_t i, k, n = 0;

	for (i = 0; i < x->n; i++) {
		int32_t c = d->set_claims[x->off + i];
		const struct cstate *cs = &st->claims[c];

		if (cs->allocated) {
			if (cs->node >= 0 && cs->node != node)
				return -1;
			continue;
		}
		for (k = 0; k < n; k++)
			if (out[k] == c)
				break;
		if (k == n)
			out[n++] = c;
	}
	return n;
}

/* Allocates set on node; the claims newly allocated into out (*n_out of them). */
static int allocate(struct gs_dra_state *st, int32_t node, int32_t set, int32_t *out,
		    int32_t *n_out)
{
	const struct gs_dra *d = st->d;
	int32_t todo[256], n, i;
	struct search s;
	bool ok;

	if (set < 1 || (size_t)set > d->n_sets || node < 0 || node >= d->n_nodes)
		return GS_EINVAL;
	if (d->sets[set - 1].n > 256)
		return GS_ENOFIT;
	n = pending_claims(st, set, node, todo);
	if (n < 0)
		return GS_ENOFIT;
	*n_out = 0;
	if (n == 0)
		return 0;
	memset(&s, 0, sizeof(s));
	s.st = st;
	s.node = node;
	s.n_cand = d->cand_off[node + 1] - d->cand_off[node];
	/* No device anywhere leaves d->cand NULL, and NULL + 0 is undefined in C. */
	s.cand = s.n_cand ? d->cand + d->cand_off[node] : NULL;
	s.claims = todo;
	s.n_claims = n;
	ok = search(&s, 0, 0, -1, 0, 0);
	if (!ok)
		return GS_ENOFIT;
	for (i = 0; i < n; i++) {
		struct cstate *cs = &st->claims[todo[i]];
		int32_t k;

		cs->allocated = 1;
		cs->node = -1;
		for (k = 0; k < cs->n; k++)
			if (d->devs[cs->r[k].dev].node >= 0)
				cs->node = node;
		out[(*n_out)++] = todo[i];
	}
	return 0;
}

/* What claim c's devices take from the node's GPUs, added into use. */
static void claim_use(const struct gs_dra_state *st, int32_t c, struct gs_devices_use *use)
{
	const struct gs_dra *d = st->d;
	const struct cstate *cs = &st->claims[c];
	int32_t i;

	for (i = 0; i < cs->n; i++) {
		const struct dev *x = &d->devs[cs->r[i].dev];
		const struct gs_k8s_subrequest *r =
			&d->claims[c].k->spec.requests[cs->r[i].req].sub[cs->r[i].sub];

		if (x->unit < 0)
			continue;
		if (x->d->multi && x->unit_cap >= 0) {
			struct gs_quantity want;
			double ratio;

			if (!consumption(r, x->d, x->slice->driver, x->unit_cap, &want))
				continue;
			ratio = gs_quantity_ratio(&want, &x->d->caps[x->unit_cap].value);
			use->gpu_milli[x->unit] += (int32_t)(ratio * x->milli + 0.5);
			use->gpu_mem_mib[x->unit] += (int64_t)(ratio * (double)x->mem_mib + 0.5);
		} else {
			use->gpu_milli[x->unit] += x->milli;
			use->gpu_mem_mib[x->unit] += x->mem_mib;
		}
	}
}

/* --- states --------------------------------------------------------------------------- */

static struct gs_dra_state *state_alloc(const struct gs_dra *d)
{
	struct gs_dra_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->d = d;
	st->dev_used = calloc((size_t)d->n_devs + 1, 1);
	st->dev_shares = calloc((size_t)d->n_devs + 1, sizeof(*st->dev_shares));
	st->counter_used = calloc((size_t)d->n_counters + 1, sizeof(*st->counter_used));
	st->cap_used = calloc((size_t)d->n_caps + 1, sizeof(*st->cap_used));
	st->claims = calloc((size_t)d->n_claims + 1, sizeof(*st->claims));
	if (!st->dev_used || !st->dev_shares || !st->counter_used || !st->cap_used ||
	    !st->claims) {
		gs_dra_state_free(st);
		return NULL;
	}
	return st;
}

void gs_dra_state_free(struct gs_dra_state *st)
{
	if (!st)
		return;
	GS_MEM_FREE(st->dev_used, st->dev_shares, st->counter_used, st->cap_used, st->claims);
	free(st);
}

static void *state_clone(const void *p)
{
	const struct gs_dra_state *src = p;
	const struct gs_dra *d = src->d;
	struct gs_dra_state *st = state_alloc(d);

	if (!st)
		return NULL;
	memcpy(st->dev_used, src->dev_used, (size_t)d->n_devs);
	memcpy(st->dev_shares, src->dev_shares, (size_t)d->n_devs * sizeof(*st->dev_shares));
	memcpy(st->counter_used, src->counter_used,
	       (size_t)d->n_counters * sizeof(*st->counter_used));
	memcpy(st->cap_used, src->cap_used, (size_t)d->n_caps * sizeof(*st->cap_used));
	memcpy(st->claims, src->claims, (size_t)d->n_claims * sizeof(*st->claims));
	return st;
}

static void state_free(void *p)
{
	gs_dra_state_free(p);
}

/* The request and subrequest of a result's name ("req" or "req/sub"), or -1. */
static int find_request(const struct gs_k8s_claim_spec *cs, const char *name, int32_t *req,
			int32_t *sub)
{
	int32_t r, k;

	for (r = 0; r < cs->n_requests; r++) {
		const struct gs_k8s_request *rq = &cs->requests[r];
		size_t n = strlen(rq->name);

		if (!rq->first_available && strcmp(name, rq->name) == 0) {
			*req = r;
			*sub = 0;
			return 0;
		}
		if (rq->first_available && strncmp(name, rq->name, n) == 0 && name[n] == '/')
			for (k = 0; k < rq->n_sub; k++)
				if (strcmp(name + n + 1, rq->sub[k].name) == 0) {
					*req = r;
					*sub = k;
					return 0;
				}
	}
	return -1;
}

int gs_dra_state_new(const struct gs_dra *d, struct gs_dra_state **out, char *err,
		     size_t err_len)
{
	struct gs_dra_state *st = state_alloc(d);
	int32_t c, i;

	*out = NULL;
	if (!st)
		return gs_errf_nomem(err, err_len);
	/* The snapshot's allocations, device by device, checked as the allocator would. */
	for (c = 0; c < d->n_claims; c++) {
		const struct gs_k8s_claim *k = d->claims[c].k;
		struct cstate *cs = &st->claims[c];
		char where[400];

		if (!k->allocated)
			continue;
		gs_k8s_origin_format(&k->o, where, sizeof(where));
		for (i = 0; i < k->n_results; i++) {
			const struct gs_k8s_result *r = &k->results[i];
			int32_t dev, req, sub;

			for (dev = 0; dev < d->n_devs; dev++)
				if (strcmp(d->devs[dev].slice->driver, r->driver) == 0 &&
				    strcmp(d->devs[dev].slice->pool, r->pool) == 0 &&
				    strcmp(d->devs[dev].d->name, r->device) == 0)
					break;
			if (dev == d->n_devs) {
				gs_errf(err, err_len, "%s: status.allocation.devices.results[%d]: no "
					"device %s/%s/%s in the snapshot's ResourceSlices", where,
					(int)i, r->driver, r->pool, r->device);
				gs_dra_state_free(st);
				return GS_EPARSE;
			}
			if (find_request(&k->spec, r->request, &req, &sub)) {
				gs_errf(err, err_len, "%s: status.allocation.devices.results[%d].request: "
					"'%s' is not a request of the claim", where, (int)i, r->request);
				gs_dra_state_free(st);
				return GS_EPARSE;
			}
			if (cs->n == GS_DRA_RESULTS_MAX ||
			    (!d->devs[dev].d->multi && st->dev_used[dev]) ||
			    (!(d->devs[dev].d->multi && st->dev_shares[dev]) &&
			     !counters_fit(st, dev, +1))) {
				gs_errf(err, err_len, "%s: status.allocation.devices.results[%d]: device "
					"%s/%s/%s is already taken (allocated twice, or its counters "
					"are exhausted)", where, (int)i, r->driver, r->pool, r->device);
				gs_dra_state_free(st);
				return GS_EPARSE;
			}
			if (d->devs[dev].d->multi) {
				int32_t q;

				for (q = 0; q < d->devs[dev].d->n_caps && q < 32; q++) {
					struct gs_quantity want;

					if (consumption(&k->spec.requests[req].sub[sub], d->devs[dev].d,
							r->driver, q, &want))
						gs_quantity_add(&st->cap_used[d->devs[dev].cap_off + q],
								&want);
				}
			}
			add_result(st, cs, dev, req, sub);
			if (d->devs[dev].node >= 0)
				cs->node = d->devs[dev].node;
		}
		cs->allocated = 1;
		cs->pre = 1;
		if (!k->n_results)
			cs->node = -1;
		for (i = 0; i < cs->n; i++)
			if (d->devs[cs->r[i].dev].node >= 0)
				break;
		if (i == cs->n)
			cs->node = -1;
	}
	*out = st;
	return 0;
}

bool gs_dra_claim_allocated(const struct gs_dra_state *st, int32_t c, int32_t *node_out)
{
	if (node_out)
		*node_out = st->claims[c].node;
	return st->claims[c].allocated;
}

void gs_dra_claim_use(const struct gs_dra_state *st, int32_t c, struct gs_devices_use *use)
{
	memset(use, 0, sizeof(*use));
	if (st->claims[c].allocated)
		claim_use(st, c, use);
}

int32_t gs_dra_claim_users(const struct gs_dra_state *st, int32_t c)
{
	return st->claims[c].users;
}

bool gs_dra_claim_result(const struct gs_dra_state *st, int32_t c, int32_t i,
			 const char **request, char *request_buf, size_t buf_len,
			 const char **driver, const char **pool, const char **device)
{
	const struct gs_dra *d = st->d;
	const struct cstate *cs = &st->claims[c];
	const struct dev *x;

	if (i >= cs->n)
		return false;
	x = &d->devs[cs->r[i].dev];
	*request = request_name(&d->claims[c].k->spec.requests[cs->r[i].req], cs->r[i].sub,
				request_buf, buf_len);
	*driver = x->slice->driver;
	*pool = x->slice->pool;
	*device = x->d->name;
	return true;
}

/* --- the cluster's hook ----------------------------------------------------------------- */

/* Claim c has no allocation any more: its devices are given back. */
static void deallocate(struct gs_dra_state *st, int32_t c)
{
	struct cstate *cs = &st->claims[c];

	while (cs->n)
		untake(st, c);
	cs->allocated = 0;
	cs->pre = 0;
	cs->node = 0;
}

/* What binding set would take: the devices of its claims that no user holds yet. */
static void set_use(const struct gs_dra_state *st, int32_t set, struct gs_devices_use *use)
{
	const struct gs_dra *d = st->d;
	const struct set *x = &d->sets[set - 1];
	int32_t i;

	memset(use, 0, sizeof(*use));
	for (i = 0; i < x->n; i++) {
		int32_t c = d->set_claims[x->off + i];

		if (st->claims[c].users == 0)
			claim_use(st, c, use);
	}
}

static int ops_fits(void *state, int32_t node, int32_t set, struct gs_devices_use *use)
{
	struct gs_dra_state *st = state;
	int32_t fresh[256], n = 0, i;
	int rc = allocate(st, node, set, fresh, &n);

	if (rc)
		return rc;
	set_use(st, set, use);
	for (i = 0; i < n; i++)
		deallocate(st, fresh[i]);
	return 0;
}

static int ops_bind(void *state, int32_t node, int32_t set, struct gs_devices_use *use)
{
	struct gs_dra_state *st = state;
	const struct gs_dra *d = st->d;
	int32_t fresh[256], n = 0, i;
	const struct set *x;
	int rc;

	memset(use, 0, sizeof(*use));
	rc = allocate(st, node, set, fresh, &n);
	if (rc)
		return rc;
	/* A claim's devices count once, with its first user (a shared claim costs no more). */
	set_use(st, set, use);
	x = &d->sets[set - 1];
	for (i = 0; i < x->n; i++)
		st->claims[d->set_claims[x->off + i]].users++;
	return 0;
}

static int ops_unbind(void *state, int32_t node, int32_t set, struct gs_devices_use *use)
{
	struct gs_dra_state *st = state;
	const struct gs_dra *d = st->d;
	const struct set *x;
	int32_t i;

	(void)node;
	memset(use, 0, sizeof(*use));
	if (set < 1 || (size_t)set > d->n_sets)
		return GS_EINVAL;
	x = &d->sets[set - 1];
	for (i = 0; i < x->n; i++)
		if (st->claims[d->set_claims[x->off + i]].users <= 0)
			return GS_EINVAL;
	for (i = 0; i < x->n; i++) {
		int32_t c = d->set_claims[x->off + i];
		struct cstate *cs = &st->claims[c];

		if (--cs->users > 0)
			continue;
		claim_use(st, c, use);
		/* Unused, a claim is deallocated (the resource claim controller's job). */
		deallocate(st, c);
	}
	return 0;
}

const struct gs_devices_ops gs_dra_ops = {
	.fits = ops_fits,
	.bind = ops_bind,
	.unbind = ops_unbind,
	.clone = state_clone,
	.free = state_free,
};
