/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c - the time-mode figures of a run from its events (see
 * metrics.h): the end-of-run percentiles and averages, and the offered
 * load of a set of arrivals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "engine/metrics.h"

void gs_metrics_init(struct gs_metrics *m, int64_t cap_milli, bool frag_on)
{
	memset(m, 0, sizeof(*m));
	m->cap_milli = cap_milli;
	m->frag_on = frag_on;
	m->t_first_arrival = m->t_last_arrival = m->t_last = -1;
}

double gs_percentile_sorted(const double *v, size_t n, double p)
{
	double rank;
	size_t r;

	if (n == 0)
		return NAN;
	/* ceil(p * n / 100), exact for the integer p of the figures. */
	rank = ceil(p * (double)n / 100.0);
	r = rank < 1 ? 1 : (size_t)rank;
	if (r > n)
		r = n;
	return v[r - 1];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A double's bits as an unsigned key in the doubles' order (negatives flipped). */
static uint64_t sort_key(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | (1ull << 63);
}

#define SORT_DIGIT_BITS 8
#define SORT_RADIX (1 << SORT_DIGIT_BITS)
#define SORT_PASSES (64 / SORT_DIGIT_BITS)

/*
 * Sorts v[0..n) ascending: a least-significant-digit radix sort of the
 * keys, a byte per pass, skipping the bytes all keys share (the high ones
 * of a run's waits). The values here are finite and never -0 (they come
 * from integers), so the sorted array is the one qsort() gives, bit for
 * bit, at a fraction of its cost: qsort's comparisons through a pointer
 * took 8% of a 1,000,000-pod run (callgrind). Falls back to qsort()
 * without memory for the second buffer.
 */
static void sort_doubles(double *v, size_t n)
{
	size_t (*count)[SORT_RADIX] = calloc(SORT_PASSES, sizeof(*count));
	double *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *src = v, *dst = tmp, *swap;
	size_t i;
	int pass, d;

	if (!count || !tmp) {
		free(count);
		free(tmp);
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t k = sort_key(v[i]);

		for (pass = 0; pass < SORT_PASSES; pass++)
			count[pass][(k >> (pass * SORT_DIGIT_BITS)) & (SORT_RADIX - 1)]++;
	}
	for (pass = 0; pass < SORT_PASSES; pass++) {
		size_t *c = count[pass], at = 0;
		int shift = pass * SORT_DIGIT_BITS;

		if (n == 0 || c[(sort_key(v[0]) >> shift) & (SORT_RADIX - 1)] == n)
			continue; /* every key has this byte */
		for (d = 0; d < SORT_RADIX; d++) {
			size_t k = c[d];

			c[d] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			dst[c[(sort_key(src[i]) >> shift) & (SORT_RADIX - 1)]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(count);
	free(tmp);
}

/* Mean, p50, p90, p99 and max of v[0..n), which it sorts. All NAN for n == 0. */
static void describe(double *v, size_t n, double *mean, double *p50, double *p90, double *p99,
		     double *max)
{
	double sum = 0;
	size_t i;

	*mean = *p50 = *p90 = *p99 = *max = NAN;
	if (n == 0)
		return;
	sort_doubles(v, n);
	for (i = 0; i < n; i++)
		sum += v[i];
	*mean = sum / (double)n;
	*p50 = gs_percentile_sorted(v, n, 50);
	*p90 = gs_percentile_sorted(v, n, 90);
	*p99 = gs_percentile_sorted(v, n, 99);
	*max = v[n - 1];
}

void gs_time_metrics_clear(struct gs_time_metrics *out, double offered_load_pct)
{
	memset(out, 0, sizeof(*out));
	out->valid = false;
	out->t_first_arrival_s = out->t_last_arrival_s = out->t_end_s = -1;
	out->makespan_s = out->busy_s = -1;
	out->wait_mean_s = out->wait_p50_s = out->wait_p90_s = out->wait_p99_s = NAN;
	out->wait_max_s = NAN;
	out->completion_mean_s = out->completion_p50_s = out->completion_p90_s = NAN;
	out->completion_p99_s = out->completion_max_s = NAN;
	out->slowdown_mean = out->slowdown_p99 = NAN;
	out->pending_avg = out->gpu_alloc_arrival_pct = out->gpu_alloc_busy_pct = NAN;
	out->gpu_alloc_peak_pct = out->frag_avg_pct = NAN;
	out->idle_frac_pct = out->idle_nocpu_pct = out->idle_stranded_pct = NAN;
	out->offered_load_pct = offered_load_pct;
}

int gs_metrics_finish(const struct gs_metrics *m, size_t n,
		      void (*pod)(const void *arg, size_t i, struct gs_metrics_pod *out),
		      const void *arg, double offered_load_pct, struct gs_time_metrics *out)
{
	double *wait = NULL, *compl = NULL, *slow = NULL, unused;
	double cap = (double)m->cap_milli, window;
	size_t i, n_wait = 0, n_compl = 0;
	int64_t peak_alloc = m->peak_alloc_milli, peak_pending = m->peak_pending;

	gs_time_metrics_clear(out, offered_load_pct);
	if (m->t_first_arrival < 0)
		return 0;
	wait = malloc((n ? n : 1) * sizeof(*wait));
	compl = malloc((n ? n : 1) * sizeof(*compl));
	slow = malloc((n ? n : 1) * sizeof(*slow));
	if (!wait || !compl || !slow) {
		free(wait);
		free(compl);
		free(slow);
		return GS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct gs_metrics_pod p;

		pod(arg, i, &p);
		if (p.arrive_s < 0)
			continue;
		if (p.start_s >= 0)
			wait[n_wait++] = (double)(p.start_s - p.arrive_s);
		if (p.departed && p.end_s >= 0) {
			int64_t c = p.end_s - p.arrive_s;
			int64_t d = p.duration_s > GS_SLOWDOWN_MIN_S ? p.duration_s : GS_SLOWDOWN_MIN_S;

			compl[n_compl] = (double)c;
			slow[n_compl++] = (double)c / (double)d;
		}
	}

	out->valid = true;
	out->t_first_arrival_s = m->t_first_arrival;
	out->t_last_arrival_s = m->t_last_arrival;
	out->t_end_s = m->t_last;
	out->makespan_s = m->t_last - m->t_first_arrival;
	out->busy_s = m->busy_s;
	out->n_waits = (int64_t)n_wait;
	describe(wait, n_wait, &out->wait_mean_s, &out->wait_p50_s, &out->wait_p90_s,
		 &out->wait_p99_s, &out->wait_max_s);
	out->n_completed = (int64_t)n_compl;
	describe(compl, n_compl, &out->completion_mean_s, &out->completion_p50_s,
		 &out->completion_p90_s, &out->completion_p99_s, &out->completion_max_s);
	describe(slow, n_compl, &out->slowdown_mean, &unused, &unused, &out->slowdown_p99,
		 &unused);
	free(wait);
	free(compl);
	free(slow);

	/* The final state holds from the end on. */
	if (m->gpu_alloc_milli > peak_alloc)
		peak_alloc = m->gpu_alloc_milli;
	if (m->pending > peak_pending)
		peak_pending = m->pending;
	out->pending_peak = peak_pending;
	out->n_timed_out = m->timed_out;
	if (out->makespan_s > 0)
		out->pending_avg = m->pending_pod_s / (double)out->makespan_s;
	else
		out->pending_avg = (double)m->pending;
	if (cap > 0) {
		out->gpu_alloc_peak_pct = 100.0 * (double)peak_alloc / cap;
		window = (double)(m->t_last_arrival - m->t_first_arrival);
		if (window > 0) {
			out->gpu_alloc_arrival_pct = 100.0 * m->arr_alloc_milli_s / window / cap;
			if (m->frag_on)
				out->frag_avg_pct = 100.0 * m->arr_frag_milli_s / window / cap;
			out->idle_frac_pct = 100.0 * m->arr_idle_milli_s[0] / window / cap;
			out->idle_nocpu_pct = 100.0 * m->arr_idle_milli_s[1] / window / cap;
			out->idle_stranded_pct = 100.0 * m->arr_idle_milli_s[2] / window / cap;
		}
		if (m->busy_s > 0)
			out->gpu_alloc_busy_pct = 100.0 * m->alloc_milli_s /
						  (double)m->busy_s / cap;
	}
	return 0;
}

double gs_offered_load_pct(const struct gs_pod *pods, const int64_t *arrive, size_t n,
			   int64_t cap_milli)
{
	int64_t lo, hi, w;
	double demand = 0;
	size_t i;

	if (n == 0 || cap_milli <= 0)
		return NAN;
	lo = hi = arrive[0];
	for (i = 1; i < n; i++) {
		if (arrive[i] < lo)
			lo = arrive[i];
		if (arrive[i] > hi)
			hi = arrive[i];
	}
	w = hi - lo;
	if (w <= 0)
		return NAN;
	for (i = 0; i < n; i++) {
		int64_t d = gs_pod_duration_s(&pods[i]);

		if (d < 0 || d > w)
			d = w;
		demand += (double)gs_pod_gpu_milli(&pods[i]) * (double)d;
	}
	return 100.0 * demand / ((double)cap_milli * (double)w);
}
