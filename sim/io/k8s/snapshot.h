/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.h - reading a Kubernetes cluster's state: `kubectl get
 * nodes,pods -A -o yaml|json` output, workload manifests and the DRA
 * objects (resource.k8s.io/v1), from one file or several.
 *
 * Kinds read: Node, Pod, Deployment, StatefulSet, ReplicaSet, Job (their
 * pods, when the snapshot lacks them), ConfigMap (the NVIDIA device
 * plugin's configuration, when a data key holds one), ResourceSlice,
 * DeviceClass, ResourceClaim, ResourceClaimTemplate; List of any of them.
 * Kinds a cluster dump carries that do not bear on placement (Service,
 * Namespace, DaemonSet, ...) are counted in skipped[] and reported; any
 * other kind is refused. Every refusal reads
 *   "file:line: Kind namespace/name: field.path: what is wrong"
 * (no line for JSON) and the whole read fails with GS_EPARSE: nothing of a
 * bad snapshot is used.
 *
 * Ownership: struct gs_k8s_snapshot is heap-allocated (_new/_free) and
 * owns every object, string and compiled selector it holds.
 */
#ifndef GS_K8S_SNAPSHOT_H
#define GS_K8S_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/k8s/arena.h"
#include "io/k8s/model.h"
#include "io/sha256.h"

#define GS_K8S_SKIP_KINDS 32

/* A kind that was read and deliberately not used, with its count. */
struct gs_k8s_skipped {
	const char *kind;
	int64_t n;
};

/* A workload whose replicas become pods when the snapshot has none of its pods. */
struct gs_k8s_workload {
	struct gs_k8s_origin o;
	const char *uid;
	const char *owner_kind, *owner_name, *owner_uid;  /* a ReplicaSet's Deployment */
	int64_t replicas;
	struct gs_k8s_pod tmpl;       /* the pod template, as a pod */
	bool live;                    /* some pod of the snapshot belongs to it */
};

struct gs_k8s_snapshot {
	struct gs_strpool pool;
	struct gs_arena arena;
	const char *str_cpu, *str_memory;   /* the pool's "cpu" and "memory" */

	struct gs_k8s_node *nodes;
	struct gs_k8s_pod *pods;
	struct gs_k8s_workload *workloads;
	struct gs_k8s_slice *slices;
	struct gs_k8s_class *classes;
	struct gs_k8s_claim *claims;
	struct gs_k8s_template *templates;
	struct gs_k8s_plugin_config *plugin_configs;
	size_t n_nodes, n_pods, n_workloads, n_slices, n_classes, n_claims, n_templates,
		n_plugin_configs;
	size_t cap_nodes, cap_pods, cap_workloads, cap_slices, cap_classes, cap_claims,
		cap_templates, cap_plugin_configs;

	struct gs_k8s_skipped skipped[GS_K8S_SKIP_KINDS];
	int n_skipped;
	int64_t n_finished;           /* Succeeded and Failed pods: they hold nothing */
	int64_t n_expanded;           /* pods made from workloads */

	/* Every compiled CEL selector, one per distinct expression (shared). */
	struct gs_k8s_selector_cel *cels;
	size_t n_cels, cap_cels;

	int32_t *node_by_name;        /* node indices sorted by name (gs_k8s_snapshot_node_at) */
	int32_t *workload_by_uid;     /* workload indices sorted by uid (link.c) */

	char *paths;                  /* the files read, comma-separated (owned) */
	struct gs_sha256 sha;         /* over every file's bytes, in order */
	char sha256[GS_SHA256_HEX];   /* filled by gs_k8s_snapshot_finish() */
	bool finished;
};

/* A new, empty snapshot; NULL when out of memory. */
struct gs_k8s_snapshot *gs_k8s_snapshot_new(void);
/* Frees s and everything it owns; NULL is allowed. */
void gs_k8s_snapshot_free(struct gs_k8s_snapshot *s);

/*
 * Reads one file into s (before gs_k8s_snapshot_finish()). Returns 0,
 * GS_ENOENT or GS_EIO (file), GS_EPARSE (malformed, refused object, with
 * the message in err) or GS_ENOMEM.
 */
int gs_k8s_snapshot_read(struct gs_k8s_snapshot *s, const char *path, char *err,
			 size_t err_len);

/* gs_k8s_snapshot_read() on len bytes of data reported as name. Same returns. */
int gs_k8s_snapshot_read_mem(struct gs_k8s_snapshot *s, const char *name, const char *data,
			     size_t len, char *err, size_t err_len);

/*
 * Ties the objects together once every file is read: pods to their nodes
 * and workloads, workloads without pods expanded into pods, claims and
 * claim templates to pods, requests to device classes, allocated devices
 * to ResourceSlices. Refuses (GS_EPARSE, naming the object and field): a
 * pod bound to a node the snapshot lacks, a claim or template a pod names
 * that is missing, a request naming a missing DeviceClass, an allocation
 * naming a missing device, two objects of one kind with one name, a
 * snapshot without nodes. Returns 0, GS_EPARSE or GS_ENOMEM.
 */
int gs_k8s_snapshot_finish(struct gs_k8s_snapshot *s, char *err, size_t err_len);

/*
 * Writes "file:line: Kind ns/name: field: message" about object o into err
 * (no field part when field is NULL) and returns GS_EPARSE: the one shape
 * of every refusal of a snapshot.
 */
int gs_k8s_errf(char *err, size_t err_len, const struct gs_k8s_origin *o, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* gs_k8s_errf() into the err and err_len fields of the context b. */
#define GS_K8S_BERR(b, ...) gs_k8s_errf((b)->err, (b)->err_len, __VA_ARGS__)

/* Formats "file:line: Kind ns/name" (no line when 0, no "ns/" when cluster-scoped) into buf. */
char *gs_k8s_origin_format(const struct gs_k8s_origin *o, char *buf, size_t len);

/* The index of the node called name, or -1 (binary search once finished, linear before). */
int32_t gs_k8s_snapshot_node_at(const struct gs_k8s_snapshot *s, const char *name);

/* The label value of a node, or NULL. */
const char *gs_k8s_node_label(const struct gs_k8s_node *n, const char *key);

/* The allocatable quantity of an extended resource on a node, or NULL. */
const struct gs_quantity *gs_k8s_node_ext(const struct gs_k8s_node *n, const char *name);

/* The request of an extended resource of a pod, or NULL. */
const struct gs_quantity *gs_k8s_pod_ext(const struct gs_k8s_pod *p, const char *name);

#endif
