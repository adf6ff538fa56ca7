/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_opts.c - a replay's options: their defaults, the checks a run's
 * options, trace and cluster must pass before any run starts, and the
 * canonical JSON of the options that a stored run keeps (see replay.h).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "engine/inflate.h"
#include "engine/replay.h"

void gs_replay_opts_init(struct gs_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	gs_share_cfg_init(&o->sharing, GS_SHARE_IDEAL);
	o->mode = GS_MODE_TIME;
	o->seed = 42;
	o->time_scale = 1.0;
	o->max_wait_s = -1;
	o->sample_every = 1;
	o->sample_interval_s = 0;
	o->inflate = 1.3;
	o->frag_coverage = 0.95;
	o->load_repeat = 1;
	o->idle_job = (struct gs_idle_job)GS_IDLE_JOB_DEFAULT;
	gs_defrag_opts_init(&o->defrag);
}

/* The descheduler's options: a budget only in time mode, with shares as requested. */
static int check_defrag(const struct gs_replay_opts *o, char *err, size_t err_len)
{
	const struct gs_defrag_opts *d = &o->defrag;

	if (!(d->budget_pct >= 0 && d->budget_pct <= 100) || !(d->per_hour >= 0) ||
	    !isfinite(d->per_hour)) {
		gs_errf(err, err_len, "--defrag: a budget is a percentage of the pods from 0 to 100 "
			"or a number of moves per hour, not %g%% or %g/h", d->budget_pct,
			d->per_hour);
		return GS_EINVAL;
	}
	if ((d->cost != GS_DEFRAG_LOST && d->cost != GS_DEFRAG_RESTART) || d->restart_s < 0 ||
	    d->restart_s > GS_TIME_MAX_S) {
		gs_errf(err, err_len, "--defrag-cost: 'lost' or a restart time from 0 to %lld s",
			(long long)GS_TIME_MAX_S);
		return GS_EINVAL;
	}
	if (!gs_defrag_on(d))
		return 0;
	if (o->mode != GS_MODE_TIME) {
		gs_errf(err, err_len, "--defrag moves running pods, which only time mode has");
		return GS_EINVAL;
	}
	if (o->sharing.mode != GS_SHARE_IDEAL) {
		gs_errf(err, err_len, "--defrag works with shares as requested; --sharing %s would "
			"need the rate model to restart moved pods", gs_share_mode_str(o->sharing.mode));
		return GS_EINVAL;
	}
	return 0;
}

