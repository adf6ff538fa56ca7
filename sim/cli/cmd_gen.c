/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_gen.c - `gpusim gen`: writes a synthetic cluster and pod trace from
 * a JSON spec (format in traces/README.md; example traces/sample/spec.json).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_errno.h>

#include "cli/cmd.h"
#include "core/error.h"
#include "io/trace/gen.h"
#include "io/trace/trace.h"
#include "io/trace/write.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim gen --spec FILE --nodes-out FILE --pods-out FILE [--seed N]\n"
		"\n"
		"Generates a synthetic cluster and pod trace from a JSON spec: node groups,\n"
		"Poisson arrivals, lognormal durations and a weighted mix of request shapes\n"
		"(format: traces/README.md, example: traces/sample/spec.json). The same spec\n"
		"and seed always give byte-identical files.\n"
		"\n"
		"  -S, --spec FILE       the spec (JSON)\n"
		"  -s, --seed N          seed of the random stream, 0 to 2^64-1 (default 42)\n"
		"  -n, --nodes-out FILE  the cluster: gpusim CSV, or JSON if FILE ends in .json\n"
		"                        (needed when the spec overrides GPU model memory)\n"
		"  -p, --pods-out FILE   the pods, gpusim CSV\n"
		"  -q, --quiet           print no summary\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 success, 1 the files could not be written, 2 bad spec or usage.\n");
}

static bool ends_with_json(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || s[0] == ' ') {
		fprintf(stderr, "gpusim gen: --seed: '%s' is not an integer from 0 to "
				"18446744073709551615\n", s);
		return -1;
	}
	*out = v;
	return 0;
}

int gs_cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "spec", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 's' },
		{ "nodes-out", required_argument, NULL, 'n' },
		{ "pods-out", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec_path = NULL, *nodes_out = NULL, *pods_out = NULL;
	struct gs_gen_spec spec;
	struct gs_gen_load load;
	struct gs_trace t;
	uint64_t seed = 42;
	bool quiet = false;
	char err[1024];
	int c, rc, status = GS_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "S:s:n:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			spec_path = optarg;
			break;
		case 's':
			if (parse_seed(optarg, &seed))
				return GS_EXIT_USAGE;
			break;
		case 'n':
			nodes_out = optarg;
			break;
		case 'p':
			pods_out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return GS_EXIT_OK;
		default:
			usage(stderr);
			return GS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpusim gen: unexpected argument '%s'\n", argv[optind]);
		return GS_EXIT_USAGE;
	}
	if (!spec_path || !nodes_out || !pods_out) {
		fprintf(stderr, "gpusim gen: --spec, --nodes-out and --pods-out are required "
				"(see 'gpusim gen --help')\n");
		return GS_EXIT_USAGE;
	}
	if (ends_with_json(pods_out)) {
		fprintf(stderr, "gpusim gen: --pods-out: '%s': pods are written as gpusim CSV; "
				"give a .csv name\n", pods_out);
		return GS_EXIT_USAGE;
	}
	if (!strcmp(nodes_out, pods_out)) {
		fprintf(stderr, "gpusim gen: --nodes-out and --pods-out name the same file\n");
		return GS_EXIT_USAGE;
	}
	/* Inputs are validated before GSL sees them; never let it abort. */
	gsl_set_error_handler_off();

	gs_gen_spec_init(&spec);
	gs_trace_init(&t);
	rc = gs_gen_spec_load(spec_path, &spec, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim gen: %s\n", err[0] ? err : gs_strerror(rc));
		gs_gen_spec_release(&spec);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	rc = gs_gen_pods(&spec, seed, &t);
	if (rc) {
		fprintf(stderr, "gpusim gen: %s\n", gs_strerror(rc));
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (ends_with_json(nodes_out))
		rc = gs_cluster_write_json(nodes_out, &spec.cluster, err, sizeof(err));
	else
		rc = gs_cluster_write_csv(nodes_out, &spec.cluster, err, sizeof(err));
	if (!rc)
		rc = gs_trace_write_csv(pods_out, &t, &spec.cluster, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim gen: %s\n", err);
		status = rc == GS_EINVAL ? GS_EXIT_USAGE : GS_EXIT_FAIL;
		goto out;
	}
	if (!quiet && gs_gen_load_compute(&t, &spec.cluster, &load) == 0) {
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
