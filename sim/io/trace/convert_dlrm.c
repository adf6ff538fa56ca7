/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_dlrm.c - Alibaba cluster-trace-gpu-v2025 (GPU-disaggregated
 * DLRM serving; Yang et al., "GPU-Disaggregated Serving for Deep Learning
 * Recommendation Models at Scale", NSDI 2025) to gpusim: each inference
 * instance of disaggregated_DLRM_trace.csv becomes a pod.
 *
 * No node list is published. Unless a cluster is given (--nodes), one is
 * built by a documented rule (convert_internal.h, gs_conv_build_gpu_nodes
 * and gs_conv_build_cpu_nodes): GPU nodes for the HN instances, which ask
 * for GPUs, and CPU nodes for the CN instances, each pool sized from the
 * trace's peak. The per-app density cap (max_instance_per_node) is read
 * and checked; docs/trace-formats-public.md says what becomes of it and of
 * the columns gpusim has no resource for (RDMA, disk, the limits).
 */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/convert_internal.h"

static const char *const dlrm_cols[17] = {
	"instance_sn", "role", "app_name", "cpu_request", "cpu_limit", "gpu_request",
	"gpu_limit", "rdma_request", "rdma_limit", "memory_request", "memory_limit",
	"disk_request", "disk_limit", "max_instance_per_node", "creation_time",
	"scheduled_time", "deletion_time",
};

static int instance_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	double cpu, gpu, mem, cap, create = 0, del = 0, v;
	bool has_create, has_del, rounded;
	struct gs_where w;
	struct gs_pod p;
	const char *role = r->field[1];
	int rc, col;

	(void)arg;
	gs_where_csv(&w, r);
	memset(&p, 0, sizeof(p));
	if (strcmp(role, "CN") != 0 && strcmp(role, "HN") != 0)
		return gs_csv_errorf(r, 1, "'%s' is not CN or HN", r->field[1]);
	if ((rc = gs_conv_number(r, 3, 0, 1e9, false, &cpu, NULL)) ||
	    (rc = gs_conv_number(r, 5, 0, GS_MAX_GPUS, false, &gpu, NULL)) ||
	    (rc = gs_conv_number(r, 9, 0, 1e15, false, &mem, NULL)) ||
	    (rc = gs_conv_number(r, 13, -1, 1e9, false, &cap, NULL)) ||
	    (rc = gs_conv_number(r, 14, 0, (double)GS_TIME_MAX_S, true, &create, &has_create)) ||
	    (rc = gs_conv_number(r, 16, 0, (double)GS_TIME_MAX_S, true, &del, &has_del)))
		return rc;
	/* Read so that a damaged file is noticed; gpusim has no resource for them. */
	for (col = 4; col <= 12; col++) {
		if (col == 5 || col == 9)
			continue;
		if ((rc = gs_conv_number(r, col, 0, 1e15, false, &v, NULL)))
			return rc;
	}
	if ((rc = gs_conv_number(r, 15, 0, (double)GS_TIME_MAX_S, true, &v, NULL)))
		return rc;
	if (cap != -1 && (cap < 1 || cap != floor(cap)))
		return gs_csv_errorf(r, 13, "'%s' is not -1 (no cap) or a whole number of "
				     "instances", r->field[13]);
	if ((rc = gs_conv_cpu(&w, "cpu_request", cpu, &p.cpu_milli)) ||
	    (rc = gs_conv_mem(&w, "memory_request", mem, &p.mem_mib)) ||
	    (rc = gs_conv_gpus(&w, "gpu_request", gpu, &p, &rounded)))
		return rc;
	if (rounded)
		gs_conv_note(cv, "instances asking for a fraction above one GPU: rounded up to "
				 "whole GPUs");
	if (p.num_gpu == 0 && cv->o->gpu_only) {
		gs_conv_note(cv, "instances without GPUs: left out (--gpu-only)");
		return 0;
	}
	if (cap > 0)
		gs_conv_note(cv, "instances with a per-app density cap (max_instance_per_node): "
				 "the cap is not a gpusim constraint");
	if (has_create) {
		p.t_create_s = gs_conv_round_s(create);
	} else {
		p.t_create_s = 0;
		gs_conv_note(cv, "instances created before the trace began (creation_time "
				 "empty): arrive at 0");
	}
	if (has_del) {
		p.t_delete_s = gs_conv_round_s(del);
	} else {
		p.t_delete_s = -1;
		gs_conv_note(cv, "instances still running at the end of the trace "
				 "(deletion_time empty): never leave");
	}
	return gs_conv_pods(cv, &w, r->field[0], 1, &p, NULL);
}

int gs_conv_dlrm(struct gs_conv *cv)
{
	struct gs_csv r;
	int rc;

	if ((rc = gs_conv_refuse(cv, cv->o->machines.name != NULL, "--machines",
				 "has no machine list (none is published); give a cluster with "
				 "--nodes, or let the converter build one")))
		return rc;
	if ((rc = gs_conv_open(cv, &cv->o->jobs, &r)))
		return rc;
	rc = gs_conv_rows(cv, &r, dlrm_cols, 17, false, instance_row, NULL, &cv->rep->job_rows);
	gs_csv_close(&r);
	if (rc || !cv->built)
		return rc;
	/* The GPU model is not published: a custom model, its memory unknown (no pod asks). */
	rc = gs_conv_build_gpu_nodes(cv, "hn", true, 8, "dlrm-gpu", 0, 0);
	if (rc == 0)
		rc = gs_conv_build_cpu_nodes(cv, "cn");
	cv->node_mask = gs_cluster_model_mask(cv->c);
	return rc;
}
