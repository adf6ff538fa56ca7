/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd.h - the subcommands of the gpusim program.
 *
 * main.c dispatches `gpusim NAME ...` to gs_cmd_NAME(argc, argv), where
 * argv[0] is the subcommand's name. Each returns the process exit status:
 * 0 success, 1 a run failed, 2 bad input or usage (git style).
 */
#ifndef GS_CMD_H
#define GS_CMD_H

#include <stddef.h>

#define GS_EXIT_OK 0
#define GS_EXIT_FAIL 1
#define GS_EXIT_USAGE 2

/* C name (gs_cmd_NAME), name as typed, one-line summary; the order of `gpusim --help`. */
#define GS_CMD_LIST(X)                                                           \
	X(replay, "replay", "replay a pod trace against placement policies") \
	X(inspect, "inspect", "show per-node, per-GPU allocation of a stored run") \
	X(policies, "policies", "list the placement policies") \
	X(gen, "gen", "generate a synthetic cluster and pod trace") \
	X(convert, "convert", "convert a public GPU trace (Alibaba, Philly, Helios, Acme) to gpusim's formats") \
	X(sweep, "sweep", "run traces x policies x seeds in parallel, resumable") \
	X(advise, "advise", "which policy and sharing mechanism to run, and how many GPUs: a verdict from runs") \
	X(bound, "bound", "bound the unallocated GPU any placement could reach (inflate mode)") \
	X(merge, "merge", "join results databases, e.g. the shards of a sweep (sweep --shard)") \
	X(plot, "plot", "draw simulator and benchmark figures from a results database") \
	X(bench_import, "bench-import", "load gpusim-bench results (make bench) into a results database") \
	X(compare, "compare", "is one policy better than another on each workload (Welch, Holm)") \
	X(regress, "regress", "compare a results database with a baseline (CI regression checks)") \
	X(interference, "interference", "show, check, export or validate the sharing model's tables")

struct gs_cmd_spec;

/*
 * Each command also exports its option tables, NULL-terminated, in the
 * order its --help or its verbs show them: gs_cmd_NAME_specs (one spec, or
 * one per verb for `interference`). The man pages and the shell completion
 * are generated from them, so they cannot drift from --help.
 */
#define GS_CMD_DECL(name, typed, summary)                 \
	int gs_cmd_##name(int argc, char **argv); \
	extern const struct gs_cmd_spec *const gs_cmd_##name##_specs[];
GS_CMD_LIST(GS_CMD_DECL)
#undef GS_CMD_DECL

/* A command of the registry: its name as typed ("bench-import"), entry point, summary, tables. */
struct gs_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const struct gs_cmd_spec *const *specs;
};

/* Every command, in the order of `gpusim --help` (GS_CMD_LIST); gs_n_commands entries. */
extern const struct gs_command gs_commands[];
extern const size_t gs_n_commands;

#endif
