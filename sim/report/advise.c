/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise.c - `gpusim advise`, step by step (see advise.h): the checks,
 * the candidates, the matrix of runs, the verdict, more seeds where the
 * best has a tie, and the decision record. The capacity search is in
 * advise_capacity.c, the verdict's text and JSON in advise_print.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/mig.h"
#include "engine/arrivals.h"
#include "io/path.h"
#include "report/advise.h"
#include "report/advise_internal.h"
#include "report/advise_print.h"
#include "run/exec.h"

void gs_advise_mechanisms(const struct gs_cluster *c, struct gs_share_cfg *out, size_t *n)
{
	static const enum gs_share_mode real[] = { GS_SHARE_EXCLUSIVE, GS_SHARE_TIMESLICE,
						   GS_SHARE_MPS, GS_SHARE_VGPU };
	size_t i;
	int32_t k;
	bool mig = false;

	*n = 0;
	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++)
		gs_share_cfg_init(&out[(*n)++], real[i]);
	for (k = 0; k < c->n_nodes && !mig; k++)
		mig = c->nodes[k].num_gpu > 0 &&
		      gs_mig_table_for_model(c->models.m[c->nodes[k].model].name) != NULL;
	if (mig)
		gs_share_cfg_init(&out[(*n)++], GS_SHARE_MIG);
}

void gs_advise_release(struct gs_advise *a)
{
	size_t i;

	for (i = 0; a->trace_names && i < a->n_traces; i++)
		free(a->trace_names[i]);
	free(a->trace_names);
	free(a->n_pods);
	free(a->loads);
	for (i = 0; a->cand_sharing && i < a->n_cands; i++)
		free(a->cand_sharing[i]);
	free(a->cand_sharing);
	free(a->cands);
	free(a->seeds);
	for (i = 0; i < a->n_blocks; i++) {
		if (a->runs)
			free(a->runs[i]);
		if (a->run_ids)
			free(a->run_ids[i]);
		if (a->sizes) {
			size_t k;

			for (k = 0; a->n_sizes && k < a->n_sizes[i]; k++)
				free(a->sizes[i][k].seed_size);
			free(a->sizes[i]);
		}
	}
	GS_MEM_FREE(a->runs, a->run_ids, a->sizes, a->n_sizes, a->points, a->never);
	gs_decide_result_release(&a->decision);
	memset(a, 0, sizeof(*a));
}

/* ---- the batches ------------------------------------------------------------ */

long gs__advise_add_input(struct adv_ctx *x, const struct gs_batch_input *bi)
{
	struct gs_batch_input *g = gs_grow(x->inputs, &x->cap_inputs, x->n_inputs, sizeof(*g), 8);

	if (!g)
		return -1;
	x->inputs = g;
	x->inputs[x->n_inputs] = *bi;
	return (long)x->n_inputs++;
}

size_t gs__advise_setting(struct adv_ctx *x, size_t m, size_t l, bool capped, char *err, size_t err_len,
		   int *rc)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_replay_opts o = spec->opts;
	struct gs_replay_opts *g;
	size_t i;

	*rc = 0;
	o.sharing = x->mechs[m];
	o.load_pct = isnan(x->a->loads[l]) ? 0 : x->a->loads[l];
	o.load_cap_milli = capped && o.load_pct > 0 ? x->in.clusters[0].gpu_milli : 0;
	for (i = 0; i < x->n_settings; i++) {
		const struct gs_replay_opts *s = &x->settings[i];

		if (gs_share_cfg_equal(&s->sharing, &o.sharing) && s->load_pct == o.load_pct &&
		    s->load_cap_milli == o.load_cap_milli)
			return i;
	}
	g = gs_grow(x->settings, &x->cap_settings, x->n_settings, sizeof(*g), 16);
	if (!g) {
		gs_errf(err, err_len, "out of memory");
		*rc = GS_ENOMEM;
		return 0;
	}
	x->settings = g;
	x->settings[x->n_settings] = o;
	return x->n_settings++;
}

void gs__advise_fill_run(struct gs_decide_run *r, const struct gs_outcome *o)
{
	r->ran = o->run_id >= 0;
	memcpy(r->fig, o->fig, sizeof(r->fig));
	r->gpus = NAN;
}

