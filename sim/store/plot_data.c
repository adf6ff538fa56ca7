/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_data.c - the data behind `gpusim plot`'s figures, read from the
 * results database and written as plain files for gnuplot (plot_data.h).
 *
 * The statistics follow Weng et al., ATC 2023, section 6: per run, the
 * mean of each metric over the events whose arrived workload rounds to the
 * same integer percent (the arrived_buckets view of the results store);
 * across seeds, the median and quartiles (line plots) or the mean and
 * sample standard deviation (bar charts), through GSL.
 *
 * The bench figures need no statistics of their own: their CSV files are
 * aggregates in SQL over the bench tables, the same files for `gpusim
 * plot` and `gpusim bench-import --csv-dir`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sqlite3.h>

#include "core/error.h"
#include "io/outfile.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/strv.h"
#include "io/path.h"
#include "policies/policy.h"
#include "store/bounds.h"
#include "store/plot_data.h"
#include "store/plot_data_internal.h"

/* Buckets kept per run: arrived 0..GS_PLOT_PCT_MAX percent. */
#define GS_PLOT_PCT_MAX 200

static const char *const family_names[] = { "cpu", "gpushare", "gpuspec", "multigpu" };

/* The bench modes in the order of the schema: the order of their key entries. */
static const char *const mode_order[] = { "exclusive", "timeslice", "mps", "hook" };

/* One run's per-percent metrics; NAN where the run has no sample. */
struct run_buckets {
	double unalloc[GS_PLOT_PCT_MAX + 1];
	double frag_ratio[GS_PLOT_PCT_MAX + 1];
	double frag_amount[GS_PLOT_PCT_MAX + 1];
};

struct run_ref {
	int64_t run_id;
	size_t trace, policy;
};

void gs_plot_index_release(struct gs_plot_index *ix)
{
	gs_strv_free(ix->traces, ix->n_traces);
	gs_strv_free(ix->policies, ix->n_policies);
	gs_strv_free(ix->families, ix->n_families);
	GS_MEM_FREE(ix->seeds_min, ix->seeds_max, ix->alloc_points, ix->frag_points, ix->bound,
		    ix->bound_at100);
	memset(ix, 0, sizeof(*ix));
}

int gs_plot_traces_load(struct sqlite3 *sq, struct gs_plot_traces *nm, char *err, size_t err_len)
{
	static const char sql[] = "SELECT DISTINCT pods_path FROM runs WHERE status = 'complete'"
				  " AND pods_path IS NOT NULL ORDER BY pods_path";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = 0, step;

	memset(nm, 0, sizeof(*nm));
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK) {
		gs_errf(err, err_len, "%s: %s", sqlite3_db_filename(sq, "main"), sqlite3_errmsg(sq));
		return GS_EDB;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char **g = gs_grow(nm->paths, &cap, nm->n, sizeof(*g), 16);

		if (!g) {
			rc = GS_ENOMEM;
			break;
		}
		nm->paths = g;
		nm->paths[nm->n] = strdup((const char *)sqlite3_column_text(st, 0));
		if (!nm->paths[nm->n]) {
			rc = GS_ENOMEM;
			break;
		}
		nm->n++;
	}
	if (!rc && step != SQLITE_DONE) {
		gs_errf(err, err_len, "%s: %s", sqlite3_db_filename(sq, "main"), sqlite3_errmsg(sq));
		rc = GS_EDB;
	}
	sqlite3_finalize(st);
	if (!rc) {
		nm->names = calloc(nm->n ? nm->n : 1, sizeof(*nm->names));
		if (!nm->names ||
		    gs_path_names((const char *const *)nm->paths, nm->n, "openb_pod_list_",
				  nm->names))
			rc = GS_ENOMEM;
	}
	if (rc) {
		if (rc == GS_ENOMEM)
			gs_errf(err, err_len, "out of memory");
		free(nm->names);
		nm->names = NULL;
		gs_plot_traces_release(nm);
	}
	return rc;
}

