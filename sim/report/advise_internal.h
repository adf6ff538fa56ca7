/* SPDX-License-Identifier: Apache-2.0 */
/*
 * advise_internal.h - what the steps of `gpusim advise` share (advise.c:
 * the matrix, the seeds and the record; advise_capacity.c: the capacity
 * search); not for other files.
 */
#ifndef GS_ADVISE_INTERNAL_H
#define GS_ADVISE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "report/advise.h"
#include "run/batch.h"
#include "run/inputs.h"
#include "store/decision.h"

/* Mechanisms in one decision at most: the candidates', the baseline's and ideal. */
#define ADV_MECHS_MAX 24

/* One run a step wants: of a candidate in a block, at a seed, on an input with a setting. */
struct adv_cell {
	size_t block, cand, seed;
	size_t input;                 /* index in the context's inputs */
	size_t setting;               /* index in the context's settings */
	int64_t size;                 /* capacity: the cluster's size; -1 for the given cluster */
};

/* A cluster of another size for the capacity search, with its checksum and name. */
struct adv_sized {
	size_t trace;
	int64_t size;
	struct gs_cluster cluster;
	char sha256[65];
	char *path;                   /* "FILE[gpu-nodes=13]" */
};

struct adv_cap;

struct adv_ctx {
	const struct gs_advise_spec *spec;
	struct gs_advise *a;
	struct gs_inputs in;          /* the traces, each loaded against its own copy of the cluster */
	/* The mechanisms the candidates use, references (ideal) last. */
	struct gs_share_cfg mechs[ADV_MECHS_MAX];
	size_t n_mechs;
	const struct gs_policy **cand_policy;   /* [n_cands] */
	size_t *cand_mech;                      /* [n_cands] */
	/* The inputs and settings every batch is made of (run/batch.h). */
	struct gs_batch_input *inputs;
	size_t n_inputs, cap_inputs;
	struct gs_replay_opts *settings;        /* mechanism x load, then with a load capacity */
	size_t n_settings, cap_settings;
	struct adv_sized **sized;               /* each malloc'ed: inputs point into them */
	size_t n_sized, cap_sized;
	/* The runs the record rests on (strings borrowed from the spec and a). */
	struct gs_decision_run *rec;
	size_t n_rec, cap_rec;
	bool warned;                            /* the inputs' warnings were printed */
	bool sized_done;                        /* the capacity search has run */
	struct adv_cap *cap;                    /* the capacity search's state (advise_capacity.c) */
};

/* Appends a batch input (borrowed); its index, or -1 when out of memory. */
long gs__advise_add_input(struct adv_ctx *x, const struct gs_batch_input *bi);

/* The setting of mechanism m at load index l (with the given cluster's capacity when capped). */
size_t gs__advise_setting(struct adv_ctx *x, size_t m, size_t l, bool capped, char *err, size_t err_len,
		   int *rc);

/*
 * Runs cells[0..n) as one batch (run/exec.h), storing their pod rows when
 * pods (and not --no-pods), records them with role, and puts each outcome
 * in out[i] (run id and figures). Returns 0 or the batch's error, with a
 * message in err.
 */
int gs__advise_run_cells(struct adv_ctx *x, const struct adv_cell *cells, size_t n,
		  struct gs_outcome *out, const char *role, bool pods, char *err,
		  size_t err_len);

/* Copies the figures of outcome o into a decide run. */
void gs__advise_fill_run(struct gs_decide_run *r, const struct gs_outcome *o);

/* The capacity search (advise_capacity.c): fills a->sizes, a->points; see advise.h. */
int gs__advise_capacity(struct adv_ctx *x, bool all_in, char *err, size_t err_len);

/* The checks a capacity search makes before any run (impossible targets): GS_EINVAL. */
int gs__advise_capacity_check(struct adv_ctx *x, char *err, size_t err_len);

/* Frees the sized clusters. */
void gs__advise_capacity_release(struct adv_ctx *x);

#endif
