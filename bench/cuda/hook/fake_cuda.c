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

struct fakecuda_driver fakecuda;
pthread_mutex_t fakecuda_lock = PTHREAD_MUTEX_INITIALIZER;
__thread int fakecuda_cur_dev;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t fakecuda_env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : dflt;
}

/* Consumes an injected failure for this entry point, if one is armed. */
int fakecuda_injected(const char *name, CUresult *rc)
{
	int hit;

	pthread_mutex_lock(&fakecuda_lock);
	hit = fakecuda.fail_name[0] && !strcmp(fakecuda.fail_name, name);
	if (hit) {
		*rc = fakecuda.fail_rc;
		fakecuda.fail_name[0] = 0;
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return hit;
}

/* --- controls --------------------------------------------------------------- */

EXPORT void fakecuda_set_device(int ordinal)
{
	fakecuda_cur_dev = ordinal;
}

EXPORT uint64_t fakecuda_used_bytes(int ordinal)
{
	uint64_t v;

	pthread_mutex_lock(&fakecuda_lock);
	v = ordinal >= 0 && ordinal < MAX_DEVS ? fakecuda.used[ordinal] : 0;
	pthread_mutex_unlock(&fakecuda_lock);
	return v;
}

EXPORT void fakecuda_fail_next(const char *name, int rc)
{
	pthread_mutex_lock(&fakecuda_lock);
	snprintf(fakecuda.fail_name, sizeof(fakecuda.fail_name), "%s", name);
	fakecuda.fail_rc = (CUresult)rc;
	pthread_mutex_unlock(&fakecuda_lock);
}

EXPORT uint64_t fakecuda_kernel_ns(void)
{
	return __atomic_load_n(&fakecuda.kernel_ns, __ATOMIC_RELAXED);
}

EXPORT uint64_t fakecuda_launches(void)
{
	return __atomic_load_n(&fakecuda.launches, __ATOMIC_RELAXED);
}

/* --- device and context ------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
	CUresult inj;

	if (fakecuda_injected("cuInit", &inj))
		return inj;
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	if (!fakecuda.initialised) {
		fakecuda.n_devs = (int)fakecuda_env_u64("FAKECUDA_DEVICES", 2);
		if (fakecuda.n_devs < 1 || fakecuda.n_devs > MAX_DEVS)
			fakecuda.n_devs = 2;
		fakecuda.mem_bytes = fakecuda_env_u64("FAKECUDA_MEM_MIB", 16384) << 20;
		fakecuda.pitch = fakecuda_env_u64("FAKECUDA_PITCH", 512);
		fakecuda.block_ns = fakecuda_env_u64("FAKECUDA_KERNEL_NS", 1000);
		fakecuda.uuid_base = (int)fakecuda_env_u64("FAKECUDA_UUID_BASE", 0);
		fakecuda.ctx_bytes = fakecuda_env_u64("FAKECUDA_CTX_MIB", 0) << 20;
		fakecuda.next_ptr = 0x7f0000000000ull;
		fakecuda.initialised = 1;
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = 13000;
	return CUDA_SUCCESS;
}

/*
 * An entry point that answers through its outputs (answer, an expression)
 * once its arguments are acceptable (ok): CUDA_ERROR_INVALID_VALUE when
 * they are not.
 */
#define ANSWER(name, params, ok, answer)                  \
	EXPORT CUresult CUDAAPI name params               \
	{                                                 \
		ENTER(#name);                             \
		if (!(ok))                                \
			return CUDA_ERROR_INVALID_VALUE;  \
		answer;                                   \
		return CUDA_SUCCESS;                      \
	}

/* The UUID of device dev: "fakegpu", zeros, and dev + FAKECUDA_UUID_BASE last. */
static void uuid_of(CUuuid *uuid, int dev)
{
	memset(uuid->bytes, 0, sizeof(uuid->bytes));
	memcpy(uuid->bytes, "fakegpu", 7);
	uuid->bytes[15] = (char)(dev + fakecuda.uuid_base);
}

ANSWER(cuDeviceGetCount, (int *count), count, *count = fakecuda.n_devs)
ANSWER(cuDeviceGetName, (char *name, int len, CUdevice dev), name && len > 0 && FAKECUDA_DEV_OK(dev),
       snprintf(name, (size_t)len, "Fake GPU"))
ANSWER(cuDeviceGetUuid, (CUuuid *uuid, CUdevice dev), uuid && FAKECUDA_DEV_OK(dev), uuid_of(uuid, dev))
/* Only the compute mode: FAKECUDA_COMPUTE_MODE (default 0, CU_COMPUTEMODE_DEFAULT). */
ANSWER(cuDeviceGetAttribute, (int *pi, CUdevice_attribute attrib, CUdevice dev),
       pi && FAKECUDA_DEV_OK(dev) && attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
       *pi = (int)fakecuda_env_u64("FAKECUDA_COMPUTE_MODE", CU_COMPUTEMODE_DEFAULT))
ANSWER(cuDeviceTotalMem_v2, (size_t *bytes, CUdevice dev), bytes && FAKECUDA_DEV_OK(dev),
       *bytes = (size_t)fakecuda.mem_bytes)
ANSWER(cuCtxGetCurrent, (CUcontext *pctx), pctx,
       *pctx = (CUcontext)(uintptr_t)(0x1000 + fakecuda_cur_dev))

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	ENTER("cuDeviceGet");
	if (!device || !FAKECUDA_DEV_OK(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!FAKECUDA_DEV_OK(fakecuda_cur_dev))
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = fakecuda_cur_dev;
	return CUDA_SUCCESS;
}

/* --- streams ---------------------------------------------------------------------------- */

/*
 * A created stream belongs to the device current when it was created;
 * any other handle (NULL, the special ones, made-up values the tests use)
 * is a stream of the current device.
 */
#define MAX_STREAMS 64

static struct {
	int in_use;
	int dev;
} streams[MAX_STREAMS];

/* The index of a handle cuStreamCreate made, or -1. */
static int stream_index(CUstream s)
{
	uintptr_t off = (uintptr_t)s - (uintptr_t)streams;

	if ((uintptr_t)s < (uintptr_t)streams || off % sizeof(streams[0]) ||
	    off / sizeof(streams[0]) >= MAX_STREAMS)
		return -1;
	return (int)(off / sizeof(streams[0]));
}

int fakecuda_stream_dev(CUstream s)
{
	int i = stream_index(s), dev = fakecuda_cur_dev;

	pthread_mutex_lock(&fakecuda_lock);
	if (i >= 0 && streams[i].in_use)
		dev = streams[i].dev;
	pthread_mutex_unlock(&fakecuda_lock);
	return dev;
}

EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	int i;

	ENTER("cuStreamCreate");
	if (!phStream || Flags > CU_STREAM_NON_BLOCKING)
		return CUDA_ERROR_INVALID_VALUE;
	if (!FAKECUDA_DEV_OK(fakecuda_cur_dev))
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&fakecuda_lock);
	for (i = 0; i < MAX_STREAMS && streams[i].in_use; i++)
		;
	if (i < MAX_STREAMS) {
		streams[i].in_use = 1;
		streams[i].dev = fakecuda_cur_dev;
		*phStream = (CUstream)&streams[i];
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return i < MAX_STREAMS ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
	int i = stream_index(hStream);

	ENTER("cuStreamDestroy_v2");
	if (i < 0)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&fakecuda_lock);
	streams[i].in_use = 0;
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
	ENTER("cuStreamGetDevice");
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = fakecuda_stream_dev(hStream);
	return CUDA_SUCCESS;
}

