/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bench_scenario.c - what gpusim-bench reads: its own strict JSON
 * reader, benchmark scenarios (defaults, count expansion, every field's
 * error message with file, line and column) and the key=value line
 * format shared by the clients, the harness and bench-import. The
 * scenarios shipped in bench/cuda/scenarios/ must all load.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "json.h"
#include "io/kvline.h"
#include "bench.h"
#include "scenario.h"

/* --- JSON ----------------------------------------------------------------- */

static int parse(const char *text, struct gs_json *v, char *err, size_t len)
{
	return gs_bench_json_parse(text, strlen(text), v, err, len);
}

static void test_json_values(void **state)
{
	struct gs_json v;
	const struct gs_json *x;
	char err[256];

	(void)state;
	assert_int_equal(parse(" {\"a\": [1, -2.5e1, true, false, null],\n \"b\": \"x\\u00e9\\ud83d\\ude00\\n\"} ",
			       &v, err, sizeof(err)), 0);
	assert_int_equal(v.type, GS_JSON_OBJECT);
	x = gs_json_get(&v, "a");
	assert_non_null(x);
	assert_int_equal(x->n, 5);
	assert_true(x->items[0].is_integer && x->items[0].num == 1);
	assert_false(x->items[1].is_integer);
	assert_true(x->items[1].num == -25);
	assert_int_equal(x->items[2].type, GS_JSON_BOOL);
	assert_int_equal(x->items[2].boolean, 1);
	assert_int_equal(x->items[4].type, GS_JSON_NULL);
	x = gs_json_get(&v, "b");
	assert_string_equal(x->str, "x\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_int_equal(x->line, 2);
	assert_int_equal(x->col, 7);
	assert_null(gs_json_get(&v, "c"));
	gs_json_release(&v);
}

static void expect_json_error(const char *text, const char *msg)
{
	struct gs_json v;
	char err[256] = "";

	assert_int_equal(parse(text, &v, err, sizeof(err)), GS_EPARSE);
	if (strcmp(err, msg))
		fail_msg("for %s: got '%s', expected '%s'", text, err, msg);
}

static void test_json_strictness(void **state)
{
	(void)state;
	expect_json_error("{\"a\": 1,}", "line 1, column 9: trailing comma in an object");
	expect_json_error("[1, 2,]", "line 1, column 7: trailing comma in an array");
	expect_json_error("{\"a\": 1, \"a\": 2}", "line 1, column 10: duplicate key \"a\"");
	expect_json_error("{\n  // comment\n}", "line 2, column 3: expected a quoted key");
	expect_json_error("[01]", "line 1, column 2: leading zeros are not allowed in numbers");
	expect_json_error("[1.]", "line 1, column 2: a digit must follow the decimal point");
	expect_json_error("[NaN]", "line 1, column 2: unexpected 'N'");
	expect_json_error("['x']", "line 1, column 2: unexpected '''");
	expect_json_error("\"a\tb\"", "line 1, column 3: control character 0x09 in a string (escape it)");
	expect_json_error("\"\\x\"", "line 1, column 2: invalid escape '\\x'");
	expect_json_error("\"\\ud800\"", "line 1, column 2: unpaired high surrogate \\ud800");
	expect_json_error("\"abc", "line 1, column 1: unterminated string");
	expect_json_error("{} {}", "line 1, column 4: unexpected '{' after the value");
	expect_json_error("", "line 1, column 1: unexpected end of input");
	expect_json_error("[tru]", "line 1, column 2: unexpected 'tru]'");
	expect_json_error("[1 2]", "line 1, column 4: expected ',' or ']' in an array, found '2'");
}

static void test_json_depth(void **state)
{
	char text[2 * GS_JSON_MAX_DEPTH + 8];
	struct gs_json v;
	char err[256];
	int i;

	(void)state;
	for (i = 0; i <= GS_JSON_MAX_DEPTH; i++)
		text[i] = '[';
	text[i] = 0;
	assert_int_equal(parse(text, &v, err, sizeof(err)), GS_EPARSE);
	assert_non_null(strstr(err, "nested deeper than 64"));
}

/* --- scenarios ---------------------------------------------------------------- */

static int load(const char *text, struct gs_scenario *s, char *err, size_t len)
{
	return gs_scenario_parse("t.json", text, strlen(text), s, err, len);
}

static void test_scenario_defaults_and_count(void **state)
{
	static struct gs_scenario s;
	char err[512];

	(void)state;
	assert_int_equal(load("{\"name\": \"x\", \"measure\": \"compute\", \"modes\": [\"hook\", \"mps\"],\n"
			      " \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 300,\n"
			      "   \"gpu_mem_mib\": 1024, \"args\": [\"--size-mib\", \"64\"]},\n"
			      "  {\"name\": \"b\", \"kernel\": \"launch\", \"count\": 3}]}",
			      &s, err, sizeof(err)), 0);
	assert_string_equal(s.name, "x");
	assert_int_equal(s.measure, GS_MEASURE_COMPUTE);
	assert_string_equal(s.policy, "binpack");
	assert_true(s.duration_s == 10 && s.warmup_s == 2);
	assert_int_equal(s.repeat, 1);
	/* Exclusive first, always; then as listed. */
	assert_int_equal(s.n_modes, 3);
	assert_int_equal(s.modes[0], GS_MODE_EXCLUSIVE);
	assert_int_equal(s.modes[1], GS_MODE_HOOK);
	assert_int_equal(s.modes[2], GS_MODE_MPS);
	assert_int_equal(s.n_clients, 4);
	assert_string_equal(s.clients[0].name, "a");
	assert_int_equal(s.clients[0].gpu_milli, 300);
	assert_int_equal(s.clients[0].gpu_mem_mib, 1024);
	assert_int_equal(s.clients[0].n_args, 2);
	assert_string_equal(s.clients[0].args[1], "64");
	assert_int_equal(s.clients[0].line, 2);
	assert_string_equal(s.clients[1].name, "b-1");
	assert_string_equal(s.clients[3].name, "b-3");
	assert_int_equal(s.clients[3].gpu_milli, 1000);
	assert_int_equal(s.clients[3].gpu_mem_mib, 0);
	gs_scenario_release(&s);
}

static void expect_scenario_error(const char *text, const char *msg)
{
	static struct gs_scenario s;
	char err[512] = "";

	assert_int_not_equal(load(text, &s, err, sizeof(err)), 0);
	if (strcmp(err, msg))
		fail_msg("got '%s', expected '%s'", err, msg);
}

#define HEAD "{\"name\": \"x\", \"measure\": \"interference\", \"modes\": [\"timeslice\"], "

static void test_scenario_errors(void **state)
{
	(void)state;
	expect_scenario_error("[]", "t.json:1:1: scenario: expected an object, found array");
	expect_scenario_error("{\"name\": \"x\",}", "t.json: line 1, column 14: trailing comma in an object");
	expect_scenario_error(HEAD "\"clients\": [], \"durations\": 3}",
			      "t.json:1:94: scenario: unknown field \"durations\"");
	expect_scenario_error("{\"measure\": \"compute\"}", "t.json:1:1: name: missing");
	expect_scenario_error("{\"name\": \"a b\", \"measure\": \"compute\"}",
			      "t.json:1:10: name: 'a b': use 1 to 55 of A-Z a-z 0-9 . _ -");
	expect_scenario_error("{\"name\": \"x\", \"measure\": \"speed\"}",
			      "t.json:1:26: measure: 'speed' is not one of overhead, interference, memory, compute");
	expect_scenario_error("{\"name\": \"x\", \"measure\": \"compute\", \"modes\": [\"vgpu\"]}",
			      "t.json:1:47: modes: 'vgpu' is not one of exclusive, timeslice, mps, hook");
	expect_scenario_error("{\"name\": \"x\", \"measure\": \"compute\", \"modes\": [\"mps\", \"mps\"]}",
			      "t.json:1:54: modes: 'mps' is listed twice");
	expect_scenario_error("{\"name\": \"x\", \"measure\": \"compute\", \"modes\": []}",
			      "t.json:1:46: modes: expected a non-empty array of mode names");
	expect_scenario_error(HEAD "\"duration_s\": 0, \"clients\": []}",
			      "t.json:1:80: duration_s: 0 is not in 0.1..3600");
	expect_scenario_error(HEAD "\"repeat\": 1.5, \"clients\": []}",
			      "t.json:1:76: repeat: expected an integer");
	expect_scenario_error(HEAD "\"clients\": []}",
			      "t.json:1:77: clients: expected a non-empty array of clients");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"matmul\"}]}",
			      "t.json:1:102: clients[0].kernel: 'matmul' is not a client (vecadd, mnist, launch, memprobe)");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 1500}]}",
			      "t.json:1:125: clients[0].gpu_milli: 1500 is not in 1..1000");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": \"300\"}]}",
			      "t.json:1:125: clients[0].gpu_milli: expected a number, found string");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\"}, {\"name\": \"a\", \"kernel\": \"launch\"}]}",
			      "t.json:1:122: clients[1].name: client name 'a' is used twice");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"args\": [\"--duration-s\", \"9\"]}]}",
			      "t.json:1:121: clients[0].args: '--duration-s' is set by the harness");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"memprobe\"}]}",
			      "t.json:1:78: clients[0].gpu_mem_mib: a memprobe client needs one (the limit it probes)");
	expect_scenario_error("{\"name\": \"x\", \"measure\": \"memory\", \"modes\": [\"hook\"], "
			      "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\"}]}",
			      "t.json:1:66: clients: a memory scenario needs a memprobe client");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"count\": 40}]}",
			      "t.json:1:121: clients[0].count: 40 is not in 1..32");
	expect_scenario_error(HEAD "\"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpus\": 2}]}",
			      "t.json:1:120: clients[0]: unknown field \"gpus\"");
}

