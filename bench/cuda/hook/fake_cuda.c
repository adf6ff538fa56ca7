/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda.c - a fake CUDA driver (libcuda.so.1) for testing libgpushare
 * without a GPU. Test-only: never installed, never loaded by a client.
 *
 * It implements the entry points that libgpushare hooks or calls, with
 * the driver's own names and prototypes (cuda.h in its internal mode, so
 * the compiler checks them), cuGetProcAddress with the driver's version
 * and per-thread-stream rules, and the controls of fake_cuda.h. It is
 * linked with -Bsymbolic so that, like the real driver, its own
 * cuGetProcAddress answers with its own functions and not with whatever
 * a preloaded library exports under the same name.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVS 8
#define MAX_ALLOCS 65536
#define QUEUE_NS 2000000ull  /* launches block beyond 2 ms of queued work */

struct alloc {
	uint64_t key;            /* device pointer, handle or array; 0 = free entry */
	uint64_t bytes;
	int dev;
	int kind;                /* K_PTR, K_HANDLE, K_ARRAY, K_POOLPTR */
	int refs;                /* a handle's references */
	int maps;                /* a handle's mappings */
	int pool;                /* K_POOLPTR: index in pools[] */
};

struct event {
	uint64_t t_ns;           /* when the simulated GPU reaches it */
	int recorded;
};

static struct {
	int initialised;
	int n_devs;
	uint64_t mem_bytes;
	uint64_t pitch;
	uint64_t block_ns;       /* GPU time of one block of gridDimX */
	int uuid_base;
	uint64_t ctx_bytes;      /* device memory of one context */
	uint64_t used[MAX_DEVS];
	uint64_t busy_until_ns[MAX_DEVS];
	uint64_t next_ptr;
	uint64_t kernel_ns;
	uint64_t launches;
	struct alloc allocs[MAX_ALLOCS];
	char fail_name[64];
	CUresult fail_rc;
} fk;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int cur_dev;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : dflt;
}

/* Consumes an injected failure for this entry point, if one is armed. */
static int injected(const char *name, CUresult *rc)
{
	int hit;

	pthread_mutex_lock(&lock);
	hit = fk.fail_name[0] && !strcmp(fk.fail_name, name);
	if (hit) {
		*rc = fk.fail_rc;
		fk.fail_name[0] = 0;
	}
	pthread_mutex_unlock(&lock);
	return hit;
}

#define ENTER(name)                                          \
	do {                                                 \
		CUresult inj_;                               \
		if (injected(name, &inj_))                   \
			return inj_;                         \
		if (!fk.initialised)                         \
			return CUDA_ERROR_NOT_INITIALIZED;   \
	} while (0)

/* --- controls --------------------------------------------------------------- */

EXPORT void fakecuda_set_device(int ordinal)
{
	cur_dev = ordinal;
}

EXPORT uint64_t fakecuda_used_bytes(int ordinal)
{
	uint64_t v;

	pthread_mutex_lock(&lock);
	v = ordinal >= 0 && ordinal < MAX_DEVS ? fk.used[ordinal] : 0;
	pthread_mutex_unlock(&lock);
	return v;
}

EXPORT void fakecuda_fail_next(const char *name, int rc)
{
	pthread_mutex_lock(&lock);
	snprintf(fk.fail_name, sizeof(fk.fail_name), "%s", name);
	fk.fail_rc = (CUresult)rc;
	pthread_mutex_unlock(&lock);
}

EXPORT uint64_t fakecuda_kernel_ns(void)
{
	return __atomic_load_n(&fk.kernel_ns, __ATOMIC_RELAXED);
}

EXPORT uint64_t fakecuda_launches(void)
{
	return __atomic_load_n(&fk.launches, __ATOMIC_RELAXED);
}

