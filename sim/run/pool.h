/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.h - the worker threads of a batch execution.
 *
 * Each worker opens its own connection to the results database (WAL mode:
 * readers never wait, one writer at a time; store/results.h), then takes
 * jobs from the ring in plan order (run/ring.h): claims the run
 * (run/claims.h), runs it if it is this process's to run (run/job.h), and
 * resolves its slot, which stores the ready runs in order. The batch's
 * inputs are shared read-only; every run has its own simulation.
 */
#ifndef GS_POOL_H
#define GS_POOL_H

#include "run/exec_internal.h"

/*
 * Runs x's ring to its end on n_threads (>= 1) workers and joins them. A
 * thread that cannot start, or a worker whose database cannot be opened,
 * fails the ring (x->ring.rc); the workers already started finish their
 * runs in progress. Afterwards x->ring holds what happened.
 */
void gs_pool_run(struct gs_exec *x, int n_threads);

#endif
