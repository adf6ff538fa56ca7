/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook.c - libgpushare: per-pod GPU memory and compute limits by
 * interposing the CUDA driver API (LD_PRELOAD=libgpushare.so).
 *
 * How calls reach us. A program that links libcuda directly binds to our
 * exported cu* symbols, since a preloaded library comes first in the
 * global scope. The CUDA runtime does not: it dlopen()s libcuda.so.1,
 * looks up cuGetProcAddress with dlsym() on that handle (which searches
 * libcuda alone, not the global scope), and fetches every other entry
 * point through cuGetProcAddress (CUDA >= 11.3). So we also export dlsym:
 * a lookup in libcuda of a symbol we hook returns our wrapper, and our
 * cuGetProcAddress returns our wrapper whenever the driver's answer is an
 * entry point we hook. The driver's answer is matched by identity, against
 * the address dlsym gives for the export and the address the driver's own
 * cuGetProcAddress gives for our (api, version, flavour): a version or
 * flavour we do not know (a future cuMemAlloc_v3, say) never gets a
 * wrapper with the wrong ABI, it passes through untouched.
 * dlsym(RTLD_NEXT, ...) passes straight through, so it keeps its meaning
 * for its caller.
 *
 * We never link libcuda: the real functions come from dlopen("libcuda.so.1")
 * and the real dlsym, so a test can put a fake driver in its place
 * (fake_cuda.c).
 *
 * Memory: every allocation reserves its bytes in the pod region before the
 * driver is asked, so concurrent allocations of the pod's processes can
 * never overshoot together, and an allocation that would cross the limit
 * fails with CUDA_ERROR_OUT_OF_MEMORY without reaching the driver.
 * Compute: see throttle.h. Refusals (bad variables, a region of another
 * layout version) print one line on stderr and make every hooked call
 * return CUDA_ERROR_OPERATING_SYSTEM: running without the limits the pod
 * asked for would be worse than not running.
 */
#define _GNU_SOURCE /* dlvsym, RTLD_NEXT */
#define __CUDA_API_VERSION_INTERNAL 1 /* the real export names, no _v2 renames */
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "core/error.h"
#include "ptrmap.h"
#include "region.h"
#include "throttle.h"

#define GS_EXPORT __attribute__((visibility("default")))
/*
 * For what a sanitizer runtime may call while it initialises (its own
 * lookups go through our dlsym): instrumented code would touch shadow
 * memory that does not exist yet.
 */
#define GS_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#define GS_HIDDEN __attribute__((visibility("hidden")))

/* --- generated from hooks.def -------------------------------------------- */

#define GS_HOOK(ret, name, api, version, flavour, params) GS_EXPORT ret CUDAAPI name params;
#include "hooks.def"

#define GS_HOOK(ret, name, api, version, flavour, params) typedef ret(CUDAAPI *pfn_##name) params;
#define GS_REAL(ret, name, params) typedef ret(CUDAAPI *pfn_##name) params;
#include "hooks.def"

/* The real driver, filled once by load_driver(). */
static struct {
#define GS_HOOK(ret, name, api, version, flavour, params) pfn_##name name;
#define GS_REAL(ret, name, params) pfn_##name name;
#include "hooks.def"
} real;

enum hook_id {
#define GS_HOOK(ret, name, api, version, flavour, params) HOOK_##name,
#include "hooks.def"
	HOOK__COUNT
};

enum flavour { FL_ANY, FL_LEGACY, FL_PTSZ };

struct hook_entry {
	const char *name;      /* the export */
	const char *api;       /* what cuGetProcAddress is asked for */
	int version;
	enum flavour flavour;
};

