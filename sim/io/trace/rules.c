/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.c - what makes a node or a pod record valid, shared by every
 * reader (CSV and JSON) and by the generator, so the same problem is
 * reported in the same words whatever the format. See internal.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/internal.h"
#include "io/utf8.h"

const struct gs_node_fields gs_openb_node_fields = {
	"sn", "cpu_milli", "memory_mib", "gpu", "model",
};

const struct gs_node_fields gs_native_node_fields = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_model",
};

void gs_where_csv(struct gs_where *w, const struct gs_csv *r)
{
	w->file = r->name;
	w->line = r->line;
	w->array = NULL;
	w->index = -1;
	w->err = r->err;
	w->err_len = r->err_len;
}

int gs_where_errorf(const struct gs_where *w, const char *field, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!w->err || !w->err_len)
		return GS_EPARSE;
	if (w->line > 0) {
		if (field)
			n = snprintf(w->err, w->err_len, "%s:%ld: column %s: ", w->file, w->line,
				     field);
		else
			n = snprintf(w->err, w->err_len, "%s:%ld: ", w->file, w->line);
	} else if (w->array) {
		char idx[32] = "";

		if (w->index >= 0)
			snprintf(idx, sizeof(idx), "[%ld]", w->index);
		n = snprintf(w->err, w->err_len, "%s: %s%s%s%s: ", w->file, w->array, idx,
			     field ? "." : "", field ? field : "");
	} else if (field) {
		n = snprintf(w->err, w->err_len, "%s: %s: ", w->file, field);
	} else {
		n = snprintf(w->err, w->err_len, "%s: ", w->file);
	}
	if (n < 0 || (size_t)n >= w->err_len)
		return GS_EPARSE;
	va_start(ap, fmt);
	vsnprintf(w->err + n, w->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	gs_csv_msg_clean(w->err);
	return GS_EPARSE;
}

/* Characters a writer could not emit unquoted in CSV or unescaped in JSON. */
static bool bad_name_char(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f || ch == ',' || ch == '"' || ch == '\\';
}

int gs_check_name(const struct gs_where *w, const char *field, const char *name)
{
	char vbuf[80];
	size_t len = strlen(name);
	size_t i;

	if (len == 0)
		return gs_where_errorf(w, field, "empty name");
	if (len > GS_NAME_MAX)
		return gs_where_errorf(w, field, "'%s' is too long (%zu bytes, at most %d)",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), len, GS_NAME_MAX);
	if (!gs_utf8_valid(name, len))
		return gs_where_errorf(w, field, "'%s' is not valid UTF-8",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)));
	for (i = 0; i < len; i++)
		if (bad_name_char((unsigned char)name[i]))
			return gs_where_errorf(w, field, "'%s' has a character not allowed in "
					       "names (a control character, a comma, a quote "
					       "or a backslash)",
					       gs_csv_quote(name, vbuf, sizeof(vbuf)));
	return 0;
}

/* --- name sets ---------------------------------------------------------- */

void gs_nameset_init(struct gs_nameset *s)
{
	memset(s, 0, sizeof(*s));
}

void gs_nameset_release(struct gs_nameset *s)
{
	free(s->keys);
	free(s->vals);
	free(s->hash);
	gs_nameset_init(s);
}

