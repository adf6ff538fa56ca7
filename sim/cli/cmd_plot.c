/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_plot.c - `gpusim plot`: the FGD reproduction's figures and the CUDA
 * benchmark figures from a results database, through gnuplot (see plot.h
 * for the figures and file names). Either kind may be missing from a
 * database: the command draws what there is and says what it skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "io/path.h"
#include "report/plot.h"

struct plot_args {
	const char *db_path, *out_dir, *scripts;
	int compat;   /* 1 compat, 0 exact, -1 either */
	bool keep, quiet;
};

#define S struct plot_args
static const struct gs_opt plot_opts[] = {
	GS_CLI_OPT_DB(S, db_path, "results/fgd.db"),
	{ GS_OPT_STRING_AT(S, out_dir), .name = "out", .short_name = 'o', .arg = "DIR",
	  .def = "results/plots", .help = "output directory, created if missing" },
	GS_CLI_OPT_SCRIPTS(S, scripts),
	{ GS_OPT_SET_AT(S, compat, 1), .name = "compat", .conflicts = "exact any-scoring",
	  .help = "only runs with compat scoring (the default)" },
	{ GS_OPT_SET_AT(S, compat, 0), .name = "exact", .conflicts = "any-scoring",
	  .help = "only runs with exact scoring" },
	{ GS_OPT_SET_AT(S, compat, -1), .name = "any-scoring",
	  .help = "runs of either scoring together" },
	{ GS_OPT_FLAG_AT(S, keep), .name = "keep-data",
	  .help = "keep the exported data files and print their directory" },
	GS_CLI_OPT_QUIET(S, "do not list the files written nor the figures skipped"),
	{ 0 },
};
#undef S

static const struct gs_cmd_spec plot_cmd = {
	.name = "plot",
	.intro =
		"Draws the figures of the FGD reproduction from the inflate-mode runs of a\n"
		"results database, and those of the CUDA benchmarks (make bench) from its\n"
		"bench tables, as PNG, SVG and PDF files:\n"
		"  unalloc_TRACE      unallocated GPU % vs arrived workload 80-130%, per policy\n"
		"                     (median over seeds, 25-75% band)\n"
		"  frag_ratio_TRACE   fragmentation / idle GPU vs arrived workload 0-100%\n"
		"  frag_amount_TRACE  fragmentation / GPU capacity vs arrived workload 0-100%\n"
		"  bars_FAMILY        unallocated GPU % at arrived 100% for the traces of the\n"
		"                     cpu, gpushare, gpuspec and multigpu families (mean, sd)\n"
		"TRACE is the pod file name without 'openb_pod_list_' and '.csv'. And from the\n"
		"bench tables, which `gpusim bench-import` fills:\n"
		"  bench_overhead     throughput lost against exclusive (%), per kernel and mode,\n"
		"                     each kernel alone on a GPU\n"
		"  bench_slowdown     throughput / throughput alone against the clients sharing\n"
		"                     a GPU, per kernel and mode, with the fair share 1/n\n"
		"  bench_shares       achieved against requested compute share (%), per mode,\n"
		"                     with the ideal diagonal and the 5-point target band\n"
		"And from the time-mode runs (figures from the events, schema 1.1), per trace:\n"
		"  time_series_TRACE  allocated GPU % and pending pods against time, per policy\n"
		"                     (the lowest seed; the setting with the highest --load)\n"
		"  time_cdf_TRACE     CDF of the wait and of the completion time, per policy\n"
		"                     (all seeds of that setting; needs pod rows)\n"
		"  time_load_TRACE    mean and p99 wait against --load, per policy, mean over\n"
		"                     seeds with min-max bars (needs two loads or more)\n"
		"And from the time-mode runs of a trace under two sharing mechanisms or more\n"
		"at one load (gpusim sweep --sharing LIST; the highest such --load):\n"
		"  sharing_util_TRACE   useful GPU % (work at full speed) inside allocated\n"
		"                       GPU %, per mechanism and policy, mean over seeds\n"
		"  sharing_cdf_TRACE    CDF of the completion time, one line per mechanism,\n"
		"                       one panel per policy (all seeds; needs pod rows)\n"
		"  sharing_coloc_TRACE  mean running time / duration against the pods on the\n"
		"                       GPU, one line per mechanism (needs pod rows)\n"
		"A figure with nothing to draw is skipped with a note saying why. With neither\n"
		"simulator runs nor bench results there is nothing to plot (exit status 2).\n",
	.outro = "Needs gnuplot on PATH (Debian: gnuplot-nox).\n"
		 "Exit status: 0 success, 1 failure, 2 bad input or usage.\n",
	.opts = plot_opts,
};

