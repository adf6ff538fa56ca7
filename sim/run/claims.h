/* SPDX-License-Identifier: Apache-2.0 */
/*
 * claims.h - the claims of one batch execution on its database
 * (store/plan.h): each run is claimed just before it runs, so that two
 * processes writing to one database never both run it; the runs another
 * process was running when their turn came are waited for at the end.
 *
 * Every write goes through the execution's write lock (exec_internal.h).
 * Ownership: nothing is kept; outcomes are written where the caller says.
 */
#ifndef GS_CLAIMS_H
#define GS_CLAIMS_H

#include <stddef.h>

#include "run/exec_internal.h"
#include "store/results.h"

/*
 * Claims run cell of x's batch for this process through db. Returns
 * GS_CLAIM_OURS to run it; GS_CLAIM_DONE with *out filled from the run
 * another process stored meanwhile (skipped); GS_CLAIM_TAKEN with *out
 * marked elsewhere (run_id -1); or GS_EINVAL, GS_ENOENT, GS_ENOMEM or
 * GS_EDB with a message in err. *out's figures are NAN unless found done.
 */
int gs_claims_take(struct gs_exec *x, struct gs_db *db, size_t cell, struct gs_outcome *out,
		   char *err, size_t err_len);

/*
 * After the workers are joined: the runs marked elsewhere in x->cells are
 * waited for until their process stores them (then reported like runs
 * found done) or lets them go (it stopped, or died: then they run and are
 * stored here, counted in x->ring.done), so that the batch ends complete.
 * Checks twice a second; says once on xo->progress what it waits for.
 * Returns 0 (also when a signal stops the wait, a run cut short counted in
 * x->ring.abandoned), or the error of a claim, a run or a store.
 */
int gs_claims_wait(struct gs_exec *x, struct gs_db *db, char *err, size_t err_len);

/* Drops every claim of this process (a failed or cut run leaves one): 0 or GS_EDB. */
int gs_claims_release(struct gs_exec *x, struct gs_db *db, char *err, size_t err_len);

#endif
