/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_policies.c - `gpusim policies`: the registry, one line each.
 */
#include <stdio.h>

#include "cli/cmd.h"
#include "cli/json_out.h"
#include "cli/opt.h"
#include "policies/policy.h"

struct policies_args {
	bool json;
};

#define S struct policies_args
static const struct gs_opt policies_opts[] = {
	{ GS_OPT_FLAG_AT(S, json), .name = "json",
	  .help = "print a JSON array, one object per policy: name and summary" },
	{ 0 },
};
#undef S

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
	if (a.json) {
		cJSON *arr = cJSON_CreateArray();

		for (i = 0; arr && i < gs_policies_count(); i++) {
			cJSON *o = cJSON_CreateObject();

			if (!o || !cJSON_AddStringToObject(o, "name", gs_policy_at(i)->name) ||
			    !cJSON_AddStringToObject(o, "summary", gs_policy_at(i)->summary)) {
				cJSON_Delete(o);
				cJSON_Delete(arr);
				arr = NULL;
				break;
			}
			cJSON_AddItemToArray(arr, o);
		}
		return gs_json_print("policies", arr);
	}
	printf("%-14s %s\n", "NAME", "DESCRIPTION");
	for (i = 0; i < gs_policies_count(); i++)
		printf("%-14s %s\n", gs_policy_at(i)->name, gs_policy_at(i)->summary);
	return GS_EXIT_OK;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_policies_specs[] = { &policies_cmd, NULL };
