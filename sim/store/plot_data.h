/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_data.h - the data of gpusim's figures, exported from a results
 * database as plain files that the gnuplot scripts read (report/plot.h
 * draws them; the figures themselves are listed there).
 *
 * Ownership: struct gs_plot_index and struct gs_plot_bench are
 * caller-owned (_release).
 */
#ifndef GS_PLOT_DATA_H
#define GS_PLOT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

#define GS_PLOT_ALLOC_MIN_PCT 80
#define GS_PLOT_ALLOC_MAX_PCT 130
#define GS_PLOT_FRAG_MAX_PCT 100

/* What gs_plot_export() found and wrote. Strings are owned. */
struct gs_plot_index {
	char **traces;        /* short names, in name order */
	size_t n_traces;
	char **policies;      /* the paper's six first, in its order, then others by name */
	size_t n_policies;
	char **families;      /* families with at least one trace, for the bar charts */
	size_t n_families;
	size_t *seeds_min;    /* per trace: the fewest runs (seeds) of one policy */
	size_t *seeds_max;    /* per trace: the most runs (seeds) of one policy */
	/*
	 * Per trace: the points the unallocated-GPU figure (arrived 80-130 %)
	 * and the fragmentation figures (0-100 %) have over all policies; a
	 * figure without any is not drawn (a run with --inflate below 0.8
	 * never reaches 80 %).
	 */
	size_t *alloc_points, *frag_points;
	const char *scoring;  /* static: "compat", "exact" or "compat and exact" */
	bool *bound;          /* per trace: <trace>.bound.dat written (gpusim bound) */
	double *bound_at100;  /* per trace: the bound's mean over seeds at 100 %, NAN: none */
};

/* Frees what gs_plot_export() put in *ix; safe on a zeroed index. */
void gs_plot_index_release(struct gs_plot_index *ix);

/*
 * The short names of the traces of a database's complete runs, as figure
 * titles and file names use them: "dir/openb_pod_list_gpushare40.csv" ->
 * "gpushare40", with enough of the directory in front to tell apart
 * traces of one file name (gs_path_names(), io/path.h).
 */
struct gs_plot_traces {
	char **paths;         /* every runs.pods_path, in name order of the path */
	char **names;
	size_t n;
};

/* Fills *nm from the runs of the database sq. Returns 0, GS_EDB or GS_ENOMEM (message in err). */
int gs_plot_traces_load(struct sqlite3 *sq, struct gs_plot_traces *nm, char *err, size_t err_len);

/* The name of the trace at path (a copy, malloc'ed); NULL when out of memory. */
char *gs_plot_traces_name(const struct gs_plot_traces *nm, const char *path);

/* Frees what gs_plot_traces_load() put in *nm; safe on a zeroed struct. */
void gs_plot_traces_release(struct gs_plot_traces *nm);

/*
 * What gs_plot_time_export() found and wrote for the time-mode figures.
 * Strings are owned; the flags are [trace * n_policies + policy].
 */
struct gs_plot_time {
	char **traces;        /* short names, in name order */
	size_t n_traces;
	char **policies;      /* in the registry's order (gpusim policies) */
	size_t n_policies;
	char **setting;       /* per trace: the setting the series and CDFs show, for titles */
	bool *series;         /* <trace>.<policy>.series.dat written */
	bool *frag;           /* ... and its fragmentation column has values (--frag) */
	bool *cdf;            /* <trace>.<policy>.cdfw.dat and .cdfc.dat written */
	bool *load;           /* <trace>.<policy>.load.dat written (two loads or more) */
};

/* Frees what gs_plot_time_export() put in *t and zeroes it; safe on a zeroed struct. */
void gs_plot_time_release(struct gs_plot_time *t);

