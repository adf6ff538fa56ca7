/* SPDX-License-Identifier: Apache-2.0 */
/*
 * grow.h - room for one more element in a caller-owned array whose
 * capacity doubles. The allocator layer, the engine and the store all
 * keep such arrays; this is the one copy of the doubling.
 */
#ifndef GS_GROW_H
#define GS_GROW_H

#include <stdint.h>
#include <stdlib.h>

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
	ncap = *cap ? 2 * *cap : first;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return NULL;
	p = realloc(items, ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

#endif