int gs_plot_prepare_traces(sqlite3 *sq, const char *sql, struct gs_plot_traces *nm,
			   sqlite3_stmt **st, char *err, size_t err_len)
{
	int rc = gs_plot_traces_load(sq, nm, err, err_len);

	if (rc)
		return rc;
	if (sqlite3_prepare_v2(sq, sql, -1, st, NULL) != SQLITE_OK) {
		gs_plot_traces_release(nm);
		return gs_plot_dberr(sq, err, err_len);
	}
	return 0;
}

char *gs_plot_traces_name(const struct gs_plot_traces *nm, const char *path)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (!strcmp(nm->paths[i], path))
			return strdup(nm->names[i]);
	/* A path no complete run has: its own short name. */
	{
		char *name = NULL;

		if (gs_path_names(&path, 1, "openb_pod_list_", &name))
			return NULL;
		return name;
	}
}

void gs_plot_traces_release(struct gs_plot_traces *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++) {
		free(nm->paths[i]);
		if (nm->names)
			free(nm->names[i]);
	}
	free(nm->paths);
	free(nm->names);
	memset(nm, 0, sizeof(*nm));
}

/* Position of s in order[0..n), n when absent: listed names sort first. */
static int rank_of(const char *const *order, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(order[i], s))
			return (int)i;
	return (int)n;
}

