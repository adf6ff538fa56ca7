/* SPDX-License-Identifier: Apache-2.0 */
/*
 * throttle.h - the compute share of libgpushare: an elastic limit on
 * kernel launches, after GaiaGPU (Gu et al., "GaiaGPU: Sharing GPUs in
 * Container Clouds", ISPA 2018).
 *
 * GaiaGPU gives each container a share of the GPU and lets it exceed that
 * share while the GPU has room (its "elastic" allocation), throttling it
 * back only under contention. We do the same with three pieces, all pure
 * functions of their inputs (time included) so that the tests drive them
 * with a fake clock:
 *
 *   gs_throttle_allowed()  the fraction of the GPU this process may use
 *                          now: 1 when no other pod launched on the device
 *                          within the active window, otherwise its pod's
 *                          share normalised over the active pods, split
 *                          between the pod's active processes.
 *   struct gs_bucket       a token bucket of GPU time: each launch costs
 *                          its estimated kernel time, tokens refill at the
 *                          allowed fraction of wall time.
 *   struct gs_cost_table   per-kernel GPU time, learnt from sampled launches
 *                          timed with CUDA events (the hook does the timing;
 *                          this keeps the numbers).
 *
 * GaiaGPU measures utilisation through NVML; we time kernels ourselves,
 * which needs no NVML, works inside PID namespaces (NVML reports host
 * PIDs) and charges each launch what it costs.
 */
#ifndef GS_SHARE_THROTTLE_H
#define GS_SHARE_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#include "region.h"

/*
 * The fraction (0, 1] of the device's time this process may use. peers
 * are the device's slots (this process's own included); a peer is active
 * when it launched within window_ns of now_ns. The calling process counts
 * as one active process of pod_id even if its slot is not among peers.
 */
double gs_throttle_allowed(const char *pod_id, int share_pct, const struct gs_peer *peers,
			   int n_peers, uint64_t now_ns, uint64_t window_ns);

struct gs_bucket {
	double tokens_ns;      /* GPU time that may be launched now; negative = debt */
	double burst_ns;       /* most tokens kept */
	double rate;           /* GPU ns earned per wall ns, (0, 1] */
	uint64_t last_ns;      /* wall time of the last refill */
};

/* Starts *b full (burst_ns tokens) at now_ns, earning rate (at least 1e-6) GPU ns per wall ns. */
void gs_bucket_init(struct gs_bucket *b, double burst_ns, double rate, uint64_t now_ns);

/* Changes the refill rate from now on (tokens earned so far are kept). */
void gs_bucket_set_rate(struct gs_bucket *b, double rate, uint64_t now_ns);

/*
 * Charges a launch of cost_ns GPU time at now_ns. Returns how long the
 * caller must sleep before launching so that the long-run rate holds: 0
 * while the debt is below min_sleep_ns (sleeping shorter than the timer
 * slack would be inaccurate anyway; the debt is repaid by the next sleep).
 */
uint64_t gs_bucket_charge(struct gs_bucket *b, double cost_ns, uint64_t now_ns,
			  uint64_t min_sleep_ns);

#define GS_COST_SLOTS 256        /* kernels remembered, direct-mapped */
#define GS_COST_SAMPLES 8        /* timings kept per kernel */
#define GS_COST_FIRST_SAMPLES 3  /* launches of a new kernel that are all timed */
#define GS_COST_SAMPLE_EVERY 64  /* afterwards, one launch in this many */

struct gs_cost_entry {
	uint64_t key;            /* 0 = empty */
	uint64_t launches;
	uint32_t n_samples;
	uint32_t next;           /* ring index into sample_ns */
	double sample_ns[GS_COST_SAMPLES];
	double est_ns;           /* min over sample_ns; 0 before the first */
};

struct gs_cost_table {
	struct gs_cost_entry e[GS_COST_SLOTS];
	double mean_ns;          /* running mean of the last ~64 timings: the guess for an unseen kernel */
	uint64_t n_timed;
};

/*
 * The key of a launch: what makes two launches cost the same (function or
 * graph, grid and block sizes, dynamic shared memory). Never 0.
 */
uint64_t gs_cost_key(uintptr_t fn, uint64_t grid, uint64_t block, uint64_t smem_bytes);

/*
 * Counts a launch of key and returns its entry (evicting another kernel
 * that hashed to the same slot). *sample_out says whether to time it.
 */
struct gs_cost_entry *gs_cost_launch(struct gs_cost_table *t, uint64_t key, int *sample_out);

/* The GPU time a launch of e is charged: its estimate, else the mean. */
double gs_cost_estimate(const struct gs_cost_table *t, const struct gs_cost_entry *e);

/*
 * Adds a timing of key. The estimate is the minimum of the kept timings:
 * under time-slicing a timing can only be inflated (another context ran in
 * between), never shortened. Ignored when key was evicted meanwhile.
 */
void gs_cost_record(struct gs_cost_table *t, uint64_t key, double ns);

#endif
