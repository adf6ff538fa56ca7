/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decision.c - the decision record of `gpusim advise` (see decision.h):
 * its tables' DDL and the one writer.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/version.h"
#include "store/decision.h"
#include "store/results_internal.h"

const char *const gs_decision_schema_sql =
	"CREATE TABLE IF NOT EXISTS decisions ("
	" decision_id INTEGER PRIMARY KEY,"
	" created_at TEXT NOT NULL,"
	" gpusim_version TEXT NOT NULL,"
	" nodes_path TEXT,"
	" nodes_sha256 TEXT NOT NULL,"
	" objective TEXT NOT NULL,"
	" constraints TEXT NOT NULL,"
	" targets TEXT NOT NULL,"
	" baseline TEXT NOT NULL,"
	" alpha REAL NOT NULL,"
	" conf REAL NOT NULL,"
	" verdict TEXT NOT NULL,"
	" verdict_json TEXT NOT NULL"
	"); "
	"CREATE TABLE IF NOT EXISTS decision_runs ("
	" decision_id INTEGER NOT NULL REFERENCES decisions (decision_id) ON DELETE CASCADE,"
	" role TEXT NOT NULL CHECK (role IN ('candidate', 'reference', 'capacity')),"
	" run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,"
	" pods_path TEXT,"
	" load_pct REAL,"
	" policy TEXT NOT NULL,"
	" sharing TEXT NOT NULL,"
	" seed INTEGER NOT NULL,"
	" gpu_nodes INTEGER,"
	" PRIMARY KEY (decision_id, role, run_id)"
	") WITHOUT ROWID; "
	"CREATE INDEX IF NOT EXISTS decision_runs_run ON decision_runs (run_id)";

/* "2024-01-02T03:04:05Z", now, into buf. */
static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int valid_role(const char *r)
{
	return r && (!strcmp(r, "candidate") || !strcmp(r, "reference") ||
		     !strcmp(r, "capacity"));
}

int gs_decision_add(struct gs_db *db, const struct gs_decision_record *rec,
		       const struct gs_decision_run *runs, size_t n, int64_t *id_out, char *err,
		       size_t err_len)
{
	static const char sql_dec[] =
		"INSERT INTO decisions (created_at, gpusim_version, nodes_path, nodes_sha256,"
		" objective, constraints, targets, baseline, alpha, conf, verdict, verdict_json)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
	static const char sql_run[] =
		"INSERT OR IGNORE INTO decision_runs (decision_id, role, run_id, pods_path,"
		" load_pct, policy, sharing, seed, gpu_nodes)"
		" SELECT ?1, ?2, run_id, ?3, ?4, ?5, ?6, ?7, ?8 FROM runs"
		" WHERE run_id = ?9 AND status = 'complete'";
	sqlite3_stmt *st = NULL, *sr = NULL;
	char when[32];
	int64_t id = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (!valid_role(runs[i].role) || runs[i].run_id < 1 || !runs[i].policy ||
		    !runs[i].sharing)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: decision run %zu is not a valid record", db->path, i);
	now_iso(when, sizeof(when));
	pthread_mutex_lock(&db->lock);
	rc = gs_db_tx_begin(db, "cannot store the decision", err, err_len);
	if (rc)
		goto out;
	if (sqlite3_prepare_v2(db->conn, sql_dec, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->conn, sql_run, -1, &sr, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot store the decision");
		goto end;
	}
	sqlite3_bind_text(st, 1, when, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, gs_version(), -1, SQLITE_STATIC);
	gs_db_bind_text(st, 3, rec->nodes_path);
	sqlite3_bind_text(st, 4, rec->nodes_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, rec->objective, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, rec->constraints ? rec->constraints : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, rec->targets ? rec->targets : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, rec->baseline, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 9, rec->alpha);
	sqlite3_bind_double(st, 10, rec->conf);
	sqlite3_bind_text(st, 11, rec->verdict, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, rec->verdict_json, -1, SQLITE_STATIC);
	rc = gs_db_step_done(db, st, "cannot store the decision", err, err_len);
	if (rc)
		goto end;
	id = sqlite3_last_insert_rowid(db->conn);
	for (i = 0; i < n; i++) {
		const struct gs_decision_run *r = &runs[i];

		sqlite3_bind_int64(sr, 1, id);
		sqlite3_bind_text(sr, 2, r->role, -1, SQLITE_STATIC);
		gs_db_bind_text(sr, 3, r->pods_path);
		gs_db_bind_real(sr, 4, r->load_pct, true);
		sqlite3_bind_text(sr, 5, r->policy, -1, SQLITE_STATIC);
		sqlite3_bind_text(sr, 6, r->sharing, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sr, 7, (int64_t)r->seed);
		gs_db_bind_int(sr, 8, r->gpu_nodes);
		sqlite3_bind_int64(sr, 9, r->run_id);
		rc = gs_db_step_done(db, sr, "cannot store the decision's runs", err, err_len);
		if (rc)
			goto end;
		if (sqlite3_changes(db->conn) == 0) {
			/* Either a row given twice (kept once), or a run that is not there. */
			sqlite3_stmt *q;
			int there = 0;

			if (sqlite3_prepare_v2(db->conn, "SELECT 1 FROM runs WHERE run_id = ?1 AND"
					       " status = 'complete'", -1, &q, NULL) == SQLITE_OK) {
				sqlite3_bind_int64(q, 1, r->run_id);
				there = sqlite3_step(q) == SQLITE_ROW;
				sqlite3_finalize(q);
			}
			if (!there) {
				rc = gs_db_fail(err, err_len, GS_EINVAL, "%s: run %lld of the decision "
						"is not a complete run", db->path,
						(long long)r->run_id);
				goto end;
			}
		}
	}
end:
	rc = gs_db_tx_end(db, rc, "cannot store the decision", err, err_len);
	if (!rc && id_out)
		*id_out = id;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sr);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
