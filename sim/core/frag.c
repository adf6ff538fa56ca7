/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frag.c - GPU fragmentation of nodes and of the cluster, after Weng et
 * al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
 * Fragmentation Gradient Descent", USENIX ATC 2023, section 3.
 *
 * For one pod kind m, the fragment of a node is the free GPU share that m
 * cannot use there:
 *   - all of it (sum of L_i) when m asks for no GPU, when the node's GPU
 *     model is not in m's set, or when m does not fit (too little free CPU,
 *     or fewer than num_gpu GPUs with at least gpu_milli free);
 *   - otherwise the GPUs too small for m: the sum of L_i < gpu_milli.
 * Memory is not considered, as in the reference simulator.
 *
 * The typical workload (section 3.2) is the smallest set of most frequent
 * kinds that covers a share of the pods; the node's fragmentation is the
 * expectation of the per-kind amounts under the kinds' frequencies.
 *
 * Plain C with no dependency beyond libc: it is part of the allocator
 * library and the FGD policy uses it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/frag.h"
#include "core/mem.h"
#include "core/rng.h"

void gs_workload_init(struct gs_workload *w)
{
	w->kinds = NULL;
	w->n = 0;
}

void gs_workload_release(struct gs_workload *w)
{
	free(w->kinds);
	gs_workload_init(w);
}

/*
 * A pod's kind key. By model set, a CPU-only pod is (cpu, 0, 0, mask)
 * whatever it says and spec is always NULL; by spec, the fields are kept
 * as written and spec is the gpu_spec text (NULL for none).
 */
struct kind_key {
	int32_t cpu_milli;
	int32_t num_gpu;
	int32_t gpu_milli;
	uint32_t model_mask;
	const char *spec;
};

static struct kind_key key_of(const struct gs_pod *p, const char *spec, enum gs_kinds_by by)
{
	struct kind_key k;

	k.cpu_milli = p->cpu_milli;
	k.model_mask = p->model_mask;
	k.spec = NULL;
	if (by == GS_KINDS_BY_SPEC) {
		k.num_gpu = p->num_gpu;
		k.gpu_milli = p->gpu_milli;
		if (spec && *spec)
			k.spec = spec;
		return k;
	}
	k.num_gpu = gs_pod_cpu_only(p) ? 0 : p->num_gpu;
	k.gpu_milli = gs_pod_cpu_only(p) ? 0 : p->gpu_milli;
	return k;
}

/* Spec texts bytewise, a missing one as "", as Go compares strings. */
static int spec_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Equal keys compare 0; any total order will do for grouping. */
static int key_cmp(const struct kind_key *a, const struct kind_key *b)
{
	int c;

	if ((c = gs_cmp_i64(a->cpu_milli, b->cpu_milli)) ||
	    (c = gs_cmp_i64(a->num_gpu, b->num_gpu)) ||
	    (c = gs_cmp_i64(a->gpu_milli, b->gpu_milli)) || (c = spec_cmp(a->spec, b->spec)))
		return c;
	return gs_cmp_i64(a->model_mask, b->model_mask);
}

/* A key's hash: FNV-1a over its fields and spec text (NULL as ""), finished by splitmix64's mixer. */
static uint64_t key_hash(const struct kind_key *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const unsigned char *t = (const unsigned char *)(k->spec ? k->spec : "");

	h = (h ^ (uint32_t)k->cpu_milli) * 0x100000001b3ull;
	h = (h ^ (uint32_t)k->num_gpu) * 0x100000001b3ull;
	h = (h ^ (uint32_t)k->gpu_milli) * 0x100000001b3ull;
	h = (h ^ k->model_mask) * 0x100000001b3ull;
	for (; *t; t++)
		h = (h ^ *t) * 0x100000001b3ull;
	return gs_rng_mix(h);
}

/* A distinct kind while counting: its key, count and first appearance. */
struct tally {
	struct kind_key key;
	int64_t count;
	size_t first;
};

