/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.c - the reorder ring of a batch's runs (see ring.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "run/ring.h"
#include "run/signals.h"

int gs_ring_init(struct gs_ring *r, size_t window, const size_t *todo, size_t n_todo,
		 struct gs_outcome *cells, bool watch_signals, FILE *progress, const char *label)
{
	memset(r, 0, sizeof(*r));
	r->slots = calloc(window ? window : 1, sizeof(*r->slots));
	if (!r->slots)
		return GS_ENOMEM;
	r->window = window ? window : 1;
	r->todo = todo;
	r->n_todo = n_todo;
	r->cells = cells;
	r->watch_signals = watch_signals;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->turn, NULL);
	gs_progress_init(&r->bar, progress, label, n_todo);
	return 0;
}

void gs_ring_release(struct gs_ring *r)
{
	if (!r->slots)
		return;
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->turn);
	free(r->slots);
	r->slots = NULL;
}

bool gs_ring_stopping(const struct gs_ring *r)
{
	return r->watch_signals && gs_signals_caught() != 0;
}

/* Records the first failure (under r->lock) and wakes the workers waiting for a turn. */
static void fail_locked(struct gs_ring *r, int rc, const char *err)
{
	if (!r->rc) {
		r->rc = rc;
		snprintf(r->err, sizeof(r->err), "%s", err && *err ? err : gs_strerror(rc));
	}
	pthread_cond_broadcast(&r->turn);
}

void gs_ring_fail(struct gs_ring *r, int rc, const char *err)
{
	pthread_mutex_lock(&r->lock);
	fail_locked(r, rc, err);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Waits for a turn. A signal handler cannot wake us: with signals, look at
 * the flag every 100 ms.
 */
static void wait_turn_locked(struct gs_ring *r)
{
	struct timespec until;

	if (!r->watch_signals) {
		pthread_cond_wait(&r->turn, &r->lock);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 100 * 1000 * 1000;
	if (until.tv_nsec >= 1000 * 1000 * 1000) {
		until.tv_sec++;
		until.tv_nsec -= 1000 * 1000 * 1000;
	}
	pthread_cond_timedwait(&r->turn, &r->lock, &until);
}

struct gs_ring_slot *gs_ring_take(struct gs_ring *r)
{
	struct gs_ring_slot *sl = NULL;

	pthread_mutex_lock(&r->lock);
	/* Never more than the ring ahead of the oldest job not yet resolved. */
	while (!r->rc && !gs_ring_stopping(r) && r->next < r->n_todo &&
	       r->next - r->stored >= r->window)
		wait_turn_locked(r);
	if (!r->rc && !gs_ring_stopping(r) && r->next < r->n_todo) {
		sl = &r->slots[r->next % r->window];
		sl->state = GS_SLOT_BUSY;
		sl->job.cell = r->todo[r->next++];
	}
	pthread_mutex_unlock(&r->lock);
	if (sl)
		gs_outcome_init(&sl->job.out);
	return sl;
}

/*
 * Called under r->lock by a worker whose job is resolved: unless another
 * worker is at it, stores the ready slots at the ring's tail in plan order
 * through store, dropping r->lock while each run is written, and frees
 * them. A failed store stops the storing of any later run (their
 * simulations are released) and fails the batch.
 */
static void drain_locked(struct gs_ring *r, gs_ring_store_fn store, void *arg)
{
	char err[1024];

	if (r->draining)
		return;
	r->draining = true;
	while (r->stored < r->next) {
		struct gs_ring_slot *sl = &r->slots[r->stored % r->window];

		if (sl->state == GS_SLOT_BUSY)
			break;
		if (sl->state == GS_SLOT_RUN) {
			int rc = 0;

			if (!r->write_failed) {
				pthread_mutex_unlock(&r->lock);
				rc = store(arg, &sl->job, err, sizeof(err));
				gs_job_release(&sl->job);
				pthread_mutex_lock(&r->lock);
			} else {
				gs_job_release(&sl->job);
			}
			if (rc) {
				r->write_failed = true;
				fail_locked(r, rc, err);
			} else if (!r->write_failed) {
				r->cells[sl->job.cell] = sl->job.out;
				r->done++;
			}
		} else if (sl->state == GS_SLOT_NOTHING) {
			r->cells[sl->job.cell] = sl->job.out;
		} else if (sl->state == GS_SLOT_CUT) {
			r->cells[sl->job.cell].run_id = -1;
			r->abandoned++;
		}
		sl->state = GS_SLOT_FREE;
		r->stored++;
		pthread_cond_broadcast(&r->turn);
	}
	r->draining = false;
}

void gs_ring_resolve(struct gs_ring *r, struct gs_ring_slot *sl, int rc, const char *err,
		     gs_ring_store_fn store, void *arg)
{
	pthread_mutex_lock(&r->lock);
	if (rc == GS_EINTR && gs_ring_stopping(r)) {
		sl->state = GS_SLOT_CUT;
	} else if (rc < 0) {
		sl->state = GS_SLOT_FAILED;
		fail_locked(r, rc, err);
	} else {
		sl->state = rc == 0 ? GS_SLOT_RUN : GS_SLOT_NOTHING;
		r->seen++;
		gs_progress_update(&r->bar, r->seen);
	}
	drain_locked(r, store, arg);
	pthread_mutex_unlock(&r->lock);
}
