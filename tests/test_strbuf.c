/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_strbuf.c - the growing string (core/strbuf.h): appends keep every
 * byte across growth, reset empties the text, release leaves an empty
 * buffer that can be used again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/strbuf.h"

static void test_append_and_grow(void **st)
{
	struct gs_strbuf b = { 0 };
	char want[4000];
	size_t n = 0;
	int i;

	(void)st;
	/* 700 pieces of 5 or 6 bytes: past the first 256 bytes and several doublings. */
	for (i = 0; i < 700; i++) {
		gs_strbuf_addf(&b, "%d\x1f", i % 100000);
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%d\x1f", i % 100000);
	}
	assert_false(b.oom);
	assert_int_equal(b.len, n);
	assert_int_equal(strlen(b.s), n);
	assert_memory_equal(b.s, want, n + 1);
	assert_true(b.cap > b.len);
	gs_strbuf_release(&b);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
}

static void test_reset(void **st)
{
	struct gs_strbuf b = { 0 };
	size_t cap;

	(void)st;
	gs_strbuf_reset(&b);   /* an empty buffer stays empty */
	assert_null(b.s);
	gs_strbuf_addf(&b, "INSERT INTO \"%s\" (", "runs");
	gs_strbuf_addf(&b, "%s%s", "a", ", b)");
	assert_string_equal(b.s, "INSERT INTO \"runs\" (a, b)");
	cap = b.cap;
	gs_strbuf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.s, "");
	assert_int_equal(b.cap, cap);
	gs_strbuf_addf(&b, "c%d", 7);
	assert_string_equal(b.s, "c7");
	gs_strbuf_release(&b);
}

/* After a failed append nothing more is added: the text stays what it was. */
static void test_oom_is_sticky(void **st)
{
	struct gs_strbuf b = { 0 };

	(void)st;
	gs_strbuf_addf(&b, "kept");
	b.oom = true;
	gs_strbuf_addf(&b, "dropped");
	assert_string_equal(b.s, "kept");
	assert_int_equal(b.len, 4);
	gs_strbuf_release(&b);
	assert_false(b.oom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_and_grow),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_oom_is_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
