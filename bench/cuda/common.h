/* SPDX-License-Identifier: Apache-2.0 */
/*
 * common.h - what every CUDA client shares: the common flags, checking
 * every CUDA call, timing, and the one-line report the harness reads.
 *
 * A client is a separate program that the harness (gpusim-bench) starts
 * as a pod would start it: alone, side by side with others, under MPS or
 * under libgpushare. It checks every CUDA call and its own results
 * against a CPU reference, then runs its kernel for a fixed time or a
 * fixed number of iterations and prints one line on stdout:
 *
 *   report kernel=vecadd name=a ok=1 throughput=1834.2 unit=GB/s ... device="NVIDIA H100 80GB HBM3"
 *
 * in the key=value format of sim/io/kvline.h (a value with blanks or quotes
 * is double-quoted, with \" and \\ escaped). Exit status: 0 success, 1 a
 * CUDA call or a check failed, 2 bad flags, 77 no usable GPU (no driver or
 * no device; CTest counts that as skipped).
 *
 * Header-only on purpose: each client is one .cu file plus this, and the
 * harness's own key=value writer (sim/io/kvline.c) linked in.
 */
#ifndef GS_BENCH_COMMON_H
#define GS_BENCH_COMMON_H

#include <cuda_runtime.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The report line's key=value writer, the harness's reader's twin (C, linked in). */
#ifdef __cplusplus
extern "C" {
#endif
#include "io/kvline.h"
#ifdef __cplusplus
}
#endif

#define GS_EXIT_NODEV 77

/* Every CUDA runtime call goes through this. */
#define CK(call) gs_check((call), #call, __FILE__, __LINE__)
/* After every kernel launch: launch errors, then (in --check) execution errors. */
#define CK_LAUNCH() CK(cudaGetLastError())

/*
 * Returns when e is cudaSuccess. Otherwise prints "file:line: what: ..." on
 * stderr and exits the process: 77 (GS_EXIT_NODEV) without a driver or a
 * device, 1 for any other error.
 */
static inline void gs_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorString(e),
		cudaGetErrorName(e));
	/* No driver, no device: not a failure of the client, a machine without a GPU. */
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
		exit(GS_EXIT_NODEV);
	exit(1);
}

/* Prints the formatted message and a newline on stderr and exits the process with 1. */
__attribute__((format(printf, 1, 2))) static inline void gs_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Seconds on CLOCK_MONOTONIC, for measuring intervals. */
static inline double gs_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The flags every client takes; each client adds its own after these. */
struct gs_opts {
	const char *name;       /* label in the report */
	double duration_s;      /* measure for this long ... */
	long iters;             /* ... or this many iterations, when > 0 */
	double warmup_s;
	long long start_at_ns;  /* CLOCK_REALTIME to start measuring at; 0 = now */
	int device;
	int check_only;         /* --check: verify against the CPU on a small size, exit */
	uint64_t seed;
};

#define GS_COMMON_LONGOPTS                                   \
	{ "name", required_argument, NULL, 'n' },            \
	{ "duration-s", required_argument, NULL, 'd' },      \
	{ "iters", required_argument, NULL, 'i' },           \
	{ "warmup-s", required_argument, NULL, 'w' },        \
	{ "start-at-ns", required_argument, NULL, 'S' },     \
	{ "device", required_argument, NULL, 'D' },          \
	{ "check", no_argument, NULL, 'c' },                 \
	{ "seed", required_argument, NULL, 's' },            \
	{ "help", no_argument, NULL, 'h' }

#define GS_COMMON_HELP                                                                      \
	"  --name NAME          label for the report (default: the kernel)\n"               \
	"  --duration-s S       measure for S seconds (default 5)\n"                        \
	"  --iters N            measure N iterations instead\n"                             \
	"  --warmup-s S         run S seconds before measuring (default 1)\n"                \
	"  --start-at-ns T      start measuring at CLOCK_REALTIME T (the harness aligns\n"   \
	"                       co-located clients this way)\n"                              \
	"  --device N           CUDA device ordinal (default 0)\n"                          \
	"  --check              verify against a CPU reference on a small size and exit\n"  \
	"  --seed N             seed of the input generator (default 1)\n"                 \
	"  --help               this text\n"                                                \
	"Exit status: 0 ok, 1 failure, 2 bad flags, 77 no GPU.\n"

