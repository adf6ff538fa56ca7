/* SPDX-License-Identifier: Apache-2.0 */
/*
 * defrag.h - the descheduler of time mode: when an arriving pod fits on no
 * node although a node would take it if a few of its running pods were
 * elsewhere, it moves them (evicts and re-places them on other nodes, as
 * a descheduler and the scheduler would) and places the pod there.
 *
 * Budget: moves at most --defrag's share of the pods arrived so far
 * ("1%": one move per hundred arrivals, running), and/or at most N moves
 * per simulated hour (a bucket of N moves refilled at N per hour).
 *
 * Cost: a moved pod either restarts from scratch ('lost': the work it had
 * done since it last started is lost, and it runs its whole duration
 * again) or resumes after a restart time S (checkpoint and restore: its
 * departure moves S later). Either way its GPU share times the seconds
 * lost is counted in lost GPU-seconds.
 *
 * Which pods move (the descheduler's own policy): for each node that
 * could take the pod, the cheapest set of its pods whose leaving makes
 * room: on the GPUs the pod would use (the GPU needing the least lost work
 * for a one-GPU pod; the GPUs cheapest to empty for a multi-GPU pod), in
 * order of lost GPU-seconds, then for CPU and memory. The nodes are tried
 * by fewest moves, then least lost work, then the scheduler's node order;
 * a node whose pods cannot all be re-placed elsewhere (by the run's
 * policy, on other nodes) is given up and everything moved is put back.
 * At most GS_DEFRAG_MAX_MOVES moves per pod placed.
 *
 * Only with GPUs shared as requested (no --sharing mode): a sharing
 * mode's rate model would have to restart a pod's progress too.
 *
 * Ownership: struct gs_defrag is part of struct gs_sim (_init/_release).
 */
#ifndef GS_DEFRAG_H
#define GS_DEFRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"

#define GS_DEFRAG_MAX_MOVES 4
/* Nodes whose victims are tried for one pod before the descheduler gives up on it. */
#define GS_DEFRAG_MAX_NODES 8

enum gs_defrag_cost {
	GS_DEFRAG_LOST = 0,     /* a moved pod restarts from scratch */
	GS_DEFRAG_RESTART = 1,  /* a moved pod resumes after restart_s */
};

struct gs_defrag_opts {
	double budget_pct;      /* > 0: moves <= this % of the pods arrived so far */
	double per_hour;        /* > 0: moves <= this many per simulated hour */
	int cost;               /* enum gs_defrag_cost */
	int64_t restart_s;      /* GS_DEFRAG_RESTART */
};

/* Off (no budget), cost 'lost'. */
void gs_defrag_opts_init(struct gs_defrag_opts *o);

/* True when the options move pods at all. */
static inline bool gs_defrag_on(const struct gs_defrag_opts *o)
{
	return o->budget_pct > 0 || o->per_hour > 0;
}

struct gs_defrag_stats {
	int64_t attempts;       /* pods that fit nowhere and were looked at */
	int64_t placed;         /* of them, placed after moves */
	int64_t moves;          /* pods moved */
	int64_t pods_moved;     /* distinct pods moved */
	double lost_gpu_s;      /* GPU-seconds of work lost by the moves (GPUs x seconds) */
};

struct gs_defrag {
	struct gs_defrag_stats st;
	uint32_t *gen;          /* [pod] moves so far: the generation of its DEPART */
	int64_t *run_s;         /* [pod] when it last (re)started, -1: never moved */
	int64_t *end_s;         /* [pod] its departure once moved, -1: never moved */
	double tokens;          /* per_hour bucket */
	int64_t t_tokens;       /* when it was last refilled */
	/* Running pods per node, rebuilt when the cluster's version moved. */
	int32_t *node_first;    /* [node + 1] offsets into node_pods */
	int32_t *node_pods;
	uint64_t index_version;
	bool index_valid;
};

struct gs_sim;

/* Prepares d for n_pods pods. Returns 0 or GS_ENOMEM (d is then released). */
int gs_defrag_init(struct gs_defrag *d, const struct gs_defrag_opts *o, size_t n_pods);

/* Frees d's arrays and zeroes it. */
void gs_defrag_release(struct gs_defrag *d);

/*
 * Pod `pod` arrived at t_s and fits on no node: moves running pods within
 * the budget so that a node takes it, and writes where it goes into
 * *pl_out (the caller binds it there). Returns 0, GS_ENOFIT (no room can
 * be made within the budget; nothing moved), or an error of the
 * scheduler or the event heap.
 */
int gs_defrag_make_room(struct gs_sim *sim, int32_t pod, int64_t t_s,
			struct gs_placement *pl_out);

/* True when a DEPART event of pod was scheduled before the pod last moved (skip it). */
static inline bool gs_defrag_stale(const struct gs_defrag *d, int32_t pod, uint32_t gen)
{
	return d->gen && d->gen[pod] != gen;
}

#endif
