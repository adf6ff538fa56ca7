/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_regress.c - `gpusim regress` and its parts: the statistics (Welch's
 * t, Holm-Bonferroni) on numbers worked out by hand, the canonical
 * parameters and the family names, the baseline's round trip, and end to
 * end that the check can fail: a perturbed policy, an edited baseline,
 * missing and extra runs, changed inputs and a family not run each make
 * it exit 1 and name what moved, while equal inputs exit 0.
 *
 * The end-to-end cases run the bundled sample trace (traces/sample): an
 * inflate-mode sweep of three policies x seeds 1-3 and a time-mode replay
 * of two policies, written once into base.db and its baseline into base/.
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "core/error.h"
#include "report/baseline.h"
#include "report/regress.h"
#include "store/regress_data.h"
#include "tmpdir.h"

#define SAMPLE GS_SOURCE_DIR "/traces/sample"

static char out[65536];

/* Runs gpusim with the formatted arguments from the test directory; output in out. */
static int gpusim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int gpusim(const char *fmt, ...)
{
	char args[2048], cmd[4096], path[512];
	va_list ap;
	size_t n;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out.txt 2>&1", gs_test_tmpdir(),
		 GS_GPUSIM_BIN, args);
	st = system(cmd);
	gs_test_path("out.txt", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A shell command in the test directory, which must succeed. */
static void sh(const char *cmd)
{
	char full[4096];

	snprintf(full, sizeof(full), "cd '%s' && %s", gs_test_tmpdir(), cmd);
	if (system(full) != 0)
		fail_msg("failed: %s", cmd);
}

/* Runs SQL on a database file of the test directory. */
static void sql(const char *db_name, const char *statements)
{
	char path[512], *msg = NULL;
	sqlite3 *db;

	gs_test_path(db_name, path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, statements, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", statements, msg);
	sqlite3_close(db);
}

/*
 * Replaces the value of the first line of a baseline CSV file that starts
 * with prefix by value (everything after the prefix).
 */
static void edit_line(const char *file, const char *prefix, const char *value)
{
	char path[512], *text, *line, *eol, *edited;
	size_t n, plen = strlen(prefix);
	FILE *f;

	gs_test_path(file, path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	line = strstr(text, prefix);
	if (!line)
		fail_msg("%s: no line starts with '%s'", file, prefix);
	eol = strchr(line, '\n');
	assert_non_null(eol);
	edited = malloc(n + strlen(value) + 1);
	assert_non_null(edited);
	sprintf(edited, "%.*s%s%s", (int)(line + plen - text), text, value, eol);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(edited, f);
	fclose(f);
	free(edited);
	free(text);
}

/* The line of out holding all of a, b and c, or NULL; copied into a static buffer. */
static const char *line_with(const char *a, const char *b, const char *c)
{
	static char buf[1024];
	const char *p = out;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
		if (strstr(buf, a) && (!b || strstr(buf, b)) && (!c || strstr(buf, c)))
			return buf;
		p += len + (eol ? 1 : 0);
	}
	return NULL;
}

static void expect_line(const char *a, const char *b, const char *c)
{
	if (!line_with(a, b, c))
		fail_msg("no line with '%s', '%s', '%s' in:\n%s", a, b ? b : "", c ? c : "", out);
}

/* base.db: the sample trace, 3 inflate policies x seeds 1-3 and 2 time policies; base/ from it. */
static int setup(void **state)
{
	(void)state;
	if (gs_test_tmpdir_make("regress"))
		return -1;
	if (gpusim("sweep -q --nodes " SAMPLE "/cluster.csv --pods " SAMPLE "/pods.csv"
		   " --policy random,bestfit,fgd --seeds 1-3 --no-pods --jobs 2 --db base.db") ||
	    gpusim("replay -q --nodes " SAMPLE "/cluster.csv --pods " SAMPLE "/pods.csv"
		   " --policy binpack,fgd --seed 42 --db base.db") ||
	    gpusim("regress --db base.db --write-baseline base")) {
		fprintf(stderr, "%s", out);
		return -1;
	}
	return 0;
}

/* ---- the statistics, by hand --------------------------------------------- */

/*
 * {1,2,3} against {3,4,5}: means 2 and 4, both sample variances 1, so
 * t = 2 / sqrt(1/3 + 1/3) = sqrt(6) and df = (2/3)^2 / (2 (1/3)^2 / 2) = 4.
 * Student's t with 4 degrees of freedom has F(t) = 1/2 + (3/4) x (1 - x^2/3)
 * with x = t / sqrt(t^2 + 4); x^2 = 6/10, F = 0.5 + 0.75 * 0.7745967 * 0.8
 * = 0.9647580, and the two-sided p = 2 (1 - F) = 0.0704840.
 * {1,2,3} against {4,5,6,7}: means 2 and 5.5, variances 1 and 5/3, so
 * se^2 = 1/3 + 5/12 = 3/4, t = 3.5 / sqrt(0.75) = 4.0414519 and
 * df = (3/4)^2 / ((1/3)^2 / 2 + (5/12)^2 / 3) = 0.5625 / (49/432) = 243/49.
 */
static void test_welch(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 3, 4, 5 }, c[] = { 4, 5, 6, 7 };
	const double two[] = { 2, 2 }, three[] = { 3, 3 };
	double t = 0, df = 0, p = 0;

	(void)state;
	assert_int_equal(gs_welch(a, 3, b, 3, &t, &df, &p), 0);
	assert_float_equal(t, sqrt(6.0), 1e-12);
	assert_float_equal(df, 4.0, 1e-12);
	assert_float_equal(p, 0.0704840, 1e-6);
	assert_int_equal(gs_welch(b, 3, a, 3, &t, &df, &p), 0);
	assert_float_equal(t, -sqrt(6.0), 1e-12);
	assert_int_equal(gs_welch(a, 3, c, 4, &t, &df, &p), 0);
	assert_float_equal(t, 4.0414519, 1e-6);
	assert_float_equal(df, 243.0 / 49.0, 1e-12);
	/* No spread: equal means are no move, different ones certain. */
	assert_int_equal(gs_welch(two, 2, two, 2, &t, &df, &p), 0);
	assert_true(isnan(t));
	assert_float_equal(p, 1.0, 0);
	assert_int_equal(gs_welch(two, 2, three, 2, &t, &df, &p), 0);
	assert_float_equal(p, 0.0, 0);
	/* One value is no sample variance. */
	p = 7;
	assert_int_equal(gs_welch(a, 1, b, 3, &t, &df, &p), GS_EINVAL);
	assert_float_equal(p, 7, 0);
}

/*
 * Holm on {0.01, 0.04, 0.03, 0.005}: sorted 0.005, 0.01, 0.03, 0.04 times
 * 4, 3, 2, 1 are 0.02, 0.03, 0.06, 0.04; the running maximum makes the
 * last 0.06. Back in the input order: 0.03, 0.06, 0.06, 0.02.
 */
static void test_holm(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 }, big[] = { 0.5, 0.9 };
	double adj[4];

	(void)state;
	assert_int_equal(gs_holm(p, 4, adj), 0);
	assert_float_equal(adj[0], 0.03, 1e-15);
	assert_float_equal(adj[1], 0.06, 1e-15);
	assert_float_equal(adj[2], 0.06, 1e-15);
	assert_float_equal(adj[3], 0.02, 1e-15);
	/* Capped at 1: 2 * 0.5 = 1, then max(1, 0.9) = 1. */
	assert_int_equal(gs_holm(big, 2, adj), 0);
	assert_float_equal(adj[0], 1.0, 0);
	assert_float_equal(adj[1], 1.0, 0);
}

