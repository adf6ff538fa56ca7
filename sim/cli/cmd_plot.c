/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_plot.c - `gpusim plot`: the FGD reproduction's figures and the CUDA
 * benchmark figures from a results database, through gnuplot (see plot.h
 * for the figures and file names). Either kind may be missing from a
 * database: the command draws what there is and says what it skipped.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/error.h"
#include "io/path.h"
#include "report/plot.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim plot [--db FILE] [--out DIR] [OPTIONS]\n"
		"\n"
		"Draws the figures of the FGD reproduction from the inflate-mode runs of a\n"
		"results database, and those of the CUDA benchmarks (make bench) from its\n"
		"bench tables, as PNG, SVG and PDF files:\n"
		"  unalloc_TRACE      unallocated GPU %% vs arrived workload 80-130%%, per policy\n"
		"                     (median over seeds, 25-75%% band)\n"
		"  frag_ratio_TRACE   fragmentation / idle GPU vs arrived workload 0-100%%\n"
		"  frag_amount_TRACE  fragmentation / GPU capacity vs arrived workload 0-100%%\n"
		"  bars_FAMILY        unallocated GPU %% at arrived 100%% for the traces of the\n"
		"                     cpu, gpushare, gpuspec and multigpu families (mean, sd)\n"
		"TRACE is the pod file name without 'openb_pod_list_' and '.csv'. And from the\n"
		"bench tables, which `gpusim bench-import` fills:\n"
		"  bench_overhead     throughput lost against exclusive (%%), per kernel and mode,\n"
		"                     each kernel alone on a GPU\n"
		"  bench_slowdown     throughput / throughput alone against the clients sharing\n"
		"                     a GPU, per kernel and mode, with the fair share 1/n\n"
		"  bench_shares       achieved against requested compute share (%%), per mode,\n"
		"                     with the ideal diagonal and the 5-point target band\n"
		"A figure with nothing to draw is skipped with a note saying why. With neither\n"
		"simulator runs nor bench results there is nothing to plot (exit status 2).\n"
		"\n"
		"  -d, --db FILE        results database (default results/fgd.db)\n"
		"  -o, --out DIR        output directory, created if missing (default results/plots)\n"
		"      --scripts DIR    the gnuplot scripts (default $GPUSIM_SCRIPTS, else those\n"
		"                       installed with gpusim, else %s)\n"
		"      --compat         only runs with compat scoring (the default)\n"
		"      --exact          only runs with exact scoring\n"
		"      --any-scoring    runs of either scoring together\n"
		"      --keep-data      keep the exported data files and print their directory\n"
		"  -q, --quiet          do not list the files written nor the figures skipped\n"
		"  -h, --help           this text\n"
		"\n"
		"Needs gnuplot on PATH (Debian: gnuplot-nox).\n"
		"Exit status: 0 success, 1 failure, 2 bad input or usage.\n",
		gs_plot_scripts_dir());
}

enum { OPT_SCRIPTS = 256, OPT_COMPAT, OPT_EXACT, OPT_ANY, OPT_KEEP };

/* Removes the exported data files and their directory. */
static void remove_tree(const char *dir, const struct gs_plot_index *ix)
{
	char path[4096];
	size_t t, p, f;

	for (f = 0; f < GS_PLOT_BENCH_N; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, gs_plot_bench_figures[f].csv);
		unlink(path);
	}
	for (t = 0; t < ix->n_traces; t++)
		for (p = 0; p < ix->n_policies; p++) {
			snprintf(path, sizeof(path), "%s/%s.%s.alloc.dat", dir, ix->traces[t],
				 ix->policies[p]);
			unlink(path);
			snprintf(path, sizeof(path), "%s/%s.%s.frag.dat", dir, ix->traces[t],
				 ix->policies[p]);
			unlink(path);
		}
	for (f = 0; f < ix->n_families; f++) {
		snprintf(path, sizeof(path), "%s/bars_%s.dat", dir, ix->families[f]);
		unlink(path);
	}
	rmdir(dir);
}

