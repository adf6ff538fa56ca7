/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench.h - the parts of gpusim-bench: the host's GPUs, running clients
 * in a sharing mode, and turning their reports into results.
 *
 * The harness depends on libc, the allocator (gsalloc) and nothing else:
 * it finds the GPUs by loading the CUDA driver at run time (dlopen), so it
 * builds on a GPU host with only CUDA and a C compiler, and its tests run
 * on machines without a GPU against the fake driver.
 *
 * Ownership: struct gs_bench_host and struct gs_bench_run are
 * caller-owned; a run owns its captured reports (_release).
 */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/cluster.h"
#include "io/kvline.h"
#include "scenario.h"

/* --- the host ------------------------------------------------------------ */

/* A GPU's compute mode, as cuDeviceGetAttribute gives it (CUcomputemode). */
enum gs_bench_compute_mode {
	GS_BENCH_CM_UNKNOWN = -1,
	GS_BENCH_CM_DEFAULT = 0,
	GS_BENCH_CM_EXCLUSIVE_THREAD = 1,   /* gone since CUDA 8; treated as below */
	GS_BENCH_CM_PROHIBITED = 2,
	GS_BENCH_CM_EXCLUSIVE_PROCESS = 3,
};

struct gs_bench_gpu {
	char name[256];
	char uuid[48];           /* GPU-xxxxxxxx-...: what CUDA_VISIBLE_DEVICES takes */
	int64_t mem_mib;
	int compute_mode;        /* enum gs_bench_compute_mode; read, never changed */
};

/* "Default", "Exclusive_Process", "Prohibited", ... as nvidia-smi names them. */
const char *gs_bench_compute_mode_name(int mode);

struct gs_bench_host {
	char hostname[64];
	char driver[64];         /* kernel module version, e.g. 550.54.15; "unknown" */
	char cuda[16];           /* CUDA version the driver supports, e.g. 12.4 */
	int n_gpus;
	struct gs_bench_gpu gpu[GS_MAX_GPUS];
};

/*
 * The driver's version ("580.159.04") from the first line of
 * /proc/driver/nvidia/version, proprietary or open module; "unknown"
 * when the line has none.
 */
void gs_bench_driver_version(const char *line, char *out, size_t len);

/*
 * Finds the GPUs through the CUDA driver (libcuda.so.1). Returns 0,
 * GS_ENODEV (no driver or no GPU; err says which) or GS_EIO.
 */
int gs_bench_host_discover(struct gs_bench_host *h, char *err, size_t err_len);

/* --- running a mode ---------------------------------------------------------- */

struct gs_bench_env {
	const char *client_dir;  /* where vecadd, mnist, launch, memprobe are */
	const char *hook_path;   /* libgpushare.so */
	const char *mps_control; /* nvidia-cuda-mps-control, NULL when not found */
	const char *work_dir;    /* client logs, MPS and shared-memory directories */
	double startup_s;        /* allowance for start-up before the common start */
};

/* One client's outcome in one run. */
struct gs_bench_result {
	int client;              /* index in the scenario */
	int gpu;                 /* host GPU index */
	int colocated;           /* clients on that GPU in this run, itself included */
	int exit_code;           /* 128 + signal when killed; -1 never started */
	int has_report;
	int check_ok;            /* the client's own ok=1 */
	double throughput;       /* NAN without one */
	char unit[24];
	double wall_s;
	struct gs_kvline report; /* the client's report line (owned) */
	char log_path[512];      /* its stderr */
	/* Derived, filled by gs_bench_derive(); NAN where they do not apply. */
	double alone, factor, slowdown, share, overhead_pct;
};

struct gs_bench_run {
	enum gs_bench_mode mode;
	int repeat;
	int skipped;             /* the mode could not run here; reason says why */
	char reason[1024];
	char started[32];        /* ISO-8601 UTC */
	double wall_s;
	int n;
	struct gs_bench_result res[GS_SCENARIO_MAX_CLIENTS];
};

