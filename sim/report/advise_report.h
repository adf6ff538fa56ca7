/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_report.h - the report page of `gpusim advise --report DIR`:
 * DIR/advise.md with the verdict, the table of every candidate with its
 * interval, and the figures it cites (PNG, SVG and PDF through gnuplot,
 * data under DIR/data):
 *   advise_pareto_<trace>    the objective against the GPUs it keeps busy
 *                            (allocated GPU %) and against useful GPU %, one
 *                            point per candidate still in and load, the
 *                            Pareto front drawn per load
 *   advise_cdf_<trace>_<load>  completion-time CDFs, one line per
 *                            mechanism (its best policy, every seed), whose
 *                            curve ends below 1 by the pods it left
 *                            unfinished (failed or never started)
 *   advise_capacity_<trace>_<load>  with --target: the first target's
 *                            metric against the GPUs of each size probed,
 *                            per candidate sized, the bound drawn
 */
#ifndef GS_ADVISE_REPORT_H
#define GS_ADVISE_REPORT_H

#include <stddef.h>

#include "report/advise.h"

/*
 * Writes the report of a (made from spec) into dir, created if missing,
 * reading the pods of the runs from spec->db_path for the CDFs. A figure
 * gnuplot cannot draw is left out with a note in the page and in note
 * (empty when none). Returns 0, or GS_EIO, GS_EDB or GS_ENOMEM with a
 * message in err.
 */
int gs_advise_report(const struct gs_advise *a, const struct gs_advise_spec *spec,
		     const char *dir, const char *scripts_dir, char *note, size_t note_len,
		     char *err, size_t err_len);

#endif
