/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_refusals.c - issue 14 as a user meets it: legal extremes on the
 * command line give the right answer or a clear refusal, every refusal
 * follows one rule (bad input or usage: exit 2 and a message naming the
 * file or option; a run that fails: exit 1 and a message), and no message
 * is empty. Each case here exited 0 with a wrong answer, or differed from
 * its siblings, before its fix.
 *
 * GS_TEST_GPUSIM in the environment runs another gpusim binary (to show
 * an older one failing these cases).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/utf8.h"
#include "tmpdir.h"

static char out[65536], errs[65536];

static void slurp(const char *name, char *buf, size_t len)
{
	char path[1024];
	FILE *f;
	size_t n = 0;

	gs_test_path(name, path, sizeof(path));
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/*
 * Runs `gpusim ARGS` in the test directory (at most 60 s) with stdout in
 * out and stderr in errs; returns the exit status.
 */
static int gpusim(const char *fmt, ...)
{
	const char *bin = getenv("GS_TEST_GPUSIM");
	char args[2048], cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	/*
	 * An older binary may grow without bound (--inflate 1e9): limit its
	 * memory. Not ours, which may run under AddressSanitizer, whose
	 * shadow memory needs far more address space than any limit allows.
	 */
	snprintf(cmd, sizeof(cmd), "cd %s && %s timeout 60 %s %s >stdout.txt 2>stderr.txt",
		 gs_test_tmpdir(), bin && *bin ? "ulimit -v 4000000 &&" : "",
		 bin && *bin ? bin : GS_GPUSIM_BIN, args);
	st = system(cmd);
	slurp("stdout.txt", out, sizeof(out));
	slurp("stderr.txt", errs, sizeof(errs));
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* True when the file name exists in the test directory. */
static bool exists(const char *name)
{
	char path[1024];

	gs_test_path(name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* The one rule for every refusal: "gpusim CMD: <something>" on stderr, never empty. */
static void assert_refusal(const char *cmd)
{
	size_t n = strlen(cmd);

	const char *msg = strstr(errs, ": ");

	if (strncmp(errs, cmd, n) != 0)
		fail_msg("stderr is '%s', expected it to start with '%s'", errs, cmd);
	assert_non_null(msg);
	assert_true(strlen(msg) > 3);           /* not an empty message */
	assert_null(strstr(errs, ": \n"));      /* nor an empty part */
	assert_non_null(strchr(errs, '\n'));
}

#define POD_HDR \
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
	"deletion_time\n"
#define NODE_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_model\n"

static int setup(void **state)
{
	(void)state;
	if (gs_test_tmpdir_make("test-refusals"))
		return -1;
	gs_test_write("one.csv", NODE_HDR "n0,32000,65536,1,T4\n", NULL, 0);
	gs_test_write("wait.csv", POD_HDR "a,1000,1024,1,1000,0,,0,100\nb,1000,1024,1,1000,0,,10,20\n",
		      NULL, 0);
	return 0;
}

/* Times: the deletion time of 2^63-1 is outside the legal range now. */
static void test_times_past_the_range(void **state)
{
	char text[4096];
	size_t off;
	int i;

	(void)state;
	gs_test_write("del.csv", POD_HDR "a,1000,1024,1,1000,0,,0,9223372036854775807\n"
		      "b,1000,1024,1,1000,0,,1,9223372036854775807\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods del.csv --no-db"), 2);
	assert_string_equal(errs, "gpusim replay: del.csv:2: column deletion_time: "
				  "'9223372036854775807' is greater than 9007199254740991\n");
	assert_string_equal(out, "");

	/* Legal times whose waits add up past 2^63-1: refused, not a negative mean. */
	off = (size_t)snprintf(text, sizeof(text), POD_HDR);
	for (i = 0; i < 50; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"p%d,1000,1024,1,1000,0,,0,9007199254740991\n", i);
	gs_test_write("long.csv", text, NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods long.csv --no-db"), 1);
	assert_string_equal(errs, "gpusim replay: binpack: simulation refused after event 95: the "
				  "waits of the placed pods add up to more than 9223372036854775807 "
				  "s, which gpusim cannot count\n");
}

/*
 * The first five numbers of the summary table's row of policy: pods,
 * placed, failed, pending and the mean wait (whole seconds), whatever
 * text columns come between.
 */
static void row_counts(const char *policy, long counts[5])
{
	const char *row = strstr(out, policy);
	char *end;
	int k = 0;

	assert_non_null(row);
	row += strlen(policy);
	while (k < 5 && *row && *row != '\n') {
		long v = strtol(row, &end, 10);

		if (end != row && (*end == ' ' || *end == '.' || *end == '\n')) {
			counts[k++] = v;
			row = end;
			while (*row && *row != ' ' && *row != '\n')
				row++;
		} else {
			row++;
		}
	}
	assert_int_equal(k, 5);
}

/* --max-wait 2^63-1 waits forever; it used to fail the waiting pod at once. */
static void test_max_wait_int64(void **state)
{
	long counts[5];

	(void)state;
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db "
				"--max-wait 9223372036854775807 --sample-interval "
				"9223372036854775807"), 0);
	/* Two pods, both placed, none failed, none pending; b waited 90 s: mean 45. */
	row_counts("binpack", counts);
	assert_int_equal(counts[0], 2);
	assert_int_equal(counts[1], 2);
	assert_int_equal(counts[2], 0);
	assert_int_equal(counts[3], 0);
	assert_int_equal(counts[4], 45);
}

/* --time-scale 1e-300 overflowed; now the arrival past the range is refused, naming both. */
static void test_tiny_time_scale(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db "
				"--time-scale 1e-300"), 2);
	assert_string_equal(errs, "gpusim replay: wait.csv: pod 'b' would arrive at 1e+301 s "
				  "(creation_time 10 divided by the time scale 1e-300), past the "
				  "last simulated second 9007199254740991 (--time-scale)\n");
	assert_string_equal(out, "");
}