/*
 * Runs every client of s once in mode m, with the GPUs of placement (one
 * host GPU index per client). Exclusive runs them one after another, and
 * so does every mode of an overhead scenario; the others run all at once
 * with a common start time. A client that fails is a
 * result, not an error. Returns 0, or GS_EIO when the mode's machinery
 * failed (fork, the MPS daemon): then run->skipped and run->reason are
 * set. gs_bench_run_release() frees the reports.
 */
int gs_bench_run_mode(const struct gs_bench_env *env, const struct gs_bench_host *h,
		      const struct gs_scenario *s, const int *placement, enum gs_bench_mode m,
		      int repeat, struct gs_bench_run *run);
/* Frees the reports gs_bench_run_mode() parsed into run; a zeroed run is a no-op. */
void gs_bench_run_release(struct gs_bench_run *run);

/*
 * Asks the harness to stop: async-signal-safe (sets a flag, writes one
 * line with write(2)), for SIGINT and SIGTERM handlers. A run in progress
 * then kills its clients, quits its MPS daemon and waits for it, and
 * returns; gs_bench_stop_requested() says which signal asked (0: none).
 */
void gs_bench_request_stop(int sig);
/* The signal gs_bench_request_stop() was given last, or 0 when none was. */
int gs_bench_stop_requested(void);

/* Kills running clients and stops a private MPS daemon (not in a signal handler). */
void gs_bench_abort(void);

/* --- the private MPS daemon (mps.c) ------------------------------------------- */

/*
 * Starts an MPS control daemon with pipe and log directories in a new
 * /tmp/gpusim-mps-XXXXXX (quitting, the first time, daemons that killed
 * harnesses left in such directories). Its logs are kept in
 * <work_dir>/<tag>.mps-log once it has gone. Returns 0, or GS_ENOENT (no
 * nvidia-cuda-mps-control) or GS_EIO with reason set.
 */
int gs_bench_mps_start(const struct gs_bench_env *env, const char *tag, char *reason,
		       size_t len);

/*
 * Sends "quit" to the daemon and waits (at most 30 s) until it has exited,
 * then removes its directories. A daemon that outlives the wait is
 * reported, and no later gs_bench_mps_start() starts another.
 */
void gs_bench_mps_stop(void);

/*
 * The daemon's CUDA_MPS_PIPE_DIRECTORY: a static string, "" until
 * gs_bench_mps_start() first sets it, then the last one it set, also after
 * that daemon stopped.
 */
const char *gs_bench_mps_pipe_dir(void);
/* Its CUDA_MPS_LOG_DIRECTORY, under the same rules as gs_bench_mps_pipe_dir(). */
const char *gs_bench_mps_log_dir(void);

/* --- results ------------------------------------------------------------------ */

/*
 * Fills the derived fields of all runs of one scenario: alone (median
 * exclusive throughput), factor = throughput / alone, slowdown = 1 /
 * factor, share (factor over the sum of the factors on the same GPU, for
 * co-located clients) and overhead_pct (for a client alone on its GPU in
 * a mode other than exclusive).
 */
void gs_bench_derive(const struct gs_scenario *s, struct gs_bench_run *runs, int n_runs);

/*
 * "ok", "failed" (crashed, no report, or a failed self-check) or
 * "not-started". A memprobe that reports ok=0 is "ok": its checks are the
 * measurement (without isolation they are expected to fail).
 */
const char *gs_bench_result_status(const struct gs_scenario *s, const struct gs_bench_result *r);

/* Writes the header line of a results file. */
void gs_bench_write_header(FILE *f, const struct gs_bench_host *h);

/* Writes one scenario's run, client and slowdown records. */
void gs_bench_write(FILE *f, const struct gs_bench_host *h, const struct gs_scenario *s,
		    const struct gs_bench_run *runs, int n_runs);

/* Appends the scenario's rows to the slowdown CSV (header when empty). */
void gs_bench_write_slowdown_csv(FILE *f, const struct gs_bench_host *h,
				 const struct gs_scenario *s, const struct gs_bench_run *runs,
				 int n_runs);

#endif