static int cmp_ranked(const char *const *order, size_t n, const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int rx = rank_of(order, n, x), ry = rank_of(order, n, y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

static int cmp_mode(const void *a, const void *b)
{
	return cmp_ranked(mode_order, sizeof(mode_order) / sizeof(*mode_order), a, b);
}

/* The family of a short trace name ("gpushare40" -> "gpushare"), or NULL. */
static const char *family_of(const char *trace)
{
	size_t i, len;

	for (i = 0; i < sizeof(family_names) / sizeof(*family_names); i++) {
		len = strlen(family_names[i]);
		if (!strncmp(trace, family_names[i], len) && trace[len] >= '0' && trace[len] <= '9')
			return family_names[i];
	}
	return NULL;
}

/* Lists the runs and fills the index's traces and policies, sorted. */
static int list_runs(sqlite3 *sq, int compat, struct gs_plot_index *ix, struct run_ref **runs_out,
		     size_t *n_out, char *err, size_t err_len)
{
	static const char sql[] =
		"SELECT run_id, policy, pods_path FROM runs"
		" WHERE status = 'complete' AND mode = 'inflate' AND pods_path IS NOT NULL"
		" AND (?1 < 0 OR json_extract(params_json, '$.compat') = ?1)"
		" ORDER BY run_id";
	struct run_ref *runs = NULL;
	struct gs_plot_traces names;
	char **pol_of = NULL, **trace_of = NULL;
	size_t n = 0, cap = 0, i;
	sqlite3_stmt *st = NULL;
	int rc = 0, step;

	rc = gs_plot_prepare_traces(sq, sql, &names, &st, err, err_len);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, compat);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char *tname = gs_plot_traces_name(&names, (const char *)sqlite3_column_text(st, 2));

		if (n == cap) {
			/* Three arrays, one capacity. */
			size_t ncap = gs_grow_cap(cap, 64);
			struct run_ref *r = gs_realloc_n(runs, ncap, sizeof(*r));
			char **p = gs_realloc_n(pol_of, ncap, sizeof(*p));
			char **t;

			if (r)
				runs = r;
			if (p)
				pol_of = p;
			t = gs_realloc_n(trace_of, ncap, sizeof(*t));
			if (t)
				trace_of = t;
			if (!r || !p || !t) {
				free(tname);
				rc = GS_ENOMEM;
				break;
			}
			cap = ncap;
		}
		runs[n].run_id = sqlite3_column_int64(st, 0);
		pol_of[n] = strdup((const char *)sqlite3_column_text(st, 1));
		trace_of[n] = tname;
		if (!pol_of[n] || !tname ||
		    gs_strv_intern(&ix->policies, &ix->n_policies, NULL, pol_of[n]) < 0 ||
		    gs_strv_intern(&ix->traces, &ix->n_traces, NULL, tname) < 0) {
			free(pol_of[n]);
			free(tname);
			rc = GS_ENOMEM;
			break;
		}
		n++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = gs_plot_dberr(sq, err, err_len);
	sqlite3_finalize(st);
	gs_plot_traces_release(&names);
	if (!rc && n == 0) {
		gs_errf(err, err_len, "%s: no complete inflate-mode runs%s to plot",
			sqlite3_db_filename(sq, "main"),
			compat == 1 ? " with --compat scoring" : compat == 0 ? " with --exact scoring" : "");
		rc = GS_ENOENT;
	}
	if (!rc) {
		qsort(ix->traces, ix->n_traces, sizeof(*ix->traces), gs_plot_cmp_str);
		qsort(ix->policies, ix->n_policies, sizeof(*ix->policies), gs_policy_qsort_cmp_paper);
		for (i = 0; i < n; i++) {
			runs[i].trace =
				(size_t)gs_strv_find(ix->traces, ix->n_traces, trace_of[i]);
			runs[i].policy =
				(size_t)gs_strv_find(ix->policies, ix->n_policies, pol_of[i]);
		}
	} else if (rc == GS_ENOMEM) {
		gs_errf(err, err_len, "out of memory");
	}
	for (i = 0; i < n; i++)
		GS_MEM_FREE(pol_of[i], trace_of[i]);
	GS_MEM_FREE(pol_of, trace_of);
	if (rc) {
		free(runs);
		return rc;
	}
	*runs_out = runs;
	*n_out = n;
	return 0;
}

static int load_buckets(sqlite3 *sq, sqlite3_stmt *st, int64_t run_id, struct run_buckets *b,
			char *err, size_t err_len)
{
	int i, step;

	for (i = 0; i <= GS_PLOT_PCT_MAX; i++)
		b->unalloc[i] = b->frag_ratio[i] = b->frag_amount[i] = NAN;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pct = sqlite3_column_int64(st, 0);

		if (pct < 0 || pct > GS_PLOT_PCT_MAX)
			continue;
		b->unalloc[pct] = sqlite3_column_double(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			b->frag_ratio[pct] = sqlite3_column_double(st, 2);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			b->frag_amount[pct] = sqlite3_column_double(st, 3);
	}
	if (step != SQLITE_DONE)
		return gs_plot_dberr(sq, err, err_len);
	return 0;
}

/*
 * Median and quartiles of metric[pct] over the runs that have it; NAN when
 * none does. v is scratch space for n doubles.
 */
static void quartiles(struct run_buckets *const *rb, size_t n, size_t field, int pct, double *v,
		      double out[3])
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const double *m = field == 0 ? rb[i]->unalloc :
				  field == 1 ? rb[i]->frag_ratio : rb[i]->frag_amount;

		if (!isnan(m[pct]))
			v[k++] = m[pct];
	}
	if (k == 0) {
		out[0] = out[1] = out[2] = NAN;
		return;
	}
	gsl_sort(v, 1, k);
	out[0] = gsl_stats_median_from_sorted_data(v, 1, k);
	out[1] = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.25);
	out[2] = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.75);
}

/* Writes the alloc and frag files of one (trace, policy); adds the points of each to *n_alloc, *n_frag. */
static int write_lines(struct run_buckets *const *rb, size_t n, const char *dir,
		       const char *trace, const char *policy, double *scratch, size_t *n_alloc,
		       size_t *n_frag, char *err, size_t err_len)
{
	char name[512];
	FILE *f;
	int pct, rc;

	snprintf(name, sizeof(name), "%s.%s.alloc.dat", trace, policy);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f)
		return GS_EIO;
	fprintf(f, "# %s, %s, %zu runs: arrived%%\tunallocated GPU %% median\tq25\tq75\n",
		trace, policy, n);
	for (pct = GS_PLOT_ALLOC_MIN_PCT; pct <= GS_PLOT_ALLOC_MAX_PCT; pct++) {
		double q[3];

		quartiles(rb, n, 0, pct, scratch, q);
		if (!isnan(q[0])) {
			fprintf(f, "%d\t%.4f\t%.4f\t%.4f\n", pct, q[0], q[1], q[2]);
			(*n_alloc)++;
		}
	}
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	if (rc)
		return rc;

	snprintf(name, sizeof(name), "%s.%s.frag.dat", trace, policy);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f)
		return GS_EIO;
	fprintf(f, "# %s, %s, %zu runs: arrived%%\tfrag ratio %% median\tq25\tq75"
		   "\tfrag amount %% median\tq25\tq75\n", trace, policy, n);
	for (pct = 0; pct <= GS_PLOT_FRAG_MAX_PCT; pct++) {
		double r[3], a[3];

		quartiles(rb, n, 1, pct, scratch, r);
		quartiles(rb, n, 2, pct, scratch, a);
		if (!isnan(r[0])) {
			fprintf(f, "%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", pct, r[0], r[1], r[2],
				a[0], a[1], a[2]);
			(*n_frag)++;
		}
	}
	return gs_plot_data_close(f, dir, name, err, err_len);
}

