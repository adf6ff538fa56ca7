/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.c - `mkdir -p` for output directories (path.h).
 */
#include <errno.h>
#include <stdbool.h>
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

/*
 * The name of path with its last `dirs` parent directories: the stem, the
 * prefix taken off, each character a file name can hold. malloc'ed.
 */
static char *name_with(const char *path, size_t dirs, const char *prefix)
{
	const char *end = path + strlen(path), *base = strrchr(path, '/'), *start;
	size_t len, i, k;
	char *name, *dot;

	base = base ? base + 1 : path;
	start = base;
	for (k = 0; k < dirs && start > path; k++) {
		const char *p = start - 1;

		/* Past the '/' before start, then to the start of that component. */
		while (p > path && p[-1] != '/')
			p--;
		start = p;
	}
	len = (size_t)(end - start);
	name = malloc(len + 1);
	if (!name)
		return NULL;
	memcpy(name, start, len);
	name[len] = '\0';
	/* The extension of the file's own name. */
	dot = strrchr(name, '.');
	if (dot && dot > name + (base - start) && dot[-1] != '/')
		*dot = '\0';
	if (prefix && *prefix) {
		char *b = name + (base - start);
		size_t pl = strlen(prefix);

		if (!strncmp(b, prefix, pl) && b[pl])
			memmove(b, b + pl, strlen(b + pl) + 1);
	}
	for (i = 0; name[i]; i++) {
		char ch = name[i];

		if (ch == '/')
			name[i] = '-';
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			   (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			name[i] = '_';
	}
	return name;
}

/* How many '/'-separated directories path has before its file name. */
static size_t n_dirs(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/' && path[1];
	return n;
}

int gs_path_names(const char *const *paths, size_t n, const char *prefix, char **names)
{
	size_t *dirs = calloc(n ? n : 1, sizeof(*dirs)), i, j;
	bool changed = true;

	if (!dirs)
		return GS_ENOMEM;
	for (i = 0; i < n; i++)
		names[i] = NULL;
	while (changed) {
		changed = false;
		for (i = 0; i < n; i++) {
			free(names[i]);
			names[i] = name_with(paths[i], dirs[i], prefix);
			if (!names[i])
				goto oom;
		}
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				if (strcmp(names[i], names[j]) || !strcmp(paths[i], paths[j]))
					continue;
				if (dirs[i] < n_dirs(paths[i])) {
					dirs[i]++;
					changed = true;
				}
				if (dirs[j] < n_dirs(paths[j])) {
					dirs[j]++;
					changed = true;
				}
			}
	}
	/* Names still equal for different paths: number the later ones, in order. */
	for (i = n; i-- > 0;) {
		size_t k = 1;

		for (j = 0; j < i; j++)
			if (!strcmp(paths[i], paths[j]))
				break;
		if (j < i)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]) && strcmp(paths[i], paths[j])) {
				size_t m;

				/* Count each earlier path once. */
				for (m = 0; m < j && strcmp(paths[m], paths[j]); m++)
					;
				k += m == j;
			}
		if (k > 1) {
			size_t len = strlen(names[i]) + 24;
			char *numbered = malloc(len);

			if (!numbered)
				goto oom;
			snprintf(numbered, len, "%s-%zu", names[i], k);
			free(names[i]);
			names[i] = numbered;
		}
	}
	/* Equal paths, equal names. */
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(paths[i], paths[j]) && strcmp(names[i], names[j])) {
				char *copy = strdup(names[j]);

				if (!copy)
					goto oom;
				free(names[i]);
				names[i] = copy;
				break;
			}
	free(dirs);
	return 0;
oom:
	for (i = 0; i < n; i++) {
		free(names[i]);
		names[i] = NULL;
	}
	free(dirs);
	return GS_ENOMEM;
}
