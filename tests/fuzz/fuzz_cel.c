/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_cel.c - fuzz target: the CEL subset of DRA selectors (io/k8s/cel.h),
 * compiled from the input text and evaluated on a MIG device with
 * attributes of every type and a capacity.
 *
 * Properties: compiling either succeeds or says why; evaluating returns
 * selected, not selected, or a runtime error with a message; the same
 * expression gives the same answer twice.
 */
#include "core/error.h"
#include "fuzz.h"
#include "io/k8s/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_k8s_attr attrs[4] = {
		{ .name = "gpu.nvidia.com/type", .type = GS_K8S_ATTR_STRING, .s = "mig" },
		{ .name = "gpu.nvidia.com/profile", .type = GS_K8S_ATTR_STRING, .s = "1g.10gb" },
		{ .name = "gpu.nvidia.com/driverVersion", .type = GS_K8S_ATTR_VERSION,
		  .s = "570.86.15" },
		{ .name = "gpu.nvidia.com/index", .type = GS_K8S_ATTR_INT, .i = 3 },
	};
	struct gs_k8s_cap caps[1] = { { .name = "gpu.nvidia.com/memory",
					.value = { INT64_C(10737418240), 0 } } };
	struct gs_k8s_device d = { .name = "gpu-3-mig-1g10gb-4", .n_attrs = 4, .attrs = attrs,
				   .n_caps = 1, .caps = caps };
	struct gs_cel_device cd = { "gpu.nvidia.com", &d };
	char *text = malloc(size + 1), err[512];
	struct gs_cel *e;
	int a, b;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	e = gs_cel_compile(text, err, sizeof(err), NULL);
	if (!e) {
		FUZZ_CHECK(err[0] != '\0', "a refused expression without a reason");
		free(text);
		return 0;
	}
	a = gs_cel_eval(e, &cd, err, sizeof(err));
	FUZZ_CHECK(a >= -1 && a <= 1, "eval returned %d", a);
	FUZZ_CHECK(a != -1 || err[0], "a runtime error without a message");
	b = gs_cel_eval(e, &cd, err, sizeof(err));
	FUZZ_CHECK(a == b, "two evaluations differ: %d then %d", a, b);
	gs_cel_free(e);
	free(text);
	return 0;
}
