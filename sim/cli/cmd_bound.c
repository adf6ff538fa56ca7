/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_bound.c - `gpusim bound`: the floor under every policy's unallocated
 * GPU share in the inflation experiment (engine/bound.h), per trace, seed
 * and arrived-workload bucket, stored beside the runs (store/bounds.h) and
 * printed as a table.
 *
 * The (trace, seed) pairs are computed by --jobs threads (GLPK keeps one
 * environment per thread); the main thread stores and prints them in
 * order, each bound in its own transaction, skipping the pairs the
 * database already has.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "cli/sweep.h"
#include "core/error.h"
#include "engine/bound.h"
#include "engine/inflate.h"
#include "io/trace/load.h"
#include "store/bounds.h"
#include "store/plot_data.h"
#include "store/results.h"

#define CMD "gpusim bound"

/* The buckets of --arrived: n percents, sorted, each once. */
struct arrived_list {
	int32_t v[GS_BOUND_MAX_POINTS];
	size_t n;
};

struct bound_args {
	const char *nodes;
	struct gs_opt_list pods;
	struct gs_cli_seeds seeds;
	double inflate;
	struct arrived_list arrived;
	int method;
	double time_limit_s;
	int64_t jobs;
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
	int rc = gs_parse_seeds(value, &v, &n);

	if (rc == GS_ENOMEM) {
		gs_opt_err(cmd, o, "out of memory");
		return rc;
	}
	if (rc) {
		gs_opt_err(cmd, o, "'%s' is not a list of percents and ranges such as 100 or 80-130",
			   value);
		return GS_EINVAL;
	}
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
	{ GS_OPT_STRING_AT(S, nodes), .name = "nodes", .short_name = 'n', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "cluster: openb node list, gpusim CSV or JSON" },
	{ GS_OPT_LIST_AT(S, pods, 256), .name = "pods", .short_name = 'p', .arg = "FILE...",
	  .flags = GS_OPT_REQUIRED | GS_OPT_MULTI,
	  .help = "pod traces: comma-separated, or one argument each up to the next option, "
		  "as the shell's glob gives them (--pods traces/*.csv)" },

	{ GS_OPT_GROUP_HEADING("The experiment (as gpusim replay --mode inflate runs it):") },
	{ GS_OPT_CUSTOM_AT(S, seeds, struct gs_cli_seeds, gs_cli_parse_seeds, gs_cli_seeds_release),
	  .name = "seeds", .short_name = 's', .arg = "LIST", .def = "42-51",
	  .help = "seeds and ranges, e.g. 42-51 or 1,5,7-9: the inflation's shuffle and clones" },
	{ GS_OPT_DOUBLE_AT(S, inflate, 0, GS_INFLATE_MAX), .flags = GS_OPT_GT_MIN,
	  .name = "inflate", .arg = "X", .def = "1.3",
	  .help = "inflate mode target, total GPU request / capacity, at most 100" },
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
	{ GS_OPT_INT_AT(S, jobs, 1, 1024), .name = "jobs", .short_name = 'j', .arg = "N",
	  .help = "worker threads, one (trace, seed) each (default: the number of CPUs)" },
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .def = "results/fgd.db", .conflicts = "no-db",
	  .help = "results database, the sweep's by default; bounds go beside the runs (tables "
		  "bounds, bound_points)" },
	{ GS_OPT_FLAG_AT(S, no_db), .name = "no-db", .help = "do not store the bounds" },
	{ GS_OPT_FLAG_AT(S, quiet), .name = "quiet", .short_name = 'q',
	  .help = "print no table, only the id of each bound stored, one per line" },
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

/* One (trace, seed) of the matrix and what the workers made of it. */
struct job {
	size_t trace;
	uint64_t seed;
	bool skip;                 /* already in the database */
	bool done;
	int rc;
	char err[512];
	double wall_ms;
	size_t n_arrivals;
	struct gs_bound_point *pts;
};

