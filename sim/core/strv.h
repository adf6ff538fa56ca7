/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strv.h - lists of malloc'ed strings looked up by value: the traces,
 * policies and mechanisms of a figure, the policies, metrics and curves of
 * a regression set, the columns two databases share. Lists are short (a
 * few to a few hundred names), so a lookup is a linear scan.
 *
 * Ownership: the list owns its strings and its array; gs_strv_free()
 * frees both.
 */
#ifndef GS_STRV_H
#define GS_STRV_H

#include <stddef.h>

/* The index of s among v[0..n), or -1 when it is not there. */
long gs_strv_find(char *const *v, size_t n, const char *s);

/*
 * The index of s among (*v)[0..*n), appending a copy of s when it is not
 * there. cap is the array's capacity, doubled as it grows; NULL when the
 * array holds exactly *n strings and grows by one. Returns -1 when out of
 * memory, the list as it was (still fit for gs_strv_free()).
 */
long gs_strv_intern(char ***v, size_t *n, size_t *cap, const char *s);

/* Frees v[0..n) and the array itself; v may be NULL. */
void gs_strv_free(char **v, size_t n);

#endif
