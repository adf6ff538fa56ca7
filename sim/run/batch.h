/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch.h - a batch: the list of runs a command wants, before any runs.
 *
 * A run replays one trace on one cluster (an input) with one policy, one
 * setting (the replay options but the seed) and one seed. A command builds
 * its batch by adding inputs, settings and cells, in the order it wants
 * the runs stored and numbered; a sweep adds every combination of its
 * axes (run/sweep.h), another command may add any subset. Then:
 *
 *   gs_batch_check()   refuses what the options make impossible on these
 *                      inputs, before anything is stored (exit 2)
 *   gs_exec_batch()    runs it: in parallel, resumably, stored in order,
 *                      interruptible (run/exec.h)
 *
 * A run's key in the results database (policy, trace and cluster
 * checksums, seed, params_json: store/plan.h) comes from its cell,
 * through gs_batch_key(); so two cells with the same key are the same run.
 *
 * Ownership: a batch borrows its inputs' clusters, traces and strings
 * (the caller keeps them alive until the batch is released) and the
 * policies; it owns its arrays, its copies of the settings and their
 * params_json. _init/_release.
 */
#ifndef GS_BATCH_H
#define GS_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "engine/replay.h"
#include "io/trace/trace.h"
#include "policies/policy.h"
#include "store/plan.h"

/* A cluster and a trace loaded against it (io/trace/load.h), and where they came from. */
struct gs_batch_input {
	const struct gs_cluster *cluster;
	const struct gs_trace *trace;        /* trace->sha256 is the pods checksum */
	const char *nodes_path;              /* as given; stored with each run */
	const char *nodes_sha256;            /* of the cluster file: part of the key */
	const char *pods_path;               /* as given; stored with each run */
};

/* One run. */
struct gs_batch_cell {
	size_t input;                        /* index in the batch's inputs */
	size_t setting;                      /* index in the batch's settings */
	const struct gs_policy *policy;
	uint64_t seed;                       /* at most INT64_MAX; overrides the setting's */
};

struct gs_batch {
	struct gs_batch_input *inputs;
	size_t n_inputs;
	struct gs_replay_opts *settings;     /* copies; seed, progress and stop are ignored */
	char **params;                       /* [n_settings]: params_json of each setting */
	size_t n_settings;
	struct gs_batch_cell *cells;         /* in the order the runs are stored */
	size_t n_cells;
	size_t cap_inputs, cap_settings, cap_cells;
};

/* Makes b an empty batch. */
void gs_batch_init(struct gs_batch *b);

/* Appends an input (borrowed, see above); its index is b->n_inputs - 1. 0 or GS_ENOMEM. */
int gs_batch_add_input(struct gs_batch *b, const struct gs_batch_input *in);

/*
 * Appends a copy of the options o as a setting and computes its
 * params_json (gs_replay_params_json()); its index is b->n_settings - 1.
 * o->interference, when set, is borrowed. 0 or GS_ENOMEM.
 */
int gs_batch_add_setting(struct gs_batch *b, const struct gs_replay_opts *o);

/* Appends a run; GS_EINVAL when its input or setting is not in b (a bug), or GS_ENOMEM. */
int gs_batch_add_cell(struct gs_batch *b, const struct gs_batch_cell *c);

/*
 * Checks, before any run, that every run can start: for each setting and
 * input that a cell pairs, a --load the trace can offer (gs_arrivals_check():
 * "load 95%: FILE: ..."), then the options on that input
 * (gs_sim_validate()), settings outermost. Returns 0, or GS_EINVAL,
 * GS_ERANGE (bad input or usage) or GS_ENOMEM with a message in err.
 */
int gs_batch_check(const struct gs_batch *b, char *err, size_t err_len);

/* The options of run i: its setting with its seed. */
struct gs_replay_opts gs_batch_opts(const struct gs_batch *b, size_t i);

/* The key of run i, as the plan and the claims spell it (strings borrowed from b). */
struct gs_plan_cell gs_batch_key(const struct gs_batch *b, size_t i);

/* Frees what b owns and empties it; safe on an initialised or released batch. */
void gs_batch_release(struct gs_batch *b);

#endif
