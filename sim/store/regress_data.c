/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regress_data.c - the regression check's result sets (regress_data.h):
 * building, naming and sorting them, and reading one from a results
 * database.
 *
 * The database is read generically: one SELECT of runs joined with
 * run_summary, whose numeric columns become metrics by name, so the
 * columns other schema versions add (the time-mode figures of 1.1, the
 * sharing figures) are compared without a change here. The curves are
 * the FGD paper's figure-9a statistic (Weng et al., ATC 2023, section 6:
 * the per-run mean per arrived-workload percent, then the median and
 * quartiles over seeds) and the empirical distributions of waits and
 * completion times, pooled over the seeds of a policy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sqlite3.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/strv.h"
#include "store/digest.h"
#include "store/regress_data.h"

void gs_rset_init(struct gs_rset *s)
{
	memset(s, 0, sizeof(*s));
}

static void family_release(struct gs_rfamily *f)
{
	GS_MEM_FREE(f->name, f->mode, f->nodes_file, f->nodes_sha256, f->pods_file, f->pods_sha256,
		    f->params, f->trace);
}

void gs_rset_release(struct gs_rset *s)
{
	size_t i;

	for (i = 0; i < s->n_families; i++)
		family_release(&s->families[i]);
	free(s->families);
	free(s->runs);
	free(s->values);
	free(s->points);
	gs_strv_free(s->policies, s->n_policies);
	gs_strv_free(s->metrics, s->n_metrics);
	gs_strv_free(s->curves, s->n_curves);
	memset(s, 0, sizeof(*s));
}

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

int gs_rset_family(struct gs_rset *s, const char *name, const char *mode, const char *nodes_file,
		   const char *nodes_sha256, const char *pods_file, const char *pods_sha256,
		   const char *params, size_t *idx)
{
	struct gs_rfamily *f, *grown;
	size_t i;

	for (i = 0; i < s->n_families; i++) {
		f = &s->families[i];
		if (same(f->mode, mode) && same(f->nodes_file, nodes_file) &&
		    same(f->nodes_sha256, nodes_sha256) && same(f->pods_file, pods_file) &&
		    same(f->pods_sha256, pods_sha256) && same(f->params, params)) {
			*idx = i;
			return 0;
		}
	}
	grown = gs_grow(s->families, &s->cap_families, s->n_families, sizeof(*grown), 8);
	if (!grown)
		return GS_ENOMEM;
	s->families = grown;
	f = &grown[s->n_families];
	memset(f, 0, sizeof(*f));
	f->sweep_s = NAN;
	f->name = name ? strdup(name) : NULL;
	f->mode = strdup(mode);
	f->nodes_file = strdup(nodes_file);
	f->nodes_sha256 = strdup(nodes_sha256);
	f->pods_file = strdup(pods_file);
	f->pods_sha256 = strdup(pods_sha256);
	f->params = strdup(params);
	if ((name && !f->name) || !f->mode || !f->nodes_file || !f->nodes_sha256 || !f->pods_file ||
	    !f->pods_sha256 || !f->params) {
		family_release(f);
		return GS_ENOMEM;
	}
	*idx = s->n_families++;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A copy of the first len bytes of s. */
static char *copy_n(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

char *gs_rset_trace_name(const char *pods_path)
{
	static const char prefix[] = "openb_pod_list_";
	const char *base = base_name(pods_path), *dot = strrchr(base, '.');
	size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);

	if (len == 4 && !strncmp(base, "pods", 4) && base != pods_path) {
		/* "dir/sample/pods.csv" -> "sample" */
		const char *end = base - 1, *start = end;

		while (start > pods_path && start[-1] != '/')
			start--;
		if (end > start && strncmp(start, ".", (size_t)(end - start)) &&
		    strncmp(start, "..", (size_t)(end - start)))
			return copy_n(start, (size_t)(end - start));
	}
	if (len > sizeof(prefix) - 1 && !strncmp(base, prefix, sizeof(prefix) - 1)) {
		base += sizeof(prefix) - 1;
		len -= sizeof(prefix) - 1;
	}
	return copy_n(base, len);
}

int gs_rset_run(struct gs_rset *s, size_t family, const char *policy, uint64_t seed, bool replace,
		size_t *idx)
{
	long pol = gs_strv_intern(&s->policies, &s->n_policies, &s->cap_policies, policy);
	struct gs_rrun *added;
	size_t i;

	if (pol < 0)
		return GS_ENOMEM;
	for (i = s->n_runs; i-- > 0;) {
		struct gs_rrun *r = &s->runs[i];

		if (r->dropped || r->family != family || r->policy != (size_t)pol || r->seed != seed)
			continue;
		if (!replace) {
			*idx = i;
			return 0;
		}
		r->dropped = true;
		s->duplicates++;
		break;
	}
	GS_GROW_PUSH(s->runs, s->n_runs, s->cap_runs, 64, added);
	if (!added)
		return GS_ENOMEM;
	added->family = family;
	added->policy = (size_t)pol;
	added->seed = seed;
	*idx = s->n_runs - 1;
	return 0;
}

int gs_rset_value(struct gs_rset *s, size_t run, const char *metric, double value, bool integer)
{
	long m = gs_strv_intern(&s->metrics, &s->n_metrics, &s->cap_metrics, metric);
	struct gs_rvalue *v;

	if (m < 0)
		return GS_ENOMEM;
	GS_GROW_PUSH(s->values, s->n_values, s->cap_values, 256, v);
	if (!v)
		return GS_ENOMEM;
	v->run = run;
	v->metric = (size_t)m;
	v->value = value;
	v->integer = integer;
	return 0;
}

int gs_rset_point(struct gs_rset *s, size_t family, const char *policy, const char *curve,
		  double x, double y)
{
	long pol = gs_strv_intern(&s->policies, &s->n_policies, &s->cap_policies, policy);
	long c = pol < 0 ? -1 : gs_strv_intern(&s->curves, &s->n_curves, &s->cap_curves, curve);
	struct gs_rpoint *p;

	if (c < 0)
		return GS_ENOMEM;
	GS_GROW_PUSH(s->points, s->n_points, s->cap_points, 256, p);
	if (!p)
		return GS_ENOMEM;
	p->family = family;
	p->policy = (size_t)pol;
	p->curve = (size_t)c;
	p->x = x;
	p->y = y;
	return 0;
}

/* ---- naming the families ------------------------------------------------- */

/* The value of key in canonical params ("k=v;k=v"), as a pointer and length. */
static const char *param_value(const char *params, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *p = params;

	while (*p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			*len = n - klen - 1;
			return p + klen + 1;
		}
		p += n;
		if (*p == ';')
			p++;
	}
	*len = 0;
	return NULL;
}

