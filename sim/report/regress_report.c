/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regress_report.c - the report of `gpusim regress` (regress.h): the
 * Markdown file that says what moved, the data files of the overlay
 * figures, and the figures themselves, drawn by the gnuplot scripts
 * scripts/plot_regress_*.gp in the style of `gpusim plot` (one colour,
 * dash and marker per policy, the same in every figure of a report).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "io/outfile.h"
#include "io/path.h"
#include "policies/policy.h"
#include "report/plot.h"
#include "report/regress.h"

#define NONE ((size_t)-1)

/* The metric of the per-family bars: the FGD paper's headline. */
#define BARS_METRIC "unalloc_gpu_pct"


/* A family of the figures: its label and its index on each side (NONE: absent). */
struct fig_family {
	const char *name;
	const char *mode;
	const char *params;
	size_t base, now;
};

/* Everything the figures need, built once. */
/* Why a CDF is not drawn, after its name in the report and the note. */
#define SKIP_REASON "every pod at 0 s: nothing to draw on a log axis"

struct figs {
	const struct gs_regress *r;
	const char *dir, *data, *scripts;
	FILE *log;
	char **policies;            /* every policy of both sets, paper's first (borrowed names) */
	size_t n_policies;
	struct fig_family *fams;
	size_t n_fams;
	char note[512];             /* why figures are missing, empty when none */
	char (*skipped)[300];       /* CDFs with every pod at 0 s: nothing to draw on a log axis */
	size_t n_skipped;
	char (*drawn)[256];         /* base names of the figures drawn, for the report */
	size_t n_drawn;
};

static int collect_policies(struct figs *g)
{
	const struct gs_rset *sets[2] = { g->r->base, g->r->now };
	size_t s, i, j;

	g->policies = malloc((sets[0]->n_policies + sets[1]->n_policies + 1) * sizeof(char *));
	if (!g->policies)
		return GS_ENOMEM;
	for (s = 0; s < 2; s++)
		for (i = 0; i < sets[s]->n_policies; i++) {
			for (j = 0; j < g->n_policies; j++)
				if (!strcmp(g->policies[j], sets[s]->policies[i]))
					break;
			if (j == g->n_policies)
				g->policies[g->n_policies++] = sets[s]->policies[i];
		}
	qsort(g->policies, g->n_policies, sizeof(*g->policies), gs_policy_qsort_cmp_paper);
	return 0;
}

static int collect_families(struct figs *g)
{
	const struct gs_regress *r = g->r;
	size_t f, k;

	g->fams = malloc((r->base->n_families + r->now->n_families + 1) * sizeof(*g->fams));
	if (!g->fams)
		return GS_ENOMEM;
	for (f = 0; f < r->base->n_families; f++) {
		const struct gs_rfamily *b = &r->base->families[f];

		g->fams[g->n_fams++] = (struct fig_family){ b->name, b->mode, b->params, f,
							    r->match[f] };
	}
	/* New families no baseline family matched, changed inputs included. */
	for (f = 0; f < r->now->n_families; f++) {
		const struct gs_rfamily *w = &r->now->families[f];

		for (k = 0; k < r->base->n_families; k++)
			if (r->match[k] == f)
				break;
		if (k == r->base->n_families)
			g->fams[g->n_fams++] = (struct fig_family){ w->name, w->mode, w->params,
								    NONE, f };
	}
	return 0;
}

/* The points of (family, policy name, curve name) of a set into f, x then y. */
static size_t write_curve(FILE *f, const struct gs_rset *s, size_t fam, const char *pol,
			  const char *curve, const char *curve2, const char *curve3)
{
	size_t i, n = 0;

	if (fam == NONE)
		return 0;
	for (i = 0; i < s->n_points; i++) {
		const struct gs_rpoint *p = &s->points[i];
		size_t j;

		if (p->family != fam || strcmp(s->policies[p->policy], pol) ||
		    strcmp(s->curves[p->curve], curve))
			continue;
		fprintf(f, "%.10g\t%.10g", p->x, p->y);
		/* The quartile curves at the same x, when asked for. */
		for (j = 0; j < s->n_points && curve2; j++) {
			const struct gs_rpoint *q = &s->points[j];

			if (q->family == fam && q->policy == p->policy && q->x == p->x &&
			    (!strcmp(s->curves[q->curve], curve2)))
				fprintf(f, "\t%.10g", q->y);
		}
		for (j = 0; j < s->n_points && curve3; j++) {
			const struct gs_rpoint *q = &s->points[j];

			if (q->family == fam && q->policy == p->policy && q->x == p->x &&
			    (!strcmp(s->curves[q->curve], curve3)))
				fprintf(f, "\t%.10g", q->y);
		}
		fputc('\n', f);
		n++;
	}
	return n;
}