/*
 * With a sharing mode, a never-ending pod followed by one at 2^53-1 s, and a
 * stay of 2^53-1 s, overflowed the rate model (UBSan): the first now runs,
 * the second is refused before the run, naming the pod and the option.
 */
static void test_sharing_long_stays(void **state)
{
	(void)state;
	gs_test_write("ever.csv", POD_HDR "a,1000,1024,1,500,0,,0,\n"
		      "b,1000,1024,1,500,0,,9007199254740991,\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods ever.csv --no-db --quiet "
				"--sharing timeslice"), 0);
	gs_test_write("stay.csv", POD_HDR "a,1000,1024,1,500,0,,0,9007199254740991\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods stay.csv --no-db --sharing "
				"timeslice"), 2);
	assert_string_equal(errs, "gpusim replay: stay.csv: pod 'a' stays 9007199254740991 s; with "
				  "a sharing mode a pod may stay at most 4398046511104 s "
				  "(--sharing)\n");
	assert_string_equal(out, "");
}

/* Two nodes of 2^63-1 MiB summed to -2 in the database. */
static void test_node_memory(void **state)
{
	(void)state;
	gs_test_write("big.csv", NODE_HDR "a,1000,9223372036854775807,1,T4\n"
		      "b,1000,9223372036854775807,1,T4\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes big.csv --pods wait.csv --db r.db"), 2);
	assert_string_equal(errs, "gpusim replay: big.csv:2: column memory_mib: "
				  "'9223372036854775807' is greater than 9007199254740991\n");
	assert_false(exists("repeat.db"));
}

