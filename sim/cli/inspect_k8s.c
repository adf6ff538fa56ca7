/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect_k8s.c - `gpusim inspect --state FILE...`: a Kubernetes snapshot
 * as gpusim reads it, before any replay.
 *
 * The snapshot is built into a cluster with its running pods bound
 * (io/k8s/build.h); the node table is the one `inspect --run` shows, fed
 * with the cluster's nodes and the running pods as if they were a stored
 * run at t = 0, so every option of the run view (-o, --sort, --details,
 * --raw, --json, the filters) works the same. DRA allocations show as
 * rows of their claims on the GPUs they use. Then, without --raw and
 * --json: the pending pods (the queue a replay starts with; with -d one
 * line each, with the nodes they may use and those they fit on now), the
 * DRA claims and their devices, and what the build noted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols/libsmartcols.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/inspect_internal.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "engine/replay.h"
#include "io/k8s/build.h"

/* Everything one snapshot inspection holds. */
struct snap_view {
	struct gs_k8s_snapshot *s;
	struct gs_k8s_state *st;
	struct gs_cluster c;
	struct gs_trace queue;
	struct gs_db_node *nodes;
	struct gs_db_pod *pods;
	size_t n_pods, cap_pods;
	bool *synthetic;              /* [pod]: a DRA claim's row, not a pod */
};

static void view_release(struct snap_view *v)
{
	size_t i;

	for (i = 0; v->nodes && i < (size_t)v->c.n_nodes; i++)
		GS_MEM_FREE(v->nodes[i].name, v->nodes[i].gpu_model, v->nodes[i].sharing);
	free(v->nodes);
	for (i = 0; i < v->n_pods; i++)
		GS_MEM_FREE(v->pods[i].name, v->pods[i].mig);
	GS_MEM_FREE(v->pods, v->synthetic);
	gs_k8s_state_free(v->st);
	gs_k8s_snapshot_free(v->s);
	gs_trace_release(&v->queue);
	gs_cluster_release(&v->c);
}

static struct gs_db_pod *new_row(struct snap_view *v, const char *name, bool synthetic)
{
	struct gs_db_pod *p;

	if (v->n_pods == v->cap_pods) {
		size_t cap = gs_grow_cap(v->cap_pods, 64);

		if (GS_GROW_RESIZE(v->pods, cap) || GS_GROW_RESIZE(v->synthetic, cap))
			return NULL;
		v->cap_pods = cap;
	}
	p = &v->pods[v->n_pods];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		return NULL;
	p->pod_idx = (int32_t)v->n_pods;
	p->src_idx = -1;
	p->state = GS_POD_RUNNING;
	p->t_arrive_s = p->t_start_s = 0;
	p->t_end_s = p->wait_s = -1;
	p->coloc = 0;
	v->synthetic[v->n_pods++] = synthetic;
	return p;
}

/* "3g.40gb@4,..." for the MIG instances a placement holds, or NULL. */
static char *mig_text(const struct gs_cluster *c, const struct gs_placement *pl)
{
	const struct gs_mig_table *t = gs_cluster_mig_table(c, pl->node);
	char buf[256] = "";
	int32_t g;

	if (!t || !c->share)
		return NULL;
	for (g = 0; g < pl->num_gpu; g++) {
		const struct gs_gpu_share *gs = &c->share[pl->node].gpu[pl->gpu[g]];
		int k;

		if (gs->mode != GS_SHARE_MIG || !pl->mig[g])
			continue;
		k = gs_mig_instance_at(&gs->mig, pl->mig[g] - 1);
		if (k < 0)
			continue;
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s@%d", *buf ? "," : "",
			 t->p[gs->mig.inst[k].profile].name, pl->mig[g] - 1);
	}
	return *buf ? strdup(buf) : NULL;
}

