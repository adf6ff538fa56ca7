/* SPDX-License-Identifier: Apache-2.0 */
/*
 * load.h - reading clusters and pod traces from files.
 *
 * Formats (documented in traces/README.md):
 *   - openb node lists: sn,cpu_milli,memory_mib,gpu,model
 *   - openb pod lists: the 11-column files and the 5-column multigpu files
 *   - gpusim native CSV and JSON for clusters and pods (JSON through cJSON)
 * gs_load_cluster() and gs_load_trace() pick the reader from the file's
 * extension and header line.
 *
 * Every malformed record is an error reported as
 *   "file:line: column X: 'value' is not ..."
 * in the caller's buffer, and the load fails with GS_EPARSE (GS_ENOENT or
 * GS_EIO for files that cannot be read). Nothing is skipped silently.
 * Legal but suspicious records are counted in struct gs_trace_audit.
 */
#ifndef GS_LOAD_H
#define GS_LOAD_H

#include <stddef.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/*
 * Reads a cluster file into c (which must be initialised and empty).
 * On success fills sha256_out (may be NULL) with the file's checksum.
 * Returns 0, GS_ENOENT, GS_EIO, GS_EPARSE or GS_ENOMEM, with a message in err.
 */
int gs_load_cluster(const char *path, struct gs_cluster *c, char sha256_out[GS_SHA256_HEX],
		    char *err, size_t err_len);

/*
 * Reads a pod trace into t (initialised and empty, else GS_EINVAL); on
 * failure t stays empty. GPU model names in pod constraints are resolved
 * against c->models; names no node has are added to the table (so the
 * pod can never be placed) and counted in t->audit.unknown_model. Also
 * fills the rest of t->audit against c. Same returns as gs_load_cluster.
 */
int gs_load_trace(const char *path, struct gs_cluster *c, struct gs_trace *t, char *err,
		  size_t err_len);

/*
 * gs_load_cluster() and gs_load_trace() on len bytes of data instead of a
 * file, reported as name (whose extension still picks JSON). For tests,
 * the fuzz targets (tests/fuzz) and data that is not in a file.
 */
int gs_load_cluster_mem(const char *name, const char *data, size_t len, struct gs_cluster *c,
			char sha256_out[GS_SHA256_HEX], char *err, size_t err_len);
/* gs_load_trace() on len bytes of data reported as name; same returns. */
int gs_load_trace_mem(const char *name, const char *data, size_t len, struct gs_cluster *c,
		      struct gs_trace *t, char *err, size_t err_len);

#endif
