/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena.h - bump allocation in chunks, with marks to give back everything
 * allocated since, and a string pool on top that keeps one copy of each
 * distinct string (label keys, resource names, namespaces repeat across
 * 100,000 pods).
 *
 * Ownership: struct gs_arena and struct gs_strpool are caller-owned
 * (_init/_release); what they hand out lives until _release (or, in an
 * arena, until a reset to an earlier mark).
 */
#ifndef GS_K8S_ARENA_H
#define GS_K8S_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct gs_arena_chunk;

struct gs_arena {
	struct gs_arena_chunk *top;
};

/* A point in an arena's history (gs_arena_reset() returns to it). */
struct gs_arena_mark {
	struct gs_arena_chunk *chunk;
	size_t used;
};

/* An empty arena. */
void gs_arena_init(struct gs_arena *a);
/* Frees every chunk; a is empty again. */
void gs_arena_release(struct gs_arena *a);
/* size bytes aligned to 8, uninitialised; NULL when out of memory. */
void *gs_arena_alloc(struct gs_arena *a, size_t size);
/* n elements of size bytes, zeroed; NULL when out of memory or n * size overflows. */
void *gs_arena_calloc(struct gs_arena *a, size_t n, size_t size);
/* A NUL-terminated copy of len bytes of s; NULL when out of memory. */
char *gs_arena_strndup(struct gs_arena *a, const char *s, size_t len);
/* Where the arena is now. */
struct gs_arena_mark gs_arena_mark(const struct gs_arena *a);
/* Gives back everything allocated since m. */
void gs_arena_reset(struct gs_arena *a, struct gs_arena_mark m);

/* Interned strings: equal strings share one pointer. */
struct gs_strpool {
	struct gs_arena arena;
	const char **slot;       /* open addressing, power-of-two size */
	size_t cap, n;
};

/* An empty pool. */
void gs_strpool_init(struct gs_strpool *p);
/* Frees the pool and every string it handed out. */
void gs_strpool_release(struct gs_strpool *p);
/* The pool's copy of s (NULL stays NULL); NULL when out of memory. */
const char *gs_strpool_get(struct gs_strpool *p, const char *s);

#endif
