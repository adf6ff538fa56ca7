/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - the gpusim program: dispatches `gpusim COMMAND ...` to the
 * subcommands listed in cmd.h, whose registry (gs_commands) it defines.
 *
 * Two options are for the build, not for users, and --help does not list
 * them: `gpusim --man DIR` writes the man pages into DIR (made when
 * missing) and `gpusim --completion bash|zsh [FILE]` writes a completion
 * script (docgen.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <gsl/gsl_errno.h>

#include "cli/cmd.h"
#include "cli/docgen.h"
#include "cli/json_out.h"
#include "core/version.h"
#include "io/outfile.h"

#define GS_CMD_ENTRY(name, typed, summary) { typed, gs_cmd_##name, summary, gs_cmd_##name##_specs },
const struct gs_command gs_commands[] = { GS_CMD_LIST(GS_CMD_ENTRY) };
#undef GS_CMD_ENTRY
const size_t gs_n_commands = sizeof(gs_commands) / sizeof(gs_commands[0]);

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gpusim COMMAND [OPTIONS]\n\n"
		   "Simulate and benchmark GPU-sharing placement policies.\n\n"
		   "Commands:\n");
	for (i = 0; i < gs_n_commands; i++)
		fprintf(f, "  %-14s %s\n", gs_commands[i].name, gs_commands[i].summary);
	fprintf(f, "\nRun 'gpusim COMMAND --help' or 'man gpusim-COMMAND' for a command's options.\n"
		   "Version %s. Documentation: README.md and docs/, results/SCHEMA.md, "
		   "traces/README.md.\n", gs_version());
}

/* gpusim --man DIR, gpusim --completion bash|zsh [FILE]. */
static int write_docs(int argc, char **argv)
{
	FILE *f = stdout;
	int rc;

	if (!strcmp(argv[1], "--man")) {
		if (argc != 3) {
			fprintf(stderr, "usage: gpusim --man DIR\n");
			return GS_EXIT_USAGE;
		}
		return gs_man_write_all(argv[2]);
	}
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: gpusim --completion bash|zsh [FILE]\n");
		return GS_EXIT_USAGE;
	}
	/* Before FILE is created: a misspelt shell must not empty a file that is there. */
	if (strcmp(argv[2], "bash") != 0 && strcmp(argv[2], "zsh") != 0) {
		fprintf(stderr, "gpusim: --completion: '%s' is not 'bash' or 'zsh'\n", argv[2]);
		return GS_EXIT_USAGE;
	}
	if (argc == 4 && !(f = fopen(argv[3], "w"))) {
		fprintf(stderr, "gpusim: %s: cannot create: %s\n", argv[3], strerror(errno));
		return GS_EXIT_FAIL;
	}
	rc = gs_complete_write(argv[2], f);
	if (f != stdout) {
		char msg[4200];

		if (gs_outfile_finish(f, argv[3], NULL, msg, sizeof(msg)) && !rc) {
			fprintf(stderr, "gpusim: %s\n", msg);
			rc = GS_EXIT_FAIL;
		}
	}
	return rc;
}

/*
 * A sweep runs many simulations in one process, and each allocates a few
 * MB of arrays (the scheduler's index, samples, outcomes) that glibc gives
 * back to the kernel when the run ends and faults in again for the next
 * one. Keeping freed memory in the process instead took an openb inflate
 * run from 58 to 14 ms (bestfit) and from 77 to 28 ms (fgd), medians of 7
 * with bench_replay, which does the same; a single large run is not
 * affected.
 */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

/*
 * The exit status: st, or 1 when what went to stdout did not all get
 * there (a full disk under `gpusim inspect --json >out.json`), which
 * printf alone never reports.
 */
static int finish(int st)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gpusim: cannot write the output%s%s\n", errno ? ": " : "",
			errno ? strerror(errno) : "");
		return st ? st : GS_EXIT_FAIL;
	}
	return st;
}

static int run(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return GS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return GS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gpusim %s\n", gs_version());
		return GS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--completion"))
		return write_docs(argc, argv);
	for (i = 0; i < gs_n_commands; i++)
		if (!strcmp(argv[1], gs_commands[i].name))
			return gs_commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "gpusim: '%s' is not a gpusim command; see 'gpusim --help'\n", argv[1]);
	return GS_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	keep_freed_memory();
	gs_json_init();
	/*
	 * GSL's default handler aborts, on a failed allocation too (gsl_rng_alloc);
	 * every caller checks what GSL returns and says why itself.
	 */
	gsl_set_error_handler_off();
	return finish(run(argc, argv));
}