static bool same_value(const char *a, size_t alen, const char *b, size_t blen)
{
	if (!a || !b)
		return a == b;
	return alen == blen && !memcmp(a, b, alen);
}

/* Appends text to a malloc'ed string; returns the new string or NULL (s freed). */
static char *append(char *s, const char *text, size_t len)
{
	size_t old = strlen(s);
	char *grown = gs_realloc_n(s, old + len + 1, 1);

	if (!grown) {
		free(s);
		return NULL;
	}
	memcpy(grown + old, text, len);
	grown[old + len] = '\0';
	return grown;
}

/* The characters a label keeps; the rest become '_'. */
static void clean_label(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("._=+-", *s)))
			*s = '_';
}

static bool label_taken(const struct gs_rset *s, size_t self, const char *label, bool all)
{
	size_t i;

	for (i = 0; i < s->n_families; i++)
		if (i != self && s->families[i].name && (all || i < self) &&
		    !strcmp(s->families[i].name, label))
			return true;
	return false;
}

/*
 * The keys of family f's params whose values differ in some other family
 * of the same base label, appended to *label as "-key=value".
 */
static int append_differing(const struct gs_rset *s, size_t f, char **base_of, char **label)
{
	const char *params = s->families[f].params, *p = params;

	while (*p) {
		const char *end = strchr(p, ';'), *eq;
		size_t n = end ? (size_t)(end - p) : strlen(p), i;
		bool differs = false;

		eq = memchr(p, '=', n);
		if (eq) {
			char *key = copy_n(p, (size_t)(eq - p));
			size_t vlen = n - (size_t)(eq - p) - 1, olen;

			if (!key)
				return GS_ENOMEM;
			for (i = 0; i < s->n_families && !differs; i++) {
				const char *ov;

				if (i == f || strcmp(base_of[i], base_of[f]))
					continue;
				ov = param_value(s->families[i].params, key, &olen);
				differs = !same_value(eq + 1, vlen, ov, olen);
			}
			free(key);
			if (differs) {
				*label = append(*label, "-", 1);
				if (*label)
					*label = append(*label, p, n);
				if (!*label)
					return GS_ENOMEM;
			}
		}
		p += n;
		if (*p == ';')
			p++;
	}
	return 0;
}

