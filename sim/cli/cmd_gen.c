/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_gen.c - `gpusim gen`: writes a synthetic cluster and pod trace from
 * a JSON spec (format in traces/README.md; example traces/sample/spec.json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "io/trace/gen.h"
#include "io/trace/trace.h"
#include "io/path.h"
#include "io/trace/write.h"

struct gen_args {
	const char *spec, *nodes_out, *pods_out;
	uint64_t seed;
	bool quiet;
};

#define S struct gen_args
static const struct gs_opt gen_opts[] = {
	{ GS_OPT_STRING_AT(S, spec), .name = "spec", .short_name = 'S', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "the spec (JSON)" },
	{ GS_OPT_UINT_AT(S, seed, UINT64_MAX), .name = "seed", .short_name = 's', .arg = "N",
	  .def = "42", .help = "seed of the random stream, 0 to 2^64-1" },
	{ GS_OPT_STRING_AT(S, nodes_out), .name = "nodes-out", .short_name = 'n', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED,
	  .help = "the cluster: gpusim CSV, or JSON if FILE ends in .json (needed when the spec "
		  "overrides GPU model memory)" },
	{ GS_OPT_STRING_AT(S, pods_out), .name = "pods-out", .short_name = 'p', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "the pods, gpusim CSV" },
	GS_CLI_OPT_QUIET(S, "print no summary"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec gen_cmd = {
	.name = "gen",
	.intro = "Generates a synthetic cluster and pod trace from a JSON spec: node groups,\n"
		 "Poisson arrivals, lognormal durations and a weighted mix of request shapes\n"
		 "(format: traces/README.md, example: traces/sample/spec.json). The same spec\n"
		 "and seed always give byte-identical files.\n",
	.outro = "Exit status: 0 success, 1 the files could not be written, 2 bad spec or usage.\n",
	.opts = gen_opts,
};

int gs_cmd_gen(int argc, char **argv)
{
	struct gs_gen_spec spec;
	struct gs_gen_load load;
	struct gs_trace t;
	struct gen_args a;
	const char *spec_path, *nodes_out, *pods_out;
	char err[1024];
	int rc, status = GS_EXIT_OK;

	memset(&a, 0, sizeof(a));
	if (gs_opt_parse(&gen_cmd, argc, argv, &a, &status))
		return status;
	spec_path = a.spec;
	nodes_out = a.nodes_out;
	pods_out = a.pods_out;
	if (gs_path_is_json(pods_out)) {
		fprintf(stderr, "gpusim gen: --pods-out: '%s': pods are written as gpusim CSV; "
				"give a .csv name\n", pods_out);
		return GS_EXIT_USAGE;
	}
	if (gs_write_same_file(nodes_out, pods_out)) {
		fprintf(stderr, "gpusim gen: --nodes-out and --pods-out name the same file\n");
		return GS_EXIT_USAGE;
	}
	gs_gen_spec_init(&spec);
	gs_trace_init(&t);
	rc = gs_gen_spec_load(spec_path, &spec, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim gen: %s\n", err[0] ? err : gs_strerror(rc));
		gs_gen_spec_release(&spec);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	rc = gs_gen_pods(&spec, a.seed, &t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim gen: %s: %s\n", spec_path, err);
		status = rc == GS_ERANGE ? GS_EXIT_USAGE : GS_EXIT_FAIL;
		goto out;
	}
	/* Both files or neither. */
	rc = gs_write_cluster_and_trace(nodes_out, &spec.cluster, pods_out, &t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim gen: %s\n", err);
		status = rc == GS_EINVAL ? GS_EXIT_USAGE : GS_EXIT_FAIL;
		goto out;
	}
	if (!a.quiet && gs_gen_load_compute(&t, &spec.cluster, &load) == 0) {
		printf("gpusim gen: %d nodes with %lld GPUs -> %s\n", spec.cluster.n_nodes,
		       (long long)spec.cluster.gpu_count, nodes_out);
		printf("gpusim gen: %zu pods arriving over %.1f h -> %s\n", t.n_pods,
		       (double)load.span_s / 3600.0, pods_out);
		printf("gpusim gen: offered GPU load: mean %.0f%%, peak %.0f%% of capacity "
		       "(requests x durations, as if nothing waited)\n", 100 * load.mean,
		       100 * load.peak);
	}
out:
	gs_trace_release(&t);
	gs_gen_spec_release(&spec);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_gen_specs[] = { &gen_cmd, NULL };
