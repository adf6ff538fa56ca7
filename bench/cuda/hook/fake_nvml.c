/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_nvml.c - a fake NVML (libnvidia-ml.so.1) for testing libgpushare's
 * NVML wrappers without a GPU. Test-only: never installed.
 *
 * Its devices are the fake driver's (fake_cuda.c): FAKECUDA_DEVICES of
 * them, FAKECUDA_MEM_MIB each, with the same UUIDs (FAKECUDA_UUID_BASE
 * included), so a test can match NVML's devices with CUDA's. Memory
 * reads as a busy card would: FAKENVML_USED_MIB used (default 1024) and,
 * in version 2, 300 MiB reserved by the driver. Version 2 checks the
 * struct's version as NVML does. Device i is 10 (i + 1) % utilised and its
 * memory 5 (i + 1) %, so that a test can tell the devices' numbers apart.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvml_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVS 8

/* NVML's prototypes, as nvml.h declares them. */
EXPORT nvmlReturn_t nvmlInit_v2(void);
EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
						  nvmlUtilization_t *utilization);

/* A handle is 1 + the device's index; never dereferenced. */
static int initialised;

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : dflt;
}

static int n_devs(void)
{
	int n = (int)env_u64("FAKECUDA_DEVICES", 2);

	return n < 1 || n > MAX_DEVS ? 2 : n;
}

static int index_of(nvmlDevice_t d)
{
	intptr_t i = (intptr_t)d - 1;

	return initialised && i >= 0 && i < n_devs() ? (int)i : -1;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	initialised = 1;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
	initialised = 0;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!initialised)
		return NVML_ERROR_UNINITIALIZED;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned int)n_devs();
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (!initialised)
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= (unsigned int)n_devs())
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = (nvmlDevice_t)(intptr_t)(index + 1);
	return NVML_SUCCESS;
}

/* The fake driver's UUID ("fakegpu", zeros, the index) as NVML writes UUIDs. */
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	unsigned char u[16] = { 'f', 'a', 'k', 'e', 'g', 'p', 'u' };
	int i = index_of(device);

	if (i < 0 || !uuid)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (length < 41)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	u[15] = (unsigned char)(i + (int)env_u64("FAKECUDA_UUID_BASE", 0));
	snprintf(uuid, length,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	return NVML_SUCCESS;
}

static uint64_t total_bytes(void)
{
	return env_u64("FAKECUDA_MEM_MIB", 16384) << 20;
}

static uint64_t used_bytes(void)
{
	return env_u64("FAKENVML_USED_MIB", 1024) << 20;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	if (index_of(device) < 0 || !memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	memory->total = total_bytes();
	memory->used = used_bytes();
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	if (index_of(device) < 0 || !memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (memory->version != NVML_MEMORY_V2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	memory->total = total_bytes();
	memory->reserved = 300ull << 20;
	memory->used = used_bytes();
	memory->free = memory->total - memory->reserved - memory->used;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
						  nvmlUtilization_t *utilization)
{
	int i = index_of(device);

	if (i < 0 || !utilization)
		return NVML_ERROR_INVALID_ARGUMENT;
	utilization->gpu = 10u * (unsigned int)(i + 1);
	utilization->memory = 5u * (unsigned int)(i + 1);
	return NVML_SUCCESS;
}
