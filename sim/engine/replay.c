/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c - the discrete-event simulator (see replay.h). Its options and
 * their checks are in replay_opts.c, the summary of a finished run in
 * replay_summary.c.
 *
 * Time mode pops events from the heap in (time, sequence) order:
 *   ARRIVE   try to place the pod; if nothing fits it joins the FIFO
 *            pending queue (and, with a bounded wait, gets a TIMEOUT).
 *   DEPART   return the pod's resources, then retry the pending queue.
 *   TIMEOUT  a still-pending pod gives up and fails.
 *   SAMPLE   a point of the fixed sampling grid.
 * Every event but SAMPLE and the TIMEOUT of a pod already placed changes
 * the state: the metrics (metrics.h) integrate the state before it and
 * take the state after it, so neither sampling nor an unused timeout moves
 * a figure. A pod's end time is its DEPART event's time, wherever that
 * event was scheduled from.
 *
 * Retrying the queue is cheap because of one invariant: a pending pod fit
 * on no node when it was last tried, and since then nodes only lost
 * resources except the one a departure just freed. So a pass after a
 * departure from node d filters every pending pod against d alone, and
 * runs the full scheduling cycle only for pods that now fit there. Pods
 * with the same request fit d alike, so the queue is kept as one FIFO per
 * request shape: the pass looks at the head of each FIFO and places the
 * earliest head that fits, again and again until none fits. Since d only
 * shrinks during the pass, that is the pod a walk of the whole queue in
 * FIFO order would place next, so the placements are the same as for that
 * walk, at O(shapes) per placement instead of O(pending) per departure.
 *
 * Inflate mode has no clock: pods arrive one per step in the inflated
 * order, never leave, and fail at once when nothing fits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"
#include "core/mem.h"
#include "engine/arrived_stats.h"
#include "engine/inflate.h"
#include "engine/replay.h"

const char *gs_fail_reason_str(enum gs_fail_reason r)
{
	switch (r) {
	case GS_FAIL_NONE:
		return "";
	case GS_FAIL_NOFIT:
		return "fits no node";
	case GS_FAIL_TIMEOUT:
		return "waited past --max-wait";
	case GS_FAIL_GPU_MEM:
		return "GPU memory oversubscribed at start";
	case GS_FAIL_GROUP:
		return "its pod group gave up";
	}
	return "unknown";
}

/* How long a pod runs once placed; -1 for never leaving. */
static int64_t duration_s(const struct gs_pod *p)
{
	return gs_pod_duration_s(p);
}

/*
 * The workload's identity for the policies (gs_policy_env.workload_id): the
 * first 64 bits of the trace file's SHA-256, 0 for a trace not read from a
 * file. Content, not name, so a renamed copy runs the same.
 */
