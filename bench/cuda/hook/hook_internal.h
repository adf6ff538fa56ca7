/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_internal.h - what the files of libgpushare share: the table of real
 * driver functions, the pod's state and the helpers every wrapper uses.
 *
 *   hook.c         the entry-point route (dlsym, cuGetProcAddress), loading
 *                  the driver, the pod's state, logging, fork
 *   hook_mem.c     plain device memory and what the pod sees of the device;
 *                  the helpers every memory route shares (hook_mem.h)
 *   hook_pool.c    stream-ordered allocations and their pools
 *   hook_vmm.c     virtual memory management (cuMemCreate and mappings)
 *   hook_array.c   arrays and mipmapped arrays
 *   hook_graph.c   graph memory nodes, however a graph gets them
 *   hook_ctx.c     contexts
 *   hook_launch.c  work submission: heartbeats, the compute throttle
 *   hook_pod.c     the pod's memory in the pod region, failing closed
 *   hook_nvml.c    what NVML reports of a device's memory
 *
 * Not a public header: nothing here leaves the library (hidden visibility).
 * Include it first: it sets the feature macros cuda.h and libc need.
 */
#ifndef GS_HOOK_INTERNAL_H
#define GS_HOOK_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym, RTLD_NEXT */
#endif
#define __CUDA_API_VERSION_INTERNAL 1 /* the real export names, no _v2 renames */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "ptrmap.h"
#include "region.h"
#include "throttle.h"

#define GS_EXPORT __attribute__((visibility("default")))
#define GS_HIDDEN __attribute__((visibility("hidden")))

/* --- generated from hooks.def -------------------------------------------- */

#define GS_HOOK(ret, name, api, version, flavour, params) GS_EXPORT ret CUDAAPI name params;
#include "hooks.def"

#define GS_HOOK(ret, name, api, version, flavour, params) typedef ret(CUDAAPI *pfn_##name) params;
#define GS_REAL(ret, name, api, version, flavour, params) typedef ret(CUDAAPI *pfn_##name) params;
#include "hooks.def"

/* The real driver, filled once by the first hooked call (hook.c). */
struct gs_hook_real {
#define GS_HOOK(ret, name, api, version, flavour, params) pfn_##name name;
#define GS_REAL(ret, name, api, version, flavour, params) pfn_##name name;
#include "hooks.def"
};

GS_HIDDEN extern struct gs_hook_real gs_real;

/*
 * The one way to call the driver: the real function p (a member of gs_real,
 * or a pointer taken from it) with args, or CUDA_ERROR_NOT_INITIALIZED when
 * this driver lacks it. CALL_REAL(fn, args) is CALL_PTR(gs_real.fn, args).
 */
#define CALL_PTR(p, args) ((p) ? (p) args : CUDA_ERROR_NOT_INITIALIZED)
#define CALL_REAL(fn, args) CALL_PTR(gs_real.fn, args)

#define GS_UNPAREN(...) __VA_ARGS__

/*
 * The two exports of an API that has a per-thread default stream flavour
 * (name and name_ptsz in hooks.def), made from one body:
 * impl(real, ptsz, args...) gets the driver's function of the flavour
 * called and ptsz = 1 for the _ptsz export, in which a NULL stream means
 * CU_STREAM_PER_THREAD.
 */
#define GS_TWINS(name, params, impl, args)                                    \
	CUresult CUDAAPI name params                                          \
	{                                                                     \
		return impl(gs_real.name, 0, GS_UNPAREN args);                \
	}                                                                     \
	CUresult CUDAAPI name##_ptsz params                                   \
	{                                                                     \
		return impl(gs_real.name##_ptsz, 1, GS_UNPAREN args);         \
	}

/* The stream a call of the given flavour means: NULL is the per-thread one for _ptsz. */
static inline CUstream gs_stream_of(CUstream s, int ptsz)
{
	return ptsz && !s ? CU_STREAM_PER_THREAD : s;
}

/* --- the pod's state ----------------------------------------------------- */

#define MAX_ORDINALS 64
#define SAMPLE_PAIRS 8

/* The throttle of one device (hook_launch.c). */
struct dev_throttle {
	int slot;                /* node region slot, -1 before the claim */
	uint32_t gen;
	uint64_t last_beat_ns;
	uint64_t last_share_ns;
	double allowed;
	struct gs_bucket bucket;
	uint8_t uuid[16];
	int pct;                 /* this device's compute share, 100 = none */
};

/* Two events that time one launch (hook_launch.c). */
struct sample_pair {
	CUevent start, end;
	uint64_t key;
	int state;               /* 0 free, 1 being recorded, 2 pending */
};

struct gs_hook_state {
	int ready;               /* atomic: share_init() finished */
	CUresult refusal;        /* CUDA_SUCCESS, or what every hooked call returns */
	struct gs_share_config cfg;
	int limited;             /* some device has a compute share below 100 */
	int node_ok;
	struct gs_region node;   /* the pod region is hook_pod.c's */
	struct gs_ptrmap ptrs;   /* device pointers; dev = CUDA ordinal */
	struct gs_ptrmap handles; /* cuMemCreate handles; dev = CUDA ordinal */
	struct dev_throttle thr[MAX_ORDINALS];
	CUcontext sample_ctx;
	struct sample_pair pairs[SAMPLE_PAIRS];
	int poll_next;
	uint64_t last_beat_any_ns;
	struct gs_cost_table costs;
};

/* Everything below gs_state_lock guards, but for ready/refusal/cfg (set once). */
GS_HIDDEN extern struct gs_hook_state gs_st;
GS_HIDDEN extern pthread_mutex_t gs_state_lock;

/* The first calls of gs_hook_enter(): loads the driver, reads the limits. */
GS_HIDDEN CUresult gs_hook_enter_slow(void);
GS_HIDDEN extern int gs_driver_ready;   /* atomic: the driver is loaded */

/*
 * Everything a hooked call needs before it runs: the driver loaded and the
 * pod's limits read. Returns CUDA_SUCCESS, or what every hooked call
 * returns when the library refused to run (the reason was logged).
 * Inline, since every launch passes here: two loads once started.
 */
static inline CUresult gs_hook_enter(void)
{
	if (__atomic_load_n(&gs_driver_ready, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&gs_st.ready, __ATOMIC_ACQUIRE))
		return gs_st.refusal;
	return gs_hook_enter_slow();
}

/*
 * The pod's limits read and its regions opened, without loading the CUDA
 * driver (for NVML's wrappers). Returns what gs_hook_enter() would.
 */
GS_HIDDEN CUresult gs_hook_limits(void);

/* The real dlsym (hook.c). */
GS_HIDDEN extern void *(*gs_real_dlsym)(void *handle, const char *name);

/*
 * For our dlsym: what a lookup of an "nvml..." name that found sym should
 * return: our wrapper for the functions hook_nvml.c wraps (remembering sym
 * as the real one), sym otherwise.
 */
GS_HIDDEN void *gs_nvml_dlsym(const char *name, void *sym);

/* One line "gpushare: ..." on stderr if level is at most GPUSHARE_LOG. */
GS_HIDDEN __attribute__((format(printf, 2, 3))) void gs_log(int level, const char *fmt, ...);

/* Frees the memory routes' maps and accounts (a forked child's, its parent's) and starts empty. */
GS_HIDDEN void gs_hook_mem_forget(void);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
