/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dra.c - the structured allocator (io/k8s/dra.h) on the bundled
 * traces/k8s/dra.yaml and on small snapshots written here: the devices
 * each claim gets, worked out by hand from the allocator's documented
 * order (pools by driver and name, slices, devices; first solution wins),
 * with shared counters exhausted, firstAvailable falling back,
 * matchAttribute, allocationMode All, consumable capacity, claims shared
 * by several pods, and what is refused.
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
#include "io/k8s/dra.h"
#include "io/k8s/snapshot.h"
#include "k8s_built.h"
#include "tmpdir.h"

static char err[4096];

/* Builds the bundled DRA snapshot plus `more` (NULL for none). Returns the status. */
static int build(struct k8s_built *b, const char *more)
{
	char *base = gs_test_read(GS_SOURCE_DIR "/traces/k8s/dra.yaml");
	int rc = k8s_built_make(b, err, sizeof(err), "dra.yaml", base, more ? "more.yaml" : NULL,
				more, NULL);

	free(base);
	return rc;
}

/*
 * Places queued pod `name` on the first node that takes it (first fit, so
 * the expected devices follow from the allocator alone). Returns the node,
 * or -1 when none does.
 */
static int32_t place(struct k8s_built *b, const char *name)
{
	struct gs_placement pl;
	size_t i;
	int32_t n;

	for (i = 0; i < b->q.n_pods && strcmp(b->q.pod_names[i], name) != 0; i++)
		;
	if (i == b->q.n_pods)
		fail_msg("no queued pod %s", name);
	for (n = 0; n < b->c.n_nodes; n++) {
		if (gs_cluster_fits(&b->c, n, &b->q.pods[i]) != GS_FIT_OK)
			continue;
		memset(&pl, 0, sizeof(pl));
		pl.node = n;
		assert_int_equal(gs_cluster_bind(&b->c, &b->q.pods[i], &pl), 0);
		return n;
	}
	return -1;
}

static int32_t claim_idx(const struct k8s_built *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->s->n_claims; i++)
		if (!strcmp(b->s->claims[i].o.name, name))
			return (int32_t)i;
	fail_msg("no claim %s", name);
	return -1;
}

/* A claim's devices as "request=pool/device,..." ("-" when not allocated). */
static const char *devices(const struct k8s_built *b, const char *claim)
{
	static char out[1024];
	const struct gs_dra_state *ds = gs_k8s_dra_state(b->st, &b->c);
	const char *req, *drv, *pool, *dev;
	char rb[200];
	int32_t c = claim_idx(b, claim), i;

	out[0] = '\0';
	if (!gs_dra_claim_allocated(ds, c, NULL))
		return "-";
	for (i = 0; gs_dra_claim_result(ds, c, i, &req, rb, sizeof(rb), &drv, &pool, &dev); i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s=%s/%s", i ? "," : "",
			 req, pool, dev);
	return out;
}

/*
 * The bundled snapshot in its arrival order (docs/kubernetes.md): pair
 * takes both 3g.40gb of GPU 1 (GPU 0 is the running llm-gpu's whole, so
 * its counters are spent); small finds no 1g.10gb and no 3g.40gb left
 * (every memory slice of both counter sets is used) and waits; shared-ts
 * (25Gi, rounded up to the 30Gi step) goes to dra-1's shareable GPU, ts-b
 * joins it there; mps-0's claim takes 40Gi more (70 of 80), mps-1's 40Gi
 * would pass 80 and waits.
 */
