/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.h - writing traces and clusters in gpusim's native formats.
 */
#ifndef GS_WRITE_H
#define GS_WRITE_H

#include <stddef.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/*
 * Writes a trace and a cluster in gpusim's native CSV format. Returns 0 or
 * GS_EIO with a message in err; GS_EINVAL (nothing written) for what the
 * format cannot carry: a name with a comma, quote, backslash or control
 * character, or (cluster) a GPU model whose memory differs from the
 * built-in table, which only JSON records. The file is written to a
 * temporary name and renamed into place, so it is never left half-written.
 */
int gs_trace_write_csv(const char *path, const struct gs_trace *t, const struct gs_cluster *c,
		       char *err, size_t err_len);
/* The cluster in native CSV; same returns as gs_trace_write_csv(). */
int gs_cluster_write_csv(const char *path, const struct gs_cluster *c, char *err, size_t err_len);
/* The cluster in native JSON, with the memory of every model its nodes use. */
int gs_cluster_write_json(const char *path, const struct gs_cluster *c, char *err,
			  size_t err_len);

#endif
