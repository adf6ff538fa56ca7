/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_state.h - a stored run's cluster at one simulated time: which pods
 * held what on each node and GPU (counted as each GPU's sharing mode
 * counts them), and each node's FGD fragmentation against the typical
 * pods of the run's trace. Rebuilt from the run's nodes and pods rows
 * (store/results.h), for `gpusim inspect --run` and for any report that
 * shows a run's cluster.
 *
 * Ownership: gs_run_state_rebuild() borrows the rows it is given (the
 * caller's, from gs_db_load_nodes() and gs_db_load_pods());
 * gs_run_state_load() reads them itself and owns them. Either way the
 * state owns the arrays it fills; gs_run_state_release() frees what it
 * owns.
 */
#ifndef GS_RUN_STATE_H
#define GS_RUN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/mig.h"
#include "core/sharing.h"
#include "store/results.h"

/* Allocation of one node at the state's time. */
struct gs_run_state_node {
	int32_t gpu_milli[GS_MAX_GPUS];  /* held on each GPU, as its mode counts it */
	int32_t gpu_pods[GS_MAX_GPUS];   /* pods on each GPU */
	int64_t gpu_mem_mib;             /* GPU memory its pods asked for, all GPUs */
	int64_t cpu_milli;
	int64_t mem_mib;
	int32_t pods;
	int32_t free_milli;              /* GPU share left, sum over its GPUs */
	double frag_milli;               /* FGD fragmentation, milli-GPU; NAN: not known */
	int32_t first_pod;               /* first of its pods in gs_run_state.held, -1: none */
	/* Sharing: each GPU's mode and its MIG instances at t. */
	bool shared;
	struct gs_share_cfg cfg[GS_MAX_GPUS];
	struct gs_mig_gpu mig[GS_MAX_GPUS];
};

/* A pod that holds resources at the state's time. */
struct gs_run_state_pod {
	size_t pod;                      /* index into gs_run_state.pods */
	int32_t cost_milli[GS_MAX_GPUS]; /* what its k-th GPU costs, as the GPU's mode counts */
	int32_t next;                    /* next pod of the same node, -1: last */
};

/* A stored run's cluster at one time. */
struct gs_run_state {
	const struct gs_db_node *nodes;  /* the run's nodes, in index order */
	size_t n_nodes;
	const struct gs_db_pod *pods;    /* the run's pods, in pod order */
	size_t n_pods;
	int64_t run_id;
	int64_t t_s;
	struct gs_run_state_node *alloc; /* [n_nodes] */
	struct gs_run_state_pod *held;   /* in pod order */
	size_t n_held;
	/*
	 * Fragmentation: known when the run's pods give a typical workload
	 * (frag_note says why not otherwise), measured with the run's own
	 * coverage and kind rule.
	 */
	bool frag_known;
	const char *frag_note;           /* static text, NULL when known */
	/* The rows gs_run_state_load() read, NULL when borrowed. */
	struct gs_db_node *own_nodes;
	struct gs_db_pod *own_pods;
};

/*
 * Rebuilds the allocation of run run_id at t_s from its nodes and pods: a
 * pod counts when it started at or before t_s and had not ended by then.
 * Fills *st (borrowing nodes and pods). Returns 0, GS_ENOMEM, or GS_EDB
 * when the rows are inconsistent (a pod on a node or GPU the run lacks, an
 * over-committed node, text gpusim does not write), with a message in err
 * naming the run. On error *st holds nothing to release.
 */
int gs_run_state_rebuild(struct gs_run_state *st, int64_t run_id, int64_t t_s,
			 const struct gs_db_node *nodes, size_t n_nodes,
			 const struct gs_db_pod *pods, size_t n_pods, char *err, size_t err_len);

/*
 * Reads run run_id's nodes and pods from db and rebuilds its state at t_s
 * (gs_run_state_rebuild()), owning the rows. Returns 0, or GS_ENOENT,
 * GS_ENOMEM or GS_EDB with a message in err; on error *st holds nothing to
 * release.
 */
int gs_run_state_load(struct gs_run_state *st, struct gs_db *db, int64_t run_id, int64_t t_s,
		      char *err, size_t err_len);

/*
 * Fills every node's frag_milli: the expected free GPU share that the
 * typical pods of the run's trace (its stored pods, one per trace row,
 * grouped as the run grouped them: params_json's compat and
 * frag_coverage) cannot use there (core/frag.h). Sets frag_known, or
 * leaves it false with a note when the run has no GPU pods or too many
 * GPU models. Returns 0 or GS_ENOMEM.
 */
int gs_run_state_frag(struct gs_run_state *st, const char *params_json);

/* Frees what st owns; st stays valid to release again. */
void gs_run_state_release(struct gs_run_state *st);

#endif
