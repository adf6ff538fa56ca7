/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_table.c - the summary table of a sweep (see sweep_table.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/sharing.h"
#include "report/sweep_table.h"

/* "12.3" / "12.3 +- 4.5" into buf, "-" without a value. */
static void mean_sd(char *buf, size_t len, double mean, double sd, int prec)
{
	if (isnan(mean))
		snprintf(buf, len, "-");
	else if (isnan(sd))
		snprintf(buf, len, "%.*f", prec, mean);
	else
		snprintf(buf, len, "%.*f +- %.*f", prec, mean, prec, sd);
}

void gs_sweep_table_print(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s)
{
	const char *axis = spec->n_loads ? "LOAD%" : spec->n_scales ? "SCALE" : NULL;
	bool time_mode = spec->opts.mode == GS_MODE_TIME;
	size_t t, p, k, width = strlen("TRACE"), sh_width = strlen("SHARING");
	char spec_buf[GS_SHARE_SPEC_MAX];

	for (k = 0; k < spec->n_sharings; k++) {
		size_t w = strlen(gs_share_format(&spec->sharings[k], spec_buf, sizeof(spec_buf)));

		if (w > sh_width)
			sh_width = w;
	}

	for (t = 0; t < s->n_traces; t++)
		if (strlen(s->trace_names[t]) > width)
			width = strlen(s->trace_names[t]);
	fprintf(f, "%-*s  %-14s ", (int)width, "TRACE", "POLICY");
	if (spec->n_sharings)
		fprintf(f, "%-*s ", (int)sh_width, "SHARING");
	if (axis)
		fprintf(f, "%7s ", axis);
	if (time_mode)
		fprintf(f, "%5s  %20s  %20s  %22s  %9s  %7s  %7s  %7s  %6s  %6s\n", "RUNS",
			"WAIT(s)", "P99W(s)", "COMPL(s)", "P99C(s)", "SLOWDN", "ALLOC%", "USEFUL%",
			"FAILED", "PEND");
	else
		fprintf(f, "%5s  %8s  %6s\n", "RUNS", "UNALLOC%", "SD");
	for (t = 0; t < s->n_traces; t++) {
		for (p = 0; p < s->n_policies; p++) {
			for (k = 0; k < s->n_settings; k++) {
				double mean, sd;
				size_t n;
				char c[4][64];

				fprintf(f, "%-*s  %-14s ", (int)width, s->trace_names[t],
					spec->policies[p]->name);
				if (spec->n_sharings)
					fprintf(f, "%-*s ", (int)sh_width,
						gs_share_format(&spec->sharings[k / s->n_numbers],
								spec_buf, sizeof(spec_buf)));
				if (axis)
					fprintf(f, "%7g ", s->settings[k]);
				if (!time_mode) {
					gs_sweep_stats(s, t, p, k, GS_FIG_UNALLOC, &mean, &sd, &n);
					fprintf(f, "%5zu  ", n);
					if (isnan(mean))
						fprintf(f, "%8s  %6s\n", "-", "-");
					else if (isnan(sd))
						fprintf(f, "%8.2f  %6s\n", mean, "-");
					else
						fprintf(f, "%8.2f  %6.2f\n", mean, sd);
					continue;
				}
				gs_sweep_stats(s, t, p, k, GS_FIG_WAIT_MEAN, &mean, &sd, &n);
				fprintf(f, "%5zu  ", n);
				mean_sd(c[0], sizeof(c[0]), mean, sd, 1);
				gs_sweep_stats(s, t, p, k, GS_FIG_WAIT_P99, &mean, &sd, &n);
				mean_sd(c[1], sizeof(c[1]), mean, sd, 0);
				gs_sweep_stats(s, t, p, k, GS_FIG_COMPL_MEAN, &mean, &sd, &n);
				mean_sd(c[2], sizeof(c[2]), mean, sd, 1);
				gs_sweep_stats(s, t, p, k, GS_FIG_COMPL_P99, &mean, &sd, &n);
				mean_sd(c[3], sizeof(c[3]), mean, NAN, 0);
				fprintf(f, "%20s  %20s  %22s  %9s  ", c[0], c[1], c[2], c[3]);
				gs_sweep_stats(s, t, p, k, GS_FIG_SLOWDOWN, &mean, &sd, &n);
				mean_sd(c[0], sizeof(c[0]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_FIG_ALLOC, &mean, &sd, &n);
				mean_sd(c[1], sizeof(c[1]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_FIG_USEFUL, &mean, &sd, &n);
				mean_sd(c[2], sizeof(c[2]), mean, NAN, 2);
				gs_sweep_stats(s, t, p, k, GS_FIG_FAILED, &mean, &sd, &n);
				mean_sd(c[3], sizeof(c[3]), mean, NAN, 0);
				fprintf(f, "%7s  %7s  %7s  %6s  ", c[0], c[1], c[2], c[3]);
				gs_sweep_stats(s, t, p, k, GS_FIG_PENDING, &mean, &sd, &n);
				mean_sd(c[0], sizeof(c[0]), mean, NAN, 0);
				fprintf(f, "%6s\n", c[0]);
			}
		}
	}
}
