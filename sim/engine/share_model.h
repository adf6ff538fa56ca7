/* SPDX-License-Identifier: Apache-2.0 */
/*
 * share_model.h - the rate model: how fast each running pod progresses under
 * its GPUs' sharing modes, and when it completes. docs/sharing-model.md
 * derives it and checks it against published measurements.
 *
 * A pod's trace duration is its work alone on a dedicated GPU. The model
 * sees a pod through four numbers (core/cluster.h): its need u (the share
 * of the GPU's SMs its kernels can use, gpu_need_milli or its request), its
 * busy fraction b (the share of its running time it has GPU work queued,
 * gpu_busy_milli or the run's --busy), its compute fraction a (the share
 * of its GPU work that scales with SMs, the rest with memory bandwidth;
 * gpu_compute_milli or GS_COMPUTE_DEFAULT_MILLI) and its request r.
 * Alone, its GPU work at SM share s and bandwidth share w runs at
 *
 *   speed(s, w) = 1 / (a max(1, u / s) + (1 - a) max(1, u / w))
 *
 * of full speed, and its idle phases (1 - b of its time) do not slow down.
 * On each of its GPUs its rate is
 *
 *   exclusive  1
 *   mig        1 / ((1 - b) + b / speed(s, w)) x E, with s the instance's
 *              SMs over the GPU's and w its memory slices / 8 (core/mig.h)
 *   timeslice  min(1, t / b) x E: contexts take turns, t is the pod's
 *              max-min fair share of the GPU's time among the busy
 *              fractions of the pods on it
 *   mps        v0 x min(1, g / e) x E: clients run side by side; capped at
 *              the active-thread share c its GPU work runs at speed(c, 1),
 *              so alone at v0 = 1 / ((1 - b) + b / speed(c, 1)), using
 *              e = v0 b min(u, c) / speed(c, 1) of the SMs; g is its
 *              max-min fair share of the SMs among those demands
 *   vgpu       min(1, t / b) x E: as time-slicing, each pod's time held to
 *              its request r (capped: a hard limit; elastic: what others
 *              leave is lent in proportion to r), a limiter of accuracy
 *              q giving t = q x t(limited) + (1 - q) x t(no limit)
 *   ideal      (no model: rate 1)
 * where E is the interference table's efficiency (io/interference.h) for
 * the mode, the GPU model, the pod's class and, for timeslice, mps and
 * vgpu, the sum of the busy fractions of the pods on the GPU (mig: the
 * instance's compute slices; the built-in table has no mig rows, E = 1).
 * A pod on several GPUs runs at the rate of its slowest GPU. Every rate is
 * at most 1: a pod never runs faster than its trace, measured alone.
 *
 * Exactness: rates are fixed-point integers (GS_RATE_ONE = 2^20 is full
 * speed, rounded up to the next 2^-20) and remaining work is in 2^-20 s, so advancing work is exact
 * integer arithmetic; a pod's completion is the first integer second at
 * which its work is done. A pod alone at rate 1 completes exactly after its
 * duration. When the pods on a GPU change, only the pods on that GPU (and
 * on the other GPUs of multi-GPU pods among them) are advanced at their old
 * rate and given a new completion time: the cost of an event does not grow
 * with the cluster, and a pod whose rate no other pod changes (on MIG and
 * exclusive GPUs) keeps its completion. The event queue moves a completion
 * that moved (engine/heap.h); a generation counter per pod tells its
 * earlier ones from it.
 *
 * A pod on one MIG GPU (a kept pod) is not even visited when a neighbour
 * on another instance of its GPU starts or stops: its rate reads its own
 * instance, its view and the table alone (gpu_rate()), none of which a
 * neighbour changes. At a constant rate, bringing its work up to date once
 * over [t0, t2] gives the very integers that two steps over [t0, t1] and
 * [t1, t2] give, and so does the useful work it is counted for past its
 * completion (rate x dt - done), which is taken off the figures at the
 * first visit at or after its completion: the neighbours' changes from
 * that time on still visit it (struct gs_share_mig_gpu.due), in the same
 * order among the other pods, so the figures' sums of doubles are taken in
 * the same order. Its coloc_s, the integral of its GPU's pod count over
 * its stay, is the difference of the GPU's integral kept in integers.
 *
 * Ownership: struct gs_share_model is caller-owned (_init/_release); it
 * borrows the cluster, the pods and the table for its lifetime.
 */
#ifndef GS_SHARE_MODEL_H
#define GS_SHARE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/interference.h"
#include "io/trace/trace.h"

