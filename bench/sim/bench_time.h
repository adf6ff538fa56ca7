/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_time.h - what the simulator benchmarks time with: core/clock.h's
 * monotonic clock (gs_clock_ms), and the comparator that sorts the
 * repeats' times for their median.
 */
#ifndef GS_BENCH_TIME_H
#define GS_BENCH_TIME_H

#include "core/clock.h"

/* qsort comparator of an array of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
