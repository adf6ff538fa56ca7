/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_defrag.c - the descheduler of time mode (engine/defrag.h) on a case
 * solved by hand, where one move is provably enough, and its budget, cost
 * and refusals.
 *
 * Two nodes of one T4 each. spread places A (300 milli, t 0..100) on node
 * 0 and B (600 milli, t 1..201) on node 1, the emptier. C asks for a whole
 * GPU at t 3 (and leaves at 53): both GPUs hold a pod, so it fits nowhere,
 * and without the descheduler waits for A to leave at 100. One move is
 * enough and no plan does with none: either pod fits next to the other
 * (300 + 600 <= 1000), and moving it empties its GPU. The cheaper is A
 * (0.3 GPU x 3 s of work lost against 0.6 x 2): A moves to node 1, C
 * starts at 3 on node 0. With cost 'lost' A starts over and leaves at 3 +
 * 100 = 103; with a restart of 10 s at 100 + 10 = 110. Its first departure
 * (at 100) must not count: A departs once.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "core/error.h"
#include "engine/replay.h"
#include "io/trace/load.h"
#include "store/results.h"
#include "tmpdir.h"

static const char nodes_csv[] = "sn,cpu_milli,memory_mib,gpu,model\n"
				"n0,32000,131072,1,T4\nn1,32000,131072,1,T4\n";
static const char pods_csv[] =
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
	"deletion_time,scheduled_time\n"
	"A,1000,1024,1,300,,LS,Running,0,100,0\n"
	"B,1000,1024,1,600,,LS,Running,1,201,1\n"
	"C,1000,1024,1,1000,,LS,Running,3,53,3\n";

struct world {
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_sim sim;
};

static void run(struct world *w, const struct gs_defrag_opts *d)
{
	struct gs_replay_opts o;
	char err[256] = "";

	gs_cluster_init(&w->c);
	gs_trace_init(&w->t);
	assert_int_equal(gs_load_cluster_mem("n.csv", nodes_csv, strlen(nodes_csv), &w->c, NULL,
					     err, sizeof(err)), 0);
	assert_int_equal(gs_load_trace_mem("p.csv", pods_csv, strlen(pods_csv), &w->c, &w->t, err,
					   sizeof(err)), 0);
	gs_replay_opts_init(&o);
	o.check = true;
	o.defrag = *d;
	assert_int_equal(gs_sim_init(&w->sim, &w->c, &w->t, gs_policy_find("spread"), &o, err,
				     sizeof(err)), 0);
	assert_int_equal(gs_sim_run(&w->sim, err, sizeof(err)), 0);
}

static void done(struct world *w)
{
	gs_sim_release(&w->sim);
	gs_trace_release(&w->t);
	gs_cluster_release(&w->c);
}

static void test_without(void **st)
{
	struct gs_defrag_opts d;
	struct world w;

	(void)st;
	gs_defrag_opts_init(&d);
	run(&w, &d);
	assert_int_equal(w.sim.out[0].pl.node, 0);
	assert_int_equal(w.sim.out[1].pl.node, 1);
	/* C waits for A to leave node 0. */
	assert_int_equal(w.sim.out[2].t_start_s, 100);
	assert_int_equal(w.sim.out[2].pl.node, 0);
	assert_int_equal(w.sim.out[0].t_end_s, 100);
	assert_int_equal(w.sim.defrag.st.moves, 0);
	done(&w);
}

static void test_one_move(void **st)
{
	struct gs_defrag_opts d;
	struct world w;

	(void)st;
	gs_defrag_opts_init(&d);
	d.budget_pct = 50; /* floor(0.5 x 3 arrived) = 1 move when C arrives */
	run(&w, &d);
	assert_int_equal(w.sim.defrag.st.attempts, 1);
	assert_int_equal(w.sim.defrag.st.placed, 1);
	assert_int_equal(w.sim.defrag.st.moves, 1);
	assert_int_equal(w.sim.defrag.st.pods_moved, 1);
	assert_true(fabs(w.sim.defrag.st.lost_gpu_s - 0.3 * 3) < 1e-12);
	/* C at once on node 0; A on node 1 beside B, started over. */
	assert_int_equal(w.sim.out[2].t_start_s, 3);
	assert_int_equal(w.sim.out[2].pl.node, 0);
	assert_int_equal(w.sim.out[0].pl.node, 1);
	assert_int_equal(w.sim.out[0].t_start_s, 0);
	assert_int_equal(w.sim.out[0].t_end_s, 103);
	assert_int_equal(w.sim.out[0].state, GS_POD_DONE);
	assert_int_equal(w.sim.out[1].t_end_s, 201);
	assert_int_equal(w.sim.out[2].t_end_s, 53);
	/* Three departures, not four: A's first one was dropped. */
	assert_int_equal(w.sim.stats.done, 3);
	done(&w);

	d.cost = GS_DEFRAG_RESTART;
	d.restart_s = 10;
	run(&w, &d);
	assert_int_equal(w.sim.out[0].t_end_s, 110);
	assert_true(fabs(w.sim.defrag.st.lost_gpu_s - 0.3 * 10) < 1e-12);
	done(&w);
}

