/* SPDX-License-Identifier: Apache-2.0 */
/*
 * grow.h - room for more elements in caller-owned arrays whose capacity
 * doubles. The allocator layer, the engine, the readers and the store all
 * keep such arrays; this is the one copy of the doubling and of the
 * overflow check, and the only place in sim/ that calls realloc:
 *
 *   gs_grow()        one array and its capacity (the common case)
 *   gs_grow_cap()    the next capacity, for arrays that grow together
 *                    (parallel arrays sharing one capacity) or keep a
 *                    spare byte for a terminating NUL
 *   gs_realloc_n()   realloc of n elements with the size checked, for
 *                    those arrays and for exact-size resizes
 *   GS_GROW_RESIZE() gs_realloc_n() into the array's own pointer, left
 *                    as it was on failure: parallel arrays in one test
 *   GS_GROW_PUSH()   one more zeroed element at the end of an array
 */
#ifndef GS_GROW_H
#define GS_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Returns twice cap, or first when cap is 0; 0 when twice cap does not fit in a size_t. */
static inline size_t gs_grow_cap(size_t cap, size_t first)
{
	if (cap == 0)
		return first;
	return cap > SIZE_MAX / 2 ? 0 : 2 * cap;
}

/*
 * Returns realloc(items, n * elem). Returns NULL, leaving items as it was,
 * when n is 0, the product overflows or the allocation fails.
 */
static inline void *gs_realloc_n(void *items, size_t n, size_t elem)
{
	if (n == 0 || elem == 0 || n > SIZE_MAX / elem)
		return NULL;
	return realloc(items, n * elem);
}

/*
 * Reallocates the array whose pointer is at items_p (a pointer to an
 * object pointer, as &array) to n elements of elem bytes. Returns 0 with
 * the new array stored at items_p, or -1 leaving it as it was when n is
 * 0, the size overflows or the allocation fails. Callers use
 * GS_GROW_RESIZE(), which passes elem from the array's type.
 */
static inline int gs_grow_resize(void *items_p, size_t n, size_t elem)
{
	void *items, *p;

	/* Through memcpy: items_p points at a T *, not at a void *. */
	memcpy(&items, items_p, sizeof(items));
	p = gs_realloc_n(items, n, elem);
	if (!p)
		return -1;
	memcpy(items_p, &p, sizeof(p));
	return 0;
}

/*
 * Resizes the array items (an lvalue, a pointer to its first element) to
 * n elements: 0, or -1 leaving items as it was (gs_grow_resize()).
 * Parallel arrays that share one capacity grow in one test:
 *   if (GS_GROW_RESIZE(t->pods, cap) || GS_GROW_RESIZE(t->pod_names, cap))
 *           return GS_ENOMEM;
 */
#define GS_GROW_RESIZE(items, n) gs_grow_resize(&(items), (n), sizeof(*(items)))

/*
 * Returns items when n < *cap. Otherwise reallocates items to twice *cap
 * elements of elem bytes (first when *cap is 0), stores the new capacity
 * in *cap and returns the new array. Returns NULL, leaving items and *cap
 * as they were, when the allocation fails or the size would overflow.
 */
static inline void *gs_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return items;
	ncap = gs_grow_cap(*cap, first);
	p = gs_realloc_n(items, ncap, elem);
	if (p)
		*cap = ncap;
	return p;
}

/*
 * Appends a zeroed element to the array items of n elements and capacity
 * cap (lvalues, cap a size_t; first the capacity of a new array), counts
 * it in n and points out at it. out is NULL, and items, n and cap are as
 * they were, when the allocation fails.
 */
#define GS_GROW_PUSH(items, n, cap, first, out)                                      \
	do {                                                                           \
		void *g_ = gs_grow((items), &(cap), (size_t)(n), sizeof(*(items)), (first)); \
		(out) = NULL;                                                          \
		if (g_) {                                                              \
			(items) = g_;                                                  \
			(out) = &(items)[(n)++];                                       \
			memset((out), 0, sizeof(*(out)));                              \
		}                                                                      \
	} while (0)

#endif
