/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_heap.c - the event queue: order by time, insertion order on ties,
 * and agreement with a sorted reference on a large random sequence; the
 * arrivals kept apart from the heap, and the departures it moves rather
 * than leaves stale, against a plain heap that does neither; departures
 * in groups against the same departures in slots of their own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/error.h"
#include "engine/heap.h"
#include "core/rng.h"

static void test_empty(void **state)
{
	struct gs_heap h;
	struct gs_event ev;

	(void)state;
	gs_heap_init(&h);
	assert_int_equal(gs_heap_pop(&h, &ev), GS_ENOENT);
	assert_false(gs_heap_peek(&h, &ev));
	gs_heap_release(&h);
}

static void test_ties_keep_insertion_order(void **state)
{
	struct gs_heap h;
	struct gs_event ev;
	int i;

	(void)state;
	gs_heap_init(&h);
	/* Pods 0..9 at time 5, interleaved with pods 100.. at time 3 and 7. */
	for (i = 0; i < 10; i++) {
		assert_int_equal(gs_heap_push(&h, 5, GS_EV_ARRIVE, i), 0);
		assert_int_equal(gs_heap_push(&h, i % 2 ? 3 : 7, GS_EV_DEPART, 100 + i), 0);
	}
	for (i = 1; i < 10; i += 2) {
		assert_int_equal(gs_heap_pop(&h, &ev), 0);
		assert_int_equal(ev.t_s, 3);
		assert_int_equal(ev.pod, 100 + i);
	}
	for (i = 0; i < 10; i++) {
		assert_int_equal(gs_heap_pop(&h, &ev), 0);
		assert_int_equal(ev.t_s, 5);
		assert_int_equal(ev.pod, i);
		assert_int_equal(ev.kind, GS_EV_ARRIVE);
	}
	for (i = 0; i < 10; i += 2) {
		assert_int_equal(gs_heap_pop(&h, &ev), 0);
		assert_int_equal(ev.t_s, 7);
		assert_int_equal(ev.pod, 100 + i);
	}
	assert_int_equal(gs_heap_size(&h), 0);
	gs_heap_release(&h);
}

static int cmp_event(const void *a, const void *b)
{
	const struct gs_event *x = a, *y = b;

	if (x->t_s != y->t_s)
		return x->t_s < y->t_s ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void test_matches_sorted_reference(void **state)
{
	enum { N = 20000 };
	struct gs_event *ref = malloc(N * sizeof(*ref));
	struct gs_heap h;
	struct gs_rng rng;
	int i;

	(void)state;
	assert_non_null(ref);
	gs_heap_init(&h);
	gs_rng_seed(&rng, 7);
	for (i = 0; i < N; i++) {
		/* Few distinct times, so ties are common. */
		int64_t t = (int64_t)gs_rng_below(&rng, 500);

		assert_int_equal(gs_heap_push(&h, t, GS_EV_ARRIVE, i), 0);
		ref[i].t_s = t;
		ref[i].seq = (uint64_t)i;
		ref[i].pod = i;
		/* Pop some along the way, as a simulation does. */
		if (i % 7 == 3) {
			struct gs_event ev, top;

			assert_true(gs_heap_peek(&h, &top));
			assert_int_equal(gs_heap_pop(&h, &ev), 0);
			assert_int_equal(top.seq, ev.seq);
			/* Re-push it: it must come back after the events already at its time. */
			assert_int_equal(gs_heap_push(&h, ev.t_s + 1000, ev.kind, ev.pod), 0);
			ref[ev.pod].t_s = ev.t_s + 1000;
			ref[ev.pod].seq = h.next_seq - 1;
		}
	}
	qsort(ref, N, sizeof(*ref), cmp_event);
	for (i = 0; i < N; i++) {
		struct gs_event ev;

		assert_int_equal(gs_heap_pop(&h, &ev), 0);
		assert_int_equal(ev.t_s, ref[i].t_s);
		assert_int_equal(ev.pod, ref[i].pod);
	}
	assert_int_equal(gs_heap_pop(&h, &(struct gs_event){ 0 }), GS_ENOENT);
	gs_heap_release(&h);
	free(ref);
}

static void assert_same_event(const struct gs_event *a, const struct gs_event *b)
{
	assert_int_equal(a->t_s, b->t_s);
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->pod, b->pod);
	assert_int_equal(a->gen, b->gen);
}

/* Pops h and ref, which must agree: returns the status, the event in *out. */
static int pop_same(struct gs_heap *h, struct gs_heap *ref, struct gs_event *out)
{
	struct gs_event b;
	int ra = gs_heap_pop(h, out), rb = gs_heap_pop(ref, &b);

	assert_int_equal(ra, rb);
	if (ra == 0)
		assert_same_event(out, &b);
	return ra;
}

/*
 * Arrivals out of time order with ties, queued apart, and events pushed
 * while popping: the same sequence as a heap into which the arrivals were
 * pushed first, one by one.
 */
