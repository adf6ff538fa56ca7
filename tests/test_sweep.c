/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sweep.c - `gpusim sweep` and `gpusim plot` end to end.
 *
 * Default run (a few seconds): a small synthetic cluster and trace written
 * to a temporary directory, two policies x two seeds through the library
 * (cells, statistics, resuming, a new seed added later, runs stored without
 * pod rows), the same through the command line (table, exit statuses),
 * and the plot export and rendering. The FGD
 * reproduction on openb is test_repro.c (`make repro`).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/error.h"
#include "report/plot.h"
#include "report/sweep_table.h"
#include "store/results.h"
#include "run/sweep.h"
#include "testutil.h"
#include "tmpdir.h"

static char nodes_path[256], pods_path[256], db_path[256], timed_path[256];

static int gpusim(const char *args, char *out, size_t out_len);

/*
 * gnuplot's own warnings ("empty y range", "Cannot find or open file")
 * reach the user's terminal through `gpusim plot`: a figure script must
 * not make any on data it is given.
 */
static void no_gnuplot_warning(const char *out)
{
	if (strstr(out, "arning"))
		fail_msg("gpusim plot let gnuplot warn:\n%s", out);
}

/*
 * 45 nodes of 2, 4 and 8 GPUs (210 GPUs, so one percent of the capacity,
 * 2100 milli, is more than any pod asks and every arrived-workload bucket
 * gets samples) and 120 pods cycling through sharing, whole-GPU, 2-GPU and
 * CPU-only shapes (86.25 GPUs), which inflate mode at 1.3 clones to 273.
 */
static int write_inputs(void **st)
{
	static const int shapes[][3] = {
		/* cpu milli, num_gpu, gpu_milli */
		{ 4000, 1, 500 }, { 8000, 1, 1000 }, { 2000, 1, 250 }, { 16000, 2, 1000 },
		{ 6000, 0, 0 }, { 4000, 1, 700 }, { 3000, 1, 300 }, { 12000, 1, 1000 },
	};
	FILE *f;
	int i;

	(void)st;
	if (gs_test_tmpdir_make("test-sweep"))
		return -1;
	gs_test_path("nodes.csv", nodes_path, sizeof(nodes_path));
	gs_test_path("pods.csv", pods_path, sizeof(pods_path));
	gs_test_path("sweep.db", db_path, sizeof(db_path));
	f = fopen(nodes_path, "w");
	if (!f)
		return -1;
	fprintf(f, "sn,cpu_milli,memory_mib,gpu,model\n");
	for (i = 0; i < 45; i++)
		fprintf(f, "node-%02d,%d,%d,%d,%s\n", i, i % 3 == 2 ? 96000 : 32000, 262144,
			i % 3 == 0 ? 2 : i % 3 == 1 ? 4 : 8, i % 2 ? "T4" : "V100M32");
	fclose(f);
	f = fopen(pods_path, "w");
	if (!f)
		return -1;
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
	for (i = 0; i < 120; i++) {
		const int *s = shapes[(i * 5 + i / 8) % 8];

		fprintf(f, "pod-%03d,%d,%d,%d,%d\n", i, s[0], 8192, s[1], s[2]);
	}
	fclose(f);
	/* The same shapes with times for time mode: one arrival every 10 s, 100 to 1900 s. */
	gs_test_path("timed.csv", timed_path, sizeof(timed_path));
	f = fopen(timed_path, "w");
	if (!f)
		return -1;
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		   "creation_time,deletion_time\n");
	for (i = 0; i < 300; i++) {
		const int *s = shapes[(i * 5 + i / 8) % 8];

		fprintf(f, "t-%03d,%d,%d,%d,%d,0,,%d,%d\n", i, s[0], 8192, s[1], s[2], i * 10,
			i * 10 + 100 + (i * 37) % 1800);
	}
	fclose(f);
	return 0;
}

static struct gs_sweep_spec small_spec(const char *const *pods, const struct gs_policy **pols,
				       const uint64_t *seeds, size_t n_seeds)
{
	struct gs_sweep_spec spec;

	memset(&spec, 0, sizeof(spec));
	gs_replay_opts_init(&spec.opts);
	spec.opts.mode = GS_MODE_INFLATE;
	spec.opts.policy_flags = GS_POLICY_COMPAT;
	spec.nodes_path = nodes_path;
	spec.pods_paths = pods;
	spec.n_traces = 1;
	pols[0] = gs_policy_find("bestfit");
	pols[1] = gs_policy_find("fgd");
	spec.policies = pols;
	spec.n_policies = 2;
	spec.seeds = seeds;
	spec.n_seeds = n_seeds;
	spec.jobs = 2;
	spec.db_path = db_path;
	return spec;
}

