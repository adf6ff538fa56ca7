/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validation.h - the sharing validation set: published measurements of
 * GPU sharing, each with a scenario gpusim replays, and the comparison of
 * the rate model (engine/sharing.h) with them (`gpusim interference
 * validate`, `make repro-sharing`; docs/sharing-model.md).
 *
 * Two CSV files (results/validation/):
 *
 * sharing-workloads.csv, `workload,gpu_milli,gpu_mem_mib,need_milli,
 * busy_milli,compute_milli,source`: one row per measured program, what its
 * pods ask (gpu_milli 1..1000, gpu_mem_mib) and the sharing model's view of
 * it (core/cluster.h): each of need, busy and compute is a number of milli,
 * empty (the model's default: need = gpu_milli, busy 1000, compute
 * GS_COMPUTE_DEFAULT_MILLI) or `fit`, fixed by the row whose role names it.
 *
 * sharing.csv, `id,source,ref,gpu,model,card_mib,sharing,pods,measure,
 * baseline,published,role,note`, one row per published figure:
 *   id         unique name of the row
 *   source     a short key of the publication: rows of one key are one
 *              source (the validation counts independent sources by it)
 *   ref        publication or issue thread, table or figure
 *   gpu        the GPU as published ("A100-SXM4-80GB")
 *   model      gpusim's GPU model it is replayed on; a name that is not
 *              built in needs card_mib (its memory per card)
 *   sharing    the GPU's sharing spec (core/sharing.h)
 *   pods       the pods on that GPU, workload keys separated by spaces;
 *              KEY*N is N of them, KEY@M asks for M milli-GPU instead.
 *              On a MIG GPU the pods ask for 1 milli and no memory, so
 *              that each takes the next instance of the fixed layout.
 *   measure    rate: the first pod's rate, its throughput against alone on
 *              a dedicated GPU; sum: the pods' rates added up, the GPU's
 *              throughput in units of one pod alone; share: the first
 *              pod's rate over the sum
 *   baseline   empty, or a sharing spec: the figure is divided by the same
 *              measure on it (for rate, the first pod alone on it)
 *   published  the figure, a decimal number
 *   role       check (a prediction: the rows the band is about), fit:
 *              WORKLOAD.FIELD (the row fixes that field of the workload,
 *              solved so that it matches), anchor (a sharing-spec setting
 *              was read off this row by hand), table (the built-in
 *              interference table was derived from it), none (the model
 *              cannot express it: listed, not replayed; note says why)
 *   note       how the figure follows from the publication (no commas)
 *
 * A replay puts the row's pods on one GPU at time 0 and runs gpusim's
 * engine in time mode: the measured pod's rate is its duration over its
 * stay while the others never leave.
 *
 * Ownership: struct gs_validation is caller-owned (_init/_release) and
 * owns its rows, workloads and results.
 */
#ifndef GS_VALIDATION_H
#define GS_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/interference.h"

#define GS_VAL_PODS_MAX 16
#define GS_VAL_KEY_MAX 48

enum gs_val_role { GS_VAL_CHECK, GS_VAL_FIT, GS_VAL_ANCHOR, GS_VAL_TABLE, GS_VAL_NONE };
enum gs_val_measure { GS_VAL_RATE, GS_VAL_SUM, GS_VAL_SHARE };
enum gs_val_field { GS_VAL_NEED, GS_VAL_BUSY, GS_VAL_COMPUTE };

struct gs_val_workload {
	char key[GS_VAL_KEY_MAX];
	int32_t gpu_milli;
	int64_t gpu_mem_mib;
	int32_t milli[3];          /* need, busy, compute: 0 = the default */
	bool fit[3];               /* fixed by a fit row */
	char *source;              /* owned */
	long line;
};

