/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.c - SHA-256 as specified in FIPS 180-4, section 6.2.
 *
 * Written from the standard; checked in tests/test_trace.c against the
 * standard's examples and against sha256sum on real files. Speed is not a
 * concern here (inputs are a few MiB), clarity is.
 */
#include "io/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of
 * the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* One application of the compression function to a 64-byte block (6.2.2). */
static void compress(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	uint32_t a, b, c, d, e, f, g, hh;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
	for (t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	hh = h[7];
	for (t = 0; t < 64; t++) {
		uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K[t] + w[t];
		uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;

		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

void gs_sha256_init(struct gs_sha256 *s)
{
	/* Section 5.3.3: square roots of the first 8 primes. */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->n_bytes = 0;
	s->n_block = 0;
}

void gs_sha256_update(struct gs_sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->n_bytes += len;
	if (s->n_block > 0) {
		size_t take = 64 - s->n_block;

		if (take > len)
			take = len;
		memcpy(s->block + s->n_block, p, take);
		s->n_block += take;
		p += take;
		len -= take;
		if (s->n_block < 64)
			return;
		compress(s->h, s->block);
		s->n_block = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(s->h, p);
	memcpy(s->block, p, len);
	s->n_block = len;
}

void gs_sha256_final(struct gs_sha256 *s, uint8_t digest_out[GS_SHA256_BYTES])
{
	/* Section 5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the length in bits. */
	uint64_t n_bits = s->n_bytes * 8;
	int i;

	s->block[s->n_block++] = 0x80;
	if (s->n_block > 56) {
		memset(s->block + s->n_block, 0, 64 - s->n_block);
		compress(s->h, s->block);
		s->n_block = 0;
	}
	memset(s->block + s->n_block, 0, 56 - s->n_block);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t)(n_bits >> (56 - 8 * i));
	compress(s->h, s->block);
	for (i = 0; i < 8; i++) {
		digest_out[4 * i] = (uint8_t)(s->h[i] >> 24);
		digest_out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		digest_out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		digest_out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

static void to_hex(const uint8_t d[GS_SHA256_BYTES], char hex_out[65])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < GS_SHA256_BYTES; i++) {
		hex_out[2 * i] = digits[d[i] >> 4];
		hex_out[2 * i + 1] = digits[d[i] & 15];
	}
	hex_out[64] = '\0';
}

void gs_sha256_hex(const void *data, size_t len, char hex_out[65])
{
	struct gs_sha256 s;
	uint8_t d[GS_SHA256_BYTES];

	gs_sha256_init(&s);
	gs_sha256_update(&s, data, len);
	gs_sha256_final(&s, d);
	to_hex(d, hex_out);
}

int gs_sha256_file(const char *path, char hex_out[GS_SHA256_HEX])
{
	struct gs_sha256 s;
	uint8_t d[GS_SHA256_BYTES];
	uint8_t buf[65536];
	FILE *f;
	size_t n;
	int bad;

	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? GS_ENOENT : GS_EIO;
	gs_sha256_init(&s);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		gs_sha256_update(&s, buf, n);
	bad = ferror(f);
	fclose(f);
	if (bad)
		return GS_EIO;
	gs_sha256_final(&s, d);
	to_hex(d, hex_out);
	return 0;
}