static void test_sweep_and_resume(void **st)
{
	const char *pods[] = { pods_path };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1, 2 }, seeds3[] = { 1, 2, 3 };
	struct gs_sweep_spec spec = small_spec(pods, pols, seeds, 2);
	struct gs_sweep a, b, c;
	char err[1024] = "";
	size_t p, s, n;
	double mean, sd, v[2];

	(void)st;
	assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n_ran, 4);
	assert_int_equal(a.n_skipped, 0);
	assert_string_equal(a.trace_names[0], "pods");
	for (p = 0; p < 2; p++) {
		for (s = 0; s < 2; s++) {
			const struct gs_outcome *cell = gs_sweep_cell_at(&a, 0, p, 0, s);

			assert_true(cell->run_id > 0);
			assert_false(cell->skipped);
			assert_true(cell->fig[GS_FIG_UNALLOC] >= 0 && cell->fig[GS_FIG_UNALLOC] <= 100);
			v[s] = cell->fig[GS_FIG_UNALLOC];
		}
		/* The statistics are the plain mean and sample sd of the cells. */
		gs_sweep_stats(&a, 0, p, 0, GS_FIG_UNALLOC, &mean, &sd, &n);
		assert_int_equal(n, 2);
		assert_true(fabs(mean - (v[0] + v[1]) / 2) < 1e-9);
		assert_true(fabs(sd - fabs(v[0] - v[1]) / sqrt(2.0)) < 1e-9);
	}

	/* Again: everything is in the database, nothing runs, the values agree. */
	assert_int_equal(gs_sweep_run(&spec, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_ran, 0);
	assert_int_equal(b.n_skipped, 4);
	for (p = 0; p < 2; p++)
		for (s = 0; s < 2; s++) {
			const struct gs_outcome *x = gs_sweep_cell_at(&a, 0, p, 0, s);
			const struct gs_outcome *y = gs_sweep_cell_at(&b, 0, p, 0, s);

			assert_true(y->skipped);
			assert_int_equal(x->run_id, y->run_id);
			assert_true(fabs(x->fig[GS_FIG_UNALLOC] - y->fig[GS_FIG_UNALLOC]) < 1e-9);
		}

	/* A third seed: only its two runs are new. */
	spec.seeds = seeds3;
	spec.n_seeds = 3;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 2);
	assert_int_equal(c.n_skipped, 4);
	assert_false(gs_sweep_cell_at(&c, 0, 1, 0, 2)->skipped);
	assert_true(gs_sweep_cell_at(&c, 0, 1, 0, 0)->skipped);

	/* Exact scoring is another key: all six run again. */
	gs_sweep_release(&c);
	spec.opts.policy_flags = 0;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 6);
	gs_sweep_release(&a);
	gs_sweep_release(&b);
	gs_sweep_release(&c);
}

static off_t file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_size;
}

/*
 * --no-pods: the same numbers as with pod rows, and no pod row stored.
 * Resuming skips those runs, and since keeping pod rows changes no result
 * it is not part of the key: a sweep that would keep them skips them too.
 */
static void test_sweep_no_pods(void **st)
{
	const char *pods[] = { pods_path };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1, 2 };
	struct gs_sweep_spec spec = small_spec(pods, pols, seeds, 2);
	struct gs_sweep a, b, c;
	char err[1024] = "", with[300], without[300];
	struct gs_db *db_with, *db_without;
	size_t i;

	(void)st;
	gs_test_path("with-pods.db", with, sizeof(with));
	gs_test_path("no-pods.db", without, sizeof(without));
	spec.db_path = with;
	assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
	spec.db_path = without;
	spec.no_pods = true;
	assert_int_equal(gs_sweep_run(&spec, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_ran, 4);
	/* All connections are closed, so the WAL is folded into the files. */
	assert_true(file_size(without) < file_size(with));

	assert_int_equal(gs_db_open_existing(with, &db_with, err, sizeof(err)), 0);
	assert_int_equal(gs_db_open_existing(without, &db_without, err, sizeof(err)), 0);
	for (i = 0; i < 4; i++) {
		struct gs_run_row rw, rn;
		struct gs_db_pod *p;
		size_t n;

		assert_true(fabs(a.cells[i].fig[GS_FIG_UNALLOC] - b.cells[i].fig[GS_FIG_UNALLOC]) < 1e-12);
		assert_int_equal(gs_db_get_run(db_with, a.cells[i].run_id, &rw, err, sizeof(err)),
				 0);
		assert_int_equal(gs_db_get_run(db_without, b.cells[i].run_id, &rn, err,
					       sizeof(err)),
				 0);
		assert_true(rw.pods_stored);
		assert_false(rn.pods_stored);
		assert_int_equal(rn.n_pods, rw.n_pods);
		assert_int_equal(rn.n_placed, rw.n_placed);
		assert_int_equal(rn.n_failed, rw.n_failed);
		assert_true(fabs(rn.mean_wait_s - rw.mean_wait_s) < 1e-12);
		assert_true(fabs(rn.frag_ratio_pct - rw.frag_ratio_pct) < 1e-9);
		assert_int_equal(gs_db_load_pods(db_without, rn.run_id, &p, &n, err, sizeof(err)),
				 0);
		assert_int_equal(n, 0);
		gs_db_pods_free(p, n);
		assert_int_equal(gs_db_load_pods(db_with, rw.run_id, &p, &n, err, sizeof(err)), 0);
		assert_int_equal(n, (size_t)rw.n_pods);
		gs_db_pods_free(p, n);
		gs_run_row_release(&rw);
		gs_run_row_release(&rn);
	}
	gs_db_close(db_with);
	gs_db_close(db_without);

	/* Resumed, with or without --no-pods: nothing runs again. */
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 0);
	assert_int_equal(c.n_skipped, 4);
	gs_sweep_release(&c);
	spec.no_pods = false;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 0);
	assert_int_equal(c.n_skipped, 4);
	for (i = 0; i < 4; i++)
		assert_true(fabs(c.cells[i].fig[GS_FIG_UNALLOC] - a.cells[i].fig[GS_FIG_UNALLOC]) < 1e-12);
	gs_sweep_release(&a);
	gs_sweep_release(&b);
	gs_sweep_release(&c);
}

/* The same inputs in a fresh database give the same numbers (determinism). */
static void test_sweep_deterministic(void **st)
{
	const char *pods[] = { pods_path };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1, 2 };
	struct gs_sweep_spec spec = small_spec(pods, pols, seeds, 2);
	struct gs_sweep a, b;
	char err[1024], other[300];
	size_t i;

	(void)st;
	gs_test_path("other.db", other, sizeof(other));
	assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
	spec.db_path = other;
	spec.jobs = 1;
	assert_int_equal(gs_sweep_run(&spec, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_ran, 4);
	for (i = 0; i < 4; i++)
		assert_true(fabs(a.cells[i].fig[GS_FIG_UNALLOC] - b.cells[i].fig[GS_FIG_UNALLOC]) < 1e-12);
	gs_sweep_release(&a);
	gs_sweep_release(&b);
}

/* A timed trace of n pods, one arrival a second, the shapes of write_inputs(). */
static void write_timed(const char *path, int n)
{
	static const int shapes[][3] = {
		{ 4000, 1, 500 }, { 8000, 1, 1000 }, { 2000, 1, 250 }, { 16000, 2, 1000 },
	};
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		   "creation_time,deletion_time\n");
	for (i = 0; i < n; i++) {
		const int *s = shapes[(i * 3 + i / 4) % 4];

		fprintf(f, "p-%05d,%d,%d,%d,%d,0,,%d,%d\n", i, s[0], 8192, s[1], s[2], i,
			i + 60 + (i * 37) % 120);
	}
	fclose(f);
}

