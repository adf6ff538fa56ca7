/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gang.c - the pod groups of a run and their waiting queue (gang.h). The
 * placement itself, all or nothing, is the replay's (replay.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/gang.h"

void gs_gangs_release(struct gs_gangs *gs)
{
	free(gs->g);
	free(gs->members);
	free(gs->of);
	free(gs->queue);
	memset(gs, 0, sizeof(*gs));
}

/* Time mode: group (copy, g) is number copy * groups + g - 1. */
static int32_t key_time(const struct gs_trace *t, size_t i, int32_t g, size_t period)
{
	return (int32_t)((i / period) * (size_t)t->n_groups + (size_t)(g - 1));
}

int gs_gangs_init(struct gs_gangs *gs, const struct gs_trace *t, const int32_t *idx,
		  const struct gs_pod *pods, size_t n, size_t period, bool blocks)
{
	int32_t *size = NULL, *fill = NULL, cur = -1, cur_g = 0;
	size_t i, n_inst = 0;
	int rc = GS_ENOMEM;

	memset(gs, 0, sizeof(*gs));
	if (!t->pod_group || t->n_groups == 0 || n == 0)
		return 0;
	gs->of = malloc(n * sizeof(*gs->of));
	size = calloc((size_t)t->n_groups + 1, sizeof(*size));
	if (!gs->of || !size)
		goto fail;
	for (i = 0; i < t->n_pods; i++)
		size[t->pod_group[i]]++;
	/* Number the run's groups. */
	if (!blocks)
		n_inst = (n + period - 1) / period * (size_t)t->n_groups;
	for (i = 0; i < n; i++) {
		int32_t g = t->pod_group[idx ? (size_t)idx[i] : i % period];

		gs->of[i] = -1;
		if (g == 0)
			continue;
		if (!blocks) {
			gs->of[i] = key_time(t, i, g, period);
			continue;
		}
		/* A run of g's pods, cut every size[g] pods. */
		if (cur < 0 || cur_g != g || fill[cur] == size[g]) {
			int32_t *f = gs_grow(fill, &gs->cap, n_inst, sizeof(*f), 64);

			if (!f)
				goto fail;
			fill = f;
			cur = (int32_t)n_inst++;
			fill[cur] = 0;
			cur_g = g;
		}
		fill[cur]++;
		gs->of[i] = cur;
	}
	gs->cap = 0;
	gs->g = calloc(n_inst ? n_inst : 1, sizeof(*gs->g));
	gs->members = malloc(n * sizeof(*gs->members));
	if (!gs->g || !gs->members)
		goto fail;
	gs->n = (int32_t)n_inst;
	/* Sizes, then the first index of each group, then the members in run order. */
	for (i = 0; i < n; i++)
		if (gs->of[i] >= 0)
			gs->g[gs->of[i]].n++;
	{
		int32_t k, at = 0;

		for (k = 0; k < gs->n; k++) {
			gs->g[k].first = at;
			at += gs->g[k].n;
			if (gs->g[k].n > gs->max_n)
				gs->max_n = gs->g[k].n;
			gs->g[k].ready_s = gs->g[k].start_s = -1;
			gs->g[k].n = 0;
		}
	}
	for (i = 0; i < n; i++) {
		struct gs_gang *gg;

		if (gs->of[i] < 0)
			continue;
		gg = &gs->g[gs->of[i]];
		gs->members[gg->first + gg->n++] = (int32_t)i;
		gg->gpu_milli += gs_pod_gpu_milli(&pods[i]);
		gg->cpu_milli += pods[i].cpu_milli;
		gg->mem_mib += pods[i].mem_mib;
	}
	rc = 0;
	goto out;
fail:
	gs_gangs_release(gs);
out:
	free(size);
	free(fill);
	return rc;
}

int gs_gangs_enqueue(struct gs_gangs *gs, int32_t g, int64_t seq)
{
	if (gs->head > 0 && gs->len == gs->cap) {
		/* Reuse the room before the head rather than grow. */
		memmove(gs->queue, gs->queue + gs->head, (gs->len - gs->head) * sizeof(*gs->queue));
		gs->len -= gs->head;
		gs->head = 0;
	}
	if (gs->len == gs->cap) {
		int32_t *q = gs_grow(gs->queue, &gs->cap, gs->len, sizeof(*q), 64);

		if (!q)
			return GS_ENOMEM;
		gs->queue = q;
	}
	gs->queue[gs->len++] = g;
	gs->g[g].state = GS_GANG_WAITING;
	gs->g[g].seq = seq;
	return 0;
}

void gs_gangs_trim(struct gs_gangs *gs)
{
	while (gs->head < gs->len && gs->g[gs->queue[gs->head]].state != GS_GANG_WAITING)
		gs->head++;
	if (gs->head == gs->len)
		gs->head = gs->len = 0;
}
