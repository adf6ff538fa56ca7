/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_decide.c - the statistics behind `gpusim advise` (report/decide.h,
 * report/criteria.h) on hand-made figures whose answers are worked out
 * below: the paired t-test and the t interval against hand arithmetic;
 * a clear winner and its gain with the interval of the paired differences;
 * two candidates whose seeds do not separate them (a tie); a candidate
 * that looks fastest because it failed pods (out, whatever its figures),
 * the floor of pods no candidate runs; a broken constraint; a reference
 * that is never chosen; Holm's correction across blocks; a
 * higher-is-better objective and a weighted score; Welch's test when the
 * candidates share fewer than two seeds; and the parsers of conditions
 * and objectives with their messages.
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
#include "report/criteria.h"
#include "report/decide.h"
#include "report/regress.h"

#define NS 5

/* A run with completion c, wait w, slowdown s, p99 slowdown s99, failed f, pending p. */
static struct gs_decide_run run(double c, double w, double s, double s99, double f, double p)
{
	struct gs_decide_run r;
	int i;

	memset(&r, 0, sizeof(r));
	r.ran = true;
	for (i = 0; i < GS_N_FIGS; i++)
		r.fig[i] = NAN;
	r.fig[GS_FIG_COMPL_MEAN] = c;
	r.fig[GS_FIG_WAIT_MEAN] = w;
	r.fig[GS_FIG_SLOWDOWN] = s;
	r.fig[GS_FIG_SLOWDOWN_P99] = s99;
	r.fig[GS_FIG_FAILED] = f;
	r.fig[GS_FIG_PENDING] = p;
	r.fig[GS_FIG_OOM] = f;
	r.fig[GS_FIG_USEFUL] = 50;
	r.gpus = NAN;
	return r;
}

static struct gs_decide_opts opts(size_t baseline)
{
	struct gs_decide_opts o;

	memset(&o, 0, sizeof(o));
	o.objective.metric = GS_METRIC_COMPLETION;
	o.baseline = baseline;
	o.alpha = 0.05;
	o.conf = 0.95;
	return o;
}

static const struct gs_decide_row *row_of(const struct gs_decide_block *k, size_t cand)
{
	size_t r;

	for (r = 0; r < k->n_rows; r++)
		if (k->rows[r].cand == cand)
			return &k->rows[r];
	fail_msg("no row for candidate %zu", cand);
	return NULL;
}

/*
 * Differences 1, 2, 3: mean 2, sd 1, t = 2 / (1 / sqrt 3) = 3.4641, df 2,
 * two-sided p = 2 Q(3.4641; 2) = 0.074180 (t table: p = 1 - t / sqrt(t^2 + 2)
 * for 2 degrees of freedom, = 1 - 3.4641 / 3.7417 = 0.07418). The 95 %
 * interval of 10, 12, 14: 12 +- t(0.975; 2) x 2 / sqrt 3 = 12 +- 4.3027 x
 * 1.1547 = 12 +- 4.9683.
 */
static void test_paired_and_interval(void **st)
{
	const double a[] = { 10, 20, 30 }, b[] = { 11, 22, 33 }, x[] = { 10, 12, 14 };
	const double z[] = { 5, 5, 5 }, zz[] = { 7, 7, 7 };
	double t, df, p, mean, lo, hi;

	(void)st;
	assert_int_equal(gs_decide_paired_t(a, b, 3, &t, &df, &p), 0);
	assert_float_equal(t, 3.464102, 1e-5);
	assert_float_equal(df, 2, 0);
	assert_float_equal(p, 0.074180, 1e-5);
	/* Equal differences: no spread; p 1 when they are 0, 0 otherwise. */
	assert_int_equal(gs_decide_paired_t(z, z, 3, &t, &df, &p), 0);
	assert_float_equal(p, 1, 0);
	assert_int_equal(gs_decide_paired_t(z, zz, 3, &t, &df, &p), 0);
	assert_float_equal(p, 0, 0);
	assert_int_equal(gs_decide_paired_t(a, b, 1, &t, &df, &p), GS_EINVAL);
	gs_decide_mean_ci(x, 3, 0.95, &mean, &lo, &hi);
	assert_float_equal(mean, 12, 1e-12);
	assert_float_equal(lo, 12 - 4.968275, 1e-5);
	assert_float_equal(hi, 12 + 4.968275, 1e-5);
	gs_decide_mean_ci(x, 1, 0.95, &mean, &lo, &hi);
	assert_float_equal(mean, 10, 0);
	assert_true(isnan(lo) && isnan(hi));
}

