/* SPDX-License-Identifier: Apache-2.0 */
/*
 * csv.h - a small strict CSV reader for trace and cluster files.
 *
 * The openb files and gpusim's native CSV are plain comma-separated text:
 * no quoting, one record per line. This reader loads the whole file into
 * memory, splits it in place (no allocation per field) and keeps the file
 * name, the line number and the column names, so every error reads
 *
 *   pods.csv:1042: column gpu_milli: '12x' is not an integer
 *
 * (git style: lower case, no trailing period). It accepts LF or CRLF line
 * ends, a missing newline at the end, a UTF-8 byte order mark and empty
 * lines at the end of the file. An empty line anywhere else, a quote
 * character or a NUL byte is an error naming the line.
 *
 * Ownership: struct gs_csv is caller-owned (gs_csv_open*() / gs_csv_close());
 * it owns the file buffer, and the field pointers point into it, so they
 * stay valid until gs_csv_close(). The error buffer is borrowed.
 */
#ifndef GS_CSV_H
#define GS_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_CSV_MAX_FIELDS 32
#define GS_CSV_SHA256_HEX 65

struct gs_csv {
	char *buf;            /* whole file plus a NUL, split in place */
	size_t len;           /* bytes of file data in buf */
	size_t pos;           /* offset of the next unread line */
	char *name;           /* file name used in messages (owned copy) */
	long line;            /* 1-based line number of the current row */
	int n_fields;         /* fields in the current row (may exceed GS_CSV_MAX_FIELDS) */
	char *field[GS_CSV_MAX_FIELDS]; /* the first GS_CSV_MAX_FIELDS of them */
	const char *const *cols; /* column names for messages (borrowed), or NULL */
	int n_cols;
	char sha256[GS_CSV_SHA256_HEX]; /* of the bytes read, before splitting */
	char *err;            /* caller's message buffer */
	size_t err_len;
};

/*
 * Reads the file at path. Returns 0, GS_ENOENT (no such file) or GS_EIO
 * (any other failure to read, a directory) with "PATH: cannot open: REASON"
 * or "PATH: cannot read: REASON" in err, GS_EPARSE for a NUL byte ("PATH:
 * LINE: NUL byte in a line ...", found while reading, so an endless
 * /dev/zero stops at once) or more than GS_INPUT_MAX_BYTES, or GS_ENOMEM
 * ("PATH: out of memory"). Every failure leaves a message. On failure r
 * needs no gs_csv_close() (calling it is harmless).
 */
int gs_csv_open(struct gs_csv *r, const char *path, char *err, size_t err_len);

/*
 * gs_csv_open() without the checksum (r->sha256 stays empty), for readers
 * that record none: hashing is a third of the time of reading a large
 * table (gpusim convert).
 */
int gs_csv_open_unhashed(struct gs_csv *r, const char *path, char *err, size_t err_len);

/*
 * Like gs_csv_open() on a copy of len bytes of data, reported as `name`.
 * Returns 0 or GS_ENOMEM ("NAME: out of memory"). A NUL byte is kept (the
 * readers refuse it with its line). For tests and for data that is not in
 * a file.
 */
int gs_csv_open_mem(struct gs_csv *r, const char *name, const char *data, size_t len,
		    char *err, size_t err_len);

/* Frees r's buffer; harmless on a reader whose open failed or that was closed. */
void gs_csv_close(struct gs_csv *r);

/*
 * Moves to the next record. Returns 1 when a record is available (fields in
 * r->field, r->n_fields, r->line), 0 at the end of the data, or GS_EPARSE
 * with a message (empty line in the middle, quote character, NUL byte).
 */
int gs_csv_next(struct gs_csv *r);

/* Sets the column names used in messages; names[i] names field i. */
void gs_csv_set_columns(struct gs_csv *r, const char *const *names, int n);

/* True when the current record is exactly the n given names. */
bool gs_csv_row_is(const struct gs_csv *r, const char *const *names, int n);

