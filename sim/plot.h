/*
 * plot.h - the figures of the FGD reproduction, from the results database.
 *
 * Two steps. gs_plot_export() reads the inflate-mode runs of a database
 * and writes plain tab-separated data files for gnuplot, one set per
 * trace; gs_plot_render() runs the gnuplot scripts under scripts/ on them
 * and writes PNG and SVG files:
 *   unalloc_<trace>       unallocated GPU % vs arrived workload, 80-130%,
 *                         one line per policy: the median over seeds, with
 *                         the 25-75% band (Weng et al., ATC 2023, Fig. 9a)
 *   frag_ratio_<trace>    fragmentation / idle GPU milli, arrived 0-100% (Fig. 7b)
 *   frag_amount_<trace>   fragmentation / GPU capacity, arrived 0-100% (Fig. 7a)
 *   bars_<family>         unallocated GPU % at arrived 100%, mean over seeds
 *                         with sd error bars, one group per trace of the
 *                         family cpu, gpushare, gpuspec or multigpu (Figs. 11-14)
 * <trace> is the pod file's name without "openb_pod_list_" and ".csv".
 *
 * Ownership: struct gs_plot_index is caller-owned (_release).
 */
#ifndef GS_PLOT_H
#define GS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results.h"

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
};

void gs_plot_index_release(struct gs_plot_index *ix);

/*
 * Writes into dir, for every trace with complete inflate-mode runs
 * (compat: 1 only runs with compat scoring, 0 only exact, -1 both):
 *   <trace>.<policy>.alloc.dat   arrived%  median  q25  q75  (unallocated GPU %)
 *   <trace>.<policy>.frag.dat    arrived%  ratio median q25 q75  amount median q25 q75
 *   bars_<family>.dat            trace  then mean and sd per policy (index order)
 * Percent buckets with no sample in some run use the runs that have one.
 * Returns 0, GS_ENOENT (no such runs), GS_EIO (cannot write, err names the
 * file), GS_EDB or GS_ENOMEM; fills *ix on success.
 */
int gs_plot_export(struct gs_db *db, int compat, const char *dir, struct gs_plot_index *ix,
		   char *err, size_t err_len);

/*
 * Runs gnuplot (found on PATH) on scripts_dir/plot_{alloc,frag,bars}.gp
 * with the data in data_dir and writes the PNG and SVG files into out_dir.
 * Lists each file written on log (may be NULL). Returns 0, GS_ENOENT
 * (gnuplot or a script missing) or GS_EIO (gnuplot failed), with a message.
 */
int gs_plot_render(const struct gs_plot_index *ix, const char *scripts_dir, const char *data_dir,
		   const char *out_dir, FILE *log, char *err, size_t err_len);

#endif