/* The numeric suffix of a family trace ("cpu050" -> 50), for ordering. */
static long trace_number(const char *trace, const char *family)
{
	return strtol(trace + strlen(family), NULL, 10);
}

static int write_bars(const struct gs_plot_index *ix, const char *family, double *const *at100,
		      const size_t *n_at100, const char *dir, char *err, size_t err_len)
{
	size_t t, p, order[256], n = 0, i, j;
	char name[256];
	FILE *f;

	for (t = 0; t < ix->n_traces && n < 256; t++)
		if (family_of(ix->traces[t]) && !strcmp(family_of(ix->traces[t]), family))
			order[n++] = t;
	/* By the number in the name: cpu050 before cpu100. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && trace_number(ix->traces[order[j - 1]], family) >
					     trace_number(ix->traces[order[j]], family); j--) {
			size_t tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	snprintf(name, sizeof(name), "bars_%s.dat", family);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f)
		return GS_EIO;
	fprintf(f, "# unallocated GPU %% at arrived 100%%: trace, then mean and sd per policy:");
	for (p = 0; p < ix->n_policies; p++)
		fprintf(f, " %s", ix->policies[p]);
	fprintf(f, ", then the bound of any placement (gpusim bound) and 0\n");
	for (i = 0; i < n; i++) {
		t = order[i];
		fprintf(f, "%s", ix->traces[t]);
		for (p = 0; p < ix->n_policies; p++) {
			const double *v = at100[t * ix->n_policies + p];
			size_t k = n_at100[t * ix->n_policies + p];

			if (k == 0)
				fprintf(f, "\tNaN\t0");
			else
				fprintf(f, "\t%.4f\t%.4f", gsl_stats_mean(v, 1, k),
					k > 1 ? gsl_stats_sd(v, 1, k) : 0.0);
		}
		if (isnan(ix->bound_at100[t]))
			fprintf(f, "\tNaN\t0\n");
		else
			fprintf(f, "\t%.4f\t0\n", ix->bound_at100[t]);
	}
	return gs_plot_data_close(f, dir, name, err, err_len);
}

/*
 * The bound line of trace t: the stored floors (gpusim bound) of the runs
 * of the first policy with runs of t, one per seed, as median, min and max
 * per arrived percent into <trace>.bound.dat, and their mean at 100 % into
 * ix->bound_at100[t]. Nothing is written when no run has a bound.
 */
static int write_bound(struct gs_db *db, struct gs_plot_index *ix, const struct run_ref *runs,
		       size_t n_runs, size_t t, const char *dir, char *err, size_t err_len)
{
	double (*curve)[GS_PLOT_PCT_MAX + 1] = NULL, *v = NULL;
	size_t i, k = 0, p = SIZE_MAX;
	char name[512];
	FILE *f;
	int pct, rc = 0;

	ix->bound_at100[t] = NAN;
	for (i = 0; i < n_runs; i++)
		if (runs[i].trace == t && runs[i].policy < p)
			p = runs[i].policy;
	curve = malloc((n_runs + 1) * sizeof(*curve));
	v = malloc((n_runs + 1) * sizeof(*v));
	if (!curve || !v) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto out;
	}
	for (i = 0; i < n_runs; i++) {
		int got;

		if (runs[i].trace != t || runs[i].policy != p)
			continue;
		got = gs_bounds_of_run(db, runs[i].run_id, curve[k], GS_PLOT_PCT_MAX, err, err_len);
		if (got < 0) {
			rc = got;
			goto out;
		}
		if (got > 0)
			k++;
	}
	if (k == 0)
		goto out;
	snprintf(name, sizeof(name), "%s.bound.dat", ix->traces[t]);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		rc = GS_EIO;
		goto out;
	}
	fprintf(f, "# %s, any placement (gpusim bound), %zu seeds: arrived%%\t"
		   "unallocated GPU %% floor median\tmin\tmax\n", ix->traces[t], k);
	for (pct = GS_PLOT_ALLOC_MIN_PCT; pct <= GS_PLOT_ALLOC_MAX_PCT; pct++) {
		size_t m = 0;

		for (i = 0; i < k; i++)
			if (!isnan(curve[i][pct]))
				v[m++] = curve[i][pct];
		if (m == 0)
			continue;
		gsl_sort(v, 1, m);
		fprintf(f, "%d\t%.4f\t%.4f\t%.4f\n", pct,
			gsl_stats_median_from_sorted_data(v, 1, m), v[0], v[m - 1]);
		if (pct == 100)
			ix->bound_at100[t] = gsl_stats_mean(v, 1, m);
	}
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	if (rc == 0)
		ix->bound[t] = true;