static int open_data(const struct figs *g, const char *name, FILE **f, char *err, size_t err_len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", g->data, name);
	*f = fopen(path, "w");
	if (!*f) {
		gs_errf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		return GS_EIO;
	}
	return 0;
}

static int close_data(FILE *f, const struct figs *g, const char *name, char *err, size_t err_len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", g->data, name);
	return gs_outfile_finish(f, path, NULL, err, err_len);
}

/* Runs one figure's script; a failure becomes the note, drawing stops. */
/*
 * Runs gnuplot with its stderr in a temporary file, then passes on every
 * line but the warnings about empty data files: a side without a curve
 * (a family not run, a policy whose pods never waited) is expected here,
 * and the figure says so itself.
 */
static int quiet_gnuplot(const char *vars, const char *script, char *err, size_t err_len)
{
	static const char noise[] = "Skipping data file with no valid points";
	FILE *tmp = tmpfile();
	char line[1024];
	int saved = -1, rc;

	fflush(stderr);
	if (tmp)
		saved = dup(STDERR_FILENO);
	if (saved >= 0 && dup2(fileno(tmp), STDERR_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	rc = gs_plot_gnuplot(vars, script, err, err_len);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
		rewind(tmp);
		while (fgets(line, sizeof(line), tmp))
			if (!strstr(line, noise))
				fputs(line, stderr);
	}
	if (tmp)
		fclose(tmp);
	return rc;
}

static void draw(struct figs *g, const char *script, const char *base, const char *vars)
{
	char path[4096], err[1024];
	int rc;

	if (g->note[0])
		return;
	snprintf(path, sizeof(path), "%s/%s", g->scripts, script);
	rc = quiet_gnuplot(vars, path, err, sizeof(err));
	if (rc) {
		snprintf(g->note, sizeof(g->note), "%.500s", err);
		return;
	}
	snprintf(g->drawn[g->n_drawn++], sizeof(*g->drawn), "%s", base);
	if (g->log)
		fprintf(g->log, "%s/%s.png\n%s/%s.svg\n%s/%s.pdf\n", g->dir, base, g->dir, base,
			g->dir, base);
}

/* Seeds of the runs of family f in s: the most of any policy (0 when f is NONE). */
static size_t seeds_of(const struct gs_rset *s, size_t f)
{
	size_t p, i, most = 0;

	for (p = 0; f != NONE && p < s->n_policies; p++) {
		size_t n = 0;

		for (i = 0; i < s->n_runs; i++)
			n += s->runs[i].family == f && s->runs[i].policy == p;
		if (n > most)
			most = n;
	}
	return most;
}

/* "compat" or "exact" from the canonical parameters, "" when they do not say. */
static const char *scoring_of(const char *params)
{
	if (strstr(params, "compat=true"))
		return "compat scoring, ";
	if (strstr(params, "compat=false"))
		return "exact scoring, ";
	return "";
}

/* The policies (words) and their linetypes for gnuplot, of those in use[]. */
static void policy_words(const struct figs *g, const bool *use, char *words, size_t wlen,
			 char *lts, size_t llen)
{
	size_t i, wu = 0, lu = 0;

	words[0] = lts[0] = '\0';
	for (i = 0; i < g->n_policies; i++) {
		if (!use[i] || wu + strlen(g->policies[i]) + 2 >= wlen || lu + 8 >= llen)
			continue;
		wu += (size_t)snprintf(words + wu, wlen - wu, "%s%s", wu ? " " : "", g->policies[i]);
		lu += (size_t)snprintf(lts + lu, llen - lu, "%s%zu", lu ? " " : "", i + 1);
	}
}

/*
 * Writes the data files of one policy's curve on both sides,
 * <family>.<policy>.base.<what>.dat and <family>.<policy>.now.<what>.dat
 * (columns: write_curve()'s). *used says whether either side has a point.
 */
static int write_sides(struct figs *g, const struct fig_family *ff, const char *pol,
		       const char *what, const char *curve, const char *curve2,
		       const char *curve3, bool *used, char *err, size_t err_len)
{
	static const char *const side[2] = { "base", "now" };
	const struct gs_rset *set[2] = { g->r->base, g->r->now };
	const size_t fam[2] = { ff->base, ff->now };
	char name[512];
	size_t k, n = 0;
	int rc = 0;
	FILE *f;

	for (k = 0; k < 2 && !rc; k++) {
		snprintf(name, sizeof(name), "%s.%s.%s.%s.dat", ff->name, pol, side[k], what);
		rc = open_data(g, name, &f, err, err_len);
		if (rc)
			break;
		n += write_curve(f, set[k], fam[k], pol, curve, curve2, curve3);
		rc = close_data(f, g, name, err, err_len);
	}
	*used = n > 0;
	return rc;
}

/* unalloc_FAMILY: figure 9a, baseline against now. */
static int fig_unalloc(struct figs *g, const struct fig_family *ff, char *err, size_t err_len)
{
	const struct gs_regress *r = g->r;
	char base[300], words[2048], lts[512], vars[8192];
	bool *use = calloc(g->n_policies + 1, sizeof(*use));
	size_t p, any = 0, sb = seeds_of(r->base, ff->base), sn = seeds_of(r->now, ff->now);
	int rc = 0;

	if (!use)
		return GS_ENOMEM;
	for (p = 0; p < g->n_policies && !rc; p++) {
		rc = write_sides(g, ff, g->policies[p], "unalloc", GS_RCURVE_UNALLOC_MEDIAN,
				 GS_RCURVE_UNALLOC_Q25, GS_RCURVE_UNALLOC_Q75, &use[p], err, err_len);
		any += use[p];
	}
	if (!rc && any) {
		policy_words(g, use, words, sizeof(words), lts, sizeof(lts));
		snprintf(base, sizeof(base), "unalloc_%s", ff->name);
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datadir='%s'; family='%s'; policies='%s'; lts='%s';"
			 " out='%s/%s'; sub='%smedian over seeds: %zu now, %zu in the baseline'",
			 g->scripts, g->data, ff->name, words, lts, g->dir, base,
			 scoring_of(ff->params), sn, sb);
		draw(g, "plot_regress_curve.gp", base, vars);
	}
	free(use);
	return rc;
}

