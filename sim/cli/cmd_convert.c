/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_convert.c - `gpusim convert`: a public GPU trace (Alibaba PAI, DLRM
 * serving and spot GPU, Philly, Helios, Acme) to a gpusim cluster and pod
 * trace (io/trace/convert.h; docs/trace-formats-public.md).
 *
 * Conversion is a command of its own rather than a --format option of
 * replay and sweep: the converters need options a replay has no use for
 * (how to build a cluster the trace does not publish, model memory), the
 * converted files are what a run records by checksum and what a user can
 * read, edit and share, and a sweep of many seeds reads them once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "core/limits.h"
#include "io/trace/convert.h"
#include "io/trace/load.h"
#include "io/path.h"
#include "io/trace/write.h"

struct convert_args {
	int format;
	const char *jobs, *machines, *instances, *nodes, *pods_out, *nodes_out;
	struct gs_models model_mem;
	bool pin_models, gpu_only, quiet;
	int64_t node_gpus, node_cpu, node_mem_gib, node_count, cpu_node_count;
	const char *node_model;
	double headroom;
};

static const struct gs_opt_choice formats[] = {
#define GS_CONV_CHOICE(c, name, what) { name, GS_CONV_##c },
	GS_CONV_FORMATS(GS_CONV_CHOICE)
#undef GS_CONV_CHOICE
	{ NULL, 0 },
};

