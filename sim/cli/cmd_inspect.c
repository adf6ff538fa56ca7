/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_inspect.c - `gpusim inspect`: what is in a results database.
 *
 * Without --run it lists the stored runs with their headline numbers. With
 * --run it rebuilds the cluster's allocation at one simulated time from the
 * run's pods table and prints it one node per row, one column per GPU, in
 * the manner of `kubectl inspect gpushare`. The rebuild reads only the
 * database, so any stored run can be looked at later, at any time, except
 * one stored with --no-pods, which has no pod rows to rebuild from.
 *
 * With sharing modes (run_nodes.sharing) each pod is counted as its GPU's
 * mode counted it (a whole GPU under exclusive, a replica under timeslice
 * and mps, its instance under mig), a SHARING column names each node's
 * modes, and the MIG instances of every MIG GPU in use are listed below
 * the table, idle instances of fixed layouts included.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/opt.h"
#include "cli/cmd.h"
#include "core/error.h"
#include "core/mig.h"
#include "core/sharing.h"
#include "store/results.h"

enum at_kind { AT_END, AT_PEAK, AT_TIME };

/* Target of --at. */
struct at_spec {
	enum at_kind kind;
	int64_t t_s;   /* AT_TIME */
};

struct inspect_args {
	const char *db_path;
	int64_t run_id;          /* -1: list runs */
	struct at_spec at;
	int all_nodes;           /* --nodes all */
	bool json;
};

/* Converter of --at: 'end', 'peak' or a time in seconds. */
static int parse_at(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		    void *field)
{
	struct at_spec *at = field;

	if (!strcmp(value, "end")) {
		at->kind = AT_END;
	} else if (!strcmp(value, "peak")) {
		at->kind = AT_PEAK;
	} else {
		if (gs_opt_int(cmd, o, value, 0, INT64_MAX, &at->t_s))
			return GS_EINVAL;
		at->kind = AT_TIME;
	}
	return 0;
}

static const struct gs_opt_choice node_sets[] = { { "used", 0 }, { "all", 1 }, { NULL, 0 } };

#define S struct inspect_args
static const struct gs_opt inspect_opts[] = {
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .short_name = 'd', .arg = "FILE",
	  .flags = GS_OPT_REQUIRED, .help = "results database written by gpusim replay" },
	{ GS_OPT_INT_AT(S, run_id, 0, INT64_MAX), .name = "run", .short_name = 'r', .arg = "ID",
	  .help = "the run to show (ids from the list)" },
	{ GS_OPT_CUSTOM_AT(S, at, struct at_spec, parse_at, NULL), .name = "at", .short_name = 't',
	  .arg = "T", .requires = "run",
	  .help = "simulated time in seconds (inflate mode: the arrival index); 'end' (default) "
		  "after the last event, 'peak' the sampled time of the highest GPU allocation" },
	{ GS_OPT_ENUM_AT(S, all_nodes, node_sets), .name = "nodes", .short_name = 'n',
	  .arg = "WHICH",
	  .help = "'used' (default): nodes with any pod at T, and a count of the idle ones; "
		  "'all': every node" },
	{ GS_OPT_FLAG_AT(S, json), .name = "json", .short_name = 'j',
	  .help = "print JSON instead of a table" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec inspect_cmd = {
	.name = "inspect",
	.intro = "Without --run, lists the complete runs stored in FILE: policy, mode, seed,\n"
		 "pods file, placed and failed pods and unallocated GPU share in percent\n"
		 "(inflate mode: at arrived workload 100%; time mode: time-weighted).\n"
		 "\n"
		 "With --run, shows the allocation of each node at simulated time T, rebuilt\n"
		 "from the run's pods: a pod counts when it started at or before T and had\n"
		 "not ended by T. GPU columns are the compute share in milli-GPU, allocated\n"
		 "over total (1000 = one whole GPU); CPU is in milli-cores, memory in MiB.\n"
		 "A run stored with --no-pods has no pod rows and cannot be shown this way.\n",
	.outro = "Exit status: 0 success, 1 the database is inconsistent or unreadable,\n"
		 "2 bad usage, a missing database, an unknown run id or a run stored with\n"
		 "--no-pods.\n",
	.opts = inspect_opts,
};

/* Exit status for a store error: bad input unless we ran out of memory or SQLite failed. */
static int exit_for(int rc)
{
	return rc == GS_ENOMEM || rc == GS_EDB ? GS_EXIT_FAIL : GS_EXIT_USAGE;
}

/* "12.3" or "-" for NULL, into buf. */
static const char *fmt_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static void json_number_or_null(cJSON *obj, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(obj, key);
	else
		cJSON_AddNumberToObject(obj, key, v);
}

static int print_json(cJSON *root)
{
	char *text = root ? cJSON_Print(root) : NULL;

	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "gpusim inspect: out of memory\n");
		return GS_EXIT_FAIL;
	}
	printf("%s\n", text);
	cJSON_free(text);
	return GS_EXIT_OK;
}

