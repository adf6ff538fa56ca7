/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_k8s.c - Kubernetes snapshots: quantities, the YAML and JSON
 * readers, how nodes, pods and workloads become a gpusim cluster, its
 * starting state and queue (the bundled traces/k8s/cluster.yaml, worked
 * out by hand in docs/kubernetes.md), node selection, and the refusals,
 * with their exact messages since the message is the interface.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/error.h"
#include "io/k8s/build.h"
#include "io/k8s/cel.h"
#include "io/k8s/doc.h"
#include "io/k8s/quantity.h"
#include "io/k8s/snapshot.h"
#include "k8s_built.h"
#include "tmpdir.h"

static char err[4096];

/* --- quantities ------------------------------------------------------------------- */

static void qty_ok(const char *s, int64_t whole, int32_t nano)
{
	struct gs_quantity q;
	const char *why = NULL;

	if (gs_quantity_parse(s, &q, &why) != 0)
		fail_msg("'%s' refused: %s", s, why);
	if (q.whole != whole || q.nano != nano)
		fail_msg("'%s': %lld + %d nano, want %lld + %d", s, (long long)q.whole,
			 (int)q.nano, (long long)whole, (int)nano);
}

static void qty_bad(const char *s, int rc_want, const char *why_want)
{
	struct gs_quantity q;
	const char *why = NULL;
	int rc = gs_quantity_parse(s, &q, &why);

	if (rc != rc_want || strcmp(why, why_want) != 0)
		fail_msg("'%s': %d '%s', want %d '%s'", s, rc, why ? why : "", rc_want, why_want);
}

static void test_quantity(void **state)
{
	struct gs_quantity a, b;
	char buf[GS_QUANTITY_TEXT_MAX];
	int64_t v;
	const char *why;

	(void)state;
	qty_ok("1.5Gi", INT64_C(1610612736), 0);
	qty_ok("500m", 0, 500000000);
	qty_ok("2", 2, 0);
	qty_ok("128974848", 128974848, 0);
	qty_ok("129e6", 129000000, 0);
	qty_ok("129M", 129000000, 0);
	qty_ok("123Mi", INT64_C(128974848), 0);
	qty_ok("0.5", 0, 500000000);
	qty_ok(".5", 0, 500000000);
	qty_ok("1.", 1, 0);
	qty_ok("+3", 3, 0);
	qty_ok("1e-3", 0, 1000000);
	qty_ok("1n", 0, 1);
	qty_ok("0.0000000001", 0, 1);          /* finer than nano rounds up */
	qty_ok("80Gi", INT64_C(85899345920), 0);
	qty_ok("-0", 0, 0);
	qty_bad("1.5Gx", GS_EPARSE, "has an unknown suffix");
	qty_bad("1.5K", GS_EPARSE, "has an unknown suffix");
	qty_bad("", GS_EPARSE, "is not a quantity");
	qty_bad("Gi", GS_EPARSE, "is not a quantity");
	qty_bad("1..5", GS_EPARSE, "is not a quantity");
	qty_bad(" 1", GS_EPARSE, "is not a quantity");
	qty_bad("1 ", GS_EPARSE, "is not a quantity");
	qty_bad("-1", GS_ERANGE, "is negative");
	qty_bad("10Ei", GS_ERANGE, "is too large");
	qty_bad("1e99", GS_ERANGE, "has an exponent out of range");
	/* Conversions: CPU rounds up to milli-cores, memory up to MiB. */
	assert_int_equal(gs_quantity_parse("100.0001m", &a, &why), 0);
	assert_true(gs_quantity_milli(&a, &v));
	assert_int_equal(v, 101);
	assert_int_equal(gs_quantity_parse("1Mi", &a, &why), 0);
	assert_int_equal(gs_quantity_mib(&a), 1);
	assert_int_equal(gs_quantity_parse("1049000", &a, &why), 0);
	assert_int_equal(gs_quantity_mib(&a), 2);
	assert_int_equal(gs_quantity_parse("30Gi", &a, &why), 0);
	assert_int_equal(gs_quantity_parse("40Gi", &b, &why), 0);
	assert_int_equal(gs_quantity_cmp(&a, &b), -1);
	assert_true(gs_quantity_add(&a, &b));
	assert_string_equal(gs_quantity_format(&a, buf, sizeof(buf)), "70Gi");
	gs_quantity_sub(&a, &b);
	gs_quantity_sub(&a, &b);
	assert_true(gs_quantity_is_zero(&a));
	assert_int_equal(gs_quantity_parse("250m", &a, &why), 0);
	assert_string_equal(gs_quantity_format(&a, buf, sizeof(buf)), "250m");
}

