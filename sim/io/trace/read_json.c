/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read_json.c - gpusim's native JSON clusters and pod traces (through
 * cJSON), and the JSON helpers the generator's spec reader shares.
 *
 * cJSON keeps no line numbers for values, so errors name the file, the
 * array element and the field instead ("cluster.json: nodes[3].cpu_milli:
 * 'abc' is not an integer"); only a syntax error has a line, computed from
 * the offset where cJSON stopped. Unknown keys are errors: a typo such as
 * "cpu_mili" must not silently fall back to a default. The formats are
 * documented in traces/README.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/cjson.h"
#include "io/trace/internal.h"

cJSON *gs_trace_json_parse(const char *file, const char *text, size_t len, char *err,
			   size_t err_len)
{
	cJSON *root;
	size_t off = 0, i, n, start;
	long line = 1;
	char near[32], shown[80];

	if (memchr(text, '\0', len)) {
		off = (size_t)((const char *)memchr(text, '\0', len) - text);
		for (i = 0; i < off; i++)
			line += text[i] == '\n';
		snprintf(err, err_len, "%s:%ld: NUL byte (is this a text file?)", file, line);
		return NULL;
	}
	for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
		;
	if (i == len) {
		snprintf(err, err_len, "%s: empty file", file);
		return NULL;
	}
	root = gs_cjson_parse(text, len, &off);
	if (root)
		return root;
	for (i = 0; i < off; i++)
		line += text[i] == '\n';
	/* cJSON points just past the token it choked on: show a little of each side. */
	for (start = off; start > 0 && off - start < 12 && text[start - 1] != '\n'; start--)
		;
	for (n = 0; start + n < len && n < sizeof(near) - 1 && text[start + n] != '\n' &&
		    text[start + n] != '\r' && (start + n < off || start + n - off < 12); n++)
		near[n] = text[start + n];
	near[n] = '\0';
	if (off >= len || strspn(text + off, " \t\r\n") == len - off)
		snprintf(err, err_len, "%s:%ld: JSON syntax error at the end of the file (a "
			 "missing bracket, brace or quote?)", file, line);
	else
		snprintf(err, err_len, "%s:%ld: JSON syntax error near '%s'", file, line,
			 gs_csv_quote(near, shown, sizeof(shown)));
	gs_csv_msg_clean(err);
	return NULL;
}

static const char *json_type(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	return "an invalid value";
}

/* A value as it would appear in JSON, shortened, for messages. */
static const char *json_show(const cJSON *v, char *buf, size_t len)
{
	char *s;

	if (cJSON_IsString(v))
		return gs_csv_quote(v->valuestring, buf, len);
	s = cJSON_PrintUnformatted(v);
	if (!s) {
		snprintf(buf, len, "%s", json_type(v));
		return buf;
	}
	gs_csv_quote(s, buf, len);
	cJSON_free(s);
	return buf;
}

int gs_trace_json_check_keys(const struct gs_where *w, const cJSON *obj, const char *const *allowed)
{
	char vbuf[80];
	const cJSON *k, *j;
	int i;

	if (!cJSON_IsObject(obj))
		return gs_where_errorf(w, NULL, "expected an object, found %s", json_type(obj));
	for (k = obj->child; k; k = k->next) {
		bool ok = strcmp(k->string, "comment") == 0;

		for (i = 0; !ok && allowed && allowed[i]; i++)
			ok = strcmp(k->string, allowed[i]) == 0;
		if (!ok) {
			char list[256];
			size_t off = 0;

			list[0] = '\0';
			for (i = 0; allowed && allowed[i] && off < sizeof(list); i++) {
				int n = snprintf(list + off, sizeof(list) - off, "%s%s",
						 i ? ", " : "", allowed[i]);

				if (n < 0)
					break;
				off += (size_t)n;
			}
			return gs_where_errorf(w, NULL, "unknown key '%s' (expected %s)",
					       gs_csv_quote(k->string, vbuf, sizeof(vbuf)), list);
		}
		for (j = obj->child; j != k; j = j->next)
			if (strcmp(j->string, k->string) == 0)
				return gs_where_errorf(w, NULL, "key '%s' appears twice",
						       gs_csv_quote(k->string, vbuf, sizeof(vbuf)));
	}
	return 0;
}

/* The item for key, or NULL when absent (or null and null counts as absent). */
static const cJSON *json_get(const cJSON *obj, const char *key, bool required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v && cJSON_IsNull(v) && !required)
		return NULL;
	return v;
}

static int missing(const struct gs_where *w, const char *key)
{
	return gs_where_errorf(w, NULL, "missing key '%s'", key);
}

