/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_convert.c - how long `gpusim convert` takes on a large job table:
 * writes a ROWS-row table in a format's published layout (generated here,
 * deterministic, no row of a real trace) to a temporary file, then
 * converts it REPEATS times against a fixed 1000-node cluster and writes
 * the pods as gpusim CSV (to /dev/null), reporting the median, min and
 * max of reading and converting, of writing, and of both, in wall time
 * and in the process's CPU time (which a busy machine inflates less).
 * Issue 23's target: a 1,000,000-row job table in under 5 s.
 *
 *   bench_convert [ROWS] [REPEATS] [FORMATS]   (1000000, 5, pai,dlrm,spot,helios,acme)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "io/trace/convert.h"
#include "io/trace/write.h"

static double clock_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *fmt, const char *what, double *ms, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
	printf("%-7s %-18s median %8.0f ms  min %8.0f  max %8.0f  (%d runs)\n", fmt, what,
	       ms[n / 2], ms[0], ms[n - 1], n);
}

/* A small deterministic generator (64-bit LCG), so every run converts the same table. */
static uint64_t rng = 88172645463325252ULL;

static unsigned pick(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

static void datetime(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t)(1585699200 + t); /* 2020-04-01 00:00:00 UTC */
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Writes ROWS rows of format fmt; a job in 20 runs on several workers. */
static int generate(FILE *f, const char *fmt, long rows)
{
	static const unsigned workers[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 8 };
	static const char *const models[] = { "A10", "A100-SXM4-80GB", "H800" };
	long i;
	int64_t t = 0;

	if (!strcmp(fmt, "pai"))
		fputs("job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,"
		      "plan_gpu,gpu_type\n", f);
	else if (!strcmp(fmt, "dlrm"))
		fputs("instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,"
		      "rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,"
		      "max_instance_per_node,creation_time,scheduled_time,deletion_time\n", f);
	else if (!strcmp(fmt, "spot"))
		fputs("job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,"
		      "submit_time,duration,job_type\n", f);
	else if (!strcmp(fmt, "helios"))
		fputs("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
		      "end_time,duration,queue\n", f);
	else if (!strcmp(fmt, "acme"))
		fputs("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,"
		      "end_time,duration,queue,gpu_time\n", f);
	else
		return -1;
	for (i = 0; i < rows; i++) {
		unsigned w = workers[pick(20)], gpu = 1 + pick(2) * 3, dur = 60 + pick(86400);
		char a[32], b[32], c[32];

		t += pick(30);
		if (!strcmp(fmt, "pai")) {
			fprintf(f, "%016lx%08lx,worker,%u.0,Terminated,%" PRId64 ".0,%" PRId64 ".0,"
				"%u.0,%u.5,%u.0,V100\n", (unsigned long)i * 2654435761u,
				(unsigned long)i, w, 1000 + t, 1000 + t + dur, 100 * (1 + pick(8)),
				1 + pick(60), 25 * (1 + pick(8)));
		} else if (!strcmp(fmt, "dlrm")) {
			bool hn = pick(3) == 0;

			fprintf(f, "instance_%ld,%s,app_%u,%u,%u,%u,%u,25,25,%u.0,%u.0,100.0,120.0,%d,"
				"%" PRId64 ".0,%" PRId64 ".0,%" PRId64 ".0\n", i, hn ? "HN" : "CN",
				pick(150), hn ? 8u : 48u, hn ? 8u : 48u, hn ? 1u : 0u, hn ? 1u : 0u,
				hn ? 40u : 240u, hn ? 40u : 240u, pick(2) ? -1 : 4, t, t, t + dur);
		} else if (!strcmp(fmt, "spot")) {
			fprintf(f, "%ld,%u,%s,%u,%u,%u,%" PRId64 ",%u,%s\n", i, pick(80),
				models[pick(3)], 4 + pick(16), 1, w, t, dur, pick(2) ? "HP" : "Spot");
		} else {
			datetime(a, sizeof(a), t);
			datetime(b, sizeof(b), t + 5);
			datetime(c, sizeof(c), t + 5 + dur);
			if (!strcmp(fmt, "helios"))
				fprintf(f, "%ld,u%u,vc%u,%u,%u,%u,COMPLETED,%s,%s,%s,%u,5\n", i,
					pick(500), pick(20), gpu * w, 4 * gpu * w, w, a, b, c, dur);
			else
				fprintf(f, "%ld,u%u,%u,%u,%u,Other,COMPLETED,%s+08:00,%s+08:00,"
					"%s+08:00,%u,5,0\n", i, pick(500), w, gpu * w, 16 * gpu * w,
					a, b, c, dur);
		}
	}
	return ferror(f) ? -1 : 0;
}

static void fixed_cluster(struct gs_cluster *c)
{
	int i;

	gs_cluster_init(c);
	for (i = 0; i < 1000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "n%d", i);
		gs_cluster_add_node(c, name, 128000, 1048576, 8, i % 2 ? "A100-80G" : "V100M16");
	}
}