static uint64_t workload_id(const struct gs_trace *t)
{
	uint64_t id = 0;
	int i;

	for (i = 0; i < 16 && t->sha256[i]; i++) {
		char c = t->sha256[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (v < 0)
			return 0;
		id = id << 4 | (uint64_t)v;
	}
	return i == 16 ? id : 0;
}

static uint64_t request_hash(const struct gs_pod *p)
{
	uint64_t v[5], h = 0xcbf29ce484222325ull;
	int k;

	v[0] = (uint64_t)(uint32_t)p->cpu_milli;
	v[1] = (uint64_t)p->mem_mib;
	v[2] = (uint64_t)(uint32_t)p->num_gpu << 32 | (uint32_t)p->gpu_milli;
	v[3] = (uint64_t)p->gpu_mem_mib;
	v[4] = (uint64_t)p->model_mask << 16 | p->sel;
	for (k = 0; k < 5; k++) {
		h ^= v[k];
		h *= 0x100000001b3ull;
		h ^= h >> 31;
	}
	return h ^ (h >> 29);
}

static bool same_request(const struct gs_pod *a, const struct gs_pod *b)
{
	return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
	       a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_mem_mib == b->gpu_mem_mib && a->model_mask == b->model_mask &&
	       a->sel == b->sel;
}

/*
 * Numbers the distinct requests of the pods (sim->pod_shape) and makes one
 * empty pending FIFO per request. Returns 0 or GS_ENOMEM.
 */
static int shape_pods(struct gs_sim *sim)
{
	size_t size = 64, i, mask;
	int32_t *table, *first;
	int rc = GS_ENOMEM;

	while (size < 2 * sim->n_pods)
		size *= 2;
	mask = size - 1;
	table = malloc(size * sizeof(*table));
	first = malloc((sim->n_pods ? sim->n_pods : 1) * sizeof(*first));
	sim->pod_shape = malloc((sim->n_pods ? sim->n_pods : 1) * sizeof(*sim->pod_shape));
	if (!table || !first || !sim->pod_shape)
		goto out;
	memset(table, 0xff, size * sizeof(*table));
	sim->n_shapes = 0;
	for (i = 0; i < sim->n_pods; i++) {
		size_t h = (size_t)request_hash(&sim->pods[i]) & mask;

		while (table[h] >= 0 && !same_request(&sim->pods[first[table[h]]], &sim->pods[i]))
			h = (h + 1) & mask;
		if (table[h] < 0) {
			table[h] = sim->n_shapes;
			first[sim->n_shapes++] = (int32_t)i;
		}
		sim->pod_shape[i] = table[h];
	}
	sim->fifos = calloc((size_t)sim->n_shapes + 1, sizeof(*sim->fifos));
	sim->active = malloc(((size_t)sim->n_shapes + 1) * sizeof(*sim->active));
	sim->retry = malloc(((size_t)sim->n_shapes + 1) * sizeof(*sim->retry));
	if (!sim->fifos || !sim->active || !sim->retry)
		goto out;
	for (i = 0; i < (size_t)sim->n_shapes; i++)
		sim->fifos[i].active_at = -1;
	rc = 0;
out:
	free(table);
	free(first);
	return rc;
}

int gs_sim_init(struct gs_sim *sim, const struct gs_cluster *proto, const struct gs_trace *t,
		const struct gs_policy *pol, const struct gs_replay_opts *o, char *err,
		size_t err_len)
{
	struct gs_policy_env env;
	int32_t *idx = NULL;
	size_t i, n;
	int rc;

	memset(sim, 0, sizeof(*sim));
	gs_time_metrics_clear(&sim->tm, NAN);
	gs_cluster_init(&sim->cluster);
	gs_heap_init(&sim->events);
	gs_workload_init(&sim->workload);
	rc = gs_sim_validate(proto, t, o, err, err_len);
	if (rc)
		return rc;
	if (!pol) {
		gs_errf(err, err_len, "no policy given");
		return GS_EINVAL;
	}
	sim->opts = *o;
	sim->trace = t;

	rc = gs_cluster_copy(&sim->cluster, proto);
	if (rc)
		goto fail;
	sim->cluster.check = o->check;
	{
		char msg[256];

		rc = gs_cluster_share_default(&sim->cluster, &o->sharing, &sim->n_whole, msg,
					      sizeof(msg));
		if (rc) {
			gs_errf(err, err_len, "--sharing: %s", msg);
			goto fail;
		}
	}

	rc = gs_idle_track_init(&sim->idle, &sim->cluster, &o->idle_job);
	if (rc)
		goto fail;

	if (o->mode == GS_MODE_INFLATE) {
		rc = gs_inflate_order(t, o->seed, o->inflate, proto->gpu_milli, &idx, &n);
		if (rc == GS_ERANGE) {
			gs_errf(err, err_len, "%s: inflating it to %g times the GPU capacity with seed "
				"%llu takes more than the %d pods a run may have (lower --inflate)",
				t->path ? t->path : "trace", o->inflate,
				(unsigned long long)o->seed, GS_INFLATE_MAX_PODS);
			rc = GS_ELIMIT; /* validated as likely to fit: this seed's run failed */
			goto fail;
		}
		if (rc) {
			gs_errf(err, err_len, "cannot inflate %s: %s", t->path ? t->path : "trace",
				gs_strerror(rc));
			goto fail;
		}
	} else if (o->load_pct > 0 && o->load_repeat > 1) {
		if (t->n_pods > (size_t)INT32_MAX / (size_t)o->load_repeat) {
			gs_errf(err, err_len, "%zu pods repeated %lld times are too many",
				t->n_pods, (long long)o->load_repeat);
			rc = GS_EINVAL;
			goto fail;
		}
		n = t->n_pods * (size_t)o->load_repeat;
	} else {
		n = t->n_pods;
	}
	sim->n_pods = n;
	sim->pods = malloc((n ? n : 1) * sizeof(*sim->pods));
	sim->out = calloc(n ? n : 1, sizeof(*sim->out));
	if (!sim->pods || !sim->out) {
		rc = GS_ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		int32_t src = idx ? idx[i] : (int32_t)(i % (t->n_pods ? t->n_pods : 1));

		sim->pods[i] = t->pods[src];
		sim->out[i].src = src;
		sim->out[i].state = GS_POD_NEW;
		sim->out[i].pl.node = -1;
		sim->out[i].t_arrive_s = sim->out[i].t_start_s = sim->out[i].t_end_s = -1;
	}
	rc = gs_gangs_init(&sim->gangs, t, idx, sim->pods, n, t->n_pods ? t->n_pods : 1,
			   o->mode == GS_MODE_INFLATE);
	free(idx);
	idx = NULL;
	if (rc)
		goto fail;
	if (gs_gangs_on(&sim->gangs)) {
		sim->gang_pl = malloc((size_t)sim->gangs.max_n * sizeof(*sim->gang_pl));
		if (!sim->gang_pl) {
			rc = GS_ENOMEM;
			goto fail;
		}
	}

	memset(&env, 0, sizeof(env));
	env.cluster = &sim->cluster;
	env.workload = t->pods;
	env.n_workload = t->n_pods;
	env.workload_specs = (const char *const *)t->pod_specs;
	env.seed = o->seed;
	env.workload_id = workload_id(t);
	env.flags = o->policy_flags;
	rc = gs_sched_init(&sim->sched, pol, &env);
	if (rc) {
		gs_errf(err, err_len, "policy %s failed to start: %s", pol->name, gs_strerror(rc));
		goto fail;
	}

	sim->frag_on = o->frag || o->mode == GS_MODE_INFLATE;
	if (sim->frag_on) {
		/* The reference measures with FGD's typical pods, so compat groups them as FGD does. */
		enum gs_kinds_by by = GS_KINDS_BY_MODEL_SET;

		if (o->policy_flags & GS_POLICY_COMPAT)
			by = GS_KINDS_BY_SPEC;
		rc = gs_workload_typical_by(t->pods, (const char *const *)t->pod_specs, t->n_pods,
					    o->frag_coverage, by, &sim->workload);
		if (rc == 0)
			rc = gs_frag_init(&sim->frag, &sim->cluster, &sim->workload);
		if (rc) {
			gs_errf(err, err_len, "cannot compute the typical workload: %s",
				gs_strerror(rc));
			goto fail;
		}
	}

	if (o->mode == GS_MODE_TIME) {
		sim->t_arrive = malloc((n ? n : 1) * sizeof(*sim->t_arrive));
		if (!sim->t_arrive) {
			rc = GS_ENOMEM;
			goto fail;
		}
		if (o->load_pct > 0) {
			char msg[384];

			rc = gs_arrivals_generate(sim->pods, n, t->n_pods ? t->n_pods : 1,
						  gs_replay_load_cap(o, proto), o->load_pct, o->arrivals,
						  o->seed, sim->t_arrive, msg, sizeof(msg));
			if (rc) {
				if (rc != GS_ENOMEM)
					gs_errf(err, err_len, "%s: load %g%%: %s",
						t->path ? t->path : "trace", o->load_pct, msg);
				goto fail;
			}
		} else {
			/* In range: gs_sim_validate() checked every arrival. */
			for (i = 0; i < n; i++)
				(void)gs_arrivals_scaled(o->time_scale, &sim->pods[i],
							 &sim->t_arrive[i]);
		}
		gs_metrics_init(&sim->metrics, proto->gpu_milli, sim->frag_on);
		if (sim->cluster.share) {
			const struct gs_interference *tbl = o->interference;

			if (!tbl) {
				gs_interference_init(&sim->ifr_own);
				rc = gs_interference_default(&sim->ifr_own, err, err_len);
				if (rc)
					goto fail;
				tbl = &sim->ifr_own;
			}
			gs_busy_apply(o->busy, t, sim->pods, n, o->seed);
			rc = gs_share_model_init(&sim->share, &sim->cluster, sim->pods, n, t, tbl);
			if (rc)
				goto fail;
			sim->share_on = true;
		}
		rc = shape_pods(sim);
		if (rc)
			goto fail;
		if (gs_defrag_on(&o->defrag)) {
			rc = gs_defrag_init(&sim->defrag, &o->defrag, n);
			if (rc)
				goto fail;
			sim->defrag_on = true;
		}
		/* Queued in trace order, so equal arrival times keep it. */
		rc = gs_heap_arrivals(&sim->events, sim->t_arrive, n);
		if (rc == 0 && sim->share_on)
			rc = gs_heap_track(&sim->events, n, (size_t)sim->share.n_gpus);
		if (rc)
			goto fail;
		if (o->sample_interval_s > 0 && n > 0) {
			rc = gs_heap_push(&sim->events, 0, GS_EV_SAMPLE, -1);
			if (rc)
				goto fail;
		}
	}
	return 0;
fail:
	free(idx);
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	gs_sim_release(sim);
	return rc;
}

void gs_sim_release(struct gs_sim *sim)
{
	if (sim->sched.policy)
		gs_sched_release(&sim->sched);
	if (sim->frag_on)
		gs_frag_release(&sim->frag);
	gs_workload_release(&sim->workload);
	gs_cluster_release(&sim->cluster);
	gs_heap_release(&sim->events);
	free(sim->pods);
	free(sim->out);
	if (sim->fifos) {
		int32_t k;

		for (k = 0; k < sim->n_shapes; k++)
			GS_MEM_FREE(sim->fifos[k].pod, sim->fifos[k].seq);
	}
	GS_MEM_FREE(sim->fifos, sim->pod_shape, sim->active, sim->retry, sim->samples);
	if (sim->arrived)
		gs_arrived_stats_release(sim->arrived);
	free(sim->arrived);
	free(sim->t_arrive);
	gs_gangs_release(&sim->gangs);
	free(sim->gang_pl);
	gs_idle_track_release(&sim->idle);
	if (sim->share_on)
		gs_share_model_release(&sim->share);
	gs_defrag_release(&sim->defrag);
	gs_interference_release(&sim->ifr_own);
	memset(sim, 0, sizeof(*sim));
}

static int take_sample(struct gs_sim *sim, int64_t t_s)
{
	const struct gs_cluster *c = &sim->cluster;
	struct gs_sample *s = gs_grow(sim->samples, &sim->cap_samples, sim->n_samples,
				      sizeof(*s), 1024);

	if (!s)
		return GS_ENOMEM;
	sim->samples = s;
	s = &sim->samples[sim->n_samples++];
	/* Zeroed first: the padding too, so that runs compare equal byte for byte. */
	memset(s, 0, sizeof(*s));
	s->t_s = t_s;
	s->event = sim->stats.events;
	s->cpu_alloc_milli = c->cpu_milli - c->cpu_free_milli;
	s->mem_alloc_mib = c->mem_mib - c->mem_free_mib;
	s->gpu_alloc_milli = c->gpu_milli - c->gpu_free_milli;
	s->gpus_in_use = c->gpus_in_use;
	s->arrived_gpu_milli = sim->arrived_gpu_milli;
	s->pods_running = (int32_t)c->n_pods;
	s->pending = (int32_t)sim->n_pending;
	s->failed = (int32_t)sim->stats.failed;
	s->frag_milli = sim->frag_on ? gs_frag_total(&sim->frag) : NAN;
	s->idle_frac_milli = sim->idle.total.frac_milli;
	s->idle_nocpu_milli = sim->idle.total.nocpu_milli;
	s->idle_stranded_milli = sim->idle.total.stranded_milli;
	return 0;
}

/*
 * The sharing model's callback: a pod's completion moved to t_done_s. On
 * shared GPUs it waits with the departures of the other pods on its first
 * GPU, which a start or stop there moves together (engine/heap.h); alone
 * on its GPUs or instances, nothing moves it and a slot of its own costs
 * less than a group.
 */
static int push_depart(void *arg, int32_t pod, int64_t t_done_s, uint32_t gen)
{
	struct gs_sim *sim = arg;

	if (sim->share.p[pod].fixed)
		return gs_heap_push_gen(&sim->events, t_done_s, GS_EV_DEPART, pod, gen);
	return gs_heap_push_grouped(&sim->events, t_done_s, pod, gen,
				    gs_share_model_home(&sim->share, pod));
}

/*
 * Time-slicing and MPS do not isolate GPU memory: a pod whose memory does
 * not fit next to what the pods already on one of its GPUs asked for
 * fails when it starts. True when pod i would.
 */
static bool oversubscribes(const struct gs_sim *sim, int32_t i, const struct gs_placement *pl)
{
	const struct gs_cluster *c = &sim->cluster;
	const struct gs_pod *p = &sim->pods[i];
	int64_t card;
	int k;

	if (!sim->share_on || p->gpu_mem_mib == 0 || pl->num_gpu == 0)
		return false;
	card = c->models.m[c->nodes[pl->node].model].mem_mib;
	for (k = 0; k < pl->num_gpu; k++) {
		int mode = gs_cluster_gpu_share(c, pl->node, pl->gpu[k])->mode;

		if ((mode == GS_SHARE_TIMESLICE || mode == GS_SHARE_MPS) &&
		    gs_share_model_gpu_mem(&sim->share, pl->node, pl->gpu[k]) + p->gpu_mem_mib > card)
			return true;
	}
	return false;
}

/* A pod placed by the scheduler, then killed by an out-of-memory error. */
static void fail_oversubscribed(struct gs_sim *sim, int32_t i, const struct gs_placement *pl,
				int64_t t_s)
{
	struct gs_pod_outcome *o = &sim->out[i];

	o->pl = *pl;
	o->state = GS_POD_FAILED;
	o->fail = GS_FAIL_GPU_MEM;
	o->t_end_s = t_s;
	sim->stats.failed++;
	sim->oversubscribed++;
}

static void node_changed(struct gs_sim *sim, int32_t node)
{
	if (sim->frag_on)
		gs_frag_update(&sim->frag, &sim->cluster, node);
	gs_idle_track_update(&sim->idle, &sim->cluster, node);
}

int gs_sim_bind(struct gs_sim *sim, int32_t i, const struct gs_placement *pl)
{
	int rc = gs_sched_bind(&sim->sched, &sim->cluster, &sim->pods[i], pl);

	if (rc == 0)
		node_changed(sim, pl->node);
	return rc;
}

int gs_sim_unbind(struct gs_sim *sim, int32_t i, const struct gs_placement *pl)
{
	int rc = gs_sched_unbind(&sim->sched, &sim->cluster, &sim->pods[i], pl);

	if (rc == 0)
		node_changed(sim, pl->node);
	return rc;
}

static int start_pod(struct gs_sim *sim, int32_t i, const struct gs_placement *pl, int64_t t_s);

/* Binds through the scheduler and starts the pod. */
static int bind(struct gs_sim *sim, int32_t i, const struct gs_placement *pl, int64_t t_s)
{
	int rc;

	if (oversubscribes(sim, i, pl)) {
		fail_oversubscribed(sim, i, pl, t_s);
		return 0;
	}
	rc = gs_sim_bind(sim, i, pl);
	return rc ? rc : start_pod(sim, i, pl, t_s);
}

/*
 * What a placement starts besides the allocator's bind: the outcome, the
 * counts and the waits, the departure (or the sharing model's).
 */
static int start_pod(struct gs_sim *sim, int32_t i, const struct gs_placement *pl, int64_t t_s)
{
	struct gs_pod_outcome *o = &sim->out[i];

	o->pl = *pl;
	o->state = GS_POD_RUNNING;
	o->t_start_s = t_s;
	if (sim->cluster.share) {
		int k;

		for (k = 0; k < pl->num_gpu; k++) {
			const struct gs_mig_gpu *g = &sim->cluster.share[pl->node].gpu[pl->gpu[k]].mig;
			int inst = pl->mig[k] ? gs_mig_instance_at(g, pl->mig[k] - 1) : -1;

			o->mig_prof[k] = (int8_t)(inst >= 0 ? g->inst[inst].profile : -1);
		}
	}
	sim->stats.placed++;
	/*
	 * Legal times keep one wait and one stay in range, but a pod that
	 * starts late can run past int64's last second, and many long waits
	 * can add up past it: refuse the run rather than wrap around.
	 */
	if (!gs_add_i64(sim->stats.wait_total_s, t_s - o->t_arrive_s, &sim->stats.wait_total_s)) {
		snprintf(sim->fail_msg, sizeof(sim->fail_msg), "the waits of the placed pods add "
			 "up to more than %lld s, which gpusim cannot count", (long long)INT64_MAX);
		return GS_ELIMIT;
	}
	if (sim->opts.mode == GS_MODE_TIME) {
		int64_t d = duration_s(&sim->pods[i]), end;

		if (sim->share_on && pl->num_gpu)
			return gs_share_model_start(&sim->share, i, &o->pl, t_s, d, push_depart, sim);
		if (d < 0)
			return 0;
		if (!gs_add_i64(t_s, d, &end)) {
			char *const *names = sim->trace->pod_names;

			snprintf(sim->fail_msg, sizeof(sim->fail_msg), "pod '%s' starts at %lld s and "
				 "runs for %lld s, past the last second gpusim can count (%lld)",
				 names ? names[sim->out[i].src] : "?", (long long)t_s, (long long)d,
				 (long long)INT64_MAX);
			return GS_ELIMIT;
		}
		return gs_heap_push(&sim->events, end, GS_EV_DEPART, i);
	}
	return 0;
}

/* One scheduling cycle for pod i. Returns 0, GS_ENOFIT or an error. */
static int try_place(struct gs_sim *sim, int32_t i, int64_t t_s)
{
	struct gs_placement pl;
	int rc = gs_sched_pick(&sim->sched, &sim->cluster, &sim->pods[i], &pl, &sim->out[i].why);

	if (rc)
		return rc;
	return bind(sim, i, &pl, t_s);
}

static int retry_pending(struct gs_sim *sim, int32_t freed, int64_t t_s);

/*
 * Places every pod of group g or none: each pod goes through a full
 * scheduling cycle on the cluster as the pods before it left it; when one
 * fits nowhere, the pods bound so far are unbound in reverse order and the
 * cluster is as it was. A pod whose GPU memory oversubscribes its GPUs
 * (timeslice, mps) fails at start as a pod alone would; the others run.
 * Returns 0 (placed), GS_ENOFIT or an error.
 */
static int place_gang(struct gs_sim *sim, int32_t g, int64_t t_s)
{
	struct gs_gangs *gs = &sim->gangs;
	struct gs_gang *gg = &gs->g[g];
	const int32_t *m = &gs->members[gg->first];
	struct gs_placement *pl = sim->gang_pl;
	int32_t k;
	int rc = 0;

	for (k = 0; k < gg->n; k++) {
		rc = gs_sched_pick(&sim->sched, &sim->cluster, &sim->pods[m[k]], &pl[k],
				   &sim->out[m[k]].why);
		if (rc == 0)
			rc = gs_sim_bind(sim, m[k], &pl[k]);
		if (rc)
			break;
	}
	if (rc) {
		int undo = 0;

		while (k-- > 0 && undo == 0)
			undo = gs_sim_unbind(sim, m[k], &pl[k]);
		return undo ? undo : rc;
	}
	for (k = 0; k < gg->n; k++) {
		if (!oversubscribes(sim, m[k], &pl[k])) {
			if ((rc = start_pod(sim, m[k], &pl[k], t_s)))
				return rc;
			continue;
		}
		if ((rc = gs_sim_unbind(sim, m[k], &pl[k])))
			return rc;
		fail_oversubscribed(sim, m[k], &pl[k], t_s);
	}
	gg->state = GS_GANG_PLACED;
	gg->start_s = t_s;
	gs->placed++;
	gs->wait_total_s += t_s - gg->ready_s;
	/* What a pod killed at start held was given back: the queue may fit there now. */
	for (k = 0; k < gg->n && rc == 0; k++)
		if (sim->out[m[k]].state == GS_POD_FAILED && sim->n_pending > (size_t)gg->n)
			rc = retry_pending(sim, pl[k].node, t_s);
	return rc;
}

/* Group g gave up at t_s: its pods that wait fail with reason why; the rest fail on arrival. */
static void fail_gang(struct gs_sim *sim, int32_t g, int64_t t_s, enum gs_fail_reason why)
{
	struct gs_gang *gg = &sim->gangs.g[g];
	int32_t k;

	for (k = 0; k < gg->n; k++) {
		struct gs_pod_outcome *o = &sim->out[sim->gangs.members[gg->first + k]];

		if (o->state != GS_POD_PENDING)
			continue;
		o->state = GS_POD_FAILED;
		o->fail = (uint8_t)why;
		o->t_end_s = t_s;
		sim->stats.failed++;
		sim->n_waiting--;
		if (why == GS_FAIL_TIMEOUT)
			sim->metrics.timed_out++;
	}
	gg->state = GS_GANG_FAILED;
	sim->gangs.failed++;
}

/*
 * Pod i of group g arrived (and waits, counted pending): once the group is
 * complete it is placed, or joins the pending queue as one entry. A pod
 * of a group that already gave up fails at once.
 */
static int gang_arrive(struct gs_sim *sim, int32_t g, int32_t i, int64_t t_s)
{
	struct gs_gang *gg = &sim->gangs.g[g];
	struct gs_pod_outcome *o = &sim->out[i];
	int rc;

	if (gg->state == GS_GANG_FAILED) {
		o->state = GS_POD_FAILED;
		o->fail = GS_FAIL_GROUP;
		o->t_end_s = t_s;
		sim->stats.failed++;
		return 0;
	}
	o->state = GS_POD_PENDING;
	sim->n_waiting++;
	sim->n_pending++;
	if (++gg->arrived < gg->n)
		return 0;
	gg->ready_s = t_s;
	rc = place_gang(sim, g, t_s);
	if (rc == 0) {
		sim->n_waiting -= gg->n;
		sim->n_pending -= (size_t)gg->n;
		return 0;
	}
	if (rc != GS_ENOFIT)
		return rc;
	if (sim->opts.mode == GS_MODE_INFLATE) {
		fail_gang(sim, g, t_s, GS_FAIL_NOFIT);
		sim->n_pending -= (size_t)gg->n;
		return 0;
	}
	return gs_gangs_enqueue(&sim->gangs, g, sim->pending_seq++);
}

/*
 * Whether waiting group g may fit now that node `freed` gained room: the
 * cluster's free totals hold its whole request (GPUs only without sharing
 * modes) and one of its pods fits on `freed` (without that, no pod of it
 * gained anything). Only then is a placement tried, which is exact.
 */
static bool gang_may_fit(const struct gs_sim *sim, int32_t g, int32_t freed)
{
	const struct gs_gang *gg = &sim->gangs.g[g];
	const struct gs_cluster *c = &sim->cluster;
	int32_t k;

	/* A sharing mode charges a pod its mode's cost, not its request: GPU totals say nothing then. */
	if ((!c->share && gg->gpu_milli > c->gpu_free_milli) || gg->cpu_milli > c->cpu_free_milli ||
	    gg->mem_mib > c->mem_free_mib)
		return false;
	for (k = 0; k < gg->n; k++)
		if (gs_cluster_fits(c, freed, &sim->pods[sim->gangs.members[gg->first + k]]) ==
		    GS_FIT_OK)
			return true;
	return false;
}

/* Appends pod i to the pending queue (the FIFO of its shape). */
static int pending_push(struct gs_sim *sim, int32_t i)
{
	int32_t k = sim->pod_shape[i];
	struct gs_pending_fifo *q = &sim->fifos[k];

	if (q->head > 0 && q->n == q->cap) {
		/* Reuse the room before the head rather than grow. */
		memmove(q->pod, q->pod + q->head, (q->n - q->head) * sizeof(*q->pod));
		memmove(q->seq, q->seq + q->head, (q->n - q->head) * sizeof(*q->seq));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap;
		int32_t *pod = gs_grow(q->pod, &cap, q->n, sizeof(*pod), 16);
		int64_t *seq;

		if (!pod)
			return GS_ENOMEM;
		q->pod = pod;
		cap = q->cap;
		seq = gs_grow(q->seq, &cap, q->n, sizeof(*seq), 16);
		if (!seq)
			return GS_ENOMEM;
		q->seq = seq;
		q->cap = cap;
	}
	q->pod[q->n] = i;
	q->seq[q->n++] = sim->pending_seq++;
	if (q->active_at < 0) {
		q->active_at = sim->n_active;
		sim->active[sim->n_active++] = k;
	}
	sim->n_pending++;
	return 0;
}

/* Drops the pods at the head of FIFO k that no longer wait; false when it is empty then. */
static bool fifo_trim(struct gs_sim *sim, int32_t k)
{
	struct gs_pending_fifo *q = &sim->fifos[k];

	while (q->head < q->n && sim->out[q->pod[q->head]].state != GS_POD_PENDING)
		q->head++;
	if (q->head < q->n)
		return true;
	q->head = q->n = 0;
	/* Out of the active list: the last active shape takes its place. */
	sim->active[q->active_at] = sim->active[--sim->n_active];
	sim->fifos[sim->active[q->active_at]].active_at = q->active_at;
	q->active_at = -1;
	return false;
}

/*
 * With --check: verifies the invariant retry_pending relies on, that no
 * pending pod fits on any node. O(pending x nodes), so only when asked.
 */
static int check_pending(const struct gs_sim *sim)
{
	int32_t a, n;
	size_t r;

	for (a = 0; a < sim->n_active; a++) {
		const struct gs_pending_fifo *q = &sim->fifos[sim->active[a]];

		for (r = q->head; r < q->n; r++) {
			int32_t i = q->pod[r];

			if (sim->out[i].state != GS_POD_PENDING)
				continue;
			for (n = 0; n < sim->cluster.n_nodes; n++)
				if (gs_cluster_fits(&sim->cluster, n, &sim->pods[i]) == GS_FIT_OK)
					return GS_ECHECK;
		}
	}
	return 0;
}

/*
 * Retries the pending queue in FIFO order after node `freed` gained
 * resources (see the invariant at the top of this file): places, again
 * and again, the earliest queued pod that fits on `freed`, which is the
 * earliest head of a shape's FIFO that fits there. Pods that have given up
 * leave the queue; the rest keep their order.
 */
static int retry_pending(struct gs_sim *sim, int32_t freed, int64_t t_s)
{
	struct gs_gangs *gs = &sim->gangs;
	size_t gnext;
	int rc = 0;
	/*
	 * The shapes a pass looks at: -1 for every active one; after a pass,
	 * those in sim->retry, the ones whose head it did not find too big for
	 * `freed`. Since `freed` only shrinks, a head too big stays too big,
	 * and pods of one shape fit alike: the next pass can skip the rest.
	 */
	int32_t n_cand = -1;

	/* Groups are walked in the queue's order, each tried at most once per pass. */
	gs_gangs_trim(gs);
	gnext = gs->head;
	for (;;) {
		int32_t a, best = -1, n_keep = 0;
		int64_t best_seq = 0;
		struct gs_pending_fifo *q;
		int32_t i;
		bool placed = false;

		for (a = 0; a < (n_cand < 0 ? sim->n_active : n_cand); a++) {
			int32_t k = n_cand < 0 ? sim->active[a] : sim->retry[a];

			if (!fifo_trim(sim, k)) {
				if (n_cand < 0)
					a--; /* the last active shape moved here */
				continue;
			}
			q = &sim->fifos[k];
			if (best < 0 || q->seq[q->head] < best_seq) {
				if (gs_cluster_fits(&sim->cluster, freed, &sim->pods[q->pod[q->head]]) !=
				    GS_FIT_OK)
					continue;
				best = k;
				best_seq = q->seq[q->head];
			}
			sim->retry[n_keep++] = k; /* n_keep <= a: in place when reading retry */
		}
		n_cand = n_keep;
		/* A waiting group before that pod goes first, as a walk of the queue would. */
		while (gnext < gs->len && rc == 0 && !placed) {
			int32_t g = gs->queue[gnext];

			if (gs->g[g].state != GS_GANG_WAITING) {
				gnext++;
				continue;
			}
			if (best >= 0 && gs->g[g].seq > best_seq)
				break;
			gnext++;
			if (!gang_may_fit(sim, g, freed))
				continue;
			sim->stats.retries++;
			rc = place_gang(sim, g, t_s);
			if (rc == GS_ENOFIT) {
				rc = 0;
			} else if (rc == 0) {
				sim->n_waiting -= gs->g[g].n;
				placed = true;
				/* Its pods took room anywhere, a nested retry used sim->retry. */
				n_cand = -1;
			}
		}
		if (rc)
			break;
		/* The pods that fitted before the group was placed may not fit any more. */
		if (placed)
			continue;
		if (best < 0)
			break;
		q = &sim->fifos[best];
		i = q->pod[q->head];
		sim->stats.retries++;
		rc = try_place(sim, i, t_s);
		if (rc == GS_ENOFIT) {
			/* It fits on `freed`, so the scheduler must find a node. */
			rc = GS_ECHECK;
		}
		if (rc)
			break;
		q->head++;
		sim->n_waiting--;
	}
	/*
	 * A retry is where the samples' pending count catches up: the pods that
	 * timed out since the last one stop counting here (see n_pending).
	 */
	sim->n_pending = (size_t)sim->n_waiting;
	if (rc == 0 && sim->opts.check)
		rc = check_pending(sim);
	return rc;
}

/*
 * Pod i fits nowhere: the descheduler moves pods so that a node takes it,
 * places it there, and gives the pending queue the room that is left on
 * that node (the retry invariant: nodes other than it only lost room).
 * GS_ENOFIT when it could not.
 */
static int make_room(struct gs_sim *sim, int32_t i, int64_t t_s)
{
	struct gs_placement pl;
	int rc = gs_defrag_make_room(sim, i, t_s, &pl);

	if (rc == 0)
		rc = bind(sim, i, &pl, t_s);
	if (rc == 0 && sim->n_pending)
		rc = retry_pending(sim, pl.node, t_s);
	return rc;
}

static int handle(struct gs_sim *sim, const struct gs_event *ev)
{
	struct gs_pod_outcome *o = ev->pod >= 0 ? &sim->out[ev->pod] : NULL;
	int64_t deadline, next;
	int rc;

	switch (ev->kind) {
	case GS_EV_ARRIVE:
		gs_metrics_arrival(&sim->metrics, ev->t_s);
		if (sim->share_on)
			gs_share_model_arrival(&sim->share, ev->t_s);
		o->t_arrive_s = ev->t_s;
		sim->stats.arrived++;
		sim->arrived_gpu_milli += gs_pod_gpu_milli(&sim->pods[ev->pod]);
		if (gs_gangs_of(&sim->gangs, ev->pod) >= 0) {
			rc = gang_arrive(sim, gs_gangs_of(&sim->gangs, ev->pod), ev->pod, ev->t_s);
			if (rc || o->state != GS_POD_PENDING)
				return rc;
		} else {
			/* The descheduler makes room for a pod alone, not for a group. */
			rc = try_place(sim, ev->pod, ev->t_s);
			if (rc == GS_ENOFIT && sim->defrag_on)
				rc = make_room(sim, ev->pod, ev->t_s);
			if (rc != GS_ENOFIT)
				return rc;
			o->state = GS_POD_PENDING;
			sim->n_waiting++;
			rc = pending_push(sim, ev->pod);
		}
		/* A deadline past int64's last second never comes: no timeout. */
		if (rc == 0 && sim->opts.max_wait_s >= 0 &&
		    gs_add_i64(ev->t_s, sim->opts.max_wait_s, &deadline))
			rc = gs_heap_push(&sim->events, deadline, GS_EV_TIMEOUT, ev->pod);
		return rc;
	case GS_EV_DEPART:
		if (sim->share_on && o->pl.num_gpu) {
			rc = gs_share_model_stop(&sim->share, ev->pod, &o->pl, ev->t_s, push_depart, sim);
			if (rc)
				return rc;
			o->coloc = (float)(sim->share.p[ev->pod].coloc_s /
					   (double)(ev->t_s > o->t_start_s ? ev->t_s - o->t_start_s : 1));
		}
		rc = gs_sim_unbind(sim, ev->pod, &o->pl);
		if (rc)
			return rc;
		o->state = GS_POD_DONE;
		o->t_end_s = ev->t_s;
		sim->stats.done++;
		return sim->n_pending ? retry_pending(sim, o->pl.node, ev->t_s) : 0;
	case GS_EV_TIMEOUT:
		if (o->state != GS_POD_PENDING)
			return 0;
		/* A group gives up with its first pod: all its waiting pods fail. */
		if (gs_gangs_of(&sim->gangs, ev->pod) >= 0) {
			fail_gang(sim, gs_gangs_of(&sim->gangs, ev->pod), ev->t_s, GS_FAIL_TIMEOUT);
			return 0;
		}
		/*
		 * Left in its FIFO, and counted in n_pending until the next retry
		 * pass (the samples have always counted it so).
		 */
		o->state = GS_POD_FAILED;
		o->fail = GS_FAIL_TIMEOUT;
		o->t_end_s = ev->t_s;
		sim->stats.failed++;
		sim->n_waiting--;
		sim->metrics.timed_out++;
		return 0;
	case GS_EV_SAMPLE:
		/* Waits can stretch a run past the grid gs_sim_validate() allowed. */
		if (ev->t_s / sim->opts.sample_interval_s >= GS_SAMPLE_GRID_MAX) {
			snprintf(sim->fail_msg, sizeof(sim->fail_msg), "the sampling grid of %lld s "
				 "reached %d samples at %lld s; sample less often (--sample-interval)",
				 (long long)sim->opts.sample_interval_s, GS_SAMPLE_GRID_MAX,
				 (long long)ev->t_s);
			return GS_ELIMIT;
		}
		rc = take_sample(sim, ev->t_s);
		/*
		 * The grid goes on only while something else is still to happen
		 * (or a departure that moved had its old place still to come, as
		 * when moved departures stayed queued: heap.h), and ends at
		 * int64's last second.
		 */
		if (rc == 0 &&
		    (gs_heap_size(&sim->events) > 0 || gs_heap_moved_after(&sim->events, ev)) &&
		    gs_add_i64(ev->t_s, sim->opts.sample_interval_s, &next))
			rc = gs_heap_push(&sim->events, next, GS_EV_SAMPLE, -1);
		return rc;
	}
	return GS_EINVAL;
}

static void progress(struct gs_sim *sim, size_t done)
{
	size_t step = sim->n_pods / 100 + 1;

	if (sim->opts.progress && done % step == 0)
		sim->opts.progress(sim->opts.progress_arg, done, sim->n_pods);
}

/* Whether an event changes the state (see the top of this file). */
static bool changes_state(const struct gs_sim *sim, const struct gs_event *ev)
{
	if (ev->kind == GS_EV_SAMPLE)
		return false;
	return ev->kind != GS_EV_TIMEOUT || sim->out[ev->pod].state == GS_POD_PENDING;
}

static int run_time(struct gs_sim *sim)
{
	const struct gs_cluster *c = &sim->cluster;
	struct gs_event ev;
	bool change;
	int rc;

	while (gs_heap_pop(&sim->events, &ev) == 0) {
		/*
		 * A completion the sharing model has moved since: not an event at
		 * all. The queue moves such departures (heap.h), so this guards
		 * the model and the queue agreeing.
		 */
		if (ev.kind == GS_EV_DEPART && sim->share_on &&
		    sim->out[ev.pod].pl.num_gpu &&
		    !gs_share_model_current(&sim->share, ev.pod, ev.gen))
			continue;
		/* Nor the completion of a pod the descheduler moved since. */
		if (ev.kind == GS_EV_DEPART && sim->defrag_on &&
		    gs_defrag_stale(&sim->defrag, ev.pod, ev.gen))
			continue;
		sim->stats.events++;
		sim->stats.t_end_s = ev.t_s;
		change = changes_state(sim, &ev);
		if (change)
			gs_metrics_advance(&sim->metrics, ev.t_s);
		rc = handle(sim, &ev);
		if (rc)
			return rc;
		if (change) {
			gs_metrics_state(&sim->metrics, c->gpu_milli - c->gpu_free_milli,
					 sim->n_waiting, c->n_pods + sim->n_waiting,
					 sim->frag_on ? gs_frag_total(&sim->frag) : 0);
			gs_metrics_idle(&sim->metrics, sim->idle.total.frac_milli,
					sim->idle.total.nocpu_milli, sim->idle.total.stranded_milli);
		}
		if (ev.kind == GS_EV_ARRIVE)
			progress(sim, (size_t)sim->stats.arrived);
		if (sim->opts.stop && *sim->opts.stop)
			return GS_EINTR;
		if (ev.kind != GS_EV_SAMPLE && sim->stats.events % sim->opts.sample_every == 0) {
			rc = take_sample(sim, ev.t_s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int run_inflate(struct gs_sim *sim)
{
	size_t i;
	int rc;

	for (i = 0; i < sim->n_pods; i++) {
		int32_t p = (int32_t)i;

		sim->stats.events++;
		sim->stats.arrived++;
		sim->stats.t_end_s = (int64_t)i;
		sim->out[i].t_arrive_s = (int64_t)i;
		sim->arrived_gpu_milli += gs_pod_gpu_milli(&sim->pods[i]);
		if (gs_gangs_of(&sim->gangs, p) >= 0)
			rc = gang_arrive(sim, gs_gangs_of(&sim->gangs, p), p, (int64_t)i);
		else
			rc = try_place(sim, p, (int64_t)i);
		if (rc == GS_ENOFIT) {
			sim->out[i].state = GS_POD_FAILED;
			sim->out[i].fail = GS_FAIL_NOFIT;
			sim->out[i].t_end_s = (int64_t)i;
			sim->stats.failed++;
		} else if (rc) {
			return rc;
		}
		progress(sim, i + 1);
		if (sim->opts.stop && *sim->opts.stop)
			return GS_EINTR;
		if (sim->stats.events % sim->opts.sample_every == 0) {
			rc = take_sample(sim, (int64_t)i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* gs_metrics_finish()'s view of pod i. */
static void metrics_pod(const void *arg, size_t i, struct gs_metrics_pod *p)
{
	const struct gs_sim *sim = arg;
	const struct gs_pod_outcome *o = &sim->out[i];

	p->arrive_s = o->t_arrive_s;
	p->start_s = o->state == GS_POD_RUNNING || o->state == GS_POD_DONE ? o->t_start_s : -1;
	p->end_s = o->t_end_s;
	p->departed = o->state == GS_POD_DONE;
	p->duration_s = duration_s(&sim->pods[i]);
}

/*
 * The sharing figures of a finished time-mode run (gs_summary): useful
 * work over the busy time, MIG idle and slack slices over the makespan.
 * Without the rate model every placed pod ran at full speed, so its useful
 * work is its need times its GPUs times the time it ran.
 */
static void finish_sharing(struct gs_sim *sim)
{
	const struct gs_time_metrics *tm = &sim->tm;
	int64_t cap = sim->cluster.gpu_count, t_end = tm->t_end_s;
	int64_t a0 = tm->t_first_arrival_s, a1 = tm->t_last_arrival_s;
	double useful = 0, useful_arr = 0;
	size_t i;

	sim->eff_util_pct = sim->eff_util_busy_pct = NAN;
	sim->mig_idle_pct = sim->mig_slack_pct = NAN;
	if (!tm->valid)
		return;
	if (sim->share_on) {
		const struct gs_share_figures *f = gs_share_model_finish(&sim->share, t_end);

		useful = f->useful_gpu_s;
		useful_arr = f->useful_arr_gpu_s;
		for (i = 0; i < sim->n_pods; i++) {
			struct gs_pod_outcome *o = &sim->out[i];

			if (o->state == GS_POD_RUNNING && o->pl.num_gpu)
				o->coloc = (float)(sim->share.p[i].coloc_s /
						   (double)(t_end > o->t_start_s ? t_end - o->t_start_s
										 : 1));
		}
		if (f->mig_slices > 0 && tm->makespan_s > 0) {
			double room = (double)f->mig_slices * (double)tm->makespan_s;

			sim->mig_idle_pct = 100.0 * f->mig_idle_slice_s / room;
			sim->mig_slack_pct = 100.0 * f->mig_slack_slice_s / room;
		}
	} else {
		for (i = 0; i < sim->n_pods; i++) {
			const struct gs_pod_outcome *o = &sim->out[i];
			int64_t end = o->state == GS_POD_DONE ? o->t_end_s : t_end;
			double w = gs_pod_need_milli(&sim->pods[i]) / 1000.0 * sim->pods[i].num_gpu;

			if (o->state != GS_POD_DONE && o->state != GS_POD_RUNNING)
				continue;
			if (end > o->t_start_s)
				useful += w * (double)(end - o->t_start_s);
			if ((end < a1 ? end : a1) > o->t_start_s)
				useful_arr += w * (double)((end < a1 ? end : a1) - o->t_start_s);
		}
	}
	/* Both windows start at the first arrival, before which nothing runs. */
	if (cap > 0 && a1 > a0)
		sim->eff_util_pct = 100.0 * useful_arr / ((double)cap * (double)(a1 - a0));
	if (cap > 0 && tm->busy_s > 0)
		sim->eff_util_busy_pct = 100.0 * useful / ((double)cap * (double)tm->busy_s);
}

/*
 * Works out an inflate run's per-percent statistics once; without memory,
 * leaves them to the readers, which work them out themselves.
 */
static void keep_arrived(struct gs_sim *sim)
{
	struct gs_arrived_stats *st = malloc(sizeof(*st));

	if (st && gs_arrived_stats_compute(sim->samples, sim->n_samples, sim->cluster.gpu_milli,
					   sim->frag_on, st) == 0) {
		sim->arrived = st;
		return;
	}
	free(st);
}

int gs_sim_run(struct gs_sim *sim, char *err, size_t err_len)
{
	int rc;

	if (sim->ran) {
		gs_errf(err, err_len, "a simulation runs only once");
		return GS_EINVAL;
	}
	sim->ran = true;
	rc = sim->opts.mode == GS_MODE_INFLATE ? run_inflate(sim) : run_time(sim);
	/* Always end the series on the final state. */
	if (rc == 0 && (sim->n_samples == 0 ||
			sim->samples[sim->n_samples - 1].event != sim->stats.events))
		rc = take_sample(sim, sim->stats.t_end_s);
	if (rc == 0 && sim->opts.mode == GS_MODE_TIME)
		rc = gs_metrics_finish(&sim->metrics, sim->n_pods, metrics_pod, sim,
				       gs_offered_load_pct(sim->pods, sim->t_arrive, sim->n_pods,
							   sim->cluster.gpu_milli),
				       &sim->tm);
	if (rc == 0 && sim->opts.mode == GS_MODE_TIME)
		finish_sharing(sim);
	if (rc == 0 && sim->opts.mode == GS_MODE_INFLATE)
		keep_arrived(sim);
	if (rc == GS_ECHECK) {
		char msg[256];

		if (gs_cluster_check(&sim->cluster, msg, sizeof(msg)) == 0)
			snprintf(msg, sizeof(msg), "a pending pod fits a node but was not placed");
		gs_errf(err, err_len, "invariant violated after event %lld: %s",
			(long long)sim->stats.events, msg);
	} else if (rc == GS_EINTR) {
		gs_errf(err, err_len, "simulation stopped after event %lld",
			(long long)sim->stats.events);
	} else if (rc == GS_ELIMIT && sim->fail_msg[0]) {
		gs_errf(err, err_len, "simulation refused after event %lld: %s",
			(long long)sim->stats.events, sim->fail_msg);
	} else if (rc) {
		gs_errf(err, err_len, "simulation failed after event %lld: %s",
			(long long)sim->stats.events, gs_strerror(rc));
	}
	return rc;
}
