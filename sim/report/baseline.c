/* SPDX-License-Identifier: Apache-2.0 */
/*
 * baseline.c - writing and reading the regression baseline directory
 * (baseline.h): four CSV files, read with the project's CSV reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "io/csv.h"
#include "io/outfile.h"
#include "io/path.h"
#include "report/baseline.h"

static const char *const families_cols[] = {
	"family", "mode", "nodes_file", "nodes_sha256", "pods_file", "pods_sha256", "params",
};
static const char *const runs_cols[] = { "family", "policy", "seed", "metric", "value" };
static const char *const curves_cols[] = { "family", "policy", "curve", "x", "y" };
static const char *const speed_cols[] = { "family", "runs", "events", "sim_ms", "sweep_s" };

#define NCOLS(a) ((int)(sizeof(a) / sizeof(*(a))))

/* ---- writing ------------------------------------------------------------- */

/*
 * The shortest of %.15g, %.16g and %.17g that reads back as v: 17
 * significant digits always do (IEEE 754 doubles), fewer keep the files
 * short and readable where they suffice.
 */
static void exact_number(char *buf, size_t len, double v)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

static void value_text(char *buf, size_t len, double v, bool integer)
{
	if (integer && fabs(v) < 9.007199254740992e15 && v == floor(v))
		snprintf(buf, len, "%lld", (long long)v);
	else
		exact_number(buf, len, v);
}

/* A text field the CSV reader can read back: no comma, quote or line break. */
static bool plain(const char *s)
{
	return s && !strpbrk(s, ",\"\r\n");
}

struct out_file {
	FILE *f;
	char tmp[4096], path[4096];
};

static int out_open(struct out_file *o, const char *dir, const char *name,
		    const char *const *cols, int n, char *err, size_t err_len)
{
	int i;

	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.tmp", dir, name);
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		gs_errf(err, err_len, "%s: cannot write: %s", o->tmp, strerror(errno));
		return GS_EIO;
	}
	for (i = 0; i < n; i++)
		fprintf(o->f, "%s%s", i ? "," : "", cols[i]);
	fputc('\n', o->f);
	return 0;
}

static int out_close(struct out_file *o, int rc, char *err, size_t err_len)
{
	if (rc) {
		fclose(o->f);
		unlink(o->tmp);
		return rc;
	}
	return gs_outfile_finish(o->f, o->tmp, o->path, err, err_len);
}

static int check_fields(const struct gs_rset *s, char *err, size_t err_len)
{
	size_t i;

	for (i = 0; i < s->n_families; i++) {
		const struct gs_rfamily *f = &s->families[i];

		if (!plain(f->name) || !plain(f->mode) || !plain(f->nodes_file) ||
		    !plain(f->nodes_sha256) || !plain(f->pods_file) || !plain(f->pods_sha256) ||
		    !plain(f->params)) {
			gs_errf(err, err_len, "family %s: a name, file name or parameter holds a comma, a quote or a"
			    " line break, which the baseline's CSV files cannot hold",
			    f->name ? f->name : "(unnamed)");
			return GS_EINVAL;
		}
	}
	for (i = 0; i < s->n_policies; i++)
		if (!plain(s->policies[i])) {
			gs_errf(err, err_len, "policy '%s' cannot go into a CSV file", s->policies[i]);
			return GS_EINVAL;
		}
	for (i = 0; i < s->n_metrics; i++)
		if (!plain(s->metrics[i])) {
			gs_errf(err, err_len, "metric '%s' cannot go into a CSV file", s->metrics[i]);
			return GS_EINVAL;
		}
	return 0;
}

static void write_families(FILE *f, const struct gs_rset *s)
{
	size_t i;

	for (i = 0; i < s->n_families; i++) {
		const struct gs_rfamily *fa = &s->families[i];

		fprintf(f, "%s,%s,%s,%s,%s,%s,%s\n", fa->name, fa->mode, fa->nodes_file,
			fa->nodes_sha256, fa->pods_file, fa->pods_sha256, fa->params);
	}
}

