/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_validation.c - the figure of the sharing validation set (see
 * gs_plot_validation_render() in plot.h): its data file and the gnuplot run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "io/outfile.h"
#include "io/path.h"
#include "report/plot.h"

/* The mechanism's series in plot_validation.gp: 1 timeslice .. 5 exclusive, 0 none. */
static int series(const char *spec)
{
	static const char *const mechs[] = { "timeslice", "mps", "vgpu", "mig", "exclusive" };
	size_t len = strcspn(spec, ":");
	int i;

	for (i = 0; i < 5; i++)
		if (strlen(mechs[i]) == len && strncmp(spec, mechs[i], len) == 0)
			return i + 1;
	return 0;
}

int gs_plot_validation_render(const struct gs_validation *v, double band, const char *out_dir,
		       FILE *log, char *err, size_t err_len)
{
	const char *scripts = gs_plot_scripts_dir();
	char data[2048], script[2048], out[2048], vars[8192], summary[256];
	struct gs_val_summary s;
	size_t i;
	FILE *f;
	int rc;

	if (strpbrk(out_dir, "'\n") || strpbrk(scripts, "'\n")) {
		gs_errf(err, err_len, "paths with a single quote cannot be passed to gnuplot");
		return GS_EINVAL;
	}
	rc = gs_mkdir_p(out_dir, err, err_len);
	if (rc)
		return rc;
	snprintf(data, sizeof(data), "%s/validation_sharing.tsv", out_dir);
	snprintf(out, sizeof(out), "%s/validation_sharing", out_dir);
	snprintf(script, sizeof(script), "%s/plot_validation.gp", scripts);
	f = fopen(data, "w");
	if (!f) {
		gs_errf(err, err_len, "%s: cannot open: %s", data, strerror(errno));
		return GS_EIO;
	}
	for (i = 0; i < v->n_rows; i++) {
		const struct gs_val_row *r = &v->rows[i];

		if (r->role == GS_VAL_NONE)
			continue;
		fprintf(f, "%.6f\t%.6f\t%d\t%d\t%s\n", r->published, r->predicted,
			series(r->sharing), r->role == GS_VAL_CHECK, r->id);
	}
	if (gs_outfile_finish(f, data, NULL, err, err_len))
		return GS_EIO;
	gs_validation_summary(v, band, &s);
	snprintf(summary, sizeof(summary), "%d check rows from %d sources, %d within +-%g %%",
		 s.checks, s.sources, s.within, band * 100);
	snprintf(vars, sizeof(vars), "scriptdir='%s/'; datafile='%s'; band=%g; summary='%s'; "
		 "out='%s'", scripts, data, band, summary, out);
	rc = gs_plot_gnuplot(vars, script, err, err_len);
	if (rc == 0 && log)
		fprintf(log, "wrote %s.png, %s.svg and %s.pdf\n", out, out, out);
	return rc;
}
