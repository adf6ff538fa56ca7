/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals.c - the SIGINT/SIGTERM flag of a batch of runs (see signals.h).
 */
#include <string.h>

#include "run/signals.h"

/*
 * The first SIGINT or SIGTERM since gs_signals_catch(), 0 until then.
 * Process-wide, as signals are.
 */
static volatile sig_atomic_t stop_sig;

/* Async-signal-safe: only notes the signal (SA_RESETHAND makes the next one kill). */
static void on_stop_signal(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

void gs_signals_catch(struct gs_signals *s)
{
	struct sigaction on_sig;

	memset(&on_sig, 0, sizeof(on_sig));
	on_sig.sa_handler = on_stop_signal;
	sigemptyset(&on_sig.sa_mask);
	on_sig.sa_flags = SA_RESETHAND | SA_RESTART;
	stop_sig = 0;
	sigaction(SIGINT, &on_sig, &s->old_int);
	sigaction(SIGTERM, &on_sig, &s->old_term);
	s->caught = true;
}

void gs_signals_restore(struct gs_signals *s)
{
	if (!s->caught)
		return;
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	s->caught = false;
}

int gs_signals_caught(void)
{
	return (int)stop_sig;
}

const volatile sig_atomic_t *gs_signals_flag(void)
{
	return &stop_sig;
}

const char *gs_signals_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal";
}