/* A spec with 32 GPU models (the maximum) failed after writing the node file. */
static void test_gen_32_models(void **state)
{
	char text[8192];
	size_t off = 0;
	int i;

	(void)state;
	off += (size_t)snprintf(text + off, sizeof(text) - off, "{\"gpu_models\": [");
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%s{\"name\": \"M%02d\", \"mem_mib\": 16384}", i ? ", " : "", i);
	off += (size_t)snprintf(text + off, sizeof(text) - off, "], \"nodes\": [");
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%s{\"name\": \"m%02d\", \"cpu_milli\": 8000, \"memory_mib\": "
					"65536, \"num_gpu\": 2, \"gpu_model\": \"M%02d\"}",
					i ? ", " : "", i, i);
	snprintf(text + off, sizeof(text) - off,
		 "], \"pods\": {\"count\": 20, \"arrivals_per_hour\": 60, \"duration\": "
		 "{\"median_s\": 600, \"sigma\": 0.5}, \"mix\": [{\"weight\": 1, \"cpu_milli\": "
		 "1000, \"memory_mib\": 1024, \"num_gpu\": 1, \"gpu_milli\": 500, \"gpu_spec\": "
		 "\"M19\"}]}}");
	gs_test_write("spec32.json", text, NULL, 0);
	assert_int_equal(gpusim("gen --spec spec32.json --nodes-out n32.json --pods-out p32.csv "
				"--quiet"), 0);
	assert_string_equal(errs, "");
	assert_int_equal(gpusim("replay --nodes n32.json --pods p32.csv --no-db --quiet"), 0);

	/* A rate too slow for the count: the spec is refused, and nothing is written. */
	gs_test_write("slow.json", "{\"nodes\": [{\"name\": \"n\", \"cpu_milli\": 8000, "
		      "\"memory_mib\": 65536}], \"pods\": {\"count\": 20, \"arrivals_per_hour\": "
		      "1e-300, \"duration\": {\"median_s\": 600, \"sigma\": 0.5}, \"mix\": "
		      "[{\"weight\": 1, \"cpu_milli\": 1000, \"memory_mib\": 1024}]}}", NULL, 0);
	assert_int_equal(gpusim("gen --spec slow.json --nodes-out ns.csv --pods-out ps.csv"), 2);
	assert_refusal("gpusim gen: slow.json: pod 'pod-00' would arrive at ");
	assert_false(exists("ns.csv"));
}

/* --nodes-out a.csv --pods-out ./a.csv: the pods overwrote the nodes. */
static void test_gen_same_file(void **state)
{
	char spec[1024], path[1024];

	(void)state;
	snprintf(spec, sizeof(spec), "%s/traces/sample/spec.json", GS_SOURCE_DIR);
	assert_int_equal(gpusim("gen --spec %s --nodes-out a.csv --pods-out ./a.csv", spec), 2);
	assert_string_equal(errs, "gpusim gen: --nodes-out and --pods-out name the same file\n");
	assert_false(exists("a.csv"));
	gs_test_path("sub", path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(gpusim("gen --spec %s --nodes-out sub/../b.csv --pods-out b.csv", spec),
			 2);
	/* The pods cannot be written: neither file is left behind. */
	assert_int_equal(gpusim("gen --spec %s --nodes-out c.csv --pods-out nodir/c.csv", spec),
			 1);
	assert_refusal("gpusim gen: nodir/c.csv: cannot write: ");
	assert_false(exists("c.csv"));
}

/* --inflate had no upper bound: a huge factor grew the clone list until memory ran out. */
static void test_inflate_bound(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db --mode inflate "
				"--inflate 1e9"), 2);
	assert_string_equal(errs, "gpusim replay: --inflate: '1e9' is not a number above 0 and at "
				  "most 100\n");
	assert_string_equal(out, "");
	assert_int_equal(gpusim("sweep --nodes one.csv --pods wait.csv --db s.db --seeds 1 "
				"--policy binpack --inflate 1e9"), 2);
	assert_refusal("gpusim sweep: --inflate: '1e9' is not a number above 0 and at most 100");
	/* The largest factor is accepted. */
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db --mode inflate "
				"--inflate 100 --quiet"), 0);
}

/* A CPU-only trace in inflate mode printed an empty table and "invalid argument", exit 1. */
static void test_cpu_only_inflate(void **state)
{
	(void)state;
	gs_test_write("cpu.csv", POD_HDR "c,1000,1024,0,0,0,,0,10\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods cpu.csv --no-db --mode inflate"), 2);
	assert_string_equal(errs, "gpusim replay: cpu.csv: no pod asks for a GPU, so inflate mode "
				  "cannot grow it to 1.3 times the GPU capacity (use --mode time)\n");
	assert_string_equal(out, "");
	assert_int_equal(gpusim("sweep --nodes one.csv --pods cpu.csv --db s.db --seeds 1 "
				"--policy binpack"), 2);
	assert_refusal("gpusim sweep: cpu.csv: no pod asks for a GPU");
	assert_int_equal(gpusim("replay --nodes one.csv --pods cpu.csv --no-db --quiet"), 0);
}

