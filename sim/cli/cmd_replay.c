/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_replay.c - `gpusim replay`: load a cluster and a trace, run each
 * requested policy, store every run in SQLite and print a summary table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/json_out.h"
#include "core/clock.h"
#include "core/error.h"
#include "run/audit.h"
#include "run/progress.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "store/results.h"
#include "io/k8s/snapshot.h"
#include "io/trace/load.h"
#include "run/inputs.h"
#include "io/trace/trace.h"

/* What the command line says; the table below fills it. */
struct replay_args {
	struct gs_cli_sim sim;
	const char *pods, *db_path;
	bool no_db, quiet, json;
};

#define S struct replay_args
static const struct gs_opt replay_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	GS_CLI_OPT_NODES(S),
	{ GS_OPT_STRING_AT(S, pods), .name = "pods", .short_name = 'p', .arg = "FILE",
	  .help = "pods: openb pod list, gpusim CSV or JSON; with --state, replayed after the "
		  "snapshot's pending pods" },
	GS_CLI_OPT_STATE(S),

	{ GS_OPT_GROUP_HEADING("Policy:") },
	GS_CLI_OPT_POLICY(S, "binpack"),
	{ GS_OPT_UINT_AT(S, sim.opts.seed, INT64_MAX), .name = "seed", .short_name = 's',
	  .arg = "N", .def = "42", .help = "seed for shuffles, clones and random choices" },
	GS_CLI_OPTS_SCORING(S),

	{ GS_OPT_GROUP_HEADING("Mode:") },
	{ GS_OPT_ENUM_AT(S, sim.mode, gs_cli_modes), .name = "mode", .short_name = 'm',
	  .arg = "MODE", .def = "time",
	  .help = "'time': pods arrive at their creation time, wait FIFO when nothing fits, "
		  "leave at their deletion time; 'inflate': the FGD paper's experiment, pods "
		  "shuffled and cloned to --inflate x GPU capacity, arrive one by one, never "
		  "leave, fail when nothing fits" },
	GS_CLI_OPT_INFLATE(S),
	{ GS_OPT_DOUBLE_AT(S, sim.opts.time_scale, 0, INFINITY), .flags = GS_OPT_GT_MIN,
	  .name = "time-scale", .arg = "X", .def = "1",
	  .help = "divide arrival times by X, keep durations: X > 1 raises the offered load" },
	{ GS_OPT_DOUBLE_AT(S, sim.opts.load_pct, 0, INFINITY), .flags = GS_OPT_GT_MIN,
	  .name = "load", .arg = "PCT", .conflicts = "time-scale",
	  .help = GS_CLI_LOAD_HELP },
	GS_CLI_OPTS_LOAD_SHAPE(S),
	GS_CLI_OPTS_QUEUE(S),
	GS_CLI_OPT_IDLE_JOB(S),
	GS_CLI_OPTS_DEFRAG(S),

	{ GS_OPT_GROUP_HEADING("Sharing:") },
	{ GS_OPT_CUSTOM_AT(S, sim.opts.sharing, struct gs_share_cfg, gs_cli_parse_sharing, NULL),
	  .name = "sharing", .arg = "SPEC", .def = "ideal", .help = GS_CLI_SHARING_HELP },
	GS_CLI_OPT_INTERFERENCE(S),
	GS_CLI_OPT_BUSY(S),

	{ GS_OPT_GROUP_HEADING("Output:") },
	GS_CLI_OPT_DB(S, db_path, "results/gpusim.db"),
	{ GS_OPT_FLAG_AT(S, no_db), .name = "no-db", .conflicts = "db",
	  .help = "do not store the runs" },
	GS_CLI_OPTS_STORE(S),
	GS_CLI_OPTS_SAMPLING(S),
	GS_CLI_OPT_STRICT(S),
	{ GS_OPT_FLAG_AT(S, json), .name = "json", .conflicts = "quiet",
	  .help = "print the runs as a JSON array, one object per run with the run_summary "
		  "fields (results/SCHEMA.md; run_id null with --no-db), instead of the table" },
	GS_CLI_OPT_QUIET(S, "print no table, only the id of each run stored, one per line"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec replay_cmd = {
	.name = "replay",
	.intro = "Replays a pod trace on a cluster with one or more placement policies and\n"
		 "stores each run in a SQLite database (schema: results/SCHEMA.md).\n",
	.outro = "Exit status: 0 success, 1 a run failed, 2 bad input or usage.\n",
	.opts = replay_opts,
};

/* Returns 0, or -1 with *status_out the exit status (help, version or a usage error). */
static int parse_args(int argc, char **argv, struct replay_args *a, int *status_out)
{
	struct gs_replay_opts *o = &a->sim.opts;

	memset(a, 0, sizeof(*a));
	gs_cli_sim_init(&a->sim);
	if (gs_opt_parse(&replay_cmd, argc, argv, a, status_out))
		return -1;
	if ((*status_out = gs_cli_sim_inputs("replay", &a->sim, a->pods != NULL)) != GS_EXIT_OK) {
		gs_opt_release(&replay_cmd, a);
		return -1;
	}
	if ((*status_out = gs_cli_sim_finish("replay", &a->sim)) != GS_EXIT_OK) {
		gs_opt_release(&replay_cmd, a);
		return -1;
	}
	if ((o->load_pct > 0 && o->mode != GS_MODE_TIME) ||
	    (o->load_repeat > 1 && !(o->load_pct > 0))) {
		fprintf(stderr, "gpusim replay: %s\n",
			o->load_pct > 0 ? "--load: a load applies to time mode only"
					: "--repeat: repeats the trace under a --load; give one");
		gs_opt_release(&replay_cmd, a);
		*status_out = GS_EXIT_USAGE;
		return -1;
	}
	return 0;
}

/*
 * Reports the trace audit on stderr. Returns -1 when --strict makes it an
 * error. From a snapshot the cluster is never emptier than its starting
 * state, which is what the count is against.
 */
static int report_audit(const struct gs_trace *t, const struct gs_cluster *c, bool strict,
			bool snapshot)
{
	size_t first;

	if (!strict || !t->audit.larger_than_any_node) {
		gs_audit_trace_print(stderr, "replay", t, snapshot);
		return 0;
	}
	fprintf(stderr, "gpusim replay: %s: %zu pods fit on no node even %s; they will be "
			"refused (--strict)\n", t->path, t->audit.larger_than_any_node,
		snapshot ? "in the snapshot's starting state" : "when the cluster is empty");
	/* Name the first such pod; the cluster is still empty here. */
	if (gs_audit_unfit(c, t->pods, t->n_pods, &first) != (size_t)-1 && first < t->n_pods)
		fprintf(stderr, "gpusim replay: %s: pod '%s' is the first that fits on no node\n",
			t->path, t->pod_names[first]);
	return -1;
}

static void progress_cb(void *arg, size_t done, size_t total)
{
	(void)total;
	gs_progress_update(arg, done);
}

static void print_header(enum gs_mode mode)
{
	if (mode == GS_MODE_INFLATE) {
		printf("%-14s %-7s %7s %7s %7s %7s %10s %9s %7s %9s %7s %9s %5s\n", "POLICY",
		       "MODE", "PODS", "PLACED", "FAILED", "PENDING", "WAIT(s)", "GPU-ALLOC", "PEAK%",
		       "UNALLOC%", "FRAG%", "WALL(ms)", "RUN");
		return;
	}
	printf("%-14s %6s %6s %6s %6s %9s %8s %8s %8s %9s %8s %7s %7s %6s %7s %7s %6s %6s %7s "
	       "%5s %9s %5s\n",
	       "POLICY", "PODS", "PLACED", "FAILED", "PEND", "WAIT(s)", "P50W", "P99W", "MAXW",
	       "COMPL(s)", "P99C", "SLOWDN", "QUEUE", "PEAKQ", "ALLOC%", "PEAK%", "FRAG%", "LOAD%",
	       "USEFUL%", "OOM", "WALL(ms)", "RUN");
}

static void print_row(const char *policy, const struct gs_sim *sim, const struct gs_summary *s,
		      double wall_ms, int64_t run_id)
{
	const struct gs_time_metrics *m = &s->tm;
	/* The time-mode figures that may be missing, and their decimals, in column order. */
	const struct {
		double v;
		int decimals;
	} f[13] = {
		{ m->wait_mean_s, 1 }, { m->wait_p50_s, 0 }, { m->wait_p99_s, 0 },
		{ m->wait_max_s, 0 }, { m->completion_mean_s, 1 }, { m->completion_p99_s, 0 },
		{ m->slowdown_mean, 2 }, { m->pending_avg, 2 }, { m->gpu_alloc_arrival_pct, 2 },
		{ m->gpu_alloc_peak_pct, 2 }, { m->frag_avg_pct, 2 }, { m->offered_load_pct, 1 },
		{ s->eff_util_pct, 2 },
	};
	char frag[16], run[24], c[13][24];
	size_t i;

	if (run_id > 0)
		snprintf(run, sizeof(run), "%lld", (long long)run_id);
	else
		snprintf(run, sizeof(run), "-");
	if (sim->opts.mode == GS_MODE_INFLATE) {
		gs_cli_num(frag, sizeof(frag), s->frag_ratio_pct, 2);
		printf("%-14s %-7s %7lld %7lld %7lld %7lld %10.1f %8.2f%% %7.2f %9.2f %7s %9.1f "
		       "%5s\n",
		       policy, "inflate", (long long)s->pods, (long long)s->placed,
		       (long long)s->failed, (long long)s->pending,
		       isnan(s->mean_wait_s) ? 0.0 : s->mean_wait_s, s->gpu_alloc_pct,
		       s->peak_gpu_alloc_pct, s->unalloc_gpu_pct, frag, wall_ms, run);
		return;
	}
	for (i = 0; i < 13; i++)
		gs_cli_num(c[i], sizeof(c[i]), f[i].v, f[i].decimals);
	printf("%-14s %6lld %6lld %6lld %6lld %9s %8s %8s %8s %9s %8s %7s %7s %6lld %7s %7s %6s "
	       "%6s %7s %5lld %9.1f %5s\n",
	       policy, (long long)s->pods, (long long)s->placed, (long long)s->failed,
	       (long long)s->pending, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
	       (long long)s->peak_pending, c[8], c[9], c[10], c[11], c[12],
	       (long long)s->oversubscribed, wall_ms, run);
}

/* The name of pod i of a run (its trace's, clones share it). */
static const char *sim_pod_name(const void *arg, size_t i)
{
	const struct gs_sim *sim = arg;

	return sim->trace->pod_names[sim->out[i].src];
}

/*
 * Pods that fit no node of the empty cluster once the sharing modes are
 * applied (the trace audit runs before them): an MPS pinned-memory limit
 * below a pod's memory, a request no MIG profile covers (run/audit.h).
 */
static void report_share_audit(const struct gs_sim *sim)
{
	char spec[GS_SHARE_SPEC_MAX];

	gs_audit_sharing_print(stderr, "replay", NULL,
			       gs_share_format(&sim->opts.sharing, spec, sizeof(spec)),
			       &sim->cluster, sim->pods, sim->n_pods, sim_pod_name, sim);
}

/* What the descheduler did in one run (--defrag), under the table. */
static void print_defrag(const char *policy, const struct gs_defrag_stats *st)
{
	if (!st->attempts) {
		printf("defrag, %s: every pod found a node on arrival; nothing moved\n", policy);
		return;
	}
	printf("defrag, %s: %lld of the %lld pods that fit nowhere on arrival placed after %lld "
	       "moves of %lld pods; %.1f GPU-hours of work lost\n", policy, (long long)st->placed,
	       (long long)st->attempts, (long long)st->moves, (long long)st->pods_moved,
	       st->lost_gpu_s / 3600.0);
}

static void print_sharing(const struct gs_sim *sim, const char *table)
{
	char spec[GS_SHARE_SPEC_MAX];

	if (!sim->cluster.share)
		return;
	report_share_audit(sim);
	printf("sharing: %s (GPUs the cluster file leaves unset), interference table: %s\n",
	       gs_share_format(&sim->opts.sharing, spec, sizeof(spec)),
	       table ? table : "built-in (results/interference.csv)");
	if (sim->opts.busy)
		printf("busy fractions of pods the trace leaves without one: %s\n",
		       sim->opts.busy->spec);
	if (sim->n_whole)
		printf("sharing: %d GPUs of models without MIG run exclusive\n", (int)sim->n_whole);
	if (sim->opts.mode == GS_MODE_INFLATE)
		printf("inflate mode: the modes decide where pods fit; there is no time to slow "
		       "them down\n\n");
	else
		printf("USEFUL%%: useful work over the arrival window, next to ALLOC%%; OOM: pods "
		       "failed by GPU memory oversubscription\n\n");
}

int gs_cmd_replay(int argc, char **argv)
{
	const struct gs_policy *const *pols;
	struct replay_args a;
	struct gs_cluster cluster;
	struct gs_trace trace;
	struct gs_db *db = NULL;
	cJSON *runs = NULL;
	struct gs_interference ifr;
	struct gs_inputs in;
	char nodes_sha[GS_SHA256_HEX], err[2048], *params = NULL;
	struct gs_defrag_stats moved[GS_CLI_MAX_POLICIES] = { { 0 } };
	size_t n_pols, i;
	int rc, status = GS_EXIT_OK;

	if (parse_args(argc, argv, &a, &status))
		return status;
	pols = a.sim.policies.v;
	n_pols = a.sim.policies.n;

	gs_cluster_init(&cluster);
	gs_trace_init(&trace);
	gs_interference_init(&ifr);
	gs_inputs_init(&in);
	if (a.sim.state.n) {
		/* The snapshot's cluster and queue (run/inputs.h), taken out of in. */
		rc = gs_inputs_load_state(&in, a.sim.state.v, a.sim.state.n,
					  a.pods ? &a.pods : NULL, 1, false, err, sizeof(err));
		if (rc == 0) {
			cluster = in.clusters[0];
			trace = in.traces[0];
			gs_cluster_init(&in.clusters[0]);
			gs_trace_init(&in.traces[0]);
			memcpy(nodes_sha, in.nodes_sha256, GS_SHA256_HEX);
		}
	} else {
		rc = gs_load_cluster(a.sim.nodes, &cluster, nodes_sha, err, sizeof(err));
		if (rc == 0)
			rc = gs_load_trace(a.pods, &cluster, &trace, err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "gpusim replay: %s\n", err);
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	if (report_audit(&trace, &cluster, a.sim.strict, a.sim.state.n > 0)) {
		status = GS_EXIT_USAGE;
		goto out;
	}
	/* A load the trace cannot offer is the user's to fix, before any run. */
	if (a.sim.opts.load_pct > 0) {
		rc = gs_arrivals_check(trace.pods, trace.n_pods, a.sim.opts.load_repeat,
				       cluster.gpu_milli, a.sim.opts.load_pct, a.sim.opts.arrivals, err,
				       sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim replay: --load: %s: %s\n", trace.path, err);
			status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
			goto out;
		}
	}
	status = gs_cli_sim_interference("replay", &a.sim, &ifr);
	if (status != GS_EXIT_OK)
		goto out;
	/* What the options make of these inputs is checked before anything is printed. */
	rc = gs_sim_validate(&cluster, &trace, &a.sim.opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim replay: %s\n", err);
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	if (gs_replay_params_json(&a.sim.opts, &params)) {
		fprintf(stderr, "gpusim replay: out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (!a.no_db && (rc = gs_db_open(a.db_path, &db, err, sizeof(err)))) {
		status = gs_cli_db_status("replay", rc, err);
		goto out;
	}
	if (a.json && !(runs = cJSON_CreateArray())) {
		fprintf(stderr, "gpusim replay: out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}

	for (i = 0; i < n_pols; i++) {
		struct gs_progress bar;
		struct gs_run_info ri;
		struct gs_summary sum;
		struct gs_sim sim;
		double t0, t1;
		int64_t run_id = 0;

		memset(&ri, 0, sizeof(ri));
		clock_gettime(CLOCK_REALTIME, &ri.started_at);
		t0 = gs_clock_ms();
		gs_progress_init(&bar, stderr, pols[i]->name, 0);
		rc = gs_sim_init(&sim, &cluster, &trace, pols[i], &a.sim.opts, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim replay: %s: %s\n", pols[i]->name, err);
			status = GS_EXIT_FAIL;
			break;
		}
		if (i == 0 && !a.quiet && !a.json) {
			print_sharing(&sim, a.sim.interference);
			print_header(a.sim.opts.mode);
		}
		gs_progress_init(&bar, stderr, pols[i]->name, sim.n_pods);
		if (bar.on) {
			sim.opts.progress = progress_cb;
			sim.opts.progress_arg = &bar;
		}
		rc = gs_sim_run(&sim, err, sizeof(err));
		t1 = gs_clock_ms();
		clock_gettime(CLOCK_REALTIME, &ri.ended_at);
		gs_progress_done(&bar);
		if (rc) {
			fprintf(stderr, "gpusim replay: %s: %s\n", pols[i]->name, err);
			gs_sim_release(&sim);
			status = GS_EXIT_FAIL;
			break;
		}
		ri.policy = pols[i]->name;
		ri.mode = a.sim.opts.mode == GS_MODE_INFLATE ? "inflate" : "time";
		ri.seed = a.sim.opts.seed;
		ri.nodes_path = a.sim.state.n ? in.snap->paths : a.sim.nodes;
		ri.nodes_sha256 = nodes_sha;
		ri.pods_path = trace.path;
		ri.pods_sha256 = trace.sha256;
		ri.params_json = params;
		ri.wall_ms = t1 - t0;
		ri.no_pods = a.sim.no_pods;
		ri.arrival_samples = a.sim.arrival_samples;
		if (db && gs_db_write_run(db, &ri, &sim, &run_id, err, sizeof(err))) {
			fprintf(stderr, "gpusim replay: %s\n", err);
			gs_sim_release(&sim);
			status = GS_EXIT_FAIL;
			break;
		}
		gs_sim_summarize(&sim, &sum);
		if (a.json)
			cJSON_AddItemToArray(runs, gs_json_run_summary(pols[i]->name, &sim, &sum, trace.path,
								       params, run_id, ri.wall_ms));
		else if (!a.quiet)
			print_row(pols[i]->name, &sim, &sum, ri.wall_ms, run_id);
		else if (run_id > 0)
			printf("%lld\n", (long long)run_id);
		if (sim.defrag_on)
			moved[i] = sim.defrag.st;
		gs_sim_release(&sim);
	}
	if (gs_defrag_on(&a.sim.opts.defrag))
		for (i = 0; !a.json && !a.quiet && i < n_pols; i++)
			print_defrag(pols[i]->name, &moved[i]);
	if (runs) {
		/* The runs that finished, also when a later one failed. */
		rc = gs_json_print("replay", runs);
		runs = NULL;
		if (rc && status == GS_EXIT_OK)
			status = rc;
	} else if (status == GS_EXIT_OK && db && !a.quiet && a.sim.no_pods)
		printf("\nstored in %s without pod rows (--no-pods); 'gpusim inspect --db %s' "
		       "lists the runs\n", a.db_path, a.db_path);
	else if (status == GS_EXIT_OK && db && !a.quiet)
		printf("\nstored in %s; 'gpusim inspect --db %s --run ID' shows a run\n", a.db_path,
		       a.db_path);
out:
	cJSON_Delete(runs);
	gs_db_close(db);
	gs_interference_release(&ifr);
	free(params);
	gs_trace_release(&trace);
	gs_cluster_release(&cluster);
	gs_inputs_release(&in);
	gs_opt_release(&replay_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_replay_specs[] = { &replay_cmd, NULL };
