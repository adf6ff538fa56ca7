/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario.c - reading and checking benchmark scenarios.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "json.h"
#include "scenario.h"

static const char *const mode_names[] = { GS_BENCH_MODES(GS_BENCH_NAME) };
static const char *const measure_names[] = { GS_BENCH_MEASURES(GS_BENCH_NAME) };

static const char *const kernels[] = {
#define GS_KERNEL_NAME(k) #k,
	GS_BENCH_KERNELS(GS_KERNEL_NAME)
#undef GS_KERNEL_NAME
};

const char *gs_bench_mode_name(enum gs_bench_mode m)
{
	return (unsigned)m < GS_MODE__COUNT ? mode_names[m] : "?";
}

const char *gs_bench_measure_name(enum gs_bench_measure m)
{
	return (unsigned)m < GS_MEASURE__COUNT ? measure_names[m] : "?";
}

struct ctx {
	const char *path;
	char *err;
	size_t err_len;
};

__attribute__((format(printf, 4, 5))) static int bad(const struct ctx *c, const struct gs_json *at,
						     const char *field, const char *fmt, ...)
{
	char msg[256], *q;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Values quoted in msg come from the file: no newline or other control character. */
	for (q = msg; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	snprintf(c->err, c->err_len, "%s:%d:%d: %s: %s", c->path, at->line, at->col, field, msg);
	return GS_EPARSE;
}

static int valid_name(const char *s)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		      (s[n] >= '0' && s[n] <= '9') || s[n] == '-' || s[n] == '_' || s[n] == '.'))
			return 0;
	return n > 0 && n < GS_SCENARIO_NAME_MAX - 8; /* room for a "-NN" count suffix */
}

/* Rejects keys the reader does not know: a typo must not become a default. */
static int only_keys(const struct ctx *c, const struct gs_json *obj, const char *where,
		     const char *const *known)
{
	size_t i, k;

	for (i = 0; i < obj->n; i++) {
		for (k = 0; known[k]; k++)
			if (!strcmp(obj->keys[i], known[k]))
				break;
		if (!known[k])
			return bad(c, &obj->items[i], where, "unknown field \"%s\"", obj->keys[i]);
	}
	return 0;
}

static int get_string(const struct ctx *c, const struct gs_json *obj, const char *key,
		      const char *field, int required, char *out, size_t out_len)
{
	const struct gs_json *v = gs_json_get(obj, key);

	if (!v) {
		if (required)
			return bad(c, obj, field, "missing");
		return 0;
	}
	if (v->type != GS_JSON_STRING)
		return bad(c, v, field, "expected a string, found %s", gs_json_type_name(v->type));
	if (strlen(v->str) >= out_len)
		return bad(c, v, field, "longer than %zu characters", out_len - 1);
	strcpy(out, v->str);
	return 0;
}

/* The non-empty array at key (what: its items, for the message), or NULL after bad(). */
static const struct gs_json *get_list(const struct ctx *c, const struct gs_json *obj,
				      const char *key, const char *what)
{
	const struct gs_json *v = gs_json_get(obj, key);

	if (!v)
		bad(c, obj, key, "missing");
	else if (v->type != GS_JSON_ARRAY || v->n == 0)
		bad(c, v, key, "expected a non-empty array of %s", what);
	else
		return v;
	return NULL;
}

static int get_number(const struct ctx *c, const struct gs_json *obj, const char *key,
		      const char *field, int integer, double lo, double hi, double *out)
{
	const struct gs_json *v = gs_json_get(obj, key);

	if (!v)
		return 0;
	if (v->type != GS_JSON_NUMBER)
		return bad(c, v, field, "expected a number, found %s", gs_json_type_name(v->type));
	if (integer && (!v->is_integer || v->num != floor(v->num)))
		return bad(c, v, field, "expected an integer");
	if (!(v->num >= lo && v->num <= hi))
		return bad(c, v, field, "%g is not in %g..%g", v->num, lo, hi);
	*out = v->num;
	return 0;
}

