/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_trace.c - the cluster and trace readers (openb, native CSV, native
 * JSON), the audit, the writers and SHA-256. Every kind of bad record is
 * checked with its exact message, since the message is the interface.
 * Files are written to a temporary directory; the real openb files are
 * tested in test_trace_openb.c.
 */
#include <errno.h>
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
#include "io/sha256.h"
#include "tmpdir.h"
#include "io/trace/load.h"
#include "io/trace/trace.h"
#include "io/trace/write.h"

static char err[2048];

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("test-trace");
}

#define PATH_LEN 256

static char *read_all(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

#define OB_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase," \
	       "creation_time,deletion_time,scheduled_time\n"
#define MG_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
#define NP_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
	       "deletion_time\n"
#define ON_HDR "sn,cpu_milli,memory_mib,gpu,model\n"
#define NN_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_model\n"

/* The cluster most pod tests run against: one CPU node, T4, V100M16, V100M32. */
static const char std_nodes[] = NN_HDR
	"cpu0,32000,131072,0,\n"
	"t4,64000,262144,2,T4\n"
	"v16,96000,393216,4,V100M16\n"
	"v32,96000,786432,8,V100M32\n";

static void std_cluster(struct gs_cluster *c)
{
	char path[PATH_LEN];

	gs_test_write("std_nodes.csv", std_nodes, path, sizeof(path));
	gs_cluster_init(c);
	assert_int_equal(gs_load_cluster(path, c, NULL, err, sizeof(err)), 0);
	assert_int_equal(c->n_nodes, 4);
}

static uint32_t bit(const struct gs_cluster *c, const char *model)
{
	int i = gs_models_find(&c->models, model);

	assert_true(i >= 0);
	return 1u << i;
}

/* Loads text as a pod file on the standard cluster; expects success. */
static void load_pods_ok(const char *name, const char *text, struct gs_cluster *c,
			 struct gs_trace *t)
{
	char path[PATH_LEN];

	gs_test_write(name, text, path, sizeof(path));
	std_cluster(c);
	gs_trace_init(t);
	err[0] = 'x';
	assert_int_equal(gs_load_trace(path, c, t, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(t->path, path);
}

/*
 * Loads text as a pod file and expects rc with the message PATH + suffix.
 * The trace must stay empty and the model table unchanged.
 */
static void pods_fail(const char *name, const char *text, int rc, const char *suffix)
{
	char path[PATH_LEN], want[2048];
	struct gs_cluster c;
	struct gs_trace t;
	int n_models;

	gs_test_write(name, text, path, sizeof(path));
	std_cluster(&c);
	n_models = c.models.n;
	gs_trace_init(&t);
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), rc);
	snprintf(want, sizeof(want), "%s%s", path, suffix);
	assert_string_equal(err, want);
	assert_int_equal(t.n_pods, 0);
	assert_null(t.pods);
	assert_int_equal(c.models.n, n_models);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static void nodes_fail(const char *name, const char *text, int rc, const char *suffix)
{
	char path[PATH_LEN], want[2048];
	struct gs_cluster c;

	gs_test_write(name, text, path, sizeof(path));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(path, &c, NULL, err, sizeof(err)), rc);
	snprintf(want, sizeof(want), "%s%s", path, suffix);
	assert_string_equal(err, want);
	assert_int_equal(c.n_nodes, 0);
	assert_int_equal(c.gpu_count, 0);
	gs_cluster_release(&c);
}

/* "T4, P100, ..." from the built-in table, as the unknown-model message lists it. */
static const char *builtin_list(void)
{
	static char buf[512];
	struct gs_models m;
	size_t off = 0;
	int i;

	gs_models_builtin(&m);
	for (i = 0; i < m.n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					m.m[i].name);
	return buf;
}

/* --- openb pods ----------------------------------------------------------- */

static void test_openb_pods(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	char sha[GS_SHA256_HEX];

	(void)state;
	load_pods_ok("pods.csv", OB_HDR
		     "p0,12000,16384,1,1000,,LS,Running,0,100,0\n"
		     "p1,6000,12288,1,460,V100M16|V100M32|V100M32,BE,Pending,10,,\n"
		     "p2,88000,327680,8,1000,,Burstable,Succeeded,20,10,20\n"
		     "p3,4000,15258,0,0,,BE,Failed,30,40,\n", &c, &t);
	assert_string_equal(t.format, "openb");
	assert_int_equal(t.n_pods, 4);
	assert_string_equal(t.pod_names[0], "p0");
	assert_string_equal(t.pod_names[3], "p3");
	assert_int_equal(t.pods[0].cpu_milli, 12000);
	assert_int_equal(t.pods[0].mem_mib, 16384);
	assert_int_equal(t.pods[0].num_gpu, 1);
	assert_int_equal(t.pods[0].gpu_milli, 1000);
	assert_int_equal(t.pods[0].gpu_mem_mib, 0);
	assert_int_equal(t.pods[0].model_mask, 0);
	assert_int_equal(t.pods[0].t_create_s, 0);
	assert_int_equal(t.pods[0].t_delete_s, 100);
	/* A repeated model in the set is harmless. */
	assert_int_equal(t.pods[1].model_mask, bit(&c, "V100M16") | bit(&c, "V100M32"));
	/* The text is kept as written, repeat included (FGD's compat kinds use it). */
	assert_string_equal(t.pod_specs[1], "V100M16|V100M32|V100M32");
	assert_null(t.pod_specs[0]);
	assert_null(t.pod_specs[3]);
	assert_int_equal(t.pods[1].gpu_milli, 460);
	assert_int_equal(t.pods[1].t_create_s, 10);
	assert_int_equal(t.pods[1].t_delete_s, -1);
	assert_int_equal(t.pods[2].num_gpu, 8);
	assert_int_equal(t.pods[3].num_gpu, 0);
	assert_int_equal(t.pods[3].gpu_milli, 0);

	assert_int_equal(t.audit.deleted_before_created, 1);
	assert_int_equal(t.audit.no_deletion_time, 1);
	assert_int_equal(t.audit.larger_than_any_node, 0);
	assert_int_equal(t.audit.unknown_model, 0);

	assert_int_equal(gs_sha256_file(t.path, sha), 0);
	assert_string_equal(t.sha256, sha);
	gs_trace_release(&t);
	assert_int_equal(t.n_pods, 0);
	assert_null(t.path);
	gs_cluster_release(&c);
}

static void test_openb_pod_errors(void **state)
{
	(void)state;
	pods_fail("pods.csv", OB_HDR "p,12x,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column cpu_milli: '12x' is not an integer");
	pods_fail("pods.csv", OB_HDR "p,1,-5,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column memory_mib: '-5' is negative");
	pods_fail("pods.csv", OB_HDR "p,1,1,17,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column num_gpu: '17' is greater than 16");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1001,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_milli: '1001' is greater than 1000");
	pods_fail("pods.csv", OB_HDR "p,1,1,2,500,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_milli: '500' is not allowed with num_gpu 2 (only 1-GPU pods "
		  "may ask for less than 1000)");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,0,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_milli: '0' is not allowed with num_gpu 1 (a GPU pod asks for "
		  "1 to 1000 per GPU)");
	pods_fail("pods.csv", OB_HDR "p,1,1,0,300,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_milli: '300' is not allowed with num_gpu 0 (a pod without GPUs "
		  "has gpu_milli 0)");
	pods_fail("pods.csv", OB_HDR "p,1,1,0,0,T4,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_spec: 'T4' is not allowed with num_gpu 0 (only GPU pods name "
		  "GPU models)");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,T4||V100M16,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_spec: 'T4||V100M16' has an empty model name");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,T4|,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_spec: 'T4|' has an empty model name");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,T4|ABCDEFGHIJKLMNOPQRSTUVWXYZ012345,LS,"
		  "Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_spec: 'T4|ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' has a model name "
		  "longer than 31 bytes");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,T4 x,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column gpu_spec: 'T4 x' has a model name with a character not allowed in "
		  "model names (a space, '|', a comma, a quote, a backslash, a control "
		  "character or bytes that are not UTF-8)");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,,10,0\n", GS_EPARSE,
		  ":2: column creation_time: '' is not an integer");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,abc,0\n", GS_EPARSE,
		  ":2: column deletion_time: 'abc' is not an integer");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,-1\n", GS_EPARSE,
		  ":2: column scheduled_time: '-1' is negative");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10\n", GS_EPARSE,
		  ":2: expected 11 columns, found 10");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,0,9\n", GS_EPARSE,
		  ":2: expected 11 columns, found 12");
	pods_fail("pods.csv", OB_HDR "\"p\",1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column name: '\"p\"' has a quote character; quoted fields are not "
		  "supported");
	pods_fail("pods.csv", OB_HDR ",1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column name: empty name");
	pods_fail("pods.csv", OB_HDR "p\tq,1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":2: column name: 'p\\tq' has a character not allowed in names (a control "
		  "character, a comma, a quote or a backslash)");
	/* The error names the line of the bad row, after good ones. */
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,0\n"
		  "q,1,1,1,1000,A800,LS,Running,0,10,0\n"
		  "p,1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":4: column name: duplicate pod name 'p' (first on line 2)");
	pods_fail("pods.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,0\n\n"
		  "q,1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		  ":3: empty line (only the end of the file may have them)");
}

static void test_pod_file_errors(void **state)
{
	char path[PATH_LEN], want[512];
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	pods_fail("empty.csv", "", GS_EPARSE, ": empty file");
	pods_fail("blank.csv", "\n\r\n", GS_EPARSE, ": empty file");
	pods_fail("hdr.csv", OB_HDR, GS_EPARSE, ": no pods (only a header)");
	pods_fail("nodes.csv", std_nodes, GS_EPARSE, ":1: this is a cluster file, not a pod trace");
	pods_fail("other.csv", "a,b\n1,2\n", GS_EPARSE,
		  ":1: unrecognised header 'a,b'; a pod trace starts with openb's "
		  "'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...' (11 or 5 columns) "
		  "or gpusim's 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,"
		  "creation_time,deletion_time[,class,gpu_need_milli[,gpu_busy_milli,"
		  "gpu_compute_milli[,pod_group]]]', see traces/README.md");

	gs_test_path("no-such-file.csv", path, sizeof(path));
	std_cluster(&c);
	gs_trace_init(&t);
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), GS_ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);

	/* A trace that already holds pods is refused. */
	gs_test_write("ok.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,0\n", path, sizeof(path));
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), 0);
	assert_int_equal(gs_load_trace(path, &c, &t, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(t.n_pods, 1);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* CRLF line ends, a byte order mark and blank lines at the end are all fine. */
static void test_openb_crlf_bom(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	load_pods_ok("crlf.csv", "\xef\xbb\xbf" "name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
		     "gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\r\n"
		     "p0,1000,1024,1,500,T4,LS,Running,5,10,\r\n"
		     "\r\n\r\n", &c, &t);
	assert_int_equal(t.n_pods, 1);
	assert_int_equal(t.pods[0].model_mask, bit(&c, "T4"));
	assert_int_equal(t.pods[0].t_create_s, 5);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static void test_multigpu(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	load_pods_ok("mg.csv", MG_HDR "p0,1000,1024,8,1000\np1,1000,1024,1,500\n"
		     "p2,1000,1024,0,0\n", &c, &t);
	assert_string_equal(t.format, "openb-multigpu");
	assert_int_equal(t.n_pods, 3);
	assert_int_equal(t.pods[0].num_gpu, 8);
	assert_int_equal(t.pods[0].t_create_s, -1);
	assert_int_equal(t.pods[0].t_delete_s, -1);
	assert_int_equal(t.pods[1].gpu_milli, 500);
	assert_int_equal(t.audit.no_deletion_time, 3);
	assert_int_equal(t.audit.deleted_before_created, 0);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	pods_fail("mg.csv", MG_HDR "p0,1000,1024,8,1000,\n", GS_EPARSE,
		  ":2: expected 5 columns, found 6");
	pods_fail("mg.csv", MG_HDR "p0,1000,1024,4,250\n", GS_EPARSE,
		  ":2: column gpu_milli: '250' is not allowed with num_gpu 4 (only 1-GPU pods "
		  "may ask for less than 1000)");
}

/* --- the audit ------------------------------------------------------------- */

static void test_audit(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;
	int a800;

	(void)state;
	load_pods_ok("audit.csv", NP_HDR
		     "fits,1000,1024,1,1000,0,,0,10\n"
		     "bigcpu,200000,1024,0,0,0,,0,10\n"
		     "t4x8,1000,1024,8,1000,0,T4,0,10\n"
		     "v32x8,1000,1024,8,1000,0,V100M32,0,10\n"
		     "a800,1000,1024,1,1000,0,A800,0,10\n"
		     "t4ora800,1000,1024,1,1000,0,T4|A800,0,10\n"
		     "t4mem,1000,1024,1,500,20000,T4,0,10\n"
		     "v32mem,1000,1024,1,500,20000,V100M32,0,10\n"
		     "backwards,1000,1024,1,500,0,,50,10\n"
		     "forever,1000,1024,1,500,0,,50,\n", &c, &t);
	assert_string_equal(t.format, "csv");
	/* bigcpu, t4x8, a800 (no node has it), t4mem (16 GiB cards). */
	assert_int_equal(t.audit.larger_than_any_node, 4);
	assert_int_equal(t.audit.unknown_model, 2);
	assert_int_equal(t.audit.deleted_before_created, 1);
	assert_int_equal(t.audit.no_deletion_time, 1);
	/* The unknown model joined the table with no memory, so nothing ever fits it. */
	a800 = gs_models_find(&c.models, "A800");
	assert_true(a800 >= 0);
	assert_int_equal(c.models.m[a800].mem_mib, 0);
	assert_int_equal(t.pods[4].model_mask, 1u << a800);
	assert_int_equal(t.pods[5].model_mask, bit(&c, "T4") | (1u << a800));
	assert_int_equal(t.pods[6].gpu_mem_mib, 20000);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* A failed load takes back the models it added. */
static void test_failed_load_restores_models(void **state)
{
	(void)state;
	/* pods_fail() checks the model count. */
	pods_fail("pods.csv", OB_HDR "q,1,1,1,1000,A800|B900,LS,Running,0,10,0\n"
		  "r,1,1,1,1000,,LS,Running,0,10,x\n", GS_EPARSE,
		  ":3: column scheduled_time: 'x' is not an integer");
}

/* --- native CSV pods ---------------------------------------------------------- */

static void test_native_pods(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	load_pods_ok("native.csv", NP_HDR
		     "a,2000,4096,1,300,8192,T4|V100M16,100,200\n"
		     "b,2000,4096,4,1000,0,,100,\n"
		     "c,2000,4096,0,0,0,,,\n", &c, &t);
	assert_string_equal(t.format, "csv");
	assert_int_equal(t.n_pods, 3);
	assert_int_equal(t.pods[0].gpu_mem_mib, 8192);
	assert_int_equal(t.pods[0].model_mask, bit(&c, "T4") | bit(&c, "V100M16"));
	assert_int_equal(t.pods[0].t_create_s, 100);
	assert_int_equal(t.pods[0].t_delete_s, 200);
	assert_int_equal(t.pods[1].t_delete_s, -1);
	assert_int_equal(t.pods[2].t_create_s, -1);
	assert_int_equal(t.audit.no_deletion_time, 2);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	pods_fail("native.csv", NP_HDR "a,2000,4096,0,0,8192,,100,200\n", GS_EPARSE,
		  ":2: column gpu_mem_mib: '8192' is not allowed with num_gpu 0 (a pod without "
		  "GPUs asks for no GPU memory)");
	pods_fail("native.csv", NP_HDR "a,2000,4096,1,1000,-1,,100,200\n", GS_EPARSE,
		  ":2: column gpu_mem_mib: '-1' is negative");
	pods_fail("native.csv", NP_HDR "a,2000,4096,1,1000,0,,-100,200\n", GS_EPARSE,
		  ":2: column creation_time: '-100' is negative");
	pods_fail("native.csv", NP_HDR "a,2000,4096,1,1000,0,,100,200,\n", GS_EPARSE,
		  ":2: expected 9 columns, found 10");
	pods_fail("native.csv", NP_HDR "a,2000,4096,1,1000,0,,,200\n", GS_EPARSE,
		  ":2: column deletion_time: '200' is not allowed without a creation_time");
}

/* --- JSON pods ---------------------------------------------------------------- */

static void test_json_pods(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	load_pods_ok("pods.json",
		     "{\"comment\": \"three pods\", \"pods\": [\n"
		     " {\"name\": \"a\", \"cpu_milli\": 1000, \"memory_mib\": 2048, \"num_gpu\": 1,"
		     "  \"gpu_milli\": 250, \"gpu_mem_mib\": 4096, \"gpu_spec\": [\"T4\", \"V100M16\"],"
		     "  \"creation_time\": 5, \"deletion_time\": 50},\n"
		     " {\"name\": \"b\", \"cpu_milli\": 1000, \"memory_mib\": 2048, \"num_gpu\": 2,"
		     "  \"gpu_spec\": \"V100M32\", \"creation_time\": 6, \"deletion_time\": null},\n"
		     " {\"name\": \"c\", \"cpu_milli\": 0, \"memory_mib\": 0, \"comment\": \"idle\"}\n"
		     "]}\n", &c, &t);
	assert_string_equal(t.format, "json");
	assert_int_equal(t.n_pods, 3);
	assert_int_equal(t.pods[0].gpu_milli, 250);
	assert_int_equal(t.pods[0].gpu_mem_mib, 4096);
	assert_int_equal(t.pods[0].model_mask, bit(&c, "T4") | bit(&c, "V100M16"));
	/* An array is kept as the text it stands for; a string as written. */
	assert_string_equal(t.pod_specs[0], "T4|V100M16");
	assert_string_equal(t.pod_specs[1], "V100M32");
	assert_null(t.pod_specs[2]);
	assert_int_equal(t.pods[0].t_create_s, 5);
	assert_int_equal(t.pods[0].t_delete_s, 50);
	/* gpu_milli defaults to whole GPUs for GPU pods. */
	assert_int_equal(t.pods[1].num_gpu, 2);
	assert_int_equal(t.pods[1].gpu_milli, 1000);
	assert_int_equal(t.pods[1].model_mask, bit(&c, "V100M32"));
	assert_int_equal(t.pods[1].t_delete_s, -1);
	assert_int_equal(t.pods[2].num_gpu, 0);
	assert_int_equal(t.pods[2].gpu_milli, 0);
	assert_int_equal(t.pods[2].t_create_s, -1);
	assert_string_equal(t.pod_names[2], "c");
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

#define JP(body) "{\"pods\": [" body "]}"
#define J1 "{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1}"

static void test_json_pod_errors(void **state)
{
	(void)state;
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": \"abc\", \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: 'abc' is not an integer");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": \"12\", \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: '12' is a string, not an integer (remove the "
		  "quotes)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1.5, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: '1.5' is not an integer");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": true, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: 'true' is not an integer");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": null, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: 'null' is not an integer");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": -1, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].cpu_milli: '-1' is negative");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1e17}"),
		  GS_EPARSE, ": pods[0].memory_mib: '1e+17' is greater than 9007199254740991");
	pods_fail("p.json", JP(J1 ", {\"name\": \"b\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"num_gpu\": 1, \"gpu_milli\": 1500}"),
		  GS_EPARSE, ": pods[1].gpu_milli: '1500' is greater than 1000");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_mili\": 1, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0]: unknown key 'cpu_mili' (expected name, cpu_milli, "
		  "memory_mib, num_gpu, gpu_milli, gpu_mem_mib, gpu_spec, creation_time, "
		  "deletion_time, class, gpu_need_milli, gpu_busy_milli, gpu_compute_milli, "
		  "pod_group)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"cpu_milli\": 2, "
			       "\"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0]: key 'cpu_milli' appears twice");
	pods_fail("p.json", JP(J1 ", {\"name\": \"b\", \"cpu_milli\": 1}"),
		  GS_EPARSE, ": pods[1]: missing key 'memory_mib'");
	pods_fail("p.json", JP("{\"name\": 5, \"cpu_milli\": 1, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].name: '5' is not a string");
	pods_fail("p.json", JP("{\"name\": \"a,b\", \"cpu_milli\": 1, \"memory_mib\": 1}"),
		  GS_EPARSE, ": pods[0].name: 'a,b' has a character not allowed in names (a "
		  "control character, a comma, a quote or a backslash)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"num_gpu\": 1, \"gpu_spec\": 5}"),
		  GS_EPARSE, ": pods[0].gpu_spec: '5' is not a string or an array of strings");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"num_gpu\": 1, \"gpu_spec\": [\"T4\", 1]}"),
		  GS_EPARSE, ": pods[0].gpu_spec: '1' is not a model name (a string)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"num_gpu\": 1, \"gpu_spec\": [\"T4\", \"A|B\"]}"),
		  GS_EPARSE, ": pods[0].gpu_spec: 'T4|A|B' has a model name with a character "
		  "not allowed in model names (a space, '|', a comma, a quote, a backslash, a "
		  "control character or bytes that are not UTF-8)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"num_gpu\": 2, \"gpu_milli\": 500}"),
		  GS_EPARSE, ": pods[0].gpu_milli: '500' is not allowed with num_gpu 2 (only "
		  "1-GPU pods may ask for less than 1000)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"gpu_spec\": \"T4\"}"),
		  GS_EPARSE, ": pods[0].gpu_spec: 'T4' is not allowed with num_gpu 0 (only GPU "
		  "pods name GPU models)");
	pods_fail("p.json", JP("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
			       "\"deletion_time\": 9}"),
		  GS_EPARSE, ": pods[0].deletion_time: '9' is not allowed without a creation_time");
	pods_fail("p.json", JP(J1 ", " J1), GS_EPARSE,
		  ": pods[1].name: duplicate pod name 'a' (first at pods[0])");
	pods_fail("p.json", JP("5"), GS_EPARSE, ": pods[0]: expected an object, found a number");
	pods_fail("p.json", "[1]", GS_EPARSE, ": expected an object, found an array");
	pods_fail("p.json", "{\"pods\": {}}", GS_EPARSE, ": pods: expected an array, found an "
		  "object");
	pods_fail("p.json", "{\"pods\": []}", GS_EPARSE, ": pods: empty array (a trace needs a "
		  "pod)");
	pods_fail("p.json", "{}", GS_EPARSE, ": missing key 'pods'");
	pods_fail("p.json", "{\"pods\": [" J1 "], \"extra\": 1}", GS_EPARSE,
		  ": unknown key 'extra' (expected pods)");
	pods_fail("p.json", "{\"nodes\": []}", GS_EPARSE, ": this is a cluster file, not a pod "
		  "trace");
	pods_fail("p.json", "  \n", GS_EPARSE, ": empty file");
	pods_fail("p.json", "{\n  \"pods\": [\n    {\"name\": \"a\",, }\n  ]\n}\n", GS_EPARSE,
		  ":3: JSON syntax error near 'name\": \"a\",, }'");
	pods_fail("p.json", "{\"pods\": [", GS_EPARSE, ":1: JSON syntax error at the end of the "
		  "file (a missing bracket, brace or quote?)");
	pods_fail("p.json", "{\"pods\": []} x", GS_EPARSE, ":1: JSON syntax error near '\"pods\": []} x'");
}

