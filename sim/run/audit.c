/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.c - the warnings about pods that can never run (see audit.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "policies/sched.h"
#include "run/audit.h"

void gs_audit_trace_print(FILE *f, const char *cmd, const struct gs_trace *t, bool snapshot)
{
	const struct gs_trace_audit *au = &t->audit;

	if (au->deleted_before_created)
		fprintf(f, "gpusim %s: %s: %zu pods are deleted before they are created; "
			   "they run for 0 s\n", cmd, t->path, au->deleted_before_created);
	if (au->unknown_model)
		fprintf(f, "gpusim %s: %s: %zu pods ask for GPU models no node has; "
			   "they can never be placed\n", cmd, t->path, au->unknown_model);
	if (au->larger_than_any_node)
		fprintf(f, "gpusim %s: %s: %zu pods fit on no node even %s; they will never be "
			   "placed\n", cmd, t->path, au->larger_than_any_node,
			snapshot ? "in the snapshot's starting state" : "when the cluster is empty");
}

/*
 * Pods of one request shape fit the same nodes: order pointers into one
 * array by what the filter reads, then by place (the pointers' order).
 */
static int cmp_shape(const void *x, const void *y)
{
	const struct gs_pod *a = *(const struct gs_pod *const *)x;
	const struct gs_pod *b = *(const struct gs_pod *const *)y;

#define CMP(F)                              \
	if (a->F != b->F)                   \
		return a->F < b->F ? -1 : 1
	CMP(cpu_milli);
	CMP(mem_mib);
	CMP(num_gpu);
	CMP(gpu_milli);
	CMP(gpu_mem_mib);
	CMP(model_mask);
#undef CMP
	return a < b ? -1 : a > b;
}

static int same_shape(const struct gs_pod *a, const struct gs_pod *b)
{
	return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
	       a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_mem_mib == b->gpu_mem_mib && a->model_mask == b->model_mask;
}

static int fits_somewhere(const struct gs_cluster *c, const struct gs_pod *p)
{
	int32_t k;

	for (k = 0; k < c->n_nodes; k++)
		if (gs_cluster_fits(c, k, p) == GS_FIT_OK)
			return 1;
	return 0;
}

size_t gs_audit_unfit(const struct gs_cluster *c, const struct gs_pod *pods, size_t n,
		      size_t *first)
{
	const struct gs_pod **idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t i, j, count = 0;

	*first = n;
	if (!idx)
		return (size_t)-1;
	for (i = 0; i < n; i++)
		idx[i] = &pods[i];
	qsort(idx, n, sizeof(*idx), cmp_shape);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_shape(idx[i], idx[j]); j++)
			;
		if (fits_somewhere(c, idx[i]))
			continue;
		count += j - i;
		/* The group's first pod comes first (the sort's tie-break). */
		if ((size_t)(idx[i] - pods) < *first)
			*first = (size_t)(idx[i] - pods);
	}
	free(idx);
	return count;
}

size_t gs_audit_sharing_print(FILE *f, const char *cmd, const char *file, const char *spec,
			      const struct gs_cluster *c, const struct gs_pod *pods, size_t n,
			      const char *(*name)(const void *arg, size_t i), const void *arg)
{
	struct gs_nofit nf;
	size_t first, count = gs_audit_unfit(c, pods, n, &first);
	char buf[512];
	int32_t k;

	if (count == 0 || count == (size_t)-1)
		return count;
	memset(&nf, 0, sizeof(nf));
	nf.nodes = c->n_nodes;
	for (k = 0; k < c->n_nodes; k++)
		nf.count[gs_cluster_fits(c, k, &pods[first])]++;
	fprintf(f, "gpusim %s: %s%sunder --sharing %s, %zu pods fit on no node even when the "
		   "cluster is empty and will never be placed; the first, '%s': %s\n",
		cmd, file ? file : "", file ? ": " : "", spec, count, name(arg, first),
		gs_nofit_format(&nf, buf, sizeof(buf)));
	return count;
}

static const char *trace_pod_name(const void *arg, size_t i)
{
	return ((const struct gs_trace *)arg)->pod_names[i];
}

