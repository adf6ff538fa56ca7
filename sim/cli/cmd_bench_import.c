/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_bench_import.c - `gpusim bench-import`: loads the results file of
 * gpusim-bench (bench/cuda) into the bench tables of a results database
 * (store/bench_import.h), and optionally exports the CSV files of the
 * bench figures (store/plot_data.h) for scripts/plot-bench.gp.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "store/bench_import.h"
#include "store/plot_data.h"
#include "store/results.h"

#define CMD "gpusim bench-import"

struct bench_import_args {
	const char *db_path, *csv_dir, *file;
};

#define S struct bench_import_args
static const struct gs_opt bench_import_opts[] = {
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "results database; created when missing" },
	{ GS_OPT_STRING_AT(S, csv_dir), .name = "csv-dir", .short_name = 'c', .arg = "DIR",
	  .help = "also write FILE's overhead.csv (overhead scenarios), slowdown.csv (the "
		  "slowdown table) and shares.csv (compute scenarios) into DIR, for "
		  "scripts/plot-bench.gp; `gpusim plot --db DB` draws the same figures" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec bench_import_cmd = {
	.name = "bench-import",
	.intro = "Loads FILE, the results of gpusim-bench (make bench), into the tables\n"
		 "bench_runs, bench_results and bench_slowdown of DB (results/SCHEMA.md), in\n"
		 "one transaction. A file already in DB (same SHA-256) is not loaded again.\n",
	.outro = "Exit status: 0 success, 1 a database or file system error, 2 bad usage or\n"
		 "a malformed results file (the message names the file, line and key).\n",
	.opts = bench_import_opts,
	.operand = "FILE",
	.operand_offset = offsetof(struct bench_import_args, file),
};

int gs_cmd_bench_import(int argc, char **argv)
{
	struct bench_import_args a = { NULL, NULL, NULL };
	const char *db_path, *csv_dir, *path;
	struct gs_bench_import_stats st;
	struct gs_db *db = NULL;
	char err[1024] = "";
	int rc, status;

	if (gs_opt_parse(&bench_import_cmd, argc, argv, &a, &status))
		return status;
	db_path = a.db_path;
	csv_dir = a.csv_dir;
	path = a.file;
	/* A missing or unreadable file is bad usage, found before the database is touched. */
	if (access(path, R_OK)) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(errno));
		return errno == ENOENT ? GS_EXIT_USAGE : GS_EXIT_FAIL;
	}
	rc = gs_db_open(db_path, &db, err, sizeof(err));
	if (rc)
		return gs_cli_db_status("bench-import", rc, err);
	rc = gs_bench_import(db, path, &st, err, sizeof(err));
	if (!rc && st.existing_runs)
		printf(CMD ": %s is already in %s (%d runs); nothing imported\n", path, db_path,
		       st.existing_runs);
	else if (!rc)
		printf(CMD ": %s: %zu runs, %zu client results, %zu slowdown rows into %s\n", path,
		       st.n_runs, st.n_results, st.n_slowdown, db_path);
	if (!rc && csv_dir) {
		struct gs_plot_bench csv;

		memset(&csv, 0, sizeof(csv));
		if (mkdir(csv_dir, 0755) && errno != EEXIST) {
			snprintf(err, sizeof(err), "%s: cannot create: %s", csv_dir, strerror(errno));
			rc = GS_EIO;
		} else {
			rc = gs_plot_bench_export(db, st.sha256, csv_dir, &csv, err, sizeof(err));
		}
		if (!rc)
			printf(CMD ": wrote overhead.csv, slowdown.csv and shares.csv in %s\n", csv_dir);
		gs_plot_bench_release(&csv);
	}
	if (rc)
		fprintf(stderr, CMD ": %s\n", err);
	gs_db_close(db);
	if (!rc)
		return GS_EXIT_OK;
	return rc == GS_EPARSE ? GS_EXIT_USAGE : GS_EXIT_FAIL;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_bench_import_specs[] = { &bench_import_cmd, NULL };