/* --- CEL ------------------------------------------------------------------------------ */

static int cel_on(const char *expr, const struct gs_k8s_device *d)
{
	struct gs_cel_device cd = { "gpu.nvidia.com", d };
	struct gs_cel *e = gs_cel_compile(expr, err, sizeof(err), NULL);
	int v;

	if (!e)
		fail_msg("'%s' does not compile: %s", expr, err);
	v = gs_cel_eval(e, &cd, err, sizeof(err));
	gs_cel_free(e);
	return v;
}

static void test_cel(void **state)
{
	struct gs_k8s_attr attrs[4] = {
		{ .name = "gpu.nvidia.com/type", .type = GS_K8S_ATTR_STRING, .s = "mig" },
		{ .name = "gpu.nvidia.com/profile", .type = GS_K8S_ATTR_STRING, .s = "1g.10gb" },
		{ .name = "gpu.nvidia.com/driverVersion", .type = GS_K8S_ATTR_VERSION, .s = "570.86.15" },
		{ .name = "gpu.nvidia.com/index", .type = GS_K8S_ATTR_INT, .i = 3 },
	};
	struct gs_k8s_cap caps[1] = { { .name = "gpu.nvidia.com/memory" } };
	struct gs_k8s_device d = { .name = "gpu-3-mig-1g10gb-4", .n_attrs = 4, .attrs = attrs,
				   .n_caps = 1, .caps = caps };
	const char *why;
	struct gs_cel *e;

	(void)state;
	assert_int_equal(gs_quantity_parse("10Gi", &caps[0].value, &why), 0);
	assert_int_equal(cel_on("device.driver == \"gpu.nvidia.com\" && "
				"device.attributes[\"gpu.nvidia.com\"].type == 'mig'", &d), 1);
	assert_int_equal(cel_on("device.attributes[\"gpu.nvidia.com\"].profile in "
				"['2g.20gb', '3g.40gb']", &d), 0);
	assert_int_equal(cel_on("device.capacity[\"gpu.nvidia.com\"].memory.compareTo("
				"quantity(\"8Gi\")) >= 0", &d), 1);
	assert_int_equal(cel_on("device.capacity['gpu.nvidia.com'].memory.isGreaterThan("
				"quantity('10Gi'))", &d), 0);
	assert_int_equal(cel_on("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan("
				"semver('570.9.0'))", &d), 1);
	assert_int_equal(cel_on("device.attributes['gpu.nvidia.com'].index >= 2 || false", &d), 1);
	assert_int_equal(cel_on("cel.bind(g, device.attributes['gpu.nvidia.com'], g.type == 'mig' "
				"&& g.profile.startsWith('1g'))", &d), 1);
	assert_int_equal(cel_on("has(device.attributes['gpu.nvidia.com'].uuid)", &d), 0);
	assert_int_equal(cel_on("'profile' in device.attributes['gpu.nvidia.com']", &d), 1);
	assert_int_equal(cel_on("!device.allowMultipleAllocations", &d), 1);
	/* A missing attribute is a runtime error, as in Kubernetes, not a false. */
	assert_int_equal(cel_on("device.attributes['gpu.nvidia.com'].uuid == 'x'", &d), -1);
	assert_string_equal(err, "column 36: no such key: uuid");
	/* Outside the subset: refused at compile time, naming what. */
	e = gs_cel_compile("device.attributes['gpu.nvidia.com'].profile.matches('^1g')", err,
			   sizeof(err), NULL);
	assert_null(e);
	assert_string_equal(err, "unsupported: the method 'matches' (column 44)");
	assert_null(gs_cel_compile("device.attributes['a'].n + 1 > 2", err, sizeof(err), NULL));
	assert_string_equal(err, "unsupported: arithmetic ('+' at column 26)");
	assert_null(gs_cel_compile("size(device.attributes) > 0", err, sizeof(err), NULL));
	assert_string_equal(err, "unsupported: the function 'size' (column 1); selectors may call "
				 "quantity(), semver(), has() and cel.bind()");
	assert_null(gs_cel_compile("device.driver == ", err, sizeof(err), NULL));
	assert_string_equal(err, "syntax error at column 18: unexpected 'end'");
	/*
	 * Deep and long selectors: refused at compile time, not by overflowing
	 * the stack when evaluated or freed (the fuzz target cel's 1 400 '!').
	 */
	{
		static char big[200000];
		size_t k, n;

		for (k = 0; k < 1400; k++)
			big[k] = '!';
		strcpy(big + k, "device.allowMultipleAllocations");
		assert_null(gs_cel_compile(big, err, sizeof(err), NULL));
		assert_string_equal(err, "unsupported: nested deeper than 64");
		/* 65 '-' are as deep as 65 '('. */
		memset(big, '-', 65);
		strcpy(big + 65, "1 < 0");
		assert_null(gs_cel_compile(big, err, sizeof(err), NULL));
		assert_string_equal(err, "unsupported: nested deeper than 64");
		/* 200 alternatives joined by '||' compile and find the last one. */
		for (n = 0, k = 0; k < 200; k++)
			n += (size_t)sprintf(big + n, "%sg.profile == '%zug.10gb'", k ? " || " : "",
					     k == 199 ? (size_t)1 : k + 1000);
		assert_true(n < sizeof(big));
		{
			char sel[sizeof(big) + 64];

			snprintf(sel, sizeof(sel), "cel.bind(g, device.attributes['gpu.nvidia.com'], %s)",
				 big);
			assert_int_equal(cel_on(sel, &d), 1);
		}
		/* 300 are deeper than a tree may be; 20 000 more terms than one may have. */
		for (n = 0, k = 0; k < 300; k++)
			n += (size_t)sprintf(big + n, "%sdevice.driver == 'x%zu'", k ? " || " : "", k);
		assert_null(gs_cel_compile(big, err, sizeof(err), NULL));
		assert_string_equal(err, "unsupported: more than 256 operators deep (split the "
					 "selector)");
		for (n = 0, k = 0; k < 20000 && n + 16 < sizeof(big); k++)
			n += (size_t)sprintf(big + n, "%s!false", k ? " && " : "");
		assert_null(gs_cel_compile(big, err, sizeof(err), NULL));
		assert_string_equal(err, "unsupported: more than 4096 terms (split the selector)");
	}
	assert_int_equal(gs_cel_semver_cmp("1.0.0-alpha", "1.0.0"), -1);
	assert_int_equal(gs_cel_semver_cmp("1.0.0-alpha.1", "1.0.0-alpha.beta"), -1);
	assert_int_equal(gs_cel_semver_cmp("1.10.0", "1.9.9"), 1);
	assert_int_equal(gs_cel_semver_cmp("01.0.0", "1.0.0"), -2);
}

