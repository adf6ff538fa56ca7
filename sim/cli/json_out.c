/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.c - run objects for --json, and the allocator that tells a
 * --json output apart from one a failed allocation cut short (see
 * json_out.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
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
	gs_cjson_add_number(o, "group_wait_mean_s", wait_s);
	gs_cjson_add_number(o, "idle_frac_pct", frac_pct);
	gs_cjson_add_number(o, "idle_nocpu_pct", nocpu_pct);
	gs_cjson_add_number(o, "idle_stranded_pct", stranded_pct);
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
	gs_cjson_add_number(o, "run_id", run_id > 0 ? (double)run_id : NAN);
	str(o, "policy", policy);
	str(o, "mode", time_mode ? "time" : "inflate");
	gs_json_add_u64(o, "seed", sim->opts.seed);
	str(o, "pods_file", base ? base + 1 : pods_path);
	cJSON_AddNumberToObject(o, "n_pods", (double)s->pods);
	cJSON_AddNumberToObject(o, "n_placed", (double)s->placed);
	cJSON_AddNumberToObject(o, "n_failed", (double)s->failed);
	gs_cjson_add_number(o, "failed_pct",
			    s->pods ? 100.0 * (double)s->failed / (double)s->pods : NAN);
	gs_cjson_add_number(o, "mean_wait_s", s->mean_wait_s);
	gs_cjson_add_number(o, "gpu_alloc_pct", s->gpu_alloc_pct);
	gs_cjson_add_number(o, "unalloc_gpu_pct", s->unalloc_gpu_pct);
	gs_cjson_add_number(o, "frag_ratio_pct", s->frag_ratio_pct);
	gs_cjson_add_number(o, "frag_amount_pct", s->frag_amount_pct);
	gs_cjson_add_number(o, "peak_gpu_alloc_pct", s->peak_gpu_alloc_pct);
	cJSON_AddNumberToObject(o, "peak_pending", (double)s->peak_pending);
	gs_cjson_add_number(o, "wall_ms", wall_ms);
	gs_cjson_add_number(o, "load_pct", sim->opts.load_pct > 0 ? sim->opts.load_pct : NAN);
	gs_cjson_add_number(o, "offered_load_pct", time_mode ? m->offered_load_pct : NAN);
	gs_cjson_add_number(o, "wait_p50_s", m->wait_p50_s);
	gs_cjson_add_number(o, "wait_p90_s", m->wait_p90_s);
	gs_cjson_add_number(o, "wait_p99_s", m->wait_p99_s);
	gs_cjson_add_number(o, "wait_max_s", m->wait_max_s);
	gs_cjson_add_number(o, "completion_mean_s", m->completion_mean_s);
	gs_cjson_add_number(o, "completion_p50_s", m->completion_p50_s);
	gs_cjson_add_number(o, "completion_p90_s", m->completion_p90_s);
	gs_cjson_add_number(o, "completion_p99_s", m->completion_p99_s);
	gs_cjson_add_number(o, "completion_max_s", m->completion_max_s);
	gs_cjson_add_number(o, "slowdown_mean", m->slowdown_mean);
	gs_cjson_add_number(o, "slowdown_p99", m->slowdown_p99);
	gs_cjson_add_number(o, "pending_avg", m->pending_avg);
	gs_cjson_add_number(o, "makespan_s", m->valid ? (double)m->makespan_s : NAN);
	gs_cjson_add_number(o, "gpu_alloc_busy_pct", m->gpu_alloc_busy_pct);
	gs_cjson_add_number(o, "frag_avg_pct", m->frag_avg_pct);
	gs_cjson_add_number(o, "n_timed_out", m->valid ? (double)m->n_timed_out : NAN);
	{
		char spec[256];

		str(o, "sharing", gs_share_format(&sim->opts.sharing, spec, sizeof(spec)));
	}
	gs_cjson_add_number(o, "eff_util_pct", time_mode ? s->eff_util_pct : NAN);
	gs_cjson_add_number(o, "n_oversubscribed", time_mode ? (double)s->oversubscribed : NAN);
	gs_cjson_add_number(o, "mig_idle_pct", s->mig_idle_pct);
	gs_cjson_add_number(o, "mig_slack_pct", s->mig_slack_pct);
	groups_idle(o, s->groups, s->groups_placed, s->groups_failed, s->group_mean_wait_s,
		    s->idle_frac_pct, s->idle_nocpu_pct, s->idle_stranded_pct);
	params(o, params_json);
	return built(o);
}

/* The number columns of a stored run, in the order --json lists them. */
static const struct gs_json_row_num row_figures[] = {
	GS_JSON_ROW_NUM(failed_pct), GS_JSON_ROW_NUM(mean_wait_s), GS_JSON_ROW_NUM(gpu_alloc_pct),
	GS_JSON_ROW_NUM(unalloc_gpu_pct), GS_JSON_ROW_NUM(frag_ratio_pct),
	GS_JSON_ROW_NUM(frag_amount_pct), GS_JSON_ROW_NUM(peak_gpu_alloc_pct),
	GS_JSON_ROW_NUM(peak_pending), GS_JSON_ROW_NUM(wall_ms), GS_JSON_ROW_NUM(load_pct),
	GS_JSON_ROW_NUM(offered_load_pct), GS_JSON_ROW_NUM(wait_p50_s), GS_JSON_ROW_NUM(wait_p90_s),
	GS_JSON_ROW_NUM(wait_p99_s), GS_JSON_ROW_NUM(wait_max_s), GS_JSON_ROW_NUM(completion_mean_s),
	GS_JSON_ROW_NUM(completion_p50_s), GS_JSON_ROW_NUM(completion_p90_s),
	GS_JSON_ROW_NUM(completion_p99_s), GS_JSON_ROW_NUM(completion_max_s),
	GS_JSON_ROW_NUM(slowdown_mean), GS_JSON_ROW_NUM(slowdown_p99), GS_JSON_ROW_NUM(pending_avg),
	GS_JSON_ROW_NUM(makespan_s), GS_JSON_ROW_NUM(gpu_alloc_busy_pct),
	GS_JSON_ROW_NUM(frag_avg_pct), GS_JSON_ROW_NUM(n_timed_out),
};
static const struct gs_json_row_num row_sharing[] = {
	GS_JSON_ROW_NUM(eff_util_pct), GS_JSON_ROW_NUM(n_oversubscribed),
	GS_JSON_ROW_NUM(mig_idle_pct), GS_JSON_ROW_NUM(mig_slack_pct),
};

void gs_json_add_row_nums(cJSON *o, const struct gs_run_row *r, const struct gs_json_row_num *k,
			  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		gs_cjson_add_number(o, k[i].key, *(const double *)((const char *)r + k[i].offset));
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
	gs_json_add_row_nums(o, r, row_figures, sizeof(row_figures) / sizeof(row_figures[0]));
	str(o, "sharing", r->sharing);
	gs_json_add_row_nums(o, r, row_sharing, sizeof(row_sharing) / sizeof(row_sharing[0]));
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
