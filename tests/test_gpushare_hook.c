/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_hook.c - libgpushare end to end, without a GPU: this
 * program links the fake driver (fake_cuda*.c, as libcuda.so.1) and runs
 * with LD_PRELOAD=libgpushare.so, as a pod's process would.
 *
 * Every case runs in a forked child with its own environment
 * (gpushare_child.h). Each case gets a fresh GPUSHARE_SHM_DIR, so cases
 * never share regions.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_cuda.h"
#include "gpushare_child.h"
#include "region.h"
#include "tmpdir.h"

/* --- memory ------------------------------------------------------------------- */

static const char *const limit_100[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "100",
					 NULL };

static int exact_limit(void *arg)
{
	const uint64_t limit = 100 * MIB;
	CUdeviceptr a, b, c;
	size_t free_b, total_b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	/* One byte over, alone: refused without reaching the driver. */
	CHECK_EQ(cuMemAlloc_v2(&a, limit + 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	/* One byte under, then one byte more is exactly the limit... */
	CHECK_EQ(cuMemAlloc_v2(&a, limit - 1), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&b, 2), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAlloc_v2(&b, 1), CUDA_SUCCESS);
	/* ...and nothing fits beyond it. */
	CHECK_EQ(cuMemAlloc_v2(&c, 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(fakecuda_used_bytes(0), limit);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(total_b, limit);
	CHECK_EQ(free_b, 0);
	/* Free then reuse: the bytes come back exactly. */
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit - 1);
	CHECK_EQ(cuMemAlloc_v2(&a, limit - 1), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&a, limit), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	/* The card is 16 GiB; the pod sees its limit. */
	CHECK_EQ(cuDeviceTotalMem_v2(&total_b, 0), CUDA_SUCCESS);
	CHECK_EQ(total_b, limit);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit);
	return 0;
}

static void test_exact_limit(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(exact_limit, NULL, limit_100), 0);
}

static int no_limit_passes_through(void *arg)
{
	CUdeviceptr a;
	size_t total_b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&a, 1000 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceTotalMem_v2(&total_b, 0), CUDA_SUCCESS);
	CHECK_EQ(total_b, 16384 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&a, 16384 * MIB), CUDA_ERROR_OUT_OF_MEMORY); /* the card's own */
	return 0;
}

static void test_no_limit_passes_through(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "0",
					   NULL };

	(void)state;
	assert_int_equal(gs_child_run(no_limit_passes_through, NULL, env), 0);
}

static int every_allocator(void *arg)
{
	const uint64_t limit = 100 * MIB;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	CUdeviceptr a, b, c, d, e;
	CUmemoryPool pool;
	size_t pitch, free_b, total_b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocManaged(&a, 20 * MIB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&b, 20 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync_ptsz(&c, 20 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync(&d, 20 * MIB, pool, NULL), CUDA_SUCCESS);
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CHECK_EQ(cuMemCreate(&h, 20 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync_ptsz(&e, 1, pool, NULL), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemCreate(&h, 1, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, 0);
	/* Each kind of free gives its bytes back. */
	CHECK_EQ(cuMemRelease(h), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync(b, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync_ptsz(c, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(d), CUDA_SUCCESS);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, 80 * MIB);
	/*
	 * Pitched: the fake pads rows to 512 bytes. With 80 MiB left, 1000
	 * rows of 83886 bytes fit unpadded (83886000 <= 83886080) but not
	 * padded to 83968 bytes: the driver's block must be given back.
	 */
	CHECK_EQ(cuMemAllocPitch_v2(&b, &pitch, 83886, 1000, 4), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(fakecuda_used_bytes(0), 20 * MIB); /* the padded block was freed again */
	CHECK_EQ(cuMemAllocPitch_v2(&b, &pitch, 80000, 1000, 4), CUDA_SUCCESS);
	CHECK_EQ(pitch, 80384);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, 80 * MIB - 80384 * 1000);
	CHECK_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit);
	/* Host memory through the VMM API does not count. */
	prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
	CHECK_EQ(cuMemCreate(&h, 200 * MIB, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
	return 0;
}

static void test_every_allocator(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(every_allocator, NULL, limit_100), 0);
}

static int error_paths(void *arg)
{
	const uint64_t limit = 100 * MIB;
	CUdeviceptr a, b;
	size_t free_b, total_b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	/* The driver fails an allocation: the reservation is undone. */
	fakecuda_fail_next("cuMemAlloc_v2", CUDA_ERROR_ECC_UNCORRECTABLE);
	CHECK_EQ(cuMemAlloc_v2(&a, limit), CUDA_ERROR_ECC_UNCORRECTABLE);
	CHECK_EQ(cuMemAlloc_v2(&a, limit), CUDA_SUCCESS);
	/* The driver fails a free: the memory is still held, and counted. */
	fakecuda_fail_next("cuMemFree_v2", CUDA_ERROR_LAUNCH_FAILED);
	CHECK_EQ(cuMemFree_v2(a), CUDA_ERROR_LAUNCH_FAILED);
	CHECK_EQ(cuMemAlloc_v2(&b, 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	/* Freeing twice or freeing garbage: the driver's error, no accounting. */
	CHECK_EQ(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit);
	/* Zero bytes and NULL: the driver's own answers. */
	CHECK_EQ(cuMemAlloc_v2(&a, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemAlloc_v2(NULL, 10), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit);
	/* No current device: refused with the context's error, nothing charged. */
	fakecuda_set_device(7);
	CHECK_EQ(cuMemAlloc_v2(&a, 10), CUDA_ERROR_INVALID_CONTEXT);
	fakecuda_set_device(0);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, limit);
	return 0;
}

static void test_error_paths(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(error_paths, NULL, limit_100), 0);
}

static int per_device(void *arg)
{
	const uint64_t limit = 100 * MIB;
	CUdeviceptr a, b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	/* The limit holds on each device separately. */
	CHECK_EQ(cuMemAlloc_v2(&a, limit), CUDA_SUCCESS);
	fakecuda_set_device(1);
	CHECK_EQ(cuMemAlloc_v2(&b, limit), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&b, 1), CUDA_ERROR_OUT_OF_MEMORY);
	/* A free is returned to the device it was charged on. */
	CHECK_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&b, 1), CUDA_ERROR_OUT_OF_MEMORY);
	fakecuda_set_device(0);
	CHECK_EQ(cuMemAlloc_v2(&a, limit), CUDA_SUCCESS);
	return 0;
}

static void test_per_device(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(per_device, NULL, limit_100), 0);
}

/* Many threads allocating and freeing: never over the limit, all back at the end. */
#define N_THREADS 8
#define THREAD_ROUNDS 2000

static void *alloc_worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	CUdeviceptr held[16];
	int n = 0, i;

	for (i = 0; i < THREAD_ROUNDS; i++) {
		size_t bytes = (size_t)(rand_r(&seed) % (4 * MIB)) + 1;

		if (n < 16 && rand_r(&seed) % 2) {
			CUresult rc = cuMemAlloc_v2(&held[n], bytes);

			if (rc == CUDA_SUCCESS)
				n++;
			else if (rc != CUDA_ERROR_OUT_OF_MEMORY)
				return (void *)1;
		} else if (n > 0) {
			if (cuMemFree_v2(held[--n]) != CUDA_SUCCESS)
				return (void *)2;
		}
		/* The driver must never have handed out more than the limit. */
		if (fakecuda_used_bytes(0) > 32 * MIB)
			return (void *)3;
	}
	while (n > 0)
		if (cuMemFree_v2(held[--n]) != CUDA_SUCCESS)
			return (void *)2;
	return NULL;
}