/* --- reading and building ------------------------------------------------------------- */

static int32_t node_of(const struct k8s_built *b, const char *name)
{
	int32_t n = gs_cluster_find_node(&b->c, name);

	if (n < 0)
		fail_msg("no node %s", name);
	return n;
}

static size_t pod_of(const struct k8s_built *b, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < b->s->n_pods; i++)
		if (!strcmp(b->s->pods[i].o.ns, ns) && !strcmp(b->s->pods[i].o.name, name))
			return i;
	fail_msg("no pod %s/%s", ns, name);
	return 0;
}

/* The nodes queued pod `name` may use, as "a,b,c". */
static const char *eligible(const struct k8s_built *b, const char *name, char *buf, size_t len)
{
	size_t i;
	int32_t n;

	buf[0] = '\0';
	for (i = 0; i < b->q.n_pods; i++) {
		if (strcmp(b->q.pod_names[i], name) != 0)
			continue;
		for (n = 0; n < b->c.n_nodes; n++)
			if (gs_node_sel_ok(&b->c, &b->c.nodes[n], &b->q.pods[i]))
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? "," : "",
					 b->c.node_names[n]);
		return buf;
	}
	fail_msg("no queued pod %s", name);
	return NULL;
}

/*
 * The bundled cluster (traces/k8s/cluster.yaml) and workloads (web.yaml),
 * every figure worked out by hand in docs/kubernetes.md.
 */
