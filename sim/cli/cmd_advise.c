/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_advise.c - `gpusim advise`: which placement policy and which GPU
 * sharing mechanism to run, and how many GPUs, as a verdict with its
 * evidence (report/advise.h): the options, the verdict printed or as
 * JSON, and the report page.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/json_out.h"
#include "core/error.h"
#include "report/advise.h"
#include "report/advise_print.h"
#include "report/advise_report.h"
#include "report/plot.h"

#define MAX_CONDS 16

/* A ';'-separated list of conditions (--constraint, --target). */
struct conds {
	struct gs_cond v[MAX_CONDS];
	size_t n;
};

/* --baseline SHARING+POLICY. */
struct baseline {
	struct gs_share_cfg sharing;
	const struct gs_policy *policy;
};

/* What the command line says; the table below fills it. */
struct advise_args {
	struct gs_cli_sim sim;
	struct gs_opt_list pods;
	struct gs_cli_sharings sharings;
	struct gs_cli_numbers loads;
	bool trace_times, no_reference;
	struct gs_cli_seeds seeds;
	int64_t max_seeds;
	struct gs_objective objective;
	struct conds constraints, targets;
	struct baseline baseline;
	double alpha, min_effect;
	const char *add_nodes;
	int64_t max_nodes, capacity_top;
	const char *db_path, *report_dir, *scripts_dir;
	struct gs_cli_exec exec;
	bool json;
};

static int parse_objective(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			   const char *value, void *field)
{
	char err[512];

	if (gs_objective_parse(value, field, err, sizeof(err))) {
		gs_opt_err(cmd, o, "%s", err);
		return GS_EINVAL;
	}
	return 0;
}

