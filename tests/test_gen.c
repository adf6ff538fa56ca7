/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gen.c - the synthetic trace generator: determinism (same spec and
 * seed, byte-identical files), the distributions it draws from (arrival
 * rate, duration median and clamping, mix weights), spec validation with
 * exact messages, the `gpusim gen` command, and that the committed sample
 * under traces/sample is exactly what its README's command produces.
 */
#include <math.h>
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

#include "core/error.h"
#include "io/trace/gen.h"
#include "tmpdir.h"
#include "io/trace/trace.h"
#include "io/trace/write.h"

static char err[1024];

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-gen");
}

#define PATH_LEN 256

/* True when the two files have the same bytes. */
static bool same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = false;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

#define NODES "\"nodes\": [{\"name\": \"t4\", \"count\": 4, \"cpu_milli\": 64000, " \
	      "\"memory_mib\": 262144, \"num_gpu\": 2, \"gpu_model\": \"T4\"}, " \
	      "{\"name\": \"v\", \"count\": 2, \"cpu_milli\": 96000, \"memory_mib\": 786432, " \
	      "\"num_gpu\": 8, \"gpu_model\": \"V100M32\"}, " \
	      "{\"name\": \"cpu\", \"cpu_milli\": 32000, \"memory_mib\": 131072}]"

/* 20000 pods at 120/h; shape 0 (weight 1) CPU-only, shape 1 (weight 3) half a GPU. */
static const char big_spec[] = "{" NODES ", \"pods\": {"
	"\"count\": 20000, \"arrivals_per_hour\": 120, \"start_time\": 1000,"
	"\"duration\": {\"median_s\": 3600, \"sigma\": 1.0, \"min_s\": 30, \"max_s\": 7200},"
	"\"mix\": ["
	" {\"weight\": 1, \"cpu_milli\": 1000, \"memory_mib\": 1024},"
	" {\"weight\": 3, \"cpu_milli\": 1000, \"memory_mib\": 1024, \"num_gpu\": 1,"
	"  \"gpu_milli\": 500, \"gpu_spec\": \"T4|V100M32\", \"duration\": {\"mu\": 4.605170186,"
	"  \"sigma\": 0.5}}"
	"]}}";

