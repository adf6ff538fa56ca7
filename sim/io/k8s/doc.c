/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doc.c - YAML (libyaml events) and JSON (cJSON) into gs_kdoc trees.
 *
 * Trees are built in an arena of chunks. A List's items are handed to the
 * callback as each one closes and their memory is given back at once, so
 * reading a snapshot costs one item's tree at a time, whatever its size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/csv.h"
#include "io/cjson.h"
#include "io/k8s/arena.h"
#include "io/k8s/doc.h"
#include "io/trace/internal.h"

static struct gs_kdoc *node_new(struct gs_arena *a, enum gs_kdoc_kind kind, int32_t line)
{
	struct gs_kdoc *d = gs_arena_alloc(a, sizeof(*d));

	if (d) {
		memset(d, 0, sizeof(*d));
		d->kind = (uint8_t)kind;
		d->line = line;
		d->str = "";
	}
	return d;
}

/* --- lookups ----------------------------------------------------------------- */

const struct gs_kdoc *gs_kdoc_get(const struct gs_kdoc *m, const char *key)
{
	const struct gs_kdoc *c;

	if (!m || m->kind != GS_KDOC_MAP)
		return NULL;
	for (c = m->child; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const char *gs_kdoc_str(const struct gs_kdoc *m, const char *key)
{
	const struct gs_kdoc *c = gs_kdoc_get(m, key);

	return c && c->kind == GS_KDOC_STR ? c->str : NULL;
}

const struct gs_kdoc *gs_kdoc_path(const struct gs_kdoc *m, const char *path)
{
	char part[128];

	while (m && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(part))
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		m = gs_kdoc_get(m, part);
		path += n + (path[n] == '.');
	}
	return m;
}

const char *gs_kdoc_kind_str(const struct gs_kdoc *d)
{
	switch (d ? d->kind : GS_KDOC_NULL) {
	case GS_KDOC_STR:
		return "a scalar";
	case GS_KDOC_MAP:
		return "a map";
	case GS_KDOC_SEQ:
		return "a list";
	default:
		return "null";
	}
}

/* --- shared by both readers -------------------------------------------------- */

struct reader {
	const char *file;
	gs_kdoc_fn fn;
	void *arg;
	struct gs_arena arena;
	char *err;
	size_t err_len;
	int doc;
};

/* The end of a document's root: a List's kind is checked, an object is handed over. */
static int root_done(struct reader *r, const struct gs_kdoc *root, bool had_items)
{
	const char *kind;
	size_t n;

	if (!root || root->kind == GS_KDOC_NULL)
		return 0;
	if (root->kind != GS_KDOC_MAP) {
		gs_errf(r->err, r->err_len, "%s:%d: document %d is %s, not a Kubernetes object",
			r->file, root->line > 0 ? root->line : 1, r->doc + 1, gs_kdoc_kind_str(root));
		return GS_EPARSE;
	}
	kind = gs_kdoc_str(root, "kind");
	if (!had_items)
		return r->fn(r->arg, root, -1, r->doc);
	n = kind ? strlen(kind) : 0;
	if (n < 4 || strcmp(kind + n - 4, "List") != 0) {
		char line[24] = "";

		if (root->line > 0)
			snprintf(line, sizeof(line), ":%d", (int)root->line);
		gs_errf(r->err, r->err_len, "%s%s: an object with 'items' must be a List (kind "
			"List or <Kind>List), not %s%s%s", r->file, line, kind ? "'" : "",
			kind ? kind : "one without a kind", kind ? "'" : "");
		gs_csv_msg_clean(r->err);
		return GS_EPARSE;
	}
	return 0;
}

/* --- YAML ---------------------------------------------------------------- */

#define DEPTH_MAX 128

struct frame {
	struct gs_kdoc *node;
	struct gs_kdoc *last;      /* last linked child */
	const char *key;           /* map: the key waiting for its value */
	int32_t key_line;
	bool stream;               /* the root's "items": children go to the callback */
	struct gs_arena_mark mark;          /* arena before the current streamed item */
};

struct ybuild {
	struct reader *r;
	struct frame st[DEPTH_MAX];
	int depth;
	struct gs_kdoc *root;
	bool had_items;
};

static int yerr(struct ybuild *b, int32_t line, const char *what)
{
	gs_errf(b->r->err, b->r->err_len, "%s:%d: %s", b->r->file, line, what);
	gs_csv_msg_clean(b->r->err);
	return GS_EPARSE;
}

/* Places a finished value v (a scalar or a just-opened container) in the open container. */
static int yplace(struct ybuild *b, struct gs_kdoc *v)
{
	struct frame *f;
	struct gs_kdoc *c;

	if (b->depth == 0) {
		b->root = v;
		return 0;
	}
	f = &b->st[b->depth - 1];
	if (f->node->kind == GS_KDOC_MAP) {
		if (!f->key) {
			/* v is a key. */
			if (v->kind == GS_KDOC_MAP || v->kind == GS_KDOC_SEQ)
				return yerr(b, v->line, "a map or list used as a key");
			if (strcmp(v->str, "<<") == 0 && !v->quoted)
				return yerr(b, v->line, "YAML merge keys ('<<') are not supported: "
							"spell the object out");
			for (c = f->node->child; c; c = c->next)
				if (strcmp(c->key, v->str) == 0) {
					char msg[160];

					snprintf(msg, sizeof(msg), "duplicate key '%.100s' (first on line "
						 "%d)", v->str, c->line);
					return yerr(b, v->line, msg);
				}
			f->key = v->str;
			f->key_line = v->line;
			return 0;
		}
		v->key = f->key;
		f->key = NULL;
	}
	if (f->stream) {
		/* Linked by nobody: handed to the callback when it closes. */
		if (v->kind != GS_KDOC_MAP)
			return yerr(b, v->line, "a List item that is not an object");
		return 0;
	}
	if (f->last)
		f->last->next = v;
	else
		f->node->child = v;
	f->last = v;
	f->node->n++;
	return 0;
}

static int yscalar(struct ybuild *b, const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	struct gs_kdoc *v;
	bool null = plain && (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
			      strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0);
	/* A key is never null: `~: 1` is a key called "~". */
	bool is_key = b->depth > 0 && b->st[b->depth - 1].node->kind == GS_KDOC_MAP &&
		      !b->st[b->depth - 1].key;

	v = node_new(&b->r->arena, null && !is_key ? GS_KDOC_NULL : GS_KDOC_STR,
		     (int32_t)ev->start_mark.line + 1);
	if (!v)
		return GS_ENOMEM;
	v->quoted = !plain;
	if (!(null && !is_key) && !(v->str = gs_arena_strndup(&b->r->arena, s, len)))
		return GS_ENOMEM;
	if (memchr(s, '\0', len))
		return yerr(b, v->line, "NUL byte in a value (is this a text file?)");
	return yplace(b, v);
}

static int yopen(struct ybuild *b, const yaml_event_t *ev, enum gs_kdoc_kind kind)
{
	struct frame *parent = b->depth ? &b->st[b->depth - 1] : NULL;
	struct gs_arena_mark m = gs_arena_mark(&b->r->arena);
	struct gs_kdoc *v;
	struct frame *f;
	int rc;

	if (b->depth == DEPTH_MAX)
		return yerr(b, (int32_t)ev->start_mark.line + 1, "nested deeper than 128 levels");
	v = node_new(&b->r->arena, kind, (int32_t)ev->start_mark.line + 1);
	if (!v)
		return GS_ENOMEM;
	rc = yplace(b, v);
	if (rc)
		return rc;
	f = &b->st[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = v;
	f->mark = m;
	/* The root map's "items" list streams its elements. */
	if (kind == GS_KDOC_SEQ && b->depth == 2 && v->key && strcmp(v->key, "items") == 0 &&
	    parent && parent->node == b->root) {
		f->stream = true;
		b->had_items = true;
	}
	return 0;
}

static int yclose(struct ybuild *b)
{
	struct frame *f = &b->st[--b->depth];
	struct frame *parent = b->depth ? &b->st[b->depth - 1] : NULL;
	struct reader *r = b->r;
	int rc;

	if (parent && parent->stream) {
		rc = r->fn(r->arg, f->node, parent->node->n++, r->doc);
		gs_arena_reset(&r->arena, f->mark);
		return rc;
	}
	return 0;
}

static int read_yaml(struct reader *r, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ybuild *b = calloc(1, sizeof(*b));
	int rc = 0;
	bool done = false;

	if (!b)
		return GS_ENOMEM;
	b->r = r;
	if (!yaml_parser_initialize(&parser)) {
		free(b);
		return GS_ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_MEMORY_ERROR) {
				rc = GS_ENOMEM;
				break;
			}
			gs_errf(r->err, r->err_len, "%s:%lu: column %lu: YAML syntax error: %s%s%s",
				r->file, (unsigned long)parser.problem_mark.line + 1,
				(unsigned long)parser.problem_mark.column + 1,
				parser.problem ? parser.problem : "malformed",
				parser.context ? " " : "", parser.context ? parser.context : "");
			rc = GS_EPARSE;
			break;
		}
		switch (ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			b->root = NULL;
			b->had_items = false;
			break;
		case YAML_DOCUMENT_END_EVENT:
			rc = root_done(r, b->root, b->had_items);
			gs_arena_reset(&r->arena, (struct gs_arena_mark){ NULL, 0 });
			b->root = NULL;
			r->doc++;
			break;
		case YAML_SCALAR_EVENT:
			rc = yscalar(b, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			rc = yopen(b, &ev, GS_KDOC_SEQ);
			break;
		case YAML_MAPPING_START_EVENT:
			rc = yopen(b, &ev, GS_KDOC_MAP);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = yclose(b);
			break;
		case YAML_ALIAS_EVENT:
			rc = yerr(b, (int32_t)ev.start_mark.line + 1,
				  "YAML aliases ('*name') are not supported: spell the value out");
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	gs_arena_reset(&r->arena, (struct gs_arena_mark){ NULL, 0 });
	free(b);
	return rc;
}

/* --- JSON ---------------------------------------------------------------- */

static struct gs_kdoc *from_cjson(struct gs_arena *a, const cJSON *j, int depth)
{
	struct gs_kdoc *d, *last = NULL;
	const cJSON *c;
	char num[40];

	if (depth > DEPTH_MAX)
		return NULL;
	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		d = node_new(a, cJSON_IsObject(j) ? GS_KDOC_MAP : GS_KDOC_SEQ, 0);
		if (!d)
			return NULL;
		cJSON_ArrayForEach(c, j) {
			struct gs_kdoc *v = from_cjson(a, c, depth + 1);

			if (!v)
				return NULL;
			if (d->kind == GS_KDOC_MAP && !(v->key = gs_arena_strndup(a, c->string,
									       strlen(c->string))))
				return NULL;
			if (last)
				last->next = v;
			else
				d->child = v;
			last = v;
			d->n++;
		}
		return d;
	}
	if (cJSON_IsNull(j))
		return node_new(a, GS_KDOC_NULL, 0);
	d = node_new(a, GS_KDOC_STR, 0);
	if (!d)
		return NULL;
	if (cJSON_IsString(j)) {
		d->quoted = 1;
		d->str = gs_arena_strndup(a, j->valuestring, strlen(j->valuestring));
	} else if (cJSON_IsBool(j)) {
		d->str = cJSON_IsTrue(j) ? "true" : "false";
	} else {
		double v = j->valuedouble;

		/* The range first: converting a double outside int64_t's is undefined. */
		if (v > -9.2e18 && v < 9.2e18 && v == (double)(int64_t)v)
			snprintf(num, sizeof(num), "%lld", (long long)v);
		else
			snprintf(num, sizeof(num), "%.17g", v);
		d->str = gs_arena_strndup(a, num, strlen(num));
	}
	return d->str ? d : NULL;
}

/* Duplicate keys: cJSON keeps both, Kubernetes' strict decoding refuses them. */
static const char *dup_key(const cJSON *j, int depth)
{
	const cJSON *c, *o;
	const char *k;

	if (depth > DEPTH_MAX)
		return NULL;
	cJSON_ArrayForEach(c, j) {
		if (cJSON_IsObject(j))
			for (o = c->next; o; o = o->next)
				if (strcmp(o->string, c->string) == 0)
					return c->string;
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && (k = dup_key(c, depth + 1)))
			return k;
	}
	return NULL;
}

static int json_object(struct reader *r, const cJSON *j, int64_t index)
{
	struct gs_kdoc *d;
	const char *k;
	int rc;

	if (!cJSON_IsObject(j)) {
		gs_errf(r->err, r->err_len, "%s: %s%lld is not a Kubernetes object", r->file,
			index >= 0 ? "items[" : "document ", (long long)(index >= 0 ? index : 1));
		if (index >= 0)
			strncat(r->err, "]", r->err_len - strlen(r->err) - 1);
		return GS_EPARSE;
	}
	if ((k = dup_key(j, 0))) {
		gs_errf(r->err, r->err_len, "%s: %s%lld%s: duplicate key '%s'", r->file,
			index >= 0 ? "items[" : "document ", (long long)(index >= 0 ? index : 1),
			index >= 0 ? "]" : "", k);
		return GS_EPARSE;
	}
	d = from_cjson(&r->arena, j, 0);
	if (!d) {
		gs_arena_reset(&r->arena, (struct gs_arena_mark){ NULL, 0 });
		return GS_ENOMEM;
	}
	rc = r->fn(r->arg, d, index, 0);
	gs_arena_reset(&r->arena, (struct gs_arena_mark){ NULL, 0 });
	return rc;
}

/* One past the end of the JSON value at t[i], or 0 when it is cut short. */
static size_t json_end(const char *t, size_t i, size_t len)
{
	int depth = 0;

	if (i >= len)
		return 0;
	if (t[i] == '{' || t[i] == '[') {
		for (; i < len; i++) {
			char ch = t[i];

			if (ch == '"') {
				for (i++; i < len && t[i] != '"'; i++)
					i += t[i] == '\\';
				if (i >= len)
					return 0;
			} else if (ch == '{' || ch == '[') {
				depth++;
			} else if ((ch == '}' || ch == ']') && --depth == 0) {
				return i + 1;
			}
		}
		return 0;
	}
	if (t[i] == '"') {
		for (i++; i < len && t[i] != '"'; i++)
			i += t[i] == '\\';
		return i < len ? i + 1 : 0;
	}
	while (i < len && !strchr(",}] \t\r\n", t[i]))
		i++;
	return i;
}

static size_t json_ws(const char *t, size_t i, size_t len)
{
	while (i < len && strchr(" \t\r\n", t[i]))
		i++;
	return i;
}

/*
 * A List object read item by item: each item is cut out of the text and
 * parsed by cJSON alone, so a large List never becomes one tree. Returns
 * 1 when the text is not a List this can walk (the caller parses it
 * whole, which also gives a syntax error its line), else 0 or an error.
 */
static int read_json_list(struct reader *r, const char *t, size_t len)
{
	char *scratch = NULL, kind[128] = "";
	size_t cap = 0, i = json_ws(t, 0, len), k;
	int64_t idx = 0;
	bool items = false;
	int rc = 0;

	if (i >= len || t[i] != '{')
		return 1;
	for (i = json_ws(t, i + 1, len); i < len && t[i] != '}';) {
		size_t ke = json_end(t, i, len), vs, ve;

		if (t[i] != '"' || !ke)
			goto whole;
		vs = json_ws(t, ke, len);
		if (vs >= len || t[vs] != ':')
			goto whole;
		vs = json_ws(t, vs + 1, len);
		if (ke - i == 7 && memcmp(t + i, "\"items\"", 7) == 0 && vs < len && t[vs] == '[') {
			items = true;
			for (k = json_ws(t, vs + 1, len); k < len && t[k] != ']';) {
				size_t e = json_end(t, k, len), off;
				cJSON *item;

				if (!e)
					goto whole;
				if (e - k + 1 > cap) {
					char *ns = gs_realloc_n(scratch, e - k + 1, 1);

					if (!ns) {
						free(scratch);
						return GS_ENOMEM;
					}
					scratch = ns;
					cap = e - k + 1;
				}
				memcpy(scratch, t + k, e - k);
				scratch[e - k] = '\0';
				item = gs_cjson_parse(scratch, e - k, &off);
				if (!item)
					goto whole;
				rc = json_object(r, item, idx++);
				cJSON_Delete(item);
				if (rc)
					goto out;
				k = json_ws(t, e, len);
				if (k < len && t[k] == ',')
					k = json_ws(t, k + 1, len);
				else if (k >= len || t[k] != ']')
					goto whole;
			}
			if (k >= len)
				goto whole;
			ve = k + 1;
		} else if (!(ve = json_end(t, vs, len))) {
			goto whole;
		} else if (ke - i == 6 && memcmp(t + i, "\"kind\"", 6) == 0 && t[vs] == '"' &&
			   ve - vs - 2 < sizeof(kind)) {
			memcpy(kind, t + vs + 1, ve - vs - 2);
			kind[ve - vs - 2] = '\0';
		}
		i = json_ws(t, ve, len);
		if (i < len && t[i] == ',')
			i = json_ws(t, i + 1, len);
		else if (i >= len || t[i] != '}')
			goto whole;
	}
	if (i >= len || json_ws(t, i + 1, len) != len || !items)
		goto whole;
	{
		struct gs_kdoc fake, kd;

		memset(&fake, 0, sizeof(fake));
		memset(&kd, 0, sizeof(kd));
		fake.kind = GS_KDOC_MAP;
		kd.kind = GS_KDOC_STR;
		kd.key = "kind";
		kd.str = kind;
		if (*kind)
			fake.child = &kd;
		rc = root_done(r, &fake, true);
	}
out:
	free(scratch);
	return rc;
whole:
	free(scratch);
	if (idx == 0)
		return 1;
	/* Items were handed over already: the whole parse can only say what is wrong. */
	{
		cJSON *root = gs_trace_json_parse(r->file, t, len, r->err, r->err_len);

		if (root) {
			cJSON_Delete(root);
			gs_errf(r->err, r->err_len, "%s: a List gpusim cannot read item by item",
				r->file);
		}
	}
	return gs_cjson_oom() ? GS_ENOMEM : GS_EPARSE;
}

static int read_json(struct reader *r, const char *text, size_t len)
{
	cJSON *root, *items, *it;
	int64_t i = 0;
	int rc = read_json_list(r, text, len);

	if (rc != 1)
		return rc;
	rc = 0;
	root = gs_trace_json_parse(r->file, text, len, r->err, r->err_len);
	if (!root)
		return gs_cjson_oom() ? GS_ENOMEM : GS_EPARSE;
	items = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "items") : NULL;
	if (cJSON_IsArray(root)) {
		/* A bare array of objects: each one on its own. */
		cJSON_ArrayForEach(it, root) {
			rc = json_object(r, it, i++);
			if (rc)
				break;
		}
	} else if (cJSON_IsArray(items)) {
		cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
		struct gs_kdoc fake;

		memset(&fake, 0, sizeof(fake));
		fake.kind = GS_KDOC_MAP;
		/* Items are converted, handed over and freed one at a time. */
		while (rc == 0 && (it = items->child)) {
			cJSON_DetachItemViaPointer(items, it);
			rc = json_object(r, it, i++);
			cJSON_Delete(it);
		}
		if (rc == 0) {
			struct gs_kdoc k;

			memset(&k, 0, sizeof(k));
			k.kind = GS_KDOC_STR;
			k.key = "kind";
			k.str = cJSON_IsString(kind) ? kind->valuestring : "";
			if (cJSON_IsString(kind))
				fake.child = &k;
			rc = root_done(r, &fake, true);
		}
	} else {
		rc = json_object(r, root, -1);
	}
	cJSON_Delete(root);
	return rc;
}

int gs_kdoc_read(const char *file, const char *text, size_t len, gs_kdoc_fn fn, void *arg,
		 char *err, size_t err_len)
{
	struct reader r = { .file = file, .fn = fn, .arg = arg, .err = err, .err_len = err_len };
	size_t i, n = strlen(file);
	int rc;

	for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
		;
	if (i == len) {
		gs_errf(err, err_len, "%s: empty file", file);
		return GS_EPARSE;
	}
	if ((n >= 5 && strcmp(file + n - 5, ".json") == 0) || text[i] == '{' || text[i] == '[')
		rc = read_json(&r, text, len);
	else
		rc = read_yaml(&r, text, len);
	gs_arena_reset(&r.arena, (struct gs_arena_mark){ NULL, 0 });
	/* A value quoted in a message never breaks it over lines. */
	if (rc)
		gs_csv_msg_clean(err);
	return rc;
}
