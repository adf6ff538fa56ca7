/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_compare.c - `gpusim compare`: is one policy better than another on
 * each workload of a results database, beyond the seeds' noise? Reads the
 * runs as `gpusim regress` does (store/regress_data.h) and tests them as
 * its statistical rule does (report/compare.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "report/compare.h"
#include "store/regress_data.h"
#include "store/results.h"

#define CMD "gpusim compare"

struct compare_args {
	const char *db_path, *metric;
	struct gs_opt_list policies;
	double alpha;
};

#define S struct compare_args
static const struct gs_opt compare_opts[] = {
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "the results database" },
	{ GS_OPT_LIST_AT(S, policies, 2), .name = "policy", .short_name = 'P', .arg = "A,B",
	  .flags = GS_OPT_REQUIRED,
	  .help = "the two policies: B is compared with A (the reference, e.g. fgd)" },
	{ GS_OPT_STRING_AT(S, metric), .name = "metric", .short_name = 'm', .arg = "NAME",
	  .def = "unalloc_gpu_pct",
	  .help = "a numeric column of runs or run_summary where lower is better: "
		  "unalloc_gpu_pct (inflate mode's headline), mean_wait_s, wait_p99_s, ..." },
	{ GS_OPT_DOUBLE_AT(S, alpha, 0, 1), .name = "alpha", .arg = "A", .def = "0.05",
	  .flags = GS_OPT_GT_MIN,
	  .help = "the family-wise error rate of the Holm-Bonferroni correction over the "
		  "workloads" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec compare_cmd = {
	.name = "compare",
	.intro = "Compares policy B with policy A on every workload of a results database\n"
		 "that has runs of both: a family of runs with the same trace, cluster, mode and\n"
		 "options, as gpusim regress groups them (compat and exact scoring are two\n"
		 "families). For each, the mean and sd over seeds of the metric, the change,\n"
		 "and Welch's t-test on the seed values; the p-values are corrected by\n"
		 "Holm-Bonferroni over the workloads, and a workload is 'better' or 'WORSE'\n"
		 "when its corrected p is at most --alpha (lower values are better).\n",
	.outro = "Exit status: 0 compared, 1 a database error, 2 bad usage or no workload\n"
		 "with runs of both policies.\n",
	.opts = compare_opts,
};

int gs_cmd_compare(int argc, char **argv)
{
	struct compare_args a;
	struct gs_db *db = NULL;
	struct gs_rset set;
	struct gs_compare cmp;
	char err[1024] = "";
	int status = GS_EXIT_OK, rc;

	memset(&a, 0, sizeof(a));
	memset(&cmp, 0, sizeof(cmp));
	gs_rset_init(&set);
	if (gs_opt_parse(&compare_cmd, argc, argv, &a, &status))
		return status;
	if (a.policies.n != 2) {
		fprintf(stderr, CMD ": --policy: name two policies, A,B\n");
		status = GS_EXIT_USAGE;
		goto out;
	}
	rc = gs_db_open_existing(a.db_path, &db, err, sizeof(err));
	if (rc == 0)
		rc = gs_rset_from_db(db, &set, err, sizeof(err));
	if (rc == 0)
		rc = gs_compare_policies(&set, a.policies.v[0], a.policies.v[1], a.metric, a.alpha,
					 &cmp, err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		status = rc == GS_ENOMEM || rc == GS_EDB ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	gs_compare_print(&cmp, &set, a.policies.v[0], a.policies.v[1], a.metric, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, CMD ": cannot write the output\n");
		status = GS_EXIT_FAIL;
	}
out:
	gs_compare_release(&cmp);
	gs_rset_release(&set);
	gs_db_close(db);
	gs_opt_release(&compare_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_compare_specs[] = { &compare_cmd, NULL };
