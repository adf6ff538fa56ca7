/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_metrics.c - the time-mode figures computed from the events
 * (engine/metrics.h) on traces small enough to work out by hand: waits,
 * completion times, bounded slowdowns, nearest-rank percentiles, the
 * pending queue, the allocation windows, fragmentation; and that a
 * --max-wait that fails no pod and the sampling options change none of
 * them; and that the sort behind the percentiles orders as qsort() does.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "core/rng.h"
#include "engine/metrics.h"
#include "engine/replay.h"
#include "testutil.h"

#define assert_near(got, want)                                                        \
	do {                                                                          \
		double g_ = (got), w_ = (want);                                       \
		if (!(fabs(g_ - w_) <= 1e-9 * (1 + fabs(w_))))                        \
			fail_msg("%s = %.12g, expected %.12g", #got, g_, w_);         \
	} while (0)

/* A pod of one GPU share arriving at t and running for d seconds (d < 0: never leaves). */
static void add(struct gs_trace *t, const char *name, int32_t milli, int64_t at, int64_t d)
{
	struct gs_pod p = tu_pod(1000, 1024, milli ? 1 : 0, milli);

	p.t_create_s = at;
	p.t_delete_s = d < 0 ? -1 : at + d;
	assert_int_equal(gs_trace_append(t, name, &p), 0);
}

static void one_gpu_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_cluster_add_node(c, "n0", 32000, 65536, 1, "T4"), 0);
}

static struct gs_replay_opts time_opts(void)
{
	struct gs_replay_opts o;

	gs_replay_opts_init(&o);
	o.check = true;
	return o;
}

