/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_durability.c - what docs/guarantees.md promises about a sweep killed with
 * SIGKILL and about a disk that fills up (issue 14), checked on the real
 * program:
 *   - kill -9 in the middle of a sweep, three times: the database passes
 *     SQLite's integrity check, every run it shows is complete, and the
 *     sweep started again finishes the matrix with no run twice;
 *   - SIGINT, then SIGTERM, in the middle of a sweep (on small runs, and on
 *     runs long enough to be cut short): exit 130 and 143, a message that
 *     a rerun resumes, the database intact with only complete runs and no
 *     claim left, and the sweep started again finishes the matrix with
 *     each run once;
 *   - a file-size limit (ulimit -f, SIGXFSZ ignored: writes fail as on a
 *     full disk) stops replay with exit 1 and a message, the runs stored
 *     before are intact, and gen leaves neither of its files.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "tmpdir.h"

static char db_path[1024], nodes[1024], pods[1024], spec[1024];

static int setup(void **state)
{
	(void)state;
	if (gs_test_tmpdir_make("test-durability"))
		return -1;
	snprintf(nodes, sizeof(nodes), "%s/traces/sample/cluster.csv", GS_SOURCE_DIR);
	snprintf(pods, sizeof(pods), "%s/traces/sample/pods.csv", GS_SOURCE_DIR);
	snprintf(spec, sizeof(spec), "%s/traces/sample/spec.json", GS_SOURCE_DIR);
	return 0;
}

