/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bench_harness.c - gpusim-bench end to end without a GPU.
 *
 * The harness runs against the fake driver (two "Fake GPU" devices of 16
 * GiB, found through LD_LIBRARY_PATH as libcuda.so.1), with
 * tests/fake_client.sh standing in for the four CUDA clients and a fake
 * nvidia-cuda-mps-control in PATH (tests/fake_mps_control.sh: a daemon
 * that takes its time to exit after "quit") that logs what happens. What
 * is checked: placement with the allocator, the environment each mode
 * gives its clients (CUDA_VISIBLE_DEVICES, MPS variables, LD_PRELOAD and
 * the GPUSHARE_* limits), the private MPS daemons (directories from
 * mkdtemp under /tmp, one daemon at a time, each gone before the next
 * starts, a stale one quit), SIGTERM in the middle of a run, GPUs whose
 * compute mode forbids co-location, the derived numbers (slowdown,
 * achieved share, overhead) on known throughputs, the results records,
 * and the exit codes for bad input, a client that crashes and a host
 * without a driver.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/kvline.h"
#include "tmpdir.h"

static char out_text[65536];

/*
 * The harness's GPUSIM_BENCH_MPS_DIR (/tmp unless set) and the prefix of
 * its daemons' directories there.
 */
static char mps_base[128], mps_prefix[160];

/* More variables for the harness (name, value, ..., NULL), or NULL. */
static const char *const *extra_env;

static int setup(void **state)
{
	static const char *const clients[] = { "vecadd", "mnist", "launch", "memprobe" };
	char path[256], name[64];
	size_t i;

	(void)state;
	if (gs_test_tmpdir_make("bench-harness"))
		return -1;
	gs_test_path("clients", path, sizeof(path));
	mkdir(path, 0755);
	for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		snprintf(name, sizeof(name), "clients/%s", clients[i]);
		gs_test_path(name, path, sizeof(path));
		if (symlink(GS_FAKE_CLIENT, path))
			return -1;
	}
	gs_test_path("bin", path, sizeof(path));
	mkdir(path, 0755);
	gs_test_path("bin/nvidia-cuda-mps-control", path, sizeof(path));
	if (symlink(GS_FAKE_MPS, path))
		return -1;
	extra_env = NULL;
	gs_test_path("state", path, sizeof(path));
	mkdir(path, 0755);
	gs_test_path("mps", mps_base, sizeof(mps_base));
	mkdir(mps_base, 0700);
	snprintf(mps_prefix, sizeof(mps_prefix), "%s/gpusim-mps-", mps_base);
	return 0;
}

/* A running gpusim-bench: its pid and the read end of its stderr. */
struct bench_proc {
	pid_t pid;
	int err_fd;
};

/* Starts gpusim-bench with args (NULL-terminated) and the fake setup. */
static void bench_start(const char *libcuda, const char *const *args, struct bench_proc *b)
{
	char path_env[4096], fake_dir[128], work[128], clients[128];
	const char *const *env;
	const char *argv[32];
	int p[2], a = 0;
	pid_t pid;

	gs_test_path("clients", clients, sizeof(clients));
	gs_test_path("work", work, sizeof(work));
	gs_test_path("state", fake_dir, sizeof(fake_dir));
	snprintf(path_env, sizeof(path_env), "%s/bin:%s", gs_test_tmpdir(),
		 getenv("PATH") ? getenv("PATH") : "/bin");
	argv[a++] = GS_BENCH_BIN;
	argv[a++] = "--client-dir";
	argv[a++] = clients;
	argv[a++] = "--hook";
	argv[a++] = GS_HOOK_LIB;
	argv[a++] = "--work-dir";
	argv[a++] = work;
	argv[a++] = "--startup-s";
	argv[a++] = "0.5";
	for (; *args; args++)
		argv[a++] = *args;
	argv[a] = NULL;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		setenv("PATH", path_env, 1);
		setenv("FAKE_CLIENT_DIR", fake_dir, 1);
		if (libcuda)
			setenv("GPUSIM_BENCH_LIBCUDA", libcuda, 1);
		/* Daemons in a directory of this test's: concurrent runs never meet. */
		setenv("GPUSIM_BENCH_MPS_DIR", mps_base, 1);
		for (env = extra_env; env && *env; env += 2)
			setenv(env[0], env[1], 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	b->pid = pid;
	b->err_fd = p[0];
}

/* Waits for it: returns its exit status (128 + signal); its stderr goes to out_text. */
static int bench_wait(struct bench_proc *b)
{
	ssize_t n, got = 0;
	int status;

	while ((n = read(b->err_fd, out_text + got, sizeof(out_text) - 1 - (size_t)got)) > 0)
		got += n;
	out_text[got] = 0;
	close(b->err_fd);
	assert_int_equal(waitpid(b->pid, &status, 0), b->pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Runs gpusim-bench with args (NULL-terminated) and the fake setup.
 * Returns its exit status; its stderr goes to out_text.
 */
static int bench(const char *libcuda, const char *const *args)
{
	struct bench_proc b;

	bench_start(libcuda, args, &b);
	return bench_wait(&b);
}

static const char *in_dir(const char *name)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];

	gs_test_path(name, p, 256);
	return p;
}

/*
 * Writes the scenario text json as NAME.json, runs gpusim-bench on it with
 * --out NAME.txt and the fake setup, and returns its exit status.
 */
static int run_scenario(const char *name, const char *json)
{
	const char *args[] = { "--out", NULL, NULL, NULL };
	char file[64];

	snprintf(file, sizeof(file), "%s.json", name);
	gs_test_write(file, json, NULL, 0);
	args[2] = in_dir(file);
	snprintf(file, sizeof(file), "%s.txt", name);
	args[1] = in_dir(file);
	return bench(NULL, args);
}

/* The records of a results file, parsed. */
struct records {
	struct gs_kvline l[256];
	int n;
};

static void read_records(const char *path, struct records *r)
{
	char line[4096], err[128];
	FILE *f = fopen(path, "r");
	int ln = 0;

	assert_non_null(f);
	r->n = 0;
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (gs_kvline_parse(line, &r->l[r->n], err, sizeof(err)))
			fail_msg("%s:%d: %s", path, ln, err);
		if (r->l[r->n].type)
			r->n++;
		else
			gs_kvline_release(&r->l[r->n]);
		assert_true(r->n < 256);
	}
	fclose(f);
}

