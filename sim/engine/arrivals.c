/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arrivals.c - arrival times: scaled creation times and a steady offered
 * load (see arrivals.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "core/mem.h"
#include "core/rng.h"
#include "engine/arrivals.h"
#include "engine/metrics.h"

/* A fixed offset so the arrival stream differs from the policies' stream of the same seed. */
#define LOAD_STREAM 0x6c6f61642d617272ULL

const char *gs_arrivals_str(enum gs_arrivals a)
{
	return a == GS_ARRIVALS_TRACE ? "trace" : "poisson";
}

struct item {
	double d, g;
};

static int cmp_item(const void *a, const void *b)
{
	double x = ((const struct item *)a)->d, y = ((const struct item *)b)->d;

	return (x > y) - (x < y);
}

bool gs_arrivals_scaled(double time_scale, const struct gs_pod *p, int64_t *t_out)
{
	double t;

	if (p->t_create_s < 0) {
		*t_out = 0;
		return true;
	}
	if (time_scale == 1.0) {
		*t_out = p->t_create_s;
		return p->t_create_s <= GS_TIME_MAX_S;
	}
	/* Compared as a double first: converting one beyond int64 is undefined. */
	t = floor((double)p->t_create_s / time_scale);
	if (!(t <= (double)GS_TIME_MAX_S))
		return false;
	*t_out = (int64_t)t;
	return true;
}

int gs_arrivals_window(const struct gs_pod *pods, size_t n, int64_t cap_milli, double load_pct,
		       double *window_out, char *err, size_t err_len)
{
	struct item *it;
	double target, never = 0, all = 0, prefix_gd = 0, suffix_g = 0;
	size_t i, m = 0, k;

	if (!(load_pct > 0) || !isfinite(load_pct) || cap_milli <= 0) {
		gs_errf(err, err_len, "load must be a positive percentage of a cluster with GPUs");
		return GS_EINVAL;
	}
	it = malloc((n ? n : 1) * sizeof(*it));
	if (!it)
		return GS_ENOMEM;
	for (i = 0; i < n; i++) {
		double g = (double)gs_pod_gpu_milli(&pods[i]);
		int64_t d = gs_pod_duration_s(&pods[i]);

		if (g <= 0)
			continue;
		if (d < 0) {
			never += g;
		} else {
			it[m].d = (double)d;
			it[m++].g = g;
			suffix_g += g;
		}
		if (d != 0)
			all += g;
	}
	target = load_pct / 100.0 * (double)cap_milli;
	if (target <= never) {
		free(it);
		gs_errf(err, err_len, "the pods that never leave already offer %.2f%% of the GPU "
			"capacity; the load must be above that", 100.0 * never / (double)cap_milli);
		return GS_EINVAL;
	}
	qsort(it, m, sizeof(*it), cmp_item);
	/*
	 * Segment k is the windows W in (d[k-1], d[k]] (d[-1] = 0, d[m] = inf):
	 * there sum_i g_i min(d_i, W) = prefix_gd + (never + suffix_g) * W,
	 * prefix over the pods before k, suffix over k and after.
	 */
	for (k = 0; k <= m; k++) {
		double lo = k ? it[k - 1].d : 0, hi = k < m ? it[k].d : INFINITY;
		double b = never + suffix_g, w;

		if (hi > lo && target > b) {
			w = prefix_gd / (target - b);
			if (w > 0 && w >= lo && w <= hi) {
				free(it);
				/* Arrivals are seconds: the window must stay in the legal range. */
				if (!(w <= (double)GS_TIME_MAX_S)) {
					gs_errf(err, err_len, "the pods offer %g%% of the GPU "
						"capacity only when their arrivals are spread over "
						"%g s, past the last simulated second %lld; ask for "
						"a higher load", load_pct, w,
						(long long)GS_TIME_MAX_S);
					return GS_ERANGE;
				}
				*window_out = w;
				return 0;
			}
		}
		if (k < m) {
			prefix_gd += it[k].g * it[k].d;
			suffix_g -= it[k].g;
		}
	}
	free(it);
	gs_errf(err, err_len, "the pods offer at most %.2f%% of the GPU capacity (every pod's "
		"request at once); the load must not be above that",
		100.0 * all / (double)cap_milli);
	return GS_EINVAL;
}

struct order {
	size_t copy;
	int64_t t;
	size_t i;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->copy != y->copy)
		return (x->copy > y->copy) - (x->copy < y->copy);
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->i > y->i) - (x->i < y->i);
}

