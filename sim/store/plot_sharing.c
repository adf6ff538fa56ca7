/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_sharing.c - the data of `gpusim plot`'s sharing figures, from the
 * complete time-mode runs of a results database whose traces were run
 * under two sharing mechanisms or more (gpusim sweep --sharing LIST),
 * written as plain files for gnuplot. Contract in plot_data.h
 * (gs_plot_sharing_export).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/strv.h"
#include "policies/policy.h"
#include "store/plot_data.h"
#include "store/plot_data_internal.h"

#define CDF_POINTS 500

/*
 * The complete time-mode runs, with their load and mechanism: the run's
 * --sharing, or 'cluster file' for runs whose modes all came from the
 * cluster file (--sharing ideal, yet a GPU had a mode). Every query below
 * starts with it.
 */
#define RUNS                                                                               \
	"WITH t AS (SELECT run_id, pods_path, policy,"                                     \
	" CASE WHEN sharing = 'ideal' AND interference_sha256 IS NOT NULL"                 \
	"  THEN 'cluster file' ELSE sharing END AS sharing,"                               \
	" json_extract(params_json, '$.load') AS load FROM runs"                           \
	" WHERE status = 'complete' AND mode = 'time' AND pods_path IS NOT NULL) "

/* The runs of one trace at its shown load: ?1 pods_path, ?2 the load or NULL. */
#define SHOWN " t.pods_path = ?1 AND t.load IS ?2 "

void gs_plot_sharing_release(struct gs_plot_sharing *s)
{
	gs_strv_free(s->traces, s->traces ? s->n_traces : 0);
	gs_strv_free(s->paths, s->n_traces);
	gs_strv_free(s->sharings, s->n_sharings);
	gs_strv_free(s->policies, s->n_policies);
	GS_MEM_FREE(s->load, s->cdf, s->n_done, s->coloc, s->util);
	memset(s, 0, sizeof(*s));
}

void gs_plot_sharing_slug(const char *spec, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; spec[i] && i + 1 < len; i++) {
		char c = spec[i];

		buf[i] = (char)((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ? c : '_');
	}
	buf[i] = '\0';
}

/* The mechanisms in the order of docs/sharing.md (ideal, exclusive, ..., mig), then by name. */
static int sharing_rank(const char *spec)
{
	static const char *const order[] = { "ideal", "exclusive", "timeslice", "mps", "vgpu",
					     "mig" };
	size_t i, n;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		n = strlen(order[i]);
		if (!strncmp(spec, order[i], n) && (spec[n] == '\0' || spec[n] == ':'))
			return (int)i;
	}
	return (int)(sizeof(order) / sizeof(order[0]));
}

static int cmp_sharing(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = sharing_rank(x), ry = sharing_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

static int prepare(sqlite3 *sq, const char *sql, const struct gs_plot_sharing *ix, size_t t,
		   sqlite3_stmt **st, char *err, size_t err_len)
{
	if (sqlite3_prepare_v2(sq, sql, -1, st, NULL) != SQLITE_OK)
		return gs_plot_dberr(sq, err, err_len);
	sqlite3_bind_text(*st, 1, ix->paths[t], -1, SQLITE_STATIC);
	if (isnan(ix->load[t]))
		sqlite3_bind_null(*st, 2);
	else
		sqlite3_bind_double(*st, 2, ix->load[t]);
	return 0;
}

/* <trace>.<policy>.<slug>.sharing_cdf.dat: completion time and share of departed pods. */
static int write_cdf(sqlite3 *sq, const struct gs_plot_sharing *ix, size_t t, size_t m, size_t p,
		     const char *dir, bool *wrote, size_t *n_done, char *err, size_t err_len)
{
	static const char sql[] = RUNS
		"SELECT p.t_end_s - p.t_arrive_s FROM pods p JOIN t USING (run_id)"
		" WHERE" SHOWN "AND t.policy = ?3 AND t.sharing = ?4 AND p.state = 'done'";
	char name[2048], slug[256];
	double *v = NULL;
	size_t n = 0, cap = 0, k;
	sqlite3_stmt *st;
	FILE *f;
	int rc;

	*wrote = false;
	rc = prepare(sq, sql, ix, t, &st, err, err_len);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 3, ix->policies[p], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, ix->sharings[m], -1, SQLITE_STATIC);
	rc = gs_plot_read_doubles(st, &v, &n, &cap, err, err_len);
	sqlite3_finalize(st);
	if (rc) {
		free(v);
		return rc;
	}
	*n_done = n;
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), gs_plot_cmp_double);
	gs_plot_sharing_slug(ix->sharings[m], slug, sizeof(slug));
	snprintf(name, sizeof(name), "%s.%s.%s.sharing_cdf.dat", ix->traces[t], ix->policies[p],
		 slug);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		free(v);
		return GS_EIO;
	}
	/* At most CDF_POINTS points: the nearest-rank quantiles; times below 1 s at 1 s (log axis). */
	for (k = 1; k <= (n < CDF_POINTS ? n : CDF_POINTS); k++) {
		size_t q = n < CDF_POINTS ? n : CDF_POINTS;
		size_t rank = (k * n + q - 1) / q;
		double x = v[rank - 1];

		fprintf(f, "%.6g\t%.6f\n", x < 1 ? 1 : x, (double)rank / (double)n);
	}
	free(v);
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	*wrote = rc == 0;
	return rc;
}