static void write_runs(FILE *f, const struct gs_rset *s)
{
	char num[64];
	size_t i;

	for (i = 0; i < s->n_values; i++) {
		const struct gs_rvalue *v = &s->values[i];
		const struct gs_rrun *r = &s->runs[v->run];

		value_text(num, sizeof(num), v->value, v->integer);
		fprintf(f, "%s,%s,%" PRIu64 ",%s,%s\n", s->families[r->family].name,
			s->policies[r->policy], r->seed, s->metrics[v->metric], num);
	}
}

static void write_curves(FILE *f, const struct gs_rset *s)
{
	char num[64], num2[64];
	size_t i;

	for (i = 0; i < s->n_points; i++) {
		const struct gs_rpoint *p = &s->points[i];

		/* Figures only: x exact (seconds, percent), y to 6 digits. */
		exact_number(num, sizeof(num), p->x);
		snprintf(num2, sizeof(num2), "%.6g", p->y);
		fprintf(f, "%s,%s,%s,%s,%s\n", s->families[p->family].name,
			s->policies[p->policy], s->curves[p->curve], num, num2);
	}
}

static void write_speed(FILE *f, const struct gs_rset *s)
{
	size_t i;

	for (i = 0; i < s->n_families; i++) {
		const struct gs_rfamily *fa = &s->families[i];

		if (!fa->speed_runs)
			continue;
		fprintf(f, "%s,%" PRId64 ",%" PRId64 ",%.1f,", fa->name, fa->speed_runs, fa->events,
			fa->sim_ms);
		if (!isnan(fa->sweep_s))
			fprintf(f, "%.3f", fa->sweep_s);
		fputc('\n', f);
	}
}

/* ---- reading ------------------------------------------------------------- */

/* A finite number in field col. */
static int csv_double(struct gs_csv *r, int col, double *out)
{
	const char *s = r->field[col];
	char vbuf[80], *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || *s == ' ' || !isfinite(v))
		return gs_csv_errorf(r, col, "'%s' is not a number",
				     gs_csv_quote(s, vbuf, sizeof(vbuf)));
	*out = v;
	return 0;
}

/* A non-empty text field. */
static int csv_text(struct gs_csv *r, int col)
{
	return r->field[col][0] ? 0 : gs_csv_errorf(r, col, "empty");
}

/* Opens dir/name and checks its header; GS_ENOENT when absent. */
static int in_open(struct gs_csv *r, const char *dir, const char *name, const char *const *cols,
		   int n, char *err, size_t err_len)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = gs_csv_open(r, path, err, err_len);
	if (rc)
		return rc;
	/* gs_baseline_write() ends every line: a file without a last line end was cut short. */
	if (r->len > 0 && r->buf[r->len - 1] != '\n') {
		size_t i;
		long lines = 1;

		for (i = 0; i < r->len; i++)
			lines += r->buf[i] == '\n';
		gs_errf(err, err_len, "%s:%ld: the file ends in the middle of a line, so it was cut "
			"short; regenerate the baseline (make baseline) or restore it from git",
			path, lines);
		gs_csv_close(r);
		return GS_EPARSE;
	}
	rc = gs_csv_next(r);
	if (rc == 0)
		rc = gs_csv_file_errorf(r, "empty file (expected the header line)");
	else if (rc == 1 && !gs_csv_row_is(r, cols, n)) {
		int i, off;

		off = snprintf(err, err_len, "%s:1: expected the header '", path);
		for (i = 0; i < n && off > 0 && (size_t)off < err_len; i++)
			off += snprintf(err + off, err_len - (size_t)off, "%s%s", i ? "," : "",
					cols[i]);
		if (off > 0 && (size_t)off < err_len)
			snprintf(err + off, err_len - (size_t)off, "'");
		rc = GS_EPARSE;
	} else if (rc == 1) {
		rc = 0;
	}
	if (rc)
		gs_csv_close(r);
	else
		gs_csv_set_columns(r, cols, n);
	return rc;
}

