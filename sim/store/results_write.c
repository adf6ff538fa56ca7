/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_write.c - the results store's writer: one run, its nodes, pods,
 * samples and per-percent statistics, in one transaction; and the lookup
 * a resumable sweep makes for a run already stored. A run's params_json
 * comes from gs_replay_params_json() (engine/replay.h).
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/version.h"
#include "engine/arrived_stats.h"
#include "io/cjson.h"
#include "store/digest.h"
#include "store/results.h"
#include "store/results_internal.h"
#include "store/run_defrag.h"

static const char sql_insert_run[] =
	"INSERT INTO runs (" GS_DB_RUNS_COLUMN_LIST_1_7 GS_DB_RUNS_COLUMN_LIST_1_9 ")"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
	" ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34,"
	" ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, ?51,"
	" ?52, ?53, ?54, ?55, ?56, ?57, ?58, ?59, ?60, ?61, ?62, ?63, ?64, ?65, ?66, ?67, ?68,"
	" ?69, ?70, ?71)";
static const char sql_run_done[] =
	"UPDATE runs SET status = 'complete', rows_checksum = ?2 WHERE run_id = ?1";
#define N_NODE_COLUMNS 9
static const char node_columns[] = "run_id, " GS_DB_NODE_COLUMN_LIST_1_7;
/*
 * Nodes, pods and samples go in with multi-row INSERTs of ROWS_PER_INSERT rows
 * (the tail one row at a time): one statement per 32 rows instead of per
 * row roughly halves the cost of a run's write. The column lists are
 * spelled once; both statements are generated from them.
 */
#define ROWS_PER_INSERT 32
#define N_POD_COLUMNS 21
static const char pod_columns[] = "run_id, " GS_DB_POD_COLUMN_LIST_1_7;
#define N_SAMPLE_COLUMNS 17
static const char sample_columns[] =
	"run_id, " GS_DB_SAMPLE_COLUMN_LIST_1_7 GS_DB_SAMPLE_COLUMN_LIST_1_9;
static const char sql_insert_stat[] =
	"INSERT INTO arrived_stats (run_id, " GS_DB_STAT_COLUMN_LIST_1_7 ")"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char sql_unclaim[] =
	"DELETE FROM run_claims WHERE pods_sha256 = ?1 AND policy = ?2 AND seed = ?3"
	" AND nodes_sha256 = ?4 AND params_json = ?5";
static const char sql_find_run[] =
	"SELECT run_id FROM runs WHERE pods_sha256 = ?1 AND policy = ?2 AND seed = ?3"
	" AND nodes_sha256 = ?4 AND params_json = ?5 AND status = 'complete'"
	" ORDER BY run_id DESC LIMIT 1";

static int prepare(struct gs_db *db, const char *sql, sqlite3_stmt **st, char *err,
		   size_t err_len)
{
	if (*st)
		return 0;
	if (sqlite3_prepare_v3(db->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) !=
	    SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot prepare a statement");
	return 0;
}

/* Prepares "INSERT INTO table (columns) VALUES (?, ...), ..." for n_rows rows. */
static int prepare_insert(struct gs_db *db, const char *table, const char *columns, int n_cols,
			  int n_rows, sqlite3_stmt **st, char *err, size_t err_len)
{
	/* "(?,?,...)," is 2 * n_cols + 2 characters per row. */
	size_t len = strlen(table) + strlen(columns) + 64 +
		     (size_t)n_rows * (2 * (size_t)n_cols + 3);
	size_t used;
	char *sql;
	int r, c, rc;

	if (*st)
		return 0;
	sql = malloc(len);
	if (!sql)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	used = (size_t)snprintf(sql, len, "INSERT INTO %s (%s) VALUES ", table, columns);
	for (r = 0; r < n_rows; r++) {
		sql[used++] = r ? ',' : ' ';
		sql[used++] = '(';
		for (c = 0; c < n_cols; c++) {
			if (c)
				sql[used++] = ',';
			sql[used++] = '?';
		}
		sql[used++] = ')';
	}
	sql[used] = '\0';
	rc = prepare(db, sql, st, err, err_len);
	free(sql);
	return rc;
}

static int prepare_writers(struct gs_db *db, char *err, size_t err_len)
{
	int rc;

	rc = prepare(db, sql_insert_run, &db->st_run, err, err_len);
	if (!rc)
		rc = prepare(db, sql_run_done, &db->st_run_done, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "run_nodes", node_columns, N_NODE_COLUMNS, 1, &db->st_node,
				    err, err_len);
	if (!rc)
		rc = prepare_insert(db, "run_nodes", node_columns, N_NODE_COLUMNS, ROWS_PER_INSERT,
				    &db->st_nodes, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "pods", pod_columns, N_POD_COLUMNS, 1, &db->st_pod, err,
				    err_len);
	if (!rc)
		rc = prepare_insert(db, "pods", pod_columns, N_POD_COLUMNS, ROWS_PER_INSERT,
				    &db->st_pods, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "samples", sample_columns, N_SAMPLE_COLUMNS, 1,
				    &db->st_sample, err, err_len);
	if (!rc)
		rc = prepare_insert(db, "samples", sample_columns, N_SAMPLE_COLUMNS,
				    ROWS_PER_INSERT, &db->st_samples, err, err_len);
	if (!rc)
		rc = prepare(db, sql_insert_stat, &db->st_stat, err, err_len);
	if (!rc)
		rc = prepare(db, sql_unclaim, &db->st_unclaim, err, err_len);
	return rc;
}

/* Binds a whole number held in a double (a percentile of integers), or NULL for NAN. */
static void bind_opt_whole(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, (int64_t)llround(v));
}

