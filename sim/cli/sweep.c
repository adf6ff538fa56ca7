/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.c - the run matrix of `gpusim sweep` (see sweep.h).
 *
 * The cluster and the traces are loaded once and shared read-only by the
 * workers; each worker builds its own struct gs_sim per run and writes
 * through its own database connection (results.h: WAL mode, one writer at
 * a time, each run one transaction). Jobs are handed out by index under a
 * mutex, so the results do not depend on which thread ran what.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "core/grow.h"
#include "cli/progress.h"
#include "store/results.h"
#include "cli/sweep.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"

#define ERR(...)                                             \
	do {                                                 \
		if (err && err_len)                          \
			snprintf(err, err_len, __VA_ARGS__); \
	} while (0)

/* What the workers share. Everything but the marked fields is read-only. */
struct shared {
	const struct gs_sweep_spec *spec;
	const struct gs_cluster *clusters;   /* [trace] */
	const struct gs_trace *traces;       /* [trace] */
	const char *params;
	const char *nodes_sha;
	const size_t *todo;                  /* cell indices to run */
	size_t n_todo;

	pthread_mutex_t lock;
	/* Under lock: */
	size_t next, done;
	int rc;                              /* first failure */
	char err[1024];
	struct gs_sweep_cell *cells;
	struct gs_progress bar;
};

static double elapsed_s(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Runs one cell; returns 0 or an error with a message in err. */
static int run_cell(struct shared *sh, struct gs_db *db, size_t cell, struct gs_sweep_cell *out,
		    char *err, size_t err_len)
{
	const struct gs_sweep_spec *spec = sh->spec;
	size_t seed_i = cell % spec->n_seeds;
	size_t pol_i = cell / spec->n_seeds % spec->n_policies;
	size_t tr_i = cell / spec->n_seeds / spec->n_policies;
	const struct gs_policy *pol = spec->policies[pol_i];
	struct gs_replay_opts opts = spec->opts;
	struct gs_run_info ri;
	struct gs_summary sum;
	struct gs_sim sim;
	struct timespec t0, t1;
	char msg[768];
	int rc;

	opts.seed = spec->seeds[seed_i];
	opts.progress = NULL;
	opts.progress_arg = NULL;
	memset(&ri, 0, sizeof(ri));
	clock_gettime(CLOCK_REALTIME, &ri.started_at);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = gs_sim_init(&sim, &sh->clusters[tr_i], &sh->traces[tr_i], pol, &opts, msg,
			 sizeof(msg));
	if (rc) {
		ERR("%s, %s, seed %llu: %s", spec->pods_paths[tr_i], pol->name,
		    (unsigned long long)opts.seed, msg);
		return rc;
	}
	rc = gs_sim_run(&sim, msg, sizeof(msg));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_REALTIME, &ri.ended_at);
	if (rc) {
		ERR("%s, %s, seed %llu: %s", spec->pods_paths[tr_i], pol->name,
		    (unsigned long long)opts.seed, msg);
		gs_sim_release(&sim);
		return rc;
	}
	ri.policy = pol->name;
	ri.mode = opts.mode == GS_MODE_INFLATE ? "inflate" : "time";
	ri.seed = opts.seed;
	ri.nodes_path = spec->nodes_path;
	ri.nodes_sha256 = sh->nodes_sha;
	ri.pods_path = spec->pods_paths[tr_i];
	ri.pods_sha256 = sh->traces[tr_i].sha256;
	ri.params_json = sh->params;
	ri.wall_ms = 1e3 * elapsed_s(&t0, &t1);
	ri.no_pods = spec->no_pods;
	rc = gs_db_write_run(db, &ri, &sim, &out->run_id, msg, sizeof(msg));
	if (rc) {
		ERR("%s", msg);
		gs_sim_release(&sim);
		return rc;
	}
	gs_sim_summarize(&sim, &sum);
	out->unalloc_gpu_pct = sum.unalloc_gpu_pct;
	out->wall_ms = ri.wall_ms;
	out->skipped = false;
	gs_sim_release(&sim);
	return 0;
}

