/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_print.c - the verdict of `gpusim advise` as text and as JSON
 * (see advise_print.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/cjson.h"
#include "report/advise_print.h"

/* A value of the objective: "7142 s", "59.3%", "1.45", a score "0.734". */
static char *obj_text(const struct gs_objective *o, double v, char *buf, size_t len)
{
	const char *unit = o->score ? "" : gs_metric_unit(o->metric);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (o->score)
		snprintf(buf, len, "%.3f", v);
	else if (!strcmp(unit, "s"))
		snprintf(buf, len, "%.0f s", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (o->metric == GS_METRIC_GPUS)
		snprintf(buf, len, "%.1f GPUs", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

/* "mig + fgd" */
static char *cand_name(const struct gs_advise *a, size_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s + %s", a->cands[c].sharing, a->cands[c].policy);
	return buf;
}

/* "p = 0.034", "p < 0.001" (Holm-adjusted). */
static char *p_text(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "not tested");
	else if (p < 0.001)
		snprintf(buf, len, "p < 0.001");
	else
		snprintf(buf, len, "p = %.2g", p);
	return buf;
}

/* "42-46, 50" */
static char *seed_text(const uint64_t *s, size_t n, char *buf, size_t len)
{
	size_t i = 0, o = 0;

	buf[0] = '\0';
	while (i < n && o < len) {
		size_t j = i;

		while (j + 1 < n && s[j + 1] == s[j] + 1)
			j++;
		if (j > i)
			o += (size_t)snprintf(buf + o, len - o, "%s%llu-%llu", i ? ", " : "",
					      (unsigned long long)s[i], (unsigned long long)s[j]);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? ", " : "",
					      (unsigned long long)s[i]);
		i = j + 1;
	}
	return buf;
}

/* "13" or "13-21" */
static char *range_text(double lo, double hi, char *buf, size_t len)
{
	if (lo == hi || isnan(lo))
		snprintf(buf, len, "%.0f", hi);
	else
		snprintf(buf, len, "%.0f-%.0f", lo, hi);
	return buf;
}

char *gs_advise_print_load(const struct gs_advise *a, size_t b, bool word, char *buf,
			   size_t len)
{
	double l = gs_advise_load(a, b);

	if (isnan(l))
		snprintf(buf, len, word ? "times" : "trace times");
	else
		snprintf(buf, len, word ? "%g" : "load %g%%", l);
	return buf;
}

static const struct gs_decide_row *row_of(const struct gs_decide_block *k, size_t cand)
{
	size_t r;

	for (r = 0; r < k->n_rows; r++)
		if (k->rows[r].cand == cand)
			return &k->rows[r];
	return NULL;
}

static const struct gs_audit_never *never_of(const struct gs_advise *a, size_t t,
					     const char *sharing)
{
	size_t i;
	char spec[GS_SHARE_SPEC_MAX];

	for (i = 0; i < a->n_never; i++)
		if (a->never[i].input == t &&
		    !strcmp(gs_share_format(&a->never[i].sharing, spec, sizeof(spec)), sharing))
			return &a->never[i];
	return NULL;
}

/*
 * Why candidate r left pods unfinished, means over its seeds: "on average
 * 268 failed on GPU memory", "on average 162 never started; 162 fit no
 * node under mps: GPU memory above the MPS pinned limit".
 */
static void unfinished_text(const struct gs_advise *a, size_t b, const struct gs_decide_row *r,
			    char *buf, size_t len)
{
	const struct gs_audit_never *nv = never_of(a, gs_advise_trace(a, b),
						   a->cands[r->cand].sharing);
	double oom = r->fig_mean[GS_FIG_OOM], timed = r->fig_mean[GS_FIG_TIMED_OUT];
	double pending = r->fig_mean[GS_FIG_PENDING];
	size_t o = (size_t)snprintf(buf, len, "on average");
	int parts = 0;

	if (oom > 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s %.0f failed on GPU memory",
				      parts++ ? "," : "", oom);
	if (timed > 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s %.0f gave up waiting (--max-wait)",
				      parts++ ? "," : "", timed);
	if (pending > 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s %.0f never started",
				      parts++ ? "," : "", pending);
	if (pending > 0 && nv && nv->n_never && o < len)
		snprintf(buf + o, len - o, "; %zu fit no node under %s: %s", nv->n_never,
			 a->cands[r->cand].sharing, nv->why[0] ? nv->why : "see the warning above");
}

char *gs_advise_reason(const struct gs_advise *a, const struct gs_advise_spec *spec, size_t b,
		       const struct gs_decide_row *r, char *buf, size_t len)
{
	const struct gs_decide_block *k = &a->decision.blocks[b];
	const struct gs_decide_row *best = k->best == SIZE_MAX ? NULL : row_of(k, k->best);
	char x[512], y[64], z[64];

	buf[0] = '\0';
	switch (r->out) {
	case GS_DECIDE_REFERENCE:
		snprintf(buf, len, "reference: sharing at no cost, not a mechanism to run");
		return buf;
	case GS_DECIDE_NO_RUNS:
		snprintf(buf, len, "%s", spec->objective.metric == GS_METRIC_GPUS &&
			 !spec->objective.score ? "no size searched meets the targets" :
			 "no run with a value");
		return buf;
	case GS_DECIDE_UNFINISHED:
		unfinished_text(a, b, r, x, sizeof(x));
		snprintf(buf, len, "leaves %s pods unfinished that another candidate runs (%s)",
			 range_text(fmax(r->excess_min, 1), r->excess_max, y, sizeof(y)), x);
		return buf;
	case GS_DECIDE_CONSTRAINT: {
		const struct gs_cond *c = &spec->conds[r->cond];
		struct gs_objective m = { .metric = c->metric };

		snprintf(buf, len, "breaks %s: %s on average", gs_cond_format(c, x, sizeof(x)),
			 obj_text(&m, r->cond_value, y, sizeof(y)));
		return buf;
	}
	default:
		break;
	}
	if (!best || r->cand == k->best || r->tie)
		return buf;
	{
		double base = best->mean;
		const char *unit = spec->objective.score ? "" : gs_metric_unit(spec->objective.metric);
		size_t o;

		/* Below a tenth of a percent, the difference itself says more. */
		if (fabs(100.0 * r->diff / base) >= 0.1 || !strcmp(unit, "%"))
			o = (size_t)snprintf(buf, len, "%+.1f%% (%+.1f to %+.1f%%)",
					     100.0 * r->diff / base, 100.0 * r->diff_lo / base,
					     100.0 * r->diff_hi / base);
		else
			o = (size_t)snprintf(buf, len, "%+.3g%s%s (%+.3g to %+.3g%s%s)", r->diff,
					     *unit ? " " : "", unit, r->diff_lo, r->diff_hi,
					     *unit ? " " : "", unit);
		const double *f = r->fig_mean, *g = best->fig_mean;

		if (spec->objective.score || o >= len)
			return buf;
		if (spec->objective.metric == GS_METRIC_COMPLETION ||
		    spec->objective.metric == GS_METRIC_SLOWDOWN) {
			double dwait = f[GS_FIG_WAIT_MEAN] - g[GS_FIG_WAIT_MEAN];
			double drun = (f[GS_FIG_COMPL_MEAN] - f[GS_FIG_WAIT_MEAN]) -
				      (g[GS_FIG_COMPL_MEAN] - g[GS_FIG_WAIT_MEAN]);

			if (dwait >= drun)
				snprintf(buf + o, len - o, ": longer waits, mean %.*f s against %.*f s",
					 f[GS_FIG_WAIT_MEAN] < 10 ? 1 : 0, f[GS_FIG_WAIT_MEAN],
					 g[GS_FIG_WAIT_MEAN] < 10 ? 1 : 0, g[GS_FIG_WAIT_MEAN]);
			else
				snprintf(buf + o, len - o, ": slower runs, mean running time "
					 "(completion - wait) %.0f s against %.0f s",
					 f[GS_FIG_COMPL_MEAN] - f[GS_FIG_WAIT_MEAN],
					 g[GS_FIG_COMPL_MEAN] - g[GS_FIG_WAIT_MEAN]);
		} else {
			snprintf(buf + o, len - o, ": %s against %s",
				 obj_text(&spec->objective, r->mean, y, sizeof(y)),
				 obj_text(&spec->objective, best->mean, z, sizeof(z)));
		}
	}
	return buf;
}

char *gs_advise_conds_text(const struct gs_cond *c, size_t n)
{
	size_t i, len = 1 + n * 160, o = 0;
	char *s = malloc(len), buf[160];

	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, len - o, "%s%s", i ? "; " : "",
				      gs_cond_format(&c[i], buf, sizeof(buf)));
	return s;
}

/* The header: the inputs, the question, the statistics, what ran. */
static void print_head(FILE *f, const struct gs_advise *a, const struct gs_advise_spec *spec)
{
	char buf[512];
	size_t t, i;

	fprintf(f, "cluster: %s, %d nodes, %lld GPUs (%s)\n", spec->nodes_path, (int)a->n_nodes,
		(long long)a->gpu_count, a->gpu_models);
	for (t = 0; t < a->n_traces; t++)
		fprintf(f, "trace %s: %s, %zu pods\n", a->trace_names[t], spec->pods_paths[t],
			a->n_pods[t]);
	fprintf(f, "objective: %s; a pod that fails or never starts never completes\n",
		gs_objective_format(&spec->objective, buf, sizeof(buf)));
	fprintf(f, "constraints: no pod left unfinished that another candidate runs");
	for (i = 0; i < spec->n_conds; i++)
		fprintf(f, "; %s", gs_cond_format(&spec->conds[i], buf, sizeof(buf)));
	fprintf(f, "%s\n", spec->n_conds ? " (mean over seeds)" : "");
	fprintf(f, "baseline: %s + %s", a->cands[a->baseline].sharing,
		a->cands[a->baseline].policy);
	if (!spec->no_reference)
		fprintf(f, "; reference: ideal (sharing at no cost, never recommended)");
	fprintf(f, "\nstatistics: seeds %s, up to %zu for the top two while they tie; %g%% "
		   "intervals;\n            paired t-tests (Welch's where seeds differ), "
		   "Holm-corrected over %zu comparisons, alpha %g\n",
		seed_text(a->seeds, a->n_seeds_initial, buf, sizeof(buf)), a->n_seeds,
		100 * spec->conf, a->decision.n_tests, spec->alpha);
	fprintf(f, "runs: %zu (%zu ran, %zu already in %s), %zu round%s of more runs, %.1f s",
		a->n_runs, a->n_ran, a->n_skipped, spec->db_path, a->rounds,
		a->rounds == 1 ? "" : "s", a->wall_s);
	if (a->decision_id > 0)
		fprintf(f, "; decision %lld", (long long)a->decision_id);
	fprintf(f, "\n");
}

/* The capacity lines of block b. */
static void print_sizes(FILE *f, const struct gs_advise *a, const struct gs_advise_spec *spec,
			size_t b)
{
	char buf[256], name[256];
	size_t i;

	if (!a->capacity || !a->n_sizes[b])
		return;
	fprintf(f, "  smallest cluster meeting %s at every seed:\n",
		gs_cond_format(&spec->targets[0], buf, sizeof(buf)));
	for (i = 1; i < spec->n_targets; i++)
		fprintf(f, "    and %s\n", gs_cond_format(&spec->targets[i], buf, sizeof(buf)));
	for (i = 0; i < a->n_sizes[b]; i++) {
		const struct gs_advise_size *z = &a->sizes[b][i];

		cand_name(a, z->cand, name, sizeof(name));
		if (z->size < 0)
			fprintf(f, "    %-24s none: %s\n", name, z->why_not ? z->why_not : "not met");
		else if (a->add_mode)
			fprintf(f, "    %-24s the cluster + %lld x (%s): %lld GPUs, %lld nodes%s\n",
				name, (long long)z->size, a->add_desc, (long long)z->gpus,
				(long long)z->nodes, z->cand == a->baseline ? " (baseline)" : "");
		else
			fprintf(f, "    %-24s %lld GPU node%s: %lld GPUs, %lld nodes in all%s\n", name,
				(long long)z->size, z->size == 1 ? "" : "s", (long long)z->gpus,
				(long long)z->nodes, z->cand == a->baseline ? " (baseline)" : "");
	}
}

/* "-59.9% (-61.9 to -49.9%)", or below a tenth of a percent "-2.1 s (-2.5 to -1.7 s)". */
static char *gain_text(const struct gs_objective *ob, const struct gs_decide_block *k, char *buf,
		       size_t len)
{
	const char *unit = ob->score ? "" : gs_metric_unit(ob->metric);
	double scale = k->base_mean / 100.0;

	if (fabs(k->gain_pct) >= 0.1 || !strcmp(unit, "%") || k->gain_pct == 0)
		snprintf(buf, len, "%+.1f%% (%+.1f to %+.1f%%)", k->gain_pct, k->gain_lo,
			 k->gain_hi);
	else
		snprintf(buf, len, "%+.3g%s%s (%+.3g to %+.3g%s%s)", k->gain_pct * scale,
			 *unit ? " " : "", unit, k->gain_lo * scale, k->gain_hi * scale,
			 *unit ? " " : "", unit);
	return buf;
}

/* One block: the best, the gain, the ties, the losers by mechanism, the references. */
static void print_block(FILE *f, const struct gs_advise *a, const struct gs_advise_spec *spec,
			size_t b)
{
	const struct gs_decide_block *k = &a->decision.blocks[b];
	const struct gs_objective *ob = &spec->objective;
	const struct gs_decide_row *best = k->best == SIZE_MAX ? NULL : row_of(k, k->best);
	char name[256], v[64], lo[64], hi[64], p[64], load[64], why[1024];
	size_t r, n;

	fprintf(f, "\n%s, %s: ", a->trace_names[gs_advise_trace(a, b)],
		gs_advise_print_load(a, b, false, load, sizeof(load)));
	if (!best) {
		fprintf(f, "no candidate meets the constraints\n");
	} else {
		fprintf(f, "%s%s\n", cand_name(a, k->best, name, sizeof(name)),
			k->n_ties ? ", tied with others (below)" : "");
		fprintf(f, "  %s %s (%g%% CI %s to %s, %zu seeds)", ob->score ? "score" :
			gs_metric_text(ob->metric), obj_text(ob, best->mean, v, sizeof(v)),
			100 * spec->conf, obj_text(ob, best->lo, lo, sizeof(lo)),
			obj_text(ob, best->hi, hi, sizeof(hi)), best->n);
		if (k->best == a->baseline)
			fprintf(f, "; it is the baseline\n");
		else if (!isnan(k->gain_pct))
			fprintf(f, "; %s against %s + %s (%s), %s%s%s%s\n",
				gain_text(ob, k, lo, sizeof(lo)), a->cands[a->baseline].sharing,
				a->cands[a->baseline].policy,
				obj_text(ob, k->base_mean, v, sizeof(v)),
				p_text(k->gain_p_holm, p, sizeof(p)),
				!k->gain_significant ? ": no significant difference" :
				fabs(k->gain_pct) < spec->min_effect_pct ?
				": significant, but under --min-effect: in practice no better" : "",
				row_of(k, a->baseline)->out == GS_DECIDE_CONSTRAINT ?
				"; the baseline itself " : "",
				row_of(k, a->baseline)->out == GS_DECIDE_CONSTRAINT ?
				gs_advise_reason(a, spec, b, row_of(k, a->baseline), why,
						 sizeof(why)) : "");
		else
			fprintf(f, "; the baseline %s + %s cannot be compared: %s\n",
				a->cands[a->baseline].sharing, a->cands[a->baseline].policy,
				gs_advise_reason(a, spec, b, row_of(k, a->baseline), why,
						 sizeof(why)));
	}
	if (k->n_ties) {
		fprintf(f, "  tie (no significant difference from the best):");
		for (r = 0, n = 0; r < k->n_rows; r++) {
			const struct gs_decide_row *row = &k->rows[r];

			if (!row->tie)
				continue;
			/* The first few by rank; --json and --report list them all. */
			if (n == 6) {
				fprintf(f, " and %zu more", k->n_ties - n);
				break;
			}
			fprintf(f, "%s %s %s (%s)", n++ ? "," : "",
				cand_name(a, row->cand, name, sizeof(name)),
				obj_text(ob, row->mean, v, sizeof(v)),
				row->test == GS_TEST_FEW ? "too few seeds" :
				p_text(row->p_holm, p, sizeof(p)));
		}
		fprintf(f, "\n");
	}
	/* The losers: per mechanism, its best-ranked candidate that is neither best nor tied. */
	n = 0;
	for (size_t c = 0; c < a->n_cands; c++) {
		const struct gs_decide_row *first = NULL;
		size_t more = 0, j;

		if (a->cands[c].reference)
			continue;
		/* Once per mechanism: at its first candidate. */
		for (j = 0; j < c && strcmp(a->cands[j].sharing, a->cands[c].sharing); j++)
			;
		if (j < c)
			continue;
		for (r = 0; r < k->n_rows; r++) {
			const struct gs_decide_row *row = &k->rows[r];

			if (a->cands[row->cand].reference || row->cand == k->best || row->tie ||
			    strcmp(a->cands[row->cand].sharing, a->cands[c].sharing))
				continue;
			if (!first)
				first = row;
			else
				more++;
		}
		if (!first)
			continue;
		if (!n++)
			fprintf(f, "  lost (each mechanism's best other candidate):\n");
		cand_name(a, first->cand, name, sizeof(name));
		fprintf(f, "    %-24s %s: %s", name,
			first->out == GS_DECIDE_IN ? obj_text(ob, first->mean, v, sizeof(v)) : "out",
			gs_advise_reason(a, spec, b, first, why, sizeof(why)));
		if (more)
			fprintf(f, " (and %zu more %s candidate%s)", more, a->cands[c].sharing,
				more == 1 ? "" : "s");
		fprintf(f, "\n");
	}
	/* The best reference line. */
	for (r = 0; r < k->n_rows; r++) {
		const struct gs_decide_row *row = &k->rows[r];
		const struct gs_decide_row *top = NULL;
		size_t q;

		if (row->out != GS_DECIDE_REFERENCE)
			continue;
		for (q = r; q < k->n_rows; q++)
			if (k->rows[q].out == GS_DECIDE_REFERENCE && !isnan(k->rows[q].mean) &&
			    (!top || (gs_metric_higher_better(ob->metric) && !ob->score ?
				      k->rows[q].mean > top->mean : k->rows[q].mean < top->mean)))
				top = &k->rows[q];
		if (top)
			fprintf(f, "  reference: %s %s (sharing at no cost: a bound, not a "
				   "mechanism to run)\n",
				cand_name(a, top->cand, name, sizeof(name)),
				obj_text(ob, top->mean, v, sizeof(v)));
		break;
	}
	print_sizes(f, a, spec, b);
}

void gs_advise_print(FILE *f, const struct gs_advise *a, const struct gs_advise_spec *spec)
{
	size_t b;

	print_head(f, a, spec);
	for (b = 0; b < a->n_blocks; b++)
		print_block(f, a, spec, b);
}

/* ---- JSON ------------------------------------------------------------------------ */

static cJSON *figures_json(const double *fig)
{
	static const struct {
		const char *key;
		enum gs_fig fig;
	} keys[] = {
		{ "completion_mean_s", GS_FIG_COMPL_MEAN }, { "completion_p99_s", GS_FIG_COMPL_P99 },
		{ "wait_mean_s", GS_FIG_WAIT_MEAN }, { "wait_p99_s", GS_FIG_WAIT_P99 },
		{ "wait_max_s", GS_FIG_WAIT_MAX }, { "slowdown_mean", GS_FIG_SLOWDOWN },
		{ "slowdown_p99", GS_FIG_SLOWDOWN_P99 }, { "gpu_alloc_pct", GS_FIG_ALLOC },
		{ "eff_util_pct", GS_FIG_USEFUL }, { "n_failed", GS_FIG_FAILED },
		{ "n_oversubscribed", GS_FIG_OOM }, { "n_timed_out", GS_FIG_TIMED_OUT },
		{ "n_pending", GS_FIG_PENDING }, { "n_pods", GS_FIG_PODS },
	};
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < sizeof(keys) / sizeof(keys[0]); i++)
		gs_cjson_add_number(o, keys[i].key, fig[keys[i].fig]);
	return o;
}

