/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_time.c - the data of `gpusim plot`'s time-mode figures, read from
 * the time-mode runs of a results database (the figures computed from the
 * events, schema 1.1) and written as plain files for gnuplot. Contract in
 * plot_data.h (gs_plot_time_export).
 *
 * A trace run under two sharing mechanisms or more is one figure group
 * per mechanism ("pods_mig"), so that no curve pools mechanisms. Per
 * group, the "shown setting" is the options (params_json) of the run
 * with the highest --load (runs without a load count lowest; ties to the
 * newest run). The time series take, per policy, the run of that setting
 * with the lowest seed; the CDFs pool the pods of all its seeds; the load
 * curves use every run of the trace that has a load.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/strv.h"
#include "policies/policy.h"
#include "store/plot_data.h"
#include "store/plot_data_internal.h"

/* Points per time-series line and per CDF line at most. */
#define SERIES_POINTS 1000
#define CDF_POINTS 1000

struct trun {
	int64_t run_id;
	size_t trace, policy;   /* trace: the figure group (trace, or trace and mechanism) */
	char *sharing;          /* runs.sharing */
	int64_t seed;
	char *params;
	double load;            /* NAN without --load */
	bool pods_stored;
	int64_t t_first, t_last_arrival, t_end;
	double cap;             /* GPU milli */
	double wait_mean, wait_p99;
};

static void free_runs(struct trun *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++) {
		free(r[i].params);
		free(r[i].sharing);
	}
	free(r);
}

void gs_plot_time_release(struct gs_plot_time *t)
{
	size_t i;

	gs_strv_free(t->traces, t->n_traces);
	gs_strv_free(t->policies, t->n_policies);
	for (i = 0; t->setting && i < t->n_traces; i++)
		free(t->setting[i]);
	GS_MEM_FREE(t->setting, t->series, t->frag, t->cdf, t->load);
	memset(t, 0, sizeof(*t));
}

/*
 * The figure group of each run: its trace's short name, and when the
 * trace was run under two sharing mechanisms or more, the mechanism's
 * slug after it ("pods_mig"), so that no figure pools mechanisms.
 * tnames[i] is run i's trace name; the group names replace them, made in
 * tnames[n + i] (NULL on entry) and moved down once all are made.
 */
static int group_names(const struct trun *runs, size_t n, char **tnames)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		bool split = false;
		char slug[256], *g;
		size_t len;

		for (j = 0; j < n && !split; j++)
			split = !strcmp(tnames[i], tnames[j]) && strcmp(runs[i].sharing, runs[j].sharing);
		if (!split)
			continue;
		gs_plot_sharing_slug(runs[i].sharing, slug, sizeof(slug));
		len = strlen(tnames[i]) + strlen(slug) + 2;
		g = malloc(len);
		if (!g)
			return GS_ENOMEM;
		snprintf(g, len, "%s_%s", tnames[i], slug);
		/* Later runs still compare with the trace's name: swap them in at the end. */
		tnames[n + i] = g;
	}
	for (i = 0; i < n; i++)
		if (tnames[n + i]) {
			free(tnames[i]);
			tnames[i] = tnames[n + i];
			tnames[n + i] = NULL;
		}
	return 0;
}

