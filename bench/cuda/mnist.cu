/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mnist.cu - an MNIST-shaped training client: a 784-256-10 multilayer
 * perceptron (ReLU, softmax cross-entropy), forward, backward and plain
 * SGD, with hand-written kernels, on synthetic data from a seeded
 * generator (no dataset download). Reports training samples per second.
 *
 * The data: ten random class prototypes in [0, 1]^784 and samples that
 * are a prototype plus noise, so the classes are learnable and the loss
 * must fall; every run reports its first and last batch loss, and ok=0 if
 * the loss did not fall.
 *
 * One step is about a dozen small kernels (three matrix products each
 * way, bias, ReLU, softmax, reductions, updates): a mix of compute and
 * launches typical of small training jobs, between vecadd (bandwidth)
 * and launch (launch rate). --check compares one step's loss and all
 * gradients with a float64 CPU reference (relative error below 1e-4),
 * then trains 300 steps and requires the loss to halve.
 */
#include <math.h>

#include "common.h"

#define IN 784
#define HID 256
#define OUT 10
#define TILE 16

/*
 * C[M x N] = op(A) op(B) (+ C when accumulate). op(X) is X or its
 * transpose; all matrices are row-major with the given leading dimension.
 */
__global__ void matmul(int M, int N, int K, const float *A, int lda, int ta, const float *B, int ldb,
		       int tb, float *C, int ldc, int accumulate)
{
	__shared__ float as[TILE][TILE + 1], bs[TILE][TILE + 1];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0.0f;

	for (int k0 = 0; k0 < K; k0 += TILE) {
		int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;

		as[threadIdx.y][threadIdx.x] =
			row < M && ka < K ? (ta ? A[(size_t)ka * lda + row] : A[(size_t)row * lda + ka])
					  : 0.0f;
		bs[threadIdx.y][threadIdx.x] =
			kb < K && col < N ? (tb ? B[(size_t)col * ldb + kb] : B[(size_t)kb * ldb + col])
					  : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N) {
		size_t i = (size_t)row * ldc + col;

		C[i] = accumulate ? C[i] + acc : acc;
	}
}

/* H = max(H + b, 0) row-wise (relu != 0), or L = L + b. */
__global__ void add_bias(float *X, const float *b, int rows, int cols, int relu)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < rows * cols) {
		float v = X[i] + b[i % cols];

		X[i] = relu && v < 0.0f ? 0.0f : v;
	}
}

/*
 * Softmax cross-entropy per row: adds the batch's mean loss to *loss and
 * writes dL = (softmax - onehot) / rows.
 */
__global__ void softmax_xent(const float *L, const int *y, float *dL, float *loss, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	float m, s = 0.0f, p;

	if (r >= rows)
		return;
	m = L[r * OUT];
	for (int j = 1; j < OUT; j++)
		m = fmaxf(m, L[r * OUT + j]);
	for (int j = 0; j < OUT; j++)
		s += expf(L[r * OUT + j] - m);
	for (int j = 0; j < OUT; j++) {
		p = expf(L[r * OUT + j] - m) / s;
		dL[r * OUT + j] = (p - (j == y[r] ? 1.0f : 0.0f)) / rows;
	}
	atomicAdd(loss, (logf(s) + m - L[r * OUT + y[r]]) / rows);
}

/* dH *= (H > 0): the ReLU's gradient (H holds the post-ReLU values). */
__global__ void relu_back(float *dH, const float *H, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && H[i] <= 0.0f)
		dH[i] = 0.0f;
}

/* db[j] = sum over rows of d[r][j]. */
__global__ void col_sum(const float *d, float *db, int rows, int cols)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0.0f;

	if (j >= cols)
		return;
	for (int r = 0; r < rows; r++)
		s += d[r * cols + j];
	db[j] = s;
}

__global__ void sgd(float *w, const float *g, float lr, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		w[i] -= lr * g[i];
}

struct net {
	int batch;
	float *w1, *b1, *w2, *b2;       /* parameters */
	float *gw1, *gb1, *gw2, *gb2;   /* gradients */
	float *h, *l, *dl, *dh;         /* activations and their gradients */
	float *loss;                    /* one float, the batch loss */
};

