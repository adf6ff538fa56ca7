/* SPDX-License-Identifier: Apache-2.0 */
/*
 * launch.cu - the launch-bound client: many tiny kernels, each one block
 * of 32 threads that bumps a counter. The GPU work is negligible, so the
 * rate measures the launch path (runtime, driver and anything interposed
 * on it): where an interception library's per-launch cost shows first.
 * Reports launches per second and microseconds per launch.
 *
 * Launches are asynchronous; the client synchronises every --batch
 * launches (default 1000) so the launch queue never fills, and checks at
 * the end that the counter saw every launch exactly once. --check does
 * the same on a short run with a per-launch increment pattern.
 */
#include "common.h"

__global__ void tiny(unsigned long long *counter, unsigned int add)
{
	if (threadIdx.x == 0)
		*counter += add;
}

static unsigned long long read_counter(const unsigned long long *d)
{
	unsigned long long v;

	CK(cudaMemcpy(&v, d, sizeof(v), cudaMemcpyDeviceToHost));
	return v;
}

static int check(const struct gs_device_info *d, struct gs_opts *o)
{
	unsigned long long *counter, want = 0, got;
	unsigned int i;

	CK(cudaMalloc(&counter, sizeof(*counter)));
	CK(cudaMemset(counter, 0, sizeof(*counter)));
	/* Distinct increments: a lost or repeated launch changes the sum. */
	for (i = 1; i <= 5000; i++) {
		tiny<<<1, 32>>>(counter, i);
		CK_LAUNCH();
		want += i;
	}
	CK(cudaDeviceSynchronize());
	got = read_counter(counter);
	CK(cudaFree(counter));
	if (got != want)
		fprintf(stderr, "launch: counter %llu, expected %llu\n", got, want);
	gs_report_begin("launch", o, d, got == want);
	gs_kv_writef(stdout, "launches", "%u", i - 1);
	gs_report_end();
	return got == want ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned long long *counter, base, got;
	struct gs_device_info d;
	struct gs_opts o;
	long long batch = 1000;
	const struct gs_client_opt own[] = { { 'b', "batch", 1, 1000000, &batch } };
	long launches = 0, i;
	double t0, t, elapsed;

	gs_opts_read(argc, argv, "launch", &o, own, 1,
		     "usage: launch [OPTIONS]\n"
		     "Launch-bound: many one-block kernels; reports launches per second.\n"
		     "  --batch N            synchronise every N launches (default 1000)\n",
		     "usage: launch [--batch N] [common flags]; see --help\n");
	gs_device_open(o.device, &d);
	if (o.check_only)
		return check(&d, &o);

	CK(cudaMalloc(&counter, sizeof(*counter)));
	CK(cudaMemset(counter, 0, sizeof(*counter)));
	t0 = gs_now_s();
	while (gs_now_s() - t0 < o.warmup_s) {
		for (i = 0; i < batch; i++)
			tiny<<<1, 32>>>(counter, 1);
		CK_LAUNCH();
		CK(cudaDeviceSynchronize());
	}
	base = read_counter(counter);
	gs_wait_start(&o);
	t0 = gs_now_s();
	for (;;) {
		for (i = 0; i < batch; i++)
			tiny<<<1, 32>>>(counter, 1);
		CK_LAUNCH();
		CK(cudaDeviceSynchronize());
		launches += batch;
		t = gs_now_s();
		if (o.iters ? launches >= o.iters : t - t0 >= o.duration_s)
			break;
	}
	elapsed = t - t0;
	got = read_counter(counter) - base;

	gs_report_begin("launch", &o, &d, got == (unsigned long long)launches);
	gs_kv_writef(stdout, "throughput", "%.1f", (double)launches / elapsed);
	gs_kv_write(stdout, "unit", "launches/s");
	gs_kv_writef(stdout, "iters", "%ld", launches);
	gs_kv_writef(stdout, "elapsed_s", "%.4f", elapsed);
	gs_kv_writef(stdout, "us_per_launch", "%.3f", elapsed / (double)launches * 1e6);
	gs_report_end();
	CK(cudaFree(counter));
	if (got != (unsigned long long)launches) {
		fprintf(stderr, "launch: counter %llu, expected %ld\n", got, launches);
		return 1;
	}
	return 0;
}
