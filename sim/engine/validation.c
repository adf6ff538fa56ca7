/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validation.c - reading and replaying the sharing validation set (see
 * validation.h). The built-in set, results/validation/, is compiled into
 * the program as gs_validation_workloads_csv and gs_validation_rows_csv
 * (cmake/embed.cmake).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/gpu_model.h"
#include "core/grow.h"
#include "core/mem.h"
#include "engine/replay.h"
#include "engine/validation.h"
#include "io/csv.h"
#include "io/trace/trace.h"
#include "policies/policy.h"

extern const char gs_validation_workloads_csv[], gs_validation_rows_csv[];
extern const size_t gs_validation_workloads_csv_len, gs_validation_rows_csv_len;

static const char *const wl_cols[7] = {
	"workload", "gpu_milli", "gpu_mem_mib", "need_milli", "busy_milli", "compute_milli",
	"source",
};
static const char *const row_cols[13] = {
	"id", "source", "ref", "gpu", "model", "card_mib", "sharing", "pods", "measure",
	"baseline", "published", "role", "note",
};
static const char *const role_str[] = { "check", "fit", "anchor", "table", "none" };
static const char *const measure_str[] = { "rate", "sum", "share" };
static const char *const field_str[] = { "need", "busy", "compute" };

/* The measured pod's work, in seconds: long enough that its stay gives the rate to 1e-6. */
#define WORK_S 1000000
/* Fit, anchor and table rows must reproduce their figure within this. */
#define HELD_BAND 0.02

const char *gs_validation_role_str(int role)
{
	return role >= 0 && role <= GS_VAL_NONE ? role_str[role] : "unknown";
}

const char *gs_validation_measure_str(int measure)
{
	return measure >= 0 && measure <= GS_VAL_SHARE ? measure_str[measure] : "unknown";
}

const char *gs_validation_field_str(int field)
{
	return field >= 0 && field <= GS_VAL_COMPUTE ? field_str[field] : "unknown";
}

void gs_validation_init(struct gs_validation *v)
{
	memset(v, 0, sizeof(*v));
}

void gs_validation_release(struct gs_validation *v)
{
	size_t i;

	for (i = 0; i < v->n_wl; i++)
		free(v->wl[i].source);
	for (i = 0; i < v->n_rows; i++) {
		struct gs_val_row *r = &v->rows[i];

		GS_MEM_FREE(r->source, r->ref, r->gpu, r->model, r->sharing, r->baseline,
			    r->pods_text, r->note);
	}
	free(v->wl);
	free(v->rows);
	gs_validation_init(v);
}

static int find_wl(const struct gs_validation *v, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < v->n_wl; i++)
		if (strlen(v->wl[i].key) == len && strncmp(v->wl[i].key, key, len) == 0)
			return (int)i;
	return -1;
}

/* A key: 1 to GS_VAL_KEY_MAX - 1 of a-z, 0-9, '-', '_', '.', '+'. */
static bool key_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < GS_VAL_KEY_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_.+") == n;
}

/* A row of n_fields fields whose first is a key (key_ok()), named what in the error. 0 or the error. */
static int keyed_row(struct gs_csv *r, int n_fields, const char *what)
{
	int rc = gs_csv_expect_fields(r, n_fields);

	if (!rc && !key_ok(r->field[0]))
		rc = gs_csv_errorf(r, 0, "'%s' is not a %s (a-z, 0-9, '-', '_', '.', '+')",
				   r->field[0], what);
	return rc;
}

/* A text field that must not be empty: its copy into *out. */
static int text_field(struct gs_csv *r, int col, bool required, char **out)
{
	if (required && !r->field[col][0])
		return gs_csv_errorf(r, col, "empty (say it)");
	if (!gs_csv_plain_text(r->field[col]))
		return gs_csv_errorf(r, col, "a control character (one line of text)");
	*out = strdup(r->field[col]);
	return *out ? 0 : GS_ENOMEM;
}

