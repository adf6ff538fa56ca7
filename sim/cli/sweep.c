/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.c - the run matrix of `gpusim sweep` (see sweep.h).
 *
 * The cluster and the traces are loaded once and shared read-only by the
 * workers; each worker builds its own struct gs_sim per run, and the
 * workers write through their own database connections (results.h: WAL
 * mode, one writer at a time, each run one transaction). Jobs are handed out by index under a
 * mutex, so the results do not depend on which thread ran what. The
 * workers also take turns at writing under a mutex of their own: SQLite
 * makes a connection that finds the write lock taken sleep and retry (1,
 * 2, 5 ms and longer), while a mutex hands the turn over at once. Other
 * processes on the same database still wait through SQLite.
 *
 * Runs are stored in plan order, whatever the number of workers and however
 * long each run takes, so that a sweep on a fresh database gives every run
 * the same id every time. Jobs are taken in plan order, each into a slot of
 * a ring of 2 x workers; a finished run waits in its slot until every job
 * taken before it is resolved (stored, found done, claimed elsewhere or
 * failed), and whichever worker finds the oldest slot ready stores the
 * ready ones in order (one drainer at a time, one transaction per run). A
 * worker takes no job beyond the ring's size ahead of the oldest
 * unresolved one, so at most 2 x workers simulations are alive at once.
 *
 * Interruption (spec->on_signals): the first SIGINT or SIGTERM only sets
 * stop_sig. Workers then take no new job, the runs in progress stop at
 * their next event (the engine watches the flag; a big trace would take
 * long to finish) and count as resolved with nothing to store, and the
 * ready runs are stored as usual, including those after a cut one: no
 * finished run is thrown away, at the price of plan order on resume (the
 * cut runs get the next ids then). A fresh sweep that is not interrupted
 * still numbers its runs in plan order. The handler is installed with
 * SA_RESETHAND, so a second signal has the default action and kills.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "core/grow.h"
#include "cli/progress.h"
#include "store/plan.h"
#include "store/results.h"
#include "cli/sweep.h"
#include "io/k8s/build.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"

/*
 * The first SIGINT or SIGTERM while a sweep runs with spec->on_signals, 0
 * until then. Process-wide, as signals are; gs_sweep_run() clears it.
 */
static volatile sig_atomic_t stop_sig;

