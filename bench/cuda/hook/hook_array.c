/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_array.c - libgpushare's arrays: device memory without a device
 * pointer. cuArrayCreate, cuArray3DCreate and cuMipmappedArrayCreate are
 * charged their size as memsize.h rounds it up, until destroyed.
 */
#include "hook_mem.h"

#include "memsize.h"

/* memsize.c works on cuda.h's numbers without including it. */
_Static_assert(GS_ARRAY_LAYERED == CUDA_ARRAY3D_LAYERED, "CUDA_ARRAY3D_LAYERED");
_Static_assert(GS_ARRAY_CUBEMAP == CUDA_ARRAY3D_CUBEMAP, "CUDA_ARRAY3D_CUBEMAP");
_Static_assert(CU_AD_FORMAT_FLOAT == 0x20 && CU_AD_FORMAT_HALF == 0x10 &&
		       CU_AD_FORMAT_NV12 == 0xb0 && CU_AD_FORMAT_BC1_UNORM == 0x91,
	       "CUarray_format");

/* CUarray and CUmipmappedArray handles; under gs_state_lock. */
static struct gs_ptrmap arrays;

void gs_array_forget(void)
{
	gs_ptrmap_release(&arrays);
}

/* The bytes of an array of levels levels described by a (NULL: 0, the driver refuses it). */
static uint64_t array_bytes(const CUDA_ARRAY3D_DESCRIPTOR *a, unsigned int levels)
{
	return a ? gs_array_bytes(a->Format, a->NumChannels, a->Width, a->Height, a->Depth,
				  a->Flags, levels)
		 : 0;
}

CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
	const CUDA_ARRAY_DESCRIPTOR *a = pAllocateArray;

	GS_MEM_ALLOC(&arrays, pHandle,
		     a ? gs_array_bytes(a->Format, a->NumChannels, a->Width, a->Height, 0, 0, 1) : 0,
		     -1, CALL_REAL(cuArrayCreate_v2, (pHandle, pAllocateArray)));
}

CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
	GS_MEM_ALLOC(&arrays, pHandle, array_bytes(pAllocateArray, 1), -1,
		     CALL_REAL(cuArray3DCreate_v2, (pHandle, pAllocateArray)));
}

CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
					const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
					unsigned int numMipmapLevels)
{
	GS_MEM_ALLOC(&arrays, pHandle, array_bytes(pMipmappedArrayDesc, numMipmapLevels), -1,
		     CALL_REAL(cuMipmappedArrayCreate,
			       (pHandle, pMipmappedArrayDesc, numMipmapLevels)));
}

CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_freed(CALL_REAL(cuArrayDestroy, (hArray)), &arrays,
				 (uint64_t)(uintptr_t)hArray);
}

CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_freed(CALL_REAL(cuMipmappedArrayDestroy, (hMipmappedArray)), &arrays,
				 (uint64_t)(uintptr_t)hMipmappedArray);
}
