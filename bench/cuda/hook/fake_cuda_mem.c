/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda_mem.c - the memory of the fake CUDA driver (fake_cuda.c says
 * what the fake is for): device allocations (cuMemAlloc and its kind),
 * stream-ordered pools that keep freed memory up to their release
 * threshold, virtual memory management (a cuMemCreate handle holds its
 * memory until it is both released and unmapped) and arrays, packed
 * densely. Each allocation counts against its device's memory, per
 * process; the hook's accounting above it is what the tests check.
 */
#define _GNU_SOURCE
#include "fake_cuda_internal.h"

#include <stdlib.h>
#include <string.h>

/* --- memory --------------------------------------------------------------------- */

/*
 * Kinds of memory the fake hands out. A handle (cuMemCreate) holds its
 * physical memory until it is released and unmapped everywhere; memory of
 * a pool stays in the pool, above what is live, up to the pool's release
 * threshold (as if each free were followed by a synchronisation).
 */
enum { K_PTR, K_HANDLE, K_ARRAY, K_POOLPTR, K_MANAGED, K_HOST };

#define MAX_ALLOCS 65536

struct alloc {
	uint64_t key;            /* device pointer, handle or array; 0 = free entry */
	uint64_t bytes;
	int dev;
	int kind;                /* K_PTR, K_HANDLE, K_ARRAY, K_POOLPTR, K_MANAGED, K_HOST */
	int refs;                /* a handle's references */
	int maps;                /* a handle's mappings */
	int pool;                /* K_POOLPTR: index in pools[] */
};

struct pool {
	int in_use;
	int dev;                 /* -1: a pool on the host */
	uint64_t live, reserved, threshold;
};

#define MAX_POOLS 16        /* the first MAX_DEVS are the devices' default pools */
#define MAX_MAPS 256

static struct alloc allocs[MAX_ALLOCS];
static struct pool pools[MAX_POOLS];
static struct { uint64_t va, size, handle; } maps[MAX_MAPS];

/* With fakecuda_lock held: a free entry, or NULL. */
static struct alloc *new_entry(void)
{
	int i;

	for (i = 0; i < MAX_ALLOCS && allocs[i].key; i++)
		;
	return i < MAX_ALLOCS ? &allocs[i] : NULL;
}

/* With fakecuda_lock held: the entry of key of this kind, or NULL. */
static struct alloc *find_entry(uint64_t key, int kind)
{
	int i;

	for (i = 0; key && i < MAX_ALLOCS; i++)
		if (allocs[i].key == key && allocs[i].kind == kind)
			return &allocs[i];
	return NULL;
}

/* With fakecuda_lock held: the next distinct, 256-byte aligned, never reused address. */
uint64_t fakecuda_new_address(uint64_t bytes)
{
	uint64_t p = fakecuda.next_ptr;

	fakecuda.next_ptr += (bytes + 255) & ~255ull;
	return p;
}

/*
 * Hands out bytes of kind on dev under key (0: a new address) into
 * *key_out. Host memory (K_HOST) is not the device's: its dev is the
 * current one, for the pointer's attributes, and nothing is used on it.
 */
