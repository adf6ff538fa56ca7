/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_hami.c - the situations HAMi-core's own tests exercise,
 * as libgpushare meets them, without a GPU (our own tests of the same
 * situations): freeing a stream-ordered allocation with another device's
 * context current; NULL output pointers and zero sizes in every
 * allocation and memory-information wrapper; page-locked host memory,
 * which is not counted; the pointer attributes of managed memory;
 * contexts activated from many threads at once; and the CUDA versions
 * that pick cuCtxCreate's ABI through cuGetProcAddress. Environment
 * overrides and NVML's per-device numbers are test_gpushare_pod.c's, since
 * they take several processes.
 *
 * Like test_gpushare_hook.c, this program links the fake driver and runs
 * with LD_PRELOAD=libgpushare.so; each case runs in a child
 * (gpushare_child.h).
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_cuda.h"
#include "gpushare_child.h"
#include "nvml_abi.h"
#include "tmpdir.h"

static const char *const limit_100[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "100",
					 NULL };
static const char *const limit_10[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "10",
					NULL };
static const char *const limit_100_reserve_10[] = { "GPUSHARE_POD_ID", "p",
						    "GPUSHARE_MEM_LIMIT_MIB", "100",
						    "GPUSHARE_CONTEXT_RESERVE_MIB", "10", NULL };

/* The pod's free memory on device dev, dev left current. */
static uint64_t free_on(int dev)
{
	fakecuda_set_device(dev);
	return gs_child_pod_free();
}

/*
 * A stream-ordered allocation freed while another device's context is
 * current: its bytes go back to the device it came from, through its own
 * pool's release threshold.
 */
static int free_on_other_device(void *arg)
{
	cuuint64_t keep = 8 * MIB;
	CUmemoryPool pool;
	CUdeviceptr p, q;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	fakecuda_set_device(0);
	CHECK_EQ(cuMemAllocAsync(&p, 30 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&q, 20 * MIB), CUDA_SUCCESS);
	CHECK_EQ(free_on(0), 50 * MIB);
	fakecuda_set_device(1);
	CHECK_EQ(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(q), CUDA_SUCCESS);
	CHECK_EQ(free_on(1), 100 * MIB);
	CHECK_EQ(free_on(0), 100 * MIB);
	/* With a release threshold, device 0's pool keeps what it may. */
	CHECK_EQ(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep),
		 CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&p, 30 * MIB, NULL), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
	CHECK_EQ(free_on(1), 100 * MIB);
	CHECK_EQ(free_on(0), 92 * MIB);
	return 0;
}

GS_CHILD_TEST(test_free_on_other_device, free_on_other_device, limit_100)

typedef nvmlReturn_t (*nvml_init_fn)(void);
typedef nvmlReturn_t (*nvml_handle_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*nvml_mem_fn)(nvmlDevice_t, void *);

