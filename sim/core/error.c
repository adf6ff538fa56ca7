/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.c - names and messages for the GS_E* codes of error.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/error.h"

void gs_errf(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !err_len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

const char *gs_strerror(int err)
{
	switch (err) {
	case GS_OK:
		return "success";
#define GS_ERR_CASE(name, msg) \
	case GS_##name:        \
		return msg;
		GS_ERRNO_MAP(GS_ERR_CASE)
#undef GS_ERR_CASE
	default:
		return "unknown error";
	}
}

const char *gs_errname(int err)
{
	switch (err) {
	case GS_OK:
		return "GS_OK";
#define GS_ERR_NAME(name, msg) \
	case GS_##name:        \
		return "GS_" #name;
		GS_ERRNO_MAP(GS_ERR_NAME)
#undef GS_ERR_NAME
	default:
		return "GS_E?";
	}
}

int gs_errf_nomem(char *err, size_t err_len)
{
	gs_errf(err, err_len, "out of memory");
	return GS_ENOMEM;
}