static CUresult track(uint64_t key, uint64_t *key_out, uint64_t bytes, int dev, int kind)
{
	int host = kind == K_HOST;
	struct alloc *a;

	if (!key_out || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (!FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&fakecuda_lock);
	a = new_entry();
	if ((!host && bytes > fakecuda.mem_bytes - fakecuda.used[dev]) || !a) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*a = (struct alloc){ key ? key : fakecuda_new_address(bytes), bytes, dev, kind, 1, 0, -1 };
	if (!host)
		fakecuda.used[dev] += bytes;
	*key_out = a->key;
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

static CUresult do_alloc(uint64_t *key_out, uint64_t bytes, int dev, int kind)
{
	return track(0, key_out, bytes, dev, kind);
}

/*
 * With fakecuda_lock held: gives a pool's memory above max(live, keep)
 * back (a pool on the host, dev -1, uses none of a device's).
 */
static void pool_shrink(struct pool *p, uint64_t keep)
{
	if (keep < p->live)
		keep = p->live;
	if (p->reserved > keep) {
		if (p->dev >= 0)
			fakecuda.used[p->dev] -= p->reserved - keep;
		p->reserved = keep;
	}
}

static CUresult do_free(uint64_t key, int kind)
{
	struct alloc *a;

	pthread_mutex_lock(&fakecuda_lock);
	a = find_entry(key, kind);
	if (!a && kind == K_PTR)
		a = find_entry(key, K_POOLPTR); /* cuMemFree of pool memory is legal */
	if (!a && kind == K_PTR)
		a = find_entry(key, K_MANAGED);
	if (!a) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (a->kind == K_POOLPTR) {
		struct pool *p = &pools[a->pool];

		p->live -= a->bytes;
		pool_shrink(p, p->threshold < p->reserved ? p->threshold : p->reserved);
	} else if (a->kind == K_HANDLE) {
		/* cuMemRelease: the memory lives on while it is mapped. */
		if (--a->refs > 0 || a->maps > 0) {
			pthread_mutex_unlock(&fakecuda_lock);
			return CUDA_SUCCESS;
		}
		fakecuda.used[a->dev] -= a->bytes;
	} else if (a->kind != K_HOST) {
		fakecuda.used[a->dev] -= a->bytes;
	}
	memset(a, 0, sizeof(*a));
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	ENTER("cuMemGetInfo_v2");
	if (!free_bytes || !total_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	*total_bytes = (size_t)fakecuda.mem_bytes;
	*free_bytes = (size_t)(fakecuda.mem_bytes - fakecuda.used[fakecuda_cur_dev]);
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ENTER("cuMemAlloc_v2");
	UNSAFE();
	return do_alloc((uint64_t *)dptr, bytesize, fakecuda_cur_dev, K_PTR);
}

/* The 32-bit ABI of CUDA 2.x: only here so that a v1 lookup has an answer. */
EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	uint64_t p;
	CUresult rc;

	ENTER("cuMemAlloc");
	rc = do_alloc(&p, bytesize, fakecuda_cur_dev, K_PTR);
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
	return do_alloc((uint64_t *)dptr, bytesize, fakecuda_cur_dev, K_MANAGED);
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
	pitch = (WidthInBytes + fakecuda.pitch - 1) / fakecuda.pitch * fakecuda.pitch;
	rc = do_alloc((uint64_t *)dptr, pitch * Height, fakecuda_cur_dev, K_PTR);
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

/* --- host memory and what pointers say of themselves ------------------------------ */

/* Page-locked host memory is not device memory: the device's use does not change. */
EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	uint64_t key;

	ENTER("cuMemHostRegister_v2");
	(void)Flags;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	return track((uint64_t)(uintptr_t)p, &key, bytesize, fakecuda_cur_dev, K_HOST);
}

EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	ENTER("cuMemHostUnregister");
	return do_free((uint64_t)(uintptr_t)p, K_HOST);
}

EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	uint64_t key;
	CUresult rc;
	void *p;

	ENTER("cuMemHostAlloc");
	(void)Flags;
	if (!pp || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	p = malloc(bytesize);
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = track((uint64_t)(uintptr_t)p, &key, bytesize, fakecuda_cur_dev, K_HOST);
	if (rc)
		free(p);
	else
		*pp = p;
	return rc;
}

EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
	CUresult rc;

	ENTER("cuMemFreeHost");
	rc = do_free((uint64_t)(uintptr_t)p, K_HOST);
	if (rc == CUDA_SUCCESS)
		free(p);
	return rc;
}

/* With fakecuda_lock held: the allocation that holds address va, or NULL. */
static struct alloc *holding(uint64_t va)
{
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i].key && allocs[i].kind != K_HANDLE && allocs[i].kind != K_ARRAY &&
		    va >= allocs[i].key && va - allocs[i].key < allocs[i].bytes)
			return &allocs[i];
	return NULL;
}

/* One attribute of ptr: whether it is managed, its device, its range. */
static CUresult pointer_attribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
	struct alloc *a;
	CUresult rc = CUDA_SUCCESS;

	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	a = holding(ptr);
	switch (a ? attr : (CUpointer_attribute)0) {
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(unsigned int *)data = a->kind == K_MANAGED;
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = a->dev;
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(CUdeviceptr *)data = a->key;
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = (size_t)a->bytes;
		break;
	default:
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
					      CUdeviceptr ptr)
{
	ENTER("cuPointerGetAttribute");
	return pointer_attribute(data, attribute, ptr);
}

