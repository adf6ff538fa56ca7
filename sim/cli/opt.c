/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opt.c - the table-driven option parser of every gpusim command (see
 * opt.h): getopt_long tables, value checks, conflicts, required options,
 * defaults and --help, all generated from one table per command.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "io/csv.h"
#include "core/error.h"
#include "core/version.h"

/* getopt_long values: row i of the table is 256 + i; these follow the last row. */
#define VAL_ROW0 256

/* Lines of --help are wrapped to this many columns. */
#define HELP_WIDTH 79

bool gs_opt_takes_value(const struct gs_opt *o)
{
	switch (o->kind) {
	case GS_OPT_INT:
	case GS_OPT_UINT:
	case GS_OPT_DOUBLE:
	case GS_OPT_STRING:
	case GS_OPT_LIST:
	case GS_OPT_ENUM:
	case GS_OPT_CUSTOM:
		return true;
	default:
		return false;
	}
}

bool gs_opt_is_option(const struct gs_opt *o)
{
	return o->kind != GS_OPT_GROUP && o->kind != GS_OPT_END;
}

static size_t count_rows(const struct gs_opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != GS_OPT_END)
		n++;
	return n;
}

static void *field_of(void *args, const struct gs_opt *o)
{
	return (char *)args + o->offset;
}

static void cmd_err(const struct gs_cmd_spec *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cmd_err(const struct gs_cmd_spec *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpusim %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void gs_opt_err(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpusim %s: --%s: ", cmd->name, o->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- values ------------------------------------------------------------------ */

/* Decimal digits only, at least one. */
static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* "a non-negative integer", "an integer from 1 to 1024", ... into buf. */
static const char *int_range_words(int64_t min, uint64_t max, char *buf, size_t len)
{
	if (min == 0 && max == INT64_MAX)
		return "a non-negative integer";
	if (min == 1 && max == INT64_MAX)
		return "a positive integer";
	snprintf(buf, len, "an integer from %" PRId64 " to %" PRIu64, min, max);
	return buf;
}

int gs_opt_int(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
	       int64_t min, int64_t max, int64_t *out)
{
	char words[96];
	long long v;

	errno = 0;
	if (all_digits(s[0] == '-' ? s + 1 : s)) {
		v = strtoll(s, NULL, 10);
		if (!errno && v >= min && v <= max) {
			*out = v;
			return 0;
		}
	}
	gs_opt_err(cmd, o, "'%s' is not %s", s,
		   int_range_words(min, max < 0 ? 0 : (uint64_t)max, words, sizeof(words)));
	return GS_EINVAL;
}

static int parse_uint(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
		      uint64_t *out)
{
	unsigned long long v;
	char words[96];

	errno = 0;
	if (all_digits(s)) {
		v = strtoull(s, NULL, 10);
		if (!errno && v <= o->umax) {
			*out = v;
			return 0;
		}
	}
	gs_opt_err(cmd, o, "'%s' is not %s", s, int_range_words(0, o->umax, words, sizeof(words)));
	return GS_EINVAL;
}

static int parse_double(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
			double *out)
{
	bool gt = o->flags & GS_OPT_GT_MIN;
	char words[128];
	double v;

	errno = 0;
	if (gs_csv_decimal_ok(s)) {
		v = strtod(s, NULL);
		if (!errno && isfinite(v) && (gt ? v > o->dmin : v >= o->dmin) && v <= o->dmax) {
			*out = v;
			return 0;
		}
	}
	if (gt && o->dmin == 0 && isinf(o->dmax))
		snprintf(words, sizeof(words), "a positive number");
	else if (isinf(o->dmax))
		snprintf(words, sizeof(words), "a number %s %g", gt ? "above" : "of at least",
			 o->dmin);
	else if (gt)
		snprintf(words, sizeof(words), "a number above %g and at most %g", o->dmin, o->dmax);
	else
		snprintf(words, sizeof(words), "a number from %g to %g", o->dmin, o->dmax);
	gs_opt_err(cmd, o, "'%s' is not %s", s, words);
	return GS_EINVAL;
}

static int parse_enum(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
		      int *out)
{
	size_t i, n;

	for (n = 0; o->choices[n].name; n++)
		if (!strcmp(o->choices[n].name, s)) {
			*out = o->choices[n].value;
			return 0;
		}
	fprintf(stderr, "gpusim %s: --%s: '%s' is not ", cmd->name, o->name, s);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s'%s'", i == 0 ? "" : i + 1 < n ? ", " : " or ",
			o->choices[i].name);
	fputc('\n', stderr);
	return GS_EINVAL;
}

static void list_release(struct gs_opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * Makes *out one block, the pointer array then a copy of each item, from
 * the n items given: none twice, at most .max. Returns 0, or GS_EINVAL or
 * GS_ENOMEM (printed) with *out untouched.
 */
static int list_build(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
		      const char *const *items, size_t n, struct gs_opt_list *out)
{
	size_t bytes = 0, i, j;
	const char **v;
	char *p;

	if (o->max > 0 && n > (uint64_t)o->max) {
		gs_opt_err(cmd, o, "more than %" PRId64 " items", o->max);
		return GS_EINVAL;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(items[j], items[i])) {
				gs_opt_err(cmd, o, "'%s' is given twice", items[i]);
				return GS_EINVAL;
			}
		bytes += strlen(items[i]) + 1;
	}
	v = malloc(n * sizeof(*v) + bytes);
	if (!v) {
		gs_opt_err(cmd, o, "out of memory");
		return GS_ENOMEM;
	}
	p = (char *)(v + n);
	for (i = 0; i < n; i++) {
		size_t len = strlen(items[i]) + 1;

		memcpy(p, items[i], len);
		v[i] = p;
		p += len;
	}
	out->v = v;
	out->n = n;
	return 0;
}

/*
 * Splits s at commas into the items of *out: in place of what it held, or
 * after it when append (the arguments after a GS_OPT_MULTI option's value).
 */
static int parse_list(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
		      struct gs_opt_list *out, bool append)
{
	size_t n_old = append ? out->n : 0, n = 1, i;
	struct gs_opt_list fresh = { NULL, 0 };
	const char **items;
	char *copy, *p;
	int rc = GS_ENOMEM;

	for (p = (char *)s; *p; p++)
		n += *p == ',';
	items = malloc((n_old + n) * sizeof(*items));
	copy = strdup(s);
	if (!items || !copy) {
		gs_opt_err(cmd, o, "out of memory");
		goto out;
	}
	for (i = 0; i < n_old; i++)
		items[i] = out->v[i];
	for (i = 0, p = copy; i < n; i++) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p) {
			gs_opt_err(cmd, o, "'%s' has an empty item", s);
			rc = GS_EINVAL;
			goto out;
		}
		items[n_old + i] = p;
		p = comma ? comma + 1 : p + strlen(p);
	}
	rc = list_build(cmd, o, items, n_old + n, &fresh);
	if (!rc) {
		list_release(out);
		*out = fresh;
	}
out:
	free(items);
	free(copy);
	return rc;
}

