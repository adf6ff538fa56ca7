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
 * cuGetProcAddress returns our wrapper whenever what was asked names an
 * entry point we hook: the API's name, a CUDA version at least that of our
 * ABI (hooks.def) and the flags (0, what the runtime asks with, or 2 for
 * the per-thread default stream; 1 is legacy). The driver's answer is never
 * compared with other addresses, since a driver may answer each flag with
 * a pointer of its own. A version past that of the cuda.h we were built
 * with may name an ABI we do not know (a future cuMemAlloc_v3, say): then
 * the answer must be the one the driver gives for our own version with the
 * same flags, or it passes through untouched rather than get a wrapper of
 * the wrong ABI.
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
 * Compute: see throttle.h. The wrappers live in one file per route
 * (hook_internal.h lists them, with what they share). Refusals (bad
 * variables, a region of another layout version) print one line on
 * stderr and make every hooked call return CUDA_ERROR_OPERATING_SYSTEM:
 * running without the limits the pod asked for would be worse than not
 * running.
 */
#include "hook_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "hook_pod.h"

/*
 * For what a sanitizer runtime may call while it initialises (its own
 * lookups go through our dlsym): instrumented code would touch shadow
 * memory that does not exist yet.
 */
#define GS_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

struct gs_hook_real gs_real;
struct gs_hook_state gs_st;
pthread_mutex_t gs_state_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* What dlsym and cuGetProcAddress answer with, and what dlsym checks. */
static void *wrapper_addr[HOOK__COUNT];
static void *real_addr[HOOK__COUNT];   /* dlsym of the export */
static int n_in_driver;                /* hooked entry points the driver has */
static char not_in_driver[256];        /* the first of those it lacks, for the log */

/* --- logging --------------------------------------------------------------- */

static int log_level = GS_SHARE_LOG_WARN;

void gs_log(int level, const char *fmt, ...)
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

/* --- the real dlsym and the real driver ------------------------------------ */

typedef void *(*dlsym_fn)(void *, const char *);
/* Not static only for the assembly entry point of dlsym below; never exported. */
GS_HIDDEN dlsym_fn gs_real_dlsym;
#define real_dlsym gs_real_dlsym
static void *libcuda;
int gs_driver_ready;                    /* atomic: load_driver() finished */
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

	if (gs_real.cuGetProcAddress_v2)
		return gs_real.cuGetProcAddress_v2(api, pfn, version, flags, &status);
	if (gs_real.cuGetProcAddress)
		return gs_real.cuGetProcAddress(api, pfn, version, flags);
	return CUDA_ERROR_NOT_FOUND;
}

