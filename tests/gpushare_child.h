/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpushare_child.h - how libgpushare's fake-driver tests run a case: in a
 * forked child with its own environment, because the library reads its
 * limits once per process (a forked child is a new process of the pod to
 * it). The child checks with CHECK()/CHECK_EQ(), which print what failed
 * and exit non-zero; the parent asserts the exit status.
 *
 * Test code only (tests/test_gpushare_*.c, with cmocka and tmpdir.h).
 */
#ifndef GS_TEST_GPUSHARE_CHILD_H
#define GS_TEST_GPUSHARE_CHILD_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define MIB ((uint64_t)1 << 20)

/* In a child: exits 1, naming the condition, unless cond holds. */
#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			_exit(1);                                                     \
		}                                                                     \
	} while (0)

/* In a child: exits 1, printing both values, unless a == b. */
#define CHECK_EQ(a, b)                                                                 \
	do {                                                                           \
		long long a_ = (long long)(a), b_ = (long long)(b);                    \
		if (a_ != b_) {                                                        \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",    \
				__FILE__, __LINE__, #a, a_, #b, b_);                   \
			_exit(1);                                                      \
		}                                                                      \
	} while (0)

/*
 * Runs fn(arg) in a child with the variables env (name, value, ..., NULL)
 * set on top of GPUSHARE_SHM_DIR=<the case's directory> (tmpdir.h).
 * Returns the child's exit status (128 + signal if it was killed); its
 * stderr is kept (gs_child_stderr) and copied to ours, so a failing check
 * shows in the test log.
 */
int gs_child_run(int (*fn)(void *), void *arg, const char *const *env);

/*
 * Defines the cmocka test name: body(NULL) run in a child under env
 * (gs_child_run), which must exit 0. For a test file, after cmocka.h.
 */
#define GS_CHILD_TEST(name, body, env)                              \
	static void name(void **state)                              \
	{                                                           \
		(void)state;                                        \
		assert_int_equal(gs_child_run(body, NULL, env), 0); \
	}

/* The stderr of the last child gs_child_run ran (owned here, NUL-terminated). */
const char *gs_child_stderr(void);

/* Fails the test (cmocka) unless the last child's stderr contains needle. */
void gs_child_expect_logged(const char *needle);

/* A cmocka setup: a fresh directory for the case (tmpdir.h), tagged "gpushare". */
int gs_child_dir(void **state);

/* In a child: the free memory cuMemGetInfo reports on the current device (checked to succeed). */
uint64_t gs_child_pod_free(void);

#endif
