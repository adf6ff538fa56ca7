/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise.h - `gpusim advise`: which placement policy and which sharing
 * mechanism to run, and how many GPUs, decided from runs.
 *
 * gs_advise_run() goes through these steps:
 *   check     the spec, then, once the cluster and traces are loaded, what
 *             they make impossible (a cluster without GPUs, a mechanism no
 *             GPU of it can do, a target no cluster of its node types can
 *             meet): GS_EINVAL naming the option, before anything is stored;
 *   matrix    candidates (policy x mechanism, the baseline always among
 *             them) and the reference line (ideal under the baseline's
 *             policy) at every load
 *             and initial seed, one batch through the run layer (run/exec.h:
 *             parallel, resumable, stored);
 *   decide    report/decide.h, per trace and load;
 *   seeds     where the best has a tie, the next seeds for the best, its
 *             ties and the baseline, until they separate or max_seeds;
 *   capacity  with targets: per trace and load, for the best, its ties
 *             (up to capacity_top candidates in all) and the baseline, and
 *             per seed, the smallest cluster meeting every target, by
 *             bisection (see below); with the objective gpus, for every
 *             candidate still in, which are then decided on it;
 *   record    the verdict (report/advise_print.h) and the runs it rests on
 *             into the database (store/decision.h).
 *
 * Capacity. The workload stays what it is on the given cluster: with a
 * --load, the arrivals that offer that load of the given cluster's
 * capacity (gs_replay_opts.load_cap_milli), replayed on clusters of other
 * sizes. A size m is either the number of GPU nodes, each GPU node type
 * (nodes alike in CPU, memory, GPUs, model and sharing column) scaled in
 * proportion by largest remainders, CPU-only nodes kept; or, with an added
 * node file, the copies of its nodes added to the given cluster. A run
 * meets the targets when no pod failed or stayed unstarted and every
 * target's metric holds; a size is enough when every seed's run meets
 * them. The search assumes more nodes never hurt: from the given size it
 * halves towards 1 (0 copies) while enough, doubles up to max_nodes while
 * not, then bisects.
 *
 * Ownership: the spec is the caller's and only read; struct gs_advise is
 * caller-owned (gs_advise_release) and owns everything in it.
 */
#ifndef GS_ADVISE_H
#define GS_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sharing.h"
#include "engine/replay.h"
#include "policies/policy.h"
#include "report/criteria.h"
#include "report/decide.h"
#include "run/audit.h"

struct gs_advise_spec {
	const char *nodes_path;
	const char *const *pods_paths;
	size_t n_traces;
	const struct gs_policy *const *policies;     /* the candidates' policies */
	size_t n_policies;
	const struct gs_share_cfg *sharings;         /* their mechanisms; none: every one the GPUs do */
	size_t n_sharings;
	bool no_reference;                           /* no ideal reference line */
	const double *loads;                         /* --load levels; none: the traces' own times */
	size_t n_loads;
	bool loads_default;                          /* the default levels: drop what a trace cannot offer */
	const uint64_t *seeds;                       /* the initial seeds */
	size_t n_seeds;
	size_t max_seeds;                            /* seeds at most, extra ones included */
	struct gs_replay_opts opts;                  /* time mode; arrivals, repeat, max-wait, ... */
	struct gs_objective objective;
	const struct gs_cond *conds;
	size_t n_conds;
	const struct gs_policy *base_policy;         /* the baseline: exclusive + binpack */
	struct gs_share_cfg base_sharing;
	double alpha, conf;
	double min_effect_pct;                       /* a gain below this is said to be immaterial */
	/* Capacity: targets (none: no search), an added node file (NULL: scale). */
	const struct gs_cond *targets;
	size_t n_targets;
	const char *add_nodes_path;
	size_t capacity_top;                         /* candidates sized per block, baseline aside */
	int64_t max_nodes;                           /* largest size searched */
	/* Execution, as in struct gs_exec_opts. */
	const char *db_path;
	int jobs;
	bool no_pods;
	int64_t claim_timeout_s;
	FILE *progress;
	bool on_signals;
	FILE *warn;                                  /* the inputs' warnings (run/audit.h); may be NULL */
};

