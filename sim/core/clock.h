/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.h - the clock gpusim times itself with: CLOCK_MONOTONIC in
 * milliseconds or seconds, for durations only (a run's wall_ms, a batch's
 * wall_s, a bound's solver time, the benchmarks and their harness).
 * Simulated time never comes from here, so no result depends on it.
 */
#ifndef GS_CLOCK_H
#define GS_CLOCK_H

#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC since an arbitrary origin: subtract two readings. */
static inline double gs_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Seconds on the same clock: gs_clock_ms() / 1000. */
static inline double gs_clock_s(void)
{
	return gs_clock_ms() / 1e3;
}

#endif
