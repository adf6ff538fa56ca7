/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ptrmap.h - this process's live allocations: device pointer (or memory
 * handle, array, graph node, context) to size and device, so that a free
 * returns exactly what the allocation reserved, with a few fields the
 * caller gives its own meaning.
 *
 * An open-addressing hash table with linear probing and backward-shift
 * deletion (no tombstones, so a long-running process that allocates and
 * frees forever never degrades). Not thread-safe: the hook holds its lock.
 *
 * Ownership: struct gs_ptrmap is caller-owned (_init/_release) and owns
 * its array.
 */
#ifndef GS_SHARE_PTRMAP_H
#define GS_SHARE_PTRMAP_H

#include <stddef.h>
#include <stdint.h>

struct gs_ptrmap_entry {
	uint64_t key;          /* 0 = empty; the driver never returns 0 */
	uint64_t bytes;
	int32_t dev;           /* the CUDA ordinal the bytes are accounted on (hook_pod.c) */
	int32_t refs;          /* the caller's: e.g. references to a memory handle */
	uint64_t owner;        /* the caller's: e.g. the pool a pointer came from */
	uint64_t aux;          /* the caller's: e.g. mappings of a memory handle */
};

struct gs_ptrmap {
	struct gs_ptrmap_entry *e;
	size_t cap;            /* a power of two, or 0 */
	size_t n;
};

/* Makes *m an empty map that owns nothing yet; frees nothing it held before. */
void gs_ptrmap_init(struct gs_ptrmap *m);
/* Frees the entries *m owns and leaves it empty, ready for use again. */
void gs_ptrmap_release(struct gs_ptrmap *m);

/* Adds or replaces key. Returns 0, GS_EINVAL for key 0, or GS_ENOMEM. */
int gs_ptrmap_put(struct gs_ptrmap *m, uint64_t key, uint64_t bytes, int32_t dev);

/* Adds or replaces the entry e->key with a copy of *e. Same returns as gs_ptrmap_put. */
int gs_ptrmap_put_entry(struct gs_ptrmap *m, const struct gs_ptrmap_entry *e);

/* The entry of key, or NULL; valid until the next put or take. */
struct gs_ptrmap_entry *gs_ptrmap_find(struct gs_ptrmap *m, uint64_t key);

/* Removes key, copying its entry to *out. Returns 0 or GS_ENOENT. */
int gs_ptrmap_take(struct gs_ptrmap *m, uint64_t key, struct gs_ptrmap_entry *out);

#endif
