/* SPDX-License-Identifier: Apache-2.0 */
/*
 * limits.h - the legal ranges of gpusim's quantities, decided once, and
 * checked arithmetic for the sums that can still overflow inside them.
 *
 * Every reader (CSV and JSON), the generator and the engine take their
 * bounds from here, and traces/README.md documents the same numbers:
 *
 *   a simulated second   0 .. 2^53-1   (creation, deletion and scheduled
 *                                       times; arrivals after --time-scale)
 *   a MiB                0 .. 2^53-1   (node, pod, GPU and model memory)
 *   a milli-CPU          0 .. 2^31-1
 *   a milli-GPU          0 .. 1000     (per GPU; GS_MILLI_PER_GPU)
 *
 * 2^53-1 because it is the largest integer that every path keeps exact: a
 * JSON number is a double in cJSON, the metrics compute in doubles, and
 * SQLite stores the value as it came. A value written by one of gpusim's
 * writers is therefore always read back unchanged by every reader.
 *
 * Inside these ranges some sums still overflow int64 (the memory of 1024
 * nodes of 2^53 MiB; a pod that starts late and runs for 2^53 s after
 * others did the same); those use gs_add_i64() and fail with GS_ERANGE
 * rather than wrap. Plain C, libc only (the CUDA harness links core/).
 */
#ifndef GS_LIMITS_H
#define GS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest simulated second in any input (2^53 - 1, about 285 million years). */
#define GS_TIME_MAX_S INT64_C(9007199254740991)
/* The largest amount of memory in MiB of a node, a pod, a GPU or a GPU model (2^53 - 1). */
#define GS_MIB_MAX INT64_C(9007199254740991)
/* The largest CPU amount in milli-cores of a node or a pod. */
#define GS_CPU_MILLI_MAX INT32_MAX
/*
 * The largest input file, in bytes: 1 GiB, comfortably above the largest
 * trace `gpusim gen` writes (10^7 pods, about 0.5 GiB), so that an endless
 * stream (a pipe, a device) is refused instead of filling the memory.
 */
#define GS_INPUT_MAX_BYTES ((size_t)1 << 30)
/* The largest integer a JSON reader accepts anywhere (a double holds it exactly). */
#define GS_JSON_INT_MAX INT64_C(9007199254740991)

/*
 * Stores a + b in *sum and returns true, or returns false (and leaves *sum
 * alone) when the sum does not fit in int64.
 */
static inline bool gs_add_i64(int64_t a, int64_t b, int64_t *sum)
{
	int64_t s;

	if (__builtin_add_overflow(a, b, &s))
		return false;
	*sum = s;
	return true;
}

#endif
