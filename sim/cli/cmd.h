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

#define GS_EXIT_OK 0
#define GS_EXIT_FAIL 1
#define GS_EXIT_USAGE 2

/* name, function, one-line summary; the order of `gpusim --help`. */
#define GS_CMD_LIST(X)                                                           \
	X(replay, "replay a pod trace against placement policies")                  \
	X(inspect, "show per-node, per-GPU allocation of a stored run")            \
	X(policies, "list the placement policies")                                 \
	X(gen, "generate a synthetic cluster and pod trace")                        \
	X(sweep, "run traces x policies x seeds in parallel, resumable")           \
	X(merge, "join results databases, e.g. the shards of a sweep (sweep --shard)") \
	X(plot, "draw simulator and benchmark figures from a results database") \
	X(bench_import, "load gpusim-bench results (make bench) into a results database") \
	X(regress, "compare a results database with a baseline (CI regression checks)") \
	X(interference, "show, check or export (from make bench) the interference table")

#define GS_CMD_DECL(name, summary) int gs_cmd_##name(int argc, char **argv);
GS_CMD_LIST(GS_CMD_DECL)
#undef GS_CMD_DECL

#endif
