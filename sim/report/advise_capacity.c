/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_capacity.c - the capacity search of `gpusim advise` (see
 * advise.h): clusters of other sizes made from the given one's node types
 * (or with copies of an added node file), and per candidate and seed the
 * smallest size whose run meets every target, by bisection, all the
 * searches of one step run as one batch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/metrics.h"
#include "io/sha256.h"
#include "io/trace/load.h"
#include "io/trace/write.h"
#include "report/advise_internal.h"
#include "run/audit.h"

/* A GPU node type of the given cluster: its nodes (by index), in file order. */
struct ntype {
	int32_t *nodes;
	size_t n;
};

/* The capacity search's own state, beyond the context. */
struct adv_cap {
	struct adv_ctx *x;
	struct ntype *types;          /* GPU node types of the given cluster */
	size_t n_types;
	int32_t n_gpu_nodes;
	struct gs_cluster add;        /* the added node file, in add mode */
	bool add_mode;
	int64_t m0, min, max;         /* the given size, the smallest and largest searched */
};

/* One search: a candidate in a block at a seed. */
struct search {
	size_t block, cand, seed;
	int64_t lo, hi;               /* lo: largest size known short (min - 1 at first); hi: -1 unknown */
	int64_t next;
	bool done;
	const char *why_not;
};

static struct adv_cap *cap_of(struct adv_ctx *x)
{
	return x->cap;
}