/*
 * Run ids follow the plan, not the finishing order: a slow trace first and
 * a tiny one after it, with more workers than cells of either, give on a
 * fresh database ids 1, 2, ... in plan order with 1, 2 and 5 jobs, and a
 * resumed sweep adds its new runs after them, again in plan order.
 */
static void test_sweep_plan_order(void **st)
{
	char big[256], tiny[256], dbp[300], name[64], err[1024];
	const char *pods[] = { big, tiny };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1, 2, 3 }, seeds4[] = { 1, 2, 3, 4 };
	struct gs_sweep_spec spec = small_spec(pods, pols, seeds, 3);
	static const int jobs[] = { 1, 2, 5 };
	struct gs_sweep a;
	size_t i, k;

	(void)st;
	gs_test_path("order-big.csv", big, sizeof(big));
	gs_test_path("order-tiny.csv", tiny, sizeof(tiny));
	write_timed(big, 20000);
	write_timed(tiny, 3);
	spec.opts.mode = GS_MODE_TIME;
	spec.n_traces = 2;
	spec.no_pods = true;
	for (k = 0; k < sizeof(jobs) / sizeof(jobs[0]); k++) {
		snprintf(name, sizeof(name), "order-%d.db", jobs[k]);
		gs_test_path(name, dbp, sizeof(dbp));
		spec.db_path = dbp;
		spec.jobs = jobs[k];
		spec.seeds = seeds;
		spec.n_seeds = 3;
		assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
		assert_int_equal(a.n_ran, 12);
		for (i = 0; i < 12; i++)
			assert_int_equal(a.cells[i].run_id, (int64_t)i + 1);
		gs_sweep_release(&a);

		/* Resumed with a fourth seed: the 4 new runs are 13 to 16, in plan order. */
		spec.seeds = seeds4;
		spec.n_seeds = 4;
		assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
		assert_int_equal(a.n_ran, 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(a.cells[i * 4 + 3].run_id, (int64_t)13 + (int64_t)i);
		gs_sweep_release(&a);
	}
}

/*
 * Time mode, a load axis: 2 policies x loads 50 and 120 x 2 seeds = 8 runs,
 * the trace repeated 3 times.
 * Waits grow with the load; a second sweep finds every run (the load is
 * in the key); adding load 90 runs only its 4; a time-scale axis is
 * another 4; the figures of skipped runs are read back from the database.
 */
static void test_time_sweep_loads(void **st)
{
	const char *pods[] = { timed_path };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1, 2 };
	const double loads[] = { 50, 120 }, loads3[] = { 50, 90, 120 }, scales[] = { 1, 4 };
	struct gs_sweep_spec spec = small_spec(pods, pols, seeds, 2);
	struct gs_sweep a, b, c;
	char err[1024] = "", path[300];
	size_t p, k, i;

	(void)st;
	gs_test_path("time.db", path, sizeof(path));
	spec.db_path = path;
	spec.opts.mode = GS_MODE_TIME;
	spec.opts.policy_flags = 0;
	spec.opts.load_repeat = 3;   /* the 300 pods ask for 103% of the GPUs at once */
	spec.loads = loads;
	spec.n_loads = 2;
	assert_int_equal(gs_sweep_run(&spec, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n_ran, 8);
	assert_int_equal(a.n_settings, 2);
	assert_true(a.settings[1] == 120);
	for (p = 0; p < 2; p++) {
		double lo, hi, sd;
		size_t n;

		for (k = 0; k < 2; k++)
			for (i = 0; i < 2; i++) {
				const struct gs_outcome *x = gs_sweep_cell_at(&a, 0, p, k, i);

				assert_false(isnan(x->fig[GS_FIG_WAIT_MEAN]));
				assert_false(isnan(x->fig[GS_FIG_COMPL_P99]));
				assert_true(x->fig[GS_FIG_SLOWDOWN] >= 1);
			}
		gs_sweep_stats(&a, 0, p, 0, GS_FIG_WAIT_MEAN, &lo, &sd, &n);
		assert_int_equal(n, 2);
		gs_sweep_stats(&a, 0, p, 1, GS_FIG_WAIT_MEAN, &hi, &sd, &n);
		assert_true(hi > lo);
	}
	gs_sweep_table_print(stdout, &spec, &a);

	assert_int_equal(gs_sweep_run(&spec, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_ran, 0);
	assert_int_equal(b.n_skipped, 8);
	for (i = 0; i < 8; i++) {
		int f;

		assert_int_equal(a.cells[i].run_id, b.cells[i].run_id);
		for (f = 0; f < GS_N_FIGS; f++)
			assert_true(fabs(a.cells[i].fig[f] - b.cells[i].fig[f]) <=
				    1e-9 * (1 + fabs(a.cells[i].fig[f])));
	}
	gs_sweep_release(&b);

	spec.loads = loads3;
	spec.n_loads = 3;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 4);
	assert_int_equal(c.n_skipped, 8);
	assert_false(gs_sweep_cell_at(&c, 0, 1, 1, 0)->skipped);
	assert_true(gs_sweep_cell_at(&c, 0, 1, 2, 0)->skipped);
	gs_sweep_release(&c);

	spec.loads = NULL;
	spec.n_loads = 0;
	spec.opts.load_repeat = 1;
	spec.scales = scales;
	spec.n_scales = 2;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 8);
	gs_sweep_release(&c);
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ran, 0);
	gs_sweep_release(&c);

	/* Both axes, a load in inflate mode, a load the trace cannot offer: refused. */
	spec.opts.load_repeat = 3;
	spec.loads = loads;
	spec.n_loads = 2;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), GS_EINVAL);
	spec.n_scales = 0;
	spec.opts.mode = GS_MODE_INFLATE;
	assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), GS_EINVAL);
	spec.opts.mode = GS_MODE_TIME;
	{
		const double huge[] = { 100000 };

		spec.loads = huge;
		spec.n_loads = 1;
		assert_int_equal(gs_sweep_run(&spec, &c, err, sizeof(err)), GS_EINVAL);
		assert_non_null(strstr(err, "load 100000%"));
	}
	gs_sweep_release(&a);
}

