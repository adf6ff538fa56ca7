/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_import.h - loading gpusim-bench's results (bench/cuda, `make bench`)
 * into the bench tables of a results database (results/SCHEMA.md).
 */
#ifndef GS_BENCH_IMPORT_H
#define GS_BENCH_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/* What one import did. */
struct gs_bench_import_stats {
	char sha256[65];       /* of the file's bytes */
	int existing_runs;     /* > 0: the file was imported before, nothing was done */
	size_t n_runs, n_results, n_slowdown;
};

/*
 * Imports the results file at path into db in one transaction, creating the
 * bench tables when missing; a file already imported (same SHA-256) is left
 * alone. Returns 0 and fills *out, or GS_ENOENT / GS_EIO (the file cannot
 * be read), GS_EPARSE (malformed: err says FILE:LINE: what) or GS_EDB, with
 * the database unchanged.
 */
int gs_bench_import(struct gs_db *db, const char *path, struct gs_bench_import_stats *out,
		    char *err, size_t err_len);

#endif
