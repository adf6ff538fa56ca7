/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doc.h - Kubernetes objects as read from `kubectl get -o yaml|json` and
 * from manifests: one small tree per object, handed to a callback.
 *
 * YAML goes through libyaml's event parser, JSON through cJSON (io/cjson.h);
 * both become the same tree of maps, sequences and scalars, so the mapping
 * code (read.c) is written once. Scalars stay text: Kubernetes decodes
 * each field by its schema type, so "0x10", "yes" or "1e3" mean what the
 * field says, not what YAML 1.1 would guess. YAML nodes keep their line.
 *
 * A file holds one object, a List (kind List or <Kind>List, the objects
 * under "items"), or several YAML documents of either. Lists are
 * streamed: each item's tree lives only while its callback runs, so a
 * 100,000-pod `kubectl get pods -o yaml` never sits in memory as a tree.
 * Refused, with file and line: malformed YAML or JSON, aliases and merge
 * keys (never in kubectl output; a manifest must spell the object out),
 * duplicate keys, a document that is not an object, items outside a List.
 *
 * Ownership: trees belong to the reader and die when the callback
 * returns; callbacks copy what they keep.
 */
#ifndef GS_K8S_DOC_H
#define GS_K8S_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gs_kdoc_kind {
	GS_KDOC_NULL = 0,   /* null, ~ or an empty value */
	GS_KDOC_STR,        /* any scalar: string, number or boolean, as text */
	GS_KDOC_MAP,
	GS_KDOC_SEQ,
};

/* One node of an object's tree. */
struct gs_kdoc {
	uint8_t kind;            /* enum gs_kdoc_kind */
	uint8_t quoted;          /* scalar: a quoted YAML scalar or a JSON string */
	int32_t line;            /* 1-based line in the file; 0 when unknown (JSON) */
	int32_t n;               /* children of a map or sequence */
	const char *key;         /* the key in the parent map, NULL elsewhere */
	const char *str;         /* scalar text ("" for null) */
	struct gs_kdoc *child;   /* first child, in file order */
	struct gs_kdoc *next;    /* next sibling */
};

/*
 * Called once per object: obj is a map; index is its position in the
 * List it came from, -1 for an object of its own; doc the document's
 * number in the file (0-based). Returns 0 to go on, anything else stops
 * the read and is returned by gs_kdoc_read().
 */
typedef int (*gs_kdoc_fn)(void *arg, const struct gs_kdoc *obj, int64_t index, int doc);

/*
 * Reads the len bytes of text (file name for messages; JSON when the name
 * ends in ".json" or the first non-blank byte is '{' or '[', else YAML)
 * and calls fn for every object. Returns 0, fn's non-zero value, GS_EPARSE
 * with "file:line: reason" in err, or GS_ENOMEM.
 */
int gs_kdoc_read(const char *file, const char *text, size_t len, gs_kdoc_fn fn, void *arg,
		 char *err, size_t err_len);

/* The child of map m called key, or NULL (also when m is not a map). */
const struct gs_kdoc *gs_kdoc_get(const struct gs_kdoc *m, const char *key);

/* The scalar text of the child key of m, or NULL when absent, null or not a scalar. */
const char *gs_kdoc_str(const struct gs_kdoc *m, const char *key);

/* The node at a dotted path of map keys ("spec.template.spec"), or NULL. */
const struct gs_kdoc *gs_kdoc_path(const struct gs_kdoc *m, const char *path);

/* A static word for the node's kind: "a map", "a list", "a scalar", "null". */
const char *gs_kdoc_kind_str(const struct gs_kdoc *d);

#endif
