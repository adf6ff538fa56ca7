/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outcome.h - what a batch of runs (run/exec.h) reports for each of its
 * runs: the run's id in the results database, whether it ran now, was
 * found done, or was left to another shard or another process, and the
 * headline figures a command aggregates over seeds (a sweep's summary,
 * a decision's comparisons).
 *
 * A run made now and a run found in the database give the same figures:
 * gs_outcome_from_summary() reads them from the engine's summary,
 * gs_outcome_from_row() from the stored run_summary row, field for field.
 * A figure that needs more than these reads the run back by its id
 * (store/results.h, gs_db_get_run()).
 */
#ifndef GS_OUTCOME_H
#define GS_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/replay.h"
#include "store/results.h"

/* The figures of a run (struct gs_outcome.fig indexes them). */
enum gs_fig {
	GS_FIG_UNALLOC,         /* unallocated GPU %: inflate mode's headline */
	GS_FIG_WAIT_MEAN,       /* mean wait: time mode's headline */
	GS_FIG_WAIT_P99,
	GS_FIG_COMPL_MEAN,      /* mean completion time */
	GS_FIG_COMPL_P99,
	GS_FIG_SLOWDOWN,        /* mean bounded slowdown */
	GS_FIG_ALLOC,           /* allocated GPU % (time mode: over the arrival window) */
	GS_FIG_USEFUL,          /* useful work % over the arrival window (sharing model) */
	GS_FIG_OOM,             /* pods failed by GPU memory oversubscription */
	GS_FIG_FAILED,          /* pods failed, any reason */
	GS_FIG_PENDING,         /* pods still waiting at the end (never placed) */
	GS_FIG_WAIT_MAX,        /* longest wait of a placed pod */
	GS_FIG_SLOWDOWN_P99,    /* 99th percentile of the bounded slowdown */
	GS_FIG_PODS,            /* pods in the run */
	GS_FIG_TIMED_OUT,       /* pods that gave up waiting (--max-wait) */
	GS_N_FIGS
};

/* One run of a batch, as the batch left it. */
struct gs_outcome {
	int64_t run_id;           /* -1 when not run here nor found (see the flags) */
	double fig[GS_N_FIGS];    /* NAN where undefined (time figures in inflate mode) */
	double wall_ms;           /* of the simulation itself; NAN when not run now */
	bool skipped;             /* found complete in the database */
	bool other_shard;         /* another shard's: not run, no run_id */
	bool elsewhere;           /* another process on the database runs it: no run_id */
};

/* Empties o: no run, every figure and the wall time NAN, no flag set. */
void gs_outcome_init(struct gs_outcome *o);

/* Sets o's figures from the summary of a run made now (gs_sim_summarize()). */
void gs_outcome_from_summary(struct gs_outcome *o, const struct gs_summary *s);

/* Sets o's figures from a stored run's row (gs_db_get_run()). */
void gs_outcome_from_row(struct gs_outcome *o, const struct gs_run_row *r);

#endif
