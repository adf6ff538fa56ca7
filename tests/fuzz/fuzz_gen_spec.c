/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_gen_spec.c - fuzz target: the generator's spec reader (`gpusim
 * gen --spec`, traces/README.md).
 *
 * Properties: a refused spec says why, naming the file. From an accepted
 * spec with a small cluster and count, the generator either draws the pods
 * or refuses with a message (a rate too slow for the count); what it draws
 * goes through gpusim's writers and back unchanged, and every pod fits
 * some node of the cluster with models it has (the generator's promise).
 */
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_sim.h"
#include "io/trace/gen.h"
#include "io/trace/load.h"

#define NAME "spec.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_gen_spec s;
	struct gs_trace t;
	char err[2048];
	size_t i;
	int rc;

	gs_gen_spec_init(&s);
	rc = gs_gen_spec_parse(NAME, (const char *)data, size, &s, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(NAME, err);
		gs_gen_spec_release(&s);
		return 0;
	}
	FUZZ_CHECK(s.cluster.n_nodes > 0 && s.n_shapes > 0 && s.n_pods > 0,
		   "an accepted spec without nodes, shapes or pods");
	if (s.n_pods > 256 || s.cluster.n_nodes > 256) {
		gs_gen_spec_release(&s);
		return 0;
	}
	gs_trace_init(&t);
	rc = gs_gen_pods(&s, 1, &t, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == GS_ERANGE, "gen: %s: %s", gs_strerror(rc), err);
	if (rc == 0) {
		FUZZ_CHECK(t.n_pods == s.n_pods, "%zu pods drawn for a count of %zu", t.n_pods,
			   s.n_pods);
		for (i = 0; i < t.n_pods; i++) {
			int32_t n;

			for (n = 0; n < s.cluster.n_nodes; n++)
				if (gs_cluster_fits(&s.cluster, n, &t.pods[i]) == GS_FIT_OK)
					break;
			FUZZ_CHECK(n < s.cluster.n_nodes, "pod '%s' fits no node", t.pod_names[i]);
		}
		fuzz_round_trip(&s.cluster, &t, true);
	} else {
		FUZZ_CHECK(err[0] != '\0' && t.n_pods == 0, "a refusal without a message");
	}
	gs_trace_release(&t);
	gs_gen_spec_release(&s);
	return 0;
}
