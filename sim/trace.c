/*
 * trace.c - struct gs_trace, loading clusters and traces in any supported
 * format (chosen from the extension and the header line), the audit of
 * suspicious records, and the native CSV/JSON writers. The readers live in
 * trace_csv.c and trace_json.c, the shared record rules in trace_rules.c.
 *
 * Loading is all or nothing: a reader fills a scratch cluster or trace that
 * replaces the caller's only when the whole file was read without error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "trace_internal.h"

void gs_trace_init(struct gs_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->format = "none";
}

void gs_trace_release(struct gs_trace *t)
{
	size_t i;

	for (i = 0; i < t->n_pods; i++)
		free(t->pod_names[i]);
	free(t->pod_names);
	free(t->pods);
	free(t->path);
	gs_trace_init(t);
}

int gs_trace_append(struct gs_trace *t, const char *name, const struct gs_pod *p)
{
	char *copy;

	if (t->n_pods == t->cap_pods) {
		size_t cap = t->cap_pods ? 2 * t->cap_pods : 1024;
		struct gs_pod *pods = realloc(t->pods, cap * sizeof(*pods));
		char **names;

		if (!pods)
			return GS_ENOMEM;
		t->pods = pods;
		names = realloc(t->pod_names, cap * sizeof(*names));
		if (!names)
			return GS_ENOMEM;
		t->pod_names = names;
		t->cap_pods = cap;
	}
	copy = strdup(name);
	if (!copy)
		return GS_ENOMEM;
	t->pods[t->n_pods] = *p;
	t->pod_names[t->n_pods] = copy;
	t->n_pods++;
	return 0;
}

/* --- format detection ---------------------------------------------------- */

