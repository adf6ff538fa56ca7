/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect_internal.h - the parts of `gpusim inspect` shared by its files:
 * the views of a stored run's cluster at one time (run/run_state.h), as
 * tables and JSON (inspect_show.c). cmd_inspect.c holds the option table,
 * the run list and the dispatch. Tables are libsmartcols tables; nothing
 * here touches SQLite.
 */
#ifndef GS_INSPECT_INTERNAL_H
#define GS_INSPECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/opt.h"
#include "core/cluster.h"
#include "core/mig.h"
#include "core/sharing.h"
#include "run/run_state.h"
#include "store/results.h"

struct cJSON;
struct libscols_table;

/* Which moment --at names. */
enum gs_at_kind {
	GS_AT_DEFAULT,  /* not given: the peak in time mode, the end in inflate mode */
	GS_AT_END,
	GS_AT_PEAK,
	GS_AT_TIME,
};

/* The target of --at. */
struct gs_inspect_at {
	enum gs_at_kind kind;
	int64_t t_s;    /* GS_AT_TIME */
};

/* Row orders of --sort. */
enum gs_inspect_sort { GS_SORT_INDEX, GS_SORT_FREE, GS_SORT_FRAG, GS_SORT_PODS, GS_SORT_NAME };

/* The command line of gpusim inspect. */
struct gs_inspect_args {
	const char *db_path;
	int64_t run_id;                  /* -1: list runs */
	const char *output;              /* -o COLS, NULL: the default columns */
	bool raw, json;
	/* The run list's filters. */
	struct gs_opt_list policies;
	int mode;                        /* -1 any, 0 time, 1 inflate */
	const char *trace;               /* fnmatch pattern or NULL */
	int64_t limit;                   /* 0: all */
	/* One run. */
	struct gs_inspect_at at;
	int all_nodes;                   /* --nodes all */
	int sort;                        /* enum gs_inspect_sort */
	struct gs_opt_list models;
	const char *node_glob;
	int64_t min_free;                /* milli-GPU, -1: no filter */
	bool details;
	/* A Kubernetes snapshot instead of a database (inspect_k8s.c). */
	struct gs_opt_list state;
	/* The first line above the node table; NULL: the run's ("run 3: binpack, ..."). */
	const char *title;
};

/* A column a table can show: its name (header and -o name), width hint and flags. */
struct gs_inspect_col {
	const char *name;
	double whint;                    /* libsmartcols width hint, in characters */
	int flags;                       /* SCOLS_FL_* */
	bool deflt;                      /* shown without -o */
};

/* The columns chosen for one table: indices into its gs_inspect_col array. */
struct gs_inspect_colset {
	int id[32];
	size_t n;
};

/*
 * Chooses the columns of a table of n_cols cols from -o's text (NULL: the
 * default ones, those with .deflt, less those whose bit is set in skip;
 * "+A,B": the default ones and A, B). Names are matched ignoring case.
 * Returns 0, or GS_EINVAL after printing on stderr the bad name and the
 * table's (what) columns.
 */
int gs_inspect_colset_parse(struct gs_inspect_colset *cs, const struct gs_inspect_col *cols,
			    int n_cols, const char *output, const char *what, unsigned skip);

/*
 * A new libsmartcols table with cs's columns of cols, fitted to the
 * output width (gs_inspect_width()), raw as a->raw asks; name is its
 * name. Returns NULL after printing "out of memory". Caller unrefs it.
 */
struct libscols_table *gs_inspect_table_new(const struct gs_inspect_args *a,
					    const struct gs_inspect_colset *cs,
					    const struct gs_inspect_col *cols, const char *name);

/*
 * The width tables fit: $COLUMNS when it is a positive number, else the
 * terminal's when stdout is one, else 0 (no limit: pipes and files get
 * whole rows).
 */
int gs_inspect_width(void);

/*
 * Prints run's nodes at in->t_s as a->... ask (filters, sort, columns,
 * details, --raw or --json), the subtotals per GPU model and the cluster
 * totals. at_what is "peak", "end" or NULL (a time given). Returns the
 * exit status: 0, 1 (out of memory) or 2 (a --model no node has).
 */
int gs_inspect_show(const struct gs_inspect_args *a, const struct gs_run_row *run,
		    const char *at_what, const struct gs_run_state *in);

/* The run's list entry as a new JSON object (NULL when out of memory); caller owns it. */
struct cJSON *gs_inspect_run_json(const struct gs_run_row *r);

/* Prints root (taking it; NULL means out of memory) and returns the exit status. */
int gs_inspect_print_json(struct cJSON *root);

/*
 * `gpusim inspect --state`: reads the snapshot files, builds them and
 * shows the nodes as a->... ask, then the queue, the DRA claims and the
 * build's notes. Returns the exit status.
 */
int gs_inspect_snapshot(const struct gs_inspect_args *a);

/* Exit status for a store error: 2 for bad input, 1 when out of memory or SQLite failed. */
int gs_inspect_exit_for(int rc);

#endif
