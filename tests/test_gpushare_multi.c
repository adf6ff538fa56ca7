/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_multi.c - libgpushare on a pod with two GPUs, without a
 * GPU: a limit on each device (HAMi's CUDA_DEVICE_MEMORY_LIMIT_<i>), every
 * route charged on the device its memory is on, whichever is current
 * (memory placed by its properties, a pool of another device, a stream
 * of another device, a pool on the host), peer access, and a process that
 * switches devices in the middle of its stream-ordered work. The fake
 * driver has two devices (FAKECUDA_DEVICES, default 2).
 *
 * Like test_gpushare_hook.c, this program links the fake driver and runs
 * with LD_PRELOAD=libgpushare.so; each case runs in a child
 * (gpushare_child.h) with 100 MiB on device 0 and 50 MiB on device 1.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_cuda.h"
#include "gpushare_child.h"
#include "tmpdir.h"

static const char *const two_limits[] = { "GPUSHARE_POD_ID", "p", "CUDA_DEVICE_MEMORY_LIMIT_0",
					  "100m", "CUDA_DEVICE_MEMORY_LIMIT_1", "50m", NULL };

/* The pod's free memory on devices 0 and 1 is f0 and f1; device cur is left current. */
static void expect_free(uint64_t f0, uint64_t f1, int cur)
{
	fakecuda_set_device(0);
	CHECK_EQ(gs_child_pod_free(), f0);
	fakecuda_set_device(1);
	CHECK_EQ(gs_child_pod_free(), f1);
	fakecuda_set_device(cur);
}

/*
 * Each device's limit, exact; memory placed by its properties (VMM, a
 * graph's memory node) is charged on that device, not the current one.
 */
static int two_devices(void *arg)
{
	CUDA_MEM_ALLOC_NODE_PARAMS np;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	CUdeviceptr a, b;
	CUgraphNode n;
	CUgraph g;
	size_t total = 0;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	fakecuda_set_device(0);
	CHECK_EQ(cuMemAlloc_v2(&a, 100 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAlloc_v2(&a, 70 * MIB), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuMemAlloc_v2(&b, 50 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAlloc_v2(&b, 20 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceTotalMem_v2(&total, 1), CUDA_SUCCESS);
	CHECK_EQ(total, 50 * MIB);
	expect_free(30 * MIB, 30 * MIB, 0);
	/* From device 0, 20 MiB of physical memory on device 1. */
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 1;
	CHECK_EQ(cuMemCreate(&h, 20 * MIB, &prop, 0), CUDA_SUCCESS);
	expect_free(30 * MIB, 10 * MIB, 0);
	/* And a graph's 10 MiB there too: device 1 is full, device 0 is not. */
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	memset(&np, 0, sizeof(np));
	np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	np.poolProps.location.id = 1;
	np.bytesize = 10 * MIB;
	CHECK_EQ(cuGraphAddMemAllocNode(&n, g, NULL, 0, &np), CUDA_SUCCESS);
	np.bytesize = 1;
	CHECK_EQ(cuGraphAddMemAllocNode(&n, g, NULL, 0, &np), CUDA_ERROR_OUT_OF_MEMORY);
	expect_free(30 * MIB, 0, 0);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuMemRelease(h), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(b), CUDA_SUCCESS); /* freed from device 0's context */
	expect_free(30 * MIB, 50 * MIB, 0);
	return 0;
}

GS_CHILD_TEST(test_two_devices, two_devices, two_limits)

/*
 * A pool is on the device (or the host) its properties say: allocations
 * from it are charged there, whichever device is current, and nothing for
 * a pool on the host, which is not device memory.
 */
static int pools_of_devices(void *arg)
{
	CUmemPoolProps props;
	CUmemoryPool pool1, host;
	CUdeviceptr p, q, r;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 1;
	fakecuda_set_device(0);
	CHECK_EQ(cuMemPoolCreate(&pool1, &props), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync(&p, 40 * MIB, pool1, NULL), CUDA_SUCCESS);
	expect_free(100 * MIB, 10 * MIB, 0);
	CHECK_EQ(cuMemAllocFromPoolAsync_ptsz(&q, 20 * MIB, pool1, NULL), CUDA_ERROR_OUT_OF_MEMORY);
	props.location.type = CU_MEM_LOCATION_TYPE_HOST;
	props.location.id = 0;
	CHECK_EQ(cuMemPoolCreate(&host, &props), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync(&r, 200 * MIB, host, NULL), CUDA_SUCCESS);
	expect_free(100 * MIB, 10 * MIB, 0);
	CHECK_EQ(cuMemFreeAsync(r, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
	expect_free(100 * MIB, 50 * MIB, 0);
	CHECK_EQ(cuMemPoolDestroy(pool1), CUDA_SUCCESS);
	CHECK_EQ(cuMemPoolDestroy(host), CUDA_SUCCESS);
	return 0;
}

GS_CHILD_TEST(test_pools_of_devices, pools_of_devices, two_limits)

/*
 * A process that switches devices in the middle of its stream-ordered
 * work: cudaMallocAsync into a stream of device 0 while device 1 is
 * current allocates on device 0 (the stream's), and is charged there; the
 * free, from either device, gives it back there.
 */
static int switch_mid_stream(void *arg)
{
	CUstream s0, s1;
	CUdeviceptr p, q;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	fakecuda_set_device(0);
	CHECK_EQ(cuStreamCreate(&s0, 0), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuStreamCreate(&s1, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&p, 80 * MIB, s0), CUDA_SUCCESS);
	CHECK_EQ(fakecuda_used_bytes(0), 80 * MIB);
	expect_free(20 * MIB, 50 * MIB, 1);
	CHECK_EQ(cuMemAllocAsync_ptsz(&q, 30 * MIB, s0), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAllocAsync_ptsz(&q, 30 * MIB, s1), CUDA_SUCCESS);
	CHECK_EQ(cuLaunchKernel((CUfunction)0x42, 1, 1, 1, 32, 1, 1, 0, s1, NULL, NULL),
		 CUDA_SUCCESS);
	fakecuda_set_device(0);
	CHECK_EQ(cuMemFreeAsync(q, s1), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuMemFreeAsync(p, s0), CUDA_SUCCESS);
	expect_free(100 * MIB, 50 * MIB, 0);
	CHECK_EQ(cuStreamDestroy_v2(s0), CUDA_SUCCESS);
	CHECK_EQ(cuStreamDestroy_v2(s1), CUDA_SUCCESS);
	return 0;
}

GS_CHILD_TEST(test_switch_devices_mid_stream, switch_mid_stream, two_limits)

/* Peer access maps nothing new: copies between the devices charge nothing. */
static int peer_access(void *arg)
{
	CUdeviceptr a, b;
	CUcontext c0, c1;
	int can = 0;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
	CHECK_EQ(can, 1);
	CHECK_EQ(cuDevicePrimaryCtxRetain(&c0, 0), CUDA_SUCCESS);
	CHECK_EQ(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	fakecuda_set_device(0);
	CHECK_EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&a, 60 * MIB), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuCtxEnablePeerAccess(c0, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&b, 40 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuMemcpyPeer(b, c1, a, c0, 16 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuMemcpyPeer(a, c0, b, c1, 40 * MIB), CUDA_SUCCESS);
	expect_free(40 * MIB, 10 * MIB, 1);
	CHECK_EQ(cuMemAlloc_v2(&b, 10 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	CHECK_EQ(cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
	return 0;
}

GS_CHILD_TEST(test_peer_access, peer_access, two_limits)

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_two_devices, gs_child_dir),
		GS_TMPDIR_TEST(test_pools_of_devices, gs_child_dir),
		GS_TMPDIR_TEST(test_switch_devices_mid_stream, gs_child_dir),
		GS_TMPDIR_TEST(test_peer_access, gs_child_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
