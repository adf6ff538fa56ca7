/* SPDX-License-Identifier: Apache-2.0 */
/*
 * busy.c - default busy fractions of a run's pods (see busy.h). The
 * built-in distribution, results/busy-genai.csv, is compiled into the
 * program as gs_busy_genai_csv (cmake/embed.cmake).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/rng.h"
#include "engine/busy.h"
#include "io/csv.h"

extern const char gs_busy_genai_csv[];
extern const size_t gs_busy_genai_csv_len;

static const char *const dist_cols[3] = { "quantile", "busy", "source" };

/* Mixed into the run's seed so the busy draws are a stream of their own. */
#define BUSY_STREAM UINT64_C(0x6275737966726163)

void gs_busy_init(struct gs_busy *b)
{
	memset(b, 0, sizeof(*b));
}

void gs_busy_release(struct gs_busy *b)
{
	int i;

	for (i = 0; i < b->n_dists; i++)
		free(b->dists[i]);
	gs_busy_init(b);
}

const char *gs_busy_genai_text(void)
{
	return gs_busy_genai_csv;
}

int gs_busy_dist_parse(struct gs_busy_dist *d, const char *name, const char *text, size_t len,
		       char *err, size_t err_len)
{
	struct gs_csv r;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = gs_csv_open_mem(&r, name, text, len, err, err_len);
	if (rc)
		return rc;
	rc = gs_csv_header(&r, dist_cols, 3, "a busy distribution");
	while (rc == 1 && (rc = gs_csv_next(&r)) == 1) {
		double q, v;

		if ((rc = gs_csv_expect_fields(&r, 3)) || (rc = gs_csv_decimal(&r, 0, 0, 1, &q)) ||
		    (rc = gs_csv_decimal(&r, 1, 0.001, 1, &v)))
			break;
		if (!r.field[2][0] || !gs_csv_plain_text(r.field[2])) {
			rc = gs_csv_errorf(&r, 2, "%s", r.field[2][0] ? "a control character (one "
					   "line of text)" : "empty source (say where the figure "
					   "comes from)");
			break;
		}
		if (d->n == GS_BUSY_QUANTILES_MAX) {
			rc = gs_csv_errorf(&r, -1, "more than %d rows", GS_BUSY_QUANTILES_MAX);
			break;
		}
		if (d->n == 0 ? q != 0 : q <= d->q[d->n - 1]) {
			rc = gs_csv_errorf(&r, 0, "'%s' %s", r.field[0],
					   d->n == 0 ? "is not 0 (the first row is quantile 0)"
						     : "is not above the row before it");
			break;
		}
		if (d->n > 0 && v < d->busy[d->n - 1]) {
			rc = gs_csv_errorf(&r, 1, "'%s' is below the row before it (a quantile "
					   "function does not fall)", r.field[1]);
			break;
		}
		d->q[d->n] = q;
		d->busy[d->n] = v;
		d->n++;
		rc = 1;
	}
	if (rc == 0 && (d->n < 2 || d->q[d->n - 1] != 1))
		rc = gs_csv_file_errorf(&r, "the last row's quantile is not 1");
	if (rc == 0)
		memcpy(d->sha256, r.sha256, sizeof(d->sha256));
	gs_csv_close(&r);
	return rc;
}

double gs_busy_dist_at(const struct gs_busy_dist *d, double u)
{
	int i;

	if (u <= 0)
		return d->busy[0];
	for (i = 1; i < d->n; i++) {
		if (u <= d->q[i]) {
			double lo = d->busy[i - 1], hi = d->busy[i];
			double b = lo + (hi - lo) * (u - d->q[i - 1]) / (d->q[i] - d->q[i - 1]);

			/* Rounding must not step outside the two rows (a draw above the maximum). */
			return b < lo ? lo : b > hi ? hi : b;
		}
	}
	return d->busy[d->n - 1];
}

/* A busy fraction in (0, 1] as milli: "0.6" -> 600. 0 when it is not one. */
static int32_t fraction_milli(const char *s)
{
	char *end;
	double v;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return 0;
	v = strtod(s, &end);
	if (*end || !(v > 0 && v <= 1))
		return 0;
	return v * 1000 < 1 ? 1 : (int32_t)(v * 1000 + 0.5);
}