/* --- contexts --------------------------------------------------------------------------- */

/*
 * A context costs FAKECUDA_CTX_MIB of device memory (default 0), as the
 * driver's own state does on a real GPU: the primary context of a device
 * while it is retained, every created context until it is destroyed.
 */
static int primary_refs[MAX_DEVS];

struct ctx {
	int dev;
};

/*
 * What making a context costs: FAKECUDA_CTX_CREATE_US of waiting (default
 * 0), as a real driver takes tens of milliseconds, so that threads that
 * race to make one overlap as they would on a GPU.
 */
static void ctx_making(void)
{
	uint64_t us = fakecuda_env_u64("FAKECUDA_CTX_CREATE_US", 0);
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	if (us)
		nanosleep(&ts, NULL);
}

/* With fakecuda_lock held: a context's memory on dev, taken (sign 1) or given back (-1). */
static void ctx_charge_locked(int dev, int sign)
{
	if (sign > 0)
		fakecuda.used[dev] += fakecuda.ctx_bytes;
	else
		fakecuda.used[dev] -= fakecuda.ctx_bytes;
}

static void ctx_charge(int dev, int sign)
{
	pthread_mutex_lock(&fakecuda_lock);
	ctx_charge_locked(dev, sign);
	pthread_mutex_unlock(&fakecuda_lock);
}

