/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sweep.c - `gpusim sweep`: run traces x policies x loads (or time
 * scales) x seeds in parallel, store every run, skip the runs the database
 * already has, and print the mean and standard deviation over seeds of the
 * headline: unallocated GPU % in inflate mode, the waits and completion
 * times in time mode.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/json_out.h"
#include "core/error.h"
#include "cli/sweep.h"
#include "engine/inflate.h"

/* What the command line says; the table below fills it. */
struct sweep_args {
	const char *nodes, *db_path;
	struct gs_opt_list pods;
	struct gs_cli_policies policies;
	struct gs_cli_seeds seeds;
	struct gs_cli_numbers loads, scales;
	struct gs_cli_sharings sharings;
	const char *interference;
	int arrivals; /* enum gs_arrivals */
	int mode;    /* enum gs_mode */
	int compat;  /* -1 mode default, 0 exact, 1 compat */
	int64_t jobs;
	bool no_pods, arrival_samples, quiet, json, strict;
	struct shard { size_t k, n; } shard;
	int64_t claim_timeout_s;
	struct gs_replay_opts opts;
};

/* --shard K/N: 1 <= K <= N, both whole numbers. */
static int parse_shard(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field)
{
	struct shard *sh = field;
	unsigned long long k, n;
	int used = 0;

	if (sscanf(value, "%llu/%llu%n", &k, &n, &used) != 2 || value[used] != '\0' ||
	    value[0] < '0' || value[0] > '9' || k < 1 || n < 1 || k > n || n > (1ull << 31)) {
		gs_opt_err(cmd, o, "'%s' is not K/N with 1 <= K <= N, e.g. 3/8", value);
		return GS_EINVAL;
	}
	sh->k = (size_t)k;
	sh->n = (size_t)n;
	return 0;
}