/* The defaults of the common flags; kernel (borrowed) is the default --name. */
static inline void gs_opts_init(struct gs_opts *o, const char *kernel)
{
	memset(o, 0, sizeof(*o));
	o->name = kernel;
	o->duration_s = 5;
	o->warmup_s = 1;
	o->seed = 1;
}

/*
 * True when s looks like a decimal number as written by hand: it starts
 * with a digit, '-' or '.', and holds only digits, '.', '-', '+', 'e' and
 * 'E'. strtod() and strtoll() also take leading blanks, '+', hex, "inf"
 * and "nan", which a flag's value never means (" 5" is a quoting mistake).
 */
static inline int gs_number_start(const char *s)
{
	return ((*s >= '0' && *s <= '9') || *s == '-' || *s == '.') &&
	       s[strspn(s, "0123456789.-+eE")] == 0;
}

/* s as a number from lo to hi; otherwise prints why on stderr and exits the process with 2. */
static inline double gs_parse_double(const char *flag, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!gs_number_start(s) || errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "--%s '%s': expected a number from %g to %g\n", flag, s, lo, hi);
		exit(2);
	}
	return v;
}

/* s as an integer from lo to hi; otherwise prints why on stderr and exits the process with 2. */
static inline long long gs_parse_ll(const char *flag, const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!gs_number_start(s) || *s == '.' || errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "--%s '%s': expected an integer from %lld to %lld\n", flag, s, lo,
			hi);
		exit(2);
	}
	return v;
}

/*
 * Handles a common flag (getopt's c and optarg); returns 1, or 0 when c is
 * not one of them. A bad value exits the process with 2.
 */
static inline int gs_opts_parse(struct gs_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'n':
		o->name = arg;
		return 1;
	case 'd':
		o->duration_s = gs_parse_double("duration-s", arg, 0.01, 86400);
		return 1;
	case 'i':
		o->iters = (long)gs_parse_ll("iters", arg, 1, 1000000000000LL);
		return 1;
	case 'w':
		o->warmup_s = gs_parse_double("warmup-s", arg, 0, 3600);
		return 1;
	case 'S':
		o->start_at_ns = gs_parse_ll("start-at-ns", arg, 0, INT64_MAX);
		return 1;
	case 'D':
		o->device = (int)gs_parse_ll("device", arg, 0, 1023);
		return 1;
	case 'c':
		o->check_only = 1;
		return 1;
	case 's':
		o->seed = (uint64_t)gs_parse_ll("seed", arg, 0, INT64_MAX);
		return 1;
	default:
		return 0;
	}
}

/* A client's own integer option: its getopt letter, its name, its range and its value. */
struct gs_client_opt {
	int c;
	const char *name;
	long long lo, hi;
	long long *value;
};

#define GS_CLIENT_MAX_OWN 4

/*
 * Reads a client's arguments: the common flags into *o (defaults first;
 * kernel, borrowed, is the default --name), the client's own integer
 * options (own, n_own of them, at most GS_CLIENT_MAX_OWN) into their
 * values. --help prints help (the client's lines, then the common ones)
 * and exits 0; anything else prints usage on stderr and exits 2, as does
 * a bad value.
 */
