/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_launch.c - libgpushare's launch wrappers: each launch keeps this
 * process visible to the other pods of the node (a heartbeat in the node
 * region) and, for a pod with a compute share that competes with others,
 * is charged to a token bucket of GPU time and maybe delayed (throttle.h).
 */
#include "hook_internal.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define BEAT_EVERY_NS 1000000ull       /* heartbeat at most once a millisecond */
#define SHARE_EVERY_NS 5000000ull      /* recompute the allowed share every 5 ms */
#define BURST_NS 5000000.0             /* the bucket holds 5 ms of GPU time */
#define MIN_SLEEP_NS 200000ull         /* shorter sleeps overshoot: let the debt grow */

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
	t = &gs_st.thr[ordinal];
	if (t->slot >= 0 && gs_node_slot_current(&gs_st.node, t->slot, t->gen))
		return t;
	if (t->slot < 0) {
		if (CALL_REAL(cuDeviceGetUuid, (&uuid, ordinal)) != CUDA_SUCCESS)
			return NULL;
		memcpy(t->uuid, uuid.bytes, 16);
		t->pct = gs_share_config_compute_pct(&gs_st.cfg, ordinal);
		t->allowed = 1.0;
		gs_bucket_init(&t->bucket, BURST_NS, 1.0, now);
	}
	slot = gs_node_claim(&gs_st.node, gs_st.cfg.pod_id, t->uuid, (int32_t)getpid(),
			     t->pct, now, &t->gen);
	if (slot < 0) {
		gs_log(GS_SHARE_LOG_WARN, "%s: no free slot; launches are not seen by other pods",
		       gs_st.node.path);
		return NULL;
	}
	t->slot = slot;
	t->last_beat_ns = now;
	return t;
}

/*
 * The hook's own driver calls (event queries and records, event creation)
 * must be legal whatever the program captures, on whichever thread: in
 * global mode, the CUDA default, a cuEventQuery from any thread during a
 * capture fails and invalidates that capture. Relaxed is the mode in
 * which no call is forbidden; relax() switches the calling thread to it
 * and returns the mode to put back with unrelax(). Drivers before CUDA
 * 10.1 have no capture modes (and no global capture): nothing to do.
 */
static CUstreamCaptureMode relax(void)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;

	if (CALL_REAL(cuThreadExchangeStreamCaptureMode, (&mode)) != CUDA_SUCCESS)
		return CU_STREAM_CAPTURE_MODE_RELAXED;
	return mode;
}

