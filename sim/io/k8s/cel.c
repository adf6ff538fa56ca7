/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cel.c - a recursive-descent parser and a tree-walking evaluator for the
 * CEL subset of DRA selectors (cel.h).
 *
 * Precedence, loosest first, as in the CEL specification: ||, &&, the
 * relations (== != < <= > >= in), unary ! and -, then member selection,
 * indexing and calls. Values are small tagged unions; maps exist only as
 * views of a device (its attributes or capacities, whole or by domain).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/k8s/cel.h"

#define VARS_MAX 8
#define DEPTH_MAX 64
/*
 * The deepest tree compiled: evaluating and freeing it recurse once per
 * level, so a chain of thousands of '!' or of '&&' terms would overflow
 * the stack (the fuzz target cel found 1 400 '!'). Selectors are a few
 * levels deep; a list of 200 alternatives joined by '||' still fits.
 */
#define HEIGHT_MAX 256
/*
 * The most nodes a selector compiles to: freeing a tree recurses once per
 * level, and a chain of terms (a && b && ...) is as deep as it is long,
 * so a selector of a million terms would overflow the stack before
 * HEIGHT_MAX is checked. Real selectors take a few dozen.
 */
#define NODES_MAX 4096

/* --- values ------------------------------------------------------------------ */

enum vtype {
	V_NULL = 0, V_BOOL, V_INT, V_STR, V_QTY, V_SEMVER, V_LIST,
	V_DEVICE,       /* device */
	V_ATTRS,        /* device.attributes */
	V_CAPS,         /* device.capacity */
	V_ATTR_DOMAIN,  /* device.attributes["d"] */
	V_CAP_DOMAIN,   /* device.capacity["d"] */
};

static const char *const vnames[] = { "null", "bool", "int", "string", "quantity", "semver",
				      "list", "device", "map", "map", "map", "map" };

struct node;

struct value {
	enum vtype t;
	bool b;
	int64_t i;
	const char *s;               /* string, semver text, domain */
	struct gs_quantity q;
	const struct node *list;     /* V_LIST: the literal's node */
};

/* --- tree ------------------------------------------------------------------------ */

enum op {
	N_LIT, N_VAR, N_DEVICE, N_SELECT, N_INDEX, N_CALL, N_METHOD, N_NOT, N_NEG, N_AND, N_OR,
	N_EQ, N_NE, N_LT, N_LE, N_GT, N_GE, N_IN, N_LIST, N_HAS, N_BIND,
};

struct node {
	enum op op;
	int col;                     /* 1-based column, for messages */
	struct node *a, *b, *c;
	char *name;                  /* field, function or method name; string literal */
	struct value lit;
	struct node **args;
	int nargs;
	int slot;                    /* N_VAR, N_BIND */
};

struct gs_cel {
	char *text;
	struct node *root;
};

static void node_free(struct node *n)
{
	int i;

	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	node_free(n->c);
	for (i = 0; i < n->nargs; i++)
		node_free(n->args[i]);
	free(n->args);
	free(n->name);
	free(n);
}

void gs_cel_free(struct gs_cel *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e->text);
	free(e);
}

/* --- lexer and parser ----------------------------------------------------------- */

struct parser {
	const char *src, *p;
	char *err;
	size_t err_len;
	bool failed, oom;
	int depth;
	int nodes;                   /* made so far (NODES_MAX) */
	char vars[VARS_MAX][32];     /* cel.bind names in scope, innermost last */
	int n_vars;
};

static int col(const struct parser *ps)
{
	return (int)(ps->p - ps->src) + 1;
}

static struct node *fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct node *fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->err_len, fmt, ap);
		va_end(ap);
	}
	ps->failed = true;
	return NULL;
}

static struct node *mk(struct parser *ps, enum op op, int c)
{
	struct node *n;