/* Steps an INSERT/UPDATE once and resets it; returns the SQLite code. */
static int step_once(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Rows the next INSERT of a table takes, with left rows to go: a full batch, or one. */
static size_t batch_rows(size_t left)
{
	return left >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 1;
}

/*
 * Steps the INSERT of rows i .. i + rows - 1 of a table whose rows are
 * called `row`: 0, or GS_EDB with "cannot write pods 0-31" or "cannot
 * write pod 32" and SQLite's message in err.
 */
static int step_rows(struct gs_db *db, sqlite3_stmt *st, const char *row, size_t i, size_t rows,
		     char *err, size_t err_len)
{
	char what[64];

	if (step_once(st) == SQLITE_OK)
		return 0;
	if (rows > 1)
		snprintf(what, sizeof(what), "cannot write %ss %zu-%zu", row, i, i + rows - 1);
	else
		snprintf(what, sizeof(what), "cannot write %s %zu", row, i);
	return gs_db_sqlfail(db, err, err_len, what);
}

/* ISO-8601 UTC with milliseconds, as SQLite's date functions read it; "" when unset. */
static void format_utc(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char day[32];

	buf[0] = '\0';
	if (ts->tv_sec == 0 && ts->tv_nsec == 0)
		return;
	if (!gmtime_r(&ts->tv_sec, &tm))
		return;
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", day, ts->tv_nsec / 1000000L);
}

/* "0,3": the GPUs of a placement. Returns false for an impossible placement. */
static bool format_gpus(const struct gs_placement *pl, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	if (pl->num_gpu < 0 || pl->num_gpu > GS_MAX_GPUS)
		return false;
	for (i = 0; i < pl->num_gpu; i++) {
		if (pl->gpu[i] >= GS_MAX_GPUS)
			return false;
		used += (size_t)snprintf(buf + used, len - used, i ? ",%u" : "%u",
					 (unsigned)pl->gpu[i]);
	}
	return true;
}

/* "A10|T4": the allowed models of a pod, NULL for any. Returns false for an unknown bit. */
static bool format_spec(const struct gs_models *m, uint32_t mask, char *buf, size_t len,
			const char **out)
{
	size_t used = 0;
	int i;

	*out = NULL;
	if (mask == 0)
		return true;
	buf[0] = '\0';
	for (i = 0; i < GS_MAX_MODELS; i++) {
		if (!((mask >> i) & 1u))
			continue;
		if (i >= m->n)
			return false;
		used += (size_t)snprintf(buf + used, len - used, used ? "|%s" : "%s", m->m[i].name);
		if (used >= len)
			return false;
	}
	*out = buf;
	return true;
}

/* "3g.40gb@4,1g.10gb@0": the MIG instance on each GPU of a placed pod; false when none. */
static bool format_mig(const struct gs_sim *sim, const struct gs_pod_outcome *o, char *buf,
		       size_t len)
{
	const struct gs_mig_table *t = gs_cluster_mig_table(&sim->cluster, o->pl.node);
	size_t used = 0;
	int k;

	buf[0] = '\0';
	if (!t)
		return false;
	for (k = 0; k < o->pl.num_gpu && used < len; k++)
		if (o->pl.mig[k] && o->mig_prof[k] >= 0 && o->mig_prof[k] < t->n)
			used += (size_t)snprintf(buf + used, len - used, "%s%s@%d", used ? "," : "",
						 t->p[o->mig_prof[k]].name, o->pl.mig[k] - 1);
	return buf[0] != '\0';
}

/*
 * Checks that sim's run can be written; *wait_total_s: the sum of its pods'
 * wait_s, stored or not.
 */
static int validate_run(const struct gs_db *db, const struct gs_run_info *ri,
			const struct gs_sim *sim, int64_t *wait_total_s, char *err,
			size_t err_len)
{
	const char *missing = NULL;
	size_t i;

	if (!ri || !sim)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: no run to write", db->path);
	if (!ri->policy)
		missing = "policy";
	else if (!ri->mode)
		missing = "mode";
	else if (!ri->nodes_sha256)
		missing = "nodes_sha256";
	else if (!ri->pods_sha256)
		missing = "pods_sha256";
	else if (!ri->params_json)
		missing = "params_json";
	else if (!sim->trace)
		missing = "trace";
	else if (sim->n_pods && (!sim->pods || !sim->out))
		missing = "pod outcomes";
	else if (sim->n_samples && !sim->samples)
		missing = "samples";
	if (missing)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: run not written: no %s given",
				  db->path, missing);
	if (ri->seed > (uint64_t)INT64_MAX)
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: seed %" PRIu64 " is above %" PRId64,
				  db->path, ri->seed, INT64_MAX);

	*wait_total_s = 0;
	for (i = 0; i < sim->n_pods; i++) {
		const struct gs_pod_outcome *o = &sim->out[i];

		if (o->state >= GS_DB_POD_STATES)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: pod %zu has unknown state %u",
					  db->path, i, (unsigned)o->state);
		if (o->src < 0 || (size_t)o->src >= sim->trace->n_pods)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: pod %zu comes from trace row "
					  "%" PRId32 ", the trace has %zu",
					  db->path, i, o->src, sim->trace->n_pods);
		/* As bind_pod() computes pods.wait_s. */
		if ((o->state == GS_POD_RUNNING || o->state == GS_POD_DONE) && o->t_start_s >= 0 &&
		    o->t_arrive_s >= 0)
			*wait_total_s += o->t_start_s - o->t_arrive_s;
	}
	return 0;
}

