/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_mem.c - libgpushare's memory wrappers: every way to obtain device
 * memory reserves its bytes in the pod region before the driver is asked,
 * and every way to give it back returns exactly what was reserved.
 * What the pod sees of the device (cuMemGetInfo, cuDeviceTotalMem) is its
 * limit. See hook.c for how calls reach these wrappers.
 *
 * What is charged, and until when:
 *   cuMemAlloc, cuMemAllocPitch (with its padding), cuMemAllocManaged
 *       the bytes, until cuMemFree.
 *   stream-ordered allocations (cuMemAllocAsync, cuMemAllocFromPoolAsync)
 *       what their pool holds: its high-water mark of live bytes. A free
 *       gives back only what the pool lets go, down to its release
 *       threshold (cuMemPoolGetAttribute, asked at each free; 0 by
 *       default, the maximum under PyTorch's cudaMallocAsync backend);
 *       cuMemPoolTrimTo and cuMemPoolDestroy give back what they release.
 *       The driver releases at the next synchronisation; we at the free.
 *   cuMemCreate (VMM) the physical size, until the handle is released
 *       (cuMemRelease, once more per cuMemRetainAllocationHandle) and no
 *       longer mapped (cuMemUnmap): NVIDIA's samples release right after
 *       mapping, and the memory lives until the last unmap.
 *   arrays (cuArrayCreate, cuArray3DCreate, cuMipmappedArrayCreate) their
 *       size as memsize.h rounds it up, until destroyed.
 *   graph memory nodes (cuGraphAddMemAllocNode) their bytes from the
 *       node's creation, so that a refusal comes where the program can
 *       see it, while the graph, a clone of it or a graph instantiated
 *       from it lives; then, since the driver keeps graph memory cached in
 *       the device's graph pool, as that pool's high-water mark until
 *       cuDeviceGraphMemTrim. A node destroyed before its graph is
 *       instantiated, and a graph never instantiated, give the bytes back
 *       at once.
 *   contexts GPUSHARE_CONTEXT_RESERVE_MIB each (0 by default): a device's
 *       primary context while this process retains it, a created context
 *       until destroyed.
 * Not counted: memory a graph allocates when launched after being captured
 * with cuMemAllocAsync inside the capture (charged when captured, given
 * back by the captured free), imported handles (charged where exported).
 */
#include "hook_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "hook_pod.h"
#include "memsize.h"

/* memsize.c works on cuda.h's numbers without including it. */
_Static_assert(GS_ARRAY_LAYERED == CUDA_ARRAY3D_LAYERED, "CUDA_ARRAY3D_LAYERED");
_Static_assert(GS_ARRAY_CUBEMAP == CUDA_ARRAY3D_CUBEMAP, "CUDA_ARRAY3D_CUBEMAP");
_Static_assert(CU_AD_FORMAT_FLOAT == 0x20 && CU_AD_FORMAT_HALF == 0x10 &&
		       CU_AD_FORMAT_NV12 == 0xb0 && CU_AD_FORMAT_BC1_UNORM == 0x91,
	       "CUarray_format");

#define MAX_POOLS 64

/* A stream-ordered pool this process allocated from. */
struct pool_acct {
	uint64_t pool;           /* CUmemoryPool; 0 = free entry */
	int dev;                 /* pod device index its bytes are charged on */
	int destroyed;           /* cuMemPoolDestroy with allocations still live */
	uint64_t live, reserved; /* bytes allocated, bytes charged */
};

/* A graph with memory nodes, or a clone of one. */
struct graph_acct {
	uint64_t graph;
	int refs;                /* the graph itself and each instantiation */
	int instantiated;        /* its memory may be in the device's graph pool */
	uint64_t bytes[MAX_ORDINALS];
};

/* The memory state beyond device pointers; all under gs_state_lock. */
static struct {
	struct gs_ptrmap maps;     /* VMM mapping address -> size, owner = handle */
	struct gs_ptrmap arrays;   /* CUarray and CUmipmappedArray */
	struct gs_ptrmap gnodes;   /* memory node -> bytes, owner = graph */
	struct gs_ptrmap execs;    /* executable graph -> owner = graph */
	struct gs_ptrmap ctxs;     /* created contexts */
	struct pool_acct pools[MAX_POOLS];
	struct graph_acct *graphs;
	size_t n_graphs, cap_graphs;
	uint64_t graph_pool[MAX_ORDINALS]; /* what the driver keeps cached */
	int primary_refs[MAX_ORDINALS];
	int primary_dev[MAX_ORDINALS];
} ms;

void gs_hook_mem_reset(void)
{
	gs_ptrmap_init(&ms.maps);
	gs_ptrmap_init(&ms.arrays);
	gs_ptrmap_init(&ms.gnodes);
	gs_ptrmap_init(&ms.execs);
	gs_ptrmap_init(&ms.ctxs);
}

void gs_hook_mem_forget(void)
{
	gs_ptrmap_release(&ms.maps);
	gs_ptrmap_release(&ms.arrays);
	gs_ptrmap_release(&ms.gnodes);
	gs_ptrmap_release(&ms.execs);
	gs_ptrmap_release(&ms.ctxs);
	free(ms.graphs);
	memset(&ms, 0, sizeof(ms));
	gs_hook_mem_reset();
}

/*
 * Reserves bytes on a device (ordinal, or -1 for the current one) before
 * the driver is asked. *dev_out is the ordinal to give back to, -1 when
 * nothing is accounted (no limit); a device that cannot be accounted is
 * refused (hook_pod.h).
 */
static CUresult mem_reserve(uint64_t bytes, int ordinal, int *dev_out)
{
	return gs_hook_pod_reserve(bytes, ordinal, dev_out);
}

static void mem_cancel(uint64_t bytes, int dev)
{
	gs_hook_pod_cancel(bytes, dev);
}

/* The driver said yes: remember what to give back on free. */
static void mem_commit(struct gs_ptrmap *map, uint64_t key, uint64_t bytes, int dev)
{
	int rc;

	if (dev < 0)
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_put(map, key, bytes, dev);
	pthread_mutex_unlock(&gs_state_lock);
	if (rc) {
		/* Untracked, it could never be returned: give it back now. */
		mem_cancel(bytes, dev);
		gs_log(GS_SHARE_LOG_WARN, "out of host memory: %llu bytes are not accounted",
		       (unsigned long long)bytes);
	}
}

/* mem_commit with every field of the entry (refs, owner, aux) given. */
static void mem_commit_entry(struct gs_ptrmap *map, const struct gs_ptrmap_entry *e)
{
	int rc;

	if (e->dev < 0)
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_put_entry(map, e);
	pthread_mutex_unlock(&gs_state_lock);
	if (rc) {
		mem_cancel(e->bytes, e->dev);
		gs_log(GS_SHARE_LOG_WARN, "out of host memory: %llu bytes are not accounted",
		       (unsigned long long)e->bytes);
	}
}

/*
 * Charges bytes on device ordinal dev (-1: nothing to charge). hook_pod.c
 * takes only locks of its own, so gs_state_lock may be held.
 */
static CUresult charge(int dev, uint64_t bytes)
{
	int d;

	if (dev < 0 || !bytes)
		return CUDA_SUCCESS;
	return gs_hook_pod_reserve(bytes, dev, &d);
}

static void mem_release(struct gs_ptrmap *map, uint64_t key)
{
	struct gs_ptrmap_entry e;
	int rc;

	if (!gs_hook_pod_on())
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_take(map, key, &e);
	pthread_mutex_unlock(&gs_state_lock);
	if (!rc)
		mem_cancel(e.bytes, e.dev);
}

/* The two halves of every allocation that returns one device pointer. */
static CUresult alloc_begin(uint64_t bytes, int *dev_out)
{
	CUresult rc = gs_hook_enter();

	*dev_out = -1;
	return rc ? rc : mem_reserve(bytes, -1, dev_out);
}

static CUresult alloc_end(CUresult rc, const CUdeviceptr *dptr, uint64_t bytes, int dev)
{
	if (rc == CUDA_SUCCESS && dptr)
		mem_commit(&gs_st.ptrs, *dptr, bytes, dev);
	else
		mem_cancel(bytes, dev);
	return rc;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAlloc_v2, (dptr, bytesize)), dptr, bytesize, dev);
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAllocManaged, (dptr, bytesize, flags)), dptr, bytesize,
			 dev);
}