/* --- device and context ------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
	CUresult inj;

	if (injected("cuInit", &inj))
		return inj;
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	if (!fk.initialised) {
		fk.n_devs = (int)env_u64("FAKECUDA_DEVICES", 2);
		if (fk.n_devs < 1 || fk.n_devs > MAX_DEVS)
			fk.n_devs = 2;
		fk.mem_bytes = env_u64("FAKECUDA_MEM_MIB", 16384) << 20;
		fk.pitch = env_u64("FAKECUDA_PITCH", 512);
		fk.block_ns = env_u64("FAKECUDA_KERNEL_NS", 1000);
		fk.uuid_base = (int)env_u64("FAKECUDA_UUID_BASE", 0);
		fk.ctx_bytes = env_u64("FAKECUDA_CTX_MIB", 0) << 20;
		fk.next_ptr = 0x7f0000000000ull;
		fk.initialised = 1;
	}
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = 13000;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	ENTER("cuDeviceGetCount");
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = fk.n_devs;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	ENTER("cuDeviceGet");
	if (!device || ordinal < 0 || ordinal >= fk.n_devs)
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	ENTER("cuDeviceGetName");
	if (!name || len < 1 || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "Fake GPU");
	(void)dev;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	ENTER("cuDeviceGetUuid");
	if (!uuid || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	memset(uuid->bytes, 0, sizeof(uuid->bytes));
	memcpy(uuid->bytes, "fakegpu", 7);
	uuid->bytes[15] = (char)(dev + fk.uuid_base);
	return CUDA_SUCCESS;
}

/* Only the compute mode: FAKECUDA_COMPUTE_MODE (default 0, CU_COMPUTEMODE_DEFAULT). */
EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	ENTER("cuDeviceGetAttribute");
	if (!pi || dev < 0 || dev >= fk.n_devs || attrib != CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)
		return CUDA_ERROR_INVALID_VALUE;
	*pi = (int)env_u64("FAKECUDA_COMPUTE_MODE", CU_COMPUTEMODE_DEFAULT);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	ENTER("cuDeviceTotalMem_v2");
	if (!bytes || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = (size_t)fk.mem_bytes;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	ENTER("cuCtxGetCurrent");
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = (CUcontext)(uintptr_t)(0x1000 + cur_dev);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (cur_dev < 0 || cur_dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = cur_dev;
	return CUDA_SUCCESS;
}

/* --- stream capture -------------------------------------------------------------------- */

/*
 * The driver's rules for "potentially unsafe" calls (cuEventQuery, a
 * synchronous allocation or free, a synchronisation) during stream capture:
 * a thread whose capture interaction mode (cuThreadExchangeStreamCaptureMode,
 * default global) is not relaxed may not make them while it has a capture
 * of its own that is not relaxed, nor, in global mode, while any thread has
 * a capture begun in global mode. Such a call fails with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates those captures:
 * their cuStreamEndCapture fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 * Work launched into a capturing stream becomes a node of the graph and
 * does not run.
 */
#define MAX_CAPTURES 16

struct capture {
	CUstream stream;
	CUstreamCaptureMode mode;
	pthread_t thread;
	int active;
	int invalidated;
	int nodes;
};

static struct capture captures[MAX_CAPTURES];
static int n_captures;   /* active ones; atomic, read without the lock */
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

struct fake_graph {
	int nodes;               /* captured launches, or memory nodes */
};

/* With the lock held: the capture of stream s, or NULL. */
static struct capture *capture_of(CUstream s)
{
	int i;

	for (i = 0; i < MAX_CAPTURES; i++)
		if (captures[i].active && captures[i].stream == s)
			return &captures[i];
	return NULL;
}

/* Every "potentially unsafe" call starts here. */
static CUresult unsafe_call(void)
{
	CUresult rc = CUDA_SUCCESS;
	pthread_t self = pthread_self();
	int i;

	if (!__atomic_load_n(&n_captures, __ATOMIC_ACQUIRE) ||
	    thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CAPTURES; i++) {
		struct capture *c = &captures[i];
		int own = pthread_equal(c->thread, self);

		if (!c->active || c->mode == CU_STREAM_CAPTURE_MODE_RELAXED)
			continue;
		if (own || (thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
			    c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
			c->invalidated = 1;
			rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

#define UNSAFE()                                   \
	do {                                       \
		CUresult cap_ = unsafe_call();     \
		if (cap_)                          \
			return cap_;               \
	} while (0)

/*
 * A launch (or event record) into stream s: CUDA_SUCCESS and *captured = 1
 * when it became a node of a capture, an error when that capture is
 * invalidated, CUDA_SUCCESS and *captured = 0 when it runs.
 */
static CUresult into_stream(CUstream s, int *captured)
{
	struct capture *c;
	CUresult rc = CUDA_SUCCESS;

	*captured = 0;
	if (!__atomic_load_n(&n_captures, __ATOMIC_ACQUIRE))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&lock);
	c = capture_of(s);
	if (c) {
		*captured = 1;
		if (c->invalidated)
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		else
			c->nodes++;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode)
{
	int i;

	if (!s || s == CU_STREAM_LEGACY)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	if (capture_of(s)) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	for (i = 0; i < MAX_CAPTURES && captures[i].active; i++)
		;
	if (i == MAX_CAPTURES) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	captures[i] = (struct capture){ s, mode, pthread_self(), 1, 0, 0 };
	__atomic_add_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
	ENTER("cuStreamBeginCapture_v2");
	return begin_capture(hStream, mode);
}

EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
	ENTER("cuStreamBeginCapture_v2_ptsz");
	return begin_capture(hStream ? hStream : CU_STREAM_PER_THREAD, mode);
}

EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	struct fake_graph *g = NULL;
	struct capture *c;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuStreamEndCapture");
	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	c = capture_of(hStream);
	if (!c) {
		rc = CUDA_ERROR_ILLEGAL_STATE;
	} else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
		   !pthread_equal(c->thread, pthread_self())) {
		rc = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	} else {
		if (c->invalidated) {
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		} else {
			g = calloc(1, sizeof(*g));
			if (!g)
				rc = CUDA_ERROR_OUT_OF_MEMORY;
			else
				g->nodes = c->nodes;
		}
		c->active = 0;
		__atomic_sub_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	*phGraph = (CUgraph)g;
	return rc;
}

EXPORT CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUstreamCaptureMode old;

	ENTER("cuThreadExchangeStreamCaptureMode");
	if (!mode || (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_RELAXED))
		return CUDA_ERROR_INVALID_VALUE;
	old = thread_mode;
	thread_mode = *mode;
	*mode = old;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	ENTER("cuStreamSynchronize");
	UNSAFE();
	(void)hStream;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
	ENTER("cuCtxSynchronize");
	UNSAFE();
	return CUDA_SUCCESS;
}

EXPORT int fakecuda_graph_nodes(CUgraph g)
{
	return g ? ((struct fake_graph *)g)->nodes : -1;
}

/* --- memory --------------------------------------------------------------------- */

/*
 * Kinds of memory the fake hands out. A handle (cuMemCreate) holds its
 * physical memory until it is released and unmapped everywhere; memory of
 * a pool stays in the pool, above what is live, up to the pool's release
 * threshold (as if each free were followed by a synchronisation).
 */
enum { K_PTR, K_HANDLE, K_ARRAY, K_POOLPTR };

struct pool {
	int in_use;
	int dev;
	uint64_t live, reserved, threshold;
};

#define MAX_POOLS 16        /* the first MAX_DEVS are the devices' default pools */
#define MAX_MAPS 256

static struct pool pools[MAX_POOLS];
static struct { uint64_t va, size, handle; } maps[MAX_MAPS];

/* With the lock held: a free entry, or NULL. */
static struct alloc *new_entry(void)
{
	int i;

	for (i = 0; i < MAX_ALLOCS && fk.allocs[i].key; i++)
		;
	return i < MAX_ALLOCS ? &fk.allocs[i] : NULL;
}

/* With the lock held: the entry of key of this kind, or NULL. */
static struct alloc *find_entry(uint64_t key, int kind)
{
	int i;

	for (i = 0; key && i < MAX_ALLOCS; i++)
		if (fk.allocs[i].key == key && fk.allocs[i].kind == kind)
			return &fk.allocs[i];
	return NULL;
}

/* With the lock held: the next distinct, 256-byte aligned, never reused address. */
static uint64_t new_address(uint64_t bytes)
{
	uint64_t p = fk.next_ptr;

	fk.next_ptr += (bytes + 255) & ~255ull;
	return p;
}

static CUresult do_alloc(uint64_t *key_out, uint64_t bytes, int dev, int kind)
{
	struct alloc *a;

	if (!key_out || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&lock);
	a = new_entry();
	if (bytes > fk.mem_bytes - fk.used[dev] || !a) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*a = (struct alloc){ new_address(bytes), bytes, dev, kind, 1, 0, -1 };
	fk.used[dev] += bytes;
	*key_out = a->key;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* With the lock held: gives a pool's memory above max(live, keep) back to the card. */
static void pool_shrink(struct pool *p, uint64_t keep)
{
	if (keep < p->live)
		keep = p->live;
	if (p->reserved > keep) {
		fk.used[p->dev] -= p->reserved - keep;
		p->reserved = keep;
	}
}

static CUresult do_free(uint64_t key, int kind)
{
	struct alloc *a;

	pthread_mutex_lock(&lock);
	a = find_entry(key, kind);
	if (!a && kind == K_PTR)
		a = find_entry(key, K_POOLPTR); /* cuMemFree of pool memory is legal */
	if (!a) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (a->kind == K_POOLPTR) {
		struct pool *p = &pools[a->pool];

		p->live -= a->bytes;
		pool_shrink(p, p->threshold < p->reserved ? p->threshold : p->reserved);
	} else if (a->kind == K_HANDLE) {
		/* cuMemRelease: the memory lives on while it is mapped. */
		if (--a->refs > 0 || a->maps > 0) {
			pthread_mutex_unlock(&lock);
			return CUDA_SUCCESS;
		}
		fk.used[a->dev] -= a->bytes;
	} else {
		fk.used[a->dev] -= a->bytes;
	}
	memset(a, 0, sizeof(*a));
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	ENTER("cuMemGetInfo_v2");
	if (!free_bytes || !total_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	*total_bytes = (size_t)fk.mem_bytes;
	*free_bytes = (size_t)(fk.mem_bytes - fk.used[cur_dev]);
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ENTER("cuMemAlloc_v2");
	UNSAFE();
	return do_alloc((uint64_t *)dptr, bytesize, cur_dev, K_PTR);
}

/* The 32-bit ABI of CUDA 2.x: only here so that a v1 lookup has an answer. */
EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	uint64_t p;
	CUresult rc;

	ENTER("cuMemAlloc");
	rc = do_alloc(&p, bytesize, cur_dev, K_PTR);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr_v1)p;
	return rc;
}

EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	ENTER("cuMemAllocManaged");
	UNSAFE();
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	return do_alloc((uint64_t *)dptr, bytesize, cur_dev, K_PTR);
}

EXPORT CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
					   size_t Height, unsigned int ElementSizeBytes)
{
	uint64_t pitch;
	CUresult rc;

	ENTER("cuMemAllocPitch_v2");
	UNSAFE();
	if (!pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	pitch = (WidthInBytes + fk.pitch - 1) / fk.pitch * fk.pitch;
	rc = do_alloc((uint64_t *)dptr, pitch * Height, cur_dev, K_PTR);
	if (rc == CUDA_SUCCESS)
		*pPitch = (size_t)pitch;
	return rc;
}

EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	ENTER("cuMemFree_v2");
	UNSAFE();
	return do_free(dptr, K_PTR);
}

