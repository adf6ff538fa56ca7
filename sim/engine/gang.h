/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gang.h - pod groups (gangs) in a run: which of the run's pods make each
 * group, how many of them have arrived, and the FIFO of complete groups
 * that wait for room. The replay (replay.c) places a group's pods all
 * together or not at all, as Kubernetes schedulers with gang support do
 * (scheduler-plugins' coscheduling with minMember = the group's size,
 * Volcano): docs/trace-formats-public.md, "Pod groups (gangs)".
 *
 * A trace's group becomes one group of the run per copy of the trace
 * (--repeat) in time mode; in inflate mode each run of a group's pods in
 * the arrival order (engine/inflate.h keeps them together) is cut into
 * groups of the group's size, so a clone of a group is a group of its own.
 *
 * Ownership: struct gs_gangs is caller-owned (_init/_release) and owns
 * its arrays; it borrows nothing.
 */
#ifndef GS_GANG_H
#define GS_GANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

enum gs_gang_state {
	GS_GANG_FORMING = 0,  /* not all its pods have arrived */
	GS_GANG_WAITING,      /* complete, and no room for all of it yet */
	GS_GANG_PLACED,       /* all its pods placed at once */
	GS_GANG_FAILED,       /* gave up: a pod's --max-wait passed, or (inflate) no room */
};

/* One group of a run. */
struct gs_gang {
	int32_t first;        /* its pods are members[first .. first + n) */
	int32_t n;
	int32_t arrived;      /* its pods arrived so far */
	uint8_t state;        /* enum gs_gang_state */
	int64_t ready_s;      /* when its last pod arrived; -1 before */
	int64_t start_s;      /* when it was placed; -1 before */
	int64_t seq;          /* its place in the pending queue, once waiting */
	/* Its whole request, for the retry's quick test: GPU milli, milli-cores, MiB. */
	int64_t gpu_milli, cpu_milli, mem_mib;
};

struct gs_gangs {
	struct gs_gang *g;     /* owned, n of them */
	int32_t n;
	int32_t *members;      /* owned: the run's pod indices, group after group, in run order */
	int32_t *of;           /* owned: each run pod's group, -1 for none */
	int32_t max_n;         /* the largest group */
	int32_t *queue;        /* owned: waiting groups in the order they became complete */
	size_t head, len, cap;
	/* Counts over the run, for the summary. */
	int64_t placed, failed;
	int64_t wait_total_s;  /* sum over placed groups of start - ready */
};

/*
 * Finds the groups of a run of n pods: pod i of the run is trace pod
 * idx[i] of t (idx NULL: i % period). blocks: inflate mode (consecutive pods of a group, cut in
 * groups of its size); else time mode, the pods of a group in copy i /
 * period of the trace. pods are the run's requests (for the totals).
 * Makes gs an empty set when t has no group. Returns 0 or GS_ENOMEM.
 */
int gs_gangs_init(struct gs_gangs *gs, const struct gs_trace *t, const int32_t *idx,
		  const struct gs_pod *pods, size_t n, size_t period, bool blocks);

/* Frees what gs_gangs_init() made; gs is then an empty set. */
void gs_gangs_release(struct gs_gangs *gs);

/* Whether the run has any group. */
static inline bool gs_gangs_on(const struct gs_gangs *gs)
{
	return gs->n > 0;
}

/* The group of run pod i, or -1. */
static inline int32_t gs_gangs_of(const struct gs_gangs *gs, int32_t i)
{
	return gs->of ? gs->of[i] : -1;
}

/* Appends group g to the waiting queue with sequence number seq. 0 or GS_ENOMEM. */
int gs_gangs_enqueue(struct gs_gangs *gs, int32_t g, int64_t seq);

/* Drops the groups at the head of the queue that no longer wait. */
void gs_gangs_trim(struct gs_gangs *gs);

#endif
