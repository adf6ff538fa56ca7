/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_pod.c - libgpushare's pod accounting when the world around
 * it goes wrong, without a GPU: the pod region deleted, zeroed or
 * truncated under running processes, a full device table, a device that
 * cannot be identified, a peer that dies; the pod's limits living with
 * the pod, so that a process without the limit variables is held to them
 * and one whose variables ask for more is refused; and what NVML's and
 * HAMi's users see. Like test_gpushare_hook.c, this program links the fake
 * driver (fake_cuda*.c) and runs with LD_PRELOAD=libgpushare.so.
 *
 * A case drives one or more "agents": forked children, each a process of
 * the pod with its own environment, that perform one CUDA operation per
 * command read from a pipe and answer with the result. So a case can
 * interleave processes and damage the region between their steps. An
 * agent's stderr goes to a file of the case's directory, so that its log
 * lines can be checked.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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

#include "fake_cuda.h"
#include "region.h"
#include "tmpdir.h"

#define MIB ((uint64_t)1 << 20)

/* --- agents ------------------------------------------------------------------ */

enum op {
	OP_ALLOC,     /* cuMemAlloc_v2 of bytes on device dev; the pointer is kept */
	OP_FREE_ALL,  /* cuMemFree_v2 of every kept pointer */
	OP_INFO,      /* cuMemGetInfo_v2 on device dev: a = free, b = total */
	OP_UUID_FAIL, /* the next cuDeviceGetUuid fails */
	OP_NVML,      /* NVML memory info of device dev: a = total, b = used, c = free (v1) */
	OP_NVML_V2,   /* the same through nvmlDeviceGetMemoryInfo_v2 */
	OP_LAUNCH,    /* one cuLaunchKernel on device dev */
	OP_NVML_UTIL, /* NVML utilisation of device dev: a = gpu, b = memory (%) */
};

struct cmd {
	int op;
	int dev;
	uint64_t bytes;
};

struct reply {
	int rc;
	uint64_t a, b, c;
};

struct agent {
	pid_t pid;
	int to, from;
	char err_path[512];
};

#define MAX_HELD 256

/*
 * The test's ends of every live agent's pipes: a new agent closes them,
 * or an agent would never see the end of its commands while another lives.
 */
static int parent_fds[64];
static int n_parent_fds;

static void forget_fd(int fd)
{
	int i;

	for (i = 0; i < n_parent_fds; i++)
		if (parent_fds[i] == fd)
			parent_fds[i] = parent_fds[--n_parent_fds];
}

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_mem_fn)(void *, void *);
typedef int (*nvml_util_fn)(void *, unsigned int *);

/* What NVML's memory structs look like (nvml.h, version 1 and 2). */
struct nvml_mem_v1 {
	unsigned long long total, free, used;
};

struct nvml_mem_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

