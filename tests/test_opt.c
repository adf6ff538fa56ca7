/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_opt.c - the table-driven option parser (cli/opt.h) on a made-up
 * command: values and their ranges, the strict number syntax, lists,
 * conflicts, required options, defaults, operands and --help; a list
 * that takes the arguments after it (GS_OPT_MULTI).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cli/opt.h"

struct args {
	const char *in, *name, *file;
	bool verbose;
	int color, level;
	int64_t count;
	uint64_t seed;
	double ratio;
	struct gs_opt_list tags;
};

static const struct gs_opt_choice levels[] = { { "low", 1 }, { "mid", 2 }, { "high", 3 }, { NULL, 0 } };

#define S struct args
static const struct gs_opt opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	{ GS_OPT_STRING_AT(S, in), .name = "in", .short_name = 'i', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "the input" },
	{ GS_OPT_STRING_AT(S, name), .name = "name", .arg = "NAME", .def = "anon", .help = "a name" },
	{ GS_OPT_FLAG_AT(S, verbose), .name = "verbose", .short_name = 'v', .help = "talk" },
	{ GS_OPT_SET_AT(S, color, 1), .name = "color", .conflicts = "no-color", .help = "colour" },
	{ GS_OPT_SET_AT(S, color, 0), .name = "no-color", .help = "no colour" },
	{ GS_OPT_INT_AT(S, count, 1, 10), .name = "count", .short_name = 'c', .arg = "N",
	  .def = "3", .help = "how many" },
	{ GS_OPT_UINT_AT(S, seed, UINT64_MAX), .name = "seed", .arg = "N", .requires = "verbose",
	  .help = "seed" },
	{ GS_OPT_DOUBLE_AT(S, ratio, 0, INFINITY), .flags = GS_OPT_GT_MIN, .name = "ratio",
	  .arg = "X", .help = "ratio" },
	{ GS_OPT_ENUM_AT(S, level, levels), .name = "level", .arg = "L", .def = "mid",
	  .help = "level" },
	{ GS_OPT_LIST_AT(S, tags, 3), .name = "tags", .arg = "LIST", .help = "tags" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec cmd = {
	.name = "try",
	.intro = "Tries options.\n",
	.outro = "The end.\n",
	.opts = opts,
	.operand = "FILE",
	.operand_offset = offsetof(struct args, file),
};

/* Parses the words of line (space-separated) into a; returns -1 or 0, *status set.
 * The words stay valid until the next call, as argv does for a command. */
static int parse(const char *line, struct args *a, int *status)
{
	static char buf[512];
	char *argv[32], *save = NULL, *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "try %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	memset(a, 0, sizeof(*a));
	a->color = -1;
	return gs_opt_parse(&cmd, argc, argv, a, status);
}

static void expect_usage_error(const char *line)
{
	struct args a;
	int status = -7;

	if (parse(line, &a, &status) != -1 || status != 2)
		fail_msg("'%s' was not refused with status 2 (status %d)", line, status);
	assert_null(a.tags.v);
}

static void test_values_and_defaults(void **state)
{
	struct args a;
	int status = -7;

	(void)state;
	assert_int_equal(parse("-i x.csv -v --count 10 --seed 18446744073709551615 --ratio 2.5e-1 "
			       "--tags a,b,c --color f", &a, &status), 0);
	assert_int_equal(status, 0);
	assert_string_equal(a.in, "x.csv");
	assert_string_equal(a.name, "anon");  /* the default, parsed */
	assert_true(a.verbose);
	assert_int_equal(a.color, 1);
	assert_int_equal(a.count, 10);
	assert_true(a.seed == UINT64_MAX);
	assert_true(a.ratio == 0.25);
	assert_int_equal(a.level, 2);
	assert_int_equal(a.tags.n, 3);
	assert_string_equal(a.tags.v[2], "c");
	assert_string_equal(a.file, "f");
	gs_opt_release(&cmd, &a);
	assert_null(a.tags.v);

	/* Repeated: the last wins, the earlier list is freed (ASan would see a leak). */
	assert_int_equal(parse("f --in a --in b --tags x --tags y,z -c1 --level high", &a, &status), 0);
	assert_string_equal(a.in, "b");
	assert_int_equal(a.tags.n, 2);
	assert_int_equal(a.count, 1);
	assert_int_equal(a.level, 3);
	assert_int_equal(a.color, -1);  /* untouched without a default */
	gs_opt_release(&cmd, &a);
}

static void test_numbers_are_strict(void **state)
{
	(void)state;
	expect_usage_error("-i x f --count 0");
	expect_usage_error("-i x f --count 11");
	expect_usage_error("-i x f --count +5");
	expect_usage_error("-i x f --count 5x");
	expect_usage_error("-i x f --count 0x5");
	expect_usage_error("-i x f --count=");
	expect_usage_error("-v -i x f --seed -1");
	expect_usage_error("-v -i x f --seed 18446744073709551616");
	expect_usage_error("-i x f --ratio 0");
	expect_usage_error("-i x f --ratio -1");
	expect_usage_error("-i x f --ratio nan");
	expect_usage_error("-i x f --ratio inf");
	expect_usage_error("-i x f --ratio 1e999");
	expect_usage_error("-i x f --ratio .");
	expect_usage_error("-i x f --ratio 1e");
	expect_usage_error("-i x f --ratio +1");
	expect_usage_error("-i x f --level top");
}

static void test_line_errors(void **state)
{
	struct args a;
	int status;

	(void)state;
	expect_usage_error("f");                          /* --in is required */
	expect_usage_error("-i x");                       /* no operand */
	expect_usage_error("-i x f g");                   /* two operands */
	expect_usage_error("-i x f --color --no-color");  /* declared conflict */
	expect_usage_error("-i x f --no-color --color");  /* either order */
	expect_usage_error("-i x f --seed 1");            /* --seed needs --verbose */
	expect_usage_error("-i x f --tags a,a");          /* repeated item */
	expect_usage_error("-i x f --tags a,,b");         /* empty item */
	expect_usage_error("-i x f --tags a,b,c,d");      /* more than .max */
	expect_usage_error("-i x f --bogus");
	expect_usage_error("-i x f --verbose=1");
	expect_usage_error("-i x f --co 2");              /* ambiguous: count, color */
	expect_usage_error("-i x f -Z");
	expect_usage_error("-i x f --count");
	/* A unique prefix is the option, as getopt_long has it. */
	assert_int_equal(parse("-i x f --cou 4", &a, &status), 0);
	assert_int_equal(a.count, 4);
	gs_opt_release(&cmd, &a);
	/* --help and --version stop with status 0. */
	assert_int_equal(parse("--version", &a, &status), -1);
	assert_int_equal(status, 0);
}

static void test_help_text(void **state)
{
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t n;

	(void)state;
	assert_non_null(f);
	gs_opt_usage(&cmd, f);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n < sizeof(buf) ? n : sizeof(buf) - 1] = '\0';
	assert_non_null(strstr(buf, "usage: gpusim try --in FILE [OPTIONS] FILE\n\nTries options.\n"));
	assert_non_null(strstr(buf, "\nInputs:\n  -i, --in FILE "));
	assert_non_null(strstr(buf, "  -c, --count N    how many (default 3)\n"));
	assert_non_null(strstr(buf, "      --version    print the version"));
	assert_non_null(strstr(buf, "\nThe end.\n"));
}