/* --- stream-ordered pools ------------------------------------------------------ */

/* With the lock held: the pool behind a handle, or NULL. */
static struct pool *pool_of(CUmemoryPool h)
{
	struct pool *p = (struct pool *)h;

	return p >= pools && p < pools + MAX_POOLS && p->in_use ? p : NULL;
}

/* With the lock held: the default pool of dev, set up on first use. */
static struct pool *default_pool(int dev)
{
	if (!pools[dev].in_use)
		pools[dev] = (struct pool){ 1, dev, 0, 0, 0 };
	return &pools[dev];
}

static CUresult pool_alloc(CUdeviceptr *dptr, uint64_t bytes, CUmemoryPool h)
{
	struct alloc *a;
	struct pool *p;
	uint64_t grow;

	if (!dptr || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (cur_dev < 0 || cur_dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	p = h ? pool_of(h) : default_pool(cur_dev);
	if (!p) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	grow = p->live + bytes > p->reserved ? p->live + bytes - p->reserved : 0;
	a = new_entry();
	if (grow > fk.mem_bytes - fk.used[p->dev] || !a) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	fk.used[p->dev] += grow;
	p->reserved += grow;
	p->live += bytes;
	*a = (struct alloc){ new_address(bytes), bytes, p->dev, K_POOLPTR, 1, 0, (int)(p - pools) };
	*dptr = a->key;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

#define ASYNC_PAIR(name, args_decl, call)                                     \
	EXPORT CUresult CUDAAPI name args_decl                                \
	{                                                                     \
		ENTER(#name);                                                 \
		return call;                                                  \
	}                                                                     \
	EXPORT CUresult CUDAAPI name##_ptsz args_decl                         \
	{                                                                     \
		ENTER(#name "_ptsz");                                         \
		return call;                                                  \
	}

ASYNC_PAIR(cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream),
	   ((void)hStream, pool_alloc(dptr, bytesize, NULL)))
ASYNC_PAIR(cuMemAllocFromPoolAsync,
	   (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream),
	   ((void)hStream, pool ? pool_alloc(dptr, bytesize, pool) : CUDA_ERROR_INVALID_VALUE))
ASYNC_PAIR(cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream),
	   ((void)hStream, do_free(dptr, K_POOLPTR)))

EXPORT CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	ENTER("cuDeviceGetDefaultMemPool");
	if (!pool_out || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	*pool_out = (CUmemoryPool)default_pool(dev);
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* The current pool is always the default one: cuDeviceSetMemPool is not faked. */
EXPORT CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	ENTER("cuDeviceGetMemPool");
	return cuDeviceGetDefaultMemPool(pool, dev);
}

EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	int i;

	ENTER("cuMemPoolCreate");
	if (!pool || !props || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    props->location.id < 0 || props->location.id >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	for (i = MAX_DEVS; i < MAX_POOLS && pools[i].in_use; i++)
		;
	if (i == MAX_POOLS) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pools[i] = (struct pool){ 1, props->location.id, 0, 0, 0 };
	*pool = (CUmemoryPool)&pools[i];
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* Destroying a pool with live allocations is the caller's error; the fake refuses it. */
EXPORT CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	struct pool *p;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolDestroy");
	pthread_mutex_lock(&lock);
	p = pool_of(pool);
	if (!p || p < pools + MAX_DEVS || p->live) {
		rc = CUDA_ERROR_INVALID_VALUE;
	} else {
		pool_shrink(p, 0);
		p->in_use = 0;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	struct pool *p;

	ENTER("cuMemPoolTrimTo");
	pthread_mutex_lock(&lock);
	p = pool_of(pool);
	if (p)
		pool_shrink(p, minBytesToKeep < p->reserved ? minBytesToKeep : p->reserved);
	pthread_mutex_unlock(&lock);
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
					      void *value)
{
	struct pool *p;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolSetAttribute");
	pthread_mutex_lock(&lock);
	p = pool_of(pool);
	if (!p || !value || attr != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
		rc = CUDA_ERROR_INVALID_VALUE;
	else
		p->threshold = *(cuuint64_t *)value;
	pthread_mutex_unlock(&lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
					      void *value)
{
	struct pool *p;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolGetAttribute");
	pthread_mutex_lock(&lock);
	p = pool_of(pool);
	if (!p || !value)
		rc = CUDA_ERROR_INVALID_VALUE;
	else if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
		*(cuuint64_t *)value = p->threshold;
	else if (attr == CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
		*(cuuint64_t *)value = p->reserved;
	else if (attr == CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
		*(cuuint64_t *)value = p->live;
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&lock);
	return rc;
}

/* --- virtual memory management ------------------------------------------------------- */

EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				    const CUmemAllocationProp *prop, unsigned long long flags)
{
	ENTER("cuMemCreate");
	if (!prop || flags || !handle)
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_NOT_SUPPORTED;
	return do_alloc((uint64_t *)handle, size, prop->location.id, K_HANDLE);
}

EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	ENTER("cuMemRelease");
	return do_free(handle, K_HANDLE);
}

/* Address reservations are not checked: any address not mapped yet may be mapped. */
EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
				 CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	struct alloc *a;
	int i, free_i = -1;

	ENTER("cuMemMap");
	if (!ptr || !size || offset || flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	a = find_entry(handle, K_HANDLE);
	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].size && ptr < maps[i].va + maps[i].size && maps[i].va < ptr + size)
			break; /* overlaps a mapping */
		if (!maps[i].size && free_i < 0)
			free_i = i;
	}
	if (!a || a->refs < 1 || size > a->bytes || i < MAX_MAPS || free_i < 0) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	maps[free_i].va = ptr;
	maps[free_i].size = size;
	maps[free_i].handle = handle;
	a->maps++;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* Unmaps every mapping inside [ptr, ptr + size); the last unmap of a released handle frees it. */
EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	int i, n = 0;

	ENTER("cuMemUnmap");
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_MAPS; i++) {
		struct alloc *a;

		if (!maps[i].size || maps[i].va < ptr || maps[i].va + maps[i].size > ptr + size)
			continue;
		a = find_entry(maps[i].handle, K_HANDLE);
		maps[i].size = 0;
		n++;
		if (a && --a->maps == 0 && a->refs == 0) {
			fk.used[a->dev] -= a->bytes;
			memset(a, 0, sizeof(*a));
		}
	}
	pthread_mutex_unlock(&lock);
	return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
						    void *addr)
{
	uint64_t va = (uint64_t)(uintptr_t)addr;
	int i;

	ENTER("cuMemRetainAllocationHandle");
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].size && va >= maps[i].va && va < maps[i].va + maps[i].size) {
			struct alloc *a = find_entry(maps[i].handle, K_HANDLE);

			if (a)
				a->refs++;
			*handle = maps[i].handle;
			pthread_mutex_unlock(&lock);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&lock);
	return CUDA_ERROR_INVALID_VALUE;
}