static void test_scenario_colocate(void **state)
{
	static struct gs_scenario s, v;
	char err[512];

	(void)state;
	assert_int_equal(load("{\"name\": \"i\", \"measure\": \"interference\", \"modes\": [\"mps\"],"
			      " \"colocate\": [2, 8], \"clients\": [{\"name\": \"m\", \"kernel\": \"mnist\","
			      " \"gpu_mem_mib\": 512, \"args\": [\"--batch\", \"64\"]}]}",
			      &s, err, sizeof(err)), 0);
	assert_int_equal(gs_scenario_variants(&s), 2);
	assert_int_equal(gs_scenario_variant(&s, 1, &v), 0);
	assert_string_equal(v.name, "i-x8");
	assert_int_equal(v.n_clients, 8);
	assert_int_equal(v.n_colocate, 0);
	assert_string_equal(v.clients[7].name, "m-8");
	assert_int_equal(v.clients[7].gpu_milli, 125);
	assert_int_equal(v.clients[7].gpu_mem_mib, 512);
	assert_string_equal(v.clients[7].args[1], "64");
	/* The variant owns its copies: releasing it leaves the scenario intact. */
	assert_ptr_not_equal(v.clients[0].args[0], s.clients[0].args[0]);
	gs_scenario_release(&v);
	assert_string_equal(s.clients[0].args[0], "--batch");
	gs_scenario_release(&s);

	/* Without colocate, the one variant is the scenario. */
	assert_int_equal(load("{\"name\": \"j\", \"measure\": \"compute\", \"modes\": [\"mps\"],"
			      " \"clients\": [{\"name\": \"a\", \"kernel\": \"launch\", \"gpu_milli\": 300}]}",
			      &s, err, sizeof(err)), 0);
	assert_int_equal(gs_scenario_variants(&s), 1);
	assert_int_equal(gs_scenario_variant(&s, 0, &v), 0);
	assert_string_equal(v.name, "j");
	assert_int_equal(v.clients[0].gpu_milli, 300);
	gs_scenario_release(&v);
	gs_scenario_release(&s);

	expect_scenario_error(HEAD "\"colocate\": [2], \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"gpu_milli\": 500}]}",
			      "t.json:1:142: clients[0].gpu_milli: with colocate, each of k copies asks for 1000/k; leave it out");
	expect_scenario_error(HEAD "\"colocate\": [4, 2], \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\"}]}",
			      "t.json:1:82: colocate: expected increasing whole numbers from 1 to 32");
	expect_scenario_error(HEAD "\"colocate\": [2], \"clients\": [{\"name\": \"a\", \"kernel\": \"vecadd\", \"count\": 2}]}",
			      "t.json:1:94: clients: with colocate, give exactly one client (count 1)");
}

