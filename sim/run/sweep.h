/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.h - a matrix of runs (traces x policies x settings x seeds), a
 * setting being one sharing mode, one load or one time scale of a list (or
 * the options as given): the batch `gpusim sweep` runs.
 *
 * gs_sweep_run() goes through five steps: check the spec, load the
 * cluster and the traces (run/inputs.h), lay the matrix out as a batch
 * (run/batch.h, one cell per combination, in the order below), run it
 * (run/exec.h: parallel, resumable, stored in plan order, sharded,
 * interruptible) and gather the outcomes. The database then holds the
 * matrix as a plan (store/plan.h); a sweep interrupted or run again skips
 * every run already complete under the same key, so it resumes where it
 * stopped, across the load and time-scale axes too (params_json holds
 * them).
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

#include "engine/replay.h"
#include "policies/policy.h"
#include "run/outcome.h"

struct gs_sweep_spec {
	const char *nodes_path;
	const char *const *pods_paths;          /* n_traces of them */
	size_t n_traces;
	/*
	 * A Kubernetes snapshot instead of a cluster file (run/inputs.h): its
	 * n_state files, which nodes_path names comma-joined for the runs'
	 * records; with state_only the one trace is its pending pods (and
	 * pods_paths[0] names the snapshot too).
	 */
	const char *const *state_paths;
	size_t n_state;
	bool state_only;
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
	/* Refuse a trace with pods that fit no node even on an empty cluster (GS_EINVAL). */
	bool strict;
	bool arrival_samples;                   /* gs_run_info.arrival_samples; not in the key */
	/* --shard K/N, --claim-timeout, the bar, the signals: as in struct gs_exec_opts. */
	size_t shard_k, shard_n;
	int64_t claim_timeout_s;
	FILE *progress;                         /* a bar when it is a terminal; may be NULL */
	bool on_signals;
	/*
	 * Where to say, before any run, which pods can never run: once per
	 * trace, and once per trace and sharing mode (run/audit.h); NULL: not said.
	 */
	FILE *warn;
};

struct gs_sweep {
	size_t n_traces, n_policies, n_settings, n_seeds;
	/* [((trace * n_policies + policy) * n_settings + setting) * n_seeds + seed] */
	struct gs_outcome *cells;
	double *settings;             /* the load or time scale of each setting; NAN for none */
	size_t n_numbers;             /* loads or scales per sharing mode */
	char **trace_names;           /* file names without extension, directories where two share one */
	/* As in struct gs_exec_result (run/exec.h). */
	size_t n_ran, n_skipped;
	size_t n_other_shards;        /* cells left to other shards */
	size_t n_elsewhere;           /* cells another sweep was running */
	size_t n_abandoned;           /* GS_EINTR: runs cut short, not stored */
	int signal;                   /* GS_EINTR: the signal that stopped the sweep */
	char plan_id[65];             /* the matrix's id in sweep_plans */
	double wall_s;                /* of the whole sweep */
};

/*
 * Runs the matrix. Refuses a spec that makes no sense (GS_EINVAL), loads
 * the cluster and every trace (an error there names the file: GS_ENOENT,
 * GS_EIO, GS_EPARSE; GS_EINVAL with spec->strict), refuses a load or
 * options the traces cannot take (GS_EINVAL, GS_ERANGE), all before
 * anything is stored; then runs the missing cells as gs_exec_batch() does
 * and returns what it returns (GS_EDB, GS_ESCHEMA, the first failing run's
 * error, or GS_EINTR after a signal, *out then holding only n_ran,
 * n_abandoned and signal). err gets a one-line message. On success fills
 * *out, which the caller releases.
 */
int gs_sweep_run(const struct gs_sweep_spec *spec, struct gs_sweep *out, char *err,
		 size_t err_len);

/* Frees what gs_sweep_run() put in *s and empties it; safe on a zeroed struct. */
void gs_sweep_release(struct gs_sweep *s);

/* The cell of (trace, policy, setting, seed index). */
static inline const struct gs_outcome *gs_sweep_cell_at(const struct gs_sweep *s, size_t trace,
							size_t policy, size_t setting, size_t seed)
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
		    enum gs_fig fig, double *mean_out, double *sd_out, size_t *n_out);

#endif
