/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec.c - running a batch of runs, step by step (see exec.h): check the
 * options, record the plan, find what is done, start the workers, join
 * them and the runs of other processes, and say how it ended.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "run/claims.h"
#include "run/exec.h"
#include "run/exec_internal.h"
#include "run/pool.h"
#include "run/signals.h"
#include "store/plan.h"
#include "store/results.h"

int gs_exec_opts_check(const struct gs_exec_opts *xo, char *err, size_t err_len)
{
	if (!xo->db_path || xo->jobs < 1) {
		gs_errf(err, err_len, "running runs needs a database and at least one job");
		return GS_EINVAL;
	}
	if (xo->shard_n && (xo->shard_k < 1 || xo->shard_k > xo->shard_n)) {
		gs_errf(err, err_len, "shard %zu/%zu: K must be 1 to N", xo->shard_k, xo->shard_n);
		return GS_EINVAL;
	}
	return 0;
}

/*
 * Records the whole batch as a plan in db, whichever shard this is:
 * merged shards compare what they hold with it (gpusim merge).
 */
static int record_plan(const struct gs_batch *b, struct gs_db *db, char plan_id[65], char *err,
		       size_t err_len)
{
	struct gs_plan_cell *plan = malloc((b->n_cells ? b->n_cells : 1) * sizeof(*plan));
	size_t i;
	int rc;

	if (!plan)
		return gs_errf_nomem(err, err_len);
	for (i = 0; i < b->n_cells; i++)
		plan[i] = gs_batch_key(b, i);
	gs_plan_id(plan, b->n_cells, plan_id);
	rc = gs_db_add_plan(db, plan_id, plan, b->n_cells, err, err_len);
	free(plan);
	return rc;
}

/*
 * Resume: a run complete in db under the same key is not run again, nor
 * one of another shard. Fills every outcome and lists the runs to do, in
 * plan order, in todo (n_todo of them).
 */
static int find_done(struct gs_exec *x, struct gs_db *db, struct gs_exec_result *out,
		     size_t *todo, size_t *n_todo, char *err, size_t err_len)
{
	const struct gs_exec_opts *xo = x->opts;
	size_t i;
	int rc;

	*n_todo = 0;
	for (i = 0; i < x->batch->n_cells; i++) {
		struct gs_outcome *c = &out->cells[i];
		struct gs_plan_cell key = gs_batch_key(x->batch, i);
		struct gs_run_row row;

		gs_outcome_init(c);
		if (xo->shard_n && i % xo->shard_n != xo->shard_k - 1) {
			c->other_shard = true;
			out->n_other_shards++;
			continue;
		}
		rc = gs_db_find_run(db, key.policy, key.pods_sha256, key.nodes_sha256, key.seed,
				    key.params_json, &c->run_id);
		if (rc == GS_ENOENT) {
			todo[(*n_todo)++] = i;
			continue;
		}
		if (rc) {
			gs_errf(err, err_len, "%s: cannot look up earlier runs: %s", xo->db_path,
				gs_strerror(rc));
			return rc;
		}
		rc = gs_db_get_run(db, c->run_id, &row, err, err_len);
		if (rc)
			return rc;
		gs_outcome_from_row(c, &row);
		c->skipped = true;
		gs_run_row_release(&row);
	}
	return 0;
}

/*
 * Start: the ring of 2 slots a worker, so that one slow run stalls no one
 * at once, then the signals (only now: before any run is claimed, a
 * signal has nothing to lose), then the workers, until they are done.
 */
static int start(struct gs_exec *x, const size_t *todo, size_t n_todo, struct gs_signals *sigs,
		 char *err, size_t err_len)
{
	const struct gs_exec_opts *xo = x->opts;
	int n_threads = xo->jobs < (int)n_todo ? xo->jobs : (int)n_todo;

	if (gs_ring_init(&x->ring, n_threads ? 2 * (size_t)n_threads : 1, todo, n_todo, x->cells,
			 xo->on_signals, xo->progress, xo->name)) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	if (xo->on_signals)
		gs_signals_catch(sigs);
	gs_pool_run(x, n_threads);
	return 0;
}

/*
 * Join: ends the progress bar, waits for the runs other processes hold,
 * counts the outcomes, and lets this process's claims go (a run that
 * failed, or an interrupted one, leaves one). Returns the batch's status
 * with its message in err.
 */
