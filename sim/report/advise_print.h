/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_print.h - the verdict of `gpusim advise` in plain words, and as
 * JSON (documented in results/SCHEMA.md, "The verdict as JSON").
 *
 * The text says, per trace and load: the best candidate with its mean
 * and interval, its gain over the baseline with an interval and Holm's
 * p, the candidates it ties with ("no significant difference"), why each
 * other mechanism lost (grouped by mechanism: the pods it failed on GPU
 * memory, left unstarted, or its waits and slowdown against the best),
 * the reference lines, and with targets the smallest cluster each sized
 * candidate needs.
 */
#ifndef GS_ADVISE_PRINT_H
#define GS_ADVISE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "report/advise.h"

/* Block b's load into buf: "load 80%" or "trace times"; as a file-name word "80" or "times". */
char *gs_advise_print_load(const struct gs_advise *a, size_t b, bool word, char *buf, size_t len);

/* Prints the verdict of a (made from spec) on f. */
void gs_advise_print(FILE *f, const struct gs_advise *a, const struct gs_advise_spec *spec);

/* The verdict as a new JSON object (caller deletes); NULL when out of memory. */
cJSON *gs_advise_json(const struct gs_advise *a, const struct gs_advise_spec *spec);

/* gs_advise_json() printed (malloc'ed, caller frees); NULL when out of memory. */
char *gs_advise_json_text(const struct gs_advise *a, const struct gs_advise_spec *spec);

/* Conditions as "a; b" (malloc'ed, "" for none); NULL when out of memory. */
char *gs_advise_conds_text(const struct gs_cond *c, size_t n);

/* Why row r of block b lost, in a few words, into buf (empty for the best and its ties). */
char *gs_advise_reason(const struct gs_advise *a, const struct gs_advise_spec *spec, size_t b,
		       const struct gs_decide_row *r, char *buf, size_t len);

#endif
