/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace.c - struct gs_trace, the container every reader fills, and the
 * audit of legal but suspicious records that gs_load_trace() runs once a
 * trace is read. Loading lives in load.c, the writers in write.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/trace/internal.h"

void gs_trace_init(struct gs_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->format = "none";
}

void gs_trace_release(struct gs_trace *t)
{
	size_t i;

	for (i = 0; i < t->n_pods; i++) {
		free(t->pod_names[i]);
		free(t->pod_specs[i]);
	}
	free(t->pod_names);
	free(t->pod_specs);
	free(t->pods);
	free(t->path);
	for (i = 0; i < (size_t)t->n_groups; i++)
		free(t->group_names[i]);
	free(t->group_names);
	free(t->pod_group);
	if (t->group_index) {
		gs_nameset_release(t->group_index);
		free(t->group_index);
	}
	gs_trace_init(t);
}

int gs_trace_append_spec(struct gs_trace *t, const char *name, const struct gs_pod *p,
			 const char *spec)
{
	char *copy, *spec_copy = NULL;

	if (t->n_pods == t->cap_pods) {
		/* Three arrays, one capacity. */
		size_t cap = gs_grow_cap(t->cap_pods, 1024);

		if (GS_GROW_RESIZE(t->pods, cap) || GS_GROW_RESIZE(t->pod_names, cap) ||
		    GS_GROW_RESIZE(t->pod_specs, cap) ||
		    (t->pod_group && GS_GROW_RESIZE(t->pod_group, cap)))
			return GS_ENOMEM;
		t->cap_pods = cap;
	}
	copy = strdup(name);
	if (spec && *spec)
		spec_copy = strdup(spec);
	if (!copy || (spec && *spec && !spec_copy)) {
		free(copy);
		free(spec_copy);
		return GS_ENOMEM;
	}
	t->pods[t->n_pods] = *p;
	t->pod_names[t->n_pods] = copy;
	t->pod_specs[t->n_pods] = spec_copy;
	if (t->pod_group)
		t->pod_group[t->n_pods] = 0;
	t->n_pods++;
	return 0;
}

int gs_trace_append(struct gs_trace *t, const char *name, const struct gs_pod *p)
{
	return gs_trace_append_spec(t, name, p, NULL);
}

int gs_trace_class(struct gs_trace *t, const char *name)
{
	size_t len = strlen(name);
	int i;

	if (len == 0 || len >= GS_CLASS_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
		return GS_EINVAL;
	for (i = 0; i < t->n_classes; i++)
		if (strcmp(t->classes[i], name) == 0)
			return i + 1;
	if (t->n_classes >= GS_MAX_CLASSES)
		return GS_ERANGE;
	memcpy(t->classes[t->n_classes], name, len + 1);
	return ++t->n_classes;
}

const char *gs_trace_class_name(const struct gs_trace *t, int k)
{
	if (k < 1 || k > t->n_classes)
		return "";
	return t->classes[k - 1];
}

/* --- pod groups ---------------------------------------------------------- */

int gs_trace_group(struct gs_trace *t, const char *name)
{
	long k;
	char *copy;
	int rc;

	if (!t->group_index) {
		t->group_index = malloc(sizeof(*t->group_index));
		if (!t->group_index)
			return GS_ENOMEM;
		gs_nameset_init(t->group_index);
	}
	if (gs_nameset_find(t->group_index, name, &k))
		return (int)k;
	if (t->n_groups == INT32_MAX)
		return GS_ERANGE;
	if (t->n_groups == t->cap_groups) {
		size_t cap = gs_grow_cap((size_t)t->cap_groups, 256);

		if (cap > INT32_MAX)
			cap = INT32_MAX;
		if (GS_GROW_RESIZE(t->group_names, cap))
			return GS_ENOMEM;
		t->cap_groups = (int32_t)cap;
	}
	copy = strdup(name);
	if (!copy)
		return GS_ENOMEM;
	/* Keyed by the trace's own copy, which outlives the index. */
	rc = gs_nameset_add(t->group_index, copy, (long)t->n_groups + 1, NULL);
	if (rc < 0) {
		free(copy);
		return rc;
	}
	t->group_names[t->n_groups++] = copy;
	return t->n_groups;
}

int gs_trace_set_group(struct gs_trace *t, size_t i, int32_t g)
{
	if (!t->pod_group) {
		if (g == 0)
			return 0;
		t->pod_group = calloc(t->cap_pods ? t->cap_pods : 1, sizeof(*t->pod_group));
		if (!t->pod_group)
			return GS_ENOMEM;
	}
	t->pod_group[i] = g;
	return 0;
}

int gs_trace_join_group(struct gs_trace *t, const char *name)
{
	int g = gs_trace_group(t, name);

	return g < 0 ? g : gs_trace_set_group(t, t->n_pods - 1, g);
}

const char *gs_trace_group_name(const struct gs_trace *t, int32_t g)
{
	if (g < 1 || g > t->n_groups)
		return "";
	return t->group_names[g - 1];
}

/* --- the audit ------------------------------------------------------------ */

/* A node's shape: nodes of one shape accept exactly the same pods when empty. */
struct shape {
	int32_t model, num_gpu, cpu_milli;
	int64_t mem_mib;
};

static int shape_cmp(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->num_gpu != y->num_gpu)
		return x->num_gpu < y->num_gpu ? -1 : 1;
	if (x->cpu_milli != y->cpu_milli)
		return x->cpu_milli < y->cpu_milli ? -1 : 1;
	if (x->mem_mib != y->mem_mib)
		return x->mem_mib < y->mem_mib ? -1 : 1;
	return 0;
}

