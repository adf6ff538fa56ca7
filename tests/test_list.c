/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_list.c - the comma-separated lists of numbers and seeds (io/list.h):
 * values and ranges in order, every malformed list refused, the limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/error.h"
#include "io/list.h"

static void test_seeds(void **st)
{
	uint64_t *s;
	size_t n;

	(void)st;
	assert_int_equal(gs_list_parse_seeds("42-51", &s, &n), 0);
	assert_int_equal(n, 10);
	assert_int_equal(s[0], 42);
	assert_int_equal(s[9], 51);
	free(s);
	assert_int_equal(gs_list_parse_seeds("1,5,7-9", &s, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(s[0], 1);
	assert_int_equal(s[1], 5);
	assert_int_equal(s[2], 7);
	assert_int_equal(s[4], 9);
	free(s);
	assert_int_equal(gs_list_parse_seeds("7", &s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[0], 7);
	free(s);
	/* A repeated seed is the option converter's to refuse, not the reader's. */
	assert_int_equal(gs_list_parse_seeds("3,3", &s, &n), 0);
	assert_int_equal(n, 2);
	free(s);
	assert_int_equal(gs_list_parse_seeds("9223372036854775807", &s, &n), 0);
	assert_int_equal(s[0], INT64_MAX);
	free(s);
	assert_int_equal(gs_list_parse_seeds("0-99999", &s, &n), 0);
	assert_int_equal(n, GS_LIST_MAX_SEEDS);
	assert_int_equal(s[99999], 99999);
	free(s);
}

static void test_bad_seeds(void **st)
{
	static const char *const bad[] = {
		"", "9-3", "1,,2", "1-", "x", "-3", "1,", ",1", "1 ", " 1", "+1", "1-2-3",
		"0-200000", "0-99999,100000", "9223372036854775808",
		"1-9223372036854775808", "99999999999999999999",
	};
	uint64_t *s = (uint64_t *)&st; /* any address: must stay untouched */
	size_t n = 77, i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (gs_list_parse_seeds(bad[i], &s, &n) != GS_EINVAL)
			fail_msg("seeds '%s' not refused", bad[i]);
		assert_ptr_equal(s, (uint64_t *)&st);
		assert_int_equal(n, 77);
	}
	assert_int_equal(gs_list_parse_seeds(NULL, &s, &n), GS_EINVAL);
}

static void test_numbers(void **st)
{
	char text[8000];
	double *v;
	size_t n, i, len = 0;

	(void)st;
	assert_int_equal(gs_list_parse_numbers("50,80,95,110", &v, &n), 0);
	assert_int_equal(n, 4);
	assert_true(v[0] == 50 && v[1] == 80 && v[2] == 95 && v[3] == 110);
	free(v);
	assert_int_equal(gs_list_parse_numbers(".5,1e3,2.25", &v, &n), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 0.5 && v[1] == 1000 && v[2] == 2.25);
	free(v);
	/* The most values a list may have, and one more. */
	for (i = 1; i <= GS_LIST_MAX_NUMBERS; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%zu", i > 1 ? "," : "",
					i);
	assert_int_equal(gs_list_parse_numbers(text, &v, &n), 0);
	assert_int_equal(n, GS_LIST_MAX_NUMBERS);
	assert_true(v[GS_LIST_MAX_NUMBERS - 1] == GS_LIST_MAX_NUMBERS);
	free(v);
	snprintf(text + len, sizeof(text) - len, ",1001");
	assert_int_equal(gs_list_parse_numbers(text, &v, &n), GS_EINVAL);
}

static void test_bad_numbers(void **st)
{
	static const char *const bad[] = {
		"", "0", "-1", "50,,80", "50,", ",50", "50 ,80", "+5", "inf", "nan", "1e999",
		"50,50", "50,5e1", "x", "5x", "0x10",
	};
	double *v = (double *)&st;
	size_t n = 77, i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (gs_list_parse_numbers(bad[i], &v, &n) != GS_EINVAL)
			fail_msg("numbers '%s' not refused", bad[i]);
		assert_ptr_equal(v, (double *)&st);
		assert_int_equal(n, 77);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_bad_seeds),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_bad_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
