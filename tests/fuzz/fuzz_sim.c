/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sim.c - the shared checks of fuzz_sim.h.
 */
#include "fuzz_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "engine/inflate.h"
#include "engine/replay.h"
#include "fuzz.h"
#include "io/trace/load.h"
#include "io/trace/write.h"
#include "policies/policy.h"

bool fuzz_is_json(const char *name, const uint8_t *data, size_t size)
{
	size_t n = strlen(name), i = 0;

	if (n >= 5 && strcmp(name + n - 5, ".json") == 0)
		return true;
	if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (; i < size && strchr(" \t\r\n", data[i]) && data[i]; i++)
		;
	return i < size && (data[i] == '{' || data[i] == '[');
}

size_t fuzz_csv_data_lines(const uint8_t *data, size_t size)
{
	size_t i = 0, lines = 0;

	if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < size) {
		bool blank = true;

		/* Only CRs is blank too: the reader ends at a run of CR and LF. */
		for (; i < size && data[i] != '\n'; i++)
			blank = blank && data[i] == '\r';
		lines += !blank;
		i++;
	}
	return lines ? lines - 1 : 0;
}

void fuzz_check_same_cluster(const struct gs_cluster *a, const struct gs_cluster *b)
{
	int32_t i;

	FUZZ_CHECK(a->n_nodes == b->n_nodes, "%d nodes became %d", a->n_nodes, b->n_nodes);
	for (i = 0; i < a->n_nodes; i++) {
		const struct gs_node *x = &a->nodes[i], *y = &b->nodes[i];

		FUZZ_CHECK(strcmp(a->node_names[i], b->node_names[i]) == 0, "node %d: '%s' != '%s'",
			   i, a->node_names[i], b->node_names[i]);
		FUZZ_CHECK(x->cpu_milli == y->cpu_milli && x->mem_mib == y->mem_mib &&
			   x->num_gpu == y->num_gpu, "node '%s' changed its capacity",
			   a->node_names[i]);
		FUZZ_CHECK((x->model < 0) == (y->model < 0), "node '%s' changed its model",
			   a->node_names[i]);
		if (x->model >= 0) {
			FUZZ_CHECK(strcmp(a->models.m[x->model].name, b->models.m[y->model].name) == 0 &&
				   a->models.m[x->model].mem_mib == b->models.m[y->model].mem_mib,
				   "node '%s': model %s became %s", a->node_names[i],
				   a->models.m[x->model].name, b->models.m[y->model].name);
		}
	}
	FUZZ_CHECK(a->mem_mib == b->mem_mib && a->cpu_milli == b->cpu_milli &&
		   a->gpu_milli == b->gpu_milli, "the cluster totals changed");
}

/* Does mask ma over models of ca name the same models as mb over cb? */
static bool same_models(uint32_t ma, const struct gs_cluster *ca, uint32_t mb,
			const struct gs_cluster *cb)
{
	int i;

	if (__builtin_popcount(ma) != __builtin_popcount(mb))
		return false;
	for (i = 0; i < ca->models.n; i++) {
		int j;

		if (!((ma >> i) & 1u))
			continue;
		j = gs_models_find(&cb->models, ca->models.m[i].name);
		if (j < 0 || !((mb >> j) & 1u))
			return false;
	}
	return true;
}

