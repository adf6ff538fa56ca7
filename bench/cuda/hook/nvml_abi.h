/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvml_abi.h - the few NVML types and codes libgpushare's NVML wrappers
 * (hook_nvml.c) and the tests' fake NVML (fake_nvml.c) both speak. nvml.h
 * is not among the toolkit's headers everywhere, so they are declared
 * here, once, as NVML's stable ABI defines them.
 */
#ifndef GS_NVML_ABI_H
#define GS_NVML_ABI_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999,
};

/* nvmlDeviceGetMemoryInfo's answer (bytes). */
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2's answer (bytes); version is NVML_MEMORY_V2. */
typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

#define NVML_MEMORY_V2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

/* nvmlDeviceGetUtilizationRates's answer (percent of the last sample period). */
typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;

#endif
