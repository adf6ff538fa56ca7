/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arrived_stats.c - per-arrived-percent statistics of a run (see arrived_stats.h).
 *
 * The samples are sorted once by (arrived percent, allocated milli-GPU,
 * fragmentation with "not tracked" first, sample index), the order in
 * which SQLite read them through the samples_arrived index when the views
 * computed these means from stored samples, and summed in that order.
 * Inflate mode's samples are nearly in that order already (sort_keys).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "engine/arrived_stats.h"

struct keyed {
	int64_t pct;
	int64_t alloc;
	double frag;      /* NAN: not tracked */
	size_t idx;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	bool xn = isnan(x->frag), yn = isnan(y->frag);

	if (x->pct != y->pct)
		return x->pct < y->pct ? -1 : 1;
	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? -1 : 1;
	if (xn != yn)
		return xn ? -1 : 1;
	if (!xn && x->frag != y->frag)
		return x->frag < y->frag ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Sorts the keys. In inflate mode pods never leave, so the samples come
 * already ordered by arrived percent and allocation, and only runs of
 * equal allocation (failed and CPU-only arrivals) need ordering by
 * fragmentation: those runs are sorted on their own, short ones by
 * insertion. Anything else is sorted whole.
 */
static void sort_keys(struct keyed *k, size_t n)
{
	size_t i, j, a;

	for (i = 1; i < n; i++)
		if (k[i].pct < k[i - 1].pct ||
		    (k[i].pct == k[i - 1].pct && k[i].alloc < k[i - 1].alloc)) {
			qsort(k, n, sizeof(*k), keyed_cmp);
			return;
		}
	for (a = 0; a < n; a = j) {
		for (j = a + 1; j < n && k[j].pct == k[a].pct && k[j].alloc == k[a].alloc; j++)
			;
		if (j - a > 16) {
			qsort(k + a, j - a, sizeof(*k), keyed_cmp);
			continue;
		}
		for (i = a + 1; i < j; i++) {
			struct keyed x = k[i];
			size_t m;

			for (m = i; m > a && keyed_cmp(&k[m - 1], &x) > 0; m--)
				k[m] = k[m - 1];
			k[m] = x;
		}
	}
}

/* The running sums of one group of samples, in sample_metrics' arithmetic. */
struct sums {
	int64_t n;
	double alloc, unalloc, ratio, amount;
};

static void add(struct sums *s, const struct keyed *k, int64_t cap)
{
	int64_t idle = cap - k->alloc;

	s->n++;
	s->alloc += 100.0 * (double)k->alloc / (double)cap;
	s->unalloc += 100.0 - 100.0 * (double)k->alloc / (double)cap;
	if (!isnan(k->frag)) {
		s->ratio += idle > 0 ? 100.0 * k->frag / (double)idle : 0.0;
		s->amount += 100.0 * k->frag / (double)cap;
	}
}

static void stats_empty(struct gs_arrived_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->at100_gpu_alloc_pct = st->at100_frag_ratio_pct = st->at100_frag_amount_pct = NAN;
}

void gs_arrived_stats_release(struct gs_arrived_stats *st)
{
	free(st->buckets);
	stats_empty(st);
}

int gs_arrived_stats_compute(const struct gs_sample *samples, size_t n, int64_t cap_milli,
			     bool frag, struct gs_arrived_stats *out)
{
	struct keyed *k;
	struct sums at100 = { 0 }, edge = { 0 }, top = { 0 };
	size_t i, j, nb = 0;

	stats_empty(out);
	if (n == 0 || cap_milli <= 0)
		return 0;
	k = malloc(n * sizeof(*k));
	out->buckets = malloc(n * sizeof(*out->buckets));
	if (!k || !out->buckets) {
		free(k);
		gs_arrived_stats_release(out);
		return GS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		k[i].pct = gs_sample_arrived_pct(&samples[i], cap_milli);
		k[i].alloc = samples[i].gpu_alloc_milli;
		k[i].frag = frag ? samples[i].frag_milli : NAN;
		k[i].idx = i;
	}
	sort_keys(k, n);
	for (i = 0; i < n; i = j) {
		struct gs_arrived_bucket *b = &out->buckets[nb++];
		struct sums s = { 0 };

		for (j = i; j < n && k[j].pct == k[i].pct; j++) {
			add(&s, &k[j], cap_milli);
			/* 99, 100 and 101 in one running sum, for the empty-100 case. */
			if (k[j].pct >= 99 && k[j].pct <= 101)
				add(&edge, &k[j], cap_milli);
			if (k[j].pct == 100)
				add(&at100, &k[j], cap_milli);
		}
		top = s;
		b->pct = k[i].pct;
		b->n = s.n;
		b->gpu_alloc_pct_sum = s.alloc;
		b->unalloc_gpu_pct_sum = s.unalloc;
		b->frag_ratio_pct_sum = frag ? s.ratio : NAN;
		b->frag_amount_pct_sum = frag ? s.amount : NAN;
	}
	out->n_buckets = nb;
	free(k);
	if (at100.n == 0)
		at100 = edge;
	/* A run that stops short of 100 % (--inflate below 1) is summed up where it ends. */
	if (at100.n == 0 && nb && out->buckets[nb - 1].pct < 99)
		at100 = top;
	out->at100_n = at100.n;
	if (at100.n) {
		out->at100_gpu_alloc_pct = at100.alloc / (double)at100.n;
		if (frag) {
			out->at100_frag_ratio_pct = at100.ratio / (double)at100.n;
			out->at100_frag_amount_pct = at100.amount / (double)at100.n;
		}
	}
	return 0;
}
