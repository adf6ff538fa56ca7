/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rng.h - a small seeded random number generator for the allocator layer.
 *
 * The simulator draws its distributions from GSL, but the allocator and the
 * policies must build with nothing beyond libc (the CUDA harness links them
 * on hosts without GSL). They use this generator instead: xoshiro256**
 * (Blackman and Vigna, "Scrambled linear pseudorandom number generators",
 * 2018), seeded through splitmix64. Same seed, same stream, on every
 * platform.
 */
#ifndef GS_RNG_H
#define GS_RNG_H

#include <stdint.h>

struct gs_rng {
	uint64_t s[4];
};

/* Seeds r from seed (any value, 0 included); the same seed gives the same stream. */
void gs_rng_seed(struct gs_rng *r, uint64_t seed);
/*
 * The next 64 uniformly distributed bits of r's stream. Inline: the random
 * policy draws one per feasible node.
 */
static inline uint64_t gs_rng_next(struct gs_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}
/*
 * splitmix64's finaliser: a bijection of the 64 bits in which every input
 * bit flips about half the output bits, so that nearby keys (pointers,
 * small integers, a hash's weak low bits) spread over a table indexed by
 * low bits. Inline: hash tables call it per lookup.
 */
static inline uint64_t gs_rng_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}
/* Uniform integer in [0, n), without modulo bias. n must be > 0. */
uint64_t gs_rng_below(struct gs_rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double gs_rng_uniform(struct gs_rng *r);
/* Fisher-Yates shuffle of an int32 array. */
void gs_rng_shuffle_i32(struct gs_rng *r, int32_t *a, int32_t n);

#endif
