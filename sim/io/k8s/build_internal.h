/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_internal.h - shared by build.c and select.c: the context of one
 * gs_k8s_build() and the steps it takes.
 */
#ifndef GS_K8S_BUILD_INTERNAL_H
#define GS_K8S_BUILD_INTERNAL_H

#include "io/k8s/build.h"

struct gs_k8s_bctx {
	const struct gs_k8s_snapshot *s;
	struct gs_cluster *c;
	struct gs_k8s_state *st;
	char *err;
	size_t err_len;
};

/* "out of memory" into the error buffer; returns GS_ENOMEM. */
int gs_k8s_boom(struct gs_k8s_bctx *b);

/* The request of pod p as gpusim counts it (build.h). Returns 0 or GS_EPARSE. */
int gs_k8s_pod_request(struct gs_k8s_bctx *b, const struct gs_k8s_pod *p, struct gs_pod *out);

/*
 * Node groups and selection classes for the pods build classified, the
 * DRA claim sets, and the cluster's selection and devices allocator.
 * Returns 0, GS_ERANGE (too many classes), GS_EPARSE or GS_ENOMEM.
 */
int gs_k8s_select_build(struct gs_k8s_bctx *b);

#endif
