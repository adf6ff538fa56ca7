/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - the option kinds gpusim's commands share beyond opt.h's plain
 * ones: the --mode names, the --policy list and the --seeds list. Each
 * converter has the gs_opt_parse_fn contract (opt.h): it fills its field
 * and returns 0, or prints "gpusim CMD: --OPT: ..." and returns GS_EINVAL
 * (bad value) or GS_ENOMEM.
 */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/opt.h"
#include "policies/policy.h"
#include "engine/replay.h"

/* The names of --mode for a GS_OPT_ENUM option: "time" and "inflate" (enum gs_mode values). */
extern const struct gs_opt_choice gs_cli_modes[];

/* The names of --arrivals: "poisson" and "trace" (enum gs_arrivals values). */
extern const struct gs_opt_choice gs_cli_arrivals[];

/* The --help paragraphs of --load and --arrivals, shared by replay and sweep. */
#define GS_CLI_LOAD_HELP                                                                       \
	"time mode: replace the arrival times so that the pods offer PCT% of the cluster's "   \
	"GPU capacity over the arrival window, each keeping its request, its duration and "    \
	"its place in the arrival order. Offered demand: the sum over pods of num_gpu x "      \
	"gpu_milli x min(duration, W) over capacity x W, W the window's length; a pod that "   \
	"runs longer than the window (openb's 34 pods of more than 10^6 s) or never leaves "   \
	"counts as holding its request for the whole window. The run records the load it "     \
	"got (LOAD%, run_summary.offered_load_pct)"
#define GS_CLI_ARRIVALS_HELP                                                                   \
	"with --load: 'poisson', a steady Poisson stream drawn with the seed (the default), "  \
	"or 'trace', the trace's own gaps scaled by one factor (keeps its bursts and lulls)"

#define GS_CLI_REPEAT_HELP                                                                     \
	"with --load: the trace's pods K times over, copy after copy, each pod keeping its "  \
	"request and duration; a trace whose pods together ask for about the cluster's "       \
	"capacity (openb) needs K > 1 to offer a load near or above 100% over a window "       \
	"longer than its pods' durations"

#define GS_CLI_SHARING_HELP                                                                    \
	"the GPU-sharing mechanism of every GPU the cluster file leaves unset: 'ideal' (shares " \
	"accounted as asked, sharing costs nothing: gpusim before the sharing model), "        \
	"'exclusive', 'timeslice[:replicas=N]', 'mps[:replicas=N;threads=PCT;pinned_mib=MIB]', " \
	"'vgpu[:elastic|:capped]' or 'mig[:layout=P+P+...]' (docs/sharing.md); " \
	"under 'mig', GPUs without MIG run exclusive"
#define GS_CLI_INTERFERENCE_HELP                                                               \
	"the interference table of the rate model (mode,gpu_model,n,class,efficiency,source; "  \
	"traces/README.md) instead of the built-in results/interference.csv"

#define GS_CLI_IDLE_JOB_HELP                                                                   \
	"the reference job of the idle GPU breakdown (run_summary.idle_*_pct): GPUS,CORES"      \
	"[,MEM_GIB], whole GPUs; each idle GPU is counted by why such a job cannot have it "    \
	"(docs/trace-formats-public.md)"

/* Converter for --idle-job (field: struct gs_idle_job): GPUS,CORES[,MEM_GIB]. */
int gs_cli_parse_idle_job(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field);

/* Converter for --sharing (field: struct gs_share_cfg): one spec (core/sharing.h). */
int gs_cli_parse_sharing(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			 const char *value, void *field);

/* Target of a --sharing list (sweep): n specs in the order given, each once. */
#define GS_CLI_MAX_SHARINGS 16
struct gs_cli_sharings {
	struct gs_share_cfg v[GS_CLI_MAX_SHARINGS];
	size_t n;
};

/* Converter for a comma-separated list of specs (field: struct gs_cli_sharings). */
int gs_cli_parse_sharings(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field);

/* Most policies one --policy list may name. */
#define GS_CLI_MAX_POLICIES 64

/* Target of --policy: the policies named, in order, each once. */
struct gs_cli_policies {
	const struct gs_policy *v[GS_CLI_MAX_POLICIES];
	size_t n;
};

/*
 * Converter for --policy (field: struct gs_cli_policies): a comma-separated
 * list of registry names, "all" for every policy and "paper" for the six
 * of Weng et al., ATC 2023 (random, dotprod, gpuclustering, gpupacking,
 * bestfit, fgd). An unknown name, an empty item or a policy named twice
 * (also through "all" or "paper") is GS_EINVAL.
 */
int gs_cli_parse_policies(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field);

/* Target of --seeds: n seeds in the order given, each once; v is malloc'ed. */
struct gs_cli_seeds {
	uint64_t *v;
	size_t n;
};

/*
 * Converter for --seeds (field: struct gs_cli_seeds): seeds and ranges such
 * as 42-51 or 1,5,7-9 (gs_parse_seeds() in sweep.h); a seed given twice is
 * GS_EINVAL. Frees the list of an earlier call.
 */
int gs_cli_parse_seeds(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field);

/* Frees a struct gs_cli_seeds filled by gs_cli_parse_seeds() and empties it. */
void gs_cli_seeds_release(void *field);

/* Target of a list of numbers (--load, --time-scale in sweep): n values; v is malloc'ed. */
struct gs_cli_numbers {
	double *v;
	size_t n;
};

/*
 * Converter for a list of positive numbers (field: struct gs_cli_numbers),
 * such as 50,80,95,110 (gs_parse_numbers() in sweep.h): a value given
 * twice, zero, a negative or a malformed one is GS_EINVAL. Frees the list
 * of an earlier call.
 */
int gs_cli_parse_numbers(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			 const char *value, void *field);

/* Frees a struct gs_cli_numbers filled by gs_cli_parse_numbers() and empties it. */
void gs_cli_numbers_release(void *field);

/*
 * Word i of those option o accepts as its value (or as each item of its
 * list), for shell completion and the man page: the row's .words when it
 * has them, else the choices of a GS_OPT_ENUM option, the registry's
 * policies then "all" and "paper" for the --policy converter, the sharing
 * modes for the --sharing converters. Returns a static string, or NULL
 * past the last word and for an option whose values are free.
 */
const char *gs_cli_value(const struct gs_opt *o, size_t i);

/* Word i of the registry's policy names (no "all" nor "paper"), NULL past the last: a .words hint. */
const char *gs_cli_policy_word(size_t i);

/* Whether o takes a comma-separated list (GS_OPT_LIST, or a list converter of this file). */
bool gs_cli_is_list(const struct gs_opt *o);

#endif