/*
 * The time-mode figures from the database of test_time_sweep_loads (loads
 * 50, 90 and 120, pods stored, and time-scale runs without a load): the
 * data files say what is drawn, the three figures are written, and a
 * database of runs without pod rows at one load skips the CDFs and the
 * load curves.
 */
static void test_time_plot(void **st)
{
	const char *dir = gs_test_tmpdir();
	char path[300], data[300], plots[300], file[700], err[1024], line[256], args[1024];
	char out[8192];
	struct gs_plot_time tm;
	struct gs_db *db;
	struct stat sb;
	size_t p, lines;
	FILE *f;

	(void)st;
	gs_test_path("time.db", path, sizeof(path));
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
	gs_test_path("time-data", data, sizeof(data));
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_time_export(db, data, &tm, err, sizeof(err)), 0);
	gs_db_close(db);
	assert_int_equal(tm.n_traces, 1);
	assert_string_equal(tm.traces[0], "timed");
	assert_int_equal(tm.n_policies, 2);
	assert_string_equal(tm.policies[0], "bestfit");   /* registry order */
	assert_string_equal(tm.setting[0], "load 120%, 2 seeds");
	for (p = 0; p < 2; p++) {
		assert_true(tm.series[p]);
		assert_true(tm.cdf[p]);
		assert_true(tm.load[p]);
	}
	/* One line per load, in load order: 50, 90, 120, each over 2 seeds. */
	snprintf(file, sizeof(file), "%s/timed.fgd.load.dat", data);
	f = fopen(file, "r");
	assert_non_null(f);
	for (lines = 0; fgets(line, sizeof(line), f); lines++) {
		static const char *const load[] = { "50\t", "90\t", "120\t" };

		assert_true(lines < 3);
		assert_int_equal(strncmp(line, load[lines], strlen(load[lines])), 0);
		assert_non_null(strstr(line, "\t2\n"));
	}
	fclose(f);
	assert_int_equal(lines, 3);
	/* The wait CDF ends at 1 and starts at 1 s. */
	snprintf(file, sizeof(file), "%s/timed.fgd.cdfw.dat", data);
	f = fopen(file, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(strncmp(line, "1\t", 2), 0);
	while (fgets(line, sizeof(line), f))
		;
	assert_non_null(strstr(line, "\t1.000000"));
	fclose(f);

	gs_test_path("time-plots", plots, sizeof(plots));
	assert_int_equal(mkdir(plots, 0777), 0);
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		assert_int_equal(gs_plot_time_render(&tm, GS_SOURCE_DIR "/scripts", data, plots,
						     NULL, err, sizeof(err)),
				 0);
		snprintf(file, sizeof(file), "%s/time_series_timed.png", plots);
		assert_int_equal(stat(file, &sb), 0);
		assert_true(sb.st_size > 1000);
		snprintf(file, sizeof(file), "%s/time_cdf_timed.svg", plots);
		assert_int_equal(stat(file, &sb), 0);
		snprintf(file, sizeof(file), "%s/time_load_timed.pdf", plots);
		assert_int_equal(stat(file, &sb), 0);
	}
	gs_plot_time_release(&tm);

	/* From the command line: runs without pod rows at one load skip two figures, saying why. */
	if (access(GS_GPUSIM_BIN, X_OK) != 0 || system("command -v gnuplot >/dev/null 2>&1"))
		return;
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --policy fgd "
		 "--load 90 --repeat 3 --seeds 1 --jobs 1 --no-pods --db '%s/time-np.db' -q",
		 nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "plot --db '%s/time-np.db' --out '%s/np-plots'", dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "time_series_timed.png"));
	assert_non_null(strstr(out, "skipped time_cdf_timed: its runs in"));
	assert_non_null(strstr(out, "without pod rows"));
	assert_non_null(strstr(out, "skipped time_load_timed: "));
	assert_non_null(strstr(out, "fewer than two loads"));
	no_gnuplot_warning(out);
}

/*
 * A trace run under two mechanisms at two loads: each time-mode figure
 * shows one mechanism (timed_exclusive, timed_vgpu), never both pooled,
 * and the load curve's bars span the seeds of one mechanism (2 runs per
 * load, not 4). Two traces of one file name in two directories keep
 * apart in the sweep's table and in the figures' names.
 */
static void test_time_plot_mechanisms(void **st)
{
	const char *dir = gs_test_tmpdir();
	char args[2048], out[16384], db[300], data[300], a[300], b[300], file[800], line[256];
	struct gs_plot_time tm;
	struct gs_db *d;
	char err[1024];
	size_t t;
	FILE *f;

	(void)st;
	if (access(GS_GPUSIM_BIN, X_OK) != 0)
		skip();
	snprintf(db, sizeof(db), "%s/mech.db", dir);
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --policy fgd "
		 "--sharing exclusive,vgpu --load 50,90 --seeds 1-2 --jobs 2 --db '%s' -q",
		 nodes_path, timed_path, db);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_int_equal(gs_db_open_existing(db, &d, err, sizeof(err)), 0);
	snprintf(data, sizeof(data), "%s/mech-data", dir);
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_time_export(d, data, &tm, err, sizeof(err)), 0);
	gs_db_close(d);
	assert_int_equal(tm.n_traces, 2);
	assert_string_equal(tm.traces[0], "timed_exclusive");
	assert_string_equal(tm.traces[1], "timed_vgpu");
	assert_string_equal(tm.setting[0], "exclusive, load 90%, 2 seeds");
	for (t = 0; t < 2; t++) {
		snprintf(file, sizeof(file), "%s/%s.fgd.load.dat", data, tm.traces[t]);
		f = fopen(file, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			assert_non_null(strstr(line, "\t2\n"));
		fclose(f);
	}
	gs_plot_time_release(&tm);

	/* One file name, two directories. */
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(mkdir(a, 0777), 0);
	assert_int_equal(mkdir(b, 0777), 0);
	snprintf(file, sizeof(file), "%s/timed.csv", a);
	write_timed(file, 40);
	snprintf(file, sizeof(file), "%s/timed.csv", b);
	write_timed(file, 60);
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s/timed.csv' '%s/timed.csv' "
		 "--mode time --policy fgd --seeds 1 --jobs 1 --db '%s/two.db'", nodes_path, a, b,
		 dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\na-timed "));
	assert_non_null(strstr(out, "\nb-timed "));
	/* inspect's run list: the paths, where the file names alone would be the same. */
	snprintf(args, sizeof(args), "inspect --db '%s/two.db'", dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "/a/timed.csv"));
	assert_non_null(strstr(out, "/b/timed.csv"));
	snprintf(db, sizeof(db), "%s/two.db", dir);
	assert_int_equal(gs_db_open_existing(db, &d, err, sizeof(err)), 0);
	snprintf(data, sizeof(data), "%s/two-data", dir);
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_time_export(d, data, &tm, err, sizeof(err)), 0);
	gs_db_close(d);
	assert_int_equal(tm.n_traces, 2);
	assert_string_equal(tm.traces[0], "a-timed");
	assert_string_equal(tm.traces[1], "b-timed");
	gs_plot_time_release(&tm);
}

