/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.c - the event queue (see heap.h): a 4-ary min-heap in an array,
 * ordered by (t_s, seq), merged with the arrivals sorted in an array of
 * their own; tracked departures know their place in the heap and move.
 * Four children per node halve the levels a sift walks; a node's children
 * are adjacent. Under the sharing model every start and stop moves the
 * departures of the pods beside it: one slot per pod made each move two
 * cache misses (the pod's place, then its slot) and a sift, and the moves
 * were a fifth of a vGPU run (perf, 6,000 nodes). Grouped departures move
 * within their group's array, which the pods of one GPU share, and the
 * group's slot sifts once per event.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cmp.h"
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

static void groups_free(struct gs_heap *h)
{
	size_t g;

	for (g = 0; g < h->n_with_more; g++)
		free(h->groups[h->with_more[g]].more);
	free(h->with_more);
	free(h->groups_mem);
	free(h->dirty);
	h->groups = NULL;
	h->groups_mem = NULL;
	h->with_more = NULL;
	h->dirty = NULL;
	h->n_groups = h->n_dirty = h->n_with_more = h->cap_with_more = 0;
}

void gs_heap_release(struct gs_heap *h)
{
	free(h->a);
	free(h->arr_order);
	free(h->pos);
	groups_free(h);
	gs_heap_init(h);
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
		struct gs_cmp_keyed *k = malloc(n * sizeof(*k));

		if (!k) {
			free(h->arr_order);
			h->arr_order = NULL;
			return GS_ENOMEM;
		}
		for (i = 0; i < n; i++) {
			k[i].key = t[i];
			k[i].id = (int64_t)i;
		}
		qsort(k, n, sizeof(*k), gs_cmp_keyed_asc);
		for (i = 0; i < n; i++)
			h->arr_order[i] = (int32_t)k[i].id;
		free(k);
	}
	h->arr_t = t;
	h->arr_n = n;
	h->arr_next = 0;
	h->next_seq = n;
	return 0;
}

int gs_heap_track(struct gs_heap *h, size_t n_pods, size_t n_groups)
{
	size_t i;

	/* pos[] says -2 - g for group g. */
	if (n_pods > INT32_MAX || n_groups > (size_t)INT32_MAX - 2)
		return GS_EINVAL;
	free(h->pos);
	groups_free(h);
	h->n_pods = 0;
	h->pos = malloc((n_pods ? n_pods : 1) * sizeof(*h->pos));
	/* calloc() maps large blocks zeroed on first touch; one group more to align them. */
	h->groups_mem = calloc(n_groups + 1, sizeof(*h->groups));
	if (h->groups_mem) {
		uintptr_t at = (uintptr_t)h->groups_mem, align = _Alignof(struct gs_heap_group);

		h->groups = (struct gs_heap_group *)(void *)((at + align - 1) / align * align);
	}
	h->dirty = malloc((n_groups ? n_groups : 1) * sizeof(*h->dirty));
	if (!h->pos || !h->groups || !h->dirty) {
		free(h->pos);
		h->pos = NULL;
		groups_free(h);
		return GS_ENOMEM;
	}
	for (i = 0; i < n_pods; i++)
		h->pos[i] = -1;
	h->n_pods = n_pods;
	h->n_groups = n_groups;
	return 0;
}

/* Whether ev is a departure whose place h tracks in pos[] (a group's slot is not). */
static inline bool tracked(const struct gs_heap *h, const struct gs_event *ev)
{
	return h->pos && ev->group < 0 && ev->kind == GS_EV_DEPART && ev->pod >= 0 &&
	       (size_t)ev->pod < h->n_pods;
}

