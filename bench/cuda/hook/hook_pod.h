/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_pod.h - libgpushare's accounting of the pod's device memory in the
 * pod region, failing closed.
 *
 * The wrappers of hook.c ask here before the driver allocates (reserve),
 * and give back what the driver freed or refused (cancel). Every step
 * first checks that the pod region is still the one this process opened
 * and intact (gs_region_check). When it was deleted, replaced, zeroed or
 * truncated to nothing, the process opens the region at its path again,
 * attaches, and carries over what it holds on each device, so that the
 * pod's total is right again and a process started afterwards sees it;
 * when that is impossible (a region of another layout, a file cut short),
 * allocations are refused until it is. Either way one line on stderr says
 * what happened. Memory is never granted without being accounted: a
 * device that cannot be identified (no UUID) or that finds the region's
 * device table full is refused too.
 *
 * Devices are named here by their CUDA ordinal in this process; the
 * region knows them by UUID. A "dev" handed out by gs_hook_pod_reserve
 * is such an ordinal, or -1 when nothing was accounted.
 *
 * Thread-safe. Not async-signal-safe. State is per process: after fork
 * the child calls gs_hook_pod_atfork_child() and opens its own.
 */
#ifndef GS_HOOK_POD_H
#define GS_HOOK_POD_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/*
 * Settles this process's limits with its pod's (region.h,
 * gs_pod_limits_settle): the families of limits cfg->given names must be
 * the pod's, the others are taken from the pod into *cfg; a process that
 * gives none finds its pod's region (it creates none) or fails. Then,
 * when *cfg limits memory on some device, attaches this process to the
 * pod region for accounting. cfg must outlive the library's use (static
 * storage). Returns 0, or a GS_E* code with a message in err (the library
 * then refuses to run).
 */
int gs_hook_pod_open(struct gs_share_config *cfg, char *err, size_t err_len);

/* True when memory is accounted (some device has a limit). */
int gs_hook_pod_on(void);

/*
 * Reserves bytes on device ordinal (-1: the current context's) before
 * the driver is asked. Returns CUDA_SUCCESS with the device to give back
 * to in *dev_out (-1 when nothing was accounted: no limit on it, or zero
 * bytes), CUDA_ERROR_OUT_OF_MEMORY (over the limit, or the region or the
 * device cannot be accounted: logged), or the driver's error when there
 * is no current device.
 */
CUresult gs_hook_pod_reserve(uint64_t bytes, int ordinal, int *dev_out);

/* Gives back bytes reserved on dev (an ordinal from _reserve; -1: nothing). */
void gs_hook_pod_cancel(uint64_t bytes, int dev);

/*
 * The pod's limit and use on device ordinal (-1: the current context's),
 * for cuMemGetInfo and NVML; dead peers are not counted. *limit_out is 0
 * when the device has no limit. When the use cannot be known (region
 * unusable, device unidentified), *used_out is the limit: nothing is free.
 */
void gs_hook_pod_info(int ordinal, uint64_t *limit_out, uint64_t *used_out);

/*
 * The same for the device with this UUID (NVML names devices so): the
 * limit the pod's processes registered for it, else its CUDA ordinal's
 * limit in this process (when the driver is loaded and knows the device),
 * else the smallest of the pod's limits; the use, 0 when no process of the
 * pod has used it.
 */
void gs_hook_pod_info_by_uuid(const uint8_t uuid[16], uint64_t *limit_out, uint64_t *used_out);

/* The memory limit on device ordinal (0: none). */
uint64_t gs_hook_pod_limit(int ordinal);

/* pthread_atfork prepare handler: takes hook_pod.c's locks so that no fork splits an update. */
void gs_hook_pod_atfork_prepare(void);
/* pthread_atfork parent handler: releases the locks gs_hook_pod_atfork_prepare took. */
void gs_hook_pod_atfork_parent(void);
/* pthread_atfork child handler: closes the parent's pod region, forgets it all, new locks. */
void gs_hook_pod_atfork_child(void);

#endif