static int build_rows(struct snap_view *v)
{
	const struct gs_k8s_snapshot *s = v->s;
	const struct gs_dra_state *ds = gs_k8s_dra_state(v->st, &v->c);
	int32_t i, k, g;
	size_t p;

	v->nodes = calloc((size_t)v->c.n_nodes + 1, sizeof(*v->nodes));
	if (!v->nodes)
		return GS_ENOMEM;
	for (i = 0; i < v->c.n_nodes; i++) {
		const struct gs_node *n = &v->c.nodes[i];
		struct gs_db_node *d = &v->nodes[i];
		char share[GS_SHARE_SPEC_MAX * GS_MAX_GPUS];

		d->idx = i;
		d->name = strdup(v->c.node_names[i]);
		d->cpu_milli = n->cpu_milli;
		d->memory_mib = n->mem_mib;
		d->num_gpu = n->num_gpu;
		if (n->num_gpu) {
			d->gpu_model = strdup(v->c.models.m[n->model].name);
			d->gpu_mem_mib = v->c.models.m[n->model].mem_mib;
		}
		gs_cluster_node_share_text(&v->c, i, share, sizeof(share));
		if (*share)
			d->sharing = strdup(share);
		if (!d->name || (n->num_gpu && !d->gpu_model) || (*share && !d->sharing))
			return GS_ENOMEM;
	}
	for (p = 0; p < s->n_pods; p++) {
		const struct gs_k8s_pod *kp = &s->pods[p];
		const struct gs_pod *req = &v->st->req[p];
		const struct gs_placement *pl = &v->st->pl[p];
		struct gs_db_pod *row;
		char name[600];

		if (v->st->role[p] != GS_K8S_ROLE_RUNNING)
			continue;
		snprintf(name, sizeof(name), "%s/%s", kp->o.ns, kp->o.name);
		if (!(row = new_row(v, name, false)))
			return GS_ENOMEM;
		row->cpu_milli = req->cpu_milli;
		row->memory_mib = req->mem_mib;
		row->num_gpu = pl->num_gpu ? req->num_gpu : 0;
		row->gpu_milli = pl->num_gpu ? req->gpu_milli : 0;
		row->gpu_mem_mib = pl->num_gpu ? req->gpu_mem_mib : 0;
		row->node_idx = pl->node;
		row->n_gpus = pl->num_gpu;
		memcpy(row->gpus, pl->gpu, sizeof(row->gpus));
		row->mig = mig_text(&v->c, pl);
		if (!ds)
			continue;
		/* The devices of the pod's claims, one row per claim and GPU, with its first user. */
		for (k = 0; k < kp->n_claims; k++) {
			int32_t c = gs_dra_claim_index(v->st->dra, kp->claims[k].c);
			struct gs_devices_use use;
			size_t q;
			bool first = true;

			for (q = 0; q < p; q++) {
				int32_t j;

				for (j = 0; v->st->role[q] == GS_K8S_ROLE_RUNNING &&
					    j < s->pods[q].n_claims; j++)
					first &= s->pods[q].claims[j].c != kp->claims[k].c;
			}
			if (!first)
				continue;
			gs_dra_claim_use(ds, c, &use);
			for (g = 0; g < GS_MAX_GPUS; g++) {
				if (!use.gpu_milli[g] && !use.gpu_mem_mib[g])
					continue;
				snprintf(name, sizeof(name), "  claim %s/%s", kp->claims[k].c->o.ns,
					 kp->claims[k].c->o.name);
				if (!(row = new_row(v, name, true)))
					return GS_ENOMEM;
				row->num_gpu = 1;
				row->gpu_milli = use.gpu_milli[g];
				row->gpu_mem_mib = use.gpu_mem_mib[g];
				row->node_idx = pl->node;
				row->n_gpus = 1;
				row->gpus[0] = (uint8_t)g;
			}
		}
	}
	return 0;
}

/* What a pod asks of GPUs, in words. */
static const char *gpu_words(const struct gs_k8s_pod *kp, const struct gs_pod *r, char *buf,
			     size_t len)
{
	if (kp->n_claims)
		snprintf(buf, len, "%d claim%s", (int)kp->n_claims, kp->n_claims > 1 ? "s" : "");
	else if (gs_pod_cpu_only(r))
		snprintf(buf, len, "-");
	else if (r->gpu_mem_mib)
		snprintf(buf, len, "%dx%d/%" PRId64 "MiB", (int)r->num_gpu, (int)r->gpu_milli,
			 r->gpu_mem_mib);
	else
		snprintf(buf, len, "%dx%d", (int)r->num_gpu, (int)r->gpu_milli);
	return buf;
}

static void print_queue(const struct gs_inspect_args *a, struct snap_view *v)
{
	const struct gs_k8s_state *st = v->st;
	size_t i;
	int32_t n;

	printf("\nPending: %zu pods, the queue a replay starts with", st->n_queue);
	if (st->t0_s >= 0 && st->n_queue)
		printf(" (arrivals from the first one's creationTimestamp)");
	printf("\n");
	if (!a->details || !st->n_queue)
		return;
	printf("  %-40s %8s %8s %-18s %8s %8s\n", "POD", "CPU", "MEM(Mi)", "GPU", "NODES", "FITS");
	for (i = 0; i < st->n_queue; i++) {
		int32_t p = st->queue[i], ok = 0, fits = 0;
		const struct gs_k8s_pod *kp = &v->s->pods[p];
		const struct gs_pod *r = &v->queue.pods[i];
		char name[600], gw[64];

		for (n = 0; n < v->c.n_nodes; n++) {
			enum gs_fit f = gs_cluster_fits(&v->c, n, r);

			ok += f != GS_FIT_SELECTOR;
			fits += f == GS_FIT_OK;
		}
		snprintf(name, sizeof(name), "%s/%s", kp->o.ns, kp->o.name);
		printf("  %-40s %8.2f %8" PRId64 " %-18s %8d %8d\n", name, r->cpu_milli / 1000.0,
		       r->mem_mib, gpu_words(kp, r, gw, sizeof(gw)), (int)ok, (int)fits);
	}
	printf("  (NODES: nodes its selectors, tolerations and resources admit; FITS: those "
	       "with room now)\n");
}

