/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_time.h - what the simulator benchmarks time with: a monotonic
 * clock in milliseconds, and the comparator that sorts the repeats'
 * times for their median.
 */
#ifndef GS_BENCH_TIME_H
#define GS_BENCH_TIME_H

#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC, for differences only. */
static inline double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* qsort comparator of an array of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