/* Async-signal-safe: only notes the signal (SA_RESETHAND makes the next one kill). */
static void on_stop_signal(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

/* What the workers share. Everything but the marked fields is read-only. */
struct shared {
	const struct gs_sweep_spec *spec;
	const struct gs_cluster *clusters;   /* [trace] */
	const struct gs_trace *traces;       /* [trace] */
	char *const *params;                 /* [setting] */
	const char *nodes_sha;
	const size_t *todo;                  /* cell indices to run */
	size_t n_todo;
	const char *owner;                   /* this process, for run claims */

	pthread_mutex_t write_lock;          /* one worker writes at a time */
	pthread_mutex_t lock;
	pthread_cond_t turn;                 /* stored advanced, or a failure */
	/* Under lock: */
	size_t next, done, seen;
	size_t stored;                       /* jobs [0, stored) resolved: the ring's tail */
	size_t abandoned;                    /* runs cut short by a signal */
	bool draining;                       /* a worker is storing the ready slots */
	bool write_failed;                   /* a store failed: store no more */
	struct slot *slots;                  /* [window], job j in slots[j % window] */
	size_t window;
	int rc;                              /* first failure */
	char err[1024];
	struct gs_sweep_cell *cells;
	struct gs_progress bar;
};

/* What a slot of the reorder ring holds (struct shared). */
enum slot_state {
	SLOT_FREE = 0,
	SLOT_BUSY,       /* its worker is claiming or running it */
	SLOT_RUN,        /* a finished run, to be stored */
	SLOT_NOTHING,    /* found done or claimed elsewhere: its cell is final */
	SLOT_FAILED,     /* the run failed: nothing to store */
	SLOT_CUT,        /* cut short by a signal: nothing to store, its claim goes */
};

/* One job of the reorder ring; the simulation lives here until it is stored. */
struct slot {
	enum slot_state state;
	size_t cell;                         /* index in the matrix */
	struct gs_sweep_cell out;
	struct gs_run_info ri;
	struct gs_sim sim;                   /* alive in SLOT_RUN */
};

/* Whether the sweep was told to stop. */
static bool stopping(const struct shared *sh)
{
	return sh->spec->on_signals && stop_sig != 0;
}

static double elapsed_s(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The indices of a cell (see struct gs_sweep). */
struct cell_ix {
	size_t trace, policy, setting, seed;
};

/* Loads or scales per sharing mode. */
static size_t n_numbers(const struct gs_sweep_spec *spec)
{
	return spec->n_loads ? spec->n_loads : spec->n_scales ? spec->n_scales : 1;
}

static size_t n_settings(const struct gs_sweep_spec *spec)
{
	return n_numbers(spec) * (spec->n_sharings ? spec->n_sharings : 1);
}

static struct cell_ix cell_ix(const struct gs_sweep_spec *spec, size_t cell)
{
	struct cell_ix x;
	size_t n_set = n_settings(spec);

	x.seed = cell % spec->n_seeds;
	cell /= spec->n_seeds;
	x.setting = cell % n_set;
	cell /= n_set;
	x.policy = cell % spec->n_policies;
	x.trace = cell / spec->n_policies;
	return x;
}

/* The options of setting k. */
static struct gs_replay_opts setting_opts(const struct gs_sweep_spec *spec, size_t k)
{
	struct gs_replay_opts o = spec->opts;
	size_t num = k % n_numbers(spec);

	if (spec->n_loads)
		o.load_pct = spec->loads[num];
	else if (spec->n_scales)
		o.time_scale = spec->scales[num];
	if (spec->n_sharings)
		o.sharing = spec->sharings[k / n_numbers(spec)];
	return o;
}

static void fill_figs(struct gs_sweep_cell *c, const struct gs_summary *s)
{
	c->fig[GS_SWEEP_UNALLOC] = s->unalloc_gpu_pct;
	c->fig[GS_SWEEP_WAIT_MEAN] = s->tm.valid ? s->tm.wait_mean_s : NAN;
	c->fig[GS_SWEEP_WAIT_P99] = s->tm.wait_p99_s;
	c->fig[GS_SWEEP_COMPL_MEAN] = s->tm.completion_mean_s;
	c->fig[GS_SWEEP_COMPL_P99] = s->tm.completion_p99_s;
	c->fig[GS_SWEEP_SLOWDOWN] = s->tm.slowdown_mean;
	c->fig[GS_SWEEP_ALLOC] = s->gpu_alloc_pct;
	c->fig[GS_SWEEP_USEFUL] = s->eff_util_pct;
	c->fig[GS_SWEEP_OOM] = (double)s->oversubscribed;
	c->fig[GS_SWEEP_FAILED] = (double)s->failed;
	c->fig[GS_SWEEP_PENDING] = (double)s->pending;
}

static void fill_figs_row(struct gs_sweep_cell *c, const struct gs_run_row *r)
{
	c->fig[GS_SWEEP_UNALLOC] = r->unalloc_gpu_pct;
	c->fig[GS_SWEEP_WAIT_MEAN] = strcmp(r->mode, "time") == 0 ? r->mean_wait_s : NAN;
	c->fig[GS_SWEEP_WAIT_P99] = r->wait_p99_s;
	c->fig[GS_SWEEP_COMPL_MEAN] = r->completion_mean_s;
	c->fig[GS_SWEEP_COMPL_P99] = r->completion_p99_s;
	c->fig[GS_SWEEP_SLOWDOWN] = r->slowdown_mean;
	c->fig[GS_SWEEP_ALLOC] = r->gpu_alloc_pct;
	c->fig[GS_SWEEP_USEFUL] = r->eff_util_pct;
	c->fig[GS_SWEEP_OOM] = r->n_oversubscribed;
	c->fig[GS_SWEEP_FAILED] = (double)r->n_failed;
	c->fig[GS_SWEEP_PENDING] = (double)(r->n_pods - r->n_placed - r->n_failed);
}

/*
 * Runs one cell into slot sl (sl->sim, sl->ri and the figures of sl->out),
 * without storing it: store_slot() does. Returns 0, with sl->sim alive, or
 * an error with a message in err and nothing alive.
 */
static int run_cell(struct shared *sh, size_t cell, struct slot *sl, char *err, size_t err_len)
{
	const struct gs_sweep_spec *spec = sh->spec;
	struct cell_ix x = cell_ix(spec, cell);
	size_t seed_i = x.seed, tr_i = x.trace;
	const struct gs_policy *pol = spec->policies[x.policy];
	struct gs_replay_opts opts = setting_opts(spec, x.setting);
	struct gs_run_info *ri = &sl->ri;
	struct gs_summary sum;
	struct timespec t0, t1;
	char msg[768];
	int rc;

	opts.seed = spec->seeds[seed_i];
	opts.progress = NULL;
	opts.progress_arg = NULL;
	opts.stop = spec->on_signals ? &stop_sig : NULL;
	memset(ri, 0, sizeof(*ri));
	clock_gettime(CLOCK_REALTIME, &ri->started_at);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = gs_sim_init(&sl->sim, &sh->clusters[tr_i], &sh->traces[tr_i], pol, &opts, msg,
			 sizeof(msg));
	if (rc) {
		gs_errf(err, err_len, "%s, %s, seed %llu: %s", spec->pods_paths[tr_i], pol->name,
			(unsigned long long)opts.seed, msg);
		return rc;
	}
	rc = gs_sim_run(&sl->sim, msg, sizeof(msg));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_REALTIME, &ri->ended_at);
	if (rc) {
		gs_errf(err, err_len, "%s, %s, seed %llu: %s", spec->pods_paths[tr_i], pol->name,
			(unsigned long long)opts.seed, msg);
		gs_sim_release(&sl->sim);
		return rc;
	}
	ri->policy = pol->name;
	ri->mode = opts.mode == GS_MODE_INFLATE ? "inflate" : "time";
	ri->seed = opts.seed;
	ri->nodes_path = spec->nodes_path;
	ri->nodes_sha256 = sh->nodes_sha;
	ri->pods_path = spec->pods_paths[tr_i];
	ri->pods_sha256 = sh->traces[tr_i].sha256;
	ri->params_json = sh->params[x.setting];
	ri->wall_ms = 1e3 * elapsed_s(&t0, &t1);
	ri->no_pods = spec->no_pods;
	ri->arrival_samples = spec->arrival_samples;
	gs_sim_summarize(&sl->sim, &sum);
	fill_figs(&sl->out, &sum);
	sl->out.wall_ms = ri->wall_ms;
	sl->out.skipped = false;
	return 0;
}

/*
 * Stores the run run_cell() left in sl, in one transaction through db, and
 * releases its simulation either way. Returns 0 (sl->out.run_id set) or an
 * error with a message in err.
 */
static int store_slot(struct shared *sh, struct gs_db *db, struct slot *sl, char *err,
		      size_t err_len)
{
	char msg[768];
	int rc;

	pthread_mutex_lock(&sh->write_lock);
	rc = gs_db_write_run(db, &sl->ri, &sl->sim, &sl->out.run_id, msg, sizeof(msg));
	pthread_mutex_unlock(&sh->write_lock);
	if (rc)
		gs_errf(err, err_len, "%s", msg);
	gs_sim_release(&sl->sim);
	return rc;
}

/* The key of cell i, as the plan and the claims spell it. */
static struct gs_plan_cell plan_cell(const struct gs_sweep_spec *spec, const struct gs_trace *traces,
				     const char *nodes_sha, char *const *params, size_t i)
{
	struct cell_ix x = cell_ix(spec, i);
	struct gs_plan_cell c;

	c.policy = spec->policies[x.policy]->name;
	c.pods_path = spec->pods_paths[x.trace];
	c.pods_sha256 = traces[x.trace].sha256;
	c.nodes_path = spec->nodes_path;
	c.nodes_sha256 = nodes_sha;
	c.params_json = params[x.setting];
	c.seed = spec->seeds[x.seed];
	return c;
}

/*
 * Claims cell i before running it (store/plan.h). Returns GS_CLAIM_OURS
 * to run it; GS_CLAIM_DONE with *out filled from the run another sweep
 * stored meanwhile; GS_CLAIM_TAKEN with *out marked elsewhere; or an
 * error with a message in err.
 */
static int claim_cell(struct shared *sh, struct gs_db *db, size_t i, struct gs_sweep_cell *out,
		      char *err, size_t err_len)
{
	struct gs_plan_cell key = plan_cell(sh->spec, sh->traces, sh->nodes_sha, sh->params, i);
	struct gs_run_row row;
	int f, rc;

	for (f = 0; f < GS_SWEEP_N_FIGS; f++)
		out->fig[f] = NAN;
	out->wall_ms = NAN;
	pthread_mutex_lock(&sh->write_lock);
	rc = gs_db_claim(db, &key, sh->owner, sh->spec->claim_timeout_s, &out->run_id, err,
			 err_len);
	pthread_mutex_unlock(&sh->write_lock);
	if (rc == GS_CLAIM_TAKEN) {
		out->elsewhere = true;
		out->run_id = -1;
	} else if (rc == GS_CLAIM_DONE) {
		int r = gs_db_get_run(db, out->run_id, &row, err, err_len);

		if (r)
			return r;
		fill_figs_row(out, &row);
		gs_run_row_release(&row);
		out->skipped = true;
	}
	return rc;
}

/*
 * The runs another sweep on the database was running when their turn came:
 * wait until it stores them (then report them like runs found done), or
 * run them here if it let them go (it stopped, or died), so that the
 * sweep ends with its matrix complete. Checks twice a second.
 */
static int wait_elsewhere(struct shared *sh, struct gs_db *db, char *err, size_t err_len)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 500 * 1000 * 1000 };
	size_t n_cells = sh->spec->n_traces * sh->spec->n_policies * n_settings(sh->spec) *
			 sh->spec->n_seeds;
	size_t i, left;
	bool told = false;
	int rc;

	for (;;) {
		left = 0;
		for (i = 0; i < n_cells; i++) {
			struct gs_sweep_cell cell;

			if (stopping(sh))
				return 0;
			if (!sh->cells[i].elsewhere)
				continue;
			memset(&cell, 0, sizeof(cell));
			rc = claim_cell(sh, db, i, &cell, err, err_len);
			if (rc == GS_CLAIM_OURS) {
				/* The workers are gone: the ring is free, one slot will do. */
				struct slot *sl = &sh->slots[0];

				memset(&sl->out, 0, sizeof(sl->out));
				rc = run_cell(sh, i, sl, err, err_len);
				if (rc == GS_EINTR && stopping(sh)) {
					sh->abandoned++;
					return 0;
				}
				if (rc)
					return rc;
				rc = store_slot(sh, db, sl, err, err_len);
				if (rc)
					return rc;
				cell = sl->out;
				sh->done++;
			} else if (rc < 0) {
				return rc;
			}
			sh->cells[i] = cell;
			left += cell.elsewhere;
		}
		if (!left)
			return 0;
		if (!told && sh->spec->progress) {
			fprintf(sh->spec->progress, "gpusim sweep: waiting for %zu runs another sweep "
				"on %s is running\n", left, sh->spec->db_path);
			told = true;
		}
		nanosleep(&pause, NULL);
	}
}

