/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mig.c - the MIG tables and the geometry of one GPU: the profiles as
 * NVIDIA's MIG user guide lists them, with the SMs, memory, copy engines
 * and decoders `nvidia-smi mig -lgip` reports (issue 21), the chain
 * property the allocator relies on, and the checks of issue 9 on an H100
 * (seven 1g.10gb fit, 4g.40gb + 3g.40gb fit, two 4g.40gb do not, nothing
 * starts at an invalid position), worked out by hand below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "core/error.h"
#include "core/mig.h"

static const struct gs_mig_table *h100(void)
{
	const struct gs_mig_table *t = gs_mig_table_for_model("H100");

	assert_non_null(t);
	return t;
}

static int prof(const struct gs_mig_table *t, const char *name)
{
	int i = gs_mig_profile_find(t, name);

	assert_true(i >= 0);
	return i;
}

/* The guide's tables 6-8: names, slices, instances available. */
static void test_tables_match_the_guide(void **state)
{
	/*
	 * The SMs, the memory (the GiB nvidia-smi prints x 1024), copy engines
	 * and decoders of the listings mig.c cites, and the SMs of the whole GPU.
	 */
	static const struct {
		const char *model, *names[6];
		int sm[6], ce[6], dec[6], sm_full;
		int64_t mib[6];
	} want[] = {
		{ "A100", { "1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb" },
		  { 14, 14, 28, 42, 56, 98 }, { 1, 1, 2, 3, 4, 7 }, { 0, 1, 1, 2, 2, 5 }, 108,
		  { 4864, 9984, 9984, 20096, 20096, 40448 } },
		{ "A100-80G", { "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb" },
		  { 14, 14, 28, 42, 56, 98 }, { 1, 1, 2, 3, 4, 7 }, { 0, 1, 1, 2, 2, 5 }, 108,
		  { 9728, 19968, 19968, 40192, 40192, 80896 } },
		{ "H100", { "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb" },
		  { 16, 26, 32, 60, 64, 132 }, { 1, 1, 2, 3, 4, 8 }, { 1, 1, 2, 3, 4, 7 }, 132,
		  { 9984, 20096, 20096, 40448, 40448, 81152 } },
		{ "H200", { "1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb" },
		  { 16, 26, 32, 60, 64, 132 }, { 1, 1, 2, 3, 4, 8 }, { 1, 1, 2, 3, 4, 7 }, 132,
		  { 16384, 33024, 33024, 71168, 71168, 142336 } },
	};
	/* Compute slices, memory slices and instances available, the same on all four. */
	static const int compute[6] = { 1, 1, 2, 3, 4, 7 }, mem[6] = { 1, 2, 2, 4, 4, 8 };
	static const int instances[6] = { 7, 4, 3, 2, 1, 1 };
	size_t m;
	int i;

	(void)state;
	assert_int_equal(gs_mig_table_count(), 4);
	assert_null(gs_mig_table_for_model("T4"));
	assert_null(gs_mig_table_for_model("V100M32"));
	assert_ptr_equal(gs_mig_table_for_model("A100"), gs_mig_table_for_model("A100-40G"));
	for (m = 0; m < sizeof(want) / sizeof(want[0]); m++) {
		const struct gs_mig_table *t = gs_mig_table_for_model(want[m].model);

		assert_non_null(t);
		assert_int_equal(t->n, 6);
		assert_int_equal(t->sm_full, want[m].sm_full);
		for (i = 0; i < 6; i++) {
			struct gs_mig_gpu g;
			int k = 0;

			assert_string_equal(t->p[i].name, want[m].names[i]);
			assert_int_equal(t->p[i].compute, compute[i]);
			assert_int_equal(t->p[i].mem_slices, mem[i]);
			assert_int_equal(t->p[i].sm, want[m].sm[i]);
			assert_int_equal(t->p[i].mem_mib, want[m].mib[i]);
			assert_int_equal(t->p[i].copy_engines, want[m].ce[i]);
			assert_int_equal(t->p[i].decoders, want[m].dec[i]);
			/* Less than the name says, and less than slices x card / 8. */
			assert_true(t->p[i].mem_mib < (int64_t)mem[i] * t->card_mib / 8);
			/* As many instances as the guide says fit on an empty GPU. */
			gs_mig_gpu_init(&g);
			while (gs_mig_find_start(t, &g, i) >= 0) {
				assert_true(gs_mig_create(t, &g, i, gs_mig_find_start(t, &g, i)) >= 0);
				k++;
			}
			assert_int_equal(k, instances[i]);
		}
	}
}