/* The record of a run: which candidate, where, at which seed. */
static int add_rec(struct adv_ctx *x, const struct adv_cell *c, int64_t run_id, const char *role)
{
	struct gs_advise *a = x->a;
	struct gs_decision_run *g;
	double load = gs_advise_load(a, c->block);

	if (run_id < 0)
		return 0;
	GS_GROW_PUSH(x->rec, x->n_rec, x->cap_rec, 256, g);
	if (!g)
		return GS_ENOMEM;
	g->run_id = run_id;
	g->role = a->cands[c->cand].reference ? "reference" : role;
	g->pods_path = x->spec->pods_paths[gs_advise_trace(a, c->block)];
	g->load_pct = load;
	g->policy = a->cands[c->cand].policy;
	g->sharing = a->cands[c->cand].sharing;
	g->seed = a->seeds[c->seed];
	g->gpu_nodes = c->size;
	return 0;
}

int gs__advise_run_cells(struct adv_ctx *x, const struct adv_cell *cells, size_t n,
		  struct gs_outcome *out, const char *role, bool pods, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_exec_opts xo = {
		.db_path = spec->db_path,
		.jobs = spec->jobs,
		.no_pods = spec->no_pods || !pods,
		.claim_timeout_s = spec->claim_timeout_s,
		.progress = spec->progress,
		.name = "advise",
		.on_signals = spec->on_signals,
	};
	struct gs_exec_result res;
	struct gs_batch b;
	size_t i;
	int rc = 0;

	if (n == 0)
		return 0;
	gs_batch_init(&b);
	for (i = 0; i < x->n_inputs && !rc; i++)
		rc = gs_batch_add_input(&b, &x->inputs[i]);
	for (i = 0; i < x->n_settings && !rc; i++)
		rc = gs_batch_add_setting(&b, &x->settings[i]);
	for (i = 0; i < n && !rc; i++) {
		struct gs_batch_cell bc = {
			.input = cells[i].input,
			.setting = cells[i].setting,
			.policy = x->cand_policy[cells[i].cand],
			.seed = x->a->seeds[cells[i].seed],
		};

		rc = gs_batch_add_cell(&b, &bc);
	}
	if (rc) {
		gs_batch_release(&b);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	rc = gs_batch_check(&b, err, err_len);
	if (rc && !strncmp(err, "load ", 5)) {
		/* A load a trace cannot offer: the option to change. */
		char msg[1024];

		snprintf(msg, sizeof(msg), "--load: %s", err);
		gs_errf(err, err_len, "%s", msg);
	}
	if (!rc && !x->warned) {
		/* The first batch is the matrix: its inputs are the traces, in order. */
		rc = gs_audit_batch(&b, spec->warn, "advise", &x->a->never, &x->a->n_never, err,
				    err_len);
		x->warned = true;
	}
	if (rc) {
		gs_batch_release(&b);
		return rc;
	}
	rc = gs_exec_batch(&b, &xo, &res, err, err_len);
	if (rc == GS_EINTR) {
		x->a->signal = res.signal;
		x->a->n_stored_on_stop += res.n_ran;
	}
	if (!rc) {
		for (i = 0; i < n && !rc; i++) {
			out[i] = res.cells[i];
			rc = add_rec(x, &cells[i], res.cells[i].run_id, role);
		}
		if (rc)
			gs_errf(err, err_len, "out of memory");
		x->a->n_runs += n;
		x->a->n_ran += res.n_ran;
		x->a->n_skipped += res.n_skipped;
	}
	gs_exec_result_release(&res);
	gs_batch_release(&b);
	return rc;
}

/* ---- the steps ---------------------------------------------------------------- */

/* Step 1a: what the spec alone makes impossible. */
static int check_spec(const struct gs_advise_spec *s, char *err, size_t err_len)
{
	size_t i;

	if (!s->nodes_path || !s->db_path || !s->n_traces || !s->n_policies || !s->n_seeds ||
	    s->jobs < 1 || !s->base_policy) {
		gs_errf(err, err_len, "advise needs a cluster, a database, at least one trace, "
			"policy and seed, a baseline and at least one job");
		return GS_EINVAL;
	}
	if (s->max_seeds < s->n_seeds) {
		gs_errf(err, err_len, "--max-seeds: %zu is fewer than the %zu seeds given",
			s->max_seeds, s->n_seeds);
		return GS_EINVAL;
	}
	if (s->opts.mode != GS_MODE_TIME) {
		gs_errf(err, err_len, "advise replays in time mode only");
		return GS_EINVAL;
	}
	if (!(s->alpha > 0 && s->alpha < 1) || !(s->conf > 0 && s->conf < 1)) {
		gs_errf(err, err_len, "--alpha and the confidence level are between 0 and 1");
		return GS_EINVAL;
	}
	for (i = 0; i < s->n_sharings; i++)
		if (s->sharings[i].mode == GS_SHARE_IDEAL) {
			gs_errf(err, err_len, "--sharing: ideal (sharing at no cost) is the "
				"reference line, never a candidate: leave it out");
			return GS_EINVAL;
		}
	if (s->base_sharing.mode == GS_SHARE_IDEAL) {
		gs_errf(err, err_len, "--baseline: ideal cannot be the baseline: no cluster runs "
			"it; give a real mechanism (exclusive+binpack)");
		return GS_EINVAL;
	}
	if (s->objective.metric == GS_METRIC_GPUS && !s->objective.score && !s->n_targets) {
		gs_errf(err, err_len, "--objective: gpus is the smallest cluster meeting --target: "
			"give a --target");
		return GS_EINVAL;
	}
	for (i = 0; i < s->n_conds; i++)
		if (s->conds[i].metric == GS_METRIC_GPUS) {
			gs_errf(err, err_len, "--constraint: gpus is what a capacity search finds, "
				"not a constraint on the runs");
			return GS_EINVAL;
		}
	return 0;
}

/* A short list of the GPU models of c: "H100" or "T4, V100M16, ...". */
static void model_list(const struct gs_cluster *c, char *buf, size_t len)
{
	uint32_t seen = 0;
	size_t o = 0;
	int32_t k;

	buf[0] = '\0';
	for (k = 0; k < c->n_nodes && o < len; k++) {
		const struct gs_node *nd = &c->nodes[k];

		if (nd->num_gpu == 0 || (seen >> nd->model & 1u))
			continue;
		seen |= 1u << nd->model;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
				      c->models.m[nd->model].name);
	}
}

