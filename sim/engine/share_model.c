/* SPDX-License-Identifier: Apache-2.0 */
/*
 * share_model.c - the rate model (see share_model.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/limits.h"
#include "core/mem.h"
#include "engine/share_model.h"

_Static_assert(GS_MAX_GPUS <= 16, "struct gs_share_pod.on_mig has a bit per GPU of a placement");

/* Pods a GPU's rate computation looks at; later ones share the last slot's fate. */
#define GPU_PODS_MAX 64
/* Workload classes whose efficiency on a GPU a reschedule keeps (struct gpu_shares). */
#define EFF_CACHE 4

/* n GPU entries, each in a cache line of its own, without pods. NULL: no memory. */
static struct gs_share_gpu *gs_share_gpus_alloc(size_t n)
{
	struct gs_share_gpu *g;
	size_t k;

	if (n > SIZE_MAX / sizeof(*g) - 1)
		return NULL;
	g = aligned_alloc(_Alignof(struct gs_share_gpu), (n ? n : 1) * sizeof(*g));
	if (!g)
		return NULL;
	memset(g, 0, (n ? n : 1) * sizeof(*g));
	for (k = 0; k < n; k++) {
		g[k].pods = g[k].inline_pods;
		g[k].cap = GS_SHARE_GPU_INLINE;
	}
	return g;
}

int gs_share_model_init(struct gs_share_model *m, const struct gs_cluster *c,
			const struct gs_pod *pods, size_t n, const struct gs_trace *t,
			const struct gs_interference *tbl)
{
	size_t n_curves;
	int32_t node;
	int64_t g = 0;
	bool any_mig = false;

	memset(m, 0, sizeof(*m));
	m->c = c;
	m->pods = pods;
	m->trace = t;
	m->tbl = tbl;
	m->n_pods = n;
	m->p = calloc(n ? n : 1, sizeof(*m->p));
	m->gpu_base = malloc(((size_t)c->n_nodes + 1) * sizeof(*m->gpu_base));
	m->gpus = gs_share_gpus_alloc((size_t)c->gpu_count);
	n_curves = (size_t)GS_SHARE__COUNT * (size_t)(c->models.n ? c->models.n : 1) *
		   (size_t)((t ? t->n_classes : 0) + 1);
	m->curves = malloc(n_curves * sizeof(*m->curves));
	m->have_curve = calloc(n_curves, 1);
	if (!m->p || !m->gpu_base || !m->gpus || !m->curves || !m->have_curve) {
		gs_share_model_release(m);
		return GS_ENOMEM;
	}
	m->n_gpus = c->gpu_count;
	for (node = 0; node < c->n_nodes; node++) {
		const struct gs_node *nd = &c->nodes[node];
		int k;

		m->gpu_base[node] = (int32_t)g;
		g += nd->num_gpu;
		/* MIG capacity and the idle slices of fixed layouts at the start. */
		for (k = 0; c->share && k < nd->num_gpu; k++) {
			const struct gs_gpu_share *gs = &c->share[node].gpu[k];
			const struct gs_mig_table *mt = gs_cluster_mig_table(c, node);
			int j;

			any_mig |= gs->mode == GS_SHARE_MIG;
			if (gs->mode != GS_SHARE_MIG || !mt)
				continue;
			m->fig.mig_slices += GS_MIG_COMPUTE_SLICES;
			for (j = 0; j < gs->mig.n; j++)
				if (!gs->mig.inst[j].busy)
					m->mig_idle_slices += mt->p[gs->mig.inst[j].profile].compute;
		}
	}
	m->gpu_base[c->n_nodes] = (int32_t)g;
	/*
	 * The MIG GPUs' lines, only where there are MIG GPUs; calloc() maps
	 * large blocks zeroed on first touch; one entry more to align them.
	 */
	if (any_mig) {
		m->mig_mem = calloc((size_t)c->gpu_count + 1, sizeof(*m->mig));
		if (!m->mig_mem) {
			gs_share_model_release(m);
			return GS_ENOMEM;
		}
		m->mig = (struct gs_share_mig_gpu *)(void *)(((uintptr_t)m->mig_mem +
							     _Alignof(struct gs_share_mig_gpu) - 1) /
							    _Alignof(struct gs_share_mig_gpu) *
							    _Alignof(struct gs_share_mig_gpu));
	}
	m->t_last = -1;
	m->t_useful = INT64_MIN;
	return 0;
}

