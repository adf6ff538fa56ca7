/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.c - `mkdir -p` for output directories, and output files written
 * whole or not at all (path.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/path.h"

static int made(const char *dir, char *err, size_t err_len)
{
	struct stat sb;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	gs_errf(err, err_len, "%s: cannot create: %s", dir, strerror(errno));
	return GS_EIO;
}

int gs_mkdir_p(const char *dir, char *err, size_t err_len)
{
	char *copy, *p;
	int rc = 0;

	if (!dir || !*dir) {
		gs_errf(err, err_len, "no directory given");
		return GS_EINVAL;
	}
	copy = strdup(dir);
	if (!copy)
		return GS_ENOMEM;
	/* Each parent in turn, then the whole path; "a//b" and "a/b/" are fine. */
	for (p = copy + 1; *p && !rc; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = 0;
		rc = made(copy, err, err_len);
		*p = '/';
	}
	if (!rc)
		rc = made(copy, err, err_len);
	free(copy);
	return rc;
}

int gs_mkdir_parent(const char *path, char *err, size_t err_len)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *dir;
	int rc;

	if (!slash || slash == path)
		return 0;
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return GS_ENOMEM;
	rc = gs_mkdir_p(dir, err, err_len);
	free(dir);
	return rc;
}

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

int gs_outfile_commit(struct gs_outfile *o, char *err, size_t err_len)
{
	int failed, saved;

	errno = 0;
	failed = fflush(o->f) != 0 || ferror(o->f);
	saved = errno;
	if (fclose(o->f) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	o->f = NULL;
	if (!failed && rename(o->tmp, o->path) == 0)
		return 0;
	if (!failed)
		saved = errno;
	gs_errf(err, err_len, "%s: cannot write: %s", o->path,
		saved ? strerror(saved) : "write error");
	unlink(o->tmp);
	return GS_EIO;
}

void gs_outfile_abort(struct gs_outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	unlink(o->tmp);
}
