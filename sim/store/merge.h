/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.h - joining results databases: the runs and plans of one database
 * copied into another, for sweeps that ran as shards on several hosts
 * (gpusim merge).
 */
#ifndef GS_MERGE_H
#define GS_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "store/results.h"

/* What gs_db_merge() did with one input. */
struct gs_merge_stats {
	int64_t runs;          /* complete runs in the input */
	int64_t copied;        /* added to the output */
	int64_t identical;     /* already in the output with the same results */
	int64_t plan_cells;    /* plan rows added */
	int64_t bounds;        /* bounds added, each with its points */
	int64_t decisions;     /* decisions added, their runs mapped to the output's */
	int64_t decisions_left_out; /* resting on a run the input does not hold complete */
};

/*
 * Whether the database at in_path can be merged: a gpusim database of this
 * major (a minor migrated), with every table a merge reads, that passes
 * SQLite's integrity check. Returns 0, or GS_EINVAL (damaged: the message
 * says how), GS_ESCHEMA, GS_ENOENT, GS_ENOMEM or GS_EDB with a message.
 */
int gs_db_merge_check(const char *in_path, char *err, size_t err_len);

/*
 * Copies the complete runs of the database at in_path into out: the runs
 * row and every row of the run's nodes, pods, samples and statistics,
 * under new run ids, and the input's plans, bounds and decisions (a
 * decision's runs, and the run ids in its verdict_json, become the
 * output's ids for them; one resting on a run that is not complete in the
 * input is left out and counted). A bound or decision already in out
 * (same inputs, settings, time and verdict) is not copied again. A run whose key out already
 * has with the same results (every result column of runs, and its
 * arrived_stats) is skipped; with other results, nothing is copied and
 * GS_EEXIST names both runs. The input is opened as gpusim opens any
 * database: an older minor schema is migrated in place, a newer major is
 * refused (GS_ESCHEMA); a newer minor's columns unknown to this build are
 * left out. The input is checked first (gs_db_merge_check()), and each
 * run's node and pod rows are counted against its runs row as they are
 * copied. All or nothing: one transaction. Returns 0, GS_EEXIST, GS_EINVAL
 * (a damaged input), GS_ESCHEMA, GS_ENOENT, GS_ENOMEM or GS_EDB, with a
 * message in err.
 */
int gs_db_merge(struct gs_db *out, const char *in_path, struct gs_merge_stats *st, char *err,
		size_t err_len);

#endif