#define GS_RATE_ONE (INT64_C(1) << 20)
/*
 * The longest stay the rate model takes, in seconds: work is counted in
 * 2^-20 s in an int64, so 2^42 s (139,000 years) leaves room for the sum
 * with the rate. Longer pods are refused before a sharing run
 * (gs_sim_validate()).
 */
#define GS_SHARE_WORK_MAX_S (INT64_C(1) << 42)

/* A pod's view in the model (see the top), resolved from its trace fields. */
struct gs_share_view {
	double need;             /* u, (0, 1] */
	double busy;             /* b, (0, 1] */
	double compute;          /* a, [0, 1] */
	double request;          /* r, its gpu_milli / 1000 */
};

/*
 * One GPU pod in the model. What a reschedule reads comes first, with the
 * pod's view (need, busy, compute and request from its trace fields,
 * defaults filled in at its start, each its milli value / 1000.0): the pods
 * of a GPU are rescheduled together, and they then cost one visit each,
 * not one here and one in the pods' array, and no division.
 */
struct gs_share_pod {
	int64_t work;            /* remaining, in 2^-20 s; -1: never completes */
	int64_t rate;            /* 1 .. GS_RATE_ONE */
	int64_t t_upd;           /* when work and the integrals were last brought up to date */
	uint32_t gen;            /* completion events of other generations are stale */
	int32_t coloc;           /* pods on its busiest GPU, itself included */
	struct gs_share_view v;  /* the view */
	int16_t wclass;          /* its workload class (core/cluster.h) */
	uint8_t num_gpu;         /* its GPUs */
	bool active;
	bool fixed;              /* on GPUs where no other pod changes its rate (mig, exclusive) */
	bool kept;               /* fixed, on one MIG GPU: its neighbours leave its record alone */
	uint16_t on_mig;         /* its GPUs that are MIG GPUs: bit k for pl.gpu[k] */
	union {
		double coloc_s;      /* integral of coloc over its run, pod x s */
		uint64_t coloc_at;   /* kept, while it runs: its GPU's pods' integral at its start */
	};
	struct gs_placement pl;  /* where it runs */
};

/* Pods a GPU holds in its own entry before it takes an array apart. */
#define GS_SHARE_GPU_INLINE 10

/*
 * One GPU's pods, in the order they came. The first few are in the entry
 * itself (one cache line), so that a start or stop reads the GPU and its
 * pods' list with one miss.
 */
struct gs_share_gpu {
	_Alignas(64) int32_t *pods; /* inline, or owned past GS_SHARE_GPU_INLINE */
	int32_t n, cap;
	int64_t mem_mib;         /* GPU memory the pods on it asked for */
	int32_t inline_pods[GS_SHARE_GPU_INLINE];
};

/*
 * What a start or stop on a MIG GPU needs of the kept pods on it (struct
 * gs_share_pod.kept), so that it does not read their records: the
 * integral of the GPU's pod count over time (their coloc_s is its
 * difference over their stay) and when each of its pods must next be
 * brought up to date. One cache line per GPU, in memory the system zeroes
 * on first touch, so that GPUs which are not MIG GPUs never touch theirs.
 */
struct gs_share_mig_gpu {
	_Alignas(64) uint64_t coloc_base; /* the integral at t is this + n x t, mod 2^64 */
	/*
	 * Per pod of the GPU's list (struct gs_share_gpu.pods), the first
	 * time at which a change on the GPU brings it up to date: its
	 * completion for a kept pod (INT64_MAX if it never completes), and
	 * INT64_MIN for the others, which every change reschedules.
	 */
	int64_t due[GS_MIG_MAX_INSTANCES];
};

/* Run-level figures (gs_share_model_finish()). */
struct gs_share_figures {
	double useful_gpu_s;     /* need x busy x GPUs x full-speed seconds delivered */
	double useful_arr_gpu_s; /* the same up to the last arrival (gs_share_model_arrival()) */
	double mig_idle_slice_s; /* idle instances of fixed layouts, compute slices x s */
	double mig_slack_slice_s;/* slices reserved beyond the requests of busy instances, x s */
	int64_t mig_slices;      /* compute slices of all MIG GPUs */
	int64_t oversubscribed;  /* pods failed at start: GPU memory past the card */
};

