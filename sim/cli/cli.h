/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - option parsing shared by the gpusim subcommands, so every
 * command reads numbers, modes and policy lists the same way and says
 * what is wrong in the same words:
 *   gpusim CMD: --OPT: 'VALUE' is not ...
 * Each function prints that message on stderr and returns -1 on error, 0
 * on success; *out is untouched on error.
 */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "policies/policy.h"
#include "engine/replay.h"

/* A whole decimal integer in [min, max]. */
int gs_cli_int(const char *cmd, const char *opt, const char *s, int64_t min, int64_t max,
	       int64_t *out);

/* A finite number > 0. */
int gs_cli_positive(const char *cmd, const char *opt, const char *s, double *out);

/* "time" or "inflate" (option --mode). */
int gs_cli_mode(const char *cmd, const char *s, enum gs_mode *out);

/*
 * A comma-separated policy list (option --policy): names from the
 * registry, "all" for every policy and "paper" for the six of Weng et al.,
 * ATC 2023 (random, dotprod, gpuclustering, gpupacking, bestfit, fgd).
 * Fills out[0..*n_out) with at most max policies.
 */
int gs_cli_policies(const char *cmd, const char *list, const struct gs_policy **out, size_t max,
		    size_t *n_out);

#endif
