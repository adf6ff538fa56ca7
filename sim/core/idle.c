/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idle.c - the idle GPU capacity of a cluster by reason (idle.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/idle.h"

void gs_idle_node(const struct gs_cluster *c, int32_t n, const struct gs_idle_job *job,
		  struct gs_idle *out)
{
	const struct gs_node *nd = &c->nodes[n];
	int64_t whole = (int64_t)nd->gpu_whole_free * GS_MILLI_PER_GPU;

	memset(out, 0, sizeof(*out));
	if (nd->num_gpu == 0)
		return;
	/* What the partly used GPUs have left; the rest of the free share is whole GPUs. */
	out->frac_milli = nd->gpu_free_total_milli - whole;
	if (whole == 0)
		return;
	if (nd->cpu_free_milli < job->cpu_milli || nd->mem_free_mib < job->mem_mib)
		out->nocpu_milli = whole;
	else if (nd->gpu_whole_free < job->num_gpu)
		out->stranded_milli = whole;
	else
		out->usable_milli = whole;
}

static void add(struct gs_idle *to, const struct gs_idle *v, int sign)
{
	to->frac_milli += sign * v->frac_milli;
	to->nocpu_milli += sign * v->nocpu_milli;
	to->stranded_milli += sign * v->stranded_milli;
	to->usable_milli += sign * v->usable_milli;
}

void gs_idle_cluster(const struct gs_cluster *c, const struct gs_idle_job *job,
		     struct gs_idle *out)
{
	struct gs_idle one;
	int32_t n;

	memset(out, 0, sizeof(*out));
	for (n = 0; n < c->n_nodes; n++) {
		gs_idle_node(c, n, job, &one);
		add(out, &one, 1);
	}
}

int gs_idle_track_init(struct gs_idle_track *t, const struct gs_cluster *c,
		       const struct gs_idle_job *job)
{
	int32_t n;

	memset(t, 0, sizeof(*t));
	t->job = *job;
	t->node = calloc(c->n_nodes ? (size_t)c->n_nodes : 1, sizeof(*t->node));
	if (!t->node)
		return GS_ENOMEM;
	t->n_nodes = c->n_nodes;
	for (n = 0; n < c->n_nodes; n++) {
		gs_idle_node(c, n, job, &t->node[n]);
		add(&t->total, &t->node[n], 1);
	}
	return 0;
}

void gs_idle_track_update(struct gs_idle_track *t, const struct gs_cluster *c, int32_t n)
{
	if (!t->node)
		return;
	add(&t->total, &t->node[n], -1);
	gs_idle_node(c, n, &t->job, &t->node[n]);
	add(&t->total, &t->node[n], 1);
}

void gs_idle_track_release(struct gs_idle_track *t)
{
	free(t->node);
	memset(t, 0, sizeof(*t));
}
