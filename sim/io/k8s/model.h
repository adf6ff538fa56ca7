/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.h - a Kubernetes snapshot in memory: the nodes, pods and Dynamic
 * Resource Allocation (resource.k8s.io/v1) objects read from kubectl
 * output and manifests, reduced to what scheduling needs.
 *
 * read_core.c fills the nodes, pods and workloads, read_dra.c the DRA
 * objects, snapshot.c ties them together (owners, claims, classes) and
 * build.c turns the whole into a gpusim cluster. Every object remembers
 * the file and line it came from, so a refusal can name it. Names follow
 * the Kubernetes API: a field called nodeName there is node_name here.
 *
 * Ownership: everything hangs off struct gs_k8s_snapshot; strings live in
 * its string pool, arrays in its arena, and die with gs_k8s_snapshot_free().
 */
#ifndef GS_K8S_MODEL_H
#define GS_K8S_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/sharing.h"
#include "io/k8s/quantity.h"

struct gs_cel;

/* Where an object came from: file, line (0 for JSON), kind, namespace/name. */
struct gs_k8s_origin {
	const char *file;
	int32_t line;
	const char *kind;        /* "Pod", "Node", "ResourceClaim", ... */
	const char *ns;          /* "" for cluster-scoped objects */
	const char *name;
};

struct gs_k8s_kv {
	const char *key, *value;
};

/* An extended resource (anything but cpu and memory) and its amount. */
struct gs_k8s_res {
	const char *name;
	struct gs_quantity q;
};

enum gs_k8s_effect {
	GS_K8S_EFFECT_ANY = 0,        /* a toleration without an effect */
	GS_K8S_EFFECT_NO_SCHEDULE,
	GS_K8S_EFFECT_PREFER_NO_SCHEDULE,
	GS_K8S_EFFECT_NO_EXECUTE,
	GS_K8S_EFFECT_NONE,           /* DRA device taints only */
};

struct gs_k8s_taint {
	const char *key, *value;
	uint8_t effect;               /* enum gs_k8s_effect */
};

struct gs_k8s_toleration {
	const char *key, *value;      /* key "" with Exists: every taint */
	uint8_t exists;               /* operator Exists (else Equal) */
	uint8_t effect;               /* GS_K8S_EFFECT_ANY: every effect */
};

/* A node selector requirement's operator. */
enum gs_k8s_op {
	GS_K8S_OP_IN = 0,
	GS_K8S_OP_NOT_IN,
	GS_K8S_OP_EXISTS,
	GS_K8S_OP_DOES_NOT_EXIST,
	GS_K8S_OP_GT,
	GS_K8S_OP_LT,
};

struct gs_k8s_expr {
	const char *key;
	uint8_t op;                   /* enum gs_k8s_op */
	int32_t n_values;
	const char **values;
};

/* One nodeSelectorTerm: all of its expressions must hold. */
struct gs_k8s_term {
	int32_t n;
	struct gs_k8s_expr *exprs;
};

/* A NodeSelector: any of its terms; an empty one (n == 0) selects every node. */
struct gs_k8s_selector {
	int32_t n;
	struct gs_k8s_term *terms;
};

/* --- nodes ------------------------------------------------------------------ */

struct gs_k8s_node {
	struct gs_k8s_origin o;
	int32_t n_labels, n_taints, n_ext;
	struct gs_k8s_kv *labels;
	struct gs_k8s_taint *taints;
	struct gs_k8s_res *ext;       /* status.allocatable's extended resources */
	int64_t cpu_milli;            /* status.allocatable */
	int64_t mem_mib;
	bool unschedulable;           /* spec.unschedulable (cordoned) */
	const char *hami_register;    /* annotation hami.io/node-nvidia-register */
};

/* --- pods -------------------------------------------------------------------- */

enum gs_k8s_phase {
	GS_K8S_PHASE_PENDING = 0,
	GS_K8S_PHASE_RUNNING,
	GS_K8S_PHASE_SUCCEEDED,
	GS_K8S_PHASE_FAILED,
	GS_K8S_PHASE_UNKNOWN,
};

/* A pod's spec.resourceClaims entry. */
struct gs_k8s_claim_ref {
	const char *name;             /* the entry's name, used by containers */
	const char *claim;            /* resourceClaimName, or the claim made from the template */
	const char *tmpl;             /* resourceClaimTemplateName, or NULL */
	struct gs_k8s_claim *c;       /* resolved by snapshot.c */
};