/* Converts value into the option's field. Returns 0, GS_EINVAL or GS_ENOMEM (printed). */
static int set_value(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		     void *args)
{
	void *f = field_of(args, o);

	switch (o->kind) {
	case GS_OPT_FLAG:
		*(bool *)f = true;
		return 0;
	case GS_OPT_SET:
		*(int *)f = o->value;
		return 0;
	case GS_OPT_INT:
		return gs_opt_int(cmd, o, value, o->min, o->max, f);
	case GS_OPT_UINT:
		return parse_uint(cmd, o, value, f);
	case GS_OPT_DOUBLE:
		return parse_double(cmd, o, value, f);
	case GS_OPT_STRING:
		*(const char **)f = value;
		return 0;
	case GS_OPT_LIST:
		return parse_list(cmd, o, value, f, false);
	case GS_OPT_ENUM:
		return parse_enum(cmd, o, value, f);
	case GS_OPT_CUSTOM:
		return o->parse(cmd, o, value, f);
	default:
		return 0;
	}
}

/* --- the command line ---------------------------------------------------------- */

/* Whether long name `name` is listed in the space-separated `list`. */
static bool names(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (list && *list) {
		const char *end = strchr(list, ' ');
		size_t n = end ? (size_t)(end - list) : strlen(list);

		if (n == len && !strncmp(list, name, n))
			return true;
		list = end ? end + 1 : NULL;
	}
	return false;
}

/* The long name of row i of the table, then "help" and "version"; NULL for a heading. */
static const char *long_name(const struct gs_cmd_spec *cmd, size_t n, size_t i)
{
	if (i < n)
		return gs_opt_is_option(&cmd->opts[i]) ? cmd->opts[i].name : NULL;
	return i == n ? "help" : "version";
}