/* FNV-1a: short names, no adversary; simple and good enough. */
static uint32_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* The slot of name (hash h): where it is, or the empty slot where it would go. */
static size_t nameset_slot(const struct gs_nameset *s, const char *name, uint32_t h)
{
	size_t i = (size_t)h & (s->cap - 1);

	while (s->keys[i] && (s->hash[i] != h || strcmp(s->keys[i], name) != 0))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int nameset_grow(struct gs_nameset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct gs_nameset n = { NULL, NULL, NULL, cap, 0 };
	size_t i;

	n.keys = calloc(cap, sizeof(*n.keys));
	n.vals = calloc(cap, sizeof(*n.vals));
	n.hash = calloc(cap, sizeof(*n.hash));
	if (!n.keys || !n.vals || !n.hash) {
		free(n.keys);
		free(n.vals);
		free(n.hash);
		return GS_ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		if (s->keys[i]) {
			size_t j = (size_t)s->hash[i] & (cap - 1);

			/* Keys are distinct: the first empty slot is theirs. */
			while (n.keys[j])
				j = (j + 1) & (cap - 1);
			n.keys[j] = s->keys[i];
			n.vals[j] = s->vals[i];
			n.hash[j] = s->hash[i];
			n.n++;
		}
	}
	free(s->keys);
	free(s->vals);
	free(s->hash);
	*s = n;
	return 0;
}

int gs_nameset_add(struct gs_nameset *s, const char *name, long val, long *prev_out)
{
	uint32_t h;
	size_t i;

	/* Keep the load factor at or below one half. */
	if (2 * (s->n + 1) > s->cap) {
		int rc = nameset_grow(s);

		if (rc)
			return rc;
	}
	h = name_hash(name);
	i = nameset_slot(s, name, h);
	if (s->keys[i]) {
		if (prev_out)
			*prev_out = s->vals[i];
		return 1;
	}
	s->keys[i] = name;
	s->vals[i] = val;
	s->hash[i] = h;
	s->n++;
	return 0;
}

bool gs_nameset_find(const struct gs_nameset *s, const char *name, long *val_out)
{
	size_t i;

	if (s->cap == 0)
		return false;
	i = nameset_slot(s, name, name_hash(name));
	if (!s->keys[i])
		return false;
	if (val_out)
		*val_out = s->vals[i];
	return true;
}

/* "first on line 5" or "first at nodes[2]" */
static void first_seen(const struct gs_where *w, long prev, char *buf, size_t len)
{
	if (w->line > 0)
		snprintf(buf, len, "first on line %ld", prev);
	else
		snprintf(buf, len, "first at %s[%ld]", w->array ? w->array : "", prev);
}

/* --- nodes -------------------------------------------------------------- */

static bool bad_model_char(unsigned char ch)
{
	return bad_name_char(ch) || ch == '|' || ch == ' ';
}

bool gs_model_name_ok(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len >= GS_MODEL_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (bad_model_char((unsigned char)name[i]))
			return false;
	return gs_utf8_valid(name, len);
}

static void known_models(const struct gs_models *m, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < m->n && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", m->m[i].name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

int gs_trace_add_node(const struct gs_where *w, const struct gs_node_fields *f,
		      struct gs_cluster *c, struct gs_nameset *names, const char *name,
		      int64_t cpu_milli, int64_t mem_mib, int64_t num_gpu, const char *model)
{
	char vbuf[80], first[64];
	size_t mlen = model ? strlen(model) : 0;
	long prev, here = w->line > 0 ? w->line : w->index;
	int rc;

	rc = gs_check_name(w, f->name, name);
	if (rc)
		return rc;
	if (gs_nameset_find(names, name, &prev)) {
		first_seen(w, prev, first, sizeof(first));
		return gs_where_errorf(w, f->name, "duplicate node name '%s' (%s)",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), first);
	}
	if (num_gpu > 0 && mlen == 0)
		return gs_where_errorf(w, f->model, "missing (%s is %" PRId64 "; a node with GPUs "
				       "needs a model)", f->num_gpu, num_gpu);
	if (num_gpu == 0 && mlen > 0)
		return gs_where_errorf(w, f->model, "'%s' is not allowed with %s 0 (a node "
				       "without GPUs has no model)",
				       gs_csv_quote(model, vbuf, sizeof(vbuf)), f->num_gpu);
	if (num_gpu > 0) {
		char list[512];

		if (mlen >= GS_MODEL_NAME_MAX)
			return gs_where_errorf(w, f->model, "'%s' is too long (at most %d "
					       "bytes)", gs_csv_quote(model, vbuf, sizeof(vbuf)),
					       GS_MODEL_NAME_MAX - 1);
		if (!gs_model_name_ok(model, mlen))
			return gs_where_errorf(w, f->model, "'%s' has a character not allowed in "
					       "model names (a space, '|', a comma, a quote, a "
					       "backslash, a control character or bytes that are not UTF-8)",
					       gs_csv_quote(model, vbuf, sizeof(vbuf)));
		if (gs_models_find(&c->models, model) < 0) {
			known_models(&c->models, list, sizeof(list));
			return gs_where_errorf(w, f->model, "'%s' is not a known GPU model (known: "
					       "%s; a JSON cluster file can add models with "
					       "their memory in gpu_models)", model, list);
		}
	}
	rc = gs_cluster_add_node(c, name, (int32_t)cpu_milli, mem_mib, (int32_t)num_gpu, model);
	if (rc == GS_ENOMEM)
		return rc;
	if (rc == GS_ERANGE && mem_mib <= GS_MIB_MAX)
		return gs_where_errorf(w, f->memory_mib, "'%" PRId64 "' makes the cluster's memory "
				       "add up to more than %" PRId64 " MiB", mem_mib, INT64_MAX);
	if (rc < 0)
		return gs_where_errorf(w, NULL, "the allocator refused node '%s': %s",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), gs_strerror(rc));
	/* Keyed by the cluster's copy: the caller's string may be a temporary. */
	rc = gs_nameset_add(names, c->node_names[rc], here, NULL);
	return rc < 0 ? rc : 0;
}

