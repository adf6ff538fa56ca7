/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arrived_stats.h - a run's statistics per integer percent of arrived workload,
 * the numbers behind the FGD paper's figures (Weng et al., ATC 2023,
 * section 5): per bucket, the mean allocated and unallocated GPU share
 * and the mean fragmentation over the idle share and over capacity, each
 * the mean over the samples whose arrived workload rounds to that percent
 * (gs_sample_arrived_pct), and the statistic "at arrived 100 %".
 *
 * The store keeps these instead of one sample per arrival. So that every
 * figure equals the one SQL gives over those samples (the arrived_buckets
 * view of schema 1.0 to 1.3, whose numbers the migration to 1.4 keeps),
 * the sums are formed exactly as SQLite 3.40 forms them: per-sample values
 * in the same floating-point operations as the sample_metrics view, added one
 * by one in the order of the samples_arrived index, that is by arrived
 * percent, then allocated share, then fragmentation (not tracked first),
 * then sample order. A mean is a sum divided by the count.
 *
 * Ownership: struct gs_arrived_stats is caller-owned (_release frees it).
 */
#ifndef GS_ARRIVED_STATS_H
#define GS_ARRIVED_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/replay.h"

/* One bucket. The frag sums are NAN when fragmentation was not tracked. */
struct gs_arrived_bucket {
	int64_t pct;
	int64_t n;                  /* samples in it */
	double gpu_alloc_pct_sum;   /* of 100 a / cap, a the allocated milli-GPU */
	double unalloc_gpu_pct_sum; /* of 100 - 100 a / cap */
	double frag_ratio_pct_sum;  /* of 100 f / (cap - a), 0 when nothing is idle */
	double frag_amount_pct_sum; /* of 100 f / cap */
};

struct gs_arrived_stats {
	struct gs_arrived_bucket *buckets;  /* owned; ascending pct, non-empty ones only */
	size_t n_buckets;
	/*
	 * Means "at arrived 100 %": over bucket 100, or, when it is empty, over
	 * the samples of 99..101 % (one running sum across the three, in index
	 * order), or, when the run never reaches 99 % (an inflation target
	 * below 1), over its highest bucket; NAN when a run jumps over 99..101
	 * or has no sample, and the frag ones when fragmentation was not
	 * tracked. at100_n counts the
	 * samples.
	 */
	double at100_gpu_alloc_pct, at100_frag_ratio_pct, at100_frag_amount_pct;
	int64_t at100_n;
};

/*
 * Computes the statistics of samples[0..n) of a cluster of capacity
 * cap_milli milli-GPU (> 0); frag says whether frag_milli was tracked.
 * out need not be initialised. Returns 0 or GS_ENOMEM (out is then empty).
 */
int gs_arrived_stats_compute(const struct gs_sample *samples, size_t n, int64_t cap_milli,
			     bool frag, struct gs_arrived_stats *out);

/* Frees the buckets and leaves st empty (no buckets, NAN figures). */
void gs_arrived_stats_release(struct gs_arrived_stats *st);

#endif
