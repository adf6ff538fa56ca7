/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_repro.c - the FGD reproduction as a statistical acceptance test
 * (CTest label "repro", `make repro`; minutes, left out of `make test`).
 *
 * For every (workload, policy) cell of ../shared/fidelity/fgd-published.csv
 * (13 openb workloads x the paper's 6 policies = 78 cells: the authors'
 * mean and sample standard deviation over seeds 42-51 of the unallocated
 * GPU % at arrived workload 100%, Weng et al., ATC 2023) gpusim runs the
 * same experiment (--mode inflate, --compat, seeds 42-51, --no-pods) and
 * reads each run's headline from the database's run_summary.
 *
 * Both sides are samples of ten seeds, so each cell gets Welch's unequal-
 * variance t test: t = (ours - theirs) / sqrt(s1^2/10 + s2^2/10), with the
 * Welch-Satterthwaite degrees of freedom and a two-sided p from GSL's
 * gsl_cdf_tdist_Q. 78 tests at 0.05 each would flag about four cells by
 * chance alone, so the threshold holds the family-wise error rate at 0.05
 * with Holm's step-down procedure: sort the p values, the k-th smallest
 * (k = 1..78) is out when it and all smaller ones are below 0.05 / (79 - k);
 * the first stop ends the rejections. Holm needs no independence between
 * the cells (they share traces and seeds) and is never less powerful than
 * Bonferroni; the test passes exactly when Bonferroni's would (the smallest
 * p at least 0.05 / 78 = 6.4e-4), and when it fails Holm names more of
 * the cells that are out. The test prints the table (difference, t, df,
 * p, which cells are out), a plain summary line (cells within 0.5 points,
 * mean absolute difference) and fails when any cell is out.
 *
 * GS_REPRO_DB=PATH keeps the runs in that database instead of a temporary
 * one; runs already complete there are not run again (gpusim sweep's
 * resume), so use a fresh file after changing the simulator.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core/error.h"
#include "io/csv.h"
#include "store/results.h"
#include "run/sweep.h"
#include "tmpdir.h"

#define N_POLICIES 6
#define MAX_TRACES 32
#define N_SEEDS 10
#define FIRST_SEED 42
#define FAMILY_ALPHA 0.05

static const char *const policy_names[N_POLICIES] = {
	"random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd",
};

/* One (workload, policy) cell: the published figures, ours and the test. */
struct cell {
	double pub_mean, pub_sd;
	int pub_n;
	double mean, sd;
	size_t n;
	double t, df, p;
	bool out;
};

struct published {
	char trace[MAX_TRACES][128];
	size_t n_traces;
	struct cell cells[MAX_TRACES][N_POLICIES];
	bool have[MAX_TRACES][N_POLICIES];
};

static int policy_index(const char *name)
{
	int i;

	for (i = 0; i < N_POLICIES; i++)
		if (!strcmp(policy_names[i], name))
			return i;
	return -1;
}

static bool parse_double(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out);
}

