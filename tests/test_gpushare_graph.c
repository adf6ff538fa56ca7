/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_graph.c - libgpushare charges graph memory however a graph
 * gets it, without a GPU: memory nodes added by the generic entry points
 * (cuGraphAddNode and its _v2, which cudaGraphAddNode calls), a child
 * graph moved into its parent, node parameters changed in a graph or an
 * executable graph, and cudaMallocAsync captured from a stream, into a
 * graph of the capture's or one of the caller's, then instantiated.
 * Like test_gpushare_hook.c, this program links the fake driver and runs
 * with LD_PRELOAD=libgpushare.so; each case runs in a child
 * (gpushare_child.h) with an 8 MiB pod limit unless it says otherwise.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_cuda.h"
#include "gpushare_child.h"
#include "tmpdir.h"

static const char *const limit_8[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "8",
				       NULL };

#define STREAM ((CUstream)(uintptr_t)0x5000)

/* Parameters of a memory allocation node of bytes on device 0, for cuGraphAddNode. */
static void alloc_params(CUgraphNodeParams *p, uint64_t bytes)
{
	memset(p, 0, sizeof(*p));
	p->type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	p->alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p->alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p->alloc.poolProps.location.id = 0;
	p->alloc.bytesize = bytes;
}

static CUresult add_alloc(CUgraphNode *n, CUgraph g, uint64_t bytes)
{
	CUgraphNodeParams p;

	alloc_params(&p, bytes);
	return cuGraphAddNode(n, g, NULL, 0, &p);
}

/* The same through the entry point for memory nodes alone. */
static CUresult add_mem_alloc_node(CUgraphNode *n, CUgraph g, uint64_t bytes)
{
	CUgraphNodeParams p;

	alloc_params(&p, bytes);
	return cuGraphAddMemAllocNode(n, g, NULL, 0, (CUDA_MEM_ALLOC_NODE_PARAMS *)&p.alloc);
}

/* What a runtime built against CUDA 12.3 or later calls for cudaGraphAddNode. */
static CUresult add_alloc_runtime(CUgraphNode *n, CUgraph g, uint64_t bytes)
{
	CUresult(CUDAAPI * add)(CUgraphNode *, CUgraph, const CUgraphNode *,
				const CUgraphEdgeData *, size_t, CUgraphNodeParams *);
	CUdriverProcAddressQueryResult status;
	CUgraphNodeParams p;
	void *fn = NULL;

	CHECK_EQ(cuGetProcAddress_v2("cuGraphAddNode", &fn, 13000, 0, &status), CUDA_SUCCESS);
	add = (CUresult(CUDAAPI *)(CUgraphNode *, CUgraph, const CUgraphNode *,
				   const CUgraphEdgeData *, size_t, CUgraphNodeParams *))fn;
	alloc_params(&p, bytes);
	return add(n, g, NULL, NULL, 0, &p);
}

/*
 * The case: 6 + 6 + 16 MiB of memory nodes under an 8 MiB limit,
 * through cuGraphAddNode, cuGraphAddNode_v2 and the runtime's route. Only
 * the first fits; its bytes live as cuGraphAddMemAllocNode's do.
 */
