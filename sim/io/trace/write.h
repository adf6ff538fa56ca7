/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.h - writing traces and clusters in gpusim's native formats.
 */
#ifndef GS_WRITE_H
#define GS_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/*
 * Writes a trace and a cluster in gpusim's native CSV format. Returns 0,
 * GS_EIO or GS_ENOMEM with a message in err; GS_EINVAL (nothing written)
 * for what the format cannot carry: no pod or node, a name the readers
 * refuse (empty, too long, a comma, quote, backslash or control
 * character), or (cluster) a GPU model whose memory differs from the
 * built-in table, which only JSON records. The file is written to a
 * temporary name and renamed into place, so it is never left half-written.
 */
int gs_write_trace_csv(const char *path, const struct gs_trace *t, const struct gs_cluster *c,
		       char *err, size_t err_len);
/* The cluster in native CSV; same returns as gs_write_trace_csv(). */
int gs_write_cluster_csv(const char *path, const struct gs_cluster *c, char *err, size_t err_len);
/* The cluster in native JSON, with the memory of every model its nodes use. */
int gs_write_cluster_json(const char *path, const struct gs_cluster *c, char *err,
			  size_t err_len);

/*
 * A file written but not yet in place: the data is in the temporary file
 * tmp next to path. Several files can be staged and then committed
 * together, so a command that writes two files writes both or neither
 * (`gpusim gen`). Owns both strings; zero-initialise before use.
 */
struct gs_staged {
	char *tmp;
	char *path;
};

/*
 * Like the gs_write_* functions above, but leave the data in st's
 * temporary file. Same returns; on failure nothing is left on disk and st
 * needs no discard.
 */
int gs_staged_write_trace_csv(struct gs_staged *st, const char *path, const struct gs_trace *t,
			      const struct gs_cluster *c, char *err, size_t err_len);
/* gs_write_cluster_csv() into st's temporary file; commit or discard st. */
int gs_staged_write_cluster_csv(struct gs_staged *st, const char *path, const struct gs_cluster *c,
				char *err, size_t err_len);
/* gs_write_cluster_json() into st's temporary file; commit or discard st. */
int gs_staged_write_cluster_json(struct gs_staged *st, const char *path, const struct gs_cluster *c,
				 char *err, size_t err_len);

/* Renames the staged file into place. Returns 0 or GS_EIO (file removed). Releases st. */
int gs_staged_commit(struct gs_staged *st, char *err, size_t err_len);
/* Removes the staged file, if any, and releases st. */
void gs_staged_discard(struct gs_staged *st);

/*
 * Writes cluster c to nodes_out (JSON when its name ends in .json, else
 * CSV) and trace t to pods_out (CSV), both or neither: each is staged,
 * then both are renamed into place. Either path may be NULL (that file is
 * not written). The returns of the writers above.
 */
int gs_write_cluster_and_trace(const char *nodes_out, const struct gs_cluster *c,
			       const char *pods_out, const struct gs_trace *t, char *err,
			       size_t err_len);

/*
 * True when writing to a and to b would replace the same file: the same
 * directory, however it is spelt ("a.csv" and "./a.csv", through a
 * symbolic link), and the same name in it.
 */
bool gs_write_same_file(const char *a, const char *b);

/*
 * The formats themselves, on an open stream (path is only named in
 * messages): what the writers above put in their files. Return 0,
 * GS_EINVAL (what the format cannot carry, before anything is printed:
 * an empty trace or cluster, a name the readers would refuse, a model
 * bit outside the table, a non-built-in model in CSV) or GS_EIO (the
 * stream failed), with a message in err.
 */
int gs_write_trace_csv_stream(FILE *f, const char *path, const struct gs_trace *t,
			      const struct gs_cluster *c, char *err, size_t err_len);
/* The cluster CSV of gs_write_cluster_csv() on f; the checks and returns above. */
int gs_write_cluster_csv_stream(FILE *f, const char *path, const struct gs_cluster *c, char *err,
				size_t err_len);
/* The cluster JSON of gs_write_cluster_json() on f; the checks and returns above. */
int gs_write_cluster_json_stream(FILE *f, const char *path, const struct gs_cluster *c, char *err,
				 size_t err_len);

#endif
