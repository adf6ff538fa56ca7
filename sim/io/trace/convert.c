/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert.c - gs_convert() and the helpers every converter shares
 * (convert_internal.h): field parsers, units, GPU models, pods and nodes,
 * the peak that sizes a built cluster. The formats themselves are in
 * convert_pai.c, convert_dlrm.c, convert_spot.c, convert_philly.c and
 * convert_helios.c (Helios and Acme).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/limits.h"
#include "io/civil.h"
#include "io/trace/convert_internal.h"

static const char *const format_names[] = {
#define GS_CONV_NAME(c, name, what) name,
	GS_CONV_FORMATS(GS_CONV_NAME)
#undef GS_CONV_NAME
};

static const gs_conv_fn format_fns[] = {
	gs_conv_pai, gs_conv_dlrm, gs_conv_spot, gs_conv_philly, gs_conv_helios, gs_conv_acme,
};

const char *gs_conv_format_name(enum gs_conv_format f)
{
	return (unsigned)f < GS_CONV__COUNT ? format_names[f] : NULL;
}

int gs_conv_format_find(const char *name)
{
	int i;

	for (i = 0; i < GS_CONV__COUNT; i++)
		if (strcmp(name, format_names[i]) == 0)
			return i;
	return -1;
}

void gs_conv_opts_init(struct gs_conv_opts *o, enum gs_conv_format f)
{
	memset(o, 0, sizeof(*o));
	o->format = f;
	o->headroom_pct = 10;
	o->max_pods = GS_CONV_MAX_PODS;
	o->max_nodes = GS_CONV_MAX_NODES;
}

int gs_conv_errorf(struct gs_conv *cv, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cv->err, cv->err_len, fmt, ap);
	va_end(ap);
	gs_csv_msg_clean(cv->err);
	return rc;
}

int gs_conv_open(struct gs_conv *cv, const struct gs_conv_input *in, struct gs_csv *r)
{
	if (in->data)
		return gs_csv_open_mem(r, in->name, in->data, in->len, cv->err, cv->err_len);
	return gs_csv_open_unhashed(r, in->name, cv->err, cv->err_len);
}

int gs_conv_machines(struct gs_conv *cv, const char *const *cols, int n, bool headerless,
		     gs_conv_row_fn fn)
{
	struct gs_nameset names;
	struct gs_csv r;
	int rc = gs_conv_open(cv, &cv->o->machines, &r);

	if (rc)
		return rc;
	gs_nameset_init(&names);
	rc = gs_conv_rows(cv, &r, cols, n, headerless, fn, &names, &cv->rep->machine_rows);
	gs_nameset_release(&names);
	gs_csv_close(&r);
	if (rc == 0)
		cv->node_mask = gs_cluster_model_mask(cv->c);
	return rc;
}

int gs_conv_header(struct gs_csv *r, const char *const *cols, int n, bool headerless,
		   bool *data_out)
{
	char found[160], want[400];
	size_t off = 0;
	int i, rc = gs_csv_next(r);

	if (rc == 0)
		return gs_csv_file_errorf(r, "empty file");
	if (rc < 0)
		return rc;
	gs_csv_set_columns(r, cols, n);
	if (gs_csv_row_is(r, cols, n)) {
		*data_out = false;
		return 0;
	}
	if (headerless && r->n_fields == n) {
		*data_out = true;
		return 0;
	}
	for (i = 0; i < n && off < sizeof(want); i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%s", i ? "," : "",
					cols[i]);
	return gs_csv_errorf(r, -1, "unrecognised header '%s'; expected '%s'%s",
			     gs_csv_row_text(r, found, sizeof(found)), want,
			     headerless ? ", or no header and rows of that many columns" : "");
}

int gs_conv_rows(struct gs_conv *cv, struct gs_csv *r, const char *const *cols, int n,
		 bool headerless, gs_conv_row_fn fn, void *arg, size_t *rows_out)
{
	size_t rows = 0;
	bool data;
	int rc = gs_conv_header(r, cols, n, headerless, &data);

	while (rc == 0) {
		if (data) {
			rows++;
			if ((rc = gs_csv_expect_fields(r, n)) || (rc = fn(cv, r, arg)))
				break;
		}
		data = true;
		rc = gs_csv_next(r);
		if (rc == 0)
			break;
		if (rc == 1)
			rc = 0;
	}
	if (rows_out)
		*rows_out = rows;
	return rc;
}

static bool missing_text(const char *s)
{
	return s[0] == '\0' || strcmp(s, "NaN") == 0 || strcmp(s, "nan") == 0;
}