static void test_bundled(void **state)
{
	struct k8s_built b;
	int32_t dra0, dra1;

	(void)state;
	if (build(&b, NULL))
		fail_msg("%s", err);
	dra0 = gs_cluster_find_node(&b.c, "dra-0");
	dra1 = gs_cluster_find_node(&b.c, "dra-1");
	/* Two GPU units on dra-0 (one per counter set), one on dra-1. */
	assert_int_equal(b.c.nodes[dra0].num_gpu, 2);
	assert_int_equal(b.c.nodes[dra1].num_gpu, 1);
	assert_string_equal(b.c.models.m[b.c.nodes[dra0].model].name, "H100");
	/* The snapshot's allocation, bound with llm-0: GPU 0 of dra-0 whole. */
	assert_string_equal(devices(&b, "llm-gpu"), "gpu=dra-0/gpu-0");
	assert_int_equal(b.c.nodes[dra0].gpu_free_milli[0], 0);
	assert_int_equal(b.c.nodes[dra0].gpu_mem_free_mib[0], 0);
	assert_int_equal(place(&b, "ml/pair-0"), dra0);
	assert_string_equal(devices(&b, "pair"),
			    "mig=dra-0/gpu-1-mig-3g40gb-0,mig=dra-0/gpu-1-mig-3g40gb-4");
	/* Two 3g.40gb: 60 of 132 multiprocessors each, 2 x 455 milli; 80 GiB. */
	assert_int_equal(b.c.nodes[dra0].gpu_free_milli[1], 1000 - 2 * 455);
	assert_int_equal(b.c.nodes[dra0].gpu_mem_free_mib[1], 0);
	assert_int_equal(place(&b, "ml/small-0"), -1);
	assert_string_equal(devices(&b, "small"), "-");
	assert_int_equal(place(&b, "ml/ts-a"), dra1);
	assert_string_equal(devices(&b, "shared-ts"), "gpu=dra-1/gpu-0");
	/* 30Gi of 80Gi: 375 milli and 30720 MiB of the shared GPU. */
	assert_int_equal(b.c.nodes[dra1].gpu_free_milli[0], 1000 - 375);
	assert_int_equal(b.c.nodes[dra1].gpu_mem_free_mib[0], 81920 - 30720);
	/* The second user of the claim costs nothing more and must go where the claim is. */
	assert_int_equal(place(&b, "ml/ts-b"), dra1);
	assert_int_equal(b.c.nodes[dra1].gpu_free_milli[0], 1000 - 375);
	assert_int_equal(gs_dra_claim_users(gs_k8s_dra_state(b.st, &b.c), claim_idx(&b, "shared-ts")),
			 2);
	assert_int_equal(place(&b, "ml/mps-0"), dra1);
	assert_string_equal(devices(&b, "mps-0-gpu"), "gpu=dra-1/gpu-0");
	assert_int_equal(b.c.nodes[dra1].gpu_free_milli[0], 1000 - 375 - 500);
	assert_int_equal(place(&b, "ml/mps-1"), -1);
	/* GpuConfig sharing as gpusim's modes. */
	{
		char spec[GS_SHARE_SPEC_MAX];

		assert_string_equal(gs_share_format(gs_dra_claim_sharing(b.st->dra,
									 claim_idx(&b, "shared-ts")),
						    spec, sizeof(spec)),
				    "timeslice:replicas=2");
		assert_string_equal(gs_share_format(gs_dra_claim_sharing(b.st->dra,
									 claim_idx(&b, "mps-0-gpu")),
						    spec, sizeof(spec)),
				    "mps:replicas=1;threads=50;pinned_mib=20480");
	}
	assert_int_equal(gs_cluster_check(&b.c, err, sizeof(err)), 0);
	k8s_built_free(&b);
}

#define POD(name, t, ref)                                                                   \
	"---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ml, "       \
	"creationTimestamp: \"2025-05-01T" t "Z\"}\nspec:\n  resourceClaims: [{name: c, " ref \
	"}]\n  containers: [{name: m, resources: {claims: [{name: c}]}}]\n"

#define CLAIM(name, devices)                                                               \
	"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name      \
	", namespace: ml}\nspec:\n  devices:\n" devices

/*
 * firstAvailable falls back: after a 3g.40gb at slice 0 and a 1g.10gb at
 * slice 4 of GPU 1, neither 3g.40gb fits (slices 0-3 and 4-7 are each
 * partly used), so "fb" takes its second choice, the next 1g.10gb (slice 5).
 */