static void test_bundled_cluster(void **state)
{
	char *cluster = gs_test_read(GS_SOURCE_DIR "/traces/k8s/cluster.yaml");
	char *web = gs_test_read(GS_SOURCE_DIR "/traces/k8s/web.yaml");
	char share[256], buf[256];
	struct k8s_built b;
	const struct gs_node *n;
	int32_t k;

	(void)state;
	if (k8s_built_make(&b, err, sizeof(err), "cluster.yaml", cluster, "web.yaml", web, NULL))
		fail_msg("%s", err);
	assert_int_equal(b.c.n_nodes, 6);
	/* Time-slicing from GFD's labels: 8 replicas are 2 T4s of 4 replicas. */
	k = node_of(&b, "ts-0");
	n = &b.c.nodes[k];
	assert_int_equal(n->num_gpu, 2);
	assert_string_equal(b.c.models.m[n->model].name, "T4");
	assert_string_equal(gs_cluster_node_share_text(&b.c, k, share, sizeof(share)), "timeslice");
	assert_int_equal(gs_cluster_gpu_share(&b.c, k, 0)->replicas, 4);
	/* ts-a and ts-b on GPU 0 (the fuller fitting GPU): two replicas of 250 milli. */
	assert_int_equal(n->gpu_free_milli[0], 500);
	assert_int_equal(n->gpu_free_milli[1], 1000);
	assert_int_equal(n->cpu_free_milli, 16000 - 3000);
	/* MPS: one A10 of two replicas. */
	k = node_of(&b, "mps-0");
	assert_int_equal(b.c.nodes[k].num_gpu, 1);
	assert_string_equal(gs_cluster_node_share_text(&b.c, k, share, sizeof(share)),
			    "mps:replicas=2");
	assert_int_equal(b.c.nodes[k].cpu_milli, 7900);
	/* MIG mixed, all-balanced: each H100 3g.40gb+2g.20gb+1g.10gb+1g.10gb; mig-a in a 3g. */
	k = node_of(&b, "mig-0");
	assert_string_equal(gs_cluster_node_share_text(&b.c, k, share, sizeof(share)),
			    "mig:layout=3g.40gb+2g.20gb+1g.10gb+1g.10gb");
	assert_int_equal(b.c.nodes[k].gpu_free_milli[0], 1000 - 428);
	assert_int_equal(b.c.nodes[k].gpu_free_milli[1], 1000);
	/*
	 * gpushare: 32 GiB over 2 cards; share-a holds 8 GiB, half of a 16 GiB V100.
	 * Its GPUs take the asks and hold none of them: vgpu with accuracy 0.
	 */
	k = node_of(&b, "gpushare-0");
	assert_string_equal(b.c.models.m[b.c.nodes[k].model].name, "V100M16");
	assert_string_equal(gs_cluster_node_share_text(&b.c, k, share, sizeof(share)),
			    "vgpu:accuracy=0");
	assert_int_equal(b.c.nodes[k].gpu_free_milli[0], 500);
	assert_int_equal(b.c.nodes[k].gpu_mem_free_mib[0], 16384 - 8192);
	/* HAMi: two V100 32GB vGPU cards; hami-a: 30% of the cores, 8000 MiB. */
	k = node_of(&b, "hami-0");
	assert_int_equal(b.c.nodes[k].num_gpu, 2);
	assert_string_equal(b.c.models.m[b.c.nodes[k].model].name, "V100M32");
	assert_string_equal(gs_cluster_node_share_text(&b.c, k, share, sizeof(share)), "vgpu");
	assert_int_equal(b.c.nodes[k].gpu_free_milli[0], 700);
	assert_int_equal(b.c.nodes[k].gpu_mem_free_mib[0], 32768 - 8000);
	/* etl-0 counts its init container's 6 cores (more than its 4), done-0 nothing. */
	k = node_of(&b, "cpu-0");
	assert_int_equal(b.c.nodes[k].cpu_free_milli, 32000 - 6000);
	assert_int_equal(b.c.nodes[k].mem_free_mib, 131072 - 8192);
	assert_int_equal(b.st->n_running, 6);
	assert_int_equal(b.s->n_finished, 1);
	/* The queue: 5 pending pods by creationTimestamp, then the workloads' 2 + 2 pods. */
	assert_int_equal(b.q.n_pods, 9);
	assert_string_equal(b.q.pod_names[0], "ml/train-ts");
	assert_int_equal(b.q.pods[0].t_create_s, 0);
	assert_int_equal(b.q.pods[1].t_create_s, 30);
	assert_int_equal(b.q.pods[4].t_create_s, 180);
	assert_string_equal(b.q.pod_names[5], "web/web-0");
	assert_int_equal(b.q.pods[5].t_create_s, 0);
	assert_int_equal(b.q.pods[5].cpu_milli, 500);
	assert_string_equal(b.q.pod_names[8], "ml/finetune-1");
	/* Selection: labels, taints with tolerations, published resource names. */
	assert_string_equal(eligible(&b, "ml/train-ts", buf, sizeof(buf)), "ts-0");
	assert_string_equal(eligible(&b, "ml/infer-mig", buf, sizeof(buf)), "mig-0");
	assert_string_equal(eligible(&b, "web/infer-share", buf, sizeof(buf)), "gpushare-0");
	assert_string_equal(eligible(&b, "web/infer-a10", buf, sizeof(buf)), "mps-0");
	assert_string_equal(eligible(&b, "data/batch-cpu", buf, sizeof(buf)),
			    "mps-0,mig-0,gpushare-0,hami-0,cpu-0");
	assert_string_equal(eligible(&b, "ml/finetune-0", buf, sizeof(buf)), "ts-0,mps-0,hami-0");
	/* The MIG pod asks for an H100 1g.10gb: 142 milli and its 9984 MiB (core/mig.c). */
	assert_int_equal(b.q.pods[1].gpu_milli, 142);
	assert_int_equal(b.q.pods[1].gpu_mem_mib, 9984);
	/* 4 GiB of gpushare on 16 GiB cards. */
	assert_int_equal(b.q.pods[2].gpu_milli, 250);
	assert_int_equal(b.q.pods[2].gpu_mem_mib, 4096);
	assert_int_equal(gs_cluster_check(&b.c, err, sizeof(err)), 0);
	(void)pod_of(&b, "ml", "ts-a");
	k8s_built_free(&b);
	free(cluster);
	free(web);
}