static void *worker(void *arg)
{
	struct shared *sh = arg;
	struct gs_db *db = NULL;
	char err[1024];
	int rc;

	rc = gs_db_open(sh->spec->db_path, &db, err, sizeof(err));
	if (rc) {
		pthread_mutex_lock(&sh->lock);
		if (!sh->rc) {
			sh->rc = rc;
			snprintf(sh->err, sizeof(sh->err), "%s", err);
		}
		pthread_mutex_unlock(&sh->lock);
		return NULL;
	}
	for (;;) {
		struct gs_sweep_cell cell;
		size_t job;

		pthread_mutex_lock(&sh->lock);
		if (sh->rc || sh->next == sh->n_todo) {
			pthread_mutex_unlock(&sh->lock);
			break;
		}
		job = sh->todo[sh->next++];
		pthread_mutex_unlock(&sh->lock);

		memset(&cell, 0, sizeof(cell));
		rc = run_cell(sh, db, job, &cell, err, sizeof(err));

		pthread_mutex_lock(&sh->lock);
		if (rc) {
			if (!sh->rc) {
				sh->rc = rc;
				snprintf(sh->err, sizeof(sh->err), "%s", err);
			}
		} else {
			sh->cells[job] = cell;
			sh->done++;
			gs_progress_update(&sh->bar, sh->done);
		}
		pthread_mutex_unlock(&sh->lock);
		if (rc)
			break;
	}
	gs_db_close(db);
	return NULL;
}

/* "dir/openb_pod_list_default.csv" -> "openb_pod_list_default". */
static char *trace_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name, *dot;

	name = strdup(base ? base + 1 : path);
	if (name && (dot = strrchr(name, '.')) && dot != name)
		*dot = '\0';
	return name;
}