/* Whether mechanism cfg can run on some GPU of c: 0, or GS_EINVAL naming opt. */
static int check_mech(const struct gs_cluster *c, const char *nodes_path, const char *opt,
		      const struct gs_share_cfg *cfg, char *err, size_t err_len)
{
	struct gs_share_cfg list[8];
	struct gs_cluster copy;
	char spec[GS_SHARE_SPEC_MAX], models[256], msg[512];
	size_t n, i;
	int32_t whole = 0;
	int rc;

	gs_share_format(cfg, spec, sizeof(spec));
	gs_advise_mechanisms(c, list, &n);
	for (i = 0; i < n && list[i].mode != cfg->mode; i++)
		;
	if (i == n) {
		model_list(c, models, sizeof(models));
		gs_errf(err, err_len, "%s: %s: no GPU of %s can do it (its GPU models: %s; MIG "
			"needs A100, H100 or H200)", opt, spec, nodes_path, models);
		return GS_EINVAL;
	}
	gs_cluster_init(&copy);
	rc = gs_cluster_copy(&copy, c);
	if (!rc)
		rc = gs_cluster_share_default(&copy, cfg, &whole, msg, sizeof(msg));
	gs_cluster_release(&copy);
	if (rc == GS_ENOMEM) {
		gs_errf(err, err_len, "out of memory");
		return rc;
	}
	if (rc) {
		gs_errf(err, err_len, "%s: %s: %s", opt, spec, msg);
		return GS_EINVAL;
	}
	return 0;
}