/* The same objects as JSON (kubectl get -o json), a single object and several documents. */
static void test_json_and_documents(void **state)
{
	static const char json[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\","
		"\"labels\":{\"pool\":\"a\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\","
		"\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"2\"}}},"
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\","
		"\"namespace\":\"x\"},\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"nvidia.com/gpu\":2,\"cpu\":\"1500m\"}}}]},"
		"\"status\":{\"phase\":\"Running\"}}]}";
	static const char yaml[] =
		"apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus:\n  capacity: {cpu: 2, "
		"memory: 1Gi}\n---\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p2}\nspec:\n"
		"  containers:\n  - name: c\n    resources: {requests: {cpu: 250m}}\n";
	struct k8s_built b;

	(void)state;
	if (k8s_built_make(&b, err, sizeof(err), "a.json", json, "b.yaml", yaml, NULL))
		fail_msg("%s", err);
	assert_int_equal(b.c.n_nodes, 2);
	assert_int_equal(b.c.nodes[0].num_gpu, 2);
	assert_int_equal(b.c.nodes[0].gpu_whole_free, 0);
	assert_int_equal(b.c.nodes[0].cpu_free_milli, 2500);
	assert_int_equal(b.c.nodes[1].mem_mib, 1024);
	assert_int_equal(b.q.n_pods, 1);
	assert_string_equal(b.q.pod_names[0], "default/p2");
	k8s_built_free(&b);
}

/* Refusals: each names the file, the line (YAML), the object and the field. */
static void refused(const char *text, const char *want)
{
	struct k8s_built b;
	int rc = k8s_built_make(&b, err, sizeof(err), "snap.yaml", text, NULL);

	if (rc == 0)
		fail_msg("accepted, want '%s'", want);
	if (strcmp(err, want) != 0)
		fail_msg("got  '%s'\nwant '%s'", err, want);
	k8s_built_free(&b);
}

#define NODE "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"8\", memory: 16Gi, nvidia.com/gpu: \"2\"}\n---\n"

static void test_refusals(void **state)
{
	(void)state;
	refused("a: [1, 2\n", "snap.yaml:2: column 1: YAML syntax error: did not find expected ',' "
			      "or ']' while parsing a flow sequence");
	refused("{\"kind\": \"Node\",}", "snap.yaml:1: JSON syntax error at the end of the file (a "
					 "missing bracket, brace or quote?)");
	refused(NODE "apiVersion: v1\nkind: Secretish\nmetadata: {name: s}\n",
		"snap.yaml:7: Secretish s: kind: 'Secretish' is not a kind gpusim reads (Node, Pod, "
		"Deployment, StatefulSet, ReplicaSet, Job, ConfigMap, ResourceSlice, DeviceClass, "
		"ResourceClaim, ResourceClaimTemplate, or a List of them)");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec:\n"
		     "  containers:\n  - name: c\n    resources:\n      requests: {memory: 1.5Gx}\n",
		"snap.yaml:14: Pod x/p: spec.containers[0].resources.requests[memory]: '1.5Gx' has "
		"an unknown suffix (a quantity is a number with an optional suffix: 500m, 2, 1.5Gi, "
		"64Mi, 1e3)");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: "
		     "[{name: c, resources: {limits: {nvidia.com/gpu: \"0.5\"}}}]\n",
		"snap.yaml:7: Pod default/p: spec.containers[].resources: nvidia.com/gpu: '0 and a "
		"fraction' is not a whole number of GPUs gpusim can place");
	/* Two MIG instances of a seventh each: one pod's GPUs are whole unless it has one. */
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: "
		     "[{name: c, resources: {limits: {nvidia.com/mig-1g.10gb: \"2\"}}}]\n",
		"snap.yaml:7: Pod default/p: spec.containers[].resources: nvidia.com/mig-1g.10gb: "
		"2 instances of less than a whole GPU each: gpusim shares a GPU with one-GPU pods "
		"only (one per pod, or a whole GPU each)");
	/* HAMi's two vGPUs of 30 % of the cores each: the same rule. */
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: "
		     "[{name: c, resources: {limits: {nvidia.com/gpu: \"2\", nvidia.com/gpucores: "
		     "\"30\"}}}]\n",
		"snap.yaml:7: Pod default/p: spec.containers[].resources: nvidia.com/gpu: 2 vGPUs "
		"of less than a whole GPU each: gpusim shares a GPU with one-GPU pods only (one per "
		"pod, or a whole GPU each)");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n"
		     "    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
		     "        nodeSelectorTerms:\n        - matchFields:\n          - {key: "
		     "metadata.name, operator: In, values: [n1]}\n  containers: [{name: c}]\n",
		"snap.yaml:7: Pod default/p: spec.affinity.nodeAffinity.requiredDuringScheduling"
		"IgnoredDuringExecution.nodeSelectorTerms: matchFields is not supported (the pod is "
		"pending, so gpusim would have to place it)");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: n9\n"
		     "  containers: [{name: c}]\n",
		"snap.yaml:7: Pod default/p: spec.nodeName: no Node 'n9' in the snapshot");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: n1\n"
		     "  containers: [{name: c, resources: {requests: {cpu: \"9\"}}}]\nstatus: "
		     "{phase: Running}\n",
		"snap.yaml:7: Pod default/p: spec.nodeName: node n1 has no room for it in gpusim's "
		"accounting (Insufficient cpu): the snapshot holds more than its nodes allocate");
	refused(NODE "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: "
		     "{cpu: \"1\"}}\n",
		"snap.yaml:7: Node n1: metadata.name: a second Node of this name (the first: "
		"snap.yaml:1: Node n1)");
	refused(NODE "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: "
		     "[{name: c}]\n  containers: []\n",
		"snap.yaml:12: duplicate key 'containers' (first on line 11)");
	refused(NODE "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: p}\n",
		"snap.yaml:7: Pod default/p: apiVersion: 'apps/v1' is not v1, the version of Pod "
		"gpusim reads");
	refused("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a, "
		"effect: Sometimes}]\nstatus: {allocatable: {cpu: \"1\"}}\n",
		"snap.yaml:5: Node n1: spec.taints[0].effect: 'Sometimes' is not a taint effect "
		"(NoSchedule, PreferNoSchedule or NoExecute)");
	refused("x: &a 1\ny: *a\n", "snap.yaml:2: YAML aliases ('*name') are not supported: spell "
				    "the value out");
	refused("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
		"snap.yaml: no Node in the snapshot (kubectl get nodes -o yaml gives them)");
	refused(NODE "apiVersion: v1\nkind: List\nitems:\n- 42\n",
		"snap.yaml:10: a List item that is not an object");
	/* Ten billion MIG instances on two GPUs: refused at once (the layout search ran for hours). */
	refused("apiVersion: v1\nkind: Node\nmetadata:\n  name: m\n  labels: {nvidia.com/gpu.product: "
		"NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: \"2\", nvidia.com/mig.strategy: mixed}\n"
		"status:\n  allocatable: {cpu: \"8\", memory: 16Gi, nvidia.com/gpu: \"0\", "
		"nvidia.com/mig-1g.10gb: \"9999999999\"}\n",
		"snap.yaml:1: Node m: status.allocatable: its MIG instances cannot be laid out on 2 "
		"H100 80GB GPUs (at most 7 each)");
	refused("apiVersion: v1\nkind: Node\nmetadata:\n  name: m\n  labels: {nvidia.com/gpu.product: "
		"NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: \"2\", nvidia.com/mig.strategy: mixed}\n"
		"status:\n  allocatable: {cpu: \"8\", memory: 16Gi, nvidia.com/gpu: \"0\", "
		"nvidia.com/mig-1g.10gb: \"10\", nvidia.com/mig-2g.20gb: \"5\"}\n",
		"snap.yaml:1: Node m: status.allocatable: its MIG instances cannot be laid out on 2 "
		"H100 80GB GPUs (at most 7 each)");
}

