/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.c - copying the runs of one results database into another
 * (merge.h), for sweeps that ran as shards on several hosts.
 *
 * The input is attached to the output's connection and every statement is
 * an INSERT ... SELECT between the two, so rows are copied by SQLite as
 * they are stored, floating-point values included. Columns are named
 * explicitly, the ones both schemas have: an input of a newer minor may
 * have columns this build does not know, and they are left out.
 *
 * Bounds (store/bounds.h) are keyed by their inputs' checksums and copied
 * as they are. Decisions (store/decision.h) name runs by id, and ids
 * change: a temporary table maps each input run to its run in the output
 * (copied, or found there with the same results), and a decision's runs
 * and the run ids inside its verdict_json are rewritten through it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/strbuf.h"
#include "core/strv.h"
#include "io/cjson.h"
#include "store/digest.h"
#include "store/merge.h"
#include "store/plan.h"
#include "store/results_internal.h"

/* The tables a run owns rows of, in an order that satisfies the foreign keys. */
static const char *const child_tables[] = { "run_nodes", "pods", "samples", "arrived_stats",
					     "run_defrag" };
#define N_CHILD (sizeof(child_tables) / sizeof(child_tables[0]))

/* runs columns that say how or where a run was made or stored, not what it computed. */
static const char *const not_results[] = {
	"run_id", "status", "nodes_path", "pods_path", "gpusim_version", "started_at", "ended_at",
	"wall_ms", "pods_stored", "samples_stored",
};

/* The columns table has in both main and src, in main's order, as a malloc'ed list. */
static int common_columns(struct gs_db *db, const char *table, char ***cols_out, size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	char **cols = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (sqlite3_prepare_v2(db->conn,
			       "SELECT m.name FROM pragma_table_info(?1, 'main') m"
			       " WHERE m.name IN (SELECT s.name FROM pragma_table_info(?1, 'src') s)"
			       " ORDER BY m.cid",
			       -1, &st, NULL) != SQLITE_OK)
		return GS_EDB;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **c = gs_grow(cols, &cap, n, sizeof(*cols), 16);

		if (!c || !(c[n] = strdup((const char *)sqlite3_column_text(st, 0)))) {
			if (c)
				cols = c;
			rc = GS_ENOMEM;
			break;
		}
		cols = c;
		n++;
	}
	sqlite3_finalize(st);
	if (rc) {
		while (n)
			free(cols[--n]);
		free(cols);
		return rc;
	}
	*cols_out = cols;
	*n_out = n;
	return 0;
}

static bool is_result(const char *col)
{
	size_t i;

	for (i = 0; i < sizeof(not_results) / sizeof(not_results[0]); i++)
		if (strcmp(col, not_results[i]) == 0)
			return false;
	return true;
}

/* The prepared statements of one merge. */
struct merge {
	struct gs_db *db;
	sqlite3_stmt *src_runs;     /* the input's complete runs and their keys */
	sqlite3_stmt *find;         /* a complete run of the output with a key */
	sqlite3_stmt *same;         /* whether two runs' result columns agree */
	sqlite3_stmt *stats_diff;   /* arrived_stats rows of one run not in the other's */
	sqlite3_stmt *copy_run;
	sqlite3_stmt *copy_child[N_CHILD];
	sqlite3_stmt *copy_plans;
	sqlite3_stmt *map_put;      /* an input run id and its output run id */
	sqlite3_stmt *map_get;
	sqlite3_stmt *src_bounds;   /* the input's bounds the output has not */
	sqlite3_stmt *copy_bound, *copy_points;
	sqlite3_stmt *src_decisions; /* the input's decisions the output has not */
	sqlite3_stmt *copy_decision, *copy_decision_runs, *set_verdict_json;
};

