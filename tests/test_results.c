/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_results.c - the SQLite results store: round trip of a hand-built run,
 * the summary views against numbers worked out by hand (and against
 * gs_sim_summarize), the empty 100 % bucket, runs stored without pod rows
 * (--no-pods), atomic writes under injected failures, the schema
 * version rule, resumable-sweep lookups, concurrent writers, and
 * results/SCHEMA.md documenting exactly the columns the DDL creates.
 */
#include <math.h>
#include <pthread.h>
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
#include "core/grow.h"
#include "core/version.h"
#include "policies/sched.h"
#include "store/decision.h"
#include "store/digest.h"
#include "store/results.h"
#include "results_fixture.h"
#include "testutil.h"
#include "tmpdir.h"

/* --- helpers -------------------------------------------------------------- */

/*
 * Runs sql and returns its rows as text, columns joined by '|', rows by
 * '\n', SQL NULL as "NULL" (like the sqlite3 shell with .nullvalue NULL).
 */
static const char *rows(struct gs_db *db, const char *sql)
{
	static char buf[8192];
	sqlite3_stmt *st;
	size_t used = 0;
	int rc, i;

	buf[0] = '\0';
	rc = sqlite3_prepare_v2(gs_db_sqlite(db), sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(gs_db_sqlite(db)));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (used)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "\n");
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *v = sqlite3_column_text(st, i);

			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s",
						 i ? "|" : "", v ? (const char *)v : "NULL");
		}
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	return buf;
}

