/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_internal.h - what the converters (convert_*.c) share: the state
 * of one conversion and the field parsers, unit conversions, pod and node
 * builders and the sizing rule that every format uses, so that each
 * format's file holds only its own columns and mapping (convert.h).
 *
 * Not a public contract. Messages have the trace readers' shape:
 *   FILE:LINE: column FIELD: 'VALUE' is not a number
 */
#ifndef GS_CONVERT_INTERNAL_H
#define GS_CONVERT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/csv.h"
#include "io/trace/convert.h"
#include "io/trace/internal.h"

/* How a trace names a GPU model, gpusim's name for it and its memory; tables end with { NULL }. */
struct gs_conv_model_map {
	const char *trace;
	const char *gpusim;
	int64_t mib;          /* 0: built in */
};

/* The state of one conversion. */
struct gs_conv {
	const struct gs_conv_opts *o;
	struct gs_cluster *c;
	struct gs_trace *t;
	struct gs_conv_report *rep;
	struct gs_nameset names;   /* pod names made so far (keys: the trace's copies) */
	uint32_t node_mask;        /* models some node has, for the audit of pod specs */
	bool built;                /* the cluster is built or read here, not o->nodes */
	char *err;
	size_t err_len;
};

/* One format's converter: fills cv->c and cv->t. 0 or a GS_E* code with a message. */
typedef int (*gs_conv_fn)(struct gs_conv *cv);

/* Alibaba cluster-trace-gpu-v2020 (convert_pai.c). */
int gs_conv_pai(struct gs_conv *cv);
/* Alibaba cluster-trace-gpu-v2025 (convert_dlrm.c). */
int gs_conv_dlrm(struct gs_conv *cv);
/* Alibaba cluster-trace-v2026-spot-gpu (convert_spot.c). */
int gs_conv_spot(struct gs_conv *cv);
/* Microsoft Philly (convert_philly.c). */
int gs_conv_philly(struct gs_conv *cv);
/* SenseTime Helios (convert_helios.c). */
int gs_conv_helios(struct gs_conv *cv);
/* Shanghai AI Lab Acme (convert_helios.c). */
int gs_conv_acme(struct gs_conv *cv);

