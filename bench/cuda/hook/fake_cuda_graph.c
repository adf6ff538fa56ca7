/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda_graph.c - stream capture and graphs in the fake CUDA driver
 * (fake_cuda.c says what the fake is for): the driver's rules for
 * "potentially unsafe" calls during a capture, which the hook's own calls
 * must never break, launches and stream-ordered allocations into a
 * capturing stream becoming graph nodes, capture into a graph of one's
 * own, and graphs with memory nodes, made by any entry point, cloned,
 * moved into a parent, instantiated and destroyed.
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

#define MAX_MOVED 16

/*
 * A graph: its nodes (captured work or added), and the child graphs moved
 * into it (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE), destroyed with it.
 */
struct graph {
	int nodes;
	int mem_nodes;           /* memory allocation nodes, its children's included */
	struct graph *parent;    /* moved into this graph: not to be destroyed alone */
	struct graph *moved[MAX_MOVED];
	int n_moved;
};

struct capture {
	CUstream stream;
	CUstreamCaptureMode mode;
	pthread_t thread;
	int active;
	int invalidated;
	int own_graph;           /* cuStreamBeginCaptureToGraph: the graph is the caller's */
	uint64_t id;
	struct graph *graph;
};

static struct capture captures[MAX_CAPTURES];
static int n_captures;   /* active ones; atomic, read without fakecuda_lock */
static uint64_t next_capture_id = 1;
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

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
CUresult fakecuda_into_stream(CUstream s, int kind, int *captured)
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
		if (c->invalidated) {
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		} else {
			c->graph->nodes++;
			if (kind == FAKECUDA_NODE_ALLOC)
				c->graph->mem_nodes++;
		}
	}
	pthread_mutex_unlock(&fakecuda_lock);
	return rc;
}

