/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_read.c - the results store's readers: the run list and one run's
 * summary, nodes, pods and peak time, for `gpusim inspect` and the plots.
 * Contracts in results.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"
#include "core/mem.h"
#include "store/results.h"
#include "store/results_internal.h"

/* A copy of a text column, NULL for SQL NULL. Sets *oom on allocation failure. */
static char *col_strdup(sqlite3_stmt *st, int i, bool *oom)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	char *copy;

	if (!s)
		return NULL;
	copy = strdup((const char *)s);
	if (!copy)
		*oom = true;
	return copy;
}

static double col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t col_opt_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/*
 * Column i of the row as an integer from lo to hi: the whole 64-bit value,
 * so that one too large for the field is refused rather than cut. Returns
 * false for NULL, text or a value out of range (*out untouched).
 */
static bool col_int_in(sqlite3_stmt *st, int i, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v;

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return false;
	v = sqlite3_column_int64(st, i);
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Column i as text for a message: "NULL" for NULL. */
static const char *col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "NULL";
}

static const char sql_run_rows[] =
	"SELECT s.run_id, s.policy, s.mode, s.seed, r.nodes_path, r.pods_path, s.pods_file,"
	" s.params_json, r.gpusim_version, r.started_at, s.wall_ms, r.n_nodes, r.gpu_count,"
	" r.gpu_milli_capacity, r.cpu_milli_capacity, r.mem_mib_capacity, s.n_pods,"
	" s.n_placed, s.n_failed, r.n_events, r.t_end_s, s.failed_pct, s.mean_wait_s,"
	" s.gpu_alloc_pct, s.unalloc_gpu_pct, s.frag_ratio_pct, r.pods_stored,"
	" s.wait_p50_s, s.wait_p99_s, s.wait_max_s, s.completion_mean_s, s.completion_p99_s,"
	" s.slowdown_mean, s.slowdown_p99, s.pending_avg, s.peak_pending, s.peak_gpu_alloc_pct,"
	" s.offered_load_pct, s.load_pct, s.makespan_s, s.n_timed_out,"
	" s.sharing, s.eff_util_pct, s.n_oversubscribed, s.mig_idle_pct, s.mig_slack_pct,"
	" s.frag_amount_pct, s.wait_p90_s, s.completion_p50_s, s.completion_p90_s,"
	" s.completion_max_s, s.gpu_alloc_busy_pct, s.frag_avg_pct, s.n_groups,"
	" s.n_groups_placed, s.n_groups_failed, s.group_wait_mean_s, s.idle_frac_pct,"
	" s.idle_nocpu_pct, s.idle_stranded_pct"
	" FROM run_summary s JOIN runs r ON r.run_id = s.run_id";