static inline void gs_opts_read(int argc, char **argv, const char *kernel, struct gs_opts *o,
				const struct gs_client_opt *own, int n_own, const char *help,
				const char *usage)
{
	static const struct option common[] = { GS_COMMON_LONGOPTS };
	struct option longopts[sizeof(common) / sizeof(common[0]) + GS_CLIENT_MAX_OWN + 1];
	size_t n = sizeof(common) / sizeof(common[0]);
	int c, i;

	memcpy(longopts, common, sizeof(common));
	for (i = 0; i < n_own && i < GS_CLIENT_MAX_OWN; i++)
		longopts[n++] = (struct option){ own[i].name, required_argument, NULL, own[i].c };
	memset(&longopts[n], 0, sizeof(longopts[n]));
	gs_opts_init(o, kernel);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (gs_opts_parse(o, c, optarg))
			continue;
		for (i = 0; i < n_own && own[i].c != c; i++)
			;
		if (i < n_own) {
			*own[i].value = gs_parse_ll(own[i].name, optarg, own[i].lo, own[i].hi);
			continue;
		}
		if (c == 'h') {
			printf("%s" GS_COMMON_HELP, help);
			exit(0);
		}
		fprintf(stderr, "%s", usage);
		exit(2);
	}
}

/* Sleeps until --start-at-ns, so co-located clients measure the same window. */
static inline void gs_wait_start(const struct gs_opts *o)
{
	struct timespec now, ts;
	long long t, left;

	if (!o->start_at_ns)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	t = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
	left = o->start_at_ns - t;
	if (left <= 0) {
		fprintf(stderr, "warning: start time passed %.3f s ago (slow start-up?)\n",
			(double)-left * 1e-9);
		return;
	}
	ts.tv_sec = (time_t)(left / 1000000000LL);
	ts.tv_nsec = (long)(left % 1000000000LL);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The identity fields of the report. */
struct gs_device_info {
	char name[256];
	int driver;      /* CUDA version the driver supports, e.g. 12040 */
	int runtime;     /* CUDA runtime this client was built with */
	int cc_major, cc_minor, sms;
	size_t mem_bytes;
};

/*
 * Selects the device, creates its context and fills *d. Exits the process
 * with 77 (GS_EXIT_NODEV) without a driver or a device, 2 when device is
 * not on this machine, and 1 when a CUDA call fails (gs_check()).
 */
static inline void gs_device_open(int device, struct gs_device_info *d)
{
	cudaDeviceProp p;
	int n = 0;

	memset(d, 0, sizeof(*d));
	CK(cudaDriverGetVersion(&d->driver));
	CK(cudaRuntimeGetVersion(&d->runtime));
	if (d->driver == 0) {
		fprintf(stderr, "no CUDA driver on this machine\n");
		exit(GS_EXIT_NODEV);
	}
	CK(cudaGetDeviceCount(&n));
	if (device >= n) {
		fprintf(stderr, "--device %d: this machine has %d CUDA device(s)\n", device, n);
		exit(2);
	}
	CK(cudaSetDevice(device));
	CK(cudaGetDeviceProperties(&p, device));
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	d->cc_major = p.major;
	d->cc_minor = p.minor;
	d->sms = p.multiProcessorCount;
	d->mem_bytes = p.totalGlobalMem;
	/* Creates the context now, so that start-up stays out of the timings. */
	CK(cudaFree(0));
}

/* The start of the report line: kernel, name and the device's identity. */
static inline void gs_report_begin(const char *kernel, const struct gs_opts *o,
				   const struct gs_device_info *d, int ok)
{
	printf("report");
	gs_kv_write(stdout, "kernel", kernel);
	gs_kv_write(stdout, "name", o->name);
	gs_kv_writef(stdout, "ok", "%d", ok);
	gs_kv_write(stdout, "device", d->name);
	gs_kv_writef(stdout, "cc", "%d.%d", d->cc_major, d->cc_minor);
	gs_kv_writef(stdout, "sms", "%d", d->sms);
	gs_kv_writef(stdout, "cuda_driver", "%d", d->driver);
	gs_kv_writef(stdout, "cuda_runtime", "%d", d->runtime);
}

/* Ends the report line and flushes stdout, so the harness reads it at once. */
static inline void gs_report_end(void)
{
	putchar('\n');
	fflush(stdout);
}

/* xorshift64*: the seeded input generator (the same stream on every host). */
static inline uint64_t gs_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [-1, 1). */
static inline float gs_randf(uint64_t *s)
{
	return (float)((double)(gs_rand(s) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

#endif
