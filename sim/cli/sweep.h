/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.h - a matrix of runs (traces x policies x settings x seeds) in
 * parallel, a setting being one load or one time scale of a list (or the
 * options as given).
 *
 * Each run is an independent simulation (one struct gs_sim per run, no
 * shared mutable state besides the job counter and the reorder ring); every
 * finished run is written to the results database in its own transaction,
 * through a worker's own connection, in plan order whatever spec->jobs is
 * (a finished run waits, at most 2 x jobs of them, for the runs before it),
 * so a sweep on a fresh database numbers its runs the same every time. A
 * run already complete in the database with the same key (policy, trace
 * checksum, cluster checksum, seed, parameters) is skipped, so an
 * interrupted sweep resumes where it stopped; the key's parameters
 * (params_json) hold the load or the time scale, so a sweep resumes across
 * those axes too.
 *
 * Beyond one process (store/plan.h): the sweep records its whole matrix
 * as a plan in the database, runs only its shard of it (--shard K/N, a
 * fixed 1/N of the cells, so shards on many hosts cover the matrix once),
 * and claims each run just before running it, so that two sweeps writing
 * to one database never both run a run.
 *
 * Ownership: struct gs_sweep_spec is the caller's and only read;
 * struct gs_sweep is caller-owned (_release) and owns its arrays.
 */
#ifndef GS_SWEEP_H
#define GS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policies/policy.h"
#include "engine/replay.h"

struct gs_sweep_spec {
	const char *nodes_path;
	const char *const *pods_paths;          /* n_traces of them */
	size_t n_traces;
	/*
	 * A Kubernetes snapshot instead of a nodes file (io/k8s/build.h): its
	 * files, read in order (nodes_path names them, comma-joined); each
	 * trace is the snapshot's pending pods, then the pods file's, or the
	 * pending pods alone when pods_paths[t] is nodes_path.
	 */
	const char *const *state_paths;
	size_t n_state;
	const struct gs_policy *const *policies;
	size_t n_policies;
	const uint64_t *seeds;
	size_t n_seeds;
	struct gs_replay_opts opts;             /* the seed is set per run */
	/*
	 * The settings axis: a list of loads (opts.load_pct) or of time
	 * scales (opts.time_scale), at most one of the two; with neither,
	 * one setting, opts as given. Time mode only.
	 */
	const double *loads;
	size_t n_loads;
	const double *scales;
	size_t n_scales;
	/*
	 * The sharing axis (opts.sharing per setting): settings are every
	 * sharing mode times every load or scale, modes outermost. None: the
	 * opts as given.
	 */
	const struct gs_share_cfg *sharings;
	size_t n_sharings;
	int jobs;                               /* worker threads, >= 1 */
	const char *db_path;
	/*
	 * Store runs without pod rows (gs_run_info.no_pods). Not part of the
	 * resume key: it changes no result, so a run stored either way is done.
	 */
	bool no_pods;
	/* Refuse a trace with pods that fit on no node even when the cluster is empty (GS_EINVAL). */
	bool strict;
	bool arrival_samples;                   /* gs_run_info.arrival_samples; not in the key */
	/*
	 * --shard K/N: run only the cells whose index is K - 1 modulo N
	 * (1 <= K <= N); 0/0 runs them all. The whole matrix is recorded as
	 * the database's plan either way (store/plan.h).
	 */
	size_t shard_k, shard_n;
	/*
	 * Claims of another host older than this are taken over (store/plan.h,
	 * gs_db_claim); 0 never.
	 */
	int64_t claim_timeout_s;
	FILE *progress;                         /* a bar when it is a terminal; may be NULL */
	/*
	 * Stop cleanly on SIGINT or SIGTERM (the command line sets it): while
	 * the runs go, gs_sweep_run() catches the first such signal, stores
	 * what finished and returns GS_EINTR (see there); a second one kills.
	 */
	bool on_signals;
};

/* The figures of a run the summary aggregates over seeds (enum gs_sweep_fig indexes them). */
enum gs_sweep_fig {
	GS_SWEEP_UNALLOC,         /* unallocated GPU %: inflate mode's headline */
	GS_SWEEP_WAIT_MEAN,       /* mean wait: time mode's headline */
	GS_SWEEP_WAIT_P99,
	GS_SWEEP_COMPL_MEAN,      /* mean completion time */
	GS_SWEEP_COMPL_P99,
	GS_SWEEP_SLOWDOWN,        /* mean bounded slowdown */
	GS_SWEEP_ALLOC,           /* allocated GPU % (time mode: over the arrival window) */
	GS_SWEEP_USEFUL,          /* useful work % over the arrival window (sharing model) */
	GS_SWEEP_OOM,             /* pods failed by GPU memory oversubscription */
	GS_SWEEP_FAILED,          /* pods failed, any reason */
	GS_SWEEP_PENDING,         /* pods still waiting at the end (never placed) */
	GS_SWEEP_N_FIGS
};

