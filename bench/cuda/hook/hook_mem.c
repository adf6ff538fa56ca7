/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_mem.c - libgpushare's memory wrappers: every way to obtain device
 * memory reserves its bytes in the pod region before the driver is asked,
 * and every way to give it back returns exactly what was reserved.
 * What the pod sees of the device (cuMemGetInfo, cuDeviceTotalMem) is its
 * limit. See hook.c for how calls reach these wrappers.
 */
#include "hook_internal.h"

#include <string.h>

#include "core/error.h"
#include "hook_pod.h"

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

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAllocAsync, (dptr, bytesize, hStream)), dptr, bytesize,
			 dev);
}

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAllocAsync_ptsz, (dptr, bytesize, hStream)), dptr,
			 bytesize, dev);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
					 CUstream hStream)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAllocFromPoolAsync, (dptr, bytesize, pool, hStream)),
			 dptr, bytesize, dev);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
					      CUmemoryPool pool, CUstream hStream)
{
	int dev;
	CUresult rc = alloc_begin(bytesize, &dev);

	if (rc)
		return rc;
	return alloc_end(CALL_REAL(cuMemAllocFromPoolAsync_ptsz, (dptr, bytesize, pool, hStream)),
			 dptr, bytesize, dev);
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
		mem_release(&gs_st.ptrs, dptr);
	return rc;
}

/*
 * A stream-ordered free returns the bytes to the pod when it is issued,
 * not when the stream reaches it: the memory goes back to the pool either
 * way, and the pool, not the pod, decides when the card gets it back.
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
		mem_release(&gs_st.ptrs, dptr);
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
		mem_release(&gs_st.ptrs, dptr);
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
	if (rc == CUDA_SUCCESS && handle)
		mem_commit(&gs_st.handles, *handle, size, dev);
	else
		mem_cancel(size, dev);
	return rc;
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	if (!gs_real.cuMemRelease)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = gs_real.cuMemRelease(handle);
	if (rc == CUDA_SUCCESS)
		mem_release(&gs_st.handles, handle);
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
