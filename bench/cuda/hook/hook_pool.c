/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_pool.c - libgpushare's stream-ordered allocations
 * (cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync, and their
 * _ptsz twins) and the pools they come from.
 *
 * What is charged is what a pool holds: its high-water mark of live
 * bytes. A free gives back only what the pool lets go, down to its release
 * threshold (cuMemPoolGetAttribute, asked at each free; 0 by default, the
 * maximum under PyTorch's cudaMallocAsync backend); cuMemPoolTrimTo and
 * cuMemPoolDestroy give back what they release. The driver releases at
 * the next synchronisation, this library at the free: the memory goes
 * back to its pool either way, and the threshold decides what the pod
 * gets back. A pool that cannot be followed (more than MAX_POOLS, or no
 * pool at all) is charged like cuMemAlloc.
 *
 * The device charged is the one the memory is on, whichever is current: a
 * pool's own, as cuMemPoolCreate placed it (a pool on the host is not
 * device memory: not charged) or as the default pool of a device; for
 * cuMemAllocAsync, the current pool of the stream's device
 * (cuStreamGetDevice, CUDA 12.8; the current device with older drivers).
 * An allocation into a stream being captured is a memory node of the
 * captured graph, charged as hook_graph.c says.
 */
#include "hook_mem.h"

#include <string.h>

#define MAX_POOLS 64

/* A stream-ordered pool this process made or allocated from. */
struct pool_acct {
	uint64_t pool;           /* CUmemoryPool; 0 = free entry */
	int dev;                 /* CUDA ordinal its bytes are charged on; -1: on the host */
	int destroyed;           /* cuMemPoolDestroy with allocations still live */
	uint64_t live, reserved; /* bytes allocated, bytes charged */
};

/* Under gs_state_lock. */
static struct pool_acct pools[MAX_POOLS];

void gs_pool_forget(void)
{
	memset(pools, 0, sizeof(pools));
}

/* With gs_state_lock held: the account of pool, made if create, or NULL. */
static struct pool_acct *pool_acct_of(uint64_t pool, int dev, int create)
{
	struct pool_acct *free_p = NULL;
	int i;

	for (i = 0; i < MAX_POOLS; i++) {
		if (pools[i].pool == pool)
			return &pools[i];
		if (!pools[i].pool && !free_p)
			free_p = &pools[i];
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
		gs_hook_pod_cancel(p->reserved - keep, p->dev);
		p->reserved = keep;
	}
	if (p->destroyed && !p->live)
		memset(p, 0, sizeof(*p));
}

struct pool_op {
	uint64_t graph;          /* non-zero: a memory node of this captured graph */
	uint64_t pool;           /* 0: charged as a plain allocation */
	uint64_t bytes;
	uint64_t grow;           /* what this allocation charged */
	int dev;                 /* -1: nothing charged */
};

/* The device of stream: its own, or the current one where the driver cannot tell. */
static CUresult stream_device(CUstream stream, CUdevice *ordinal)
{
	if (CALL_REAL(cuStreamGetDevice, (stream, ordinal)) == CUDA_SUCCESS)
		return CUDA_SUCCESS;
	return CALL_REAL(cuCtxGetDevice, (ordinal));
}

/*
 * The device pool's memory is on, into *ordinal (-1: the host), when the
 * library knows it: a pool made through cuMemPoolCreate, or a device's
 * default pool. Returns 0 when it does not (*ordinal unchanged).
 */
