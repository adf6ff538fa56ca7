/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound_batch.c - many bounds at once (run/bound_batch.h): a shared job
 * counter, workers that take the next job not skipped, and the caller's
 * thread storing and reporting the jobs in order as they finish.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "run/bound_batch.h"
#include "store/bounds.h"

struct slot {
	struct gs_bound_job job;
	struct gs_bound_point *pts;
	bool done;
	double wall_ms;
};

struct shared {
	const struct gs_bound_batch *b;
	struct slot *slots;
	size_t n, next;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *worker(void *arg)
{
	struct shared *sh = arg;
	const struct gs_bound_batch *b = sh->b;

	for (;;) {
		struct gs_bound_opts o;
		struct slot *s;
		double t0;
		size_t i;

		pthread_mutex_lock(&sh->lock);
		while (sh->next < sh->n && sh->slots[sh->next].job.skipped)
			sh->next++;
		if (sh->next >= sh->n) {
			pthread_mutex_unlock(&sh->lock);
			return NULL;
		}
		s = &sh->slots[sh->next++];
		pthread_mutex_unlock(&sh->lock);

		o = b->opts;
		o.seed = s->job.seed;
		for (i = 0; i < b->n_arrived; i++)
			s->pts[i].arrived_pct = b->arrived[i];
		t0 = gs_clock_ms();
		s->job.rc = gs_bound_compute(&b->in->clusters[s->job.trace],
					     &b->in->traces[s->job.trace], &o, s->pts, b->n_arrived,
					     s->job.err, sizeof(s->job.err));
		s->wall_ms = gs_clock_ms() - t0;

		pthread_mutex_lock(&sh->lock);
		s->done = true;
		pthread_cond_broadcast(&sh->cond);
		pthread_mutex_unlock(&sh->lock);
	}
}

/* The key of a job, for the lookup and the row. */
static void job_info(const struct gs_bound_batch *b, const struct slot *s,
		     struct gs_bound_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	bi->pods_path = b->pods_paths[s->job.trace];
	bi->pods_sha256 = b->in->traces[s->job.trace].sha256;
	bi->nodes_path = b->nodes_path;
	bi->nodes_sha256 = b->in->nodes_sha256;
	bi->seed = s->job.seed;
	bi->inflate = b->opts.inflate;
	bi->methods = b->opts.methods;
	bi->exact_time_limit_s = b->opts.exact_time_limit_s;
	bi->n_nodes = b->in->clusters[s->job.trace].n_nodes;
	bi->gpu_milli = b->in->clusters[s->job.trace].gpu_milli;
	bi->n_arrivals = b->n_arrived ? s->pts[b->n_arrived - 1].n_pods : 0;
	bi->wall_ms = s->wall_ms;
}

/* Stores a finished job (not a failed or skipped one); its rc and err say how it went. */
static void store(const struct gs_bound_batch *b, struct slot *s)
{
	struct gs_bound_info bi;
	int rc;

	if (!b->db || s->job.rc || s->job.skipped)
		return;
	job_info(b, s, &bi);
	rc = gs_bounds_write(b->db, &bi, s->pts, b->n_arrived, &s->job.bound_id, s->job.err,
			     sizeof(s->job.err));
	if (rc)
		s->job.rc = rc;
}

int gs_bound_batch_run(const struct gs_bound_batch *b, gs_bound_done_fn *done, void *arg,
		       char *err, size_t err_len)
{
	struct shared sh;
	pthread_t *th = NULL;
	size_t i, n_threads, started = 0;
	int rc = 0;

	memset(&sh, 0, sizeof(sh));
	sh.b = b;
	sh.n = b->in->n * b->n_seeds;
	sh.slots = calloc(sh.n + 1, sizeof(*sh.slots));
	if (!sh.slots)
		goto oom;
	for (i = 0; i < sh.n; i++) {
		struct slot *s = &sh.slots[i];
		struct gs_bound_info bi;

		s->job.trace = i / b->n_seeds;
		s->job.seed = b->seeds[i % b->n_seeds];
		s->pts = calloc(b->n_arrived + 1, sizeof(*s->pts));
		if (!s->pts)
			goto oom;
		s->job.pts = s->pts;
		if (!b->db)
			continue;
		job_info(b, s, &bi);
		rc = gs_bounds_have(b->db, &bi, b->arrived, b->n_arrived, err, err_len);
		if (rc < 0)
			goto out;
		s->job.skipped = rc == 1;
		rc = 0;
	}
	n_threads = (size_t)(b->jobs > 0 ? b->jobs : 1);
	if (n_threads > sh.n)
		n_threads = sh.n;
	th = calloc(n_threads + 1, sizeof(*th));
	if (!th)
		goto oom;
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	for (started = 0; started < n_threads; started++)
		if (pthread_create(&th[started], NULL, worker, &sh))
			break;
	if (started == 0 && sh.n) {
		gs_errf(err, err_len, "cannot start a thread");
		rc = GS_ENOMEM;
	}
	/* In matrix order, as the workers finish. */
	for (i = 0; started && i < sh.n; i++) {
		struct slot *s = &sh.slots[i];

		if (!s->job.skipped) {
			pthread_mutex_lock(&sh.lock);
			while (!s->done)
				pthread_cond_wait(&sh.cond, &sh.lock);
			pthread_mutex_unlock(&sh.lock);
			store(b, s);
		}
		done(arg, &s->job);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&sh.lock);
	pthread_cond_destroy(&sh.cond);
	goto out;
oom:
	gs_errf(err, err_len, "out of memory");
	rc = GS_ENOMEM;
out:
	free(th);
	for (i = 0; sh.slots && i < sh.n; i++)
		free(sh.slots[i].pts);
	free(sh.slots);
	return rc;
}
