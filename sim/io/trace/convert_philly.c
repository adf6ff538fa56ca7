/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_philly.c - Microsoft's Philly trace (Jeon et al., "Analysis of
 * Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads", ATC
 * 2019; github.com/msr-fiddle/philly-traces) to gpusim:
 * cluster_machine_list to nodes, cluster_job_log (JSON) to pods.
 *
 * A job's GPUs are the GPUs its first scheduled attempt held, machine by
 * machine: one pod per machine with that machine's GPUs, the pods of a
 * job of several machines a pod group. The trace has no CPU or memory
 * requests and its machine list no CPU or memory: neither is modelled
 * unless --node-cpu and --node-mem-gib give the nodes some.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/convert_internal.h"

static const char *const machine_cols[3] = {
	"machineId", "number of GPUs", "single GPU mem",
};

static const struct gs_node_fields machine_fields = {
	"machineId", "cpu", "memory", "number of GPUs", "single GPU mem",
};

/* The field without the blanks around it (the published list has "m31,8, 24GB"). */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int machine_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct gs_nameset *names = arg;
	const struct gs_conv_opts *o = cv->o;
	char *name = trim(r->field[0]), *mem = trim(r->field[2]), *unit, model[32];
	struct gs_where w;
	double gpus, gb;
	char vbuf[80];
	int rc;

	r->field[1] = trim(r->field[1]);
	gs_where_csv(&w, r);
	if ((rc = gs_conv_number(r, 1, 0, GS_MAX_GPUS, false, &gpus, NULL)))
		return rc;
	if (gpus != (int64_t)gpus)
		return gs_csv_errorf(r, 1, "'%s' is not a whole number", r->field[1]);
	/* "24GB": a number of GB, the unit the list uses. */
	for (unit = mem; *unit && (isdigit((unsigned char)*unit) || *unit == '.'); unit++)
		;
	if (unit == mem || (strcasecmp(unit, "GB") != 0 && strcasecmp(unit, "G") != 0))
		return gs_csv_errorf(r, 2, "'%s' is not a memory size in GB (such as 24GB)",
				     gs_csv_quote(mem, vbuf, sizeof(vbuf)));
	*unit = '\0';
	if ((rc = gs_conv_number_text(&w, "single GPU mem", mem, 0, 1e6, &gb)))
		return rc;
	/* The models are not named: each card size is a model of its own. */
	snprintf(model, sizeof(model), "GPU-%sGB", mem);
	if (gpus > 0 && (rc = gs_conv_model(cv, &w, "single GPU mem", model, model,
					    (int64_t)(gb * 1024 + 0.5))) < 0)
		return rc;
	return gs_conv_node(cv, &w, &machine_fields, names, name, o->node_cpu * 1000,
			    o->node_mem_gib * 1024, (int64_t)gpus, model);
}

/* The string item key of obj, or NULL when absent or null; GS_EPARSE for another type. */
static int text_item(const struct gs_where *w, const cJSON *obj, const char *key,
		     const char *path, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return gs_where_errorf(w, path, "not a string");
	*out = v->valuestring;
	return 0;
}