/*
 * The value of a plain decimal "-?D+(.D*)?" whose digits make an integer m
 * of at most 2^53 and whose fraction has k <= 22 digits: m / 10^k, one
 * correctly rounded division of two exact doubles, which is what strtod()
 * returns (Clinger's fast path), at a fraction of its cost. False for
 * anything else (exponents, long mantissas), which strtod() reads.
 */
static bool decimal_fast(const char *s, double *out)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	bool neg = *s == '-', digit = false;
	uint64_t m = 0;
	int k = 0, frac = 0;

	s += neg;
	for (; *s; s++) {
		if (*s == '.' && !frac) {
			frac = 1;
			continue;
		}
		if (*s < '0' || *s > '9' || m > (UINT64_C(1) << 53) / 10)
			return false;
		m = m * 10 + (uint64_t)(*s - '0');
		k += frac;
		digit = true;
	}
	if (!digit || m > (UINT64_C(1) << 53) || k > 22)
		return false;
	*out = (double)m / pow10[k];
	if (neg)
		*out = -*out;
	return true;
}

/* Parses text as a number in [min, max]; *why gets the problem, or NULL. */
static bool number_parse(const char *text, double min, double max, double *out,
			 const char **why, double *bound)
{
	double v;

	*why = NULL;
	/* What the fast path reads is a plain decimal; the rest is checked, then strtod()'s. */
	if (!decimal_fast(text, &v)) {
		if (!gs_csv_decimal_ok(text)) {
			*why = "is not a number";
			return false;
		}
		v = strtod(text, NULL);
	}
	if (!isfinite(v)) {
		*why = "is out of range";
		return false;
	}
	if (v < min) {
		*why = min == 0 ? "is negative" : "is less than";
		*bound = min;
		return false;
	}
	if (v > max) {
		*why = "is greater than";
		*bound = max;
		return false;
	}
	*out = v;
	return true;
}

int gs_conv_number(struct gs_csv *r, int col, double min, double max, bool optional,
		   double *out, bool *present)
{
	const char *text = r->field[col], *why;
	char vbuf[80];
	double bound = 0;

	if (present)
		*present = false;
	if (optional && missing_text(text))
		return 0;
	if (!number_parse(text, min, max, out, &why, &bound)) {
		if (strcmp(why, "is greater than") == 0 || strcmp(why, "is less than") == 0)
			return gs_csv_errorf(r, col, "'%s' %s %g", gs_csv_quote(text, vbuf,
										 sizeof(vbuf)),
					     why, bound);
		return gs_csv_errorf(r, col, "'%s' %s", gs_csv_quote(text, vbuf, sizeof(vbuf)), why);
	}
	if (present)
		*present = true;
	return 0;
}

int gs_conv_number_text(const struct gs_where *w, const char *field, const char *text,
			double min, double max, double *out)
{
	const char *why;
	char vbuf[80];
	double bound = 0;

	if (number_parse(text, min, max, out, &why, &bound))
		return 0;
	if (strcmp(why, "is greater than") == 0 || strcmp(why, "is less than") == 0)
		return gs_where_errorf(w, field, "'%s' %s %g",
				       gs_csv_quote(text, vbuf, sizeof(vbuf)), why, bound);
	return gs_where_errorf(w, field, "'%s' %s", gs_csv_quote(text, vbuf, sizeof(vbuf)), why);
}

/* --- dates and times ------------------------------------------------------ */

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* Reads exactly n digits at *s into *v. */
static bool digits(const char **s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		*v = *v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	return true;
}

/* The time of text in seconds since 1970 (UTC), or false. */
static bool datetime_parse(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, sec, zh = 0, zm = 0, sign = 0;
	int64_t t;

	if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' ||
	    !digits(&s, 2, &d))
		return false;
	/* A date alone is its midnight. */
	if (*s == '\0') {
		h = mi = sec = 0;
	} else if ((*s != ' ' && *s != 'T') || (s++, !digits(&s, 2, &h)) || *s++ != ':' ||
		   !digits(&s, 2, &mi) || *s++ != ':' || !digits(&s, 2, &sec)) {
		return false;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
	    sec > 60)
		return false;
	/* A fraction of a second is dropped: the simulator counts whole seconds. */
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'Z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if (!digits(&s, 2, &zh))
			return false;
		if (*s == ':')
			s++;
		if (*s && !digits(&s, 2, &zm))
			return false;
		if (zh > 23 || zm > 59)
			return false;
	}
	if (*s)
		return false;
	t = gs_civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	/* 10:00+08:00 is 02:00 UTC. */
	*out = t - sign * (zh * 3600 + zm * 60) + GS_CONV_CLOCK_1970;
	return true;
}