/* Step 1b: load the traces; refuse a cluster without GPUs. */
static int load_inputs(struct adv_ctx *x, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_advise *a = x->a;
	const struct gs_cluster *c;
	uint32_t seen = 0;
	size_t t, o = 0;
	int32_t k;
	int rc;

	rc = gs_inputs_load(&x->in, spec->nodes_path, spec->pods_paths, spec->n_traces, false, err,
			    err_len);
	if (rc)
		return rc;
	c = &x->in.clusters[0];
	if (c->gpu_count == 0) {
		gs_errf(err, err_len, "--nodes: %s has no GPU: advise compares GPU placement "
			"policies and sharing mechanisms", spec->nodes_path);
		return GS_EINVAL;
	}
	if (c->share) {
		/* --sharing applies to the GPUs the file leaves unset: there must be some. */
		int64_t unset = 0;
		int g;

		for (k = 0; k < c->n_nodes; k++)
			for (g = 0; g < c->nodes[k].num_gpu; g++)
				unset += c->share[k].gpu[g].cfg == 0;
		if (!unset) {
			gs_errf(err, err_len, "--nodes: %s gives every GPU a sharing mode, so there "
				"is no mechanism left to choose; leave the sharing column out (or "
				"empty for the GPUs to decide on)", spec->nodes_path);
			return GS_EINVAL;
		}
	}
	a->n_traces = spec->n_traces;
	a->pods_paths = spec->pods_paths;
	a->n_nodes = c->n_nodes;
	a->gpu_count = c->gpu_count;
	for (k = 0; k < c->n_nodes; k++)
		a->n_gpu_nodes += c->nodes[k].num_gpu > 0;
	a->gpu_models[0] = '\0';
	for (k = 0; k < c->n_nodes && o < sizeof(a->gpu_models); k++) {
		const struct gs_node *nd = &c->nodes[k];
		int64_t gpus = 0;
		int32_t j;

		if (nd->num_gpu == 0 || (seen >> nd->model & 1u))
			continue;
		seen |= 1u << nd->model;
		for (j = 0; j < c->n_nodes; j++)
			if (c->nodes[j].num_gpu > 0 && c->nodes[j].model == nd->model)
				gpus += c->nodes[j].num_gpu;
		o += (size_t)snprintf(a->gpu_models + o, sizeof(a->gpu_models) - o, "%s%lld x %s",
				      o ? ", " : "", (long long)gpus, c->models.m[nd->model].name);
	}
	a->trace_names = calloc(spec->n_traces, sizeof(*a->trace_names));
	a->n_pods = calloc(spec->n_traces, sizeof(*a->n_pods));
	if (!a->trace_names || !a->n_pods ||
	    gs_path_names(spec->pods_paths, spec->n_traces, NULL, a->trace_names)) {
		free(a->trace_names);
		a->trace_names = NULL;
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	for (t = 0; t < spec->n_traces; t++) {
		struct gs_batch_input bi = {
			.cluster = &x->in.clusters[t],
			.trace = &x->in.traces[t],
			.nodes_path = spec->nodes_path,
			.nodes_sha256 = x->in.nodes_sha256,
			.pods_path = spec->pods_paths[t],
		};

		a->n_pods[t] = x->in.traces[t].n_pods;
		if (gs__advise_add_input(x, &bi) < 0) {
			gs_errf(err, err_len, "out of memory");
			return GS_ENOMEM;
		}
	}
	return 0;
}

/* The index of mechanism cfg in x->mechs, appended when new; -1 when full. */
static long mech_index(struct adv_ctx *x, const struct gs_share_cfg *cfg)
{
	size_t m;

	for (m = 0; m < x->n_mechs; m++)
		if (gs_share_cfg_equal(&x->mechs[m], cfg))
			return (long)m;
	if (x->n_mechs == ADV_MECHS_MAX)
		return -1;
	x->mechs[x->n_mechs] = *cfg;
	return (long)x->n_mechs++;
}

/* Appends candidate (p, mechanism m); -1 when out of memory. */
static int add_cand(struct adv_ctx *x, size_t *cap, const struct gs_policy *p, size_t m,
		    bool reference)
{
	struct gs_advise *a = x->a;
	char spec[GS_SHARE_SPEC_MAX];

	if (a->n_cands == *cap) {
		size_t n = *cap ? 2 * *cap : 16;

		if (GS_GROW_RESIZE(a->cands, n) || GS_GROW_RESIZE(x->cand_policy, n) ||
		    GS_GROW_RESIZE(x->cand_mech, n) || GS_GROW_RESIZE(a->cand_sharing, n))
			return -1;
		*cap = n;
	}
	a->cand_sharing[a->n_cands] = strdup(gs_share_format(&x->mechs[m], spec, sizeof(spec)));
	if (!a->cand_sharing[a->n_cands])
		return -1;
	a->cands[a->n_cands].policy = p->name;
	a->cands[a->n_cands].sharing = a->cand_sharing[a->n_cands];
	a->cands[a->n_cands].reference = reference;
	x->cand_policy[a->n_cands] = p;
	x->cand_mech[a->n_cands] = m;
	a->n_cands++;
	return 0;
}

/*
 * Step 2: the mechanisms (checked against the cluster), the candidates
 * (policy x mechanism, the baseline among them), then the reference:
 * ideal under the baseline's policy, one line per load.
 */
static int candidates(struct adv_ctx *x, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	const struct gs_cluster *c = &x->in.clusters[0];
	struct gs_share_cfg list[8], ideal;
	const struct gs_share_cfg *mechs = spec->sharings;
	size_t n_mechs = spec->n_sharings, cap = 0, m, p, base_m, n_real;
	long k;
	int rc;

	if (!n_mechs) {
		gs_advise_mechanisms(c, list, &n_mechs);
		mechs = list;
	}
	for (m = 0; m < n_mechs; m++) {
		rc = check_mech(c, spec->nodes_path, "--sharing", &mechs[m], err, err_len);
		if (rc)
			return rc;
		if (mech_index(x, &mechs[m]) < 0) {
			gs_errf(err, err_len, "--sharing: at most %d mechanisms", ADV_MECHS_MAX - 2);
			return GS_EINVAL;
		}
	}
	n_real = x->n_mechs;
	for (m = 0; m < n_real; m++)
		for (p = 0; p < spec->n_policies; p++)
			if (add_cand(x, &cap, spec->policies[p], m, false))
				goto oom;
	rc = check_mech(c, spec->nodes_path, "--baseline", &spec->base_sharing, err, err_len);
	if (rc)
		return rc;
	k = mech_index(x, &spec->base_sharing);
	if (k < 0)
		goto oom;
	base_m = (size_t)k;
	for (x->a->baseline = 0; x->a->baseline < x->a->n_cands; x->a->baseline++)
		if (x->cand_policy[x->a->baseline] == spec->base_policy &&
		    x->cand_mech[x->a->baseline] == base_m)
			break;
	if (x->a->baseline == x->a->n_cands && add_cand(x, &cap, spec->base_policy, base_m, false))
		goto oom;
	if (spec->no_reference)
		return 0;
	gs_share_cfg_init(&ideal, GS_SHARE_IDEAL);
	k = mech_index(x, &ideal);
	if (k < 0 || add_cand(x, &cap, spec->base_policy, (size_t)k, true))
		goto oom;
	return 0;
oom:
	gs_errf(err, err_len, "out of memory");
	return GS_ENOMEM;
}

/* The seeds: the initial ones, then the next integers after the largest, up to max_seeds. */
static int seeds(struct adv_ctx *x)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_advise *a = x->a;
	uint64_t next = 0;
	size_t i, j;

	a->seeds = malloc(spec->max_seeds * sizeof(*a->seeds));
	if (!a->seeds)
		return GS_ENOMEM;
	for (i = 0; i < spec->n_seeds; i++) {
		a->seeds[i] = spec->seeds[i];
		if (spec->seeds[i] >= next)
			next = spec->seeds[i] + 1;
	}
	for (; i < spec->max_seeds; i++) {
		for (j = 0; j < spec->n_seeds && spec->seeds[j] != next; j++)
			;
		a->seeds[i] = next++;
	}
	a->n_seeds = spec->max_seeds;
	a->n_seeds_initial = spec->n_seeds;
	return 0;
}

