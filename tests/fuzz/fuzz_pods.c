/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_pods.c - fuzz target: the pod trace readers (openb's 11-column and
 * multigpu lists, gpusim CSV, gpusim JSON) against a small fixed cluster.
 * Built twice: FUZZ_NAME "pods.csv" (the reader chosen by the header, or
 * JSON by a first '{') and "pods.json".
 *
 * Properties: a refused input says why, naming the file, and leaves the
 * cluster's model table as it was; an accepted CSV has one pod per data
 * line; an accepted trace survives a round trip through gpusim's CSV
 * writer with the same pods and the same audit; a small one replays in
 * time and inflate mode under the allocator's invariant check, or is
 * refused with a message.
 */
#include "core/cluster.h"
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_sim.h"
#include "io/trace/load.h"

#ifndef FUZZ_NAME
#define FUZZ_NAME "pods.csv"
#endif

/* Two models, a CPU-only node, and one node of the largest memory. */
static void fixed_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	gs_cluster_add_node(c, "t4-0", 32000, 131072, 2, "T4");
	gs_cluster_add_node(c, "v100-0", 64000, 262144, 4, "V100M32");
	gs_cluster_add_node(c, "g2-0", 96000, 9007199254740991LL, 8, "G2");
	gs_cluster_add_node(c, "cpu-0", 64000, 262144, 0, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_cluster c;
	struct gs_trace t;
	char err[2048];
	int rc, n_models;

	fixed_cluster(&c);
	n_models = c.models.n;
	gs_trace_init(&t);
	rc = gs_load_trace_mem(FUZZ_NAME, (const char *)data, size, &c, &t, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(FUZZ_NAME, err);
		FUZZ_CHECK(t.n_pods == 0 && c.models.n == n_models,
			   "a refused load left pods or models");
		gs_cluster_release(&c);
		return 0;
	}
	FUZZ_CHECK(t.n_pods > 0, "an accepted trace without pods");
	if (!fuzz_is_json(FUZZ_NAME, data, size))
		FUZZ_CHECK(t.n_pods == fuzz_csv_data_lines(data, size), "%zu pods from %zu data lines",
			   t.n_pods, fuzz_csv_data_lines(data, size));
	fuzz_round_trip(&c, &t, false);
	fuzz_replay(&c, &t, 64);
	gs_trace_release(&t);
	gs_cluster_release(&c);
	return 0;
}