/* Whether a cell of b runs input i with setting k. */
static int pair_used(const struct gs_batch *b, size_t i, size_t k)
{
	size_t c;

	for (c = 0; c < b->n_cells; c++)
		if (b->cells[c].input == i && b->cells[c].setting == k)
			return 1;
	return 0;
}

/* The audit of input i under mechanism cfg into *a; prints its lines on f (may be NULL). */
static int audit_one(const struct gs_batch *b, size_t i, const struct gs_share_cfg *cfg, FILE *f,
		     const char *cmd, struct gs_audit_never *a, char *err, size_t err_len)
{
	const struct gs_batch_input *in = &b->inputs[i];
	struct gs_cluster c;
	char spec[GS_SHARE_SPEC_MAX];
	int rc;

	memset(a, 0, sizeof(*a));
	a->input = i;
	a->sharing = *cfg;
	gs_cluster_init(&c);
	rc = gs_cluster_copy(&c, in->cluster);
	if (rc) {
		gs_errf(err, err_len, "out of memory");
		gs_cluster_release(&c);
		return GS_ENOMEM;
	}
	rc = gs_cluster_share_default(&c, cfg, &a->n_whole, err, err_len);
	if (rc) {
		gs_cluster_release(&c);
		return rc;
	}
	gs_share_format(cfg, spec, sizeof(spec));
	a->n_never = gs_audit_unfit(&c, in->trace->pods, in->trace->n_pods, &a->first);
	if (a->n_never == (size_t)-1) {
		gs_cluster_release(&c);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	if (a->n_never && a->first < in->trace->n_pods) {
		int32_t count[GS_FIT__COUNT] = { 0 }, k;
		int best = -1, r;

		for (k = 0; k < c.n_nodes; k++)
			count[gs_cluster_fits(&c, k, &in->trace->pods[a->first])]++;
		for (r = GS_FIT_OK + 1; r < GS_FIT__COUNT; r++)
			if (count[r] && (best < 0 || count[r] > count[best]))
				best = r;
		if (best >= 0)
			snprintf(a->why, sizeof(a->why), "%s", gs_fit_str((enum gs_fit)best));
	}
	/* The pods no mechanism could place are in the trace audit already. */
	if (f && cfg->mode != GS_SHARE_IDEAL &&
	    a->n_never > in->trace->audit.larger_than_any_node)
		gs_audit_sharing_print(f, cmd, in->pods_path, spec, &c, in->trace->pods,
				       in->trace->n_pods, trace_pod_name, in->trace);
	if (f && a->n_whole)
		fprintf(f, "gpusim %s: %s: under --sharing %s, %d GPUs of models without MIG run "
			   "exclusive\n", cmd, in->nodes_path ? in->nodes_path : "cluster", spec,
			(int)a->n_whole);
	gs_cluster_release(&c);
	return 0;
}

int gs_audit_batch(const struct gs_batch *b, FILE *f, const char *cmd,
		   struct gs_audit_never **out, size_t *n_out, char *err, size_t err_len)
{
	struct gs_audit_never *list = NULL, *g;
	size_t n = 0, cap = 0, i, k, j;
	int rc = 0;

	*out = NULL;
	*n_out = 0;
	for (i = 0; i < b->n_inputs && !rc; i++) {
		int printed = 0;

		for (k = 0; k < b->n_settings && !rc; k++) {
			const struct gs_share_cfg *cfg = &b->settings[k].sharing;

			if (!pair_used(b, i, k))
				continue;
			for (j = 0; j < n; j++)
				if (list[j].input == i && gs_share_cfg_equal(&list[j].sharing, cfg))
					break;
			if (j < n)
				continue;
			if (f && !printed++)
				gs_audit_trace_print(f, cmd, b->inputs[i].trace, false);
			g = gs_grow(list, &cap, n, sizeof(*g), 8);
			if (!g) {
				gs_errf(err, err_len, "out of memory");
				rc = GS_ENOMEM;
				break;
			}
			list = g;
			rc = audit_one(b, i, cfg, f, cmd, &list[n], err, err_len);
			if (!rc)
				n++;
		}
	}
	if (rc) {
		free(list);
		return rc;
	}
	*out = list;
	*n_out = n;
	return 0;
}
