/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idle.c - the idle GPU capacity of a cluster by reason (idle.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/idle.h"

/*
 * Node n's split, returned by value: the tracker's update keeps it in
 * registers instead of reading back what gs_idle_node() has just stored
 * (a 16-byte load over 8-byte stores, which the CPU cannot forward: perf,
 * most of the update's samples, 2% of a sharing run at 6 000 nodes).
 */
static inline struct gs_idle idle_of(const struct gs_cluster *c, int32_t n,
				     const struct gs_idle_job *job)
{
	const struct gs_node *nd = &c->nodes[n];
	int64_t whole = (int64_t)nd->gpu_whole_free * GS_MILLI_PER_GPU;
	struct gs_idle v = { 0, 0, 0, 0 };

	if (nd->num_gpu == 0)
		return v;
	/* What the partly used GPUs have left; the rest of the free share is whole GPUs. */
	v.frac_milli = nd->gpu_free_total_milli - whole;
	if (whole == 0)
		return v;
	if (nd->cpu_free_milli < job->cpu_milli || nd->mem_free_mib < job->mem_mib)
		v.nocpu_milli = whole;
	else if (nd->gpu_whole_free < job->num_gpu)
		v.stranded_milli = whole;
	else
		v.usable_milli = whole;
	return v;
}

void gs_idle_node(const struct gs_cluster *c, int32_t n, const struct gs_idle_job *job,
		  struct gs_idle *out)
{
	*out = idle_of(c, n, job);
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
	struct gs_idle was, now;

	if (!t->node)
		return;
	was = t->node[n];
	now = idle_of(c, n, &t->job);
	add(&t->total, &was, -1);
	add(&t->total, &now, 1);
	t->node[n] = now;
}

void gs_idle_track_release(struct gs_idle_track *t)
{
	free(t->node);
	memset(t, 0, sizeof(*t));
}