/* A string that holds a number gets a hint, everything else the plain message. */
static int not_a(const struct gs_where *w, const char *key, const cJSON *v, const char *what)
{
	char vbuf[80];

	if (cJSON_IsString(v)) {
		char *end;

		(void)strtod(v->valuestring, &end);
		if (v->valuestring[0] && !*end)
			return gs_where_errorf(w, key, "'%s' is a string, not %s (remove the "
					       "quotes)", gs_csv_quote(v->valuestring, vbuf,
								       sizeof(vbuf)), what);
	}
	return gs_where_errorf(w, key, "'%s' is not %s", json_show(v, vbuf, sizeof(vbuf)), what);
}

int gs_trace_json_int(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
		      int64_t min, int64_t max, int64_t dflt, int64_t *out, bool *present_out)
{
	const cJSON *v = json_get(obj, key, required);
	double d;
	int64_t i;

	if (present_out)
		*present_out = false;
	if (!v) {
		if (required)
			return missing(w, key);
		*out = dflt;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return not_a(w, key, v, "an integer");
	/* cJSON keeps numbers as doubles: beyond 2^53-1 they are no longer exact. */
	if (max > GS_JSON_INT_MAX)
		max = GS_JSON_INT_MAX;
	if (min < -GS_JSON_INT_MAX)
		min = -GS_JSON_INT_MAX;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return not_a(w, key, v, "an integer");
	if (d < (double)min) {
		if (min == 0)
			return gs_where_errorf(w, key, "'%.17g' is negative", d);
		return gs_where_errorf(w, key, "'%.17g' is less than %" PRId64, d, min);
	}
	if (d > (double)max)
		return gs_where_errorf(w, key, "'%.17g' is greater than %" PRId64, d, max);
	i = (int64_t)d;
	*out = i;
	if (present_out)
		*present_out = true;
	return 0;
}

int gs_trace_json_pod_request(const struct gs_where *w, const cJSON *obj, struct gs_pod *p)
{
	int64_t cpu, mem, ngpu, gmilli, gmem;
	int rc;

	if ((rc = gs_trace_json_int(w, obj, "cpu_milli", true, 0, GS_CPU_MILLI_MAX, 0, &cpu,
				    NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "memory_mib", true, 0, GS_MIB_MAX, 0, &mem, NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "num_gpu", false, 0, GS_MAX_GPUS, 0, &ngpu, NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "gpu_milli", false, 0, GS_MILLI_PER_GPU,
				    ngpu > 0 ? GS_MILLI_PER_GPU : 0, &gmilli, NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "gpu_mem_mib", false, 0, GS_MIB_MAX, 0, &gmem, NULL)))
		return rc;
	p->cpu_milli = (int32_t)cpu;
	p->mem_mib = mem;
	p->num_gpu = (int32_t)ngpu;
	p->gpu_milli = (int32_t)gmilli;
	p->gpu_mem_mib = gmem;
	return 0;
}

int gs_trace_json_gpu_use(const struct gs_where *w, const cJSON *obj, int64_t milli[3])
{
	int rc;

	if ((rc = gs_trace_json_int(w, obj, "gpu_need_milli", false, 0, GS_MILLI_PER_GPU, 0,
				    &milli[0], NULL)) ||
	    (rc = gs_trace_json_int(w, obj, "gpu_busy_milli", false, 1, GS_MILLI_PER_GPU, 0,
				    &milli[1], NULL)))
		return rc;
	return gs_trace_json_int(w, obj, "gpu_compute_milli", false, 1, GS_MILLI_PER_GPU, 0,
				 &milli[2], NULL);
}

int gs_trace_json_double(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
			 double min, double max, double dflt, double *out, bool *present_out)
{
	const cJSON *v = json_get(obj, key, required);
	double d;

	if (present_out)
		*present_out = false;
	if (!v) {
		if (required)
			return missing(w, key);
		*out = dflt;
		return 0;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return not_a(w, key, v, "a number");
	d = v->valuedouble;
	if (d < min)
		return gs_where_errorf(w, key, "'%g' is less than %g", d, min);
	if (d > max)
		return gs_where_errorf(w, key, "'%g' is greater than %g", d, max);
	*out = d;
	if (present_out)
		*present_out = true;
	return 0;
}

int gs_trace_json_string(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
			 const char **out)
{
	const cJSON *v = json_get(obj, key, required);

	if (!v) {
		if (required)
			return missing(w, key);
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsString(v))
		return not_a(w, key, v, "a string");
	*out = v->valuestring;
	return 0;
}

int gs_trace_json_spec(const struct gs_where *w, const cJSON *obj, const char *key,
		       struct gs_models *models, uint32_t node_mask, uint32_t *mask, bool *unknown,
		       char *spec_buf, size_t spec_len)
{
	const cJSON *v = json_get(obj, key, false);
	const cJSON *e;
	size_t off = 0;
	int rc;

	spec_buf[0] = '\0';
	if (!v)
		return 0;
	if (cJSON_IsString(v)) {
		snprintf(spec_buf, spec_len, "%s", v->valuestring);
		return gs_trace_spec_parse(w, v->valuestring, models, node_mask, mask, unknown);
	}
	if (!cJSON_IsArray(v))
		return not_a(w, key, v, "a string or an array of strings");
	/* Join first, so a message about one name shows the whole set. */
	for (e = v->child; e; e = e->next) {
		int n;

		if (!cJSON_IsString(e))
			return not_a(w, key, e, "a model name (a string)");
		n = snprintf(spec_buf + off, spec_len - off, "%s%s", off ? "|" : "",
			     e->valuestring);
		if (n < 0 || (size_t)n >= spec_len - off)
			return gs_where_errorf(w, key, "too many model names");
		off += (size_t)n;
	}
	for (e = v->child; e; e = e->next) {
		rc = gs_trace_spec_add(w, spec_buf, models, e->valuestring, strlen(e->valuestring),
				       node_mask, mask, unknown);
		if (rc)
			return rc;
	}
	return 0;
}

static int expect_array(const struct gs_where *w, const cJSON *v, const char *key)
{
	if (!cJSON_IsArray(v))
		return gs_where_errorf(w, key, "expected an array, found %s", json_type(v));
	return 0;
}

static int models_parse(struct gs_where *w, const cJSON *arr, struct gs_models *models)
{
	static const char *const keys[] = { "name", "mem_mib", NULL };
	const cJSON *e;
	struct gs_nameset seen;
	const char *name;
	char vbuf[80];
	int64_t mem;
	long prev;
	int rc = 0;

	gs_nameset_init(&seen);
	w->array = "gpu_models";
	w->index = 0;
	for (e = arr->child; e; e = e->next, w->index++) {
		size_t len;

		if ((rc = gs_trace_json_check_keys(w, e, keys)) ||
		    (rc = gs_trace_json_string(w, e, "name", true, &name)) ||
		    (rc = gs_trace_json_int(w, e, "mem_mib", true, 0, GS_MIB_MAX, 0, &mem, NULL)))
			break;
		len = strlen(name);
		gs_csv_quote(name, vbuf, sizeof(vbuf));
		if (len == 0 || len >= GS_MODEL_NAME_MAX) {
			rc = gs_where_errorf(w, "name", "'%s' must have 1 to %d bytes", vbuf,
					     GS_MODEL_NAME_MAX - 1);
			break;
		}
		/* The same rule as for the models nodes and pods name (rules.c). */
		if (!gs_model_name_ok(name, len)) {
			rc = gs_where_errorf(w, "name", "'%s' has a character not allowed in model "
					     "names (a space, '|', a comma, a quote, a backslash, "
					     "a control character or bytes that are not UTF-8)", vbuf);
			break;
		}
		rc = gs_nameset_add(&seen, name, w->index, &prev);
		if (rc < 0)
			break;
		if (rc == 1) {
			rc = gs_where_errorf(w, "name", "duplicate model '%s' (first at "
					     "gpu_models[%ld])", vbuf, prev);
			break;
		}
		rc = gs_models_set(models, name, mem);
		if (rc == GS_ERANGE) {
			rc = gs_where_errorf(w, "name", "'%s' is one model too many (at most %d)",
					     vbuf, GS_MAX_MODELS);
			break;
		}
		if (rc < 0)
			break;
		rc = 0;
	}
	gs_nameset_release(&seen);
	return rc;
}

/*
 * A node's "sharing": a spec string for all its GPUs, or an array of one
 * spec per GPU; gs_trace_node_sharing() takes them as one '|'-joined text.
 */
static int node_sharing(struct gs_where *w, const cJSON *e, struct gs_cluster *c, int32_t node)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "sharing");
	char text[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];
	const cJSON *g;
	size_t used = 0;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v))
		return gs_trace_node_sharing(w, "sharing", c, node, v->valuestring);
	if (!cJSON_IsArray(v))
		return gs_where_errorf(w, "sharing", "is %s, not a sharing spec or an array of them",
				       json_type(v));
	text[0] = '\0';
	for (g = v->child; g; g = g->next) {
		if (!cJSON_IsString(g) || !*g->valuestring || strchr(g->valuestring, '|'))
			return gs_where_errorf(w, "sharing", "every element must be one sharing spec "
					       "(one per GPU)");
		if (used + strlen(g->valuestring) + 2 >= sizeof(text))
			return gs_where_errorf(w, "sharing", "too long");
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used ? "|" : "",
					 g->valuestring);
	}
	if (v->child && !v->child->next && c->nodes[node].num_gpu > 1)
		return gs_where_errorf(w, "sharing", "an array of 1 mode for %d GPUs (give one per "
				       "GPU, or a string for the whole node)",
				       c->nodes[node].num_gpu);
	return gs_trace_node_sharing(w, "sharing", c, node, text);
}

