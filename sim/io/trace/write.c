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
#include "io/trace/internal.h"
#include "io/trace/write.h"

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
	bool extra = false;

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
	for (i = 0; i < t->n_pods && !extra; i++)
		extra = t->pods[i].wclass || t->pods[i].need_milli;
	rc = out_open(&o, path, err, err_len);
	if (rc)
		return rc;
	fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time,"
	      "deletion_time", o.f);
	fputs(extra ? ",class,gpu_need_milli\n" : "\n", o.f);
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
		fprintf(o.f, ",%s,%s", create, del);
		if (extra && p->need_milli)
			fprintf(o.f, ",%s,%" PRId32 "\n", gs_trace_class_name(t, p->wclass),
				p->need_milli);
		else if (extra)
			fprintf(o.f, ",%s,\n", gs_trace_class_name(t, p->wclass));
		else
			fputc('\n', o.f);
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
	/* The sharing column only when some node has a mode. */
	fputs(c->share ? "name,cpu_milli,memory_mib,num_gpu,gpu_model,sharing\n"
		       : "name,cpu_milli,memory_mib,num_gpu,gpu_model\n", o.f);
	for (i = 0; i < c->n_nodes; i++) {
		const struct gs_node *n = &c->nodes[i];
		char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

		fprintf(o.f, "%s,%" PRId32 ",%" PRId64 ",%" PRId32 ",%s", c->node_names[i],
			n->cpu_milli, n->mem_mib, n->num_gpu,
			n->num_gpu > 0 ? c->models.m[n->model].name : "");
		if (c->share)
			fprintf(o.f, ",%s", gs_cluster_node_share_text(c, i, share, sizeof(share)));
		fputc('\n', o.f);
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
		char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

		if (n->num_gpu > 0)
			fprintf(o.f, ", \"gpu_model\": \"%s\"", c->models.m[n->model].name);
		if (*gs_cluster_node_share_text(c, i, share, sizeof(share)))
			fprintf(o.f, ", \"sharing\": \"%s\"", share);
		fputs("}", o.f);
	}
	fputs("\n  ]\n}\n", o.f);
	return out_close(&o, true, err, err_len);
}