static void load_driver(void)
{
	size_t i;

	if (__atomic_load_n(&gs_driver_ready, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&init_lock);
	if (gs_driver_ready) {
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
	gs_real.name = (pfn_##name)real_dlsym(libcuda, #name);
#define GS_REAL(ret, name, api, version, flavour, params) \
	gs_real.name = (pfn_##name)real_dlsym(libcuda, #name);
#include "hooks.def"
	}
#define GS_HOOK(ret, name, api, version, flavour, params) \
	wrapper_addr[HOOK_##name] = (void *)name;           \
	real_addr[HOOK_##name] = (void *)gs_real.name;
#include "hooks.def"
	/* Counted for the start-up log: exported, or answered for our triple. */
	for (i = 0; i < HOOK__COUNT; i++) {
		static const cuuint64_t flags[] = {
			[FL_ANY] = CU_GET_PROC_ADDRESS_DEFAULT,
			[FL_LEGACY] = CU_GET_PROC_ADDRESS_LEGACY_STREAM,
			[FL_PTSZ] = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
		};
		size_t len = strlen(not_in_driver);
		void *p = NULL;

		if (real_addr[i] || (real_gpa(hooks[i].api, &p, hooks[i].version,
					      flags[hooks[i].flavour]) == CUDA_SUCCESS && p))
			n_in_driver++;
		else if (len + strlen(hooks[i].name) + 6 < sizeof(not_in_driver))
			snprintf(not_in_driver + len, sizeof(not_in_driver) - len, "%s%s",
				 len ? ", " : "", hooks[i].name);
	}
	in_driver_load = 0;
	__atomic_store_n(&gs_driver_ready, 1, __ATOMIC_RELEASE);
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

/*
 * The hook that cuGetProcAddress(symbol, version, flags) asks for, or -1:
 * of the entries for this API whose flavour fits the flags, the newest ABI
 * not newer than version, as the driver itself chooses.
 */
static int hook_by_request(const char *symbol, int version, cuuint64_t flags)
{
	int ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0, best = -1, i;

	for (i = 0; i < HOOK__COUNT; i++) {
		const struct hook_entry *h = &hooks[i];

		if (h->version > version || (h->flavour == FL_PTSZ && !ptsz) ||
		    (h->flavour == FL_LEGACY && ptsz) || strcmp(h->api, symbol))
			continue;
		if (best < 0 || h->version > hooks[best].version)
			best = i;
	}
	return best;
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
	if (sym && name[0] == 'n' && name[1] == 'v' && name[2] == 'm' && name[3] == 'l')
		return gs_nvml_dlsym(name, sym);
	if (!sym || name[0] != 'c' || name[1] != 'u' || in_driver_load)
		return sym;
	load_driver();
	i = hook_by_name(name);
	if (i >= 0 && sym == real_addr[i])
		return wrapper_addr[i];
	return sym;
}

/* --- the pod's state --------------------------------------------------------- */

static void reset_state(void)
{
	int i;

	for (i = 0; i < MAX_ORDINALS; i++)
		gs_st.thr[i].slot = -1;
	gs_ptrmap_init(&gs_st.ptrs);
	gs_ptrmap_init(&gs_st.handles);
	gs_st.node.fd = -1;
}

static void share_init(void)
{
	char err[512];
	int rc, i;

	if (__atomic_load_n(&gs_st.ready, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&init_lock);
	if (gs_st.ready)
		goto out;
	reset_state();
	if (gs_share_config_read(&gs_st.cfg, gs_share_config_getenv, err, sizeof(err))) {
		gs_log(GS_SHARE_LOG_QUIET, "%s: refusing to run without the pod's limits", err);
		gs_st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	log_level = gs_st.cfg.log_level;
	/* The limits this process did not give come from its pod. */
	rc = gs_hook_pod_open(&gs_st.cfg, err, sizeof(err));
	if (rc) {
		gs_log(GS_SHARE_LOG_QUIET, "%s", err);
		gs_st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	gs_st.limited = gs_share_config_compute_limited(&gs_st.cfg);
	rc = gs_region_open(&gs_st.node, gs_st.cfg.shm_dir, GS_REGION_NODE, gs_st.cfg.node_id, err,
			    sizeof(err));
	if (rc) {
		if (gs_st.limited || rc == GS_ESCHEMA) {
			gs_log(GS_SHARE_LOG_QUIET, "%s", err);
			gs_st.refusal = CUDA_ERROR_OPERATING_SYSTEM;
			goto out;
		}
		/* No compute limit of our own: others merely will not see us. */
		gs_log(GS_SHARE_LOG_WARN, "%s (running without a node region)", err);
	} else {
		gs_st.node_ok = 1;
	}
	gs_log(GS_SHARE_LOG_INFO, "wrapping %d of %d CUDA driver entry points%s%s", n_in_driver,
	       HOOK__COUNT, not_in_driver[0] ? "; not in this driver: " : "", not_in_driver);
	gs_log(GS_SHARE_LOG_INFO, "pod %s: memory limit %llu MiB (%s), compute share %d%%",
	       gs_st.cfg.pod_id, (unsigned long long)(gs_st.cfg.mem_limit_bytes >> 20),
	       gs_st.cfg.mem_source, gs_st.cfg.compute_pct);
	for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
		if (gs_st.cfg.dev_mem_limit_bytes[i] || gs_st.cfg.dev_compute_pct[i])
			gs_log(GS_SHARE_LOG_INFO, "pod %s: device %d: memory limit %llu MiB, "
			       "compute share %d%%", gs_st.cfg.pod_id, i,
			       (unsigned long long)(gs_share_config_mem_limit(&gs_st.cfg, i) >> 20),
			       gs_share_config_compute_pct(&gs_st.cfg, i));
out:
	__atomic_store_n(&gs_st.ready, 1, __ATOMIC_RELEASE);
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
	gs_hook_pod_atfork_prepare();
	pthread_mutex_lock(&gs_state_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&gs_state_lock);
	gs_hook_pod_atfork_parent();
	pthread_mutex_unlock(&init_lock);
}

static void atfork_child(void)
{
	gs_hook_pod_atfork_child();
	if (gs_st.node.fd >= 0 || gs_st.node.map)
		gs_region_close(&gs_st.node);
	gs_ptrmap_release(&gs_st.ptrs);
	gs_ptrmap_release(&gs_st.handles);
	gs_hook_mem_forget();
	memset(&gs_st, 0, sizeof(gs_st));
	reset_state();
	pthread_mutex_init(&gs_state_lock, NULL);
	pthread_mutex_init(&init_lock, NULL);
}

__attribute__((constructor)) static void gs_hook_ctor(void)
{
	reset_state();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Everything a hooked call needs before it runs (hook_internal.h). */
CUresult gs_hook_limits(void)
{
	share_init();
	return gs_st.refusal;
}

CUresult gs_hook_enter_slow(void)
{
	load_driver();
	share_init();
	return gs_st.refusal;
}

/* --- initialisation and the entry-point route -------------------------------- */

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc : CALL_REAL(cuInit, (Flags));
}

/* Swaps the driver's answer for our wrapper when what was asked is an entry point we hook. */
static void swap_for_wrapper(const char *symbol, int version, cuuint64_t flags, void **pfn)
{
	void *ours = NULL;
	int i;

	if (!symbol || !*pfn)
		return;
	i = hook_by_request(symbol, version, flags);
	if (i < 0)
		return;
	/*
	 * Up to CUDA_VERSION, hooks.def has the newest ABI of every API it
	 * names (checked against cudaTypedefs.h). Past it, the driver may have
	 * a newer one: wrap only what it answers for our own version too.
	 */
	if (version > CUDA_VERSION &&
	    (real_gpa(symbol, &ours, hooks[i].version, flags) != CUDA_SUCCESS || ours != *pfn)) {
		gs_log(GS_SHARE_LOG_WARN, "%s for CUDA %d is an ABI newer than libgpushare knows "
					  "(built for CUDA %d): not wrapped",
		       symbol, version, CUDA_VERSION);
		return;
	}
	*pfn = wrapper_addr[i];
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags)
{
	CUresult rc;

	load_driver();
	if (!gs_real.cuGetProcAddress)
		return CUDA_ERROR_NOT_FOUND;
	rc = gs_real.cuGetProcAddress(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn)
		swap_for_wrapper(symbol, cudaVersion, flags, pfn);
	return rc;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	CUresult rc;

	load_driver();
	if (!gs_real.cuGetProcAddress_v2)
		return CUDA_ERROR_NOT_FOUND;
	rc = gs_real.cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn)
		swap_for_wrapper(symbol, cudaVersion, flags, pfn);
	return rc;
}