/* The family named in field col, or GS_EPARSE. */
static int family_of(struct gs_csv *r, const struct gs_rset *s, int col, size_t *idx)
{
	char vbuf[80];
	size_t i;

	for (i = 0; i < s->n_families; i++)
		if (!strcmp(s->families[i].name, r->field[col])) {
			*idx = i;
			return 0;
		}
	return gs_csv_errorf(r, col, "'%s' is not a family of families.csv",
			     gs_csv_quote(r->field[col], vbuf, sizeof(vbuf)));
}

static int read_families(struct gs_csv *r, struct gs_rset *s)
{
	char vbuf[80];
	size_t idx, i, before;
	int rc;

	while ((rc = gs_csv_next(r)) == 1) {
		rc = gs_csv_expect_fields(r, NCOLS(families_cols));
		for (i = 0; !rc && i < (size_t)NCOLS(families_cols); i++)
			rc = csv_text(r, (int)i);
		for (i = 0; !rc && i < s->n_families; i++)
			if (!strcmp(s->families[i].name, r->field[0]))
				rc = gs_csv_errorf(r, 0, "family '%s' is given twice",
						   gs_csv_quote(r->field[0], vbuf, sizeof(vbuf)));
		if (rc)
			return rc;
		before = s->n_families;
		rc = gs_rset_family(s, r->field[0], r->field[1], r->field[2], r->field[3],
				    r->field[4], r->field[5], r->field[6], &idx);
		if (rc)
			return rc;
		if (s->n_families == before)
			return gs_csv_errorf(r, -1, "families %s and %s have the same inputs and"
					     " parameters", s->families[idx].name, r->field[0]);
	}
	return rc;
}

static int read_runs(struct gs_csv *r, struct gs_rset *s)
{
	size_t fam, run = 0;
	int64_t seed;
	double v;
	bool have_run = false;
	char last[3][256] = { "", "", "" };
	int rc;

	while ((rc = gs_csv_next(r)) == 1) {
		rc = gs_csv_expect_fields(r, NCOLS(runs_cols));
		if (!rc)
			rc = family_of(r, s, 0, &fam);
		if (!rc)
			rc = csv_text(r, 1);
		if (!rc)
			rc = gs_csv_int(r, 2, 0, INT64_MAX, &seed);
		if (!rc)
			rc = csv_text(r, 3);
		if (!rc)
			rc = csv_double(r, 4, &v);
		if (rc)
			return rc;
		/* Rows of one run come together: look it up only when the key changes. */
		if (!have_run || strcmp(last[0], r->field[0]) || strcmp(last[1], r->field[1]) ||
		    strcmp(last[2], r->field[2])) {
			rc = gs_rset_run(s, fam, r->field[1], (uint64_t)seed, false, &run);
			if (rc)
				return rc;
			snprintf(last[0], sizeof(last[0]), "%s", r->field[0]);
			snprintf(last[1], sizeof(last[1]), "%s", r->field[1]);
			snprintf(last[2], sizeof(last[2]), "%s", r->field[2]);
			have_run = strlen(r->field[0]) < sizeof(last[0]) &&
				   strlen(r->field[1]) < sizeof(last[1]);
		}
		rc = gs_rset_value(s, run, r->field[3], v, !strpbrk(r->field[4], ".eEnN"));
		if (rc)
			return rc;
	}
	return rc;
}

static int read_curves(struct gs_csv *r, struct gs_rset *s)
{
	size_t fam;
	double x, y;
	int rc;

	while ((rc = gs_csv_next(r)) == 1) {
		rc = gs_csv_expect_fields(r, NCOLS(curves_cols));
		if (!rc)
			rc = family_of(r, s, 0, &fam);
		if (!rc)
			rc = csv_text(r, 1);
		if (!rc)
			rc = csv_text(r, 2);
		if (!rc)
			rc = csv_double(r, 3, &x);
		if (!rc)
			rc = csv_double(r, 4, &y);
		if (!rc)
			rc = gs_rset_point(s, fam, r->field[1], r->field[2], x, y);
		if (rc)
			return rc;
	}
	return rc;
}

