/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - what gpusim's commands share beyond opt.h: the option kinds
 * (the --mode names, the --policy, --seeds and --sharing lists), the
 * option rows themselves, and the exit status of a refused batch or
 * database. Each converter has the gs_opt_parse_fn contract
 * (opt.h): it fills its field and returns 0, or prints "gpusim CMD: --OPT:
 * ..." and returns GS_EINVAL (bad value) or GS_ENOMEM.
 *
 * An option two commands share is declared once, below, as a row (or a
 * run of rows) that each command's table includes, as git's parse-options
 * shares its OPT_* groups: the --help, man page and completion of every
 * command that has it then say the same thing. The options of a
 * simulation (those replay and sweep share, and any command that runs
 * replays) fill a struct gs_cli_sim that the command's argument struct
 * embeds under the name `sim`.
 */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/opt.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "io/interference.h"
#include "policies/policy.h"

/* The names of --mode for a GS_OPT_ENUM option: "time" and "inflate" (enum gs_mode values). */
extern const struct gs_opt_choice gs_cli_modes[];

/* The names of --arrivals: "poisson" and "trace" (enum gs_arrivals values). */
extern const struct gs_opt_choice gs_cli_arrivals[];

/* The --help paragraphs of --load and --arrivals, shared by replay and sweep. */
#define GS_CLI_LOAD_HELP                                                                       \
	"time mode: replace the arrival times so that the pods offer PCT% of the cluster's "    \
	"GPU capacity over the arrival window, each keeping its request, its duration and "     \
	"its place in the arrival order. Offered demand: the sum over pods of num_gpu x "       \
	"gpu_milli x min(duration, W) over capacity x W, W the window's length; a pod that "    \
	"runs longer than the window (openb's 34 pods of more than 10^6 s) or never leaves "    \
	"counts as holding its request for the whole window. The run records the load it "      \
	"got (LOAD%, run_summary.offered_load_pct)"
#define GS_CLI_ARRIVALS_HELP                                                                    \
	"with --load: 'poisson', a steady Poisson stream drawn with the seed (the default), "   \
	"or 'trace', the trace's own gaps scaled by one factor (keeps its bursts and lulls)"

#define GS_CLI_REPEAT_HELP                                                                      \
	"with --load: the trace's pods K times over, copy after copy, each pod keeping its "    \
	"request and duration; a trace whose pods together ask for about the cluster's "        \
	"capacity (openb) needs K > 1 to offer a load near or above 100% over a window "        \
	"longer than its pods' durations"

#define GS_CLI_SHARING_HELP                                                                     \
	"the GPU-sharing mechanism of every GPU the cluster file leaves unset: 'ideal' (shares " \
	"accounted as asked, sharing costs nothing: gpusim before the sharing model), "         \
	"'exclusive', 'timeslice[:replicas=N]', 'mps[:replicas=N;threads=PCT;pinned_mib=MIB]', " \
	"'vgpu[:elastic|:capped][;accuracy=F]' or 'mig[:layout=P+P+...]' (docs/sharing.md); " \
	"under 'mig', GPUs without MIG run exclusive"
#define GS_CLI_INTERFERENCE_HELP                                                                \
	"the interference table of the rate model (mode,gpu_model,n,class,efficiency,source; "  \
	"traces/README.md) instead of the built-in results/interference.csv"

#define GS_CLI_IDLE_JOB_HELP                                                                   \
	"the reference job of the idle GPU breakdown (run_summary.idle_*_pct): GPUS,CORES"      \
	"[,MEM_GIB], whole GPUs; each idle GPU is counted by why such a job cannot have it "    \
	"(docs/trace-formats-public.md)"

/* Converter for --idle-job (field: struct gs_idle_job): GPUS,CORES[,MEM_GIB]. */
int gs_cli_parse_idle_job(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field);

#define GS_CLI_BUSY_HELP                                                                       \
	"how busy the pods keep their GPUs when the trace gives no gpu_busy_milli, which "    \
	"time-slicing, MPS and vGPU costs depend on: ITEM[,ITEM...], ITEM = [CLASS=]VALUE, "  \
	"VALUE a fraction in (0, 1], 'genai' (drawn per pod from the duty cycles of "          \
	"Alibaba's GenAI trace, results/busy-genai.csv) or a distribution file (gpusim "       \
	"interference fit-busy); an item without CLASS= is for the other pods "               \
	"(default: busy all their running time, 1)"

