/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario.h - a benchmark scenario: which clients run, what each asks
 * for, and in which sharing modes (bench/cuda/scenarios/, one JSON file each).
 *
 *   {
 *     "name": "compute-30-70",
 *     "description": "two vecadd pods asking for 30 % and 70 % of one GPU",
 *     "measure": "compute",
 *     "modes": ["timeslice", "mps", "hook"],
 *     "policy": "binpack",
 *     "duration_s": 10, "warmup_s": 2, "repeat": 3,
 *     "clients": [
 *       { "name": "a", "kernel": "vecadd", "gpu_milli": 300, "gpu_mem_mib": 4096,
 *         "args": ["--size-mib", "256"] },
 *       { "name": "b", "kernel": "vecadd", "gpu_milli": 700, "gpu_mem_mib": 4096,
 *         "args": ["--size-mib", "256"], "count": 1 }
 *     ]
 *   }
 *
 * bench/cuda/README.md documents every field. Unknown fields are errors
 * (a typo must not silently fall back to a default), and every error
 * names the file, the line and column, and the field.
 *
 * Ownership: a struct gs_scenario is caller-owned (_load/_release) and
 * owns its clients' argument strings.
 */
#ifndef GS_BENCH_SCENARIO_H
#define GS_BENCH_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#define GS_SCENARIO_MAX_CLIENTS 32
#define GS_SCENARIO_MAX_ARGS 16
#define GS_SCENARIO_NAME_MAX 64

/*
 * The sharing modes, in the order a scenario runs them, and what a
 * scenario measures (which decides the derived numbers computed). Each
 * list is X(enumerator, name as scenarios and results spell it, summary).
 */
#define GS_BENCH_MODES(X)                                                                        \
	X(GS_MODE_EXCLUSIVE, "exclusive", "one client at a time: the baseline")                 \
	X(GS_MODE_TIMESLICE, "timeslice", "all at once, no controls (the GPU time-slices)")     \
	X(GS_MODE_MPS, "mps", "all at once under a private MPS daemon, thread percentage each") \
	X(GS_MODE_HOOK, "hook", "all at once under libgpushare (memory and compute limits)")
#define GS_BENCH_MEASURES(X)                                                                   \
	X(GS_MEASURE_OVERHEAD, "overhead", "each client alone, in every mode: its cost")          \
	X(GS_MEASURE_INTERFERENCE, "interference", "co-located clients: slowdown against alone") \
	X(GS_MEASURE_MEMORY, "memory", "a pod over its memory limit, and its neighbours")         \
	X(GS_MEASURE_COMPUTE, "compute", "requested against achieved compute shares")
#define GS_BENCH_ENUMERATOR(id, name, summary) id,
#define GS_BENCH_NAME(id, name, summary) name,

enum gs_bench_mode { GS_BENCH_MODES(GS_BENCH_ENUMERATOR) GS_MODE__COUNT };
enum gs_bench_measure { GS_BENCH_MEASURES(GS_BENCH_ENUMERATOR) GS_MEASURE__COUNT };

/* The mode's name as scenarios and results spell it ("mps"); a static string. */
const char *gs_bench_mode_name(enum gs_bench_mode m);

/* The measure's name as scenarios spell it ("overhead"); a static string. */
const char *gs_bench_measure_name(enum gs_bench_measure m);

/* The client programs the harness knows; each is a binary of that name. */
#define GS_BENCH_KERNELS(X) X(vecadd) X(mnist) X(launch) X(memprobe)

struct gs_scenario_client {
	char name[GS_SCENARIO_NAME_MAX];
	char kernel[16];
	int32_t gpu_milli;           /* compute share asked for, 1..1000 */
	int64_t gpu_mem_mib;         /* memory asked for, 0 = none */
	char *args[GS_SCENARIO_MAX_ARGS]; /* owned; extra flags for the client */
	int n_args;
	int line;                    /* where it is defined, for messages */
};

struct gs_scenario {
	char path[512];
	char name[GS_SCENARIO_NAME_MAX];
	char description[256];
	char policy[32];
	enum gs_bench_measure measure;
	enum gs_bench_mode modes[GS_MODE__COUNT]; /* exclusive first, then as listed */
	int n_modes;
	double duration_s;
	double warmup_s;
	int repeat;
	int colocate[8];             /* "colocate": run the one client k times side by side */
	int n_colocate;
	struct gs_scenario_client clients[GS_SCENARIO_MAX_CLIENTS];
	int n_clients;               /* after "count" expansion */
};

/*
 * Reads and checks a scenario file. Clients with "count": k become k
 * clients named NAME-1 .. NAME-k. The exclusive mode always runs first
 * (every derived number compares against it), whether listed or not.
 * Returns 0, GS_ENOENT / GS_EIO (cannot read), GS_EPARSE (bad JSON or a
 * bad field: err is "FILE:LINE:COL: FIELD: what") or GS_ENOMEM. The
 * policy name is only checked to be a word; the caller looks it up.
 */
int gs_scenario_load(const char *path, struct gs_scenario *s, char *err, size_t err_len);

/* Parses scenario text; path is used in messages only. */
int gs_scenario_parse(const char *path, const char *text, size_t len, struct gs_scenario *s,
		      char *err, size_t err_len);

/* Frees the client arguments gs_scenario_parse() or gs_scenario_variant() put in s; s is left with no clients. */
void gs_scenario_release(struct gs_scenario *s);

/*
 * A scenario with "colocate": [k1, k2, ...] stands for several: variant v
 * has its single client k_v times, named CLIENT-1 .. CLIENT-k, each asking
 * for 1000/k milli-GPU (an even split of one GPU), and the name NAME-xK. Without "colocate" there is one variant, the scenario
 * itself. gs_scenario_variant() fills out (caller releases it) and returns
 * 0 or GS_ENOMEM.
 */
int gs_scenario_variants(const struct gs_scenario *s);
/* Fills out with variant v (0 <= v < gs_scenario_variants(s)); see above. */
int gs_scenario_variant(const struct gs_scenario *s, int v, struct gs_scenario *out);

#endif
