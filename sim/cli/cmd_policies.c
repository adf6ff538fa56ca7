/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_policies.c - `gpusim policies`: the registry, one line each.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "policies/policy.h"

int gs_cmd_policies(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: gpusim policies\n\n"
			       "Lists the placement policies that --policy accepts, in registry order.\n");
			return GS_EXIT_OK;
		}
		fprintf(stderr, "usage: gpusim policies\n");
		return GS_EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "gpusim policies: unexpected argument '%s'\n", argv[optind]);
		return GS_EXIT_USAGE;
	}
	printf("%-14s %s\n", "NAME", "DESCRIPTION");
	for (i = 0; i < gs_policies_count(); i++)
		printf("%-14s %s\n", gs_policy_at(i)->name, gs_policy_at(i)->summary);
	return GS_EXIT_OK;
}
