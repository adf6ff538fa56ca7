/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_merge.c - `gpusim merge OUT IN...`: joins the results databases of a
 * sweep's shards (or of any runs) into one (store/merge.h, gs_db_merge),
 * then says, plan by plan, how much of each sweep's matrix OUT holds and
 * which runs are missing.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "store/merge.h"
#include "store/plan.h"
#include "store/results.h"

#define CMD "gpusim merge"
/* Missing runs listed by name; beyond that, only counted. */
#define MERGE_LIST_MAX 20

struct merge_args {
	char **files;       /* OUT, then the inputs */
	size_t n_files;
	bool quiet;
};

#define S struct merge_args
static const struct gs_opt merge_opts[] = {
	GS_CLI_OPT_QUIET(S, "print only the missing runs, one per line"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec merge_cmd = {
	.name = "merge",
	.intro = "Copies every complete run of the databases IN into OUT (created when missing):\n"
		 "the runs rows and their nodes, pods, samples and statistics, under new run\n"
		 "ids, the sweeps' plans, the bounds of gpusim bound and the decisions of\n"
		 "gpusim advise (their runs renumbered as the runs are; a decision resting\n"
		 "on a run that is not complete in IN is left out, and said). A run OUT\n"
		 "already has (same policy, trace, cluster, seed and options) with the same\n"
		 "results is not copied again; one with other results stops the merge and\n"
		 "nothing of that IN is copied. A database of another major schema version\n"
		 "is refused, and so is every input, before anything is copied, when one is\n"
		 "damaged (SQLite's integrity check, or a run with fewer rows than its runs\n"
		 "row says). Then, for each sweep plan in OUT (every sweep records its whole\n"
		 "matrix, each --shard the same) that misses runs, prints how many of its\n"
		 "runs OUT holds and lists the missing ones; complete plans are listed too\n"
		 "when there are at most three, and counted in one line beyond that.\n",
	.outro = "Exit status: 0 merged (missing runs are reported, not an error), 1 a run\n"
		 "conflicts or a database error, 2 bad usage or a file that is not a\n"
		 "gpusim database of this major version, or a damaged one.\n",
	.opts = merge_opts,
	.operand = "OUT IN...",
	.min_operands = 2,
	.operands_offset = offsetof(struct merge_args, files),
	.n_operands_offset = offsetof(struct merge_args, n_files),
};

struct missing_ctx {
	bool quiet;
	size_t listed, total;
};

static const char *base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
}

static int print_missing(void *arg, const char *plan_id, int64_t cell,
			 const struct gs_plan_cell *c)
{
	struct missing_ctx *m = arg;

	m->total++;
	if (!m->quiet && m->listed >= MERGE_LIST_MAX)
		return 0;
	m->listed++;
	printf("%smissing: plan %.12s cell %" PRId64 ": %s, %s, seed %" PRIu64 ", %s\n",
	       m->quiet ? "" : "  ", plan_id, cell, base(c->pods_path), c->policy, c->seed,
	       c->params_json);
	return 0;
}

/*
 * One line per plan that still misses runs; the complete ones are listed too
 * while there are few of them, and counted in one line beyond that (an advise
 * database holds dozens of plans, all complete).
 */
static void print_plans(const struct gs_plan_status *plans, size_t n, const char *db)
{
	enum { LIST_COMPLETE_UP_TO = 3 };
	size_t i, complete = 0;
	int64_t complete_runs = 0;

	for (i = 0; i < n; i++) {
		if (plans[i].present == plans[i].cells) {
			complete++;
			complete_runs += plans[i].cells;
		}
	}
	for (i = 0; i < n; i++) {
		if (plans[i].present == plans[i].cells && complete > LIST_COMPLETE_UP_TO)
			continue;
		printf("plan %.12s: %" PRId64 " runs, %" PRId64 " in %s, %" PRId64 " missing\n",
		       plans[i].plan_id, plans[i].cells, plans[i].present, db,
		       plans[i].cells - plans[i].present);
	}
	if (complete > LIST_COMPLETE_UP_TO)
		printf("%zu plans complete: %" PRId64 " runs, all in %s\n", complete, complete_runs,
		       db);
}

int gs_cmd_merge(int argc, char **argv)
{
	struct merge_args a;
	struct gs_db *out = NULL;
	struct gs_plan_status *plans = NULL;
	struct missing_ctx miss;
	size_t i, n_plans = 0;
	char err[1024] = "";
	int rc, status = GS_EXIT_OK;

	memset(&a, 0, sizeof(a));
	if (gs_opt_parse(&merge_cmd, argc, argv, &a, &status))
		return status;
	/* Every input is checked before any is copied: a damaged one stops the merge untouched. */
	for (i = 1; i < a.n_files; i++) {
		rc = gs_db_merge_check(a.files[i], err, sizeof(err));
		if (rc) {
			status = gs_cli_db_status("merge", rc, err);
			goto done;
		}
	}
	rc = gs_db_open(a.files[0], &out, err, sizeof(err));
	if (rc) {
		status = gs_cli_db_status("merge", rc, err);
		goto done;
	}
	for (i = 1; i < a.n_files; i++) {
		struct gs_merge_stats st;

		rc = gs_db_merge(out, a.files[i], &st, err, sizeof(err));
		if (rc) {
			status = gs_cli_db_status("merge", rc, err);
			goto done;
		}
		if (!a.quiet) {
			printf("%s: %" PRId64 " runs: %" PRId64 " copied, %" PRId64
			       " already in %s", a.files[i], st.runs, st.copied, st.identical,
			       a.files[0]);
			if (st.bounds || st.decisions)
				printf("; %" PRId64 " bounds and %" PRId64 " decisions copied",
				       st.bounds, st.decisions);
			putchar('\n');
		}
		if (st.decisions_left_out)
			fprintf(stderr, CMD ": %s: %" PRId64 " decisions left out: they rest on runs "
				"that are not complete in it\n", a.files[i], st.decisions_left_out);
	}
	memset(&miss, 0, sizeof(miss));
	miss.quiet = a.quiet;
	rc = gs_db_plan_status(out, NULL, NULL, &plans, &n_plans, err, sizeof(err));
	if (!rc && !a.quiet)
		print_plans(plans, n_plans, a.files[0]);
	if (!rc && n_plans)
		rc = gs_db_plan_status(out, print_missing, &miss, NULL, NULL, err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		status = GS_EXIT_FAIL;
		goto done;
	}
	if (!a.quiet && miss.total > miss.listed)
		printf("  ... and %zu more missing\n", miss.total - miss.listed);
done:
	gs_plan_status_free(plans);
	gs_db_close(out);
	gs_opt_release(&merge_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_merge_specs[] = { &merge_cmd, NULL };