static void test_arrivals_apart(void **state)
{
	enum { N = 5000 };
	int64_t *t = malloc(N * sizeof(*t));
	struct gs_heap h, ref;
	struct gs_rng rng;
	int i, popped = 0;

	(void)state;
	assert_non_null(t);
	gs_rng_seed(&rng, 11);
	gs_heap_init(&h);
	gs_heap_init(&ref);
	for (i = 0; i < N; i++) {
		t[i] = (int64_t)gs_rng_below(&rng, 300);
		assert_int_equal(gs_heap_push(&ref, t[i], GS_EV_ARRIVE, i), 0);
	}
	assert_int_equal(gs_heap_arrivals(&h, t, N), 0);
	/* Only first. */
	assert_int_equal(gs_heap_arrivals(&h, t, N), GS_EINVAL);
	assert_int_equal(gs_heap_size(&h), N);
	assert_int_equal(gs_heap_push(&h, 0, GS_EV_SAMPLE, -1), 0);
	assert_int_equal(gs_heap_push(&ref, 0, GS_EV_SAMPLE, -1), 0);
	for (;;) {
		struct gs_event a;

		if (pop_same(&h, &ref, &a))
			break;
		/* A departure now and then, sometimes at the very time of later arrivals. */
		if (a.kind == GS_EV_ARRIVE && popped++ % 3 == 0) {
			int64_t at = a.t_s + (int64_t)gs_rng_below(&rng, 20);

			assert_int_equal(gs_heap_push(&h, at, GS_EV_DEPART, a.pod), 0);
			assert_int_equal(gs_heap_push(&ref, at, GS_EV_DEPART, a.pod), 0);
		}
		assert_int_equal(gs_heap_size(&h), gs_heap_size(&ref));
	}
	assert_int_equal(popped, N);
	gs_heap_release(&h);
	gs_heap_release(&ref);
	free(t);
}

/*
 * Departures that move, as the sharing model moves them: a tracked queue
 * against a plain one that keeps every push and skips the stale ones when
 * popped (a generation per pod). The same events come out in the same
 * order, and after each the tracked queue says it would still hold one
 * (its size, or a departure moved from a later place) exactly when the
 * plain one still holds one, stale or not.
 */
static void test_tracked_departures_move(void **state)
{
	enum { PODS = 300 };
	uint32_t gen[PODS] = { 0 };
	bool queued[PODS] = { false };
	struct gs_heap h, ref;
	struct gs_rng rng;
	int step, moves = 0;
	bool current;

	(void)state;
	gs_rng_seed(&rng, 5);
	gs_heap_init(&h);
	gs_heap_init(&ref);
	assert_int_equal(gs_heap_track(&h, PODS, 0), 0);
	for (step = 0; step < 20000; step++) {
		int pod = (int)gs_rng_below(&rng, PODS);
		struct gs_event a, b;

		if (gs_rng_below(&rng, 3)) {
			/* A new completion for pod: sooner or later than its old one. */
			int64_t at = (int64_t)(step / 4) + (int64_t)gs_rng_below(&rng, 400);

			moves += queued[pod];
			gen[pod]++;
			queued[pod] = true;
			assert_int_equal(gs_heap_push_gen(&h, at, GS_EV_DEPART, pod, gen[pod]), 0);
			assert_int_equal(gs_heap_push_gen(&ref, at, GS_EV_DEPART, pod, gen[pod]), 0);
			continue;
		}
		/* The plain queue's next current event: stale ones are skipped. */
		current = false;
		while (!current && gs_heap_pop(&ref, &b) == 0)
			current = b.gen == gen[b.pod];
		if (!current) {
			assert_int_equal(gs_heap_pop(&h, &a), GS_ENOENT);
			continue;
		}
		assert_int_equal(gs_heap_pop(&h, &a), 0);
		assert_same_event(&a, &b);
		queued[a.pod] = false;
		assert_int_equal(gs_heap_size(&h) > 0 || gs_heap_moved_after(&h, &a),
				 gs_heap_size(&ref) > 0);
	}
	assert_true(moves > 1000);
	assert_true(gs_heap_size(&h) < gs_heap_size(&ref));
	/*
	 * Last, one departure moved sooner from the very end: once it is out,
	 * the tracked queue is empty but the plain one still holds its old place.
	 */
	gen[0] += 2;
	assert_int_equal(gs_heap_push_gen(&h, 1000000, GS_EV_DEPART, 0, gen[0] - 1), 0);
	assert_int_equal(gs_heap_push_gen(&ref, 1000000, GS_EV_DEPART, 0, gen[0] - 1), 0);
	assert_int_equal(gs_heap_push_gen(&h, 999000, GS_EV_DEPART, 0, gen[0]), 0);
	assert_int_equal(gs_heap_push_gen(&ref, 999000, GS_EV_DEPART, 0, gen[0]), 0);
	/* Drain both: the tail of stale events in the plain queue is where they differ. */
	for (;;) {
		struct gs_event a, b;

		current = false;
		while (!current && gs_heap_pop(&ref, &b) == 0)
			current = b.gen == gen[b.pod];
		if (!current)
			break;
		assert_int_equal(gs_heap_pop(&h, &a), 0);
		assert_same_event(&a, &b);
		assert_int_equal(gs_heap_size(&h) > 0 || gs_heap_moved_after(&h, &a),
				 gs_heap_size(&ref) > 0);
		if (a.t_s == 999000)
			assert_true(gs_heap_moved_after(&h, &a));
	}
	assert_int_equal(gs_heap_size(&h), 0);
	gs_heap_release(&h);
	gs_heap_release(&ref);
}