/* --- stream-ordered pools ----------------------------------------------------- */

/* With gs_state_lock held: the account of pool, made if create, or NULL. */
static struct pool_acct *pool_acct_of(uint64_t pool, int dev, int create)
{
	struct pool_acct *free_p = NULL;
	int i;

	for (i = 0; i < MAX_POOLS; i++) {
		if (ms.pools[i].pool == pool)
			return &ms.pools[i];
		if (!ms.pools[i].pool && !free_p)
			free_p = &ms.pools[i];
	}
	if (!create || !free_p)
		return NULL;
	memset(free_p, 0, sizeof(*free_p));
	free_p->pool = pool;
	free_p->dev = dev;
	return free_p;
}

/* With gs_state_lock held: gives back what the pool holds above max(live, keep). */
static void pool_shrink_locked(struct pool_acct *p, uint64_t keep)
{
	if (keep < p->live)
		keep = p->live;
	if (p->reserved > keep) {
		mem_cancel(p->reserved - keep, p->dev);
		p->reserved = keep;
	}
	if (p->destroyed && !p->live)
		memset(p, 0, sizeof(*p));
}

struct pool_op {
	uint64_t pool;           /* 0: charged as a plain allocation */
	uint64_t bytes;
	uint64_t grow;           /* what this allocation charged */
	int dev;                 /* -1: nothing charged */
};

