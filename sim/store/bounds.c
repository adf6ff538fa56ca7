/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bounds.c - the bound tables of the results database (store/bounds.h):
 * their DDL, the writer of `gpusim bound`, the lookup that lets it resume,
 * and the reader behind the bound line of the figures.
 *
 * A bound is keyed like the inflate runs it bounds: trace and cluster
 * checksums, seed and --inflate; it does not depend on the policy or on
 * compat scoring. Several bounds of one key (computed with other methods,
 * buckets or time limits) may be stored; every one is valid, so readers
 * take the tightest, the largest floor.
 */
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

#include "core/error.h"
#include "core/version.h"
#include "store/bounds.h"
#include "store/results_internal.h"

const char *const gs_bounds_schema_sql =
	"CREATE TABLE IF NOT EXISTS bounds ("
	"  bound_id INTEGER PRIMARY KEY,"
	"  pods_path TEXT,"
	"  pods_sha256 TEXT NOT NULL,"
	"  nodes_path TEXT,"
	"  nodes_sha256 TEXT NOT NULL,"
	"  seed INTEGER NOT NULL,"
	"  inflate REAL NOT NULL,"
	"  methods TEXT NOT NULL,"
	"  exact_time_limit_s REAL,"
	"  gpusim_version TEXT NOT NULL,"
	"  created_at TEXT NOT NULL,"
	"  wall_ms REAL NOT NULL,"
	"  n_nodes INTEGER NOT NULL,"
	"  gpu_milli_capacity INTEGER NOT NULL,"
	"  n_arrivals INTEGER NOT NULL"
	");"
	"CREATE INDEX IF NOT EXISTS bounds_key ON bounds (pods_sha256, nodes_sha256, seed);"
	"CREATE TABLE IF NOT EXISTS bound_points ("
	"  bound_id INTEGER NOT NULL REFERENCES bounds (bound_id) ON DELETE CASCADE,"
	"  arrived_pct INTEGER NOT NULL,"
	"  n_samples INTEGER NOT NULL,"
	"  n_pods INTEGER,"
	"  arrived_gpu_milli INTEGER,"
	"  aggregate_milli INTEGER,"
	"  aggregate_ms REAL,"
	"  lp_milli INTEGER,"
	"  lp_columns INTEGER,"
	"  lp_ms REAL,"
	"  exact_milli INTEGER,"
	"  exact_bound_milli INTEGER,"
	"  exact_optimal INTEGER,"
	"  exact_ms REAL,"
	"  method TEXT,"
	"  aggregate_unalloc_pct_min REAL,"
	"  lp_unalloc_pct_min REAL,"
	"  exact_unalloc_pct_min REAL,"
	"  unalloc_gpu_pct_min REAL,"
	"  PRIMARY KEY (bound_id, arrived_pct)"
	") WITHOUT ROWID;"
	/* Each complete inflate run beside the tightest bound of its key at arrived 100 %. */
	"CREATE VIEW IF NOT EXISTS bound_gap AS"
	" SELECT run_id, policy, seed, pods_path, unalloc_gpu_pct, unalloc_gpu_pct_min,"
	"  unalloc_gpu_pct - unalloc_gpu_pct_min AS gap_pct"
	" FROM (SELECT s.run_id, s.policy, r.seed, r.pods_path, s.unalloc_gpu_pct,"
	"  (SELECT max(p.unalloc_gpu_pct_min) FROM bounds b JOIN bound_points p USING (bound_id)"
	"   WHERE b.pods_sha256 = r.pods_sha256 AND b.nodes_sha256 = r.nodes_sha256"
	"   AND b.seed = r.seed AND b.inflate = json_extract(r.params_json, '$.inflate')"
	"   AND p.arrived_pct = 100) AS unalloc_gpu_pct_min"
	"  FROM run_summary s JOIN runs r ON r.run_id = s.run_id WHERE r.mode = 'inflate');";

/* "aggregate,lp,exact", in that order, of the bits set. */
static void methods_text(unsigned m, char *buf, size_t len)
{
	snprintf(buf, len, "aggregate%s%s", m & GS_BOUND_LP ? ",lp" : "",
		 m & GS_BOUND_EXACT ? ",exact" : "");
}

