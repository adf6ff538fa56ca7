/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sweep.c - `gpusim sweep`: run traces x policies x seeds in parallel,
 * store every run, skip the runs the database already has, and print the
 * mean and standard deviation over seeds of unallocated GPU %.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "core/error.h"
#include "cli/sweep.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim sweep --nodes FILE --pods FILE[,FILE...] [OPTIONS]\n"
		"\n"
		"Runs every combination of trace, policy and seed, in parallel, stores each run\n"
		"in a SQLite database (schema: results/SCHEMA.md) and prints the mean and\n"
		"standard deviation over seeds of unallocated GPU %% (at arrived workload 100%%\n"
		"in inflate mode). Runs already complete in the database with the same inputs\n"
		"and options are skipped, so an interrupted sweep resumes.\n"
		"\n"
		"Inputs:\n"
		"  -n, --nodes FILE         cluster: openb node list, gpusim CSV or JSON\n"
		"  -p, --pods LIST          comma-separated pod traces\n"
		"\n"
		"Matrix:\n"
		"  -P, --policy LIST        comma-separated names, 'all' (every policy) or 'paper'\n"
		"                           (random,dotprod,gpuclustering,gpupacking,bestfit,fgd;\n"
		"                           the default)\n"
		"  -s, --seeds LIST         seeds and ranges, e.g. 42-51 or 1,5,7-9 (default 42-51)\n"
		"  -m, --mode MODE          'inflate' (default) or 'time', as in gpusim replay\n"
		"      --inflate X          inflate mode target, total GPU request / capacity (1.3)\n"
		"      --compat             FGD reference scoring: integer scores, ties broken by a\n"
		"                           node order shuffled per seed (default in inflate mode)\n"
		"      --exact              float scores, ties to the lowest node index\n"
		"\n"
		"Execution and output:\n"
		"  -j, --jobs N             worker threads (default: the number of CPUs)\n"
		"  -d, --db FILE            results database (default results/fgd.db)\n"
		"      --no-pods            store no per-pod rows (most of a run's size): counts,\n"
		"                           mean wait, samples and summary are kept, but\n"
		"                           'gpusim inspect --run' cannot show the runs; not part\n"
		"                           of the resume key, a run stored either way is done\n"
		"  -q, --quiet              print no table\n"
		"  -h, --help               this text\n"
		"\n"
		"A progress bar is drawn on stderr when it is a terminal.\n"
		"Exit status: 0 success, 1 a run failed, 2 bad input or usage.\n");
}

enum { OPT_COMPAT = 256, OPT_EXACT, OPT_INFLATE, OPT_NO_PODS };

/* Splits a comma-separated list in place into out[]; returns the count or -1. */
static int split_paths(char *list, const char **out, size_t max)
{
	char *save = NULL, *tok;
	size_t n = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			fprintf(stderr, "gpusim sweep: --pods: more than %zu traces\n", max);
			return -1;
		}
		out[n++] = tok;
	}
	if (n == 0) {
		fprintf(stderr, "gpusim sweep: --pods: no trace given\n");
		return -1;
	}
	return (int)n;
}

int gs_cmd_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "pods", required_argument, NULL, 'p' },
		{ "policy", required_argument, NULL, 'P' },
		{ "seeds", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "inflate", required_argument, NULL, OPT_INFLATE },
		{ "no-pods", no_argument, NULL, OPT_NO_PODS },
		{ NULL, 0, NULL, 0 },
	};
	const struct gs_policy *pols[64];
	const char *paths[256];
	struct gs_sweep_spec spec;
	struct gs_sweep result;
	char *pods_list = NULL, err[1024];
	const char *policy_list = "paper", *seed_list = "42-51";
	uint64_t *seeds = NULL;
	size_t n_pols = 0;
	int c, n_paths, compat = -1, quiet = 0, status = GS_EXIT_USAGE, rc;
	int64_t jobs;
	long v;

	memset(&spec, 0, sizeof(spec));
	gs_replay_opts_init(&spec.opts);
	spec.opts.mode = GS_MODE_INFLATE;
	spec.db_path = "results/fgd.db";
	v = sysconf(_SC_NPROCESSORS_ONLN);
	spec.jobs = v > 0 ? (int)v : 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:p:P:s:m:j:d:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			spec.nodes_path = optarg;
			break;
		case 'p':
			free(pods_list);
			pods_list = strdup(optarg);
			if (!pods_list) {
				fprintf(stderr, "gpusim sweep: out of memory\n");
				return GS_EXIT_FAIL;
			}
			break;
		case 'P':
			policy_list = optarg;
			break;
		case 's':
			seed_list = optarg;
			break;
		case 'm':
			if (gs_cli_mode("sweep", optarg, &spec.opts.mode))
				goto out;
			break;
		case 'j':
			if (gs_cli_int("sweep", "jobs", optarg, 1, 1024, &jobs))
				goto out;
			spec.jobs = (int)jobs;
			break;
		case 'd':
			spec.db_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			free(pods_list);
			return GS_EXIT_OK;
		case OPT_COMPAT:
			compat = 1;
			break;
		case OPT_EXACT:
			compat = 0;
			break;
		case OPT_INFLATE:
			if (gs_cli_positive("sweep", "inflate", optarg, &spec.opts.inflate))
				goto out;
			break;
		case OPT_NO_PODS:
			spec.no_pods = true;
			break;
		default:
			fprintf(stderr, "Try 'gpusim sweep --help'.\n");
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpusim sweep: unexpected argument '%s'\n", argv[optind]);
		goto out;
	}
	if (!spec.nodes_path || !pods_list) {
		fprintf(stderr, "gpusim sweep: --nodes and --pods are required; "
				"try 'gpusim sweep --help'\n");
		goto out;
	}
	n_paths = split_paths(pods_list, paths, sizeof(paths) / sizeof(*paths));
	if (n_paths < 0)
		goto out;
	if (gs_cli_policies("sweep", policy_list, pols, sizeof(pols) / sizeof(*pols), &n_pols))
		goto out;
	rc = gs_parse_seeds(seed_list, &seeds, &spec.n_seeds);
	if (rc) {
		fprintf(stderr, "gpusim sweep: --seeds: '%s' is not a list of seeds and ranges "
				"such as 42-51 or 1,5,7-9\n", seed_list);
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	if (compat < 0)
		compat = spec.opts.mode == GS_MODE_INFLATE;
	if (compat)
		spec.opts.policy_flags |= GS_POLICY_COMPAT;
	spec.pods_paths = paths;
	spec.n_traces = (size_t)n_paths;
	spec.policies = pols;
	spec.n_policies = n_pols;
	spec.seeds = seeds;
	spec.progress = stderr;

	rc = gs_sweep_run(&spec, &result, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim sweep: %s\n", err);
		/* Unreadable inputs are the user's to fix; a run that breaks is ours. */
		status = rc == GS_ENOENT || rc == GS_EIO || rc == GS_EPARSE || rc == GS_ESCHEMA ||
				 rc == GS_EINVAL ?
			 GS_EXIT_USAGE : GS_EXIT_FAIL;
		goto out;
	}
	if (!quiet) {
		gs_sweep_print_summary(stdout, &spec, &result);
		printf("\n%zu runs: %zu ran, %zu already in %s; %.1f s with %d jobs\n",
		       result.n_traces * result.n_policies * result.n_seeds, result.n_ran,
		       result.n_skipped, spec.db_path, result.wall_s, spec.jobs);
	}
	gs_sweep_release(&result);
	status = GS_EXIT_OK;
out:
	free(seeds);
	free(pods_list);
	return status;
}