static int check_opts(const struct gs_replay_opts *o, char *err, size_t err_len)
{
	if (o->mode != GS_MODE_TIME && o->mode != GS_MODE_INFLATE) {
		gs_errf(err, err_len, "unknown replay mode %d", (int)o->mode);
		return GS_EINVAL;
	}
	if (!(o->time_scale > 0) || !isfinite(o->time_scale)) {
		gs_errf(err, err_len, "time scale must be a positive number, not %g",
			o->time_scale);
		return GS_EINVAL;
	}
	if (o->load_pct != 0 && (!(o->load_pct > 0) || !isfinite(o->load_pct))) {
		gs_errf(err, err_len, "load must be a positive percentage, not %g", o->load_pct);
		return GS_EINVAL;
	}
	if (o->load_pct > 0 && o->mode != GS_MODE_TIME) {
		gs_errf(err, err_len, "a load applies to time mode only");
		return GS_EINVAL;
	}
	if (o->load_pct > 0 && o->time_scale != 1.0) {
		gs_errf(err, err_len, "a load and a time scale both set the arrival times; "
			"give one of them");
		return GS_EINVAL;
	}
	if (o->load_repeat < 1 || o->load_repeat > 1000000 ||
	    (o->load_repeat > 1 && !(o->load_pct > 0))) {
		gs_errf(err, err_len, "a repeat must be from 1 to 1000000, and above 1 only with a "
			"load, not %lld", (long long)o->load_repeat);
		return GS_EINVAL;
	}
	if (o->load_cap_milli < 0 || (o->load_cap_milli > 0 && !(o->load_pct > 0))) {
		gs_errf(err, err_len, "a load's capacity must be positive, and set only with a "
			"load, not %lld", (long long)o->load_cap_milli);
		return GS_EINVAL;
	}
	if (o->arrivals != GS_ARRIVALS_POISSON && o->arrivals != GS_ARRIVALS_TRACE) {
		gs_errf(err, err_len, "unknown arrival shape %d", (int)o->arrivals);
		return GS_EINVAL;
	}
	if (o->sample_every < 1) {
		gs_errf(err, err_len, "sample-every must be at least 1, not %lld",
			(long long)o->sample_every);
		return GS_EINVAL;
	}
	if (o->sample_interval_s < 0) {
		gs_errf(err, err_len, "sample interval must not be negative");
		return GS_EINVAL;
	}
	if (o->mode == GS_MODE_INFLATE && (!(o->inflate > 0) || !isfinite(o->inflate))) {
		gs_errf(err, err_len, "inflate factor must be a positive number, not %g",
			o->inflate);
		return GS_EINVAL;
	}
	if (o->mode == GS_MODE_INFLATE && o->inflate > GS_INFLATE_MAX) {
		gs_errf(err, err_len, "inflate factor %g is greater than %g (--inflate)", o->inflate,
			GS_INFLATE_MAX);
		return GS_ERANGE;
	}
	if (o->max_wait_s < -1) {
		gs_errf(err, err_len, "max wait must be -1 (forever) or a number of seconds, not %lld",
			(long long)o->max_wait_s);
		return GS_EINVAL;
	}
	if (!(o->frag_coverage > 0 && o->frag_coverage <= 1)) {
		gs_errf(err, err_len, "fragmentation coverage must be in (0, 1], not %g",
			o->frag_coverage);
		return GS_EINVAL;
	}
	return check_defrag(o, err, err_len);
}

/*
 * The sampling grid (--sample-interval) from 0 to the last arrival plus
 * the longest stay must stay within GS_SAMPLE_GRID_MAX points: one hour
 * over a trace that spans 2^53 s would be 2.5e12 samples. arrive holds
 * the arrivals, or is NULL and every pod counts as arriving at arrive_last.
 */
static int check_grid(const struct gs_trace *t, const struct gs_replay_opts *o,
		      const int64_t *arrive, double arrive_last, char *err, size_t err_len)
{
	double last = 0, points;
	size_t i;

	if (o->sample_interval_s <= 0)
		return 0;
	for (i = 0; i < t->n_pods; i++) {
		int64_t d = gs_pod_duration_s(&t->pods[i]);
		double end = (arrive ? (double)arrive[i] : arrive_last) + (double)(d > 0 ? d : 0);

		if (end > last)
			last = end;
	}
	points = last / (double)o->sample_interval_s;
	if (points > GS_SAMPLE_GRID_MAX) {
		gs_errf(err, err_len, "--sample-interval %lld over arrivals and stays up to %.0f s "
			"takes about %.3g samples, more than the %d a run may have "
			"(--sample-interval)", (long long)o->sample_interval_s, last, points,
			GS_SAMPLE_GRID_MAX);
		return GS_ERANGE;
	}
	return 0;
}

