/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strv.c - the string lists of strv.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strv.h"

long gs_strv_find(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (long)i;
	return -1;
}

long gs_strv_intern(char ***v, size_t *n, size_t *cap, const char *s)
{
	long i = gs_strv_find(*v, *n, s);
	char **grown, *copy;

	if (i >= 0)
		return i;
	copy = strdup(s);
	if (!copy)
		return -1;
	grown = cap ? gs_grow(*v, cap, *n, sizeof(*grown), 16)
		    : gs_realloc_n(*v, *n + 1, sizeof(*grown));
	if (!grown) {
		free(copy);
		return -1;
	}
	*v = grown;
	grown[*n] = copy;
	return (long)(*n)++;
}

void gs_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
