/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cjson.h - the one way gpusim parses JSON text with cJSON, and the one
 * way it writes a number that may be missing.
 *
 * cJSON remembers where the last parse failed in a process-wide variable
 * that every parse writes, cJSON_ParseWithLengthOpts() included, even when
 * it succeeds and even when the caller asks for the position itself. Two
 * threads parsing at once (sweep workers storing runs) race on it
 * (helgrind). Every parse therefore goes through this function, which
 * holds one lock for the parse and returns the error position to its
 * caller, so nothing reads cJSON's global state.
 */
#ifndef GS_CJSON_H
#define GS_CJSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Parses the len bytes of text, which must be followed by a NUL
 * (text[len] == '\0'); whitespace may follow the value, anything else,
 * a NUL inside the text included, is an error. Returns the tree (caller frees it
 * with cJSON_Delete()) or NULL; then *err_off_out (may be NULL) is the
 * offset, at most len, near which parsing stopped. Thread-safe.
 */
cJSON *gs_cjson_parse(const char *text, size_t len, size_t *err_off_out);

/*
 * Adds key: v to object o, or key: null when v is not finite (NAN: no
 * value; JSON has no infinities). Returns the item added, or NULL when
 * out of memory (gs_cjson_oom() then says so for good).
 */
cJSON *gs_cjson_add_number(cJSON *o, const char *key, double v);

/*
 * Notes for good that a cJSON allocation failed: the allocator installed
 * with cJSON_InitHooks() (gpusim's, cli/json_out.h) calls it. Thread-safe.
 */
void gs_cjson_note_oom(void);

/*
 * Whether gs_cjson_note_oom() was ever called: a NULL from gs_cjson_parse()
 * may then be an allocation failure, not bad text. Thread-safe.
 */
bool gs_cjson_oom(void);

#endif