/* NVML's memory information with NULL for its answer, as pynvml finds it. */
static void nvml_null_answers(void)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init = h ? (nvml_init_fn)dlsym(h, "nvmlInit_v2") : NULL;
	nvml_handle_fn get = h ? (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2") : NULL;
	nvml_mem_fn v1 = h ? (nvml_mem_fn)dlsym(h, "nvmlDeviceGetMemoryInfo") : NULL;
	nvml_mem_fn v2 = h ? (nvml_mem_fn)dlsym(h, "nvmlDeviceGetMemoryInfo_v2") : NULL;
	nvmlDevice_t d;

	CHECK(init && get && v1 && v2);
	CHECK_EQ(init(), NVML_SUCCESS);
	CHECK_EQ(get(0, &d), NVML_SUCCESS);
	CHECK_EQ(v1(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
	CHECK_EQ(v2(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
}

/*
 * NULL output pointers and zero sizes in every allocation and memory-
 * information wrapper: the driver's own error comes back, nothing stays
 * charged, nothing crashes.
 */
static int null_and_zero(void *arg)
{
	CUDA_ARRAY3D_DESCRIPTOR d3;
	CUDA_ARRAY_DESCRIPTOR d2;
	CUDA_MEM_ALLOC_NODE_PARAMS np;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	CUmipmappedArray m;
	CUmemoryPool pool;
	CUdeviceptr p;
	CUgraphNode n;
	CUarray a;
	CUgraph g;
	size_t pitch, f, t;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(NULL, MIB), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocManaged(NULL, MIB, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocManaged(&p, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocPitch_v2(NULL, &pitch, 64, 64, 4), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocPitch_v2(&p, NULL, 64, 64, 4), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocPitch_v2(&p, &pitch, 0, 64, 4), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocPitch_v2(&p, &pitch, 64, 0, 4), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocAsync(NULL, MIB, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocAsync(&p, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocAsync_ptsz(NULL, MIB, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocFromPoolAsync(NULL, MIB, pool, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocFromPoolAsync(&p, 0, pool, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocFromPoolAsync(&p, MIB, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAllocFromPoolAsync_ptsz(NULL, MIB, pool, NULL), CUDA_ERROR_INVALID_VALUE);
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	CHECK_EQ(cuMemCreate(NULL, MIB, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemCreate(&h, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemCreate(&h, MIB, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	memset(&d2, 0, sizeof(d2));
	d2.Format = CU_AD_FORMAT_FLOAT;
	d2.NumChannels = 1;
	d2.Width = 1024;
	CHECK_EQ(cuArrayCreate_v2(&a, NULL), CUDA_ERROR_INVALID_VALUE);
	memset(&d3, 0, sizeof(d3));
	d3.Format = CU_AD_FORMAT_FLOAT;
	d3.NumChannels = 1;
	CHECK_EQ(cuArray3DCreate_v2(&a, &d3), CUDA_ERROR_INVALID_VALUE); /* no width */
	CHECK_EQ(cuArray3DCreate_v2(&a, NULL), CUDA_ERROR_INVALID_VALUE);
	d3.Width = 1024;
	CHECK_EQ(cuMipmappedArrayCreate(&m, &d3, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMipmappedArrayCreate(&m, NULL, 3), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	memset(&np, 0, sizeof(np));
	np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	np.bytesize = MIB;
	CHECK_EQ(cuGraphAddMemAllocNode(NULL, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuGraphAddMemAllocNode(&n, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	np.bytesize = 0;
	CHECK_EQ(cuGraphAddMemAllocNode(&n, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuGraphAddNode(&n, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuCtxCreate_v2(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuDevicePrimaryCtxRetain(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemFree_v2(0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemFreeAsync(0, NULL), CUDA_ERROR_INVALID_VALUE);
	/* What the pod sees. */
	CHECK_EQ(cuMemGetInfo_v2(NULL, &t), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemGetInfo_v2(&f, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemGetInfo_v2(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuDeviceTotalMem_v2(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	nvml_null_answers();
	/* Nothing charged, nothing handed out. */
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	CHECK_EQ(cuMemAlloc_v2(&p, 100 * MIB), CUDA_SUCCESS);
	return 0;
}

GS_CHILD_TEST(test_null_and_zero, null_and_zero, limit_100_reserve_10)

/* Page-locked host memory is not device memory: never counted against the pod. */
static int host_memory(void *arg)
{
	char *buf = malloc(50 * MIB);
	CUdeviceptr p;
	void *pinned;

	(void)arg;
	CHECK(buf);
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemHostRegister_v2(buf, 50 * MIB, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemHostAlloc(&pinned, 50 * MIB, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 10 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&p, 10 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuMemHostUnregister(buf), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 0);
	free(buf);
	return 0;
}

GS_CHILD_TEST(test_host_memory_not_counted, host_memory, limit_10)

/*
 * Managed memory is charged like device memory, and its pointer's
 * attributes are the driver's: managed, its device, its whole range.
 */
static int managed_attributes(void *arg)
{
	CUpointer_attribute attrs[3] = { CU_POINTER_ATTRIBUTE_IS_MANAGED,
					 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
					 CU_POINTER_ATTRIBUTE_RANGE_SIZE };
	unsigned int managed = 7;
	size_t range = 0;
	CUdeviceptr p, q;
	int ordinal = -1;
	void *data[3] = { &managed, &ordinal, &range };

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocManaged(&p, 20 * MIB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 80 * MIB);
	CHECK_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p + 4096),
		 CUDA_SUCCESS);
	CHECK_EQ(managed, 1);
	CHECK_EQ(cuPointerGetAttributes(3, attrs, data, p), CUDA_SUCCESS);
	CHECK_EQ(managed, 1);
	CHECK_EQ(ordinal, 0);
	CHECK_EQ(range, 20 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&q, 10 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, q), CUDA_SUCCESS);
	CHECK_EQ(managed, 0);
	CHECK_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 90 * MIB);
	return 0;
}

GS_CHILD_TEST(test_managed_pointer_attributes, managed_attributes, limit_100)

#define THREADS 16

struct racer {
	pthread_barrier_t *go;
	CUresult init_rc, retain_rc, create_rc;
	CUcontext created;
};

/* One thread: the library's first calls and a context, all at the same moment as the others. */
static void *race(void *arg)
{
	struct racer *r = arg;
	CUcontext c;

	pthread_barrier_wait(r->go);
	r->init_rc = cuInit(0);
	pthread_barrier_wait(r->go);
	r->retain_rc = cuDevicePrimaryCtxRetain(&c, 0);
	pthread_barrier_wait(r->go);
	r->create_rc = cuCtxCreate_v2(&r->created, 0, 1);
	return NULL;
}

/*
 * Contexts activated from many threads at once, as the library's first
 * calls: every thread gets its primary context, which is charged once
 * (a pod whose limit is one context's reserve fits it), and created
 * contexts are charged one each.
 */
static int context_race(void *arg)
{
	struct racer r[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t go;
	int round, i;

	(void)arg;
	for (round = 0; round < 10; round++) {
		pthread_barrier_init(&go, NULL, THREADS);
		for (i = 0; i < THREADS; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].go = &go;
			CHECK_EQ(pthread_create(&th[i], NULL, race, &r[i]), 0);
		}
		for (i = 0; i < THREADS; i++)
			CHECK_EQ(pthread_join(th[i], NULL), 0);
		pthread_barrier_destroy(&go);
		for (i = 0; i < THREADS; i++) {
			CHECK_EQ(r[i].init_rc, CUDA_SUCCESS);
			CHECK_EQ(r[i].retain_rc, CUDA_SUCCESS);
			CHECK_EQ(r[i].create_rc, CUDA_SUCCESS);
		}
		fakecuda_set_device(1);
		CHECK_EQ(gs_child_pod_free(), 100 * MIB - THREADS * 6 * MIB);
		for (i = 0; i < THREADS; i++) {
			CHECK_EQ(cuCtxDestroy_v2(r[i].created), CUDA_SUCCESS);
			CHECK_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
		}
		CHECK_EQ(gs_child_pod_free(), 100 * MIB);
		fakecuda_set_device(0);
		CHECK_EQ(gs_child_pod_free(), 6 * MIB);
	}
	return 0;
}

/* Device 0 holds one reserve exactly; device 1 holds the 16 created ones. */
static const char *const race_env[] = { "GPUSHARE_POD_ID", "p", "CUDA_DEVICE_MEMORY_LIMIT_0",
					"6m", "CUDA_DEVICE_MEMORY_LIMIT_1", "100m",
					"GPUSHARE_CONTEXT_RESERVE_MIB", "6",
					"FAKECUDA_CTX_CREATE_US", "2000", NULL };

GS_CHILD_TEST(test_context_race, context_race, race_env)

typedef CUresult(CUDAAPI *ctx_v2_fn)(CUcontext *, unsigned int, CUdevice);
typedef CUresult(CUDAAPI *ctx_v3_fn)(CUcontext *, CUexecAffinityParam *, int, unsigned int,
				     CUdevice);
typedef CUresult(CUDAAPI *ctx_v4_fn)(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);

/* cuCtxCreate as a runtime of CUDA version asks for it: the ABI of that version, wrapped. */
static void *ctx_create_for(int version, CUdriverProcAddressQueryResult *status, CUresult *rc)
{
	void *fn = NULL;

	*rc = cuGetProcAddress_v2("cuCtxCreate", &fn, version, 0, status);
	return fn;
}

/*
 * The CUDA version a program was built for picks cuCtxCreate's ABI (3.2:
 * _v2; 11.4: _v3, with execution affinity; 12.5: _v4, with parameters),
 * as the driver does; each is wrapped and charged, and a version older
 * than every ABI the library wraps passes through to the driver.
 */
static int ctx_abi_versions(void *arg)
{
	CUdriverProcAddressQueryResult status;
	CUctxCreateParams params;
	int driver = 0;
	CUcontext c;
	CUresult rc;
	void *fn;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuDriverGetVersion(&driver), CUDA_SUCCESS);
	CHECK_EQ(driver, 13000);
	fn = ctx_create_for(3020, &status, &rc);
	CHECK_EQ(rc, CUDA_SUCCESS);
	CHECK(fn == dlsym(RTLD_DEFAULT, "cuCtxCreate_v2"));
	CHECK_EQ(((ctx_v2_fn)fn)(&c, 0, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 90 * MIB);
	CHECK_EQ(cuCtxDestroy_v2(c), CUDA_SUCCESS);
	fn = ctx_create_for(11040, &status, &rc);
	CHECK(fn == dlsym(RTLD_DEFAULT, "cuCtxCreate_v3"));
	CHECK_EQ(((ctx_v3_fn)fn)(&c, NULL, 0, 0, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 90 * MIB);
	CHECK_EQ(cuCtxDestroy_v2(c), CUDA_SUCCESS);
	memset(&params, 0, sizeof(params));
	fn = ctx_create_for(12050, &status, &rc);
	CHECK(fn == dlsym(RTLD_DEFAULT, "cuCtxCreate_v4"));
	fn = ctx_create_for(13000, &status, &rc);
	CHECK(fn == dlsym(RTLD_DEFAULT, "cuCtxCreate_v4"));
	CHECK_EQ(((ctx_v4_fn)fn)(&c, &params, 0, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 90 * MIB);
	CHECK_EQ(cuCtxDestroy_v2(c), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	/* CUDA 3.0's cuCtxCreate: none of ours; the driver's answer, untouched. */
	fn = ctx_create_for(3000, &status, &rc);
	CHECK_EQ(rc, CUDA_ERROR_NOT_FOUND);
	CHECK_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	/* An API newer than the version asked for is not there at all. */
	fn = NULL;
	CHECK_EQ(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 11010, 0, &status),
		 CUDA_ERROR_NOT_FOUND);
	CHECK(fn == NULL);
	return 0;
}

GS_CHILD_TEST(test_ctx_create_abi_versions, ctx_abi_versions, limit_100_reserve_10)

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_free_on_other_device, gs_child_dir),
		GS_TMPDIR_TEST(test_null_and_zero, gs_child_dir),
		GS_TMPDIR_TEST(test_host_memory_not_counted, gs_child_dir),
		GS_TMPDIR_TEST(test_managed_pointer_attributes, gs_child_dir),
		GS_TMPDIR_TEST(test_context_race, gs_child_dir),
		GS_TMPDIR_TEST(test_ctx_create_abi_versions, gs_child_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