int gs_conv_datetime_text(const struct gs_where *w, const char *field, const char *text,
			  int64_t *out, bool *present)
{
	char vbuf[80];

	*present = false;
	if (text[0] == '\0' || strcmp(text, "None") == 0 || strcmp(text, "NaN") == 0 ||
	    strcmp(text, "NaT") == 0 || strcmp(text, "nan") == 0)
		return 0;
	if (!datetime_parse(text, out))
		return gs_where_errorf(w, field, "'%s' is not a date and time (YYYY-MM-DD "
				       "[HH:MM:SS], optionally with a zone such as +08:00)",
				       gs_csv_quote(text, vbuf, sizeof(vbuf)));
	*present = true;
	return 0;
}

int gs_conv_datetime(struct gs_csv *r, int col, int64_t *out, bool *present)
{
	struct gs_where w;

	gs_where_csv(&w, r);
	return gs_conv_datetime_text(&w, r->cols && col < r->n_cols ? r->cols[col] : "?",
				     r->field[col], out, present);
}

int64_t gs_conv_round_s(double s)
{
	return (int64_t)llround(s);
}

/* --- units ---------------------------------------------------------------- */

int gs_conv_gpus(const struct gs_where *w, const char *field, double gpus, struct gs_pod *p,
		 bool *rounded_up)
{
	double whole = floor(gpus + 0.5);

	*rounded_up = false;
	if (gpus < 0)
		return gs_where_errorf(w, field, "'%g' is negative", gpus);
	if (gpus > GS_MAX_GPUS)
		return gs_where_errorf(w, field, "'%g' GPUs in one pod is more than %d", gpus,
				       GS_MAX_GPUS);
	p->num_gpu = 0;
	p->gpu_milli = 0;
	if (gpus == 0)
		return 0;
	if (gpus < 1) {
		long long milli = llround(gpus * GS_MILLI_PER_GPU);

		p->num_gpu = 1;
		p->gpu_milli = (int32_t)(milli < 1 ? 1 : milli);
		return 0;
	}
	if (fabs(gpus - whole) > 1e-9) {
		whole = ceil(gpus);
		*rounded_up = true;
	}
	p->num_gpu = (int32_t)whole;
	p->gpu_milli = GS_MILLI_PER_GPU;
	return 0;
}

void gs_conv_job_times(struct gs_conv *cv, int64_t submit, int64_t start, int64_t end,
		       bool has_end, const char *running_note, struct gs_pod *p, int64_t *t0)
{
	p->t_create_s = submit;
	p->t_delete_s = -1;
	if (has_end && end >= start) {
		p->t_delete_s = submit + (end - start);
	} else if (has_end) {
		p->t_delete_s = submit;
		gs_conv_note(cv, "jobs that end before they start: run for 0 s");
	} else {
		gs_conv_note(cv, running_note);
	}
	if (*t0 < 0 || submit < *t0)
		*t0 = submit;
}

int gs_conv_cpu(const struct gs_where *w, const char *field, double cores, int32_t *out)
{
	double milli = floor(cores * 1000 + 0.5);

	if (cores < 0)
		return gs_where_errorf(w, field, "'%g' is negative", cores);
	if (milli > GS_CPU_MILLI_MAX)
		return gs_where_errorf(w, field, "'%g' cores is more than %d milli-cores", cores,
				       GS_CPU_MILLI_MAX);
	*out = (int32_t)milli;
	return 0;
}

int gs_conv_mem(const struct gs_where *w, const char *field, double gib, int64_t *out)
{
	double mib = floor(gib * 1024 + 0.5);

	if (gib < 0)
		return gs_where_errorf(w, field, "'%g' is negative", gib);
	if (mib > (double)GS_MIB_MAX)
		return gs_where_errorf(w, field, "'%g' GiB is more than %" PRId64 " MiB", gib,
				       GS_MIB_MAX);
	*out = (int64_t)mib;
	return 0;
}

/* --- GPU models ----------------------------------------------------------- */

