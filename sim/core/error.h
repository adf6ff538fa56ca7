/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.h - status codes shared by every gpusim module.
 *
 * Functions return 0 on success or a negative GS_E* code. The list below is
 * the only place codes are defined; gs_strerror() and gs_errname() are
 * generated from it, so a new code needs one line here and nothing else.
 * This file has no dependencies beyond libc: the allocator and the CUDA
 * harness include it too.
 */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <stddef.h>

#define GS_ERRNO_MAP(X)                                                  \
	X(EINVAL, "invalid argument")                                    \
	X(ENOMEM, "out of memory")                                       \
	X(EIO, "input/output error")                                     \
	X(ENOENT, "no such file or entry")                               \
	X(EPARSE, "malformed input")                                     \
	X(ERANGE, "value out of range")                                  \
	X(ENOFIT, "no node can host the pod")                            \
	X(ECHECK, "cluster invariant violated")                          \
	X(ESCHEMA, "database schema not supported")                      \
	X(EDB, "database error")                                         \
	X(EEXIST, "already exists")                                      \
	X(EINTR, "interrupted")                                          \
	X(ENODEV, "no device")                                           \
	X(ELIMIT, "beyond the numbers gpusim can count")

enum {
	GS_OK = 0,
#define GS_ERR_ENUM(name, msg) GS_##name,
	GS__ERR_FIRST = -1000,
	GS_ERRNO_MAP(GS_ERR_ENUM)
#undef GS_ERR_ENUM
	GS__ERR_LAST
};

/* Returns a static, lower-case description of err (never NULL). */
const char *gs_strerror(int err);

/* Returns the symbolic name of err, for example "GS_ENOFIT" (never NULL). */
const char *gs_errname(int err);

/*
 * Writes a printf-style message into the caller's buffer err of err_len
 * bytes, truncated to fit and always terminated; does nothing when err is
 * NULL or err_len is 0. For the (char *err, size_t err_len) parameters
 * through which gpusim functions explain a failure.
 */
void gs_errf(char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes "out of memory" into err as gs_errf() does and returns GS_ENOMEM. */
int gs_errf_nomem(char *err, size_t err_len);

#endif