/* A file that starts with '{' is JSON whatever its name. */
static void test_json_by_content(void **state)
{
	struct gs_cluster c;
	struct gs_trace t;

	(void)state;
	load_pods_ok("pods.txt", "\n  " JP(J1), &c, &t);
	assert_string_equal(t.format, "json");
	assert_int_equal(t.n_pods, 1);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

/* --- clusters ----------------------------------------------------------------- */

static void test_openb_nodes(void **state)
{
	char path[PATH_LEN], sha[GS_SHA256_HEX], sha2[GS_SHA256_HEX];
	struct gs_cluster c;
	int g3;

	(void)state;
	gs_test_write("nodes.csv", ON_HDR "n0,32000,262144,0,\nn1,64000,262144,2,P100\n"
		      "n2,128000,786432,8,G3\n", path, sizeof(path));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(path, &c, sha, err, sizeof(err)), 0);
	assert_int_equal(c.n_nodes, 3);
	assert_int_equal(c.gpu_count, 10);
	assert_int_equal(c.cpu_milli, 224000);
	assert_string_equal(c.node_names[2], "n2");
	assert_int_equal(c.nodes[0].num_gpu, 0);
	assert_int_equal(c.nodes[0].model, -1);
	g3 = gs_models_find(&c.models, "G3");
	assert_int_equal(c.nodes[2].model, g3);
	assert_int_equal(c.nodes[2].gpu_mem_free_mib[7], c.models.m[g3].mem_mib);
	assert_int_equal(c.nodes[1].model, gs_models_find(&c.models, "P100"));
	assert_int_equal(gs_sha256_file(path, sha2), 0);
	assert_string_equal(sha, sha2);

	/* A cluster that already has nodes is refused and left alone. */
	assert_int_equal(gs_load_cluster(path, &c, NULL, err, sizeof(err)), GS_EINVAL);
	assert_int_equal(c.n_nodes, 3);
	gs_cluster_release(&c);
}