/*
 * Issue 21: a pod asking 10,000 MiB does not fit an H100 1g.10gb (9,984 MiB
 * as the driver reports it): the smallest profile that covers it is the
 * 1g.20gb; 9,984 MiB still fits the 1g.10gb. On an A100 80GB the 1g.10gb
 * has 9,728 MiB. The shares the rate model runs an instance at: SMs over
 * the whole GPU's, memory slices over 8; a 4g.40gb gets 64 / 132 = 0.485 of
 * an H100's SMs, not 4 / 7, and a 1g.20gb more than a 1g.10gb.
 */
static void test_instances_as_the_driver_reports_them(void **state)
{
	const struct gs_mig_table *t = h100(), *a80 = gs_mig_table_for_model("A100-80G");

	(void)state;
	assert_int_equal(gs_mig_profile_cover(t, 100, 10000), prof(t, "1g.20gb"));
	assert_int_equal(gs_mig_profile_cover(t, 100, 9984), prof(t, "1g.10gb"));
	assert_int_equal(gs_mig_profile_cover(a80, 100, 9729), prof(a80, "1g.20gb"));
	assert_int_equal(gs_mig_profile_cover(a80, 100, 9728), prof(a80, "1g.10gb"));
	/* 40 GiB asked: more than a 3g.40gb's 39.50 GiB, so only the 7g.80gb covers it. */
	assert_int_equal(gs_mig_profile_cover(t, 100, 40960), prof(t, "7g.80gb"));
	assert_true(fabs(gs_mig_profile_sm_share(t, &t->p[prof(t, "4g.40gb")]) - 64.0 / 132) <
		    1e-12);
	assert_true(gs_mig_profile_sm_share(t, &t->p[prof(t, "1g.20gb")]) >
		    gs_mig_profile_sm_share(t, &t->p[prof(t, "1g.10gb")]));
	assert_true(fabs(gs_mig_profile_sm_share(t, &t->p[prof(t, "7g.80gb")]) - 1.0) < 1e-12);
	assert_true(fabs(gs_mig_profile_sm_share(a80, &a80->p[prof(a80, "7g.80gb")]) -
			 98.0 / 108) < 1e-12);
	assert_true(fabs(gs_mig_profile_bw_share(&t->p[prof(t, "3g.40gb")]) - 0.5) < 1e-12);
	assert_true(fabs(gs_mig_profile_bw_share(&t->p[prof(t, "1g.10gb")]) - 0.125) < 1e-12);
}

/*
 * The chain the allocator relies on: each profile is at least the one
 * before it in compute and memory, and its starts are a subset.
 */
static void test_profiles_form_a_chain(void **state)
{
	int m, i;

	(void)state;
	for (m = 0; m < gs_mig_table_count(); m++) {
		const struct gs_mig_table *t = gs_mig_table_at(m);

		for (i = 1; i < t->n; i++) {
			assert_true(t->p[i].compute >= t->p[i - 1].compute);
			assert_true(t->p[i].mem_slices >= t->p[i - 1].mem_slices);
			assert_true(t->p[i].mem_mib >= t->p[i - 1].mem_mib);
			assert_int_equal(t->p[i].starts & ~t->p[i - 1].starts, 0);
		}
	}
}

/* Issue 9: seven 1g.10gb fit on an H100, an eighth does not. */
static void test_h100_seven_1g(void **state)
{
	const struct gs_mig_table *t = h100();
	struct gs_mig_gpu g;
	int i, p1 = prof(t, "1g.10gb");

	(void)state;
	gs_mig_gpu_init(&g);
	for (i = 0; i < 7; i++) {
		/* Highest free start first: 6, 5, ..., 0. */
		assert_int_equal(gs_mig_find_start(t, &g, p1), 6 - i);
		assert_int_equal(gs_mig_create(t, &g, p1, 6 - i), i);
	}
	assert_int_equal(g.compute_used, 7);
	assert_int_equal(g.mem_used, 0x7f); /* memory slice 7 is never a 1g start */
	assert_int_equal(gs_mig_find_start(t, &g, p1), -1);
	assert_int_equal(gs_mig_create(t, &g, p1, 7), GS_EINVAL);
}

