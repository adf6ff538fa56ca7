/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cuda_runtime.h (test stub) - just enough of the CUDA runtime's
 * declarations for bench/cuda/common.h to compile with a C compiler, so
 * that test_bench_common can check the clients' flag parsing on a machine
 * without the CUDA toolkit. Nothing here is defined: a test that called a
 * CUDA function would fail to link.
 */
#ifndef GS_TEST_STUB_CUDA_RUNTIME_H
#define GS_TEST_STUB_CUDA_RUNTIME_H

#include <stddef.h>

typedef enum cudaError {
	cudaSuccess = 0,
	cudaErrorNoDevice = 100,
	cudaErrorInsufficientDriver = 35,
} cudaError_t;

typedef struct cudaDeviceProp {
	char name[256];
	int major, minor, multiProcessorCount;
	size_t totalGlobalMem;
} cudaDeviceProp;

const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaFree(void *p);

#endif