static int many_threads(void *arg)
{
	pthread_t t[N_THREADS];
	size_t free_b, total_b;
	void *ret;
	int i;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	for (i = 0; i < N_THREADS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, alloc_worker, (void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < N_THREADS; i++) {
		CHECK_EQ(pthread_join(t[i], &ret), 0);
		CHECK_EQ((uintptr_t)ret, 0);
	}
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	CHECK_EQ(free_b, 32 * MIB);
	return 0;
}

static void test_many_threads(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "32",
					   NULL };

	(void)state;
	assert_int_equal(gs_child_run(many_threads, NULL, env), 0);
}

/*
 * Several processes of one pod race for 1 MiB chunks of a 64 MiB limit.
 * Together they must get exactly 64 chunks; each reports its count on a
 * pipe and holds its memory until told to exit.
 */
struct race {
	int counts[2];  /* pipe: child -> parent */
	int go[2];      /* pipe: parent -> children, closed to release them */
};

static int race_child(void *arg)
{
	struct race *r = arg;
	CUdeviceptr p;
	int n = 0;
	char ch;

	close(r->counts[0]);
	close(r->go[1]);
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	while (cuMemAlloc_v2(&p, MIB) == CUDA_SUCCESS)
		n++;
	CHECK_EQ(write(r->counts[1], &n, sizeof(n)), sizeof(n));
	CHECK(read(r->go[0], &ch, 1) == 0); /* EOF: the parent closed go */
	return 0;
}

static int after_race(void *arg)
{
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	/* Every racer exited without freeing: their memory was reclaimed. */
	CHECK_EQ(cuMemAlloc_v2(&p, 64 * MIB), CUDA_SUCCESS);
	return 0;
}

static void test_several_processes(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "64",
					   NULL };
	enum { N = 6 };
	struct race r;
	pid_t pids[N];
	int i, n, total = 0, status;

	(void)state;
	assert_int_equal(pipe(r.counts), 0);
	assert_int_equal(pipe(r.go), 0);
	for (i = 0; i < N; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			setenv("GPUSHARE_SHM_DIR", gs_test_tmpdir(), 1);
			setenv(env[0], env[1], 1);
			setenv(env[2], env[3], 1);
			_exit(race_child(&r));
		}
	}
	close(r.counts[1]);
	close(r.go[0]);
	for (i = 0; i < N; i++) {
		assert_int_equal(read(r.counts[0], &n, sizeof(n)), sizeof(n));
		total += n;
	}
	assert_int_equal(total, 64);
	close(r.go[1]);
	close(r.counts[0]);
	for (i = 0; i < N; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(gs_child_run(after_race, NULL, env), 0);
}

static int crash_holding_memory(void *arg)
{
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&p, 100 * MIB), CUDA_SUCCESS);
	raise(SIGKILL);
	return 1;
}

static int alloc_full_limit(void *arg)
{
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&p, 100 * MIB), CUDA_SUCCESS);
	return 0;
}

static void test_crashed_process_reclaimed(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(crash_holding_memory, NULL, limit_100), 128 + SIGKILL);
	assert_int_equal(gs_child_run(alloc_full_limit, NULL, limit_100), 0);
}

/* --- routes past the limit ------------------------------------------------------ */

static CUDA_ARRAY3D_DESCRIPTOR desc3(size_t w, size_t h, size_t d, CUarray_format fmt,
				     unsigned int channels, unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR a;

	memset(&a, 0, sizeof(a));
	a.Width = w;
	a.Height = h;
	a.Depth = d;
	a.Format = fmt;
	a.NumChannels = channels;
	a.Flags = flags;
	return a;
}


