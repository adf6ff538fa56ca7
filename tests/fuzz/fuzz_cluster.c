/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_cluster.c - fuzz target: the cluster readers (openb and gpusim CSV,
 * gpusim JSON). Built twice: FUZZ_NAME "nodes.csv" picks the reader by the
 * header (or JSON by a first '{'), "nodes.json" always JSON.
 *
 * Properties: a refused input says why, naming the file; an accepted CSV
 * has one node per data line; an accepted cluster passes the allocator's
 * invariant check and survives a round trip through gpusim's JSON writer
 * (and its CSV writer, when its models are built in).
 */
#include "core/cluster.h"
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_sim.h"
#include "io/trace/load.h"

#ifndef FUZZ_NAME
#define FUZZ_NAME "nodes.csv"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_cluster c;
	char err[2048], msg[256];
	int rc;

	gs_cluster_init(&c);
	rc = gs_load_cluster_mem(FUZZ_NAME, (const char *)data, size, &c, NULL, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(FUZZ_NAME, err);
		FUZZ_CHECK(c.n_nodes == 0, "a refused load left nodes");
		gs_cluster_release(&c);
		return 0;
	}
	FUZZ_CHECK(c.n_nodes > 0, "an accepted cluster without nodes");
	if (!fuzz_is_json(FUZZ_NAME, data, size))
		FUZZ_CHECK((size_t)c.n_nodes == fuzz_csv_data_lines(data, size),
			   "%d nodes from %zu data lines", c.n_nodes, fuzz_csv_data_lines(data, size));
	FUZZ_CHECK(gs_cluster_check(&c, msg, sizeof(msg)) == 0, "invariant: %s", msg);
	/* A JSON "count" can make a million nodes from a few bytes: round-trip the small ones. */
	if (c.n_nodes <= 4096)
		fuzz_round_trip(&c, NULL, true);
	gs_cluster_release(&c);
	return 0;
}