/* The mean and sd of BARS_METRIC over the runs of (family, policy) of s. */
static void bar_stats(const struct gs_rset *s, size_t fam, const char *pol, double *v,
		      double *mean, double *sd)
{
	size_t m, i, n = 0;

	*mean = NAN;
	*sd = 0;
	if (fam == NONE)
		return;
	for (m = 0; m < s->n_metrics; m++)
		if (!strcmp(s->metrics[m], BARS_METRIC))
			break;
	if (m == s->n_metrics)
		return;
	for (i = 0; i < s->n_runs; i++) {
		const struct gs_rvalue *val;

		if (s->runs[i].family != fam || strcmp(s->policies[s->runs[i].policy], pol))
			continue;
		val = gs_rset_find_value(s, i, m);
		if (val)
			v[n++] = val->value;
	}
	if (n) {
		*mean = gsl_stats_mean(v, 1, n);
		*sd = n > 1 ? gsl_stats_sd(v, 1, n) : 0;
	}
}

/* bars_inflate: unallocated GPU % at arrived 100 % per inflate family and policy. */
static int fig_bars(struct figs *g, char *err, size_t err_len)
{
	const struct gs_regress *r = g->r;
	static const char name[] = "bars_inflate.dat";
	char words[2048], lts[512], vars[8192];
	size_t most = (r->base->n_runs > r->now->n_runs ? r->base->n_runs : r->now->n_runs) + 1;
	double *v = malloc(most * sizeof(*v));
	bool *use = calloc(g->n_policies + 1, sizeof(*use));
	size_t k, p, rows = 0, sb = 0, sn = 0;
	int rc = 0;
	FILE *f;

	if (!v || !use) {
		free(v);
		free(use);
		return GS_ENOMEM;
	}
	/* The policies any inflate family has a value of. */
	for (k = 0; k < g->n_fams; k++) {
		if (strcmp(g->fams[k].mode, "inflate"))
			continue;
		for (p = 0; p < g->n_policies; p++) {
			double m1, s1, m2, s2;

			bar_stats(r->base, g->fams[k].base, g->policies[p], v, &m1, &s1);
			bar_stats(r->now, g->fams[k].now, g->policies[p], v, &m2, &s2);
			use[p] = use[p] || !isnan(m1) || !isnan(m2);
		}
	}
	rc = open_data(g, name, &f, err, err_len);
	if (rc)
		goto out;
	fprintf(f, "# %s: family, then per policy: baseline mean, sd, now mean, sd\n", BARS_METRIC);
	for (k = 0; k < g->n_fams; k++) {
		const struct fig_family *ff = &g->fams[k];

		if (strcmp(ff->mode, "inflate"))
			continue;
		fprintf(f, "%s", ff->name);
		for (p = 0; p < g->n_policies; p++) {
			double m1, s1, m2, s2;

			if (!use[p])
				continue;
			bar_stats(r->base, ff->base, g->policies[p], v, &m1, &s1);
			bar_stats(r->now, ff->now, g->policies[p], v, &m2, &s2);
			fprintf(f, "\t%.10g\t%.10g\t%.10g\t%.10g", m1, s1, m2, s2);
		}
		fputc('\n', f);
		if (seeds_of(r->base, ff->base) > sb)
			sb = seeds_of(r->base, ff->base);
		if (seeds_of(r->now, ff->now) > sn)
			sn = seeds_of(r->now, ff->now);
		rows++;
	}
	rc = close_data(f, g, name, err, err_len);
	if (!rc && rows) {
		policy_words(g, use, words, sizeof(words), lts, sizeof(lts));
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datafile='%s/%s'; policies='%s'; lts='%s';"
			 " out='%s/bars_inflate'; sub='mean and sd over seeds: up to %zu now, %zu in"
			 " the baseline'",
			 g->scripts, g->data, name, words, lts, g->dir, sn, sb);
		draw(g, "plot_regress_bars.gp", "bars_inflate", vars);
	}
