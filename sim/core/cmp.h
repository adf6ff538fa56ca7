/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmp.h - three-way comparisons of one key, for qsort() and bsearch()
 * callbacks that order records by several keys in turn:
 *
 *   int c = gs_cmp_i64(x->t_s, y->t_s);
 *
 *   return c ? c : gs_cmp_size(x->i, y->i);
 *
 * Each returns -1, 0 or 1 as a is below, equal to or above b, without the
 * overflow of a subtraction. Plain C, libc only (the CUDA harness links
 * core/).
 */
#ifndef GS_CMP_H
#define GS_CMP_H

#include <stddef.h>
#include <stdint.h>

/* Returns -1, 0 or 1 as a < b, a == b or a > b. */
static inline int gs_cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Returns -1, 0 or 1 as a < b, a == b or a > b. */
static inline int gs_cmp_size(size_t a, size_t b)
{
	return a < b ? -1 : a > b;
}

/* Returns -1 when a < b, 1 when a > b, 0 otherwise (equal, or either is NaN). */
static inline int gs_cmp_f64(double a, double b)
{
	return a < b ? -1 : a > b;
}

/* A qsort() callback for an array of int64_t (or of records keyed by a leading one), ascending. */
static inline int gs_cmp_i64_elem(const void *a, const void *b)
{
	return gs_cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* A qsort() callback for an array of double, ascending (NaN as gs_cmp_f64()). */
static inline int gs_cmp_f64_elem(const void *a, const void *b)
{
	return gs_cmp_f64(*(const double *)a, *(const double *)b);
}

/* An id and its sort key, for ordering ids (pods, nodes) by a key with ties by id. */
struct gs_cmp_keyed {
	int64_t key;
	int64_t id;
};

/* A qsort() callback for struct gs_cmp_keyed: by key, then by id, both ascending. */
static inline int gs_cmp_keyed_asc(const void *a, const void *b)
{
	const struct gs_cmp_keyed *x = a, *y = b;
	int c = gs_cmp_i64(x->key, y->key);

	return c ? c : gs_cmp_i64(x->id, y->id);
}

/* A qsort() callback for struct gs_cmp_keyed: by key, largest first, then by id ascending. */
static inline int gs_cmp_keyed_desc(const void *a, const void *b)
{
	const struct gs_cmp_keyed *x = a, *y = b;
	int c = gs_cmp_i64(y->key, x->key);

	return c ? c : gs_cmp_i64(x->id, y->id);
}

#endif
