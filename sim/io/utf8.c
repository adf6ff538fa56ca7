/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.c - UTF-8 well-formedness (see utf8.h). The ranges are those of
 * RFC 3629's table of well-formed byte sequences.
 */
#include <stdlib.h>
#include <string.h>

#include "io/utf8.h"

size_t gs_utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (len == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte, an overlong lead (C0, C1) or F5..FF */
	/* The second byte's range excludes overlongs, surrogates and values above U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

bool gs_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = gs_utf8_seq_len(p + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

char *gs_utf8_repair(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out;

	/* At worst every byte becomes three. */
	if (len > (((size_t)-1) - 1) / 3)
		return NULL;
	out = malloc(3 * len + 1);
	if (!out)
		return NULL;
	while (i < len) {
		n = gs_utf8_seq_len(p + i, len - i);
		if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}