/* NAME=MIB[,NAME=MIB...]: the memory per GPU of models, by the trace's names. */
static int parse_model_mem(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			   const char *value, void *field)
{
	struct gs_models out = { .n = 0 };
	const char *s = value;
	char item[GS_MODEL_NAME_MAX + 32];

	do {
		size_t len = strcspn(s, ",");
		char *eq;
		int64_t mib;

		if (len == 0 || len >= sizeof(item)) {
			gs_opt_err(cmd, o, "'%s' has an %s item", value, len ? "overlong" : "empty");
			return GS_EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		eq = strchr(item, '=');
		if (!eq || eq == item) {
			gs_opt_err(cmd, o, "'%s' is not NAME=MIB", item);
			return GS_EINVAL;
		}
		*eq = '\0';
		if (gs_opt_int(cmd, o, eq + 1, 0, GS_MIB_MAX, &mib))
			return GS_EINVAL;
		if (gs_models_find(&out, item) >= 0) {
			gs_opt_err(cmd, o, "model '%s' is given twice", item);
			return GS_EINVAL;
		}
		if (gs_models_set(&out, item, mib) < 0) {
			gs_opt_err(cmd, o, "'%s' is not a GPU model name (1 to %d characters), or "
				   "more than %d models", item, GS_MODEL_NAME_MAX - 1, GS_MAX_MODELS);
			return GS_EINVAL;
		}
		s += len;
	} while (*s++ == ',');
	*(struct gs_models *)field = out;
	return 0;
}

#define S struct convert_args
static const struct gs_opt convert_opts[] = {
	{ GS_OPT_ENUM_AT(S, format, formats), .name = "format", .short_name = 'f', .arg = "NAME",
	  .flags = GS_OPT_REQUIRED,
	  .help = "the trace: 'pai' (Alibaba cluster-trace-gpu-v2020), 'dlrm' "
		  "(cluster-trace-gpu-v2025), 'spot' (cluster-trace-v2026-spot-gpu), 'philly' "
		  "(Microsoft), 'helios' (SenseTime), 'acme' (Shanghai AI Lab)" },
	{ GS_OPT_GROUP_HEADING("Inputs, the trace's files as published:") },
	{ GS_OPT_STRING_AT(S, jobs), .name = "jobs", .short_name = 'j', .arg = "FILE",
	  .help = "the jobs: pai_task_table, disaggregated_DLRM_trace.csv, job_info_df.csv, "
		  "cluster_job_log, cluster_log.csv or trace_{seren,kalos}.csv" },
	{ GS_OPT_STRING_AT(S, machines), .name = "machines", .short_name = 'm', .arg = "FILE",
	  .conflicts = "nodes",
	  .help = "the machines: pai_machine_spec, node_info_df.csv, cluster_machine_list or "
		  "cluster_gpu_number.csv (dlrm and acme publish none)" },
	{ GS_OPT_STRING_AT(S, instances), .name = "instances", .arg = "FILE", .requires = "jobs",
	  .help = "pai: pai_instance_table, one pod per instance that started, with its own "
		  "times (files up to 1 GiB)" },
	{ GS_OPT_STRING_AT(S, nodes), .name = "nodes", .short_name = 'n', .arg = "FILE",
	  .conflicts = "nodes-out",
	  .help = "convert the jobs against this gpusim cluster (any format gpusim reads) "
		  "instead of the trace's machines or a built one" },
	{ GS_OPT_GROUP_HEADING("Outputs (both written, or neither):") },
	{ GS_OPT_STRING_AT(S, pods_out), .name = "pods-out", .short_name = 'p', .arg = "FILE",
	  .help = "the pods, gpusim CSV (needed with --jobs)" },
	{ GS_OPT_STRING_AT(S, nodes_out), .name = "nodes-out", .short_name = 'o', .arg = "FILE",
	  .help = "the cluster: gpusim CSV, or JSON if FILE ends in .json (needed when a model "
		  "is not built in)" },
	{ GS_OPT_GROUP_HEADING("Mapping:") },
	{ GS_OPT_CUSTOM_AT(S, model_mem, struct gs_models, parse_model_mem, NULL),
	  .name = "model-mem", .arg = "LIST",
	  .help = "NAME=MIB,...: memory per GPU of models by the trace's names, over the "
		  "converter's stated assumptions ('H800=81920'); also lets a model the "
		  "converter does not know through" },
	{ GS_OPT_FLAG_AT(S, pin_models), .name = "pin-models",
	  .help = "pai: restrict each task's pods to the GPU type the trace gave it" },
	{ GS_OPT_FLAG_AT(S, gpu_only), .name = "gpu-only",
	  .help = "leave out the jobs that ask for no GPU (counted on stderr)" },
	{ GS_OPT_GROUP_HEADING("Built nodes (dlrm and acme; helios, counted from its list):") },
	{ GS_OPT_INT_AT(S, node_gpus, 1, GS_MAX_GPUS), .name = "node-gpus", .arg = "N",
	  .help = "GPUs per node (default 8)" },
	{ GS_OPT_STRING_AT(S, node_model), .name = "node-model", .arg = "NAME",
	  .help = "their GPU model (default dlrm-gpu, a custom model; V100M16 for helios, "
		  "A100-80G for acme)" },
	{ GS_OPT_INT_AT(S, node_cpu, 1, GS_CPU_MILLI_MAX / 1000), .name = "node-cpu",
	  .arg = "CORES",
	  .help = "cores per node (default: enough for its GPUs' pods; philly: the machines' "
		  "cores, none by default)" },
	{ GS_OPT_INT_AT(S, node_mem_gib, 1, GS_MIB_MAX / 1024), .name = "node-mem-gib",
	  .arg = "GIB", .help = "memory per node, likewise (spot, philly: the machines' memory, "
				"none by default)" },
	{ GS_OPT_INT_AT(S, node_count, 1, 1000000), .name = "node-count", .arg = "N",
	  .help = "GPU nodes (default: what the trace's peak of GPUs in use needs, plus the "
		  "headroom)" },
	{ GS_OPT_INT_AT(S, cpu_node_count, 1, 1000000), .name = "cpu-node-count", .arg = "N",
	  .help = "dlrm: CPU nodes for the CN instances (default: their peak, plus the "
		  "headroom)" },
	{ GS_OPT_DOUBLE_AT(S, headroom, 0, 1000), .name = "headroom", .arg = "PCT", .def = "10",
	  .help = "spare capacity over the peak, in percent" },
	GS_CLI_OPT_QUIET(S, "print no summary (the counts of left-out records still go to stderr)"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec convert_cmd = {
	.name = "convert",
	.intro = "Converts a public GPU cluster trace, as published, to a gpusim cluster and\n"
		 "pod trace that replay and sweep read. docs/trace-formats-public.md says what\n"
		 "each column becomes, what is dropped and why, and how a cluster is built\n"
		 "for the traces that publish no machine list. A job of several workers\n"
		 "becomes one pod per worker in a pod group, placed all together or not at\n"
		 "all. Records the published traces are known to hold that cannot become\n"
		 "pods are counted on stderr; a malformed value is an error naming the file,\n"
		 "line and column.\n",
	.outro = "Exit status: 0 success, 1 the files could not be written, 2 bad input or "
		 "usage.\n",
	.opts = convert_opts,
};

/* The outputs the inputs call for, checked before anything is read. */
static int check_outputs(const struct convert_args *a)
{
	if (a->jobs && !a->pods_out) {
		fprintf(stderr, "gpusim convert: --jobs needs --pods-out\n");
		return -1;
	}
	if (!a->jobs && a->pods_out) {
		fprintf(stderr, "gpusim convert: --pods-out needs --jobs\n");
		return -1;
	}
	if (!a->nodes && !a->nodes_out) {
		fprintf(stderr, "gpusim convert: the cluster needs --nodes-out (or give one with "
				"--nodes)\n");
		return -1;
	}
	if (a->pods_out && gs_path_is_json(a->pods_out)) {
		fprintf(stderr, "gpusim convert: --pods-out: '%s': pods are written as gpusim CSV; "
				"give a .csv name\n", a->pods_out);
		return -1;
	}
	if (a->pods_out && a->nodes_out && gs_write_same_file(a->pods_out, a->nodes_out)) {
		fprintf(stderr, "gpusim convert: --nodes-out and --pods-out name the same file\n");
		return -1;
	}
	return 0;
}

static void summary(const struct convert_args *a, const struct gs_cluster *c,
		    const struct gs_trace *t, const struct gs_conv_report *rep)
{
	const char *fmt = gs_conv_format_name((enum gs_conv_format)a->format);

	if (a->nodes_out)
		printf("gpusim convert: %s: %d nodes with %lld GPUs (%s) -> %s\n", fmt, c->n_nodes,
		       (long long)c->gpu_count, rep->cluster_how, a->nodes_out);
	if (a->pods_out)
		printf("gpusim convert: %s: %zu job records -> %zu pods, %" PRId32 " pod groups%s "
		       "-> %s\n", fmt, rep->job_rows, t->n_pods, t->n_groups,
		       rep->t0_s ? " (times from the first arrival)" : "", a->pods_out);
}

/* Writes the cluster (unless it came from --nodes) and the pods, both or neither. */
static int write_outputs(const struct convert_args *a, const struct gs_cluster *c,
			 const struct gs_trace *t)
{
	char err[1024];
	int rc = gs_write_cluster_and_trace(a->nodes_out, c, a->pods_out, t, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "gpusim convert: %s\n", err);
		return rc == GS_EINVAL ? GS_EXIT_USAGE : GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

int gs_cmd_convert(int argc, char **argv)
{
	struct gs_conv_opts o;
	struct gs_conv_report rep;
	struct gs_cluster given, c;
	struct gs_trace t;
	struct convert_args a;
	char err[1024];
	int rc, i, status = GS_EXIT_OK;

	memset(&a, 0, sizeof(a));
	if (gs_opt_parse(&convert_cmd, argc, argv, &a, &status))
		return status;
	if (check_outputs(&a))
		return GS_EXIT_USAGE;
	gs_cluster_init(&given);
	gs_cluster_init(&c);
	gs_trace_init(&t);
	gs_conv_opts_init(&o, (enum gs_conv_format)a.format);
	o.jobs.name = a.jobs;
	o.machines.name = a.machines;
	o.instances.name = a.instances;
	o.model_mem = a.model_mem.n ? &a.model_mem : NULL;
	o.pin_models = a.pin_models;
	o.gpu_only = a.gpu_only;
	o.node_gpus = a.node_gpus;
	o.node_model = a.node_model;
	o.node_cpu = a.node_cpu;
	o.node_mem_gib = a.node_mem_gib;
	o.node_count = a.node_count;
	o.cpu_node_count = a.cpu_node_count;
	o.headroom_pct = a.headroom;
	if (a.nodes) {
		rc = gs_load_cluster(a.nodes, &given, NULL, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim convert: %s\n", err);
			status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
			goto out;
		}
		o.nodes = &given;
	}
	rc = gs_convert(&o, &c, &t, &rep, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim convert: %s\n", err[0] ? err : gs_strerror(rc));
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < rep.n_notes; i++)
		fprintf(stderr, "gpusim convert: %s: %zu %s\n",
			a.jobs ? a.jobs : a.machines, rep.notes[i].n, rep.notes[i].what);
	if (a.pods_out && t.n_pods == 0) {
		fprintf(stderr, "gpusim convert: %s: no job became a pod; nothing to write\n",
			a.jobs);
		status = GS_EXIT_USAGE;
		goto out;
	}
	status = write_outputs(&a, &c, &t);
	if (status == GS_EXIT_OK && !a.quiet)
		summary(&a, &c, &t, &rep);
out:
	gs_trace_release(&t);
	gs_cluster_release(&c);
	gs_cluster_release(&given);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_convert_specs[] = { &convert_cmd, NULL };