static bool read_run_row(sqlite3_stmt *st, struct gs_run_row *r)
{
	bool oom = false;

	memset(r, 0, sizeof(*r));
	r->run_id = sqlite3_column_int64(st, 0);
	r->policy = col_strdup(st, 1, &oom);
	r->mode = col_strdup(st, 2, &oom);
	r->seed = (uint64_t)sqlite3_column_int64(st, 3);
	r->nodes_path = col_strdup(st, 4, &oom);
	r->pods_path = col_strdup(st, 5, &oom);
	r->pods_file = col_strdup(st, 6, &oom);
	r->params_json = col_strdup(st, 7, &oom);
	r->gpusim_version = col_strdup(st, 8, &oom);
	r->started_at = col_strdup(st, 9, &oom);
	r->wall_ms = col_double(st, 10);
	r->n_nodes = sqlite3_column_int64(st, 11);
	r->gpu_count = sqlite3_column_int64(st, 12);
	r->gpu_milli_capacity = sqlite3_column_int64(st, 13);
	r->cpu_milli_capacity = sqlite3_column_int64(st, 14);
	r->mem_mib_capacity = sqlite3_column_int64(st, 15);
	r->n_pods = sqlite3_column_int64(st, 16);
	r->n_placed = sqlite3_column_int64(st, 17);
	r->n_failed = sqlite3_column_int64(st, 18);
	r->n_events = sqlite3_column_int64(st, 19);
	r->t_end_s = sqlite3_column_int64(st, 20);
	r->failed_pct = col_double(st, 21);
	r->mean_wait_s = col_double(st, 22);
	r->gpu_alloc_pct = col_double(st, 23);
	r->unalloc_gpu_pct = col_double(st, 24);
	r->frag_ratio_pct = col_double(st, 25);
	r->pods_stored = sqlite3_column_int(st, 26) != 0;
	r->wait_p50_s = col_double(st, 27);
	r->wait_p99_s = col_double(st, 28);
	r->wait_max_s = col_double(st, 29);
	r->completion_mean_s = col_double(st, 30);
	r->completion_p99_s = col_double(st, 31);
	r->slowdown_mean = col_double(st, 32);
	r->slowdown_p99 = col_double(st, 33);
	r->pending_avg = col_double(st, 34);
	r->peak_pending = col_double(st, 35);
	r->peak_gpu_alloc_pct = col_double(st, 36);
	r->offered_load_pct = col_double(st, 37);
	r->load_pct = col_double(st, 38);
	r->makespan_s = col_double(st, 39);
	r->n_timed_out = col_double(st, 40);
	r->sharing = col_strdup(st, 41, &oom);
	r->eff_util_pct = col_double(st, 42);
	r->n_oversubscribed = col_double(st, 43);
	r->mig_idle_pct = col_double(st, 44);
	r->mig_slack_pct = col_double(st, 45);
	r->frag_amount_pct = col_double(st, 46);
	r->wait_p90_s = col_double(st, 47);
	r->completion_p50_s = col_double(st, 48);
	r->completion_p90_s = col_double(st, 49);
	r->completion_max_s = col_double(st, 50);
	r->gpu_alloc_busy_pct = col_double(st, 51);
	r->frag_avg_pct = col_double(st, 52);
	r->n_groups = sqlite3_column_int64(st, 53);
	r->n_groups_placed = sqlite3_column_int64(st, 54);
	r->n_groups_failed = sqlite3_column_int64(st, 55);
	r->group_wait_mean_s = col_double(st, 56);
	r->idle_frac_pct = col_double(st, 57);
	r->idle_nocpu_pct = col_double(st, 58);
	r->idle_stranded_pct = col_double(st, 59);
	if (oom)
		gs_run_row_release(r);
	return !oom;
}

void gs_run_row_release(struct gs_run_row *r)
{
	if (!r)
		return;
	GS_MEM_FREE(r->policy, r->mode, r->nodes_path, r->pods_path, r->pods_file, r->params_json,
		    r->gpusim_version, r->started_at, r->sharing);
	memset(r, 0, sizeof(*r));
}

void gs_run_rows_free(struct gs_run_row *rows, size_t n)
{
	size_t i;

	for (i = 0; rows && i < n; i++)
		gs_run_row_release(&rows[i]);
	free(rows);
}

