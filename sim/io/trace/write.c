/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.c - the native CSV and JSON writers for traces and clusters (used
 * by `gpusim gen`), each writing to a temporary file renamed into place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/path.h"
#include "io/trace/internal.h"
#include "io/trace/write.h"

/*
 * Output goes to a temporary file next to the target, renamed over it only
 * when everything was written: a failed write never leaves half a file.
 */
static int stage_open(struct gs_staged *st, FILE **f_out, const char *path, char *err,
		      size_t err_len)
{
	int fd;

	st->tmp = malloc(strlen(path) + 8);
	st->path = strdup(path);
	if (!st->tmp || !st->path) {
		gs_staged_discard(st);
		snprintf(err, err_len, "%s: cannot write: out of memory", path);
		return GS_ENOMEM;
	}
	sprintf(st->tmp, "%s.XXXXXX", path);
	fd = mkstemp(st->tmp);
	if (fd < 0) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		free(st->tmp);
		st->tmp = NULL;
		gs_staged_discard(st);
		return GS_EIO;
	}
	/* mkstemp() makes the file private; outputs are ordinary files. */
	(void)fchmod(fd, 0644);
	*f_out = fdopen(fd, "w");
	if (!*f_out) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		gs_staged_discard(st);
		return GS_EIO;
	}
	return 0;
}

/* Closes the temporary file; on failure (or !ok) removes it. Returns 0 or rc/GS_EIO. */
static int stage_close(struct gs_staged *st, FILE *f, int rc, char *err, size_t err_len)
{
	if (rc == 0 && (fflush(f) != 0 || ferror(f))) {
		snprintf(err, err_len, "%s: cannot write: %s", st->path, strerror(errno ? errno : EIO));
		rc = GS_EIO;
	}
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, err_len, "%s: cannot write: %s", st->path, strerror(errno ? errno : EIO));
		rc = GS_EIO;
	}
	if (rc)
		gs_staged_discard(st);
	return rc;
}

int gs_staged_commit(struct gs_staged *st, char *err, size_t err_len)
{
	int rc = 0;

	if (!st->tmp)
		return 0;
	if (rename(st->tmp, st->path) != 0) {
		snprintf(err, err_len, "%s: cannot write: %s", st->path, strerror(errno));
		rc = GS_EIO;
	} else {
		free(st->tmp);
		st->tmp = NULL;
	}
	gs_staged_discard(st);
	return rc;
}

void gs_staged_discard(struct gs_staged *st)
{
	if (st->tmp) {
		unlink(st->tmp);
		free(st->tmp);
	}
	free(st->path);
	st->tmp = NULL;
	st->path = NULL;
}

/* The readers' own rule for names (internal.h), so whatever is written reads back. */
static int check_name(const char *path, const char *what, size_t i, const char *name,
		      char *err, size_t err_len)
{
	struct gs_where w = { path, 0, NULL, -1, err, err_len };
	char field[64];

	snprintf(field, sizeof(field), "%s %zu", what, i);
	return gs_check_name(&w, field, name) ? GS_EINVAL : 0;
}

/* Appends s at e (the caller has the room); returns the new end. */
static char *put_str(char *e, const char *s)
{
	size_t n = strlen(s);

	memcpy(e, s, n);
	return e + n;
}

/* Appends v in decimal, as printf's %lld writes it; returns the new end. */
static char *put_int(char *e, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char tmp[24];
	int n = 0;

	if (v < 0)
		*e++ = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*e++ = tmp[--n];
	return e;
}

