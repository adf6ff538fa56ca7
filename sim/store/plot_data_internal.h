/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_data_internal.h - what the three files behind plot_data.h share:
 * plot_data.c (the FGD and bench figures), plot_time.c (time mode) and
 * plot_sharing.c (sharing mechanisms). The order of names (core/strv.h
 * keeps the lists), the data files gnuplot reads, and SQLite's errors.
 * Defined in plot_data.c; include plot_data.h instead outside these files.
 */
#ifndef GS_PLOT_DATA_INTERNAL_H
#define GS_PLOT_DATA_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

#include "store/plot_data.h"

/* qsort comparator of an array of strings (char *), by strcmp. */
int gs_plot_cmp_str(const void *a, const void *b);

/* qsort comparator of an array of doubles, ascending. */
int gs_plot_cmp_double(const void *a, const void *b);

/* Column i of st's row as a double, NAN for NULL. */
double gs_plot_col_real(sqlite3_stmt *st, int i);

/*
 * Appends column 0 of every row st returns to (*v)[*n..], growing *v
 * (capacity *cap). Returns 0, or GS_ENOMEM or GS_EDB with a message in
 * err; the caller frees *v in every case.
 */
int gs_plot_read_doubles(sqlite3_stmt *st, double **v, size_t *n, size_t *cap, char *err,
			 size_t err_len);

/* GS_EDB, with "<database file>: <SQLite's message>" in err. */
int gs_plot_dberr(sqlite3 *sq, char *err, size_t err_len);

/*
 * Loads the traces' names into *nm (gs_plot_traces_load()) and prepares
 * sql into *st, for a query whose rows name traces. Returns 0, what
 * gs_plot_traces_load() returns, or GS_EDB with *nm released; a message
 * in err on failure.
 */
int gs_plot_prepare_traces(sqlite3 *sq, const char *sql, struct gs_plot_traces *nm,
			   sqlite3_stmt **st, char *err, size_t err_len);

/*
 * Opens dir/name for writing as dir/name.tmp, renamed into place by
 * gs_plot_data_close() when complete, so that nobody reads half a file
 * (bench-import writes into the user's directory). NULL with a message
 * in err when it cannot.
 */
FILE *gs_plot_data_open(const char *dir, const char *name, char *err, size_t err_len);

/* Closes f and renames it into place; 0, or GS_EIO with a message in err and nothing left. */
int gs_plot_data_close(FILE *f, const char *dir, const char *name, char *err, size_t err_len);

/* Closes f and removes it, left unfinished. */
void gs_plot_data_discard(FILE *f, const char *dir, const char *name);

#endif