void gs_share_model_release(struct gs_share_model *m)
{
	int64_t g;

	for (g = 0; m->gpus && g < m->n_gpus; g++)
		if (m->gpus[g].pods != m->gpus[g].inline_pods)
			free(m->gpus[g].pods);
	GS_MEM_FREE(m->gpus, m->mig_mem, m->gpu_base, m->p, m->curves, m->have_curve, m->touched);
	memset(m, 0, sizeof(*m));
}

/* The table's efficiency at n, its curve cached per (mode, model, class). */
static double efficiency(struct gs_share_model *m, int mode, int model, int wclass, double n)
{
	int n_models = m->c->models.n ? m->c->models.n : 1;
	int n_classes = (m->trace ? m->trace->n_classes : 0) + 1;
	struct gs_ifr_curve tmp;
	size_t idx;

	if (model < 0 || model >= n_models || wclass < 0 || wclass >= n_classes) {
		gs_interference_curve(m->tbl, mode, NULL, NULL, &tmp);
		return gs_interference_curve_eval(&tmp, n);
	}
	idx = ((size_t)mode * (size_t)n_models + (size_t)model) * (size_t)n_classes +
	      (size_t)wclass;
	if (!m->have_curve[idx]) {
		gs_interference_curve(m->tbl, mode, m->c->models.m[model].name,
				      m->trace ? gs_trace_class_name(m->trace, wclass) : "",
				      &m->curves[idx]);
		m->have_curve[idx] = 1;
	}
	return gs_interference_curve_eval(&m->curves[idx], n);
}

/*
 * fmin() as libm defines it (a NaN gives the other), inline: libm's is a
 * call, made several times per pod a reschedule visits.
 */
static inline double min_of(double a, double b)
{
	return b < a || a != a ? b : a;
}

/*
 * gs_share_model_water_fill(), inline: the model calls it with w NULL
 * (every key then its demand) or not, once or twice per GPU a start or
 * stop touches, and each demand's key is divided out once, not at every
 * comparison of the sort.
 */
