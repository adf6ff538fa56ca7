/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interference.c - reading, writing and looking up the interference table
 * (see interference.h). The built-in defaults are results/interference.csv,
 * compiled into the program as gs_interference_csv (cmake/embed.cmake).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/csv.h"
#include "io/interference.h"
#include "io/utf8.h"

extern const char gs_interference_csv[];
extern const size_t gs_interference_csv_len;

static const char *const cols[6] = { "mode", "gpu_model", "n", "class", "efficiency", "source" };

void gs_interference_init(struct gs_interference *t)
{
	memset(t, 0, sizeof(*t));
}

void gs_interference_release(struct gs_interference *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->rows[i].source);
	free(t->rows);
	gs_interference_init(t);
}

const char *gs_interference_default_text(void)
{
	return gs_interference_csv;
}

static int bad(char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return GS_EINVAL;
}

int gs_interference_add(struct gs_interference *t, int mode, const char *gpu_model, double n,
			const char *wclass, double efficiency, const char *source, char *err,
			size_t err_len)
{
	struct gs_ifr_row *r;
	size_t ml = strlen(gpu_model), cl = strlen(wclass);

	if (mode <= GS_SHARE_IDEAL || mode >= GS_SHARE__COUNT)
		return bad(err, err_len, "'%s' is not a sharing mode with interference (exclusive, "
			   "timeslice, mps, vgpu, mig)", gs_share_mode_str(mode));
	if (ml == 0 || ml >= GS_MODEL_NAME_MAX || strpbrk(gpu_model, " |,\"\\") ||
	    !gs_utf8_valid(gpu_model, ml))
		return bad(err, err_len, "'%.*s%s' is not a GPU model name or *", GS_MODEL_NAME_MAX,
			   gpu_model, ml > GS_MODEL_NAME_MAX ? "..." : "");
	if (cl == 0 || cl >= GS_CLASS_NAME_MAX ||
	    (strcmp(wclass, "*") != 0 &&
	     strspn(wclass, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != cl))
		return bad(err, err_len, "'%.*s%s' is not a workload class name or *",
			   GS_CLASS_NAME_MAX, wclass, cl > GS_CLASS_NAME_MAX ? "..." : "");
	if (!(n >= 1 && n <= (mode == GS_SHARE_MIG ? GS_MIG_COMPUTE_SLICES : GS_IFR_N_MAX)) ||
	    (mode == GS_SHARE_EXCLUSIVE && n != 1) || (mode == GS_SHARE_MIG && n != floor(n))) {
		char v[32];

		snprintf(v, sizeof(v), "%g", n);
		if (mode == GS_SHARE_MIG)
			return bad(err, err_len, "'%s' is not a MIG instance size (1 to 7 compute "
				   "slices)", v);
		if (mode == GS_SHARE_EXCLUSIVE)
			return bad(err, err_len, "'%s' is not 1 (an exclusive GPU has one pod)", v);
		return bad(err, err_len, "'%s' is not a number of busy pods (1 to 64, the sum "
			   "of their busy fractions)", v);
	}
	if (!(efficiency > 0 && efficiency <= 100)) {
		char v[32];

		snprintf(v, sizeof(v), "%.17g", efficiency);
		return bad(err, err_len, "'%s' is not an efficiency (above 0, at most 100)", v);
	}
	if (!source || !*source)
		return bad(err, err_len, "%s", "empty source (say where the figure comes from)");
	if (!gs_utf8_valid(source, strlen(source)))
		return bad(err, err_len, "%s", "the source is not valid UTF-8");
	if (!gs_csv_plain_text(source))
		return bad(err, err_len, "%s", "a source is one line of text without commas or "
			   "control characters");
	r = gs_grow(t->rows, &t->cap, t->n, sizeof(*r), 32);
	if (!r)
		return GS_ENOMEM;
	t->rows = r;
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->source = strdup(source);
	if (!r->source)
		return GS_ENOMEM;
	r->mode = (uint8_t)mode;
	memcpy(r->gpu_model, gpu_model, ml + 1);
	memcpy(r->wclass, wclass, cl + 1);
	r->n = n;
	r->efficiency = efficiency;
	t->n++;
	return 0;
}

int gs_interference_parse(struct gs_interference *t, const char *name, const char *text,
			  size_t len, char *err, size_t err_len)
{
	struct gs_csv r;
	int rc;

	gs_interference_release(t);
	rc = gs_csv_open_mem(&r, name, text, len, err, err_len);
	if (rc)
		return rc;
	rc = gs_csv_next(&r);
	if (rc == 0)
		rc = gs_csv_file_errorf(&r, "empty file");
	if (rc == 1 && !gs_csv_row_is(&r, cols, 6)) {
		char hbuf[80];
		size_t used = 0;
		int i;

		hbuf[0] = '\0';
		for (i = 0; i < r.n_fields && i < GS_CSV_MAX_FIELDS && used < sizeof(hbuf); i++)
			used += (size_t)snprintf(hbuf + used, sizeof(hbuf) - used, "%s%s",
						 i ? "," : "", r.field[i]);
		rc = gs_csv_errorf(&r, -1, "unrecognised header '%s'; an interference table starts "
				   "with 'mode,gpu_model,n,class,efficiency,source'", hbuf);
	}
	gs_csv_set_columns(&r, cols, 6);
	while (rc == 1 && (rc = gs_csv_next(&r)) == 1) {
		double n = 0, eff = 0;
		int mode = gs_share_mode_find(r.field[0] ? r.field[0] : "");
		char msg[512], vbuf[80];
		size_t i;

		if ((rc = gs_csv_expect_fields(&r, 6)))
			break;
		if (mode <= GS_SHARE_IDEAL) {
			rc = gs_csv_errorf(&r, 0, "'%s' is not a sharing mode with interference "
					   "(exclusive, timeslice, mps, vgpu, mig)",
					   gs_csv_quote(r.field[0], vbuf, sizeof(vbuf)));
			break;
		}
		if ((rc = gs_csv_decimal(&r, 2, 0, 1e9, &n)) ||
		    (rc = gs_csv_decimal(&r, 4, 0, 1e9, &eff)))
			break;
		/* Named as written: 100.0001 must not read as '100' in the message. */
		if (!(eff > 0 && eff <= 100)) {
			rc = gs_csv_errorf(&r, 4, "'%s' is not an efficiency (above 0, at most 100)",
					   gs_csv_quote(r.field[4], vbuf, sizeof(vbuf)));
			break;
		}
		rc = gs_interference_add(t, mode, r.field[1], n, r.field[3], eff, r.field[5],
					 msg, sizeof(msg));
		if (rc == GS_EINVAL) {
			/* Name the column the message is about. */
			int col = strstr(msg, "GPU model") ? 1 : strstr(msg, "workload class") ? 3
				  : strstr(msg, "an efficiency") ? 4 : strstr(msg, "source") ? 5
				  : 2;

			rc = gs_csv_errorf(&r, col, "%s", msg);
			break;
		}
		if (rc)
			break;
		t->rows[t->n - 1].line = r.line;
		for (i = 0; i + 1 < t->n; i++) {
			const struct gs_ifr_row *a = &t->rows[i], *b = &t->rows[t->n - 1];

			if (a->mode == b->mode && a->n == b->n && !strcmp(a->gpu_model, b->gpu_model) &&
			    !strcmp(a->wclass, b->wclass)) {
				rc = gs_csv_errorf(&r, -1, "duplicate row for %s, %s, n %g, %s (first on "
						   "line %ld)", r.field[0], a->gpu_model, a->n,
						   a->wclass, a->line);
				break;
			}
		}
		if (rc)
			break;
		rc = 1;
	}
	if (rc == 0 && t->n == 0)
		rc = gs_csv_file_errorf(&r, "no rows (only a header)");
	if (rc == 0) {
		snprintf(t->path, sizeof(t->path), "%s", name);
		memcpy(t->sha256, r.sha256, sizeof(t->sha256));
	}
	gs_csv_close(&r);
	if (rc)
		gs_interference_release(t);
	return rc;
}

int gs_interference_load(struct gs_interference *t, const char *path, char *err,
			 size_t err_len)
{
	struct gs_csv r;
	int rc = gs_csv_open(&r, path, err, err_len);

	if (rc) {
		gs_interference_release(t);
		return rc;
	}
	rc = gs_interference_parse(t, path, r.buf, r.len, err, err_len);
	gs_csv_close(&r);
	return rc;
}

int gs_interference_default(struct gs_interference *t, char *err, size_t err_len)
{
	return gs_interference_parse(t, "built-in", gs_interference_csv, gs_interference_csv_len,
				     err, err_len);
}

/*
 * x as the shortest plain decimal (the reader takes no exponent: 1e-05 is
 * refused) that reads back as x exactly, so that a table written and read
 * again is the same table.
 */
static void format_number(double x, char *buf, size_t len)
{
	int p;

	for (p = 0; p < 340; p++) {
		snprintf(buf, len, "%.*f", p, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

int gs_interference_write(const struct gs_interference *t, FILE *f)
{
	char n[400], eff[400];
	size_t i;

	fputs("mode,gpu_model,n,class,efficiency,source\n", f);
	for (i = 0; i < t->n; i++) {
		const struct gs_ifr_row *r = &t->rows[i];

		format_number(r->n, n, sizeof(n));
		format_number(r->efficiency, eff, sizeof(eff));
		fprintf(f, "%s,%s,%s,%s,%s,%s\n", gs_share_mode_str(r->mode), r->gpu_model, n,
			r->wclass, eff, r->source);
	}
	return ferror(f) ? GS_EIO : 0;
}

/* True when t has a row of mode for (model, wclass) exactly. */
static bool has_group(const struct gs_interference *t, int mode, const char *model,
		      const char *wclass)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->rows[i].mode == mode && !strcmp(t->rows[i].gpu_model, model) &&
		    !strcmp(t->rows[i].wclass, wclass))
			return true;
	return false;
}

void gs_interference_curve(const struct gs_interference *t, int mode, const char *gpu_model,
			   const char *wclass, struct gs_ifr_curve *out)
{
	const char *m = gpu_model && *gpu_model ? gpu_model : "*";
	const char *k = wclass && *wclass ? wclass : "*";
	const char *models[4] = { m, "*", m, "*" }, *classes[4] = { k, k, "*", "*" };
	size_t i;
	int g, a;

	out->n = 0;
	for (g = 0; g < 4 && !has_group(t, mode, models[g], classes[g]); g++)
		;
	if (g == 4)
		return;
	for (i = 0; i < t->n && out->n < GS_IFR_CURVE_MAX; i++) {
		const struct gs_ifr_row *r = &t->rows[i];

		if (r->mode != mode || strcmp(r->gpu_model, models[g]) ||
		    strcmp(r->wclass, classes[g]))
			continue;
		/* Insertion by n: a group holds a handful of rows. */
		for (a = out->n; a > 0 && out->x[a - 1] > r->n; a--) {
			out->x[a] = out->x[a - 1];
			out->y[a] = out->y[a - 1];
		}
		out->x[a] = r->n;
		out->y[a] = r->efficiency;
		out->n++;
	}
}

double gs_interference_curve_eval(const struct gs_ifr_curve *c, double n)
{
	int i;

	if (c->n == 0)
		return 1.0;
	if (n <= c->x[0])
		return c->y[0];
	for (i = 1; i < c->n; i++)
		if (n <= c->x[i])
			return c->y[i - 1] + (c->y[i] - c->y[i - 1]) * (n - c->x[i - 1]) /
						     (c->x[i] - c->x[i - 1]);
	return c->y[c->n - 1];
}

double gs_interference_lookup(const struct gs_interference *t, int mode, const char *gpu_model,
			      const char *wclass, double n)
{
	struct gs_ifr_curve c;

	gs_interference_curve(t, mode, gpu_model, wclass, &c);
	return gs_interference_curve_eval(&c, n);
}