static void test_node_errors(void **state)
{
	char want[1024];

	(void)state;
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,0,\nn1,1,1,0,\nn0,1,1,0,\n", GS_EPARSE,
		   ":4: column sn: duplicate node name 'n0' (first on line 2)");
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,2,ABCDEFGHIJKLMNOPQRSTUVWXYZ012345\n", GS_EPARSE,
		   ":2: column model: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' is too long (at most 31 "
		   "bytes)");
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,2,T4|P100\n", GS_EPARSE,
		   ":2: column model: 'T4|P100' has a character not allowed in model names (a "
		   "space, '|', a comma, a quote, a backslash, a control character or bytes that "
		   "are not UTF-8)");
	snprintf(want, sizeof(want), ":2: column model: 'L40S' is not a known GPU model (known: "
		 "%s; a JSON cluster file can add models with their memory in gpu_models)",
		 builtin_list());
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,2,L40S\n", GS_EPARSE, want);
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,2,\n", GS_EPARSE,
		   ":2: column model: missing (gpu is 2; a node with GPUs needs a model)");
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,0,T4\n", GS_EPARSE,
		   ":2: column model: 'T4' is not allowed with gpu 0 (a node without GPUs has no "
		   "model)");
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,17,T4\n", GS_EPARSE,
		   ":2: column gpu: '17' is greater than 16");
	nodes_fail("nodes.csv", ON_HDR "n0,x,1,1,T4\n", GS_EPARSE,
		   ":2: column cpu_milli: 'x' is not an integer");
	nodes_fail("nodes.csv", ON_HDR "n0,3000000000,1,1,T4\n", GS_EPARSE,
		   ":2: column cpu_milli: '3000000000' is greater than 2147483647");
	nodes_fail("nodes.csv", ON_HDR "n0,1,1,1\n", GS_EPARSE, ":2: expected 5 columns, found 4");
	nodes_fail("nodes.csv", ON_HDR, GS_EPARSE, ": no nodes (only a header)");
	nodes_fail("nodes.csv", "", GS_EPARSE, ": empty file");
	nodes_fail("nodes.csv", OB_HDR "p,1,1,1,1000,,LS,Running,0,10,0\n", GS_EPARSE,
		   ":1: this is a pod trace, not a cluster file");
	nodes_fail("nodes.csv", "sn,cpu,memory_mib,gpu,model\n", GS_EPARSE,
		   ":1: unrecognised header 'sn,cpu,memory_mib,gpu,model'; a cluster file starts "
		   "with 'sn,cpu_milli,memory_mib,gpu,model' (openb) or "
		   "'name,cpu_milli,memory_mib,num_gpu,gpu_model[,sharing]' (gpusim), see traces/README.md");
	/* The native format's column names appear in its messages. */
	nodes_fail("nodes.csv", NN_HDR "n0,1,1,2,\n", GS_EPARSE,
		   ":2: column gpu_model: missing (num_gpu is 2; a node with GPUs needs a model)");
	nodes_fail("nodes.csv", NN_HDR "n0,1,1,0,\nn0,1,1,0,\n", GS_EPARSE,
		   ":3: column name: duplicate node name 'n0' (first on line 2)");
}