#define S struct sweep_args
static const struct gs_opt sweep_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	{ GS_OPT_STRING_AT(S, nodes), .name = "nodes", .short_name = 'n', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "cluster: openb node list, gpusim CSV or JSON" },
	{ GS_OPT_LIST_AT(S, pods, 256), .name = "pods", .short_name = 'p', .arg = "FILE...",
	  .flags = GS_OPT_REQUIRED | GS_OPT_MULTI,
	  .help = "pod traces: comma-separated, or one argument each up to the next option, "
		  "as the shell's glob gives them (--pods traces/*.csv)" },

	{ GS_OPT_GROUP_HEADING("Matrix:") },
	{ GS_OPT_CUSTOM_AT(S, policies, struct gs_cli_policies, gs_cli_parse_policies, NULL),
	  .name = "policy", .short_name = 'P', .arg = "LIST", .def = "paper",
	  .help = "comma-separated names, 'all' (every policy) or 'paper' "
		  "(random,dotprod,gpuclustering,gpupacking,bestfit,fgd)" },
	{ GS_OPT_CUSTOM_AT(S, seeds, struct gs_cli_seeds, gs_cli_parse_seeds, gs_cli_seeds_release),
	  .name = "seeds", .short_name = 's', .arg = "LIST", .def = "42-51",
	  .help = "seeds and ranges, e.g. 42-51 or 1,5,7-9" },
	{ GS_OPT_ENUM_AT(S, mode, gs_cli_modes), .name = "mode", .short_name = 'm', .arg = "MODE",
	  .help = "'inflate' or 'time', as in gpusim replay (default: time with --sharing, "
		  "whose rate model needs time, else inflate)" },
	{ GS_OPT_DOUBLE_AT(S, opts.inflate, 0, GS_INFLATE_MAX), .flags = GS_OPT_GT_MIN,
	  .name = "inflate", .arg = "X", .def = "1.3",
	  .help = "inflate mode target, total GPU request / capacity, at most 100" },
	{ GS_OPT_SET_AT(S, compat, 1), .name = "compat", .conflicts = "exact",
	  .help = "FGD reference scoring: integer scores, ties broken by a node order shuffled "
		  "per seed and trace (default in inflate mode)" },
	{ GS_OPT_SET_AT(S, compat, 0), .name = "exact",
	  .help = "float scores, ties to the lowest node index" },

	{ GS_OPT_GROUP_HEADING("Time mode (as in gpusim replay; the lists are axes of the matrix):") },
	{ GS_OPT_CUSTOM_AT(S, loads, struct gs_cli_numbers, gs_cli_parse_numbers,
			   gs_cli_numbers_release),
	  .name = "load", .arg = "LIST", .conflicts = "time-scale",
	  .help = "loads in percent, e.g. 50,80,95,110: one run per load. " GS_CLI_LOAD_HELP },
	{ GS_OPT_ENUM_AT(S, arrivals, gs_cli_arrivals), .name = "arrivals", .arg = "SHAPE",
	  .def = "poisson", .help = GS_CLI_ARRIVALS_HELP },
	{ GS_OPT_INT_AT(S, opts.load_repeat, 1, 1000000), .name = "repeat", .arg = "K",
	  .def = "1", .help = GS_CLI_REPEAT_HELP },
	{ GS_OPT_CUSTOM_AT(S, scales, struct gs_cli_numbers, gs_cli_parse_numbers,
			   gs_cli_numbers_release),
	  .name = "time-scale", .arg = "LIST",
	  .help = "time scales, e.g. 1,100,1000: one run per scale; each divides the arrival "
		  "times and keeps the durations" },
	{ GS_OPT_CUSTOM_AT(S, sharings, struct gs_cli_sharings, gs_cli_parse_sharings, NULL),
	  .name = "sharing", .arg = "LIST",
	  .help = "sharing modes, e.g. exclusive,timeslice,mps,vgpu,mig: one run per mode "
		  "(outside the loads). Each is " GS_CLI_SHARING_HELP },
	{ GS_OPT_STRING_AT(S, interference), .name = "interference", .arg = "FILE",
	  .help = GS_CLI_INTERFERENCE_HELP },
	{ GS_OPT_INT_AT(S, opts.max_wait_s, 0, INT64_MAX), .name = "max-wait", .arg = "S",
	  .help = "a pod pending longer than S seconds fails (default: waits)" },
	{ GS_OPT_CUSTOM_AT(S, opts.idle_job, struct gs_idle_job, gs_cli_parse_idle_job, NULL),
	  .name = "idle-job", .arg = "G,C[,M]", .def = "1,8", .help = GS_CLI_IDLE_JOB_HELP },
	{ GS_OPT_FLAG_AT(S, opts.frag), .name = "frag",
	  .help = "track fragmentation in time mode (always on in inflate)" },
	{ GS_OPT_INT_AT(S, opts.sample_every, 1, INT64_MAX), .name = "sample-every", .arg = "N",
	  .def = "1", .help = "sample the time series every N events" },
	{ GS_OPT_INT_AT(S, opts.sample_interval_s, 0, INT64_MAX), .name = "sample-interval",
	  .arg = "S", .help = "also sample every S simulated seconds (time mode)" },
	{ GS_OPT_FLAG_AT(S, opts.check), .name = "check",
	  .help = "verify the allocator's invariants after every change" },

	{ GS_OPT_GROUP_HEADING("Execution and output:") },
	{ GS_OPT_INT_AT(S, jobs, 1, 1024), .name = "jobs", .short_name = 'j', .arg = "N",
	  .help = "worker threads (default: the number of CPUs); the run ids do not depend on "
		  "it, a finished run waits for the runs before it to be stored" },
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .def = "results/fgd.db", .help = "results database" },
	{ GS_OPT_FLAG_AT(S, no_pods), .name = "no-pods",
	  .help = "store no per-pod rows (most of a run's size): counts, mean wait, samples "
		  "and summary are kept, but 'gpusim inspect --run' cannot show the runs; not "
		  "part of the resume key, a run stored either way is done" },
	{ GS_OPT_FLAG_AT(S, arrival_samples), .name = "arrival-samples",
	  .help = "inflate mode: store one sample per arrival; without it a run stores its "
		  "statistics per arrived percent and only the samples its summary reads "
		  "(the figures are the same); not part of the resume key" },
	{ GS_OPT_CUSTOM_AT(S, shard, struct shard, parse_shard, NULL), .name = "shard",
	  .arg = "K/N",
	  .help = "run the K-th of N fixed shares of the matrix (the cells whose index is K-1 "
		  "modulo N), for sweeps spread over hosts; gpusim merge joins the databases" },
	{ GS_OPT_INT_AT(S, claim_timeout_s, 0, INT64_MAX), .name = "claim-timeout", .arg = "S",
	  .def = "86400",
	  .help = "a run another host claimed S seconds ago or more counts as abandoned and is "
		  "run here (0: never); claims of this host's processes that are gone always do" },
	{ GS_OPT_FLAG_AT(S, strict), .name = "strict",
	  .help = "a trace with pods that fit no node even on an empty cluster is an error" },
	{ GS_OPT_FLAG_AT(S, json), .name = "json", .conflicts = "quiet",
	  .help = "print the matrix's runs as a JSON array, one object per run with the "
		  "run_summary fields (results/SCHEMA.md) and \"skipped\" (already in the "
		  "database), instead of the table" },
	{ GS_OPT_FLAG_AT(S, quiet), .name = "quiet", .short_name = 'q',
	  .help = "print no table, only the id of each run this sweep added, one per line" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec sweep_cmd = {
	.name = "sweep",
	.intro = "Runs every combination of trace, policy, sharing mode, load (or time scale)\n"
		 "and seed, in parallel, stores each run in a SQLite database (schema:\n"
		 "results/SCHEMA.md) and prints the mean and standard deviation over seeds of\n"
		 "the headline figures: unallocated GPU % at arrived workload 100% in inflate\n"
		 "mode; in time mode the failed and pending pods, completion times and waits,\n"
		 "to be compared together (docs/time-mode.md). Runs already complete in the\n"
		 "database with the same inputs and options (load and time scale included)\n"
		 "are skipped, so an interrupted sweep resumes. Runs are stored, and\n"
		 "numbered, in the order of the matrix (traces, policies, sharing modes, loads\n"
		 "or scales, seeds) whatever --jobs is, so the same sweep on a fresh database\n"
		 "gives each run the same id; the ids of sweeps writing to one database at\n"
		 "once interleave.\n",
	.outro = "A progress bar is drawn on stderr when it is a terminal.\n"
		 "Ctrl-C (SIGINT) or SIGTERM stops the sweep cleanly: no new run starts, the\n"
		 "runs in progress are cut short and not stored, every finished run is stored,\n"
		 "and the same command run again resumes (a run finished after a cut one keeps\n"
		 "its id, so after an interruption the ids need not follow the matrix). A\n"
		 "second signal kills at once; each run is one transaction, so the database\n"
		 "stays consistent either way.\n"
		 "Exit status: 0 success, 1 a run failed, 2 bad input or usage, 130 stopped by\n"
		 "SIGINT, 143 stopped by SIGTERM.\n",
	.opts = sweep_opts,
};

/* The runs of the matrix as a JSON array, read back from the database. */
static int print_json(const struct gs_sweep_spec *spec, const struct gs_sweep *r)
{
	size_t i, n = r->n_traces * r->n_policies * r->n_settings * r->n_seeds;
	cJSON *arr = cJSON_CreateArray();
	struct gs_db *db = NULL;
	char err[1024];
	int rc;

	rc = gs_db_open_existing(spec->db_path, &db, err, sizeof(err));
	for (i = 0; !rc && arr && i < n; i++) {
		struct gs_run_row row;
		cJSON *o;

		/* Another shard's, or another sweep's: no run here to show. */
		if (r->cells[i].run_id < 0)
			continue;
		rc = gs_db_get_run(db, r->cells[i].run_id, &row, err, sizeof(err));
		if (rc)
			break;
		o = gs_json_run_row(&row);
		gs_run_row_release(&row);
		if (!o) {
			rc = GS_ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
			break;
		}
		cJSON_AddBoolToObject(o, "skipped", r->cells[i].skipped);
		cJSON_AddItemToArray(arr, o);
	}
	gs_db_close(db);
	if (rc) {
		fprintf(stderr, "gpusim sweep: %s\n", err);
		cJSON_Delete(arr);
		return GS_EXIT_FAIL;
	}
	return gs_json_print("sweep", arr);
}

int gs_cmd_sweep(int argc, char **argv)
{
	struct gs_sweep_spec spec;
	struct gs_sweep result;
	struct gs_interference ifr;
	struct sweep_args a;
	char err[1024];
	int status, rc;
	long ncpu;

	memset(&a, 0, sizeof(a));
	gs_replay_opts_init(&a.opts);
	a.compat = -1;
	a.mode = -1;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	a.jobs = ncpu > 0 ? ncpu : 1;
	if (gs_opt_parse(&sweep_cmd, argc, argv, &a, &status))
		return status;

	memset(&spec, 0, sizeof(spec));
	gs_interference_init(&ifr);
	if (a.mode < 0)
		a.mode = a.sharings.n ? GS_MODE_TIME : GS_MODE_INFLATE;
	spec.opts = a.opts;
	spec.opts.mode = (enum gs_mode)a.mode;
	spec.sharings = a.sharings.v;
	spec.n_sharings = a.sharings.n;
	if (a.interference) {
		rc = gs_interference_load(&ifr, a.interference, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim sweep: --interference: %s\n", err);
			status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
			goto out;
		}
		spec.opts.interference = &ifr;
	}
	spec.opts.arrivals = (enum gs_arrivals)a.arrivals;
	spec.loads = a.loads.v;
	spec.n_loads = a.loads.n;
	spec.scales = a.scales.v;
	spec.n_scales = a.scales.n;
	if ((a.loads.n || a.scales.n) && spec.opts.mode != GS_MODE_TIME) {
		fprintf(stderr, "gpusim sweep: --%s: applies to time mode only; add --mode time\n",
			a.loads.n ? "load" : "time-scale");
		status = GS_EXIT_USAGE;
		goto out;
	}
	if (spec.opts.load_repeat > 1 && !a.loads.n) {
		fprintf(stderr, "gpusim sweep: --repeat: repeats the trace under a --load; "
				"give one\n");
		status = GS_EXIT_USAGE;
		goto out;
	}
	if (a.compat < 0)
		a.compat = spec.opts.mode == GS_MODE_INFLATE;
	if (a.compat)
		spec.opts.policy_flags |= GS_POLICY_COMPAT;
	spec.nodes_path = a.nodes;
	spec.pods_paths = a.pods.v;
	spec.n_traces = a.pods.n;
	spec.policies = a.policies.v;
	spec.n_policies = a.policies.n;
	spec.seeds = a.seeds.v;
	spec.n_seeds = a.seeds.n;
	spec.jobs = (int)a.jobs;
	spec.db_path = a.db_path;
	spec.no_pods = a.no_pods;
	spec.strict = a.strict;
	spec.arrival_samples = a.arrival_samples;
	spec.shard_k = a.shard.k;
	spec.shard_n = a.shard.n;
	spec.claim_timeout_s = a.claim_timeout_s;
	spec.progress = stderr;
	spec.on_signals = true;

	rc = gs_sweep_run(&spec, &result, err, sizeof(err));
	if (rc == GS_EINTR) {
		/* Stopped by a signal, all it finished stored: 128 + the signal, as a shell says. */
		fprintf(stderr, "gpusim sweep: %s\n", err);
		status = 128 + result.signal;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "gpusim sweep: %s\n", err);
		/* Unreadable inputs are the user's to fix; a run that breaks is ours. */
		status = rc == GS_ENOENT || rc == GS_EIO || rc == GS_EPARSE || rc == GS_ESCHEMA ||
				 rc == GS_EINVAL || rc == GS_ERANGE ?
			 GS_EXIT_USAGE : GS_EXIT_FAIL;
		goto out;
	}
	if (a.json) {
		status = print_json(&spec, &result);
		gs_sweep_release(&result);
		goto out;
	}
	if (a.quiet) {
		size_t i, n = result.n_traces * result.n_policies * result.n_settings *
			      result.n_seeds;

		for (i = 0; i < n; i++)
			if (!result.cells[i].skipped && result.cells[i].run_id >= 0)
				printf("%lld\n", (long long)result.cells[i].run_id);
	} else {
		gs_sweep_print_summary(stdout, &spec, &result);
		printf("\n%zu runs: %zu ran, %zu already in %s", result.n_traces *
		       result.n_policies * result.n_settings * result.n_seeds, result.n_ran,
		       result.n_skipped, spec.db_path);
		if (spec.shard_n)
			printf(", %zu left to the other shards of %zu", result.n_other_shards,
			       spec.shard_n);
		if (result.n_elsewhere)
			printf(", %zu being run by another sweep", result.n_elsewhere);
		printf("; %.1f s with %d jobs\n", result.wall_s, spec.jobs);
	}
	gs_sweep_release(&result);
	status = GS_EXIT_OK;
out:
	gs_interference_release(&ifr);
	gs_opt_release(&sweep_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_sweep_specs[] = { &sweep_cmd, NULL };
