/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frag.h - GPU fragmentation of a node and of a cluster, after Weng et al.,
 * "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
 * Fragmentation Gradient Descent", USENIX ATC 2023, section 3.
 *
 * The target workload is a set of pod kinds with probabilities. The
 * fragmentation of a node for kind m is the free GPU share that m cannot
 * use there; the node's fragmentation is its expectation over the kinds.
 * All amounts are in milli-GPU.
 *
 * Plain C with no dependencies beyond libc: the FGD policy uses it too.
 */
#ifndef GS_FRAG_H
#define GS_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"

struct gs_kind {
	int32_t cpu_milli;
	int32_t num_gpu;
	int32_t gpu_milli;     /* per GPU */
	uint32_t model_mask;   /* 0 = any */
	double p;              /* probability; the kinds of a workload sum to 1 */
	int64_t count;         /* pods of this kind in the source trace */
};

struct gs_workload {
	struct gs_kind *kinds; /* owned */
	int32_t n;
};

/* Makes w an empty workload (no kinds, nothing owned). */
void gs_workload_init(struct gs_workload *w);
/* Frees w's kinds and empties it. */
void gs_workload_release(struct gs_workload *w);

/* How gs_workload_typical_by() tells pod kinds apart and orders equal counts. */
enum gs_kinds_by {
	/*
	 * gpusim's own (exact mode): a kind is (cpu_milli, num_gpu, gpu_milli,
	 * set of allowed models), a CPU-only pod counting as (cpu, 0, 0, set)
	 * whatever GPU fields it has; equal counts keep the order of first
	 * appearance; p = count / covered.
	 */
	GS_KINDS_BY_MODEL_SET = 0,
	/*
	 * The FGD reference simulator's (compat mode): a kind is (cpu_milli,
	 * gpu_milli, num_gpu, gpu_spec text as written), so "V100M16|V100M32"
	 * and "V100M16|V100M32|V100M32" are two kinds; a pod without spec text
	 * falls back to its model set. Equal counts go by descending cpu_milli,
	 * gpu_milli, num_gpu, then spec text (bytewise); p is computed as
	 * (count / pods) / (covered / pods), or count / pods when every kind is
	 * taken, the reference's floating-point operations.
	 */
	GS_KINDS_BY_SPEC,
};

/*
 * The typical pod set: the most frequent kinds that together cover at
 * least `coverage` (0..1] of the pods, most frequent first, with p
 * renormalised to sum to 1; CPU-only kinds are included. `specs` is NULL
 * or has one entry per pod: its gpu_spec as written, NULL for none (only
 * GS_KINDS_BY_SPEC reads it). Returns 0, GS_EINVAL for an empty pod list,
 * a bad coverage or rule, or GS_ENOMEM. *out is the caller's to release.
 */
int gs_workload_typical_by(const struct gs_pod *pods, const char *const *specs, size_t n,
			   double coverage, enum gs_kinds_by by, struct gs_workload *out);

/* gs_workload_typical_by() with GS_KINDS_BY_MODEL_SET. */
int gs_workload_typical(const struct gs_pod *pods, size_t n, double coverage,
			struct gs_workload *out);

/* Fragmentation of node n for one kind, in milli-GPU. */
int64_t gs_node_frag_kind(const struct gs_node *n, const struct gs_kind *k);

/* Expected fragmentation of node n over the workload, in milli-GPU. */
double gs_node_frag(const struct gs_node *n, const struct gs_workload *w);

/*
 * The same value summed in the FGD reference simulator's floating-point
 * order: kind by kind in w's order, p x amount is added to one of the
 * reference's seven fragment categories (lack both, lack GPU, satisfied,
 * lack CPU, CPU-only satisfied, CPU-only lack CPU, no access; a kind that
 * fits puts the share of its too-small GPUs under "lack GPU" and the rest
 * under "satisfied"), then the categories other than "satisfied" are added
 * in that order. Equal to gs_node_frag() up to rounding, but two states with
 * the same fragmentation can differ by about 1e-13 here, which decides the
 * reference's integer FGD score of a placement that changes nothing (49,
 * not 50). In milli-GPU.
 */
double gs_node_frag_categories(const struct gs_node *n, const struct gs_workload *w);

/*
 * A workload's kinds prepared for fast per-node amounts: the kinds'
 * distinct GPU shares, ascending, and each GPU kind's index among them
 * (-1 for CPU-only kinds), so that a node's amounts for all kinds take one
 * pass over its sorted free shares instead of one over its GPUs per kind.
 * Ownership: caller-owned struct; it owns its arrays and borrows w.
 */
