/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.h - small file-system helpers for the places gpusim writes to.
 */
#ifndef GS_PATH_H
#define GS_PATH_H

#include <stddef.h>
#include <stdio.h>

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

/*
 * An output file written whole or not at all: the data goes to a private
 * file beside path, renamed onto path by gs_outfile_commit(), so that a
 * full disk or an error leaves no partial file and no empty one.
 */
struct gs_outfile {
	FILE *f;
	char path[4096];
	char tmp[4200];
};

/*
 * Opens o->f for writing path. Returns 0, or GS_EIO with "PATH: cannot
 * write: REASON" in err (o needs nothing more then).
 */
int gs_outfile_open(struct gs_outfile *o, const char *path, char *err, size_t err_len);

/*
 * Flushes and closes o->f and renames it onto path. Returns 0, or GS_EIO
 * with "PATH: cannot write: REASON" (the disk is full, ...) in err, the
 * private file removed.
 */
int gs_outfile_commit(struct gs_outfile *o, char *err, size_t err_len);

/* Closes o->f and removes the private file: nothing is written to path. */
void gs_outfile_abort(struct gs_outfile *o);

#endif
