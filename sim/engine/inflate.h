/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inflate.h - the arrival order of the FGD paper's "inflation" experiment
 * (Weng et al., USENIX ATC 2023, section 5.1): the trace shuffled with the
 * seed and grown with clones, or trimmed, to a target GPU request.
 *
 * The replay engine calls it when a run is in inflate mode; it is exported
 * on its own so tests can check the order without running a simulation.
 */
#ifndef GS_INFLATE_H
#define GS_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "io/trace/trace.h"

/* The largest inflation factor (--inflate): the paper uses 1.3. */
#define GS_INFLATE_MAX 100.0
/* The most arrivals an inflated run may have (the generator's largest trace). */
#define GS_INFLATE_MAX_PODS 10000000

/*
 * The number of arrivals gs_inflate_order() makes on average: the trace
 * plus the clones its mean GPU request needs to reach the target, or the
 * trace alone when it already does. Infinite when no pod asks for a GPU
 * and the target is positive. For refusing a run before it starts.
 */
double gs_inflate_expected(const struct gs_trace *t, double factor, int64_t gpu_capacity_milli);

/*
 * The inflation procedure on its own (used by gs_sim_init): shuffles the
 * trace's pods with seed and appends clones drawn uniformly with
 * replacement until the total GPU request reaches factor x gpu_capacity
 * milli (the last clone is the one that reaches it). A trace that alone
 * asks for more than the target is trimmed instead, by removing random
 * pods until it no longer does, as the reference simulator does; a factor
 * of 0 only shuffles. A trace with pod groups is shuffled, cloned and
 * trimmed by units, a group being one unit, so that a group's pods (or a
 * clone's) arrive one after the other, in trace order (engine/gang.h).
 * Writes a newly allocated array of trace indices to *idx_out (caller
 * frees) and its length to *n_out. Returns 0, GS_EINVAL
 * (bad arguments, or no pod asks for a GPU while the target is positive),
 * GS_ERANGE (more than GS_INFLATE_MAX_PODS arrivals) or GS_ENOMEM.
 */
int gs_inflate_order(const struct gs_trace *t, uint64_t seed, double factor,
		     int64_t gpu_capacity_milli, int32_t **idx_out, size_t *n_out);

#endif