int gs_sim_validate(const struct gs_cluster *proto, const struct gs_trace *t,
		    const struct gs_replay_opts *o, char *err, size_t err_len)
{
	const char *name = t->path ? t->path : "trace";
	double expected, w;
	size_t i;
	int rc = check_opts(o, err, err_len);

	if (rc)
		return rc;
	/* The default spec against every GPU it would apply to, so that no run of a sweep starts first. */
	if (o->sharing.mode != GS_SHARE_DEFAULT) {
		char msg[256];

		rc = gs_cluster_share_check(proto, &o->sharing, msg, sizeof(msg));
		if (rc) {
			gs_errf(err, err_len, "--sharing %s: %s",
				gs_share_format(&o->sharing, (char[GS_SHARE_SPEC_MAX]){ 0 },
						GS_SHARE_SPEC_MAX), msg);
			return rc;
		}
	}
	if (gs_defrag_on(&o->defrag) && proto->share) {
		gs_errf(err, err_len, "--defrag works with shares as requested; the cluster file "
			"sets sharing modes");
		return GS_EINVAL;
	}
	/* The rate model of a sharing run counts work in 2^-20 s: stays are bounded. */
	if (o->mode == GS_MODE_TIME &&
	    (proto->share || (o->sharing.mode != GS_SHARE_DEFAULT &&
			      o->sharing.mode != GS_SHARE_IDEAL))) {
		for (i = 0; i < t->n_pods; i++) {
			int64_t d = gs_pod_duration_s(&t->pods[i]);

			if (d <= GS_SHARE_WORK_MAX_S)
				continue;
			gs_errf(err, err_len, "%s: pod '%s' stays %lld s; with a sharing mode a pod "
				"may stay at most %lld s (--sharing)", name,
				t->pod_names ? t->pod_names[i] : "?", (long long)d,
				(long long)GS_SHARE_WORK_MAX_S);
			return GS_ERANGE;
		}
	}
	if (o->mode == GS_MODE_TIME && o->load_pct > 0) {
		/* The arrivals of a load do not depend on the policy: check them once here. */
		char msg[384];

		rc = gs_arrivals_check(t->pods, t->n_pods, o->load_repeat,
				       gs_replay_load_cap(o, proto), o->load_pct, o->arrivals, msg,
				       sizeof(msg));
		if (rc == GS_ENOMEM)
			gs_errf(err, err_len, "out of memory");
		else if (rc)
			gs_errf(err, err_len, "%s: load %g%%: %s", name, o->load_pct, msg);
		else if (gs_arrivals_window(t->pods, t->n_pods, gs_replay_load_cap(o, proto),
					    o->load_pct, &w, msg, sizeof(msg)) == 0)
			rc = check_grid(t, o, NULL, w * (double)(o->load_repeat > 1 ? o->load_repeat : 1),
					err, err_len);
		return rc;
	}
	if (o->mode == GS_MODE_TIME) {
		int64_t *arrive = malloc((t->n_pods ? t->n_pods : 1) * sizeof(*arrive));

		if (!arrive)
			return gs_errf_nomem(err, err_len);
		for (i = 0; i < t->n_pods; i++) {
			if (gs_arrivals_scaled(o->time_scale, &t->pods[i], &arrive[i]))
				continue;
			gs_errf(err, err_len, "%s: pod '%s' would arrive at %g s (creation_time "
				"%lld divided by the time scale %g), past the last simulated "
				"second %lld (--time-scale)", name,
				t->pod_names ? t->pod_names[i] : "?",
				(double)t->pods[i].t_create_s / o->time_scale,
				(long long)t->pods[i].t_create_s, o->time_scale,
				(long long)GS_TIME_MAX_S);
			free(arrive);
			return GS_ERANGE;
		}
		rc = check_grid(t, o, arrive, 0, err, err_len);
		free(arrive);
		return rc;
	}
	/* Inflate mode grows the trace by its GPU request until it fills the GPUs. */
	if (proto->gpu_milli <= 0) {
		gs_errf(err, err_len, "the cluster has no GPUs, and inflate mode fills GPU capacity "
			"(use --mode time)");
		return GS_EINVAL;
	}
	expected = gs_inflate_expected(t, o->inflate, proto->gpu_milli);
	if (isinf(expected)) {
		gs_errf(err, err_len, "%s: no pod asks for a GPU, so inflate mode cannot grow it to "
			"%g times the GPU capacity (use --mode time)", name, o->inflate);
		return GS_EINVAL;
	}
	if (!(expected <= GS_INFLATE_MAX_PODS)) {
		gs_errf(err, err_len, "%s: inflating it to %g times the GPU capacity takes about %.3g "
			"pods, more than the %d a run may have (lower --inflate)", name,
			o->inflate, expected, GS_INFLATE_MAX_PODS);
		return GS_ERANGE;
	}
	return 0;
}

