/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.c - the event queue (see heap.h): a binary min-heap in an array,
 * ordered by (t_s, seq).
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/heap.h"

static inline int before(const struct gs_event *a, const struct gs_event *b)
{
	return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

void gs_heap_init(struct gs_heap *h)
{
	h->a = NULL;
	h->n = 0;
	h->cap = 0;
	h->next_seq = 0;
}

void gs_heap_release(struct gs_heap *h)
{
	free(h->a);
	gs_heap_init(h);
}

int gs_heap_push(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod)
{
	return gs_heap_push_gen(h, t_s, kind, pod, 0);
}

int gs_heap_push_gen(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod, uint32_t gen)
{
	struct gs_event ev, *a = gs_grow(h->a, &h->cap, h->n, sizeof(*a), 64);
	size_t i;

	if (!a)
		return GS_ENOMEM;
	h->a = a;
	ev.t_s = t_s;
	ev.seq = h->next_seq++;
	ev.kind = kind;
	ev.pod = pod;
	ev.gen = gen;

	/* Sift up: move parents down until ev's slot is found. */
	for (i = h->n++; i > 0; ) {
		size_t parent = (i - 1) / 2;

		if (!before(&ev, &h->a[parent]))
			break;
		h->a[i] = h->a[parent];
		i = parent;
	}
	h->a[i] = ev;
	return 0;
}

int gs_heap_pop(struct gs_heap *h, struct gs_event *out)
{
	struct gs_event last;
	size_t i, n;

	if (h->n == 0)
		return GS_ENOENT;
	*out = h->a[0];
	n = --h->n;
	if (n == 0)
		return 0;
	last = h->a[n];

	/* Sift down the former last element from the root. */
	for (i = 0;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && before(&h->a[child + 1], &h->a[child]))
			child++;
		if (!before(&h->a[child], &last))
			break;
		h->a[i] = h->a[child];
		i = child;
	}
	h->a[i] = last;
	return 0;
}

const struct gs_event *gs_heap_peek(const struct gs_heap *h)
{
	return h->n ? &h->a[0] : NULL;
}
