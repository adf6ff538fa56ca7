/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_graph.c - libgpushare's graph memory nodes, and the lives of the
 * graphs that hold them.
 *
 * A memory node (cuGraphAddMemAllocNode) is charged its bytes from its
 * creation, so that a refusal comes where the program can see it, while
 * the graph, a clone of it or a graph instantiated from it lives; then,
 * since the driver keeps graph memory cached in the device's graph pool,
 * as that pool's high-water mark until cuDeviceGraphMemTrim. A node
 * destroyed before its graph is instantiated, and a graph never
 * instantiated, give the bytes back at once.
 */
#include "hook_mem.h"

#include <stdlib.h>
#include <string.h>

/* A graph with memory nodes, or a clone of one. */
struct graph_acct {
	uint64_t graph;
	int refs;                /* the graph itself and each instantiation */
	int instantiated;        /* its memory may be in the device's graph pool */
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

void gs_graph_reset(void)
{
	gs_ptrmap_init(&gr.nodes);
	gs_ptrmap_init(&gr.execs);
}

void gs_graph_forget(void)
{
	gs_ptrmap_release(&gr.nodes);
	gs_ptrmap_release(&gr.execs);
	free(gr.graphs);
	memset(&gr, 0, sizeof(gr));
	gs_graph_reset();
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

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					const CUgraphNode *dependencies, size_t numDependencies,
					CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	struct graph_acct *g;
	uint64_t bytes = nodeParams ? nodeParams->bytesize : 0;
	int dev, ordinal = -1;
	CUresult rc;

	if (nodeParams && nodeParams->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		ordinal = nodeParams->poolProps.location.id;
	rc = gs_mem_begin(bytes, ordinal, &dev);
	if (rc)
		return rc;
	rc = CALL_REAL(cuGraphAddMemAllocNode,
		       (phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
	if (rc != CUDA_SUCCESS || !phGraphNode || dev < 0)
		return gs_mem_end(rc, &gr.nodes, 0, bytes, dev);
	pthread_mutex_lock(&gs_state_lock);
	g = graph_of((uint64_t)(uintptr_t)hGraph);
	if (!g)
		g = graph_add((uint64_t)(uintptr_t)hGraph);
	if (g) {
		struct gs_ptrmap_entry n = { (uint64_t)(uintptr_t)*phGraphNode, bytes, dev, 0,
					     (uint64_t)(uintptr_t)hGraph, 0 };

		g->bytes[dev] += bytes;
		/* Without the node's record, its bytes stay with the graph. */
		(void)gs_ptrmap_put_entry(&gr.nodes, &n);
	}
	pthread_mutex_unlock(&gs_state_lock);
	if (!g) {
		gs_hook_pod_cancel(bytes, dev);
		gs_mem_log_untracked(bytes);
	}
	return rc;
}

/* Once instantiated, the executable graph keeps a destroyed node's allocation. */
static void node_destroyed_locked(const void *arg)
{
	struct gs_ptrmap_entry n;
	struct graph_acct *g;

	if (gs_ptrmap_take(&gr.nodes, (uint64_t)(uintptr_t)*(const CUgraphNode *)arg, &n))
		return;
	g = graph_of(n.owner);
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
	struct graph_acct *g;

	if (gs_ptrmap_take(&gr.execs, (uint64_t)(uintptr_t)*(const CUgraphExec *)arg, &x))
		return;
	g = graph_of(x.owner);
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
