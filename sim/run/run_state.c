/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_state.c - a stored run's cluster rebuilt at one simulated time from
 * its nodes and pods, and each node's FGD fragmentation against the
 * typical pods of the run's trace (see run_state.h).
 *
 * With sharing modes (run_nodes.sharing) each pod is counted as its GPU's
 * mode counted it: a whole GPU under exclusive, a replica under timeslice
 * and mps, its instance under mig.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/frag.h"
#include "core/gpu_model.h"
#include "core/mem.h"
#include "run/run_state.h"

/*
 * Reads a node's run_nodes.sharing (one spec, or one per GPU joined by
 * '|') into na->cfg and creates the fixed MIG layouts. Returns false for
 * text gpusim did not write.
 */
static bool node_modes(const struct gs_db_node *nd, struct gs_run_state_node *na)
{
	const struct gs_mig_table *t = gs_mig_table_for_model(nd->gpu_model);
	const char *s = nd->sharing;
	char spec[GS_SHARE_SPEC_MAX], msg[256];
	int g, parts = 1;

	if (!s)
		return true;
	for (g = 0; s[g]; g++)
		parts += s[g] == '|';
	for (g = 0; g < nd->num_gpu; g++) {
		size_t len;

		if (parts > 1 || g == 0) {
			len = strcspn(s, "|");
			if (len >= sizeof(spec))
				return false;
			memcpy(spec, s, len);
			spec[len] = '\0';
			s += len + (s[len] == '|');
			if (gs_share_parse(spec, &na->cfg[g], msg, sizeof(msg)))
				return false;
		} else {
			na->cfg[g] = na->cfg[0];
		}
		gs_mig_gpu_init(&na->mig[g]);
		if (na->cfg[g].mode == GS_SHARE_MIG && na->cfg[g].layout[0] && t &&
		    gs_mig_layout_parse(t, na->cfg[g].layout, &na->mig[g], msg, sizeof(msg)))
			return false;
	}
	na->shared = true;
	return true;
}

/*
 * What the k-th GPU of pod p costs in milli-GPU under its GPU's mode, and
 * (mig) the instance it holds, from pods.mig: its i-th entry belongs to
 * the i-th MIG GPU of the pod. Returns -1 for text gpusim did not write.
 */
static int32_t gpu_cost(const struct gs_db_node *nd, struct gs_run_state_node *na,
			const struct gs_db_pod *p, int k, int *mig_seen)
{
	const struct gs_share_cfg *cfg = &na->cfg[p->gpus[k]];
	const struct gs_mig_table *t;
	const char *e = p->mig;
	char name[GS_MIG_NAME_MAX];
	int i, prof, start, inst;
	size_t len;
	char *end;
	long v;

	if (!na->shared)
		return p->gpu_milli;
	switch (cfg->mode) {
	case GS_SHARE_EXCLUSIVE:
		return GS_MILLI_PER_GPU;
	case GS_SHARE_TIMESLICE:
	case GS_SHARE_MPS:
		return gs_share_slot_milli(cfg->replicas);
	case GS_SHARE_MIG:
		break;
	default:
		return p->gpu_milli;
	}
	t = gs_mig_table_for_model(nd->gpu_model);
	for (i = 0; e && i < *mig_seen; i++) {
		e = strchr(e, ',');
		e = e ? e + 1 : NULL;
	}
	(*mig_seen)++;
	if (!t || !e)
		return -1;
	len = strcspn(e, "@");
	if (len >= sizeof(name) || e[len] != '@')
		return -1;
	memcpy(name, e, len);
	name[len] = '\0';
	prof = gs_mig_profile_find(t, name);
	/* "PROFILE@START", then ',' or the end: "@4x" or "@" is not gpusim's. */
	if (e[len + 1] < '0' || e[len + 1] > '9')
		return -1;
	errno = 0;
	v = strtol(e + len + 1, &end, 10);
	if (errno || (*end != ',' && *end != '\0') || prof < 0 || v < 0 || v >= GS_MIG_MEM_SLICES)
		return -1;
	start = (int)v;
	/* Mark it busy: a fixed layout's instance, or one created for the pod. */
	inst = gs_mig_instance_at(&na->mig[p->gpus[k]], start);
	/* An instance already there must be of the pod's profile (the engine wrote the one it used). */
	if (inst >= 0 && na->mig[p->gpus[k]].inst[inst].profile != prof)
		return -1;
	if (inst < 0)
		inst = gs_mig_create(t, &na->mig[p->gpus[k]], prof, start);
	if (inst < 0)
		return -1;
	na->mig[p->gpus[k]].inst[inst].busy = 1;
	return gs_mig_profile_milli(&t->p[prof]);
}

