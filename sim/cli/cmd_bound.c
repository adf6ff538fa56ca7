/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_bound.c - `gpusim bound`: the floor under every policy's unallocated
 * GPU share in the inflation experiment (engine/bound.h), per trace, seed
 * and arrived-workload bucket, stored beside the runs (store/bounds.h) and
 * printed as a table.
 *
 * The (trace, seed) pairs are computed, stored and skipped by the run
 * layer (run/bound_batch.h); this file parses, loads and prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "io/path.h"
#include "engine/bound.h"
#include "engine/inflate.h"
#include "io/list.h"
#include "run/bound_batch.h"
#include "store/plot_data.h"
#include "store/results.h"

#define CMD "gpusim bound"

/* The buckets of --arrived: n percents, sorted, each once. */
struct arrived_list {
	int32_t v[GS_BOUND_MAX_POINTS];
	size_t n;
};

struct bound_args {
	struct gs_cli_sim sim;       /* --nodes and --inflate, as replay's */
	struct gs_cli_exec exec;     /* --jobs */
	struct gs_opt_list pods;
	struct gs_cli_seeds seeds;
	struct arrived_list arrived;
	int method;
	double time_limit_s;
	const char *db_path;
	bool no_db, quiet;
};

static const struct gs_opt_choice methods[] = {
	{ "aggregate", GS_BOUND_AGGREGATE },
	{ "lp", GS_BOUND_AGGREGATE | GS_BOUND_LP },
	{ "exact", GS_BOUND_AGGREGATE | GS_BOUND_LP | GS_BOUND_EXACT },
	{ NULL, 0 },
};

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* --arrived: percents and ranges, as --seeds reads them, at most 10000 and GS_BOUND_MAX_POINTS. */
static int parse_arrived(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
			 void *field)
{
	struct arrived_list *out = field;
	uint64_t *v;
	size_t n, i;
	int rc = gs_list_parse_seeds(value, &v, &n);

	if (rc)
		return gs_cli_list_refused(cmd, o, value, rc,
					   "percents and ranges such as 100 or 80-130");
	if (n > GS_BOUND_MAX_POINTS) {
		gs_opt_err(cmd, o, "'%s' names %zu buckets; at most %d", value, n,
			   GS_BOUND_MAX_POINTS);
		free(v);
		return GS_EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (v[i] > 100 * (uint64_t)GS_INFLATE_MAX) {
			gs_opt_err(cmd, o, "%llu%% is past %d%%, the largest --inflate",
				   (unsigned long long)v[i], 100 * (int)GS_INFLATE_MAX);
			free(v);
			return GS_EINVAL;
		}
		out->v[i] = (int32_t)v[i];
	}
	free(v);
	out->n = n;
	qsort(out->v, n, sizeof(*out->v), cmp_i32);
	for (i = 1; i < n; i++) {
		if (out->v[i] == out->v[i - 1]) {
			gs_opt_err(cmd, o, "%d%% is named twice", out->v[i]);
			return GS_EINVAL;
		}
	}
	return 0;
}

