/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regress.c - the comparison of `gpusim regress` (regress.h): matching
 * families and runs, the exact and statistical rules, speed, and the
 * table printed on the terminal. The report and the figures are in
 * regress_report.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "policies/policy.h"
#include "report/regress.h"

#define NONE SIZE_MAX

/* Slower than this factor warns (speed); max_slowdown fails. */
#define SPEED_WARN_FACTOR 1.2

void gs_regress_opts_init(struct gs_regress_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rule = GS_REGRESS_AUTO;
	o->tolerance = 1e-9;
	o->alpha = 0.01;
	o->min_effect = 0.01;
	o->max_slowdown = 2.0;
	o->min_speed_s = 1.0;
}

const char *gs_verdict_name(enum gs_verdict v)
{
	static const char *const names[] = { "same", "ok", "note", "small", "warn", "FAIL" };

	return (unsigned)v < sizeof(names) / sizeof(*names) ? names[v] : "?";
}

/* ---- statistics ---------------------------------------------------------- */

int gs_welch(const double *a, size_t na, const double *b, size_t nb, double *t, double *df,
	     double *p)
{
	double ma, mb, va, vb, se2;

	if (na < 2 || nb < 2)
		return GS_EINVAL;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	se2 = va + vb;
	if (se2 <= 0) {
		*t = NAN;
		*df = NAN;
		*p = ma == mb ? 1.0 : 0.0;
		return 0;
	}
	*t = (mb - ma) / sqrt(se2);
	*df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	*p = 2.0 * gsl_cdf_tdist_Q(fabs(*t), *df);
	if (*p > 1.0)
		*p = 1.0;
	return 0;
}

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int gs_holm(const double *p, size_t n, double *adj)
{
	struct ranked *r;
	double run = 0;
	size_t j;

	if (n == 0)
		return 0;
	r = malloc(n * sizeof(*r));
	if (!r)
		return GS_ENOMEM;
	for (j = 0; j < n; j++) {
		r[j].p = p[j];
		r[j].i = j;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (j = 0; j < n; j++) {
		double a = (double)(n - j) * r[j].p;

		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		adj[r[j].i] = run;
	}
	free(r);
	return 0;
}

/* ---- building the result ------------------------------------------------- */

static int add_row(struct gs_regress *r, const struct gs_regress_row *row)
{
	struct gs_regress_row *grown = gs_grow(r->rows, &r->cap_rows, r->n_rows, sizeof(*grown), 64);

	if (!grown)
		return GS_ENOMEM;
	r->rows = grown;
	grown[r->n_rows++] = *row;
	return 0;
}

static int add_issue(struct gs_regress *r, enum gs_verdict v, const char *family,
		     const char *what, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add_issue(struct gs_regress *r, enum gs_verdict v, const char *family,
		     const char *what, const char *fmt, ...)
{
	struct gs_regress_issue *grown;
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	grown = gs_grow(r->issues, &r->cap_issues, r->n_issues, sizeof(*grown), 16);
	if (!grown)
		return GS_ENOMEM;
	r->issues = grown;
	grown[r->n_issues].verdict = v;
	grown[r->n_issues].family = family;
	grown[r->n_issues].what = what;
	grown[r->n_issues].detail = strdup(buf);
	if (!grown[r->n_issues].detail)
		return GS_ENOMEM;
	r->n_issues++;
	return 0;
}

void gs_regress_release(struct gs_regress *r)
{
	size_t i;

	for (i = 0; i < r->n_issues; i++)
		free(r->issues[i].detail);
	GS_MEM_FREE(r->issues, r->rows, r->speed, r->match);
	memset(r, 0, sizeof(*r));
}

static bool same_inputs(const struct gs_rfamily *a, const struct gs_rfamily *b, bool checksums)
{
	return !strcmp(a->mode, b->mode) && !strcmp(a->nodes_file, b->nodes_file) &&
	       !strcmp(a->pods_file, b->pods_file) && !strcmp(a->params, b->params) &&
	       (!checksums || (!strcmp(a->nodes_sha256, b->nodes_sha256) &&
			       !strcmp(a->pods_sha256, b->pods_sha256)));
}

size_t gs_regress_find_name(char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return i;
	return SIZE_MAX;
}

/* "42-51" or "42,44,46-48" for sorted seeds of runs[0..n) into buf. */
static void seed_text(const struct gs_rset *s, const size_t *runs, size_t n, char *buf, size_t len)
{
	size_t i = 0, used = 0;

	buf[0] = '\0';
	while (i < n && used + 48 < len) {
		uint64_t lo = s->runs[runs[i]].seed, hi = lo;
		size_t j = i + 1;

		while (j < n && s->runs[runs[j]].seed == hi + 1)
			hi = s->runs[runs[j++]].seed;
		if (hi == lo)
			used += (size_t)snprintf(buf + used, len - used, "%s%" PRIu64, used ? "," : "", lo);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%" PRIu64 "-%" PRIu64,
						 used ? "," : "", lo, hi);
		i = j;
	}
	if (i < n && used + 4 < len)
		snprintf(buf + used, len - used, ",...");
}

/* The runs of family f with policy name pol, in seed order, into out; returns the count. */
static size_t runs_of(const struct gs_rset *s, size_t f, const char *pol, size_t *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].family == f && !strcmp(s->policies[s->runs[i].policy], pol))
			out[n++] = i;
	return n;
}