static cJSON *run_json(const struct gs_run_row *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	cJSON_AddStringToObject(o, "policy", r->policy);
	cJSON_AddStringToObject(o, "mode", r->mode);
	cJSON_AddNumberToObject(o, "seed", (double)r->seed);
	if (r->pods_file)
		cJSON_AddStringToObject(o, "pods_file", r->pods_file);
	else
		cJSON_AddNullToObject(o, "pods_file");
	cJSON_AddNumberToObject(o, "n_pods", (double)r->n_pods);
	cJSON_AddNumberToObject(o, "n_placed", (double)r->n_placed);
	cJSON_AddNumberToObject(o, "n_failed", (double)r->n_failed);
	json_number_or_null(o, "gpu_alloc_pct", r->gpu_alloc_pct);
	json_number_or_null(o, "unalloc_gpu_pct", r->unalloc_gpu_pct);
	json_number_or_null(o, "frag_ratio_pct", r->frag_ratio_pct);
	json_number_or_null(o, "mean_wait_s", r->mean_wait_s);
	json_number_or_null(o, "wall_ms", r->wall_ms);
	cJSON_AddNumberToObject(o, "t_end_s", (double)r->t_end_s);
	cJSON_AddBoolToObject(o, "pods_stored", r->pods_stored);
	return o;
}

static int list_runs(struct gs_db *db, const struct inspect_args *a)
{
	struct gs_run_row *rows = NULL;
	size_t n = 0, i;
	char err[1024], pct[32];
	int w_pol = 6, w_pods = 4, rc;

	rc = gs_db_list_runs(db, &rows, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		return exit_for(rc);
	}
	if (a->json) {
		cJSON *root = cJSON_CreateObject();
		cJSON *arr = cJSON_AddArrayToObject(root, "runs");

		for (i = 0; arr && i < n; i++)
			cJSON_AddItemToArray(arr, run_json(&rows[i]));
		gs_run_rows_free(rows, n);
		return print_json(root);
	}
	if (n == 0) {
		printf("%s: no complete runs\n", a->db_path);
		return GS_EXIT_OK;
	}
	for (i = 0; i < n; i++) {
		int lp = (int)strlen(rows[i].policy);
		int lf = rows[i].pods_file ? (int)strlen(rows[i].pods_file) : 1;

		w_pol = lp > w_pol ? lp : w_pol;
		w_pods = lf > w_pods ? lf : w_pods;
	}
	printf("%-5s  %-*s  %-7s  %-6s  %-*s  %8s  %8s  %9s\n", "ID", w_pol, "POLICY", "MODE",
	       "SEED", w_pods, "PODS", "PLACED", "FAILED", "UNALLOC%");
	for (i = 0; i < n; i++) {
		const struct gs_run_row *r = &rows[i];

		printf("%-5" PRId64 "  %-*s  %-7s  %-6" PRIu64 "  %-*s  %8" PRId64 "  %8" PRId64
		       "  %9s\n",
		       r->run_id, w_pol, r->policy, r->mode, r->seed, w_pods,
		       r->pods_file ? r->pods_file : "-", r->n_placed, r->n_failed,
		       fmt_pct(r->unalloc_gpu_pct, pct, sizeof(pct)));
	}
	gs_run_rows_free(rows, n);
	return GS_EXIT_OK;
}