/*
 * The loads: the spec's, or NAN for the traces' own times. Default levels
 * (spec->loads_default) that a trace cannot offer are left out with a
 * note on spec->warn; a level given with --load is checked with the
 * batch, and refused.
 */
static int loads(struct adv_ctx *x, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_advise *a = x->a;
	size_t l, t;
	char msg[512];

	a->loads = malloc((spec->n_loads ? spec->n_loads : 1) * sizeof(*a->loads));
	if (!a->loads) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	a->n_loads = 0;
	if (!spec->n_loads)
		a->loads[a->n_loads++] = NAN;
	for (l = 0; l < spec->n_loads; l++) {
		int rc = 0;

		for (t = 0; spec->loads_default && t < spec->n_traces && !rc; t++) {
			const struct gs_trace *tr = &x->in.traces[t];

			rc = gs_arrivals_check(tr->pods, tr->n_pods, spec->opts.load_repeat,
					       x->in.clusters[t].gpu_milli, spec->loads[l],
					       spec->opts.arrivals, msg, sizeof(msg));
			if (rc == GS_ENOMEM) {
				gs_errf(err, err_len, "out of memory");
				return rc;
			}
			if (rc && spec->warn)
				fprintf(spec->warn, "gpusim advise: load %g%% left out: %s: %s (give "
					"--repeat K, or --load)\n", spec->loads[l], spec->pods_paths[t],
					msg);
		}
		if (!rc)
			a->loads[a->n_loads++] = spec->loads[l];
	}
	if (!a->n_loads) {
		gs_errf(err, err_len, "--load: no default level can be offered by every trace; "
			"give --repeat K or --load");
		return GS_EINVAL;
	}
	return 0;
}