/* --- pods --------------------------------------------------------------- */

int gs_trace_spec_add(const struct gs_where *w, const char *spec, struct gs_models *models,
		      const char *name, size_t len, uint32_t node_mask, uint32_t *mask,
		      bool *unknown)
{
	char vbuf[80], mname[GS_MODEL_NAME_MAX];
	int idx;

	gs_csv_quote(spec, vbuf, sizeof(vbuf));
	if (len == 0)
		return gs_where_errorf(w, "gpu_spec", "'%s' has an empty model name", vbuf);
	if (len >= GS_MODEL_NAME_MAX)
		return gs_where_errorf(w, "gpu_spec", "'%s' has a model name longer than %d "
				       "bytes", vbuf, GS_MODEL_NAME_MAX - 1);
	if (!gs_model_name_ok(name, len))
		return gs_where_errorf(w, "gpu_spec", "'%s' has a model name with a character not "
				       "allowed in model names (a space, '|', a comma, a quote, "
				       "a backslash, a control character or bytes that are not UTF-8)", vbuf);
	memcpy(mname, name, len);
	mname[len] = '\0';
	idx = gs_models_find(models, mname);
	if (idx < 0) {
		idx = gs_models_set(models, mname, 0);
		if (idx == GS_ERANGE)
			return gs_where_errorf(w, "gpu_spec", "'%s' names more GPU models than "
					       "gpusim can track (at most %d in a cluster and its "
					       "traces)", vbuf, GS_MAX_MODELS);
		if (idx < 0)
			return gs_where_errorf(w, "gpu_spec", "'%s': %s", vbuf, gs_strerror(idx));
	}
	*mask |= 1u << idx;
	if (!(node_mask & (1u << idx)))
		*unknown = true;
	return 0;
}

int gs_trace_spec_parse(const struct gs_where *w, const char *spec, struct gs_models *models,
			uint32_t node_mask, uint32_t *mask, bool *unknown)
{
	const char *p = spec;

	if (!*spec)
		return 0;
	for (;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		int rc = gs_trace_spec_add(w, spec, models, p, len, node_mask, mask, unknown);

		if (rc)
			return rc;
		if (!bar)
			return 0;
		p = bar + 1;
	}
}

int gs_trace_check_pod(const struct gs_where *w, const struct gs_pod *p, const char *spec)
{
	char vbuf[80];

	if (p->num_gpu > 1 && p->gpu_milli < GS_MILLI_PER_GPU)
		return gs_where_errorf(w, "gpu_milli", "'%d' is not allowed with num_gpu %d (only "
				       "1-GPU pods may ask for less than 1000)", p->gpu_milli,
				       p->num_gpu);
	if (p->num_gpu > 0 && p->gpu_milli == 0)
		return gs_where_errorf(w, "gpu_milli", "'0' is not allowed with num_gpu %d (a GPU "
				       "pod asks for 1 to 1000 per GPU)", p->num_gpu);
	if (p->num_gpu == 0 && p->gpu_milli > 0)
		return gs_where_errorf(w, "gpu_milli", "'%d' is not allowed with num_gpu 0 (a pod "
				       "without GPUs has gpu_milli 0)", p->gpu_milli);
	if (p->num_gpu == 0 && p->gpu_mem_mib > 0)
		return gs_where_errorf(w, "gpu_mem_mib", "'%" PRId64 "' is not allowed with "
				       "num_gpu 0 (a pod without GPUs asks for no GPU memory)",
				       p->gpu_mem_mib);
	if (p->num_gpu == 0 && spec && *spec)
		return gs_where_errorf(w, "gpu_spec", "'%s' is not allowed with num_gpu 0 (only "
				       "GPU pods name GPU models)",
				       gs_csv_quote(spec, vbuf, sizeof(vbuf)));
	if (p->t_create_s < 0 && p->t_delete_s >= 0)
		return gs_where_errorf(w, "deletion_time", "'%" PRId64 "' is not allowed without a "
				       "creation_time", p->t_delete_s);
	/* The allocator's own rule is the last word; the checks above explain it. */
	if (!gs_pod_valid(p))
		return gs_where_errorf(w, NULL, "the allocator refuses this request");
	return 0;
}