/* --pods /dev/zero read until memory ran out, then exited 1 with an empty message. */
static void test_dev_zero(void **state)
{
	(void)state;
	assert_int_equal(gpusim("replay --nodes one.csv --pods /dev/zero --no-db"), 2);
	assert_string_equal(errs, "gpusim replay: /dev/zero:1: NUL byte in a line (is this a text "
				  "file?)\n");
	assert_int_equal(gpusim("replay --nodes /dev/zero --pods wait.csv --no-db"), 2);
	assert_refusal("gpusim replay: /dev/zero:1: NUL byte");
	assert_int_equal(gpusim("gen --spec /dev/zero --nodes-out x.csv --pods-out y.csv"), 2);
	assert_refusal("gpusim gen: /dev/zero:1: NUL byte");
	assert_int_equal(gpusim("bench-import --db r.db /dev/zero"), 2);
	assert_refusal("gpusim bench-import: /dev/zero: contains NUL bytes");
}

/* A file that is not SQLite as --db: replay said 2, sweep 1; now every command says 2. */
static void test_not_a_database(void **state)
{
	(void)state;
	gs_test_write("text.db", "this is a text file, not a database; long enough for SQLite "
		      "to read a whole header from it ...........................................\n",
		      NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --db text.db"), 2);
	assert_string_equal(errs, "gpusim replay: text.db: not a SQLite database\n");
	assert_int_equal(gpusim("sweep --nodes one.csv --pods wait.csv --db text.db --seeds 1 "
				"--policy binpack"), 2);
	assert_string_equal(errs, "gpusim sweep: text.db: not a SQLite database\n");
	assert_int_equal(gpusim("inspect --db text.db"), 2);
	assert_refusal("gpusim inspect: text.db: not a SQLite database");
	assert_int_equal(gpusim("plot --db text.db --out plots"), 2);
	assert_refusal("gpusim plot: text.db: not a SQLite database");
	assert_int_equal(gpusim("bench-import --db text.db wait.csv"), 2);
	assert_refusal("gpusim bench-import: text.db: not a SQLite database");
}

/*
 * A sharing spec is checked whole, against every node it applies to,
 * before anything runs or is stored: usage errors exit 2 in replay and
 * sweep alike, and a sweep stores no run of an earlier, valid spec.
 */
static void test_sharing_spec_checked_first(void **state)
{
	(void)state;
	gs_test_write("h100.csv", NODE_HDR "h0,64000,524288,1,H100\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes h100.csv --pods wait.csv --no-db "
				"--sharing mig:layout=4g.40gb+4g.40gb"), 2);
	assert_refusal("gpusim replay: --sharing mig:layout=4g.40gb+4g.40gb: node h0: layout");
	assert_int_equal(gpusim("sweep --nodes h100.csv --pods wait.csv --db spec.db --seeds 1 "
				"--policy binpack --sharing exclusive,mig:layout=4g.40gb+4g.40gb"), 2);
	assert_refusal("gpusim sweep: --sharing mig:layout=4g.40gb+4g.40gb: node h0: layout");
	assert_false(exists("spec.db"));
	/* No MIG GPU here (a T4): the layout must still be one of some MIG model. */
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db "
				"--sharing mig:layout=foo+bar"), 2);
	assert_refusal("gpusim replay: --sharing mig:layout=foo+bar: mig layout 'foo+bar' is not");
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db "
				"--sharing mps:pinned_mib=99999999"), 2);
	assert_refusal("gpusim replay: --sharing mps:pinned_mib=99999999: node n0: mps pinned_mib");
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --no-db "
				"--sharing 'mps:replicas=2;replicas=3'"), 2);
	assert_refusal("gpusim replay: --sharing: sharing spec 'mps:replicas=2;replicas=3': "
		       "replicas is given twice");
}

/*
 * --inflate 0.5 is legal: the run stops at half the capacity, and its
 * summary is that of where it ends (it printed nan%). plot skips the
 * unallocated-GPU figure, whose axis starts at 80 %, with a note, and a
 * gnuplot that fails leaves no figure behind (it left a 0-byte PNG).
 */
