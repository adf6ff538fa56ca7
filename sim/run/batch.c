/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch.c - building and checking a batch of runs (see batch.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/arrivals.h"
#include "run/batch.h"
#include "store/results.h"

void gs_batch_init(struct gs_batch *b)
{
	memset(b, 0, sizeof(*b));
}

int gs_batch_add_input(struct gs_batch *b, const struct gs_batch_input *in)
{
	struct gs_batch_input *g = gs_grow(b->inputs, &b->cap_inputs, b->n_inputs, sizeof(*g), 4);

	if (!g)
		return GS_ENOMEM;
	b->inputs = g;
	b->inputs[b->n_inputs++] = *in;
	return 0;
}

int gs_batch_add_setting(struct gs_batch *b, const struct gs_replay_opts *o)
{
	char *json;

	if (b->n_settings == b->cap_settings) {
		size_t cap = gs_grow_cap(b->cap_settings, 4);

		if (GS_GROW_RESIZE(b->settings, cap) || GS_GROW_RESIZE(b->params, cap))
			return GS_ENOMEM;
		b->cap_settings = cap;
	}
	if (gs_replay_params_json(o, &json))
		return GS_ENOMEM;
	b->settings[b->n_settings] = *o;
	b->params[b->n_settings] = json;
	b->n_settings++;
	return 0;
}

int gs_batch_add_cell(struct gs_batch *b, const struct gs_batch_cell *c)
{
	struct gs_batch_cell *g;

	if (c->input >= b->n_inputs || c->setting >= b->n_settings || !c->policy)
		return GS_EINVAL;
	g = gs_grow(b->cells, &b->cap_cells, b->n_cells, sizeof(*g), 64);
	if (!g)
		return GS_ENOMEM;
	b->cells = g;
	b->cells[b->n_cells++] = *c;
	return 0;
}

/*
 * Marks in used[setting * n_inputs + input] the pairs some cell runs.
 * Returns the malloc'ed array, or NULL when out of memory.
 */
static unsigned char *used_pairs(const struct gs_batch *b)
{
	size_t n = b->n_settings * b->n_inputs, i;
	unsigned char *used = calloc(n ? n : 1, 1);

	if (!used)
		return NULL;
	for (i = 0; i < b->n_cells; i++)
		used[b->cells[i].setting * b->n_inputs + b->cells[i].input] = 1;
	return used;
}

int gs_batch_check(const struct gs_batch *b, char *err, size_t err_len)
{
	unsigned char *used = used_pairs(b);
	size_t k, i;
	int rc = 0;

	if (!used)
		return gs_errf_nomem(err, err_len);
	/* A load a trace cannot offer is the user's to fix, before any run. */
	for (k = 0; k < b->n_settings && !rc; k++) {
		const struct gs_replay_opts *o = &b->settings[k];

		for (i = 0; i < b->n_inputs && !rc && o->load_pct > 0; i++) {
			const struct gs_batch_input *in = &b->inputs[i];
			const struct gs_trace *t = in->trace;
			char msg[512];

			if (!used[k * b->n_inputs + i])
				continue;
			rc = gs_arrivals_check(t->pods, t->n_pods, o->load_repeat,
					       gs_replay_load_cap(o, in->cluster), o->load_pct,
					       o->arrivals, msg, sizeof(msg));
			if (rc)
				gs_errf(err, err_len, "load %g%%: %s: %s", o->load_pct,
					in->pods_path, msg);
		}
	}
	/* Then what the options make impossible on each input. */
	for (k = 0; k < b->n_settings && !rc; k++)
		for (i = 0; i < b->n_inputs && !rc; i++)
			if (used[k * b->n_inputs + i])
				rc = gs_sim_validate(b->inputs[i].cluster, b->inputs[i].trace,
						     &b->settings[k], err, err_len);
	free(used);
	return rc;
}

struct gs_replay_opts gs_batch_opts(const struct gs_batch *b, size_t i)
{
	struct gs_replay_opts o = b->settings[b->cells[i].setting];

	o.seed = b->cells[i].seed;
	return o;
}

struct gs_plan_cell gs_batch_key(const struct gs_batch *b, size_t i)
{
	const struct gs_batch_cell *c = &b->cells[i];
	const struct gs_batch_input *in = &b->inputs[c->input];
	struct gs_plan_cell k;

	k.policy = c->policy->name;
	k.pods_path = in->pods_path;
	k.pods_sha256 = in->trace->sha256;
	k.nodes_path = in->nodes_path;
	k.nodes_sha256 = in->nodes_sha256;
	k.params_json = b->params[c->setting];
	k.seed = c->seed;
	return k;
}

void gs_batch_release(struct gs_batch *b)
{
	size_t i;

	for (i = 0; i < b->n_settings; i++)
		free(b->params[i]);
	free(b->params);
	free(b->settings);
	free(b->inputs);
	free(b->cells);
	memset(b, 0, sizeof(*b));
}