/*
 * Adds up the pods that hold resources at in->t_s into in->alloc and
 * in->held. Returns 0, GS_ENOMEM, or GS_EDB with what is inconsistent in
 * err.
 */
static int add_pods(struct gs_run_state *in, char *err, size_t err_len)
{
	const struct gs_db_node *nodes = in->nodes;
	struct gs_run_state_node *alloc = in->alloc;
	int32_t *last;
	size_t i;
	int g;

	last = malloc((in->n_nodes ? in->n_nodes : 1) * sizeof(*last));
	if (!last)
		return gs_errf_nomem(err, err_len);
	for (i = 0; i < in->n_nodes; i++) {
		last[i] = -1;
		alloc[i].first_pod = -1;
		alloc[i].frag_milli = NAN;
		if (!node_modes(&nodes[i], &alloc[i])) {
			gs_errf(err, err_len, "run %" PRId64 " node %s: sharing '%s' is not "
				"a sharing spec gpusim writes", in->run_id, nodes[i].name,
				nodes[i].sharing);
			goto bad;
		}
	}
	for (i = 0; i < in->n_pods; i++) {
		const struct gs_db_pod *p = &in->pods[i];
		struct gs_run_state_node *na;
		struct gs_run_state_pod *hp;
		int mig_seen = 0;

		if (p->t_start_s < 0 || p->t_start_s > in->t_s)
			continue;
		if (p->t_end_s >= 0 && p->t_end_s <= in->t_s)
			continue;
		if (p->node_idx < 0 || (size_t)p->node_idx >= in->n_nodes) {
			gs_errf(err, err_len, "run %" PRId64 " pod %" PRId32
				" ran on node %" PRId32 ", the run has %zu nodes",
				in->run_id, p->pod_idx, p->node_idx, in->n_nodes);
			goto bad;
		}
		na = &alloc[p->node_idx];
		hp = &in->held[in->n_held];
		memset(hp, 0, sizeof(*hp));
		hp->pod = i;
		hp->next = -1;
		for (g = 0; g < p->n_gpus; g++) {
			int32_t cost;

			if (p->gpus[g] >= nodes[p->node_idx].num_gpu) {
				gs_errf(err, err_len, "run %" PRId64 " pod %" PRId32
					" holds GPU %u of node %s, which has %" PRId32 "",
					in->run_id, p->pod_idx, (unsigned)p->gpus[g],
					nodes[p->node_idx].name, nodes[p->node_idx].num_gpu);
				goto bad;
			}
			cost = gpu_cost(&nodes[p->node_idx], na, p, g, &mig_seen);
			if (cost < 0) {
				gs_errf(err, err_len, "run %" PRId64 " pod %" PRId32
					": MIG instance '%s' is not one gpusim writes",
					in->run_id, p->pod_idx, p->mig ? p->mig : "");
				goto bad;
			}
			hp->cost_milli[g] = cost;
			na->gpu_milli[p->gpus[g]] += cost;
			na->gpu_pods[p->gpus[g]]++;
		}
		na->gpu_mem_mib += p->gpu_mem_mib * p->n_gpus;
		na->cpu_milli += p->cpu_milli;
		na->mem_mib += p->memory_mib;
		na->pods++;
		/* Each node's pods in pod order. */
		if (last[p->node_idx] < 0)
			na->first_pod = (int32_t)in->n_held;
		else
			in->held[last[p->node_idx]].next = (int32_t)in->n_held;
		last[p->node_idx] = (int32_t)in->n_held;
		in->n_held++;
	}
	/* The engine never over-commits; a stored run that does is not to be trusted. */
	for (i = 0; i < in->n_nodes; i++) {
		alloc[i].free_milli = nodes[i].num_gpu * GS_MILLI_PER_GPU;
		for (g = 0; g < nodes[i].num_gpu; g++) {
			if (alloc[i].gpu_milli[g] > GS_MILLI_PER_GPU) {
				gs_errf(err, err_len, "run %" PRId64 " at t=%" PRId64
					": node %s GPU %d holds %" PRId32 " of %d milli",
					in->run_id, in->t_s, nodes[i].name, g, alloc[i].gpu_milli[g],
					GS_MILLI_PER_GPU);
				goto bad;
			}
			alloc[i].free_milli -= alloc[i].gpu_milli[g];
		}
		if (alloc[i].cpu_milli > nodes[i].cpu_milli ||
		    alloc[i].mem_mib > nodes[i].memory_mib) {
			gs_errf(err, err_len, "run %" PRId64 " at t=%" PRId64
				": node %s is over-committed (cpu %" PRId64 "/%" PRId32
				" milli, memory %" PRId64 "/%" PRId64 " MiB)",
				in->run_id, in->t_s, nodes[i].name, alloc[i].cpu_milli,
				nodes[i].cpu_milli, alloc[i].mem_mib, nodes[i].memory_mib);
			goto bad;
		}
	}
	free(last);
	return 0;
bad:
	free(last);
	return GS_EDB;
}

