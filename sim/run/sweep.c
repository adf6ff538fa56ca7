/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.c - the run matrix of `gpusim sweep` (see sweep.h): the spec
 * checked, the inputs loaded, the matrix laid out as a batch and run, the
 * outcomes gathered, and the statistics over seeds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "core/clock.h"
#include "core/error.h"
#include "io/path.h"
#include "run/audit.h"
#include "run/batch.h"
#include "run/exec.h"
#include "run/inputs.h"
#include "run/sweep.h"

/* Loads or scales per sharing mode. */
static size_t n_numbers(const struct gs_sweep_spec *spec)
{
	return spec->n_loads ? spec->n_loads : spec->n_scales ? spec->n_scales : 1;
}

static size_t n_settings(const struct gs_sweep_spec *spec)
{
	return n_numbers(spec) * (spec->n_sharings ? spec->n_sharings : 1);
}

/* The options of setting k: sharing modes outermost, then the loads or scales. */
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

/* How the matrix is run: the spec's execution options. */
static struct gs_exec_opts exec_opts(const struct gs_sweep_spec *spec)
{
	struct gs_exec_opts xo = {
		.db_path = spec->db_path,
		.jobs = spec->jobs,
		.no_pods = spec->no_pods,
		.arrival_samples = spec->arrival_samples,
		.shard_k = spec->shard_k,
		.shard_n = spec->shard_n,
		.claim_timeout_s = spec->claim_timeout_s,
		.progress = spec->progress,
		.name = "sweep",
		.on_signals = spec->on_signals,
	};

	return xo;
}

/* Step 1: what the spec alone makes impossible, before anything is read. */
static int check(const struct gs_sweep_spec *spec, const struct gs_exec_opts *xo, char *err,
		 size_t err_len)
{
	if (!spec->nodes_path || !spec->db_path || spec->n_traces == 0 || spec->n_policies == 0 ||
	    spec->n_seeds == 0 || spec->jobs < 1) {
		gs_errf(err, err_len, "a sweep needs a cluster, a database, at least one trace, "
			"policy and seed, and at least one job");
		return GS_EINVAL;
	}
	if (gs_exec_opts_check(xo, err, err_len))
		return GS_EINVAL;
	if (spec->n_loads && spec->n_scales) {
		gs_errf(err, err_len,
			"a sweep takes a list of loads or a list of time scales, not both");
		return GS_EINVAL;
	}
	if ((spec->n_loads || spec->n_scales) && spec->opts.mode != GS_MODE_TIME) {
		gs_errf(err, err_len, "loads and time scales apply to time mode only");
		return GS_EINVAL;
	}
	return 0;
}

/* The shape of the matrix in out: its axes, the settings' numbers, the traces' names. */
static int shape(const struct gs_sweep_spec *spec, struct gs_sweep *out, char *err,
		 size_t err_len)
{
	size_t n_set = n_settings(spec), i;

	out->n_traces = spec->n_traces;
	out->n_policies = spec->n_policies;
	out->n_settings = n_set;
	out->n_seeds = spec->n_seeds;
	out->n_numbers = n_numbers(spec);
	out->settings = calloc(n_set, sizeof(*out->settings));
	out->trace_names = calloc(spec->n_traces, sizeof(*out->trace_names));
	if (!out->settings || !out->trace_names)
		goto oom;
	for (i = 0; i < n_set; i++)
		out->settings[i] = spec->n_loads ? spec->loads[i % out->n_numbers] :
				   spec->n_scales ? spec->scales[i % out->n_numbers] : NAN;
	/* Enough of each path to tell traces of one file name apart. */
	if (gs_path_names(spec->pods_paths, spec->n_traces, NULL, out->trace_names))
		goto oom;
	return 0;
oom:
	gs_errf(err, err_len, "out of memory");
	return GS_ENOMEM;
}

/*
 * Step 3: the matrix as a batch, one cell per (trace, policy, setting,
 * seed) in that order (struct gs_sweep's), then checked on the inputs.
 */
static int plan(const struct gs_sweep_spec *spec, const struct gs_inputs *in, struct gs_batch *b,
		char *err, size_t err_len)
{
	struct gs_batch_cell c;
	size_t n_set = n_settings(spec), k, s;

	if (gs_inputs_add_to(in, b, spec->nodes_path, spec->pods_paths))
		goto oom;
	for (k = 0; k < n_set; k++) {
		struct gs_replay_opts o = setting_opts(spec, k);

		if (gs_batch_add_setting(b, &o))
			goto oom;
	}
	for (c.input = 0; c.input < spec->n_traces; c.input++)
		for (k = 0; k < spec->n_policies; k++)
			for (c.setting = 0; c.setting < n_set; c.setting++)
				for (s = 0; s < spec->n_seeds; s++) {
					c.policy = spec->policies[k];
					c.seed = spec->seeds[s];
					if (gs_batch_add_cell(b, &c))
						goto oom;
				}
	return gs_batch_check(b, err, err_len);
oom:
	gs_errf(err, err_len, "out of memory");
	return GS_ENOMEM;
}

/* Step 5: the outcomes and counts of the batch, taken over by out. */
static void gather(struct gs_exec_result *res, struct gs_sweep *out)
{
	out->cells = res->cells;
	res->cells = NULL;
	out->n_ran = res->n_ran;
	out->n_skipped = res->n_skipped;
	out->n_other_shards = res->n_other_shards;
	out->n_elsewhere = res->n_elsewhere;
	out->n_abandoned = res->n_abandoned;
	out->signal = res->signal;
	memcpy(out->plan_id, res->plan_id, sizeof(out->plan_id));
}

int gs_sweep_run(const struct gs_sweep_spec *spec, struct gs_sweep *out, char *err,
		 size_t err_len)
{
	struct gs_exec_opts xo = exec_opts(spec);
	struct gs_exec_result res;
	struct gs_inputs in;
	struct gs_batch b;
	double t0;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&res, 0, sizeof(res));
	gs_inputs_init(&in);
	gs_batch_init(&b);
	rc = check(spec, &xo, err, err_len);
	if (rc)
		return rc;
	t0 = gs_clock_s();
	rc = shape(spec, out, err, err_len);
	if (!rc && spec->n_state) /* step 2 */
		rc = gs_inputs_load_state(&in, spec->state_paths, spec->n_state,
					  spec->state_only ? NULL : spec->pods_paths, spec->n_traces,
					  spec->strict, err, err_len);
	else if (!rc)
		rc = gs_inputs_load(&in, spec->nodes_path, spec->pods_paths, spec->n_traces,
				    spec->strict, err, err_len);
	if (!rc)
		rc = plan(spec, &in, &b, err, err_len);
	if (!rc && spec->warn) {
		struct gs_audit_never *never = NULL;
		size_t n_never = 0;

		rc = gs_audit_batch(&b, spec->warn, "sweep", &never, &n_never, err, err_len);
		free(never);
	}
	if (!rc) /* step 4 */
		rc = gs_exec_batch(&b, &xo, &res, err, err_len);
	/* On failure out owns nothing; after a signal res holds what to say. */
	if (rc)
		gs_sweep_release(out);
	gather(&res, out);
	if (!rc)
		out->wall_s = gs_clock_s() - t0;
	gs_exec_result_release(&res);
	gs_batch_release(&b);
	gs_inputs_release(&in);
	return rc;
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

void gs_sweep_stats(const struct gs_sweep *s, size_t trace, size_t policy, size_t setting,
		    enum gs_fig fig, double *mean_out, double *sd_out, size_t *n_out)
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
