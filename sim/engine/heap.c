/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.c - the event queue (see heap.h): a 4-ary min-heap in an array,
 * ordered by (t_s, seq), merged with the arrivals sorted in an array of
 * their own; tracked departures know their place in the heap and move.
 * Four children per node halve the levels a sift walks; a node's children
 * are adjacent, and under the sharing model, where every start and stop
 * moves the departures of the pods beside it, the sifts are most of the
 * queue's cost.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/heap.h"

static inline bool before(const struct gs_event *a, const struct gs_event *b)
{
	return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

void gs_heap_init(struct gs_heap *h)
{
	memset(h, 0, sizeof(*h));
}

void gs_heap_release(struct gs_heap *h)
{
	free(h->a);
	free(h->arr_order);
	free(h->pos);
	gs_heap_init(h);
}

/* For sorting arrivals that the trace does not list in time order. */
struct keyed_arrival {
	int64_t t_s;
	int32_t pod;
};

static int arrival_cmp(const void *a, const void *b)
{
	const struct keyed_arrival *x = a, *y = b;

	if (x->t_s != y->t_s)
		return x->t_s < y->t_s ? -1 : 1;
	return (x->pod > y->pod) - (x->pod < y->pod);
}

int gs_heap_arrivals(struct gs_heap *h, const int64_t *t, size_t n)
{
	size_t i;

	if (h->n || h->next_seq || h->arr_order || n > INT32_MAX)
		return GS_EINVAL;
	h->arr_order = malloc((n ? n : 1) * sizeof(*h->arr_order));
	if (!h->arr_order)
		return GS_ENOMEM;
	for (i = 0; i < n; i++)
		h->arr_order[i] = (int32_t)i;
	/* Traces usually come in time order; otherwise order by (time, pod), which is (time, seq). */
	for (i = 1; i < n && t[i - 1] <= t[i]; i++)
		;
	if (i < n) {
		struct keyed_arrival *k = malloc(n * sizeof(*k));

		if (!k) {
			free(h->arr_order);
			h->arr_order = NULL;
			return GS_ENOMEM;
		}
		for (i = 0; i < n; i++) {
			k[i].t_s = t[i];
			k[i].pod = (int32_t)i;
		}
		qsort(k, n, sizeof(*k), arrival_cmp);
		for (i = 0; i < n; i++)
			h->arr_order[i] = k[i].pod;
		free(k);
	}
	h->arr_t = t;
	h->arr_n = n;
	h->arr_next = 0;
	h->next_seq = n;
	return 0;
}

int gs_heap_track(struct gs_heap *h, size_t n_pods)
{
	size_t i;

	free(h->pos);
	h->pos = malloc((n_pods ? n_pods : 1) * sizeof(*h->pos));
	if (!h->pos)
		return GS_ENOMEM;
	for (i = 0; i < n_pods; i++)
		h->pos[i] = -1;
	h->n_pods = n_pods;
	return 0;
}

/* Whether ev is a departure whose place h tracks. */
static inline bool tracked(const struct gs_heap *h, const struct gs_event *ev)
{
	return h->pos && ev->kind == GS_EV_DEPART && ev->pod >= 0 && (size_t)ev->pod < h->n_pods;
}

/* Puts ev at slot i of the heap array, keeping a tracked departure's place. */
static inline void place(struct gs_heap *h, size_t i, const struct gs_event *ev)
{
	h->a[i] = *ev;
	if (tracked(h, ev))
		h->pos[ev->pod] = (int32_t)i;
}

/* Moves ev up from hole i to its place. */
#define FAN 4

static void sift_up(struct gs_heap *h, size_t i, const struct gs_event *ev)
{
	while (i > 0) {
		size_t parent = (i - 1) / FAN;

		if (!before(ev, &h->a[parent]))
			break;
		place(h, i, &h->a[parent]);
		i = parent;
	}
	place(h, i, ev);
}

/* Moves ev down from hole i to its place among the first h->n slots. */
static void sift_down(struct gs_heap *h, size_t i, const struct gs_event *ev)
{
	size_t n = h->n;

	for (;;) {
		size_t first = FAN * i + 1, child = first, k;

		if (first >= n)
			break;
		for (k = first + 1; k < first + FAN && k < n; k++)
			if (before(&h->a[k], &h->a[child]))
				child = k;
		if (!before(&h->a[child], ev))
			break;
		place(h, i, &h->a[child]);
		i = child;
	}
	place(h, i, ev);
}

int gs_heap_push(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod)
{
	return gs_heap_push_gen(h, t_s, kind, pod, 0);
}

int gs_heap_push_gen(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod, uint32_t gen)
{
	struct gs_event ev, *a;

	ev.t_s = t_s;
	ev.kind = kind;
	ev.pod = pod;
	ev.gen = gen;
	if (tracked(h, &ev) && h->pos[pod] >= 0) {
		/* Move the pod's departure: the place it leaves is remembered, then it sifts. */
		size_t i = (size_t)h->pos[pod];
		struct gs_event old = h->a[i];

		if (!h->moved || h->moved_t_s < old.t_s ||
		    (h->moved_t_s == old.t_s && h->moved_seq < old.seq)) {
			h->moved = true;
			h->moved_t_s = old.t_s;
			h->moved_seq = old.seq;
		}
		ev.seq = h->next_seq++;
		/* The new sequence number is the largest: a later or equal time sifts down. */
		if (before(&ev, &old))
			sift_up(h, i, &ev);
		else
			sift_down(h, i, &ev);
		return 0;
	}
	a = gs_grow(h->a, &h->cap, h->n, sizeof(*a), 64);
	if (!a)
		return GS_ENOMEM;
	h->a = a;
	ev.seq = h->next_seq++;
	sift_up(h, h->n++, &ev);
	return 0;
}

/* The next arrival as an event into *out; false when none is left. */
static bool arrival_head(const struct gs_heap *h, struct gs_event *out)
{
	int32_t pod;

	if (h->arr_next >= h->arr_n)
		return false;
	pod = h->arr_order[h->arr_next];
	out->t_s = h->arr_t[pod];
	out->seq = (uint64_t)pod;
	out->kind = GS_EV_ARRIVE;
	out->pod = pod;
	out->gen = 0;
	return true;
}

int gs_heap_pop(struct gs_heap *h, struct gs_event *out)
{
	struct gs_event arrival;
	bool have_arrival = arrival_head(h, &arrival);

	if (have_arrival && (h->n == 0 || before(&arrival, &h->a[0]))) {
		*out = arrival;
		h->arr_next++;
		return 0;
	}
	if (h->n == 0)
		return GS_ENOENT;
	*out = h->a[0];
	if (tracked(h, out))
		h->pos[out->pod] = -1;
	if (--h->n > 0)
		sift_down(h, 0, &h->a[h->n]);
	return 0;
}

bool gs_heap_peek(const struct gs_heap *h, struct gs_event *out)
{
	struct gs_event arrival;
	bool have_arrival = arrival_head(h, &arrival);

	if (have_arrival && (h->n == 0 || before(&arrival, &h->a[0]))) {
		*out = arrival;
		return true;
	}
	if (h->n == 0)
		return false;
	*out = h->a[0];
	return true;
}

bool gs_heap_moved_after(const struct gs_heap *h, const struct gs_event *ev)
{
	struct gs_event moved;

	if (!h->moved)
		return false;
	moved.t_s = h->moved_t_s;
	moved.seq = h->moved_seq;
	return before(ev, &moved);
}