/*
 * Writes into dir (which must exist) the data of the time-mode figures,
 * from the complete time-mode runs with figures from the events (schema
 * 1.1), per trace and policy:
 *   <trace>.<policy>.series.dat  hours since the first arrival, allocated
 *                                GPU %, pending pods, then the idle GPU %
 *                                on partly used GPUs, short of CPU and
 *                                stranded (core/idle.h) and the FGD
 *                                fragmentation % of capacity (NaN where not
 *                                recorded): the run of the shown setting
 *                                with the lowest seed, over its arrival
 *                                window and a quarter more; at most 1000
 *                                points (beyond, bins: the longest queue of
 *                                each, the mean of the rest)
 *   <trace>.<policy>.cdfw.dat    wait (s) and fraction of pods with at most
 *   <trace>.<policy>.cdfc.dat    that wait / completion time, the pods of
 *                                all seeds of the shown setting (runs with
 *                                pod rows only), from (1 s, share below 1 s)
 *   <trace>.<policy>.load.dat    load %, p99 wait mean, min, max over the
 *                                seeds, mean wait mean, min, max, runs: one
 *                                line per --load, when there are two or more
 * The shown setting of a trace is the options of its run with the highest
 * --load (runs without one count lowest; ties to the newest). Returns 0,
 * GS_ENOENT (no such runs; err says so), GS_EIO (cannot write, err names
 * the file), GS_EDB or GS_ENOMEM; fills *ix on success.
 */
int gs_plot_time_export(struct gs_db *db, const char *dir, struct gs_plot_time *ix, char *err,
			size_t err_len);

/*
 * What gs_plot_sharing_export() found and wrote for the sharing figures.
 * Strings are owned. A trace's mechanisms are the runs' --sharing specs
 * (runs.sharing), "cluster file" for runs with the default (ideal) whose
 * cluster file gave GPUs modes; the flags are cdf[(trace * n_sharings + sharing) *
 * n_policies + policy] and coloc[trace * n_sharings + sharing].
 */
struct gs_plot_sharing {
	char **traces;        /* short names (gs_plot_traces_name), in pods_path order */
	char **paths;         /* per trace: its runs' pods_path */
	size_t n_traces;
	char **sharings;      /* ideal, exclusive, timeslice, mps, vgpu, mig, then others */
	size_t n_sharings;
	char **policies;      /* in the registry's order (gpusim policies) */
	size_t n_policies;
	double *load;         /* per trace: the --load shown, NaN for runs without one */
	bool *cdf;            /* <trace>.<policy>.<slug>.sharing_cdf.dat written */
	size_t *n_done;       /* per cdf flag: the departed pods it shows (all seeds) */
	bool *coloc;          /* <trace>.<slug>.sharing_coloc.dat has rows */
	/*
	 * Per trace, mechanism and policy (as cdf): runs of it are in
	 * <trace>.sharing_util.dat, whose rows and columns are the trace's
	 * mechanisms and policies that have one.
	 */
	bool *util;
};

/*
 * Whether trace t has a run in <trace>.sharing_util.dat of policy k (policy
 * set) or of mechanism k (policy clear), by ix->util.
 */
bool gs_plot_sharing_util_any(const struct gs_plot_sharing *ix, size_t t, size_t k, bool policy);

/* Frees what gs_plot_sharing_export() put in *s and zeroes it; safe on a zeroed struct. */
void gs_plot_sharing_release(struct gs_plot_sharing *s);

/*
 * A sharing spec as a file-name word: lower-case letters, digits and dots
 * kept, anything else '_' ("timeslice:replicas=7" -> "timeslice_replicas_7").
 */
void gs_plot_sharing_slug(const char *spec, char *buf, size_t len);

/*
 * Writes into dir (which must exist) the data of the sharing figures, from
 * the complete time-mode runs, for each trace run under two sharing
 * mechanisms or more at one --load (gpusim sweep --sharing LIST); the load
 * shown is the highest such (runs without --load count lowest), all seeds
 * pooled:
 *   <trace>.sharing_util.dat     per mechanism with runs of the trace
 *                                (first column, its spec): allocated GPU %
 *                                (run_summary.gpu_alloc_pct) and useful GPU %
 *                                (eff_util_pct), the mean over seeds, two
 *                                columns per policy with runs of the trace,
 *                                in the index's order (ix->util says which),
 *                                NaN where there is no run
 *   <trace>.<policy>.<slug>.sharing_cdf.dat
 *                                completion time (departure - arrival, s,
 *                                at least 1) and share of departed pods:
 *                                at most 500 nearest-rank points; written
 *                                when the runs have pod rows with departures
 *   <trace>.<slug>.sharing_coloc.dat
 *                                pods on the busiest GPU of a pod (pods.coloc
 *                                rounded), the mean of its running time over
 *                                its duration, pods: the departed pods of at
 *                                least 10 s, policies pooled (no rows for
 *                                the ideal mechanism, which has no coloc)
 * <slug> is gs_plot_sharing_slug() of the mechanism's spec. Returns 0,
 * GS_ENOENT (no such trace; err says so), GS_EIO (cannot write, err names
 * the file), GS_EDB or GS_ENOMEM; fills *ix on success, zeroes it otherwise.
 */