static int read_workloads(struct gs_validation *v, struct gs_csv *r)
{
	size_t cap = 0;
	int rc;

	rc = gs_csv_header(r, wl_cols, 7, "a workloads file");
	if (rc < 0)
		return rc;
	while (rc == 1 && (rc = gs_csv_next(r)) == 1) {
		struct gs_val_workload *w;
		int64_t milli, mem, f;
		int k;

		if ((rc = keyed_row(r, 7, "workload key")))
			break;
		if (find_wl(v, r->field[0], strlen(r->field[0])) >= 0) {
			rc = gs_csv_errorf(r, 0, "duplicate workload '%s'", r->field[0]);
			break;
		}
		if ((rc = gs_csv_int(r, 1, 1, 1000, &milli)) ||
		    (rc = gs_csv_int(r, 2, 0, INT64_C(1) << 40, &mem)))
			break;
		GS_GROW_PUSH(v->wl, v->n_wl, cap, 16, w);
		if (!w) {
			rc = GS_ENOMEM;
			break;
		}
		snprintf(w->key, sizeof(w->key), "%s", r->field[0]);
		w->gpu_milli = (int32_t)milli;
		w->gpu_mem_mib = mem;
		w->line = r->line;
		for (k = 0; k < 3; k++) {
			if (strcmp(r->field[3 + k], "fit") == 0) {
				w->fit[k] = true;
				continue;
			}
			if ((rc = gs_csv_int_opt(r, 3 + k, 1, 1000, 0, &f)))
				break;
			w->milli[k] = (int32_t)f;
		}
		if (k < 3 || (rc = text_field(r, 6, true, &w->source)))
			break;
		rc = 1;
	}
	if (rc == 0 && v->n_wl == 0)
		rc = gs_csv_file_errorf(r, "no workloads (only a header)");
	return rc;
}

/* The pods column: KEY, KEY*N, KEY@M, separated by spaces. */
static int parse_pods(const struct gs_validation *v, struct gs_csv *r, int col,
		      struct gs_val_row *row)
{
	const char *s = r->field[col];

	row->n_pods = 0;
	while (*s) {
		size_t len = strcspn(s, " *@"), klen = len;
		long count = 1, milli = 0;
		int wl = find_wl(v, s, klen);
		char *end;

		if (wl < 0)
			return gs_csv_errorf(r, col, "'%.*s' is not a workload of the workloads file",
					     (int)klen, s);
		s += len;
		while (*s == '*' || *s == '@') {
			char op = *s++;
			long val = strtol(s, &end, 10);

			if (end == s || val < 1 || val > (op == '*' ? GS_VAL_PODS_MAX : 1000))
				return gs_csv_errorf(r, col, "'%c%.*s' is not %s", op,
						     (int)strcspn(s, " *@"), s,
						     op == '*' ? "a count of pods (1 to 16)"
							       : "a request (1 to 1000 milli)");
			if (op == '*')
				count = val;
			else
				milli = val;
			s = end;
		}
		if (*s && *s != ' ')
			return gs_csv_errorf(r, col, "'%s' is not KEY, KEY*N or KEY@MILLI", s);
		while (count-- > 0) {
			if (row->n_pods == GS_VAL_PODS_MAX)
				return gs_csv_errorf(r, col, "more than %d pods", GS_VAL_PODS_MAX);
			row->pod_wl[row->n_pods] = wl;
			row->pod_milli[row->n_pods] = (int32_t)milli;
			row->n_pods++;
		}
		while (*s == ' ')
			s++;
	}
	if (row->n_pods == 0)
		return gs_csv_errorf(r, col, "no pods");
	return 0;
}

static int spec_field(struct gs_csv *r, int col, bool required, char **out)
{
	struct gs_share_cfg cfg;
	char msg[256];

	if (!r->field[col][0] && !required) {
		*out = NULL;
		return 0;
	}
	if (gs_share_parse(r->field[col], &cfg, msg, sizeof(msg)))
		return gs_csv_errorf(r, col, "%s", msg);
	if (cfg.mode == GS_SHARE_IDEAL)
		return gs_csv_errorf(r, col, "'%s' is not a sharing mechanism to validate",
				     r->field[col]);
	*out = strdup(r->field[col]);
	return *out ? 0 : GS_ENOMEM;
}