/*
 * Departures in groups (a GPU's pods) against the same departures each in
 * a slot of its own: the same events in the same order, the same size and
 * the same answer from gs_heap_moved_after(), with moves inside a group,
 * moves from one group to another, departures pushed without a group for
 * a pod that had one and the other way round, arrivals and plain events
 * between them, and peeks.
 */
static void test_grouped_departures(void **state)
{
	enum { PODS = 400, GROUPS = 37, N_ARR = 300 };
	int32_t group[PODS];
	int64_t t_arr[N_ARR];
	struct gs_heap h, ref;
	struct gs_rng rng;
	int step, i, cross = 0, popped = 0;

	(void)state;
	gs_rng_seed(&rng, 13);
	gs_heap_init(&h);
	gs_heap_init(&ref);
	for (i = 0; i < N_ARR; i++)
		t_arr[i] = (int64_t)gs_rng_below(&rng, 5000);
	assert_int_equal(gs_heap_arrivals(&h, t_arr, N_ARR), 0);
	assert_int_equal(gs_heap_arrivals(&ref, t_arr, N_ARR), 0);
	assert_int_equal(gs_heap_track(&h, (size_t)INT32_MAX + 1, 0), GS_EINVAL);
	assert_int_equal(gs_heap_track(&h, PODS, GROUPS), 0);
	assert_int_equal(gs_heap_track(&ref, PODS, 0), 0);
	assert_int_equal(gs_heap_push_grouped(&h, 1, PODS, 0, 0), GS_EINVAL);
	assert_int_equal(gs_heap_push_grouped(&h, 1, 0, 0, GROUPS), GS_EINVAL);
	assert_int_equal(gs_heap_push_grouped(&ref, 1, 0, 0, 0), GS_EINVAL);
	for (i = 0; i < PODS; i++)
		group[i] = (int32_t)gs_rng_below(&rng, GROUPS);
	for (step = 0; step < 60000; step++) {
		int32_t pod = (int32_t)gs_rng_below(&rng, PODS);
		uint64_t r = gs_rng_below(&rng, 100);
		struct gs_event a, b;

		if (r < 55) {
			/* A new completion, a few times in a new group or none. */
			int64_t at = (int64_t)(step / 8) + (int64_t)gs_rng_below(&rng, 300);
			uint32_t gen = (uint32_t)step;

			if (r < 2) {
				group[pod] = (int32_t)gs_rng_below(&rng, GROUPS);
				cross++;
			}
			if (r == 2 || r == 3) {
				group[pod] = -1;
				cross++;
			}
			if (group[pod] >= 0)
				assert_int_equal(gs_heap_push_grouped(&h, at, pod, gen, group[pod]), 0);
			else
				assert_int_equal(gs_heap_push_gen(&h, at, GS_EV_DEPART, pod, gen), 0);
			assert_int_equal(gs_heap_push_gen(&ref, at, GS_EV_DEPART, pod, gen), 0);
		} else if (r < 58) {
			int64_t at = (int64_t)(step / 8) + (int64_t)gs_rng_below(&rng, 300);

			assert_int_equal(gs_heap_push(&h, at, GS_EV_SAMPLE, -1), 0);
			assert_int_equal(gs_heap_push(&ref, at, GS_EV_SAMPLE, -1), 0);
		} else {
			if (r < 70) {
				bool ha = gs_heap_peek(&h, &a), hb = gs_heap_peek(&ref, &b);

				assert_int_equal(ha, hb);
				if (ha)
					assert_same_event(&a, &b);
			}
			if (pop_same(&h, &ref, &a) == 0) {
				assert_int_equal(gs_heap_moved_after(&h, &a),
						 gs_heap_moved_after(&ref, &a));
				popped++;
			}
		}
		assert_int_equal(gs_heap_size(&h), gs_heap_size(&ref));
	}
	for (;;) {
		struct gs_event a;

		if (pop_same(&h, &ref, &a))
			break;
		assert_int_equal(gs_heap_moved_after(&h, &a), gs_heap_moved_after(&ref, &a));
		assert_int_equal(gs_heap_size(&h), gs_heap_size(&ref));
	}
	assert_true(cross > 1000);
	assert_true(popped > 10000);
	assert_int_equal(gs_heap_size(&h), 0);
	gs_heap_release(&h);
	gs_heap_release(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ties_keep_insertion_order),
		cmocka_unit_test(test_matches_sorted_reference),
		cmocka_unit_test(test_arrivals_apart),
		cmocka_unit_test(test_tracked_departures_move),
		cmocka_unit_test(test_grouped_departures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