static double rel_diff(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));

	return m == 0 ? 0 : fabs(a - b) / m;
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	*mean = n ? gsl_stats_mean(v, 1, n) : NAN;
	*sd = n > 1 ? gsl_stats_sd(v, 1, n) : 0;
}

/* Scratch space for one (family, policy) comparison. */
struct scratch {
	size_t *b, *n;        /* run indices */
	double *va, *vb;      /* values */
	size_t *metric_map;   /* base metric -> now metric, or NONE */
	size_t *order;        /* base metrics by name */
	size_t *pol_order;    /* base policies, the FGD paper's first, then by name */
	bool *gone;           /* base metrics compared runs have and the new database lacks */
};

struct named {
	const char *name;
	size_t i;
};

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name, ((const struct named *)y)->name);
}

/* The order of policies in tables and figures: the FGD paper's six first, in its order. */
static int cmp_policy(const void *x, const void *y)
{
	const struct named *a = x, *b = y;

	return gs_policy_cmp_paper(a->name, b->name);
}

/* One metric of one policy by the exact rule, on the seeds both sides ran. */
static int exact_row(struct gs_regress *r, struct gs_regress_row *row, size_t bm,
		     const size_t *bruns, const size_t *nruns, size_t common, struct scratch *sc)
{
	const struct gs_rset *base = r->base, *now = r->now;
	size_t nm = sc->metric_map[bm], k, na = 0, nn = 0, missing = 0;

	row->rule = GS_REGRESS_EXACT;
	row->max_rel = 0;
	for (k = 0; k < common; k++) {
		const struct gs_rvalue *a = gs_rset_find_value(base, bruns[k], bm);
		const struct gs_rvalue *b = nm == NONE ? NULL : gs_rset_find_value(now, nruns[k], nm);
		double d;

		if (!a)
			continue;
		sc->va[na++] = a->value;
		if (!b) {
			missing++;
			continue;
		}
		sc->vb[nn++] = b->value;
		r->values++;
		d = rel_diff(a->value, b->value);
		if (d > r->opts.tolerance)
			row->n_moved++;
		if (d > row->max_rel)
			row->max_rel = d;
	}
	if (!na)
		return 0;
	row->n_base = na;
	row->n_now = nn;
	mean_sd(sc->va, na, &row->base_mean, &row->base_sd);
	mean_sd(sc->vb, nn, &row->now_mean, &row->now_sd);
	if (missing) {
		row->verdict = GS_VERDICT_FAIL;
		row->note = "missing in the new runs";
	} else {
		row->verdict = row->n_moved ? GS_VERDICT_FAIL : GS_VERDICT_SAME;
	}
	return add_row(r, row);
}

/* One metric of one policy by the statistical rule, on all seeds of each side. */
static int stat_row(struct gs_regress *r, struct gs_regress_row *row, size_t bm,
		    const size_t *bruns, size_t nb, const size_t *nruns, size_t nn_runs,
		    struct scratch *sc)
{
	const struct gs_rset *base = r->base, *now = r->now;
	size_t nm = sc->metric_map[bm], k, na = 0, nn = 0;

