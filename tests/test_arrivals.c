/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_arrivals.c - the steady load knob (engine/arrivals.h): the arrival
 * window solved by hand for a few loads, the limits, both shapes of
 * arrivals, and a run under a load.
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
#include "engine/arrivals.h"
#include "engine/metrics.h"
#include "engine/replay.h"
#include "testutil.h"

#define assert_near(got, want)                                                        \
	do {                                                                          \
		double g_ = (got), w_ = (want);                                       \
		if (!(fabs(g_ - w_) <= 1e-9 * (1 + fabs(w_))))                        \
			fail_msg("%s = %.12g, expected %.12g", #got, g_, w_);         \
	} while (0)

static struct gs_pod pod(int32_t milli, int64_t at, int64_t d)
{
	struct gs_pod p = tu_pod(1000, 1024, milli ? 1 : 0, milli);

	p.t_create_s = at;
	p.t_delete_s = d < 0 ? -1 : at + d;
	return p;
}

/* A (1000 milli, 0, 100 s), B (500, 10, 50 s), C (500, 20, 10 s) on one GPU. */
static void abc(struct gs_pod p[3])
{
	p[0] = pod(1000, 0, 100);
	p[1] = pod(500, 10, 50);
	p[2] = pod(500, 20, 10);
}

/*
 * sum_i g_i min(d_i, W) on 1000 milli of capacity:
 *   W <= 10:        2000 W                  (200 %: every request at once)
 *   10 < W <= 50:   5000 + 1500 W
 *   50 < W <= 100:  30000 + 1000 W
 *   W > 100:        130000
 * 50 %: 130000 / W = 500, W = 260. 175 %: 5000 + 1500 W = 1750 W, W = 20.
 * 120 %: 30000 + 1000 W = 1200 W, W = 150 is past 100; 130000 / 1200 =
 * 108.3 is in (100, inf). Above 200 % no window will do.
 */
static void test_window_by_hand(void **state)
{
	struct gs_pod p[3];
	char err[256] = "";
	double w = -1;

	(void)state;
	abc(p);
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 50, &w, err, sizeof(err)), 0);
	assert_near(w, 260);
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 175, &w, err, sizeof(err)), 0);
	assert_near(w, 20);
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 120, &w, err, sizeof(err)), 0);
	assert_near(w, 130000.0 / 1200);
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 200, &w, err, sizeof(err)), 0);
	assert_near(w, 10);
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 201, &w, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "at most 200.00%"));
	assert_int_equal(gs_arrivals_window(p, 3, 1000, 0, &w, err, sizeof(err)), GS_EINVAL);
}

/*
 * A pod that never leaves brings its request over any window: with N
 * (1000, never) and M (1000, 100 s) on 2000 milli, the load is at least
 * 50 %. 75 %: (100000 + 1000 W) / W = 1500 gives W = 200.
 */
static void test_window_never_leaving(void **state)
{
	struct gs_pod p[2] = { pod(1000, 0, -1), pod(1000, 5, 100) };
	char err[256] = "";
	double w = -1;

	(void)state;
	assert_int_equal(gs_arrivals_window(p, 2, 2000, 75, &w, err, sizeof(err)), 0);
	assert_near(w, 200);
	assert_int_equal(gs_arrivals_window(p, 2, 2000, 50, &w, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "never leave already offer 50.00%"));
}

/* The trace's shape: its gaps scaled by one factor. At 175 % the window is 20 s, the trace's own. */
static void test_trace_shape(void **state)
{
	struct gs_pod p[3];
	int64_t at[3];
	char err[256] = "";

	(void)state;
	abc(p);
	assert_int_equal(gs_arrivals_generate(p, 3, 3, 1000, 175, GS_ARRIVALS_TRACE, 1, at, err,
					      sizeof(err)),
			 0);
	assert_int_equal(at[0], 0);
	assert_int_equal(at[1], 10);
	assert_int_equal(at[2], 20);
	/* 50 %: W = 260, the gaps 13 times longer. */
	assert_int_equal(gs_arrivals_generate(p, 3, 3, 1000, 50, GS_ARRIVALS_TRACE, 1, at, err,
					      sizeof(err)),
			 0);
	assert_int_equal(at[1], 130);
	assert_int_equal(at[2], 260);
	assert_near(gs_offered_load_pct(p, at, 3, 1000), 50);
	/* All at one time: nothing to scale. */
	p[1].t_create_s = p[2].t_create_s = 0;
	p[1].t_delete_s = 50;
	p[2].t_delete_s = 10;
	assert_int_equal(gs_arrivals_generate(p, 3, 3, 1000, 50, GS_ARRIVALS_TRACE, 1, at, err,
					      sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "no gaps to scale"));
}