static void test_json_cluster(void **state)
{
	char path[PATH_LEN];
	struct gs_cluster c;
	int a100, l40s;

	(void)state;
	gs_test_write("cluster.json",
		"{\"gpu_models\": [{\"name\": \"A100\", \"mem_mib\": 81920},\n"
		"                 {\"name\": \"L40S\", \"mem_mib\": 46068, "
		"\"comment\": \"new\"}],\n"
		" \"nodes\": [\n"
		"  {\"name\": \"a\", \"count\": 3, \"cpu_milli\": 128000, \"memory_mib\": 1048576,"
		"   \"num_gpu\": 8, \"gpu_model\": \"A100\"},\n"
		"  {\"name\": \"l\", \"cpu_milli\": 64000, \"memory_mib\": 524288, \"num_gpu\": 4,"
		"   \"gpu_model\": \"L40S\"},\n"
		"  {\"name\": \"cpu\", \"cpu_milli\": 32000, \"memory_mib\": 131072, "
		"\"gpu_model\": null}\n"
		" ]}\n", path, sizeof(path));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(path, &c, NULL, err, sizeof(err)), 0);
	assert_int_equal(c.n_nodes, 5);
	assert_int_equal(c.gpu_count, 28);
	assert_string_equal(c.node_names[0], "a-0");
	assert_string_equal(c.node_names[2], "a-2");
	assert_string_equal(c.node_names[3], "l");
	assert_string_equal(c.node_names[4], "cpu");
	a100 = gs_models_find(&c.models, "A100");
	l40s = gs_models_find(&c.models, "L40S");
	assert_true(a100 >= 0 && l40s >= 0);
	/* The override changes the memory every A100 GPU starts with. */
	assert_int_equal(c.models.m[a100].mem_mib, 81920);
	assert_int_equal(c.nodes[1].gpu_mem_free_mib[5], 81920);
	assert_int_equal(c.nodes[3].model, l40s);
	assert_int_equal(c.nodes[3].gpu_mem_free_mib[0], 46068);
	assert_int_equal(c.nodes[4].num_gpu, 0);
	gs_cluster_release(&c);
}

