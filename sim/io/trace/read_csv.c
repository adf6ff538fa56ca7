/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read_csv.c - the CSV readers: openb node and pod lists (Weng et al.,
 * ATC 2023; github.com/alibaba/clusterdata, cluster-trace-gpu-v2023) and
 * gpusim's native CSV. The formats are documented column by column in
 * traces/README.md.
 *
 * The node formats have the same columns in the same order and differ only
 * in their names; the pod formats differ in which columns they have, so one
 * row parser takes a column map.
 */
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/internal.h"

const char *const gs_openb_node_cols[5] = {
	"sn", "cpu_milli", "memory_mib", "gpu", "model",
};
const char *const gs_native_node_cols[6] = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_model", "sharing",
};
const char *const gs_openb_pod_cols[11] = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
	"pod_phase", "creation_time", "deletion_time", "scheduled_time",
};
const char *const gs_openb_multigpu_cols[5] = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli",
};
const char *const gs_native_pod_cols[14] = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_mem_mib", "gpu_spec",
	"creation_time", "deletion_time", "class", "gpu_need_milli", "gpu_busy_milli",
	"gpu_compute_milli", "pod_group",
};

/*
 * Both node formats: name, cpu_milli, memory_mib, GPU count, model; gpusim
 * CSV may add a sixth column, sharing (ncols 6).
 */
static int nodes_read(struct gs_csv *r, const char *const *cols, int ncols,
		      const struct gs_node_fields *f, struct gs_cluster *c)
{
	struct gs_nameset names;
	struct gs_where w;
	int64_t cpu, mem, ngpu;
	int rc;

	gs_csv_set_columns(r, cols, ncols);
	gs_nameset_init(&names);
	while ((rc = gs_csv_next(r)) == 1) {
		gs_where_csv(&w, r);
		if ((rc = gs_csv_expect_fields(r, ncols)) ||
		    (rc = gs_csv_int(r, 1, 0, GS_CPU_MILLI_MAX, &cpu)) ||
		    (rc = gs_csv_int(r, 2, 0, GS_MIB_MAX, &mem)) ||
		    (rc = gs_csv_int(r, 3, 0, GS_MAX_GPUS, &ngpu)))
			break;
		rc = gs_trace_add_node(&w, f, c, &names, r->field[0], cpu, mem, ngpu,
				       r->field[4]);
		if (rc == 0 && ncols > 5)
			rc = gs_trace_node_sharing(&w, "sharing", c, c->n_nodes - 1, r->field[5]);
		if (rc)
			break;
	}
	gs_nameset_release(&names);
	return rc;
}

int gs_openb_nodes_read(struct gs_csv *r, struct gs_cluster *c)
{
	return nodes_read(r, gs_openb_node_cols, 5, &gs_openb_node_fields, c);
}

int gs_native_nodes_read(struct gs_csv *r, struct gs_cluster *c)
{
	int ncols = gs_csv_row_is(r, gs_native_node_cols, 6) ? 6 : 5;

	return nodes_read(r, gs_native_node_cols, ncols, &gs_native_node_fields, c);
}

/* Column indices of one pod format; -1 where the format has no such column. */
struct pod_map {
	const char *const *cols;
	int n_cols;
	int gpu_mem, spec, create, del, sched, wclass, need, busy, compute, group;
	bool create_required;
};

static const struct pod_map openb_map = {
	gs_openb_pod_cols, 11, -1, 5, 8, 9, 10, -1, -1, -1, -1, -1, true,
};
static const struct pod_map multigpu_map = {
	gs_openb_multigpu_cols, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, false,
};
static const struct pod_map native_map = {
	gs_native_pod_cols, 9, 5, 6, 7, 8, -1, -1, -1, -1, -1, -1, false,
};
static const struct pod_map native11_map = {
	gs_native_pod_cols, 11, 5, 6, 7, 8, -1, 9, 10, -1, -1, -1, false,
};
static const struct pod_map native13_map = {
	gs_native_pod_cols, 13, 5, 6, 7, 8, -1, 9, 10, 11, 12, -1, false,
};
static const struct pod_map native14_map = {
	gs_native_pod_cols, 14, 5, 6, 7, 8, -1, 9, 10, 11, 12, 13, false,
};

