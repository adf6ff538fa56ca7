/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_k8s.c - how long a large Kubernetes snapshot takes to load: writes
 * a synthetic cluster of NODES nodes and PODS pods as `kubectl get
 * nodes,pods -A -o yaml` and `-o json` would print them (the fields gpusim
 * reads plus the usual metadata: labels, uid, owner, timestamps, image,
 * tolerations, conditions), then reads, finishes and builds each file
 * REPEATS times (gs_k8s_load(): parse, map, node groups, bind the running
 * pods, queue the pending ones) and reports the median, min and max.
 *
 *   bench_k8s [NODES] [PODS] [REPEATS] [DIR]     (5000, 100000, 5, $TMPDIR)
 *
 * The mix: 40% time-sliced T4 nodes (8 GPUs x 4 replicas), 20% whole A100
 * nodes (8), 15% MIG H100 nodes (8 GPUs, all-balanced), 10% gpushare V100
 * nodes (4 x 16 GiB), 5% HAMi V100 nodes (8), 10% CPU nodes; GPU nodes are
 * tainted. 70% of the pods run, filling their nodes within allocatable;
 * 30% are pending, some with node selectors. Deterministic.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "io/k8s/build.h"
#include "bench_time.h"

enum kind { TS, WHOLE, MIG, SHARE, HAMI, CPU };

static enum kind kind_of(int i)
{
	int k = i % 20;

	return k < 8 ? TS : k < 12 ? WHOLE : k < 15 ? MIG : k < 17 ? SHARE : k < 18 ? HAMI : CPU;
}

static uint64_t rng = 42;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The JSON being written. */
struct out {
	FILE *f;
	bool json;
};

static void node(struct out *o, int i)
{
	static const char *const prod[] = { "Tesla-T4-SHARED", "NVIDIA-A100-SXM4-80GB",
					    "NVIDIA-H100-80GB-HBM3", "Tesla-V100-SXM2-16GB", "", "" };
	enum kind k = kind_of(i);
	char gpu[256] = "";

	switch (k) {
	case TS:
		snprintf(gpu, sizeof(gpu), "\"nvidia.com/gpu\": \"32\"");
		break;
	case WHOLE:
		snprintf(gpu, sizeof(gpu), "\"nvidia.com/gpu\": \"8\"");
		break;
	case MIG:
		snprintf(gpu, sizeof(gpu), "\"nvidia.com/gpu\": \"0\", \"nvidia.com/mig-1g.10gb\": "
			 "\"16\", \"nvidia.com/mig-2g.20gb\": \"8\", \"nvidia.com/mig-3g.40gb\": \"8\"");
		break;
	case SHARE:
		snprintf(gpu, sizeof(gpu), "\"aliyun.com/gpu-count\": \"4\", \"aliyun.com/gpu-mem\": "
			 "\"64\"");
		break;
	case HAMI:
		snprintf(gpu, sizeof(gpu), "\"nvidia.com/gpu\": \"80\"");
		break;
	default:
		break;
	}
	fprintf(o->f, "%s{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": "
		"\"node-%05d\", \"uid\": \"5f0c%08x-node\", \"creationTimestamp\": "
		"\"2025-01-01T00:00:00Z\", \"labels\": {\"kubernetes.io/hostname\": \"node-%05d\", "
		"\"kubernetes.io/os\": \"linux\", \"kubernetes.io/arch\": \"amd64\", "
		"\"topology.kubernetes.io/zone\": \"zone-%d\", \"node.kubernetes.io/instance-type\": "
		"\"type-%d\", \"pool\": \"pool-%d\"",
		i ? ",\n" : "", i, (unsigned)i, i, i % 3, (int)k, i % 7);
	if (k == TS)
		fprintf(o->f, ", \"nvidia.com/gpu.product\": \"%s\", \"nvidia.com/gpu.count\": \"8\", "
			"\"nvidia.com/gpu.replicas\": \"4\", \"nvidia.com/gpu.memory\": \"15360\", "
			"\"nvidia.com/gpu.sharing-strategy\": \"time-slicing\"", prod[k]);
	else if (k == WHOLE || k == MIG || k == SHARE)
		fprintf(o->f, ", \"nvidia.com/gpu.product\": \"%s\"%s", prod[k],
			k == MIG ? ", \"nvidia.com/gpu.count\": \"8\", \"nvidia.com/mig.strategy\": "
				   "\"mixed\", \"nvidia.com/mig.config\": \"all-balanced\"" : "");
	fprintf(o->f, "}");
	if (k == HAMI) {
		int g;

		fprintf(o->f, ", \"annotations\": {\"hami.io/node-nvidia-register\": \"");
		for (g = 0; g < 8; g++)
			fprintf(o->f, "GPU-%05d-%d,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:", i, g);
		fprintf(o->f, "\"}");
	}
	fprintf(o->f, "}, \"spec\": {\"podCIDR\": \"10.%d.%d.0/24\"%s}, \"status\": {\"capacity\": "
		"{\"cpu\": \"64\", \"memory\": \"512Gi\", \"pods\": \"110\"}, \"allocatable\": "
		"{\"cpu\": \"63500m\", \"memory\": \"500Gi\", \"pods\": \"110\", "
		"\"ephemeral-storage\": \"900Gi\"%s%s}, \"conditions\": [{\"type\": \"Ready\", "
		"\"status\": \"True\"}]}}%s",
		i / 256, i % 256,
		k != CPU ? ", \"taints\": [{\"key\": \"nvidia.com/gpu\", \"value\": \"present\", "
			   "\"effect\": \"NoSchedule\"}]" : "",
		*gpu ? ", " : "", gpu, "");
}

