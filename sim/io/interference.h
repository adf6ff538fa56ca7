/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interference.h - the interference table: how efficiently a pod runs
 * under a sharing mode, by GPU model, number n and workload class.
 *
 * A CSV file with the header `mode,gpu_model,n,class,efficiency,source`
 * (documented in traces/README.md, "The interference table"):
 *   mode        exclusive, timeslice, mps, vgpu or mig
 *   gpu_model   a model name, or * for any
 *   n           timeslice, mps, vgpu: how busy the GPU's pods are, the sum
 *               of their busy fractions, this pod included (1 to 64, a
 *               decimal: two half-busy pods are 1); mig: compute slices of
 *               the pod's instance (1 to 7); exclusive: 1
 *   class       a workload class (gs_pod.wclass), or * for any
 *   efficiency  > 0 (up to 100): the factor of the rate model by which
 *               sharing itself slows the pods (engine/sharing.h)
 *   source      where the figure comes from, free text without commas; a
 *               row without one is refused
 * The built-in defaults are results/interference.csv, compiled in.
 *
 * Looking up (mode, model, class, n): the rows of the most specific group
 * that exists, in the order (model, class), (*, class), (model, *), (*, *);
 * within it, linear interpolation in n between the nearest rows, the
 * nearest row's value outside them. No group: 1.
 *
 * Ownership: struct gs_interference is caller-owned (_init/_release) and
 * owns its rows.
 */
#ifndef GS_INTERFERENCE_H
#define GS_INTERFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/gpu_model.h"
#include "core/sharing.h"
#include "io/trace/trace.h"

#define GS_IFR_N_MAX 64

struct gs_ifr_row {
	uint8_t mode;                        /* enum gs_share_mode */
	char gpu_model[GS_MODEL_NAME_MAX];   /* "*" = any */
	double n;
	char wclass[GS_CLASS_NAME_MAX];      /* "*" = any */
	double efficiency;
	char *source;                        /* owned */
	long line;                           /* in the file it came from */
};

struct gs_interference {
	struct gs_ifr_row *rows;
	size_t n, cap;
	char path[256];                      /* the file, or "built-in" */
	char sha256[65];                     /* of its bytes */
};

/* Makes t an empty table (no rows, nothing owned). */
void gs_interference_init(struct gs_interference *t);
/* Frees t's rows and leaves it empty, as gs_interference_init() does. */
void gs_interference_release(struct gs_interference *t);

/*
 * Reads a table from the file at path (replacing t's rows). Returns 0, or
 * GS_ENOENT / GS_EIO / GS_EPARSE / GS_ENOMEM with "FILE:LINE: column X:
 * ..." in err; t is left empty on failure.
 */
int gs_interference_load(struct gs_interference *t, const char *path, char *err,
			 size_t err_len);

/* The same from len bytes of text, reported as name. */
int gs_interference_parse(struct gs_interference *t, const char *name, const char *text,
			  size_t len, char *err, size_t err_len);

/* Loads the built-in defaults (results/interference.csv). Returns 0 or GS_ENOMEM. */
int gs_interference_default(struct gs_interference *t, char *err, size_t err_len);

/* The text of the built-in defaults, NUL-terminated. */
const char *gs_interference_default_text(void);

/*
 * Appends a row (the strings are copied). Returns 0, GS_EINVAL for a bad
 * field (err says which) or GS_ENOMEM. Duplicates are not checked here.
 */
int gs_interference_add(struct gs_interference *t, int mode, const char *gpu_model, double n,
			const char *wclass, double efficiency, const char *source, char *err,
			size_t err_len);

#define GS_IFR_CURVE_MAX 64

/* One (mode, model, class)'s rows, sorted by n: what a lookup interpolates. */
struct gs_ifr_curve {
	int n;                               /* points; 0 = no rows: efficiency 1 */
	double x[GS_IFR_CURVE_MAX], y[GS_IFR_CURVE_MAX];
};

/*
 * Fills *out with the rows a lookup of (mode, gpu_model, wclass) uses (the
 * most specific group, see above; wclass "" or NULL: none), the first
 * GS_IFR_CURVE_MAX of them by n. Pure; O(rows).
 */
void gs_interference_curve(const struct gs_interference *t, int mode, const char *gpu_model,
			   const char *wclass, struct gs_ifr_curve *out);

/* The curve at n: linear between the nearest points, the nearest point's value outside. */
double gs_interference_curve_eval(const struct gs_ifr_curve *c, double n);

/*
 * The efficiency for a pod of class wclass ("" or NULL: none) under mode
 * on a GPU of model gpu_model with n (see above). Pure; O(rows).
 */
double gs_interference_lookup(const struct gs_interference *t, int mode, const char *gpu_model,
			      const char *wclass, double n);

/*
 * Writes t as CSV (the header and one line per row) to f, each number in the
 * fewest digits that read back as the same double. Returns 0 or GS_EIO.
 */
int gs_interference_write(const struct gs_interference *t, FILE *f);

#endif