/* What the pod CSV format cannot carry, checked before anything is written. */
static int check_trace(const char *path, const struct gs_trace *t, const struct gs_cluster *c,
		       char *err, size_t err_len)
{
	uint32_t known = gs_models_mask(c->models.n);
	size_t i;
	int rc;

	if (t->n_pods == 0) {
		snprintf(err, err_len, "%s: a trace needs a pod", path);
		return GS_EINVAL;
	}
	for (i = 0; i < t->n_pods; i++) {
		if ((rc = check_name(path, "pod", i, t->pod_names[i], err, err_len)))
			return rc;
		if (t->pods[i].model_mask & ~known) {
			snprintf(err, err_len, "%s: pod '%s' names a GPU model the cluster's table "
				 "does not have", path, t->pod_names[i]);
			return GS_EINVAL;
		}
	}
	for (i = 0; i < (size_t)t->n_groups; i++)
		if ((rc = check_name(path, "pod group", i, t->group_names[i], err, err_len)))
			return rc;
	return 0;
}

int gs_write_trace_csv_stream(FILE *f, const char *path, const struct gs_trace *t,
			      const struct gs_cluster *c, char *err, size_t err_len)
{
	bool extra = false, busy = false, groups = t->n_groups > 0;
	size_t i;
	int rc;

	if ((rc = check_trace(path, t, c, err, err_len)))
		return rc;
	/*
	 * The class and need columns only when some pod has them, the busy and
	 * compute columns after them only when some pod has one of those, and
	 * the group column after all of them when some pod is in a group.
	 */
	for (i = 0; i < t->n_pods; i++) {
		busy = busy || groups || t->pods[i].busy_milli || t->pods[i].compute_milli;
		extra = extra || busy || t->pods[i].wclass || t->pods[i].need_milli;
	}
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time,"
	      "deletion_time", f);
	fputs(groups ? ",class,gpu_need_milli,gpu_busy_milli,gpu_compute_milli,pod_group\n"
	      : busy ? ",class,gpu_need_milli,gpu_busy_milli,gpu_compute_milli\n"
	      : extra ? ",class,gpu_need_milli\n" : "\n", f);
	/* One line at a time into a buffer: printf per field is most of a large trace's cost. */
	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];
		char line[4096], *e = line;
		int m, first = 1;

		e = put_str(e, t->pod_names[i]);
		*e++ = ',';
		e = put_int(e, p->cpu_milli);
		*e++ = ',';
		e = put_int(e, p->mem_mib);
		*e++ = ',';
		e = put_int(e, p->num_gpu);
		*e++ = ',';
		e = put_int(e, p->gpu_milli);
		*e++ = ',';
		e = put_int(e, p->gpu_mem_mib);
		*e++ = ',';
		for (m = 0; m < c->models.n; m++) {
			if (p->model_mask & (1u << m)) {
				if (!first)
					*e++ = '|';
				e = put_str(e, c->models.m[m].name);
				first = 0;
			}
		}
		*e++ = ',';
		if (p->t_create_s >= 0)
			e = put_int(e, p->t_create_s);
		*e++ = ',';
		if (p->t_delete_s >= 0)
			e = put_int(e, p->t_delete_s);
		if (extra) {
			*e++ = ',';
			e = put_str(e, gs_trace_class_name(t, p->wclass));
			*e++ = ',';
			if (p->need_milli)
				e = put_int(e, p->need_milli);
		}
		if (busy) {
			*e++ = ',';
			if (p->busy_milli)
				e = put_int(e, p->busy_milli);
			*e++ = ',';
			if (p->compute_milli)
				e = put_int(e, p->compute_milli);
		}
		if (groups) {
			*e++ = ',';
			e = put_str(e, gs_trace_group_name(t, gs_trace_pod_group(t, i)));
		}
		*e++ = '\n';
		fwrite(line, 1, (size_t)(e - line), f);
	}
	if (ferror(f)) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
		return GS_EIO;
	}
	return 0;
}

static int check_nodes(const char *path, const struct gs_cluster *c, char *err, size_t err_len)
{
	int32_t i;
	int rc;

	if (c->n_nodes == 0) {
		snprintf(err, err_len, "%s: a cluster needs a node", path);
		return GS_EINVAL;
	}
	for (i = 0; i < c->n_nodes; i++)
		if ((rc = check_name(path, "node", (size_t)i, c->node_names[i], err, err_len)))
			return rc;
	return 0;
}

