/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_policies.c - `gpusim policies`: the registry, one line each.
 */
#include <stdio.h>

#include "cli/cmd.h"
#include "cli/opt.h"
#include "policies/policy.h"

/* No options beyond --help and --version; a struct to hold none. */
struct policies_args {
	int unused;
};

static const struct gs_opt policies_opts[] = { { 0 } };

static const struct gs_cmd_spec policies_cmd = {
	.name = "policies",
	.intro = "Lists the placement policies that --policy accepts, in registry order.\n",
	.opts = policies_opts,
};

int gs_cmd_policies(int argc, char **argv)
{
	struct policies_args a = { 0 };
	size_t i;
	int status;

	if (gs_opt_parse(&policies_cmd, argc, argv, &a, &status))
		return status;
	printf("%-14s %s\n", "NAME", "DESCRIPTION");
	for (i = 0; i < gs_policies_count(); i++)
		printf("%-14s %s\n", gs_policy_at(i)->name, gs_policy_at(i)->summary);
	return GS_EXIT_OK;
}