	row->rule = GS_REGRESS_STAT;
	for (k = 0; k < nb; k++) {
		const struct gs_rvalue *a = gs_rset_find_value(base, bruns[k], bm);

		if (a)
			sc->va[na++] = a->value;
	}
	for (k = 0; nm != NONE && k < nn_runs; k++) {
		const struct gs_rvalue *b = gs_rset_find_value(now, nruns[k], nm);

		if (b)
			sc->vb[nn++] = b->value;
	}
	if (!na)
		return 0;
	r->values += nn;
	row->n_base = na;
	row->n_now = nn;
	mean_sd(sc->va, na, &row->base_mean, &row->base_sd);
	mean_sd(sc->vb, nn, &row->now_mean, &row->now_sd);
	if (!nn) {
		row->verdict = GS_VERDICT_FAIL;
		row->note = "missing in the new runs";
	} else if (row->base_sd == 0 && row->now_sd == 0 && row->base_mean == row->now_mean) {
		row->verdict = GS_VERDICT_SAME;
	} else if (gs_welch(sc->va, na, sc->vb, nn, &row->t, &row->df, &row->p)) {
		row->verdict = GS_VERDICT_WARN;
		row->note = "too few seeds to test";
	} else {
		row->verdict = GS_VERDICT_OK;   /* until the Holm correction */
	}
	return add_row(r, row);
}

