/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results.c - derived numbers (slowdown, achieved share, overhead) and
 * the results file of gpusim-bench.
 *
 * The file is sim/io/kvline.h text, one record per line, loaded into SQLite
 * by `gpusim bench-import`:
 *
 *   # gpusim-bench results 1
 *   run id=... scenario=... mode=... repeat=... status=ok ...
 *   client run=... name=... kernel=... throughput=... factor=... ...
 *   slowdown scenario=... kernel=... colocated=2 mode=timeslice factor=0.51 ...
 *
 * Every record carries the device name, the driver version and the CUDA
 * version, so that a line on its own says where it was measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RESULTS_VERSION 1

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int usable(const struct gs_bench_result *r)
{
	return r->has_report && r->exit_code == 0 && !isnan(r->throughput) && r->throughput > 0;
}

void gs_bench_derive(const struct gs_scenario *s, struct gs_bench_run *runs, int n_runs)
{
	double alone[GS_SCENARIO_MAX_CLIENTS], v[64];
	int c, i, k, n;

	/* The baseline: each client's median exclusive throughput over repeats. */
	for (c = 0; c < s->n_clients; c++) {
		n = 0;
		for (i = 0; i < n_runs; i++)
			if (runs[i].mode == GS_MODE_EXCLUSIVE && !runs[i].skipped &&
			    usable(&runs[i].res[c]) && n < 64)
				v[n++] = runs[i].res[c].throughput;
		qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
		alone[c] = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN;
	}
	for (i = 0; i < n_runs; i++) {
		struct gs_bench_run *run = &runs[i];

		if (run->skipped)
			continue;
		for (c = 0; c < run->n; c++) {
			struct gs_bench_result *r = &run->res[c];

			r->alone = alone[c];
			if (!usable(r) || isnan(alone[c]))
				continue;
			r->factor = r->throughput / alone[c];
			r->slowdown = alone[c] / r->throughput;
			if (r->colocated == 1 && run->mode != GS_MODE_EXCLUSIVE)
				r->overhead_pct = (1.0 - r->factor) * 100.0;
		}
		/*
		 * Achieved share: the fraction of its solo speed a client kept,
		 * over the sum of those fractions on its GPU. For clients that
		 * each saturate the GPU alone this is the share of GPU time each
		 * got; it is what the requested gpu_milli is compared with.
		 */
		for (c = 0; c < run->n; c++) {
			struct gs_bench_result *r = &run->res[c];
			double sum = 0;
			int all = 1;

			if (r->colocated < 2 || isnan(r->factor))
				continue;
			for (k = 0; k < run->n; k++) {
				if (run->res[k].gpu != r->gpu)
					continue;
				if (isnan(run->res[k].factor))
					all = 0;
				else
					sum += run->res[k].factor;
			}
			if (all && sum > 0)
				r->share = r->factor / sum;
		}
	}
}

static const char *device_of(const struct gs_bench_host *h, int gpu)
{
	return gpu >= 0 && gpu < h->n_gpus ? h->gpu[gpu].name : "unknown";
}

/* The fields every record ends with. */
static void write_where(FILE *f, const struct gs_bench_host *h, const char *device)
{
	gs_kv_write(f, "device", device);
	gs_kv_write(f, "driver", h->driver);
	gs_kv_write(f, "cuda", h->cuda[0] ? h->cuda : "unknown");
}

/* A number with `digits` significant digits; nothing for NAN (does not apply). */
static void write_num(FILE *f, const char *key, double v, int digits)
{
	if (!isnan(v))
		gs_kv_writef(f, key, "%.*g", digits, v);
}

void gs_bench_write_header(FILE *f, const struct gs_bench_host *h)
{
	int i;

	fprintf(f, "# gpusim-bench results %d\n", RESULTS_VERSION);
	fprintf(f, "host");
	gs_kv_writef(f, "format", "%d", RESULTS_VERSION);
	gs_kv_write(f, "hostname", h->hostname);
	gs_kv_writef(f, "gpus", "%d", h->n_gpus);
	for (i = 0; i < h->n_gpus; i++) {
		char key[32];

		snprintf(key, sizeof(key), "gpu%d_mem_mib", i);
		gs_kv_writef(f, key, "%lld", (long long)h->gpu[i].mem_mib);
	}
	write_where(f, h, h->n_gpus ? h->gpu[0].name : "unknown");
	fputc('\n', f);
}