static bool json_by_name(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

/* A file named .json, or any file whose first character is '{' or '['. */
static bool is_json(const struct gs_csv *r)
{
	size_t i;

	if (json_by_name(r->name))
		return true;
	for (i = r->pos; i < r->len && strchr(" \t\r\n", r->buf[i]); i++)
		;
	return i < r->len && (r->buf[i] == '{' || r->buf[i] == '[');
}

/* The current record joined with commas again, for messages. */
static const char *header_text(const struct gs_csv *r, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->n_fields && i < GS_CSV_MAX_FIELDS && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? "," : "", r->field[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

static bool is_node_header(const struct gs_csv *r)
{
	return gs_csv_row_is(r, gs_openb_node_cols, 5) || gs_csv_row_is(r, gs_native_node_cols, 5);
}

static bool is_pod_header(const struct gs_csv *r)
{
	return gs_csv_row_is(r, gs_openb_pod_cols, 11) ||
	       gs_csv_row_is(r, gs_openb_multigpu_cols, 5) ||
	       gs_csv_row_is(r, gs_native_pod_cols, 9);
}

static int first_row(struct gs_csv *r)
{
	int rc = gs_csv_next(r);

	if (rc == 0)
		return gs_csv_file_errorf(r, "empty file");
	return rc < 0 ? rc : 0;
}

static int csv_cluster(struct gs_csv *r, struct gs_cluster *c)
{
	char hbuf[160];
	int rc = first_row(r);

	if (rc)
		return rc;
	if (gs_csv_row_is(r, gs_openb_node_cols, 5))
		return gs_openb_nodes_read(r, c);
	if (gs_csv_row_is(r, gs_native_node_cols, 5))
		return gs_native_nodes_read(r, c);
	if (is_pod_header(r))
		return gs_csv_errorf(r, -1, "this is a pod trace, not a cluster file");
	return gs_csv_errorf(r, -1, "unrecognised header '%s'; a cluster file starts with "
			     "'sn,cpu_milli,memory_mib,gpu,model' (openb) or "
			     "'name,cpu_milli,memory_mib,num_gpu,gpu_model' (gpusim), see "
			     "traces/README.md", header_text(r, hbuf, sizeof(hbuf)));
}

static int csv_pods(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t)
{
	char hbuf[160];
	int rc = first_row(r);

	if (rc)
		return rc;
	if (gs_csv_row_is(r, gs_openb_pod_cols, 11)) {
		t->format = "openb";
		return gs_openb_pods_read(r, false, c, t);
	}
	if (gs_csv_row_is(r, gs_openb_multigpu_cols, 5)) {
		t->format = "openb-multigpu";
		return gs_openb_pods_read(r, true, c, t);
	}
	if (gs_csv_row_is(r, gs_native_pod_cols, 9)) {
		t->format = "csv";
		return gs_native_pods_read(r, c, t);
	}
	if (is_node_header(r))
		return gs_csv_errorf(r, -1, "this is a cluster file, not a pod trace");
	return gs_csv_errorf(r, -1, "unrecognised header '%s'; a pod trace starts with openb's "
			     "'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...' (11 or 5 "
			     "columns) or gpusim's 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
			     "gpu_mem_mib,gpu_spec,creation_time,deletion_time', see "
			     "traces/README.md", header_text(r, hbuf, sizeof(hbuf)));
}

int gs_cluster_load(const char *path, struct gs_cluster *c, char sha256_out[GS_SHA256_HEX],
		    char *err, size_t err_len)
{
	struct gs_cluster tmp;
	struct gs_csv r;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (c->n_nodes) {
		snprintf(err, err_len, "%s: the cluster to load into already has nodes", path);
		return GS_EINVAL;
	}
	rc = gs_csv_open(&r, path, err, err_len);
	if (rc)
		return rc;
	gs_cluster_init(&tmp);
	tmp.models = c->models;
	tmp.check = c->check;
	if (is_json(&r))
		rc = gs_json_cluster_read(&r, &tmp);
	else
		rc = csv_cluster(&r, &tmp);
	if (!rc && tmp.n_nodes == 0)
		rc = gs_csv_file_errorf(&r, "no nodes (only a header)");
	if (rc) {
		gs_cluster_release(&tmp);
	} else {
		if (sha256_out)
			memcpy(sha256_out, r.sha256, GS_SHA256_HEX);
		gs_cluster_release(c);
		*c = tmp;
	}
	gs_csv_close(&r);
	return rc;
}

int gs_trace_load(const char *path, struct gs_cluster *c, struct gs_trace *t, char *err,
		  size_t err_len)
{
	struct gs_models saved = c->models;
	struct gs_trace tmp;
	struct gs_csv r;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (t->n_pods) {
		snprintf(err, err_len, "%s: the trace to load into already has pods", path);
		return GS_EINVAL;
	}
	rc = gs_csv_open(&r, path, err, err_len);
	if (rc)
		return rc;
	gs_trace_init(&tmp);
	if (is_json(&r)) {
		tmp.format = "json";
		rc = gs_json_pods_read(&r, c, &tmp);
	} else {
		rc = csv_pods(&r, c, &tmp);
	}
	if (!rc && tmp.n_pods == 0)
		rc = gs_csv_file_errorf(&r, "no pods (only a header)");
	if (!rc) {
		memcpy(tmp.sha256, r.sha256, GS_SHA256_HEX);
		tmp.path = strdup(path);
		rc = tmp.path ? gs_trace_audit(&tmp, c) : GS_ENOMEM;
	}
	if (rc) {
		if (rc == GS_ENOMEM && err && err_len)
			snprintf(err, err_len, "%s: out of memory", path);
		c->models = saved;
		gs_trace_release(&tmp);
	} else {
		gs_trace_release(t);
		*t = tmp;
	}
	gs_csv_close(&r);
	return rc;
}

/* --- the audit ------------------------------------------------------------ */

/* A node's shape: nodes of one shape accept exactly the same pods when empty. */
struct shape {
	int32_t model, num_gpu, cpu_milli;
	int64_t mem_mib;
};

static int shape_cmp(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->num_gpu != y->num_gpu)
		return x->num_gpu < y->num_gpu ? -1 : 1;
	if (x->cpu_milli != y->cpu_milli)
		return x->cpu_milli < y->cpu_milli ? -1 : 1;
	if (x->mem_mib != y->mem_mib)
		return x->mem_mib < y->mem_mib ? -1 : 1;
	return 0;
}

/* Same model and no more of anything: whatever fits on a fits on b. */
static bool dominated(const struct shape *a, const struct shape *b)
{
	return a->model == b->model && a->num_gpu <= b->num_gpu && a->cpu_milli <= b->cpu_milli &&
	       a->mem_mib <= b->mem_mib;
}

/*
 * "Fits on no node of the empty cluster" is answered on a small cluster
 * with one empty node per undominated shape, built with the allocator's
 * own gs_cluster_add_node() so the answer comes from gs_cluster_fits() and
 * cannot drift from the filter. openb's 1523 nodes reduce to about 20.
 */
int gs_trace_audit(struct gs_trace *t, const struct gs_cluster *c)
{
	struct gs_cluster rep;
	struct shape *s;
	size_t i, k = 0;
	int32_t j, n;
	int rc = 0;

	t->audit.deleted_before_created = 0;
	t->audit.no_deletion_time = 0;
	t->audit.larger_than_any_node = 0;
	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];

		if (p->t_delete_s < 0)
			t->audit.no_deletion_time++;
		else if (p->t_create_s >= 0 && p->t_delete_s < p->t_create_s)
			t->audit.deleted_before_created++;
	}

	s = malloc(((size_t)c->n_nodes + 1) * sizeof(*s));
	if (!s)
		return GS_ENOMEM;
	for (j = 0; j < c->n_nodes; j++) {
		const struct gs_node *nd = &c->nodes[j];

		s[j].model = nd->num_gpu > 0 ? nd->model : -1;
		s[j].num_gpu = nd->num_gpu;
		s[j].cpu_milli = nd->cpu_milli;
		s[j].mem_mib = nd->mem_mib;
	}
	qsort(s, (size_t)c->n_nodes, sizeof(*s), shape_cmp);
	for (j = 0; j < c->n_nodes; j++)
		if (k == 0 || shape_cmp(&s[k - 1], &s[j]) != 0)
			s[k++] = s[j];
	/* Pruning is quadratic; clusters with thousands of shapes skip it. */
	if (k <= 4096) {
		size_t m = 0;

		for (i = 0; i < k; i++) {
			size_t o;

			for (o = 0; o < k; o++)
				if (o != i && dominated(&s[i], &s[o]) && shape_cmp(&s[i], &s[o]))
					break;
			if (o == k)
				s[m++] = s[i];
		}
		k = m;
	}

	gs_cluster_init(&rep);
	rep.models = c->models;
	for (i = 0; i < k; i++) {
		const char *model = s[i].model >= 0 ? c->models.m[s[i].model].name : "";

		rc = gs_cluster_add_node(&rep, "shape", s[i].cpu_milli, s[i].mem_mib, s[i].num_gpu,
					 model);
		if (rc < 0)
			goto out;
	}
	rc = 0;
	n = rep.n_nodes;
	for (i = 0; i < t->n_pods; i++) {
		for (j = 0; j < n; j++)
			if (gs_cluster_fits(&rep, j, &t->pods[i]) == GS_FIT_OK)
				break;
		if (j == n)
			t->audit.larger_than_any_node++;
	}
out:
	gs_cluster_release(&rep);
	free(s);
	return rc;
}

