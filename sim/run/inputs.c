/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inputs.c - loading a batch's cluster and traces (see inputs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/trace/load.h"
#include "run/inputs.h"

void gs_inputs_init(struct gs_inputs *in)
{
	memset(in, 0, sizeof(*in));
}

int gs_inputs_load(struct gs_inputs *in, const char *nodes_path, const char *const *pods_paths,
		   size_t n, bool strict, char *err, size_t err_len)
{
	struct gs_cluster proto;
	size_t t;
	int rc;

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
	for (t = 0; rc == 0 && strict && t < n; t++) {
		if (in->traces[t].audit.larger_than_any_node) {
			gs_errf(err, err_len, "%s: %zu pods fit on no node even when the "
				"cluster is empty (--strict)", pods_paths[t],
				in->traces[t].audit.larger_than_any_node);
			rc = GS_EINVAL;
		}
	}
	if (rc)
		gs_inputs_release(in);
	return rc;
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
	memset(in, 0, sizeof(*in));
}
