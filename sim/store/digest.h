/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.h - a run's rows checksummed, so that a damaged database is found
 * even where SQLite's integrity check passes (a bit flipped inside a
 * value).
 *
 * The digest is XXH3-128 (xxHash) over a canonical form of the run's rows:
 * its runs row, then its run_nodes, pods, samples, arrived_stats and
 * run_defrag rows in key order, each value with its SQLite type (an
 * integer as 8 bytes, a real as its IEEE-754 bits, text and blobs with
 * their length). The columns are
 * fixed per digest version (digest.c lists them: version 1 schema 1.7's
 * columns but run_id, status and rows_checksum, version 2 those and schema
 * 1.9's), so that a column a later schema adds, with its default in old
 * runs, does not change the digest of a run stored before it. The writer
 * stores the newest version in runs.rows_checksum as "V:<32 hex digits>"
 * in the run's own transaction; merge, inspect and regress recompute it
 * with the version stored. Runs stored before schema 1.7 have none.
 */
#ifndef GS_DIGEST_H
#define GS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/* "V:" and 32 hex digits and a NUL. */
#define GS_DB_DIGEST_LEN 35
/* The version the writer stores (1 to 9). */
#define GS_DB_DIGEST_VERSION 2

/*
 * Computes the digest of version `version` (1 to GS_DB_DIGEST_VERSION) of
 * run run_id as it is stored in schema ("main", or an attached database's
 * name) into out. Returns 0, GS_ENOENT (no such
 * run), or the code of gs_db_sqlfail() with a message in err.
 */
int gs_db_digest_run(struct gs_db *db, const char *schema, int64_t run_id, int version,
		     char out[GS_DB_DIGEST_LEN], char *err, size_t err_len);

/*
 * Recomputes run run_id's digest in schema and compares it with the one
 * stored. Returns 0 when they agree or none is stored (a run of an older
 * schema), GS_EINVAL with "LABEL: run N is damaged: ..." in err when they
 * differ (label names the file in messages), GS_ENOENT, or an error of
 * gs_db_digest_run().
 */
int gs_db_digest_check(struct gs_db *db, const char *schema, const char *label, int64_t run_id,
		       char *err, size_t err_len);

#endif
