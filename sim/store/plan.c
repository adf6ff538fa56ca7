/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.c - sweep plans and run claims in the results database (plan.h).
 *
 * A claim is a row of run_claims keyed like a run. A sweep claims a run in
 * a write transaction just before running it and the run's own transaction
 * deletes the claim, so between two sweeps on one database (two processes,
 * or two hosts on a file system SQLite can lock) a run is claimed by one
 * of them at a time, and a run stored by one is seen complete by the
 * other. A process that dies leaves its claims behind: they are taken over
 * when the owner is recognisably gone (this host, and its pid is not
 * running, or runs a later process) or, for another host's claims, when
 * they are older than the caller's limit.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/sha256.h"
#include "store/plan.h"
#include "store/results_internal.h"

void gs_plan_id(const struct gs_plan_cell *cells, size_t n, char *id_out)
{
	struct gs_sha256 h;
	uint8_t digest[GS_SHA256_BYTES];
	char seed[32];
	size_t i;
	int k;

	gs_sha256_init(&h);
	for (i = 0; i < n; i++) {
		const char *parts[5] = { cells[i].policy, cells[i].pods_sha256, cells[i].nodes_sha256,
					 seed, cells[i].params_json };

		snprintf(seed, sizeof(seed), "%" PRIu64, cells[i].seed);
		for (k = 0; k < 5; k++) {
			const char *p = parts[k] ? parts[k] : "";

			/* The NUL too, so that fields cannot run into each other. */
			gs_sha256_update(&h, p, strlen(p) + 1);
		}
	}
	gs_sha256_final(&h, digest);
	for (k = 0; k < GS_SHA256_BYTES; k++)
		snprintf(id_out + 2 * k, 3, "%02x", digest[k]);
}

static bool key_ok(const struct gs_plan_cell *c)
{
	return c && c->policy && c->pods_sha256 && c->nodes_sha256 && c->params_json &&
	       c->seed <= (uint64_t)INT64_MAX;
}

/* Binds the key of c to ?base .. ?base+4 in run_claims' key order. */
static void bind_key(sqlite3_stmt *st, int base, const struct gs_plan_cell *c)
{
	sqlite3_bind_text(st, base, c->pods_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, base + 1, c->policy, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, base + 2, (int64_t)c->seed);
	sqlite3_bind_text(st, base + 3, c->nodes_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, base + 4, c->params_json, -1, SQLITE_STATIC);
}