int gs_conv_model(struct gs_conv *cv, const struct gs_where *w, const char *field,
		  const char *trace, const char *model, int64_t dflt_mib)
{
	const struct gs_models *ov = cv->o->model_mem;
	int k = ov ? gs_models_find(ov, trace) : -1, idx;
	int64_t mib = -1;

	if (k < 0 && ov)
		k = gs_models_find(ov, model);
	if (k >= 0)
		mib = ov->m[k].mem_mib;
	else if (gs_models_find(&cv->c->models, model) < 0)
		mib = dflt_mib;
	idx = mib >= 0 ? gs_models_set(&cv->c->models, model, mib)
		       : gs_models_find(&cv->c->models, model);
	if (idx == GS_ERANGE)
		return gs_where_errorf(w, field, "'%s' makes more than %d GPU models", trace,
				       GS_MAX_MODELS);
	if (idx < 0)
		return gs_where_errorf(w, field, "'%s' is not a valid GPU model name", trace);
	return idx;
}

const char *gs_conv_model_name(const struct gs_conv_model_map *map, const char *name)
{
	int i;

	for (i = 0; map[i].trace; i++)
		if (strcmp(map[i].trace, name) == 0)
			return map[i].gpusim;
	return name;
}

int gs_conv_model_mapped(struct gs_conv *cv, const struct gs_where *w, const char *field,
			 const struct gs_conv_model_map *map, const char *name,
			 const char **name_out)
{
	const struct gs_models *ov = cv->o->model_mem;
	char known[512], vbuf[80];
	size_t off = 0;
	int i;

	for (i = 0; map[i].trace; i++) {
		if (strcmp(map[i].trace, name) == 0) {
			*name_out = map[i].gpusim;
			return gs_conv_model(cv, w, field, name, map[i].gpusim, map[i].mib);
		}
	}
	if (ov && gs_models_find(ov, name) >= 0) {
		if (!gs_model_name_ok(name, strlen(name)) || strlen(name) >= GS_MODEL_NAME_MAX)
			return gs_where_errorf(w, field, "'%s' is not a valid GPU model name",
					       gs_csv_quote(name, vbuf, sizeof(vbuf)));
		*name_out = name;
		return gs_conv_model(cv, w, field, name, name, 0);
	}
	for (i = 0; map[i].trace && off < sizeof(known); i++)
		off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s", i ? ", " : "",
					map[i].trace);
	return gs_where_errorf(w, field, "'%s' is not a GPU model of this trace gpusim knows "
			       "(known: %s); give its memory per GPU with --model-mem '%s=MIB'",
			       gs_csv_quote(name, vbuf, sizeof(vbuf)), known,
			       gs_csv_quote(name, vbuf, sizeof(vbuf)));
}

/* --- the report ----------------------------------------------------------- */

void gs_conv_note_n(struct gs_conv *cv, const char *what, size_t n)
{
	struct gs_conv_report *rep = cv->rep;
	int i;

	if (n == 0)
		return;
	for (i = 0; i < rep->n_notes; i++) {
		if (rep->notes[i].what == what || strcmp(rep->notes[i].what, what) == 0) {
			rep->notes[i].n += n;
			return;
		}
	}
	if (rep->n_notes < GS_CONV_NOTES_MAX) {
		rep->notes[rep->n_notes].what = what;
		rep->notes[rep->n_notes++].n = n;
	}
}

void gs_conv_note(struct gs_conv *cv, const char *what)
{
	gs_conv_note_n(cv, what, 1);
}

/* --- pods and nodes ------------------------------------------------------- */

int gs_conv_pod(struct gs_conv *cv, const struct gs_where *w, const char *name,
		const struct gs_pod *p, uint32_t model_mask, const char *spec, bool unknown,
		int32_t group)
{
	struct gs_trace *t = cv->t;
	struct gs_pod q = *p;
	char vbuf[80];
	long prev;
	int rc;

	q.model_mask = model_mask;
	if ((rc = gs_conv_room(cv, w, 1)) || (rc = gs_trace_append_spec(t, name, &q, spec)) ||
	    (group && (rc = gs_trace_set_group(t, t->n_pods - 1, group))))
		return rc;
	/* Keyed by the trace's copy; a name made twice fails the conversion. */
	rc = gs_nameset_add(&cv->names, t->pod_names[t->n_pods - 1],
			    w->line > 0 ? w->line : w->index, &prev);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return gs_where_errorf(w, NULL, "pod name '%s' made twice (first from record "
				       "%ld): the job ids are not unique",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), prev);
	if (unknown)
		t->audit.unknown_model++;
	return 0;
}

int gs_conv_check_pod(struct gs_conv *cv, const struct gs_where *w, const struct gs_pod *p,
		      const char *spec, uint32_t *mask_out, bool *unknown_out)
{
	int rc = gs_trace_check_pod(w, p, spec ? spec : "");

	*mask_out = 0;
	*unknown_out = false;
	return rc ? rc : gs_trace_spec_parse(w, spec ? spec : "", &cv->c->models, cv->node_mask,
					     mask_out, unknown_out);
}

