/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arrivals.h - the arrival times of time mode: the trace's creation times
 * divided by `--time-scale`, or, with the steady load knob (`--load PCT`),
 * times that offer PCT % of the cluster's GPU capacity over the arrival
 * window, each pod keeping its request and its duration.
 *
 * Offered load (gs_offered_load_pct() in metrics.h): over an arrival window
 * of length W, 100 * sum_i gpu_i * min(duration_i, W) / (capacity * W),
 * gpu_i = num_gpu * gpu_milli, a pod that never leaves counting W. A pod
 * that runs longer than the window (openb's default trace has 34 that run
 * for more than 10^6 s) brings at most its request over the whole window,
 * which is what it occupies once it runs.
 *
 * The pods keep the trace's arrival order (creation time, then file
 * order); only the times change. With a repeat K > 1 the stream is the
 * trace's pods K times over, copy after copy, each copy keeping each pod's
 * request and duration: openb's 8152 pods together ask for 98% of the
 * cluster's GPUs, so one copy of them cannot offer more than that, and
 * any load near it squeezes them into a burst shorter than most of their
 * durations; K copies spread over a K times longer window. W is solved exactly: sum_i gpu_i *
 * min(d_i, W) is piecewise linear in W. Two shapes of arrivals in [0, W]:
 *   GS_ARRIVALS_POISSON  a Poisson stream: gaps drawn exponential with the
 *                        run's seed, then scaled to sum to W (a Poisson
 *                        process given its number of arrivals in [0, W]).
 *                        Steady: the same rate over the whole window.
 *   GS_ARRIVALS_TRACE    the trace's own gaps, all multiplied by one
 *                        factor: keeps the trace's bursts and quiet
 *                        periods (openb's first 115 days bring 1% of its
 *                        pods), so the load is PCT only on average.
 * Arrival times are rounded to whole seconds.
 */
#ifndef GS_ARRIVALS_H
#define GS_ARRIVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"

enum gs_arrivals { GS_ARRIVALS_POISSON = 0, GS_ARRIVALS_TRACE = 1 };

/* "poisson" or "trace". */
const char *gs_arrivals_str(enum gs_arrivals a);

/*
 * The arrival time of pod p in time mode without a load: its creation time
 * divided by time_scale (> 0), rounded down; 0 for a pod without one.
 * Returns false when that lies past GS_TIME_MAX_S (a tiny scale stretches
 * legal creation times beyond the legal range).
 */
bool gs_arrivals_scaled(double time_scale, const struct gs_pod *p, int64_t *t_out);

/*
 * The arrival window W (seconds) at which the n pods offer load_pct % of
 * cap_milli. Returns 0, or GS_EINVAL with a message in err when no window
 * does it: load_pct is at or below what the pods that never leave offer
 * alone, or above the sum of every pod's GPU request (all pods at once);
 * GS_ERANGE when the window is longer than GS_TIME_MAX_S seconds.
 */
int gs_arrivals_window(const struct gs_pod *pods, size_t n, int64_t cap_milli, double load_pct,
		       double *window_out, char *err, size_t err_len);

/*
 * Writes into arrive[i] the arrival time of pods[i] (n >= 2) for load_pct
 * % of cap_milli, in the given shape; seed draws the Poisson gaps (a
 * stream of its own: the policies' random choices do not move it). pods
 * is `period` pods repeated n / period times (period divides n; n for no
 * repeat): copy k arrives after copy k - 1, each in the trace's order.
 * With the trace's shape, copies are separated by the trace's mean gap.
 * Returns 0, GS_EINVAL or GS_ERANGE (message in err: see gs_arrivals_window(),
 * fewer than two pods, or GS_ARRIVALS_TRACE on a trace whose pods all
 * arrive at once) or GS_ENOMEM.
 */
int gs_arrivals_generate(const struct gs_pod *pods, size_t n, size_t period, int64_t cap_milli,
			 double load_pct, enum gs_arrivals shape, uint64_t seed, int64_t *arrive,
			 char *err, size_t err_len);

/* The most pods a run under a load may have, the trace times --repeat (the generator's largest trace). */
#define GS_ARRIVALS_MAX_PODS ((size_t)10000000)

/*
 * Whether gs_arrivals_generate() can serve load_pct for these n pods
 * repeated `repeat` (>= 1) times: 0, or GS_ERANGE when that makes more
 * than GS_ARRIVALS_MAX_PODS pods (checked before allocating), GS_EINVAL or
 * GS_ERANGE as gs_arrivals_generate(), or GS_ENOMEM; always with a message in
 * err. For checking a command line before any run starts.
 */
int gs_arrivals_check(const struct gs_pod *pods, size_t n, int64_t repeat, int64_t cap_milli,
		      double load_pct, enum gs_arrivals shape, char *err, size_t err_len);

#endif