/* ---- parameters and names ------------------------------------------------- */

static void test_params(void **state)
{
	char *s = NULL;

	(void)state;
	assert_int_equal(gs_rset_params("{\"mode\":\"time\",\"load\":80,\"inflate\":1.3,"
					"\"x\":\"a,b;c=d%\",\"frag\":true,\"n\":{\"k\":1}}", &s), 0);
	assert_string_equal(s, "mode=time;load=80;inflate=1.3;x=a%2Cb%3Bc%3Dd%25;frag=true;"
			       "n={%22k%22:1}");
	free(s);
	assert_int_equal(gs_rset_params("[1,2]", &s), GS_EPARSE);
	assert_int_equal(gs_rset_params("{", &s), GS_EPARSE);
}

static void test_names(void **state)
{
	const char *paths[][2] = {
		{ "/x/openb/openb_pod_list_gpushare40.csv", "gpushare40" },
		{ "traces/sample/pods.csv", "sample" },
		{ "pods.csv", "pods" },
		{ "./pods.json", "pods" },
		{ "a/b/trace.v2.json", "trace.v2" },
	};
	struct gs_rset s;
	size_t i, f[4];
	char *t;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		t = gs_rset_trace_name(paths[i][0]);
		assert_non_null(t);
		assert_string_equal(t, paths[i][1]);
		free(t);
	}
	/* Two loads of one trace, the same trace on another cluster, and a lone family. */
	gs_rset_init(&s);
	assert_int_equal(gs_rset_family(&s, NULL, "time", "n.csv", "a", "openb_pod_list_default.csv",
					"b", "mode=time;load=80;frag=false", &f[0]), 0);
	assert_int_equal(gs_rset_family(&s, NULL, "time", "n.csv", "a", "openb_pod_list_default.csv",
					"b", "mode=time;load=50;frag=false", &f[1]), 0);
	assert_int_equal(gs_rset_family(&s, NULL, "inflate", "n.csv", "a", "p,q.csv", "b",
					"mode=inflate", &f[2]), 0);
	assert_int_equal(gs_rset_family(&s, NULL, "time", "n.csv", "a", "openb_pod_list_default.csv",
					"b", "mode=time;load=80;frag=false", &f[3]), 0);
	assert_int_equal(f[3], f[0]);
	assert_int_equal(gs_rset_name_families(&s), 0);
	assert_string_equal(s.families[f[0]].name, "time-default-load=80");
	assert_string_equal(s.families[f[1]].name, "time-default-load=50");
	/* A comma would break the CSV files: it becomes '_'. */
	assert_string_equal(s.families[f[2]].name, "inflate-p_q");
	gs_rset_release(&s);
}