int gs_db_add_plan(struct gs_db *db, const char *plan_id, const struct gs_plan_cell *cells,
		   size_t n, char *err, size_t err_len)
{
	static const char what[] = "cannot record the sweep's plan";
	static const char sql[] =
		"INSERT OR IGNORE INTO sweep_plans (plan_id, cell, pods_sha256, policy, seed,"
		" nodes_sha256, params_json, pods_path, nodes_path)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (!key_ok(&cells[i]))
			return gs_db_fail(err, err_len, GS_EINVAL, "%s: plan cell %zu has no key",
					  db->path, i);
	pthread_mutex_lock(&db->lock);
	rc = gs_db_tx_begin(db, what, err, err_len);
	if (rc)
		goto out;
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		rc = gs_db_sqlfail(db, err, err_len, what);
	for (i = 0; !rc && i < n; i++) {
		sqlite3_bind_text(st, 1, plan_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		bind_key(st, 3, &cells[i]);
		gs_db_bind_text(st, 8, cells[i].pods_path);
		gs_db_bind_text(st, 9, cells[i].nodes_path);
		rc = gs_db_step_done(db, st, what, err, err_len);
	}
	rc = gs_db_tx_end(db, rc, what, err, err_len);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* Field 22 of /proc/PID/stat, the start time in clock ticks; 0 when unknown, -1 when no such process. */
static long long proc_start(long pid)
{
	char path[64], buf[1024], *p;
	long long start = 0;
	size_t len;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f) {
		if (access("/proc/self/stat", R_OK) == 0)
			return -1;
		/* No /proc at all: ask the kernel whether the pid exists. */
		return kill((pid_t)pid, 0) == 0 ? 0 : -1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* The command name may hold spaces: count fields after its closing ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%lld", &start);
	return start;
}

void gs_claim_owner(char *buf, size_t len)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	snprintf(buf, len, "%s %ld %lld", host, (long)getpid(), proc_start((long)getpid()));
}

/* Whether the claim of owner, made at claimed (Unix seconds), still stands. */
static bool claim_alive(const char *owner, int64_t claimed, int64_t stale_s)
{
	char host[256], mine[256] = "";
	long pid;
	long long start, now_start;

	if (sscanf(owner, "%255s %ld %lld", host, &pid, &start) != 3)
		return stale_s <= 0 || (int64_t)time(NULL) - claimed < stale_s;
	if (gethostname(mine, sizeof(mine) - 1) == 0 && strcmp(host, mine) == 0) {
		now_start = proc_start(pid);
		return now_start >= 0 && (start == 0 || now_start == 0 || now_start == start);
	}
	return stale_s <= 0 || (int64_t)time(NULL) - claimed < stale_s;
}

static const char sql_key[] =
	" pods_sha256 = ?1 AND policy = ?2 AND seed = ?3 AND nodes_sha256 = ?4 AND params_json = ?5";

/*
 * Prepares sql into *st, binds the claim's key (and, with owner, the owner
 * and the time now) and steps once. Returns what the step returns, or the
 * prepare's error code.
 */
static int claim_step(struct gs_db *db, const char *sql, const struct gs_plan_cell *key,
		      const char *owner, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(db->conn, sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	bind_key(*st, 1, key);
	if (owner) {
		sqlite3_bind_text(*st, 6, owner, -1, SQLITE_STATIC);
		sqlite3_bind_int64(*st, 7, (int64_t)time(NULL));
	}
	return sqlite3_step(*st);
}

int gs_db_claim(struct gs_db *db, const struct gs_plan_cell *key, const char *owner,
		int64_t stale_s, int64_t *run_id_out, char *err, size_t err_len)
{
	static const char what[] = "cannot claim a run";
	char sql_run[512], sql_get[512], sql_put[512];
	sqlite3_stmt *st = NULL;
	int rc, step, fail;

	if (!key_ok(key) || !owner)
		return gs_db_fail(err, err_len, GS_EINVAL, "%s: a claim needs a run's key",
				  db->path);
	snprintf(sql_run, sizeof(sql_run),
		 "SELECT run_id FROM runs WHERE %s AND status = 'complete'"
		 " ORDER BY run_id DESC LIMIT 1", sql_key);
	snprintf(sql_get, sizeof(sql_get),
		 "SELECT owner, claimed_unix FROM run_claims WHERE %s", sql_key);
	snprintf(sql_put, sizeof(sql_put),
		 "INSERT OR REPLACE INTO run_claims (pods_sha256, policy, seed, nodes_sha256,"
		 " params_json, owner, claimed_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
	pthread_mutex_lock(&db->lock);
	rc = gs_db_tx_begin(db, what, err, err_len);
	if (rc)
		goto out;
	rc = GS_CLAIM_OURS;
	step = claim_step(db, sql_run, key, NULL, &st);
	if (step == SQLITE_ROW) {
		if (run_id_out)
			*run_id_out = sqlite3_column_int64(st, 0);
		rc = GS_CLAIM_DONE;
		step = SQLITE_DONE;
	}
	if (step == SQLITE_DONE && rc == GS_CLAIM_OURS) {
		sqlite3_finalize(st);
		step = claim_step(db, sql_get, key, NULL, &st);
		if (step == SQLITE_ROW) {
			const char *who = (const char *)sqlite3_column_text(st, 0);

			if (who && strcmp(who, owner) != 0 &&
			    claim_alive(who, sqlite3_column_int64(st, 1), stale_s))
				rc = GS_CLAIM_TAKEN;
			step = SQLITE_DONE;
		}
	}
	if (step == SQLITE_DONE && rc == GS_CLAIM_OURS) {
		sqlite3_finalize(st);
		step = claim_step(db, sql_put, key, owner, &st);
	}
	/* rc is the claim's outcome, not an error: the transaction ends on the statements' fate. */
	fail = step == SQLITE_DONE ? 0 : gs_db_sqlfail(db, err, err_len, what);
	sqlite3_finalize(st);
	fail = gs_db_tx_end(db, fail, what, err, err_len);
	if (fail)
		rc = fail;
out:
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int gs_db_release_claims(struct gs_db *db, const char *owner, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, "DELETE FROM run_claims WHERE owner = ?1", -1, &st,
			       NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot release the claims");
	} else {
		sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
		rc = gs_db_step_done(db, st, "cannot release the claims", err, err_len);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int gs_db_plan_status(struct gs_db *db,
		      int (*missing)(void *arg, const char *plan_id, int64_t cell,
				     const struct gs_plan_cell *c),
		      void *arg, struct gs_plan_status **plans_out, size_t *n_out, char *err,
		      size_t err_len)
{
	/* Per plan, its cells and whether a complete run has each one's key. */
	static const char sql[] =
		"SELECT p.plan_id, p.cell, p.policy, p.pods_path, p.pods_sha256, p.nodes_path,"
		" p.nodes_sha256, p.seed, p.params_json,"
		" EXISTS (SELECT 1 FROM runs r WHERE r.pods_sha256 = p.pods_sha256"
		"  AND r.policy = p.policy AND r.seed = p.seed AND r.nodes_sha256 = p.nodes_sha256"
		"  AND r.params_json = p.params_json AND r.status = 'complete')"
		" FROM sweep_plans p ORDER BY p.plan_id, p.cell";
	struct gs_plan_status *plans = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc = 0, step;

	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = gs_db_sqlfail(db, err, err_len, "cannot read the sweep plans");
		goto out;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		struct gs_plan_status *ps;

		if (n == 0 || strcmp(plans[n - 1].plan_id, id) != 0) {
			ps = gs_grow(plans, &cap, n, sizeof(*plans), 4);
			if (!ps) {
				rc = gs_db_fail(err, err_len, GS_ENOMEM, "out of memory");
				goto out;
			}
			plans = ps;
			memset(&plans[n], 0, sizeof(plans[n]));
			snprintf(plans[n].plan_id, sizeof(plans[n].plan_id), "%s", id);
			n++;
		}
		ps = &plans[n - 1];
		ps->cells++;
		if (sqlite3_column_int(st, 9)) {
			ps->present++;
		} else if (missing) {
			struct gs_plan_cell c;

			c.policy = (const char *)sqlite3_column_text(st, 2);
			c.pods_path = (const char *)sqlite3_column_text(st, 3);
			c.pods_sha256 = (const char *)sqlite3_column_text(st, 4);
			c.nodes_path = (const char *)sqlite3_column_text(st, 5);
			c.nodes_sha256 = (const char *)sqlite3_column_text(st, 6);
			c.seed = (uint64_t)sqlite3_column_int64(st, 7);
			c.params_json = (const char *)sqlite3_column_text(st, 8);
			rc = missing(arg, ps->plan_id, sqlite3_column_int64(st, 1), &c);
			if (rc)
				goto out;
		}
	}
	if (step != SQLITE_DONE)
		rc = gs_db_sqlfail(db, err, err_len, "cannot read the sweep plans");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	if (rc || !plans_out) {
		free(plans);
		return rc;
	}
	*plans_out = plans;
	*n_out = n;
	return 0;
}

void gs_plan_status_free(struct gs_plan_status *plans)
{
	free(plans);
}