out:
	free(curve);
	free(v);
	return rc;
}

int gs_plot_export(struct gs_db *db, int compat, const char *dir, struct gs_plot_index *ix,
		   char *err, size_t err_len)
{
	static const char sql_buckets[] =
		"SELECT arrived_pct, unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct"
		" FROM arrived_buckets WHERE run_id = ?1";
	/* The headline figure, with the view's fallback when bucket 100 is empty. */
	static const char sql_at100[] = "SELECT unalloc_gpu_pct FROM run_summary WHERE run_id = ?1";
	sqlite3 *sq = gs_db_sqlite(db);
	sqlite3_stmt *st = NULL, *st100 = NULL;
	struct run_ref *runs = NULL;
	struct run_buckets *all = NULL, **group = NULL;
	double **at100 = NULL, *scratch = NULL;
	size_t *n_at100 = NULL, n_runs = 0, cells, i, t, p, f;
	int rc;

	memset(ix, 0, sizeof(*ix));
	rc = list_runs(sq, compat, ix, &runs, &n_runs, err, err_len);
	if (rc)
		return rc;
	cells = ix->n_traces * ix->n_policies;
	all = malloc(n_runs * sizeof(*all));
	group = malloc(n_runs * sizeof(*group));
	scratch = malloc(n_runs * sizeof(*scratch));
	at100 = calloc(cells, sizeof(*at100));
	n_at100 = calloc(cells, sizeof(*n_at100));
	if (!all || !group || !scratch || !at100 || !n_at100) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto out;
	}
	if (sqlite3_prepare_v2(sq, sql_buckets, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, sql_at100, -1, &st100, NULL) != SQLITE_OK) {
		rc = gs_plot_dberr(sq, err, err_len);
		goto out;
	}
	for (i = 0; i < n_runs; i++) {
		size_t c = runs[i].trace * ix->n_policies + runs[i].policy;

		rc = load_buckets(sq, st, runs[i].run_id, &all[i], err, err_len);
		if (rc)
			goto out;
		if (!at100[c]) {
			at100[c] = malloc(n_runs * sizeof(**at100));
			if (!at100[c]) {
				gs_errf(err, err_len, "out of memory");
				rc = GS_ENOMEM;
				goto out;
			}
		}
		sqlite3_bind_int64(st100, 1, runs[i].run_id);
		if (sqlite3_step(st100) == SQLITE_ROW && sqlite3_column_type(st100, 0) != SQLITE_NULL)
			at100[c][n_at100[c]++] = sqlite3_column_double(st100, 0);
		sqlite3_reset(st100);
	}
	ix->seeds_min = calloc(ix->n_traces, sizeof(*ix->seeds_min));
	ix->seeds_max = calloc(ix->n_traces, sizeof(*ix->seeds_max));
	ix->alloc_points = calloc(ix->n_traces, sizeof(*ix->alloc_points));
	ix->frag_points = calloc(ix->n_traces, sizeof(*ix->frag_points));
	ix->bound = calloc(ix->n_traces, sizeof(*ix->bound));
	ix->bound_at100 = calloc(ix->n_traces, sizeof(*ix->bound_at100));
	if (!ix->seeds_min || !ix->seeds_max || !ix->alloc_points || !ix->frag_points ||
	    !ix->bound || !ix->bound_at100) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto out;
	}
	ix->scoring = compat == 1 ? "compat" : compat == 0 ? "exact" : "compat and exact";
	for (t = 0; t < ix->n_traces; t++) {
		rc = write_bound(db, ix, runs, n_runs, t, dir, err, err_len);
		if (rc)
			goto out;
	}
	for (t = 0; t < ix->n_traces; t++) {
		for (p = 0; p < ix->n_policies; p++) {
			size_t n = 0;

			for (i = 0; i < n_runs; i++)
				if (runs[i].trace == t && runs[i].policy == p)
					group[n++] = &all[i];
			if (n == 0)
				continue;
			if (!ix->seeds_min[t] || n < ix->seeds_min[t])
				ix->seeds_min[t] = n;
			if (n > ix->seeds_max[t])
				ix->seeds_max[t] = n;
			rc = write_lines(group, n, dir, ix->traces[t], ix->policies[p], scratch,
					 &ix->alloc_points[t], &ix->frag_points[t], err, err_len);
			if (rc)
				goto out;
		}
	}
	for (f = 0; f < sizeof(family_names) / sizeof(*family_names); f++) {
		for (t = 0; t < ix->n_traces; t++)
			if (family_of(ix->traces[t]) && !strcmp(family_of(ix->traces[t]),
								 family_names[f]))
				break;
		if (t == ix->n_traces)
			continue;
		if (gs_strv_intern(&ix->families, &ix->n_families, NULL, family_names[f]) < 0) {
			gs_errf(err, err_len, "out of memory");
			rc = GS_ENOMEM;
			goto out;
		}
		rc = write_bars(ix, family_names[f], at100, n_at100, dir, err, err_len);
		if (rc)
			goto out;
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(st100);
	if (at100)
		for (i = 0; i < cells; i++)
			free(at100[i]);
	GS_MEM_FREE(at100, n_at100, scratch, group, all, runs);
	if (rc)
		gs_plot_index_release(ix);
	return rc;
}

