/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gen.c - the synthetic trace generator (see gen.h, and traces/README.md
 * for the spec format).
 *
 * The distributions are GSL's: gsl_ran_exponential() for Poisson
 * inter-arrival gaps, gsl_ran_lognormal() for durations (job runtimes in
 * GPU clusters are heavy-tailed; Weng et al., ATC 2023, and Jeon et al.,
 * ATC 2019, both report long tails), and gsl_ran_discrete() for the mix.
 * Each pod draws gap, shape, duration in that order from one mt19937
 * stream, so the output depends only on the spec and the seed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/mem.h"
#include "io/trace/gen.h"
#include "io/trace/internal.h"

/* Longest duration accepted: ten years, far beyond any trace. */
#define GEN_MAX_DURATION_S (10LL * 365 * 86400)

void gs_gen_spec_init(struct gs_gen_spec *s)
{
	memset(s, 0, sizeof(*s));
	gs_cluster_init(&s->cluster);
	snprintf(s->name_prefix, sizeof(s->name_prefix), "pod");
}

void gs_gen_spec_release(struct gs_gen_spec *s)
{
	gs_cluster_release(&s->cluster);
	free(s->shapes);
	gs_gen_spec_init(s);
}

/* A number that must be above zero (a rate, a weight, a median). */
static int positive(struct gs_where *w, const cJSON *obj, const char *key, double max,
		    double *out, bool *present)
{
	bool here;
	int rc = gs_trace_json_double(w, obj, key, present == NULL, 0, max, 0, out, &here);

	if (rc)
		return rc;
	if (present)
		*present = here;
	if (here && !(*out > 0))
		return gs_where_errorf(w, key, "'%g' is not greater than 0", *out);
	return 0;
}

/* Reads a duration object; dflt (may be NULL) gives missing bounds. */
static int duration_parse(struct gs_where *w, const cJSON *obj, const struct gs_gen_duration *dflt,
			  struct gs_gen_duration *d)
{
	static const char *const keys[] = { "mu", "median_s", "sigma", "min_s", "max_s", NULL };
	bool has_mu, has_median;
	double mu, median;
	int rc;

	if ((rc = gs_trace_json_check_keys(w, obj, keys)) ||
	    (rc = gs_trace_json_double(w, obj, "mu", false, -50, 50, 0, &mu, &has_mu)) ||
	    (rc = positive(w, obj, "median_s", (double)GEN_MAX_DURATION_S, &median, &has_median)) ||
	    (rc = gs_trace_json_double(w, obj, "sigma", true, 0, 10, 0, &d->sigma, NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "min_s", false, 1, GEN_MAX_DURATION_S,
				    dflt ? dflt->min_s : 1, &d->min_s, NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "max_s", false, 1, GEN_MAX_DURATION_S,
				    dflt ? dflt->max_s : GEN_MAX_DURATION_S, &d->max_s, NULL)))
		return rc;
	if (has_mu == has_median)
		return gs_where_errorf(w, NULL, "give either 'mu' (log-seconds) or 'median_s' "
				       "(seconds), not %s", has_mu ? "both" : "neither");
	/* A lognormal's median is exp(mu). */
	d->mu = has_mu ? mu : log(median);
	if (d->max_s < d->min_s)
		return gs_where_errorf(w, "max_s", "'%" PRId64 "' is less than min_s %" PRId64,
				       d->max_s, d->min_s);
	return 0;
}

static int shape_parse(struct gs_where *w, const cJSON *e, struct gs_gen_spec *s,
		       struct gs_gen_shape *sh)
{
	static const char *const keys[] = {
		"weight", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_mem_mib",
		"gpu_spec", "duration", "class", "gpu_need_milli", "gpu_busy_milli",
		"gpu_compute_milli", NULL,
	};
	uint32_t node_mask = gs_cluster_model_mask(&s->cluster);
	int64_t use[3];
	const char *wclass = NULL;
	struct gs_trace scratch;
	const cJSON *dur;
	bool unknown = false;
	char spec[512];
	int32_t j;
	int rc;