int gs_db_get_run(struct gs_db *db, int64_t run_id, struct gs_run_row *out, char *err,
		  size_t err_len)
{
	char sql[sizeof(sql_run_rows) + 32];
	sqlite3_stmt *st = NULL;
	int rc, step;

	snprintf(sql, sizeof(sql), "%s WHERE s.run_id = ?1", sql_run_rows);
	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot read run");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		rc = read_run_row(st, out) ? 0
					   : gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	else if (step == SQLITE_DONE)
		rc = gs_db_fail(err, err_len, GS_ENOENT, "%s: no run %" PRId64, db->path, run_id);
	else
		rc = gs_db_sqlfail(db, err, err_len, "cannot read run");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* GS_ENOENT unless a complete run run_id exists. Called with the lock held. */
static int check_run(struct gs_db *db, int64_t run_id, char *err, size_t err_len)
{
	sqlite3_stmt *st;
	int step;

	if (sqlite3_prepare_v2(db->conn,
			       "SELECT 1 FROM runs WHERE run_id = ?1 AND status = 'complete'", -1,
			       &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot read run");
	sqlite3_bind_int64(st, 1, run_id);
	step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return 0;
	if (step == SQLITE_DONE)
		return gs_db_fail(err, err_len, GS_ENOENT, "%s: no run %" PRId64, db->path, run_id);
	return gs_db_sqlfail(db, err, err_len, "cannot read run");
}

/*
 * One kind of row for load_rows(): its size, its first allocation, how to
 * read one and how to free an array of them.
 */
struct row_kind {
	size_t size;
	size_t first;
	const char *fail; /* the message when SQLite fails: "cannot read the run's pods" */
	/*
	 * Fills the zeroed *row from st's current row, of run run_id (-1 for
	 * a list of runs). Returns 0, or GS_ENOMEM or GS_EDB (a value gpusim
	 * never writes) with a message in err; what it filled before failing
	 * is freed with the rest.
	 */
	int (*read)(struct gs_db *db, int64_t run_id, sqlite3_stmt *st, void *row, char *err,
		    size_t err_len);
	void (*free_rows)(void *rows, size_t n);
};

/*
 * Reads every row sql returns into a new array of k's rows, under the
 * lock. With run_id >= 0 the run must exist and be complete (GS_ENOENT)
 * and ?1 is bound to it. Returns 0 with the array in *rows_out and its
 * length in *n_out, or an error with a message in err and nothing kept.
 */
static int load_rows(struct gs_db *db, int64_t run_id, const char *sql, const struct row_kind *k,
		     void **rows_out, size_t *n_out, char *err, size_t err_len)
{
	char *rows = NULL, *grown;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc = 0, step;

	pthread_mutex_lock(&db->lock);
	if (run_id >= 0) {
		rc = check_run(db, run_id, err, err_len);
		if (rc)
			goto out;
	}
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, k->fail);
		goto out;
	}
	if (run_id >= 0)
		sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		grown = gs_grow(rows, &cap, n, k->size, k->first);
		if (!grown) {
			rc = gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
			goto out;
		}
		rows = grown;
		memset(rows + n * k->size, 0, k->size);
		rc = k->read(db, run_id, st, rows + n++ * k->size, err, err_len);
		if (rc)
			goto out;
	}
	if (step != SQLITE_DONE)
		rc = gs_db_sqlfail(db, err, err_len, k->fail);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	if (rc) {
		k->free_rows(rows, n);
		return rc;
	}
	*rows_out = rows;
	*n_out = n;
	return 0;
}

static int read_run(struct gs_db *db, int64_t run_id, sqlite3_stmt *st, void *row, char *err,
		    size_t err_len)
{
	(void)db;
	(void)run_id;
	return read_run_row(st, row) ? 0 : gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
}

static void free_runs(void *rows, size_t n)
{
	gs_run_rows_free(rows, n);
}

static const struct row_kind run_rows = {
	.size = sizeof(struct gs_run_row),
	.first = 16,
	.fail = "cannot list runs",
	.read = read_run,
	.free_rows = free_runs,
};

int gs_db_list_runs(struct gs_db *db, struct gs_run_row **rows_out, size_t *n_out, char *err,
		    size_t err_len)
{
	char sql[sizeof(sql_run_rows) + 32];
	void *rows;
	int rc;

	snprintf(sql, sizeof(sql), "%s ORDER BY s.run_id", sql_run_rows);
	rc = load_rows(db, -1, sql, &run_rows, &rows, n_out, err, err_len);
	if (!rc)
		*rows_out = rows;
	return rc;
}

void gs_db_nodes_free(struct gs_db_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; nodes && i < n; i++) {
		free(nodes[i].name);
		free(nodes[i].gpu_model);
		free(nodes[i].sharing);
	}
	free(nodes);
}

