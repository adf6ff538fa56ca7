/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_interference.c - `gpusim interference`: the interference table of
 * the sharing model (io/interference.h).
 *
 *   gpusim interference show [--out FILE]           the built-in table
 *   gpusim interference check FILE                  read a table, report errors
 *   gpusim interference export --db DB [--out FILE] the table from make bench results
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/opt.h"
#include "core/error.h"
#include "io/interference.h"
#include "store/interference_export.h"
#include "store/results.h"

struct ifr_args {
	const char *db_path, *out, *file;
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
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "DB",
	  .flags = GS_OPT_REQUIRED, .help = "results database with benchmark results "
					    "(gpusim bench-import)" },
	OPT_OUT,
	{ 0 },
};
#undef OPT_OUT
static const struct gs_opt check_opts[] = {
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

static void usage(FILE *f)
{
	fputs("usage: gpusim interference show [--out FILE]\n"
	      "       gpusim interference check FILE\n"
	      "       gpusim interference export --db DB [--out FILE]\n\n"
	      "The interference table of the sharing model (docs/sharing.md;\n"
	      "format: traces/README.md). 'gpusim interference VERB --help' says more.\n", f);
}

static int write_table(const char *verb, const struct gs_interference *t, const char *out)
{
	FILE *f = out ? fopen(out, "w") : stdout;
	int rc;

	if (!f) {
		fprintf(stderr, "gpusim interference %s: %s: cannot open: %s\n", verb, out,
			strerror(errno));
		return GS_EXIT_FAIL;
	}
	rc = gs_interference_write(t, f);
	if (out && fclose(f) != 0)
		rc = GS_EIO;
	if (rc) {
		fprintf(stderr, "gpusim interference %s: %s: cannot write\n", verb,
			out ? out : "standard output");
		return GS_EXIT_FAIL;
	}
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
	else {
		fprintf(stderr, "gpusim interference: '%s' is not a verb (show, check, export)\n",
			argv[1]);
		return GS_EXIT_USAGE;
	}
	memset(&a, 0, sizeof(a));
	if (gs_opt_parse(cmd, argc - 1, argv + 1, &a, &status))
		return status;
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
			fprintf(stderr, "gpusim interference export: %s\n", err);
			status = rc == GS_ENOENT || rc == GS_ESCHEMA ? GS_EXIT_USAGE : GS_EXIT_FAIL;
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
								      NULL };