/* Allocation of one node at the inspected time. */
struct node_alloc {
	int32_t gpu_milli[GS_MAX_GPUS];
	int64_t cpu_milli;
	int64_t mem_mib;
	int32_t pods;
	/* Sharing: each GPU's mode and its MIG instances at t. */
	bool shared;
	struct gs_share_cfg cfg[GS_MAX_GPUS];
	struct gs_mig_gpu mig[GS_MAX_GPUS];
	int32_t gpu_pods[GS_MAX_GPUS];
};

/*
 * Reads a node's run_nodes.sharing (one spec, or one per GPU joined by
 * '|') into na->cfg and creates the fixed MIG layouts. Returns false for
 * text gpusim did not write.
 */
static bool node_modes(const struct gs_db_node *nd, struct node_alloc *na)
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
static int32_t gpu_cost(const struct gs_db_node *nd, struct node_alloc *na,
			const struct gs_db_pod *p, int k, int *mig_seen)
{
	const struct gs_share_cfg *cfg = &na->cfg[p->gpus[k]];
	const struct gs_mig_table *t;
	const char *e = p->mig;
	char name[GS_MIG_NAME_MAX];
	int i, prof, start, inst;
	size_t len;

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
	start = atoi(e + len + 1);
	if (prof < 0 || start < 0 || start >= GS_MIG_MEM_SLICES)
		return -1;
	/* Mark it busy: a fixed layout's instance, or one created for the pod. */
	inst = gs_mig_instance_at(&na->mig[p->gpus[k]], start);
	if (inst < 0)
		inst = gs_mig_create(t, &na->mig[p->gpus[k]], prof, start);
	if (inst < 0)
		return -1;
	na->mig[p->gpus[k]].inst[inst].busy = 1;
	return gs_mig_profile_milli(&t->p[prof]);
}

/*
 * Adds up the pods that hold resources at t_s. A pod counts when it
 * started at or before t_s and had not ended by then (no end: still
 * running). Returns 0, or GS_EDB after printing what is inconsistent.
 */
static int rebuild(const struct gs_db_node *nodes, size_t n_nodes, const struct gs_db_pod *pods,
		   size_t n_pods, int64_t run_id, int64_t t_s, struct node_alloc *alloc)
{
	size_t i;
	int g;

	for (i = 0; i < n_nodes; i++) {
		if (!node_modes(&nodes[i], &alloc[i])) {
			fprintf(stderr, "gpusim inspect: run %" PRId64 " node %s: sharing '%s' is not "
				"a sharing spec gpusim writes\n", run_id, nodes[i].name,
				nodes[i].sharing);
			return GS_EDB;
		}
	}
	for (i = 0; i < n_pods; i++) {
		const struct gs_db_pod *p = &pods[i];
		struct node_alloc *na;
		int mig_seen = 0;

		if (p->t_start_s < 0 || p->t_start_s > t_s)
			continue;
		if (p->t_end_s >= 0 && p->t_end_s <= t_s)
			continue;
		if (p->node_idx < 0 || (size_t)p->node_idx >= n_nodes) {
			fprintf(stderr, "gpusim inspect: run %" PRId64 " pod %" PRId32
				" ran on node %" PRId32 ", the run has %zu nodes\n",
				run_id, p->pod_idx, p->node_idx, n_nodes);
			return GS_EDB;
		}
		na = &alloc[p->node_idx];
		for (g = 0; g < p->n_gpus; g++) {
			if (p->gpus[g] >= nodes[p->node_idx].num_gpu) {
				fprintf(stderr, "gpusim inspect: run %" PRId64 " pod %" PRId32
					" holds GPU %u of node %s, which has %" PRId32 "\n",
					run_id, p->pod_idx, (unsigned)p->gpus[g],
					nodes[p->node_idx].name, nodes[p->node_idx].num_gpu);
				return GS_EDB;
			}
			{
				int32_t cost = gpu_cost(&nodes[p->node_idx], na, p, g, &mig_seen);

				if (cost < 0) {
					fprintf(stderr, "gpusim inspect: run %" PRId64 " pod %" PRId32
						": MIG instance '%s' is not one gpusim writes\n",
						run_id, p->pod_idx, p->mig ? p->mig : "");
					return GS_EDB;
				}
				na->gpu_milli[p->gpus[g]] += cost;
				na->gpu_pods[p->gpus[g]]++;
			}
		}
		na->cpu_milli += p->cpu_milli;
		na->mem_mib += p->memory_mib;
		na->pods++;
	}
	/* The engine never over-commits; a stored run that does is not to be trusted. */
	for (i = 0; i < n_nodes; i++) {
		for (g = 0; g < nodes[i].num_gpu; g++) {
			if (alloc[i].gpu_milli[g] > GS_MILLI_PER_GPU) {
				fprintf(stderr, "gpusim inspect: run %" PRId64 " at t=%" PRId64
					": node %s GPU %d holds %" PRId32 " of %d milli\n",
					run_id, t_s, nodes[i].name, g, alloc[i].gpu_milli[g],
					GS_MILLI_PER_GPU);
				return GS_EDB;
			}
		}
		if (alloc[i].cpu_milli > nodes[i].cpu_milli ||
		    alloc[i].mem_mib > nodes[i].memory_mib) {
			fprintf(stderr, "gpusim inspect: run %" PRId64 " at t=%" PRId64
				": node %s is over-committed (cpu %" PRId64 "/%" PRId32
				" milli, memory %" PRId64 "/%" PRId64 " MiB)\n",
				run_id, t_s, nodes[i].name, alloc[i].cpu_milli, nodes[i].cpu_milli,
				alloc[i].mem_mib, nodes[i].memory_mib);
			return GS_EDB;
		}
	}
	return 0;
}