/*
 * Four candidates, one block, seeds s = 0..4:
 *   0 baseline  completion 100 + s, wait 50
 *   1 fast      completion 60 + s (40 less at every seed), wait 10
 *   2 near      completion 60 + s + d(s), d = 0.5, -0.5, 1, -1, 0: mean
 *               difference 0 from 1, not separable
 *   3 failing   completion 30, but 7 to 11 pods failed that the others ran
 * plus a reference (ideal) at completion 20, which is never chosen.
 */
static void test_winner_tie_and_unfinished(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "binpack", "mig", false },
		{ "spread", "mig", false }, { "binpack", "timeslice", false },
		{ "binpack", "ideal", true },
	};
	const double d[NS] = { 0.5, -0.5, 1, -1, 0 };
	struct gs_decide_run runs[5 * NS];
	struct gs_decide_input in = { runs, NS };
	struct gs_decide_opts o = opts(0);
	struct gs_decide_result dec;
	const struct gs_decide_block *k;
	const struct gs_decide_row *r;
	char err[256];
	int s;

	(void)st;
	for (s = 0; s < NS; s++) {
		runs[0 * NS + s] = run(100 + s, 50, 2, 3, 0, 0);
		runs[1 * NS + s] = run(60 + s, 10, 1, 1.5, 0, 0);
		runs[2 * NS + s] = run(60 + s + d[s], 10, 1, 1.5, 0, 0);
		runs[3 * NS + s] = run(30, 0, 1, 1, 7 + s, 0);
		runs[4 * NS + s] = run(20, 0, 1, 1, 0, 0);
	}
	assert_int_equal(gs_decide(&in, 1, cands, 5, &o, &dec, err, sizeof(err)), 0);
	k = &dec.blocks[0];
	assert_int_equal(k->best, 1);
	/* Rows: in by mean (1, 2, 0), then out (3), then the reference. */
	assert_int_equal(k->rows[0].cand, 1);
	assert_int_equal(k->rows[1].cand, 2);
	assert_int_equal(k->rows[2].cand, 0);
	assert_int_equal(k->rows[3].cand, 3);
	assert_int_equal(k->rows[4].cand, 4);
	assert_int_equal(k->rows[4].out, GS_DECIDE_REFERENCE);
	/* The near candidate: differences 0.5, -0.5, 1, -1, 0 have mean 0: p 1, a tie. */
	r = row_of(k, 2);
	assert_int_equal(r->test, GS_TEST_PAIRED);
	assert_int_equal(r->n_pairs, NS);
	assert_float_equal(r->p, 1.0, 1e-12);
	assert_true(r->tie);
	assert_int_equal(k->n_ties, 1);
	assert_false(k->separated);
	assert_true(k->more_seeds);
	/* The failing one: 7-11 pods above the floor of 0, out whatever its completion. */
	r = row_of(k, 3);
	assert_int_equal(r->out, GS_DECIDE_UNFINISHED);
	assert_float_equal(r->excess_min, 7, 0);
	assert_float_equal(r->excess_max, 11, 0);
	assert_true(isnan(r->p));
	/* The gain: baseline 102 against 62, every difference 40: -39.2157 %, no spread. */
	assert_int_equal(k->gain_test, GS_TEST_PAIRED);
	assert_float_equal(k->base_mean, 102, 1e-12);
	assert_float_equal(k->gain_pct, -100.0 * 40 / 102, 1e-9);
	assert_float_equal(k->gain_lo, -100.0 * 40 / 102, 1e-9);
	assert_float_equal(k->gain_p, 0, 0);
	assert_true(k->gain_significant);
	/* The best's interval: 62 +- t(0.975; 4) x sd(60..64) / sqrt 5 = 62 +- 2.7764 x 0.7071. */
	r = row_of(k, 1);
	assert_float_equal(r->mean, 62, 1e-12);
	assert_float_equal(r->hi - r->mean, 2.776445 * 1.5811388 / sqrt(5.0), 1e-5);
	/* Two tests (near and baseline against the best): Holm over both. */
	assert_int_equal(dec.n_tests, 2);
	gs_decide_result_release(&dec);
}

/*
 * The floor: pods that no candidate runs (3 at every seed, larger than
 * any node) do not count against anyone; one more than the floor does.
 */
