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
 * GPU sharing (core/sharing.h): every GPU has a mode. Without any, the
 * cluster has no sharing state at all (share == NULL) and every GPU is
 * "ideal", gpusim's behaviour before the sharing model: a pod's share and
 * memory are accounted as requested. With modes, the allocator accounts
 * each pod as its GPU's mode makes it cost (a whole GPU under exclusive, a
 * replica under timeslice and mps, a MIG instance under mig): the filter,
 * bind and unbind take the pod's own request and translate it per GPU.
 *
 * Ownership: a struct gs_cluster is caller-owned (_init/_release); it owns
 * its node array, node names and sharing state.
 */
#ifndef GS_CLUSTER_H
#define GS_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpu_model.h"
#include "core/mig.h"
#include "core/sharing.h"

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
	/*
	 * Node group (core/cluster_select.c): nodes whose labels, taints and
	 * resource names admit the same pods; 0 in clusters without groups.
	 */
	int32_t group;
};

/* A pod's request. Times are in seconds; -1 when the trace has none. */
struct gs_pod {
	int32_t cpu_milli;
	int16_t wclass;        /* workload class: 0 = none, k = the trace's class k - 1 */
	/*
	 * The sharing model's view of the pod (engine/sharing.h), milli; 0 =
	 * unset: busy_milli, the share of its running time it keeps the GPU
	 * busy (unset: the run's --busy, 1000 by default); compute_milli, the
	 * share of its GPU work that scales with SMs, the rest with memory
	 * bandwidth (unset: GS_COMPUTE_DEFAULT_MILLI).
	 */
	int16_t busy_milli;
	int16_t compute_milli;
	/*
	 * Selection class (core/cluster_select.c): which node groups may take
	 * the pod and which devices it claims; 0 = any node, nothing claimed.
	 */
	uint16_t sel;
	int64_t mem_mib;
	int32_t num_gpu;
	int32_t gpu_milli;     /* per GPU; below 1000 only when num_gpu == 1 */
	int64_t gpu_mem_mib;   /* per GPU, 0 = not requested (gpushare aliyun.com/gpu-mem) */
	uint32_t model_mask;   /* bit i: model i of the cluster allowed; 0 = any model */
	/*
	 * Share of each GPU the pod needs to run at the speed of its trace
	 * duration, milli-GPU; 0 = gpu_milli (the sharing model's default).
	 */
	int32_t need_milli;
	int64_t t_create_s;
	int64_t t_delete_s;
};

/*
 * The share of a pod's GPU work that scales with SMs when its compute
 * fraction is unset: 900, the value that fits the MIG figures of the
 * sharing validation set best (docs/sharing-model.md).
 */
#define GS_COMPUTE_DEFAULT_MILLI 900

/* A pod's need in milli-GPU per GPU (need_milli, or gpu_milli when unset). */
static inline int32_t gs_pod_need_milli(const struct gs_pod *p)
{
	return p->need_milli ? p->need_milli : p->gpu_milli;
}

/*
 * Where a pod runs: the node and, for GPU pods, which GPUs. On a MIG GPU
 * also which instance: mig[i] is its first memory slice + 1 (0 on GPUs of
 * other modes); gs_cluster_share_pick() fills it.
 */
struct gs_placement {
	int32_t node;
	int32_t num_gpu;
	uint8_t gpu[GS_MAX_GPUS];
	uint8_t mig[GS_MAX_GPUS];
};

#define GS_MAX_SHARE_CFGS 32   /* distinct sharing settings in one cluster */

/* One GPU's sharing mode and state. */
struct gs_gpu_share {
	uint8_t cfg;               /* index into gs_cluster.share_cfg */
	uint8_t mode;              /* that config's mode, repeated for speed */
	uint8_t pods;              /* pods bound to this GPU */
	int8_t mig_cap;            /* MIG: largest profile that can still be placed, -1 none */
	struct gs_mig_gpu mig;     /* MIG: the instances */
};

/* The sharing state of one node. */
struct gs_node_share {
	uint8_t mode;              /* the GPUs' common mode, or GS_SHARE_MIXED */
	uint8_t cfg;               /* their common config (when not mixed) */
	int8_t mig_table;          /* gs_mig_table_at() index of the node's model, -1 if none */
	int8_t mig_cap_max;        /* largest mig_cap of the node's MIG GPUs, -1 if none */
	uint8_t combo;             /* index into gs_cluster.share_combo; 0xff: mixed or no GPUs */
	struct gs_gpu_share gpu[GS_MAX_GPUS];
};