/* "p99-slowdown <= 10; p99 wait <= 60 s", or "none". */
static int parse_conds(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field)
{
	struct conds out = { .n = 0 };
	const char *s = value;
	char item[256], err[512];

	if (!strcmp(value, "none")) {
		*(struct conds *)field = out;
		return 0;
	}
	do {
		size_t len = strcspn(s, ";");

		if (len >= sizeof(item)) {
			gs_opt_err(cmd, o, "'%.40s...' is too long", s);
			return GS_EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (strspn(item, " \t") == len) {
			gs_opt_err(cmd, o, "'%s' has an empty condition", value);
			return GS_EINVAL;
		}
		if (out.n == MAX_CONDS) {
			gs_opt_err(cmd, o, "more than %d conditions", MAX_CONDS);
			return GS_EINVAL;
		}
		if (gs_cond_parse(item, &out.v[out.n], err, sizeof(err))) {
			gs_opt_err(cmd, o, "%s", err);
			return GS_EINVAL;
		}
		out.n++;
		s += len;
	} while (*s++ == ';');
	*(struct conds *)field = out;
	return 0;
}

/* "exclusive+binpack": the mechanism, then after the last '+' the policy. */
static int parse_baseline(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field)
{
	struct baseline *b = field;
	const char *plus = strrchr(value, '+');
	char spec[GS_SHARE_SPEC_MAX], err[256];

	if (!plus || plus == value || (size_t)(plus - value) >= sizeof(spec)) {
		gs_opt_err(cmd, o, "'%s' is not SHARING+POLICY, e.g. exclusive+binpack", value);
		return GS_EINVAL;
	}
	memcpy(spec, value, (size_t)(plus - value));
	spec[plus - value] = '\0';
	if (gs_share_parse(spec, &b->sharing, err, sizeof(err))) {
		gs_opt_err(cmd, o, "%s", err);
		return GS_EINVAL;
	}
	b->policy = gs_policy_find(plus + 1);
	if (!b->policy) {
		gs_opt_err(cmd, o, "'%s' is not a policy; 'gpusim policies' lists them", plus + 1);
		return GS_EINVAL;
	}
	return 0;
}

/* Word i of --objective's values: the metrics but the pod counts, then "score:". */
static const char *objective_word(size_t i)
{
	size_t n;
	const char *w;

	for (n = 0; (w = gs_metric_word(n)) != NULL; n++) {
		if (!strcmp(w, "failed") || !strcmp(w, "pending"))
			continue;
		if (i-- == 0)
			return w;
	}
	return i == 0 ? "score:" : NULL;
}

#define S struct advise_args
static const struct gs_opt advise_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	GS_CLI_OPT_NODES(S),
	{ GS_OPT_LIST_AT(S, pods, 256), .name = "pods", .short_name = 'p', .arg = "FILE...",
	  .flags = GS_OPT_REQUIRED | GS_OPT_MULTI,
	  .help = "pod traces: comma-separated, or one argument each up to the next option; "
		  "each gets its own verdict" },

	{ GS_OPT_GROUP_HEADING("Candidates:") },
	GS_CLI_OPT_POLICY(S, "all"),
	GS_CLI_OPT_TIES(S, "shuffled", ": a verdict should not follow the order of the nodes"),
	{ GS_OPT_CUSTOM_AT(S, sharings, struct gs_cli_sharings, gs_cli_parse_sharings, NULL),
	  .name = "sharing", .arg = "LIST",
	  .help = "the sharing mechanisms to choose from, e.g. exclusive,vgpu,mig:layout=... "
		  "(default: every one the cluster's GPUs can do: exclusive, timeslice, mps, vgpu, "
		  "and mig when a GPU model has MIG). A mechanism no GPU of the cluster can do is "
		  "an error" },
	{ GS_OPT_CUSTOM_AT(S, baseline, struct baseline, parse_baseline, NULL), .name = "baseline",
	  .arg = "SHARING+POLICY", .def = "exclusive+binpack",
	  .help = "what the gains are measured against (always run, even when not a candidate)" },
	{ GS_OPT_FLAG_AT(S, no_reference), .name = "no-reference",
	  .help = "do not run the reference line, ideal under the baseline's policy (sharing "
		  "at no cost: the FGD paper's assumption, a bound that is never recommended)" },

	{ GS_OPT_GROUP_HEADING("Workload (time mode):") },
	{ GS_OPT_CUSTOM_AT(S, loads, struct gs_cli_numbers, gs_cli_parse_numbers,
			   gs_cli_numbers_release),
	  .name = "load", .arg = "LIST", .conflicts = "trace-times",
	  .help = "load levels in percent, one verdict each (default: 50,80,95, less the levels "
		  "a trace cannot offer, which are named on stderr). " GS_CLI_LOAD_HELP },
	{ GS_OPT_FLAG_AT(S, trace_times), .name = "trace-times",
	  .help = "replay the traces at their own arrival times instead of --load levels" },
	GS_CLI_OPTS_LOAD_SHAPE(S),
	GS_CLI_OPT_INTERFERENCE(S),
	GS_CLI_OPT_BUSY(S),
	GS_CLI_OPTS_QUEUE(S),
	{ GS_OPT_INT_AT(S, sim.opts.sample_every, 1, INT64_MAX), .name = "sample-every",
	  .arg = "N", .def = "1000",
	  .help = "sample the time series every N events: no figure of the verdict depends on "
		  "it (they come from the events), and at 1, as gpusim sweep samples, openb's "
		  "samples would be most of the database. It is part of a run's key, so a sweep's "
		  "runs are found only with the same value" },

	{ GS_OPT_GROUP_HEADING("The decision:") },
	{ GS_OPT_CUSTOM_AT(S, objective, struct gs_objective, parse_objective, NULL),
	  .name = "objective", .arg = "NAME", .def = "completion", .words = objective_word,
	  .help = "what the best candidate minimises (maximises, for useful and alloc): "
		  "completion (mean completion time), p99-completion, slowdown (mean bounded "
		  "slowdown), p99-slowdown, wait, p99-wait, max-wait, useful (useful GPU %), "
		  "alloc, gpus (the GPUs needed to meet --target), or score:M=W,M=W,... (the "
		  "weighted sum of each metric relative to the baseline's mean). A pod that fails "
		  "or never starts counts as never completing (infinite) for every objective" },
	{ GS_OPT_CUSTOM_AT(S, constraints, struct conds, parse_conds, NULL), .name = "constraint",
	  .arg = "CONDS", .def = "p99-slowdown <= 10",
	  .help = "conditions every candidate must meet, on the mean over seeds, separated by "
		  "';' (METRIC <= NUMBER [s|min|h|%], metrics as for --objective), or 'none'" },
	{ GS_OPT_CUSTOM_AT(S, seeds, struct gs_cli_seeds, gs_cli_parse_seeds, gs_cli_seeds_release),
	  .name = "seeds", .short_name = 's', .arg = "LIST", .def = "42-46",
	  .help = "the seeds every candidate runs, e.g. 42-46 or 1,5,7-9" },
	{ GS_OPT_INT_AT(S, max_seeds, 1, 10000), .name = "max-seeds", .arg = "N", .def = "20",
	  .help = "while the best ties with another candidate, run the next seeds for them "
		  "(as many as --seeds at a time), up to N seeds in all" },
	{ GS_OPT_DOUBLE_AT(S, alpha, 0, 0.5), .flags = GS_OPT_GT_MIN, .name = "alpha",
	  .arg = "P", .def = "0.05",
	  .help = "family-wise error rate: differences are tested by paired t-tests over the "
		  "seeds (Welch's where seeds differ), Holm-corrected over all comparisons" },

	{ GS_OPT_DOUBLE_AT(S, min_effect, 0, 100), .name = "min-effect", .arg = "PCT",
	  .def = "1",
	  .help = "a gain over the baseline below PCT percent is said to be immaterial, however "
		  "significant" },

	{ GS_OPT_GROUP_HEADING("Capacity:") },
	{ GS_OPT_CUSTOM_AT(S, targets, struct conds, parse_conds, NULL), .name = "target",
	  .arg = "CONDS",
	  .help = "find, for the best candidates and the baseline, the smallest cluster whose "
		  "runs meet these conditions at every seed, e.g. 'p99 wait <= 60 s' or 'no pod "
		  "waits longer than 10 min' (';' between several); a pod that fails or never "
		  "starts misses any target" },
	{ GS_OPT_STRING_AT(S, add_nodes), .name = "add-nodes", .arg = "FILE",
	  .requires = "target",
	  .help = "size the cluster by adding copies of this file's nodes (a cluster file) "
		  "instead of scaling the GPU node types of --nodes in proportion" },
	{ GS_OPT_INT_AT(S, max_nodes, 1, 1000000), .name = "max-nodes", .arg = "N",
	  .requires = "target",
	  .help = "largest size searched: GPU nodes, or copies added (default: 4 times the GPU "
		  "nodes of --nodes)" },
	{ GS_OPT_INT_AT(S, capacity_top, 1, 1000), .name = "capacity-top", .arg = "N",
	  .def = "3", .requires = "target",
	  .help = "size the best candidate and the ones it ties with, N in all, and the "
		  "baseline" },

	{ GS_OPT_GROUP_HEADING("Execution and output:") },
	GS_CLI_OPT_JOBS(S),
	GS_CLI_OPT_DB(S, db_path, "results/advise.db"),
	{ GS_OPT_FLAG_AT(S, sim.no_pods), .name = "no-pods",
	  .help = "store no per-pod rows (the report's completion-time CDFs need them)" },
	GS_CLI_OPT_CLAIM_TIMEOUT(S),
	{ GS_OPT_STRING_AT(S, report_dir), .name = "report", .arg = "DIR",
	  .help = "also write DIR/advise.md, the verdict with its tables and figures (a Pareto "
		  "front, completion-time CDFs per mechanism, the capacity curve)" },
	GS_CLI_OPT_SCRIPTS(S, scripts_dir),
	{ GS_OPT_FLAG_AT(S, json), .name = "json",
	  .help = "print the verdict as JSON (results/SCHEMA.md, \"The verdict as JSON\")" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec advise_cmd = {
	.name = "advise",
	.intro = "Says which placement policy and which GPU sharing mechanism to run on a\n"
		 "cluster, from runs: every candidate (policy x mechanism) replays the traces\n"
		 "at each --load over the seeds, through the sweep machinery (parallel,\n"
		 "resumable, stored in the results database with a decision record). The\n"
		 "verdict names, per trace and load, the best candidate under --objective\n"
		 "and --constraint, its gain over --baseline with a confidence interval, the\n"
		 "candidates it cannot be told from (\"tie\"), and why each other mechanism\n"
		 "lost: pods failed on GPU memory, pods that never started, waits, slowdown.\n"
		 "A pod that fails or never starts counts as never completing (infinite): a\n"
		 "candidate that leaves more pods unfinished than another at any seed cannot\n"
		 "win. With --target it also finds the smallest cluster meeting the target.\n",
	.outro = "A progress bar is drawn on stderr when it is a terminal; Ctrl-C stops as\n"
		 "gpusim sweep does, and the same command resumes.\n"
		 "Exit status: 0 success, 1 a run failed, 2 bad input or usage (before any run\n"
		 "is stored), 130 stopped by SIGINT, 143 stopped by SIGTERM.\n",
	.opts = advise_opts,
};

/* The spec of the run from the parsed line. */
static void fill_spec(struct advise_args *a, struct gs_advise_spec *s)
{
	static const double default_loads[] = { 50, 80, 95 };

	memset(s, 0, sizeof(*s));
	s->nodes_path = a->sim.nodes;
	s->pods_paths = a->pods.v;
	s->n_traces = a->pods.n;
	s->policies = a->sim.policies.v;
	s->n_policies = a->sim.policies.n;
	s->sharings = a->sharings.v;
	s->n_sharings = a->sharings.n;
	s->no_reference = a->no_reference;
	s->loads = a->trace_times ? NULL : a->loads.v;
	s->n_loads = a->trace_times ? 0 : a->loads.n;
	if (!a->trace_times && !a->loads.n) {
		s->loads = default_loads;
		s->n_loads = sizeof(default_loads) / sizeof(default_loads[0]);
		s->loads_default = true;
	}
	s->seeds = a->seeds.v;
	s->n_seeds = a->seeds.n;
	s->max_seeds = (size_t)a->max_seeds < a->seeds.n ? a->seeds.n : (size_t)a->max_seeds;
	s->opts = a->sim.opts;
	s->objective = a->objective;
	s->conds = a->constraints.v;
	s->n_conds = a->constraints.n;
	s->base_policy = a->baseline.policy;
	s->base_sharing = a->baseline.sharing;
	s->alpha = a->alpha;
	s->min_effect_pct = a->min_effect;
	s->conf = 0.95;
	s->targets = a->targets.v;
	s->n_targets = a->targets.n;
	s->add_nodes_path = a->add_nodes;
	s->capacity_top = (size_t)a->capacity_top;
	s->max_nodes = a->max_nodes;
	s->db_path = a->db_path;
	s->jobs = (int)a->exec.jobs;
	s->no_pods = a->sim.no_pods;
	s->claim_timeout_s = a->exec.claim_timeout_s;
	s->progress = stderr;
	s->on_signals = true;
	s->warn = stderr;
}

int gs_cmd_advise(int argc, char **argv)
{
	struct gs_advise_spec spec;
	struct gs_advise res;
	struct gs_interference ifr;
	struct advise_args a;
	char err[1024], note[1024];
	int status, rc;

	memset(&a, 0, sizeof(a));
	gs_cli_sim_init(&a.sim);
	gs_cli_exec_init(&a.exec);
	a.sim.mode = GS_MODE_TIME;
	if (gs_opt_parse(&advise_cmd, argc, argv, &a, &status))
		return status;
	gs_interference_init(&ifr);
	status = gs_cli_sim_finish("advise", &a.sim);
	if (status != GS_EXIT_OK)
		goto out;
	if ((size_t)a.max_seeds < a.seeds.n) {
		fprintf(stderr, "gpusim advise: --max-seeds: %lld is fewer than the %zu --seeds\n",
			(long long)a.max_seeds, a.seeds.n);
		status = GS_EXIT_USAGE;
		goto out;
	}
	if (a.sim.opts.load_repeat > 1 && a.trace_times) {
		fprintf(stderr, "gpusim advise: --repeat: repeats the trace under a --load, not "
				"with --trace-times\n");
		status = GS_EXIT_USAGE;
		goto out;
	}
	status = gs_cli_sim_interference("advise", &a.sim, &ifr);
	if (status != GS_EXIT_OK)
		goto out;
	fill_spec(&a, &spec);
	rc = gs_advise_run(&spec, &res, err, sizeof(err));
	if (rc) {
		status = gs_cli_batch_status("advise", rc, res.signal, err);
		goto out;
	}
	status = GS_EXIT_OK;
	if (a.report_dir) {
		const char *scripts = a.scripts_dir ? a.scripts_dir : gs_plot_scripts_dir();

		rc = gs_advise_report(&res, &spec, a.report_dir, scripts, note, sizeof(note), err,
				      sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim advise: --report: %s\n", err);
			status = GS_EXIT_FAIL;
		} else if (note[0]) {
			fprintf(stderr, "gpusim advise: --report: %s\n", note);
		}
	}
	if (a.json) {
		cJSON *doc = gs_advise_json(&res, &spec);

		if (!doc) {
			fprintf(stderr, "gpusim advise: out of memory\n");
			status = GS_EXIT_FAIL;
		} else if (gs_json_print("advise", doc) != 0) {
			status = GS_EXIT_FAIL;
		}
	} else {
		gs_advise_print(stdout, &res, &spec);
		if (a.report_dir && status == GS_EXIT_OK)
			printf("\nreport: %s/advise.md\n", a.report_dir);
	}
	gs_advise_release(&res);
out:
	gs_interference_release(&ifr);
	gs_opt_release(&advise_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_advise_specs[] = { &advise_cmd, NULL };
