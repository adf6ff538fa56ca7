/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda_graph.c - stream capture and graphs in the fake CUDA driver
 * (fake_cuda.c says what the fake is for): the driver's rules for
 * "potentially unsafe" calls during a capture, which the hook's own calls
 * must never break, launches into a capturing stream becoming graph nodes,
 * and graphs with memory nodes, cloned, instantiated and destroyed.
 */
#define _GNU_SOURCE
#include "fake_cuda_internal.h"

#include <stdlib.h>

/* --- stream capture -------------------------------------------------------------------- */

/*
 * The driver's rules for "potentially unsafe" calls (cuEventQuery, a
 * synchronous allocation or free, a synchronisation) during stream capture:
 * a thread whose capture interaction mode (cuThreadExchangeStreamCaptureMode,
 * default global) is not relaxed may not make them while it has a capture
 * of its own that is not relaxed, nor, in global mode, while any thread has
 * a capture begun in global mode. Such a call fails with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates those captures:
 * their cuStreamEndCapture fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 * Work launched into a capturing stream becomes a node of the graph and
 * does not run.
 */
#define MAX_CAPTURES 16

struct capture {
	CUstream stream;
	CUstreamCaptureMode mode;
	pthread_t thread;
	int active;
	int invalidated;
	int nodes;
};

static struct capture captures[MAX_CAPTURES];
static int n_captures;   /* active ones; atomic, read without fakecuda_lock */
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

struct graph {
	int nodes;               /* captured launches, or memory nodes */
};

/* With fakecuda_lock held: the capture of stream s, or NULL. */
static struct capture *capture_of(CUstream s)
{
	int i;

	for (i = 0; i < MAX_CAPTURES; i++)
		if (captures[i].active && captures[i].stream == s)
			return &captures[i];
	return NULL;
}