static int nodes_parse(struct gs_where *w, const cJSON *arr, struct gs_cluster *c)
{
	static const char *const keys[] = {
		"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_model", "count", "sharing", NULL,
	};
	struct gs_nameset names;
	const cJSON *e;
	int rc = 0;

	gs_nameset_init(&names);
	w->array = "nodes";
	w->index = 0;
	for (e = arr->child; e; e = e->next, w->index++) {
		const char *name, *model;
		int64_t cpu, mem, ngpu, count, k;
		bool replicate;

		if ((rc = gs_trace_json_check_keys(w, e, keys)) ||
		    (rc = gs_trace_json_string(w, e, "name", true, &name)) ||
		    (rc = gs_trace_json_int(w, e, "cpu_milli", true, 0, GS_CPU_MILLI_MAX, 0, &cpu,
					    NULL)) ||
		    (rc = gs_trace_json_int(w, e, "memory_mib", true, 0, GS_MIB_MAX, 0, &mem,
					    NULL)) ||
		    (rc = gs_trace_json_int(w, e, "num_gpu", false, 0, GS_MAX_GPUS, 0, &ngpu,
					    NULL)) ||
		    (rc = gs_trace_json_string(w, e, "gpu_model", false, &model)) ||
		    (rc = gs_trace_json_int(w, e, "count", false, 1, 1000000, 1, &count,
					    &replicate)))
			break;
		if (!replicate) {
			rc = gs_trace_add_node(w, &gs_native_node_fields, c, &names, name, cpu, mem,
					       ngpu, model ? model : "");
			if (rc == 0)
				rc = node_sharing(w, e, c, c->n_nodes - 1);
			if (rc)
				break;
			continue;
		}
		/* Check the base name once, so its errors do not mention a suffix. */
		if ((rc = gs_check_name(w, "name", name)))
			break;
		for (k = 0; k < count; k++) {
			char full[GS_NAME_MAX + 32];

			snprintf(full, sizeof(full), "%s-%" PRId64, name, k);
			rc = gs_trace_add_node(w, &gs_native_node_fields, c, &names, full, cpu, mem,
					       ngpu, model ? model : "");
			if (rc == 0)
				rc = node_sharing(w, e, c, c->n_nodes - 1);
			if (rc)
				break;
		}
		if (rc)
			break;
	}
	gs_nameset_release(&names);
	return rc;
}

