/* SPDX-License-Identifier: Apache-2.0 */
/*
 * claims.c - claiming runs before they run, and waiting for the runs of
 * other processes (see claims.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "run/claims.h"
#include "store/plan.h"

int gs_claims_take(struct gs_exec *x, struct gs_db *db, size_t cell, struct gs_outcome *out,
		   char *err, size_t err_len)
{
	struct gs_plan_cell key = gs_batch_key(x->batch, cell);
	struct gs_run_row row;
	int rc;

	pthread_mutex_lock(&x->write_lock);
	rc = gs_db_claim(db, &key, x->owner, x->opts->claim_timeout_s, &out->run_id, err,
			 err_len);
	pthread_mutex_unlock(&x->write_lock);
	if (rc == GS_CLAIM_TAKEN) {
		out->elsewhere = true;
		out->run_id = -1;
	} else if (rc == GS_CLAIM_DONE) {
		int r = gs_db_get_run(db, out->run_id, &row, err, err_len);

		if (r)
			return r;
		gs_outcome_from_row(out, &row);
		gs_run_row_release(&row);
		out->skipped = true;
	}
	return rc;
}

/* Runs cell here after all, in the ring's first slot (the workers are gone), and stores it. */
static int run_here(struct gs_exec *x, struct gs_db *db, size_t cell, struct gs_outcome *out,
		    char *err, size_t err_len)
{
	struct gs_job *j = &x->ring.slots[0].job;
	int rc;

	gs_outcome_init(&j->out);
	rc = gs_job_run(j, x->batch, cell, &x->jo, err, err_len);
	if (rc)
		return rc;
	pthread_mutex_lock(&x->write_lock);
	rc = gs_job_store(j, db, err, err_len);
	pthread_mutex_unlock(&x->write_lock);
	gs_job_release(j);
	if (rc)
		return rc;
	*out = j->out;
	x->ring.done++;
	return 0;
}

int gs_claims_wait(struct gs_exec *x, struct gs_db *db, char *err, size_t err_len)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 500 * 1000 * 1000 };
	size_t i, left;
	bool told = false;
	int rc;

	for (;;) {
		left = 0;
		for (i = 0; i < x->batch->n_cells; i++) {
			struct gs_outcome cell;

			if (gs_ring_stopping(&x->ring))
				return 0;
			if (!x->cells[i].elsewhere)
				continue;
			gs_outcome_init(&cell);
			rc = gs_claims_take(x, db, i, &cell, err, err_len);
			if (rc == GS_CLAIM_OURS) {
				rc = run_here(x, db, i, &cell, err, err_len);
				if (rc == GS_EINTR && gs_ring_stopping(&x->ring)) {
					x->ring.abandoned++;
					return 0;
				}
				if (rc)
					return rc;
			} else if (rc < 0) {
				return rc;
			}
			x->cells[i] = cell;
			left += cell.elsewhere;
		}
		if (!left)
			return 0;
		if (!told && x->opts->progress) {
			fprintf(x->opts->progress, "gpusim %s: waiting for %zu runs another sweep "
				"on %s is running\n", x->opts->name, left, x->opts->db_path);
			told = true;
		}
		nanosleep(&pause, NULL);
	}
}

int gs_claims_release(struct gs_exec *x, struct gs_db *db, char *err, size_t err_len)
{
	return gs_db_release_claims(db, x->owner, err, err_len);
}
