/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inputs.h - a cluster and the pod traces of a batch, loaded once and
 * shared read-only by every run (run/batch.h).
 *
 * Each trace is loaded against its own copy of the cluster: loading a
 * trace adds the GPU models its pods name to the cluster's model table
 * (io/trace/load.h), and one trace's unknown models must not change what
 * another trace's runs see.
 *
 * Ownership: struct gs_inputs owns its clusters and traces; it borrows
 * nothing. _init/_release.
 */
#ifndef GS_INPUTS_H
#define GS_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cluster.h"
#include "io/sha256.h"
#include "io/trace/trace.h"
#include "run/batch.h"

struct gs_k8s_snapshot;
struct gs_k8s_state;

struct gs_inputs {
	char nodes_sha256[GS_SHA256_HEX];    /* of the cluster file */
	struct gs_cluster *clusters;         /* [n]: trace i was loaded against clusters[i] */
	struct gs_trace *traces;             /* [n] */
	size_t n;
	/* From a Kubernetes snapshot: it and its build, which the clusters' DRA states borrow. */
	struct gs_k8s_snapshot *snap;
	struct gs_k8s_state *kstate;
};

/* Makes in empty. */
void gs_inputs_init(struct gs_inputs *in);

/*
 * Loads the cluster file nodes_path, then each of the n traces against its
 * own copy of it. With strict, a trace with pods that fit on no node even
 * when the cluster is empty is refused (GS_EINVAL: "FILE: N pods fit on no
 * node even when the cluster is empty (--strict)"). Returns 0, or
 * GS_ENOENT, GS_EIO, GS_EPARSE, GS_EINVAL or GS_ENOMEM with a message in
 * err naming the file; in is then empty again.
 */
int gs_inputs_load(struct gs_inputs *in, const char *nodes_path, const char *const *pods_paths,
		   size_t n, bool strict, char *err, size_t err_len);

/*
 * gs_inputs_load() from a Kubernetes snapshot (io/k8s/build.h) instead of
 * a cluster file: the n_state files are read and built once; each trace i
 * is the snapshot's pending pods, then the pods of pods_paths[i] (loaded
 * against that trace's copy of the cluster), or the pending pods alone
 * when pods_paths is NULL (then n is 1). Each trace's path is its pods
 * file, or the snapshot's files comma-joined. nodes_sha256 is the
 * snapshot's. Same returns as gs_inputs_load(), the messages naming the
 * snapshot's file, object and field.
 */
int gs_inputs_load_state(struct gs_inputs *in, const char *const *state_paths, size_t n_state,
			 const char *const *pods_paths, size_t n, bool strict, char *err,
			 size_t err_len);

/*
 * Adds every (cluster, trace) pair of in to batch b as inputs, in order,
 * with the paths given to gs_inputs_load() (borrowed, as in and its
 * contents are). 0 or GS_ENOMEM.
 */
int gs_inputs_add_to(const struct gs_inputs *in, struct gs_batch *b, const char *nodes_path,
		     const char *const *pods_paths);

/* Frees what in owns and empties it; safe on an initialised or released struct. */
void gs_inputs_release(struct gs_inputs *in);

#endif
