/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound.h - how much GPU any placement could allocate in the inflation
 * experiment, the floor under every policy's unallocated GPU share.
 *
 * The inflation experiment (inflate.h; Weng et al., ATC 2023, section 6.1)
 * reports the unallocated GPU share averaged over the arrivals whose
 * arrived workload rounds to a percent (100 for the headline). After
 * arrival i, what is allocated is a subset of the pods arrived so far that
 * fits the cluster together, so it is at most OPT(i), the largest GPU
 * request of such a subset: a bound on every policy, online or not, even
 * one that may refuse pods. OPT grows with i, so over a bucket whose last
 * arrival is k the mean unallocated share is at least the mean over its
 * arrivals of max(100 - 100 OPT(k) / capacity, 100 - arrived(i) %).
 *
 * OPT(k) is bounded three ways, each tighter and dearer:
 *   aggregate  the arrived GPU request, and a max-flow of it to the GPU
 *              models each pod may use, each node counted for at most what
 *              its CPU and memory let the most GPU-per-CPU pod that fits
 *              there take (CPU-stranded GPUs); microseconds.
 *   lp         a linear relaxation that keeps what makes sharing waste
 *              share: every shared GPU holds a whole pattern of pods (a
 *              multiset of shares of at most 1000), while CPU, memory and
 *              GPUs are pooled per node type and pods may be split
 *              between types. Solved by column generation with GLPK; the
 *              bound comes from the duals by weak duality, so it holds
 *              whatever the rounding and however early generation stops. GPU memory per GPU is left out (a
 *              relaxation; openb asks for none). Seconds.
 *   exact      the integer program node by node, GPU by GPU (GLPK's branch
 *              and cut, with a time limit): its best placement and its
 *              proven bound; for small clusters (tens of nodes).
 * Pods that ask for no GPU add nothing and are left out of lp and exact.
 *
 * Ownership: everything is the caller's; nothing is kept between calls.
 */
#ifndef GS_BOUND_H
#define GS_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

enum {
	GS_BOUND_AGGREGATE = 1u << 0,
	GS_BOUND_LP = 1u << 1,
	GS_BOUND_EXACT = 1u << 2,
};

/* The most buckets one call bounds. */
#define GS_BOUND_MAX_POINTS 1000

struct gs_bound_opts {
	uint64_t seed;              /* the inflation's seed, as the runs' */
	double inflate;             /* the inflation's target (--inflate) */
	unsigned methods;           /* GS_BOUND_* bits; aggregate is always computed */
	double exact_time_limit_s;  /* per bucket, > 0 */
};

/* Fills the defaults: seed 42, inflate 1.3, aggregate and lp, 60 s. */
void gs_bound_opts_init(struct gs_bound_opts *o);

/* Amounts in milli-GPU; -1 where not computed. */
struct gs_bound_point {
	int32_t arrived_pct;        /* the bucket (in) */
	int64_t n_samples;          /* arrivals in it; 0: none rounds to it, nothing else is set */
	int64_t n_pods;             /* its last arrival + 1: the pods OPT may choose from */
	int64_t arrived_gpu_milli;  /* their GPU request */
	int64_t aggregate_milli;    /* OPT <= this */
	int64_t lp_milli;           /* OPT <= this */
	int64_t exact_milli;        /* OPT >= this: the best placement found */
	int64_t exact_bound_milli;  /* OPT <= this: proven by branch and cut */
	bool exact_optimal;         /* exact_milli == exact_bound_milli */
	int32_t lp_columns;         /* patterns the column generation made */
	double aggregate_ms, lp_ms, exact_ms;  /* wall time of each */
	/*
	 * Floors of the bucket's mean unallocated GPU %, from each bound on OPT
	 * (NAN where not computed; exact's from its proven bound at the last
	 * arrival with the other bounds elsewhere), and from the tightest.
	 */
	double aggregate_unalloc_pct_min, lp_unalloc_pct_min, exact_unalloc_pct_min;
	double unalloc_pct_min;
	const char *method;         /* static: "aggregate", "lp" or "exact", that bound's */
};

/*
 * Bounds the buckets out[i].arrived_pct (i < n, n <= GS_BOUND_MAX_POINTS)
 * of the inflation of trace t on cluster c with o's seed and target, as
 * `gpusim replay --mode inflate` runs it; bucket 100 stands, as the
 * headline does, for 99..101 when no arrival rounds to 100. The cluster
 * must not set GPU sharing modes. Returns 0, GS_EINVAL (bad options, or a
 * trace the inflation refuses) or GS_ERANGE with err saying why, or
 * GS_ENOMEM (out of memory, or GLPK stopped on an internal error; err says
 * which).
 */
int gs_bound_compute(const struct gs_cluster *c, const struct gs_trace *t,
		     const struct gs_bound_opts *o, struct gs_bound_point *out, size_t n, char *err,
		     size_t err_len);

#endif