static int bench(const char *fmt, long rows, int repeats)
{
	double conv_ms[64], write_ms[64], total_ms[64], cpu_ms[64];
	char path[] = "/tmp/gpusim-bench-convert-XXXXXX", err[1024];
	struct gs_cluster given;
	int fd = mkstemp(path), i, rc = 0;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	size_t pods = 0;

	if (!f || generate(f, fmt, rows) || fclose(f)) {
		fprintf(stderr, "bench_convert: cannot write %s\n", path);
		if (fd >= 0)
			unlink(path);
		return 1;
	}
	fixed_cluster(&given);
	for (i = 0; i < repeats && rc == 0; i++) {
		struct gs_conv_opts o;
		struct gs_conv_report rep;
		struct gs_cluster c;
		struct gs_trace t;
		FILE *null = fopen("/dev/null", "w");
		double t0, t1, t2, c0;

		gs_conv_opts_init(&o, (enum gs_conv_format)gs_conv_format_find(fmt));
		o.jobs.name = path;
		o.nodes = &given;
		gs_cluster_init(&c);
		gs_trace_init(&t);
		c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		t0 = clock_ms(CLOCK_MONOTONIC);
		rc = gs_convert(&o, &c, &t, &rep, err, sizeof(err));
		t1 = clock_ms(CLOCK_MONOTONIC);
		if (rc == 0 && null)
			rc = gs_write_trace_csv_stream(null, "/dev/null", &t, &c, err, sizeof(err));
		t2 = clock_ms(CLOCK_MONOTONIC);
		cpu_ms[i] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (null)
			fclose(null);
		conv_ms[i] = t1 - t0;
		write_ms[i] = t2 - t1;
		total_ms[i] = t2 - t0;
		pods = t.n_pods;
		gs_trace_release(&t);
		gs_cluster_release(&c);
	}
	unlink(path);
	gs_cluster_release(&given);
	if (rc) {
		fprintf(stderr, "bench_convert: %s: %s\n", fmt, err);
		return 1;
	}
	printf("%-7s %ld rows -> %zu pods\n", fmt, rows, pods);
	report(fmt, "read and convert", conv_ms, repeats);
	report(fmt, "write the pods", write_ms, repeats);
	report(fmt, "both", total_ms, repeats);
	report(fmt, "both, CPU time", cpu_ms, repeats);
	return 0;
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 1000000;
	int repeats = argc > 2 ? atoi(argv[2]) : 5, rc = 0;
	char formats[256], *save = NULL, *fmt;

	if (rows < 1 || repeats < 1 || repeats > 64) {
		fprintf(stderr, "usage: bench_convert [ROWS] [REPEATS (1-64)] [FORMATS]\n");
		return 2;
	}
	snprintf(formats, sizeof(formats), "%s", argc > 3 ? argv[3] : "pai,dlrm,spot,helios,acme");
	for (fmt = strtok_r(formats, ",", &save); fmt && rc == 0; fmt = strtok_r(NULL, ",", &save))
		rc = bench(fmt, rows, repeats);
	return rc;
}