static void test_inflate_below_one(void **state)
{
	char scripts[1024], cmd[4096];

	(void)state;
	gs_test_write("four.csv", NODE_HDR "n0,64000,262144,4,T4\n", NULL, 0);
	gs_test_write("half.csv", POD_HDR "a,1000,1024,1,500,0,,0,100\nb,1000,1024,1,1000,0,,0,100\n",
		      NULL, 0);
	assert_int_equal(gpusim("replay --nodes four.csv --pods half.csv --db inf.db --mode inflate "
				"--inflate 0.5 --policy binpack"), 0);
	assert_null(strstr(out, "nan"));
	assert_int_equal(gpusim("replay --nodes four.csv --pods half.csv --no-db --mode inflate "
				"--inflate 0.5 --policy binpack --json"), 0);
	assert_null(strstr(out, "\"unalloc_gpu_pct\":\tnull"));
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return;
	assert_int_equal(gpusim("plot --db inf.db --out p1"), 0);
	assert_false(exists("p1/unalloc_half.png"));
	assert_true(exists("p1/frag_ratio_half.png"));
	assert_non_null(strstr(errs, "gpusim plot: skipped unalloc_half: no run of it in inf.db "
				     "reaches 80% arrived workload"));

	/* A script that fails after opening its output. */
	gs_test_path("scripts", scripts, sizeof(scripts));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s/scripts/*.gp %s", scripts, GS_SOURCE_DIR,
		 scripts);
	assert_int_equal(system(cmd), 0);
	gs_test_write("scripts/plot_frag.gp", "set terminal pngcairo\n"
		      "set output out_ratio.'.png'\n"
		      "plot '/nonexistent/data' using 1:2\n", NULL, 0);
	setenv("GPUSIM_SCRIPTS", scripts, 1);
	assert_int_equal(gpusim("plot --db inf.db --out p2"), 1);
	unsetenv("GPUSIM_SCRIPTS");
	assert_non_null(strstr(errs, "gnuplot failed on"));
	assert_false(exists("p2/frag_ratio_half.png"));
}

/*
 * Names that are not UTF-8 are refused at the reader, naming the file,
 * line and field; bytes that reach a JSON document another way (a
 * database another program wrote) are printed as U+FFFD, so that the
 * document is still JSON.
 */
static void test_names_not_utf8(void **state)
{
	(void)state;
	gs_test_write("latin1.csv", POD_HDR "caf\xe9,1000,1024,1,1000,0,,0,100\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods latin1.csv --no-db"), 2);
	assert_refusal("gpusim replay: latin1.csv:2: column name: 'caf");
	assert_non_null(strstr(errs, "is not valid UTF-8"));
	gs_test_write("latin1.json", "{\"pods\": [{\"name\": \"caf\xe9\", \"cpu_milli\": 1000, "
		      "\"memory_mib\": 1024, \"num_gpu\": 0, \"gpu_milli\": 0, "
		      "\"creation_time\": 0, \"deletion_time\": 10}]}", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods latin1.json --no-db"), 2);
	assert_refusal("gpusim replay: latin1.json:");
	assert_non_null(strstr(errs, "is not valid UTF-8"));
	gs_test_write("node8.csv", NODE_HDR "n\xc3\x28,32000,65536,1,T4\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes node8.csv --pods wait.csv --no-db"), 2);
	assert_refusal("gpusim replay: node8.csv:2: column name:");
	/* Well-formed UTF-8 is a name like any other. */
	gs_test_write("utf8.csv", POD_HDR "caf\xc3\xa9,1000,1024,1,1000,0,,0,100\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods utf8.csv --db u.db --quiet"), 0);
	/* A name changed behind gpusim's back is repaired where JSON is printed. */
	{
		char cmd[2048];

		/* As another program would write it: no checksum to hold the run to. */
		snprintf(cmd, sizeof(cmd), "sqlite3 %s/u.db \"update pods set name = "
			 "CAST(X'6361669f' AS TEXT); update runs set rows_checksum = NULL\"",
			 gs_test_tmpdir());
		if (system("command -v sqlite3 >/dev/null 2>&1") != 0)
			return;
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(gpusim("inspect --db u.db --run 1 --details --json"), 0);
	assert_true(gs_utf8_valid(out, strlen(out)));
	assert_non_null(strstr(out, "caf\xef\xbf\xbd"));
}

