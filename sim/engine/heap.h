/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.h - the event queue, ordered by (time, sequence number). The
 * sequence number is assigned at push, so events at equal times come out
 * in insertion order and two runs with the same inputs pop the very same
 * sequence.
 *
 * Two things keep it small on large runs, without changing that order:
 *
 *   Arrivals (gs_heap_arrivals()) are known before the run and never move:
 *   they wait in an array sorted by (time, sequence), not in the binary
 *   heap, and each pop takes the earlier of its head and the heap's top.
 *   The heap then holds what is running and waiting, not every pod of the
 *   trace (a million arrivals made each pop a walk through 32 MB).
 *
 *   Departures that move (gs_heap_track()): the sharing model gives a pod
 *   a new completion time whenever the pods beside it change. The queue
 *   keeps one departure per pod and moves it (a new time and a new
 *   sequence number, as a new push would get), instead of leaving the old
 *   one in the heap to be recognised as stale when popped. A queue that
 *   kept them would not be empty until the last stale one's time, and a
 *   sampling grid asks whether it is: gs_heap_moved_after() says whether
 *   a departure moved away from a place after an event, so that the grid
 *   goes on as long as it did when those events stayed queued.
 *
 *   Departure groups (gs_heap_push_grouped()): a start or stop on a shared
 *   GPU moves the departures of every pod on it. Those of one group (the
 *   pods whose first GPU is that GPU) wait together in the group's own
 *   small array, and the heap holds one slot per group, keyed by its
 *   earliest departure: a move rewrites the pod's entry in the group, and
 *   the group's slot sifts once, at the next pop or peek, however many of
 *   its departures moved. The earliest of the groups' earliest is the
 *   earliest of all, and every event keeps its (time, sequence): the
 *   events come out in the very same order as with one slot per departure.
 *
 * Ownership: caller-owned struct (_init/_release); it owns its arrays and
 * borrows the arrival times.
 */
#ifndef GS_HEAP_H
#define GS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gs_event_kind {
	GS_EV_ARRIVE = 0,
	GS_EV_DEPART = 1,
	GS_EV_TIMEOUT = 2,  /* a pending pod's bounded wait ran out */
	GS_EV_SAMPLE = 3,   /* a point of the fixed sampling grid */
};

struct gs_event {
	int64_t t_s;
	uint64_t seq;
	int32_t kind;   /* enum gs_event_kind */
	int32_t pod;
	uint32_t gen;   /* DEPART under the sharing model: the pod's generation (engine/share_model.h) */
	int32_t group;  /* in the heap: the departure group this slot stands for, -1 for none */
};

/* A departure waiting in its group (struct gs_heap_group). */
struct gs_heap_member {
	int64_t t_s;
	uint64_t seq;
	int32_t pod;
	uint32_t gen;
};

/* Departures a group holds in itself; the rest are in its array `more`. */
#define GS_HEAP_GROUP_INLINE 4

/*
 * One departure group: its departures, unordered, and its slot in the
 * heap. The first few are in it, so that reading a group of a few pods
 * is one cache miss, not one for the group and one for its array.
 */
struct gs_heap_group {
	_Alignas(64) struct gs_heap_member *more; /* owned: departures past the first few */
	int32_t n, cap_more;
	int32_t at;                /* 1 + its place in the heap array, 0 for none */
	bool dirty;                /* its departures changed since its slot was keyed */
	struct gs_heap_member in[GS_HEAP_GROUP_INLINE];
};

struct gs_heap {
	struct gs_event *a;       /* the binary heap: events, and departure groups' slots */
	size_t n, cap;
	size_t n_events;          /* events queued in a and in the groups, arrivals aside */
	uint64_t next_seq;
	/* Arrivals: pod arr_order[k] at arr_t[arr_order[k]], sequence number arr_order[k]. */
	const int64_t *arr_t;     /* borrowed */
	int32_t *arr_order;
	size_t arr_n, arr_next;
	/*
	 * Tracked departures: where pod i's is, a place in a (>= 0), -1 for
	 * none, or -2 - g in group g; NULL when not tracking.
	 */
	int32_t *pos;
	size_t n_pods;
	/*
	 * Departure groups (in groups_mem, zeroed lazily by the system: the
	 * groups of GPUs without shared pods are never touched), the ones
	 * with an array `more`, and the ones whose slot is to be keyed again.
	 */
	struct gs_heap_group *groups;
	void *groups_mem;
	size_t n_groups;
	int32_t *with_more;
	size_t n_with_more, cap_with_more;
	int32_t *dirty;
	size_t n_dirty;
	/* The latest place, (time, seq), a tracked departure moved away from. */
	bool moved;
	int64_t moved_t_s;
	uint64_t moved_seq;
};

/* Makes h an empty heap; nothing is allocated before the first push. */
void gs_heap_init(struct gs_heap *h);
/* Frees h's arrays and leaves it empty, as gs_heap_init() does. */
void gs_heap_release(struct gs_heap *h);

/*
 * Queues the arrivals of pods 0..n-1 at times t[0..n) (borrowed until
 * release), as pushing GS_EV_ARRIVE events for them in that order would:
 * pod i gets sequence number i. Only on an empty queue before any push.
 * Returns 0, GS_EINVAL (not first, or n too large) or GS_ENOMEM.
 */
int gs_heap_arrivals(struct gs_heap *h, const int64_t *t, size_t n);

/*
 * From now on h holds at most one GS_EV_DEPART per pod 0..n_pods-1: a
 * push of a departure for a pod that has one queued moves it. Groups
 * 0..n_groups-1 take departures through gs_heap_push_grouped(). Only on a
 * queue without departures. Returns 0, GS_EINVAL (more than INT32_MAX
 * pods or groups) or GS_ENOMEM.
 */
int gs_heap_track(struct gs_heap *h, size_t n_pods, size_t n_groups);

/* Pushes an event (gen 0); its seq is assigned here. Returns 0 or GS_ENOMEM. */
int gs_heap_push(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod);

/* The same with a generation, for events that may go stale. */
int gs_heap_push_gen(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod, uint32_t gen);

/*
 * The departure of tracked pod `pod` (gs_heap_track()) at t_s with
 * generation gen, queued in group `group`, or moved there. Its seq is
 * assigned here, as gs_heap_push_gen() would. Returns 0, GS_EINVAL (an
 * untracked pod or an unknown group) or GS_ENOMEM.
 */
int gs_heap_push_grouped(struct gs_heap *h, int64_t t_s, int32_t pod, uint32_t gen,
			 int32_t group);

/* Pops the earliest event into *out. Returns 0, or GS_ENOENT when empty. */
int gs_heap_pop(struct gs_heap *h, struct gs_event *out);

/*
 * The earliest event without removing it into *out; false when empty.
 * It keys the slots of the groups whose departures moved, hence not const.
 */
bool gs_heap_peek(struct gs_heap *h, struct gs_event *out);

/* The number of events in h, arrivals included. */
static inline size_t gs_heap_size(const struct gs_heap *h)
{
	return h->n_events + (h->arr_n - h->arr_next);
}

/*
 * Whether a tracked departure moved away from a place after ev (a later
 * time, or the same time and a later sequence number): a queue that kept
 * moved departures until their time would still hold one after ev.
 */
bool gs_heap_moved_after(const struct gs_heap *h, const struct gs_event *ev);

#endif
