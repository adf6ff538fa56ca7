/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sharing.c - fuzz targets for the sharing model's tables, one per
 * FUZZ_KIND: 1 the interference table (io/interference.h), 2 a busy
 * distribution (engine/busy.h), 3 the rows of a validation set
 * (engine/validation.h), with its own workloads file before a line "%%"
 * or two fixed workloads.
 *
 * Beyond "no crash": a refusal names the input (fuzz_check_refusal); an
 * interference table survives a round trip through its writer with the
 * same rows; a busy distribution is a quantile function (from 0 to 1,
 * never falling) and its draws stay within its range; a validation set's
 * rows name workloads that exist, and a set of one or two rows either
 * replays to finite positive figures or is refused by file and line.
 */
#define _GNU_SOURCE
#include <math.h>

#include "fuzz.h"

#include "core/error.h"
#include "engine/busy.h"
#include "engine/validation.h"
#include "io/interference.h"

#ifndef FUZZ_KIND
#define FUZZ_KIND 1
#endif

#if FUZZ_KIND == 1
static void one(const char *text, size_t size)
{
	struct gs_interference t, u;
	char err[1024], *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	gs_interference_init(&t);
	gs_interference_init(&u);
	rc = gs_interference_parse(&t, "table.csv", text, size, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected code %d", rc);
		if (rc == GS_EPARSE)
			fuzz_check_refusal("table.csv", err);
		return;
	}
	f = open_memstream(&buf, &len);
	FUZZ_CHECK(f != NULL, "open_memstream");
	FUZZ_CHECK(gs_interference_write(&t, f) == 0, "the writer failed");
	fclose(f);
	rc = gs_interference_parse(&u, "again.csv", buf, len, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "its own output is refused: %s", err);
	FUZZ_CHECK(u.n == t.n, "%zu rows written, %zu read back", t.n, u.n);
	for (i = 0; i < t.n; i++) {
		FUZZ_CHECK(u.rows[i].mode == t.rows[i].mode && u.rows[i].n == t.rows[i].n &&
			   u.rows[i].efficiency == t.rows[i].efficiency &&
			   !strcmp(u.rows[i].gpu_model, t.rows[i].gpu_model) &&
			   !strcmp(u.rows[i].wclass, t.rows[i].wclass) &&
			   !strcmp(u.rows[i].source, t.rows[i].source),
			   "row %zu changed in the round trip", i);
	}
	free(buf);
	gs_interference_release(&u);
	gs_interference_release(&t);
}
#elif FUZZ_KIND == 2
static void one(const char *text, size_t size)
{
	static struct gs_busy_dist d;
	char err[1024];
	int rc, i;

	rc = gs_busy_dist_parse(&d, "busy.csv", text, size, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected code %d", rc);
		if (rc == GS_EPARSE)
			fuzz_check_refusal("busy.csv", err);
		return;
	}
	FUZZ_CHECK(d.n >= 2 && d.q[0] == 0 && d.q[d.n - 1] == 1, "not from quantile 0 to 1");
	for (i = 1; i < d.n; i++)
		FUZZ_CHECK(d.q[i] > d.q[i - 1] && d.busy[i] >= d.busy[i - 1],
			   "row %d falls", i + 1);
	for (i = 0; i <= 16; i++) {
		double b = gs_busy_dist_at(&d, i / 16.0);

		FUZZ_CHECK(b >= d.busy[0] && b <= d.busy[d.n - 1] && b > 0 && b <= 1,
			   "draw %g outside [%g, %g]", b, d.busy[0], d.busy[d.n - 1]);
	}
}
#else
/* Workloads for inputs that bring none: every default, and every field set. */
static const char default_wl[] =
	"workload,gpu_milli,gpu_mem_mib,need_milli,busy_milli,compute_milli,source\n"
	"full,1000,1000,,,,fuzz\n"
	"half,500,1000,1000,500,300,fuzz\n";

static void one(const char *text, size_t size)
{
	const char *wl = default_wl, *rows = text, *sep = NULL;
	size_t wl_len = strlen(default_wl), rows_len = size, i;
	struct gs_validation v;
	char err[1024];
	int rc, k;

	/* An input may bring its own workloads file first, ended by a line "%%". */
	if (size >= 3 && !memcmp(text, "%%\n", 3))
		sep = text;
	else if (size >= 4)
		sep = memmem(text, size, "\n%%\n", 4) ? (const char *)memmem(text, size, "\n%%\n", 4) + 1
							: NULL;
	if (sep) {
		wl = text;
		wl_len = (size_t)(sep - text);
		rows = sep + 3;
		rows_len = size - wl_len - 3;
	}
	gs_validation_init(&v);
	rc = gs_validation_parse(&v, "workloads.csv", wl, wl_len, "rows.csv", rows, rows_len, err,
				 sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "unexpected code %d", rc);
		if (rc == GS_EPARSE)
			fuzz_check_refusal(strncmp(err, "rows.csv", 8) ? "workloads.csv" : "rows.csv",
					   err);
		return;
	}
	for (i = 0; i < v.n_rows; i++) {
		FUZZ_CHECK(v.rows[i].n_pods >= 1 && v.rows[i].n_pods <= GS_VAL_PODS_MAX,
			   "row %zu has %d pods", i, v.rows[i].n_pods);
		for (k = 0; k < v.rows[i].n_pods; k++)
			FUZZ_CHECK(v.rows[i].pod_wl[k] >= 0 && (size_t)v.rows[i].pod_wl[k] < v.n_wl,
				   "row %zu names workload %d", i, v.rows[i].pod_wl[k]);
	}
	/* A short set is replayed too: finite positive figures, or a refusal by file and line. */
	if (v.n_rows <= 3) {
		rc = gs_validation_run(&v, NULL, err, sizeof(err));
		if (rc == 0) {
			for (i = 0; i < v.n_rows; i++)
				FUZZ_CHECK(v.rows[i].role == GS_VAL_NONE ||
					   (isfinite(v.rows[i].predicted) && v.rows[i].predicted > 0),
					   "row %zu replays to %g", i, v.rows[i].predicted);
		} else {
			FUZZ_CHECK(rc == GS_EINVAL || rc == GS_ENOMEM, "unexpected code %d", rc);
			if (rc == GS_EINVAL)
				fuzz_check_refusal("rows.csv", err);
		}
	}
	gs_validation_release(&v);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one((const char *)data, size);
	return 0;
}
