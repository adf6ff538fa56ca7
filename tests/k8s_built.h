/* SPDX-License-Identifier: Apache-2.0 */
/*
 * k8s_built.h - what test_k8s.c and test_dra.c share: a snapshot read
 * from texts the test holds, finished and built (io/k8s/build.h) into a
 * cluster, the queue of its pending pods and its devices' state.
 * Test code only, linked into those two programs (tests/CMakeLists.txt).
 */
#ifndef GS_TEST_K8S_BUILT_H
#define GS_TEST_K8S_BUILT_H

#include <stddef.h>

#include "core/cluster.h"
#include "io/k8s/build.h"
#include "io/k8s/snapshot.h"
#include "io/trace/trace.h"

struct k8s_built {
	struct gs_k8s_snapshot *s;
	struct gs_k8s_state *st;
	struct gs_cluster c;
	struct gs_trace q;
};

/*
 * Reads the named texts (name, text, name, text, ..., NULL) into a new
 * snapshot in b, finishes and builds it; the first refusal's message goes
 * to err. Returns 0 or the status of the step that failed; b is to be
 * freed with k8s_built_free() either way. Fails the test when out of
 * memory for the snapshot itself.
 */
int k8s_built_make(struct k8s_built *b, char *err, size_t err_len, ...);

/* Frees what b holds; safe after a failed k8s_built_make(). */
void k8s_built_free(struct k8s_built *b);

#endif