static void unrelax(CUstreamCaptureMode mode)
{
	if (mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		(void)CALL_REAL(cuThreadExchangeStreamCaptureMode, (&mode));
}

/* Records an event for a timing, legal during any capture. */
static CUresult record_relaxed(CUevent ev, CUstream stream)
{
	CUstreamCaptureMode mode = relax();
	CUresult rc = CALL_REAL(cuEventRecord, (ev, stream));

	unrelax(mode);
	return rc;
}

/*
 * True when work launched into stream becomes part of a graph being
 * captured (or the driver cannot tell): it does not run now, so it is
 * neither charged nor timed. cuStreamIsCapturing is legal during capture.
 */
static int capturing(CUstream stream)
{
	CUstreamCaptureStatus cap;

	if (!gs_real.cuStreamIsCapturing)
		return 0; /* a driver before CUDA 10: no capture */
	return CALL_REAL(cuStreamIsCapturing, (stream, &cap)) != CUDA_SUCCESS ||
	       cap != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Collects the timing of one finished sample, if any, without waiting. */
static void poll_samples(void)
{
	CUstreamCaptureMode mode;
	struct sample_pair *p;
	CUresult rc;
	float ms;
	int i;

	for (i = 0; i < SAMPLE_PAIRS; i++) {
		p = &gs_st.pairs[(gs_st.poll_next + i) % SAMPLE_PAIRS];
		if (p->state == 2)
			break;
	}
	if (i == SAMPLE_PAIRS)
		return;
	gs_st.poll_next = (int)((p - gs_st.pairs) + 1) % SAMPLE_PAIRS;
	mode = relax();
	rc = CALL_REAL(cuEventQuery, (p->end));
	if (rc == CUDA_SUCCESS &&
	    CALL_REAL(cuEventElapsedTime, (&ms, p->start, p->end)) == CUDA_SUCCESS)
		gs_cost_record(&gs_st.costs, p->key, (double)ms * 1e6);
	unrelax(mode);
	if (rc != CUDA_ERROR_NOT_READY)
		p->state = 0;
}

/* A free pair of events in the current context, or NULL (then: no timing). */
static struct sample_pair *take_pair(void)
{
	CUstreamCaptureMode mode;
	CUcontext ctx = NULL;
	CUresult rc;
	int i;

	/* Timing needs every event call: a driver without one goes untimed. */
	if (!gs_real.cuEventCreate || !gs_real.cuEventRecord || !gs_real.cuEventQuery ||
	    !gs_real.cuEventElapsedTime)
		return NULL;
	if (CALL_REAL(cuCtxGetCurrent, (&ctx)) != CUDA_SUCCESS || !ctx)
		return NULL;
	if (!gs_st.sample_ctx)
		gs_st.sample_ctx = ctx;
	if (ctx != gs_st.sample_ctx)
		return NULL; /* the pool belongs to the first context; others go untimed */
	for (i = 0; i < SAMPLE_PAIRS; i++) {
		struct sample_pair *p = &gs_st.pairs[i];

		if (p->state)
			continue;
		if (!p->start) {
			mode = relax();
			rc = CALL_REAL(cuEventCreate, (&p->start, CU_EVENT_DEFAULT));
			if (rc == CUDA_SUCCESS)
				rc = CALL_REAL(cuEventCreate, (&p->end, CU_EVENT_DEFAULT));
			unrelax(mode);
			if (rc) {
				p->start = p->end = NULL; /* a leaked event at worst */
				return NULL;
			}
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
	l->stream = gs_stream_of(stream, ptsz);
	if (!gs_st.node_ok)
		return;
	now = mono_ns();
	/* A pod without a share of its own only has to be seen by the others. */
	if (!gs_st.limited && now - __atomic_load_n(&gs_st.last_beat_any_ns, __ATOMIC_RELAXED) <
				   BEAT_EVERY_NS)
		return;
	if (CALL_REAL(cuCtxGetDevice, (&ordinal)) != CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&gs_state_lock);
	t = throttle_of(ordinal, now);
	if (!t)
		goto out;
	if (now - t->last_beat_ns >= BEAT_EVERY_NS) {
		gs_node_beat(&gs_st.node, t->slot, now);
		t->last_beat_ns = now;
		__atomic_store_n(&gs_st.last_beat_any_ns, now, __ATOMIC_RELAXED);
	}
	if (t->pct >= 100)
		goto out;
	if (now - t->last_share_ns >= SHARE_EVERY_NS) {
		double allowed;

		n = gs_node_peers(&gs_st.node, t->uuid, peers, GS_REGION_NODE_SLOTS);
		allowed = gs_throttle_allowed(gs_st.cfg.pod_id, t->pct, peers,
					      n > 0 ? n : 0, now,
					      (uint64_t)gs_st.cfg.active_window_ms * 1000000ull);
		if (allowed != t->allowed) {
			gs_log(GS_SHARE_LOG_INFO, "pod %s: device %d share now %.1f%%",
			       gs_st.cfg.pod_id, (int)ordinal, allowed * 100);
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
	/* Captured work runs when its graph is launched, and is charged then. */
	if (capturing(l->stream))
		goto out;
	key = gs_cost_key(fn, grid, block, smem);
	e = gs_cost_launch(&gs_st.costs, key, &sample);
	l->sleep_ns = gs_bucket_charge(&t->bucket, gs_cost_estimate(&gs_st.costs, e), now,
				       MIN_SLEEP_NS);
	if (l->sleep_ns) {
		/* Sleeping is not idling: stay visible to the others meanwhile. */
		gs_node_beat(&gs_st.node, t->slot, now + l->sleep_ns);
		t->last_beat_ns = now + l->sleep_ns;
	}
	if (sample) {
		l->pair = take_pair();
		if (l->pair)
			l->pair->key = key;
	}
out:
	pthread_mutex_unlock(&gs_state_lock);
	if (l->sleep_ns) {
		struct timespec ts = { (time_t)(l->sleep_ns / 1000000000ull),
				       (long)(l->sleep_ns % 1000000000ull) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	/* Start timing after the sleep, right before the kernel is queued. */
	if (l->pair && record_relaxed(l->pair->start, l->stream) != CUDA_SUCCESS) {
		pthread_mutex_lock(&gs_state_lock);
		l->pair->state = 0;
		pthread_mutex_unlock(&gs_state_lock);
		l->pair = NULL;
	}
}

static CUresult launch_end(struct launch *l, CUresult rc)
{
	if (!l->pair)
		return rc;
	pthread_mutex_lock(&gs_state_lock);
	if (rc == CUDA_SUCCESS && record_relaxed(l->pair->end, l->stream) == CUDA_SUCCESS)
		l->pair->state = 2;
	else
		l->pair->state = 0;
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

#define DIM3(x, y, z) ((uint64_t)(x) * (uint64_t)(y) * (uint64_t)(z))

/* The library ready, then launch_begin: CUDA_SUCCESS, or what the launch must return. */
static CUresult launch_enter(struct launch *l, uintptr_t fn, uint64_t grid, uint64_t block,
			     uint64_t smem, CUstream stream, int ptsz)
{
	CUresult rc = gs_hook_enter();

	if (rc == CUDA_SUCCESS)
		launch_begin(l, fn, grid, block, smem, stream, ptsz);
	return rc;
}

static CUresult launch_kernel(pfn_cuLaunchKernel real, int ptsz, CUfunction f, unsigned int gx,
			      unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
			      unsigned int bz, unsigned int smem, CUstream s, void **params,
			      void **extra)
{
	struct launch l;
	CUresult rc = launch_enter(&l, (uintptr_t)f, DIM3(gx, gy, gz), DIM3(bx, by, bz), smem, s,
				   ptsz);

	return rc ? rc
		  : launch_end(&l, CALL_PTR(real, (f, gx, gy, gz, bx, by, bz, smem, s, params,
						   extra)));
}

GS_TWINS(cuLaunchKernel,
	 (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
	  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
	  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra),
	 launch_kernel,
	 (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
	  kernelParams, extra))

static CUresult launch_ex(pfn_cuLaunchKernelEx real, int ptsz, const CUlaunchConfig *c,
			  CUfunction f, void **params, void **extra)
{
	struct launch l;
	CUresult rc;

	if (!c) { /* the driver's own error */
		rc = gs_hook_enter();
		return rc ? rc : CALL_PTR(real, (c, f, params, extra));
	}
	rc = launch_enter(&l, (uintptr_t)f, DIM3(c->gridDimX, c->gridDimY, c->gridDimZ),
			  DIM3(c->blockDimX, c->blockDimY, c->blockDimZ), c->sharedMemBytes,
			  c->hStream, ptsz);
	return rc ? rc : launch_end(&l, CALL_PTR(real, (c, f, params, extra)));
}

GS_TWINS(cuLaunchKernelEx,
	 (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra),
	 launch_ex, (config, f, kernelParams, extra))

static CUresult launch_coop(pfn_cuLaunchCooperativeKernel real, int ptsz, CUfunction f,
			    unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			    unsigned int by, unsigned int bz, unsigned int smem, CUstream s,
			    void **params)
{
	struct launch l;
	CUresult rc = launch_enter(&l, (uintptr_t)f, DIM3(gx, gy, gz), DIM3(bx, by, bz), smem, s,
				   ptsz);

	return rc ? rc
		  : launch_end(&l, CALL_PTR(real, (f, gx, gy, gz, bx, by, bz, smem, s, params)));
}

GS_TWINS(cuLaunchCooperativeKernel,
	 (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
	  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
	  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams),
	 launch_coop,
	 (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
	  kernelParams))

/* A whole graph is one launch whose cost is timed like a kernel's. */
static CUresult launch_graph(pfn_cuGraphLaunch real, int ptsz, CUgraphExec g, CUstream s)
{
	struct launch l;
	CUresult rc = launch_enter(&l, (uintptr_t)g, 0, 0, 0, s, ptsz);

	return rc ? rc : launch_end(&l, CALL_PTR(real, (g, s)));
}

GS_TWINS(cuGraphLaunch, (CUgraphExec hGraphExec, CUstream hStream), launch_graph,
	 (hGraphExec, hStream))
