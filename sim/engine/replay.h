/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.h - the discrete-event simulator.
 *
 * One struct gs_sim holds a whole simulation: its own copy of the cluster,
 * the policy instance, the event heap, the pending queue, per-pod outcomes
 * and the sampled time series. There is no global state, so a sweep runs
 * many simulations in one process (one per thread).
 *
 * Two modes:
 *   GS_MODE_TIME     pods arrive at creation time (arrivals divided by
 *                    time_scale, durations kept), run until their deletion
 *                    time, and wait FIFO in a pending queue when nothing
 *                    fits; the queue is retried whenever resources free up.
 *   GS_MODE_INFLATE  the FGD paper's experiment: the trace is shuffled with
 *                    the seed and grown with clones until its GPU request
 *                    reaches `inflate` x cluster GPU capacity; pods arrive
 *                    one by one, never leave, and a pod that does not fit
 *                    fails at once.
 *
 * Pod groups (gangs, trace.h) are placed all together or not at all: a
 * group is tried once its last pod has arrived, and then waits as one
 * entry of the pending queue (docs/trace-formats-public.md, "Pod groups").
 *
 * Ownership: struct gs_sim is caller-owned (_init/_release). It copies the
 * cluster and the pods; the trace and policy are borrowed for its lifetime.
 */
#ifndef GS_REPLAY_H
#define GS_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/policy.h"
#include "policies/sched.h"
#include "core/cluster.h"
#include "core/frag.h"
#include "core/idle.h"
#include "engine/heap.h"
#include "engine/arrivals.h"
#include "engine/gang.h"
#include "engine/defrag.h"
#include "engine/metrics.h"
#include "engine/busy.h"
#include "engine/share_model.h"
#include "io/interference.h"
#include "io/trace/trace.h"

struct gs_arrived_stats;

enum gs_mode { GS_MODE_TIME = 0, GS_MODE_INFLATE = 1 };

/* The most points of the sampling grid (--sample-interval) in one run. */
#define GS_SAMPLE_GRID_MAX 1000000

struct gs_replay_opts {
	enum gs_mode mode;
	uint64_t seed;
	double time_scale;          /* > 0; arrivals divided by it, durations kept */
	/*
	 * > 0: time mode's arrivals are rebuilt to offer this percentage of
	 * the GPU capacity (engine/arrivals.h), in the shape `arrivals`; 0: the
	 * trace's times (divided by time_scale, which must then be 1).
	 */
	double load_pct;
	/*
	 * With a load: the GPU capacity (milli-GPU) the load is a percentage
	 * of; 0: the cluster's own. Capacity planning keeps the arrivals of
	 * one cluster while it replays them on clusters of other sizes.
	 */
	int64_t load_cap_milli;
	enum gs_arrivals arrivals;
	int64_t load_repeat;        /* >= 1: with a load, the trace's pods this many times over */
	int64_t max_wait_s;         /* -1: wait forever; else fail after waiting longer */
	int64_t sample_every;       /* sample after every Nth event (>= 1) */
	int64_t sample_interval_s;  /* > 0: also sample on this grid of sim time; 0: off */
	double inflate;             /* GS_MODE_INFLATE: target GPU request / capacity */
	double frag_coverage;       /* typical-pod coverage for fragmentation, 0.95 */
	bool frag;                  /* track fragmentation (always on in inflate mode) */
	unsigned policy_flags;      /* GS_POLICY_* */
	/*
	 * The sharing mode of every GPU the cluster file leaves unset
	 * (core/sharing.h; ideal by default), and the interference table of
	 * the rate model (NULL: the built-in results/interference.csv).
	 */
	struct gs_share_cfg sharing;
	const struct gs_interference *interference;
	/* The reference job of the idle GPU breakdown (core/idle.h): 1 GPU, 8 cores by default. */
	struct gs_idle_job idle_job;
	/*
	 * Busy fractions of the pods the trace leaves without one (engine/busy.h;
	 * borrowed, NULL: every pod busy all its running time).
	 */
	const struct gs_busy *busy;
	bool check;                 /* verify cluster invariants after every change */
	/* Time mode: the descheduler (engine/defrag.h); off unless it has a budget. */
	struct gs_defrag_opts defrag;
	/* Optional progress callback, called about every 1% of pods. */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
	/*
	 * Optional: when *stop turns nonzero (a signal handler sets it), the run
	 * ends after the event at hand and gs_sim_run() returns GS_EINTR. Not a
	 * parameter of the results: a stopped run is never stored.
	 */
	const volatile sig_atomic_t *stop;
};

