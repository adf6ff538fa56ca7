/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_k8s_cli.c - `gpusim inspect --state` and `gpusim replay --state` as a
 * user meets them: the node table of the bundled snapshot (figures worked
 * out in docs/kubernetes.md), the queue and the claims, a replay stored and
 * listed, a trace on top, and bad input refused with exit 2 before any
 * database is touched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tmpdir.h"

static char out[131072];

/* Runs `gpusim ARGS` in the test directory, stdout and stderr in out; returns the exit status. */
static int gpusim(const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	FILE *f;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd %s && COLUMNS=200 %s %s 2>&1", gs_test_tmpdir(),
		 GS_GPUSIM_BIN, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void has(const char *text)
{
	if (!strstr(out, text))
		fail_msg("output lacks '%s':\n%s", text, out);
}

#define K8S GS_SOURCE_DIR "/traces/k8s/"

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-k8s-cli");
}

static void test_inspect_snapshot(void **state)
{
	(void)state;
	assert_int_equal(gpusim("inspect --state " K8S "cluster.yaml " K8S "web.yaml --raw "
				"-o NAME,MODEL,GPUS,FREE,CPU --nodes all"),
			 0);
	/* One line per node, its GPUs held as each mode counts them (docs/kubernetes.md). */
	has("ts-0 T4 500,0 1500 3/16\n");
	has("mps-0 A10 0 1000 0/7.9\n");
	has("mig-0 H100 428,0 1572 4/64\n");
	has("gpushare-0 V100M16 500,0 1500 1/32\n");
	has("hami-0 V100M32 300,0 1700 0/32\n");
	has("cpu-0 - - 0 6/32\n");
	assert_int_equal(gpusim("inspect --state " K8S "cluster.yaml " K8S "web.yaml -d"), 0);
	has("6 nodes, 9 GPUs, 6 running pods, 9 pending");
	has("ml/train-ts");
	has("4 pods made from workloads whose pods the snapshot lacks");
	has("1 finished pods (Succeeded or Failed) hold nothing and are left out");
	has("mig-0: mig-mixed, NVIDIA-H100-80GB-HBM3, from all-balanced");
	assert_int_equal(gpusim("inspect --state " K8S "dra.yaml"), 0);
	has("ml/llm-gpu");
	has("gpu=dra-0/gpu-0");
	has("ml/shared-ts                     (pending)        0 timeslice:replicas=2");
	/* A view option needs something to view. */
	assert_int_equal(gpusim("inspect --db x.db --details"), 2);
	has("gpusim inspect: --details needs --run ID or --state FILE...\n");
	assert_int_equal(gpusim("inspect --state " K8S "dra.yaml --at 5"), 2);
	has("--at is for a stored run");
}

static void test_replay_state(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --state " K8S "dra.yaml --policy binpack,spread --db s.db "
				"--check"),
			 0);
	has("binpack             6      4      0      2");
	has("spread              6      4      0      2");
	assert_int_equal(gpusim("inspect --db s.db"), 0);
	has("dra.yaml");
	/* A gpusim trace on top of the snapshot's cluster and queue. */
	assert_int_equal(gpusim("replay --state " K8S "cluster.yaml --pods " GS_SOURCE_DIR
				"/traces/sample/pods.csv --policy binpack --no-db -q"),
			 0);
	assert_int_equal(gpusim("replay --state " K8S "cluster.yaml --nodes x.csv --pods y.csv"), 2);
	has("--nodes and --state cannot be used together");
	assert_int_equal(gpusim("replay --pods y.csv"), 2);
	has("gpusim replay: --nodes and --pods are required, or --state; try 'gpusim replay "
	    "--help'\n");
}

static void test_bad_snapshot(void **state)
{
	static const char bad[] = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n"
				  "  allocatable: {cpu: \"8\", memory: 1.5Gx}\n";
	FILE *f;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.yaml", gs_test_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(bad, f);
	fclose(f);
	assert_int_equal(gpusim("replay --state bad.yaml --db never.db"), 2);
	assert_string_equal(out, "gpusim replay: bad.yaml:5: Node n1: status.allocatable[memory]: "
				 "'1.5Gx' has an unknown suffix (a quantity is a number with an "
				 "optional suffix: 500m, 2, 1.5Gi, 64Mi, 1e3)\n");
	/* Nothing stored: the database was never created. */
	snprintf(path, sizeof(path), "%s/never.db", gs_test_tmpdir());
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(gpusim("inspect --state bad.yaml"), 2);
	assert_int_equal(gpusim("inspect --state missing.yaml"), 2);
	has("missing.yaml: cannot open");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inspect_snapshot),
		cmocka_unit_test(test_replay_state),
		cmocka_unit_test(test_bad_snapshot),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