/* Same model and no more of anything: whatever fits on a fits on b. */
static bool dominated(const struct shape *a, const struct shape *b)
{
	return a->model == b->model && a->num_gpu <= b->num_gpu && a->cpu_milli <= b->cpu_milli &&
	       a->mem_mib <= b->mem_mib;
}

/*
 * "Fits on no node of the empty cluster" is answered on a small cluster
 * with one empty node per undominated shape, built with the allocator's
 * own gs_cluster_add_node() so the answer comes from gs_cluster_fits() and
 * cannot drift from the filter. openb's 1523 nodes reduce to about 20.
 */
int gs_trace_audit(struct gs_trace *t, const struct gs_cluster *c)
{
	struct gs_cluster rep;
	struct shape *s;
	size_t i, k = 0;
	int32_t j, n;
	int rc = 0;

	t->audit.deleted_before_created = 0;
	t->audit.no_deletion_time = 0;
	t->audit.larger_than_any_node = 0;
	for (i = 0; i < t->n_pods; i++) {
		const struct gs_pod *p = &t->pods[i];

		if (p->t_delete_s < 0)
			t->audit.no_deletion_time++;
		else if (p->t_create_s >= 0 && p->t_delete_s < p->t_create_s)
			t->audit.deleted_before_created++;
	}

	s = malloc(((size_t)c->n_nodes + 1) * sizeof(*s));
	if (!s)
		return GS_ENOMEM;
	for (j = 0; j < c->n_nodes; j++) {
		const struct gs_node *nd = &c->nodes[j];

		s[j].model = nd->num_gpu > 0 ? nd->model : -1;
		s[j].num_gpu = nd->num_gpu;
		s[j].cpu_milli = nd->cpu_milli;
		s[j].mem_mib = nd->mem_mib;
	}
	qsort(s, (size_t)c->n_nodes, sizeof(*s), shape_cmp);
	for (j = 0; j < c->n_nodes; j++)
		if (k == 0 || shape_cmp(&s[k - 1], &s[j]) != 0)
			s[k++] = s[j];
	/* Pruning is quadratic; clusters with thousands of shapes skip it. */
	if (k <= 4096) {
		size_t m = 0;

		for (i = 0; i < k; i++) {
			size_t o;

			for (o = 0; o < k; o++)
				if (o != i && dominated(&s[i], &s[o]) && shape_cmp(&s[i], &s[o]))
					break;
			if (o == k)
				s[m++] = s[i];
		}
		k = m;
	}

	gs_cluster_init(&rep);
	rep.models = c->models;
	for (i = 0; i < k; i++) {
		const char *model = s[i].model >= 0 ? c->models.m[s[i].model].name : "";

		rc = gs_cluster_add_node(&rep, "shape", s[i].cpu_milli, s[i].mem_mib, s[i].num_gpu,
					 model);
		if (rc < 0)
			goto out;
	}
	rc = 0;
	n = rep.n_nodes;
	for (i = 0; i < t->n_pods; i++) {
		for (j = 0; j < n; j++)
			if (gs_cluster_fits(&rep, j, &t->pods[i]) == GS_FIT_OK)
				break;
		if (j == n)
			t->audit.larger_than_any_node++;
	}
out:
	gs_cluster_release(&rep);
	free(s);
	return rc;
}

/* --- writers -------------------------------------------------------------- */