struct pool {
	const struct gs_cluster *c;
	const struct gs_trace *traces;
	struct gs_bound_opts opts;
	const struct arrived_list *arrived;
	struct job *jobs;
	size_t n_jobs, next;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *worker(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		struct gs_bound_opts o;
		struct job *j;
		double t0;
		size_t i;

		pthread_mutex_lock(&pl->lock);
		while (pl->next < pl->n_jobs && pl->jobs[pl->next].skip)
			pl->next++;
		if (pl->next >= pl->n_jobs) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		j = &pl->jobs[pl->next++];
		pthread_mutex_unlock(&pl->lock);

		o = pl->opts;
		o.seed = j->seed;
		for (i = 0; i < pl->arrived->n; i++)
			j->pts[i].arrived_pct = pl->arrived->v[i];
		t0 = mono_ms();
		j->rc = gs_bound_compute(pl->c, &pl->traces[j->trace], &o, j->pts, pl->arrived->n,
					 j->err, sizeof(j->err));
		j->wall_ms = mono_ms() - t0;
		j->n_arrivals = (size_t)(j->pts[pl->arrived->n - 1].n_pods);

		pthread_mutex_lock(&pl->lock);
		j->done = true;
		pthread_cond_broadcast(&pl->cond);
		pthread_mutex_unlock(&pl->lock);
	}
}

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

/* Loads the cluster and every trace; 0, or the exit status. */
static int load_inputs(const struct bound_args *a, struct gs_cluster *c, char *nodes_sha,
		       struct gs_trace *traces)
{
	char err[1024];
	size_t i;
	int rc = gs_cluster_load(a->nodes, c, nodes_sha, err, sizeof(err));

