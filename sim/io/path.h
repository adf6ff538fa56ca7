/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.h - small file-system helpers for the places gpusim writes to.
 */
#ifndef GS_PATH_H
#define GS_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Creates directory dir and any missing parents (mode 0777 less the umask),
 * like `mkdir -p`. An existing directory is fine. Returns 0, or GS_EIO with
 * "DIR: cannot create: reason" in err (a component that is a file, no
 * permission, ...), or GS_EINVAL for an empty path.
 */
int gs_mkdir_p(const char *dir, char *err, size_t err_len);

/*
 * gs_mkdir_p() on the directory part of path (nothing when path has no
 * '/'). Same returns.
 */
int gs_mkdir_parent(const char *path, char *err, size_t err_len);

/* Whether path's name ends in ".json" (any case): the files gpusim reads and writes as JSON. */
bool gs_path_is_json(const char *path);

#endif