/* Most frequent first; equal counts keep the order of first appearance. */
static int tally_cmp_first(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	int c = gs_cmp_i64(y->count, x->count);

	return c ? c : gs_cmp_size(x->first, y->first);
}

/*
 * Most frequent first; equal counts by descending cpu, GPU milli, GPU
 * count, spec text (the reference sorts its kinds with the reverse of an
 * ascending order on these), then model set for pods without text.
 */
static int tally_cmp_spec(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	const struct kind_key *p = &x->key, *q = &y->key;
	int c;

	if ((c = gs_cmp_i64(y->count, x->count)) || (c = gs_cmp_i64(q->cpu_milli, p->cpu_milli)) ||
	    (c = gs_cmp_i64(q->gpu_milli, p->gpu_milli)) ||
	    (c = gs_cmp_i64(q->num_gpu, p->num_gpu)) || (c = spec_cmp(q->spec, p->spec)))
		return c;
	return gs_cmp_i64(q->model_mask, p->model_mask);
}

int gs_workload_typical_by(const struct gs_pod *pods, const char *const *specs, size_t n,
			   double coverage, enum gs_kinds_by by, struct gs_workload *out)
{
	struct tally *ts;
	struct gs_kind *kinds;
	size_t i, nt, take, size, *table;
	int64_t cum;
	double need;

	if (!pods || n == 0 || !out || !(coverage > 0.0 && coverage <= 1.0) ||
	    (by != GS_KINDS_BY_MODEL_SET && by != GS_KINDS_BY_SPEC))
		return GS_EINVAL;
	/*
	 * Count the kinds in one pass through a hash table of the tallies
	 * (open addressing, at most half full); a kind's first pod is the one
	 * that adds it. The tallies are then sorted, so the order does not
	 * depend on the table.
	 */
	for (size = 16; size < 2 * n; size *= 2)
		;
	table = malloc(size * sizeof(*table));
	ts = malloc(n * sizeof(*ts));
	if (!table || !ts) {
		GS_MEM_FREE(table, ts);
		return GS_ENOMEM;
	}
	memset(table, 0xff, size * sizeof(*table));
	nt = 0;
	for (i = 0; i < n; i++) {
		struct kind_key k = key_of(&pods[i], specs ? specs[i] : NULL, by);
		size_t h = (size_t)key_hash(&k) & (size - 1);

		while (table[h] != SIZE_MAX && key_cmp(&ts[table[h]].key, &k) != 0)
			h = (h + 1) & (size - 1);
		if (table[h] != SIZE_MAX) {
			ts[table[h]].count++;
			continue;
		}
		table[h] = nt;
		ts[nt].key = k;
		ts[nt].count = 1;
		ts[nt].first = i;
		nt++;
	}
	free(table);
	qsort(ts, nt, sizeof(*ts), by == GS_KINDS_BY_SPEC ? tally_cmp_spec : tally_cmp_first);

	/*
	 * Take kinds until they cover the share, as the reference does with a
	 * step of one kind (PodIncreaseStep = 1). The small slack keeps an exact
	 * cover such as 19 of 20 pods at 0.95 from being lost to rounding.
	 */
	need = coverage * (double)n - 1e-9;
	cum = 0;
	for (take = 0; take < nt && (double)cum < need; take++)
		cum += ts[take].count;

	kinds = malloc(take * sizeof(*kinds));
	if (!kinds) {
		free(ts);
		return GS_ENOMEM;
	}
	for (i = 0; i < take; i++) {
		double total = (double)n;

		kinds[i].cpu_milli = ts[i].key.cpu_milli;
		kinds[i].num_gpu = ts[i].key.num_gpu;
		kinds[i].gpu_milli = ts[i].key.gpu_milli;
		kinds[i].model_mask = ts[i].key.model_mask;
		kinds[i].count = ts[i].count;
		if (by == GS_KINDS_BY_MODEL_SET)
			kinds[i].p = (double)ts[i].count / (double)cum;
		else if (take == nt)
			kinds[i].p = (double)ts[i].count / total;
		else
			kinds[i].p = ((double)ts[i].count / total) / ((double)cum / total);
	}
	free(ts);
	out->kinds = kinds;
	out->n = (int32_t)take;
	return 0;
}

