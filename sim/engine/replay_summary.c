/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_summary.c - the headline figures of a finished run (struct
 * gs_summary), from its pods' outcomes, its samples and its time-mode
 * metrics (see replay.h).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "engine/arrived_stats.h"
#include "engine/replay.h"

int64_t gs_sample_arrived_pct(const struct gs_sample *s, int64_t gpu_capacity_milli)
{
	if (gpu_capacity_milli <= 0)
		return 0;
	return llround(100.0 * (double)s->arrived_gpu_milli / (double)gpu_capacity_milli);
}

/*
 * Means over the samples whose arrived workload rounds to lo..hi percent,
 * in percent of capacity cap: allocated GPU share, fragmentation over idle
 * share (0 when nothing is idle) and over capacity. Returns the number of
 * samples; the means are left alone when it is 0.
 */
static size_t arrived_means(const struct gs_sim *sim, int64_t cap, int64_t lo, int64_t hi,
			    double *alloc_pct, double *frag_ratio_pct, double *frag_amount_pct)
{
	double alloc = 0, frag_ratio = 0, frag_amount = 0;
	size_t i, n = 0;

	for (i = 0; i < sim->n_samples; i++) {
		const struct gs_sample *s = &sim->samples[i];
		double idle = (double)(cap - s->gpu_alloc_milli);
		int64_t pct = gs_sample_arrived_pct(s, cap);

		if (pct < lo || pct > hi)
			continue;
		alloc += 100.0 * (double)s->gpu_alloc_milli / (double)cap;
		frag_amount += 100.0 * s->frag_milli / (double)cap;
		frag_ratio += idle > 0 ? 100.0 * s->frag_milli / idle : 0;
		n++;
	}
	if (n) {
		*alloc_pct = alloc / (double)n;
		*frag_ratio_pct = frag_ratio / (double)n;
		*frag_amount_pct = frag_amount / (double)n;
	}
	return n;
}

/*
 * Inflate mode: the means of the idle breakdown over the samples whose
 * arrived workload rounds to 100 %, or 99..101 % when none does (the rule
 * of gpu_alloc_pct). NAN without such samples.
 */
static void idle_at_100(const struct gs_sim *sim, int64_t cap, struct gs_summary *out)
{
	double sum[3] = { 0, 0, 0 };
	int64_t lo = 100, hi = 100;
	size_t i, n = 0;

	for (;;) {
		for (i = 0; i < sim->n_samples; i++) {
			const struct gs_sample *s = &sim->samples[i];
			int64_t pct = gs_sample_arrived_pct(s, cap);

			if (pct < lo || pct > hi)
				continue;
			sum[0] += (double)s->idle_frac_milli;
			sum[1] += (double)s->idle_nocpu_milli;
			sum[2] += (double)s->idle_stranded_milli;
			n++;
		}
		if (n || lo == 99)
			break;
		lo = 99;
		hi = 101;
	}
	if (n == 0)
		return;
	out->idle_frac_pct = 100.0 * sum[0] / (double)n / (double)cap;
	out->idle_nocpu_pct = 100.0 * sum[1] / (double)n / (double)cap;
	out->idle_stranded_pct = 100.0 * sum[2] / (double)n / (double)cap;
}

/* The pods of sim->out by the state they ended in: placed (running or done), running, ... */
static void count_pods(const struct gs_sim *sim, struct gs_summary *out)
{
	int64_t n[GS_POD_FAILED + 1] = { 0 };
	size_t i;

	for (i = 0; i < sim->n_pods; i++)
		if (sim->out[i].state <= GS_POD_FAILED)
			n[sim->out[i].state]++;
	out->running = n[GS_POD_RUNNING];
	out->failed = n[GS_POD_FAILED];
	out->pending = n[GS_POD_PENDING];
	out->placed = n[GS_POD_RUNNING] + n[GS_POD_DONE];
}