/* ---- the bench figures ---------------------------------------------------- */

const struct gs_plot_bench_figure gs_plot_bench_figures[GS_PLOT_BENCH_N] = {
	[GS_PLOT_BENCH_OVERHEAD] = {
		"bench_overhead", "overhead.csv", "plot_bench_overhead.gp",
		"no client ran alone on a GPU in a mode other than exclusive"
		" (an overhead scenario)" },
	[GS_PLOT_BENCH_SLOWDOWN] = {
		"bench_slowdown", "slowdown.csv", "plot_bench_slowdown.gp",
		"the slowdown table (bench_slowdown) is empty" },
	[GS_PLOT_BENCH_SHARES] = {
		"bench_shares", "shares.csv", "plot_bench_shares.gp",
		"no client of a compute scenario has an achieved share" },
};

/*
 * How each CSV file is made: its header, its query (?1 is a source_sha256,
 * or NULL for every imported file) and the columns whose values make the
 * word lists of kernels, modes and devices (-1: none). Rows of one line
 * of a figure come together, in the order it is drawn.
 */
static const struct bench_query {
	const char *header;
	const char *sql;
	int kernel_col, mode_col, device_col;
} bench_queries[GS_PLOT_BENCH_N] = {
	[GS_PLOT_BENCH_OVERHEAD] = {
		"kernel,mode,overhead_pct,samples,device",
		"SELECT r.kernel, b.mode, avg(r.overhead_pct), count(*), r.device"
		" FROM bench_results r JOIN bench_runs b USING (bench_run_id)"
		" WHERE (?1 IS NULL OR b.source_sha256 = ?1) AND r.overhead_pct IS NOT NULL"
		" GROUP BY r.kernel, b.mode, r.device ORDER BY r.kernel, b.mode, r.device",
		0, 1, 4 },
	[GS_PLOT_BENCH_SLOWDOWN] = {
		"kernel,colocated,mode,factor,samples,device",
		"SELECT kernel, colocated, mode, sum(factor * samples) / sum(samples),"
		" sum(samples), device FROM bench_slowdown"
		" WHERE ?1 IS NULL OR source_sha256 = ?1"
		" GROUP BY kernel, colocated, mode, device"
		" ORDER BY kernel, mode, device, colocated",
		0, 2, 5 },
	[GS_PLOT_BENCH_SHARES] = {
		"scenario,mode,client,share_req,share,samples,device",
		"SELECT b.scenario, b.mode, r.client, r.share_req, avg(r.share), count(*),"
		" r.device FROM bench_results r JOIN bench_runs b USING (bench_run_id)"
		" WHERE (?1 IS NULL OR b.source_sha256 = ?1) AND b.measure = 'compute'"
		" AND r.share IS NOT NULL"
		" GROUP BY b.scenario, b.mode, r.client, r.device"
		" ORDER BY b.scenario, b.mode, r.client, r.device",
		-1, 1, 6 },
};

