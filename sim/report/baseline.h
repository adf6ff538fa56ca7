/* SPDX-License-Identifier: Apache-2.0 */
/*
 * baseline.h - the regression baseline: a result set (store/regress_data.h)
 * as a directory of small CSV files that are committed and reviewed as
 * diffs (results/baseline/ in this repository):
 *
 *   families.csv  family,mode,nodes_file,nodes_sha256,pods_file,pods_sha256,params
 *                 one row per family: its inputs and canonical parameters
 *   runs.csv      family,policy,seed,metric,value
 *                 one row per metric of every run (long format, so that a
 *                 metric the schema adds needs no change here), values in
 *                 the shortest decimal form that reads back to the same
 *                 double, so a database and the baseline written from it
 *                 compare exactly
 *   curves.csv    family,policy,curve,x,y
 *                 the overlay figures' curves (regress_data.h names them)
 *   speed.csv     family,runs,events,sim_ms,sweep_s
 *                 events and simulation time summed over the runs, and the
 *                 wall time from the first run's start to the last one's end
 *
 * Rows are sorted (family, policy, seed, metric; curves by x), so a
 * regenerated baseline differs from the old one only where results moved.
 * The files are read with the project's strict CSV reader (io/csv.h):
 * no quoting, so no field may hold a comma or a quote (gs_rset_params()
 * escapes the parameters).
 *
 * Ownership: the set is the caller's; nothing here keeps a pointer.
 */
#ifndef GS_BASELINE_H
#define GS_BASELINE_H

#include <stddef.h>

#include "store/regress_data.h"

/*
 * Writes a finished set s into dir (created with its parents if missing),
 * each file through a temporary file renamed when complete. Returns 0,
 * GS_EINVAL (s not finished, or a field holds a comma, a quote or a line
 * break) or GS_EIO (err names the file).
 */
int gs_baseline_write(const struct gs_rset *s, const char *dir, char *err, size_t err_len);

/*
 * Reads the baseline in dir into s (freshly initialised) and finishes it.
 * families.csv and runs.csv must exist; without curves.csv the figures
 * have no baseline curves, without speed.csv the speed is not compared.
 * Returns 0, GS_ENOENT (dir or a required file missing), GS_EPARSE
 * ("FILE:LINE: column NAME: ..."), GS_EEXIST (a family or a value given
 * twice) or GS_ENOMEM, with a message in err; s is released on failure.
 */
int gs_baseline_read(const char *dir, struct gs_rset *s, char *err, size_t err_len);

#endif