/* --- arrays ------------------------------------------------------------------------------- */

/* Exact bytes of one level: the fake packs arrays densely (a real driver pads them). */
static uint64_t level_bytes(CUarray_format fmt, unsigned channels, uint64_t w, uint64_t h,
			    uint64_t d)
{
	uint64_t elem = fmt == CU_AD_FORMAT_UNSIGNED_INT8 || fmt == CU_AD_FORMAT_SIGNED_INT8 ? 1
			: fmt == CU_AD_FORMAT_UNSIGNED_INT16 || fmt == CU_AD_FORMAT_SIGNED_INT16 ||
					fmt == CU_AD_FORMAT_HALF
				? 2
				: 4;

	return elem * channels * w * (h ? h : 1) * (d ? d : 1);
}

static CUresult array_alloc(uint64_t *out, const CUDA_ARRAY3D_DESCRIPTOR *a, unsigned levels)
{
	uint64_t bytes = 0;
	unsigned l;

	if (!out || !a || !a->Width || !levels ||
	    (a->NumChannels != 1 && a->NumChannels != 2 && a->NumChannels != 4))
		return CUDA_ERROR_INVALID_VALUE;
	for (l = 0; l < levels; l++) {
		uint64_t w = a->Width >> l, h = a->Height >> l, d = a->Depth;

		if (!(a->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)))
			d >>= l;
		bytes += level_bytes(a->Format, a->NumChannels, w ? w : 1,
				     a->Height ? (h ? h : 1) : 0, a->Depth ? (d ? d : 1) : 0);
	}
	return do_alloc(out, bytes, cur_dev, K_ARRAY);
}