/* Reads the time-mode runs with event figures; fills the group and policy names. */
static int list_runs(sqlite3 *sq, struct gs_plot_time *ix, struct trun **out, size_t *n_out,
		     char *err, size_t err_len)
{
	static const char sql[] =
		"SELECT run_id, pods_path, policy, seed, params_json,"
		" json_extract(params_json, '$.load'), pods_stored, t_first_arrival_s,"
		" t_last_arrival_s, t_first_arrival_s + makespan_s, gpu_milli_capacity,"
		" 1.0 * wait_total_s / NULLIF(n_placed, 0), wait_p99_s, coalesce(sharing, 'ideal')"
		" FROM runs WHERE status = 'complete' AND mode = 'time' AND event_metrics = 1"
		" AND pods_path IS NOT NULL AND t_first_arrival_s IS NOT NULL ORDER BY run_id";
	struct trun *runs = NULL, *grown;
	struct gs_plot_traces names;
	char **tnames = NULL, **pnames = NULL, **run_trace = NULL, **gt;
	size_t n = 0, cap = 0, i, n_t = 0, n_p = 0;
	sqlite3_stmt *st;
	int step, rc;

	rc = gs_plot_prepare_traces(sq, sql, &names, &st, err, err_len);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *pol = (const char *)sqlite3_column_text(st, 2);
		struct trun *r;

		grown = gs_grow(runs, &cap, n, sizeof(*grown), 64);
		if (!grown) {
			rc = GS_ENOMEM;
			break;
		}
		runs = grown;
		/* Two names per run: its trace's, and room for its group's (group_names). */
		gt = gs_realloc_n(run_trace, 2 * cap, sizeof(*gt));
		if (!gt) {
			rc = GS_ENOMEM;
			break;
		}
		run_trace = gt;
		r = &runs[n];
		memset(r, 0, sizeof(*r));
		run_trace[n] = gs_plot_traces_name(&names, (const char *)sqlite3_column_text(st, 1));
		r->run_id = sqlite3_column_int64(st, 0);
		r->params = strdup((const char *)sqlite3_column_text(st, 4));
		r->sharing = strdup((const char *)sqlite3_column_text(st, 13));
		if (!run_trace[n] || !r->params || !r->sharing ||
		    gs_strv_intern(&pnames, &n_p, NULL, pol) < 0) {
			free(run_trace[n]);
			free(r->params);
			free(r->sharing);
			rc = GS_ENOMEM;
			break;
		}
		/* Indices are resolved after sorting the names. */
		r->policy = (size_t)gs_strv_find(pnames, n_p, pol);
		r->seed = sqlite3_column_int64(st, 3);
		r->load = gs_plot_col_real(st, 5);
		r->pods_stored = sqlite3_column_int(st, 6) != 0;
		r->t_first = sqlite3_column_int64(st, 7);
		r->t_last_arrival = sqlite3_column_int64(st, 8);
		r->t_end = sqlite3_column_int64(st, 9);
		r->cap = sqlite3_column_double(st, 10);
		r->wait_mean = gs_plot_col_real(st, 11);
		r->wait_p99 = gs_plot_col_real(st, 12);
		n++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = gs_plot_dberr(sq, err, err_len);
	sqlite3_finalize(st);
	gs_plot_traces_release(&names);
	for (i = 0; run_trace && i < n; i++)
		run_trace[n + i] = NULL;
	if (!rc && n)
		rc = group_names(runs, n, run_trace);
	for (i = 0; !rc && i < n; i++) {
		if (gs_strv_intern(&tnames, &n_t, NULL, run_trace[i]) < 0)
			rc = GS_ENOMEM;
		else
			runs[i].trace = (size_t)gs_strv_find(tnames, n_t, run_trace[i]);
	}
	for (i = 0; run_trace && i < 2 * n; i++)
		free(run_trace[i]);
	free(run_trace);
	if (rc) {
		if (rc == GS_ENOMEM)
			gs_errf(err, err_len, "out of memory");
		free_runs(runs, n);
		gs_strv_free(tnames, n_t);
		gs_strv_free(pnames, n_p);
		return rc;
	}
	/* Sorted names, and the runs' indices into them. */
	{
		char **ts = malloc((n_t ? n_t : 1) * sizeof(*ts));
		char **ps = malloc((n_p ? n_p : 1) * sizeof(*ps));

		if (!ts || !ps) {
			free(ts);
			free(ps);
			free_runs(runs, n);
			gs_strv_free(tnames, n_t);
			gs_strv_free(pnames, n_p);
			gs_errf(err, err_len, "out of memory");
			return GS_ENOMEM;
		}
		/* No time-mode run at all leaves both lists empty (and NULL). */
		if (n_t)
			memcpy(ts, tnames, n_t * sizeof(*ts));
		if (n_p)
			memcpy(ps, pnames, n_p * sizeof(*ps));
		qsort(ts, n_t, sizeof(*ts), gs_plot_cmp_str);
		qsort(ps, n_p, sizeof(*ps), gs_policy_qsort_cmp);
		for (i = 0; i < n; i++) {
			runs[i].trace = (size_t)gs_strv_find(ts, n_t, tnames[runs[i].trace]);
			runs[i].policy = (size_t)gs_strv_find(ps, n_p, pnames[runs[i].policy]);
		}
		free(tnames);
		free(pnames);
		ix->traces = ts;
		ix->n_traces = n_t;
		ix->policies = ps;
		ix->n_policies = n_p;
	}
	*out = runs;
	*n_out = n;
	return 0;
}