struct gs_val_row {
	char id[GS_VAL_KEY_MAX];
	char *source, *ref, *gpu, *model, *sharing, *baseline, *pods_text, *note; /* owned */
	int64_t card_mib;          /* 0 = the built-in model's */
	int n_pods;
	int pod_wl[GS_VAL_PODS_MAX];       /* workload index of each pod */
	int32_t pod_milli[GS_VAL_PODS_MAX]; /* request override, 0 = the workload's */
	uint8_t measure;           /* enum gs_val_measure */
	uint8_t role;              /* enum gs_val_role */
	int fit_wl;                /* GS_VAL_FIT: the workload and field it fixes */
	uint8_t fit_field;
	double published;
	long line;
	/* Filled by gs_validation_run(). */
	double predicted;          /* NAN for role none */
	double ratio;              /* predicted / published */
	int32_t fitted_milli;      /* GS_VAL_FIT: the value found */
};

struct gs_validation {
	struct gs_val_workload *wl;
	size_t n_wl;
	struct gs_val_row *rows;
	size_t n_rows;
	char sha256[2][65];        /* of the workloads and the rows file */
	char rows_name[256];       /* the rows file as errors name it */
};

/* Makes v empty. */
void gs_validation_init(struct gs_validation *v);
/* Frees v's rows and workloads and leaves it empty. */
void gs_validation_release(struct gs_validation *v);

/*
 * Reads the workloads (wl_text, reported as wl_name) and the rows (rows_text,
 * rows_name) into v, checking every field: unknown workloads, bad specs
 * and measures, fit rows naming a field that is not `fit`, a `fit` field
 * no row fixes. Returns 0, GS_EPARSE with "FILE:LINE: column X: ..." in
 * err, GS_ENOMEM. v is left empty on failure.
 */
int gs_validation_parse(struct gs_validation *v, const char *wl_name, const char *wl_text,
			size_t wl_len, const char *rows_name, const char *rows_text,
			size_t rows_len, char *err, size_t err_len);

/* The same from the files at wl_path and rows_path (GS_ENOENT / GS_EIO when unreadable). */
int gs_validation_load(struct gs_validation *v, const char *wl_path, const char *rows_path,
		       char *err, size_t err_len);

/* The built-in set (results/validation/), compiled in. Returns as gs_validation_parse(). */
int gs_validation_default(struct gs_validation *v, char *err, size_t err_len);

/*
 * Solves the fit rows, then replays every row but the role-none ones with
 * interference table tbl (NULL: the built-in), filling predicted, ratio
 * and fitted_milli. Returns 0, or GS_EINVAL with "ROWS:LINE: row ID: ..."
 * when a row cannot be replayed (its pods do not fit the GPU), GS_ENOMEM.
 */
int gs_validation_run(struct gs_validation *v, const struct gs_interference *tbl, char *err,
		      size_t err_len);

/* Verdict of a replayed row against a band of +-band (0.15: 15 %). */
enum gs_val_verdict {
	GS_VAL_IN,                 /* check row within the band */
	GS_VAL_OUT,                /* check row outside the band */
	GS_VAL_HELD,               /* fit, anchor or table row within 2 % */
	GS_VAL_DRIFTED,            /* fit, anchor or table row off by more than 2 % */
	GS_VAL_NOT_EXPRESSED,      /* role none */
};

/* Row r's verdict (after gs_validation_run()). */
enum gs_val_verdict gs_validation_verdict(const struct gs_val_row *r, double band);

/* Counts over a run, and whether it passes. */
struct gs_val_summary {
	int checks, within, outside, far;  /* far: outside a factor 1.5 */
	int held, drifted, not_expressed;
	int sources;                       /* distinct source keys among replayed rows */
	bool pass;                         /* >= 80 % of checks within, none far, none drifted */
};

/* Summarises v's results against the band. */
void gs_validation_summary(const struct gs_validation *v, double band, struct gs_val_summary *s);

/* Static names: "check", "fit", ...; "rate", "sum", "share"; "need", "busy", "compute". */
const char *gs_validation_role_str(int role);
/* The measure's name ("rate", "sum" or "share"). */
const char *gs_validation_measure_str(int measure);
/* The workload field's name ("need", "busy" or "compute"). */
const char *gs_validation_field_str(int field);

#endif