/* Fills the defaults documented in `gpusim replay --help`. */
void gs_replay_opts_init(struct gs_replay_opts *o);

/* The capacity (milli-GPU) a load of o is a percentage of on cluster c: o->load_cap_milli or c's. */
static inline int64_t gs_replay_load_cap(const struct gs_replay_opts *o,
					 const struct gs_cluster *c)
{
	return o->load_cap_milli > 0 ? o->load_cap_milli : c->gpu_milli;
}

/*
 * The run parameters as canonical JSON, the runs.params_json of the
 * results store: every option of o that changes a run's results (mode,
 * time_scale, max_wait_s, sample_every, sample_interval_s, inflate,
 * frag_coverage, frag, compat, policy_flags; load, arrivals and repeat
 * only when a load is set, and load_capacity_milli when that is set too;
 * sharing only when it is not ideal; the
 * interference table's SHA-256 only when one is given), in a fixed order,
 * so equal options give byte-equal text and a resumed sweep finds its
 * runs. The seed and the policy are columns of their own and not in it;
 * --check changes no result and is left out. Stores a malloc'ed string in
 * *json_out (caller frees with free()). Returns 0 or GS_ENOMEM.
 */
int gs_replay_params_json(const struct gs_replay_opts *o, char **json_out);

enum gs_pod_state {
	GS_POD_NEW = 0,     /* not arrived yet (only seen in a run cut short) */
	GS_POD_PENDING,     /* arrived, waiting; at the end: never placed */
	GS_POD_RUNNING,     /* placed, not deleted before the end */
	GS_POD_DONE,        /* placed and deleted */
	GS_POD_FAILED,      /* gave up: see gs_pod_outcome.fail */
};

/* Why a pod failed. */
enum gs_fail_reason {
	GS_FAIL_NONE = 0,
	GS_FAIL_NOFIT,      /* inflate mode: fitted nowhere when it arrived */
	GS_FAIL_TIMEOUT,    /* waited past max_wait_s */
	GS_FAIL_GPU_MEM,    /* timeslice/mps: its GPU memory did not fit next to the pods already there */
	GS_FAIL_GROUP,      /* its pod group gave up (another pod's --max-wait) before it arrived */
};

/* A static description of r for pods.fail_reason; "" for GS_FAIL_NONE. */
const char *gs_fail_reason_str(enum gs_fail_reason r);

struct gs_pod_outcome {
	int32_t src;                /* index of the pod in the trace (clones share it) */
	uint8_t state;              /* enum gs_pod_state */
	struct gs_placement pl;     /* valid for RUNNING and DONE */
	int64_t t_arrive_s;         /* -1 if never */
	int64_t t_start_s;          /* -1 if never placed */
	int64_t t_end_s;            /* -1 if not ended */
	struct gs_nofit why;        /* filter counts at the last failed attempt */
	uint8_t fail;               /* enum gs_fail_reason, for FAILED pods */
	float coloc;                /* sharing model: mean pods on its busiest GPU while it ran */
	int8_t mig_prof[GS_MAX_GPUS]; /* MIG: the profile of its instance on gpu[i], -1 none */
};

/* One point of the time series. Amounts are allocated (not free) resources. */
struct gs_sample {
	int64_t t_s;                /* simulated time; the arrival index in inflate mode */
	int64_t event;              /* events processed so far */
	int64_t cpu_alloc_milli;
	int64_t mem_alloc_mib;
	int64_t gpu_alloc_milli;
	int64_t gpus_in_use;        /* GPUs with any allocation */
	int64_t arrived_gpu_milli;  /* GPU request of all pods arrived so far, failed included */
	int32_t pods_running;
	int32_t pending;
	int32_t failed;
	double frag_milli;          /* cluster fragmentation; NAN when not tracked */
	/* Idle GPU capacity by reason for opts.idle_job (core/idle.h). */
	int64_t idle_frac_milli, idle_nocpu_milli, idle_stranded_milli;
};

struct gs_sim_stats {
	int64_t events;
	int64_t arrived, placed, failed, done;
	int64_t retries;            /* pending-queue placement attempts */
	int64_t wait_total_s;       /* over placed pods */
	int64_t t_end_s;            /* time of the last event */
};

/*
 * One FIFO of the pending queue: the waiting pods of one request shape, in
 * the order they joined the queue (seq). Pods that timed out stay in it
 * until they reach its head.
 */
struct gs_pending_fifo {
	int32_t *pod;                     /* owned; [head, n) are queued */
	int64_t *seq;                     /* owned; position in the whole queue */
	size_t head, n, cap;
	int32_t active_at;                /* index in gs_sim.active, -1 when empty */
};