static const char *out_name(enum gs_decide_out o)
{
	switch (o) {
	case GS_DECIDE_NO_RUNS:
		return "no-runs";
	case GS_DECIDE_UNFINISHED:
		return "unfinished";
	case GS_DECIDE_CONSTRAINT:
		return "constraint";
	case GS_DECIDE_REFERENCE:
		return "reference";
	default:
		return NULL;
	}
}

static cJSON *row_json(const struct gs_advise *a, const struct gs_advise_spec *spec, size_t b,
		       const struct gs_decide_row *r)
{
	const struct gs_decide_block *k = &a->decision.blocks[b];
	cJSON *o = cJSON_CreateObject(), *vs, *ids;
	char why[1024];
	size_t s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "policy", a->cands[r->cand].policy);
	cJSON_AddStringToObject(o, "sharing", a->cands[r->cand].sharing);
	cJSON_AddNumberToObject(o, "rank", (double)r->rank);
	cJSON_AddStringToObject(o, "status",
				r->out == GS_DECIDE_REFERENCE ? "reference" :
				r->out != GS_DECIDE_IN ? "out" :
				r->cand == k->best ? "best" : r->tie ? "tie" : "lost");
	if (out_name(r->out))
		cJSON_AddStringToObject(o, "out", out_name(r->out));
	else
		cJSON_AddNullToObject(o, "out");
	cJSON_AddStringToObject(o, "reason", gs_advise_reason(a, spec, b, r, why, sizeof(why)));
	cJSON_AddNumberToObject(o, "seeds", (double)r->n);
	gs_cjson_add_number(o, "mean", r->mean);
	gs_cjson_add_number(o, "ci_lo", r->lo);
	gs_cjson_add_number(o, "ci_hi", r->hi);
	vs = cJSON_AddObjectToObject(o, "vs_best");
	if (vs) {
		cJSON_AddStringToObject(vs, "test", gs_decide_test_name(r->test));
		cJSON_AddNumberToObject(vs, "pairs", (double)r->n_pairs);
		gs_cjson_add_number(vs, "p", r->p);
		gs_cjson_add_number(vs, "p_holm", r->p_holm);
		gs_cjson_add_number(vs, "diff", r->diff);
		gs_cjson_add_number(vs, "diff_lo", r->diff_lo);
		gs_cjson_add_number(vs, "diff_hi", r->diff_hi);
		cJSON_AddBoolToObject(vs, "tie", r->tie);
	}
	gs_cjson_add_number(o, "unfinished_above_floor_min", r->excess_min);
	gs_cjson_add_number(o, "unfinished_above_floor_max", r->excess_max);
	gs_cjson_add_number(o, "gpus_needed_mean", r->gpus_mean);
	cJSON_AddItemToObject(o, "figures", figures_json(r->fig_mean));
	ids = cJSON_AddArrayToObject(o, "runs");
	for (s = 0; ids && s < a->n_seeds; s++) {
		int64_t id = a->run_ids[b][r->cand * a->n_seeds + s];
		cJSON *run;

		if (id < 0)
			continue;
		run = cJSON_CreateObject();
		if (!run)
			break;
		cJSON_AddNumberToObject(run, "seed", (double)a->seeds[s]);
		cJSON_AddNumberToObject(run, "run_id", (double)id);
		cJSON_AddItemToArray(ids, run);
	}
	return o;
}

