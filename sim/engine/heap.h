/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.h - the event queue: an array-backed binary min-heap ordered by
 * (time, sequence number). The sequence number is assigned at push, so
 * events at equal times come out in insertion order and two runs with the
 * same inputs pop the very same sequence.
 *
 * Ownership: caller-owned struct (_init/_release); it owns its array.
 */
#ifndef GS_HEAP_H
#define GS_HEAP_H

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
};

struct gs_heap {
	struct gs_event *a;
	size_t n, cap;
	uint64_t next_seq;
};

/* Makes h an empty heap; nothing is allocated before the first push. */
void gs_heap_init(struct gs_heap *h);
/* Frees h's array and leaves it empty, as gs_heap_init() does. */
void gs_heap_release(struct gs_heap *h);

/* Pushes an event (gen 0); its seq is assigned here. Returns 0 or GS_ENOMEM. */
int gs_heap_push(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod);

/* The same with a generation, for events that may go stale. */
int gs_heap_push_gen(struct gs_heap *h, int64_t t_s, int32_t kind, int32_t pod, uint32_t gen);

/* Pops the earliest event into *out. Returns 0, or GS_ENOENT when empty. */
int gs_heap_pop(struct gs_heap *h, struct gs_event *out);

/* The earliest event without removing it, or NULL when empty. */
const struct gs_event *gs_heap_peek(const struct gs_heap *h);

/* The number of events in h. */
static inline size_t gs_heap_size(const struct gs_heap *h)
{
	return h->n;
}

#endif