static void test_sweep_errors(void **st)
{
	const char *missing[] = { "/nonexistent/pods.csv" };
	const struct gs_policy *pols[2];
	const uint64_t seeds[] = { 1 };
	struct gs_sweep_spec spec = small_spec(missing, pols, seeds, 1);
	struct gs_sweep s;
	char err[1024] = "";

	(void)st;
	assert_int_equal(gs_sweep_run(&spec, &s, err, sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "/nonexistent/pods.csv"));
	spec.n_seeds = 0;
	assert_int_equal(gs_sweep_run(&spec, &s, err, sizeof(err)), GS_EINVAL);
}

/* Runs gpusim with args; stdout and stderr go to files in dir. Returns the exit status. */
static int gpusim(const char *args, char *out, size_t out_len)
{
	const char *dir = gs_test_tmpdir();
	char cmd[2048], path[300];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s/out.txt' 2>&1", GS_GPUSIM_BIN, args, dir);
	st = system(cmd);
	gs_test_path("out.txt", path, sizeof(path));
	f = fopen(path, "r");
	n = f ? fread(out, 1, out_len - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli(void **st)
{
	const char *dir = gs_test_tmpdir();
	char args[1024], out[65536];
	const char *pol[] = { "random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd" };
	size_t i;

	(void)st;
	if (access(GS_GPUSIM_BIN, X_OK) != 0)
		skip();
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --seeds 1-2 --jobs 2 "
		 "--db '%s/cli.db'", nodes_path, pods_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	for (i = 0; i < 6; i++) {
		char row[64];

		/* The trace column is as wide as "TRACE". */
		snprintf(row, sizeof(row), "%-5s  %-14s %5d", "pods", pol[i], 2);
		assert_non_null(strstr(out, row));
	}
	assert_non_null(strstr(out, "12 runs: 12 ran, 0 already in"));
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "12 runs: 0 ran, 12 already in"));

	/* Bad input is exit status 2 with a message naming what is wrong. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s/none.csv' --db '%s/cli.db'",
		 nodes_path, dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "none.csv"));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --policy nope", nodes_path,
		 pods_path);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "'nope' is not a policy"));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --jobs 0", nodes_path,
		 pods_path);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_int_equal(gpusim("sweep --help", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "usage: gpusim sweep"));
	assert_non_null(strstr(out, "--no-pods"));

	/* Time mode with a load axis, resumed; the options that do not apply are refused. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --policy bestfit,fgd "
		 "--load 50,120 --repeat 3 --seeds 1-2 --jobs 2 --no-pods --db '%s/cli-time.db'",
		 nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "LOAD%"));
	assert_non_null(strstr(out, "WAIT(s)"));
	assert_non_null(strstr(out, "8 runs: 8 ran, 0 already in"));
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "8 runs: 0 ran, 8 already in"));
	/* A sharing axis outside the loads; --sharing implies time mode; resumed too. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --policy binpack "
		 "--sharing exclusive,timeslice:replicas=2 --load 50,120 --repeat 3 --seeds 1 "
		 "--jobs 2 --db '%s/cli-share.db'", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "SHARING"));
	assert_non_null(strstr(out, "timeslice:replicas=2"));
	assert_non_null(strstr(out, "USEFUL%"));
	assert_non_null(strstr(out, "4 runs: 4 ran, 0 already in"));
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "4 runs: 0 ran, 4 already in"));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --sharing mig,timeslot "
		 "--db '%s/x.db'", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--sharing: 'timeslot' is not a sharing mode"));
	/* --json: the 8 runs, all found in the database this time; -q: the new ids only. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --policy bestfit,fgd "
		 "--load 50,120 --repeat 3 --seeds 1-2 --jobs 2 --no-pods --db '%s/cli-time.db' "
		 "--json", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"skipped\":\ttrue"));
	assert_null(strstr(out, "\"skipped\":\tfalse"));
	assert_non_null(strstr(out, "\"load_pct\":\t120"));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --policy bestfit,fgd "
		 "--load 50,90,120 --repeat 3 --seeds 1-2 --jobs 1 --no-pods --db '%s/cli-time.db' "
		 "-q", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_string_equal(out, "9\n10\n11\n12\n");
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --load 50 --db '%s/x.db'",
		 nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "time mode only"));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --load 50,0 "
		 "--db '%s/x.db'", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --load 50 "
		 "--time-scale 2 --db '%s/x.db'", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --load 900 "
		 "--db '%s/x.db'", nodes_path, timed_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "at most"));

	/* --strict refuses a trace with a pod that fits on no node, before any run. */
	{
		char big[300];
		FILE *f;

		gs_test_path("big.csv", big, sizeof(big));
		f = fopen(big, "w");
		assert_non_null(f);
		fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nhuge,1000,1024,16,1000\n"
			   "small,1000,1024,1,500\n");
		fclose(f);
		snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --policy fgd --seeds 1 "
			 "--strict --db '%s/strict.db'", nodes_path, big, dir);
		assert_int_equal(gpusim(args, out, sizeof(out)), 2);
		assert_non_null(strstr(out, "1 pods fit on no node"));
	}

	/* --no-pods from the command line reaches the store. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --policy fgd --seeds 1 "
		 "--jobs 1 --no-pods --db '%s/cli-nopods.db'", nodes_path, pods_path, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "1 runs: 1 ran, 0 already in"));
	{
		struct gs_db *db;
		struct gs_run_row r;
		char path[300], err[512];

		gs_test_path("cli-nopods.db", path, sizeof(path));
		assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
		assert_int_equal(gs_db_get_run(db, 1, &r, err, sizeof(err)), 0);
		assert_false(r.pods_stored);
		assert_true(r.n_pods > 0);
		gs_run_row_release(&r);
		gs_db_close(db);
	}
}

/*
 * `sweep --pods` takes the files the shell's glob gives (--pods DIR/STAR.csv)
 * as it takes a comma list: the same matrix, so the second form finds
 * every run done; a missing one is named, exit 2; an argument after
 * another option is not a trace.
 */