	for (i = 0; rc == 0 && i < a->pods.n; i++)
		rc = gs_trace_load(a->pods.v[i], c, &traces[i], err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	return 0;
}

int gs_cmd_bound(int argc, char **argv)
{
	struct bound_args a;
	struct gs_cluster c;
	struct gs_trace *traces = NULL;
	struct gs_db *db = NULL;
	struct pool pl;
	pthread_t *th = NULL;
	char nodes_sha[GS_SHA256_HEX], err[1024];
	char **names = NULL;
	size_t i, k, n_threads = 0;
	int status = GS_EXIT_OK, rc;
	long ncpu;

	memset(&a, 0, sizeof(a));
	memset(&pl, 0, sizeof(pl));
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	a.jobs = ncpu > 0 ? ncpu : 1;
	if (gs_opt_parse(&bound_cmd, argc, argv, &a, &status))
		return status;
	gs_cluster_init(&c);
	traces = calloc(a.pods.n, sizeof(*traces));
	names = calloc(a.pods.n, sizeof(*names));
	pl.jobs = calloc(a.pods.n * a.seeds.n, sizeof(*pl.jobs));
	if (!traces || !names || !pl.jobs) {
		fprintf(stderr, CMD ": out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < a.pods.n; i++)
		gs_trace_init(&traces[i]);
	status = load_inputs(&a, &c, nodes_sha, traces);
	if (status)
		goto out;
	if (c.share || c.gpu_milli <= 0) {
		fprintf(stderr, CMD ": %s: %s\n", a.nodes,
			c.share ? "the cluster sets GPU sharing modes; bounds are for shares as "
				  "requested (the ideal mode)"
				: "the cluster has no GPUs");
		status = GS_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < a.pods.n; i++) {
		names[i] = gs_plot_short_name(a.pods.v[i]);
		if (!names[i]) {
			fprintf(stderr, CMD ": out of memory\n");
			status = GS_EXIT_FAIL;
			goto out;
		}
	}
	if (!a.no_db && gs_db_open(a.db_path, &db, err, sizeof(err))) {
		fprintf(stderr, CMD ": %s\n", err);
		status = GS_EXIT_USAGE;
		goto out;
	}

	/* The matrix, traces then seeds; pairs the database has are skipped. */
	gs_bound_opts_init(&pl.opts);
	pl.opts.inflate = a.inflate;
	pl.opts.methods = (unsigned)a.method;
	pl.opts.exact_time_limit_s = a.time_limit_s;
	pl.c = &c;
	pl.traces = traces;
	pl.arrived = &a.arrived;
	for (i = 0; i < a.pods.n; i++) {
		for (k = 0; k < a.seeds.n; k++) {
			struct job *j = &pl.jobs[pl.n_jobs++];
			struct gs_bound_info bi;

			j->trace = i;
			j->seed = a.seeds.v[k];
			j->pts = calloc(a.arrived.n, sizeof(*j->pts));
			if (!j->pts) {
				fprintf(stderr, CMD ": out of memory\n");
				status = GS_EXIT_FAIL;
				goto out;
			}
			if (!db)
				continue;
			memset(&bi, 0, sizeof(bi));
			bi.pods_sha256 = traces[i].sha256;
			bi.nodes_sha256 = nodes_sha;
			bi.seed = j->seed;
			bi.inflate = a.inflate;
			bi.methods = pl.opts.methods;
			bi.exact_time_limit_s = a.time_limit_s;
			rc = gs_bounds_have(db, &bi, a.arrived.v, a.arrived.n, err, sizeof(err));
			if (rc < 0) {
				fprintf(stderr, CMD ": %s\n", err);
				status = GS_EXIT_FAIL;
				goto out;
			}
			j->skip = rc == 1;
		}
	}

	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.cond, NULL);
	n_threads = (size_t)a.jobs < pl.n_jobs ? (size_t)a.jobs : pl.n_jobs;
	th = calloc(n_threads + 1, sizeof(*th));
	if (!th) {
		fprintf(stderr, CMD ": out of memory\n");
		status = GS_EXIT_FAIL;
		goto destroy;
	}
	for (k = 0; k < n_threads; k++) {
		if (pthread_create(&th[k], NULL, worker, &pl)) {
			fprintf(stderr, CMD ": cannot start a thread\n");
			status = GS_EXIT_FAIL;
			break;
		}
	}
	n_threads = k;
	if (!a.quiet)
		print_header();
	/* Store and print in matrix order as the workers finish. */
	for (i = 0; i < pl.n_jobs && n_threads; i++) {
		struct job *j = &pl.jobs[i];
		struct gs_bound_info bi;
		int64_t id = 0;

		if (j->skip) {
			if (!a.quiet)
				printf("%-14s %5llu  already in %s\n", names[j->trace],
				       (unsigned long long)j->seed, a.db_path);
			continue;
		}
		pthread_mutex_lock(&pl.lock);
		while (!j->done)
			pthread_cond_wait(&pl.cond, &pl.lock);
		pthread_mutex_unlock(&pl.lock);
		if (j->rc) {
			fprintf(stderr, CMD ": %s, seed %llu: %s\n", a.pods.v[j->trace],
				(unsigned long long)j->seed, j->err);
			if (status == GS_EXIT_OK)
				status = j->rc == GS_EINVAL || j->rc == GS_ERANGE ? GS_EXIT_USAGE
										  : GS_EXIT_FAIL;
			continue;
		}
		if (db) {
			memset(&bi, 0, sizeof(bi));
			bi.pods_path = a.pods.v[j->trace];
			bi.pods_sha256 = traces[j->trace].sha256;
			bi.nodes_path = a.nodes;
			bi.nodes_sha256 = nodes_sha;
			bi.seed = j->seed;
			bi.inflate = a.inflate;
			bi.methods = pl.opts.methods;
			bi.exact_time_limit_s = a.time_limit_s;
			bi.n_nodes = c.n_nodes;
			bi.gpu_milli = c.gpu_milli;
			bi.n_arrivals = (int64_t)j->n_arrivals;
			bi.wall_ms = j->wall_ms;
			if (gs_bounds_write(db, &bi, j->pts, a.arrived.n, &id, err, sizeof(err))) {
				fprintf(stderr, CMD ": %s\n", err);
				status = GS_EXIT_FAIL;
				continue;
			}
		}
		if (a.quiet) {
			if (db)
				printf("%lld\n", (long long)id);
			continue;
		}
		for (k = 0; k < a.arrived.n; k++)
			print_point(names[j->trace], j->seed, &j->pts[k], c.gpu_milli);
	}
	for (k = 0; k < n_threads; k++)
		pthread_join(th[k], NULL);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, CMD ": cannot write the output\n");
		status = GS_EXIT_FAIL;
	}
destroy:
	pthread_mutex_destroy(&pl.lock);
	pthread_cond_destroy(&pl.cond);
out:
	free(th);
	for (i = 0; pl.jobs && i < pl.n_jobs; i++)
		free(pl.jobs[i].pts);
	free(pl.jobs);
	for (i = 0; names && i < a.pods.n; i++)
		free(names[i]);
	free(names);
	for (i = 0; traces && i < a.pods.n; i++)
		gs_trace_release(&traces[i]);
	free(traces);
	gs_cluster_release(&c);
	gs_db_close(db);
	gs_opt_release(&bound_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_bound_specs[] = { &bound_cmd, NULL };
