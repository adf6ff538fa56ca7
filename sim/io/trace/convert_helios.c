/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert_helios.c - the Slurm job logs of SenseTime's Helios (Hu et al.,
 * "Characterization and Prediction of Deep Learning Workloads in
 * Large-Scale GPU Datacenters", SC 2021; github.com/S-Lab-System-Group/
 * HeliosData) and Shanghai AI Lab's Acme (Hu et al., "Characterization of
 * Large Language Model Development in the Datacenter", NSDI 2024;
 * github.com/InternLM/AcmeTrace) to gpusim. Both list one job per row with
 * its GPUs, CPUs and nodes in total and its submission, start and end;
 * Acme's Kalos file adds the memory of each pod and both Acme files the
 * job's type.
 *
 * The columns are found by name in the header, so the clusters' files,
 * whose columns differ a little, are read alike; columns gpusim does not
 * use are ignored. A job on node_num nodes becomes node_num pods, each
 * with its share of the job's GPUs and CPUs, in one pod group.
 *
 * Helios publishes each cluster's GPU count per day (cluster_gpu_number.
 * csv): its largest total sets the number of built nodes. Acme publishes
 * no machine list: the nodes are sized from the trace's peak.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/limits.h"
#include "io/trace/convert_internal.h"

enum col {
	C_ID, C_GPU, C_CPU, C_NODES, C_SUBMIT, C_START, C_END, C_MEM, C_TYPE, C__COUNT
};

static const char *const col_names[C__COUNT] = {
	"job_id", "gpu_num", "cpu_num", "node_num", "submit_time", "start_time", "end_time",
	"mem_per_pod_GB", "type",
};

/* The columns each format needs; the rest are read when present. */
static const bool required[C__COUNT] = { true, true, true, true, true, true, true, false,
					 false };

struct layout {
	int at[C__COUNT];       /* field index, -1 when absent */
	int n_fields;
	const char *cols[GS_CSV_MAX_FIELDS];
	int64_t t0;
	bool acme;
};

static int header_read(struct gs_conv *cv, struct gs_csv *r, struct layout *l)
{
	char have[400];
	size_t off = 0;
	int i, c, rc = gs_csv_next(r);

	(void)cv;
	if (rc == 0)
		return gs_csv_file_errorf(r, "empty file");
	if (rc < 0)
		return rc;
	if (r->n_fields > GS_CSV_MAX_FIELDS)
		return gs_csv_errorf(r, -1, "%d columns in the header, more than %d", r->n_fields,
				     GS_CSV_MAX_FIELDS);
	l->n_fields = r->n_fields;
	for (c = 0; c < C__COUNT; c++)
		l->at[c] = -1;
	for (i = 0; i < r->n_fields; i++) {
		l->cols[i] = r->field[i];
		for (c = 0; c < C__COUNT; c++) {
			if (strcmp(r->field[i], col_names[c]) != 0)
				continue;
			if (l->at[c] >= 0)
				return gs_csv_errorf(r, -1, "column '%s' appears twice in the header",
						     col_names[c]);
			l->at[c] = i;
		}
		off += (size_t)snprintf(have + off, off < sizeof(have) ? sizeof(have) - off : 0,
					"%s%s", i ? "," : "", r->field[i]);
		if (off >= sizeof(have))
			off = sizeof(have) - 1;
	}
	for (c = 0; c < C__COUNT; c++)
		if (required[c] && l->at[c] < 0)
			return gs_csv_errorf(r, -1, "no column '%s' in the header '%s' (a job log "
					     "has job_id, gpu_num, cpu_num, node_num, "
					     "submit_time, start_time and end_time)",
					     col_names[c], have);
	gs_csv_set_columns(r, l->cols, l->n_fields);
	return 0;
}

/* The job's type as a workload class: lower case, or an error for field. */
static int type_class(struct gs_conv *cv, struct gs_csv *r, int col, int16_t *out)
{
	char cls[GS_CLASS_NAME_MAX];
	size_t i, n = strlen(r->field[col]);
	int k;

	*out = 0;
	if (n == 0)
		return 0;
	if (n >= sizeof(cls))
		return gs_csv_errorf(r, col, "'%s' is too long for a workload class",
				     r->field[col]);
	for (i = 0; i <= n; i++)
		cls[i] = (char)tolower((unsigned char)r->field[col][i]);
	k = gs_trace_class(cv->t, cls);
	if (k == GS_EINVAL)
		return gs_csv_errorf(r, col, "'%s' is not a workload class name (letters, digits, "
				     "'_', '.', '-')", r->field[col]);
	if (k == GS_ERANGE)
		return gs_csv_errorf(r, col, "'%s' makes more than %d job types", r->field[col],
				     GS_MAX_CLASSES);
	*out = (int16_t)k;
	return 0;
}