/* Begins a capture of s into graph (NULL: a new graph, the driver's own). */
static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode, struct graph *graph)
{
	int own = graph != NULL, i;

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
	if (!graph)
		graph = calloc(1, sizeof(*graph));
	if (i == MAX_CAPTURES || !graph) {
		pthread_mutex_unlock(&fakecuda_lock);
		if (!own)
			free(graph);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	captures[i] = (struct capture){ s, mode, pthread_self(), 1, 0, own, next_capture_id++,
					graph };
	__atomic_add_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

FAKECUDA_TWINS(cuStreamBeginCapture_v2, (CUstream hStream, CUstreamCaptureMode mode),
	       begin_capture(FAKECUDA_STREAM(hStream, ptsz_), mode, NULL))
FAKECUDA_TWINS(cuStreamBeginCaptureToGraph,
	       (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
		const CUgraphEdgeData *dependencyData, size_t numDependencies,
		CUstreamCaptureMode mode),
	       ((void)dependencies, (void)dependencyData, (void)numDependencies,
		hGraph ? begin_capture(FAKECUDA_STREAM(hStream, ptsz_), mode, (struct graph *)hGraph)
		       : CUDA_ERROR_INVALID_VALUE))

/*
 * An invalidated capture returns no graph: a graph the capture made is
 * destroyed, one of the caller's (cuStreamBeginCaptureToGraph) stays.
 */
static CUresult end_capture(CUstream s, CUgraph *phGraph)
{
	struct graph *g = NULL;
	struct capture *c;
	CUresult rc = CUDA_SUCCESS;

	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	c = capture_of(s);
	if (!c) {
		rc = CUDA_ERROR_ILLEGAL_STATE;
	} else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
		   !pthread_equal(c->thread, pthread_self())) {
		rc = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	} else {
		if (c->invalidated) {
			rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
			if (!c->own_graph)
				free(c->graph);
		} else {
			g = c->graph;
		}
		c->active = 0;
		__atomic_sub_fetch(&n_captures, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fakecuda_lock);
	*phGraph = (CUgraph)g;
	return rc;
}

FAKECUDA_TWINS(cuStreamEndCapture, (CUstream hStream, CUgraph *phGraph),
	       end_capture(FAKECUDA_STREAM(hStream, ptsz_), phGraph))

static CUresult capture_info(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id,
			     CUgraph *graph, const CUgraphNode **deps, size_t *n_deps)
{
	struct capture *c;

	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	c = capture_of(s);
	*status = !c ? CU_STREAM_CAPTURE_STATUS_NONE
		     : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
				      : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	if (id)
		*id = c ? c->id : 0;
	if (graph)
		*graph = c ? (CUgraph)c->graph : NULL;
	pthread_mutex_unlock(&fakecuda_lock);
	if (deps)
		*deps = NULL;
	if (n_deps)
		*n_deps = 0;
	return CUDA_SUCCESS;
}

FAKECUDA_TWINS(cuStreamGetCaptureInfo_v2,
	       (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
		CUgraph *graph_out, const CUgraphNode **dependencies_out,
		size_t *numDependencies_out),
	       capture_info(FAKECUDA_STREAM(hStream, ptsz_), captureStatus_out, id_out, graph_out,
			    dependencies_out, numDependencies_out))

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
	ENTER("cuStreamIsCapturing");
	return capture_info(hStream, captureStatus, NULL, NULL, NULL, NULL);
}

EXPORT int fakecuda_graph_nodes(CUgraph g)
{
	return g ? ((struct graph *)g)->nodes : -1;
}

/* --- graphs and their nodes ------------------------------------------------------------ */

/*
 * Graphs, nodes and executable graphs are heap objects; the fake does not
 * model the physical memory of graph allocations (the hook's accounting
 * is what the tests check), only their nodes and addresses. As the driver
 * documents, the parameters of a memory node cannot be changed
 * (CUDA_ERROR_NOT_SUPPORTED), unless FAKECUDA_GRAPH_SET_ALLOC=1 makes the
 * fake a driver that allowed it; and a graph with memory nodes can become
 * a child graph only by moving into its parent, which then destroys it.
 */
struct node {
	struct graph *graph;
	CUgraphNodeType type;
	uint64_t bytes;          /* a memory allocation node's */
};

EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	ENTER("cuGraphCreate");
	if (!phGraph || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*phGraph = (CUgraph)calloc(1, sizeof(struct graph));
	return *phGraph ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* A memory allocation node's parameters are acceptable (and its address is set). */
static CUresult alloc_params_ok(CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	if (!p || !p->bytesize || p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !FAKECUDA_DEV_OK(p->poolProps.location.id))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&fakecuda_lock);
	p->dptr = fakecuda_new_address(p->bytesize);
	pthread_mutex_unlock(&fakecuda_lock);
	return CUDA_SUCCESS;
}

/* Moves child into parent: its nodes become the parent's, and it dies with it. */
static CUresult move_child(struct graph *parent, struct graph *child)
{
	if (!child || child == parent || child->parent || parent->n_moved == MAX_MOVED)
		return CUDA_ERROR_INVALID_VALUE;
	child->parent = parent;
	parent->moved[parent->n_moved++] = child;
	parent->mem_nodes += child->mem_nodes;
	return CUDA_SUCCESS;
}

/* Adds a node of type to g; params as cuGraphAddNode gives them (NULL for memory nodes). */
static CUresult add_node(CUgraphNode *out, struct graph *g, CUgraphNodeType type,
			 CUgraphNodeParams *params, CUDA_MEM_ALLOC_NODE_PARAMS *alloc)
{
	CUresult rc = CUDA_SUCCESS;
	struct node *n;

	if (!out || !g || g->parent)
		return CUDA_ERROR_INVALID_VALUE;
	if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		rc = alloc_params_ok(alloc);
	else if (type == CU_GRAPH_NODE_TYPE_GRAPH && params->graph.ownership ==
							   CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
		rc = move_child(g, (struct graph *)params->graph.graph);
	else if (type == CU_GRAPH_NODE_TYPE_GRAPH)
		rc = params->graph.graph && !((struct graph *)params->graph.graph)->mem_nodes
			     ? CUDA_SUCCESS
			     : CUDA_ERROR_INVALID_VALUE;
	if (rc)
		return rc;
	n = calloc(1, sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*n = (struct node){ g, type, alloc ? alloc->bytesize : 0 };
	g->nodes++;
	g->mem_nodes += type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	*out = (CUgraphNode)n;
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					       const CUgraphNode *dependencies,
					       size_t numDependencies,
					       CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	ENTER("cuGraphAddMemAllocNode");
	(void)dependencies;
	(void)numDependencies;
	return add_node(phGraphNode, (struct graph *)hGraph, CU_GRAPH_NODE_TYPE_MEM_ALLOC, NULL,
			nodeParams);
}

static CUresult add_generic(CUgraphNode *out, CUgraph g, CUgraphNodeParams *p)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	return add_node(out, (struct graph *)g, p->type, p,
			p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC
				? (CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc
				: NULL);
}

EXPORT CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				       const CUgraphNode *dependencies, size_t numDependencies,
				       CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphAddNode");
	(void)dependencies;
	(void)numDependencies;
	return add_generic(phGraphNode, hGraph, nodeParams);
}

EXPORT CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
					  const CUgraphNode *dependencies,
					  const CUgraphEdgeData *dependencyData,
					  size_t numDependencies, CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphAddNode_v2");
	(void)dependencies;
	(void)dependencyData;
	(void)numDependencies;
	return add_generic(phGraphNode, hGraph, nodeParams);
}

/* New parameters for node n, in its graph or in an executable graph of it. */
static CUresult set_params(struct node *n, CUgraphNodeParams *p)
{
	if (!n || !p || p->type != n->type)
		return CUDA_ERROR_INVALID_VALUE;
	if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
		if (!fakecuda_env_u64("FAKECUDA_GRAPH_SET_ALLOC", 0))
			return CUDA_ERROR_NOT_SUPPORTED;
		if (alloc_params_ok((CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc))
			return CUDA_ERROR_INVALID_VALUE;
		n->bytes = p->alloc.bytesize;
	}
	return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphNodeSetParams");
	return set_params((struct node *)hNode, nodeParams);
}

EXPORT CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
						 CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphExecNodeSetParams");
	return hGraphExec ? set_params((struct node *)hNode, nodeParams) : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	struct node *n = (struct node *)hNode;

	ENTER("cuGraphDestroyNode");
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	n->graph->nodes--;
	n->graph->mem_nodes -= n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	free(n);
	return CUDA_SUCCESS;
}

static void graph_free(struct graph *g)
{
	int i;

	for (i = 0; i < g->n_moved; i++)
		graph_free(g->moved[i]);
	free(g);
}

/*
 * The nodes of a destroyed graph are leaked: the fake does not list them.
 * A graph moved into a parent is destroyed with it, never alone.
 */
EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	ENTER("cuGraphDestroy");
	if (!hGraph || ((struct graph *)hGraph)->parent)
		return CUDA_ERROR_INVALID_VALUE;
	graph_free((struct graph *)hGraph);
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
	g->parent = NULL; /* the clone owns no moved children of its own */
	g->n_moved = 0;
	*phGraphClone = (CUgraph)g;
	return CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *exec, CUgraph graph)
{
	if (!exec || !graph || ((struct graph *)graph)->parent)
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

FAKECUDA_TWINS(cuGraphInstantiateWithParams,
	       (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *params),
	       ((void)params, instantiate(phGraphExec, hGraph)))

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
	return FAKECUDA_DEV_OK(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