static void free_records(struct records *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		gs_kvline_release(&r->l[i]);
}

/* The record of this type whose key k1 has value v1 (and k2 v2, when given). */
static const struct gs_kvline *find(const struct records *r, const char *type, const char *k1,
				    const char *v1, const char *k2, const char *v2)
{
	int i;

	for (i = 0; i < r->n; i++) {
		const struct gs_kvline *l = &r->l[i];
		const char *a = gs_kvline_get(l, k1), *b = k2 ? gs_kvline_get(l, k2) : NULL;

		if (strcmp(l->type, type) || !a || strcmp(a, v1))
			continue;
		if (k2 && (!b || strcmp(b, v2)))
			continue;
		return l;
	}
	fail_msg("no %s record with %s=%s%s%s%s%s", type, k1, v1, k2 ? " " : "", k2 ? k2 : "",
		 k2 ? "=" : "", k2 ? v2 : "");
	return NULL;
}

static double num(const struct gs_kvline *l, const char *key)
{
	const char *v = gs_kvline_get(l, key);

	if (!v)
		fail_msg("record %s has no %s", l->type, key);
	return strtod(v, NULL);
}

static void expect_str(const struct gs_kvline *l, const char *key, const char *want)
{
	const char *v = gs_kvline_get(l, key);

	if (!v || strcmp(v, want))
		fail_msg("%s=%s, expected %s", key, v ? v : "(missing)", want);
}

/* --- the fake MPS daemon's log ------------------------------------------------- */

/* One line of state/mps.log (tests/fake_mps_control.sh). */
struct mps_event {
	char kind[16];       /* daemon-start, control, daemon-exit */
	char pipe[256];
	char log[256];
	char in[32];         /* what a control call read on stdin */
	long long t_ns;
};

static int read_mps_log(struct mps_event *ev, int cap)
{
	char line[1024], *w, *save;
	FILE *f = fopen(in_dir("state/mps.log"), "r");
	int n = 0;

	if (!f)
		return 0;
	while (n < cap && fgets(line, sizeof(line), f)) {
		struct mps_event *e = &ev[n++];

		memset(e, 0, sizeof(*e));
		line[strcspn(line, "\n")] = 0;
		save = NULL;
		for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			if (!strncmp(w, "pipe=", 5))
				snprintf(e->pipe, sizeof(e->pipe), "%s", w + 5);
			else if (!strncmp(w, "log=", 4))
				snprintf(e->log, sizeof(e->log), "%s", w + 4);
			else if (!strncmp(w, "stdin=", 6))
				snprintf(e->in, sizeof(e->in), "%s", w + 6);
			else if (!strncmp(w, "t=", 2))
				e->t_ns = atoll(w + 2);
			else if (!e->kind[0])
				snprintf(e->kind, sizeof(e->kind), "%s", w);
		}
	}
	fclose(f);
	return n;
}

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Checks the daemons of one harness run: each in directories of its own
 * from mkdtemp under /tmp, quit, and gone before the next started and
 * before the harness ended (at end_ns); the directories removed. Returns
 * how many daemons there were.
 */