static void load_spec(const char *text, struct gs_gen_spec *s)
{
	char path[PATH_LEN];

	gs_test_write("spec.json", text, path, sizeof(path));
	gs_gen_spec_init(s);
	if (gs_gen_spec_load(path, s, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : 0.5 * (double)(v[n / 2 - 1] + v[n / 2]);
}

static void test_spec_parsed(void **state)
{
	struct gs_gen_spec s;

	(void)state;
	load_spec(big_spec, &s);
	assert_int_equal(s.cluster.n_nodes, 7);
	assert_int_equal(s.cluster.gpu_count, 24);
	assert_string_equal(s.cluster.node_names[4], "v-0");
	assert_int_equal(s.n_pods, 20000);
	assert_int_equal(s.start_s, 1000);
	assert_string_equal(s.name_prefix, "pod");
	assert_int_equal(s.n_shapes, 2);
	assert_true(fabs(s.dur.mu - log(3600)) < 1e-12);
	assert_int_equal(s.dur.min_s, 30);
	assert_int_equal(s.dur.max_s, 7200);
	assert_int_equal(s.shapes[1].req.gpu_milli, 500);
	assert_int_equal(s.shapes[1].req.model_mask,
			 (1u << gs_models_find(&s.cluster.models, "T4")) |
			 (1u << gs_models_find(&s.cluster.models, "V100M32")));
	/* The shape's own duration keeps the workload's bounds. */
	assert_true(fabs(s.shapes[1].dur.mu - 4.605170186) < 1e-12);
	assert_int_equal(s.shapes[1].dur.min_s, 30);
	assert_int_equal(s.shapes[1].dur.max_s, 7200);
	gs_gen_spec_release(&s);
}

static void test_distributions(void **state)
{
	struct gs_gen_spec s;
	struct gs_trace t;
	int64_t *d0, *d1;
	size_t i, n0 = 0, n1 = 0, clamped = 0;
	double mean_gap;

	(void)state;
	load_spec(big_spec, &s);
	gs_trace_init(&t);
	assert_int_equal(gs_gen_pods(&s, 7, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n_pods, 20000);
	assert_string_equal(t.pod_names[0], "pod-00000");
	assert_string_equal(t.pod_names[19999], "pod-19999");
	d0 = malloc(t.n_pods * sizeof(*d0));
	d1 = malloc(t.n_pods * sizeof(*d1));
	assert_non_null(d0);
	assert_non_null(d1);
	for (i = 0; i < t.n_pods; i++) {
		const struct gs_pod *p = &t.pods[i];
		int64_t d = p->t_delete_s - p->t_create_s;

		assert_true(p->t_create_s >= 1000);
		if (i > 0)
			assert_true(p->t_create_s >= t.pods[i - 1].t_create_s);
		assert_true(d >= 30 && d <= 7200);
		if (p->num_gpu == 0) {
			d0[n0++] = d;
			clamped += d == 7200;
		} else {
			assert_int_equal(p->gpu_milli, 500);
			d1[n1++] = d;
		}
	}
	/* Weights 1:3 over 20000 draws: 25% +- 1.5 points. */
	assert_true(n0 > 4700 && n0 < 5300);
	/* 120 per hour: a 30 s mean gap, within 3%. */
	mean_gap = (double)(t.pods[t.n_pods - 1].t_create_s - 1000) / (double)t.n_pods;
	assert_true(mean_gap > 29.1 && mean_gap < 30.9);
	/* Medians: 3600 s for the workload, exp(4.605) = 100 s for shape 1 (within 5%). */
	assert_true(fabs(median(d0, n0) / 3600 - 1) < 0.05);
	assert_true(fabs(median(d1, n1) / 100 - 1) < 0.05);
	/* P(lognormal(ln 3600, 1) > 7200) = P(z > 0.693) = 24%: the clamp bites. */
	assert_true(clamped > n0 / 5 && clamped < n0 * 3 / 10);
	free(d0);
	free(d1);
	gs_trace_release(&t);
	gs_gen_spec_release(&s);
}

static void test_deterministic(void **state)
{
	const char *dir = gs_test_tmpdir();
	char nodes[2][PATH_LEN], pods[3][PATH_LEN];
	struct gs_gen_spec s;
	struct gs_trace t[3];
	uint64_t seeds[3] = { 42, 42, 43 };
	int k;

	(void)state;
	load_spec(big_spec, &s);
	for (k = 0; k < 3; k++) {
		gs_trace_init(&t[k]);
		assert_int_equal(gs_gen_pods(&s, seeds[k], &t[k], err, sizeof(err)), 0);
		snprintf(pods[k], PATH_LEN, "%s/pods-%d.csv", dir, k);
		assert_int_equal(gs_write_trace_csv(pods[k], &t[k], &s.cluster, err, sizeof(err)),
				 0);
	}
	for (k = 0; k < 2; k++) {
		snprintf(nodes[k], PATH_LEN, "%s/nodes-%d.csv", dir, k);
		assert_int_equal(gs_write_cluster_csv(nodes[k], &s.cluster, err, sizeof(err)), 0);
	}
	assert_memory_equal(t[0].pods, t[1].pods, t[0].n_pods * sizeof(*t[0].pods));
	assert_true(same_bytes(pods[0], pods[1]));
	assert_true(same_bytes(nodes[0], nodes[1]));
	assert_false(same_bytes(pods[0], pods[2]));
	for (k = 0; k < 3; k++)
		gs_trace_release(&t[k]);
	gs_gen_spec_release(&s);
}

static void spec_fail(const char *text, const char *suffix)
{
	char path[PATH_LEN], want[1024];
	struct gs_gen_spec s;

	gs_test_write("bad.json", text, path, sizeof(path));
	gs_gen_spec_init(&s);
	assert_int_equal(gs_gen_spec_load(path, &s, err, sizeof(err)), GS_EPARSE);
	snprintf(want, sizeof(want), "%s%s", path, suffix);
	assert_string_equal(err, want);
	assert_int_equal(s.cluster.n_nodes, 0);
	assert_int_equal(s.n_shapes, 0);
	gs_gen_spec_release(&s);
}

#define SHAPE "{\"weight\": 1, \"cpu_milli\": 1000, \"memory_mib\": 1024}"
#define DUR "\"duration\": {\"median_s\": 600, \"sigma\": 1}"
#define SPEC(pods) "{" NODES ", \"pods\": {" pods "}}"
#define POD_OK(mix) "\"count\": 10, \"arrivals_per_hour\": 5, " DUR ", \"mix\": [" mix "]"

static void test_spec_errors(void **state)
{
	(void)state;
	spec_fail(SPEC(POD_OK(SHAPE ", {\"weight\": 1, \"cpu_milli\": 1, \"memory_mib\": 1, "
			      "\"num_gpu\": 1, \"gpu_milli\": 1500}")),
		  ": pods.mix[1].gpu_milli: '1500' is greater than 1000");
	spec_fail(SPEC(POD_OK("{\"wieght\": 1, \"cpu_milli\": 1, \"memory_mib\": 1}")),
		  ": pods.mix[0]: unknown key 'wieght' (expected weight, cpu_milli, memory_mib, "
		  "num_gpu, gpu_milli, gpu_mem_mib, gpu_spec, duration, class, gpu_need_milli, "
		  "gpu_busy_milli, gpu_compute_milli)");
	spec_fail(SPEC(POD_OK("{\"weight\": 0, \"cpu_milli\": 1, \"memory_mib\": 1}")),
		  ": pods.mix[0].weight: '0' is not greater than 0");
	spec_fail(SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": 1, \"memory_mib\": 1, "
			      "\"num_gpu\": 4, \"gpu_milli\": 500}")),
		  ": pods.mix[0].gpu_milli: '500' is not allowed with num_gpu 4 (only 1-GPU pods "
		  "may ask for less than 1000)");
	spec_fail(SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": 200000, \"memory_mib\": 1}")),
		  ": pods.mix[0]: fits on no node of the spec's cluster");
	spec_fail(SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": 1, \"memory_mib\": 1, "
			      "\"num_gpu\": 4, \"gpu_spec\": \"T4\"}")),
		  ": pods.mix[0]: fits on no node of the spec's cluster");
	spec_fail(SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": 1, \"memory_mib\": 1, "
			      "\"num_gpu\": 1, \"gpu_spec\": [\"A100\"]}")),
		  ": pods.mix[0].gpu_spec: 'A100' names a model no node of the spec has");
	spec_fail(SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": 1, \"memory_mib\": 1, "
			      "\"duration\": {\"sigma\": -1, \"mu\": 3}}")),
		  ": pods.mix[0].duration.sigma: '-1' is less than 0");
	spec_fail(SPEC(POD_OK("")), ": pods.mix: expected a non-empty array of request shapes");
	spec_fail(SPEC("\"count\": 10, \"arrivals_per_hour\": 5, \"duration\": {\"median_s\": 600, "
		       "\"mu\": 6, \"sigma\": 1}, \"mix\": [" SHAPE "]"),
		  ": pods.duration: give either 'mu' (log-seconds) or 'median_s' (seconds), not "
		  "both");
	spec_fail(SPEC("\"count\": 10, \"arrivals_per_hour\": 5, \"duration\": {\"sigma\": 1}, "
		       "\"mix\": [" SHAPE "]"),
		  ": pods.duration: give either 'mu' (log-seconds) or 'median_s' (seconds), not "
		  "neither");
	spec_fail(SPEC("\"count\": 10, \"arrivals_per_hour\": 5, \"duration\": {\"median_s\": 600, "
		       "\"sigma\": 1, \"min_s\": 60, \"max_s\": 10}, \"mix\": [" SHAPE "]"),
		  ": pods.duration.max_s: '10' is less than min_s 60");
	spec_fail(SPEC("\"count\": 0, \"arrivals_per_hour\": 5, " DUR ", \"mix\": [" SHAPE "]"),
		  ": pods.count: '0' is less than 1");
	spec_fail(SPEC("\"count\": 10, \"arrivals_per_hour\": 0, " DUR ", \"mix\": [" SHAPE "]"),
		  ": pods.arrivals_per_hour: '0' is not greater than 0");
	spec_fail(SPEC("\"count\": 10, " DUR ", \"mix\": [" SHAPE "]"),
		  ": pods: missing key 'arrivals_per_hour'");
	spec_fail(SPEC("\"count\": 10, \"arrivals_per_hour\": 5, \"mix\": [" SHAPE "]"),
		  ": pods: missing key 'duration'");
	spec_fail(SPEC(POD_OK(SHAPE) ", \"name_prefix\": \"a,b\""),
		  ": pods.name_prefix: 'a,b' has a character not allowed in names (a control "
		  "character, a comma, a quote or a backslash)");
	spec_fail("{" NODES "}", ": missing key 'pods'");
	spec_fail("{" NODES ", \"pod\": {}}", ": unknown key 'pod' (expected gpu_models, nodes, "
		  "pods)");
	spec_fail("{\"nodes\": [{\"name\": \"n\", \"cpu_milli\": \"x\", \"memory_mib\": 1}], "
		  "\"pods\": {}}", ": nodes[0].cpu_milli: 'x' is not an integer");
	spec_fail("{" NODES ", \"pods\": {", ":1: JSON syntax error at the end of the file (a "
		  "missing bracket, brace or quote?)");
}

