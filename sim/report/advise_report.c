/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_report.c - `gpusim advise --report DIR` (see advise_report.h):
 * the page, its data files and its figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/grow.h"
#include "io/path.h"
#include "report/advise_print.h"
#include "report/advise_report.h"
#include "report/plot.h"
#include "store/plot_data.h"
#include "store/results.h"

/* Points per CDF line at most. */
#define CDF_POINTS 500

/* What the page needs while it is written. */
struct page {
	const struct gs_advise *a;
	const struct gs_advise_spec *spec;
	const char *dir, *scripts;
	char data[4096];
	FILE *md;
	char *note;
	size_t note_len;
	struct gs_db *db;
	bool pods_missing;
};

/* Appends "what: why" to the note the command prints. */
static void add_note(struct page *p, const char *what, const char *why)
{
	size_t used = strlen(p->note);

	if (used + 2 < p->note_len)
		snprintf(p->note + used, p->note_len - used, "%s%s: %s", used ? "; " : "", what,
			 why);
}

static FILE *open_data(struct page *p, const char *name, char *err, size_t err_len)
{
	char path[4608];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", p->data, name);
	f = fopen(path, "w");
	if (!f)
		gs_errf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
	return f;
}

static int close_data(FILE *f, const char *name, char *err, size_t err_len)
{
	int bad = ferror(f);

	bad |= fclose(f);
	if (bad) {
		gs_errf(err, err_len, "%s: write error", name);
		return GS_EIO;
	}
	return 0;
}

static const char *status_of(const struct gs_decide_block *k, const struct gs_decide_row *r)
{
	if (r->out == GS_DECIDE_REFERENCE)
		return "reference";
	if (r->out != GS_DECIDE_IN)
		return "out";
	return r->cand == k->best ? "**best**" : r->tie ? "tie" : "lost";
}

/* A number with prec decimals (or, with sig, prec significant digits) as a table cell. */
static void cell(FILE *f, double v, int prec, bool sig)
{
	if (isnan(v) || isinf(v))
		fprintf(f, " - |");
	else if (sig)
		fprintf(f, " %.*g |", prec, v);
	else
		fprintf(f, " %.*f |", prec, v);
}

/* The table of every candidate of block b. */
static void table(struct page *p, size_t b)
{
	const struct gs_advise *a = p->a;
	const struct gs_decide_block *k = &a->decision.blocks[b];
	char why[1024];
	size_t r;

	fprintf(p->md, "| rank | mechanism | policy | status | objective | %g%% CI | seeds | "
		       "Holm p vs best | failed | never started | mean wait (s) | mean slowdown | "
		       "p99 slowdown | allocated GPU %% | useful GPU %% | why |\n",
		100 * p->spec->conf);
	fprintf(p->md, "|---:|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		       "---|\n");
	for (r = 0; r < k->n_rows; r++) {
		const struct gs_decide_row *row = &k->rows[r];
		const double *f = row->fig_mean;

		fprintf(p->md, "| %zu | %s | %s | %s |", r + 1, a->cands[row->cand].sharing,
			a->cands[row->cand].policy, status_of(k, row));
		cell(p->md, row->mean, 4, true);
		if (isnan(row->lo))
			fprintf(p->md, " - |");
		else
			fprintf(p->md, " %.4g to %.4g |", row->lo, row->hi);
		fprintf(p->md, " %zu |", row->n);
		cell(p->md, row->p_holm, 2, true);
		cell(p->md, f[GS_FIG_FAILED], 1, false);
		cell(p->md, f[GS_FIG_PENDING], 1, false);
		cell(p->md, f[GS_FIG_WAIT_MEAN], 0, false);
		cell(p->md, f[GS_FIG_SLOWDOWN], 2, false);
		cell(p->md, f[GS_FIG_SLOWDOWN_P99], 2, false);
		cell(p->md, f[GS_FIG_ALLOC], 1, false);
		cell(p->md, f[GS_FIG_USEFUL], 1, false);
		fprintf(p->md, " %s |\n", gs_advise_reason(a, p->spec, b, row, why, sizeof(why)));
	}
}

/* Whether point (x, y) is dominated in set pts: lower y and, by sign, better x. */
struct pt {
	double x, y;
};

static bool dominated(const struct pt *pts, size_t n, size_t i, double xsign)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (j != i && pts[j].y <= pts[i].y && xsign * pts[j].x <= xsign * pts[i].x &&
		    (pts[j].y < pts[i].y || xsign * pts[j].x < xsign * pts[i].x))
			return true;
	return false;
}

