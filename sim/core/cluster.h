/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster.h - the cluster model and the allocator that owns its state.
 *
 * A cluster is an array of nodes. Each node has CPU (milli-cores), memory
 * (MiB) and up to GS_MAX_GPUS GPUs of one model. Each GPU tracks its free
 * compute share in milli-GPU (1000 = a whole GPU) and its free memory in MiB.
 *
 * The allocator is the single owner of this state: only gs_cluster_bind()
 * and gs_cluster_unbind() change free resources. Policies and metrics read
 * the structs directly but never write them. Everything here is plain C99
 * with no dependency beyond libc, so the simulator and the CUDA benchmark
 * harness link the very same code.
 *
 * Ownership: a struct gs_cluster is caller-owned (_init/_release); it owns
 * its node array and node names.
 */
#ifndef GS_CLUSTER_H
#define GS_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpu_model.h"

#define GS_MAX_GPUS 16        /* GPUs per node */
#define GS_MILLI_PER_GPU 1000

struct gs_node {
	int32_t cpu_milli;        /* capacity */
	int32_t cpu_free_milli;
	int64_t mem_mib;          /* capacity */
	int64_t mem_free_mib;
	int32_t num_gpu;
	int32_t model;            /* index into gs_cluster.models, -1 when num_gpu == 0 */
	int32_t gpu_free_milli[GS_MAX_GPUS];
	int64_t gpu_mem_free_mib[GS_MAX_GPUS];

	/* Derived, maintained by the allocator; policies may read them. */
	int32_t gpu_free_total_milli; /* sum of gpu_free_milli */
	int32_t gpu_free_max_milli;   /* largest gpu_free_milli, 0 without GPUs */
	int32_t gpu_whole_free;       /* GPUs with gpu_free_milli == 1000 */
	int32_t n_pods;               /* pods bound to this node */
};

/* A pod's request. Times are in seconds; -1 when the trace has none. */
struct gs_pod {
	int32_t cpu_milli;
	int64_t mem_mib;
	int32_t num_gpu;
	int32_t gpu_milli;     /* per GPU; below 1000 only when num_gpu == 1 */
	int64_t gpu_mem_mib;   /* per GPU, 0 = not requested (gpushare aliyun.com/gpu-mem) */
	uint32_t model_mask;   /* bit i: model i of the cluster allowed; 0 = any model */
	int64_t t_create_s;
	int64_t t_delete_s;
};

/* Where a pod runs: the node and, for GPU pods, which GPUs. */
struct gs_placement {
	int32_t node;
	int32_t num_gpu;
	uint8_t gpu[GS_MAX_GPUS];
};

struct gs_cluster {
	struct gs_node *nodes;
	char **node_names;        /* owned; one string per node */
	int32_t n_nodes;
	int32_t cap_nodes;
	struct gs_models models;

	/* Totals over all nodes, maintained by the allocator. */
	int64_t cpu_milli, cpu_free_milli;
	int64_t mem_mib, mem_free_mib;
	int64_t gpu_count;
	int64_t gpu_milli, gpu_free_milli;  /* gpu_milli = gpu_count * 1000 */
	int64_t gpus_in_use;                /* GPUs with any allocation */
	int64_t n_pods;

	bool check;  /* verify invariants after every bind/unbind */
};

/*
 * Why a pod does not fit on a node, in the order the filters run. The first
 * failing filter is reported, as kube-scheduler reports one reason per node.
 */
#define GS_FIT_MAP(X)                                  \
	X(OK, "fits")                                  \
	X(CPU, "Insufficient cpu")                     \
	X(MEM, "Insufficient memory")                  \
	X(MODEL, "GPU model not allowed")              \
	X(GPU_COUNT, "Insufficient GPUs")              \
	X(GPU_SHARE, "Insufficient GPU share")         \
	X(GPU_MEM, "Insufficient GPU memory")

enum gs_fit {
#define GS_FIT_ENUM(name, msg) GS_FIT_##name,
	GS_FIT_MAP(GS_FIT_ENUM)
#undef GS_FIT_ENUM
	GS_FIT__COUNT
};

