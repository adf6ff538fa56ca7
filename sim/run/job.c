/* SPDX-License-Identifier: Apache-2.0 */
/*
 * job.c - simulating one run of a batch, and storing it (see job.h).
 */
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "run/job.h"

int gs_job_run(struct gs_job *j, const struct gs_batch *b, size_t cell,
	       const struct gs_job_opts *jo, char *err, size_t err_len)
{
	const struct gs_batch_cell *c = &b->cells[cell];
	const struct gs_batch_input *in = &b->inputs[c->input];
	struct gs_replay_opts opts = gs_batch_opts(b, cell);
	struct gs_run_info *ri = &j->ri;
	struct gs_summary sum;
	double t0, t1;
	char msg[768];
	int rc;

	j->cell = cell;
	opts.progress = NULL;
	opts.progress_arg = NULL;
	opts.stop = jo->stop;
	memset(ri, 0, sizeof(*ri));
	clock_gettime(CLOCK_REALTIME, &ri->started_at);
	t0 = gs_clock_ms();
	rc = gs_sim_init(&j->sim, in->cluster, in->trace, c->policy, &opts, msg, sizeof(msg));
	if (rc) {
		gs_errf(err, err_len, "%s, %s, seed %llu: %s", in->pods_path, c->policy->name,
			(unsigned long long)opts.seed, msg);
		return rc;
	}
	rc = gs_sim_run(&j->sim, msg, sizeof(msg));
	t1 = gs_clock_ms();
	clock_gettime(CLOCK_REALTIME, &ri->ended_at);
	if (rc) {
		gs_errf(err, err_len, "%s, %s, seed %llu: %s", in->pods_path, c->policy->name,
			(unsigned long long)opts.seed, msg);
		gs_sim_release(&j->sim);
		return rc;
	}
	ri->policy = c->policy->name;
	ri->mode = opts.mode == GS_MODE_INFLATE ? "inflate" : "time";
	ri->seed = opts.seed;
	ri->nodes_path = in->nodes_path;
	ri->nodes_sha256 = in->nodes_sha256;
	ri->pods_path = in->pods_path;
	ri->pods_sha256 = in->trace->sha256;
	ri->params_json = b->params[c->setting];
	ri->wall_ms = t1 - t0;
	ri->no_pods = jo->no_pods;
	ri->arrival_samples = jo->arrival_samples;
	gs_sim_summarize(&j->sim, &sum);
	gs_outcome_from_summary(&j->out, &sum);
	j->out.wall_ms = ri->wall_ms;
	j->out.skipped = false;
	return 0;
}

int gs_job_store(struct gs_job *j, struct gs_db *db, char *err, size_t err_len)
{
	char msg[768];
	int rc;

	rc = gs_db_write_run(db, &j->ri, &j->sim, &j->out.run_id, msg, sizeof(msg));
	if (rc)
		gs_errf(err, err_len, "%s", msg);
	return rc;
}

void gs_job_release(struct gs_job *j)
{
	gs_sim_release(&j->sim);
}
