/* SPDX-License-Identifier: Apache-2.0 */
/*
 * internal.h - helpers shared by the trace readers and the generator.
 *
 * Not a public contract: trace.c, trace_openb.c, trace_native.c,
 * read_json.c and gen.c use it. The record-level rules (what makes a node
 * or a pod valid, how a gpu_spec is resolved) live here once, so the CSV
 * and JSON readers report the same problems in the same words; only the
 * location prefix differs:
 *
 *   CSV:   FILE:LINE: column FIELD: MESSAGE
 *   JSON:  FILE: ARRAY[INDEX].FIELD: MESSAGE
 */
#ifndef GS_TRACE_INTERNAL_H
#define GS_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/cluster.h"
#include "io/csv.h"
#include "io/trace/trace.h"

/* Longest pod or node name accepted (a Kubernetes object name). */
#define GS_NAME_MAX 253

/* Where a record came from, for messages. */
struct gs_where {
	const char *file;
	long line;            /* CSV line, or 0 for JSON */
	const char *array;    /* JSON: the array's path, for example "nodes" */
	long index;           /* JSON: the element's index */
	char *err;
	size_t err_len;
};

/* The location of the current CSV record. */
void gs_where_csv(struct gs_where *w, const struct gs_csv *r);

/*
 * Writes the location, then "column FIELD: " (CSV) or ".FIELD: " (JSON)
 * when field is not NULL, then the text. Returns GS_EPARSE.
 */