/* True when text is one line without commas or control characters (a free-text field). */
bool gs_csv_plain_text(const char *text);

/*
 * Reads the header, which must be exactly the n names, and makes them the
 * column names. Returns 1 (positioned before the first data record), or
 * GS_EPARSE with "FILE: empty file" or "FILE:1: unrecognised header; WHAT
 * starts with 'a,b,...'" (what: "a busy distribution", say).
 */
int gs_csv_header(struct gs_csv *r, const char *const *names, int n, const char *what);

/*
 * Returns 0 when the current record has n fields, otherwise GS_EPARSE with
 * "FILE:LINE: expected N columns, found M".
 */
int gs_csv_expect_fields(struct gs_csv *r, int n);

/*
 * Parses field col as a decimal integer in [min, max]: an optional '-' and
 * digits only (no spaces, no '+', no fraction). On success stores it in
 * *out and returns 0; otherwise leaves *out alone and returns GS_EPARSE
 * with one of
 *   FILE:LINE: column NAME: 'VALUE' is not an integer
 *   FILE:LINE: column NAME: 'VALUE' is negative            (min == 0)
 *   FILE:LINE: column NAME: 'VALUE' is less than MIN       (min != 0)
 *   FILE:LINE: column NAME: 'VALUE' is greater than MAX
 *   FILE:LINE: column NAME: 'VALUE' is out of range        (beyond int64)
 */
int gs_csv_int(struct gs_csv *r, int col, int64_t min, int64_t max, int64_t *out);

/* Like gs_csv_int(), but an empty field stores dflt and succeeds. */
int gs_csv_int_opt(struct gs_csv *r, int col, int64_t min, int64_t max, int64_t dflt,
		   int64_t *out);

/*
 * True when s is a plain decimal number: an optional '-', digits with an
 * optional fraction (a digit before or after the point), an optional
 * exponent; no blank, '+', hexadecimal, inf or nan. The syntax every
 * decimal gpusim reads (options, converted traces) is held to.
 */
bool gs_csv_decimal_ok(const char *s);

/*
 * The current record joined with commas again into buf (len bytes), cut
 * with "..." when it does not fit: for messages quoting a header. Returns buf.
 */
const char *gs_csv_row_text(const struct gs_csv *r, char *buf, size_t len);

/*
 * Parses field col as a plain decimal number (digits, one optional '.'
 * followed by digits; no sign, exponent or spaces) in [min, max]. On
 * success stores it in *out and returns 0; otherwise returns GS_EPARSE with
 * "FILE:LINE: column NAME: 'VALUE' is not a decimal number", "... is less
 * than MIN" or "... is greater than MAX".
 */
int gs_csv_decimal(struct gs_csv *r, int col, double min, double max, double *out);

/*
 * Writes "FILE:LINE: column NAME: " (col >= 0) or "FILE:LINE: " (col < 0)
 * followed by the formatted text into the error buffer, and returns
 * GS_EPARSE. Use gs_csv_quote() to show field values.
 */
int gs_csv_errorf(struct gs_csv *r, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Writes "FILE: " and the formatted text (no line number) and returns
 * GS_EPARSE: for errors about the whole file, such as "empty file".
 */
int gs_csv_file_errorf(struct gs_csv *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Replaces every control character left in a finished message with '?',
 * so that no message spans lines or moves the terminal's cursor, whatever
 * a value held. Every error function here and in the trace readers calls
 * it; values should still be shown with gs_csv_quote(), which escapes.
 */
void gs_csv_msg_clean(char *msg);

/*
 * A field value made fit for a one-line message: control characters
 * escaped (\t, \n, \r, \xHH), cut after 60 bytes with "..." appended.
 * buf should hold 80 bytes. Returns buf.
 */
const char *gs_csv_quote(const char *value, char *buf, size_t buf_len);

#endif