static const struct hook_entry hooks[HOOK__COUNT] = {
#define GS_HOOK(ret, name, api, version, flavour, params) \
	[HOOK_##name] = { #name, api, version, FL_##flavour },
#include "hooks.def"
};

/* Addresses compared and returned by dlsym and cuGetProcAddress. */
static void *wrapper_addr[HOOK__COUNT];
static void *real_addr[HOOK__COUNT];   /* dlsym of the export */
static void *gpa_addr[HOOK__COUNT];    /* the driver's cuGetProcAddress for our triple */

/* --- logging --------------------------------------------------------------- */

static int log_level = GS_SHARE_LOG_WARN;

__attribute__((format(printf, 2, 3))) static void gs_log(int level, const char *fmt, ...)
{
	char line[768];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	memcpy(line, "gpushare: ", 10);
	va_start(ap, fmt);
	n = vsnprintf(line + 10, sizeof(line) - 11, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 10;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* One write: the lines of a pod's processes do not interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- the real dlsym and the real driver ------------------------------------ */

typedef void *(*dlsym_fn)(void *, const char *);
/* Not static only for the assembly entry point of dlsym below; never exported. */
GS_HIDDEN dlsym_fn gs_real_dlsym;
#define real_dlsym gs_real_dlsym
static void *libcuda;
static int driver_ready;               /* atomic: load_driver() finished */
static __thread int in_driver_load;    /* dlsym calls made while loading pass through */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

GS_HIDDEN void gs_find_real_dlsym(void);
GS_HIDDEN void *gs_dlsym_impl(void *handle, const char *name);

GS_NO_SANITIZE void gs_find_real_dlsym(void)
{
	/* dlvsym is not interposed, and RTLD_NEXT from here is libc. */
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17",
						 "GLIBC_2.0" };
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]) && !real_dlsym; i++)
		real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
}

static CUresult real_gpa(const char *api, void **pfn, int version, cuuint64_t flags)
{
	CUdriverProcAddressQueryResult status;

	if (real.cuGetProcAddress_v2)
		return real.cuGetProcAddress_v2(api, pfn, version, flags, &status);
	if (real.cuGetProcAddress)
		return real.cuGetProcAddress(api, pfn, version, flags);
	return CUDA_ERROR_NOT_FOUND;
}