/* ---- in-memory sets: the statistical rule and speed ---------------------- */

/* A one-family set: policy p, the given seeds and values of metrics m1 (and m2). */
static void make_set(struct gs_rset *s, const uint64_t *seeds, const double *v1, const double *v2,
		     size_t n, double sim_ms)
{
	size_t fam, run, i;

	gs_rset_init(s);
	assert_int_equal(gs_rset_family(s, "inflate-x", "inflate", "n.csv", "a", "p.csv", "b",
					"mode=inflate", &fam), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(gs_rset_run(s, fam, "fgd", seeds[i], false, &run), 0);
		assert_int_equal(gs_rset_value(s, run, "big", v1[i], false), 0);
		if (v2)
			assert_int_equal(gs_rset_value(s, run, "small", v2[i], false), 0);
	}
	s->families[fam].speed_runs = (int64_t)n;
	s->families[fam].events = 1000;
	s->families[fam].sim_ms = sim_ms;
	s->families[fam].sweep_s = NAN;
	assert_int_equal(gs_rset_finish(s, NULL, 0), 0);
}

static const struct gs_regress_row *row_of(const struct gs_regress *r, const char *metric)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (!strcmp(r->rows[i].metric, metric))
			return &r->rows[i];
	fail_msg("no row for %s", metric);
	return NULL;
}

/*
 * Seeds 1-3 against 4-6, so the statistical rule. "big": {10,11,12}
 * against {20,21,22}: t = 10 / sqrt(2/3) = sqrt(150), df 4; with the F of
 * test_welch, x^2 = 150/154, F = 0.5 + 0.75 * 0.986928 * 0.675325 =
 * 0.999872, p = 0.000255. "small": {100.0,100.1,100.2} against
 * {100.5,100.6,100.7}: t = 0.5 / sqrt(0.02/3) = 6.1237, df 4, p = 0.00360,
 * significant but a move of 0.5/100.7 = 0.5 %, under the 1 % minimum.
 * Holm over the two: 2 * 0.000255 = 0.00051 and max(0.00051, 0.00360).
 */
