/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound_mip.c - the exact bound of bound.h: the packing problem as an
 * integer program, node by node and GPU by GPU, solved with COIN-OR CBC
 * (Debian's coinor-libcbc-dev) through its C interface.
 *
 * Why CBC here and GLPK for the LP: on the integer program of a 10-node
 * openb cluster (81 pods, 68 GPUs) CBC proves the optimum in 4 s, while
 * GLPK's branch and cut had neither the optimum nor a placement within
 * 25 points of it after 60 s. The program is the GPU-level formulation
 * that every placement is a solution of:
 *   y_tng  pods of sharing type t on GPU g of node n
 *   x_tn   pods of type t on node n that take whole GPUs (k_t each)
 *   u_ng   GPU g of node n is taken whole (binary)
 *   maximise sum g_t (y + x), subject to, per type, at most its pods; per
 *   node, CPU and memory, and sum k_t x_tn <= sum_g u_ng; per GPU, sum s_t
 *   y_tng + 1000 u_ng <= 1000 (and GPU memory when a pod asks for it).
 * Symmetric solutions (GPUs of a node, nodes of a type, permuted) are cut
 * by ordering them, and the objective is capped at the LP's bound, which
 * only prunes.
 *
 * CBC's solver keeps parameter tables in static storage, so solves are
 * serialised by a mutex; the model is built in plain arrays first.
 *
 * CBC is loaded when the first integer program is solved (dlopen of
 * libCbcSolver.so.3, Debian's coinor-libcbc3), not linked: its C++
 * libraries (CoinUtils, Clp, Cgl, Osi, LAPACK) cost every gpusim process
 * about 4 ms of relocations at start, which only --method exact needs.
 */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <Cbc_C_Interface.h>

#include "core/cmp.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "engine/bound_internal.h"

#define CBC_LIBRARY "libCbcSolver.so.3"

static pthread_mutex_t cbc_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry points of CBC's C interface this file calls, found in the library once. */
static struct {
	bool tried, ok;
	__typeof__(&Cbc_newModel) newModel;
	__typeof__(&Cbc_loadProblem) loadProblem;
	__typeof__(&Cbc_setInteger) setInteger;
	__typeof__(&Cbc_setMIPStartI) setMIPStartI;
	__typeof__(&Cbc_setObjSense) setObjSense;
	__typeof__(&Cbc_setLogLevel) setLogLevel;
	__typeof__(&Cbc_setMaximumSeconds) setMaximumSeconds;
	__typeof__(&Cbc_solve) solve;
	__typeof__(&Cbc_bestSolution) bestSolution;
	__typeof__(&Cbc_getObjValue) getObjValue;
	__typeof__(&Cbc_isProvenOptimal) isProvenOptimal;
	__typeof__(&Cbc_getBestPossibleObjValue) getBestPossibleObjValue;
	__typeof__(&Cbc_deleteModel) deleteModel;
} cbc;

/* dlsym into a function pointer without converting object and function pointers. */
#define CBC_SYM(lib, name) \
	(*(void **)&cbc.name = dlsym((lib), "Cbc_" #name), cbc.name != NULL)

/* Loads CBC, once; false when it is not installed (err says what to install). Under cbc_lock. */
static bool cbc_load(char *err, size_t err_len)
{
	void *lib;

	if (!cbc.tried) {
		cbc.tried = true;
		lib = dlopen(CBC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
		cbc.ok = lib && CBC_SYM(lib, newModel) && CBC_SYM(lib, loadProblem) &&
			 CBC_SYM(lib, setInteger) && CBC_SYM(lib, setMIPStartI) &&
			 CBC_SYM(lib, setObjSense) && CBC_SYM(lib, setLogLevel) &&
			 CBC_SYM(lib, setMaximumSeconds) && CBC_SYM(lib, solve) &&
			 CBC_SYM(lib, bestSolution) && CBC_SYM(lib, getObjValue) &&
			 CBC_SYM(lib, isProvenOptimal) && CBC_SYM(lib, getBestPossibleObjValue) &&
			 CBC_SYM(lib, deleteModel);
	}
	if (!cbc.ok)
		gs_errf(err, err_len, "--method exact needs COIN-OR CBC (%s): install the Debian "
			"package coinor-libcbc3 (or coinor-libcbc-dev)", CBC_LIBRARY);
	return cbc.ok;
}

/* An integer program in column-major form; every column is an integer >= 0. */
struct mip {
	int n_rows, n_cols;
	size_t cap_rows, cap_cols, nnz, cap_nnz;
	double *row_lb, *row_ub;
	double *obj, *col_ub;
	CoinBigIndex *start;         /* [n_cols + 1] */
	int *index;                  /* row of each entry */
	double *value;
	bool oom;                    /* an allocation failed; the model is not usable */
};

static void mip_free(struct mip *m)
{
	GS_MEM_FREE(m->row_lb, m->row_ub, m->obj, m->col_ub, m->start, m->index, m->value);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	void *q;
	size_t n;

	if (need <= *cap)
		return true;
	for (n = *cap; n && n < need;)
		n = gs_grow_cap(n, need);
	if (!n)
		n = need;
	q = gs_realloc_n(*p, n, size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* Adds count rows lb <= a x <= ub (+-DBL_MAX: none); the first's index, -1 out of memory. */
static int mip_rows(struct mip *m, int count, double lb, double ub)
{
	size_t cap = m->cap_rows;
	int i, first = m->n_rows;

	if (m->oom || !grow((void **)&m->row_lb, &cap, (size_t)m->n_rows + (size_t)count,
			    sizeof(double)) ||
	    !grow((void **)&m->row_ub, &m->cap_rows, (size_t)m->n_rows + (size_t)count,
		  sizeof(double))) {
		m->oom = true;
		return -1;
	}
	for (i = 0; i < count; i++) {
		m->row_lb[first + i] = lb;
		m->row_ub[first + i] = ub;
	}
	m->n_rows += count;
	return first;
}

/* Adds an integer column in [0, ub] with objective obj and len entries (rows ind, values val). */
static void mip_col(struct mip *m, double obj, double ub, int len, const int *ind,
		    const double *val)
{
	size_t c1 = m->cap_cols, c2 = m->cap_cols, c3 = m->cap_cols, k1 = m->cap_nnz;
	int k;

	if (m->oom || !grow((void **)&m->obj, &c1, (size_t)m->n_cols + 1, sizeof(double)) ||
	    !grow((void **)&m->col_ub, &c2, (size_t)m->n_cols + 1, sizeof(double)) ||
	    !grow((void **)&m->start, &c3, (size_t)m->n_cols + 2, sizeof(CoinBigIndex)) ||
	    !grow((void **)&m->index, &k1, m->nnz + (size_t)len, sizeof(int)) ||
	    !grow((void **)&m->value, &m->cap_nnz, m->nnz + (size_t)len, sizeof(double))) {
		m->oom = true;
		return;
	}
	m->cap_cols = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
	m->start[m->n_cols] = (CoinBigIndex)m->nnz;
	for (k = 0; k < len; k++) {
		m->index[m->nnz] = ind[k];
		m->value[m->nnz++] = val[k];
	}
	m->obj[m->n_cols] = obj;
	m->col_ub[m->n_cols++] = ub;
	m->start[m->n_cols] = (CoinBigIndex)m->nnz;
}

/* The rows of one node (-1: none). */
struct node_rows {
	int cpu;       /* then memory (cpu + 1), then whole GPUs (cpu + 2) */
	int gpu0;      /* GPU g's share: gpu0 + g */
	int mem0;      /* GPU g's memory: mem0 + g, when a pod asks for GPU memory */
	int order0;    /* load of GPU g >= load of GPU g + 1: order0 + g */
	int whole0;    /* u_g >= u_{g+1} (whole GPUs first): whole0 + g */
	int after;     /* this node's GPU milli <= the previous node's of its type */
	int32_t next;  /* the next node of its type, -1 */
};

/* Appends to ind/val the ordering entries of a column holding gpu milli of node n (on GPU g, or -1). */
static void order_entries(const struct node_rows *rows, int32_t n, int32_t num_gpu, int32_t g,
			  double gpu, int *ind, double *val, int *len)
{
	const struct node_rows *r = &rows[n];

	if (g >= 0 && g + 1 < num_gpu) {
		ind[*len] = r->order0 + g;
		val[(*len)++] = gpu;
	}
	if (g > 0) {
		ind[*len] = r->order0 + g - 1;
		val[(*len)++] = -gpu;
	}
	if (r->next >= 0) {
		ind[*len] = rows[r->next].after;
		val[(*len)++] = gpu;
	}
	if (r->after >= 0) {
		ind[*len] = r->after;
		val[(*len)++] = -gpu;
	}
}

/* Every row: per type, the cap, then per node (rows[n]). */
static void build_rows(struct mip *m, const struct gs_bound_problem *pb, const int32_t *node_type,
		       int64_t upper, struct node_rows *rows, int32_t *last_of, bool gmem,
		       int *row_obj)
{
	const struct gs_cluster *c = pb->c;
	int32_t n, t, j;

	for (t = 0; t < pb->n_pt; t++)
		mip_rows(m, 1, -DBL_MAX, (double)pb->pt[t].count);
	*row_obj = upper >= 0 ? mip_rows(m, 1, -DBL_MAX, (double)upper) : -1;
	for (j = 0; j < pb->n_nt; j++)
		last_of[j] = -1;
	for (n = 0; n < c->n_nodes; n++) {
		const struct gs_node *nd = &c->nodes[n];
		struct node_rows *r = &rows[n];

		r->cpu = r->gpu0 = r->mem0 = r->order0 = r->whole0 = r->after = r->next = -1;
		j = node_type[n];
		if (j < 0)
			continue;
		r->cpu = mip_rows(m, 1, -DBL_MAX, (double)nd->cpu_milli);
		mip_rows(m, 1, -DBL_MAX, (double)nd->mem_mib);
		mip_rows(m, 1, -DBL_MAX, 0.0);
		r->gpu0 = mip_rows(m, nd->num_gpu, -DBL_MAX, (double)GS_MILLI_PER_GPU);
		if (gmem)
			r->mem0 = mip_rows(m, nd->num_gpu, -DBL_MAX,
					   (double)c->models.m[nd->model].mem_mib);
		if (nd->num_gpu > 1) {
			r->order0 = mip_rows(m, nd->num_gpu - 1, 0.0, DBL_MAX);
			r->whole0 = mip_rows(m, nd->num_gpu - 1, 0.0, DBL_MAX);
		}
		if (last_of[j] >= 0) {
			r->after = mip_rows(m, 1, 0.0, DBL_MAX);
			rows[last_of[j]].next = n;
		}
		last_of[j] = n;
	}
}

/*
 * The columns of node n: its u_g (the first in *col_u), then each type that
 * may run there (the first column of type t in col_t[t], -1 where not).
 */
static void build_node(struct mip *m, const struct gs_bound_problem *pb, int32_t n, int32_t j,
		       const struct node_rows *rows, bool gmem, int row_obj, int *ind,
		       double *val, int *col_u, int *col_t)
{
	const struct gs_node *nd = &pb->c->nodes[n];
	const struct node_rows *r = &rows[n];
	int32_t t, g;
	int len;

	/* u_g: in the whole-GPU count, GPU g's share (all of it) and load, whole GPUs first. */
	*col_u = m->n_cols;
	for (g = 0; g < nd->num_gpu; g++) {
		len = 0;
		ind[len] = r->cpu + 2;
		val[len++] = -1.0;
		ind[len] = r->gpu0 + g;
		val[len++] = (double)GS_MILLI_PER_GPU;
		if (g + 1 < nd->num_gpu) {
			ind[len] = r->order0 + g;
			val[len++] = (double)GS_MILLI_PER_GPU;
			ind[len] = r->whole0 + g;
			val[len++] = 1.0;
		}
		if (g > 0) {
			ind[len] = r->order0 + g - 1;
			val[len++] = -(double)GS_MILLI_PER_GPU;
			ind[len] = r->whole0 + g - 1;
			val[len++] = -1.0;
		}
		mip_col(m, 0.0, 1.0, len, ind, val);
	}
	for (t = 0; t < pb->n_pt; t++) {
		const struct gs_pod *p = &pb->pt[t].req;
		double gpu = (double)gs_pod_gpu_milli(p);
		bool share = gs_bound_sharing(p);
		int32_t per = share ? nd->num_gpu : 1;

		col_t[t] = -1;
		if (!gs_bound_allowed(pb, t, j))
			continue;
		col_t[t] = m->n_cols;
		for (g = 0; g < per; g++) {
			double ub = (double)pb->pt[t].count;

			len = 0;
			ind[len] = t;
			val[len++] = 1.0;
			if (row_obj >= 0) {
				ind[len] = row_obj;
				val[len++] = gpu;
			}
			ind[len] = r->cpu;
			val[len++] = (double)p->cpu_milli;
			ind[len] = r->cpu + 1;
			val[len++] = (double)p->mem_mib;
			if (share) {
				ind[len] = r->gpu0 + g;
				val[len++] = (double)p->gpu_milli;
				if (gmem && p->gpu_mem_mib) {
					ind[len] = r->mem0 + g;
					val[len++] = (double)p->gpu_mem_mib;
				}
				ub = fmin(ub, GS_MILLI_PER_GPU / p->gpu_milli);
			} else {
				ind[len] = r->cpu + 2;
				val[len++] = (double)p->num_gpu;
				ub = fmin(ub, nd->num_gpu / p->num_gpu);
			}
			order_entries(rows, n, nd->num_gpu, share ? g : -1, gpu, ind, val, &len);
			mip_col(m, gpu, ub, len, ind, val);
		}
	}
}

/* Node -> node type (-1: no GPUs), as bound.c merged them. */
static void node_types(const struct gs_bound_problem *pb, int32_t *node_type)
{
	const struct gs_cluster *c = pb->c;
	int32_t n, j;

	for (n = 0; n < c->n_nodes; n++) {
		const struct gs_node *a = &c->nodes[n];

		node_type[n] = -1;
		for (j = 0; j < pb->n_nt && a->num_gpu > 0; j++) {
			const struct gs_node *b = &c->nodes[pb->nt[j].node];

			if (a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
			    a->num_gpu == b->num_gpu && a->model == b->model)
				node_type[n] = j;
		}
	}
}

/* One GPU of a node in the start placement: whole, or the load and count of its sharing pods. */
struct start_gpu {
	bool whole;
	int32_t load;
	int32_t gpu;             /* its index on the node */
};

static int cmp_start_gpu(const void *a, const void *b)
{
	const struct start_gpu *x = a, *y = b;

	if (x->whole != y->whole)
		return x->whole ? -1 : 1;
	if (x->load != y->load)
		return x->load > y->load ? -1 : 1;
	return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/*
 * The start placement as values of m's columns (vals[n_cols], zero
 * elsewhere), ordered as the symmetry rows want: within a node, whole
 * GPUs, then sharing GPUs by load; within a node type, nodes by GPU milli,
 * onto the type's nodes in index order. Returns 0 or GS_ENOMEM.
 */
static int start_values(const struct gs_bound_problem *pb, const struct gs_bound_start *st,
			const int32_t *node_type, const int *col_u, const int *col_t, double *vals)
{
	const struct gs_cluster *c = pb->c;
	size_t n_nodes = (size_t)c->n_nodes, k;
	/* The start's nodes (id) by the GPU milli they hold (key), for the order within a type. */
	struct gs_cmp_keyed *sn = malloc((n_nodes + 1) * sizeof(*sn));
	int32_t *target = malloc((n_nodes + 1) * sizeof(*target));
	struct start_gpu gpus[GS_MAX_GPUS];
	int32_t n, j, g, pos[GS_MAX_GPUS];

	if (!sn || !target) {
		GS_MEM_FREE(sn, target);
		return GS_ENOMEM;
	}
	for (n = 0; n < c->n_nodes; n++) {
		sn[n].key = 0;
		sn[n].id = n;
	}
	for (k = 0; k < st->n; k++)
		sn[st->v[k].pl.node].key += gs_pod_gpu_milli(&pb->pt[st->v[k].type].req);
	/* Per type, the start's nodes by GPU held go onto the type's nodes in index order. */
	for (j = 0; j < pb->n_nt; j++) {
		struct gs_cmp_keyed *sel = malloc((n_nodes + 1) * sizeof(*sel));
		int32_t m = 0, i = 0;

		if (!sel) {
			free(sn);
			free(target);
			return GS_ENOMEM;
		}
		for (n = 0; n < c->n_nodes; n++)
			if (node_type[n] == j)
				sel[m++] = sn[n];
		qsort(sel, (size_t)m, sizeof(*sel), gs_cmp_keyed_desc);
		for (n = 0; n < c->n_nodes; n++)
			if (node_type[n] == j)
				target[sel[i++].id] = n;
		free(sel);
	}
	for (n = 0; n < c->n_nodes; n++) {
		const struct gs_node *nd = &c->nodes[n];
		int32_t to = target[n];

		if (node_type[n] < 0)
			continue;
		for (g = 0; g < nd->num_gpu; g++) {
			gpus[g].whole = false;
			gpus[g].load = 0;
			gpus[g].gpu = g;
		}
		for (k = 0; k < st->n; k++) {
			const struct gs_bound_placed *p = &st->v[k];
			const struct gs_pod *q = &pb->pt[p->type].req;
			int32_t i;

			if (p->pl.node != n)
				continue;
			for (i = 0; i < p->pl.num_gpu; i++) {
				if (gs_bound_sharing(q))
					gpus[p->pl.gpu[i]].load += q->gpu_milli;
				else
					gpus[p->pl.gpu[i]].whole = true;
			}
			if (!gs_bound_sharing(q))
				vals[col_t[(size_t)to * (size_t)pb->n_pt + (size_t)p->type]] += 1.0;
		}
		qsort(gpus, (size_t)nd->num_gpu, sizeof(*gpus), cmp_start_gpu);
		for (g = 0; g < nd->num_gpu; g++) {
			pos[gpus[g].gpu] = g;
			if (gpus[g].whole)
				vals[col_u[to] + g] = 1.0;
		}
		for (k = 0; k < st->n; k++) {
			const struct gs_bound_placed *p = &st->v[k];

			if (p->pl.node == n && gs_bound_sharing(&pb->pt[p->type].req))
				vals[col_t[(size_t)to * (size_t)pb->n_pt + (size_t)p->type] +
				     pos[p->pl.gpu[0]]] += 1.0;
		}
	}
	free(sn);
	free(target);
	return 0;
}

/*
 * CBC on m from the start values (NULL: none): the best placement found
 * and the proven bound. GS_ENOENT when CBC is not installed.
 */
static int cbc_solve(const struct mip *m, const double *start, double time_limit_s,
		     int64_t *best_out, int64_t *bound_out, char *err, size_t err_len)
{
	Cbc_Model *model;
	double *lb = calloc((size_t)m->n_cols + 1, sizeof(*lb));
	int i;

	if (!lb)
		return gs_errf_nomem(err, err_len);
	pthread_mutex_lock(&cbc_lock);
	if (!cbc_load(err, err_len)) {
		pthread_mutex_unlock(&cbc_lock);
		free(lb);
		return GS_ENOENT;
	}
	model = cbc.newModel();
	cbc.loadProblem(model, m->n_cols, m->n_rows, m->start, m->index, m->value, lb, m->col_ub,
			m->obj, m->row_lb, m->row_ub);
	for (i = 0; i < m->n_cols; i++)
		cbc.setInteger(model, i);
	if (start) {
		int *idx = malloc((size_t)m->n_cols * sizeof(*idx) + 1);

		if (idx) {
			for (i = 0; i < m->n_cols; i++)
				idx[i] = i;
			cbc.setMIPStartI(model, m->n_cols, idx, start);
			free(idx);
		}
	}
	cbc.setObjSense(model, -1.0);
	cbc.setLogLevel(model, 0);
	cbc.setMaximumSeconds(model, time_limit_s);
	cbc.solve(model);
	if (cbc.bestSolution(model))
		*best_out = (int64_t)llround(cbc.getObjValue(model));
	if (cbc.isProvenOptimal(model) && *best_out >= 0) {
		*bound_out = *best_out;
	} else {
		/* Maximising: the best possible value is an upper bound; the objective is integer. */
		double b = fabs(cbc.getBestPossibleObjValue(model));

		if (isfinite(b))
			*bound_out = (int64_t)floor(b + 1e-6);
	}
	cbc.deleteModel(model);
	pthread_mutex_unlock(&cbc_lock);
	free(lb);
	return 0;
}

int gs_bound_mip_solve(const struct gs_bound_problem *pb, int64_t upper,
		       const struct gs_bound_start *start, double time_limit_s, int64_t *best_out,
		       int64_t *bound_out, char *err, size_t err_len)
{
	const struct gs_cluster *c = pb->c;
	struct mip m;
	struct node_rows *rows = calloc((size_t)c->n_nodes + 1, sizeof(*rows));
	int32_t *node_type = malloc(((size_t)c->n_nodes + 1) * sizeof(*node_type));
	int32_t *last_of = malloc(((size_t)pb->n_nt + 1) * sizeof(*last_of));
	int *ind = malloc((4 * GS_MAX_GPUS + 16) * sizeof(*ind));
	double *val = malloc((4 * GS_MAX_GPUS + 16) * sizeof(*val));
	int *col_u = malloc(((size_t)c->n_nodes + 1) * sizeof(*col_u));
	int *col_t = malloc(((size_t)c->n_nodes * (size_t)pb->n_pt + 1) * sizeof(*col_t));
	double *vals = NULL;
	bool gmem = false;
	int32_t n, t;
	int row_obj, rc = 0;

	memset(&m, 0, sizeof(m));
	*best_out = *bound_out = -1;
	if (!rows || !node_type || !last_of || !ind || !val || !col_u || !col_t) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (t = 0; t < pb->n_pt; t++)
		gmem = gmem || pb->pt[t].req.gpu_mem_mib > 0;
	node_types(pb, node_type);
	build_rows(&m, pb, node_type, upper, rows, last_of, gmem, &row_obj);
	for (n = 0; n < c->n_nodes; n++)
		if (node_type[n] >= 0)
			build_node(&m, pb, n, node_type[n], rows, gmem, row_obj, ind, val, &col_u[n],
				   col_t + (size_t)n * (size_t)pb->n_pt);
	if (m.oom) {
		rc = GS_ENOMEM;
		goto out;
	}
	if (start && start->gpu_milli > 0) {
		vals = calloc((size_t)m.n_cols + 1, sizeof(*vals));
		if (!vals || start_values(pb, start, node_type, col_u, col_t, vals)) {
			rc = GS_ENOMEM;
			goto out;
		}
	}
	rc = cbc_solve(&m, vals, time_limit_s, best_out, bound_out, err, err_len);
	if (rc)
		goto out;
	if (start && start->gpu_milli > *best_out)
		*best_out = start->gpu_milli;
	if (upper >= 0 && (*bound_out < 0 || *bound_out > upper))
		*bound_out = upper;
	if (*best_out > *bound_out)
		*bound_out = *best_out;
out:
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	mip_free(&m);
	free(rows);
	free(node_type);
	free(last_of);
	free(ind);
	free(val);
	free(col_u);
	free(col_t);
	free(vals);
	return rc;
}
