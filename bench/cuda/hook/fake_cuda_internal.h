/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda_internal.h - what the three files of the fake CUDA driver
 * share: fake_cuda.c (the state and controls, devices, contexts, the
 * simulated GPU timeline with launches and events, cuGetProcAddress),
 * fake_cuda_mem.c (allocations, stream-ordered pools, virtual memory
 * management, arrays) and fake_cuda_graph.c (stream capture and graphs).
 * Test-only, like them. Everything declared here is hidden: the fake
 * libcuda.so.1 exports only the driver's entry points and fake_cuda.h.
 */
#ifndef GS_FAKE_CUDA_INTERNAL_H
#define GS_FAKE_CUDA_INTERNAL_H

/* cuda.h in its internal mode: the driver's own names (cuMemAlloc_v2, ...). */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define FAKECUDA_HIDDEN __attribute__((visibility("hidden")))
#define MAX_DEVS 8

/* The fake driver's state, set up by cuInit from the FAKECUDA_* variables. */
struct fakecuda_driver {
	int initialised;
	int n_devs;
	uint64_t mem_bytes;
	uint64_t pitch;
	uint64_t block_ns;       /* GPU time of one block of gridDimX */
	int uuid_base;
	uint64_t ctx_bytes;      /* device memory of one context */
	uint64_t used[MAX_DEVS];
	uint64_t busy_until_ns[MAX_DEVS];
	uint64_t next_ptr;
	uint64_t kernel_ns;
	uint64_t launches;
	char fail_name[64];
	CUresult fail_rc;
};

/* The one state (fake_cuda.c), its lock, and the calling thread's current device. */
extern FAKECUDA_HIDDEN struct fakecuda_driver fakecuda;
extern FAKECUDA_HIDDEN pthread_mutex_t fakecuda_lock;
extern FAKECUDA_HIDDEN __thread int fakecuda_cur_dev;

/* Whether dev is one of the fake's devices. */
#define FAKECUDA_DEV_OK(dev) ((dev) >= 0 && (dev) < fakecuda.n_devs)

/* The variable name as an unsigned decimal number; dflt when it is unset or empty. */
FAKECUDA_HIDDEN uint64_t fakecuda_env_u64(const char *name, uint64_t dflt);

/* 1 and the armed rc in *rc when fakecuda_fail_next() armed a failure of name (now disarmed). */
FAKECUDA_HIDDEN int fakecuda_injected(const char *name, CUresult *rc);

/* How every entry point starts: an injected failure, else NOT_INITIALIZED before cuInit. */
#define ENTER(name)                                          \
	do {                                                 \
		CUresult inj_;                               \
		if (fakecuda_injected(name, &inj_))              \
			return inj_;                         \
		if (!fakecuda.initialised)                         \
			return CUDA_ERROR_NOT_INITIALIZED;   \
	} while (0)

/*
 * fake_cuda_graph.c: CUDA_SUCCESS when the calling thread may make a
 * "potentially unsafe" call now; else CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
 * and the captures it would break are invalidated (the driver's rules).
 */
FAKECUDA_HIDDEN CUresult fakecuda_unsafe_call(void);

/* How every "potentially unsafe" entry point continues, after ENTER. */
#define UNSAFE()                                       \
	do {                                           \
		CUresult cap_ = fakecuda_unsafe_call();    \
		if (cap_)                              \
			return cap_;                   \
	} while (0)

/* What goes into a stream: work (a launch, an event record, a free) or an allocation. */
enum { FAKECUDA_NODE_WORK, FAKECUDA_NODE_ALLOC };

/*
 * fake_cuda_graph.c: kind into stream s: CUDA_SUCCESS and *captured = 1
 * when it became a node of a capture, an error when that capture is
 * invalidated, CUDA_SUCCESS and *captured = 0 when it runs.
 */
FAKECUDA_HIDDEN CUresult fakecuda_into_stream(CUstream s, int kind, int *captured);

/* The stream s means in an entry point of flavour ptsz: NULL is the per-thread one in _ptsz. */
#define FAKECUDA_STREAM(s, ptsz) ((ptsz) && !(s) ? CU_STREAM_PER_THREAD : (s))

/* fake_cuda.c: the device of stream s (created by cuStreamCreate), else the current one. */
FAKECUDA_HIDDEN int fakecuda_stream_dev(CUstream s);

/*
 * The two exports of an entry point with a per-thread default stream
 * flavour, from one body: ptsz_ is 1 in the _ptsz one.
 */
#define FAKECUDA_TWINS(name, params, body)                   \
	EXPORT CUresult CUDAAPI name params                  \
	{                                                    \
		const int ptsz_ = 0;                         \
		ENTER(#name);                                \
		(void)ptsz_;                                 \
		return body;                                 \
	}                                                    \
	EXPORT CUresult CUDAAPI name##_ptsz params           \
	{                                                    \
		const int ptsz_ = 1;                         \
		ENTER(#name "_ptsz");                        \
		(void)ptsz_;                                 \
		return body;                                 \
	}

/*
 * fake_cuda_mem.c, with fakecuda_lock held: the next distinct, 256-byte
 * aligned, never reused address.
 */
FAKECUDA_HIDDEN uint64_t fakecuda_new_address(uint64_t bytes);

#endif
