/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bench_common.c - the CUDA clients' flag parsing (bench/cuda/common.h),
 * compiled against a stub cuda_runtime.h so it runs without the toolkit:
 * numbers in range are taken, everything else (blanks, '+', trailing
 * text, out of range) exits the process with 2 and names the flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h" /* bench/cuda/common.h */

/*
 * Runs body(arg) in a child, with its stdout and stderr in out: the
 * child's exit status (body's return value when it returns), -1 when a
 * signal ended it.
 */
static int in_child(int (*body)(void *arg), void *arg, char *out, size_t len)
{
	int fds[2], status = -1;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		status = body(arg);
		fflush(stdout);
		_exit(status);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A number to parse: with gs_parse_ll (integer) or gs_parse_double. */
struct number {
	int integer;
	const char *s;
};

static int parse_number(void *arg)
{
	const struct number *q = arg;

	if (q->integer)
		gs_parse_ll("iters", q->s, 1, 1000);
	else
		gs_parse_double("duration-s", q->s, 0.01, 86400);
	return 0;
}

/* gs_parse_ll or gs_parse_double on s in a child: its exit status, its output in msg. */
static int parse_in_child(int integer, const char *s, char *msg, size_t len)
{
	struct number q = { integer, s };

	return in_child(parse_number, &q, msg, len);
}

static void test_good_numbers(void **state)
{
	(void)state;
	assert_int_equal(gs_parse_ll("iters", "5", 1, 1000), 5);
	assert_int_equal(gs_parse_ll("start-at-ns", "-3", -10, 10), -3);
	assert_float_equal(gs_parse_double("duration-s", "0.5", 0.01, 86400), 0.5, 0);
	assert_float_equal(gs_parse_double("duration-s", ".5", 0.01, 86400), 0.5, 0);
	assert_float_equal(gs_parse_double("warmup-s", "0", 0, 3600), 0, 0);
	assert_float_equal(gs_parse_double("duration-s", "1e3", 0.01, 86400), 1000, 0);
}

static void test_bad_numbers(void **state)
{
	const char *ints[] = { " 5", "+5", "5x", "", "0", "1001", "5.0", ".5", "-", "\t7" };
	const char *dbls[] = { " 5", "+5", "5s", "", "0", "nan", "inf", "-1", "1e999", "0x10" };
	char msg[512], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ints) / sizeof(*ints); i++) {
		assert_int_equal(parse_in_child(1, ints[i], msg, sizeof(msg)), 2);
		snprintf(want, sizeof(want), "--iters '%s': expected an integer from 1 to 1000\n",
			 ints[i]);
		assert_string_equal(msg, want);
	}
	for (i = 0; i < sizeof(dbls) / sizeof(*dbls); i++) {
		assert_int_equal(parse_in_child(0, dbls[i], msg, sizeof(msg)), 2);
		snprintf(want, sizeof(want),
			 "--duration-s '%s': expected a number from 0.01 to 86400\n", dbls[i]);
		assert_string_equal(msg, want);
	}
}

/* A client's command line, its --batch and the common flags read from it. */
struct command {
	char **argv;
	int argc;
	long long *batch;
	struct gs_opts *o;
};

static int read_command(void *arg)
{
	const struct command *q = arg;
	const struct gs_client_opt own[] = { { 'b', "batch", 1, 100, q->batch } };

	gs_opts_read(q->argc, q->argv, "k", q->o, own, 1, "usage: k\n", "usage: k [--batch N]\n");
	printf("batch=%lld name=%s iters=%ld\n", *q->batch, q->o->name, q->o->iters);
	return 100;
}

/* gs_opts_read on argv in a child: its exit status (100: it returned), its output in out. */
static int read_in_child(char **argv, int argc, long long *batch, struct gs_opts *o, char *out,
			 size_t len)
{
	struct command q = { argv, argc, batch, o };

	return in_child(read_command, &q, out, len);
}

/* A client's arguments: its own and the common ones read, --help and bad ones exit. */
static void test_client_arguments(void **state)
{
	char *good[] = { (char *)"k", (char *)"--batch", (char *)"7", (char *)"--name",
			 (char *)"x", (char *)"--iters", (char *)"3", NULL };
	char *help[] = { (char *)"k", (char *)"--help", NULL };
	char *bad[] = { (char *)"k", (char *)"--batch", (char *)"101", NULL };
	char *unknown[] = { (char *)"k", (char *)"--size", (char *)"1", NULL };
	long long batch = 1;
	struct gs_opts o;
	char out[1024];

	(void)state;
	assert_int_equal(read_in_child(good, 7, &batch, &o, out, sizeof(out)), 100);
	assert_string_equal(out, "batch=7 name=x iters=3\n");
	optind = 1;
	assert_int_equal(read_in_child(help, 2, &batch, &o, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "usage: k\n  --name NAME"));
	optind = 1;
	assert_int_equal(read_in_child(bad, 3, &batch, &o, out, sizeof(out)), 2);
	assert_string_equal(out, "--batch '101': expected an integer from 1 to 100\n");
	optind = 1;
	assert_int_equal(read_in_child(unknown, 3, &batch, &o, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "usage: k [--batch N]\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_numbers),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_client_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