static int cmp_pt(const void *x, const void *y)
{
	const struct pt *a = x, *b = y;

	return (a->x > b->x) - (a->x < b->x);
}

/*
 * The Pareto data of trace t: per load, the points of the candidates still
 * in (allocated %, useful %, objective, label) and the fronts against each
 * x, the references in a file of their own. Returns the loads with points.
 */
static int pareto_data(struct page *p, size_t t, size_t *n_loads, char *err, size_t err_len)
{
	const struct gs_advise *a = p->a;
	double sign = !p->spec->objective.score &&
			      gs_metric_higher_better(p->spec->objective.metric) ? -1 : 1;
	size_t l, r, i, n;
	char name[1024], lw[32];
	int rc = 0;

	*n_loads = 0;
	for (l = 0; l < a->n_loads && !rc; l++) {
		size_t b = t * a->n_loads + l;
		const struct gs_decide_block *k = &a->decision.blocks[b];
		struct pt *alloc = calloc(k->n_rows + 1, sizeof(*alloc));
		struct pt *useful = calloc(k->n_rows + 1, sizeof(*useful));
		FILE *f, *g;

		if (!alloc || !useful) {
			free(alloc);
			free(useful);
			gs_errf(err, err_len, "out of memory");
			return GS_ENOMEM;
		}
		gs_advise_print_load(a, b, true, lw, sizeof(lw));
		snprintf(name, sizeof(name), "%s.%s.points.dat", a->trace_names[t], lw);
		f = open_data(p, name, err, err_len);
		snprintf(name, sizeof(name), "%s.%s.refs.dat", a->trace_names[t], lw);
		g = f ? open_data(p, name, err, err_len) : NULL;
		if (!f || !g) {
			if (f)
				fclose(f);
			free(alloc);
			free(useful);
			return GS_EIO;
		}
		for (r = 0, n = 0; r < k->n_rows; r++) {
			const struct gs_decide_row *row = &k->rows[r];
			double x1 = row->fig_mean[GS_FIG_ALLOC], x2 = row->fig_mean[GS_FIG_USEFUL];

			if (isnan(row->mean) || isnan(x1) || isnan(x2))
				continue;
			if (row->out == GS_DECIDE_REFERENCE) {
				fprintf(g, "%.6g\t%.6g\t%.6g\t%s\n", x1, x2, row->mean,
					a->cands[row->cand].policy);
				continue;
			}
			if (row->out != GS_DECIDE_IN)
				continue;
			fprintf(f, "%.6g\t%.6g\t%.6g\t%s+%s\n", x1, x2, row->mean,
				a->cands[row->cand].sharing, a->cands[row->cand].policy);
			alloc[n].x = x1;
			useful[n].x = x2;
			alloc[n].y = useful[n].y = sign * row->mean;
			n++;
		}
		rc = close_data(f, name, err, err_len);
		if (!rc)
			rc = close_data(g, name, err, err_len);
		else
			fclose(g);
		/* The fronts: fewer GPUs allocated is better; more useful work is better. */
		for (i = 0; !rc && i < 2; i++) {
			struct pt *pts = i == 0 ? alloc : useful;
			struct pt *front = calloc(n + 1, sizeof(*front));
			size_t m = 0, j;

			if (!front) {
				rc = GS_ENOMEM;
				break;
			}
			for (j = 0; j < n; j++)
				if (!dominated(pts, n, j, i == 0 ? 1 : -1))
					front[m++] = pts[j];
			qsort(front, m, sizeof(*front), cmp_pt);
			snprintf(name, sizeof(name), "%s.%s.front_%s.dat", a->trace_names[t], lw,
				 i == 0 ? "alloc" : "useful");
			f = open_data(p, name, err, err_len);
			if (!f) {
				free(front);
				rc = GS_EIO;
				break;
			}
			for (j = 0; j < m; j++)
				fprintf(f, "%.6g\t%.6g\n", front[j].x, sign * front[j].y);
			rc = close_data(f, name, err, err_len);
			free(front);
		}
		free(alloc);
		free(useful);
		*n_loads += n > 0;
	}
	return rc;
}

