/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_pai.c - Alibaba cluster-trace-gpu-v2020 (PAI; Weng et al.,
 * "MLaaS in the Wild", NSDI 2022) to gpusim: pai_machine_spec to nodes,
 * pai_task_table (and optionally pai_instance_table) to pods. The tables
 * are published without headers (the headers are separate .header files);
 * a first row equal to the header is accepted too.
 *
 * A task asks for plan_cpu percent of a core, plan_mem GB and plan_gpu
 * percent of a GPU per instance, for inst_num instances; a task of several
 * instances becomes a pod group. docs/trace-formats-public.md lists what
 * every column becomes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"
#include "io/trace/convert_internal.h"

static const char *const machine_cols[5] = {
	"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu",
};
static const char *const task_cols[10] = {
	"job_name", "task_name", "inst_num", "status", "start_time", "end_time",
	"plan_cpu", "plan_mem", "plan_gpu", "gpu_type",
};
static const char *const inst_cols[9] = {
	"job_name", "task_name", "inst_name", "worker_name", "inst_id", "status",
	"start_time", "end_time", "machine",
};

/*
 * The trace's GPU types. V100 is the 16 GB card (the 32 GB one is
 * V100M32). MISC stands for older cards (K40m, K80, M60, the README says):
 * 8 GiB assumed, the smallest of them (an M60 GPU), as gpusim assumes the
 * smallest card for openb's anonymised models.
 */
static const struct gs_conv_model_map pai_models[] = {
	{ "MISC", "MISC", 8192 },
	{ "P100", "P100", 0 },
	{ "T4", "T4", 0 },
	{ "V100", "V100M16", 0 },
	{ "V100M32", "V100M32", 0 },
	{ NULL, NULL, 0 },
};

static const struct gs_node_fields machine_fields = {
	"machine", "cap_cpu", "cap_mem", "cap_gpu", "gpu_type",
};

/* A number field that must be whole: GS_EPARSE otherwise. */
static int whole(struct gs_csv *r, int col, double v)
{
	char vbuf[80];

	if (v != floor(v))
		return gs_csv_errorf(r, col, "'%s' is not a whole number",
				     gs_csv_quote(r->field[col], vbuf, sizeof(vbuf)));
	return 0;
}

static int machine_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct gs_nameset *names = arg;
	const char *type = r->field[1], *model = "";
	struct gs_where w;
	double cpu, mem, gpu;
	int32_t cpu_milli;
	int64_t mem_mib;
	int rc;

	gs_where_csv(&w, r);
	if ((rc = gs_conv_number(r, 2, 0, 1e9, false, &cpu, NULL)) ||
	    (rc = gs_conv_number(r, 3, 0, 1e15, false, &mem, NULL)) ||
	    (rc = gs_conv_number(r, 4, 0, GS_MAX_GPUS, false, &gpu, NULL)) ||
	    (rc = whole(r, 4, gpu)) || (rc = gs_conv_cpu(&w, "cap_cpu", cpu, &cpu_milli)) ||
	    (rc = gs_conv_mem(&w, "cap_mem", mem, &mem_mib)))
		return rc;
	if (strcmp(type, "CPU") == 0) {
		if (gpu > 0)
			return gs_csv_errorf(r, 4, "'%s' GPUs on a machine of gpu_type CPU",
					     r->field[4]);
	} else if (gpu == 0) {
		gs_conv_note(cv, "machines of a GPU type with cap_gpu 0: nodes without GPUs");
	} else {
		rc = gs_conv_model_mapped(cv, &w, "gpu_type", pai_models, type, &model);
		if (rc < 0)
			return rc;
	}
	return gs_conv_node(cv, &w, &machine_fields, names, r->field[0], cpu_milli, mem_mib,
			    (int64_t)gpu, model);
}

/* One task of the task table, as the pods of its instances will ask. */
struct task {
	char *base;          /* job_name.task_name, owned */
	struct gs_pod pod;   /* the request and the task's times */
	const char *spec;    /* gpusim's model name, "" for any */
	int64_t inst_num;
	int64_t started;     /* instances of the instance table that started */
	long line;
};