static int expect_mps_daemons(long long end_ns)
{
	struct mps_event ev[64];
	long long last_exit = 0;
	char dir[256];
	int n = read_mps_log(ev, 64), i, k, daemons = 0;

	for (i = 0; i < n; i++) {
		int quit = 0, exited = 0;

		if (strcmp(ev[i].kind, "daemon-start"))
			continue;
		daemons++;
		if (strncmp(ev[i].pipe, mps_prefix, strlen(mps_prefix)))
			fail_msg("pipe directory %s is not from mkdtemp in %s", ev[i].pipe, mps_base);
		/* Unix sockets live there: sun_path holds 107 bytes. */
		assert_true(strlen(ev[i].pipe) + strlen("/control") < 100);
		snprintf(dir, sizeof(dir), "%.*s/log", (int)(strrchr(ev[i].pipe, '/') - ev[i].pipe),
			 ev[i].pipe);
		assert_string_equal(ev[i].log, dir);
		if (ev[i].t_ns <= last_exit && last_exit)
			fail_msg("a daemon started before the previous one had exited");
		for (k = 0; k < n; k++) {
			if (strcmp(ev[k].pipe, ev[i].pipe))
				continue;
			if (!strcmp(ev[k].kind, "daemon-start") && k != i)
				fail_msg("two daemons in %s", ev[i].pipe);
			if (!strcmp(ev[k].kind, "control") && !strcmp(ev[k].in, "quit"))
				quit = 1;
			if (!strcmp(ev[k].kind, "daemon-exit")) {
				exited = 1;
				last_exit = ev[k].t_ns;
			}
		}
		if (!quit || !exited)
			fail_msg("the daemon of %s was %s", ev[i].pipe, quit ? "not gone" : "not quit");
		if (last_exit > end_ns)
			fail_msg("the harness ended before its daemon had exited");
		/* Gone, and its directories with it. */
		*strrchr(dir, '/') = 0;
		if (!access(dir, F_OK))
			fail_msg("%s is left behind", dir);
	}
	return daemons;
}

static const char two_pods[] =
	"{\"name\": \"pair\", \"measure\": \"compute\", \"modes\": [\"timeslice\", \"mps\", \"hook\"],\n"
	" \"duration_s\": 0.2, \"warmup_s\": 0,\n"
	" \"clients\": [\n"
	"  {\"name\": \"p30\", \"kernel\": \"vecadd\", \"gpu_milli\": 300, \"gpu_mem_mib\": 1024},\n"
	"  {\"name\": \"p70\", \"kernel\": \"mnist\", \"gpu_milli\": 700, \"gpu_mem_mib\": 2048}]}\n";

static void test_modes_environment_and_numbers(void **state)
{
	static const char *const args[] = { "--out", NULL, "--slowdown-csv", NULL, NULL, NULL };
	const char *a[6], *dir = gs_test_tmpdir();
	const struct gs_kvline *l;
	struct records r;
	char log[4096], path[1024];
	FILE *f;
	size_t n;

	(void)state;
	gs_test_write("pair.json", two_pods, NULL, 0);
	memcpy(a, args, sizeof(a));
	a[1] = in_dir("results.txt");
	a[3] = in_dir("slowdown.csv");
	a[4] = in_dir("pair.json");
	assert_int_equal(bench(NULL, a), 0);
	read_records(in_dir("results.txt"), &r);

	/* Every record says where it ran. */
	l = find(&r, "host", "format", "1", NULL, NULL);
	expect_str(l, "device", "Fake GPU");
	expect_str(l, "gpus", "2");
	expect_str(l, "cuda", "13.0");
	expect_str(l, "driver", "unknown"); /* no NVIDIA kernel module here */
	l = find(&r, "run", "id", "pair/exclusive/0", NULL, NULL);
	expect_str(l, "status", "ok");
	expect_str(l, "device", "Fake GPU");

	/* binpack put 300 + 700 milli on one GPU; each client knows which. */
	l = find(&r, "client", "run", "pair/exclusive/0", "name", "p30");
	expect_str(l, "gpu", "0");
	expect_str(l, "colocated", "1");
	expect_str(l, "seen_preload", "");
	expect_str(l, "seen_pct", "");
	assert_true(strncmp(gs_kvline_get(l, "seen_visible"), "GPU-66616b65", 12) == 0);
	assert_float_equal(num(l, "throughput"), 1000, 1e-9);
	assert_float_equal(num(l, "factor"), 1, 1e-9);

	/* Time-slicing: no controls, each gets half. */
	l = find(&r, "client", "run", "pair/timeslice/0", "name", "p30");
	expect_str(l, "colocated", "2");
	expect_str(l, "colocated_seen", "2");
	assert_float_equal(num(l, "factor"), 0.5, 1e-9);
	assert_float_equal(num(l, "slowdown"), 2, 1e-9);
	assert_float_equal(num(l, "share"), 0.5, 1e-9);
	expect_str(l, "share_req", "0.300");

	/* MPS: a private daemon, a thread percentage and a memory limit each. */
	l = find(&r, "client", "run", "pair/mps/0", "name", "p30");
	expect_str(l, "seen_mps_pct", "30");
	expect_str(l, "seen_mps_mem", "0=1024M");
	assert_true(strncmp(gs_kvline_get(l, "seen_mps_pipe"), mps_prefix, strlen(mps_prefix)) == 0);
	assert_float_equal(num(l, "share"), 0.3, 1e-6);
	l = find(&r, "client", "run", "pair/mps/0", "name", "p70");
	expect_str(l, "seen_mps_pct", "70");
	assert_float_equal(num(l, "share"), 0.7, 1e-6);
	assert_int_equal(expect_mps_daemons(realtime_ns()), 1);
	/* The daemon's logs are kept in the work directory. */
	snprintf(path, sizeof(path), "%s/work/pair.mps.0.mps-log/control.log", dir);
	assert_int_equal(access(path, R_OK), 0);

	/* The hook: LD_PRELOAD and the pod's limits. */
	l = find(&r, "client", "run", "pair/hook/0", "name", "p70");
	assert_non_null(strstr(gs_kvline_get(l, "seen_preload"), "libgpushare.so"));
	expect_str(l, "seen_pod", "pair.p70");
	expect_str(l, "seen_mem", "2048");
	expect_str(l, "seen_pct", "70");
	assert_float_equal(num(l, "share"), 0.7, 1e-6);
	/* The fake loses 2 % under the hook: 700 * 0.98 of 1000 alone. */
	assert_float_equal(num(l, "factor"), 0.686, 1e-6);

	/* The slowdown table: kernel x co-located x mode. */
	l = find(&r, "slowdown", "kernel", "vecadd", "mode", "timeslice");
	expect_str(l, "colocated", "2");
	assert_float_equal(num(l, "factor"), 0.5, 1e-9);
	expect_str(l, "device", "Fake GPU");
	free_records(&r);

	f = fopen(in_dir("slowdown.csv"), "r");
	assert_non_null(f);
	n = fread(log, 1, sizeof(log) - 1, f);
	log[n] = 0;
	fclose(f);
	assert_non_null(strstr(log, "scenario,kernel,colocated,mode,factor,samples,device,driver,cuda\n"));
	assert_non_null(strstr(log, "pair,vecadd,2,timeslice,0.50000,1,\"Fake GPU\",unknown,13.0\n"));
	assert_non_null(strstr(log, "pair,mnist,2,mps,0.70000,1,\"Fake GPU\",unknown,13.0\n"));
}

