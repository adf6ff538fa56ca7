/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strbuf.h - a growing NUL-terminated string for text built piece by
 * piece (SQL statements with a table's columns, the grouping keys of pods).
 * Running out of memory is sticky: later appends do nothing and the
 * builder checks oom once, when the text is complete.
 *
 * Ownership: s belongs to the buffer (NULL until the first append) and is
 * freed by gs_strbuf_release(). A zeroed struct is an empty buffer.
 */
#ifndef GS_STRBUF_H
#define GS_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct gs_strbuf {
	char *s;
	size_t len, cap;   /* bytes of text (without the NUL), bytes allocated */
	bool oom;          /* an append failed: the text is incomplete */
};

/* Appends printf-style text to b; on failure sets b->oom and keeps the text b had. */
void gs_strbuf_addf(struct gs_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Empties b's text, keeping its memory (and its oom flag) for the next key. */
void gs_strbuf_reset(struct gs_strbuf *b);

/* Frees b's text and leaves b an empty buffer. */
void gs_strbuf_release(struct gs_strbuf *b);

#endif
