/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - running a scenario's clients as separate processes in one
 * sharing mode.
 *
 * Each client is started with fork and exec, its GPU chosen through
 * CUDA_VISIBLE_DEVICES (by UUID, so it means the same GPU whatever the
 * harness's own view), its stdout read for the report line and its stderr
 * kept in a log file. Co-located clients get one start time
 * (--start-at-ns) so that they measure the same window.
 *
 * The MPS mode starts a private control daemon (mps.c: its own pipe and
 * log directories from mkdtemp under /tmp), gives each client
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT
 * for its memory), and quits it when the clients are done, when one fails
 * and on SIGINT or SIGTERM, waiting until it has gone.
 *
 * Each client runs in a process group of its own, so that killing it
 * kills what it started too. Signals only set a flag
 * (gs_bench_request_stop); the waits here notice it and stop the run.
 *
 * The GPUs' compute modes are read, never changed: a mode that runs
 * several clients on a GPU in Exclusive_Process (one process at a time)
 * is skipped, saying so, and so is every mode on a Prohibited GPU.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/clock.h"
#include "core/error.h"

#define REPORT_MAX 8192
#define KILL_GRACE_S 120.0

/* What a stop must undo: live clients (and the MPS daemon, mps.c). */
static pid_t live[GS_SCENARIO_MAX_CLIENTS];
static volatile sig_atomic_t stop_sig;

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void iso_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	if (!strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unknown");
}

void gs_bench_request_stop(int sig)
{
	static const char msg[] = "gpusim-bench: stopping: killing the clients, quitting the "
				  "MPS daemon\n";

	stop_sig = sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		return;
}

int gs_bench_stop_requested(void)
{
	return stop_sig;
}

/* Kills a client and whatever it started (its own process group). */
static void kill_client(pid_t pid)
{
	if (pid > 0 && kill(-pid, SIGKILL))
		kill(pid, SIGKILL);
}

void gs_bench_abort(void)
{
	int i;

	for (i = 0; i < GS_SCENARIO_MAX_CLIENTS; i++)
		if (live[i] > 0)
			kill_client(live[i]);
	gs_bench_mps_stop();
}

/* Sets the variables of one client's process (called in the child). */
static void client_env(const struct gs_bench_env *env, const struct gs_bench_host *h,
		       const struct gs_scenario *s, const struct gs_scenario_client *cl, int gpu,
		       enum gs_bench_mode m, const char *shm_dir)
{
	char buf[1024];

	setenv("CUDA_VISIBLE_DEVICES", h->gpu[gpu].uuid, 1);
	if (m == GS_MODE_MPS) {
		setenv("CUDA_MPS_PIPE_DIRECTORY", gs_bench_mps_pipe_dir(), 1);
		setenv("CUDA_MPS_LOG_DIRECTORY", gs_bench_mps_log_dir(), 1);
		if (cl->gpu_milli < 1000) {
			snprintf(buf, sizeof(buf), "%d", cl->gpu_milli / 10 > 0 ? cl->gpu_milli / 10 : 1);
			setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", buf, 1);
		}
		if (cl->gpu_mem_mib) {
			/* Device 0 is the one GPU CUDA_VISIBLE_DEVICES leaves it. */
			snprintf(buf, sizeof(buf), "0=%lldM", (long long)cl->gpu_mem_mib);
			setenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", buf, 1);
		}
	}
	if (m == GS_MODE_HOOK) {
		const char *pre = getenv("LD_PRELOAD");

		snprintf(buf, sizeof(buf), "%s%s%s", env->hook_path, pre && *pre ? ":" : "",
			 pre ? pre : "");
		setenv("LD_PRELOAD", buf, 1);
		snprintf(buf, sizeof(buf), "%.20s.%.40s", s->name, cl->name);
		setenv("GPUSHARE_POD_ID", buf, 1);
		setenv("GPUSHARE_NODE_ID", "bench", 1);
		setenv("GPUSHARE_SHM_DIR", shm_dir, 1);
		/* 0: no memory limit; a process of a pod without any limit refuses to run. */
		snprintf(buf, sizeof(buf), "%lld", (long long)cl->gpu_mem_mib);
		setenv("GPUSHARE_MEM_LIMIT_MIB", buf, 1);
		if (cl->gpu_milli < 1000) {
			snprintf(buf, sizeof(buf), "%d", cl->gpu_milli / 10 > 0 ? cl->gpu_milli / 10 : 1);
			setenv("GPUSHARE_COMPUTE_PERCENT", buf, 1);
		}
	} else {
		/* A hook inherited from the harness's own environment would skew the baseline. */
		unsetenv("GPUSHARE_MEM_LIMIT_MIB");
		unsetenv("GPUSHARE_COMPUTE_PERCENT");
	}
}