static void print_claims(struct snap_view *v)
{
	const struct gs_dra_state *ds = gs_k8s_dra_state(v->st, &v->c);
	const struct gs_k8s_snapshot *s = v->s;
	size_t c;

	if (!ds || !s->n_claims)
		return;
	printf("\nResourceClaims (resource.k8s.io/v1):\n");
	printf("  %-32s %-12s %5s %-22s %s\n", "CLAIM", "NODE", "USERS", "SHARING", "DEVICES");
	for (c = 0; c < s->n_claims; c++) {
		const struct gs_k8s_claim *k = &s->claims[c];
		const struct gs_share_cfg *cfg = gs_dra_claim_sharing(v->st->dra, (int32_t)c);
		const char *req, *drv, *pool, *dev;
		char name[600], devs[1024] = "", rb[200], spec[GS_SHARE_SPEC_MAX];
		int32_t node, i;
		bool alloc = gs_dra_claim_allocated(ds, (int32_t)c, &node);

		for (i = 0; gs_dra_claim_result(ds, (int32_t)c, i, &req, rb, sizeof(rb), &drv, &pool,
						&dev); i++)
			snprintf(devs + strlen(devs), sizeof(devs) - strlen(devs), "%s%s=%s/%s",
				 i ? ", " : "", req, pool, dev);
		snprintf(name, sizeof(name), "%s/%s", k->o.ns, k->o.name);
		printf("  %-32s %-12s %5d %-22s %s\n", name,
		       !alloc ? "(pending)" : node >= 0 ? v->c.node_names[node] : "(any)",
		       (int)gs_dra_claim_users(ds, (int32_t)c),
		       cfg ? gs_share_format(cfg, spec, sizeof(spec)) : "-", alloc ? devs : "-");
	}
}

static void print_notes(struct snap_view *v)
{
	const struct gs_k8s_snapshot *s = v->s;
	size_t i;
	int k;

	for (i = 0; i < s->n_nodes; i++) {
		const struct gs_k8s_node_gpu *g = &v->st->nodes[i];

		if (g->kind == GS_K8S_GPU_NONE)
			continue;
		printf("%s %s: %s%s%s%s%s%s\n", i == 0 ? "\nNodes:\n " : " ", s->nodes[i].o.name,
		       gs_k8s_gpu_kind_str(g->kind), g->product ? ", " : "",
		       g->product ? g->product : "", g->source ? ", from " : "",
		       g->source ? g->source : "", "");
		if (*g->note)
			printf("    note: %s\n", g->note);
	}
	if (s->n_finished)
		printf("\n%" PRId64 " finished pod%s (Succeeded or Failed) hold%s nothing and %s left "
		       "out\n", s->n_finished, s->n_finished == 1 ? "" : "s",
		       s->n_finished == 1 ? "s" : "", s->n_finished == 1 ? "is" : "are");
	if (s->n_expanded)
		printf("%" PRId64 " pods made from workloads whose pods the snapshot lacks\n",
		       s->n_expanded);
	for (k = 0; k < s->n_skipped; k++)
		printf("%s%" PRId64 " %s%s", k == 0 ? "Not modelled, skipped: " : ", ",
		       s->skipped[k].n, s->skipped[k].kind, k + 1 == s->n_skipped ? "\n" : "");
}

int gs_inspect_snapshot(const struct gs_inspect_args *a)
{
	struct snap_view v;
	struct gs_run_state in;
	struct gs_inspect_args view = *a;
	struct gs_run_row run;
	char err[2048], title[1024];
	int rc, status;
	size_t i;

	memset(&v, 0, sizeof(v));
	gs_cluster_init(&v.c);
	gs_trace_init(&v.queue);
	rc = gs_k8s_load(a->state.v, a->state.n, &v.s, &v.c, &v.queue, &v.st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		view_release(&v);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	if (build_rows(&v)) {
		fprintf(stderr, "gpusim inspect: out of memory\n");
		view_release(&v);
		return GS_EXIT_FAIL;
	}
	rc = gs_run_state_rebuild(&in, 0, 0, v.nodes, (size_t)v.c.n_nodes, v.pods, v.n_pods, err,
				  sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		view_release(&v);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	/* A claim's rows are not pods. */
	for (i = 0; i < v.n_pods; i++)
		if (v.synthetic[i])
			in.alloc[v.pods[i].node_idx].pods--;
	in.frag_note = "a snapshot has no trace to take typical pods from";
	snprintf(title, sizeof(title), "snapshot %s: %d nodes, %" PRId64 " GPUs, %zu running pods, "
		 "%zu pending", v.s->paths, (int)v.c.n_nodes, v.c.gpu_count, v.st->n_running,
		 v.st->n_queue);
	view.title = title;
	memset(&run, 0, sizeof(run));
	run.policy = (char *)"-";
	run.mode = (char *)"snapshot";
	run.pods_file = v.s->paths;
	status = gs_inspect_show(&view, &run, NULL, &in);
	if (status == GS_EXIT_OK && !a->raw && !a->json) {
		print_queue(a, &v);
		print_claims(&v);
		print_notes(&v);
	}
	gs_run_state_release(&in);
	view_release(&v);
	return status;
}
