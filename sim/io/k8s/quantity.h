/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantity.h - Kubernetes resource quantities ("500m", "1.5Gi", "2e3",
 * "128974848") as the API server accepts them, held exactly.
 *
 * The grammar is Kubernetes' resource.Quantity: an optional sign, digits
 * with an optional decimal point, then one suffix: a binary SI suffix (Ki,
 * Mi, Gi, Ti, Pi, Ei: powers of 1024), a decimal SI suffix (n, u, m, "",
 * k, M, G, T, P, E) or a decimal exponent (e3, E-2). A value is kept as
 * whole units and billionths (nano), which is Kubernetes' finest scale:
 * finer digits round up, as the API server's canonical form does. Values
 * up to INT64_MAX units are exact; anything else ("1.5Gx", "", "1..5",
 * " 1") is refused. Plain C, libc only.
 */
#ifndef GS_K8S_QUANTITY_H
#define GS_K8S_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_QUANTITY_NANO INT32_C(1000000000)
#define GS_QUANTITY_TEXT_MAX 48   /* a formatted quantity fits in this */

/* A non-negative quantity: whole + nano / 10^9 units. */
struct gs_quantity {
	int64_t whole;
	int32_t nano;   /* 0 .. 999999999 */
};

/*
 * Parses s into *out. Returns 0; GS_EPARSE when s is not a quantity, with
 * the reason in why (a static string: "is not a quantity", "has an
 * unknown suffix"); GS_ERANGE when it is negative or above INT64_MAX
 * units. *out is left alone on failure.
 */
int gs_quantity_parse(const char *s, struct gs_quantity *out, const char **why);

/* -1, 0 or 1 as a is below, equal to or above b. */
int gs_quantity_cmp(const struct gs_quantity *a, const struct gs_quantity *b);

/* *a += b. Returns false (a unchanged) when the sum passes INT64_MAX units. */
bool gs_quantity_add(struct gs_quantity *a, const struct gs_quantity *b);

/* *a -= b, never below zero (a debt is clamped, as an exhausted counter is). */
void gs_quantity_sub(struct gs_quantity *a, const struct gs_quantity *b);

/* True when q is zero. */
static inline bool gs_quantity_is_zero(const struct gs_quantity *q)
{
	return q->whole == 0 && q->nano == 0;
}

/* The quantity of n whole units. */
static inline struct gs_quantity gs_quantity_of(int64_t n)
{
	struct gs_quantity q = { n, 0 };

	return q;
}

/* q in thousandths, rounded up (CPU's milli-cores). Returns false when it passes INT64_MAX. */
bool gs_quantity_milli(const struct gs_quantity *q, int64_t *out);

/* q as bytes in MiB, rounded up. Never fails (INT64_MAX bytes is 2^43 MiB). */
int64_t gs_quantity_mib(const struct gs_quantity *q);

/* q as a whole number, rounded up. */
int64_t gs_quantity_ceil(const struct gs_quantity *q);

/* True when q is a whole number (no fraction). */
static inline bool gs_quantity_is_int(const struct gs_quantity *q)
{
	return q->nano == 0;
}

/*
 * q / total in [0, 1] as a double (0 when total is zero), for turning a
 * device's share of a counter into milli-GPU.
 */
double gs_quantity_ratio(const struct gs_quantity *q, const struct gs_quantity *total);

/*
 * Writes q in a short canonical form: "80Gi" when it is a whole number of
 * a binary unit of at least Ki, "500m", "1.5", "42" otherwise. Returns buf.
 */
char *gs_quantity_format(const struct gs_quantity *q, char *buf, size_t len);

#endif
