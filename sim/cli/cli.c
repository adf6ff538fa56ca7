/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.c - option parsing shared by the subcommands (see cli.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* The six policies compared in Weng et al., ATC 2023, in the paper's order. */
static const char *const paper_policies[] = {
	"random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd",
};

int gs_cli_int(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
	       int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		if (min == 0 && max == INT64_MAX)
			fprintf(stderr, "gpusim %s: --%s: '%s' is not a non-negative integer\n", cmd,
				opt, s);
		else
			fprintf(stderr, "gpusim %s: --%s: '%s' is not a number from %" PRId64
					" to %" PRId64 "\n", cmd, opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int gs_cli_positive(const char *cmd, const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || !isfinite(v)) {
		fprintf(stderr, "gpusim %s: --%s: '%s' is not a positive number\n", cmd, opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int gs_cli_mode(const char *cmd, const char *s, enum gs_mode *out)
{
	if (!strcmp(s, "time")) {
		*out = GS_MODE_TIME;
	} else if (!strcmp(s, "inflate")) {
		*out = GS_MODE_INFLATE;
	} else {
		fprintf(stderr, "gpusim %s: --mode: '%s' is not 'time' or 'inflate'\n", cmd, s);
		return -1;
	}
	return 0;
}

static int add_policy(const char *cmd, const char *name, const struct gs_policy **out,
		      size_t max, size_t *n)
{
	if (*n >= max) {
		fprintf(stderr, "gpusim %s: --policy: more than %zu policies\n", cmd, max);
		return -1;
	}
	out[*n] = gs_policy_find(name);
	if (!out[*n]) {
		fprintf(stderr, "gpusim %s: --policy: '%s' is not a policy; "
				"'gpusim policies' lists them\n", cmd, name);
		return -1;
	}
	(*n)++;
	return 0;
}

int gs_cli_policies(const char *cmd, const char *list, const struct gs_policy **out, size_t max,
		    size_t *n_out)
{
	char *copy = strdup(list), *save = NULL, *tok;
	size_t i, n = 0;
	int rc = 0;

	if (!copy) {
		fprintf(stderr, "gpusim %s: out of memory\n", cmd);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (i = 0; i < gs_policies_count() && !rc; i++)
				rc = add_policy(cmd, gs_policy_at(i)->name, out, max, &n);
		} else if (!strcmp(tok, "paper")) {
			for (i = 0; i < sizeof(paper_policies) / sizeof(*paper_policies) && !rc; i++)
				rc = add_policy(cmd, paper_policies[i], out, max, &n);
		} else {
			rc = add_policy(cmd, tok, out, max, &n);
		}
	}
	free(copy);
	if (!rc && n == 0) {
		fprintf(stderr, "gpusim %s: --policy: no policy given\n", cmd);
		rc = -1;
	}
	if (!rc)
		*n_out = n;
	return rc;
}