/* One job of the log into its pods. *t0 tracks the earliest submission. */
static int job_parse(struct gs_conv *cv, struct gs_where *w, const cJSON *job, int64_t *t0)
{
	const cJSON *attempts, *a, *detail = NULL, *d;
	const char *id, *sub, *s;
	int64_t submitted, start = 0, end = 0, k, n, members = 0;
	bool has_start = false, has_end = false, present;
	char path[64], name[GS_NAME_MAX + 32];
	struct gs_pod p;
	int32_t g = 0;
	int rc, i = 0;

	if (!cJSON_IsObject(job))
		return gs_where_errorf(w, NULL, "not an object");
	if ((rc = text_item(w, job, "jobid", "jobid", &id)) ||
	    (rc = text_item(w, job, "submitted_time", "submitted_time", &sub)))
		return rc;
	if (!id)
		return gs_where_errorf(w, "jobid", "missing");
	if (!sub)
		return gs_where_errorf(w, "submitted_time", "missing");
	if ((rc = gs_conv_datetime_text(w, "submitted_time", sub, &submitted, &present)))
		return rc;
	if (!present)
		return gs_where_errorf(w, "submitted_time", "'%s' is not a date and time", sub);
	attempts = cJSON_GetObjectItemCaseSensitive(job, "attempts");
	if (attempts && !cJSON_IsArray(attempts))
		return gs_where_errorf(w, "attempts", "not an array");
	if (!attempts || !attempts->child) {
		gs_conv_note(cv, "jobs with no scheduling attempt: left out");
		return 0;
	}
	/* The first start, the last end, the first attempt that names machines. */
	for (a = attempts->child; a; a = a->next, i++) {
		if (!cJSON_IsObject(a)) {
			snprintf(path, sizeof(path), "attempts[%d]", i);
			return gs_where_errorf(w, path, "not an object");
		}
		snprintf(path, sizeof(path), "attempts[%d].start_time", i);
		if ((rc = text_item(w, a, "start_time", path, &s)))
			return rc;
		if (s && !has_start) {
			if ((rc = gs_conv_datetime_text(w, path, s, &start, &has_start)))
				return rc;
		}
		snprintf(path, sizeof(path), "attempts[%d].end_time", i);
		if ((rc = text_item(w, a, "end_time", path, &s)))
			return rc;
		has_end = false;
		if (s && (rc = gs_conv_datetime_text(w, path, s, &end, &has_end)))
			return rc;
		d = cJSON_GetObjectItemCaseSensitive(a, "detail");
		if (d && !cJSON_IsArray(d)) {
			snprintf(path, sizeof(path), "attempts[%d].detail", i);
			return gs_where_errorf(w, path, "not an array");
		}
		if (!detail && d && d->child)
			detail = d;
	}
	if (!detail) {
		gs_conv_note(cv, "jobs whose attempts name no machine: left out");
		return 0;
	}
	if (!has_start) {
		gs_conv_note(cv, "jobs whose attempts have no start_time: left out");
		return 0;
	}
	n = cJSON_GetArraySize(detail);
	for (d = detail->child, k = 0; d; d = d->next, k++) {
		const cJSON *gpus = cJSON_IsObject(d) ? cJSON_GetObjectItemCaseSensitive(d, "gpus")
						     : NULL;

		if (!gpus || !cJSON_IsArray(gpus)) {
			snprintf(path, sizeof(path), "detail[%" PRId64 "].gpus", k);
			return gs_where_errorf(w, path, "missing or not an array");
		}
		if (cJSON_GetArraySize(gpus) > GS_MAX_GPUS) {
			snprintf(path, sizeof(path), "detail[%" PRId64 "].gpus", k);
			return gs_where_errorf(w, path, "%d GPUs on one machine is more than %d",
					       cJSON_GetArraySize(gpus), GS_MAX_GPUS);
		}
		members += cJSON_GetArraySize(gpus) > 0;
	}
	if (members == 0) {
		gs_conv_note(cv, "jobs whose machines hold no GPU: left out");
		return 0;
	}
	if ((rc = gs_check_name(w, "jobid", id)) || (rc = gs_conv_room(cv, w, members)))
		return rc;
	if (members > 1 && (g = gs_conv_group(cv, w, id)) < 0)
		return g;
	if (n != members)
		gs_conv_note(cv, "machines of a job that hold no GPU: no pod");
	memset(&p, 0, sizeof(p));
	gs_conv_job_times(cv, submitted, start, end, has_end,
			  "jobs still running when the trace was taken (last end_time None): "
			  "never leave",
			  &p, t0);
	for (d = detail->child, k = 0; d; d = d->next) {
		int ng = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "gpus"));
		uint32_t mask;
		bool unknown;

		if (ng == 0)
			continue;
		p.num_gpu = ng;
		p.gpu_milli = GS_MILLI_PER_GPU;
		if (members > 1)
			snprintf(name, sizeof(name), "%s-%" PRId64, id, k++);
		else
			snprintf(name, sizeof(name), "%s", id);
		if ((rc = gs_conv_check_pod(cv, w, &p, NULL, &mask, &unknown)) ||
		    (rc = gs_check_name(w, "name", name)) ||
		    (rc = gs_conv_pod(cv, w, name, &p, mask, "", unknown, g)))
			return rc;
	}
	return 0;
}

static int jobs_read(struct gs_conv *cv)
{
	struct gs_where w = { cv->o->jobs.name, 0, "", 0, cv->err, cv->err_len };
	int64_t t0 = -1;
	const cJSON *job;
	struct gs_csv r;
	cJSON *root;
	int rc = gs_conv_open(cv, &cv->o->jobs, &r);

	if (rc)
		return rc;
	root = gs_trace_json_parse(r.name, r.buf + r.pos, r.len - r.pos, cv->err, cv->err_len);
	gs_csv_close(&r);
	if (!root)
		return GS_EPARSE;
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return gs_conv_errorf(cv, GS_EPARSE, "%s: not a JSON array of jobs (the format "
				      "of cluster_job_log)", cv->o->jobs.name);
	}
	for (job = root->child; job; job = job->next, w.index++) {
		cv->rep->job_rows++;
		if ((rc = job_parse(cv, &w, job, &t0)))
			break;
	}
	cJSON_Delete(root);
	if (rc == 0 && t0 >= 0)
		gs_conv_shift(cv, t0);
	return rc;
}

int gs_conv_philly(struct gs_conv *cv)
{
	const struct gs_conv_opts *o = cv->o;
	int rc;

	if ((rc = gs_conv_refuse(cv, o->node_gpus || o->node_model || o->node_count ||
					     o->cpu_node_count,
				 "--node-gpus, --node-model, --node-count",
				 "takes its nodes from --machines (cluster_machine_list)")))
		return rc;
	if (o->machines.name) {
		if ((rc = gs_conv_machines(cv, machine_cols, 3, true, machine_row)))
			return rc;
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "the machine list, one node per machine, %" PRId64 " cores and %" PRId64
			 " GiB each (--node-cpu, --node-mem-gib; not in the trace)", o->node_cpu,
			 o->node_mem_gib);
	} else if (!o->nodes) {
		return gs_conv_errorf(cv, GS_EINVAL, "the philly format takes its cluster from "
				      "--machines (cluster_machine_list); give it, or a gpusim "
				      "cluster with --nodes");
	}
	return o->jobs.name ? jobs_read(cv) : 0;
}
