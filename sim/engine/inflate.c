/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inflate.c - the arrival order of the FGD paper's experiment (Weng et al.,
 * ATC 2023, section 6.1): the trace shuffled with the seed, then grown with
 * clones drawn uniformly with replacement from the original pods until the
 * total GPU request reaches factor x the cluster's GPU capacity.
 *
 * The reference simulator also trims: when the trace alone asks for more
 * than the target (openb multigpu30, by 0.2%, multigpu40 and multigpu50 at
 * 1.3), it removes pods at random until it no longer does. We do the same,
 * so that no trace arrives past the target. Up to that point the arrival sequence is a
 * uniformly random ordering of the trace either way.
 *
 * Randomness comes from GSL's MT19937 seeded with the seed: one stream for
 * the shuffle, then the clone (or removal) draws. Same seed, same order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "engine/inflate.h"

double gs_inflate_expected(const struct gs_trace *t, double factor, int64_t gpu_capacity_milli)
{
	double target = factor * (double)gpu_capacity_milli, total = 0;
	size_t i;

	for (i = 0; i < t->n_pods; i++)
		total += (double)gs_pod_gpu_milli(&t->pods[i]);
	if (!(factor > 0) || total >= target)
		return (double)t->n_pods;
	if (total == 0)
		return INFINITY;
	return (double)t->n_pods + (target - total) / (total / (double)t->n_pods);
}

/*
 * The reference's tune-down: while the pods idx[0..*len) ask for more than
 * target in all, the k-th remaining pod, k uniform over those remaining,
 * goes, and the rest keep their order. Removing from the array one by one
 * costs the trace's length per removal (a quarter of a multigpu50 run);
 * here a Fenwick tree of the positions still there finds the k-th in
 * O(log n), and the array is compacted once at the end. The same draws
 * remove the same pods. Returns 0 or GS_ENOMEM.
 */
static int trim(const struct gs_trace *t, gsl_rng *r, int32_t *idx, size_t *len, int64_t total,
		double target)
{
	size_t n = *len, i, top, left = n, k;
	int32_t *fw = malloc((n + 1) * sizeof(*fw));

	if (!fw)
		return GS_ENOMEM;
	/* fw[i] counts the positions still there in (i - lowbit(i), i], 1-based: all of them. */
	for (i = 1; i <= n; i++)
		fw[i] = (int32_t)(i & -i);
	for (top = 1; top * 2 <= n; top *= 2)
		;
	while ((double)total > target && left > 0) {
		size_t pos = 0, step;

		k = (size_t)gsl_rng_uniform_int(r, (unsigned long)left);
		/* Descend to the last 1-based position with at most k remaining before it. */
		for (step = top; step > 0; step /= 2) {
			if (pos + step <= n && (size_t)fw[pos + step] <= k) {
				pos += step;
				k -= (size_t)fw[pos];
			}
		}
		/* pos is 0-based now: the k-th remaining. */
		total -= gs_pod_gpu_milli(&t->pods[idx[pos]]);
		idx[pos] = -1;
		for (i = pos + 1; i <= n; i += i & -i)
			fw[i]--;
		left--;
	}
	free(fw);
	for (i = 0, k = 0; i < n; i++)
		if (idx[i] >= 0)
			idx[k++] = idx[i];
	*len = k;
	return 0;
}

/*
 * The units of a trace with pod groups: a group is one unit (its pods in
 * trace order), a pod outside any group another. unit_pods lists the
 * pods unit by unit; unit u is unit_pods[start[u] .. start[u + 1]).
 */
struct units {
	int32_t *start, *pods;
	int64_t *milli;
	size_t n;
};

static void units_release(struct units *u)
{
	free(u->start);
	free(u->pods);
	free(u->milli);
}

