/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_compare.c - `gpusim compare` (report/compare.h) on a set of runs
 * built by hand, with the t statistics, p-values and Holm corrections
 * worked out in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "report/compare.h"
#include "store/regress_data.h"

static void add_runs(struct gs_rset *s, size_t fam, const char *policy, const double *v, size_t n)
{
	size_t i, run;

	for (i = 0; i < n; i++) {
		assert_int_equal(gs_rset_run(s, fam, policy, 42 + i, false, &run), 0);
		assert_int_equal(gs_rset_value(s, run, "unalloc_gpu_pct", v[i], false), 0);
	}
}

/*
 * Family "inflate-x": a = 1..5, b = 11..15: means 3 and 13, sample
 * variances 2.5, t = 10 / sqrt(2.5/5 + 2.5/5) = 10 on 8 degrees of
 * freedom, p = 2 Q(10; 8) = 8.5e-6. Family "inflate-y": a = b = 1, 2, 3:
 * t = 0, p = 1. Family "inflate-z": only a. Holm over the two tested:
 * 2 x 8.5e-6 = 1.7e-5 and max(1.7e-5, 1 x 1) = 1. So x is WORSE for b
 * (its values are higher), y the same, z not compared.
 */
static void test_compare_by_hand(void **st)
{
	static const double a_x[] = { 1, 2, 3, 4, 5 }, b_x[] = { 11, 12, 13, 14, 15 };
	static const double y[] = { 1, 2, 3 };
	struct gs_rset s;
	struct gs_compare c;
	size_t fx, fy, fz;
	char err[256] = "";

	(void)st;
	gs_rset_init(&s);
	assert_int_equal(gs_rset_family(&s, "inflate-x", "inflate", "n.csv", "a", "x.csv", "b", "p",
					&fx), 0);
	assert_int_equal(gs_rset_family(&s, "inflate-y", "inflate", "n.csv", "a", "y.csv", "c", "p",
					&fy), 0);
	assert_int_equal(gs_rset_family(&s, "inflate-z", "inflate", "n.csv", "a", "z.csv", "d", "p",
					&fz), 0);
	add_runs(&s, fx, "fgd", a_x, 5);
	add_runs(&s, fx, "new", b_x, 5);
	add_runs(&s, fy, "fgd", y, 3);
	add_runs(&s, fy, "new", y, 3);
	add_runs(&s, fz, "fgd", y, 3);
	assert_int_equal(gs_rset_finish(&s, err, sizeof(err)), 0);

	assert_int_equal(gs_compare_policies(&s, "fgd", "new", "unalloc_gpu_pct", 0.05, &c, err,
					     sizeof(err)), 0);
	assert_int_equal(c.n_rows, 2);
	assert_int_equal(c.n_tests, 2);
	assert_string_equal(s.families[c.rows[0].family].name, "inflate-x");
	assert_true(fabs(c.rows[0].t - 10.0) < 1e-12);
	assert_true(fabs(c.rows[0].df - 8.0) < 1e-12);
	assert_true(fabs(c.rows[0].p - 8.5e-6) < 0.1e-6);
	assert_true(fabs(c.rows[0].p_holm - 2 * c.rows[0].p) < 1e-15);
	assert_true(fabs(c.rows[0].change_pct - 1000.0 / 3) < 1e-9);
	assert_int_equal(c.rows[0].verdict, GS_COMPARE_WORSE);
	assert_true(c.rows[1].p_holm == 1.0);
	assert_int_equal(c.rows[1].verdict, GS_COMPARE_SAME);
	assert_int_equal(c.better, 0);
	assert_int_equal(c.worse, 1);
	assert_int_equal(c.same, 1);
	gs_compare_release(&c);

	/* The other way round: better. */
	assert_int_equal(gs_compare_policies(&s, "new", "fgd", "unalloc_gpu_pct", 0.05, &c, err,
					     sizeof(err)), 0);
	assert_int_equal(c.rows[0].verdict, GS_COMPARE_BETTER);
	gs_compare_release(&c);

	assert_int_equal(gs_compare_policies(&s, "fgd", "nope", "unalloc_gpu_pct", 0.05, &c, err,
					     sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "nope"));
	assert_int_equal(gs_compare_policies(&s, "fgd", "new", "mean_wait_s", 0.05, &c, err,
					     sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "mean_wait_s"));
	gs_rset_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
