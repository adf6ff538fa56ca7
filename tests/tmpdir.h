/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmpdir.h - the temporary directory a test writes its files into, made
 * fresh under $TMPDIR (or /tmp) as gpusim-<tag>-XXXXXX and removed with
 * everything in it, so that a test run leaves nothing behind.
 *
 * Test code only: gs_add_test() (tests/CMakeLists.txt) and gs_bench_test()
 * (bench/cuda/CMakeLists.txt) link tmpdir.c into every test program; the
 * product never sees it. One directory at a time per process: a group
 * setup (or a per-case setup) makes it, the matching teardown removes it.
 * A forked child sees the same name.
 */
#ifndef GS_TEST_TMPDIR_H
#define GS_TEST_TMPDIR_H

#include <stddef.h>

/*
 * Makes a new directory $TMPDIR/gpusim-<tag>-XXXXXX (/tmp when TMPDIR is
 * unset or empty), removing the current one first if there is one.
 * Returns 0, or -1 with errno set (ENAMETOOLONG when the name does not
 * fit); on failure there is no current directory.
 */
int gs_test_tmpdir_make(const char *tag);

/*
 * The current directory's path, "" when there is none (owned here; valid
 * until the next make or remove).
 */
const char *gs_test_tmpdir(void);

/*
 * Removes the current directory and everything below it, without
 * following links (nothing outside it is touched). Returns 0 (also when
 * there is no current directory), or -1 when anything could not be
 * removed; either way there is no current directory afterwards.
 */
int gs_test_tmpdir_remove(void);

/* gs_test_tmpdir_remove() in the shape of a cmocka teardown (group or case). */
int gs_test_tmpdir_teardown(void **state);

/*
 * A cmocka case in a directory of its own: setup makes it (calling
 * gs_test_tmpdir_make), gs_test_tmpdir_teardown removes it after the case.
 */
#define GS_TMPDIR_TEST(f, setup) cmocka_unit_test_setup_teardown(f, setup, gs_test_tmpdir_teardown)

/*
 * Puts "<dir>/<name>" into buf (len bytes). Fails the test (cmocka) when
 * there is no current directory or the path does not fit.
 */
void gs_test_path(const char *name, char *buf, size_t len);

/*
 * Writes text (strlen(text) bytes, nothing added) to <dir>/name, replacing
 * the file if it exists, and puts its path into path_out (path_len bytes)
 * unless path_out is NULL. Fails the test (cmocka) on any error.
 */
void gs_test_write(const char *name, const char *text, char *path_out, size_t path_len);

/*
 * The whole of the file at path, NUL-terminated, in a malloc'ed buffer the
 * caller frees. Fails the test (cmocka) when it cannot be read.
 */
char *gs_test_read(const char *path);

#endif