struct gs_sim {
	struct gs_replay_opts opts;
	const struct gs_trace *trace;     /* borrowed */
	struct gs_cluster cluster;        /* owned copy, mutated by the run */
	struct gs_sched sched;

	struct gs_pod *pods;              /* owned: the arrival list (with clones) */
	struct gs_pod_outcome *out;       /* owned, one per pod */
	size_t n_pods;

	struct gs_heap events;
	/*
	 * The pending queue in FIFO order, kept as one FIFO per request shape
	 * (see retry_pending in replay.c). n_pending counts the pods in it
	 * as the samples report them: those that timed out since the last
	 * retry included; n_waiting (below) only those still pending.
	 */
	struct gs_pending_fifo *fifos;    /* owned, one per shape */
	int32_t *pod_shape;               /* owned, [n_pods] */
	int32_t n_shapes;
	int32_t *active;                  /* owned, shapes with queued pods */
	int32_t n_active;
	int32_t *retry;                   /* owned, [n_shapes]: retry_pending's shapes to look at */
	int64_t pending_seq;              /* pods ever queued */
	size_t n_pending;

	struct gs_workload workload;      /* typical pods, when fragmentation is tracked */
	struct gs_frag frag;
	bool frag_on;
	struct gs_idle_track idle;        /* the idle GPU breakdown, kept at every bind and unbind */

	int64_t arrived_gpu_milli;        /* GPU request of the pods arrived so far */
	int64_t *t_arrive;                /* owned, time mode: each pod's arrival time */
	int64_t n_waiting;                /* pending pods that have not given up */
	struct gs_metrics metrics;        /* time mode: integrals fed at every event */
	struct gs_time_metrics tm;        /* time mode: the figures, once the run ended */
	/* The rate model (engine/share_model.h): time mode on a cluster with sharing modes. */
	bool share_on;
	struct gs_share_model share;
	struct gs_interference ifr_own;   /* the built-in table, when opts.interference is NULL */
	int64_t oversubscribed;           /* pods failed by GPU memory oversubscription */
	int32_t n_whole;                  /* --sharing mig: GPUs without MIG, run exclusive */
	double eff_util_pct, eff_util_busy_pct, mig_idle_pct, mig_slack_pct; /* gs_summary's */
	/* Pod groups (engine/gang.h), placed all together or not at all. */
	struct gs_gangs gangs;
	struct gs_placement *gang_pl;     /* owned: one per pod of the largest group */
	bool defrag_on;                   /* opts.defrag has a budget (time mode) */
	struct gs_defrag defrag;          /* the descheduler's state and counts */
	struct gs_sample *samples;        /* owned */
	size_t n_samples, cap_samples;
	int64_t next_sample_t_s;
	/*
	 * Inflate mode: the samples' per-percent statistics (engine/
	 * arrived_stats.h), owned, worked out once when the run ends because
	 * the summary and the store both read them; NULL before that, in time
	 * mode, and when there was no memory for them (each reader then works
	 * them out itself).
	 */
	struct gs_arrived_stats *arrived;

	struct gs_sim_stats stats;
	bool ran;
	char fail_msg[320];               /* why a run was refused (GS_ELIMIT), for gs_sim_run */
};

/*
 * Checks, before anything runs or is printed, that trace t can be replayed
 * on cluster proto with options o: the options themselves; in time mode
 * every arrival within GS_TIME_MAX_S after the time scale, a --load the
 * trace can offer and a sampling grid of at most GS_SAMPLE_GRID_MAX
 * points; in inflate mode a cluster with GPUs, a trace with a GPU request
 * and at most GS_INFLATE_MAX_PODS arrivals expected. Returns 0, or
 * GS_EINVAL or GS_ERANGE with a message naming the file or the option:
 * bad input or usage, not a failed run. gs_sim_init() calls it too.
 */
int gs_sim_validate(const struct gs_cluster *proto, const struct gs_trace *t,
		    const struct gs_replay_opts *o, char *err, size_t err_len);

/*
 * Prepares a run of trace t on a copy of cluster proto with policy pol.
 * Returns 0, GS_EINVAL or GS_ERANGE (gs_sim_validate), GS_ENOMEM, or the
 * policy's error; err gets a message.
 */
int gs_sim_init(struct gs_sim *sim, const struct gs_cluster *proto, const struct gs_trace *t,
		const struct gs_policy *pol, const struct gs_replay_opts *o, char *err,
		size_t err_len);

