/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_strv.c - the string lists (core/strv.h): interning keeps one copy
 * of each name in first-seen order, with and without a capacity, and
 * lookups find exactly what was interned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/strv.h"

static void check_list(size_t *cap)
{
	char **v = NULL;
	char name[16];
	size_t n = 0;
	long i;

	assert_int_equal(gs_strv_intern(&v, &n, cap, "fgd"), 0);
	assert_int_equal(gs_strv_intern(&v, &n, cap, "bestfit"), 1);
	assert_int_equal(gs_strv_intern(&v, &n, cap, "fgd"), 0);
	assert_int_equal(n, 2);
	/* Past the first capacity of 16 and its doubling. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "p%ld", i);
		assert_int_equal(gs_strv_intern(&v, &n, cap, name), i + 2);
	}
	assert_int_equal(n, 42);
	if (cap)
		assert_true(*cap >= n);
	assert_string_equal(v[0], "fgd");
	assert_string_equal(v[41], "p39");
	assert_int_equal(gs_strv_find(v, n, "p17"), 19);
	assert_int_equal(gs_strv_find(v, n, "bestfit"), 1);
	assert_int_equal(gs_strv_find(v, n, "spread"), -1);
	assert_int_equal(gs_strv_find(v, 1, "bestfit"), -1);
	gs_strv_free(v, n);
}

static void test_intern_grow_by_one(void **st)
{
	(void)st;
	check_list(NULL);
}

static void test_intern_with_capacity(void **st)
{
	size_t cap = 0;

	(void)st;
	check_list(&cap);
}

/* The interned copy is the list's own: the caller's buffer may change. */
static void test_intern_copies(void **st)
{
	char buf[8] = "mps";
	char **v = NULL;
	size_t n = 0;

	(void)st;
	assert_int_equal(gs_strv_intern(&v, &n, NULL, buf), 0);
	strcpy(buf, "mig");
	assert_string_equal(v[0], "mps");
	assert_int_equal(gs_strv_find(v, n, "mig"), -1);
	gs_strv_free(v, n);
	gs_strv_free(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern_grow_by_one),
		cmocka_unit_test(test_intern_with_capacity),
		cmocka_unit_test(test_intern_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