static void test_stat_rule(void **state)
{
	const uint64_t sa[] = { 1, 2, 3 }, sb[] = { 4, 5, 6 };
	const double b1[] = { 10, 11, 12 }, b2[] = { 100.0, 100.1, 100.2 };
	const double n1[] = { 20, 21, 22 }, n2[] = { 100.5, 100.6, 100.7 };
	struct gs_regress_opts o;
	struct gs_regress r;
	struct gs_rset base, now;
	const struct gs_regress_row *big, *small;

	(void)state;
	make_set(&base, sa, b1, b2, 3, 1000);
	make_set(&now, sb, n1, n2, 3, 1000);
	gs_regress_opts_init(&o);
	assert_int_equal(gs_regress_compare(&base, &now, &o, &r, NULL, 0), 0);
	big = row_of(&r, "big");
	small = row_of(&r, "small");
	assert_int_equal(big->rule, GS_REGRESS_STAT);
	assert_float_equal(big->t, sqrt(150.0), 1e-9);
	assert_float_equal(big->df, 4.0, 1e-9);
	assert_float_equal(big->p, 0.000255, 1e-6);
	assert_float_equal(big->p_holm, 2 * big->p, 1e-15);
	assert_int_equal(big->verdict, GS_VERDICT_FAIL);
	assert_float_equal(small->p, 0.00360, 1e-5);
	assert_float_equal(small->p_holm, small->p, 1e-15);
	assert_int_equal(small->verdict, GS_VERDICT_SMALL);
	assert_int_equal(r.n_tests, 2);
	assert_int_equal(r.n_fail, 1);
	assert_int_equal(r.n_issues, 1);
	assert_string_equal(r.issues[0].what, "seeds differ");
	gs_regress_release(&r);

	/* The same seeds: the exact rule, every seed moved. */
	gs_rset_release(&now);
	make_set(&now, sa, n1, b2, 3, 1000);
	assert_int_equal(gs_regress_compare(&base, &now, &o, &r, NULL, 0), 0);
	big = row_of(&r, "big");
	assert_int_equal(big->rule, GS_REGRESS_EXACT);
	assert_int_equal(big->n_moved, 3);
	/* |10 - 20| / 20 = 0.5 is the largest relative move. */
	assert_float_equal(big->max_rel, 0.5, 1e-15);
	assert_int_equal(big->verdict, GS_VERDICT_FAIL);
	assert_int_equal(row_of(&r, "small")->verdict, GS_VERDICT_SAME);
	gs_regress_release(&r);
	gs_rset_release(&base);
	gs_rset_release(&now);
}

/*
 * Speed: 1000 events in 1 s of simulation is 1000/s. 1.5 s now is 667/s,
 * 1.5x slower: a warning; 2.5 s is 2.5x slower, beyond the 2x: a failure.
 */
static void test_speed(void **state)
{
	const uint64_t seeds[] = { 1 };
	const double v[] = { 1 };
	struct gs_regress_opts o;
	struct gs_regress r;
	struct gs_rset base, now;

	(void)state;
	gs_regress_opts_init(&o);
	make_set(&base, seeds, v, NULL, 1, 1000);
	make_set(&now, seeds, v, NULL, 1, 1500);
	assert_int_equal(gs_regress_compare(&base, &now, &o, &r, NULL, 0), 0);
	assert_int_equal(r.n_speed, 1);
	assert_float_equal(r.speed[0].base_eps, 1000, 1e-9);
	assert_float_equal(r.speed[0].eps_ratio, 1000.0 / 1500.0, 1e-12);
	assert_int_equal(r.speed[0].verdict, GS_VERDICT_WARN);
	assert_int_equal(r.n_fail, 0);
	gs_regress_release(&r);
	gs_rset_release(&now);
	make_set(&now, seeds, v, NULL, 1, 2500);
	assert_int_equal(gs_regress_compare(&base, &now, &o, &r, NULL, 0), 0);
	assert_int_equal(r.speed[0].verdict, GS_VERDICT_FAIL);
	assert_int_equal(r.n_fail, 1);
	gs_regress_release(&r);
	/* --max-slowdown 0: speed only warns. */
	o.max_slowdown = 0;
	assert_int_equal(gs_regress_compare(&base, &now, &o, &r, NULL, 0), 0);
	assert_int_equal(r.speed[0].verdict, GS_VERDICT_WARN);
	gs_regress_release(&r);
	gs_rset_release(&base);
	gs_rset_release(&now);
}

/* ---- end to end ----------------------------------------------------------- */

