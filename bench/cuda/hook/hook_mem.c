/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_mem.c - libgpushare's plain device memory: cuMemAlloc,
 * cuMemAllocPitch and cuMemAllocManaged reserve their bytes in the pod
 * region before the driver is asked, cuMemFree gives back exactly what
 * was reserved; what the pod sees of the device (cuMemGetInfo,
 * cuDeviceTotalMem) is its limit. Also the two halves of an allocation
 * that every memory route uses (hook_mem.h), and the routes' state.
 * See hook.c for how calls reach these wrappers.
 */
#include "hook_mem.h"

CUresult gs_mem_begin(uint64_t bytes, int ordinal, int *dev_out)
{
	CUresult rc = gs_hook_enter();

	*dev_out = -1;
	return rc ? rc : gs_hook_pod_reserve(bytes, ordinal, dev_out);
}

void gs_mem_log_untracked(uint64_t bytes)
{
	gs_log(GS_SHARE_LOG_WARN, "out of host memory: %llu bytes are not accounted",
	       (unsigned long long)bytes);
}

void gs_mem_commit_entry(struct gs_ptrmap *map, const struct gs_ptrmap_entry *e)
{
	int rc;

	if (e->dev < 0)
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_put_entry(map, e);
	pthread_mutex_unlock(&gs_state_lock);
	if (rc) {
		gs_hook_pod_cancel(e->bytes, e->dev);
		gs_mem_log_untracked(e->bytes);
	}
}

CUresult gs_mem_end(CUresult rc, struct gs_ptrmap *map, uint64_t key, uint64_t bytes, int dev)
{
	struct gs_ptrmap_entry e = { key, bytes, dev, 0, 0, 0 };

	if (rc == CUDA_SUCCESS && key)
		gs_mem_commit_entry(map, &e);
	else
		gs_hook_pod_cancel(bytes, dev);
	return rc;
}

void gs_mem_release(struct gs_ptrmap *map, uint64_t key)
{
	struct gs_ptrmap_entry e;
	int rc;

	if (!gs_hook_pod_on())
		return;
	pthread_mutex_lock(&gs_state_lock);
	rc = gs_ptrmap_take(map, key, &e);
	pthread_mutex_unlock(&gs_state_lock);
	if (!rc)
		gs_hook_pod_cancel(e.bytes, e.dev);
}

CUresult gs_mem_freed(CUresult rc, struct gs_ptrmap *map, uint64_t key)
{
	if (rc == CUDA_SUCCESS)
		gs_mem_release(map, key);
	return rc;
}

CUresult gs_mem_settle(CUresult rc, void (*fn_locked)(const void *arg), const void *arg)
{
	if (rc != CUDA_SUCCESS || !gs_hook_pod_on())
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	fn_locked(arg);
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

CUresult gs_mem_charge(int dev, uint64_t bytes)
{
	int d;

	if (dev < 0 || !bytes)
		return CUDA_SUCCESS;
	return gs_hook_pod_reserve(bytes, dev, &d);
}

void gs_hook_mem_forget(void)
{
	gs_pool_forget();
	gs_vmm_forget();
	gs_array_forget();
	gs_graph_forget();
	gs_ctx_forget();
}

/* --- plain allocations ------------------------------------------------------- */

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	GS_MEM_ALLOC(&gs_st.ptrs, dptr, bytesize, -1, CALL_REAL(cuMemAlloc_v2, (dptr, bytesize)));
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	GS_MEM_ALLOC(&gs_st.ptrs, dptr, bytesize, -1,
		     CALL_REAL(cuMemAllocManaged, (dptr, bytesize, flags)));
}

/*
 * The pitch is the driver's choice, so the unpadded size is reserved
 * first, then the padding once it is known; the allocation is given up if
 * the padding crosses the limit.
 */
CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				    size_t Height, unsigned int ElementSizeBytes)
{
	uint64_t want, got;
	CUresult rc;
	int dev, dev2;

	if (Height && WidthInBytes > UINT64_MAX / Height)
		return CUDA_ERROR_INVALID_VALUE;
	want = (uint64_t)WidthInBytes * Height;
	rc = gs_mem_begin(want, -1, &dev);
	if (rc)
		return rc;
	rc = CALL_REAL(cuMemAllocPitch_v2, (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
	if (rc != CUDA_SUCCESS || !dptr || !pPitch)
		return gs_mem_end(rc, &gs_st.ptrs, 0, want, dev);
	got = (uint64_t)*pPitch * Height;
	if (dev >= 0 && got > want) {
		if (gs_hook_pod_reserve(got - want, dev, &dev2) != CUDA_SUCCESS) {
			(void)CALL_REAL(cuMemFree_v2, (*dptr));
			gs_hook_pod_cancel(want, dev);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		want = got;
	}
	return gs_mem_end(rc, &gs_st.ptrs, *dptr, want, dev);
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc : gs_pool_ptr_freed(CALL_REAL(cuMemFree_v2, (dptr)), dptr);
}

/* --- what the pod sees --------------------------------------------------------- */

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	CUresult rc = gs_hook_enter();
	uint64_t limit, used, left;

	if (rc)
		return rc;
	rc = CALL_REAL(cuMemGetInfo_v2, (free_bytes, total_bytes));
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
	uint64_t limit;

	if (rc)
		return rc;
	rc = CALL_REAL(cuDeviceTotalMem_v2, (bytes, dev));
	limit = gs_hook_pod_limit(dev);
	if (rc == CUDA_SUCCESS && bytes && limit && *bytes > limit)
		*bytes = (size_t)limit;
	return rc;
}