static void test_scenario_missing_file(void **state)
{
	static struct gs_scenario s;
	char err[512];

	(void)state;
	assert_int_equal(gs_scenario_load("/nonexistent/x.json", &s, err, sizeof(err)), GS_ENOENT);
	assert_string_equal(err, "/nonexistent/x.json: No such file or directory");
}

/* Every scenario shipped with the project loads. */
static void test_shipped_scenarios(void **state)
{
	static struct gs_scenario s;
	char dir[512], path[1024], err[512];
	struct dirent *e;
	DIR *d;
	int n = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/bench/cuda/scenarios", GS_SOURCE_DIR);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (gs_scenario_load(path, &s, err, sizeof(err)))
			fail_msg("%s", err);
		gs_scenario_release(&s);
		n++;
	}
	closedir(d);
	assert_true(n >= 5);
}

/* --- key=value lines ------------------------------------------------------------------ */

static void test_kvline_round_trip(void **state)
{
	struct gs_kvline l;
	char err[128], buf[512];
	FILE *f;

	(void)state;
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	fprintf(f, "client");
	gs_kv_write(f, "device", "NVIDIA H100 80GB HBM3");
	gs_kv_write(f, "empty", "");
	gs_kv_write(f, "odd", "a\"b\\c=d\te\nf");
	gs_kv_writef(f, "x", "%.3f", 1.5);
	fclose(f);
	assert_string_equal(buf, "client device=\"NVIDIA H100 80GB HBM3\" empty=\"\" "
				 "odd=\"a\\\"b\\\\c=d\\te\\nf\" x=1.500");
	assert_int_equal(gs_kvline_parse(buf, &l, err, sizeof(err)), 0);
	assert_string_equal(l.type, "client");
	assert_int_equal(l.n, 4);
	assert_string_equal(gs_kvline_get(&l, "device"), "NVIDIA H100 80GB HBM3");
	assert_string_equal(gs_kvline_get(&l, "empty"), "");
	assert_string_equal(gs_kvline_get(&l, "odd"), "a\"b\\c=d\te\nf");
	assert_string_equal(gs_kvline_get(&l, "x"), "1.500");
	assert_null(gs_kvline_get(&l, "y"));
	gs_kvline_release(&l);

	/* Comments and blank lines are records of no type. */
	assert_int_equal(gs_kvline_parse("# gpusim-bench results 1\n", &l, err, sizeof(err)), 0);
	assert_null(l.type);
	gs_kvline_release(&l);
	assert_int_equal(gs_kvline_parse("   \n", &l, err, sizeof(err)), 0);
	assert_null(l.type);
	gs_kvline_release(&l);
}