/*
 * Runs to completion and, in time mode, computes sim->tm. Returns 0, or
 * GS_ECHECK (with --check, an invariant broke; err says which), GS_ELIMIT
 * (simulated time or the sum of waits would pass INT64_MAX seconds: a pod
 * that starts late and runs for nearly GS_TIME_MAX_S; err names it) or
 * GS_ENOMEM, or GS_EINTR when opts.stop turned nonzero (the run is cut
 * short: release it, store nothing). A deadline (--max-wait) or a sampling
 * point past INT64_MAX never comes, which is not an error.
 */
int gs_sim_run(struct gs_sim *sim, char *err, size_t err_len);

/* Frees everything gs_sim_init() made (its cluster copy, events, policy state). */
void gs_sim_release(struct gs_sim *sim);

/*
 * Binds pod i of the run at placement pl through the scheduler and
 * returns what gs_sched_bind() does; on success keeps what the run tracks
 * per node current: the fragmentation cache (with --frag) and the idle
 * GPU breakdown. Every bind of the engine, the descheduler's included,
 * goes through it.
 */
int gs_sim_bind(struct gs_sim *sim, int32_t i, const struct gs_placement *pl);
/* gs_sim_bind()'s inverse: gs_sched_unbind(), then the same upkeep. */
int gs_sim_unbind(struct gs_sim *sim, int32_t i, const struct gs_placement *pl);

/*
 * Headline figures of a finished run. Percentages are of the cluster's
 * GPU capacity (gpu_count x 1000 milli); NAN where undefined.
 */
struct gs_summary {
	int64_t pods, placed, failed, pending, running;
	double mean_wait_s;          /* over placed pods */
	/*
	 * Allocated GPU share in percent. Time mode: the mean over the
	 * arrival window (tm.gpu_alloc_arrival_pct). Inflate mode: the
	 * mean over the samples whose arrived workload rounds to 100% (the
	 * statistic of Weng et al., ATC 2023, figure 7). When no sample
	 * rounds to 100% (one pod can jump over it on a small cluster), the
	 * mean over the samples that round to 99..101% instead, as the
	 * reference analysis does; NAN when there are none either.
	 */
	double gpu_alloc_pct;
	double unalloc_gpu_pct;      /* 100 - gpu_alloc_pct */
	/*
	 * The largest allocated GPU share, in percent, and the longest
	 * pending queue. Time mode: from the events (tm); inflate mode: of
	 * any sample.
	 */
	double peak_gpu_alloc_pct;
	int64_t peak_pending;
	/*
	 * Inflate mode with fragmentation: frag/idle and frag/capacity, over
	 * the same samples as gpu_alloc_pct.
	 */
	double frag_ratio_pct;
	double frag_amount_pct;
	/* Time mode: the figures from the events (metrics.h); tm.valid false otherwise. */
	struct gs_time_metrics tm;
	/*
	 * Sharing (time mode): useful work delivered over the arrival window
	 * and over the busy time, in percent of capacity (need x GPUs x
	 * full-speed seconds; equal to the allocation when sharing costs
	 * nothing and pods need what they ask), next to
	 * tm.gpu_alloc_arrival_pct and tm.gpu_alloc_busy_pct;
	 * pods failed by GPU memory oversubscription; compute slices of MIG
	 * GPUs held by idle instances of fixed layouts and reserved beyond
	 * the requests of busy instances, in percent of the MIG slices over
	 * the makespan (NAN without MIG GPUs).
	 */
	double eff_util_pct, eff_util_busy_pct;
	int64_t oversubscribed;
	double mig_idle_pct, mig_slack_pct;
	/*
	 * Pod groups: how many the run had, placed and gave up, and the mean
	 * wait of the placed ones from their last pod's arrival to their
	 * start (NAN when none was placed). Each pod of a group also counts
	 * in the pod figures above with its own wait.
	 */
	int64_t groups, groups_placed, groups_failed;
	double group_mean_wait_s;
	/*
	 * The idle GPU capacity by reason for opts.idle_job (core/idle.h), in
	 * percent of capacity: on partly used GPUs, whole GPUs on nodes short
	 * of CPU or memory, whole GPUs too few on their node. Time mode: means
	 * over the arrival window; inflate mode: over the samples of arrived
	 * workload 100 % (99..101 %), as gpu_alloc_pct.
	 */
	double idle_frac_pct, idle_nocpu_pct, idle_stranded_pct;
};

/* Computes the summary from the outcomes and samples of a finished run. */
void gs_sim_summarize(const struct gs_sim *sim, struct gs_summary *out);

/* Arrived workload of a sample in whole percent of capacity, rounded. */
int64_t gs_sample_arrived_pct(const struct gs_sample *s, int64_t gpu_capacity_milli);

#endif