void gs_plot_bench_release(struct gs_plot_bench *b)
{
	gs_strv_free(b->kernels, b->n_kernels);
	gs_strv_free(b->modes, b->n_modes);
	gs_strv_free(b->devices, b->n_devices);
	memset(b, 0, sizeof(*b));
}

/* One CSV field: text in double quotes when it holds a separator or a blank. */
static void csv_field(FILE *f, sqlite3_stmt *st, int col)
{
	const unsigned char *s;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		break;
	case SQLITE_INTEGER:
		fprintf(f, "%lld", (long long)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		fprintf(f, "%.6g", sqlite3_column_double(st, col));
		break;
	default:
		s = sqlite3_column_text(st, col);
		if (strpbrk((const char *)s, ",\"\n ")) {
			fputc('"', f);
			for (; *s; s++) {
				if (*s == '"')
					fputc('"', f);
				fputc(*s, f);
			}
			fputc('"', f);
		} else {
			fputs((const char *)s, f);
		}
	}
}

/* Adds the text of column col (none when col < 0) to a word list. */
static int intern_column(sqlite3_stmt *st, int col, char ***list, size_t *n)
{
	const unsigned char *v = col >= 0 ? sqlite3_column_text(st, col) : NULL;

	return v && gs_strv_intern(list, n, NULL, (const char *)v) < 0 ? GS_ENOMEM : 0;
}

/* The one integer sql gives, with ?1 bound to sha (may be NULL). */
static int query_int(sqlite3 *sq, const char *sql, const char *sha, int64_t *out, char *err,
		     size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int rc = GS_EDB;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_bind_parameter_count(st) > 0)
			sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = 0;
		}
	}
	if (rc)
		gs_plot_dberr(sq, err, err_len);
	sqlite3_finalize(st);
	return rc;
}