static int nvml_query(int dev, int v2, struct reply *r)
{
	/* As pynvml does: dlopen the library, dlsym on its handle. */
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init;
	nvml_handle_fn get;
	nvml_mem_fn mem;
	void *d = NULL;
	int rc;

	if (!h)
		return -1000;
	init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
	get = (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	mem = (nvml_mem_fn)dlsym(h, v2 == 1 ? "nvmlDeviceGetMemoryInfo_v2"
			       : v2 == 2 ? "nvmlDeviceGetUtilizationRates"
					 : "nvmlDeviceGetMemoryInfo");
	if (!init || !get || !mem)
		return -1001;
	rc = init();
	if (!rc)
		rc = get((unsigned int)dev, &d);
	if (rc)
		return rc;
	if (v2 == 2) {
		unsigned int util[2] = { 0, 0 };

		rc = ((nvml_util_fn)(void *)mem)(d, util);
		r->a = util[0];
		r->b = util[1];
	} else if (v2) {
		struct nvml_mem_v2 m;

		memset(&m, 0, sizeof(m));
		m.version = (unsigned int)(sizeof(m) | (2u << 24));
		rc = mem(d, &m);
		r->a = m.total;
		r->b = m.used;
		r->c = m.free;
	} else {
		struct nvml_mem_v1 m;

		rc = mem(d, &m);
		r->a = m.total;
		r->b = m.used;
		r->c = m.free;
	}
	return rc;
}

static int agent_main(int in, int out)
{
	static CUdeviceptr held[MAX_HELD];
	int n = 0, i;
	struct cmd c;
	struct reply r;

	if (cuInit(0) != CUDA_SUCCESS)
		return 3;
	while (read(in, &c, sizeof(c)) == (ssize_t)sizeof(c)) {
		size_t fb = 0, tb = 0;

		memset(&r, 0, sizeof(r));
		fakecuda_set_device(c.dev);
		switch (c.op) {
		case OP_ALLOC:
			if (n == MAX_HELD)
				return 4;
			r.rc = cuMemAlloc_v2(&held[n], c.bytes);
			if (r.rc == CUDA_SUCCESS)
				n++;
			break;
		case OP_FREE_ALL:
			for (i = 0; i < n; i++)
				if (cuMemFree_v2(held[i]) != CUDA_SUCCESS)
					r.rc = -1;
			n = 0;
			break;
		case OP_INFO:
			r.rc = cuMemGetInfo_v2(&fb, &tb);
			r.a = fb;
			r.b = tb;
			break;
		case OP_UUID_FAIL:
			fakecuda_fail_next("cuDeviceGetUuid", CUDA_ERROR_UNKNOWN);
			break;
		case OP_NVML:
		case OP_NVML_V2:
		case OP_NVML_UTIL:
			r.rc = nvml_query(c.dev, c.op == OP_NVML ? 0 : c.op == OP_NVML_V2 ? 1 : 2, &r);
			break;
		case OP_LAUNCH:
			r.rc = cuLaunchKernel((CUfunction)0x42, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
			break;
		default:
			return 5;
		}
		if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
			return 6;
	}
	return 0;
}

/*
 * Starts an agent named name with the variables env (name, value, ...,
 * NULL) on top of GPUSHARE_SHM_DIR and GPUSHARE_POD_ID=p.
 */
static void agent_start(struct agent *a, const char *name, const char *const *env)
{
	int to[2], from[2], fd;
	char file[64];

	snprintf(file, sizeof(file), "%s.err", name);
	gs_test_path(file, a->err_path, sizeof(a->err_path));
	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	fflush(NULL);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (a->pid == 0) {
		int i;

		for (i = 0; i < n_parent_fds; i++)
			close(parent_fds[i]);
		close(to[1]);
		close(from[0]);
		fd = open(a->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		setenv("GPUSHARE_SHM_DIR", gs_test_tmpdir(), 1);
		setenv("GPUSHARE_POD_ID", "p", 1);
		for (; env && *env; env += 2)
			setenv(env[0], env[1], 1);
		_exit(agent_main(to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	a->to = to[1];
	a->from = from[0];
	assert_true(n_parent_fds + 2 <= 64);
	parent_fds[n_parent_fds++] = a->to;
	parent_fds[n_parent_fds++] = a->from;
}

/* Runs one command; returns its CUresult, or -999 when the agent died. */
static int agent_do(struct agent *a, int op, int dev, uint64_t bytes, struct reply *out)
{
	struct cmd c = { op, dev, bytes };
	struct reply r;

	memset(&r, 0, sizeof(r));
	if (write(a->to, &c, sizeof(c)) != (ssize_t)sizeof(c) ||
	    read(a->from, &r, sizeof(r)) != (ssize_t)sizeof(r))
		return -999;
	if (out)
		*out = r;
	return r.rc;
}

static int agent_alloc(struct agent *a, int dev, uint64_t bytes)
{
	return agent_do(a, OP_ALLOC, dev, bytes, NULL);
}

static uint64_t agent_free_bytes(struct agent *a, int dev)
{
	struct reply r;

	assert_int_equal(agent_do(a, OP_INFO, dev, 0, &r), CUDA_SUCCESS);
	return r.a;
}

/* Copies an agent's stderr to ours (for a failing case's log). */
static void agent_dump(const struct agent *a)
{
	char buf[8192];
	ssize_t n;
	int fd = open(a->err_path, O_RDONLY);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	if (n > 0)
		fprintf(stderr, "--- %s:\n%s", a->err_path, buf);
}

/* Ends an agent; returns its exit status (128 + signal when killed). */
static int agent_stop(struct agent *a)
{
	int status;

	agent_dump(a);
	forget_fd(a->to);
	forget_fd(a->from);
	close(a->to);
	close(a->from);
	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void agent_kill(struct agent *a)
{
	kill(a->pid, SIGKILL);
	assert_int_equal(agent_stop(a), 128 + SIGKILL);
}

/* Fails unless the agent's stderr contains needle. */
static void expect_logged(const struct agent *a, const char *needle)
{
	char buf[8192];
	ssize_t n;
	int fd = open(a->err_path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	if (!strstr(buf, needle))
		fail_msg("%s: '%s' lacks '%s'", a->err_path, buf, needle);
}

static void pod_path(char *buf, size_t len)
{
	gs_region_path(buf, len, gs_test_tmpdir(), GS_REGION_POD, "p");
}

static int make_dir(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("gpushare-pod");
}

static const char *const limit_100[] = { "GPUSHARE_MEM_LIMIT_MIB", "100", NULL };

/* --- the pod region damaged under running processes ------------------------------ */

static void test_region_deleted(void **state)
{
	char path[GS_REGION_PATH_MAX];
	struct agent a, b;

	(void)state;
	agent_start(&a, "a", limit_100);
	assert_int_equal(agent_alloc(&a, 0, 60 * MIB), CUDA_SUCCESS);
	pod_path(path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	/*
	 * a notices at its next accounting step and carries its 60 MiB into a
	 * region at the path again, so a process that starts afterwards sees
	 * them: the pod never holds more than its limit.
	 */
	assert_int_equal(agent_free_bytes(&a, 0), 40 * MIB);
	expect_logged(&a, "was deleted or replaced");
	agent_start(&b, "b", limit_100);
	assert_int_equal(agent_alloc(&b, 0, 40 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&b, 0, 40 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_stop(&b), 0);
	assert_int_equal(agent_alloc(&a, 0, 40 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_stop(&a), 0);
}

static void test_region_zeroed(void **state)
{
	char path[GS_REGION_PATH_MAX], zeros[4096];
	struct agent a, b;
	struct stat sb;
	off_t off;
	int fd;

	(void)state;
	agent_start(&a, "a", limit_100);
	assert_int_equal(agent_alloc(&a, 0, 60 * MIB), CUDA_SUCCESS);
	pod_path(path, sizeof(path));
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	memset(zeros, 0, sizeof(zeros));
	for (off = 0; off < sb.st_size; off += (off_t)sizeof(zeros)) {
		size_t n = sb.st_size - off < (off_t)sizeof(zeros) ? (size_t)(sb.st_size - off)
								 : sizeof(zeros);

		assert_int_equal(pwrite(fd, zeros, n, off), (ssize_t)n);
	}
	close(fd);
	/* Zeroed, the region forgot a's 60 MiB; a must not get 100 more. */
	assert_int_equal(agent_alloc(&a, 0, 50 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	expect_logged(&a, "was zeroed or re-initialised");
	assert_int_equal(agent_alloc(&a, 0, 40 * MIB), CUDA_SUCCESS);
	agent_start(&b, "b", limit_100);
	assert_int_equal(agent_alloc(&b, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_stop(&b), 0);
	assert_int_equal(agent_stop(&a), 0);
}

static void test_region_truncated(void **state)
{
	char path[GS_REGION_PATH_MAX];
	struct agent a;
	struct reply r;

	(void)state;
	agent_start(&a, "a", limit_100);
	assert_int_equal(agent_alloc(&a, 0, 60 * MIB), CUDA_SUCCESS);
	pod_path(path, sizeof(path));
	/* Cut inside the process table: touching it would raise SIGBUS. */
	assert_int_equal(truncate(path, 4096), 0);
	assert_int_equal(agent_alloc(&a, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	expect_logged(&a, "was truncated to 4096 bytes (of ");
	expect_logged(&a, "; refusing allocations until the region can be used again: ");
	assert_int_equal(agent_do(&a, OP_INFO, 0, 0, &r), CUDA_SUCCESS);
	assert_int_equal(r.a, 0);
	assert_int_equal(r.b, 100 * MIB);
	/* Frees work (the driver's memory goes back), and the process lives on. */
	assert_int_equal(agent_do(&a, OP_FREE_ALL, 0, 0, NULL), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_stop(&a), 0);
	/* Removing the file is the way out the message gives. */
	assert_int_equal(unlink(path), 0);

	/* Cut to nothing, it is made again, and a's bytes are carried over. */
	agent_start(&a, "a2", limit_100);
	assert_int_equal(agent_alloc(&a, 0, 60 * MIB), CUDA_SUCCESS);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(agent_alloc(&a, 0, 50 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&a, 0, 40 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_stop(&a), 0);
}

/* --- devices ------------------------------------------------------------------------ */

static void test_device_table_full(void **state)
{
	static const char *const env0[] = { "GPUSHARE_MEM_LIMIT_MIB", "100", "FAKECUDA_DEVICES", "8",
					    "FAKECUDA_UUID_BASE", "0", NULL };
	static const char *const env8[] = { "GPUSHARE_MEM_LIMIT_MIB", "100", "FAKECUDA_DEVICES", "8",
					    "FAKECUDA_UUID_BASE", "8", NULL };
	static const char *const env16[] = { "GPUSHARE_MEM_LIMIT_MIB", "100",
					     "FAKECUDA_UUID_BASE", "16", NULL };
	struct agent p1, p2, p3;
	int d;

	(void)state;
	/* Two processes use 16 devices between them: the table is full. */
	agent_start(&p1, "p1", env0);
	agent_start(&p2, "p2", env8);
	for (d = 0; d < 8; d++) {
		assert_int_equal(agent_alloc(&p1, d, MIB), CUDA_SUCCESS);
		assert_int_equal(agent_alloc(&p2, d, MIB), CUDA_SUCCESS);
	}
	/* A seventeenth device cannot be accounted: refused, not passed through. */
	agent_start(&p3, "p3", env16);
	assert_int_equal(agent_alloc(&p3, 0, 200 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&p3, 0, MIB), CUDA_ERROR_OUT_OF_MEMORY);
	expect_logged(&p3, "no room for another device");
	/* Once p1 is gone, its eight entries are freed for others. */
	assert_int_equal(agent_stop(&p1), 0);
	assert_int_equal(agent_alloc(&p3, 0, 100 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&p3, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&p3, 1, 100 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_stop(&p3), 0);
	assert_int_equal(agent_stop(&p2), 0);
}

static void test_unidentified_device_refused(void **state)
{
	struct agent a;
	struct reply r;

	(void)state;
	agent_start(&a, "a", limit_100);
	/* The device's UUID cannot be read: the allocation is refused. */
	assert_int_equal(agent_do(&a, OP_UUID_FAIL, 0, 0, NULL), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 0, 200 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	expect_logged(&a, "cannot identify device 0");
	/* No current device (the fake has 2): the context's error, nothing passed on. */
	assert_int_equal(agent_alloc(&a, 7, 1), CUDA_ERROR_INVALID_CONTEXT);
	/* Then all is well again. */
	assert_int_equal(agent_alloc(&a, 0, 100 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_do(&a, OP_INFO, 0, 0, &r), CUDA_SUCCESS);
	assert_int_equal(r.a, 0);
	assert_int_equal(agent_stop(&a), 0);
}

/* --- peers ------------------------------------------------------------------------------ */

static void test_meminfo_after_peer_died(void **state)
{
	struct agent a, b;

	(void)state;
	agent_start(&a, "a", limit_100);
	agent_start(&b, "b", limit_100);
	assert_int_equal(agent_alloc(&a, 0, 60 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_free_bytes(&b, 0), 40 * MIB);
	agent_kill(&a);
	/* At once, not when some allocation happens to reclaim the slot. */
	assert_int_equal(agent_free_bytes(&b, 0), 100 * MIB);
	assert_int_equal(agent_stop(&b), 0);
}

/* --- the pod's limits live with the pod -------------------------------------------- */

/*
 * Runs gpushare-pod with the variables env (name, value, ..., NULL) on top
 * of the case's GPUSHARE_SHM_DIR and GPUSHARE_POD_ID=p; returns its exit
 * status.
 */
static int pod_setup(const char *const *env, const char *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsetenv("LD_PRELOAD");
		setenv("GPUSHARE_SHM_DIR", gs_test_tmpdir(), 1);
		setenv("GPUSHARE_POD_ID", "p", 1);
		for (; env && *env; env += 2)
			setenv(env[0], env[1], 1);
		execl(GS_POD_SETUP, "gpushare-pod", arg, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *const limit_8[] = { "GPUSHARE_MEM_LIMIT_MIB", "8", NULL };
static const char *const no_limits[] = { NULL };

/*
 * The case: a process of the pod without the limit variables (a
 * shell opened with kubectl exec, a cron job) ran unlimited, and the pod
 * reached 12 MiB against 8. Now it takes the pod's limits from the pod's
 * region, whoever wrote them; with no region to take them from, it
 * refuses to run.
 */
static void test_process_without_variables(void **state)
{
	struct agent a, b;
	struct reply r;

	(void)state;
	/* First, alone: nothing to take the limits from. */
	agent_start(&a, "first", no_limits);
	assert_int_equal(agent_alloc(&a, 0, 4 * MIB), -999);
	assert_int_equal(agent_stop(&a), 3); /* cuInit refused */
	expect_logged(&a, "gpushare: pod p: no limits: this process has none of its own");
	/* Set up by gpushare-pod before the pod's processes start. */
	assert_int_equal(pod_setup(limit_8, NULL), 0);
	agent_start(&a, "shell", no_limits);
	agent_start(&b, "main", limit_8);
	assert_int_equal(agent_alloc(&a, 0, 4 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&b, 0, 4 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_do(&a, OP_INFO, 0, 0, &r), CUDA_SUCCESS);
	assert_int_equal(r.a, 0);
	assert_int_equal(r.b, 8 * MIB);
	assert_int_equal(agent_stop(&a), 0);
	assert_int_equal(agent_stop(&b), 0);
}

/* Without a setup, the first process with the variables writes the pod's limits. */
static void test_limits_from_first_process(void **state)
{
	static const char *const compute_only[] = { "GPUSHARE_COMPUTE_PERCENT", "100", NULL };
	static const char *const other_share[] = { "GPUSHARE_COMPUTE_PERCENT", "50", NULL };
	struct agent a, b, c;

	(void)state;
	agent_start(&b, "main", limit_8);
	assert_int_equal(agent_alloc(&b, 0, 6 * MIB), CUDA_SUCCESS);
	agent_start(&a, "cron", no_limits);
	assert_int_equal(agent_alloc(&a, 0, 2 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&a, 0, 2 * MIB), CUDA_SUCCESS);
	/* Compute limits of its own (none, the pod's), no memory limit: it takes the pod's. */
	agent_start(&c, "worker", compute_only);
	assert_int_equal(agent_alloc(&c, 0, 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_stop(&c), 0);
	/* A share the pod was not given: refused. */
	agent_start(&c, "greedy", other_share);
	assert_int_equal(agent_stop(&c), 3);
	expect_logged(&c, "asks for the compute share 50 %, but the pod's is none (written by its "
			  "first process)");
	assert_int_equal(agent_stop(&a), 0);
	assert_int_equal(agent_stop(&b), 0);
}

/*
 * HAMi-core's case of an environment that tries to change the limit from
 * inside the pod: a process whose variables ask for more than the pod's
 * limits (globally, on one device, or a smaller context reserve) is
 * refused, also after every other process of the pod has gone, and the
 * setup cannot change them under live processes.
 */
static void test_environment_overrides(void **state)
{
	static const char *const setup[] = { "GPUSHARE_MEM_LIMIT_MIB", "100",
					     "GPUSHARE_CONTEXT_RESERVE_MIB", "10", NULL };
	static const char *const same[] = { "GPUSHARE_MEM_LIMIT_MIB", "100",
					    "GPUSHARE_CONTEXT_RESERVE_MIB", "10", NULL };
	static const char *const more[] = { "GPUSHARE_MEM_LIMIT_MIB", "200", NULL };
	static const char *const more_hami[] = { "CUDA_DEVICE_MEMORY_LIMIT", "100m",
						 "CUDA_DEVICE_MEMORY_LIMIT_0", "1g", NULL };
	static const char *const no_reserve[] = { "GPUSHARE_CONTEXT_RESERVE_MIB", "0", NULL };
	static const char *const resetup[] = { "GPUSHARE_MEM_LIMIT_MIB", "300", NULL };
	struct agent a, b;

	(void)state;
	assert_int_equal(pod_setup(setup, NULL), 0);
	agent_start(&a, "more", more);
	assert_int_equal(agent_stop(&a), 3);
	expect_logged(&a, "this process asks for the memory limit 200 MiB, but the pod's is 100 "
			  "MiB (set up by gpushare-pod): refusing to run");
	agent_start(&a, "hami", more_hami);
	assert_int_equal(agent_stop(&a), 3);
	expect_logged(&a, "memory limit 100 MiB, device 0: 1024 MiB, but the pod's is 100 MiB");
	agent_start(&a, "reserve", no_reserve);
	assert_int_equal(agent_stop(&a), 3);
	expect_logged(&a, "context reserve 0 MiB, but the pod's is 10 MiB");
	/* The pod's own limits: fine. */
	agent_start(&b, "same", same);
	assert_int_equal(agent_alloc(&b, 0, 100 * MIB), CUDA_SUCCESS);
	assert_int_equal(pod_setup(resetup, NULL), 1);
	assert_int_equal(agent_stop(&b), 0);
	/* Nobody left: the limits stay with the pod all the same. */
	agent_start(&a, "later", more);
	assert_int_equal(agent_stop(&a), 3);
	/* Only setting the pod up again changes them. */
	assert_int_equal(pod_setup(resetup, NULL), 0);
	agent_start(&a, "after", no_limits);
	assert_int_equal(agent_alloc(&a, 0, 300 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_stop(&a), 0);
	assert_int_equal(pod_setup(no_limits, "--show"), 0);
}

/* --- NVML ----------------------------------------------------------------------------- */

static void test_nvml_reports_the_pod(void **state)
{
	static const char *const env[] = { "GPUSHARE_MEM_LIMIT_MIB", "100", "FAKECUDA_DEVICES", "2",
					   NULL };
	struct agent a, b;
	struct reply r;

	(void)state;
	agent_start(&a, "a", env);
	agent_start(&b, "b", env);
	assert_int_equal(agent_alloc(&a, 0, 30 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&b, 0, 10 * MIB), CUDA_SUCCESS);
	/* The fake card: 16 GiB, 1 GiB used; the pod: 100 MiB, 40 used. */
	assert_int_equal(agent_do(&b, OP_NVML, 0, 0, &r), 0);
	assert_int_equal(r.a, 100 * MIB);
	assert_int_equal(r.b, 40 * MIB);
	assert_int_equal(r.c, 60 * MIB);
	/* Version 2: the same, and none of the driver's reservation. */
	assert_int_equal(agent_do(&b, OP_NVML_V2, 0, 0, &r), 0);
	assert_int_equal(r.a, 100 * MIB);
	assert_int_equal(r.b, 40 * MIB);
	assert_int_equal(r.c, 60 * MIB);
	/* A device the pod has not used: its limit, nothing used. */
	assert_int_equal(agent_do(&b, OP_NVML, 1, 0, &r), 0);
	assert_int_equal(r.a, 100 * MIB);
	assert_int_equal(r.b, 0);
	assert_int_equal(r.c, 100 * MIB);
	/* And what NVML says agrees with cuMemGetInfo, also after a peer died. */
	agent_kill(&a);
	assert_int_equal(agent_do(&b, OP_NVML_V2, 0, 0, &r), 0);
	assert_int_equal(r.b, 10 * MIB);
	assert_int_equal(agent_free_bytes(&b, 0), r.c);
	assert_int_equal(agent_stop(&b), 0);
}

/*
 * HAMi-core's case of NVML on several GPUs: each device index answers for
 * its own device, with its own limit (also before the pod has used it),
 * and utilisation passes through, the card's own.
 */
static void test_nvml_per_device(void **state)
{
	static const char *const env[] = { "CUDA_DEVICE_MEMORY_LIMIT", "100m",
					   "CUDA_DEVICE_MEMORY_LIMIT_1", "50m", NULL };
	struct agent a;
	struct reply r;
	int dev;

	(void)state;
	agent_start(&a, "a", env);
	assert_int_equal(agent_do(&a, OP_NVML, 1, 0, &r), 0);
	assert_int_equal(r.a, 50 * MIB);
	assert_int_equal(r.b, 0);
	assert_int_equal(agent_alloc(&a, 0, 30 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 1, 20 * MIB), CUDA_SUCCESS);
	for (dev = 0; dev < 2; dev++) {
		assert_int_equal(agent_do(&a, OP_NVML_V2, dev, 0, &r), 0);
		assert_int_equal(r.a, dev ? 50 * MIB : 100 * MIB);
		assert_int_equal(r.b, dev ? 20 * MIB : 30 * MIB);
		assert_int_equal(agent_do(&a, OP_NVML_UTIL, dev, 0, &r), 0);
		assert_int_equal(r.a, 10 * (dev + 1));
		assert_int_equal(r.b, 5 * (dev + 1));
	}
	assert_int_equal(agent_stop(&a), 0);
}

/* --- HAMi's variables ------------------------------------------------------------- */

static void test_hami_limits_per_device(void **state)
{
	static const char *const env[] = { "CUDA_DEVICE_MEMORY_LIMIT", "100m",
					   "CUDA_DEVICE_MEMORY_LIMIT_1", "50m", NULL };
	static const char *const bad[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4x", NULL };
	struct agent a;
	struct reply r;

	(void)state;
	agent_start(&a, "a", env);
	assert_int_equal(agent_alloc(&a, 0, 100 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&a, 0, 100 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_alloc(&a, 1, 50 * MIB + 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(agent_alloc(&a, 1, 30 * MIB), CUDA_SUCCESS);
	assert_int_equal(agent_do(&a, OP_INFO, 1, 0, &r), CUDA_SUCCESS);
	assert_int_equal(r.a, 20 * MIB);
	assert_int_equal(r.b, 50 * MIB);
	assert_int_equal(agent_stop(&a), 0);
	/* A value that does not parse: the library refuses to run, naming it. */
	agent_start(&a, "bad", bad);
	assert_int_equal(agent_alloc(&a, 0, 1), -999);
	assert_int_equal(agent_stop(&a), 3); /* cuInit failed */
	expect_logged(&a, "gpushare: CUDA_DEVICE_MEMORY_LIMIT='4x': not a size");
}

/* HAMi's SM share per device reaches the node region, where other pods read it. */
static void test_hami_sm_limit_per_device(void **state)
{
	static const char *const env[] = { "CUDA_DEVICE_SM_LIMIT", "40", "CUDA_DEVICE_SM_LIMIT_1",
					   "30", "GPUSHARE_NODE_ID", "n", NULL };
	uint8_t uuid[16] = { 'f', 'a', 'k', 'e', 'g', 'p', 'u' };
	struct gs_peer peers[8];
	struct gs_region node;
	struct agent a;
	char err[512];

	(void)state;
	agent_start(&a, "a", env);
	assert_int_equal(agent_do(&a, OP_LAUNCH, 0, 0, NULL), CUDA_SUCCESS);
	assert_int_equal(agent_do(&a, OP_LAUNCH, 1, 0, NULL), CUDA_SUCCESS);
	assert_int_equal(gs_region_open(&node, gs_test_tmpdir(), GS_REGION_NODE, "n", err,
					sizeof(err)), 0);
	assert_int_equal(gs_node_peers(&node, uuid, peers, 8), 1);
	assert_int_equal(peers[0].share_pct, 40);
	uuid[15] = 1;
	assert_int_equal(gs_node_peers(&node, uuid, peers, 8), 1);
	assert_int_equal(peers[0].share_pct, 30);
	gs_region_close(&node);
	assert_int_equal(agent_stop(&a), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_region_deleted, make_dir),
		GS_TMPDIR_TEST(test_region_zeroed, make_dir),
		GS_TMPDIR_TEST(test_region_truncated, make_dir),
		GS_TMPDIR_TEST(test_device_table_full, make_dir),
		GS_TMPDIR_TEST(test_unidentified_device_refused, make_dir),
		GS_TMPDIR_TEST(test_meminfo_after_peer_died, make_dir),
		GS_TMPDIR_TEST(test_process_without_variables, make_dir),
		GS_TMPDIR_TEST(test_limits_from_first_process, make_dir),
		GS_TMPDIR_TEST(test_environment_overrides, make_dir),
		GS_TMPDIR_TEST(test_nvml_reports_the_pod, make_dir),
		GS_TMPDIR_TEST(test_nvml_per_device, make_dir),
		GS_TMPDIR_TEST(test_hami_limits_per_device, make_dir),
		GS_TMPDIR_TEST(test_hami_sm_limit_per_device, make_dir),
	};

	/* An agent that refused to run is gone: writing it a command must fail, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (!getenv("LD_PRELOAD") || !strstr(getenv("LD_PRELOAD"), "libgpushare")) {
		fprintf(stderr, "run with LD_PRELOAD=.../libgpushare.so (ctest sets it)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