int gs_rset_name_families(struct gs_rset *s)
{
	char **base_of;
	size_t f, i;
	int rc = 0;

	base_of = calloc(s->n_families ? s->n_families : 1, sizeof(*base_of));
	if (!base_of)
		return GS_ENOMEM;
	for (f = 0; f < s->n_families && !rc; f++) {
		const struct gs_rfamily *fam = &s->families[f];
		char *trace = fam->trace ? strdup(fam->trace) : gs_rset_trace_name(fam->pods_file);

		base_of[f] = trace ? malloc(strlen(fam->mode) + strlen(trace) + 2) : NULL;
		if (base_of[f])
			sprintf(base_of[f], "%s-%s", fam->mode, trace);
		else
			rc = GS_ENOMEM;
		free(trace);
	}
	for (f = 0; f < s->n_families && !rc; f++) {
		struct gs_rfamily *fam = &s->families[f];
		bool shared = false, nodes_differ = false;
		char *label;

		if (fam->name)
			continue;
		for (i = 0; i < s->n_families; i++) {
			if (i == f || strcmp(base_of[i], base_of[f]))
				continue;
			shared = true;
			if (strcmp(s->families[i].nodes_file, fam->nodes_file))
				nodes_differ = true;
		}
		label = strdup(base_of[f]);
		if (label && shared)
			rc = append_differing(s, f, base_of, &label);
		if (!rc && label && nodes_differ) {
			char *nodes = gs_rset_trace_name(fam->nodes_file);

			label = nodes ? append(label, "-", 1) : label;
			if (nodes && label)
				label = append(label, nodes, strlen(nodes));
			if (!nodes) {
				free(label);
				label = NULL;
			}
			free(nodes);
		}
		if (!label) {
			rc = GS_ENOMEM;
			break;
		}
		clean_label(label);
		fam->name = label;
	}
	/* Whatever is still shared gets a number, in family order. */
	for (f = 0; f < s->n_families && !rc; f++) {
		struct gs_rfamily *fam = &s->families[f];
		char *numbered;
		int k;

		if (!label_taken(s, f, fam->name, false))
			continue;
		numbered = malloc(strlen(fam->name) + 24);
		if (!numbered) {
			rc = GS_ENOMEM;
			break;
		}
		for (k = 2;; k++) {
			sprintf(numbered, "%s-%d", fam->name, k);
			if (!label_taken(s, f, numbered, true))
				break;
		}
		free(fam->name);
		fam->name = numbered;
	}
	for (f = 0; f < s->n_families; f++)
		free(base_of[f]);
	free(base_of);
	return rc;
}

/* ---- sorting ------------------------------------------------------------- */

struct fam_key {
	const char *name;
	size_t old;
};

struct run_key {
	size_t family;        /* new index */
	const char *policy;
	uint64_t seed;
	size_t old;
};

struct value_key {
	size_t run;           /* new index */
	const char *metric;
	size_t old;
};

struct point_key {
	size_t family;
	const char *policy, *curve;
	double x, y;
	size_t old;
};