/* The blocks' arrays, every run not yet run. */
static int blocks(struct adv_ctx *x)
{
	struct gs_advise *a = x->a;
	size_t b, i, n = a->n_cands * a->n_seeds;

	a->n_blocks = a->n_traces * a->n_loads;
	a->runs = calloc(a->n_blocks, sizeof(*a->runs));
	a->run_ids = calloc(a->n_blocks, sizeof(*a->run_ids));
	if (!a->runs || !a->run_ids)
		return GS_ENOMEM;
	for (b = 0; b < a->n_blocks; b++) {
		a->runs[b] = calloc(n, sizeof(**a->runs));
		a->run_ids[b] = malloc(n * sizeof(**a->run_ids));
		if (!a->runs[b] || !a->run_ids[b])
			return GS_ENOMEM;
		for (i = 0; i < n; i++) {
			a->runs[b][i].gpus = NAN;
			a->run_ids[b][i] = -1;
		}
	}
	return 0;
}

/*
 * Runs the cells of the given (block, cand, seed) triples on the given
 * cluster, and keeps them. Pod rows are stored for the first seed only
 * (the report's completion-time CDFs read them; on openb they would be
 * most of the database), none with spec->no_pods.
 */
static int run_matrix_cells(struct adv_ctx *x, struct adv_cell *cells, size_t n, char *err,
			    size_t err_len)
{
	struct gs_advise *a = x->a;
	struct gs_outcome *out = malloc((n ? n : 1) * sizeof(*out));
	struct adv_cell *part = malloc((n ? n : 1) * sizeof(*part));
	size_t i, m, pass;
	int rc = 0;

	if (!out || !part) {
		free(out);
		free(part);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		cells[i].input = gs_advise_trace(a, cells[i].block);
		cells[i].setting = gs__advise_setting(x, x->cand_mech[cells[i].cand],
					       cells[i].block % a->n_loads, false, err, err_len, &rc);
		cells[i].size = -1;
		if (rc) {
			free(out);
			free(part);
			return rc;
		}
	}
	/* The first seed's runs with their pods, then the others without. */
	for (pass = 0; pass < 2 && !rc; pass++) {
		for (i = 0, m = 0; i < n; i++)
			if ((cells[i].seed == 0) == (pass == 0))
				part[m++] = cells[i];
		rc = gs__advise_run_cells(x, part, m, out, "candidate", pass == 0, err, err_len);
		for (i = 0; !rc && i < m; i++) {
			size_t k = part[i].cand * a->n_seeds + part[i].seed;

			gs__advise_fill_run(&a->runs[part[i].block][k], &out[i]);
			a->run_ids[part[i].block][k] = out[i].run_id;
		}
	}
	free(out);
	free(part);
	return rc;
}

