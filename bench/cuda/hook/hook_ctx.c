/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_ctx.c - libgpushare's contexts: each is charged
 * GPUSHARE_CONTEXT_RESERVE_MIB (0 by default) for the driver's own memory,
 * which no allocation call shows: a device's primary context while this
 * process retains it (charged once, however many times it is retained),
 * a created context until it is destroyed.
 */
#include "hook_mem.h"

#include <string.h>

/*
 * The primary contexts' state, under primary_lock, which is held across
 * the driver's call: the first retain of a device's primary context is
 * charged once however many threads race to make it (a second charge
 * could refuse a context that already exists).
 */
static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static int primary_refs[MAX_ORDINALS];    /* this process's retains of each primary context */
static int primary_dev[MAX_ORDINALS];     /* where the first retain was charged (-1: nothing) */

/* Created contexts; under gs_state_lock. */
static struct gs_ptrmap ctxs;

void gs_ctx_forget(void)
{
	gs_ptrmap_release(&ctxs);
	memset(primary_refs, 0, sizeof(primary_refs));
	memset(primary_dev, 0, sizeof(primary_dev));
	pthread_mutex_init(&primary_lock, NULL);
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = gs_hook_enter();
	uint64_t reserve;
	int d = -1;

	if (rc)
		return rc;
	reserve = gs_st.cfg.ctx_reserve_bytes;
	if (!reserve || dev < 0 || dev >= MAX_ORDINALS)
		return CALL_REAL(cuDevicePrimaryCtxRetain, (pctx, dev));
	/* Charged when this process first retains it (the driver counts references). */
	pthread_mutex_lock(&primary_lock);
	if (!primary_refs[dev])
		rc = gs_hook_pod_reserve(reserve, dev, &d);
	if (rc == CUDA_SUCCESS)
		rc = CALL_REAL(cuDevicePrimaryCtxRetain, (pctx, dev));
	if (rc == CUDA_SUCCESS && primary_refs[dev]++ == 0)
		primary_dev[dev] = d;
	else if (rc != CUDA_SUCCESS)
		gs_hook_pod_cancel(reserve, d);
	pthread_mutex_unlock(&primary_lock);
	return rc;
}

/*
 * A release (all = 0) or a reset (all = 1) of dev's primary context by
 * the driver's function real: when the last retain goes, so does the
 * reserve.
 */
static CUresult primary_drop(pfn_cuDevicePrimaryCtxRelease_v2 real, CUdevice dev, int all)
{
	CUresult rc = gs_hook_enter();

	if (rc)
		return rc;
	pthread_mutex_lock(&primary_lock);
	rc = CALL_PTR(real, (dev));
	if (rc == CUDA_SUCCESS && gs_st.cfg.ctx_reserve_bytes && dev >= 0 && dev < MAX_ORDINALS &&
	    primary_refs[dev]) {
		primary_refs[dev] = all ? 0 : primary_refs[dev] - 1;
		if (!primary_refs[dev])
			gs_hook_pod_cancel(gs_st.cfg.ctx_reserve_bytes, primary_dev[dev]);
	}
	pthread_mutex_unlock(&primary_lock);
	return rc;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	return primary_drop(gs_real.cuDevicePrimaryCtxRelease_v2, dev, 0);
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	return primary_drop(gs_real.cuDevicePrimaryCtxReset_v2, dev, 1);
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	GS_MEM_ALLOC(&ctxs, pctx, gs_st.cfg.ctx_reserve_bytes, dev,
		     CALL_REAL(cuCtxCreate_v2, (pctx, flags, dev)));
}

CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
				unsigned int flags, CUdevice dev)
{
	GS_MEM_ALLOC(&ctxs, pctx, gs_st.cfg.ctx_reserve_bytes, dev,
		     CALL_REAL(cuCtxCreate_v3, (pctx, paramsArray, numParams, flags, dev)));
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				unsigned int flags, CUdevice dev)
{
	GS_MEM_ALLOC(&ctxs, pctx, gs_st.cfg.ctx_reserve_bytes, dev,
		     CALL_REAL(cuCtxCreate_v4, (pctx, ctxCreateParams, flags, dev)));
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_freed(CALL_REAL(cuCtxDestroy_v2, (ctx)), &ctxs, (uint64_t)(uintptr_t)ctx);
}
