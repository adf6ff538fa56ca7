/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena.c - chunked bump allocation and the string pool (arena.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "io/k8s/arena.h"

#define CHUNK_BYTES ((size_t)64 * 1024)

struct gs_arena_chunk {
	struct gs_arena_chunk *prev;
	size_t cap, used;
	/* 8-byte aligned data follows. */
	uint64_t data[];
};

void gs_arena_init(struct gs_arena *a)
{
	a->top = NULL;
}

void gs_arena_release(struct gs_arena *a)
{
	gs_arena_reset(a, (struct gs_arena_mark){ NULL, 0 });
}

void *gs_arena_alloc(struct gs_arena *a, size_t size)
{
	struct gs_arena_chunk *c = a->top;
	void *p;

	if (size > SIZE_MAX - 8 - sizeof(*c))
		return NULL;
	size = (size + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > CHUNK_BYTES ? size : CHUNK_BYTES;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->prev = a->top;
		c->cap = cap;
		c->used = 0;
		a->top = c;
	}
	p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

void *gs_arena_calloc(struct gs_arena *a, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = gs_arena_alloc(a, n * size > 0 ? n * size : 1);
	if (p)
		memset(p, 0, n * size);
	return p;
}

char *gs_arena_strndup(struct gs_arena *a, const char *s, size_t len)
{
	char *p = len < SIZE_MAX ? gs_arena_alloc(a, len + 1) : NULL;

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

struct gs_arena_mark gs_arena_mark(const struct gs_arena *a)
{
	struct gs_arena_mark m = { a->top, a->top ? a->top->used : 0 };

	return m;
}

void gs_arena_reset(struct gs_arena *a, struct gs_arena_mark m)
{
	while (a->top && a->top != m.chunk) {
		struct gs_arena_chunk *prev = a->top->prev;

		free(a->top);
		a->top = prev;
	}
	if (a->top)
		a->top->used = m.used;
}

/* --- string pool ------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void gs_strpool_init(struct gs_strpool *p)
{
	memset(p, 0, sizeof(*p));
	gs_arena_init(&p->arena);
}

void gs_strpool_release(struct gs_strpool *p)
{
	free(p->slot);
	gs_arena_release(&p->arena);
	memset(p, 0, sizeof(*p));
}

static int rehash(struct gs_strpool *p)
{
	size_t cap = gs_grow_cap(p->cap, 1024), i;
	const char **slot = cap ? calloc(cap, sizeof(*slot)) : NULL;

	if (!slot)
		return -1;
	for (i = 0; i < p->cap; i++) {
		size_t j;

		if (!p->slot[i])
			continue;
		for (j = hash(p->slot[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = p->slot[i];
	}
	free(p->slot);
	p->slot = slot;
	p->cap = cap;
	return 0;
}

const char *gs_strpool_get(struct gs_strpool *p, const char *s)
{
	size_t i;
	char *copy;

	if (!s)
		return NULL;
	if ((p->n + 1) * 2 > p->cap && rehash(p))
		return NULL;
	for (i = hash(s) & (p->cap - 1); p->slot[i]; i = (i + 1) & (p->cap - 1))
		if (strcmp(p->slot[i], s) == 0)
			return p->slot[i];
	copy = gs_arena_strndup(&p->arena, s, strlen(s));
	if (!copy)
		return NULL;
	p->slot[i] = copy;
	p->n++;
	return copy;
}