void fuzz_check_same_trace(const struct gs_trace *a, const struct gs_cluster *ca,
			   const struct gs_trace *b, const struct gs_cluster *cb)
{
	size_t i;

	FUZZ_CHECK(a->n_pods == b->n_pods, "%zu pods became %zu", a->n_pods, b->n_pods);
	for (i = 0; i < a->n_pods; i++) {
		const struct gs_pod *x = &a->pods[i], *y = &b->pods[i];

		FUZZ_CHECK(strcmp(a->pod_names[i], b->pod_names[i]) == 0, "pod %zu: '%s' != '%s'", i,
			   a->pod_names[i], b->pod_names[i]);
		FUZZ_CHECK(x->cpu_milli == y->cpu_milli && x->mem_mib == y->mem_mib &&
			   x->num_gpu == y->num_gpu && x->gpu_milli == y->gpu_milli &&
			   x->gpu_mem_mib == y->gpu_mem_mib, "pod '%s' changed its request",
			   a->pod_names[i]);
		FUZZ_CHECK(x->t_create_s == y->t_create_s && x->t_delete_s == y->t_delete_s,
			   "pod '%s': times %lld,%lld became %lld,%lld", a->pod_names[i],
			   (long long)x->t_create_s, (long long)x->t_delete_s,
			   (long long)y->t_create_s, (long long)y->t_delete_s);
		FUZZ_CHECK(same_models(x->model_mask, ca, y->model_mask, cb),
			   "pod '%s' changed its GPU models", a->pod_names[i]);
		FUZZ_CHECK(strcmp(gs_trace_group_name(a, gs_trace_pod_group(a, i)),
				  gs_trace_group_name(b, gs_trace_pod_group(b, i))) == 0,
			   "pod '%s' changed its pod group", a->pod_names[i]);
		FUZZ_CHECK(strcmp(gs_trace_class_name(a, x->wclass),
				  gs_trace_class_name(b, y->wclass)) == 0,
			   "pod '%s' changed its class", a->pod_names[i]);
	}
}

/* A stream into memory, or abort. */
static FILE *mem_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	FUZZ_CHECK(f != NULL, "open_memstream failed");
	return f;
}

char *fuzz_print_cluster(const struct gs_cluster *c, bool csv, size_t *len_out, int *rc_out)
{
	char *buf = NULL, err[1024] = "";
	FILE *f = mem_open(&buf, len_out);
	int rc = csv ? gs_write_cluster_csv_stream(f, "rt.csv", c, err, sizeof(err))
		     : gs_write_cluster_json_stream(f, "rt.json", c, err, sizeof(err));

	fclose(f);
	*rc_out = rc;
	if (rc) {
		fuzz_check_refusal(csv ? "rt.csv" : "rt.json", err);
		free(buf);
		return NULL;
	}
	return buf;
}