static void test_cli_pods_glob(void **st)
{
	const char *dir = gs_test_tmpdir();
	char args[2048], out[65536], glob_dir[300], path[400];
	const char *names[] = { "a.csv", "b.csv", "c.csv" };
	size_t i;

	(void)st;
	if (access(GS_GPUSIM_BIN, X_OK) != 0)
		skip();
	gs_test_path("glob", glob_dir, sizeof(glob_dir));
	assert_int_equal(mkdir(glob_dir, 0777), 0);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", glob_dir, names[i]);
		/* Other pods in each (a run is known by its inputs' checksums). */
		snprintf(args, sizeof(args), "head -n %zu '%s' >'%s'", 100 + 10 * i, pods_path, path);
		assert_int_equal(system(args), 0);
	}
	/* gpusim() runs the line through sh, which expands the glob: the files in its order. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s'/*.csv --policy fgd --seeds 1 "
		 "--jobs 2 --db '%s/glob.db'", nodes_path, glob_dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "3 runs: 3 ran, 0 already in"));
	for (i = 0; i < 3; i++) {
		char row[64];

		snprintf(row, sizeof(row), "%-5.1s  %-14s", names[i], "fgd");
		assert_non_null(strstr(out, row));
	}
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods %s/a.csv,%s/b.csv,%s/c.csv "
		 "--policy fgd --seeds 1 --db '%s/glob.db'", nodes_path, glob_dir, glob_dir, glob_dir,
		 dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "3 runs: 0 ran, 3 already in"));

	/* A missing file among them is named, before any run. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods %s/a.csv %s/missing.csv --policy fgd "
		 "--seeds 1 --db '%s/glob.db'", nodes_path, glob_dir, glob_dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "missing.csv"));
	/* Given twice (a.csv and a.csv again): refused like a repeated comma item. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods %s/a.csv %s/a.csv --db '%s/x.db'",
		 nodes_path, glob_dir, glob_dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "is given twice"));
	/* After another option, a file is not a trace. */
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods %s/a.csv --seeds 1 %s/b.csv "
		 "--db '%s/x.db'", nodes_path, glob_dir, glob_dir, dir);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "unexpected argument"));
	assert_non_null(strstr(out, "b.csv"));
}

/*
 * The sharing figures, from test_cli's sweep of exclusive and
 * timeslice:replicas=2 at loads 50 and 120 with binpack: the data show the
 * highest load, the mechanisms in docs/sharing.md's order, what run_summary
 * says; exclusive pods run alone at full speed; the figures are drawn and
 * `gpusim plot` lists them. A database with one mechanism has no sharing
 * figures, and says why.
 */
