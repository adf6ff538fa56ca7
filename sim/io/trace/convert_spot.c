/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_spot.c - Alibaba cluster-trace-v2026-spot-gpu (Duan et al.,
 * "GFS: A Preemptive Scheduling Framework for GPU Clusters with Predictive
 * Spot Management", ASPLOS 2026) to gpusim: node_info_df.csv to nodes,
 * job_info_df.csv to pods, worker_num pods per job in one pod group.
 *
 * Both files are published with a header. The node list has no memory
 * column and the jobs ask for none: memory is not modelled (0 on both
 * sides) unless --node-mem-gib gives the nodes some. GPU models gpusim does not have become custom models with the
 * memory stated in the table below (--model-mem overrides it).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/convert_internal.h"

static const char *const node_cols[4] = {
	"gpu_model", "gpu_capacity_num", "cpu_num", "node_name",
};
static const char *const job_cols[9] = {
	"job_name", "organization", "gpu_model", "cpu_request", "gpu_request", "worker_num",
	"submit_time", "duration", "job_type",
};

/*
 * The names the trace and its README use. A800 and H800 are 80 GB cards.
 * GPU-series-1 and -2 are anonymised: 24 GiB assumed, the smallest card
 * of the trace (A10), as gpusim assumes the smallest card for openb's
 * anonymised models. A30 has 24 GB.
 */
static const struct gs_conv_model_map spot_models[] = {
	{ "A10", "A10", 0 },
	{ "A100-SXM4-80GB", "A100-80G", 0 },
	{ "A100-PCIE-40GB", "A100-40G", 0 },
	{ "A800-SXM4-80GB", "A800-80G", 81920 },
	{ "H800", "H800", 81920 },
	{ "A30", "A30", 24576 },
	{ "GPU-series-1", "GPU-series-1", 24576 },
	{ "GPU-series-2", "GPU-series-2", 24576 },
	{ NULL, NULL, 0 },
};

static const struct gs_node_fields node_fields = {
	"node_name", "cpu_num", "memory", "gpu_capacity_num", "gpu_model",
};

static int node_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct gs_nameset *names = arg;
	const char *model = "";
	struct gs_where w;
	double gpus, cpu;
	int32_t cpu_milli;
	int rc;

	gs_where_csv(&w, r);
	if ((rc = gs_conv_number(r, 1, 0, GS_MAX_GPUS, false, &gpus, NULL)) ||
	    (rc = gs_conv_number(r, 2, 0, 1e9, false, &cpu, NULL)) ||
	    (rc = gs_conv_cpu(&w, "cpu_num", cpu, &cpu_milli)))
		return rc;
	if (gpus != floor(gpus))
		return gs_csv_errorf(r, 1, "'%s' is not a whole number", r->field[1]);
	if (gpus > 0 && (rc = gs_conv_model_mapped(cv, &w, "gpu_model", spot_models, r->field[0],
						   &model)) < 0)
		return rc;
	return gs_conv_node(cv, &w, &node_fields, names, r->field[3], cpu_milli,
			    cv->o->node_mem_gib * 1024, (int64_t)gpus, model);
}

/* job_type as a workload class: "hp" or "spot". */
static const char *job_class(const char *type)
{
	if (strcmp(type, "HP") == 0)
		return "hp";
	if (strcmp(type, "Spot") == 0)
		return "spot";
	return NULL;
}

static int job_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	double cpu, gpus, workers, submit, dur = 0;
	bool has_dur, rounded;
	const char *cls = job_class(r->field[8]), *spec = NULL;
	struct gs_where w;
	struct gs_pod p;
	int k, rc;

	(void)arg;
	gs_where_csv(&w, r);
	memset(&p, 0, sizeof(p));
	if ((rc = gs_conv_number(r, 3, 0, 1e9, false, &cpu, NULL)) ||
	    (rc = gs_conv_number(r, 4, 0, GS_MAX_GPUS, false, &gpus, NULL)) ||
	    (rc = gs_conv_number(r, 5, 0, 1e9, false, &workers, NULL)) ||
	    (rc = gs_conv_number(r, 6, 0, (double)GS_TIME_MAX_S, false, &submit, NULL)) ||
	    (rc = gs_conv_number(r, 7, 0, (double)GS_TIME_MAX_S, true, &dur, &has_dur)))
		return rc;
	if (workers != floor(workers))
		return gs_csv_errorf(r, 5, "'%s' is not a whole number", r->field[5]);
	if (!cls)
		return gs_csv_errorf(r, 8, "'%s' is not HP or Spot", r->field[8]);
	/* cpu_request and gpu_request are per worker (the README's 94-worker job asks for 1 GPU). */
	if ((rc = gs_conv_cpu(&w, "cpu_request", cpu, &p.cpu_milli)) ||
	    (rc = gs_conv_gpus(&w, "gpu_request", gpus, &p, &rounded)))
		return rc;
	if (rounded)
		gs_conv_note(cv, "jobs asking for a fraction above one GPU per worker: rounded up "
				 "to whole GPUs");
	if (workers == 0) {
		gs_conv_note(cv, "jobs of 0 workers (worker_num 0): left out");
		return 0;
	}
	if (p.num_gpu == 0 && cv->o->gpu_only) {
		gs_conv_note(cv, "jobs without GPUs: left out (--gpu-only)");
		return 0;
	}
	if (p.num_gpu > 0 && r->field[2][0])
		spec = gs_conv_model_name(spot_models, r->field[2]);
	p.t_create_s = gs_conv_round_s(submit);
	p.t_delete_s = -1;
	if (has_dur)
		p.t_delete_s = p.t_create_s + gs_conv_round_s(dur);
	else
		gs_conv_note(cv, "jobs without a duration: never leave");
	if (p.t_delete_s > GS_TIME_MAX_S)
		return gs_csv_errorf(r, 7, "submit_time plus duration is past %lld s",
				     (long long)GS_TIME_MAX_S);
	if ((k = gs_trace_class(cv->t, cls)) < 0)
		return k;
	p.wclass = (int16_t)k;
	return gs_conv_pods(cv, &w, r->field[0], (int64_t)workers, &p, spec);
}

int gs_conv_spot(struct gs_conv *cv)
{
	const struct gs_conv_opts *o = cv->o;
	struct gs_csv r;
	int rc;

	if ((rc = gs_conv_refuse(cv, o->node_gpus || o->node_model || o->node_cpu ||
					     o->node_count || o->cpu_node_count,
				 "--node-gpus, --node-model, --node-cpu, --node-count",
				 "takes its nodes from --machines (node_info_df.csv)")))
		return rc;
	if (o->machines.name) {
		if ((rc = gs_conv_machines(cv, node_cols, 4, false, node_row)))
			return rc;
		snprintf(cv->rep->cluster_how, sizeof(cv->rep->cluster_how),
			 "the node list, one node per row, %" PRId64 " GiB of memory each "
			 "(--node-mem-gib; not in the trace)", o->node_mem_gib);
	} else if (!o->nodes) {
		return gs_conv_errorf(cv, GS_EINVAL, "the spot format takes its cluster from "
				      "--machines (node_info_df.csv); give it, or a gpusim cluster "
				      "with --nodes");
	}
	if (!o->jobs.name)
		return 0;
	if ((rc = gs_conv_open(cv, &o->jobs, &r)))
		return rc;
	rc = gs_conv_rows(cv, &r, job_cols, 9, false, job_row, NULL, &cv->rep->job_rows);
	gs_csv_close(&r);
	return rc;
}