static void run(struct gs_sim *sim, const struct gs_cluster *c, const struct gs_trace *t,
		const char *policy, const struct gs_replay_opts *o)
{
	char err[256] = "";

	assert_int_equal(gs_sim_init(sim, c, t, gs_policy_find(policy), o, err, sizeof(err)), 0);
	assert_int_equal(gs_sim_run(sim, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* The trace of test_replay: A (1000, 0..100), B (500, from 10 for 50 s), C (500, from 20 for 10 s). */
static void abc_trace(struct gs_trace *t)
{
	gs_trace_init(t);
	add(t, "A", 1000, 0, 100);
	add(t, "B", 500, 10, 50);
	add(t, "C", 500, 20, 10);
}

/* --- percentiles ----------------------------------------------------------- */

/* Nearest rank: rank ceil(p * n / 100), counting from 1. */
static void test_percentile_nearest_rank(void **state)
{
	double v[200];
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++)
		v[i] = (double)(i + 1);    /* 1, 2, ..., 200 */
	assert_true(isnan(gs_percentile_sorted(v, 0, 50)));
	/* One value is every percentile. */
	assert_near(gs_percentile_sorted(v, 1, 50), 1);
	assert_near(gs_percentile_sorted(v, 1, 99), 1);
	/* Ten values: p50 is rank 5, p90 rank 9, p99 rank ceil(9.9) = 10. */
	assert_near(gs_percentile_sorted(v, 10, 50), 5);
	assert_near(gs_percentile_sorted(v, 10, 90), 9);
	assert_near(gs_percentile_sorted(v, 10, 99), 10);
	/* Three values: p50 is rank ceil(1.5) = 2. */
	assert_near(gs_percentile_sorted(v, 3, 50), 2);
	/* 100 values: p99 is rank 99, not the maximum; 200: rank 198. */
	assert_near(gs_percentile_sorted(v, 100, 99), 99);
	assert_near(gs_percentile_sorted(v, 200, 99), 198);
	assert_near(gs_percentile_sorted(v, 200, 100), 200);
}

/* --- one run worked out by hand ------------------------------------------------ */

/*
 * One T4. A holds the GPU 0..100; B (arrived 10) and C (arrived 20) wait
 * and start at 100; C ends at 110, B at 150.
 *   waits        A 0, B 90, C 80: sorted 0, 80, 90; mean 56.67, p50 (rank
 *                2) 80, p90 = p99 = max (rank 3) 90
 *   completion   A 100, B 140, C 90: sorted 90, 100, 140; mean 110,
 *                p50 100, p90 = p99 = max 140
 *   slowdown     A 100/100 = 1, B 140/50 = 2.8, C 90/max(10, 10) = 9:
 *                mean 4.267, p99 9
 *   pending      1 pod over 10..20, 2 over 20..100: 170 pod-s (= the sum
 *                of the waits) over the makespan 0..150, 1.133; peak 2
 *   allocation   arrival window 0..20: 1000 of 1000, 100 %; busy 0..150:
 *                (1000 x 110 + 500 x 40) / 150 = 866.7, 86.67 %
 *   offered      window W = 20: 1000 x 20 + 500 x 20 + 500 x 10 = 35000
 *                over 1000 x 20: 175 %
 */
static void test_hand_worked_run(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	const struct gs_time_metrics *m;
	struct gs_summary s;

	(void)state;
	one_gpu_cluster(&c);
	abc_trace(&t);
	run(&sim, &c, &t, "binpack", &o);
	m = &sim.tm;
	assert_true(m->valid);
	assert_int_equal(m->t_first_arrival_s, 0);
	assert_int_equal(m->t_last_arrival_s, 20);
	assert_int_equal(m->t_end_s, 150);
	assert_int_equal(m->makespan_s, 150);
	assert_int_equal(m->busy_s, 150);
	assert_int_equal(m->n_waits, 3);
	assert_near(m->wait_mean_s, 170.0 / 3);
	assert_near(m->wait_p50_s, 80);
	assert_near(m->wait_p90_s, 90);
	assert_near(m->wait_p99_s, 90);
	assert_near(m->wait_max_s, 90);
	assert_int_equal(m->n_completed, 3);
	assert_near(m->completion_mean_s, 110);
	assert_near(m->completion_p50_s, 100);
	assert_near(m->completion_p90_s, 140);
	assert_near(m->completion_p99_s, 140);
	assert_near(m->completion_max_s, 140);
	assert_near(m->slowdown_mean, (1 + 2.8 + 9) / 3);
	assert_near(m->slowdown_p99, 9);
	assert_near(m->pending_avg, 170.0 / 150);
	assert_int_equal(m->pending_peak, 2);
	assert_near(m->gpu_alloc_arrival_pct, 100);
	assert_near(m->gpu_alloc_busy_pct, 100.0 * 130000 / 150 / 1000);
	assert_near(m->gpu_alloc_peak_pct, 100);
	assert_true(isnan(m->frag_avg_pct));
	assert_int_equal(m->n_timed_out, 0);
	assert_near(m->offered_load_pct, 175);

	/* The summary carries them, and its mean wait agrees. */
	gs_sim_summarize(&sim, &s);
	assert_near(s.mean_wait_s, m->wait_mean_s);
	assert_near(s.tm.wait_p99_s, 90);
	assert_int_equal(s.peak_pending, 2);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * Idle gaps and a pod that never leaves. Two T4s (2000 milli), first-fit:
 *   X 1000 at 0 for 10 s (GPU 0); Y 500 at 30 for 20 s (GPU 0); Z 1000 at
 *   40, never leaves (GPU 1).
 * Nothing waits. Allocated: 1000 over 0..10, 0 over 10..30, 500 over
 * 30..40, 1500 over 40..50, then 1000 for ever. The run ends at Y's
 * departure, 50; the busy time is 0..10 and 30..50, 30 s.
 *   arrival window 0..40: 1000 x 10 + 500 x 10 = 15000 / 40 / 2000 = 18.75 %
 *   busy time: 15000 + 1500 x 10 = 30000 / 30 / 2000 = 50 %
 *   peak 1500, 75 %; completion X 10, Y 20 (Z never completes), slowdowns 1
 */
static void test_gaps_and_never_leaving(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	const struct gs_time_metrics *m;

	(void)state;
	gs_cluster_init(&c);
	assert_int_equal(gs_cluster_add_node(&c, "n0", 32000, 65536, 2, "T4"), 0);
	gs_trace_init(&t);
	add(&t, "X", 1000, 0, 10);
	add(&t, "Y", 500, 30, 20);
	add(&t, "Z", 1000, 40, -1);
	run(&sim, &c, &t, "first-fit", &o);
	m = &sim.tm;
	assert_int_equal(m->t_last_arrival_s, 40);
	assert_int_equal(m->t_end_s, 50);
	assert_int_equal(m->makespan_s, 50);
	assert_int_equal(m->busy_s, 30);
	assert_int_equal(m->n_waits, 3);
	assert_near(m->wait_max_s, 0);
	assert_int_equal(m->n_completed, 2);
	assert_near(m->completion_mean_s, 15);
	assert_near(m->completion_p50_s, 10);
	assert_near(m->completion_max_s, 20);
	assert_near(m->slowdown_mean, 1);
	assert_near(m->gpu_alloc_arrival_pct, 100.0 * 15000 / 40 / 2000);
	assert_near(m->gpu_alloc_busy_pct, 100.0 * 30000 / 30 / 2000);
	/* Z's 1000 milli plus Y's 500 held from 40 to 50; after 50 Z alone. */
	assert_near(m->gpu_alloc_peak_pct, 75);
	assert_near(m->pending_avg, 0);
	/* W = 40: X 1000 x 10, Y 500 x 20, Z (never leaves) 1000 x 40: 60000 / 80000. */
	assert_near(m->offered_load_pct, 75);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * With --max-wait 85, B (arrived 10) gives up at 95, before A leaves at
 * 100; C (arrived 20, its limit 105) starts at 100 and ends at 110, and
 * its timeout at 105 finds it running. The run ends at 110, not at the
 * unused timeout. Waits A 0, C 80; B counts as timed out, not as a wait.
 * Pending: 1 pod over 10..20, 2 over 20..95, 1 over 95..100 = 165 pod-s.
 */
static void test_timeout_counts(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	const struct gs_time_metrics *m;

	(void)state;
	one_gpu_cluster(&c);
	abc_trace(&t);
	o.max_wait_s = 85;
	run(&sim, &c, &t, "binpack", &o);
	m = &sim.tm;
	assert_int_equal(sim.out[1].state, GS_POD_FAILED);
	assert_int_equal(sim.out[2].state, GS_POD_DONE);
	assert_int_equal(m->n_timed_out, 1);
	assert_int_equal(m->n_waits, 2);
	assert_near(m->wait_mean_s, 40);
	assert_near(m->wait_max_s, 80);
	assert_int_equal(m->n_completed, 2);   /* A and C */
	assert_near(m->completion_max_s, 100);  /* A 100, C 90 */
	assert_int_equal(m->t_end_s, 110);
	assert_near(m->pending_avg, 165.0 / 110);
	assert_int_equal(m->pending_peak, 2);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* --- invariance ------------------------------------------------------------- */

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Every figure of two runs' struct gs_time_metrics, field by field. */
static void assert_same_metrics(const struct gs_time_metrics *a, const struct gs_time_metrics *b,
				const char *what)
{
	const double da[] = {
		a->wait_mean_s, a->wait_p50_s, a->wait_p90_s, a->wait_p99_s, a->wait_max_s,
		a->completion_mean_s, a->completion_p50_s, a->completion_p90_s,
		a->completion_p99_s, a->completion_max_s, a->slowdown_mean, a->slowdown_p99,
		a->pending_avg, a->gpu_alloc_arrival_pct, a->gpu_alloc_busy_pct,
		a->gpu_alloc_peak_pct, a->frag_avg_pct, a->offered_load_pct,
	};
	const double db[] = {
		b->wait_mean_s, b->wait_p50_s, b->wait_p90_s, b->wait_p99_s, b->wait_max_s,
		b->completion_mean_s, b->completion_p50_s, b->completion_p90_s,
		b->completion_p99_s, b->completion_max_s, b->slowdown_mean, b->slowdown_p99,
		b->pending_avg, b->gpu_alloc_arrival_pct, b->gpu_alloc_busy_pct,
		b->gpu_alloc_peak_pct, b->frag_avg_pct, b->offered_load_pct,
	};
	const int64_t ia[] = { a->valid, a->t_first_arrival_s, a->t_last_arrival_s, a->t_end_s,
			       a->makespan_s, a->busy_s, a->n_waits, a->n_completed,
			       a->pending_peak, a->n_timed_out };
	const int64_t ib[] = { b->valid, b->t_first_arrival_s, b->t_last_arrival_s, b->t_end_s,
			       b->makespan_s, b->busy_s, b->n_waits, b->n_completed,
			       b->pending_peak, b->n_timed_out };
	size_t i;

	for (i = 0; i < sizeof(da) / sizeof(da[0]); i++)
		if (!same_double(da[i], db[i]))
			fail_msg("%s: figure %zu is %.12g, not %.12g", what, i, db[i], da[i]);
	for (i = 0; i < sizeof(ia) / sizeof(ia[0]); i++)
		if (ia[i] != ib[i])
			fail_msg("%s: count %zu is %lld, not %lld", what, i, (long long)ib[i],
				 (long long)ia[i]);
}

/* The summary figures that come from the events, likewise. */
static void assert_same_summary(const struct gs_summary *a, const struct gs_summary *b,
				const char *what)
{
	if (!same_double(a->gpu_alloc_pct, b->gpu_alloc_pct) ||
	    !same_double(a->unalloc_gpu_pct, b->unalloc_gpu_pct) ||
	    !same_double(a->peak_gpu_alloc_pct, b->peak_gpu_alloc_pct) ||
	    !same_double(a->mean_wait_s, b->mean_wait_s) || a->peak_pending != b->peak_pending ||
	    a->placed != b->placed || a->failed != b->failed)
		fail_msg("%s: the summary changed", what);
	assert_same_metrics(&a->tm, &b->tm, what);
}

/* A busy random trace on a small cluster, so the queue is long and many pods wait. */
static void random_trace(struct gs_trace *t, uint64_t seed, size_t n)
{
	static const int32_t share[] = { 0, 100, 250, 500, 1000, 1000 };
	struct gs_rng r;
	size_t i;

	gs_trace_init(t);
	gs_rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "p%zu", i);
		add(t, name, share[gs_rng_below(&r, 6)], (int64_t)(i * 7 + gs_rng_below(&r, 5)),
		    (int64_t)gs_rng_below(&r, 400));
	}
}

static void small_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	gs_cluster_add_node(c, "n0", 16000, 65536, 2, "T4");
	gs_cluster_add_node(c, "n1", 32000, 131072, 4, "T4");
	gs_cluster_add_node(c, "n2", 8000, 32768, 1, "V100M16");
}

/*
 * The sampling options and a --max-wait longer than any wait change no
 * figure: not the makespan (the unused timeouts come after the last
 * departure), not the averages, not the peaks. With and without
 * fragmentation, for three policies.
 */
static void test_options_change_nothing(void **state)
{
	const char *const pols[] = { "binpack", "spread", "fgd" };
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim base, other;
	struct gs_summary sb, so;
	size_t p;
	int frag;

	(void)state;
	small_cluster(&c);
	random_trace(&t, 11, 600);
	for (frag = 0; frag < 2; frag++) {
		for (p = 0; p < 3; p++) {
			struct gs_replay_opts o = time_opts();
			char what[64];

			o.frag = frag;
			run(&base, &c, &t, pols[p], &o);
			gs_sim_summarize(&base, &sb);
			assert_true(base.tm.wait_max_s > 100);   /* the queue was busy */
			assert_true(frag ? !isnan(base.tm.frag_avg_pct) : isnan(base.tm.frag_avg_pct));

			/* No pod waits more than wait_max_s: a longer limit fails none. */
			o.max_wait_s = (int64_t)base.tm.wait_max_s + 1;
			run(&other, &c, &t, pols[p], &o);
			assert_int_equal(other.stats.failed, 0);
			assert_true(other.stats.events > base.stats.events);  /* the timeouts ran */
			gs_sim_summarize(&other, &so);
			snprintf(what, sizeof(what), "%s, frag %d, max-wait", pols[p], frag);
			assert_same_summary(&sb, &so, what);
			gs_sim_release(&other);

			o.max_wait_s = -1;
			o.sample_every = 7;
			o.sample_interval_s = 13;
			run(&other, &c, &t, pols[p], &o);
			gs_sim_summarize(&other, &so);
			snprintf(what, sizeof(what), "%s, frag %d, sampling", pols[p], frag);
			assert_same_summary(&sb, &so, what);
			gs_sim_release(&other);

			o.sample_every = 1000000;
			o.sample_interval_s = 0;
			run(&other, &c, &t, pols[p], &o);
			gs_sim_summarize(&other, &so);
			snprintf(what, sizeof(what), "%s, frag %d, one sample", pols[p], frag);
			assert_same_summary(&sb, &so, what);
			gs_sim_release(&other);
			gs_sim_release(&base);
		}
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/*
 * The pending queue's integral is the sum of the waits (Little's law) when
 * no pod gives up and none is left waiting, and the allocation integral
 * over the busy time is every placed pod's request x duration.
 */
static void test_integrals_agree_with_pods(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	double waits = 0, work = 0;
	size_t i;

	(void)state;
	small_cluster(&c);
	random_trace(&t, 5, 400);
	run(&sim, &c, &t, "first-fit", &o);
	for (i = 0; i < sim.n_pods; i++) {
		assert_int_equal(sim.out[i].state, GS_POD_DONE);
		waits += (double)(sim.out[i].t_start_s - sim.out[i].t_arrive_s);
		work += (double)gs_pod_gpu_milli(&sim.pods[i]) *
			(double)(sim.out[i].t_end_s - sim.out[i].t_start_s);
	}
	assert_near(sim.tm.pending_avg * (double)sim.tm.makespan_s, waits);
	assert_near(sim.tm.wait_mean_s, waits / (double)sim.n_pods);
	assert_near(sim.tm.gpu_alloc_busy_pct * (double)sim.tm.busy_s * (double)c.gpu_milli / 100,
		    work);
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Inflate mode has no clock: no event figures. */
static void test_inflate_has_none(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	struct gs_replay_opts o = time_opts();
	struct gs_summary s;

	(void)state;
	small_cluster(&c);
	random_trace(&t, 3, 10);
	o.mode = GS_MODE_INFLATE;
	run(&sim, &c, &t, "binpack", &o);
	gs_sim_summarize(&sim, &s);
	assert_false(s.tm.valid);
	assert_true(isnan(s.tm.wait_p99_s));
	gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Pods for test_sorted_like_qsort: waits and stays from a few seconds to months, shuffled. */
struct spread_pods {
	struct gs_metrics_pod *p;
};

static void spread_pod(const void *arg, size_t i, struct gs_metrics_pod *out)
{
	*out = ((const struct spread_pods *)arg)->p[i];
}

static int cmp_sorted(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Mean, p50, p90, p99 and max as the figures define them, from a qsort()ed copy. */
static void expect_described(double *v, size_t n, double want[5])
{
	double sum = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_sorted);
	for (i = 0; i < n; i++)
		sum += v[i];
	want[0] = sum / (double)n;
	want[1] = gs_percentile_sorted(v, n, 50);
	want[2] = gs_percentile_sorted(v, n, 90);
	want[3] = gs_percentile_sorted(v, n, 99);
	want[4] = v[n - 1];
}

/*
 * The figures sort the waits, completions and slowdowns with a radix sort
 * of their bits: on 50,000 pods whose times span eight orders of
 * magnitude (so that every byte of the keys differs somewhere), in no
 * order, the mean (summed in sorted order) and the percentiles are the
 * ones a qsort() gives, to the bit.
 */
static void test_sorted_like_qsort(void **state)
{
	enum { N = 50000 };
	struct gs_metrics_pod *p = calloc(N, sizeof(*p));
	double *wait = calloc(N, sizeof(*wait)), *compl = calloc(N, sizeof(*compl));
	double *slow = calloc(N, sizeof(*slow)), w[5], c[5], s[5];
	struct spread_pods sp = { p };
	struct gs_time_metrics out;
	struct gs_metrics m;
	struct gs_rng rng;
	size_t i;

	(void)state;
	assert_non_null(p);
	assert_non_null(wait);
	assert_non_null(compl);
	assert_non_null(slow);
	gs_rng_seed(&rng, 27);
	for (i = 0; i < N; i++) {
		int64_t scale = (int64_t)1 << gs_rng_below(&rng, 27);

		p[i].arrive_s = (int64_t)gs_rng_below(&rng, 1000000);
		p[i].start_s = p[i].arrive_s + (int64_t)gs_rng_below(&rng, (uint64_t)scale);
		p[i].duration_s = (int64_t)gs_rng_below(&rng, (uint64_t)scale) + 1;
		p[i].end_s = p[i].start_s + p[i].duration_s;
		p[i].departed = true;
		wait[i] = (double)(p[i].start_s - p[i].arrive_s);
		compl[i] = (double)(p[i].end_s - p[i].arrive_s);
		slow[i] = compl[i] / (double)(p[i].duration_s > GS_SLOWDOWN_MIN_S ?
							p[i].duration_s : GS_SLOWDOWN_MIN_S);
	}
	gs_metrics_init(&m, 1000, false);
	m.t_first_arrival = m.t_last_arrival = m.t_last = 0;
	assert_int_equal(gs_metrics_finish(&m, N, spread_pod, &sp, 100, &out), 0);
	expect_described(wait, N, w);
	expect_described(compl, N, c);
	expect_described(slow, N, s);
	assert_true(w[4] > 1e6 && w[1] < w[3]);
	{
		const double *got[] = { &out.wait_mean_s, &out.wait_p50_s, &out.wait_p90_s,
					&out.wait_p99_s, &out.wait_max_s, &out.completion_mean_s,
					&out.completion_p50_s, &out.completion_p90_s,
					&out.completion_p99_s, &out.completion_max_s,
					&out.slowdown_mean, &out.slowdown_p99 };
		const double *want[] = { &w[0], &w[1], &w[2], &w[3], &w[4], &c[0],
					 &c[1], &c[2], &c[3], &c[4], &s[0], &s[3] };

		for (i = 0; i < sizeof(got) / sizeof(got[0]); i++)
			assert_memory_equal(got[i], want[i], sizeof(double));
	}
	free(p);
	free(wait);
	free(compl);
	free(slow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_hand_worked_run),
		cmocka_unit_test(test_gaps_and_never_leaving),
		cmocka_unit_test(test_timeout_counts),
		cmocka_unit_test(test_options_change_nothing),
		cmocka_unit_test(test_integrals_agree_with_pods),
		cmocka_unit_test(test_inflate_has_none),
		cmocka_unit_test(test_sorted_like_qsort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