#define JN(body) "{\"nodes\": [" body "]}"
#define N1 "{\"name\": \"n\", \"cpu_milli\": 1, \"memory_mib\": 1}"

static void test_json_cluster_errors(void **state)
{
	char want[1024];

	(void)state;
	nodes_fail("cluster.json", JN(N1 "," N1 "," N1 ", {\"name\": \"m\", \"cpu_milli\": \"abc\", "
				      "\"memory_mib\": 1}"), GS_EPARSE,
		   ": nodes[1].name: duplicate node name 'n' (first at nodes[0])");
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1}, "
				      "{\"name\": \"b\", \"cpu_milli\": 1, \"memory_mib\": 1}, "
				      "{\"name\": \"c\", \"cpu_milli\": 1, \"memory_mib\": 1}, "
				      "{\"name\": \"d\", \"cpu_milli\": \"abc\", \"memory_mib\": 1}"),
		   GS_EPARSE, ": nodes[3].cpu_milli: 'abc' is not an integer");
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"cpus\": 1, \"memory_mib\": 1}"),
		   GS_EPARSE, ": nodes[0]: unknown key 'cpus' (expected name, cpu_milli, memory_mib, "
		   "num_gpu, gpu_model, count, sharing)");
	nodes_fail("cluster.json", "{\"node\": []}", GS_EPARSE,
		   ": unknown key 'node' (expected gpu_models, nodes)");
	nodes_fail("cluster.json", "{\"gpu_models\": [{\"name\": \"X\", \"mem_mib\": 1}, "
		   "{\"name\": \"X\", \"mem_mib\": 2}], \"nodes\": [" N1 "]}", GS_EPARSE,
		   ": gpu_models[1].name: duplicate model 'X' (first at gpu_models[0])");
	nodes_fail("cluster.json", "{\"gpu_models\": [{\"name\": \"X\", \"mem_mib\": -1}], "
		   "\"nodes\": [" N1 "]}", GS_EPARSE, ": gpu_models[0].mem_mib: '-1' is negative");
	nodes_fail("cluster.json", "{\"gpu_models\": [{\"name\": \"A 100\", \"mem_mib\": 1}], "
		   "\"nodes\": [" N1 "]}", GS_EPARSE,
		   ": gpu_models[0].name: 'A 100' has a character not allowed in model names (a "
		   "space, '|', a comma, a quote, a backslash, a control character or bytes that "
		   "are not UTF-8)");
	nodes_fail("cluster.json", "{\"gpu_models\": [{\"name\": \"X\"}], \"nodes\": [" N1 "]}",
		   GS_EPARSE, ": gpu_models[0]: missing key 'mem_mib'");
	nodes_fail("cluster.json", "{\"gpu_models\": {}, \"nodes\": [" N1 "]}", GS_EPARSE,
		   ": gpu_models: expected an array, found an object");
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"count\": 2, \"cpu_milli\": 1, "
				      "\"memory_mib\": 1}, {\"name\": \"a-1\", \"cpu_milli\": 1, "
				      "\"memory_mib\": 1}"), GS_EPARSE,
		   ": nodes[1].name: duplicate node name 'a-1' (first at nodes[0])");
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"count\": 0, \"cpu_milli\": 1, "
				      "\"memory_mib\": 1}"), GS_EPARSE,
		   ": nodes[0].count: '0' is less than 1");
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
				      "\"num_gpu\": 2}"), GS_EPARSE,
		   ": nodes[0].gpu_model: missing (num_gpu is 2; a node with GPUs needs a model)");
	snprintf(want, sizeof(want), ": nodes[0].gpu_model: 'L40S' is not a known GPU model "
		 "(known: %s; a JSON cluster file can add models with their memory in gpu_models)",
		 builtin_list());
	nodes_fail("cluster.json", JN("{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 1, "
				      "\"num_gpu\": 2, \"gpu_model\": \"L40S\"}"), GS_EPARSE, want);
	nodes_fail("cluster.json", JN(""), GS_EPARSE, ": nodes: empty array (a cluster needs a "
		   "node)");
	nodes_fail("cluster.json", "{}", GS_EPARSE, ": missing key 'nodes'");
	nodes_fail("cluster.json", JP(J1), GS_EPARSE, ": this is a pod trace, not a cluster file");
}

/* --- writers ------------------------------------------------------------------ */

