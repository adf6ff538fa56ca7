/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c - the stderr progress bar (see progress.h).
 */
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "run/progress.h"

#define BAR_WIDTH 30

void gs_progress_init(struct gs_progress *p, FILE *f, const char *label, size_t total)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->total = total;
	p->on = f && total > 0 && isatty(fileno(f));
	p->last_permille = -1;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
	p->t0_s = gs_clock_s();
}

static void draw(struct gs_progress *p, size_t done, int permille)
{
	double el = gs_clock_s() - p->t0_s, eta;
	char bar[BAR_WIDTH + 1];
	int i, fill = permille * BAR_WIDTH / 1000;

	eta = done ? el * (double)(p->total - done) / (double)done : 0;
	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	fprintf(p->f, "\r%s [%s] %3d%% %zu/%zu  %.1fs elapsed, %.1fs left ", p->label, bar,
		permille / 10, done, p->total, el, eta);
	fflush(p->f);
}

void gs_progress_update(struct gs_progress *p, size_t done)
{
	int permille;

	if (!p->on)
		return;
	if (done > p->total)
		done = p->total;
	permille = (int)(done * 1000 / p->total);
	if (permille == p->last_permille)
		return;
	p->last_permille = permille;
	draw(p, done, permille);
}

void gs_progress_done(struct gs_progress *p)
{
	if (!p->on)
		return;
	draw(p, p->total, 1000);
	fputc('\n', p->f);
	p->on = false;
}