static double real(struct gs_db *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_prepare_v2(gs_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(gs_db_sqlite(db)));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

#define assert_near(got, want)                                                        \
	do {                                                                          \
		double g_ = (got), w_ = (want);                                       \
		if (!(fabs(g_ - w_) <= 1e-9 * (1 + fabs(w_))))                        \
			fail_msg("%s = %.12g, expected %.12g", #got, g_, w_);         \
	} while (0)

static struct gs_db *open_new(const char *tag)
{
	struct gs_db *db = NULL;
	char err[512] = "";
	int rc = gs_db_open(rf_temp_db(tag), &db, err, sizeof(err));

	if (rc)
		fail_msg("gs_db_open: %s (%s)", gs_errname(rc), err);
	return db;
}

static void close_and_remove(struct gs_db *db)
{
	char path[512], side[600];

	snprintf(path, sizeof(path), "%s", gs_db_path(db));
	gs_db_close(db);
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

static int64_t write_ok(struct gs_db *db, struct rf_run *r)
{
	char err[512] = "";
	int64_t id = -1;
	int rc = gs_db_write_run(db, &r->info, &r->sim, &id, err, sizeof(err));

	if (rc)
		fail_msg("gs_db_write_run: %s (%s)", gs_errname(rc), err);
	return id;
}

static const char counts_sql[] =
	"SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_nodes),"
	" (SELECT count(*) FROM pods), (SELECT count(*) FROM samples)";

/* Runs raw SQL on a file without going through the store. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *c;

	assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
	if (sqlite3_exec(c, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(c));
	sqlite3_close(c);
}

/* --- round trip ------------------------------------------------------------ */

static void test_round_trip(void **state)
{
	struct rf_run r;
	struct gs_db *db;
	char reason[256], want[1024];
	int64_t id;

	(void)state;
	rf_build_time(&r);
	db = open_new("roundtrip");
	id = write_ok(db, &r);
	assert_int_equal(id, 1);

	snprintf(want, sizeof(want), "1|complete|binpack|time|42|" RF_NODES_PATH "|"
		 RF_PODS_PATH "|" RF_PARAMS "|%s"
		 "|2024-01-02T03:04:05.678Z|2024-01-02T03:04:07.178Z|1500.25", gs_version());
	assert_string_equal(rows(db, "SELECT run_id, status, policy, mode, seed, nodes_path,"
				     " pods_path, params_json, gpusim_version, started_at,"
				     " ended_at, wall_ms FROM runs"), want);
	assert_string_equal(rows(db, "SELECT nodes_sha256, pods_sha256 FROM runs"),
			    RF_NODES_SHA "|" RF_PODS_SHA);
	assert_string_equal(rows(db, "SELECT n_nodes, gpu_count, gpu_milli_capacity,"
				     " cpu_milli_capacity, mem_mib_capacity, n_pods, n_placed,"
				     " n_failed, n_done, n_pending_end, n_events, n_retries,"
				     " t_end_s FROM runs"),
			    "3|6|6000|112000|458752|5|3|1|2|1|9|4|110");
	/* Pod 1 waited 10 s, pods 0 and 3 not at all. */
	assert_string_equal(rows(db, "SELECT wait_total_s, pods_stored FROM runs"), "10|1");

	assert_string_equal(rows(db, "SELECT * FROM run_nodes ORDER BY node_idx"),
			    "1|0|node-a|64000|262144|4|V100M16|16384|NULL\n"
			    "1|1|node-b|32000|131072|2|T4|15360|NULL\n"
			    "1|2|node-c|16000|65536|0|NULL|0|NULL");

	assert_string_equal(rows(db, "SELECT pod_idx, src_idx, name, cpu_milli, memory_mib,"
				     " num_gpu, gpu_milli, gpu_mem_mib, gpu_spec, state"
				     " FROM pods ORDER BY pod_idx"),
			    "0|4|t4|4000|8192|1|500|0|NULL|running\n"
			    "1|3|t3|8000|16384|2|1000|0|T4|done\n"
			    "2|2|t2|2000|4096|1|700|8000|NULL|failed\n"
			    "3|1|t1|1000|2048|0|0|0|NULL|done\n"
			    "4|0|t0|500|1024|1|1000|0|NULL|pending");
	assert_string_equal(rows(db, "SELECT pod_idx, node_idx, gpus, t_arrive_s, t_start_s,"
				     " t_end_s, wait_s FROM pods ORDER BY pod_idx"),
			    "0|0|2|10|10|NULL|0\n"
			    "1|1|0,1|20|30|100|10\n"
			    "2|NULL|NULL|40|NULL|70|NULL\n"
			    "3|2|NULL|50|50|60|0\n"
			    "4|NULL|NULL|70|NULL|NULL|NULL");
	/* The reasons are gs_nofit_format()'s, stored for pods that never ran. */
	assert_string_equal(rows(db, "SELECT fail_reason FROM pods WHERE pod_idx = 2"),
			    "0/3 nodes are available: 1 Insufficient cpu, 2 Insufficient GPU share");
	assert_string_equal(rows(db, "SELECT fail_reason FROM pods WHERE pod_idx = 4"),
			    gs_nofit_format(&r.sim.out[4].why, reason, sizeof(reason)));
	assert_string_equal(rows(db, "SELECT count(*) FROM pods WHERE fail_reason IS NULL"),
			    "3");

	assert_string_equal(rows(db, "SELECT * FROM samples ORDER BY sample_idx"),
			    "1|0|10|1|1000|100|500|1|500|10|20|30|NULL|8|40|50|60\n"
			    "1|1|30|3|2000|200|2500|2|2500|11|21|31|NULL|42|41|51|61\n"
			    "1|2|100|5|3000|300|500|3|3200|12|22|32|NULL|53|42|52|62\n"
			    "1|3|110|7|4000|400|500|4|4200|13|23|33|NULL|70|43|53|63");

	close_and_remove(db);
	rf_release(&r);
}

/* The read helpers behind gpusim inspect give back what was written. */
static void test_read_helpers(void **state)
{
	struct rf_run r;
	struct gs_db *db;
	struct gs_db_node *nodes;
	struct gs_db_pod *pods;
	struct gs_run_row run, *list;
	size_t n_nodes, n_pods, n_runs;
	char err[512];
	int64_t t_s = -1;

	(void)state;
	rf_build_time(&r);
	db = open_new("readers");
	assert_int_equal(write_ok(db, &r), 1);

	assert_int_equal(gs_db_load_nodes(db, 1, &nodes, &n_nodes, err, sizeof(err)), 0);
	assert_int_equal(n_nodes, 3);
	assert_string_equal(nodes[1].name, "node-b");
	assert_string_equal(nodes[1].gpu_model, "T4");
	assert_int_equal(nodes[1].gpu_mem_mib, 15360);
	assert_int_equal(nodes[0].num_gpu, 4);
	assert_null(nodes[2].gpu_model);
	gs_db_nodes_free(nodes, n_nodes);

	assert_int_equal(gs_db_load_pods(db, 1, &pods, &n_pods, err, sizeof(err)), 0);
	assert_int_equal(n_pods, 5);
	assert_int_equal(pods[1].state, GS_POD_DONE);
	assert_int_equal(pods[1].node_idx, 1);
	assert_int_equal(pods[1].n_gpus, 2);
	assert_int_equal(pods[1].gpus[0], 0);
	assert_int_equal(pods[1].gpus[1], 1);
	assert_int_equal(pods[0].t_end_s, -1);
	assert_int_equal(pods[0].gpus[0], 2);
	assert_int_equal(pods[3].n_gpus, 0);
	assert_int_equal(pods[2].node_idx, -1);
	assert_int_equal(pods[2].state, GS_POD_FAILED);
	assert_string_equal(pods[2].name, "t2");
	assert_non_null(pods[2].fail_reason);
	assert_null(pods[0].fail_reason);
	gs_db_pods_free(pods, n_pods);

	assert_int_equal(gs_db_get_run(db, 1, &run, err, sizeof(err)), 0);
	assert_string_equal(run.policy, "binpack");
	assert_string_equal(run.pods_file, "pods.csv");
	assert_int_equal(run.seed, 42);
	assert_int_equal(run.t_end_s, 110);
	assert_int_equal(run.gpu_milli_capacity, 6000);
	assert_near(run.unalloc_gpu_pct, 70.0);
	assert_true(isnan(run.frag_ratio_pct));
	gs_run_row_release(&run);

	assert_int_equal(gs_db_peak_time(db, 1, &t_s, err, sizeof(err)), 0);
	assert_int_equal(t_s, 30);

	assert_int_equal(gs_db_list_runs(db, &list, &n_runs, err, sizeof(err)), 0);
	assert_int_equal(n_runs, 1);
	assert_int_equal(list[0].run_id, 1);
	gs_run_rows_free(list, n_runs);

	assert_int_equal(gs_db_get_run(db, 7, &run, err, sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "no run 7"));
	assert_int_equal(gs_db_load_pods(db, 7, &pods, &n_pods, err, sizeof(err)), GS_ENOENT);
	assert_int_equal(gs_db_load_nodes(db, 7, &nodes, &n_nodes, err, sizeof(err)), GS_ENOENT);

	close_and_remove(db);
	rf_release(&r);
}

/* --- the summary views ------------------------------------------------------ */

/*
 * Time mode: the headline figures come from the events (the fixture's
 * sim.tm), stored in runs and shown by run_summary, equal to what
 * gs_sim_summarize() prints. A run written by schema 1.0 (event_metrics
 * = 0) falls back to the samples, a step function from t = 10 to 110:
 * 500 for 20 s, 2500 for 70 s, 500 for 10 s = 190000 milli-GPU-seconds
 * over 100 s = 1900 milli of 6000, 31.67 %.
 */
static void test_summary_time(void **state)
{
	struct rf_run r;
	struct gs_summary sum;
	struct gs_db *db;

	(void)state;
	rf_build_time(&r);
	db = open_new("sumtime");
	assert_int_equal(write_ok(db, &r), 1);

	assert_string_equal(rows(db, "SELECT run_id, policy, mode, seed, pods_file, n_pods,"
				     " n_placed, n_failed, failed_pct FROM run_summary"),
			    "1|binpack|time|42|pods.csv|5|3|1|20.0");
	assert_near(real(db, "SELECT mean_wait_s FROM run_summary"), 10.0 / 3);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), 30.0);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary"), 70.0);
	assert_string_equal(rows(db, "SELECT frag_ratio_pct, frag_amount_pct, frag_avg_pct"
				     " FROM run_summary"),
			    "NULL|NULL|NULL");
	assert_near(real(db, "SELECT peak_gpu_alloc_pct FROM run_summary"), 100.0 * 2500 / 6000);
	assert_string_equal(rows(db, "SELECT peak_pending FROM run_summary"), "2");
	assert_string_equal(rows(db, "SELECT wait_p50_s, wait_p90_s, wait_p99_s, wait_max_s,"
				     " completion_mean_s, completion_p50_s, completion_p90_s,"
				     " completion_p99_s, completion_max_s, slowdown_mean,"
				     " slowdown_p99, pending_avg, makespan_s, gpu_alloc_busy_pct,"
				     " n_timed_out, offered_load_pct, load_pct FROM run_summary"),
			    "0|10|10|10|45.0|10|80|80|80|4.5|8.0|0.4|100|35.0|1|55.5|NULL");
	assert_string_equal(rows(db, "SELECT event_metrics, t_first_arrival_s, t_last_arrival_s,"
				     " busy_s, n_completed, pending_peak, gpu_alloc_arrival_pct"
				     " FROM runs"),
			    "1|10|70|90|2|2|30.0");

	/* The terminal summary of gpusim replay says the same. */
	gs_sim_summarize(&r.sim, &sum);
	assert_near(sum.peak_gpu_alloc_pct, 100.0 * 2500 / 6000);
	assert_int_equal(sum.peak_pending, 2);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), sum.gpu_alloc_pct);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary"), sum.unalloc_gpu_pct);
	assert_near(real(db, "SELECT mean_wait_s FROM run_summary"), sum.mean_wait_s);
	assert_near(sum.tm.wait_p99_s, 10);

	/* A run of schema 1.0: the samples' time-weighted mean, peaks of the samples. */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET event_metrics = 0",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), 100.0 * 1900 / 6000);
	assert_near(real(db, "SELECT peak_gpu_alloc_pct FROM run_summary"), 100.0 * 2500 / 6000);
	assert_string_equal(rows(db, "SELECT peak_pending FROM run_summary"), "23");

	/* All samples at one time: the last sample's allocation. */
	r.sim.n_samples = 1;
	r.sim.samples[0].t_s = 110;
	r.sim.samples[0].gpu_alloc_milli = 1500;
	assert_int_equal(write_ok(db, &r), 2);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET event_metrics = 0",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary WHERE run_id = 2"), 25.0);

	close_and_remove(db);
	rf_release(&r);
}

/*
 * Inflate mode: the arrived = 100 % bucket holds allocations 4500, 4800,
 * 5100 of 6000 (75, 80, 85 %: mean 80, unallocated 20), fragmentation
 * 300/1500, 600/1200, 900/900 of the idle share (20, 50, 100 %: mean
 * 56.67) and 5, 10, 15 % of capacity (mean 10).
 */