int gs_run_state_rebuild(struct gs_run_state *in, int64_t run_id, int64_t t_s,
			 const struct gs_db_node *nodes, size_t n_nodes,
			 const struct gs_db_pod *pods, size_t n_pods, char *err, size_t err_len)
{
	int rc;

	memset(in, 0, sizeof(*in));
	in->nodes = nodes;
	in->n_nodes = n_nodes;
	in->pods = pods;
	in->n_pods = n_pods;
	in->run_id = run_id;
	in->t_s = t_s;
	in->frag_note = "not computed";
	in->alloc = calloc(n_nodes ? n_nodes : 1, sizeof(*in->alloc));
	in->held = malloc((n_pods ? n_pods : 1) * sizeof(*in->held));
	if (!in->alloc || !in->held) {
		gs_run_state_release(in);
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	rc = add_pods(in, err, err_len);
	if (rc)
		gs_run_state_release(in);
	return rc;
}

int gs_run_state_load(struct gs_run_state *in, struct gs_db *db, int64_t run_id, int64_t t_s,
		      char *err, size_t err_len)
{
	struct gs_db_node *nodes = NULL;
	struct gs_db_pod *pods = NULL;
	size_t n_nodes = 0, n_pods = 0;
	int rc;

	memset(in, 0, sizeof(*in));
	rc = gs_db_load_nodes(db, run_id, &nodes, &n_nodes, err, err_len);
	if (!rc)
		rc = gs_db_load_pods(db, run_id, &pods, &n_pods, err, err_len);
	if (!rc)
		rc = gs_run_state_rebuild(in, run_id, t_s, nodes, n_nodes, pods, n_pods, err,
					  err_len);
	if (rc) {
		gs_db_pods_free(pods, n_pods);
		gs_db_nodes_free(nodes, n_nodes);
		return rc;
	}
	in->own_nodes = nodes;
	in->own_pods = pods;
	return 0;
}

void gs_run_state_release(struct gs_run_state *in)
{
	GS_MEM_FREE(in->alloc, in->held);
	in->alloc = NULL;
	in->held = NULL;
	in->n_held = 0;
	if (in->own_pods || in->own_nodes) {
		gs_db_pods_free(in->own_pods, in->n_pods);
		gs_db_nodes_free(in->own_nodes, in->n_nodes);
		in->own_pods = NULL;
		in->own_nodes = NULL;
		in->pods = NULL;
		in->nodes = NULL;
		in->n_pods = in->n_nodes = 0;
	}
}

/* --- fragmentation --------------------------------------------------------- */

/*
 * The model bit of name in models, added when new; -1 when the table is
 * full. Nodes and pod specs share one table, so a spec's mask means what
 * the run's reader made it mean.
 */
static int model_bit(struct gs_models *models, const char *name, size_t len)
{
	char buf[GS_MODEL_NAME_MAX];
	int idx;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	idx = gs_models_find(models, buf);
	if (idx < 0)
		idx = gs_models_set(models, buf, 0);
	return idx < 0 ? -1 : idx;
}

/* The run's coverage and kind rule, from its params_json (the defaults when absent). */
static void frag_params(const char *params_json, double *coverage, enum gs_kinds_by *by)
{
	cJSON *root = params_json ? cJSON_Parse(params_json) : NULL;
	const cJSON *cov = cJSON_GetObjectItem(root, "frag_coverage");
	const cJSON *compat = cJSON_GetObjectItem(root, "compat");

	*coverage = 0.95;
	*by = GS_KINDS_BY_MODEL_SET;
	if (cJSON_IsNumber(cov) && cov->valuedouble > 0 && cov->valuedouble <= 1)
		*coverage = cov->valuedouble;
	if (cJSON_IsTrue(compat))
		*by = GS_KINDS_BY_SPEC;
	cJSON_Delete(root);
}

int gs_run_state_frag(struct gs_run_state *in, const char *params_json)
{
	struct gs_models models;
	struct gs_workload w;
	struct gs_pod *tp = NULL;
	const char **specs = NULL;
	unsigned char *seen = NULL;
	size_t i, n = 0, n_src = 0;
	enum gs_kinds_by by;
	double coverage;
	int rc = 0, g;

	in->frag_known = false;
	gs_workload_init(&w);
	memset(&models, 0, sizeof(models));
	for (i = 0; i < in->n_nodes; i++) {
		if (in->nodes[i].num_gpu > 0 && in->nodes[i].gpu_model &&
		    model_bit(&models, in->nodes[i].gpu_model, strlen(in->nodes[i].gpu_model)) < 0) {
			in->frag_note = "more GPU models than gpusim tracks";
			return 0;
		}
	}
	/* The trace's rows: the first stored pod of each src_idx (clones repeat them). */
	for (i = 0; i < in->n_pods; i++)
		if (in->pods[i].src_idx >= 0 && (size_t)in->pods[i].src_idx >= n_src)
			n_src = (size_t)in->pods[i].src_idx + 1;
	tp = calloc(n_src ? n_src : 1, sizeof(*tp));
	specs = calloc(n_src ? n_src : 1, sizeof(*specs));
	seen = calloc(n_src ? n_src : 1, 1);
	if (!tp || !specs || !seen) {
		rc = GS_ENOMEM;
		goto out;
	}
	for (i = 0; i < in->n_pods; i++) {
		const struct gs_db_pod *p = &in->pods[i];
		struct gs_pod *q;
		const char *s;

		if (p->src_idx < 0 || seen[p->src_idx])
			continue;
		seen[p->src_idx] = 1;
		q = &tp[n];
		q->cpu_milli = p->cpu_milli;
		q->mem_mib = p->memory_mib;
		q->num_gpu = p->num_gpu;
		q->gpu_milli = p->gpu_milli;
		q->gpu_mem_mib = p->gpu_mem_mib;
		for (s = p->gpu_spec; s && *s;) {
			size_t len = strcspn(s, "|");
			int bit = model_bit(&models, s, len);

			if (bit < 0) {
				in->frag_note = "more GPU models than gpusim tracks";
				goto out;
			}
			q->model_mask |= 1u << bit;
			s += len + (s[len] == '|');
		}
		specs[n++] = p->gpu_spec;
	}
	frag_params(params_json, &coverage, &by);
	rc = gs_workload_typical_by(tp, specs, n, coverage, by, &w);
	if (rc == GS_EINVAL) {
		in->frag_note = "the run stored no pods";
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	for (i = 0; i < in->n_nodes; i++) {
		const struct gs_db_node *nd = &in->nodes[i];
		struct gs_node node;

		memset(&node, 0, sizeof(node));
		node.cpu_milli = nd->cpu_milli;
		node.cpu_free_milli = nd->cpu_milli - (int32_t)in->alloc[i].cpu_milli;
		node.mem_mib = nd->memory_mib;
		node.mem_free_mib = nd->memory_mib - in->alloc[i].mem_mib;
		node.num_gpu = nd->num_gpu;
		node.model = nd->num_gpu > 0 && nd->gpu_model
				     ? gs_models_find(&models, nd->gpu_model) : -1;
		for (g = 0; g < nd->num_gpu; g++) {
			node.gpu_free_milli[g] = GS_MILLI_PER_GPU - in->alloc[i].gpu_milli[g];
			node.gpu_mem_free_mib[g] = nd->gpu_mem_mib;
		}
		gs_node_refresh(&node);
		in->alloc[i].frag_milli = gs_node_frag(&node, &w);
	}
	in->frag_known = true;
	in->frag_note = NULL;
out:
	gs_workload_release(&w);
	free(seen);
	free(specs);
	free(tp);
	return rc;
}