/* 10% of 3 arrivals is no move: the budget holds C back; 1 move an hour lets it through. */
static void test_budget(void **st)
{
	struct gs_defrag_opts d;
	struct world w;

	(void)st;
	gs_defrag_opts_init(&d);
	d.budget_pct = 10;
	run(&w, &d);
	assert_int_equal(w.sim.defrag.st.moves, 0);
	assert_int_equal(w.sim.out[2].t_start_s, 100);
	done(&w);

	gs_defrag_opts_init(&d);
	d.per_hour = 1;
	run(&w, &d);
	assert_int_equal(w.sim.defrag.st.moves, 1);
	assert_int_equal(w.sim.out[2].t_start_s, 3);
	done(&w);
}

/* Refused before anything runs: inflate mode, sharing modes, a budget out of range. */
static void test_refusals(void **st)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_replay_opts o;
	char err[256] = "";

	(void)st;
	gs_cluster_init(&c);
	gs_trace_init(&t);
	assert_int_equal(gs_load_cluster_mem("n.csv", nodes_csv, strlen(nodes_csv), &c, NULL, err,
					     sizeof(err)), 0);
	assert_int_equal(gs_load_trace_mem("p.csv", pods_csv, strlen(pods_csv), &c, &t, err,
					   sizeof(err)), 0);
	gs_replay_opts_init(&o);
	o.defrag.budget_pct = 1;
	o.mode = GS_MODE_INFLATE;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "time mode"));
	o.mode = GS_MODE_TIME;
	gs_share_cfg_init(&o.sharing, GS_SHARE_EXCLUSIVE);
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "--sharing"));
	gs_share_cfg_init(&o.sharing, GS_SHARE_IDEAL);
	o.defrag.budget_pct = 101;
	assert_int_equal(gs_sim_validate(&c, &t, &o, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "--defrag"));
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* The run's row of run_defrag, and the options in params_json. */
static void test_store(void **st)
{
	struct gs_defrag_opts d;
	struct gs_run_info ri;
	struct world w;
	struct gs_db *db = NULL;
	sqlite3_stmt *q;
	char path[4096], err[512] = "", *params = NULL;
	int64_t id = 0;

	(void)st;
	gs_defrag_opts_init(&d);
	d.budget_pct = 50;
	d.cost = GS_DEFRAG_RESTART;
	d.restart_s = 10;
	run(&w, &d);
	snprintf(path, sizeof(path), "%s/defrag.db", gs_test_tmpdir());
	assert_int_equal(gs_db_open(path, &db, err, sizeof(err)), 0);
	assert_int_equal(gs_replay_params_json(&w.sim.opts, &params), 0);
	assert_non_null(strstr(params, "\"defrag_pct\":50,\"defrag_per_hour\":0,"
					"\"defrag_restart_s\":10"));
	memset(&ri, 0, sizeof(ri));
	ri.policy = "spread";
	ri.mode = "time";
	ri.nodes_sha256 = "a";
	ri.pods_sha256 = w.t.sha256;
	ri.params_json = params;
	assert_int_equal(gs_db_write_run(db, &ri, &w.sim, &id, err, sizeof(err)), 0);
	assert_int_equal(sqlite3_prepare_v2(gs_db_sqlite(db),
					    "SELECT budget_pct, restart_s, n_attempts, n_placed, n_moves,"
					    " n_pods_moved, lost_gpu_s FROM run_defrag WHERE run_id = ?1",
					    -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, id);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_true(sqlite3_column_double(q, 0) == 50.0);
	assert_int_equal(sqlite3_column_int(q, 1), 10);
	assert_int_equal(sqlite3_column_int(q, 2), 1);
	assert_int_equal(sqlite3_column_int(q, 3), 1);
	assert_int_equal(sqlite3_column_int(q, 4), 1);
	assert_int_equal(sqlite3_column_int(q, 5), 1);
	assert_true(fabs(sqlite3_column_double(q, 6) - 3.0) < 1e-12);
	sqlite3_finalize(q);
	free(params);
	gs_db_close(db);
	done(&w);
}

/* `gpusim replay --defrag`: the line under the table, and the refusals (exit 2). */
static int replay(const char *args, char *out, size_t len)
{
	char cmd[4096];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && %s replay --nodes %s/traces/sample/cluster.csv "
		 "--pods %s/traces/sample/pods.csv --no-db %s 2>&1", gs_test_tmpdir(), GS_GPUSIM_BIN,
		 GS_SOURCE_DIR, GS_SOURCE_DIR, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_cli(void **st)
{
	static char out[65536];

	(void)st;
	assert_int_equal(replay("--policy spread --time-scale 100 --defrag 5%,60/h "
				"--defrag-cost 30", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "defrag, spread: "));
	assert_int_equal(replay("--defrag 5", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--defrag: '5' is not a budget"));
	assert_int_equal(replay("--defrag 101%", out, sizeof(out)), 2);
	assert_int_equal(replay("--defrag 1%,", out, sizeof(out)), 2);
	assert_int_equal(replay("--defrag-cost 30", out, sizeof(out)), 2);
	assert_int_equal(replay("--defrag 1% --defrag-cost soon", out, sizeof(out)), 2);
	assert_int_equal(replay("--mode inflate --defrag 1%", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "time mode"));
}

static int setup(void **st)
{
	(void)st;
	return gs_test_tmpdir_make("defrag");
}

static int teardown(void **st)
{
	(void)st;
	return gs_test_tmpdir_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without),
		cmocka_unit_test(test_one_move),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