/* Keys the harness writes itself; a client's report keys with these names are dropped. */
static int own_key(const char *k)
{
	static const char *const own[] = { "run", "scenario", "mode", "repeat", "name", "kernel",
					   "gpu", "gpu_milli", "gpu_mem_mib", "colocated", "status",
					   "exit", "check_ok", "ok", "throughput", "unit", "wall_s",
					   "alone", "factor", "slowdown", "share_req", "share",
					   "overhead_pct", "device", "driver", "cuda", "log", NULL };
	int i;

	for (i = 0; own[i]; i++)
		if (!strcmp(own[i], k))
			return 1;
	return 0;
}

const char *gs_bench_result_status(const struct gs_scenario *s, const struct gs_bench_result *r)
{
	if (!r->has_report)
		return r->exit_code == -1 ? "not-started" : "failed";
	if (!r->check_ok && strcmp(s->clients[r->client].kernel, "memprobe"))
		return "failed";
	if (r->exit_code != 0 && strcmp(s->clients[r->client].kernel, "memprobe"))
		return "failed";
	return "ok";
}

static void write_slowdown_records(FILE *f, const struct gs_bench_host *h,
				   const struct gs_scenario *s, const struct gs_bench_run *runs,
				   int n_runs);

void gs_bench_write(FILE *f, const struct gs_bench_host *h, const struct gs_scenario *s,
		    const struct gs_bench_run *runs, int n_runs)
{
	int i, c;
	size_t k;

	for (i = 0; i < n_runs; i++) {
		const struct gs_bench_run *run = &runs[i];
		char id[160];
		int failed = 0;

		snprintf(id, sizeof(id), "%s/%s/%d", s->name, gs_bench_mode_name(run->mode),
			 run->repeat);
		for (c = 0; c < run->n; c++)
			failed += strcmp(gs_bench_result_status(s, &run->res[c]), "ok") != 0;
		fprintf(f, "run");
		gs_kv_write(f, "id", id);
		gs_kv_write(f, "scenario", s->name);
		gs_kv_write(f, "measure", gs_bench_measure_name(s->measure));
		gs_kv_write(f, "mode", gs_bench_mode_name(run->mode));
		gs_kv_writef(f, "repeat", "%d", run->repeat);
		gs_kv_write(f, "policy", s->policy);
		gs_kv_writef(f, "clients", "%d", run->n);
		gs_kv_write(f, "status", run->skipped ? "skipped" : failed ? "failed" : "ok");
		if (run->skipped)
			gs_kv_write(f, "reason", run->reason);
		gs_kv_write(f, "started", run->started);
		gs_kv_writef(f, "duration_s", "%g", s->duration_s);
		gs_kv_writef(f, "wall_s", "%.3f", run->wall_s);
		gs_kv_write(f, "host", h->hostname);
		write_where(f, h, device_of(h, run->n ? run->res[0].gpu : 0));
		fputc('\n', f);
		if (run->skipped)
			continue;
		for (c = 0; c < run->n; c++) {
			const struct gs_bench_result *r = &run->res[c];
			const struct gs_scenario_client *cl = &s->clients[r->client];

			fprintf(f, "client");
			gs_kv_write(f, "run", id);
			gs_kv_write(f, "scenario", s->name);
			gs_kv_write(f, "mode", gs_bench_mode_name(run->mode));
			gs_kv_writef(f, "repeat", "%d", run->repeat);
			gs_kv_write(f, "name", cl->name);
			gs_kv_write(f, "kernel", cl->kernel);
			gs_kv_writef(f, "gpu", "%d", r->gpu);
			gs_kv_writef(f, "gpu_milli", "%d", cl->gpu_milli);
			gs_kv_writef(f, "gpu_mem_mib", "%lld", (long long)cl->gpu_mem_mib);
			gs_kv_writef(f, "colocated", "%d", r->colocated);
			gs_kv_write(f, "status", gs_bench_result_status(s, r));
			gs_kv_writef(f, "exit", "%d", r->exit_code);
			gs_kv_writef(f, "check_ok", "%d", r->check_ok);
			write_num(f, "throughput", r->throughput, 6);
			if (r->unit[0])
				gs_kv_write(f, "unit", r->unit);
			gs_kv_writef(f, "wall_s", "%.3f", r->wall_s);
			write_num(f, "alone", r->alone, 6);
			write_num(f, "factor", r->factor, 5);
			write_num(f, "slowdown", r->slowdown, 5);
			gs_kv_writef(f, "share_req", "%.3f", cl->gpu_milli / 1000.0);
			write_num(f, "share", r->share, 4);
			write_num(f, "overhead_pct", r->overhead_pct, 4);
			gs_kv_write(f, "log", r->log_path);
			for (k = 0; k < r->report.n; k++)
				if (!own_key(r->report.kv[k].key))
					gs_kv_write(f, r->report.kv[k].key, r->report.kv[k].val);
			write_where(f, h, device_of(h, r->gpu));
			fputc('\n', f);
		}
	}
	write_slowdown_records(f, h, s, runs, n_runs);
}