/* Compares the runs of baseline family bf with new family nf. */
static int compare_family(struct gs_regress *r, size_t bf, size_t nf, struct scratch *sc)
{
	const struct gs_rset *base = r->base, *now = r->now;
	const char *fam = base->families[bf].name;
	char seeds_a[256], seeds_b[256], names[1024];
	bool *base_has = NULL, *now_has = NULL;
	size_t p, i, m, used = 0;
	int rc = 0;

	base_has = calloc(base->n_metrics + 1, sizeof(*base_has));
	now_has = calloc(now->n_metrics + 1, sizeof(*now_has));
	if (!base_has || !now_has) {
		free(base_has);
		free(now_has);
		return GS_ENOMEM;
	}
	r->families++;
	for (p = 0; p < base->n_policies && !rc; p++) {
		const char *pol = base->policies[sc->pol_order[p]];
		size_t nb = runs_of(base, bf, pol, sc->b), nn = runs_of(now, nf, pol, sc->n);
		size_t common = 0, ib = 0, in = 0, miss = 0, extra = 0;
		size_t *cb, *cn;
		enum gs_regress_rule rule = r->opts.rule;
		bool equal;

		if (!nb)
			continue;
		if (!nn) {
			seed_text(base, sc->b, nb, seeds_a, sizeof(seeds_a));
			rc = add_issue(r, GS_VERDICT_FAIL, fam, "missing runs",
				       "policy %s: no new run (baseline seeds %s)", pol, seeds_a);
			continue;
		}
		/* Pair the seeds both sides ran; cb/cn hold them at the front, in order. */
		cb = sc->b + nb;
		cn = sc->n + nn;
		while (ib < nb || in < nn) {
			uint64_t sa = ib < nb ? base->runs[sc->b[ib]].seed : UINT64_MAX;
			uint64_t sn = in < nn ? now->runs[sc->n[in]].seed : UINT64_MAX;

			if (ib < nb && in < nn && sa == sn) {
				cb[common] = sc->b[ib++];
				cn[common++] = sc->n[in++];
			} else if (ib < nb && (in == nn || sa < sn)) {
				miss++;
				ib++;
			} else {
				extra++;
				in++;
			}
		}
		equal = !miss && !extra;
		if (rule == GS_REGRESS_AUTO)
			rule = equal ? GS_REGRESS_EXACT : GS_REGRESS_STAT;
		seed_text(base, sc->b, nb, seeds_a, sizeof(seeds_a));
		seed_text(now, sc->n, nn, seeds_b, sizeof(seeds_b));
		if (!equal && rule == GS_REGRESS_EXACT) {
			if (miss)
				rc = add_issue(r, GS_VERDICT_FAIL, fam, "missing runs",
					       "policy %s: %zu of the baseline's seeds %s not in the"
					       " new runs (%s)", pol, miss, seeds_a, seeds_b);
			if (!rc && extra)
				rc = add_issue(r, GS_VERDICT_WARN, fam, "extra runs",
					       "policy %s: %zu seeds not in the baseline (new %s,"
					       " baseline %s)", pol, extra, seeds_b, seeds_a);
		} else if (!equal) {
			rc = add_issue(r, GS_VERDICT_NOTE, fam, "seeds differ",
				       "policy %s: baseline seeds %s (%zu), new %s (%zu): statistical"
				       " rule", pol, seeds_a, nb, seeds_b, nn);
		}
		r->runs += rule == GS_REGRESS_EXACT ? common : nn;
		for (i = 0; i < nb; i++) {
			const struct gs_rrun *run = &base->runs[sc->b[i]];

			for (m = run->value0; m < run->value0 + run->n_values; m++)
				base_has[base->values[m].metric] = true;
		}
		for (i = 0; i < nn; i++) {
			const struct gs_rrun *run = &now->runs[sc->n[i]];

			for (m = run->value0; m < run->value0 + run->n_values; m++)
				now_has[now->values[m].metric] = true;
		}
		/* Metrics in name order: the set's metric list is in first-seen order. */
		for (i = 0; i < base->n_metrics && !rc; i++) {
			struct gs_regress_row row;
			size_t best = sc->order[i];

			/* A column the new database lacks altogether is one issue, not a row each. */
			if (sc->metric_map[best] == NONE) {
				sc->gone[best] = sc->gone[best] || base_has[best];
				continue;
			}
			memset(&row, 0, sizeof(row));
			row.family = fam;
			row.policy = pol;
			row.metric = base->metrics[best];
			row.base_mean = row.now_mean = NAN;
			row.t = row.df = row.p = row.p_holm = NAN;
			if (rule == GS_REGRESS_EXACT)
				rc = exact_row(r, &row, best, cb, cn, common, sc);
			else
				rc = stat_row(r, &row, best, sc->b, nb, sc->n, nn, sc);
		}
	}
	/* Policies only the new family has. */
	for (p = 0; p < now->n_policies && !rc; p++) {
		const char *pol = now->policies[p];
		size_t nn = runs_of(now, nf, pol, sc->n);

		if (!nn || runs_of(base, bf, pol, sc->b))
			continue;
		seed_text(now, sc->n, nn, seeds_b, sizeof(seeds_b));
		rc = add_issue(r, GS_VERDICT_WARN, fam, "extra runs",
			       "policy %s: %zu runs (seeds %s) not in the baseline", pol, nn, seeds_b);
	}
	/* Metrics only the new runs have: added to the schema since the baseline. */
	names[0] = '\0';
	for (m = 0; m < now->n_metrics && !rc; m++) {
		size_t bm = gs_regress_find_name(base->metrics, base->n_metrics, now->metrics[m]);

		if (now_has[m] && (bm == NONE || !base_has[bm]) && used + 80 < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", now->metrics[m]);
	}
	if (!rc && used)
		rc = add_issue(r, GS_VERDICT_NOTE, fam, "new metrics",
			       "not in the baseline, not compared: %s", names);
	free(base_has);
	free(now_has);
	return rc;
}

/* Holm over the statistical rows, then their verdicts. */
static int judge_stat(struct gs_regress *r)
{
	double *p, *adj;
	size_t i, n = 0;

	p = malloc((r->n_rows + 1) * sizeof(*p));
	adj = malloc((r->n_rows + 1) * sizeof(*adj));
	if (!p || !adj) {
		free(p);
		free(adj);
		return GS_ENOMEM;
	}
	for (i = 0; i < r->n_rows; i++)
		if (r->rows[i].rule == GS_REGRESS_STAT && r->rows[i].verdict == GS_VERDICT_OK)
			p[n++] = r->rows[i].p;
	if (gs_holm(p, n, adj)) {
		free(p);
		free(adj);
		return GS_ENOMEM;
	}
	r->n_tests = n;
	for (i = n = 0; i < r->n_rows; i++) {
		struct gs_regress_row *row = &r->rows[i];

		if (row->rule != GS_REGRESS_STAT || row->verdict != GS_VERDICT_OK)
			continue;
		row->p_holm = adj[n++];
		if (row->p_holm <= r->opts.alpha)
			row->verdict = rel_diff(row->base_mean, row->now_mean) >= r->opts.min_effect ?
					       GS_VERDICT_FAIL : GS_VERDICT_SMALL;
	}
	free(p);
	free(adj);
	return 0;
}

static double eps_of(const struct gs_rfamily *f)
{
	return f->speed_runs && f->sim_ms > 0 ? (double)f->events / (f->sim_ms / 1000.0) : NAN;
}

static enum gs_verdict speed_verdict(const struct gs_regress_opts *o, double slower, bool judged)
{
	if (!judged || isnan(slower))
		return GS_VERDICT_NOTE;
	if (o->max_slowdown > 0 && slower > o->max_slowdown)
		return GS_VERDICT_FAIL;
	return slower > SPEED_WARN_FACTOR ? GS_VERDICT_WARN : GS_VERDICT_SAME;
}

static int add_speed(struct gs_regress *r, const char *family, double be, double ne, double bs,
		     double ns, double base_sim_s)
{
	struct gs_regress_speed *grown, *sp;
	enum gs_verdict v1, v2;
	bool judged = base_sim_s >= r->opts.min_speed_s;

	grown = gs_grow(r->speed, &r->cap_speed, r->n_speed, sizeof(*grown), 8);
	if (!grown)
		return GS_ENOMEM;
	r->speed = grown;
	sp = &grown[r->n_speed++];
	sp->family = family;
	sp->base_eps = be;
	sp->now_eps = ne;
	sp->base_sweep_s = bs;
	sp->now_sweep_s = ns;
	sp->eps_ratio = ne / be;
	sp->sweep_ratio = ns / bs;
	v1 = speed_verdict(&r->opts, be / ne, judged);
	v2 = speed_verdict(&r->opts, ns / bs, judged && bs >= r->opts.min_speed_s);
	sp->verdict = v1 > v2 ? v1 : v2;
	if (sp->verdict == GS_VERDICT_SAME || (sp->verdict == GS_VERDICT_NOTE && judged))
		sp->verdict = GS_VERDICT_OK;
	return 0;
}

static int compare_speed(struct gs_regress *r)
{
	double be = 0, bm = 0, ne = 0, nm = 0, bs = 0, ns = 0;
	bool sweeps = true;
	size_t f, n = 0;
	int rc = 0;

	for (f = 0; f < r->base->n_families && !rc; f++) {
		const struct gs_rfamily *b = &r->base->families[f], *w;

		if (r->match[f] == NONE || !b->speed_runs)
			continue;
		w = &r->now->families[r->match[f]];
		if (!w->speed_runs)
			continue;
		rc = add_speed(r, b->name, eps_of(b), eps_of(w), b->sweep_s, w->sweep_s,
			       b->sim_ms / 1000.0);
		be += (double)b->events;
		bm += b->sim_ms;
		ne += (double)w->events;
		nm += w->sim_ms;
		sweeps = sweeps && !isnan(b->sweep_s) && !isnan(w->sweep_s);
		bs += b->sweep_s;
		ns += w->sweep_s;
		n++;
	}
	if (!rc && n > 1)
		rc = add_speed(r, NULL, be / (bm / 1000.0), ne / (nm / 1000.0), sweeps ? bs : NAN,
			       sweeps ? ns : NAN, bm / 1000.0);
	return rc;
}

/*
 * Appends to buf how params b differs from params a, key by key:
 * "load=80 -> 90", "+arrivals=poisson" (only in b), "-x=1" (only in a).
 */
static void params_diff(const char *a, const char *b, char *buf, size_t len)
{
	const char *sides[2] = { a, b };
	size_t used = strlen(buf);
	int side;

	for (side = 0; side < 2; side++) {
		const char *p = sides[side], *other = sides[!side];

		while (*p && used + 64 < len) {
			const char *end = strchr(p, ';'), *eq, *ov = NULL;
			size_t n = end ? (size_t)(end - p) : strlen(p), klen, olen = 0;

			eq = memchr(p, '=', n);
			klen = eq ? (size_t)(eq - p) : n;
			/* The same key in the other side. */
			for (const char *q = other; *q;) {
				const char *qe = strchr(q, ';');
				size_t qn = qe ? (size_t)(qe - q) : strlen(q);

				if (qn > klen && !strncmp(q, p, klen) && q[klen] == '=') {
					ov = q + klen + 1;
					olen = qn - klen - 1;
					break;
				}
				q += qn;
				if (*q == ';')
					q++;
			}
			if (!ov)
				used += (size_t)snprintf(buf + used, len - used, "%s%c%.*s",
							 used ? ", " : "", side ? '+' : '-', (int)n, p);
			else if (side == 0 && eq && (olen != n - klen - 1 || strncmp(ov, eq + 1, olen)))
				used += (size_t)snprintf(buf + used, len - used, "%s%.*s -> %.*s",
							 used ? ", " : "", (int)n, p, (int)olen, ov);
			p += n;
			if (*p == ';')
				p++;
		}
	}
}

/*
 * For a baseline family no new family matched: how the parameters of new
 * runs of the same files and mode differ from its own, as "; new runs of
 * these files differ in parameters: ...", or "" when there are none.
 */
static const char *near_params(const struct gs_rfamily *b, const struct gs_rset *now, char *buf,
			       size_t len)
{
	static const char lead[] = "; new runs of these files differ in parameters: ";
	char diff[512];
	size_t g, best = (size_t)-1;

	buf[0] = '\0';
	if (len <= sizeof(lead))
		return buf;
	/* The closest such family: the fewest keys that differ. */
	for (g = 0; g < now->n_families; g++) {
		const struct gs_rfamily *w = &now->families[g];
		size_t items = 1;
		const char *c;

		if (strcmp(w->mode, b->mode) || strcmp(w->nodes_sha256, b->nodes_sha256) ||
		    strcmp(w->pods_sha256, b->pods_sha256))
			continue;
		diff[0] = '\0';
		params_diff(b->params, w->params, diff, sizeof(diff));
		for (c = diff; (c = strstr(c, ", ")); c += 2)
			items++;
		if (items < best) {
			best = items;
			snprintf(buf, len, "%s%s", lead, diff);
		}
	}
	return buf;
}

/* The compared runs' metrics the new database has no column for: one failure. */
static int missing_metrics(struct gs_regress *r, const struct scratch *sc)
{
	char names[1024];
	size_t i, n = 0, used = 0;

	names[0] = '\0';
	for (i = 0; i < r->base->n_metrics; i++) {
		const char *m = r->base->metrics[sc->order[i]];

		if (!sc->gone[sc->order[i]])
			continue;
		if (used + strlen(m) + 8 < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", m);
		n++;
	}
	if (!n)
		return 0;
	return add_issue(r, GS_VERDICT_FAIL, NULL, "missing metrics",
			 "%zu metric%s of the baseline %s in no new run: %s", n, n == 1 ? "" : "s",
			 n == 1 ? "is" : "are", names);
}

int gs_regress_compare(const struct gs_rset *base, const struct gs_rset *now,
		       const struct gs_regress_opts *o, struct gs_regress *out, char *err,
		       size_t err_len)
{
	struct scratch sc = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	struct named *names = NULL;
	char diff[512];
	bool *now_used = NULL;
	size_t f, g, i, most = base->n_runs > now->n_runs ? base->n_runs : now->n_runs;
	int rc = GS_ENOMEM;

	memset(out, 0, sizeof(*out));
	out->base = base;
	out->now = now;
	out->opts = *o;
	out->match = malloc((base->n_families + 1) * sizeof(*out->match));
	now_used = calloc(now->n_families + 1, sizeof(*now_used));
	sc.b = malloc((2 * most + 1) * sizeof(*sc.b));
	sc.n = malloc((2 * most + 1) * sizeof(*sc.n));
	sc.va = malloc((most + 1) * sizeof(*sc.va));
	sc.vb = malloc((most + 1) * sizeof(*sc.vb));
	sc.metric_map = malloc((base->n_metrics + 1) * sizeof(*sc.metric_map));
	sc.order = malloc((base->n_metrics + 1) * sizeof(*sc.order));
	sc.pol_order = malloc((base->n_policies + 1) * sizeof(*sc.pol_order));
	sc.gone = calloc(base->n_metrics + 1, sizeof(*sc.gone));
	names = malloc((base->n_metrics + base->n_policies + 1) * sizeof(*names));
	if (!out->match || !now_used || !sc.b || !sc.n || !sc.va || !sc.vb || !sc.metric_map ||
	    !sc.order || !sc.pol_order || !sc.gone || !names)
		goto out;
	for (i = 0; i < base->n_policies; i++) {
		names[i].name = base->policies[i];
		names[i].i = i;
	}
	qsort(names, base->n_policies, sizeof(*names), cmp_policy);
	for (i = 0; i < base->n_policies; i++)
		sc.pol_order[i] = names[i].i;
	for (i = 0; i < base->n_metrics; i++) {
		sc.metric_map[i] = gs_regress_find_name(now->metrics, now->n_metrics, base->metrics[i]);
		names[i].name = base->metrics[i];
		names[i].i = i;
	}
	qsort(names, base->n_metrics, sizeof(*names), cmp_named);
	for (i = 0; i < base->n_metrics; i++)
		sc.order[i] = names[i].i;
	rc = 0;
	for (f = 0; f < base->n_families && !rc; f++) {
		const struct gs_rfamily *b = &base->families[f];

		out->match[f] = NONE;
		for (g = 0; g < now->n_families; g++)
			if (!now_used[g] && same_inputs(b, &now->families[g], true))
				break;
		if (g < now->n_families) {
			out->match[f] = g;
			now_used[g] = true;
			rc = compare_family(out, f, g, &sc);
			continue;
		}
		for (g = 0; g < now->n_families; g++)
			if (!now_used[g] && same_inputs(b, &now->families[g], false))
				break;
		if (g < now->n_families) {
			const struct gs_rfamily *w = &now->families[g];
			bool nodes = strcmp(b->nodes_sha256, w->nodes_sha256) != 0;
			bool pods = strcmp(b->pods_sha256, w->pods_sha256) != 0;

			now_used[g] = true;
			char what[512];
			int n = 0;

			now_used[g] = true;
			what[0] = '\0';
			if (nodes)
				n = snprintf(what, sizeof(what), "%s sha256 %.12s -> %.12s", b->nodes_file,
					     b->nodes_sha256, w->nodes_sha256);
			if (pods && n >= 0 && (size_t)n < sizeof(what))
				snprintf(what + n, sizeof(what) - (size_t)n, "%s%s sha256 %.12s -> %.12s",
					 n ? ", " : "", b->pods_file, b->pods_sha256, w->pods_sha256);
			rc = add_issue(out, GS_VERDICT_FAIL, b->name, "changed inputs",
				       "%s: not compared; if the change is meant, regenerate the"
				       " baseline", what);
			continue;
		}
		rc = add_issue(out, o->partial ? GS_VERDICT_WARN : GS_VERDICT_FAIL, b->name, "not run",
			       "no new run has this family's inputs and parameters (%s, %s, %s)%s%s",
			       b->nodes_file, b->pods_file, b->mode, near_params(b, now, diff,
										sizeof(diff)),
			       o->partial ? "; --partial: not compared" : "");
	}
	for (g = 0; g < now->n_families && !rc; g++) {
		size_t n = 0;

		if (now_used[g])
			continue;
		for (i = 0; i < now->n_runs; i++)
			n += now->runs[i].family == g;
		rc = add_issue(out, GS_VERDICT_WARN, now->families[g].name, "extra family",
			       "%zu runs of %s, %s (%s) not in the baseline", n,
			       now->families[g].nodes_file, now->families[g].pods_file,
			       now->families[g].mode);
	}
	if (!rc && now->duplicates)
		rc = add_issue(out, GS_VERDICT_NOTE, NULL, "duplicate runs",
			       "%zu runs are in the new database twice; the newest of each counts",
			       now->duplicates);
	if (!rc)
		rc = missing_metrics(out, &sc);
	if (!rc)
		rc = judge_stat(out);
	if (!rc)
		rc = compare_speed(out);
	for (i = 0; !rc && i < out->n_rows; i++) {
		out->n_fail += out->rows[i].verdict == GS_VERDICT_FAIL;
		out->n_warn += out->rows[i].verdict == GS_VERDICT_WARN;
	}
	for (i = 0; !rc && i < out->n_issues; i++) {
		out->n_fail += out->issues[i].verdict == GS_VERDICT_FAIL;
		out->n_warn += out->issues[i].verdict == GS_VERDICT_WARN;
	}
	for (i = 0; !rc && i < out->n_speed; i++) {
		out->n_fail += out->speed[i].verdict == GS_VERDICT_FAIL;
		out->n_warn += out->speed[i].verdict == GS_VERDICT_WARN;
	}
out:
	free(now_used);
	free(sc.b);
	free(sc.n);
	free(sc.va);
	free(sc.vb);
	free(sc.metric_map);
	free(sc.order);
	free(sc.pol_order);
	free(sc.gone);
	free(names);
	if (rc) {
		gs_errf(err, err_len, "out of memory");
		gs_regress_release(out);
	}
	return rc;
}

/* ---- the terminal table -------------------------------------------------- */

/* A number for the table: 6 significant digits, "-" for none. */
static const char *num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.6g", v);
	return buf;
}

/* The TEST column: how the row was judged. */
static void test_text(const struct gs_regress_row *row, char *buf, size_t len)
{
	if (row->rule == GS_REGRESS_EXACT) {
		snprintf(buf, len, "exact: %zu/%zu seeds moved, max %.2g rel%s%s", row->n_moved,
			 row->n_base, row->max_rel, row->note ? "; " : "", row->note ? row->note : "");
		return;
	}
	if (isnan(row->p)) {
		snprintf(buf, len, "welch: %s", row->note ? row->note : "not tested");
		return;
	}
	if (isnan(row->t))
		snprintf(buf, len, "welch: no spread, p=%.3g holm=%.3g", row->p, row->p_holm);
	else
		snprintf(buf, len, "welch t=%.3g df=%.3g p=%.3g holm=%.3g", row->t, row->df, row->p,
			 row->p_holm);
	if (row->verdict == GS_VERDICT_SMALL && len > strlen(buf) + 20)
		snprintf(buf + strlen(buf), len - strlen(buf), " (< min effect)");
}

/* The difference column: now - baseline and the change in percent of the baseline. */
static void diff_text(const struct gs_regress_row *row, char *d, size_t dlen, char *pct,
		      size_t plen)
{
	double diff = row->now_mean - row->base_mean;

	if (isnan(diff)) {
		snprintf(d, dlen, "-");
		snprintf(pct, plen, "-");
		return;
	}
	snprintf(d, dlen, "%+.4g", diff);
	if (row->base_mean != 0)
		snprintf(pct, plen, "%+.2f%%", 100.0 * diff / fabs(row->base_mean));
	else
		snprintf(pct, plen, "%s", diff == 0 ? "0" : "new");
}

void gs_regress_print(const struct gs_regress *r, FILE *f, bool all)
{
	char a[32], b[32], d[32], pct[32], test[160];
	size_t i, shown = 0;

	for (i = 0; i < r->n_rows; i++) {
		const struct gs_regress_row *row = &r->rows[i];

		if (!all && row->verdict < GS_VERDICT_SMALL)
			continue;
		if (!shown++)
			fprintf(f, "%-7s %-29s %-13s %-22s %12s %12s %11s %9s  %s\n", "VERDICT",
				"FAMILY", "POLICY", "METRIC", "BASELINE", "NOW", "DIFF", "DIFF%",
				"TEST");
		diff_text(row, d, sizeof(d), pct, sizeof(pct));
		test_text(row, test, sizeof(test));
		fprintf(f, "%-7s %-29s %-13s %-22s %12s %12s %11s %9s  %s\n",
			gs_verdict_name(row->verdict), row->family, row->policy, row->metric,
			num(a, sizeof(a), row->base_mean), num(b, sizeof(b), row->now_mean), d, pct,
			test);
	}
	if (!shown)
		fprintf(f, "No figure moved%s.\n",
			r->n_tests ? " significantly (statistical rule)" : "");
	if (r->n_issues) {
		fputc('\n', f);
		for (i = 0; i < r->n_issues; i++) {
			const struct gs_regress_issue *is = &r->issues[i];

			fprintf(f, "%-7s %-29s %s: %s\n", gs_verdict_name(is->verdict),
				is->family ? is->family : "-", is->what, is->detail);
		}
	}
	for (i = 0, shown = 0; i < r->n_speed; i++)
		shown += all || r->speed[i].verdict != GS_VERDICT_NOTE;
	if (shown) {
		fprintf(f, "\n%-7s %-29s %14s %14s %7s %11s %11s %7s\n", "SPEED", "FAMILY",
			"EVENTS/S BASE", "EVENTS/S NOW", "RATIO", "SWEEP S", "SWEEP S NOW",
			"RATIO");
		for (i = 0; i < r->n_speed; i++) {
			const struct gs_regress_speed *s = &r->speed[i];
			char e1[32], e2[32], s1[32], s2[32], r1[32], r2[32];

			/* Families too brief to judge: their speed is noise, not news. */
			if (!all && s->verdict == GS_VERDICT_NOTE)
				continue;
			snprintf(e1, sizeof(e1), "%.0f", s->base_eps);
			snprintf(e2, sizeof(e2), "%.0f", s->now_eps);
			snprintf(r1, sizeof(r1), "%.2f", s->eps_ratio);
			snprintf(s1, sizeof(s1), isnan(s->base_sweep_s) ? "-" : "%.2f", s->base_sweep_s);
			snprintf(s2, sizeof(s2), isnan(s->now_sweep_s) ? "-" : "%.2f", s->now_sweep_s);
			if (isnan(s->sweep_ratio))
				snprintf(r2, sizeof(r2), "-");
			else
				snprintf(r2, sizeof(r2), "%.2f", s->sweep_ratio);
			fprintf(f, "%-7s %-29s %14s %14s %7s %11s %11s %7s\n",
				gs_verdict_name(s->verdict), s->family ? s->family : "(all)", e1, e2,
				r1, s1, s2, r2);
		}
	}
	if (!all && shown < r->n_speed)
		fprintf(f, "%s%zu famil%s simulated for under %g s: too brief to judge their speed "
			   "(--all lists them)\n", shown ? "" : "\n", r->n_speed - shown,
			r->n_speed - shown == 1 ? "y" : "ies", r->opts.min_speed_s);
	fprintf(f, "\n%s: %zu failure%s, %zu warning%s; compared %zu values of %zu runs in %zu"
		   " famil%s (%zu statistical tests)\n",
		r->n_fail ? "FAIL" : "pass", r->n_fail, r->n_fail == 1 ? "" : "s", r->n_warn,
		r->n_warn == 1 ? "" : "s", r->values, r->runs, r->families,
		r->families == 1 ? "y" : "ies", r->n_tests);
}