/* The 1.1 columns from event_metrics on, at parameters base .. base + 24. */
static void bind_time_metrics(sqlite3_stmt *st, int base, const struct gs_sim *sim)
{
	const struct gs_time_metrics *m = &sim->tm;
	bool on = sim->opts.mode == GS_MODE_TIME && m->valid;
	int i;

	sqlite3_bind_int64(st, base, sim->opts.mode == GS_MODE_TIME ? 1 : 0);
	if (!on) {
		for (i = 1; i < GS_DB_RUNS_COLUMNS_1_1; i++)
			sqlite3_bind_null(st, base + i);
		return;
	}
	sqlite3_bind_int64(st, base + 1, m->t_first_arrival_s);
	sqlite3_bind_int64(st, base + 2, m->t_last_arrival_s);
	sqlite3_bind_int64(st, base + 3, m->makespan_s);
	sqlite3_bind_int64(st, base + 4, m->busy_s);
	bind_opt_whole(st, base + 5, m->wait_p50_s);
	bind_opt_whole(st, base + 6, m->wait_p90_s);
	bind_opt_whole(st, base + 7, m->wait_p99_s);
	bind_opt_whole(st, base + 8, m->wait_max_s);
	sqlite3_bind_int64(st, base + 9, m->n_completed);
	gs_db_bind_real(st, base + 10, m->completion_mean_s, true);
	bind_opt_whole(st, base + 11, m->completion_p50_s);
	bind_opt_whole(st, base + 12, m->completion_p90_s);
	bind_opt_whole(st, base + 13, m->completion_p99_s);
	bind_opt_whole(st, base + 14, m->completion_max_s);
	gs_db_bind_real(st, base + 15, m->slowdown_mean, true);
	gs_db_bind_real(st, base + 16, m->slowdown_p99, true);
	gs_db_bind_real(st, base + 17, m->pending_avg, true);
	sqlite3_bind_int64(st, base + 18, m->pending_peak);
	gs_db_bind_real(st, base + 19, m->gpu_alloc_arrival_pct, true);
	gs_db_bind_real(st, base + 20, m->gpu_alloc_busy_pct, true);
	gs_db_bind_real(st, base + 21, m->gpu_alloc_peak_pct, true);
	gs_db_bind_real(st, base + 22, m->frag_avg_pct, true);
	sqlite3_bind_int64(st, base + 23, m->n_timed_out);
	gs_db_bind_real(st, base + 24, m->offered_load_pct, true);
}