/* CSV has no column for memory per GPU: only built-in figures survive. */
static int check_csv_models(const char *path, const struct gs_cluster *c, char *err,
			    size_t err_len)
{
	uint32_t used = gs_cluster_model_mask(c);
	struct gs_models builtin;
	int m;

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
	return 0;
}

int gs_write_cluster_csv_stream(FILE *f, const char *path, const struct gs_cluster *c, char *err,
				size_t err_len)
{
	int32_t i;
	int rc;

	if ((rc = check_nodes(path, c, err, err_len)) ||
	    (rc = check_csv_models(path, c, err, err_len)))
		return rc;
	/* The sharing column only when some node has a mode. */
	fputs(c->share ? "name,cpu_milli,memory_mib,num_gpu,gpu_model,sharing\n"
		       : "name,cpu_milli,memory_mib,num_gpu,gpu_model\n", f);
	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];
		char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

		fprintf(f, "%s,%" PRId32 ",%" PRId64 ",%" PRId32 ",%s", c->node_names[i],
			n->cpu_milli, n->mem_mib, n->num_gpu,
			n->num_gpu > 0 ? c->models.m[n->model].name : "");
		if (c->share)
			fprintf(f, ",%s", gs_cluster_node_share_text(c, i, share, sizeof(share)));
		fputc('\n', f);
	}
	if (ferror(f)) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
		return GS_EIO;
	}
	return 0;
}

int gs_write_cluster_json_stream(FILE *f, const char *path, const struct gs_cluster *c, char *err,
				 size_t err_len)
{
	uint32_t used = gs_cluster_model_mask(c);
	int32_t i;
	int m, rc, first = 1;

	if ((rc = check_nodes(path, c, err, err_len)))
		return rc;
	/* Every model the nodes use, so the file does not depend on the built-ins. */
	fputs("{\n  \"gpu_models\": [", f);
	for (m = 0; m < c->models.n; m++) {
		if (!(used & (1u << m)))
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"mem_mib\": %" PRId64 "}",
			first ? "" : ",", c->models.m[m].name, c->models.m[m].mem_mib);
		first = 0;
	}
	fputs(first ? "],\n  \"nodes\": [" : "\n  ],\n  \"nodes\": [", f);
	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];

		char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

		fprintf(f, "%s\n    {\"name\": \"%s\", \"cpu_milli\": %" PRId32 ", \"memory_mib\": "
			"%" PRId64 ", \"num_gpu\": %" PRId32, i ? "," : "", c->node_names[i],
			n->cpu_milli, n->mem_mib, n->num_gpu);
		if (n->num_gpu > 0)
			fprintf(f, ", \"gpu_model\": \"%s\"", c->models.m[n->model].name);
		if (*gs_cluster_node_share_text(c, i, share, sizeof(share)))
			fprintf(f, ", \"sharing\": \"%s\"", share);
		fputs("}", f);
	}
	fputs("\n  ]\n}\n", f);
	if (ferror(f)) {
		snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
		return GS_EIO;
	}
	return 0;
}

int gs_staged_write_trace_csv(struct gs_staged *st, const char *path, const struct gs_trace *t,
			      const struct gs_cluster *c, char *err, size_t err_len)
{
	FILE *f;
	int rc;

	/* Checked before the temporary file exists: GS_EINVAL leaves nothing behind. */
	if ((rc = check_trace(path, t, c, err, err_len)) ||
	    (rc = stage_open(st, &f, path, err, err_len)))
		return rc;
	return stage_close(st, f, gs_write_trace_csv_stream(f, path, t, c, err, err_len), err,
			   err_len);
}

