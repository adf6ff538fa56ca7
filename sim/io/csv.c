/* SPDX-License-Identifier: Apache-2.0 */
/*
 * csv.c - the strict CSV reader of csv.h.
 *
 * The whole file is read at once: trace files are a few hundred KiB, and
 * one buffer split in place lets a reader parse the 8152-pod openb trace
 * without an allocation per field. The checksum is taken from the same
 * buffer before it is split, so the file is read from disk only once.
 */
#include "io/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"
#include "core/mem.h"
#include "io/sha256.h"

static void csv_zero(struct gs_csv *r, char *err, size_t err_len)
{
	memset(r, 0, sizeof(*r));
	r->err = err;
	r->err_len = err_len;
	if (err && err_len)
		err[0] = '\0';
}

/* Takes ownership of buf (len bytes of data plus room for a NUL); hashes it unless !hash. */
static int csv_start(struct gs_csv *r, const char *name, char *buf, size_t len, bool hash)
{
	r->name = strdup(name);
	if (!r->name) {
		free(buf);
		return GS_ENOMEM;
	}
	buf[len] = '\0';
	r->buf = buf;
	r->len = len;
	if (hash)
		gs_sha256_hex(buf, len, r->sha256);
	/* Spreadsheets like to start UTF-8 files with a byte order mark. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		r->pos = 3;
	return 0;
}

/* "FILE:LINE: NUL byte ..." for a NUL at offset off of buf. */
static int nul_error(const char *path, const char *buf, size_t off, char *err, size_t err_len)
{
	long line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		line += buf[i] == '\n';
	snprintf(err, err_len, "%s:%ld: NUL byte in a line (is this a text file?)", path, line);
	return GS_EPARSE;
}

static int open_file(struct gs_csv *r, const char *path, char *err, size_t err_len, bool hash)
{
	struct stat st;
	size_t cap, ncap, len = 0;
	char *buf, *nbuf, *nul;
	FILE *f;
	int saved, rc;

	csv_zero(r, err, err_len);
	f = fopen(path, "rb");
	if (!f) {
		saved = errno;
		snprintf(err, err_len, "%s: cannot open: %s", path, strerror(saved));
		return saved == ENOENT ? GS_ENOENT : GS_EIO;
	}
	/* The size is only a hint: pipes and /proc files report 0. */
	cap = 65536;
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "%s: cannot read: Is a directory", path);
			fclose(f);
			return GS_EIO;
		}
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)GS_INPUT_MAX_BYTES)
			goto too_large;
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			cap = (size_t)st.st_size + 1;
	}
	buf = malloc(cap + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, err_len, "%s: out of memory", path);
		return GS_ENOMEM;
	}
	for (;;) {
		/* Never more than one byte past the limit, whatever the capacity. */
		size_t want = cap - len < GS_INPUT_MAX_BYTES + 1 - len ? cap - len :
			      GS_INPUT_MAX_BYTES + 1 - len;
		size_t n = fread(buf + len, 1, want, f);

		/*
		 * A text file has no NUL byte: stop at the first one rather than
		 * read on (/dev/zero never ends).
		 */
		if (n && (nul = memchr(buf + len, '\0', n))) {
			rc = nul_error(path, buf, (size_t)(nul - buf), err, err_len);
			free(buf);
			fclose(f);
			return rc;
		}
		len += n;
		if (len > GS_INPUT_MAX_BYTES) {
			free(buf);
			goto too_large;
		}
		if (n < want) {
			if (ferror(f)) {
				saved = errno;
				snprintf(err, err_len, "%s: cannot read: %s", path,
					 strerror(saved ? saved : EIO));
				free(buf);
				fclose(f);
				return GS_EIO;
			}
			break;
		}
		/* cap bytes of data and one for the terminating NUL. */
		ncap = gs_grow_cap(cap, 0);
		nbuf = ncap ? gs_realloc_n(buf, ncap + 1, 1) : NULL;
		if (!nbuf) {
			free(buf);
			fclose(f);
			snprintf(err, err_len, "%s: out of memory", path);
			return GS_ENOMEM;
		}
		buf = nbuf;
		cap = ncap;
	}
	fclose(f);
	rc = csv_start(r, path, buf, len, hash);
	if (rc)
		snprintf(err, err_len, "%s: out of memory", path);
	return rc;
too_large:
	fclose(f);
	snprintf(err, err_len, "%s: larger than %zu MiB, the most gpusim reads from one file",
		 path, GS_INPUT_MAX_BYTES >> 20);
	return GS_EPARSE;
}

int gs_csv_open(struct gs_csv *r, const char *path, char *err, size_t err_len)
{
	return open_file(r, path, err, err_len, true);
}

int gs_csv_open_unhashed(struct gs_csv *r, const char *path, char *err, size_t err_len)
{
	return open_file(r, path, err, err_len, false);
}

