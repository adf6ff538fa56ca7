/* SPDX-License-Identifier: Apache-2.0 */
/*
 * criteria.c - metric names, conditions and objectives (see criteria.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "report/criteria.h"

enum unit_kind { U_TIME, U_PCT, U_NONE };

static const struct metric_def {
	const char *name;
	const char *text;
	enum gs_fig fig;
	enum unit_kind unit;
	bool higher;
} metrics[GS_N_METRICS] = {
	[GS_METRIC_COMPLETION] = { "completion", "mean completion time", GS_FIG_COMPL_MEAN,
				   U_TIME, false },
	[GS_METRIC_P99_COMPLETION] = { "p99-completion", "p99 completion time", GS_FIG_COMPL_P99,
				       U_TIME, false },
	[GS_METRIC_SLOWDOWN] = { "slowdown", "mean bounded slowdown", GS_FIG_SLOWDOWN, U_NONE,
				 false },
	[GS_METRIC_P99_SLOWDOWN] = { "p99-slowdown", "p99 bounded slowdown",
				     GS_FIG_SLOWDOWN_P99, U_NONE, false },
	[GS_METRIC_WAIT] = { "wait", "mean wait", GS_FIG_WAIT_MEAN, U_TIME, false },
	[GS_METRIC_P99_WAIT] = { "p99-wait", "p99 wait", GS_FIG_WAIT_P99, U_TIME, false },
	[GS_METRIC_MAX_WAIT] = { "max-wait", "longest wait", GS_FIG_WAIT_MAX, U_TIME, false },
	[GS_METRIC_USEFUL] = { "useful", "useful GPU work", GS_FIG_USEFUL, U_PCT, true },
	[GS_METRIC_ALLOC] = { "alloc", "allocated GPU share", GS_FIG_ALLOC, U_PCT, true },
	[GS_METRIC_GPUS] = { "gpus", "GPUs needed to meet the target", GS_N_FIGS, U_NONE,
			     false },
	[GS_METRIC_FAILED] = { "failed", "pods failed", GS_FIG_FAILED, U_NONE, false },
	[GS_METRIC_PENDING] = { "pending", "pods never started", GS_FIG_PENDING, U_NONE,
				false },
};

/* Other spellings of the metric names, after normalising (see norm()). */
static const struct alias {
	const char *word;
	enum gs_metric m;
} aliases[] = {
	{ "completion-time", GS_METRIC_COMPLETION },
	{ "mean-completion", GS_METRIC_COMPLETION },
	{ "mean-completion-time", GS_METRIC_COMPLETION },
	{ "p99-completion-time", GS_METRIC_P99_COMPLETION },
	{ "mean-slowdown", GS_METRIC_SLOWDOWN },
	{ "bounded-slowdown", GS_METRIC_SLOWDOWN },
	{ "mean-wait", GS_METRIC_WAIT },
	{ "longest-wait", GS_METRIC_MAX_WAIT },
	{ "useful-gpu", GS_METRIC_USEFUL },
	{ "gpus-needed", GS_METRIC_GPUS },
};

const char *gs_metric_name(enum gs_metric m)
{
	return (unsigned)m < GS_N_METRICS ? metrics[m].name : "?";
}

const char *gs_metric_text(enum gs_metric m)
{
	return (unsigned)m < GS_N_METRICS ? metrics[m].text : "?";
}

const char *gs_metric_unit(enum gs_metric m)
{
	if ((unsigned)m >= GS_N_METRICS)
		return "";
	return metrics[m].unit == U_TIME ? "s" : metrics[m].unit == U_PCT ? "%" : "";
}

bool gs_metric_higher_better(enum gs_metric m)
{
	return (unsigned)m < GS_N_METRICS && metrics[m].higher;
}

enum gs_fig gs_metric_fig(enum gs_metric m)
{
	return (unsigned)m < GS_N_METRICS ? metrics[m].fig : GS_N_FIGS;
}

const char *gs_metric_word(size_t i)
{
	return i < GS_N_METRICS ? metrics[i].name : NULL;
}

/*
 * s[0..n) lower-cased, blanks trimmed, and every run of blanks, '-' and
 * '_' made one '-', into buf ("p99 wait" -> "p99-wait").
 */
static void norm(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0, i;
	bool sep = false;

	for (i = 0; i < n && o + 2 < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (isspace(ch) || ch == '-' || ch == '_') {
			sep = o > 0;
			continue;
		}
		if (sep)
			buf[o++] = '-';
		sep = false;
		buf[o++] = (char)tolower(ch);
	}
	buf[o] = '\0';
}

static int find_metric(const char *word, enum gs_metric *m)
{
	size_t i;

	for (i = 0; i < GS_N_METRICS; i++)
		if (!strcmp(word, metrics[i].name)) {
			*m = (enum gs_metric)i;
			return 0;
		}
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(word, aliases[i].word)) {
			*m = aliases[i].m;
			return 0;
		}
	return GS_EINVAL;
}

