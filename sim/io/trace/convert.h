/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert.h - converters from public GPU cluster traces to a gpusim
 * cluster and pod trace (`gpusim convert`; docs/trace-formats-public.md
 * says what every column becomes and what is dropped):
 *
 *   pai     Alibaba cluster-trace-gpu-v2020 (PAI, NSDI'22): the machine
 *           list, the task table and optionally the instance table
 *   dlrm    Alibaba cluster-trace-gpu-v2025 (DLRM serving, NSDI'25): the
 *           instance list; no node list is published, so one is built
 *   spot    Alibaba cluster-trace-v2026-spot-gpu (ASPLOS'26): the node
 *           list and the job list
 *   philly  Microsoft Philly (ATC'19): cluster_machine_list, cluster_job_log
 *   helios  SenseTime Helios (SC'21): cluster_gpu_number.csv, cluster_log.csv
 *   acme    Shanghai AI Lab Acme (NSDI'24): trace_seren.csv, trace_kalos.csv
 *
 * A converter reads the files as published (headerless where the trace
 * ships them so), checks every field the way gpusim's own readers do (a
 * malformed value is an error naming file, line and column) and builds the
 * cluster and the pods in memory; the caller writes them with write.h, so
 * the output is gpusim's native CSV (or JSON for a cluster with models the
 * built-in table lacks) and replays like any other trace. Rows that the
 * published traces are known to contain and that cannot become pods (a
 * task that never started, a job with no GPU count) are counted in the
 * report, never dropped silently. A job of several workers becomes one pod
 * per worker, the pods a group placed all together or not at all.
 *
 * Ownership: the caller owns the cluster and the trace it passes (both
 * initialised and empty), the options and the report. Nothing is kept
 * after a call.
 */
#ifndef GS_CONVERT_H
#define GS_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/* C name, name as typed, the trace and its files. */
#define GS_CONV_FORMATS(X)                                                                    \
	X(PAI, "pai", "Alibaba cluster-trace-gpu-v2020 (PAI): pai_machine_spec, "             \
		      "pai_task_table, pai_instance_table")                                   \
	X(DLRM, "dlrm", "Alibaba cluster-trace-gpu-v2025 (DLRM serving): "                     \
			"disaggregated_DLRM_trace.csv")                                       \
	X(SPOT, "spot", "Alibaba cluster-trace-v2026-spot-gpu: node_info_df.csv, "             \
			"job_info_df.csv")                                                    \
	X(PHILLY, "philly", "Microsoft Philly: cluster_machine_list, cluster_job_log")         \
	X(HELIOS, "helios", "SenseTime Helios: cluster_gpu_number.csv, cluster_log.csv")       \
	X(ACME, "acme", "Shanghai AI Lab Acme: trace_seren.csv or trace_kalos.csv")

enum gs_conv_format {
#define GS_CONV_ENUM(c, name, what) GS_CONV_##c,
	GS_CONV_FORMATS(GS_CONV_ENUM)
#undef GS_CONV_ENUM
	GS_CONV__COUNT
};

/* The format's name as typed ("pai"), or NULL out of range. */
const char *gs_conv_format_name(enum gs_conv_format f);

/* The format called name, or -1. */
int gs_conv_format_find(const char *name);

/* One input file, or len bytes of data reported as name; name NULL: not given. */
struct gs_conv_input {
	const char *name;
	const char *data;   /* NULL: read the file called name */
	size_t len;
};

struct gs_conv_opts {
	enum gs_conv_format format;
	struct gs_conv_input jobs;       /* the job (pai: task) table */
	struct gs_conv_input machines;   /* the machine list */
	struct gs_conv_input instances;  /* pai only: the instance table, optional */
	/*
	 * A gpusim cluster to convert the pods against instead of building
	 * one (NULL: build it). Borrowed; copied into the output cluster.
	 */
	const struct gs_cluster *nodes;
	/*
	 * GPU models by their names in the trace ("H800", "GPU-series-1")
	 * with the memory per card to give them, overriding the converter's
	 * stated assumptions; may be NULL. Borrowed.
	 */
	const struct gs_models *model_mem;
	/*
	 * Built nodes, for the formats that build them (0 or NULL: the
	 * format's rule, docs/trace-formats-public.md): GPUs per GPU node,
	 * their model, cores and GiB of memory of every built node, how many
	 * GPU nodes and (dlrm) CPU nodes, and the spare capacity in percent
	 * added to what the trace's peak needs.
	 */
	/*
	 * pai: make the GPU type a task was given a constraint of its pods
	 * (the trace records where tasks ran, not what they asked for).
	 */
	bool pin_models;
	/* Leave out the jobs that ask for no GPU (counted in the report). */
	bool gpu_only;
	int64_t node_gpus;
	const char *node_model;
	int64_t node_cpu;
	int64_t node_mem_gib;
	int64_t node_count;
	int64_t cpu_node_count;
	double headroom_pct;
	/* The most pods to make in all (GS_CONV_MAX_PODS): more is an error. */
	size_t max_pods;
	/* The most nodes to build (GS_CONV_MAX_NODES): more is an error. */
	int64_t max_nodes;
};

/* The most pods one job record may make (workers, instances or nodes of a job). */
#define GS_CONV_MAX_WORKERS 10000
/* The most pods a conversion makes by default (gpusim gen's largest trace). */
#define GS_CONV_MAX_PODS 10000000
/* The most nodes a converter builds for a cluster (a bound on memory and time). */
#define GS_CONV_MAX_NODES 1000000

/* Fills the defaults: no inputs, built nodes by the format's rule, 10 % headroom. */
void gs_conv_opts_init(struct gs_conv_opts *o, enum gs_conv_format f);

#define GS_CONV_NOTES_MAX 24

/* A count of records of one kind, with what was done with them. */
struct gs_conv_note {
	const char *what;   /* static: "tasks that never started (start_time 0 or empty): left out" */
	size_t n;
};

/* What a conversion read and made. */
struct gs_conv_report {
	size_t job_rows;      /* records of the job table (PAI: task rows) */
	size_t machine_rows;  /* records of the machine list */
	size_t pods;          /* pods made */
	int32_t groups;       /* pod groups made (jobs of several workers) */
	int64_t t0_s;         /* the trace time that became 0 (formats with absolute clocks) */
	/* How the cluster was made, one line (static or in cluster_buf). */
	char cluster_how[256];
	struct gs_conv_note notes[GS_CONV_NOTES_MAX];
	int n_notes;
};

/*
 * Converts the trace o describes into c (an empty, initialised cluster)
 * and t (empty, initialised; t->format is set to the format's name).
 * Either input may be absent when the other makes sense alone: machines
 * only gives a cluster and no pods; jobs only needs o->nodes or a format
 * that builds its nodes. Returns 0; GS_EPARSE (bad input: a message
 * naming file, line and column, or the option), GS_EINVAL (a missing or
 * misapplied input or option), GS_ENOENT or GS_EIO (a file that cannot be
 * read) or GS_ENOMEM, with a message in err. On failure c and t may hold
 * part of the result: release them.
 */
int gs_convert(const struct gs_conv_opts *o, struct gs_cluster *c, struct gs_trace *t,
	       struct gs_conv_report *rep, char *err, size_t err_len);

#endif