static void test_summary_inflate(void **state)
{
	struct rf_run r;
	struct gs_summary sum;
	struct gs_db *db;

	(void)state;
	rf_build_inflate(&r);
	db = open_new("suminflate");
	r.info.arrival_samples = true;
	assert_int_equal(write_ok(db, &r), 1);

	assert_string_equal(rows(db, "SELECT arrived_pct FROM samples ORDER BY sample_idx"),
			    "99\n100\n100\n100\n101");
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), 80.0);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary"), 20.0);
	assert_near(real(db, "SELECT frag_ratio_pct FROM run_summary"), (20.0 + 50 + 100) / 3);
	assert_near(real(db, "SELECT frag_amount_pct FROM run_summary"), 10.0);
	assert_near(real(db, "SELECT failed_pct FROM run_summary"), 50.0);

	/* The buckets the figures plot; no idle GPU means no fragment (ratio 0). */
	assert_string_equal(rows(db, "SELECT arrived_pct, n_samples FROM arrived_buckets"
				     " WHERE run_id = 1 ORDER BY arrived_pct"),
			    "99|1\n100|3\n101|1");
	assert_near(real(db, "SELECT frag_ratio_pct FROM arrived_buckets WHERE arrived_pct = 99"),
		    12.5);
	assert_near(real(db, "SELECT frag_ratio_pct FROM arrived_buckets WHERE arrived_pct = 101"),
		    0.0);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM arrived_buckets"
			     " WHERE arrived_pct = 101"),
		    0.0);
	assert_near(real(db, "SELECT idle_gpu_milli FROM sample_metrics WHERE sample_idx = 0"),
		    1600);

	gs_sim_summarize(&r.sim, &sum);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary"), sum.unalloc_gpu_pct);
	assert_near(real(db, "SELECT frag_ratio_pct FROM run_summary"), sum.frag_ratio_pct);
	assert_near(real(db, "SELECT frag_amount_pct FROM run_summary"), sum.frag_amount_pct);

	/*
	 * Without --arrival-samples: only the first sample at the peak
	 * allocation, which is the last one too (sample 4), is stored, yet the
	 * summary and the buckets are the same to the last bit.
	 */
	r.info.arrival_samples = false;
	assert_int_equal(write_ok(db, &r), 2);
	assert_string_equal(rows(db, "SELECT run_id, samples_stored FROM runs"), "1|1\n2|0");
	assert_string_equal(rows(db, "SELECT sample_idx, arrived_pct FROM samples WHERE run_id = 2"),
			    "4|101");
	assert_string_equal(rows(db, "SELECT printf('%!.17g %!.17g %!.17g %!.17g %!.17g', gpu_alloc_pct,"
				     " unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct,"
				     " peak_gpu_alloc_pct) FROM run_summary WHERE run_id = 2"),
			    rows(db, "SELECT printf('%!.17g %!.17g %!.17g %!.17g %!.17g', gpu_alloc_pct,"
				     " unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct,"
				     " peak_gpu_alloc_pct) FROM run_summary WHERE run_id = 1"));
	assert_string_equal(rows(db, "SELECT arrived_pct, n_samples, printf('%!.17g %!.17g %!.17g',"
				     " gpu_alloc_pct, frag_ratio_pct, frag_amount_pct)"
				     " FROM arrived_buckets WHERE run_id = 2 ORDER BY arrived_pct"),
			    rows(db, "SELECT arrived_pct, n_samples, printf('%!.17g %!.17g %!.17g',"
				     " gpu_alloc_pct, frag_ratio_pct, frag_amount_pct)"
				     " FROM arrived_buckets WHERE run_id = 1 ORDER BY arrived_pct"));

	close_and_remove(db);
	rf_release(&r);
}

/*
 * The 100 % bucket left empty: the inflate fixture's samples moved so that
 * arrived workload goes 98, 99, 99, 101, 101, 102 % (llround; 5969 of 6000
 * is 99.48 %, 6031 is 100.52 %, 6090 is 101.5 and rounds up). The samples
 * of 99..101 % stand in for it:
 *   allocated     4500 4800 5400 5700 of 6000 = 75, 80, 90, 95 %: mean 85
 *   idle          1500 1200  600  300
 *   frag milli     300  600  300    0
 *   frag / idle     20   50   50    0 %: mean 30
 *   frag / cap       5   10    5    0 %: mean 5
 * The 98 % and 102 % samples (4200 and 6000 allocated) must not count.
 */
static void test_summary_inflate_empty_100(void **state)
{
	static const int64_t arrived[] = { 5880, 5940, 5969, 6031, 6089, 6090 };
	static const int64_t alloc[] = { 4200, 4500, 4800, 5400, 5700, 6000 };
	static const double frag[] = { 100, 300, 600, 300, 0, 0 };
	struct rf_run r;
	struct gs_summary sum;
	struct gs_sample *grown;
	struct gs_db *db;
	size_t i;

	(void)state;
	rf_build_inflate(&r);
	grown = gs_realloc_n(r.sim.samples, 6, sizeof(*grown));
	assert_non_null(grown);
	r.sim.samples = grown;
	r.sim.n_samples = r.sim.cap_samples = 6;
	for (i = 0; i < 6; i++) {
		memset(&r.sim.samples[i], 0, sizeof(r.sim.samples[i]));
		r.sim.samples[i].t_s = (int64_t)i;
		r.sim.samples[i].arrived_gpu_milli = arrived[i];
		r.sim.samples[i].gpu_alloc_milli = alloc[i];
		r.sim.samples[i].frag_milli = frag[i];
	}
	r.sim.stats.t_end_s = 5;
	db = open_new("empty100");
	r.info.arrival_samples = true;
	assert_int_equal(write_ok(db, &r), 1);
	assert_string_equal(rows(db, "SELECT arrived_pct FROM samples ORDER BY sample_idx"),
			    "98\n99\n99\n101\n101\n102");

	gs_sim_summarize(&r.sim, &sum);
	assert_near(sum.gpu_alloc_pct, 85.0);
	assert_near(sum.unalloc_gpu_pct, 15.0);
	assert_near(sum.frag_ratio_pct, 30.0);
	assert_near(sum.frag_amount_pct, 5.0);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), 85.0);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary"), 15.0);
	assert_near(real(db, "SELECT frag_ratio_pct FROM run_summary"), 30.0);
	assert_near(real(db, "SELECT frag_amount_pct FROM run_summary"), 5.0);
	/* As the 1.1 view computed it from the samples, in its index order, to the bit. */
	assert_string_equal(rows(db, "SELECT printf('%!.17g', avg(gpu_alloc_pct)) FROM sample_metrics"
				     " WHERE run_id = 1 AND arrived_pct BETWEEN 99 AND 101"),
			    rows(db, "SELECT printf('%!.17g', gpu_alloc_pct) FROM run_summary"));
	assert_string_equal(rows(db, "SELECT printf('%!.17g', avg(frag_ratio_pct)) FROM sample_metrics"
				     " WHERE run_id = 1 AND arrived_pct BETWEEN 99 AND 101"),
			    rows(db, "SELECT printf('%!.17g', frag_ratio_pct) FROM run_summary"));
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "DELETE FROM runs WHERE run_id = 1", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	r.info.arrival_samples = false;
	assert_int_equal(write_ok(db, &r), 1);
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary"), 85.0);
	assert_near(real(db, "SELECT frag_ratio_pct FROM run_summary"), 30.0);
	/* The largest allocation (6000) is the last sample too: one sample stored. */
	assert_string_equal(rows(db, "SELECT sample_idx FROM samples WHERE run_id = 1"), "5");
	r.info.arrival_samples = true;

	/* Nothing in 99..101 either: undefined, NAN in C and NULL in SQL. */
	r.sim.samples[1] = r.sim.samples[0];
	r.sim.samples[2] = r.sim.samples[0];
	r.sim.samples[3] = r.sim.samples[5];
	r.sim.samples[4] = r.sim.samples[5];
	assert_int_equal(write_ok(db, &r), 2);
	gs_sim_summarize(&r.sim, &sum);
	assert_true(isnan(sum.gpu_alloc_pct));
	assert_true(isnan(sum.unalloc_gpu_pct));
	assert_true(isnan(sum.frag_ratio_pct));
	assert_true(isnan(sum.frag_amount_pct));
	assert_string_equal(rows(db, "SELECT gpu_alloc_pct, unalloc_gpu_pct, frag_ratio_pct,"
				     " frag_amount_pct FROM run_summary WHERE run_id = 2"),
			    "NULL|NULL|NULL|NULL");

	/* Time mode has no bucket statistic: its fragmentation figures stay NULL. */
	r.sim.opts.mode = GS_MODE_TIME;
	r.info.mode = "time";
	r.sim.samples[2].arrived_gpu_milli = 6000;
	r.sim.tm.valid = true;
	r.sim.tm.gpu_alloc_arrival_pct = 12.5;
	assert_int_equal(write_ok(db, &r), 3);
	gs_sim_summarize(&r.sim, &sum);
	assert_true(isnan(sum.frag_ratio_pct));
	assert_string_equal(rows(db, "SELECT frag_ratio_pct, frag_amount_pct FROM run_summary"
				     " WHERE run_id = 3"),
			    "NULL|NULL");
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary WHERE run_id = 3"),
		    sum.gpu_alloc_pct);

	close_and_remove(db);
	rf_release(&r);
}

