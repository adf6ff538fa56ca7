/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outcome.c - the figures of a run, from the engine's summary or from the
 * stored row (see outcome.h).
 */
#include <math.h>
#include <string.h>

#include "run/outcome.h"

void gs_outcome_init(struct gs_outcome *o)
{
	int f;

	memset(o, 0, sizeof(*o));
	o->run_id = -1;
	for (f = 0; f < GS_N_FIGS; f++)
		o->fig[f] = NAN;
	o->wall_ms = NAN;
}

void gs_outcome_from_summary(struct gs_outcome *o, const struct gs_summary *s)
{
	o->fig[GS_FIG_UNALLOC] = s->unalloc_gpu_pct;
	o->fig[GS_FIG_WAIT_MEAN] = s->tm.valid ? s->tm.wait_mean_s : NAN;
	o->fig[GS_FIG_WAIT_P99] = s->tm.wait_p99_s;
	o->fig[GS_FIG_COMPL_MEAN] = s->tm.completion_mean_s;
	o->fig[GS_FIG_COMPL_P99] = s->tm.completion_p99_s;
	o->fig[GS_FIG_SLOWDOWN] = s->tm.slowdown_mean;
	o->fig[GS_FIG_ALLOC] = s->gpu_alloc_pct;
	o->fig[GS_FIG_USEFUL] = s->eff_util_pct;
	o->fig[GS_FIG_OOM] = (double)s->oversubscribed;
	o->fig[GS_FIG_FAILED] = (double)s->failed;
	o->fig[GS_FIG_PENDING] = (double)s->pending;
	o->fig[GS_FIG_WAIT_MAX] = s->tm.wait_max_s;
	o->fig[GS_FIG_SLOWDOWN_P99] = s->tm.slowdown_p99;
	o->fig[GS_FIG_PODS] = (double)s->pods;
	o->fig[GS_FIG_TIMED_OUT] = s->tm.valid ? (double)s->tm.n_timed_out : NAN;
}

void gs_outcome_from_row(struct gs_outcome *o, const struct gs_run_row *r)
{
	o->fig[GS_FIG_UNALLOC] = r->unalloc_gpu_pct;
	o->fig[GS_FIG_WAIT_MEAN] = strcmp(r->mode, "time") == 0 ? r->mean_wait_s : NAN;
	o->fig[GS_FIG_WAIT_P99] = r->wait_p99_s;
	o->fig[GS_FIG_COMPL_MEAN] = r->completion_mean_s;
	o->fig[GS_FIG_COMPL_P99] = r->completion_p99_s;
	o->fig[GS_FIG_SLOWDOWN] = r->slowdown_mean;
	o->fig[GS_FIG_ALLOC] = r->gpu_alloc_pct;
	o->fig[GS_FIG_USEFUL] = r->eff_util_pct;
	o->fig[GS_FIG_OOM] = r->n_oversubscribed;
	o->fig[GS_FIG_FAILED] = (double)r->n_failed;
	o->fig[GS_FIG_PENDING] = (double)(r->n_pods - r->n_placed - r->n_failed);
	o->fig[GS_FIG_WAIT_MAX] = r->wait_max_s;
	o->fig[GS_FIG_SLOWDOWN_P99] = r->slowdown_p99;
	o->fig[GS_FIG_PODS] = (double)r->n_pods;
	o->fig[GS_FIG_TIMED_OUT] = r->n_timed_out;
}