static void test_overhead_alone(void **state)
{
	static const char scen[] =
		"{\"name\": \"ovh\", \"measure\": \"overhead\", \"modes\": [\"hook\"], \"policy\": \"spread\",\n"
		" \"duration_s\": 0.2, \"warmup_s\": 0, \"repeat\": 2,\n"
		" \"clients\": [{\"name\": \"a\", \"kernel\": \"launch\"}, {\"name\": \"b\", \"kernel\": \"mnist\"}]}\n";
	const struct gs_kvline *l;
	struct records r;

	(void)state;
	assert_int_equal(run_scenario("ovh", scen), 0);
	read_records(in_dir("ovh.txt"), &r);
	/*
	 * An overhead scenario runs every mode one client at a time, each
	 * placed on the empty host: both land on GPU 0, neither shares it,
	 * and what b loses under the hook is the hook's overhead.
	 */
	l = find(&r, "client", "run", "ovh/hook/1", "name", "b");
	expect_str(l, "gpu", "0");
	expect_str(l, "colocated", "1");
	l = find(&r, "client", "run", "ovh/hook/1", "name", "a");
	expect_str(l, "gpu", "0");
	expect_str(l, "colocated_seen", "1");
	assert_float_equal(num(l, "overhead_pct"), 2.0, 1e-6);
	assert_null(gs_kvline_get(l, "share"));
	expect_str(l, "seen_pct", ""); /* a whole GPU: no compute limit */
	expect_str(l, "seen_mem", "0"); /* no memory limit, said so */
	/* Rounds of every mode, exclusive first in each, so that a drifting host reaches all. */
	{
		static const char *const order[] = { "ovh/exclusive/0", "ovh/hook/0",
						     "ovh/exclusive/1", "ovh/hook/1" };
		int i, k = 0;

		for (i = 0; i < r.n; i++)
			if (!strcmp(r.l[i].type, "run")) {
				assert_true(k < 4);
				assert_string_equal(gs_kvline_get(&r.l[i], "id"), order[k++]);
			}
		assert_int_equal(k, 4);
	}
	free_records(&r);
}