static void test_write_trace_round_trip(void **state)
{
	char path[PATH_LEN], out[PATH_LEN], want[512];
	struct gs_cluster c;
	struct gs_trace t, u;
	size_t i;

	(void)state;
	load_pods_ok("rt.json", JP("{\"name\": \"a\", \"cpu_milli\": 1500, \"memory_mib\": 2048, "
				   "\"num_gpu\": 1, \"gpu_milli\": 250, \"gpu_mem_mib\": 4096, "
				   "\"gpu_spec\": [\"V100M16\", \"T4\"], \"creation_time\": 5, "
				   "\"deletion_time\": 50},"
				   "{\"name\": \"b\", \"cpu_milli\": 1000, \"memory_mib\": 2048, "
				   "\"num_gpu\": 2, \"creation_time\": 6},"
				   "{\"name\": \"c\", \"cpu_milli\": 0, \"memory_mib\": 0}"), &c, &t);
	gs_test_path("rt.csv", out, sizeof(out));
	assert_int_equal(gs_write_trace_csv(out, &t, &c, err, sizeof(err)), 0);
	/* Models are listed in table order, empty times mean "none". */
	assert_string_equal(read_all(out), NP_HDR
			    "a,1500,2048,1,250,4096,T4|V100M16,5,50\n"
			    "b,1000,2048,2,1000,0,,6,\n"
			    "c,0,0,0,0,0,,,\n");
	gs_trace_init(&u);
	assert_int_equal(gs_load_trace(out, &c, &u, err, sizeof(err)), 0);
	assert_int_equal(u.n_pods, t.n_pods);
	for (i = 0; i < t.n_pods; i++) {
		assert_memory_equal(&u.pods[i], &t.pods[i], sizeof(t.pods[i]));
		assert_string_equal(u.pod_names[i], t.pod_names[i]);
	}
	gs_trace_release(&u);

	/* A directory that does not exist: an error, and nothing left behind. */
	gs_test_path("nodir/rt.csv", path, sizeof(path));
	assert_int_equal(gs_write_trace_csv(path, &t, &c, err, sizeof(err)), GS_EIO);
	snprintf(want, sizeof(want), "%s: cannot write: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);
	gs_trace_release(&t);
	gs_cluster_release(&c);
}

static void test_write_cluster(void **state)
{
	char in[PATH_LEN], out[PATH_LEN], want[1024];
	struct gs_cluster c, d;
	int32_t i;

	(void)state;
	gs_test_write("wc.csv", ON_HDR "n0,32000,262144,0,\nn1,64000,262144,2,P100\n", in,
		      sizeof(in));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(in, &c, NULL, err, sizeof(err)), 0);
	gs_test_path("wc-out.csv", out, sizeof(out));
	assert_int_equal(gs_write_cluster_csv(out, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out), NN_HDR "n0,32000,262144,0,\nn1,64000,262144,2,P100\n");
	gs_cluster_init(&d);
	assert_int_equal(gs_load_cluster(out, &d, NULL, err, sizeof(err)), 0);
	assert_int_equal(d.n_nodes, c.n_nodes);
	for (i = 0; i < c.n_nodes; i++)
		assert_memory_equal(&d.nodes[i], &c.nodes[i], sizeof(c.nodes[i]));
	gs_cluster_release(&d);
	gs_cluster_release(&c);

	/* Memory overrides survive in JSON but cannot be written as CSV. */
	gs_test_write("wc.json", "{\"gpu_models\": [{\"name\": \"A100\", \"mem_mib\": 81920}], "
		"\"nodes\": [{\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 2, "
		"\"num_gpu\": 2, "
		"\"gpu_model\": \"A100\"}, " N1 "]}", in, sizeof(in));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(in, &c, NULL, err, sizeof(err)), 0);
	gs_test_path("wc-override.csv", out, sizeof(out));
	assert_int_equal(gs_write_cluster_csv(out, &c, err, sizeof(err)), GS_EINVAL);
	snprintf(want, sizeof(want), "%s: GPU model 'A100' with 81920 MiB per GPU is not built "
		 "in, and a CSV cluster cannot record memory per GPU: write a JSON cluster instead",
		 out);
	assert_string_equal(err, want);
	assert_int_equal(access(out, F_OK), -1);

	gs_test_path("wc-out.json", out, sizeof(out));
	assert_int_equal(gs_write_cluster_json(out, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out),
			    "{\n  \"gpu_models\": [\n    {\"name\": \"A100\", \"mem_mib\": 81920}\n"
			    "  ],\n  \"nodes\": [\n"
			    "    {\"name\": \"a\", \"cpu_milli\": 1, \"memory_mib\": 2, \"num_gpu\": 2, "
			    "\"gpu_model\": \"A100\"},\n"
			    "    {\"name\": \"n\", \"cpu_milli\": 1, \"memory_mib\": 1, \"num_gpu\": 0}\n"
			    "  ]\n}\n");
	gs_cluster_init(&d);
	assert_int_equal(gs_load_cluster(out, &d, NULL, err, sizeof(err)), 0);
	assert_int_equal(d.nodes[0].gpu_mem_free_mib[1], 81920);
	assert_string_equal(d.node_names[1], "n");
	gs_cluster_release(&d);
	gs_cluster_release(&c);
}

/* --- sharing modes and workload classes ------------------------------------------ */

#define NS_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_model,sharing\n"

static void test_sharing_columns(void **state)
{
	char in[PATH_LEN], out[PATH_LEN];
	struct gs_cluster c, d;

	(void)state;
	/* CSV: one mode per node, one per GPU, or none (the run's default). */
	gs_test_write("share.csv", NS_HDR
		      "h0,64000,524288,2,H100,mig:layout=4g.40gb+3g.40gb\n"
		      "h1,64000,524288,2,H100,exclusive|timeslice:replicas=2\n"
		      "a0,64000,524288,1,A100-80G,\n"
		      "c0,8000,16384,0,,\n", in, sizeof(in));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(in, &c, NULL, err, sizeof(err)), 0);
	assert_non_null(c.share);
	assert_int_equal(gs_cluster_node_mode(&c, 0), GS_SHARE_MIG);
	assert_int_equal(c.share[0].gpu[1].mig.n, 2);
	assert_int_equal(gs_cluster_node_mode(&c, 1), GS_SHARE_MIXED);
	assert_int_equal(gs_cluster_gpu_share(&c, 1, 1)->replicas, 2);
	assert_int_equal(gs_cluster_node_mode(&c, 2), GS_SHARE_DEFAULT);
	/* Written back as read; the JSON writer agrees. */
	gs_test_path("share-out.csv", out, sizeof(out));
	assert_int_equal(gs_write_cluster_csv(out, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out), NS_HDR
			    "h0,64000,524288,2,H100,mig:layout=4g.40gb+3g.40gb\n"
			    "h1,64000,524288,2,H100,exclusive|timeslice:replicas=2\n"
			    "a0,64000,524288,1,A100-80G,\n"
			    "c0,8000,16384,0,,\n");
	gs_test_path("share-out.json", out, sizeof(out));
	assert_int_equal(gs_write_cluster_json(out, &c, err, sizeof(err)), 0);
	gs_cluster_init(&d);
	assert_int_equal(gs_load_cluster(out, &d, NULL, err, sizeof(err)), 0);
	assert_int_equal(gs_cluster_node_mode(&d, 1), GS_SHARE_MIXED);
	assert_string_equal(d.share_cfg[d.share[0].cfg].layout, "4g.40gb+3g.40gb");
	gs_cluster_release(&d);
	gs_cluster_release(&c);

	/* JSON: a string, or an array with one spec per GPU; count replicates it. */
	gs_test_write("share.json", "{\"nodes\": ["
		      "{\"name\": \"h\", \"count\": 2, \"cpu_milli\": 1, \"memory_mib\": 1, "
		      "\"num_gpu\": 2, \"gpu_model\": \"H100\", \"sharing\": \"mps:replicas=7\"},"
		      "{\"name\": \"g\", \"cpu_milli\": 1, \"memory_mib\": 1, \"num_gpu\": 2, "
		      "\"gpu_model\": \"H200\", \"sharing\": [\"mig\", \"vgpu:capped\"]}]}",
		      in, sizeof(in));
	gs_cluster_init(&c);
	assert_int_equal(gs_load_cluster(in, &c, NULL, err, sizeof(err)), 0);
	assert_int_equal(gs_cluster_node_mode(&c, 1), GS_SHARE_MPS);
	assert_int_equal(gs_cluster_gpu_share(&c, 1, 0)->replicas, 7);
	assert_int_equal(gs_cluster_gpu_share(&c, 2, 0)->mode, GS_SHARE_MIG);
	assert_int_equal(gs_cluster_gpu_share(&c, 2, 1)->elastic, 0);
	gs_cluster_release(&c);

	/* Errors name the line and column, or the element and key. */
	nodes_fail("bad1.csv", NS_HDR "t,1,1,2,T4,mig\n", GS_EPARSE,
		   ":2: column sharing: node t: GPU model T4 has no MIG profiles (MIG models: "
		   "A100, A100-40G, A100-80G, H100, H200)");
	nodes_fail("bad2.csv", NS_HDR "h,1,1,2,H100,mig|mig|mig\n", GS_EPARSE,
		   ":2: column sharing: 'mig|mig|mig' has 3 modes for 2 GPUs (give one mode for "
		   "every GPU, or one for the whole node)");
	nodes_fail("bad3.csv", NS_HDR "h,1,1,2,H100,timeslice:replicas=0\n", GS_EPARSE,
		   ":2: column sharing: sharing spec 'timeslice:replicas=0': replicas='0' is out "
		   "of range (1 to 32)");
	nodes_fail("bad4.csv", NS_HDR "c,1,1,0,,exclusive\n", GS_EPARSE,
		   ":2: column sharing: 'exclusive' is not allowed on a node without GPUs");
	nodes_fail("bad5.json", "{\"nodes\": [{\"name\": \"h\", \"cpu_milli\": 1, "
		   "\"memory_mib\": 1, \"num_gpu\": 1, \"gpu_model\": \"H100\", "
		   "\"sharing\": \"mig:layout=4g.40gb+4g.40gb\"}]}", GS_EPARSE,
		   ": nodes[0].sharing: node h: layout '4g.40gb+4g.40gb' does not fit: no free "
		   "valid start for 4g.40gb after the profiles before it");
}

