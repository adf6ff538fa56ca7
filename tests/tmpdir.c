/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmpdir.c - the tests' temporary directory (see tmpdir.h): made with
 * mkdtemp, removed bottom-up with nftw, never through a shell, so a name
 * with odd characters or a failing rm cannot leave a tree behind unseen.
 */
#define _XOPEN_SOURCE 700 /* nftw, FTW_DEPTH, FTW_PHYS */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tmpdir.h"

static char dir[256];
static int remove_failed;

int gs_test_tmpdir_make(const char *tag)
{
	const char *base = getenv("TMPDIR");
	int n;

	(void)gs_test_tmpdir_remove(); /* a leftover of a setup that failed half way */
	if (!base || !*base)
		base = "/tmp";
	n = snprintf(dir, sizeof(dir), "%s/gpusim-%s-XXXXXX", base, tag);
	if (n < 0 || (size_t)n >= sizeof(dir)) {
		dir[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

const char *gs_test_tmpdir(void)
{
	return dir;
}

/* Directories come after their contents (FTW_DEPTH); links are removed, not followed. */
static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	int rc;

	(void)sb;
	(void)ftw;
	rc = type == FTW_DP || type == FTW_DNR ? rmdir(path) : unlink(path);
	if (rc) {
		fprintf(stderr, "tmpdir: cannot remove %s: %s\n", path, strerror(errno));
		remove_failed = 1;
	}
	return 0; /* go on: remove as much as can be */
}

int gs_test_tmpdir_remove(void)
{
	int rc;

	if (!dir[0])
		return 0;
	remove_failed = 0;
	rc = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	dir[0] = '\0';
	return rc || remove_failed ? -1 : 0;
}

int gs_test_tmpdir_teardown(void **state)
{
	(void)state;
	return gs_test_tmpdir_remove();
}

void gs_test_path(const char *name, char *buf, size_t len)
{
	int n;

	if (!dir[0])
		fail_msg("%s: no temporary directory (gs_test_tmpdir_make not called)", name);
	n = snprintf(buf, len, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= len)
		fail_msg("%s/%s: path does not fit in %zu bytes", dir, name, len);
}

void gs_test_write(const char *name, const char *text, char *path_out, size_t path_len)
{
	char own[512], *path = path_out ? path_out : own;
	size_t len = strlen(text);
	FILE *f;

	gs_test_path(name, path, path_out ? path_len : sizeof(own));
	f = fopen(path, "wb");
	if (!f)
		fail_msg("%s: cannot create: %s", path, strerror(errno));
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

char *gs_test_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("%s: cannot open: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	assert_int_equal(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}
