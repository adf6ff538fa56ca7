/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.c - run objects for --json, and the allocator that tells a
 * --json output apart from one a failed allocation cut short (see
 * json_out.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/json_out.h"
#include "core/error.h"
#include "io/cjson.h"
#include "io/utf8.h"

#ifdef GS_TEST_HOOKS
/* GS_TEST_JSON_FAIL_AT=N: cJSON allocation N (from 0) fails, the others not (test builds only). */
static atomic_bool fail_armed;
static atomic_llong allocs_before_fail;
#endif

static void *json_malloc(size_t n)
{
	void *p;

#ifdef GS_TEST_HOOKS
	if (atomic_load(&fail_armed) && atomic_fetch_sub(&allocs_before_fail, 1) == 0) {
		gs_cjson_note_oom();
		return NULL;
	}
#endif
	p = malloc(n);
	if (!p)
		gs_cjson_note_oom();
	return p;
}

void gs_json_init(void)
{
	cJSON_Hooks hooks = { .malloc_fn = json_malloc, .free_fn = free };
#ifdef GS_TEST_HOOKS
	const char *env = getenv("GS_TEST_JSON_FAIL_AT");
	char *end;
	long long n;

	if (env && *env) {
		n = strtoll(env, &end, 10);
		if (!*end && n >= 0) {
			atomic_store(&allocs_before_fail, n);
			atomic_store(&fail_armed, true);
		}
	}
#endif
	cJSON_InitHooks(&hooks);
}

bool gs_json_oom(void)
{
	return gs_cjson_oom();
}

/* o, or NULL (o deleted) when an allocation failed while it was built. */
static cJSON *built(cJSON *o)
{
	if (gs_json_oom()) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void num(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

bool gs_json_add_u64(cJSON *o, const char *key, uint64_t v)
{
	char digits[24];

	if (v <= UINT64_C(9007199254740992))
		return cJSON_AddNumberToObject(o, key, (double)v) != NULL;
	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, key, digits) != NULL;
}

static void params(cJSON *o, const char *json)
{
	cJSON *p = json ? cJSON_Parse(json) : NULL;

	if (p)
		cJSON_AddItemToObject(o, "params", p);
	else
		cJSON_AddNullToObject(o, "params");
}

/* The pod groups and the idle breakdown of a run (schema 1.9), as run_summary names them. */
static void groups_idle(cJSON *o, int64_t groups, int64_t placed, int64_t failed, double wait_s,
			double frac_pct, double nocpu_pct, double stranded_pct)
{
	cJSON_AddNumberToObject(o, "n_groups", (double)groups);
	cJSON_AddNumberToObject(o, "n_groups_placed", (double)placed);
	cJSON_AddNumberToObject(o, "n_groups_failed", (double)failed);
	num(o, "group_wait_mean_s", wait_s);
	num(o, "idle_frac_pct", frac_pct);
	num(o, "idle_nocpu_pct", nocpu_pct);
	num(o, "idle_stranded_pct", stranded_pct);
}

cJSON *gs_json_run_summary(const char *policy, const struct gs_sim *sim,
			   const struct gs_summary *s, const char *pods_path,
			   const char *params_json, int64_t run_id, double wall_ms)
{
	const struct gs_time_metrics *m = &s->tm;
	const char *base = pods_path ? strrchr(pods_path, '/') : NULL;
	bool time_mode = sim->opts.mode == GS_MODE_TIME;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	num(o, "run_id", run_id > 0 ? (double)run_id : NAN);
	str(o, "policy", policy);
	str(o, "mode", time_mode ? "time" : "inflate");
	gs_json_add_u64(o, "seed", sim->opts.seed);
	str(o, "pods_file", base ? base + 1 : pods_path);
	cJSON_AddNumberToObject(o, "n_pods", (double)s->pods);
	cJSON_AddNumberToObject(o, "n_placed", (double)s->placed);
	cJSON_AddNumberToObject(o, "n_failed", (double)s->failed);
	num(o, "failed_pct", s->pods ? 100.0 * (double)s->failed / (double)s->pods : NAN);
	num(o, "mean_wait_s", s->mean_wait_s);
	num(o, "gpu_alloc_pct", s->gpu_alloc_pct);
	num(o, "unalloc_gpu_pct", s->unalloc_gpu_pct);
	num(o, "frag_ratio_pct", s->frag_ratio_pct);
	num(o, "frag_amount_pct", s->frag_amount_pct);
	num(o, "peak_gpu_alloc_pct", s->peak_gpu_alloc_pct);
	cJSON_AddNumberToObject(o, "peak_pending", (double)s->peak_pending);
	num(o, "wall_ms", wall_ms);
	num(o, "load_pct", sim->opts.load_pct > 0 ? sim->opts.load_pct : NAN);
	num(o, "offered_load_pct", time_mode ? m->offered_load_pct : NAN);
	num(o, "wait_p50_s", m->wait_p50_s);
	num(o, "wait_p90_s", m->wait_p90_s);
	num(o, "wait_p99_s", m->wait_p99_s);
	num(o, "wait_max_s", m->wait_max_s);
	num(o, "completion_mean_s", m->completion_mean_s);
	num(o, "completion_p50_s", m->completion_p50_s);
	num(o, "completion_p90_s", m->completion_p90_s);
	num(o, "completion_p99_s", m->completion_p99_s);
	num(o, "completion_max_s", m->completion_max_s);
	num(o, "slowdown_mean", m->slowdown_mean);
	num(o, "slowdown_p99", m->slowdown_p99);
	num(o, "pending_avg", m->pending_avg);
	num(o, "makespan_s", m->valid ? (double)m->makespan_s : NAN);
	num(o, "gpu_alloc_busy_pct", m->gpu_alloc_busy_pct);
	num(o, "frag_avg_pct", m->frag_avg_pct);
	num(o, "n_timed_out", m->valid ? (double)m->n_timed_out : NAN);
	{
		char spec[256];

		str(o, "sharing", gs_share_format(&sim->opts.sharing, spec, sizeof(spec)));
	}
	num(o, "eff_util_pct", time_mode ? s->eff_util_pct : NAN);
	num(o, "n_oversubscribed", time_mode ? (double)s->oversubscribed : NAN);
	num(o, "mig_idle_pct", s->mig_idle_pct);
	num(o, "mig_slack_pct", s->mig_slack_pct);
	groups_idle(o, s->groups, s->groups_placed, s->groups_failed, s->group_mean_wait_s,
		    s->idle_frac_pct, s->idle_nocpu_pct, s->idle_stranded_pct);
	params(o, params_json);
	return built(o);
}

cJSON *gs_json_run_row(const struct gs_run_row *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	str(o, "policy", r->policy);
	str(o, "mode", r->mode);
	gs_json_add_u64(o, "seed", r->seed);
	str(o, "pods_file", r->pods_file);
	cJSON_AddNumberToObject(o, "n_pods", (double)r->n_pods);
	cJSON_AddNumberToObject(o, "n_placed", (double)r->n_placed);
	cJSON_AddNumberToObject(o, "n_failed", (double)r->n_failed);
	num(o, "failed_pct", r->failed_pct);
	num(o, "mean_wait_s", r->mean_wait_s);
	num(o, "gpu_alloc_pct", r->gpu_alloc_pct);
	num(o, "unalloc_gpu_pct", r->unalloc_gpu_pct);
	num(o, "frag_ratio_pct", r->frag_ratio_pct);
	num(o, "frag_amount_pct", r->frag_amount_pct);
	num(o, "peak_gpu_alloc_pct", r->peak_gpu_alloc_pct);
	num(o, "peak_pending", r->peak_pending);
	num(o, "wall_ms", r->wall_ms);
	num(o, "load_pct", r->load_pct);
	num(o, "offered_load_pct", r->offered_load_pct);
	num(o, "wait_p50_s", r->wait_p50_s);
	num(o, "wait_p90_s", r->wait_p90_s);
	num(o, "wait_p99_s", r->wait_p99_s);
	num(o, "wait_max_s", r->wait_max_s);
	num(o, "completion_mean_s", r->completion_mean_s);
	num(o, "completion_p50_s", r->completion_p50_s);
	num(o, "completion_p90_s", r->completion_p90_s);
	num(o, "completion_p99_s", r->completion_p99_s);
	num(o, "completion_max_s", r->completion_max_s);
	num(o, "slowdown_mean", r->slowdown_mean);
	num(o, "slowdown_p99", r->slowdown_p99);
	num(o, "pending_avg", r->pending_avg);
	num(o, "makespan_s", r->makespan_s);
	num(o, "gpu_alloc_busy_pct", r->gpu_alloc_busy_pct);
	num(o, "frag_avg_pct", r->frag_avg_pct);
	num(o, "n_timed_out", r->n_timed_out);
	str(o, "sharing", r->sharing);
	num(o, "eff_util_pct", r->eff_util_pct);
	num(o, "n_oversubscribed", r->n_oversubscribed);
	num(o, "mig_idle_pct", r->mig_idle_pct);
	num(o, "mig_slack_pct", r->mig_slack_pct);
	groups_idle(o, r->n_groups, r->n_groups_placed, r->n_groups_failed, r->group_wait_mean_s,
		    r->idle_frac_pct, r->idle_nocpu_pct, r->idle_stranded_pct);
	params(o, r->params_json);
	return built(o);
}

int gs_json_print(const char *cmd, cJSON *root)
{
	char *text = root && !gs_json_oom() ? cJSON_Print(root) : NULL;

	cJSON_Delete(root);
	/* A failed allocation, while the document was built or printed, may have cut it. */
	if (!text || gs_json_oom()) {
		cJSON_free(text);
		fprintf(stderr, "gpusim %s: out of memory\n", cmd);
		return GS_EXIT_FAIL;
	}
	/*
	 * Readers refuse names that are not UTF-8; a path or a database written
	 * by another program may still hold such bytes, and JSON must not.
	 */
	if (!gs_utf8_valid(text, strlen(text))) {
		char *fixed = gs_utf8_repair(text);

		cJSON_free(text);
		if (!fixed) {
			fprintf(stderr, "gpusim %s: out of memory\n", cmd);
			return GS_EXIT_FAIL;
		}
		printf("%s\n", fixed);
		free(fixed);
		return GS_EXIT_OK;
	}
	printf("%s\n", text);
	cJSON_free(text);
	return GS_EXIT_OK;
}
