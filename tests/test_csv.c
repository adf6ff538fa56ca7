/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_csv.c - the strict CSV reader: splitting, line ends, line numbers,
 * every error with its exact message, and strict integer parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/csv.h"
#include "core/error.h"
#include "tmpdir.h"

static char err[512];

static void open_str(struct gs_csv *r, const char *text)
{
	assert_int_equal(gs_csv_open_mem(r, "t.csv", text, strlen(text), err, sizeof(err)), 0);
}

static void test_split(void **state)
{
	struct gs_csv r;

	(void)state;
	open_str(&r, "a,b,c\n1,,3\n");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(r.line, 1);
	assert_int_equal(r.n_fields, 3);
	assert_string_equal(r.field[0], "a");
	assert_string_equal(r.field[2], "c");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(r.line, 2);
	assert_int_equal(r.n_fields, 3);
	assert_string_equal(r.field[0], "1");
	assert_string_equal(r.field[1], "");
	assert_string_equal(r.field[2], "3");
	assert_int_equal(gs_csv_next(&r), 0);
	assert_int_equal(gs_csv_next(&r), 0);
	gs_csv_close(&r);
}

/* CRLF, no final newline, trailing empty lines and a byte order mark. */
static void test_line_ends(void **state)
{
	static const char *const texts[] = {
		"h,i\r\n1,2\r\n",
		"h,i\n1,2",
		"h,i\r\n1,2",
		"h,i\n1,2\n\n\n",
		"h,i\r\n1,2\r\n\r\n\n",
		"\xef\xbb\xbfh,i\n1,2\n",
	};
	static const char *const hdr[] = { "h", "i" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct gs_csv r;

		open_str(&r, texts[i]);
		assert_int_equal(gs_csv_next(&r), 1);
		assert_true(gs_csv_row_is(&r, hdr, 2));
		assert_int_equal(gs_csv_next(&r), 1);
		assert_int_equal(r.n_fields, 2);
		assert_string_equal(r.field[1], "2");
		assert_int_equal(r.line, 2);
		assert_int_equal(gs_csv_next(&r), 0);
		gs_csv_close(&r);
	}
}

static void expect_next_error(const char *text, int good_rows, const char *msg)
{
	struct gs_csv r;
	int i;

	open_str(&r, text);
	for (i = 0; i < good_rows; i++)
		assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_next(&r), GS_EPARSE);
	assert_string_equal(err, msg);
	gs_csv_close(&r);
}

static void test_bad_lines(void **state)
{
	(void)state;
	expect_next_error("a,b\n\n1,2\n", 1, "t.csv:2: empty line (only the end of the file may "
					    "have them)");
	expect_next_error("a,b\r\n\r\n1,2\r\n", 1, "t.csv:2: empty line (only the end of the "
						  "file may have them)");
	expect_next_error("a,b\n1,\"x,y\"\n", 1, "t.csv:2: column 2: '\"x' has a quote "
						 "character; quoted fields are not supported");
	{
		static const char text[] = "a,b\n1,2\n3\0004,5\n";
		struct gs_csv r;

		assert_int_equal(gs_csv_open_mem(&r, "t.csv", text, sizeof(text) - 1, err,
						 sizeof(err)), 0);
		assert_int_equal(gs_csv_next(&r), 1);
		assert_int_equal(gs_csv_next(&r), 1);
		assert_int_equal(gs_csv_next(&r), GS_EPARSE);
		assert_string_equal(err, "t.csv:3: NUL byte in a line (is this a text file?)");
		gs_csv_close(&r);
	}
}

static void test_column_names(void **state)
{
	static const char *const cols[] = { "name", "gpu_milli" };
	struct gs_csv r;
	int64_t v = 7;

	(void)state;
	open_str(&r, "name,gpu_milli\np,12x\np,1\n");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_int(&r, 1, 0, 1000, &v), GS_EPARSE);
	assert_string_equal(err, "t.csv:2: column 2: '12x' is not an integer");
	assert_int_equal(v, 7);
	gs_csv_set_columns(&r, cols, 2);
	assert_int_equal(gs_csv_int(&r, 1, 0, 1000, &v), GS_EPARSE);
	assert_string_equal(err, "t.csv:2: column gpu_milli: '12x' is not an integer");
	assert_int_equal(gs_csv_expect_fields(&r, 2), 0);
	assert_int_equal(gs_csv_expect_fields(&r, 11), GS_EPARSE);
	assert_string_equal(err, "t.csv:2: expected 11 columns, found 2");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_int(&r, 1, 0, 1000, &v), 0);
	assert_int_equal(v, 1);
	gs_csv_close(&r);
}

/*
 * Parses value as the first field of line 2 with the given bounds. A second
 * column keeps an empty value from making the line empty.
 */
static int parse_one(const char *value, int64_t min, int64_t max, int64_t *out)
{
	static const char *const cols[] = { "v", "w" };
	char text[128];
	struct gs_csv r;
	int rc;

	snprintf(text, sizeof(text), "v,w\n%s,x\n", value);
	open_str(&r, text);
	gs_csv_set_columns(&r, cols, 2);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_next(&r), 1);
	rc = gs_csv_int(&r, 0, min, max, out);
	gs_csv_close(&r);
	return rc;
}