/* The baseline reads back as written: the same families, runs and values. */
static void test_round_trip(void **state)
{
	struct gs_rset s, again;
	char dir[512], dir2[512], err[1024];
	size_t i;

	(void)state;
	gs_test_path("base", dir, sizeof(dir));
	gs_test_path("again", dir2, sizeof(dir2));
	gs_rset_init(&s);
	assert_int_equal(gs_baseline_read(dir, &s, err, sizeof(err)), 0);
	/* 3 policies x 3 seeds inflate, 2 policies time. */
	assert_int_equal(s.n_families, 2);
	assert_string_equal(s.families[0].name, "inflate-sample");
	assert_string_equal(s.families[1].name, "time-sample");
	assert_int_equal(s.n_runs, 11);
	assert_true(s.n_points > 0);
	assert_int_equal(gs_baseline_write(&s, dir2, err, sizeof(err)), 0);
	gs_rset_init(&again);
	assert_int_equal(gs_baseline_read(dir2, &again, err, sizeof(err)), 0);
	assert_int_equal(again.n_values, s.n_values);
	for (i = 0; i < s.n_values; i++) {
		assert_float_equal(again.values[i].value, s.values[i].value, 0);
		assert_string_equal(again.metrics[again.values[i].metric], s.metrics[s.values[i].metric]);
	}
	gs_rset_release(&s);
	gs_rset_release(&again);
	sh("cmp base/runs.csv again/runs.csv && cmp base/families.csv again/families.csv");
}

static void test_equal(void **state)
{
	(void)state;
	assert_int_equal(gpusim("regress --db base.db --baseline base"), 0);
	expect_line("pass: 0 failures", NULL, NULL);
	assert_null(line_with("FAIL", NULL, NULL));
	/* The statistical rule on the same seeds finds nothing either. */
	assert_int_equal(gpusim("regress --db base.db --baseline base --rule stat"), 0);
	expect_line("pass: 0 failures", NULL, NULL);
}

/* A baseline whose fgd seed 2 had another unallocated GPU share. */
static void test_edited_baseline(void **state)
{
	(void)state;
	sh("rm -rf edited && cp -r base edited");
	edit_line("edited/runs.csv", "inflate-sample,fgd,2,unalloc_gpu_pct,", "42.5");
	assert_int_equal(gpusim("regress --db base.db --baseline edited"), 1);
	expect_line("FAIL", "fgd", "unalloc_gpu_pct");
	expect_line("inflate-sample", "fgd", "exact: 1/3 seeds moved");
	/* Only that figure moved. */
	expect_line("FAIL: 1 failure,", NULL, NULL);

	/* A metric the baseline has and no new run: it fails, once, naming it. */
	sh("rm -rf edited && cp -r base edited");
	edit_line("edited/runs.csv", "inflate-sample,fgd,2,failed_pct,", "0\n"
		  "inflate-sample,fgd,2,gone_pct,1");
	assert_int_equal(gpusim("regress --db base.db --baseline edited"), 1);
	expect_line("FAIL", "missing metrics", "1 metric of the baseline is in no new run: gone_pct");
	expect_line("FAIL", "failed_pct", "exact: 1/3 seeds moved");
}

/* A perturbed policy: what the database calls fgd placed as bestfit does. */
static void test_perturbed_policy(void **state)
{
	(void)state;
	sh("cp base.db swapped.db");
	sql("swapped.db", "UPDATE runs SET policy = 'x' WHERE policy = 'fgd' AND mode = 'inflate';"
			  "UPDATE runs SET policy = 'fgd' WHERE policy = 'bestfit';"
			  "UPDATE runs SET policy = 'bestfit' WHERE policy = 'x';"
			  /* As another program would write it: no checksum to hold the runs to. */
			  "UPDATE runs SET rows_checksum = NULL");
	assert_int_equal(gpusim("regress --db swapped.db --baseline base"), 1);
	expect_line("FAIL", "fgd", "unalloc_gpu_pct");
	expect_line("FAIL", "bestfit", "unalloc_gpu_pct");
	expect_line("inflate-sample", "fgd", "exact: 3/3 seeds moved");
	/* Random and the time family did not move. */
	assert_null(line_with("FAIL", "random", NULL));
	assert_null(line_with("FAIL", "time-sample", NULL));
}

static void test_missing_extra(void **state)
{
	(void)state;
	/* No bestfit run at all; a gpupacking run the baseline does not have. */
	sh("cp base.db missing.db");
	sql("missing.db", "DELETE FROM runs WHERE policy = 'bestfit'");
	assert_int_equal(gpusim("sweep -q --nodes " SAMPLE "/cluster.csv --pods " SAMPLE "/pods.csv"
				" --policy gpupacking --seeds 1 --no-pods --db missing.db"), 0);
	assert_int_equal(gpusim("regress --db missing.db --baseline base"), 1);
	expect_line("FAIL", "missing runs", "policy bestfit: no new run (baseline seeds 1-3)");
	expect_line("warn", "extra runs", "policy gpupacking: 1 runs (seeds 1)");

	/* One seed fewer: the statistical rule by default, a failure with --rule exact. */
	sh("cp base.db seed.db");
	sql("seed.db", "DELETE FROM runs WHERE policy = 'random' AND seed = 2");
	assert_int_equal(gpusim("regress --db seed.db --baseline base"), 0);
	expect_line("note", "seeds differ", "policy random: baseline seeds 1-3 (3), new 1,3 (2)");
	assert_int_equal(gpusim("regress --db seed.db --baseline base --rule exact"), 1);
	expect_line("FAIL", "missing runs", "policy random: 1 of the baseline's seeds 1-3");
}