	memset(sh, 0, sizeof(*sh));
	if ((rc = gs_trace_json_check_keys(w, e, keys)) ||
	    (rc = positive(w, e, "weight", 1e12, &sh->weight, NULL)) ||
	    (rc = gs_trace_json_pod_request(w, e, &sh->req)) ||
	    (rc = gs_trace_json_gpu_use(w, e, use)) ||
	    (rc = gs_trace_json_string(w, e, "class", false, &wclass)))
		return rc;
	sh->req.t_create_s = sh->req.t_delete_s = -1;
	if ((rc = gs_trace_json_spec(w, e, "gpu_spec", &s->cluster.models, node_mask,
				     &sh->req.model_mask,
				     &unknown, spec, sizeof(spec))) ||
	    (rc = gs_trace_check_pod(w, &sh->req, spec)) ||
	    (rc = gs_trace_pod_gpu_use(w, &sh->req, use)))
		return rc;
	/* The class is checked as a trace would check it; the generated trace gets it. */
	gs_trace_init(&scratch);
	rc = gs_trace_pod_class(w, "class", &scratch, &sh->req, wclass);
	gs_trace_release(&scratch);
	if (rc)
		return rc;
	sh->req.wclass = 0;
	if (wclass)
		snprintf(sh->wclass, sizeof(sh->wclass), "%s", wclass);
	/* A generated trace should not contain pods that can never run. */
	if (unknown)
		return gs_where_errorf(w, "gpu_spec", "'%s' names a model no node of the spec has",
				       spec);
	for (j = 0; j < s->cluster.n_nodes; j++)
		if (gs_cluster_fits(&s->cluster, j, &sh->req) == GS_FIT_OK)
			break;
	if (j == s->cluster.n_nodes)
		return gs_where_errorf(w, NULL, "fits on no node of the spec's cluster");
	sh->dur = s->dur;
	dur = cJSON_GetObjectItemCaseSensitive(e, "duration");
	if (dur) {
		char path[64];
		struct gs_where dw = *w;

		snprintf(path, sizeof(path), "%s[%ld].duration", w->array, w->index);
		dw.array = path;
		dw.index = -1;
		if ((rc = duration_parse(&dw, dur, &s->dur, &sh->dur)))
			return rc;
	}
	return 0;
}

static int workload_parse(const char *file, const cJSON *pods, struct gs_gen_spec *s, char *err,
			  size_t err_len)
{
	static const char *const keys[] = {
		"count", "name_prefix", "start_time", "arrivals_per_hour", "duration", "mix", NULL,
	};
	struct gs_where w = { file, 0, "pods", -1, err, err_len };
	const cJSON *dur, *mix, *e;
	const char *prefix;
	int64_t count;
	size_t n;
	int rc;

	if ((rc = gs_trace_json_check_keys(&w, pods, keys)) ||
	    (rc = gs_trace_json_int(&w, pods, "count", true, 1, 10000000, 0, &count, NULL)) ||
	    (rc = gs_trace_json_string(&w, pods, "name_prefix", false, &prefix)) ||
	    (rc = gs_trace_json_int(&w, pods, "start_time", false, 0, GEN_MAX_DURATION_S * 10, 0,
				    &s->start_s, NULL)) ||
	    (rc = positive(&w, pods, "arrivals_per_hour", 1e9, &s->arrivals_per_hour, NULL)))
		return rc;
	s->n_pods = (size_t)count;
	if (prefix) {
		if ((rc = gs_check_name(&w, "name_prefix", prefix)))
			return rc;
		if (strlen(prefix) >= sizeof(s->name_prefix))
			return gs_where_errorf(&w, "name_prefix", "'%s' is too long (at most %zu "
					       "bytes)", prefix, sizeof(s->name_prefix) - 1);
		snprintf(s->name_prefix, sizeof(s->name_prefix), "%s", prefix);
	}
	dur = cJSON_GetObjectItemCaseSensitive(pods, "duration");
	if (!dur)
		return gs_where_errorf(&w, NULL, "missing key 'duration'");
	w.array = "pods.duration";
	if ((rc = duration_parse(&w, dur, NULL, &s->dur)))
		return rc;
	w.array = "pods";
	mix = cJSON_GetObjectItemCaseSensitive(pods, "mix");
	if (!mix)
		return gs_where_errorf(&w, NULL, "missing key 'mix'");
	if (!cJSON_IsArray(mix) || !mix->child)
		return gs_where_errorf(&w, "mix", "expected a non-empty array of request shapes");
	n = (size_t)cJSON_GetArraySize(mix);
	s->shapes = calloc(n, sizeof(*s->shapes));
	if (!s->shapes)
		return GS_ENOMEM;
	w.array = "pods.mix";
	w.index = 0;
	for (e = mix->child; e; e = e->next, w.index++) {
		if ((rc = shape_parse(&w, e, s, &s->shapes[s->n_shapes])))
			return rc;
		s->n_shapes++;
	}
	return 0;
}