static void expect_int_error(const char *value, int64_t min, int64_t max, const char *msg)
{
	char full[256];
	int64_t v = 12345;

	assert_int_equal(parse_one(value, min, max, &v), GS_EPARSE);
	snprintf(full, sizeof(full), "t.csv:2: column v: %s", msg);
	assert_string_equal(err, full);
	assert_int_equal(v, 12345);
}

static void test_integers(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(parse_one("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_one("1000", 0, 1000, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(parse_one("-3", -5, 5, &v), 0);
	assert_int_equal(v, -3);
	assert_int_equal(parse_one("007", 0, 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_one("9223372036854775807", 0, INT64_MAX, &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(parse_one("-9223372036854775808", INT64_MIN, 0, &v), 0);
	assert_true(v == INT64_MIN);

	expect_int_error("12x", 0, 1000, "'12x' is not an integer");
	expect_int_error("", 0, 1000, "'' is not an integer");
	expect_int_error(" 5", 0, 1000, "' 5' is not an integer");
	expect_int_error("5 ", 0, 1000, "'5 ' is not an integer");
	expect_int_error("+5", 0, 1000, "'+5' is not an integer");
	expect_int_error("-", 0, 1000, "'-' is not an integer");
	expect_int_error("0x10", 0, 1000, "'0x10' is not an integer");
	expect_int_error("1e3", 0, 1000, "'1e3' is not an integer");
	expect_int_error("1.5", 0, 1000, "'1.5' is not an integer");
	expect_int_error("-5", 0, 1000, "'-5' is negative");
	expect_int_error("-6", -5, 5, "'-6' is less than -5");
	expect_int_error("1001", 0, 1000, "'1001' is greater than 1000");
	expect_int_error("99999999999999999999", 0, INT64_MAX,
			 "'99999999999999999999' is out of range");
	expect_int_error("-99999999999999999999", INT64_MIN, 0,
			 "'-99999999999999999999' is out of range");
}

static void test_int_opt(void **state)
{
	static const char *const cols[] = { "a", "b" };
	struct gs_csv r;
	int64_t v = 0;

	(void)state;
	open_str(&r, "a,b\n,5\n");
	gs_csv_set_columns(&r, cols, 2);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_int_opt(&r, 0, 0, 10, -1, &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(gs_csv_int_opt(&r, 1, 0, 10, -1, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(gs_csv_int_opt(&r, 1, 0, 4, -1, &v), GS_EPARSE);
	assert_string_equal(err, "t.csv:2: column b: '5' is greater than 4");
	gs_csv_close(&r);
}

static void test_long_value_is_shortened(void **state)
{
	char text[300], want[200];
	struct gs_csv r;
	int64_t v;

	(void)state;
	memset(text, 0, sizeof(text));
	strcpy(text, "v\n");
	memset(text + 2, 'z', 100);
	strcat(text, "\n");
	open_str(&r, text);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_int(&r, 0, 0, 10, &v), GS_EPARSE);
	snprintf(want, sizeof(want), "t.csv:2: column 1: '%.60s...' is not an integer", text + 2);
	assert_string_equal(err, want);
	gs_csv_close(&r);
}

static void test_errorf(void **state)
{
	struct gs_csv r;

	(void)state;
	open_str(&r, "a\n1\n");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_int_equal(gs_csv_errorf(&r, -1, "bad %s", "thing"), GS_EPARSE);
	assert_string_equal(err, "t.csv:1: bad thing");
	assert_int_equal(gs_csv_file_errorf(&r, "empty file"), GS_EPARSE);
	assert_string_equal(err, "t.csv: empty file");
	gs_csv_close(&r);
}

static int make_dir(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-csv");
}

static void test_files(void **state)
{
	const char *dir = gs_test_tmpdir();
	char path[256], want[512];
	struct gs_csv r;

	(void)state;
	gs_test_path("missing.csv", path, sizeof(path));
	assert_int_equal(gs_csv_open(&r, path, err, sizeof(err)), GS_ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);

	/* A directory opens but cannot be read. */
	assert_int_equal(gs_csv_open(&r, dir, err, sizeof(err)), GS_EIO);
	snprintf(want, sizeof(want), "%s: cannot read: %s", dir, strerror(EISDIR));
	assert_string_equal(err, want);

	gs_test_write("ok.csv", "abc", path, sizeof(path));
	assert_int_equal(gs_csv_open(&r, path, err, sizeof(err)), 0);
	/* sha256sum of the three bytes "abc" (FIPS 180-4 example). */
	assert_string_equal(r.sha256,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(gs_csv_next(&r), 1);
	assert_string_equal(r.field[0], "abc");
	assert_int_equal(gs_csv_next(&r), 0);
	gs_csv_close(&r);
	gs_csv_close(&r); /* harmless twice */
}

static void test_empty_data(void **state)
{
	struct gs_csv r;

	(void)state;
	open_str(&r, "");
	assert_int_equal(gs_csv_next(&r), 0);
	gs_csv_close(&r);
	open_str(&r, "\n\n");
	assert_int_equal(gs_csv_next(&r), 0);
	gs_csv_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_column_names),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_int_opt),
		cmocka_unit_test(test_long_value_is_shortened),
		cmocka_unit_test(test_errorf),
		GS_TMPDIR_TEST(test_files, make_dir),
		cmocka_unit_test(test_empty_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