static void metric_list(char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < GS_N_METRICS && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", metrics[i].name);
}

/* The operators, symbols first (so "<=" is not read as "<"). */
static const struct op_def {
	const char *text;
	int op;
} ops[] = {
	{ "<=", '<' }, { ">=", '>' }, { "<", 'l' }, { ">", 'g' },
	{ " at most ", '<' }, { " at least ", '>' }, { " below ", 'l' }, { " under ", 'l' },
	{ " above ", 'g' }, { " over ", 'g' },
};

/* Seconds in one unit word, or 0 when it is none. */
static double time_unit(const char *u)
{
	static const struct {
		const char *w;
		double s;
	} units[] = {
		{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
		{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 }, { "minutes", 60 },
		{ "h", 3600 }, { "hr", 3600 }, { "hrs", 3600 }, { "hour", 3600 },
		{ "hours", 3600 }, { "d", 86400 }, { "day", 86400 }, { "days", 86400 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i].w))
			return units[i].s;
	return 0;
}

/* The number and unit of a condition's right side into *v, in the metric's unit. */
static int parse_value(const char *text, enum gs_metric m, double *v, char *err,
		       size_t err_len)
{
	char unit[32], *end;
	double x;

	errno = 0;
	x = strtod(text, &end);
	if (end == text || errno || !isfinite(x)) {
		gs_errf(err, err_len, "'%s' is not a number (with an optional unit)", text);
		return GS_EINVAL;
	}
	norm(end, strlen(end), unit, sizeof(unit));
	if (metrics[m].unit == U_TIME) {
		double f = unit[0] ? time_unit(unit) : 1;

		if (f == 0) {
			gs_errf(err, err_len, "'%s': %s is a time: give s, min or h", unit,
				metrics[m].name);
			return GS_EINVAL;
		}
		x *= f;
		/* 1e308 days is a finite number of days and no number of seconds. */
		if (!isfinite(x)) {
			gs_errf(err, err_len, "'%s': too long a time to compare with", text);
			return GS_ERANGE;
		}
	} else if (unit[0] && (metrics[m].unit != U_PCT || strcmp(unit, "%"))) {
		gs_errf(err, err_len, "'%s': %s takes %s", unit, metrics[m].name,
			metrics[m].unit == U_PCT ? "a percentage" : "a number without a unit");
		return GS_EINVAL;
	}
	*v = x;
	return 0;
}

/*
 * Where text starts with the words of phrase (case aside, any run of
 * blanks, '-' or '_' between words): the rest of text, its blanks
 * skipped; NULL when it does not.
 */
static const char *match_words(const char *text, const char *phrase)
{
	const char *t = text, *p = phrase;

	while (*p) {
		if (*p == ' ') {
			if (!isspace((unsigned char)*t) && *t != '-' && *t != '_')
				return NULL;
			while (isspace((unsigned char)*t) || *t == '-' || *t == '_')
				t++;
			p++;
			continue;
		}
		if (tolower((unsigned char)*t) != *p)
			return NULL;
		t++;
		p++;
	}
	if (*t && !isspace((unsigned char)*t))
		return NULL;
	while (isspace((unsigned char)*t))
		t++;
	return t;
}

int gs_cond_parse(const char *text, struct gs_cond *c, char *err, size_t err_len)
{
	static const char *const no_pod[] = { "no pod waits longer than", "no pod waits more than",
					      "no pod waits over" };
	char left[128], list[256];
	const char *at = NULL, *right;
	size_t i, k;
	int rc;

	memset(c, 0, sizeof(*c));
	while (isspace((unsigned char)*text))
		text++;
	for (i = 0; i < sizeof(no_pod) / sizeof(no_pod[0]); i++) {
		const char *rest = match_words(text, no_pod[i]);

		if (rest) {
			c->metric = GS_METRIC_MAX_WAIT;
			c->op = '<';
			rc = parse_value(rest, c->metric, &c->value, err, err_len);
			goto range;
		}
	}
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]) && !at; k++)
		at = strstr(text, ops[k].text);
	if (!at) {
		gs_errf(err, err_len, "'%s' is not METRIC <= NUMBER [UNIT] (e.g. 'p99 wait <= 60 s') "
			"nor 'no pod waits longer than 10 min'", text);
		return GS_EINVAL;
	}
	k--;
	norm(text, (size_t)(at - text), left, sizeof(left));
	if (find_metric(left, &c->metric)) {
		metric_list(list, sizeof(list));
		gs_errf(err, err_len, "'%s': no such metric; metrics: %s", left, list);
		return GS_EINVAL;
	}
	c->op = ops[k].op;
	right = at + strlen(ops[k].text);
	while (*right && isspace((unsigned char)*right))
		right++;
	rc = parse_value(right, c->metric, &c->value, err, err_len);