static void test_sharing_plot(void **st)
{
	const char *dir = gs_test_tmpdir();
	char path[300], data[300], plots[300], file[700], err[1024], line[512], args[1024];
	char out[16384], want[256];
	struct gs_plot_sharing sh;
	struct gs_db *db;
	struct stat sb;
	size_t m, lines;
	FILE *f;

	(void)st;
	gs_test_path("cli-share.db", path, sizeof(path));
	if (access(path, R_OK) != 0)
		skip();   /* test_cli could not run the binary */
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
	gs_test_path("share-data", data, sizeof(data));
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_sharing_export(db, data, &sh, err, sizeof(err)), 0);
	assert_int_equal(sh.n_traces, 1);
	assert_string_equal(sh.traces[0], "timed");
	assert_true(sh.load[0] == 120);
	assert_int_equal(sh.n_sharings, 2);
	assert_string_equal(sh.sharings[0], "exclusive");
	assert_string_equal(sh.sharings[1], "timeslice:replicas=2");
	assert_int_equal(sh.n_policies, 1);
	assert_string_equal(sh.policies[0], "binpack");
	for (m = 0; m < 2; m++) {
		assert_true(sh.cdf[m]);
		assert_true(sh.n_done[m] > 0);
		assert_true(sh.coloc[m]);
	}
	/* The utilisation file holds run_summary's figures of the runs at load 120. */
	{
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_prepare_v2(gs_db_sqlite(db),
						    "SELECT sharing, printf('%.4f\t%.4f', gpu_alloc_pct,"
						    " eff_util_pct) FROM run_summary WHERE load_pct = 120"
						    " ORDER BY sharing",
						    -1, &q, NULL),
				 SQLITE_OK);
		snprintf(file, sizeof(file), "%s/timed.sharing_util.dat", data);
		f = fopen(file, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		assert_int_equal(line[0], '#');
		for (lines = 0; fgets(line, sizeof(line), f); lines++) {
			assert_int_equal(sqlite3_step(q), SQLITE_ROW);
			snprintf(want, sizeof(want), "%s\t%s\n", sqlite3_column_text(q, 0),
				 sqlite3_column_text(q, 1));
			assert_string_equal(line, want);
		}
		assert_int_equal(lines, 2);
		fclose(f);
		sqlite3_finalize(q);
	}
	gs_db_close(db);
	/* Exclusive: every pod alone on its GPUs, at full speed. */
	snprintf(file, sizeof(file), "%s/timed.exclusive.sharing_coloc.dat", data);
	f = fopen(file, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(line[0], '#');
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(strncmp(line, "1\t1.000000\t", 11), 0);
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
	/* Two pods time-sliced on a GPU run slower than alone. */
	snprintf(file, sizeof(file), "%s/timed.timeslice_replicas_2.sharing_coloc.dat", data);
	f = fopen(file, "r");
	assert_non_null(f);
	lines = 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "2\t", 2) == 0) {
			assert_true(strtod(line + 2, NULL) > 1.0);
			lines++;
		}
	fclose(f);
	assert_int_equal(lines, 1);
	/* The CDF ends at 1, its times ascending from at least 1 s. */
	snprintf(file, sizeof(file), "%s/timed.binpack.exclusive.sharing_cdf.dat", data);
	f = fopen(file, "r");
	assert_non_null(f);
	{
		double prev = 1, x;

		while (fgets(line, sizeof(line), f)) {
			x = strtod(line, NULL);
			assert_true(x >= prev);
			prev = x;
		}
	}
	assert_non_null(strstr(line, "\t1.000000"));
	fclose(f);

	gs_test_path("share-plots", plots, sizeof(plots));
	assert_int_equal(mkdir(plots, 0777), 0);
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		static const char *const figs[] = { "sharing_util_timed", "sharing_cdf_timed",
						    "sharing_coloc_timed" };

		assert_int_equal(gs_plot_sharing_render(&sh, GS_SOURCE_DIR "/scripts", data, plots,
							NULL, err, sizeof(err)),
				 0);
		for (m = 0; m < 3; m++) {
			snprintf(file, sizeof(file), "%s/%s.png", plots, figs[m]);
			assert_int_equal(stat(file, &sb), 0);
			assert_true(sb.st_size > 1000);
			snprintf(file, sizeof(file), "%s/%s.pdf", plots, figs[m]);
			assert_int_equal(stat(file, &sb), 0);
		}
		snprintf(args, sizeof(args), "plot --db '%s' --out '%s/share-cli'", path, dir);
		assert_int_equal(gpusim(args, out, sizeof(out)), 0);
		assert_non_null(strstr(out, "share-cli/sharing_util_timed.png"));
		assert_non_null(strstr(out, "share-cli/sharing_cdf_timed.svg"));
		assert_non_null(strstr(out, "share-cli/sharing_coloc_timed.pdf"));
		no_gnuplot_warning(out);
	}
	gs_plot_sharing_release(&sh);

	/* One mechanism only: no sharing figures, and the reason. */
	gs_test_path("cli-time.db", path, sizeof(path));
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
	assert_int_equal(gs_plot_sharing_export(db, data, &sh, err, sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "two sharing mechanisms or more"));
	assert_null(sh.traces);
	gs_db_close(db);
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		snprintf(args, sizeof(args), "plot --db '%s' --out '%s/time-cli'", path, dir);
		assert_int_equal(gpusim(args, out, sizeof(out)), 0);
		assert_non_null(strstr(out, "skipped the sharing figures"));
		no_gnuplot_warning(out);
	}
}

/* The height in pixels of a PNG file (its IHDR chunk), 0 when unreadable. */
static unsigned png_height(const char *path)
{
	unsigned char h[24];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	if (n < sizeof(h) || memcmp(h + 12, "IHDR", 4) != 0)
		return 0;
	return (unsigned)h[20] << 24 | (unsigned)h[21] << 16 | (unsigned)h[22] << 8 | h[23];
}

/*
 * Two traces, each run by policies of their own under mechanisms of their
 * own: each trace's utilisation file and figure hold its own policies and
 * mechanisms only, not empty slots for the other trace's (which gnuplot
 * also warned about, a column of NaN). The completion-time CDFs of four
 * policies take two rows of panels, in a figure taller than one row's.
 */
static void test_sharing_plot_per_trace(void **st)
{
	const char *dir = gs_test_tmpdir();
	char path[300], other[300], data[300], file[700], err[1024], line[512], args[1600];
	char out[16384];
	struct gs_plot_sharing sh;
	struct gs_db *db;
	size_t t, m, p;
	FILE *f;

	(void)st;
	if (access(GS_GPUSIM_BIN, X_OK) != 0)
		skip();
	/* The second trace: the same pods under another file name. */
	gs_test_path("other.csv", other, sizeof(other));
	snprintf(args, sizeof(args), "cp '%s' '%s'", timed_path, other);
	assert_int_equal(system(args), 0);
	gs_test_path("per-trace.db", path, sizeof(path));
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time --policy binpack "
		 "--sharing exclusive,vgpu --seeds 1 --jobs 1 --no-pods --db '%s' -q",
		 nodes_path, timed_path, path);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "sweep --nodes '%s' --pods '%s' --mode time "
		 "--policy spread,first-fit,random,dotprod --sharing exclusive,timeslice --seeds 1 "
		 "--jobs 1 --db '%s' -q",
		 nodes_path, other, path);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);

	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
	gs_test_path("per-trace-data", data, sizeof(data));
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_sharing_export(db, data, &sh, err, sizeof(err)), 0);
	gs_db_close(db);
	assert_int_equal(sh.n_traces, 2);
	assert_int_equal(sh.n_policies, 5);
	assert_int_equal(sh.n_sharings, 3);
	for (t = 0; t < 2; t++) {
		bool mine = strcmp(sh.traces[t], "timed") == 0;
		int rows = 0;

		for (m = 0; m < sh.n_sharings; m++)
			for (p = 0; p < sh.n_policies; p++) {
				const char *pol = sh.policies[p], *mech = sh.sharings[m];
				bool want = mine ? !strcmp(pol, "binpack") && strcmp(mech, "timeslice")
						 : strcmp(pol, "binpack") && strcmp(mech, "vgpu");

				assert_int_equal(sh.util[(t * sh.n_sharings + m) * sh.n_policies + p],
						 want);
			}
		snprintf(file, sizeof(file), "%s/%s.sharing_util.dat", data, sh.traces[t]);
		f = fopen(file, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		assert_non_null(strstr(line, mine ? "per policy: binpack\n"
						  : "per policy: spread first-fit random dotprod\n"));
		while (fgets(line, sizeof(line), f)) {
			const char *c = line;
			int tabs = 0;

			/* The mechanism, then two numbers per policy of the trace: no NaN column. */
			assert_null(strstr(line, "NaN"));
			while ((c = strchr(c, '\t')) != NULL) {
				tabs++;
				c++;
			}
			assert_int_equal(tabs, mine ? 2 : 8);
			assert_true(strncmp(line, mine ? "timeslice" : "vgpu", 4) != 0);
			rows++;
		}
		fclose(f);
		assert_int_equal(rows, 2);
	}
	gs_plot_sharing_release(&sh);
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		snprintf(args, sizeof(args), "plot --db '%s' --out '%s/per-trace-plots'", path, dir);
		assert_int_equal(gpusim(args, out, sizeof(out)), 0);
		assert_non_null(strstr(out, "per-trace-plots/sharing_util_timed.png"));
		assert_non_null(strstr(out, "per-trace-plots/sharing_util_other.png"));
		no_gnuplot_warning(out);
		/* Four panels: two rows of two thirds of the standard 640 pixels each. */
		snprintf(file, sizeof(file), "%s/per-trace-plots/sharing_cdf_other.png", dir);
		assert_int_equal(png_height(file), 844);
		snprintf(file, sizeof(file), "%s/per-trace-plots/sharing_util_other.png", dir);
		assert_int_equal(png_height(file), 640);
	}
}