/* One candidate's capacity answer in one block. */
struct gs_advise_size {
	size_t cand;
	int64_t size;            /* the smallest size enough at every seed; -1: none up to max_nodes */
	int64_t gpus;            /* the GPUs of that cluster; -1 with it */
	int64_t nodes;           /* its nodes, GPU and CPU */
	int64_t *seed_size;      /* [n_seeds] per seed; -1 none, -2 not searched */
	const char *why_not;     /* static: why no size is enough (unfinished pods), or NULL */
};

/* One point of a candidate's capacity curve: size against the targets' figure. */
struct gs_advise_point {
	size_t block, cand;
	int64_t size, gpus;
	uint64_t seed;
	double value;            /* the first target's metric (NAN without a run) */
	bool meets;
};

struct gs_advise {
	/* The inputs. */
	size_t n_traces;
	char **trace_names;      /* distinct short names (enough of the path) */
	const char *const *pods_paths;
	size_t *n_pods;          /* per trace */
	int32_t n_nodes, n_gpu_nodes;
	int64_t gpu_count;
	char gpu_models[256];    /* "32 x H100" */
	size_t n_loads;
	double *loads;           /* NAN: the trace's own times */
	/* The candidates: [0, n_cands) with references last. */
	struct gs_decide_cand *cands;
	size_t n_cands;
	char **cand_sharing;     /* owned strings the cands point to */
	size_t baseline;
	/* The seeds every block may use, initial ones first; [block][cand * n_seeds + seed]. */
	uint64_t *seeds;
	size_t n_seeds, n_seeds_initial;
	struct gs_decide_run **runs;
	int64_t **run_ids;       /* -1 where not run */
	size_t n_blocks;         /* n_traces * n_loads: block = trace * n_loads + load */
	struct gs_decide_result decision;
	/* Pods no run of a mechanism can place, per trace and mechanism (run/audit.h). */
	struct gs_audit_never *never;
	size_t n_never;
	/* Capacity: per block, the candidates sized; the curve's points. */
	struct gs_advise_size **sizes;
	size_t *n_sizes;
	struct gs_advise_point *points;
	size_t n_points;
	bool capacity;
	bool add_mode;           /* sizes are copies added, not GPU nodes */
	char add_desc[256];      /* "1 node of 8 x H100" per copy */
	/* What ran. */
	size_t n_runs, n_ran, n_skipped, rounds;
	double wall_s;
	int64_t decision_id;
	int signal;              /* GS_EINTR: the signal that stopped it */
	size_t n_stored_on_stop; /* GS_EINTR: runs stored before it stopped */
};

/*
 * Runs the steps above. Returns 0 with *out filled, GS_EINVAL or GS_ERANGE
 * for bad input (the message names the option), GS_ENOENT, GS_EIO or
 * GS_EPARSE for a file that cannot be read, GS_EINTR after a signal (out
 * then holds signal and n_stored_on_stop only), or what a run or the
 * database returned (GS_EDB, GS_ESCHEMA, GS_ENOMEM, ...), with a message
 * in err.
 */
int gs_advise_run(const struct gs_advise_spec *spec, struct gs_advise *out, char *err,
		  size_t err_len);

/* Frees what gs_advise_run() put in *a and zeroes it; safe on a zeroed struct. */
void gs_advise_release(struct gs_advise *a);

/* Block b's load (NAN: the trace's times) and trace index. */
static inline double gs_advise_load(const struct gs_advise *a, size_t b)
{
	return a->loads[b % a->n_loads];
}

/* The trace of block b. */
static inline size_t gs_advise_trace(const struct gs_advise *a, size_t b)
{
	return b / a->n_loads;
}

/*
 * The mechanisms a cluster's GPUs can run, for the default: exclusive,
 * timeslice, mps, vgpu, and mig when some GPU model has MIG. Fills
 * out[0..*n) (at most 5).
 */
void gs_advise_mechanisms(const struct gs_cluster *c, struct gs_share_cfg *out, size_t *n);

#endif