bool gs_plot_sharing_util_any(const struct gs_plot_sharing *ix, size_t t, size_t k, bool policy)
{
	size_t j, n = policy ? ix->n_sharings : ix->n_policies;

	for (j = 0; j < n; j++) {
		size_t m = policy ? j : k, p = policy ? k : j;

		if (ix->util[(t * ix->n_sharings + m) * ix->n_policies + p])
			return true;
	}
	return false;
}

/*
 * <trace>.sharing_util.dat: per mechanism, allocated and useful % per
 * policy, the trace's mechanisms and policies with runs only: a policy run
 * on another trace alone would be a gap in every group of bars (and a
 * column of NaN that gnuplot warns about).
 */
static int write_util(sqlite3 *sq, struct gs_plot_sharing *ix, size_t t, const char *dir,
		      char *err, size_t err_len)
{
	static const char sql[] = RUNS
		"SELECT avg(s.gpu_alloc_pct), avg(s.eff_util_pct), count(s.eff_util_pct)"
		" FROM run_summary s JOIN t USING (run_id)"
		" WHERE" SHOWN "AND t.policy = ?3 AND t.sharing = ?4";
	size_t m, p, n = ix->n_sharings * ix->n_policies;
	double *v = malloc((n ? n : 1) * 2 * sizeof(*v));
	bool *on = &ix->util[t * n];
	char name[2048];
	sqlite3_stmt *st;
	FILE *f;
	int rc = 0;

	if (!v) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	for (m = 0; !rc && m < ix->n_sharings; m++) {
		for (p = 0; !rc && p < ix->n_policies; p++) {
			size_t k = m * ix->n_policies + p;

			rc = prepare(sq, sql, ix, t, &st, err, err_len);
			if (rc)
				break;
			sqlite3_bind_text(st, 3, ix->policies[p], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 4, ix->sharings[m], -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_ROW) {
				rc = gs_plot_dberr(sq, err, err_len);
			} else {
				on[k] = sqlite3_column_int(st, 2) > 0;
				v[2 * k] = sqlite3_column_double(st, 0);
				v[2 * k + 1] = sqlite3_column_double(st, 1);
			}
			sqlite3_finalize(st);
		}
	}
	if (rc) {
		free(v);
		return rc;
	}
	snprintf(name, sizeof(name), "%s.sharing_util.dat", ix->traces[t]);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		free(v);
		return GS_EIO;
	}
	fprintf(f, "# mechanism\tthen allocated %% and useful %% per policy:");
	for (p = 0; p < ix->n_policies; p++)
		if (gs_plot_sharing_util_any(ix, t, p, true))
			fprintf(f, " %s", ix->policies[p]);
	fprintf(f, "\n");
	for (m = 0; m < ix->n_sharings; m++) {
		if (!gs_plot_sharing_util_any(ix, t, m, false))
			continue;
		fprintf(f, "%s", ix->sharings[m]);
		for (p = 0; p < ix->n_policies; p++) {
			size_t k = m * ix->n_policies + p;

			if (!gs_plot_sharing_util_any(ix, t, p, true))
				continue;
			if (on[k])
				fprintf(f, "\t%.4f\t%.4f", v[2 * k], v[2 * k + 1]);
			else
				fprintf(f, "\tNaN\tNaN");
		}
		fprintf(f, "\n");
	}
	free(v);
	return gs_plot_data_close(f, dir, name, err, err_len);
}