static int cmp_fam(const void *a, const void *b)
{
	const struct fam_key *x = a, *y = b;

	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int cmp_run(const void *a, const void *b)
{
	const struct run_key *x = a, *y = b;
	int c = gs_cmp_size(x->family, y->family);

	if (!c)
		c = strcmp(x->policy, y->policy);
	if (!c)
		c = x->seed < y->seed ? -1 : x->seed > y->seed;
	return c;
}

static int cmp_value(const void *a, const void *b)
{
	const struct value_key *x = a, *y = b;
	int c = gs_cmp_size(x->run, y->run);

	return c ? c : strcmp(x->metric, y->metric);
}

static int cmp_point(const void *a, const void *b)
{
	const struct point_key *x = a, *y = b;
	int c = gs_cmp_size(x->family, y->family);

	if (!c)
		c = strcmp(x->policy, y->policy);
	if (!c)
		c = strcmp(x->curve, y->curve);
	if (!c)
		c = gs_cmp_f64(x->x, y->x);
	if (!c)
		c = gs_cmp_f64(x->y, y->y);
	if (!c)
		c = gs_cmp_size(x->old, y->old);
	return c;
}

int gs_rset_finish(struct gs_rset *s, char *err, size_t err_len)
{
	struct fam_key *fk = NULL;
	struct run_key *rk = NULL;
	struct value_key *vk = NULL;
	struct point_key *pk = NULL;
	size_t *fam_new = NULL, *run_new = NULL, i, n, nf = s->n_families;
	struct gs_rfamily *fams = NULL;
	struct gs_rrun *runs = NULL;
	struct gs_rvalue *vals = NULL;
	struct gs_rpoint *pts = NULL;
	int rc = GS_ENOMEM;

	fk = malloc((nf ? nf : 1) * sizeof(*fk));
	fam_new = malloc((nf ? nf : 1) * sizeof(*fam_new));
	rk = malloc((s->n_runs ? s->n_runs : 1) * sizeof(*rk));
	run_new = malloc((s->n_runs ? s->n_runs : 1) * sizeof(*run_new));
	vk = malloc((s->n_values ? s->n_values : 1) * sizeof(*vk));
	pk = malloc((s->n_points ? s->n_points : 1) * sizeof(*pk));
	fams = malloc((nf ? nf : 1) * sizeof(*fams));
	runs = malloc((s->n_runs ? s->n_runs : 1) * sizeof(*runs));
	vals = malloc((s->n_values ? s->n_values : 1) * sizeof(*vals));
	pts = malloc((s->n_points ? s->n_points : 1) * sizeof(*pts));
	if (!fk || !fam_new || !rk || !run_new || !vk || !pk || !fams || !runs || !vals || !pts) {
		gs_errf(err, err_len, "out of memory");
		goto out;
	}
	for (i = 0; i < nf; i++) {
		fk[i].name = s->families[i].name;
		fk[i].old = i;
	}
	qsort(fk, nf, sizeof(*fk), cmp_fam);
	for (i = 0; i < nf; i++) {
		fam_new[fk[i].old] = i;
		fams[i] = s->families[fk[i].old];
	}
	for (i = n = 0; i < s->n_runs; i++) {
		run_new[i] = (size_t)-1;
		if (s->runs[i].dropped)
			continue;
		rk[n].family = fam_new[s->runs[i].family];
		rk[n].policy = s->policies[s->runs[i].policy];
		rk[n].seed = s->runs[i].seed;
		rk[n].old = i;
		n++;
	}
	qsort(rk, n, sizeof(*rk), cmp_run);
	for (i = 0; i < n; i++) {
		runs[i] = s->runs[rk[i].old];
		runs[i].family = rk[i].family;
		runs[i].value0 = 0;
		runs[i].n_values = 0;
		run_new[rk[i].old] = i;
	}
	s->n_runs = n;
	for (i = n = 0; i < s->n_values; i++) {
		if (run_new[s->values[i].run] == (size_t)-1)
			continue;
		vk[n].run = run_new[s->values[i].run];
		vk[n].metric = s->metrics[s->values[i].metric];
		vk[n].old = i;
		n++;
	}
	qsort(vk, n, sizeof(*vk), cmp_value);
	for (i = 0; i < n; i++) {
		vals[i] = s->values[vk[i].old];
		vals[i].run = vk[i].run;
		if (i && vals[i].run == vals[i - 1].run && vals[i].metric == vals[i - 1].metric) {
			const struct gs_rrun *r = &runs[vals[i].run];

			gs_errf(err, err_len, "family %s, policy %s, seed %llu: metric %s given twice",
			    fams[r->family].name ? fams[r->family].name : "?", s->policies[r->policy],
			    (unsigned long long)r->seed, s->metrics[vals[i].metric]);
			rc = GS_EEXIST;
			goto out;
		}
		if (runs[vals[i].run].n_values++ == 0)
			runs[vals[i].run].value0 = i;
	}
	s->n_values = n;
	for (i = 0; i < s->n_points; i++) {
		pk[i].family = fam_new[s->points[i].family];
		pk[i].policy = s->policies[s->points[i].policy];
		pk[i].curve = s->curves[s->points[i].curve];
		pk[i].x = s->points[i].x;
		pk[i].y = s->points[i].y;
		pk[i].old = i;
	}
	qsort(pk, s->n_points, sizeof(*pk), cmp_point);
	for (i = 0; i < s->n_points; i++) {
		pts[i] = s->points[pk[i].old];
		pts[i].family = pk[i].family;
	}
	/* Swap the sorted arrays in (the capacities are the counts now). */
	free(s->families);
	s->families = fams;
	s->cap_families = nf ? nf : 1;
	free(s->runs);
	s->runs = runs;
	s->cap_runs = s->n_runs ? s->n_runs : 1;
	free(s->values);
	s->values = vals;
	s->cap_values = s->n_values ? s->n_values : 1;
	free(s->points);
	s->points = pts;
	s->cap_points = s->n_points ? s->n_points : 1;
	fams = NULL;
	runs = NULL;
	vals = NULL;
	pts = NULL;
	s->finished = true;
	rc = 0;
out:
	free(fk);
	free(fam_new);
	free(rk);
	free(run_new);
	free(vk);
	free(pk);
	free(fams);
	free(runs);
	free(vals);
	free(pts);
	return rc;
}

const struct gs_rvalue *gs_rset_find_value(const struct gs_rset *s, size_t run, size_t metric)
{
	const struct gs_rrun *r = &s->runs[run];
	size_t i;

	for (i = r->value0; i < r->value0 + r->n_values; i++)
		if (s->values[i].metric == metric)
			return &s->values[i];
	return NULL;
}

/* ---- canonical parameters ------------------------------------------------ */

/* Appends n bytes of text to *out (length *len, capacity *cap), NUL-terminated. */
static int put_raw(char **out, size_t *len, size_t *cap, const char *text, size_t n)
{
	char *grown = gs_grow(*out, cap, *len + n + 1, 1, 64);

	if (!grown)
		return GS_ENOMEM;
	*out = grown;
	memcpy(grown + *len, text, n);
	*len += n;
	grown[*len] = '\0';
	return 0;
}

/* Appends s with the bytes a CSV field or the k=v;k=v form cannot hold as %XX. */
static int put_escaped(char **out, size_t *len, size_t *cap, const char *s)
{
	char hex[4];
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || strchr("%,;=\"", c)) {
			snprintf(hex, sizeof(hex), "%%%02X", c);
			rc = put_raw(out, len, cap, hex, 3);
		} else {
			rc = put_raw(out, len, cap, s, 1);
		}
	}
	return rc;
}

