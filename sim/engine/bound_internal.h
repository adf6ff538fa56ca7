/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound_internal.h - the packing problem of bound.c, as bound_glpk.c
 * hands it to GLPK.
 *
 * A prefix of the inflated arrivals becomes GPU pod types (equal requests
 * merged, with their count in the prefix) and GPU node types (equal nodes
 * merged); allowed[] says which type fits on which node type when the
 * node is empty (gs_cluster_fits), which covers models, GPU counts, CPU,
 * memory and GPU memory for a single pod.
 *
 * Ownership: bound.c owns everything; GLPK's objects live inside one call.
 */
#ifndef GS_BOUND_INTERNAL_H
#define GS_BOUND_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"

struct gs_bound_node_type {
	int32_t node;               /* a node of this type (the first) */
	int64_t count;              /* nodes of this type */
};

struct gs_bound_pod_type {
	struct gs_pod req;          /* the request; times are -1 */
	int64_t count;              /* in the prefix */
};

struct gs_bound_problem {
	const struct gs_cluster *c;
	struct gs_bound_node_type *nt;
	int32_t n_nt;
	struct gs_bound_pod_type *pt;  /* GPU pods only */
	int32_t n_pt;
	uint8_t *allowed;              /* [pt * n_nt + nt] */
};

/* True when pod type t may run on node type j. */
static inline bool gs_bound_allowed(const struct gs_bound_problem *pb, int32_t t, int32_t j)
{
	return pb->allowed[(size_t)t * (size_t)pb->n_nt + (size_t)j] != 0;
}

/* True when a type shares a GPU (one GPU, less than all of it). */
static inline bool gs_bound_sharing(const struct gs_pod *p)
{
	return p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU;
}

/*
 * The pattern LP (bound.h) of pb, with GLPK (bound_glpk.c): writes to *bound_out an upper bound on
 * the GPU milli any placement of pb's pods allocates, and to *columns_out
 * the patterns generated. Returns 0, or GS_ENOMEM with err saying whether
 * memory ran out or GLPK stopped.
 */
int gs_bound_glpk_lp(const struct gs_bound_problem *pb, int64_t *bound_out,
		     int32_t *columns_out, char *err, size_t err_len);

/* A placement of some of the prefix's pods: where each went. */
struct gs_bound_placed {
	int32_t type;               /* index into pb->pt */
	struct gs_placement pl;
};

struct gs_bound_start {
	struct gs_bound_placed *v;  /* owned */
	size_t n;
	int64_t gpu_milli;          /* what they allocate */
};

/*
 * The integer program of pb, node by node and GPU by GPU, with COIN-OR CBC
 * (bound_mip.c), given an upper bound (the LP's; -1: none), a placement
 * to start from (NULL: none) and a time limit: the best placement's GPU
 * milli into *best_out (at least start's; -1: none found), the proven
 * bound into *bound_out (-1: none). Returns 0, GS_ENOMEM, or GS_ENOENT
 * when CBC is not installed (err says which package to install).
 */
int gs_bound_mip_solve(const struct gs_bound_problem *pb, int64_t upper,
		       const struct gs_bound_start *start, double time_limit_s, int64_t *best_out,
		       int64_t *bound_out, char *err, size_t err_len);

#endif