int gs_where_errorf(const struct gs_where *w, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Checks a pod or node name: 1 to GS_NAME_MAX bytes of well-formed UTF-8,
 * printable, without ',', '"' or '\\' (so every writer can emit it
 * unquoted and every JSON document holding it is valid). Returns 0 or
 * GS_EPARSE with a message for `field`.
 */
int gs_check_name(const struct gs_where *w, const char *field, const char *name);

/*
 * True when len bytes at name make a valid GPU model name: 1 to
 * GS_MODEL_NAME_MAX-1 bytes of well-formed UTF-8, none a space, '|',
 * comma, quote, backslash or control character (DEL included).
 */
bool gs_model_name_ok(const char *name, size_t len);

/* A set of names with the index each was first seen at (open addressing). */
struct gs_nameset {
	const char **keys;    /* borrowed strings */
	long *vals;
	uint32_t *hash;       /* each key's hash: compared before the strings, kept when growing */
	size_t cap;           /* a power of two, or 0 */
	size_t n;
};

/* Makes s an empty set; nothing is allocated before the first add. */
void gs_nameset_init(struct gs_nameset *s);
/* Frees s's table (not the borrowed names) and empties it. */
void gs_nameset_release(struct gs_nameset *s);
/*
 * Adds name with value val (the string must outlive the set). Returns 0, 1
 * if it was already there (*prev_out then holds the first value), or
 * GS_ENOMEM.
 */
int gs_nameset_add(struct gs_nameset *s, const char *name, long val, long *prev_out);
/* True when name is in the set; *val_out (may be NULL) gets its value. */
bool gs_nameset_find(const struct gs_nameset *s, const char *name, long *val_out);

/* Column names of a node record, which differ between the formats. */
struct gs_node_fields {
	const char *name, *cpu_milli, *memory_mib, *num_gpu, *model;
};

extern const struct gs_node_fields gs_openb_node_fields;
extern const struct gs_node_fields gs_native_node_fields;

/*
 * Validates one node record and appends it to c: a unique name (names
 * holds the names seen so far, with their line or index as value; the
 * node's name is added, keyed by the cluster's own copy), a model
 * exactly when num_gpu > 0, a model name that is valid and known to
 * c->models. The numbers must already be range-checked. Returns 0,
 * GS_EPARSE with a message, or GS_ENOMEM.
 */
int gs_trace_add_node(const struct gs_where *w, const struct gs_node_fields *f,
		      struct gs_cluster *c, struct gs_nameset *names, const char *name,
		      int64_t cpu_milli, int64_t mem_mib, int64_t num_gpu, const char *model);

/*
 * Resolves one GPU model name of a pod's gpu_spec (len bytes at name, not
 * NUL-terminated) against models, adding unknown names to the table. Sets
 * the model's bit in *mask and *unknown when no node has it (node_mask).
 * Returns 0 or GS_EPARSE (empty or too long name, bad characters, table
 * full) with a message for the field "gpu_spec" quoting `spec`.
 */
int gs_trace_spec_add(const struct gs_where *w, const char *spec, struct gs_models *models,
		      const char *name, size_t len, uint32_t node_mask, uint32_t *mask,
		      bool *unknown);

/* gs_trace_spec_add() for each '|'-separated name of spec ("" = any model). */
int gs_trace_spec_parse(const struct gs_where *w, const char *spec, struct gs_models *models,
			uint32_t node_mask, uint32_t *mask, bool *unknown);

/*
 * The rules that combine fields of a pod (each field already in range):
 * gpu_milli is 0 exactly when num_gpu is 0, below 1000 only when num_gpu
 * is 1; gpu_mem_mib and gpu_spec only for GPU pods; no deletion time
 * without a creation time. spec is the pod's
 * gpu_spec text for messages ("" if none). Returns 0 or GS_EPARSE.
 */
int gs_trace_check_pod(const struct gs_where *w, const struct gs_pod *p, const char *spec);

/*
 * Finishes a loaded trace: counts the audit (all but unknown_model, which
 * the readers count) against the empty cluster c.
 * Returns 0 or GS_ENOMEM.
 */
int gs_trace_audit(struct gs_trace *t, const struct gs_cluster *c);

/*
 * A node's sharing column or key: "" (unset, the run's default), one spec
 * for all its GPUs, or one per GPU joined by '|' (core/sharing.h). Gives
 * the node its modes (gs_cluster_set_share()). Returns 0 or GS_EPARSE with
 * a message for `field`.
 */
int gs_trace_node_sharing(const struct gs_where *w, const char *field, struct gs_cluster *c,
			  int32_t node, const char *text);

/* A pod's workload class (NULL or "" = none) into p->wclass. 0 or GS_EPARSE. */
int gs_trace_pod_class(const struct gs_where *w, const char *field, struct gs_trace *t,
		       struct gs_pod *p, const char *name);

/*
 * Puts the trace's last pod in the group called name (checked by the
 * caller with gs_check_name()). Returns 0, GS_ERANGE or GS_ENOMEM.
 */
int gs_trace_join_group(struct gs_trace *t, const char *name);

/*
 * One of a pod's sharing-model fields, named by `field`: gpu_need_milli,
 * gpu_busy_milli or gpu_compute_milli (0 = unset; range-checked by the
 * caller), refused on a pod without GPUs. 0 or GS_EPARSE.
 */
int gs_trace_pod_gpu_milli(const struct gs_where *w, const char *field, struct gs_pod *p,
			   int64_t milli);

/*
 * All three sharing-model fields, milli[] as gs_trace_json_gpu_use()
 * reads them, set in that order with gs_trace_pod_gpu_milli(). 0 or
 * GS_EPARSE.
 */
int gs_trace_pod_gpu_use(const struct gs_where *w, struct gs_pod *p, const int64_t milli[3]);

/*
 * The readers, called by gs_load_cluster() and gs_load_trace() with r at
 * the file's first record. Each returns 0, or a negative GS_E* code
 * (GS_EPARSE for bad input, GS_ENOMEM) with a "file:line: ..." message in
 * r's error buffer; what it added to c or t is then for the caller to
 * release.
 */
/* An openb node list (sn, cpu_milli, memory_mib, gpu, model) into c. */
int gs_openb_nodes_read(struct gs_csv *r, struct gs_cluster *c);
/* An openb pod list into t, checked against c; multigpu: the multi-GPU variant's columns. */
int gs_openb_pods_read(struct gs_csv *r, bool multigpu, struct gs_cluster *c,
		       struct gs_trace *t);
/* A gpusim native CSV cluster into c. */
int gs_native_nodes_read(struct gs_csv *r, struct gs_cluster *c);
/* A gpusim native CSV pod trace into t, checked against c. */
int gs_native_pods_read(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t);
/* A gpusim JSON cluster (r holds the whole file) into c. */
int gs_trace_json_cluster_read(struct gs_csv *r, struct gs_cluster *c);
/* A gpusim JSON pod trace (r holds the whole file) into t, checked against c. */
int gs_trace_json_pods_read(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t);

/* Header lines, to detect the format from the first record. */
extern const char *const gs_openb_node_cols[5];
extern const char *const gs_openb_pod_cols[11];
extern const char *const gs_openb_multigpu_cols[5];
extern const char *const gs_native_node_cols[6];   /* the 6th, sharing, is optional */
extern const char *const gs_native_pod_cols[14];   /* the last two, four or five are optional */

/* --- JSON helpers (read_json.c), shared with the generator ----------- */

/*
 * Parses the NUL-terminated text of file `file` (len bytes). On a syntax
 * error returns NULL and writes "FILE:LINE: JSON syntax error near '...'".
 * The caller frees the result with cJSON_Delete().
 */
cJSON *gs_trace_json_parse(const char *file, const char *text, size_t len, char *err,
			   size_t err_len);

/*
 * Checks that obj is an object whose keys are all in allowed (a NULL-ended
 * list; "comment" is always allowed), none repeated. Returns 0 or
 * GS_EPARSE ("unknown key 'x'", "key 'x' appears twice", "expected an
 * object"). w->array/index name obj; field is NULL.
 */
int gs_trace_json_check_keys(const struct gs_where *w, const cJSON *obj,
			     const char *const *allowed);

/*
 * Reads obj[key] as an integer in [min, max]. A missing key (or null, when
 * null_ok) stores dflt when !required, else fails with "missing key". The
 * value must be a JSON number without a fraction; max and min are capped at
 * +-GS_JSON_INT_MAX (2^53-1, what a double holds exactly). Returns 0
 * or GS_EPARSE with the same wording as gs_csv_int(). *present_out (may be
 * NULL) tells whether the key held a number.
 */
int gs_trace_json_int(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
		      int64_t min, int64_t max, int64_t dflt, int64_t *out, bool *present_out);

/*
 * Reads a pod's request, the keys a trace's pods and a generator's shapes
 * share, into p: cpu_milli and memory_mib (required), num_gpu, gpu_milli
 * (default 1000 with a GPU, else 0) and gpu_mem_mib, each in the range
 * the CSV readers allow. Returns 0 or GS_EPARSE (the first bad key, in
 * that order); p's other fields are left alone.
 */
int gs_trace_json_pod_request(const struct gs_where *w, const cJSON *obj, struct gs_pod *p);

/*
 * Reads the sharing-model keys a trace's pods and a generator's shapes
 * share into milli[]: gpu_need_milli (0 to 1000), gpu_busy_milli and
 * gpu_compute_milli (1 to 1000), 0 when absent. Returns 0 or GS_EPARSE
 * (the first bad key, in that order).
 */
int gs_trace_json_gpu_use(const struct gs_where *w, const cJSON *obj, int64_t milli[3]);

/* Reads obj[key] as a finite number in [min, max]. Same conventions. */
int gs_trace_json_double(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
			 double min, double max, double dflt, double *out, bool *present_out);

/* Reads obj[key] as a string (borrowed from obj). NULL when absent and !required. */
int gs_trace_json_string(const struct gs_where *w, const cJSON *obj, const char *key, bool required,
			 const char **out);

/*
 * Reads a gpu_spec value: a '|'-separated string, an array of strings, or
 * null/absent (any model). Same contract as gs_trace_spec_parse(); the
 * spec text for messages is written to spec_buf.
 */
int gs_trace_json_spec(const struct gs_where *w, const cJSON *obj, const char *key,
		       struct gs_models *models, uint32_t node_mask, uint32_t *mask, bool *unknown,
		       char *spec_buf, size_t spec_len);

/*
 * Reads "gpu_models" and "nodes" of a JSON cluster object into c (which is
 * empty). extra lists further top-level keys the caller handles (NULL-
 * ended, may be NULL). Returns 0, GS_EPARSE or GS_ENOMEM.
 */
int gs_trace_json_cluster_parse(const char *file, const cJSON *root, const char *const *extra,
				struct gs_cluster *c, char *err, size_t err_len);

#endif