static int parse_role(const struct gs_validation *v, struct gs_csv *r, int col,
		      struct gs_val_row *row)
{
	const char *s = r->field[col], *dot;
	int i;

	for (i = 0; i <= GS_VAL_NONE; i++) {
		if (i != GS_VAL_FIT && strcmp(s, role_str[i]) == 0) {
			row->role = (uint8_t)i;
			return 0;
		}
	}
	dot = strrchr(s, '.');
	if (strncmp(s, "fit:", 4) != 0 || !dot)
		return gs_csv_errorf(r, col, "'%s' is not a role (check, fit:WORKLOAD.FIELD, anchor, "
				     "table, none)", s);
	row->role = GS_VAL_FIT;
	row->fit_wl = find_wl(v, s + 4, (size_t)(dot - s - 4));
	if (row->fit_wl < 0)
		return gs_csv_errorf(r, col, "'%.*s' is not a workload of the workloads file",
				     (int)(dot - s - 4), s + 4);
	for (i = 0; i < 3 && strcmp(dot + 1, field_str[i]) != 0; i++)
		;
	if (i == 3)
		return gs_csv_errorf(r, col, "'%s' is not a field to fit (need, busy, compute)",
				     dot + 1);
	if (!v->wl[row->fit_wl].fit[i])
		return gs_csv_errorf(r, col, "workload '%s' does not leave %s to fit (its value is "
				     "not 'fit')", v->wl[row->fit_wl].key, field_str[i]);
	row->fit_field = (uint8_t)i;
	return 0;
}

static int read_rows(struct gs_validation *v, struct gs_csv *r)
{
	size_t cap = 0, i;
	int rc;

	rc = gs_csv_header(r, row_cols, 13, "a validation set");
	if (rc < 0)
		return rc;
	while (rc == 1 && (rc = gs_csv_next(r)) == 1) {
		struct gs_val_row *row;
		int64_t card = 0;
		int k;

		if ((rc = keyed_row(r, 13, "row id")))
			break;
		for (i = 0; i < v->n_rows && strcmp(v->rows[i].id, r->field[0]); i++)
			;
		if (i < v->n_rows) {
			rc = gs_csv_errorf(r, 0, "duplicate row id '%s' (first on line %ld)",
					   r->field[0], v->rows[i].line);
			break;
		}
		GS_GROW_PUSH(v->rows, v->n_rows, cap, 32, row);
		if (!row) {
			rc = GS_ENOMEM;
			break;
		}
		snprintf(row->id, sizeof(row->id), "%s", r->field[0]);
		row->line = r->line;
		row->predicted = row->ratio = NAN;
		if ((rc = text_field(r, 1, true, &row->source)) ||
		    (rc = text_field(r, 2, true, &row->ref)) ||
		    (rc = text_field(r, 3, true, &row->gpu)) ||
		    (rc = text_field(r, 4, true, &row->model)) ||
		    (rc = gs_csv_int_opt(r, 5, 1, INT64_C(1) << 40, 0, &card)) ||
		    (rc = spec_field(r, 6, true, &row->sharing)) ||
		    (rc = text_field(r, 7, true, &row->pods_text)) ||
		    (rc = parse_pods(v, r, 7, row)) ||
		    (rc = spec_field(r, 9, false, &row->baseline)) ||
		    (rc = gs_csv_decimal(r, 10, 1e-6, 1e6, &row->published)) ||
		    (rc = parse_role(v, r, 11, row)) ||
		    (rc = text_field(r, 12, true, &row->note)))
			break;
		row->card_mib = card;
		if (card == 0) {
			struct gs_models builtin;

			gs_models_builtin(&builtin);
			if (gs_models_find(&builtin, row->model) < 0) {
				rc = gs_csv_errorf(r, 4, "'%s' is not a built-in GPU model; give "
						   "card_mib (its memory per card)", row->model);
				break;
			}
		}
		for (k = 0; k <= GS_VAL_SHARE && strcmp(r->field[8], measure_str[k]); k++)
			;
		if (k > GS_VAL_SHARE) {
			rc = gs_csv_errorf(r, 8, "'%s' is not a measure (rate, sum, share)",
					   r->field[8]);
			break;
		}
		row->measure = (uint8_t)k;
		if (row->measure == GS_VAL_SHARE && row->n_pods < 2) {
			rc = gs_csv_errorf(r, 8, "share needs two pods or more");
			break;
		}
		rc = 1;
	}
	if (rc == 0 && v->n_rows == 0)
		rc = gs_csv_file_errorf(r, "no rows (only a header)");
	return rc;
}

