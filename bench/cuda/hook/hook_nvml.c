/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_nvml.c - what NVML says of a device's memory, inside a pod:
 * nvmlDeviceGetMemoryInfo and nvmlDeviceGetMemoryInfo_v2 report the pod's
 * limit as the total and the pod's use (every live process of the pod, the
 * same number cuMemGetInfo starts from) as used, so that nvidia-smi in the
 * pod and frameworks that ask NVML agree with cudaMemGetInfo.
 *
 * How calls reach us, as for the driver (hook.c): a program linked with
 * libnvidia-ml binds to these exports, since a preloaded library comes
 * first; one that dlopen()s libnvidia-ml.so.1 and looks the functions up
 * with dlsym on that handle (pynvml, nvidia-smi) gets them from our dlsym,
 * which hands every "nvml..." lookup to gs_nvml_dlsym(). The real
 * functions are those the program's own lookup found, else those of
 * dlopen("libnvidia-ml.so.1"); the library never links NVML.
 *
 * NVML names a device by a handle; the pod region knows devices by UUID,
 * which NVML gives as text ("GPU-" or "MIG-" and 32 hex digits). A device
 * the pod has not used reports the default limit and nothing used; one
 * whose UUID cannot be read or parsed is reported as the driver says.
 *
 * NVML's types come from nvml_abi.h (nvml.h is not part of the toolkit's
 * headers everywhere), shared with the tests' fake NVML.
 */
#include "hook_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "hook_pod.h"
#include "nvml_abi.h"

#define NVML_UUID_LEN 96                /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */

typedef nvmlReturn_t (*mem_v1_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*mem_v2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
typedef nvmlReturn_t (*uuid_fn)(nvmlDevice_t, char *, unsigned int);

GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);

/* The real functions: what the program's lookup found, else our own. Atomic. */
static void *real_v1, *real_v2, *real_uuid;

/* The real NVML function named name, found once. */
static void *real_fn(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *h;

	if (p || !gs_real_dlsym)
		return p;
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	p = gs_real_dlsym(h, name);
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p;
}

/* Runs inside our dlsym, which sanitizer runtimes may call while they start. */
__attribute__((no_sanitize("address", "undefined"))) void *gs_nvml_dlsym(const char *name,
									 void *sym)
{
	void *none = NULL;

	if (!strcmp(name, "nvmlDeviceGetMemoryInfo")) {
		__atomic_compare_exchange_n(&real_v1, &none, sym, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
		return (void *)nvmlDeviceGetMemoryInfo;
	}
	if (!strcmp(name, "nvmlDeviceGetMemoryInfo_v2")) {
		__atomic_compare_exchange_n(&real_v2, &none, sym, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
		return (void *)nvmlDeviceGetMemoryInfo_v2;
	}
	if (!strcmp(name, "nvmlDeviceGetUUID"))
		__atomic_compare_exchange_n(&real_uuid, &none, sym, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	return sym;
}

static int hex(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "GPU-8c1d...-..." or "MIG-..." to 16 bytes. Returns 0 or -1. */
static int parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0, hi, lo;

	if (strncmp(s, "GPU-", 4) && strncmp(s, "MIG-", 4))
		return -1;
	for (s += 4; *s && n < 16; s++) {
		if (*s == '-')
			continue;
		hi = hex(s[0]);
		lo = s[1] ? hex(s[1]) : -1;
		if (hi < 0 || lo < 0)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
		s++;
	}
	return n == 16 && !*s ? 0 : -1;
}

/*
 * The pod's view of the device: *limit_out 0 when it has no limit there
 * (report the driver's numbers). Returns -1 when the library refused to
 * run (the caller fails the call).
 */
static int pod_view(nvmlDevice_t device, uint64_t *limit_out, uint64_t *used_out)
{
	uuid_fn get_uuid = (uuid_fn)real_fn(&real_uuid, "nvmlDeviceGetUUID");
	char text[NVML_UUID_LEN];
	uint8_t uuid[16];

	*limit_out = *used_out = 0;
	if (gs_hook_limits() != CUDA_SUCCESS)
		return -1;
	if (!gs_hook_pod_on() || !get_uuid ||
	    get_uuid(device, text, sizeof(text)) != NVML_SUCCESS || parse_uuid(text, uuid))
		return 0;
	gs_hook_pod_info_by_uuid(uuid, limit_out, used_out);
	return 0;
}

/*
 * After the driver's answer rc about device: total, used and free as the
 * pod sees them, written over the driver's, and none of the driver's
 * reservation (reserved, version 2 only; NULL in version 1), which is
 * outside the pod's limit. Returns what the wrapper returns.
 */
static nvmlReturn_t pod_memory(nvmlReturn_t rc, nvmlDevice_t device, unsigned long long *total,
			       unsigned long long *free_b, unsigned long long *used_b,
			       unsigned long long *reserved)
{
	uint64_t limit, used, left;

	if (rc != NVML_SUCCESS)
		return rc;
	if (pod_view(device, &limit, &used))
		return NVML_ERROR_UNKNOWN;
	if (!limit)
		return NVML_SUCCESS;
	left = used < limit ? limit - used : 0;
	*total = limit;
	*used_b = used < limit ? used : limit;
	if (*free_b > left)
		*free_b = left;
	if (reserved)
		*reserved = 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	mem_v1_fn fn = (mem_v1_fn)real_fn(&real_v1, "nvmlDeviceGetMemoryInfo");
	nvmlReturn_t rc = fn ? fn(device, memory) : NVML_ERROR_UNKNOWN;

	return memory ? pod_memory(rc, device, &memory->total, &memory->free, &memory->used, NULL)
		      : rc;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	mem_v2_fn fn = (mem_v2_fn)real_fn(&real_v2, "nvmlDeviceGetMemoryInfo_v2");
	nvmlReturn_t rc = fn ? fn(device, memory) : NVML_ERROR_UNKNOWN;

	return memory ? pod_memory(rc, device, &memory->total, &memory->free, &memory->used,
				   &memory->reserved)
		      : rc;
}