static void expect_kv_error(const char *line, const char *msg)
{
	struct gs_kvline l;
	char err[128] = "";

	assert_int_equal(gs_kvline_parse(line, &l, err, sizeof(err)), GS_EPARSE);
	if (strcmp(err, msg))
		fail_msg("for %s: got '%s', expected '%s'", line, err, msg);
}

static void test_kvline_errors(void **state)
{
	(void)state;
	expect_kv_error("=x", "column 1: a record must start with its type (a lower-case word)");
	expect_kv_error("run a=1 a=2", "column 12: key 'a' appears twice");
	expect_kv_error("run a=", "column 7: missing value (write \"\" for an empty one)");
	expect_kv_error("run a=\"x", "column 7: unterminated quoted value");
	expect_kv_error("run a=\"\\q\"", "column 8: invalid escape in a quoted value");
	expect_kv_error("run A=1", "column 5: a key must start with a-z or '_'");
	expect_kv_error("run a", "column 6: expected '=' after the key");
	expect_kv_error("run a=\"x\"b=1", "column 10: expected a blank before the next key");
}

/* The driver's version from the first line of both kernel modules' version files. */
static void test_driver_version(void **state)
{
	char v[32];

	(void)state;
	gs_bench_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
				"Tue Mar  5 22:23:56 UTC 2024\n", v, sizeof(v));
	assert_string_equal(v, "550.54.15");
	/* The open module's form: the first gpu-check's results (H200) said driver=for. */
	gs_bench_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
				"580.159.04  Release Build  (dvs-builder@U22-I3-AE18-23-3)\n",
				v, sizeof(v));
	assert_string_equal(v, "580.159.04");
	gs_bench_driver_version("NVRM version: something else\n", v, sizeof(v));
	assert_string_equal(v, "unknown");
	gs_bench_driver_version("NVRM version: NVIDIA UNIX Kernel Module for x86_64 Release\n", v,
				sizeof(v));
	assert_string_equal(v, "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_strictness),
		cmocka_unit_test(test_json_depth),
		cmocka_unit_test(test_scenario_defaults_and_count),
		cmocka_unit_test(test_scenario_errors),
		cmocka_unit_test(test_scenario_colocate),
		cmocka_unit_test(test_scenario_missing_file),
		cmocka_unit_test(test_shipped_scenarios),
		cmocka_unit_test(test_kvline_round_trip),
		cmocka_unit_test(test_kvline_errors),
		cmocka_unit_test(test_driver_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