int gs_workload_typical(const struct gs_pod *pods, size_t n, double coverage,
			struct gs_workload *out)
{
	return gs_workload_typical_by(pods, NULL, n, coverage, GS_KINDS_BY_MODEL_SET, out);
}

int64_t gs_node_frag_kind(const struct gs_node *n, const struct gs_kind *k)
{
	int64_t total = 0, small = 0;
	int32_t i, fit = 0;

	for (i = 0; i < n->num_gpu; i++)
		total += n->gpu_free_milli[i];
	if (k->num_gpu <= 0 || k->gpu_milli <= 0)
		return total;
	if (k->model_mask && (n->model < 0 || !((k->model_mask >> n->model) & 1u)))
		return total;
	if (n->cpu_free_milli < k->cpu_milli)
		return total;
	for (i = 0; i < n->num_gpu; i++) {
		if (n->gpu_free_milli[i] >= k->gpu_milli)
			fit++;
		else
			small += n->gpu_free_milli[i];
	}
	return fit >= k->num_gpu ? small : total;
}

double gs_node_frag(const struct gs_node *n, const struct gs_workload *w)
{
	double sum = 0;
	int32_t m;

	for (m = 0; m < w->n; m++)
		sum += w->kinds[m].p * (double)gs_node_frag_kind(n, &w->kinds[m]);
	return sum;
}

/* The reference's fragment categories, in its order (Q1..Q4, XL, XR, no access). */
enum {
	CAT_LACK_BOTH,
	CAT_LACK_GPU,
	CAT_SATISFIED,
	CAT_LACK_CPU,
	CAT_CPU_ONLY_SATISFIED,
	CAT_CPU_ONLY_LACK_CPU,
	CAT_NO_ACCESS,
	CAT__COUNT
};

double gs_node_frag_categories(const struct gs_node *n, const struct gs_workload *w)
{
	double cat[CAT__COUNT] = { 0 };
	double sum = 0;
	int64_t total = 0;
	int32_t i, m;
	int c;

	for (i = 0; i < n->num_gpu; i++)
		total += n->gpu_free_milli[i];
	for (m = 0; m < w->n; m++) {
		const struct gs_kind *k = &w->kinds[m];
		bool cpu_ok = n->cpu_free_milli >= k->cpu_milli;
		int64_t small = 0;
		int32_t fit = 0;

		if (k->num_gpu <= 0 || k->gpu_milli <= 0) {
			cat[cpu_ok ? CAT_CPU_ONLY_SATISFIED : CAT_CPU_ONLY_LACK_CPU] +=
				k->p * (double)total;
			continue;
		}
		if (k->model_mask && (n->model < 0 || !((k->model_mask >> n->model) & 1u))) {
			cat[CAT_NO_ACCESS] += k->p * (double)total;
			continue;
		}
		for (i = 0; i < n->num_gpu; i++) {
			if (n->gpu_free_milli[i] >= k->gpu_milli)
				fit++;
			else
				small += n->gpu_free_milli[i];
		}
		if (fit < k->num_gpu)
			cat[cpu_ok ? CAT_LACK_GPU : CAT_LACK_BOTH] += k->p * (double)total;
		else if (!cpu_ok)
			cat[CAT_LACK_CPU] += k->p * (double)total;
		else {
			cat[CAT_LACK_GPU] += k->p * (double)small;
			cat[CAT_SATISFIED] += k->p * (double)(total - small);
		}
	}
	for (c = 0; c < CAT__COUNT; c++)
		if (c != CAT_SATISFIED)
			sum += cat[c];
	return sum;
}