int gs_trace_json_cluster_parse(const char *file, const cJSON *root, const char *const *extra,
				struct gs_cluster *c, char *err, size_t err_len)
{
	const char *keys[16] = { "gpu_models", "nodes" };
	struct gs_where w = { file, 0, NULL, -1, err, err_len };
	const cJSON *models, *nodes;
	int i, n = 2, rc;

	for (i = 0; extra && extra[i] && n < 15; i++)
		keys[n++] = extra[i];
	keys[n] = NULL;
	if ((rc = gs_trace_json_check_keys(&w, root, keys)))
		return rc;
	models = cJSON_GetObjectItemCaseSensitive(root, "gpu_models");
	nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	if (models && !cJSON_IsNull(models)) {
		if ((rc = expect_array(&w, models, "gpu_models")) ||
		    (rc = models_parse(&w, models, &c->models)))
			return rc;
		w.array = NULL;
		w.index = -1;
	}
	if (!nodes)
		return missing(&w, "nodes");
	if ((rc = expect_array(&w, nodes, "nodes")))
		return rc;
	if (!nodes->child)
		return gs_where_errorf(&w, "nodes", "empty array (a cluster needs a node)");
	return nodes_parse(&w, nodes, c);
}

/* The JSON text of a file opened with gs_csv_open(), before any gs_csv_next(). */
static cJSON *csv_json(struct gs_csv *r)
{
	return gs_trace_json_parse(r->name, r->buf + r->pos, r->len - r->pos, r->err, r->err_len);
}

