/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster_select.c - which nodes a pod may use beyond its resources (node
 * groups and selection classes), and the hook through which an external
 * devices allocator (DRA) takes part in the filter and in binding.
 *
 * Kubernetes decides a pod's nodes by labels, taints and resource names
 * before it counts resources. io/k8s works that out once per distinct
 * pod: nodes that admit the same pods form a group, pods that accept the
 * same groups (and claim the same devices) share a class, and the filter
 * reads one byte of the class x group table. Plain C, libc only.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/error.h"

/* Frees the selection state and the devices allocator of c (cluster.c's release). */
void gs__select_release(struct gs_cluster *c);
/* Copies them from src into dst, whose own are not yet set. Returns 0 or GS_ENOMEM. */
int gs__select_copy(struct gs_cluster *dst, const struct gs_cluster *src);

static void select_free(struct gs_select *s)
{
	if (!s)
		return;
	free(s->ok);
	free(s->claims);
	free(s);
}

void gs__select_release(struct gs_cluster *c)
{
	select_free(c->select);
	c->select = NULL;
	if (c->dev_ops && c->dev_state)
		c->dev_ops->free(c->dev_state);
	c->dev_ops = NULL;
	c->dev_state = NULL;
}

static struct gs_select *select_dup(const struct gs_select *src)
{
	size_t cells = (size_t)src->n_sel * (size_t)src->n_groups;
	struct gs_select *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	*s = *src;
	s->ok = malloc(cells ? cells : 1);
	s->claims = malloc((size_t)src->n_sel * sizeof(*s->claims));
	if (!s->ok || !s->claims) {
		select_free(s);
		return NULL;
	}
	memcpy(s->ok, src->ok, cells);
	memcpy(s->claims, src->claims, (size_t)src->n_sel * sizeof(*s->claims));
	return s;
}

int gs__select_copy(struct gs_cluster *dst, const struct gs_cluster *src)
{
	dst->select = NULL;
	dst->dev_ops = NULL;
	dst->dev_state = NULL;
	if (src->select && !(dst->select = select_dup(src->select)))
		return GS_ENOMEM;
	if (src->dev_ops) {
		dst->dev_state = src->dev_ops->clone(src->dev_state);
		if (!dst->dev_state) {
			select_free(dst->select);
			dst->select = NULL;
			return GS_ENOMEM;
		}
		dst->dev_ops = src->dev_ops;
	}
	return 0;
}

int gs_cluster_set_select(struct gs_cluster *c, const int32_t *node_group, int32_t n_groups,
			  const uint8_t *ok, const int32_t *claims, int32_t n_sel)
{
	struct gs_select tmp, *s;
	int32_t i;

	if (n_groups < 1 || n_sel < 1 || n_sel > UINT16_MAX + 1)
		return GS_EINVAL;
	/* Once pods are bound, classes may be added but the groups must stay. */
	if (c->n_pods && (!c->select || c->select->n_groups != n_groups ||
			  n_sel < c->select->n_sel))
		return GS_EINVAL;
	for (i = 0; c->n_pods && i < c->n_nodes; i++)
		if (c->nodes[i].group != node_group[i])
			return GS_EINVAL;
	for (i = 0; i < c->n_nodes; i++)
		if (node_group[i] < 0 || node_group[i] >= n_groups)
			return GS_EINVAL;
	memset(&tmp, 0, sizeof(tmp));
	tmp.n_groups = n_groups;
	tmp.n_sel = n_sel;
	tmp.ok = (uint8_t *)ok;
	tmp.claims = (int32_t *)claims;
	if (!claims) {
		tmp.claims = calloc((size_t)n_sel, sizeof(*tmp.claims));
		if (!tmp.claims)
			return GS_ENOMEM;
	}
	s = select_dup(&tmp);
	if (!claims)
		free(tmp.claims);
	if (!s)
		return GS_ENOMEM;
	/* Class 0 admits every group. */
	memset(s->ok, 1, (size_t)n_groups);
	s->claims[0] = 0;
	select_free(c->select);
	c->select = s;
	for (i = 0; i < c->n_nodes; i++)
		c->nodes[i].group = node_group[i];
	c->version++;
	return 0;
}

int gs_cluster_set_devices(struct gs_cluster *c, const struct gs_devices_ops *ops, void *state)
{
	if (c->n_pods)
		return GS_EINVAL;
	if (c->dev_ops && c->dev_state)
		c->dev_ops->free(c->dev_state);
	c->dev_ops = ops;
	c->dev_state = state;
	c->version++;
	return 0;
}
