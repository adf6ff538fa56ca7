/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_replay.c - `gpusim replay`: load a cluster and a trace, run each
 * requested policy, store every run in SQLite and print a summary table.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "core/error.h"
#include "cli/progress.h"
#include "engine/replay.h"
#include "store/results.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim replay --nodes FILE --pods FILE [OPTIONS]\n"
		"\n"
		"Replays a pod trace on a cluster with one or more placement policies and\n"
		"stores each run in a SQLite database (schema: results/SCHEMA.md).\n"
		"\n"
		"Inputs:\n"
		"  -n, --nodes FILE         cluster: openb node list, gpusim CSV or JSON\n"
		"  -p, --pods FILE          pods: openb pod list, gpusim CSV or JSON\n"
		"\n"
		"Policy:\n"
		"  -P, --policy LIST        comma-separated names, 'all', or 'paper' (the six of the\n"
		"                           FGD paper); default binpack; 'gpusim policies' lists them\n"
		"  -s, --seed N             seed for shuffles, clones and random choices (default 42)\n"
		"      --compat             FGD reference scoring: integer 0-100 scores, ties broken\n"
		"                           by a node order shuffled per seed (default in inflate mode)\n"
		"      --exact              float scores, ties to the lowest node index (default in\n"
		"                           time mode)\n"
		"\n"
		"Mode:\n"
		"  -m, --mode MODE          'time': pods arrive at their creation time, wait FIFO\n"
		"                           when nothing fits, leave at their deletion time (default);\n"
		"                           'inflate': the FGD paper's experiment, pods shuffled and\n"
		"                           cloned to --inflate x GPU capacity, arrive one by one,\n"
		"                           never leave, fail when nothing fits\n"
		"      --inflate X          inflate mode target, total GPU request / capacity (1.3)\n"
		"      --time-scale X       divide arrival times by X, keep durations (1): X > 1\n"
		"                           raises the offered load\n"
		"      --max-wait S         a pod pending longer than S seconds fails (default: waits)\n"
		"      --frag               track fragmentation in time mode (always on in inflate)\n"
		"\n"
		"Output:\n"
		"  -d, --db FILE            results database (default results/gpusim.db)\n"
		"      --no-db              do not store the runs\n"
		"      --no-pods            store no per-pod rows (most of a run's size): counts,\n"
		"                           mean wait, samples and summary are kept, but\n"
		"                           'gpusim inspect --run' cannot show the run\n"
		"      --sample-every N     sample the time series every N events (default 1)\n"
		"      --sample-interval S  also sample every S simulated seconds (time mode)\n"
		"      --check              verify the allocator's invariants after every change\n"
		"      --strict             pods that fit no node even on an empty cluster are errors\n"
		"  -q, --quiet              print no table\n"
		"  -h, --help               this text\n"
		"\n"
		"Exit status: 0 success, 1 a run failed, 2 bad input or usage.\n");
}

enum {
	OPT_COMPAT = 256,
	OPT_EXACT,
	OPT_INFLATE,
	OPT_TIME_SCALE,
	OPT_MAX_WAIT,
	OPT_FRAG,
	OPT_NO_DB,
	OPT_NO_PODS,
	OPT_SAMPLE_EVERY,
	OPT_SAMPLE_INTERVAL,
	OPT_CHECK,
	OPT_STRICT,
};

struct replay_args {
	const char *nodes, *pods, *db_path, *policy_list;
	bool no_db, no_pods, quiet, strict;
	int compat;  /* -1 mode default, 0 exact, 1 compat */
	struct gs_replay_opts opts;
};