	if (++ps->nodes > NODES_MAX)
		return fail(ps, "unsupported: more than %d terms (split the selector)", NODES_MAX);
	n = calloc(1, sizeof(*n));
	if (!n) {
		ps->oom = true;
		return fail(ps, "out of memory");
	}
	n->op = op;
	n->col = c;
	return n;
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(ps);
	if (strncmp(ps->p, tok, n) != 0)
		return false;
	/* "in" is a word: not the start of "index". */
	if (((tok[0] >= 'a' && tok[0] <= 'z') || tok[0] == '_') &&
	    ((ps->p[n] >= 'a' && ps->p[n] <= 'z') || (ps->p[n] >= 'A' && ps->p[n] <= 'Z') ||
	     (ps->p[n] >= '0' && ps->p[n] <= '9') || ps->p[n] == '_'))
		return false;
	ps->p += n;
	return true;
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static char *ident(struct parser *ps)
{
	const char *s;
	char *out;

	skip_ws(ps);
	if (!is_ident_start(*ps->p))
		return NULL;
	for (s = ps->p; is_ident(*ps->p); ps->p++)
		;
	out = strndup(s, (size_t)(ps->p - s));
	if (!out) {
		ps->oom = true;
		fail(ps, "out of memory");
	}
	return out;
}

static struct node *parse_expr(struct parser *ps);

/* A string literal: '...' or "...", with \\ \' \" \n \t escapes. */
static struct node *parse_string(struct parser *ps)
{
	char q = *ps->p, *buf;
	size_t n = 0;
	int c0 = col(ps);
	struct node *x;
	const char *s;