static void test_plot(void **st)
{
	const char *dir = gs_test_tmpdir();
	char data[300], plots[300], path[700], err[1024], args[1024], out[8192];
	struct gs_plot_index ix;
	struct gs_db *db;
	struct stat sb;
	FILE *f;
	char line[256];
	int pct = -1;
	size_t i;

	(void)st;
	/* The database of test_sweep_and_resume: bestfit and fgd, compat and exact runs. */
	assert_int_equal(gs_db_open_existing(db_path, &db, err, sizeof(err)), 0);
	gs_test_path("data", data, sizeof(data));
	assert_int_equal(mkdir(data, 0777), 0);
	assert_int_equal(gs_plot_export(db, 1, data, &ix, err, sizeof(err)), 0);
	assert_int_equal(ix.n_traces, 1);
	assert_string_equal(ix.traces[0], "pods");
	assert_int_equal(ix.n_policies, 2);
	assert_string_equal(ix.policies[0], "bestfit");
	assert_string_equal(ix.policies[1], "fgd");
	assert_int_equal(ix.n_families, 0);
	/* The alloc file starts at the first percent >= 80 that has samples. */
	snprintf(path, sizeof(path), "%s/pods.fgd.alloc.dat", data);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_true(line[0] == '#');
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(sscanf(line, "%d", &pct), 1);
	assert_in_range(pct, 80, 130);
	fclose(f);
	snprintf(path, sizeof(path), "%s/pods.bestfit.frag.dat", data);
	assert_int_equal(stat(path, &sb), 0);
	gs_plot_index_release(&ix);
	/* No exact-mode run of a policy that is not there: nothing to plot is ENOENT. */
	gs_db_close(db);

	if (access(GS_GPUSIM_BIN, X_OK) != 0 || system("gnuplot -V >/dev/null 2>&1") != 0)
		skip();
	gs_test_path("plots", plots, sizeof(plots));
	snprintf(args, sizeof(args), "plot --db '%s' --out '%s' --scripts '%s/scripts'", db_path,
		 plots, GS_SOURCE_DIR);
	assert_int_equal(gpusim(args, out, sizeof(out)), 0);
	no_gnuplot_warning(out);
	{
		const char *files[] = { "unalloc_pods.png", "unalloc_pods.svg",
					"frag_ratio_pods.png", "frag_amount_pods.svg" };

		for (i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "%s/%s", plots, files[i]);
			assert_int_equal(stat(path, &sb), 0);
			assert_true(sb.st_size > 1000);
			assert_non_null(strstr(out, files[i]));
		}
	}
	/* No bench results in a simulator database: no bench figure, no error, a note. */
	{
		const char *bench[] = { "bench_overhead", "bench_slowdown", "bench_shares" };

		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/%s.png", plots, bench[i]);
			assert_int_equal(access(path, F_OK), -1);
			snprintf(path, sizeof(path), "%s/%s.svg", plots, bench[i]);
			assert_int_equal(access(path, F_OK), -1);
		}
		assert_non_null(strstr(out, "gpusim plot: skipped bench_overhead, bench_slowdown and "
					    "bench_shares: "));
		assert_non_null(strstr(out, "sweep.db holds no CUDA benchmark results"));
	}
	snprintf(args, sizeof(args), "plot --db '%s/none.db' --out '%s'", dir, plots);
	assert_int_equal(gpusim(args, out, sizeof(out)), 2);
}

int main(void)
{
	const struct CMUnitTest unit[] = {
		cmocka_unit_test(test_sweep_and_resume),
		cmocka_unit_test(test_sweep_no_pods),
		cmocka_unit_test(test_sweep_deterministic),
		cmocka_unit_test(test_sweep_plan_order),
		cmocka_unit_test(test_sweep_errors),
		cmocka_unit_test(test_time_sweep_loads),
		cmocka_unit_test(test_time_plot),
		cmocka_unit_test(test_time_plot_mechanisms),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_cli_pods_glob),
		cmocka_unit_test(test_sharing_plot),
		cmocka_unit_test(test_sharing_plot_per_trace),
		cmocka_unit_test(test_plot),
	};

	return cmocka_run_group_tests_name("sweep", unit, write_inputs, gs_test_tmpdir_teardown);
}
