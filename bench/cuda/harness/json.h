/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.h - a small, strict JSON reader for the benchmark scenarios.
 *
 * The harness must build on GPU hosts that have a C compiler and the CUDA
 * toolkit but none of the -dev packages the simulator uses (cJSON among
 * them), so it carries its own reader. It accepts exactly RFC 8259 JSON:
 * no comments, no trailing commas, no single quotes, no NaN; duplicate
 * object keys, control characters in strings, invalid escapes, invalid
 * UTF-16 surrogates and trailing text are errors. Every value remembers
 * the line and column where it starts, so that the scenario checks can say
 * where a bad field is.
 *
 * Ownership: gs_bench_json_parse() fills a caller-owned root; everything
 * below it is owned by the root and freed by gs_json_release(root). (The
 * parser is named apart from io/trace's cJSON-based gs_json_parse().)
 */
#ifndef GS_BENCH_JSON_H
#define GS_BENCH_JSON_H

#include <stddef.h>

#define GS_JSON_MAX_DEPTH 64

enum gs_json_type {
	GS_JSON_NULL,
	GS_JSON_BOOL,
	GS_JSON_NUMBER,
	GS_JSON_STRING,
	GS_JSON_ARRAY,
	GS_JSON_OBJECT,
};

struct gs_json {
	enum gs_json_type type;
	int line, col;            /* 1-based position of the value's first character */
	int boolean;              /* GS_JSON_BOOL */
	double num;               /* GS_JSON_NUMBER */
	int is_integer;           /* GS_JSON_NUMBER written without fraction or exponent */
	char *str;                /* GS_JSON_STRING, UTF-8, no embedded NUL */
	struct gs_json *items;    /* GS_JSON_ARRAY elements, GS_JSON_OBJECT values */
	char **keys;              /* GS_JSON_OBJECT keys, parallel to items */
	size_t n;                 /* number of items */
};

/*
 * Parses len bytes of text into *out. Returns 0, GS_EPARSE with
 * "line L, column C: what" in err, or GS_ENOMEM. *out needs
 * gs_json_release() only on success.
 */
int gs_bench_json_parse(const char *text, size_t len, struct gs_json *out, char *err,
			size_t err_len);

/* Frees every value under v and zeroes it (v itself is the caller's); a zeroed v is a no-op. */
void gs_json_release(struct gs_json *v);

/* The value of key in an object, or NULL (also when v is not an object). */
const struct gs_json *gs_json_get(const struct gs_json *v, const char *key);

/* "object", "string", ...: for messages. */
const char *gs_json_type_name(enum gs_json_type t);

#endif