EXPORT CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
					       CUpointer_attribute *attributes, void **data,
					       CUdeviceptr ptr)
{
	CUresult rc = CUDA_SUCCESS;
	unsigned int i;

	ENTER("cuPointerGetAttributes");
	if (!attributes || !data)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < numAttributes && rc == CUDA_SUCCESS; i++)
		rc = pointer_attribute(data[i], attributes[i], ptr);
	return rc;
}

/* A copy between devices: both ranges must be allocated; nothing is charged. */
EXPORT CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
				     CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount)
{
	struct alloc *d, *s;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemcpyPeer");
	UNSAFE();
	if (!dstContext || !srcContext)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&fakecuda_lock);
	d = holding(dstDevice);
	s = holding(srcDevice);
	if (!d || !s || dstDevice - d->key + ByteCount > d->bytes ||
	    srcDevice - s->key + ByteCount > s->bytes)
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

/* --- stream-ordered pools ------------------------------------------------------ */

/* With fakecuda_lock held: the pool behind a handle, or NULL. */
static struct pool *pool_of(CUmemoryPool h)
{
	struct pool *p = (struct pool *)h;

	return p >= pools && p < pools + MAX_POOLS && p->in_use ? p : NULL;
}

/* With fakecuda_lock held: the default pool of dev, set up on first use. */
static struct pool *default_pool(int dev)
{
	if (!pools[dev].in_use)
		pools[dev] = (struct pool){ 1, dev, 0, 0, 0 };
	return &pools[dev];
}

/*
 * A stream-ordered allocation from pool h (NULL: the current pool of the
 * stream's device) into stream s; into a capturing stream, a memory node
 * of the graph, with an address but no memory until the graph runs.
 */