static int parse_client(const struct ctx *c, const struct gs_json *v, int idx, struct gs_scenario *s)
{
	static const char *const known[] = { "name", "kernel", "gpu_milli", "gpu_mem_mib", "count",
					     "args", NULL };
	struct gs_scenario_client cl;
	const struct gs_json *args;
	char field[64], name[GS_SCENARIO_NAME_MAX - 8];
	double milli = 1000, mem = 0, count = 1;
	size_t k;
	int i, rc;

	snprintf(field, sizeof(field), "clients[%d]", idx);
	if (v->type != GS_JSON_OBJECT)
		return bad(c, v, field, "expected an object, found %s", gs_json_type_name(v->type));
	rc = only_keys(c, v, field, known);
	if (rc)
		return rc;
	memset(&cl, 0, sizeof(cl));
	cl.line = v->line;
	snprintf(field, sizeof(field), "clients[%d].name", idx);
	rc = get_string(c, v, "name", field, 1, name, sizeof(name));
	if (rc)
		return rc;
	if (!valid_name(name))
		return bad(c, gs_json_get(v, "name"), field,
			   "'%s': use 1 to 55 of A-Z a-z 0-9 . _ -", name);
	snprintf(field, sizeof(field), "clients[%d].kernel", idx);
	rc = get_string(c, v, "kernel", field, 1, cl.kernel, sizeof(cl.kernel));
	if (rc)
		return rc;
	for (k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
		if (!strcmp(cl.kernel, kernels[k]))
			break;
	if (k == sizeof(kernels) / sizeof(kernels[0]))
		return bad(c, gs_json_get(v, "kernel"), field,
			   "'%s' is not a client (vecadd, mnist, launch, memprobe)", cl.kernel);
	snprintf(field, sizeof(field), "clients[%d].gpu_milli", idx);
	rc = get_number(c, v, "gpu_milli", field, 1, 1, 1000, &milli);
	if (rc)
		return rc;
	snprintf(field, sizeof(field), "clients[%d].gpu_mem_mib", idx);
	rc = get_number(c, v, "gpu_mem_mib", field, 1, 0, 1 << 30, &mem);
	if (rc)
		return rc;
	snprintf(field, sizeof(field), "clients[%d].count", idx);
	rc = get_number(c, v, "count", field, 1, 1, GS_SCENARIO_MAX_CLIENTS, &count);
	if (rc)
		return rc;
	cl.gpu_milli = (int32_t)milli;
	cl.gpu_mem_mib = (int64_t)mem;
	if (!strcmp(cl.kernel, "memprobe") && !cl.gpu_mem_mib) {
		snprintf(field, sizeof(field), "clients[%d].gpu_mem_mib", idx);
		return bad(c, v, field, "a memprobe client needs one (the limit it probes)");
	}

	args = gs_json_get(v, "args");
	snprintf(field, sizeof(field), "clients[%d].args", idx);
	if (args && args->type != GS_JSON_ARRAY)
		return bad(c, args, field, "expected an array of strings");
	if (args && args->n > GS_SCENARIO_MAX_ARGS)
		return bad(c, args, field, "more than %d arguments", GS_SCENARIO_MAX_ARGS);
	for (k = 0; args && k < args->n; k++) {
		const struct gs_json *a = &args->items[k];

		if (a->type != GS_JSON_STRING)
			return bad(c, a, field, "argument %zu is not a string", k);
		/* The harness owns the common flags; a scenario must not fight it. */
		if (!strncmp(a->str, "--name", 6) || !strncmp(a->str, "--duration-s", 12) ||
		    !strncmp(a->str, "--start-at-ns", 13) || !strncmp(a->str, "--warmup-s", 10) ||
		    !strncmp(a->str, "--device", 8) || !strncmp(a->str, "--iters", 7) ||
		    !strncmp(a->str, "--limit-mib", 11))
			return bad(c, a, field, "'%s' is set by the harness", a->str);
	}

	for (i = 0; i < (int)count; i++) {
		struct gs_scenario_client *d;
		int j;

		if (s->n_clients == GS_SCENARIO_MAX_CLIENTS)
			return bad(c, v, "clients", "more than %d clients in all",
				   GS_SCENARIO_MAX_CLIENTS);
		d = &s->clients[s->n_clients];
		*d = cl;
		if (count > 1)
			snprintf(d->name, sizeof(d->name), "%s-%u", name, (unsigned)(i + 1) % 100u);
		else
			snprintf(d->name, sizeof(d->name), "%s", name);
		for (j = 0; j < s->n_clients; j++) {
			if (!strcmp(s->clients[j].name, d->name)) {
				snprintf(field, sizeof(field), "clients[%d].name", idx);
				return bad(c, gs_json_get(v, "name"), field,
					   "client name '%s' is used twice", d->name);
			}
		}
		for (k = 0; args && k < args->n; k++) {
			d->args[k] = strdup(args->items[k].str);
			if (!d->args[k])
				return GS_ENOMEM;
			d->n_args = (int)k + 1;
		}
		s->n_clients++;
	}
	return 0;
}

int gs_scenario_parse(const char *path, const char *text, size_t len, struct gs_scenario *s,
		      char *err, size_t err_len)
{
	static const char *const known[] = { "name", "description", "measure", "modes", "policy",
					     "duration_s", "warmup_s", "repeat", "colocate", "clients",
					     NULL };
	struct ctx c = { path, err, err_len };
	const struct gs_json *v, *modes, *clients, *colo;
	struct gs_json root;
	char jerr[256], word[32];
	double repeat = 1;
	size_t i, k;
	int rc, seen[GS_MODE__COUNT] = { 0 };

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	rc = gs_bench_json_parse(text, len, &root, jerr, sizeof(jerr));
	if (rc) {
		snprintf(err, err_len, "%s: %s", path, jerr);
		return rc;
	}
	rc = GS_EPARSE;
	if (root.type != GS_JSON_OBJECT) {
		bad(&c, &root, "scenario", "expected an object, found %s", gs_json_type_name(root.type));
		goto out;
	}
	if (only_keys(&c, &root, "scenario", known))
		goto out;
	if (get_string(&c, &root, "name", "name", 1, s->name, sizeof(s->name)))
		goto out;
	if (!valid_name(s->name)) {
		bad(&c, gs_json_get(&root, "name"), "name", "'%s': use 1 to 55 of A-Z a-z 0-9 . _ -",
		    s->name);
		goto out;
	}
	if (get_string(&c, &root, "description", "description", 0, s->description,
		       sizeof(s->description)))
		goto out;
	if (get_string(&c, &root, "measure", "measure", 1, word, sizeof(word)))
		goto out;
	for (k = 0; k < GS_MEASURE__COUNT && strcmp(word, measure_names[k]); k++)
		;
	if (k == GS_MEASURE__COUNT) {
		bad(&c, gs_json_get(&root, "measure"), "measure",
		    "'%s' is not one of overhead, interference, memory, compute", word);
		goto out;
	}
	s->measure = (enum gs_bench_measure)k;
	strcpy(s->policy, "binpack");
	if (get_string(&c, &root, "policy", "policy", 0, s->policy, sizeof(s->policy)))
		goto out;

	s->duration_s = 10;
	s->warmup_s = 2;
	if (get_number(&c, &root, "duration_s", "duration_s", 0, 0.1, 3600, &s->duration_s) ||
	    get_number(&c, &root, "warmup_s", "warmup_s", 0, 0, 600, &s->warmup_s) ||
	    get_number(&c, &root, "repeat", "repeat", 1, 1, 20, &repeat))
		goto out;
	s->repeat = (int)repeat;

	modes = get_list(&c, &root, "modes", "mode names");
	if (!modes)
		goto out;
	s->modes[s->n_modes++] = GS_MODE_EXCLUSIVE;
	seen[GS_MODE_EXCLUSIVE] = 1;
	for (i = 0; i < modes->n; i++) {
		v = &modes->items[i];
		if (v->type != GS_JSON_STRING) {
			bad(&c, v, "modes", "expected a mode name, found %s", gs_json_type_name(v->type));
			goto out;
		}
		for (k = 0; k < GS_MODE__COUNT && strcmp(v->str, mode_names[k]); k++)
			;
		if (k == GS_MODE__COUNT) {
			bad(&c, v, "modes", "'%s' is not one of exclusive, timeslice, mps, hook", v->str);
			goto out;
		}
		if (seen[k] && k != GS_MODE_EXCLUSIVE) {
			bad(&c, v, "modes", "'%s' is listed twice", v->str);
			goto out;
		}
		if (!seen[k])
			s->modes[s->n_modes++] = (enum gs_bench_mode)k;
		seen[k] = 1;
	}

	clients = get_list(&c, &root, "clients", "clients");
	if (!clients)
		goto out;
	for (i = 0; i < clients->n; i++) {
		rc = parse_client(&c, &clients->items[i], (int)i, s);
		if (rc)
			goto out;
	}
	rc = GS_EPARSE;
	colo = gs_json_get(&root, "colocate");
	if (colo) {
		if (colo->type != GS_JSON_ARRAY || colo->n == 0 ||
		    colo->n > sizeof(s->colocate) / sizeof(s->colocate[0])) {
			bad(&c, colo, "colocate", "expected an array of 1 to 8 client counts");
			goto out;
		}
		if (clients->n != 1 || s->n_clients != 1) {
			bad(&c, clients, "clients", "with colocate, give exactly one client (count 1)");
			goto out;
		}
		v = gs_json_get(&clients->items[0], "gpu_milli");
		if (v) {
			bad(&c, v, "clients[0].gpu_milli",
			    "with colocate, each of k copies asks for 1000/k; leave it out");
			goto out;
		}
		for (i = 0; i < colo->n; i++) {
			v = &colo->items[i];
			if (v->type != GS_JSON_NUMBER || !v->is_integer || v->num < 1 ||
			    v->num > GS_SCENARIO_MAX_CLIENTS ||
			    (i > 0 && v->num <= s->colocate[i - 1])) {
				bad(&c, v, "colocate",
				    "expected increasing whole numbers from 1 to %d",
				    GS_SCENARIO_MAX_CLIENTS);
				goto out;
			}
			s->colocate[s->n_colocate++] = (int)v->num;
		}
	}
	if (s->measure == GS_MEASURE_MEMORY) {
		for (k = 0; k < (size_t)s->n_clients && strcmp(s->clients[k].kernel, "memprobe"); k++)
			;
		if (k == (size_t)s->n_clients) {
			bad(&c, clients, "clients", "a memory scenario needs a memprobe client");
			goto out;
		}
	}
	rc = 0;
out:
	gs_json_release(&root);
	if (rc)
		gs_scenario_release(s);
	return rc;
}

int gs_scenario_load(const char *path, struct gs_scenario *s, char *err, size_t err_len)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long len;
	int rc;

	if (!f) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? GS_ENOENT : GS_EIO;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
		fclose(f);
		return GS_EIO;
	}
	if (len > (1 << 20)) {
		snprintf(err, err_len, "%s: larger than 1 MiB; not a scenario", path);
		fclose(f);
		return GS_EPARSE;
	}
	text = malloc((size_t)len + 1);
	if (!text) {
		fclose(f);
		return GS_ENOMEM;
	}
	if (fread(text, 1, (size_t)len, f) != (size_t)len) {
		snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
		free(text);
		fclose(f);
		return GS_EIO;
	}
	fclose(f);
	rc = gs_scenario_parse(path, text, (size_t)len, s, err, err_len);
	free(text);
	return rc;
}

