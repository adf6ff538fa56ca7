/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot.h - the figures of the FGD reproduction, from the results database.
 *
 * Two steps. gs_plot_export() (store/plot_data.h) reads the inflate-mode runs of a database
 * and writes plain tab-separated data files for gnuplot, one set per
 * trace; gs_plot_render() runs the gnuplot scripts under scripts/ on them
 * and writes PNG, SVG and PDF files:
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
 * The CUDA benchmark figures (bench/cuda, the bench tables of
 * results/SCHEMA.md) take the same two steps: gs_plot_bench_export()
 * writes the CSV files that `gpusim bench-import --csv-dir` writes too (it
 * calls it), and gs_plot_bench_render() draws them with the
 * scripts/plot_bench_*.gp scripts:
 *   bench_overhead   throughput lost against exclusive, per kernel and mode,
 *                    each kernel alone on a GPU
 *   bench_slowdown   throughput / throughput alone against the number of
 *                    clients sharing the GPU, per kernel and mode
 *   bench_shares     achieved against requested compute share, per mode,
 *                    with the ideal diagonal and the 5-point target band
 *
 * Ownership: struct gs_plot_index and struct gs_plot_bench are
 * caller-owned (_release).
 */
#ifndef GS_PLOT_H
#define GS_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/validation.h"
#include "store/plot_data.h"

/*
 * Runs gnuplot (found on PATH) on scripts_dir/plot_{alloc,frag,bars}.gp
 * with the data in data_dir and writes the PNG, SVG and PDF files into out_dir.
 * Lists each file written on log (may be NULL). Returns 0, GS_ENOENT
 * (gnuplot or a script missing) or GS_EIO (gnuplot failed), with a message.
 */
int gs_plot_render(const struct gs_plot_index *ix, const char *scripts_dir, const char *data_dir,
		   const char *out_dir, FILE *log, char *err, size_t err_len);

/*
 * Runs gnuplot on scripts_dir/plot_time_{series,cdf,load}.gp for each
 * trace of ix (gs_plot_time_export() in store/plot_data.h), writing into
 * out_dir, as PNG, SVG and PDF:
 *   time_series_<trace>  allocated GPU % and pending pods against hours,
 *                        per policy (the lowest seed of the shown setting)
 *   time_cdf_<trace>     CDFs of the wait and of the completion time, per
 *                        policy (all seeds of the shown setting)
 *   time_load_<trace>    mean and p99 wait against --load, per policy, mean
 *                        over seeds with min-max bars
 * A figure none of whose policies has data is not drawn; the caller says
 * why (the flags of ix). Lists each file written on log (may be NULL).
 * Returns 0, GS_EINVAL (a name gnuplot cannot be given), GS_ENOENT or
 * GS_EIO, with a message.
 */
int gs_plot_time_render(const struct gs_plot_time *ix, const char *scripts_dir,
			const char *data_dir, const char *out_dir, FILE *log, char *err,
			size_t err_len);

/*
 * Runs gnuplot on scripts_dir/plot_sharing_{util,cdf,coloc}.gp for each
 * trace of ix (gs_plot_sharing_export() in store/plot_data.h), writing
 * into out_dir, as PNG, SVG and PDF:
 *   sharing_util_<trace>   useful GPU % inside allocated GPU %, per
 *                          mechanism and policy (mean over seeds)
 *   sharing_cdf_<trace>    CDF of the completion time, one line per
 *                          mechanism, one panel per policy
 *   sharing_coloc_<trace>  mean running time / duration against the pods
 *                          on the GPU, one line per mechanism
 * A CDF panel or line without data is left out, a figure without any is
 * not drawn. Lists each file written on log (may be NULL). Returns 0,
 * GS_EINVAL (a name gnuplot cannot be given), GS_ENOENT or GS_EIO, with a
 * message.
 */
int gs_plot_sharing_render(const struct gs_plot_sharing *ix, const char *scripts_dir,
			   const char *data_dir, const char *out_dir, FILE *log, char *err,
			   size_t err_len);

/*
 * Runs gnuplot on scripts_dir/plot_bench_*.gp for every figure whose CSV
 * file in data_dir has rows, writing NAME.png and NAME.svg into out_dir,
 * and lists each file written on log (may be NULL). Figures without rows
 * are left to the caller to report (gs_plot_bench_figures[].missing).
 * Returns 0, GS_EINVAL (a path or name gnuplot cannot be given), GS_ENOENT
 * (gnuplot or a script missing) or GS_EIO (gnuplot failed), with a message.
 */
int gs_plot_bench_render(const struct gs_plot_bench *b, const char *scripts_dir,
			 const char *data_dir, const char *out_dir, FILE *log, char *err,
			 size_t err_len);

/* Whether s can go into a gnuplot string between single quotes: no quote, no line break. */
bool gs_plot_quotable(const char *s);

/*
 * Runs `gnuplot -e vars script` (gnuplot found on PATH) and waits for it.
 * Returns 0, GS_ENOENT (the script or gnuplot missing) or GS_EIO (gnuplot
 * failed), with a message in err.
 */
int gs_plot_gnuplot(const char *vars, const char *script, char *err, size_t err_len);

/*
 * The directory of the gnuplot scripts: $GPUSIM_SCRIPTS when set, else
 * share/gpusim/scripts next to the installed program (<prefix>/bin/gpusim
 * looks in <prefix>/share/gpusim/scripts), else the source tree's scripts/
 * compiled into a build (GS_SCRIPTS_DIR). The string is static or from the
 * environment: never free it.
 */
const char *gs_plot_scripts_dir(void);

/*
 * Draws the sharing validation set v after gs_validation_run(): writes the
 * replayed rows to out_dir/validation_sharing.tsv and runs gnuplot on
 * scripts/plot_validation.gp, which writes out_dir/validation_sharing.png,
 * .svg and .pdf (published against gpusim, log-log, y = x and the band of
 * +-band). Makes out_dir when missing; lists each file written on log (may
 * be NULL). Returns 0, GS_ENOENT (gnuplot or the script missing), GS_EIO,
 * GS_EINVAL (a path gnuplot cannot be given), with a message.
 */
int gs_plot_validation_render(const struct gs_validation *v, double band, const char *out_dir,
		       FILE *log, char *err, size_t err_len);

#endif