static void test_first_available(void **state)
{
	static const char more[] =
		CLAIM("a3g", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			     "mig.nvidia.com\n        selectors: [{cel: {expression: \"device.attributes"
			     "['gpu.nvidia.com'].profile == '3g.40gb'\"}}]\n")
		CLAIM("a1g", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			     "mig.nvidia.com\n        selectors: [{cel: {expression: \"device.attributes"
			     "['gpu.nvidia.com'].profile == '1g.10gb'\"}}]\n")
		CLAIM("fb", "    requests:\n    - name: gpu\n      firstAvailable:\n      - name: big\n"
			    "        deviceClassName: mig.nvidia.com\n        selectors: [{cel: "
			    "{expression: \"device.attributes['gpu.nvidia.com'].profile == "
			    "'3g.40gb'\"}}]\n      - name: little\n        deviceClassName: "
			    "mig.nvidia.com\n        selectors: [{cel: {expression: \"device.attributes"
			    "['gpu.nvidia.com'].profile == '1g.10gb'\"}}]\n")
		POD("p1", "08:00:00", "resourceClaimName: a3g")
		POD("p2", "08:00:01", "resourceClaimName: a1g")
		POD("p3", "08:00:02", "resourceClaimName: fb");
	struct k8s_built b;

	(void)state;
	if (build(&b, more))
		fail_msg("%s", err);
	assert_int_equal(place(&b, "ml/p1"), 0);
	assert_string_equal(devices(&b, "a3g"), "m=dra-0/gpu-1-mig-3g40gb-0");
	assert_int_equal(place(&b, "ml/p2"), 0);
	assert_string_equal(devices(&b, "a1g"), "m=dra-0/gpu-1-mig-1g10gb-4");
	assert_int_equal(place(&b, "ml/p3"), 0);
	assert_string_equal(devices(&b, "fb"), "gpu/little=dra-0/gpu-1-mig-1g10gb-5");
	k8s_built_free(&b);
}

/*
 * matchAttribute keeps a claim's devices on one GPU, and allocationMode All
 * takes every matching device or none: with one 1g.10gb of GPU 1 taken,
 * "all1g" (every 1g.10gb of dra-0) cannot be satisfied; "two1g" (2 x 1g.10gb
 * of one parent) takes slices 5 and 6 of GPU 1.
 */
static void test_match_and_all(void **state)
{
	static const char more[] =
		CLAIM("one1g", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			       "mig.nvidia.com\n        selectors: [{cel: {expression: \"device."
			       "attributes['gpu.nvidia.com'].profile == '1g.10gb'\"}}]\n")
		CLAIM("all1g", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			       "mig.nvidia.com\n        allocationMode: All\n        selectors: [{cel: "
			       "{expression: \"device.attributes['gpu.nvidia.com'].profile == "
			       "'1g.10gb'\"}}]\n")
		CLAIM("two1g", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			       "mig.nvidia.com\n        count: 2\n        selectors: [{cel: {expression: "
			       "\"device.attributes['gpu.nvidia.com'].profile == '1g.10gb'\"}}]\n"
			       "    constraints:\n    - {requests: [m], matchAttribute: "
			       "gpu.nvidia.com/parentUUID}\n")
		POD("q1", "08:00:00", "resourceClaimName: one1g")
		POD("q2", "08:00:01", "resourceClaimName: all1g")
		POD("q3", "08:00:02", "resourceClaimName: two1g");
	struct k8s_built b;

	(void)state;
	if (build(&b, more))
		fail_msg("%s", err);
	assert_int_equal(place(&b, "ml/q1"), 0);
	assert_string_equal(devices(&b, "one1g"), "m=dra-0/gpu-1-mig-1g10gb-4");
	assert_int_equal(place(&b, "ml/q2"), -1);
	assert_int_equal(place(&b, "ml/q3"), 0);
	assert_string_equal(devices(&b, "two1g"),
			    "m=dra-0/gpu-1-mig-1g10gb-5,m=dra-0/gpu-1-mig-1g10gb-6");
	k8s_built_free(&b);
}

/*
 * Consumable capacity on dra-1's shared GPU (80Gi, default 10Gi, steps of
 * 10Gi from 10Gi): 25Gi rounds up to 30Gi, 5Gi up to the 10Gi minimum, no
 * request takes the 10Gi default; 30 + 10 + 10 = 50; 35Gi (40Gi) would
 * pass 80 and does not fit.
 */
