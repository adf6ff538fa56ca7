/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.c - reading files into a snapshot (dispatch by kind), the field
 * readers every kind shares, and the cross-object checks of
 * gs_k8s_snapshot_finish().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "io/civil.h"
#include "io/csv.h"
#include "io/k8s/cel.h"
#include "io/k8s/snapshot_internal.h"

/* --- messages ----------------------------------------------------------------- */

char *gs_k8s_origin_format(const struct gs_k8s_origin *o, char *buf, size_t len)
{
	char line[24] = "";

	if (o->line > 0)
		snprintf(line, sizeof(line), ":%d", (int)o->line);
	snprintf(buf, len, "%s%s: %s %s%s%s", o->file ? o->file : "-", line, o->kind,
		 o->ns && *o->ns ? o->ns : "", o->ns && *o->ns ? "/" : "", o->name ? o->name : "");
	return buf;
}

static int verrf(char *err, size_t err_len, const struct gs_k8s_origin *o, const char *field,
		 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static int verrf(char *err, size_t err_len, const struct gs_k8s_origin *o, const char *field,
		 const char *fmt, va_list ap)
{
	char where[512], msg[768];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	gs_k8s_origin_format(o, where, sizeof(where));
	if (field && *field)
		gs_errf(err, err_len, "%s: %s: %s", where, field, msg);
	else
		gs_errf(err, err_len, "%s: %s", where, msg);
	gs_csv_msg_clean(err);
	return GS_EPARSE;
}

int gs_k8s_errf(char *err, size_t err_len, const struct gs_k8s_origin *o, const char *field,
		const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verrf(err, err_len, o, field, fmt, ap);
	va_end(ap);
	return rc;
}

/* Appends s to buf (len bytes, *n used), cut to fit. */
static void put(char *buf, size_t len, size_t *n, const char *s)
{
	size_t k = strlen(s);

	if (*n + 1 >= len)
		return;
	if (k > len - 1 - *n)
		k = len - 1 - *n;
	memcpy(buf + *n, s, k);
	*n += k;
	buf[*n] = '\0';
}

static void path_put(const struct gs_k8s_path *p, char *buf, size_t len, size_t *n)
{
	char num[24];

	if (!p)
		return;
	path_put(p->up, buf, len, n);
	switch (p->step) {
	case GS_K8S_STEP_DOT:
		if (p->up)
			put(buf, len, n, ".");
		put(buf, len, n, p->name);
		break;
	case GS_K8S_STEP_KEY:
		put(buf, len, n, "[");
		put(buf, len, n, p->name);
		put(buf, len, n, "]");
		break;
	case GS_K8S_STEP_INDEX:
		snprintf(num, sizeof(num), "[%lld]", (long long)p->index);
		put(buf, len, n, num);
		break;
	default:
		break;
	}
}

char *gs_k8s_path_format(const struct gs_k8s_path *p, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	path_put(p, buf, len, &n);
	return buf;
}

int gs_k8s_refuse(const struct gs_k8s_rctx *c, const struct gs_kdoc *at,
		  const struct gs_k8s_path *field, const char *fmt, ...)
{
	struct gs_k8s_origin o = c->o;
	char f[512];
	va_list ap;
	int rc;

	if (at && at->line > 0)
		o.line = at->line;
	gs_k8s_path_format(field, f, sizeof(f));
	va_start(ap, fmt);
	rc = verrf(c->err, c->err_len, &o, f, fmt, ap);
	va_end(ap);
	return rc;
}

/* The path a getter names: parent.key, or parent itself when it is a GS_K8S_SELF path. */
static const struct gs_k8s_path *child_of(const struct gs_k8s_path *parent, const char *key,
					  struct gs_k8s_path *buf)
{
	if (parent && parent->step == GS_K8S_STEP_SELF)
		return parent->up;
	*buf = (struct gs_k8s_path){ parent, key, 0, GS_K8S_STEP_DOT };
	return buf;
}

int gs_k8s_oom(const struct gs_k8s_rctx *c)
{
	gs_errf(c->err, c->err_len, "%s: out of memory", c->o.file ? c->o.file : "snapshot");
	return GS_ENOMEM;
}

const char *gs_k8s_str(struct gs_k8s_rctx *c, const char *s)
{
	return gs_strpool_get(&c->s->pool, s);
}

void *gs_k8s_alloc(struct gs_k8s_rctx *c, size_t n, size_t size)
{
	return gs_arena_calloc(&c->s->arena, n ? n : 1, size);
}

/* --- field readers -------------------------------------------------------------- */

static int get_kind(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, enum gs_kdoc_kind kind,
		    const struct gs_kdoc **out)
{
	const struct gs_kdoc *v = gs_kdoc_get(m, key);
	const char *want = kind == GS_KDOC_MAP ? "a map" : kind == GS_KDOC_SEQ ? "a list" : "a string";
	struct gs_k8s_path f;

	*out = NULL;
	if (!v || v->kind == GS_KDOC_NULL)
		return 0;
	if (v->kind != kind)
		return gs_k8s_refuse(c, v, child_of(parent, key, &f), "is %s, not %s",
				     gs_kdoc_kind_str(v), want);
	*out = v;
	return 0;
}

int gs_k8s_get_str(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const char **out)
{
	const struct gs_kdoc *v;
	int rc = get_kind(c, m, key, parent, GS_KDOC_STR, &v);

	*out = NULL;
	if (rc || !v)
		return rc;
	if (!(*out = gs_k8s_str(c, v->str)))
		return gs_k8s_oom(c);
	return 0;
}

int gs_k8s_get_map(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const struct gs_kdoc **out)
{
	return get_kind(c, m, key, parent, GS_KDOC_MAP, out);
}

int gs_k8s_get_seq(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const struct gs_kdoc **out)
{
	return get_kind(c, m, key, parent, GS_KDOC_SEQ, out);
}

int gs_k8s_need_str(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, const char **out)
{
	int rc = gs_k8s_get_str(c, m, key, parent, out);
	struct gs_k8s_path f;

	if (!rc && (!*out || !**out))
		return gs_k8s_refuse(c, m, child_of(parent, key, &f), "missing");
	return rc;
}

int gs_k8s_need_map(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, const struct gs_kdoc **out)
{
	int rc = get_kind(c, m, key, parent, GS_KDOC_MAP, out);
	struct gs_k8s_path f;

	if (!rc && !*out)
		return gs_k8s_refuse(c, m, child_of(parent, key, &f), "missing");
	return rc;
}

int gs_k8s_read_items(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
		      const struct gs_k8s_path *field,
		      const char *what, size_t size, gs_k8s_item_fn fn, void *arg, void **out,
		      int32_t *n_out)
{
	const struct gs_kdoc *t;
	char *items;
	int32_t i = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	if (!seq || !seq->n)
		return 0;
	items = gs_k8s_alloc(c, (size_t)seq->n, size);
	if (!items)
		return gs_k8s_oom(c);
	for (t = seq->child; t; t = t->next, i++) {
		const struct gs_k8s_path *f = GS_K8S_INDEX(field, i);

		if (what && t->kind != GS_KDOC_MAP)
			return gs_k8s_refuse(c, t, f, "is %s, not %s", gs_kdoc_kind_str(t), what);
		if ((rc = fn(c, t, f, items + (size_t)i * size, arg)))
			return rc;
	}
	*out = items;
	*n_out = i;
	return 0;
}

int gs_k8s_get_int(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, int64_t lo, int64_t hi, int64_t *out)
{
	const struct gs_kdoc *v = gs_kdoc_get(m, key);
	const struct gs_k8s_path *field;
	struct gs_k8s_path f;
	char *end;
	long long x;

	if (!v || v->kind == GS_KDOC_NULL)
		return 0;
	field = child_of(parent, key, &f);
	if (v->kind != GS_KDOC_STR || v->quoted)
		return gs_k8s_refuse(c, v, field, "is %s, not an integer",
				     v->kind == GS_KDOC_STR ? "a string" : gs_kdoc_kind_str(v));
	x = strtoll(v->str, &end, 10);
	if (!*v->str || *end || strchr(" \t+", *v->str))
		return gs_k8s_refuse(c, v, field, "'%s' is not an integer", v->str);
	if (x < lo || x > hi)
		return gs_k8s_refuse(c, v, field, "%s is out of range (%lld to %lld)", v->str,
				     (long long)lo, (long long)hi);
	*out = x;
	return 0;
}

int gs_k8s_get_bool(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, bool *out)
{
	const struct gs_kdoc *v = gs_kdoc_get(m, key);
	struct gs_k8s_path f;

	if (!v || v->kind == GS_KDOC_NULL)
		return 0;
	if (v->kind == GS_KDOC_STR && !v->quoted && strcmp(v->str, "true") == 0)
		*out = true;
	else if (v->kind == GS_KDOC_STR && !v->quoted && strcmp(v->str, "false") == 0)
		*out = false;
	else
		return gs_k8s_refuse(c, v, child_of(parent, key, &f),
				     "'%s' is not a boolean (true or false)",
				     v->kind == GS_KDOC_STR ? v->str : gs_kdoc_kind_str(v));
	return 0;
}

int gs_k8s_quantity(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		    const struct gs_k8s_path *field, struct gs_quantity *out)
{
	const char *why;
	int rc;

	if (!v || v->kind != GS_KDOC_STR)
		return gs_k8s_refuse(c, v, field, "is %s, not a quantity", gs_kdoc_kind_str(v));
	rc = gs_quantity_parse(v->str, out, &why);
	if (rc)
		return gs_k8s_refuse(c, v, field, "'%s' %s (a quantity is a number with an optional "
				     "suffix: 500m, 2, 1.5Gi, 64Mi, 1e3)", v->str, why);
	return 0;
}

int gs_k8s_get_kv(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		  const struct gs_k8s_path *parent, struct gs_k8s_kv **kv_out, int32_t *n_out)
{
	const struct gs_kdoc *map, *v;
	struct gs_k8s_path f;
	int32_t i = 0;
	int rc;

	*kv_out = NULL;
	*n_out = 0;
	if ((rc = gs_k8s_get_map(c, m, key, parent, &map)) || !map || !map->n)
		return rc;
	*kv_out = gs_k8s_alloc(c, (size_t)map->n, sizeof(**kv_out));
	if (!*kv_out)
		return gs_k8s_oom(c);
	for (v = map->child; v; v = v->next, i++) {
		if (v->kind == GS_KDOC_MAP || v->kind == GS_KDOC_SEQ)
			return gs_k8s_refuse(c, v, GS_K8S_KEY(child_of(parent, key, &f), v->key),
					     "is %s, not a string", gs_kdoc_kind_str(v));
		(*kv_out)[i].key = gs_k8s_str(c, v->key);
		(*kv_out)[i].value = gs_k8s_str(c, v->str);
		if (!(*kv_out)[i].key || !(*kv_out)[i].value)
			return gs_k8s_oom(c);
	}
	*n_out = i;
	return 0;
}

static const char *const ops[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };

static int read_expr(struct gs_k8s_rctx *c, const struct gs_kdoc *e,
		     const struct gs_k8s_path *field, struct gs_k8s_expr *x)
{
	const struct gs_k8s_path *f = GS_K8S_DOT(field, "values");
	const struct gs_kdoc *vals, *v;
	const char *op;
	int32_t i = 0;
	int rc, k;

	if (e->kind != GS_KDOC_MAP)
		return gs_k8s_refuse(c, e, field, "is %s, not a requirement", gs_kdoc_kind_str(e));
	if ((rc = gs_k8s_need_str(c, e, "key", field, &x->key)))
		return rc;
	op = gs_kdoc_str(e, "operator");
	for (k = 0; op && k < 6 && strcmp(op, ops[k]) != 0; k++)
		;
	if (!op || k == 6)
		return gs_k8s_refuse(c, e, GS_K8S_DOT(field, "operator"), "'%s' is not an operator "
				     "(In, NotIn, Exists, DoesNotExist, Gt, Lt)", op ? op : "");
	x->op = (uint8_t)k;
	if ((rc = gs_k8s_get_seq(c, e, "values", field, &vals)))
		return rc;
	if (vals && vals->n) {
		x->values = gs_k8s_alloc(c, (size_t)vals->n, sizeof(*x->values));
		if (!x->values)
			return gs_k8s_oom(c);
		for (v = vals->child; v; v = v->next) {
			if (v->kind != GS_KDOC_STR)
				return gs_k8s_refuse(c, v, f, "a value is %s, not a string",
						     gs_kdoc_kind_str(v));
			if (!(x->values[i++] = gs_k8s_str(c, v->str)))
				return gs_k8s_oom(c);
		}
	}
	x->n_values = i;
	if ((x->op == GS_K8S_OP_IN || x->op == GS_K8S_OP_NOT_IN) && !i)
		return gs_k8s_refuse(c, e, f, "%s needs at least one value", ops[x->op]);
	if ((x->op == GS_K8S_OP_EXISTS || x->op == GS_K8S_OP_DOES_NOT_EXIST) && i)
		return gs_k8s_refuse(c, e, f, "%s takes no values", ops[x->op]);
	if (x->op == GS_K8S_OP_GT || x->op == GS_K8S_OP_LT) {
		char *end;

		if (i != 1)
			return gs_k8s_refuse(c, e, f, "%s takes exactly one value", ops[x->op]);
		(void)strtoll(x->values[0], &end, 10);
		if (!*x->values[0] || *end)
			return gs_k8s_refuse(c, e, f, "'%s' is not an integer", x->values[0]);
	}
	return 0;
}

int gs_k8s_read_terms(struct gs_k8s_rctx *c, const struct gs_kdoc *terms,
		      const struct gs_k8s_path *field, struct gs_k8s_selector *out)
{
	const struct gs_kdoc *t, *exprs, *e;
	int32_t i = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (terms->kind != GS_KDOC_SEQ)
		return gs_k8s_refuse(c, terms, field, "is %s, not a list", gs_kdoc_kind_str(terms));
	out->terms = gs_k8s_alloc(c, (size_t)terms->n, sizeof(*out->terms));
	if (!out->terms)
		return gs_k8s_oom(c);
	for (t = terms->child; t; t = t->next, i++) {
		struct gs_k8s_term *term = &out->terms[i];
		const struct gs_k8s_path *f = GS_K8S_INDEX(field, i);
		int32_t k = 0;

		if (t->kind != GS_KDOC_MAP)
			return gs_k8s_refuse(c, t, f, "is %s, not a term", gs_kdoc_kind_str(t));
		e = gs_kdoc_get(t, "matchFields");
		if (e && e->kind == GS_KDOC_SEQ && e->n)
			return GS_ENOENT;
		if ((rc = gs_k8s_get_seq(c, t, "matchExpressions", f, &exprs)))
			return rc;
		if (!exprs || !exprs->n)
			continue;
		term->exprs = gs_k8s_alloc(c, (size_t)exprs->n, sizeof(*term->exprs));
		if (!term->exprs)
			return gs_k8s_oom(c);
		for (e = exprs->child; e; e = e->next, k++)
			if ((rc = read_expr(c, e, GS_K8S_INDEX(GS_K8S_DOT(f, "matchExpressions"), k),
					    &term->exprs[k])))
				return rc;
		term->n = k;
	}
	out->n = i;
	return 0;
}

static int effect_of(const char *s, bool dra)
{
	if (!s || !*s)
		return GS_K8S_EFFECT_ANY;
	if (strcmp(s, "NoSchedule") == 0)
		return GS_K8S_EFFECT_NO_SCHEDULE;
	if (strcmp(s, "NoExecute") == 0)
		return GS_K8S_EFFECT_NO_EXECUTE;
	if (!dra && strcmp(s, "PreferNoSchedule") == 0)
		return GS_K8S_EFFECT_PREFER_NO_SCHEDULE;
	if (dra && strcmp(s, "None") == 0)
		return GS_K8S_EFFECT_NONE;
	return -1;
}

static int read_toleration(struct gs_k8s_rctx *c, const struct gs_kdoc *t,
			   const struct gs_k8s_path *field, void *elem, void *arg)
{
	struct gs_k8s_toleration *x = elem;
	const char *op = gs_kdoc_str(t, "operator"), *eff = gs_kdoc_str(t, "effect");
	int rc, e;

	(void)arg;
	if ((rc = gs_k8s_get_str(c, t, "key", GS_K8S_SELF(field), &x->key)) ||
	    (rc = gs_k8s_get_str(c, t, "value", GS_K8S_SELF(field), &x->value)))
		return rc;
	if (op && strcmp(op, "Exists") != 0 && strcmp(op, "Equal") != 0)
		return gs_k8s_refuse(c, t, GS_K8S_DOT(field, "operator"), "'%s' is not Exists or "
				     "Equal", op);
	x->exists = op && strcmp(op, "Exists") == 0;
	if ((e = effect_of(eff, false)) < 0)
		return gs_k8s_refuse(c, t, GS_K8S_DOT(field, "effect"), "'%s' is not a taint effect",
				     eff);
	x->effect = (uint8_t)e;
	if (!x->key)
		x->key = gs_k8s_str(c, "");
	if (!x->value)
		x->value = gs_k8s_str(c, "");
	return x->key && x->value ? 0 : gs_k8s_oom(c);
}

int gs_k8s_read_tolerations(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
			    const struct gs_k8s_path *field, struct gs_k8s_toleration **out,
			    int32_t *n_out)
{
	void *items;
	int rc = gs_k8s_read_items(c, seq, field, "a toleration", sizeof(**out), read_toleration,
				   NULL, &items, n_out);

	if (!rc && items)
		*out = items;
	return rc;
}

static int read_taint(struct gs_k8s_rctx *c, const struct gs_kdoc *t,
		      const struct gs_k8s_path *field, void *elem, void *arg)
{
	const bool *dra = arg;
	struct gs_k8s_taint *x = elem;
	const char *eff;
	int rc, e;

	if ((rc = gs_k8s_get_str(c, t, "key", GS_K8S_SELF(field), &x->key)) ||
	    (rc = gs_k8s_get_str(c, t, "value", GS_K8S_SELF(field), &x->value)) ||
	    (rc = gs_k8s_get_str(c, t, "effect", GS_K8S_SELF(field), &eff)))
		return rc;
	if (!x->key || !*x->key)
		return gs_k8s_refuse(c, t, field, "a taint needs a key");
	e = effect_of(eff, *dra);
	if (e <= 0)
		return gs_k8s_refuse(c, t, GS_K8S_DOT(field, "effect"), "'%s' is not a taint effect "
				     "(%s)", eff ? eff : "", *dra ? "None, NoSchedule or NoExecute"
				     : "NoSchedule, PreferNoSchedule or NoExecute");
	x->effect = (uint8_t)e;
	if (!x->value && !(x->value = gs_k8s_str(c, "")))
		return gs_k8s_oom(c);
	return 0;
}

int gs_k8s_read_taints(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
		       const struct gs_k8s_path *field, bool dra, struct gs_k8s_taint **out,
		       int32_t *n_out)
{
	void *items;
	int rc = gs_k8s_read_items(c, seq, field, "a taint", sizeof(**out), read_taint, &dra,
				   &items, n_out);

	if (!rc && items)
		*out = items;
	return rc;
}

/* n digits of s as a number, or -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int64_t gs_k8s_time(const char *s)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0;
	const char *p;
	int64_t t;

	y = digits(s, 4);
	if (y < 0 || s[4] != '-' || (mo = digits(s + 5, 2)) < 0 || s[7] != '-' ||
	    (d = digits(s + 8, 2)) < 0 || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    (h = digits(s + 11, 2)) < 0 || s[13] != ':' || (mi = digits(s + 14, 2)) < 0 ||
	    s[16] != ':' || (sec = digits(s + 17, 2)) < 0)
		return -1;
	p = s + 19;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		if ((oh = digits(p + 1, 2)) < 0 || p[3] != ':' || (om = digits(p + 4, 2)) < 0)
			return -1;
		if (*p == '-') {
			oh = -oh;
			om = -om;
		}
		p += 6;
	} else {
		return -1;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    y < 1970)
		return -1;
	t = gs_civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - oh * 3600 - om * 60;
	return t < 0 ? -1 : t;
}

/* --- dispatch ----------------------------------------------------------------------- */

struct kind_entry {
	const char *kind, *api;
	/* The kind's reader; NULL for kinds that are counted and skipped. */
	int (*read)(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
	bool cluster_scoped;
};

static const struct kind_entry kinds[] = {
	{ "Node", "v1", gs_k8s_read_node, true },
	{ "Pod", "v1", gs_k8s_read_pod, false },
	{ "ConfigMap", "v1", gs_k8s_read_configmap, false },
	{ "Deployment", "apps/v1", gs_k8s_read_workload, false },
	{ "StatefulSet", "apps/v1", gs_k8s_read_workload, false },
	{ "ReplicaSet", "apps/v1", gs_k8s_read_workload, false },
	{ "Job", "batch/v1", gs_k8s_read_workload, false },
	{ "ResourceSlice", "resource.k8s.io/v1", gs_k8s_read_slice, true },
	{ "DeviceClass", "resource.k8s.io/v1", gs_k8s_read_class, true },
	{ "ResourceClaim", "resource.k8s.io/v1", gs_k8s_read_claim, false },
	{ "ResourceClaimTemplate", "resource.k8s.io/v1", gs_k8s_read_template, false },
	/* In cluster dumps, no bearing on where pods fit: counted and reported. */
	{ "Namespace", NULL, NULL, true },
	{ "Service", NULL, NULL, false },
	{ "Endpoints", NULL, NULL, false },
	{ "EndpointSlice", NULL, NULL, false },
	{ "Secret", NULL, NULL, false },
	{ "ServiceAccount", NULL, NULL, false },
	{ "Event", NULL, NULL, false },
	{ "PersistentVolume", NULL, NULL, true },
	{ "PersistentVolumeClaim", NULL, NULL, false },
	{ "StorageClass", NULL, NULL, true },
	{ "DaemonSet", NULL, NULL, false },
	{ "CronJob", NULL, NULL, false },
	{ "ControllerRevision", NULL, NULL, false },
	{ "HorizontalPodAutoscaler", NULL, NULL, false },
	{ "PodDisruptionBudget", NULL, NULL, false },
	{ "PriorityClass", NULL, NULL, true },
	{ "Ingress", NULL, NULL, false },
	{ "NetworkPolicy", NULL, NULL, false },
	{ "LimitRange", NULL, NULL, false },
	{ "ResourceQuota", NULL, NULL, false },
	{ "Lease", NULL, NULL, false },
	{ "Role", NULL, NULL, false },
	{ "RoleBinding", NULL, NULL, false },
	{ "ClusterRole", NULL, NULL, true },
	{ "ClusterRoleBinding", NULL, NULL, true },
	{ "CustomResourceDefinition", NULL, NULL, true },
	{ "RuntimeClass", NULL, NULL, true },
};

struct file_read {
	struct gs_k8s_snapshot *s;
	const char *file;
	char *err;
	size_t err_len;
};

static int skip_kind(struct gs_k8s_rctx *c, const char *kind)
{
	struct gs_k8s_snapshot *s = c->s;
	int i;

	for (i = 0; i < s->n_skipped; i++)
		if (s->skipped[i].kind == kind) {
			s->skipped[i].n++;
			return 0;
		}
	if (s->n_skipped == GS_K8S_SKIP_KINDS)
		return 0;
	s->skipped[s->n_skipped].kind = kind;
	s->skipped[s->n_skipped++].n = 1;
	return 0;
}

static int on_object(void *arg, const struct gs_kdoc *obj, int64_t index, int doc)
{
	struct file_read *r = arg;
	struct gs_k8s_rctx c = {
		.s = r->s,
		.o = { .file = r->file, .line = obj->line, .kind = "object", .ns = "" },
		.err = r->err,
		.err_len = r->err_len,
	};
	const struct gs_kdoc *meta;
	const char *kind = gs_kdoc_str(obj, "kind"), *api = gs_kdoc_str(obj, "apiVersion");
	const struct kind_entry *k = NULL;
	size_t i;
	int rc;

	if (!kind) {
		char f[64];

		if (index >= 0)
			snprintf(f, sizeof(f), "items[%lld].kind", (long long)index);
		else
			snprintf(f, sizeof(f), "document %d: kind", doc + 1);
		return gs_k8s_refuse(&c, obj, GS_K8S_PATH(f), "missing");
	}
	if (!(c.o.kind = gs_k8s_str(&c, kind)))
		return gs_k8s_oom(&c);
	if ((rc = gs_k8s_get_map(&c, obj, "metadata", NULL, &meta)) ||
	    (rc = gs_k8s_get_str(&c, meta, "name", GS_K8S_PATH("metadata"), &c.o.name)))
		return rc;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			k = &kinds[i];
	if (!k)
		return gs_k8s_refuse(&c, obj, GS_K8S_PATH("kind"), "'%s' is not a kind gpusim reads (Node, Pod, "
				     "Deployment, StatefulSet, ReplicaSet, Job, ConfigMap, "
				     "ResourceSlice, DeviceClass, ResourceClaim, "
				     "ResourceClaimTemplate, or a List of them)", kind);
	if (!k->read)
		return skip_kind(&c, c.o.kind);
	if (!c.o.name || !*c.o.name)
		return gs_k8s_refuse(&c, meta ? meta : obj, GS_K8S_PATH("metadata.name"), "missing");
	if (!k->cluster_scoped) {
		if ((rc = gs_k8s_get_str(&c, meta, "namespace", GS_K8S_PATH("metadata"), &c.o.ns)))
			return rc;
		if ((!c.o.ns || !*c.o.ns) && !(c.o.ns = gs_k8s_str(&c, "default")))
			return gs_k8s_oom(&c);
	}
	if (!api || strcmp(api, k->api) != 0)
		return gs_k8s_refuse(&c, gs_kdoc_get(obj, "apiVersion"), GS_K8S_PATH("apiVersion"),
				     "'%s' is not %s, the version of %s gpusim reads",
				     api ? api : "", k->api, kind);
	return k->read(&c, obj);
}

struct gs_k8s_snapshot *gs_k8s_snapshot_new(void)
{
	struct gs_k8s_snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	gs_strpool_init(&s->pool);
	gs_arena_init(&s->arena);
	gs_sha256_init(&s->sha);
	s->str_cpu = gs_strpool_get(&s->pool, "cpu");
	s->str_memory = gs_strpool_get(&s->pool, "memory");
	if (!s->str_cpu || !s->str_memory) {
		gs_k8s_snapshot_free(s);
		return NULL;
	}
	return s;
}

void gs_k8s_snapshot_free(struct gs_k8s_snapshot *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_cels; i++)
		gs_cel_free(s->cels[i].cel);
	GS_MEM_FREE(s->cels, s->nodes, s->pods, s->workloads, s->slices, s->classes, s->claims,
		    s->templates, s->plugin_configs, s->node_by_name, s->workload_by_uid, s->paths);
	gs_arena_release(&s->arena);
	gs_strpool_release(&s->pool);
	free(s);
}

static int add_path(struct gs_k8s_snapshot *s, const char *name)
{
	size_t old = s->paths ? strlen(s->paths) : 0, n = strlen(name);
	char *p = malloc(old + n + 2);

	if (!p)
		return GS_ENOMEM;
	if (old)
		memcpy(p, s->paths, old);
	if (old)
		p[old++] = ',';
	memcpy(p + old, name, n + 1);
	free(s->paths);
	s->paths = p;
	return 0;
}

static int read_text(struct gs_k8s_snapshot *s, const char *name, const char *data, size_t len,
		     const char *sha, char *err, size_t err_len)
{
	struct file_read r = { s, NULL, err, err_len };
	int rc;

	if (s->finished) {
		gs_errf(err, err_len, "%s: the snapshot is already complete", name);
		return GS_EINVAL;
	}
	if (add_path(s, name) || !(r.file = gs_strpool_get(&s->pool, name))) {
		gs_errf(err, err_len, "%s: out of memory", name);
		return GS_ENOMEM;
	}
	gs_sha256_update(&s->sha, sha, strlen(sha));
	rc = gs_kdoc_read(r.file, data, len, on_object, &r, err, err_len);
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "%s: out of memory", name);
	return rc;
}

