/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_convert.c - fuzz target: the converters of public traces
 * (io/trace/convert.h), one build per format (FUZZ_FORMAT, FUZZ_NAME).
 * The input is given to the format's readers in turn: as its job table
 * (against a small fixed gpusim cluster, and, for the formats that build
 * their nodes, alone) and as its machine list (with a fixed one-job table
 * where the format sizes nodes from the jobs).
 *
 * Properties: a refused input says why, naming the file; an accepted one
 * gives pods or nodes that survive a round trip through gpusim's writers
 * and readers (the same pods, groups, classes, nodes and models), and a
 * small trace replays in time and inflate mode under the allocator's
 * invariant check, or is refused with a message.
 */
#include <string.h>

#include "core/cluster.h"
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_sim.h"
#include "io/trace/convert.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT GS_CONV_PAI
#endif
#ifndef FUZZ_NAME
#define FUZZ_NAME "jobs.pai"
#endif

/* A job table that sizes nodes (helios), for the machine-list run. */
static const char helios_job[] =
	"job_id,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
	"1,8,16,1,2020-04-01 00:00:00,2020-04-01 00:00:10,2020-04-01 01:00:10\n";

static void fixed_cluster(struct gs_cluster *c)
{
	gs_cluster_init(c);
	gs_cluster_add_node(c, "t4-0", 32000, 131072, 2, "T4");
	gs_cluster_add_node(c, "a100-0", 128000, 1048576, 8, "A100-80G");
	gs_cluster_add_node(c, "cpu-0", 64000, 262144, 0, NULL);
}

static bool builds_nodes(enum gs_conv_format f)
{
	return f == GS_CONV_DLRM || f == GS_CONV_HELIOS || f == GS_CONV_ACME;
}

/* One conversion; checks a refusal or the result. */
static void convert_one(const uint8_t *data, size_t size, bool as_jobs, bool given)
{
	struct gs_conv_opts o;
	struct gs_conv_report rep;
	struct gs_cluster fixed, c;
	struct gs_trace t;
	char err[2048] = "";
	const char *name = as_jobs ? FUZZ_NAME : "machines.csv";
	int rc;

	fixed_cluster(&fixed);
	gs_cluster_init(&c);
	gs_trace_init(&t);
	gs_conv_opts_init(&o, FUZZ_FORMAT);
	/* A few lines may ask for many workers each: keep one input quick. */
	o.max_pods = 20000;
	/* And a short machine list may ask for a million nodes: past 2 GB under ASan. */
	o.max_nodes = 20000;
	if (as_jobs) {
		o.jobs.name = name;
		o.jobs.data = (const char *)data;
		o.jobs.len = size;
		if (given)
			o.nodes = &fixed;
	} else {
		o.machines.name = name;
		o.machines.data = (const char *)data;
		o.machines.len = size;
		if (FUZZ_FORMAT == GS_CONV_HELIOS) {
			o.jobs.name = "jobs.csv";
			o.jobs.data = helios_job;
			o.jobs.len = sizeof(helios_job) - 1;
		}
	}
	rc = gs_convert(&o, &c, &t, &rep, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected status %s: %s",
			   gs_strerror(rc), err);
		fuzz_check_refusal(name, err);
	} else {
		FUZZ_CHECK(t.n_pods > 0 || c.n_nodes > 0, "an accepted conversion made nothing");
		FUZZ_CHECK(t.n_pods == rep.pods && (size_t)t.n_groups == (size_t)rep.groups,
			   "the report says %zu pods and %d groups, not %zu and %d", rep.pods,
			   (int)rep.groups, t.n_pods, (int)t.n_groups);
		if (c.n_nodes > 0) {
			fuzz_round_trip(&c, t.n_pods ? &t : NULL, true);
			if (t.n_pods)
				fuzz_replay(&c, &t, 64);
		}
	}
	gs_trace_release(&t);
	gs_cluster_release(&c);
	gs_cluster_release(&fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	convert_one(data, size, true, true);
	if (builds_nodes(FUZZ_FORMAT))
		convert_one(data, size, true, false);
	if (FUZZ_FORMAT != GS_CONV_DLRM && FUZZ_FORMAT != GS_CONV_ACME)
		convert_one(data, size, false, false);
	return 0;
}