struct gs_frag_shares {
	const struct gs_workload *w;
	int32_t *share;       /* [n_share] */
	int32_t n_share;
	int32_t *share_of;    /* [kind] */
	int32_t *upto;        /* [milli 0..GS_MILLI_PER_GPU]: the shares at most milli, a count */
	/*
	 * The kinds' fields the amounts read, one array each so that the pass
	 * over the kinds reads them in order: cpu_milli, p, and per GPU model
	 * (GS_MAX_MODELS rows, then one for nodes without a model) the GPUs
	 * the kind needs, INT32_MAX where it may not use that model.
	 */
	int32_t *cpu;         /* [kind] */
	double *p;            /* [kind] */
	int32_t *need;        /* [(GS_MAX_MODELS + 1) * kind] */
};

/* Prepares s for w (borrowed for s's lifetime). Returns 0 or GS_ENOMEM (s then holds nothing). */
int gs_frag_shares_init(struct gs_frag_shares *s, const struct gs_workload *w);
/* Frees s's arrays (not the borrowed workload) and zeroes it. */
void gs_frag_shares_release(struct gs_frag_shares *s);
/*
 * A node's free GPU shares as the kinds' amounts read them: its free share
 * in all and, for each of the kinds' distinct shares (s->share[t]), the
 * GPUs with at least that much free and the free share of the others.
 * Worked out once per node state, it gives the amounts for any free CPU,
 * and the view of the node with one GPU's free share lowered takes no new
 * sort (FGD tries every fitting GPU of a node). The kinds have at most
 * GS_MILLI_PER_GPU distinct shares (1 to 1000 milli); only the first
 * s->n_share entries are filled. Ownership: a plain value (12 KiB: keep it off hot
 * copies), filled by gs_frag_view_init() or gs_frag_view_lower().
 */
struct gs_frag_view {
	const int32_t *need;                 /* s->need's row for the node's model */
	int64_t total;                       /* free GPU share, milli */
	int32_t ge[GS_MILLI_PER_GPU + 1];    /* [t]: GPUs with at least share[t] free */
	int64_t lt_free[GS_MILLI_PER_GPU + 1]; /* [t]: free share of the GPUs with less */
};

/* Fills v for node n. */
void gs_frag_view_init(const struct gs_frag_shares *s, const struct gs_node *n,
		       struct gs_frag_view *v);
/* out = v with one GPU's free share lowered from `from` to `to` milli (to <= from). */
void gs_frag_view_lower(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			int32_t from, int32_t to, struct gs_frag_view *out);
/* gs_node_frag_kind() of every kind for the viewed node with cpu_free milli CPU free, into out. */
void gs_frag_view_kinds(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			int32_t cpu_free, int64_t *out);
/*
 * start + the sum over s->w's kinds m, in order, of p_m x (before[m] -
 * amount_m) for the kinds where that difference is not 0, amount_m being
 * gs_node_frag_kind() of the viewed node with cpu_free milli CPU free: the
 * decrease of a node's expected fragmentation when its amounts go from
 * before[] (gs_frag_view_kinds() of the node as it is) to those of the
 * viewed state, without writing the amounts anywhere.
 */
double gs_frag_view_drop(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			 int32_t cpu_free, const int64_t *before, double start);
/*
 * gs_node_frag_categories() of the viewed node with cpu_free milli CPU
 * free: the very same double (the same products added in the same order),
 * in O(kinds) rather than O(kinds x GPUs).
 */
double gs_frag_view_categories(const struct gs_frag_shares *s, const struct gs_frag_view *v,
			       int32_t cpu_free);

/*
 * Cluster fragmentation, kept current one node at a time: call
 * gs_frag_update() for each node whose resources changed. The per-kind
 * amounts are integers, so the total is exact and does not drift however
 * many updates a run makes.
 * Ownership: caller-owned struct; it owns its arrays and borrows w.
 */
struct gs_frag {
	const struct gs_workload *w;
	int32_t n_nodes;
	int64_t *node_kind;   /* [node * w->n + kind], milli-GPU */
	int64_t *kind_total;  /* [kind], sum over nodes */
	double total;         /* sum over kinds of p x kind_total, redone when one changes */
	struct gs_frag_shares shares;
};

/*
 * Computes every node's fragmentation of c for the kinds of w (borrowed for
 * f's lifetime). Returns 0, GS_EINVAL (c or w NULL, or w malformed) or
 * GS_ENOMEM; on error f holds nothing and needs no gs_frag_release().
 */
int gs_frag_init(struct gs_frag *f, const struct gs_cluster *c, const struct gs_workload *w);
/* Recomputes node's amounts after its resources changed in c; ignores a node out of range. */
void gs_frag_update(struct gs_frag *f, const struct gs_cluster *c, int32_t node);
/* Sum over nodes of their expected fragmentation, in milli-GPU. */
double gs_frag_total(const struct gs_frag *f);
/* Expected fragmentation of one node from the cached amounts. */
double gs_frag_node(const struct gs_frag *f, int32_t node);
/* Frees f's arrays (not the borrowed workload) and zeroes it. */
void gs_frag_release(struct gs_frag *f);

#endif