int gs_rset_params(const char *params_json, char **out)
{
	cJSON *obj = params_json ? cJSON_Parse(params_json) : NULL, *item;
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!obj || !cJSON_IsObject(obj)) {
		cJSON_Delete(obj);
		return GS_EPARSE;
	}
	rc = put_raw(&text, &len, &cap, "", 0);
	cJSON_ArrayForEach(item, obj) {
		char *printed = NULL;
		const char *v;

		if (rc)
			break;
		if (cJSON_IsString(item)) {
			v = item->valuestring;
		} else {
			printed = cJSON_PrintUnformatted(item);
			v = printed;
		}
		if (!v)
			rc = GS_ENOMEM;
		if (!rc && len)
			rc = put_raw(&text, &len, &cap, ";", 1);
		if (!rc)
			rc = put_escaped(&text, &len, &cap, item->string ? item->string : "");
		if (!rc)
			rc = put_raw(&text, &len, &cap, "=", 1);
		if (!rc)
			rc = put_escaped(&text, &len, &cap, v);
		if (printed)
			cJSON_free(printed);
	}
	cJSON_Delete(obj);
	if (rc) {
		free(text);
		return rc;
	}
	*out = text;
	return 0;
}

/* ---- reading a database -------------------------------------------------- */

/*
 * The columns of runs and run_summary that are neither key nor metric:
 * ids, how the run was stored, the cluster's size (a fact of the cluster
 * file, whose checksum is part of the key), wall-clock times, and the
 * inflate headline's own columns (at100_*), which run_summary's
 * gpu_alloc_pct, frag_ratio_pct and frag_amount_pct compare already.
 */
static bool skipped_column(const char *name)
{
	static const char *const skip[] = {
		"run_id", "seed", "status", "pods_stored", "samples_stored", "n_nodes", "gpu_count",
	};
	static const char capacity[] = "_capacity";
	size_t i, len = strlen(name);

	for (i = 0; i < sizeof(skip) / sizeof(*skip); i++)
		if (!strcmp(name, skip[i]))
			return true;
	if (!strncmp(name, "at100_", 6))
		return true;
	if (len >= sizeof(capacity) - 1 && !strcmp(name + len - (sizeof(capacity) - 1), capacity))
		return true;
	/* Wall-clock milliseconds (results/SCHEMA.md's unit convention). */
	return len >= 3 && !strcmp(name + len - 3, "_ms");
}

enum key_col { K_POLICY, K_MODE, K_SEED, K_NODES, K_NODES_SHA, K_PODS, K_PODS_SHA, K_PARAMS,
	       K_WALL_MS, K_EVENTS, K_N };

static const char *const key_names[K_N] = {
	"policy", "mode", "seed", "nodes_path", "nodes_sha256", "pods_path", "pods_sha256",
	"params_json", "wall_ms", "n_events",
};

/* Database run ids of the kept runs, by set run index. */
struct id_map {
	int64_t *ids;
	size_t n, cap;
};

static int db_error(sqlite3 *sq, char *err, size_t err_len)
{
	gs_errf(err, err_len, "%s: %s", sqlite3_db_filename(sq, "main"), sqlite3_errmsg(sq));
	return GS_EDB;
}

/* One row of the run query into s. */
static int read_run(struct gs_rset *s, sqlite3_stmt *st, const int *key, const bool *metric_col,
		    struct id_map *ids, double *t0, double *t1)
{
	const char *pods_path = (const char *)sqlite3_column_text(st, key[K_PODS]);
	const char *nodes_path = (const char *)sqlite3_column_text(st, key[K_NODES]);
	const char *mode = (const char *)sqlite3_column_text(st, key[K_MODE]);
	const char *policy = (const char *)sqlite3_column_text(st, key[K_POLICY]);
	char *params = NULL;
	size_t fam, run;
	int rc, i, n = sqlite3_column_count(st);
	struct gs_rfamily *f;

