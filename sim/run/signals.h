/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals.h - stopping a batch of runs cleanly on SIGINT or SIGTERM.
 *
 * While a batch runs (run/exec.h), the first SIGINT or SIGTERM only sets
 * a flag: the workers take no new run, the engine cuts the runs in
 * progress short at their next event (it watches the flag through
 * gs_replay_opts.stop), and what finished is stored. The handler is
 * installed with SA_RESETHAND, so a second signal has the default action
 * and kills at once. The flag is process-wide, as signals are: one batch
 * at a time catches them.
 *
 * Ownership: struct gs_signals is the caller's; it holds the actions the
 * catch replaced until gs_signals_restore() puts them back.
 */
#ifndef GS_SIGNALS_H
#define GS_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* What gs_signals_catch() replaced. */
struct gs_signals {
	struct sigaction old_int, old_term;
	bool caught;                  /* the handler is installed */
};

/* Clears the flag and installs the handler for SIGINT and SIGTERM; *s keeps the old actions. */
void gs_signals_catch(struct gs_signals *s);

/* Puts back the actions gs_signals_catch() replaced; does nothing when s caught nothing. */
void gs_signals_restore(struct gs_signals *s);

/* The signal caught since the last gs_signals_catch(), 0 if none. Async-signal-safe to read. */
int gs_signals_caught(void);

/* The flag itself, for gs_replay_opts.stop: nonzero once a signal was caught. */
const volatile sig_atomic_t *gs_signals_flag(void);

/* "SIGINT" or "SIGTERM" for the signals caught here, "signal" otherwise. */
const char *gs_signals_name(int sig);

#endif
