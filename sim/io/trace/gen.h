/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gen.h - the synthetic trace generator behind `gpusim gen`.
 *
 * A spec (JSON, documented in traces/README.md) describes a cluster as
 * groups of identical nodes and a pod workload: Poisson arrivals at a given
 * rate per hour, lognormal durations, and a weighted mix of request shapes.
 * All randomness comes from one GSL generator (gsl_rng_mt19937) seeded by
 * the caller, drawn in a fixed order, and every output value is an integer,
 * so one spec and one seed always give byte-identical files.
 *
 * Ownership: struct gs_gen_spec is caller-owned (_init/_release) and owns
 * its cluster and shape array.
 */
#ifndef GS_GEN_H
#define GS_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/* Durations: lognormal with location mu and scale sigma (log-seconds), clamped. */
struct gs_gen_duration {
	double mu;
	double sigma;
	int64_t min_s;        /* >= 1 */
	int64_t max_s;        /* >= min_s */
};

/* One request shape of the mix. */
struct gs_gen_shape {
	double weight;               /* > 0, relative */
	struct gs_pod req;           /* times unset; model_mask against the spec's cluster */
	char wclass[GS_CLASS_NAME_MAX]; /* workload class of its pods, "" for none */
	struct gs_gen_duration dur;  /* the workload's, unless the shape has its own */
};

struct gs_gen_spec {
	struct gs_cluster cluster;   /* nodes and model table of the spec */
	size_t n_pods;
	char name_prefix[64];        /* pods are named PREFIX-0000, PREFIX-0001, ... */
	int64_t start_s;             /* time origin of the first gap */
	double arrivals_per_hour;    /* Poisson rate */
	struct gs_gen_duration dur;
	struct gs_gen_shape *shapes;
	size_t n_shapes;
};

/* Makes s an empty spec with an empty cluster. */
void gs_gen_spec_init(struct gs_gen_spec *s);
/* Frees what gs_gen_spec_load() put in s, its cluster included, and empties it. */
void gs_gen_spec_release(struct gs_gen_spec *s);

/*
 * Reads and validates a spec file into s (initialised, empty). Every
 * problem is reported as "FILE: PATH.FIELD: MESSAGE" in err, for example
 * "spec.json: pods.mix[2].gpu_milli: '1500' is greater than 1000". A shape
 * that fits no node of the spec's cluster, or names a model no node has,
 * is an error. Returns 0, GS_ENOENT/GS_EIO (unreadable), GS_EPARSE or
 * GS_ENOMEM; on failure s is left empty.
 */
int gs_gen_spec_load(const char *path, struct gs_gen_spec *s, char *err, size_t err_len);

/* gs_gen_spec_load() on len bytes of text, reported as name. Same returns. */
int gs_gen_spec_parse(const char *name, const char *text, size_t len, struct gs_gen_spec *s,
		      char *err, size_t err_len);

/*
 * Draws s->n_pods pods with the given seed into t (initialised, empty),
 * sorted by creation time. Returns 0, GS_ERANGE (a pod would arrive or
 * leave after GS_TIME_MAX_S: a rate too slow for the count) or GS_ENOMEM,
 * with a message in err; t is then empty.
 */
int gs_gen_pods(const struct gs_gen_spec *s, uint64_t seed, struct gs_trace *t, char *err,
		size_t err_len);

/* Offered GPU load of a trace on a cluster, for the generator's report. */
struct gs_gen_load {
	double mean;          /* sum(GPU request x duration) / (GPU capacity x arrival span) */
	double peak;          /* largest concurrent GPU request / capacity, if all ran at once */
	int64_t span_s;       /* last creation time - first creation time */
};

/* Fills *out. Pods without times are ignored. Returns 0 or GS_ENOMEM. */
int gs_gen_load_compute(const struct gs_trace *t, const struct gs_cluster *c,
			struct gs_gen_load *out);

#endif