/* The cluster's nodes staged as CSV or (json) JSON, checked before the temporary file exists. */
static int stage_cluster(struct gs_staged *st, const char *path, const struct gs_cluster *c,
			 bool json, char *err, size_t err_len)
{
	FILE *f;
	int rc;

	if ((rc = check_nodes(path, c, err, err_len)) ||
	    (!json && (rc = check_csv_models(path, c, err, err_len))) ||
	    (rc = stage_open(st, &f, path, err, err_len)))
		return rc;
	rc = json ? gs_write_cluster_json_stream(f, path, c, err, err_len)
		  : gs_write_cluster_csv_stream(f, path, c, err, err_len);
	return stage_close(st, f, rc, err, err_len);
}

int gs_staged_write_cluster_csv(struct gs_staged *st, const char *path, const struct gs_cluster *c,
				char *err, size_t err_len)
{
	return stage_cluster(st, path, c, false, err, err_len);
}

int gs_staged_write_cluster_json(struct gs_staged *st, const char *path, const struct gs_cluster *c,
				 char *err, size_t err_len)
{
	return stage_cluster(st, path, c, true, err, err_len);
}

int gs_write_trace_csv(const char *path, const struct gs_trace *t, const struct gs_cluster *c,
		       char *err, size_t err_len)
{
	struct gs_staged st = { NULL, NULL };
	int rc = gs_staged_write_trace_csv(&st, path, t, c, err, err_len);

	return rc ? rc : gs_staged_commit(&st, err, err_len);
}

int gs_write_cluster_csv(const char *path, const struct gs_cluster *c, char *err, size_t err_len)
{
	struct gs_staged st = { NULL, NULL };
	int rc = gs_staged_write_cluster_csv(&st, path, c, err, err_len);

	return rc ? rc : gs_staged_commit(&st, err, err_len);
}

int gs_write_cluster_json(const char *path, const struct gs_cluster *c, char *err,
			  size_t err_len)
{
	struct gs_staged st = { NULL, NULL };
	int rc = gs_staged_write_cluster_json(&st, path, c, err, err_len);

	return rc ? rc : gs_staged_commit(&st, err, err_len);
}

int gs_write_cluster_and_trace(const char *nodes_out, const struct gs_cluster *c,
			       const char *pods_out, const struct gs_trace *t, char *err,
			       size_t err_len)
{
	struct gs_staged nodes_st = { NULL, NULL }, pods_st = { NULL, NULL };
	int rc = 0;

	if (nodes_out)
		rc = gs_path_is_json(nodes_out)
			     ? gs_staged_write_cluster_json(&nodes_st, nodes_out, c, err, err_len)
			     : gs_staged_write_cluster_csv(&nodes_st, nodes_out, c, err, err_len);
	if (!rc && pods_out)
		rc = gs_staged_write_trace_csv(&pods_st, pods_out, t, c, err, err_len);
	if (!rc)
		rc = gs_staged_commit(&nodes_st, err, err_len);
	if (!rc)
		rc = gs_staged_commit(&pods_st, err, err_len);
	gs_staged_discard(&nodes_st);
	gs_staged_discard(&pods_st);
	return rc;
}

/* The directory of path ("." when it has none) and where its last component starts. */
static char *dir_of(const char *path, const char **base_out)
{
	const char *slash = strrchr(path, '/');

	*base_out = slash ? slash + 1 : path;
	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

bool gs_write_same_file(const char *a, const char *b)
{
	const char *base_a, *base_b;
	char *dir_a = dir_of(a, &base_a), *dir_b = dir_of(b, &base_b);
	struct stat sa, sb;
	bool same;

	/*
	 * The writers rename a temporary file over the directory entry, so
	 * two paths are the same output when they name the same entry: the
	 * same directory (by device and inode, whatever the spelling, links
	 * included) and the same last component. Without the directories
	 * (out of memory, missing) compare the strings; the write will fail
	 * with its own message anyway.
	 */
	if (dir_a && dir_b && stat(dir_a, &sa) == 0 && stat(dir_b, &sb) == 0)
		same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
		       strcmp(base_a, base_b) == 0;
	else
		same = strcmp(a, b) == 0;
	free(dir_a);
	free(dir_b);
	return same;
}
