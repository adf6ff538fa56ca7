/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec.h - running a batch of runs (run/batch.h): in parallel, resumable,
 * stored in plan order, shardable over hosts, interruptible, with a
 * progress bar. The one way gpusim executes many runs; a command that
 * needs runs builds a batch and calls gs_exec_batch().
 *
 *   struct gs_batch b;               // run/batch.h
 *   gs_batch_init(&b);
 *   gs_batch_add_input(&b, ...);     // cluster + trace, loaded (run/inputs.h)
 *   gs_batch_add_setting(&b, &opts); // replay options, one per setting
 *   gs_batch_add_cell(&b, ...);      // input x setting x policy x seed, in order
 *   gs_batch_check(&b, err, len);    // bad input: exit 2, nothing stored
 *   gs_exec_batch(&b, &xo, &res, err, len);
 *   ... res.cells[i]: run id and figures of run i (run/outcome.h)
 *   gs_exec_result_release(&res); gs_batch_release(&b);
 *
 * What it does, in order:
 *   plan    records the whole batch as a plan in the database (store/plan.h,
 *           sweep_plans), whichever shard this is, so that merged shards
 *           can be checked against it (gpusim merge);
 *   resume  skips every run already complete in the database under the
 *           same key (policy, trace and cluster checksums, seed,
 *           params_json), and the runs of other shards (--shard K/N: the
 *           runs whose index is K - 1 modulo N);
 *   start   runs the rest on xo->jobs threads (run/pool.h), each run
 *           claimed just before it runs (run/claims.h), so that two
 *           processes writing to one database never both run it, and
 *           stored in plan order, one transaction each (run/ring.h);
 *   join    waits for the runs another process claimed (runs them here if
 *           it let them go), releases this process's claims.
 *
 * Each run is an independent simulation (one struct gs_sim per run; the
 * batch's inputs are shared read-only), so the results do not depend on
 * which thread ran what, and a batch on a fresh database numbers its runs
 * the same every time.
 *
 * Ownership: the batch and the options are the caller's and only read;
 * struct gs_exec_result is caller-owned (_release) and owns its array.
 */
#ifndef GS_EXEC_H
#define GS_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run/batch.h"
#include "run/outcome.h"

/* How to run a batch. */
struct gs_exec_opts {
	const char *db_path;                 /* the results database, created if missing */
	int jobs;                            /* worker threads, >= 1 */
	/*
	 * Store runs without pod rows (gs_run_info.no_pods), or with one
	 * sample per arrival (arrival_samples). Not part of the key: they
	 * change no result, so a run stored either way is done.
	 */
	bool no_pods;
	bool arrival_samples;
	/* --shard K/N: run only the cells whose index is K - 1 modulo N (1 <= K <= N); 0/0: all. */
	size_t shard_k, shard_n;
	/* Claims of another host older than this are taken over (gs_db_claim); 0 never. */
	int64_t claim_timeout_s;
	FILE *progress;                      /* a bar (on a terminal) and notes; may be NULL */
	const char *name;                    /* the command, for the bar and messages: "sweep" */
	/*
	 * Stop cleanly on SIGINT or SIGTERM (run/signals.h; the command line
	 * sets it): while the runs go, the first such signal makes the
	 * workers take no new run and cuts the runs in progress short; see
	 * gs_exec_batch() for what it returns then. A second one kills.
	 */
	bool on_signals;
};

/* What a batch did. */
struct gs_exec_result {
	struct gs_outcome *cells;            /* [batch->n_cells], in the batch's order */
	size_t n_cells;
	size_t n_ran;                        /* runs made and stored now */
	size_t n_skipped;                    /* found complete, before or when their turn came */
	size_t n_other_shards;               /* left to other shards */
	size_t n_elsewhere;                  /* still run by another process at the end */
	size_t n_abandoned;                  /* GS_EINTR: runs cut short, not stored */
	int signal;                          /* GS_EINTR: the signal that stopped the batch */
	char plan_id[65];                    /* the batch's id in sweep_plans */
};

/*
 * Checks the options alone: a database, at least one job, a shard K/N
 * with 1 <= K <= N (or 0/0). Returns 0 or GS_EINVAL with a message in err.
 * gs_exec_batch() checks them too; a command calls this first so that a
 * bad option is reported before its inputs are loaded.
 */
int gs_exec_opts_check(const struct gs_exec_opts *xo, char *err, size_t err_len);

/*
 * Runs batch b as xo says (see above) and fills *out, which the caller
 * releases. Returns 0; GS_EINVAL for bad options; GS_EDB or GS_ESCHEMA
 * when the database cannot be opened or written; or the first failing
 * run's error (GS_ENOMEM, GS_ECHECK, GS_ELIMIT, GS_EDB: it stops the
 * others); err gets a one-line message, and *out is empty. With
 * xo->on_signals, a SIGINT or SIGTERM while the runs go stores every
 * finished run (in plan order among themselves, so a run after a cut one
 * gets a lower id than the cut one will get on resume), releases this
 * process's claims and returns GS_EINTR with "interrupted by SIGINT: N
 * runs stored in DB, M cut short and not stored; run the same command
 * again to resume" in err; *out then holds only n_ran (runs stored),
 * n_abandoned and signal, and owns nothing.
 */
int gs_exec_batch(const struct gs_batch *b, const struct gs_exec_opts *xo,
		  struct gs_exec_result *out, char *err, size_t err_len);

/* Frees what gs_exec_batch() put in *r and empties it; safe on a zeroed struct. */
void gs_exec_result_release(struct gs_exec_result *r);

#endif