/* The same file names with other checksums, and a family not run. */
static void test_inputs_and_families(void **state)
{
	(void)state;
	/* The pod file's checksum: its 64 hex digits after ",pods.csv,". */
	sh("rm -rf changed && cp -r base changed && sed -i 's/,pods.csv,[0-9a-f]\\{64\\},/,pods.csv,"
	   "0000000000000000000000000000000000000000000000000000000000000000,/'"
	   " changed/families.csv");
	assert_int_equal(gpusim("regress --db base.db --baseline changed"), 1);
	expect_line("FAIL", "inflate-sample", "changed inputs: pods.csv sha256 000000000000 -> ");
	expect_line("FAIL", "time-sample", "changed inputs: pods.csv sha256 000000000000 -> ");

	/* Other parameters: not run, and the report says which differ. */
	sh("rm -rf params && cp -r base params && sed -i '/^time-sample,/s/max_wait_s=-1/"
	   "max_wait_s=600/; /^time-sample,/s/$/;gone=1/' params/families.csv");
	assert_int_equal(gpusim("regress --db base.db --baseline params"), 1);
	expect_line("FAIL", "time-sample", "not run");
	expect_line("time-sample", "differ in parameters: max_wait_s=600 -> -1, -gone=1", NULL);
	expect_line("warn", "time-sample", "extra family: 2 runs of cluster.csv, pods.csv (time)");

	sh("cp base.db notime.db");
	sql("notime.db", "DELETE FROM runs WHERE mode = 'time'");
	assert_int_equal(gpusim("regress --db notime.db --baseline base"), 1);
	expect_line("FAIL", "time-sample", "not run");
	assert_int_equal(gpusim("regress --db notime.db --baseline base --partial"), 0);
	expect_line("warn", "time-sample", "not run");
}

static void test_bad_input(void **state)
{
	(void)state;
	assert_int_equal(gpusim("regress --db base.db --baseline nowhere"), 2);
	expect_line("gpusim regress: nowhere: cannot open the baseline", NULL, NULL);
	assert_int_equal(gpusim("regress --db nothing.db --baseline base"), 2);
	assert_int_equal(gpusim("regress --baseline base"), 2);
	assert_int_equal(gpusim("regress --db base.db --baseline base --rule fuzzy"), 2);
	expect_line("--rule: 'fuzzy' is not", NULL, NULL);
	assert_int_equal(gpusim("regress --db base.db --baseline base --alpha 2"), 2);
	sh("rm -rf broken && cp -r base broken");
	edit_line("broken/runs.csv", "inflate-sample,bestfit,1,failed_pct,", "abc");
	assert_int_equal(gpusim("regress --db base.db --baseline broken"), 2);
	expect_line("broken/runs.csv:", "column value: 'abc' is not a number", NULL);
	sh("rm -rf broken && cp -r base broken");
	edit_line("broken/runs.csv", "inflate-sample,bestfit,1,", "failed_pct,1\n"
		  "inflate-nope,bestfit,1,failed_pct,1");
	assert_int_equal(gpusim("regress --db base.db --baseline broken"), 2);
	expect_line("column family: 'inflate-nope' is not a family of families.csv", NULL, NULL);
	/*
	 * A file cut mid-line: the last value would still read as a number
	 * (25.83 of 25.834...), so the cut itself is refused.
	 */
	sh("rm -rf broken && cp -r base broken && head -c -7 base/runs.csv > broken/runs.csv");
	assert_int_equal(gpusim("regress --db base.db --baseline broken"), 2);
	expect_line("broken/runs.csv:", "the file ends in the middle of a line, so it was cut short",
		    NULL);
}

