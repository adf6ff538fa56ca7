/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound.c - bounds on what any placement allocates in the inflation
 * experiment (bound.h): the arrivals and buckets as the replay makes them,
 * the pod and node types of a prefix, the aggregate bound, and the calls
 * to the LP (bound_glpk.c) and the integer program (bound_mip.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/mem.h"
#include "engine/bound.h"
#include "engine/bound_internal.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "policies/policy.h"
#include "policies/sched.h"

/*
 * Arrivals of a bucket at which OPT is bounded (spread evenly, its first
 * and last among them): between two, OPT grows by at most 1/(n-1) of what
 * the bucket's arrivals ask (about 0.1 points of the unallocated GPU % on
 * openb), which is all the floor loses to not bounding every arrival.
 */
#define BOUND_POINTS 5
/* Models beyond which the max-flow's cut enumeration gives way to the total. */
#define BOUND_FLOW_MAX_MODELS 16

void gs_bound_opts_init(struct gs_bound_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 42;
	o->inflate = 1.3;
	o->methods = GS_BOUND_AGGREGATE | GS_BOUND_LP;
	o->exact_time_limit_s = 60;
}

static bool same_request(const struct gs_pod *a, const struct gs_pod *b)
{
	return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
	       a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_mem_mib == b->gpu_mem_mib && a->model_mask == b->model_mask;
}

static bool same_node(const struct gs_node *a, const struct gs_node *b)
{
	return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
	       a->num_gpu == b->num_gpu && a->model == b->model;
}

/* The work of one call: the arrivals, their types and the problem handed to GLPK. */
struct bound_work {
	int32_t *idx;               /* arrival -> trace pod */
	size_t n_arr;
	int64_t *arrived;           /* arrival -> GPU request arrived so far */
	int32_t *type_of;           /* arrival -> pod type, -1 for pods without GPU */
	struct gs_bound_pod_type *types; /* every GPU pod type of the arrivals */
	int32_t n_types;
	int32_t *pt_of;             /* type -> its index in pb.pt for the prefix, -1 */
	const struct gs_trace *t;
	struct gs_bound_problem pb;  /* the node types, and the types of one prefix */
};

static void work_release(struct bound_work *w)
{
	GS_MEM_FREE(w->idx, w->arrived, w->type_of, w->types, w->pt_of, w->pb.nt, w->pb.pt,
		    w->pb.allowed);
}

/* GPU node types, and each GPU pod type of the arrivals. */
static int build_types(struct bound_work *w, const struct gs_cluster *c, const struct gs_trace *t)
{
	size_t i;
	int32_t n, j;

	w->pb.c = c;
	w->pb.nt = calloc((size_t)c->n_nodes + 1, sizeof(*w->pb.nt));
	w->type_of = malloc((w->n_arr + 1) * sizeof(*w->type_of));
	w->types = malloc((w->n_arr + 1) * sizeof(*w->types));
	if (!w->pb.nt || !w->type_of || !w->types)
		return GS_ENOMEM;
	for (n = 0; n < c->n_nodes; n++) {
		if (c->nodes[n].num_gpu <= 0)
			continue;
		for (j = 0; j < w->pb.n_nt; j++)
			if (same_node(&c->nodes[w->pb.nt[j].node], &c->nodes[n]))
				break;
		if (j == w->pb.n_nt)
			w->pb.nt[w->pb.n_nt++].node = n;
		w->pb.nt[j].count++;
	}
	/* Types by first arrival; a linear search per new request is fine for traces' few shapes. */
	for (i = 0; i < w->n_arr; i++) {
		const struct gs_pod *p = &t->pods[w->idx[i]];

		w->type_of[i] = -1;
		if (gs_pod_cpu_only(p))
			continue;
		for (j = 0; j < w->n_types; j++)
			if (same_request(&w->types[j].req, p))
				break;
		if (j == w->n_types) {
			w->types[j].req = *p;
			w->types[j].req.t_create_s = w->types[j].req.t_delete_s = -1;
			w->types[j].count = 0;
			w->n_types++;
		}
		w->type_of[i] = j;
	}
	w->pb.pt = malloc(((size_t)w->n_types + 1) * sizeof(*w->pb.pt));
	w->pt_of = malloc(((size_t)w->n_types + 1) * sizeof(*w->pt_of));
	w->pb.allowed = malloc(((size_t)w->n_types + 1) * ((size_t)w->pb.n_nt + 1));
	if (!w->pb.pt || !w->pb.allowed || !w->pt_of)
		return GS_ENOMEM;
	return 0;
}

/*
 * The problem of the prefix arrivals 0..last: the types with a pod there,
 * their counts, and where each may go on an empty node.
 */
static void prefix_problem(struct bound_work *w, size_t last)
{
	struct gs_bound_problem *pb = &w->pb;
	size_t i;
	int32_t k, j;

	for (k = 0; k < w->n_types; k++)
		w->types[k].count = 0;
	for (i = 0; i <= last; i++)
		if (w->type_of[i] >= 0)
			w->types[w->type_of[i]].count++;
	pb->n_pt = 0;
	for (k = 0; k < w->n_types; k++) {
		w->pt_of[k] = -1;
		if (!w->types[k].count)
			continue;
		w->pt_of[k] = pb->n_pt;
		pb->pt[pb->n_pt] = w->types[k];
		for (j = 0; j < pb->n_nt; j++)
			pb->allowed[(size_t)pb->n_pt * (size_t)pb->n_nt + (size_t)j] =
				gs_cluster_fits(pb->c, pb->nt[j].node, &w->types[k].req) == GS_FIT_OK;
		pb->n_pt++;
	}
}

/*
 * A cut of the flow below: the capacity of the models in `in`, plus the
 * request of the pods that may use a model outside it (the overflow
 * `other` may use any model).
 */
static double cut_value(uint32_t in, uint32_t present, const double *cap, const uint32_t *sets,
			const double *demand, int32_t n_sets, double other)
{
	double v = 0;
	int32_t k;

	for (k = 0; k < GS_MAX_MODELS; k++)
		if ((in >> k) & 1u)
			v += cap[k];
	for (k = 0; k < n_sets; k++)
		if (sets[k] & ~in)
			v += demand[k];
	if (in != present)
		v += other;
	return v;
}

/*
 * The aggregate bound of the prefix: a max-flow of the placeable GPU
 * request to the GPU models, each node type giving at most what its CPU
 * and memory let the most GPU-hungry pod per CPU (and per MiB) that fits
 * there take. By max-flow min-cut, the flow is the least, over sets S of
 * models, of S's capacity plus the request of the pods that may use a
 * model outside S; with more models than BOUND_FLOW_MAX_MODELS, only S =
 * all and S = none are tried (still a bound). Pod types past the table of
 * model sets count as able to use any model, which only raises the flow.
 */
static int64_t aggregate_bound(const struct gs_bound_problem *pb)
{
	const struct gs_cluster *c = pb->c;
	double cap[GS_MAX_MODELS] = { 0 };
	uint32_t present = 0, sets[GS_MAX_MODELS * 4];
	double demand_of_set[GS_MAX_MODELS * 4];
	int32_t n_sets = 0, t, j, n_models = 0;
	int model_at[GS_MAX_MODELS];
	double best, other = 0;
	uint64_t s, n_cuts;

	for (j = 0; j < pb->n_nt; j++) {
		const struct gs_node *n = &c->nodes[pb->nt[j].node];
		double by_cpu = INFINITY, by_mem = INFINITY, gpu = (double)n->num_gpu * GS_MILLI_PER_GPU;
		bool any = false;

		for (t = 0; t < pb->n_pt; t++) {
			const struct gs_pod *p = &pb->pt[t].req;
			double g = (double)gs_pod_gpu_milli(p);

			if (!gs_bound_allowed(pb, t, j))
				continue;
			if (!any)
				by_cpu = by_mem = 0;
			any = true;
			by_cpu = p->cpu_milli > 0 ? fmax(by_cpu, g / p->cpu_milli * n->cpu_milli) : INFINITY;
			by_mem = p->mem_mib > 0 ? fmax(by_mem, g / (double)p->mem_mib * (double)n->mem_mib)
						: INFINITY;
		}
		if (!any)
			continue;
		cap[n->model] += (double)pb->nt[j].count * fmin(gpu, fmin(by_cpu, by_mem));
		present |= 1u << n->model;
	}
	for (j = 0; j < GS_MAX_MODELS; j++)
		if ((present >> j) & 1u)
			model_at[n_models++] = j;
	/* The request per set of models its pods may use. */
	for (t = 0; t < pb->n_pt; t++) {
		uint32_t set = 0;
		int32_t k;

		for (j = 0; j < pb->n_nt; j++)
			if (gs_bound_allowed(pb, t, j))
				set |= 1u << c->nodes[pb->nt[j].node].model;
		if (!set)
			continue;
		for (k = 0; k < n_sets && sets[k] != set; k++)
			;
		if (k == n_sets) {
			if (n_sets == (int32_t)(sizeof(sets) / sizeof(sets[0]))) {
				/* Too many sets to cut over: count the rest as able to go anywhere. */
				other += (double)pb->pt[t].count * (double)gs_pod_gpu_milli(&pb->pt[t].req);
				continue;
			}
			sets[n_sets] = set;
			demand_of_set[n_sets++] = 0;
		}
		demand_of_set[k] += (double)pb->pt[t].count * (double)gs_pod_gpu_milli(&pb->pt[t].req);
	}
	/* S = all the models, then every other subset when there are few enough. */
	best = cut_value(present, present, cap, sets, demand_of_set, n_sets, other);
	n_cuts = n_models <= BOUND_FLOW_MAX_MODELS ? (uint64_t)1 << n_models : 1;
	for (s = 0; s < n_cuts; s++) {
		uint32_t in = 0;
		int32_t k;

		for (k = 0; k < n_models; k++)
			if ((s >> k) & 1u)
				in |= 1u << model_at[k];
		best = fmin(best, cut_value(in, present, cap, sets, demand_of_set, n_sets, other));
	}
	return (int64_t)floor(best + 1e-6);
}

/*
 * The arrivals whose arrived workload rounds to lo..hi percent: they are
 * consecutive (the arrived request only grows), [*first, *last]. Returns
 * how many.
 */
static int64_t bucket(const struct bound_work *w, int64_t cap, int32_t lo, int32_t hi,
		      size_t *first, size_t *last)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < w->n_arr; i++) {
		struct gs_sample sm;
		int64_t pct;

		memset(&sm, 0, sizeof(sm));
		sm.arrived_gpu_milli = w->arrived[i];
		pct = gs_sample_arrived_pct(&sm, cap);
		if (pct >= lo && pct <= hi) {
			if (!n)
				*first = i;
			n++;
			*last = i;
		}
	}
	return n;
}