struct totals {
	int64_t gpu_alloc_milli, gpu_milli;
	int64_t cpu_alloc_milli, cpu_milli;
	int64_t mem_alloc_mib, mem_mib;
	int64_t gpus_in_use, gpus;
	int64_t pods;
	size_t idle_nodes;
};

static void add_up(const struct gs_db_node *nodes, size_t n_nodes,
		   const struct node_alloc *alloc, struct totals *t)
{
	size_t i;
	int g;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n_nodes; i++) {
		for (g = 0; g < nodes[i].num_gpu; g++) {
			t->gpu_alloc_milli += alloc[i].gpu_milli[g];
			t->gpus_in_use += alloc[i].gpu_milli[g] > 0;
		}
		t->gpus += nodes[i].num_gpu;
		t->gpu_milli += (int64_t)nodes[i].num_gpu * GS_MILLI_PER_GPU;
		t->cpu_alloc_milli += alloc[i].cpu_milli;
		t->cpu_milli += nodes[i].cpu_milli;
		t->mem_alloc_mib += alloc[i].mem_mib;
		t->mem_mib += nodes[i].memory_mib;
		t->pods += alloc[i].pods;
		t->idle_nodes += alloc[i].pods == 0;
	}
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "4g.40gb@0 busy, 3g.40gb@4 idle" for one MIG GPU. */
static void mig_text(const struct gs_mig_table *t, const struct gs_mig_gpu *g, char *buf,
		     size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < g->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s@%d %s", i ? ", " : "",
					 t->p[g->inst[i].profile].name, g->inst[i].start,
					 g->inst[i].busy ? "busy" : "idle");
}