int gs_replay_params_json(const struct gs_replay_opts *o, char **json_out)
{
	cJSON *obj = cJSON_CreateObject();
	char *text, *copy = NULL;
	bool ok;

	if (!obj)
		return GS_ENOMEM;
	ok = cJSON_AddStringToObject(obj, "mode",
				     o->mode == GS_MODE_INFLATE ? "inflate" : "time") &&
	     cJSON_AddNumberToObject(obj, "time_scale", o->time_scale) &&
	     cJSON_AddNumberToObject(obj, "max_wait_s", (double)o->max_wait_s) &&
	     cJSON_AddNumberToObject(obj, "sample_every", (double)o->sample_every) &&
	     cJSON_AddNumberToObject(obj, "sample_interval_s", (double)o->sample_interval_s) &&
	     cJSON_AddNumberToObject(obj, "inflate", o->inflate) &&
	     cJSON_AddNumberToObject(obj, "frag_coverage", o->frag_coverage) &&
	     cJSON_AddBoolToObject(obj, "frag", o->frag) &&
	     cJSON_AddBoolToObject(obj, "compat", (o->policy_flags & GS_POLICY_COMPAT) != 0) &&
	     cJSON_AddNumberToObject(obj, "policy_flags", (double)o->policy_flags);
	/*
	 * Keys added after schema 1.0 appear only when they are set, so that
	 * a run with the old options keeps the old text and a resumed sweep
	 * still finds it.
	 */
	if (ok && o->load_pct > 0)
		ok = cJSON_AddNumberToObject(obj, "load", o->load_pct) &&
		     cJSON_AddStringToObject(obj, "arrivals", gs_arrivals_str(o->arrivals)) &&
		     cJSON_AddNumberToObject(obj, "repeat", (double)o->load_repeat);
	if (ok && o->load_pct > 0 && o->load_cap_milli > 0)
		ok = cJSON_AddNumberToObject(obj, "load_capacity_milli",
					     (double)o->load_cap_milli) != NULL;
	if (ok && o->sharing.mode != GS_SHARE_IDEAL) {
		char spec[GS_SHARE_SPEC_MAX];

		ok = cJSON_AddStringToObject(obj, "sharing",
					     gs_share_format(&o->sharing, spec, sizeof(spec))) != NULL;
	}
	if (ok && o->interference)
		ok = cJSON_AddStringToObject(obj, "interference", o->interference->sha256) != NULL;
	if (ok && (o->idle_job.num_gpu != 1 || o->idle_job.cpu_milli != 8000 ||
		   o->idle_job.mem_mib != 0)) {
		cJSON *job = cJSON_AddObjectToObject(obj, "idle_job");

		ok = job && cJSON_AddNumberToObject(job, "num_gpu", o->idle_job.num_gpu) &&
		     cJSON_AddNumberToObject(job, "cpu_milli", o->idle_job.cpu_milli) &&
		     cJSON_AddNumberToObject(job, "mem_mib", (double)o->idle_job.mem_mib);
	}
	if (ok && o->busy && o->busy->n > 0) {
		char shas[GS_BUSY_ITEMS_MAX * 65 + 1];
		size_t used = 0;
		int i;

		/* The distributions by their bytes, so that a changed file is another run. */
		shas[0] = '\0';
		for (i = 0; i < o->busy->n_dists; i++)
			used += (size_t)snprintf(shas + used, sizeof(shas) - used, "%s%s",
						 i ? "," : "", o->busy->dists[i]->sha256);
		ok = cJSON_AddStringToObject(obj, "busy", o->busy->spec) != NULL &&
		     (o->busy->n_dists == 0 ||
		      cJSON_AddStringToObject(obj, "busy_sha256", shas) != NULL);
	}
	if (ok && gs_defrag_on(&o->defrag))
		ok = cJSON_AddNumberToObject(obj, "defrag_pct", o->defrag.budget_pct) &&
		     cJSON_AddNumberToObject(obj, "defrag_per_hour", o->defrag.per_hour) &&
		     cJSON_AddNumberToObject(obj, "defrag_restart_s",
					     o->defrag.cost == GS_DEFRAG_LOST ? -1.0
									      : (double)o->defrag.restart_s);
	text = ok ? cJSON_PrintUnformatted(obj) : NULL;
	cJSON_Delete(obj);
	if (text) {
		copy = strdup(text);
		cJSON_free(text);
	}
	if (!copy)
		return GS_ENOMEM;
	*json_out = copy;
	return 0;
}