#define NP11_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
		 "deletion_time,class,gpu_need_milli\n"

static void test_classes_and_needs(void **state)
{
	char out[PATH_LEN];
	struct gs_cluster c;
	struct gs_trace t, u;

	(void)state;
	load_pods_ok("classes.csv", NP11_HDR
		     "i0,1000,1024,1,142,8192,,0,100,inference,1000\n"
		     "t0,1000,1024,2,1000,0,,0,100,training,\n"
		     "i1,1000,1024,1,142,0,,5,,inference,\n"
		     "c0,1000,1024,0,0,0,,5,9,,\n", &c, &t);
	assert_int_equal(t.n_classes, 2);
	assert_string_equal(gs_trace_class_name(&t, t.pods[0].wclass), "inference");
	assert_string_equal(gs_trace_class_name(&t, t.pods[1].wclass), "training");
	assert_int_equal(t.pods[2].wclass, t.pods[0].wclass);
	assert_int_equal(t.pods[3].wclass, 0);
	assert_int_equal(t.pods[0].need_milli, 1000);
	assert_int_equal(gs_pod_need_milli(&t.pods[0]), 1000);
	assert_int_equal(gs_pod_need_milli(&t.pods[2]), 142); /* unset: its request */
	gs_test_path("classes-out.csv", out, sizeof(out));
	assert_int_equal(gs_write_trace_csv(out, &t, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out), NP11_HDR
			    "i0,1000,1024,1,142,8192,,0,100,inference,1000\n"
			    "t0,1000,1024,2,1000,0,,0,100,training,\n"
			    "i1,1000,1024,1,142,0,,5,,inference,\n"
			    "c0,1000,1024,0,0,0,,5,9,,\n");
	gs_trace_init(&u);
	assert_int_equal(gs_load_trace(out, &c, &u, err, sizeof(err)), 0);
	assert_memory_equal(u.pods, t.pods, t.n_pods * sizeof(*t.pods));
	gs_trace_release(&u);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	load_pods_ok("classes.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
		     "\"memory_mib\": 1, \"num_gpu\": 1, \"gpu_milli\": 100, \"class\": \"infer\", "
		     "\"gpu_need_milli\": 700}]}", &c, &t);
	assert_string_equal(t.classes[0], "infer");
	assert_int_equal(t.pods[0].need_milli, 700);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	pods_fail("badclass.csv", NP11_HDR "a,1,1,1,100,0,,0,1,Inference,\n", GS_EPARSE,
		  ":2: column class: 'Inference' is not a workload class name (1 to 31 of a-z, "
		  "0-9, '_', '.', '-')");
	pods_fail("badneed.csv", NP11_HDR "a,1,1,0,0,0,,0,1,,500\n", GS_EPARSE,
		  ":2: column gpu_need_milli: '500' is not allowed on a pod without GPUs");
	pods_fail("badneed2.csv", NP11_HDR "a,1,1,1,100,0,,0,1,,1001\n", GS_EPARSE,
		  ":2: column gpu_need_milli: '1001' is greater than 1000");
}

#define NP13_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
		 "deletion_time,class,gpu_need_milli,gpu_busy_milli,gpu_compute_milli\n"

/*
 * The busy fraction and the compute fraction of the sharing model: read
 * from the CSV's last two columns and the JSON keys, written back (13
 * columns only when a pod has one), refused out of range naming the column.
 */
static void test_busy_and_compute(void **state)
{
	char out[PATH_LEN];
	struct gs_cluster c;
	struct gs_trace t, u;

	(void)state;
	load_pods_ok("busy.csv", NP13_HDR
		     "a,1000,1024,1,500,0,,0,100,inference,,250,\n"
		     "b,1000,1024,1,1000,0,,0,100,,,,400\n"
		     "c,1000,1024,1,1000,0,,0,100,,,,\n", &c, &t);
	assert_int_equal(t.pods[0].busy_milli, 250);
	assert_int_equal(t.pods[0].compute_milli, 0);
	assert_int_equal(t.pods[1].busy_milli, 0);
	assert_int_equal(t.pods[1].compute_milli, 400);
	assert_int_equal(t.pods[2].busy_milli, 0);
	gs_test_path("busy-out.csv", out, sizeof(out));
	assert_int_equal(gs_write_trace_csv(out, &t, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out), NP13_HDR
			    "a,1000,1024,1,500,0,,0,100,inference,,250,\n"
			    "b,1000,1024,1,1000,0,,0,100,,,,400\n"
			    "c,1000,1024,1,1000,0,,0,100,,,,\n");
	gs_trace_init(&u);
	assert_int_equal(gs_load_trace(out, &c, &u, err, sizeof(err)), 0);
	assert_memory_equal(u.pods, t.pods, t.n_pods * sizeof(*t.pods));
	gs_trace_release(&u);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	load_pods_ok("busy.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
		     "\"memory_mib\": 1, \"num_gpu\": 1, \"gpu_milli\": 100, "
		     "\"gpu_busy_milli\": 60, \"gpu_compute_milli\": 800}]}", &c, &t);
	assert_int_equal(t.pods[0].busy_milli, 60);
	assert_int_equal(t.pods[0].compute_milli, 800);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	pods_fail("badbusy.csv", NP13_HDR "a,1,1,1,100,0,,0,1,,,1001,\n", GS_EPARSE,
		  ":2: column gpu_busy_milli: '1001' is greater than 1000");
	pods_fail("badbusy2.csv", NP13_HDR "a,1,1,1,100,0,,0,1,,,0,\n", GS_EPARSE,
		  ":2: column gpu_busy_milli: '0' is less than 1");
	pods_fail("badbusy3.csv", NP13_HDR "a,1,1,0,0,0,,0,1,,,500,\n", GS_EPARSE,
		  ":2: column gpu_busy_milli: '500' is not allowed on a pod without GPUs");
	pods_fail("badcompute.csv", NP13_HDR "a,1,1,1,100,0,,0,1,,,,1001\n", GS_EPARSE,
		  ":2: column gpu_compute_milli: '1001' is greater than 1000");
	pods_fail("badbusy.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
		  "\"memory_mib\": 1, \"num_gpu\": 1, \"gpu_milli\": 100, "
		  "\"gpu_busy_milli\": 2000}]}", GS_EPARSE,
		  ": pods[0].gpu_busy_milli: '2000' is greater than 1000");
}