/* How many of the kinds' shares are at most milli: the first share above it. */
static inline int32_t shares_upto(const struct gs_frag_shares *s, int32_t milli)
{
	if (milli < 0)
		return 0;
	return milli > GS_MILLI_PER_GPU ? s->n_share : s->upto[milli];
}

void gs_frag_view_init(const struct gs_frag_shares *s, const struct gs_node *n,
		       struct gs_frag_view *v)
{
	int32_t g, i, t, below = 0;
	int64_t below_free = 0;
	uint32_t slot = (uint32_t)n->model < GS_MAX_MODELS ? (uint32_t)n->model : GS_MAX_MODELS;

	/*
	 * A GPU with x free is too small for the shares from the first above
	 * x on: count it and its x there, then sum up over the shares. No
	 * sort, one pass over the GPUs and one over the shares.
	 */
	g = n->num_gpu > GS_MAX_GPUS ? GS_MAX_GPUS : n->num_gpu;
	memset(v->ge, 0, (size_t)s->n_share * sizeof(*v->ge));
	memset(v->lt_free, 0, (size_t)s->n_share * sizeof(*v->lt_free));
	v->total = 0;
	for (i = 0; i < g; i++) {
		int32_t x = n->gpu_free_milli[i];

		t = shares_upto(s, x);
		v->total += x;
		if (t < s->n_share) {
			v->ge[t]++;
			v->lt_free[t] += x;
		}
	}
	for (t = 0; t < s->n_share; t++) {
		below += v->ge[t];
		below_free += v->lt_free[t];
		v->ge[t] = g - below;
		v->lt_free[t] = below_free;
	}
	v->need = s->need + (size_t)slot * (size_t)s->w->n;
}

void gs_frag_view_lower(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			int32_t from, int32_t to, struct gs_frag_view *out)
{
	int32_t t, lo = shares_upto(s, to), hi = shares_upto(s, from);

	/* Shares up to `to` still fit the GPU, those up to `from` no longer do, the rest never did. */
	out->need = v->need;
	out->total = v->total - (from - to);
	for (t = 0; t < lo; t++) {
		out->ge[t] = v->ge[t];
		out->lt_free[t] = v->lt_free[t];
	}
	for (; t < hi; t++) {
		out->ge[t] = v->ge[t] - 1;
		out->lt_free[t] = v->lt_free[t] + to;
	}
	for (; t < s->n_share; t++) {
		out->ge[t] = v->ge[t];
		out->lt_free[t] = v->lt_free[t] - (from - to);
	}
}

/*
 * gs_node_frag_kind() of kind m on the viewed node with cpu_free milli CPU
 * free: the whole free share unless m asks for GPUs, may use the node's
 * model, gets its CPU and finds enough GPUs with its share free; then the
 * share of the smaller GPUs.
 */
static inline int64_t kind_amount(const struct gs_frag_shares *s, const struct gs_frag_view *v,
				  int32_t m, int32_t cpu_free)
{
	int32_t t = s->share_of[m];

	if (t >= 0 && cpu_free >= s->cpu[m] && v->ge[t] >= v->need[m])
		return v->lt_free[t];
	return v->total;
}

void gs_frag_view_kinds(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			int32_t cpu_free, int64_t *out)
{
	int32_t m, n_kinds = s->w->n;

	for (m = 0; m < n_kinds; m++)
		out[m] = kind_amount(s, v, m, cpu_free);
}

/*
 * gs_node_frag_kind() for every kind of s's workload at once, into
 * row[0..w->n), each change added to totals[m]: the same integers at a
 * fraction of the cost (the engine updates a node's amounts on every
 * bind), in one pass. Returns whether a total changed.
 */
static bool node_frag_kinds(const struct gs_frag_shares *s, const struct gs_node *n, int64_t *row,
			    int64_t *totals)
{
	struct gs_frag_view v;
	int32_t m, n_kinds = s->w->n, cpu_free = n->cpu_free_milli;
	int64_t changed = 0;

	gs_frag_view_init(s, n, &v);
	for (m = 0; m < n_kinds; m++) {
		int64_t d = kind_amount(s, &v, m, cpu_free) - row[m];

		totals[m] += d;
		row[m] += d;
		changed |= d;
	}
	return changed != 0;
}