/* CUDA arrays (cudaMallocArray, cudaMalloc3DArray, mipmapped arrays) count. */
static int arrays(void *arg)
{
	CUDA_ARRAY_DESCRIPTOR d2;
	CUDA_ARRAY3D_DESCRIPTOR d3;
	CUarray a2, a3;
	CUmipmappedArray m;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	memset(&d2, 0, sizeof(d2));
	d2.Width = 2048;
	d2.Height = 2048;
	d2.Format = CU_AD_FORMAT_FLOAT;
	d2.NumChannels = 1;
	CHECK_EQ(cuArrayCreate_v2(&a2, &d2), CUDA_SUCCESS); /* 16 MiB */
	CHECK(gs_child_pod_free() <= 84 * MIB);
	/* 128 MiB of RGBA bytes: over the limit, refused before the driver. */
	d3 = desc3(1024, 1024, 32, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0);
	CHECK_EQ(cuArray3DCreate_v2(&a3, &d3), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(fakecuda_used_bytes(0), 16 * MIB);
	/* 16 layers of 1024 x 512 float2: 64 MiB. */
	d3 = desc3(1024, 512, 16, CU_AD_FORMAT_FLOAT, 2, CUDA_ARRAY3D_LAYERED);
	CHECK_EQ(cuArray3DCreate_v2(&a3, &d3), CUDA_SUCCESS);
	CHECK(gs_child_pod_free() <= 20 * MIB);
	/* A full mip chain of 4096^2 floats is 64 MiB and a third. */
	d3 = desc3(4096, 4096, 0, CU_AD_FORMAT_FLOAT, 1, 0);
	CHECK_EQ(cuMipmappedArrayCreate(&m, &d3, 13), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuArrayDestroy(a3), CUDA_SUCCESS);
	CHECK(gs_child_pod_free() <= 84 * MIB && gs_child_pod_free() >= 80 * MIB);
	CHECK_EQ(cuMipmappedArrayCreate(&m, &d3, 13), CUDA_ERROR_OUT_OF_MEMORY); /* 16 + 85 */
	CHECK_EQ(cuArrayDestroy(a2), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(cuMipmappedArrayCreate(&m, &d3, 13), CUDA_SUCCESS);
	CHECK(gs_child_pod_free() <= 100 * MIB - 85 * MIB);
	CHECK_EQ(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	/* Each destroy gave back exactly what was charged. */
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	return 0;
}

static void test_arrays(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(arrays, NULL, limit_100), 0);
}

/*
 * NVIDIA's VMM samples release a handle right after mapping it: the
 * memory lives until the last unmap, and so does its charge.
 */
static int vmm_release_after_map(void *arg)
{
	const CUdeviceptr va = 0x200000000000ull, va2 = 0x210000000000ull;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h, h2, again;
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CHECK_EQ(cuMemCreate(&h, 60 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemMap(va, 60 * MIB, 0, h, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemRelease(h), CUDA_SUCCESS);
	/* Still mapped, so still held: nothing past the limit. */
	CHECK_EQ(cuMemCreate(&h2, 60 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAlloc_v2(&p, 41 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(fakecuda_used_bytes(0) <= 100 * MIB);
	CHECK_EQ(cuMemUnmap(va, 60 * MIB), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	/* A handle retained from its mapping is one more reference to release. */
	CHECK_EQ(cuMemCreate(&h2, 60 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemMap(va2, 60 * MIB, 0, h2, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(va2 + 4096)), CUDA_SUCCESS);
	CHECK_EQ(again, h2);
	CHECK_EQ(cuMemRelease(h2), CUDA_SUCCESS);
	CHECK_EQ(cuMemUnmap(va2, 60 * MIB), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 40 * MIB);
	CHECK_EQ(cuMemRelease(again), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	return 0;
}

static void test_vmm_release_after_map(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(vmm_release_after_map, NULL, limit_100), 0);
}

/*
 * Stream-ordered pools keep freed memory up to their release threshold
 * (PyTorch's cudaMallocAsync backend sets it to the maximum): the pod is
 * charged what the pool holds, not what is live.
 */
static int pools_keep_memory(void *arg)
{
	cuuint64_t max = UINT64_MAX, forty = 40 * MIB;
	CUmemoryPool dflt, own;
	CUmemPoolProps props;
	CUdeviceptr a, b;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	/* The default threshold (0): freed memory goes back, as before. */
	CHECK_EQ(cuMemAllocAsync(&a, 80 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	/* Threshold at the maximum: the pool keeps its high-water mark. */
	CHECK_EQ(cuDeviceGetDefaultMemPool(&dflt, 0), CUDA_SUCCESS);
	CHECK_EQ(cuMemPoolSetAttribute(dflt, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &max),
		 CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&a, 80 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 20 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&b, 50 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(fakecuda_used_bytes(0) <= 100 * MIB);
	/* Memory the pool holds is reused without a new charge. */
	CHECK_EQ(cuMemAllocAsync_ptsz(&a, 30 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync(&b, 50 * MIB, dflt, NULL), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 20 * MIB);
	CHECK_EQ(cuMemFreeAsync_ptsz(a, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(b), CUDA_SUCCESS); /* a synchronous free of pool memory */
	CHECK_EQ(gs_child_pod_free(), 20 * MIB);
	/* Trimming gives back what the pool lets go. */
	CHECK_EQ(cuMemPoolTrimTo(dflt, 10 * MIB), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 90 * MIB);
	CHECK_EQ(cuMemPoolTrimTo(dflt, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	/* A pool of one's own with a threshold of 40 MiB keeps 40 of 80. */
	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 0;
	CHECK_EQ(cuMemPoolCreate(&own, &props), CUDA_SUCCESS);
	CHECK_EQ(cuMemPoolSetAttribute(own, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &forty),
		 CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocFromPoolAsync_ptsz(&a, 80 * MIB, own, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 60 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&b, 61 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(fakecuda_used_bytes(0) <= 100 * MIB);
	CHECK_EQ(cuMemPoolDestroy(own), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	return 0;
}

static void test_pools_keep_memory(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(pools_keep_memory, NULL, limit_100), 0);
}

static CUresult add_alloc_node(CUgraphNode *node, CUgraph g, size_t bytes)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p;

	memset(&p, 0, sizeof(p));
	p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.poolProps.location.id = 0;
	p.bytesize = bytes;
	return cuGraphAddMemAllocNode(node, g, NULL, 0, &p);
}

/*
 * Graph memory nodes (cudaGraphAddMemAllocNode) are charged when they are
 * created and stay charged while their graph, a clone of it or a graph
 * instantiated from it lives; then in the device's graph memory pool until
 * cuDeviceGraphMemTrim, since the driver keeps that memory cached.
 */
static int graph_memory(void *arg)
{
	CUgraph g, clone;
	CUgraphNode n1, n2, n3;
	CUgraphExec x1, x2, x3;
	CUDA_GRAPH_INSTANTIATE_PARAMS ip;
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CHECK_EQ(add_alloc_node(&n1, g, 40 * MIB), CUDA_SUCCESS);
	CHECK_EQ(add_alloc_node(&n2, g, 30 * MIB), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 30 * MIB);
	CHECK_EQ(add_alloc_node(&n3, g, 31 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemAlloc_v2(&p, 31 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	/* A node removed before the graph is instantiated gives its bytes back. */
	CHECK_EQ(cuGraphDestroyNode(n2), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 60 * MIB);
	/* A clone holds the same memory again. */
	CHECK_EQ(cuGraphClone(&clone, g), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 20 * MIB);
	CHECK_EQ(cuGraphDestroy(clone), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 60 * MIB);
	/* Instantiated graphs keep it after their graph is gone. */
	CHECK_EQ(cuGraphInstantiateWithFlags(&x1, g, 0), CUDA_SUCCESS);
	memset(&ip, 0, sizeof(ip));
	CHECK_EQ(cuGraphInstantiateWithParams(&x2, g, &ip), CUDA_SUCCESS);
	CHECK_EQ(cuGraphInstantiate_v2(&x3, g, NULL, NULL, 0), CUDA_SUCCESS); /* CUDA 11's ABI */
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&p, 61 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuGraphExecDestroy(x1), CUDA_SUCCESS);
	CHECK_EQ(cuGraphExecDestroy(x2), CUDA_SUCCESS);
	/* x3 still uses it: a trim gives nothing back. */
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 60 * MIB);
	CHECK_EQ(cuGraphExecDestroy(x3), CUDA_SUCCESS);
	/* Then the driver's graph pool keeps it until trimmed. */
	CHECK_EQ(gs_child_pod_free(), 60 * MIB);
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&p, 100 * MIB), CUDA_SUCCESS);
	return 0;
}

static void test_graph_memory(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(graph_memory, NULL, limit_100), 0);
}

/* GPUSHARE_CONTEXT_RESERVE_MIB is charged for every context created. */
static int context_reserve(void *arg)
{
	CUcontext primary, again, own;
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 70 * MIB);
	/* The primary context is one context, however often it is retained. */
	CHECK_EQ(cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 70 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&p, 71 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuCtxCreate_v2(&own, 0, 0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 40 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 60 * MIB);
	CHECK_EQ(cuMemAlloc_v2(&p, 41 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuCtxDestroy_v2(own), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 70 * MIB);
	CHECK_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 70 * MIB);
	CHECK_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	/* No room for a context's reserve: the context is refused. */
	CHECK_EQ(cuMemAlloc_v2(&p, 80 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuCtxCreate_v4(&own, NULL, 0, 0), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
	CHECK_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	CHECK_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 100 * MIB);
	CHECK_EQ(fakecuda_used_bytes(0), 0);
	return 0;
}

static void test_context_reserve(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "100",
					   "GPUSHARE_CONTEXT_RESERVE_MIB", "30",
					   "FAKECUDA_CTX_MIB", "30", NULL };

	(void)state;
	assert_int_equal(gs_child_run(context_reserve, NULL, env), 0);
}

/* --- refusals --------------------------------------------------------------- */

static int expect_refusal(void *arg)
{
	CUdeviceptr p;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_ERROR_OPERATING_SYSTEM);
	/* Every hooked call is refused, not only cuInit. */
	CHECK_EQ(cuMemAlloc_v2(&p, 1), CUDA_ERROR_OPERATING_SYSTEM);
	CHECK_EQ(cuLaunchKernel((CUfunction)1, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
		 CUDA_ERROR_OPERATING_SYSTEM);
	return 0;
}

static void test_bad_variable_refused(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "12x",
					   NULL };

	(void)state;
	assert_int_equal(gs_child_run(expect_refusal, NULL, env), 0);
	gs_child_expect_logged("gpushare: GPUSHARE_MEM_LIMIT_MIB='12x': not an integer of MiB (0 for "
			       "no limit): refusing to run");
}

static void test_region_version_mismatch_refused(void **state)
{
	char path[GS_REGION_PATH_MAX], want[GS_REGION_PATH_MAX + 128];
	uint32_t version = GS_REGION_VERSION + 1;
	int fd;

	(void)state;
	/* A pod region left by a library of another layout version. */
	assert_int_equal(gs_child_run(alloc_full_limit, NULL, limit_100), 0);
	gs_region_path(path, sizeof(path), gs_test_tmpdir(), GS_REGION_POD, "p");
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &version, sizeof(version),
				offsetof(struct gs_region_hdr, version)),
			 sizeof(version));
	close(fd);
	assert_int_equal(gs_child_run(expect_refusal, NULL, limit_100), 0);
	snprintf(want, sizeof(want), "gpushare: %s has layout version %u but this libgpushare "
				     "uses version %u: refusing to share it",
		 path, GS_REGION_VERSION + 1, GS_REGION_VERSION);
	gs_child_expect_logged(want);
}

/* --- the entry-point route ---------------------------------------------------- */

typedef CUresult (*gpa_v2_fn)(const char *, void **, int, cuuint64_t,
			      CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa_v1_fn)(const char *, void **, int, cuuint64_t);

static int proc_address_route(void *arg)
{
	CUdriverProcAddressQueryResult status;
	void *h, *p, *ours, *fake;
	gpa_v2_fn gpa2;
	gpa_v1_fn gpa1;
	int distinct = arg != NULL;

	/* What the CUDA runtime does: dlopen the driver, dlsym on its handle. */
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	gpa2 = (gpa_v2_fn)dlsym(h, "cuGetProcAddress_v2");
	gpa1 = (gpa_v1_fn)dlsym(h, "cuGetProcAddress");
	CHECK((void *)gpa2 == dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2")); /* ours */
	CHECK((void *)gpa2 != fakecuda_self("cuGetProcAddress_v2"));
	CHECK((void *)gpa1 == dlsym(RTLD_DEFAULT, "cuGetProcAddress"));
	/* A symbol we do not hook is the driver's own. */
	CHECK(dlsym(h, "cuDeviceGetName") == fakecuda_self("cuDeviceGetName"));

	/* Current versions of hooked entry points come back wrapped. */
	ours = dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
	fake = fakecuda_self("cuMemAlloc_v2");
	CHECK(ours != fake);
	CHECK_EQ(gpa2("cuMemAlloc", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
	CHECK_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
	CHECK(p == ours);
	CHECK_EQ(gpa1("cuMemAlloc", &p, 3020, CU_GET_PROC_ADDRESS_DEFAULT), CUDA_SUCCESS);
	CHECK(p == ours);
	/* An ABI we do not wrap (the 32-bit cuMemAlloc of CUDA 2.x) is left alone. */
	CHECK_EQ(gpa2("cuMemAlloc", &p, 2000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
	CHECK(p == fakecuda_self("cuMemAlloc"));
	/*
	 * A CUDA newer than the hook's cuda.h: the same ABI is still wrapped,
	 * a newer one (the fake has a cuMemAlloc for CUDA 99.0) is not.
	 */
	CHECK_EQ(gpa2("cuMemAlloc", &p, 98000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
	CHECK(p == ours);
	CHECK_EQ(gpa2("cuMemAlloc", &p, 99000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
	CHECK(p == fakecuda_self("mem_alloc_v99"));
	/* Per-thread default stream: the _ptsz wrapper; legacy: the plain one. */
	CHECK_EQ(gpa2("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
		      &status), CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuLaunchKernel_ptsz"));
	CHECK_EQ(gpa2("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status),
		 CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	CHECK_EQ(gpa2("cuMemFreeAsync", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
		      &status), CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuMemFreeAsync_ptsz"));
	/* The route returns itself wrapped, so a second lookup is hooked too. */
	CHECK_EQ(gpa2("cuGetProcAddress", &p, 12000, 0, &status), CUDA_SUCCESS);
	CHECK(p == (void *)gpa2);
	/* Not found and too old: the driver's answers, untouched. */
	CHECK_EQ(gpa2("cuNoSuchThing", &p, 12000, 0, &status), CUDA_ERROR_NOT_FOUND);
	CHECK_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	CHECK_EQ(gpa2("cuMemCreate", &p, 10000, 0, &status), CUDA_ERROR_NOT_FOUND);
	CHECK_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	/*
	 * What the runtime asks with: flags 0 (default) or 2 (per-thread), never
	 * 1. With FAKECUDA_GPA_DISTINCT the driver answers flags 0 with an
	 * internal address, unlike flags 1 and 2: still wrapped.
	 */
	CHECK_EQ(gpa2("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status),
		 CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	CHECK_EQ(gpa1("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT), CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	CHECK_EQ(gpa2("cuMemAlloc", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
		      &status), CUDA_SUCCESS);
	CHECK(p == ours);
	CHECK_EQ(gpa2("cuLaunchKernelEx", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status),
		 CUDA_SUCCESS);
	CHECK(p == dlsym(RTLD_DEFAULT, "cuLaunchKernelEx"));
	if (distinct) {
		void *q;

		/* The driver's own answer for flags 0 really differs here. */
		CHECK_EQ(gpa2("cuLaunchKernel", &q, 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
			      &status), CUDA_SUCCESS);
		CHECK(q == dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	}

	/* And the wrappers obtained this way enforce the limit. */
	{
		CUresult (*alloc)(CUdeviceptr *, size_t);
		CUdeviceptr d;

		CHECK_EQ(gpa2("cuMemAlloc", &p, 13000, 0, &status), CUDA_SUCCESS);
		alloc = (CUresult(*)(CUdeviceptr *, size_t))p;
		CHECK_EQ(cuInit(0), CUDA_SUCCESS);
		CHECK_EQ(alloc(&d, 100 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
		CHECK_EQ(alloc(&d, 100 * MIB), CUDA_SUCCESS);
	}

	/* dlsym(RTLD_NEXT) keeps its meaning for the caller. */
	CHECK(dlsym(RTLD_NEXT, "cuMemAlloc_v2") == ours); /* the object after us is libgpushare */
	CHECK(dlsym(RTLD_NEXT, "getpid") == dlsym(RTLD_DEFAULT, "getpid"));
	CHECK(dlsym(RTLD_NEXT, "no_such_symbol_anywhere") == NULL);
	return 0;
}

static void test_proc_address_route(void **state)
{
	(void)state;
	assert_int_equal(gs_child_run(proc_address_route, NULL, limit_100), 0);
}

/*
 * The hook learns what the driver's cuGetProcAddress answers once per
 * process, so this case needs a process that starts with the variable
 * set: the test program re-executes itself.
 */
static const char *self_path;

static int exec_distinct(void *arg)
{
	(void)arg;
	setenv("FAKECUDA_GPA_DISTINCT", "1", 1);
	execl(self_path, self_path, "--distinct-child", (char *)NULL);
	return 99;
}

static void test_proc_address_distinct_pointers(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "100",
					   "GPUSHARE_LOG", "2", NULL };

	(void)state;
	assert_int_equal(gs_child_run(exec_distinct, NULL, env), 0);
	/* At start-up, how many entry points the hook wraps. */
	if (!strstr(gs_child_stderr(), "gpushare: wrapping ") ||
	    !strstr(gs_child_stderr(), " CUDA driver entry points"))
		fail_msg("stderr '%s' does not say how many entry points are wrapped",
			 gs_child_stderr());
}

/* --- compute ---------------------------------------------------------------- */

struct spin {
	uint64_t start_ns;   /* CLOCK_MONOTONIC at which to start launching */
	uint64_t run_ns;
	int out_fd;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Launches 200 us kernels as fast as allowed; reports the GPU time it got. */
static int spin_launcher(void *arg)
{
	struct spin *s = arg;
	uint64_t t, ns;

	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	while (mono_ns() < s->start_ns)
		usleep(1000);
	t = mono_ns();
	while (mono_ns() - t < s->run_ns)
		CHECK_EQ(cuLaunchKernel((CUfunction)0x42, 200, 1, 1, 128, 1, 1, 0, NULL, NULL,
					NULL),
			 CUDA_SUCCESS);
	ns = fakecuda_kernel_ns();
	CHECK_EQ(write(s->out_fd, &ns, sizeof(ns)), sizeof(ns));
	return 0;
}

/* One launching process: its pod, share (NULL: none) and node region. */
struct launcher {
	const char *pod;
	const char *pct;
	const char *node;        /* NULL: the default node; another one sees nobody */
};

/*
 * Each launcher has its own simulated GPU (the fake is per process), so
 * "achieved share" here is what the throttle let through: GPU time
 * launched over wall time. Unthrottled, a launcher fills its GPU (~100 %)
 * when it gets the CPU it needs; on a loaded machine it gets less, so the
 * tests that expect a full GPU compare against a control launcher that
 * runs at the same time in a node region of its own (nobody to share
 * with, never throttled) instead of against 1.
 */
static void run_launchers(const struct launcher *l, int n, uint64_t run_ns, double *out)
{
	int fds[8][2], status, i;
	pid_t pids[8];
	struct spin s;
	uint64_t ns;

	assert_true(n <= 8);
	s.start_ns = mono_ns() + 200000000ull;
	s.run_ns = run_ns;
	for (i = 0; i < n; i++) {
		assert_int_equal(pipe(fds[i]), 0);
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			s.out_fd = fds[i][1];
			setenv("GPUSHARE_SHM_DIR", gs_test_tmpdir(), 1);
			setenv("GPUSHARE_POD_ID", l[i].pod, 1);
			/* 100: a pod without a share, which asks for the whole GPU. */
			setenv("GPUSHARE_COMPUTE_PERCENT", l[i].pct ? l[i].pct : "100", 1);
			if (l[i].node)
				setenv("GPUSHARE_NODE_ID", l[i].node, 1);
			_exit(spin_launcher(&s));
		}
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(read(fds[i][0], &ns, sizeof(ns)), sizeof(ns));
		close(fds[i][0]);
		close(fds[i][1]);
		out[i] = (double)ns / (double)run_ns;
	}
}

/*
 * Under heavy load a single try can still be unlucky (one launcher
 * descheduled for a while): a check that fails is tried again, at most
 * TRIES times in all, and fails only if every try does. A throttle that
 * really holds an elastic pod back fails every try.
 */
#define TRIES 3

/*
 * Two pods with shares on one node, and a control launcher in a node
 * region of its own: the pair should split its GPU time by the shares
 * and, together, launch about what the unthrottled control launches
 * (a full GPU when the machine has CPU to spare; less on a loaded one).
 */
static void check_pair(const char *pct_a, const char *pct_b, double want_a)
{
	const struct launcher l[3] = { { "a", pct_a, NULL }, { "b", pct_b, NULL },
				       { "control", NULL, "control" } };
	double got[3], frac = 0, sum = 0;
	int i;

	for (i = 0; i < TRIES; i++) {
		run_launchers(l, 3, 1500000000ull, got);
		sum = got[0] + got[1];
		frac = sum > 0 ? got[0] / sum : 0;
		fprintf(stderr, "%s/%s: pod a got %.3f, pod b got %.3f, the control %.3f\n", pct_a,
			pct_b, got[0], got[1], got[2]);
		if (frac >= want_a - 0.05 && frac <= want_a + 0.05 && sum >= 0.85 * got[2] &&
		    sum <= 1.10)
			return;
	}
	if (frac < want_a - 0.05 || frac > want_a + 0.05)
		fail_msg("pod a got %.3f of the pair's GPU time, expected %.2f +- 0.05", frac,
			 want_a);
	fail_msg("together they launched %.3f of a GPU, expected about the %.3f the control "
		 "launched (0.85 of it to 1.10)", sum, got[2]);
}

static void test_compute_share_30_70(void **state)
{
	(void)state;
	check_pair("30", "70", 0.30);
}

static void test_compute_share_10_90(void **state)
{
	(void)state;
	check_pair("10", "90", 0.10);
}

static void test_compute_elastic_when_alone(void **state)
{
	/* Pod a asks for 30 % but is alone on its node: it should fill its GPU. */
	const struct launcher l[2] = { { "a", "30", NULL }, { "control", NULL, "control" } };
	double got[2];
	int i;

	(void)state;
	for (i = 0; i < TRIES; i++) {
		run_launchers(l, 2, 500000000ull, got);
		fprintf(stderr, "alone, a 30%% pod got %.3f of its GPU, the control %.3f\n", got[0],
			got[1]);
		if (got[0] >= 0.9 * got[1])
			return;
	}
	fail_msg("alone, a 30%% pod got %.3f of its GPU, under 0.9 of the %.3f an unlimited "
		 "pod got at the same time", got[0], got[1]);
}

static void test_compute_against_unlimited_pod(void **state)
{
	/* A pod without a share counts as asking for the whole GPU: 30/130. */
	const struct launcher l[3] = { { "a", "30", NULL }, { "b", NULL, NULL },
				       { "control", NULL, "control" } };
	double got[3];
	int i;

	(void)state;
	for (i = 0; i < TRIES; i++) {
		run_launchers(l, 3, 1000000000ull, got);
		fprintf(stderr, "30/unlimited: pod a got %.3f, pod b got %.3f, the control %.3f\n",
			got[0], got[1], got[2]);
		if (got[0] >= 30.0 / 130 - 0.05 && got[0] <= 30.0 / 130 + 0.05 &&
		    got[1] >= 0.9 * got[2])
			return;
	}
	if (got[0] < 30.0 / 130 - 0.05 || got[0] > 30.0 / 130 + 0.05)
		fail_msg("pod a got %.3f of its GPU time, expected %.3f +- 0.05", got[0],
			 30.0 / 130);
	fail_msg("the unlimited pod got %.3f, under 0.9 of the %.3f of the control", got[1],
		 got[2]);
}

/* --- graph capture ------------------------------------------------------------- */

#define CAPTURE_STREAM ((CUstream)(uintptr_t)0x5000)

/*
 * Makes this pod compete on fake device 0: another open of the node region
 * (so another open file description, which the hook sees as another
 * process) claims a slot for pod "other" with a 70 % share, active for a
 * minute.
 */
static void compete_with_other_pod(struct gs_region *r)
{
	uint8_t uuid[16] = { 'f', 'a', 'k', 'e', 'g', 'p', 'u' };
	char err[256];
	uint32_t gen;
	int slot;

	CHECK_EQ(gs_region_open(r, gs_test_tmpdir(), GS_REGION_NODE, "node", err, sizeof(err)), 0);
	slot = gs_node_claim(r, "other", uuid, 1, 70, mono_ns(), &gen);
	CHECK(slot >= 0);
	gs_node_beat(r, slot, mono_ns() + 60000000000ull);
}

static CUresult launch_us(unsigned int us, CUfunction f, CUstream s)
{
	return cuLaunchKernel(f, us, 1, 1, 128, 1, 1, 0, s, NULL, NULL);
}

/* Lets the hook time kernel f (2 ms) so that it knows its cost. */
static void learn_cost(CUfunction f)
{
	int i;

	for (i = 0; i < 6; i++) {
		CHECK_EQ(launch_us(2000, f, NULL), CUDA_SUCCESS);
		usleep(3000);
	}
}

/*
 * A throttled pod captures a graph in global mode (the default, and
 * torch.cuda.graph's) while the timing of an earlier launch is pending:
 * the hook's own cuEventQuery must not break the capture, and the
 * captured launches (50 x 2 ms of known cost, over a second of sleep at
 * 30 %) are neither charged nor slept.
 */
static int capture_while_timing(void *arg)
{
	struct gs_region other;
	CUgraph g = NULL;
	uint64_t t;
	int i;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	compete_with_other_pod(&other);
	learn_cost((CUfunction)0x42);
	/* A new kernel is timed: its pair is pending for 3 ms. */
	CHECK_EQ(launch_us(3000, (CUfunction)0x43, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuStreamBeginCapture_v2(CAPTURE_STREAM, CU_STREAM_CAPTURE_MODE_GLOBAL),
		 CUDA_SUCCESS);
	t = mono_ns();
	for (i = 0; i < 50; i++)
		CHECK_EQ(launch_us(2000, (CUfunction)0x42, CAPTURE_STREAM), CUDA_SUCCESS);
	t = mono_ns() - t;
	CHECK_EQ(cuStreamEndCapture(CAPTURE_STREAM, &g), CUDA_SUCCESS);
	CHECK_EQ(fakecuda_graph_nodes(g), 50);
	if (t > 100000000ull) {
		fprintf(stderr, "50 captured launches took %.1f ms: they were slept\n", t / 1e6);
		return 1;
	}
	/* Outside the capture, the same launches are still throttled. */
	t = mono_ns();
	for (i = 0; i < 50; i++)
		CHECK_EQ(launch_us(2000, (CUfunction)0x42, NULL), CUDA_SUCCESS);
	t = mono_ns() - t;
	if (t < 200000000ull) {
		fprintf(stderr, "50 launches of 2 ms at 30 %% took only %.1f ms\n", t / 1e6);
		return 1;
	}
	gs_region_close(&other);
	return 0;
}

static void test_capture_while_timing(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "a", "GPUSHARE_COMPUTE_PERCENT",
					   "30", "GPUSHARE_ACTIVE_WINDOW_MS", "10000", NULL };

	(void)state;
	assert_int_equal(gs_child_run(capture_while_timing, NULL, env), 0);
}

struct capturer {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stage;              /* 1: capturing, 2: may end */
	CUresult end_rc;
};

static void stage_wait(struct capturer *c, int stage)
{
	pthread_mutex_lock(&c->mu);
	while (c->stage < stage)
		pthread_cond_wait(&c->cv, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

static void stage_set(struct capturer *c, int stage)
{
	pthread_mutex_lock(&c->mu);
	c->stage = stage;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void *capture_thread(void *arg)
{
	struct capturer *c = arg;
	CUgraph g;

	fakecuda_set_device(0);
	if (cuStreamBeginCapture_v2(CAPTURE_STREAM, CU_STREAM_CAPTURE_MODE_GLOBAL)) {
		c->end_rc = CUDA_ERROR_UNKNOWN;
		stage_set(c, 1);
		return NULL;
	}
	launch_us(100, (CUfunction)0x44, CAPTURE_STREAM);
	stage_set(c, 1);
	stage_wait(c, 2);
	c->end_rc = cuStreamEndCapture(CAPTURE_STREAM, &g);
	return NULL;
}

/*
 * Another thread captures in global mode while this one launches with
 * timings pending: the hook's calls on this thread must not invalidate
 * that capture (as torch.compile's and inference servers' capture threads
 * meet it while other threads keep launching).
 */
static int capture_on_other_thread(void *arg)
{
	struct capturer c = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	struct gs_region other;
	pthread_t th;
	int i;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	compete_with_other_pod(&other);
	learn_cost((CUfunction)0x42);
	CHECK_EQ(pthread_create(&th, NULL, capture_thread, &c), 0);
	stage_wait(&c, 1);
	/* New kernels, each timed: pairs pending, then polled. */
	for (i = 0; i < 8; i++) {
		CHECK_EQ(launch_us(500, (CUfunction)(uintptr_t)(0x100 + i % 4), NULL),
			 CUDA_SUCCESS);
		usleep(1000);
	}
	stage_set(&c, 2);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(c.end_rc, CUDA_SUCCESS);
	gs_region_close(&other);
	return 0;
}

static void test_capture_on_other_thread(void **state)
{
	static const char *const env[] = { "GPUSHARE_POD_ID", "a", "GPUSHARE_COMPUTE_PERCENT",
					   "30", "GPUSHARE_ACTIVE_WINDOW_MS", "10000", NULL };

	(void)state;
	assert_int_equal(gs_child_run(capture_on_other_thread, NULL, env), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_exact_limit, gs_child_dir),
		GS_TMPDIR_TEST(test_no_limit_passes_through, gs_child_dir),
		GS_TMPDIR_TEST(test_every_allocator, gs_child_dir),
		GS_TMPDIR_TEST(test_error_paths, gs_child_dir),
		GS_TMPDIR_TEST(test_per_device, gs_child_dir),
		GS_TMPDIR_TEST(test_arrays, gs_child_dir),
		GS_TMPDIR_TEST(test_vmm_release_after_map, gs_child_dir),
		GS_TMPDIR_TEST(test_pools_keep_memory, gs_child_dir),
		GS_TMPDIR_TEST(test_graph_memory, gs_child_dir),
		GS_TMPDIR_TEST(test_context_reserve, gs_child_dir),
		GS_TMPDIR_TEST(test_many_threads, gs_child_dir),
		GS_TMPDIR_TEST(test_several_processes, gs_child_dir),
		GS_TMPDIR_TEST(test_crashed_process_reclaimed, gs_child_dir),
		GS_TMPDIR_TEST(test_bad_variable_refused, gs_child_dir),
		GS_TMPDIR_TEST(test_region_version_mismatch_refused, gs_child_dir),
		GS_TMPDIR_TEST(test_proc_address_route, gs_child_dir),
		GS_TMPDIR_TEST(test_proc_address_distinct_pointers, gs_child_dir),
		GS_TMPDIR_TEST(test_compute_share_30_70, gs_child_dir),
		GS_TMPDIR_TEST(test_compute_share_10_90, gs_child_dir),
		GS_TMPDIR_TEST(test_compute_elastic_when_alone, gs_child_dir),
		GS_TMPDIR_TEST(test_compute_against_unlimited_pod, gs_child_dir),
		GS_TMPDIR_TEST(test_capture_while_timing, gs_child_dir),
		GS_TMPDIR_TEST(test_capture_on_other_thread, gs_child_dir),
	};

	self_path = argv[0];
	if (argc == 2 && !strcmp(argv[1], "--distinct-child"))
		return proc_address_route((void *)1);
	if (!getenv("LD_PRELOAD") || !strstr(getenv("LD_PRELOAD"), "libgpushare")) {
		fprintf(stderr, "run with LD_PRELOAD=.../libgpushare.so (ctest sets it)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