static int parse_args(int argc, char **argv, struct replay_args *a)
{
	static const struct option longopts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "pods", required_argument, NULL, 'p' },
		{ "policy", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "db", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "inflate", required_argument, NULL, OPT_INFLATE },
		{ "time-scale", required_argument, NULL, OPT_TIME_SCALE },
		{ "max-wait", required_argument, NULL, OPT_MAX_WAIT },
		{ "frag", no_argument, NULL, OPT_FRAG },
		{ "no-db", no_argument, NULL, OPT_NO_DB },
		{ "no-pods", no_argument, NULL, OPT_NO_PODS },
		{ "sample-every", required_argument, NULL, OPT_SAMPLE_EVERY },
		{ "sample-interval", required_argument, NULL, OPT_SAMPLE_INTERVAL },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ NULL, 0, NULL, 0 },
	};
	struct gs_replay_opts *o = &a->opts;
	int64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	gs_replay_opts_init(o);
	a->db_path = "results/gpusim.db";
	a->policy_list = "binpack";
	a->compat = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:p:P:s:m:d:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			a->nodes = optarg;
			break;
		case 'p':
			a->pods = optarg;
			break;
		case 'P':
			a->policy_list = optarg;
			break;
		case 's':
			if (gs_cli_int("replay", "seed", optarg, 0, INT64_MAX, &v))
				return -1;
			o->seed = (uint64_t)v;
			break;
		case 'm':
			if (gs_cli_mode("replay", optarg, &o->mode))
				return -1;
			break;
		case 'd':
			a->db_path = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(GS_EXIT_OK);
		case OPT_COMPAT:
			a->compat = 1;
			break;
		case OPT_EXACT:
			a->compat = 0;
			break;
		case OPT_INFLATE:
			if (gs_cli_positive("replay", "inflate", optarg, &o->inflate))
				return -1;
			break;
		case OPT_TIME_SCALE:
			if (gs_cli_positive("replay", "time-scale", optarg, &o->time_scale))
				return -1;
			break;
		case OPT_MAX_WAIT:
			if (gs_cli_int("replay", "max-wait", optarg, 0, INT64_MAX, &o->max_wait_s))
				return -1;
			break;
		case OPT_FRAG:
			o->frag = true;
			break;
		case OPT_NO_DB:
			a->no_db = true;
			break;
		case OPT_NO_PODS:
			a->no_pods = true;
			break;
		case OPT_SAMPLE_EVERY:
			if (gs_cli_int("replay", "sample-every", optarg, 1, INT64_MAX,
				       &o->sample_every))
				return -1;
			break;
		case OPT_SAMPLE_INTERVAL:
			if (gs_cli_int("replay", "sample-interval", optarg, 0, INT64_MAX,
				       &o->sample_interval_s))
				return -1;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_STRICT:
			a->strict = true;
			break;
		default:
			fprintf(stderr, "Try 'gpusim replay --help'.\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpusim replay: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!a->nodes || !a->pods) {
		fprintf(stderr, "gpusim replay: --nodes and --pods are required; "
				"try 'gpusim replay --help'\n");
		return -1;
	}
	if (a->compat < 0)
		a->compat = o->mode == GS_MODE_INFLATE;
	if (a->compat)
		o->policy_flags |= GS_POLICY_COMPAT;
	return 0;
}

