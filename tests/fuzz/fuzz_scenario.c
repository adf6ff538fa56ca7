/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_scenario.c - fuzz target: the benchmark scenario reader of the GPU
 * harness (bench/cuda/harness/scenario.c and its JSON parser).
 *
 * Properties: a refused scenario says why, naming the file; an accepted
 * one has a name, 1 to GS_SCENARIO_MAX_CLIENTS clients each asking for 1 to
 * 1000 milli-GPU, the exclusive mode first, and expands into its variants
 * (colocate) without error. The harness has no scenario writer, so there
 * is no round trip here.
 */
#include "core/error.h"
#include "fuzz.h"
#include "scenario.h"

#define NAME "scenario.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_scenario *s = calloc(1, sizeof(*s)), *v = calloc(1, sizeof(*v));
	char err[2048] = "";
	int rc, i, k;

	FUZZ_CHECK(s && v, "out of memory");
	rc = gs_scenario_parse(NAME, (const char *)data, size, s, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(NAME, err);
		free(s);
		free(v);
		return 0;
	}
	FUZZ_CHECK(s->name[0] != '\0', "an accepted scenario without a name");
	FUZZ_CHECK(s->n_clients >= 1 && s->n_clients <= GS_SCENARIO_MAX_CLIENTS, "%d clients",
		   s->n_clients);
	FUZZ_CHECK(s->n_modes >= 1 && s->modes[0] == GS_MODE_EXCLUSIVE,
		   "the exclusive mode is not first");
	for (i = 0; i < s->n_clients; i++)
		FUZZ_CHECK(s->clients[i].gpu_milli >= 1 && s->clients[i].gpu_milli <= 1000 &&
			   s->clients[i].gpu_mem_mib >= 0 && s->clients[i].name[0],
			   "client %d asks for %d milli-GPU", i, s->clients[i].gpu_milli);
	k = gs_scenario_variants(s);
	FUZZ_CHECK(k >= 1 && k <= 8, "%d variants", k);
	for (i = 0; i < k; i++) {
		memset(v, 0, sizeof(*v));
		rc = gs_scenario_variant(s, i, v);
		FUZZ_CHECK(rc == 0, "variant %d: %s", i, gs_strerror(rc));
		FUZZ_CHECK(v->n_clients >= 1 && v->n_clients <= GS_SCENARIO_MAX_CLIENTS,
			   "variant %d has %d clients", i, v->n_clients);
		gs_scenario_release(v);
	}
	gs_scenario_release(s);
	free(s);
	free(v);
	return 0;
}