static int show_json(const struct inspect_args *a, const struct gs_run_row *run, int64_t t_s,
		     const struct gs_db_node *nodes, size_t n_nodes,
		     const struct node_alloc *alloc, const struct totals *t)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr, *tot;
	size_t i;
	int g;

	if (!root)
		return print_json(NULL);
	cJSON_AddItemToObject(root, "run", run_json(run));
	cJSON_AddNumberToObject(root, "t_s", (double)t_s);
	arr = cJSON_AddArrayToObject(root, "nodes");
	for (i = 0; arr && i < n_nodes; i++) {
		cJSON *o, *gpus;

		if (!a->all_nodes && alloc[i].pods == 0)
			continue;
		o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddNumberToObject(o, "idx", nodes[i].idx);
		cJSON_AddStringToObject(o, "name", nodes[i].name);
		if (nodes[i].gpu_model)
			cJSON_AddStringToObject(o, "gpu_model", nodes[i].gpu_model);
		else
			cJSON_AddNullToObject(o, "gpu_model");
		gpus = cJSON_AddArrayToObject(o, "gpu_alloc_milli");
		for (g = 0; gpus && g < nodes[i].num_gpu; g++)
			cJSON_AddItemToArray(gpus, cJSON_CreateNumber(alloc[i].gpu_milli[g]));
		if (nodes[i].sharing)
			cJSON_AddStringToObject(o, "sharing", nodes[i].sharing);
		else
			cJSON_AddNullToObject(o, "sharing");
		if (alloc[i].shared && gs_mig_table_for_model(nodes[i].gpu_model)) {
			cJSON *mig = cJSON_AddArrayToObject(o, "mig");
			char buf[512];

			for (g = 0; mig && g < nodes[i].num_gpu; g++) {
				mig_text(gs_mig_table_for_model(nodes[i].gpu_model), &alloc[i].mig[g], buf,
					 sizeof(buf));
				cJSON_AddItemToArray(mig, cJSON_CreateString(buf));
			}
		}
		cJSON_AddNumberToObject(o, "cpu_alloc_milli", (double)alloc[i].cpu_milli);
		cJSON_AddNumberToObject(o, "cpu_milli", nodes[i].cpu_milli);
		cJSON_AddNumberToObject(o, "mem_alloc_mib", (double)alloc[i].mem_mib);
		cJSON_AddNumberToObject(o, "memory_mib", (double)nodes[i].memory_mib);
		cJSON_AddNumberToObject(o, "pods", alloc[i].pods);
		cJSON_AddItemToArray(arr, o);
	}
	tot = cJSON_AddObjectToObject(root, "cluster");
	if (tot) {
		cJSON_AddNumberToObject(tot, "gpu_alloc_milli", (double)t->gpu_alloc_milli);
		cJSON_AddNumberToObject(tot, "gpu_milli", (double)t->gpu_milli);
		cJSON_AddNumberToObject(tot, "gpus_in_use", (double)t->gpus_in_use);
		cJSON_AddNumberToObject(tot, "gpus", (double)t->gpus);
		cJSON_AddNumberToObject(tot, "cpu_alloc_milli", (double)t->cpu_alloc_milli);
		cJSON_AddNumberToObject(tot, "cpu_milli", (double)t->cpu_milli);
		cJSON_AddNumberToObject(tot, "mem_alloc_mib", (double)t->mem_alloc_mib);
		cJSON_AddNumberToObject(tot, "memory_mib", (double)t->mem_mib);
		cJSON_AddNumberToObject(tot, "pods", (double)t->pods);
		cJSON_AddNumberToObject(tot, "idle_nodes", (double)t->idle_nodes);
	}
	return print_json(root);
}

/* Width of "a/b" for the widest values of a column. */
static int cell_width(int64_t a, int64_t b)
{
	char buf[48];

	return snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64, a, b);
}

static void print_cell(int64_t a, int64_t b, int width)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64, a, b);
	printf("  %-*s", width, buf);
}

/* The MIG instances of the MIG GPUs of the nodes shown. */
static void show_mig(const struct inspect_args *a, const struct gs_db_node *nodes,
		     size_t n_nodes, const struct node_alloc *alloc)
{
	char buf[512];
	size_t i;
	int g, first = 1;

	for (i = 0; i < n_nodes; i++) {
		const struct gs_mig_table *t = gs_mig_table_for_model(nodes[i].gpu_model);

		if (!alloc[i].shared || !t || (!a->all_nodes && alloc[i].pods == 0))
			continue;
		for (g = 0; g < nodes[i].num_gpu; g++) {
			if (alloc[i].cfg[g].mode != GS_SHARE_MIG || alloc[i].mig[g].n == 0)
				continue;
			if (first)
				printf("\nMIG instances (profile@first memory slice):\n");
			first = 0;
			mig_text(t, &alloc[i].mig[g], buf, sizeof(buf));
			printf("  %s GPU%d: %s\n", nodes[i].name, g, buf);
		}
	}
}

