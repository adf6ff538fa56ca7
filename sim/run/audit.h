/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.h - the warnings a command prints about its inputs before any run:
 * pods of a trace that can never run on the cluster, said once per trace
 * (and once per trace and sharing mechanism), whichever command runs them
 * (replay, sweep, advise):
 *
 *   gpusim CMD: FILE: N pods are deleted before they are created; they run for 0 s
 *   gpusim CMD: FILE: N pods ask for GPU models no node has; they can never be placed
 *   gpusim CMD: FILE: N pods fit on no node even when the cluster is empty; they will
 *               never be placed
 *   gpusim CMD: FILE: under --sharing MODE, N pods fit on no node even when the cluster
 *               is empty and will never be placed; the first, 'NAME': 0/6 nodes are
 *               available: 4 GPU memory above the MPS pinned limit, 2 Insufficient GPUs
 *   gpusim CMD: under --sharing mig, N GPUs of models without MIG run exclusive
 *
 * The counts come from the trace's audit (io/trace/trace.h) and from the
 * filter (gs_cluster_fits()) on the empty cluster with the mechanism
 * applied: an MPS pinned-memory limit below a pod's GPU memory, a request
 * no MIG profile covers.
 */
#ifndef GS_AUDIT_H
#define GS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cluster.h"
#include "core/sharing.h"
#include "io/trace/trace.h"
#include "run/batch.h"

/*
 * Prints the trace audit of t (the first three lines above, those that
 * apply) on f; snapshot says the cluster starts from a Kubernetes
 * snapshot's state rather than empty.
 */
void gs_audit_trace_print(FILE *f, const char *cmd, const struct gs_trace *t, bool snapshot);

/*
 * The pods of pods[0..n) that fit no node of c as it is (empty: its
 * sharing modes applied, nothing bound): their count, and the index of
 * the first in *first (n when none). Pods of one request shape are
 * filtered once. Returns the count, or (size_t)-1 when out of memory.
 */
size_t gs_audit_unfit(const struct gs_cluster *c, const struct gs_pod *pods, size_t n,
		      size_t *first);

/*
 * Prints the fourth line above for the pods of pods[0..n) that fit no
 * node of c (empty, modes applied: spec names them), naming the first by
 * name (a static or borrowed string); nothing when every pod fits.
 * Returns how many do not, or (size_t)-1 when out of memory.
 */
size_t gs_audit_sharing_print(FILE *f, const char *cmd, const char *file, const char *spec,
			      const struct gs_cluster *c, const struct gs_pod *pods, size_t n,
			      const char *(*name)(const void *arg, size_t i), const void *arg);

/*
 * What gs_audit_batch() found for one input and one sharing mechanism of
 * its settings: the pods (of the trace, one copy) that can never run.
 */
struct gs_audit_never {
	size_t input;                /* index in the batch's inputs */
	struct gs_share_cfg sharing; /* the settings' mechanism */
	size_t n_never;              /* pods that fit no node of the empty cluster */
	size_t first;                /* the first of them, an index in the trace */
	int32_t n_whole;             /* mig: GPUs of models without MIG, run exclusive */
	char why[96];                /* the filter's commonest reason for the first ("" none) */
};

/*
 * For each input of b that a cell uses, and each sharing mechanism of the
 * settings paired with it (in the order settings first appear): the pods
 * that can never run, into a malloc'ed array *out of *n_out entries
 * (caller frees). With f not NULL, prints the warnings above on f: the
 * trace audit once per input, the mechanism's line once per input and
 * mechanism when it leaves more pods unplaceable than the trace audit
 * counts (pods no node can hold are said once). Returns 0, GS_ENOMEM, or the error of applying a mechanism
 * (GS_EINVAL, GS_ERANGE) with a message in err.
 */
int gs_audit_batch(const struct gs_batch *b, FILE *f, const char *cmd,
		   struct gs_audit_never **out, size_t *n_out, char *err, size_t err_len);

#endif