struct fill {
	int gpu_used;
};

/* One pod: running on node n, or pending when n < 0; gpu_req and selector are JSON members. */
static void pod(struct out *o, int i, int n, const char *gpu_req, const char *selector)
{
	char node_name[64] = "";

	if (n >= 0)
		snprintf(node_name, sizeof(node_name), "\"nodeName\": \"node-%05d\", ", n);
	fprintf(o->f, "%s{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": "
		"\"job-%06d\", \"namespace\": \"team-%d\", \"uid\": \"9a1e%08x-pod\", "
		"\"creationTimestamp\": \"2025-05-01T%02d:%02d:%02dZ\", \"labels\": {\"app\": "
		"\"app-%d\", \"pod-template-hash\": \"7c9f%04x\"}, \"ownerReferences\": "
		"[{\"apiVersion\": \"apps/v1\", \"kind\": \"ReplicaSet\", \"name\": \"app-%d-7c9f\", "
		"\"uid\": \"rs-%d\", \"controller\": true}]}, \"spec\": {%s%s\"containers\": "
		"[{\"name\": \"main\", \"image\": \"registry.example.com/team/app:%d\", "
		"\"resources\": {\"requests\": {\"cpu\": \"%dm\", \"memory\": \"%dMi\"}%s%s%s}}], "
		"\"tolerations\": [{\"key\": \"nvidia.com/gpu\", \"operator\": \"Exists\", "
		"\"effect\": \"NoSchedule\"}, {\"key\": \"node.kubernetes.io/not-ready\", "
		"\"operator\": \"Exists\", \"effect\": \"NoExecute\", \"tolerationSeconds\": 300}]}, "
		"\"status\": {\"phase\": \"%s\"%s}}",
		i ? ",\n" : "", i, i % 40, (unsigned)i, (i / 3600) % 24, (i / 60) % 60, i % 60, i % 500,
		(unsigned)(i % 65536), i % 500, i % 500, node_name, selector, i % 50,
		100 + (int)rnd(4) * 100, 256 + (int)rnd(4) * 256, gpu_req ? ", \"limits\": {" : "",
		gpu_req ? gpu_req : "", gpu_req ? "}" : "", n >= 0 ? "Running" : "Pending",
		n >= 0 ? ", \"startTime\": \"2025-05-01T00:00:10Z\", \"conditions\": [{\"type\": "
			 "\"Ready\", \"status\": \"True\"}]" : "");
}

/* The snapshot as kubectl's JSON: a List of the nodes, then the pods. */
static int write_json(const char *path, int n_nodes, int n_pods)
{
	struct out o = { fopen(path, "w"), true };
	struct fill *fill = calloc((size_t)n_nodes, sizeof(*fill));
	int i, running = n_pods * 7 / 10, placed = 0;

	if (!o.f || !fill)
		return -1;
	rng = 42;
	fprintf(o.f, "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n");
	for (i = 0; i < n_nodes; i++)
		node(&o, i);
	fprintf(o.f, ",\n");
	for (i = 0; i < n_pods; i++) {
		const char *req = NULL, *sel = "";
		char pool[96];
		int n = -1;

		if (placed < running) {
			/* Round robin over the nodes: each gets its share, well within allocatable. */
			enum kind k;

			n = placed++ % n_nodes;
			k = kind_of(n);
			if (fill[n].gpu_used < 8 && k != CPU && rnd(2)) {
				req = k == TS || k == WHOLE ? "\"nvidia.com/gpu\": \"1\""
				      : k == MIG ? "\"nvidia.com/mig-1g.10gb\": \"1\""
				      : k == SHARE ? "\"aliyun.com/gpu-mem\": \"4\""
						   : "\"nvidia.com/gpu\": \"1\", \"nvidia.com/gpumem\": "
						     "\"4000\"";
				fill[n].gpu_used++;
			}
		} else if (i % 5 == 0) {
			req = "\"nvidia.com/gpu\": \"1\"";
			sel = "\"nodeSelector\": {\"nvidia.com/gpu.sharing-strategy\": \"time-slicing\"}, ";
		} else if (i % 5 == 1) {
			req = "\"nvidia.com/mig-3g.40gb\": \"1\"";
		} else if (i % 5 == 2) {
			req = "\"nvidia.com/gpu\": \"2\"";
			snprintf(pool, sizeof(pool), "\"nodeSelector\": {\"pool\": \"pool-%d\"}, ", i % 7);
			sel = pool;
		}
		pod(&o, i, n, req, sel);
	}
	fprintf(o.f, "]}\n");
	free(fill);
	return fclose(o.f);
}