/* --- runs without pod rows (--no-pods) ------------------------------------------ */

/*
 * The time fixture written twice, with and without its pod rows: the second
 * has none, yet its runs row, samples and every run_summary figure (mean
 * wait 10 s over 3 placed pods included) are those of the first.
 */
static void test_no_pods(void **state)
{
	static const char summary_sql[] =
		"SELECT policy, mode, seed, pods_file, n_pods, n_placed, n_failed, failed_pct,"
		" mean_wait_s, gpu_alloc_pct, unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct,"
		" params_json, wall_ms FROM run_summary WHERE run_id = ";
	static const char runs_sql[] =
		"SELECT n_nodes, gpu_count, n_pods, n_placed, n_failed, n_done, n_pending_end,"
		" n_events, n_retries, t_end_s, wait_total_s FROM runs WHERE run_id = ";
	struct rf_run r;
	struct gs_summary sum;
	struct gs_run_row run;
	struct gs_db *db;
	char sql[512], with[2048];
	char err[512];
	int64_t id = -1;

	(void)state;
	rf_build_time(&r);
	db = open_new("nopods");
	assert_int_equal(write_ok(db, &r), 1);
	r.info.no_pods = true;
	assert_int_equal(write_ok(db, &r), 2);

	assert_string_equal(rows(db, "SELECT run_id, count(*) FROM pods GROUP BY run_id"), "1|5");
	assert_string_equal(rows(db, "SELECT run_id, pods_stored FROM runs ORDER BY run_id"),
			    "1|1\n2|0");
	assert_string_equal(rows(db, "SELECT count(*) FROM samples WHERE run_id = 2"), "4");
	assert_string_equal(rows(db, "SELECT count(*) FROM run_nodes WHERE run_id = 2"), "3");

	snprintf(sql, sizeof(sql), "%s1", runs_sql);
	snprintf(with, sizeof(with), "%s", rows(db, sql));
	assert_string_equal(with, "3|6|5|3|1|2|1|9|4|110|10");
	snprintf(sql, sizeof(sql), "%s2", runs_sql);
	assert_string_equal(rows(db, sql), with);

	snprintf(sql, sizeof(sql), "%s1", summary_sql);
	snprintf(with, sizeof(with), "%s", rows(db, sql));
	snprintf(sql, sizeof(sql), "%s2", summary_sql);
	assert_string_equal(rows(db, sql), with);
	assert_near(real(db, "SELECT mean_wait_s FROM run_summary WHERE run_id = 2"), 10.0 / 3);
	gs_sim_summarize(&r.sim, &sum);
	assert_near(real(db, "SELECT mean_wait_s FROM run_summary WHERE run_id = 2"),
		    sum.mean_wait_s);
	assert_near(real(db, "SELECT unalloc_gpu_pct FROM run_summary WHERE run_id = 2"),
		    sum.unalloc_gpu_pct);

	/* The readers say which run has no pod rows; loading them gives none. */
	assert_int_equal(gs_db_get_run(db, 1, &run, err, sizeof(err)), 0);
	assert_true(run.pods_stored);
	gs_run_row_release(&run);
	assert_int_equal(gs_db_get_run(db, 2, &run, err, sizeof(err)), 0);
	assert_false(run.pods_stored);
	assert_int_equal(run.n_placed, 3);
	assert_near(run.mean_wait_s, 10.0 / 3);
	gs_run_row_release(&run);

	/* Not part of the resume key: the newest run with the key, stored either way. */
	assert_int_equal(gs_db_find_run(db, "binpack", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					&id),
			 0);
	assert_int_equal(id, 2);

	/* Nothing placed: no mean wait, as gs_sim_summarize() says. */
	r.sim.out[0].state = r.sim.out[1].state = r.sim.out[3].state = GS_POD_FAILED;
	r.sim.stats.wait_total_s = 0;
	assert_int_equal(write_ok(db, &r), 3);
	assert_string_equal(rows(db, "SELECT s.n_placed, r.wait_total_s, s.mean_wait_s"
				     " FROM run_summary s JOIN runs r USING (run_id)"
				     " WHERE run_id = 3"),
			    "0|0|NULL");
	gs_sim_summarize(&r.sim, &sum);
	assert_true(isnan(sum.mean_wait_s));

	close_and_remove(db);
	rf_release(&r);
}

/* --- atomic writes ------------------------------------------------------------ */

/* After a failed write the counts are those of the one good run, and writing works on. */
static void expect_only_first_run(struct gs_db *db)
{
	assert_string_equal(rows(db, counts_sql), "1|3|5|4");
	assert_string_equal(rows(db, "SELECT run_id, status FROM runs"), "1|complete");
}

static void test_failed_write_leaves_no_trace(void **state)
{
	static const int gpu0[] = { 0 };
	struct rf_run r;
	struct gs_db *db;
	char err[512] = "", want[700];
	int64_t id = 12345;
	int rc;

	(void)state;
	rf_build_time(&r);
	db = open_new("atomic");
	assert_int_equal(write_ok(db, &r), 1);

	/*
	 * A placement on a node the run does not have: the runs row, all
	 * nodes and pod 0 are in when the foreign key stops pod 1.
	 */
	r.sim.out[1].pl = tu_pl(7, 1, gpu0);
	rc = gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err));
	assert_int_equal(rc, GS_EDB);
	assert_int_equal(id, 12345);
	snprintf(want, sizeof(want), "%s: cannot write pod 1: FOREIGN KEY constraint failed",
		 gs_db_path(db));
	assert_string_equal(err, want);
	expect_only_first_run(db);
	r.sim.out[1].pl.node = 1;

	/* An impossible GPU count, caught mid-transaction by the writer itself. */
	r.sim.out[3].pl.num_gpu = GS_MAX_GPUS + 1;
	rc = gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err));
	assert_int_equal(rc, GS_EINVAL);
	assert_non_null(strstr(err, "pod 3 has an impossible placement"));
	expect_only_first_run(db);
	r.sim.out[3].pl.num_gpu = 0;

	/* A failure at the very last sample: everything before it goes too. */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db),
				      "CREATE TEMP TRIGGER inject AFTER INSERT ON samples"
				      " WHEN NEW.sample_idx = 3"
				      " BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	rc = gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err));
	assert_int_equal(rc, GS_EDB);
	snprintf(want, sizeof(want), "%s: cannot write sample 3: injected failure",
		 gs_db_path(db));
	assert_string_equal(err, want);
	assert_int_equal(id, 12345);
	expect_only_first_run(db);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "DROP TRIGGER inject", NULL, NULL, NULL),
			 SQLITE_OK);

	/* Missing fields are refused before anything is written. */
	r.info.policy = NULL;
	rc = gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err));
	assert_int_equal(rc, GS_EINVAL);
	snprintf(want, sizeof(want), "%s: run not written: no policy given", gs_db_path(db));
	assert_string_equal(err, want);
	r.info.policy = "binpack";
	r.info.params_json = "{not json";
	assert_int_equal(gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "params_json is not valid JSON"));
	r.info.params_json = RF_PARAMS;
	r.info.seed = (uint64_t)INT64_MAX + 1;
	assert_int_equal(gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err)), GS_EINVAL);
	r.info.seed = 42;
	expect_only_first_run(db);

	/* The prepared statements survive the failures. */
	assert_int_equal(write_ok(db, &r), 2);
	assert_string_equal(rows(db, counts_sql), "2|6|10|8");

	/* Deleting a run removes its rows (foreign keys with ON DELETE CASCADE). */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "DELETE FROM runs WHERE run_id = 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_string_equal(rows(db, counts_sql), "1|3|5|4");

	close_and_remove(db);
	rf_release(&r);
}

