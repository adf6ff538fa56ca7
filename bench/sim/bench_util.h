/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_util.h - what the simulator benchmarks share: a monotonic clock in
 * milliseconds and the comparison that sorts timings for their median.
 */
#ifndef GS_BENCH_UTIL_H
#define GS_BENCH_UTIL_H

#include <time.h>

/* Milliseconds of CLOCK_MONOTONIC. */
static inline double gs_bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* qsort() comparison of two doubles, ascending. */
static inline int gs_bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
