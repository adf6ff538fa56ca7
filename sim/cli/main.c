/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - the gpusim program: dispatches `gpusim COMMAND ...` to the
 * subcommands listed in cmd.h.
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cmd.h"
#include "core/version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Subcommand names use '-' where the C name has '_' (bench_import). */
#define GS_CMD_ENTRY(name, summary) { #name, gs_cmd_##name, summary },
static const struct command commands[] = { GS_CMD_LIST(GS_CMD_ENTRY) };
#undef GS_CMD_ENTRY

static int same_name(const char *typed, const char *c_name)
{
	for (; *typed && *c_name; typed++, c_name++)
		if (*typed != *c_name && !(*typed == '-' && *c_name == '_'))
			return 0;
	return *typed == *c_name;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gpusim COMMAND [OPTIONS]\n\n"
		   "Simulate and benchmark GPU-sharing placement policies.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char name[32];
		size_t j;

		snprintf(name, sizeof(name), "%s", commands[i].name);
		for (j = 0; name[j]; j++)
			if (name[j] == '_')
				name[j] = '-';
		fprintf(f, "  %-14s %s\n", name, commands[i].summary);
	}
	fprintf(f, "\nRun 'gpusim COMMAND --help' for a command's options.\n"
		   "Version %s. Documentation: README.md, results/SCHEMA.md, "
		   "traces/README.md.\n", gs_version());
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

int main(int argc, char **argv)
{
	size_t i;

	keep_freed_memory();

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
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (same_name(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "gpusim: '%s' is not a gpusim command; see 'gpusim --help'\n", argv[1]);
	return GS_EXIT_USAGE;
}
