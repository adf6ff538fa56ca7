/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.h - the --json output of replay, sweep and policies: one object
 * per run whose keys are the run_summary columns (results/SCHEMA.md), null
 * where the column is NULL, built either from a finished simulation or
 * from a stored run.
 */
#ifndef GS_JSON_OUT_H
#define GS_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "engine/replay.h"
#include "store/results.h"

/*
 * Installs the cJSON allocator of gpusim, once, before any cJSON call and
 * any thread: plain malloc and free, which also notes for good that an
 * allocation failed (gs_json_oom()). In a test build (GS_TEST_HOOKS, set
 * when BUILD_TESTING is on), GS_TEST_JSON_FAIL_AT=N in the environment
 * makes cJSON allocation number N (from 0) fail, and only that one, to
 * test that path.
 */
void gs_json_init(void);

/*
 * Whether a cJSON allocation has failed since gs_json_init(): a document
 * built since then may lack fields or rows (cJSON_Add* and cJSON_Create*
 * return NULL, and adding NULL adds nothing), so it must not be printed.
 */
bool gs_json_oom(void);

/*
 * The object of a run that just finished: policy, the summary s of sim
 * (gs_sim_summarize()), pods_path (its file name is pods_file), params_json
 * (parsed into "params"), run_id (null when 0: not stored) and wall_ms.
 * Returns a new object (caller deletes) or NULL when out of memory, now
 * or earlier (gs_json_oom()).
 */
cJSON *gs_json_run_summary(const char *policy, const struct gs_sim *sim,
			   const struct gs_summary *s, const char *pods_path,
			   const char *params_json, int64_t run_id, double wall_ms);

/* The object of a stored run, from its row: a new object, or NULL when gs_json_oom(). */
cJSON *gs_json_run_row(const struct gs_run_row *r);

/*
 * A number column of a stored run as --json writes it: key is the
 * run_summary column's name, and struct gs_run_row's double field of the
 * same name is at offset. GS_JSON_ROW_NUM(F) makes the entry of field F and
 * fails to compile when F is not a double.
 */
struct gs_json_row_num {
	const char *key;
	size_t offset;
};
#define GS_JSON_ROW_NUM(F)                     \
	{ #F, offsetof(struct gs_run_row, F) +  \
		      0 * sizeof((double *)0 == &((struct gs_run_row *)0)->F) }

/* Adds the n columns k of row r to object o, in that order (NAN is null). */
void gs_json_add_row_nums(cJSON *o, const struct gs_run_row *r, const struct gs_json_row_num *k,
			  size_t n);

/*
 * Adds key: v to object o as an exact JSON integer. A double, which
 * cJSON_AddNumberToObject() stores, holds integers exactly only up to
 * 2^53, and a seed can be larger (replay --seed takes up to 2^63 - 1), so
 * larger values are written as their decimal digits. Returns false when
 * out of memory.
 */
bool gs_json_add_u64(cJSON *o, const char *key, uint64_t v);

/*
 * Prints root (an array, usually) on stdout, deletes it and returns 0; or
 * deletes it, prints "gpusim CMD: out of memory" on stderr, nothing on
 * stdout, and returns 1 when root is NULL, cannot be printed, or a cJSON
 * allocation has failed since gs_json_init() (gs_json_oom(): the document
 * may lack fields or rows). Every --json output goes through here.
 */
int gs_json_print(const char *cmd, cJSON *root);

#endif
