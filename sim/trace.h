/*
 * trace.h - reading clusters and pod traces.
 *
 * Formats (documented in traces/README.md):
 *   - openb node lists: sn,cpu_milli,memory_mib,gpu,model
 *   - openb pod lists: the 11-column files and the 5-column multigpu files
 *   - gpusim native CSV and JSON for clusters and pods (JSON through cJSON)
 * gs_cluster_load() and gs_trace_load() pick the reader from the file's
 * extension and header line.
 *
 * Every malformed record is an error reported as
 *   "file:line: column X: 'value' is not ..."
 * in the caller's buffer, and the load fails with GS_EPARSE (GS_ENOENT or
 * GS_EIO for files that cannot be read). Nothing is skipped silently.
 * Legal but suspicious records are counted in struct gs_trace_audit.
 *
 * Ownership: struct gs_trace is caller-owned (_init/_release) and owns its
 * arrays and strings.
 */
#ifndef GS_TRACE_H
#define GS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

#define GS_SHA256_HEX 65  /* 64 hex digits and a NUL */

/* Counts of legal but suspicious records, reported after loading. */
struct gs_trace_audit {
	size_t deleted_before_created; /* t_delete_s < t_create_s: runs for 0 s */
	size_t no_deletion_time;       /* never leaves */
	size_t larger_than_any_node;   /* fits on no node even when the cluster is empty */
	size_t unknown_model;          /* gpu_spec names a model no node has */
};

struct gs_trace {
	struct gs_pod *pods;
	char **pod_names;   /* one owned string per pod */
	size_t n_pods;
	size_t cap_pods;
	char *path;         /* owned copy of the path read */
	char sha256[GS_SHA256_HEX]; /* of the file's bytes */
	const char *format; /* static string: "openb", "openb-multigpu", "csv", "json", ... */
	struct gs_trace_audit audit;
};

void gs_trace_init(struct gs_trace *t);
void gs_trace_release(struct gs_trace *t);

/*
 * Appends one pod (the name is copied). Returns 0 or GS_ENOMEM.
 */
int gs_trace_append(struct gs_trace *t, const char *name, const struct gs_pod *p);

/*
 * Reads a cluster file into c (which must be initialised and empty).
 * On success fills sha256_out (may be NULL) with the file's checksum.
 * Returns 0, GS_ENOENT, GS_EIO, GS_EPARSE or GS_ENOMEM, with a message in err.
 */
int gs_cluster_load(const char *path, struct gs_cluster *c, char sha256_out[GS_SHA256_HEX],
		    char *err, size_t err_len);

/*
 * Reads a pod trace into t (initialised and empty, else GS_EINVAL); on
 * failure t stays empty. GPU model names in pod constraints are resolved
 * against c->models; names no node has are added to the table (so the
 * pod can never be placed) and counted in t->audit.unknown_model. Also
 * fills the rest of t->audit against c. Same returns as gs_cluster_load.
 */
int gs_trace_load(const char *path, struct gs_cluster *c, struct gs_trace *t, char *err,
		  size_t err_len);

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
int gs_cluster_write_csv(const char *path, const struct gs_cluster *c, char *err, size_t err_len);
/* The cluster in native JSON, with the memory of every model its nodes use. */
int gs_cluster_write_json(const char *path, const struct gs_cluster *c, char *err,
			  size_t err_len);

/* SHA-256 of a file's bytes as lower-case hex. Returns 0 or GS_ENOENT/GS_EIO. */
int gs_sha256_file(const char *path, char hex_out[GS_SHA256_HEX]);

#endif