#define NP14_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_mem_mib,gpu_spec,creation_time," \
		 "deletion_time,class,gpu_need_milli,gpu_busy_milli,gpu_compute_milli,pod_group\n"

/* Pod groups: the 14th CSV column and the JSON key, written back as read. */
static void test_pod_groups(void **state)
{
	static const char text[] = NP14_HDR
		"w0,1000,1024,1,1000,0,,0,100,,,,,job-1\n"
		"w1,1000,1024,1,1000,0,,0,100,,,,,job-1\n"
		"solo,1000,1024,1,500,0,,3,,train,,,,\n"
		"x0,1000,1024,2,1000,0,,5,9,,,,,job.2\n";
	char out[PATH_LEN];
	struct gs_cluster c;
	struct gs_trace t, u;

	(void)state;
	load_pods_ok("groups.csv", text, &c, &t);
	assert_int_equal(t.n_groups, 2);
	assert_int_equal(gs_trace_pod_group(&t, 0), 1);
	assert_int_equal(gs_trace_pod_group(&t, 1), 1);
	assert_int_equal(gs_trace_pod_group(&t, 2), 0);
	assert_string_equal(gs_trace_group_name(&t, gs_trace_pod_group(&t, 3)), "job.2");
	gs_test_path("groups-out.csv", out, sizeof(out));
	assert_int_equal(gs_write_trace_csv(out, &t, &c, err, sizeof(err)), 0);
	assert_string_equal(read_all(out), text);
	gs_trace_init(&u);
	assert_int_equal(gs_load_trace(out, &c, &u, err, sizeof(err)), 0);
	assert_int_equal(u.n_groups, 2);
	assert_memory_equal(u.pod_group, t.pod_group, t.n_pods * sizeof(*t.pod_group));
	gs_trace_release(&u);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	/* A trace without groups keeps its 9 columns and has no group array. */
	load_pods_ok("nogroups.csv", NP14_HDR "a,1,1,0,0,0,,0,1,,,,,\n", &c, &t);
	assert_null(t.pod_group);
	assert_int_equal(gs_trace_pod_group(&t, 0), 0);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	load_pods_ok("groups.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
		     "\"memory_mib\": 1, \"num_gpu\": 1, \"pod_group\": \"g\"}, {\"name\": "
		     "\"b\", \"cpu_milli\": 1, \"memory_mib\": 1, \"pod_group\": \"g\"}, "
		     "{\"name\": \"c\", \"cpu_milli\": 1, \"memory_mib\": 1}]}", &c, &t);
	assert_int_equal(t.n_groups, 1);
	assert_int_equal(gs_trace_pod_group(&t, 1), 1);
	assert_int_equal(gs_trace_pod_group(&t, 2), 0);
	gs_trace_release(&t);
	gs_cluster_release(&c);

	pods_fail("badgroup.csv", NP14_HDR "a,1,1,0,0,0,,0,1,,,,,g\"x\n", GS_EPARSE,
		  ":2: column pod_group: 'g\"x' has a quote character; quoted fields are not "
		  "supported");
	pods_fail("badgroup.json", "{\"pods\": [{\"name\": \"a\", \"cpu_milli\": 1, "
		  "\"memory_mib\": 1, \"pod_group\": \"a\\\\b\"}]}", GS_EPARSE,
		  ": pods[0].pod_group: 'a\\b' has a character not allowed in names (a "
		  "control character, a comma, a quote or a backslash)");
}

/* --- SHA-256 ------------------------------------------------------------------- */

static void test_sha256_vectors(void **state)
{
	/* FIPS 180-4 examples (NIST CSRC "Examples with intermediate values"). */
	static const char *const vec[][2] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[65], *million;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		gs_sha256_hex(vec[i][0], strlen(vec[i][0]), hex);
		assert_string_equal(hex, vec[i][1]);
	}
	million = malloc(1000000);
	assert_non_null(million);
	memset(million, 'a', 1000000);
	gs_sha256_hex(million, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

/* Any split of the input into updates gives the same digest (padding edges: 55, 56, 64). */
static void test_sha256_incremental(void **state)
{
	uint8_t msg[200], one[GS_SHA256_BYTES], two[GS_SHA256_BYTES];
	struct gs_sha256 s;
	size_t len, cut;

	(void)state;
	for (len = 0; len < sizeof(msg); len++)
		msg[len] = (uint8_t)(len * 7 + 3);
	for (len = 50; len <= 130; len++) {
		gs_sha256_init(&s);
		gs_sha256_update(&s, msg, len);
		gs_sha256_final(&s, one);
		for (cut = 0; cut <= len; cut += 13) {
			gs_sha256_init(&s);
			gs_sha256_update(&s, msg, cut);
			gs_sha256_update(&s, msg + cut, len - cut);
			gs_sha256_final(&s, two);
			assert_memory_equal(one, two, sizeof(one));
		}
	}
}

static void test_sha256_file(void **state)
{
	char path[PATH_LEN], hex[GS_SHA256_HEX];

	(void)state;
	gs_test_write("empty.bin", "", path, sizeof(path));
	assert_int_equal(gs_sha256_file(path, hex), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* `printf 'gpusim\n' | sha256sum` */
	gs_test_write("word.txt", "gpusim\n", path, sizeof(path));
	assert_int_equal(gs_sha256_file(path, hex), 0);
	assert_string_equal(hex, "e5e453b84ae186a21d2c9f7b39f94da3a5c65cb1a6a99cab10b773edc3d09154");
	gs_test_path("missing.bin", path, sizeof(path));
	assert_int_equal(gs_sha256_file(path, hex), GS_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openb_pods),
		cmocka_unit_test(test_openb_pod_errors),
		cmocka_unit_test(test_pod_file_errors),
		cmocka_unit_test(test_openb_crlf_bom),
		cmocka_unit_test(test_multigpu),
		cmocka_unit_test(test_audit),
		cmocka_unit_test(test_failed_load_restores_models),
		cmocka_unit_test(test_native_pods),
		cmocka_unit_test(test_json_pods),
		cmocka_unit_test(test_json_pod_errors),
		cmocka_unit_test(test_json_by_content),
		cmocka_unit_test(test_openb_nodes),
		cmocka_unit_test(test_node_errors),
		cmocka_unit_test(test_json_cluster),
		cmocka_unit_test(test_json_cluster_errors),
		cmocka_unit_test(test_write_trace_round_trip),
		cmocka_unit_test(test_write_cluster),
		cmocka_unit_test(test_sharing_columns),
		cmocka_unit_test(test_classes_and_needs),
		cmocka_unit_test(test_busy_and_compute),
		cmocka_unit_test(test_pod_groups),
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_incremental),
		cmocka_unit_test(test_sha256_file),
	};

	return cmocka_run_group_tests(tests, setup, gs_test_tmpdir_teardown);
}