/* Loads the distribution VALUE names into b; returns its index or a negative GS_E* code. */
static int load_dist(struct gs_busy *b, const char *value, char *err, size_t err_len)
{
	struct gs_busy_dist *d;
	struct gs_csv r;
	int rc;

	if (b->n_dists == GS_BUSY_ITEMS_MAX)
		return GS_ERANGE;
	d = malloc(sizeof(*d));
	if (!d)
		return GS_ENOMEM;
	if (strcmp(value, "genai") == 0) {
		rc = gs_busy_dist_parse(d, "built-in busy-genai.csv", gs_busy_genai_csv,
					gs_busy_genai_csv_len, err, err_len);
	} else {
		rc = gs_csv_open(&r, value, err, err_len);
		if (rc == 0) {
			rc = gs_busy_dist_parse(d, value, r.buf, r.len, err, err_len);
			gs_csv_close(&r);
		}
	}
	if (rc) {
		free(d);
		return rc;
	}
	b->dists[b->n_dists] = d;
	return b->n_dists++;
}

static int bad_item(char *err, size_t err_len, const char *spec, const char *item,
		    const char *why)
{
	snprintf(err, err_len, "busy spec '%s': '%s' %s", spec, item, why);
	return GS_EINVAL;
}

int gs_busy_parse(struct gs_busy *b, const char *spec, char *err, size_t err_len)
{
	char buf[GS_BUSY_SPEC_MAX], *item, *next;
	size_t len = strlen(spec), used = 0;
	int rc = 0, i;

	gs_busy_release(b);
	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, err_len, "busy spec '%.60s' is %s", spec, len ? "too long" : "empty");
		return GS_EINVAL;
	}
	memcpy(buf, spec, len + 1);
	for (item = buf; item && rc == 0; item = next) {
		struct gs_busy_item *it = &b->item[b->n];
		char *eq, *value;
		const char *cls;
		bool file;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!item[0]) {
			snprintf(err, err_len, "busy spec '%s': an item is empty", spec);
			rc = GS_EINVAL;
			break;
		}
		eq = strchr(item, '=');
		value = eq ? eq + 1 : item;
		cls = eq ? item : "*";
		file = strchr(value, '/') ||
		       (strlen(value) > 4 && strcmp(value + strlen(value) - 4, ".csv") == 0);
		if (eq)
			*eq = '\0';
		if (b->n == GS_BUSY_ITEMS_MAX) {
			rc = bad_item(err, err_len, spec, item, "is one item too many (one per class)");
			break;
		}
		if (strlen(cls) == 0 || strlen(cls) >= GS_CLASS_NAME_MAX ||
		    (strcmp(cls, "*") != 0 &&
		     strspn(cls, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(cls))) {
			rc = bad_item(err, err_len, spec, cls, "is not a workload class name or *");
			break;
		}
		for (i = 0; i < b->n; i++)
			if (strcmp(b->item[i].wclass, cls) == 0)
				break;
		if (i < b->n) {
			rc = bad_item(err, err_len, spec, cls, "has two items");
			break;
		}
		memset(it, 0, sizeof(*it));
		memcpy(it->wclass, cls, strlen(cls) + 1); /* shorter than GS_CLASS_NAME_MAX: checked */
		it->milli = fraction_milli(value);
		if (it->milli == 0) {
			if (strcmp(value, "genai") != 0 && !file) {
				rc = bad_item(err, err_len, spec, value,
					      "is not a busy fraction in (0, 1], genai or a "
					      "distribution file (a name with '/' or ending in .csv)");
				break;
			}
			rc = load_dist(b, value, err, err_len);
			if (rc < 0)
				break;
			it->dist = rc;
			rc = 0;
		}
		b->n++;
		used += (size_t)snprintf(b->spec + used, sizeof(b->spec) - used, "%s%s%s%s",
					 used ? "," : "", eq ? cls : "", eq ? "=" : "", value);
	}
	if (rc)
		gs_busy_release(b);
	return rc == GS_ERANGE ? GS_EINVAL : rc;
}