/* --- writers -------------------------------------------------------------- */

/*
 * Output goes to a temporary file next to the target, renamed over it only
 * when everything was written: a failed write never leaves half a file.
 */
struct out {
	FILE *f;
	char *tmp;
	const char *path;
};

static int out_open(struct out *o, const char *path, char *err, size_t err_len)
{
	int fd;

	o->path = path;
	o->f = NULL;
	o->tmp = malloc(strlen(path) + 8);
	if (!o->tmp)
		return GS_ENOMEM;
	sprintf(o->tmp, "%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		free(o->tmp);
		return GS_EIO;
	}
	/* mkstemp() makes the file private; outputs are ordinary files. */
	(void)fchmod(fd, 0644);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		return GS_EIO;
	}
	return 0;
}

/* Commits (ok) or discards the file. Returns 0 or GS_EIO. */
static int out_close(struct out *o, bool ok, char *err, size_t err_len)
{
	int rc = 0;

	if (ok && (fflush(o->f) != 0 || ferror(o->f))) {
		snprintf(err, err_len, "%s: cannot write: %s", o->path, strerror(errno));
		ok = false;
		rc = GS_EIO;
	}
	if (fclose(o->f) != 0 && ok) {
		snprintf(err, err_len, "%s: cannot write: %s", o->path, strerror(errno));
		ok = false;
		rc = GS_EIO;
	}
	if (ok && rename(o->tmp, o->path) != 0) {
		snprintf(err, err_len, "%s: cannot write: %s", o->path, strerror(errno));
		ok = false;
		rc = GS_EIO;
	}
	if (!ok)
		unlink(o->tmp);
	free(o->tmp);
	return rc;
}

/* Names that the native formats can carry without quoting or escaping. */
static bool name_writable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || strchr(",\"\\", *s))
			return false;
	return true;
}