/*
 * Which samples a run stores: all of them, or, for an inflate run without
 * ri->arrival_samples, only the ones its summary reads (the first with the
 * largest allocation, the first with the longest queue if that is not 0,
 * and the last); the per-percent statistics stand in for the rest.
 */
static bool all_samples(const struct gs_run_info *ri, const struct gs_sim *sim)
{
	return sim->opts.mode != GS_MODE_INFLATE || ri->arrival_samples;
}

static int insert_run(struct gs_db *db, const struct gs_run_info *ri, const struct gs_sim *sim,
		      int64_t wait_total_s, const struct gs_arrived_stats *stats)
{
	const struct gs_cluster *c = &sim->cluster;
	sqlite3_stmt *st = db->st_run;
	char started[48], ended[48];
	struct gs_summary sum;

	/* The pods' counts by state, the groups and the idle breakdown, as replay prints them. */
	gs_sim_summarize(sim, &sum);
	format_utc(&ri->started_at, started, sizeof(started));
	format_utc(&ri->ended_at, ended, sizeof(ended));
	gs_db_bind_text(st, 1, ri->policy);
	gs_db_bind_text(st, 2, ri->mode);
	sqlite3_bind_int64(st, 3, (int64_t)ri->seed);
	gs_db_bind_text(st, 4, ri->nodes_path);
	gs_db_bind_text(st, 5, ri->nodes_sha256);
	gs_db_bind_text(st, 6, ri->pods_path);
	gs_db_bind_text(st, 7, ri->pods_sha256);
	gs_db_bind_text(st, 8, ri->params_json);
	gs_db_bind_text(st, 9, ri->gpusim_version ? ri->gpusim_version : gs_version());
	gs_db_bind_text(st, 10, started[0] ? started : NULL);
	gs_db_bind_text(st, 11, ended[0] ? ended : NULL);
	sqlite3_bind_double(st, 12, ri->wall_ms);
	sqlite3_bind_int64(st, 13, c->n_nodes);
	sqlite3_bind_int64(st, 14, c->gpu_count);
	sqlite3_bind_int64(st, 15, c->gpu_milli);
	sqlite3_bind_int64(st, 16, c->cpu_milli);
	sqlite3_bind_int64(st, 17, c->mem_mib);
	sqlite3_bind_int64(st, 18, (int64_t)sim->n_pods);
	sqlite3_bind_int64(st, 19, sum.placed);
	sqlite3_bind_int64(st, 20, sum.failed);
	sqlite3_bind_int64(st, 21, sum.placed - sum.running);
	sqlite3_bind_int64(st, 22, sum.pending);
	sqlite3_bind_int64(st, 23, sim->stats.events);
	sqlite3_bind_int64(st, 24, sim->stats.retries);
	sqlite3_bind_int64(st, 25, sim->stats.t_end_s);
	sqlite3_bind_int64(st, 26, wait_total_s);
	sqlite3_bind_int64(st, 27, ri->no_pods ? 0 : 1);
	bind_time_metrics(st, 28, sim);
	{
		char spec[GS_SHARE_SPEC_MAX];
		bool time = sim->opts.mode == GS_MODE_TIME;

		sqlite3_bind_text(st, 53, gs_share_format(&sim->opts.sharing, spec, sizeof(spec)), -1,
				  SQLITE_TRANSIENT);
		gs_db_bind_text(st, 54, sim->share_on ? sim->share.tbl->sha256 : NULL);
		gs_db_bind_real(st, 55, time ? sim->eff_util_pct : NAN, true);
		gs_db_bind_real(st, 56, time ? sim->eff_util_busy_pct : NAN, true);
		sqlite3_bind_int64(st, 57, sim->oversubscribed);
		gs_db_bind_real(st, 58, time ? sim->mig_idle_pct : NAN, true);
		gs_db_bind_real(st, 59, time ? sim->mig_slack_pct : NAN, true);
	}
	sqlite3_bind_int64(st, 60, all_samples(ri, sim) ? 1 : 0);
	if (sim->opts.mode == GS_MODE_INFLATE) {
		sqlite3_bind_int64(st, 61, stats->at100_n);
		gs_db_bind_real(st, 62, stats->at100_gpu_alloc_pct, true);
		gs_db_bind_real(st, 63, stats->at100_frag_ratio_pct, true);
		gs_db_bind_real(st, 64, stats->at100_frag_amount_pct, true);
	} else {
		sqlite3_bind_null(st, 61);
		sqlite3_bind_null(st, 62);
		sqlite3_bind_null(st, 63);
		sqlite3_bind_null(st, 64);
	}
	sqlite3_bind_int64(st, 65, sum.groups);
	sqlite3_bind_int64(st, 66, sum.groups_placed);
	sqlite3_bind_int64(st, 67, sum.groups_failed);
	gs_db_bind_real(st, 68, sum.group_mean_wait_s, true);
	gs_db_bind_real(st, 69, sum.idle_frac_pct, true);
	gs_db_bind_real(st, 70, sum.idle_nocpu_pct, true);
	gs_db_bind_real(st, 71, sum.idle_stranded_pct, true);
	return step_once(st);
}