static int read_node(struct gs_db *db, int64_t run_id, sqlite3_stmt *st, void *row, char *err,
		     size_t err_len)
{
	struct gs_db_node *nd = row;
	int64_t cpu_milli, num_gpu;
	bool oom = false;

	nd->idx = sqlite3_column_int(st, 0);
	nd->name = col_strdup(st, 1, &oom);
	nd->gpu_model = col_strdup(st, 5, &oom);
	nd->sharing = col_strdup(st, 7, &oom);
	if (oom)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	/*
	 * The readers hold every node to these ranges; a row outside them
	 * was not written by gpusim, and callers size arrays by num_gpu.
	 */
	if (!col_int_in(st, 2, 0, GS_CPU_MILLI_MAX, &cpu_milli) ||
	    !col_int_in(st, 3, 0, GS_MIB_MAX, &nd->memory_mib) ||
	    !col_int_in(st, 4, 0, GS_MAX_GPUS, &num_gpu) ||
	    !col_int_in(st, 6, 0, GS_MIB_MAX, &nd->gpu_mem_mib))
		return gs_db_fail(err, err_len, GS_EDB,
				  "%s: run %" PRId64 " node %" PRId32 " (%s): cpu_milli '%s', "
				  "memory_mib '%s', num_gpu '%s' or gpu_mem_mib '%s' is out of "
				  "range (num_gpu: 0 to %d)",
				  db->path, run_id, nd->idx, nd->name ? nd->name : "NULL",
				  col_text(st, 2), col_text(st, 3), col_text(st, 4), col_text(st, 6),
				  GS_MAX_GPUS);
	nd->cpu_milli = (int32_t)cpu_milli;
	nd->num_gpu = (int32_t)num_gpu;
	return 0;
}

static void free_nodes(void *rows, size_t n)
{
	gs_db_nodes_free(rows, n);
}

static const struct row_kind node_rows = {
	.size = sizeof(struct gs_db_node),
	.first = 256,
	.fail = "cannot read the run's nodes",
	.read = read_node,
	.free_rows = free_nodes,
};

int gs_db_load_nodes(struct gs_db *db, int64_t run_id, struct gs_db_node **nodes_out,
		     size_t *n_out, char *err, size_t err_len)
{
	void *rows;
	int rc = load_rows(db, run_id,
			   "SELECT node_idx, name, cpu_milli, memory_mib, num_gpu, gpu_model,"
			   " gpu_mem_mib, sharing FROM run_nodes WHERE run_id = ?1"
			   " ORDER BY node_idx",
			   &node_rows, &rows, n_out, err, err_len);

	if (!rc)
		*nodes_out = rows;
	return rc;
}

void gs_db_pods_free(struct gs_db_pod *pods, size_t n)
{
	size_t i;

	for (i = 0; pods && i < n; i++) {
		free(pods[i].name);
		free(pods[i].fail_reason);
		free(pods[i].mig);
		free(pods[i].gpu_spec);
	}
	free(pods);
}

/* Parses "0,3" into p->gpus. Returns false for anything else. */
static bool parse_gpus(const char *s, struct gs_db_pod *p)
{
	p->n_gpus = 0;
	if (!s)
		return true;
	for (;;) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || errno || v < 0 || v >= GS_MAX_GPUS || p->n_gpus == GS_MAX_GPUS)
			return false;
		p->gpus[p->n_gpus++] = (uint8_t)v;
		if (*end == '\0')
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

static bool parse_state(const char *s, uint8_t *state_out)
{
	size_t i;

	for (i = 0; s && i < GS_DB_POD_STATES; i++) {
		if (strcmp(s, gs_db_pod_state[i]) == 0) {
			*state_out = (uint8_t)i;
			return true;
		}
	}
	return false;
}

