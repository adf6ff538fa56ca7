/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_vmm.c - libgpushare's virtual memory management: cuMemCreate is
 * charged its physical size (device-resident memory only; host and NUMA
 * memory are not device memory) until the handle is released (cuMemRelease,
 * once more per cuMemRetainAllocationHandle) and no longer mapped
 * (cuMemUnmap): NVIDIA's samples release right after mapping, and the
 * memory lives until the last unmap. Handles imported from another
 * process are charged where they were created.
 */
#include "hook_mem.h"

/*
 * Under gs_state_lock. A handle's entry (gs_st.handles) counts in refs the
 * references to it and in aux its mappings; maps holds each mapping's
 * address and size, with its handle as owner.
 */
static struct gs_ptrmap maps;

void gs_vmm_forget(void)
{
	gs_ptrmap_release(&maps);
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop, unsigned long long flags)
{
	int device = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
		     prop->location.id >= 0;
	CUresult rc;
	int dev;

	rc = gs_mem_begin(device ? size : 0, device ? prop->location.id : -1, &dev);
	if (rc)
		return rc;
	rc = CALL_REAL(cuMemCreate, (handle, size, prop, flags));
	if (rc == CUDA_SUCCESS && handle) {
		struct gs_ptrmap_entry e = { *handle, size, dev, 1, 0, 0 };

		gs_mem_commit_entry(&gs_st.handles, &e);
		return rc;
	}
	return gs_mem_end(rc, &gs_st.handles, 0, size, dev);
}

/* With gs_state_lock held: frees a handle's charge once nothing holds it. */
static void handle_check_locked(struct gs_ptrmap_entry *e)
{
	struct gs_ptrmap_entry gone;

	if (e->refs > 0 || e->aux > 0)
		return;
	if (gs_ptrmap_take(&gs_st.handles, e->key, &gone) == 0)
		gs_hook_pod_cancel(gone.bytes, gone.dev);
}

/* With gs_state_lock held: one reference to handle more (+1) or less (-1). */
static void handle_ref_locked(uint64_t handle, int delta)
{
	struct gs_ptrmap_entry *e = gs_ptrmap_find(&gs_st.handles, handle);

	if (!e)
		return;
	e->refs += delta;
	handle_check_locked(e);
}

static void handle_released_locked(const void *arg)
{
	handle_ref_locked(*(const CUmemGenericAllocationHandle *)arg, -1);
}

static void handle_retained_locked(const void *arg)
{
	if (arg)
		handle_ref_locked(*(const CUmemGenericAllocationHandle *)arg, 1);
}

/* The memory lives on while it is mapped: only then is it given back. */
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuMemRelease, (handle)), handle_released_locked, &handle);
}

CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuMemRetainAllocationHandle, (handle, addr)),
				  handle_retained_locked, handle);
}

/* A mapping, as cuMemMap and cuMemUnmap give it. */
struct mapping {
	CUdeviceptr ptr;
	size_t size;
	CUmemGenericAllocationHandle handle;
};

static void mapped_locked(const void *arg)
{
	const struct mapping *m = arg;
	struct gs_ptrmap_entry *e = gs_ptrmap_find(&gs_st.handles, m->handle);
	struct gs_ptrmap_entry rec;

	if (!e)
		return;
	rec = (struct gs_ptrmap_entry){ m->ptr, m->size, e->dev, 0, m->handle, 0 };
	/* Without a record of the mapping, the handle stays charged for good. */
	if (gs_ptrmap_put_entry(&maps, &rec) == 0)
		e->aux++;
	else
		e->refs = INT32_MAX / 2;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	struct mapping m = { ptr, size, handle };
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuMemMap, (ptr, size, offset, handle, flags)),
				  mapped_locked, &m);
}

/* The range may cover several mappings end to end; each one's handle loses one. */
static void unmapped_locked(const void *arg)
{
	const struct mapping *u = arg;
	struct gs_ptrmap_entry m, *e;
	CUdeviceptr va = u->ptr;

	while (va - u->ptr < u->size && gs_ptrmap_take(&maps, va, &m) == 0) {
		e = gs_ptrmap_find(&gs_st.handles, m.owner);
		if (e) {
			e->aux--;
			handle_check_locked(e);
		}
		if (!m.bytes)
			break;
		va += m.bytes;
	}
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct mapping u = { ptr, size, 0 };
	CUresult rc = gs_hook_enter();

	return rc ? rc : gs_mem_settle(CALL_REAL(cuMemUnmap, (ptr, size)), unmapped_locked, &u);
}