/*
 * What of a node's sharing state gs_cluster_fits() and gs_cluster_node_pod()
 * read: two nodes whose struct gs_node (but the pod count) and key are
 * equal are filtered and costed alike for every pod, whatever their MIG
 * instances' layout or pods per GPU, so the scheduler's index may group
 * them. The GPUs past the node's are zero: compare keys with memcmp().
 * The GPUs' own fields are filled on MIG and mixed nodes only (elsewhere
 * every GPU has the node's config and no mig_cap is read): zero on others.
 */
struct gs_node_share_key {
	uint8_t mode, cfg, combo;
	int8_t mig_table, mig_cap_max;
	uint8_t gpu_cfg[GS_MAX_GPUS];  /* per GPU: its config (and so its mode) */
	int8_t gpu_mig_cap[GS_MAX_GPUS]; /* per GPU: mig_cap */
	uint8_t pad[3];
};

#define GS_MAX_SHARE_COMBOS 64  /* distinct (config, GPU model) pairs of uniform nodes */

/*
 * What the devices an external allocator hands out (core/cluster_select.c)
 * take from a node's GPUs, per GPU index: milli-GPU and MiB.
 */
struct gs_devices_use {
	int32_t gpu_milli[GS_MAX_GPUS];
	int64_t gpu_mem_mib[GS_MAX_GPUS];
};

/*
 * An allocator of devices that pods claim by name rather than by amount
 * (Kubernetes Dynamic Resource Allocation, io/k8s/dra.h). A pod's claim
 * set is gs_select.claims[pod->sel] (1-based, 0 = none). The allocator
 * keeps its own state, one per cluster copy; the cluster owns it.
 */
struct gs_devices_ops {
	/*
	 * 0 when claim set `claims` can be allocated on node now, else nonzero;
	 * on 0, *use gets what a bind would take, so that the cluster refuses
	 * in the filter what it would refuse in the bind.
	 */
	int (*fits)(void *state, int32_t node, int32_t claims, struct gs_devices_use *use);
	/* Allocates the set on node (0, or GS_ENOFIT changing nothing); *use gets what it takes. */
	int (*bind)(void *state, int32_t node, int32_t claims, struct gs_devices_use *use);
	/* Gives a bound set back; *use gets what returns to the GPUs. 0 or GS_EINVAL. */
	int (*unbind)(void *state, int32_t node, int32_t claims, struct gs_devices_use *use);
	/* A copy of state for another cluster copy, or NULL when out of memory. */
	void *(*clone)(const void *state);
	/* Frees a state. */
	void (*free)(void *state);
};

/* Node groups and selection classes (core/cluster_select.c). */
struct gs_select {
	int32_t n_groups;     /* node groups, 0 .. n_groups - 1 */
	int32_t n_sel;        /* selection classes, 0 .. n_sel - 1 (0 admits every node) */
	uint8_t *ok;          /* [sel * n_groups + group]: 1 when the class may use the group */
	int32_t *claims;      /* [sel]: the class's claim set for the devices allocator, 0 none */
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
	uint64_t version;  /* bumped by every successful bind and unbind */

	/*
	 * Sharing: NULL when every GPU is ideal; else one entry per node.
	 * share_cfg[0] is always the unset ("default") config.
	 */
	struct gs_node_share *share;
	struct gs_share_cfg share_cfg[GS_MAX_SHARE_CFGS];
	int32_t n_share_cfg;
	/*
	 * The (config, model) pairs of nodes whose GPUs share one config, and
	 * a node of each: a pod costs the same on all such nodes, so the
	 * scheduler works it out once per pair (gs_cluster_share_demand()).
	 */
	int32_t share_combo_node[GS_MAX_SHARE_COMBOS];
	int32_t n_share_combos;

	bool check;  /* verify invariants after every bind/unbind */

	/* Node selection; NULL when every pod may use every node. Owned. */
	struct gs_select *select;
	/* The devices allocator and its state (owned); NULL without one. */
	const struct gs_devices_ops *dev_ops;
	void *dev_state;
};

/*
 * Why a pod does not fit on a node, in the order the filters run. The first
 * failing filter is reported, as kube-scheduler reports one reason per node.
 */
#define GS_FIT_MAP(X)                                  \
	X(OK, "fits")                                  \
	X(SELECTOR, "didn't match Pod's node selector, taints or resources") \
	X(CPU, "Insufficient cpu")                     \
	X(MEM, "Insufficient memory")                  \
	X(MODEL, "GPU model not allowed")              \
	X(GPU_COUNT, "Insufficient GPUs")              \
	X(GPU_SHARE, "Insufficient GPU share")         \
	X(GPU_MEM, "Insufficient GPU memory")          \
	X(MPS_MEM, "GPU memory above the MPS pinned limit") \
	X(MIG_PROFILE, "No MIG profile covers the request") \
	X(MIG_SLOT, "No free MIG slot for the profile") \
	X(DEVICES, "cannot allocate all claims")