/* Reports the trace audit on stderr. Returns -1 when --strict makes it an error. */
static int report_audit(const struct gs_trace *t, const struct gs_cluster *c, bool strict)
{
	const struct gs_trace_audit *au = &t->audit;
	size_t i;

	if (au->deleted_before_created)
		fprintf(stderr, "gpusim replay: %s: %zu pods are deleted before they are created; "
				"they run for 0 s\n", t->path, au->deleted_before_created);
	if (au->unknown_model)
		fprintf(stderr, "gpusim replay: %s: %zu pods ask for GPU models no node has; "
				"they can never be placed\n", t->path, au->unknown_model);
	if (!au->larger_than_any_node)
		return 0;
	fprintf(stderr, "gpusim replay: %s: %zu pods fit on no node even when the cluster is "
			"empty; they will %s\n", t->path, au->larger_than_any_node,
		strict ? "be refused (--strict)" : "never be placed");
	if (!strict)
		return 0;
	/* Name the first such pod; the cluster is still empty here. */
	for (i = 0; i < t->n_pods; i++) {
		int32_t n;

		for (n = 0; n < c->n_nodes; n++)
			if (gs_cluster_fits(c, n, &t->pods[i]) == GS_FIT_OK)
				break;
		if (n == c->n_nodes) {
			fprintf(stderr, "gpusim replay: %s: pod '%s' is the first that fits on no node\n",
				t->path, t->pod_names[i]);
			break;
		}
	}
	return -1;
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static void progress_cb(void *arg, size_t done, size_t total)
{
	(void)total;
	gs_progress_update(arg, done);
}

static void print_header(void)
{
	printf("%-14s %-7s %7s %7s %7s %7s %10s %9s %7s %9s %7s %9s %5s\n", "POLICY", "MODE",
	       "PODS", "PLACED", "FAILED", "PENDING", "WAIT(s)", "GPU-ALLOC", "PEAK%", "UNALLOC%",
	       "FRAG%", "WALL(ms)", "RUN");
}

static void print_row(const char *policy, const struct gs_sim *sim, const struct gs_summary *s,
		      double wall_ms, int64_t run_id)
{
	char frag[16], run[24];

	if (isnan(s->frag_ratio_pct))
		snprintf(frag, sizeof(frag), "-");
	else
		snprintf(frag, sizeof(frag), "%.2f", s->frag_ratio_pct);
	if (run_id > 0)
		snprintf(run, sizeof(run), "%lld", (long long)run_id);
	else
		snprintf(run, sizeof(run), "-");
	printf("%-14s %-7s %7lld %7lld %7lld %7lld %10.1f %8.2f%% %7.2f %9.2f %7s %9.1f %5s\n",
	       policy, sim->opts.mode == GS_MODE_INFLATE ? "inflate" : "time", (long long)s->pods,
	       (long long)s->placed, (long long)s->failed, (long long)s->pending,
	       isnan(s->mean_wait_s) ? 0.0 : s->mean_wait_s, s->gpu_alloc_pct,
	       s->peak_gpu_alloc_pct, s->unalloc_gpu_pct, frag, wall_ms, run);
}

int gs_cmd_replay(int argc, char **argv)
{
	const struct gs_policy *pols[64];
	struct replay_args a;
	struct gs_cluster cluster;
	struct gs_trace trace;
	struct gs_db *db = NULL;
	char nodes_sha[GS_SHA256_HEX], err[1024], *params = NULL;
	size_t n_pols, i;
	int rc, status = GS_EXIT_OK;

	if (parse_args(argc, argv, &a))
		return GS_EXIT_USAGE;
	if (gs_cli_policies("replay", a.policy_list, pols, sizeof(pols) / sizeof(pols[0]), &n_pols))
		return GS_EXIT_USAGE;

	gs_cluster_init(&cluster);
	gs_trace_init(&trace);
	rc = gs_cluster_load(a.nodes, &cluster, nodes_sha, err, sizeof(err));
	if (rc == 0)
		rc = gs_trace_load(a.pods, &cluster, &trace, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim replay: %s\n", err);
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	if (report_audit(&trace, &cluster, a.strict)) {
		status = GS_EXIT_USAGE;
		goto out;
	}
	if (gs_replay_params_json(&a.opts, &params)) {
		fprintf(stderr, "gpusim replay: out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (!a.no_db && gs_db_open(a.db_path, &db, err, sizeof(err))) {
		fprintf(stderr, "gpusim replay: %s\n", err);
		status = GS_EXIT_USAGE;
		goto out;
	}

	if (!a.quiet)
		print_header();
	for (i = 0; i < n_pols; i++) {
		struct gs_progress bar;
		struct gs_run_info ri;
		struct gs_summary sum;
		struct gs_sim sim;
		struct timespec t0, t1;
		int64_t run_id = 0;

		memset(&ri, 0, sizeof(ri));
		clock_gettime(CLOCK_REALTIME, &ri.started_at);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		gs_progress_init(&bar, stderr, pols[i]->name, 0);
		rc = gs_sim_init(&sim, &cluster, &trace, pols[i], &a.opts, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim replay: %s: %s\n", pols[i]->name, err);
			status = GS_EXIT_FAIL;
			break;
		}
		gs_progress_init(&bar, stderr, pols[i]->name, sim.n_pods);
		if (bar.on) {
			sim.opts.progress = progress_cb;
			sim.opts.progress_arg = &bar;
		}
		rc = gs_sim_run(&sim, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		clock_gettime(CLOCK_REALTIME, &ri.ended_at);
		gs_progress_done(&bar);
		if (rc) {
			fprintf(stderr, "gpusim replay: %s: %s\n", pols[i]->name, err);
			gs_sim_release(&sim);
			status = GS_EXIT_FAIL;
			break;
		}
		ri.policy = pols[i]->name;
		ri.mode = a.opts.mode == GS_MODE_INFLATE ? "inflate" : "time";
		ri.seed = a.opts.seed;
		ri.nodes_path = a.nodes;
		ri.nodes_sha256 = nodes_sha;
		ri.pods_path = a.pods;
		ri.pods_sha256 = trace.sha256;
		ri.params_json = params;
		ri.wall_ms = elapsed_ms(&t0, &t1);
		ri.no_pods = a.no_pods;
		if (db && gs_db_write_run(db, &ri, &sim, &run_id, err, sizeof(err))) {
			fprintf(stderr, "gpusim replay: %s\n", err);
			gs_sim_release(&sim);
			status = GS_EXIT_FAIL;
			break;
		}
		gs_sim_summarize(&sim, &sum);
		if (!a.quiet)
			print_row(pols[i]->name, &sim, &sum, ri.wall_ms, run_id);
		gs_sim_release(&sim);
	}
	if (status == GS_EXIT_OK && db && !a.quiet && a.no_pods)
		printf("\nstored in %s without pod rows (--no-pods); 'gpusim inspect --db %s' "
		       "lists the runs\n", a.db_path, a.db_path);
	else if (status == GS_EXIT_OK && db && !a.quiet)
		printf("\nstored in %s; 'gpusim inspect --db %s --run ID' shows a run\n", a.db_path,
		       a.db_path);
out:
	gs_db_close(db);
	free(params);
	gs_trace_release(&trace);
	gs_cluster_release(&cluster);
	return status;
}