/* Every field left to fit is fitted by exactly one row. */
static int check_fits(const struct gs_validation *v, const char *rows_name, char *err,
		      size_t err_len)
{
	size_t w, i;
	int k, n;

	for (w = 0; w < v->n_wl; w++) {
		for (k = 0; k < 3; k++) {
			if (!v->wl[w].fit[k])
				continue;
			for (n = 0, i = 0; i < v->n_rows; i++)
				n += v->rows[i].role == GS_VAL_FIT && v->rows[i].fit_wl == (int)w &&
				     v->rows[i].fit_field == k;
			if (n != 1) {
				snprintf(err, err_len, "%s: workload '%s' leaves %s to fit, and %d "
					 "rows fit it (one must)", rows_name, v->wl[w].key,
					 field_str[k], n);
				return GS_EPARSE;
			}
		}
	}
	return 0;
}

int gs_validation_parse(struct gs_validation *v, const char *wl_name, const char *wl_text,
			size_t wl_len, const char *rows_name, const char *rows_text,
			size_t rows_len, char *err, size_t err_len)
{
	struct gs_csv r;
	int rc;

	gs_validation_release(v);
	rc = gs_csv_open_mem(&r, wl_name, wl_text, wl_len, err, err_len);
	if (rc)
		return rc;
	rc = read_workloads(v, &r);
	memcpy(v->sha256[0], r.sha256, sizeof(v->sha256[0]));
	gs_csv_close(&r);
	if (rc == 0) {
		rc = gs_csv_open_mem(&r, rows_name, rows_text, rows_len, err, err_len);
		if (rc == 0) {
			rc = read_rows(v, &r);
			memcpy(v->sha256[1], r.sha256, sizeof(v->sha256[1]));
			snprintf(v->rows_name, sizeof(v->rows_name), "%s", rows_name);
			gs_csv_close(&r);
		}
	}
	if (rc == 0)
		rc = check_fits(v, rows_name, err, err_len);
	if (rc == GS_ENOMEM)
		snprintf(err, err_len, "%s: out of memory", rows_name);
	if (rc)
		gs_validation_release(v);
	return rc;
}

int gs_validation_load(struct gs_validation *v, const char *wl_path, const char *rows_path,
		       char *err, size_t err_len)
{
	struct gs_csv a, b;
	int rc;

	gs_validation_release(v);
	rc = gs_csv_open(&a, wl_path, err, err_len);
	if (rc)
		return rc;
	rc = gs_csv_open(&b, rows_path, err, err_len);
	if (rc == 0) {
		rc = gs_validation_parse(v, wl_path, a.buf, a.len, rows_path, b.buf, b.len, err,
					 err_len);
		gs_csv_close(&b);
	}
	gs_csv_close(&a);
	return rc;
}

int gs_validation_default(struct gs_validation *v, char *err, size_t err_len)
{
	return gs_validation_parse(v, "built-in sharing-workloads.csv", gs_validation_workloads_csv,
				   gs_validation_workloads_csv_len, "built-in sharing.csv", gs_validation_rows_csv,
				   gs_validation_rows_csv_len, err, err_len);
}

/*
 * The rate of pod `measured` of row (or of the first `n` of its pods) on one
 * GPU under spec, the others never leaving, into *rate.
 */
