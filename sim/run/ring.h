/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.h - the reorder ring: runs are handed out in plan order and stored
 * in plan order, whatever the number of workers and however long each
 * run takes, so that a batch on a fresh database gives every run the same
 * id every time.
 *
 * Workers take jobs in plan order, each into a slot of a ring of `window`
 * slots (run/pool.h uses 2 x workers, so that one slow run stalls no one
 * at once). A finished run waits in its slot until every job taken before
 * it is resolved (stored, found done, claimed elsewhere, failed or cut
 * short), and whichever worker finds the oldest slot ready stores the
 * ready ones in order (one drainer at a time, one transaction per run,
 * through the drainer's own database connection). No job is taken more
 * than `window` ahead of the oldest unresolved one, so at most `window`
 * simulations are alive at once.
 *
 * With watch_signals, a caught SIGINT or SIGTERM (run/signals.h) makes
 * gs_ring_take() hand out nothing more; runs cut short count as resolved
 * with nothing to store, and the ready runs are still stored, including
 * those after a cut one: no finished run is thrown away, at the price of
 * plan order on resume (the cut runs get the next ids then).
 *
 * The first failure (a run or a store that fails) is kept with its
 * message; no job is handed out after it, and no run is stored after a
 * failed store (their simulations are released).
 *
 * Thread safety: every function but _init and _release may be called by
 * any worker at once; the ring has its own mutex. After the workers are
 * joined, the fields marked "under lock" are the caller's to read.
 * Ownership: _init/_release; the ring borrows todo and cells.
 */
#ifndef GS_RING_H
#define GS_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run/job.h"
#include "run/outcome.h"
#include "run/progress.h"

/* What a slot holds. */
enum gs_slot_state {
	GS_SLOT_FREE = 0,
	GS_SLOT_BUSY,        /* its worker is claiming or running it */
	GS_SLOT_RUN,         /* a finished run, to be stored */
	GS_SLOT_NOTHING,     /* found done or claimed elsewhere: its outcome is final */
	GS_SLOT_FAILED,      /* the run failed: nothing to store */
	GS_SLOT_CUT,         /* cut short by a signal: nothing to store, its claim goes */
};

/* One job of the ring; the simulation lives in it until it is stored. */
struct gs_ring_slot {
	enum gs_slot_state state;
	struct gs_job job;
};

/*
 * Stores job (gs_job_store() through the calling worker's connection, the
 * writers serialised): 0, or an error with a message in err. arg is what
 * the worker passed to gs_ring_resolve().
 */
typedef int (*gs_ring_store_fn)(void *arg, struct gs_job *job, char *err, size_t err_len);

struct gs_ring {
	pthread_mutex_t lock;
	pthread_cond_t turn;                 /* the tail advanced, or a failure */
	struct gs_ring_slot *slots;          /* [window], job j in slots[j % window] */
	size_t window;
	const size_t *todo;                  /* the cells to run, in plan order */
	size_t n_todo;
	struct gs_outcome *cells;            /* by cell index: where outcomes land */
	bool watch_signals;
	/* Under lock: */
	size_t next;                         /* jobs [0, next) handed out */
	size_t stored;                       /* jobs [0, stored) resolved: the ring's tail */
	size_t seen;                         /* jobs that ran or were found done */
	size_t done;                         /* runs stored */
	size_t abandoned;                    /* runs cut short by a signal */
	bool draining;                       /* a worker is storing the ready slots */
	bool write_failed;                   /* a store failed: store no more */
	int rc;                              /* first failure, 0 if none */
	char err[1024];
	struct gs_progress bar;              /* on progress, label, n_todo steps */
};

/*
 * Makes r a ring of window (>= 1) slots over the n_todo cells of todo,
 * writing outcomes into cells, with a progress bar on progress (may be
 * NULL; drawn only on a terminal). Returns 0 or GS_ENOMEM.
 */
int gs_ring_init(struct gs_ring *r, size_t window, const size_t *todo, size_t n_todo,
		 struct gs_outcome *cells, bool watch_signals, FILE *progress, const char *label);

/* Frees the ring's slots and its mutex; the simulations in them must be gone. */
void gs_ring_release(struct gs_ring *r);

/* Whether a caught signal tells the ring to stop (only with watch_signals). */
bool gs_ring_stopping(const struct gs_ring *r);

/*
 * The slot of the next job, once it fits in the ring (blocks until then),
 * marked busy with job.cell set and job.out emptied; NULL when there is
 * nothing more to hand out: every job taken, a failure, or a signal.
 */
struct gs_ring_slot *gs_ring_take(struct gs_ring *r);

/*
 * Resolves the slot the caller took: rc 0 for a run to store (job.sim
 * alive), > 0 for nothing to store (job.out final: found done or
 * elsewhere), GS_EINTR after a signal for a run cut short, another
 * negative code for a failure (err says why; the first one is kept). Then
 * stores the ready slots at the tail through store(arg, ...) unless
 * another worker is at it, dropping the ring's lock while each is written.
 */
void gs_ring_resolve(struct gs_ring *r, struct gs_ring_slot *sl, int rc, const char *err,
		     gs_ring_store_fn store, void *arg);

/* Records a failure outside a slot (a worker could not start): no job is handed out after it. */
void gs_ring_fail(struct gs_ring *r, int rc, const char *err);

#endif