/*
 * <trace>.<slug>.sharing_coloc.dat: per number of pods on the busiest GPU
 * (rounded), the mean stretch of the pods' running time, the policies
 * pooled. Pods shorter than 10 s are left out: whole seconds of integer
 * time would dominate their ratio.
 */
static int write_coloc(sqlite3 *sq, const struct gs_plot_sharing *ix, size_t t, size_t m,
		       const char *dir, bool *wrote, char *err, size_t err_len)
{
	static const char sql[] = RUNS
		"SELECT CAST(round(p.coloc) AS INTEGER) AS n,"
		" avg(1.0 * (p.t_end_s - p.t_start_s) / p.duration_s), count(*)"
		" FROM pods p JOIN t USING (run_id)"
		" WHERE" SHOWN "AND t.sharing = ?3 AND p.state = 'done' AND p.coloc IS NOT NULL"
		" AND p.duration_s >= 10 GROUP BY n ORDER BY n";
	char name[2048], slug[256];
	sqlite3_stmt *st;
	FILE *f;
	int rc, step;
	size_t rows = 0;

	*wrote = false;
	gs_plot_sharing_slug(ix->sharings[m], slug, sizeof(slug));
	snprintf(name, sizeof(name), "%s.%s.sharing_coloc.dat", ix->traces[t], slug);
	rc = prepare(sq, sql, ix, t, &st, err, err_len);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 3, ix->sharings[m], -1, SQLITE_STATIC);
	f = gs_plot_data_open(dir, name, err, err_len);
	if (!f) {
		sqlite3_finalize(st);
		return GS_EIO;
	}
	fprintf(f, "# pods on the busiest GPU\tmean running time / duration\tpods\n");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "%d\t%.6f\t%d\n", sqlite3_column_int(st, 0),
			sqlite3_column_double(st, 1), sqlite3_column_int(st, 2));
		rows++;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		gs_plot_data_discard(f, dir, name);
		return gs_plot_dberr(sq, err, err_len);
	}
	rc = gs_plot_data_close(f, dir, name, err, err_len);
	*wrote = rc == 0 && rows > 0;
	return rc;
}

/*
 * The traces and their shown load: per trace, the highest --load (none
 * counts lowest) at which it was run under two mechanisms or more.
 */
static int find_traces(sqlite3 *sq, struct gs_plot_sharing *ix, char *err, size_t err_len)
{
	static const char sql[] = RUNS
		"SELECT pods_path, load FROM t GROUP BY pods_path, load"
		" HAVING count(DISTINCT sharing) >= 2 ORDER BY pods_path, load IS NOT NULL, load";
	sqlite3_stmt *st;
	int step = SQLITE_DONE, rc = 0;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return gs_plot_dberr(sq, err, err_len);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		double load = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN
						: sqlite3_column_double(st, 1);
		size_t n = ix->n_traces;
		long i = gs_strv_intern(&ix->paths, &ix->n_traces, NULL, path);
		double *g;

		if (i < 0) {
			rc = GS_ENOMEM;
			break;
		}
		if (ix->n_traces > n) {
			g = gs_realloc_n(ix->load, ix->n_traces, sizeof(*g));
			if (!g) {
				rc = GS_ENOMEM;
				break;
			}
			ix->load = g;
		}
		ix->load[i] = load;   /* ascending: the last one is the highest */
	}
	if (!rc && step != SQLITE_DONE)
		rc = gs_plot_dberr(sq, err, err_len);
	sqlite3_finalize(st);
	if (!rc && ix->n_traces) {
		size_t t;

		struct gs_plot_traces names;

		rc = gs_plot_traces_load(sq, &names, err, err_len);
		ix->traces = rc ? NULL : calloc(ix->n_traces, sizeof(*ix->traces));
		for (t = 0; ix->traces && t < ix->n_traces; t++)
			if (!(ix->traces[t] = gs_plot_traces_name(&names, ix->paths[t])))
				break;
		if (!rc && (!ix->traces || t < ix->n_traces))
			rc = GS_ENOMEM;
		gs_plot_traces_release(&names);
	}
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	return rc;
}

