/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_graph.c - libgpushare's graph memory nodes, however a graph gets
 * them, and the lives of the graphs that hold them.
 *
 * A memory node is charged its bytes from its creation, so that a refusal
 * comes where the program can see it, while the graph, a clone of it or a
 * graph instantiated from it lives; then, since the driver keeps graph
 * memory cached in the device's graph pool, as that pool's high-water mark
 * until cuDeviceGraphMemTrim. A node destroyed before its graph is
 * instantiated, and a graph never instantiated, give the bytes back at
 * once. Memory nodes reach a graph by every route the driver offers
 * (CUDA 13.0's cuda.h):
 *   cuGraphAddMemAllocNode, and cuGraphAddNode and cuGraphAddNode_v2 with
 *       a CU_GRAPH_NODE_TYPE_MEM_ALLOC node (cudaGraphAddNode, and
 *       cudaGraphAddMemAllocNode in runtimes that route it so);
 *   a child graph moved into its parent (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE,
 *       the only way a graph with memory nodes can be a child): the
 *       child's bytes become the parent's, which destroys it;
 *   cuGraphNodeSetParams and cuGraphExecNodeSetParams on a memory node,
 *       which the driver documents as not supported: a new size is charged
 *       before the driver is asked all the same, so that a driver that
 *       accepted it could not pass the limit;
 *   stream capture: cuMemAllocAsync and cuMemAllocFromPoolAsync into a
 *       capturing stream add a memory node to the captured graph (the
 *       capture's own, or the caller's with cuStreamBeginCaptureToGraph),
 *       charged like any other (hook_pool.c asks gs_graph_capturing); a
 *       captured free gives nothing back, since the graph allocates again
 *       at every launch. A capture the driver invalidates returns no
 *       graph, and the bytes of a graph it made come back then.
 * Updating an executable graph from another graph (cuGraphExecUpdate)
 * cannot change memory nodes (graphs with memory nodes cannot take part),
 * cloning cannot copy them and a graph that holds one cannot be embedded
 * by cloning: the driver refuses these, and the library needs no more.
 */
#include "hook_mem.h"

#include <stdlib.h>
#include <string.h>

/* A graph with memory nodes, or a clone of one. */
struct graph_acct {
	uint64_t graph;
	int refs;                /* the graph itself and each instantiation */
	int instantiated;        /* its memory may be in the device's graph pool */
	int callers;             /* the caller's graph: a failed capture into it leaves it */
	uint64_t bytes[MAX_ORDINALS];
};

/* Under gs_state_lock. */
static struct {
	struct gs_ptrmap nodes;  /* memory node -> bytes, owner = graph */
	struct gs_ptrmap execs;  /* executable graph -> owner = graph */
	struct graph_acct *graphs;
	size_t n_graphs, cap_graphs;
	uint64_t graph_pool[MAX_ORDINALS]; /* what the driver keeps cached */
} gr;

void gs_graph_forget(void)
{
	gs_ptrmap_release(&gr.nodes);
	gs_ptrmap_release(&gr.execs);
	free(gr.graphs);
	memset(&gr, 0, sizeof(gr));
}

/* With gs_state_lock held: the account of graph, or NULL. */
static struct graph_acct *graph_of(uint64_t graph)
{
	size_t i;

	for (i = 0; graph && i < gr.n_graphs; i++)
		if (gr.graphs[i].graph == graph)
			return &gr.graphs[i];
	return NULL;
}

/* With gs_state_lock held: a new account for graph with one reference, or NULL. */
static struct graph_acct *graph_add(uint64_t graph)
{
	struct graph_acct *g;

	if (gr.n_graphs == gr.cap_graphs) {
		size_t cap = gr.cap_graphs ? gr.cap_graphs * 2 : 16;

		g = realloc(gr.graphs, cap * sizeof(*g));
		if (!g)
			return NULL;
		gr.graphs = g;
		gr.cap_graphs = cap;
	}
	g = &gr.graphs[gr.n_graphs++];
	memset(g, 0, sizeof(*g));
	g->graph = graph;
	g->refs = 1;
	return g;
}

/*
 * With gs_state_lock held: drops one reference. After the last one, the
 * bytes of a graph that was never instantiated come back; those of one
 * that was move into the device's graph pool, which keeps its high-water
 * mark (the driver reuses the cached memory for the next graph).
 */
static void graph_unref(struct graph_acct *g)
{
	int d;

	if (--g->refs > 0)
		return;
	for (d = 0; d < MAX_ORDINALS; d++) {
		uint64_t pool = gr.graph_pool[d], grown;

		if (!g->bytes[d])
			continue;
		grown = !g->instantiated ? 0 : g->bytes[d] > pool ? g->bytes[d] - pool : 0;
		gr.graph_pool[d] = pool + grown;
		gs_hook_pod_cancel(g->bytes[d] - grown, d);
	}
	*g = gr.graphs[--gr.n_graphs];
}

/* With gs_state_lock held: forgets the memory nodes of a destroyed graph. */
static void graph_forget_nodes(uint64_t graph)
{
	struct gs_ptrmap_entry gone;
	size_t i = 0;

	while (i < gr.nodes.cap) {
		if (gr.nodes.e[i].key && gr.nodes.e[i].owner == graph)
			gs_ptrmap_take(&gr.nodes, gr.nodes.e[i].key, &gone); /* may refill slot i */
		else
			i++;
	}
}

/*
 * With gs_state_lock held: bytes on dev now belong to graph (a memory node
 * node, 0 for one captured, whose handle is not known). Returns 0, or -1
 * when the host is out of memory (the caller gives the bytes back).
 */
static int node_added_locked(uint64_t graph, uint64_t node, uint64_t bytes, int dev)
{
	struct graph_acct *g = graph_of(graph);
	struct gs_ptrmap_entry n = { node, bytes, dev, 0, graph, 0 };

	if (!g)
		g = graph_add(graph);
	if (!g)
		return -1;
	g->bytes[dev] += bytes;
	/* Without the node's record, its bytes stay with the graph. */
	if (node)
		(void)gs_ptrmap_put_entry(&gr.nodes, &n);
	return 0;
}

/* A memory node being added: what it reserved. */
struct node_op {
	uint64_t bytes;
	int dev;                 /* -1: nothing reserved */
};

/*
 * Before a memory node of parameters p is added or given new parameters:
 * its bytes reserved on its device, less what the node holds already
 * there (held bytes on held_dev). Host memory is not device memory.
 */
static CUresult node_begin(const CUDA_MEM_ALLOC_NODE_PARAMS *p, uint64_t held, int held_dev,
			   struct node_op *op)
{
	const CUmemLocation *loc = p ? &p->poolProps.location : NULL;
	int ordinal = loc && loc->type == CU_MEM_LOCATION_TYPE_DEVICE ? loc->id : -1;
	CUresult rc;

	op->bytes = p && (!loc->type || loc->type == CU_MEM_LOCATION_TYPE_DEVICE) ? p->bytesize
										  : 0;
	rc = gs_hook_enter();
	if (rc)
		return rc;
	if (ordinal < 0 && op->bytes && CALL_REAL(cuCtxGetDevice, (&ordinal)) != CUDA_SUCCESS)
		ordinal = -1;
	if (held && ordinal == held_dev)
		op->bytes = op->bytes > held ? op->bytes - held : 0;
	return gs_mem_begin(op->bytes, ordinal, &op->dev);
}

/* After the driver added node to graph (rc): its bytes recorded, or given back. */
static CUresult node_end(CUresult rc, const CUgraphNode *node, CUgraph graph,
			 const struct node_op *op)
{
	int ok;

	if (rc != CUDA_SUCCESS || !node || op->dev < 0)
		return gs_mem_end(rc, &gr.nodes, 0, op->bytes, op->dev);
	pthread_mutex_lock(&gs_state_lock);
	ok = node_added_locked((uint64_t)(uintptr_t)graph, (uint64_t)(uintptr_t)*node, op->bytes,
			       op->dev) == 0;
	pthread_mutex_unlock(&gs_state_lock);
	if (!ok) {
		gs_hook_pod_cancel(op->bytes, op->dev);
		gs_mem_log_untracked(op->bytes);
	}
	return rc;
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					const CUgraphNode *dependencies, size_t numDependencies,
					CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	struct node_op op;
	CUresult rc = node_begin(nodeParams, 0, -1, &op);

	return rc ? rc
		  : node_end(CALL_REAL(cuGraphAddMemAllocNode, (phGraphNode, hGraph, dependencies,
								numDependencies, nodeParams)),
			     phGraphNode, hGraph, &op);
}

/* A child graph moved into its parent: its account becomes the parent's. */
struct move {
	CUgraph parent, child;
};

static void child_moved_locked(const void *arg)
{
	const struct move *m = arg;
	struct graph_acct *p, *c;
	size_t i;
	int d;

	if (!graph_of((uint64_t)(uintptr_t)m->child))
		return;
	p = graph_of((uint64_t)(uintptr_t)m->parent);
	if (!p)
		p = graph_add((uint64_t)(uintptr_t)m->parent);
	c = graph_of((uint64_t)(uintptr_t)m->child); /* graph_add may have moved it */
	if (!p)
		return; /* the child keeps its bytes charged for good */
	for (d = 0; d < MAX_ORDINALS; d++)
		p->bytes[d] += c->bytes[d];
	for (i = 0; i < gr.nodes.cap; i++)
		if (gr.nodes.e[i].key && gr.nodes.e[i].owner == c->graph)
			gr.nodes.e[i].owner = p->graph;
	*c = gr.graphs[--gr.n_graphs];
}

/* cuGraphAddNode and its _v2: a memory node, or a child graph moved in, charged. */
static CUresult generic_begin(const CUgraphNodeParams *p, struct node_op *op)
{
	op->bytes = 0;
	op->dev = -1;
	if (p && p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		return node_begin((const CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc, 0, -1, op);
	return gs_hook_enter();
}

static CUresult generic_end(CUresult rc, const CUgraphNodeParams *p, const CUgraphNode *node,
			    CUgraph graph, const struct node_op *op)
{
	struct move m;

	if (p && p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		return node_end(rc, node, graph, op);
	if (!p || p->type != CU_GRAPH_NODE_TYPE_GRAPH ||
	    p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
		return rc;
	m = (struct move){ graph, p->graph.graph };
	return gs_mem_settle(rc, child_moved_locked, &m);
}

CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				const CUgraphNode *dependencies, size_t numDependencies,
				CUgraphNodeParams *nodeParams)
{
	struct node_op op;
	CUresult rc = generic_begin(nodeParams, &op);

	return rc ? rc
		  : generic_end(CALL_REAL(cuGraphAddNode, (phGraphNode, hGraph, dependencies,
							  numDependencies, nodeParams)),
				nodeParams, phGraphNode, hGraph, &op);
}

CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   const CUgraphEdgeData *dependencyData, size_t numDependencies,
				   CUgraphNodeParams *nodeParams)
{
	struct node_op op;
	CUresult rc = generic_begin(nodeParams, &op);

	return rc ? rc
		  : generic_end(CALL_REAL(cuGraphAddNode_v2,
					  (phGraphNode, hGraph, dependencies, dependencyData,
					   numDependencies, nodeParams)),
				nodeParams, phGraphNode, hGraph, &op);
}

/*
 * New parameters for a memory node (in its graph, or in an executable
 * graph of it: the same account): the growth charged before, and after
 * the driver said yes, the node's record and its graph's bytes follow.
 */
struct resize {
	CUgraphNode node;
	const CUDA_MEM_ALLOC_NODE_PARAMS *p;
	struct node_op op;
};

static void node_resized_locked(const void *arg)
{
	const struct resize *r = arg;
	struct gs_ptrmap_entry *n = gs_ptrmap_find(&gr.nodes, (uint64_t)(uintptr_t)r->node);
	struct graph_acct *g = n ? graph_of(n->owner) : NULL;
	int dev = r->op.dev >= 0 ? r->op.dev : n ? n->dev : -1;

	if (!g || dev < 0) {
		/* A node not followed (captured, whose handle is not known): nothing to keep. */
		gs_hook_pod_cancel(r->op.bytes, r->op.dev);
		return;
	}
	/* What the node held goes; what it holds now was charged (growth) or is kept. */
	g->bytes[n->dev] -= n->bytes;
	if (dev == n->dev && r->p->bytesize <= n->bytes)
		gs_hook_pod_cancel(n->bytes - r->p->bytesize, dev);
	else if (dev != n->dev)
		gs_hook_pod_cancel(n->bytes, n->dev);
	n->bytes = r->p->bytesize;
	n->dev = dev;
	g->bytes[dev] += n->bytes;
}

static CUresult resize_begin(CUgraphNode node, const CUgraphNodeParams *p, struct resize *r)
{
	struct gs_ptrmap_entry *n;
	uint64_t held = 0;
	int held_dev = -1;

	r->node = node;
	r->p = NULL;
	r->op.bytes = 0;
	r->op.dev = -1;
	if (!p || p->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		return gs_hook_enter();
	r->p = (const CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc;
	pthread_mutex_lock(&gs_state_lock);
	n = gs_ptrmap_find(&gr.nodes, (uint64_t)(uintptr_t)node);
	if (n) {
		held = n->bytes;
		held_dev = n->dev;
	}
	pthread_mutex_unlock(&gs_state_lock);
	return node_begin(r->p, held, held_dev, &r->op);
}

static CUresult resize_end(CUresult rc, struct resize *r)
{
	if (!r->p)
		return rc;
	if (rc != CUDA_SUCCESS)
		return gs_mem_end(rc, &gr.nodes, 0, r->op.bytes, r->op.dev);
	return gs_mem_settle(rc, node_resized_locked, r);
}

CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
	struct resize r;
	CUresult rc = resize_begin(hNode, nodeParams, &r);

	return rc ? rc : resize_end(CALL_REAL(cuGraphNodeSetParams, (hNode, nodeParams)), &r);
}

CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
					  CUgraphNodeParams *nodeParams)
{
	struct resize r;
	CUresult rc = resize_begin(hNode, nodeParams, &r);

	return rc ? rc
		  : resize_end(CALL_REAL(cuGraphExecNodeSetParams, (hGraphExec, hNode, nodeParams)),
			       &r);
}

/* --- stream capture ------------------------------------------------------------ */

/* The graph stream is being captured into, also when the capture is invalidated (any), or 0. */
static uint64_t capture_graph(CUstream stream, int any)
{
	CUstreamCaptureStatus status;
	CUgraph graph = NULL;

	if (CALL_REAL(cuStreamGetCaptureInfo_v2, (stream, &status, NULL, &graph, NULL, NULL)) !=
		    CUDA_SUCCESS ||
	    (status != CU_STREAM_CAPTURE_STATUS_ACTIVE &&
	     (!any || status != CU_STREAM_CAPTURE_STATUS_INVALIDATED)))
		return 0;
	return (uint64_t)(uintptr_t)graph;
}

uint64_t gs_graph_capturing(CUstream stream)
{
	return capture_graph(stream, 0);
}

void gs_graph_captured(uint64_t graph, uint64_t bytes, int dev)
{
	int ok;

	if (dev < 0 || !bytes)
		return;
	pthread_mutex_lock(&gs_state_lock);
	ok = node_added_locked(graph, 0, bytes, dev) == 0;
	pthread_mutex_unlock(&gs_state_lock);
	if (!ok) {
		gs_hook_pod_cancel(bytes, dev);
		gs_mem_log_untracked(bytes);
	}
}

/* The caller's graph, captured into: an invalidated capture leaves it (and its bytes). */
static void callers_graph_locked(const void *arg)
{
	uint64_t graph = (uint64_t)(uintptr_t)*(const CUgraph *)arg;
	struct graph_acct *g = graph_of(graph);

	if (!g)
		g = graph_add(graph);
	if (g)
		g->callers = 1;
}

static CUresult capture_to_graph(pfn_cuStreamBeginCaptureToGraph real, int ptsz,
				 CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
				 const CUgraphEdgeData *dependencyData, size_t numDependencies,
				 CUstreamCaptureMode mode)
{
	CUresult rc = gs_hook_enter();

	(void)ptsz;
	return rc ? rc
		  : gs_mem_settle(CALL_PTR(real, (hStream, hGraph, dependencies, dependencyData,
						  numDependencies, mode)),
				  callers_graph_locked, &hGraph);
}

GS_TWINS(cuStreamBeginCaptureToGraph,
	 (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
	  const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),
	 capture_to_graph, (hStream, hGraph, dependencies, dependencyData, numDependencies, mode))

/* A capture ended without a graph: one the capture made is gone, with its bytes. */
static void capture_failed_locked(const void *arg)
{
	struct graph_acct *g = graph_of(*(const uint64_t *)arg);

	if (g && !g->callers) {
		graph_forget_nodes(g->graph);
		graph_unref(g);
	}
}

static CUresult end_capture(pfn_cuStreamEndCapture real, int ptsz, CUstream hStream,
			    CUgraph *phGraph)
{
	CUresult rc = gs_hook_enter();
	uint64_t graph;

	if (rc)
		return rc;
	graph = gs_hook_pod_on() ? capture_graph(gs_stream_of(hStream, ptsz), 1) : 0;
	rc = CALL_PTR(real, (hStream, phGraph));
	if (rc == CUDA_SUCCESS || !graph)
		return rc;
	gs_mem_settle(CUDA_SUCCESS, capture_failed_locked, &graph);
	return rc;
}

GS_TWINS(cuStreamEndCapture, (CUstream hStream, CUgraph *phGraph), end_capture,
	 (hStream, phGraph))

/* With gs_state_lock held: takes key out of map (into *e) and returns its graph's account. */
static struct graph_acct *taken_locked(struct gs_ptrmap *map, uint64_t key,
				       struct gs_ptrmap_entry *e)
{
	return gs_ptrmap_take(map, key, e) ? NULL : graph_of(e->owner);
}

/* Once instantiated, the executable graph keeps a destroyed node's allocation. */
static void node_destroyed_locked(const void *arg)
{
	struct gs_ptrmap_entry n;
	struct graph_acct *g = taken_locked(&gr.nodes, (uint64_t)(uintptr_t)*(const CUgraphNode *)arg,
					    &n);

	if (g && g->refs == 1) {
		g->bytes[n.dev] -= n.bytes;
		gs_hook_pod_cancel(n.bytes, n.dev);
	}
}

CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuGraphDestroyNode, (hNode)), node_destroyed_locked,
				  &hNode);
}