struct child {
	int client;
	pid_t pid;
	int out_fd;
	char out[REPORT_MAX];
	size_t out_len;
	double t0;
};

static int spawn(const struct gs_bench_env *env, const struct gs_bench_host *h,
		 const struct gs_scenario *s, int ci, int gpu, enum gs_bench_mode m,
		 long long start_ns, const char *shm_dir, struct gs_bench_result *r,
		 struct child *ch)
{
	const struct gs_scenario_client *cl = &s->clients[ci];
	char path[600], dur[32], warm[32], start[32], limit[32];
	char *argv[GS_SCENARIO_MAX_ARGS + 16];
	int out[2], log_fd, a = 0, i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", env->client_dir, cl->kernel);
	snprintf(r->log_path, sizeof(r->log_path), "%s/%s.%s.%s.log", env->work_dir, s->name,
		 gs_bench_mode_name(m), cl->name);
	snprintf(dur, sizeof(dur), "%g", s->duration_s);
	snprintf(warm, sizeof(warm), "%g", s->warmup_s);
	snprintf(start, sizeof(start), "%lld", start_ns);
	snprintf(limit, sizeof(limit), "%lld", (long long)cl->gpu_mem_mib);
	argv[a++] = path;
	argv[a++] = (char *)"--name";
	argv[a++] = (char *)cl->name;
	argv[a++] = (char *)"--duration-s";
	argv[a++] = dur;
	argv[a++] = (char *)"--warmup-s";
	argv[a++] = warm;
	argv[a++] = (char *)"--start-at-ns";
	argv[a++] = start;
	if (!strcmp(cl->kernel, "memprobe")) {
		argv[a++] = (char *)"--limit-mib";
		argv[a++] = limit;
	}
	for (i = 0; i < cl->n_args; i++)
		argv[a++] = cl->args[i];
	argv[a] = NULL;

