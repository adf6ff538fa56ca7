/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvline.c - reading and writing key=value result lines.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/kvline.h"

static int bare_char(char c)
{
	return c > ' ' && c < 0x7f && c != '"' && c != '=' && c != '\\';
}

static int key_char(char c, int first)
{
	return (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
}

static int fail(char *err, size_t len, const char *line, const char *at, const char *what)
{
	snprintf(err, len, "column %d: %s", (int)(at - line) + 1, what);
	return GS_EPARSE;
}

int gs_kvline_parse(const char *line, struct gs_kvline *out, char *err, size_t err_len)
{
	size_t len = strlen(line), cap = 8, i;
	const char *s = line;
	struct gs_kvline l;
	struct gs_kv *more;
	char *o;

	memset(&l, 0, sizeof(l));
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	while (*s == ' ' || *s == '\t')
		s++;
	if (s >= line + len || *s == '#') {
		*out = l;
		return 0;
	}
	/* Decoded strings are never longer than the line; one buffer holds all. */
	l.buf = malloc(len + 1);
	l.kv = malloc(cap * sizeof(*l.kv));
	if (!l.buf || !l.kv) {
		gs_kvline_release(&l);
		return GS_ENOMEM;
	}
	o = l.buf;
	l.type = o;
	while (s < line + len && key_char(*s, s == l.type))
		*o++ = *s++;
	if (o == l.type) {
		gs_kvline_release(&l);
		return fail(err, err_len, line, s, "a record must start with its type (a lower-case word)");
	}
	*o++ = 0;
	while (s < line + len) {
		struct gs_kv kv;

		if (*s != ' ' && *s != '\t') {
			gs_kvline_release(&l);
			return fail(err, err_len, line, s, "expected a blank before the next key");
		}
		while (s < line + len && (*s == ' ' || *s == '\t'))
			s++;
		if (s >= line + len)
			break;
		kv.key = o;
		if (!key_char(*s, 1)) {
			gs_kvline_release(&l);
			return fail(err, err_len, line, s, "a key must start with a-z or '_'");
		}
		while (s < line + len && key_char(*s, 0))
			*o++ = *s++;
		*o++ = 0;
		if (s >= line + len || *s != '=') {
			gs_kvline_release(&l);
			return fail(err, err_len, line, s, "expected '=' after the key");
		}
		s++;
		kv.val = o;
		if (s < line + len && *s == '"') {
			const char *open = s++;

			for (;;) {
				if (s >= line + len) {
					gs_kvline_release(&l);
					return fail(err, err_len, line, open, "unterminated quoted value");
				}
				if (*s == '"') {
					s++;
					break;
				}
				if (*s == '\\') {
					s++;
					if (s >= line + len) {
						gs_kvline_release(&l);
						return fail(err, err_len, line, open, "unterminated quoted value");
					}
					if (*s == 'n')
						*o++ = '\n';
					else if (*s == 't')
						*o++ = '\t';
					else if (*s == '"' || *s == '\\')
						*o++ = *s;
					else {
						gs_kvline_release(&l);
						return fail(err, err_len, line, s - 1, "invalid escape in a quoted value");
					}
					s++;
					continue;
				}
				*o++ = *s++;
			}
		} else {
			if (s >= line + len || !bare_char(*s)) {
				gs_kvline_release(&l);
				return fail(err, err_len, line, s, "missing value (write \"\" for an empty one)");
			}
			while (s < line + len && bare_char(*s))
				*o++ = *s++;
		}
		*o++ = 0;
		for (i = 0; i < l.n; i++) {
			if (!strcmp(l.kv[i].key, kv.key)) {
				char msg[96];

				snprintf(msg, sizeof(msg), "key '%s' appears twice", kv.key);
				gs_kvline_release(&l);
				return fail(err, err_len, line, s, msg);
			}
		}
		more = gs_grow(l.kv, &cap, l.n, sizeof(*more), 8);
		if (!more) {
			gs_kvline_release(&l);
			return GS_ENOMEM;
		}
		l.kv = more;
		l.kv[l.n++] = kv;
	}
	*out = l;
	return 0;
}

void gs_kvline_release(struct gs_kvline *l)
{
	free(l->buf);
	free(l->kv);
	memset(l, 0, sizeof(*l));
}

const char *gs_kvline_get(const struct gs_kvline *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->kv[i].key, key))
			return l->kv[i].val;
	return NULL;
}

void gs_kv_write(FILE *f, const char *key, const char *val)
{
	const char *p;
	int bare = *val != 0;

	for (p = val; *p && bare; p++)
		bare = bare_char(*p);
	fprintf(f, " %s=", key);
	if (bare) {
		fputs(val, f);
		return;
	}
	fputc('"', f);
	for (p = val; *p; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void gs_kv_writef(FILE *f, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gs_kv_write(f, key, buf);
}