struct gs_k8s_pod {
	struct gs_k8s_origin o;
	const char *owner_kind;       /* the workload it was expanded from, or its controller */
	const char *owner_name;
	const char *owner_uid;
	const char *uid;
	const char *node_name;        /* spec.nodeName, NULL when unscheduled */
	uint8_t phase;                /* enum gs_k8s_phase */
	bool from_workload;           /* expanded from a Deployment, Job, ... (no status) */
	bool terminating;             /* metadata.deletionTimestamp is set */
	int64_t t_create_s;           /* metadata.creationTimestamp, Unix seconds; -1 none */
	int64_t t_start_s;            /* status.startTime; -1 none */
	/* Requests as Kubernetes counts them (init containers, sidecars, overhead). */
	int64_t cpu_milli, mem_mib;
	int32_t n_ext;
	struct gs_k8s_res *ext;
	/* Node selection: nodeSelector AND the required node affinity. */
	int32_t n_node_selector;
	struct gs_k8s_kv *node_selector;
	struct gs_k8s_selector affinity;
	bool has_affinity;            /* required node affinity given */
	int32_t n_tolerations;
	struct gs_k8s_toleration *tolerations;
	int32_t n_claims;
	struct gs_k8s_claim_ref *claims;
	/*
	 * What gpusim cannot model for this pod, as "field: reason" (NULL when
	 * nothing): only refused when the pod has to be placed, as a running
	 * pod's constraints are already met.
	 */
	const char *unsupported;
};

/* --- Dynamic Resource Allocation (resource.k8s.io/v1) ------------------------- */

enum gs_k8s_attr_type {
	GS_K8S_ATTR_INT = 0,
	GS_K8S_ATTR_BOOL,
	GS_K8S_ATTR_STRING,
	GS_K8S_ATTR_VERSION,
};

/* A device attribute; name is fully qualified (domain/id), the driver's domain filled in. */
struct gs_k8s_attr {
	const char *name;
	uint8_t type;                 /* enum gs_k8s_attr_type */
	bool b;
	int64_t i;
	const char *s;                /* string and version */
};

/*
 * Whether qname, the fully qualified name of an attribute or a capacity
 * (domain/id), is id under domain, or under any domain when domain is
 * NULL. Inline: device selection and CEL look names up per device.
 */
static inline bool gs_k8s_qname_is(const char *qname, const char *domain, const char *id)
{
	const char *slash;
	size_t dl;

	if (!domain) {
		slash = strrchr(qname, '/');
		return slash && strcmp(slash + 1, id) == 0;
	}
	dl = strlen(domain);
	return strncmp(qname, domain, dl) == 0 && qname[dl] == '/' && strcmp(qname + dl + 1, id) == 0;
}

/* A device capacity with its requestPolicy (DRAConsumableCapacity). */
struct gs_k8s_cap {
	const char *name;             /* fully qualified */
	struct gs_quantity value;
	bool has_default, has_range, has_max, has_step;
	struct gs_quantity def, min, max, step;
	int32_t n_valid;
	struct gs_quantity *valid;    /* validValues, ascending */
};

struct gs_k8s_counter {
	const char *name;
	struct gs_quantity value;
};

struct gs_k8s_counter_set {
	const char *name;
	int32_t n;
	struct gs_k8s_counter *c;
};

/* A device's consumesCounters entry. */
struct gs_k8s_consumption {
	const char *set;
	int32_t n;
	struct gs_k8s_counter *c;
};

struct gs_k8s_device {
	const char *name;
	int32_t line;
	int32_t n_attrs, n_caps, n_consumes, n_taints;
	struct gs_k8s_attr *attrs;
	struct gs_k8s_cap *caps;
	struct gs_k8s_consumption *consumes;
	struct gs_k8s_taint *taints;
	bool multi;                   /* allowMultipleAllocations */
	const char *node_name;        /* perDeviceNodeSelection: the device's nodeName */
	bool all_nodes;
};

/* The device's attribute called id under domain (any domain when NULL), or NULL. */
static inline const struct gs_k8s_attr *gs_k8s_device_attr(const struct gs_k8s_device *dev,
							   const char *domain, const char *id)
{
	int32_t i;

	for (i = 0; i < dev->n_attrs; i++)
		if (gs_k8s_qname_is(dev->attrs[i].name, domain, id))
			return &dev->attrs[i];
	return NULL;
}