struct tasks {
	struct task *v;
	size_t n, cap;
	struct gs_nameset index;   /* "job\ttask" -> index in v */
	char **keys;               /* owned key strings */
	bool keep;                 /* keep the tasks for the instance table, else make pods */
	int64_t t0;                /* the earliest arrival so far, -1 none */
};

static const char *const note_never = "tasks that never started (start_time 0 or empty): "
				      "left out";
static const char *const note_running = "tasks still running at the end of the trace "
					"(end_time 0 or empty): never leave";

/* Reads one task row into *tk. Returns 1 when the task becomes pods, 0 when it is left out. */
static int task_parse(struct gs_conv *cv, struct gs_csv *r, struct task *tk)
{
	double inst = 0, start = 0, end = 0, cpu = 0, mem = 0, gpu = 0;
	bool has_inst, has_start, has_end, has_cpu, has_mem, has_gpu, rounded;
	struct gs_where w;
	int rc;

	gs_where_csv(&w, r);
	memset(tk, 0, sizeof(*tk));
	if ((rc = gs_conv_number(r, 2, 0, 1e9, true, &inst, &has_inst)) ||
	    (has_inst && (rc = whole(r, 2, inst))) ||
	    (rc = gs_conv_number(r, 4, 0, (double)GS_TIME_MAX_S, true, &start, &has_start)) ||
	    (rc = gs_conv_number(r, 5, 0, (double)GS_TIME_MAX_S, true, &end, &has_end)) ||
	    (rc = gs_conv_number(r, 6, 0, 1e9, true, &cpu, &has_cpu)) ||
	    (rc = gs_conv_number(r, 7, 0, 1e15, true, &mem, &has_mem)) ||
	    (rc = gs_conv_number(r, 8, 0, 1e9, true, &gpu, &has_gpu)))
		return rc;
	if ((rc = gs_conv_cpu(&w, "plan_cpu", cpu / 100, &tk->pod.cpu_milli)) ||
	    (rc = gs_conv_mem(&w, "plan_mem", mem, &tk->pod.mem_mib)) ||
	    (rc = gs_conv_gpus(&w, "plan_gpu", gpu / 100, &tk->pod, &rounded)))
		return rc;
	tk->line = r->line;
	tk->inst_num = (int64_t)inst;
	if (!has_inst || inst == 0) {
		gs_conv_note(cv, "tasks of 0 instances (inst_num 0 or empty): left out");
		return 0;
	}
	if (!has_start || start == 0) {
		gs_conv_note(cv, note_never);
		return 0;
	}
	if (!has_cpu)
		gs_conv_note(cv, "tasks without plan_cpu: no CPU request");
	if (!has_mem)
		gs_conv_note(cv, "tasks without plan_mem: no memory request");
	if (rounded)
		gs_conv_note(cv, "tasks asking for more than one GPU, not a multiple of 100 "
				 "(plan_gpu 150): rounded up to whole GPUs");
	tk->pod.t_create_s = gs_conv_round_s(start);
	tk->pod.t_delete_s = -1;
	if (has_end && end > 0)
		tk->pod.t_delete_s = gs_conv_round_s(end);
	else
		gs_conv_note(cv, note_running);
	tk->spec = "";
	/* gpu_type is the type the task was given, not one it asked for: a constraint only on request. */
	if (cv->o->pin_models && tk->pod.num_gpu > 0 && r->field[9][0] &&
	    strcmp(r->field[9], "CPU") != 0)
		tk->spec = gs_conv_model_name(pai_models, r->field[9]);
	return 1;
}

/* The pod name base of a task: job_name, and .task_name when it has one. */
static int task_base(struct gs_csv *r, char *buf, size_t len)
{
	if (!gs_conv_join(buf, len, r->field[0], '.', r->field[1][0] ? r->field[1] : NULL))
		return gs_csv_errorf(r, 0, "job_name and task_name are too long for a pod name");
	return 0;
}

