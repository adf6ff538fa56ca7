/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vecadd.cu - the bandwidth-bound client: c = a + b over large float
 * arrays, reported in GB/s and as a ratio to a device-to-device
 * cudaMemcpy measured in the same run on the same device.
 *
 * Bytes counted per element: two reads and one write (12 bytes); for the
 * copy, one read and one write. The copy is the practical ceiling of the
 * card's memory bandwidth, so the ratio says how close the kernel gets
 * (the target is at least 0.90), whatever the card.
 *
 * The kernel reads and writes 16 bytes per thread (float4) in a
 * grid-stride loop, with a scalar tail for sizes that are not a multiple
 * of four. Arrays are far larger than L2, so repeated passes measure DRAM,
 * not the cache.
 */
#include "common.h"

__global__ void vecadd_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
			      float4 *__restrict__ c, size_t n4)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n4; i += stride) {
		float4 x = a[i], y = b[i];

		c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
}

__global__ void vecadd_tail(const float *a, const float *b, float *c, size_t from, size_t n)
{
	size_t i = from + (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

struct arrays {
	float *a, *b, *c;
	size_t n;
	int grid;
};

static void launch(const struct arrays *v)
{
	size_t n4 = v->n / 4;

	vecadd_kernel<<<v->grid, 256>>>((const float4 *)v->a, (const float4 *)v->b, (float4 *)v->c,
					n4);
	CK_LAUNCH();
	if (v->n % 4) {
		vecadd_tail<<<1, 32>>>(v->a, v->b, v->c, n4 * 4, v->n);
		CK_LAUNCH();
	}
}

/*
 * Small size, odd length (exercises the tail), random inputs, output
 * poisoned with NaN first: every element must equal the CPU's a + b
 * exactly (one IEEE single-precision add, the same on both sides).
 */
static int check(const struct gs_device_info *d, struct gs_opts *o)
{
	const size_t n = (1u << 20) + 3;
	struct arrays v;
	float *ha, *hb, *hc;
	uint64_t seed = o->seed;
	size_t i, bad = 0;

	ha = (float *)malloc(n * sizeof(float));
	hb = (float *)malloc(n * sizeof(float));
	hc = (float *)malloc(n * sizeof(float));
	if (!ha || !hb || !hc)
		gs_die("out of host memory");
	for (i = 0; i < n; i++) {
		ha[i] = gs_randf(&seed) * 1000.0f;
		hb[i] = gs_randf(&seed) * 1000.0f;
	}
	v.n = n;
	v.grid = d->sms * 4;
	CK(cudaMalloc(&v.a, n * sizeof(float)));
	CK(cudaMalloc(&v.b, n * sizeof(float)));
	CK(cudaMalloc(&v.c, n * sizeof(float)));
	CK(cudaMemcpy(v.a, ha, n * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(v.b, hb, n * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemset(v.c, 0xff, n * sizeof(float)));
	launch(&v);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(hc, v.c, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++) {
		if (hc[i] != ha[i] + hb[i]) {
			if (bad < 5)
				fprintf(stderr, "vecadd: c[%zu] = %.9g, expected %.9g\n", i, hc[i],
					ha[i] + hb[i]);
			bad++;
		}
	}
	CK(cudaFree(v.a));
	CK(cudaFree(v.b));
	CK(cudaFree(v.c));
	free(ha);
	free(hb);
	free(hc);
	gs_report_begin("vecadd", o, d, bad == 0);
	gs_kv_writef(stdout, "checked", "%zu", n);
	gs_kv_writef(stdout, "mismatches", "%zu", bad);
	gs_report_end();
	return bad ? 1 : 0;
}

/* Median of the per-batch bandwidths: robust against a stray slow batch. */
static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Device-to-device copy bandwidth over `reps` copies of `bytes`, in GB/s. */
static double copy_gbps(void *dst, const void *src, size_t bytes, int reps)
{
	cudaEvent_t e0, e1;
	float ms;
	int i;

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
	CK(cudaEventRecord(e0));
	for (i = 0; i < reps; i++)
		CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
	CK(cudaEventRecord(e1));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&ms, e0, e1));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
	return 2.0 * (double)bytes * reps / ((double)ms * 1e-3) / 1e9;
}

int main(int argc, char **argv)
{
	struct gs_device_info d;
	struct gs_opts o;
	struct arrays v;
	long long size_mib = 256;
	const struct gs_client_opt own[] = { { 'm', "size-mib", 1, 1 << 20, &size_mib } };
	size_t bytes, i;
	double t0, t, elapsed, gbps, d2d, batches[4096];
	long iters = 0;
	int n_batches = 0, batch_iters = 10;
	cudaEvent_t e0, e1;
	float ms;

	gs_opts_read(argc, argv, "vecadd", &o, own, 1,
		     "usage: vecadd [OPTIONS]\n"
		     "Bandwidth-bound c = a + b; reports GB/s and the ratio to a\n"
		     "device-to-device copy measured in the same run.\n"
		     "  --size-mib N         size of each of a, b, c (default 256)\n",
		     "usage: vecadd [--size-mib N] [common flags]; see --help\n");
	gs_device_open(o.device, &d);
	if (o.check_only)
		return check(&d, &o);

	bytes = (size_t)size_mib << 20;
	v.n = bytes / sizeof(float);
	/* Enough resident blocks to keep every SM's memory pipeline full. */
	v.grid = d.sms * 8;
	CK(cudaMalloc(&v.a, bytes));
	CK(cudaMalloc(&v.b, bytes));
	CK(cudaMalloc(&v.c, bytes));
	CK(cudaMemset(v.a, 0x3f, bytes)); /* 0.75f: not zeros, which can run faster */
	CK(cudaMemset(v.b, 0x40, bytes));

	/* The ceiling first, measured on the same arrays. */
	d2d = copy_gbps(v.c, v.a, bytes, 20);

	t0 = gs_now_s();
	while (gs_now_s() - t0 < o.warmup_s) {
		launch(&v);
		CK(cudaDeviceSynchronize());
	}
	gs_wait_start(&o);
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	t0 = gs_now_s();
	for (;;) {
		CK(cudaEventRecord(e0));
		for (i = 0; i < (size_t)batch_iters; i++)
			launch(&v);
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		iters += batch_iters;
		if (n_batches < (int)(sizeof(batches) / sizeof(batches[0])))
			batches[n_batches++] = 3.0 * (double)bytes * batch_iters / (ms * 1e-3) / 1e9;
		t = gs_now_s();
		if (o.iters ? iters >= o.iters : t - t0 >= o.duration_s)
			break;
	}
	elapsed = t - t0;
	/*
	 * The throughput is work over wall time (what a co-located client
	 * loses shows here); the median batch is the kernel's own speed.
	 */
	gbps = 3.0 * (double)bytes * iters / elapsed / 1e9;
	qsort(batches, (size_t)n_batches, sizeof(batches[0]), cmp_double);

	gs_report_begin("vecadd", &o, &d, 1);
	gs_kv_writef(stdout, "throughput", "%.3f", gbps);
	gs_kv_write(stdout, "unit", "GB/s");
	gs_kv_writef(stdout, "iters", "%ld", iters);
	gs_kv_writef(stdout, "elapsed_s", "%.4f", elapsed);
	gs_kv_writef(stdout, "size_mib", "%lld", size_mib);
	gs_kv_writef(stdout, "median_gbps", "%.3f", batches[n_batches / 2]);
	gs_kv_writef(stdout, "d2d_gbps", "%.3f", d2d);
	gs_kv_writef(stdout, "ratio_d2d", "%.4f", batches[n_batches / 2] / d2d);
	gs_report_end();

	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
	CK(cudaFree(v.a));
	CK(cudaFree(v.b));
	CK(cudaFree(v.c));
	return 0;
}
