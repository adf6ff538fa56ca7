/* SPDX-License-Identifier: Apache-2.0 */
/*
 * busy.h - how busy the pods of a run keep their GPUs: the default busy
 * fraction of pods whose trace leaves gpu_busy_milli unset, by workload
 * class, as a number or drawn from a distribution (--busy SPEC).
 *
 * A spec is ITEM[,ITEM...], ITEM = [CLASS=]VALUE, VALUE one of
 *   a number in (0, 1]   every such pod is that busy ("0.6")
 *   genai                a draw from the built-in distribution fitted to
 *                        the per-pod mean GPU duty cycle of Alibaba's 2026
 *                        GenAI serving trace (results/busy-genai.csv)
 *   a file name          a draw from a distribution file of that format
 *                        (`gpusim busy fit` writes one), a name with a '/'
 *                        or ending in .csv
 * An item without CLASS= applies to the pods of every class no other item
 * names, pods without a class included; "*=" says the same. Without any
 * item for a pod, it is busy all its running time (1), the model's default.
 *
 * A distribution file is a CSV `quantile,busy,source`: quantiles rising
 * from 0 to 1, busy fractions in (0, 1] that do not fall, a source on every
 * row; a draw is the busy fraction at a uniform quantile, linear between
 * rows. Draws are made in pod order from the run's seed, so a run is
 * reproducible.
 *
 * Ownership: struct gs_busy is caller-owned (_init/_release) and owns the
 * distributions it loaded.
 */
#ifndef GS_BUSY_H
#define GS_BUSY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

#define GS_BUSY_ITEMS_MAX 33   /* one per class and one for the rest */
#define GS_BUSY_QUANTILES_MAX 1001
#define GS_BUSY_SPEC_MAX 1024

/* A distribution of busy fractions: the quantile function at points. */
struct gs_busy_dist {
	int n;
	double q[GS_BUSY_QUANTILES_MAX];     /* rising, q[0] = 0, q[n - 1] = 1 */
	double busy[GS_BUSY_QUANTILES_MAX];  /* not falling, in (0, 1] */
	char sha256[65];                     /* of the file it came from */
};

struct gs_busy_item {
	char wclass[GS_CLASS_NAME_MAX];      /* "*" = the rest */
	int32_t milli;                       /* fixed busy fraction, 1..1000; 0 = draw */
	int dist;                            /* index into gs_busy.dists when drawn */
};

struct gs_busy {
	int n;
	struct gs_busy_item item[GS_BUSY_ITEMS_MAX];
	int n_dists;
	struct gs_busy_dist *dists[GS_BUSY_ITEMS_MAX]; /* owned */
	char spec[GS_BUSY_SPEC_MAX];         /* canonical text ("" = the default) */
};

/* Makes b the default: every pod busy all its running time. */
void gs_busy_init(struct gs_busy *b);
/* Frees the distributions b loaded and makes it the default again. */
void gs_busy_release(struct gs_busy *b);

/*
 * Parses spec (see the top) into b, loading the distributions it names.
 * Returns 0, GS_EINVAL for a bad item (err names it and says what is
 * allowed), GS_ENOENT / GS_EIO / GS_EPARSE for a distribution file
 * ("FILE:LINE: column X: ..."), GS_ENOMEM. b is left the default on error.
 */
int gs_busy_parse(struct gs_busy *b, const char *spec, char *err, size_t err_len);

/*
 * Reads a distribution from len bytes of text reported as name into *d.
 * Returns 0, GS_EPARSE with "NAME:LINE: column X: ..." in err, GS_ENOMEM.
 */
int gs_busy_dist_parse(struct gs_busy_dist *d, const char *name, const char *text, size_t len,
		       char *err, size_t err_len);

/* The busy fraction of distribution d at quantile u in [0, 1]. */
double gs_busy_dist_at(const struct gs_busy_dist *d, double u);

/*
 * Fits a distribution of busy fractions to the GPU duty cycles in the CSV
 * file at path, in the format of the GenAI trace's
 * pod_gpu_duty_cycle_anon.csv (header `value,timestamp_anon,container_ip`,
 * value a duty cycle in percent): each container's busy fraction is the mean
 * of its samples / 100 (at least 0.001), and *d gets their quantile function
 * at `points` evenly spaced quantiles from 0 to 1 (2..GS_BUSY_QUANTILES_MAX;
 * linear between order statistics). *n_pods gets the number of containers.
 * Returns 0, GS_ENOENT / GS_EIO / GS_EPARSE ("FILE:LINE: column X: ..."),
 * GS_EINVAL (points out of range), GS_ENOMEM.
 */
int gs_busy_fit(const char *path, int points, struct gs_busy_dist *d, size_t *n_pods,
		char *err, size_t err_len);

/*
 * Writes d as a distribution file (`quantile,busy,source`, four decimals,
 * source on every row; no comma in it) to f. Returns 0 or GS_EIO.
 */
int gs_busy_dist_write(const struct gs_busy_dist *d, const char *source, FILE *f);

/* The text of the built-in distribution, results/busy-genai.csv, NUL-terminated. */
const char *gs_busy_genai_text(void);

/*
 * Fills busy_milli of every GPU pod of pods[0..n) that has none, from b,
 * by its class in trace t (NULL: no classes), drawing from b's
 * distributions in pod order with a stream seeded by seed. Pods b has no
 * item for keep 0 (busy all the time).
 */
void gs_busy_apply(const struct gs_busy *b, const struct gs_trace *t, struct gs_pod *pods,
		   size_t n, uint64_t seed);

#endif