/* Step 3: every candidate and reference at every load and initial seed. */
static int matrix(struct adv_ctx *x, char *err, size_t err_len)
{
	struct gs_advise *a = x->a;
	size_t n = a->n_blocks * a->n_cands * a->n_seeds_initial, b, c, s, i = 0;
	struct adv_cell *cells = malloc((n ? n : 1) * sizeof(*cells));
	int rc;

	if (!cells) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	/* Traces, candidates, loads, seeds: a sweep's order. */
	for (size_t t = 0; t < a->n_traces; t++)
		for (c = 0; c < a->n_cands; c++)
			for (size_t l = 0; l < a->n_loads; l++)
				for (s = 0; s < a->n_seeds_initial; s++) {
					b = t * a->n_loads + l;
					cells[i].block = b;
					cells[i].cand = c;
					cells[i++].seed = s;
				}
	rc = run_matrix_cells(x, cells, n, err, err_len);
	free(cells);
	return rc;
}

static struct gs_decide_opts decide_opts(const struct adv_ctx *x)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_decide_opts o = {
		.objective = spec->objective,
		.conds = spec->conds,
		.n_conds = spec->n_conds,
		.baseline = x->a->baseline,
		.alpha = spec->alpha,
		.conf = spec->conf,
	};

	return o;
}

/*
 * Step 4: the verdict on what ran so far. Before a capacity search, the
 * objective gpus has no values yet: the candidates still in are found by
 * the mean completion time.
 */
static int decide(struct adv_ctx *x, char *err, size_t err_len)
{
	struct gs_advise *a = x->a;
	struct gs_decide_input *in = malloc(a->n_blocks * sizeof(*in));
	struct gs_decide_opts o = decide_opts(x);

	if (!o.objective.score && o.objective.metric == GS_METRIC_GPUS && !x->sized_done)
		o.objective.metric = GS_METRIC_COMPLETION;
	size_t b;
	int rc;

	if (!in) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	for (b = 0; b < a->n_blocks; b++) {
		in[b].runs = a->runs[b];
		in[b].n_seeds = a->n_seeds;
	}
	gs_decide_result_release(&a->decision);
	rc = gs_decide(in, a->n_blocks, a->cands, a->n_cands, &o, &a->decision, err, err_len);
	free(in);
	return rc;
}

/* The seeds a block's candidate ran, counted. */
static size_t seeds_run(const struct gs_advise *a, size_t b, size_t c)
{
	size_t s, n = 0;

	for (s = 0; s < a->n_seeds; s++)
		n += a->runs[b][c * a->n_seeds + s].ran;
	return n;
}

/*
 * Step 5: while some block's top two are not separated (the best has a
 * tie) and seeds are left, the next seeds (as many as the initial ones)
 * for the best, the runner-up (its best-ranked tie) and the baseline of
 * each such block; then decide again. Once the two separate, the next tie
 * is the runner-up, and gets its seeds in the next round.
 */
static int more_seeds(struct adv_ctx *x, char *err, size_t err_len)
{
	struct gs_advise *a = x->a;
	size_t step = a->n_seeds_initial;
	int rc = 0;

	while (!rc) {
		struct adv_cell *cells = NULL, *g;
		size_t n = 0, cap = 0, b, r, s;

		for (b = 0; b < a->n_blocks; b++) {
			const struct gs_decide_block *k = &a->decision.blocks[b];
			size_t have, want;
			bool runner_up;

			if (!k->more_seeds || k->best == SIZE_MAX)
				continue;
			have = seeds_run(a, b, k->best);
			want = have + step < a->n_seeds ? have + step : a->n_seeds;
			for (r = 0, runner_up = false; r < k->n_rows; r++) {
				const struct gs_decide_row *row = &k->rows[r];
				bool top = row->cand == k->best || (row->tie && !runner_up);

				runner_up |= row->tie;
				if (!top && row->cand != a->baseline)
					continue;
				for (s = 0; s < want; s++) {
					if (a->runs[b][row->cand * a->n_seeds + s].ran)
						continue;
					g = gs_grow(cells, &cap, n, sizeof(*g), 64);
					if (!g) {
						free(cells);
						gs_errf(err, err_len, "out of memory");
						return GS_ENOMEM;
					}
					cells = g;
					cells[n].block = b;
					cells[n].cand = row->cand;
					cells[n++].seed = s;
				}
			}
		}
		if (n == 0) {
			free(cells);
			break;
		}
		a->rounds++;
		rc = run_matrix_cells(x, cells, n, err, err_len);
		free(cells);
		if (!rc)
			rc = decide(x, err, err_len);
	}
	return rc;
}

