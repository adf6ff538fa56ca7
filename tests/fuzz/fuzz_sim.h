/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sim.h - checks shared by the fuzz targets of the simulator's
 * readers (cluster, pods, generator spec): counting records, round trips
 * through gpusim's own writers, and a short replay of what was accepted.
 */
#ifndef GS_FUZZ_SIM_H
#define GS_FUZZ_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "io/trace/trace.h"

/* The rule load.c applies: a .json name, or '{' or '[' first (after blanks). */
bool fuzz_is_json(const char *name, const uint8_t *data, size_t size);

/*
 * The data lines of an accepted CSV text: its lines with anything but CRs
 * in them, after the header (a run of CR and LF ends a file). An accepted
 * CSV has one record per line.
 */
size_t fuzz_csv_data_lines(const uint8_t *data, size_t size);

/* Aborts unless a and b have the same nodes: names, capacities, GPUs, model name and memory. */
void fuzz_check_same_cluster(const struct gs_cluster *a, const struct gs_cluster *b);

/*
 * Aborts unless traces a (models of ca) and b (models of cb) have the same
 * pods in the same order: names, requests, model sets by name, times,
 * pod groups and classes by name.
 */
void fuzz_check_same_trace(const struct gs_trace *a, const struct gs_cluster *ca,
			   const struct gs_trace *b, const struct gs_cluster *cb);

/*
 * Writes c (as JSON, or CSV when csv) or t (CSV) into a new NUL-terminated
 * string (caller frees) with gpusim's writers (io/trace/write.h). Returns
 * NULL when the writer refuses (csv: a model not built in) or memory runs
 * out; *rc_out gets the writer's status.
 */
char *fuzz_print_cluster(const struct gs_cluster *c, bool csv, size_t *len_out, int *rc_out);
char *fuzz_print_trace(const struct gs_trace *t, const struct gs_cluster *c, size_t *len_out,
		       int *rc_out);

/*
 * Writes c and t with gpusim's writers and reads them back: the same
 * cluster and the same pods, or the fuzz check aborts. csv_too also
 * tries the CSV cluster writer (refused only for models not built in).
 */
void fuzz_round_trip(const struct gs_cluster *c, const struct gs_trace *t, bool csv_too);

/*
 * Replays small accepted inputs (at most max_pods pods) in time mode and,
 * when it is at most that many arrivals, in inflate mode, with the
 * allocator's invariant check on: legal input must give a run, or a
 * refusal with a message (GS_ELIMIT past int64's last second).
 */
void fuzz_replay(const struct gs_cluster *c, const struct gs_trace *t, size_t max_pods);

#endif
