/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c - the list of policies, generated from policies.def.
 */
#include <string.h>

#include "policies/policy.h"

#define GS_POLICY(sym) extern const struct gs_policy sym;
#include "policies/policies.def"
#undef GS_POLICY

static const struct gs_policy *const registry[] = {
#define GS_POLICY(sym) &sym,
#include "policies/policies.def"
#undef GS_POLICY
};

size_t gs_policies_count(void)
{
	return sizeof(registry) / sizeof(registry[0]);
}

const struct gs_policy *gs_policy_at(size_t i)
{
	return i < gs_policies_count() ? registry[i] : NULL;
}

const struct gs_policy *gs_policy_find(const char *name)
{
	size_t i;

	for (i = 0; i < gs_policies_count(); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}