static void test_colocate_variants(void **state)
{
	static const char scen[] =
		"{\"name\": \"colo\", \"measure\": \"interference\", \"modes\": [\"timeslice\"],\n"
		" \"duration_s\": 0.2, \"warmup_s\": 0, \"colocate\": [2, 3],\n"
		" \"clients\": [{\"name\": \"v\", \"kernel\": \"vecadd\"}]}\n";
	const struct gs_kvline *l;
	struct records r;

	(void)state;
	assert_int_equal(run_scenario("colo", scen), 0);
	read_records(in_dir("colo.txt"), &r);
	l = find(&r, "slowdown", "scenario", "colo-x2", NULL, NULL);
	expect_str(l, "colocated", "2");
	assert_float_equal(num(l, "factor"), 0.5, 1e-9);
	l = find(&r, "slowdown", "scenario", "colo-x3", NULL, NULL);
	expect_str(l, "colocated", "3");
	assert_float_equal(num(l, "factor"), 1.0 / 3, 1e-4);
	l = find(&r, "client", "run", "colo-x3/timeslice/0", "name", "v-3");
	expect_str(l, "kernel", "vecadd");
	expect_str(l, "gpu_milli", "333"); /* an even split of one GPU */
	l = find(&r, "client", "run", "colo-x2/exclusive/0", "name", "v-2");
	expect_str(l, "gpu_milli", "500");
	free_records(&r);
}

/*
 * The first gpu-check on a real GPU (an H200): the hook's runs of one
 * harness shared a directory of regions, so colo-x4's v-1 met the region
 * colo-x2's v-1 had left (pod ids cut to 20 characters of the scenario's
 * name are the same), with 50 % where it asked for 25 %, and libgpushare
 * refused it. Each run now has a directory of its own, removed after.
 */
static void test_hook_runs_meet_no_earlier_pod(void **state)
{
	static const char scen[] =
		"{\"name\": \"check-interference-vecadd\", \"measure\": \"interference\",\n"
		" \"modes\": [\"hook\"], \"duration_s\": 0.2, \"warmup_s\": 0, \"colocate\": [2, 4],\n"
		" \"repeat\": 2, \"clients\": [{\"name\": \"v\", \"kernel\": \"vecadd\"}]}\n";
	const struct gs_kvline *l;
	struct records r;
	struct dirent *e;
	char want[512];
	DIR *d;

	(void)state;
	assert_int_equal(run_scenario("colo4", scen), 0);
	read_records(in_dir("colo4.txt"), &r);
	l = find(&r, "run", "id", "check-interference-vecadd-x4/hook/1", NULL, NULL);
	expect_str(l, "status", "ok");
	l = find(&r, "client", "run", "check-interference-vecadd-x4/hook/0", "name", "v-1");
	expect_str(l, "seen_pct", "25");
	expect_str(l, "status", "ok");
	snprintf(want, sizeof(want), "%s/shm-check-interference-vecadd-x4.hook.0", in_dir("work"));
	expect_str(l, "seen_shm", want);
	l = find(&r, "slowdown", "scenario", "check-interference-vecadd-x4", NULL, NULL);
	expect_str(l, "samples", "8");
	free_records(&r);
	/* No directory of regions is left in the work directory. */
	d = opendir(in_dir("work"));
	assert_non_null(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "shm-", 4))
			fail_msg("%s is left in the work directory", e->d_name);
	closedir(d);
}

/*
 * libgpushare takes a GPUSHARE_SHM_DIR shorter than 256 bytes: a work
 * directory that makes it longer skips the hook, saying why, instead of
 * starting clients the library refuses.
 */
static void test_hook_long_work_dir(void **state)
{
	const char *args[] = { "--out", NULL, "--work-dir", NULL, NULL, NULL };
	char work[512], name[256];
	struct records r;
	int i;

	(void)state;
	memset(name, 'w', 240); /* one level: a name may have 255 bytes */
	name[240] = 0;
	gs_test_path(name, work, sizeof(work));
	gs_test_write("pair.json", two_pods, NULL, 0);
	args[1] = in_dir("long.txt");
	args[3] = work;
	args[4] = in_dir("pair.json");
	assert_int_equal(bench(NULL, args), 0);
	if (!strstr(out_text, "pair: hook skipped: the pods' regions would be in ") ||
	    !strstr(out_text, "which libgpushare does not take: give a shorter --work-dir"))
		fail_msg("no reason for the skipped hook in:\n%s", out_text);
	read_records(in_dir("long.txt"), &r);
	for (i = 0; i < r.n; i++)
		if (!strcmp(r.l[i].type, "run") && strstr(gs_kvline_get(&r.l[i], "id"), "/hook/"))
			expect_str(&r.l[i], "status", "skipped");
	free_records(&r);
}

/* True when some line of text has exactly these blank-separated words. */
static void expect_row(const char *text, const char *words)
{
	char want[256], line[512];
	const char *p = text;

	snprintf(want, sizeof(want), "%s", words);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *w, *save = NULL, norm[512] = "";

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			if (norm[0])
				strcat(norm, " ");
			strncat(norm, w, sizeof(norm) - strlen(norm) - 2);
		}
		if (!strcmp(norm, want))
			return;
		p += n + (nl != NULL);
	}
	fail_msg("no row '%s' in:\n%s", words, text);
}