static CUresult pool_alloc(CUdeviceptr *dptr, uint64_t bytes, CUmemoryPool h, CUstream s)
{
	int dev = fakecuda_stream_dev(s), captured;
	struct alloc *a;
	struct pool *p;
	uint64_t grow;
	CUresult rc;

	if (!dptr || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (!FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_CONTEXT;
	rc = fakecuda_into_stream(s, FAKECUDA_NODE_ALLOC, &captured);
	if (rc || captured) {
		pthread_mutex_lock(&fakecuda_lock);
		*dptr = rc ? 0 : fakecuda_new_address(bytes);
		pthread_mutex_unlock(&fakecuda_lock);
		return rc;
	}
	pthread_mutex_lock(&fakecuda_lock);
	p = h ? pool_of(h) : default_pool(dev);
	if (!p) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	grow = p->live + bytes > p->reserved ? p->live + bytes - p->reserved : 0;
	a = new_entry();
	if ((p->dev >= 0 && grow > fakecuda.mem_bytes - fakecuda.used[p->dev]) || !a) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (p->dev >= 0)
		fakecuda.used[p->dev] += grow;
	p->reserved += grow;
	p->live += bytes;
	*a = (struct alloc){ fakecuda_new_address(bytes), bytes, p->dev >= 0 ? p->dev : dev,
			     K_POOLPTR, 1, 0, (int)(p - pools) };
	*dptr = a->key;
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

/* A stream-ordered free into stream s: a free node when s is capturing. */
static CUresult pool_free(CUdeviceptr dptr, CUstream s)
{
	int captured;
	CUresult rc = fakecuda_into_stream(s, FAKECUDA_NODE_WORK, &captured);

	return rc || captured ? rc : do_free(dptr, K_POOLPTR);
}

FAKECUDA_TWINS(cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream),
	       pool_alloc(dptr, bytesize, NULL, FAKECUDA_STREAM(hStream, ptsz_)))
FAKECUDA_TWINS(cuMemAllocFromPoolAsync,
	       (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream),
	       pool ? pool_alloc(dptr, bytesize, pool, FAKECUDA_STREAM(hStream, ptsz_))
		    : CUDA_ERROR_INVALID_VALUE)
FAKECUDA_TWINS(cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream),
	       pool_free(dptr, FAKECUDA_STREAM(hStream, ptsz_)))

EXPORT CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	ENTER("cuDeviceGetDefaultMemPool");
	if (!pool_out || !FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	*pool_out = (CUmemoryPool)default_pool(dev);
	pthread_mutex_unlock(&fakecuda_lock);
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

	int host = props && props->location.type == CU_MEM_LOCATION_TYPE_HOST;

	ENTER("cuMemPoolCreate");
	if (!pool || !props ||
	    (!host && (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
		       !FAKECUDA_DEV_OK(props->location.id))))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	for (i = MAX_DEVS; i < MAX_POOLS && pools[i].in_use; i++)
		;
	if (i == MAX_POOLS) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pools[i] = (struct pool){ 1, host ? -1 : props->location.id, 0, 0, 0 };
	*pool = (CUmemoryPool)&pools[i];
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

/* Destroying a pool with live allocations is the caller's error; the fake refuses it. */
EXPORT CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	struct pool *p;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolDestroy");
	pthread_mutex_lock(&fakecuda_lock);
	p = pool_of(pool);
	if (!p || p < pools + MAX_DEVS || p->live) {
		rc = CUDA_ERROR_INVALID_VALUE;
	} else {
		pool_shrink(p, 0);
		p->in_use = 0;
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	struct pool *p;

	ENTER("cuMemPoolTrimTo");
	pthread_mutex_lock(&fakecuda_lock);
	p = pool_of(pool);
	if (p)
		pool_shrink(p, minBytesToKeep < p->reserved ? minBytesToKeep : p->reserved);
	pthread_mutex_unlock(&fakecuda_lock);
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
					      void *value)
{
	struct pool *p;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolSetAttribute");
	pthread_mutex_lock(&fakecuda_lock);
	p = pool_of(pool);
	if (!p || !value || attr != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
		rc = CUDA_ERROR_INVALID_VALUE;
	else
		p->threshold = *(cuuint64_t *)value;
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
					      void *value)
{
	struct pool *p;
	const uint64_t *field;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuMemPoolGetAttribute");
	pthread_mutex_lock(&fakecuda_lock);
	p = value ? pool_of(pool) : NULL;
	field = !p ? NULL
		: attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD    ? &p->threshold
		: attr == CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT ? &p->reserved
		: attr == CU_MEMPOOL_ATTR_USED_MEM_CURRENT     ? &p->live
							       : NULL;
	if (field)
		*(cuuint64_t *)value = *field;
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&fakecuda_lock);
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
	pthread_mutex_lock(&fakecuda_lock);
	a = find_entry(handle, K_HANDLE);
	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].size && ptr < maps[i].va + maps[i].size && maps[i].va < ptr + size)
			break; /* overlaps a mapping */
		if (!maps[i].size && free_i < 0)
			free_i = i;
	}
	if (!a || a->refs < 1 || size > a->bytes || i < MAX_MAPS || free_i < 0) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	maps[free_i].va = ptr;
	maps[free_i].size = size;
	maps[free_i].handle = handle;
	a->maps++;
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

/* Unmaps every mapping inside [ptr, ptr + size); the last unmap of a released handle frees it. */
EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	int i, n = 0;

	ENTER("cuMemUnmap");
	pthread_mutex_lock(&fakecuda_lock);
	for (i = 0; i < MAX_MAPS; i++) {
		struct alloc *a;

		if (!maps[i].size || maps[i].va < ptr || maps[i].va + maps[i].size > ptr + size)
			continue;
		a = find_entry(maps[i].handle, K_HANDLE);
		maps[i].size = 0;
		n++;
		if (a && --a->maps == 0 && a->refs == 0) {
			fakecuda.used[a->dev] -= a->bytes;
			memset(a, 0, sizeof(*a));
		}
	}
	pthread_mutex_unlock(&fakecuda_lock);
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
	pthread_mutex_lock(&fakecuda_lock);
	for (i = 0; i < MAX_MAPS; i++) {
		if (maps[i].size && va >= maps[i].va && va < maps[i].va + maps[i].size) {
			struct alloc *a = find_entry(maps[i].handle, K_HANDLE);

			if (a)
				a->refs++;
			*handle = maps[i].handle;
			pthread_mutex_unlock(&fakecuda_lock);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&fakecuda_lock);
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
	return do_alloc(out, bytes, fakecuda_cur_dev, K_ARRAY);
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