/*
 * 70 pods and 70 samples: two full multi-row INSERTs and six single rows
 * each. Every row must land with its own values, and a failure inside a
 * batch must still roll back the whole run.
 */
/*
 * ":memory:" is SQLite's in-memory database: it works, and no file of
 * that name appears (the creation beside the path made one).
 */
static void test_memory_db(void **state)
{
	struct gs_db *db;
	struct rf_run r;
	char err[512] = "", cwd[4096];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(gs_test_tmpdir_make("memdb"), 0);
	assert_int_equal(chdir(gs_test_tmpdir()), 0);
	assert_int_equal(gs_db_open(":memory:", &db, err, sizeof(err)), 0);
	rf_build_time(&r);
	assert_int_equal(write_ok(db, &r), 1);
	assert_string_equal(rows(db, "SELECT count(*) FROM runs"), "1");
	rf_release(&r);
	gs_db_close(db);
	assert_int_equal(access(":memory:", F_OK), -1);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(gs_test_tmpdir_remove(), 0);
}

/*
 * The checksum covers schema 1.9's columns (version 2): a changed idle
 * share or group count is damage. A run checksummed with version 1 (the
 * runs of schema 1.7 and 1.8) is still checked with version 1's columns.
 */
static void test_digest_versions(void **state)
{
	char err[512] = "", v1[GS_DB_DIGEST_LEN], sql[256];
	struct gs_db *db = open_new("digest");
	struct rf_run r;

	(void)state;
	rf_build_time(&r);
	assert_int_equal(write_ok(db, &r), 1);
	rf_release(&r);
	assert_string_equal(rows(db, "SELECT substr(rows_checksum, 1, 2) FROM runs"), "2:");
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), 0);

	/* A 1.9 column changed: found. */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET n_groups = n_groups + 1",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "t.db: run 1 is damaged"));
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET n_groups = n_groups - 1;"
				      " UPDATE samples SET idle_frac_milli = 7 WHERE sample_idx = 0",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(gs_db_sqlite(db)), 1);
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), GS_EINVAL);

	/* A version 1 checksum is held to version 1's columns only. */
	assert_int_equal(gs_db_digest_run(db, "main", 1, 1, v1, err, sizeof(err)), 0);
	assert_true(v1[0] == '1' && v1[1] == ':');
	snprintf(sql, sizeof(sql), "UPDATE runs SET rows_checksum = '%s'", v1);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), 0);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE run_nodes SET cpu_milli = cpu_milli"
				      " + 1 WHERE node_idx = 0", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(gs_db_sqlite(db)), 1);
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), GS_EINVAL);

	/* A version this build does not know is refused as such. */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET rows_checksum ="
				      " '9:' || substr(rows_checksum, 3)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_db_digest_check(db, "main", "t.db", 1, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "a kind this gpusim does not know"));
	close_and_remove(db);
}

static void test_many_rows(void **state)
{
	enum { N = 70 };
	struct rf_run r;
	struct gs_db *db;
	char err[512], want[700], name[16];
	int64_t id = -1;
	size_t i;

	(void)state;
	rf_build_time(&r);
	free(r.sim.pods);
	free(r.sim.out);
	free(r.sim.samples);
	r.sim.pods = calloc(N, sizeof(*r.sim.pods));
	r.sim.out = calloc(N, sizeof(*r.sim.out));
	r.sim.samples = calloc(N, sizeof(*r.sim.samples));
	assert_non_null(r.sim.pods);
	assert_non_null(r.sim.out);
	assert_non_null(r.sim.samples);
	gs_trace_release(&r.trace);
	gs_trace_init(&r.trace);
	for (i = 0; i < N; i++) {
		struct gs_pod p = { .cpu_milli = (int32_t)(100 + i), .mem_mib = (int64_t)i };

		snprintf(name, sizeof(name), "p%zu", i);
		assert_int_equal(gs_trace_append(&r.trace, name, &p), 0);
		r.sim.pods[i] = p;
		r.sim.out[i].src = (int32_t)i;
		r.sim.out[i].state = GS_POD_DONE;
		r.sim.out[i].pl.node = 2;
		r.sim.out[i].t_arrive_s = (int64_t)i;
		r.sim.out[i].t_start_s = (int64_t)(2 * i);
		r.sim.out[i].t_end_s = (int64_t)(3 * i + 1);
		r.sim.samples[i].t_s = (int64_t)i;
		r.sim.samples[i].event = (int64_t)(5 * i);
		r.sim.samples[i].gpu_alloc_milli = (int64_t)(i % 7);
		r.sim.samples[i].frag_milli = NAN;
	}
	r.sim.n_pods = r.sim.n_samples = r.sim.cap_samples = N;
	db = open_new("many");
	assert_int_equal(write_ok(db, &r), 1);
	assert_string_equal(rows(db, "SELECT count(*), sum(pod_idx), sum(src_idx),"
				     " sum(cpu_milli), sum(memory_mib), sum(wait_s), sum(t_end_s),"
				     " count(DISTINCT name) FROM pods"),
			    "70|2415|2415|9415|2415|2415|7315|70");
	assert_string_equal(rows(db, "SELECT pod_idx, name, cpu_milli, t_start_s FROM pods"
				     " WHERE pod_idx IN (0, 31, 32, 63, 64, 69) ORDER BY pod_idx"),
			    "0|p0|100|0\n31|p31|131|62\n32|p32|132|64\n63|p63|163|126\n"
			    "64|p64|164|128\n69|p69|169|138");
	assert_string_equal(rows(db, "SELECT count(*), sum(sample_idx), sum(t_s), sum(event),"
				     " sum(gpu_alloc_milli) FROM samples"),
			    "70|2415|2415|12075|210");
	assert_string_equal(rows(db, "SELECT count(*) FROM samples"
				     " WHERE sample_idx != t_s OR event != 5 * t_s"),
			    "0");

	/* Pod 40 sits in the second batch of 32. */
	r.sim.out[40].pl.node = 9;
	assert_int_equal(gs_db_write_run(db, &r.info, &r.sim, &id, err, sizeof(err)), GS_EDB);
	snprintf(want, sizeof(want), "%s: cannot write pods 32-63: FOREIGN KEY constraint failed",
		 gs_db_path(db));
	assert_string_equal(err, want);
	assert_string_equal(rows(db, counts_sql), "1|3|70|70");
	close_and_remove(db);
	rf_release(&r);
}

