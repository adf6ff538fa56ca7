/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decide.c - the verdict's statistics (see decide.h): the floor of
 * unfinished pods, the constraints, the objective's means and intervals,
 * the tests against the best and Holm's correction over all of them.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "report/decide.h"
#include "report/regress.h"

const char *gs_decide_test_name(enum gs_decide_test t)
{
	switch (t) {
	case GS_TEST_PAIRED:
		return "paired";
	case GS_TEST_WELCH:
		return "welch";
	case GS_TEST_FEW:
		return "too few seeds";
	default:
		return "";
	}
}

int gs_decide_paired_t(const double *a, const double *b, size_t n, double *t, double *df, double *p)
{
	double *d, mean, sd;
	size_t i;

	if (n < 2)
		return GS_EINVAL;
	d = malloc(n * sizeof(*d));
	if (!d)
		return GS_ENOMEM;
	for (i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	mean = gsl_stats_mean(d, 1, n);
	sd = gsl_stats_sd_m(d, 1, n, mean);
	free(d);
	if (!(sd > 0)) {
		*t = NAN;
		*df = NAN;
		*p = mean == 0 ? 1.0 : 0.0;
		return 0;
	}
	*df = (double)(n - 1);
	*t = mean / (sd / sqrt((double)n));
	*p = 2.0 * gsl_cdf_tdist_Q(fabs(*t), *df);
	if (*p > 1.0)
		*p = 1.0;
	return 0;
}

/* The half-width of the t interval at level conf for a standard error se with df. */
static double half_width(double conf, double df, double se)
{
	if (!(df > 0) || isnan(se))
		return NAN;
	if (se == 0)
		return 0;
	return gsl_cdf_tdist_Pinv(0.5 + conf / 2.0, df) * se;
}

void gs_decide_mean_ci(const double *x, size_t n, double conf, double *mean, double *lo, double *hi)
{
	double h;

	*mean = n ? gsl_stats_mean(x, 1, n) : NAN;
	*lo = *hi = NAN;
	if (n < 2)
		return;
	h = half_width(conf, (double)(n - 1),
		       gsl_stats_sd_m(x, 1, n, *mean) / sqrt((double)n));
	*lo = *mean - h;
	*hi = *mean + h;
}

void gs_decide_result_release(struct gs_decide_result *d)
{
	size_t b;

	for (b = 0; d->blocks && b < d->n_blocks; b++)
		free(d->blocks[b].rows);
	free(d->blocks);
	memset(d, 0, sizeof(*d));
}

/* Everything one block needs while it is decided. */
struct blk {
	const struct gs_decide_input *in;
	const struct gs_decide_cand *cands;
	size_t n_cands;
	const struct gs_decide_opts *o;
	double *obj;                 /* [cand * n_seeds + seed]: the objective, NAN without */
	struct gs_decide_block *out;
	struct gs_decide_row *by_cand;  /* rows indexed by candidate, before sorting */
};

static const struct gs_decide_run *run_at(const struct blk *k, size_t c, size_t s)
{
	return &k->in->runs[c * k->in->n_seeds + s];
}

/* The value of metric m in run r: a figure, or the GPUs of the capacity search. */
static double metric_of(const struct gs_decide_run *r, enum gs_metric m)
{
	enum gs_fig f = gs_metric_fig(m);

	return f == GS_N_FIGS ? r->gpus : r->fig[f];
}

/* The mean of metric m over candidate c's runs (NAN values skipped). */
static double metric_mean(const struct blk *k, size_t c, enum gs_metric m)
{
	double sum = 0;
	size_t s, n = 0;

	for (s = 0; s < k->in->n_seeds; s++) {
		const struct gs_decide_run *r = run_at(k, c, s);
		double v;

		if (!r->ran || isnan(v = metric_of(r, m)))
			continue;
		sum += v;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

/* The objective of every run; a score needs the baseline's means. */
static void objectives(struct blk *k)
{
	const struct gs_objective *ob = &k->o->objective;
	double base[GS_OBJ_TERMS_MAX];
	size_t c, s, i;

	for (i = 0; ob->score && i < ob->n_terms; i++)
		base[i] = metric_mean(k, k->o->baseline, ob->term[i]);
	for (c = 0; c < k->n_cands; c++)
		for (s = 0; s < k->in->n_seeds; s++) {
			const struct gs_decide_run *r = run_at(k, c, s);
			double v = 0;

			if (!r->ran) {
				v = NAN;
			} else if (!ob->score) {
				v = metric_of(r, ob->metric);
			} else {
				for (i = 0; i < ob->n_terms; i++) {
					double x = metric_of(r, ob->term[i]);

					v += ob->weight[i] * (gs_metric_higher_better(ob->term[i]) ?
							      base[i] / x : x / base[i]);
				}
				if (!isfinite(v))
					v = NAN;
			}
			k->obj[c * k->in->n_seeds + s] = v;
		}
}

/* Lower is better: the sign that makes it so. */
static double dir(const struct gs_decide_opts *o)
{
	return !o->objective.score && gs_metric_higher_better(o->objective.metric) ? -1 : 1;
}

static double unfinished(const struct gs_decide_run *r)
{
	return (isnan(r->fig[GS_FIG_FAILED]) ? 0 : r->fig[GS_FIG_FAILED]) +
	       (isnan(r->fig[GS_FIG_PENDING]) ? 0 : r->fig[GS_FIG_PENDING]);
}

/* Each candidate's row: means, intervals, and whether (and why) it is out. */
static int fill_rows(struct blk *k)
{
	size_t n_seeds = k->in->n_seeds, c, s, f;
	double *floor_at = malloc((n_seeds ? n_seeds : 1) * sizeof(*floor_at));
	double *x = malloc((n_seeds ? n_seeds : 1) * sizeof(*x));

	if (!floor_at || !x) {
		free(floor_at);
		free(x);
		return GS_ENOMEM;
	}
	for (s = 0; s < n_seeds; s++) {
		floor_at[s] = INFINITY;
		for (c = 0; c < k->n_cands; c++)
			if (!k->cands[c].reference && run_at(k, c, s)->ran)
				floor_at[s] = fmin(floor_at[s], unfinished(run_at(k, c, s)));
	}
	for (c = 0; c < k->n_cands; c++) {
		struct gs_decide_row *r = &k->by_cand[c];
		size_t n = 0, ran = 0;

		memset(r, 0, sizeof(*r));
		r->cand = c;
		r->p = r->p_holm = r->diff = r->diff_lo = r->diff_hi = NAN;
		r->excess_min = r->excess_max = NAN;
		r->gpus_mean = metric_mean(k, c, GS_METRIC_GPUS);
		r->gpus_max = NAN;
		for (f = 0; f < GS_N_FIGS; f++) {
			double sum = 0;
			size_t m = 0;

			for (s = 0; s < n_seeds; s++) {
				const struct gs_decide_run *run = run_at(k, c, s);

				if (run->ran && !isnan(run->fig[f])) {
					sum += run->fig[f];
					m++;
				}
			}
			r->fig_mean[f] = m ? sum / (double)m : NAN;
		}
		for (s = 0; s < n_seeds; s++) {
			const struct gs_decide_run *run = run_at(k, c, s);
			double v = k->obj[c * n_seeds + s], e;

			if (!run->ran)
				continue;
			ran++;
			if (!isnan(run->gpus))
				r->gpus_max = isnan(r->gpus_max) ? run->gpus :
					      fmax(r->gpus_max, run->gpus);
			e = unfinished(run) - floor_at[s];
			r->excess_min = isnan(r->excess_min) ? e : fmin(r->excess_min, e);
			r->excess_max = isnan(r->excess_max) ? e : fmax(r->excess_max, e);
			if (!isnan(v))
				x[n++] = v;
		}
		r->n = n;
		gs_decide_mean_ci(x, n, k->o->conf, &r->mean, &r->lo, &r->hi);
		if (k->cands[c].reference) {
			r->out = GS_DECIDE_REFERENCE;
		} else if (ran > 0 && r->excess_max > 0) {
			/* Before the objective: a run whose pods all failed has none. */
			r->out = GS_DECIDE_UNFINISHED;
		} else if (n == 0) {
			r->out = GS_DECIDE_NO_RUNS;
		} else {
			for (f = 0; f < k->o->n_conds; f++) {
				const struct gs_cond *cd = &k->o->conds[f];
				double v = metric_mean(k, c, cd->metric);

				if (!gs_cond_holds(cd, v)) {
					r->out = GS_DECIDE_CONSTRAINT;
					r->cond = f;
					r->cond_value = v;
					break;
				}
			}
		}
	}
	free(floor_at);
	free(x);
	return 0;
}

/* Candidate a against candidate b: the test, p, and the interval of (b - a). */
static int compare(const struct blk *k, size_t a, size_t b, struct gs_decide_row *r)
{
	size_t n_seeds = k->in->n_seeds, s, n = 0, na = 0, nb = 0;
	double *va = malloc(2 * (n_seeds ? n_seeds : 1) * sizeof(*va)), *vb, t, df, mean, sd;
	const double *oa = &k->obj[a * n_seeds], *ob = &k->obj[b * n_seeds];
	int rc = 0;

	if (!va)
		return GS_ENOMEM;
	vb = va + n_seeds;
	for (s = 0; s < n_seeds; s++)
		if (!isnan(oa[s]) && !isnan(ob[s])) {
			va[n] = oa[s];
			vb[n++] = ob[s];
		}
	r->n_pairs = n;
	if (n >= 2) {
		rc = gs_decide_paired_t(va, vb, n, &t, &df, &r->p);
		r->test = GS_TEST_PAIRED;
		for (s = 0; s < n; s++)
			vb[s] -= va[s];
		mean = gsl_stats_mean(vb, 1, n);
		sd = gsl_stats_sd_m(vb, 1, n, mean);
		r->diff = mean;
		r->diff_lo = mean - half_width(k->o->conf, (double)(n - 1), sd / sqrt((double)n));
		r->diff_hi = 2 * mean - r->diff_lo;
		free(va);
		return rc;
	}
	for (s = 0; s < n_seeds; s++) {
		if (!isnan(oa[s]))
			va[na++] = oa[s];
		if (!isnan(ob[s]))
			vb[nb++] = ob[s];
	}
	r->diff = (nb ? gsl_stats_mean(vb, 1, nb) : NAN) - (na ? gsl_stats_mean(va, 1, na) : NAN);
	if (na >= 2 && nb >= 2) {
		double se = sqrt(gsl_stats_variance(va, 1, na) / (double)na +
				 gsl_stats_variance(vb, 1, nb) / (double)nb);

		rc = gs_welch(va, na, vb, nb, &t, &df, &r->p);
		r->test = GS_TEST_WELCH;
		if (se == 0) {
			r->diff_lo = r->diff_hi = r->diff;
		} else {
			r->diff_lo = r->diff - half_width(k->o->conf, df, se);
			r->diff_hi = r->diff + half_width(k->o->conf, df, se);
		}
	} else {
		r->test = GS_TEST_FEW;
	}
	free(va);
	return rc;
}

/* Rows in, by mean (best first, candidate index on ties); then out; then references. */
static int row_class(const struct gs_decide_row *r)
{
	return r->out == GS_DECIDE_IN ? 0 : r->out == GS_DECIDE_REFERENCE ? 2 : 1;
}

/* Whether row a goes before row b, lower being better after multiplying by sign. */
static bool before(const struct gs_decide_row *a, const struct gs_decide_row *b, double sign)
{
	int ca = row_class(a), cb = row_class(b);

	if (ca != cb)
		return ca < cb;
	if (ca == 0 && a->mean != b->mean)
		return sign * a->mean < sign * b->mean;
	return a->cand < b->cand;
}

/* Insertion sort of the n rows (a block has tens of candidates). */
static void sort_rows(struct gs_decide_row *rows, size_t n, double sign)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct gs_decide_row r = rows[i];

		for (j = i; j > 0 && before(&r, &rows[j - 1], sign); j--)
			rows[j] = rows[j - 1];
		rows[j] = r;
	}
}

/* One block up to the tests: rows, the best, the comparisons (p not yet corrected). */
static int decide_block(struct blk *k)
{
	struct gs_decide_block *out = k->out;
	size_t c, best = SIZE_MAX;
	int rc;

	rc = fill_rows(k);
	if (rc)
		return rc;
	for (c = 0; c < k->n_cands; c++) {
		const struct gs_decide_row *r = &k->by_cand[c];

		if (r->out == GS_DECIDE_IN && !isnan(r->mean) &&
		    (best == SIZE_MAX ||
		     dir(k->o) * r->mean < dir(k->o) * k->by_cand[best].mean))
			best = c;
	}
	out->best = best;
	out->base_mean = k->by_cand[k->o->baseline].mean;
	out->gain_pct = out->gain_lo = out->gain_hi = out->gain_p = out->gain_p_holm = NAN;
	if (best == SIZE_MAX)
		return 0;
	for (c = 0; c < k->n_cands && !rc; c++) {
		struct gs_decide_row *r = &k->by_cand[c];

		if (c == best || (r->out != GS_DECIDE_IN && c != k->o->baseline))
			continue;
		if (r->out == GS_DECIDE_UNFINISHED || r->out == GS_DECIDE_NO_RUNS)
			continue;
		rc = compare(k, best, c, r);
	}
	return rc;
}

/* The gain over the baseline, from its comparison row (baseline - best). */
static void gain(struct blk *k)
{
	struct gs_decide_block *out = k->out;
	const struct gs_decide_row *r = &k->by_cand[k->o->baseline];
	double base = out->base_mean;

	if (out->best == SIZE_MAX || isnan(base) || base == 0)
		return;
	if (out->best == k->o->baseline) {
		out->gain_pct = out->gain_lo = out->gain_hi = 0;
		return;
	}
	if (r->out == GS_DECIDE_UNFINISHED || r->out == GS_DECIDE_NO_RUNS)
		return;
	out->gain_test = r->test;
	out->gain_pct = -100.0 * r->diff / base;
	out->gain_lo = -100.0 * r->diff_hi / base;
	out->gain_hi = -100.0 * r->diff_lo / base;
	out->gain_p = r->p;
	out->gain_p_holm = r->p_holm;
	out->gain_significant = r->p_holm <= k->o->alpha;
}

/* Holm over every p of every block, then ties, the order of rows and the gains. */
static int finish(struct blk *ks, size_t n_blocks, const struct gs_decide_opts *o,
		  struct gs_decide_result *d)
{
	size_t b, c, n = 0, i;
	double *p, *adj;

	for (b = 0; b < n_blocks; b++)
		for (c = 0; c < ks[b].n_cands; c++)
			n += !isnan(ks[b].by_cand[c].p);
	p = calloc(2 * (n ? n : 1), sizeof(*p));
	if (!p)
		return GS_ENOMEM;
	adj = p + (n ? n : 1);
	for (b = 0, i = 0; b < n_blocks; b++)
		for (c = 0; c < ks[b].n_cands; c++)
			if (!isnan(ks[b].by_cand[c].p))
				p[i++] = ks[b].by_cand[c].p;
	if (gs_holm(p, n, adj)) {
		free(p);
		return GS_ENOMEM;
	}
	d->n_tests = n;
	for (b = 0, i = 0; b < n_blocks; b++) {
		struct gs_decide_block *out = ks[b].out;

		for (c = 0; c < ks[b].n_cands; c++) {
			struct gs_decide_row *r = &ks[b].by_cand[c];

			if (!isnan(r->p))
				r->p_holm = adj[i++];
			if (r->out == GS_DECIDE_IN && c != out->best)
				r->tie = r->test == GS_TEST_FEW || !(r->p_holm <= o->alpha);
			out->n_ties += r->tie;
		}
		gain(&ks[b]);
		memcpy(out->rows, ks[b].by_cand, ks[b].n_cands * sizeof(*out->rows));
		sort_rows(out->rows, ks[b].n_cands, dir(o));
		for (c = 0; c < ks[b].n_cands; c++)
			out->rows[c].rank = c;
		out->n_rows = ks[b].n_cands;
		out->more_seeds = out->n_ties > 0;
		out->separated = out->best != SIZE_MAX &&
				 (out->n_rows < 2 || out->rows[1].out != GS_DECIDE_IN ||
				  !out->rows[1].tie);
	}
	free(p);
	return 0;
}

int gs_decide(const struct gs_decide_input *in, size_t n_blocks,
	      const struct gs_decide_cand *cands, size_t n_cands,
	      const struct gs_decide_opts *o, struct gs_decide_result *out, char *err,
	      size_t err_len)
{
	struct blk *ks = NULL;
	size_t b;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (o->baseline >= n_cands || cands[o->baseline].reference) {
		gs_errf(err, err_len, "the baseline must be one of the candidates, not a reference");
		return GS_EINVAL;
	}
	out->blocks = calloc(n_blocks ? n_blocks : 1, sizeof(*out->blocks));
	ks = calloc(n_blocks ? n_blocks : 1, sizeof(*ks));
	if (!out->blocks || !ks)
		goto oom;
	out->n_blocks = n_blocks;
	for (b = 0; b < n_blocks; b++) {
		struct blk *k = &ks[b];

		k->in = &in[b];
		k->cands = cands;
		k->n_cands = n_cands;
		k->o = o;
		k->out = &out->blocks[b];
		k->obj = malloc((n_cands * in[b].n_seeds > 0 ? n_cands * in[b].n_seeds : 1) *
				sizeof(*k->obj));
		k->by_cand = calloc(n_cands ? n_cands : 1, sizeof(*k->by_cand));
		k->out->rows = calloc(n_cands ? n_cands : 1, sizeof(*k->out->rows));
		if (!k->obj || !k->by_cand || !k->out->rows)
			goto oom;
		objectives(k);
		rc = decide_block(k);
		if (rc)
			goto fail;
	}
	rc = finish(ks, n_blocks, o, out);
	if (rc)
		goto fail;
	for (b = 0; b < n_blocks; b++) {
		free(ks[b].obj);
		free(ks[b].by_cand);
	}
	free(ks);
	return 0;
oom:
	rc = GS_ENOMEM;
fail:
	for (b = 0; ks && b < n_blocks; b++) {
		free(ks[b].obj);
		free(ks[b].by_cand);
	}
	free(ks);
	gs_decide_result_release(out);
	gs_errf(err, err_len, "out of memory");
	return rc;
}