static void test_consumable(void **state)
{
	static const char more[] =
		CLAIM("c25", "    requests:\n    - name: g\n      exactly:\n        deviceClassName: "
			     "gpu.nvidia.com\n        selectors: [{cel: {expression: "
			     "device.allowMultipleAllocations}}]\n        capacity: {requests: {memory: "
			     "25Gi}}\n")
		CLAIM("c5", "    requests:\n    - name: g\n      exactly:\n        deviceClassName: "
			    "gpu.nvidia.com\n        selectors: [{cel: {expression: "
			    "device.allowMultipleAllocations}}]\n        capacity: {requests: {memory: "
			    "5Gi}}\n")
		CLAIM("cdef", "    requests:\n    - name: g\n      exactly:\n        deviceClassName: "
			      "gpu.nvidia.com\n        selectors: [{cel: {expression: "
			      "device.allowMultipleAllocations}}]\n")
		CLAIM("c35", "    requests:\n    - name: g\n      exactly:\n        deviceClassName: "
			     "gpu.nvidia.com\n        selectors: [{cel: {expression: "
			     "device.allowMultipleAllocations}}]\n        capacity: {requests: {memory: "
			     "35Gi}}\n")
		POD("r1", "08:00:00", "resourceClaimName: c25")
		POD("r2", "08:00:01", "resourceClaimName: c5")
		POD("r3", "08:00:02", "resourceClaimName: cdef")
		POD("r4", "08:00:03", "resourceClaimName: c35");
	struct k8s_built b;
	int32_t dra1;

	(void)state;
	if (build(&b, more))
		fail_msg("%s", err);
	dra1 = gs_cluster_find_node(&b.c, "dra-1");
	assert_int_equal(place(&b, "ml/r1"), dra1);
	assert_int_equal(place(&b, "ml/r2"), dra1);
	assert_int_equal(place(&b, "ml/r3"), dra1);
	assert_int_equal(b.c.nodes[dra1].gpu_mem_free_mib[0], 81920 - 51200);
	assert_int_equal(b.c.nodes[dra1].gpu_free_milli[0], 1000 - 375 - 125 - 125);
	assert_int_equal(place(&b, "ml/r4"), -1);
	k8s_built_free(&b);
}

/*
 * A node whose driver publishes a whole GPU and a 3g.40gb of it without
 * shared counters: the allocator may give both, but the GPU's share is
 * spent by the first (1000 milli). The filter refuses the second as the
 * bind would, instead of saying it fits and having the bind fail on the
 * cluster's invariant (found by the fuzz target k8s_yaml).
 */
static void test_devices_beyond_the_gpu(void **state)
{
	static const char more[] =
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: dra-2}\nstatus:\n"
		"  allocatable: {cpu: \"64\", memory: 512Gi}\n"
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
		"metadata: {name: dra-2-devices}\nspec:\n  driver: gpu.nvidia.com\n"
		"  nodeName: dra-2\n  pool: {name: dra-2, generation: 1, resourceSliceCount: 1}\n"
		"  devices:\n"
		"  - name: gpu-9\n    attributes:\n      type: {string: gpu}\n"
		"      uuid: {string: GPU-9}\n    capacity:\n      memory: {value: 80Gi}\n"
		"  - name: gpu-9-mig\n    attributes:\n      type: {string: mig}\n"
		"      profile: {string: 3g.40gb}\n      parentUUID: {string: GPU-9}\n"
		"    capacity:\n      memory: {value: 40Gi}\n"
		CLAIM("cw", "    requests:\n    - name: g\n      exactly:\n        deviceClassName: "
			    "gpu.nvidia.com\n        selectors: [{cel: {expression: \"has(device."
			    "attributes['gpu.nvidia.com'].uuid) && device.attributes['gpu.nvidia.com']."
			    "uuid == 'GPU-9'\"}}]\n")
		CLAIM("ch", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			    "mig.nvidia.com\n        selectors: [{cel: {expression: \"device.attributes"
			    "['gpu.nvidia.com'].parentUUID == 'GPU-9'\"}}]\n")
		POD("w", "08:00:00", "resourceClaimName: cw")
		POD("h", "08:00:01", "resourceClaimName: ch");
	struct k8s_built b;
	int32_t dra2;
	size_t h;

	(void)state;
	if (build(&b, more))
		fail_msg("%s", err);
	dra2 = gs_cluster_find_node(&b.c, "dra-2");
	assert_true(dra2 >= 0);
	assert_int_equal(place(&b, "ml/w"), dra2);
	assert_int_equal(b.c.nodes[dra2].gpu_free_milli[0], 0);
	for (h = 0; h < b.q.n_pods && strcmp(b.q.pod_names[h], "ml/h") != 0; h++)
		;
	assert_true(h < b.q.n_pods);
	assert_int_equal(gs_cluster_fits(&b.c, dra2, &b.q.pods[h]), GS_FIT_DEVICES);
	assert_int_equal(place(&b, "ml/h"), -1);
	assert_string_equal(devices(&b, "ch"), "-");
	k8s_built_free(&b);
}