static void test_floor(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "binpack", "vgpu", false },
		{ "binpack", "mps", false },
	};
	struct gs_decide_run runs[3 * NS];
	struct gs_decide_input in = { runs, NS };
	struct gs_decide_opts o = opts(0);
	struct gs_decide_result dec;
	char err[256];
	int s;

	(void)st;
	for (s = 0; s < NS; s++) {
		runs[0 * NS + s] = run(200 + s, 100, 2, 3, 0, 3);
		runs[1 * NS + s] = run(150 + 2 * s, 20, 1.5, 2, 0, 3);
		runs[2 * NS + s] = run(100, 0, 1, 1, 0, s == 2 ? 4 : 3);
	}
	assert_int_equal(gs_decide(&in, 1, cands, 3, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.blocks[0].best, 1);
	assert_int_equal(row_of(&dec.blocks[0], 0)->out, GS_DECIDE_IN);
	assert_int_equal(row_of(&dec.blocks[0], 2)->out, GS_DECIDE_UNFINISHED);
	assert_float_equal(row_of(&dec.blocks[0], 2)->excess_min, 0, 0);
	assert_float_equal(row_of(&dec.blocks[0], 2)->excess_max, 1, 0);
	gs_decide_result_release(&dec);
}

/* A constraint on the mean over seeds; a broken one puts the candidate out. */
static void test_constraint(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "binpack", "vgpu", false },
	};
	struct gs_decide_run runs[2 * NS];
	struct gs_decide_input in = { runs, NS };
	struct gs_decide_opts o = opts(0);
	struct gs_cond c;
	struct gs_decide_result dec;
	char err[256];
	int s;

	(void)st;
	assert_int_equal(gs_cond_parse("p99 slowdown <= 10", &c, err, sizeof(err)), 0);
	o.conds = &c;
	o.n_conds = 1;
	for (s = 0; s < NS; s++) {
		/* p99 slowdowns 8..12: mean 10, which holds (<=). */
		runs[0 * NS + s] = run(300 + s, 100, 2, 8 + s, 0, 0);
		/* 10..14: mean 12, broken, although it completes sooner. */
		runs[1 * NS + s] = run(200 + s, 10, 1, 10 + s, 0, 0);
	}
	assert_int_equal(gs_decide(&in, 1, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.blocks[0].best, 0);
	assert_int_equal(row_of(&dec.blocks[0], 1)->out, GS_DECIDE_CONSTRAINT);
	assert_float_equal(row_of(&dec.blocks[0], 1)->cond_value, 12, 1e-12);
	gs_decide_result_release(&dec);
}

/*
 * Holm across blocks: block 0 compares differences 2 + e(s), block 1
 * 2.2 + e(s), e = -2, -1, 0, 1, 2 (sd 1.5811, se 0.7071): t = 2.828 and
 * 3.111 on 4 degrees of freedom, p = 0.0474 and 0.0358, each below 0.05
 * alone. Corrected together: 2 x 0.0358 = 0.0716 and max(0.0716, 0.0474):
 * both above 0.05, so both are ties. Each block alone would have
 * separated them.
 */
static void test_holm_across_blocks(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "spread", "exclusive", false },
	};
	const double e[NS] = { -2, -1, 0, 1, 2 };  /* sd 1.5811, se 0.7071 */
	struct gs_decide_run runs0[2 * NS], runs1[2 * NS];
	struct gs_decide_input in[2] = { { runs0, NS }, { runs1, NS } };
	struct gs_decide_opts o = opts(0);
	struct gs_decide_result dec;
	double t0, t1, df, p0, p1, a[NS], b0[NS], b1[NS], adj[2], ps[2];
	char err[256];
	int s;

	(void)st;
	for (s = 0; s < NS; s++) {
		runs0[s] = run(100, 0, 1, 1, 0, 0);
		runs0[NS + s] = run(102 + e[s], 0, 1, 1, 0, 0);
		runs1[s] = run(100, 0, 1, 1, 0, 0);
		runs1[NS + s] = run(102.2 + e[s], 0, 1, 1, 0, 0);
		a[s] = 100;
		b0[s] = 102 + e[s];
		b1[s] = 102.2 + e[s];
	}
	assert_int_equal(gs_decide_paired_t(a, b0, NS, &t0, &df, &p0), 0);
	assert_int_equal(gs_decide_paired_t(a, b1, NS, &t1, &df, &p1), 0);
	assert_float_equal(t0, 2 / (sqrt(2.5) / sqrt(5.0)), 1e-9);
	ps[0] = p0;
	ps[1] = p1;
	assert_int_equal(gs_holm(ps, 2, adj), 0);
	assert_int_equal(gs_decide(in, 2, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.n_tests, 2);
	assert_float_equal(row_of(&dec.blocks[0], 1)->p, p0, 1e-12);
	assert_float_equal(row_of(&dec.blocks[0], 1)->p_holm, adj[0], 1e-12);
	assert_float_equal(row_of(&dec.blocks[1], 1)->p_holm, adj[1], 1e-12);
	assert_true(p0 < 0.05 && p1 < 0.05 && p1 < p0);
	assert_float_equal(adj[1], 2 * p1, 1e-12);
	assert_float_equal(adj[0], fmax(2 * p1, p0), 1e-12);
	assert_true(adj[0] > 0.05 && adj[1] > 0.05);
	assert_true(row_of(&dec.blocks[0], 1)->tie);
	assert_true(row_of(&dec.blocks[1], 1)->tie);
	gs_decide_result_release(&dec);
}