	rc = gs_rset_params((const char *)sqlite3_column_text(st, key[K_PARAMS]), &params);
	if (rc)
		return rc;
	rc = gs_rset_family(s, NULL, mode ? mode : "", nodes_path ? base_name(nodes_path) : "",
			    (const char *)sqlite3_column_text(st, key[K_NODES_SHA]),
			    pods_path ? base_name(pods_path) : "",
			    (const char *)sqlite3_column_text(st, key[K_PODS_SHA]), params, &fam);
	free(params);
	if (rc)
		return rc;
	f = &s->families[fam];
	if (!f->trace && pods_path) {
		f->trace = gs_rset_trace_name(pods_path);
		if (!f->trace)
			return GS_ENOMEM;
	}
	rc = gs_rset_run(s, fam, policy ? policy : "", (uint64_t)sqlite3_column_int64(st, key[K_SEED]),
			 true, &run);
	if (rc)
		return rc;
	if (run >= ids->cap) {
		int64_t *grown = gs_grow(ids->ids, &ids->cap, run, sizeof(*grown), 64);

		if (!grown)
			return GS_ENOMEM;
		ids->ids = grown;
	}
	ids->ids[run] = sqlite3_column_int64(st, 2);
	ids->n = run + 1;
	for (i = 0; i < n && !rc; i++) {
		int type = sqlite3_column_type(st, i);

		if (!metric_col[i] || (type != SQLITE_INTEGER && type != SQLITE_FLOAT))
			continue;
		rc = gs_rset_value(s, run, sqlite3_column_name(st, i), sqlite3_column_double(st, i),
				   type == SQLITE_INTEGER);
	}
	/* Speed: a run's events and simulation time, and when it ran. */
	if (!rc && sqlite3_column_type(st, key[K_WALL_MS]) != SQLITE_NULL) {
		f->speed_runs++;
		f->events += sqlite3_column_int64(st, key[K_EVENTS]);
		f->sim_ms += sqlite3_column_double(st, key[K_WALL_MS]);
	}
	if (!rc && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL) {
		double a = sqlite3_column_double(st, 0), b = sqlite3_column_double(st, 1);

		if (isnan(t0[fam]) || a < t0[fam])
			t0[fam] = a;
		if (isnan(t1[fam]) || b > t1[fam])
			t1[fam] = b;
	}
	return rc;
}

/*
 * The run query: the start and end in seconds, the run id, then runs.*
 * and run_summary.*. Which column is what comes from the names, the
 * first of two same-named columns (runs' own) counting.
 */
static const char sql_runs[] =
	"SELECT julianday(r.started_at) * 86400.0, julianday(r.ended_at) * 86400.0, r.run_id,"
	" r.*, s.* FROM runs r JOIN run_summary s ON s.run_id = r.run_id"
	" WHERE r.status = 'complete' ORDER BY r.run_id";

static int read_runs(sqlite3 *sq, struct gs_rset *s, struct id_map *ids, char *err,
		     size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int key[K_N], n, i, k, step, rc = 0;
	bool *metric_col = NULL;
	double *t0 = NULL, *t1 = NULL;
	size_t cap_t = 0, f;

	if (sqlite3_prepare_v2(sq, sql_runs, -1, &st, NULL) != SQLITE_OK)
		return db_error(sq, err, err_len);
	n = sqlite3_column_count(st);
	metric_col = calloc((size_t)n, sizeof(*metric_col));
	if (!metric_col) {
		sqlite3_finalize(st);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	for (k = 0; k < K_N; k++)
		key[k] = -1;
	for (i = 3; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		bool seen = false;
		int j;

		for (j = 3; j < i && !seen; j++)
			seen = !strcmp(sqlite3_column_name(st, j), name);
		if (seen)
			continue;
		for (k = 0; k < K_N; k++)
			if (!strcmp(name, key_names[k]))
				key[k] = i;
		metric_col[i] = !skipped_column(name);
		for (k = 0; k < K_N; k++)
			if (key[k] == i && k != K_EVENTS)
				metric_col[i] = false;
	}
	for (k = 0; k < K_N; k++)
		if (key[k] < 0) {
			gs_errf(err, err_len, "%s: runs has no column %s", sqlite3_db_filename(sq, "main"), key_names[k]);
			rc = GS_EDB;
		}
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		/* Room for one more family's clock, which a row may add. */
		if (s->n_families + 1 > cap_t) {
			size_t ncap = cap_t ? 2 * cap_t : 8, j;
			double *a = gs_realloc_n(t0, ncap, sizeof(*a)), *b;

			if (a)
				t0 = a;
			b = a ? gs_realloc_n(t1, ncap, sizeof(*b)) : NULL;
			if (b)
				t1 = b;
			if (!a || !b) {
				rc = GS_ENOMEM;
				break;
			}
			for (j = cap_t; j < ncap; j++)
				t0[j] = t1[j] = NAN;
			cap_t = ncap;
		}
		rc = read_run(s, st, key, metric_col, ids, t0, t1);
		if (rc == GS_EPARSE)
			gs_errf(err, err_len, "%s: run %lld: params_json is not a JSON object", sqlite3_db_filename(sq, "main"),
			    (long long)sqlite3_column_int64(st, 2));
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_error(sq, err, err_len);
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	for (f = 0; !rc && f < s->n_families; f++)
		if (f < cap_t && !isnan(t0[f]) && !isnan(t1[f]))
			s->families[f].sweep_s = t1[f] - t0[f];
	sqlite3_finalize(st);
	free(metric_col);
	free(t0);
	free(t1);
	return rc;
}

/* Appends the doubles of column 0 of st (run_id bound to ?1) to *v. */
static int collect(sqlite3 *sq, sqlite3_stmt *st, int64_t run_id, double **v, size_t *n,
		   size_t *cap, char *err, size_t err_len)
{
	int step;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		double *grown;

		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		grown = gs_grow(*v, cap, *n, sizeof(**v), 1024);
		if (!grown)
			return gs_errf_nomem(err, err_len);
		*v = grown;
		(*v)[(*n)++] = sqlite3_column_double(st, 0);
	}
	return step == SQLITE_DONE ? 0 : db_error(sq, err, err_len);
}