/* A sample's value in the series file: NaN for NULL (a column older runs lack). */
static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("\tNaN", f);
	else
		fprintf(f, "\t%.4f", v);
}

/* The values of the series after hours and pending pods: GPU %, idle by reason %, frag %. */
#define SERIES_VALUES 5

static void put_row(FILE *f, double hours, const double *v, double pending)
{
	int k;

	fprintf(f, "%.6f", hours);
	put_value(f, v[0]);
	fprintf(f, "\t%.0f", pending);
	for (k = 1; k < SERIES_VALUES; k++)
		put_value(f, v[k]);
	fputc('\n', f);
}

/*
 * The series of one run: hours since the first arrival, allocated GPU %,
 * pending pods, the idle GPU % by reason and fragmentation %, over the
 * arrival window and a quarter of it after (capped at the run's end).
 * More samples than SERIES_POINTS are binned: the longest queue of each
 * bin, the mean of the rest. *frag_out: some sample has a fragmentation.
 */
static int write_series(sqlite3 *sq, const struct trun *r, const char *dir, const char *name,
			bool *frag_out, char *err, size_t err_len)
{
	static const char sql[] =
		"SELECT t_s, gpu_alloc_milli, pods_pending, idle_frac_milli, idle_nocpu_milli,"
		" idle_stranded_milli, frag_milli FROM samples"
		" WHERE run_id = ?1 AND t_s BETWEEN ?2 AND ?3 ORDER BY sample_idx";
	int64_t lo = r->t_first, win = r->t_last_arrival - r->t_first;
	int64_t hi = win > 0 ? r->t_last_arrival + win / 4 : r->t_end;
	double width, bin_v[SERIES_VALUES] = { 0 }, bin_pending = 0;
	int64_t bin = -1, in_bin = 0, count = 0;
	sqlite3_stmt *st;
	FILE *f;
	int step, rc, k;

	*frag_out = false;
	if (hi > r->t_end && r->t_end > lo)
		hi = r->t_end;
	if (hi <= lo)
		hi = lo + 1;
	width = (double)(hi - lo) / SERIES_POINTS;
	if (sqlite3_prepare_v2(sq, "SELECT count(*) FROM samples WHERE run_id = ?1 AND t_s"
				   " BETWEEN ?2 AND ?3", -1, &st, NULL) != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_int64(st, 1, r->run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	if (sqlite3_step(st) == SQLITE_ROW)
		count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f)
		return GS_EIO;
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK) {
		gs_plot_data_discard(f, dir, name);
		goto sqlfail;
	}
	sqlite3_bind_int64(st, 1, r->run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		double pending = sqlite3_column_double(st, 2), v[SERIES_VALUES];
		int64_t b;

		v[0] = 100.0 * sqlite3_column_double(st, 1) / r->cap;
		for (k = 1; k < SERIES_VALUES; k++)
			v[k] = sqlite3_column_type(st, k + 2) == SQLITE_NULL
				       ? NAN : 100.0 * sqlite3_column_double(st, k + 2) / r->cap;
		*frag_out |= !isnan(v[SERIES_VALUES - 1]);
		if (count <= SERIES_POINTS) {
			put_row(f, (double)(t - lo) / 3600.0, v, pending);
			continue;
		}
		b = (int64_t)((double)(t - lo) / width);
		if (b != bin && in_bin) {
			for (k = 0; k < SERIES_VALUES; k++)
				bin_v[k] /= (double)in_bin;
			put_row(f, ((double)bin + 0.5) * width / 3600.0, bin_v, bin_pending);
			in_bin = 0;
			bin_pending = 0;
			memset(bin_v, 0, sizeof(bin_v));
		}
		bin = b;
		for (k = 0; k < SERIES_VALUES; k++)
			bin_v[k] += v[k];
		if (pending > bin_pending)
			bin_pending = pending;
		in_bin++;
	}
	if (in_bin) {
		for (k = 0; k < SERIES_VALUES; k++)
			bin_v[k] /= (double)in_bin;
		put_row(f, ((double)bin + 0.5) * width / 3600.0, bin_v, bin_pending);
	}
	sqlite3_finalize(st);
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	if (!rc && step != SQLITE_DONE)
		rc = gs_plot_dberr(sq, err, err_len);
	return rc;
sqlfail:
	return gs_plot_dberr(sq, err, err_len);
}