/* The first column of the first row of sql on path, or -1 (no file, no table, busy). */
static long long query(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* SQLite's own check of the whole file: "ok" or what is wrong. */
static void assert_intact(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	char result[256] = "no answer";

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(result, sizeof(result), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_string_equal(result, "ok");
}

/*
 * Starts `gpusim sweep` of trace (the sample when NULL) over seeds x two
 * policies into db_path, its stderr into err_path (NULL: /dev/null).
 */
static pid_t start_sweep_of(const char *trace, const char *seeds, const char *err_path)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		int errfd = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : devnull;

		dup2(devnull, 1);
		dup2(errfd, 2);
		execl(GS_GPUSIM_BIN, "gpusim", "sweep", "--nodes", nodes, "--pods",
		      trace ? trace : pods, "--policy", "binpack,spread", "--seeds", seeds,
		      "--jobs", "2", "--no-pods", "--quiet", "--db", db_path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Starts `gpusim sweep` on the sample over seeds 1-200 x two policies (400 runs). */
static pid_t start_sweep(void)
{
	return start_sweep_of(NULL, "1-200", NULL);
}

#define COMPLETE "SELECT count(*) FROM runs WHERE status = 'complete'"

static void test_kill_during_sweep(void **state)
{
	long long done = 0, now;
	int round, st;

	(void)state;
	gs_test_path("sweep.db", db_path, sizeof(db_path));
	for (round = 0; round < 3; round++) {
		struct timespec pause = { 0, 2 * 1000 * 1000 };
		pid_t pid = start_sweep();
		int waited;

		/* Let it store a few more runs, then kill it where it stands. */
		for (waited = 0; waited < 30000; waited++) {
			now = query(db_path, COMPLETE);
			if (now >= done + 25 || waitpid(pid, &st, WNOHANG) == pid)
				break;
			nanosleep(&pause, NULL);
		}
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		assert_intact(db_path);
		now = query(db_path, COMPLETE);
		assert_true(now >= done);
		/*
		 * The killed run's transaction is gone: no half-written run, only
		 * complete ones, each (policy, seed) at most once.
		 */
		assert_int_equal(query(db_path, "SELECT count(*) FROM runs"), now);
		assert_int_equal(query(db_path, "SELECT count(*) FROM run_summary"), now);
		assert_int_equal(query(db_path, "SELECT count(*) FROM (SELECT policy, seed FROM runs "
					       "WHERE status = 'complete' GROUP BY 1, 2 HAVING "
					       "count(*) > 1)"), 0);
		print_message("killed sweep %d with %lld of 400 runs complete\n", round + 1, now);
		done = now;
	}
	/* Started again, the sweep resumes and finishes the matrix. */
	waitpid(start_sweep(), &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_intact(db_path);
	assert_int_equal(query(db_path, COMPLETE), 400);
	assert_int_equal(query(db_path, "SELECT count(DISTINCT policy || '/' || seed) FROM runs "
				       "WHERE status = 'complete'"), 400);
}

/* The text of file path (at most len - 1 bytes), "" if none. */
static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/*
 * A sweep of trace over seeds (n runs in all) stopped with sig once it has
 * stored `after` more runs than the db held: it exits 128 + sig, says how
 * many runs it stored and that a rerun resumes, and leaves an intact
 * database with only complete runs, each once, and no claim.
 */
static void interrupt_sweep(const char *trace, const char *seeds, long long n, int sig,
			    long long after)
{
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	char err_path[1100], text[4096];
	long long before = query(db_path, COMPLETE), now = 0;
	pid_t pid;
	int st, waited;

	if (before < 0)
		before = 0;
	gs_test_path("sweep-err.txt", err_path, sizeof(err_path));
	pid = start_sweep_of(trace, seeds, err_path);
	for (waited = 0; waited < 30000; waited++) {
		now = query(db_path, COMPLETE);
		if (now >= before + after || waitpid(pid, &st, WNOHANG) == pid)
			break;
		nanosleep(&pause, NULL);
	}
	assert_true(now < n); /* still running: the test needs more or longer runs */
	kill(pid, sig);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	read_file(err_path, text, sizeof(text));
	print_message("%s", text);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 128 + sig);
	assert_non_null(strstr(text, sig == SIGINT ? "interrupted by SIGINT: " :
						     "interrupted by SIGTERM: "));
	assert_non_null(strstr(text, "run the same command again to resume"));
	assert_intact(db_path);
	now = query(db_path, COMPLETE);
	assert_true(now >= before + after);
	assert_true(now < n);
	assert_int_equal(query(db_path, "SELECT count(*) FROM runs"), now);
	assert_int_equal(query(db_path, "SELECT count(*) FROM run_claims"), 0);
	assert_int_equal(query(db_path, "SELECT count(*) FROM (SELECT policy, seed FROM runs "
				       "GROUP BY 1, 2 HAVING count(*) > 1)"), 0);
	{
		char want[64];

		snprintf(want, sizeof(want), ": %lld run%s stored in ", now - before,
			 now - before == 1 ? "" : "s");
		assert_non_null(strstr(text, want));
	}
}

/* Started again after interrupt_sweep(), the sweep finishes the matrix of n runs, each once. */
static void resume_sweep(const char *trace, const char *seeds, long long n)
{
	int st;

	waitpid(start_sweep_of(trace, seeds, NULL), &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_intact(db_path);
	assert_int_equal(query(db_path, COMPLETE), n);
	assert_int_equal(query(db_path, "SELECT count(*) FROM runs"), n);
	assert_int_equal(query(db_path, "SELECT count(DISTINCT policy || '/' || seed) FROM runs "
				       "WHERE status = 'complete'"), n);
	assert_int_equal(query(db_path, "SELECT count(*) FROM run_claims"), 0);
}

static void test_signal_during_sweep(void **state)
{
	(void)state;
	gs_test_path("sigint.db", db_path, sizeof(db_path));
	interrupt_sweep(NULL, "1-200", 400, SIGINT, 25);
	interrupt_sweep(NULL, "1-200", 400, SIGTERM, 25);
	resume_sweep(NULL, "1-200", 400);
}

/*
 * Runs long enough to be in progress when the signal comes (a 20000-pod
 * trace in time mode): they are cut short, not stored, and run on resume.
 */
static void test_signal_cuts_long_runs(void **state)
{
	char big[1100];
	FILE *f;
	int i;

	(void)state;
	gs_test_path("sigint-big.db", db_path, sizeof(db_path));
	gs_test_path("big-pods.csv", big, sizeof(big));
	f = fopen(big, "w");
	assert_non_null(f);
	fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		   "creation_time,deletion_time\n");
	for (i = 0; i < 20000; i++)
		fprintf(f, "p-%05d,%d,8192,1,%d,0,,%d,%d\n", i, 1000 + i % 4 * 1000,
			250 * (1 + i % 4), i, i + 60 + (i * 37) % 120);
	fclose(f);
	interrupt_sweep(big, "1-4", 8, SIGINT, 1);
	resume_sweep(big, "1-4", 8);
}

/* Runs cmd in the test directory with writes limited to kib KiB per file, as on a full disk. */
static int run_limited(int kib, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	/* SIGXFSZ ignored: a write past the limit fails with EFBIG instead of killing. */
	snprintf(cmd, sizeof(cmd), "cd %s && (trap '' XFSZ; ulimit -f %d; exec %s %s) "
		 ">out.txt 2>err.txt", gs_test_tmpdir(), kib, GS_GPUSIM_BIN, args);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void read_err(char *buf, size_t len)
{
	char path[1024];
	FILE *f;
	size_t n = 0;

	gs_test_path("err.txt", path, sizeof(path));
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void test_full_disk(void **state)
{
	char err[4096], path[1024];
	long long runs;

	(void)state;
	/* One run fits in 3 MB, not nine: some are stored, then a commit fails. */
	gs_test_path("full.db", path, sizeof(path));
	assert_int_equal(run_limited(3000, "replay --nodes %s --pods %s --policy all --db full.db "
					   "--quiet", nodes, pods), 1);
	read_err(err, sizeof(err));
	assert_non_null(strstr(err, "gpusim replay: full.db: "));
	assert_null(strstr(err, ": \n"));
	assert_intact(path);
	runs = query(path, COMPLETE);
	assert_true(runs >= 1 && runs < 9);
	assert_int_equal(query(path, "SELECT count(*) FROM runs"), runs);
	assert_int_equal(query(path, "SELECT count(*) FROM run_summary"), runs);

	/* gen: the pods do not fit, and neither file is left behind. */
	assert_int_equal(run_limited(40, "gen --spec %s --nodes-out n.csv --pods-out p.csv", spec),
			 1);
	read_err(err, sizeof(err));
	assert_non_null(strstr(err, "gpusim gen: p.csv: cannot write: File too large"));
	gs_test_path("n.csv", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
	gs_test_path("p.csv", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_during_sweep),
		cmocka_unit_test(test_signal_during_sweep),
		cmocka_unit_test(test_signal_cuts_long_runs),
		cmocka_unit_test(test_full_disk),
	};

	/* A full disk is simulated with a file-size limit: SIGXFSZ must not kill us. */
	signal(SIGXFSZ, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