static int pod_row(struct gs_csv *r, const struct pod_map *m, struct gs_cluster *c,
		   uint32_t node_mask, struct gs_nameset *names, struct gs_trace *t)
{
	struct gs_pod p;
	struct gs_where w;
	int64_t v[4], gmem = 0, create = -1, del = -1, sched, need = 0, busy = 0, compute = 0;
	const char *spec = "";
	bool unknown = false;
	char vbuf[80];
	long prev;
	int rc;

	gs_where_csv(&w, r);
	if ((rc = gs_csv_expect_fields(r, m->n_cols)))
		return rc;
	if ((rc = gs_check_name(&w, "name", r->field[0])))
		return rc;
	if ((rc = gs_csv_int(r, 1, 0, GS_CPU_MILLI_MAX, &v[0])) ||
	    (rc = gs_csv_int(r, 2, 0, GS_MIB_MAX, &v[1])) ||
	    (rc = gs_csv_int(r, 3, 0, GS_MAX_GPUS, &v[2])) ||
	    (rc = gs_csv_int(r, 4, 0, GS_MILLI_PER_GPU, &v[3])))
		return rc;
	if (m->gpu_mem >= 0 && (rc = gs_csv_int(r, m->gpu_mem, 0, GS_MIB_MAX, &gmem)))
		return rc;
	if (m->create >= 0) {
		if (m->create_required)
			rc = gs_csv_int(r, m->create, 0, GS_TIME_MAX_S, &create);
		else
			rc = gs_csv_int_opt(r, m->create, 0, GS_TIME_MAX_S, -1, &create);
		if (rc)
			return rc;
	}
	if (m->del >= 0 && (rc = gs_csv_int_opt(r, m->del, 0, GS_TIME_MAX_S, -1, &del)))
		return rc;
	/* Validated so that a damaged file is noticed, but the replay does not use it. */
	if (m->sched >= 0 && (rc = gs_csv_int_opt(r, m->sched, 0, GS_TIME_MAX_S, -1, &sched)))
		return rc;
	if (m->need >= 0 && (rc = gs_csv_int_opt(r, m->need, 0, GS_MILLI_PER_GPU, 0, &need)))
		return rc;
	if (m->busy >= 0 &&
	    ((rc = gs_csv_int_opt(r, m->busy, 1, GS_MILLI_PER_GPU, 0, &busy)) ||
	     (rc = gs_csv_int_opt(r, m->compute, 1, GS_MILLI_PER_GPU, 0, &compute))))
		return rc;

	memset(&p, 0, sizeof(p));
	p.cpu_milli = (int32_t)v[0];
	p.mem_mib = v[1];
	p.num_gpu = (int32_t)v[2];
	p.gpu_milli = (int32_t)v[3];
	p.gpu_mem_mib = gmem;
	p.t_create_s = create;
	p.t_delete_s = del;
	if (m->spec >= 0)
		spec = r->field[m->spec];
	if ((rc = gs_trace_check_pod(&w, &p, spec)))
		return rc;
	if ((rc = gs_trace_spec_parse(&w, spec, &c->models, node_mask, &p.model_mask, &unknown)))
		return rc;
	if (m->wclass >= 0 &&
	    ((rc = gs_trace_pod_class(&w, "class", t, &p, r->field[m->wclass])) ||
	     (rc = gs_trace_pod_gpu_milli(&w, "gpu_need_milli", &p, need))))
		return rc;
	if (m->busy >= 0 &&
	    ((rc = gs_trace_pod_gpu_milli(&w, "gpu_busy_milli", &p, busy)) ||
	     (rc = gs_trace_pod_gpu_milli(&w, "gpu_compute_milli", &p, compute))))
		return rc;

	rc = gs_nameset_add(names, r->field[0], r->line, &prev);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return gs_where_errorf(&w, "name", "duplicate pod name '%s' (first on line %ld)",
				       gs_csv_quote(r->field[0], vbuf, sizeof(vbuf)), prev);
	if (m->group >= 0 && r->field[m->group][0] &&
	    (rc = gs_check_name(&w, "pod_group", r->field[m->group])))
		return rc;
	if ((rc = gs_trace_append_spec(t, r->field[0], &p, spec)))
		return rc;
	if (m->group >= 0 && r->field[m->group][0] &&
	    (rc = gs_trace_join_group(t, r->field[m->group])))
		return rc;
	if (unknown)
		t->audit.unknown_model++;
	return 0;
}

static int pods_read(struct gs_csv *r, const struct pod_map *m, struct gs_cluster *c,
		     struct gs_trace *t)
{
	uint32_t node_mask = gs_cluster_model_mask(c);
	struct gs_nameset names;
	int rc;

	gs_csv_set_columns(r, m->cols, m->n_cols);
	gs_nameset_init(&names);
	while ((rc = gs_csv_next(r)) == 1) {
		rc = pod_row(r, m, c, node_mask, &names, t);
		if (rc)
			break;
	}
	gs_nameset_release(&names);
	return rc;
}

int gs_openb_pods_read(struct gs_csv *r, bool multigpu, struct gs_cluster *c,
		       struct gs_trace *t)
{
	return pods_read(r, multigpu ? &multigpu_map : &openb_map, c, t);
}

int gs_native_pods_read(struct gs_csv *r, struct gs_cluster *c, struct gs_trace *t)
{
	const struct pod_map *m = gs_csv_row_is(r, gs_native_pod_cols, 14) ? &native14_map
				  : gs_csv_row_is(r, gs_native_pod_cols, 13) ? &native13_map
				  : gs_csv_row_is(r, gs_native_pod_cols, 11) ? &native11_map
				  : &native_map;

	return pods_read(r, m, c, t);
}