static void merge_finalize(struct merge *m)
{
	size_t i;

	GS_DB_FINALIZE(m->src_runs, m->find, m->same, m->stats_diff, m->copy_run);
	for (i = 0; i < N_CHILD; i++)
		sqlite3_finalize(m->copy_child[i]);
	GS_DB_FINALIZE(m->copy_plans, m->map_put, m->map_get, m->src_bounds, m->copy_bound,
		       m->copy_points, m->src_decisions, m->copy_decision, m->copy_decision_runs,
		       m->set_verdict_json);
}

static int prepare_sql(struct merge *m, struct gs_strbuf *q, sqlite3_stmt **st)
{
	int rc;

	if (q->oom)
		rc = GS_ENOMEM;
	else
		rc = sqlite3_prepare_v2(m->db->conn, q->s, -1, st, NULL) == SQLITE_OK ? 0 : GS_EDB;
	gs_strbuf_release(q);
	return rc;
}

/* A column of a copy that is not copied as it is: left out (expr NULL), or set to expr. */
struct subst {
	const char *col, *expr;
};

/*
 * "INSERT INTO main.T (cols) SELECT cols FROM src.T t WHERE t.KEY = ?2",
 * over the columns both databases have, with the columns of subst left
 * out or replaced by their expressions.
 */
static int prepare_insert(struct merge *m, const char *table, const char *key,
			  const struct subst *subst, size_t n_subst, sqlite3_stmt **st)
{
	struct gs_strbuf q = { 0 };
	char **cols;
	size_t n, i, k, pass;
	bool first;
	int rc = common_columns(m->db, table, &cols, &n);

	if (rc)
		return rc;
	gs_strbuf_addf(&q, "INSERT INTO main.\"%s\" (", table);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, first = true; i < n; i++) {
			const char *expr = NULL;
			bool found = false;

			for (k = 0; k < n_subst && !found; k++)
				if (strcmp(cols[i], subst[k].col) == 0) {
					found = true;
					expr = subst[k].expr;
				}
			if (found && !expr)
				continue;
			if (pass == 0)
				gs_strbuf_addf(&q, "%s\"%s\"", first ? "" : ", ", cols[i]);
			else if (found)
				gs_strbuf_addf(&q, "%s%s", first ? "" : ", ", expr);
			else
				gs_strbuf_addf(&q, "%st.\"%s\"", first ? "" : ", ", cols[i]);
			first = false;
		}
		if (pass == 0)
			gs_strbuf_addf(&q, ") SELECT ");
	}
	gs_strbuf_addf(&q, " FROM src.\"%s\" t WHERE t.\"%s\" = ?2", table, key);
	gs_strv_free(cols, n);
	return prepare_sql(m, &q, st);
}

/* runs gets a new run_id, a child table the one bound to ?1. */
static int prepare_copy(struct merge *m, const char *table, bool is_runs, sqlite3_stmt **st)
{
	const struct subst id = { "run_id", is_runs ? NULL : "?1" };

	return prepare_insert(m, table, "run_id", &id, 1, st);
}

/* "SELECT 1 FROM main.runs a, src.runs b WHERE a.run_id = ?1 AND b.run_id = ?2 AND a.c IS b.c ..." */
static int prepare_same(struct merge *m)
{
	struct gs_strbuf q = { 0 };
	char **cols;
	size_t n, i;
	int rc = common_columns(m->db, "runs", &cols, &n);

	if (rc)
		return rc;
	gs_strbuf_addf(&q, "SELECT 1 FROM main.runs a, src.runs b WHERE a.run_id = ?1 AND b.run_id = ?2");
	for (i = 0; i < n; i++)
		if (is_result(cols[i]))
			gs_strbuf_addf(&q, " AND a.\"%s\" IS b.\"%s\"", cols[i], cols[i]);
	gs_strv_free(cols, n);
	return prepare_sql(m, &q, &m->same);
}