/* Every "potentially unsafe" call starts here (fake_cuda_internal.h). */
CUresult fakecuda_unsafe_call(void)
{
	CUresult rc = CUDA_SUCCESS;
	pthread_t self = pthread_self();
	int i;

	if (!__atomic_load_n(&n_captures, __ATOMIC_ACQUIRE) ||
	    thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&fakecuda_lock);
	for (i = 0; i < MAX_CAPTURES; i++) {
		struct capture *c = &captures[i];
		int own = pthread_equal(c->thread, self);

		if (!c->active || c->mode == CU_STREAM_CAPTURE_MODE_RELAXED)
			continue;
		if (own || (thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
			    c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
			c->invalidated = 1;
			rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

/*
 * A launch (or event record) into stream s: CUDA_SUCCESS and *captured = 1
 * when it became a node of a capture, an error when that capture is
 * invalidated, CUDA_SUCCESS and *captured = 0 when it runs.
 */
CUresult fakecuda_into_stream(CUstream s, int *captured)
{
	struct capture *c;
	CUresult rc = CUDA_SUCCESS;

	*captured = 0;
	if (!__atomic_load_n(&n_captures, __ATOMIC_ACQUIRE))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&fakecuda_lock);
	c = capture_of(s);
	if (c) {
		*captured = 1;
		if (c->invalidated)
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		else
			c->nodes++;
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode)
{
	int i;

	if (!s || s == CU_STREAM_LEGACY)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	if (capture_of(s)) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	for (i = 0; i < MAX_CAPTURES && captures[i].active; i++)
		;
	if (i == MAX_CAPTURES) {
		pthread_mutex_unlock(&fakecuda_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	captures[i] = (struct capture){ s, mode, pthread_self(), 1, 0, 0 };
	__atomic_add_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
	ENTER("cuStreamBeginCapture_v2");
	return begin_capture(hStream, mode);
}

EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
	ENTER("cuStreamBeginCapture_v2_ptsz");
	return begin_capture(hStream ? hStream : CU_STREAM_PER_THREAD, mode);
}

EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	struct graph *g = NULL;
	struct capture *c;
	CUresult rc = CUDA_SUCCESS;

	ENTER("cuStreamEndCapture");
	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	c = capture_of(hStream);
	if (!c) {
		rc = CUDA_ERROR_ILLEGAL_STATE;
	} else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
		   !pthread_equal(c->thread, pthread_self())) {
		rc = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	} else {
		if (c->invalidated) {
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		} else {
			g = calloc(1, sizeof(*g));
			if (!g)
				rc = CUDA_ERROR_OUT_OF_MEMORY;
			else
				g->nodes = c->nodes;
		}
		c->active = 0;
		__atomic_sub_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fakecuda_lock);
	*phGraph = (CUgraph)g;
	return rc;
}

EXPORT CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUstreamCaptureMode old;

	ENTER("cuThreadExchangeStreamCaptureMode");
	if (!mode || (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_RELAXED))
		return CUDA_ERROR_INVALID_VALUE;
	old = thread_mode;
	thread_mode = *mode;
	*mode = old;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	ENTER("cuStreamSynchronize");
	UNSAFE();
	(void)hStream;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
	ENTER("cuCtxSynchronize");
	UNSAFE();
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	struct capture *c;

	ENTER("cuStreamIsCapturing");
	if (!captureStatus)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	c = capture_of(hStream);
	*captureStatus = !c ? CU_STREAM_CAPTURE_STATUS_NONE
			    : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
					     : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

EXPORT int fakecuda_graph_nodes(CUgraph g)
{
	return g ? ((struct graph *)g)->nodes : -1;
}

/* --- graphs with memory nodes ---------------------------------------------------------- */

/*
 * Graphs, nodes and executable graphs are heap objects; the fake does not
 * model the physical memory of graph allocations (the hook's accounting
 * is what the tests check), only their nodes and addresses.
 */
struct node {
	struct graph *graph;
	uint64_t bytes;
};

EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	ENTER("cuGraphCreate");
	if (!phGraph || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*phGraph = (CUgraph)calloc(1, sizeof(struct graph));
	return *phGraph ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					       const CUgraphNode *dependencies,
					       size_t numDependencies,
					       CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	struct graph *g = (struct graph *)hGraph;
	struct node *n;

	ENTER("cuGraphAddMemAllocNode");
	(void)dependencies;
	(void)numDependencies;
	if (!phGraphNode || !g || !nodeParams || !nodeParams->bytesize ||
	    nodeParams->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	n = calloc(1, sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	n->graph = g;
	n->bytes = nodeParams->bytesize;
	g->nodes++;
	pthread_mutex_lock(&fakecuda_lock);
	nodeParams->dptr = fakecuda_new_address(nodeParams->bytesize);
	pthread_mutex_unlock(&fakecuda_lock);
	*phGraphNode = (CUgraphNode)n;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	struct node *n = (struct node *)hNode;

	ENTER("cuGraphDestroyNode");
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	n->graph->nodes--;
	free(n);
	return CUDA_SUCCESS;
}

/* The nodes of a destroyed graph are leaked: the fake does not list them. */
EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	ENTER("cuGraphDestroy");
	if (!hGraph)
		return CUDA_ERROR_INVALID_VALUE;
	free(hGraph);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	struct graph *g;

	ENTER("cuGraphClone");
	if (!phGraphClone || !originalGraph)
		return CUDA_ERROR_INVALID_VALUE;
	g = malloc(sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*g = *(struct graph *)originalGraph;
	*phGraphClone = (CUgraph)g;
	return CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *exec, CUgraph graph)
{
	if (!exec || !graph)
		return CUDA_ERROR_INVALID_VALUE;
	*exec = (CUgraphExec)calloc(1, 16);
	return *exec ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
					      CUgraphNode *phErrorNode, char *logBuffer,
					      size_t bufferSize)
{
	ENTER("cuGraphInstantiate_v2");
	(void)phErrorNode;
	(void)logBuffer;
	(void)bufferSize;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
						    unsigned long long flags)
{
	ENTER("cuGraphInstantiateWithFlags");
	(void)flags;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
						     CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	ENTER("cuGraphInstantiateWithParams");
	(void)params;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec,
							  CUgraph hGraph,
							  CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	ENTER("cuGraphInstantiateWithParams_ptsz");
	(void)params;
	return instantiate(phGraphExec, hGraph);
}

EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	ENTER("cuGraphExecDestroy");
	if (!hGraphExec)
		return CUDA_ERROR_INVALID_VALUE;
	free(hGraphExec);
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	ENTER("cuDeviceGraphMemTrim");
	return device >= 0 && device < fakecuda.n_devs ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