/* Records the first failure (under sh->lock) and wakes the workers waiting for a turn. */
static void fail_locked(struct shared *sh, int rc, const char *err)
{
	if (!sh->rc) {
		sh->rc = rc;
		snprintf(sh->err, sizeof(sh->err), "%s", err);
	}
	pthread_cond_broadcast(&sh->turn);
}

/*
 * Called under sh->lock by a worker whose job is resolved: unless another
 * worker is at it, stores the ready slots at the ring's tail in plan order
 * through this worker's db, dropping sh->lock while each run is written,
 * and frees them. A failed store stops the storing of any later run (their
 * simulations are released) and fails the sweep.
 */
static void drain_locked(struct shared *sh, struct gs_db *db)
{
	char err[1024];

	if (sh->draining)
		return;
	sh->draining = true;
	while (sh->stored < sh->next) {
		struct slot *sl = &sh->slots[sh->stored % sh->window];

		if (sl->state == SLOT_BUSY)
			break;
		if (sl->state == SLOT_RUN) {
			int rc = 0;

			if (sh->write_failed) {
				gs_sim_release(&sl->sim);
			} else {
				pthread_mutex_unlock(&sh->lock);
				rc = store_slot(sh, db, sl, err, sizeof(err));
				pthread_mutex_lock(&sh->lock);
			}
			if (rc) {
				sh->write_failed = true;
				fail_locked(sh, rc, err);
			} else if (!sh->write_failed) {
				sh->cells[sl->cell] = sl->out;
				sh->done++;
			}
		} else if (sl->state == SLOT_NOTHING) {
			sh->cells[sl->cell] = sl->out;
		} else if (sl->state == SLOT_CUT) {
			sh->cells[sl->cell].run_id = -1;
			sh->abandoned++;
		}
		sl->state = SLOT_FREE;
		sh->stored++;
		pthread_cond_broadcast(&sh->turn);
	}
	sh->draining = false;
}

