/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_table.c - the summary table of a sweep (see sweep_table.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/sharing.h"
#include "report/sweep_table.h"

/* A column of the time-mode table: its header, figure, decimals, whether with +- sd, width. */
struct column {
	const char *head;
	enum gs_fig fig;
	int prec;
	bool sd;
	int width;
};

static const struct column time_columns[] = {
	{ "WAIT(s)", GS_FIG_WAIT_MEAN, 1, true, 20 },
	{ "P99W(s)", GS_FIG_WAIT_P99, 0, true, 20 },
	{ "COMPL(s)", GS_FIG_COMPL_MEAN, 1, true, 22 },
	{ "P99C(s)", GS_FIG_COMPL_P99, 0, false, 9 },
	{ "SLOWDN", GS_FIG_SLOWDOWN, 2, false, 7 },
	{ "ALLOC%", GS_FIG_ALLOC, 2, false, 7 },
	{ "USEFUL%", GS_FIG_USEFUL, 2, false, 7 },
	{ "FAILED", GS_FIG_FAILED, 0, false, 6 },
	{ "PEND", GS_FIG_PENDING, 0, false, 6 },
};
#define N_TIME_COLUMNS (sizeof(time_columns) / sizeof(time_columns[0]))

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

/* The figures of one row after its labels: the runs counted, then each column. */
static void print_figures(FILE *f, const struct gs_sweep *s, size_t t, size_t p, size_t k,
			  bool time_mode)
{
	double mean, sd;
	size_t i, n;
	char c[64];

	if (!time_mode) {
		gs_sweep_stats(s, t, p, k, GS_FIG_UNALLOC, &mean, &sd, &n);
		fprintf(f, "%5zu  ", n);
		if (isnan(mean))
			fprintf(f, "%8s  %6s\n", "-", "-");
		else if (isnan(sd))
			fprintf(f, "%8.2f  %6s\n", mean, "-");
		else
			fprintf(f, "%8.2f  %6.2f\n", mean, sd);
		return;
	}
	for (i = 0; i < N_TIME_COLUMNS; i++) {
		const struct column *col = &time_columns[i];

		gs_sweep_stats(s, t, p, k, col->fig, &mean, &sd, &n);
		/* The runs with a mean wait: those the headline is over. */
		if (i == 0)
			fprintf(f, "%5zu  ", n);
		mean_sd(c, sizeof(c), mean, col->sd ? sd : NAN, col->prec);
		fprintf(f, "%*s%s", col->width, c, i + 1 < N_TIME_COLUMNS ? "  " : "\n");
	}
}

void gs_sweep_table_print(FILE *f, const struct gs_sweep_spec *spec, const struct gs_sweep *s)
{
	const char *axis = spec->n_loads ? "LOAD%" : spec->n_scales ? "SCALE" : NULL;
	bool time_mode = spec->opts.mode == GS_MODE_TIME;
	size_t t, p, k, i, width = strlen("TRACE"), sh_width = strlen("SHARING");
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
	fprintf(f, "%5s  ", "RUNS");
	if (time_mode)
		for (i = 0; i < N_TIME_COLUMNS; i++)
			fprintf(f, "%*s%s", time_columns[i].width, time_columns[i].head,
				i + 1 < N_TIME_COLUMNS ? "  " : "\n");
	else
		fprintf(f, "%8s  %6s\n", "UNALLOC%", "SD");
	for (t = 0; t < s->n_traces; t++) {
		for (p = 0; p < s->n_policies; p++) {
			for (k = 0; k < s->n_settings; k++) {
				fprintf(f, "%-*s  %-14s ", (int)width, s->trace_names[t],
					spec->policies[p]->name);
				if (spec->n_sharings)
					fprintf(f, "%-*s ", (int)sh_width,
						gs_share_format(&spec->sharings[k / s->n_numbers],
								spec_buf, sizeof(spec_buf)));
				if (axis)
					fprintf(f, "%7g ", s->settings[k]);
				print_figures(f, s, t, p, k, time_mode);
			}
		}
	}
}