/*
 * Poisson arrivals: the first at 0, the last at round(W), in the trace's
 * order (by creation time, then file order), the same for the same seed,
 * not for another. 400 pods of 100 milli for 100 s on 4000 milli at 80 %:
 * 400 x 100 x 100 = 4e6 = 3200 W, W = 1250 s.
 */
static void test_poisson_shape(void **state)
{
	struct gs_pod p[400];
	int64_t a[400], b[400];
	char err[256] = "";
	size_t i, same = 0;

	(void)state;
	for (i = 0; i < 400; i++)
		p[i] = pod(100, (int64_t)(399 - i), 100);  /* the file in reverse time order */
	assert_int_equal(gs_arrivals_generate(p, 400, 400, 4000, 80, GS_ARRIVALS_POISSON, 7, a, err,
					      sizeof(err)),
			 0);
	assert_int_equal(a[399], 0);
	assert_int_equal(a[0], 1250);
	for (i = 0; i + 1 < 400; i++)
		assert_true(a[i] >= a[i + 1]);
	assert_int_equal(gs_arrivals_generate(p, 400, 400, 4000, 80, GS_ARRIVALS_POISSON, 7, b, err,
					      sizeof(err)),
			 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(gs_arrivals_generate(p, 400, 400, 4000, 80, GS_ARRIVALS_POISSON, 8, b, err,
					      sizeof(err)),
			 0);
	for (i = 0; i < 400; i++)
		same += a[i] == b[i];
	assert_true(same < 100);
	assert_near(gs_offered_load_pct(p, a, 400, 4000), 80);
	/* Fewer than two pods cannot be spaced out. */
	assert_int_equal(gs_arrivals_generate(p, 1, 1, 4000, 80, GS_ARRIVALS_POISSON, 7, a, err,
					      sizeof(err)),
			 GS_EINVAL);
}

/*
 * A run under a load: the engine takes the arrivals, records the offered
 * load, puts the load in the options it checks, and refuses a load with
 * a time scale or in inflate mode. At 175 % with the trace's shape the
 * run is the unloaded one.
 */
static void test_run_under_load(void **state)
{
	struct gs_pod p[3];
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o;
	char err[256] = "";
	size_t i;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 1, "T4"), 0);
	gs_trace_init(&t);
	abc(p);
	for (i = 0; i < 3; i++)
		assert_int_equal(gs_trace_append(&t, i == 0 ? "A" : i == 1 ? "B" : "C", &p[i]), 0);
	gs_replay_opts_init(&o);
	o.check = true;
	o.load_pct = 175;
	o.arrivals = GS_ARRIVALS_TRACE;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.out[1].t_arrive_s, 10);
	assert_int_equal(sim.out[1].t_start_s, 100);
	assert_near(sim.tm.wait_mean_s, 170.0 / 3);
	assert_near(sim.tm.offered_load_pct, 175);
	gs_sim_release(&sim);

	/* 50 %, Poisson: the window is 260 s and the offered load 50 %. */
	o.arrivals = GS_ARRIVALS_POISSON;
	o.load_pct = 50;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 0);
	assert_int_equal(gs_sim_run(&sim, err, sizeof(err)), 0);
	assert_int_equal(sim.tm.t_first_arrival_s, 0);
	assert_int_equal(sim.tm.t_last_arrival_s, 260);
	assert_near(sim.tm.offered_load_pct, 50);
	gs_sim_release(&sim);

	o.load_pct = 300;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "at most 200.00%"));
	o.load_pct = 50;
	o.time_scale = 2;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "time scale"));
	o.time_scale = 1;
	o.mode = GS_MODE_INFLATE;
	assert_int_equal(gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "time mode only"));
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_by_hand),
		cmocka_unit_test(test_window_never_leaving),
		cmocka_unit_test(test_trace_shape),
		cmocka_unit_test(test_poisson_shape),
		cmocka_unit_test(test_run_under_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
