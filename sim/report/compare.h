/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare.h - two policies of one results database, workload by workload,
 * with the statistics of the regression check (report/regress.h): per
 * family of runs (same trace, cluster, mode and options) Welch's t-test
 * on the seed values of one metric, the p-values corrected by
 * Holm-Bonferroni over the families, and a verdict per family. Lower is
 * better for the metrics it is made for (unallocated GPU %, waits).
 *
 * Ownership: struct gs_compare is caller-owned (_release); it borrows the
 * set it was computed from for the family names only while printing.
 */
#ifndef GS_COMPARE_H
#define GS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/regress_data.h"

enum gs_compare_verdict {
	GS_COMPARE_SAME = 0,   /* no significant difference at the family-wise alpha */
	GS_COMPARE_BETTER,     /* b's values significantly lower */
	GS_COMPARE_WORSE,      /* b's values significantly higher */
	GS_COMPARE_UNTESTED,   /* fewer than two seeds on a side */
};

struct gs_compare_row {
	size_t family;         /* index into the set's families */
	size_t na, nb;         /* seeds of a and of b */
	double mean_a, sd_a, mean_b, sd_b;
	double change_pct;     /* 100 (mean b - mean a) / mean a; NAN when mean a is 0 */
	double t, df, p, p_holm;
	enum gs_compare_verdict verdict;
};

struct gs_compare {
	struct gs_compare_row *rows;
	size_t n_rows;
	size_t n_tests;        /* rows in the Holm correction */
	double alpha;
	size_t better, worse, same, untested;
};

/*
 * Compares policy b with policy a on metric (a gs_rset metric name, e.g.
 * "unalloc_gpu_pct") in every family of the finished set s that has runs
 * of both, at family-wise error rate alpha. Returns 0, GS_ENOENT (no
 * family has both, or no such metric; err says which) or GS_ENOMEM.
 */
int gs_compare_policies(const struct gs_rset *s, const char *a, const char *b, const char *metric,
			double alpha, struct gs_compare *out, char *err, size_t err_len);

/* Prints the table, one line per family, and a summary line, to f. */
void gs_compare_print(const struct gs_compare *c, const struct gs_rset *s, const char *a,
		      const char *b, const char *metric, FILE *f);

/* Frees the rows and zeroes c. */
void gs_compare_release(struct gs_compare *c);

#endif
