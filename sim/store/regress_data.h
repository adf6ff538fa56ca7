/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regress_data.h - what the regression check (`gpusim regress`) compares:
 * the results of a set of runs in one generic shape, read either from a
 * results database (gs_rset_from_db, here) or from a committed baseline
 * directory (report/baseline.h), so both sides of a comparison look alike.
 *
 * A family is the runs that shared their inputs and parameters: the mode,
 * the cluster and pod files (base name and SHA-256) and the canonical
 * parameters (runs.params_json flattened, see gs_rset_params); its runs
 * differ in policy and seed. A run's metrics are every numeric column of
 * runs and run_summary except the ids, the seed, pods_stored (how the run
 * was stored, not what it computed), the cluster's size (n_nodes,
 * gpu_count, *_capacity: facts of the checksummed cluster file) and the
 * wall-clock columns (*_ms, which the speed figures take): a column the
 * schema adds is a metric without a code change. Curves are what the overlay figures draw, speed
 * what the speed table compares.
 *
 * Ownership: struct gs_rset is caller-owned (gs_rset_init / _release) and
 * owns every string and array in it. Indices (family, policy, metric,
 * curve) are positions in the set's arrays; gs_rset_finish() sorts the
 * set and renumbers them.
 */
#ifndef GS_REGRESS_DATA_H
#define GS_REGRESS_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/* Curves gs_rset_from_db() computes (the names in curves.csv). */
/* Inflate mode: x arrived %, y unallocated GPU %, the median over seeds and the quartiles. */
#define GS_RCURVE_UNALLOC_MEDIAN "unalloc_median"
#define GS_RCURVE_UNALLOC_Q25 "unalloc_q25"
#define GS_RCURVE_UNALLOC_Q75 "unalloc_q75"
/* Time mode: x seconds, y the fraction of placed (waits) or departed (completions) pods. */
#define GS_RCURVE_WAIT_CDF "wait_cdf"
#define GS_RCURVE_COMPLETION_CDF "completion_cdf"

/* Arrived-workload range of the unalloc curves (the FGD paper's figure 9a). */
#define GS_RCURVE_ARRIVED_MIN 80
#define GS_RCURVE_ARRIVED_MAX 130

struct gs_rfamily {
	char *name;           /* label, unique within the set: "inflate-default" */
	char *mode;           /* "inflate", "time" */
	char *nodes_file;     /* base name of the cluster file */
	char *nodes_sha256;   /* 64 hex digits */
	char *pods_file;      /* base name of the pod file */
	char *pods_sha256;
	char *params;         /* canonical parameters, gs_rset_params() */
	char *trace;          /* short trace name for the label (gs_rset_name_families); may be NULL */
	/* Speed, from the runs' wall clocks; speed_runs 0: not known. */
	int64_t speed_runs;   /* runs the figures below are over */
	int64_t events;       /* sum of runs.n_events */
	double sim_ms;        /* sum of runs.wall_ms: simulation time */
	double sweep_s;       /* first start to last end of the runs; NAN unknown */
};

struct gs_rrun {
	size_t family;
	size_t policy;        /* index into policies */
	uint64_t seed;
	size_t value0;        /* its values are values[value0 .. value0 + n_values) */
	size_t n_values;      /* (both set by gs_rset_finish) */
	bool dropped;         /* replaced by a newer run with the same key */
};

struct gs_rvalue {
	size_t run;
	size_t metric;        /* index into metrics */
	double value;
	bool integer;         /* an SQL integer: printed without a fraction */
};

struct gs_rpoint {
	size_t family;
	size_t policy;
	size_t curve;         /* index into curves */
	double x, y;
};

struct gs_rset {
	struct gs_rfamily *families;
	size_t n_families, cap_families;
	struct gs_rrun *runs;
	size_t n_runs, cap_runs;
	struct gs_rvalue *values;
	size_t n_values, cap_values;
	struct gs_rpoint *points;
	size_t n_points, cap_points;
	char **policies;      /* interned names */
	size_t n_policies, cap_policies;
	char **metrics;
	size_t n_metrics, cap_metrics;
	char **curves;
	size_t n_curves, cap_curves;
	size_t duplicates;    /* runs replaced by a newer one with the same key */
	bool finished;        /* gs_rset_finish() ran: sorted, ranges set */
};