/*
 * The completion-time CDF of candidate c in block b, over the pods of its
 * runs that kept them (*seeds of them): departed pods' completion times
 * against the share of all pods, so the curve ends at the share that
 * finished. Writes the file and *done / *total; GS_ENOENT when no run
 * kept its pods.
 */
static int cdf_data(struct page *p, size_t b, size_t c, const char *name, size_t *done,
		    size_t *total, size_t *seeds, char *err, size_t err_len)
{
	const struct gs_advise *a = p->a;
	double *v = NULL, *g;
	size_t nv = 0, cap = 0, s, i;
	int rc = 0;
	FILE *f;

	*done = *total = *seeds = 0;
	for (s = 0; s < a->n_seeds && !rc; s++) {
		int64_t id = a->run_ids[b][c * a->n_seeds + s];
		struct gs_run_row row;
		struct gs_db_pod *pods = NULL;
		size_t n = 0;

		if (id < 0)
			continue;
		rc = gs_db_get_run(p->db, id, &row, err, err_len);
		if (rc)
			break;
		/* advise keeps the pods of the first seed only (--no-pods: of none). */
		if (!row.pods_stored) {
			gs_run_row_release(&row);
			continue;
		}
		gs_run_row_release(&row);
		(*seeds)++;
		rc = gs_db_load_pods(p->db, id, &pods, &n, err, err_len);
		for (i = 0; !rc && i < n; i++) {
			(*total)++;
			if (pods[i].state != GS_POD_DONE)
				continue;
			g = gs_grow(v, &cap, nv, sizeof(*v), 4096);
			if (!g) {
				rc = GS_ENOMEM;
				gs_errf(err, err_len, "out of memory");
				break;
			}
			v = g;
			v[nv++] = (double)(pods[i].t_end_s - pods[i].t_arrive_s);
		}
		gs_db_pods_free(pods, n);
	}
	if (!rc && *seeds == 0)
		rc = GS_ENOENT;
	if (rc) {
		free(v);
		return rc;
	}
	*done = nv;
	qsort(v, nv, sizeof(*v), gs_cmp_f64_elem);
	f = open_data(p, name, err, err_len);
	if (!f) {
		free(v);
		return GS_EIO;
	}
	{
		size_t below = 0, k;

		while (below < nv && v[below] < 1)
			below++;
		fprintf(f, "1\t%.6f\n", *total ? (double)below / (double)*total : 0.0);
		for (k = 1; k <= CDF_POINTS && nv; k++) {
			size_t rank = (size_t)ceil((double)k * (double)nv / CDF_POINTS);

			if (rank < 1)
				rank = 1;
			if (v[rank - 1] >= 1)
				fprintf(f, "%.6g\t%.6f\n", v[rank - 1],
					(double)rank / (double)*total);
		}
	}
	free(v);
	return close_data(f, name, err, err_len);
}

/* Runs one script with vars; a failure to draw is a note, not an error. */
static bool draw(struct page *p, const char *script, const char *vars, const char *base)
{
	char path[4608], msg[1024];

	snprintf(path, sizeof(path), "%s/%s", p->scripts, script);
	if (gs_plot_gnuplot(vars, path, msg, sizeof(msg))) {
		add_note(p, base, msg);
		fprintf(p->md, "\n*%s was not drawn: %s*\n", base, msg);
		return false;
	}
	return true;
}