static void show_table(const struct inspect_args *a, const struct gs_run_row *run, int64_t t_s,
		       const struct gs_db_node *nodes, size_t n_nodes,
		       const struct node_alloc *alloc, const struct totals *t)
{
	int w_name = 4, w_model = 5, w_gpu = 0, w_cpu = 0, w_mem = 0, max_gpus = 0, w_share = 0;
	char head[48];
	size_t i, shown = 0;
	int g, w, rule;

	printf("run %" PRId64 ": %s, %s mode, seed %" PRIu64 ", pods %s, at t=%" PRId64
	       " (end t=%" PRId64 ")\n\n",
	       run->run_id, run->policy, run->mode, run->seed,
	       run->pods_file ? run->pods_file : "-", t_s, run->t_end_s);
	for (i = 0; i < n_nodes; i++) {
		if (!a->all_nodes && alloc[i].pods == 0)
			continue;
		shown++;
		w = (int)strlen(nodes[i].name);
		w_name = w > w_name ? w : w_name;
		w = nodes[i].gpu_model ? (int)strlen(nodes[i].gpu_model) : 1;
		w_model = w > w_model ? w : w_model;
		max_gpus = nodes[i].num_gpu > max_gpus ? nodes[i].num_gpu : max_gpus;
		w = cell_width(alloc[i].cpu_milli, nodes[i].cpu_milli);
		w_cpu = w > w_cpu ? w : w_cpu;
		w = cell_width(alloc[i].mem_mib, nodes[i].memory_mib);
		w_mem = w > w_mem ? w : w_mem;
	}
	w_gpu = (int)strlen("GPU0(Allocated/Total)") + (max_gpus > 10);
	w_cpu = w_cpu > 26 ? w_cpu : 26;    /* "CPU milli(Allocated/Total)" */
	w_mem = w_mem > 27 ? w_mem : 27;    /* "MEMORY MiB(Allocated/Total)" */

	for (i = 0; i < n_nodes; i++) {
		if (!a->all_nodes && alloc[i].pods == 0)
			continue;
		if (nodes[i].sharing && (int)strlen(nodes[i].sharing) > w_share)
			w_share = (int)strlen(nodes[i].sharing);
	}
	if (w_share && w_share < 7)
		w_share = 7;                    /* "SHARING" */
	if (shown > 0) {
		printf("%-*s  %-*s", w_name, "NAME", w_model, "MODEL");
		if (w_share)
			printf("  %-*s", w_share, "SHARING");
		for (g = 0; g < max_gpus; g++) {
			snprintf(head, sizeof(head), "GPU%d(Allocated/Total)", g);
			printf("  %-*s", w_gpu, head);
		}
		printf("  %-*s  %-*s  %s\n", w_cpu, "CPU milli(Allocated/Total)", w_mem,
		       "MEMORY MiB(Allocated/Total)", "PODS");
		for (i = 0; i < n_nodes; i++) {
			if (!a->all_nodes && alloc[i].pods == 0)
				continue;
			printf("%-*s  %-*s", w_name, nodes[i].name, w_model,
			       nodes[i].gpu_model ? nodes[i].gpu_model : "-");
			if (w_share)
				printf("  %-*s", w_share, nodes[i].sharing ? nodes[i].sharing : "-");
			for (g = 0; g < max_gpus; g++) {
				if (g < nodes[i].num_gpu)
					print_cell(alloc[i].gpu_milli[g], GS_MILLI_PER_GPU, w_gpu);
				else
					printf("  %-*s", w_gpu, "");
			}
			print_cell(alloc[i].cpu_milli, nodes[i].cpu_milli, w_cpu);
			print_cell(alloc[i].mem_mib, nodes[i].memory_mib, w_mem);
			printf("  %" PRId32 "\n", alloc[i].pods);
		}
		rule = w_name + 2 + w_model + max_gpus * (w_gpu + 2) + w_cpu + w_mem + 4 + 6 +
		       (w_share ? w_share + 2 : 0);
		for (g = 0; g < rule; g++)
			putchar('-');
		putchar('\n');
	}
	printf("Allocated/Total GPU share in cluster: %" PRId64 "/%" PRId64
	       " milli-GPU (%.1f%%), GPUs in use: %" PRId64 "/%" PRId64 "\n",
	       t->gpu_alloc_milli, t->gpu_milli, pct(t->gpu_alloc_milli, t->gpu_milli),
	       t->gpus_in_use, t->gpus);
	printf("Allocated/Total CPU in cluster: %" PRId64 "/%" PRId64 " milli (%.1f%%)\n",
	       t->cpu_alloc_milli, t->cpu_milli, pct(t->cpu_alloc_milli, t->cpu_milli));
	printf("Allocated/Total memory in cluster: %" PRId64 "/%" PRId64 " MiB (%.1f%%)\n",
	       t->mem_alloc_mib, t->mem_mib, pct(t->mem_alloc_mib, t->mem_mib));
	printf("Pods running: %" PRId64 " on %zu of %zu nodes", t->pods, n_nodes - t->idle_nodes,
	       n_nodes);
	if (!a->all_nodes && t->idle_nodes > 0)
		printf("; %zu idle nodes not shown (--nodes all shows them)", t->idle_nodes);
	printf("\n");
	if (w_share)
		printf("GPU shares are counted as each GPU's sharing mode counts them: a whole GPU "
		       "under exclusive, a replica under timeslice and mps, the instance under "
		       "mig.\n");
	show_mig(a, nodes, n_nodes, alloc);
}

