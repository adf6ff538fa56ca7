/* SPDX-License-Identifier: Apache-2.0 */
/*
 * load.c - loading clusters and traces in any supported format: the format
 * is chosen from the extension and the header line, then the reader of
 * that format (read_csv.c, read_json.c) fills the container (trace.c).
 *
 * Loading is all or nothing: a reader fills a scratch cluster or trace that
 * replaces the caller's only when the whole file was read without error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/path.h"
#include "io/trace/internal.h"
#include "io/trace/load.h"

/* --- format detection ---------------------------------------------------- */

/* A file named .json, or any file whose first character is '{' or '['. */
static bool is_json(const struct gs_csv *r)
{
	size_t i;

	if (gs_path_is_json(r->name))
		return true;
	for (i = r->pos; i < r->len && strchr(" \t\r\n", r->buf[i]); i++)
		;
	return i < r->len && (r->buf[i] == '{' || r->buf[i] == '[');
}

static bool is_node_header(const struct gs_csv *r)
{
	return gs_csv_row_is(r, gs_openb_node_cols, 5) || gs_csv_row_is(r, gs_native_node_cols, 5) ||
	       gs_csv_row_is(r, gs_native_node_cols, 6);
}

static bool is_pod_header(const struct gs_csv *r)
{
	return gs_csv_row_is(r, gs_openb_pod_cols, 11) ||
	       gs_csv_row_is(r, gs_openb_multigpu_cols, 5) ||
	       gs_csv_row_is(r, gs_native_pod_cols, 9) || gs_csv_row_is(r, gs_native_pod_cols, 11) ||
	       gs_csv_row_is(r, gs_native_pod_cols, 13) || gs_csv_row_is(r, gs_native_pod_cols, 14);
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
	if (gs_csv_row_is(r, gs_native_node_cols, 5) || gs_csv_row_is(r, gs_native_node_cols, 6))
		return gs_native_nodes_read(r, c);
	if (is_pod_header(r))
		return gs_csv_errorf(r, -1, "this is a pod trace, not a cluster file");
	return gs_csv_errorf(r, -1, "unrecognised header '%s'; a cluster file starts with "
			     "'sn,cpu_milli,memory_mib,gpu,model' (openb) or "
			     "'name,cpu_milli,memory_mib,num_gpu,gpu_model[,sharing]' (gpusim), see "
			     "traces/README.md", gs_csv_row_text(r, hbuf, sizeof(hbuf)));
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
	if (gs_csv_row_is(r, gs_native_pod_cols, 9) || gs_csv_row_is(r, gs_native_pod_cols, 11) ||
	    gs_csv_row_is(r, gs_native_pod_cols, 13) || gs_csv_row_is(r, gs_native_pod_cols, 14)) {
		t->format = "csv";
		return gs_native_pods_read(r, c, t);
	}
	if (is_node_header(r))
		return gs_csv_errorf(r, -1, "this is a cluster file, not a pod trace");
	return gs_csv_errorf(r, -1, "unrecognised header '%s'; a pod trace starts with openb's "
			     "'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...' (11 or 5 "
			     "columns) or gpusim's 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
			     "gpu_mem_mib,gpu_spec,creation_time,deletion_time[,class,gpu_need_milli"
			     "[,gpu_busy_milli,gpu_compute_milli[,pod_group]]]', see traces/README.md",
			     gs_csv_row_text(r, hbuf, sizeof(hbuf)));
}

/* Reads the opened file r into c (see gs_load_cluster); closes r. */
static int cluster_read(struct gs_csv *r, struct gs_cluster *c, char sha256_out[GS_SHA256_HEX])
{
	struct gs_cluster tmp;
	int rc;

	gs_cluster_init(&tmp);
	tmp.models = c->models;
	tmp.check = c->check;
	if (is_json(r))
		rc = gs_trace_json_cluster_read(r, &tmp);
	else
		rc = csv_cluster(r, &tmp);
	if (!rc && tmp.n_nodes == 0)
		rc = gs_csv_file_errorf(r, "no nodes (only a header)");
	if (rc) {
		if (rc == GS_ENOMEM)
			gs_csv_file_errorf(r, "out of memory");
		gs_cluster_release(&tmp);
	} else {
		if (sha256_out)
			memcpy(sha256_out, r->sha256, GS_SHA256_HEX);
		gs_cluster_release(c);
		*c = tmp;
	}
	gs_csv_close(r);
	return rc;
}

/*
 * Opens a load's input: the file at name, or (mem) the len bytes of data
 * called name. Refused, nothing opened, when the destination is not empty
 * (full: "name: why").
 */
static int open_input(struct gs_csv *r, const char *name, bool mem, const char *data, size_t len,
		      bool full, const char *why, char *err, size_t err_len)
{
	if (err && err_len)
		err[0] = '\0';
	if (full) {
		snprintf(err, err_len, "%s: %s", name, why);
		return GS_EINVAL;
	}
	return mem ? gs_csv_open_mem(r, name, data, len, err, err_len)
		   : gs_csv_open(r, name, err, err_len);
}

static const char cluster_full[] = "the cluster to load into already has nodes";
static const char trace_full[] = "the trace to load into already has pods";

int gs_load_cluster(const char *path, struct gs_cluster *c, char sha256_out[GS_SHA256_HEX],
		    char *err, size_t err_len)
{
	struct gs_csv r;
	int rc = open_input(&r, path, false, NULL, 0, c->n_nodes, cluster_full, err, err_len);

	return rc ? rc : cluster_read(&r, c, sha256_out);
}

int gs_load_cluster_mem(const char *name, const char *data, size_t len, struct gs_cluster *c,
			char sha256_out[GS_SHA256_HEX], char *err, size_t err_len)
{
	struct gs_csv r;
	int rc = open_input(&r, name, true, data, len, c->n_nodes, cluster_full, err, err_len);

	return rc ? rc : cluster_read(&r, c, sha256_out);
}

/* Reads the opened file r into t against c (see gs_load_trace); closes r. */
static int trace_read(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t)
{
	struct gs_models saved = c->models;
	struct gs_trace tmp;
	int rc;

	gs_trace_init(&tmp);
	if (is_json(r)) {
		tmp.format = "json";
		rc = gs_trace_json_pods_read(r, c, &tmp);
	} else {
		rc = csv_pods(r, c, &tmp);
	}
	if (!rc && tmp.n_pods == 0)
		rc = gs_csv_file_errorf(r, "no pods (only a header)");
	if (!rc) {
		memcpy(tmp.sha256, r->sha256, GS_SHA256_HEX);
		tmp.path = strdup(r->name);
		rc = tmp.path ? gs_trace_audit(&tmp, c) : GS_ENOMEM;
	}
	if (rc) {
		if (rc == GS_ENOMEM)
			gs_csv_file_errorf(r, "out of memory");
		c->models = saved;
		gs_trace_release(&tmp);
	} else {
		gs_trace_release(t);
		*t = tmp;
	}
	gs_csv_close(r);
	return rc;
}

int gs_load_trace(const char *path, struct gs_cluster *c, struct gs_trace *t, char *err,
		  size_t err_len)
{
	struct gs_csv r;
	int rc = open_input(&r, path, false, NULL, 0, t->n_pods, trace_full, err, err_len);

	return rc ? rc : trace_read(&r, c, t);
}

int gs_load_trace_mem(const char *name, const char *data, size_t len, struct gs_cluster *c,
		      struct gs_trace *t, char *err, size_t err_len)
{
	struct gs_csv r;
	int rc = open_input(&r, name, true, data, len, t->n_pods, trace_full, err, err_len);

	return rc ? rc : trace_read(&r, c, t);
}
