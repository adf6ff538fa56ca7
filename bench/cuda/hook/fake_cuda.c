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
 *
 * This file holds the fake's state and controls, devices, contexts, the
 * simulated GPU timeline (launches and events) and cuGetProcAddress;
 * fake_cuda_mem.c the memory (allocations, stream-ordered pools, virtual
 * memory management, arrays); fake_cuda_graph.c stream capture and
 * graphs. fake_cuda_internal.h is what they share.
 */
#define _GNU_SOURCE
#include "fake_cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE_NS 2000000ull  /* launches block beyond 2 ms of queued work */

struct event {
	uint64_t t_ns;           /* when the simulated GPU reaches it */
	int recorded;
};

struct fake_driver fk;
pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
__thread int fk_cur_dev;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t fake_env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : dflt;
}

/* Consumes an injected failure for this entry point, if one is armed. */
int fake_injected(const char *name, CUresult *rc)
{
	int hit;

	pthread_mutex_lock(&fk_lock);
	hit = fk.fail_name[0] && !strcmp(fk.fail_name, name);
	if (hit) {
		*rc = fk.fail_rc;
		fk.fail_name[0] = 0;
	}
	pthread_mutex_unlock(&fk_lock);
	return hit;
}

/* --- controls --------------------------------------------------------------- */

EXPORT void fakecuda_set_device(int ordinal)
{
	fk_cur_dev = ordinal;
}

EXPORT uint64_t fakecuda_used_bytes(int ordinal)
{
	uint64_t v;

	pthread_mutex_lock(&fk_lock);
	v = ordinal >= 0 && ordinal < MAX_DEVS ? fk.used[ordinal] : 0;
	pthread_mutex_unlock(&fk_lock);
	return v;
}

EXPORT void fakecuda_fail_next(const char *name, int rc)
{
	pthread_mutex_lock(&fk_lock);
	snprintf(fk.fail_name, sizeof(fk.fail_name), "%s", name);
	fk.fail_rc = (CUresult)rc;
	pthread_mutex_unlock(&fk_lock);
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

	if (fake_injected("cuInit", &inj))
		return inj;
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fk_lock);
	if (!fk.initialised) {
		fk.n_devs = (int)fake_env_u64("FAKECUDA_DEVICES", 2);
		if (fk.n_devs < 1 || fk.n_devs > MAX_DEVS)
			fk.n_devs = 2;
		fk.mem_bytes = fake_env_u64("FAKECUDA_MEM_MIB", 16384) << 20;
		fk.pitch = fake_env_u64("FAKECUDA_PITCH", 512);
		fk.block_ns = fake_env_u64("FAKECUDA_KERNEL_NS", 1000);
		fk.uuid_base = (int)fake_env_u64("FAKECUDA_UUID_BASE", 0);
		fk.ctx_bytes = fake_env_u64("FAKECUDA_CTX_MIB", 0) << 20;
		fk.next_ptr = 0x7f0000000000ull;
		fk.initialised = 1;
	}
	pthread_mutex_unlock(&fk_lock);
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
	*pi = (int)fake_env_u64("FAKECUDA_COMPUTE_MODE", CU_COMPUTEMODE_DEFAULT);
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
	*pctx = (CUcontext)(uintptr_t)(0x1000 + fk_cur_dev);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (fk_cur_dev < 0 || fk_cur_dev >= fk.n_devs)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = fk_cur_dev;
	return CUDA_SUCCESS;
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
	pthread_mutex_lock(&fk_lock);
	if (sign > 0)
		fk.used[dev] += fk.ctx_bytes;
	else
		fk.used[dev] -= fk.ctx_bytes;
	pthread_mutex_unlock(&fk_lock);
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
	fk_cur_dev = dev; /* a new context is current */
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
	int d = fk_cur_dev, captured;
	CUresult rc;

	if (d < 0 || d >= fk.n_devs)
		return CUDA_ERROR_INVALID_CONTEXT;
	rc = fake_into_stream(s, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&fk_lock);
	start = fk.busy_until_ns[d] > t ? fk.busy_until_ns[d] : t;
	fk.busy_until_ns[d] = start + dur_ns;
	fk.kernel_ns += dur_ns;
	fk.launches++;
	if (start > t + QUEUE_NS)
		wait = start - t - QUEUE_NS;
	pthread_mutex_unlock(&fk_lock);
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
	rc = fake_into_stream(hStream, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&fk_lock);
	e->t_ns = fk.busy_until_ns[fk_cur_dev] > t ? fk.busy_until_ns[fk_cur_dev] : t;
	e->recorded = 1;
	pthread_mutex_unlock(&fk_lock);
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
	if (flags == CU_GET_PROC_ADDRESS_DEFAULT && fake_env_u64("FAKECUDA_GPA_DISTINCT", 0)) {
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