/* Device plugin settings from its ConfigMap when GPU feature discovery's labels are absent. */
static void test_plugin_configmap(void **state)
{
	static const char text[] =
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plugin-cfg, namespace: "
		"gpu-operator}\ndata:\n  any: |-\n    version: v1\n    flags:\n      migStrategy: none\n"
		"    sharing:\n      mps:\n        resources:\n        - name: nvidia.com/gpu\n"
		"          replicas: 3\n---\n"
		"apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: "
		"{nvidia.com/device-plugin.config: any, nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}"
		"\nstatus:\n  allocatable: {cpu: \"8\", memory: 16Gi, nvidia.com/gpu: \"6\"}\n";
	char share[128];
	struct k8s_built b;

	(void)state;
	if (k8s_built_make(&b, err, sizeof(err), "cm.yaml", text, NULL))
		fail_msg("%s", err);
	assert_int_equal(b.c.nodes[0].num_gpu, 2);
	assert_string_equal(b.c.models.m[b.c.nodes[0].model].name, "A100-80G");
	assert_string_equal(gs_cluster_node_share_text(&b.c, 0, share, sizeof(share)),
			    "mps:replicas=3");
	assert_string_equal(b.st->nodes[0].source, "plugin-cfg");
	k8s_built_free(&b);
}