int gs_k8s_snapshot_read(struct gs_k8s_snapshot *s, const char *path, char *err,
			 size_t err_len)
{
	struct gs_csv f;
	int rc = gs_csv_open(&f, path, err, err_len);

	if (rc)
		return rc;
	rc = read_text(s, path, f.buf, f.len, f.sha256, err, err_len);
	gs_csv_close(&f);
	return rc;
}

int gs_k8s_snapshot_read_mem(struct gs_k8s_snapshot *s, const char *name, const char *data,
			     size_t len, char *err, size_t err_len)
{
	char sha[GS_SHA256_HEX];
	char *copy = len < SIZE_MAX ? malloc(len + 1) : NULL;
	int rc;

	/* The JSON reader wants a NUL after the text, as a file read gets one. */
	if (!copy) {
		gs_errf(err, err_len, "%s: out of memory", name);
		return GS_ENOMEM;
	}
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	gs_sha256_hex(copy, len, sha);
	rc = read_text(s, name, copy, len, sha, err, err_len);
	free(copy);
	return rc;
}

/* --- lookups ------------------------------------------------------------------------ */

int32_t gs_k8s_snapshot_node_at(const struct gs_k8s_snapshot *s, const char *name)
{
	size_t lo = 0, hi = s->n_nodes, i;

	if (!s->node_by_name) {
		for (i = 0; i < s->n_nodes; i++)
			if (strcmp(s->nodes[i].o.name, name) == 0)
				return (int32_t)i;
		return -1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->nodes[s->node_by_name[mid]].o.name, name);

		if (c == 0)
			return s->node_by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *gs_k8s_node_label(const struct gs_k8s_node *n, const char *key)
{
	int32_t i;

	for (i = 0; i < n->n_labels; i++)
		if (strcmp(n->labels[i].key, key) == 0)
			return n->labels[i].value;
	return NULL;
}

/* The quantity of resource name among the n of res, or NULL. */
static const struct gs_quantity *res_find(const struct gs_k8s_res *res, int32_t n,
					  const char *name)
{
	int32_t i;

	for (i = 0; i < n; i++)
		if (strcmp(res[i].name, name) == 0)
			return &res[i].q;
	return NULL;
}

const struct gs_quantity *gs_k8s_node_ext(const struct gs_k8s_node *n, const char *name)
{
	return res_find(n->ext, n->n_ext, name);
}

const struct gs_quantity *gs_k8s_pod_ext(const struct gs_k8s_pod *p, const char *name)
{
	return res_find(p->ext, p->n_ext, name);
}