void gs_scenario_release(struct gs_scenario *s)
{
	int i, k;

	for (i = 0; i < s->n_clients; i++)
		for (k = 0; k < s->clients[i].n_args; k++)
			free(s->clients[i].args[k]);
	s->n_clients = 0;
}

int gs_scenario_variants(const struct gs_scenario *s)
{
	return s->n_colocate ? s->n_colocate : 1;
}

int gs_scenario_variant(const struct gs_scenario *s, int v, struct gs_scenario *out)
{
	int k, n, a;

	*out = *s;
	out->n_colocate = 0;
	n = s->n_colocate ? s->colocate[v] : s->n_clients;
	out->n_clients = 0;
	if (s->n_colocate)
		snprintf(out->name, sizeof(out->name), "%.50s-x%u", s->name,
			 (unsigned)s->colocate[v] % 100u);
	for (k = 0; k < n; k++) {
		const struct gs_scenario_client *src = &s->clients[s->n_colocate ? 0 : k];
		struct gs_scenario_client *d = &out->clients[k];

		*d = *src;
		/* k pods splitting one GPU evenly: what interference is measured against. */
		if (s->n_colocate)
			d->gpu_milli = 1000 / n;
		if (s->n_colocate && n > 1)
			snprintf(d->name, sizeof(d->name), "%.50s-%u", src->name, (unsigned)(k + 1) % 100u);
		for (a = 0; a < src->n_args; a++) {
			d->args[a] = strdup(src->args[a]);
			if (!d->args[a]) {
				d->n_args = a;
				out->n_clients = k + 1;
				gs_scenario_release(out);
				return GS_ENOMEM;
			}
		}
		out->n_clients = k + 1;
	}
	return 0;
}
