/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.h - the time-mode figures of a run, computed from its events.
 *
 * The replay engine feeds a struct gs_metrics at every event that changes
 * the state (an arrival, a departure with the placements it allows, a
 * pending pod giving up). Nothing else moves it: sampling events and the
 * timeout of a pod that was already placed are not seen, so neither the
 * sampling options nor a --max-wait that fails no pod can change a figure.
 *
 * Definitions (integer simulated seconds throughout):
 *   arrival window   [first arrival, last arrival]
 *   end              the time of the last event that changed the state
 *                    (arrival, placement, departure, a pod giving up)
 *   makespan         end - first arrival
 *   busy time        the seconds of [first arrival, end] in which at least
 *                    one pod was running or waiting
 * Per pod:
 *   wait             start - arrival, for placed pods
 *   completion time  end - arrival, for pods that departed, where end is
 *                    the departure event's time (not start + duration: a
 *                    model that stretches a run moves the event, and every
 *                    figure follows)
 *   slowdown         completion time / max(duration, GS_SLOWDOWN_MIN_S),
 *                    the bounded slowdown, for pods that departed; the
 *                    duration is the trace's (deletion - creation), so a
 *                    pod that waited or ran slower than asked is above 1
 * Percentiles are nearest-rank: the p-th percentile of n sorted values is
 * the value at rank ceil(p * n / 100) (1-based); it is always one of the
 * values, never interpolated.
 *
 * Time averages are integrals over exact integer time divided by the
 * window's length: GPU allocation over the arrival window and over the
 * busy time, fragmentation (when tracked) and the idle GPU capacity by
 * reason (core/idle.h) over the arrival window, the pending queue over
 * the makespan (so pending_avg * makespan is the sum
 * of every wait, Little's law). Peaks are over the states that held for a
 * positive time, and the final state.
 *
 * Ownership: struct gs_metrics is a plain value inside struct gs_sim; it
 * owns nothing.
 */
#ifndef GS_METRICS_H
#define GS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/cluster.h"

/* The floor of the bounded slowdown's denominator, in seconds. */
#define GS_SLOWDOWN_MIN_S 10

/* The running integrals. Fields are read by the engine's tests only. */
struct gs_metrics {
	int64_t cap_milli;            /* cluster GPU capacity */
	bool frag_on;
	int64_t t_first_arrival;      /* -1 before the first arrival */
	int64_t t_last_arrival;
	int64_t t_last;               /* the last state-changing event */
	/* The state since t_last. */
	int64_t gpu_alloc_milli;
	int64_t pending;              /* pods waiting (pods that gave up excluded) */
	int64_t in_system;            /* pods running or waiting */
	double frag_milli;
	/* Integrals over [t_first_arrival, t_last]. */
	double alloc_milli_s;         /* milli-GPU x s (a double: 2^45 milli x 2^53 s pass int64) */
	double pending_pod_s;         /* pods x s */
	int64_t busy_s;
	double frag_milli_s;
	/* The same integrals over [t_first_arrival, t_last_arrival]. */
	double arr_alloc_milli_s;
	double arr_frag_milli_s;
	int64_t peak_alloc_milli;
	int64_t peak_pending;
	int64_t timed_out;            /* pods that gave up waiting */
	/* Idle GPU capacity by reason (fractional, short of CPU, stranded): state and integrals. */
	int64_t idle_milli[3];
	double idle_milli_s[3];
	double arr_idle_milli_s[3];   /* over [t_first_arrival, t_last_arrival] */
};

/* Starts empty on a cluster of cap_milli GPU capacity; frag_on: integrate fragmentation too. */
void gs_metrics_init(struct gs_metrics *m, int64_t cap_milli, bool frag_on);

/*
 * Integrates the state held since the last state-changing event up to t
 * (>= it). Call it before an event at t changes anything.
 */
static inline void gs_metrics_advance(struct gs_metrics *m, int64_t t)
{
	int64_t dt;

	if (m->t_first_arrival < 0)
		return;
	dt = t - m->t_last;
	if (dt > 0) {
		m->alloc_milli_s += (double)m->gpu_alloc_milli * (double)dt;
		m->pending_pod_s += (double)m->pending * (double)dt;
		if (m->in_system > 0)
			m->busy_s += dt;
		if (m->frag_on)
			m->frag_milli_s += m->frag_milli * (double)dt;
		if (m->gpu_alloc_milli > m->peak_alloc_milli)
			m->peak_alloc_milli = m->gpu_alloc_milli;
		if (m->pending > m->peak_pending)
			m->peak_pending = m->pending;
		m->idle_milli_s[0] += (double)m->idle_milli[0] * (double)dt;
		m->idle_milli_s[1] += (double)m->idle_milli[1] * (double)dt;
		m->idle_milli_s[2] += (double)m->idle_milli[2] * (double)dt;
	}
	m->t_last = t;
}

/* An arrival at t (after gs_metrics_advance(m, t)): moves the arrival window. */
static inline void gs_metrics_arrival(struct gs_metrics *m, int64_t t)
{
	if (m->t_first_arrival < 0) {
		m->t_first_arrival = t;
		m->t_last = t;
	}
	m->t_last_arrival = t;
	m->arr_alloc_milli_s = m->alloc_milli_s;
	m->arr_frag_milli_s = m->frag_milli_s;
	memcpy(m->arr_idle_milli_s, m->idle_milli_s, sizeof(m->arr_idle_milli_s));
}

/* The state after a state-changing event; frag_milli is ignored unless frag_on. */
static inline void gs_metrics_state(struct gs_metrics *m, int64_t gpu_alloc_milli,
				    int64_t pending, int64_t in_system, double frag_milli)
{
	m->gpu_alloc_milli = gpu_alloc_milli;
	m->pending = pending;
	m->in_system = in_system;
	m->frag_milli = frag_milli;
}

/*
 * The idle GPU capacity after a state-changing event, in milli-GPU: on
 * partly used GPUs, whole GPUs of nodes short of CPU or memory for the
 * reference job, whole GPUs too few on their node (core/idle.h).
 */
static inline void gs_metrics_idle(struct gs_metrics *m, int64_t frac_milli, int64_t nocpu_milli,
				   int64_t stranded_milli)
{
	m->idle_milli[0] = frac_milli;
	m->idle_milli[1] = nocpu_milli;
	m->idle_milli[2] = stranded_milli;
}

/*
 * The figures of a finished time-mode run. NAN (or -1 for the times) where
 * a figure is undefined: no pod placed, none departed, an arrival window of
 * length 0, fragmentation not tracked.
 */
struct gs_time_metrics {
	bool valid;                   /* time mode with at least one arrival */
	int64_t t_first_arrival_s, t_last_arrival_s, t_end_s;
	int64_t makespan_s;           /* t_end_s - t_first_arrival_s */
	int64_t busy_s;
	int64_t n_waits;              /* placed pods: the waits below are over them */
	double wait_mean_s, wait_p50_s, wait_p90_s, wait_p99_s, wait_max_s;
	int64_t n_completed;          /* departed pods: completion and slowdown */
	double completion_mean_s, completion_p50_s, completion_p90_s, completion_p99_s,
		completion_max_s;
	double slowdown_mean, slowdown_p99;
	double pending_avg;           /* time-averaged pending pods over the makespan */
	int64_t pending_peak;
	double gpu_alloc_arrival_pct; /* mean allocated GPU share over the arrival window */
	double gpu_alloc_busy_pct;    /* mean allocated GPU share over the busy time */
	double gpu_alloc_peak_pct;
	double frag_avg_pct;          /* mean fragmentation over the arrival window, % of capacity */
	/* Mean idle GPU capacity by reason over the arrival window, % of capacity (core/idle.h). */
	double idle_frac_pct, idle_nocpu_pct, idle_stranded_pct;
	int64_t n_timed_out;          /* pods that gave up (--max-wait) */
	double offered_load_pct;      /* of the arrivals as run: gs_offered_load_pct() */
};

/* Marks *out not valid: every figure NAN or -1, offered_load_pct as given. */
void gs_time_metrics_clear(struct gs_time_metrics *out, double offered_load_pct);

/*
 * One pod's times for gs_metrics_finish(): -1 for never. departed: end_s
 * is a departure (not the time it gave up).
 */
struct gs_metrics_pod {
	int64_t arrive_s, start_s, end_s;
	int64_t duration_s;           /* the trace's: gs_pod_duration_s() */
	bool departed;
};

/*
 * Fills *out from the integrals of m and the n pods' times (pod(arg, i)
 * gives pod i). offered_load_pct is copied in. Returns 0, or GS_ENOMEM
 * (the sorting buffers), in which case *out is marked not valid.
 */
int gs_metrics_finish(const struct gs_metrics *m, size_t n,
		      void (*pod)(const void *arg, size_t i, struct gs_metrics_pod *out),
		      const void *arg, double offered_load_pct, struct gs_time_metrics *out);

/*
 * The nearest-rank p-th percentile (0 < p <= 100) of n >= 1 ascending
 * values: v[ceil(p * n / 100) - 1]. NAN for n == 0.
 */
double gs_percentile_sorted(const double *v, size_t n, double p);

/*
 * Offered load in percent of GPU capacity cap_milli: the GPU demand the
 * pods bring over the arrival window [min arrive, max arrive] of length W,
 *   100 * sum_i gpu_i * min(duration_i, W) / (cap_milli * W)
 * with gpu_i = num_gpu * gpu_milli and a pod that never leaves (duration
 * -1) counting W. A pod that runs longer than the window brings at most
 * its request over the whole window. NAN when W is 0 or n is 0.
 * arrive[i] is pod i's arrival time.
 */
double gs_offered_load_pct(const struct gs_pod *pods, const int64_t *arrive, size_t n,
			   int64_t cap_milli);

#endif