/* Converter for --busy (field: struct gs_busy, zeroed or gs_busy_init'ed; engine/busy.h). */
int gs_cli_parse_busy(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		      void *field);
/* Its release: frees the distributions --busy loaded. */
void gs_cli_release_busy(void *field);

/* The --help paragraphs of --defrag and --defrag-cost (engine/defrag.h). */
#define GS_CLI_DEFRAG_HELP                                                                     \
	"time mode: when an arriving pod fits on no node, move (evict and re-place) running "  \
	"pods so that one takes it, within BUDGET: 'PCT%' moves at most PCT% of the pods "     \
	"arrived so far, 'N/h' at most N moves per simulated hour, 'PCT%,N/h' both. The "      \
	"descheduler empties the GPUs the pod needs at the least lost work, at most 4 moves "  \
	"per pod, the moved pods re-placed by the run's policy on other nodes"
#define GS_CLI_DEFRAG_COST_HELP                                                                \
	"what a move costs the moved pod: 'lost' (it restarts from scratch: the work since it " \
	"last started is lost) or S, seconds of restart (checkpoint and restore: it ends S "    \
	"later); counted in lost GPU-seconds"

/* Converter for --defrag (field: struct gs_defrag_opts): 'PCT%', 'N/h' or both, comma-separated. */
int gs_cli_parse_defrag(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
			void *field);