	log_fd = open(r->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0 || pipe(out)) {
		if (log_fd >= 0)
			close(log_fd);
		return GS_EIO;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		close(log_fd);
		return GS_EIO;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(out[1], STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
		close(out[0]);
		close(out[1]);
		client_env(env, h, s, cl, gpu, m, shm_dir);
		execv(path, argv);
		fprintf(stderr, "gpusim-bench: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* either side may come first */
	close(out[1]);
	close(log_fd);
	fcntl(out[0], F_SETFD, FD_CLOEXEC);
	ch->client = ci;
	ch->pid = pid;
	ch->out_fd = out[0];
	ch->out_len = 0;
	ch->t0 = gs_clock_s();
	live[ci] = pid;
	return 0;
}

/* Takes the last "report ..." line of a client's stdout. */
static void parse_report(const struct child *ch, struct gs_bench_result *r)
{
	const char *p = ch->out, *last = NULL, *end;
	char line[REPORT_MAX], err[128];
	const char *v;

	while ((p = strstr(p, "report ")) != NULL) {
		if (p == ch->out || p[-1] == '\n')
			last = p;
		p++;
	}
	if (!last)
		return;
	end = strchr(last, '\n');
	snprintf(line, sizeof(line), "%.*s", end ? (int)(end - last) : (int)strlen(last), last);
	if (gs_kvline_parse(line, &r->report, err, sizeof(err))) {
		fprintf(stderr, "gpusim-bench: %s: unreadable report: %s\n", r->log_path, err);
		return;
	}
	r->has_report = 1;
	v = gs_kvline_get(&r->report, "ok");
	r->check_ok = v && !strcmp(v, "1");
	v = gs_kvline_get(&r->report, "throughput");
	if (v) {
		char *e;
		double t = strtod(v, &e);

		if (*e == 0 && t >= 0)
			r->throughput = t;
	}
	v = gs_kvline_get(&r->report, "unit");
	if (v)
		snprintf(r->unit, sizeof(r->unit), "%s", v);
}

/* Waits for the children, reading their stdout, killing any that overstay. */
static void collect(struct child *ch, int n, struct gs_bench_result *res, double deadline_s)
{
	struct pollfd pf[GS_SCENARIO_MAX_CLIENTS];
	int open_fds = n, i, k, status, killed = 0;

	while (open_fds > 0) {
		double left = deadline_s - gs_clock_s();
		int np = 0, map[GS_SCENARIO_MAX_CLIENTS];

		if (stop_sig && !killed) {
			for (i = 0; i < n; i++)
				if (ch[i].out_fd >= 0)
					kill_client(ch[i].pid);
			killed = 1;
			deadline_s = gs_clock_s() + 5;
			continue;
		}
		if (left <= 0 && killed) {
			/* Killed, yet something still holds its stdout: stop reading. */
			for (i = 0; i < n; i++)
				if (ch[i].out_fd >= 0) {
					close(ch[i].out_fd);
					ch[i].out_fd = -1;
				}
			break;
		}
		if (left <= 0) {
			for (i = 0; i < n; i++)
				if (ch[i].out_fd >= 0) {
					fprintf(stderr, "gpusim-bench: %s overstayed; killed\n",
						res[i].log_path);
					kill_client(ch[i].pid);
				}
			killed = 1;
			left = 5;
			deadline_s = gs_clock_s() + 5;
		}
		for (i = 0; i < n; i++) {
			if (ch[i].out_fd < 0)
				continue;
			pf[np].fd = ch[i].out_fd;
			pf[np].events = POLLIN;
			map[np++] = i;
		}
		if (poll(pf, (nfds_t)np, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		for (k = 0; k < np; k++) {
			struct child *c = &ch[map[k]];
			ssize_t got;
			char sink[1024];

			if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (c->out_len < sizeof(c->out) - 1)
				got = read(c->out_fd, c->out + c->out_len, sizeof(c->out) - 1 - c->out_len);
			else
				got = read(c->out_fd, sink, sizeof(sink)); /* keep draining */
			if (got > 0 && c->out_len < sizeof(c->out) - 1) {
				c->out_len += (size_t)got;
			} else if (got == 0 || (got < 0 && errno != EINTR)) {
				close(c->out_fd);
				c->out_fd = -1;
				open_fds--;
			}
		}
	}
	for (i = 0; i < n; i++) {
		while (waitpid(ch[i].pid, &status, 0) < 0 && errno == EINTR)
			;
		live[ch[i].client] = 0;
		res[i].wall_s = gs_clock_s() - ch[i].t0;
		res[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		ch[i].out[ch[i].out_len] = 0;
		parse_report(&ch[i], &res[i]);
	}
}

static void result_init(struct gs_bench_result *r, int client, int gpu)
{
	memset(r, 0, sizeof(*r));
	r->client = client;
	r->gpu = gpu;
	r->exit_code = -1;
	r->throughput = NAN;
	r->alone = r->factor = r->slowdown = r->share = r->overhead_pct = NAN;
}

/*
 * Whether the compute mode of a GPU the run uses forbids it: every mode on
 * a Prohibited GPU; on an Exclusive_Process one (or the old
 * Exclusive_Thread), a mode that runs two clients on it at once, except
 * MPS, whose server is the one process. The compute mode is never changed
 * here: the card may be set so on purpose, and may be shared.
 */
static int compute_mode_forbids(const struct gs_bench_host *h, const struct gs_scenario *s,
				const int *placement, enum gs_bench_mode m, int sequential,
				char *reason, size_t len)
{
	int i, k;

	for (i = 0; i < s->n_clients; i++) {
		const struct gs_bench_gpu *g = &h->gpu[placement[i]];
		int on_gpu = 0;

		for (k = 0; k < s->n_clients; k++)
			on_gpu += placement[k] == placement[i];
		if (g->compute_mode == GS_BENCH_CM_PROHIBITED) {
			snprintf(reason, len, "GPU %d (%s) is in compute mode Prohibited: no process "
				 "may use it. gpusim-bench never changes the compute mode; "
				 "'nvidia-smi -i %s -c DEFAULT' (as root) would allow it",
				 placement[i], g->uuid, g->uuid);
			return 1;
		}
		if ((g->compute_mode == GS_BENCH_CM_EXCLUSIVE_PROCESS ||
		     g->compute_mode == GS_BENCH_CM_EXCLUSIVE_THREAD) &&
		    !sequential && m != GS_MODE_MPS && on_gpu > 1) {
			snprintf(reason, len, "GPU %d (%s) is in compute mode %s, which lets one "
				 "process at a time use it; %s needs %d on it at once. "
				 "gpusim-bench never changes the compute mode; 'nvidia-smi -i %s "
				 "-c DEFAULT' (as root) would allow it", placement[i], g->uuid,
				 gs_bench_compute_mode_name(g->compute_mode), gs_bench_mode_name(m),
				 on_gpu, g->uuid);
			return 1;
		}
	}
	return 0;
}

/*
 * Removes a run's directory of libgpushare regions and what is in it. A
 * pod's region outlives its processes and holds the limits its first
 * process set: left for the next run, it would refuse that run's clients
 * of the same name with other limits.
 */
static void remove_regions(const char *dir)
{
	char path[1200];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "gpushare.", 9)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

int gs_bench_run_mode(const struct gs_bench_env *env, const struct gs_bench_host *h,
		      const struct gs_scenario *s, const int *placement, enum gs_bench_mode m,
		      int repeat, struct gs_bench_run *run)
{
	static struct child ch[GS_SCENARIO_MAX_CLIENTS];
	char shm_dir[600];
	double t0 = gs_clock_s(), slack;
	long long start_ns;
	int i, k, rc = 0;
	/* Exclusive is the baseline; an overhead scenario keeps every mode one at a time. */
	int sequential = m == GS_MODE_EXCLUSIVE || s->measure == GS_MEASURE_OVERHEAD;

	memset(run, 0, sizeof(*run));
	run->mode = m;
	run->repeat = repeat;
	run->n = s->n_clients;
	iso_now(run->started, sizeof(run->started));
	for (i = 0; i < s->n_clients; i++) {
		int same = 0;

		result_init(&run->res[i], i, placement[i]);
		for (k = 0; k < s->n_clients; k++)
			same += placement[k] == placement[i];
		run->res[i].colocated = sequential ? 1 : same;
	}
	/* One directory of regions per run: no pod of an earlier run is met. */
	snprintf(shm_dir, sizeof(shm_dir), "%s/shm-%s.%s.%d", env->work_dir, s->name,
		 gs_bench_mode_name(m), repeat);
	if (compute_mode_forbids(h, s, placement, m, sequential, run->reason,
				 sizeof(run->reason))) {
		run->skipped = 1;
		return GS_ENODEV;
	}
	if (stop_sig) {
		run->skipped = 1;
		snprintf(run->reason, sizeof(run->reason), "stopped by signal %d", (int)stop_sig);
		return GS_EINTR;
	}
	if (m == GS_MODE_HOOK) {
		if (access(env->hook_path, R_OK)) {
			run->skipped = 1;
			snprintf(run->reason, sizeof(run->reason), "%s: %s", env->hook_path,
				 strerror(errno));
			return GS_ENOENT;
		}
		/* libgpushare refuses a longer GPUSHARE_SHM_DIR (GS_SHARE_DIR_MAX, with its NUL). */
		if (strlen(shm_dir) >= 256) {
			run->skipped = 1;
			snprintf(run->reason, sizeof(run->reason), "the pods' regions would be in %s, "
				 "256 bytes or longer, which libgpushare does not take: give a "
				 "shorter --work-dir", shm_dir);
			return GS_EINVAL;
		}
		remove_regions(shm_dir); /* what a killed harness left */
		if (mkdir(shm_dir, 0700) && errno != EEXIST) {
			run->skipped = 1;
			snprintf(run->reason, sizeof(run->reason), "cannot create %s", shm_dir);
			return GS_EIO;
		}
	}
	if (m == GS_MODE_MPS) {
		char tag[300];

		snprintf(tag, sizeof(tag), "%s.mps.%d", s->name, repeat);
		rc = gs_bench_mps_start(env, tag, run->reason, sizeof(run->reason));
		if (rc) {
			run->skipped = 1;
			return rc;
		}
	}
	slack = s->warmup_s + s->duration_s + KILL_GRACE_S;
	if (sequential) {
		for (i = 0; i < s->n_clients && !rc && !stop_sig; i++) {
			start_ns = realtime_ns() + (long long)((env->startup_s + s->warmup_s) * 1e9);
			rc = spawn(env, h, s, i, placement[i], m, start_ns, shm_dir, &run->res[i], &ch[0]);
			if (!rc)
				collect(&ch[0], 1, &run->res[i],
					gs_clock_s() + env->startup_s + slack);
		}
	} else {
		/* Start-up of n contexts at once takes longer: give each some room. */
		double startup = env->startup_s * (1.0 + 0.25 * s->n_clients);
		int started = 0;

		start_ns = realtime_ns() + (long long)((startup + s->warmup_s) * 1e9);
		for (i = 0; i < s->n_clients; i++) {
			rc = spawn(env, h, s, i, placement[i], m, start_ns, shm_dir, &run->res[i], &ch[i]);
			if (rc)
				break;
			started++;
		}
		/* Do not leave a half-started mode running: its numbers would mean nothing. */
		for (k = 0; rc && k < started; k++)
			kill_client(ch[k].pid);
		if (started)
			collect(ch, started, run->res, gs_clock_s() + startup + slack);
	}
	if (m == GS_MODE_MPS)
		gs_bench_mps_stop();
	if (m == GS_MODE_HOOK)
		remove_regions(shm_dir);
	run->wall_s = gs_clock_s() - t0;
	if (rc) {
		run->skipped = 1;
		snprintf(run->reason, sizeof(run->reason), "cannot start a client: %s",
			 strerror(errno));
	}
	return rc;
}

void gs_bench_run_release(struct gs_bench_run *run)
{
	int i;

	for (i = 0; i < run->n; i++)
		gs_kvline_release(&run->res[i].report);
}