/* The mechanisms and policies of the traces' shown runs, in their orders. */
static int find_names(sqlite3 *sq, struct gs_plot_sharing *ix, char *err, size_t err_len)
{
	static const char sql[] = RUNS
		"SELECT DISTINCT t.sharing, t.policy FROM t WHERE" SHOWN;
	sqlite3_stmt *st;
	size_t t;
	int rc = 0, step = SQLITE_DONE;

	for (t = 0; !rc && t < ix->n_traces; t++) {
		rc = prepare(sq, sql, ix, t, &st, err, err_len);
		if (rc)
			return rc;
		while ((step = sqlite3_step(st)) == SQLITE_ROW)
			if (gs_strv_intern(&ix->sharings, &ix->n_sharings, NULL,
					   (const char *)sqlite3_column_text(st, 0)) < 0 ||
			    gs_strv_intern(&ix->policies, &ix->n_policies, NULL,
					   (const char *)sqlite3_column_text(st, 1)) < 0) {
				rc = GS_ENOMEM;
				gs_errf(err, err_len, "out of memory");
				break;
			}
		sqlite3_finalize(st);
		if (!rc && step != SQLITE_DONE)
			rc = gs_plot_dberr(sq, err, err_len);
	}
	if (!rc) {
		qsort(ix->sharings, ix->n_sharings, sizeof(*ix->sharings), cmp_sharing);
		qsort(ix->policies, ix->n_policies, sizeof(*ix->policies), gs_policy_qsort_cmp);
	}
	return rc;
}

int gs_plot_sharing_export(struct gs_db *db, const char *dir, struct gs_plot_sharing *ix,
			   char *err, size_t err_len)
{
	sqlite3 *sq = gs_db_sqlite(db);
	size_t t, m, p, n_flags;
	int rc;

	memset(ix, 0, sizeof(*ix));
	rc = find_traces(sq, ix, err, err_len);
	if (!rc && ix->n_traces == 0) {
		gs_errf(err, err_len,
			"%s holds no trace run in time mode under two sharing mechanisms or more"
			" at one load (gpusim sweep --sharing LIST)", gs_db_path(db));
		rc = GS_ENOENT;
	}
	if (!rc)
		rc = find_names(sq, ix, err, err_len);
	if (!rc) {
		n_flags = ix->n_traces * ix->n_sharings * ix->n_policies;
		ix->cdf = calloc(n_flags ? n_flags : 1, sizeof(*ix->cdf));
		ix->n_done = calloc(n_flags ? n_flags : 1, sizeof(*ix->n_done));
		ix->coloc = calloc(ix->n_traces * ix->n_sharings + 1, sizeof(*ix->coloc));
		ix->util = calloc(n_flags ? n_flags : 1, sizeof(*ix->util));
		if (!ix->cdf || !ix->n_done || !ix->coloc || !ix->util) {
			gs_errf(err, err_len, "out of memory");
			rc = GS_ENOMEM;
		}
	}
	for (t = 0; !rc && t < ix->n_traces; t++) {
		rc = write_util(sq, ix, t, dir, err, err_len);
		for (m = 0; !rc && m < ix->n_sharings; m++) {
			for (p = 0; !rc && p < ix->n_policies; p++) {
				size_t f = (t * ix->n_sharings + m) * ix->n_policies + p;

				rc = write_cdf(sq, ix, t, m, p, dir, &ix->cdf[f], &ix->n_done[f], err,
					       err_len);
			}
			if (!rc)
				rc = write_coloc(sq, ix, t, m, dir,
						 &ix->coloc[t * ix->n_sharings + m], err, err_len);
		}
	}
	if (rc)
		gs_plot_sharing_release(ix);
	return rc;
}