/* Binds node i to parameters base + 1 .. base + N_NODE_COLUMNS of st. */
static int bind_node(struct gs_db *db, sqlite3_stmt *st, int base, int64_t run_id,
		     const struct gs_cluster *c, int32_t i, char *err, size_t err_len)
{
	const struct gs_node *n = &c->nodes[i];
	const struct gs_gpu_model *m = NULL;
	char share[GS_MAX_GPUS * GS_SHARE_SPEC_MAX];

	if (n->num_gpu > 0) {
		if (n->model < 0 || n->model >= c->models.n)
			return gs_db_fail(err, err_len, GS_EINVAL,
					  "%s: run not written: node %" PRId32
					  " has GPU model index %" PRId32 ", the table has %d",
					  db->path, i, n->model, c->models.n);
		m = &c->models.m[n->model];
	}
	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, i);
	gs_db_bind_text(st, base + 3, c->node_names && c->node_names[i] ? c->node_names[i] : "");
	sqlite3_bind_int64(st, base + 4, n->cpu_milli);
	sqlite3_bind_int64(st, base + 5, n->mem_mib);
	sqlite3_bind_int64(st, base + 6, n->num_gpu);
	gs_db_bind_text(st, base + 7, m ? m->name : NULL);
	sqlite3_bind_int64(st, base + 8, m ? m->mem_mib : 0);
	gs_cluster_node_share_text(c, i, share, sizeof(share));
	if (share[0])
		sqlite3_bind_text(st, base + 9, share, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, base + 9);
	return 0;
}

static int insert_nodes(struct gs_db *db, int64_t run_id, const struct gs_cluster *c,
			char *err, size_t err_len)
{
	size_t i = 0, j, rows;
	int rc;

	while (i < (size_t)c->n_nodes) {
		sqlite3_stmt *st;

		rows = batch_rows((size_t)c->n_nodes - i);
		st = rows > 1 ? db->st_nodes : db->st_node;
		for (j = 0; j < rows; j++) {
			rc = bind_node(db, st, (int)j * N_NODE_COLUMNS, run_id, c, (int32_t)(i + j),
				       err, err_len);
			if (rc)
				return rc;
		}
		rc = step_rows(db, st, "node", i, rows, err, err_len);
		if (rc)
			return rc;
		i += rows;
	}
	return 0;
}

/* Text a pod row binds with SQLITE_STATIC: it must live until the statement steps. */
struct pod_text {
	char gpus[GS_MAX_GPUS * 4 + 1];
	char mig[GS_MAX_GPUS * (GS_MIG_NAME_MAX + 4)];
	char spec[GS_MAX_MODELS * GS_MODEL_NAME_MAX];
	char reason[256];
};

