/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace.h - a pod trace in memory: the pods in arrival-file order, their
 * names, where they came from and the audit of suspicious records.
 *
 * load.h reads traces (and clusters) from files, write.h writes them.
 *
 * Ownership: struct gs_trace is caller-owned (_init/_release) and owns its
 * arrays and strings.
 */
#ifndef GS_TRACE_H
#define GS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/sha256.h"

/* Counts of legal but suspicious records, reported after loading. */
struct gs_trace_audit {
	size_t deleted_before_created; /* t_delete_s < t_create_s: runs for 0 s */
	size_t no_deletion_time;       /* never leaves */
	size_t larger_than_any_node;   /* fits on no node even when the cluster is empty */
	size_t unknown_model;          /* gpu_spec names a model no node has */
};

#define GS_MAX_CLASSES 32      /* distinct workload classes in one trace */

struct gs_nameset;
#define GS_CLASS_NAME_MAX 32   /* with the NUL: [a-z0-9_.-], 1 to 31 characters */

struct gs_trace {
	struct gs_pod *pods;
	char **pod_names;   /* one owned string per pod */
	/*
	 * One per pod, owned: the gpu_spec as written in the file ("V100M16|V100M32"),
	 * NULL where the pod has none. The FGD reference groups pod kinds by this
	 * text (frag.h, GS_KINDS_BY_SPEC), so it is kept besides model_mask.
	 */
	char **pod_specs;
	size_t n_pods;
	size_t cap_pods;
	char *path;         /* owned copy of the path read */
	char sha256[GS_SHA256_HEX]; /* of the file's bytes */
	const char *format; /* static string: "openb", "openb-multigpu", "csv", "json", ... */
	struct gs_trace_audit audit;
	/* Workload classes named by the pods (gs_pod.wclass k is classes[k - 1]). */
	char classes[GS_MAX_CLASSES][GS_CLASS_NAME_MAX];
	int n_classes;
	/*
	 * Pod groups (gangs): the pods of a group are placed all together or
	 * not at all (engine/replay.h says how a group waits). pod_group is
	 * NULL while no pod is in a group; else one entry per pod (capacity
	 * cap_pods), 0 for none and k for group k, named group_names[k - 1].
	 */
	int32_t *pod_group;
	char **group_names;                /* owned, n_groups strings */
	int32_t n_groups;
	int32_t cap_groups;
	struct gs_nameset *group_index;    /* owned: group name -> number */
};

/* Makes t an empty trace (no pods, no path, nothing owned). */
void gs_trace_init(struct gs_trace *t);
/* Frees t's pods, names, specs and path and leaves it as gs_trace_init() does. */
void gs_trace_release(struct gs_trace *t);

/*
 * Appends one pod (the name is copied). Returns 0 or GS_ENOMEM.
 */
int gs_trace_append(struct gs_trace *t, const char *name, const struct gs_pod *p);

/*
 * The same with the pod's gpu_spec as written (copied; NULL or "" for
 * none), which must name the models of p->model_mask. Returns 0 or
 * GS_ENOMEM.
 */
int gs_trace_append_spec(struct gs_trace *t, const char *name, const struct gs_pod *p,
			 const char *spec);

/*
 * The class number (1..) of the workload class called name, added to t's
 * table when new. Returns it, GS_EINVAL for a bad name (empty, too long,
 * characters outside [a-z0-9_.-]) or GS_ERANGE when the table is full.
 */
int gs_trace_class(struct gs_trace *t, const char *name);

/* The name of class k of t ("" for 0, the unset class). */
const char *gs_trace_class_name(const struct gs_trace *t, int k);

/*
 * The number (1..) of the pod group called name, added to t's table when
 * new (the name is copied; the caller checks it is a valid name). Returns
 * it, GS_ERANGE past INT32_MAX groups, or GS_ENOMEM.
 */
int gs_trace_group(struct gs_trace *t, const char *name);

/* Puts pod i of t in group g (1..n_groups; 0 takes it out). Returns 0 or GS_ENOMEM. */
int gs_trace_set_group(struct gs_trace *t, size_t i, int32_t g);

/* The group of pod i (0 for none). */
static inline int32_t gs_trace_pod_group(const struct gs_trace *t, size_t i)
{
	return t->pod_group ? t->pod_group[i] : 0;
}

/* The name of group g of t ("" for 0). */
const char *gs_trace_group_name(const struct gs_trace *t, int32_t g);

#endif