static void test_dry_run_placement(void **state)
{
	static const char scen[] =
		"{\"name\": \"place\", \"measure\": \"interference\", \"modes\": [\"timeslice\"],\n"
		" \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 600},\n"
		"  {\"name\": \"b\", \"kernel\": \"vecadd\", \"gpu_milli\": 600},\n"
		"  {\"name\": \"c\", \"kernel\": \"launch\", \"gpu_milli\": 400, \"gpu_mem_mib\": 100}]}\n";
	const char *args[] = { "--dry-run", NULL, NULL };
	int p[2];
	char buf[4096];
	ssize_t n;
	int saved, rc;

	(void)state;
	gs_test_write("place.json", scen, NULL, 0);
	args[1] = in_dir("place.json");
	/* The table goes to stdout: capture it. */
	assert_int_equal(pipe(p), 0);
	saved = dup(STDOUT_FILENO);
	dup2(p[1], STDOUT_FILENO);
	close(p[1]);
	rc = bench(NULL, args);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	assert_int_equal(rc, 0);
	assert_true(n > 0);
	buf[n] = 0;
	/* a and b cannot share a GPU (1200 milli); binpack puts c with one of them. */
	assert_non_null(strstr(buf, "place (interference, policy binpack)\n"));
	expect_row(buf, "0 Fake GPU a vecadd 600 0");
	expect_row(buf, "0 Fake GPU c launch 400 100");
	expect_row(buf, "0 (allocated) 1000 100");
	expect_row(buf, "1 Fake GPU b vecadd 600 0");
	expect_row(buf, "1 (allocated) 600 0");
}

static void test_does_not_fit(void **state)
{
	static const char scen[] =
		"{\"name\": \"big\", \"measure\": \"interference\", \"modes\": [\"timeslice\"],\n"
		" \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"count\": 2},\n"
		"  {\"name\": \"z\", \"kernel\": \"vecadd\", \"gpu_milli\": 500,\n"
		"   \"gpu_mem_mib\": 100}]}\n";

	(void)state;
	assert_int_equal(run_scenario("big", scen), 2);
	if (!strstr(out_text, "big.json:3: client z (gpu_milli 500, gpu_mem_mib 100) does not fit on this host: "))
		fail_msg("stderr: %s", out_text);
	/* Refused before anything ran: no results file at all. */
	assert_int_equal(access(in_dir("big.txt"), F_OK), -1);
	assert_int_equal(access(in_dir("big.txt.tmp"), F_OK), -1);
}

static void test_bad_scenario(void **state)
{
	const char *args[] = { "--out", NULL, NULL, NULL };

	(void)state;
	gs_test_write("bad.json", "{\"name\": \"x\", \"measure\": \"compute\",\n \"modes\": [\"hook\"], \"clients\": [\n"
				  "  {\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 0}]}\n",
		      NULL, 0);
	args[1] = in_dir("bad.txt");
	args[2] = in_dir("bad.json");
	assert_int_equal(bench(NULL, args), 2);
	assert_non_null(strstr(out_text, "bad.json:3:50: clients[0].gpu_milli: 0 is not in 1..1000"));
	assert_int_equal(access(in_dir("bad.txt"), F_OK), -1);
}

static void test_client_crash(void **state)
{
	static const char scen[] =
		"{\"name\": \"crashy\", \"measure\": \"interference\", \"modes\": [\"timeslice\"],\n"
		" \"duration_s\": 0.2, \"warmup_s\": 0,\n"
		" \"clients\": [{\"name\": \"ok\", \"kernel\": \"launch\", \"gpu_milli\": 500},\n"
		"  {\"name\": \"crash\", \"kernel\": \"launch\", \"gpu_milli\": 500}]}\n";
	const struct gs_kvline *l;
	struct records r;
	int i;

	(void)state;
	assert_int_equal(run_scenario("crashy", scen), 1);
	assert_non_null(strstr(out_text, "crashy: exclusive: client crash failed (exit 3); see "));
	/* The results are written all the same, the failure recorded. */
	read_records(in_dir("crashy.txt"), &r);
	l = find(&r, "client", "run", "crashy/timeslice/0", "name", "crash");
	expect_str(l, "status", "failed");
	expect_str(l, "exit", "3");
	assert_null(gs_kvline_get(l, "throughput"));
	l = find(&r, "run", "id", "crashy/timeslice/0", NULL, NULL);
	expect_str(l, "status", "failed");
	l = find(&r, "client", "run", "crashy/timeslice/0", "name", "ok");
	expect_str(l, "status", "ok");
	/* Its neighbour never ran: "ok" ran alone, which is no cell of two. */
	for (i = 0; i < r.n; i++)
		assert_string_not_equal(r.l[i].type, "slowdown");
	free_records(&r);
}