/* Binds pod i to parameters base + 1 .. base + N_POD_COLUMNS of st. */
static int bind_pod(struct gs_db *db, sqlite3_stmt *st, int base, int64_t run_id,
		    const struct gs_sim *sim, size_t i, struct pod_text *txt, char *err,
		    size_t err_len)
{
	const struct gs_pod *p = &sim->pods[i];
	const struct gs_pod_outcome *o = &sim->out[i];
	const char *name = sim->trace->pod_names ? sim->trace->pod_names[o->src] : NULL;
	const char *spec_text;
	bool placed = o->state == GS_POD_RUNNING || o->state == GS_POD_DONE;
	bool unplaced = o->state == GS_POD_FAILED || o->state == GS_POD_PENDING;

	if (!format_spec(&sim->cluster.models, p->model_mask, txt->spec, sizeof(txt->spec),
			 &spec_text))
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: pod %zu allows GPU model bits %#x, the "
				  "cluster has %d models",
				  db->path, i, p->model_mask, sim->cluster.models.n);
	if (placed && !format_gpus(&o->pl, txt->gpus, sizeof(txt->gpus)))
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: pod %zu has an impossible placement "
				  "(%" PRId32 " GPUs)",
				  db->path, i, o->pl.num_gpu);
	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, (int64_t)i);
	sqlite3_bind_int64(st, base + 3, o->src);
	gs_db_bind_text(st, base + 4, name ? name : "");
	sqlite3_bind_int64(st, base + 5, p->cpu_milli);
	sqlite3_bind_int64(st, base + 6, p->mem_mib);
	sqlite3_bind_int64(st, base + 7, p->num_gpu);
	sqlite3_bind_int64(st, base + 8, p->gpu_milli);
	sqlite3_bind_int64(st, base + 9, p->gpu_mem_mib);
	gs_db_bind_text(st, base + 10, spec_text);
	gs_db_bind_text(st, base + 11, gs_db_pod_state[o->state]);
	if (placed) {
		sqlite3_bind_int64(st, base + 12, o->pl.node);
		gs_db_bind_text(st, base + 13, o->pl.num_gpu > 0 ? txt->gpus : NULL);
	} else {
		sqlite3_bind_null(st, base + 12);
		sqlite3_bind_null(st, base + 13);
	}
	gs_db_bind_int(st, base + 14, o->t_arrive_s);
	gs_db_bind_int(st, base + 15, placed ? o->t_start_s : -1);
	/* Placed pods: when they left; failed ones: when they gave up. */
	gs_db_bind_int(st, base + 16, o->t_end_s);
	if (placed && o->t_start_s >= 0 && o->t_arrive_s >= 0)
		sqlite3_bind_int64(st, base + 17, o->t_start_s - o->t_arrive_s);
	else
		sqlite3_bind_null(st, base + 17);
	if (o->state == GS_POD_FAILED && (o->fail == GS_FAIL_GPU_MEM || o->fail == GS_FAIL_GROUP))
		gs_db_bind_text(st, base + 18, gs_fail_reason_str((enum gs_fail_reason)o->fail));
	else
		gs_db_bind_text(st, base + 18, unplaced ? gs_nofit_format(&o->why, txt->reason,
								    sizeof(txt->reason)) : NULL);
	if (placed && sim->share_on && o->pl.num_gpu)
		sqlite3_bind_double(st, base + 19, o->coloc);
	else
		sqlite3_bind_null(st, base + 19);
	gs_db_bind_text(st, base + 20, placed && format_mig(sim, o, txt->mig, sizeof(txt->mig))
		  ? txt->mig : NULL);
	gs_db_bind_int(st, base + 21, gs_pod_duration_s(p));
	return 0;
}

static int insert_pods(struct gs_db *db, int64_t run_id, const struct gs_sim *sim, char *err,
		       size_t err_len)
{
	struct pod_text *txt = malloc(ROWS_PER_INSERT * sizeof(*txt));
	sqlite3_stmt *st;
	size_t i = 0, j, rows;
	int rc = 0;

	if (!txt)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	while (i < sim->n_pods) {
		rows = batch_rows(sim->n_pods - i);
		st = rows > 1 ? db->st_pods : db->st_pod;

		for (j = 0; j < rows && !rc; j++)
			rc = bind_pod(db, st, (int)j * N_POD_COLUMNS, run_id, sim, i + j, &txt[j],
				      err, err_len);
		if (!rc)
			rc = step_rows(db, st, "pod", i, rows, err, err_len);
		if (rc)
			break;
		i += rows;
	}
	/* The statements point into txt: forget those pointers before freeing it. */
	sqlite3_clear_bindings(db->st_pod);
	sqlite3_clear_bindings(db->st_pods);
	free(txt);
	return rc;
}

/* Binds sample i to parameters base + 1 .. base + N_SAMPLE_COLUMNS of st. */
static void bind_sample(sqlite3_stmt *st, int base, int64_t run_id, const struct gs_sim *sim,
			size_t i)
{
	const struct gs_sample *s = &sim->samples[i];
	int64_t cap = sim->cluster.gpu_milli;

	sqlite3_bind_int64(st, base + 1, run_id);
	sqlite3_bind_int64(st, base + 2, (int64_t)i);
	sqlite3_bind_int64(st, base + 3, s->t_s);
	sqlite3_bind_int64(st, base + 4, s->event);
	sqlite3_bind_int64(st, base + 5, s->cpu_alloc_milli);
	sqlite3_bind_int64(st, base + 6, s->mem_alloc_mib);
	sqlite3_bind_int64(st, base + 7, s->gpu_alloc_milli);
	sqlite3_bind_int64(st, base + 8, s->gpus_in_use);
	sqlite3_bind_int64(st, base + 9, s->arrived_gpu_milli);
	sqlite3_bind_int64(st, base + 10, s->pods_running);
	sqlite3_bind_int64(st, base + 11, s->pending);
	sqlite3_bind_int64(st, base + 12, s->failed);
	if (isnan(s->frag_milli))
		sqlite3_bind_null(st, base + 13);
	else
		sqlite3_bind_double(st, base + 13, s->frag_milli);
	/* The engine's own rounding, so the buckets match gs_sim_summarize(). */
	if (cap > 0)
		sqlite3_bind_int64(st, base + 14, gs_sample_arrived_pct(s, cap));
	else
		sqlite3_bind_null(st, base + 14);
	sqlite3_bind_int64(st, base + 15, s->idle_frac_milli);
	sqlite3_bind_int64(st, base + 16, s->idle_nocpu_milli);
	sqlite3_bind_int64(st, base + 17, s->idle_stranded_milli);
}

