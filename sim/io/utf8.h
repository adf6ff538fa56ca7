/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.h - UTF-8 well-formedness, for the text gpusim reads and prints.
 *
 * Names and free text are refused at the reader when they are not UTF-8
 * (exit 2 naming file, line and field), so that every JSON document and
 * figure gpusim writes is valid; text that did not come through a reader
 * (a path, a database written by another program) is repaired where it is
 * printed as JSON (gs_utf8_repair()).
 */
#ifndef GS_UTF8_H
#define GS_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when s[0..len) is well-formed UTF-8 (RFC 3629): no overlong forms,
 * no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no cut sequence.
 */
bool gs_utf8_valid(const char *s, size_t len);

/*
 * The length of the well-formed sequence at s[0..len) (1 to 4), or 0 when
 * the bytes there do not start one.
 */
size_t gs_utf8_seq_len(const unsigned char *s, size_t len);

/*
 * A malloc'ed copy of the NUL-terminated s with each byte that does not
 * start a well-formed sequence replaced by U+FFFD (EF BF BD); NULL when
 * out of memory.
 */
char *gs_utf8_repair(const char *s);

#endif