static void test_memory_probe_status(void **state)
{
	static const char scen[] =
		"{\"name\": \"mem\", \"measure\": \"memory\", \"modes\": [\"timeslice\", \"hook\"],\n"
		" \"duration_s\": 0.2, \"warmup_s\": 0,\n"
		" \"clients\": [{\"name\": \"probe\", \"kernel\": \"memprobe\", \"gpu_milli\": 500, \"gpu_mem_mib\": 64},\n"
		"  {\"name\": \"n\", \"kernel\": \"vecadd\", \"gpu_milli\": 500}]}\n";
	const char *args[] = { "--out", NULL, NULL, NULL };
	const struct gs_kvline *l;
	struct records r;

	(void)state;
	gs_test_write("mem.json", scen, NULL, 0);
	args[1] = in_dir("mem.txt");
	args[2] = in_dir("mem.json");
	/* A probe that finds no limit is a measurement, not a failure. */
	assert_int_equal(bench(NULL, args), 0);
	read_records(in_dir("mem.txt"), &r);
	l = find(&r, "client", "run", "mem/timeslice/0", "name", "probe");
	expect_str(l, "status", "ok");
	expect_str(l, "check_ok", "0");
	l = find(&r, "client", "run", "mem/hook/0", "name", "probe");
	expect_str(l, "check_ok", "1");
	expect_str(l, "seen_mem", "64");
	free_records(&r);
}

static const char mps_only[] =
	"{\"name\": \"mpsr\", \"measure\": \"compute\", \"modes\": [\"mps\"], \"repeat\": 3,\n"
	" \"duration_s\": 0.2, \"warmup_s\": 0,\n"
	" \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 500},\n"
	"  {\"name\": \"b\", \"kernel\": \"vecadd\", \"gpu_milli\": 500}]}\n";

/* Repeats: a daemon each, the next started only once the previous has gone. */
static void test_mps_daemon_per_repeat(void **state)
{
	static const char *const env[] = { "FAKE_MPS_QUIT_S", "0.7", NULL };

	(void)state;
	extra_env = env;
	assert_int_equal(run_scenario("mpsr", mps_only), 0);
	assert_int_equal(expect_mps_daemons(realtime_ns()), 3);
}

/* Runs the fake control as the harness would, for the stale-daemon case. */
static void start_daemon(const char *pipe_dir, const char *log_dir)
{
	char fake_dir[256];
	int status;
	pid_t pid;

	gs_test_path("state", fake_dir, sizeof(fake_dir));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir, 1);
		setenv("CUDA_MPS_LOG_DIRECTORY", log_dir, 1);
		setenv("FAKE_CLIENT_DIR", fake_dir, 1);
		execl(GS_FAKE_MPS, GS_FAKE_MPS, "-d", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A daemon left by a harness that was killed is quit before ours start. */
static void test_mps_stale_daemon_quit(void **state)
{
	char stale[192], pipe_dir[256], log_dir[256], owner[256];
	struct mps_event ev[64];
	int n, i, quit = 0, exited = 0;
	/* Its owner: a harness that is gone (a pid beyond any pid_max). */
	const long dead = 0x7ffffff0L;
	FILE *f;

	(void)state;
	snprintf(stale, sizeof(stale), "%sXXXXXX", mps_prefix);
	assert_non_null(mkdtemp(stale));
	snprintf(pipe_dir, sizeof(pipe_dir), "%s/pipe", stale);
	snprintf(log_dir, sizeof(log_dir), "%s/log", stale);
	snprintf(owner, sizeof(owner), "%s/owner", stale);
	assert_int_equal(mkdir(pipe_dir, 0700), 0);
	assert_int_equal(mkdir(log_dir, 0700), 0);
	f = fopen(owner, "w");
	assert_non_null(f);
	fprintf(f, "%ld\n", dead);
	fclose(f);
	start_daemon(pipe_dir, log_dir);

	assert_int_equal(run_scenario("mpsr", mps_only), 0);
	n = read_mps_log(ev, 64);
	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].pipe, pipe_dir))
			continue;
		quit |= !strcmp(ev[i].kind, "control") && !strcmp(ev[i].in, "quit");
		exited |= !strcmp(ev[i].kind, "daemon-exit");
	}
	if (!quit || !exited)
		fail_msg("the stale daemon of %s was %s", pipe_dir, quit ? "not gone" : "not quit");
	if (!strstr(out_text, "quit a stale MPS control daemon"))
		fail_msg("stderr does not say so: %s", out_text);
	if (!access(stale, F_OK))
		fail_msg("%s is left behind", stale);
}