out:
	free(v);
	free(use);
	return rc;
}

/* wait_cdf_FAMILY and completion_cdf_FAMILY of a time family. */
/* True when the curve of (family, policy) in s has a point above x = 0. */
static bool above_zero(const struct gs_rset *s, size_t fam, const char *pol, const char *curve)
{
	size_t i;

	for (i = 0; fam != NONE && i < s->n_points; i++) {
		const struct gs_rpoint *p = &s->points[i];

		if (p->family == fam && p->x > 0 && !strcmp(s->policies[p->policy], pol) &&
		    !strcmp(s->curves[p->curve], curve))
			return true;
	}
	return false;
}

static int fig_cdf(struct figs *g, const struct fig_family *ff, const char *curve,
		   const char *what, const char *label, char *err, size_t err_len)
{
	const struct gs_regress *r = g->r;
	char base[300], words[2048], lts[512], vars[8192], titles[4096];
	bool *use = calloc(g->n_policies + 1, sizeof(*use));
	size_t tu = 0, p, any = 0, positive = 0;
	size_t sb = seeds_of(r->base, ff->base), sn = seeds_of(r->now, ff->now);
	int rc = 0;

	if (!use)
		return GS_ENOMEM;
	for (p = 0; p < g->n_policies && !rc; p++) {
		bool pos;

		rc = write_sides(g, ff, g->policies[p], what, curve, NULL, NULL, &use[p], err,
				 err_len);
		if (rc)
			break;
		any += use[p];
		pos = above_zero(r->base, ff->base, g->policies[p], curve) ||
		      above_zero(r->now, ff->now, g->policies[p], curve);
		positive += pos;
		/* A policy whose pods all had 0 s has no line on the log axis: say so in the key. */
		if (use[p] && tu + strlen(g->policies[p]) + 32 < sizeof(titles))
			tu += (size_t)snprintf(titles + tu, sizeof(titles) - tu, "%s\"%s%s\"",
					       tu ? " " : "", g->policies[p], pos ? "" : ": all 0 s");
	}
	snprintf(base, sizeof(base), "%s_cdf_%s", what, ff->name);
	if (!rc && any && !positive) {
		/* Every pod at 0 s: a log axis has nothing to show, and gnuplot refuses it. */
		snprintf(g->skipped[g->n_skipped++], sizeof(*g->skipped), "%s", base);
	} else if (!rc && any) {
		policy_words(g, use, words, sizeof(words), lts, sizeof(lts));
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datadir='%s'; family='%s'; policies='%s'; lts='%s';"
			 " titles='%s'; what='%s'; label='%s'; out='%s/%s'; sub='%spods of %zu"
			 " seed%s pooled (baseline: %zu)'",
			 g->scripts, g->data, ff->name, words, lts, titles, what, label, g->dir,
			 base, scoring_of(ff->params), sn, sn == 1 ? "" : "s", sb);
		draw(g, "plot_regress_cdf.gp", base, vars);
	}
	free(use);
	return rc;
}

