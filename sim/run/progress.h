/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h - a one-line progress bar on stderr for long runs and for the
 * runs of a batch (run/exec.h).
 *
 * Drawn only when stderr is a terminal (and NO_COLOR-style plain text even
 * then), so logs and pipes stay clean. Redraws at most once per percent
 * step. Not thread-safe: the caller serialises updates.
 */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gs_progress {
	FILE *f;
	bool on;
	char label[48];
	size_t total;
	int last_permille;
	double t0_s;                 /* gs_clock_s() when it started */
};

/* Starts a bar of `total` steps; on only when f is a terminal and total > 0. */
void gs_progress_init(struct gs_progress *p, FILE *f, const char *label, size_t total);
/* Redraws for `done` steps if it moved by at least 0.1%. */
void gs_progress_update(struct gs_progress *p, size_t done);
/* Draws 100% and ends the line. */
void gs_progress_done(struct gs_progress *p);

#endif