static int show_run(struct gs_db *db, const struct inspect_args *a)
{
	struct gs_run_row run;
	struct gs_db_node *nodes = NULL;
	struct gs_db_pod *pods = NULL;
	struct node_alloc *alloc = NULL;
	struct totals t;
	size_t n_nodes = 0, n_pods = 0;
	char err[1024];
	int64_t t_s;
	int rc, status;

	rc = gs_db_get_run(db, a->run_id, &run, err, sizeof(err));
	if (rc == GS_ENOENT) {
		fprintf(stderr, "gpusim inspect: run %" PRId64 " not found in %s; "
			"'gpusim inspect --db %s' lists the runs\n",
			a->run_id, a->db_path, a->db_path);
		return GS_EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		return exit_for(rc);
	}
	if (!run.pods_stored) {
		/* Rebuilt from no pods, the cluster would look empty, which it was not. */
		fprintf(stderr, "gpusim inspect: run %" PRId64 " was stored without pod rows "
			"(--no-pods), so its allocations cannot be shown; replay it without "
			"--no-pods to inspect it\n", a->run_id);
		status = GS_EXIT_USAGE;
		goto out;
	}
	t_s = a->at.kind == AT_TIME ? a->at.t_s : run.t_end_s;
	if (a->at.kind == AT_PEAK) {
		rc = gs_db_peak_time(db, a->run_id, &t_s, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim inspect: %s\n", err);
			status = exit_for(rc);
			goto out;
		}
	}
	rc = gs_db_load_nodes(db, a->run_id, &nodes, &n_nodes, err, sizeof(err));
	if (!rc)
		rc = gs_db_load_pods(db, a->run_id, &pods, &n_pods, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		status = GS_EXIT_FAIL;
		goto out;
	}
	alloc = calloc(n_nodes ? n_nodes : 1, sizeof(*alloc));
	if (!alloc) {
		fprintf(stderr, "gpusim inspect: out of memory\n");
		status = GS_EXIT_FAIL;
		goto out;
	}
	if (rebuild(nodes, n_nodes, pods, n_pods, a->run_id, t_s, alloc)) {
		status = GS_EXIT_FAIL;
		goto out;
	}
	add_up(nodes, n_nodes, alloc, &t);
	if (a->json) {
		status = show_json(a, &run, t_s, nodes, n_nodes, alloc, &t);
	} else {
		show_table(a, &run, t_s, nodes, n_nodes, alloc, &t);
		status = GS_EXIT_OK;
	}
out:
	free(alloc);
	gs_db_pods_free(pods, n_pods);
	gs_db_nodes_free(nodes, n_nodes);
	gs_run_row_release(&run);
	return status;
}

int gs_cmd_inspect(int argc, char **argv)
{
	struct inspect_args a;
	struct gs_db *db;
	char err[1024];
	int rc, status;

	memset(&a, 0, sizeof(a));
	a.run_id = -1;
	a.at.kind = AT_END;
	if (gs_opt_parse(&inspect_cmd, argc, argv, &a, &status))
		return status;
	rc = gs_db_open_existing(a.db_path, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		/* A missing, foreign or too new file is the user's input. */
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	status = a.run_id < 0 ? list_runs(db, &a) : show_run(db, &a);
	gs_db_close(db);
	return status;
}