static int draw_all(struct figs *g, char *err, size_t err_len)
{
	size_t k;
	int rc = 0;

	if (!gs_plot_quotable(g->dir) || !gs_plot_quotable(g->scripts)) {
		snprintf(g->note, sizeof(g->note), "paths with a single quote cannot be passed to"
			 " gnuplot");
		return 0;
	}
	/* Each family draws or skips at most 3 figures; each skipped one is a CDF. */
	g->drawn = calloc(3 * g->n_fams + 2, sizeof(*g->drawn));
	g->skipped = calloc(3 * g->n_fams + 2, sizeof(*g->skipped));
	if (!g->drawn || !g->skipped)
		return GS_ENOMEM;
	for (k = 0; k < g->n_fams && !rc; k++) {
		const struct fig_family *ff = &g->fams[k];

		if (!strcmp(ff->mode, "inflate"))
			rc = fig_unalloc(g, ff, err, err_len);
		else if (!strcmp(ff->mode, "time")) {
			rc = fig_cdf(g, ff, GS_RCURVE_WAIT_CDF, "wait", "Wait (s)", err, err_len);
			if (!rc)
				rc = fig_cdf(g, ff, GS_RCURVE_COMPLETION_CDF, "completion",
					     "Completion time, arrival to end (s)", err, err_len);
		}
	}
	for (k = 0; k < g->n_fams && !rc; k++)
		if (!strcmp(g->fams[k].mode, "inflate")) {
			rc = fig_bars(g, err, err_len);
			break;
		}
	return rc;
}

/* ---- report.md ----------------------------------------------------------- */

/* v with prec significant digits (g) or decimals (f), "-" for NAN. */
static const char *md_num(char *buf, size_t len, double v, char conv, int prec)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (conv == 'f')
		snprintf(buf, len, "%.*f", prec, v);
	else if (conv == '+')
		snprintf(buf, len, "%+.*g", prec, v);
	else
		snprintf(buf, len, "%.*g", prec, v);
	return buf;
}

