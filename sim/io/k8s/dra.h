/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dra.h - Kubernetes' structured allocator for Dynamic Resource Allocation
 * (k8s.io/dynamic-resource-allocation/structured), for the devices of a
 * snapshot's ResourceSlices and the claims of its pods.
 *
 * The allocator follows the order Kubernetes documents and implements:
 * claims in the pod's order, each claim's requests in order, each
 * request's devices one after another; a firstAvailable request tries
 * its subrequests in order and takes the first that leads to a complete
 * solution; candidate devices are visited pool by pool, slice by slice,
 * device by device, and within one request only in increasing position
 * (combinations, not permutations); the first complete solution wins
 * (depth-first search with backtracking, no scoring). A device without
 * allowMultipleAllocations goes to one request of one claim; shared
 * counters (consumesCounters) are never overcommitted; consumable
 * capacity is rounded up by the capacity's requestPolicy and never
 * exceeds the capacity; matchAttribute and distinctAttribute constraints
 * hold over the devices of the requests they name; devices tainted
 * NoSchedule or NoExecute need a toleration. A claim is allocated whole or
 * not at all, and so is the set of claims of one pod.
 *
 * Kubernetes visits pools in the order of a Go map, which is not
 * defined; gpusim sorts them by driver and pool name so that runs repeat.
 * Slices keep the order of the snapshot's files, devices their order in
 * the slice. Only the newest generation of a pool counts; a pool whose
 * slices are not all in the snapshot (resourceSliceCount) is not used.
 *
 * Where a pod goes is decided above this: the scheduler filters nodes
 * (gs_cluster_fits() asks the allocator whether the pod's claims can be
 * allocated on each node) and gpusim's placement policy scores the
 * feasible ones, as kube-scheduler's plugins score the nodes its DRA
 * filter leaves; on the chosen node the allocator picks the devices.
 *
 * Each node's GPUs in gpusim's accounting are the "units" of its devices:
 * a counter set (the partitionable form of a GPU and its MIG slices), or
 * devices sharing a uuid/parentUUID attribute, or a device on its own. An
 * allocated device takes from its unit the fraction of the counters it
 * consumes (multiprocessors, else memory), or for a device allocated many
 * times the fraction of its capacity that the allocation consumes.
 *
 * Ownership: struct gs_dra is heap-allocated (_new/_free) and borrows the
 * snapshot; its states (gs_dra_state_new/_free, cloned per cluster copy)
 * borrow the gs_dra.
 */
#ifndef GS_K8S_DRA_H
#define GS_K8S_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/k8s/snapshot.h"

#define GS_DRA_RESULTS_MAX 32   /* allocated devices per claim (AllocationResultsMaxSize) */

struct gs_dra;
struct gs_dra_state;

/*
 * Builds the allocator's view of snapshot s (finished) for the nodes of
 * s, in their order: pools, devices, counters, GPU units, which devices
 * each request's selectors admit (evaluating every selector on every
 * device, as an allocation would). Returns 0 or GS_EPARSE / GS_ENOMEM
 * with a message naming the object and field: a device allocated in a
 * claim's status that no slice has, a counter set a device consumes that
 * its pool lacks, a CEL runtime error, more than GS_MAX_GPUS units on a
 * node, a claim with adminAccess (not modelled).
 */
int gs_dra_new(const struct gs_k8s_snapshot *s, struct gs_dra **out, char *err, size_t err_len);
/* Frees d; NULL is allowed. */
void gs_dra_free(struct gs_dra *d);

/* The GPU units of node: how many, and each one's product name and memory (MiB, 0 unknown). */
int32_t gs_dra_units(const struct gs_dra *d, int32_t node, const char **product,
		     int64_t *mem_mib, int32_t max);

/*
 * Registers a pod's claims as a claim set (the snapshot's claim indices,
 * in the pod's order). Returns its number (1-based; equal sets share
 * one), or a negative GS_E* code.
 */
int32_t gs_dra_claim_set(struct gs_dra *d, const int32_t *claims, int32_t n);

/* The index of snapshot claim c in s->claims. */
int32_t gs_dra_claim_index(const struct gs_dra *d, const struct gs_k8s_claim *c);

/*
 * A state with every claim the snapshot shows allocated already allocated
 * (its devices, counters and capacity taken). Returns 0, or GS_EPARSE with
 * a message when the snapshot's allocations overcommit a device or a
 * counter, or GS_ENOMEM.
 */
int gs_dra_state_new(const struct gs_dra *d, struct gs_dra_state **out, char *err,
		     size_t err_len);

/* The operations through which a gs_cluster drives a state (core/cluster.h). */
extern const struct gs_devices_ops gs_dra_ops;

/* Whether claim c (snapshot index) is allocated in st, on which node (-1: no node). */
bool gs_dra_claim_allocated(const struct gs_dra_state *st, int32_t c, int32_t *node_out);

/*
 * The i-th device allocated to claim c: fills the request name ("gpu" or
 * "gpu/small" for a firstAvailable subrequest) and the device's driver,
 * pool and name. Returns false when i is past the last.
 */
bool gs_dra_claim_result(const struct gs_dra_state *st, int32_t c, int32_t i,
			 const char **request, char *request_buf, size_t buf_len,
			 const char **driver, const char **pool, const char **device);

/* What claim c's devices take from the GPUs of its node (zeros when it is not allocated). */
void gs_dra_claim_use(const struct gs_dra_state *st, int32_t c, struct gs_devices_use *use);

/* Pods of the state that use claim c now. */
int32_t gs_dra_claim_users(const struct gs_dra_state *st, int32_t c);

/* The sharing strategy of claim c's opaque configuration (GpuConfig), or NULL without one. */
const struct gs_share_cfg *gs_dra_claim_sharing(const struct gs_dra *d, int32_t c);

/* The GPU unit of a device on its node, -1 when it has none (a device of all nodes). */
int32_t gs_dra_device_unit(const struct gs_dra *d, const char *driver, const char *pool,
			   const char *device, int32_t *node_out);

/* Frees a state; NULL is allowed. */
void gs_dra_state_free(struct gs_dra_state *st);

#endif
