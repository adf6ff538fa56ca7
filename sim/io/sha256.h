/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.h - SHA-256 (FIPS 180-4) for checksumming input files.
 *
 * Every run records the checksums of the cluster and trace it read, so a
 * result can be traced back to the exact bytes. The readers hash the buffer
 * they already hold; gs_sha256_file() hashes a file
 * from disk. Incremental use: _init, any number of _update, then _final.
 */
#ifndef GS_SHA256_H
#define GS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

#define GS_SHA256_HEX 65  /* 64 hex digits and a NUL */

#define GS_SHA256_BYTES 32

struct gs_sha256 {
	struct sha256_ctx ctx; /* Nettle's */
};

/* Starts a new digest in s. */
void gs_sha256_init(struct gs_sha256 *s);
/* Adds len bytes of data to the digest. */
void gs_sha256_update(struct gs_sha256 *s, const void *data, size_t len);
/* Finishes the digest; s must be re-initialised before reuse. */
void gs_sha256_final(struct gs_sha256 *s, uint8_t digest_out[GS_SHA256_BYTES]);

/* Digest of a buffer as 64 lower-case hex digits and a NUL. */
void gs_sha256_hex(const void *data, size_t len, char hex_out[65]);

/* SHA-256 of a file's bytes as lower-case hex. Returns 0 or GS_ENOENT/GS_EIO. */
int gs_sha256_file(const char *path, char hex_out[GS_SHA256_HEX]);

#endif