int gs_conv_room(struct gs_conv *cv, const struct gs_where *w, int64_t n)
{
	if (n > GS_CONV_MAX_WORKERS)
		return gs_where_errorf(w, NULL, "%" PRId64 " pods (workers, instances or nodes) for "
				       "one job is more than the %d gpusim makes of one record", n,
				       GS_CONV_MAX_WORKERS);
	if (cv->t->n_pods + (size_t)n > cv->o->max_pods)
		return gs_where_errorf(w, NULL, "more than %zu pods in all, the most a conversion "
				       "makes", cv->o->max_pods);
	return 0;
}

int gs_conv_group(struct gs_conv *cv, const struct gs_where *w, const char *name)
{
	int rc = gs_check_name(w, "pod_group", name);

	return rc ? rc : gs_trace_group(cv->t, name);
}

char *gs_conv_join(char *buf, size_t len, const char *a, char sep, const char *b)
{
	size_t na = strlen(a), nb = b ? strlen(b) : 0;

	if (na + 1 + nb + 1 > len)
		return NULL;
	memcpy(buf, a, na);
	if (b) {
		buf[na++] = sep;
		memcpy(buf + na, b, nb);
	}
	buf[na + nb] = '\0';
	return buf;
}

char *gs_conv_name_k(char *buf, size_t len, const char *base, int64_t k)
{
	char num[24], *e = num + sizeof(num);
	uint64_t u = (uint64_t)k;

	*--e = '\0';
	do {
		*--e = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return gs_conv_join(buf, len, base, '-', e);
}

int gs_conv_pods(struct gs_conv *cv, const struct gs_where *w, const char *base, int64_t n,
		 const struct gs_pod *p, const char *spec)
{
	char name[GS_NAME_MAX + 32];
	uint32_t mask;
	bool unknown;
	int32_t g = 0;
	int64_t k;
	int rc;

	if ((rc = gs_conv_check_pod(cv, w, p, spec, &mask, &unknown)) ||
	    (rc = gs_conv_room(cv, w, n)) || (rc = gs_check_name(w, "name", base)))
		return rc;
	if (n > 1 && (g = gs_conv_group(cv, w, base)) < 0)
		return g;
	for (k = 0; k < n; k++) {
		/* A valid base and "-K" make a valid name, if it is not too long. */
		if (!(n > 1 ? gs_conv_name_k(name, sizeof(name), base, k)
			    : gs_conv_join(name, sizeof(name), base, 0, NULL)) ||
		    strlen(name) > GS_NAME_MAX)
			return gs_check_name(w, "name", name[0] ? name : base);
		if ((rc = gs_conv_pod(cv, w, name, p, mask, spec ? spec : "", unknown, g)))
			return rc;
	}
	return 0;
}

int gs_conv_node(struct gs_conv *cv, const struct gs_where *w, const struct gs_node_fields *f,
		 struct gs_nameset *names, const char *name, int64_t cpu_milli, int64_t mem_mib,
		 int64_t num_gpu, const char *model)
{
	return gs_trace_add_node(w, f, cv->c, names, name, cpu_milli, mem_mib, num_gpu,
				 num_gpu > 0 ? model : "");
}

int gs_conv_nodes(struct gs_conv *cv, const char *prefix, int64_t count, int64_t num_gpu,
		  const char *model, int64_t cpu_milli, int64_t mem_mib)
{
	static const struct gs_node_fields f = {
		"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_model",
	};
	/* Sized from the jobs: errors name them, and the built node ("jobs.csv: hn[3].memory_mib"). */
	struct gs_where w = { cv->o->jobs.name ? cv->o->jobs.name : "built nodes", 0, prefix, 0,
			      cv->err, cv->err_len };
	struct gs_nameset names;
	char name[64];
	int64_t k;
	int rc = 0;

	if (count > cv->o->max_nodes)
		return gs_conv_errorf(cv, GS_EPARSE, "%s: %" PRId64 " %s nodes is more than the "
				      "%" PRId64 " a built cluster may have (--node-count, "
				      "--headroom)", w.file, count, prefix, cv->o->max_nodes);
	gs_nameset_init(&names);
	for (k = 0; k < count && rc == 0; k++) {
		snprintf(name, sizeof(name), "%s-%" PRId64, prefix, k);
		w.index = (long)k;
		rc = gs_conv_node(cv, &w, &f, &names, name, cpu_milli, mem_mib, num_gpu, model);
	}
	gs_nameset_release(&names);
	return rc;
}

/* --- sizing --------------------------------------------------------------- */

struct edge {
	int64_t t;
	double d;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	int c = gs_cmp_i64(x->t, y->t);

	/* At one moment the ends come first: [s, e) and [e, f) do not overlap. */
	return c ? c : gs_cmp_f64(x->d, y->d);
}

int gs_conv_peak(const int64_t *start, const int64_t *end, const double *weight, size_t n,
		 double *peak_out)
{
	struct edge *e = malloc((2 * n + 1) * sizeof(*e));
	double cur = 0, peak = 0;
	size_t i, m = 0;

	if (!e)
		return GS_ENOMEM;
	for (i = 0; i < n; i++) {
		if (weight[i] <= 0 || (end[i] >= 0 && end[i] <= start[i]))
			continue;
		e[m].t = start[i];
		e[m++].d = weight[i];
		if (end[i] >= 0) {
			e[m].t = end[i];
			e[m++].d = -weight[i];
		}
	}
	qsort(e, m, sizeof(*e), edge_cmp);
	for (i = 0; i < m; i++) {
		cur += e[i].d;
		if (cur > peak)
			peak = cur;
	}
	free(e);
	*peak_out = peak;
	return 0;
}

int64_t gs_conv_count_for(double need, double per_node, double headroom_pct)
{
	double k;

	if (need <= 0 || per_node <= 0)
		return 0;
	/* A little tolerance, so a peak of exactly 3 nodes' worth is 3 nodes. */
	k = ceil(need / per_node * (1 + headroom_pct / 100) - 1e-9);
	return k < 1 ? 1 : k > 1e12 ? (int64_t)1e12 : (int64_t)k;
}

void gs_conv_shift(struct gs_conv *cv, int64_t t0)
{
	size_t i;

	cv->rep->t0_s = t0;
	for (i = 0; i < cv->t->n_pods; i++) {
		struct gs_pod *p = &cv->t->pods[i];

		if (p->t_create_s >= 0)
			p->t_create_s -= t0;
		/* A deletion before t0 (before its creation) stays one: 0, not "never". */
		if (p->t_delete_s >= 0)
			p->t_delete_s = p->t_delete_s >= t0 ? p->t_delete_s - t0 : 0;
	}
}

/* The interval a pod occupied as the trace ran it: creation (or 0) to deletion. */
static void pod_span(const struct gs_pod *p, int64_t *start, int64_t *end)
{
	*start = p->t_create_s >= 0 ? p->t_create_s : 0;
	*end = p->t_delete_s;
}

int gs_conv_build_gpu_nodes(struct gs_conv *cv, const char *prefix, bool cpu_pods_elsewhere,
			    int64_t dflt_gpus, const char *dflt_model, int64_t dflt_mib,
			    double list_gpus)
{
	const struct gs_conv_opts *o = cv->o;
	const struct gs_trace *t = cv->t;
	struct gs_where w = { "--node-model", 0, NULL, -1, cv->err, cv->err_len };
	int64_t gpus = o->node_gpus ? o->node_gpus : dflt_gpus, count = o->node_count;
	bool from_list = !count && list_gpus > 0;
	const char *model = o->node_model ? o->node_model : dflt_model;
	double cpu_per_gpu = 0, mem_per_gpu = 0, cpu_max = 0, mem_max = 0, peak = 0, dcpu, dmem;
	int64_t *start = NULL, *end = NULL, cpu, mem;
	double *weight = NULL;
	size_t i;
	int rc;

	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];

		if (p->num_gpu > 0) {
			double g = p->num_gpu * p->gpu_milli / 1000.0;

			if (p->cpu_milli / g > cpu_per_gpu)
				cpu_per_gpu = p->cpu_milli / g;
			if ((double)p->mem_mib / g > mem_per_gpu)
				mem_per_gpu = (double)p->mem_mib / g;
		} else if (cpu_pods_elsewhere) {
			continue;
		}
		if (p->cpu_milli > cpu_max)
			cpu_max = p->cpu_milli;
		if ((double)p->mem_mib > mem_max)
			mem_max = (double)p->mem_mib;
	}
	/* Never short of CPU or memory for its GPUs' pods, nor for the largest pod. */
	dcpu = o->node_cpu ? (double)o->node_cpu * 1000 : ceil(fmax(cpu_per_gpu * gpus, cpu_max));
	dmem = o->node_mem_gib ? (double)o->node_mem_gib * 1024
			       : ceil(fmax(mem_per_gpu * gpus, mem_max));
	if (dcpu > GS_CPU_MILLI_MAX || dmem > (double)GS_MIB_MAX)
		return gs_conv_errorf(cv, GS_EPARSE, "%s: built nodes of %.0f milli-cores and %.0f "
				      "MiB (for the pods' CPU and memory per GPU) are more than %d "
				      "and %" PRId64 "; set --node-cpu and --node-mem-gib",
				      o->jobs.name ? o->jobs.name : "the jobs", dcpu, dmem,
				      GS_CPU_MILLI_MAX, GS_MIB_MAX);
	cpu = (int64_t)dcpu;
	mem = (int64_t)dmem;
	if ((rc = gs_conv_model(cv, &w, NULL, model, model, dflt_mib)) < 0)
		return rc;
	if (from_list) {
		count = gs_conv_count_for(list_gpus, (double)gpus, 0);
		/* The machine list sized it: its name, not the jobs', goes on the refusal. */
		if (count > o->max_nodes)
			return gs_conv_errorf(cv, GS_EPARSE, "%s: its %.0f GPUs make %" PRId64
					      " nodes of %" PRId64 ", more than the %" PRId64
					      " a built cluster may have", o->machines.name,
					      list_gpus, count, gpus, o->max_nodes);
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "%" PRId64 " nodes of %" PRId64 " %s, %g cores, %g GiB: the machine list's "
			 "%.0f GPUs", count, gpus, model, cpu / 1000.0, mem / 1024.0, list_gpus);
	} else if (!count) {
		start = malloc((t->n_pods + 1) * sizeof(*start));
		end = malloc((t->n_pods + 1) * sizeof(*end));
		weight = malloc((t->n_pods + 1) * sizeof(*weight));
		if (!start || !end || !weight) {
			rc = GS_ENOMEM;
			goto out;
		}
		for (i = 0; i < t->n_pods; i++) {
			pod_span(&t->pods[i], &start[i], &end[i]);
			weight[i] = gs_pod_gpu_milli(&t->pods[i]) / 1000.0;
		}
		if ((rc = gs_conv_peak(start, end, weight, t->n_pods, &peak)))
			goto out;
		count = gs_conv_count_for(peak, (double)gpus, o->headroom_pct);
		if (count == 0)
			count = 1;
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "%" PRId64 " nodes of %" PRId64 " %s, %g cores, %g GiB: the trace's peak of "
			 "%.0f GPUs in use plus %g%% headroom", count, gpus, model, cpu / 1000.0,
			 mem / 1024.0, peak, o->headroom_pct);
	} else {
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "%" PRId64 " nodes of %" PRId64 " %s, %g cores, %g GiB (--node-count)",
			 count, gpus, model, cpu / 1000.0, mem / 1024.0);
	}
	rc = gs_conv_nodes(cv, prefix, count, gpus, model, cpu, mem);
