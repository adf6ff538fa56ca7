/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cjson.c - cJSON parsing behind one lock (see cjson.h).
 */
#include "io/cjson.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set for good by the first cJSON allocation that fails (workers of a sweep allocate too). */
static atomic_bool cjson_oom;

void gs_cjson_note_oom(void)
{
	atomic_store(&cjson_oom, true);
}

bool gs_cjson_oom(void)
{
	return atomic_load(&cjson_oom);
}

cJSON *gs_cjson_parse(const char *text, size_t len, size_t *err_off_out)
{
	const char *end = NULL;
	size_t off;
	cJSON *root;

	pthread_mutex_lock(&parse_lock);
	/* Counting the NUL lets cJSON point at the very end of a truncated text. */
	root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	pthread_mutex_unlock(&parse_lock);
	off = end && end >= text ? (size_t)(end - text) : 0;
	if (off > len)
		off = len;
	if (root) {
		/* Only whitespace may follow the value. */
		while (off < len && strchr(" \t\r\n", text[off]) && text[off] != '\0')
			off++;
		if (off == len)
			return root;
		cJSON_Delete(root);
		root = NULL;
	}
	if (err_off_out)
		*err_off_out = off;
	return NULL;
}

cJSON *gs_cjson_add_number(cJSON *o, const char *key, double v)
{
	if (!isfinite(v))
		return cJSON_AddNullToObject(o, key);
	return cJSON_AddNumberToObject(o, key, v);
}