void gs_busy_apply(const struct gs_busy *b, const struct gs_trace *t, struct gs_pod *pods,
		   size_t n, uint64_t seed)
{
	struct gs_rng rng;
	size_t i;
	int k;

	if (!b || b->n == 0)
		return;
	gs_rng_seed(&rng, seed ^ BUSY_STREAM);
	for (i = 0; i < n; i++) {
		struct gs_pod *p = &pods[i];
		const char *cls = p->wclass && t ? gs_trace_class_name(t, p->wclass) : "";
		const struct gs_busy_item *it = NULL;
		double u = gs_rng_uniform(&rng), v;

		/* One draw per pod whatever it gets, so a pod's draw does not depend on the others'. */
		if (p->num_gpu == 0 || p->busy_milli)
			continue;
		for (k = 0; k < b->n; k++) {
			if (strcmp(b->item[k].wclass, cls) == 0)
				it = &b->item[k];
			else if (!it && strcmp(b->item[k].wclass, "*") == 0)
				it = &b->item[k];
		}
		if (!it)
			continue;
		if (it->milli) {
			p->busy_milli = (int16_t)it->milli;
			continue;
		}
		v = gs_busy_dist_at(b->dists[it->dist], u);
		p->busy_milli = (int16_t)(v * 1000 < 1 ? 1 : v * 1000 > 1000 ? 1000 : v * 1000 + 0.5);
	}
}

/* One duty-cycle sample: the container it belongs to and its value in percent. */
struct sample {
	const char *pod;
	double pct;
};

static int by_pod(const void *a, const void *b)
{
	return strcmp(((const struct sample *)a)->pod, ((const struct sample *)b)->pod);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int gs_busy_fit(const char *path, int points, struct gs_busy_dist *d, size_t *n_pods,
		char *err, size_t err_len)
{
	static const char *const cols[3] = { "value", "timestamp_anon", "container_ip" };
	struct sample *s = NULL;
	double *means = NULL;
	size_t n = 0, cap = 0, pods = 0, i, j;
	struct gs_csv r;
	int rc, k;

	memset(d, 0, sizeof(*d));
	if (points < 2 || points > GS_BUSY_QUANTILES_MAX) {
		snprintf(err, err_len, "%d quantiles: between 2 and %d", points,
			 GS_BUSY_QUANTILES_MAX);
		return GS_EINVAL;
	}
	rc = gs_csv_open(&r, path, err, err_len);
	if (rc)
		return rc;
	rc = gs_csv_header(&r, cols, 3, "a duty-cycle file (the GenAI trace's "
			   "pod_gpu_duty_cycle_anon.csv)");
	while (rc == 1 && (rc = gs_csv_next(&r)) == 1) {
		double v;

		if ((rc = gs_csv_expect_fields(&r, 3)) || (rc = gs_csv_decimal(&r, 0, 0, 100, &v)))
			break;
		if (!r.field[2][0]) {
			rc = gs_csv_errorf(&r, 2, "empty container");
			break;
		}
		{
			struct sample *ns = gs_grow(s, &cap, n, sizeof(*s), 4096);

			if (!ns) {
				rc = GS_ENOMEM;
				break;
			}
			s = ns;
		}
		/* The field points into r's buffer, which lives until gs_csv_close(). */
		s[n].pod = r.field[2];
		s[n].pct = v;
		n++;
		rc = 1;
	}
	if (rc == 0 && n == 0)
		rc = gs_csv_file_errorf(&r, "no samples (only a header)");
	if (rc == 0) {
		qsort(s, n, sizeof(*s), by_pod);
		means = malloc(n * sizeof(*means));
		if (!means)
			rc = GS_ENOMEM;
	}
	for (i = 0; rc == 0 && i < n; i = j) {
		double sum = 0;

		for (j = i; j < n && strcmp(s[j].pod, s[i].pod) == 0; j++)
			sum += s[j].pct;
		means[pods] = sum / (double)(j - i) / 100.0;
		if (means[pods] < 0.001)
			means[pods] = 0.001;
		pods++;
	}
	if (rc == 0) {
		qsort(means, pods, sizeof(*means), by_value);
		for (k = 0; k < points; k++) {
			double q = (double)k / (points - 1), h = q * (double)(pods - 1);
			size_t lo = (size_t)h, hi = lo + 1 < pods ? lo + 1 : lo;

			d->q[k] = q;
			d->busy[k] = means[lo] + (means[hi] - means[lo]) * (h - (double)lo);
		}
		d->n = points;
		memcpy(d->sha256, r.sha256, sizeof(d->sha256));
		*n_pods = pods;
	}
	if (rc == GS_ENOMEM)
		snprintf(err, err_len, "%s: out of memory", path);
	free(means);
	free(s);
	gs_csv_close(&r);
	return rc;
}

int gs_busy_dist_write(const struct gs_busy_dist *d, const char *source, FILE *f)
{
	int i;

	fputs("quantile,busy,source\n", f);
	for (i = 0; i < d->n; i++)
		fprintf(f, "%.4f,%.4f,%s\n", d->q[i], d->busy[i], source);
	return ferror(f) ? GS_EIO : 0;
}