static void load_driver(void)
{
	size_t i;

	if (__atomic_load_n(&driver_ready, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&init_lock);
	if (driver_ready) {
		pthread_mutex_unlock(&init_lock);
		return;
	}
	in_driver_load = 1;
	if (!real_dlsym)
		gs_find_real_dlsym();
	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!libcuda || !real_dlsym) {
		gs_log(GS_SHARE_LOG_WARN, "cannot load the CUDA driver (libcuda.so.1): %s",
		       libcuda ? "no dlsym" : dlerror());
	} else {
#define GS_HOOK(ret, name, api, version, flavour, params) \
	real.name = (pfn_##name)real_dlsym(libcuda, #name);
#define GS_REAL(ret, name, params) real.name = (pfn_##name)real_dlsym(libcuda, #name);
#include "hooks.def"
	}
#define GS_HOOK(ret, name, api, version, flavour, params) \
	wrapper_addr[HOOK_##name] = (void *)name;           \
	real_addr[HOOK_##name] = (void *)real.name;
#include "hooks.def"
	for (i = 0; i < HOOK__COUNT; i++) {
		static const cuuint64_t flags[] = {
			[FL_ANY] = CU_GET_PROC_ADDRESS_DEFAULT,
			[FL_LEGACY] = CU_GET_PROC_ADDRESS_LEGACY_STREAM,
			[FL_PTSZ] = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
		};
		void *p = NULL;

		if (real_gpa(hooks[i].api, &p, hooks[i].version, flags[hooks[i].flavour]) ==
		    CUDA_SUCCESS)
			gpa_addr[i] = p;
	}
	in_driver_load = 0;
	__atomic_store_n(&driver_ready, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&init_lock);
}

static int hook_by_name(const char *name)
{
	int i;

	for (i = 0; i < HOOK__COUNT; i++)
		if (!strcmp(hooks[i].name, name))
			return i;
	return -1;
}

static int hook_by_addr(const void *p)
{
	int i;

	for (i = 0; p && i < HOOK__COUNT; i++)
		if (p == real_addr[i] || p == gpa_addr[i])
			return i;
	return -1;
}

/*
 * dlsym(RTLD_NEXT, ...) searches the objects after its *caller*, which
 * glibc finds from the return address. A call through a C wrapper would
 * make us the caller, so dlsym's entry point is a few instructions of
 * assembly: RTLD_NEXT jumps straight into the real dlsym with the
 * caller's return address untouched (resolving the real dlsym first if
 * needed, with the arguments saved); every other handle goes to
 * gs_dlsym_impl. Sanitizer runtimes look up their real functions this
 * way while they start, so this path runs no instrumented code and calls
 * nothing but dlvsym.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
#if defined(__CET__)
	"	endbr64\n"
#endif
	"	cmpq $-1, %rdi\n"
	"	jne gs_dlsym_impl\n"
	"	movq gs_real_dlsym(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	jmp *%rax\n"
	"1:	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call gs_find_real_dlsym\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	movq gs_real_dlsym(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 2f\n"
	"	jmp *%rax\n"
	"2:	xorl %eax, %eax\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, %function\n"
	"dlsym:\n"
	"	cmn x0, #1\n"
	"	b.ne gs_dlsym_impl\n"
	"	adrp x16, gs_real_dlsym\n"
	"	ldr x16, [x16, :lo12:gs_real_dlsym]\n"
	"	cbz x16, 1f\n"
	"	br x16\n"
	"1:	stp x29, x30, [sp, #-32]!\n"
	"	stp x0, x1, [sp, #16]\n"
	"	bl gs_find_real_dlsym\n"
	"	ldp x0, x1, [sp, #16]\n"
	"	ldp x29, x30, [sp], #32\n"
	"	adrp x16, gs_real_dlsym\n"
	"	ldr x16, [x16, :lo12:gs_real_dlsym]\n"
	"	cbz x16, 2f\n"
	"	br x16\n"
	"2:	mov x0, #0\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");
#else
#error "libgpushare: dlsym's entry point is written for x86-64 and AArch64 only"
#endif

/* dlsym for every handle but RTLD_NEXT (see the entry point above). */
GS_NO_SANITIZE void *gs_dlsym_impl(void *handle, const char *name)
{
	void *sym;
	int i;

	if (!real_dlsym)
		gs_find_real_dlsym();
	if (!real_dlsym)
		return NULL;
	sym = real_dlsym(handle, name);
	if (!sym || name[0] != 'c' || name[1] != 'u' || in_driver_load)
		return sym;
	load_driver();
	i = hook_by_name(name);
	if (i >= 0 && (sym == real_addr[i] || sym == gpa_addr[i]))
		return wrapper_addr[i];
	return sym;
}

/* --- the pod's state --------------------------------------------------------- */

#define MAX_ORDINALS 64
#define SAMPLE_PAIRS 8
#define BEAT_EVERY_NS 1000000ull       /* heartbeat at most once a millisecond */
#define SHARE_EVERY_NS 5000000ull      /* recompute the allowed share every 5 ms */
#define BURST_NS 5000000.0             /* the bucket holds 5 ms of GPU time */
#define MIN_SLEEP_NS 200000ull         /* shorter sleeps overshoot: let the debt grow */

struct dev_throttle {
	int slot;                /* node region slot, -1 before the claim */
	uint32_t gen;
	uint64_t last_beat_ns;
	uint64_t last_share_ns;
	double allowed;
	struct gs_bucket bucket;
	uint8_t uuid[16];
};

struct sample_pair {
	CUevent start, end;
	uint64_t key;
	int state;               /* 0 free, 1 being recorded, 2 pending */
};

static struct {
	int ready;               /* atomic: share_init() finished */
	CUresult refusal;        /* CUDA_SUCCESS, or what every hooked call returns */
	struct gs_share_config cfg;
	int limited;             /* compute_pct < 100 */
	int pod_ok, node_ok;
	struct gs_region pod, node;
	int proc_slot;
	struct gs_ptrmap ptrs;   /* device pointers */
	struct gs_ptrmap handles; /* cuMemCreate handles */
	int dev_index[MAX_ORDINALS]; /* ordinal -> pod device index; -1 unknown */
	struct dev_throttle thr[MAX_ORDINALS];
	CUcontext sample_ctx;
	struct sample_pair pairs[SAMPLE_PAIRS];
	int poll_next;
	uint64_t last_beat_any_ns;
	struct gs_cost_table costs;
} st;

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *env_get(const char *name)
{
	static char host[GS_SHARE_ID_MAX];
	const char *v = getenv(name);

	if (!v && !strcmp(name, "HOSTNAME") && !gethostname(host, sizeof(host) - 1))
		return host;
	return v;
}

static void reset_state(void)
{
	int i;

	for (i = 0; i < MAX_ORDINALS; i++) {
		st.dev_index[i] = -1;
		st.thr[i].slot = -1;
	}
	gs_ptrmap_init(&st.ptrs);
	gs_ptrmap_init(&st.handles);
	st.pod.fd = st.node.fd = -1;
	st.proc_slot = -1;
}

static void share_init(void)
{
	char err[512];
	int rc;

	if (__atomic_load_n(&st.ready, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&init_lock);
	if (st.ready)
		goto out;
	reset_state();
	if (gs_share_config_read(&st.cfg, env_get, err, sizeof(err))) {
		gs_log(GS_SHARE_LOG_QUIET, "%s: refusing to run without the pod's limits", err);
		st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	log_level = st.cfg.log_level;
	st.limited = st.cfg.compute_pct < 100;
	if (st.cfg.mem_limit_bytes) {
		rc = gs_region_open(&st.pod, st.cfg.shm_dir, GS_REGION_POD, st.cfg.pod_id, err,
				    sizeof(err));
		if (!rc)
			rc = gs_pod_attach(&st.pod, (int32_t)getpid(), st.cfg.mem_limit_bytes,
					   &st.proc_slot, err, sizeof(err));
		if (rc) {
			gs_log(GS_SHARE_LOG_QUIET, "%s", err);
			gs_region_close(&st.pod);
			st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
			goto out;
		}
		st.pod_ok = 1;
	}
	rc = gs_region_open(&st.node, st.cfg.shm_dir, GS_REGION_NODE, st.cfg.node_id, err,
			    sizeof(err));
	if (rc) {
		if (st.limited || rc == GS_ESCHEMA) {
			gs_log(GS_SHARE_LOG_QUIET, "%s", err);
			st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
			goto out;
		}
		/* No compute limit of our own: others merely will not see us. */
		gs_log(GS_SHARE_LOG_WARN, "%s (running without a node region)", err);
	} else {
		st.node_ok = 1;
	}
	gs_log(GS_SHARE_LOG_INFO, "pod %s: memory limit %llu MiB (%s), compute share %d%%",
	       st.cfg.pod_id, (unsigned long long)(st.cfg.mem_limit_bytes >> 20),
	       st.cfg.mem_source, st.cfg.compute_pct);
out:
	__atomic_store_n(&st.ready, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&init_lock);
}

/*
 * After fork() the child is a new process of the pod: it must not use the
 * parent's slots (it shares their lock's open file description, so the
 * parent would look dead to it), its pointers or its events.
 */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&init_lock);
	pthread_mutex_lock(&state_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&state_lock);
	pthread_mutex_unlock(&init_lock);
}

static void atfork_child(void)
{
	if (st.pod.fd >= 0 || st.pod.map)
		gs_region_close(&st.pod);
	if (st.node.fd >= 0 || st.node.map)
		gs_region_close(&st.node);
	gs_ptrmap_release(&st.ptrs);
	gs_ptrmap_release(&st.handles);
	memset(&st, 0, sizeof(st));
	reset_state();
	pthread_mutex_init(&state_lock, NULL);
	pthread_mutex_init(&init_lock, NULL);
}

__attribute__((constructor)) static void gs_hook_ctor(void)
{
	reset_state();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Everything a hooked call needs before it runs. */
static CUresult enter(void)
{
	load_driver();
	share_init();
	return st.refusal;
}

/* --- memory ---------------------------------------------------------------- */

static int device_index_of(CUdevice ordinal)
{
	CUuuid uuid;
	int i;

	if (ordinal < 0 || ordinal >= MAX_ORDINALS)
		return -1;
	if (st.dev_index[ordinal] >= 0)
		return st.dev_index[ordinal];
	if (!real.cuDeviceGetUuid || real.cuDeviceGetUuid(&uuid, ordinal) != CUDA_SUCCESS)
		return -1;
	i = gs_pod_dev_index(&st.pod, (const uint8_t *)uuid.bytes);
	if (i < 0) {
		gs_log(GS_SHARE_LOG_WARN, "%s: no room for another device", st.pod.path);
		return -1;
	}
	st.dev_index[ordinal] = i;
	return i;
}

static int current_device_index(void)
{
	CUdevice d;

	if (!real.cuCtxGetDevice || real.cuCtxGetDevice(&d) != CUDA_SUCCESS)
		return -1;
	return device_index_of(d);
}

/*
 * Reserves bytes on a device before the driver is asked. *dev_out is -1
 * when nothing is accounted (no memory limit, or no device to charge: the
 * driver will then fail the call itself).
 */
static CUresult mem_reserve(uint64_t bytes, int ordinal, int *dev_out)
{
	int dev, rc;

	*dev_out = -1;
	if (!st.pod_ok || !bytes)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&state_lock);
	dev = ordinal >= 0 ? device_index_of(ordinal) : current_device_index();
	pthread_mutex_unlock(&state_lock);
	if (dev < 0)
		return CUDA_SUCCESS;
	rc = gs_pod_reserve(&st.pod, st.proc_slot, dev, bytes, st.cfg.mem_limit_bytes);
	if (rc == GS_ENOMEM) {
		gs_log(GS_SHARE_LOG_INFO, "pod %s: %llu bytes would cross the %llu MiB limit",
		       st.cfg.pod_id, (unsigned long long)bytes,
		       (unsigned long long)(st.cfg.mem_limit_bytes >> 20));
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (rc)
		return CUDA_ERROR_OPERATING_SYSTEM;
	*dev_out = dev;
	return CUDA_SUCCESS;
}

static void mem_cancel(uint64_t bytes, int dev)
{
	if (dev >= 0)
		gs_pod_unreserve(&st.pod, st.proc_slot, dev, bytes);
}

/* The driver said yes: remember what to give back on free. */
static void mem_commit(struct gs_ptrmap *map, uint64_t key, uint64_t bytes, int dev)
{
	int rc;

	if (dev < 0)
		return;
	pthread_mutex_lock(&state_lock);
	rc = gs_ptrmap_put(map, key, bytes, dev);
	pthread_mutex_unlock(&state_lock);
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

	if (!st.pod_ok)
		return;
	pthread_mutex_lock(&state_lock);
	rc = gs_ptrmap_take(map, key, &e);
	pthread_mutex_unlock(&state_lock);
	if (!rc)
		mem_cancel(e.bytes, e.dev);
}

/* The two halves of every allocation that returns one device pointer. */
static CUresult alloc_begin(uint64_t bytes, int *dev_out)
{
	CUresult rc = enter();

	*dev_out = -1;
	return rc ? rc : mem_reserve(bytes, -1, dev_out);
}

static CUresult alloc_end(CUresult rc, const CUdeviceptr *dptr, uint64_t bytes, int dev)
{
	if (rc == CUDA_SUCCESS && dptr)
		mem_commit(&st.ptrs, *dptr, bytes, dev);
	else
		mem_cancel(bytes, dev);
	return rc;
}

#define CALL_REAL(fn, args) (real.fn ? real.fn args : CUDA_ERROR_NOT_INITIALIZED)

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
	CUresult rc = enter();
	int dev;

	if (rc)
		return rc;
	if (!real.cuMemAllocPitch_v2)
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
	rc = real.cuMemAllocPitch_v2(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	if (rc != CUDA_SUCCESS || !dptr || !pPitch) {
		mem_cancel(want, dev);
		return rc;
	}
	got = (uint64_t)*pPitch * Height;
	if (dev >= 0 && got > want) {
		if (gs_pod_reserve(&st.pod, st.proc_slot, dev, got - want,
				   st.cfg.mem_limit_bytes)) {
			if (real.cuMemFree_v2)
				real.cuMemFree_v2(*dptr);
			mem_cancel(want, dev);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	mem_commit(&st.ptrs, *dptr, got > want ? got : want, dev);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuMemFree_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuMemFree_v2(dptr);
	if (rc == CUDA_SUCCESS)
		mem_release(&st.ptrs, dptr);
	return rc;
}

/*
 * A stream-ordered free returns the bytes to the pod when it is issued,
 * not when the stream reaches it: the memory goes back to the pool either
 * way, and the pool, not the pod, decides when the card gets it back.
 */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuMemFreeAsync)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuMemFreeAsync(dptr, hStream);
	if (rc == CUDA_SUCCESS)
		mem_release(&st.ptrs, dptr);
	return rc;
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuMemFreeAsync_ptsz)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuMemFreeAsync_ptsz(dptr, hStream);
	if (rc == CUDA_SUCCESS)
		mem_release(&st.ptrs, dptr);
	return rc;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop, unsigned long long flags)
{
	CUresult rc = enter();
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
		mem_commit(&st.handles, *handle, size, dev);
	else
		mem_cancel(size, dev);
	return rc;
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuMemRelease)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuMemRelease(handle);
	if (rc == CUDA_SUCCESS)
		mem_release(&st.handles, handle);
	return rc;
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	CUresult rc = enter();
	uint64_t limit = st.cfg.mem_limit_bytes, used, left;
	int dev;

	if (rc)
		return rc;
	if (!real.cuMemGetInfo_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuMemGetInfo_v2(free_bytes, total_bytes);
	if (rc != CUDA_SUCCESS || !st.pod_ok || !free_bytes || !total_bytes)
		return rc;
	pthread_mutex_lock(&state_lock);
	dev = current_device_index();
	pthread_mutex_unlock(&state_lock);
	used = dev >= 0 ? gs_pod_used(&st.pod, dev) : 0;
	left = used < limit ? limit - used : 0;
	if (*total_bytes > limit)
		*total_bytes = (size_t)limit;
	if (*free_bytes > left)
		*free_bytes = (size_t)left;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuDeviceTotalMem_v2)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real.cuDeviceTotalMem_v2(bytes, dev);
	if (rc == CUDA_SUCCESS && bytes && st.pod_ok && *bytes > st.cfg.mem_limit_bytes)
		*bytes = (size_t)st.cfg.mem_limit_bytes;
	return rc;
}

/* --- compute ------------------------------------------------------------- */

struct launch {
	struct sample_pair *pair;  /* non-NULL: this launch is timed */
	CUstream stream;
	uint64_t sleep_ns;
};

static struct dev_throttle *throttle_of(CUdevice ordinal, uint64_t now)
{
	struct dev_throttle *t;
	CUuuid uuid;
	int slot;

	if (ordinal < 0 || ordinal >= MAX_ORDINALS)
		return NULL;
	t = &st.thr[ordinal];
	if (t->slot >= 0 && gs_node_slot_current(&st.node, t->slot, t->gen))
		return t;
	if (t->slot < 0) {
		if (!real.cuDeviceGetUuid || real.cuDeviceGetUuid(&uuid, ordinal) != CUDA_SUCCESS)
			return NULL;
		memcpy(t->uuid, uuid.bytes, 16);
		t->allowed = 1.0;
		gs_bucket_init(&t->bucket, BURST_NS, 1.0, now);
	}
	slot = gs_node_claim(&st.node, st.cfg.pod_id, t->uuid, (int32_t)getpid(),
			     st.cfg.compute_pct, now, &t->gen);
	if (slot < 0) {
		gs_log(GS_SHARE_LOG_WARN, "%s: no free slot; launches are not seen by other pods",
		       st.node.path);
		return NULL;
	}
	t->slot = slot;
	t->last_beat_ns = now;
	return t;
}

/* Collects the timing of one finished sample, if any, without waiting. */
static void poll_samples(void)
{
	struct sample_pair *p;
	float ms;
	int i;

	for (i = 0; i < SAMPLE_PAIRS; i++) {
		p = &st.pairs[(st.poll_next + i) % SAMPLE_PAIRS];
		if (p->state == 2)
			break;
	}
	if (i == SAMPLE_PAIRS)
		return;
	st.poll_next = (int)((p - st.pairs) + 1) % SAMPLE_PAIRS;
	switch (real.cuEventQuery(p->end)) {
	case CUDA_ERROR_NOT_READY:
		return;
	case CUDA_SUCCESS:
		if (real.cuEventElapsedTime(&ms, p->start, p->end) == CUDA_SUCCESS)
			gs_cost_record(&st.costs, p->key, (double)ms * 1e6);
		break;
	default:
		break;
	}
	p->state = 0;
}

/* A free pair of events in the current context, or NULL (then: no timing). */
static struct sample_pair *take_pair(CUstream stream)
{
	CUstreamCaptureStatus cap;
	CUcontext ctx = NULL;
	int i;

	if (!real.cuEventCreate || !real.cuEventRecord || !real.cuEventQuery ||
	    !real.cuEventElapsedTime || !real.cuCtxGetCurrent)
		return NULL;
	if (real.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
		return NULL;
	if (!st.sample_ctx)
		st.sample_ctx = ctx;
	if (ctx != st.sample_ctx)
		return NULL; /* the pool belongs to the first context; others go untimed */
	/* An event recorded into a graph being captured cannot be timed. */
	if (real.cuStreamIsCapturing &&
	    (real.cuStreamIsCapturing(stream, &cap) != CUDA_SUCCESS ||
	     cap != CU_STREAM_CAPTURE_STATUS_NONE))
		return NULL;
	for (i = 0; i < SAMPLE_PAIRS; i++) {
		struct sample_pair *p = &st.pairs[i];

		if (p->state)
			continue;
		if (!p->start && (real.cuEventCreate(&p->start, CU_EVENT_DEFAULT) ||
				  real.cuEventCreate(&p->end, CU_EVENT_DEFAULT))) {
			p->start = p->end = NULL;
			return NULL;
		}
		p->state = 1;
		return p;
	}
	return NULL;
}

/*
 * Before a launch: heartbeat, and for a pod with a compute share that
 * competes with others, the charge (and maybe a sleep) and the timing.
 */
static void launch_begin(struct launch *l, uintptr_t fn, uint64_t grid, uint64_t block,
			 uint64_t smem, CUstream stream, int ptsz)
{
	struct gs_peer peers[GS_REGION_NODE_SLOTS];
	struct dev_throttle *t;
	struct gs_cost_entry *e;
	uint64_t now, key;
	CUdevice ordinal;
	int n, sample;

	l->pair = NULL;
	l->sleep_ns = 0;
	l->stream = ptsz && !stream ? CU_STREAM_PER_THREAD : stream;
	if (!st.node_ok)
		return;
	now = mono_ns();
	/* A pod without a share of its own only has to be seen by the others. */
	if (!st.limited && now - __atomic_load_n(&st.last_beat_any_ns, __ATOMIC_RELAXED) <
				   BEAT_EVERY_NS)
		return;
	if (!real.cuCtxGetDevice || real.cuCtxGetDevice(&ordinal) != CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&state_lock);
	t = throttle_of(ordinal, now);
	if (!t)
		goto out;
	if (now - t->last_beat_ns >= BEAT_EVERY_NS) {
		gs_node_beat(&st.node, t->slot, now);
		t->last_beat_ns = now;
		__atomic_store_n(&st.last_beat_any_ns, now, __ATOMIC_RELAXED);
	}
	if (!st.limited)
		goto out;
	if (now - t->last_share_ns >= SHARE_EVERY_NS) {
		double allowed;

		n = gs_node_peers(&st.node, t->uuid, peers, GS_REGION_NODE_SLOTS);
		allowed = gs_throttle_allowed(st.cfg.pod_id, st.cfg.compute_pct, peers,
					      n > 0 ? n : 0, now,
					      (uint64_t)st.cfg.active_window_ms * 1000000ull);
		if (allowed != t->allowed) {
			gs_log(GS_SHARE_LOG_INFO, "pod %s: device %d share now %.1f%%",
			       st.cfg.pod_id, (int)ordinal, allowed * 100);
			if (t->allowed >= 1.0)
				gs_bucket_init(&t->bucket, BURST_NS, allowed, now);
			else
				gs_bucket_set_rate(&t->bucket, allowed, now);
			t->allowed = allowed;
		}
		t->last_share_ns = now;
	}
	poll_samples();
	if (t->allowed >= 1.0)
		goto out; /* alone on the device: elastic, use all of it */
	key = gs_cost_key(fn, grid, block, smem);
	e = gs_cost_launch(&st.costs, key, &sample);
	l->sleep_ns = gs_bucket_charge(&t->bucket, gs_cost_estimate(&st.costs, e), now,
				       MIN_SLEEP_NS);
	if (l->sleep_ns) {
		/* Sleeping is not idling: stay visible to the others meanwhile. */
		gs_node_beat(&st.node, t->slot, now + l->sleep_ns);
		t->last_beat_ns = now + l->sleep_ns;
	}
	if (sample) {
		l->pair = take_pair(l->stream);
		if (l->pair)
			l->pair->key = key;
	}
out:
	pthread_mutex_unlock(&state_lock);
	if (l->sleep_ns) {
		struct timespec ts = { (time_t)(l->sleep_ns / 1000000000ull),
				       (long)(l->sleep_ns % 1000000000ull) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	/* Start timing after the sleep, right before the kernel is queued. */
	if (l->pair && real.cuEventRecord(l->pair->start, l->stream) != CUDA_SUCCESS) {
		pthread_mutex_lock(&state_lock);
		l->pair->state = 0;
		pthread_mutex_unlock(&state_lock);
		l->pair = NULL;
	}
}

static CUresult launch_end(struct launch *l, CUresult rc)
{
	if (!l->pair)
		return rc;
	pthread_mutex_lock(&state_lock);
	if (rc == CUDA_SUCCESS && real.cuEventRecord(l->pair->end, l->stream) == CUDA_SUCCESS)
		l->pair->state = 2;
	else
		l->pair->state = 0;
	pthread_mutex_unlock(&state_lock);
	return rc;
}

#define DIM3(x, y, z) ((uint64_t)(x) * (uint64_t)(y) * (uint64_t)(z))

static CUresult launch_kernel(pfn_cuLaunchKernel fn, int ptsz, CUfunction f, unsigned int gx,
			      unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
			      unsigned int bz, unsigned int smem, CUstream s, void **params,
			      void **extra)
{
	struct launch l;
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED;
	launch_begin(&l, (uintptr_t)f, DIM3(gx, gy, gz), DIM3(bx, by, bz), smem, s, ptsz);
	return launch_end(&l, fn(f, gx, gy, gz, bx, by, bz, smem, s, params, extra));
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
				void **extra)
{
	return launch_kernel(real.cuLaunchKernel, 0, f, gridDimX, gridDimY, gridDimZ, blockDimX,
			     blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				     unsigned int gridDimZ, unsigned int blockDimX,
				     unsigned int blockDimY, unsigned int blockDimZ,
				     unsigned int sharedMemBytes, CUstream hStream,
				     void **kernelParams, void **extra)
{
	return launch_kernel(real.cuLaunchKernel_ptsz, 1, f, gridDimX, gridDimY, gridDimZ,
			     blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
			     kernelParams, extra);
}

static CUresult launch_ex(pfn_cuLaunchKernelEx fn, int ptsz, const CUlaunchConfig *c,
			  CUfunction f, void **params, void **extra)
{
	struct launch l;
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!c)
		return fn(c, f, params, extra); /* let the driver report it */
	launch_begin(&l, (uintptr_t)f, DIM3(c->gridDimX, c->gridDimY, c->gridDimZ),
		     DIM3(c->blockDimX, c->blockDimY, c->blockDimZ), c->sharedMemBytes,
		     c->hStream, ptsz);
	return launch_end(&l, fn(c, f, params, extra));
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
				  void **extra)
{
	return launch_ex(real.cuLaunchKernelEx, 0, config, f, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
				       void **kernelParams, void **extra)
{
	return launch_ex(real.cuLaunchKernelEx_ptsz, 1, config, f, kernelParams, extra);
}

static CUresult launch_coop(pfn_cuLaunchCooperativeKernel fn, int ptsz, CUfunction f,
			    unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			    unsigned int by, unsigned int bz, unsigned int smem, CUstream s,
			    void **params)
{
	struct launch l;
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED;
	launch_begin(&l, (uintptr_t)f, DIM3(gx, gy, gz), DIM3(bx, by, bz), smem, s, ptsz);
	return launch_end(&l, fn(f, gx, gy, gz, bx, by, bz, smem, s, params));
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
					   unsigned int gridDimY, unsigned int gridDimZ,
					   unsigned int blockDimX, unsigned int blockDimY,
					   unsigned int blockDimZ, unsigned int sharedMemBytes,
					   CUstream hStream, void **kernelParams)
{
	return launch_coop(real.cuLaunchCooperativeKernel, 0, f, gridDimX, gridDimY, gridDimZ,
			   blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
			   kernelParams);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
						unsigned int gridDimY, unsigned int gridDimZ,
						unsigned int blockDimX, unsigned int blockDimY,
						unsigned int blockDimZ, unsigned int sharedMemBytes,
						CUstream hStream, void **kernelParams)
{
	return launch_coop(real.cuLaunchCooperativeKernel_ptsz, 1, f, gridDimX, gridDimY,
			   gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
			   kernelParams);
}

/* A whole graph is one launch whose cost is timed like a kernel's. */
static CUresult launch_graph(pfn_cuGraphLaunch fn, int ptsz, CUgraphExec g, CUstream s)
{
	struct launch l;
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED;
	launch_begin(&l, (uintptr_t)g, 0, 0, 0, s, ptsz);
	return launch_end(&l, fn(g, s));
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	return launch_graph(real.cuGraphLaunch, 0, hGraphExec, hStream);
}

CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	return launch_graph(real.cuGraphLaunch_ptsz, 1, hGraphExec, hStream);
}

/* --- initialisation and the entry-point route -------------------------------- */

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	CUresult rc = enter();

	if (rc)
		return rc;
	if (!real.cuInit)
		return CUDA_ERROR_NOT_INITIALIZED;
	return real.cuInit(Flags);
}

/* Swaps the driver's answer for our wrapper when it is an entry point we hook. */
static void swap_for_wrapper(void **pfn)
{
	int i = hook_by_addr(*pfn);

	if (i >= 0)
		*pfn = wrapper_addr[i];
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags)
{
	CUresult rc;

	load_driver();
	if (!real.cuGetProcAddress)
		return CUDA_ERROR_NOT_FOUND;
	rc = real.cuGetProcAddress(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn)
		swap_for_wrapper(pfn);
	return rc;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	CUresult rc;

	load_driver();
	if (!real.cuGetProcAddress_v2)
		return CUDA_ERROR_NOT_FOUND;
	rc = real.cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn)
		swap_for_wrapper(pfn);
	return rc;
}
