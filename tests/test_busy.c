/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_busy.c - the busy fractions of a run's pods (engine/busy.h): specs
 * by class, fixed values and draws, what the trace sets winning, the
 * built-in GenAI distribution, distribution files and their errors, and
 * the fit from duty-cycle samples worked out by hand.
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
#include "engine/busy.h"
#include "testutil.h"
#include "tmpdir.h"

static void parse_ok(struct gs_busy *b, const char *spec)
{
	char err[512];

	if (gs_busy_parse(b, spec, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
}

static void parse_fails(const char *spec, const char *msg)
{
	struct gs_busy b;
	char err[512];

	gs_busy_init(&b);
	assert_int_equal(gs_busy_parse(&b, spec, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(err, msg);
	assert_int_equal(b.n, 0);
}

/* Three GPU pods of classes training, inference, none, and a CPU pod. */
static void trace3(struct gs_trace *t)
{
	struct gs_pod p = tu_pod(1000, 1024, 1, 500);

	gs_trace_init(t);
	assert_int_equal(gs_trace_class(t, "training"), 1);
	assert_int_equal(gs_trace_class(t, "inference"), 2);
	p.wclass = 1;
	assert_int_equal(gs_trace_append(t, "a", &p), 0);
	p.wclass = 2;
	assert_int_equal(gs_trace_append(t, "b", &p), 0);
	p.wclass = 0;
	assert_int_equal(gs_trace_append(t, "c", &p), 0);
	p = tu_pod(1000, 1024, 0, 0);
	assert_int_equal(gs_trace_append(t, "cpu", &p), 0);
}

/* Fixed values by class; the rest; what the trace says wins; CPU pods untouched. */
static void test_fixed_by_class(void **state)
{
	struct gs_busy b;
	struct gs_trace t;

	(void)state;
	gs_busy_init(&b);
	trace3(&t);
	parse_ok(&b, "training=1,0.25");
	assert_string_equal(b.spec, "training=1,0.25");
	t.pods[1].busy_milli = 700;
	gs_busy_apply(&b, &t, t.pods, t.n_pods, 42);
	assert_int_equal(t.pods[0].busy_milli, 1000);
	assert_int_equal(t.pods[1].busy_milli, 700);   /* the trace's own */
	assert_int_equal(t.pods[2].busy_milli, 250);   /* no class: the rest */
	assert_int_equal(t.pods[3].busy_milli, 0);     /* no GPU */
	gs_trace_release(&t);

	/* Only a class named: the others stay busy all the time (0 = 1000). */
	trace3(&t);
	parse_ok(&b, "inference=0.1");
	gs_busy_apply(&b, &t, t.pods, t.n_pods, 42);
	assert_int_equal(t.pods[0].busy_milli, 0);
	assert_int_equal(t.pods[1].busy_milli, 100);
	assert_int_equal(t.pods[2].busy_milli, 0);
	gs_trace_release(&t);
	gs_busy_release(&b);
}

/*
 * Draws from the built-in GenAI distribution: in its range, the same for
 * the same seed, other draws for another seed; a class item wins over *.
 */
static void test_genai_draws(void **state)
{
	struct gs_busy b;
	struct gs_trace t, u;
	char err[256];
	struct gs_busy_dist d;
	size_t i;
	int differ = 0;

	(void)state;
	assert_int_equal(gs_busy_dist_parse(&d, "genai", gs_busy_genai_text(),
					    strlen(gs_busy_genai_text()), err, sizeof(err)), 0);
	assert_int_equal(d.n, 41);
	/* The median container keeps its GPU 5.78 % busy. */
	assert_true(fabs(gs_busy_dist_at(&d, 0.5) - 0.0578) < 1e-9);
	assert_true(fabs(gs_busy_dist_at(&d, 0.0125) - 0.001) < 1e-9);
	assert_true(fabs(gs_busy_dist_at(&d, 0.9875) - (0.2050 + 0.2787) / 2) < 1e-9);

	gs_busy_init(&b);
	parse_ok(&b, "genai,training=1");
	assert_int_equal(b.n_dists, 1);
	for (i = 0; i < 50; i++) {
		trace3(&t);
		trace3(&u);
		gs_busy_apply(&b, &t, t.pods, t.n_pods, i);
		gs_busy_apply(&b, &u, u.pods, u.n_pods, i);
		assert_int_equal(t.pods[0].busy_milli, 1000);
		assert_int_equal(t.pods[1].busy_milli, u.pods[1].busy_milli);
		assert_in_range(t.pods[1].busy_milli, 1, 279);
		assert_in_range(t.pods[2].busy_milli, 1, 279);
		gs_busy_apply(&b, &u, u.pods, u.n_pods, i + 1000); /* set already: kept */
		assert_int_equal(t.pods[2].busy_milli, u.pods[2].busy_milli);
		gs_trace_release(&u);
		trace3(&u);
		gs_busy_apply(&b, &u, u.pods, u.n_pods, i + 1000);
		differ += t.pods[1].busy_milli != u.pods[1].busy_milli;
		gs_trace_release(&t);
		gs_trace_release(&u);
	}
	assert_true(differ > 25);
	gs_busy_release(&b);
}

/* Bad specs: what is wrong and what is allowed. */
static void test_spec_errors(void **state)
{
	(void)state;
	parse_fails("", "busy spec '' is empty");
	parse_fails("1.5", "busy spec '1.5': '1.5' is not a busy fraction in (0, 1], genai or a "
		    "distribution file (a name with '/' or ending in .csv)");
	parse_fails("0", "busy spec '0': '0' is not a busy fraction in (0, 1], genai or a "
		    "distribution file (a name with '/' or ending in .csv)");
	parse_fails("Train=0.5", "busy spec 'Train=0.5': 'Train' is not a workload class name "
		    "or *");
	parse_fails("0.5,*=0.4", "busy spec '0.5,*=0.4': '*' has two items");
	parse_fails("a=0.5,,", "busy spec 'a=0.5,,': an item is empty");
	parse_fails(",0.5", "busy spec ',0.5': an item is empty");
	parse_fails("a=", "busy spec 'a=': '' is not a busy fraction in (0, 1], genai or a "
		    "distribution file (a name with '/' or ending in .csv)");
}

/* A distribution file: read, drawn from, and refused with FILE:LINE: column. */
static void test_distribution_files(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "q,b\n", "d.csv:1: unrecognised header; a busy distribution starts with "
		  "'quantile,busy,source'" },
		{ "quantile,busy,source\n0.5,0.1,x\n1,0.2,x\n",
		  "d.csv:2: column quantile: '0.5' is not 0 (the first row is quantile 0)" },
		{ "quantile,busy,source\n0,0.3,x\n1,0.2,x\n",
		  "d.csv:3: column busy: '0.2' is below the row before it (a quantile function "
		  "does not fall)" },
		{ "quantile,busy,source\n0,0.3,x\n0,0.4,x\n",
		  "d.csv:3: column quantile: '0' is not above the row before it" },
		{ "quantile,busy,source\n0,0,x\n1,1,x\n",
		  "d.csv:2: column busy: '0' is less than 0.001" },
		{ "quantile,busy,source\n0,0.1,\n1,1,x\n",
		  "d.csv:2: column source: empty source (say where the figure comes from)" },
		{ "quantile,busy,source\n0,0.1,x\n0.5,1,x\n", "d.csv: the last row's quantile is not 1" },
	};
	char path[4096], spec[4200], err[512];
	struct gs_busy_dist d;
	struct gs_busy b;
	struct gs_trace t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(gs_busy_dist_parse(&d, "d.csv", bad[i].text, strlen(bad[i].text),
						    err, sizeof(err)), GS_EPARSE);
		assert_string_equal(err, bad[i].msg);
	}
	gs_test_write("half.csv", "quantile,busy,source\n0,0.5,test\n1,0.5,test\n", path,
		      sizeof(path));
	snprintf(spec, sizeof(spec), "inference=%s", path);
	gs_busy_init(&b);
	parse_ok(&b, spec);
	trace3(&t);
	gs_busy_apply(&b, &t, t.pods, t.n_pods, 7);
	assert_int_equal(t.pods[1].busy_milli, 500);
	assert_int_equal(t.pods[0].busy_milli, 0);
	gs_trace_release(&t);
	gs_busy_release(&b);
	gs_test_path("none.csv", spec, sizeof(spec));
	assert_int_equal(gs_busy_parse(&b, spec, err, sizeof(err)), GS_ENOENT);
}

/*
 * The fit: three containers, A with samples 10 and 30 (mean 20 % -> 0.2),
 * B with 50 (0.5), C with 0 (0.001, the floor); sorted 0.001, 0.2, 0.5.
 * With 5 quantiles: q 0, 0.25, 0.5, 0.75, 1 at positions 0, 0.5, 1, 1.5, 2:
 * 0.001, 0.1005, 0.2, 0.35, 0.5.
 */
static void test_fit(void **state)
{
	static const double want[5] = { 0.001, 0.1005, 0.2, 0.35, 0.5 };
	char path[4096], err[512];
	struct gs_busy_dist d;
	size_t pods = 0;
	int i;

	(void)state;
	gs_test_write("duty.csv",
		      "value,timestamp_anon,container_ip\n10.0,1,a\n50,1,b\n0.0,1,c\n30,2,a\n",
		      path, sizeof(path));
	assert_int_equal(gs_busy_fit(path, 5, &d, &pods, err, sizeof(err)), 0);
	assert_int_equal(pods, 3);
	assert_int_equal(d.n, 5);
	for (i = 0; i < 5; i++) {
		assert_true(fabs(d.q[i] - i / 4.0) < 1e-12);
		assert_true(fabs(d.busy[i] - want[i]) < 1e-12);
	}
	gs_test_write("duty.csv", "value,timestamp_anon,container_ip\n101,1,a\n", path,
		      sizeof(path));
	assert_int_equal(gs_busy_fit(path, 5, &d, &pods, err, sizeof(err)), GS_EPARSE);
	assert_non_null(strstr(err, "duty.csv:2: column value: '101' is greater than 100"));
	assert_int_equal(gs_busy_fit(path, 1, &d, &pods, err, sizeof(err)), GS_EINVAL);
}

static int make_dir(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("busy");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_by_class),
		cmocka_unit_test(test_genai_draws),
		cmocka_unit_test(test_spec_errors),
		GS_TMPDIR_TEST(test_distribution_files, make_dir),
		GS_TMPDIR_TEST(test_fit, make_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