/* v as block YAML, the way kubectl -o yaml writes it, at indentation ind. */
static void yaml_value(FILE *f, const cJSON *v, int ind, bool in_seq);

static void yaml_scalar(FILE *f, const cJSON *v)
{
	if (cJSON_IsString(v))
		fprintf(f, "\"%s\"\n", v->valuestring);
	else if (cJSON_IsBool(v))
		fprintf(f, "%s\n", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v))
		fprintf(f, "%lld\n", (long long)v->valuedouble);
	else
		fprintf(f, "null\n");
}

static void yaml_value(FILE *f, const cJSON *v, int ind, bool in_seq)
{
	const cJSON *c;
	bool first = true;

	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(c, v) {
			fprintf(f, "%*s%s:", first && in_seq ? 0 : ind, "", c->string);
			first = false;
			if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && c->child) {
				fputc('\n', f);
				yaml_value(f, c, ind + 2, false);
			} else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
				fprintf(f, " %s\n", cJSON_IsObject(c) ? "{}" : "[]");
			} else {
				fputc(' ', f);
				yaml_scalar(f, c);
			}
		}
	} else if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(c, v) {
			fprintf(f, "%*s- ", ind, "");
			if (cJSON_IsObject(c))
				yaml_value(f, c, ind + 2, true);
			else
				yaml_scalar(f, c);
		}
	}
}

static int write_yaml(const char *json_path, const char *path)
{
	FILE *in = fopen(json_path, "rb"), *f;
	char *text;
	long n;
	cJSON *root;

	if (!in)
		return -1;
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	fseek(in, 0, SEEK_SET);
	text = malloc((size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, in) != (size_t)n) {
		fclose(in);
		free(text);
		return -1;
	}
	text[n] = '\0';
	fclose(in);
	root = cJSON_Parse(text);
	free(text);
	f = fopen(path, "w");
	if (!root || !f)
		return -1;
	yaml_value(f, root, 0, false);
	cJSON_Delete(root);
	return fclose(f);
}

static int bench(const char *path, int repeats)
{
	double ms[64];
	char err[2048];
	int r;
	long size;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	for (r = 0; r < repeats; r++) {
		struct gs_k8s_snapshot *s;
		struct gs_k8s_state *st;
		struct gs_cluster c;
		struct gs_trace q;
		const char *paths[1] = { path };
		double t0 = gs_clock_ms();

		gs_cluster_init(&c);
		gs_trace_init(&q);
		if (gs_k8s_load(paths, 1, &s, &c, &q, &st, err, sizeof(err))) {
			fprintf(stderr, "bench_k8s: %s\n", err);
			return 1;
		}
		ms[r] = gs_clock_ms() - t0;
		if (r == 0)
			printf("%s: %.1f MB, %d nodes, %zu running pods, %zu pending\n", path,
			       (double)size / 1e6, (int)c.n_nodes, st->n_running, st->n_queue);
		gs_k8s_state_free(st);
		gs_k8s_snapshot_free(s);
		gs_trace_release(&q);
		gs_cluster_release(&c);
	}
	qsort(ms, (size_t)repeats, sizeof(*ms), bench_cmp_double);
	printf("  load (read, map, build, bind): median %8.1f ms  min %8.1f  max %8.1f  (%d runs)\n",
	       ms[repeats / 2], ms[0], ms[repeats - 1], repeats);
	return 0;
}

int main(int argc, char **argv)
{
	int n_nodes = argc > 1 ? atoi(argv[1]) : 5000, n_pods = argc > 2 ? atoi(argv[2]) : 100000;
	int repeats = argc > 3 ? atoi(argv[3]) : 5;
	const char *dir = argc > 4 ? argv[4] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char yaml[512], json[512];
	int rc;

	if (n_nodes < 1 || n_pods < 0 || repeats < 1 || repeats > 64) {
		fprintf(stderr, "usage: bench_k8s [NODES] [PODS] [REPEATS (1-64)] [DIR]\n");
		return 2;
	}
	snprintf(yaml, sizeof(yaml), "%s/gpusim-bench-k8s-%d.yaml", dir, (int)getpid());
	snprintf(json, sizeof(json), "%s/gpusim-bench-k8s-%d.json", dir, (int)getpid());
	if (write_json(json, n_nodes, n_pods) || write_yaml(json, yaml)) {
		fprintf(stderr, "bench_k8s: cannot write the snapshots in %s\n", dir);
		return 1;
	}
	rc = bench(json, repeats) || bench(yaml, repeats);
	if (getenv("GS_BENCH_KEEP"))
		printf("kept %s and %s\n", json, yaml);
	else {
		unlink(yaml);
		unlink(json);
	}
	return rc;
}