/* A run row left 'writing' (a build that committed too early) never counts. */
static void test_incomplete_run_invisible(void **state)
{
	struct rf_run r;
	struct gs_db *db;
	struct gs_run_row row, *list;
	size_t n;
	char err[512];
	int64_t id = -1;

	(void)state;
	rf_build_time(&r);
	db = open_new("incomplete");
	assert_int_equal(write_ok(db, &r), 1);
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET status = 'writing'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(gs_db_find_run(db, "binpack", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					&id),
			 GS_ENOENT);
	assert_string_equal(rows(db, "SELECT count(*) FROM run_summary"), "0");
	assert_string_equal(rows(db, "SELECT count(*) FROM sample_metrics"), "0");
	assert_int_equal(gs_db_get_run(db, 1, &row, err, sizeof(err)), GS_ENOENT);
	assert_int_equal(gs_db_list_runs(db, &list, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	gs_run_rows_free(list, n);
	/* Only the two states exist. */
	assert_int_not_equal(sqlite3_exec(gs_db_sqlite(db), "UPDATE runs SET status = 'done'",
					  NULL, NULL, NULL),
			     SQLITE_OK);
	close_and_remove(db);
	rf_release(&r);
}

/* --- schema version ------------------------------------------------------------ */

static void test_new_database(void **state)
{
	struct gs_db *db;
	char want[64];

	(void)state;
	db = open_new("fresh");
	snprintf(want, sizeof(want), "%d", GS_DB_SCHEMA_VERSION);
	assert_string_equal(rows(db, "PRAGMA user_version"), want);
	assert_string_equal(rows(db, "PRAGMA journal_mode"), "wal");
	assert_string_equal(rows(db, "PRAGMA foreign_keys"), "1");
	assert_string_equal(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
				     " ORDER BY name"),
			    "arrived_stats\nbench_results\nbench_runs\nbench_slowdown\nbound_points\n"
			    "bounds\ndecision_runs\ndecisions\npods\nrun_claims\nrun_defrag\nrun_nodes\n"
			    "runs\nsamples\nsweep_plans");
	assert_string_equal(rows(db, "SELECT name FROM sqlite_master WHERE type = 'view'"
				     " ORDER BY name"),
			    "arrived_buckets\nbound_gap\nrun_summary\nsample_metrics");
	close_and_remove(db);
}

static void test_newer_major_refused(void **state)
{
	const char *path = rf_temp_db("newer");
	struct gs_db *db = NULL;
	char err[512], want[700];
	int rc;

	(void)state;
	raw_exec(path, "CREATE TABLE runs (x); PRAGMA user_version = 2003");
	snprintf(want, sizeof(want),
		 "%s: database schema version 2.3 is newer than this gpusim supports (%d.%d); "
		 "use a newer gpusim or another database file",
		 path, GS_DB_SCHEMA_MAJOR, GS_DB_SCHEMA_MINOR);
	rc = gs_db_open(path, &db, err, sizeof(err));
	assert_int_equal(rc, GS_ESCHEMA);
	assert_null(db);
	assert_string_equal(err, want);
	rc = gs_db_open_existing(path, &db, err, sizeof(err));
	assert_int_equal(rc, GS_ESCHEMA);
	assert_string_equal(err, want);

	/* The refused file was not touched: still in rollback-journal mode. */
	{
		sqlite3 *c;
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(c, "PRAGMA journal_mode", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "delete");
		sqlite3_finalize(st);
		sqlite3_close(c);
	}
	unlink(path);
}

/* A newer minor of our major only added things: used as it is, never downgraded. */
static void test_newer_minor_accepted(void **state)
{
	struct rf_run r;
	struct gs_db *db;
	char path[512], err[512], sql[64], want[16];

	(void)state;
	db = open_new("minor");
	snprintf(path, sizeof(path), "%s", gs_db_path(db));
	gs_db_close(db);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", GS_DB_SCHEMA_VERSION + 7);
	raw_exec(path, sql);
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	rf_build_time(&r);
	assert_int_equal(write_ok(db, &r), 1);
	snprintf(want, sizeof(want), "%d", GS_DB_SCHEMA_VERSION + 7);
	assert_string_equal(rows(db, "PRAGMA user_version"), want);
	rf_release(&r);
	close_and_remove(db);
}

/* A whole file as a string (caller frees). */
/*
 * A database written by gpusim with schema 1.0 (tests/data/schema-1.0.sql,
 * a dump of two time-mode runs and one inflate-mode run of the three-pod
 * trace of test_replay) is migrated to the current schema when opened: runs gains the new
 * columns exactly as a new database has them, the old runs keep their 1.0
 * figures (computed from the samples), and new runs get the event figures.
 */
static void test_migrate_1_0(void **state)
{
	struct rf_run r;
	struct gs_db *db, *fresh;
	char path[512], err[512] = "", want[4096];
	char *dump = gs_test_read(GS_SOURCE_DIR "/tests/data/schema-1.0.sql");

	(void)state;
	snprintf(path, sizeof(path), "%s", rf_temp_db("migrate"));
	raw_exec(path, dump);
	free(dump);
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%d", GS_DB_SCHEMA_VERSION);
	assert_string_equal(rows(db, "PRAGMA user_version"), want);

	/* The same columns, in the same order, as a database created by 1.1. */
	fresh = open_new("migrate-fresh");
	snprintf(want, sizeof(want), "%s",
		 rows(fresh, "SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info('runs')"));
	assert_string_equal(rows(db, "SELECT name, type, \"notnull\", dflt_value"
				     " FROM pragma_table_info('runs')"),
			    want);
	snprintf(want, sizeof(want), "%s",
		 rows(fresh, "SELECT name FROM pragma_table_info('run_summary')"));
	assert_string_equal(rows(db, "SELECT name FROM pragma_table_info('run_summary')"), want);
	/* 1.9: the samples' idle breakdown and the view that shows it. */
	snprintf(want, sizeof(want), "%s",
		 rows(fresh, "SELECT name, type FROM pragma_table_info('samples')"));
	assert_string_equal(rows(db, "SELECT name, type FROM pragma_table_info('samples')"), want);
	snprintf(want, sizeof(want), "%s",
		 rows(fresh, "SELECT name FROM pragma_table_info('sample_metrics')"));
	assert_string_equal(rows(db, "SELECT name FROM pragma_table_info('sample_metrics')"), want);
	/* Every table and view of a new database, those of 1.6 (bounds, run_defrag) too. */
	snprintf(want, sizeof(want), "%s",
		 rows(fresh, "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view')"
			     " ORDER BY name"));
	assert_string_equal(rows(db, "SELECT type, name FROM sqlite_master"
				     " WHERE type IN ('table', 'view') ORDER BY name"), want);
	assert_non_null(strstr(want, "bound_gap"));
	assert_non_null(strstr(want, "run_defrag"));
	close_and_remove(fresh);
	/* The old runs had no pod groups and no breakdown. */
	assert_string_equal(rows(db, "SELECT n_groups, n_groups_placed, group_wait_mean_s,"
				     " idle_frac_pct FROM run_summary WHERE run_id = 1"),
			    "0|0|NULL|NULL");
	assert_string_equal(rows(db, "SELECT count(*), count(idle_frac_pct) FROM sample_metrics"
				     " WHERE run_id = 1"),
			    rows(db, "SELECT count(*) || '|0' FROM samples WHERE run_id = 1"));

	/*
	 * The old runs: no event figures. Run 1 (binpack, time) keeps the 1.0
	 * headline, the samples' time-weighted allocation over [0, 150]:
	 * (1000 x 100 + 1000 x 10 + 500 x 40) / 150 / 1000 = 86.67 %, its
	 * sampled peaks (100 %, 2 pending) and mean wait (170 / 3 s).
	 */
	assert_string_equal(rows(db, "SELECT run_id, mode, event_metrics, wait_p99_s, makespan_s"
				     " FROM runs ORDER BY run_id"),
			    "1|time|0|NULL|NULL\n2|time|0|NULL|NULL\n3|inflate|0|NULL|NULL");
	assert_near(real(db, "SELECT gpu_alloc_pct FROM run_summary WHERE run_id = 1"),
		    100.0 * 130000 / 150 / 1000);
	assert_near(real(db, "SELECT mean_wait_s FROM run_summary WHERE run_id = 1"), 170.0 / 3);
	assert_string_equal(rows(db, "SELECT peak_gpu_alloc_pct, peak_pending, wait_p99_s"
				     " FROM run_summary WHERE run_id = 1"),
			    "100.0|2|NULL");
	/* Inflate mode is as before: run 3's one pod put 50 % of the GPU at arrived 50 %. */
	assert_string_equal(rows(db, "SELECT gpu_alloc_pct FROM run_summary WHERE run_id = 3"),
			    "NULL");
	/*
	 * 1.2: the old runs' buckets were computed from their samples and are
	 * what the 1.1 view said, to the bit; run 3's only bucket is 50 %.
	 */
	assert_string_equal(rows(db, "SELECT run_id, arrived_pct, n_samples,"
				     " printf('%!.17g %!.17g', gpu_alloc_pct, frag_ratio_pct)"
				     " FROM arrived_buckets ORDER BY run_id, arrived_pct"),
			    rows(db, "SELECT run_id, arrived_pct, count(*),"
				     " printf('%!.17g %!.17g', avg(gpu_alloc_pct), avg(frag_ratio_pct))"
				     " FROM sample_metrics WHERE arrived_pct IS NOT NULL"
				     " GROUP BY run_id, arrived_pct ORDER BY run_id, arrived_pct"));
	assert_string_equal(rows(db, "SELECT arrived_pct, n_samples, gpu_alloc_pct"
				     " FROM arrived_buckets WHERE run_id = 3"),
			    "50|1|50.0");
	assert_string_equal(rows(db, "SELECT samples_stored, at100_n FROM runs WHERE run_id = 3"),
			    "1|0");

	/* A new run next to them has its event figures. */
	rf_build_time(&r);
	assert_int_equal(write_ok(db, &r), 4);
	assert_string_equal(rows(db, "SELECT r.event_metrics, s.wait_p99_s, s.gpu_alloc_pct"
				     " FROM run_summary s JOIN runs r USING (run_id) WHERE run_id = 4"),
			    "1|10|30.0");
	rf_release(&r);

	/* 1.8: the decision tables of gpusim advise are there, empty. */
	assert_string_equal(rows(db, "SELECT count(*) FROM decisions"), "0");
	assert_string_equal(rows(db, "SELECT count(*) FROM decision_runs"), "0");

	/* Opening it again changes nothing. */
	gs_db_close(db);
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	assert_string_equal(rows(db, "SELECT count(*) FROM run_summary"), "4");
	close_and_remove(db);
}

/*
 * The decision record (store/decision.h): a verdict and the runs it rests
 * on in one transaction; a run that is not there, or a role that is not
 * one, stores nothing.
 */
static void test_decision_record(void **state)
{
	struct gs_decision_record rec = {
		.nodes_path = "n.csv", .nodes_sha256 = RF_NODES_SHA, .objective = "completion",
		.constraints = "p99-slowdown <= 10", .targets = "", .baseline = "exclusive + binpack",
		.alpha = 0.05, .conf = 0.95, .verdict = "text", .verdict_json = "{}",
	};
	struct gs_decision_run runs[3] = {
		{ 1, "candidate", "p.csv", 80, "binpack", "exclusive", 42, -1 },
		{ 1, "candidate", "p.csv", 80, "binpack", "exclusive", 42, -1 },
		{ 1, "capacity", "p.csv", 80, "binpack", "exclusive", 42, 13 },
	};
	struct rf_run r;
	struct gs_db *db;
	char err[512];
	int64_t id = 0;

	(void)state;
	db = open_new("decision");
	rf_build_time(&r);
	assert_int_equal(write_ok(db, &r), 1);
	rf_release(&r);
	/* A row given twice is kept once. */
	assert_int_equal(gs_decision_add(db, &rec, runs, 3, &id, err, sizeof(err)), 0);
	assert_int_equal(id, 1);
	assert_string_equal(rows(db, "SELECT role, run_id, load_pct, gpu_nodes FROM decision_runs"
				     " ORDER BY role"),
			    "candidate|1|80.0|NULL\ncapacity|1|80.0|13");
	assert_string_equal(rows(db, "SELECT objective, baseline, alpha FROM decisions"),
			    "completion|exclusive + binpack|0.05");
	runs[1].run_id = 99;
	assert_int_equal(gs_decision_add(db, &rec, runs, 3, &id, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "run 99 of the decision is not a complete run"));
	runs[1].run_id = 1;
	runs[2].role = "winner";
	assert_int_equal(gs_decision_add(db, &rec, runs, 3, &id, err, sizeof(err)), GS_EINVAL);
	assert_string_equal(rows(db, "SELECT count(*) FROM decisions"), "1");
	/* Deleting a run deletes its rows of the record. */
	assert_int_equal(sqlite3_exec(gs_db_sqlite(db), "DELETE FROM runs WHERE run_id = 1", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	assert_string_equal(rows(db, "SELECT count(*) FROM decision_runs"), "0");
	close_and_remove(db);
}

static void test_bad_files(void **state)
{
	struct gs_db *db = NULL;
	char err[512], want[700], dir[600];
	struct stat sb;
	const char *path;
	FILE *f;

	(void)state;
	/* Not SQLite at all: a foreign file is the user's input (GS_ESCHEMA, exit 2). */
	path = rf_temp_db("text");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("node,cpu_milli\nn0,1000\nthis is a CSV file, not a database, padded to be long "
	      "enough that SQLite reads a whole header from it...........................\n",
	      f);
	fclose(f);
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), GS_ESCHEMA);
	snprintf(want, sizeof(want), "%s: not a SQLite database", path);
	assert_string_equal(err, want);
	assert_null(db);
	unlink(path);

	/* Another program's database. */
	path = rf_temp_db("foreign");
	raw_exec(path, "CREATE TABLE customers (id INTEGER)");
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), GS_ESCHEMA);
	snprintf(want, sizeof(want),
		 "%s: not a gpusim results database (it has tables but no gpusim schema version)",
		 path);
	assert_string_equal(err, want);
	unlink(path);

	/* A parent directory that does not exist is made, with its parents. */
	snprintf(dir, sizeof(dir), "%s.missing-dir/sub", rf_temp_db("nodir"));
	snprintf(want, sizeof(want), "%s/results.db", dir);
	assert_int_equal(gs_db_open(want, &db, err, sizeof(err)), 0);
	gs_db_close(db);
	db = NULL;
	assert_int_equal(stat(want, &sb), 0);
	unlink(want);
	rmdir(dir);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
	/* One that cannot be made: a component is a file. */
	path = rf_temp_db("file-parent");
	raw_exec(path, "CREATE TABLE t (x)");
	snprintf(want, sizeof(want), "%s/sub/results.db", path);
	assert_int_equal(gs_db_open(want, &db, err, sizeof(err)), GS_EINVAL);
	snprintf(dir, sizeof(dir), "%s: cannot create: Not a directory", path);
	assert_string_equal(err, dir);
	unlink(path);

	/* Readers never create a database. */
	path = rf_temp_db("absent");
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), GS_ENOENT);
	snprintf(want, sizeof(want), "%s: no such database file", path);
	assert_string_equal(err, want);
	assert_int_equal(access(path, F_OK), -1);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), GS_ESCHEMA);
	snprintf(want, sizeof(want), "%s: not a gpusim results database (it is empty)", path);
	assert_string_equal(err, want);
	/* ...while a writer fills an empty file with the schema. */
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	close_and_remove(db);
}

