/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build.h - a Kubernetes snapshot as a gpusim cluster: its nodes with the
 * GPUs and sharing modes their device plugins publish, the pods running
 * on them bound as the starting state, the pending pods as a trace (the
 * queue), and the rules Kubernetes uses to decide which nodes a pod may
 * use (labels, taints, resource names, DRA claims).
 *
 * How a node's GPUs are read (the first that applies):
 *   DRA        its ResourceSlices (io/k8s/dra.h): one GPU per counter set
 *              or device, sharing from a claim's GpuConfig
 *   HAMi       annotation hami.io/node-nvidia-register: one GPU per
 *              healthy device, mode vgpu
 *   gpushare   aliyun.com/gpu-count GPUs of aliyun.com/gpu-mem / count
 *              (GiB, or MiB when a card would exceed 512 GiB), mode ideal
 *              (memory is what gpushare schedules by)
 *   MIG mixed  nvidia.com/mig-<profile> instances packed onto the node's
 *              MIG GPUs as fixed layouts, nvidia.com/gpu whole GPUs beside
 *              them (exclusive); profiles from gpusim's MIG tables
 *   plugin     nvidia.com/gpu (or nvidia.com/gpu.shared, or a rename from
 *              the plugin's config): replicas and strategy from the labels
 *              GPU feature discovery sets (nvidia.com/gpu.replicas,
 *              nvidia.com/gpu.sharing-strategy, nvidia.com/gpu.count), else
 *              from the device plugin's ConfigMap (the key the node's
 *              nvidia.com/device-plugin.config label names, or the only
 *              one); time-slicing -> timeslice, mps -> mps, none ->
 *              exclusive
 * The GPU model is gpusim's name for nvidia.com/gpu.product (without
 * -SHARED) when its memory agrees with nvidia.com/gpu.memory, else the
 * product itself with that memory.
 *
 * A pod's GPU request: nvidia.com/gpu k -> k whole GPUs (a replica each on
 * a shared GPU); nvidia.com/mig-<p> k -> k instances of profile p;
 * aliyun.com/gpu-mem m -> one GPU, m of its memory and the same share of
 * the largest gpushare card; with HAMi's nvidia.com/gpumem (MiB),
 * nvidia.com/gpumem-percentage and nvidia.com/gpucores (percent) -> k
 * vGPUs of that memory and share. Running pods (and pods with a nodeName)
 * are bound where they are; pending ones are queued, arriving at their
 * creationTimestamp relative to the earliest (0 without one), and never
 * leave (a snapshot does not say how long they run).
 *
 * Ownership: struct gs_k8s_state is heap-allocated (gs_k8s_build() /
 * gs_k8s_state_free()); it borrows the snapshot, which must outlive it.
 */
#ifndef GS_K8S_BUILD_H
#define GS_K8S_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/k8s/dra.h"
#include "io/k8s/snapshot.h"
#include "io/trace/trace.h"

/* How a node's GPUs are published. */
enum gs_k8s_gpu_kind {
	GS_K8S_GPU_NONE = 0,
	GS_K8S_GPU_PLUGIN,
	GS_K8S_GPU_MIG,
	GS_K8S_GPU_GPUSHARE,
	GS_K8S_GPU_HAMI,
	GS_K8S_GPU_DRA,
};

/* "device-plugin", "mig-mixed", "gpushare", "hami", "dra", "-" (static). */
const char *gs_k8s_gpu_kind_str(int kind);

/* What build made of one node (same index in the snapshot and the cluster). */
struct gs_k8s_node_gpu {
	uint8_t kind;              /* enum gs_k8s_gpu_kind */
	const char *resource;      /* the extended resource pods ask for ("nvidia.com/gpu", ...) */
	const char *product;       /* nvidia.com/gpu.product or the DRA productName, or NULL */
	int32_t replicas;          /* plugin sharing replicas, 1 without */
	const char *source;        /* where the sharing setting came from ("labels", a ConfigMap) */
	char note[160];            /* what else a reader should know ("2 MIG GPUs empty", ...) */
};

/* What build did with one pod of the snapshot. */
enum gs_k8s_role {
	GS_K8S_ROLE_RUNNING = 0,   /* bound in the starting state */
	GS_K8S_ROLE_QUEUED,        /* in the queue trace */
	GS_K8S_ROLE_FINISHED,      /* Succeeded or Failed: holds nothing */
};