/*
 * The CDF of the waits (what = 0) or completion times (1) of the pods of
 * runs ids[0..n): at most CDF_POINTS (value, fraction) points, starting
 * at (1 s, the share below 1 s) so that a log axis shows the pods that
 * did not wait. Writes nothing and returns GS_ENOENT without values.
 */
static int write_cdf(sqlite3 *sq, const int64_t *ids, size_t n, int what, const char *dir,
		     const char *name, char *err, size_t err_len)
{
	const char *sql = what == 0 ?
		"SELECT wait_s FROM pods WHERE run_id = ?1 AND wait_s IS NOT NULL" :
		"SELECT t_end_s - t_arrive_s FROM pods WHERE run_id = ?1 AND state = 'done'";
	double *v = NULL;
	size_t nv = 0, cap = 0, i, below = 0;
	sqlite3_stmt *st;
	FILE *f;
	int k, rc;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return gs_plot_dberr(sq, err, err_len);
	for (i = 0, rc = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		rc = gs_plot_read_doubles(st, &v, &nv, &cap, err, err_len);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc) {
		free(v);
		return rc;
	}
	if (nv == 0) {
		free(v);
		return GS_ENOENT;
	}
	qsort(v, nv, sizeof(*v), gs_plot_cmp_double);
	while (below < nv && v[below] < 1)
		below++;
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		free(v);
		return GS_EIO;
	}
	fprintf(f, "1\t%.6f\n", (double)below / (double)nv);
	for (k = 1; k <= CDF_POINTS; k++) {
		size_t rank = (size_t)ceil((double)k * (double)nv / CDF_POINTS);

		if (rank < 1)
			rank = 1;
		if (v[rank - 1] >= 1)
			fprintf(f, "%.6g\t%.6f\n", v[rank - 1], (double)k / CDF_POINTS);
	}
	free(v);
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	return rc;
}

/* The loads of one (trace, policy): load, mean, min, max of p99 wait and of mean wait, runs. */
static int write_load(const struct trun *runs, size_t n, size_t trace, size_t policy,
		      const char *dir, const char *name, size_t *n_loads, char *err,
		      size_t err_len)
{
	double loads[256];
	size_t nl = 0, i, j;
	FILE *f;

	for (i = 0; i < n; i++) {
		if (runs[i].trace != trace || runs[i].policy != policy || isnan(runs[i].load))
			continue;
		for (j = 0; j < nl && loads[j] != runs[i].load; j++)
			;
		if (j == nl && nl < sizeof(loads) / sizeof(loads[0]))
			loads[nl++] = runs[i].load;
	}
	*n_loads = nl;
	if (nl == 0)
		return 0;
	qsort(loads, nl, sizeof(*loads), gs_plot_cmp_double);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f)
		return GS_EIO;
	for (j = 0; j < nl; j++) {
		double p_sum = 0, p_lo = INFINITY, p_hi = -INFINITY;
		double w_sum = 0, w_lo = INFINITY, w_hi = -INFINITY;
		size_t m = 0;

		for (i = 0; i < n; i++) {
			const struct trun *r = &runs[i];

			if (r->trace != trace || r->policy != policy || r->load != loads[j] ||
			    isnan(r->wait_p99) || isnan(r->wait_mean))
				continue;
			p_sum += r->wait_p99;
			p_lo = fmin(p_lo, r->wait_p99);
			p_hi = fmax(p_hi, r->wait_p99);
			w_sum += r->wait_mean;
			w_lo = fmin(w_lo, r->wait_mean);
			w_hi = fmax(w_hi, r->wait_mean);
			m++;
		}
		if (m)
			fprintf(f, "%g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%zu\n", loads[j],
				p_sum / (double)m, p_lo, p_hi, w_sum / (double)m, w_lo, w_hi, m);
	}
	return gs_plot_data_close(f, dir, name, err, err_len);
}

