/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_bench_import.c - `gpusim bench-import`: loads the results file of
 * gpusim-bench (bench/cuda) into the bench tables of a results database
 * (store/bench_import.h), and optionally exports the CSV files of the
 * bench figures (store/plot_data.h) for scripts/plot-bench.gp.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/error.h"
#include "store/bench_import.h"
#include "store/plot_data.h"
#include "store/results.h"

#define CMD "gpusim bench-import"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim bench-import --db DB [--csv-dir DIR] FILE\n"
		"\n"
		"Loads FILE, the results of gpusim-bench (make bench), into the tables\n"
		"bench_runs, bench_results and bench_slowdown of DB (results/SCHEMA.md), in\n"
		"one transaction. A file already in DB (same SHA-256) is not loaded again.\n"
		"\n"
		"  -d, --db DB          results database; created when missing (required)\n"
		"  -c, --csv-dir DIR    also write FILE's overhead.csv (overhead scenarios),\n"
		"                       slowdown.csv (the slowdown table) and shares.csv\n"
		"                       (compute scenarios) into DIR, for scripts/plot-bench.gp;\n"
		"                       `gpusim plot --db DB` draws the same figures\n"
		"  -h, --help           this text\n"
		"\n"
		"Exit status: 0 success, 1 a database or file system error, 2 bad usage or\n"
		"a malformed results file (the message names the file, line and key).\n");
}

int gs_cmd_bench_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "csv-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL, *csv_dir = NULL, *path;
	struct gs_bench_import_stats st;
	struct gs_db *db = NULL;
	char err[1024] = "";
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'c': csv_dir = optarg; break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		default: usage(stderr); return GS_EXIT_USAGE;
		}
	}
	if (!db_path || optind != argc - 1) {
		fprintf(stderr, CMD ": %s\n", !db_path ? "--db is required" : "give exactly one FILE");
		usage(stderr);
		return GS_EXIT_USAGE;
	}
	path = argv[optind];
	/* A missing or unreadable file is bad usage, found before the database is touched. */
	if (access(path, R_OK)) {
		fprintf(stderr, CMD ": %s: %s\n", path, strerror(errno));
		return errno == ENOENT ? GS_EXIT_USAGE : GS_EXIT_FAIL;
	}
	rc = gs_db_open(db_path, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, CMD ": %s\n", err);
		return rc == GS_ENOENT ? GS_EXIT_USAGE : GS_EXIT_FAIL;
	}
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
