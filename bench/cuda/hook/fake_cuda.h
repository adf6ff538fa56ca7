/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda.h - the test-only controls of the fake CUDA driver
 * (fake_cuda.c, fake_cuda_mem.c and fake_cuda_graph.c, built as a
 * libcuda.so.1 of its own for the tests).
 *
 * The fake implements the driver entry points libgpushare hooks or calls,
 * with a configurable device:
 *   FAKECUDA_DEVICES      number of devices (default 2, at most 8)
 *   FAKECUDA_MEM_MIB      memory per device in MiB (default 16384)
 *   FAKECUDA_PITCH        pitch alignment of cuMemAllocPitch (default 512)
 *   FAKECUDA_COMPUTE_MODE what cuDeviceGetAttribute says of every device's
 *                         compute mode (default 0, CU_COMPUTEMODE_DEFAULT)
 *   FAKECUDA_UUID_BASE    added to the last byte of every device's UUID
 *                         (default 0), so that processes can see other GPUs
 *   FAKECUDA_GPA_DISTINCT 1: cuGetProcAddress with flags 0 answers with
 *                         addresses other than the exports (and other than
 *                         what flags 1 and 2 answer) for cuMemAlloc and
 *                         cuLaunchKernel, as a driver may
 *   FAKECUDA_CTX_MIB      device memory of each context in MiB (default 0)
 *   FAKECUDA_CTX_CREATE_US time that making a context takes (default 0)
 *   FAKECUDA_KERNEL_NS    GPU time of one block of gridDimX in ns (default
 *                         1000; 0 for launch-cost benchmarks)
 * A kernel launched with gridDimX = n takes n microseconds (by default) of a simulated
 * GPU timeline per device; events are stamped on that timeline, so kernel
 * timing with events behaves as on a GPU that runs one kernel at a time.
 * Stream capture follows the driver's rules for "potentially unsafe"
 * calls (fake_cuda_graph.c says which): one made where the driver forbids it
 * fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the
 * capture. Launches into a capturing stream become graph nodes.
 * Pools keep freed memory up to their release threshold (0 by default, as
 * the driver's); a cuMemCreate handle holds its memory until it is both
 * released and unmapped; arrays are packed densely; graph memory nodes
 * are not backed by memory at all.
 * Memory is counted per process: one fake GPU per process is enough to
 * test a pod's limit, which the hook enforces above the driver.
 *
 * Nothing here is CUDA API; tests declare and call these directly.
 */
#ifndef GS_FAKE_CUDA_H
#define GS_FAKE_CUDA_H

#include <stdint.h>

#include <cuda.h>

/* Makes ordinal the calling thread's current device (its primary context). */
void fakecuda_set_device(int ordinal);

/* Bytes the fake driver has handed out on device ordinal in this process. */
uint64_t fakecuda_used_bytes(int ordinal);

/* The next call of the export named name returns rc without doing anything. */
void fakecuda_fail_next(const char *name, int rc);

/* The fake's own address of an export (what dlsym in the real libcuda returns). */
void *fakecuda_self(const char *name);

/* The number of nodes a graph made by cuStreamEndCapture has (-1 for NULL). */
int fakecuda_graph_nodes(CUgraph g);

/* Kernel time launched so far in this process, over all devices, and launches. */
uint64_t fakecuda_kernel_ns(void);
uint64_t fakecuda_launches(void);

#endif