/* One run of the matrix. */
struct gs_sweep_cell {
	int64_t run_id;
	double fig[GS_SWEEP_N_FIGS]; /* NAN where undefined (time figures in inflate mode) */
	double wall_ms;           /* of the simulation itself; NAN when skipped */
	bool skipped;             /* found complete in the database */
	bool other_shard;         /* another shard's: not run, no run_id */
	bool elsewhere;           /* claimed by another sweep on the database: not run, no run_id */
};

struct gs_sweep {
	size_t n_traces, n_policies, n_settings, n_seeds;
	/* [((trace * n_policies + policy) * n_settings + setting) * n_seeds + seed] */
	struct gs_sweep_cell *cells;
	double *settings;             /* the load or time scale of each setting; NAN for none */
	size_t n_numbers;             /* loads or scales per sharing mode (settings = modes x numbers) */
	char **trace_names;           /* file names without directory and extension */
	size_t n_ran, n_skipped;
	size_t n_other_shards;        /* cells left to other shards */
	size_t n_elsewhere;           /* cells another sweep was running */
	size_t n_abandoned;           /* GS_EINTR: runs cut short, not stored */
	int signal;                   /* GS_EINTR: the signal that stopped the sweep */
	char plan_id[65];             /* the matrix's id in sweep_plans */
	double wall_s;                /* of the whole sweep */
};

/*
 * Runs the matrix. Loads the cluster and every trace first (an error there
 * names the file: GS_ENOENT, GS_EIO, GS_EPARSE), opens the database
 * (GS_EDB, GS_ESCHEMA), then runs the missing cells on spec->jobs threads.
 * The first failing run stops the others (its error is returned, GS_ENOMEM
 * or GS_ECHECK or GS_EDB). err gets a one-line message. On success fills
 * *out, which the caller releases. With spec->on_signals, a SIGINT or
 * SIGTERM while the runs go makes the workers take no new job and cut the
 * runs in progress short (they are not stored; a resume runs them), stores
 * every finished run (in plan order among themselves, so a run after a cut
 * one gets a lower id than the cut one will get on resume), releases its
 * claims and returns GS_EINTR; *out then holds only n_ran (runs stored),
 * n_abandoned and signal, and owns nothing. A second signal kills at once.
 */
int gs_sweep_run(const struct gs_sweep_spec *spec, struct gs_sweep *out, char *err,
		 size_t err_len);

/* Frees what gs_sweep_run() put in *s and empties it; safe on a zeroed struct. */
void gs_sweep_release(struct gs_sweep *s);

/* The cell of (trace, policy, setting, seed index). */
static inline const struct gs_sweep_cell *gs_sweep_cell_at(const struct gs_sweep *s, size_t trace,
							   size_t policy, size_t setting,
							   size_t seed)
{
	return &s->cells[((trace * s->n_policies + policy) * s->n_settings + setting) * s->n_seeds +
			 seed];
}

/*
 * Mean and sample standard deviation of figure fig over the seeds of one
 * (trace, policy, setting), through GSL. Cells whose value is NAN (no
 * sample at arrived 100%, no pod placed) are left out; *n_out says how
 * many counted. sd is NAN for fewer than two.
 */
void gs_sweep_stats(const struct gs_sweep *s, size_t trace, size_t policy, size_t setting,
		    enum gs_sweep_fig fig, double *mean_out, double *sd_out, size_t *n_out);

/*
 * Prints the summary, one row per trace, policy and setting: in inflate
 * mode the mean +- sd over seeds of unallocated GPU %; in time mode the
 * mean +- sd over seeds of the mean wait (the headline), the p99 wait and
 * the mean completion time, the mean p99 completion time and slowdown.
 */
void gs_sweep_print_summary(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s);

/*
 * Parses a list of positive numbers such as "50,80,95,110" into a
 * malloc'ed array (caller frees). Returns 0, GS_EINVAL (empty, malformed,
 * not finite and positive, a value twice, more than 1000) or GS_ENOMEM.
 */
int gs_parse_numbers(const char *text, double **out, size_t *n_out);

/*
 * Parses a seed list such as "42-51" or "1,5,7-9" into a malloc'ed array
 * (caller frees). Returns 0, GS_EINVAL (empty, malformed, a range running
 * backwards, or more than 100000 seeds) or GS_ENOMEM.
 */
int gs_parse_seeds(const char *text, uint64_t **seeds_out, size_t *n_out);

#endif
