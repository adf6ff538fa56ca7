/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.c - SHA-256 (FIPS 180-4) through Nettle (Debian's nettle-dev),
 * whose x86-64 code uses the CPU's SHA instructions where it has them:
 * five times gpusim's own portable implementation on a 200 MiB buffer,
 * which a 100 MB Kubernetes snapshot or a 10^7-pod trace is hashed as.
 * Checked in tests/test_trace.c against the standard's examples and
 * against sha256sum on real files.
 */
#include "io/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

void gs_sha256_init(struct gs_sha256 *s)
{
	sha256_init(&s->ctx);
}

void gs_sha256_update(struct gs_sha256 *s, const void *data, size_t len)
{
	sha256_update(&s->ctx, len, data);
}

void gs_sha256_final(struct gs_sha256 *s, uint8_t digest_out[GS_SHA256_BYTES])
{
	sha256_digest(&s->ctx, GS_SHA256_BYTES, digest_out);
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