/* Says what is wrong with the long option in token (getopt_long refused it). */
static void bad_long(const struct gs_cmd_spec *cmd, const char *token)
{
	const char *name = token + 2, *eq = strchr(name, '='), *found[2] = { NULL, NULL };
	size_t len = eq ? (size_t)(eq - name) : strlen(name), n = count_rows(cmd->opts), i;
	size_t matches = 0;

	for (i = 0; i < n + 2; i++) {
		const char *nm = long_name(cmd, n, i);

		if (!nm || strncmp(nm, name, len))
			continue;
		if (strlen(nm) == len) {
			found[0] = nm;
			matches = 1;
			break;
		}
		if (matches < 2)
			found[matches] = nm;
		matches++;
	}
	if (matches == 1 && eq)
		cmd_err(cmd, "--%s takes no value; try 'gpusim %s --help'", found[0], cmd->name);
	else if (matches > 1)
		cmd_err(cmd, "'--%.*s' is ambiguous: --%s, --%s%s; try 'gpusim %s --help'", (int)len,
			name, found[0], found[1], matches > 2 ? ", ..." : "", cmd->name);
	else
		cmd_err(cmd, "unknown option '--%.*s'; try 'gpusim %s --help'", (int)len, name,
			cmd->name);
}

/* Parses the options; on error returns -1 after printing, with *status_out set. */
static int parse_options(const struct gs_cmd_spec *cmd, int argc, char **argv, void *args,
			 bool *seen, int *status_out)
{
	size_t n = count_rows(cmd->opts), i, k = 0, n_rest = 0;
	struct option *longopts = calloc(n + 3, sizeof(*longopts));
	char *shorts = malloc(2 * n + 5), *s = shorts, **rest = NULL;
	int c, rc = -1, val_help = VAL_ROW0 + (int)n, val_version = val_help + 1;
	const struct gs_opt *multi = NULL; /* the GS_OPT_MULTI option the next arguments extend */
	bool in_order = false;

	*status_out = 2;
	for (i = 0; i < n; i++)
		in_order |= cmd->opts[i].kind == GS_OPT_LIST && (cmd->opts[i].flags & GS_OPT_MULTI);
	/*
	 * With a GS_OPT_MULTI option, getopt_long returns the other arguments
	 * where they stand (as option 1) instead of moving them to the end, so
	 * that they can be given to the option they follow; the operands among
	 * them are kept in rest and put back where getopt would have moved them.
	 */
	if (in_order)
		rest = malloc((size_t)argc * sizeof(*rest));
	if (!longopts || !shorts || (in_order && !rest)) {
		cmd_err(cmd, "out of memory");
		*status_out = 1;
		goto out;
	}
	if (in_order)
		*s++ = '-';
	*s++ = ':'; /* report a missing value as ':' and print nothing */
	*s++ = 'h';
	for (i = 0; i < n; i++) {
		const struct gs_opt *o = &cmd->opts[i];

		if (!gs_opt_is_option(o))
			continue;
		longopts[k++] = (struct option){ o->name, gs_opt_takes_value(o) ? required_argument :
						 no_argument, NULL, VAL_ROW0 + (int)i };
		if (o->short_name) {
			*s++ = o->short_name;
			if (gs_opt_takes_value(o))
				*s++ = ':';
		}
	}
	*s = '\0';
	longopts[k++] = (struct option){ "help", no_argument, NULL, val_help };
	longopts[k++] = (struct option){ "version", no_argument, NULL, val_version };

	opterr = 0;
	optind = 0; /* GNU and musl: start afresh, as for a new argv */
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct gs_opt *o = NULL;
		int err;

		if (c == 1) {
			err = multi ? parse_list(cmd, multi, optarg, field_of(args, multi), true) : 0;
			if (err) {
				*status_out = err == GS_ENOMEM ? 1 : 2;
				goto out;
			}
			if (!multi)
				rest[n_rest++] = optarg;
			continue;
		}
		if (c == 'h' || c == val_help) {
			gs_opt_usage(cmd, stdout);
			*status_out = 0;
			goto out;
		}
		if (c == val_version) {
			printf("gpusim %s\n", gs_version());
			*status_out = 0;
			goto out;
		}
		if (c == '?' || c == ':') {
			/* optopt: the short option, our value for a long one, 0 for an unknown long one. */
			const struct gs_opt *bad = optopt >= VAL_ROW0 && optopt < val_help ?
				&cmd->opts[optopt - VAL_ROW0] : NULL;
			const char *token = argv[optind - 1];

			for (i = 0; !bad && optopt > 0 && i < n; i++)
				if (gs_opt_is_option(&cmd->opts[i]) && cmd->opts[i].short_name == optopt)
					bad = &cmd->opts[i];
			if (c == ':' && bad)
				cmd_err(cmd, "--%s needs a value; try 'gpusim %s --help'", bad->name,
					cmd->name);
			else if (optopt > 0 && optopt < VAL_ROW0)
				cmd_err(cmd, "unknown option '-%c'; try 'gpusim %s --help'", optopt,
					cmd->name);
			else if (!strncmp(token, "--", 2))
				bad_long(cmd, token);
			else
				cmd_err(cmd, "bad option '%s'; try 'gpusim %s --help'", token,
					cmd->name);
			goto out;
		}
		if (c >= VAL_ROW0 && c < val_help) {
			o = &cmd->opts[c - VAL_ROW0];
		} else {
			for (i = 0; i < n && !o; i++)
				if (gs_opt_is_option(&cmd->opts[i]) && cmd->opts[i].short_name == c)
					o = &cmd->opts[i];
		}
		if (!o) {
			cmd_err(cmd, "internal error: option %d is not in the table", c);
			goto out;
		}
		err = set_value(cmd, o, optarg, args);
		if (err) {
			*status_out = err == GS_ENOMEM ? 1 : 2;
			goto out;
		}
		seen[o - cmd->opts] = true;
		multi = o->kind == GS_OPT_LIST && (o->flags & GS_OPT_MULTI) ? o : NULL;
	}
	/* The operands, in order, before those after "--", where check_line() reads them. */
	optind -= (int)n_rest;
	for (i = 0; i < n_rest; i++)
		argv[optind + (int)i] = rest[i];
	rc = 0;