/* One cell of the slowdown table: mean factor of a kernel at n co-located, in a mode. */
struct cell {
	char kernel[16];
	int colocated;
	enum gs_bench_mode mode;
	int gpu;
	double sum;
	int n;
};

/*
 * True when every client of a run reported a throughput. A client that
 * failed did not load its GPU: the others ran beside fewer clients than
 * "colocated" says, so their factors would be filed under the wrong cell.
 */
static int run_complete(const struct gs_bench_run *run)
{
	int c;

	for (c = 0; c < run->n; c++)
		if (!usable(&run->res[c]))
			return 0;
	return 1;
}

static int collect_cells(const struct gs_scenario *s, const struct gs_bench_run *runs, int n_runs,
			 struct cell *cells, int cap)
{
	int n = 0, i, c, k;

	for (i = 0; i < n_runs; i++) {
		const struct gs_bench_run *run = &runs[i];

		if (run->skipped || run->mode == GS_MODE_EXCLUSIVE || !run_complete(run))
			continue;
		for (c = 0; c < run->n; c++) {
			const struct gs_bench_result *r = &run->res[c];
			const char *kernel = s->clients[r->client].kernel;

			if (isnan(r->factor))
				continue;
			for (k = 0; k < n; k++)
				if (!strcmp(cells[k].kernel, kernel) && cells[k].colocated == r->colocated &&
				    cells[k].mode == run->mode)
					break;
			if (k == n) {
				if (n == cap)
					continue;
				memset(&cells[n], 0, sizeof(cells[n]));
				snprintf(cells[n].kernel, sizeof(cells[n].kernel), "%s", kernel);
				cells[n].colocated = r->colocated;
				cells[n].mode = run->mode;
				cells[n].gpu = r->gpu;
				n++;
			}
			cells[k].sum += r->factor;
			cells[k].n++;
		}
	}
	return n;
}

void gs_bench_write_slowdown_csv(FILE *f, const struct gs_bench_host *h,
				 const struct gs_scenario *s, const struct gs_bench_run *runs,
				 int n_runs)
{
	struct cell cells[128];
	int n = collect_cells(s, runs, n_runs, cells, 128), k;

	if (ftell(f) == 0)
		fprintf(f, "scenario,kernel,colocated,mode,factor,samples,device,driver,cuda\n");
	for (k = 0; k < n; k++)
		fprintf(f, "%s,%s,%d,%s,%.5f,%d,\"%s\",%s,%s\n", s->name, cells[k].kernel,
			cells[k].colocated, gs_bench_mode_name(cells[k].mode),
			cells[k].sum / cells[k].n, cells[k].n, device_of(h, cells[k].gpu), h->driver,
			h->cuda[0] ? h->cuda : "unknown");
}

/* The slowdown records of the results file: the same cells as the CSV. */
static void write_slowdown_records(FILE *f, const struct gs_bench_host *h,
				   const struct gs_scenario *s, const struct gs_bench_run *runs,
				   int n_runs)
{
	struct cell cells[128];
	int n = collect_cells(s, runs, n_runs, cells, 128), k;

	for (k = 0; k < n; k++) {
		fprintf(f, "slowdown");
		gs_kv_write(f, "scenario", s->name);
		gs_kv_write(f, "kernel", cells[k].kernel);
		gs_kv_writef(f, "colocated", "%d", cells[k].colocated);
		gs_kv_write(f, "mode", gs_bench_mode_name(cells[k].mode));
		gs_kv_writef(f, "factor", "%.5f", cells[k].sum / cells[k].n);
		gs_kv_writef(f, "samples", "%d", cells[k].n);
		write_where(f, h, device_of(h, cells[k].gpu));
		fputc('\n', f);
	}
}