EXPORT CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *d)
{
	CUDA_ARRAY3D_DESCRIPTOR d3;

	ENTER("cuArrayCreate_v2");
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	memset(&d3, 0, sizeof(d3));
	d3.Width = d->Width;
	d3.Height = d->Height;
	d3.Format = d->Format;
	d3.NumChannels = d->NumChannels;
	return array_alloc((uint64_t *)pHandle, &d3, 1);
}

EXPORT CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	ENTER("cuArray3DCreate_v2");
	return array_alloc((uint64_t *)pHandle, d, 1);
}

EXPORT CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
					       const CUDA_ARRAY3D_DESCRIPTOR *d,
					       unsigned int numMipmapLevels)
{
	ENTER("cuMipmappedArrayCreate");
	return array_alloc((uint64_t *)pHandle, d, numMipmapLevels);
}

EXPORT CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
	ENTER("cuArrayDestroy");
	return do_free((uint64_t)(uintptr_t)hArray, K_ARRAY);
}

EXPORT CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
	ENTER("cuMipmappedArrayDestroy");
	return do_free((uint64_t)(uintptr_t)hMipmappedArray, K_ARRAY);
}

/* --- graphs with memory nodes ---------------------------------------------------------- */

/*
 * Graphs, nodes and executable graphs are heap objects; the fake does not
 * model the physical memory of graph allocations (the hook's accounting
 * is what the tests check), only their nodes and addresses.
 */
struct fake_node {
	struct fake_graph *graph;
	uint64_t bytes;
};

EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	ENTER("cuGraphCreate");
	if (!phGraph || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*phGraph = (CUgraph)calloc(1, sizeof(struct fake_graph));
	return *phGraph ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					       const CUgraphNode *dependencies,
					       size_t numDependencies,
					       CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	struct fake_graph *g = (struct fake_graph *)hGraph;
	struct fake_node *n;

	ENTER("cuGraphAddMemAllocNode");
	(void)dependencies;
	(void)numDependencies;
	if (!phGraphNode || !g || !nodeParams || !nodeParams->bytesize ||
	    nodeParams->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	n = calloc(1, sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	n->graph = g;
	n->bytes = nodeParams->bytesize;
	g->nodes++;
	pthread_mutex_lock(&lock);
	nodeParams->dptr = new_address(nodeParams->bytesize);
	pthread_mutex_unlock(&lock);
	*phGraphNode = (CUgraphNode)n;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	struct fake_node *n = (struct fake_node *)hNode;

	ENTER("cuGraphDestroyNode");
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	n->graph->nodes--;
	free(n);
	return CUDA_SUCCESS;
}

/* The nodes of a destroyed graph are leaked: the fake does not list them. */
EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	ENTER("cuGraphDestroy");
	if (!hGraph)
		return CUDA_ERROR_INVALID_VALUE;
	free(hGraph);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	struct fake_graph *g;

	ENTER("cuGraphClone");
	if (!phGraphClone || !originalGraph)
		return CUDA_ERROR_INVALID_VALUE;
	g = malloc(sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*g = *(struct fake_graph *)originalGraph;
	*phGraphClone = (CUgraph)g;
	return CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *exec, CUgraph graph)
{
	if (!exec || !graph)
		return CUDA_ERROR_INVALID_VALUE;
	*exec = (CUgraphExec)calloc(1, 16);
	return *exec ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
					      CUgraphNode *phErrorNode, char *logBuffer,
					      size_t bufferSize)
{
	ENTER("cuGraphInstantiate_v2");
	(void)phErrorNode;
	(void)logBuffer;
	(void)bufferSize;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
						    unsigned long long flags)
{
	ENTER("cuGraphInstantiateWithFlags");
	(void)flags;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
						     CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	ENTER("cuGraphInstantiateWithParams");
	(void)params;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec,
							  CUgraph hGraph,
							  CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	ENTER("cuGraphInstantiateWithParams_ptsz");
	(void)params;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	ENTER("cuGraphExecDestroy");
	if (!hGraphExec)
		return CUDA_ERROR_INVALID_VALUE;
	free(hGraphExec);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	ENTER("cuDeviceGraphMemTrim");
	return device >= 0 && device < fk.n_devs ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* --- contexts --------------------------------------------------------------------------- */

/*
 * A context costs FAKECUDA_CTX_MIB of device memory (default 0), as the
 * driver's own state does on a real GPU: the primary context of a device
 * while it is retained, every created context until it is destroyed.
 */
static int primary_refs[MAX_DEVS];

struct fake_ctx {
	int dev;
};

static void ctx_charge(int dev, int sign)
{
	pthread_mutex_lock(&lock);
	if (sign > 0)
		fk.used[dev] += fk.ctx_bytes;
	else
		fk.used[dev] -= fk.ctx_bytes;
	pthread_mutex_unlock(&lock);
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRetain");
	if (!pctx || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	if (primary_refs[dev]++ == 0)
		ctx_charge(dev, 1);
	*pctx = (CUcontext)(uintptr_t)(0x1000 + dev);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRelease_v2");
	if (dev < 0 || dev >= fk.n_devs || !primary_refs[dev])
		return CUDA_ERROR_INVALID_CONTEXT;
	if (--primary_refs[dev] == 0)
		ctx_charge(dev, -1);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxReset_v2");
	if (dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_DEVICE;
	if (primary_refs[dev])
		ctx_charge(dev, -1);
	primary_refs[dev] = 0;
	return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
	struct fake_ctx *c;

	if (!pctx || dev < 0 || dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_VALUE;
	c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->dev = dev;
	ctx_charge(dev, 1);
	cur_dev = dev; /* a new context is current */
	*pctx = (CUcontext)c;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	ENTER("cuCtxCreate_v2");
	(void)flags;
	return ctx_create(pctx, dev);
}

EXPORT CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
				       int numParams, unsigned int flags, CUdevice dev)
{
	ENTER("cuCtxCreate_v3");
	(void)paramsArray;
	(void)numParams;
	(void)flags;
	return ctx_create(pctx, dev);
}

EXPORT CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params,
				       unsigned int flags, CUdevice dev)
{
	ENTER("cuCtxCreate_v4");
	(void)params;
	(void)flags;
	return ctx_create(pctx, dev);
}

EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	struct fake_ctx *c = (struct fake_ctx *)ctx;

	ENTER("cuCtxDestroy_v2");
	if (!c || (uintptr_t)ctx < 0x2000)
		return CUDA_ERROR_INVALID_CONTEXT; /* NULL, or a primary context */
	ctx_charge(c->dev, -1);
	free(c);
	return CUDA_SUCCESS;
}

/* --- the simulated GPU timeline ---------------------------------------------------- */

static CUresult run_kernel(CUstream s, uint64_t dur_ns)
{
	uint64_t t = now_ns(), start, wait = 0;
	int d = cur_dev, captured;
	CUresult rc;

	if (d < 0 || d >= fk.n_devs)
		return CUDA_ERROR_INVALID_CONTEXT;
	rc = into_stream(s, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&lock);
	start = fk.busy_until_ns[d] > t ? fk.busy_until_ns[d] : t;
	fk.busy_until_ns[d] = start + dur_ns;
	fk.kernel_ns += dur_ns;
	fk.launches++;
	if (start > t + QUEUE_NS)
		wait = start - t - QUEUE_NS;
	pthread_mutex_unlock(&lock);
	/* A full launch queue blocks the host, as on a real GPU. */
	if (wait) {
		struct timespec ts = { (time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull) };

		nanosleep(&ts, NULL);
	}
	return CUDA_SUCCESS;
}

#define LAUNCH_PAIR(name, args_decl, check, stream, dur)                      \
	EXPORT CUresult CUDAAPI name args_decl                                \
	{                                                                     \
		ENTER(#name);                                                 \
		if (!(check))                                                 \
			return CUDA_ERROR_INVALID_VALUE;                      \
		return run_kernel(stream, dur);                               \
	}                                                                     \
	EXPORT CUresult CUDAAPI name##_ptsz args_decl                         \
	{                                                                     \
		ENTER(#name "_ptsz");                                         \
		if (!(check))                                                 \
			return CUDA_ERROR_INVALID_VALUE;                      \
		return run_kernel((stream) ? (stream) : CU_STREAM_PER_THREAD, dur); \
	}

#define KERNEL_ARGS                                                                  \
	(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, \
	 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,           \
	 unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
#define COOP_ARGS                                                                    \
	(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, \
	 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,           \
	 unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
#define KERNEL_OK                                                                    \
	((void)hStream, (void)kernelParams, (void)sharedMemBytes,                         \
	 f && gridDimX && gridDimY && gridDimZ && blockDimX && blockDimY && blockDimZ)

LAUNCH_PAIR(cuLaunchKernel, KERNEL_ARGS, KERNEL_OK && ((void)extra, 1), hStream,
	    gridDimX * fk.block_ns)
LAUNCH_PAIR(cuLaunchCooperativeKernel, COOP_ARGS, KERNEL_OK, hStream, gridDimX * fk.block_ns)
LAUNCH_PAIR(cuLaunchKernelEx,
	    (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra),
	    ((void)kernelParams, (void)extra, config && f && config->gridDimX), config->hStream,
	    config->gridDimX * fk.block_ns)
LAUNCH_PAIR(cuGraphLaunch, (CUgraphExec hGraphExec, CUstream hStream), hGraphExec != NULL,
	    hStream, 100000ull)

/* A launch through cuGetProcAddress when FAKECUDA_GPA_DISTINCT is set. */
static CUresult CUDAAPI gpa_cuLaunchKernel KERNEL_ARGS
{
	return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
			      sharedMemBytes, hStream, kernelParams, extra);
}

static CUresult CUDAAPI gpa_cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	return cuMemAlloc_v2(dptr, bytesize);
}

/* An ABI of cuMemAlloc from a future CUDA, which the hook cannot know. */
static CUresult CUDAAPI fake_cuMemAlloc_v99(CUdeviceptr *dptr, size_t bytesize)
{
	return cuMemAlloc_v2(dptr, bytesize);
}

EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	struct event *e;

	ENTER("cuEventCreate");
	if (!phEvent || Flags)
		return CUDA_ERROR_INVALID_VALUE;
	e = calloc(1, sizeof(*e));
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phEvent = (CUevent)e;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
	ENTER("cuEventDestroy_v2");
	free(hEvent);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	struct event *e = (struct event *)hEvent;
	uint64_t t = now_ns();

	CUresult rc;
	int captured;

	ENTER("cuEventRecord");
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = into_stream(hStream, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&lock);
	e->t_ns = fk.busy_until_ns[cur_dev] > t ? fk.busy_until_ns[cur_dev] : t;
	e->recorded = 1;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	struct event *e = (struct event *)hEvent;

	ENTER("cuEventQuery");
	UNSAFE();
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	return now_ns() >= e->t_ns ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	struct event *a = (struct event *)hStart, *b = (struct event *)hEnd;
	uint64_t t = now_ns();

	ENTER("cuEventElapsedTime");
	if (!pMilliseconds || !a || !b || !a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_HANDLE;
	if (t < a->t_ns || t < b->t_ns)
		return CUDA_ERROR_NOT_READY;
	*pMilliseconds = (float)((double)((int64_t)(b->t_ns - a->t_ns)) / 1e6);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	struct capture *c;

	ENTER("cuStreamIsCapturing");
	if (!captureStatus)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	c = capture_of(hStream);
	*captureStatus = !c ? CU_STREAM_CAPTURE_STATUS_NONE
			    : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
					     : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* --- cuGetProcAddress ------------------------------------------------------------- */

enum { ANY, LEGACY, PTSZ };

struct proc {
	const char *api;
	int version;
	int flavour;
	const char *export_name;
	void *fn;
};

#define P(api, ver, fl, name) { api, ver, fl, #name, (void *)name }
static const struct proc procs[] = {
	P("cuInit", 2000, ANY, cuInit),
	P("cuDriverGetVersion", 2020, ANY, cuDriverGetVersion),
	P("cuDeviceGetCount", 2000, ANY, cuDeviceGetCount),
	P("cuDeviceGet", 2000, ANY, cuDeviceGet),
	P("cuDeviceGetName", 2000, ANY, cuDeviceGetName),
	P("cuDeviceGetUuid", 9020, ANY, cuDeviceGetUuid),
	P("cuDeviceTotalMem", 3020, ANY, cuDeviceTotalMem_v2),
	P("cuDeviceGetAttribute", 2000, ANY, cuDeviceGetAttribute),
	P("cuCtxGetCurrent", 4000, ANY, cuCtxGetCurrent),
	P("cuCtxGetDevice", 2000, ANY, cuCtxGetDevice),
	P("cuGetProcAddress", 11030, ANY, cuGetProcAddress),
	P("cuGetProcAddress", 12000, ANY, cuGetProcAddress_v2),
	P("cuMemGetInfo", 3020, ANY, cuMemGetInfo_v2),
	P("cuMemAlloc", 2000, ANY, cuMemAlloc),
	P("cuMemAlloc", 3020, ANY, cuMemAlloc_v2),
	P("cuMemAlloc", 99000, ANY, fake_cuMemAlloc_v99),
	P("cuMemAllocManaged", 6000, ANY, cuMemAllocManaged),
	P("cuMemAllocPitch", 3020, ANY, cuMemAllocPitch_v2),
	P("cuMemFree", 3020, ANY, cuMemFree_v2),
	P("cuMemAllocAsync", 11020, LEGACY, cuMemAllocAsync),
	P("cuMemAllocAsync", 11020, PTSZ, cuMemAllocAsync_ptsz),
	P("cuMemAllocFromPoolAsync", 11020, LEGACY, cuMemAllocFromPoolAsync),
	P("cuMemAllocFromPoolAsync", 11020, PTSZ, cuMemAllocFromPoolAsync_ptsz),
	P("cuMemFreeAsync", 11020, LEGACY, cuMemFreeAsync),
	P("cuMemFreeAsync", 11020, PTSZ, cuMemFreeAsync_ptsz),
	P("cuMemCreate", 10020, ANY, cuMemCreate),
	P("cuMemRelease", 10020, ANY, cuMemRelease),
	P("cuMemMap", 10020, ANY, cuMemMap),
	P("cuMemUnmap", 10020, ANY, cuMemUnmap),
	P("cuMemRetainAllocationHandle", 11000, ANY, cuMemRetainAllocationHandle),
	P("cuDeviceGetDefaultMemPool", 11020, ANY, cuDeviceGetDefaultMemPool),
	P("cuDeviceGetMemPool", 11020, ANY, cuDeviceGetMemPool),
	P("cuMemPoolCreate", 11020, ANY, cuMemPoolCreate),
	P("cuMemPoolDestroy", 11020, ANY, cuMemPoolDestroy),
	P("cuMemPoolTrimTo", 11020, ANY, cuMemPoolTrimTo),
	P("cuMemPoolSetAttribute", 11020, ANY, cuMemPoolSetAttribute),
	P("cuMemPoolGetAttribute", 11020, ANY, cuMemPoolGetAttribute),
	P("cuArrayCreate", 3020, ANY, cuArrayCreate_v2),
	P("cuArray3DCreate", 3020, ANY, cuArray3DCreate_v2),
	P("cuMipmappedArrayCreate", 5000, ANY, cuMipmappedArrayCreate),
	P("cuArrayDestroy", 2000, ANY, cuArrayDestroy),
	P("cuMipmappedArrayDestroy", 5000, ANY, cuMipmappedArrayDestroy),
	P("cuGraphCreate", 10000, ANY, cuGraphCreate),
	P("cuGraphAddMemAllocNode", 11040, ANY, cuGraphAddMemAllocNode),
	P("cuGraphDestroyNode", 10000, ANY, cuGraphDestroyNode),
	P("cuGraphDestroy", 10000, ANY, cuGraphDestroy),
	P("cuGraphClone", 10000, ANY, cuGraphClone),
	P("cuGraphInstantiate", 11000, ANY, cuGraphInstantiate_v2),
	P("cuGraphInstantiateWithFlags", 11040, ANY, cuGraphInstantiateWithFlags),
	P("cuGraphInstantiateWithParams", 12000, LEGACY, cuGraphInstantiateWithParams),
	P("cuGraphInstantiateWithParams", 12000, PTSZ, cuGraphInstantiateWithParams_ptsz),
	P("cuGraphExecDestroy", 10000, ANY, cuGraphExecDestroy),
	P("cuDeviceGraphMemTrim", 11040, ANY, cuDeviceGraphMemTrim),
	P("cuDevicePrimaryCtxRetain", 7000, ANY, cuDevicePrimaryCtxRetain),
	P("cuDevicePrimaryCtxRelease", 11000, ANY, cuDevicePrimaryCtxRelease_v2),
	P("cuDevicePrimaryCtxReset", 11000, ANY, cuDevicePrimaryCtxReset_v2),
	P("cuCtxCreate", 3020, ANY, cuCtxCreate_v2),
	P("cuCtxCreate", 11040, ANY, cuCtxCreate_v3),
	P("cuCtxCreate", 12050, ANY, cuCtxCreate_v4),
	P("cuCtxDestroy", 4000, ANY, cuCtxDestroy_v2),
	P("cuLaunchKernel", 4000, LEGACY, cuLaunchKernel),
	P("cuLaunchKernel", 7000, PTSZ, cuLaunchKernel_ptsz),
	P("cuLaunchKernelEx", 11060, LEGACY, cuLaunchKernelEx),
	P("cuLaunchKernelEx", 11060, PTSZ, cuLaunchKernelEx_ptsz),
	P("cuLaunchCooperativeKernel", 9000, LEGACY, cuLaunchCooperativeKernel),
	P("cuLaunchCooperativeKernel", 9000, PTSZ, cuLaunchCooperativeKernel_ptsz),
	P("cuGraphLaunch", 10000, LEGACY, cuGraphLaunch),
	P("cuGraphLaunch", 10000, PTSZ, cuGraphLaunch_ptsz),
	P("cuEventCreate", 2000, ANY, cuEventCreate),
	P("cuEventDestroy", 4000, ANY, cuEventDestroy_v2),
	P("cuEventRecord", 2000, LEGACY, cuEventRecord),
	P("cuEventQuery", 2000, ANY, cuEventQuery),
	P("cuEventElapsedTime", 2000, ANY, cuEventElapsedTime),
	P("cuStreamIsCapturing", 10000, LEGACY, cuStreamIsCapturing),
	P("cuStreamBeginCapture", 10010, LEGACY, cuStreamBeginCapture_v2),
	P("cuStreamBeginCapture", 10010, PTSZ, cuStreamBeginCapture_v2_ptsz),
	P("cuStreamEndCapture", 10000, LEGACY, cuStreamEndCapture),
	P("cuThreadExchangeStreamCaptureMode", 10010, ANY, cuThreadExchangeStreamCaptureMode),
	P("cuStreamSynchronize", 2000, LEGACY, cuStreamSynchronize),
	P("cuCtxSynchronize", 2000, ANY, cuCtxSynchronize),
};
#undef P

EXPORT void *fakecuda_self(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (!strcmp(procs[i].export_name, name))
			return procs[i].fn;
	return NULL;
}

static CUresult gpa(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
		    CUdriverProcAddressQueryResult *status)
{
	const struct proc *best = NULL;
	int known = 0, want_ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	size_t i;

	if (status)
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		const struct proc *p = &procs[i];

		if (strcmp(p->api, symbol))
			continue;
		known = 1;
		if (p->version > cudaVersion)
			continue;
		if ((p->flavour == PTSZ && !want_ptsz) || (p->flavour == LEGACY && want_ptsz))
			continue;
		if (!best || p->version > best->version)
			best = p;
	}
	if (!best) {
		if (status && known)
			*status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		return CUDA_ERROR_NOT_FOUND;
	}
	*pfn = best->fn;
	/*
	 * Read here: the hook asks before cuInit. Only for flags 0, what the
	 * runtime asks with: flags 1 and 2 get the exports.
	 */
	if (flags == CU_GET_PROC_ADDRESS_DEFAULT && env_u64("FAKECUDA_GPA_DISTINCT", 0)) {
		if (best->fn == (void *)cuMemAlloc_v2)
			*pfn = (void *)gpa_cuMemAlloc_v2;
		else if (best->fn == (void *)cuLaunchKernel)
			*pfn = (void *)gpa_cuLaunchKernel;
	}
	if (status)
		*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
					 cuuint64_t flags)
{
	return gpa(symbol, pfn, cudaVersion, flags, NULL);
}

EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
					    cuuint64_t flags,
					    CUdriverProcAddressQueryResult *symbolStatus)
{
	return gpa(symbol, pfn, cudaVersion, flags, symbolStatus);
}
