/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_inflate.c - the arrival order of inflation mode (gs_inflate_order
 * in sim/engine/inflate.h): a shuffle of the trace followed by clones until the
 * GPU request reaches the target, or random removals while the trace alone
 * is over it; determinism per seed; bad arguments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/error.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "testutil.h"

static void add(struct gs_trace *t, int32_t cpu, int32_t ngpu, int32_t milli)
{
	struct gs_pod p = tu_pod(cpu, 1024, ngpu, milli);
	char name[32];

	snprintf(name, sizeof(name), "p%zu", t->n_pods);
	assert_int_equal(gs_trace_append(t, name, &p), 0);
}

static int64_t request_of(const struct gs_trace *t, const int32_t *idx, size_t n)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += gs_pod_gpu_milli(&t->pods[idx[i]]);
	return sum;
}

/* The first n entries are a permutation of 0..n-1. */
static void assert_permutation(const int32_t *idx, size_t n)
{
	char *seen = calloc(n, 1);
	size_t i;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		assert_in_range(idx[i], 0, n - 1);
		assert_int_equal(seen[idx[i]], 0);
		seen[idx[i]] = 1;
	}
	free(seen);
}

/*
 * Ten pods of one 500-milli share: 5000 milli. Capacity 10 GPUs = 10000
 * milli, factor 1.3: the target is 13000, 8000 more, so exactly 16 clones
 * and 26 arrivals, the total landing on 13000.
 */
static void test_counts(void **st)
{
	struct gs_trace t;
	int32_t *idx;
	size_t n, i;

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 10; i++)
		add(&t, 1000, 1, 500);
	assert_int_equal(gs_inflate_order(&t, 42, 1.3, 10000, &idx, &n), 0);
	assert_int_equal(n, 26);
	assert_permutation(idx, 10);
	for (i = 10; i < n; i++)
		assert_in_range(idx[i], 0, 9);
	assert_int_equal(request_of(&t, idx, n), 13000);
	free(idx);

	/* Factor 0 keeps the trace, shuffled. */
	assert_int_equal(gs_inflate_order(&t, 42, 0, 10000, &idx, &n), 0);
	assert_int_equal(n, 10);
	assert_permutation(idx, 10);
	free(idx);
	gs_trace_release(&t);
}

/*
 * Mixed requests (CPU-only, shares, whole and 8-GPU pods): for many seeds
 * and factors, the total reaches the target and the last clone is the one
 * that makes it: without it the total is below the target.
 */
static void test_bound(void **st)
{
	static const int32_t shape[][2] = {
		{ 0, 0 }, { 1, 100 }, { 1, 250 }, { 1, 810 }, { 1, 1000 }, { 2, 1000 }, { 8, 1000 },
	};
	struct gs_trace t;
	size_t i;
	uint64_t seed;

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 40; i++)
		add(&t, 2000, shape[i % 7][0], shape[i % 7][1]);
	/*
	 * 40 pods: shapes 0-4 six times, shapes 5-6 five times: 6 x 100 +
	 * 6 x 250 + 6 x 810 + 6 x 1000 + 5 x 2000 + 5 x 8000 = 62960 milli.
	 * Capacity 60000: factor 1 trims, 1.3 and 2.5 grow.
	 */
	{
		int32_t all[40];

		for (i = 0; i < 40; i++)
			all[i] = (int32_t)i;
		assert_int_equal(request_of(&t, all, 40), 62960);
	}
	for (seed = 1; seed <= 50; seed++) {
		const double factors[] = { 1.0, 1.3, 2.5 };
		size_t f;

		for (f = 0; f < 3; f++) {
			double target = factors[f] * 60000.0;
			int32_t *idx;
			size_t n;
			int64_t total;

			assert_int_equal(gs_inflate_order(&t, seed, factors[f], 60000, &idx, &n), 0);
			total = request_of(&t, idx, n);
			if (n > 40) {
				assert_permutation(idx, 40);
				assert_true((double)total >= target);
				assert_true((double)(total - gs_pod_gpu_milli(&t.pods[idx[n - 1]])) <
					    target);
			} else {
				/* 62960 > 60000 at factor 1: trimmed to at most the target. */
				assert_true(factors[f] == 1.0);
				assert_true((double)total <= target);
				assert_true(n < 40);
			}
			free(idx);
		}
	}
	gs_trace_release(&t);
}

/* A trace over the target is trimmed to a subset of itself, no pod twice. */
static void test_trim(void **st)
{
	struct gs_trace t;
	int32_t *idx;
	size_t n, i;
	char seen[100] = { 0 };

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 100; i++)
		add(&t, 1000, 1, 1000);
	/* 100 GPUs asked of 50 at factor 1.3: 65 stay. */
	assert_int_equal(gs_inflate_order(&t, 7, 1.3, 50000, &idx, &n), 0);
	assert_int_equal(n, 65);
	for (i = 0; i < n; i++) {
		assert_int_equal(seen[idx[i]], 0);
		seen[idx[i]] = 1;
	}
	free(idx);
	gs_trace_release(&t);
}