int gs_trace_json_cluster_read(struct gs_csv *r, struct gs_cluster *c)
{
	cJSON *root = csv_json(r);
	int rc;

	if (!root)
		return GS_EPARSE;
	rc = gs_trace_json_cluster_parse(r->name, root, NULL, c, r->err, r->err_len);
	if (rc == GS_EPARSE && cJSON_GetObjectItemCaseSensitive(root, "pods") &&
	    !cJSON_GetObjectItemCaseSensitive(root, "nodes"))
		snprintf(r->err, r->err_len, "%s: this is a pod trace, not a cluster file",
			 r->name);
	cJSON_Delete(root);
	return rc;
}

static int pod_parse(struct gs_where *w, const cJSON *e, struct gs_cluster *c,
		     uint32_t node_mask, struct gs_nameset *names, struct gs_trace *t)
{
	static const char *const keys[] = {
		"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_mem_mib",
		"gpu_spec", "creation_time", "deletion_time", "class", "gpu_need_milli",
		"gpu_busy_milli", "gpu_compute_milli", "pod_group", NULL,
	};
	int64_t create, del, use[3];
	const char *name, *wclass, *group;
	char spec[512], vbuf[80];
	bool unknown = false;
	struct gs_pod p;
	long prev;
	int rc;

	memset(&p, 0, sizeof(p));
	if ((rc = gs_trace_json_check_keys(w, e, keys)) ||
	    (rc = gs_trace_json_string(w, e, "name", true, &name)) ||
	    (rc = gs_check_name(w, "name", name)) ||
	    (rc = gs_trace_json_pod_request(w, e, &p)) ||
	    (rc = gs_trace_json_int(w, e, "creation_time", false, 0, GS_TIME_MAX_S, -1, &create,
				    NULL)) ||
	    (rc = gs_trace_json_int(w, e, "deletion_time", false, 0, GS_TIME_MAX_S, -1, &del,
				    NULL)) ||
	    (rc = gs_trace_json_gpu_use(w, e, use)) ||
	    (rc = gs_trace_json_string(w, e, "class", false, &wclass)) ||
	    (rc = gs_trace_json_string(w, e, "pod_group", false, &group)) ||
	    (group && *group && (rc = gs_check_name(w, "pod_group", group))))
		return rc;
	p.t_create_s = create;
	p.t_delete_s = del;
	if ((rc = gs_trace_json_spec(w, e, "gpu_spec", &c->models, node_mask, &p.model_mask,
				     &unknown,
				     spec, sizeof(spec))) ||
	    (rc = gs_trace_check_pod(w, &p, spec)) ||
	    (rc = gs_trace_pod_class(w, "class", t, &p, wclass)) ||
	    (rc = gs_trace_pod_gpu_use(w, &p, use)))
		return rc;
	if (gs_nameset_find(names, name, &prev))
		return gs_where_errorf(w, "name", "duplicate pod name '%s' (first at pods[%ld])",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), prev);
	if ((rc = gs_trace_append_spec(t, name, &p, spec)))
		return rc;
	if (group && *group && (rc = gs_trace_join_group(t, group)))
		return rc;
	if ((rc = gs_nameset_add(names, t->pod_names[t->n_pods - 1], w->index, NULL)) < 0)
		return rc;
	if (unknown)
		t->audit.unknown_model++;
	return 0;
}

int gs_trace_json_pods_read(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t)
{
	static const char *const top[] = { "pods", NULL };
	struct gs_where w = { r->name, 0, NULL, -1, r->err, r->err_len };
	uint32_t node_mask = gs_cluster_model_mask(c);
	struct gs_nameset names;
	const cJSON *pods, *e;
	cJSON *root = csv_json(r);
	int rc;

	if (!root)
		return GS_EPARSE;
	gs_nameset_init(&names);
	if ((rc = gs_trace_json_check_keys(&w, root, top))) {
		/* The commonest mix-up deserves a plain answer. */
		if (cJSON_GetObjectItemCaseSensitive(root, "nodes"))
			rc = gs_where_errorf(&w, NULL, "this is a cluster file, not a pod trace");
		goto out;
	}
	pods = cJSON_GetObjectItemCaseSensitive(root, "pods");
	if (!pods) {
		rc = missing(&w, "pods");
		goto out;
	}
	if ((rc = expect_array(&w, pods, "pods")))
		goto out;
	if (!pods->child) {
		rc = gs_where_errorf(&w, "pods", "empty array (a trace needs a pod)");
		goto out;
	}
	w.array = "pods";
	w.index = 0;
	for (e = pods->child; e; e = e->next, w.index++)
		if ((rc = pod_parse(&w, e, c, node_mask, &names, t)))
			break;
out:
	gs_nameset_release(&names);
	cJSON_Delete(root);
	return rc;
}