/* The statements that copy the bounds and the decisions, and keep the run map. */
static int prepare_records(struct merge *m)
{
	static const char sql_map_put[] =
		"INSERT OR REPLACE INTO temp.merge_map (old, new) VALUES (?1, ?2)";
	static const char sql_map_get[] = "SELECT new FROM temp.merge_map WHERE old = ?1";
	/* A bound is the same when the same inputs, settings and moment made it. */
	static const char sql_src_bounds[] =
		"SELECT b.bound_id FROM src.bounds b WHERE NOT EXISTS (SELECT 1 FROM main.bounds a"
		" WHERE a.pods_sha256 = b.pods_sha256 AND a.nodes_sha256 = b.nodes_sha256"
		" AND a.seed = b.seed AND a.inflate = b.inflate AND a.methods = b.methods"
		" AND a.exact_time_limit_s IS b.exact_time_limit_s AND a.created_at = b.created_at)"
		" ORDER BY b.bound_id";
	/*
	 * A decision is the same when the same question on the same cluster at
	 * the same moment gave the same verdict; the third column counts its
	 * runs that no complete run of the input maps.
	 */
	static const char sql_src_decisions[] =
		"SELECT d.decision_id, d.verdict_json, (SELECT count(*) FROM src.decision_runs r"
		"  WHERE r.decision_id = d.decision_id"
		"  AND r.run_id NOT IN (SELECT old FROM temp.merge_map))"
		" FROM src.decisions d WHERE NOT EXISTS (SELECT 1 FROM main.decisions a"
		" WHERE a.created_at = d.created_at AND a.nodes_sha256 = d.nodes_sha256"
		" AND a.objective = d.objective AND a.constraints = d.constraints"
		" AND a.targets = d.targets AND a.baseline = d.baseline AND a.verdict = d.verdict)"
		" ORDER BY d.decision_id";
	static const char sql_set_json[] =
		"UPDATE main.decisions SET verdict_json = ?1 WHERE decision_id = ?2";
	static const struct subst new_bound = { "bound_id", NULL }, bound_of = { "bound_id", "?1" };
	static const struct subst new_decision = { "decision_id", NULL };
	static const struct subst decision_run[] = {
		{ "decision_id", "?1" },
		{ "run_id", "(SELECT new FROM temp.merge_map WHERE old = t.run_id)" },
	};
	int rc;

	if (sqlite3_prepare_v2(m->db->conn, sql_map_put, -1, &m->map_put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_map_get, -1, &m->map_get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_src_bounds, -1, &m->src_bounds, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_src_decisions, -1, &m->src_decisions, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_set_json, -1, &m->set_verdict_json, NULL) !=
		    SQLITE_OK)
		return GS_EDB;
	rc = prepare_insert(m, "bounds", "bound_id", &new_bound, 1, &m->copy_bound);
	if (!rc)
		rc = prepare_insert(m, "bound_points", "bound_id", &bound_of, 1, &m->copy_points);
	if (!rc)
		rc = prepare_insert(m, "decisions", "decision_id", &new_decision, 1,
				    &m->copy_decision);
	if (!rc)
		rc = prepare_insert(m, "decision_runs", "decision_id", decision_run, 2,
				    &m->copy_decision_runs);
	return rc;
}