/*
 * The floor of the bucket's mean unallocated GPU %, from bounds b[k] on
 * OPT at the arrivals at[k] (ascending, the last the bucket's last; b[k] <
 * 0: none there). OPT grows with the arrivals, and by at most what they
 * ask, so at arrival i it is at most b[k] for every at[k] >= i and b[k] +
 * arrived(i) - arrived(at[k]) for every at[k] <= i, and at most arrived(i).
 */
static double unalloc_floor(const struct bound_work *w, int64_t cap, size_t first, size_t last,
			    const size_t *at, const int64_t *b, int32_t n_at)
{
	double sum = 0;
	size_t i;
	int32_t k;

	for (i = first; i <= last; i++) {
		int64_t opt = w->arrived[i];

		for (k = 0; k < n_at; k++) {
			if (b[k] < 0)
				continue;
			if (at[k] >= i && b[k] < opt)
				opt = b[k];
			if (at[k] <= i && b[k] + w->arrived[i] - w->arrived[at[k]] < opt)
				opt = b[k] + w->arrived[i] - w->arrived[at[k]];
		}
		sum += 100.0 - 100.0 * (double)opt / (double)cap;
	}
	return sum / (double)(last - first + 1);
}

/* A pod to place, with the keys of the greedy's largest-first order. */
struct sort_item {
	int64_t gpu;
	int32_t share, cpu, pod;
	size_t arrival;
};