static void md_rule(FILE *f, const struct gs_regress_opts *o)
{
	fprintf(f, "Rules: ");
	if (o->rule != GS_REGRESS_STAT)
		fprintf(f, "%s, every seed must be within a relative %.3g of the baseline; ",
			o->rule == GS_REGRESS_EXACT ? "exact" :
						      "exact where both sides ran the same seeds",
			o->tolerance);
	if (o->rule != GS_REGRESS_EXACT)
		fprintf(f, "%sWelch's t-test on the seed values, p-values corrected by"
			   " Holm-Bonferroni to a family-wise alpha of %.3g, a move fails when"
			   " significant and at least %.3g%% of the larger mean; ",
			o->rule == GS_REGRESS_STAT ? "statistical: " : "otherwise ", o->alpha,
			100 * o->min_effect);
	fprintf(f, "speed warns beyond 1.2x slower and fails beyond %.3gx, for families whose"
		   " baseline simulation took at least %.3g s.\n\n", o->max_slowdown,
		o->min_speed_s);
}

static void md_rows(FILE *f, const struct gs_regress *r)
{
	char a[32], b[32], d[32], pct[32];
	size_t i, shown = 0;

	fprintf(f, "## What moved\n\n");
	for (i = 0; i < r->n_rows; i++) {
		const struct gs_regress_row *row = &r->rows[i];
		double diff = row->now_mean - row->base_mean;

		if (row->verdict < GS_VERDICT_SMALL)
			continue;
		if (!shown++)
			fprintf(f, "| verdict | family | policy | metric | baseline | now | difference"
				   " | change | test |\n|---|---|---|---|---:|---:|---:|---:|---|\n");
		md_num(d, sizeof(d), diff, '+', 4);
		if (isnan(diff) || row->base_mean == 0)
			snprintf(pct, sizeof(pct), "-");
		else
			snprintf(pct, sizeof(pct), "%+.2f%%", 100 * diff / fabs(row->base_mean));
		fprintf(f, "| %s | %s | %s | `%s` | %s | %s | %s | %s | ",
			gs_verdict_name(row->verdict), row->family, row->policy, row->metric,
			md_num(a, sizeof(a), row->base_mean, 'g', 6),
			md_num(b, sizeof(b), row->now_mean, 'g', 6), d, pct);
		if (row->rule == GS_REGRESS_EXACT)
			fprintf(f, "exact: %zu of %zu seeds moved, largest %.2g%s%s |\n", row->n_moved,
				row->n_base, row->max_rel, row->note ? "; " : "",
				row->note ? row->note : "");
		else if (isnan(row->p))
			fprintf(f, "Welch: %s |\n", row->note ? row->note : "not tested");
		else
			fprintf(f, "Welch t = %.3g, df = %.3g, p = %.3g, Holm p = %.3g |\n", row->t,
				row->df, row->p, row->p_holm);
	}
	if (!shown)
		fprintf(f, "Nothing moved%s.\n", r->n_tests ? " significantly" : "");
	fputc('\n', f);
}

static void md_issues(FILE *f, const struct gs_regress *r)
{
	size_t i;

	if (!r->n_issues)
		return;
	fprintf(f, "## Runs, inputs and metrics\n\n| verdict | family | finding | detail |\n"
		   "|---|---|---|---|\n");
	for (i = 0; i < r->n_issues; i++)
		fprintf(f, "| %s | %s | %s | %s |\n", gs_verdict_name(r->issues[i].verdict),
			r->issues[i].family ? r->issues[i].family : "-", r->issues[i].what,
			r->issues[i].detail);
	fputc('\n', f);
}

static void md_speed(FILE *f, const struct gs_regress *r)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];
	size_t i;

	if (!r->n_speed)
		return;
	fprintf(f, "## Speed\n\nSimulated events per second of simulation (the runs' wall_ms"
		   " summed), and the sweep's wall time (first start to last end), against the"
		   " baseline. A ratio of events/s below 1 and of sweep time above 1 is slower.\n\n"
		   "| verdict | family | events/s baseline | events/s now | ratio |"
		   " sweep s baseline | sweep s now | ratio |\n"
		   "|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < r->n_speed; i++) {
		const struct gs_regress_speed *s = &r->speed[i];

		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", gs_verdict_name(s->verdict),
			s->family ? s->family : "all", md_num(a, sizeof(a), s->base_eps, 'f', 0),
			md_num(b, sizeof(b), s->now_eps, 'f', 0),
			md_num(c, sizeof(c), s->eps_ratio, 'f', 2),
			md_num(d, sizeof(d), s->base_sweep_s, 'f', 2),
			md_num(e, sizeof(e), s->now_sweep_s, 'f', 2),
			md_num(g, sizeof(g), s->sweep_ratio, 'f', 2));
	}
	fputc('\n', f);
}