static int pool_device(CUmemoryPool pool, CUdevice *ordinal)
{
	struct pool_acct *p;
	CUmemoryPool dflt;
	int n = 0, d, found = 0;

	pthread_mutex_lock(&gs_state_lock);
	p = pool_acct_of((uint64_t)(uintptr_t)pool, -1, 0);
	if (p) {
		*ordinal = p->dev;
		found = 1;
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (found || CALL_REAL(cuDeviceGetCount, (&n)) != CUDA_SUCCESS)
		return found;
	for (d = 0; d < n && d < MAX_ORDINALS; d++) {
		if (CALL_REAL(cuDeviceGetDefaultMemPool, (&dflt, d)) == CUDA_SUCCESS && dflt == pool) {
			*ordinal = d;
			return 1;
		}
	}
	return 0;
}

/*
 * Before a stream-ordered allocation of bytes from pool (NULL: the current
 * pool of the stream's device) into stream: charges what the pool must
 * grow by, or, when the stream is being captured, the bytes of a memory
 * node.
 */
static CUresult pool_begin(CUmemoryPool pool, uint64_t bytes, CUstream stream, struct pool_op *op)
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
	rc = stream_device(stream, &ordinal);
	if (rc)
		return rc;
	if (!pool && CALL_REAL(cuDeviceGetMemPool, (&pool, ordinal)) != CUDA_SUCCESS)
		pool = NULL;
	else if (pool && pool_device(pool, &ordinal) && ordinal < 0)
		return CUDA_SUCCESS; /* a pool on the host: not device memory */
	/* A device without a limit is not accounted; a bad ordinal is refused below. */
	op->dev = ordinal >= MAX_ORDINALS || gs_hook_pod_limit(ordinal) ? ordinal : -1;
	op->graph = gs_graph_capturing(stream);
	if (op->graph) {
		op->grow = bytes;
		rc = gs_mem_charge(op->dev, bytes);
		if (rc)
			op->dev = -1;
		return rc;
	}
	pthread_mutex_lock(&gs_state_lock);
	if (op->dev >= 0 && op->dev < MAX_ORDINALS && pool)
		p = pool_acct_of((uint64_t)(uintptr_t)pool, op->dev, 1);
	if (p) {
		op->pool = p->pool;
		op->grow = p->live + bytes > p->reserved ? p->live + bytes - p->reserved : 0;
		rc = gs_mem_charge(p->dev, op->grow);
		if (rc == CUDA_SUCCESS) {
			p->live += bytes;
			p->reserved += op->grow;
		}
	} else {
		op->grow = bytes;
		rc = gs_mem_charge(op->dev, bytes);
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (rc)
		op->dev = -1;
	return rc;
}

/* After it: the pointer remembered with its pool, or the charge undone. */
static CUresult pool_end(CUresult rc, const CUdeviceptr *dptr, const struct pool_op *op)
{
	struct pool_acct *p;

	if (op->dev < 0)
		return rc;
	if (op->graph) {
		if (rc == CUDA_SUCCESS)
			gs_graph_captured(op->graph, op->bytes, op->dev);
		else
			gs_hook_pod_cancel(op->bytes, op->dev);
		return rc;
	}
	if (rc == CUDA_SUCCESS && dptr) {
		struct gs_ptrmap_entry e = { *dptr, op->bytes, op->dev, 0, op->pool, 0 };

		if (!op->pool) {
			gs_mem_commit_entry(&gs_st.ptrs, &e);
			return rc;
		}
		pthread_mutex_lock(&gs_state_lock);
		if (gs_ptrmap_put_entry(&gs_st.ptrs, &e) == 0) {
			pthread_mutex_unlock(&gs_state_lock);
			return rc;
		}
		gs_mem_log_untracked(op->bytes);
		/* Untracked: undo as for a failure, below (the lock is held). */
	} else {
		pthread_mutex_lock(&gs_state_lock);
	}
	p = op->pool ? pool_acct_of(op->pool, op->dev, 0) : NULL;
	if (p) {
		p->live = p->live > op->bytes ? p->live - op->bytes : 0;
		pool_shrink_locked(p, p->reserved > op->grow ? p->reserved - op->grow : 0);
	} else if (!op->pool) {
		gs_hook_pod_cancel(op->grow, op->dev);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* The release threshold of pool; the maximum (keep all) when unknown. */
static uint64_t pool_threshold(uint64_t pool)
{
	cuuint64_t v = UINT64_MAX;

	if (CALL_REAL(cuMemPoolGetAttribute, ((CUmemoryPool)(uintptr_t)pool,
					      CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v)) != CUDA_SUCCESS)
		return UINT64_MAX;
	return v;
}

CUresult gs_pool_ptr_freed(CUresult rc, CUdeviceptr dptr)
{
	struct gs_ptrmap_entry e;
	struct pool_acct *p;
	uint64_t threshold;
	int found;

	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	found = gs_ptrmap_take(&gs_st.ptrs, dptr, &e) == 0;
	pthread_mutex_unlock(&gs_state_lock);
	if (!found || !e.owner) {
		if (found)
			gs_hook_pod_cancel(e.bytes, e.dev);
		return rc;
	}
	threshold = pool_threshold(e.owner);
	pthread_mutex_lock(&gs_state_lock);
	p = pool_acct_of(e.owner, e.dev, 0);
	if (p) {
		p->live = p->live > e.bytes ? p->live - e.bytes : 0;
		pool_shrink_locked(p, p->destroyed ? 0 : threshold);
	}
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

static CUresult alloc_async(pfn_cuMemAllocAsync real, int ptsz, CUdeviceptr *dptr,
			    size_t bytesize, CUstream hStream)
{
	struct pool_op op;
	CUresult rc = pool_begin(NULL, bytesize, gs_stream_of(hStream, ptsz), &op);

	if (rc)
		return rc;
	return pool_end(CALL_PTR(real, (dptr, bytesize, hStream)), dptr, &op);
}

GS_TWINS(cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream), alloc_async,
	 (dptr, bytesize, hStream))

static CUresult alloc_from_pool(pfn_cuMemAllocFromPoolAsync real, int ptsz, CUdeviceptr *dptr,
				size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
	struct pool_op op;
	CUresult rc;

	if (!pool) { /* the driver's error, nothing charged */
		rc = gs_hook_enter();
		return rc ? rc : CALL_PTR(real, (dptr, bytesize, pool, hStream));
	}
	rc = pool_begin(pool, bytesize, gs_stream_of(hStream, ptsz), &op);
	if (rc)
		return rc;
	return pool_end(CALL_PTR(real, (dptr, bytesize, pool, hStream)), dptr, &op);
}

GS_TWINS(cuMemAllocFromPoolAsync,
	 (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream),
	 alloc_from_pool, (dptr, bytesize, pool, hStream))

/* Accounted when the free is issued, not when the stream reaches it (see the file's head). */
static CUresult free_async(pfn_cuMemFreeAsync real, int ptsz, CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = gs_hook_enter();

	(void)ptsz;
	return rc ? rc : gs_pool_ptr_freed(CALL_PTR(real, (dptr, hStream)), dptr);
}

GS_TWINS(cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream), free_async, (dptr, hStream))

/* A pool made: where its memory will be (the host, or a device). */
struct made {
	const CUmemoryPool *pool;
	const CUmemPoolProps *props;
};

static void pool_made_locked(const void *arg)
{
	const struct made *m = arg;
	const CUmemLocation *loc = m->props ? &m->props->location : NULL;
	int dev = loc && loc->type == CU_MEM_LOCATION_TYPE_DEVICE ? loc->id : -1;

	if (m->pool && dev < MAX_ORDINALS)
		(void)pool_acct_of((uint64_t)(uintptr_t)*m->pool, dev, 1);
}

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
	struct made m = { pool, poolProps };
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuMemPoolCreate, (pool, poolProps)), pool_made_locked,
				  &m);
}

/* A pool trimmed down to keep bytes, or destroyed (destroy). */
struct shrink {
	CUmemoryPool pool;
	uint64_t keep;
	int destroy;
};

static void pool_shrunk_locked(const void *arg)
{
	const struct shrink *s = arg;
	struct pool_acct *p = pool_acct_of((uint64_t)(uintptr_t)s->pool, -1, 0);

	if (!p)
		return;
	/* Live allocations keep a destroyed pool until they are freed. */
	if (s->destroy)
		p->destroyed = 1;
	pool_shrink_locked(p, s->keep);
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	struct shrink s = { pool, minBytesToKeep, 0 };
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuMemPoolTrimTo, (pool, minBytesToKeep)),
				  pool_shrunk_locked, &s);
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	struct shrink s = { pool, 0, 1 };
	CUresult rc = gs_hook_enter();

	return rc ? rc : gs_mem_settle(CALL_REAL(cuMemPoolDestroy, (pool)), pool_shrunk_locked, &s);
}