/* Writes "MESSAGE" into cv's error buffer (no location). Returns rc. */
int gs_conv_errorf(struct gs_conv *cv, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Opens input in (a file, or data in memory) into r, with cv's error
 * buffer. Returns 0, GS_ENOENT, GS_EIO, GS_EPARSE or GS_ENOMEM.
 */
int gs_conv_open(struct gs_conv *cv, const struct gs_conv_input *in, struct gs_csv *r);

/*
 * Reads the first record of r and checks it against the n column names:
 * *data_out is false when it is that header, true when headerless is
 * allowed and it is a data row of n fields (the caller then reads it
 * first). Sets r's column names. Errors: an empty file, a header that is
 * neither (quoting what it found and what was expected).
 */
int gs_conv_header(struct gs_csv *r, const char *const *cols, int n, bool headerless,
		   bool *data_out);

/* What gs_conv_rows() calls for each data row of a table, fields checked for count. */
typedef int (*gs_conv_row_fn)(struct gs_conv *cv, struct gs_csv *r, void *arg);

/*
 * Reads every data row of r (opened, nothing read yet) with fn: the
 * header check of gs_conv_header(), then each row (the first one too when
 * the file has no header) checked for n fields and given to fn. *rows_out
 * (may be NULL) gets the number of data rows. Returns 0 or fn's error.
 */
int gs_conv_rows(struct gs_conv *cv, struct gs_csv *r, const char *const *cols, int n,
		 bool headerless, gs_conv_row_fn fn, void *arg, size_t *rows_out);

/*
 * Reads o->machines, a machine list of n columns cols (headerless: also
 * without its header), with fn for each row; fn's arg is the set of the
 * node names so far, for gs_conv_node(). Counts the rows in the report
 * and notes the models the nodes have. 0 or fn's error.
 */
int gs_conv_machines(struct gs_conv *cv, const char *const *cols, int n, bool headerless,
		     gs_conv_row_fn fn);

/* gpusim's name for the trace's model name through map, or name itself when map lacks it. */
const char *gs_conv_model_name(const struct gs_conv_model_map *map, const char *name);

/*
 * Field col of r as a decimal number (digits, an optional fraction and
 * exponent; no blanks, '+', hexadecimal, inf or nan) in [min, max]. When
 * optional, an empty field or "NaN" (as pandas writes a missing value)
 * leaves *out alone and sets *present false. GS_EPARSE with the readers'
 * wording otherwise.
 */
int gs_conv_number(struct gs_csv *r, int col, double min, double max, bool optional,
		   double *out, bool *present);

/* The same for a text value (a JSON string), reported by w and field. */
int gs_conv_number_text(const struct gs_where *w, const char *field, const char *text,
			double min, double max, double *out);

/*
 * Seconds from the clock's zero to 1970-01-01 00:00 UTC: the clock starts
 * a day before the year 0, so that every time a log can write is positive
 * and -1 stays free to mean "none". Only differences of times are used.
 */
#define GS_CONV_CLOCK_1970 INT64_C(62167305600)

/*
 * A date and time as the job logs write it, "YYYY-MM-DD HH:MM:SS" (or a
 * date alone, its midnight) with an optional fraction of a second (dropped)
 * and an optional zone ("Z", "+08:00", "+0800"), into seconds on the clock
 * above (UTC; a time without a zone is taken as UTC, which only matters
 * across a daylight-saving change). An empty text, "None", "NaN" or "NaT"
 * is absent: *present false, *out untouched. Returns 0 or GS_EPARSE
 * ("'...' is not a date and time (YYYY-MM-DD [HH:MM:SS]...)").
 */
int gs_conv_datetime_text(const struct gs_where *w, const char *field, const char *text,
			  int64_t *out, bool *present);

/* gs_conv_datetime_text() on field col of r. */
int gs_conv_datetime(struct gs_csv *r, int col, int64_t *out, bool *present);

/* Seconds (a decimal, possibly with a fraction) rounded to the nearest second. */
int64_t gs_conv_round_s(double s);

/*
 * A GPU request of `gpus` GPUs (0 none, 0.5 half of one, 2 two whole
 * ones) into p's num_gpu and gpu_milli: below 1, one GPU at that share
 * (at least 1 milli); a whole number, that many GPUs; above 1 and not
 * whole, the next whole number of GPUs (*rounded_up set). More than
 * GS_MAX_GPUS is an error for field.
 */
int gs_conv_gpus(const struct gs_where *w, const char *field, double gpus, struct gs_pod *p,
		 bool *rounded_up);

/*
 * A job's pod times from its submit, start and end times (end given when
 * has_end): created at submit, leaving end - start seconds later. An end
 * before the start leaves at submit and a job without an end never leaves,
 * each noted, the latter as running_note (how the trace marks it). Lowers
 * *t0 (-1: none yet) to submit.
 */
void gs_conv_job_times(struct gs_conv *cv, int64_t submit, int64_t start, int64_t end,
		       bool has_end, const char *running_note, struct gs_pod *p, int64_t *t0);

/* Cores (vCPUs) into milli-cores, an error for field past GS_CPU_MILLI_MAX. */
int gs_conv_cpu(const struct gs_where *w, const char *field, double cores, int32_t *out);

/* Memory in GiB (the traces' GB) into MiB, an error for field past GS_MIB_MAX. */
int gs_conv_mem(const struct gs_where *w, const char *field, double gib, int64_t *out);

/*
 * The GPU model `model` (gpusim's name) into the cluster's table with its
 * memory: the --model-mem override given under the trace's name `trace`,
 * else `dflt_mib` (> 0) when the built-in table does not already have the
 * model, else the built-in figure. Returns the model's index, or
 * GS_EPARSE (table full) with a message for field.
 */
int gs_conv_model(struct gs_conv *cv, const struct gs_where *w, const char *field,
		  const char *trace, const char *model, int64_t dflt_mib);

/*
 * Resolves the trace's model name through map (NULL-ended) and
 * gs_conv_model(): a name the map lacks is kept as it is when --model-mem
 * gives its memory, else an error for field naming the known names.
 * *name_out gets gpusim's name (static or the table's). Returns the
 * model's index or GS_EPARSE.
 */
int gs_conv_model_mapped(struct gs_conv *cv, const struct gs_where *w, const char *field,
			 const struct gs_conv_model_map *map, const char *name,
			 const char **name_out);

/* Counts one more record of the kind `what` (a static string) in the report. */
void gs_conv_note(struct gs_conv *cv, const char *what);

/* Counts n more records of the kind `what`. */
void gs_conv_note_n(struct gs_conv *cv, const char *what, size_t n);

/*
 * Checks pod p as the readers do (gs_trace_check_pod()) and resolves spec
 * (gpusim's model name, "" or NULL: any) against the cluster's models.
 * *mask_out and *unknown_out (a model no node has) go to gs_conv_pod().
 */
int gs_conv_check_pod(struct gs_conv *cv, const struct gs_where *w, const struct gs_pod *p,
		      const char *spec, uint32_t *mask_out, bool *unknown_out);

/*
 * Appends one pod called name (a valid name, gs_check_name(), which the
 * caller checks; unique, which this checks) with the mask and spec
 * gs_conv_check_pod() gave, in group (0: none). 0 or a GS_E* code.
 */
int gs_conv_pod(struct gs_conv *cv, const struct gs_where *w, const char *name,
		const struct gs_pod *p, uint32_t model_mask, const char *spec, bool unknown,
		int32_t group);

/*
 * Whether n more pods may be made: at most GS_CONV_MAX_WORKERS for one
 * record and o->max_pods in all. 0 or GS_EPARSE with a message for w.
 */
int gs_conv_room(struct gs_conv *cv, const struct gs_where *w, int64_t n);

/* The number of the pod group called name (a valid name), or a GS_E* code. */
int gs_conv_group(struct gs_conv *cv, const struct gs_where *w, const char *name);

/*
 * a, then sep and b (b NULL: a alone), into buf of len bytes. Returns buf,
 * or NULL when it does not fit. For pod names, cheaper than snprintf().
 */
char *gs_conv_join(char *buf, size_t len, const char *a, char sep, const char *b);

/* base-k (k >= 0) into buf; NULL when it does not fit. */
char *gs_conv_name_k(char *buf, size_t len, const char *base, int64_t k);

/*
 * Appends n pods of request p: one called base when n is 1, else base-0
 * ... base-(n-1), all in the group called base. spec is gpusim's model
 * name the pods are restricted to ("" or NULL: any). Checks the names
 * (unique, valid) and the pod's rules as the readers do. Returns 0 or a
 * GS_E* code with a message for w.
 */
int gs_conv_pods(struct gs_conv *cv, const struct gs_where *w, const char *base, int64_t n,
		 const struct gs_pod *p, const char *spec);

/* Appends a node (gs_trace_add_node()'s checks, names unique in names). */
int gs_conv_node(struct gs_conv *cv, const struct gs_where *w, const struct gs_node_fields *f,
		 struct gs_nameset *names, const char *name, int64_t cpu_milli, int64_t mem_mib,
		 int64_t num_gpu, const char *model);

/*
 * Appends count nodes called PREFIX-0 ... with the given shape. Returns 0
 * or GS_EPARSE/GS_ENOMEM (the allocator's limits, reported against the
 * option that set the shape).
 */
int gs_conv_nodes(struct gs_conv *cv, const char *prefix, int64_t count, int64_t num_gpu,
		  const char *model, int64_t cpu_milli, int64_t mem_mib);

/*
 * The largest sum of weights of the intervals [start[i], end[i]) alive at
 * one moment (end -1: never ends). For sizing a cluster from the trace's
 * peak. Returns 0 or GS_ENOMEM.
 */
int gs_conv_peak(const int64_t *start, const int64_t *end, const double *weight, size_t n,
		 double *peak_out);

/* The node count that holds `need` units of `per_node` each, plus the headroom. */
int64_t gs_conv_count_for(double need, double per_node, double headroom_pct);

/*
 * Builds GPU nodes for the pods made so far (docs/trace-formats-public.md,
 * "built clusters"): o->node_gpus (else dflt_gpus) GPUs of o->node_model
 * (else dflt_model, dflt_mib MiB per card unless --model-mem or the
 * built-in table says otherwise); cores and memory from --node-cpu and
 * --node-mem-gib, else enough for every GPU pod at its ratio of CPU (and
 * memory) per GPU and for the largest pod (CPU-only pods left out when
 * cpu_pods_elsewhere); --node-count nodes, else as many as hold
 * list_gpus GPUs (the machine list's, when > 0), else as many as the
 * trace's peak of GPUs in use (creation, or 0, to deletion) needs plus
 * --headroom percent. Named PREFIX-0, ... Says how in rep->cluster_how.
 */
int gs_conv_build_gpu_nodes(struct gs_conv *cv, const char *prefix, bool cpu_pods_elsewhere,
			    int64_t dflt_gpus, const char *dflt_model, int64_t dflt_mib,
			    double list_gpus);

/*
 * Builds CPU nodes for the CPU-only pods: each as large as the largest
 * CPU and the largest memory request among them, --cpu-node-count of
 * them, else as many as their peak of CPU and of memory in use needs plus
 * the headroom. Appends how to rep->cluster_how. Nothing without CPU pods.
 */
int gs_conv_build_cpu_nodes(struct gs_conv *cv, const char *prefix);

/*
 * Shifts every pod's times by -t0 (the first arrival becomes 0) and
 * records t0 in the report.
 */
void gs_conv_shift(struct gs_conv *cv, int64_t t0);

/* Refuses an option the format does not take: GS_EINVAL naming it. */
int gs_conv_refuse(struct gs_conv *cv, bool given, const char *option, const char *why);

#endif