static void graph_destroyed_locked(const void *arg)
{
	struct graph_acct *g = graph_of((uint64_t)(uintptr_t)*(const CUgraph *)arg);

	if (g) {
		graph_forget_nodes(g->graph);
		graph_unref(g);
	}
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuGraphDestroy, (hGraph)), graph_destroyed_locked,
				  &hGraph);
}

/* A clone allocates what its original does: charged again, or refused. */
CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	uint64_t bytes[MAX_ORDINALS];
	struct graph_acct *g;
	CUresult rc = gs_hook_enter();
	int d, charged = 0, any = 0;

	if (rc)
		return rc;
	memset(bytes, 0, sizeof(bytes));
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)originalGraph);
	if (g) {
		memcpy(bytes, g->bytes, sizeof(bytes));
		any = 1;
	}
	for (d = 0; any && d < MAX_ORDINALS && rc == CUDA_SUCCESS; d++) {
		rc = gs_mem_charge(d, bytes[d]);
		if (rc == CUDA_SUCCESS)
			charged = d + 1;
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (rc == CUDA_SUCCESS)
		rc = CALL_REAL(cuGraphClone, (phGraphClone, originalGraph));
	pthread_mutex_lock(&gs_state_lock);
	g = NULL;
	if (rc == CUDA_SUCCESS && any && phGraphClone) {
		g = graph_add((uint64_t)(uintptr_t)*phGraphClone);
		if (g)
			memcpy(g->bytes, bytes, sizeof(bytes));
	}
	if (any && !g)
		for (d = 0; d < charged; d++)
			gs_hook_pod_cancel(bytes[d], d);
	pthread_mutex_unlock(&gs_state_lock);
	return rc;
}