/* The CDF figure of block b: each mechanism's top-ranked candidate. */
static int cdf_figure(struct page *p, size_t b, char *err, size_t err_len)
{
	const struct gs_advise *a = p->a;
	const struct gs_decide_block *k = &a->decision.blocks[b];
	char files[4096] = "", titles[4096] = "", name[1024], base[512], lw[32], slug[256];
	char vars[16384], title[512];
	size_t r, j, n = 0, fo = 0, to = 0, done, total, seeds = 0;
	int rc = 0;

	gs_advise_print_load(a, b, true, lw, sizeof(lw));
	for (r = 0; r < k->n_rows && !rc; r++) {
		const struct gs_decide_row *row = &k->rows[r];

		/* The first row of each mechanism (rows are in rank order). */
		for (j = 0; j < r; j++)
			if (!strcmp(a->cands[k->rows[j].cand].sharing, a->cands[row->cand].sharing))
				break;
		if (j < r)
			continue;
		gs_plot_sharing_slug(a->cands[row->cand].sharing, slug, sizeof(slug));
		snprintf(name, sizeof(name), "%s.%s.cdf.%s.dat", a->trace_names[b / a->n_loads], lw,
			 slug);
		rc = cdf_data(p, b, row->cand, name, &done, &total, &seeds, err, err_len);
		if (rc == GS_ENOENT) {
			p->pods_missing = true;
			return 0;
		}
		if (rc)
			return rc;
		fo += (size_t)snprintf(files + fo, sizeof(files) - fo, "%s%s", n ? " " : "", name);
		to += (size_t)snprintf(titles + to, sizeof(titles) - to,
				       "%s\"%s + %s (%.1f%% unfinished)\"", n ? " " : "",
				       a->cands[row->cand].sharing, a->cands[row->cand].policy,
				       total ? 100.0 * (double)(total - done) / (double)total : 0.0);
		n++;
	}
	if (!n || fo >= sizeof(files) || to >= sizeof(titles))
		return 0;
	snprintf(base, sizeof(base), "advise_cdf_%s_%s", a->trace_names[b / a->n_loads], lw);
	if (isnan(gs_advise_load(a, b)))
		snprintf(title, sizeof(title), "%s, trace times: completion time, every pod of "
			 "%zu seed%s", a->trace_names[b / a->n_loads], seeds, seeds == 1 ? "" : "s");
	else
		snprintf(title, sizeof(title), "%s, load %s%%: completion time, every pod of %zu "
			 "seed%s", a->trace_names[b / a->n_loads], lw, seeds, seeds == 1 ? "" : "s");
	snprintf(vars, sizeof(vars), "scriptdir='%s/'; datadir='%s'; files='%s'; titles='%s';"
		 " out='%s/%s'; figtitle='%s'", p->scripts, p->data, files, titles, p->dir, base,
		 title);
	if (draw(p, "plot_advise_cdf.gp", vars, base))
		fprintf(p->md, "\n![Completion-time CDFs](%s.png)\n\nEach mechanism's best-ranked "
			       "candidate, the pods of its runs that kept them (the first seed's: "
			       "advise stores no others); the share is of all pods, so a curve ends "
			       "below 1 by the pods that failed or never started.\n", base);
	return 0;
}

