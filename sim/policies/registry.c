/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c - the list of policies, generated from policies.def, the FGD
 * paper's six among them, the orders in which names of policies are
 * listed, and the state of the policies whose only setting is compat
 * scoring.
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

static const struct gs_policy *const paper[] = {
	&gs_policy_random, &gs_policy_dotprod, &gs_policy_gpuclustering,
	&gs_policy_gpupacking, &gs_policy_bestfit, &gs_policy_fgd,
};

size_t gs_policies_paper_count(void)
{
	return sizeof(paper) / sizeof(paper[0]);
}

const struct gs_policy *gs_policy_paper_at(size_t i)
{
	return i < gs_policies_paper_count() ? paper[i] : NULL;
}

/* Position of name in list[0..n), n for a name not in it. */
static size_t rank(const struct gs_policy *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i]->name, name) == 0)
			return i;
	return n;
}

static int cmp_ranked(const struct gs_policy *const *list, size_t n, const char *a,
		      const char *b)
{
	size_t ra = rank(list, n, a), rb = rank(list, n, b);

	return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}

int gs_policy_cmp(const char *a, const char *b)
{
	return cmp_ranked(registry, gs_policies_count(), a, b);
}

int gs_policy_cmp_paper(const char *a, const char *b)
{
	return cmp_ranked(paper, gs_policies_paper_count(), a, b);
}

int gs_policy_qsort_cmp(const void *a, const void *b)
{
	return gs_policy_cmp(*(const char *const *)a, *(const char *const *)b);
}

int gs_policy_qsort_cmp_paper(const void *a, const void *b)
{
	return gs_policy_cmp_paper(*(const char *const *)a, *(const char *const *)b);
}

int gs_policy_compat_init(void *state, const struct gs_policy_env *env)
{
	struct gs_policy_compat *s = state;

	s->compat = (env->flags & GS_POLICY_COMPAT) != 0;
	return 0;
}