/* Reads fgd-published.csv; every trace must list each of the six policies once. */
static void read_published(const char *path, struct published *pub)
{
	static const char *const cols[] = {
		"trace", "policy", "seeds", "unalloc_gpu_pct_mean", "unalloc_gpu_pct_sd",
	};
	struct gs_csv r;
	char err[512];
	size_t i;
	int rc, j;

	memset(pub, 0, sizeof(*pub));
	assert_int_equal(gs_csv_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(gs_csv_next(&r), 1);
	assert_true(gs_csv_row_is(&r, cols, 5));
	gs_csv_set_columns(&r, cols, 5);
	while ((rc = gs_csv_next(&r)) == 1) {
		struct cell *c;
		int64_t seeds;
		int pol;

		assert_int_equal(gs_csv_expect_fields(&r, 5), 0);
		pol = policy_index(r.field[1]);
		assert_true(pol >= 0);
		for (i = 0; i < pub->n_traces; i++)
			if (!strcmp(pub->trace[i], r.field[0]))
				break;
		if (i == pub->n_traces) {
			assert_true(pub->n_traces < MAX_TRACES);
			assert_true(strlen(r.field[0]) < sizeof(pub->trace[0]));
			strcpy(pub->trace[pub->n_traces++], r.field[0]);
		}
		assert_false(pub->have[i][pol]);
		pub->have[i][pol] = true;
		c = &pub->cells[i][pol];
		assert_int_equal(gs_csv_int(&r, 2, 2, 1000, &seeds), 0);
		c->pub_n = (int)seeds;
		assert_true(parse_double(r.field[3], &c->pub_mean));
		assert_true(parse_double(r.field[4], &c->pub_sd));
		assert_true(c->pub_sd >= 0);
	}
	assert_int_equal(rc, 0);
	gs_csv_close(&r);
	assert_true(pub->n_traces > 0);
	for (i = 0; i < pub->n_traces; i++)
		for (j = 0; j < N_POLICIES; j++)
			assert_true(pub->have[i][j]);
}

/*
 * Welch's t for ours (mean m1, sd s1, n1) against theirs (m2, s2, n2):
 * the statistic, its Welch-Satterthwaite degrees of freedom and the
 * two-sided p.
 */
static void welch(struct cell *c)
{
	double v1 = c->sd * c->sd / (double)c->n, v2 = c->pub_sd * c->pub_sd / c->pub_n;
	double se = sqrt(v1 + v2), diff = c->mean - c->pub_mean;

	if (!(se > 0)) {
		/* Two samples without spread: equal means or an infinitely clear difference. */
		c->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		c->df = (double)(c->n + (size_t)c->pub_n - 2);
		c->p = diff == 0 ? 1 : 0;
		return;
	}
	c->t = diff / se;
	c->df = (v1 + v2) * (v1 + v2) /
		(v1 * v1 / ((double)c->n - 1) + v2 * v2 / ((double)c->pub_n - 1));
	c->p = 2 * gsl_cdf_tdist_Q(fabs(c->t), c->df);
	if (c->p > 1)
		c->p = 1;
}

static int cmp_cell_p(const void *a, const void *b)
{
	const struct cell *x = *(const struct cell *const *)a, *y = *(const struct cell *const *)b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* Holm's step-down at family-wise alpha over m cells; marks those out. Returns how many. */
static size_t holm(struct cell **by_p, size_t m, double alpha)
{
	size_t k;

	qsort(by_p, m, sizeof(*by_p), cmp_cell_p);
	for (k = 0; k < m; k++) {
		if (!(by_p[k]->p < alpha / (double)(m - k)))
			break;
		by_p[k]->out = true;
	}
	return k;
}

/* Worked by hand: the statistics must be right before they judge anything. */
static void test_welch_and_holm(void **st)
{
	struct cell c[3], *by_p[3];

	(void)st;
	memset(c, 0, sizeof(c));
	/*
	 * Ours 5.00 +- 0.10, theirs 4.80 +- 0.20, ten each: se = sqrt(0.001 +
	 * 0.004) = 0.0707107, t = 0.2 / 0.0707107 = 2.828427; df = 0.005^2 /
	 * (0.001^2/9 + 0.004^2/9) = 2.5e-5 / 1.888889e-6 = 13.235294; two-sided
	 * p of t = 2.83 on 13.2 df is about 0.014 (between 0.01 and 0.02 in a
	 * t table for 13 df, whose 0.01 and 0.02 points are 3.012 and 2.650).
	 */
	c[0].mean = 5.0;
	c[0].sd = 0.1;
	c[0].n = 10;
	c[0].pub_mean = 4.8;
	c[0].pub_sd = 0.2;
	c[0].pub_n = 10;
	welch(&c[0]);
	assert_true(fabs(c[0].t - 2.828427) < 1e-6);
	assert_true(fabs(c[0].df - 13.235294) < 1e-6);
	assert_true(c[0].p > 0.01 && c[0].p < 0.02);
	/* Equal means: t 0, p 1. Both without spread and apart: p 0. */
	c[1] = c[0];
	c[1].mean = 4.8;
	welch(&c[1]);
	assert_true(c[1].t == 0 && fabs(c[1].p - 1) < 1e-12);
	c[2] = c[0];
	c[2].sd = c[2].pub_sd = 0;
	welch(&c[2]);
	assert_true(c[2].p == 0 && isinf(c[2].t));

	/*
	 * Holm at 0.05 over three: p = 0.01 < 0.05/3 is out; then 0.02 <
	 * 0.05/2 is out; then 0.04 < 0.05/1 is out too. With 0.03 first
	 * (0.03 >= 0.0167) nothing is out, although 0.04 alone would pass
	 * 0.05: the procedure stops at the first that holds.
	 */
	c[0].p = 0.02;
	c[1].p = 0.04;
	c[2].p = 0.01;
	for (int i = 0; i < 3; i++) {
		c[i].out = false;
		by_p[i] = &c[i];
	}
	assert_int_equal(holm(by_p, 3, 0.05), 3);
	assert_true(c[0].out && c[1].out && c[2].out);
	c[2].p = 0.03;
	for (int i = 0; i < 3; i++) {
		c[i].out = false;
		by_p[i] = &c[i];
	}
	assert_int_equal(holm(by_p, 3, 0.05), 0);
	assert_false(c[0].out || c[1].out || c[2].out);
}

static void test_repro(void **st)
{
	static struct published pub;
	const struct gs_policy *pols[N_POLICIES];
	const char *paths[MAX_TRACES];
	char path_buf[MAX_TRACES][1024];
	struct cell *by_p[MAX_TRACES * N_POLICIES];
	uint64_t seeds[N_SEEDS];
	char nodes[1024], db_path[1024], err[1024];
	const char *env_db = getenv("GS_REPRO_DB");
	struct gs_sweep_spec spec;
	struct gs_sweep s;
	struct gs_db *db;
	size_t i, m = 0, within = 0, n_out;
	double abs_sum = 0, min_p = 1;
	int j, k;

	(void)st;
	if (access(GS_PUBLISHED_CSV, R_OK)) {
		printf("no %s: skipped\n", GS_PUBLISHED_CSV);
		skip();
	}
	read_published(GS_PUBLISHED_CSV, &pub);
	snprintf(nodes, sizeof(nodes), "%s/openb_node_list_gpu_node.csv", GS_OPENB_DIR);
	if (access(nodes, R_OK)) {
		printf("no openb trace in %s: skipped\n", GS_OPENB_DIR);
		skip();
	}
	for (i = 0; i < pub.n_traces; i++) {
		snprintf(path_buf[i], sizeof(path_buf[i]), "%s/%s.csv", GS_OPENB_DIR, pub.trace[i]);
		assert_int_equal(access(path_buf[i], R_OK), 0);
		paths[i] = path_buf[i];
	}
	for (j = 0; j < N_POLICIES; j++) {
		pols[j] = gs_policy_find(policy_names[j]);
		assert_non_null(pols[j]);
	}
	for (k = 0; k < N_SEEDS; k++)
		seeds[k] = FIRST_SEED + (uint64_t)k;
	if (env_db && *env_db)
		snprintf(db_path, sizeof(db_path), "%s", env_db);
	else
		snprintf(db_path, sizeof(db_path), "%s/repro.db", gs_test_tmpdir());

	memset(&spec, 0, sizeof(spec));
	gs_replay_opts_init(&spec.opts);
	spec.opts.mode = GS_MODE_INFLATE;
	spec.opts.policy_flags = GS_POLICY_COMPAT;
	spec.nodes_path = nodes;
	spec.pods_paths = paths;
	spec.n_traces = pub.n_traces;
	spec.policies = pols;
	spec.n_policies = N_POLICIES;
	spec.seeds = seeds;
	spec.n_seeds = N_SEEDS;
	spec.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (spec.jobs < 1)
		spec.jobs = 1;
	spec.db_path = db_path;
	spec.no_pods = true;
	if (gs_sweep_run(&spec, &s, err, sizeof(err)) != 0)
		fail_msg("sweep: %s", err);
	printf("%zu runs (%zu ran, %zu already in %s) in %.1f s with %d jobs\n",
	       s.n_ran + s.n_skipped, s.n_ran, s.n_skipped, db_path, s.wall_s, spec.jobs);

	/* Each run's headline as the database's run_summary gives it. */
	assert_int_equal(gs_db_open_existing(db_path, &db, err, sizeof(err)), 0);
	for (i = 0; i < pub.n_traces; i++) {
		for (j = 0; j < N_POLICIES; j++) {
			struct cell *c = &pub.cells[i][j];
			double v[N_SEEDS];

			c->n = 0;
			for (k = 0; k < N_SEEDS; k++) {
				const struct gs_outcome *sc = gs_sweep_cell_at(&s, i, (size_t)j, 0,
										  (size_t)k);
				struct gs_run_row row;

				if (gs_db_get_run(db, sc->run_id, &row, err, sizeof(err)) != 0)
					fail_msg("run %lld: %s", (long long)sc->run_id, err);
				if (!isnan(row.unalloc_gpu_pct))
					v[c->n++] = row.unalloc_gpu_pct;
				gs_run_row_release(&row);
			}
			assert_int_equal(c->n, N_SEEDS);
			c->mean = gsl_stats_mean(v, 1, c->n);
			c->sd = gsl_stats_sd(v, 1, c->n);
			welch(c);
			by_p[m++] = c;
			abs_sum += fabs(c->mean - c->pub_mean);
			if (fabs(c->mean - c->pub_mean) <= 0.5)
				within++;
			if (c->p < min_p)
				min_p = c->p;
		}
	}
	gs_db_close(db);
	gs_sweep_release(&s);
	n_out = holm(by_p, m, FAMILY_ALPHA);

	printf("\nUnallocated GPU %% at arrived 100%%, seeds %d-%d, --compat; published (Weng et "
	       "al., ATC 2023) against gpusim.\nWelch's t per cell, Holm at family-wise alpha "
	       "%.2f over %zu cells (the smallest p must be >= %.2e).\n\n", FIRST_SEED,
	       FIRST_SEED + N_SEEDS - 1, FAMILY_ALPHA, m, FAMILY_ALPHA / (double)m);
	printf("%-27s %-14s %15s %15s %7s %7s %5s %9s\n", "TRACE", "POLICY", "PUBLISHED", "GPUSIM",
	       "DIFF", "T", "DF", "P");
	for (i = 0; i < pub.n_traces; i++) {
		for (j = 0; j < N_POLICIES; j++) {
			const struct cell *c = &pub.cells[i][j];

			printf("%-27s %-14s %7.2f +- %4.2f %7.2f +- %4.2f %+7.2f %+7.2f %5.1f %9.2e%s\n",
			       pub.trace[i], policy_names[j], c->pub_mean, c->pub_sd, c->mean, c->sd,
			       c->mean - c->pub_mean, c->t, c->df, c->p, c->out ? "  OUT" : "");
		}
	}
	printf("\nsummary: %zu cells, %zu within 0.5 points, mean absolute difference %.3f; "
	       "%zu out by Welch/Holm at family-wise %.2f (smallest p %.2e)\n",
	       m, within, abs_sum / (double)m, n_out, FAMILY_ALPHA, min_p);
	assert_int_equal(n_out, 0);
}

static int setup(void **st)
{
	(void)st;
	return gs_test_tmpdir_make("test-repro");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welch_and_holm),
		cmocka_unit_test(test_repro),
	};

	return cmocka_run_group_tests_name("repro", tests, setup, gs_test_tmpdir_teardown);
}