/* Puts ev at slot i of the heap array, keeping a tracked departure's or a group's place. */
static inline void place(struct gs_heap *h, size_t i, const struct gs_event *ev)
{
	h->a[i] = *ev;
	if (ev->group >= 0)
		h->groups[ev->group].at = (int32_t)i + 1;
	else if (tracked(h, ev))
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

/* Takes slot i out of the heap (its tracking already cleared). */
static void slot_remove(struct gs_heap *h, size_t i)
{
	struct gs_event last = h->a[--h->n];

	if (i == h->n)
		return;
	if (before(&last, &h->a[i]))
		sift_up(h, i, &last);
	else
		sift_down(h, i, &last);
}

/* A departure left its place (t_s, seq): remember the latest such place. */
static void note_moved(struct gs_heap *h, int64_t t_s, uint64_t seq)
{
	if (!h->moved || h->moved_t_s < t_s || (h->moved_t_s == t_s && h->moved_seq < seq)) {
		h->moved = true;
		h->moved_t_s = t_s;
		h->moved_seq = seq;
	}
}

/* Group g's slot is to be keyed again before the next pop or peek. */
static void mark_dirty(struct gs_heap *h, int32_t g)
{
	if (!h->groups[g].dirty) {
		h->groups[g].dirty = true;
		h->dirty[h->n_dirty++] = g;
	}
}

/* Member k of group gr. */
static inline struct gs_heap_member *member(struct gs_heap_group *gr, int32_t k)
{
	return k < GS_HEAP_GROUP_INLINE ? &gr->in[k] : &gr->more[k - GS_HEAP_GROUP_INLINE];
}

/*
 * The member of group gr that departure `pod` is, or -1: the members in
 * the group, then those in its array, each a plain scan (a move looks for
 * its pod in every group it changes, and a pop in the popped group).
 */
static int32_t member_of(const struct gs_heap_group *gr, int32_t pod)
{
	int32_t k, n_in = gr->n < GS_HEAP_GROUP_INLINE ? gr->n : GS_HEAP_GROUP_INLINE;

	for (k = 0; k < n_in; k++)
		if (gr->in[k].pod == pod)
			return k;
	for (k = GS_HEAP_GROUP_INLINE; k < gr->n; k++)
		if (gr->more[k - GS_HEAP_GROUP_INLINE].pod == pod)
			return k;
	return -1;
}

/* Takes member k out of group gr (their order does not matter). */
static void member_drop(struct gs_heap_group *gr, int32_t k)
{
	gr->n--;
	*member(gr, k) = *member(gr, gr->n);
}

/*
 * Room in the heap array for one more slot, and for the slot of every
 * dirty group, so that keying them (in pop or peek) never allocates.
 */
static int reserve(struct gs_heap *h)
{
	struct gs_event *a = gs_grow(h->a, &h->cap, h->n + h->n_dirty, sizeof(*a), 64);

	if (!a)
		return GS_ENOMEM;
	h->a = a;
	return 0;
}

/* Takes tracked pod's departure out of the group holding it, as a move away. */
static void ungroup(struct gs_heap *h, int32_t pod)
{
	int32_t g = -2 - h->pos[pod];
	struct gs_heap_group *gr = &h->groups[g];
	int32_t k = member_of(gr, pod);

	note_moved(h, member(gr, k)->t_s, member(gr, k)->seq);
	member_drop(gr, k);
	mark_dirty(h, g);
	h->pos[pod] = -1;
	h->n_events--;
}

int gs_heap_push(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod)
{
	return gs_heap_push_gen(h, t_s, kind, pod, 0);
}

int gs_heap_push_gen(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod, uint32_t gen)
{
	struct gs_event ev;
	int rc;

	ev.t_s = t_s;
	ev.kind = kind;
	ev.pod = pod;
	ev.gen = gen;
	ev.group = -1;
	if (tracked(h, &ev) && h->pos[pod] >= 0) {
		/* Move the pod's departure: the place it leaves is remembered, then it sifts. */
		size_t i = (size_t)h->pos[pod];
		struct gs_event old = h->a[i];

		note_moved(h, old.t_s, old.seq);
		ev.seq = h->next_seq++;
		/* The new sequence number is the largest: a later or equal time sifts down. */
		if (before(&ev, &old))
			sift_up(h, i, &ev);
		else
			sift_down(h, i, &ev);
		return 0;
	}
	if ((rc = reserve(h)))
		return rc;
	if (tracked(h, &ev) && h->pos[pod] <= -2)
		ungroup(h, pod);
	ev.seq = h->next_seq++;
	sift_up(h, h->n++, &ev);
	h->n_events++;
	return 0;
}

int gs_heap_push_grouped(struct gs_heap *h, int64_t t_s, int32_t pod, uint32_t gen,
			 int32_t group)
{
	struct gs_heap_group *gr;
	struct gs_heap_member *mb;
	int32_t k;
	int rc;

	if (!h->pos || pod < 0 || (size_t)pod >= h->n_pods || group < 0 ||
	    (size_t)group >= h->n_groups)
		return GS_EINVAL;
	gr = &h->groups[group];
	/* Most often a move within the group: pos[] is not read at all. */
	k = member_of(gr, pod);
	if (k >= 0) {
		mb = member(gr, k);
		note_moved(h, mb->t_s, mb->seq);
	} else {
		if (gr->n >= GS_HEAP_GROUP_INLINE && gr->n - GS_HEAP_GROUP_INLINE == gr->cap_more) {
			size_t cap = (size_t)gr->cap_more;

			if (cap >= INT32_MAX / 2)
				return GS_ENOMEM;
			if (!gr->more) {
				int32_t *w = gs_grow(h->with_more, &h->cap_with_more, h->n_with_more,
						     sizeof(*w), 64);

				if (!w)
					return GS_ENOMEM;
				h->with_more = w;
			}
			mb = gs_grow(gr->more, &cap, (size_t)gr->cap_more, sizeof(*mb), 4);
			if (!mb)
				return GS_ENOMEM;
			if (!gr->more)
				h->with_more[h->n_with_more++] = group;
			gr->more = mb;
			gr->cap_more = (int32_t)cap;
		}
		/* The group may need a slot: room for it now (and for a group the pod leaves). */
		h->n_dirty++;
		rc = reserve(h);
		h->n_dirty--;
		if (rc)
			return rc;
		if (h->pos[pod] >= 0) {
			size_t i = (size_t)h->pos[pod];

			note_moved(h, h->a[i].t_s, h->a[i].seq);
			h->pos[pod] = -1;
			slot_remove(h, i);
			h->n_events--;
		} else if (h->pos[pod] <= -2) {
			ungroup(h, pod);
		}
		mb = member(gr, gr->n++);
		mb->pod = pod;
		h->pos[pod] = -2 - group;
		h->n_events++;
	}
	mb->t_s = t_s;
	mb->seq = h->next_seq++;
	mb->gen = gen;
	mark_dirty(h, group);
	return 0;
}

/* Group g's earliest departure, as its slot's event; g holds one at least. */
static struct gs_event group_head(struct gs_heap *h, int32_t g)
{
	const struct gs_heap_group *gr = &h->groups[g];
	const struct gs_heap_member *best = &gr->in[0], *mb, *end;
	struct gs_event ev;

	/* The members in the group, then those in its array: no test of where each one is. */
	end = &gr->in[gr->n < GS_HEAP_GROUP_INLINE ? gr->n : GS_HEAP_GROUP_INLINE];
	for (mb = &gr->in[1]; mb < end; mb++)
		if (mb->t_s < best->t_s || (mb->t_s == best->t_s && mb->seq < best->seq))
			best = mb;
	if (gr->n > GS_HEAP_GROUP_INLINE) {
		end = &gr->more[gr->n - GS_HEAP_GROUP_INLINE];
		for (mb = gr->more; mb < end; mb++)
			if (mb->t_s < best->t_s || (mb->t_s == best->t_s && mb->seq < best->seq))
				best = mb;
	}
	ev.t_s = best->t_s;
	ev.seq = best->seq;
	ev.kind = GS_EV_DEPART;
	ev.pod = best->pod;
	ev.gen = best->gen;
	ev.group = g;
	return ev;
}

/* Keys the slots of the dirty groups again: in, out or sifted to their place. */
static void settle_dirty(struct gs_heap *h)
{
	size_t d;

	for (d = 0; d < h->n_dirty; d++) {
		int32_t g = h->dirty[d];
		struct gs_heap_group *gr = &h->groups[g];
		struct gs_event ev;

		gr->dirty = false;
		if (gr->n == 0) {
			if (gr->at) {
				size_t i = (size_t)gr->at - 1;

				gr->at = 0;
				slot_remove(h, i);
			}
			continue;
		}
		ev = group_head(h, g);
		if (!gr->at)
			sift_up(h, h->n++, &ev); /* reserve() made room */
		else if (before(&ev, &h->a[gr->at - 1]))
			sift_up(h, (size_t)gr->at - 1, &ev);
		else
			sift_down(h, (size_t)gr->at - 1, &ev);
	}
	h->n_dirty = 0;
}

static inline void settle(struct gs_heap *h)
{
	if (h->n_dirty)
		settle_dirty(h);
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
	out->group = -1;
	return true;
}

int gs_heap_pop(struct gs_heap *h, struct gs_event *out)
{
	struct gs_event arrival;
	bool have_arrival = arrival_head(h, &arrival);

	settle(h);
	if (have_arrival && (h->n == 0 || before(&arrival, &h->a[0]))) {
		*out = arrival;
		h->arr_next++;
		return 0;
	}
	if (h->n == 0)
		return GS_ENOENT;
	h->n_events--;
	if (h->a[0].group >= 0) {
		/* The group's earliest leaves it; the group keys its slot by the next one. */
		int32_t g = h->a[0].group;
		struct gs_heap_group *gr = &h->groups[g];
		struct gs_event next;

		*out = h->a[0];
		out->group = -1;
		h->pos[out->pod] = -1;
		member_drop(gr, member_of(gr, out->pod));
		if (gr->n > 0) {
			next = group_head(h, g);
			sift_down(h, 0, &next);
			return 0;
		}
		gr->at = 0;
	} else {
		*out = h->a[0];
		if (tracked(h, out))
			h->pos[out->pod] = -1;
	}
	if (--h->n > 0)
		sift_down(h, 0, &h->a[h->n]);
	return 0;
}

bool gs_heap_peek(struct gs_heap *h, struct gs_event *out)
{
	struct gs_event arrival;
	bool have_arrival = arrival_head(h, &arrival);

	settle(h);
	if (have_arrival && (h->n == 0 || before(&arrival, &h->a[0]))) {
		*out = arrival;
		return true;
	}
	if (h->n == 0)
		return false;
	*out = h->a[0];
	out->group = -1;
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
