/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_defrag.h - what the descheduler (engine/defrag.h) did in a run, in
 * the results database: table run_defrag, one row per run replayed with
 * --defrag (results/SCHEMA.md).
 */
#ifndef GS_RUN_DEFRAG_H
#define GS_RUN_DEFRAG_H

#include <stdint.h>

#include "engine/replay.h"
#include "store/results.h"

/*
 * The DDL of run_defrag, idempotent (IF NOT EXISTS): gs_db_open() runs it
 * with its own whenever it creates or migrates a database (schema 1.6).
 */
extern const char *const gs_run_defrag_schema_sql;

/*
 * Inside the transaction gs_db_write_run() holds: the row of run_id when
 * sim replayed with the descheduler, nothing otherwise. Returns 0 or
 * GS_EDB with err naming the database.
 */
int gs_run_defrag_write(struct gs_db *db, int64_t run_id, const struct gs_sim *sim, char *err,
			size_t err_len);

#endif