/* Issue 9: 4g.40gb + 3g.40gb fit (in either order); two 4g.40gb do not. */
static void test_h100_4g_3g_and_two_4g(void **state)
{
	const struct gs_mig_table *t = h100();
	struct gs_mig_gpu g;
	int p4 = prof(t, "4g.40gb"), p3 = prof(t, "3g.40gb");

	(void)state;
	gs_mig_gpu_init(&g);
	assert_int_equal(gs_mig_find_start(t, &g, p4), 0);  /* 4g starts only at 0 */
	assert_true(gs_mig_create(t, &g, p4, 0) >= 0);
	assert_int_equal(gs_mig_find_start(t, &g, p3), 4);  /* slices 4-7 */
	assert_true(gs_mig_create(t, &g, p3, 4) >= 0);
	assert_int_equal(g.compute_used, 7);
	assert_int_equal(g.mem_used, 0xff);

	gs_mig_gpu_init(&g);
	assert_true(gs_mig_create(t, &g, p3, gs_mig_find_start(t, &g, p3)) >= 0); /* at 4 */
	assert_int_equal(g.inst[0].start, 4);
	assert_int_equal(gs_mig_find_start(t, &g, p4), 0);

	gs_mig_gpu_init(&g);
	assert_true(gs_mig_create(t, &g, p4, 0) >= 0);
	assert_int_equal(gs_mig_find_start(t, &g, p4), -1);
	assert_int_equal(gs_mig_create(t, &g, p4, 0), GS_ENOFIT);
	assert_int_equal(gs_mig_create(t, &g, p4, 4), GS_EINVAL); /* not a 4g start */
}

/* Issue 9: nothing starts at an invalid position, for any profile. */
static void test_invalid_starts_refused(void **state)
{
	const struct gs_mig_table *t = h100();
	static const char *const names[6] = { "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb",
					      "4g.40gb", "7g.80gb" };
	/* The guide's placements, memory-slice units. */
	static const unsigned valid[6] = { 0x7f, 0x55, 0x15, 0x11, 0x01, 0x01 };
	struct gs_mig_gpu g;
	int i, s;

	(void)state;
	for (i = 0; i < 6; i++) {
		int p = prof(t, names[i]);

		for (s = -1; s <= 8; s++) {
			int rc;

			gs_mig_gpu_init(&g);
			rc = gs_mig_create(t, &g, p, s);
			if (s >= 0 && s < 8 && ((valid[i] >> s) & 1u))
				assert_true(rc >= 0);
			else
				assert_int_equal(rc, GS_EINVAL);
		}
	}
}

/* The smallest covering profile, and requests nothing covers. */
static void test_cover(void **state)
{
	const struct gs_mig_table *t = h100();

	(void)state;
	/* 142 milli x 7 / 1000 = 0.994 -> 1 slice; 143 -> 1.001 -> 2 slices. */
	assert_int_equal(gs_mig_profile_cover(t, 142, 0), prof(t, "1g.10gb"));
	assert_int_equal(gs_mig_profile_cover(t, 143, 0), prof(t, "2g.20gb"));
	/* 1 slice but 15 GiB: 1g.20gb, not 2g.20gb. */
	assert_int_equal(gs_mig_profile_cover(t, 100, 15 * 1024), prof(t, "1g.20gb"));
	assert_int_equal(gs_mig_profile_cover(t, 300, 0), prof(t, "3g.40gb"));   /* 2.1 -> 3 */
	assert_int_equal(gs_mig_profile_cover(t, 500, 0), prof(t, "4g.40gb"));   /* 3.5 -> 4 */
	assert_int_equal(gs_mig_profile_cover(t, 100, 50 * 1024), prof(t, "7g.80gb"));
	assert_int_equal(gs_mig_profile_cover(t, 1000, 0), prof(t, "7g.80gb"));
	assert_int_equal(gs_mig_profile_cover(t, 1000, 81921), -1);
	/* Shares: floor(c x 1000 / 7), a whole GPU for 7g. */
	assert_int_equal(gs_mig_profile_milli(&t->p[prof(t, "1g.10gb")]), 142);
	assert_int_equal(gs_mig_profile_milli(&t->p[prof(t, "3g.40gb")]), 428);
	assert_int_equal(gs_mig_profile_milli(&t->p[prof(t, "4g.40gb")]), 571);
	assert_int_equal(gs_mig_profile_milli(&t->p[prof(t, "7g.80gb")]), 1000);
}