/* Workloads whose pods the snapshot already has are not expanded again. */
static void test_live_workloads(void **state)
{
	static const char text[] =
		NODE
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: x, uid: u-d}\n"
		"spec:\n  replicas: 3\n  template:\n    spec: {containers: [{name: c}]}\n---\n"
		"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: d-5f\n  namespace: x\n"
		"  uid: u-rs\n  ownerReferences: [{kind: Deployment, name: d, uid: u-d, controller: "
		"true}]\nspec:\n  replicas: 3\n  template:\n    spec: {containers: [{name: c}]}\n---\n"
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: d-5f-abc\n  namespace: x\n"
		"  ownerReferences: [{kind: ReplicaSet, name: d-5f, uid: u-rs, controller: true}]\n"
		"spec: {nodeName: n1, containers: [{name: c}]}\nstatus: {phase: Running}\n---\n"
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, namespace: x}\nspec:\n"
		"  replicas: 2\n  template:\n    spec: {containers: [{name: c, resources: {requests: "
		"{cpu: 100m}}}]}\n";
	struct k8s_built b;

	(void)state;
	if (k8s_built_make(&b, err, sizeof(err), "w.yaml", text, NULL))
		fail_msg("%s", err);
	assert_int_equal(b.st->n_running, 1);
	assert_int_equal(b.q.n_pods, 2);
	assert_string_equal(b.q.pod_names[0], "x/s-0");
	assert_string_equal(b.q.pod_names[1], "x/s-1");
	assert_int_equal(b.s->n_expanded, 2);
	k8s_built_free(&b);
}