static int merge_prepare(struct merge *m)
{
	static const char sql_src_runs[] =
		"SELECT run_id, pods_sha256, policy, seed, nodes_sha256, params_json,"
		" n_nodes, CASE WHEN pods_stored THEN n_pods ELSE 0 END"
		" FROM src.runs WHERE status = 'complete' ORDER BY run_id";
	static const char sql_find[] =
		"SELECT run_id FROM main.runs WHERE pods_sha256 = ?1 AND policy = ?2 AND seed = ?3"
		" AND nodes_sha256 = ?4 AND params_json = ?5 AND status = 'complete'"
		" ORDER BY run_id DESC LIMIT 1";
	/* Both ways: rows of ?1 in main not in ?2 of src, plus the other way round. */
	static const char sql_stats_diff[] =
		"SELECT (SELECT count(*) FROM (SELECT arrived_pct, n_samples, gpu_alloc_pct_sum,"
		"  unalloc_gpu_pct_sum, frag_ratio_pct_sum, frag_amount_pct_sum"
		"  FROM main.arrived_stats WHERE run_id = ?1 EXCEPT"
		"  SELECT arrived_pct, n_samples, gpu_alloc_pct_sum, unalloc_gpu_pct_sum,"
		"  frag_ratio_pct_sum, frag_amount_pct_sum FROM src.arrived_stats WHERE run_id = ?2))"
		" + (SELECT count(*) FROM (SELECT arrived_pct, n_samples, gpu_alloc_pct_sum,"
		"  unalloc_gpu_pct_sum, frag_ratio_pct_sum, frag_amount_pct_sum"
		"  FROM src.arrived_stats WHERE run_id = ?2 EXCEPT"
		"  SELECT arrived_pct, n_samples, gpu_alloc_pct_sum, unalloc_gpu_pct_sum,"
		"  frag_ratio_pct_sum, frag_amount_pct_sum FROM main.arrived_stats WHERE run_id = ?1))";
	static const char sql_plans[] =
		"INSERT OR IGNORE INTO main.sweep_plans (plan_id, cell, pods_sha256, policy, seed,"
		" nodes_sha256, params_json, pods_path, nodes_path)"
		" SELECT plan_id, cell, pods_sha256, policy, seed, nodes_sha256, params_json,"
		" pods_path, nodes_path FROM src.sweep_plans";
	size_t i;
	int rc;

	if (sqlite3_prepare_v2(m->db->conn, sql_src_runs, -1, &m->src_runs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_find, -1, &m->find, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_stats_diff, -1, &m->stats_diff, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(m->db->conn, sql_plans, -1, &m->copy_plans, NULL) != SQLITE_OK)
		return GS_EDB;
	rc = prepare_same(m);
	if (!rc)
		rc = prepare_copy(m, "runs", true, &m->copy_run);
	for (i = 0; !rc && i < N_CHILD; i++)
		rc = prepare_copy(m, child_tables[i], false, &m->copy_child[i]);
	if (!rc)
		rc = prepare_records(m);
	return rc;
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : GS_EDB;
}

/* Whether out's run a and src's run b computed the same (see plan.h). */
static int same_results(struct merge *m, int64_t a, int64_t b, bool *same)
{
	int step;

	sqlite3_bind_int64(m->same, 1, a);
	sqlite3_bind_int64(m->same, 2, b);
	step = sqlite3_step(m->same);
	sqlite3_reset(m->same);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return GS_EDB;
	*same = step == SQLITE_ROW;
	if (!*same)
		return 0;
	sqlite3_bind_int64(m->stats_diff, 1, a);
	sqlite3_bind_int64(m->stats_diff, 2, b);
	step = sqlite3_step(m->stats_diff);
	if (step == SQLITE_ROW)
		*same = sqlite3_column_int64(m->stats_diff, 0) == 0;
	sqlite3_reset(m->stats_diff);
	return step == SQLITE_ROW ? 0 : GS_EDB;
}

/*
 * Copies run old_id, whose runs row says it has n_nodes node rows and
 * n_pods pod rows. Returns 0, GS_EDB, or GS_EINVAL with *short_table and
 * *got set when the input holds fewer or more rows than its runs row says
 * (a damaged input: the run is not copied in part).
 */
static int copy_one(struct merge *m, int64_t old_id, int64_t n_nodes, int64_t n_pods,
		    const char **short_table, int64_t *got, int64_t *want)
{
	int64_t new_id;
	size_t i;
	int rc;

	sqlite3_bind_int64(m->copy_run, 2, old_id);
	rc = step_done(m->copy_run);
	if (rc)
		return rc;
	new_id = sqlite3_last_insert_rowid(m->db->conn);
	for (i = 0; i < N_CHILD; i++) {
		int64_t expect = strcmp(child_tables[i], "run_nodes") == 0 ? n_nodes
				 : strcmp(child_tables[i], "pods") == 0 ? n_pods : -1;

		sqlite3_bind_int64(m->copy_child[i], 1, new_id);
		sqlite3_bind_int64(m->copy_child[i], 2, old_id);
		rc = step_done(m->copy_child[i]);
		if (rc)
			return rc;
		if (expect >= 0 && sqlite3_changes(m->db->conn) != expect) {
			*short_table = child_tables[i];
			*got = sqlite3_changes(m->db->conn);
			*want = expect;
			return GS_EINVAL;
		}
	}
	return 0;
}

/* Input run old_id is the output's run new_id from now on. */
static int map_run(struct merge *m, int64_t old_id, int64_t new_id)
{
	sqlite3_bind_int64(m->map_put, 1, old_id);
	sqlite3_bind_int64(m->map_put, 2, new_id);
	return step_done(m->map_put);
}

/* Copies the input's bounds the output has not, each with its points. */
static int copy_bounds(struct merge *m, struct gs_merge_stats *st)
{
	int step, rc = 0;

	while (rc == 0 && (step = sqlite3_step(m->src_bounds)) == SQLITE_ROW) {
		int64_t old_id = sqlite3_column_int64(m->src_bounds, 0);

		sqlite3_bind_int64(m->copy_bound, 2, old_id);
		rc = step_done(m->copy_bound);
		if (rc)
			break;
		sqlite3_bind_int64(m->copy_points, 1, sqlite3_last_insert_rowid(m->db->conn));
		sqlite3_bind_int64(m->copy_points, 2, old_id);
		rc = step_done(m->copy_points);
		st->bounds++;
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = GS_EDB;
	sqlite3_reset(m->src_bounds);
	return rc;
}

/*
 * Every "run_id" number inside a verdict's JSON (its candidates' runs)
 * replaced by the output's id for it. GS_EINVAL when one has none.
 */
static int map_json_ids(struct merge *m, cJSON *node)
{
	cJSON *c;
	int rc;

	if (node->string && strcmp(node->string, "run_id") == 0 && cJSON_IsNumber(node)) {
		int step;

		sqlite3_bind_int64(m->map_get, 1, (sqlite3_int64)node->valuedouble);
		step = sqlite3_step(m->map_get);
		if (step == SQLITE_ROW)
			cJSON_SetNumberValue(node, (double)sqlite3_column_int64(m->map_get, 0));
		sqlite3_reset(m->map_get);
		return step == SQLITE_ROW ? 0 : step == SQLITE_DONE ? GS_EINVAL : GS_EDB;
	}
	for (c = node->child; c; c = c->next) {
		rc = map_json_ids(m, c);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Copies the input's decisions the output has not, their runs and the run
 * ids of their verdict_json mapped to the output's. A decision resting on
 * a run the input does not hold complete is left out and counted. Returns
 * 0, GS_ENOMEM, GS_EDB, or GS_EINVAL with a message (a verdict_json that
 * is not JSON, or names a run that is not among the decision's).
 */
static int copy_decisions(struct merge *m, const char *in_path, struct gs_merge_stats *st,
			  char *err, size_t err_len)
{
	int step, rc = 0;

	while (rc == 0 && (step = sqlite3_step(m->src_decisions)) == SQLITE_ROW) {
		int64_t old_id = sqlite3_column_int64(m->src_decisions, 0), new_id;
		const char *json = (const char *)sqlite3_column_text(m->src_decisions, 1);
		cJSON *tree;
		char *text;

		if (sqlite3_column_int64(m->src_decisions, 2) > 0) {
			st->decisions_left_out++;
			continue;
		}
		tree = json ? gs_cjson_parse(json, strlen(json), NULL) : NULL;
		if (!tree) {
			if (gs_cjson_oom())
				return GS_ENOMEM;
			rc = gs_db_fail(err, err_len, GS_EINVAL, "%s: decision %" PRId64 ": its "
					"verdict_json is not JSON; nothing was merged", in_path,
					old_id);
			break;
		}
		rc = map_json_ids(m, tree);
		if (rc == GS_EINVAL)
			gs_db_fail(err, err_len, rc, "%s: decision %" PRId64 ": its verdict_json "
				   "names a run that is not complete in it; nothing was merged",
				   in_path, old_id);
		text = rc ? NULL : cJSON_Print(tree);
		cJSON_Delete(tree);
		if (rc)
			break;
		if (!text)
			return GS_ENOMEM;
		sqlite3_bind_int64(m->copy_decision, 2, old_id);
		rc = step_done(m->copy_decision);
		new_id = sqlite3_last_insert_rowid(m->db->conn);
		if (!rc) {
			sqlite3_bind_int64(m->copy_decision_runs, 1, new_id);
			sqlite3_bind_int64(m->copy_decision_runs, 2, old_id);
			rc = step_done(m->copy_decision_runs);
		}
		if (!rc) {
			sqlite3_bind_text(m->set_verdict_json, 1, text, -1, SQLITE_STATIC);
			sqlite3_bind_int64(m->set_verdict_json, 2, new_id);
			rc = step_done(m->set_verdict_json);
		}
		free(text);
		st->decisions++;
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = GS_EDB;
	sqlite3_reset(m->src_decisions);
	return rc;
}

/* Refuses merging a file into itself, which SQLite would only report as a lock. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The tables a merge reads from its input. */
static const char *const input_tables[] = { "runs", "run_nodes", "pods", "samples",
					    "arrived_stats", "sweep_plans", "bounds", "bound_points",
					    "decisions", "decision_runs" };

/* Whether in has every table a merge reads; GS_EINVAL naming the first missing. */
static int check_tables(struct gs_db *in, const char *in_path, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int step;

	for (i = 0; i < sizeof(input_tables) / sizeof(input_tables[0]); i++) {
		if (sqlite3_prepare_v2(in->conn, "SELECT count(*) FROM pragma_table_info(?1)", -1, &st,
				       NULL) != SQLITE_OK)
			return gs_db_sqlfail(in, err, err_len, "cannot read the schema");
		sqlite3_bind_text(st, 1, input_tables[i], -1, SQLITE_STATIC);
		step = sqlite3_step(st);
		if (step != SQLITE_ROW) {
			sqlite3_finalize(st);
			return gs_db_sqlfail(in, err, err_len, "cannot read the schema");
		}
		if (sqlite3_column_int64(st, 0) == 0) {
			sqlite3_finalize(st);
			return gs_db_fail(err, err_len, GS_EINVAL, "%s: has no table %s, which every "
					  "gpusim database has; it is damaged or not gpusim's, and "
					  "nothing of it was merged", in_path, input_tables[i]);
		}
		sqlite3_finalize(st);
	}
	return 0;
}

/*
 * SQLite's integrity check on in. integrity_check, not quick_check: it
 * also holds the indexes to the tables, so that a flipped bit in a key is
 * found before rows are copied.
 */
static int check_integrity(struct gs_db *in, const char *in_path, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	const char *first;
	int rc = 0;

	if (sqlite3_prepare_v2(in->conn, "PRAGMA integrity_check(1)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		/* Out of memory, an I/O error, or damage found before any row: said as such. */
		rc = gs_db_sqlfail(in, err, err_len, "integrity check");
		sqlite3_finalize(st);
		return rc;
	}
	first = (const char *)sqlite3_column_text(st, 0);
	/* The check reports its own allocation failure as a row of text. */
	if ((!first && sqlite3_errcode(in->conn) == SQLITE_NOMEM) ||
	    (first && strcmp(first, "out of memory") == 0))
		rc = gs_db_fail(err, err_len, GS_ENOMEM, "%s: integrity check: out of memory",
				in_path);
	else if (!first || strcmp(first, "ok") != 0)
		rc = gs_db_fail(err, err_len, GS_EINVAL, "%s: is damaged (SQLite's integrity check: "
				"%s); nothing of it was merged", in_path, first ? first : "no answer");
	sqlite3_finalize(st);
	return rc;
}

/* The checksum of every complete run of in (store/digest.h). */
static int check_digests(struct gs_db *in, const char *in_path, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, step;

	if (sqlite3_prepare_v2(in->conn, "SELECT run_id FROM runs WHERE status = 'complete'"
			       " ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(in, err, err_len, "cannot read the runs");
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = gs_db_digest_check(in, "main", in_path, sqlite3_column_int64(st, 0), err,
					err_len);
	if (rc == 0 && step != SQLITE_DONE)
		rc = gs_db_sqlfail(in, err, err_len, "cannot read the runs");
	sqlite3_finalize(st);
	return rc;
}

int gs_db_merge_check(const char *in_path, char *err, size_t err_len)
{
	struct gs_db *in = NULL;
	int rc;

	/* Open it as every gpusim command does: refuse a foreign file or major, migrate a minor. */
	rc = gs_db_open_existing(in_path, &in, err, err_len);
	if (rc)
		return rc;
	rc = check_tables(in, in_path, err, err_len);
	if (!rc)
		rc = check_integrity(in, in_path, err, err_len);
	if (!rc)
		rc = check_digests(in, in_path, err, err_len);
	gs_db_close(in);
	return rc;
}

int gs_db_merge(struct gs_db *out, const char *in_path, struct gs_merge_stats *st, char *err,
		size_t err_len)
{
	struct merge m;
	struct gs_db *in = NULL;
	sqlite3_stmt *attach = NULL;
	char why[512];
	int rc, step;

	memset(st, 0, sizeof(*st));
	memset(&m, 0, sizeof(m));
	m.db = out;
	if (same_file(out->path, in_path))
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: is the output database itself",
				  in_path);
	/* Opened as every command does (a minor migrated), and its tables there; each run is checked as it is copied. */
	rc = gs_db_open_existing(in_path, &in, err, err_len);
	if (rc)
		return rc;
	rc = check_tables(in, in_path, err, err_len);
	gs_db_close(in);
	if (rc)
		return rc;

	pthread_mutex_lock(&out->lock);
	if (sqlite3_prepare_v2(out->conn, "ATTACH DATABASE ?1 AS src", -1, &attach, NULL) !=
		    SQLITE_OK ||
	    (sqlite3_bind_text(attach, 1, in_path, -1, SQLITE_STATIC), sqlite3_step(attach)) !=
		    SQLITE_DONE) {
		rc = gs_db_sqlfail(out, err, err_len, "cannot attach the input");
		sqlite3_finalize(attach);
		pthread_mutex_unlock(&out->lock);
		return rc;
	}
	sqlite3_finalize(attach);
	if (sqlite3_exec(out->conn, "CREATE TEMP TABLE IF NOT EXISTS merge_map (old INTEGER"
			 " PRIMARY KEY, new INTEGER NOT NULL); DELETE FROM temp.merge_map",
			 NULL, NULL, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(out, err, err_len, "cannot make the merge's run map");
		goto detach;
	}
	rc = merge_prepare(&m);
	if (rc) {
		if (rc == GS_ENOMEM)
			gs_db_fail(err, err_len, rc, "out of memory");
		else
			gs_db_sqlfail(out, err, err_len, "cannot prepare the merge");
		goto detach;
	}
	rc = gs_db_tx_begin(out, "cannot start the merge's transaction", err, err_len);
	if (rc)
		goto detach;
	while ((step = sqlite3_step(m.src_runs)) == SQLITE_ROW) {
		int64_t old_id = sqlite3_column_int64(m.src_runs, 0), have;
		bool same;
		int i;

		st->runs++;
		for (i = 1; i <= 5; i++)
			sqlite3_bind_value(m.find, i, sqlite3_column_value(m.src_runs, i));
		step = sqlite3_step(m.find);
		have = step == SQLITE_ROW ? sqlite3_column_int64(m.find, 0) : -1;
		sqlite3_reset(m.find);
		if (step != SQLITE_ROW && step != SQLITE_DONE) {
			rc = gs_db_sqlfail(out, err, err_len, "cannot look up a run");
			goto end;
		}
		if (have < 0) {
			const char *table = NULL;
			int64_t got = 0, want = 0;

			rc = gs_db_digest_check(out, "src", in_path, old_id, err, err_len);
			if (rc) {
				if (rc == GS_EINVAL)
					snprintf(err + strlen(err), err_len - strlen(err),
						 "; nothing of it was merged");
				goto end;
			}

			rc = copy_one(&m, old_id, sqlite3_column_int64(m.src_runs, 6),
				      sqlite3_column_int64(m.src_runs, 7), &table, &got, &want);
			if (rc == GS_EINVAL) {
				gs_db_fail(err, err_len, rc, "%s: run %" PRId64 " is damaged: %" PRId64
					   " rows in %s where its runs row says %" PRId64
					   "; nothing was merged", in_path, old_id, got, table, want);
				goto end;
			}
			if (rc) {
				snprintf(why, sizeof(why), "cannot copy run %" PRId64 " of %s", old_id,
					 in_path);
				rc = gs_db_sqlfail(out, err, err_len, why);
				goto end;
			}
			rc = map_run(&m, old_id, sqlite3_last_insert_rowid(out->conn));
			if (rc) {
				rc = gs_db_sqlfail(out, err, err_len, "cannot map a copied run");
				goto end;
			}
			st->copied++;
			continue;
		}
		rc = same_results(&m, have, old_id, &same);
		if (rc) {
			rc = gs_db_sqlfail(out, err, err_len, "cannot compare two runs");
			goto end;
		}
		if (!same) {
			rc = gs_db_fail(err, err_len, GS_EEXIST,
					"%s: run %" PRId64 " (%s, seed %lld) has the key of run %" PRId64
					" of %s but other results; nothing was merged",
					in_path, old_id,
					(const char *)sqlite3_column_text(m.src_runs, 2),
					(long long)sqlite3_column_int64(m.src_runs, 3), have,
					out->path);
			goto end;
		}
		rc = map_run(&m, old_id, have);
		if (rc) {
			rc = gs_db_sqlfail(out, err, err_len, "cannot map a run");
			goto end;
		}
		st->identical++;
	}
	if (step != SQLITE_DONE) {
		rc = gs_db_sqlfail(out, err, err_len, "cannot read the input's runs");
		goto end;
	}
	if (step_done(m.copy_plans)) {
		rc = gs_db_sqlfail(out, err, err_len, "cannot copy the input's plans");
		goto end;
	}
	st->plan_cells = sqlite3_changes(out->conn);
	rc = copy_bounds(&m, st);
	if (rc) {
		rc = gs_db_sqlfail(out, err, err_len, "cannot copy the input's bounds");
		goto end;
	}
	rc = copy_decisions(&m, in_path, st, err, err_len);
	if (rc == GS_ENOMEM) {
		gs_db_fail(err, err_len, rc, "out of memory");
		goto end;
	}
	if (rc == GS_EDB)
		rc = gs_db_sqlfail(out, err, err_len, "cannot copy the input's decisions");
	if (rc)
		goto end;
end:
	sqlite3_reset(m.src_runs);
	rc = gs_db_tx_end(out, rc, "cannot commit the merge", err, err_len);
	if (rc)
		memset(st, 0, sizeof(*st));
detach:
	merge_finalize(&m);
	sqlite3_exec(out->conn, "DROP TABLE IF EXISTS temp.merge_map", NULL, NULL, NULL);
	sqlite3_exec(out->conn, "DETACH DATABASE src", NULL, NULL, NULL);
	pthread_mutex_unlock(&out->lock);
	return rc;
}