/* --out: the report, and the figures when gnuplot is there. */
static void test_report(void **state)
{
	const char *figs[] = { "unalloc_inflate-sample", "bars_inflate", "wait_cdf_time-sample",
			       "completion_cdf_time-sample" };
	char path[512], name[128];
	struct stat sb;
	size_t i;

	(void)state;
	sh("rm -rf edited && cp -r base edited");
	edit_line("edited/runs.csv", "inflate-sample,fgd,2,unalloc_gpu_pct,", "42.5");
	assert_int_equal(gpusim("regress --db base.db --baseline edited --out rep"), 1);
	expect_line("report: rep/report.md", NULL, NULL);
	gs_test_path("rep/report.md", path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	sh("grep -q '^\\*\\*FAIL\\*\\*: 1 failure' rep/report.md");
	sh("grep -q '| FAIL | inflate-sample | fgd | `unalloc_gpu_pct` |' rep/report.md");
	if (system("gnuplot -V >/dev/null 2>&1") != 0)
		return;
	for (i = 0; i < sizeof(figs) / sizeof(*figs); i++) {
		snprintf(name, sizeof(name), "rep/%s.png", figs[i]);
		gs_test_path(name, path, sizeof(path));
		if (stat(path, &sb) || sb.st_size < 1000)
			fail_msg("%s missing or empty; output:\n%s", name, out);
	}
}

/*
 * A time family in which no pod waits: the wait CDF has nothing right of 0
 * on its log axis. It is named as not drawn, with the reason; gnuplot is
 * not asked (it refuses an empty log range), and the other figures are.
 */
static void test_report_zero_waits(void **state)
{
	char path[512];
	struct stat sb;

	(void)state;
	assert_int_equal(gpusim("replay -q --nodes " SAMPLE "/cluster.csv --pods " SAMPLE
				"/pods.csv --policy binpack --load 5 --seed 7 --db idle.db"), 0);
	assert_int_equal(gpusim("regress --db idle.db --write-baseline idle"), 0);
	assert_int_equal(gpusim("regress --db idle.db --baseline idle --out idlerep"), 0);
	if (system("gnuplot -V >/dev/null 2>&1") != 0)
		return;
	if (strstr(out, "gnuplot failed"))
		fail_msg("gnuplot was asked to draw an empty log axis:\n%s", out);
	/* Named in the report, not on the terminal: every run of this baseline says the same. */
	assert_null(strstr(out, "figures left out"));
	sh("grep -q '^Not drawn: wait_cdf_time-sample (every pod at 0 s: nothing to draw on a"
	   " log axis)' idlerep/report.md");
	gs_test_path("idlerep/completion_cdf_time-sample.png", path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
}

/*
 * Forty time families in which no pod waits: report.md names every CDF
 * not drawn (it cut them at 2 KiB, mid-word); the terminal says nothing
 * of them (not news on a clean tree).
 */
static void test_report_many_zero_waits(void **state)
{
	char name[64];
	int i;

	(void)state;
	sh("mkdir -p many && for i in $(seq 10 49); do head -n $((i + 31)) " SAMPLE "/pods.csv"
	   " >many/p$i.csv; done");
	assert_int_equal(gpusim("sweep -q --mode time --load 5 --nodes " SAMPLE "/cluster.csv"
				" --pods many/*.csv --policy binpack --seeds 7 --jobs 2 --db many.db"),
			 0);
	assert_int_equal(gpusim("regress --db many.db --write-baseline many-base"), 0);
	assert_int_equal(gpusim("regress -q --db many.db --baseline many-base --out manyrep"), 0);
	if (system("gnuplot -V >/dev/null 2>&1") != 0)
		return;
	assert_null(strstr(out, "figures left out"));
	for (i = 10; i < 50; i++) {
		char cmd[256];

		snprintf(name, sizeof(name), "wait_cdf_time-p%d", i);
		snprintf(cmd, sizeof(cmd), "grep '^Not drawn: ' manyrep/report.md | grep -q '%s (every"
			 " pod at 0 s: nothing to draw on a log axis)[;.]'", name);
		sh(cmd);
	}
	sh("grep -q 'wait_cdf_time-p49 (every pod at 0 s: nothing to draw on a log axis)\\.$'"
	   " manyrep/report.md");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_stat_rule),
		cmocka_unit_test(test_speed),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_edited_baseline),
		cmocka_unit_test(test_perturbed_policy),
		cmocka_unit_test(test_missing_extra),
		cmocka_unit_test(test_inputs_and_families),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_zero_waits),
		cmocka_unit_test(test_report_many_zero_waits),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