static void test_load_figures(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	struct gs_gen_load l;
	struct gs_pod p;

	(void)state;
	gs_cluster_init(&c);
	assert_true(gs_cluster_add_node(&c, "n", 8000, 8192, 2, "T4") >= 0);
	gs_trace_init(&t);
	memset(&p, 0, sizeof(p));
	p.num_gpu = 1;
	p.gpu_milli = 1000;
	p.t_create_s = 0;
	p.t_delete_s = 100;
	assert_int_equal(gs_trace_append(&t, "a", &p), 0);
	p.gpu_milli = 500;
	p.t_create_s = 50;
	p.t_delete_s = 150;
	assert_int_equal(gs_trace_append(&t, "b", &p), 0);
	/* Leaves at 150 when c arrives: departures go first. */
	p.t_create_s = 150;
	p.t_delete_s = 200;
	assert_int_equal(gs_trace_append(&t, "c", &p), 0);
	assert_int_equal(gs_gen_load_compute(&t, &c, &l), 0);
	assert_int_equal(l.span_s, 150);
	/* Peak 1.5 GPUs of 2; work 100000 + 50000 + 25000 milli-s over 2000 x 150. */
	assert_true(fabs(l.peak - 0.75) < 1e-12);
	assert_true(fabs(l.mean - 175000.0 / 300000.0) < 1e-12);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* Runs the gpusim binary; returns its exit status, stderr in dir/stderr.txt. */
static int run(const char *args)
{
	const char *dir = gs_test_tmpdir();
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' gen %s >'%s/stdout.txt' 2>'%s/stderr.txt'", GS_GPUSIM_BIN,
		 args, dir, dir);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static const char *stderr_text(void)
{
	static char buf[2048];
	char path[PATH_LEN];
	FILE *f;
	size_t n;

	gs_test_path("stderr.txt", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_command(void **state)
{
	const char *dir = gs_test_tmpdir();
	char spec[PATH_LEN], args[1024], want[1024], a[PATH_LEN], b[PATH_LEN];

	(void)state;
	assert_int_equal(run("--help"), 0);
	assert_int_equal(run(""), 2);
	assert_string_equal(stderr_text(), "gpusim gen: --spec, --nodes-out and --pods-out are "
			    "required; try 'gpusim gen --help'\n");
	assert_int_equal(run("--bogus"), 2);

	gs_test_write("small.json", SPEC(POD_OK(SHAPE)), spec, sizeof(spec));
	snprintf(args, sizeof(args), "--spec '%s' --seed x --nodes-out %s/n.csv --pods-out "
		 "%s/p.csv", spec, dir, dir);
	assert_int_equal(run(args), 2);
	assert_string_equal(stderr_text(), "gpusim gen: --seed: 'x' is not an integer from 0 to "
			    "18446744073709551615\n");
	snprintf(args, sizeof(args), "--spec '%s' --nodes-out %s/n.csv --pods-out %s/p.json",
		 spec, dir, dir);
	assert_int_equal(run(args), 2);

	snprintf(args, sizeof(args), "--spec '%s' --seed 5 --nodes-out %s/n1.csv --pods-out "
		 "%s/p1.csv -q", spec, dir, dir);
	assert_int_equal(run(args), 0);
	snprintf(args, sizeof(args), "--spec '%s' --seed 5 --nodes-out %s/n2.csv --pods-out "
		 "%s/p2.csv", spec, dir, dir);
	assert_int_equal(run(args), 0);
	gs_test_path("p1.csv", a, sizeof(a));
	gs_test_path("p2.csv", b, sizeof(b));
	assert_true(same_bytes(a, b));

	/* A bad spec: exit 2 and the loader's message. */
	gs_test_write("bad.json",
		      SPEC(POD_OK("{\"weight\": 1, \"cpu_milli\": -1, \"memory_mib\": 1}")),
		      spec, sizeof(spec));
	snprintf(args, sizeof(args), "--spec '%s' --nodes-out %s/n.csv --pods-out %s/p.csv",
		 spec, dir, dir);
	assert_int_equal(run(args), 2);
	snprintf(want, sizeof(want), "gpusim gen: %s: pods.mix[0].cpu_milli: '-1' is negative\n",
		 spec);
	assert_string_equal(stderr_text(), want);

	/* Overridden model memory cannot go to CSV; JSON keeps it. */
	gs_test_write("override.json",
		      "{\"gpu_models\": [{\"name\": \"T4\", \"mem_mib\": 15360}], "
		      NODES ", \"pods\": {" POD_OK(SHAPE) "}}", spec, sizeof(spec));
	snprintf(args, sizeof(args), "--spec '%s' --nodes-out %s/o.csv --pods-out %s/op.csv",
		 spec, dir, dir);
	assert_int_equal(run(args), 2);
	snprintf(want, sizeof(want), "gpusim gen: %s/o.csv: GPU model 'T4' with 15360 MiB per GPU "
		 "is not built in, and a CSV cluster cannot record memory per GPU: write a JSON "
		 "cluster instead\n", dir);
	assert_string_equal(stderr_text(), want);
	snprintf(args, sizeof(args), "--spec '%s' --nodes-out %s/o.json --pods-out %s/op.csv",
		 spec, dir, dir);
	assert_int_equal(run(args), 0);
}

/* traces/sample is exactly what traces/sample/README.md says made it. */
static void test_committed_sample(void **state)
{
	const char *dir = gs_test_tmpdir();
	char args[1024], a[PATH_LEN], b[PATH_LEN];

	(void)state;
	snprintf(args, sizeof(args), "--spec %s/traces/sample/spec.json --seed 42 --nodes-out "
		 "%s/cluster.csv --pods-out %s/pods.csv -q", GS_SOURCE_DIR, dir, dir);
	assert_int_equal(run(args), 0);
	gs_test_path("cluster.csv", a, sizeof(a));
	snprintf(b, sizeof(b), "%s/traces/sample/cluster.csv", GS_SOURCE_DIR);
	assert_true(same_bytes(a, b));
	gs_test_path("pods.csv", a, sizeof(a));
	snprintf(b, sizeof(b), "%s/traces/sample/pods.csv", GS_SOURCE_DIR);
	assert_true(same_bytes(a, b));
}

/* traces/h100-mixed likewise; its shapes' classes and needs reach the pods. */
static void test_committed_h100_mixed(void **state)
{
	const char *dir = gs_test_tmpdir();
	char args[1024], a[PATH_LEN], b[PATH_LEN];
	struct gs_gen_spec s;
	struct gs_trace t;
	size_t i, inference = 0;

	(void)state;
	snprintf(args, sizeof(args), "--spec %s/traces/h100-mixed/spec.json --seed 42 --nodes-out "
		 "%s/hcluster.csv --pods-out %s/hpods.csv -q", GS_SOURCE_DIR, dir, dir);
	assert_int_equal(run(args), 0);
	gs_test_path("hcluster.csv", a, sizeof(a));
	snprintf(b, sizeof(b), "%s/traces/h100-mixed/cluster.csv", GS_SOURCE_DIR);
	assert_true(same_bytes(a, b));
	gs_test_path("hpods.csv", a, sizeof(a));
	snprintf(b, sizeof(b), "%s/traces/h100-mixed/pods.csv", GS_SOURCE_DIR);
	assert_true(same_bytes(a, b));

	gs_gen_spec_init(&s);
	snprintf(a, sizeof(a), "%s/traces/h100-mixed/spec.json", GS_SOURCE_DIR);
	assert_int_equal(gs_gen_spec_load(a, &s, err, sizeof(err)), 0);
	assert_string_equal(s.shapes[0].wclass, "inference");
	assert_int_equal(s.shapes[0].req.need_milli, 250);
	assert_string_equal(s.shapes[5].wclass, "");
	gs_trace_init(&t);
	assert_int_equal(gs_gen_pods(&s, 42, &t, err, sizeof(err)), 0);
	for (i = 0; i < t.n_pods; i++) {
		if (strcmp(gs_trace_class_name(&t, t.pods[i].wclass), "inference") != 0)
			continue;
		assert_int_equal(t.pods[i].need_milli, 250);
		assert_int_equal(t.pods[i].gpu_milli, 100);
		inference++;
	}
	assert_true(inference > 0);
	gs_trace_release(&t);
	gs_gen_spec_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_committed_h100_mixed),
		cmocka_unit_test(test_spec_parsed),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_load_figures),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_committed_sample),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