static void md_figures(FILE *f, const struct figs *g)
{
	size_t i;

	fprintf(f, "## Figures\n\n");
	if (g->note[0])
		fprintf(f, "Figures left out: %s.\n\n", g->note);
	for (i = 0; i < g->n_skipped; i++)
		fprintf(f, "%s%s (%s)%s", i ? "; " : "Not drawn: ", g->skipped[i], SKIP_REASON,
			i + 1 < g->n_skipped ? "" : ".\n\n");
	if (!g->n_drawn && !g->note[0])
		fprintf(f, "No family has curves to draw.\n\n");
	for (i = 0; i < g->n_drawn; i++)
		fprintf(f, "### %s\n\n![%s](%s.png)\n\n[SVG](%s.svg), [PDF](%s.pdf)\n\n",
			g->drawn[i], g->drawn[i], g->drawn[i], g->drawn[i], g->drawn[i]);
	fprintf(f, "Figure data: [data/](data/). Now is drawn solid with markers, the baseline"
		   " thin and dotted in the same colour.\n");
}

static int write_md(const struct figs *g, const char *base_name, const char *now_name, char *err,
		    size_t err_len)
{
	const struct gs_regress *r = g->r;
	char path[4096], tmp[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.md", g->dir);
	snprintf(tmp, sizeof(tmp), "%s/.report.md.tmp", g->dir);
	f = fopen(tmp, "w");
	if (!f) {
		gs_errf(err, err_len, "%s: cannot write: %s", tmp, strerror(errno));
		return GS_EIO;
	}
	fprintf(f, "# gpusim regression report\n\n**%s**: %zu failure%s, %zu warning%s. Baseline"
		   " `%s` against `%s`: %zu values of %zu runs in %zu famil%s compared, %zu"
		   " statistical tests.\n\n",
		r->n_fail ? "FAIL" : "pass", r->n_fail, r->n_fail == 1 ? "" : "s", r->n_warn,
		r->n_warn == 1 ? "" : "s", base_name, now_name, r->values, r->runs, r->families,
		r->families == 1 ? "y" : "ies", r->n_tests);
	md_rule(f, &r->opts);
	md_rows(f, r);
	md_issues(f, r);
	md_speed(f, r);
	md_figures(f, g);
	if (gs_outfile_finish(f, tmp, path, err, err_len))
		return GS_EIO;
	if (g->log)
		fprintf(g->log, "%s\n", path);
	return 0;
}

/*
 * Writes why figures are missing into buf: gnuplot's failures. A CDF with
 * nothing to draw (every pod at 0 s) is named in report.md only: it is
 * the same on every run of a baseline, not news.
 */
static void figure_note_write(const struct figs *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s", g->note);
}

int gs_regress_report(const struct gs_regress *r, const char *base_name, const char *now_name,
		      const char *out_dir, const char *scripts_dir, FILE *log,
		      char *figure_note, size_t note_len, char *err, size_t err_len)
{
	struct figs g;
	char data[4096];
	int rc;

	memset(&g, 0, sizeof(g));
	g.r = r;
	g.dir = out_dir;
	g.scripts = scripts_dir;
	g.log = log;
	snprintf(data, sizeof(data), "%s/data", out_dir);
	g.data = data;
	rc = gs_mkdir_p(data, err, err_len);
	if (!rc)
		rc = collect_policies(&g);
	if (!rc)
		rc = collect_families(&g);
	if (!rc)
		rc = draw_all(&g, err, err_len);
	if (!rc)
		rc = write_md(&g, base_name, now_name, err, err_len);
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	if (figure_note && note_len)
		figure_note_write(&g, figure_note, note_len);
	free(g.policies);
	free(g.fams);
	free(g.drawn);
	free(g.skipped);
	return rc;
}