/* Removes the exported data files and their directory (a directory of our own). */
static void remove_tree(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Says which inflate-mode figures had no point to draw, on stderr. */
static void note_inflate_skipped(const char *db_path, const struct gs_plot_index *ix)
{
	size_t t;

	for (t = 0; t < ix->n_traces; t++) {
		if (ix->alloc_points && !ix->alloc_points[t])
			fprintf(stderr, "gpusim plot: skipped unalloc_%s: no run of it in %s reaches "
				"%d%% arrived workload (--inflate below %.1f)\n", ix->traces[t],
				db_path, GS_PLOT_ALLOC_MIN_PCT, GS_PLOT_ALLOC_MIN_PCT / 100.0);
		if (ix->frag_points && !ix->frag_points[t])
			fprintf(stderr, "gpusim plot: skipped frag_ratio_%s and frag_amount_%s: its "
				"runs in %s have no fragmentation samples\n", ix->traces[t],
				ix->traces[t], db_path);
	}
}

/* Says which time-mode figures were skipped, and why, on stderr. */
static void note_time_skipped(const char *db_path, const struct gs_plot_time *tm, int time_rc,
			      const char *time_err)
{
	size_t t, p;

	if (time_rc) {
		fprintf(stderr, "gpusim plot: skipped the time-mode figures: %s\n", time_err);
		return;
	}
	for (t = 0; t < tm->n_traces; t++) {
		bool cdf = false, load = false;

		for (p = 0; p < tm->n_policies; p++) {
			cdf |= tm->cdf[t * tm->n_policies + p];
			load |= tm->load[t * tm->n_policies + p];
		}
		if (!cdf)
			fprintf(stderr, "gpusim plot: skipped time_cdf_%s: its runs in %s were stored "
					"without pod rows (--no-pods)\n", tm->traces[t], db_path);
		if (!load)
			fprintf(stderr, "gpusim plot: skipped time_load_%s: its runs in %s are at "
					"fewer than two loads (sweep --load LIST)\n", tm->traces[t],
				db_path);
	}
}

/* Says which bench figures there are none of, and why, on stderr. */
/* Says which sharing figures were skipped, and why, on stderr. */
static void note_sharing_skipped(const char *db_path, const struct gs_plot_sharing *sh, int sh_rc,
				 const char *sh_err)
{
	size_t t, i, n;

	if (sh_rc) {
		fprintf(stderr, "gpusim plot: skipped the sharing figures: %s\n", sh_err);
		return;
	}
	for (t = 0; t < sh->n_traces; t++) {
		n = sh->n_sharings * sh->n_policies;
		for (i = 0; i < n && !sh->cdf[t * n + i]; i++)
			;
		if (i == n)
			fprintf(stderr, "gpusim plot: skipped sharing_cdf_%s and sharing_coloc_%s: its "
					"runs in %s were stored without pod rows (--no-pods)\n",
				sh->traces[t], sh->traces[t], db_path);
	}
}

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
	const char *db_path, *out_dir, *scripts;
	char tmpl[] = "/tmp/gpusim-plot-XXXXXX", err[1024], sim_err[1024];
	struct gs_plot_index ix;
	struct gs_plot_time tm;
	struct gs_plot_sharing sh;
	struct gs_plot_bench bench;
	struct gs_db *db = NULL;
	struct plot_args a;
	char time_err[1024], sh_err[1024];
	int compat, keep, quiet, rc, sim_rc, time_rc, sh_rc, status;
	size_t f, bench_rows;

	memset(&a, 0, sizeof(a));
	a.compat = 1;
	a.scripts = gs_plot_scripts_dir();
	if (gs_opt_parse(&plot_cmd, argc, argv, &a, &status))
		return status;
	db_path = a.db_path;
	out_dir = a.out_dir;
	scripts = a.scripts;
	compat = a.compat;
	keep = a.keep;
	quiet = a.quiet;
	if (gs_mkdir_p(out_dir, err, sizeof(err))) {
		fprintf(stderr, "gpusim plot: %s\n", err);
		return GS_EXIT_USAGE;
	}
	rc = gs_db_open_existing(db_path, &db, err, sizeof(err));
	if (rc)
		return gs_cli_db_status("plot", rc, err);
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
	memset(&tm, 0, sizeof(tm));
	time_rc = gs_plot_time_export(db, tmpl, &tm, time_err, sizeof(time_err));
	if (time_rc && time_rc != GS_ENOENT) {
		fprintf(stderr, "gpusim plot: %s\n", time_err);
		gs_db_close(db);
		gs_plot_index_release(&ix);
		remove_tree(tmpl);
		return GS_EXIT_FAIL;
	}
	sh_rc = gs_plot_sharing_export(db, tmpl, &sh, sh_err, sizeof(sh_err));
	if (sh_rc && sh_rc != GS_ENOENT) {
		fprintf(stderr, "gpusim plot: %s\n", sh_err);
		gs_db_close(db);
		gs_plot_index_release(&ix);
		gs_plot_time_release(&tm);
		remove_tree(tmpl);
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
	if (sim_rc && time_rc && !bench_rows) {
		fprintf(stderr, "gpusim plot: %s\n", sim_err);
		fprintf(stderr, "gpusim plot: %s\n", time_err);
		if (!quiet)
			note_bench_skipped(db_path, &bench);
		status = GS_EXIT_USAGE;
		goto out;
	}
	status = GS_EXIT_OK;
	if (!quiet)
		fprintf(stderr, "gpusim plot: gnuplot scripts from %s\n", scripts);
	if (sim_rc) {
		if (!quiet)
			fprintf(stderr, "gpusim plot: skipped the inflate-mode figures: %s\n",
				sim_err);
	} else {
		rc = gs_plot_render(&ix, scripts, tmpl, out_dir, quiet ? NULL : stdout, err,
				    sizeof(err));
		if (!rc && !quiet)
			note_inflate_skipped(db_path, &ix);
	}
	if (!rc && !time_rc)
		rc = gs_plot_time_render(&tm, scripts, tmpl, out_dir, quiet ? NULL : stdout, err,
					 sizeof(err));
	if (!rc && !quiet)
		note_time_skipped(db_path, &tm, time_rc, time_err);
	if (!rc && !sh_rc)
		rc = gs_plot_sharing_render(&sh, scripts, tmpl, out_dir, quiet ? NULL : stdout, err,
					    sizeof(err));
	if (!rc && !quiet && !time_rc)
		note_sharing_skipped(db_path, &sh, sh_rc, sh_err);
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
		remove_tree(tmpl);
	gs_plot_time_release(&tm);
	gs_plot_sharing_release(&sh);
	gs_plot_bench_release(&bench);
	gs_plot_index_release(&ix);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_plot_specs[] = { &plot_cmd, NULL };