static void *worker(void *arg)
{
	struct shared *sh = arg;
	struct gs_db *db = NULL;
	char err[1024];
	int rc;

	rc = gs_db_open(sh->spec->db_path, &db, err, sizeof(err));
	pthread_mutex_lock(&sh->lock);
	if (rc) {
		fail_locked(sh, rc, err);
		pthread_mutex_unlock(&sh->lock);
		return NULL;
	}
	for (;;) {
		struct slot *sl;
		size_t job;
		bool cut;

		/*
		 * Never more than the ring ahead of the oldest job not yet stored.
		 * A signal handler cannot wake us: look at the flag every 100 ms.
		 */
		while (!sh->rc && !stopping(sh) && sh->next < sh->n_todo &&
		       sh->next - sh->stored >= sh->window) {
			if (sh->spec->on_signals) {
				struct timespec until;

				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += 100 * 1000 * 1000;
				if (until.tv_nsec >= 1000 * 1000 * 1000) {
					until.tv_sec++;
					until.tv_nsec -= 1000 * 1000 * 1000;
				}
				pthread_cond_timedwait(&sh->turn, &sh->lock, &until);
			} else {
				pthread_cond_wait(&sh->turn, &sh->lock);
			}
		}
		if (sh->rc || stopping(sh) || sh->next == sh->n_todo)
			break;
		sl = &sh->slots[sh->next % sh->window];
		job = sh->todo[sh->next++];
		sl->state = SLOT_BUSY;
		sl->cell = job;
		pthread_mutex_unlock(&sh->lock);

		memset(&sl->out, 0, sizeof(sl->out));
		rc = claim_cell(sh, db, job, &sl->out, err, sizeof(err));
		if (rc == GS_CLAIM_OURS)
			rc = run_cell(sh, job, sl, err, sizeof(err));
		else if (rc > 0)
			rc = 1; /* found done or claimed elsewhere: nothing to run */

		pthread_mutex_lock(&sh->lock);
		cut = rc == GS_EINTR && stopping(sh);
		if (cut) {
			sl->state = SLOT_CUT;
		} else if (rc < 0) {
			sl->state = SLOT_FAILED;
			fail_locked(sh, rc, err);
		} else {
			sl->state = rc == 0 ? SLOT_RUN : SLOT_NOTHING;
			sh->seen++;
			gs_progress_update(&sh->bar, sh->seen);
		}
		drain_locked(sh, db);
		if (rc < 0 && !cut)
			break;
	}
	pthread_mutex_unlock(&sh->lock);
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
	free(s->settings);
	memset(s, 0, sizeof(*s));
}