/* Converter for --defrag-cost (field: struct gs_defrag_opts): 'lost' or seconds of restart. */
int gs_cli_parse_defrag_cost(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
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

/*
 * Says why gs_list_parse_seeds() or gs_list_parse_numbers() (io/list.h)
 * refused option o's value with rc: "out of memory" for GS_ENOMEM, else
 * "'VALUE' is not a list of WHAT". Returns rc.
 */
int gs_cli_list_refused(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
			int rc, const char *what);

/* A table cell: v with `decimals` decimals into buf (len bytes), "-" for NAN. Returns buf. */
const char *gs_cli_num(char *buf, size_t len, double v, int decimals);

/* Target of --seeds: n seeds in the order given, each once; v is malloc'ed. */
struct gs_cli_seeds {
	uint64_t *v;
	size_t n;
};

/*
 * Converter for --seeds (field: struct gs_cli_seeds): seeds and ranges such
 * as 42-51 or 1,5,7-9 (gs_list_parse_seeds(), io/list.h); a seed given
 * twice is GS_EINVAL. Frees the list of an earlier call.
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
 * such as 50,80,95,110 (gs_list_parse_numbers(), io/list.h): a value given
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

/* --- shared option rows ------------------------------------------------------ */

/* What the simulation options fill: a command's argument struct S has one named `sim`. */
struct gs_cli_sim {
	const char *nodes;                   /* --nodes */
	struct gs_opt_list state;            /* --state: a Kubernetes snapshot's files */
	struct gs_cli_policies policies;     /* --policy */
	const char *interference;            /* --interference, NULL: the built-in table */
	struct gs_busy busy;                 /* --busy, n = 0: every pod busy all the time */
	int mode;                            /* --mode (enum gs_mode); -1: not given */
	int compat;                          /* --compat 1, --exact 0; -1: the mode's default */
	int ties;                            /* --ties: 0 index, 1 shuffled; -1: the scoring's */
	int arrivals;                        /* --arrivals (enum gs_arrivals) */
	bool no_pods, arrival_samples;       /* --no-pods, --arrival-samples */
	bool strict;                         /* --strict */
	struct gs_replay_opts opts;          /* the options that are replay options as they are */
};

/* Gives s the defaults the rows do not set: gs_replay_opts_init(), no mode, the mode's scoring. */
void gs_cli_sim_init(struct gs_cli_sim *s);

/*
 * Completes s->opts once the line is parsed and s->mode is set (>= 0):
 * the mode and arrival shape, the busy fractions (s->busy when --busy was
 * given; s must then outlive the runs), the scoring (--compat, --exact, or the
 * mode's default: compat in inflate mode, exact in time mode) as
 * GS_POLICY_COMPAT in opts.policy_flags, and the ties (--ties shuffled, or
 * the default of a command that set s->ties before parsing) as
 * GS_POLICY_SHUFFLED. Returns GS_EXIT_OK, or GS_EXIT_USAGE with a message
 * naming cmd when --ties index is given with compat scoring.
 */
int gs_cli_sim_finish(const char *cmd, struct gs_cli_sim *s);

/* The cluster: -n, --nodes FILE, or --state (gs_cli_sim_inputs() checks one is given). */
#define GS_CLI_OPT_NODES(S)                                                                     \
	{ GS_OPT_STRING_AT(S, sim.nodes), .name = "nodes", .short_name = 'n', .arg = "FILE",    \
	  .conflicts = "state",                                                                 \
	  .help = "cluster: openb node list, gpusim CSV or JSON (or --state)" }

/* A Kubernetes snapshot as the cluster, its running pods and its queue: --state FILE... */
#define GS_CLI_OPT_STATE(S)                                                                     \
	{ GS_OPT_LIST_AT(S, sim.state, 0), .flags = GS_OPT_MULTI, .name = "state",              \
	  .arg = "FILE...",                                                                     \
	  .help = "start from a Kubernetes snapshot instead of --nodes: kubectl get nodes,pods " \
		  "-A -o yaml|json output, manifests and DRA objects; its running pods hold "   \
		  "their resources for the whole run, its pending pods arrive first, before "   \
		  "--pods (docs/kubernetes.md)" }

/*
 * Whether the inputs are given: --nodes and pods (pods_given), or --state.
 * Prints "gpusim CMD: --nodes and --pods are required, or --state; ..." and
 * returns GS_EXIT_USAGE when not, else GS_EXIT_OK.
 */
int gs_cli_sim_inputs(const char *cmd, const struct gs_cli_sim *s, bool pods_given);

/*
 * Loads --interference, when given, into ifr (gs_interference_init()'ed by
 * the caller, who releases it after the runs) and points s->opts at it.
 * Returns GS_EXIT_OK, or prints "gpusim CMD: --interference: ..." and
 * returns GS_EXIT_FAIL when out of memory, GS_EXIT_USAGE for a bad table.
 */
int gs_cli_sim_interference(const char *cmd, struct gs_cli_sim *s, struct gs_interference *ifr);

/*
 * The exit status of a batch of runs (run/sweep.h, report/advise.h) that
 * returned rc (not 0) with the message err: prints "gpusim CMD: err", then
 * returns 128 + sig when a signal (sig) stopped it (GS_EINTR), as a shell
 * does; GS_EXIT_USAGE for inputs the user must fix (missing, unreadable,
 * malformed, out of range); GS_EXIT_FAIL for a run or the database failing.
 */
int gs_cli_batch_status(const char *cmd, int rc, int sig, const char *err);

/*
 * The exit status of a results database that gs_db_open() or a merge
 * (store/) refused with rc (not 0) and the message err: prints "gpusim
 * CMD: err", then returns GS_EXIT_USAGE for what the user must fix (a
 * missing file, one that is not a gpusim database, a newer or damaged one,
 * a path whose directory cannot be made: GS_ENOENT, GS_ESCHEMA, GS_EINVAL),
 * GS_EXIT_FAIL for a failure (a full disk, I/O, memory: GS_EDB, GS_ENOMEM,
 * GS_EIO).
 */
int gs_cli_db_status(const char *cmd, int rc, const char *err);

/*
 * The pod traces of a batch: -p, --pods FILE..., into `pods` (struct
 * gs_opt_list), with the flags FLAGS (GS_OPT_MULTI and whether required).
 */
#define GS_CLI_OPT_PODS_LIST_FLAGS(S, FLAGS)                                                    \
	{ GS_OPT_LIST_AT(S, pods, 256), .name = "pods", .short_name = 'p', .arg = "FILE...",    \
	  .flags = (FLAGS),                                                                     \
	  .help = "pod traces: comma-separated, or one argument each up to the next option, "   \
		  "as the shell's glob gives them (--pods traces/*.csv)" }

/* GS_CLI_OPT_PODS_LIST_FLAGS(), required. */
#define GS_CLI_OPT_PODS_LIST(S) GS_CLI_OPT_PODS_LIST_FLAGS(S, GS_OPT_REQUIRED | GS_OPT_MULTI)

/*
 * GS_CLI_OPT_PODS_LIST_FLAGS(), optional with --state (a command with
 * GS_CLI_OPT_STATE checks its inputs with gs_cli_sim_inputs()).
 */
#define GS_CLI_OPT_PODS_LIST_OR_STATE(S) GS_CLI_OPT_PODS_LIST_FLAGS(S, GS_OPT_MULTI)

/* The seeds of a batch: -s, --seeds LIST into `seeds` (struct gs_cli_seeds), 42-51 by default. */
#define GS_CLI_OPT_SEEDS(S)                                                                     \
	{ GS_OPT_CUSTOM_AT(S, seeds, struct gs_cli_seeds, gs_cli_parse_seeds,                   \
			   gs_cli_seeds_release),                                               \
	  .name = "seeds", .short_name = 's', .arg = "LIST", .def = "42-51",                    \
	  .help = "seeds and ranges, e.g. 42-51 or 1,5,7-9" }

/* The policies: -P, --policy LIST, DEF when not given. */
#define GS_CLI_OPT_POLICY(S, DEF)                                                               \
	{ GS_OPT_CUSTOM_AT(S, sim.policies, struct gs_cli_policies, gs_cli_parse_policies,      \
			   NULL),                                                               \
	  .name = "policy", .short_name = 'P', .arg = "LIST", .def = (DEF),                     \
	  .help = "comma-separated names, 'all' (every policy) or 'paper' (the six of the FGD " \
		  "paper: random,dotprod,gpuclustering,gpupacking,bestfit,fgd); 'gpusim "       \
		  "policies' lists them" }

/*
 * The node order ties go to: --ties ORDER, DEF when not given (NULL: the
 * scoring's, s->ties -1), HELP_TAIL ending the help.
 */
extern const struct gs_opt_choice gs_cli_ties[];
#define GS_CLI_OPT_TIES(S, DEF, HELP_TAIL)                                                      \
	{ GS_OPT_ENUM_AT(S, sim.ties, gs_cli_ties), .name = "ties", .arg = "ORDER",             \
	  .def = (DEF),                                                                         \
	  .help = "which of the best-scoring nodes a pod goes to: 'index', the first in the "   \
		  "cluster file, or 'shuffled', the first in a node order shuffled per seed "   \
		  "and trace, so that the file's order decides nothing (the kube-scheduler "    \
		  "breaks ties at random)" HELP_TAIL }

/* The scoring: --compat and --exact, and --ties. */
#define GS_CLI_OPTS_SCORING(S)                                                                  \
	{ GS_OPT_SET_AT(S, sim.compat, 1), .name = "compat", .conflicts = "exact",              \
	  .help = "FGD reference scoring: integer 0-100 scores, ties broken by a node order "   \
		  "shuffled per seed and trace (default in inflate mode)" },                    \
	{ GS_OPT_SET_AT(S, sim.compat, 0), .name = "exact",                                     \
	  .help = "float scores, ties to the lowest node index unless --ties shuffled "         \
		  "(default in time mode)" },                                                   \
	GS_CLI_OPT_TIES(S, NULL, "; default: index with --exact, always shuffled with --compat")

/* Inflate mode's target: --inflate X. */
#define GS_CLI_OPT_INFLATE(S)                                                                   \
	{ GS_OPT_DOUBLE_AT(S, sim.opts.inflate, 0, GS_INFLATE_MAX), .flags = GS_OPT_GT_MIN,     \
	  .name = "inflate", .arg = "X", .def = "1.3",                                          \
	  .help = "inflate mode target, total GPU request / capacity, at most 100; below 1 a run " \
		  "stops short of 100% arrived and its figures are those of where it stops" }

/* The shape of a --load: --arrivals SHAPE and --repeat K. */
#define GS_CLI_OPTS_LOAD_SHAPE(S)                                                               \
	{ GS_OPT_ENUM_AT(S, sim.arrivals, gs_cli_arrivals), .name = "arrivals", .arg = "SHAPE", \
	  .def = "poisson", .help = GS_CLI_ARRIVALS_HELP },                                     \
	{ GS_OPT_INT_AT(S, sim.opts.load_repeat, 1, 1000000), .name = "repeat", .arg = "K",     \
	  .def = "1", .help = GS_CLI_REPEAT_HELP }

/* Waiting pods: --max-wait S and --frag. */
#define GS_CLI_OPTS_QUEUE(S)                                                                    \
	{ GS_OPT_INT_AT(S, sim.opts.max_wait_s, 0, INT64_MAX), .name = "max-wait", .arg = "S",  \
	  .help = "a pod pending longer than S seconds fails (default: waits)" },               \
	{ GS_OPT_FLAG_AT(S, sim.opts.frag), .name = "frag",                                     \
	  .help = "track fragmentation in time mode (always on in inflate)" }

/* The idle breakdown's reference job: --idle-job G,C[,M]. */
#define GS_CLI_OPT_IDLE_JOB(S)                                                                  \
	{ GS_OPT_CUSTOM_AT(S, sim.opts.idle_job, struct gs_idle_job, gs_cli_parse_idle_job,     \
			   NULL),                                                               \
	  .name = "idle-job", .arg = "G,C[,M]", .def = "1,8", .help = GS_CLI_IDLE_JOB_HELP }

/* The pods' busy fractions: --busy SPEC (engine/busy.h). */
#define GS_CLI_OPT_BUSY(S)                                                                      \
	{ GS_OPT_CUSTOM_AT(S, sim.busy, struct gs_busy, gs_cli_parse_busy, gs_cli_release_busy), \
	  .name = "busy", .arg = "SPEC", .help = GS_CLI_BUSY_HELP }

/* The descheduler of time mode (engine/defrag.h): --defrag BUDGET and --defrag-cost COST. */
#define GS_CLI_OPTS_DEFRAG(S)                                                                   \
	{ GS_OPT_CUSTOM_AT(S, sim.opts.defrag, struct gs_defrag_opts, gs_cli_parse_defrag,      \
			   NULL),                                                               \
	  .name = "defrag", .arg = "BUDGET", .help = GS_CLI_DEFRAG_HELP },                      \
	{ GS_OPT_CUSTOM_AT(S, sim.opts.defrag, struct gs_defrag_opts, gs_cli_parse_defrag_cost, \
			   NULL),                                                               \
	  .name = "defrag-cost", .arg = "COST", .requires = "defrag",                           \
	  .help = GS_CLI_DEFRAG_COST_HELP " (default lost)" }

/* The rate model's table: --interference FILE. */
#define GS_CLI_OPT_INTERFERENCE(S)                                                              \
	{ GS_OPT_STRING_AT(S, sim.interference), .name = "interference", .arg = "FILE",         \
	  .help = GS_CLI_INTERFERENCE_HELP }

/* Sampling and checks: --sample-every N, --sample-interval S and --check. */
#define GS_CLI_OPTS_SAMPLING(S)                                                                 \
	{ GS_OPT_INT_AT(S, sim.opts.sample_every, 1, INT64_MAX), .name = "sample-every",        \
	  .arg = "N", .def = "1", .help = "sample the time series every N events" },            \
	{ GS_OPT_INT_AT(S, sim.opts.sample_interval_s, 0, INT64_MAX),                           \
	  .name = "sample-interval", .arg = "S",                                                \
	  .help = "also sample every S simulated seconds (time mode)" },                        \
	{ GS_OPT_FLAG_AT(S, sim.opts.check), .name = "check",                                   \
	  .help = "verify the allocator's invariants after every change" }

/* What a stored run keeps: --no-pods and --arrival-samples. */
#define GS_CLI_OPTS_STORE(S)                                                                    \
	{ GS_OPT_FLAG_AT(S, sim.no_pods), .name = "no-pods",                                    \
	  .help = "store no per-pod rows (most of a run's size): counts, mean wait, samples "   \
		  "and summary are kept, but 'gpusim inspect --run' cannot show the run" },     \
	{ GS_OPT_FLAG_AT(S, sim.arrival_samples), .name = "arrival-samples",                    \
	  .help = "inflate mode: store one sample per arrival; without it a run stores its "    \
		  "statistics per arrived percent and only the samples its summary reads (the " \
		  "figures are the same)" }

/* --strict: a trace that cannot be placed whole is an error. */
#define GS_CLI_OPT_STRICT(S)                                                                    \
	{ GS_OPT_FLAG_AT(S, sim.strict), .name = "strict",                                      \
	  .help = "pods that fit no node even on an empty cluster are errors" }

/*
 * -q, --quiet: a flag into field `quiet` of S, HELP saying what the command
 * leaves out (git's OPT__QUIET: the switch is one, its effect the command's).
 */
#define GS_CLI_OPT_QUIET(S, HELP)                                                               \
	{ GS_OPT_FLAG_AT(S, quiet), .name = "quiet", .short_name = 'q', .help = (HELP) }

/* The results database: -d, --db FILE into field F of S, DEF when not given. */
#define GS_CLI_OPT_DB(S, F, DEF)                                                                \
	{ GS_OPT_STRING_AT(S, F), .name = "db", .short_name = 'd', .arg = "FILE",               \
	  .def = (DEF), .help = "results database" }

/* Target of --shard K/N: 1 <= K <= N; 0/0 when not given. */
struct gs_cli_shard {
	size_t k, n;
};

/* Converter for --shard (field: struct gs_cli_shard): K/N, whole numbers, 1 <= K <= N <= 2^31. */
int gs_cli_parse_shard(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field);

/*
 * What the options of running many runs fill (run/exec.h: workers,
 * shards, claims): a command's argument struct S has one named `exec`.
 */
struct gs_cli_exec {
	int64_t jobs;                        /* --jobs */
	struct gs_cli_shard shard;           /* --shard */
	int64_t claim_timeout_s;             /* --claim-timeout */
};

/* Gives e the defaults the rows do not set: as many jobs as there are CPUs online. */
void gs_cli_exec_init(struct gs_cli_exec *e);

/* Worker threads: -j, --jobs N. */
#define GS_CLI_OPT_JOBS(S)                                                                     \
	{ GS_OPT_INT_AT(S, exec.jobs, 1, 1024), .name = "jobs", .short_name = 'j', .arg = "N", \
	  .help = "worker threads (default: the number of CPUs); the run ids do not depend on " \
		  "it, a finished run waits for the runs before it to be stored" }

/* One share of the runs: --shard K/N. */
#define GS_CLI_OPT_SHARD(S)                                                                    \
	{ GS_OPT_CUSTOM_AT(S, exec.shard, struct gs_cli_shard, gs_cli_parse_shard, NULL),      \
	  .name = "shard", .arg = "K/N",                                                       \
	  .help = "run the K-th of N fixed shares of the matrix (the cells whose index is K-1 " \
		  "modulo N), for sweeps spread over hosts; gpusim merge joins the databases" }

/* When another host's claim counts as abandoned: --claim-timeout S. */
#define GS_CLI_OPT_CLAIM_TIMEOUT(S)                                                            \
	{ GS_OPT_INT_AT(S, exec.claim_timeout_s, 0, INT64_MAX), .name = "claim-timeout",       \
	  .arg = "S", .def = "86400",                                                          \
	  .help = "a run another host claimed S seconds ago or more counts as abandoned and is " \
		  "run here (0: never); claims of this host's processes that are gone always do" }

/* Where the gnuplot scripts are: --scripts DIR into field F of S. */
#define GS_CLI_OPT_SCRIPTS(S, F)                                                                \
	{ GS_OPT_STRING_AT(S, F), .name = "scripts", .arg = "DIR",                              \
	  .help = "the gnuplot scripts (default $GPUSIM_SCRIPTS, else those installed with "    \
		  "gpusim, else the source tree's scripts/)" }

#endif