/* A bound's key as parameters 1-6: trace, cluster, seed, inflation, methods, time limit. */
static void bind_key(sqlite3_stmt *st, const struct gs_bound_info *bi, const char *methods)
{
	sqlite3_bind_text(st, 1, bi->pods_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bi->nodes_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)bi->seed);
	sqlite3_bind_double(st, 4, bi->inflate);
	sqlite3_bind_text(st, 5, methods, -1, SQLITE_TRANSIENT);
	gs_db_bind_real(st, 6, bi->exact_time_limit_s, (bi->methods & GS_BOUND_EXACT) != 0);
}

static int check_info(struct gs_db *db, const struct gs_bound_info *bi, char *err,
		      size_t err_len)
{
	if (!db || !bi || !bi->pods_sha256 || !bi->nodes_sha256)
		return gs_db_fail(err, err_len, GS_EINVAL, "bound: missing trace or cluster key");
	if (bi->seed > INT64_MAX)
		return gs_db_fail(err, err_len, GS_EINVAL, "bound: seed %llu is above 2^63 - 1",
				  (unsigned long long)bi->seed);
	return 0;
}

static int write_points(struct gs_db *db, int64_t id, const struct gs_bound_point *pts,
			size_t n, char *err, size_t err_len)
{
	static const char sql[] =
		"INSERT INTO bound_points (bound_id, arrived_pct, n_samples, n_pods,"
		" arrived_gpu_milli, aggregate_milli, aggregate_ms, lp_milli, lp_columns, lp_ms,"
		" exact_milli, exact_bound_milli, exact_optimal, exact_ms, method,"
		" aggregate_unalloc_pct_min, lp_unalloc_pct_min, exact_unalloc_pct_min,"
		" unalloc_gpu_pct_min) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17, ?18, ?19)";
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot store the bound");
	for (i = 0; i < n && rc == 0; i++) {
		const struct gs_bound_point *p = &pts[i];
		bool have = p->n_samples > 0;

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, p->arrived_pct);
		sqlite3_bind_int64(st, 3, p->n_samples);
		gs_db_bind_int(st, 4, have ? p->n_pods : -1);
		gs_db_bind_int(st, 5, have ? p->arrived_gpu_milli : -1);
		gs_db_bind_int(st, 6, have ? p->aggregate_milli : -1);
		gs_db_bind_real(st, 7, p->aggregate_ms, have);
		gs_db_bind_int(st, 8, have ? p->lp_milli : -1);
		gs_db_bind_int(st, 9, have && p->lp_milli >= 0 ? p->lp_columns : -1);
		gs_db_bind_real(st, 10, p->lp_ms, have && p->lp_milli >= 0);
		gs_db_bind_int(st, 11, have ? p->exact_milli : -1);
		gs_db_bind_int(st, 12, have ? p->exact_bound_milli : -1);
		gs_db_bind_int(st, 13, have && p->exact_bound_milli >= 0 ? p->exact_optimal : -1);
		gs_db_bind_real(st, 14, p->exact_ms, have && p->exact_bound_milli >= 0);
		gs_db_bind_text(st, 15, have ? p->method : NULL);
		gs_db_bind_real(st, 16, p->aggregate_unalloc_pct_min, have);
		gs_db_bind_real(st, 17, p->lp_unalloc_pct_min, have);
		gs_db_bind_real(st, 18, p->exact_unalloc_pct_min, have);
		gs_db_bind_real(st, 19, p->unalloc_pct_min, have);
		rc = gs_db_step_done(db, st, "cannot store the bound", err, err_len);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The bounds row of bi; its id in *id_out. Returns 0 or gs_db_sqlfail()'s code. */
static int write_bound(struct gs_db *db, const struct gs_bound_info *bi, const char *methods,
		       int64_t *id_out, char *err, size_t err_len)
{
	static const char sql[] =
		"INSERT INTO bounds (pods_sha256, nodes_sha256, seed, inflate, methods,"
		" exact_time_limit_s, pods_path, nodes_path, gpusim_version, created_at, wall_ms,"
		" n_nodes, gpu_milli_capacity, n_arrivals) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
		" ?8, ?9, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?10, ?11, ?12, ?13)";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot store the bound");
	bind_key(st, bi, methods);
	sqlite3_bind_text(st, 7, bi->pods_path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, bi->nodes_path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, gs_version(), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 10, bi->wall_ms);
	sqlite3_bind_int64(st, 11, bi->n_nodes);
	sqlite3_bind_int64(st, 12, bi->gpu_milli);
	sqlite3_bind_int64(st, 13, bi->n_arrivals);
	rc = gs_db_step_done(db, st, "cannot store the bound", err, err_len);
	sqlite3_finalize(st);
	if (!rc)
		*id_out = sqlite3_last_insert_rowid(db->conn);
	return rc;
}

int gs_bounds_write(struct gs_db *db, const struct gs_bound_info *bi,
		    const struct gs_bound_point *pts, size_t n, int64_t *bound_id_out, char *err,
		    size_t err_len)
{
	char methods[64];
	int64_t id = 0;
	int rc = check_info(db, bi, err, err_len);

	if (rc)
		return rc;
	methods_text(bi->methods, methods, sizeof(methods));
	pthread_mutex_lock(&db->lock);
	rc = gs_db_tx_begin(db, "cannot start writing the bound", err, err_len);
	if (!rc) {
		rc = write_bound(db, bi, methods, &id, err, err_len);
		if (!rc)
			rc = write_points(db, id, pts, n, err, err_len);
		rc = gs_db_tx_end(db, rc, "cannot commit the bound", err, err_len);
	}
	pthread_mutex_unlock(&db->lock);
	if (!rc && bound_id_out)
		*bound_id_out = id;
	return rc;
}

int gs_bounds_have(struct gs_db *db, const struct gs_bound_info *bi, const int32_t *pcts,
		   size_t n, char *err, size_t err_len)
{
	static const char sql[] =
		"SELECT count(DISTINCT p.arrived_pct) FROM bounds b JOIN bound_points p"
		" USING (bound_id) WHERE b.pods_sha256 = ?1 AND b.nodes_sha256 = ?2"
		" AND b.seed = ?3 AND b.inflate = ?4 AND b.methods = ?5"
		" AND (b.exact_time_limit_s IS ?6) AND p.arrived_pct = ?7";
	sqlite3_stmt *st;
	char methods[64];
	size_t i;
	int rc = check_info(db, bi, err, err_len), have = 1;

	if (rc)
		return rc;
	methods_text(bi->methods, methods, sizeof(methods));
	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot look up bounds");
		pthread_mutex_unlock(&db->lock);
		return rc;
	}
	bind_key(st, bi, methods);
	for (i = 0; i < n && have; i++) {
		sqlite3_bind_int(st, 7, pcts[i]);
		if (sqlite3_step(st) != SQLITE_ROW) {
			rc = gs_db_sqlfail(db, err, err_len, "cannot look up bounds");
			break;
		}
		have = sqlite3_column_int(st, 0) > 0;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc ? rc : have;
}

int gs_bounds_of_run(struct gs_db *db, int64_t run_id, double *out, int32_t max_pct, char *err,
		     size_t err_len)
{
	static const char sql[] =
		"SELECT p.arrived_pct, max(p.unalloc_gpu_pct_min) FROM runs r JOIN bounds b"
		" ON b.pods_sha256 = r.pods_sha256 AND b.nodes_sha256 = r.nodes_sha256"
		" AND b.seed = r.seed AND b.inflate = json_extract(r.params_json, '$.inflate')"
		" JOIN bound_points p ON p.bound_id = b.bound_id"
		" WHERE r.run_id = ?1 AND r.mode = 'inflate' AND p.n_samples > 0"
		" AND p.arrived_pct BETWEEN 0 AND ?2 GROUP BY p.arrived_pct";
	sqlite3_stmt *st;
	int32_t i, n = 0;
	int rc;

	for (i = 0; i <= max_pct; i++)
		out[i] = NAN;
	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot read bounds");
		pthread_mutex_unlock(&db->lock);
		return rc;
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, max_pct);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		out[sqlite3_column_int(st, 0)] = sqlite3_column_double(st, 1);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		n = gs_db_sqlfail(db, err, err_len, "cannot read bounds");
	pthread_mutex_unlock(&db->lock);
	return n;
}