static int task_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct tasks *ts = arg;
	struct task tk;
	char base[GS_NAME_MAX + 2];
	struct gs_where w;
	int rc = task_parse(cv, r, &tk);

	if (rc <= 0)
		return rc;
	if ((rc = task_base(r, base, sizeof(base))))
		return rc;
	if (ts->t0 < 0 || tk.pod.t_create_s < ts->t0)
		ts->t0 = tk.pod.t_create_s;
	if (!ts->keep) {
		gs_where_csv(&w, r);
		return gs_conv_pods(cv, &w, base, tk.inst_num, &tk.pod, tk.spec);
	}
	/* Kept for the instance table: key "job\ttask", which no name can contain. */
	{
		char *key = malloc(strlen(r->field[0]) + strlen(r->field[1]) + 2);
		long prev;

		if (!key)
			return GS_ENOMEM;
		sprintf(key, "%s\t%s", r->field[0], r->field[1]);
		if (ts->n == ts->cap) {
			size_t cap = gs_grow_cap(ts->cap, 1024);

			if (GS_GROW_RESIZE(ts->v, cap) || GS_GROW_RESIZE(ts->keys, cap)) {
				free(key);
				return GS_ENOMEM;
			}
			ts->cap = cap;
		}
		tk.base = strdup(base);
		if (!tk.base) {
			free(key);
			return GS_ENOMEM;
		}
		ts->keys[ts->n] = key;
		ts->v[ts->n] = tk;
		rc = gs_nameset_add(&ts->index, key, (long)ts->n, &prev);
		ts->n++;
		if (rc < 0)
			return rc;
		if (rc == 1)
			return gs_csv_errorf(r, 1, "task '%s' of job '%s' appears twice (first on "
					     "line %ld)", r->field[1], r->field[0],
					     ts->v[prev].line);
	}
	return 0;
}

/* One instance that started: its task and times. */
struct inst {
	size_t task;
	int64_t start, end;
	long line;
};

struct insts {
	struct tasks *ts;
	struct inst *v;
	size_t n, cap;
};

static int inst_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct insts *is = arg;
	double start = 0, end = 0;
	bool has_start, has_end;
	struct inst *in;
	char *key;
	long k;
	int rc;

	if ((rc = gs_conv_number(r, 6, 0, (double)GS_TIME_MAX_S, true, &start, &has_start)) ||
	    (rc = gs_conv_number(r, 7, 0, (double)GS_TIME_MAX_S, true, &end, &has_end)))
		return rc;
	key = malloc(strlen(r->field[0]) + strlen(r->field[1]) + 2);
	if (!key)
		return GS_ENOMEM;
	sprintf(key, "%s\t%s", r->field[0], r->field[1]);
	if (!gs_nameset_find(&is->ts->index, key, &k)) {
		free(key);
		gs_conv_note(cv, "instances of tasks the task table does not have (or left "
				 "out): left out");
		return 0;
	}
	free(key);
	if (!has_start || start == 0) {
		gs_conv_note(cv, "instances that never started (start_time 0 or empty): left out");
		return 0;
	}
	GS_GROW_PUSH(is->v, is->n, is->cap, 1024, in);
	if (!in)
		return GS_ENOMEM;
	in->task = (size_t)k;
	in->start = gs_conv_round_s(start);
	in->end = has_end && end > 0 ? gs_conv_round_s(end) : -1;
	in->line = r->line;
	is->ts->v[k].started++;
	if (is->ts->t0 < 0 || in->start < is->ts->t0)
		is->ts->t0 = in->start;
	return 0;
}

