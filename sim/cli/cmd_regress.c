/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_regress.c - `gpusim regress`: compares the runs of a results
 * database with a committed baseline (report/baseline.h) and exits 1 when
 * a figure moved beyond tolerance (report/regress.h says how), or writes
 * such a baseline from a database (--write-baseline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "report/baseline.h"
#include "report/plot.h"
#include "report/regress.h"
#include "store/regress_data.h"

struct regress_args {
	const char *db_path, *base_dir, *out_dir, *write_dir, *scripts;
	int rule;
	double tolerance, alpha, min_effect, max_slowdown;
	bool partial, all, quiet;
};

static const struct gs_opt_choice rules[] = {
	{ "auto", GS_REGRESS_AUTO },
	{ "exact", GS_REGRESS_EXACT },
	{ "stat", GS_REGRESS_STAT },
	{ NULL, 0 },
};

#define S struct regress_args
static const struct gs_opt regress_opts[] = {
	{ GS_OPT_GROUP_HEADING("Inputs and outputs:") },
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "the new results database" },
	{ GS_OPT_STRING_AT(S, base_dir), .name = "baseline", .short_name = 'b', .arg = "DIR",
	  .conflicts = "write-baseline",
	  .help = "the baseline to compare with (this repository's is results/baseline/)" },
	{ GS_OPT_STRING_AT(S, out_dir), .name = "out", .short_name = 'o', .arg = "DIR",
	  .conflicts = "write-baseline",
	  .help = "write report.md, the overlay figures (PNG, SVG, PDF) and their data (data/) "
		  "there, created if missing" },
	{ GS_OPT_STRING_AT(S, write_dir), .name = "write-baseline", .short_name = 'w', .arg = "DIR",
	  .help = "instead of comparing, write the database's runs as a baseline into DIR "
		  "(families.csv, runs.csv, curves.csv, speed.csv)" },
	GS_CLI_OPT_SCRIPTS(S, scripts),
	{ GS_OPT_GROUP_HEADING("Rules:") },
	{ GS_OPT_ENUM_AT(S, rule, rules), .name = "rule", .arg = "RULE", .def = "auto",
	  .help = "'auto': exact where both sides ran the same seeds, statistical where not; "
		  "'exact'; 'stat'" },
	{ GS_OPT_DOUBLE_AT(S, tolerance, 0, 1), .name = "tolerance", .arg = "REL", .def = "1e-9",
	  .help = "exact rule: the largest relative difference that is no move" },
	{ GS_OPT_DOUBLE_AT(S, alpha, 0, 1), .name = "alpha", .arg = "A", .def = "0.01",
	  .flags = GS_OPT_GT_MIN,
	  .help = "statistical rule: the family-wise error rate of the Holm-Bonferroni correction" },
	{ GS_OPT_DOUBLE_AT(S, min_effect, 0, 1), .name = "min-effect", .arg = "REL", .def = "0.01",
	  .help = "statistical rule: the smallest move of a mean, relative to the larger mean, "
		  "that fails" },
	{ GS_OPT_DOUBLE_AT(S, max_slowdown, 0, 1e6), .name = "max-slowdown", .arg = "X", .def = "2",
	  .help = "fail when more than X times slower (events per second or sweep wall time); "
		  "0: speed only warns" },
	{ GS_OPT_FLAG_AT(S, partial), .name = "partial", .conflicts = "write-baseline",
	  .help = "a baseline family with no new run is a warning, not a failure (a CI that "
		  "lacks a trace)" },
	{ GS_OPT_GROUP_HEADING("Output:") },
	{ GS_OPT_FLAG_AT(S, all), .name = "all", .short_name = 'a',
	  .help = "list every compared figure, not only those that moved, and the speed of "
		  "families too brief to judge" },
	GS_CLI_OPT_QUIET(S, "print only the verdict line (and errors)"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec regress_cmd = {
	.name = "regress",
	.intro =
		"Two forms:\n"
		"  gpusim regress --db NEW.db --baseline DIR [--out DIR] [OPTIONS]   compare\n"
		"  gpusim regress --db DB --write-baseline DIR                       write one\n"
		"\n"
		"Compares the runs of a results database with a baseline: runs match by their\n"
		"inputs (file names and SHA-256), mode, parameters, policy and seed, and every\n"
		"numeric column of runs and run_summary is compared (wall times aside, which\n"
		"the speed table takes). Prints what moved and by how much; with --out, also a\n"
		"Markdown report and overlay figures, baseline against now.\n"
		"\n"
		"Rules: where both sides ran the same seeds, each seed's value must match the\n"
		"baseline's to a relative --tolerance (the simulator is deterministic: any\n"
		"change fails, in either direction); where the seeds differ, Welch's t-test on\n"
		"the seed values, Holm-Bonferroni corrected to a family-wise --alpha, fails a\n"
		"move of at least --min-effect of the mean. Inputs with the same names but other\n"
		"checksums, baseline families or policies with no new run, and metrics the new\n"
		"runs lack fail; new families, runs and metrics are reported. Speed (events per\n"
		"second, sweep wall time) warns when slower and fails beyond --max-slowdown.\n",
	.outro = "Exit status: 0 nothing moved beyond tolerance, 1 a regression, 2 bad input or\n"
		 "usage (or a failure to write the baseline or the report).\n",
	.opts = regress_opts,
};

/* Writes the runs of db_path as a baseline into dir. */
static int write_baseline(const char *db_path, const char *dir, bool quiet)
{
	struct gs_rset set;
	struct gs_db *db = NULL;
	char err[1024];
	int rc;

	rc = gs_db_open_existing(db_path, &db, err, sizeof(err));
	if (!rc) {
		gs_rset_init(&set);
		rc = gs_rset_from_db(db, &set, err, sizeof(err));
		gs_db_close(db);
	}
	if (rc) {
		fprintf(stderr, "gpusim regress: %s\n", err);
		return GS_EXIT_USAGE;
	}
	rc = gs_baseline_write(&set, dir, err, sizeof(err));
	if (rc)
		fprintf(stderr, "gpusim regress: %s\n", err);
	else if (!quiet)
		printf("wrote the baseline of %zu runs in %zu families (%zu values, %zu curve"
		       " points) to %s\n", set.n_runs, set.n_families, set.n_values, set.n_points,
		       dir);
	if (!rc && set.duplicates)
		fprintf(stderr, "gpusim regress: %s holds %zu runs twice; the newest of each went"
				" into the baseline\n", db_path, set.duplicates);
	gs_rset_release(&set);
	return rc ? GS_EXIT_USAGE : GS_EXIT_OK;
}

int gs_cmd_regress(int argc, char **argv)
{
	const char *db_path, *base_dir, *out_dir;
	struct gs_regress_opts opts;
	struct gs_rset base, now;
	struct gs_regress result;
	struct gs_db *db = NULL;
	struct regress_args a;
	char err[1024], note[512];
	int rc, status;

	memset(&a, 0, sizeof(a));
	a.scripts = gs_plot_scripts_dir();
	if (gs_opt_parse(&regress_cmd, argc, argv, &a, &status))
		return status;
	if (!a.base_dir && !a.write_dir) {
		fprintf(stderr, "gpusim regress: one of --baseline and --write-baseline is required;"
				" try 'gpusim regress --help'\n");
		return GS_EXIT_USAGE;
	}
	if (a.max_slowdown > 0 && a.max_slowdown < 1) {
		fprintf(stderr, "gpusim regress: --max-slowdown: '%g' is below 1 (a factor slower;"
				" 0 turns the failure off)\n", a.max_slowdown);
		return GS_EXIT_USAGE;
	}
	if (a.write_dir)
		return write_baseline(a.db_path, a.write_dir, a.quiet);
	gs_regress_opts_init(&opts);
	opts.rule = (enum gs_regress_rule)a.rule;
	opts.tolerance = a.tolerance;
	opts.alpha = a.alpha;
	opts.min_effect = a.min_effect;
	opts.max_slowdown = a.max_slowdown;
	opts.partial = a.partial;
	db_path = a.db_path;
	base_dir = a.base_dir;
	out_dir = a.out_dir;

	gs_rset_init(&base);
	gs_rset_init(&now);
	rc = gs_baseline_read(base_dir, &base, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim regress: %s\n", err);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	rc = gs_db_open_existing(db_path, &db, err, sizeof(err));
	if (!rc) {
		rc = gs_rset_from_db(db, &now, err, sizeof(err));
		gs_db_close(db);
	}
	if (rc) {
		fprintf(stderr, "gpusim regress: %s\n", err);
		gs_rset_release(&base);
		return rc == GS_ENOMEM || rc == GS_EDB ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	rc = gs_regress_compare(&base, &now, &opts, &result, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim regress: %s\n", err);
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (a.quiet)
		printf("%s: %zu failure%s, %zu warning%s\n", result.n_fail ? "FAIL" : "pass",
		       result.n_fail, result.n_fail == 1 ? "" : "s", result.n_warn,
		       result.n_warn == 1 ? "" : "s");
	else
		gs_regress_print(&result, stdout, a.all);
	status = result.n_fail ? GS_EXIT_FAIL : GS_EXIT_OK;
	if (out_dir) {
		rc = gs_regress_report(&result, base_dir, db_path, out_dir, a.scripts,
				       NULL, note, sizeof(note), err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim regress: %s\n", err);
			/* A regression found still says so. */
			if (status == GS_EXIT_OK)
				status = GS_EXIT_USAGE;
		} else {
			if (note[0])
				fprintf(stderr, "gpusim regress: figures left out: %s\n", note);
			if (!a.quiet)
				printf("report: %s/report.md\n", out_dir);
		}
	}
	gs_regress_release(&result);
out:
	gs_rset_release(&base);
	gs_rset_release(&now);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_regress_specs[] = { &regress_cmd, NULL };