static void mm(int M, int N, int K, const float *A, int lda, int ta, const float *B, int ldb, int tb,
	       float *C, int ldc)
{
	dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);

	matmul<<<grid, block>>>(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, 0);
	CK_LAUNCH();
}

static int blocks(int n)
{
	return (n + 255) / 256;
}

/* One step on batch x (device, batch x IN) with labels y; lr 0 = no update. */
static void step(struct net *n, const float *x, const int *y, float lr)
{
	int B = n->batch;

	CK(cudaMemsetAsync(n->loss, 0, sizeof(float)));
	/* forward */
	mm(B, HID, IN, x, IN, 0, n->w1, HID, 0, n->h, HID);
	add_bias<<<blocks(B * HID), 256>>>(n->h, n->b1, B, HID, 1);
	CK_LAUNCH();
	mm(B, OUT, HID, n->h, HID, 0, n->w2, OUT, 0, n->l, OUT);
	add_bias<<<blocks(B * OUT), 256>>>(n->l, n->b2, B, OUT, 0);
	CK_LAUNCH();
	softmax_xent<<<blocks(B), 256>>>(n->l, y, n->dl, n->loss, B);
	CK_LAUNCH();
	/* backward */
	mm(HID, OUT, B, n->h, HID, 1, n->dl, OUT, 0, n->gw2, OUT);
	col_sum<<<1, 32>>>(n->dl, n->gb2, B, OUT);
	CK_LAUNCH();
	mm(B, HID, OUT, n->dl, OUT, 0, n->w2, OUT, 1, n->dh, HID);
	relu_back<<<blocks(B * HID), 256>>>(n->dh, n->h, B * HID);
	CK_LAUNCH();
	mm(IN, HID, B, x, IN, 1, n->dh, HID, 0, n->gw1, HID);
	col_sum<<<blocks(HID), 256>>>(n->dh, n->gb1, B, HID);
	CK_LAUNCH();
	if (lr == 0.0f)
		return;
	sgd<<<blocks(IN * HID), 256>>>(n->w1, n->gw1, lr, IN * HID);
	CK_LAUNCH();
	sgd<<<blocks(HID), 256>>>(n->b1, n->gb1, lr, HID);
	CK_LAUNCH();
	sgd<<<blocks(HID * OUT), 256>>>(n->w2, n->gw2, lr, HID * OUT);
	CK_LAUNCH();
	sgd<<<blocks(OUT), 256>>>(n->b2, n->gb2, lr, OUT);
	CK_LAUNCH();
}