/*
 * The trim removes, one draw at a time, the k-th remaining pod of the
 * shuffled trace, k uniform over those remaining: the same order as doing
 * exactly that on an array, written out here with GSL's generator seeded
 * as inflate.c seeds it.
 */
static void test_trim_matches_one_by_one(void **st)
{
	struct gs_trace t;
	uint64_t seed;
	size_t i;

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 1000; i++)
		add(&t, 1000, 1 + (int32_t)(i * 7 % 8), 1000);
	for (seed = 40; seed < 46; seed++) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		int32_t want[1000], *idx;
		size_t len = 1000, n;
		int64_t total = 0;

		assert_non_null(r);
		gsl_rng_set(r, (unsigned long)seed);
		for (i = 0; i < len; i++) {
			want[i] = (int32_t)i;
			total += gs_pod_gpu_milli(&t.pods[i]);
		}
		gsl_ran_shuffle(r, want, len, sizeof(*want));
		/* 4500 GPUs asked; capacity 2000 GPUs at factor 1.3 keeps 2,600,000 milli. */
		while ((double)total > 1.3 * 2000000.0 && len > 0) {
			size_t k = (size_t)gsl_rng_uniform_int(r, (unsigned long)len);

			total -= gs_pod_gpu_milli(&t.pods[want[k]]);
			memmove(want + k, want + k + 1, (len - k - 1) * sizeof(*want));
			len--;
		}
		gsl_rng_free(r);
		assert_int_equal(gs_inflate_order(&t, seed, 1.3, 2000000, &idx, &n), 0);
		assert_true(len < 700);
		assert_int_equal(n, len);
		assert_memory_equal(idx, want, n * sizeof(*idx));
		free(idx);
	}
	gs_trace_release(&t);
}

static void test_determinism(void **st)
{
	struct gs_trace t;
	int32_t *a, *b, *c;
	size_t na, nb, nc, i;

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 200; i++)
		add(&t, 1000, 1, (int32_t)(100 + 50 * (i % 19)));
	assert_int_equal(gs_inflate_order(&t, 42, 1.3, 200000, &a, &na), 0);
	assert_int_equal(gs_inflate_order(&t, 42, 1.3, 200000, &b, &nb), 0);
	assert_int_equal(gs_inflate_order(&t, 43, 1.3, 200000, &c, &nc), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(*a));
	/* Another seed: another shuffle (the chance of the same 200! order is nil). */
	assert_true(memcmp(a, c, 200 * sizeof(*a)) != 0);
	free(a);
	free(b);
	free(c);
	gs_trace_release(&t);
}

/* Clones are drawn uniformly: 4 equal pods, 40000 clones, about 10000 each. */
static void test_uniform_clones(void **st)
{
	struct gs_trace t;
	int32_t *idx;
	size_t n, i;
	int count[4] = { 0 };

	(void)st;
	gs_trace_init(&t);
	for (i = 0; i < 4; i++)
		add(&t, 1000, 1, 100);
	/* 400 milli of trace; target 4000400 milli: 40000 clones of 100. */
	assert_int_equal(gs_inflate_order(&t, 5, 1.0, 4000400, &idx, &n), 0);
	assert_int_equal(n, 40004);
	for (i = 4; i < n; i++)
		count[idx[i]]++;
	/* A binomial(40000, 1/4) has sd 87: 10000 +- 500 is about 6 sd. */
	for (i = 0; i < 4; i++)
		assert_in_range(count[i], 9500, 10500);
	free(idx);
	gs_trace_release(&t);
}

static void test_errors(void **st)
{
	struct gs_trace t;
	int32_t *idx = NULL;
	size_t n = 0;

	(void)st;
	gs_trace_init(&t);
	/* Empty trace. */
	assert_int_equal(gs_inflate_order(&t, 1, 1.3, 1000, &idx, &n), GS_EINVAL);
	/* No GPU request at all can never reach a positive target. */
	add(&t, 1000, 0, 0);
	assert_int_equal(gs_inflate_order(&t, 1, 1.3, 1000, &idx, &n), GS_EINVAL);
	add(&t, 1000, 1, 500);
	assert_int_equal(gs_inflate_order(&t, 1, -1, 1000, &idx, &n), GS_EINVAL);
	assert_int_equal(gs_inflate_order(&t, 1, NAN, 1000, &idx, &n), GS_EINVAL);
	assert_int_equal(gs_inflate_order(&t, 1, 1.3, -5, &idx, &n), GS_EINVAL);
	assert_int_equal(gs_inflate_order(&t, 1, 1.3, 1000, NULL, &n), GS_EINVAL);
	/* Outputs are untouched on failure. */
	assert_null(idx);
	assert_int_equal(n, 0);
	gs_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_trim_matches_one_by_one),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_uniform_clones),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
