/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sweep.c - `gpusim sweep`: run traces x policies x loads (or time
 * scales) x seeds in parallel, store every run, skip the runs the database
 * already has, and print the mean and standard deviation over seeds of the
 * headline: unallocated GPU % in inflate mode, the waits and completion
 * times in time mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/json_out.h"
#include "core/error.h"
#include "report/sweep_table.h"
#include "run/sweep.h"

/* What the command line says; the table below fills it. */
struct sweep_args {
	struct gs_cli_sim sim;
	struct gs_cli_exec exec;
	const char *db_path;
	struct gs_opt_list pods;
	struct gs_cli_seeds seeds;
	struct gs_cli_numbers loads, scales;
	struct gs_cli_sharings sharings;
	bool quiet, json;
};

#define S struct sweep_args
static const struct gs_opt sweep_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	GS_CLI_OPT_NODES(S),
	GS_CLI_OPT_STATE(S),
	GS_CLI_OPT_PODS_LIST_OR_STATE(S),

	{ GS_OPT_GROUP_HEADING("Matrix:") },
	GS_CLI_OPT_POLICY(S, "paper"),
	GS_CLI_OPT_SEEDS(S),
	{ GS_OPT_ENUM_AT(S, sim.mode, gs_cli_modes), .name = "mode", .short_name = 'm',
	  .arg = "MODE",
	  .help = "'inflate' or 'time', as in gpusim replay (default: time with --sharing, "
		  "whose rate model needs time, else inflate)" },
	GS_CLI_OPT_INFLATE(S),
	GS_CLI_OPTS_SCORING(S),

	{ GS_OPT_GROUP_HEADING("Time mode (as in gpusim replay; the lists are axes of the matrix):") },
	{ GS_OPT_CUSTOM_AT(S, loads, struct gs_cli_numbers, gs_cli_parse_numbers,
			   gs_cli_numbers_release),
	  .name = "load", .arg = "LIST", .conflicts = "time-scale",
	  .help = "loads in percent, e.g. 50,80,95,110: one run per load. " GS_CLI_LOAD_HELP },
	GS_CLI_OPTS_LOAD_SHAPE(S),
	{ GS_OPT_CUSTOM_AT(S, scales, struct gs_cli_numbers, gs_cli_parse_numbers,
			   gs_cli_numbers_release),
	  .name = "time-scale", .arg = "LIST",
	  .help = "time scales, e.g. 1,100,1000: one run per scale; each divides the arrival "
		  "times and keeps the durations" },
	{ GS_OPT_CUSTOM_AT(S, sharings, struct gs_cli_sharings, gs_cli_parse_sharings, NULL),
	  .name = "sharing", .arg = "LIST",
	  .help = "sharing modes, e.g. exclusive,timeslice,mps,vgpu,mig: one run per mode "
		  "(outside the loads). Each is " GS_CLI_SHARING_HELP },
	GS_CLI_OPT_INTERFERENCE(S),
	GS_CLI_OPT_BUSY(S),
	GS_CLI_OPTS_QUEUE(S),
	GS_CLI_OPT_IDLE_JOB(S),
	GS_CLI_OPTS_DEFRAG(S),
	GS_CLI_OPTS_SAMPLING(S),

	{ GS_OPT_GROUP_HEADING("Execution and output:") },
	GS_CLI_OPT_JOBS(S),
	GS_CLI_OPT_DB(S, db_path, "results/fgd.db"),
	GS_CLI_OPTS_STORE(S),
	GS_CLI_OPT_SHARD(S),
	GS_CLI_OPT_CLAIM_TIMEOUT(S),
	GS_CLI_OPT_STRICT(S),
	{ GS_OPT_FLAG_AT(S, json), .name = "json", .conflicts = "quiet",
	  .help = "print the matrix's runs as a JSON array, one object per run with the "
		  "run_summary fields (results/SCHEMA.md) and \"skipped\" (already in the "
		  "database), instead of the table" },
	GS_CLI_OPT_QUIET(S,
			 "print no table, only the id of each run this sweep added, one per line"),
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
		 "are skipped, so an interrupted sweep resumes; --no-pods and\n"
		 "--arrival-samples change no result and are not part of that key: a run\n"
		 "stored either way is done. Runs are stored, and numbered, in the order of\n"
		 "the matrix (traces, policies, sharing modes, loads or scales, seeds)\n"
		 "whatever --jobs is, so the same sweep on a fresh database\n"
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

