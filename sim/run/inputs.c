/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inputs.c - loading a batch's cluster and traces (see inputs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/k8s/build.h"
#include "io/trace/load.h"
#include "run/inputs.h"

void gs_inputs_init(struct gs_inputs *in)
{
	memset(in, 0, sizeof(*in));
}

/* Empty clusters and traces for n inputs. Returns 0 or GS_ENOMEM (in empty). */
static int inputs_alloc(struct gs_inputs *in, size_t n, char *err, size_t err_len)
{
	size_t t;

	gs_inputs_release(in);
	in->clusters = calloc(n ? n : 1, sizeof(*in->clusters));
	in->traces = calloc(n ? n : 1, sizeof(*in->traces));
	if (!in->clusters || !in->traces) {
		gs_inputs_release(in);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	in->n = n;
	for (t = 0; t < n; t++) {
		gs_cluster_init(&in->clusters[t]);
		gs_trace_init(&in->traces[t]);
	}
	return 0;
}

/*
 * Ends a load that returned rc: when it succeeded and strict (--strict), a
 * trace with pods that fit on no node, even `empty`, is refused
 * (GS_EINVAL); on any failure in is emptied. Returns rc or GS_EINVAL.
 */
static int load_end(struct gs_inputs *in, int rc, bool strict, const char *const *names,
		    const char *empty, char *err, size_t err_len)
{
	size_t t;

	for (t = 0; rc == 0 && strict && t < in->n; t++)
		if (in->traces[t].audit.larger_than_any_node) {
			gs_errf(err, err_len, "%s: %zu pods fit on no node even %s (--strict)",
				names ? names[t] : in->traces[t].path,
				in->traces[t].audit.larger_than_any_node, empty);
			rc = GS_EINVAL;
		}
	if (rc)
		gs_inputs_release(in);
	return rc;
}

int gs_inputs_load(struct gs_inputs *in, const char *nodes_path, const char *const *pods_paths,
		   size_t n, bool strict, char *err, size_t err_len)
{
	struct gs_cluster proto;
	size_t t;
	int rc = inputs_alloc(in, n, err, err_len);

	if (rc)
		return rc;
	gs_cluster_init(&proto);
	rc = gs_load_cluster(nodes_path, &proto, in->nodes_sha256, err, err_len);
	for (t = 0; rc == 0 && t < n; t++) {
		rc = gs_cluster_copy(&in->clusters[t], &proto);
		if (rc) {
			gs_errf(err, err_len, "out of memory");
			break;
		}
		rc = gs_load_trace(pods_paths[t], &in->clusters[t], &in->traces[t], err, err_len);
	}
	gs_cluster_release(&proto);
	return load_end(in, rc, strict, pods_paths, "when the cluster is empty", err, err_len);
}

int gs_inputs_load_state(struct gs_inputs *in, const char *const *state_paths, size_t n_state,
			 const char *const *pods_paths, size_t n, bool strict, char *err,
			 size_t err_len)
{
	struct gs_cluster proto;
	struct gs_trace queue, extra;
	size_t t, i;
	int rc = inputs_alloc(in, pods_paths ? n : 1, err, err_len);

	if (rc)
		return rc;
	gs_cluster_init(&proto);
	gs_trace_init(&queue);
	rc = gs_k8s_load(state_paths, n_state, &in->snap, &proto, &queue, &in->kstate, err,
			 err_len);
	if (rc == 0)
		memcpy(in->nodes_sha256, in->snap->sha256, GS_SHA256_HEX);
	for (t = 0; rc == 0 && t < in->n; t++) {
		struct gs_trace *tr = &in->traces[t];

		rc = gs_cluster_copy(&in->clusters[t], &proto);
		for (i = 0; rc == 0 && i < queue.n_pods; i++)
			rc = gs_trace_append(tr, queue.pod_names[i], &queue.pods[i]);
		if (rc == 0 && !(tr->path = strdup(pods_paths ? pods_paths[t] : in->snap->paths)))
			rc = GS_ENOMEM;
		if (rc) {
			gs_errf(err, err_len, "out of memory");
			break;
		}
		tr->audit = queue.audit;
		tr->format = queue.format;
		memcpy(tr->sha256, in->nodes_sha256, GS_SHA256_HEX);
		if (!pods_paths)
			continue;
		gs_trace_init(&extra);
		rc = gs_load_trace(pods_paths[t], &in->clusters[t], &extra, err, err_len);
		if (rc == 0)
			rc = gs_k8s_queue_add(in->kstate, &in->clusters[t], tr, &extra, err, err_len);
		if (rc == 0) {
			memcpy(tr->sha256, extra.sha256, GS_SHA256_HEX);
			tr->format = extra.format;
		}
		gs_trace_release(&extra);
	}
	gs_trace_release(&queue);
	gs_cluster_release(&proto);
	return load_end(in, rc, strict, NULL, "in the snapshot's starting state", err, err_len);
}

int gs_inputs_add_to(const struct gs_inputs *in, struct gs_batch *b, const char *nodes_path,
		     const char *const *pods_paths)
{
	size_t t;

	for (t = 0; t < in->n; t++) {
		struct gs_batch_input bi = {
			.cluster = &in->clusters[t],
			.trace = &in->traces[t],
			.nodes_path = nodes_path,
			.nodes_sha256 = in->nodes_sha256,
			.pods_path = pods_paths[t],
		};

		if (gs_batch_add_input(b, &bi))
			return GS_ENOMEM;
	}
	return 0;
}

void gs_inputs_release(struct gs_inputs *in)
{
	size_t t;

	for (t = 0; t < in->n; t++) {
		gs_trace_release(&in->traces[t]);
		gs_cluster_release(&in->clusters[t]);
	}
	free(in->traces);
	free(in->clusters);
	/* After the clusters, whose DRA states borrow them. */
	gs_k8s_state_free(in->kstate);
	gs_k8s_snapshot_free(in->snap);
	memset(in, 0, sizeof(*in));
}
