/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strbuf.c - the growing string of strbuf.h: formatted once to learn the
 * length, the buffer doubled (core/grow.h) until it fits, formatted again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strbuf.h"

void gs_strbuf_addf(struct gs_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	need = b->len + (size_t)n + 1;
	if (need > b->cap) {
		size_t cap = b->cap;
		char *s;

		do
			cap = gs_grow_cap(cap, 256);
		while (cap && cap < need);
		s = cap ? gs_realloc_n(b->s, cap, 1) : NULL;
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void gs_strbuf_reset(struct gs_strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void gs_strbuf_release(struct gs_strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