struct gs_share_model {
	const struct gs_cluster *c;          /* borrowed: the run's cluster */
	const struct gs_pod *pods;           /* borrowed */
	const struct gs_trace *trace;        /* borrowed: class names */
	const struct gs_interference *tbl;   /* borrowed */
	struct gs_share_pod *p;              /* owned, one per pod */
	size_t n_pods;
	int32_t *gpu_base;                   /* owned: per node, its GPU 0 in gpus */
	struct gs_share_gpu *gpus;           /* owned, one per GPU of the cluster */
	struct gs_share_mig_gpu *mig;        /* one per GPU of the cluster, in mig_mem; NULL: no MIG GPU */
	void *mig_mem;                       /* owned */
	int64_t n_gpus;
	struct gs_ifr_curve *curves;         /* owned cache: [mode][model][class] */
	uint8_t *have_curve;                 /* owned: 1 where curves[] is filled */
	int32_t *touched;                    /* owned scratch: pods to reschedule */
	int32_t n_touched, cap_touched;
	/* Useful work: its rate now and the integral up to t_useful. */
	double useful_rate;
	int64_t t_useful;
	/* Integrals of the MIG figures, brought up to t_last at every change. */
	int64_t t_last;
	double mig_idle_slices, mig_slack_slices; /* the current values */
	struct gs_share_figures fig;
};

/*
 * Prepares the model for n pods on cluster c (the run's own copy, with its
 * sharing state). Returns 0 or GS_ENOMEM.
 */
int gs_share_model_init(struct gs_share_model *m, const struct gs_cluster *c,
			const struct gs_pod *pods, size_t n, const struct gs_trace *t,
			const struct gs_interference *tbl);
/* Frees what gs_share_model_init() allocated in m and zeroes it. */
void gs_share_model_release(struct gs_share_model *m);

/* Called for every pod whose completion moved: push a completion event. */
typedef int (*gs_share_push_fn)(void *arg, int32_t pod, int64_t t_done_s, uint32_t gen);

/*
 * Pod i, just bound at placement pl at time t with duration_s of work (-1:
 * never completes), starts. Every pod whose rate changes, i included, gets
 * a new completion through push. Returns 0 or GS_ENOMEM / push's error, or
 * GS_ELIMIT: a stay over GS_SHARE_WORK_MAX_S, or a completion after
 * INT64_MAX seconds (a tiny rate).
 */
int gs_share_model_start(struct gs_share_model *m, int32_t i, const struct gs_placement *pl,
			 int64_t t, int64_t duration_s, gs_share_push_fn push, void *arg);

/*
 * Pod i leaves its GPUs at time t (completed, or failed at start); the
 * others on them are rescheduled. Call before the allocator unbinds it
 * (the MIG instance must still be there). Returns 0 or push's error.
 */
int gs_share_model_stop(struct gs_share_model *m, int32_t i, const struct gs_placement *pl,
			int64_t t, gs_share_push_fn push, void *arg);

/* An arrival at t: the arrival window, which the useful-work figure is over, reaches t. */
void gs_share_model_arrival(struct gs_share_model *m, int64_t t);

/* True when a completion event of pod i with generation gen is current. */
static inline bool gs_share_model_current(const struct gs_share_model *m, int32_t i,
					  uint32_t gen)
{
	return m->p[i].active && m->p[i].gen == gen;
}

/* The GPU (0..n_gpus-1) pod i runs on first: its departures' group in the event queue. */
static inline int32_t gs_share_model_home(const struct gs_share_model *m, int32_t i)
{
	return m->gpu_base[m->p[i].pl.node] + m->p[i].pl.gpu[0];
}

/*
 * The GPU memory already asked for by the pods on GPU gpu of node, and the
 * card's memory, for the oversubscription check of timeslice and mps.
 */
int64_t gs_share_model_gpu_mem(const struct gs_share_model *m, int32_t node, int gpu);

/*
 * Brings the integrals to time t (the end of the run) and returns the
 * figures; the model's last call before gs_share_model_release().
 */
const struct gs_share_figures *gs_share_model_finish(struct gs_share_model *m, int64_t t);

/* The rate pod i would run at on GPU gpu of its placement now (for tests and inspect). */
double gs_share_model_rate(const struct gs_share_model *m, int32_t i);


/*
 * The speed of GPU work of a pod of view v alone at SM share sm and
 * memory-bandwidth share bw (both in (0, 1]): the formula at the top.
 */
double gs_share_model_speed(const struct gs_share_view *v, double sm, double bw);

/*
 * The max-min fair shares of a capacity of 1 among n demands d[] (each
 * > 0): out[j] = min(d[j], L) with the water level L that fills the
 * capacity, or d[j] when they all fit. Weights w[] (NULL: all equal) make
 * it weighted (out[j] = min(d[j], w[j] L)). d, w and out have n entries.
 */
void gs_share_model_water_fill(const double *d, const double *w, double *out, int n);

#endif
