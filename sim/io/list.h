/* SPDX-License-Identifier: Apache-2.0 */
/*
 * list.h - comma-separated lists of numbers as the command line gives them:
 * the loads or time scales of a sweep ("50,80,95,110") and its seeds
 * ("42-51", "1,5,7-9"). One reader for both, so that an empty item, a
 * trailing comma or a blank is refused the same way everywhere.
 *
 * Ownership: the arrays returned are malloc'ed and the caller's (free()).
 */
#ifndef GS_LIST_H
#define GS_LIST_H

#include <stddef.h>
#include <stdint.h>

/* Most values gs_list_parse_numbers() accepts, and most seeds gs_list_parse_seeds() expands to. */
#define GS_LIST_MAX_NUMBERS 1000
#define GS_LIST_MAX_SEEDS 100000

/*
 * Parses a list of positive numbers such as "50,80,95,110" into a
 * malloc'ed array (caller frees). Returns 0, GS_EINVAL (empty, malformed,
 * not finite and positive, a value twice, more than GS_LIST_MAX_NUMBERS)
 * or GS_ENOMEM; *out and *n_out are untouched on error.
 */
int gs_list_parse_numbers(const char *text, double **out, size_t *n_out);

/*
 * Parses a seed list such as "42-51" or "1,5,7-9" into a malloc'ed array
 * (caller frees), ranges expanded in order. Returns 0, GS_EINVAL (empty,
 * malformed, a seed above INT64_MAX, a range running backwards, or more
 * than GS_LIST_MAX_SEEDS seeds) or GS_ENOMEM; *out and *n_out are
 * untouched on error. A seed given twice is not refused here.
 */
int gs_list_parse_seeds(const char *text, uint64_t **out, size_t *n_out);

#endif
