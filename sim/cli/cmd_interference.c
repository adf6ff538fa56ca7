/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_interference.c - `gpusim interference`: the interference table of
 * the sharing model (io/interference.h).
 *
 *   gpusim interference show [--out FILE]           the built-in table
 *   gpusim interference check FILE                  read a table, report errors
 *   gpusim interference export --db DB [--out FILE] the table from make bench results
 *   gpusim interference validate [--interference FILE] [--band PCT] [--plot DIR]
 *                                                   the rate model against published figures
 *   gpusim interference fit-busy FILE [--points N] [--source TEXT] [--out FILE]
 *                                                   a busy-fraction distribution (--busy)
 *                                                   from per-pod GPU duty cycles
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "engine/busy.h"
#include "engine/validation.h"
#include "io/csv.h"
#include "io/interference.h"
#include "io/outfile.h"
#include "report/plot.h"
#include "store/interference_export.h"
#include "store/results.h"

struct ifr_args {
	const char *db_path, *out, *file;
	const char *table, *workloads, *set, *plot, *source;
	double band_pct;
	int64_t points;
};

#define S struct ifr_args
/* --out FILE, the same for show and export. */
#define OPT_OUT                                                                    \
	{ GS_OPT_STRING_AT(S, out), .name = "out", .short_name = 'o', .arg = "FILE", \
	  .help = "write the table to FILE instead of standard output" }