/* --- resumable sweeps ------------------------------------------------------------ */

static void test_two_runs_and_find(void **state)
{
	struct rf_run r;
	struct gs_db *db;
	struct gs_run_row *list;
	size_t n;
	char err[512];
	int64_t id = -1;

	(void)state;
	rf_build_time(&r);
	db = open_new("find");
	assert_int_equal(write_ok(db, &r), 1);
	r.info.policy = "spread";
	assert_int_equal(write_ok(db, &r), 2);

	assert_int_equal(gs_db_find_run(db, "binpack", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					&id),
			 0);
	assert_int_equal(id, 1);
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					&id),
			 0);
	assert_int_equal(id, 2);
	/* Every part of the key matters. */
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_NODES_SHA, 43, RF_PARAMS,
					NULL),
			 GS_ENOENT);
	assert_int_equal(gs_db_find_run(db, "spread", RF_NODES_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					NULL),
			 GS_ENOENT);
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_PODS_SHA, 42, RF_PARAMS,
					NULL),
			 GS_ENOENT);
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_NODES_SHA, 42,
					"{\"mode\":\"time\",\"time_scale\":2}", NULL),
			 GS_ENOENT);
	assert_int_equal(gs_db_find_run(db, "fgd", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					NULL),
			 GS_ENOENT);
	assert_int_equal(gs_db_find_run(db, NULL, RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS, NULL),
			 GS_EINVAL);
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_NODES_SHA,
					(uint64_t)INT64_MAX + 1, RF_PARAMS, NULL),
			 GS_EINVAL);
	/* The same key twice: the newest. */
	assert_int_equal(write_ok(db, &r), 3);
	assert_int_equal(gs_db_find_run(db, "spread", RF_PODS_SHA, RF_NODES_SHA, 42, RF_PARAMS,
					&id),
			 0);
	assert_int_equal(id, 3);

	assert_int_equal(gs_db_list_runs(db, &list, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].policy, "binpack");
	assert_string_equal(list[1].policy, "spread");
	assert_int_equal(list[2].run_id, 3);
	gs_run_rows_free(list, n);
	assert_string_equal(rows(db, "SELECT run_id, n_pods FROM run_summary ORDER BY run_id"),
			    "1|5\n2|5\n3|5");

	close_and_remove(db);
	rf_release(&r);
}