double gs_frag_view_drop(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			 int32_t cpu_free, const int64_t *before, double start)
{
	int32_t m, n_kinds = s->w->n;
	double drop = start;

	for (m = 0; m < n_kinds; m++) {
		int64_t d = before[m] - kind_amount(s, v, m, cpu_free);

		if (d)
			drop += s->p[m] * (double)d;
	}
	return drop;
}

double gs_frag_view_categories(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			       int32_t cpu_free)
{
	/* The categories but "satisfied" (never summed), apart so that they stay in registers. */
	double lack_both = 0, lack_gpu = 0, lack_cpu = 0, cpu_only_ok = 0, cpu_only_lack = 0;
	double no_access = 0, sum = 0, total = (double)v->total;
	int32_t m, n_kinds = s->w->n;

	for (m = 0; m < n_kinds; m++) {
		bool cpu_ok = cpu_free >= s->cpu[m];
		int32_t t = s->share_of[m];
		double p = s->p[m];

		/* gs_node_frag_categories()'s cases in its order. */
		if (t < 0) {
			if (cpu_ok)
				cpu_only_ok += p * total;
			else
				cpu_only_lack += p * total;
		} else if (v->need[m] == INT32_MAX) {
			no_access += p * total;
		} else if (v->ge[t] < v->need[m]) {
			if (cpu_ok)
				lack_gpu += p * total;
			else
				lack_both += p * total;
		} else if (!cpu_ok) {
			lack_cpu += p * total;
		} else {
			lack_gpu += p * (double)v->lt_free[t];
		}
	}
	/* In the order of the categories' enum, as gs_node_frag_categories() adds them. */
	_Static_assert(CAT_LACK_BOTH == 0 && CAT_LACK_GPU == 1 && CAT_SATISFIED == 2 &&
			       CAT_LACK_CPU == 3 && CAT_CPU_ONLY_SATISFIED == 4 &&
			       CAT_CPU_ONLY_LACK_CPU == 5 && CAT_NO_ACCESS == 6,
		       "gs_frag_view_categories() adds the categories in this order");
	sum += lack_both;
	sum += lack_gpu;
	sum += lack_cpu;
	sum += cpu_only_ok;
	sum += cpu_only_lack;
	sum += no_access;
	return sum;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

int gs_frag_shares_init(struct gs_frag_shares *s, const struct gs_workload *w)
{
	int32_t m, t, n = 0;

	memset(s, 0, sizeof(*s));
	s->w = w;
	s->share = malloc(((size_t)w->n + 1) * sizeof(*s->share));
	s->share_of = malloc(((size_t)w->n + 1) * sizeof(*s->share_of));
	s->cpu = malloc(((size_t)w->n + 1) * sizeof(*s->cpu));
	s->p = malloc(((size_t)w->n + 1) * sizeof(*s->p));
	s->need = malloc(((size_t)w->n + 1) * (GS_MAX_MODELS + 1) * sizeof(*s->need));
	s->upto = malloc((GS_MILLI_PER_GPU + 1) * sizeof(*s->upto));
	if (!s->share || !s->share_of || !s->cpu || !s->p || !s->need || !s->upto) {
		gs_frag_shares_release(s);
		return GS_ENOMEM;
	}
	for (m = 0; m < w->n; m++)
		if (w->kinds[m].num_gpu > 0 && w->kinds[m].gpu_milli > 0)
			s->share[n++] = w->kinds[m].gpu_milli;
	qsort(s->share, (size_t)n, sizeof(*s->share), cmp_i32);
	for (m = t = 0; m < n; m++)
		if (t == 0 || s->share[t - 1] != s->share[m])
			s->share[t++] = s->share[m];
	s->n_share = t;
	for (m = 0, t = 0; m <= GS_MILLI_PER_GPU; m++) {
		while (t < s->n_share && s->share[t] <= m)
			t++;
		s->upto[m] = t;
	}
	for (m = 0; m < w->n; m++) {
		const struct gs_kind *k = &w->kinds[m];
		int32_t *hit, j;

		s->cpu[m] = k->cpu_milli;
		s->p[m] = k->p;
		for (j = 0; j <= GS_MAX_MODELS; j++)
			s->need[(size_t)j * (size_t)w->n + (size_t)m] =
				k->model_mask && (j == GS_MAX_MODELS || !((k->model_mask >> j) & 1u)) ?
				INT32_MAX : k->num_gpu;
		s->share_of[m] = -1;
		if (k->num_gpu <= 0 || k->gpu_milli <= 0)
			continue;
		hit = bsearch(&k->gpu_milli, s->share, (size_t)s->n_share, sizeof(*s->share),
			      cmp_i32);
		s->share_of[m] = (int32_t)(hit - s->share);
	}
	return 0;
}

void gs_frag_shares_release(struct gs_frag_shares *s)
{
	GS_MEM_FREE(s->share, s->share_of, s->cpu, s->p, s->need, s->upto);
	memset(s, 0, sizeof(*s));
}

/*
 * The sum over kinds of p x kind_total, in kind order: worked out when a
 * total changes rather than each time it is asked for (the engine asks on
 * every sample, and in inflate mode a failed placement changes nothing).
 */
static double kinds_total(const struct gs_frag *f)
{
	double sum = 0;
	int32_t m;

	for (m = 0; m < f->w->n; m++)
		sum += f->shares.p[m] * (double)f->kind_total[m];
	return sum;
}

int gs_frag_init(struct gs_frag *f, const struct gs_cluster *c, const struct gs_workload *w)
{
	size_t cells;
	int32_t node;

	memset(f, 0, sizeof(*f));
	if (!c || !w || w->n < 0 || (w->n > 0 && !w->kinds))
		return GS_EINVAL;
	f->w = w;
	f->n_nodes = c->n_nodes;
	cells = (size_t)c->n_nodes * (size_t)w->n;
	f->node_kind = calloc(cells ? cells : 1, sizeof(*f->node_kind));
	f->kind_total = calloc(w->n ? (size_t)w->n : 1, sizeof(*f->kind_total));
	if (!f->node_kind || !f->kind_total || gs_frag_shares_init(&f->shares, w)) {
		gs_frag_release(f);
		return GS_ENOMEM;
	}
	/* The rows start at 0, so each node's amounts are added to the totals. */
	for (node = 0; node < c->n_nodes; node++)
		node_frag_kinds(&f->shares, &c->nodes[node], f->node_kind + (size_t)node * (size_t)w->n,
				f->kind_total);
	f->total = kinds_total(f);
	return 0;
}

void gs_frag_update(struct gs_frag *f, const struct gs_cluster *c, int32_t node)
{
	if (node < 0 || node >= f->n_nodes)
		return;
	if (node_frag_kinds(&f->shares, &c->nodes[node],
			    f->node_kind + (size_t)node * (size_t)f->w->n, f->kind_total))
		f->total = kinds_total(f);
}

double gs_frag_total(const struct gs_frag *f)
{
	return f->total;
}

double gs_frag_node(const struct gs_frag *f, int32_t node)
{
	const int64_t *row = f->node_kind + (size_t)node * (size_t)f->w->n;
	double sum = 0;
	int32_t m;

	for (m = 0; m < f->w->n; m++)
		sum += f->w->kinds[m].p * (double)row[m];
	return sum;
}

void gs_frag_release(struct gs_frag *f)
{
	free(f->node_kind);
	free(f->kind_total);
	gs_frag_shares_release(&f->shares);
	memset(f, 0, sizeof(*f));
}
