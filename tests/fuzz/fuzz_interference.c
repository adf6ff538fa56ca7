/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_interference.c - fuzz target: the interference table's reader
 * (replay --interference, gpusim interference check; io/interference.h).
 *
 * Properties: a refused table says why, naming the file; an accepted one
 * has rows, each with a source, writes out (gs_interference_write()) to
 * a text that reads back to the same rows, and answers every lookup with
 * an efficiency above 0 and at most 100 or "no row".
 */
#include <math.h>

#include "core/error.h"
#include "core/sharing.h"
#include "fuzz.h"
#include "io/interference.h"

#define NAME "table.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_interference t, back;
	char err[2048], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	gs_interference_init(&t);
	rc = gs_interference_parse(&t, NAME, (const char *)data, size, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EPARSE || rc == GS_ENOMEM, "status %s: %s", gs_strerror(rc),
			   err);
		fuzz_check_refusal(NAME, err);
		gs_interference_release(&t);
		return 0;
	}
	FUZZ_CHECK(t.n > 0, "an accepted table without rows");
	for (i = 0; i < t.n; i++)
		FUZZ_CHECK(t.rows[i].source && t.rows[i].source[0], "row %zu has no source", i);
	f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL, "open_memstream");
	FUZZ_CHECK(gs_interference_write(&t, f) == 0, "the table cannot be written");
	fclose(f);
	gs_interference_init(&back);
	rc = gs_interference_parse(&back, NAME, text, len, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "the written table is refused: %s", err);
	FUZZ_CHECK(back.n == t.n, "%zu rows written, %zu read back", t.n, back.n);
	for (i = 0; i < t.n; i++) {
		const struct gs_ifr_row *a = &t.rows[i], *b = &back.rows[i];

		FUZZ_CHECK(a->mode == b->mode && a->n == b->n && !strcmp(a->gpu_model, b->gpu_model) &&
				   !strcmp(a->wclass, b->wclass) && !strcmp(a->source, b->source),
			   "row %zu changed through the writer", i);
		FUZZ_CHECK(a->efficiency == b->efficiency,
			   "row %zu: efficiency %.17g read back as %.17g", i, a->efficiency,
			   b->efficiency);
		{
			double e = gs_interference_lookup(&t, a->mode, a->gpu_model, a->wclass, a->n);

			FUZZ_CHECK(isnan(e) || (e > 0 && e <= 100),
				   "row %zu: the lookup answers %.17g", i, e);
		}
	}
	gs_interference_release(&back);
	free(text);
	gs_interference_release(&t);
	return 0;
}