/* Says which bench figures there are none of, and why, on stderr. */
static void note_bench_skipped(const char *db_path, const struct gs_plot_bench *b)
{
	size_t f;

	if (b->n_runs == 0) {
		fprintf(stderr, "gpusim plot: skipped");
		for (f = 0; f < GS_PLOT_BENCH_N; f++)
			fprintf(stderr, "%s %s", f ? (f + 1 < GS_PLOT_BENCH_N ? "," : " and") : "",
				gs_plot_bench_figures[f].name);
		fprintf(stderr, ": %s holds no CUDA benchmark results (gpusim bench-import loads"
				" them)\n", db_path);
		return;
	}
	for (f = 0; f < GS_PLOT_BENCH_N; f++)
		if (!b->n_rows[f])
			fprintf(stderr, "gpusim plot: skipped %s: %s in %s\n",
				gs_plot_bench_figures[f].name, gs_plot_bench_figures[f].missing,
				db_path);
}

int gs_cmd_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "scripts", required_argument, NULL, OPT_SCRIPTS },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "any-scoring", no_argument, NULL, OPT_ANY },
		{ "keep-data", no_argument, NULL, OPT_KEEP },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = "results/fgd.db", *out_dir = "results/plots";
	const char *scripts = gs_plot_scripts_dir();
	char tmpl[] = "/tmp/gpusim-plot-XXXXXX", err[1024], sim_err[1024];
	struct gs_plot_index ix;
	struct gs_plot_bench bench;
	struct gs_db *db = NULL;
	int c, compat = 1, keep = 0, quiet = 0, rc, sim_rc, status;
	size_t f, bench_rows;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_path = optarg;
			break;
		case 'o':
			out_dir = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return GS_EXIT_OK;
		case OPT_SCRIPTS:
			scripts = optarg;
			break;
		case OPT_COMPAT:
			compat = 1;
			break;
		case OPT_EXACT:
			compat = 0;
			break;
		case OPT_ANY:
			compat = -1;
			break;
		case OPT_KEEP:
			keep = 1;
			break;
		default:
			fprintf(stderr, "Try 'gpusim plot --help'.\n");
			return GS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpusim plot: unexpected argument '%s'\n", argv[optind]);
		return GS_EXIT_USAGE;
	}
	if (gs_mkdir_p(out_dir, err, sizeof(err))) {
		fprintf(stderr, "gpusim plot: %s\n", err);
		return GS_EXIT_USAGE;
	}
	rc = gs_db_open_existing(db_path, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim plot: %s\n", err);
		return GS_EXIT_USAGE;
	}
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "gpusim plot: cannot create a temporary directory: %s\n",
			strerror(errno));
		gs_db_close(db);
		return GS_EXIT_FAIL;
	}
	/* No simulator runs is no error while there are bench results. */
	sim_rc = gs_plot_export(db, compat, tmpl, &ix, sim_err, sizeof(sim_err));
	if (sim_rc && sim_rc != GS_ENOENT) {
		fprintf(stderr, "gpusim plot: %s\n", sim_err);
		gs_db_close(db);
		rmdir(tmpl);
		return GS_EXIT_FAIL;
	}
	rc = gs_plot_bench_export(db, NULL, tmpl, &bench, err, sizeof(err));
	gs_db_close(db);
	if (rc) {
		fprintf(stderr, "gpusim plot: %s\n", err);
		status = GS_EXIT_FAIL;
		goto out;
	}
	for (f = 0, bench_rows = 0; f < GS_PLOT_BENCH_N; f++)
		bench_rows += bench.n_rows[f];
	if (sim_rc && !bench_rows) {
		fprintf(stderr, "gpusim plot: %s\n", sim_err);
		if (!quiet)
			note_bench_skipped(db_path, &bench);
		status = GS_EXIT_USAGE;
		goto out;
	}
	status = GS_EXIT_OK;
	if (sim_rc) {
		if (!quiet)
			fprintf(stderr, "gpusim plot: skipped the simulator figures: %s\n", sim_err);
	} else {
		rc = gs_plot_render(&ix, scripts, tmpl, out_dir, quiet ? NULL : stdout, err,
				    sizeof(err));
	}
	if (!rc)
		rc = gs_plot_bench_render(&bench, scripts, tmpl, out_dir, quiet ? NULL : stdout, err,
					  sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim plot: %s\n", err);
		status = GS_EXIT_FAIL;
	} else if (!quiet) {
		note_bench_skipped(db_path, &bench);
	}
out:
	if (keep)
		fprintf(stderr, "gpusim plot: data files kept in %s\n", tmpl);
	else
		remove_tree(tmpl, &ix);
	gs_plot_bench_release(&bench);
	gs_plot_index_release(&ix);
	return status;
}