static int replay_rate(const struct gs_validation *v, const struct gs_val_row *row,
		       const char *spec, int n, int measured,
		       const struct gs_interference *tbl, double *rate, char *err,
		       size_t err_len)
{
	struct gs_replay_opts o;
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
	char msg[320] = "", name[16];
	bool sim_made = false;
	int rc, k;

	gs_cluster_init(&c);
	gs_trace_init(&t);
	gs_replay_opts_init(&o);
	o.interference = tbl;
	rc = gs_share_parse(spec, &o.sharing, msg, sizeof(msg));
	if (rc == 0 && row->card_mib > 0 && gs_models_set(&c.models, row->model, row->card_mib) < 0) {
		snprintf(msg, sizeof(msg), "model '%s' cannot be added", row->model);
		rc = GS_EINVAL;
	}
	if (rc == 0)
		rc = gs_cluster_add_node(&c, "gpu", 1000000, INT64_C(1) << 30, 1, row->model);
	for (k = 0; rc >= 0 && k < n; k++) {
		const struct gs_val_workload *w = &v->wl[row->pod_wl[k]];
		int32_t milli = row->pod_milli[k] ? row->pod_milli[k] : w->gpu_milli;
		struct gs_pod p;

		memset(&p, 0, sizeof(p));
		p.cpu_milli = 1;
		p.mem_mib = 1;
		p.num_gpu = 1;
		p.gpu_milli = o.sharing.mode == GS_SHARE_MIG ? 1 : milli;
		p.gpu_mem_mib = o.sharing.mode == GS_SHARE_MIG ? 0 : w->gpu_mem_mib;
		p.need_milli = w->milli[GS_VAL_NEED] ? w->milli[GS_VAL_NEED] : milli;
		p.busy_milli = (int16_t)w->milli[GS_VAL_BUSY];
		p.compute_milli = (int16_t)w->milli[GS_VAL_COMPUTE];
		p.t_create_s = 0;
		p.t_delete_s = k == measured ? WORK_S : -1;
		snprintf(name, sizeof(name), "pod%d", k);
		rc = gs_trace_append(&t, name, &p);
	}
	if (rc >= 0) {
		rc = gs_sim_init(&sim, &c, &t, gs_policy_find("binpack"), &o, msg, sizeof(msg));
		sim_made = rc == 0;
	}
	if (rc == 0)
		rc = gs_sim_run(&sim, msg, sizeof(msg));
	for (k = 0; rc == 0 && k < n; k++) {
		const struct gs_pod_outcome *out = &sim.out[k];

		if (out->t_start_s != 0) {
			snprintf(msg, sizeof(msg), "pod %d (%s) is not placed at once under '%s'",
				 k + 1, v->wl[row->pod_wl[k]].key, spec);
			rc = GS_EINVAL;
		} else if (k == measured) {
			*rate = (double)WORK_S / (double)(out->t_end_s - out->t_start_s);
		}
	}
	if (rc && rc != GS_ENOMEM)
		snprintf(err, err_len, "%s:%ld: row %s: %s", v->rows_name, row->line, row->id,
			 msg[0] ? msg : "cannot replay");
	if (sim_made)
		gs_sim_release(&sim);
	gs_trace_release(&t);
	gs_cluster_release(&c);
	return rc < 0 && rc != GS_ENOMEM ? GS_EINVAL : rc;
}

/* The row's measure under spec, before any baseline. */
static int measure(const struct gs_validation *v, const struct gs_val_row *row, const char *spec,
		   const struct gs_interference *tbl, double *out, char *err, size_t err_len)
{
	double sum = 0, first = 0, r;
	int k, rc;

	if (row->measure == GS_VAL_RATE)
		return replay_rate(v, row, spec, row->n_pods, 0, tbl, out, err, err_len);
	for (k = 0; k < row->n_pods; k++) {
		rc = replay_rate(v, row, spec, row->n_pods, k, tbl, &r, err, err_len);
		if (rc)
			return rc;
		if (k == 0)
			first = r;
		sum += r;
	}
	*out = row->measure == GS_VAL_SUM ? sum : first / sum;
	return 0;
}

/* The row's figure: its measure, over the baseline's when it has one. */
static int value(const struct gs_validation *v, const struct gs_val_row *row,
		 const struct gs_interference *tbl, double *out, char *err, size_t err_len)
{
	double base;
	int rc = measure(v, row, row->sharing, tbl, out, err, err_len);

	if (rc || !row->baseline)
		return rc;
	if (row->measure == GS_VAL_RATE)
		rc = replay_rate(v, row, row->baseline, 1, 0, tbl, &base, err, err_len);
	else
		rc = measure(v, row, row->baseline, tbl, &base, err, err_len);
	if (rc == 0)
		*out /= base;
	return rc;
}