void gs_sweep_release(struct gs_sweep *s)
{
	size_t i;

	if (s->trace_names)
		for (i = 0; i < s->n_traces; i++)
			free(s->trace_names[i]);
	free(s->trace_names);
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

/* Loads the cluster and the traces, each trace against its own copy of the cluster. */
static int load_inputs(const struct gs_sweep_spec *spec, struct gs_cluster *clusters,
		       struct gs_trace *traces, char nodes_sha[GS_SHA256_HEX], char *err,
		       size_t err_len)
{
	struct gs_cluster proto;
	size_t t;
	int rc;

	gs_cluster_init(&proto);
	rc = gs_cluster_load(spec->nodes_path, &proto, nodes_sha, err, err_len);
	for (t = 0; rc == 0 && t < spec->n_traces; t++) {
		rc = gs_cluster_copy(&clusters[t], &proto);
		if (rc) {
			ERR("out of memory");
			break;
		}
		rc = gs_trace_load(spec->pods_paths[t], &clusters[t], &traces[t], err, err_len);
	}
	gs_cluster_release(&proto);
	return rc;
}

int gs_sweep_run(const struct gs_sweep_spec *spec, struct gs_sweep *out, char *err,
		 size_t err_len)
{
	struct gs_cluster *clusters = NULL;
	struct gs_trace *traces = NULL;
	struct gs_db *db = NULL;
	struct shared sh;
	pthread_t *threads = NULL;
	size_t *todo = NULL, n_cells, i, n_todo = 0;
	char nodes_sha[GS_SHA256_HEX], *params = NULL;
	struct timespec t0, t1;
	int rc = 0, n_threads = 0, k;

	memset(out, 0, sizeof(*out));
	memset(&sh, 0, sizeof(sh));
	if (!spec->nodes_path || !spec->db_path || spec->n_traces == 0 || spec->n_policies == 0 ||
	    spec->n_seeds == 0 || spec->jobs < 1) {
		ERR("a sweep needs a cluster, a database, at least one trace, policy and seed, "
		    "and at least one job");
		return GS_EINVAL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n_cells = spec->n_traces * spec->n_policies * spec->n_seeds;
	clusters = calloc(spec->n_traces, sizeof(*clusters));
	traces = calloc(spec->n_traces, sizeof(*traces));
	out->cells = calloc(n_cells, sizeof(*out->cells));
	out->trace_names = calloc(spec->n_traces, sizeof(*out->trace_names));
	todo = malloc(n_cells * sizeof(*todo));
	if (!clusters || !traces || !out->cells || !out->trace_names || !todo) {
		ERR("out of memory");
		rc = GS_ENOMEM;
		goto done;
	}
	out->n_traces = spec->n_traces;
	out->n_policies = spec->n_policies;
	out->n_seeds = spec->n_seeds;
	for (i = 0; i < spec->n_traces; i++) {
		gs_cluster_init(&clusters[i]);
		gs_trace_init(&traces[i]);
		out->trace_names[i] = trace_name(spec->pods_paths[i]);
		if (!out->trace_names[i]) {
			ERR("out of memory");
			rc = GS_ENOMEM;
			goto done;
		}
	}
	rc = load_inputs(spec, clusters, traces, nodes_sha, err, err_len);
	if (rc)
		goto done;
	rc = gs_replay_params_json(&spec->opts, &params);
	if (rc) {
		ERR("out of memory");
		goto done;
	}
	rc = gs_db_open(spec->db_path, &db, err, err_len);
	if (rc)
		goto done;

	/* Resume: a cell with a complete run under the same key is not run again. */
	for (i = 0; i < n_cells; i++) {
		struct gs_sweep_cell *c = &out->cells[i];
		size_t s_i = i % spec->n_seeds, p_i = i / spec->n_seeds % spec->n_policies;
		size_t t_i = i / spec->n_seeds / spec->n_policies;
		struct gs_run_row row;

		c->unalloc_gpu_pct = c->wall_ms = NAN;
		rc = gs_db_find_run(db, spec->policies[p_i]->name, traces[t_i].sha256, nodes_sha,
				    spec->seeds[s_i], params, &c->run_id);
		if (rc == GS_ENOENT) {
			todo[n_todo++] = i;
			continue;
		}
		if (rc) {
			ERR("%s: cannot look up earlier runs: %s", spec->db_path, gs_strerror(rc));
			goto done;
		}
		rc = gs_db_get_run(db, c->run_id, &row, err, err_len);
		if (rc)
			goto done;
		c->unalloc_gpu_pct = row.unalloc_gpu_pct;
		c->skipped = true;
		gs_run_row_release(&row);
		out->n_skipped++;
	}
	rc = 0;

	sh.spec = spec;
	sh.clusters = clusters;
	sh.traces = traces;
	sh.params = params;
	sh.nodes_sha = nodes_sha;
	sh.todo = todo;
	sh.n_todo = n_todo;
	sh.cells = out->cells;
	pthread_mutex_init(&sh.lock, NULL);
	gs_progress_init(&sh.bar, spec->progress, "sweep", n_todo);
	n_threads = spec->jobs < (int)n_todo ? spec->jobs : (int)n_todo;
	threads = calloc(n_threads ? (size_t)n_threads : 1, sizeof(*threads));
	if (!threads) {
		ERR("out of memory");
		rc = GS_ENOMEM;
		pthread_mutex_destroy(&sh.lock);
		goto done;
	}
	for (k = 0; k < n_threads; k++) {
		if (pthread_create(&threads[k], NULL, worker, &sh)) {
			pthread_mutex_lock(&sh.lock);
			if (!sh.rc) {
				sh.rc = GS_ENOMEM;
				snprintf(sh.err, sizeof(sh.err), "cannot start worker thread: %s",
					 strerror(errno));
			}
			pthread_mutex_unlock(&sh.lock);
			break;
		}
	}
	n_threads = k;
	for (k = 0; k < n_threads; k++)
		pthread_join(threads[k], NULL);
	if (sh.rc == 0)
		gs_progress_done(&sh.bar);
	else if (sh.bar.on)
		fputc('\n', spec->progress);
	pthread_mutex_destroy(&sh.lock);
	out->n_ran = sh.done;
	rc = sh.rc;
	if (rc)
		ERR("%s", sh.err);

done:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->wall_s = elapsed_s(&t0, &t1);
	gs_db_close(db);
	free(threads);
	free(todo);
	free(params);
	if (traces)
		for (i = 0; i < spec->n_traces; i++)
			gs_trace_release(&traces[i]);
	if (clusters)
		for (i = 0; i < spec->n_traces; i++)
			gs_cluster_release(&clusters[i]);
	free(traces);
	free(clusters);
	if (rc)
		gs_sweep_release(out);
	return rc;
}

void gs_sweep_stats(const struct gs_sweep *s, size_t trace, size_t policy, double *mean_out,
		    double *sd_out, size_t *n_out)
{
	double *v = malloc((s->n_seeds ? s->n_seeds : 1) * sizeof(*v));
	size_t i, n = 0;

	*mean_out = *sd_out = NAN;
	*n_out = 0;
	if (!v)
		return;
	for (i = 0; i < s->n_seeds; i++) {
		double x = gs_sweep_cell_at(s, trace, policy, i)->unalloc_gpu_pct;

		if (!isnan(x))
			v[n++] = x;
	}
	if (n > 0)
		*mean_out = gsl_stats_mean(v, 1, n);
	if (n > 1)
		*sd_out = gsl_stats_sd(v, 1, n);
	*n_out = n;
	free(v);
}

void gs_sweep_print_summary(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s)
{
	size_t t, p, width = strlen("TRACE");

	for (t = 0; t < s->n_traces; t++)
		if (strlen(s->trace_names[t]) > width)
			width = strlen(s->trace_names[t]);
	fprintf(f, "%-*s  %-14s %5s  %8s  %6s\n", (int)width, "TRACE", "POLICY", "RUNS", "UNALLOC%",
		"SD");
	for (t = 0; t < s->n_traces; t++) {
		for (p = 0; p < s->n_policies; p++) {
			double mean, sd;
			size_t n;

			gs_sweep_stats(s, t, p, &mean, &sd, &n);
			fprintf(f, "%-*s  %-14s %5zu  ", (int)width, s->trace_names[t],
				spec->policies[p]->name, n);
			if (isnan(mean))
				fprintf(f, "%8s  %6s\n", "-", "-");
			else if (isnan(sd))
				fprintf(f, "%8.2f  %6s\n", mean, "-");
			else
				fprintf(f, "%8.2f  %6.2f\n", mean, sd);
		}
	}
}

int gs_parse_seeds(const char *text, uint64_t **seeds_out, size_t *n_out)
{
	uint64_t *seeds = NULL;
	size_t n = 0, cap = 0;
	const char *s = text;

	if (!text || !*text)
		return GS_EINVAL;
	for (;;) {
		unsigned long long lo, hi;
		char *end;

		if (*s < '0' || *s > '9')
			goto bad;
		errno = 0;
		lo = strtoull(s, &end, 10);
		if (errno || lo > INT64_MAX)
			goto bad;
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				goto bad;
			hi = strtoull(s, &end, 10);
			if (errno || hi < lo || hi > INT64_MAX)
				goto bad;
			s = end;
		}
		if (hi - lo >= 100000 || n + (size_t)(hi - lo) + 1 > 100000)
			goto bad;
		for (; lo <= hi; lo++) {
			uint64_t *g = gs_grow(seeds, &cap, n, sizeof(*g), 16);

			if (!g) {
				free(seeds);
				return GS_ENOMEM;
			}
			seeds = g;
			seeds[n++] = lo;
			if (lo == hi)
				break;
		}
		if (*s == '\0')
			break;
		if (*s != ',')
			goto bad;
		s++;
	}
	*seeds_out = seeds;
	*n_out = n;
	return 0;
bad:
	free(seeds);
	return GS_EINVAL;
}