static int job_row(struct gs_conv *cv, struct gs_csv *r, void *arg)
{
	struct layout *l = arg;
	double gpu, cpu, nodes, mem = 0;
	int64_t submit, start, end;
	bool has_submit, has_start, has_end, has_mem = false, rounded;
	struct gs_where w;
	struct gs_pod p;
	int rc;

	gs_where_csv(&w, r);
	memset(&p, 0, sizeof(p));
	if ((rc = gs_conv_number(r, l->at[C_GPU], 0, 1e9, false, &gpu, NULL)) ||
	    (rc = gs_conv_number(r, l->at[C_CPU], 0, 1e12, false, &cpu, NULL)) ||
	    (rc = gs_conv_number(r, l->at[C_NODES], 0, 1e9, false, &nodes, NULL)) ||
	    (l->at[C_MEM] >= 0 &&
	     (rc = gs_conv_number(r, l->at[C_MEM], 0, 1e15, true, &mem, &has_mem))) ||
	    (rc = gs_conv_datetime(r, l->at[C_SUBMIT], &submit, &has_submit)) ||
	    (rc = gs_conv_datetime(r, l->at[C_START], &start, &has_start)) ||
	    (rc = gs_conv_datetime(r, l->at[C_END], &end, &has_end)))
		return rc;
	if (gpu != floor(gpu))
		return gs_csv_errorf(r, l->at[C_GPU], "'%s' is not a whole number",
				     r->field[l->at[C_GPU]]);
	if (nodes != floor(nodes))
		return gs_csv_errorf(r, l->at[C_NODES], "'%s' is not a whole number",
				     r->field[l->at[C_NODES]]);
	if (gpu == 0 && cv->o->gpu_only) {
		gs_conv_note(cv, "jobs without GPUs: left out (--gpu-only)");
		return 0;
	}
	if (!has_submit) {
		gs_conv_note(cv, "jobs without a submit_time: left out");
		return 0;
	}
	if (!has_start) {
		gs_conv_note(cv, "jobs that never started (start_time empty): left out");
		return 0;
	}
	if (nodes == 0) {
		gs_conv_note(cv, "jobs on 0 nodes (node_num 0): one pod");
		nodes = 1;
	}
	/* Each node's pod: its share of the job, whole GPUs (rounded up when they do not divide). */
	if ((rc = gs_conv_gpus(&w, "gpu_num", gpu / nodes, &p, &rounded)) ||
	    (rc = gs_conv_cpu(&w, "cpu_num", cpu / nodes, &p.cpu_milli)) ||
	    (has_mem && (rc = gs_conv_mem(&w, "mem_per_pod_GB", mem, &p.mem_mib))))
		return rc;
	if (gpu > 0 && p.gpu_milli < GS_MILLI_PER_GPU) {
		/* Fewer GPUs than nodes: a whole GPU on each. */
		p.gpu_milli = GS_MILLI_PER_GPU;
		rounded = true;
	}
	if (rounded)
		gs_conv_note(cv, "jobs whose GPUs do not divide among their nodes: each pod "
				 "rounded up to whole GPUs");
	if (l->acme && l->at[C_TYPE] >= 0 && (rc = type_class(cv, r, l->at[C_TYPE], &p.wclass)))
		return rc;
	gs_conv_job_times(cv, submit, start, end, has_end,
			  "jobs still running at the end of the trace (end_time empty): never leave",
			  &p, &l->t0);
	return gs_conv_pods(cv, &w, r->field[l->at[C_ID]], (int64_t)nodes, &p, NULL);
}