/* What is refused, naming the object, the field and the expression or device. */
static void refused(const char *more, const char *want)
{
	struct k8s_built b;
	int rc = build(&b, more);

	if (rc == 0)
		fail_msg("accepted, want '%s'", want);
	if (strcmp(err, want) != 0)
		fail_msg("got  '%s'\nwant '%s'", err, want);
	k8s_built_free(&b);
}

static void test_refusals(void **state)
{
	(void)state;
	refused(CLAIM("bad", "    requests:\n    - name: m\n      exactly:\n        deviceClassName: "
			     "mig.nvidia.com\n        selectors: [{cel: {expression: \"device.attributes"
			     "['gpu.nvidia.com'].profile.matches('^1g')\"}}]\n"),
		"more.yaml:11: ResourceClaim ml/bad: spec.devices.requests[0].exactly.selectors[0]."
		"cel.expression: CEL expression 'device.attributes['gpu.nvidia.com'].profile."
		"matches('^1g')': unsupported: the method 'matches' (column 44)");
	refused(CLAIM("nocls", "    requests:\n    - name: m\n      exactly: {deviceClassName: "
			       "tpu.example.com}\n"),
		"more.yaml:2: ResourceClaim ml/nocls: spec.devices.requests[0].exactly."
		"deviceClassName: no DeviceClass 'tpu.example.com' in the snapshot");
	refused(POD("lost", "08:00:00", "resourceClaimName: nowhere"),
		"more.yaml:2: Pod ml/lost: spec.resourceClaims[0].resourceClaimName: no "
		"ResourceClaim ml/nowhere in the snapshot");
	refused(CLAIM("twice", "    requests:\n    - name: m\n      exactly: {deviceClassName: "
			       "gpu.nvidia.com}\nstatus:\n  allocation:\n    devices:\n"
			       "      results: [{request: m, driver: gpu.nvidia.com, pool: dra-0, "
			       "device: gpu-0}]\n"),
		"more.yaml:2: ResourceClaim ml/twice: status.allocation.devices.results[0]: device "
		"gpu.nvidia.com/dra-0/gpu-0 is already taken (allocated twice, or its counters are "
		"exhausted)");
	refused(CLAIM("ghost", "    requests:\n    - name: m\n      exactly: {deviceClassName: "
			       "gpu.nvidia.com}\nstatus:\n  allocation:\n    devices:\n"
			       "      results: [{request: m, driver: gpu.nvidia.com, pool: dra-0, "
			       "device: gpu-9}]\n"),
		"more.yaml:2: ResourceClaim ml/ghost: status.allocation.devices.results[0]: no "
		"device gpu.nvidia.com/dra-0/gpu-9 in the snapshot's ResourceSlices");
	refused("apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: x}\n",
		"more.yaml:1: DeviceClass x: apiVersion: 'resource.k8s.io/v1beta1' is not "
		"resource.k8s.io/v1, the version of DeviceClass gpusim reads");
	/* A selector that errors on some device fails the allocation, as in Kubernetes. */
	refused("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: strict}\n"
		"spec:\n  selectors: [{cel: {expression: \"device.attributes['gpu.nvidia.com']."
		"profile == '1g.10gb'\"}}]\n"
		CLAIM("s", "    requests:\n    - {name: m, exactly: {deviceClassName: strict}}\n"),
		"more.yaml:1: DeviceClass strict: spec.selectors[0]: CEL expression 'device."
		"attributes['gpu.nvidia.com'].profile == '1g.10gb'' fails on device "
		"gpu.nvidia.com/dra-0/gpu-0: column 36: no such key: profile");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled),
		cmocka_unit_test(test_first_available),
		cmocka_unit_test(test_match_and_all),
		cmocka_unit_test(test_consumable),
		cmocka_unit_test(test_devices_beyond_the_gpu),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