int gs_plot_time_export(struct gs_db *db, const char *dir, struct gs_plot_time *ix, char *err,
			size_t err_len)
{
	sqlite3 *sq = gs_db_sqlite(db);
	struct trun *runs = NULL;
	size_t n = 0, t, p, i;
	int64_t *ids = NULL;
	int rc;

	memset(ix, 0, sizeof(*ix));
	rc = list_runs(sq, ix, &runs, &n, err, err_len);
	if (rc)
		return rc;
	if (n == 0) {
		gs_errf(err, err_len, "%s holds no time-mode runs with figures from the events (schema 1.1)",
		    gs_db_path(db));
		gs_plot_time_release(ix);
		free_runs(runs, n);
		return GS_ENOENT;
	}
	ix->setting = calloc(ix->n_traces, sizeof(*ix->setting));
	ix->series = calloc(ix->n_traces * ix->n_policies, sizeof(*ix->series));
	ix->frag = calloc(ix->n_traces * ix->n_policies, sizeof(*ix->frag));
	ix->cdf = calloc(ix->n_traces * ix->n_policies, sizeof(*ix->cdf));
	ix->load = calloc(ix->n_traces * ix->n_policies, sizeof(*ix->load));
	ids = malloc(n * sizeof(*ids));
	if (!ix->setting || !ix->series || !ix->frag || !ix->cdf || !ix->load || !ids) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto out;
	}
	for (t = 0; t < ix->n_traces && !rc; t++) {
		const struct trun *shown = NULL;
		size_t seeds = 0;
		char text[512];

		/* The shown setting: the highest load, ties to the newest run. */
		for (i = 0; i < n; i++) {
			double l = isnan(runs[i].load) ? -1 : runs[i].load;

			if (runs[i].trace == t &&
			    (!shown || l >= (isnan(shown->load) ? -1 : shown->load)))
				shown = &runs[i];
		}
		for (p = 0; p < ix->n_policies && !rc; p++) {
			const struct trun *first = NULL;
			size_t n_ids = 0, n_runs = 0, n_loads = 0, cell = t * ix->n_policies + p;
			char name[1024];

			for (i = 0; i < n; i++) {
				const struct trun *r = &runs[i];

				if (r->trace != t || r->policy != p || strcmp(r->params, shown->params))
					continue;
				if (!first || r->seed < first->seed ||
				    (r->seed == first->seed && r->run_id > first->run_id))
					first = r;
				n_runs++;
				if (r->pods_stored)
					ids[n_ids++] = r->run_id;
			}
			if (first) {
				snprintf(name, sizeof(name), "%s.%s.series.dat", ix->traces[t],
					 ix->policies[p]);
				rc = write_series(sq, first, dir, name, &ix->frag[cell], err,
						  err_len);
				ix->series[cell] = rc == 0;
				if (n_runs > seeds)
					seeds = n_runs;
			}
			if (!rc && n_ids) {
				snprintf(name, sizeof(name), "%s.%s.cdfw.dat", ix->traces[t],
					 ix->policies[p]);
				rc = write_cdf(sq, ids, n_ids, 0, dir, name, err, err_len);
				if (rc == 0) {
					snprintf(name, sizeof(name), "%s.%s.cdfc.dat", ix->traces[t],
						 ix->policies[p]);
					rc = write_cdf(sq, ids, n_ids, 1, dir, name, err, err_len);
				}
				ix->cdf[cell] = rc == 0;
				if (rc == GS_ENOENT)
					rc = 0;
			}
			if (!rc) {
				snprintf(name, sizeof(name), "%s.%s.load.dat", ix->traces[t],
					 ix->policies[p]);
				rc = write_load(runs, n, t, p, dir, name, &n_loads, err, err_len);
				ix->load[cell] = n_loads >= 2;
				if (n_loads == 1) {
					char path[4096];

					snprintf(path, sizeof(path), "%s/%s", dir, name);
					unlink(path);
				}
			}
		}
		{
			/* The mechanism, unless the runs had none. */
			char mech[192] = "";

			if (strcmp(shown->sharing, "ideal"))
				snprintf(mech, sizeof(mech), "%s, ", shown->sharing);
			if (isnan(shown->load))
				snprintf(text, sizeof(text), "%strace times, %zu seed%s", mech, seeds,
					 seeds == 1 ? "" : "s");
			else
				snprintf(text, sizeof(text), "%sload %g%%, %zu seed%s", mech,
					 shown->load, seeds, seeds == 1 ? "" : "s");
		}
		ix->setting[t] = strdup(text);
		if (!ix->setting[t] && !rc) {
			gs_errf(err, err_len, "out of memory");
			rc = GS_ENOMEM;
		}
	}
out:
	free(ids);
	free_runs(runs, n);
	if (rc)
		gs_plot_time_release(ix);
	return rc;
}
