/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare.c - two policies workload by workload (report/compare.h), with
 * the regression check's Welch test and Holm correction (report/regress.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "report/compare.h"
#include "report/regress.h"

void gs_compare_release(struct gs_compare *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

/* The values of metric m for policy p in family f, into v (room for every run); their count. */
static size_t collect(const struct gs_rset *s, size_t f, size_t p, size_t m, double *v)
{
	size_t r, n = 0;

	for (r = 0; r < s->n_runs; r++) {
		const struct gs_rvalue *x;

		if (s->runs[r].family != f || s->runs[r].policy != p)
			continue;
		x = gs_rset_find_value(s, r, m);
		if (x && !isnan(x->value))
			v[n++] = x->value;
	}
	return n;
}

int gs_compare_policies(const struct gs_rset *s, const char *a, const char *b, const char *metric,
			double alpha, struct gs_compare *out, char *err, size_t err_len)
{
	size_t pa = gs_regress_find_name(s->policies, s->n_policies, a);
	size_t pb = gs_regress_find_name(s->policies, s->n_policies, b);
	size_t m = gs_regress_find_name(s->metrics, s->n_metrics, metric), f, i;
	double *va = NULL, *vb = NULL, *p = NULL, *adj = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->alpha = alpha;
	if (m == SIZE_MAX) {
		gs_errf(err, err_len, "no run has the metric '%s'", metric);
		return GS_ENOENT;
	}
	if (pa == SIZE_MAX || pb == SIZE_MAX) {
		gs_errf(err, err_len, "no run of policy '%s'", pa == SIZE_MAX ? a : b);
		return GS_ENOENT;
	}
	va = malloc((s->n_runs + 1) * sizeof(*va));
	vb = malloc((s->n_runs + 1) * sizeof(*vb));
	out->rows = calloc(s->n_families + 1, sizeof(*out->rows));
	p = malloc((s->n_families + 1) * sizeof(*p));
	adj = malloc((s->n_families + 1) * sizeof(*adj));
	if (!va || !vb || !out->rows || !p || !adj) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (f = 0; f < s->n_families; f++) {
		struct gs_compare_row *row = &out->rows[out->n_rows];

		row->na = collect(s, f, pa, m, va);
		row->nb = collect(s, f, pb, m, vb);
		if (!row->na || !row->nb)
			continue;
		row->family = f;
		row->mean_a = gsl_stats_mean(va, 1, row->na);
		row->mean_b = gsl_stats_mean(vb, 1, row->nb);
		row->sd_a = row->na > 1 ? gsl_stats_sd(va, 1, row->na) : 0;
		row->sd_b = row->nb > 1 ? gsl_stats_sd(vb, 1, row->nb) : 0;
		row->change_pct = row->mean_a != 0 ? 100.0 * (row->mean_b - row->mean_a) / row->mean_a
						    : NAN;
		row->t = row->df = row->p = row->p_holm = NAN;
		if (gs_welch(va, row->na, vb, row->nb, &row->t, &row->df, &row->p))
			row->verdict = GS_COMPARE_UNTESTED;
		else
			p[out->n_tests++] = row->p;
		out->n_rows++;
	}
	if (out->n_rows == 0) {
		gs_errf(err, err_len, "no workload has runs of both %s and %s", a, b);
		rc = GS_ENOENT;
		goto out;
	}
	rc = gs_holm(p, out->n_tests, adj);
	if (rc)
		goto out;
	for (i = 0, f = 0; i < out->n_rows; i++) {
		struct gs_compare_row *row = &out->rows[i];

		if (row->verdict == GS_COMPARE_UNTESTED) {
			out->untested++;
			continue;
		}
		row->p_holm = adj[f++];
		if (row->p_holm > alpha)
			row->verdict = GS_COMPARE_SAME;
		else
			row->verdict = row->mean_b < row->mean_a ? GS_COMPARE_BETTER : GS_COMPARE_WORSE;
		out->better += row->verdict == GS_COMPARE_BETTER;
		out->worse += row->verdict == GS_COMPARE_WORSE;
		out->same += row->verdict == GS_COMPARE_SAME;
	}
out:
	free(va);
	free(vb);
	free(p);
	free(adj);
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	if (rc)
		gs_compare_release(out);
	return rc;
}

static const char *verdict_name(enum gs_compare_verdict v)
{
	static const char *const names[] = { "same", "better", "WORSE", "untested" };

	return (unsigned)v < sizeof(names) / sizeof(*names) ? names[v] : "?";
}

void gs_compare_print(const struct gs_compare *c, const struct gs_rset *s, const char *a,
		      const char *b, const char *metric, FILE *f)
{
	size_t i;

	fprintf(f, "%s against %s, %s (lower is better), Welch's t-test per workload, Holm over "
		   "%zu at family-wise %.3g\n", b, a, metric, c->n_tests, c->alpha);
	fprintf(f, "%-28s %5s %17s %17s %8s %8s %10s %10s  %s\n", "WORKLOAD", "SEEDS", a, b,
		"CHANGE%", "t", "p", "HOLM p", "VERDICT");
	for (i = 0; i < c->n_rows; i++) {
		const struct gs_compare_row *r = &c->rows[i];
		char sa[32], sb[32];

		snprintf(sa, sizeof(sa), "%.3f +- %.3f", r->mean_a, r->sd_a);
		snprintf(sb, sizeof(sb), "%.3f +- %.3f", r->mean_b, r->sd_b);
		fprintf(f, "%-28s %2zu/%-2zu %17s %17s %+8.1f %8.2f %10.2e %10.2e  %s\n",
			s->families[r->family].name, r->na, r->nb, sa, sb, r->change_pct, r->t, r->p,
			r->p_holm, verdict_name(r->verdict));
	}
	fprintf(f, "summary: %zu workloads: %s better on %zu, worse on %zu, no significant "
		   "difference on %zu%s\n", c->n_rows, b, c->better, c->worse, c->same,
		c->untested ? " (some untested: fewer than two seeds)" : "");
}
