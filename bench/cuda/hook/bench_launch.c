/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_launch.c - what libgpushare adds to an unthrottled cuLaunchKernel,
 * measured on the fake driver (no GPU needed): a loop of launches through
 * the hook's wrapper against the same loop straight into the driver.
 *
 *   LD_PRELOAD=libgpushare.so LD_LIBRARY_PATH=<dir of the fake libcuda.so.1> \
 *   FAKECUDA_KERNEL_NS=0 GPUSHARE_POD_ID=bench bench_hook_launch [--launches N]
 *   [--runs R] [--only hook|direct]
 *
 * Without GPUSHARE_SHM_DIR the regions go to a directory of its own under
 * /tmp, removed at exit.
 *
 * "direct" calls the fake driver's own cuLaunchKernel (fakecuda_self), "hook"
 * the cuLaunchKernel the program binds to, which is libgpushare's when it is
 * preloaded. Runs alternate between the two; each prints its ns per launch
 * and the last line gives the medians and their difference:
 *   launch direct_ns=... hook_ns=... overhead_ns=... runs=R launches=N
 * The loop is launch_loop(), so `valgrind --tool=callgrind
 * --toggle-collect=launch_loop` counts its instructions alone
 * (bench/cuda/hook/bench_launch.sh does both).
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_cuda.h"

typedef CUresult(CUDAAPI *launch_fn)(CUfunction, unsigned int, unsigned int, unsigned int,
				      unsigned int, unsigned int, unsigned int, unsigned int,
				      CUstream, void **, void **);

#define MAX_RUNS 101

static char shm_dir[] = "/tmp/gpushare-bench.XXXXXX";

/* Removes the regions this run made in shm_dir, then the directory. */
static void remove_shm_dir(void)
{
	static const char *const names[] = { "gpushare.node.node", "gpushare.pod.bench" };
	char path[sizeof(shm_dir) + 64];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", shm_dir, names[i]);
		unlink(path);
	}
	rmdir(shm_dir);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The measured loop; not inlined, so callgrind can count it alone. */
int launch_loop(launch_fn fn, long n);

__attribute__((noinline)) int launch_loop(launch_fn fn, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (fn((CUfunction)0x42, 1, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL) != CUDA_SUCCESS)
			return -1;
	return 0;
}

static double time_run(launch_fn fn, long n)
{
	uint64_t t = mono_ns();

	if (launch_loop(fn, n)) {
		fprintf(stderr, "bench_hook_launch: a launch failed\n");
		exit(1);
	}
	return (double)(mono_ns() - t) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "bench_hook_launch: %s '%s': expected an integer from %ld to %ld\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double direct[MAX_RUNS], hook[MAX_RUNS];
	long launches = 2000000;
	int runs = 7, i, do_direct = 1, do_hook = 1;
	launch_fn fn_direct, fn_hook;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--launches") && i + 1 < argc) {
			launches = parse_long("--launches", argv[++i], 1, 1000000000L);
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = (int)parse_long("--runs", argv[++i], 1, MAX_RUNS);
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			i++;
			do_direct = !strcmp(argv[i], "direct");
			do_hook = !strcmp(argv[i], "hook");
			if (!do_direct && !do_hook) {
				fprintf(stderr, "bench_hook_launch: --only '%s': expected hook or "
						"direct\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: bench_hook_launch [--launches N] [--runs R] "
					"[--only hook|direct]\n");
			return 2;
		}
	}
	/*
	 * Regions of our own unless told (the hook reads its variables at its
	 * first call, after this): a stale region of another build would
	 * refuse us.
	 */
	if (!getenv("GPUSHARE_SHM_DIR")) {
		if (!mkdtemp(shm_dir)) {
			fprintf(stderr, "bench_hook_launch: mkdtemp %s failed\n", shm_dir);
			return 1;
		}
		setenv("GPUSHARE_SHM_DIR", shm_dir, 1);
		atexit(remove_shm_dir);
	}
	fn_direct = (launch_fn)fakecuda_self("cuLaunchKernel");
	fn_hook = (launch_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	if (!fn_direct || !fn_hook) {
		fprintf(stderr, "bench_hook_launch: cuLaunchKernel not found\n");
		return 1;
	}
	if (fn_hook == fn_direct)
		fprintf(stderr, "bench_hook_launch: libgpushare is not preloaded: both paths are "
				"the driver's\n");
	if (cuInit(0) != CUDA_SUCCESS) {
		fprintf(stderr, "bench_hook_launch: cuInit failed\n");
		return 1;
	}
	/* Warm up: the hook's first launch claims its node slot. */
	time_run(fn_hook, launches / 10 + 1);
	time_run(fn_direct, launches / 10 + 1);
	for (i = 0; i < runs; i++) {
		if (do_direct)
			direct[i] = time_run(fn_direct, launches);
		if (do_hook)
			hook[i] = time_run(fn_hook, launches);
		printf("run %d direct_ns=%.1f hook_ns=%.1f\n", i, do_direct ? direct[i] : 0.0,
		       do_hook ? hook[i] : 0.0);
	}
	{
		double d = do_direct ? median(direct, runs) : 0, h = do_hook ? median(hook, runs) : 0;

		printf("launch direct_ns=%.1f hook_ns=%.1f overhead_ns=%.1f runs=%d launches=%ld\n",
		       d, h, do_direct && do_hook ? h - d : 0.0, runs, launches);
	}
	return 0;
}