static int generic_add_node(void *arg)
{
	CUgraphNodeParams p;
	CUgraphNode n1, n2, n3, empty;
	CUgraphExec x;
	CUgraph g;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CHECK_EQ(add_alloc(&n1, g, 6 * MIB), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 2 * MIB);
	alloc_params(&p, 6 * MIB);
	CHECK_EQ(cuGraphAddNode_v2(&n2, g, NULL, NULL, 0, &p), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(add_alloc_runtime(&n3, g, 16 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(fakecuda_graph_nodes(g), 1);
	/* Other node types cost nothing. */
	memset(&p, 0, sizeof(p));
	p.type = CU_GRAPH_NODE_TYPE_EMPTY;
	CHECK_EQ(cuGraphAddNode(&empty, g, NULL, 0, &p), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 2 * MIB);
	/* Instantiated, then gone: the device's graph pool keeps it until trimmed. */
	CHECK_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuGraphExecDestroy(x), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 2 * MIB);
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	/* A graph never instantiated gives its nodes' bytes back when destroyed. */
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	alloc_params(&p, 8 * MIB);
	CHECK_EQ(cuGraphAddNode_v2(&n2, g, NULL, NULL, 0, &p), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 0);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	return 0;
}

GS_CHILD_TEST(test_generic_add_node, generic_add_node, limit_8)

/*
 * A graph with memory nodes becomes a child only by moving into its parent
 * (CUDA 12.9), which then owns and destroys it: its bytes go with the
 * parent, and come back when the parent is gone.
 */
static int child_graph_moved(void *arg)
{
	CUgraphNodeParams p;
	CUgraph child, parent, clone_parent;
	CUgraphNode n, c;
	CUgraphExec x;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	CHECK_EQ(add_mem_alloc_node(&n, child, 5 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&parent, 0), CUDA_SUCCESS);
	memset(&p, 0, sizeof(p));
	p.type = CU_GRAPH_NODE_TYPE_GRAPH;
	p.graph.graph = child;
	p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
	CHECK_EQ(cuGraphAddNode(&c, parent, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
	p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
	CHECK_EQ(cuGraphAddNode(&c, parent, NULL, 0, &p), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 3 * MIB);
	/* The parent never instantiated: destroying it returns the child's bytes. */
	CHECK_EQ(cuGraphDestroy(parent), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	/* Instantiated: the executable graph keeps them, then the graph pool. */
	CHECK_EQ(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	CHECK_EQ(add_mem_alloc_node(&n, child, 5 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&clone_parent, 0), CUDA_SUCCESS);
	p.graph.graph = child;
	CHECK_EQ(cuGraphAddNode_v2(&c, clone_parent, NULL, NULL, 0, &p), CUDA_SUCCESS);
	CHECK_EQ(cuGraphInstantiateWithFlags(&x, clone_parent, 0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphDestroy(clone_parent), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 3 * MIB);
	CHECK_EQ(cuGraphExecDestroy(x), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	return 0;
}

GS_CHILD_TEST(test_child_graph_moved, child_graph_moved, limit_8)

/*
 * The driver refuses new parameters for a memory node; were it to accept
 * them (FAKECUDA_GRAPH_SET_ALLOC=1, a driver that allowed it), the node's
 * new size is charged before, and refused beyond the limit.
 */
static int set_params(void *arg)
{
	int driver_allows = arg != NULL;
	CUgraphNodeParams p;
	CUgraphNode n;
	CUgraphExec x;
	CUgraph g;

	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CHECK_EQ(add_alloc(&n, g, 2 * MIB), CUDA_SUCCESS);
	alloc_params(&p, 10 * MIB);
	CHECK_EQ(cuGraphNodeSetParams(n, &p), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(gs_child_pod_free(), 6 * MIB);
	alloc_params(&p, 5 * MIB);
	CHECK_EQ(cuGraphNodeSetParams(n, &p),
		 driver_allows ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
	CHECK_EQ(gs_child_pod_free(), driver_allows ? 3 * MIB : 6 * MIB);
	/* In an executable graph: the node's bytes as the graph's. */
	CHECK_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
	alloc_params(&p, 9 * MIB);
	CHECK_EQ(cuGraphExecNodeSetParams(x, n, &p), CUDA_ERROR_OUT_OF_MEMORY);
	alloc_params(&p, 1 * MIB);
	CHECK_EQ(cuGraphExecNodeSetParams(x, n, &p),
		 driver_allows ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
	CHECK_EQ(gs_child_pod_free(), driver_allows ? 7 * MIB : 6 * MIB);
	CHECK_EQ(cuGraphExecDestroy(x), CUDA_SUCCESS);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	return 0;
}

static void test_node_set_params(void **state)
{
	static const char *const allows[] = { "GPUSHARE_POD_ID", "p", "GPUSHARE_MEM_LIMIT_MIB", "8",
					      "FAKECUDA_GRAPH_SET_ALLOC", "1", NULL };

	(void)state;
	assert_int_equal(gs_child_run(set_params, NULL, limit_8), 0);
	assert_int_equal(gs_child_run(set_params, (void *)1, allows), 0);
}

/*
 * cudaMallocAsync captured from a stream is a memory node of the captured
 * graph: charged when captured, then held like any memory node while the
 * graph and its instantiations live (a captured free does not give it
 * back: the graph allocates again at every launch).
 */
static int captured_alloc(void *arg)
{
	CUdeviceptr p, q, r;
	CUgraphExec x;
	CUgraph g;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuStreamBeginCapture_v2(STREAM, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&p, 6 * MIB, STREAM), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&q, 6 * MIB, STREAM), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuMemFreeAsync(p, STREAM), CUDA_SUCCESS);
	CHECK_EQ(cuStreamEndCapture(STREAM, &g), CUDA_SUCCESS);
	CHECK_EQ(fakecuda_graph_nodes(g), 2);
	CHECK_EQ(gs_child_pod_free(), 2 * MIB);
	CHECK_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
	CHECK_EQ(cuGraphLaunch(x, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&r, 8 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(cuGraphExecDestroy(x), CUDA_SUCCESS);
	CHECK_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&r, 8 * MIB), CUDA_SUCCESS);
	CHECK_EQ(cuMemFree_v2(r), CUDA_SUCCESS);
	/* The per-thread default stream, and a pool of one's own, the same. */
	CHECK_EQ(cuStreamBeginCapture_v2_ptsz(NULL, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync_ptsz(&p, 3 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuStreamEndCapture_ptsz(NULL, &g), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 5 * MIB);
	CHECK_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	return 0;
}

GS_CHILD_TEST(test_captured_alloc, captured_alloc, limit_8)

/*
 * A capture the driver invalidates returns no graph: what it charged comes
 * back. Capture into a graph of the caller's (cuStreamBeginCaptureToGraph)
 * charges that graph, which keeps its bytes after an invalidation.
 */
static int capture_failures(void *arg)
{
	CUdeviceptr p;
	CUgraph g, mine;

	(void)arg;
	CHECK_EQ(cuInit(0), CUDA_SUCCESS);
	CHECK_EQ(cuStreamBeginCapture_v2(STREAM, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&p, 7 * MIB, STREAM), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 1 * MIB);
	/* A synchronous allocation during a global capture invalidates it. */
	CHECK_EQ(cuMemAlloc_v2(&p, 1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	CHECK_EQ(cuStreamEndCapture(STREAM, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	CHECK(g == NULL);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	/* Into the caller's graph. */
	CHECK_EQ(cuGraphCreate(&mine, 0), CUDA_SUCCESS);
	CHECK_EQ(cuStreamBeginCaptureToGraph(STREAM, mine, NULL, NULL, 0,
					     CU_STREAM_CAPTURE_MODE_GLOBAL),
		 CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync(&p, 4 * MIB, STREAM), CUDA_SUCCESS);
	CHECK_EQ(cuMemAlloc_v2(&p, 1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	CHECK_EQ(cuStreamEndCapture(STREAM, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	CHECK_EQ(gs_child_pod_free(), 4 * MIB);
	CHECK_EQ(cuStreamBeginCaptureToGraph_ptsz(NULL, mine, NULL, NULL, 0,
						  CU_STREAM_CAPTURE_MODE_GLOBAL),
		 CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync_ptsz(&p, 4 * MIB, NULL), CUDA_SUCCESS);
	CHECK_EQ(cuMemAllocAsync_ptsz(&p, 1, NULL), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(cuStreamEndCapture_ptsz(NULL, &g), CUDA_SUCCESS);
	CHECK(g == mine);
	CHECK_EQ(cuGraphDestroy(mine), CUDA_SUCCESS);
	CHECK_EQ(gs_child_pod_free(), 8 * MIB);
	return 0;
}

GS_CHILD_TEST(test_capture_failures, capture_failures, limit_8)

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_generic_add_node, gs_child_dir),
		GS_TMPDIR_TEST(test_child_graph_moved, gs_child_dir),
		GS_TMPDIR_TEST(test_node_set_params, gs_child_dir),
		GS_TMPDIR_TEST(test_captured_alloc, gs_child_dir),
		GS_TMPDIR_TEST(test_capture_failures, gs_child_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
