/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decide.h - the statistics behind `gpusim advise`'s verdict: from the
 * figures of every candidate's runs over seeds, in blocks (one trace at
 * one load), which candidate is best, by how much against a baseline,
 * which candidates cannot be told from it, and why the others lost.
 *
 * The rules, per block:
 *   unfinished  a pod that fails or never starts counts as never
 *               completing (an infinite completion time). At each seed,
 *               the fewest such pods any real candidate leaves is the
 *               floor (pods no candidate can run: larger than any node);
 *               a candidate above the floor at any seed is out, whatever
 *               its other figures ("fails 293 pods on GPU memory that
 *               another candidate runs"). Reference candidates (ideal:
 *               sharing at no cost) set no floor and are never chosen.
 *   constraints each condition (report/criteria.h) on the mean over
 *               seeds of the candidate's runs; a candidate that breaks
 *               one is out.
 *   objective   per run: the metric, or the weighted score against the
 *               baseline's means; per candidate the mean over its seeds
 *               and a confidence interval (Student's t, conf level).
 *   best        the candidate still in with the best mean.
 *   tests       the best against every other candidate still in, and
 *               against the baseline: a paired t-test over the seeds both
 *               ran when they share two or more (runs with one seed share
 *               their arrivals: --load draws them from the seed, and the
 *               policies' random choices use a stream of their own),
 *               Welch's t-test (report/regress.h) otherwise; the p-values
 *               of every test of every block corrected together by Holm
 *               (gs_holm). A candidate whose corrected p is above alpha
 *               ties with the best.
 *   gain        the baseline's mean against the best's, in percent of the
 *               baseline's, with the interval of the paired (or Welch)
 *               mean difference over the baseline's mean.
 *   more seeds  a block whose best has a tie wants more seeds for the
 *               best and its ties (gs_decide_block.more_seeds): the caller
 *               runs them, up to its cap, and decides again.
 *
 * Ownership: the input arrays are the caller's and only read; struct
 * gs_decide_result is caller-owned (gs_decide_result_release) and owns its
 * arrays.
 */
#ifndef GS_DECIDE_H
#define GS_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/criteria.h"
#include "run/outcome.h"

/* One run of one candidate at one seed: its figures, or none. */
struct gs_decide_run {
	bool ran;                    /* false: this candidate has no run at this seed */
	double fig[GS_N_FIGS];       /* run/outcome.h */
	double gpus;                 /* GPUs needed (capacity search); NAN when not searched */
};

/* The candidates of every block, in the same order. */
struct gs_decide_cand {
	const char *policy;
	const char *sharing;         /* the mechanism's spec */
	bool reference;              /* shown, never chosen, sets no floor (ideal) */
};

/* What the candidates of one block ran: [cand * n_seeds + seed]. */
struct gs_decide_input {
	const struct gs_decide_run *runs;
	size_t n_seeds;
};

struct gs_decide_opts {
	struct gs_objective objective;
	const struct gs_cond *conds;
	size_t n_conds;
	size_t baseline;             /* index of the baseline candidate */
	double alpha;                /* family-wise error rate of the Holm correction */
	double conf;                 /* confidence level of the intervals, e.g. 0.95 */
};

/* Why a candidate is out. */
enum gs_decide_out {
	GS_DECIDE_IN = 0,
	GS_DECIDE_NO_RUNS,           /* no run at all */
	GS_DECIDE_UNFINISHED,        /* left pods unfinished that another candidate ran */
	GS_DECIDE_CONSTRAINT,        /* broke a condition */
	GS_DECIDE_REFERENCE,         /* a reference line, never chosen */
};

/* How a candidate was compared with the best. */
enum gs_decide_test {
	GS_TEST_NONE = 0,            /* not compared (the best itself, or out) */
	GS_TEST_PAIRED,              /* paired t-test on the shared seeds */
	GS_TEST_WELCH,               /* Welch's t-test */
	GS_TEST_FEW,                 /* too few seeds to test: a tie by default */
};

/* "paired", "welch", "too few seeds", "" */
const char *gs_decide_test_name(enum gs_decide_test t);

/* One candidate in one block. */
struct gs_decide_row {
	size_t cand;
	size_t n;                    /* seeds with a run */
	double mean, lo, hi;         /* the objective over them; lo/hi NAN under 2 seeds */
	double fig_mean[GS_N_FIGS];  /* each figure's mean over the seeds (NAN where none) */
	double gpus_mean, gpus_max;  /* the GPUs needed, NAN when not searched */
	enum gs_decide_out out;
	/* GS_DECIDE_UNFINISHED: pods above the floor, fewest and most over the seeds. */
	double excess_min, excess_max;
	size_t cond;                 /* GS_DECIDE_CONSTRAINT: the first broken condition */
	double cond_value;           /* its mean */
	/* Against the best (candidates still in). */
	enum gs_decide_test test;
	size_t n_pairs;              /* seeds shared, for a paired test */
	double p, p_holm;            /* NAN where not tested */
	double diff, diff_lo, diff_hi;  /* this - best, mean and interval; NAN where not known */
	bool tie;                    /* not separated from the best */
	size_t rank;                 /* 0 the best; order of the rows below */
};

/* One block's verdict. */
struct gs_decide_block {
	struct gs_decide_row *rows;  /* n_cands rows: in first, by mean, then out, then references */
	size_t n_rows;
	size_t best;                 /* candidate index; SIZE_MAX when every candidate is out */
	size_t n_ties;               /* rows tied with the best */
	bool separated;              /* the best's runner-up (if any) differs significantly */
	bool more_seeds;             /* the best has a tie: more seeds could separate them */
	/* The baseline against the best. */
	double base_mean;
	enum gs_decide_test gain_test;
	double gain_pct, gain_lo, gain_hi;   /* (best - baseline) / baseline, %; NAN when not known */
	double gain_p, gain_p_holm;
	bool gain_significant;
};

struct gs_decide_result {
	struct gs_decide_block *blocks;
	size_t n_blocks;
	size_t n_tests;              /* p-values in the Holm correction */
};

/*
 * Decides every block (see above): in[b] holds block b's runs of the n
 * candidates cands. Returns 0 and fills *out, or GS_EINVAL (a baseline or
 * objective that makes no sense: a reference baseline, gpus without any
 * GPUs searched) or GS_ENOMEM with a message in err.
 */
int gs_decide(const struct gs_decide_input *in, size_t n_blocks,
	      const struct gs_decide_cand *cands, size_t n_cands,
	      const struct gs_decide_opts *o, struct gs_decide_result *out, char *err,
	      size_t err_len);

/* Frees what gs_decide() put in *d and zeroes it; safe on a zeroed struct. */
void gs_decide_result_release(struct gs_decide_result *d);

/*
 * The paired t-test of the differences b[i] - a[i], i < n: t = mean /
 * (sd / sqrt(n)), n - 1 degrees of freedom, two-sided p. Every difference
 * equal: p is 1 when they are 0, else 0 (t and df NAN). Returns 0, or
 * GS_EINVAL for fewer than 2 pairs.
 */
int gs_decide_paired_t(const double *a, const double *b, size_t n, double *t, double *df, double *p);

/*
 * The two-sided interval at level conf of the mean of x[0..n): mean +-
 * t(conf, n - 1) sd / sqrt(n). Under 2 values lo and hi are NAN.
 */
void gs_decide_mean_ci(const double *x, size_t n, double conf, double *mean, double *lo, double *hi);

#endif