void gs_sim_summarize(const struct gs_sim *sim, struct gs_summary *out)
{
	const int64_t cap = sim->cluster.gpu_milli;
	const struct gs_arrived_stats *arrived = sim->arrived;
	struct gs_arrived_stats st;
	double alloc = 0, frag_ratio = 0, frag_amount = 0;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->pods = (int64_t)sim->n_pods;
	out->eff_util_pct = sim->opts.mode == GS_MODE_TIME ? sim->eff_util_pct : NAN;
	out->eff_util_busy_pct = sim->opts.mode == GS_MODE_TIME ? sim->eff_util_busy_pct : NAN;
	out->mig_idle_pct = sim->opts.mode == GS_MODE_TIME ? sim->mig_idle_pct : NAN;
	out->mig_slack_pct = sim->opts.mode == GS_MODE_TIME ? sim->mig_slack_pct : NAN;
	out->oversubscribed = sim->oversubscribed;
	out->groups = sim->gangs.n;
	out->groups_placed = sim->gangs.placed;
	out->groups_failed = sim->gangs.failed;
	out->group_mean_wait_s = sim->gangs.placed ? (double)sim->gangs.wait_total_s /
							 (double)sim->gangs.placed
						   : NAN;
	count_pods(sim, out);
	out->mean_wait_s = out->placed ? (double)sim->stats.wait_total_s / (double)out->placed : NAN;
	out->gpu_alloc_pct = out->unalloc_gpu_pct = NAN;
	out->frag_ratio_pct = out->frag_amount_pct = NAN;
	out->peak_gpu_alloc_pct = NAN;
	out->idle_frac_pct = out->idle_nocpu_pct = out->idle_stranded_pct = NAN;
	out->tm = sim->tm;
	if (sim->opts.mode == GS_MODE_TIME) {
		out->idle_frac_pct = sim->tm.idle_frac_pct;
		out->idle_nocpu_pct = sim->tm.idle_nocpu_pct;
		out->idle_stranded_pct = sim->tm.idle_stranded_pct;
		/* From the events alone: the samples do not enter. */
		out->gpu_alloc_pct = sim->tm.gpu_alloc_arrival_pct;
		out->peak_gpu_alloc_pct = sim->tm.gpu_alloc_peak_pct;
		out->peak_pending = sim->tm.valid ? sim->tm.pending_peak : 0;
		if (!isnan(out->gpu_alloc_pct))
			out->unalloc_gpu_pct = 100.0 - out->gpu_alloc_pct;
		return;
	}
	if (cap <= 0 || sim->n_samples == 0)
		return;
	idle_at_100(sim, cap, out);
	for (i = 0; i < sim->n_samples; i++) {
		const struct gs_sample *s = &sim->samples[i];
		double pct = 100.0 * (double)s->gpu_alloc_milli / (double)cap;

		if (i == 0 || pct > out->peak_gpu_alloc_pct)
			out->peak_gpu_alloc_pct = pct;
		if (s->pending > out->peak_pending)
			out->peak_pending = s->pending;
	}

	/*
	 * On a small cluster one pod can jump over the 100 % bucket; then, as
	 * the reference analysis does, the samples of 99..101 % stand in for
	 * it. The run_summary view does the same, from the figures the store
	 * keeps (arrived_stats.h), summed in their order; in sample order only if
	 * there is no memory for that.
	 */
	if (!arrived && gs_arrived_stats_compute(sim->samples, sim->n_samples, cap, sim->frag_on,
						 &st) == 0)
		arrived = &st;
	if (arrived) {
		n = (size_t)arrived->at100_n;
		alloc = arrived->at100_gpu_alloc_pct;
		frag_ratio = arrived->at100_frag_ratio_pct;
		frag_amount = arrived->at100_frag_amount_pct;
		if (arrived == &st)
			gs_arrived_stats_release(&st);
	} else {
		int64_t top = 0;

		n = arrived_means(sim, cap, 100, 100, &alloc, &frag_ratio, &frag_amount);
		if (n == 0)
			n = arrived_means(sim, cap, 99, 101, &alloc, &frag_ratio, &frag_amount);
		for (i = 0; n == 0 && i < sim->n_samples; i++)
			if (gs_sample_arrived_pct(&sim->samples[i], cap) > top)
				top = gs_sample_arrived_pct(&sim->samples[i], cap);
		if (n == 0 && top < 99)
			n = arrived_means(sim, cap, top, top, &alloc, &frag_ratio, &frag_amount);
	}
	if (n) {
		out->gpu_alloc_pct = alloc;
		out->frag_ratio_pct = sim->frag_on ? frag_ratio : NAN;
		out->frag_amount_pct = sim->frag_on ? frag_amount : NAN;
	}
	if (!isnan(out->gpu_alloc_pct))
		out->unalloc_gpu_pct = 100.0 - out->gpu_alloc_pct;
}