static void net_alloc(struct net *n, int batch, uint64_t *seed)
{
	float *w1 = (float *)malloc(sizeof(float) * IN * HID);
	float *w2 = (float *)malloc(sizeof(float) * HID * OUT);
	float a1 = sqrtf(6.0f / (IN + HID)), a2 = sqrtf(6.0f / (HID + OUT));
	int i;

	if (!w1 || !w2)
		gs_die("out of host memory");
	/* Glorot-uniform weights, zero biases. */
	for (i = 0; i < IN * HID; i++)
		w1[i] = gs_randf(seed) * a1;
	for (i = 0; i < HID * OUT; i++)
		w2[i] = gs_randf(seed) * a2;
	memset(n, 0, sizeof(*n));
	n->batch = batch;
	CK(cudaMalloc(&n->w1, sizeof(float) * IN * HID));
	CK(cudaMalloc(&n->gw1, sizeof(float) * IN * HID));
	CK(cudaMalloc(&n->b1, sizeof(float) * HID));
	CK(cudaMalloc(&n->gb1, sizeof(float) * HID));
	CK(cudaMalloc(&n->w2, sizeof(float) * HID * OUT));
	CK(cudaMalloc(&n->gw2, sizeof(float) * HID * OUT));
	CK(cudaMalloc(&n->b2, sizeof(float) * OUT));
	CK(cudaMalloc(&n->gb2, sizeof(float) * OUT));
	CK(cudaMalloc(&n->h, sizeof(float) * batch * HID));
	CK(cudaMalloc(&n->dh, sizeof(float) * batch * HID));
	CK(cudaMalloc(&n->l, sizeof(float) * batch * OUT));
	CK(cudaMalloc(&n->dl, sizeof(float) * batch * OUT));
	CK(cudaMalloc(&n->loss, sizeof(float)));
	CK(cudaMemcpy(n->w1, w1, sizeof(float) * IN * HID, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(n->w2, w2, sizeof(float) * HID * OUT, cudaMemcpyHostToDevice));
	CK(cudaMemset(n->b1, 0, sizeof(float) * HID));
	CK(cudaMemset(n->b2, 0, sizeof(float) * OUT));
	free(w1);
	free(w2);
}

static void net_free(struct net *n)
{
	float *p[] = { n->w1, n->gw1, n->b1, n->gb1, n->w2, n->gw2, n->b2, n->gb2,
		       n->h, n->dh, n->l, n->dl, n->loss };
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		CK(cudaFree(p[i]));
}

/* The synthetic set: ten noisy prototypes, labels uniform. Host arrays. */
static void make_data(int n, uint64_t *seed, float *x, int *y)
{
	static float proto[OUT][IN];
	int i, j;

	for (i = 0; i < OUT; i++)
		for (j = 0; j < IN; j++)
			proto[i][j] = gs_randf(seed) > 0.4f ? 1.0f : 0.0f;
	for (i = 0; i < n; i++) {
		y[i] = (int)(gs_rand(seed) % OUT);
		for (j = 0; j < IN; j++) {
			float v = proto[y[i]][j] + 0.5f * gs_randf(seed);

			x[(size_t)i * IN + j] = v < 0 ? 0 : v > 1 ? 1 : v;
		}
	}
}

static float read_loss(const struct net *n)
{
	float l;

	CK(cudaMemcpy(&l, n->loss, sizeof(l), cudaMemcpyDeviceToHost));
	return l;
}

/* ||a - b|| / ||b|| over n values, a from the GPU, b the float64 reference. */
static double rel_err(const float *a, const double *b, size_t n)
{
	double num = 0, den = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
		den += b[i] * b[i];
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* One forward and backward pass in float64 on the CPU. */
static double cpu_step(int B, const float *x, const int *y, const float *w1, const float *w2,
		       double *gw1, double *gb1, double *gw2, double *gb2)
{
	double *h = (double *)calloc((size_t)B * HID, sizeof(double));
	double *dh = (double *)calloc((size_t)B * HID, sizeof(double));
	double l[OUT], dl[OUT], loss = 0;
	int r, i, j, k;

	if (!h || !dh)
		gs_die("out of host memory");
	memset(gw1, 0, sizeof(double) * IN * HID);
	memset(gb1, 0, sizeof(double) * HID);
	memset(gw2, 0, sizeof(double) * HID * OUT);
	memset(gb2, 0, sizeof(double) * OUT);
	for (r = 0; r < B; r++) {
		double m, s = 0;

		for (j = 0; j < HID; j++) {
			double v = 0; /* zero biases */

			for (k = 0; k < IN; k++)
				v += (double)x[(size_t)r * IN + k] * w1[(size_t)k * HID + j];
			h[(size_t)r * HID + j] = v > 0 ? v : 0;
		}
		for (j = 0; j < OUT; j++) {
			l[j] = 0;
			for (k = 0; k < HID; k++)
				l[j] += h[(size_t)r * HID + k] * w2[k * OUT + j];
		}
		m = l[0];
		for (j = 1; j < OUT; j++)
			m = l[j] > m ? l[j] : m;
		for (j = 0; j < OUT; j++)
			s += exp(l[j] - m);
		loss += (log(s) + m - l[y[r]]) / B;
		for (j = 0; j < OUT; j++)
			dl[j] = (exp(l[j] - m) / s - (j == y[r])) / B;
		for (j = 0; j < OUT; j++) {
			gb2[j] += dl[j];
			for (k = 0; k < HID; k++)
				gw2[k * OUT + j] += h[(size_t)r * HID + k] * dl[j];
		}
		for (k = 0; k < HID; k++) {
			double g = 0;

			for (j = 0; j < OUT; j++)
				g += dl[j] * w2[k * OUT + j];
			dh[(size_t)r * HID + k] = h[(size_t)r * HID + k] > 0 ? g : 0;
		}
		for (k = 0; k < HID; k++) {
			gb1[k] += dh[(size_t)r * HID + k];
			for (i = 0; i < IN; i++)
				gw1[(size_t)i * HID + k] += (double)x[(size_t)r * IN + i] * dh[(size_t)r * HID + k];
		}
	}
	free(h);
	free(dh);
	return loss;
}

static int check(const struct gs_device_info *d, struct gs_opts *o)
{
	const int B = 16, N = 2048, train_b = 64, steps = 300;
	float *x = (float *)malloc(sizeof(float) * N * IN), *dx;
	int *y = (int *)malloc(sizeof(int) * N), *dy;
	float *w1 = (float *)malloc(sizeof(float) * IN * HID), *w2 = (float *)malloc(sizeof(float) * HID * OUT);
	float *g = (float *)malloc(sizeof(float) * IN * HID);
	double *rw1 = (double *)malloc(sizeof(double) * IN * HID), rb1[HID], rw2[HID * OUT], rb2[OUT];
	double loss_ref, e[5], worst = 0, first = 0, last = 0;
	uint64_t seed = o->seed;
	struct net n;
	float loss;
	int i, ok;

	if (!x || !y || !w1 || !w2 || !g || !rw1)
		gs_die("out of host memory");
	make_data(N, &seed, x, y);
	CK(cudaMalloc(&dx, sizeof(float) * N * IN));
	CK(cudaMalloc(&dy, sizeof(int) * N));
	CK(cudaMemcpy(dx, x, sizeof(float) * N * IN, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dy, y, sizeof(int) * N, cudaMemcpyHostToDevice));

	/* 1. One step's loss and gradients against float64. */
	net_alloc(&n, B, &seed);
	CK(cudaMemset(n.gw1, 0xff, sizeof(float) * IN * HID)); /* NaN: every element must be written */
	step(&n, dx, dy, 0.0f);
	CK(cudaDeviceSynchronize());
	loss = read_loss(&n);
	CK(cudaMemcpy(w1, n.w1, sizeof(float) * IN * HID, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(w2, n.w2, sizeof(float) * HID * OUT, cudaMemcpyDeviceToHost));
	loss_ref = cpu_step(B, x, y, w1, w2, rw1, rb1, rw2, rb2);
	e[0] = fabs(loss - loss_ref) / loss_ref;
	CK(cudaMemcpy(g, n.gw1, sizeof(float) * IN * HID, cudaMemcpyDeviceToHost));
	e[1] = rel_err(g, rw1, IN * HID);
	CK(cudaMemcpy(g, n.gb1, sizeof(float) * HID, cudaMemcpyDeviceToHost));
	e[2] = rel_err(g, rb1, HID);
	CK(cudaMemcpy(g, n.gw2, sizeof(float) * HID * OUT, cudaMemcpyDeviceToHost));
	e[3] = rel_err(g, rw2, HID * OUT);
	CK(cudaMemcpy(g, n.gb2, sizeof(float) * OUT, cudaMemcpyDeviceToHost));
	e[4] = rel_err(g, rb2, OUT);
	for (i = 0; i < 5; i++)
		worst = e[i] > worst || e[i] != e[i] ? e[i] : worst;
	net_free(&n);

	/* 2. Training: the loss of 10 batches at the end below half that at the start. */
	net_alloc(&n, train_b, &seed);
	for (i = 0; i < steps; i++) {
		int off = (i * train_b) % (N - train_b);

		step(&n, dx + (size_t)off * IN, dy + off, 0.1f);
		if (i < 10 || i >= steps - 10) {
			float l = read_loss(&n);

			if (i < 10)
				first += l / 10;
			else
				last += l / 10;
		}
	}
	CK(cudaDeviceSynchronize());
	net_free(&n);
	CK(cudaFree(dx));
	CK(cudaFree(dy));

	ok = worst < 1e-4 && last < 0.5 * first;
	if (!ok)
		fprintf(stderr, "mnist: relative errors loss %.3g gw1 %.3g gb1 %.3g gw2 %.3g gb2 %.3g; "
				"loss %.4f -> %.4f\n", e[0], e[1], e[2], e[3], e[4], first, last);
	gs_report_begin("mnist", o, d, ok);
	gs_kv_writef(stdout, "max_rel_err", "%.3g", worst);
	gs_kv_writef(stdout, "loss_first", "%.4f", first);
	gs_kv_writef(stdout, "loss_last", "%.4f", last);
	gs_report_end();
	free(x);
	free(y);
	free(w1);
	free(w2);
	free(g);
	free(rw1);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct gs_device_info d;
	struct gs_opts o;
	struct net n;
	long long batch_ll = 256, samples_ll = 16384;
	const struct gs_client_opt own[] = { { 'b', "batch", 1, 65536, &batch_ll },
					     { 'N', "samples", 1, 1 << 22, &samples_ll } };
	int batch, n_samples, off = 0;
	float *x, *dx, loss_first, loss_last;
	int *y, *dy;
	long steps = 0;
	double t0, t, elapsed;
	uint64_t seed;

	gs_opts_read(argc, argv, "mnist", &o, own, 2,
		     "usage: mnist [OPTIONS]\n"
		     "Trains a 784-256-10 MLP on synthetic MNIST-shaped data; reports\n"
		     "samples per second and the loss at the start and the end.\n"
		     "  --batch N            batch size (default 256)\n"
		     "  --samples N          synthetic training set size (default 16384)\n",
		     "usage: mnist [--batch N] [--samples N] [common flags]; see --help\n");
	batch = (int)batch_ll;
	n_samples = (int)samples_ll;
	if (n_samples < batch) {
		fprintf(stderr, "--samples %d is smaller than --batch %d\n", n_samples, batch);
		return 2;
	}
	gs_device_open(o.device, &d);
	if (o.check_only)
		return check(&d, &o);

	seed = o.seed;
	x = (float *)malloc(sizeof(float) * (size_t)n_samples * IN);
	y = (int *)malloc(sizeof(int) * (size_t)n_samples);
	if (!x || !y)
		gs_die("out of host memory");
	make_data(n_samples, &seed, x, y);
	CK(cudaMalloc(&dx, sizeof(float) * (size_t)n_samples * IN));
	CK(cudaMalloc(&dy, sizeof(int) * (size_t)n_samples));
	CK(cudaMemcpy(dx, x, sizeof(float) * (size_t)n_samples * IN, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dy, y, sizeof(int) * (size_t)n_samples, cudaMemcpyHostToDevice));
	free(x);
	free(y);
	net_alloc(&n, batch, &seed);

	/* The first batch's loss, before any update. */
	step(&n, dx, dy, 0.0f);
	loss_first = read_loss(&n);
	t0 = gs_now_s();
	while (gs_now_s() - t0 < o.warmup_s) {
		step(&n, dx + (size_t)off * IN, dy + off, 0.05f);
		off = (off + batch) % (n_samples - batch + 1);
		CK(cudaDeviceSynchronize());
	}
	gs_wait_start(&o);
	t0 = gs_now_s();
	for (;;) {
		/* Check the clock every 20 steps: no per-step synchronisation. */
		for (int k = 0; k < 20; k++) {
			step(&n, dx + (size_t)off * IN, dy + off, 0.05f);
			off = (off + batch) % (n_samples - batch + 1);
		}
		steps += 20;
		CK(cudaDeviceSynchronize());
		t = gs_now_s();
		if (o.iters ? steps >= o.iters : t - t0 >= o.duration_s)
			break;
	}
	elapsed = t - t0;
	loss_last = read_loss(&n);

	gs_report_begin("mnist", &o, &d, loss_last < loss_first);
	gs_kv_writef(stdout, "throughput", "%.1f", (double)steps * batch / elapsed);
	gs_kv_write(stdout, "unit", "samples/s");
	gs_kv_writef(stdout, "iters", "%ld", steps);
	gs_kv_writef(stdout, "elapsed_s", "%.4f", elapsed);
	gs_kv_writef(stdout, "batch", "%d", batch);
	gs_kv_writef(stdout, "step_us", "%.2f", elapsed / (double)steps * 1e6);
	gs_kv_writef(stdout, "loss_first", "%.4f", loss_first);
	gs_kv_writef(stdout, "loss_last", "%.4f", loss_last);
	gs_report_end();

	net_free(&n);
	CK(cudaFree(dx));
	CK(cudaFree(dy));
	return loss_last < loss_first ? 0 : 1;
}