static int jobs_read(struct gs_conv *cv, struct layout *l)
{
	struct gs_csv r;
	int rc = gs_conv_open(cv, &cv->o->jobs, &r);

	if (rc)
		return rc;
	l->t0 = -1;
	rc = header_read(cv, &r, l);
	while (rc == 0 && (rc = gs_csv_next(&r)) == 1) {
		cv->rep->job_rows++;
		rc = gs_csv_expect_fields(&r, l->n_fields);
		if (rc == 0)
			rc = job_row(cv, &r, l);
	}
	gs_csv_close(&r);
	if (rc == 0 && l->t0 >= 0)
		gs_conv_shift(cv, l->t0);
	return rc;
}

/* cluster_gpu_number.csv: the largest daily total of GPUs ('total', else the VCs' sum). */
static int gpu_number_read(struct gs_conv *cv, double *gpus_out)
{
	int total = -1, date = -1, i, rc;
	double best = 0;
	struct gs_csv r;

	if ((rc = gs_conv_open(cv, &cv->o->machines, &r)))
		return rc;
	rc = gs_csv_next(&r);
	if (rc == 0)
		rc = gs_csv_file_errorf(&r, "empty file");
	if (rc < 0)
		goto out;
	for (i = 0; i < r.n_fields && i < GS_CSV_MAX_FIELDS; i++) {
		if (strcmp(r.field[i], "total") == 0)
			total = i;
		if (strcmp(r.field[i], "date") == 0)
			date = i;
	}
	if (date < 0 || r.n_fields > GS_CSV_MAX_FIELDS) {
		rc = gs_csv_errorf(&r, -1, "not a cluster_gpu_number.csv header (a 'date' column, "
				   "then the GPUs of each VC%s)",
				   r.n_fields > GS_CSV_MAX_FIELDS ? ", at most 32 columns" : "");
		goto out;
	}
	{
		const char *cols[GS_CSV_MAX_FIELDS];
		int n = r.n_fields;

		for (i = 0; i < n; i++)
			cols[i] = r.field[i];
		gs_csv_set_columns(&r, cols, n);
		while ((rc = gs_csv_next(&r)) == 1) {
			double sum = 0, v;
			int64_t day;
			bool has_day;

			cv->rep->machine_rows++;
			if ((rc = gs_csv_expect_fields(&r, n)) ||
			    (rc = gs_conv_datetime(&r, date, &day, &has_day)))
				break;
			(void)day;
			for (i = 0; i < n && rc == 0; i++) {
				if (i == date || (total >= 0 && i != total))
					continue;
				rc = gs_conv_number(&r, i, 0, 1e9, false, &v, NULL);
				sum += v;
			}
			if (rc)
				break;
			if (sum > best)
				best = sum;
		}
		gs_csv_set_columns(&r, NULL, 0);
	}
	*gpus_out = best;
out:
	gs_csv_close(&r);
	return rc;
}

static int convert(struct gs_conv *cv, bool acme, const char *model)
{
	const struct gs_conv_opts *o = cv->o;
	struct layout l;
	double list_gpus = 0;
	int rc;

	memset(&l, 0, sizeof(l));
	l.acme = acme;
	if (acme && (rc = gs_conv_refuse(cv, o->machines.name != NULL, "--machines",
					 "has no machine list (none is published); give a cluster "
					 "with --nodes, or let the converter build one")))
		return rc;
	if ((rc = gs_conv_refuse(cv, o->cpu_node_count != 0, "--cpu-node-count",
				 "builds no separate CPU nodes")))
		return rc;
	if (o->machines.name && (rc = gpu_number_read(cv, &list_gpus)))
		return rc;
	if (!o->jobs.name)
		return gs_conv_errorf(cv, GS_EINVAL, "the %s format sizes its nodes from the jobs "
				      "too: give --jobs", gs_conv_format_name(o->format));
	if ((rc = jobs_read(cv, &l)))
		return rc;
	if (!cv->built)
		return 0;
	rc = gs_conv_build_gpu_nodes(cv, "node", false, 8, model, 0, list_gpus);
	cv->node_mask = gs_cluster_model_mask(cv->c);
	return rc;
}

int gs_conv_helios(struct gs_conv *cv)
{
	/* The Volta clusters' nodes have 8 V100s (HeliosArtifact); the 16 GB card assumed. */
	return convert(cv, false, "V100M16");
}

int gs_conv_acme(struct gs_conv *cv)
{
	/* Both Acme clusters are A100 clusters; the 80 GB card assumed. */
	return convert(cv, true, "A100-80G");
}
