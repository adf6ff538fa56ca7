/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvline.h - the line format of benchmark results: a record type and
 * key=value pairs, one record per line.
 *
 *   # a comment
 *   run id=vecadd/exclusive/0 scenario=vecadd mode=exclusive device="NVIDIA H100 80GB HBM3"
 *
 * Keys are [a-z_][a-z0-9_]*. A value is either bare (printable ASCII
 * without blanks, quotes, '=' or '\') or double-quoted with \" \\ \n \t
 * escapes; the empty value is "". The CUDA clients print their report in
 * it, gpusim-bench writes its results in it, and `gpusim bench-import`
 * reads them: text that any GPU host can write without a library, and that
 * a person can read and grep.
 *
 * Ownership: a struct gs_kvline owns its strings (_parse/_release).
 */
#ifndef GS_KVLINE_H
#define GS_KVLINE_H

#include <stddef.h>
#include <stdio.h>

struct gs_kv {
	const char *key;
	const char *val;
};

struct gs_kvline {
	const char *type;      /* the first word: "run", "client", "report", ... */
	struct gs_kv *kv;
	size_t n;
	char *buf;             /* owns every string above */
};

/*
 * Parses one line (without or with its trailing newline). A blank line or
 * a comment gives type NULL and no pairs. Returns 0, GS_EPARSE with
 * "column C: what" in err (repeated keys are errors too), or GS_ENOMEM.
 */
int gs_kvline_parse(const char *line, struct gs_kvline *out, char *err, size_t err_len);
/* Frees what gs_kvline_parse() put in *l (its keys and values become invalid). */
void gs_kvline_release(struct gs_kvline *l);

/* The value of key, or NULL. */
const char *gs_kvline_get(const struct gs_kvline *l, const char *key);

/* Writes " key=value" to f, quoting the value when it needs quoting. */
void gs_kv_write(FILE *f, const char *key, const char *val);

/* gs_kv_write() of a printf-formatted value. */
void gs_kv_writef(FILE *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