out:
	free(start);
	free(end);
	free(weight);
	return rc;
}

int gs_conv_build_cpu_nodes(struct gs_conv *cv, const char *prefix)
{
	const struct gs_trace *t = cv->t;
	int64_t *start = NULL, *end = NULL, count = cv->o->cpu_node_count, cpu = 0, mem = 0;
	double *wcpu = NULL, *wmem = NULL, peak_cpu = 0, peak_mem = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < t->n_pods; i++) {
		if (t->pods[i].num_gpu > 0)
			continue;
		if (t->pods[i].cpu_milli > cpu)
			cpu = t->pods[i].cpu_milli;
		if (t->pods[i].mem_mib > mem)
			mem = t->pods[i].mem_mib;
	}
	if (cpu == 0 && mem == 0 && !count)
		return 0;
	if (!count) {
		start = malloc((t->n_pods + 1) * sizeof(*start));
		end = malloc((t->n_pods + 1) * sizeof(*end));
		wcpu = malloc((t->n_pods + 1) * sizeof(*wcpu));
		wmem = malloc((t->n_pods + 1) * sizeof(*wmem));
		if (!start || !end || !wcpu || !wmem) {
			rc = GS_ENOMEM;
			goto out;
		}
		for (i = 0; i < t->n_pods; i++) {
			bool cpu_pod = t->pods[i].num_gpu == 0;

			pod_span(&t->pods[i], &start[i], &end[i]);
			wcpu[i] = cpu_pod ? t->pods[i].cpu_milli : 0;
			wmem[i] = cpu_pod ? (double)t->pods[i].mem_mib : 0;
		}
		if ((rc = gs_conv_peak(start, end, wcpu, t->n_pods, &peak_cpu)) ||
		    (rc = gs_conv_peak(start, end, wmem, t->n_pods, &peak_mem)))
			goto out;
		count = gs_conv_count_for(peak_cpu, (double)cpu, cv->o->headroom_pct);
		if (mem > 0 && gs_conv_count_for(peak_mem, (double)mem, cv->o->headroom_pct) > count)
			count = gs_conv_count_for(peak_mem, (double)mem, cv->o->headroom_pct);
	}
	{
		size_t len = strlen(cv->rep->cluster_how);

		snprintf(cv->rep->cluster_how + len, sizeof(cv->rep->cluster_how) - len,
			 "; %" PRId64 " CPU nodes of %g cores, %g GiB%s", count, cpu / 1000.0,
			 mem / 1024.0, cv->o->cpu_node_count ? " (--cpu-node-count)"
							     : ": the CPU pods' peak");
	}
	rc = gs_conv_nodes(cv, prefix, count, 0, NULL, cpu, mem);