static inline __attribute__((always_inline)) void water_fill(const double *d, const double *w,
							     double *out, int n)
{
	int order[GPU_PODS_MAX], i, j, k;
	double key[GPU_PODS_MAX], left = 1.0, wsum = 0.0, level;

	if (n > GPU_PODS_MAX)
		n = GPU_PODS_MAX;
	/* By the level at which each demand is met, d / w: insertion sort, a GPU holds few pods. */
	for (i = 0; i < n; i++) {
		key[i] = d[i] / (w ? w[i] : 1.0);
		for (j = i; j > 0 && key[order[j - 1]] > key[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
		wsum += w ? w[i] : 1.0;
	}
	for (k = 0; k < n; k++) {
		int q = order[k];
		double wq = w ? w[q] : 1.0;

		level = left / wsum;
		if (d[q] > wq * level) {
			/* Every demand from here on is above the level: each gets its weighted share. */
			for (; k < n; k++)
				out[order[k]] = (w ? w[order[k]] : 1.0) * level;
			return;
		}
		out[q] = d[q];
		left -= d[q];
		wsum -= wq;
	}
}

void gs_share_model_water_fill(const double *d, const double *w, double *out, int n)
{
	water_fill(d, w, out, n);
}

/* Resolves pod p's view (the defaults of unset fields) into sp. */
static void view_set(struct gs_share_pod *sp, const struct gs_pod *p)
{
	int32_t need = gs_pod_need_milli(p);
	int16_t busy = (int16_t)(p->busy_milli > 0 ? p->busy_milli : 1000);
	int16_t compute =
		(int16_t)(p->compute_milli > 0 ? p->compute_milli : GS_COMPUTE_DEFAULT_MILLI);

	sp->v.need = (need > 0 ? need : 1) / 1000.0;
	sp->v.busy = busy / 1000.0;
	sp->v.compute = compute / 1000.0;
	sp->v.request = p->gpu_milli / 1000.0;
	sp->wclass = p->wclass;
	sp->num_gpu = (uint8_t)p->num_gpu;
}

double gs_share_model_speed(const struct gs_share_view *v, double sm, double bw)
{
	double ts = v->need > sm ? v->need / sm : 1.0, tb = v->need > bw ? v->need / bw : 1.0;

	return 1.0 / (v->compute * ts + (1.0 - v->compute) * tb);
}

/* The rate of work with busy fraction b whose GPU phases run at `speed` and idle phases do not. */
static double phases(double b, double speed)
{
	return 1.0 / ((1.0 - b) + b / speed);
}

/* Pods on G that the rate computation looks at: its first GPU_PODS_MAX. */
static int gpu_pods(const struct gs_share_gpu *G)
{
	return G->n < GPU_PODS_MAX ? G->n : GPU_PODS_MAX;
}

/*
 * What the rate of every pod on one GPU is made of, for time-slicing, MPS
 * and vGPU: the pods' shares of the GPU as the water fill gives them and
 * their busy fractions in all. They are the same for every pod on the GPU,
 * so reschedule() works them out once per GPU (gpu_shares()) and each pod
 * picks its own (gpu_rate()): n pods on a GPU cost n, not n x n, view and
 * fill computations (perf, vGPU at 6,000 nodes: a third of the run).
 */
struct gpu_shares {
	int64_t gpu;              /* the GPU (m->gpus index) they are for; -1: none yet */
	int n;                    /* pods looked at: gpu_pods() */
	int next;                 /* the place after the pod gpu_rate() last found */
	int mode, model;          /* the GPU's mode and model */
	double acc, acc_rest;     /* vGPU: the limiter's accuracy / 1000, and 1 - that */
	double busy_sum;
	double got[GPU_PODS_MAX], fair[GPU_PODS_MAX], v0[GPU_PODS_MAX], dem[GPU_PODS_MAX];
	/* The efficiency at busy_sum for the workload classes asked so far. */
	int n_eff;
	int16_t eff_class[EFF_CACHE];
	double eff[EFF_CACHE];
};

/*
 * Fills sh for GPU gpu of node, of model `model`, in mode cfg->mode
 * (time-slicing, MPS or vGPU).
 */
static void gpu_shares(const struct gs_share_model *m, int32_t node, int gpu, int model,
		       const struct gs_share_cfg *cfg, struct gpu_shares *sh)
{
	const struct gs_share_gpu *G = &m->gpus[m->gpu_base[node] + gpu];
	struct gs_share_view v[GPU_PODS_MAX];
	double wt[GPU_PODS_MAX]; /* the first n, set before use */
	int n = gpu_pods(G), j;

	sh->gpu = m->gpu_base[node] + gpu;
	sh->n = n;
	sh->next = 0;
	sh->mode = cfg->mode;
	sh->model = model;
	sh->acc = cfg->accuracy_milli / 1000.0;
	sh->acc_rest = 1.0 - sh->acc;
	sh->n_eff = 0;
	sh->busy_sum = 0;
	for (j = 0; j < n; j++) {
		v[j] = m->p[G->pods[j]].v;
		sh->busy_sum += v[j].busy;
	}
	/* Each mode sets the first n of the arrays gpu_rate() reads for it; the fills set all n. */
	switch (cfg->mode) {
	case GS_SHARE_TIMESLICE:
		/* Contexts take turns: shares of time among the busy fractions. */
		for (j = 0; j < n; j++)
			sh->dem[j] = v[j].busy;
		water_fill(sh->dem, NULL, sh->got, n);
		break;
	case GS_SHARE_MPS: {
		double c = gs_share_mps_thread_milli(cfg) / 1000.0;

		/* Side by side on the SMs, each client within its thread share. */
		for (j = 0; j < n; j++) {
			double sp_cap = gs_share_model_speed(&v[j], c, 1.0);

			sh->v0[j] = phases(v[j].busy, sp_cap);
			sh->dem[j] = sh->v0[j] * v[j].busy * min_of(v[j].need, c) / sp_cap;
		}
		water_fill(sh->dem, NULL, sh->got, n);
		break;
	}
	case GS_SHARE_VGPU:
		/* Time shares as time-slicing gives them, then held to the requests. */
		for (j = 0; j < n; j++) {
			sh->dem[j] = v[j].busy;
			wt[j] = v[j].request > 0 ? v[j].request : 0.001;
		}
		/*
		 * gpu_rate() weighs the two by acc and 1 - acc; a share weighed
		 * by 0 adds +0.0 whatever it is (each is finite), so it is not
		 * worked out. The default accuracy is 1: no fair shares.
		 */
		if (sh->acc_rest == 0.0)
			memset(sh->fair, 0, (size_t)n * sizeof(sh->fair[0]));
		else
			water_fill(sh->dem, NULL, sh->fair, n);
		if (sh->acc == 0.0) {
			memset(sh->got, 0, (size_t)n * sizeof(sh->got[0]));
		} else if (cfg->elastic) {
			water_fill(sh->dem, wt, sh->got, n);
		} else {
			for (j = 0; j < n; j++)
				sh->dem[j] = min_of(v[j].busy, wt[j]);
			water_fill(sh->dem, NULL, sh->got, n);
			for (j = 0; j < n; j++)
				sh->got[j] = min_of(sh->got[j], wt[j]);
		}
		break;
	default:
		break;
	}
}

/*
 * Pod i's rate on the k-th GPU of its placement; sh holds the shares of
 * the GPU gpu_rate() was last asked about in this reschedule().
 */
static double gpu_rate(struct gs_share_model *m, int32_t i, int k, struct gpu_shares *sh)
{
	const struct gs_share_pod *sp = &m->p[i];
	const struct gs_share_view *me = &sp->v;
	int32_t node = sp->pl.node;
	int gpu = sp->pl.gpu[k];
	int64_t g = m->gpu_base[node] + gpu;
	const struct gs_share_gpu *G = &m->gpus[g];
	double rate, e;
	int self = 0, j;

	/* sh is only ever filled for a shared GPU: the next pods on it read their mode there. */
	if (sh->gpu != g) {
		const struct gs_share_cfg *cfg = gs_cluster_gpu_share(m->c, node, gpu);
		int model = m->c->nodes[node].model;

		switch (cfg->mode) {
		case GS_SHARE_EXCLUSIVE:
			return min_of(1.0, efficiency(m, cfg->mode, model, sp->wclass, 1.0));
		case GS_SHARE_MIG: {
			const struct gs_mig_table *t = gs_cluster_mig_table(m->c, node);
			const struct gs_gpu_share *gs = &m->c->share[node].gpu[gpu];
			int inst = gs_mig_instance_at(&gs->mig, sp->pl.mig[k] - 1);
			const struct gs_mig_profile *pr;

			if (inst < 0 || !t)
				return 1.0;
			pr = &t->p[gs->mig.inst[inst].profile];
			rate = phases(me->busy,
				      gs_share_model_speed(me, gs_mig_profile_sm_share(t, pr),
							   gs_mig_profile_bw_share(pr)));
			return min_of(1.0, rate * efficiency(m, cfg->mode, model, sp->wclass,
							     pr->compute));
		}
		case GS_SHARE_TIMESLICE:
		case GS_SHARE_MPS:
		case GS_SHARE_VGPU:
			break;
		default: /* ideal */
			return 1.0;
		}
		gpu_shares(m, node, gpu, model, cfg, sh);
	}
	/*
	 * The pod's place among those looked at (the first, should it be past
	 * them). A GPU's pods are distinct and reschedule() mostly asks about
	 * them in their order, so the place after the last one is tried first.
	 */
	if (sh->next < sh->n && G->pods[sh->next] == i) {
		self = sh->next;
	} else {
		for (j = 0; j < sh->n; j++)
			if (G->pods[j] == i) {
				self = j;
				break;
			}
	}
	sh->next = self + 1;
	if (sh->mode == GS_SHARE_TIMESLICE)
		rate = min_of(1.0, sh->got[self] / me->busy);
	else if (sh->mode == GS_SHARE_MPS)
		rate = sh->v0[self] * min_of(1.0, sh->got[self] / sh->dem[self]);
	else
		rate = min_of(1.0, (sh->acc * sh->got[self] + sh->acc_rest * sh->fair[self]) /
				   me->busy);
	for (j = 0; j < sh->n_eff && sh->eff_class[j] != sp->wclass; j++)
		;
	if (j < sh->n_eff) {
		e = sh->eff[j];
	} else {
		e = efficiency(m, sh->mode, sh->model, sp->wclass, sh->busy_sum);
		if (sh->n_eff < EFF_CACHE) {
			sh->eff_class[sh->n_eff] = sp->wclass;
			sh->eff[sh->n_eff++] = e;
		}
	}
	return min_of(1.0, rate * e);
}

/*
 * need x busy x GPUs of pod i: what one unit of its rate is worth in
 * useful GPU share (what it keeps busy of its GPUs on average at full speed).
 */
static double weight(const struct gs_share_model *m, int32_t i)
{
	const struct gs_share_pod *sp = &m->p[i];

	return sp->v.need * sp->v.busy * sp->num_gpu;
}

/* Integrates the useful-work rate up to t. */
static void useful_advance(struct gs_share_model *m, int64_t t)
{
	if (m->t_useful == INT64_MIN) {
		m->t_useful = t;
	} else if (t > m->t_useful) {
		m->fig.useful_gpu_s += m->useful_rate * (double)(t - m->t_useful);
		m->t_useful = t;
	}
}

void gs_share_model_arrival(struct gs_share_model *m, int64_t t)
{
	useful_advance(m, t);
	m->fig.useful_arr_gpu_s = m->fig.useful_gpu_s;
}

/* Brings pod i's work and integrals to time t at its current rate. */
static void advance(struct gs_share_model *m, int32_t i, int64_t t)
{
	struct gs_share_pod *sp = &m->p[i];
	int64_t dt = t - sp->t_upd, done, full;

	if (dt <= 0)
		return;
	/*
	 * rate x dt passes int64 after 2^43 s at full speed (legal times reach
	 * 2^53 s): then a finite pod surely finished, and the rest is counted
	 * in doubles, as the integrals are.
	 */
	if (__builtin_mul_overflow(sp->rate, dt, &full)) {
		if (sp->work >= 0) {
			done = sp->work;
			sp->work = 0;
			m->fig.useful_gpu_s -= weight(m, i) *
					       ((double)sp->rate * (double)dt - (double)done) /
					       (double)GS_RATE_ONE;
		}
		if (!sp->kept)
			sp->coloc_s += (double)sp->coloc * (double)dt;
		sp->t_upd = t;
		return;
	}
	if (sp->work >= 0) {
		done = sp->rate * dt;
		if (done > sp->work)
			done = sp->work;
		sp->work -= done;
	} else {
		done = sp->rate * dt; /* a pod that never ends still does work */
	}
	/* The integral counted rate x dt; a pod that finished within dt did less. */
	if (sp->rate * dt > done)
		m->fig.useful_gpu_s -= weight(m, i) * (double)(sp->rate * dt - done) /
				       (double)GS_RATE_ONE;
	if (!sp->kept)
		sp->coloc_s += (double)sp->coloc * (double)dt;
	sp->t_upd = t;
}

static void mig_advance(struct gs_share_model *m, int64_t t)
{
	if (m->t_last >= 0 && t > m->t_last) {
		m->fig.mig_idle_slice_s += m->mig_idle_slices * (double)(t - m->t_last);
		m->fig.mig_slack_slice_s += m->mig_slack_slices * (double)(t - m->t_last);
	}
	if (t > m->t_last)
		m->t_last = t;
}

/*
 * Adds pod j to m->touched; `again` when it may be there already (the
 * pods of one GPU are distinct, those of a placement's later GPUs not).
 */
static inline __attribute__((always_inline)) int touch(struct gs_share_model *m, int32_t j,
							  bool again)
{
	int32_t k, *a;

	for (k = 0; again && k < m->n_touched; k++)
		if (m->touched[k] == j)
			return 0;
	if (m->n_touched == m->cap_touched) {
		size_t cap = gs_grow_cap((size_t)m->cap_touched, 64);

		a = cap <= INT32_MAX ? gs_realloc_n(m->touched, cap, sizeof(*a)) : NULL;
		if (!a)
			return GS_ENOMEM;
		m->touched = a;
		m->cap_touched = (int32_t)cap;
	}
	m->touched[m->n_touched++] = j;
	/*
	 * Its record is read next, and the records of a GPU's pods lie apart:
	 * fetched all at once, their cache misses overlap instead of coming
	 * one after another.
	 */
	__builtin_prefetch(&m->p[j]);
	__builtin_prefetch((const char *)&m->p[j] + sizeof(m->p[j]) - 1);
	return 0;
}

/*
 * Whether a start or stop at t on MIG GPU g visits the j-th pod of it:
 * every pod but the kept pods before they are due (share_model.h); on
 * other GPUs every pod.
 */
static inline bool mig_visits(const struct gs_share_model *m, int64_t g, int j, int64_t t)
{
	return j >= GS_MIG_MAX_INSTANCES || m->mig[g].due[j] <= t;
}

/*
 * Asks the memory for the records of the pods on the GPUs of pl that a
 * start or stop there at t reads once it has done its own: their misses
 * then overlap that work's instead of coming after it.
 */
static void ask_gpus(const struct gs_share_model *m, const struct gs_placement *pl, int64_t t,
		     unsigned mig)
{
	int k, j;

	for (k = 0; k < pl->num_gpu; k++) {
		int64_t g = m->gpu_base[pl->node] + pl->gpu[k];
		const struct gs_share_gpu *G = &m->gpus[g];

		for (j = 0; j < G->n; j++) {
			if (mig >> k & 1 && !mig_visits(m, g, j, t))
				continue;
			__builtin_prefetch(&m->p[G->pods[j]]);
			__builtin_prefetch((const char *)&m->p[G->pods[j]] + sizeof(m->p[0]) - 1);
		}
	}
}

/* Collects the pods a start or stop at t on the GPUs of pl visits into m->touched. */
static int touch_gpus(struct gs_share_model *m, const struct gs_placement *pl, int64_t t,
		      unsigned mig)
{
	int k, j, rc;

	for (k = 0; k < pl->num_gpu; k++) {
		int64_t g = m->gpu_base[pl->node] + pl->gpu[k];
		const struct gs_share_gpu *G = &m->gpus[g];

		if (!(mig >> k & 1)) {
			for (j = 0; j < G->n; j++)
				if ((rc = touch(m, G->pods[j], k > 0)))
					return rc;
			continue;
		}
		for (j = 0; j < G->n; j++)
			if (mig_visits(m, g, j, t) && (rc = touch(m, G->pods[j], k > 0)))
				return rc;
	}
	return 0;
}

/*
 * The completion time of pod i from time t at its rate into *out. False
 * when it lies past INT64_MAX: at a low enough rate even a legal amount of
 * work takes longer than int64 can count.
 */
static bool done_at(const struct gs_share_pod *sp, int64_t t, int64_t *out)
{
	/* work is at most GS_SHARE_WORK_MAX_S x GS_RATE_ONE: no overflow in the sum. */
	return gs_add_i64(t, (sp->work + sp->rate - 1) / sp->rate, out);
}

/*
 * (int64_t)ceil(x) for x in int64's range or NaN, inline: without SSE4.1
 * ceil() is a libm call, made for every pod a reschedule visits.
 */
static inline int64_t ceil_i64(double x)
{
	int64_t k = (int64_t)x;

	return (double)k < x ? k + 1 : k;
}

/* New rates for the touched pods (already advanced to t); pushes moved completions. */
static int reschedule(struct gs_share_model *m, int32_t started, int64_t t, gs_share_push_fn push,
		      void *arg)
{
	struct gpu_shares sh;
	int32_t k;
	int rc;

	sh.gpu = -1;
	for (k = 0; k < m->n_touched; k++) {
		int32_t i = m->touched[k];
		struct gs_share_pod *sp = &m->p[i];
		double r = 1.0;
		int64_t rate;
		int g, coloc = 0;

		if (!sp->active)
			continue;
		for (g = 0; g < sp->pl.num_gpu; g++) {
			const struct gs_share_gpu *G = &m->gpus[m->gpu_base[sp->pl.node] +
							       sp->pl.gpu[g]];

			if (G->n > coloc)
				coloc = G->n;
		}
		sp->coloc = coloc;
		/* Its rate depends on its own GPUs and instances alone: what it was. */
		if (sp->fixed && i != started)
			continue;
		for (g = 0; g < sp->pl.num_gpu; g++)
			r = min_of(r, gpu_rate(m, i, g, &sh));
		/* Rounded up, so a rate of exactly k / 2^20 or more never finishes late. */
		rate = ceil_i64(r * (double)GS_RATE_ONE);
		if (rate < 1)
			rate = 1;
		if (rate == sp->rate && i != started)
			continue;
		m->useful_rate += weight(m, i) * (double)(rate - sp->rate) / (double)GS_RATE_ONE;
		sp->rate = rate;
		sp->gen++;
		if (sp->work >= 0) {
			int64_t end;

			if (!done_at(sp, t, &end))
				return GS_ELIMIT;
			if ((rc = push(arg, i, end, sp->gen)))
				return rc;
		}
	}
	return 0;
}

static int gpu_add(struct gs_share_gpu *G, int32_t i, int64_t mem)
{
	if (G->n == G->cap) {
		bool in_entry = G->pods == G->inline_pods;
		size_t cap = gs_grow_cap((size_t)G->cap, 4);
		int32_t *a = cap <= INT32_MAX
			     ? gs_realloc_n(in_entry ? NULL : G->pods, cap, sizeof(*a)) : NULL;

		if (!a)
			return GS_ENOMEM;
		if (in_entry)
			memcpy(a, G->inline_pods, sizeof(G->inline_pods));
		G->pods = a;
		G->cap = (int32_t)cap;
	}
	G->pods[G->n++] = i;
	G->mem_mib += mem;
	return 0;
}

/* Takes pod i off G; returns its place in G's list, or -1 if it was not there. */
static int32_t gpu_remove(struct gs_share_gpu *G, int32_t i, int64_t mem)
{
	int32_t j;

	for (j = 0; j < G->n; j++) {
		if (G->pods[j] == i) {
			memmove(&G->pods[j], &G->pods[j + 1], (size_t)(G->n - j - 1) * sizeof(int32_t));
			G->n--;
			G->mem_mib -= mem;
			return j;
		}
	}
	return -1;
}

/* The integral of MIG GPU g's pod count over time, up to t (mod 2^64). */
static inline uint64_t mig_coloc(const struct gs_share_model *m, int64_t g, int64_t t)
{
	return m->mig[g].coloc_base + (uint64_t)m->gpus[g].n * (uint64_t)t;
}

/*
 * Pod i was added to MIG GPU g at t, at the end of its list: the
 * integral goes on from the same value with one pod more, and the pod is
 * visited by every change until its due time is known.
 */
static void mig_add(struct gs_share_model *m, int64_t g, int64_t t)
{
	struct gs_share_mig_gpu *M = &m->mig[g];
	int32_t at = m->gpus[g].n - 1;

	M->coloc_base -= (uint64_t)t;
	if (at < GS_MIG_MAX_INSTANCES)
		M->due[at] = INT64_MIN;
}

/* The pod at place j (-1: none) of MIG GPU g's list left it at t. */
static void mig_remove(struct gs_share_model *m, int64_t g, int32_t j, int64_t t)
{
	struct gs_share_mig_gpu *M = &m->mig[g];
	int32_t n = m->gpus[g].n, s; /* n: after the removal */

	if (j < 0)
		return;
	M->coloc_base += (uint64_t)t;
	/* The pods after it moved one place down; one that had no place is always visited. */
	for (s = j; s < n && s < GS_MIG_MAX_INSTANCES; s++)
		M->due[s] = s + 1 < GS_MIG_MAX_INSTANCES ? M->due[s + 1] : INT64_MIN;
}

/* dir +1: pod i's MIG instances became busy; -1: they are about to be freed. */
static void mig_change(struct gs_share_model *m, int32_t i, int dir)
{
	const struct gs_share_pod *sp = &m->p[i];
	int k;

	if (!m->c->share)
		return;
	for (k = 0; k < sp->pl.num_gpu; k++) {
		int32_t node = sp->pl.node;
		const struct gs_gpu_share *gs = &m->c->share[node].gpu[sp->pl.gpu[k]];
		const struct gs_mig_table *t = gs_cluster_mig_table(m->c, node);
		int inst;
		double slices;

		if (gs->mode != GS_SHARE_MIG || !t)
			continue;
		inst = gs_mig_instance_at(&gs->mig, sp->pl.mig[k] - 1);
		if (inst < 0)
			continue;
		slices = t->p[gs->mig.inst[inst].profile].compute;
		if (gs->mig.fixed)
			m->mig_idle_slices -= dir * slices;
		m->mig_slack_slices += dir * (slices - m->pods[i].gpu_milli * GS_MIG_COMPUTE_SLICES / 1000.0);
	}
}

/*
 * Kept pod i started at t on MIG GPU g with its rate set: its coloc_s
 * goes on from what it had in the GPU's integral, and the changes on the
 * GPU visit it again from its completion on.
 */
static void kept_start(struct gs_share_model *m, int32_t i, int64_t g, int64_t t)
{
	struct gs_share_pod *sp = &m->p[i];
	int32_t at = m->gpus[g].n - 1; /* added last, and none left since */
	int64_t end = INT64_MAX;

	/* coloc_s is a whole number of pod x s, exact in a double below 2^53. */
	sp->coloc_at = mig_coloc(m, g, t) - (uint64_t)sp->coloc_s;
	if (sp->work >= 0 && !done_at(sp, t, &end))
		end = INT64_MAX; /* reschedule() refused it already */
	if (at < GS_MIG_MAX_INSTANCES)
		m->mig[g].due[at] = end;
}

/* Kept pod i's coloc_s at t from its GPU's integral. */
static void kept_stop(struct gs_share_model *m, int32_t i, int64_t t)
{
	struct gs_share_pod *sp = &m->p[i];

	sp->coloc_s = (double)(int64_t)(mig_coloc(m, gs_share_model_home(m, i), t) - sp->coloc_at);
}

int gs_share_model_start(struct gs_share_model *m, int32_t i, const struct gs_placement *pl,
			 int64_t t, int64_t duration_s, gs_share_push_fn push, void *arg)
{
	struct gs_share_pod *sp = &m->p[i];
	unsigned mig = 0;
	bool fixed = true;
	int k, rc;

	__builtin_prefetch(&m->pods[i]);
	for (k = 0; k < pl->num_gpu; k++) {
		/* The GPU's mode, as gs_cluster_gpu_share() has it, without the call. */
		int mode = m->c->share ? m->c->share[pl->node].gpu[pl->gpu[k]].mode : GS_SHARE_IDEAL;

		if (mode == GS_SHARE_TIMESLICE || mode == GS_SHARE_MPS || mode == GS_SHARE_VGPU)
			fixed = false;
		else if (mode == GS_SHARE_MIG)
			mig |= 1u << k;
	}
	ask_gpus(m, pl, t, mig);
	mig_advance(m, t);
	useful_advance(m, t);
	sp->pl = *pl;
	sp->active = true;
	sp->t_upd = t;
	view_set(sp, &m->pods[i]);
	sp->fixed = fixed;
	sp->on_mig = (uint16_t)mig;
	sp->kept = false;
	if (duration_s > GS_SHARE_WORK_MAX_S)
		return GS_ELIMIT; /* gs_sim_validate() refuses such pods before the run */
	sp->work = duration_s < 0 ? -1 : duration_s * GS_RATE_ONE;
	sp->rate = 0;
	sp->coloc = 0;
	for (k = 0; k < pl->num_gpu; k++) {
		int64_t g = m->gpu_base[pl->node] + pl->gpu[k];

		if ((rc = gpu_add(&m->gpus[g], i, m->pods[i].gpu_mem_mib)))
			return rc;
		if (mig >> k & 1)
			mig_add(m, g, t);
	}
	mig_change(m, i, +1);
	m->n_touched = 0;
	if ((rc = touch_gpus(m, pl, t, mig)))
		return rc;
	for (k = 0; k < m->n_touched; k++)
		advance(m, m->touched[k], t);
	if ((rc = reschedule(m, i, t, push, arg)))
		return rc;
	if (pl->num_gpu == 1 && mig == 1) {
		kept_start(m, i, m->gpu_base[pl->node] + pl->gpu[0], t);
		sp->kept = true;
	}
	return 0;
}

int gs_share_model_stop(struct gs_share_model *m, int32_t i, const struct gs_placement *pl,
			int64_t t, gs_share_push_fn push, void *arg)
{
	struct gs_share_pod *sp = &m->p[i];
	unsigned mig = sp->on_mig;
	int k, rc;

	if (!sp->active)
		return 0;
	__builtin_prefetch(&m->pods[i]);
	ask_gpus(m, pl, t, mig);
	mig_advance(m, t);
	useful_advance(m, t);
	advance(m, i, t);
	if (sp->kept)
		kept_stop(m, i, t);
	m->useful_rate -= weight(m, i) * (double)sp->rate / (double)GS_RATE_ONE;
	mig_change(m, i, -1);
	sp->active = false;
	sp->gen++;
	for (k = 0; k < pl->num_gpu; k++) {
		int64_t g = m->gpu_base[pl->node] + pl->gpu[k];
		int32_t at = gpu_remove(&m->gpus[g], i, m->pods[i].gpu_mem_mib);

		if (mig >> k & 1)
			mig_remove(m, g, at, t);
	}
	m->n_touched = 0;
	if ((rc = touch_gpus(m, pl, t, mig)))
		return rc;
	for (k = 0; k < m->n_touched; k++)
		advance(m, m->touched[k], t);
	return reschedule(m, -1, t, push, arg);
}

int64_t gs_share_model_gpu_mem(const struct gs_share_model *m, int32_t node, int gpu)
{
	return m->gpus[m->gpu_base[node] + gpu].mem_mib;
}

const struct gs_share_figures *gs_share_model_finish(struct gs_share_model *m, int64_t t)
{
	size_t i;

	mig_advance(m, t);
	useful_advance(m, t);
	for (i = 0; i < m->n_pods; i++) {
		if (!m->p[i].active)
			continue;
		advance(m, (int32_t)i, t);
		if (m->p[i].kept)
			kept_stop(m, (int32_t)i, t);
	}
	return &m->fig;
}

double gs_share_model_rate(const struct gs_share_model *m, int32_t i)
{
	return m->p[i].active ? (double)m->p[i].rate / (double)GS_RATE_ONE : 0.0;
}
