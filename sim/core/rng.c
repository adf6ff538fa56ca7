/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rng.c - xoshiro256** seeded through splitmix64 (see rng.h).
 */
#include "core/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	return gs_rng_mix(*x += 0x9e3779b97f4a7c15ull);
}

void gs_rng_seed(struct gs_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* gs_rng_next() is inline, in rng.h. */

uint64_t gs_rng_below(struct gs_rng *r, uint64_t n)
{
	/* Reject the top partial block so every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = gs_rng_next(r);
	while (x >= limit);
	return x % n;
}

double gs_rng_uniform(struct gs_rng *r)
{
	/* The top 53 bits fill a double's mantissa exactly. */
	return (double)(gs_rng_next(r) >> 11) * 0x1.0p-53;
}

void gs_rng_shuffle_i32(struct gs_rng *r, int32_t *a, int32_t n)
{
	int32_t i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = (int32_t)gs_rng_below(r, (uint64_t)i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}