/* The capacity figure of block b: the first target's metric against GPUs per candidate. */
static int capacity_figure(struct page *p, size_t b, char *err, size_t err_len)
{
	const struct gs_advise *a = p->a;
	const struct gs_cond *c = &p->spec->targets[0];
	char files[4096] = "", titles[4096] = "", name[1024], base[512], lw[32], cond[128];
	char vars[16384];
	size_t i, j, n = 0, fo = 0, to = 0;
	int rc = 0;

	gs_advise_print_load(a, b, true, lw, sizeof(lw));
	for (i = 0; i < a->n_sizes[b] && !rc; i++) {
		const struct gs_advise_size *z = &a->sizes[b][i];
		FILE *f;

		snprintf(name, sizeof(name), "%s.%s.capacity.%zu.dat",
			 a->trace_names[b / a->n_loads], lw, i);
		f = open_data(p, name, err, err_len);
		if (!f)
			return GS_EIO;
		for (j = 0; j < a->n_points; j++) {
			const struct gs_advise_point *q = &a->points[j];

			if (q->block == b && q->cand == z->cand && !isnan(q->value))
				fprintf(f, "%lld\t%.6g\t%d\n", (long long)q->gpus, q->value, q->meets);
		}
		rc = close_data(f, name, err, err_len);
		fo += (size_t)snprintf(files + fo, sizeof(files) - fo, "%s%s", n ? " " : "", name);
		to += (size_t)snprintf(titles + to, sizeof(titles) - to, "%s\"%s + %s\"",
				       n ? " " : "", a->cands[z->cand].sharing,
				       a->cands[z->cand].policy);
		n++;
	}
	if (rc || !n || fo >= sizeof(files) || to >= sizeof(titles))
		return rc;
	snprintf(base, sizeof(base), "advise_capacity_%s_%s", a->trace_names[b / a->n_loads], lw);
	snprintf(vars, sizeof(vars), "scriptdir='%s/'; datadir='%s'; files='%s'; titles='%s';"
		 " out='%s/%s'; bound=%.17g; ylabel='%s (%s)'; figtitle='%s, %s%s%s: smallest "
		 "cluster meeting %s'", p->scripts, p->data, files, titles, p->dir, base, c->value,
		 gs_metric_text(c->metric), *gs_metric_unit(c->metric) ? gs_metric_unit(c->metric) :
		 "ratio", a->trace_names[b / a->n_loads],
		 isnan(gs_advise_load(a, b)) ? "trace times" : "load ",
		 isnan(gs_advise_load(a, b)) ? "" : lw, isnan(gs_advise_load(a, b)) ? "" : "%",
		 gs_cond_format(c, cond, sizeof(cond)));
	if (draw(p, "plot_advise_capacity.gp", vars, base))
		fprintf(p->md, "\n![Capacity](%s.png)\n\nEvery run of the search: %s against the "
			       "cluster's GPUs, one point per seed and size; filled points meet the "
			       "target.\n", base, gs_metric_text(c->metric));
	return 0;
}

static int pareto_figure(struct page *p, size_t t, char *err, size_t err_len)
{
	const struct gs_advise *a = p->a;
	char loads[1024] = "", base[512], vars[8192], obj[256], lw[32];
	size_t l, o = 0, n;
	int rc = pareto_data(p, t, &n, err, err_len);

	if (rc || !n)
		return rc;
	for (l = 0; l < a->n_loads; l++)
		o += (size_t)snprintf(loads + o, sizeof(loads) - o, "%s%s", l ? " " : "",
				      gs_advise_print_load(a, t * a->n_loads + l, true, lw,
							   sizeof(lw)));
	snprintf(base, sizeof(base), "advise_pareto_%s", a->trace_names[t]);
	if (p->spec->objective.score) {
		double w = 0;

		for (l = 0; l < p->spec->objective.n_terms; l++)
			w += p->spec->objective.weight[l];
		snprintf(obj, sizeof(obj), "score (the baseline scores %g)", w);
	} else
		snprintf(obj, sizeof(obj), "%s%s%s%s", gs_metric_text(p->spec->objective.metric),
			 *gs_metric_unit(p->spec->objective.metric) ? " (" : "",
			 gs_metric_unit(p->spec->objective.metric),
			 *gs_metric_unit(p->spec->objective.metric) ? ")" : "");
	snprintf(vars, sizeof(vars), "scriptdir='%s/'; datadir='%s'; trace='%s'; loads='%s';"
		 " out='%s/%s'; ylabel='%s'", p->scripts, p->data, a->trace_names[t], loads, p->dir,
		 base, obj);
	if (draw(p, "plot_advise_pareto.gp", vars, base))
		fprintf(p->md, "\n![Pareto front](%s.png)\n\nThe objective of every candidate "
			       "still in against the GPU share it allocates (left) and the useful "
			       "work it gets done (right), one colour per load, the Pareto front "
			       "drawn; crosses are the ideal reference. Candidates that are out "
			       "(unfinished pods, constraints) are not drawn: their objective is "
			       "infinite.\n", base);
	return 0;
}

