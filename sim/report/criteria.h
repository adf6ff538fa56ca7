/* SPDX-License-Identifier: Apache-2.0 */
/*
 * criteria.h - what `gpusim advise` optimises and what it requires: the
 * metrics a user can name, conditions on them ("p99 wait <= 60 s", "no
 * pod waits longer than 10 min") and the objective ("completion",
 * "score:completion=1,useful=0.5").
 *
 * Metric names (a space or '-' between words; "p99 wait" = "p99-wait"):
 *   completion       mean completion time, departure - arrival (s)   lower is better
 *   p99-completion   its 99th percentile (s)                        lower
 *   slowdown         mean bounded slowdown                          lower
 *   p99-slowdown     its 99th percentile                            lower
 *   wait             mean wait of the placed pods (s)               lower
 *   p99-wait         its 99th percentile (s)                        lower
 *   max-wait         the longest wait (s)                           lower
 *   useful           useful GPU work, % of capacity                 higher
 *   alloc            allocated GPU share, % of capacity             higher
 *   gpus             GPUs needed to meet --target (capacity search) lower
 *   failed, pending  pods failed, pods never started                lower
 * A condition is METRIC OP NUMBER [UNIT], OP one of <= < >= > (or the
 * words "at most", "below", "at least", "above"), UNIT s, min, h or %;
 * "no pod waits longer than T" is max-wait <= T.
 */
#ifndef GS_CRITERIA_H
#define GS_CRITERIA_H

#include <stdbool.h>
#include <stddef.h>

#include "run/outcome.h"

enum gs_metric {
	GS_METRIC_COMPLETION,
	GS_METRIC_P99_COMPLETION,
	GS_METRIC_SLOWDOWN,
	GS_METRIC_P99_SLOWDOWN,
	GS_METRIC_WAIT,
	GS_METRIC_P99_WAIT,
	GS_METRIC_MAX_WAIT,
	GS_METRIC_USEFUL,
	GS_METRIC_ALLOC,
	GS_METRIC_GPUS,
	GS_METRIC_FAILED,
	GS_METRIC_PENDING,
	GS_N_METRICS
};

/* The name of m as above ("p99-wait"); "?" out of range. */
const char *gs_metric_name(enum gs_metric m);

/* What m means in a sentence ("mean completion time"). */
const char *gs_metric_text(enum gs_metric m);

/* The unit of m as printed after a value: "s", "%" or "" (a ratio, a count). */
const char *gs_metric_unit(enum gs_metric m);

/* Whether a higher value of m is better (useful, alloc). */
bool gs_metric_higher_better(enum gs_metric m);

/* The run figure m reads (run/outcome.h); GS_N_FIGS for gpus, which no run has. */
enum gs_fig gs_metric_fig(enum gs_metric m);

/* Word i of the metric names (for completion and the man page); NULL past the last. */
const char *gs_metric_word(size_t i);

/* A condition on a metric. */
struct gs_cond {
	enum gs_metric metric;
	int op;               /* '<' (<=), 'l' (<), '>' (>=), 'g' (>) */
	double value;         /* in the metric's unit (seconds for times) */
};

/*
 * Parses text (see above) into *c. Returns 0, or GS_EINVAL with a message
 * in err saying what is wrong ("'p99 wiat': no such metric; metrics: ...").
 * A bound no run can meet (a negative time, a share above 100 %, a
 * negative count, a time too long to hold in seconds) is GS_ERANGE.
 */
int gs_cond_parse(const char *text, struct gs_cond *c, char *err, size_t err_len);

/* Whether value v meets c (NAN never does). */
bool gs_cond_holds(const struct gs_cond *c, double v);

/* "p99-wait <= 60 s" into buf; returns buf. */
char *gs_cond_format(const struct gs_cond *c, char *buf, size_t len);

#define GS_OBJ_TERMS_MAX 8

/* The objective: one metric, or a weighted score of several. */
struct gs_objective {
	bool score;                          /* a weighted score */
	enum gs_metric metric;               /* when not a score */
	size_t n_terms;                      /* a score's terms */
	enum gs_metric term[GS_OBJ_TERMS_MAX];
	double weight[GS_OBJ_TERMS_MAX];     /* > 0 */
};

/*
 * Parses an objective: a metric name, or "score:M=W,M=W,..." with
 * positive weights (at most GS_OBJ_TERMS_MAX terms, gpus and the counts
 * excluded). A score is sum W x (the run's M / the baseline's mean M) for
 * lower-is-better metrics and W x (the baseline's mean M / the run's M)
 * for higher-is-better ones: unitless, lower is better, the baseline
 * scoring the sum of the weights. Returns 0, or GS_EINVAL with a message
 * in err.
 */
int gs_objective_parse(const char *text, struct gs_objective *o, char *err, size_t err_len);

/* "minimise mean completion time" / "minimise score 1 x completion + ..." into buf. */
char *gs_objective_format(const struct gs_objective *o, char *buf, size_t len);

/* The objective's name as given ("completion", "score:completion=1,useful=0.5") into buf. */
char *gs_objective_name(const struct gs_objective *o, char *buf, size_t len);

#endif