/*
 * Before a stream-ordered allocation of bytes from pool (NULL: the current
 * pool of the current device): charges what the pool must grow by.
 */
static CUresult pool_begin(CUmemoryPool pool, uint64_t bytes, struct pool_op *op)
{
	CUresult rc = gs_hook_enter();
	struct pool_acct *p = NULL;
	CUdevice ordinal;

	memset(op, 0, sizeof(*op));
	op->dev = -1;
	op->bytes = bytes;
	if (rc || !gs_hook_pod_on() || !bytes)
		return rc;
	/* No device to charge: refused, as hook_pod.c refuses other allocations. */
	rc = CALL_REAL(cuCtxGetDevice, (&ordinal));
	if (rc)
		return rc;
	if (!pool && (!gs_real.cuDeviceGetMemPool ||
		      gs_real.cuDeviceGetMemPool(&pool, ordinal) != CUDA_SUCCESS))
		pool = NULL;
	/* A device without a limit is not accounted; a bad ordinal is refused below. */
	op->dev = ordinal >= MAX_ORDINALS || gs_hook_pod_limit(ordinal) ? ordinal : -1;
	pthread_mutex_lock(&gs_state_lock);
	if (op->dev >= 0 && op->dev < MAX_ORDINALS && pool)
		p = pool_acct_of((uint64_t)(uintptr_t)pool, op->dev, 1);
	if (p) {
		op->pool = p->pool;
		op->grow = p->live + bytes > p->reserved ? p->live + bytes - p->reserved : 0;
		rc = charge(p->dev, op->grow);
		if (rc == CUDA_SUCCESS) {
			p->live += bytes;
			p->reserved += op->grow;
		}
	} else {
		/* No pool to follow (or too many): charged like cuMemAlloc. */
		op->grow = bytes;
		rc = charge(op->dev, bytes);
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (rc)
		op->dev = -1;
	return rc;
}

static CUresult pool_end(CUresult rc, const CUdeviceptr *dptr, const struct pool_op *op)
{
	struct pool_acct *p;

	if (op->dev < 0)
		return rc;
	if (rc == CUDA_SUCCESS && dptr) {
		struct gs_ptrmap_entry e = { *dptr, op->bytes, op->dev, 0, op->pool, 0 };

		if (!op->pool) {
			mem_commit_entry(&gs_st.ptrs, &e);
			return rc;
		}
		pthread_mutex_lock(&gs_state_lock);
		if (gs_ptrmap_put_entry(&gs_st.ptrs, &e) == 0) {
			pthread_mutex_unlock(&gs_state_lock);
			return rc;
		}
		gs_log(GS_SHARE_LOG_WARN, "out of host memory: %llu bytes are not accounted",
		       (unsigned long long)op->bytes);
		/* Untracked: undo as for a failure, below (the lock is held). */
	} else {
		pthread_mutex_lock(&gs_state_lock);
	}
	p = op->pool ? pool_acct_of(op->pool, op->dev, 0) : NULL;
	if (p) {
		p->live = p->live > op->bytes ? p->live - op->bytes : 0;
		pool_shrink_locked(p, p->reserved > op->grow ? p->reserved - op->grow : 0);
	} else if (!op->pool) {
		mem_cancel(op->grow, op->dev);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* The release threshold of pool; the maximum (keep all) when unknown. */
static uint64_t pool_threshold(uint64_t pool)
{
	cuuint64_t v = UINT64_MAX;

	if (!gs_real.cuMemPoolGetAttribute ||
	    gs_real.cuMemPoolGetAttribute((CUmemoryPool)(uintptr_t)pool,
					  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
					  &v) != CUDA_SUCCESS)
		return UINT64_MAX;
	return v;
}

/* A device pointer was freed: its bytes, or what its pool lets go, come back. */
static void ptr_release(CUdeviceptr dptr)
{
	struct gs_ptrmap_entry e;
	struct pool_acct *p;
	uint64_t threshold;
	int rc;

	if (!gs_hook_pod_on())
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_take(&gs_st.ptrs, dptr, &e);
	pthread_mutex_unlock(&gs_state_lock);
	if (rc)
		return;
	if (!e.owner) {
		mem_cancel(e.bytes, e.dev);
		return;
	}
	threshold = pool_threshold(e.owner);
	pthread_mutex_lock(&gs_state_lock);
	p = pool_acct_of(e.owner, e.dev, 0);
	if (p) {
		p->live = p->live > e.bytes ? p->live - e.bytes : 0;
		pool_shrink_locked(p, p->destroyed ? 0 : threshold);
	}
	pthread_mutex_unlock(&gs_state_lock);
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	struct pool_op op;
	CUresult rc = pool_begin(NULL, bytesize, &op);

	if (rc)
		return rc;
	return pool_end(CALL_REAL(cuMemAllocAsync, (dptr, bytesize, hStream)), dptr, &op);
}

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	struct pool_op op;
	CUresult rc = pool_begin(NULL, bytesize, &op);

	if (rc)
		return rc;
	return pool_end(CALL_REAL(cuMemAllocAsync_ptsz, (dptr, bytesize, hStream)), dptr, &op);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
					 CUstream hStream)
{
	struct pool_op op;
	CUresult rc;

	if (!pool) { /* the driver's error, nothing charged */
		rc = gs_hook_enter();
		return rc ? rc : CALL_REAL(cuMemAllocFromPoolAsync, (dptr, bytesize, pool, hStream));
	}
	rc = pool_begin(pool, bytesize, &op);
	if (rc)
		return rc;
	return pool_end(CALL_REAL(cuMemAllocFromPoolAsync, (dptr, bytesize, pool, hStream)), dptr,
			&op);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
					      CUmemoryPool pool, CUstream hStream)
{
	struct pool_op op;
	CUresult rc;

	if (!pool) {
		rc = gs_hook_enter();
		return rc ? rc
			  : CALL_REAL(cuMemAllocFromPoolAsync_ptsz, (dptr, bytesize, pool, hStream));
	}
	rc = pool_begin(pool, bytesize, &op);
	if (rc)
		return rc;
	return pool_end(CALL_REAL(cuMemAllocFromPoolAsync_ptsz, (dptr, bytesize, pool, hStream)),
			dptr, &op);
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	struct pool_acct *p;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemPoolTrimTo, (pool, minBytesToKeep));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	p = pool_acct_of((uint64_t)(uintptr_t)pool, -1, 0);
	if (p)
		pool_shrink_locked(p, minBytesToKeep);
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	struct pool_acct *p;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemPoolDestroy, (pool));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	/* Live allocations keep a destroyed pool until they are freed. */
	pthread_mutex_lock(&gs_state_lock);
	p = pool_acct_of((uint64_t)(uintptr_t)pool, -1, 0);
	if (p) {
		p->destroyed = 1;
		pool_shrink_locked(p, 0);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				    size_t Height, unsigned int ElementSizeBytes)
{
	uint64_t want, got;
	CUresult rc = gs_hook_enter();
	int dev;

	if (rc)
		return rc;
	if (!gs_real.cuMemAllocPitch_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	/*
	 * The pitch is the driver's choice, so reserve the unpadded size,
	 * then the padding once it is known; give up if the padding crosses
	 * the limit.
	 */
	if (Height && WidthInBytes > UINT64_MAX / Height)
		return CUDA_ERROR_INVALID_VALUE;
	want = (uint64_t)WidthInBytes * Height;
	rc = mem_reserve(want, -1, &dev);
	if (rc)
		return rc;
	rc = gs_real.cuMemAllocPitch_v2(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	if (rc != CUDA_SUCCESS || !dptr || !pPitch) {
		mem_cancel(want, dev);
		return rc;
	}
	got = (uint64_t)*pPitch * Height;
	if (dev >= 0 && got > want) {
		int dev2;

		if (mem_reserve(got - want, dev, &dev2) != CUDA_SUCCESS) {
			if (gs_real.cuMemFree_v2)
				gs_real.cuMemFree_v2(*dptr);
			mem_cancel(want, dev);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	mem_commit(&gs_st.ptrs, *dptr, got > want ? got : want, dev);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuMemFree_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemFree_v2(dptr);
	if (rc == CUDA_SUCCESS)
		ptr_release(dptr);
	return rc;
}

/*
 * A stream-ordered free is accounted when it is issued, not when the
 * stream reaches it: the memory goes back to its pool either way, and the
 * pool's release threshold decides what the pod gets back (ptr_release).
 */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuMemFreeAsync)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemFreeAsync(dptr, hStream);
	if (rc == CUDA_SUCCESS)
		ptr_release(dptr);
	return rc;
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuMemFreeAsync_ptsz)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemFreeAsync_ptsz(dptr, hStream);
	if (rc == CUDA_SUCCESS)
		ptr_release(dptr);
	return rc;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop, unsigned long long flags)
{
	CUresult rc = gs_hook_enter();
	int dev = -1;

	if (rc)
		return rc;
	/* Only device-resident physical memory counts; host and NUMA do not. */
	if (prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && prop->location.id >= 0) {
		rc = mem_reserve(size, prop->location.id, &dev);
		if (rc)
			return rc;
	}
	rc = CALL_REAL(cuMemCreate, (handle, size, prop, flags));
	if (rc == CUDA_SUCCESS && handle) {
		/* refs: references to the handle; aux: its mappings. */
		struct gs_ptrmap_entry e = { *handle, size, dev, 1, 0, 0 };

		mem_commit_entry(&gs_st.handles, &e);
	} else {
		mem_cancel(size, dev);
	}
	return rc;
}

/* With gs_state_lock held: frees a handle's charge once nothing holds it. */
static void handle_check_locked(struct gs_ptrmap_entry *e)
{
	struct gs_ptrmap_entry gone;

	if (e->refs > 0 || e->aux > 0)
		return;
	if (gs_ptrmap_take(&gs_st.handles, e->key, &gone) == 0)
		mem_cancel(gone.bytes, gone.dev);
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct gs_ptrmap_entry *e;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuMemRelease)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemRelease(handle);
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	/* The memory lives on while it is mapped: only then is it given back. */
	pthread_mutex_lock(&gs_state_lock);
	e = gs_ptrmap_find(&gs_st.handles, handle);
	if (e) {
		e->refs--;
		handle_check_locked(e);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	struct gs_ptrmap_entry *e;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemRetainAllocationHandle, (handle, addr));
	if (rc != CUDA_SUCCESS || !handle || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	e = gs_ptrmap_find(&gs_st.handles, *handle);
	if (e)
		e->refs++;
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	struct gs_ptrmap_entry *e;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemMap, (ptr, size, offset, handle, flags));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	e = gs_ptrmap_find(&gs_st.handles, handle);
	if (e) {
		struct gs_ptrmap_entry m = { ptr, size, e->dev, 0, handle, 0 };

		/* Without a record of the mapping, the handle stays charged for good. */
		if (gs_ptrmap_put_entry(&ms.maps, &m) == 0)
			e->aux++;
		else
			e->refs = INT32_MAX / 2;
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* The range may cover several mappings end to end; each one's handle loses one. */
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct gs_ptrmap_entry m, *e;
	CUdeviceptr va = ptr;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemUnmap, (ptr, size));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	while (va - ptr < size && gs_ptrmap_take(&ms.maps, va, &m) == 0) {
		e = gs_ptrmap_find(&gs_st.handles, m.owner);
		if (e) {
			e->aux--;
			handle_check_locked(e);
		}
		if (!m.bytes)
			break;
		va += m.bytes;
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	CUresult rc = gs_hook_enter();
	uint64_t limit, used, left;

	if (rc)
		return rc;
	if (!gs_real.cuMemGetInfo_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemGetInfo_v2(free_bytes, total_bytes);
	if (rc != CUDA_SUCCESS || !free_bytes || !total_bytes)
		return rc;
	/* Dead peers are reclaimed first, so a peer's exit shows at once. */
	gs_hook_pod_info(-1, &limit, &used);
	if (!limit)
		return CUDA_SUCCESS;
	left = used < limit ? limit - used : 0;
	if (*total_bytes > limit)
		*total_bytes = (size_t)limit;
	if (*free_bytes > left)
		*free_bytes = (size_t)left;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuDeviceTotalMem_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuDeviceTotalMem_v2(bytes, dev);
	if (rc == CUDA_SUCCESS && bytes && gs_hook_pod_limit(dev) &&
	    *bytes > gs_hook_pod_limit(dev))
		*bytes = (size_t)gs_hook_pod_limit(dev);
	return rc;
}

/* --- arrays -------------------------------------------------------------------- */

/* Reserves, creates (call), records under the handle the driver returned. */
#define ARRAY_CREATE(out, bytes, call)                                          \
	do {                                                                    \
		uint64_t bytes_ = (bytes);                                      \
		CUresult rc_ = gs_hook_enter();                                 \
		int dev_ = -1;                                                  \
									        \
		if (rc_)                                                        \
			return rc_;                                             \
		rc_ = mem_reserve(bytes_, -1, &dev_);                           \
		if (rc_)                                                        \
			return rc_;                                             \
		rc_ = (call);                                                   \
		if (rc_ == CUDA_SUCCESS && (out))                               \
			mem_commit(&ms.arrays, (uint64_t)(uintptr_t)*(out), bytes_, dev_); \
		else                                                            \
			mem_cancel(bytes_, dev_);                               \
		return rc_;                                                     \
	} while (0)

CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
	const CUDA_ARRAY_DESCRIPTOR *a = pAllocateArray;

	ARRAY_CREATE(pHandle,
		     a ? gs_array_bytes(a->Format, a->NumChannels, a->Width, a->Height, 0, 0, 1) : 0,
		     CALL_REAL(cuArrayCreate_v2, (pHandle, pAllocateArray)));
}

CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
	const CUDA_ARRAY3D_DESCRIPTOR *a = pAllocateArray;

	ARRAY_CREATE(pHandle,
		     a ? gs_array_bytes(a->Format, a->NumChannels, a->Width, a->Height, a->Depth,
					a->Flags, 1)
		       : 0,
		     CALL_REAL(cuArray3DCreate_v2, (pHandle, pAllocateArray)));
}

CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
					const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
					unsigned int numMipmapLevels)
{
	const CUDA_ARRAY3D_DESCRIPTOR *a = pMipmappedArrayDesc;

	ARRAY_CREATE(pHandle,
		     a ? gs_array_bytes(a->Format, a->NumChannels, a->Width, a->Height, a->Depth,
					a->Flags, numMipmapLevels)
		       : 0,
		     CALL_REAL(cuMipmappedArrayCreate,
			       (pHandle, pMipmappedArrayDesc, numMipmapLevels)));
}

CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuArrayDestroy, (hArray));
	if (rc == CUDA_SUCCESS)
		mem_release(&ms.arrays, (uint64_t)(uintptr_t)hArray);
	return rc;
}

CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuMipmappedArrayDestroy, (hMipmappedArray));
	if (rc == CUDA_SUCCESS)
		mem_release(&ms.arrays, (uint64_t)(uintptr_t)hMipmappedArray);
	return rc;
}

/* --- graph memory nodes ------------------------------------------------------------ */

/* With gs_state_lock held: the account of graph, or NULL. */
static struct graph_acct *graph_of(uint64_t graph)
{
	size_t i;

	for (i = 0; graph && i < ms.n_graphs; i++)
		if (ms.graphs[i].graph == graph)
			return &ms.graphs[i];
	return NULL;
}

/* With gs_state_lock held: a new account for graph with one reference, or NULL. */
static struct graph_acct *graph_add(uint64_t graph)
{
	struct graph_acct *g;

	if (ms.n_graphs == ms.cap_graphs) {
		size_t cap = ms.cap_graphs ? ms.cap_graphs * 2 : 16;

		g = realloc(ms.graphs, cap * sizeof(*g));
		if (!g)
			return NULL;
		ms.graphs = g;
		ms.cap_graphs = cap;
	}
	g = &ms.graphs[ms.n_graphs++];
	memset(g, 0, sizeof(*g));
	g->graph = graph;
	g->refs = 1;
	return g;
}

