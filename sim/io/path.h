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

/*
 * Short names for the files paths[0..n), distinct for distinct paths: each
 * file's name without its extension (and without `prefix`, when it starts
 * with it and more follows; NULL for none), with as many of its parent
 * directories in front, joined by '-', as it takes to tell it from the
 * others ("a/x/pods.csv" and "b/x/pods.csv" -> "a-x-pods", "b-x-pods").
 * Equal paths get equal names; paths that differ only in ways a name
 * cannot show ("a.csv" and "./a.csv") get "-2", "-3" after theirs.
 * Characters other than letters, digits, '.', '_' and '-' become '_', so
 * a name can be part of a file name. Stores n malloc'ed strings in
 * names[0..n). Returns 0 or GS_ENOMEM (nothing left allocated).
 */
int gs_path_names(const char *const *paths, size_t n, const char *prefix, char **names);

#endif