/* An instantiation: the executable graph exec of graph. */
struct inst {
	const CUgraphExec *exec;
	CUgraph graph;
};

/* An executable graph holds its graph's memory as long as the graph. */
static void instantiated_locked(const void *arg)
{
	const struct inst *in = arg;
	struct graph_acct *g = graph_of((uint64_t)(uintptr_t)in->graph);
	struct gs_ptrmap_entry x;

	if (!g)
		return;
	x = (struct gs_ptrmap_entry){ (uint64_t)(uintptr_t)*in->exec, 0, 0, 0,
				      (uint64_t)(uintptr_t)in->graph, 0 };
	g->instantiated = 1;
	if (gs_ptrmap_put_entry(&gr.execs, &x) == 0)
		g->refs++;
	else
		g->refs = INT32_MAX / 2; /* no record: the memory stays charged */
}

static CUresult graph_instantiated(CUresult rc, const CUgraphExec *exec, CUgraph graph)
{
	struct inst in = { exec, graph };

	return exec ? gs_mem_settle(rc, instantiated_locked, &in) : rc;
}

/* The CUDA 11 ABI, which programs built against CUDA 11 headers still call. */
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
				       CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : graph_instantiated(CALL_REAL(cuGraphInstantiate_v2,
						 (phGraphExec, hGraph, phErrorNode, logBuffer,
						  bufferSize)),
				       phGraphExec, hGraph);
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
					     unsigned long long flags)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : graph_instantiated(CALL_REAL(cuGraphInstantiateWithFlags,
						 (phGraphExec, hGraph, flags)),
				       phGraphExec, hGraph);
}