/*
 * The grid of fractions the distributions are given at: 0 to 0.95 in
 * steps of 0.05, then 1 - 0.05 * 10^(-j/10) for j = 1..24 (up to 0.9998,
 * the tail, where policies differ), then 1.
 */
#define CDF_GRID 45

static double cdf_grid(int k)
{
	return k < 20 ? k / 20.0 : k < CDF_GRID - 1 ? 1 - 0.05 * pow(10, -(k - 19) / 10.0) : 1.0;
}

/* The nearest-rank quantile p of sorted v[0..n): the value at rank ceil(p n), at least 1. */
static double quantile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p * (double)n - 1e-9);

	rank = rank < 1 ? 1 : rank > n ? n : rank;
	return v[rank - 1];
}

/* The number of values of sorted v[0..n) at or below x (v[i] <= x for i below it). */
static size_t count_upto(const double *v, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Sorted values v[0..n) as points of their empirical CDF (x a value, y the
 * fraction of values at or below it, exactly): at the quantiles of the
 * grid, and at the smallest value above the minimum (where a CDF with most
 * values at 0, such as the waits, becomes visible on a log axis). One
 * point per distinct value, in increasing order.
 */
static int cdf_points(struct gs_rset *s, size_t fam, const char *policy, const char *curve,
		      const double *v, size_t n)
{
	size_t second = count_upto(v, n, v[0]);
	double last = NAN;
	int k, rc = 0;

	for (k = 0; k < CDF_GRID && !rc; k++) {
		double x = quantile(v, n, cdf_grid(k));

		/* The second distinct value, where it falls between grid points. */
		if (second < n && v[second] < x && (isnan(last) || v[second] > last)) {
			rc = gs_rset_point(s, fam, policy, curve, v[second],
					   (double)count_upto(v, n, v[second]) / (double)n);
			last = v[second];
		}
		if (rc || x == last)
			continue;
		rc = gs_rset_point(s, fam, policy, curve, x, (double)count_upto(v, n, x) / (double)n);
		last = x;
	}
	return rc;
}

/* The two distributions of one (family, policy) of a time family. */
static int time_curves(sqlite3 *sq, sqlite3_stmt *st_wait, sqlite3_stmt *st_done,
		       struct gs_rset *s, size_t fam, size_t pol, const struct id_map *ids,
		       char *err, size_t err_len)
{
	double *w = NULL, *c = NULL;
	size_t nw = 0, cw = 0, nc = 0, cc = 0, r;
	int rc = 0;

	for (r = 0; r < s->n_runs && !rc; r++)
		if (!s->runs[r].dropped && s->runs[r].family == fam && s->runs[r].policy == pol) {
			rc = collect(sq, st_wait, ids->ids[r], &w, &nw, &cw, err, err_len);
			if (!rc)
				rc = collect(sq, st_done, ids->ids[r], &c, &nc, &cc, err, err_len);
		}
	if (!rc && nw) {
		gsl_sort(w, 1, nw);
		rc = cdf_points(s, fam, s->policies[pol], GS_RCURVE_WAIT_CDF, w, nw);
	}
	if (!rc && nc) {
		gsl_sort(c, 1, nc);
		rc = cdf_points(s, fam, s->policies[pol], GS_RCURVE_COMPLETION_CDF, c, nc);
	}
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	free(w);
	free(c);
	return rc;
}

/* Median and quartiles over the seeds of unallocated GPU % per arrived percent. */
static int inflate_curves(sqlite3 *sq, sqlite3_stmt *st, struct gs_rset *s, size_t fam,
			  size_t pol, const struct id_map *ids, char *err, size_t err_len)
{
	enum { NPCT = GS_RCURVE_ARRIVED_MAX - GS_RCURVE_ARRIVED_MIN + 1 };
	double *v[NPCT] = { NULL };
	size_t n[NPCT] = { 0 }, cap[NPCT] = { 0 }, r, k;
	int rc = 0, step;

	for (r = 0; r < s->n_runs && !rc; r++) {
		if (s->runs[r].dropped || s->runs[r].family != fam || s->runs[r].policy != pol)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids->ids[r]);
		while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t pct = sqlite3_column_int64(st, 0);
			double *grown;

			if (pct < GS_RCURVE_ARRIVED_MIN || pct > GS_RCURVE_ARRIVED_MAX ||
			    sqlite3_column_type(st, 1) == SQLITE_NULL)
				continue;
			k = (size_t)(pct - GS_RCURVE_ARRIVED_MIN);
			grown = gs_grow(v[k], &cap[k], n[k], sizeof(*grown), 16);
			if (!grown) {
				gs_errf(err, err_len, "out of memory");
				rc = GS_ENOMEM;
				break;
			}
			v[k] = grown;
			v[k][n[k]++] = sqlite3_column_double(st, 1);
		}
		if (!rc && step != SQLITE_DONE)
			rc = db_error(sq, err, err_len);
	}
	for (k = 0; k < NPCT && !rc; k++) {
		double x = (double)(GS_RCURVE_ARRIVED_MIN + (int)k);

		if (!n[k])
			continue;
		gsl_sort(v[k], 1, n[k]);
		rc = gs_rset_point(s, fam, s->policies[pol], GS_RCURVE_UNALLOC_MEDIAN, x,
				   gsl_stats_median_from_sorted_data(v[k], 1, n[k]));
		if (!rc)
			rc = gs_rset_point(s, fam, s->policies[pol], GS_RCURVE_UNALLOC_Q25, x,
					   gsl_stats_quantile_from_sorted_data(v[k], 1, n[k], 0.25));
		if (!rc)
			rc = gs_rset_point(s, fam, s->policies[pol], GS_RCURVE_UNALLOC_Q75, x,
					   gsl_stats_quantile_from_sorted_data(v[k], 1, n[k], 0.75));
		if (rc)
			gs_errf(err, err_len, "out of memory");
	}
	for (k = 0; k < NPCT; k++)
		free(v[k]);
	return rc;
}

