/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile.c - an output file written to a private name beside its path
 * and renamed onto it once complete (outfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/error.h"
#include "io/outfile.h"

int gs_outfile_open(struct gs_outfile *o, const char *path, char *err, size_t err_len)
{
	const char *slash = strrchr(path, '/');
	int n;

	o->f = NULL;
	n = snprintf(o->path, sizeof(o->path), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(o->path)) {
		gs_errf(err, err_len, "%.200s...: cannot write: the path is too long", path);
		return GS_EIO;
	}
	/* A hidden name in the same directory, so that the rename stays on one file system. */
	snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.%ld.tmp", slash ? (int)(slash - path + 1) : 0,
		 path, slash ? slash + 1 : path, (long)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		gs_errf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
		return GS_EIO;
	}
	return 0;
}

int gs_outfile_finish(FILE *f, const char *written, const char *path, char *err,
		      size_t err_len)
{
	struct statvfs vfs;
	int failed, saved = 0;

	/*
	 * The reason of the first failure: a write that failed earlier left
	 * errno as it said it (stdio keeps only the error flag); else the
	 * flush or the close says it now.
	 */
	if (ferror(f))
		saved = errno;
	else
		errno = 0;
	failed = fflush(f) != 0 || ferror(f);
	if (failed && !saved)
		saved = errno;
	/* errno lost on the way: a full file system is the usual cause, and it can be seen. */
	if (failed && (!saved || saved == EBADF) && fstatvfs(fileno(f), &vfs) == 0 &&
	    vfs.f_bavail == 0)
		saved = ENOSPC;
	if (fclose(f) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed && (!path || rename(written, path) == 0))
		return 0;
	if (!failed)
		saved = errno;
	gs_errf(err, err_len, "%s: cannot write: %s", path ? path : written,
		saved ? strerror(saved) : "write error");
	unlink(written);
	return GS_EIO;
}

int gs_outfile_commit(struct gs_outfile *o, char *err, size_t err_len)
{
	FILE *f = o->f;

	o->f = NULL;
	return gs_outfile_finish(f, o->tmp, o->path, err, err_len);
}

void gs_outfile_abort(struct gs_outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	unlink(o->tmp);
}