/*
 * With gs_state_lock held: drops one reference. After the last one, the
 * bytes of a graph that was never instantiated come back; those of one
 * that was move into the device's graph pool, which keeps its high-water
 * mark (the driver reuses the cached memory for the next graph).
 */
static void graph_unref(struct graph_acct *g)
{
	int d;

	if (--g->refs > 0)
		return;
	for (d = 0; d < MAX_ORDINALS; d++) {
		uint64_t pool = ms.graph_pool[d], grown;

		if (!g->bytes[d])
			continue;
		grown = !g->instantiated ? 0 : g->bytes[d] > pool ? g->bytes[d] - pool : 0;
		ms.graph_pool[d] = pool + grown;
		mem_cancel(g->bytes[d] - grown, d);
	}
	*g = ms.graphs[--ms.n_graphs];
}

/* With gs_state_lock held: forgets the memory nodes of a destroyed graph. */
static void graph_forget_nodes(uint64_t graph)
{
	struct gs_ptrmap_entry gone;
	size_t i = 0;

	while (i < ms.gnodes.cap) {
		if (ms.gnodes.e[i].key && ms.gnodes.e[i].owner == graph)
			gs_ptrmap_take(&ms.gnodes, ms.gnodes.e[i].key, &gone); /* may refill slot i */
		else
			i++;
	}
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					const CUgraphNode *dependencies, size_t numDependencies,
					CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	struct graph_acct *g;
	uint64_t bytes = nodeParams ? nodeParams->bytesize : 0;
	CUresult rc = gs_hook_enter();
	int dev = -1, ordinal = -1;

	if (rc)
		return rc;
	if (nodeParams && nodeParams->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		ordinal = nodeParams->poolProps.location.id;
	rc = mem_reserve(bytes, ordinal, &dev);
	if (rc)
		return rc;
	rc = CALL_REAL(cuGraphAddMemAllocNode,
		       (phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
	if (rc != CUDA_SUCCESS || !phGraphNode || dev < 0) {
		mem_cancel(bytes, dev);
		return rc;
	}
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)hGraph);
	if (!g)
		g = graph_add((uint64_t)(uintptr_t)hGraph);
	if (g) {
		struct gs_ptrmap_entry n = { (uint64_t)(uintptr_t)*phGraphNode, bytes, dev, 0,
					     (uint64_t)(uintptr_t)hGraph, 0 };

		g->bytes[dev] += bytes;
		/* Without the node's record, its bytes stay with the graph. */
		(void)gs_ptrmap_put_entry(&ms.gnodes, &n);
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (!g) {
		mem_cancel(bytes, dev);
		gs_log(GS_SHARE_LOG_WARN, "out of host memory: %llu bytes are not accounted",
		       (unsigned long long)bytes);
	}
	return rc;
}

CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	struct gs_ptrmap_entry n;
	struct graph_acct *g;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuGraphDestroyNode, (hNode));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	if (gs_ptrmap_take(&ms.gnodes, (uint64_t)(uintptr_t)hNode, &n) == 0) {
		g = graph_of(n.owner);
		/* Once instantiated, the executable graph keeps the allocation. */
		if (g && g->refs == 1) {
			g->bytes[n.dev] -= n.bytes;
			mem_cancel(n.bytes, n.dev);
		}
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	struct graph_acct *g;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuGraphDestroy, (hGraph));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)hGraph);
	if (g) {
		graph_forget_nodes(g->graph);
		graph_unref(g);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* A clone allocates what its original does: charged again, or refused. */
CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	uint64_t bytes[MAX_ORDINALS];
	struct graph_acct *g;
	CUresult rc = gs_hook_enter();
	int d, charged = 0, any = 0;

	if (rc)
		return rc;
	memset(bytes, 0, sizeof(bytes));
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)originalGraph);
	if (g) {
		memcpy(bytes, g->bytes, sizeof(bytes));
		any = 1;
	}
	for (d = 0; any && d < MAX_ORDINALS && rc == CUDA_SUCCESS; d++) {
		rc = charge(d, bytes[d]);
		if (rc == CUDA_SUCCESS)
			charged = d + 1;
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (rc == CUDA_SUCCESS)
		rc = CALL_REAL(cuGraphClone, (phGraphClone, originalGraph));
	pthread_mutex_lock(&gs_state_lock);
	g = NULL;
	if (rc == CUDA_SUCCESS && any && phGraphClone) {
		g = graph_add((uint64_t)(uintptr_t)*phGraphClone);
		if (g)
			memcpy(g->bytes, bytes, sizeof(bytes));
	}
	if (any && !g)
		for (d = 0; d < charged; d++)
			mem_cancel(bytes[d], d);
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* An executable graph holds its graph's memory as long as the graph. */
static CUresult graph_instantiated(CUresult rc, const CUgraphExec *exec, CUgraph graph)
{
	struct graph_acct *g;

	if (rc != CUDA_SUCCESS || !exec || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)graph);
	if (g) {
		struct gs_ptrmap_entry x = { (uint64_t)(uintptr_t)*exec, 0, 0, 0,
					     (uint64_t)(uintptr_t)graph, 0 };

		g->instantiated = 1;
		if (gs_ptrmap_put_entry(&ms.execs, &x) == 0)
			g->refs++;
		else
			g->refs = INT32_MAX / 2; /* no record: the memory stays charged */
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* The CUDA 11 ABI, which programs built against CUDA 11 headers still call. */
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
				       CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	return graph_instantiated(CALL_REAL(cuGraphInstantiate_v2, (phGraphExec, hGraph,
								   phErrorNode, logBuffer,
								   bufferSize)),
				  phGraphExec, hGraph);
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
					     unsigned long long flags)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	return graph_instantiated(CALL_REAL(cuGraphInstantiateWithFlags,
					    (phGraphExec, hGraph, flags)),
				  phGraphExec, hGraph);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
					      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	return graph_instantiated(CALL_REAL(cuGraphInstantiateWithParams,
					    (phGraphExec, hGraph, instantiateParams)),
				  phGraphExec, hGraph);
}

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
						   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	return graph_instantiated(CALL_REAL(cuGraphInstantiateWithParams_ptsz,
					    (phGraphExec, hGraph, instantiateParams)),
				  phGraphExec, hGraph);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	struct gs_ptrmap_entry x;
	struct graph_acct *g;
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuGraphExecDestroy, (hGraphExec));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	if (gs_ptrmap_take(&ms.execs, (uint64_t)(uintptr_t)hGraphExec, &x) == 0) {
		g = graph_of(x.owner);
		if (g)
			graph_unref(g);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* The driver gives the cached graph memory of the device back. */
CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	CUresult rc = gs_hook_enter();
	int dev;

	if (rc)
		return rc;
	rc = CALL_REAL(cuDeviceGraphMemTrim, (device));
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	dev = device;
	if (dev >= 0 && dev < MAX_ORDINALS) {
		mem_cancel(ms.graph_pool[dev], dev);
		ms.graph_pool[dev] = 0;
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* --- contexts ---------------------------------------------------------------------- */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	uint64_t reserve = gs_st.cfg.ctx_reserve_bytes;
	CUresult rc = gs_hook_enter();
	int d = -1, first;

	if (rc)
		return rc;
	if (!reserve || dev < 0 || dev >= MAX_ORDINALS)
		return CALL_REAL(cuDevicePrimaryCtxRetain, (pctx, dev));
	/* Charged when this process first retains it (the driver counts references). */
	pthread_mutex_lock(&gs_state_lock);
	first = ms.primary_refs[dev] == 0;
	pthread_mutex_unlock(&gs_state_lock);
	if (first) {
		rc = mem_reserve(reserve, dev, &d);
		if (rc)
			return rc;
	}
	rc = CALL_REAL(cuDevicePrimaryCtxRetain, (pctx, dev));
	pthread_mutex_lock(&gs_state_lock);
	if (rc == CUDA_SUCCESS && ms.primary_refs[dev]++ == 0 && first)
		ms.primary_dev[dev] = d;
	else
		mem_cancel(first ? reserve : 0, d); /* failed, or another thread was first */
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* With gs_state_lock held: the primary context of dev is no longer retained. */
static void primary_gone_locked(CUdevice dev, int all)
{
	if (dev < 0 || dev >= MAX_ORDINALS || !ms.primary_refs[dev])
		return;
	ms.primary_refs[dev] = all ? 0 : ms.primary_refs[dev] - 1;
	if (!ms.primary_refs[dev])
		mem_cancel(gs_st.cfg.ctx_reserve_bytes, ms.primary_dev[dev]);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuDevicePrimaryCtxRelease_v2, (dev));
	if (rc == CUDA_SUCCESS && gs_st.cfg.ctx_reserve_bytes) {
		pthread_mutex_lock(&gs_state_lock);
		primary_gone_locked(dev, 0);
		pthread_mutex_unlock(&gs_state_lock);
	}
	return rc;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuDevicePrimaryCtxReset_v2, (dev));
	if (rc == CUDA_SUCCESS && gs_st.cfg.ctx_reserve_bytes) {
		pthread_mutex_lock(&gs_state_lock);
		primary_gone_locked(dev, 1);
		pthread_mutex_unlock(&gs_state_lock);
	}
	return rc;
}

