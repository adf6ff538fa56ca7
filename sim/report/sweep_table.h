/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_table.h - the table `gpusim sweep` prints: one row per trace,
 * policy and setting, with the mean and standard deviation over seeds of
 * the headline figures (run/sweep.h, gs_sweep_stats()).
 */
#ifndef GS_SWEEP_TABLE_H
#define GS_SWEEP_TABLE_H

#include <stdio.h>

#include "run/sweep.h"

/*
 * Prints the summary of sweep s, run from spec, to f: in inflate mode the
 * mean +- sd over seeds of unallocated GPU %; in time mode the mean +- sd
 * over seeds of the mean wait (the headline), the p99 wait and the mean
 * completion time, the mean p99 completion time, slowdown, allocated and
 * useful GPU %, failed and pending pods. "-" where no seed has a value.
 */
void gs_sweep_table_print(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s);

#endif
