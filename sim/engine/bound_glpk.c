/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound_glpk.c - the pattern LP of bound.h, solved with GLPK (the GNU
 * Linear Programming Kit, Debian's libglpk-dev).
 *
 * Why GLPK for the LP: one small C library with a stable C API, whose
 * simplex hands back the duals column generation needs; Debian builds it
 * thread-safe (each thread its own environment), so the bounds of several
 * traces run side by side; and the master is small (a few hundred rows,
 * 0.1 s a solve on openb). Its branch and cut is another matter: it did
 * not solve the integer program of a 10-node openb cluster in a minute,
 * which COIN-OR CBC does in seconds, so the integer program goes to CBC
 * (bound_mip.c).
 *
 * The pattern LP, per prefix (bound_internal.h's types; t pod types, j
 * node types of N_j nodes with C_j CPU, M_j memory and G_j GPUs):
 *   maximise   sum_{t,j} g_t x_tj
 *   subject to sum_j x_tj                        <= n_t          (pods)
 *              sum_t cpu_t x_tj                  <= C_j N_j      (CPU)
 *              sum_t mem_t x_tj                  <= M_j N_j      (memory)
 *              sum_{t whole} k_t x_tj + sum_q z_jq <= G_j N_j    (GPUs)
 *              sum_{t of share s} x_tj - sum_q a_qs z_jq <= 0    (slots)
 *              x, z >= 0
 * x_tj: pods of type t on nodes of type j (g_t their GPU milli, k_t their
 * GPUs when they take whole GPUs); z_jq: GPUs of type-j nodes that hold
 * the sharing pattern q, a multiset of shares of at most 1000 (a_qs
 * slots of share s). Every placement gives such x and z (count the GPUs
 * by what they hold), so the LP's optimum bounds every placement.
 *
 * Column generation: the master starts with every x and one pattern per
 * share (as many of it as fit); after each solve, the best new pattern of
 * each node type is an unbounded knapsack of capacity 1000 whose values
 * are the slot rows' duals, and it enters when it beats the GPU row's
 * dual. The bound does not trust the last solve: it is weak duality with
 * the duals clipped at 0, sum b_i y_i plus, for every column, its positive
 * reduced cost times an upper bound on the column (n_t for x_tj, G_j N_j
 * for the patterns of j, the best one standing for all that are not in
 * the master), so it holds after any number of rounds and whatever the
 * simplex's rounding; the least over the rounds is kept.
 *
 * GLPK calls its error hook on an internal error or when memory runs out
 * and would then abort the process; the hook here jumps back instead, the
 * thread's GLPK environment is freed, and the call returns GS_ENOMEM.
 */
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "engine/bound_internal.h"

/* Rounds of column generation at most; each adds at most one pattern per node type. */
#define LP_MAX_ROUNDS 2000
/* A pattern enters when its reduced cost passes this, in milli-GPU. */
#define LP_ENTER_EPS 1e-7

static void glpk_abort(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/* Starts the thread's GLPK environment quietly, with the hook armed. */
static void glpk_begin(jmp_buf *jb)
{
	glp_term_out(GLP_OFF);
	glp_error_hook(glpk_abort, jb);
}

static void glpk_end(void)
{
	glp_error_hook(NULL, NULL);
}

/*
 * After the hook jumped: GLPK's state is lost and must be freed as a whole
 * (which also disarms the hook); the next call starts a new environment.
 */
static int glpk_failed(char *err, size_t err_len)
{
	glp_free_env();
	gs_errf(err, err_len, "GLPK stopped: out of memory or an internal error");
	return GS_ENOMEM;
}

/* --- the pattern LP --------------------------------------------------------- */

struct lp {
	const struct gs_bound_problem *pb;
	glp_prob *P;
	int *row_cpu, *row_mem, *row_gpu;  /* [j] */
	int *row_slot;                     /* [j * n_share + s], 0: none */
	int32_t *share;                    /* the sharing types' distinct shares */
	int32_t n_share;
	double *col_ub;                    /* [column], for the dual bound; 1-based */
	size_t cap_cols;
	int *ind;                          /* scratch for glp_set_mat_col, 1-based */
	double *val;
	double *best;                      /* knapsack: [capacity], and the choice */
	int32_t *choice;
};

static void lp_free(struct lp *l)
{
	if (l->P)
		glp_delete_prob(l->P);
	GS_MEM_FREE(l->row_cpu, l->row_mem, l->row_gpu, l->row_slot, l->share, l->col_ub, l->ind,
		    l->val, l->best, l->choice);
}

static int32_t share_index(const struct lp *l, int32_t milli)
{
	int32_t s;

	for (s = 0; s < l->n_share; s++)
		if (l->share[s] == milli)
			return s;
	return -1;
}

/* Appends a column with its objective, upper bound for the dual bound, and entries. */
static int lp_add_col(struct lp *l, double obj, double ub, int len)
{
	int col = glp_add_cols(l->P, 1);

	if ((size_t)col >= l->cap_cols) {
		size_t cap = gs_grow_cap(l->cap_cols, (size_t)col + 1);
		double *u = gs_realloc_n(l->col_ub, cap, sizeof(*u));

		if (!u)
			return GS_ENOMEM;
		l->col_ub = u;
		l->cap_cols = cap;
	}
	l->col_ub[col] = ub;
	glp_set_col_bnds(l->P, col, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(l->P, col, obj);
	glp_set_mat_col(l->P, col, len, l->ind, l->val);
	return 0;
}

/* A pattern column for node type j: counts[s] slots of share s. */
static int lp_add_pattern(struct lp *l, int32_t j, const int32_t *counts)
{
	const struct gs_bound_problem *pb = l->pb;
	int len = 0;
	int32_t s;

	l->ind[++len] = l->row_gpu[j];
	l->val[len] = 1.0;
	for (s = 0; s < l->n_share; s++) {
		int row = l->row_slot[(size_t)j * (size_t)l->n_share + (size_t)s];

		if (counts[s] && row) {
			l->ind[++len] = row;
			l->val[len] = -(double)counts[s];
		}
	}
	return lp_add_col(l, 0.0, (double)pb->c->nodes[pb->nt[j].node].num_gpu *
				   (double)pb->nt[j].count, len);
}

/* Rows, the x columns and the first patterns. */
static int lp_build(struct lp *l)
{
	const struct gs_bound_problem *pb = l->pb;
	const struct gs_cluster *c = pb->c;
	int32_t t, j, s, *counts;
	size_t n_rows;
	int rc = 0;

	l->share = malloc(((size_t)pb->n_pt + 1) * sizeof(*l->share));
	l->row_cpu = calloc((size_t)pb->n_nt + 1, sizeof(int));
	l->row_mem = calloc((size_t)pb->n_nt + 1, sizeof(int));
	l->row_gpu = calloc((size_t)pb->n_nt + 1, sizeof(int));
	if (!l->share || !l->row_cpu || !l->row_mem || !l->row_gpu)
		return GS_ENOMEM;
	for (t = 0; t < pb->n_pt; t++)
		if (gs_bound_sharing(&pb->pt[t].req) && share_index(l, pb->pt[t].req.gpu_milli) < 0)
			l->share[l->n_share++] = pb->pt[t].req.gpu_milli;
	l->row_slot = calloc((size_t)pb->n_nt * (size_t)l->n_share + 1, sizeof(int));
	n_rows = (size_t)pb->n_pt + (size_t)pb->n_nt * (4 + (size_t)l->n_share) + 2;
	l->ind = malloc((n_rows + 1) * sizeof(*l->ind));
	l->val = malloc((n_rows + 1) * sizeof(*l->val));
	l->best = malloc((GS_MILLI_PER_GPU + 1) * sizeof(*l->best));
	l->choice = malloc((GS_MILLI_PER_GPU + 1) * sizeof(*l->choice));
	counts = calloc((size_t)l->n_share + 1, sizeof(*counts));
	if (!l->row_slot || !l->ind || !l->val || !l->best || !l->choice || !counts) {
		free(counts);
		return GS_ENOMEM;
	}

	l->P = glp_create_prob();
	glp_set_obj_dir(l->P, GLP_MAX);
	/* Rows: the pods first (row t + 1), then per node type. */
	glp_add_rows(l->P, pb->n_pt);
	for (t = 0; t < pb->n_pt; t++)
		glp_set_row_bnds(l->P, t + 1, GLP_UP, 0.0, (double)pb->pt[t].count);
	for (j = 0; j < pb->n_nt; j++) {
		const struct gs_node *n = &c->nodes[pb->nt[j].node];
		double k = (double)pb->nt[j].count;

		l->row_cpu[j] = glp_add_rows(l->P, 3);
		l->row_mem[j] = l->row_cpu[j] + 1;
		l->row_gpu[j] = l->row_cpu[j] + 2;
		glp_set_row_bnds(l->P, l->row_cpu[j], GLP_UP, 0.0, (double)n->cpu_milli * k);
		glp_set_row_bnds(l->P, l->row_mem[j], GLP_UP, 0.0, (double)n->mem_mib * k);
		glp_set_row_bnds(l->P, l->row_gpu[j], GLP_UP, 0.0, (double)n->num_gpu * k);
		for (t = 0; t < pb->n_pt; t++) {
			int32_t si;

			if (!gs_bound_allowed(pb, t, j) || !gs_bound_sharing(&pb->pt[t].req))
				continue;
			si = share_index(l, pb->pt[t].req.gpu_milli);
			if (!l->row_slot[(size_t)j * (size_t)l->n_share + (size_t)si]) {
				int row = glp_add_rows(l->P, 1);

				glp_set_row_bnds(l->P, row, GLP_UP, 0.0, 0.0);
				l->row_slot[(size_t)j * (size_t)l->n_share + (size_t)si] = row;
			}
		}
	}
	/* x_tj */
	for (t = 0; rc == 0 && t < pb->n_pt; t++) {
		const struct gs_pod *p = &pb->pt[t].req;

		for (j = 0; rc == 0 && j < pb->n_nt; j++) {
			int len = 0;

			if (!gs_bound_allowed(pb, t, j))
				continue;
			l->ind[++len] = t + 1;
			l->val[len] = 1.0;
			if (p->cpu_milli) {
				l->ind[++len] = l->row_cpu[j];
				l->val[len] = (double)p->cpu_milli;
			}
			if (p->mem_mib) {
				l->ind[++len] = l->row_mem[j];
				l->val[len] = (double)p->mem_mib;
			}
			if (gs_bound_sharing(p)) {
				l->ind[++len] = l->row_slot[(size_t)j * (size_t)l->n_share +
							    (size_t)share_index(l, p->gpu_milli)];
				l->val[len] = 1.0;
			} else {
				l->ind[++len] = l->row_gpu[j];
				l->val[len] = (double)p->num_gpu;
			}
			rc = lp_add_col(l, (double)gs_pod_gpu_milli(p), (double)pb->pt[t].count, len);
		}
	}
	/* One pattern per share and node type: as many pods of it as fit. */
	for (j = 0; rc == 0 && j < pb->n_nt; j++) {
		for (s = 0; rc == 0 && s < l->n_share; s++) {
			if (!l->row_slot[(size_t)j * (size_t)l->n_share + (size_t)s])
				continue;
			memset(counts, 0, (size_t)l->n_share * sizeof(*counts));
			counts[s] = GS_MILLI_PER_GPU / l->share[s];
			rc = lp_add_pattern(l, j, counts);
		}
	}
	free(counts);
	return rc;
}

/*
 * The best pattern for node type j under slot duals y (clipped at 0): an
 * unbounded knapsack of capacity 1000. Returns its value; counts gets it.
 */
static double lp_price(struct lp *l, int32_t j, const double *y, int32_t *counts)
{
	int32_t cap, s;

	l->best[0] = 0;
	l->choice[0] = -1;
	for (cap = 1; cap <= GS_MILLI_PER_GPU; cap++) {
		l->best[cap] = l->best[cap - 1];
		l->choice[cap] = -1;
		for (s = 0; s < l->n_share; s++) {
			int row = l->row_slot[(size_t)j * (size_t)l->n_share + (size_t)s];
			double v;

			if (!row || l->share[s] > cap || !(y[row] > 0))
				continue;
			v = l->best[cap - l->share[s]] + y[row];
			if (v > l->best[cap]) {
				l->best[cap] = v;
				l->choice[cap] = s;
			}
		}
	}
	memset(counts, 0, (size_t)l->n_share * sizeof(*counts));
	for (cap = GS_MILLI_PER_GPU; cap > 0;) {
		if (l->choice[cap] < 0) {
			cap--;
			continue;
		}
		counts[l->choice[cap]]++;
		cap -= l->share[l->choice[cap]];
	}
	return l->best[GS_MILLI_PER_GPU];
}

static int lp_solve(struct lp *l, int64_t *bound_out, int32_t *columns_out)
{
	const struct gs_bound_problem *pb = l->pb;
	int n_rows = glp_get_num_rows(l->P), round, i;
	double *y = malloc(((size_t)n_rows + 1) * sizeof(*y)), best_ub = INFINITY;
	int32_t *counts = calloc((size_t)l->n_share + 1, sizeof(*counts)), j;
	glp_smcp parm;
	int rc = 0;

	if (!y || !counts) {
		GS_MEM_FREE(y, counts);
		return GS_ENOMEM;
	}
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	glp_scale_prob(l->P, GLP_SF_AUTO);
	*columns_out = 0;
	for (round = 0; rc == 0 && round < LP_MAX_ROUNDS; round++) {
		double ub = 0;
		bool added = false;
		int n_cols;

		if (glp_simplex(l->P, &parm) != 0 || glp_get_status(l->P) != GLP_OPT) {
			/* The master is feasible (all zero) and bounded; retry from scratch once. */
			glp_adv_basis(l->P, 0);
			if (glp_simplex(l->P, &parm) != 0 || glp_get_status(l->P) != GLP_OPT)
				break;
		}
		for (i = 1; i <= n_rows; i++) {
			double d = glp_get_row_dual(l->P, i);

			y[i] = d > 0 ? d : 0;
			ub += y[i] * glp_get_row_ub(l->P, i);
		}
		/* Weak duality: every column's positive reduced cost times its bound. */
		n_cols = glp_get_num_cols(l->P);
		for (i = 1; i <= n_cols; i++) {
			int len = glp_get_mat_col(l->P, i, l->ind, l->val), k;
			double rcost = glp_get_obj_coef(l->P, i);

			for (k = 1; k <= len; k++)
				rcost -= y[l->ind[k]] * l->val[k];
			if (rcost > 0)
				ub += rcost * l->col_ub[i];
		}
		for (j = 0; rc == 0 && j < pb->n_nt; j++) {
			double gain = lp_price(l, j, y, counts) - y[l->row_gpu[j]];

			if (gain <= 0)
				continue;
			ub += gain * (double)pb->c->nodes[pb->nt[j].node].num_gpu *
			      (double)pb->nt[j].count;
			if (gain > LP_ENTER_EPS) {
				rc = lp_add_pattern(l, j, counts);
				added = true;
				(*columns_out)++;
			}
		}
		if (ub < best_ub)
			best_ub = ub;
		if (!added)
			break;
	}
	free(y);
	free(counts);
	if (rc)
		return rc;
	/*
	 * The objective is integer at every placement, so the floor bounds it;
	 * the margin covers the rounding of the sums above (relative 1e-12).
	 */
	*bound_out = isfinite(best_ub) ? (int64_t)floor(best_ub * (1 + 1e-12) + 1e-6) : INT64_MAX;
	return 0;
}

int gs_bound_glpk_lp(const struct gs_bound_problem *pb, int64_t *bound_out, int32_t *columns_out,
		     char *err, size_t err_len)
{
	struct lp *volatile lv = calloc(1, sizeof(struct lp));
	jmp_buf jb;
	int rc;

	if (!lv)
		return gs_errf_nomem(err, err_len);
	lv->pb = pb;
	if (setjmp(jb)) {
		struct lp *l = lv;

		l->P = NULL; /* freed with the environment */
		lp_free(l);
		free(l);
		return glpk_failed(err, err_len);
	}
	glpk_begin(&jb);
	rc = lp_build(lv);
	if (rc == 0)
		rc = lp_solve(lv, bound_out, columns_out);
	glpk_end();
	lp_free(lv);
	free(lv);
	/* The thread's environment goes too: a worker thread that ends would leave it behind. */
	glp_free_env();
	if (rc == GS_ENOMEM)
		gs_errf(err, err_len, "out of memory");
	return rc;
}