out:
	free(longopts);
	free(shorts);
	free(rest);
	return rc;
}

/*
 * Checks what is only known after the whole line: conflicts, options that
 * need others, operands, required options.
 */
static int check_line(const struct gs_cmd_spec *cmd, int argc, char **argv, void *args,
		      const bool *seen)
{
	const struct gs_opt *opts = cmd->opts;
	size_t n = count_rows(opts), i, j, n_req = 0, k;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n && seen[i]; j++)
			if (seen[j] && (names(opts[i].conflicts, opts[j].name) ||
					names(opts[j].conflicts, opts[i].name))) {
				cmd_err(cmd, "--%s and --%s cannot be used together", opts[i].name,
					opts[j].name);
				return -1;
			}
	for (i = 0; i < n; i++)
		for (j = 0; j < n && seen[i] && opts[i].requires; j++)
			if (!seen[j] && gs_opt_is_option(&opts[j]) && names(opts[i].requires, opts[j].name)) {
				cmd_err(cmd, "--%s needs --%s%s%s", opts[i].name, opts[j].name,
					gs_opt_takes_value(&opts[j]) ? " " : "",
					gs_opt_takes_value(&opts[j]) ? opts[j].arg : "");
				return -1;
			}
	if (cmd->min_operands) {
		if (argc - optind < (int)cmd->min_operands) {
			cmd_err(cmd, "give %s; try 'gpusim %s --help'", cmd->operand, cmd->name);
			return -1;
		}
		*(char ***)((char *)args + cmd->operands_offset) = argv + optind;
		*(size_t *)((char *)args + cmd->n_operands_offset) = (size_t)(argc - optind);
	} else if (cmd->operand) {
		if (argc - optind != 1) {
			cmd_err(cmd, "give exactly one %s; try 'gpusim %s --help'", cmd->operand,
				cmd->name);
			return -1;
		}
		*(const char **)((char *)args + cmd->operand_offset) = argv[optind];
	} else if (optind < argc) {
		cmd_err(cmd, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	for (i = 0; i < n; i++)
		n_req += gs_opt_is_option(&opts[i]) && (opts[i].flags & GS_OPT_REQUIRED);
	for (i = 0; i < n; i++) {
		if (!gs_opt_is_option(&opts[i]) || !(opts[i].flags & GS_OPT_REQUIRED) || seen[i])
			continue;
		/* One message names every required option, missing or not. */
		fprintf(stderr, "gpusim %s: ", cmd->name);
		for (j = 0, k = 0; j < n; j++) {
			if (!gs_opt_is_option(&opts[j]) || !(opts[j].flags & GS_OPT_REQUIRED))
				continue;
			k++;
			fprintf(stderr, "%s--%s", k == 1 ? "" : k < n_req ? ", " : " and ",
				opts[j].name);
		}
		fprintf(stderr, " %s required; try 'gpusim %s --help'\n",
			n_req == 1 ? "is" : "are", cmd->name);
		return -1;
	}
	return 0;
}

int gs_opt_parse(const struct gs_cmd_spec *cmd, int argc, char **argv, void *args,
		 int *status_out)
{
	size_t n = count_rows(cmd->opts), i;
	bool *seen = calloc(n + 1, sizeof(*seen));
	int err;

	if (!seen) {
		cmd_err(cmd, "out of memory");
		*status_out = 1;
		return -1;
	}
	if (parse_options(cmd, argc, argv, args, seen, status_out))
		goto fail;
	*status_out = 2;
	if (check_line(cmd, argc, argv, args, seen))
		goto fail;
	for (i = 0; i < n; i++) {
		if (seen[i] || !cmd->opts[i].def || !gs_opt_is_option(&cmd->opts[i]))
			continue;
		err = set_value(cmd, &cmd->opts[i], cmd->opts[i].def, args);
		if (err) {
			*status_out = err == GS_ENOMEM ? 1 : 2;
			goto fail;
		}
	}
	free(seen);
	*status_out = 0;
	return 0;
fail:
	free(seen);
	gs_opt_release(cmd, args);
	return -1;
}

void gs_opt_release(const struct gs_cmd_spec *cmd, void *args)
{
	const struct gs_opt *o;

	for (o = cmd->opts; o->kind != GS_OPT_END; o++) {
		if (o->kind == GS_OPT_LIST)
			list_release(field_of(args, o));
		else if (o->kind == GS_OPT_CUSTOM && o->release)
			o->release(field_of(args, o));
	}
}

/* --- --help ---------------------------------------------------------------------- */

/* "--name ARG" into buf; returns its length. */
static int left_column(const char *name, const char *arg, char *buf, size_t len)
{
	return snprintf(buf, len, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
}

/* Prints text word-wrapped from column col to HELP_WIDTH; the first line is already at col. */
static void wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		const char *end = text;
		int len;

		while (*end && *end != ' ')
			end++;
		len = (int)(end - text);
		if (at > col && at + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, (size_t)len, f);
		at += len;
		text = *end ? end + 1 : end;
	}
	fputc('\n', f);
}