/* A command with a GS_OPT_MULTI list and operands, as `sweep --pods a.csv b.csv` is. */
struct margs {
	struct gs_opt_list files;
	bool verbose;
	char **ops;
	size_t n_ops;
};

#define S struct margs
static const struct gs_opt mopts[] = {
	{ GS_OPT_LIST_AT(S, files, 4), .name = "files", .short_name = 'f', .arg = "FILE...",
	  .flags = GS_OPT_MULTI, .help = "files" },
	{ GS_OPT_FLAG_AT(S, verbose), .name = "verbose", .short_name = 'v', .help = "talk" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec mcmd = {
	.name = "multi",
	.opts = mopts,
	.operand = "OP...",
	.min_operands = 1,
	.operands_offset = offsetof(struct margs, ops),
	.n_operands_offset = offsetof(struct margs, n_ops),
};

/* As parse(), for mcmd: "multi LINE" split at spaces. */
static int parse_multi(const char *line, struct margs *a, int *status)
{
	static char buf[512];
	static char *argv[32];
	char *save = NULL, *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "multi %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	memset(a, 0, sizeof(*a));
	return gs_opt_parse(&mcmd, argc, argv, a, status);
}

/* Expects the items of a.files to be want (space-separated), in order. */
static void expect_files(const struct margs *a, const char *want)
{
	char got[256] = "";
	size_t i;

	for (i = 0; i < a->files.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
			 a->files.v[i]);
	assert_string_equal(got, want);
}

static void test_multi(void **state)
{
	struct margs a;
	int status = -7;

	(void)state;
	/* The arguments after the value are items too, up to the next option; commas split. */
	assert_int_equal(parse_multi("op1 --files a b,c d -v op2", &a, &status), 0);
	expect_files(&a, "a b c d");
	assert_true(a.verbose);
	/* The operands keep their order, around the list and after "--". */
	assert_int_equal(a.n_ops, 2);
	assert_string_equal(a.ops[0], "op1");
	assert_string_equal(a.ops[1], "op2");
	gs_opt_release(&mcmd, &a);
	assert_int_equal(parse_multi("--files=x y -- -z w", &a, &status), 0);
	expect_files(&a, "x y");
	assert_int_equal(a.n_ops, 2);
	assert_string_equal(a.ops[0], "-z");
	assert_string_equal(a.ops[1], "w");
	gs_opt_release(&mcmd, &a);
	/* Repeating the option starts the list again, as for any list. */
	assert_int_equal(parse_multi("--files a b -v op --files c", &a, &status), 0);
	expect_files(&a, "c");
	assert_int_equal(a.n_ops, 1);
	gs_opt_release(&mcmd, &a);
	/* The items together obey the list's rules. */
	assert_int_equal(parse_multi("op --files a b a", &a, &status), -1);
	assert_int_equal(status, 2);
	assert_null(a.files.v);
	assert_int_equal(parse_multi("op --files a b,,c", &a, &status), -1);
	assert_int_equal(status, 2);
	assert_int_equal(parse_multi("op --files a b c d e", &a, &status), -1);
	assert_int_equal(status, 2);
	assert_null(a.files.v);
}

/* Without a GS_OPT_MULTI option, a word after a list's value is an operand, as before. */
static void test_list_without_multi(void **state)
{
	struct args a;
	int status;

	(void)state;
	assert_int_equal(parse("-i x --tags a f", &a, &status), 0);
	assert_int_equal(a.tags.n, 1);
	assert_string_equal(a.file, "f");
	gs_opt_release(&cmd, &a);
	expect_usage_error("-i x --tags a b f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_defaults),
		cmocka_unit_test(test_numbers_are_strict),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_help_text),
		cmocka_unit_test(test_multi),
		cmocka_unit_test(test_list_without_multi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