range:
	if (rc)
		return rc;
	if (c->value < 0 || (metrics[c->metric].unit == U_PCT && c->value > 100)) {
		char buf[128];

		gs_errf(err, err_len, "'%s' (%s) can never hold: %s is %s", text,
			gs_cond_format(c, buf, sizeof(buf)), metrics[c->metric].name,
			metrics[c->metric].unit == U_PCT ? "a share from 0 to 100 %" :
			"never negative");
		return GS_ERANGE;
	}
	if ((c->op == 'l' && c->value == 0) ||
	    (metrics[c->metric].unit == U_PCT && c->op == 'g' && c->value == 100)) {
		char buf[128];

		gs_errf(err, err_len, "'%s' (%s) can never hold", text,
			gs_cond_format(c, buf, sizeof(buf)));
		return GS_ERANGE;
	}
	return 0;
}

bool gs_cond_holds(const struct gs_cond *c, double v)
{
	if (isnan(v))
		return false;
	switch (c->op) {
	case '<':
		return v <= c->value;
	case 'l':
		return v < c->value;
	case '>':
		return v >= c->value;
	default:
		return v > c->value;
	}
}

char *gs_cond_format(const struct gs_cond *c, char *buf, size_t len)
{
	const char *op = c->op == '<' ? "<=" : c->op == 'l' ? "<" : c->op == '>' ? ">=" : ">";
	const char *unit = gs_metric_unit(c->metric);

	snprintf(buf, len, "%s %s %g%s%s", gs_metric_name(c->metric), op, c->value,
		 *unit == 's' ? " " : "", unit);
	return buf;
}

int gs_objective_parse(const char *text, struct gs_objective *o, char *err, size_t err_len)
{
	char word[128], list[256];
	const char *p;

	memset(o, 0, sizeof(*o));
	if (strncmp(text, "score:", 6)) {
		norm(text, strlen(text), word, sizeof(word));
		if (find_metric(word, &o->metric) || o->metric == GS_METRIC_FAILED ||
		    o->metric == GS_METRIC_PENDING) {
			metric_list(list, sizeof(list));
			gs_errf(err, err_len, "'%s': no such objective; objectives: a metric "
				"(%s, but not failed or pending: such pods always count against a "
				"candidate) or score:METRIC=WEIGHT,...", text, list);
			return GS_EINVAL;
		}
		return 0;
	}
	o->score = true;
	for (p = text + 6; *p;) {
		const char *comma = strchr(p, ','), *eq = strchr(p, '=');
		const char *end = comma ? comma : p + strlen(p);
		enum gs_metric m;
		char num[64], *e;
		double w;

		if (!eq || eq > end) {
			gs_errf(err, err_len, "'%.*s': a score term is METRIC=WEIGHT", (int)(end - p),
				p);
			return GS_EINVAL;
		}
		norm(p, (size_t)(eq - p), word, sizeof(word));
		if (find_metric(word, &m) || m == GS_METRIC_GPUS || m == GS_METRIC_FAILED ||
		    m == GS_METRIC_PENDING) {
			gs_errf(err, err_len, "'%s': not a metric a score can weigh (completion, "
				"p99-completion, slowdown, p99-slowdown, wait, p99-wait, max-wait, "
				"useful, alloc)", word);
			return GS_EINVAL;
		}
		snprintf(num, sizeof(num), "%.*s", (int)(end - eq - 1), eq + 1);
		errno = 0;
		w = strtod(num, &e);
		if (e == num || *e || errno || !(w > 0) || !isfinite(w)) {
			gs_errf(err, err_len, "'%s': a weight is a positive number", num);
			return GS_EINVAL;
		}
		if (o->n_terms == GS_OBJ_TERMS_MAX) {
			gs_errf(err, err_len, "a score has at most %d terms", GS_OBJ_TERMS_MAX);
			return GS_EINVAL;
		}
		o->term[o->n_terms] = m;
		o->weight[o->n_terms++] = w;
		p = comma ? comma + 1 : end;
	}
	if (!o->n_terms) {
		gs_errf(err, err_len, "'%s': a score needs at least one METRIC=WEIGHT", text);
		return GS_EINVAL;
	}
	return 0;
}

char *gs_objective_format(const struct gs_objective *o, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!o->score) {
		snprintf(buf, len, "%s %s", gs_metric_higher_better(o->metric) ? "maximise" :
			 "minimise", gs_metric_text(o->metric));
		return buf;
	}
	n = (size_t)snprintf(buf, len, "minimise the score");
	for (i = 0; i < o->n_terms && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s %g x %s", i ? " +" : "", o->weight[i],
				      gs_metric_name(o->term[i]));
	if (n < len)
		snprintf(buf + n, len - n, ", each relative to the baseline's mean");
	return buf;
}

char *gs_objective_name(const struct gs_objective *o, char *buf, size_t len)
{
	size_t i, n;

	if (!o->score) {
		snprintf(buf, len, "%s", gs_metric_name(o->metric));
		return buf;
	}
	n = (size_t)snprintf(buf, len, "score:");
	for (i = 0; i < o->n_terms && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%g", i ? "," : "",
				      gs_metric_name(o->term[i]), o->weight[i]);
	return buf;
}