static int join(struct gs_exec *x, struct gs_db *db, struct gs_exec_result *out, char *err,
		size_t err_len)
{
	struct gs_ring *r = &x->ring;
	size_t i;
	char msg[512];
	int rc, sig, released;

	if (r->rc == 0 && !gs_ring_stopping(r))
		gs_progress_done(&r->bar);
	else if (r->bar.on)
		fputc('\n', x->opts->progress);
	if (r->rc == 0 && !gs_ring_stopping(r))
		r->rc = gs_claims_wait(x, db, r->err, sizeof(r->err));
	sig = x->opts->on_signals ? gs_signals_caught() : 0;
	out->n_ran = r->done;
	/* Runs found done or claimed when their turn came, as well as before. */
	out->n_skipped = 0;
	for (i = 0; i < x->batch->n_cells; i++) {
		out->n_elsewhere += out->cells[i].elsewhere;
		out->n_skipped += out->cells[i].skipped;
	}
	rc = r->rc;
	if (rc)
		gs_errf(err, err_len, "%s", r->err);
	released = gs_claims_release(x, db, msg, sizeof(msg));
	if (released && !rc) {
		gs_errf(err, err_len, "%s", msg);
		rc = released;
	}
	if (rc == 0 && sig) {
		/* Everything finished is stored and no claim is left: say so, report no figures. */
		out->n_abandoned = r->abandoned;
		out->signal = sig;
		gs_errf(err, err_len, "interrupted by %s: %zu run%s stored in %s, %zu cut short "
			"and not stored; run the same command again to resume",
			gs_signals_name(sig), r->done, r->done == 1 ? "" : "s", x->opts->db_path,
			r->abandoned);
		rc = GS_EINTR;
	}
	/* A failure always says something, if only what kind it was. */
	if (rc && !err[0])
		gs_errf(err, err_len, "%s", gs_strerror(rc));
	return rc;
}

int gs_exec_batch(const struct gs_batch *b, const struct gs_exec_opts *xo,
		  struct gs_exec_result *out, char *err, size_t err_len)
{
	struct gs_signals sigs = { .caught = false };
	struct gs_db *db = NULL;
	struct gs_exec x;
	size_t *todo = NULL, n_todo = 0;
	bool started = false;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	rc = gs_exec_opts_check(xo, err, err_len);
	if (rc)
		return rc;
	x.batch = b;
	x.opts = xo;
	x.jo.no_pods = xo->no_pods;
	x.jo.arrival_samples = xo->arrival_samples;
	x.jo.stop = xo->on_signals ? gs_signals_flag() : NULL;
	pthread_mutex_init(&x.write_lock, NULL);
	out->cells = calloc(b->n_cells ? b->n_cells : 1, sizeof(*out->cells));
	todo = malloc((b->n_cells ? b->n_cells : 1) * sizeof(*todo));
	if (!out->cells || !todo) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto done;
	}
	out->n_cells = b->n_cells;
	x.cells = out->cells;
	rc = gs_db_open(xo->db_path, &db, err, err_len);
	if (rc)
		goto done;
	rc = record_plan(b, db, out->plan_id, err, err_len);
	if (rc)
		goto done;
	gs_claim_owner(x.owner, sizeof(x.owner));
	rc = find_done(&x, db, out, todo, &n_todo, err, err_len);
	if (rc)
		goto done;
	rc = start(&x, todo, n_todo, &sigs, err, err_len);
	if (rc)
		goto done;
	started = true;
	rc = join(&x, db, out, err, err_len);
done:
	gs_signals_restore(&sigs);
	if (started)
		gs_ring_release(&x.ring);
	pthread_mutex_destroy(&x.write_lock);
	gs_db_close(db);
	free(todo);
	if (rc) {
		size_t ran = out->n_ran, cut = out->n_abandoned;
		int sig = out->signal;

		gs_exec_result_release(out);
		if (rc == GS_EINTR) {
			out->n_ran = ran;
			out->n_abandoned = cut;
			out->signal = sig;
		}
	}
	return rc;
}

void gs_exec_result_release(struct gs_exec_result *r)
{
	free(r->cells);
	memset(r, 0, sizeof(*r));
}