/* Makes s an empty set (no allocation). */
void gs_rset_init(struct gs_rset *s);

/* Frees every string and array of s and makes it empty again; releasing twice is harmless. */
void gs_rset_release(struct gs_rset *s);

/*
 * Finds the family with these inputs and parameters, or appends one
 * (copying every string; name may be NULL until gs_rset_name_families).
 * Stores its index in *idx. Returns 0 or GS_ENOMEM.
 */
int gs_rset_family(struct gs_rset *s, const char *name, const char *mode, const char *nodes_file,
		   const char *nodes_sha256, const char *pods_file, const char *pods_sha256,
		   const char *params, size_t *idx);

/*
 * The short name of a pod trace for labels and titles, from its path as
 * given: the file name without "openb_pod_list_" and its extension; a
 * file called pods.* (gpusim gen's and the bundled sample's name) is
 * named after its folder instead ("traces/sample/pods.csv" -> "sample").
 * Returns a malloc'ed string or NULL when out of memory.
 */
char *gs_rset_trace_name(const char *pods_path);

/*
 * The run (family, policy name, seed): an existing one, or a new one.
 * With replace, an existing run is marked dropped (its values with it) and
 * a new one appended, counted in s->duplicates: a database may hold the
 * same run twice and the newest counts. Stores the index in *idx. Returns
 * 0 or GS_ENOMEM.
 */
int gs_rset_run(struct gs_rset *s, size_t family, const char *policy, uint64_t seed, bool replace,
		size_t *idx);

/* Appends a value of run for the metric name. Returns 0 or GS_ENOMEM. */
int gs_rset_value(struct gs_rset *s, size_t run, const char *metric, double value, bool integer);

/* Appends a curve point. Returns 0 or GS_ENOMEM. */
int gs_rset_point(struct gs_rset *s, size_t family, const char *policy, const char *curve,
		  double x, double y);

/*
 * Gives every family without a name one: MODE-TRACE, where TRACE is the
 * family's trace field, or else the pod file's name without
 * "openb_pod_list_" and its extension. Families that would share a label
 * get the parameters in which they differ appended
 * ("time-default-load=80"), then the cluster file's name, then a number.
 * Characters other than letters, digits and ._=+- become '_'. Returns 0
 * or GS_ENOMEM.
 */
int gs_rset_name_families(struct gs_rset *s);

/*
 * Drops the replaced runs, sorts families by name, runs by (family,
 * policy, seed), values by (run, metric name) and points by (family,
 * policy, curve, x, y), and sets each run's value range. Two values of
 * one run for one metric are an error: GS_EEXIST with the family, policy,
 * seed and metric in err. Returns 0, GS_EEXIST or GS_ENOMEM.
 */
int gs_rset_finish(struct gs_rset *s, char *err, size_t err_len);

/* The value of metric in run (after gs_rset_finish), or NULL. */
const struct gs_rvalue *gs_rset_find_value(const struct gs_rset *s, size_t run, size_t metric);

/*
 * runs.params_json as gs_rset stores it: the top-level keys in document
 * order as key=value joined by ';', strings unquoted, numbers, booleans
 * and nested values as JSON prints them, with '%', ',', ';', '=', '"' and
 * control characters written %XX, so that the text is one CSV field of
 * the project's CSV reader (which has no quoting) and reads well in a
 * diff: "mode=inflate;time_scale=1;...". Stores a malloc'ed string in
 * *out. Returns 0, GS_EPARSE (not a JSON object) or GS_ENOMEM.
 */
int gs_rset_params(const char *params_json, char **out);

/*
 * Reads every complete run of a results database into s (which must be
 * freshly initialised): families, runs, metrics, speed, and the curves
 * (inflate families: unallocated GPU % at arrived 80-130 %, median and
 * quartiles over seeds, from arrived_buckets; time families: the wait and
 * completion-time distributions from the pods table, when the runs kept
 * their pod rows). Names the families and finishes the set. Returns 0,
 * GS_ENOENT (no complete run), GS_EDB or GS_ENOMEM with a message in err;
 * s is released on failure.
 */
int gs_rset_from_db(struct gs_db *db, struct gs_rset *s, char *err, size_t err_len);

#endif