/* Parses the opened spec r into s (see gs_gen_spec_load); closes r. */
static int spec_read(struct gs_csv *r, struct gs_gen_spec *s, char *err, size_t err_len)
{
	static const char *const extra[] = { "pods", NULL };
	const char *path = r->name;
	const cJSON *pods;
	cJSON *root;
	int rc;

	root = gs_trace_json_parse(path, r->buf + r->pos, r->len - r->pos, err, err_len);
	if (!root) {
		gs_csv_close(r);
		return GS_EPARSE;
	}
	rc = gs_trace_json_cluster_parse(path, root, extra, &s->cluster, err, err_len);
	if (!rc) {
		pods = cJSON_GetObjectItemCaseSensitive(root, "pods");
		if (!pods) {
			snprintf(err, err_len, "%s: missing key 'pods'", path);
			rc = GS_EPARSE;
		} else {
			rc = workload_parse(path, pods, s, err, err_len);
		}
	}
	cJSON_Delete(root);
	if (rc) {
		if (rc == GS_ENOMEM)
			snprintf(err, err_len, "%s: out of memory", path);
		gs_gen_spec_release(s);
	}
	gs_csv_close(r);
	return rc;
}

int gs_gen_spec_load(const char *path, struct gs_gen_spec *s, char *err, size_t err_len)
{
	struct gs_csv r;
	int rc = gs_csv_open(&r, path, err, err_len);

	return rc ? rc : spec_read(&r, s, err, err_len);
}

int gs_gen_spec_parse(const char *name, const char *text, size_t len, struct gs_gen_spec *s,
		      char *err, size_t err_len)
{
	struct gs_csv r;
	int rc = gs_csv_open_mem(&r, name, text, len, err, err_len);

	return rc ? rc : spec_read(&r, s, err, err_len);
}

static int64_t draw_duration(gsl_rng *r, const struct gs_gen_duration *d)
{
	double x = gsl_ran_lognormal(r, d->mu, d->sigma);

	/* Clamp as a double first: a far tail draw must not overflow the cast. */
	if (!(x >= (double)d->min_s))
		return d->min_s;
	if (x >= (double)d->max_s)
		return d->max_s;
	return (int64_t)llround(x);
}