static const struct gs_opt show_opts[] = {
	OPT_OUT,
	{ 0 },
};
static const struct gs_opt export_opts[] = {
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "results database with benchmark results "
					    "(gpusim bench-import)" },
	OPT_OUT,
	{ 0 },
};
#undef OPT_OUT
static const struct gs_opt check_opts[] = {
	{ 0 },
};
static const struct gs_opt validate_opts[] = {
	{ GS_OPT_STRING_AT(S, table), .name = "interference", .short_name = 'i', .arg = "FILE",
	  .help = "the interference table to validate (default: the built-in one)" },
	{ GS_OPT_DOUBLE_AT(S, band_pct, 0, 100), .name = "band", .arg = "PCT",
	  .help = "a check row passes within +-PCT percent of its figure (default 15)" },
	{ GS_OPT_STRING_AT(S, plot), .name = "plot", .short_name = 'p', .arg = "DIR",
	  .help = "also draw predicted against published (validation_sharing.png, .svg) "
		  "into DIR" },
	{ GS_OPT_STRING_AT(S, workloads), .name = "workloads", .arg = "FILE",
	  .help = "the set's workloads (default: the built-in "
		  "results/validation/sharing-workloads.csv)" },
	{ GS_OPT_STRING_AT(S, set), .name = "set", .arg = "FILE",
	  .help = "the set's rows (default: the built-in results/validation/sharing.csv)" },
	{ 0 },
};
static const struct gs_opt fit_busy_opts[] = {
	{ GS_OPT_INT_AT(S, points, 2, GS_BUSY_QUANTILES_MAX), .name = "points", .arg = "N",
	  .help = "quantiles to write, evenly spaced from 0 to 1 (default 41)" },
	{ GS_OPT_STRING_AT(S, source), .name = "source", .arg = "TEXT",
	  .help = "the source column of every row, no comma (default: the file's name "
		  "and the number of pods)" },
	{ GS_OPT_STRING_AT(S, out), .name = "out", .short_name = 'o', .arg = "FILE",
	  .help = "write the distribution to FILE instead of standard output" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec show_cmd = {
	.name = "interference show",
	.intro = "Writes the built-in interference table (results/interference.csv): mode,\n"
		 "gpu_model, n, class, efficiency and the source of every figure.\n",
	.outro = "Exit status: 0 success, 1 the output cannot be written.\n",
	.opts = show_opts,
};
static const struct gs_cmd_spec export_cmd = {
	.name = "interference export",
	.intro = "Writes an interference table made from the GPU benchmark results in DB\n"
		 "(make bench, then gpusim bench-import): one row per sharing mode, GPU model,\n"
		 "number of co-located clients and client kernel, efficiency = clients x the\n"
		 "mean throughput factor against alone. Give it to replay or sweep with\n"
		 "--interference FILE, after renaming the kernels to your workload classes.\n",
	.outro = "Exit status: 0 success, 1 a database or output error, 2 bad usage or no\n"
		 "benchmark results in DB.\n",
	.opts = export_opts,
};
static const struct gs_cmd_spec check_cmd = {
	.name = "interference check",
	.intro = "Reads an interference table and reports its first error as\n"
		 "FILE:LINE: column NAME: what, or how many rows it has.\n",
	.outro = "Exit status: 0 the table is valid, 2 it is not.\n",
	.opts = check_opts,
	.operand = "FILE",
	.operand_offset = offsetof(struct ifr_args, file),
};

static const struct gs_cmd_spec validate_cmd = {
	.name = "interference validate",
	.intro = "Replays every row of the sharing validation set (docs/sharing-model.md):\n"
		 "published measurements of time-slicing, MPS, MIG and interception caps, each\n"
		 "with the scenario gpusim replays. Solves the rows that fix a workload's\n"
		 "parameter, then prints each row's published figure, gpusim's and their ratio.\n"
		 "Check rows pass within the band; the set passes when 80 % of them do, none is\n"
		 "off by more than a factor 1.5 and every fitted, anchor and table row holds\n"
		 "within 2 %. Rows the model cannot express are listed, not replayed.\n",
	.outro = "Exit status: 0 the set passes, 1 it does not or a file cannot be written,\n"
		 "2 bad usage or a bad set or table.\n",
	.opts = validate_opts,
};

static const struct gs_cmd_spec fit_busy_cmd = {
	.name = "interference fit-busy",
	.intro = "Fits a distribution of busy fractions to the per-pod GPU duty cycles in FILE,\n"
		 "a CSV 'value,timestamp_anon,container_ip' (value in percent) like the GenAI\n"
		 "trace's pod_gpu_duty_cycle_anon.csv: each pod's busy fraction is the mean of\n"
		 "its samples, and the output is their quantile function, for replay --busy\n"
		 "and sweep --busy (results/busy-genai.csv is this fit of the GenAI trace).\n",
	.outro = "Exit status: 0 success, 1 the output cannot be written, 2 bad usage or a\n"
		 "bad or missing FILE.\n",
	.opts = fit_busy_opts,
	.operand = "FILE",
	.operand_offset = offsetof(struct ifr_args, file),
};

static void usage(FILE *f)
{
	fputs("usage: gpusim interference show [--out FILE]\n"
	      "       gpusim interference check FILE\n"
	      "       gpusim interference export --db DB [--out FILE]\n"
	      "       gpusim interference validate [--interference FILE] [--band PCT] "
	      "[--plot DIR]\n"
	      "       gpusim interference fit-busy FILE [--points N] [--source TEXT] "
	      "[--out FILE]\n\n"
	      "The interference table of the sharing model (docs/sharing.md;\n"
	      "format: traces/README.md). 'gpusim interference VERB --help' says more.\n", f);
}

/* Writes the table to out, whole or not at all, or to standard output. */
static int write_table(const char *verb, const struct gs_interference *t, const char *out)
{
	struct gs_outfile o;
	char err[4400];

	if (!out) {
		if (gs_interference_write(t, stdout) || fflush(stdout)) {
			fprintf(stderr, "gpusim interference %s: standard output: cannot write: %s\n",
				verb, strerror(errno));
			return GS_EXIT_FAIL;
		}
		return GS_EXIT_OK;
	}
	if (gs_outfile_open(&o, out, err, sizeof(err)) ||
	    (gs_interference_write(t, o.f), gs_outfile_commit(&o, err, sizeof(err)))) {
		fprintf(stderr, "gpusim interference %s: %s\n", verb, err);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

static const char *verdict_str(enum gs_val_verdict v)
{
	switch (v) {
	case GS_VAL_IN:
		return "ok";
	case GS_VAL_OUT:
		return "OUTSIDE";
	case GS_VAL_HELD:
		return "held";
	case GS_VAL_DRIFTED:
		return "DRIFTED";
	default:
		return "not expressed";
	}
}

/* Prints the validation's table and summary; returns the exit status. */
static int validate(const struct ifr_args *a)
{
	struct gs_interference t;
	struct gs_validation v;
	struct gs_val_summary sum;
	double band = a->band_pct / 100.0;
	char err[1024];
	size_t i;
	int rc, status = GS_EXIT_OK;

	gs_interference_init(&t);
	gs_validation_init(&v);
	if (!a->workloads != !a->set) {
		fprintf(stderr, "gpusim interference validate: --workloads and --set go together\n");
		return GS_EXIT_USAGE;
	}
	rc = a->table ? gs_interference_load(&t, a->table, err, sizeof(err))
		      : gs_interference_default(&t, err, sizeof(err));
	if (rc == 0)
		rc = a->set ? gs_validation_load(&v, a->workloads, a->set, err, sizeof(err))
			    : gs_validation_default(&v, err, sizeof(err));
	if (rc == 0)
		rc = gs_validation_run(&v, &t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim interference validate: %s\n", err);
		status = rc == GS_ENOMEM || rc == GS_EIO ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		goto out;
	}
	printf("%-30s %-11s %-10s %-9s %9s %9s %7s  %s\n", "row", "source", "mechanism",
	       "role", "published", "gpusim", "ratio", "verdict");
	for (i = 0; i < v.n_rows; i++) {
		const struct gs_val_row *r = &v.rows[i];
		enum gs_val_verdict vd = gs_validation_verdict(r, band);
		char mech[16];

		snprintf(mech, sizeof(mech), "%.*s", (int)strcspn(r->sharing, ":"), r->sharing);
		if (vd == GS_VAL_NOT_EXPRESSED) {
			printf("%-30s %-11s %-10s %-9s %9.4f %9s %7s  %s\n", r->id, r->source, mech,
			       gs_validation_role_str(r->role), r->published, "-", "-", verdict_str(vd));
			continue;
		}
		printf("%-30s %-11s %-10s %-9s %9.4f %9.4f %7.3f  %s", r->id, r->source, mech,
		       gs_validation_role_str(r->role), r->published, r->predicted, r->ratio,
		       verdict_str(vd));
		if (r->role == GS_VAL_FIT)
			printf(" (%s.%s = %d)", v.wl[r->fit_wl].key, gs_validation_field_str(r->fit_field),
			       r->fitted_milli);
		putchar('\n');
	}
	gs_validation_summary(&v, band, &sum);
	printf("\n%d check rows from %d sources: %d within +-%g %%, %d outside (%d by more than "
	       "a factor 1.5); %d fitted, anchor and table rows held within 2 %%, %d drifted; %d "
	       "rows not expressed\n%s\n", sum.checks, sum.sources, sum.within, a->band_pct,
	       sum.outside, sum.far, sum.held, sum.drifted, sum.not_expressed,
	       sum.pass ? "PASS" : "FAIL: fewer than 80 % of the checks within the band, a check "
				    "off by more than a factor 1.5, or a fitted row that drifted");
	if (!sum.pass)
		status = GS_EXIT_FAIL;
	if (a->plot) {
		rc = gs_plot_validation_render(&v, band, a->plot, stdout, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim interference validate: %s\n", err);
			status = GS_EXIT_FAIL;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		status = GS_EXIT_FAIL;
out:
	gs_validation_release(&v);
	gs_interference_release(&t);
	return status;
}

/* Fits and writes the busy distribution; returns the exit status. */
static int fit_busy(const struct ifr_args *a)
{
	struct gs_outfile o;
	char msg[4400];
	struct gs_busy_dist *d = malloc(sizeof(*d));
	char err[1024], source[512];
	const char *base;
	size_t pods = 0;
	FILE *f;
	int rc;

	if (!d) {
		fputs("gpusim interference fit-busy: out of memory\n", stderr);
		return GS_EXIT_FAIL;
	}
	if (a->source && (!a->source[0] || !gs_csv_plain_text(a->source))) {
		fputs("gpusim interference fit-busy: --source: a source is one line of text "
		      "without a comma\n", stderr);
		free(d);
		return GS_EXIT_USAGE;
	}
	rc = gs_busy_fit(a->file, (int)a->points, d, &pods, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim interference fit-busy: %s\n", err);
		free(d);
		return rc == GS_ENOMEM || rc == GS_EIO ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	base = strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file;
	snprintf(source, sizeof(source), "gpusim interference fit-busy %.*s (%zu pods)",
		 (int)strcspn(base, ",\n"), base, pods);
	/* A file is written whole or not at all (io/outfile.h). */
	if (a->out && gs_outfile_open(&o, a->out, msg, sizeof(msg))) {
		fprintf(stderr, "gpusim interference fit-busy: %s\n", msg);
		free(d);
		return GS_EXIT_FAIL;
	}
	f = a->out ? o.f : stdout;
	rc = gs_busy_dist_write(d, a->source ? a->source : source, f);
	free(d);
	if (a->out) {
		if (rc)
			gs_outfile_abort(&o);
		if (rc || gs_outfile_commit(&o, msg, sizeof(msg))) {
			fprintf(stderr, "gpusim interference fit-busy: %s\n",
				rc ? "cannot write the distribution" : msg);
			return GS_EXIT_FAIL;
		}
	} else if (rc || fflush(stdout) != 0) {
		fprintf(stderr, "gpusim interference fit-busy: standard output: cannot write: %s\n",
			strerror(errno));
		return GS_EXIT_FAIL;
	}
	if (a->out)
		fprintf(stderr, "%s: %d quantiles of %zu pods' busy fractions\n", a->out,
			(int)a->points, pods);
	return GS_EXIT_OK;
}

int gs_cmd_interference(int argc, char **argv)
{
	const struct gs_cmd_spec *cmd;
	struct gs_interference t;
	struct ifr_args a;
	struct gs_db *db = NULL;
	char err[1024];
	int status, rc;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GS_EXIT_USAGE : GS_EXIT_OK;
	}
	if (!strcmp(argv[1], "show"))
		cmd = &show_cmd;
	else if (!strcmp(argv[1], "export"))
		cmd = &export_cmd;
	else if (!strcmp(argv[1], "check"))
		cmd = &check_cmd;
	else if (!strcmp(argv[1], "validate"))
		cmd = &validate_cmd;
	else if (!strcmp(argv[1], "fit-busy"))
		cmd = &fit_busy_cmd;
	else {
		fprintf(stderr, "gpusim interference: '%s' is not a verb (show, check, export, "
			"validate, fit-busy)\n", argv[1]);
		return GS_EXIT_USAGE;
	}
	memset(&a, 0, sizeof(a));
	a.band_pct = 15;
	a.points = 41;
	if (gs_opt_parse(cmd, argc - 1, argv + 1, &a, &status))
		return status;
	if (cmd == &validate_cmd || cmd == &fit_busy_cmd) {
		status = cmd == &validate_cmd ? validate(&a) : fit_busy(&a);
		gs_opt_release(cmd, &a);
		return status;
	}
	gs_interference_init(&t);
	if (cmd == &show_cmd) {
		rc = gs_interference_default(&t, err, sizeof(err));
		status = rc ? GS_EXIT_FAIL : write_table("show", &t, a.out);
	} else if (cmd == &check_cmd) {
		rc = gs_interference_load(&t, a.file, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim interference check: %s\n", err);
			status = rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
		} else {
			printf("%s: %zu rows, valid\n", a.file, t.n);
			status = GS_EXIT_OK;
		}
	} else {
		rc = gs_db_open(a.db_path, &db, err, sizeof(err));
		if (rc == 0)
			rc = gs_db_interference_export(db, &t, err, sizeof(err));
		if (rc) {
			status = gs_cli_db_status("interference export", rc, err);
		} else {
			status = write_table("export", &t, a.out);
		}
		gs_db_close(db);
	}
	gs_interference_release(&t);
	gs_opt_release(cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_interference_specs[] = { &show_cmd, &export_cmd, &check_cmd,
								      &validate_cmd, &fit_busy_cmd, NULL };