static int read_pod(struct gs_db *db, int64_t run_id, sqlite3_stmt *st, void *row, char *err,
		    size_t err_len)
{
	struct gs_db_pod *p = row;
	const char *state = (const char *)sqlite3_column_text(st, 8);
	const char *gpus = (const char *)sqlite3_column_text(st, 10);
	bool oom = false;
	int64_t v;

	p->pod_idx = sqlite3_column_int(st, 0);
	p->src_idx = sqlite3_column_int(st, 1);
	p->name = col_strdup(st, 2, &oom);
	p->cpu_milli = sqlite3_column_int(st, 3);
	p->memory_mib = sqlite3_column_int64(st, 4);
	p->num_gpu = sqlite3_column_int(st, 5);
	p->gpu_milli = sqlite3_column_int(st, 6);
	p->gpu_mem_mib = sqlite3_column_int64(st, 7);
	p->node_idx = (int32_t)col_opt_int(st, 9);
	p->t_arrive_s = col_opt_int(st, 11);
	p->t_start_s = col_opt_int(st, 12);
	p->t_end_s = col_opt_int(st, 13);
	p->wait_s = col_opt_int(st, 14);
	p->fail_reason = col_strdup(st, 15, &oom);
	p->mig = col_strdup(st, 16, &oom);
	p->coloc = col_double(st, 17);
	p->gpu_spec = col_strdup(st, 18, &oom);
	if (oom)
		return gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
	/* What gs_db_load_nodes() holds nodes to, and one GPU's share at most per GPU. */
	if (!col_int_in(st, 3, 0, GS_CPU_MILLI_MAX, &v) ||
	    !col_int_in(st, 4, 0, GS_MIB_MAX, &p->memory_mib) ||
	    !col_int_in(st, 5, 0, GS_MAX_GPUS, &v) ||
	    !col_int_in(st, 6, 0, GS_MILLI_PER_GPU, &v) ||
	    !col_int_in(st, 7, 0, GS_MIB_MAX, &p->gpu_mem_mib))
		return gs_db_fail(err, err_len, GS_EDB,
				  "%s: run %" PRId64 " pod %" PRId32 ": cpu_milli '%s', "
				  "memory_mib '%s', num_gpu '%s', gpu_milli '%s' or gpu_mem_mib "
				  "'%s' is out of range (gpu_milli: 0 to %d)",
				  db->path, run_id, p->pod_idx, col_text(st, 3), col_text(st, 4),
				  col_text(st, 5), col_text(st, 6), col_text(st, 7), GS_MILLI_PER_GPU);
	if (!parse_state(state, &p->state) || !parse_gpus(gpus, p))
		return gs_db_fail(err, err_len, GS_EDB,
				  "%s: run %" PRId64 " pod %" PRId32 ": bad state '%s' or gpus '%s'",
				  db->path, run_id, p->pod_idx, state ? state : "NULL",
				  gpus ? gpus : "NULL");
	return 0;
}

static void free_pods(void *rows, size_t n)
{
	gs_db_pods_free(rows, n);
}

static const struct row_kind pod_rows = {
	.size = sizeof(struct gs_db_pod),
	.first = 1024,
	.fail = "cannot read the run's pods",
	.read = read_pod,
	.free_rows = free_pods,
};

int gs_db_load_pods(struct gs_db *db, int64_t run_id, struct gs_db_pod **pods_out,
		    size_t *n_out, char *err, size_t err_len)
{
	void *rows;
	int rc = load_rows(db, run_id,
			   "SELECT pod_idx, src_idx, name, cpu_milli, memory_mib, num_gpu,"
			   " gpu_milli, gpu_mem_mib, state, node_idx, gpus, t_arrive_s,"
			   " t_start_s, t_end_s, wait_s, fail_reason, mig, coloc, gpu_spec"
			   " FROM pods WHERE run_id = ?1 ORDER BY pod_idx",
			   &pod_rows, &rows, n_out, err, err_len);

	if (!rc)
		*pods_out = rows;
	return rc;
}

int gs_db_peak_time(struct gs_db *db, int64_t run_id, int64_t *t_s_out, char *err,
		    size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int rc, step;

	pthread_mutex_lock(&db->lock);
	rc = check_run(db, run_id, err, err_len);
	if (rc)
		goto out;
	if (sqlite3_prepare_v2(db->conn,
			       "SELECT t_s FROM samples WHERE run_id = ?1"
			       " ORDER BY gpu_alloc_milli DESC, sample_idx LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot read the run's samples");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*t_s_out = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = gs_db_fail(err, err_len, GS_ENOENT, "%s: run %" PRId64 " has no samples",
				db->path,
				run_id);
	else
		rc = gs_db_sqlfail(db, err, err_len, "cannot read the run's samples");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
