/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fgd.c - Fragmentation Gradient Descent (Weng et al., "Beware of
 * Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
 * Gradient Descent", USENIX ATC 2023, section 4).
 *
 * The pod goes where the node's expected fragmentation (frag.h) grows
 * least. The target workload is the typical pod set of the original trace
 * (95% coverage, CPU-only kinds included). For a sharing pod every fitting
 * GPU is tried and the best one kept; whole-GPU pods take the first free
 * GPUs by index.
 *
 * Score: with GS_POLICY_COMPAT, the reference's integer
 * trunc(100 sigmoid(delta / 1000)), delta being the decrease of the node's
 * fragmentation in milli-GPU; without it, delta itself. The integer score
 * cannot tell apart changes below about 40 milli-GPU, so many nodes tie and
 * the node order decides among them.
 *
 * Compat follows the reference in two more details. Its typical pods are
 * grouped by the gpu_spec text and ordered as frag.h's GS_KINDS_BY_SPEC
 * says. And it computes delta as the difference of two floating-point
 * totals, the node's fragmentation before and after, each summed over the
 * fragment categories (gs_node_frag_categories, computed by
 * gs_frag_view_categories). A placement that leaves
 * the fragmentation unchanged but moves idle GPU share between categories
 * (a CPU-only pod that leaves too little CPU for some kinds) then gets a
 * delta of about -4.5e-13 rather than 0, which truncates to 49, not 50, and
 * changes how ties fall. Exact mode sums the per-kind integer differences,
 * so "no change" is exactly 0 there.
 *
 * State: the per-node, per-kind fragmentation of each node as it is (the
 * category total under plain compat, frag_drop()), worked out the first
 * time the node is scored in a state rather than on every bind and unbind:
 * a node often changes again before any pod is scored on it, and under the
 * scheduler's index a state it had before is not scored again. The score depends only on
 * the node's state and the pod's request shape (CPU, GPU count, GPU milli
 * and GPU memory), and a trace has few shapes (91 in openb's default), so
 * each (shape, node) score is memoised and stamped with the node's
 * version; a bind or unbind bumps the version of its node alone. Before
 * this, perf put 90% of an openb run in the per-kind amounts and a run
 * took 3.6 s; with it, 0.16 s (bench/sim).
 *
 * The machinery is exported (fgd.h) for policies that add terms of their
 * own to the drop (fgd_lookahead.c); FGD itself has none.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/frag.h"
#include "core/grow.h"
#include "core/mem.h"
#include "policies/fgd.h"
#include "policies/gpu_pick.h"
#include "policies/policy.h"

#define FGD_COVERAGE 0.95
/*
 * At most this many memoised scores (16 bytes each, 64 MiB): a trace with
 * more request shapes than fit (synthetic traces with random CPU sizes)
 * scores the extra shapes without the memo.
 */
#define FGD_MEMO_MAX_ENTRIES (4u << 20)

void gs_fgd_release(void *state)
{
	struct gs_fgd *s = state;

	gs_frag_shares_release(&s->shares);
	gs_workload_release(&s->w);
	GS_MEM_FREE(s->version, s->before, s->before_kind, s->before_stamp, s->shapes, s->memo);
}

int gs_fgd_init(struct gs_fgd *s, const struct gs_policy_env *env, gs_fgd_term_fn *term)
{
	int err;

	s->compat = (env->flags & GS_POLICY_COMPAT) != 0;
	s->term = term;
	gs_workload_init(&s->w);
	err = gs_workload_typical_by(env->workload, env->workload_specs, env->n_workload,
				     FGD_COVERAGE,
				     s->compat ? GS_KINDS_BY_SPEC : GS_KINDS_BY_MODEL_SET, &s->w);
	if (!err)
		err = gs_frag_shares_init(&s->shares, &s->w);
	s->n_nodes = env->cluster->n_nodes;
	s->last_shape = -1;
	s->version = calloc((size_t)s->n_nodes + 1, sizeof(*s->version));
	s->before_stamp = calloc((size_t)s->n_nodes + 1, sizeof(*s->before_stamp));
	if (!err && (!s->version || !s->before_stamp))
		err = GS_ENOMEM;
	if (!err && s->compat && !term) {
		s->before = calloc((size_t)s->n_nodes + 1, sizeof(*s->before));
		if (!s->before)
			err = GS_ENOMEM;
	} else if (!err) {
		s->before_kind = malloc(((size_t)s->n_nodes + 1) * ((size_t)s->w.n + 1) *
					sizeof(*s->before_kind));
		if (!s->before_kind)
			err = GS_ENOMEM;
	}
	return err;
}

/* On error the scheduler calls fgd_release(), which frees what was allocated. */
static int fgd_init(void *state, const struct gs_policy_env *env)
{
	return gs_fgd_init(state, env, NULL);
}

void gs_fgd_on_change(void *state, const struct gs_cluster *c, const struct gs_pod *p,
		      const struct gs_placement *pl)
{
	struct gs_fgd *s = state;

	(void)c;
	(void)p;
	if (pl->node >= 0 && pl->node < s->n_nodes)
		s->version[pl->node]++;
}

/*
 * The view of node as it is into now, and its fragmentation as it is
 * (before or before_kind) worked out unless it still holds for the node's
 * state.
 */
static void node_now(struct gs_fgd *s, const struct gs_node *n, int32_t node,
		     struct gs_frag_view *now)
{
	gs_frag_view_init(&s->shares, n, now);
	if (s->before_stamp[node] == s->version[node] + 1)
		return;
	s->before_stamp[node] = s->version[node] + 1;
	if (s->before)
		s->before[node] = gs_frag_view_categories(&s->shares, now, n->cpu_free_milli);
	else
		gs_frag_view_kinds(&s->shares, now, n->cpu_free_milli,
				   s->before_kind + (size_t)node * (size_t)s->w.n);
}

/*
 * Decrease of the node's fragmentation if it had cpu_free CPU free and the
 * GPUs v views, plus the extending policy's term of going to `after` (the
 * same state, kept only when there is a term). Exact: the sum of the
 * per-kind differences, exactly 0 when nothing changes. Compat: as the
 * reference, the difference of the two category totals.
 */
static double frag_drop(const struct gs_fgd *s, const struct gs_cluster *c, int32_t node,
			int32_t cpu_free, const struct gs_frag_view *v, const struct gs_node *after)
{
	if (s->before)
		return s->before[node] - gs_frag_view_categories(&s->shares, v, cpu_free);
	return gs_frag_view_drop(&s->shares, v, cpu_free,
				 s->before_kind + (size_t)node * (size_t)s->w.n,
				 s->term ? s->term(s, &c->nodes[node], after) : 0);
}

static double to_score(const struct gs_fgd *s, double drop)
{
	/* The reference's operations in its order: sigmoid first, then x 100. */
	if (s->compat)
		return (double)(int64_t)(1.0 / (1.0 + exp(-(drop / 1000.0))) * 100.0);
	return drop;
}

/*
 * Scores node for p and, for a sharing pod, writes the GPU that scores
 * best (the lowest index on ties) to *gpu_out. The node's view is worked
 * out once; each GPU tried lowers one free share in it. The node after the
 * placement is written out only for an extending policy's term.
 */
static double fgd_eval(struct gs_fgd *s, const struct gs_cluster *c, int32_t node,
		       const struct gs_pod *p, int32_t *gpu_out)
{
	const struct gs_node *n = &c->nodes[node];
	int32_t i, left, cpu = n->cpu_free_milli - p->cpu_milli;
	struct gs_frag_view now, then;
	struct gs_node after;
	double best = -INFINITY;

	node_now(s, n, node, &now);
	if (s->term) {
		after = *n;
		after.cpu_free_milli = cpu;
	}
	*gpu_out = -1;
	if (gs_pod_cpu_only(p))
		return to_score(s, frag_drop(s, c, node, cpu, &now, &after));
	if (p->num_gpu == 1 && p->gpu_milli < GS_MILLI_PER_GPU) {
		for (i = 0; i < n->num_gpu; i++) {
			int32_t j, was = n->gpu_free_milli[i];
			double sc;

			if (!gs_gpu_fits(n, i, p))
				continue;
			/*
			 * The amounts depend on the free shares as a set, so a GPU
			 * with the free share of an earlier fitting one scores the
			 * same, and ties go to the earlier one: skip it.
			 */
			for (j = 0; j < i; j++)
				if (n->gpu_free_milli[j] == was && gs_gpu_fits(n, j, p))
					break;
			if (j < i)
				continue;
			gs_frag_view_lower(&s->shares, &now, was, was - p->gpu_milli, &then);
			if (s->term)
				after.gpu_free_milli[i] = was - p->gpu_milli;
			sc = to_score(s, frag_drop(s, c, node, cpu, &then, &after));
			if (s->term)
				after.gpu_free_milli[i] = was;
			if (*gpu_out < 0 || sc > best) {
				best = sc;
				*gpu_out = i;
			}
		}
		return best;
	}
	/* Whole GPUs: the first free ones by index; which ones does not change the amounts. */
	for (i = 0, left = p->num_gpu; i < n->num_gpu && left > 0; i++) {
		int32_t was = n->gpu_free_milli[i];

		if (!gs_gpu_fits(n, i, p))
			continue;
		gs_frag_view_lower(&s->shares, left == p->num_gpu ? &now : &then, was,
				   was - p->gpu_milli, &then);
		if (s->term)
			after.gpu_free_milli[i] = was - p->gpu_milli;
		left--;
	}
	return to_score(s, frag_drop(s, c, node, cpu, left == p->num_gpu ? &now : &then, &after));
}

static bool shape_eq(const struct gs_fgd_shape *a, const struct gs_pod *p)
{
	return a->cpu_milli == p->cpu_milli && a->num_gpu == p->num_gpu &&
	       a->gpu_milli == p->gpu_milli && a->gpu_mem_mib == p->gpu_mem_mib;
}

/* The index of p's shape, added if new; -1 when the memo is full or out of memory. */
static int32_t shape_of(struct gs_fgd *s, const struct gs_pod *p)
{
	int32_t i;

	if (s->last_shape >= 0 && shape_eq(&s->shapes[s->last_shape], p))
		return s->last_shape;
	for (i = 0; i < s->n_shapes; i++)
		if (shape_eq(&s->shapes[i], p))
			return s->last_shape = i;
	if ((size_t)(s->n_shapes + 1) * (size_t)s->n_nodes > FGD_MEMO_MAX_ENTRIES)
		return -1;
	if (s->n_shapes == s->cap_shapes) {
		/* Shapes and their memo rows, one capacity; the memo bound keeps it small. */
		size_t cap = gs_grow_cap((size_t)s->cap_shapes, 32);

		if (GS_GROW_RESIZE(s->shapes, cap) ||
		    GS_GROW_RESIZE(s->memo, cap * (size_t)s->n_nodes))
			return -1;
		s->cap_shapes = (int32_t)cap;
	}
	i = s->n_shapes++;
	s->shapes[i].cpu_milli = p->cpu_milli;
	s->shapes[i].num_gpu = p->num_gpu;
	s->shapes[i].gpu_milli = p->gpu_milli;
	s->shapes[i].gpu_mem_mib = p->gpu_mem_mib;
	memset(s->memo + (size_t)i * (size_t)s->n_nodes, 0, (size_t)s->n_nodes * sizeof(*s->memo));
	return s->last_shape = i;
}

/* The memoised score of node for p, computed if the node changed since. */
static const struct gs_fgd_memo *fgd_lookup(struct gs_fgd *s, const struct gs_cluster *c,
					    int32_t node, const struct gs_pod *p,
					    struct gs_fgd_memo *tmp)
{
	int32_t sh = shape_of(s, p);
	struct gs_fgd_memo *m;

	if (sh < 0) {
		/* No room in the memo: still answer, just slower. */
		tmp->score = fgd_eval(s, c, node, p, &tmp->gpu);
		return tmp;
	}
	m = &s->memo[(size_t)sh * (size_t)s->n_nodes + (size_t)node];
	if (m->stamp != s->version[node] + 1) {
		m->score = fgd_eval(s, c, node, p, &m->gpu);
		m->stamp = s->version[node] + 1;
	}
	return m;
}

double gs_fgd_score(void *state, const struct gs_cluster *c, int32_t node, const struct gs_pod *p)
{
	struct gs_fgd_memo tmp;

	return fgd_lookup(state, c, node, p, &tmp)->score;
}

/*
 * Under the index a score is asked for once per node state and request
 * shape, right after the node changed: the memo's entry is stale then,
 * and reading it missed the caches (perf, FGD on 12,500 nodes: 7% of the
 * run). The GPU pick still goes through the memo.
 */
double gs_fgd_score_once(void *state, const struct gs_cluster *c, int32_t node,
			 const struct gs_pod *p)
{
	int32_t gpu;

	return fgd_eval(state, c, node, p, &gpu);
}

void gs_fgd_pick(void *state, const struct gs_cluster *c, int32_t node, const struct gs_pod *p,
		 struct gs_placement *pl)
{
	struct gs_fgd_memo tmp;
	int32_t gpu;

	if (p->num_gpu != 1 || p->gpu_milli >= GS_MILLI_PER_GPU) {
		gs_gpu_pick_first(state, c, node, p, pl);
		return;
	}
	gpu = fgd_lookup(state, c, node, p, &tmp)->gpu;
	pl->num_gpu = gpu >= 0;
	pl->gpu[0] = (uint8_t)(gpu >= 0 ? gpu : 0);
}

const struct gs_policy gs_policy_fgd = {
	.name = "fgd",
	.summary = "least growth of expected GPU fragmentation, Weng et al. ATC 2023",
	.state_size = sizeof(struct gs_fgd),
	.init = fgd_init,
	.release = gs_fgd_release,
	GS_FGD_METHODS,
};