int gs_plot_sharing_export(struct gs_db *db, const char *dir, struct gs_plot_sharing *ix,
			   char *err, size_t err_len);

/*
 * Writes into dir, for every trace with complete inflate-mode runs
 * (compat: 1 only runs with compat scoring, 0 only exact, -1 both):
 *   <trace>.<policy>.alloc.dat   arrived%  median  q25  q75  (unallocated GPU %)
 *   <trace>.<policy>.frag.dat    arrived%  ratio median q25 q75  amount median q25 q75
 *   bars_<family>.dat            trace  then mean and sd per policy (index order),
 *                                then the bound's mean over seeds at 100 % and 0
 *                                (NaN 0 without one)
 *   <trace>.bound.dat            arrived%  median  min  max over seeds of the
 *                                floor `gpusim bound` stored for the runs of
 *                                one policy (store/bounds.h), when it has one
 * Percent buckets with no sample in some run use the runs that have one.
 * Returns 0, GS_ENOENT (no such runs), GS_EIO (cannot write, err names the
 * file), GS_EDB or GS_ENOMEM; fills *ix on success.
 */
int gs_plot_export(struct gs_db *db, int compat, const char *dir, struct gs_plot_index *ix,
		   char *err, size_t err_len);

enum gs_plot_bench_fig {
	GS_PLOT_BENCH_OVERHEAD,
	GS_PLOT_BENCH_SLOWDOWN,
	GS_PLOT_BENCH_SHARES,
	GS_PLOT_BENCH_N
};

/* One bench figure, indexed by enum gs_plot_bench_fig. */
struct gs_plot_bench_figure {
	const char *name;     /* output base name, e.g. "bench_overhead" */
	const char *csv;      /* its data file, e.g. "overhead.csv" */
	const char *script;   /* its gnuplot script under scripts/ */
	const char *missing;  /* why there is no figure when the file has no rows */
};

extern const struct gs_plot_bench_figure gs_plot_bench_figures[GS_PLOT_BENCH_N];

/* What gs_plot_bench_export() found and wrote. Strings are owned. */
struct gs_plot_bench {
	int64_t n_runs;                  /* bench_runs rows read; 0: no bench results */
	size_t n_rows[GS_PLOT_BENCH_N];  /* data rows of each CSV file */
	char **kernels;                  /* in any file, by name */
	size_t n_kernels;
	char **modes;                    /* exclusive, timeslice, mps, hook, then others by name */
	size_t n_modes;
	char **devices;                  /* by name */
	size_t n_devices;
};

/* Frees what gs_plot_bench_export() put in *b; safe on a zeroed struct. */
void gs_plot_bench_release(struct gs_plot_bench *b);

/*
 * Writes into dir (which must exist), each through a temporary file
 * renamed when complete, with a header line:
 *   overhead.csv  kernel,mode,overhead_pct,samples,device: the mean
 *                 overhead of each kernel alone on a GPU, per mode
 *   slowdown.csv  kernel,colocated,mode,factor,samples,device: the slowdown
 *                 table, the mean factor weighted by samples
 *   shares.csv    scenario,mode,client,share_req,share,samples,device: the
 *                 mean achieved share of each client of a compute scenario
 * from the results of one imported file (source_sha256, 64 hex digits) or
 * of every file (NULL). A database without the bench tables gives
 * n_runs 0 and no files. Returns 0 and fills *b (which is then the
 * caller's to release), or GS_EDB, GS_EIO (err names the file) or
 * GS_ENOMEM; *b holds nothing on failure.
 */
int gs_plot_bench_export(struct gs_db *db, const char *source_sha256, const char *dir,
			 struct gs_plot_bench *b, char *err, size_t err_len);

#endif
