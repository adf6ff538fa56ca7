/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_mem.h - what libgpushare's memory routes share (hook_mem.c,
 * hook_pool.c, hook_vmm.c, hook_array.c, hook_graph.c, hook_ctx.c): the
 * two halves of an allocation (reserve before the driver is asked, then
 * remember what to give back or give it back at once), and the calls
 * between routes. Include after hook_internal.h. Hidden, like it.
 *
 * What is charged, and until when, route by route:
 *   plain (hook_mem.c)   cuMemAlloc, cuMemAllocPitch (with its padding),
 *       cuMemAllocManaged: the bytes, until cuMemFree.
 *   pools (hook_pool.c)  stream-ordered allocations: what their pool holds.
 *   VMM (hook_vmm.c)     cuMemCreate: the physical size, until released and
 *       unmapped.
 *   arrays (hook_array.c) their size as memsize.h rounds it up.
 *   graphs (hook_graph.c) memory nodes, from the node's creation while
 *       the graph lives, then as the device's graph pool keeps them.
 *   contexts (hook_ctx.c) GPUSHARE_CONTEXT_RESERVE_MIB each.
 * Each file's head says the details. Every route charges the device its
 * memory is on, whichever is current. Not counted: what no call reports
 * (the context's own memory beyond the reserve; static __device__ memory
 * of loaded modules, whose size no call gives: bench/cuda/README.md says
 * why), host memory, and handles imported from another process. A "dev"
 * below is a CUDA ordinal handed out by gs_hook_pod_reserve, or -1 when
 * nothing was charged.
 */
#ifndef GS_HOOK_MEM_H
#define GS_HOOK_MEM_H

#include "hook_internal.h"
#include "hook_pod.h"

/*
 * The first half of an allocation: the library ready, then bytes
 * reserved on ordinal (-1: the current device). *dev_out is -1 unless
 * something was charged. Returns CUDA_SUCCESS or what the call must return.
 */
GS_HIDDEN CUresult gs_mem_begin(uint64_t bytes, int ordinal, int *dev_out);

/*
 * The second half: when the driver said yes (rc CUDA_SUCCESS) and handed
 * out key (non-zero), remembers in map that key holds bytes on dev;
 * otherwise gives the bytes back. Returns rc.
 */
GS_HIDDEN CUresult gs_mem_end(CUresult rc, struct gs_ptrmap *map, uint64_t key, uint64_t bytes,
			      int dev);

/* The key an allocation returned through out, or 0 when rc failed or out is NULL. */
#define GS_MEM_KEY(rc, out) ((rc) == CUDA_SUCCESS && (out) ? (uint64_t)(uintptr_t)*(out) : 0)

/*
 * The body of a wrapper whose allocation returns one handle through out:
 * bytes reserved on ordinal (-1: the current device), the driver asked
 * (call), the handle remembered in map or the bytes given back.
 */
#define GS_MEM_ALLOC(map, out, bytes, ordinal, call)                                   \
	do {                                                                           \
		uint64_t bytes_;                                                       \
		int dev_;                                                              \
		CUresult rc_ = gs_hook_enter();                                        \
									               \
		if (rc_)                                                               \
			return rc_;                                                    \
		bytes_ = (bytes); /* may read the limits: after gs_hook_enter */       \
		rc_ = gs_hook_pod_reserve(bytes_, (ordinal), &dev_);                   \
		if (rc_)                                                               \
			return rc_;                                                    \
		rc_ = (call);                                                          \
		return gs_mem_end(rc_, (map), GS_MEM_KEY(rc_, out), bytes_, dev_);     \
	} while (0)

/*
 * Remembers the entry *e (every field given) in map; when the host is out
 * of memory, gives its bytes back at once and says so (untracked, they
 * could never be returned). Takes gs_state_lock.
 */
GS_HIDDEN void gs_mem_commit_entry(struct gs_ptrmap *map, const struct gs_ptrmap_entry *e);

/* Forgets key in map and gives back the bytes it held, if any. Takes gs_state_lock. */
GS_HIDDEN void gs_mem_release(struct gs_ptrmap *map, uint64_t key);

/* After a free or destroy of key (rc): when it succeeded, gs_mem_release(map, key). Returns rc. */
GS_HIDDEN CUresult gs_mem_freed(CUresult rc, struct gs_ptrmap *map, uint64_t key);

/*
 * After a driver call that changes what an account holds (a free, a
 * destroy, a mapping): when it succeeded (rc CUDA_SUCCESS) and memory is
 * accounted, runs fn_locked(arg) with gs_state_lock held. Returns rc.
 */
GS_HIDDEN CUresult gs_mem_settle(CUresult rc, void (*fn_locked)(const void *arg), const void *arg);

/* Charges bytes on dev (-1 or 0 bytes: nothing). May run under gs_state_lock. */
GS_HIDDEN CUresult gs_mem_charge(int dev, uint64_t bytes);

/* Says that bytes could not be accounted for want of host memory. */
GS_HIDDEN void gs_mem_log_untracked(uint64_t bytes);

/*
 * hook_pool.c: after a free of a device pointer (cuMemFree,
 * cuMemFreeAsync) that returned rc: when it succeeded, its bytes, or what
 * its pool lets go, come back. Returns rc.
 */
GS_HIDDEN CUresult gs_pool_ptr_freed(CUresult rc, CUdeviceptr dptr);

/*
 * hook_graph.c: the graph that stream is being captured into, or 0 when
 * it is not capturing: a stream-ordered allocation into it is a memory
 * node of that graph.
 */
GS_HIDDEN uint64_t gs_graph_capturing(CUstream stream);

/*
 * hook_graph.c: bytes charged on dev (-1: nothing) for a memory node that
 * a capture added to graph; they stay with the graph from now on.
 */
GS_HIDDEN void gs_graph_captured(uint64_t graph, uint64_t bytes, int dev);

/*
 * Each route's state starts empty (static storage, zeroed). After fork the
 * child forgets its parent's (gs_hook_mem_forget): each of these frees what
 * its route held and leaves it empty.
 */
/* hook_pool.c's pools. */
GS_HIDDEN void gs_pool_forget(void);
/* hook_vmm.c's mappings. */
GS_HIDDEN void gs_vmm_forget(void);
/* hook_array.c's arrays. */
GS_HIDDEN void gs_array_forget(void);
/* hook_graph.c's graphs, nodes, executable graphs and graph pools. */
GS_HIDDEN void gs_graph_forget(void);
/* hook_ctx.c's contexts, and a fresh lock for the primary ones. */
GS_HIDDEN void gs_ctx_forget(void);

#endif