/* The files comma-joined, or NULL when out of memory. */
static char *join_paths(const char *const *v, size_t n)
{
	size_t len = 1, i, at = 0;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		if (i)
			s[at++] = ',';
		memcpy(s + at, v[i], l);
		at += l;
	}
	s[at] = '\0';
	return s;
}

int gs_cmd_sweep(int argc, char **argv)
{
	struct gs_sweep_spec spec;
	struct gs_sweep result;
	struct gs_interference ifr;
	struct sweep_args a;
	char err[2048], *joined = NULL;
	int status, rc;

	memset(&a, 0, sizeof(a));
	gs_cli_sim_init(&a.sim);
	gs_cli_exec_init(&a.exec);
	if (gs_opt_parse(&sweep_cmd, argc, argv, &a, &status))
		return status;
	status = gs_cli_sim_inputs("sweep", &a.sim, a.pods.n > 0);
	if (status != GS_EXIT_OK) {
		gs_opt_release(&sweep_cmd, &a);
		return status;
	}

	memset(&spec, 0, sizeof(spec));
	gs_interference_init(&ifr);
	if (a.sim.mode < 0)
		a.sim.mode = a.sharings.n ? GS_MODE_TIME : GS_MODE_INFLATE;
	status = gs_cli_sim_finish("sweep", &a.sim);
	if (status == GS_EXIT_OK)
		status = gs_cli_sim_interference("sweep", &a.sim, &ifr);
	if (status != GS_EXIT_OK)
		goto out;
	spec.opts = a.sim.opts;
	spec.sharings = a.sharings.v;
	spec.n_sharings = a.sharings.n;
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
	spec.nodes_path = a.sim.nodes;
	spec.pods_paths = a.pods.v;
	spec.n_traces = a.pods.n;
	if (a.sim.state.n) {
		/* The snapshot's files name the cluster, and the trace without --pods (run/sweep.h). */
		joined = join_paths(a.sim.state.v, a.sim.state.n);
		if (!joined) {
			fprintf(stderr, "gpusim sweep: out of memory\n");
			status = GS_EXIT_FAIL;
			goto out;
		}
		spec.nodes_path = joined;
		spec.state_paths = a.sim.state.v;
		spec.n_state = a.sim.state.n;
		if (!a.pods.n) {
			spec.pods_paths = (const char *const *)&joined;
			spec.n_traces = 1;
			spec.state_only = true;
		}
	}
	spec.policies = a.sim.policies.v;
	spec.n_policies = a.sim.policies.n;
	spec.seeds = a.seeds.v;
	spec.n_seeds = a.seeds.n;
	spec.jobs = (int)a.exec.jobs;
	spec.db_path = a.db_path;
	spec.no_pods = a.sim.no_pods;
	spec.strict = a.sim.strict;
	spec.arrival_samples = a.sim.arrival_samples;
	spec.shard_k = a.exec.shard.k;
	spec.shard_n = a.exec.shard.n;
	spec.claim_timeout_s = a.exec.claim_timeout_s;
	spec.progress = stderr;
	spec.on_signals = true;
	spec.warn = stderr;

	rc = gs_sweep_run(&spec, &result, err, sizeof(err));
	if (rc) {
		/* After a signal, 128 + it; all the sweep finished is stored. */
		status = gs_cli_batch_status("sweep", rc, result.signal, err);
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
		gs_sweep_table_print(stdout, &spec, &result);
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
	free(joined);
	gs_interference_release(&ifr);
	gs_opt_release(&sweep_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_sweep_specs[] = { &sweep_cmd, NULL };