static int units_make(const struct gs_trace *t, struct units *u)
{
	int32_t *unit_of_group = calloc((size_t)t->n_groups + 1, sizeof(*unit_of_group));
	int32_t *count = NULL, *fill = NULL;
	size_t i, n = 0;
	int rc = GS_ENOMEM;

	memset(u, 0, sizeof(*u));
	/* Units numbered by their first pod; a group's number is kept +1 in unit_of_group. */
	count = calloc(t->n_pods + 1, sizeof(*count));
	u->start = malloc((t->n_pods + 2) * sizeof(*u->start));
	u->pods = malloc((t->n_pods + 1) * sizeof(*u->pods));
	u->milli = calloc(t->n_pods + 1, sizeof(*u->milli));
	fill = malloc((t->n_pods + 1) * sizeof(*fill));
	if (!unit_of_group || !count || !u->start || !u->pods || !u->milli || !fill)
		goto out;
	for (i = 0; i < t->n_pods; i++) {
		int32_t g = t->pod_group[i], k;

		if (g && unit_of_group[g]) {
			k = unit_of_group[g] - 1;
		} else {
			k = (int32_t)n++;
			if (g)
				unit_of_group[g] = k + 1;
		}
		fill[i] = k;
		count[k]++;
		u->milli[k] += gs_pod_gpu_milli(&t->pods[i]);
	}
	u->start[0] = 0;
	for (i = 0; i < n; i++)
		u->start[i + 1] = u->start[i] + count[i];
	memset(count, 0, (n + 1) * sizeof(*count));
	for (i = 0; i < t->n_pods; i++)
		u->pods[u->start[fill[i]] + count[fill[i]]++] = (int32_t)i;
	u->n = n;
	rc = 0;
out:
	GS_MEM_FREE(unit_of_group, count, fill);
	if (rc)
		units_release(u);
	return rc;
}

/*
 * The inflation of a trace with pod groups: the same procedure on units
 * (a group, or a pod alone), so that the pods of a group, or of a clone
 * of it, arrive one after the other and can be placed together.
 */
static int inflate_units(const struct gs_trace *t, uint64_t seed, double factor,
			 int64_t gpu_capacity_milli, int32_t **idx_out, size_t *n_out)
{
	double target = factor * (double)gpu_capacity_milli;
	struct units u;
	int32_t *order = NULL, *idx = NULL;
	size_t len, cap, i, k, n_pods = 0;
	int64_t total = 0;
	gsl_rng *r = NULL;
	int rc = units_make(t, &u);

	if (rc)
		return rc;
	for (i = 0; i < u.n; i++)
		total += u.milli[i];
	if (total == 0 && target > 0) {
		rc = GS_EINVAL;
		goto out;
	}
	cap = u.n + 16;
	order = malloc(cap * sizeof(*order));
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!order || !r) {
		rc = GS_ENOMEM;
		goto out;
	}
	gsl_rng_set(r, (unsigned long)(seed ^ (sizeof(unsigned long) < 8 ? seed >> 32 : 0)));
	for (i = 0; i < u.n; i++)
		order[i] = (int32_t)i;
	gsl_ran_shuffle(r, order, u.n, sizeof(*order));
	len = u.n;
	for (i = 0; i < len; i++)
		n_pods += (size_t)(u.start[order[i] + 1] - u.start[order[i]]);
	if (factor > 0 && (double)total < target) {
		while ((double)total < target) {
			int32_t j = (int32_t)gsl_rng_uniform_int(r, (unsigned long)u.n);
			int32_t *grown;

			n_pods += (size_t)(u.start[j + 1] - u.start[j]);
			if (n_pods > GS_INFLATE_MAX_PODS) {
				rc = GS_ERANGE;
				goto out;
			}
			grown = gs_grow(order, &cap, len, sizeof(*order), u.n);
			if (!grown) {
				rc = GS_ENOMEM;
				goto out;
			}
			order = grown;
			order[len++] = j;
			total += u.milli[j];
		}
	} else if (factor > 0) {
		while ((double)total > target && len > 0) {
			size_t at = (size_t)gsl_rng_uniform_int(r, (unsigned long)len);

			total -= u.milli[order[at]];
			n_pods -= (size_t)(u.start[order[at] + 1] - u.start[order[at]]);
			memmove(order + at, order + at + 1, (len - at - 1) * sizeof(*order));
			len--;
		}
	}
	idx = malloc((n_pods ? n_pods : 1) * sizeof(*idx));
	if (!idx) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (i = 0, k = 0; i < len; i++) {
		int32_t p;

		for (p = u.start[order[i]]; p < u.start[order[i] + 1]; p++)
			idx[k++] = u.pods[p];
	}
	*idx_out = idx;
	*n_out = k;
	idx = NULL;