static int read_speed(struct gs_csv *r, struct gs_rset *s)
{
	struct gs_rfamily *f;
	size_t fam;
	int64_t runs, events;
	double sim_ms, sweep_s = NAN;
	int rc;

	while ((rc = gs_csv_next(r)) == 1) {
		rc = gs_csv_expect_fields(r, NCOLS(speed_cols));
		if (!rc)
			rc = family_of(r, s, 0, &fam);
		if (!rc)
			rc = gs_csv_int(r, 1, 1, INT64_MAX, &runs);
		if (!rc)
			rc = gs_csv_int(r, 2, 0, INT64_MAX, &events);
		if (!rc)
			rc = csv_double(r, 3, &sim_ms);
		if (!rc && r->field[4][0])
			rc = csv_double(r, 4, &sweep_s);
		if (rc)
			return rc;
		f = &s->families[fam];
		if (f->speed_runs)
			return gs_csv_errorf(r, 0, "family %s has two rows", f->name);
		f->speed_runs = runs;
		f->events = events;
		f->sim_ms = sim_ms;
		f->sweep_s = r->field[4][0] ? sweep_s : NAN;
	}
	return rc;
}

/* The baseline's files, in the order they are written and read. */
static const struct {
	const char *name;
	const char *const *cols;
	int n;
	bool required;                   /* must be there to read; the others may be absent */
	void (*write)(FILE *f, const struct gs_rset *s);
	int (*read)(struct gs_csv *r, struct gs_rset *s);
} files[] = {
	{ "families.csv", families_cols, NCOLS(families_cols), true, write_families,
	  read_families },
	{ "runs.csv", runs_cols, NCOLS(runs_cols), true, write_runs, read_runs },
	{ "curves.csv", curves_cols, NCOLS(curves_cols), false, write_curves, read_curves },
	{ "speed.csv", speed_cols, NCOLS(speed_cols), false, write_speed, read_speed },
};

int gs_baseline_write(const struct gs_rset *s, const char *dir, char *err, size_t err_len)
{
	struct out_file o;
	size_t i;
	int rc;

	if (!s->finished) {
		gs_errf(err, err_len, "the result set is not finished");
		return GS_EINVAL;
	}
	rc = check_fields(s, err, err_len);
	if (!rc)
		rc = gs_mkdir_p(dir, err, err_len);
	for (i = 0; !rc && i < sizeof(files) / sizeof(*files); i++) {
		rc = out_open(&o, dir, files[i].name, files[i].cols, files[i].n, err, err_len);
		if (rc)
			break;
		files[i].write(o.f, s);
		rc = out_close(&o, 0, err, err_len);
	}
	return rc;
}

int gs_baseline_read(const char *dir, struct gs_rset *s, char *err, size_t err_len)
{
	struct gs_csv r;
	size_t i;
	int rc = 0;

	if (access(dir, F_OK)) {
		gs_errf(err, err_len, "%s: cannot open the baseline: %s", dir, strerror(errno));
		return GS_ENOENT;
	}
	for (i = 0; i < sizeof(files) / sizeof(*files) && !rc; i++) {
		rc = in_open(&r, dir, files[i].name, files[i].cols, files[i].n, err, err_len);
		if (rc == GS_ENOENT && !files[i].required) {
			rc = 0;
			continue;
		}
		if (rc)
			break;
		rc = files[i].read(&r, s);
		if (rc == GS_ENOMEM)
			gs_errf(err, err_len, "out of memory");
		gs_csv_close(&r);
	}
	if (!rc && s->n_runs == 0) {
		gs_errf(err, err_len, "%s/runs.csv: no runs", dir);
		rc = GS_EPARSE;
	}
	if (!rc)
		rc = gs_rset_finish(s, err, err_len);
	if (rc)
		gs_rset_release(s);
	return rc;
}