/* Choosing an instance: fixed layouts reuse idle instances, dynamic ones grow. */
static void test_choose_and_layouts(void **state)
{
	const struct gs_mig_table *t = h100();
	struct gs_mig_gpu g;
	char err[160], buf[128];
	int q, s;

	(void)state;
	assert_int_equal(gs_mig_layout_parse(t, "3g.40gb+2g.20gb+1g.10gb+1g.10gb", &g, err,
					     sizeof(err)), 0);
	assert_true(g.fixed);
	/* 3g at 4, 2g at 2, 1g at 1 and 0 (highest free start each). */
	assert_string_equal(gs_mig_layout_format(t, &g, buf, sizeof(buf)),
			    "3g.40gb@4+2g.20gb@2+1g.10gb@1+1g.10gb@0");
	/* A 1g request takes the smallest idle instance, lowest start on ties. */
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "1g.10gb"), &q, &s), 0);
	assert_int_equal(q, prof(t, "1g.10gb"));
	assert_int_equal(s, 0);
	/* A 2g request: the 2g; a 4g request: nothing is large enough. */
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "2g.20gb"), &q, &s), 0);
	assert_int_equal(s, 2);
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "4g.40gb"), &q, &s), GS_ENOFIT);
	g.inst[1].busy = 1; /* the 2g */
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "2g.20gb"), &q, &s), 0);
	assert_int_equal(q, prof(t, "3g.40gb"));  /* the next larger idle one */

	/* Explicit starts round-trip; bad layouts say why. */
	assert_int_equal(gs_mig_layout_parse(t, "3g.40gb@0+4g.40gb@0", &g, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "overlaps"));
	assert_int_equal(gs_mig_layout_parse(t, "4g.40gb+4g.40gb", &g, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "no free valid start for 4g.40gb"));
	assert_int_equal(gs_mig_layout_parse(t, "1g.5gb", &g, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "'1g.5gb' is not a MIG profile of the H100 80GB"));
	assert_int_equal(gs_mig_layout_parse(t, "2g.20gb@1", &g, err, sizeof(err)), GS_EINVAL);
	assert_non_null(strstr(err, "valid: 0,2,4"));

	/* Dynamic: a 1g.20gb with only slices 6-7 free goes to 6. */
	gs_mig_gpu_init(&g);
	assert_true(gs_mig_create(t, &g, prof(t, "4g.40gb"), 0) >= 0);
	assert_true(gs_mig_create(t, &g, prof(t, "2g.20gb"), 4) >= 0);
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "1g.20gb"), &q, &s), 0);
	assert_int_equal(s, 6);
	assert_int_equal(gs_mig_choose(t, &g, prof(t, "2g.20gb"), &q, &s), GS_ENOFIT);
	gs_mig_destroy(t, &g, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.mem_used, 0x30);
	assert_int_equal(g.compute_used, 2);
}

/*
 * gs_mig_find_start() and gs_mig_fits_at() against trying every start with
 * gs_mig_create(), on every state a GPU of each built-in table reaches by
 * creating instances (a walk of all create sequences up to the instance
 * limit, deduplicated by the state the finder reads: used slices, compute,
 * instance count).
 */
static void test_find_start_tries_every_start(void **state)
{
	int ti, checked = 0;

	(void)state;
	for (ti = 0; ti < gs_mig_table_count(); ti++) {
		const struct gs_mig_table *t = gs_mig_table_at(ti);
		static struct gs_mig_gpu todo[4096];
		static bool seen[256][GS_MIG_COMPUTE_SLICES + 1][GS_MIG_MAX_INSTANCES + 1];
		int n_todo = 1;

		memset(seen, 0, sizeof(seen));
		gs_mig_gpu_init(&todo[0]);
		while (n_todo > 0) {
			struct gs_mig_gpu g = todo[--n_todo];
			int q;

			for (q = 0; q < t->n; q++) {
				int s, want = -1;

				/* Every start, and gs_mig_fits_at() on each (out of range too). */
				for (s = GS_MIG_MEM_SLICES; s >= -1; s--) {
					struct gs_mig_gpu copy = g;
					bool made = gs_mig_create(t, &copy, q, s) >= 0;

					assert_int_equal(gs_mig_fits_at(t, &g, q, s), made);
					if (made && want < 0)
						want = s;
				}
				assert_int_equal(gs_mig_find_start(t, &g, q), want);
				checked++;
				if (want >= 0) {
					struct gs_mig_gpu next = g;

					assert_true(gs_mig_create(t, &next, q, want) >= 0);
					if (!seen[next.mem_used][next.compute_used][next.n]) {
						seen[next.mem_used][next.compute_used][next.n] = true;
						assert_true(n_todo < 4096);
						todo[n_todo++] = next;
					}
				}
			}
		}
	}
	assert_true(checked > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_match_the_guide),
		cmocka_unit_test(test_instances_as_the_driver_reports_them),
		cmocka_unit_test(test_profiles_form_a_chain),
		cmocka_unit_test(test_h100_seven_1g),
		cmocka_unit_test(test_h100_4g_3g_and_two_4g),
		cmocka_unit_test(test_invalid_starts_refused),
		cmocka_unit_test(test_cover),
		cmocka_unit_test(test_choose_and_layouts),
		cmocka_unit_test(test_find_start_tries_every_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