enum gs_fit {
#define GS_FIT_ENUM(name, msg) GS_FIT_##name,
	GS_FIT_MAP(GS_FIT_ENUM)
#undef GS_FIT_ENUM
	GS_FIT__COUNT
};

/* A static, lower-case reason for f, as the "0/N nodes are available" text uses it; "unknown" out of range. */
const char *gs_fit_str(enum gs_fit f);

/* Lifecycle. _init fills the built-in model table and an empty node list. */
void gs_cluster_init(struct gs_cluster *c);
/* Frees the nodes, names and sharing state of c and leaves it as gs_cluster_init() does. */
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
 * memory from a cluster file). Returns the node index, GS_EINVAL,
 * GS_ERANGE (more than GS_MAX_GPUS GPUs, memory above GS_MIB_MAX, or a
 * cluster whose total memory would pass INT64_MAX MiB) or GS_ENOMEM. The
 * name is copied.
 */
int gs_cluster_add_node(struct gs_cluster *c, const char *name, int32_t cpu_milli,
			int64_t mem_mib, int32_t num_gpu, const char *model);

/* Returns the node index with this name, or -1. Linear search. */
int gs_cluster_find_node(const struct gs_cluster *c, const char *name);

/* Bitmask of the models some node of c with GPUs has. */
uint32_t gs_cluster_model_mask(const struct gs_cluster *c);

/* Checks that a pod request is well-formed (not that it fits anywhere). */
bool gs_pod_valid(const struct gs_pod *p);

/* A pod's duration in the trace: deletion - creation, 0 if negative, -1 for never leaving. */
int64_t gs_pod_duration_s(const struct gs_pod *p);

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

/* True when the pod's selection class admits node n's group. */
static inline bool gs_node_sel_ok(const struct gs_cluster *c, const struct gs_node *n,
				  const struct gs_pod *p)
{
	const struct gs_select *s = c->select;

	return !p->sel || !s || s->ok[(size_t)p->sel * (size_t)s->n_groups + (size_t)n->group];
}