/* Useful GPU % is maximised; a score weighs each metric against the baseline's mean. */
static void test_objectives(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "binpack", "mig", false },
	};
	struct gs_decide_run runs[2 * NS];
	struct gs_decide_input in = { runs, NS };
	struct gs_decide_opts o = opts(0);
	struct gs_decide_result dec;
	char err[256];
	int s;

	(void)st;
	for (s = 0; s < NS; s++) {
		runs[s] = run(100, 0, 1, 1, 0, 0);
		runs[s].fig[GS_FIG_USEFUL] = 50 + s;
		runs[NS + s] = run(150, 0, 1, 1, 0, 0);
		runs[NS + s].fig[GS_FIG_USEFUL] = 75 + 1.5 * s;
	}
	assert_int_equal(gs_objective_parse("useful", &o.objective, err, sizeof(err)), 0);
	assert_int_equal(gs_decide(&in, 1, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.blocks[0].best, 1);
	/* (78 - 52) / 52 = +50 %. */
	assert_float_equal(dec.blocks[0].gain_pct, 50, 1e-9);
	gs_decide_result_release(&dec);
	/*
	 * score: completion=1,useful=1. Baseline means: completion 100, useful
	 * 52. Baseline seeds: 1 + 52 / (50 + s), mean 2.0048; mig: 1.5 + 52 /
	 * (75 + 1.5 s) = 1.5 + 0.6667 x 52 / (50 + s), mean 2.1699: the
	 * baseline wins.
	 */
	assert_int_equal(gs_objective_parse("score:completion=1,useful=1", &o.objective, err,
					    sizeof(err)),
			 0);
	assert_int_equal(gs_decide(&in, 1, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.blocks[0].best, 0);
	{
		double want = 0;

		for (s = 0; s < NS; s++)
			want += 1 + 52.0 / (50 + s);
		assert_float_equal(row_of(&dec.blocks[0], 0)->mean, want / NS, 1e-12);
	}
	gs_decide_result_release(&dec);
}

/* Fills runs[0..n) from values v, NAN where a seed did not run. */
static void fill(struct gs_decide_run *runs, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		runs[i] = run(v[i], 0, 1, 1, 0, 0);
		runs[i].ran = !isnan(v[i]);
	}
}