int gs_gen_pods(const struct gs_gen_spec *s, uint64_t seed, struct gs_trace *t, char *err,
		size_t err_len)
{
	gsl_ran_discrete_t *table = NULL;
	gsl_rng *r = NULL;
	double *weights = NULL;
	double now = (double)s->start_s, mean_gap_s = 3600.0 / s->arrivals_per_hour;
	int width = 1;
	size_t i, m;
	int rc = GS_ENOMEM;

	if (err && err_len)
		err[0] = '\0';
	for (m = s->n_pods > 0 ? s->n_pods - 1 : 0; m >= 10; m /= 10)
		width++;
	weights = malloc(s->n_shapes * sizeof(*weights));
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!weights || !r)
		goto out;
	for (i = 0; i < s->n_shapes; i++)
		weights[i] = s->shapes[i].weight;
	table = gsl_ran_discrete_preproc(s->n_shapes, weights);
	if (!table)
		goto out;
	gsl_rng_set(r, (unsigned long)seed);
	t->format = "gen";
	for (i = 0; i < s->n_pods; i++) {
		const struct gs_gen_shape *sh;
		struct gs_pod p;
		char name[96];
		int64_t d;
		size_t k;
		int n;

		now += gsl_ran_exponential(r, mean_gap_s);
		k = gsl_ran_discrete(r, table);
		sh = &s->shapes[k];
		d = draw_duration(r, &sh->dur);
		n = snprintf(name, sizeof(name), "%s-%0*zu", s->name_prefix, width, i);
		if (n < 0 || (size_t)n >= sizeof(name))
			goto out;
		/* A slow rate and many pods can carry the clock past the legal range. */
		if (!(now <= (double)(GS_TIME_MAX_S - d))) {
			snprintf(err, err_len, "pod '%s' would arrive at %g s and leave %" PRId64
				 " s later, past the last simulated second %" PRId64 "; raise "
				 "pods.arrivals_per_hour or lower pods.count", name, now, d,
				 GS_TIME_MAX_S);
			rc = GS_ERANGE;
			goto out;
		}
		p = sh->req;
		if (sh->wclass[0]) {
			int k2 = gs_trace_class(t, sh->wclass);

			if (k2 < 0)
				goto out;
			p.wclass = (int16_t)k2;
		}
		p.t_create_s = (int64_t)floor(now);
		p.t_delete_s = p.t_create_s + d;
		if (gs_trace_append(t, name, &p))
			goto out;
	}
	rc = 0;
out:
	if (rc == GS_ENOMEM && err && err_len)
		snprintf(err, err_len, "out of memory");
	if (rc)
		gs_trace_release(t);
	if (table)
		gsl_ran_discrete_free(table);
	if (r)
		gsl_rng_free(r);
	free(weights);
	return rc;
}

int gs_gen_load_compute(const struct gs_trace *t, const struct gs_cluster *c,
			struct gs_gen_load *out)
{
	/* Event lists as (time, request) pairs packed in two int64 arrays. */
	int64_t *up = NULL, *down = NULL, first = INT64_MAX, last = INT64_MIN;
	double work = 0, cap = (double)c->gpu_count * GS_MILLI_PER_GPU;
	int64_t level = 0, peak = 0;
	size_t i, nu = 0, nd = 0, a = 0, b = 0;

	memset(out, 0, sizeof(*out));
	up = malloc(2 * t->n_pods * sizeof(*up) + 1);
	down = malloc(2 * t->n_pods * sizeof(*down) + 1);
	if (!up || !down) {
		GS_MEM_FREE(up, down);
		return GS_ENOMEM;
	}
	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];
		int64_t req = gs_pod_gpu_milli(p);

		if (p->t_create_s < 0)
			continue;
		if (p->t_create_s < first)
			first = p->t_create_s;
		if (p->t_create_s > last)
			last = p->t_create_s;
		if (req == 0)
			continue;
		up[2 * nu] = p->t_create_s;
		up[2 * nu + 1] = req;
		nu++;
		if (p->t_delete_s >= p->t_create_s) {
			down[2 * nd] = p->t_delete_s;
			down[2 * nd + 1] = req;
			nd++;
			work += (double)req * (double)(p->t_delete_s - p->t_create_s);
		}
	}
	/* Sort the pairs by time (qsort on 16-byte records keyed by the first). */
	qsort(up, nu, 2 * sizeof(*up), gs_cmp_i64_elem);
	qsort(down, nd, 2 * sizeof(*down), gs_cmp_i64_elem);
	/* Departures at a time go before arrivals at the same time. */
	while (a < nu) {
		if (b < nd && down[2 * b] <= up[2 * a]) {
			level -= down[2 * b + 1];
			b++;
		} else {
			level += up[2 * a + 1];
			a++;
			if (level > peak)
				peak = level;
		}
	}
	if (first <= last) {
		out->span_s = last - first;
		if (cap > 0 && out->span_s > 0)
			out->mean = work / (cap * (double)out->span_s);
	}
	if (cap > 0)
		out->peak = (double)peak / cap;
	free(up);
	free(down);
	return 0;
}