static void test_params_json(void **state)
{
	struct gs_replay_opts o;
	char *a, *b;

	(void)state;
	gs_replay_opts_init(&o);
	o.mode = GS_MODE_INFLATE;
	o.time_scale = 1;
	o.max_wait_s = -1;
	o.sample_every = 1;
	o.sample_interval_s = 0;
	o.inflate = 1.3;
	o.frag_coverage = 0.95;
	o.frag = true;
	o.policy_flags = GS_POLICY_COMPAT;
	o.check = false;
	assert_int_equal(gs_replay_params_json(&o, &a), 0);
	assert_string_equal(a, "{\"mode\":\"inflate\",\"time_scale\":1,\"max_wait_s\":-1,"
			       "\"sample_every\":1,\"sample_interval_s\":0,\"inflate\":1.3,"
			       "\"frag_coverage\":0.95,\"frag\":true,\"compat\":true,"
			       "\"policy_flags\":1}");
	/* --check changes no result, so it is not part of the key. */
	o.check = true;
	assert_int_equal(gs_replay_params_json(&o, &b), 0);
	assert_string_equal(a, b);
	free(b);
	o.time_scale = 10;
	assert_int_equal(gs_replay_params_json(&o, &b), 0);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

/* --- concurrent writers ------------------------------------------------------------ */

struct writer_arg {
	const char *path;
	struct gs_db *shared;   /* NULL: open a connection of its own */
	const char *policy;
	int runs;
	int failures;
};

static void *writer(void *p)
{
	struct writer_arg *w = p;
	struct rf_run r;
	struct gs_db *db = w->shared;
	char err[512];
	int i;

	rf_build_time(&r);
	r.info.policy = w->policy;
	if (!db && gs_db_open(w->path, &db, err, sizeof(err)) != 0) {
		fprintf(stderr, "writer %s: %s\n", w->policy, err);
		w->failures++;
	}
	for (i = 0; db && i < w->runs; i++) {
		r.info.seed = (uint64_t)i;
		if (gs_db_write_run(db, &r.info, &r.sim, NULL, err, sizeof(err)) != 0) {
			fprintf(stderr, "writer %s: %s\n", w->policy, err);
			w->failures++;
		}
	}
	if (!w->shared)
		gs_db_close(db);
	rf_release(&r);
	return NULL;
}

/*
 * Sweep workers: one connection each on a file none of them created yet
 * (they race to create the schema), then two threads on one shared handle.
 */
static void test_concurrent_writers(void **state)
{
	struct writer_arg w[4] = {
		{ .policy = "a", .runs = 6 },
		{ .policy = "b", .runs = 6 },
		{ .policy = "c", .runs = 6 },
		{ .policy = "d", .runs = 6 },
	};
	pthread_t th[4];
	struct gs_db *db;
	char path[512], err[512];
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s", rf_temp_db("threads"));
	for (i = 0; i < 4; i++) {
		w[i].path = path;
		assert_int_equal(pthread_create(&th[i], NULL, writer, &w[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].failures, 0);
	}
	assert_int_equal(gs_db_open_existing(path, &db, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++) {
		w[i].shared = db;
		w[i].policy = i ? "f" : "e";
		assert_int_equal(pthread_create(&th[i], NULL, writer, &w[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].failures, 0);
	}
	assert_string_equal(rows(db, "SELECT policy, count(*), count(DISTINCT seed) FROM runs"
				     " WHERE status = 'complete' GROUP BY policy ORDER BY policy"),
			    "a|6|6\nb|6|6\nc|6|6\nd|6|6\ne|6|6\nf|6|6");
	assert_string_equal(rows(db, counts_sql), "36|108|180|144");
	close_and_remove(db);
}

/* --- the documentation matches the DDL ------------------------------------------ */

/*
 * results/SCHEMA.md has a "### name" section per table and view with one
 * "| `column` |" row per column. Every column the DDL creates must be
 * documented in its section, and every documented column must exist.
 */
static void test_schema_md_matches_ddl(void **state)
{
	struct gs_db *db;
	sqlite3_stmt *st;
	char *doc, *p;
	long len;
	FILE *f;
	int n_cols = 0, n_doc = 0;

	(void)state;
	f = fopen(GS_SOURCE_DIR "/results/SCHEMA.md", "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, (size_t)len + 1);
	assert_non_null(doc);
	assert_int_equal(fread(doc, 1, (size_t)len, f), (size_t)len);
	fclose(f);

	db = open_new("schemamd");
	assert_int_equal(sqlite3_prepare_v2(gs_db_sqlite(db),
					    "SELECT m.name, c.name FROM sqlite_master m,"
					    " pragma_table_info(m.name) c"
					    " WHERE m.type IN ('table', 'view')"
					    " ORDER BY m.name, c.cid",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(st, 0);
		const char *col = (const char *)sqlite3_column_text(st, 1);
		char head[128], cell[128];
		char *sec, *end;

		snprintf(head, sizeof(head), "\n### %s\n", table);
		sec = strstr(doc, head);
		if (!sec)
			fail_msg("results/SCHEMA.md has no '### %s' section", table);
		sec += strlen(head);
		end = strstr(sec, "\n#");
		snprintf(cell, sizeof(cell), "\n| `%s` |", col);
		p = strstr(sec, cell);
		if (!p || (end && p > end))
			fail_msg("results/SCHEMA.md, section %s: column %s is not documented",
				 table, col);
		n_cols++;
	}
	sqlite3_finalize(st);

	/* The other way round: each documented row names a real column. */
	for (p = strstr(doc, "\n### "); p; p = strstr(p + 1, "\n### ")) {
		char table[64], sql[256];
		char *row, *end = strstr(p + 5, "\n#");

		if (sscanf(p, "\n### %63s", table) != 1)
			continue;
		for (row = strstr(p, "\n| `"); row && (!end || row < end);
		     row = strstr(row + 1, "\n| `")) {
			char col[64];

			if (sscanf(row, "\n| `%63[^`]`", col) != 1)
				continue;
			snprintf(sql, sizeof(sql),
				 "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
				 table, col);
			if (strcmp(rows(db, sql), "1") != 0)
				fail_msg("results/SCHEMA.md documents %s.%s, which the DDL lacks",
					 table, col);
			n_doc++;
		}
	}
	assert_int_equal(n_doc, n_cols);
	free(doc);
	close_and_remove(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_memory_db),
		cmocka_unit_test(test_digest_versions),
		cmocka_unit_test(test_read_helpers),
		cmocka_unit_test(test_summary_time),
		cmocka_unit_test(test_summary_inflate),
		cmocka_unit_test(test_summary_inflate_empty_100),
		cmocka_unit_test(test_no_pods),
		cmocka_unit_test(test_failed_write_leaves_no_trace),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_incomplete_run_invisible),
		cmocka_unit_test(test_new_database),
		cmocka_unit_test(test_newer_major_refused),
		cmocka_unit_test(test_newer_minor_accepted),
		cmocka_unit_test(test_migrate_1_0),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_two_runs_and_find),
		cmocka_unit_test(test_params_json),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_decision_record),
		cmocka_unit_test(test_schema_md_matches_ddl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