char *fuzz_print_trace(const struct gs_trace *t, const struct gs_cluster *c, size_t *len_out,
		       int *rc_out)
{
	char *buf = NULL, err[1024] = "";
	FILE *f = mem_open(&buf, len_out);
	int rc = gs_write_trace_csv_stream(f, "rt-pods.csv", t, c, err, sizeof(err));

	fclose(f);
	*rc_out = rc;
	if (rc) {
		fuzz_check_refusal("rt-pods.csv", err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Reads text back as a cluster named name into back (initialised here). */
static void reload_cluster(const char *name, const char *text, size_t len,
			   struct gs_cluster *back)
{
	char err[1024];
	int rc;

	gs_cluster_init(back);
	rc = gs_load_cluster_mem(name, text, len, back, NULL, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "gpusim's own %s does not read back: %s\n%.*s", name, err,
		   (int)(len < 2000 ? len : 2000), text);
}

void fuzz_round_trip(const struct gs_cluster *c, const struct gs_trace *t, bool csv_too)
{
	struct gs_cluster back, back_csv;
	struct gs_trace tback;
	char *text, err[1024];
	size_t len;
	int rc;

	/* Every cluster a reader accepts, the JSON writer writes and the reader takes back. */
	text = fuzz_print_cluster(c, false, &len, &rc);
	FUZZ_CHECK(text != NULL, "the JSON writer refused an accepted cluster (%s)",
		   gs_strerror(rc));
	reload_cluster("rt.json", text, len, &back);
	free(text);
	fuzz_check_same_cluster(c, &back);
	if (csv_too) {
		text = fuzz_print_cluster(c, true, &len, &rc);
		FUZZ_CHECK(text != NULL || rc == GS_EINVAL, "the CSV writer failed: %s",
			   gs_strerror(rc));
		if (text) {
			reload_cluster("rt.csv", text, len, &back_csv);
			free(text);
			fuzz_check_same_cluster(c, &back_csv);
			gs_cluster_release(&back_csv);
		}
	}
	if (t) {
		/* The pods against the cluster read back, whose table has the same models. */
		text = fuzz_print_trace(t, c, &len, &rc);
		FUZZ_CHECK(text != NULL, "the CSV writer refused an accepted trace (%s)",
			   gs_strerror(rc));
		gs_trace_init(&tback);
		rc = gs_load_trace_mem("rt-pods.csv", text, len, &back, &tback, err, sizeof(err));
		FUZZ_CHECK(rc == 0, "gpusim's own pod CSV does not read back: %s\n%.*s", err,
			   (int)(len < 2000 ? len : 2000), text);
		free(text);
		fuzz_check_same_trace(t, c, &tback, &back);
		FUZZ_CHECK(tback.audit.unknown_model == t->audit.unknown_model &&
			   tback.audit.larger_than_any_node == t->audit.larger_than_any_node,
			   "the audit changed in the round trip");
		gs_trace_release(&tback);
	}
	gs_cluster_release(&back);
}

/* Hourly, or coarser so that the trace's span holds at most 10,000 points. */
static int64_t grid_interval(const struct gs_trace *t)
{
	double last = 0;
	size_t i;

	for (i = 0; i < t->n_pods; i++) {
		int64_t d = gs_pod_duration_s(&t->pods[i]);
		double end = (double)t->pods[i].t_create_s + (double)(d > 0 ? d : 0);

		if (end > last)
			last = end;
	}
	return last / 10000 > 3600 ? (int64_t)(last / 10000) + 1 : 3600;
}

static void replay_mode(const struct gs_cluster *c, const struct gs_trace *t, enum gs_mode mode,
			const char *policy, const char *sharing)
{
	struct gs_replay_opts o;
	struct gs_summary s;
	struct gs_sim sim;
	char err[1024] = "";
	int rc;

	gs_replay_opts_init(&o);
	o.mode = mode;
	o.check = true;
	o.frag = true;
	/*
	 * A sampling grid of at most about 10,000 points: hourly unless the trace
	 * spans more than 10,000 hours (dates decades apart are legal), when a
	 * million points (the validation's limit) made one input take seconds.
	 */
	o.sample_interval_s = grid_interval(t);
	if (sharing)
		FUZZ_CHECK(gs_share_parse(sharing, &o.sharing, err, sizeof(err)) == 0, "%s", err);
	rc = gs_sim_validate(c, t, &o, err, sizeof(err));
	if (rc) {
		/* Refused before the run: the options do not fit these inputs. Say so. */
		FUZZ_CHECK(rc == GS_EINVAL || rc == GS_ERANGE, "validate: %s", gs_strerror(rc));
		FUZZ_CHECK(err[0] != '\0', "validate refused with an empty message");
		return;
	}
	rc = gs_sim_init(&sim, c, t, gs_policy_find(policy), &o, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == GS_ELIMIT, "init: %s: %s", gs_strerror(rc), err);
	if (rc) {
		FUZZ_CHECK(err[0] != '\0', "init refused with an empty message");
		return;
	}
	rc = gs_sim_run(&sim, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == GS_ELIMIT, "run: %s: %s", gs_strerror(rc), err);
	FUZZ_CHECK(rc == 0 || err[0] != '\0', "a run refused with an empty message");
	if (rc == 0) {
		gs_sim_summarize(&sim, &s);
		FUZZ_CHECK(s.placed + s.failed + s.pending <= s.pods, "more outcomes than pods");
		FUZZ_CHECK(!(s.mean_wait_s < 0), "a negative mean wait %g", s.mean_wait_s);
	}
	gs_sim_release(&sim);
}

void fuzz_replay(const struct gs_cluster *c, const struct gs_trace *t, size_t max_pods)
{
	struct gs_replay_opts o;

	if (t->n_pods > max_pods || c->n_nodes > 64)
		return;
	replay_mode(c, t, GS_MODE_TIME, "binpack", NULL);
	/* The rate model of the sharing mechanisms, at the same edges of time. */
	replay_mode(c, t, GS_MODE_TIME, "spread", "timeslice:replicas=3");
	gs_replay_opts_init(&o);
	if (c->gpu_milli > 0 &&
	    gs_inflate_expected(t, o.inflate, c->gpu_milli) <= (double)(4 * max_pods))
		replay_mode(c, t, GS_MODE_INFLATE, "fgd", NULL);
}