int gs_arrivals_generate(const struct gs_pod *pods, size_t n, size_t period, int64_t cap_milli,
			 double load_pct, enum gs_arrivals shape, uint64_t seed, int64_t *arrive,
			 char *err, size_t err_len)
{
	struct order *ord;
	double *u, w, span;
	size_t j;
	int rc;

	if (period == 0 || n % period) {
		gs_errf(err, err_len, "the pods are not whole copies of the trace");
		return GS_EINVAL;
	}
	if (n < 2) {
		gs_errf(err, err_len, "a load needs at least two pods to space out");
		return GS_EINVAL;
	}
	rc = gs_arrivals_window(pods, n, cap_milli, load_pct, &w, err, err_len);
	if (rc)
		return rc;
	ord = malloc(n * sizeof(*ord));
	u = malloc(n * sizeof(*u));
	if (!ord || !u) {
		GS_MEM_FREE(ord, u);
		return GS_ENOMEM;
	}
	for (j = 0; j < n; j++) {
		ord[j].copy = j / period;
		ord[j].t = pods[j].t_create_s < 0 ? 0 : pods[j].t_create_s;
		ord[j].i = j;
	}
	qsort(ord, n, sizeof(*ord), cmp_order);
	/* u[j]: where the j-th arrival falls in the window, from 0 to 1. */
	u[0] = 0;
	if (shape == GS_ARRIVALS_TRACE) {
		/* One copy spans [0, span]; the next starts a mean gap later. */
		double gap, end;

		span = (double)(ord[period - 1].t - ord[0].t);
		if (span <= 0 || period < 2) {
			free(ord);
			free(u);
			gs_errf(err, err_len, "all pods arrive at the same time: the trace has no gaps "
				"to scale (use Poisson arrivals)");
			return GS_EINVAL;
		}
		gap = span / (double)(period - 1);
		end = (double)(n / period - 1) * (span + gap) + span;
		for (j = 1; j < n; j++)
			u[j] = ((double)ord[j].copy * (span + gap) + (double)(ord[j].t - ord[0].t)) /
			       end;
	} else {
		struct gs_rng r;

		gs_rng_seed(&r, seed ^ LOAD_STREAM);
		for (j = 1; j < n; j++)
			u[j] = u[j - 1] - log1p(-gs_rng_uniform(&r));
		span = u[n - 1];
		for (j = 1; j < n; j++)
			u[j] /= span;
	}
	for (j = 0; j < n; j++)
		arrive[ord[j].i] = (int64_t)llround(u[j] * w);
	free(ord);
	free(u);
	return 0;
}

int gs_arrivals_check(const struct gs_pod *pods, size_t n, int64_t repeat, int64_t cap_milli,
		      double load_pct, enum gs_arrivals shape, char *err, size_t err_len)
{
	size_t k = (size_t)(repeat > 0 ? repeat : 1), total, i;
	struct gs_pod *all;
	int64_t *at;
	int rc;

	/* What the run would hold, before anything of that size is allocated. */
	if (n > GS_ARRIVALS_MAX_PODS / k) {
		gs_errf(err, err_len, "%zu pods repeated %zu times make %.4g pods, more than the "
			"%lld a run may have (lower --repeat)", n, k, (double)n * (double)k,
			(long long)GS_ARRIVALS_MAX_PODS);
		return GS_ERANGE;
	}
	total = n * k;
	all = malloc((total ? total : 1) * sizeof(*all));
	at = malloc((total ? total : 1) * sizeof(*at));
	if (!all || !at) {
		free(all);
		free(at);
		gs_errf(err, err_len, "out of memory for the %zu arrivals of the load", total);
		return GS_ENOMEM;
	}
	for (i = 0; i < total; i++)
		all[i] = pods[i % n];
	rc = gs_arrivals_generate(all, total, n ? n : 1, cap_milli, load_pct, shape, 0, at, err,
				  err_len);
	free(all);
	free(at);
	return rc;
}
