/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantity.c - Kubernetes resource quantities, parsed exactly.
 *
 * The value is built in a small base-10^9 big number counted in
 * billionths: the mantissa's digits, times 1024 per binary suffix step,
 * times (or divided by, rounding up) ten per decimal step. The lowest limb
 * is then the nano part and the rest the whole units. Inputs are short,
 * so the few multiplications cost nothing next to reading the file.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "io/k8s/quantity.h"

#define LIMBS 8               /* up to 10^72 billionths: far past INT64_MAX units */
#define BASE 1000000000u
#define DIGITS_MAX 64         /* significant digits of a mantissa */
#define EXP_MAX 64            /* |decimal exponent| */

struct big {
	uint32_t d[LIMBS];    /* little-endian, base 10^9 */
};

/* b = b * m + add; false when it no longer fits. */
static bool big_muladd(struct big *b, uint32_t m, uint32_t add)
{
	uint64_t carry = add;
	int i;

	for (i = 0; i < LIMBS; i++) {
		uint64_t v = (uint64_t)b->d[i] * m + carry;

		b->d[i] = (uint32_t)(v % BASE);
		carry = v / BASE;
	}
	return carry == 0;
}

/* b = ceil(b / 10). */
static void big_div10_ceil(struct big *b)
{
	uint64_t rem = 0;
	bool up;
	int i;

	for (i = LIMBS - 1; i >= 0; i--) {
		uint64_t v = rem * BASE + b->d[i];

		b->d[i] = (uint32_t)(v / 10);
		rem = v % 10;
	}
	up = rem != 0;
	for (i = 0; up && i < LIMBS; i++) {
		if (++b->d[i] < BASE)
			up = false;
		else
			b->d[i] = 0;
	}
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The suffix at s: sets *exp10 and *bin10 (powers of 1024), returns its length or -1. */
static int suffix(const char *s, int *exp10, int *bin10)
{
	static const char dec[] = "num kMGTPE";
	static const char bin[] = "KMGTPE";
	const char *p;

	*exp10 = 0;
	*bin10 = 0;
	if (*s == '\0')
		return 0;
	if (s[1] == 'i' && s[2] == '\0' && (p = strchr(bin, s[0])) && *s) {
		*bin10 = (int)(p - bin) + 1;
		return 2;
	}
	if (s[1] == '\0' && s[0] != ' ' && (p = strchr(dec, s[0])) && *s) {
		*exp10 = ((int)(p - dec) - 3) * 3;
		return 1;
	}
	return -1;
}

int gs_quantity_parse(const char *s, struct gs_quantity *out, const char **why)
{
	struct big b;
	const char *p = s;
	int digits = 0, frac = 0, exp10 = 0, bin10 = 0, e, i;
	bool neg = false, point = false, any = false;
	int64_t whole = 0;

	memset(&b, 0, sizeof(b));
	*why = "is not a quantity";
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (;; p++) {
		if (is_digit(*p)) {
			any = true;
			if (digits == 0 && *p == '0') {
				if (point)
					frac++;
				continue;
			}
			if (++digits > DIGITS_MAX) {
				*why = "has too many digits";
				return GS_EPARSE;
			}
			big_muladd(&b, 10, (uint32_t)(*p - '0'));
			if (point)
				frac++;
		} else if (*p == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (!any)
		return GS_EPARSE;
	if ((*p == 'e' || *p == 'E') && (is_digit(p[1]) || ((p[1] == '-' || p[1] == '+') &&
							    is_digit(p[2])))) {
		bool eneg = false;
		int v = 0;

		p++;
		if (*p == '-' || *p == '+')
			eneg = *p++ == '-';
		for (; is_digit(*p); p++) {
			v = v * 10 + (*p - '0');
			if (v > EXP_MAX) {
				*why = "has an exponent out of range";
				return GS_ERANGE;
			}
		}
		if (*p != '\0')
			return GS_EPARSE;
		exp10 = eneg ? -v : v;
	} else if (suffix(p, &exp10, &bin10) < 0) {
		*why = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ? "has an unknown suffix"
									       : "is not a quantity";
		return GS_EPARSE;
	}
	/* Billionths: the value times 10^9. */
	for (i = 0; i < bin10; i++)
		if (!big_muladd(&b, 1024, 0))
			goto range;
	e = exp10 + 9 - frac;
	for (; e > 0; e--)
		if (!big_muladd(&b, 10, 0))
			goto range;
	for (; e < 0; e++)
		big_div10_ceil(&b);
	for (i = LIMBS - 1; i >= 1; i--) {
		if (whole > (INT64_MAX - (int64_t)b.d[i]) / BASE)
			goto range;
		whole = whole * BASE + b.d[i];
	}
	if (neg && (whole || b.d[0])) {
		*why = "is negative";
		return GS_ERANGE;
	}
	out->whole = whole;
	out->nano = (int32_t)b.d[0];
	return 0;
range:
	*why = "is too large";
	return GS_ERANGE;
}

int gs_quantity_cmp(const struct gs_quantity *a, const struct gs_quantity *b)
{
	if (a->whole != b->whole)
		return a->whole < b->whole ? -1 : 1;
	if (a->nano != b->nano)
		return a->nano < b->nano ? -1 : 1;
	return 0;
}

bool gs_quantity_add(struct gs_quantity *a, const struct gs_quantity *b)
{
	int64_t w = b->whole;
	int32_t n = a->nano + b->nano;

	if (n >= GS_QUANTITY_NANO) {
		n -= GS_QUANTITY_NANO;
		if (w == INT64_MAX)
			return false;
		w++;
	}
	if (a->whole > INT64_MAX - w)
		return false;
	a->whole += w;
	a->nano = n;
	return true;
}

void gs_quantity_sub(struct gs_quantity *a, const struct gs_quantity *b)
{
	if (gs_quantity_cmp(a, b) <= 0) {
		a->whole = 0;
		a->nano = 0;
		return;
	}
	a->whole -= b->whole;
	a->nano -= b->nano;
	if (a->nano < 0) {
		a->nano += GS_QUANTITY_NANO;
		a->whole--;
	}
}

bool gs_quantity_milli(const struct gs_quantity *q, int64_t *out)
{
	int64_t frac = (q->nano + 999999) / 1000000;

	if (q->whole > (INT64_MAX - frac) / 1000)
		return false;
	*out = q->whole * 1000 + frac;
	return true;
}

int64_t gs_quantity_mib(const struct gs_quantity *q)
{
	int64_t mib = q->whole >> 20;

	return mib + ((q->whole & ((INT64_C(1) << 20) - 1)) || q->nano ? 1 : 0);
}

int64_t gs_quantity_ceil(const struct gs_quantity *q)
{
	return q->whole + (q->nano && q->whole < INT64_MAX ? 1 : 0);
}

double gs_quantity_ratio(const struct gs_quantity *q, const struct gs_quantity *total)
{
	double t = (double)total->whole + (double)total->nano / 1e9;

	if (t <= 0)
		return 0;
	return ((double)q->whole + (double)q->nano / 1e9) / t;
}

char *gs_quantity_format(const struct gs_quantity *q, char *buf, size_t len)
{
	static const char bin[] = "KMGTPE";
	int k = -1;
	int64_t v = q->whole;

	if (q->nano == 0 && v > 0) {
		while (k < 5 && v % 1024 == 0) {
			v /= 1024;
			k++;
		}
		if (k >= 0) {
			snprintf(buf, len, "%lld%ci", (long long)v, bin[k]);
			return buf;
		}
		snprintf(buf, len, "%lld", (long long)q->whole);
	} else if (q->nano % 1000000 == 0 && q->whole == 0) {
		snprintf(buf, len, "%dm", (int)(q->nano / 1000000));
	} else {
		char frac[16];
		size_t n;

		snprintf(frac, sizeof(frac), "%09d", (int)q->nano);
		for (n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		snprintf(buf, len, "%lld.%s", (long long)q->whole, frac);
	}
	return buf;
}
