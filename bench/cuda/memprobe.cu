/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memprobe.cu - the memory-isolation client: finds where this process's
 * allocations start to fail and compares it with the limit it was given.
 *
 * With --limit-mib L (what the harness gave the pod), it checks through
 * the CUDA runtime, as an application would see it:
 *   - cudaMemGetInfo reports a total of L MiB;
 *   - L MiB minus one byte succeeds, then two more bytes fail and one
 *     more byte succeeds (the limit is exact to the byte);
 *   - after freeing everything, L MiB + 1 byte fails and L MiB succeeds;
 *   - the failures are cudaErrorMemoryAllocation, and the context still
 *     works afterwards (a kernel-free memset and copy succeed).
 * Then it holds L MiB for --duration-s, so that neighbours run next to
 * a full pod. Without --limit-mib it only reports what it could allocate
 * in 256 MiB steps (the card's own limit). ok=1 when every check passed.
 */
#include "common.h"

/* An allocation that may fail: returns the error instead of exiting. */
static cudaError_t try_alloc(void **p, size_t bytes)
{
	cudaError_t e = cudaMalloc(p, bytes);

	if (e != cudaSuccess) {
		*p = NULL;
		if (e != cudaErrorMemoryAllocation)
			CK(e);
		/* The runtime keeps the last error; clear it as applications do. */
		(void)cudaGetLastError();
	}
	return e;
}

int main(int argc, char **argv)
{
	struct gs_device_info d;
	struct gs_opts o;
	size_t limit, free_b, total_b, got = 0;
	long long limit_mib = 0;
	const struct gs_client_opt own[] = { { 'L', "limit-mib", 1, 1 << 30, &limit_mib } };
	void *a, *b, *c2, *big[4096];
	int ok = 1, n_big = 0, total_ok, under_ok, over_fails, one_more_ok, after_ok,
	    plus_one_fails, exact_ok, still_works;

	gs_opts_read(argc, argv, "memprobe", &o, own, 1,
		     "usage: memprobe [--limit-mib L] [OPTIONS]\n"
		     "Checks that allocations fail exactly at the pod's memory limit.\n",
		     "usage: memprobe [--limit-mib L] [common flags]; see --help\n");
	gs_device_open(o.device, &d);

	if (!limit_mib) {
		/* No limit given: how much does the card let us have? */
		while (n_big < 4096 && try_alloc(&big[n_big], (size_t)256 << 20) == cudaSuccess) {
			n_big++;
			got += (size_t)256 << 20;
		}
		while (n_big > 0)
			CK(cudaFree(big[--n_big]));
		gs_report_begin("memprobe", &o, &d, 1);
		gs_kv_writef(stdout, "allocatable_mib", "%zu", got >> 20);
		gs_report_end();
		return 0;
	}

	limit = (size_t)limit_mib << 20;
	CK(cudaMemGetInfo(&free_b, &total_b));
	total_ok = total_b == limit;
	under_ok = try_alloc(&a, limit - 1) == cudaSuccess;
	over_fails = under_ok && try_alloc(&b, 2) == cudaErrorMemoryAllocation;
	one_more_ok = under_ok && try_alloc(&b, 1) == cudaSuccess;
	if (under_ok)
		CK(cudaFree(a));
	if (one_more_ok)
		CK(cudaFree(b));
	plus_one_fails = try_alloc(&a, limit + 1) == cudaErrorMemoryAllocation;
	exact_ok = try_alloc(&a, limit) == cudaSuccess;
	/* The context is intact after the refusals. */
	if (exact_ok) {
		unsigned char byte = 0;

		CK(cudaMemset(a, 0x5a, 4096));
		CK(cudaMemcpy(&byte, (unsigned char *)a + 100, 1, cudaMemcpyDeviceToHost));
		still_works = byte == 0x5a;
	} else {
		still_works = try_alloc(&c2, 4096) == cudaSuccess;
		if (still_works)
			CK(cudaFree(c2));
	}
	after_ok = exact_ok;
	ok = total_ok && under_ok && over_fails && one_more_ok && plus_one_fails && exact_ok &&
	     still_works;

	/* Hold the pod's whole allowance while the neighbours run. */
	gs_wait_start(&o);
	if (after_ok) {
		double t0 = gs_now_s();

		while (gs_now_s() - t0 < o.duration_s) {
			struct timespec ts = { 0, 50000000 };

			nanosleep(&ts, NULL);
		}
		CK(cudaFree(a));
	}
	gs_report_begin("memprobe", &o, &d, ok);
	gs_kv_writef(stdout, "limit_mib", "%lld", limit_mib);
	gs_kv_writef(stdout, "reported_total_mib", "%.3f", (double)total_b / 1048576.0);
	gs_kv_writef(stdout, "reported_free_mib", "%.3f", (double)free_b / 1048576.0);
	gs_kv_writef(stdout, "total_is_limit", "%d", total_ok);
	gs_kv_writef(stdout, "byte_under_ok", "%d", under_ok);
	gs_kv_writef(stdout, "byte_over_fails", "%d", over_fails);
	gs_kv_writef(stdout, "last_byte_ok", "%d", one_more_ok);
	gs_kv_writef(stdout, "limit_plus_one_fails", "%d", plus_one_fails);
	gs_kv_writef(stdout, "limit_ok", "%d", exact_ok);
	gs_kv_writef(stdout, "context_ok", "%d", still_works);
	gs_report_end();
	return ok ? 0 : 1;
}