static cJSON *block_json(const struct gs_advise *a, const struct gs_advise_spec *spec, size_t b)
{
	const struct gs_decide_block *k = &a->decision.blocks[b];
	cJSON *o = cJSON_CreateObject(), *arr, *g;
	size_t r, i, s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "trace", a->trace_names[gs_advise_trace(a, b)]);
	cJSON_AddStringToObject(o, "pods_path", spec->pods_paths[gs_advise_trace(a, b)]);
	gs_cjson_add_number(o, "load_pct", gs_advise_load(a, b));
	if (k->best == SIZE_MAX) {
		cJSON_AddNullToObject(o, "best");
	} else {
		g = cJSON_AddObjectToObject(o, "best");
		if (g) {
			cJSON_AddStringToObject(g, "policy", a->cands[k->best].policy);
			cJSON_AddStringToObject(g, "sharing", a->cands[k->best].sharing);
		}
	}
	cJSON_AddNumberToObject(o, "ties", (double)k->n_ties);
	cJSON_AddBoolToObject(o, "separated", k->separated);
	g = cJSON_AddObjectToObject(o, "gain");
	if (g) {
		gs_cjson_add_number(g, "pct", k->gain_pct);
		gs_cjson_add_number(g, "lo", k->gain_lo);
		gs_cjson_add_number(g, "hi", k->gain_hi);
		gs_cjson_add_number(g, "p", k->gain_p);
		gs_cjson_add_number(g, "p_holm", k->gain_p_holm);
		cJSON_AddStringToObject(g, "test", gs_decide_test_name(k->gain_test));
		cJSON_AddBoolToObject(g, "significant", k->gain_significant);
		cJSON_AddBoolToObject(g, "material", !isnan(k->gain_pct) &&
						       fabs(k->gain_pct) >= spec->min_effect_pct);
		gs_cjson_add_number(g, "baseline_mean", k->base_mean);
	}
	arr = cJSON_AddArrayToObject(o, "candidates");
	for (r = 0; arr && r < k->n_rows; r++)
		cJSON_AddItemToArray(arr, row_json(a, spec, b, &k->rows[r]));
	if (!a->capacity)
		return o;
	arr = cJSON_AddArrayToObject(o, "capacity");
	for (i = 0; arr && i < a->n_sizes[b]; i++) {
		const struct gs_advise_size *z = &a->sizes[b][i];
		cJSON *c = cJSON_CreateObject(), *per;

		if (!c)
			break;
		cJSON_AddStringToObject(c, "policy", a->cands[z->cand].policy);
		cJSON_AddStringToObject(c, "sharing", a->cands[z->cand].sharing);
		if (z->size >= 0) {
			cJSON_AddNumberToObject(c, "size", (double)z->size);
			cJSON_AddNumberToObject(c, "gpus", (double)z->gpus);
			cJSON_AddNumberToObject(c, "nodes", (double)z->nodes);
			cJSON_AddNullToObject(c, "why_not");
		} else {
			cJSON_AddNullToObject(c, "size");
			cJSON_AddNullToObject(c, "gpus");
			cJSON_AddNullToObject(c, "nodes");
			cJSON_AddStringToObject(c, "why_not", z->why_not ? z->why_not : "not met");
		}
		per = cJSON_AddArrayToObject(c, "per_seed");
		for (s = 0; per && s < a->n_seeds; s++) {
			cJSON *e;

			if (z->seed_size[s] == -2)
				continue;
			e = cJSON_CreateObject();
			if (!e)
				break;
			cJSON_AddNumberToObject(e, "seed", (double)a->seeds[s]);
			if (z->seed_size[s] >= 0)
				cJSON_AddNumberToObject(e, "size", (double)z->seed_size[s]);
			else
				cJSON_AddNullToObject(e, "size");
			cJSON_AddItemToArray(per, e);
		}
		cJSON_AddItemToArray(arr, c);
	}
	return o;
}