out:
	free(start);
	free(end);
	free(wcpu);
	free(wmem);
	return rc;
}

int gs_conv_refuse(struct gs_conv *cv, bool given, const char *option, const char *why)
{
	if (!given)
		return 0;
	return gs_conv_errorf(cv, GS_EINVAL, "%s: the %s format %s", option,
			      gs_conv_format_name(cv->o->format), why);
}

/* --- the entry point ------------------------------------------------------ */

int gs_convert(const struct gs_conv_opts *o, struct gs_cluster *c, struct gs_trace *t,
	       struct gs_conv_report *rep, char *err, size_t err_len)
{
	struct gs_conv cv = { .o = o, .c = c, .t = t, .rep = rep, .err = err, .err_len = err_len };
	int rc;

	if (err && err_len)
		err[0] = '\0';
	memset(rep, 0, sizeof(*rep));
	if ((unsigned)o->format >= GS_CONV__COUNT) {
		snprintf(err, err_len, "unknown trace format %d", (int)o->format);
		return GS_EINVAL;
	}
	gs_nameset_init(&cv.names);
	t->format = format_names[o->format];
	if (!o->jobs.name && !o->machines.name) {
		gs_conv_errorf(&cv, GS_EINVAL, "the %s format needs --jobs, --machines or both",
			       format_names[o->format]);
		return GS_EINVAL;
	}
	if (o->nodes) {
		if (o->machines.name) {
			gs_conv_errorf(&cv, GS_EINVAL, "--machines and --nodes both give the "
				       "cluster; give one of them");
			return GS_EINVAL;
		}
		if (!o->jobs.name) {
			gs_conv_errorf(&cv, GS_EINVAL, "--nodes gives a cluster to convert jobs "
				       "against; give --jobs too");
			return GS_EINVAL;
		}
		rc = gs_cluster_copy(c, o->nodes);
		if (rc)
			return gs_conv_errorf(&cv, rc, "out of memory");
		cv.node_mask = gs_cluster_model_mask(c);
	} else {
		cv.built = true;
	}
	if (!(o->headroom_pct >= 0 && o->headroom_pct <= 1000)) {
		gs_conv_errorf(&cv, GS_EINVAL, "--headroom: '%g' is not from 0 to 1000",
			       o->headroom_pct);
		return GS_EINVAL;
	}
	rc = format_fns[o->format](&cv);
	if (rc == GS_ENOMEM)
		gs_conv_errorf(&cv, rc, "out of memory");
	if (rc == 0 && cv.built && c->n_nodes == 0 && (o->machines.name || t->n_pods))
		rc = gs_conv_errorf(&cv, GS_EPARSE, "%s: no node: %s",
				    o->machines.name ? o->machines.name : o->jobs.name,
				    o->machines.name ? "the machine list is empty, or has no GPU"
						     : "the jobs ask for no GPU and no CPU");
	if (rc == 0 && t->n_pods > 0 && c->n_nodes > 0) {
		uint32_t nodes = gs_cluster_model_mask(c);

		/* Models no node has, counted against the final cluster (some are built last). */
		t->audit.unknown_model = 0;
		for (size_t i = 0; i < t->n_pods; i++)
			if (t->pods[i].model_mask & ~nodes)
				t->audit.unknown_model++;
		rc = gs_trace_audit(t, c);
		gs_conv_note_n(&cv, "pods that fit on no node of the cluster, even empty (they "
				    "would wait forever)", t->audit.larger_than_any_node);
		gs_conv_note_n(&cv, "pods asking for a GPU model no node has",
			       t->audit.unknown_model);
	}
	rep->pods = t->n_pods;
	rep->groups = t->n_groups;
	gs_nameset_release(&cv.names);
	return rc;
}
