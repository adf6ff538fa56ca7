/* SPDX-License-Identifier: Apache-2.0 */
/*
 * list.c - comma-separated lists of numbers (see list.h): one loop over
 * the items, and one reader per kind of item.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/list.h"

/* The values read so far: n of elem bytes each, at most max. */
struct values {
	void *v;
	size_t n, cap;
	size_t elem, first, max;
};

/* Appends the value at x. Returns 0, GS_EINVAL when the list is full, or GS_ENOMEM. */
static int push(struct values *l, const void *x)
{
	char *g;

	if (l->n == l->max)
		return GS_EINVAL;
	g = gs_grow(l->v, &l->cap, l->n, l->elem, l->first);
	if (!g)
		return GS_ENOMEM;
	l->v = g;
	memcpy(g + l->n * l->elem, x, l->elem);
	l->n++;
	return 0;
}

/*
 * Reads text as items separated by single commas: item() reads the item
 * at *s into l and moves *s past it. Returns 0 with the values in l, or
 * an error with l emptied.
 */
static int parse(const char *text, int (*item)(const char **s, struct values *l), struct values *l)
{
	const char *s = text;
	int rc = GS_EINVAL;

	if (!text || !*text)
		return GS_EINVAL;
	for (;;) {
		rc = item(&s, l);
		if (rc)
			break;
		if (*s == '\0')
			return 0;
		if (*s != ',') {
			rc = GS_EINVAL;
			break;
		}
		s++;
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
	return rc;
}

/*
 * The length of the decimal number at s: digits[.digits][e[+-]digits],
 * with a digit before or after the point; 0 when there is none. No sign,
 * no hexadecimal, no "inf" or "nan", as every number of the command line.
 */
static size_t decimal_len(const char *s)
{
	size_t i = 0, digits = 0, e;

	for (; s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (s[i] != 'e' && s[i] != 'E')
		return i;
	e = i + 1;
	if (s[e] == '+' || s[e] == '-')
		e++;
	if (s[e] < '0' || s[e] > '9')
		return 0;
	while (s[e] >= '0' && s[e] <= '9')
		e++;
	return e;
}

/* A positive finite number not in the list yet. */
static int number_item(const char **s, struct values *l)
{
	const double *v = l->v;
	size_t len = decimal_len(*s), i;
	char *end;
	double x;

	if (!len)
		return GS_EINVAL;
	errno = 0;
	x = strtod(*s, &end);
	if (errno || end != *s + len || !(x > 0) || !isfinite(x))
		return GS_EINVAL;
	for (i = 0; i < l->n; i++)
		if (v[i] == x)
			return GS_EINVAL;
	*s = end;
	return push(l, &x);
}

/* A seed "N" or a range "LO-HI", LO <= HI, both at most INT64_MAX. */
static int seed_item(const char **s, struct values *l)
{
	unsigned long long lo, hi;
	const char *p = *s;
	char *end;
	int rc;

	if (*p < '0' || *p > '9')
		return GS_EINVAL;
	errno = 0;
	lo = strtoull(p, &end, 10);
	if (errno || lo > INT64_MAX)
		return GS_EINVAL;
	hi = lo;
	p = end;
	if (*p == '-') {
		p++;
		if (*p < '0' || *p > '9')
			return GS_EINVAL;
		hi = strtoull(p, &end, 10);
		if (errno || hi < lo || hi > INT64_MAX)
			return GS_EINVAL;
		p = end;
	}
	if (hi - lo >= l->max || l->n + (size_t)(hi - lo) + 1 > l->max)
		return GS_EINVAL;
	for (;; lo++) {
		uint64_t seed = lo;

		rc = push(l, &seed);
		if (rc)
			return rc;
		if (lo == hi)
			break;
	}
	*s = p;
	return 0;
}

int gs_list_parse_numbers(const char *text, double **out, size_t *n_out)
{
	struct values l = { .elem = sizeof(double), .first = 8, .max = GS_LIST_MAX_NUMBERS };
	int rc = parse(text, number_item, &l);

	if (!rc) {
		*out = l.v;
		*n_out = l.n;
	}
	return rc;
}

int gs_list_parse_seeds(const char *text, uint64_t **out, size_t *n_out)
{
	struct values l = { .elem = sizeof(uint64_t), .first = 16, .max = GS_LIST_MAX_SEEDS };
	int rc = parse(text, seed_item, &l);

	if (!rc) {
		*out = l.v;
		*n_out = l.n;
	}
	return rc;
}