/* Larger GPU requests first, then larger shares, then less CPU, then arrival order. */
static int cmp_by_size(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;

	if (x->gpu != y->gpu)
		return x->gpu > y->gpu ? -1 : 1;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

/*
 * A placement of the prefix's GPU pods found by a policy, in arrival order
 * or largest first, on a copy of the empty cluster; out gets it when it
 * allocates more than what out holds.
 */
static int greedy(struct bound_work *w, size_t last, const struct gs_policy *pol, bool by_size,
		  struct gs_bound_start *out)
{
	struct gs_cluster c;
	struct gs_sched s;
	struct gs_policy_env env;
	struct gs_bound_placed *v = malloc((last + 2) * sizeof(*v));
	struct sort_item *order = malloc((last + 2) * sizeof(*order));
	size_t i, n_order = 0, n = 0;
	int64_t got = 0;
	int rc;

	gs_cluster_init(&c);
	if (!v || !order || gs_cluster_copy(&c, w->pb.c)) {
		free(v);
		free(order);
		gs_cluster_release(&c);
		return GS_ENOMEM;
	}
	for (i = 0; i <= last; i++) {
		const struct gs_pod *p = &w->t->pods[w->idx[i]];

		if (w->type_of[i] < 0)
			continue;
		order[n_order].gpu = gs_pod_gpu_milli(p);
		order[n_order].share = p->gpu_milli;
		order[n_order].cpu = p->cpu_milli;
		order[n_order].pod = w->idx[i];
		order[n_order++].arrival = i;
	}
	if (by_size)
		qsort(order, n_order, sizeof(*order), cmp_by_size);
	memset(&env, 0, sizeof(env));
	env.cluster = &c;
	env.workload = w->t->pods;
	env.n_workload = w->t->n_pods;
	env.seed = 42;
	rc = gs_sched_init(&s, pol, &env);
	for (i = 0; rc == 0 && i < n_order; i++) {
		const struct gs_pod *p = &w->t->pods[order[i].pod];
		struct gs_placement pl;
		int32_t k;

		if (gs_sched_pick(&s, &c, p, &pl, NULL) != 0)
			continue;
		rc = gs_sched_bind(&s, &c, p, &pl);
		k = w->pt_of[w->type_of[order[i].arrival]];
		if (rc == 0) {
			v[n].type = k;
			v[n++].pl = pl;
			got += gs_pod_gpu_milli(p);
		}
	}
	if (rc == 0 || rc == GS_ENOFIT) {
		if (got > out->gpu_milli) {
			free(out->v);
			out->v = v;
			out->n = n;
			out->gpu_milli = got;
			v = NULL;
		}
		rc = 0;
	}
	gs_sched_release(&s);
	gs_cluster_release(&c);
	free(v);
	free(order);
	return rc;
}

/* The best of a few greedy placements, the integer program's starting point. */
static int best_greedy(struct bound_work *w, size_t last, struct gs_bound_start *out)
{
	static const char *const names[] = { "fgd-lookahead", "fgd", "bestfit", "first-fit" };
	size_t i;
	int rc = 0;

	out->gpu_milli = -1;
	for (i = 0; rc == 0 && i < 2 * sizeof(names) / sizeof(names[0]); i++) {
		const struct gs_policy *pol = gs_policy_find(names[i / 2]);

		if (pol)
			rc = greedy(w, last, pol, i % 2 == 1, out);
	}
	return rc;
}

static int check_opts(const struct gs_cluster *c, const struct gs_bound_opts *o,
		      const struct gs_bound_point *out, size_t n, char *err, size_t err_len)
{
	size_t i;

	if (c->share) {
		gs_errf(err, err_len, "the cluster sets GPU sharing modes; bounds are for shares "
			"as requested (the ideal mode)");
		return GS_EINVAL;
	}
	if (c->gpu_milli <= 0) {
		gs_errf(err, err_len, "the cluster has no GPUs");
		return GS_EINVAL;
	}
	if (!(o->inflate > 0) || o->inflate > GS_INFLATE_MAX) {
		gs_errf(err, err_len, "--inflate %g is not in (0, %g]", o->inflate, GS_INFLATE_MAX);
		return GS_EINVAL;
	}
	if (!(o->exact_time_limit_s > 0) || o->exact_time_limit_s > 86400.0 * 365) {
		gs_errf(err, err_len, "the time limit %g s is not positive or is past a year",
			o->exact_time_limit_s);
		return GS_EINVAL;
	}
	if (n == 0 || n > GS_BOUND_MAX_POINTS) {
		gs_errf(err, err_len, "%zu buckets: bound 1 to %d at a time", n, GS_BOUND_MAX_POINTS);
		return GS_ERANGE;
	}
	for (i = 0; i < n; i++) {
		if (out[i].arrived_pct < 0 || out[i].arrived_pct > 100 * GS_INFLATE_MAX) {
			gs_errf(err, err_len, "arrived workload %d%% is out of range",
				out[i].arrived_pct);
			return GS_ERANGE;
		}
	}
	return 0;
}

/*
 * One bucket: the arrivals, then at BOUND_POINTS of them spread over the
 * bucket each bound the options ask for (the integer program only at the
 * last), and the floors they give.
 */
static int bound_point(struct bound_work *w, const struct gs_bound_opts *o,
		       struct gs_bound_point *pt, char *err, size_t err_len)
{
	int64_t cap = w->pb.c->gpu_milli;
	int64_t agg[BOUND_POINTS], lp[BOUND_POINTS], best[BOUND_POINTS];
	size_t at[BOUND_POINTS], first = 0, last = 0;
	int32_t lo = pt->arrived_pct, hi = pt->arrived_pct, want = pt->arrived_pct, n_at, k;
	double t0;
	int rc;

	memset(pt, 0, sizeof(*pt));
	pt->arrived_pct = want;
	pt->aggregate_milli = pt->lp_milli = pt->exact_milli = pt->exact_bound_milli = -1;
	pt->unalloc_pct_min = pt->aggregate_unalloc_pct_min = NAN;
	pt->lp_unalloc_pct_min = pt->exact_unalloc_pct_min = NAN;
	pt->n_samples = bucket(w, cap, lo, hi, &first, &last);
	if (pt->n_samples == 0 && want == 100) {
		lo = 99;
		hi = 101;
		pt->n_samples = bucket(w, cap, lo, hi, &first, &last);
	}
	if (pt->n_samples == 0)
		return 0;
	pt->n_pods = (int64_t)last + 1;
	pt->arrived_gpu_milli = w->arrived[last];
	n_at = pt->n_samples < BOUND_POINTS ? (int32_t)pt->n_samples : BOUND_POINTS;
	for (k = 0; k < n_at; k++) {
		at[k] = n_at == 1 ? last : first + (last - first) * (size_t)k / (size_t)(n_at - 1);
		lp[k] = -1;
		prefix_problem(w, at[k]);
		t0 = gs_clock_ms();
		agg[k] = aggregate_bound(&w->pb);
		if (agg[k] > w->arrived[at[k]])
			agg[k] = w->arrived[at[k]];
		pt->aggregate_ms += gs_clock_ms() - t0;
		best[k] = agg[k];
		if (o->methods & (GS_BOUND_LP | GS_BOUND_EXACT)) {
			int32_t cols = 0;

			t0 = gs_clock_ms();
			rc = gs_bound_glpk_lp(&w->pb, &lp[k], &cols, err, err_len);
			pt->lp_ms += gs_clock_ms() - t0;
			pt->lp_columns += cols;
			if (rc)
				return rc;
			if (lp[k] < best[k])
				best[k] = lp[k];
		}
	}
	pt->aggregate_milli = agg[n_at - 1];
	pt->aggregate_unalloc_pct_min = unalloc_floor(w, cap, first, last, at, agg, n_at);
	pt->method = "aggregate";
	if (o->methods & (GS_BOUND_LP | GS_BOUND_EXACT)) {
		pt->lp_milli = lp[n_at - 1];
		pt->lp_unalloc_pct_min = unalloc_floor(w, cap, first, last, at, lp, n_at);
		if (pt->lp_unalloc_pct_min > pt->aggregate_unalloc_pct_min)
			pt->method = "lp";
	}
	if (o->methods & GS_BOUND_EXACT) {
		struct gs_bound_start start;

		/* w->pb holds the last point's problem. */
		memset(&start, 0, sizeof(start));
		t0 = gs_clock_ms();
		rc = best_greedy(w, last, &start);
		if (rc == 0)
			rc = gs_bound_mip_solve(&w->pb, best[n_at - 1], &start, o->exact_time_limit_s,
						&pt->exact_milli, &pt->exact_bound_milli, err,
						err_len);
		free(start.v);
		pt->exact_ms = gs_clock_ms() - t0;
		if (rc)
			return rc;
		pt->exact_optimal = pt->exact_milli >= 0 && pt->exact_milli == pt->exact_bound_milli;
		/* Proven optimal, or tighter than the LP: the floor is the integer program's. */
		if (pt->exact_bound_milli >= 0 &&
		    (pt->exact_bound_milli < best[n_at - 1] ||
		     (pt->exact_optimal && pt->exact_bound_milli == best[n_at - 1]))) {
			best[n_at - 1] = pt->exact_bound_milli;
			pt->method = "exact";
		}
		/* The integer program runs at the last arrival only: elsewhere its floor uses the others. */
		pt->exact_unalloc_pct_min = unalloc_floor(w, cap, first, last, at, best, n_at);
	}
	pt->unalloc_pct_min = unalloc_floor(w, cap, first, last, at, best, n_at);
	return 0;
}

int gs_bound_compute(const struct gs_cluster *c, const struct gs_trace *t,
		     const struct gs_bound_opts *o, struct gs_bound_point *out, size_t n, char *err,
		     size_t err_len)
{
	struct bound_work w;
	int64_t sum = 0;
	size_t i;
	int rc;

	rc = check_opts(c, o, out, n, err, err_len);
	if (rc)
		return rc;
	memset(&w, 0, sizeof(w));
	w.t = t;
	rc = gs_inflate_order(t, o->seed, o->inflate, c->gpu_milli, &w.idx, &w.n_arr);
	if (rc == GS_EINVAL) {
		gs_errf(err, err_len, "%s: no pod asks for a GPU, so the inflation cannot grow it",
			t->path ? t->path : "the trace");
		return rc;
	}
	if (rc == GS_ERANGE) {
		gs_errf(err, err_len, "%s: the inflation to %g x the GPU capacity would make more "
			"than %d arrivals", t->path ? t->path : "the trace", o->inflate,
			GS_INFLATE_MAX_PODS);
		return rc;
	}
	if (rc)
		return rc;
	w.arrived = malloc((w.n_arr + 1) * sizeof(*w.arrived));
	if (!w.arrived) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (i = 0; i < w.n_arr; i++) {
		sum += gs_pod_gpu_milli(&t->pods[w.idx[i]]);
		w.arrived[i] = sum;
	}
	rc = build_types(&w, c, t);
	for (i = 0; rc == 0 && i < n; i++)
		rc = bound_point(&w, o, &out[i], err, err_len);
out:
	if (rc == GS_ENOMEM && err && !*err)
		gs_errf(err, err_len, "out of memory");
	work_release(&w);
	return rc;
}