static int read_curves(sqlite3 *sq, struct gs_rset *s, const struct id_map *ids, char *err,
		       size_t err_len)
{
	static const char sql_buckets[] =
		"SELECT arrived_pct, unalloc_gpu_pct FROM arrived_buckets WHERE run_id = ?1";
	static const char sql_wait[] =
		"SELECT wait_s FROM pods WHERE run_id = ?1 AND wait_s IS NOT NULL";
	static const char sql_done[] =
		"SELECT t_end_s - t_arrive_s FROM pods WHERE run_id = ?1 AND state = 'done'"
		" AND t_end_s IS NOT NULL";
	sqlite3_stmt *sb = NULL, *sw = NULL, *sd = NULL;
	size_t f, p;
	int rc = 0;

	if (sqlite3_prepare_v2(sq, sql_buckets, -1, &sb, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, sql_wait, -1, &sw, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, sql_done, -1, &sd, NULL) != SQLITE_OK)
		rc = db_error(sq, err, err_len);
	for (f = 0; f < s->n_families && !rc; f++) {
		bool inflate = !strcmp(s->families[f].mode, "inflate");
		bool timed = !strcmp(s->families[f].mode, "time");

		for (p = 0; p < s->n_policies && !rc; p++) {
			if (inflate)
				rc = inflate_curves(sq, sb, s, f, p, ids, err, err_len);
			else if (timed)
				rc = time_curves(sq, sw, sd, s, f, p, ids, err, err_len);
		}
	}
	sqlite3_finalize(sb);
	sqlite3_finalize(sw);
	sqlite3_finalize(sd);
	return rc;
}

int gs_rset_from_db(struct gs_db *db, struct gs_rset *s, char *err, size_t err_len)
{
	sqlite3 *sq = gs_db_sqlite(db);
	struct id_map ids = { NULL, 0, 0 };
	size_t r, live = 0;
	int rc;

	rc = read_runs(sq, s, &ids, err, err_len);
	/* A damaged file says so rather than compare what is left of it. */
	for (r = 0; !rc && r < ids.n; r++)
		rc = gs_db_digest_check(db, "main", gs_db_path(db), ids.ids[r], err, err_len);
	for (r = 0; !rc && r < s->n_runs; r++)
		live += !s->runs[r].dropped;
	if (!rc && live == 0) {
		gs_errf(err, err_len, "%s: no complete runs", gs_db_path(db));
		rc = GS_ENOENT;
	}
	if (!rc)
		rc = read_curves(sq, s, &ids, err, err_len);
	if (!rc) {
		rc = gs_rset_name_families(s);
		if (rc)
			gs_errf(err, err_len, "out of memory");
	}
	if (!rc)
		rc = gs_rset_finish(s, err, err_len);
	free(ids.ids);
	if (rc)
		gs_rset_release(s);
	return rc;
}