static void time_field(char *buf, size_t len, int64_t t_s)
{
	if (t_s < 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%" PRId64, t_s);
}

int gs_trace_write_csv(const char *path, const struct gs_trace *t, const struct gs_cluster *c,
		       char *err, size_t err_len)
{
	struct out o;
	size_t i;
	int rc;

	for (i = 0; i < t->n_pods; i++) {
		if (!name_writable(t->pod_names[i]) || !t->pod_names[i][0]) {
			snprintf(err, err_len, "%s: pod %zu: name '%s' cannot be written to CSV", path,
				 i, t->pod_names[i]);
			return GS_EINVAL;
		}
		if (t->pods[i].model_mask >> c->models.n) {
			snprintf(err, err_len, "%s: pod '%s' names a GPU model the cluster's table "
				 "does not have", path, t->pod_names[i]);
			return GS_EINVAL;
		}
	}
	rc = out_open(&o, path, err, err_len);
	if (rc)
		return rc;
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time,"
	      "deletion_time\n", o.f);
	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];
		char create[24], del[24];
		int m, first = 1;

		time_field(create, sizeof(create), p->t_create_s);
		time_field(del, sizeof(del), p->t_delete_s);
		fprintf(o.f, "%s,%" PRId32 ",%" PRId64 ",%" PRId32 ",%" PRId32 ",%" PRId64 ",",
			t->pod_names[i], p->cpu_milli, p->mem_mib, p->num_gpu, p->gpu_milli,
			p->gpu_mem_mib);
		for (m = 0; m < c->models.n; m++) {
			if (p->model_mask & (1u << m)) {
				fprintf(o.f, "%s%s", first ? "" : "|", c->models.m[m].name);
				first = 0;
			}
		}
		fprintf(o.f, ",%s,%s\n", create, del);
	}
	return out_close(&o, true, err, err_len);
}

static int check_nodes_writable(const char *path, const struct gs_cluster *c, char *err,
				size_t err_len)
{
	int32_t i;

	for (i = 0; i < c->n_nodes; i++) {
		if (!name_writable(c->node_names[i]) || !c->node_names[i][0]) {
			snprintf(err, err_len, "%s: node %" PRId32 ": name '%s' cannot be written",
				 path, i, c->node_names[i]);
			return GS_EINVAL;
		}
	}
	return 0;
}

int gs_cluster_write_csv(const char *path, const struct gs_cluster *c, char *err, size_t err_len)
{
	uint32_t used = gs_cluster_model_mask(c);
	struct gs_models builtin;
	struct out o;
	int32_t i;
	int m, rc;

	if ((rc = check_nodes_writable(path, c, err, err_len)))
		return rc;
	/* CSV has no column for memory per GPU: only built-in figures survive. */
	gs_models_builtin(&builtin);
	for (m = 0; m < c->models.n; m++) {
		int b;

		if (!(used & (1u << m)))
			continue;
		b = gs_models_find(&builtin, c->models.m[m].name);
		if (b < 0 || builtin.m[b].mem_mib != c->models.m[m].mem_mib) {
			snprintf(err, err_len, "%s: GPU model '%s' with %" PRId64 " MiB per GPU is "
				 "not built in, and a CSV cluster cannot record memory per GPU: "
				 "write a JSON cluster instead", path, c->models.m[m].name,
				 c->models.m[m].mem_mib);
			return GS_EINVAL;
		}
	}
	rc = out_open(&o, path, err, err_len);
	if (rc)
		return rc;
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_model\n", o.f);
	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];

		fprintf(o.f, "%s,%" PRId32 ",%" PRId64 ",%" PRId32 ",%s\n", c->node_names[i],
			n->cpu_milli, n->mem_mib, n->num_gpu,
			n->num_gpu > 0 ? c->models.m[n->model].name : "");
	}
	return out_close(&o, true, err, err_len);
}

int gs_cluster_write_json(const char *path, const struct gs_cluster *c, char *err,
			  size_t err_len)
{
	uint32_t used = gs_cluster_model_mask(c);
	struct out o;
	int32_t i;
	int m, rc, first = 1;

	if ((rc = check_nodes_writable(path, c, err, err_len)))
		return rc;
	rc = out_open(&o, path, err, err_len);
	if (rc)
		return rc;
	/* Every model the nodes use, so the file does not depend on the built-ins. */
	fputs("{\n  \"gpu_models\": [", o.f);
	for (m = 0; m < c->models.n; m++) {
		if (!(used & (1u << m)))
			continue;
		fprintf(o.f, "%s\n    {\"name\": \"%s\", \"mem_mib\": %" PRId64 "}",
			first ? "" : ",", c->models.m[m].name, c->models.m[m].mem_mib);
		first = 0;
	}
	fputs(first ? "],\n  \"nodes\": [" : "\n  ],\n  \"nodes\": [", o.f);
	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];

		fprintf(o.f, "%s\n    {\"name\": \"%s\", \"cpu_milli\": %" PRId32 ", \"memory_mib\": "
			"%" PRId64 ", \"num_gpu\": %" PRId32, i ? "," : "", c->node_names[i],
			n->cpu_milli, n->mem_mib, n->num_gpu);
		if (n->num_gpu > 0)
			fprintf(o.f, ", \"gpu_model\": \"%s\"", c->models.m[n->model].name);
		fputs("}", o.f);
	}
	fputs("\n  ]\n}\n", o.f);
	return out_close(&o, true, err, err_len);
}