/* Sidecars (restartPolicy Always) count beside the app; overhead adds. */
static void test_pod_requests(void **state)
{
	static const char text[] =
		NODE
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  overhead: {cpu: 250m}\n"
		"  initContainers:\n  - {name: proxy, restartPolicy: Always, resources: {requests: "
		"{cpu: \"1\", memory: 1Gi}}}\n  - {name: init, resources: {requests: {cpu: \"3\", "
		"memory: 1Gi}}}\n  containers:\n  - {name: a, resources: {requests: {cpu: \"1\", "
		"memory: 2Gi}}}\n  - {name: b, resources: {limits: {cpu: 500m, memory: 1Gi}}}\n";
	struct k8s_built b;

	(void)state;
	if (k8s_built_make(&b, err, sizeof(err), "r.yaml", text, NULL))
		fail_msg("%s", err);
	/* max(app 1.5 + sidecar 1, init 3 + sidecar 1) + overhead 0.25 = 4.25 cores. */
	assert_int_equal(b.q.pods[0].cpu_milli, 4250);
	/* max(3 + 1, 1 + 1) GiB. */
	assert_int_equal(b.q.pods[0].mem_mib, 4096);
	k8s_built_free(&b);
}

/* Keeps the text of the numbers of the one object read. */
static int numbers_of(void *arg, const struct gs_kdoc *obj, int64_t index, int doc)
{
	char *out = arg;

	(void)index;
	(void)doc;
	snprintf(out, 256, "%s|%s|%s|%s", gs_kdoc_str(obj, "huge"), gs_kdoc_str(obj, "whole"),
		 gs_kdoc_str(obj, "low"), gs_kdoc_str(obj, "half"));
	return 0;
}

/*
 * JSON numbers become the text YAML would give: whole ones as integers,
 * others (fractions, and magnitudes beyond int64_t, whose conversion
 * would be undefined: fuzz_k8s_json found 1.1e63 under UBSan) as %.17g.
 */
static void test_json_numbers(void **state)
{
	static const char text[] =
		"{\"kind\": \"Node\", \"huge\": "
		"1111111111111111111111111111111111111111111111111111111111111111, "
		"\"whole\": 42, \"low\": -9300000000000000000, \"half\": 0.5}";
	char out[256] = "", why[256];

	(void)state;
	assert_int_equal(gs_kdoc_read("n.json", text, sizeof(text) - 1, numbers_of, out, why,
				      sizeof(why)), 0);
	assert_string_equal(out, "1.1111111111111112e+63|42|-9.3e+18|0.5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantity),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_cel),
		cmocka_unit_test(test_bundled_cluster),
		cmocka_unit_test(test_json_and_documents),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_plugin_configmap),
		cmocka_unit_test(test_live_workloads),
		cmocka_unit_test(test_pod_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
