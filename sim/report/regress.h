/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regress.h - the regression check of `gpusim regress`: compares the
 * results of a new set of runs with a baseline (both struct gs_rset, see
 * store/regress_data.h), prints what moved, and writes a Markdown report
 * with overlay figures.
 *
 * Matching. A baseline family matches the new family with the same mode,
 * file names, file checksums and parameters; runs match by policy and
 * seed. A new family with the same names and parameters but other
 * checksums is a change of inputs: it fails, since its results cannot be
 * compared (regenerate the baseline if the change was meant). A baseline
 * family with no new run fails (a warning with partial, for a CI that
 * lacks a trace), a policy of a matched family with no new run fails; new
 * families and policies the baseline lacks are warnings.
 *
 * Rules, per policy of a family and per metric:
 *   exact  when both sides ran the same seeds (the simulator is
 *          deterministic): every seed's value must be within a relative
 *          tolerance (1e-9) of the baseline's; any move fails, in either
 *          direction, because a change of results must come with a new
 *          baseline.
 *   stat   when the seed sets differ, or when asked for: Welch's t-test
 *          on the seed values of both sides (two-sided), with the p-values
 *          of all such tests corrected by Holm-Bonferroni to a family-wise
 *          error rate alpha (0.01). A move fails when it is significant
 *          and its size is at least min_effect (1 %) of the larger mean;
 *          significant smaller moves are shown, not failed. A side with
 *          fewer than 2 seeds cannot be tested: a warning.
 * A metric the baseline has and the new runs lack fails; a new metric is
 * a note. Speed (events per simulated second of wall time, and the
 * sweep's wall time) only warns when slower, and fails when more than
 * max_slowdown (2) times slower, for families whose baseline simulation
 * took at least min_speed_s (1 s): shorter ones are too noisy to judge.
 *
 * Ownership: struct gs_regress is caller-owned (gs_regress_release); it
 * borrows the two sets, which must outlive it.
 */
#ifndef GS_REGRESS_H
#define GS_REGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/regress_data.h"

enum gs_regress_rule { GS_REGRESS_AUTO, GS_REGRESS_EXACT, GS_REGRESS_STAT };

struct gs_regress_opts {
	enum gs_regress_rule rule;
	double tolerance;     /* exact: largest relative difference that is no move */
	double alpha;         /* stat: family-wise error rate (Holm-Bonferroni) */
	double min_effect;    /* stat: smallest relative move of the mean that fails */
	double max_slowdown;  /* speed: fail beyond this factor slower; 0 never fails */
	double min_speed_s;   /* speed: judge only families whose baseline simulation took this long */
	bool partial;         /* a baseline family with no new run warns instead of failing */
};

/* The defaults above: auto, 1e-9, 0.01, 0.01, 2, 1 s, not partial. */
void gs_regress_opts_init(struct gs_regress_opts *o);

/* Verdicts, in increasing order of concern. */
enum gs_verdict {
	GS_VERDICT_SAME,      /* no move at all */
	GS_VERDICT_OK,        /* moved, not significantly (stat) */
	GS_VERDICT_NOTE,      /* worth knowing, not a problem */
	GS_VERDICT_SMALL,     /* significant, below min_effect (stat) */
	GS_VERDICT_WARN,
	GS_VERDICT_FAIL,
};

/* "same", "ok", "note", "small", "warn", "FAIL". */
const char *gs_verdict_name(enum gs_verdict v);

/* One metric of one policy of one family. Strings point into the sets. */
struct gs_regress_row {
	const char *family, *policy, *metric;
	enum gs_regress_rule rule;   /* the rule applied: exact or stat */
	size_t n_base, n_now;        /* seeds with a value */
	double base_mean, now_mean;  /* NAN when a side has none */
	double base_sd, now_sd;      /* sample sd; 0 for one seed */
	size_t n_moved;              /* exact: seeds whose value moved */
	double max_rel;              /* exact: the largest relative difference */
	double t, df, p, p_holm;     /* stat; NAN where not tested */
	enum gs_verdict verdict;
	const char *note;            /* static text, or NULL */
};

/* A finding about families, runs or metrics rather than values. */
struct gs_regress_issue {
	enum gs_verdict verdict;
	const char *family;          /* points into a set */
	const char *what;            /* static: "not run", "changed inputs", ... */
	char *detail;                /* owned */
};

struct gs_regress_speed {
	const char *family;          /* points into a set; NULL for the total */
	double base_eps, now_eps;    /* simulated events per second of simulation */
	double base_sweep_s, now_sweep_s;  /* NAN when unknown */
	double eps_ratio;            /* now / base: below 1 is slower */
	double sweep_ratio;          /* now / base: above 1 is slower */
	enum gs_verdict verdict;
};

struct gs_regress {
	const struct gs_rset *base, *now;
	struct gs_regress_opts opts;
	struct gs_regress_row *rows;
	size_t n_rows, cap_rows;
	struct gs_regress_issue *issues;
	size_t n_issues, cap_issues;
	struct gs_regress_speed *speed;
	size_t n_speed, cap_speed;
	size_t *match;               /* per baseline family: the new family, or SIZE_MAX */
	size_t n_fail, n_warn;       /* rows, issues and speed rows with that verdict */
	size_t families, runs, values;  /* matched families, runs and values compared */
	size_t n_tests;              /* stat tests in the Holm correction */
};

/*
 * Compares now against base (both finished sets) into *out. Returns 0
 * (whatever the verdicts) or GS_ENOMEM with a message; *out is then
 * released.
 */
int gs_regress_compare(const struct gs_rset *base, const struct gs_rset *now,
		       const struct gs_regress_opts *o, struct gs_regress *out, char *err,
		       size_t err_len);

/* Frees what r holds (not the borrowed sets) and zeroes it; releasing twice is harmless. */
void gs_regress_release(struct gs_regress *r);

/*
 * Prints the table of what moved (rows at or above GS_VERDICT_SMALL, or
 * every row with all), the issues, the speed table and a one-line verdict
 * to f.
 */
void gs_regress_print(const struct gs_regress *r, FILE *f, bool all);

/*
 * Welch's t-test of samples a[0..na) and b[0..nb): t = (mean b - mean a)
 * / sqrt(var a / na + var b / nb) with sample variances, the
 * Welch-Satterthwaite degrees of freedom df, and the two-sided p-value
 * 2 Q(|t|; df). Both variances 0: t and df are NAN and p is 1 when the
 * means are equal, 0 when not. Returns 0, or GS_EINVAL (fewer than 2
 * values on a side; outputs untouched).
 */
int gs_welch(const double *a, size_t na, const double *b, size_t nb, double *t, double *df,
	     double *p);

/*
 * Holm-Bonferroni adjusted p-values of p[0..n) into adj[0..n): with the
 * p-values sorted ascending, the i-th (from 0) becomes max over j <= i of
 * min(1, (n - j) p_(j)). A test is rejected at family-wise level alpha
 * when adj <= alpha.
 */
int gs_holm(const double *p, size_t n, double *adj);

/* The index of name in list[0..n) (a struct gs_rset's policies or metrics), or SIZE_MAX. */
size_t gs_regress_find_name(char *const *list, size_t n, const char *name);

/*
 * Writes the report into out_dir (created if missing): report.md, the
 * data files of the figures under data/, and the figures through the
 * gnuplot scripts in scripts_dir (PNG, SVG and PDF): unalloc_FAMILY
 * (figure 9a of Weng et al., ATC 2023, baseline against now) for every
 * inflate family with curves, bars_inflate (unallocated GPU % at arrived
 * 100 % per family and policy, mean and sd over seeds), wait_cdf_FAMILY
 * and completion_cdf_FAMILY for every time family with curves. base_name
 * and now_name say in the report where each side came from. Lists the
 * files written on log (may be NULL). A figure gnuplot cannot draw (no
 * gnuplot, say) is left out with a note in the report and in
 * *figure_note (may be NULL; empty when none). A CDF with every pod at
 * 0 s, which a log axis cannot show, is left out too and named in the
 * report only: the same on every run of a baseline, it is not news.
 * Returns 0, or GS_EIO / GS_ENOMEM with a message when the report itself
 * cannot be written.
 */
int gs_regress_report(const struct gs_regress *r, const char *base_name, const char *now_name,
		      const char *out_dir, const char *scripts_dir, FILE *log,
		      char *figure_note, size_t note_len, char *err, size_t err_len);

#endif