static int write_bench_csv(sqlite3 *sq, enum gs_plot_bench_fig fig, const char *sha,
			   const char *dir, struct gs_plot_bench *b, char *err, size_t err_len)
{
	const struct bench_query *q = &bench_queries[fig];
	const char *name = gs_plot_bench_figures[fig].csv;
	sqlite3_stmt *st = NULL;
	size_t rows = 0;
	int i, step, rc = 0;
	FILE *f;

	if (sqlite3_prepare_v2(sq, q->sql, -1, &st, NULL) != SQLITE_OK)
		return gs_plot_dberr(sq, err, err_len);
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		sqlite3_finalize(st);
		return GS_EIO;
	}
	fprintf(f, "%s\n", q->header);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			if (i)
				fputc(',', f);
			csv_field(f, st, i);
		}
		fputc('\n', f);
		rows++;
		rc = intern_column(st, q->kernel_col, &b->kernels, &b->n_kernels);
		if (!rc)
			rc = intern_column(st, q->mode_col, &b->modes, &b->n_modes);
		if (!rc)
			rc = intern_column(st, q->device_col, &b->devices, &b->n_devices);
		if (rc) {
			gs_errf(err, err_len, "out of memory");
			break;
		}
	}
	if (!rc && step != SQLITE_DONE)
		rc = gs_plot_dberr(sq, err, err_len);
	sqlite3_finalize(st);
	if (rc) {
		gs_plot_data_discard(f, dir, name);
		return rc;
	}
	b->n_rows[fig] = rows;
	return gs_plot_data_close(f, dir, name, err, err_len);
}

int gs_plot_bench_export(struct gs_db *db, const char *source_sha256, const char *dir,
			 struct gs_plot_bench *b, char *err, size_t err_len)
{
	sqlite3 *sq = gs_db_sqlite(db);
	int64_t tables = 0;
	int rc, fig;

	memset(b, 0, sizeof(*b));
	/* A database made before the bench tables existed, opened read-only. */
	rc = query_int(sq, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
			   " ('bench_runs', 'bench_results', 'bench_slowdown')",
		       NULL, &tables, err, err_len);
	if (rc || tables < 3)
		return rc;
	rc = query_int(sq, "SELECT count(*) FROM bench_runs WHERE ?1 IS NULL OR source_sha256 = ?1",
		       source_sha256, &b->n_runs, err, err_len);
	for (fig = 0; !rc && fig < GS_PLOT_BENCH_N; fig++)
		rc = write_bench_csv(sq, (enum gs_plot_bench_fig)fig, source_sha256, dir, b, err,
				     err_len);
	if (rc) {
		gs_plot_bench_release(b);
		return rc;
	}
	/* qsort() wants a list, even an empty one. */
	if (b->n_kernels)
		qsort(b->kernels, b->n_kernels, sizeof(*b->kernels), gs_plot_cmp_str);
	if (b->n_modes)
		qsort(b->modes, b->n_modes, sizeof(*b->modes), cmp_mode);
	if (b->n_devices)
		qsort(b->devices, b->n_devices, sizeof(*b->devices), gs_plot_cmp_str);
	return 0;
}

/* --- shared with plot_time.c and plot_sharing.c (plot_data_internal.h) --- */

int gs_plot_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gs_plot_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double gs_plot_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int gs_plot_read_doubles(sqlite3_stmt *st, double **v, size_t *n, size_t *cap, char *err,
			 size_t err_len)
{
	double *g;
	int step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		g = gs_grow(*v, cap, *n, sizeof(**v), 4096);
		if (!g)
			return gs_errf_nomem(err, err_len);
		*v = g;
		(*v)[(*n)++] = sqlite3_column_double(st, 0);
	}
	return step == SQLITE_DONE ? 0 : gs_plot_dberr(sqlite3_db_handle(st), err, err_len);
}

int gs_plot_dberr(sqlite3 *sq, char *err, size_t err_len)
{
	gs_errf(err, err_len, "%s: %s", sqlite3_db_filename(sq, "main"), sqlite3_errmsg(sq));
	return GS_EDB;
}

FILE *gs_plot_data_open(const char *dir, const char *name, char *err, size_t err_len)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	f = fopen(tmp, "w");
	if (!f)
		gs_errf(err, err_len, "%s: cannot write: %s", tmp, strerror(errno));
	return f;
}

void gs_plot_data_discard(FILE *f, const char *dir, const char *name)
{
	char tmp[4096];

	fclose(f);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	unlink(tmp);
}

int gs_plot_data_close(FILE *f, const char *dir, const char *name, char *err, size_t err_len)
{
	char tmp[4096], path[4096];

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return gs_outfile_finish(f, tmp, path, err, err_len);
}