/*
 * A snapshot's cluster and pending pods (--state): each trace is a copy of
 * the queue, then its pods file's pods. The snapshot and its state stay
 * the caller's: the clusters' DRA states borrow them.
 */
static int load_state(const struct gs_sweep_spec *spec, struct gs_cluster *clusters,
		      struct gs_trace *traces, struct gs_k8s_snapshot **snap,
		      struct gs_k8s_state **kst, char nodes_sha[GS_SHA256_HEX], char *err,
		      size_t err_len)
{
	struct gs_cluster proto;
	struct gs_trace queue, extra;
	size_t t, i;
	int rc;

	gs_cluster_init(&proto);
	gs_trace_init(&queue);
	rc = gs_k8s_load(spec->state_paths, spec->n_state, snap, &proto, &queue, kst, err,
			 err_len);
	if (rc == 0)
		memcpy(nodes_sha, (*snap)->sha256, GS_SHA256_HEX);
	for (t = 0; rc == 0 && t < spec->n_traces; t++) {
		rc = gs_cluster_copy(&clusters[t], &proto);
		for (i = 0; rc == 0 && i < queue.n_pods; i++)
			rc = gs_trace_append(&traces[t], queue.pod_names[i], &queue.pods[i]);
		if (rc) {
			gs_errf(err, err_len, "out of memory");
			break;
		}
		traces[t].audit = queue.audit;
		traces[t].format = queue.format;
		if (strcmp(spec->pods_paths[t], spec->nodes_path) == 0) {
			memcpy(traces[t].sha256, nodes_sha, GS_SHA256_HEX);
			continue;
		}
		gs_trace_init(&extra);
		rc = gs_trace_load(spec->pods_paths[t], &clusters[t], &extra, err, err_len);
		if (rc == 0)
			rc = gs_k8s_queue_add(*kst, &clusters[t], &traces[t], &extra, err, err_len);
		if (rc == 0)
			memcpy(traces[t].sha256, extra.sha256, GS_SHA256_HEX);
		gs_trace_release(&extra);
	}
	gs_trace_release(&queue);
	gs_cluster_release(&proto);
	return rc;
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
			gs_errf(err, err_len, "out of memory");
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
	size_t *todo = NULL, n_cells, i, n_todo = 0, n_set = n_settings(spec), j;
	char nodes_sha[GS_SHA256_HEX], **params = NULL, owner[512] = "";
	struct gs_k8s_snapshot *snap = NULL;
	struct gs_k8s_state *kst = NULL;
	struct gs_plan_cell *plan = NULL;
	struct timespec t0, t1;
	struct sigaction on_sig, old_int, old_term;
	bool caught = false;
	int rc = 0, n_threads = 0, k, sig = 0;
	size_t n_stored = 0, n_cut = 0;

	memset(out, 0, sizeof(*out));
	memset(&sh, 0, sizeof(sh));
	if (!spec->nodes_path || !spec->db_path || spec->n_traces == 0 || spec->n_policies == 0 ||
	    spec->n_seeds == 0 || spec->jobs < 1) {
		gs_errf(err, err_len, "a sweep needs a cluster, a database, at least one trace, "
			"policy and seed, and at least one job");
		return GS_EINVAL;
	}
	if (spec->shard_n && (spec->shard_k < 1 || spec->shard_k > spec->shard_n)) {
		gs_errf(err, err_len, "shard %zu/%zu: K must be 1 to N", spec->shard_k,
			spec->shard_n);
		return GS_EINVAL;
	}
	if (spec->n_loads && spec->n_scales) {
		gs_errf(err, err_len,
			"a sweep takes a list of loads or a list of time scales, not both");
		return GS_EINVAL;
	}
	if ((spec->n_loads || spec->n_scales) && spec->opts.mode != GS_MODE_TIME) {
		gs_errf(err, err_len, "loads and time scales apply to time mode only");
		return GS_EINVAL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n_cells = spec->n_traces * spec->n_policies * n_set * spec->n_seeds;
	clusters = calloc(spec->n_traces, sizeof(*clusters));
	traces = calloc(spec->n_traces, sizeof(*traces));
	out->cells = calloc(n_cells, sizeof(*out->cells));
	out->trace_names = calloc(spec->n_traces, sizeof(*out->trace_names));
	todo = malloc(n_cells * sizeof(*todo));
	out->settings = calloc(n_set, sizeof(*out->settings));
	params = calloc(n_set, sizeof(*params));
	if (!clusters || !traces || !out->cells || !out->trace_names || !todo || !out->settings ||
	    !params) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto done;
	}
	out->n_traces = spec->n_traces;
	out->n_policies = spec->n_policies;
	out->n_settings = n_set;
	out->n_seeds = spec->n_seeds;
	out->n_numbers = n_numbers(spec);
	for (j = 0; j < n_set; j++)
		out->settings[j] = spec->n_loads ? spec->loads[j % out->n_numbers] :
				   spec->n_scales ? spec->scales[j % out->n_numbers] : NAN;
	for (i = 0; i < spec->n_traces; i++) {
		gs_cluster_init(&clusters[i]);
		gs_trace_init(&traces[i]);
		out->trace_names[i] = trace_name(spec->pods_paths[i]);
		if (!out->trace_names[i]) {
			gs_errf(err, err_len, "out of memory");
			rc = GS_ENOMEM;
			goto done;
		}
	}
	if (spec->n_state)
		rc = load_state(spec, clusters, traces, &snap, &kst, nodes_sha, err, err_len);
	else
		rc = load_inputs(spec, clusters, traces, nodes_sha, err, err_len);
	if (rc)
		goto done;
	for (i = 0; spec->strict && i < spec->n_traces; i++) {
		if (traces[i].audit.larger_than_any_node) {
			gs_errf(err, err_len, "%s: %zu pods fit on no node even when the cluster is "
				"empty (--strict)", spec->pods_paths[i],
				traces[i].audit.larger_than_any_node);
			rc = GS_EINVAL;
			goto done;
		}
	}
	/* A load a trace cannot offer is the user's to fix, before any run. */
	for (j = 0; j < spec->n_loads; j++) {
		for (i = 0; i < spec->n_traces; i++) {
			char msg[512];

			rc = gs_load_check(traces[i].pods, traces[i].n_pods, spec->opts.load_repeat,
					   clusters[i].gpu_milli, spec->loads[j],
					   spec->opts.arrivals, msg, sizeof(msg));
			if (rc) {
				gs_errf(err, err_len, "load %g%%: %s: %s", spec->loads[j],
					spec->pods_paths[i], msg);
				goto done;
			}
		}
	}
	for (j = 0; j < n_set; j++) {
		struct gs_replay_opts o = setting_opts(spec, j);

		/* Refuse what the options make impossible before any run starts. */
		for (i = 0; i < spec->n_traces; i++) {
			rc = gs_sim_validate(&clusters[i], &traces[i], &o, err, err_len);
			if (rc)
				goto done;
		}
		rc = gs_replay_params_json(&o, &params[j]);
		if (rc) {
			gs_errf(err, err_len, "out of memory");
			goto done;
		}
	}
	rc = gs_db_open(spec->db_path, &db, err, err_len);
	if (rc)
		goto done;

	/*
	 * The whole matrix is the plan, whichever shard this is: merged
	 * shards compare what they hold with it (gpusim merge).
	 */
	plan = malloc(n_cells * sizeof(*plan));
	if (!plan) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		goto done;
	}
	for (i = 0; i < n_cells; i++)
		plan[i] = plan_cell(spec, traces, nodes_sha, params, i);
	gs_plan_id(plan, n_cells, out->plan_id);
	rc = gs_db_add_plan(db, out->plan_id, plan, n_cells, err, err_len);
	if (rc)
		goto done;
	gs_claim_owner(owner, sizeof(owner));

	/* Resume: a cell with a complete run under the same key is not run again. */
	for (i = 0; i < n_cells; i++) {
		struct gs_sweep_cell *c = &out->cells[i];
		struct cell_ix x = cell_ix(spec, i);
		struct gs_run_row row;
		int f;

		for (f = 0; f < GS_SWEEP_N_FIGS; f++)
			c->fig[f] = NAN;
		c->wall_ms = NAN;
		if (spec->shard_n && i % spec->shard_n != spec->shard_k - 1) {
			c->other_shard = true;
			c->run_id = -1;
			out->n_other_shards++;
			continue;
		}
		rc = gs_db_find_run(db, spec->policies[x.policy]->name, traces[x.trace].sha256,
				    nodes_sha, spec->seeds[x.seed], params[x.setting], &c->run_id);
		if (rc == GS_ENOENT) {
			todo[n_todo++] = i;
			continue;
		}
		if (rc) {
			gs_errf(err, err_len, "%s: cannot look up earlier runs: %s", spec->db_path,
				gs_strerror(rc));
			goto done;
		}
		rc = gs_db_get_run(db, c->run_id, &row, err, err_len);
		if (rc)
			goto done;
		fill_figs_row(c, &row);
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
	sh.owner = owner;
	sh.cells = out->cells;
	pthread_mutex_init(&sh.lock, NULL);
	pthread_mutex_init(&sh.write_lock, NULL);
	pthread_cond_init(&sh.turn, NULL);
	gs_progress_init(&sh.bar, spec->progress, "sweep", n_todo);
	n_threads = spec->jobs < (int)n_todo ? spec->jobs : (int)n_todo;
	threads = calloc(n_threads ? (size_t)n_threads : 1, sizeof(*threads));
	/* The reorder ring: 2 slots a worker, so that one slow run stalls no one at once. */
	sh.window = n_threads ? 2 * (size_t)n_threads : 1;
	sh.slots = calloc(sh.window, sizeof(*sh.slots));
	if (!threads || !sh.slots) {
		gs_errf(err, err_len, "out of memory");
		rc = GS_ENOMEM;
		pthread_mutex_destroy(&sh.lock);
		pthread_mutex_destroy(&sh.write_lock);
		pthread_cond_destroy(&sh.turn);
		goto done;
	}
	if (spec->on_signals) {
		/* Only now: before any run is claimed, a signal has nothing to lose. */
		memset(&on_sig, 0, sizeof(on_sig));
		on_sig.sa_handler = on_stop_signal;
		sigemptyset(&on_sig.sa_mask);
		on_sig.sa_flags = SA_RESETHAND | SA_RESTART;
		stop_sig = 0;
		sigaction(SIGINT, &on_sig, &old_int);
		sigaction(SIGTERM, &on_sig, &old_term);
		caught = true;
	}
	for (k = 0; k < n_threads; k++) {
		int e = pthread_create(&threads[k], NULL, worker, &sh);

		if (e) {
			char msg[256];

			snprintf(msg, sizeof(msg), "cannot start worker thread: %s", strerror(e));
			pthread_mutex_lock(&sh.lock);
			fail_locked(&sh, GS_ENOMEM, msg);
			pthread_mutex_unlock(&sh.lock);
			break;
		}
	}
	n_threads = k;
	for (k = 0; k < n_threads; k++)
		pthread_join(threads[k], NULL);
	if (sh.rc == 0 && !stopping(&sh))
		gs_progress_done(&sh.bar);
	else if (sh.bar.on)
		fputc('\n', spec->progress);
	if (sh.rc == 0 && !stopping(&sh))
		sh.rc = wait_elsewhere(&sh, db, sh.err, sizeof(sh.err));
	sig = spec->on_signals ? (int)stop_sig : 0;
	pthread_mutex_destroy(&sh.lock);
	pthread_mutex_destroy(&sh.write_lock);
	pthread_cond_destroy(&sh.turn);
	out->n_ran = sh.done;
	/* Cells found done or claimed when their turn came, as well as before. */
	out->n_skipped = 0;
	for (i = 0; i < n_cells; i++) {
		out->n_elsewhere += out->cells[i].elsewhere;
		out->n_skipped += out->cells[i].skipped;
	}
	rc = sh.rc;
	if (rc)
		gs_errf(err, err_len, "%s", sh.err);
	/* A run that failed, or an interrupted one, leaves a claim: let it go. */
	{
		char msg[512];
		int r = gs_db_release_claims(db, owner, msg, sizeof(msg));

		if (r && !rc) {
			gs_errf(err, err_len, "%s", msg);
			rc = r;
		}
	}
	if (caught) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		caught = false;
	}
	if (rc == 0 && sig) {
		/* Everything finished is stored and no claim is left: say so, report no figures. */
		n_stored = sh.done;
		n_cut = sh.abandoned;
		gs_errf(err, err_len, "interrupted by %s: %zu run%s stored in %s, %zu cut short "
			"and not stored; run the same command again to resume",
			sig == SIGINT ? "SIGINT" : "SIGTERM", n_stored, n_stored == 1 ? "" : "s",
			spec->db_path, n_cut);
		rc = GS_EINTR;
	}

done:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->wall_s = elapsed_s(&t0, &t1);
	gs_db_close(db);
	free(threads);
	free(sh.slots);
	free(todo);
	free(plan);
	if (params)
		for (j = 0; j < n_set; j++)
			free(params[j]);
	free(params);
	if (traces)
		for (i = 0; i < spec->n_traces; i++)
			gs_trace_release(&traces[i]);
	if (clusters)
		for (i = 0; i < spec->n_traces; i++)
			gs_cluster_release(&clusters[i]);
	free(traces);
	free(clusters);
	/* After the clusters, whose DRA states borrow them. */
	gs_k8s_state_free(kst);
	gs_k8s_snapshot_free(snap);
	if (caught) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	if (rc)
		gs_sweep_release(out);
	if (rc == GS_EINTR) {
		out->n_ran = n_stored;
		out->n_abandoned = n_cut;
		out->signal = sig;
	}
	return rc;
}

void gs_sweep_stats(const struct gs_sweep *s, size_t trace, size_t policy, size_t setting,
		    enum gs_sweep_fig fig, double *mean_out, double *sd_out, size_t *n_out)
{
	double *v = malloc((s->n_seeds ? s->n_seeds : 1) * sizeof(*v));
	size_t i, n = 0;

	*mean_out = *sd_out = NAN;
	*n_out = 0;
	if (!v)
		return;
	for (i = 0; i < s->n_seeds; i++) {
		double x = gs_sweep_cell_at(s, trace, policy, setting, i)->fig[fig];

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

/* "12.3" / "12.3 +- 4.5" into buf, "-" without a value. */
static void mean_sd(char *buf, size_t len, double mean, double sd, int prec)
{
	if (isnan(mean))
		snprintf(buf, len, "-");
	else if (isnan(sd))
		snprintf(buf, len, "%.*f", prec, mean);
	else
		snprintf(buf, len, "%.*f +- %.*f", prec, mean, prec, sd);
}

void gs_sweep_print_summary(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s)
{
	const char *axis = spec->n_loads ? "LOAD%" : spec->n_scales ? "SCALE" : NULL;
	bool time_mode = spec->opts.mode == GS_MODE_TIME;
	size_t t, p, k, width = strlen("TRACE"), sh_width = strlen("SHARING");
	char spec_buf[GS_SHARE_SPEC_MAX];

	for (k = 0; k < spec->n_sharings; k++) {
		size_t w = strlen(gs_share_format(&spec->sharings[k], spec_buf, sizeof(spec_buf)));

		if (w > sh_width)
			sh_width = w;
	}

	for (t = 0; t < s->n_traces; t++)
		if (strlen(s->trace_names[t]) > width)
			width = strlen(s->trace_names[t]);
	fprintf(f, "%-*s  %-14s ", (int)width, "TRACE", "POLICY");
	if (spec->n_sharings)
		fprintf(f, "%-*s ", (int)sh_width, "SHARING");
	if (axis)
		fprintf(f, "%7s ", axis);
	if (time_mode)
		fprintf(f, "%5s  %20s  %20s  %22s  %9s  %7s  %7s  %7s  %6s  %6s\n", "RUNS",
			"WAIT(s)", "P99W(s)", "COMPL(s)", "P99C(s)", "SLOWDN", "ALLOC%", "USEFUL%",
			"FAILED", "PEND");
	else
		fprintf(f, "%5s  %8s  %6s\n", "RUNS", "UNALLOC%", "SD");
	for (t = 0; t < s->n_traces; t++) {
		for (p = 0; p < s->n_policies; p++) {
			for (k = 0; k < s->n_settings; k++) {
				double mean, sd;
				size_t n;
				char c[4][64];

				fprintf(f, "%-*s  %-14s ", (int)width, s->trace_names[t],
					spec->policies[p]->name);
				if (spec->n_sharings)
					fprintf(f, "%-*s ", (int)sh_width,
						gs_share_format(&spec->sharings[k / s->n_numbers],
								spec_buf, sizeof(spec_buf)));
				if (axis)
					fprintf(f, "%7g ", s->settings[k]);
				if (!time_mode) {
					gs_sweep_stats(s, t, p, k, GS_SWEEP_UNALLOC, &mean, &sd, &n);
					fprintf(f, "%5zu  ", n);
					if (isnan(mean))
						fprintf(f, "%8s  %6s\n", "-", "-");
					else if (isnan(sd))
						fprintf(f, "%8.2f  %6s\n", mean, "-");
					else
						fprintf(f, "%8.2f  %6.2f\n", mean, sd);
					continue;
				}
				gs_sweep_stats(s, t, p, k, GS_SWEEP_WAIT_MEAN, &mean, &sd, &n);
				fprintf(f, "%5zu  ", n);
				mean_sd(c[0], sizeof(c[0]), mean, sd, 1);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_WAIT_P99, &mean, &sd, &n);
				mean_sd(c[1], sizeof(c[1]), mean, sd, 0);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_COMPL_MEAN, &mean, &sd, &n);
				mean_sd(c[2], sizeof(c[2]), mean, sd, 1);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_COMPL_P99, &mean, &sd, &n);
				mean_sd(c[3], sizeof(c[3]), mean, NAN, 0);
				fprintf(f, "%20s  %20s  %22s  %9s  ", c[0], c[1], c[2], c[3]);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_SLOWDOWN, &mean, &sd, &n);
				mean_sd(c[0], sizeof(c[0]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_ALLOC, &mean, &sd, &n);
				mean_sd(c[1], sizeof(c[1]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_USEFUL, &mean, &sd, &n);
				mean_sd(c[2], sizeof(c[2]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_FAILED, &mean, &sd, &n);
				mean_sd(c[3], sizeof(c[3]), mean, NAN, 0);
				fprintf(f, "%7s  %7s  %7s  %6s  ", c[0], c[1], c[2], c[3]);
				gs_sweep_stats(s, t, p, k, GS_SWEEP_PENDING, &mean, &sd, &n);
				mean_sd(c[0], sizeof(c[0]), mean, NAN, 0);
				fprintf(f, "%6s\n", c[0]);
			}
		}
	}
}

int gs_parse_numbers(const char *text, double **out, size_t *n_out)
{
	double *v = NULL;
	size_t n = 0, cap = 0, i;
	const char *s = text;

	if (!text || !*text)
		return GS_EINVAL;
	for (;;) {
		char *end;
		double x;
		double *g;

		if (!((*s >= '0' && *s <= '9') || *s == '.'))
			goto bad;
		errno = 0;
		x = strtod(s, &end);
		if (errno || end == s || !(x > 0) || !isfinite(x))
			goto bad;
		for (i = 0; i < n; i++)
			if (v[i] == x)
				goto bad;
		if (n == 1000)
			goto bad;
		g = gs_grow(v, &cap, n, sizeof(*g), 8);
		if (!g) {
			free(v);
			return GS_ENOMEM;
		}
		v = g;
		v[n++] = x;
		s = end;
		if (*s == '\0')
			break;
		if (*s != ',')
			goto bad;
		s++;
	}
	*out = v;
	*n_out = n;
	return 0;
bad:
	free(v);
	return GS_EINVAL;
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