const char *gs_fit_str(enum gs_fit f);

/* Lifecycle. _init fills the built-in model table and an empty node list. */
void gs_cluster_init(struct gs_cluster *c);
void gs_cluster_release(struct gs_cluster *c);

/*
 * Copies src into dst (dst must be initialised, its old contents are
 * released). Used to start many runs from one parsed cluster.
 * Returns 0 or GS_ENOMEM (dst is then left empty).
 */
int gs_cluster_copy(struct gs_cluster *dst, const struct gs_cluster *src);

/*
 * Appends a node with all resources free. model may be NULL or "" only when
 * num_gpu == 0; an unknown model name is added to the table with 0 MiB of
 * memory per GPU (GPU memory requests then never fit: override the model's
 * memory from a cluster file). Returns the node index or GS_EINVAL /
 * GS_ERANGE / GS_ENOMEM. The name is copied.
 */
int gs_cluster_add_node(struct gs_cluster *c, const char *name, int32_t cpu_milli,
			int64_t mem_mib, int32_t num_gpu, const char *model);

/* Returns the node index with this name, or -1. Linear search. */
int gs_cluster_find_node(const struct gs_cluster *c, const char *name);

/* Checks that a pod request is well-formed (not that it fits anywhere). */
bool gs_pod_valid(const struct gs_pod *p);

/* True when the pod asks for no GPU. */
static inline bool gs_pod_cpu_only(const struct gs_pod *p)
{
	return p->num_gpu == 0 || p->gpu_milli == 0;
}

/* Total GPU request of a pod in milli-GPU: num_gpu * gpu_milli. */
static inline int64_t gs_pod_gpu_milli(const struct gs_pod *p)
{
	return (int64_t)p->num_gpu * p->gpu_milli;
}

/* True when node n's model is in the pod's allowed set. */
static inline bool gs_node_model_ok(const struct gs_node *n, const struct gs_pod *p)
{
	if (p->model_mask == 0)
		return true;
	return n->model >= 0 && (p->model_mask >> n->model) & 1u;
}

/* True when GPU i of node n can take one GPU's worth of pod p. */
static inline bool gs_gpu_fits(const struct gs_node *n, int i, const struct gs_pod *p)
{
	return n->gpu_free_milli[i] >= p->gpu_milli &&
	       n->gpu_mem_free_mib[i] >= p->gpu_mem_mib;
}

/*
 * The filter: does pod p fit on node `node`? Returns GS_FIT_OK or the first
 * failing reason. A 1-GPU pod needs one GPU with enough free share (and
 * memory, if asked); a k-GPU pod needs k GPUs that can each take gpu_milli
 * (for whole-GPU pods: k fully free GPUs).
 */
enum gs_fit gs_cluster_fits(const struct gs_cluster *c, int32_t node, const struct gs_pod *p);

/*
 * Commits a placement: subtracts the pod's request from the node and the
 * chosen GPUs. Validates everything first and changes nothing on error:
 * GS_EINVAL for a bad node or GPU index, a repeated GPU or a GPU count that
 * differs from the pod's; GS_ENOFIT when a resource would go negative.
 * With c->check set, verifies all invariants afterwards (GS_ECHECK).
 */
int gs_cluster_bind(struct gs_cluster *c, const struct gs_pod *p, const struct gs_placement *pl);

/*
 * Returns a bound pod's resources. The placement must be the one bind
 * accepted; GS_EINVAL if returning it would exceed a capacity.
 */
int gs_cluster_unbind(struct gs_cluster *c, const struct gs_pod *p, const struct gs_placement *pl);

/*
 * Verifies that no resource is over-committed or negative and that the
 * derived fields and totals add up. On failure returns GS_ECHECK and, when
 * msg is not NULL, writes a one-line description into msg.
 */
int gs_cluster_check(const struct gs_cluster *c, char *msg, size_t msg_len);

/* Recomputes a node's derived fields from its GPU array. */
void gs_node_refresh(struct gs_node *n);

#endif
