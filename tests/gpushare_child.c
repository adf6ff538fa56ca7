/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpushare_child.c - running a libgpushare test case in a forked child
 * (gpushare_child.h).
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "gpushare_child.h"
#include "tmpdir.h"

static char child_stderr[16384];

int gs_child_run(int (*fn)(void *), void *arg, const char *const *env)
{
	int err_pipe[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(err_pipe), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(err_pipe[0]);
		dup2(err_pipe[1], STDERR_FILENO);
		setenv("GPUSHARE_SHM_DIR", gs_test_tmpdir(), 1);
		for (; env && *env; env += 2)
			setenv(env[0], env[1], 1);
		_exit(fn(arg));
	}
	close(err_pipe[1]);
	while ((n = read(err_pipe[0], child_stderr + got,
			 sizeof(child_stderr) - 1 - (size_t)got)) > 0)
		got += n;
	child_stderr[got] = 0;
	close(err_pipe[0]);
	if (got)
		fprintf(stderr, "%s", child_stderr);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *gs_child_stderr(void)
{
	return child_stderr;
}

void gs_child_expect_logged(const char *needle)
{
	if (!strstr(child_stderr, needle))
		fail_msg("stderr '%s' lacks '%s'", child_stderr, needle);
}

int gs_child_dir(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("gpushare");
}

uint64_t gs_child_pod_free(void)
{
	size_t free_b = 0, total_b = 0;

	CHECK_EQ(cuMemGetInfo_v2(&free_b, &total_b), CUDA_SUCCESS);
	return free_b;
}
