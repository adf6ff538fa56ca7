/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_heap.c - the event queue: order by time, insertion order on ties,
 * and agreement with a sorted reference on a large random sequence.
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
	assert_null(gs_heap_peek(&h));
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
			struct gs_event ev;
			const struct gs_event *top = gs_heap_peek(&h);

			assert_non_null(top);
			assert_int_equal(gs_heap_pop(&h, &ev), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ties_keep_insertion_order),
		cmocka_unit_test(test_matches_sorted_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