struct gs_k8s_state {
	const struct gs_k8s_snapshot *s;
	struct gs_k8s_node_gpu *nodes;      /* [s->n_nodes] */
	uint8_t *role;                      /* [s->n_pods], enum gs_k8s_role */
	struct gs_pod *req;                 /* [s->n_pods]: the request as gpusim counts it */
	struct gs_placement *pl;            /* [s->n_pods]: where running pods are */
	int32_t *queue;                     /* snapshot index of each queued pod, in trace order */
	size_t n_queue, n_running;
	int64_t t0_s;                       /* Unix time of arrival 0, -1 when no pod has one */
	struct gs_dra *dra;                 /* NULL without ResourceSlices */
	/* Node groups and selection classes, as gs_cluster_set_select() received them. */
	int32_t *node_group;
	int32_t n_groups, n_sel, cap_sel;
	uint8_t *ok;
	int32_t *claims;
	char **sel_key;                     /* [n_sel]: what each class selects by (owned) */
	int32_t sel_trace_gpu, sel_trace_cpu; /* classes of pods from gpusim traces, 0 until used */
	int64_t gpushare_unit_mib;          /* 1024 (GiB) or 1 (MiB) */
	int64_t gpushare_card_mib, hami_card_min_mib, hami_card_max_mib;
};

/*
 * Builds cluster c (initialised and empty) and queue (initialised and
 * empty; its pods named "namespace/name") from finished snapshot s, and
 * binds the running pods. Returns 0 and *state_out, or GS_EPARSE with a
 * message naming the object and field (a node whose GPUs cannot be read,
 * a pod that asks for what gpusim cannot express or whose constraints are
 * unsupported and must be placed, a running pod that does not fit its
 * node), GS_ERANGE (more than 32 GPU models, 65535 selection classes) or
 * GS_ENOMEM. On failure c and queue are left empty.
 */
int gs_k8s_build(const struct gs_k8s_snapshot *s, struct gs_cluster *c, struct gs_trace *queue,
		 struct gs_k8s_state **state_out, char *err, size_t err_len);

/*
 * Gives the pods of trace t (a gpusim trace loaded on cluster c after the
 * build) the selection Kubernetes would give them: a GPU pod may use the
 * nodes that publish GPUs as extended resources (not DRA), tolerating the
 * taints keyed by those resources as the ExtendedResourceToleration
 * admission plugin makes it; a CPU pod the nodes without NoSchedule or
 * NoExecute taints; neither a cordoned node. Updates c's selection.
 * Returns 0, GS_ERANGE or GS_ENOMEM with a message in err.
 */
int gs_k8s_select_trace(struct gs_k8s_state *st, struct gs_cluster *c, struct gs_trace *t,
			char *err, size_t err_len);

/*
 * Reads the n snapshot files in order (gs_k8s_snapshot_read()), finishes
 * the snapshot and builds c, queue and the state (gs_k8s_build()). On
 * success *snap_out and *state_out are the caller's (free the state
 * first); on failure nothing is left allocated, c and queue are empty.
 * Returns 0 or the first error, with its message in err.
 */
int gs_k8s_load(const char *const *paths, size_t n, struct gs_k8s_snapshot **snap_out,
		struct gs_cluster *c, struct gs_trace *queue, struct gs_k8s_state **state_out,
		char *err, size_t err_len);

/*
 * Appends the pods of a gpusim trace `extra` (loaded on cluster c after
 * the build) to the queue, after the snapshot's pending pods, with the
 * selection gs_k8s_select_trace() gives them. Returns 0 or GS_ENOMEM.
 */
int gs_k8s_queue_add(struct gs_k8s_state *st, struct gs_cluster *c, struct gs_trace *queue,
		     struct gs_trace *extra, char *err, size_t err_len);

/* The DRA state of a built cluster, or NULL without DRA. */
const struct gs_dra_state *gs_k8s_dra_state(const struct gs_k8s_state *st,
					    const struct gs_cluster *c);

/* Frees st; NULL is allowed. */
void gs_k8s_state_free(struct gs_k8s_state *st);

#endif