/* Whether nodes a and b of c are of one type (alike in all but the name). */
static bool same_type(const struct gs_cluster *c, int32_t a, int32_t b)
{
	const struct gs_node *na = &c->nodes[a], *nb = &c->nodes[b];
	char sa[GS_MAX_GPUS * GS_SHARE_SPEC_MAX], sb[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

	if (na->cpu_milli != nb->cpu_milli || na->mem_mib != nb->mem_mib ||
	    na->num_gpu != nb->num_gpu || na->model != nb->model)
		return false;
	return !strcmp(gs_cluster_node_share_text(c, a, sa, sizeof(sa)),
		       gs_cluster_node_share_text(c, b, sb, sizeof(sb)));
}

static int find_types(struct adv_cap *k, const struct gs_cluster *c)
{
	int32_t i;
	size_t t;

	for (i = 0; i < c->n_nodes; i++) {
		struct ntype *g;
		int32_t *gn;

		if (c->nodes[i].num_gpu == 0)
			continue;
		k->n_gpu_nodes++;
		for (t = 0; t < k->n_types && !same_type(c, k->types[t].nodes[0], i); t++)
			;
		if (t == k->n_types) {
			g = gs_realloc_n(k->types, k->n_types + 1, sizeof(*g));
			if (!g)
				return GS_ENOMEM;
			k->types = g;
			memset(&k->types[k->n_types++], 0, sizeof(*g));
		}
		gn = gs_realloc_n(k->types[t].nodes, k->types[t].n + 1, sizeof(*gn));
		if (!gn)
			return GS_ENOMEM;
		k->types[t].nodes = gn;
		gn[k->types[t].n++] = i;
	}
	return 0;
}

/*
 * The nodes of each type at size m: the given counts scaled by m / (GPU
 * nodes), rounded by largest remainders (ties to the larger type, then
 * the earlier), so that m GPU nodes in all and the given size gives the
 * given counts.
 */
static void apportion(const struct adv_cap *k, int64_t m, int64_t *count)
{
	double *rem = malloc((k->n_types ? k->n_types : 1) * sizeof(*rem));
	int64_t left = m;
	size_t t, best;

	for (t = 0; t < k->n_types; t++) {
		double q = (double)m * (double)k->types[t].n / (double)k->n_gpu_nodes;

		count[t] = (int64_t)floor(q);
		if (rem)
			rem[t] = q - (double)count[t];
		left -= count[t];
	}
	while (left-- > 0) {
		best = 0;
		for (t = 1; rem && t < k->n_types; t++)
			if (rem[t] > rem[best] ||
			    (rem[t] == rem[best] && k->types[t].n > k->types[best].n))
				best = t;
		count[best]++;
		if (rem)
			rem[best] = -1;
	}
	free(rem);
}

/* GPUs and nodes of the cluster of size m for trace t. */
static void size_shape(const struct adv_cap *k, const struct gs_cluster *base, int64_t m,
		       int64_t *gpus, int64_t *nodes)
{
	int64_t *count;
	size_t t;

	if (k->add_mode) {
		*gpus = base->gpu_count + m * k->add.gpu_count;
		*nodes = base->n_nodes + m * k->add.n_nodes;
		return;
	}
	count = calloc(k->n_types ? k->n_types : 1, sizeof(*count));
	*gpus = 0;
	*nodes = base->n_nodes - k->n_gpu_nodes;
	if (!count)
		return;
	apportion(k, m, count);
	for (t = 0; t < k->n_types; t++) {
		*gpus += count[t] * base->nodes[k->types[t].nodes[0]].num_gpu;
		*nodes += count[t];
	}
	free(count);
}

/* Appends node `from` of src to dst as `name`, with its GPUs' modes from the file. */
static int copy_node(struct gs_cluster *dst, const struct gs_cluster *src, int32_t from,
		     const char *name, char *err, size_t err_len)
{
	const struct gs_node *n = &src->nodes[from];
	const char *model = n->num_gpu > 0 ? src->models.m[n->model].name : NULL;
	int idx, g, rc;

	if (model && gs_models_find(&dst->models, model) < 0 &&
	    gs_models_set(&dst->models, model, src->models.m[n->model].mem_mib) < 0) {
		gs_errf(err, err_len, "too many GPU models");
		return GS_ERANGE;
	}
	idx = gs_cluster_add_node(dst, name, n->cpu_milli, n->mem_mib, n->num_gpu, model);
	if (idx < 0) {
		gs_errf(err, err_len, "cannot add node '%s': %s", name, gs_strerror(idx));
		return idx;
	}
	for (g = 0; src->share && g < n->num_gpu; g++) {
		uint8_t cfg = src->share[from].gpu[g].cfg;

		if (cfg == 0)
			continue;
		rc = gs_cluster_set_share(dst, idx, g, &src->share_cfg[cfg], err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

/* The cluster of size m for trace t, built and checksummed; NULL with a message. */
static struct adv_sized *build(struct adv_ctx *x, size_t t, int64_t m, char *err,
			       size_t err_len, int *rc)
{
	struct adv_cap *k = cap_of(x);
	const struct gs_cluster *base = &x->in.clusters[t];
	struct adv_sized *s = calloc(1, sizeof(*s));
	int64_t *count = calloc(k->n_types ? k->n_types : 1, sizeof(*count));
	int64_t *kept = calloc(k->n_types ? k->n_types : 1, sizeof(*kept));
	char name[512], *text = NULL;
	size_t len = 0, ty;
	int32_t i;
	int64_t j;
	FILE *f;

	*rc = GS_ENOMEM;
	if (!s || !count || !kept)
		goto fail;
	s->trace = t;
	s->size = m;
	gs_cluster_init(&s->cluster);
	/* The trace's model table: its pods' model masks index it. */
	s->cluster.models = base->models;
	if (!k->add_mode)
		apportion(k, m, count);
	for (i = 0; i < base->n_nodes; i++) {
		const struct gs_node *n = &base->nodes[i];

		if (!k->add_mode && n->num_gpu > 0) {
			for (ty = 0; ty < k->n_types; ty++)
				if (same_type(base, k->types[ty].nodes[0], i))
					break;
			if (kept[ty] >= count[ty])
				continue;
			kept[ty]++;
		}
		*rc = copy_node(&s->cluster, base, i, base->node_names[i], err, err_len);
		if (*rc)
			goto fail_msg;
	}
	for (ty = 0; !k->add_mode && ty < k->n_types; ty++)
		for (j = kept[ty]; j < count[ty]; j++) {
			int32_t from = k->types[ty].nodes[0];

			snprintf(name, sizeof(name), "%s+%lld", base->node_names[from],
				 (long long)(j - (int64_t)k->types[ty].n + 1));
			*rc = copy_node(&s->cluster, base, from, name, err, err_len);
			if (*rc)
				goto fail_msg;
		}
	for (j = 0; k->add_mode && j < m; j++)
		for (i = 0; i < k->add.n_nodes; i++) {
			snprintf(name, sizeof(name), "%s+%lld", k->add.node_names[i], (long long)j + 1);
			*rc = copy_node(&s->cluster, &k->add, i, name, err, err_len);
			if (*rc)
				goto fail_msg;
		}
	/* Its key in the database: the checksum of the cluster as JSON. */
	f = open_memstream(&text, &len);
	if (!f)
		goto fail;
	*rc = gs_write_cluster_json_stream(f, "cluster", &s->cluster, err, err_len);
	if (fclose(f) && !*rc)
		*rc = GS_ENOMEM;
	if (*rc) {
		free(text);
		goto fail_msg;
	}
	gs_sha256_hex(text, len, s->sha256);
	free(text);
	if (k->add_mode)
		snprintf(name, sizeof(name), "%s[+%lld x %s]", x->spec->nodes_path, (long long)m,
			 x->spec->add_nodes_path);
	else
		snprintf(name, sizeof(name), "%s[gpu-nodes=%lld]", x->spec->nodes_path,
			 (long long)m);
	s->path = strdup(name);
	if (!s->path)
		goto fail;
	free(count);
	free(kept);
	*rc = 0;
	return s;
fail:
	gs_errf(err, err_len, "out of memory");
fail_msg:
	if (s) {
		gs_cluster_release(&s->cluster);
		free(s->path);
	}
	free(s);
	free(count);
	free(kept);
	if (!*rc)
		*rc = GS_ENOMEM;
	return NULL;
}

/* The input index of the cluster of size m for trace t, built on first use. */
static long sized_input(struct adv_ctx *x, size_t t, int64_t m, char *err, size_t err_len,
			int *rc)
{
	struct adv_sized *s, **g;
	struct gs_batch_input bi;
	size_t i, j;

	*rc = 0;
	for (i = 0; i < x->n_sized; i++)
		if (x->sized[i]->trace == t && x->sized[i]->size == m)
			break;
	if (i == x->n_sized) {
		s = build(x, t, m, err, err_len, rc);
		if (!s)
			return -1;
		g = gs_grow(x->sized, &x->cap_sized, x->n_sized, sizeof(*g), 16);
		if (!g) {
			gs_cluster_release(&s->cluster);
			free(s->path);
			free(s);
			*rc = GS_ENOMEM;
			gs_errf(err, err_len, "out of memory");
			return -1;
		}
		x->sized = g;
		x->sized[x->n_sized++] = s;
	}
	s = x->sized[i];
	/* Its batch input, found by its cluster. */
	for (j = 0; j < x->n_inputs; j++)
		if (x->inputs[j].cluster == &s->cluster)
			return (long)j;
	bi.cluster = &s->cluster;
	bi.trace = &x->in.traces[t];
	bi.nodes_path = s->path;
	bi.nodes_sha256 = s->sha256;
	bi.pods_path = x->spec->pods_paths[t];
	if (gs__advise_add_input(x, &bi) < 0) {
		*rc = GS_ENOMEM;
		gs_errf(err, err_len, "out of memory");
		return -1;
	}
	return (long)x->n_inputs - 1;
}

void gs__advise_capacity_release(struct adv_ctx *x)
{
	struct adv_cap *k = x->cap;
	size_t i;

	for (i = 0; i < x->n_sized; i++) {
		gs_cluster_release(&x->sized[i]->cluster);
		free(x->sized[i]->path);
		free(x->sized[i]);
	}
	free(x->sized);
	x->sized = NULL;
	x->n_sized = 0;
	if (!k)
		return;
	for (i = 0; i < k->n_types; i++)
		free(k->types[i].nodes);
	free(k->types);
	gs_cluster_release(&k->add);
	free(k);
	x->cap = NULL;
}

/* Whether metric m can only get better as the cluster grows (for a target). */
static bool improves_with_size(enum gs_metric m)
{
	switch (m) {
	case GS_METRIC_COMPLETION:
	case GS_METRIC_P99_COMPLETION:
	case GS_METRIC_SLOWDOWN:
	case GS_METRIC_P99_SLOWDOWN:
	case GS_METRIC_WAIT:
	case GS_METRIC_P99_WAIT:
	case GS_METRIC_MAX_WAIT:
	case GS_METRIC_FAILED:
	case GS_METRIC_PENDING:
		return true;
	default:
		return false;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A completion-time target below what the pods take on their own can never hold. */
static int check_durations(struct adv_ctx *x, const struct gs_cond *c, char *err, size_t err_len)
{
	size_t t, i, n;
	char buf[128];

	if (c->metric != GS_METRIC_COMPLETION && c->metric != GS_METRIC_P99_COMPLETION)
		return 0;
	for (t = 0; t < x->spec->n_traces; t++) {
		const struct gs_trace *tr = &x->in.traces[t];
		double *d = malloc((tr->n_pods ? tr->n_pods : 1) * sizeof(*d)), v;

		if (!d)
			return gs_errf_nomem(err, err_len);
		for (i = 0, n = 0; i < tr->n_pods; i++) {
			int64_t dur = gs_pod_duration_s(&tr->pods[i]);

			if (dur >= 0)
				d[n++] = (double)dur;
		}
		qsort(d, n, sizeof(*d), cmp_double);
		v = NAN;
		if (n && c->metric == GS_METRIC_P99_COMPLETION) {
			v = gs_percentile_sorted(d, n, 99);
		} else if (n) {
			v = 0;
			for (i = 0; i < n; i++)
				v += d[i];
			v /= (double)n;
		}
		free(d);
		if (!isnan(v) && !gs_cond_holds(c, v)) {
			gs_errf(err, err_len, "--target: '%s' can never hold: the pods of %s take "
				"%.0f s %s on their own, without waiting",
				gs_cond_format(c, buf, sizeof(buf)), tr->path, v,
				c->metric == GS_METRIC_COMPLETION ? "on average" : "at p99");
			return GS_EINVAL;
		}
	}
	return 0;
}

/* Pods that fit no node of any size: no cluster of these node types meets a target. */
static int check_unfit(struct adv_ctx *x, char *err, size_t err_len)
{
	struct adv_cap *k = cap_of(x);
	size_t t, first;
	int rc = 0;

	for (t = 0; t < x->spec->n_traces && !rc; t++) {
		const struct gs_cluster *base = &x->in.clusters[t];
		const struct gs_trace *tr = &x->in.traces[t];
		struct gs_cluster one;
		size_t n;
		int32_t i;

		/* One node of every type there can be. */
		gs_cluster_init(&one);
		one.models = base->models;
		for (i = 0; i < base->n_nodes && !rc; i++)
			rc = copy_node(&one, base, i, base->node_names[i], err, err_len);
		for (i = 0; k->add_mode && i < k->add.n_nodes && !rc; i++)
			rc = copy_node(&one, &k->add, i, k->add.node_names[i], err, err_len);
		if (rc) {
			gs_cluster_release(&one);
			break;
		}
		n = gs_audit_unfit(&one, tr->pods, tr->n_pods, &first);
		gs_cluster_release(&one);
		if (n == (size_t)-1)
			return gs_errf_nomem(err, err_len);
		if (n) {
			gs_errf(err, err_len, "--target: %s: %zu pods (the first, '%s') fit on no "
				"node of %s%s%s, whatever their number: no cluster of them meets "
				"a target", tr->path, n, tr->pod_names[first], x->spec->nodes_path,
				k->add_mode ? " nor " : "",
				k->add_mode ? x->spec->add_nodes_path : "");
			return GS_EINVAL;
		}
	}
	return rc;
}

int gs__advise_capacity_check(struct adv_ctx *x, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	struct adv_cap *k = calloc(1, sizeof(*k));
	char sha[GS_SHA256_HEX], buf[128], msg[768];
	size_t i;
	int rc;

	if (!k)
		return gs_errf_nomem(err, err_len);
	x->cap = k;
	k->x = x;
	gs_cluster_init(&k->add);
	for (i = 0; i < spec->n_targets; i++) {
		const struct gs_cond *c = &spec->targets[i];

		if (!improves_with_size(c->metric) || c->op == '>' || c->op == 'g') {
			gs_errf(err, err_len, "--target: '%s': a target bounds a figure that more "
				"nodes can only lower (completion, slowdown, waits, failed and "
				"pending pods) from above", gs_cond_format(c, buf, sizeof(buf)));
			return GS_EINVAL;
		}
		rc = check_durations(x, c, err, err_len);
		if (rc)
			return rc;
	}
	rc = find_types(k, &x->in.clusters[0]);
	if (rc) {
		gs_errf(err, err_len, "out of memory");
		return rc;
	}
	if (spec->add_nodes_path) {
		k->add_mode = true;
		rc = gs_load_cluster(spec->add_nodes_path, &k->add, sha, msg, sizeof(msg));
		if (rc) {
			gs_errf(err, err_len, "--add-nodes: %s", msg);
			return rc == GS_ENOMEM ? rc : GS_EINVAL;
		}
		if (k->add.n_nodes == 0 || k->add.gpu_count == 0) {
			gs_errf(err, err_len, "--add-nodes: %s has no GPU node to add",
				spec->add_nodes_path);
			return GS_EINVAL;
		}
	}
	k->m0 = k->add_mode ? 0 : k->n_gpu_nodes;
	k->min = k->add_mode ? 0 : 1;
	k->max = spec->max_nodes > 0 ? spec->max_nodes :
		 4 * (k->n_gpu_nodes > 0 ? k->n_gpu_nodes : 1);
	if (k->max < k->m0) {
		gs_errf(err, err_len, "--max-nodes: %lld is below the %lld GPU nodes of %s",
			(long long)k->max, (long long)k->m0, spec->nodes_path);
		return GS_EINVAL;
	}
	x->a->add_mode = k->add_mode;
	if (k->add_mode) {
		char models[128] = "";
		int32_t j;
		size_t o = 0;

		for (j = 0; j < k->add.n_nodes && o < sizeof(models); j++)
			if (k->add.nodes[j].num_gpu > 0)
				o += (size_t)snprintf(models + o, sizeof(models) - o, "%s%d x %s",
						      o ? ", " : "", (int)k->add.nodes[j].num_gpu,
						      k->add.models.m[k->add.nodes[j].model].name);
		snprintf(x->a->add_desc, sizeof(x->a->add_desc), "%d node%s of %s",
			 (int)k->add.n_nodes, k->add.n_nodes == 1 ? "" : "s", models);
	}
	return check_unfit(x, err, err_len);
}

/* Whether a run meets every target: no pod failed or unstarted, every bound holds. */
static bool meets(const struct adv_ctx *x, const struct gs_outcome *o)
{
	size_t i;

	if (o->run_id < 0 || !(o->fig[GS_FIG_FAILED] == 0) || !(o->fig[GS_FIG_PENDING] == 0))
		return false;
	for (i = 0; i < x->spec->n_targets; i++) {
		const struct gs_cond *c = &x->spec->targets[i];
		enum gs_fig f = gs_metric_fig(c->metric);
		double v = o->fig[f];

		/* No pod waited or departed: a bound on those figures holds. */
		if (isnan(v) && (c->metric == GS_METRIC_WAIT || c->metric == GS_METRIC_P99_WAIT ||
				 c->metric == GS_METRIC_MAX_WAIT))
			v = 0;
		if (!gs_cond_holds(c, v))
			return false;
	}
	return true;
}

/* The pods mechanism m can never place on trace t's cluster (run/audit.h); 0 when unknown. */
static size_t never_of(const struct adv_ctx *x, size_t t, size_t m)
{
	size_t i;

	for (i = 0; i < x->a->n_never; i++)
		if (x->a->never[i].input == t &&
		    gs_share_cfg_equal(&x->a->never[i].sharing, &x->mechs[m]))
			return x->a->never[i].n_never;
	return 0;
}

/* Adds a point of the capacity curve. */
static int add_point(struct adv_ctx *x, const struct search *s, int64_t m,
		     const struct gs_outcome *o)
{
	struct gs_advise *a = x->a;
	struct gs_advise_point *p;
	int64_t nodes;
	size_t cap = a->n_points;

	/* Exact growth: a search has a handful of points. */
	p = gs_realloc_n(a->points, cap + 1, sizeof(*p));
	if (!p)
		return GS_ENOMEM;
	a->points = p;
	p = &a->points[a->n_points++];
	p->block = s->block;
	p->cand = s->cand;
	p->seed = a->seeds[s->seed];
	p->size = m;
	size_shape(cap_of(x), &x->in.clusters[gs_advise_trace(a, s->block)], m, &p->gpus, &nodes);
	p->value = o->fig[gs_metric_fig(x->spec->targets[0].metric)];
	p->meets = meets(x, o);
	return 0;
}

/* The candidates to size in block b: the best, its ties (capacity_top in all), the baseline. */
static size_t pick(const struct adv_ctx *x, size_t b, bool all_in, size_t *out)
{
	const struct gs_advise *a = x->a;
	const struct gs_decide_block *k = &a->decision.blocks[b];
	size_t r, n = 0, i;

	for (r = 0; r < k->n_rows; r++) {
		const struct gs_decide_row *row = &k->rows[r];

		if (row->out != GS_DECIDE_IN)
			continue;
		if (!all_in && n >= x->spec->capacity_top)
			break;
		if (!all_in && row->cand != k->best && !row->tie)
			break;
		out[n++] = row->cand;
	}
	for (i = 0; i < n && out[i] != a->baseline; i++)
		;
	if (i == n)
		out[n++] = a->baseline;
	return n;
}

/* The first probe of search s: the given size's run, from the matrix. */
static void start(struct adv_ctx *x, struct search *s)
{
	struct adv_cap *k = cap_of(x);
	struct gs_advise *a = x->a;
	size_t t = gs_advise_trace(a, s->block), i = s->cand * a->n_seeds + s->seed;
	struct gs_outcome o;

	s->lo = k->min - 1;
	s->hi = -1;
	if (never_of(x, t, x->cand_mech[s->cand])) {
		s->done = true;
		s->why_not = "pods its mechanism can never place";
		return;
	}
	gs_outcome_init(&o);
	o.run_id = a->run_ids[s->block][i];
	memcpy(o.fig, a->runs[s->block][i].fig, sizeof(o.fig));
	if (add_point(x, s, k->m0, &o) == 0 && meets(x, &o))
		s->hi = k->m0;
	else
		s->lo = k->m0;
}

/* The next size search s probes; done when it has its answer. */
static void step(const struct adv_cap *k, struct search *s)
{
	if (s->done)
		return;
	if (s->hi >= 0) {
		if (s->hi - s->lo <= 1)
			s->done = true;
		else
			s->next = s->lo + (s->hi - s->lo) / 2;
		return;
	}
	if (s->lo >= k->max) {
		s->done = true;
		s->why_not = "not met up to the largest size searched (--max-nodes)";
		return;
	}
	s->next = s->lo <= 0 ? 1 : 2 * s->lo;
	if (s->next > k->max)
		s->next = k->max;
}

/* The answers of the searches of block b into a->sizes[b]; GPUs per seed for the objective. */
static int answers(struct adv_ctx *x, size_t b, const struct search *ss, size_t n_ss,
		   const size_t *cands, size_t n_cands)
{
	struct gs_advise *a = x->a;
	const struct gs_cluster *base = &x->in.clusters[gs_advise_trace(a, b)];
	size_t c, i, s;

	a->sizes[b] = calloc(n_cands ? n_cands : 1, sizeof(**a->sizes));
	if (!a->sizes[b])
		return GS_ENOMEM;
	a->n_sizes[b] = n_cands;
	for (c = 0; c < n_cands; c++) {
		struct gs_advise_size *z = &a->sizes[b][c];

		z->cand = cands[c];
		z->size = 0;
		z->seed_size = malloc(a->n_seeds * sizeof(*z->seed_size));
		if (!z->seed_size)
			return GS_ENOMEM;
		for (s = 0; s < a->n_seeds; s++)
			z->seed_size[s] = -2;
		for (i = 0; i < n_ss; i++) {
			const struct search *q = &ss[i];
			int64_t gpus, nodes;

			if (q->block != b || q->cand != cands[c])
				continue;
			z->seed_size[q->seed] = q->hi >= 0 && !q->why_not ? q->hi : -1;
			if (z->seed_size[q->seed] < 0) {
				z->size = -1;
				z->why_not = q->why_not;
			} else if (z->size >= 0 && q->hi > z->size) {
				z->size = q->hi;
			}
			size_shape(cap_of(x), base, z->seed_size[q->seed], &gpus, &nodes);
			a->runs[b][q->cand * a->n_seeds + q->seed].gpus =
				z->seed_size[q->seed] >= 0 ? (double)gpus : NAN;
		}
		z->gpus = z->nodes = -1;
		if (z->size >= 0)
			size_shape(cap_of(x), base, z->size, &z->gpus, &z->nodes);
	}
	return 0;
}

int gs__advise_capacity(struct adv_ctx *x, bool all_in, char *err, size_t err_len)
{
	struct gs_advise *a = x->a;
	struct adv_cap *k = cap_of(x);
	struct search *ss = NULL;
	size_t n_ss = 0, b, c, s, i, *n_picked = NULL, **picked = NULL;
	struct adv_cell *cells = NULL;
	struct gs_outcome *out = NULL;
	int rc = 0;

	a->capacity = true;
	a->sizes = calloc(a->n_blocks, sizeof(*a->sizes));
	a->n_sizes = calloc(a->n_blocks, sizeof(*a->n_sizes));
	picked = calloc(a->n_blocks, sizeof(*picked));
	n_picked = calloc(a->n_blocks, sizeof(*n_picked));
	if (!a->sizes || !a->n_sizes || !picked || !n_picked)
		goto oom;
	for (b = 0; b < a->n_blocks; b++) {
		picked[b] = malloc((a->n_cands + 1) * sizeof(**picked));
		if (!picked[b])
			goto oom;
		n_picked[b] = pick(x, b, all_in, picked[b]);
		n_ss += n_picked[b] * a->n_seeds_initial;
	}
	ss = calloc(n_ss ? n_ss : 1, sizeof(*ss));
	cells = calloc(n_ss ? n_ss : 1, sizeof(*cells));
	out = calloc(n_ss ? n_ss : 1, sizeof(*out));
	if (!ss || !cells || !out)
		goto oom;
	for (b = 0, i = 0; b < a->n_blocks; b++)
		for (c = 0; c < n_picked[b]; c++)
			for (s = 0; s < a->n_seeds_initial; s++, i++) {
				ss[i].block = b;
				ss[i].cand = picked[b][c];
				ss[i].seed = s;
				start(x, &ss[i]);
			}
	for (;;) {
		size_t n = 0;

		for (i = 0; i < n_ss && !rc; i++) {
			struct search *q = &ss[i];
			long input;

			step(k, q);
			if (q->done)
				continue;
			input = sized_input(x, gs_advise_trace(a, q->block), q->next, err, err_len,
					    &rc);
			if (input < 0)
				break;
			cells[n].block = q->block;
			cells[n].cand = q->cand;
			cells[n].seed = q->seed;
			cells[n].input = (size_t)input;
			cells[n].size = q->next;
			cells[n].setting = gs__advise_setting(x, x->cand_mech[q->cand],
						       q->block % a->n_loads, true, err, err_len,
						       &rc);
			n++;
		}
		if (rc || n == 0)
			break;
		a->rounds++;
		rc = gs__advise_run_cells(x, cells, n, out, "capacity", false, err, err_len);
		if (rc)
			break;
		/* The cells follow the open searches in order. */
		for (i = 0, c = 0; i < n_ss && !rc; i++) {
			struct search *q = &ss[i];

			if (q->done)
				continue;
			rc = add_point(x, q, q->next, &out[c]);
			if (meets(x, &out[c]))
				q->hi = q->next;
			else
				q->lo = q->next;
			c++;
		}
		if (rc)
			goto oom;
	}
	for (b = 0; !rc && b < a->n_blocks; b++)
		if (answers(x, b, ss, n_ss, picked[b], n_picked[b]))
			goto oom;
	x->sized_done = true;
	goto out;
oom:
	gs_errf(err, err_len, "out of memory");
	rc = GS_ENOMEM;
out:
	for (b = 0; picked && b < a->n_blocks; b++)
		free(picked[b]);
	free(picked);
	free(n_picked);
	free(ss);
	free(cells);
	free(out);
	return rc;
}
