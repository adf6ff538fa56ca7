/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.c - a recursive-descent reader for strict JSON (RFC 8259).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "json.h"

struct parser {
	const char *text;         /* start of the input */
	const char *s, *end;
	int line;
	const char *line_start;
	int depth;
	char *err;
	size_t err_len;
	int rc;
};

static int col_of(const struct parser *p, const char *at)
{
	return (int)(at - p->line_start) + 1;
}

/* Records the first error, with the line and column of `at`. */
__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, const char *at,
						      const char *fmt, ...)
{
	const char *q, *ls = p->text;
	char msg[256];
	va_list ap;
	int line = 1;

	if (p->rc)
		return p->rc;
	/* Recount from the start: only on the error path. */
	for (q = p->text; q < at && q < p->end; q++) {
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The text quoted in msg may hold a newline or another control character. */
	for (q = msg; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			msg[q - msg] = '?';
	snprintf(p->err, p->err_len, "line %d, column %d: %s", line, (int)(at - ls) + 1, msg);
	p->rc = GS_EPARSE;
	return GS_EPARSE;
}

static void skip_ws(struct parser *p)
{
	while (p->s < p->end) {
		char c = *p->s;

		if (c == '\n') {
			p->line++;
			p->line_start = p->s + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
		p->s++;
	}
}

static int parse_value(struct parser *p, struct gs_json *v);

static int put_utf8(char **o, uint32_t cp)
{
	unsigned char *u = (unsigned char *)*o;

	if (cp < 0x80) {
		*u++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*u++ = (unsigned char)(0xc0 | cp >> 6);
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*u++ = (unsigned char)(0xe0 | cp >> 12);
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*u++ = (unsigned char)(0xf0 | cp >> 18);
		*u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*o = (char *)u;
	return 0;
}

static int hex4(struct parser *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	if (p->end - p->s < 4)
		return fail(p, p->s, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		char c = p->s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(p, p->s + i, "'%c' is not a hex digit in a \\u escape", c);
	}
	p->s += 4;
	*out = v;
	return 0;
}

/* Reads a string at p->s (the opening quote) into a malloc'ed buffer. */
static int parse_string(struct parser *p, char **out)
{
	const char *start = p->s;
	char *buf, *o;

	p->s++;
	/* The decoded string is never longer than its source text. */
	buf = malloc((size_t)(p->end - p->s) + 1);
	if (!buf)
		return p->rc = GS_ENOMEM;
	o = buf;
	for (;;) {
		unsigned char c;

		if (p->s >= p->end) {
			free(buf);
			return fail(p, start, "unterminated string");
		}
		c = (unsigned char)*p->s;
		if (c == '"') {
			p->s++;
			break;
		}
		if (c < 0x20) {
			free(buf);
			return fail(p, p->s, "control character 0x%02x in a string (escape it)", c);
		}
		if (c != '\\') {
			*o++ = (char)c;
			p->s++;
			continue;
		}
		p->s++;
		if (p->s >= p->end) {
			free(buf);
			return fail(p, start, "unterminated string");
		}
		c = (unsigned char)*p->s++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(p, &cp)) {
				free(buf);
				return GS_EPARSE;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(buf);
				return fail(p, p->s - 6, "unpaired low surrogate \\u%04x", cp);
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u') {
					free(buf);
					return fail(p, p->s - 6, "unpaired high surrogate \\u%04x", cp);
				}
				p->s += 2;
				if (hex4(p, &lo)) {
					free(buf);
					return GS_EPARSE;
				}
				if (lo < 0xdc00 || lo > 0xdfff) {
					free(buf);
					return fail(p, p->s - 6, "\\u%04x does not complete a surrogate pair", lo);
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp == 0) {
				free(buf);
				return fail(p, p->s - 6, "\\u0000 is not allowed here");
			}
			put_utf8(&o, cp);
			break;
		}
		default:
			free(buf);
			return fail(p, p->s - 2, "invalid escape '\\%c'", c);
		}
	}
	*o = 0;
	*out = buf;
	return 0;
}

static int parse_number(struct parser *p, struct gs_json *v)
{
	const char *start = p->s, *q = p->s;
	char tmp[64];
	size_t len;
	char *end;

	v->is_integer = 1;
	if (q < p->end && *q == '-')
		q++;
	if (q >= p->end || *q < '0' || *q > '9')
		return fail(p, start, "invalid number");
	if (*q == '0') {
		q++;
		if (q < p->end && *q >= '0' && *q <= '9')
			return fail(p, start, "leading zeros are not allowed in numbers");
	} else {
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < p->end && *q == '.') {
		v->is_integer = 0;
		q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return fail(p, start, "a digit must follow the decimal point");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		v->is_integer = 0;
		q++;
		if (q < p->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return fail(p, start, "a digit must follow the exponent");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	len = (size_t)(q - start);
	if (len >= sizeof(tmp))
		return fail(p, start, "number too long");
	memcpy(tmp, start, len);
	tmp[len] = 0;
	errno = 0;
	v->num = strtod(tmp, &end);
	if (errno == ERANGE && (v->num > 1 || v->num < -1))
		return fail(p, start, "number out of range");
	v->type = GS_JSON_NUMBER;
	p->s = q;
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return fail(p, p->s, "unexpected '%.*s'",
			    (int)((size_t)(p->end - p->s) < n ? (size_t)(p->end - p->s) : n), p->s);
	p->s += n;
	return 0;
}

static int grow(struct gs_json *v, size_t *cap, int with_keys)
{
	size_t c = *cap ? *cap * 2 : 4;
	struct gs_json *items = realloc(v->items, c * sizeof(*items));

	if (!items)
		return GS_ENOMEM;
	v->items = items;
	if (with_keys) {
		char **keys = realloc(v->keys, c * sizeof(*keys));

		if (!keys)
			return GS_ENOMEM;
		v->keys = keys;
	}
	*cap = c;
	return 0;
}

/* Steps past a container's opening bracket; says whether close follows at once. */
static int opened_empty(struct parser *p, char close)
{
	p->s++;
	skip_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 1;
	}
	return 0;
}

/*
 * The value of container v's last item, then what follows it (what:
 * "array", "object"): 1 past the close, 0 past a comma and the space
 * after it, -1 on an error (p->rc).
 */
static int item_value(struct parser *p, struct gs_json *v, char close, const char *what)
{
	if (parse_value(p, &v->items[v->n - 1]))
		return -1;
	skip_ws(p);
	if (p->s >= p->end) {
		fail(p, p->s, "unterminated %s", what);
		return -1;
	}
	if (*p->s == close) {
		p->s++;
		return 1;
	}
	if (*p->s != ',') {
		fail(p, p->s, "expected ',' or '%c' in an %s, found '%c'", close, what, *p->s);
		return -1;
	}
	p->s++;
	skip_ws(p);
	return 0;
}

static int parse_array(struct parser *p, struct gs_json *v)
{
	size_t cap = 0;
	int more = 0;

	v->type = GS_JSON_ARRAY;
	if (opened_empty(p, ']'))
		return 0;
	while (!more) {
		if (v->n == cap && grow(v, &cap, 0))
			return p->rc = GS_ENOMEM;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;
		more = item_value(p, v, ']', "array");
		if (more < 0)
			return p->rc;
		if (!more && p->s < p->end && *p->s == ']')
			return fail(p, p->s, "trailing comma in an array");
	}
	return 0;
}

static int parse_object(struct parser *p, struct gs_json *v)
{
	size_t cap = 0, i;
	int more = 0;

	v->type = GS_JSON_OBJECT;
	if (opened_empty(p, '}'))
		return 0;
	while (!more) {
		const char *key_at = p->s;
		char *key;

		if (p->s >= p->end || *p->s != '"')
			return fail(p, p->s, p->s < p->end && *p->s == '}' ? "trailing comma in an object"
								     : "expected a quoted key");
		if (parse_string(p, &key))
			return p->rc;
		for (i = 0; i < v->n; i++) {
			if (!strcmp(v->keys[i], key)) {
				fail(p, key_at, "duplicate key \"%s\"", key);
				free(key);
				return GS_EPARSE;
			}
		}
		if (v->n == cap && grow(v, &cap, 1)) {
			free(key);
			return p->rc = GS_ENOMEM;
		}
		v->keys[v->n] = key;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;
		skip_ws(p);
		if (p->s >= p->end || *p->s != ':')
			return fail(p, p->s, "expected ':' after the key \"%s\"", key);
		p->s++;
		more = item_value(p, v, '}', "object");
		if (more < 0)
			return p->rc;
	}
	return 0;
}

static int parse_value(struct parser *p, struct gs_json *v)
{
	int rc;

	skip_ws(p);
	v->line = p->line;
	v->col = col_of(p, p->s);
	if (p->s >= p->end)
		return fail(p, p->s, "unexpected end of input");
	if (++p->depth > GS_JSON_MAX_DEPTH)
		return fail(p, p->s, "nested deeper than %d", GS_JSON_MAX_DEPTH);
	switch (*p->s) {
	case '{':
		rc = parse_object(p, v);
		break;
	case '[':
		rc = parse_array(p, v);
		break;
	case '"':
		v->type = GS_JSON_STRING;
		rc = parse_string(p, &v->str);
		break;
	case 't':
		v->type = GS_JSON_BOOL;
		v->boolean = 1;
		rc = literal(p, "true");
		break;
	case 'f':
		v->type = GS_JSON_BOOL;
		rc = literal(p, "false");
		break;
	case 'n':
		v->type = GS_JSON_NULL;
		rc = literal(p, "null");
		break;
	default:
		if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9'))
			rc = parse_number(p, v);
		else
			rc = fail(p, p->s, "unexpected '%c'", *p->s);
	}
	p->depth--;
	return rc;
}

int gs_bench_json_parse(const char *text, size_t len, struct gs_json *out, char *err,
			size_t err_len)
{
	struct parser p;
	struct gs_json v;

	memset(&p, 0, sizeof(p));
	memset(&v, 0, sizeof(v));
	p.text = text;
	p.s = text;
	p.end = text + len;
	p.line = 1;
	p.line_start = text;
	p.err = err;
	p.err_len = err_len;
	if (memchr(text, 0, len)) {
		snprintf(err, err_len, "line 1, column 1: the text contains a NUL byte");
		return GS_EPARSE;
	}
	if (parse_value(&p, &v) == 0) {
		skip_ws(&p);
		if (p.s < p.end)
			fail(&p, p.s, "unexpected '%c' after the value", *p.s);
	}
	if (p.rc) {
		gs_json_release(&v);
		if (p.rc == GS_ENOMEM)
			snprintf(err, err_len, "out of memory");
		return p.rc;
	}
	*out = v;
	return 0;
}

void gs_json_release(struct gs_json *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		gs_json_release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct gs_json *gs_json_get(const struct gs_json *v, const char *key)
{
	size_t i;

	if (v->type != GS_JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *gs_json_type_name(enum gs_json_type t)
{
	static const char *const names[] = { "null", "boolean", "number", "string", "array",
					     "object" };

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
