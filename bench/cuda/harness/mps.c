/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mps.c - the private NVIDIA MPS control daemon of the harness's mps mode.
 *
 * Each run in mps mode gets a daemon of its own, with pipe and log
 * directories in a fresh mkdtemp directory under /tmp (MPS talks through
 * Unix sockets in the pipe directory, and a socket's path must fit in
 * sun_path's 108 bytes, which a deep work directory may not), so that
 * clients of other MPS daemons on the host never meet ours. The directory
 * holds "owner", the harness's pid, so that a later harness can tell a
 * daemon left behind by one that was killed from one in use.
 *
 * Stopping is "quit" on the daemon's control pipe, then waiting until the
 * daemon has really exited: "quit" returns at once, while the daemon and
 * its server take a moment to go, and a daemon still running when the
 * next repeat starts its own would share the GPU with it. The daemon's
 * pid comes from nvidia-cuda-mps-control.pid in the pipe directory or,
 * without it, from /proc (the processes whose environment names our pipe
 * directory). The wait is bounded; a daemon that outlives it is reported
 * and no further daemon is started. Then the logs are copied into the
 * work directory and the temporary directory is removed.
 *
 * The first start also quits daemons that harnesses killed earlier left
 * in /tmp/gpusim-mps-* (owned by this user, owner no longer alive).
 *
 * GPUSIM_BENCH_MPS_DIR names another directory than /tmp for all of this
 * (the tests use one of their own, so that concurrent test runs never
 * take each other's daemons for stale ones).
 *
 * The GPU's compute mode is never touched: MPS runs in the default mode
 * too. Not thread-safe; not for signal handlers (main.c only sets a flag).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#define MPS_ROOT_PREFIX "gpusim-mps-"
#define MPS_PID_FILE "nvidia-cuda-mps-control.pid"
#define MPS_EXIT_WAIT_S 30.0
/* The longest name MPS puts in the pipe directory, with room to spare. */
#define MPS_SOCKET_NAME_MAX 24
#define SUN_PATH_MAX 108

static struct {
	const char *control;     /* nvidia-cuda-mps-control */
	char root[128];          /* /tmp/gpusim-mps-XXXXXX, "" when none */
	char pipe_dir[160], log_dir[160];
	char keep_logs[600];     /* where the logs go once the daemon has gone */
	int running;
	int wedged;              /* a daemon did not exit: start no other */
	int stale_checked;
} mps;

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

const char *gs_bench_mps_pipe_dir(void)
{
	return mps.pipe_dir;
}

const char *gs_bench_mps_log_dir(void)
{
	return mps.log_dir;
}

/*
 * Runs nvidia-cuda-mps-control with these directories; arg may be NULL,
 * stdin_text too. Returns its exit status, -1 when it could not run.
 */
static int control(const char *pipe_dir, const char *log_dir, const char *arg,
		   const char *stdin_text)
{
	int in[2], status = -1;
	pid_t pid;

	if (pipe(in))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(in[0], STDIN_FILENO);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		close(in[0]);
		close(in[1]);
		setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir, 1);
		setenv("CUDA_MPS_LOG_DIRECTORY", log_dir, 1);
		if (arg)
			execl(mps.control, mps.control, arg, (char *)NULL);
		else
			execl(mps.control, mps.control, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	if (stdin_text && write(in[1], stdin_text, strlen(stdin_text)) < 0)
		status = -1;
	close(in[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int alive(pid_t pid)
{
	return pid > 0 && (!kill(pid, 0) || errno == EPERM);
}

/* Reads a pid written as text in a file; 0 when there is none. */
static pid_t read_pid(const char *path)
{
	char buf[32];
	ssize_t n;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	v = strtol(buf, NULL, 10);
	return v > 0 ? (pid_t)v : 0;
}

/* Whether some process other than us runs with CUDA_MPS_PIPE_DIRECTORY=pipe_dir. */
static pid_t find_by_environment(const char *pipe_dir)
{
	char want[160], path[64], buf[16384];
	struct dirent *d;
	pid_t found = 0;
	DIR *proc = opendir("/proc");

	if (!proc)
		return 0;
	snprintf(want, sizeof(want), "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
	while (!found && (d = readdir(proc)) != NULL) {
		pid_t pid = (pid_t)atoi(d->d_name);
		ssize_t n, off;
		int fd;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		for (off = 0; off < n; off += (ssize_t)strlen(buf + off) + 1) {
			if (!strcmp(buf + off, want)) {
				found = pid;
				break;
			}
		}
	}
	closedir(proc);
	return found;
}

/* The daemon of pipe_dir, if one runs: its pid, else 0. */
static pid_t daemon_pid(const char *pipe_dir)
{
	char path[160];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", pipe_dir, MPS_PID_FILE);
	pid = read_pid(path);
	if (pid)
		return alive(pid) ? pid : 0;
	return find_by_environment(pipe_dir);
}

/* Waits up to MPS_EXIT_WAIT_S for the daemon of pipe_dir to be gone. */
static int wait_gone(const char *pipe_dir, pid_t *last)
{
	double until = gs_clock_s() + MPS_EXIT_WAIT_S;
	pid_t pid;

	while ((pid = daemon_pid(pipe_dir)) != 0) {
		*last = pid;
		if (gs_clock_s() > until)
			return -1;
		sleep_s(0.05);
	}
	return 0;
}

/* Removes the entries of dir (not below), then dir. */
static void remove_flat(const char *dir)
{
	char path[512];
	struct dirent *d;
	DIR *h = opendir(dir);

	if (h) {
		while ((d = readdir(h)) != NULL) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			unlink(path);
		}
		closedir(h);
	}
	rmdir(dir);
}

static void remove_root(const char *root)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/pipe", root);
	remove_flat(path);
	snprintf(path, sizeof(path), "%s/log", root);
	remove_flat(path);
	snprintf(path, sizeof(path), "%s/owner", root);
	unlink(path);
	rmdir(root);
}

/* Copies the regular files of from into the new directory to. */
static void copy_logs(const char *from, const char *to)
{
	char src[512], dst[1024], buf[8192];
	struct dirent *d;
	DIR *h = opendir(from);

	if (!h)
		return;
	if (mkdir(to, 0755) && errno != EEXIST) {
		closedir(h);
		return;
	}
	while ((d = readdir(h)) != NULL) {
		struct stat sb;
		ssize_t n;
		int in, out;

		snprintf(src, sizeof(src), "%s/%s", from, d->d_name);
		if (lstat(src, &sb) || !S_ISREG(sb.st_mode))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", to, d->d_name);
		in = open(src, O_RDONLY | O_CLOEXEC);
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
	}
	closedir(h);
}

/* Where the daemons' directories go: /tmp, or GPUSIM_BENCH_MPS_DIR. */
static const char *base_dir(void)
{
	const char *d = getenv("GPUSIM_BENCH_MPS_DIR");

	return d && d[0] == '/' ? d : "/tmp";
}

/* Quits the daemons that killed harnesses left in /tmp/gpusim-mps-*. */
static void quit_stale(void)
{
	char root[300], pipe_dir[320], log_dir[320], owner_file[320];
	struct dirent *d;
	DIR *tmp = opendir(base_dir());

	if (!tmp)
		return;
	while ((d = readdir(tmp)) != NULL) {
		struct stat sb;
		pid_t owner, pid, last = 0;

		if (strncmp(d->d_name, MPS_ROOT_PREFIX, strlen(MPS_ROOT_PREFIX)))
			continue;
		snprintf(root, sizeof(root), "%s/%s", base_dir(), d->d_name);
		if (lstat(root, &sb) || !S_ISDIR(sb.st_mode) || sb.st_uid != getuid())
			continue;
		snprintf(owner_file, sizeof(owner_file), "%s/owner", root);
		owner = read_pid(owner_file);
		/* Without an owner we cannot tell: leave it alone. */
		if (!owner || alive(owner))
			continue;
		snprintf(pipe_dir, sizeof(pipe_dir), "%s/pipe", root);
		snprintf(log_dir, sizeof(log_dir), "%s/log", root);
		pid = daemon_pid(pipe_dir);
		if (pid) {
			fprintf(stderr, "gpusim-bench: quit a stale MPS control daemon (pid %d) left "
					"in %s by gpusim-bench pid %d, which is gone\n", (int)pid, root,
				(int)owner);
			control(pipe_dir, log_dir, NULL, "quit\n");
			if (wait_gone(pipe_dir, &last)) {
				fprintf(stderr, "gpusim-bench: the stale MPS control daemon (pid %d) in "
						"%s has not exited %.0f s after quit; left alone\n",
					(int)last, root, MPS_EXIT_WAIT_S);
				continue;
			}
		}
		remove_root(root);
	}
	closedir(tmp);
}

int gs_bench_mps_start(const struct gs_bench_env *env, const char *tag, char *reason,
		       size_t len)
{
	char owner[160], text[32];
	int fd;

	if (!env->mps_control) {
		snprintf(reason, len, "nvidia-cuda-mps-control not found in PATH");
		return GS_ENOENT;
	}
	if (mps.wedged) {
		snprintf(reason, len, "an earlier MPS control daemon did not exit after quit; "
				      "no other is started while it may run");
		return GS_EIO;
	}
	mps.control = env->mps_control;
	if (!mps.stale_checked) {
		mps.stale_checked = 1;
		quit_stale();
	}
	if (strlen(base_dir()) + sizeof("/" MPS_ROOT_PREFIX "XXXXXX") > sizeof(mps.root)) {
		snprintf(reason, len, "%s is too long for MPS's Unix sockets", base_dir());
		return GS_EIO;
	}
	snprintf(mps.root, sizeof(mps.root), "%s/" MPS_ROOT_PREFIX "XXXXXX", base_dir());
	if (!mkdtemp(mps.root)) {
		snprintf(reason, len, "cannot create a directory in %s: %s", base_dir(),
			 strerror(errno));
		mps.root[0] = 0;
		return GS_EIO;
	}
	/* The owner first: a directory without one is never taken for stale. */
	snprintf(owner, sizeof(owner), "%s/owner", mps.root);
	fd = open(owner, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		snprintf(text, sizeof(text), "%d\n", (int)getpid());
		if (write(fd, text, strlen(text)) < 0)
			text[0] = 0;
		close(fd);
	}
	snprintf(mps.pipe_dir, sizeof(mps.pipe_dir), "%s/pipe", mps.root);
	snprintf(mps.log_dir, sizeof(mps.log_dir), "%s/log", mps.root);
	snprintf(mps.keep_logs, sizeof(mps.keep_logs), "%s/%s.mps-log", env->work_dir, tag);
	if (strlen(mps.pipe_dir) + 1 + MPS_SOCKET_NAME_MAX >= SUN_PATH_MAX) {
		snprintf(reason, len, "%s is too long for MPS's Unix sockets", mps.pipe_dir);
		remove_root(mps.root);
		return GS_EIO;
	}
	if (fd < 0 || mkdir(mps.pipe_dir, 0700) || mkdir(mps.log_dir, 0700)) {
		snprintf(reason, len, "cannot create %s: %s", mps.pipe_dir, strerror(errno));
		remove_root(mps.root);
		return GS_EIO;
	}
	/* -d daemonises and returns once the control daemon listens. */
	if (control(mps.pipe_dir, mps.log_dir, "-d", NULL)) {
		snprintf(reason, len, "nvidia-cuda-mps-control -d failed; see %s", mps.log_dir);
		copy_logs(mps.log_dir, mps.keep_logs);
		remove_root(mps.root);
		return GS_EIO;
	}
	mps.running = 1;
	return 0;
}

void gs_bench_mps_stop(void)
{
	pid_t last = 0;

	if (!mps.running)
		return;
	mps.running = 0;
	if (control(mps.pipe_dir, mps.log_dir, NULL, "quit\n"))
		fprintf(stderr, "gpusim-bench: 'quit' to the MPS control daemon failed; see %s\n",
			mps.log_dir);
	if (wait_gone(mps.pipe_dir, &last)) {
		fprintf(stderr, "gpusim-bench: the MPS control daemon (pid %d, %s) has not exited "
				"%.0f s after quit; no other MPS daemon is started in this run\n",
			(int)last, mps.root, MPS_EXIT_WAIT_S);
		mps.wedged = 1;
		return;
	}
	copy_logs(mps.log_dir, mps.keep_logs);
	remove_root(mps.root);
	mps.root[0] = 0;
}