/* The device's capacity called id under domain (any domain when NULL), or NULL. */
static inline const struct gs_k8s_cap *gs_k8s_device_cap(const struct gs_k8s_device *dev,
							 const char *domain, const char *id)
{
	int32_t i;

	for (i = 0; i < dev->n_caps; i++)
		if (gs_k8s_qname_is(dev->caps[i].name, domain, id))
			return &dev->caps[i];
	return NULL;
}

struct gs_k8s_slice {
	struct gs_k8s_origin o;
	const char *driver, *pool;
	int64_t generation, slice_count;
	const char *node_name;        /* spec.nodeName */
	bool all_nodes, per_device;
	bool has_node_selector;
	struct gs_k8s_selector node_selector;
	int32_t n_devices, n_sets;
	struct gs_k8s_device *devices;
	struct gs_k8s_counter_set *sets;
};

/* An opaque config (NVIDIA's GpuConfig / MigDeviceConfig) as gpusim reads it. */
struct gs_k8s_config {
	const char *driver;
	int32_t n_requests;           /* the requests it applies to; 0: all */
	const char **requests;
	const char *kind;             /* parameters.kind */
	bool has_sharing;
	struct gs_share_cfg sharing;  /* TimeSlicing -> timeslice, MPS -> mps */
};

struct gs_k8s_selector_cel {
	const char *expr;
	struct gs_cel *cel;           /* compiled (cel.h) */
};

struct gs_k8s_class {
	struct gs_k8s_origin o;
	int32_t n_selectors, n_configs;
	struct gs_k8s_selector_cel *selectors;
	struct gs_k8s_config *configs;
};

enum gs_k8s_mode {
	GS_K8S_EXACT_COUNT = 0,
	GS_K8S_ALL,
};

/* An exactly request or one of a firstAvailable list's subrequests. */
struct gs_k8s_subrequest {
	const char *name;
	const char *class_name;
	const struct gs_k8s_class *cls;   /* resolved by snapshot.c */
	int32_t n_selectors, n_cap_requests, n_tolerations;
	struct gs_k8s_selector_cel *selectors;
	uint8_t mode;                     /* enum gs_k8s_mode */
	bool admin;                       /* adminAccess */
	int64_t count;
	struct gs_k8s_res *cap_requests;  /* capacity.requests (names fully qualified later) */
	struct gs_k8s_toleration *tolerations;
};

struct gs_k8s_request {
	const char *name;
	bool first_available;             /* else exactly: sub[0] */
	int32_t n_sub;
	struct gs_k8s_subrequest *sub;
};

struct gs_k8s_constraint {
	int32_t n_requests;
	const char **requests;            /* empty: every request */
	const char *match;                /* matchAttribute, or NULL */
	const char *distinct;             /* distinctAttribute, or NULL */
};

struct gs_k8s_claim_spec {
	int32_t n_requests, n_constraints, n_configs;
	struct gs_k8s_request *requests;
	struct gs_k8s_constraint *constraints;
	struct gs_k8s_config *configs;
};

/* One allocated device of a claim's status.allocation. */
struct gs_k8s_result {
	const char *request;              /* "req" or "req/sub" */
	const char *driver, *pool, *device;
	int32_t n_consumed;
	struct gs_k8s_res *consumed;      /* consumedCapacity */
};

struct gs_k8s_claim {
	struct gs_k8s_origin o;
	struct gs_k8s_claim_spec spec;
	bool allocated;
	int32_t n_results, n_reserved;
	struct gs_k8s_result *results;
	const char **reserved;            /* status.reservedFor pod names */
	const char *from_template;        /* made by gpusim from this template for a pod */
	int32_t users;                    /* pods of the snapshot that reference it */
};

struct gs_k8s_template {
	struct gs_k8s_origin o;
	struct gs_k8s_claim_spec spec;
};

/* The device plugin configuration found in a ConfigMap (one key of its data). */
struct gs_k8s_plugin_config {
	struct gs_k8s_origin o;
	const char *key;                  /* the data key: nodes select it by label */
	int32_t n;
	const char **resources;           /* sharing...resources[].name */
	int32_t *replicas;
	const char **renames;             /* rename, or NULL */
	uint8_t strategy;                 /* GS_SHARE_TIMESLICE or GS_SHARE_MPS */
	bool rename_by_default;
};

#endif