/*
 * --repeat at its documented maximum is checked against what it costs
 * before anything of that size is allocated (it tried ~112 GB and said
 * "--load: pods.csv: " and nothing more, exit 1).
 */
static void test_repeat_cost(void **state)
{
	(void)state;
	gs_test_write("many.csv", POD_HDR "a,1000,1024,1,1000,0,,0,100\nb,1000,1024,1,1000,0,,10,20\n"
		      "c,1000,1024,1,1000,0,,20,30\nd,1000,1024,1,1000,0,,30,40\n"
		      "e,1000,1024,1,1000,0,,40,50\nf,1000,1024,1,1000,0,,50,60\n"
		      "g,1000,1024,1,1000,0,,60,70\nh,1000,1024,1,1000,0,,70,80\n"
		      "i,1000,1024,1,1000,0,,80,90\nj,1000,1024,1,1000,0,,90,100\n"
		      "k,1000,1024,1,1000,0,,100,110\n", NULL, 0);
	assert_int_equal(gpusim("replay --nodes one.csv --pods many.csv --no-db --load 50 "
				"--repeat 1000000"), 2);
	assert_refusal("gpusim replay: --load: many.csv: 11 pods repeated 1000000 times make "
		       "1.1e+07 pods, more than the 10000000 a run may have (lower --repeat)");
	assert_int_equal(gpusim("sweep --nodes one.csv --pods many.csv --db repeat.db --seeds 1 "
				"--policy binpack --mode time --load 50 --repeat 1000000"), 2);
	assert_refusal("gpusim sweep: load 50%: many.csv: 11 pods repeated 1000000 times");
	assert_false(exists("repeat.db"));
	assert_int_equal(gpusim("replay --nodes one.csv --pods many.csv --no-db --load 50 "
				"--repeat 1000 --quiet"), 0);
}

/*
 * A value changed inside a stored run, which SQLite's integrity check
 * does not see: merge, inspect and regress find it through the run's
 * checksum and say the file is damaged (exit 2); merge copies nothing.
 */
static void test_damaged_run(void **state)
{
	char cmd[2048];

	(void)state;
	if (system("command -v sqlite3 >/dev/null 2>&1") != 0)
		return;
	assert_int_equal(gpusim("replay --nodes one.csv --pods wait.csv --db tamper.db --quiet"), 0);
	snprintf(cmd, sizeof(cmd), "sqlite3 %s/tamper.db 'update pods set t_end_s = t_end_s + 1 "
		 "where pod_idx = 0'", gs_test_tmpdir());
	assert_int_equal(system(cmd), 0);
	assert_int_equal(gpusim("inspect --db tamper.db --run 1"), 2);
	assert_refusal("gpusim inspect: tamper.db: run 1 is damaged: its rows no longer match");
	assert_int_equal(gpusim("merge merged.db tamper.db"), 2);
	assert_refusal("gpusim merge: tamper.db: run 1 is damaged");
	assert_false(exists("merged.db"));
	snprintf(cmd, sizeof(cmd), "regress --db tamper.db --baseline %s/results/baseline",
		 GS_SOURCE_DIR);
	assert_int_equal(gpusim("%s", cmd), 2);
	assert_refusal("gpusim regress: tamper.db: run 1 is damaged");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_past_the_range),
		cmocka_unit_test(test_max_wait_int64),
		cmocka_unit_test(test_tiny_time_scale),
		cmocka_unit_test(test_sharing_long_stays),
		cmocka_unit_test(test_node_memory),
		cmocka_unit_test(test_gen_32_models),
		cmocka_unit_test(test_gen_same_file),
		cmocka_unit_test(test_inflate_bound),
		cmocka_unit_test(test_cpu_only_inflate),
		cmocka_unit_test(test_dev_zero),
		cmocka_unit_test(test_not_a_database),
		cmocka_unit_test(test_sharing_spec_checked_first),
		cmocka_unit_test(test_inflate_below_one),
		cmocka_unit_test(test_names_not_utf8),
		cmocka_unit_test(test_repeat_cost),
		cmocka_unit_test(test_damaged_run),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