/* Step 7: the record, once every run it rests on is stored. */
static int record(struct adv_ctx *x, char *err, size_t err_len)
{
	const struct gs_advise_spec *spec = x->spec;
	struct gs_advise *a = x->a;
	struct gs_decision_record rec;
	char objective[256], base[256], *conds = NULL, *targets = NULL, *text = NULL,
	     *json = NULL;
	size_t len = 0;
	struct gs_db *db = NULL;
	FILE *f;
	int rc;

	f = open_memstream(&text, &len);
	if (!f) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	gs_advise_print(f, a, spec);
	if (fclose(f) || !text)
		goto oom;
	json = gs_advise_json_text(a, spec);
	conds = gs_advise_conds_text(spec->conds, spec->n_conds);
	targets = gs_advise_conds_text(spec->targets, spec->n_targets);
	if (!json || !conds || !targets)
		goto oom;
	snprintf(base, sizeof(base), "%s + %s", a->cands[a->baseline].sharing,
		 a->cands[a->baseline].policy);
	memset(&rec, 0, sizeof(rec));
	rec.nodes_path = spec->nodes_path;
	rec.nodes_sha256 = x->in.nodes_sha256;
	rec.objective = gs_objective_name(&spec->objective, objective, sizeof(objective));
	rec.constraints = conds;
	rec.targets = targets;
	rec.baseline = base;
	rec.alpha = spec->alpha;
	rec.conf = spec->conf;
	rec.verdict = text;
	rec.verdict_json = json;
	rc = gs_db_open(spec->db_path, &db, err, err_len);
	if (!rc)
		rc = gs_decision_add(db, &rec, x->rec, x->n_rec, &a->decision_id, err, err_len);
	gs_db_close(db);
	free(text);
	free(json);
	free(conds);
	free(targets);
	return rc;
oom:
	free(text);
	free(json);
	free(conds);
	free(targets);
	gs_errf(err, err_len, "out of memory");
	return GS_ENOMEM;
}

int gs_advise_run(const struct gs_advise_spec *spec, struct gs_advise *out, char *err,
		  size_t err_len)
{
	struct adv_ctx x;
	double t0;
	bool gpus = !spec->objective.score && spec->objective.metric == GS_METRIC_GPUS;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	x.spec = spec;
	x.a = out;
	gs_inputs_init(&x.in);
	t0 = gs_clock_s();
	rc = check_spec(spec, err, err_len);
	if (!rc)
		rc = load_inputs(&x, err, err_len);
	if (!rc)
		rc = candidates(&x, err, err_len);
	if (!rc && (rc = seeds(&x)) == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	if (!rc)
		rc = loads(&x, err, err_len);
	if (!rc && (rc = blocks(&x)) == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	if (!rc && spec->n_targets)
		rc = gs__advise_capacity_check(&x, err, err_len);
	if (!rc)
		rc = matrix(&x, err, err_len);
	if (!rc)
		rc = decide(&x, err, err_len);
	if (!rc && !gpus)
		rc = more_seeds(&x, err, err_len);
	if (!rc && spec->n_targets) {
		rc = gs__advise_capacity(&x, gpus, err, err_len);
		if (!rc && gpus)
			rc = decide(&x, err, err_len);
	}
	out->wall_s = gs_clock_s() - t0;
	if (!rc)
		rc = record(&x, err, err_len);
	gs__advise_capacity_release(&x);
	free(x.inputs);
	free(x.settings);
	free(x.rec);
	free(x.cand_policy);
	free(x.cand_mech);
	gs_inputs_release(&x.in);
	if (rc) {
		int sig = out->signal;
		size_t stored = out->n_stored_on_stop;

		gs_advise_release(out);
		out->signal = sig;
		out->n_stored_on_stop = stored;
	}
	return rc;
}
