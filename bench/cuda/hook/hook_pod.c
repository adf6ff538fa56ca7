/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_pod.c - the pod's device memory in the pod region, failing closed
 * (see hook_pod.h).
 *
 * Locking. pod_rw guards the region's mapping: every accounting step holds
 * it for reading, and only repairing the region (closing it and attaching
 * again) holds it for writing, so a step never sees a half-repaired
 * region and a repair carries over exactly what the steps left. dev_lock
 * guards the per-ordinal caches. Order: pod_rw, then dev_lock, then the
 * region's own mutex.
 *
 * What remains open: a region truncated between a step's check and its
 * access still raises SIGBUS there (the window is a few instructions; no
 * signal handler is installed behind the program's back).
 */
#include "hook_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "hook_pod.h"
#include "pod_limits.h"

static struct {
	int on;                            /* some device has a limit */
	struct gs_share_config *cfg;
	struct gs_region pod;              /* map NULL when closed */
	int proc_slot;
	int broken;                        /* unusable: allocations are refused */
	char last_why[512];                /* the refusal last logged, to log each once */
	int dev_index[MAX_ORDINALS];       /* ordinal -> region device index, -1 unknown */
	int uuid_known[MAX_ORDINALS];
	uint8_t uuid[MAX_ORDINALS][16];
	uint64_t held[MAX_ORDINALS];       /* bytes this process holds; atomic */
} pa;

static pthread_rwlock_t pod_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

#define LOG(level, ...) gs_log(level, __VA_ARGS__)

static void reset(void)
{
	int i;

	memset(&pa, 0, sizeof(pa));
	pa.pod.fd = -1;
	pa.proc_slot = -1;
	for (i = 0; i < MAX_ORDINALS; i++)
		pa.dev_index[i] = -1;
}

__attribute__((constructor)) static void hook_pod_ctor(void)
{
	reset();
}

uint64_t gs_hook_pod_limit(int ordinal)
{
	return pa.cfg ? gs_share_config_mem_limit(pa.cfg, ordinal) : 0;
}

int gs_hook_pod_on(void)
{
	return pa.on;
}

/*
 * Opens the pod region (creating it only when this process has limits to
 * write) and settles this process's limits with it (given: what the
 * process's own variables name; all of them after a repair, which writes
 * the limits the process runs under into a new region). Keeps the region
 * and a slot in it when memory is accounted, closes it otherwise.
 */
static int attach(unsigned given, char *err, size_t err_len)
{
	struct gs_share_config *cfg = pa.cfg;
	struct gs_pod_limits mine;
	int rc = given ? gs_region_open(&pa.pod, cfg->shm_dir, GS_REGION_POD, cfg->pod_id, err,
					err_len)
		       : gs_region_open_existing(&pa.pod, cfg->shm_dir, GS_REGION_POD, cfg->pod_id,
						 err, err_len);

	if (rc == GS_ENOENT)
		snprintf(err, err_len, "pod %s: no limits: this process has none of its own (none of "
			 "GPUSHARE_MEM_LIMIT_MIB, CUDA_DEVICE_MEMORY_LIMIT*, "
			 "ALIYUN_COM_GPU_MEM_CONTAINER, GPUSHARE_COMPUTE_PERCENT, "
			 "CUDA_DEVICE_SM_LIMIT*) and there is no %s to take the pod's from: refusing "
			 "to run; set the pod up with gpushare-pod, start it with its limits, or "
			 "give GPUSHARE_MEM_LIMIT_MIB=0 to run without any", cfg->pod_id,
			 pa.pod.path);
	if (rc)
		return rc;
	rc = gs_pod_attach(&pa.pod, (int32_t)getpid(), &pa.proc_slot, err, err_len);
	if (!rc) {
		gs_pod_limits_from_config(cfg, &mine);
		rc = gs_pod_limits_settle(&pa.pod, &mine, given, 0, pa.proc_slot, err, err_len);
		if (rc == GS_ENOENT)
			snprintf(err, err_len, "pod %s: no limits: this process has none of its own "
				 "and %s holds none: refusing to run; set the pod up with "
				 "gpushare-pod, or start it with its limits", cfg->pod_id,
				 pa.pod.path);
	}
	if (!rc)
		gs_pod_limits_to_config(&mine, cfg);
	if (rc || !gs_share_config_mem_limited(cfg)) {
		gs_region_close(&pa.pod); /* drops the slot with the descriptor */
		pa.proc_slot = -1;
	}
	return rc;
}

int gs_hook_pod_open(struct gs_share_config *cfg, char *err, size_t err_len)
{
	int rc;

	pa.cfg = cfg;
	rc = attach(cfg->given, err, err_len);
	if (!rc && gs_share_config_mem_limited(cfg))
		pa.on = 1;
	return rc;
}

/* Logs a refusal once for each new reason: what happened, and why it stays so. */
static void log_refusal(const char *what, const char *why)
{
	if (!strcmp(pa.last_why, what))
		return;
	snprintf(pa.last_why, sizeof(pa.last_why), "%s", what);
	LOG(GS_SHARE_LOG_QUIET, "pod %s: %s; refusing allocations until the region can be used "
	    "again: %s", pa.cfg->pod_id, what, why);
}

/*
 * With pod_rw held for writing: makes the region usable again if it is
 * not, by attaching to what is at its path now and carrying over what
 * this process holds; else marks it broken.
 */
static void repair_locked(void)
{
	char why[512], err[512];
	uint64_t carried = 0;
	int rc, i, ndev = 0;

	if (!pa.broken && !gs_region_check(&pa.pod, why, sizeof(why)))
		return; /* another thread repaired it */
	if (pa.broken)
		snprintf(why, sizeof(why), "%s", pa.last_why);
	if (pa.pod.map)
		gs_region_close(&pa.pod); /* drops our slot's lock with the descriptor */
	pa.proc_slot = -1;
	rc = attach(GS_LIMITS_ALL, err, sizeof(err));
	if (rc) {
		pa.broken = 1;
		log_refusal(why, err);
		return;
	}
	pthread_mutex_lock(&dev_lock);
	for (i = 0; i < MAX_ORDINALS; i++) {
		uint64_t held = __atomic_load_n(&pa.held[i], __ATOMIC_RELAXED);
		int idx;

		pa.dev_index[i] = -1;
		if (!held)
			continue;
		/* Held bytes were accounted once, so the UUID is known. */
		idx = gs_pod_dev_index(&pa.pod, pa.proc_slot, pa.uuid[i], gs_hook_pod_limit(i));
		if (idx < 0 || gs_pod_reserve(&pa.pod, pa.proc_slot, idx, held, 0)) {
			pthread_mutex_unlock(&dev_lock);
			snprintf(err, sizeof(err), "cannot carry this process's %llu bytes on "
				 "device %d into it", (unsigned long long)held, i);
			gs_region_close(&pa.pod);
			pa.broken = 1;
			log_refusal(why, err);
			return;
		}
		pa.dev_index[i] = idx;
		carried += held;
		ndev++;
	}
	pthread_mutex_unlock(&dev_lock);
	pa.broken = 0;
	pa.last_why[0] = 0;
	LOG(GS_SHARE_LOG_WARN, "pod %s: %s; attached to it again, carrying this process's "
	    "%llu MiB on %d device(s)", pa.cfg->pod_id, why, (unsigned long long)(carried >> 20),
	    ndev);
}

/*
 * Takes pod_rw for reading with the region checked (repairing it first if
 * needed). Returns 0, or GS_EIO when the region is unusable; pod_rw is
 * held either way.
 */
static int enter_rd(void)
{
	char why[512];

	pthread_rwlock_rdlock(&pod_rw);
	if (!pa.broken && !gs_region_check(&pa.pod, why, sizeof(why)))
		return 0;
	pthread_rwlock_unlock(&pod_rw);
	pthread_rwlock_wrlock(&pod_rw);
	repair_locked();
	pthread_rwlock_unlock(&pod_rw);
	pthread_rwlock_rdlock(&pod_rw);
	if (pa.broken)
		return GS_EIO;
	if (!gs_region_check(&pa.pod, why, sizeof(why)))
		return 0;
	LOG(GS_SHARE_LOG_WARN, "pod %s: %s again at once: refusing this allocation",
	    pa.cfg->pod_id, why);
	return GS_EIO;
}

/*
 * The region's index of device ordinal for this process, registering it
 * (with pod_rw held). Returns -1, having logged why, when the device
 * cannot be identified or has no room in the table.
 */
static int dev_index_of(int ordinal)
{
	uint64_t limit = gs_hook_pod_limit(ordinal);
	CUuuid u;
	CUresult crc;
	int i;

	pthread_mutex_lock(&dev_lock);
	i = pa.dev_index[ordinal];
	if (i >= 0)
		goto out;
	if (!pa.uuid_known[ordinal]) {
		crc = CALL_REAL(cuDeviceGetUuid, (&u, ordinal));
		if (crc != CUDA_SUCCESS) {
			LOG(GS_SHARE_LOG_WARN, "pod %s: cannot identify device %d (cuDeviceGetUuid "
			    "returned %d): refusing the allocation", pa.cfg->pod_id, ordinal, (int)crc);
			goto out;
		}
		memcpy(pa.uuid[ordinal], u.bytes, 16);
		pa.uuid_known[ordinal] = 1;
	}
	i = gs_pod_dev_index(&pa.pod, pa.proc_slot, pa.uuid[ordinal], limit);
	if (i == GS_ENOMEM)
		LOG(GS_SHARE_LOG_WARN, "%s: no room for another device (all %d entries are used by "
		    "live processes of the pod): refusing the allocation on device %d",
		    pa.pod.path, GS_REGION_MAX_DEVS, ordinal);
	else if (i == GS_EINVAL)
		LOG(GS_SHARE_LOG_WARN, "%s: device %d has a limit of %llu MiB in this process but "
		    "another in the pod's other processes: refusing the allocation; give all of "
		    "them the same limit", pa.pod.path, ordinal, (unsigned long long)(limit >> 20));
	else if (i < 0)
		LOG(GS_SHARE_LOG_WARN, "%s: cannot register device %d: refusing the allocation",
		    pa.pod.path, ordinal);
	if (i >= 0)
		pa.dev_index[ordinal] = i;
out:
	pthread_mutex_unlock(&dev_lock);
	return i >= 0 ? i : -1;
}

/* Resolves -1 to the current device. Returns CUDA_SUCCESS or the driver's error. */
static CUresult ordinal_of(int *ordinal)
{
	CUdevice d;
	CUresult rc;

	if (*ordinal >= 0)
		return CUDA_SUCCESS;
	rc = CALL_REAL(cuCtxGetDevice, (&d));
	if (rc == CUDA_SUCCESS)
		*ordinal = d;
	return rc;
}

CUresult gs_hook_pod_reserve(uint64_t bytes, int ordinal, int *dev_out)
{
	uint64_t limit;
	CUresult crc;
	int idx, rc;

	*dev_out = -1;
	if (!pa.on || !bytes)
		return CUDA_SUCCESS;
	crc = ordinal_of(&ordinal);
	if (crc != CUDA_SUCCESS) {
		LOG(GS_SHARE_LOG_INFO, "pod %s: no current device (cuCtxGetDevice returned %d): "
		    "refusing the allocation", pa.cfg->pod_id, (int)crc);
		return crc;
	}
	if (ordinal >= MAX_ORDINALS) {
		LOG(GS_SHARE_LOG_WARN, "pod %s: device %d is beyond the %d this library accounts: "
		    "refusing the allocation", pa.cfg->pod_id, ordinal, MAX_ORDINALS);
		return CUDA_ERROR_INVALID_DEVICE;
	}
	limit = gs_hook_pod_limit(ordinal);
	if (!limit)
		return CUDA_SUCCESS;
	if (enter_rd()) {
		pthread_rwlock_unlock(&pod_rw);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	idx = dev_index_of(ordinal);
	if (idx < 0) {
		pthread_rwlock_unlock(&pod_rw);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rc = gs_pod_reserve(&pa.pod, pa.proc_slot, idx, bytes, limit);
	if (!rc)
		__atomic_add_fetch(&pa.held[ordinal], bytes, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&pod_rw);
	if (rc == GS_ENOMEM) {
		LOG(GS_SHARE_LOG_INFO, "pod %s: %llu bytes would cross the %llu MiB limit of device %d",
		    pa.cfg->pod_id, (unsigned long long)bytes, (unsigned long long)(limit >> 20),
		    ordinal);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (rc)
		return CUDA_ERROR_OPERATING_SYSTEM;
	*dev_out = ordinal;
	return CUDA_SUCCESS;
}

void gs_hook_pod_cancel(uint64_t bytes, int dev)
{
	char why[512];
	uint64_t *h, old, sub;
	int idx;

	if (dev < 0 || dev >= MAX_ORDINALS || !pa.on)
		return;
	pthread_rwlock_rdlock(&pod_rw);
	/* An unusable region is left alone: a repair carries what is held then. */
	if (!pa.broken && !gs_region_check(&pa.pod, why, sizeof(why))) {
		pthread_mutex_lock(&dev_lock);
		idx = pa.dev_index[dev];
		pthread_mutex_unlock(&dev_lock);
		if (idx >= 0)
			gs_pod_unreserve(&pa.pod, pa.proc_slot, idx, bytes);
	}
	h = &pa.held[dev];
	old = __atomic_load_n(h, __ATOMIC_RELAXED);
	do {
		sub = old < bytes ? old : bytes;
	} while (!__atomic_compare_exchange_n(h, &old, old - sub, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	pthread_rwlock_unlock(&pod_rw);
}

void gs_hook_pod_info(int ordinal, uint64_t *limit_out, uint64_t *used_out)
{
	uint64_t limit;
	int idx;

	*limit_out = *used_out = 0;
	if (!pa.on || ordinal_of(&ordinal) != CUDA_SUCCESS || ordinal >= MAX_ORDINALS)
		return;
	limit = gs_hook_pod_limit(ordinal);
	if (!limit)
		return;
	*limit_out = limit;
	*used_out = limit; /* unless known: nothing free */
	if (enter_rd()) {
		pthread_rwlock_unlock(&pod_rw);
		return;
	}
	idx = dev_index_of(ordinal);
	if (idx >= 0)
		*used_out = gs_pod_used(&pa.pod, idx);
	pthread_rwlock_unlock(&pod_rw);
}

/*
 * The limit on the device with this UUID that the pod has not used yet:
 * its CUDA ordinal's, when the driver is loaded and knows the device;
 * otherwise the smallest of the pod's limits, never more than it may use.
 */
static uint64_t limit_of_uuid(const uint8_t uuid[16])
{
	uint64_t least = pa.cfg->mem_limit_bytes;
	int n = 0, i;
	CUuuid u;

	if (__atomic_load_n(&gs_driver_ready, __ATOMIC_ACQUIRE) &&
	    CALL_REAL(cuDeviceGetCount, (&n)) == CUDA_SUCCESS)
		for (i = 0; i < n && i < MAX_ORDINALS; i++)
			if (CALL_REAL(cuDeviceGetUuid, (&u, i)) == CUDA_SUCCESS &&
			    !memcmp(u.bytes, uuid, 16))
				return gs_hook_pod_limit(i);
	for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
		if (pa.cfg->dev_mem_limit_bytes[i] && (!least || pa.cfg->dev_mem_limit_bytes[i] < least))
			least = pa.cfg->dev_mem_limit_bytes[i];
	return least;
}

void gs_hook_pod_info_by_uuid(const uint8_t uuid[16], uint64_t *limit_out, uint64_t *used_out)
{
	int idx;

	*limit_out = *used_out = 0;
	if (!pa.on)
		return;
	*limit_out = limit_of_uuid(uuid);
	if (enter_rd()) {
		*used_out = *limit_out;
		pthread_rwlock_unlock(&pod_rw);
		return;
	}
	idx = gs_pod_dev_index(&pa.pod, -1, uuid, 0);
	if (idx >= 0) {
		*limit_out = __atomic_load_n(&gs_region_pod(&pa.pod)->dev[idx].limit_bytes,
					     __ATOMIC_RELAXED);
		*used_out = gs_pod_used(&pa.pod, idx);
	}
	pthread_rwlock_unlock(&pod_rw);
}

void gs_hook_pod_atfork_prepare(void)
{
	pthread_rwlock_wrlock(&pod_rw);
	pthread_mutex_lock(&dev_lock);
}

void gs_hook_pod_atfork_parent(void)
{
	pthread_mutex_unlock(&dev_lock);
	pthread_rwlock_unlock(&pod_rw);
}

void gs_hook_pod_atfork_child(void)
{
	/* The parent's slot is shared through the descriptor: never use it. */
	if (pa.pod.map)
		gs_region_close(&pa.pod);
	reset();
	pthread_rwlock_init(&pod_rw, NULL);
	pthread_mutex_init(&dev_lock, NULL);
}