int gs_csv_open_mem(struct gs_csv *r, const char *name, const char *data, size_t len,
		    char *err, size_t err_len)
{
	char *buf;

	csv_zero(r, err, err_len);
	buf = malloc(len + 1);
	if (buf && len)
		memcpy(buf, data, len);
	/* csv_start() frees buf when it fails. */
	if (!buf || csv_start(r, name, buf, len, true)) {
		snprintf(err, err_len, "%s: out of memory", name);
		return GS_ENOMEM;
	}
	return 0;
}

void gs_csv_close(struct gs_csv *r)
{
	GS_MEM_FREE(r->buf, r->name);
	r->buf = NULL;
	r->name = NULL;
	r->len = r->pos = 0;
	r->n_fields = 0;
}

void gs_csv_set_columns(struct gs_csv *r, const char *const *names, int n)
{
	r->cols = names;
	r->n_cols = n;
}

const char *gs_csv_quote(const char *value, char *buf, size_t buf_len)
{
	size_t in, out = 0;

	if (buf_len < 8) {
		if (buf_len)
			buf[0] = '\0';
		return buf;
	}
	/* Control characters are shown escaped, so a message stays on one line. */
	for (in = 0; value[in] && in < 60 && out + 5 < buf_len; in++) {
		unsigned char ch = (unsigned char)value[in];

		if (ch == '\t' || ch == '\n' || ch == '\r') {
			buf[out++] = '\\';
			buf[out++] = ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r';
		} else if (ch < 0x20 || ch == 0x7f) {
			snprintf(buf + out, buf_len - out, "\\x%02x", ch);
			out += 4;
		} else {
			buf[out++] = (char)ch;
		}
	}
	if (value[in] && out + 4 <= buf_len) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out] = '\0';
	return buf;
}

__attribute__((format(printf, 3, 0))) static void vput(struct gs_csv *r, size_t off,
							 const char *fmt, va_list ap)
{
	if (!r->err || off >= r->err_len)
		return;
	vsnprintf(r->err + off, r->err_len - off, fmt, ap);
}

static size_t put_prefix(struct gs_csv *r, int col)
{
	int n;

	if (!r->err || !r->err_len)
		return 0;
	if (col < 0)
		n = snprintf(r->err, r->err_len, "%s:%ld: ", r->name, r->line);
	else if (r->cols && col < r->n_cols)
		n = snprintf(r->err, r->err_len, "%s:%ld: column %s: ", r->name, r->line,
			     r->cols[col]);
	else
		n = snprintf(r->err, r->err_len, "%s:%ld: column %d: ", r->name, r->line, col + 1);
	return n < 0 ? 0 : (size_t)n;
}

void gs_csv_msg_clean(char *msg)
{
	/* Values are quoted with gs_csv_quote(); this catches any that were not. */
	for (; *msg; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			*msg = '?';
}

int gs_csv_errorf(struct gs_csv *r, int col, const char *fmt, ...)
{
	size_t off = put_prefix(r, col);
	va_list ap;

	va_start(ap, fmt);
	vput(r, off, fmt, ap);
	va_end(ap);
	if (r->err && r->err_len)
		gs_csv_msg_clean(r->err);
	return GS_EPARSE;
}

int gs_csv_file_errorf(struct gs_csv *r, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (r->err && r->err_len)
		n = snprintf(r->err, r->err_len, "%s: ", r->name);
	va_start(ap, fmt);
	vput(r, n < 0 ? 0 : (size_t)n, fmt, ap);
	va_end(ap);
	if (r->err && r->err_len)
		gs_csv_msg_clean(r->err);
	return GS_EPARSE;
}

/* True when only line ends remain from offset pos on. */
static bool only_newlines(const struct gs_csv *r, size_t pos)
{
	for (; pos < r->len; pos++)
		if (r->buf[pos] != '\n' && r->buf[pos] != '\r')
			return false;
	return true;
}

int gs_csv_next(struct gs_csv *r)
{
	char *p, *eol, *nl, *end, *q;
	char vbuf[80];
	int n;

	r->n_fields = 0;
	if (r->pos >= r->len)
		return 0;
	p = r->buf + r->pos;
	end = r->buf + r->len;
	nl = memchr(p, '\n', (size_t)(end - p));
	eol = nl ? nl : end;
	r->pos = nl ? (size_t)(nl - r->buf) + 1 : r->len;
	r->line++;
	if (eol > p && eol[-1] == '\r')
		eol--;
	if (eol == p) {
		if (only_newlines(r, r->pos)) {
			r->pos = r->len;
			return 0;
		}
		return gs_csv_errorf(r, -1, "empty line (only the end of the file may have them)");
	}
	if (memchr(p, '\0', (size_t)(eol - p)))
		return gs_csv_errorf(r, -1, "NUL byte in a line (is this a text file?)");
	*eol = '\0';

	n = 0;
	r->field[n++] = p;
	for (q = p; *q; q++) {
		if (*q == ',') {
			*q = '\0';
			if (n < GS_CSV_MAX_FIELDS)
				r->field[n] = q + 1;
			n++;
		} else if (*q == '"') {
			/* Cut out this field alone to show it in the message. */
			char *f = q, *fend = strchr(q, ',');
			int col = n - 1;

			while (f > p && f[-1] != '\0')
				f--;
			if (fend)
				*fend = '\0';
			r->n_fields = n;
			return gs_csv_errorf(r, col, "'%s' has a quote character; quoted fields "
					     "are not supported",
					     gs_csv_quote(f, vbuf, sizeof(vbuf)));
		}
	}
	r->n_fields = n;
	return 1;
}

bool gs_csv_row_is(const struct gs_csv *r, const char *const *names, int n)
{
	int i;

	if (r->n_fields != n || n > GS_CSV_MAX_FIELDS)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(r->field[i], names[i]) != 0)
			return false;
	return true;
}

