/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_trace_openb.c - the real openb files (Weng et al., ATC 2023) from
 * ../shared/traces/openb: every file loads without error, with the counts
 * the trace's README and SOURCE.md state, the checksums SHA256SUMS lists,
 * and the audit counts worked out for each file. Exits 77 (skipped) when
 * the trace is not there; scripts/fetch-openb.sh downloads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/error.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"

#define OPENB GS_OPENB_DIR "/"

static char err[1024];

static void load_cluster(const char *file, struct gs_cluster *c)
{
	gs_cluster_init(c);
	assert_int_equal(gs_load_cluster(file, c, NULL, err, sizeof(err)), 0);
}

static void test_node_lists(void **state)
{
	struct gs_cluster c;
	int32_t i, cpu_only = 0;

	(void)state;
	load_cluster(OPENB "openb_node_list_gpu_node.csv", &c);
	assert_int_equal(c.n_nodes, 1213);
	assert_int_equal(c.gpu_count, 6212);
	gs_cluster_release(&c);

	load_cluster(OPENB "openb_node_list_all_node.csv", &c);
	assert_int_equal(c.n_nodes, 1523);
	assert_int_equal(c.gpu_count, 6212);
	for (i = 0; i < c.n_nodes; i++)
		cpu_only += c.nodes[i].num_gpu == 0;
	assert_int_equal(cpu_only, 310);
	assert_int_equal(c.nodes[1522].num_gpu, 8);
	gs_cluster_release(&c);
}

static void test_default_trace(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	size_t i, gpu = 0, share = 0, multi = 0;

	(void)state;
	load_cluster(OPENB "openb_node_list_all_node.csv", &c);
	gs_trace_init(&t);
	assert_int_equal(gs_load_trace(OPENB "openb_pod_list_default.csv", &c, &t, err,
				       sizeof(err)), 0);
	assert_string_equal(t.format, "openb");
	assert_int_equal(t.n_pods, 8152);
	assert_string_equal(t.pod_names[0], "openb-pod-0000");
	assert_int_equal(t.pods[0].cpu_milli, 12000);
	assert_int_equal(t.pods[0].t_create_s, 0);
	assert_int_equal(t.pods[0].t_delete_s, 12537496);
	assert_int_equal(t.audit.deleted_before_created, 0);
	assert_int_equal(t.audit.no_deletion_time, 0);
	assert_int_equal(t.audit.larger_than_any_node, 0);
	assert_int_equal(t.audit.unknown_model, 0);
	for (i = 0; i < t.n_pods; i++) {
		gpu += t.pods[i].num_gpu > 0;
		share += t.pods[i].num_gpu == 1 && t.pods[i].gpu_milli < 1000;
		multi += t.pods[i].num_gpu > 1;
	}
	/* Counted with awk on the file: num_gpu > 0, sharing, multi-GPU. */
	assert_int_equal(gpu, 7064);
	assert_int_equal(share, 3078);
	assert_int_equal(multi, 75);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static size_t count_lines(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	int ch;

	assert_non_null(f);
	while ((ch = getc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* Audit counts found by checking every pod against every node (see the report). */
static size_t expected_unplaceable(const char *file)
{
	if (!strcmp(file, "openb_pod_list_gpuspec10.csv"))
		return 2;
	if (!strcmp(file, "openb_pod_list_gpuspec25.csv") ||
	    !strcmp(file, "openb_pod_list_gpuspec33.csv"))
		return 1;
	return 0;
}

/* Every file listed in SHA256SUMS: checksum, and it loads with the row count. */
static void test_every_file(void **state)
{
	char line[512], sum[GS_SHA256_HEX], file[256], path[512];
	struct gs_cluster c;
	size_t n_files = 0, n_pod_files = 0;
	FILE *sums;

	(void)state;
	load_cluster(OPENB "openb_node_list_all_node.csv", &c);
	sums = fopen(OPENB "SHA256SUMS", "r");
	assert_non_null(sums);
	while (fgets(line, sizeof(line), sums)) {
		char hex[GS_SHA256_HEX];

		assert_int_equal(sscanf(line, "%64s %255s", sum, file), 2);
		snprintf(path, sizeof(path), OPENB "%s", file);
		assert_int_equal(gs_sha256_file(path, hex), 0);
		assert_string_equal(hex, sum);
		n_files++;
		if (!strncmp(file, "openb_pod_list_", 15)) {
			struct gs_trace t;
			bool multigpu = strstr(file, "multigpu") != NULL;

			gs_trace_init(&t);
			err[0] = '\0';
			if (gs_load_trace(path, &c, &t, err, sizeof(err)) != 0)
				fail_msg("%s", err);
			assert_int_equal(t.n_pods, count_lines(path) - 1);
			assert_string_equal(t.format, multigpu ? "openb-multigpu" : "openb");
			assert_string_equal(t.sha256, sum);
			assert_int_equal(t.audit.deleted_before_created, 0);
			assert_int_equal(t.audit.no_deletion_time, multigpu ? t.n_pods : 0);
			assert_int_equal(t.audit.unknown_model, 0);
			assert_int_equal(t.audit.larger_than_any_node, expected_unplaceable(file));
			gs_trace_release(&t);
			n_pod_files++;
		} else {
			struct gs_cluster d;

			load_cluster(path, &d);
			gs_cluster_release(&d);
		}
	}
	fclose(sums);
	assert_int_equal(n_files, 26);
	assert_int_equal(n_pod_files, 24);
	gs_cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_lists),
		cmocka_unit_test(test_default_trace),
		cmocka_unit_test(test_every_file),
	};

	if (access(OPENB "openb_pod_list_default.csv", R_OK) != 0) {
		fprintf(stderr, "skipped: the openb trace is not in %s (scripts/fetch-openb.sh "
				"downloads it)\n", GS_OPENB_DIR);
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