static void option_line(FILE *f, char short_name, const char *name, const char *arg,
			const char *help, const char *def, int col)
{
	char left[128], text[1024];
	int w;

	if (short_name)
		fprintf(f, "  -%c, ", short_name);
	else
		fprintf(f, "      ");
	w = 6 + left_column(name, arg, left, sizeof(left));
	fputs(left, f);
	if (w + 2 > col) {
		fprintf(f, "\n%*s", col, "");
	} else {
		fprintf(f, "%*s", col - w, "");
	}
	if (def)
		snprintf(text, sizeof(text), "%s (default %s)", help ? help : "", def);
	else
		snprintf(text, sizeof(text), "%s", help ? help : "");
	wrap(f, text, col);
}

void gs_opt_usage(const struct gs_cmd_spec *cmd, FILE *f)
{
	const struct gs_opt *o;
	char left[128];
	int col = 6 + (int)strlen("--version") + 2, w;

	for (o = cmd->opts; o->kind != GS_OPT_END; o++) {
		if (!gs_opt_is_option(o))
			continue;
		w = 6 + left_column(o->name, gs_opt_takes_value(o) ? o->arg : NULL, left, sizeof(left)) + 2;
		col = w > col ? w : col;
	}
	col = col > 30 ? 30 : col;

	fprintf(f, "usage: gpusim %s", cmd->name);
	for (o = cmd->opts; o->kind != GS_OPT_END; o++)
		if (gs_opt_is_option(o) && (o->flags & GS_OPT_REQUIRED))
			fprintf(f, " --%s%s%s", o->name, gs_opt_takes_value(o) ? " " : "",
				gs_opt_takes_value(o) ? o->arg : "");
	fprintf(f, " [OPTIONS]%s%s\n", cmd->operand ? " " : "", cmd->operand ? cmd->operand : "");
	if (cmd->intro)
		fprintf(f, "\n%s", cmd->intro);
	fputc('\n', f);
	for (o = cmd->opts; o->kind != GS_OPT_END; o++) {
		if (o->kind == GS_OPT_GROUP) {
			fprintf(f, "%s%s\n", o == cmd->opts ? "" : "\n", o->help);
			continue;
		}
		option_line(f, o->short_name, o->name, gs_opt_takes_value(o) ? o->arg : NULL, o->help,
			    o->def, col);
	}
	option_line(f, 'h', "help", NULL, "this text", NULL, col);
	option_line(f, 0, "version", NULL, "print the version and git commit of this gpusim",
		    NULL, col);
	if (cmd->outro)
		fprintf(f, "\n%s", cmd->outro);
}