/* Solves a fit row: the field's milli that brings the row's figure closest to the published one. */
static int fit(struct gs_validation *v, struct gs_val_row *row, const struct gs_interference *tbl,
	       char *err, size_t err_len)
{
	int32_t *field = &v->wl[row->fit_wl].milli[row->fit_field];
	int32_t lo = 1, hi = 1000;
	double glo, ghi, g;
	int rc;

	*field = lo;
	if ((rc = value(v, row, tbl, &glo, err, err_len)))
		return rc;
	*field = hi;
	if ((rc = value(v, row, tbl, &ghi, err, err_len)))
		return rc;
	glo -= row->published;
	ghi -= row->published;
	/* The figure is monotone in each field; bisect on the integer milli where it crosses. */
	while ((glo < 0) != (ghi < 0) && hi - lo > 1) {
		int32_t mid = lo + (hi - lo) / 2;

		*field = mid;
		if ((rc = value(v, row, tbl, &g, err, err_len)))
			return rc;
		g -= row->published;
		if ((g < 0) == (glo < 0)) {
			lo = mid;
			glo = g;
		} else {
			hi = mid;
			ghi = g;
		}
	}
	*field = fabs(glo) <= fabs(ghi) ? lo : hi;
	row->fitted_milli = *field;
	return 0;
}

int gs_validation_run(struct gs_validation *v, const struct gs_interference *tbl, char *err,
		      size_t err_len)
{
	struct gs_interference own;
	size_t i;
	int rc = 0;

	gs_interference_init(&own);
	if (!tbl) {
		rc = gs_interference_default(&own, err, err_len);
		tbl = &own;
	}
	for (i = 0; rc == 0 && i < v->n_rows; i++)
		if (v->rows[i].role == GS_VAL_FIT)
			rc = fit(v, &v->rows[i], tbl, err, err_len);
	for (i = 0; rc == 0 && i < v->n_rows; i++) {
		struct gs_val_row *row = &v->rows[i];

		if (row->role == GS_VAL_NONE)
			continue;
		rc = value(v, row, tbl, &row->predicted, err, err_len);
		row->ratio = row->predicted / row->published;
	}
	gs_interference_release(&own);
	return rc;
}

enum gs_val_verdict gs_validation_verdict(const struct gs_val_row *r, double band)
{
	if (r->role == GS_VAL_NONE || isnan(r->ratio))
		return GS_VAL_NOT_EXPRESSED;
	if (r->role == GS_VAL_CHECK)
		return fabs(r->ratio - 1) <= band + 1e-12 ? GS_VAL_IN : GS_VAL_OUT;
	return fabs(r->ratio - 1) <= HELD_BAND ? GS_VAL_HELD : GS_VAL_DRIFTED;
}

void gs_validation_summary(const struct gs_validation *v, double band, struct gs_val_summary *s)
{
	size_t i, j;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < v->n_rows; i++) {
		const struct gs_val_row *r = &v->rows[i];

		switch (gs_validation_verdict(r, band)) {
		case GS_VAL_IN:
			s->checks++;
			s->within++;
			break;
		case GS_VAL_OUT:
			s->checks++;
			s->outside++;
			s->far += r->ratio > 1.5 || r->ratio < 1 / 1.5;
			break;
		case GS_VAL_HELD:
			s->held++;
			break;
		case GS_VAL_DRIFTED:
			s->drifted++;
			break;
		default:
			s->not_expressed++;
			continue;
		}
		for (j = 0; j < i; j++)
			if (v->rows[j].role != GS_VAL_NONE && !strcmp(v->rows[j].source, r->source))
				break;
		s->sources += j == i;
	}
	s->pass = s->checks > 0 && s->within * 5 >= s->checks * 4 && s->far == 0 &&
		  s->drifted == 0;
}