/* Candidates that share two seeds are paired on them; sharing one, Welch's test. */
static void test_welch_when_unpaired(void **st)
{
	const struct gs_decide_cand cands[] = {
		{ "binpack", "exclusive", false }, { "binpack", "mig", false },
	};
	const double base1[] = { 100, 104, 102, NAN }, mig1[] = { NAN, 90, 97, 92 };
	const double base2[] = { NAN, 104, 100, 102 }, mig2[] = { 97, NAN, 90, NAN };
	const double b2[] = { 104, 100, 102 }, m2[] = { 97, 90 };
	struct gs_decide_run runs[2 * 4];
	struct gs_decide_input in = { runs, 4 };
	struct gs_decide_opts o = opts(0);
	struct gs_decide_result dec;
	double t, df, p;
	char err[256];

	(void)st;
	fill(runs, base1, 4);
	fill(runs + 4, mig1, 4);
	assert_int_equal(gs_decide(&in, 1, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(dec.blocks[0].best, 1);
	assert_int_equal(row_of(&dec.blocks[0], 0)->test, GS_TEST_PAIRED);
	assert_int_equal(row_of(&dec.blocks[0], 0)->n_pairs, 2);
	/* Seeds 1 and 2: differences 104 - 90 = 14 and 102 - 97 = 5 (baseline - best): mean 9.5. */
	assert_float_equal(row_of(&dec.blocks[0], 0)->diff, 9.5, 1e-12);
	gs_decide_result_release(&dec);
	fill(runs, base2, 4);
	fill(runs + 4, mig2, 4);
	assert_int_equal(gs_decide(&in, 1, cands, 2, &o, &dec, err, sizeof(err)), 0);
	assert_int_equal(row_of(&dec.blocks[0], 0)->test, GS_TEST_WELCH);
	assert_int_equal(row_of(&dec.blocks[0], 0)->n_pairs, 1);
	assert_int_equal(gs_welch(m2, 2, b2, 3, &t, &df, &p), 0);
	assert_float_equal(row_of(&dec.blocks[0], 0)->p, p, 1e-12);
	/* 102 - 93.5 */
	assert_float_equal(row_of(&dec.blocks[0], 0)->diff, 8.5, 1e-12);
	gs_decide_result_release(&dec);
}

/* The parsers: the forms a user writes, and what they refuse. */
static void test_parsers(void **st)
{
	struct gs_cond c;
	struct gs_objective o;
	char err[512], buf[128];

	(void)st;
	assert_int_equal(gs_cond_parse("p99 wait <= 60 s", &c, err, sizeof(err)), 0);
	assert_int_equal(c.metric, GS_METRIC_P99_WAIT);
	assert_int_equal(c.op, '<');
	assert_float_equal(c.value, 60, 0);
	assert_string_equal(gs_cond_format(&c, buf, sizeof(buf)), "p99-wait <= 60 s");
	assert_int_equal(gs_cond_parse("no pod waits longer than 10 min", &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.metric, GS_METRIC_MAX_WAIT);
	assert_float_equal(c.value, 600, 0);
	assert_int_equal(gs_cond_parse("P99-Slowdown<=10", &c, err, sizeof(err)), 0);
	assert_int_equal(c.metric, GS_METRIC_P99_SLOWDOWN);
	assert_int_equal(gs_cond_parse("useful >= 60%", &c, err, sizeof(err)), 0);
	assert_true(gs_cond_holds(&c, 60) && !gs_cond_holds(&c, 59.9));
	assert_int_equal(gs_cond_parse("mean completion at most 2 h", &c, err, sizeof(err)), 0);
	assert_int_equal(c.metric, GS_METRIC_COMPLETION);
	assert_float_equal(c.value, 7200, 0);
	assert_false(gs_cond_holds(&c, NAN));
	assert_int_equal(gs_cond_parse("p99 wiat <= 60 s", &c, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "'p99-wiat': no such metric"));
	assert_int_equal(gs_cond_parse("p99 wait <= 60 kg", &c, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "give s, min or h"));
	assert_int_equal(gs_cond_parse("p99 wait is short", &c, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_cond_parse("p99 wait <= -5 s", &c, err, sizeof(err)), GS_ERANGE);
	assert_non_null(strstr(err, "can never hold"));
	assert_int_equal(gs_cond_parse("no pod waits longer than -1 min", &c, err, sizeof(err)),
			 GS_ERANGE);
	assert_int_equal(gs_cond_parse("useful >= 120 %", &c, err, sizeof(err)), GS_ERANGE);
	assert_int_equal(gs_cond_parse("p99 wait < 0", &c, err, sizeof(err)), GS_ERANGE);
	/* Found by the criteria fuzz target: a finite count of days, no finite count of seconds. */
	assert_int_equal(gs_cond_parse("no pod waits over 1e308 d", &c, err, sizeof(err)), GS_ERANGE);
	assert_string_equal(err, "'1e308 d': too long a time to compare with");
	assert_int_equal(gs_objective_parse("p99-wait", &o, err, sizeof(err)), 0);
	assert_int_equal(o.metric, GS_METRIC_P99_WAIT);
	assert_int_equal(gs_objective_parse("fastest", &o, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "'fastest': no such objective"));
	assert_int_equal(gs_objective_parse("failed", &o, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_objective_parse("score:completion=2,useful=1", &o, err, sizeof(err)),
			 0);
	assert_true(o.score && o.n_terms == 2 && o.weight[0] == 2);
	assert_int_equal(gs_objective_parse("score:completion=-1", &o, err, sizeof(err)),
			 GS_EINVAL);
	assert_int_equal(gs_objective_parse("score:gpus=1", &o, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(gs_objective_parse("score:", &o, err, sizeof(err)), GS_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired_and_interval),
		cmocka_unit_test(test_winner_tie_and_unfinished),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_constraint),
		cmocka_unit_test(test_holm_across_blocks),
		cmocka_unit_test(test_objectives),
		cmocka_unit_test(test_welch_when_unpaired),
		cmocka_unit_test(test_parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
