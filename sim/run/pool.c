/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.c - the worker threads of a batch execution (see pool.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "run/claims.h"
#include "run/pool.h"
#include "store/plan.h"

/* What a worker passes to the ring for storing: its execution and its connection. */
struct worker {
	struct gs_exec *x;
	struct gs_db *db;
};

/* gs_ring_store_fn: stores a run through the draining worker's connection, one writer at a time. */
static int store(void *arg, struct gs_job *job, char *err, size_t err_len)
{
	struct worker *w = arg;
	int rc;

	pthread_mutex_lock(&w->x->write_lock);
	rc = gs_job_store(job, w->db, err, err_len);
	pthread_mutex_unlock(&w->x->write_lock);
	return rc;
}

static void *work(void *arg)
{
	struct worker w = { .x = arg, .db = NULL };
	struct gs_exec *x = w.x;
	struct gs_ring_slot *sl;
	char err[1024];
	int rc;

	rc = gs_db_open(x->opts->db_path, &w.db, err, sizeof(err));
	if (rc) {
		gs_ring_fail(&x->ring, rc, err);
		return NULL;
	}
	while ((sl = gs_ring_take(&x->ring))) {
		size_t cell = sl->job.cell;

		rc = gs_claims_take(x, w.db, cell, &sl->job.out, err, sizeof(err));
		if (rc == GS_CLAIM_OURS)
			rc = gs_job_run(&sl->job, x->batch, cell, &x->jo, err, sizeof(err));
		else if (rc > 0)
			rc = 1; /* found done or claimed elsewhere: nothing to run */
		gs_ring_resolve(&x->ring, sl, rc, err, store, &w);
	}
	gs_db_close(w.db);
	return NULL;
}

void gs_pool_run(struct gs_exec *x, int n_threads)
{
	pthread_t *threads = calloc(n_threads > 0 ? (size_t)n_threads : 1, sizeof(*threads));
	int k, n = 0;

	if (!threads) {
		gs_ring_fail(&x->ring, GS_ENOMEM, "out of memory");
		return;
	}
	for (k = 0; k < n_threads; k++) {
		int e = pthread_create(&threads[k], NULL, work, x);

		if (e) {
			char msg[256];

			snprintf(msg, sizeof(msg), "cannot start worker thread: %s", strerror(e));
			gs_ring_fail(&x->ring, GS_ENOMEM, msg);
			break;
		}
		n++;
	}
	for (k = 0; k < n; k++)
		pthread_join(threads[k], NULL);
	free(threads);
}