/* The pods of the instances that started, in the order of the instance table. */
static int inst_pods(struct gs_conv *cv, struct insts *is)
{
	struct tasks *ts = is->ts;
	int64_t *seen = calloc(ts->n ? ts->n : 1, sizeof(*seen));
	int32_t *group = calloc(ts->n ? ts->n : 1, sizeof(*group));
	char name[GS_NAME_MAX + 32];
	size_t i;
	int rc = 0;

	if (!seen || !group) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (i = 0; i < ts->n; i++) {
		if (ts->v[i].started == 0)
			gs_conv_note(cv, "tasks none of whose instances started: left out");
		else if (ts->v[i].started != ts->v[i].inst_num)
			gs_conv_note(cv, "tasks whose started instances are not inst_num: one pod "
					 "per started instance");
	}
	for (i = 0; i < is->n && rc == 0; i++) {
		struct inst *in = &is->v[i];
		struct task *tk = &ts->v[in->task];
		struct gs_where w = { cv->o->instances.name, in->line, NULL, -1, cv->err,
				      cv->err_len };
		struct gs_pod p = tk->pod;
		uint32_t mask;
		bool unknown;

		p.t_create_s = in->start;
		p.t_delete_s = in->end;
		if (in->end < 0)
			gs_conv_note(cv, "instances still running at the end of the trace "
					 "(end_time 0 or empty): never leave");
		if ((rc = gs_conv_check_pod(cv, &w, &p, tk->spec, &mask, &unknown)))
			break;
		if (tk->started > 1 && group[in->task] == 0) {
			rc = gs_conv_group(cv, &w, tk->base);
			if (rc < 0)
				break;
			group[in->task] = rc;
			rc = 0;
		}
		if (tk->started > 1)
			gs_conv_name_k(name, sizeof(name), tk->base, seen[in->task]++);
		else
			gs_conv_join(name, sizeof(name), tk->base, 0, NULL);
		rc = gs_check_name(&w, "name", name);
		if (rc == 0)
			rc = gs_conv_pod(cv, &w, name, &p, mask, tk->spec, unknown,
					 group[in->task]);
	}
out:
	free(seen);
	free(group);
	return rc;
}

static void tasks_release(struct tasks *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++) {
		free(ts->keys[i]);
		free(ts->v[i].base);
	}
	free(ts->keys);
	free(ts->v);
	gs_nameset_release(&ts->index);
}

int gs_conv_pai(struct gs_conv *cv)
{
	const struct gs_conv_opts *o = cv->o;
	struct tasks ts;
	struct insts is;
	struct gs_csv r, ri;
	int rc;

	if ((rc = gs_conv_refuse(cv, o->node_gpus || o->node_model || o->node_cpu ||
					     o->node_mem_gib || o->node_count || o->cpu_node_count,
				 "--node-*", "takes its nodes from --machines (pai_machine_spec)")))
		return rc;
	if (o->machines.name) {
		if ((rc = gs_conv_machines(cv, machine_cols, 5, true, machine_row)))
			return rc;
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "the machine list, one node per machine");
	} else if (!o->nodes && o->jobs.name) {
		return gs_conv_errorf(cv, GS_EINVAL, "the pai format takes its cluster from "
				      "--machines (pai_machine_spec); give it, or a gpusim cluster "
				      "with --nodes");
	}
	if (o->instances.name && !o->jobs.name)
		return gs_conv_errorf(cv, GS_EINVAL, "--instances needs --jobs (pai_task_table), "
				      "which holds the instances' requests");
	if (!o->jobs.name)
		return 0;

	memset(&ts, 0, sizeof(ts));
	memset(&is, 0, sizeof(is));
	gs_nameset_init(&ts.index);
	ts.keep = o->instances.name != NULL;
	ts.t0 = -1;
	is.ts = &ts;
	if ((rc = gs_conv_open(cv, &o->jobs, &r)))
		goto out_tasks;
	rc = gs_conv_rows(cv, &r, task_cols, 10, true, task_row, &ts, &cv->rep->job_rows);
	if (rc == 0 && ts.keep) {
		/* The instances start afresh: the tasks' own start times do not count. */
		ts.t0 = -1;
		rc = gs_conv_open(cv, &o->instances, &ri);
		if (rc == 0) {
			rc = gs_conv_rows(cv, &ri, inst_cols, 9, true, inst_row, &is, NULL);
			gs_csv_close(&ri);
		}
		if (rc == 0)
			rc = inst_pods(cv, &is);
	}
	gs_csv_close(&r);
	if (rc == 0 && ts.t0 > 0)
		gs_conv_shift(cv, ts.t0);
out_tasks:
	free(is.v);
	tasks_release(&ts);
	return rc;
}
