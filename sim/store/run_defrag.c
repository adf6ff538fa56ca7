/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_defrag.c - the descheduler's row of a run (store/run_defrag.h). Its
 * own table rather than runs columns: the options are in params_json
 * (defrag_*), and runs replayed without --defrag store nothing here, so
 * their rows, summaries and baselines stay what they were.
 */
#include <sqlite3.h>

#include "core/error.h"
#include "store/results_internal.h"
#include "store/run_defrag.h"

const char *const gs_run_defrag_schema_sql =
	"CREATE TABLE IF NOT EXISTS run_defrag ("
	"  run_id INTEGER PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,"
	"  budget_pct REAL NOT NULL,"
	"  per_hour REAL NOT NULL,"
	"  restart_s INTEGER,"
	"  n_attempts INTEGER NOT NULL,"
	"  n_placed INTEGER NOT NULL,"
	"  n_moves INTEGER NOT NULL,"
	"  n_pods_moved INTEGER NOT NULL,"
	"  lost_gpu_s REAL NOT NULL"
	");";

int gs_run_defrag_write(struct gs_db *db, int64_t run_id, const struct gs_sim *sim, char *err,
			size_t err_len)
{
	static const char sql[] =
		"INSERT INTO run_defrag (run_id, " GS_DB_DEFRAG_COLUMN_LIST_1_7 ")"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
	const struct gs_defrag_opts *o = &sim->opts.defrag;
	const struct gs_defrag_stats *st = &sim->defrag.st;
	sqlite3_stmt *q;
	int rc = 0;

	if (!sim->defrag_on)
		return 0;
	if (sqlite3_prepare_v2(db->conn, sql, -1, &q, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot store the descheduler's counts");
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_double(q, 2, o->budget_pct);
	sqlite3_bind_double(q, 3, o->per_hour);
	if (o->cost == GS_DEFRAG_RESTART)
		sqlite3_bind_int64(q, 4, o->restart_s);
	else
		sqlite3_bind_null(q, 4);
	sqlite3_bind_int64(q, 5, st->attempts);
	sqlite3_bind_int64(q, 6, st->placed);
	sqlite3_bind_int64(q, 7, st->moves);
	sqlite3_bind_int64(q, 8, st->pods_moved);
	sqlite3_bind_double(q, 9, st->lost_gpu_s);
	rc = gs_db_step_done(db, q, "cannot store the descheduler's counts", err, err_len);
	sqlite3_finalize(q);
	return rc;
}