/* SIGTERM mid-run: clients killed, the daemon quit and gone, no partial results. */
static void test_signal_mid_run(void **state)
{
	static const char scen[] =
		"{\"name\": \"long\", \"measure\": \"compute\", \"modes\": [\"mps\"],\n"
		" \"duration_s\": 20, \"warmup_s\": 0,\n"
		" \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 500},\n"
		"  {\"name\": \"b\", \"kernel\": \"vecadd\", \"gpu_milli\": 500}]}\n";
	static const char *const env[] = { "FAKE_CLIENT_SLEEP_S", "20", NULL };
	const char *args[] = { "--out", NULL, NULL, NULL };
	struct mps_event ev[64];
	struct bench_proc b;
	long long end_ns;
	int i, n, started = 0;

	(void)state;
	extra_env = env;
	gs_test_write("long.json", scen, NULL, 0);
	args[1] = in_dir("long.txt");
	args[2] = in_dir("long.json");
	bench_start(NULL, args, &b);
	/* Wait for the daemon of the MPS run, then stop the harness. */
	for (i = 0; i < 400 && !started; i++) {
		usleep(50000);
		n = read_mps_log(ev, 64);
		while (n-- > 0)
			started |= !strcmp(ev[n].kind, "daemon-start");
	}
	assert_true(started);
	usleep(300000);
	assert_int_equal(kill(b.pid, SIGTERM), 0);
	assert_int_equal(bench_wait(&b), 128 + SIGTERM);
	end_ns = realtime_ns();
	assert_int_equal(expect_mps_daemons(end_ns), 1);
	assert_int_equal(access(in_dir("long.txt"), F_OK), -1);
	assert_int_equal(access(in_dir("long.txt.tmp"), F_OK), -1);
}

/* A GPU whose compute mode forbids co-location: said plainly, never changed. */
static void test_compute_mode_checked(void **state)
{
	static const char *const excl[] = { "FAKECUDA_COMPUTE_MODE", "3", NULL };
	static const char *const prohibited[] = { "FAKECUDA_COMPUTE_MODE", "2", NULL };
	const char *args[] = { "--out", NULL, NULL, NULL };
	const struct gs_kvline *l;
	struct records r;

	(void)state;
	gs_test_write("pair.json", two_pods, NULL, 0);
	args[1] = in_dir("results.txt");
	args[2] = in_dir("pair.json");
	extra_env = excl;
	assert_int_equal(bench(NULL, args), 0);
	if (!strstr(out_text, "pair: timeslice skipped: GPU 0 (GPU-66616b65-6770-7500-0000-"
			      "000000000000) is in compute mode Exclusive_Process"))
		fail_msg("stderr: %s", out_text);
	assert_non_null(strstr(out_text, "gpusim-bench never changes the compute mode"));
	read_records(in_dir("results.txt"), &r);
	l = find(&r, "run", "id", "pair/timeslice/0", NULL, NULL);
	expect_str(l, "status", "skipped");
	l = find(&r, "run", "id", "pair/hook/0", NULL, NULL);
	expect_str(l, "status", "skipped");
	/* One process at a time is what MPS needs: its server is that process. */
	l = find(&r, "run", "id", "pair/mps/0", NULL, NULL);
	expect_str(l, "status", "ok");
	l = find(&r, "run", "id", "pair/exclusive/0", NULL, NULL);
	expect_str(l, "status", "ok");
	free_records(&r);

	extra_env = prohibited;
	assert_int_equal(bench(NULL, args), 1);
	if (!strstr(out_text, "pair: exclusive skipped: GPU 0 (GPU-66616b65-6770-7500-0000-"
			      "000000000000) is in compute mode Prohibited"))
		fail_msg("stderr: %s", out_text);
}

static void test_no_driver(void **state)
{
	const char *args[] = { NULL, NULL };

	(void)state;
	gs_test_write("pair.json", two_pods, NULL, 0);
	args[0] = in_dir("pair.json");
	assert_int_equal(bench("/nonexistent/libcuda.so.1", args), 77);
	assert_non_null(strstr(out_text, "gpusim-bench: no CUDA driver (/nonexistent/libcuda.so.1): "));
	assert_non_null(strstr(out_text, "this needs an NVIDIA GPU and its driver"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_modes_environment_and_numbers, setup),
		GS_TMPDIR_TEST(test_overhead_alone, setup),
		GS_TMPDIR_TEST(test_colocate_variants, setup),
		GS_TMPDIR_TEST(test_hook_runs_meet_no_earlier_pod, setup),
		GS_TMPDIR_TEST(test_hook_long_work_dir, setup),
		GS_TMPDIR_TEST(test_dry_run_placement, setup),
		GS_TMPDIR_TEST(test_does_not_fit, setup),
		GS_TMPDIR_TEST(test_bad_scenario, setup),
		GS_TMPDIR_TEST(test_client_crash, setup),
		GS_TMPDIR_TEST(test_memory_probe_status, setup),
		GS_TMPDIR_TEST(test_no_driver, setup),
		GS_TMPDIR_TEST(test_mps_daemon_per_repeat, setup),
		GS_TMPDIR_TEST(test_mps_stale_daemon_quit, setup),
		GS_TMPDIR_TEST(test_signal_mid_run, setup),
		GS_TMPDIR_TEST(test_compute_mode_checked, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