/* The primary context of dev: delta references more (1), fewer (-1), or none left (0). */
static CUresult primary_ref(CUdevice dev, int delta)
{
	CUresult rc = CUDA_SUCCESS;

	pthread_mutex_lock(&fakecuda_lock);
	if (delta < 0 && !primary_refs[dev])
		rc = CUDA_ERROR_INVALID_CONTEXT;
	else if (delta > 0 && primary_refs[dev]++ == 0)
		ctx_charge_locked(dev, 1);
	else if (delta <= 0 && primary_refs[dev] && (delta == 0 || --primary_refs[dev] == 0))
		ctx_charge_locked(dev, -1);
	if (delta == 0)
		primary_refs[dev] = 0;
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRetain");
	if (!pctx || !FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_VALUE;
	ctx_making();
	*pctx = (CUcontext)(uintptr_t)(0x1000 + dev);
	return primary_ref(dev, 1);
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRelease_v2");
	if (!FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_CONTEXT;
	return primary_ref(dev, -1);
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxReset_v2");
	if (!FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	return primary_ref(dev, 0);
}

/* Peer access: any two distinct devices may reach each other's memory. */
EXPORT CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	ENTER("cuDeviceCanAccessPeer");
	if (!canAccessPeer || !FAKECUDA_DEV_OK(dev) || !FAKECUDA_DEV_OK(peerDev))
		return CUDA_ERROR_INVALID_DEVICE;
	*canAccessPeer = dev != peerDev;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
	uintptr_t peer = (uintptr_t)peerContext;

	ENTER("cuCtxEnablePeerAccess");
	if (Flags || peer < 0x1000 || peer >= 0x1000 + (uintptr_t)fakecuda.n_devs ||
	    (int)(peer - 0x1000) == fakecuda_cur_dev)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
	struct ctx *c;

	if (!pctx || !FAKECUDA_DEV_OK(dev))
		return CUDA_ERROR_INVALID_VALUE;
	c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ctx_making();
	c->dev = dev;
	ctx_charge(dev, 1);
	fakecuda_cur_dev = dev; /* a new context is current */
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
	struct ctx *c = (struct ctx *)ctx;

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
	int d = fakecuda_cur_dev, captured;
	CUresult rc;

	if (!FAKECUDA_DEV_OK(d))
		return CUDA_ERROR_INVALID_CONTEXT;
	rc = fakecuda_into_stream(s, FAKECUDA_NODE_WORK, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&fakecuda_lock);
	start = fakecuda.busy_until_ns[d] > t ? fakecuda.busy_until_ns[d] : t;
	fakecuda.busy_until_ns[d] = start + dur_ns;
	fakecuda.kernel_ns += dur_ns;
	fakecuda.launches++;
	if (start > t + QUEUE_NS)
		wait = start - t - QUEUE_NS;
	pthread_mutex_unlock(&fakecuda_lock);
	/* A full launch queue blocks the host, as on a real GPU. */
	if (wait) {
		struct timespec ts = { (time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull) };

		nanosleep(&ts, NULL);
	}
	return CUDA_SUCCESS;
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
	((void)kernelParams, (void)sharedMemBytes,                                        \
	 f && gridDimX && gridDimY && gridDimZ && blockDimX && blockDimY && blockDimZ)

/* A launch of dur ns into stream when check holds, as the flavour ptsz_ means the stream. */
#define LAUNCH(check, stream, dur) \
	((check) ? run_kernel(FAKECUDA_STREAM(stream, ptsz_), dur) : CUDA_ERROR_INVALID_VALUE)

FAKECUDA_TWINS(cuLaunchKernel, KERNEL_ARGS,
	       LAUNCH(KERNEL_OK && ((void)extra, 1), hStream, gridDimX * fakecuda.block_ns))
FAKECUDA_TWINS(cuLaunchCooperativeKernel, COOP_ARGS,
	       LAUNCH(KERNEL_OK, hStream, gridDimX * fakecuda.block_ns))
FAKECUDA_TWINS(cuLaunchKernelEx,
	       (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra),
	       LAUNCH(((void)kernelParams, (void)extra, config && f && config->gridDimX),
		      config->hStream, config->gridDimX * fakecuda.block_ns))
FAKECUDA_TWINS(cuGraphLaunch, (CUgraphExec hGraphExec, CUstream hStream),
	       LAUNCH(hGraphExec != NULL, hStream, 100000ull))

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
static CUresult CUDAAPI mem_alloc_v99(CUdeviceptr *dptr, size_t bytesize)
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
	uint64_t t = now_ns(), busy;
	CUresult rc;
	int captured;

	ENTER("cuEventRecord");
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = fakecuda_into_stream(hStream, FAKECUDA_NODE_WORK, &captured);
	if (rc || captured)
		return rc;
	pthread_mutex_lock(&fakecuda_lock);
	busy = fakecuda.busy_until_ns[fakecuda_cur_dev];
	e->t_ns = busy > t ? busy : t;
	e->recorded = 1;
	pthread_mutex_unlock(&fakecuda_lock);
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

/*
 * What cuGetProcAddress knows: every entry point of hooks.def (so the fake
 * cannot lack one: it would not link), then the fake's own.
 */
#define P(api, ver, fl, name) { api, ver, fl, #name, (void *)name },
static const struct proc procs[] = {
#define GS_HOOK(ret, name, api, version, flavour, params) P(api, version, flavour, name)
#define GS_REAL(ret, name, api, version, flavour, params) P(api, version, flavour, name)
#include "hooks.def"
	P("cuDriverGetVersion", 2020, ANY, cuDriverGetVersion)
	P("cuDeviceGet", 2000, ANY, cuDeviceGet)
	P("cuDeviceGetName", 2000, ANY, cuDeviceGetName)
	P("cuDeviceGetAttribute", 2000, ANY, cuDeviceGetAttribute)
	P("cuMemAlloc", 2000, ANY, cuMemAlloc)
	P("cuMemAlloc", 99000, ANY, mem_alloc_v99)
	P("cuMemPoolSetAttribute", 11020, ANY, cuMemPoolSetAttribute)
	P("cuGraphCreate", 10000, ANY, cuGraphCreate)
	P("cuEventDestroy", 4000, ANY, cuEventDestroy_v2)
	P("cuStreamCreate", 2000, ANY, cuStreamCreate)
	P("cuStreamDestroy", 4000, ANY, cuStreamDestroy_v2)
	P("cuStreamBeginCapture", 10010, LEGACY, cuStreamBeginCapture_v2)
	P("cuStreamBeginCapture", 10010, PTSZ, cuStreamBeginCapture_v2_ptsz)
	P("cuStreamSynchronize", 2000, LEGACY, cuStreamSynchronize)
	P("cuCtxSynchronize", 2000, ANY, cuCtxSynchronize)
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
	if (flags == CU_GET_PROC_ADDRESS_DEFAULT && fakecuda_env_u64("FAKECUDA_GPA_DISTINCT", 0)) {
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
