/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_k8s.c - fuzz target: Kubernetes snapshots (io/k8s), YAML or JSON by
 * FUZZ_NAME ("snap.yaml", "snap.json"): read, finished, built into a
 * cluster, then each queued pod placed on the first node that takes it,
 * which drives the DRA allocator through the cluster's hook.
 *
 * Properties: a refused input says why, naming the file; an accepted one
 * builds a cluster that passes the allocator's invariant check, before and
 * after the placements, with every running pod bound.
 */
#include "core/cluster.h"
#include "core/error.h"
#include "fuzz.h"
#include "io/k8s/build.h"

#ifndef FUZZ_NAME
#define FUZZ_NAME "snap.yaml"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_k8s_snapshot *s = gs_k8s_snapshot_new();
	struct gs_k8s_state *st = NULL;
	struct gs_cluster c;
	struct gs_trace q;
	char err[4096], msg[256];
	size_t i;
	int rc;

	if (!s)
		return 0;
	gs_cluster_init(&c);
	gs_trace_init(&q);
	rc = gs_k8s_snapshot_read_mem(s, FUZZ_NAME, (const char *)data, size, err, sizeof(err));
	if (rc == 0)
		rc = gs_k8s_snapshot_finish(s, err, sizeof(err));
	if (rc == 0)
		rc = gs_k8s_build(s, &c, &q, &st, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM || rc == GS_ERANGE || rc == GS_ENOENT,
			   "unexpected status %s: %s", gs_strerror(rc), err);
		if (rc == GS_EPARSE)
			fuzz_check_refusal(FUZZ_NAME, err);
		FUZZ_CHECK(c.n_nodes == 0 && q.n_pods == 0, "a refused build left a cluster");
		gs_k8s_snapshot_free(s);
		return 0;
	}
	FUZZ_CHECK(c.n_nodes == (int32_t)s->n_nodes, "%d nodes built of %zu", c.n_nodes,
		   s->n_nodes);
	FUZZ_CHECK((size_t)c.n_pods == st->n_running, "%lld pods bound, %zu running",
		   (long long)c.n_pods, st->n_running);
	FUZZ_CHECK(gs_cluster_check(&c, msg, sizeof(msg)) == 0, "invariant: %s", msg);
	for (i = 0; i < q.n_pods && i < 64; i++) {
		int32_t n;

		FUZZ_CHECK(gs_pod_valid(&q.pods[i]), "queued pod %zu is not valid", i);
		for (n = 0; n < c.n_nodes; n++) {
			struct gs_placement pl;

			if (gs_cluster_fits(&c, n, &q.pods[i]) != GS_FIT_OK || q.pods[i].num_gpu)
				continue;
			memset(&pl, 0, sizeof(pl));
			pl.node = n;
			rc = gs_cluster_bind(&c, &q.pods[i], &pl);
			FUZZ_CHECK(rc == 0, "pod %zu fits node %d but bind says %s", i, n,
				   gs_strerror(rc));
			break;
		}
	}
	FUZZ_CHECK(gs_cluster_check(&c, msg, sizeof(msg)) == 0, "invariant after placing: %s",
		   msg);
	gs_k8s_state_free(st);
	gs_k8s_snapshot_free(s);
	gs_trace_release(&q);
	gs_cluster_release(&c);
	return 0;
}