out:
	if (r)
		gsl_rng_free(r);
	free(order);
	free(idx);
	units_release(&u);
	return rc;
}

int gs_inflate_order(const struct gs_trace *t, uint64_t seed, double factor,
		     int64_t gpu_capacity_milli, int32_t **idx_out, size_t *n_out)
{
	gsl_rng *r;
	int32_t *idx;
	size_t n, len, cap, i;
	double target;
	int64_t total = 0;

	if (!t || !idx_out || !n_out || t->n_pods == 0 || t->n_pods > INT32_MAX ||
	    !isfinite(factor) || factor < 0 || gpu_capacity_milli < 0)
		return GS_EINVAL;
	n = t->n_pods;
	target = factor * (double)gpu_capacity_milli;
	for (i = 0; i < n; i++)
		total += gs_pod_gpu_milli(&t->pods[i]);
	/* Clones of a trace without GPU requests would never reach a positive target. */
	if (total == 0 && target > 0)
		return GS_EINVAL;

	/* Checked as a double: a huge factor must not overflow the conversion. */
	if (!(gs_inflate_expected(t, factor, gpu_capacity_milli) <= GS_INFLATE_MAX_PODS))
		return GS_ERANGE;
	if (t->pod_group && t->n_groups > 0)
		return inflate_units(t, seed, factor, gpu_capacity_milli, idx_out, n_out);
	cap = n;
	if (factor > 0 && (double)total < target)
		cap = n + (size_t)((target - (double)total) / ((double)total / (double)n)) + 16;
	idx = malloc(cap * sizeof(*idx));
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!idx || !r) {
		free(idx);
		if (r)
			gsl_rng_free(r);
		return GS_ENOMEM;
	}
	/* GSL takes an unsigned long seed; fold the high half in on 32-bit hosts. */
	gsl_rng_set(r, (unsigned long)(seed ^ (sizeof(unsigned long) < 8 ? seed >> 32 : 0)));
	for (i = 0; i < n; i++)
		idx[i] = (int32_t)i;
	gsl_ran_shuffle(r, idx, n, sizeof(*idx));
	len = n;

	/*
	 * Grow: the last clone is the one that makes the total reach the
	 * target. Or trim, as the reference's tune-down does: remove random
	 * pods while the trace alone is over the target. A factor of 0 keeps
	 * the trace as it is, shuffled.
	 */
	if (factor > 0 && (double)total < target) {
		while ((double)total < target) {
			int32_t j = (int32_t)gsl_rng_uniform_int(r, (unsigned long)n);

			/* The draws can run past the mean: the limit holds for every seed. */
			if (len == GS_INFLATE_MAX_PODS) {
				free(idx);
				gsl_rng_free(r);
				return GS_ERANGE;
			}
			int32_t *grown = gs_grow(idx, &cap, len, sizeof(*idx), n);

			if (!grown) {
				free(idx);
				gsl_rng_free(r);
				return GS_ENOMEM;
			}
			idx = grown;
			idx[len++] = j;
			total += gs_pod_gpu_milli(&t->pods[j]);
		}
	} else if (factor > 0 && (double)total > target) {
		int rc = trim(t, r, idx, &len, total, target);

		if (rc) {
			free(idx);
			gsl_rng_free(r);
			return rc;
		}
	}
	gsl_rng_free(r);
	*idx_out = idx;
	*n_out = len;
	return 0;
}