bool gs_csv_plain_text(const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == ',')
			return false;
	return true;
}

int gs_csv_header(struct gs_csv *r, const char *const *names, int n, const char *what)
{
	char want[512];
	size_t used = 0;
	int i, rc = gs_csv_next(r);

	if (rc == 0)
		return gs_csv_file_errorf(r, "empty file");
	if (rc == 1 && !gs_csv_row_is(r, names, n)) {
		want[0] = '\0';
		for (i = 0; i < n && used < sizeof(want); i++)
			used += (size_t)snprintf(want + used, sizeof(want) - used, "%s%s",
						 i ? "," : "", names[i]);
		return gs_csv_errorf(r, -1, "unrecognised header; %s starts with '%s'", what, want);
	}
	if (rc == 1)
		gs_csv_set_columns(r, names, n);
	return rc;
}

int gs_csv_expect_fields(struct gs_csv *r, int n)
{
	if (r->n_fields == n)
		return 0;
	return gs_csv_errorf(r, -1, "expected %d columns, found %d", n, r->n_fields);
}

int gs_csv_int(struct gs_csv *r, int col, int64_t min, int64_t max, int64_t *out)
{
	const char *s = r->field[col];
	char vbuf[80];
	char *end;
	long long v;

	/* strtoll() alone would accept leading spaces and a '+'. */
	if (*s != '-' && (*s < '0' || *s > '9'))
		goto not_int;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end)
		goto not_int;
	if (errno == ERANGE)
		return gs_csv_errorf(r, col, "'%s' is out of range",
				     gs_csv_quote(s, vbuf, sizeof(vbuf)));
	if (v < min) {
		if (min == 0)
			return gs_csv_errorf(r, col, "'%s' is negative", s);
		return gs_csv_errorf(r, col, "'%s' is less than %" PRId64, s, min);
	}
	if (v > max)
		return gs_csv_errorf(r, col, "'%s' is greater than %" PRId64, s, max);
	*out = v;
	return 0;
not_int:
	return gs_csv_errorf(r, col, "'%s' is not an integer", gs_csv_quote(s, vbuf, sizeof(vbuf)));
}

int gs_csv_int_opt(struct gs_csv *r, int col, int64_t min, int64_t max, int64_t dflt,
		   int64_t *out)
{
	if (r->field[col][0] == '\0') {
		*out = dflt;
		return 0;
	}
	return gs_csv_int(r, col, min, max, out);
}

bool gs_csv_decimal_ok(const char *s)
{
	bool digits = false;

	if (*s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

const char *gs_csv_row_text(const struct gs_csv *r, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->n_fields && i < GS_CSV_MAX_FIELDS && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? "," : "", r->field[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

int gs_csv_decimal(struct gs_csv *r, int col, double min, double max, double *out)
{
	const char *s = r->field[col];
	size_t digits = strspn(s, "0123456789");
	char vbuf[80];
	double v;

	if (digits == 0 || (s[digits] && (s[digits] != '.' || !s[digits + 1] ||
					   strspn(s + digits + 1, "0123456789") !=
					   strlen(s + digits + 1))))
		return gs_csv_errorf(r, col, "'%s' is not a decimal number",
				     gs_csv_quote(s, vbuf, sizeof(vbuf)));
	v = strtod(s, NULL);
	if (v < min)
		return gs_csv_errorf(r, col, "'%s' is less than %g", gs_csv_quote(s, vbuf,
				     sizeof(vbuf)), min);
	if (v > max)
		return gs_csv_errorf(r, col, "'%s' is greater than %g", gs_csv_quote(s, vbuf,
				     sizeof(vbuf)), max);
	*out = v;
	return 0;
}
