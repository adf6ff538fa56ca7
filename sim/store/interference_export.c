/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interference_export.c - the interference table from bench_slowdown (see
 * interference_export.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/gpu_model.h"
#include "store/interference_export.h"
#include "store/results_internal.h"

/*
 * One group per mode, device, kernel and client count, the factor
 * weighted by samples over every imported file and scenario.
 */
static const char sql_groups[] =
	"SELECT mode, device, kernel, colocated, sum(factor * samples) / sum(samples),"
	" sum(samples), count(DISTINCT scenario), group_concat(DISTINCT driver),"
	" group_concat(DISTINCT cuda)"
	" FROM bench_slowdown WHERE samples > 0 AND factor > 0"
	" GROUP BY mode, device, kernel, colocated ORDER BY mode, device, kernel, colocated";

static int table_exists(struct gs_db *db, bool *yes, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->conn, "SELECT 1 FROM sqlite_master WHERE type = 'table'"
				       " AND name = 'bench_slowdown'", -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot look for the bench tables");
	rc = sqlite3_step(st);
	*yes = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
		: gs_db_sqlfail(db, err, err_len, "cannot look for the bench tables");
}

int gs_db_interference_export(struct gs_db *db, struct gs_interference *t, char *err,
			      size_t err_len)
{
	sqlite3_stmt *st = NULL;
	bool have = false;
	size_t i;
	int rc;

	gs_interference_release(t);
	rc = table_exists(db, &have, err, err_len);
	if (rc)
		return rc;
	if (have && sqlite3_prepare_v2(db->conn, sql_groups, -1, &st, NULL) != SQLITE_OK)
		return gs_db_sqlfail(db, err, err_len, "cannot read bench_slowdown");
	while (have && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(st, 0);
		const char *device = (const char *)sqlite3_column_text(st, 1);
		const char *kernel = (const char *)sqlite3_column_text(st, 2);
		int n = sqlite3_column_int(st, 3), m;
		double factor = sqlite3_column_double(st, 4);
		const char *model = gs_models_from_device(device);
		char source[512], cls[GS_CLASS_NAME_MAX], msg[256];
		size_t k;

		m = gs_share_mode_find(strcmp(mode, "hook") == 0 ? "vgpu" : mode);
		/* A kernel name made a class name: lower case, other characters '_'. */
		for (k = 0; kernel[k] && k + 1 < sizeof(cls); k++) {
			char ch = kernel[k];

			cls[k] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' :
					(ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
					ch == '.' || ch == '-' ? ch : '_');
		}
		cls[k] = '\0';
		snprintf(source, sizeof(source),
			 "make bench on %s (driver %s; CUDA %s): %d x the mean throughput factor "
			 "%.4f against alone of %lld clients over %d scenarios",
			 device, (const char *)sqlite3_column_text(st, 7),
			 (const char *)sqlite3_column_text(st, 8), n, factor,
			 (long long)sqlite3_column_int64(st, 5), sqlite3_column_int(st, 6));
		/*
		 * The CSV has no quoting: commas in the device's name become
		 * semicolons, quotes and control characters blanks.
		 */
		for (k = 0; source[k]; k++) {
			if (source[k] == ',')
				source[k] = ';';
			else if (source[k] == '"' || (unsigned char)source[k] < 0x20 ||
				 source[k] == 0x7f)
				source[k] = ' ';
		}
		if (m <= GS_SHARE_IDEAL || !cls[0] || n < 1 || n > GS_IFR_N_MAX)
			continue;
		/* Four decimals, as the source states the factor: the table is read by people. */
		rc = gs_interference_add(t, m, model ? model : "*", n, cls,
					 round(n * factor * 1e4) / 1e4, source, msg, sizeof(msg));
		if (rc == GS_ENOMEM) {
			sqlite3_finalize(st);
			return gs_db_fail(err, err_len, rc, "out of memory");
		}
		if (rc) /* a factor out of range, say: not a row of the table */
			continue;
		/* Two devices gpusim names alike: keep the first (the ORDER BY is stable). */
		for (i = 0; i + 1 < t->n; i++) {
			const struct gs_ifr_row *a = &t->rows[i], *b = &t->rows[t->n - 1];

			if (a->mode == b->mode && a->n == b->n && !strcmp(a->gpu_model, b->gpu_model) &&
			    !strcmp(a->wclass, b->wclass)) {
				free(t->rows[--t->n].source);
				break;
			}
		}
	}
	if (st)
		sqlite3_finalize(st);
	if (have && rc != SQLITE_DONE) {
		gs_interference_release(t);
		return gs_db_sqlfail(db, err, err_len, "cannot read bench_slowdown");
	}
	if (t->n == 0)
		return gs_db_fail(err, err_len, GS_ENOENT,
				  "%s: no benchmark slowdown results (run make bench, then "
				  "gpusim bench-import --db %s FILE)", db->path, db->path);
	snprintf(t->path, sizeof(t->path), "%s", db->path);
	return 0;
}