cJSON *gs_advise_json(const struct gs_advise *a, const struct gs_advise_spec *spec)
{
	cJSON *o = cJSON_CreateObject(), *g, *arr;
	char buf[512];
	size_t i;

	if (!o)
		return NULL;
	if (a->decision_id > 0)
		cJSON_AddNumberToObject(o, "decision_id", (double)a->decision_id);
	else
		cJSON_AddNullToObject(o, "decision_id");
	g = cJSON_AddObjectToObject(o, "cluster");
	if (g) {
		cJSON_AddStringToObject(g, "path", spec->nodes_path);
		cJSON_AddNumberToObject(g, "nodes", (double)a->n_nodes);
		cJSON_AddNumberToObject(g, "gpu_nodes", (double)a->n_gpu_nodes);
		cJSON_AddNumberToObject(g, "gpus", (double)a->gpu_count);
		cJSON_AddStringToObject(g, "gpu_models", a->gpu_models);
	}
	arr = cJSON_AddArrayToObject(o, "traces");
	for (i = 0; arr && i < a->n_traces; i++) {
		cJSON *t = cJSON_CreateObject();

		if (!t)
			break;
		cJSON_AddStringToObject(t, "name", a->trace_names[i]);
		cJSON_AddStringToObject(t, "path", spec->pods_paths[i]);
		cJSON_AddNumberToObject(t, "pods", (double)a->n_pods[i]);
		cJSON_AddItemToArray(arr, t);
	}
	g = cJSON_AddObjectToObject(o, "objective");
	if (g) {
		cJSON_AddStringToObject(g, "name", gs_objective_name(&spec->objective, buf,
								     sizeof(buf)));
		cJSON_AddStringToObject(g, "text", gs_objective_format(&spec->objective, buf,
								       sizeof(buf)));
		cJSON_AddStringToObject(g, "unfinished_pods", "infinite");
	}
	arr = cJSON_AddArrayToObject(o, "constraints");
	for (i = 0; arr && i < spec->n_conds; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(gs_cond_format(&spec->conds[i], buf,
									    sizeof(buf))));
	arr = cJSON_AddArrayToObject(o, "targets");
	for (i = 0; arr && i < spec->n_targets; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(gs_cond_format(&spec->targets[i], buf,
									    sizeof(buf))));
	g = cJSON_AddObjectToObject(o, "baseline");
	if (g) {
		cJSON_AddStringToObject(g, "policy", a->cands[a->baseline].policy);
		cJSON_AddStringToObject(g, "sharing", a->cands[a->baseline].sharing);
	}
	g = cJSON_AddObjectToObject(o, "statistics");
	if (g) {
		cJSON_AddNumberToObject(g, "alpha", spec->alpha);
		cJSON_AddNumberToObject(g, "confidence", spec->conf);
		cJSON_AddNumberToObject(g, "comparisons", (double)a->decision.n_tests);
		cJSON_AddStringToObject(g, "correction", "holm");
		cJSON_AddNumberToObject(g, "max_seeds", (double)a->n_seeds);
		arr = cJSON_AddArrayToObject(g, "seeds");
		for (i = 0; arr && i < a->n_seeds_initial; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)a->seeds[i]));
	}
	g = cJSON_AddObjectToObject(o, "runs");
	if (g) {
		cJSON_AddNumberToObject(g, "total", (double)a->n_runs);
		cJSON_AddNumberToObject(g, "ran", (double)a->n_ran);
		cJSON_AddNumberToObject(g, "found", (double)a->n_skipped);
		cJSON_AddNumberToObject(g, "rounds", (double)a->rounds);
		cJSON_AddNumberToObject(g, "wall_s", a->wall_s);
		cJSON_AddStringToObject(g, "db", spec->db_path);
	}
	arr = cJSON_AddArrayToObject(o, "verdicts");
	for (i = 0; arr && i < a->n_blocks; i++)
		cJSON_AddItemToArray(arr, block_json(a, spec, i));
	if (gs_cjson_oom()) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

char *gs_advise_json_text(const struct gs_advise *a, const struct gs_advise_spec *spec)
{
	cJSON *o = gs_advise_json(a, spec);
	char *text, *copy = NULL;

	if (!o)
		return NULL;
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (text) {
		copy = strdup(text);
		cJSON_free(text);
	}
	return copy;
}