#define S struct bound_args
static const struct gs_opt bound_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs:") },
	GS_CLI_OPT_NODES(S),
	GS_CLI_OPT_PODS_LIST(S),

	{ GS_OPT_GROUP_HEADING("The experiment (as gpusim replay --mode inflate runs it):") },
	GS_CLI_OPT_SEEDS(S),
	GS_CLI_OPT_INFLATE(S),
	{ GS_OPT_CUSTOM_AT(S, arrived, struct arrived_list, parse_arrived, NULL),
	  .name = "arrived", .arg = "LIST", .def = "100",
	  .help = "arrived-workload buckets to bound, in percent: 100 (the headline) or a list "
		  "and ranges such as 80-130 (the figure's line); each costs five LPs" },

	{ GS_OPT_GROUP_HEADING("Bounds:") },
	{ GS_OPT_ENUM_AT(S, method, methods), .name = "method", .arg = "METHOD", .def = "lp",
	  .help = "'aggregate': the arrived request, and a max-flow of it to the GPU models with "
		  "each node capped by what its CPU and memory let pods take (microseconds); "
		  "'lp': also the pattern LP, every shared GPU holding a whole set of pods, CPU, "
		  "memory and GPUs pooled per node type (GLPK, seconds); 'exact': also the "
		  "integer program node by node and GPU by GPU, its best placement and proven "
		  "bound within --time-limit (clusters of tens of nodes)" },
	{ GS_OPT_DOUBLE_AT(S, time_limit_s, 0, 86400.0 * 365), .flags = GS_OPT_GT_MIN,
	  .name = "time-limit", .arg = "S", .def = "60",
	  .help = "with --method exact: seconds of branch and cut per bucket" },

	{ GS_OPT_GROUP_HEADING("Execution and output:") },
	GS_CLI_OPT_JOBS(S),
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .def = "results/fgd.db", .conflicts = "no-db",
	  .help = "results database, the sweep's by default; bounds go beside the runs (tables "
		  "bounds, bound_points)" },
	{ GS_OPT_FLAG_AT(S, no_db), .name = "no-db", .help = "do not store the bounds" },
	GS_CLI_OPT_QUIET(S, "print no table, only the id of each bound stored, one per line"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec bound_cmd = {
	.name = "bound",
	.intro = "Bounds what any placement could allocate in the FGD paper's inflation\n"
		 "experiment (gpusim replay --mode inflate): for each trace, seed and bucket of\n"
		 "arrived workload, a floor under the unallocated GPU % that every policy,\n"
		 "online or not, averages over the bucket's arrivals. After an arrival what is\n"
		 "allocated is a set of the pods arrived so far that fits together; the bound\n"
		 "is on the largest such set (a relaxation of it: --method). Pods that ask for\n"
		 "no GPU are free to leave out, so the floor is below what a policy that must\n"
		 "place them can reach. Stores the bounds beside the runs (a run's bound has\n"
		 "its trace, cluster, seed and --inflate; results/SCHEMA.md, view bound_gap)\n"
		 "and skips the (trace, seed) pairs the database already has; gpusim plot draws\n"
		 "them in the unallocated-GPU figures.\n",
	.outro = "Columns: TRACE, SEED, ARRIVED (the bucket, %), PODS (arrivals up to its\n"
		 "last), AGG%, LP% and EXACT% (each method's floor of the unallocated GPU %;\n"
		 "EXACT% is the proven one, FOUND% what the best placement found leaves at the\n"
		 "bucket's last arrival), BOUND% (the tightest), METHOD (whose) and MS (time).\n"
		 "Exit status: 0 done, 1 a bound failed (out of memory, GLPK, the database),\n"
		 "2 bad input or usage.\n",
	.opts = bound_opts,
};

static void print_header(void)
{
	printf("%-14s %5s %7s %6s %6s %6s %6s %6s %6s %-9s %9s\n", "TRACE", "SEED", "ARRIVED",
	       "PODS", "AGG%", "LP%", "EXACT%", "FOUND%", "BOUND%", "METHOD", "MS");
}

static void pct_cell(double v)
{
	if (v == v)
		printf(" %6.3f", v);
	else
		printf(" %6s", "-");
}

static void print_point(const char *trace, uint64_t seed, const struct gs_bound_point *p,
			int64_t cap)
{
	if (!p->n_samples) {
		printf("%-14s %5llu %6d%% %6s  no arrival rounds to this bucket\n", trace,
		       (unsigned long long)seed, p->arrived_pct, "-");
		return;
	}
	printf("%-14s %5llu %6d%% %6lld", trace, (unsigned long long)seed, p->arrived_pct,
	       (long long)p->n_pods);
	pct_cell(p->aggregate_unalloc_pct_min);
	pct_cell(p->lp_unalloc_pct_min);
	pct_cell(p->exact_unalloc_pct_min);
	pct_cell(p->exact_milli >= 0 ? 100.0 - 100.0 * (double)p->exact_milli / (double)cap : NAN);
	pct_cell(p->unalloc_pct_min);
	printf(" %-9s %9.1f\n", p->method ? p->method : "-",
	       p->aggregate_ms + p->lp_ms + p->exact_ms);
}

/* What the callback prints with: the command's options and the traces' short names. */
struct report {
	const struct bound_args *a;
	char *const *names;
	int64_t gpu_milli;
	int status;
};

static void report_job(void *arg, const struct gs_bound_job *j)
{
	struct report *r = arg;
	size_t k;

	if (j->rc) {
		fprintf(stderr, CMD ": %s, seed %llu: %s\n", r->a->pods.v[j->trace],
			(unsigned long long)j->seed, j->err);
		if (r->status == GS_EXIT_OK)
			r->status = j->rc == GS_EINVAL || j->rc == GS_ERANGE ? GS_EXIT_USAGE
									      : GS_EXIT_FAIL;
		return;
	}
	if (r->a->quiet) {
		if (j->bound_id > 0)
			printf("%lld\n", (long long)j->bound_id);
		return;
	}
	if (j->skipped) {
		printf("%-14s %5llu  already in %s\n", r->names[j->trace],
		       (unsigned long long)j->seed, r->a->db_path);
		return;
	}
	for (k = 0; k < r->a->arrived.n; k++)
		print_point(r->names[j->trace], j->seed, &j->pts[k], r->gpu_milli);
}

int gs_cmd_bound(int argc, char **argv)
{
	struct bound_args a;
	struct gs_bound_batch b;
	struct report rep;
	struct gs_inputs in;
	struct gs_db *db = NULL;
	char err[1024];
	char **names = NULL;
	size_t i;
	int status = GS_EXIT_OK, rc;

	memset(&a, 0, sizeof(a));
	gs_cli_sim_init(&a.sim);
	gs_cli_exec_init(&a.exec);
	if (gs_opt_parse(&bound_cmd, argc, argv, &a, &status))
		return status;
	gs_inputs_init(&in);
	names = calloc(a.pods.n, sizeof(*names));
	if (!names) {
		fprintf(stderr, CMD ": out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	rc = gs_inputs_load(&in, a.sim.nodes, a.pods.v, a.pods.n, false, err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	if (in.clusters[0].share || in.clusters[0].gpu_milli <= 0) {
		fprintf(stderr, CMD ": %s: %s\n", a.sim.nodes,
			in.clusters[0].share ? "the cluster sets GPU sharing modes; bounds are for "
					       "shares as requested (the ideal mode)"
					     : "the cluster has no GPUs");
		status = GS_EXIT_USAGE;
		goto out;
	}
	/* The figures' short names, distinct for traces of one file name (io/path.h). */
	if (gs_path_names(a.pods.v, a.pods.n, "openb_pod_list_", names)) {
		fprintf(stderr, CMD ": out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (!a.no_db && (rc = gs_db_open(a.db_path, &db, err, sizeof(err)))) {
		status = gs_cli_db_status("bound", rc, err);
		goto out;
	}

	memset(&b, 0, sizeof(b));
	b.in = &in;
	b.nodes_path = a.sim.nodes;
	b.pods_paths = a.pods.v;
	b.seeds = a.seeds.v;
	b.n_seeds = a.seeds.n;
	gs_bound_opts_init(&b.opts);
	b.opts.inflate = a.sim.opts.inflate;
	b.opts.methods = (unsigned)a.method;
	b.opts.exact_time_limit_s = a.time_limit_s;
	b.arrived = a.arrived.v;
	b.n_arrived = a.arrived.n;
	b.db = db;
	b.jobs = (int)a.exec.jobs;
	memset(&rep, 0, sizeof(rep));
	rep.a = &a;
	rep.names = names;
	rep.gpu_milli = in.clusters[0].gpu_milli;
	if (!a.quiet)
		print_header();
	rc = gs_bound_batch_run(&b, report_job, &rep, err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		status = GS_EXIT_FAIL;
	} else {
		status = rep.status;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, CMD ": cannot write the output\n");
		status = GS_EXIT_FAIL;
	}
out:
	for (i = 0; names && i < a.pods.n; i++)
		free(names[i]);
	free(names);
	gs_inputs_release(&in);
	gs_db_close(db);
	gs_opt_release(&bound_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_bound_specs[] = { &bound_cmd, NULL };