static CUresult instantiate_with_params(pfn_cuGraphInstantiateWithParams real, int ptsz,
					CUgraphExec *phGraphExec, CUgraph hGraph,
					CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	CUresult rc = gs_hook_enter();

	(void)ptsz;
	return rc ? rc
		  : graph_instantiated(CALL_PTR(real, (phGraphExec, hGraph, instantiateParams)),
				       phGraphExec, hGraph);
}

GS_TWINS(cuGraphInstantiateWithParams,
	 (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams),
	 instantiate_with_params, (phGraphExec, hGraph, instantiateParams))

static void exec_destroyed_locked(const void *arg)
{
	struct gs_ptrmap_entry x;
	struct graph_acct *g = taken_locked(&gr.execs, (uint64_t)(uintptr_t)*(const CUgraphExec *)arg,
					    &x);

	if (g)
		graph_unref(g);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuGraphExecDestroy, (hGraphExec)),
				  exec_destroyed_locked, &hGraphExec);
}

/* The driver gives the cached graph memory of the device back. */
static void graph_pool_trimmed_locked(const void *arg)
{
	CUdevice device = *(const CUdevice *)arg;

	if (device < 0 || device >= MAX_ORDINALS)
		return;
	gs_hook_pod_cancel(gr.graph_pool[device], device);
	gr.graph_pool[device] = 0;
}

CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	CUresult rc = gs_hook_enter();

	return rc ? rc
		  : gs_mem_settle(CALL_REAL(cuDeviceGraphMemTrim, (device)),
				  graph_pool_trimmed_locked, &device);
}
