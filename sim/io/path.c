/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.c - `mkdir -p` for output directories (path.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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

bool gs_path_is_json(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}