	if (ps->p[1] == q && ps->p[2] == q)
		return fail(ps, "unsupported: triple-quoted strings (column %d)", c0);
	buf = malloc(strlen(ps->p) + 1);
	if (!buf) {
		ps->oom = true;
		return fail(ps, "out of memory");
	}
	for (s = ps->p + 1; *s && *s != q; s++) {
		if (*s == '\\') {
			s++;
			if (*s == 'n')
				buf[n++] = '\n';
			else if (*s == 't')
				buf[n++] = '\t';
			else if (*s == '\\' || *s == '\'' || *s == '"')
				buf[n++] = *s;
			else {
				free(buf);
				return fail(ps, "unsupported: the escape '\\%c' (column %d)",
					    *s ? *s : ' ', (int)(s - ps->src));
			}
			continue;
		}
		buf[n++] = *s;
	}
	if (*s != q) {
		free(buf);
		return fail(ps, "syntax error at column %d: unterminated string", c0);
	}
	buf[n] = '\0';
	ps->p = s + 1;
	x = mk(ps, N_LIT, c0);
	if (!x) {
		free(buf);
		return NULL;
	}
	x->name = buf;
	x->lit.t = V_STR;
	x->lit.s = buf;
	return x;
}

static int parse_args(struct parser *ps, struct node *call)
{
	if (eat(ps, ")"))
		return 0;
	for (;;) {
		struct node **na, *a;

		a = parse_expr(ps);
		if (!a)
			return -1;
		na = gs_realloc_n(call->args, (size_t)call->nargs + 1, sizeof(*na));
		if (!na) {
			node_free(a);
			ps->oom = true;
			fail(ps, "out of memory");
			return -1;
		}
		call->args = na;
		call->args[call->nargs++] = a;
		if (eat(ps, ")"))
			return 0;
		if (!eat(ps, ",")) {
			fail(ps, "syntax error at column %d: expected ',' or ')'", col(ps));
			return -1;
		}
	}
}

static const char *const functions[] = { "quantity", "semver", NULL };
static const char *const methods[] = { "compareTo", "isGreaterThan", "isLessThan", "asInteger",
				       "isInteger", "major", "minor", "patch", "startsWith",
				       "endsWith", "contains", "lowerAscii", "size", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static struct node *parse_primary(struct parser *ps)
{
	struct node *x;
	char *id;
	int c0;

	skip_ws(ps);
	c0 = col(ps);
	if (*ps->p == '\'' || *ps->p == '"')
		return parse_string(ps);
	if (*ps->p >= '0' && *ps->p <= '9') {
		char *end;
		long long v = strtoll(ps->p, &end, 10);

		if (*end == '.' || *end == 'e' || *end == 'E')
			return fail(ps, "unsupported: floating-point numbers (column %d)", c0);
		if (*end == 'u' || *end == 'U')
			end++;
		if (is_ident(*end))
			return fail(ps, "syntax error at column %d: bad number", c0);
		ps->p = end;
		if (!(x = mk(ps, N_LIT, c0)))
			return NULL;
		x->lit.t = V_INT;
		x->lit.i = v;
		return x;
	}
	if (eat(ps, "(")) {
		x = parse_expr(ps);
		if (x && !eat(ps, ")")) {
			node_free(x);
			return fail(ps, "syntax error at column %d: expected ')'", col(ps));
		}
		return x;
	}
	if (eat(ps, "[")) {
		if (!(x = mk(ps, N_LIST, c0)))
			return NULL;
		if (eat(ps, "]"))
			return x;
		for (;;) {
			struct node **na, *a = parse_expr(ps);

			if (!a || !(na = gs_realloc_n(x->args, (size_t)x->nargs + 1, sizeof(*na)))) {
				node_free(a);
				node_free(x);
				if (!ps->failed) {
					ps->oom = true;
					fail(ps, "out of memory");
				}
				return NULL;
			}
			x->args = na;
			x->args[x->nargs++] = a;
			if (eat(ps, "]"))
				return x;
			if (!eat(ps, ",")) {
				node_free(x);
				return fail(ps, "syntax error at column %d: expected ',' or ']'",
					    col(ps));
			}
		}
	}
	if (!(id = ident(ps)))
		return ps->failed ? NULL : fail(ps, "syntax error at column %d: unexpected '%.8s'",
						c0, *ps->p ? ps->p : "end");
	if (strcmp(id, "true") == 0 || strcmp(id, "false") == 0 || strcmp(id, "null") == 0) {
		if (!(x = mk(ps, N_LIT, c0))) {
			free(id);
			return NULL;
		}
		x->lit.t = id[0] == 'n' ? V_NULL : V_BOOL;
		x->lit.b = id[0] == 't';
		free(id);
		return x;
	}
	if (strcmp(id, "device") == 0) {
		free(id);
		return mk(ps, N_DEVICE, c0);
	}
	if (strcmp(id, "has") == 0) {
		free(id);
		if (!eat(ps, "("))
			return fail(ps, "syntax error at column %d: has needs '('", col(ps));
		if (!(x = mk(ps, N_HAS, c0)) || !(x->a = parse_expr(ps))) {
			node_free(x);
			return NULL;
		}
		if (x->a->op != N_SELECT) {
			node_free(x);
			return fail(ps, "has() takes a field selection such as "
					"has(device.attributes[\"d\"].name) (column %d)", c0);
		}
		if (!eat(ps, ")")) {
			node_free(x);
			return fail(ps, "syntax error at column %d: expected ')'", col(ps));
		}
		return x;
	}
	if (strcmp(id, "cel") == 0 && eat(ps, ".")) {
		char *m = ident(ps);
		int k;

		free(id);
		if (!m || strcmp(m, "bind") != 0 || !eat(ps, "(")) {
			free(m);
			return fail(ps, "unsupported: cel.%s (only cel.bind) at column %d",
				    "<function>", c0);
		}
		free(m);
		if (!(x = mk(ps, N_BIND, c0)) || !(x->name = ident(ps))) {
			node_free(x);
			return ps->failed ? NULL : fail(ps, "cel.bind needs a variable name "
							    "(column %d)", c0);
		}
		if (!eat(ps, ",") || !(x->a = parse_expr(ps)) || !eat(ps, ",")) {
			node_free(x);
			return ps->failed ? NULL : fail(ps, "syntax error in cel.bind at column %d",
							col(ps));
		}
		if (ps->n_vars == VARS_MAX || strlen(x->name) >= sizeof(ps->vars[0])) {
			node_free(x);
			return fail(ps, "unsupported: more than %d nested cel.bind", VARS_MAX);
		}
		k = ps->n_vars++;
		snprintf(ps->vars[k], sizeof(ps->vars[k]), "%s", x->name);
		x->slot = k;
		x->b = parse_expr(ps);
		ps->n_vars--;
		if (!x->b || !eat(ps, ")")) {
			node_free(x);
			return ps->failed ? NULL : fail(ps, "syntax error at column %d: expected ')'",
							col(ps));
		}
		return x;
	}
	skip_ws(ps);
	if (*ps->p == '(') {
		ps->p++;
		if (!in_list(functions, id)) {
			fail(ps, "unsupported: the function '%s' (column %d); selectors may call "
				 "quantity(), semver(), has() and cel.bind()", id, c0);
			free(id);
			return NULL;
		}
		if (!(x = mk(ps, N_CALL, c0))) {
			free(id);
			return NULL;
		}
		x->name = id;
		if (parse_args(ps, x) || x->nargs != 1) {
			if (!ps->failed)
				fail(ps, "%s() takes one argument (column %d)", id, c0);
			node_free(x);
			return NULL;
		}
		return x;
	}
	{
		int k;

		for (k = ps->n_vars - 1; k >= 0; k--)
			if (strcmp(ps->vars[k], id) == 0)
				break;
		if (k < 0) {
			fail(ps, "unknown name '%s' at column %d (a selector sees 'device')", id, c0);
			free(id);
			return NULL;
		}
		free(id);
		if (!(x = mk(ps, N_VAR, c0)))
			return NULL;
		x->slot = k;
		return x;
	}
}

static struct node *parse_member(struct parser *ps)
{
	struct node *x = parse_primary(ps);

	while (x) {
		struct node *y;
		int c0;

		skip_ws(ps);
		c0 = col(ps);
		if (eat(ps, ".")) {
			char *name = ident(ps);

			if (!name) {
				node_free(x);
				return ps->failed ? NULL : fail(ps, "syntax error at column %d: a name "
								    "after '.'", col(ps));
			}
			skip_ws(ps);
			if (*ps->p == '(') {
				ps->p++;
				if (!in_list(methods, name)) {
					fail(ps, "unsupported: the method '%s' (column %d)", name, c0);
					free(name);
					node_free(x);
					return NULL;
				}
				y = mk(ps, N_METHOD, c0);
				if (!y) {
					free(name);
					node_free(x);
					return NULL;
				}
				y->name = name;
				y->a = x;
				if (parse_args(ps, y)) {
					node_free(y);
					return NULL;
				}
			} else {
				if (!(y = mk(ps, N_SELECT, c0))) {
					free(name);
					node_free(x);
					return NULL;
				}
				y->name = name;
				y->a = x;
			}
			x = y;
		} else if (eat(ps, "[")) {
			if (!(y = mk(ps, N_INDEX, c0))) {
				node_free(x);
				return NULL;
			}
			y->a = x;
			y->b = parse_expr(ps);
			if (!y->b || !eat(ps, "]")) {
				node_free(y);
				return ps->failed ? NULL : fail(ps, "syntax error at column %d: "
								    "expected ']'", col(ps));
			}
			x = y;
		} else {
			break;
		}
	}
	return x;
}

static struct node *parse_unary(struct parser *ps)
{
	struct node *x;
	int c0;

	skip_ws(ps);
	c0 = col(ps);
	if ((*ps->p == '!' && ps->p[1] != '=') || *ps->p == '-') {
		enum op op = *ps->p == '!' ? N_NOT : N_NEG;

		/* Each '!' or '-' is a level of the parser's recursion, as a '(' is. */
		if (++ps->depth > DEPTH_MAX) {
			ps->depth--;
			return fail(ps, "unsupported: nested deeper than %d", DEPTH_MAX);
		}
		ps->p++;
		if (!(x = mk(ps, op, c0)) || !(x->a = parse_unary(ps))) {
			node_free(x);
			x = NULL;
		}
		ps->depth--;
		return x;
	}
	return parse_member(ps);
}

static struct node *parse_rel(struct parser *ps)
{
	static const struct {
		const char *tok;
		enum op op;
	} rel[] = { { "==", N_EQ }, { "!=", N_NE }, { "<=", N_LE }, { ">=", N_GE }, { "<", N_LT },
		    { ">", N_GT }, { "in", N_IN } };
	struct node *x = parse_unary(ps), *y;
	size_t k;
	int c0;

	if (!x)
		return NULL;
	skip_ws(ps);
	c0 = col(ps);
	for (k = 0; k < sizeof(rel) / sizeof(rel[0]); k++)
		if (eat(ps, rel[k].tok))
			break;
	if (k == sizeof(rel) / sizeof(rel[0])) {
		skip_ws(ps);
		if (strchr("+*/%", *ps->p) && *ps->p)
			return node_free(x), fail(ps, "unsupported: arithmetic ('%c' at column %d)",
						  *ps->p, c0);
		if (*ps->p == '?')
			return node_free(x), fail(ps, "unsupported: the conditional operator "
						      "(column %d)", c0);
		return x;
	}
	if (!(y = mk(ps, rel[k].op, c0))) {
		node_free(x);
		return NULL;
	}
	y->a = x;
	if (!(y->b = parse_unary(ps))) {
		node_free(y);
		return NULL;
	}
	return y;
}

static struct node *parse_binary(struct parser *ps, bool or)
{
	struct node *x = or ? parse_binary(ps, false) : parse_rel(ps);

	while (x) {
		struct node *y;
		int c0;

		skip_ws(ps);
		c0 = col(ps);
		if (!eat(ps, or ? "||" : "&&"))
			break;
		if (!(y = mk(ps, or ? N_OR : N_AND, c0))) {
			node_free(x);
			return NULL;
		}
		y->a = x;
		if (!(y->b = or ? parse_binary(ps, false) : parse_rel(ps))) {
			node_free(y);
			return NULL;
		}
		x = y;
	}
	return x;
}

static struct node *parse_expr(struct parser *ps)
{
	struct node *x;

	if (++ps->depth > DEPTH_MAX) {
		ps->depth--;
		return fail(ps, "unsupported: nested deeper than %d", DEPTH_MAX);
	}
	x = parse_binary(ps, true);
	ps->depth--;
	return x;
}

/* The height of the tree under n, counted up to cap levels (its recursion goes no deeper). */
static int height(const struct node *n, int cap)
{
	int h = 0, k, i;

	if (!n || cap <= 0)
		return 0;
	if ((k = height(n->a, cap - 1)) > h)
		h = k;
	if ((k = height(n->b, cap - 1)) > h)
		h = k;
	if ((k = height(n->c, cap - 1)) > h)
		h = k;
	for (i = 0; i < n->nargs; i++)
		if ((k = height(n->args[i], cap - 1)) > h)
			h = k;
	return h + 1;
}

struct gs_cel *gs_cel_compile(const char *expr, char *err, size_t err_len, bool *oom)
{
	struct parser ps;
	struct gs_cel *e;
	char msg[256];

	if (oom)
		*oom = false;
	memset(&ps, 0, sizeof(ps));
	ps.src = ps.p = expr;
	ps.err = msg;
	ps.err_len = sizeof(msg);
	msg[0] = '\0';
	e = calloc(1, sizeof(*e));
	if (!e || !(e->text = strdup(expr))) {
		free(e);
		if (oom)
			*oom = true;
		gs_errf(err, err_len, "out of memory");
		return NULL;
	}
	e->root = parse_expr(&ps);
	skip_ws(&ps);
	if (e->root && *ps.p)
		fail(&ps, "syntax error at column %d: unexpected '%.12s'", col(&ps), ps.p);
	if (e->root && !ps.failed && height(e->root, HEIGHT_MAX + 1) > HEIGHT_MAX)
		fail(&ps, "unsupported: more than %d operators deep (split the selector)",
		     HEIGHT_MAX);
	if (ps.failed) {
		if (oom)
			*oom = ps.oom;
		gs_errf(err, err_len, "%s", msg);
		gs_cel_free(e);
		return NULL;
	}
	return e;
}

/* --- semver --------------------------------------------------------------------- */

/* Parses "MAJOR.MINOR.PATCH[-pre][+build]": the numbers into v, *pre at the prerelease or NULL. */
static bool semver_parse(const char *s, long long v[3], const char **pre)
{
	int k;

	*pre = NULL;
	for (k = 0; k < 3; k++) {
		char *end;

		if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
			return false;
		v[k] = strtoll(s, &end, 10);
		s = end;
		if (k < 2 && *s++ != '.')
			return false;
	}
	if (*s == '-') {
		*pre = ++s;
		if (!*s || *s == '+')
			return false;
		while (*s && *s != '+')
			s++;
	}
	if (*s == '+' && !s[1])
		return false;
	return *s == '\0' || *s == '+';
}

int gs_cel_semver_cmp(const char *a, const char *b)
{
	long long va[3], vb[3];
	const char *pa, *pb;
	int k;

	if (!semver_parse(a, va, &pa) || !semver_parse(b, vb, &pb))
		return -2;
	for (k = 0; k < 3; k++)
		if (va[k] != vb[k])
			return va[k] < vb[k] ? -1 : 1;
	if (!pa || !pb)
		return !pa && !pb ? 0 : !pa ? 1 : -1;
	/* Dot-separated identifiers: numbers compare as numbers and sort before words. */
	while (*pa && *pa != '+' && *pb && *pb != '+') {
		size_t na = strcspn(pa, ".+"), nb = strcspn(pb, ".+");
		bool da = strspn(pa, "0123456789") == na, db = strspn(pb, "0123456789") == nb;
		int c;

		if (da && db) {
			if (na != nb)
				return na < nb ? -1 : 1;
			c = strncmp(pa, pb, na);
		} else if (da != db) {
			return da ? -1 : 1;
		} else {
			c = strncmp(pa, pb, na < nb ? na : nb);
			if (c == 0 && na != nb)
				c = na < nb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		pa += na + (pa[na] == '.');
		pb += nb + (pb[nb] == '.');
	}
	if ((!*pa || *pa == '+') && (!*pb || *pb == '+'))
		return 0;
	return !*pa || *pa == '+' ? -1 : 1;
}

/* --- evaluation ------------------------------------------------------------------- */

struct env {
	const struct gs_cel_device *d;
	struct value vars[VARS_MAX];
	char *err;
	size_t err_len;
};

static int rt(struct env *env, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rt(struct env *env, const struct node *n, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gs_errf(env->err, env->err_len, "column %d: %s", n->col, msg);
	return -1;
}

static int eval(struct env *env, const struct node *n, struct value *out);

/* Field name of a map-like value v; *found false when it is missing. */
static int field(struct env *env, const struct node *n, const struct value *v, const char *name,
		 struct value *out, bool *found)
{
	memset(out, 0, sizeof(*out));
	*found = true;
	switch (v->t) {
	case V_DEVICE:
		if (strcmp(name, "driver") == 0) {
			out->t = V_STR;
			out->s = env->d->driver;
		} else if (strcmp(name, "attributes") == 0) {
			out->t = V_ATTRS;
		} else if (strcmp(name, "capacity") == 0) {
			out->t = V_CAPS;
		} else if (strcmp(name, "allowMultipleAllocations") == 0) {
			out->t = V_BOOL;
			out->b = env->d->dev->multi;
		} else {
			*found = false;
		}
		return 0;
	case V_ATTRS:
	case V_CAPS:
		/* Any domain: an unknown one is an empty map, as Kubernetes says. */
		out->t = v->t == V_ATTRS ? V_ATTR_DOMAIN : V_CAP_DOMAIN;
		out->s = name;
		return 0;
	case V_ATTR_DOMAIN: {
		const struct gs_k8s_attr *a = gs_k8s_device_attr(env->d->dev, v->s, name);

		if (!a) {
			*found = false;
			return 0;
		}
		switch (a->type) {
		case GS_K8S_ATTR_INT:
			out->t = V_INT;
			out->i = a->i;
			break;
		case GS_K8S_ATTR_BOOL:
			out->t = V_BOOL;
			out->b = a->b;
			break;
		case GS_K8S_ATTR_VERSION:
			out->t = V_SEMVER;
			out->s = a->s;
			break;
		default:
			out->t = V_STR;
			out->s = a->s;
		}
		return 0;
	}
	case V_CAP_DOMAIN: {
		const struct gs_k8s_cap *cp = gs_k8s_device_cap(env->d->dev, v->s, name);

		if (!cp) {
			*found = false;
			return 0;
		}
		out->t = V_QTY;
		out->q = cp->value;
		return 0;
	}
	default:
		return rt(env, n, "a %s has no field '%s'", vnames[v->t], name);
	}
}

static int eval_select(struct env *env, const struct node *n, const char *name,
		       struct value *out)
{
	struct value v;
	bool found;

	if (eval(env, n->a, &v) || field(env, n, &v, name, out, &found))
		return -1;
	if (!found)
		return rt(env, n, "no such key: %s", name);
	return 0;
}

static int cmp_values(struct env *env, const struct node *n, const struct value *a,
		      const struct value *b, int *out)
{
	if (a->t != b->t)
		return rt(env, n, "cannot compare a %s with a %s", vnames[a->t], vnames[b->t]);
	switch (a->t) {
	case V_INT:
		*out = a->i < b->i ? -1 : a->i > b->i;
		return 0;
	case V_STR:
		*out = strcmp(a->s, b->s);
		*out = *out < 0 ? -1 : *out > 0;
		return 0;
	case V_BOOL:
		*out = (int)a->b - (int)b->b;
		return 0;
	case V_QTY:
		*out = gs_quantity_cmp(&a->q, &b->q);
		return 0;
	case V_SEMVER:
		*out = gs_cel_semver_cmp(a->s, b->s);
		if (*out == -2)
			return rt(env, n, "'%s' or '%s' is not a semantic version", a->s, b->s);
		return 0;
	case V_NULL:
		*out = 0;
		return 0;
	default:
		return rt(env, n, "cannot compare %ss", vnames[a->t]);
	}
}

static int eval_method(struct env *env, const struct node *n, struct value *out)
{
	struct value r, arg;
	const char *m = n->name;
	int c;

	memset(out, 0, sizeof(*out));
	if (eval(env, n->a, &r))
		return -1;
	if (n->nargs > 1 || (n->nargs == 1 && eval(env, n->args[0], &arg)))
		return n->nargs > 1 ? rt(env, n, "%s() takes at most one argument", m) : -1;
	if (strcmp(m, "compareTo") == 0 || strcmp(m, "isGreaterThan") == 0 ||
	    strcmp(m, "isLessThan") == 0) {
		if (n->nargs != 1 || (r.t != V_QTY && r.t != V_SEMVER))
			return rt(env, n, "%s() is a method of quantities and semvers with one "
				  "argument", m);
		if (cmp_values(env, n, &r, &arg, &c))
			return -1;
		if (m[0] == 'c') {
			out->t = V_INT;
			out->i = c;
		} else {
			out->t = V_BOOL;
			out->b = m[2] == 'G' ? c > 0 : c < 0;
		}
		return 0;
	}
	if (strcmp(m, "asInteger") == 0 || strcmp(m, "isInteger") == 0) {
		if (r.t != V_QTY || n->nargs)
			return rt(env, n, "%s() is a method of quantities", m);
		if (m[0] == 'i') {
			out->t = V_BOOL;
			out->b = gs_quantity_is_int(&r.q);
		} else {
			if (!gs_quantity_is_int(&r.q))
				return rt(env, n, "asInteger() of a quantity with a fraction");
			out->t = V_INT;
			out->i = r.q.whole;
		}
		return 0;
	}
	if (strcmp(m, "major") == 0 || strcmp(m, "minor") == 0 || strcmp(m, "patch") == 0) {
		long long v[3];
		const char *pre;

		if (r.t != V_SEMVER || n->nargs || !semver_parse(r.s, v, &pre))
			return rt(env, n, "%s() is a method of semvers", m);
		out->t = V_INT;
		out->i = v[m[1] == 'a' ? 0 : m[1] == 'i' ? 1 : 2];
		return 0;
	}
	if (r.t != V_STR)
		return rt(env, n, "%s() is a method of strings, not of a %s", m, vnames[r.t]);
	if (strcmp(m, "lowerAscii") == 0 || strcmp(m, "size") == 0) {
		if (n->nargs)
			return rt(env, n, "%s() takes no argument", m);
		if (m[0] == 's') {
			out->t = V_INT;
			out->i = (int64_t)strlen(r.s);
			return 0;
		}
		for (c = 0; r.s[c]; c++)
			if (r.s[c] >= 'A' && r.s[c] <= 'Z')
				return rt(env, n, "lowerAscii() is only supported in comparisons with "
					  "lower-case strings: '%s' has upper case", r.s);
		*out = r;
		return 0;
	}
	if (n->nargs != 1 || arg.t != V_STR)
		return rt(env, n, "%s() takes one string", m);
	out->t = V_BOOL;
	if (m[0] == 's')
		out->b = strncmp(r.s, arg.s, strlen(arg.s)) == 0;
	else if (m[0] == 'e')
		out->b = strlen(r.s) >= strlen(arg.s) &&
			 strcmp(r.s + strlen(r.s) - strlen(arg.s), arg.s) == 0;
	else
		out->b = strstr(r.s, arg.s) != NULL;
	return 0;
}

static int eval(struct env *env, const struct node *n, struct value *out)
{
	struct value a, b;
	int c;

	memset(out, 0, sizeof(*out));
	switch (n->op) {
	case N_LIT:
		*out = n->lit;
		return 0;
	case N_LIST:
		out->t = V_LIST;
		out->list = n;
		return 0;
	case N_VAR:
		*out = env->vars[n->slot];
		return 0;
	case N_DEVICE:
		out->t = V_DEVICE;
		return 0;
	case N_SELECT:
		return eval_select(env, n, n->name, out);
	case N_INDEX:
		if (eval(env, n->b, &b))
			return -1;
		if (b.t != V_STR)
			return rt(env, n, "a map index must be a string, not a %s", vnames[b.t]);
		{
			bool found;

			if (eval(env, n->a, &a) || field(env, n, &a, b.s, out, &found))
				return -1;
			if (!found)
				return rt(env, n, "no such key: %s", b.s);
		}
		return 0;
	case N_HAS: {
		bool found;

		if (eval(env, n->a->a, &a) || field(env, n, &a, n->a->name, &b, &found))
			return -1;
		out->t = V_BOOL;
		out->b = found;
		return 0;
	}
	case N_CALL: {
		const char *why;

		if (eval(env, n->args[0], &a))
			return -1;
		if (a.t != V_STR)
			return rt(env, n, "%s() takes a string", n->name);
		if (n->name[0] == 'q') {
			if (gs_quantity_parse(a.s, &out->q, &why))
				return rt(env, n, "quantity('%s'): the text %s", a.s, why);
			out->t = V_QTY;
		} else {
			long long v[3];
			const char *pre;

			if (!semver_parse(a.s, v, &pre))
				return rt(env, n, "semver('%s'): not a semantic version", a.s);
			out->t = V_SEMVER;
			out->s = a.s;
		}
		return 0;
	}
	case N_METHOD:
		return eval_method(env, n, out);
	case N_BIND:
		if (eval(env, n->a, &env->vars[n->slot]))
			return -1;
		return eval(env, n->b, out);
	case N_NOT:
	case N_NEG:
		if (eval(env, n->a, &a))
			return -1;
		if (n->op == N_NOT) {
			if (a.t != V_BOOL)
				return rt(env, n, "'!' needs a bool, not a %s", vnames[a.t]);
			out->t = V_BOOL;
			out->b = !a.b;
		} else {
			if (a.t != V_INT)
				return rt(env, n, "'-' needs an int, not a %s", vnames[a.t]);
			out->t = V_INT;
			out->i = -a.i;
		}
		return 0;
	case N_AND:
	case N_OR:
		/* Short-circuit, as CEL does when the left side decides. */
		if (eval(env, n->a, &a))
			return -1;
		if (a.t != V_BOOL)
			return rt(env, n, "'%s' needs bools, not a %s", n->op == N_AND ? "&&" : "||",
				  vnames[a.t]);
		if (a.b == (n->op == N_OR)) {
			*out = a;
			return 0;
		}
		if (eval(env, n->b, &b))
			return -1;
		if (b.t != V_BOOL)
			return rt(env, n, "'%s' needs bools, not a %s", n->op == N_AND ? "&&" : "||",
				  vnames[b.t]);
		*out = b;
		return 0;
	case N_IN: {
		int k;

		if (eval(env, n->b, &b) || eval(env, n->a, &a))
			return -1;
		out->t = V_BOOL;
		if (b.t == V_LIST) {
			for (k = 0; k < b.list->nargs; k++) {
				struct value e;

				if (eval(env, b.list->args[k], &e))
					return -1;
				if (e.t == a.t && cmp_values(env, n, &a, &e, &c) == 0 && c == 0) {
					out->b = true;
					break;
				}
			}
			return 0;
		}
		if (b.t == V_ATTR_DOMAIN || b.t == V_CAP_DOMAIN || b.t == V_ATTRS || b.t == V_CAPS) {
			bool found;
			struct value tmp;

			if (a.t != V_STR)
				return rt(env, n, "'in' a map needs a string key");
			if (b.t == V_ATTRS || b.t == V_CAPS) {
				/* A domain is "in" when the device has something under it. */
				const struct gs_k8s_device *dev = env->d->dev;
				size_t dl = strlen(a.s);
				int32_t i, cnt = b.t == V_ATTRS ? dev->n_attrs : dev->n_caps;

				for (i = 0; i < cnt && !out->b; i++) {
					const char *nm = b.t == V_ATTRS ? dev->attrs[i].name
									: dev->caps[i].name;

					out->b = strncmp(nm, a.s, dl) == 0 && nm[dl] == '/';
				}
				return 0;
			}
			if (field(env, n, &b, a.s, &tmp, &found))
				return -1;
			out->b = found;
			return 0;
		}
		return rt(env, n, "'in' needs a list or a map, not a %s", vnames[b.t]);
	}
	default:
		if (eval(env, n->a, &a) || eval(env, n->b, &b))
			return -1;
		out->t = V_BOOL;
		if (n->op == N_EQ || n->op == N_NE) {
			if (a.t != b.t) {
				/* CEL: values of different types are never equal. */
				if (a.t == V_QTY || b.t == V_QTY || a.t == V_SEMVER || b.t == V_SEMVER)
					return rt(env, n, "compare a %s with compareTo(), not '=='",
						  vnames[a.t == V_QTY || a.t == V_SEMVER ? a.t : b.t]);
				out->b = n->op == N_NE;
				return 0;
			}
			if (cmp_values(env, n, &a, &b, &c))
				return -1;
			out->b = (c == 0) == (n->op == N_EQ);
			return 0;
		}
		if (a.t == V_QTY || a.t == V_SEMVER)
			return rt(env, n, "compare %ss with compareTo(), isGreaterThan() or "
				  "isLessThan()", vnames[a.t]);
		if (cmp_values(env, n, &a, &b, &c))
			return -1;
		out->b = n->op == N_LT ? c < 0 : n->op == N_LE ? c <= 0 : n->op == N_GT ? c > 0
										 : c >= 0;
		return 0;
	}
}

int gs_cel_eval(const struct gs_cel *e, const struct gs_cel_device *d, char *err, size_t err_len)
{
	struct env env;
	struct value v;

	memset(&env, 0, sizeof(env));
	env.d = d;
	env.err = err;
	env.err_len = err_len;
	if (eval(&env, e->root, &v))
		return -1;
	if (v.t != V_BOOL) {
		gs_errf(err, err_len, "the expression is a %s, not a bool", vnames[v.t]);
		return -1;
	}
	return v.b ? 1 : 0;
}