/* The few samples an inflate run keeps without ri->arrival_samples (all_samples()). */
static int insert_some_samples(struct gs_db *db, int64_t run_id, const struct gs_sim *sim,
			       char *err, size_t err_len)
{
	size_t i, peak = 0, queue = 0, last;
	int rc;

	if (sim->n_samples == 0)
		return 0;
	last = sim->n_samples - 1;
	for (i = 1; i < sim->n_samples; i++) {
		if (sim->samples[i].gpu_alloc_milli > sim->samples[peak].gpu_alloc_milli)
			peak = i;
		if (sim->samples[i].pending > sim->samples[queue].pending)
			queue = i;
	}
	for (i = 0; i < sim->n_samples; i++) {
		if (i != peak && i != last && (i != queue || sim->samples[queue].pending == 0))
			continue;
		bind_sample(db->st_sample, 0, run_id, sim, i);
		rc = step_rows(db, db->st_sample, "sample", i, 1, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

static int insert_stats(struct gs_db *db, int64_t run_id, const struct gs_arrived_stats *stats,
			char *err, size_t err_len)
{
	sqlite3_stmt *st = db->st_stat;
	size_t i;

	for (i = 0; i < stats->n_buckets; i++) {
		const struct gs_arrived_bucket *b = &stats->buckets[i];

		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, b->pct);
		sqlite3_bind_int64(st, 3, b->n);
		sqlite3_bind_double(st, 4, b->gpu_alloc_pct_sum);
		sqlite3_bind_double(st, 5, b->unalloc_gpu_pct_sum);
		gs_db_bind_real(st, 6, b->frag_ratio_pct_sum, true);
		gs_db_bind_real(st, 7, b->frag_amount_pct_sum, true);
		if (step_once(st) != SQLITE_OK) {
			char what[64];

			snprintf(what, sizeof(what), "cannot write the statistics of %" PRId64 " %%",
				 b->pct);
			return gs_db_sqlfail(db, err, err_len, what);
		}
	}
	return 0;
}

static int insert_samples(struct gs_db *db, int64_t run_id, const struct gs_sim *sim,
			  char *err, size_t err_len)
{
	sqlite3_stmt *st;
	size_t i = 0, j, rows;
	int rc;

	while (i < sim->n_samples) {
		rows = batch_rows(sim->n_samples - i);
		st = rows > 1 ? db->st_samples : db->st_sample;

		for (j = 0; j < rows; j++)
			bind_sample(st, (int)j * N_SAMPLE_COLUMNS, run_id, sim, i + j);
		rc = step_rows(db, st, "sample", i, rows, err, err_len);
		if (rc)
			return rc;
		i += rows;
	}
	return 0;
}

static int drop_claim(struct gs_db *db, const struct gs_run_info *ri, char *err, size_t err_len)
{
	sqlite3_stmt *st = db->st_unclaim;

	gs_db_bind_text(st, 1, ri->pods_sha256);
	gs_db_bind_text(st, 2, ri->policy);
	sqlite3_bind_int64(st, 3, (int64_t)ri->seed);
	gs_db_bind_text(st, 4, ri->nodes_sha256);
	gs_db_bind_text(st, 5, ri->params_json);
	if (step_once(st) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot drop the run's claim");
	return 0;
}

/* The run and node writers bound stack buffers with SQLITE_STATIC: drop those pointers. */
static void clear_writer_bindings(struct gs_db *db)
{
	sqlite3_stmt *st[] = { db->st_run, db->st_run_done, db->st_node, db->st_nodes,
			       db->st_unclaim };
	size_t i;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (st[i])
			sqlite3_clear_bindings(st[i]);
}

int gs_db_write_run(struct gs_db *db, const struct gs_run_info *ri, const struct gs_sim *sim,
		    int64_t *run_id_out, char *err, size_t err_len)
{
	int64_t wait_total_s = 0;
	struct gs_arrived_stats own;
	const struct gs_arrived_stats *stats = sim->arrived;
	char digest[GS_DB_DIGEST_LEN];
	cJSON *params;
	int64_t run_id = 0;
	int rc;

	if (!db)
		return gs_db_fail(err, err_len, GS_EINVAL, "no database");
	rc = validate_run(db, ri, sim, &wait_total_s, err, err_len);
	if (rc)
		return rc;
	params = ri->params_json ? gs_cjson_parse(ri->params_json, strlen(ri->params_json), NULL)
				 : NULL;
	/* cJSON says NULL for both: an allocation that failed is no bad input. */
	if (!params && gs_cjson_oom())
		return gs_db_fail(err, err_len, GS_ENOMEM, "%s: run not written: out of memory",
				  db->path);
	if (!params)
		return gs_db_fail(err, err_len, GS_EINVAL,
				  "%s: run not written: params_json is not valid JSON", db->path);
	cJSON_Delete(params);
	/* Outside the lock and the transaction: it only reads the run. */
	if (!stats) {
		if (gs_arrived_stats_compute(sim->samples, sim->n_samples, sim->cluster.gpu_milli,
					     sim->frag_on, &own))
			return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
		stats = &own;
	}

	pthread_mutex_lock(&db->lock);
	rc = prepare_writers(db, err, err_len);
	if (rc)
		goto unlock;
	rc = gs_db_tx_begin(db, "cannot start the run's transaction", err, err_len);
	if (rc)
		goto unlock;
	if (insert_run(db, ri, sim, wait_total_s, stats) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot write the run");
		goto end;
	}
	run_id = sqlite3_last_insert_rowid(db->conn);
	rc = insert_nodes(db, run_id, &sim->cluster, err, err_len);
	if (rc)
		goto end;
	rc = ri->no_pods ? 0 : insert_pods(db, run_id, sim, err, err_len);
	if (rc)
		goto end;
	rc = all_samples(ri, sim) ? insert_samples(db, run_id, sim, err, err_len) :
				    insert_some_samples(db, run_id, sim, err, err_len);
	if (rc)
		goto end;
	rc = insert_stats(db, run_id, stats, err, err_len);
	if (rc == 0)
		rc = gs_run_defrag_write(db, run_id, sim, err, err_len);
	if (rc)
		goto end;
	/* A sweep claimed the run before it ran it (store/plan.h): the claim ends here. */
	rc = drop_claim(db, ri, err, err_len);
	if (rc)
		goto end;
	/* The checksum of what is stored, read back as a reader will read it (store/digest.h). */
	rc = gs_db_digest_run(db, "main", run_id, GS_DB_DIGEST_VERSION, digest, err, err_len);
	if (rc)
		goto end;
	/* Last: only now can anyone see this run as complete. */
	sqlite3_bind_int64(db->st_run_done, 1, run_id);
	sqlite3_bind_text(db->st_run_done, 2, digest, -1, SQLITE_TRANSIENT);
	if (step_once(db->st_run_done) != SQLITE_OK)
		rc = gs_db_sqlfail(db, err, err_len, "cannot mark the run complete");
end:
	rc = gs_db_tx_end(db, rc, "cannot commit the run", err, err_len);
	if (!rc && run_id_out)
		*run_id_out = run_id;
unlock:
	clear_writer_bindings(db);
	pthread_mutex_unlock(&db->lock);
	if (stats == &own)
		gs_arrived_stats_release(&own);
	return rc;
}

int gs_db_find_run(struct gs_db *db, const char *policy, const char *pods_sha256,
		   const char *nodes_sha256, uint64_t seed, const char *params_json,
		   int64_t *run_id_out)
{
	sqlite3_stmt *st;
	int rc;

	if (!db || !policy || !pods_sha256 || !nodes_sha256 || !params_json ||
	    seed > (uint64_t)INT64_MAX)
		return GS_EINVAL;
	pthread_mutex_lock(&db->lock);
	rc = prepare(db, sql_find_run, &db->st_find, NULL, 0);
	if (rc)
		goto unlock;
	st = db->st_find;
	gs_db_bind_text(st, 1, pods_sha256);
	gs_db_bind_text(st, 2, policy);
	sqlite3_bind_int64(st, 3, (int64_t)seed);
	gs_db_bind_text(st, 4, nodes_sha256);
	gs_db_bind_text(st, 5, params_json);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (run_id_out)
			*run_id_out = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? GS_ENOENT : GS_EDB;
	}
	sqlite3_reset(st);
unlock:
	pthread_mutex_unlock(&db->lock);
	return rc;
}