/* Reserves a context's memory, creates it (call), records it under its handle. */
#define CTX_CREATE(pctx, dev, call)                                             \
	do {                                                                    \
		uint64_t reserve_ = gs_st.cfg.ctx_reserve_bytes;                \
		CUresult rc_ = gs_hook_enter();                                 \
		int d_ = -1;                                                    \
									        \
		if (rc_)                                                        \
			return rc_;                                             \
		rc_ = mem_reserve(reserve_, (dev), &d_);                        \
		if (rc_)                                                        \
			return rc_;                                             \
		rc_ = (call);                                                   \
		if (rc_ == CUDA_SUCCESS && (pctx))                              \
			mem_commit(&ms.ctxs, (uint64_t)(uintptr_t)*(pctx), reserve_, d_); \
		else                                                            \
			mem_cancel(reserve_, d_);                               \
		return rc_;                                                     \
	} while (0)

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	CTX_CREATE(pctx, dev, CALL_REAL(cuCtxCreate_v2, (pctx, flags, dev)));
}

CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
				unsigned int flags, CUdevice dev)
{
	CTX_CREATE(pctx, dev, CALL_REAL(cuCtxCreate_v3, (pctx, paramsArray, numParams, flags, dev)));
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				unsigned int flags, CUdevice dev)
{
	CTX_CREATE(pctx, dev, CALL_REAL(cuCtxCreate_v4, (pctx, ctxCreateParams, flags, dev)));
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	rc = CALL_REAL(cuCtxDestroy_v2, (ctx));
	if (rc == CUDA_SUCCESS)
		mem_release(&ms.ctxs, (uint64_t)(uintptr_t)ctx);
	return rc;
}
