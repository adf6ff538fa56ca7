/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile.h - output files written whole or not at all, for the files
 * gpusim writes through stdio (tables, reports, figure data).
 */
#ifndef GS_OUTFILE_H
#define GS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

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

/*
 * Flushes and closes f, which was opened for writing at written, and, when
 * path is not NULL, renames written onto path. Returns 0, or GS_EIO with
 * "PATH: cannot write: REASON" in err (PATH being path, or written) and
 * written removed. For files opened without gs_outfile_open().
 */
int gs_outfile_finish(FILE *f, const char *written, const char *path, char *err,
		      size_t err_len);

/* Closes o->f and removes the private file: nothing is written to path. */
void gs_outfile_abort(struct gs_outfile *o);

#endif