/* --- sharing modes and workload classes ------------------------------------ */

int gs_trace_node_sharing(const struct gs_where *w, const char *field, struct gs_cluster *c,
			  int32_t node, const char *text)
{
	char buf[GS_MAX_GPUS * GS_SHARE_SPEC_MAX], msg[256], vbuf[80];
	struct gs_share_cfg cfg;
	int32_t ngpu = c->nodes[node].num_gpu;
	int parts = 1, gpu, rc;
	char *tok, *save = NULL;
	size_t len = strlen(text);
	const char *p;

	if (len == 0)
		return 0; /* unset: the run's --sharing default applies */
	if (len >= sizeof(buf))
		return gs_where_errorf(w, field, "'%s' is too long",
				       gs_csv_quote(text, vbuf, sizeof(vbuf)));
	for (p = text; *p; p++)
		parts += *p == '|';
	if (parts > 1 && parts != ngpu)
		return gs_where_errorf(w, field, "'%s' has %d modes for %d GPUs (give one mode for "
				       "every GPU, or one for the whole node)",
				       gs_csv_quote(text, vbuf, sizeof(vbuf)), parts, ngpu);
	memcpy(buf, text, len + 1);
	gpu = parts > 1 ? 0 : -1;
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save), gpu++) {
		if ((rc = gs_share_parse(tok, &cfg, msg, sizeof(msg))))
			return gs_where_errorf(w, field, "%s", msg);
		if (ngpu == 0)
			return gs_where_errorf(w, field, "'%s' is not allowed on a node without GPUs",
					       gs_csv_quote(text, vbuf, sizeof(vbuf)));
		rc = gs_cluster_set_share(c, node, gpu, &cfg, msg, sizeof(msg));
		if (rc == GS_ENOMEM)
			return rc;
		if (rc)
			return gs_where_errorf(w, field, "%s", msg);
	}
	return 0;
}

int gs_trace_pod_class(const struct gs_where *w, const char *field, struct gs_trace *t,
		       struct gs_pod *p, const char *name)
{
	char vbuf[80];
	int k;

	if (!name || !*name)
		return 0;
	k = gs_trace_class(t, name);
	if (k == GS_ERANGE)
		return gs_where_errorf(w, field, "'%s' is one workload class too many (at most %d)",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), GS_MAX_CLASSES);
	if (k < 0)
		return gs_where_errorf(w, field, "'%s' is not a workload class name (1 to %d of "
				       "a-z, 0-9, '_', '.', '-')",
				       gs_csv_quote(name, vbuf, sizeof(vbuf)), GS_CLASS_NAME_MAX - 1);
	p->wclass = (int16_t)k;
	return 0;
}

int gs_trace_pod_gpu_milli(const struct gs_where *w, const char *field, struct gs_pod *p,
			   int64_t milli)
{
	if (milli > 0 && gs_pod_cpu_only(p))
		return gs_where_errorf(w, field, "'%" PRId64 "' is not allowed on a pod without GPUs",
				       milli);
	if (strcmp(field, "gpu_busy_milli") == 0)
		p->busy_milli = (int16_t)milli;
	else if (strcmp(field, "gpu_compute_milli") == 0)
		p->compute_milli = (int16_t)milli;
	else
		p->need_milli = (int32_t)milli;
	return 0;
}

int gs_trace_pod_gpu_use(const struct gs_where *w, struct gs_pod *p, const int64_t milli[3])
{
	int rc;

	if ((rc = gs_trace_pod_gpu_milli(w, "gpu_need_milli", p, milli[0])) ||
	    (rc = gs_trace_pod_gpu_milli(w, "gpu_busy_milli", p, milli[1])))
		return rc;
	return gs_trace_pod_gpu_milli(w, "gpu_compute_milli", p, milli[2]);
}