int gs_advise_report(const struct gs_advise *a, const struct gs_advise_spec *spec,
		     const char *dir, const char *scripts_dir, char *note, size_t note_len,
		     char *err, size_t err_len)
{
	struct page p;
	char path[4608], lt[64];
	size_t t, b;
	int rc;

	memset(&p, 0, sizeof(p));
	note[0] = '\0';
	p.a = a;
	p.spec = spec;
	p.dir = dir;
	p.scripts = scripts_dir;
	p.note = note;
	p.note_len = note_len;
	snprintf(p.data, sizeof(p.data), "%s/data", dir);
	rc = gs_mkdir_p(p.data, err, err_len);
	if (rc)
		return rc;
	rc = gs_db_open_existing(spec->db_path, &p.db, err, err_len);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/advise.md", dir);
	p.md = fopen(path, "w");
	if (!p.md) {
		gs_errf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		gs_db_close(p.db);
		return GS_EIO;
	}
	fprintf(p.md, "# gpusim advise: %s\n\nThe verdict, as `gpusim advise` printed it "
		      "(decision %lld in `%s`, [how to check it](#checking-the-verdict)):\n\n```\n",
		spec->nodes_path, (long long)a->decision_id, spec->db_path);
	gs_advise_print(p.md, a, spec);
	fprintf(p.md, "```\n");
	for (t = 0; t < a->n_traces && !rc; t++) {
		fprintf(p.md, "\n## %s\n", a->trace_names[t]);
		rc = pareto_figure(&p, t, err, err_len);
		for (b = t * a->n_loads; !rc && b < (t + 1) * a->n_loads; b++) {
			double l = gs_advise_load(a, b);

			if (isnan(l))
				snprintf(lt, sizeof(lt), "trace times");
			else
				snprintf(lt, sizeof(lt), "load %g%%", l);
			fprintf(p.md, "\n### %s, %s\n\n", a->trace_names[t], lt);
			table(&p, b);
			rc = cdf_figure(&p, b, err, err_len);
			if (!rc && a->capacity)
				rc = capacity_figure(&p, b, err, err_len);
		}
	}
	if (p.pods_missing) {
		add_note(&p, "completion-time CDFs not drawn",
			 "the runs were stored without pods (--no-pods)");
		fprintf(p.md, "\n*The completion-time CDFs are left out: the runs were stored "
			      "without pods (`--no-pods`).*\n");
	}
	fprintf(p.md, "\n## Checking the verdict\n\nEvery run the verdict rests on is in "
		      "`decision_runs` (results/SCHEMA.md); the candidates' means over seeds, for "
		      "example:\n\n```sh\nsqlite3 %s \"SELECT d.sharing, d.policy, d.load_pct, "
		      "count(*), avg(s.completion_mean_s), sum(s.n_failed), avg(s.slowdown_p99) "
		      "FROM decision_runs d JOIN run_summary s USING (run_id) WHERE d.decision_id "
		      "= %lld AND d.role = 'candidate' GROUP BY 1, 2, 3 ORDER BY 3, 5\"\n```\n",
		spec->db_path, (long long)a->decision_id);
	if (fclose(p.md) && !rc) {
		gs_errf(err, err_len, "%s: write error", path);
		rc = GS_EIO;
	}
	gs_db_close(p.db);
	return rc;
}