/* The claim set of a pod for the devices allocator (0: it claims nothing). */
static inline int32_t gs_pod_claims(const struct gs_cluster *c, const struct gs_pod *p)
{
	return p->sel && c->select && c->dev_ops ? c->select->claims[p->sel] : 0;
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
 * The last filter: GS_FIT_OK when pod p claims no devices or the devices
 * allocator can allocate its claims on node now, else GS_FIT_DEVICES.
 */
enum gs_fit gs_cluster_claims_fit(const struct gs_cluster *c, int32_t node, const struct gs_pod *p);

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

/* --- selection and devices (core/cluster_select.c) ------------------------- */

/*
 * Gives the cluster its node groups and selection classes: node i is in
 * group node_group[i] (0 .. n_groups - 1); class k (1 .. n_sel - 1) may
 * use group g when ok[k * n_groups + g]; claims[k] is its claim set for
 * the devices allocator (NULL: none). Class 0 admits everything. The
 * arrays are copied. Once pods are bound, only classes may be added (the
 * groups and the existing classes' pods stay valid). Returns 0,
 * GS_EINVAL (a group out of range, groups changed under bound pods, more
 * than 65536 classes) or GS_ENOMEM.
 */
int gs_cluster_set_select(struct gs_cluster *c, const int32_t *node_group, int32_t n_groups,
			  const uint8_t *ok, const int32_t *claims, int32_t n_sel);

/*
 * Hands the cluster a devices allocator and its state (the cluster frees
 * the state with ops->free, and copies it with ops->clone). Replaces and
 * frees a previous one. Returns 0 or GS_EINVAL (pods already bound).
 */
int gs_cluster_set_devices(struct gs_cluster *c, const struct gs_devices_ops *ops, void *state);

/* --- sharing (core/cluster_share.c) --------------------------------------- */

/*
 * Checks, without changing c, that cfg can be the default of every GPU the
 * cluster leaves unset (gs_cluster_share_default()): a MIG layout made of
 * one model's profiles that fits each MIG GPU, an MPS pinned limit within
 * each card. A MIG layout must be valid for some MIG model even when no
 * node has one. Returns 0 or GS_EINVAL with a message naming the node.
 */
int gs_cluster_share_check(const struct gs_cluster *c, const struct gs_share_cfg *cfg,
			   char *err, size_t err_len);

/*
 * Gives GPU `gpu` of node `node` (or all its GPUs when gpu is -1) the mode
 * and settings cfg. The node must have GPUs and no pods. MIG needs a model
 * with MIG profiles (core/mig.h); a fixed layout is created at once.
 * Returns 0, or GS_EINVAL / GS_ERANGE (too many distinct settings) /
 * GS_ENOMEM with a message in err.
 */
int gs_cluster_set_share(struct gs_cluster *c, int32_t node, int gpu,
			 const struct gs_share_cfg *cfg, char *err, size_t err_len);

/*
 * Gives every GPU whose mode is unset (all of them when the cluster file
 * set none) the run's default cfg. A default of mig gives GPUs whose model
 * has no MIG profiles exclusive instead, as a real cluster leaves them
 * whole; *n_exclusive (may be NULL) gets how many. Afterwards no GPU is
 * unset; when every GPU is ideal the sharing state is dropped again.
 * Returns 0 or the error of gs_cluster_set_share().
 */
int gs_cluster_share_default(struct gs_cluster *c, const struct gs_share_cfg *cfg,
			     int32_t *n_exclusive, char *err, size_t err_len);

/* The settings of one GPU (the ideal config when the cluster has no sharing). */
const struct gs_share_cfg *gs_cluster_gpu_share(const struct gs_cluster *c, int32_t node,
						int gpu);

/* The common mode of a node's GPUs, GS_SHARE_MIXED, or GS_SHARE_IDEAL without sharing. */
int gs_cluster_node_mode(const struct gs_cluster *c, int32_t node);

/*
 * A node's modes as a cluster file writes them: "" when unset (or the
 * cluster has no sharing), one spec when all its GPUs share it, else one
 * spec per GPU joined by '|'. MIG layouts are the configured ones, not the
 * instances of the moment. Returns buf.
 */
char *gs_cluster_node_share_text(const struct gs_cluster *c, int32_t node, char *buf, size_t len);

/* The MIG table of a node's model, or NULL. */
const struct gs_mig_table *gs_cluster_mig_table(const struct gs_cluster *c, int32_t node);

/*
 * The request of pod p as the GPUs of `node` account it when they share
 * one mode: the pod itself (ideal, vgpu, CPU-only pods, mixed nodes), or
 * *tmp filled with the translated request (a whole GPU for exclusive, a
 * replica for timeslice and mps, the covering profile's share and memory
 * for mig). Policies score nodes with it. Never fails; a pod that can
 * never fit has already been rejected by gs_cluster_fits().
 */
const struct gs_pod *gs_cluster_node_pod(const struct gs_cluster *c, int32_t node,
					 const struct gs_pod *p, struct gs_pod *tmp);

/*
 * What pod p costs on the GPUs of nodes that share one sharing config and
 * GPU model, the same on all of them: why no such GPU can ever take it (GS_FIT_OK
 * when one can), the MIG profile (-1 elsewhere), and the request the
 * policies see. The scheduler computes it once per combination
 * (gs_cluster_share_combo()) and pick.
 */
struct gs_share_demand {
	enum gs_fit why;
	int prof;
	struct gs_pod eff;
};

/* The combination index of a node (gs_cluster.share_combo_node), or -1 for mixed and CPU nodes. */
static inline int gs_cluster_share_combo(const struct gs_cluster *c, int32_t node)
{
	uint8_t k = c->share[node].combo;

	return k == 0xff ? -1 : k;
}

/* Fills *d for pod p on node (which must have a combination). */
void gs_cluster_share_demand(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			     struct gs_share_demand *d);

/* Fills *k with node's sharing key (struct gs_node_share_key); c must have sharing modes. */
void gs_cluster_share_key(const struct gs_cluster *c, int32_t node, struct gs_node_share_key *k);

/* gs_cluster_fits() with the node's demand already computed. */
enum gs_fit gs_cluster_fits_demand(const struct gs_cluster *c, int32_t node,
				   const struct gs_pod *p, const struct gs_share_demand *d);

/* True when the allocator itself chooses the GPUs on this node (MIG and mixed nodes). */
bool gs_cluster_share_picks(const struct gs_cluster *c, int32_t node);

/*
 * Chooses the GPUs of a node that fits p, where gs_cluster_share_picks()
 * is true: for a 1-GPU pod the fitting GPU with the least room (MIG: the
 * share of the largest instance it can still place; others: the free
 * share), ties
 * to the lowest index; otherwise the first fitting GPUs by index. Fills
 * the MIG instance of each MIG GPU (gs_mig_choose()).
 */
void gs_cluster_share_pick(const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
			   struct gs_placement *pl);

/*
 * Fills pl->mig for the MIG GPUs of a placement whose GPUs are already in
 * pl (gs_cluster_share_pick() calls it; so can a caller that chose the
 * GPUs itself). Returns 0 or GS_ENOFIT when a MIG GPU has no room.
 */
int gs_cluster_share_assign(const struct gs_cluster *c, const struct gs_pod *p,
			    struct gs_placement *pl);

#endif
