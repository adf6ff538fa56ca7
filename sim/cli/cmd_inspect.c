/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_inspect.c - `gpusim inspect`: what is in a results database.
 *
 * Without --run it lists the stored runs with what tells them apart (mode,
 * load or time scale, scoring, sharing) and their headline number. With
 * --run it rebuilds the cluster's allocation at one simulated time from
 * the run's pods table (run/run_state.h) and shows it one node per row in
 * the manner of `kubectl inspect gpushare` (inspect_show.c). The rebuild
 * reads only the database, so any stored run can be looked at later, at
 * any time, except one stored with --no-pods, which has no pod rows.
 *
 * Tables go through libsmartcols (util-linux), which fits them to the
 * terminal, selects columns (-o) and writes --raw; --json writes one cJSON
 * document, the same whatever the columns.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <libsmartcols/libsmartcols.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/inspect_internal.h"
#include "cli/json_out.h"
#include "io/cjson.h"
#include "cli/opt.h"
#include "core/error.h"
#include "policies/policy.h"
#include "store/digest.h"
#include "store/results.h"

/* Converter of --at: 'end', 'peak' or a time in seconds. */
static int parse_at(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		    void *field)
{
	struct gs_inspect_at *at = field;
	const char *c = value;

	if (!strcmp(value, "end")) {
		at->kind = GS_AT_END;
		return 0;
	}
	if (!strcmp(value, "peak")) {
		at->kind = GS_AT_PEAK;
		return 0;
	}
	if (!*c || *c == '-' || c[strspn(c, "0123456789")]) {
		gs_opt_err(cmd, o, "'%s' is not 'end', 'peak' or a time in seconds (a "
			   "non-negative integer)", value);
		return GS_EINVAL;
	}
	if (gs_opt_int(cmd, o, value, 0, INT64_MAX, &at->t_s))
		return GS_EINVAL;
	at->kind = GS_AT_TIME;
	return 0;
}

/* The words --at takes besides a time. */
static const char *at_word(size_t i)
{
	static const char *const words[] = { "peak", "end" };

	return i < sizeof(words) / sizeof(words[0]) ? words[i] : NULL;
}

static const struct gs_opt_choice node_sets[] = { { "used", 0 }, { "all", 1 }, { NULL, 0 } };
static const struct gs_opt_choice sorts[] = {
	{ "free", GS_SORT_FREE }, { "frag", GS_SORT_FRAG }, { "pods", GS_SORT_PODS },
	{ "name", GS_SORT_NAME }, { NULL, 0 }
};
static const struct gs_opt_choice modes[] = { { "time", 0 }, { "inflate", 1 }, { NULL, 0 } };

#define S struct gs_inspect_args
static const struct gs_opt inspect_opts[] = {
	{ GS_OPT_STRING_AT(S, db_path), .name = "db", .arg = "FILE", .conflicts = "state",
	  .help = "results database written by gpusim replay (no -d here: -d is --details, as in "
		  "kubectl inspect gpushare)" },
	{ GS_OPT_INT_AT(S, run_id, 0, INT64_MAX), .name = "run", .short_name = 'r', .arg = "ID",
	  .conflicts = "state", .help = "the run to show (ids from the list)" },
	{ GS_OPT_LIST_AT(S, state, 0), .flags = GS_OPT_MULTI, .name = "state", .arg = "FILE...",
	  .help = "instead of a database, a Kubernetes snapshot: kubectl get nodes,pods -A -o "
		  "yaml|json output, manifests, DRA objects, in one file or several; shown as a "
		  "run's nodes are, then its pending pods, claims and notes (docs/kubernetes.md)" },
	{ GS_OPT_GROUP_HEADING("Output, for the list and for --run:") },
	{ GS_OPT_STRING_AT(S, output), .name = "output", .short_name = 'o', .arg = "COLS",
	  .help = "columns to show, comma-separated, case ignored; '+COLS' adds to the default "
		  "columns (see 'Columns of the run list' and 'Columns of a run's nodes')" },
	{ GS_OPT_FLAG_AT(S, raw), .name = "raw", .conflicts = "json",
	  .help = "one line per row, values separated by one space (a space inside a value "
		  "written \\x20), no alignment; GPU cells joined by commas" },
	{ GS_OPT_FLAG_AT(S, json), .name = "json", .short_name = 'j',
	  .help = "print one JSON document instead of tables (every field, whatever --output)" },
	{ GS_OPT_GROUP_HEADING("The run list (without --run):") },
	{ GS_OPT_LIST_AT(S, policies, 0), .name = "policy", .short_name = 'p', .arg = "LIST",
	  .words = gs_cli_policy_word, .conflicts = "run", .help = "only runs of these policies" },
	{ GS_OPT_ENUM_AT(S, mode, modes), .name = "mode", .short_name = 'm', .arg = "MODE",
	  .conflicts = "run", .help = "only 'time' or only 'inflate' runs" },
	{ GS_OPT_STRING_AT(S, trace), .name = "trace", .arg = "GLOB", .conflicts = "run",
	  .help = "only runs whose pods file (its name or its path as given) matches GLOB, a "
		  "shell pattern (fnmatch)" },
	{ GS_OPT_INT_AT(S, limit, 1, INT64_MAX), .name = "limit", .short_name = 'l', .arg = "N",
	  .conflicts = "run", .help = "only the N newest runs that pass the filters" },
	{ GS_OPT_GROUP_HEADING("One run (--run):") },
	{ GS_OPT_CUSTOM_AT(S, at, struct gs_inspect_at, parse_at, NULL), .name = "at",
	  .short_name = 't', .arg = "T", .words = at_word, 	  .help = "simulated time in seconds (inflate mode: the arrival index); 'peak' the "
		  "sampled time of the highest GPU allocation (the default in time mode); 'end' "
		  "after the last event (the default in inflate mode)" },
	{ GS_OPT_ENUM_AT(S, all_nodes, node_sets), .name = "nodes", .short_name = 'n',
	  .arg = "WHICH", 	  .help = "'used' (default): nodes with any pod at T, and a count of the idle ones; "
		  "'all': every node" },
	{ GS_OPT_ENUM_AT(S, sort, sorts), .name = "sort", .short_name = 's', .arg = "KEY",
	  	  .help = "row order: 'free' most free GPU share first, 'frag' most fragmented first, "
		  "'pods' most pods first, 'name' by name; ties, and the default, in node order" },
	{ GS_OPT_LIST_AT(S, models, 0), .name = "model", .short_name = 'M', .arg = "LIST",
	  .help = "only nodes of these GPU models ('-' for nodes without GPUs)" },
	{ GS_OPT_STRING_AT(S, node_glob), .name = "node", .short_name = 'N', .arg = "GLOB",
	  	  .help = "only nodes whose name matches GLOB, a shell pattern (fnmatch: 'node-1*')" },
	{ GS_OPT_INT_AT(S, min_free, 0, INT64_MAX), .name = "min-free", .short_name = 'f',
	  .arg = "MILLI", 	  .help = "only nodes with at least MILLI milli-GPU free in all (1000 = one whole GPU)" },
	{ GS_OPT_FLAG_AT(S, details), .name = "details", .short_name = 'd', 	  .help = "under each node, its pods: what each holds on each GPU, its CPU and memory" },
	{ 0 },
};
#undef S

static const struct gs_cmd_spec inspect_cmd = {
	.name = "inspect",
	.intro = "Reads a results database (--db) or a Kubernetes snapshot (--state).\n"
		 "\n"
		 "Without --run, lists the complete runs stored in FILE with what tells them\n"
		 "apart: mode, load (time mode with --load), time scale (time mode without)\n"
		 "or inflation factor, scoring (exact, or compat: the FGD reference's),\n"
		 "sharing mode, placed and failed pods, and the headline number: the\n"
		 "unallocated GPU share at arrived workload 100% for inflate runs, the mean\n"
		 "wait for time-mode runs.\n"
		 "\n"
		 "With --run, shows the allocation of each node at simulated time T, rebuilt\n"
		 "from the run's pods: a pod counts when it started at or before T and had\n"
		 "not ended by T. Then subtotals per GPU model over the nodes the filters\n"
		 "select (idle ones too), and totals over the whole cluster.\n"
		 "\n"
		 "Tables fit the width in $COLUMNS, else the terminal's, by showing GPUBAR for\n"
		 "GPUS; nothing is ever cut (a cut name or model could read as another), so a\n"
		 "table that still does not fit has longer lines. Written to a pipe or a file\n"
		 "without $COLUMNS, GPUS stays.\n"
		 "A run stored with --no-pods has no pod rows and cannot be shown this way.\n"
		 "\n"
		 "With --state, shows a Kubernetes snapshot as gpusim reads it, before any\n"
		 "replay: its nodes with their running pods as a run's nodes are shown (the\n"
		 "same columns and options), then the pending pods a replay starts with\n"
		 "(-d: each with the nodes it may use and those it fits on now), the DRA\n"
		 "claims with their devices, and how each node's GPUs were read.\n",
	.outro = "Columns of the run list (default: ID,POLICY,MODE,SEED,TRACE,LOAD,SCORING,\n"
		 "SHARING,PLACED,FAILED,UNALLOC%,WAIT):\n"
		 "  ID, POLICY, MODE, SEED, TRACE (pods file), LOAD (load N%, scale N or inflate\n"
		 "  N), SCORING (exact, exact/shuffled with --ties shuffled, or compat),\n"
		 "  SHARING, PODS, PLACED, FAILED, UNALLOC% (inflate runs), WAIT (mean wait in\n"
		 "  s, time-mode runs), WAIT99 (its 99th percentile), WALL (simulation wall\n"
		 "  time in s).\n"
		 "Columns of a run's nodes (default: NAME,MODEL,SHARING when the run has modes,\n"
		 "GPUS,FREE,GPUMEM,CPU,MEM,FRAG,PODS):\n"
		 "  IDX node index; NAME; MODEL GPU model; SHARING the node's modes; GPUS the\n"
		 "  share each GPU holds, GPU 0 first, in milli-GPU (1000 = whole GPU; under\n"
		 "  sharing modes as the mode counts it: a whole GPU under exclusive, a replica\n"
		 "  under timeslice and mps, the instance under mig); GPUBAR the same, one\n"
		 "  character per GPU ('.' idle, 0-9 tenths held, '#' whole), shown instead of\n"
		 "  GPUS when the numbers do not fit the width; FREE milli-GPU left on\n"
		 "  the node; GPUMEM GPU memory asked for/total in MiB (0 when the trace asks\n"
		 "  none); CPU cores allocated/total; MEM memory allocated/total in GiB; FRAG\n"
		 "  the node's FGD fragmentation in milli-GPU: the free share the trace's\n"
		 "  typical pods could not use there, expected over those pods (Weng et al.,\n"
		 "  ATC'23); PODS pods on the node.\n"
		 "\n"
		 "Exit status: 0 success, 1 the database is inconsistent or unreadable,\n"
		 "2 bad usage (the message names the option and the value), a missing\n"
		 "database, an unknown run id or a run stored with --no-pods.\n",
	.opts = inspect_opts,
};

int gs_inspect_exit_for(int rc)
{
	return rc == GS_ENOMEM || rc == GS_EDB ? GS_EXIT_FAIL : GS_EXIT_USAGE;
}

/* --- the run list ----------------------------------------------------------- */

enum list_col {
	L_ID, L_POLICY, L_MODE, L_SEED, L_TRACE, L_LOAD, L_SCORING, L_SHARING, L_PODS, L_PLACED,
	L_FAILED, L_UNALLOC, L_WAIT, L_WAIT99, L_WALL, L_N
};

static const struct gs_inspect_col list_cols[] = {
	[L_ID] = { "ID", 3, 0, true },
	[L_POLICY] = { "POLICY", 7, 0, true },
	[L_MODE] = { "MODE", 7, 0, true },
	[L_SEED] = { "SEED", 4, SCOLS_FL_RIGHT, true },
	[L_TRACE] = { "TRACE", 12, 0, true },
	[L_LOAD] = { "LOAD", 8, 0, true },
	[L_SCORING] = { "SCORING", 7, 0, true },
	[L_SHARING] = { "SHARING", 7, 0, true },
	[L_PODS] = { "PODS", 6, SCOLS_FL_RIGHT, false },
	[L_PLACED] = { "PLACED", 6, SCOLS_FL_RIGHT, true },
	[L_FAILED] = { "FAILED", 6, SCOLS_FL_RIGHT, true },
	[L_UNALLOC] = { "UNALLOC%", 8, SCOLS_FL_RIGHT, true },
	[L_WAIT] = { "WAIT", 6, SCOLS_FL_RIGHT, true },
	[L_WAIT99] = { "WAIT99", 6, SCOLS_FL_RIGHT, false },
	[L_WALL] = { "WALL", 6, SCOLS_FL_RIGHT, false },
};

/* What a run's params_json says beyond the run_summary columns. */
struct run_params {
	double time_scale, inflate, load;  /* NAN when absent */
	bool compat;
	bool shuffled;                     /* exact scores, ties in a shuffled order (--ties) */
};

/* The run's scoring as the SCORING column and the JSON have it. */
static const char *scoring_name(const struct run_params *p)
{
	return p->compat ? "compat" : p->shuffled ? "exact/shuffled" : "exact";
}

static double json_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void read_params(const char *json, struct run_params *p)
{
	cJSON *root = json ? cJSON_Parse(json) : NULL;
	double flags;

	p->time_scale = json_num(root, "time_scale");
	p->inflate = json_num(root, "inflate");
	p->load = json_num(root, "load");
	p->compat = cJSON_IsTrue(cJSON_GetObjectItem(root, "compat"));
	flags = json_num(root, "policy_flags");
	p->shuffled = flags >= 0 && flags < 256 && ((unsigned)flags & GS_POLICY_SHUFFLED);
	cJSON_Delete(root);
}

/* "load 80%", "scale 1000" or "inflate 1.3": what drove the run's arrivals. */
static const char *load_text(const struct gs_run_row *r, const struct run_params *p, char *buf,
			     size_t len)
{
	if (!strcmp(r->mode, "inflate") && !isnan(p->inflate))
		snprintf(buf, len, "inflate %g", p->inflate);
	else if (!strcmp(r->mode, "inflate"))
		snprintf(buf, len, "-");
	else if (!isnan(p->load))
		snprintf(buf, len, "load %g%%", p->load);
	else if (!isnan(p->time_scale))
		snprintf(buf, len, "scale %g", p->time_scale);
	else
		snprintf(buf, len, "-");
	return buf;
}

int gs_inspect_print_json(cJSON *root)
{
	return gs_json_print("inspect", root);
}

/* The number columns of a run in inspect's JSON, in their order. */
static const struct gs_json_row_num run_figures[] = {
	GS_JSON_ROW_NUM(gpu_alloc_pct), GS_JSON_ROW_NUM(unalloc_gpu_pct),
	GS_JSON_ROW_NUM(frag_ratio_pct), GS_JSON_ROW_NUM(mean_wait_s), GS_JSON_ROW_NUM(wait_p99_s),
	GS_JSON_ROW_NUM(wall_ms),
};

cJSON *gs_inspect_run_json(const struct gs_run_row *r)
{
	cJSON *o = cJSON_CreateObject();
	struct run_params p;

	if (!o)
		return NULL;
	read_params(r->params_json, &p);
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	cJSON_AddStringToObject(o, "policy", r->policy);
	cJSON_AddStringToObject(o, "mode", r->mode);
	gs_json_add_u64(o, "seed", r->seed);
	if (r->pods_file)
		cJSON_AddStringToObject(o, "pods_file", r->pods_file);
	else
		cJSON_AddNullToObject(o, "pods_file");
	gs_cjson_add_number(o, "load_pct", p.load);
	gs_cjson_add_number(o, "time_scale", p.time_scale);
	gs_cjson_add_number(o, "inflate", p.inflate);
	cJSON_AddStringToObject(o, "scoring", scoring_name(&p));
	if (r->sharing)
		cJSON_AddStringToObject(o, "sharing", r->sharing);
	else
		cJSON_AddNullToObject(o, "sharing");
	cJSON_AddNumberToObject(o, "n_pods", (double)r->n_pods);
	cJSON_AddNumberToObject(o, "n_placed", (double)r->n_placed);
	cJSON_AddNumberToObject(o, "n_failed", (double)r->n_failed);
	gs_json_add_row_nums(o, r, run_figures, sizeof(run_figures) / sizeof(run_figures[0]));
	cJSON_AddNumberToObject(o, "t_end_s", (double)r->t_end_s);
	cJSON_AddBoolToObject(o, "pods_stored", r->pods_stored);
	return o;
}

/* Does run r pass the list's filters? */
static bool run_selected(const struct gs_inspect_args *a, const struct gs_run_row *r)
{
	size_t i;
	bool ok;

	if (a->policies.n) {
		for (ok = false, i = 0; i < a->policies.n; i++)
			ok = ok || !strcmp(a->policies.v[i], r->policy);
		if (!ok)
			return false;
	}
	if (a->mode >= 0 && strcmp(r->mode, a->mode ? "inflate" : "time") != 0)
		return false;
	if (a->trace) {
		ok = (r->pods_file && fnmatch(a->trace, r->pods_file, 0) == 0) ||
		     (r->pods_path && fnmatch(a->trace, r->pods_path, 0) == 0);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * The TRACE cell of run r among rows[0..n): its file name, or its path as
 * given when another run's trace has the same file name in another place.
 */
static const char *trace_cell(const struct gs_run_row *r, const struct gs_run_row *rows, size_t n)
{
	size_t i;

	if (!r->pods_file)
		return "-";
	for (i = 0; i < n; i++)
		if (rows[i].pods_file && !strcmp(rows[i].pods_file, r->pods_file) &&
		    strcmp(rows[i].pods_path, r->pods_path))
			return r->pods_path;
	return r->pods_file;
}

static void list_line(struct libscols_table *tb, const struct gs_inspect_colset *cs,
		      const struct gs_run_row *r, const char *trace)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	struct run_params p;
	char buf[128];
	size_t k;

	if (!ln)
		return;
	read_params(r->params_json, &p);
	for (k = 0; k < cs->n; k++) {
		const char *v = buf;

		switch (cs->id[k]) {
		case L_ID:
			snprintf(buf, sizeof(buf), "%" PRId64, r->run_id);
			break;
		case L_POLICY:
			v = r->policy;
			break;
		case L_MODE:
			v = r->mode;
			break;
		case L_SEED:
			snprintf(buf, sizeof(buf), "%" PRIu64, r->seed);
			break;
		case L_TRACE:
			v = trace;
			break;
		case L_LOAD:
			load_text(r, &p, buf, sizeof(buf));
			break;
		case L_SCORING:
			v = scoring_name(&p);
			break;
		case L_SHARING:
			v = r->sharing ? r->sharing : "-";
			break;
		case L_PODS:
			snprintf(buf, sizeof(buf), "%" PRId64, r->n_pods);
			break;
		case L_PLACED:
			snprintf(buf, sizeof(buf), "%" PRId64, r->n_placed);
			break;
		case L_FAILED:
			snprintf(buf, sizeof(buf), "%" PRId64, r->n_failed);
			break;
		case L_UNALLOC:
			/* Time mode's time-weighted share is no headline: its mean wait is. */
			gs_cli_num(buf, sizeof(buf),
				   strcmp(r->mode, "inflate") ? NAN : r->unalloc_gpu_pct, 2);
			break;
		case L_WAIT:
			gs_cli_num(buf, sizeof(buf), strcmp(r->mode, "time") ? NAN : r->mean_wait_s, 1);
			break;
		case L_WAIT99:
			gs_cli_num(buf, sizeof(buf), strcmp(r->mode, "time") ? NAN : r->wait_p99_s, 0);
			break;
		case L_WALL:
			gs_cli_num(buf, sizeof(buf), r->wall_ms / 1000.0, 2);
			break;
		default:
			v = "";
		}
		scols_line_set_data(ln, k, v);
	}
}

static int list_runs(struct gs_db *db, const struct gs_inspect_args *a)
{
	struct gs_inspect_colset cs;
	struct libscols_table *tb = NULL;
	struct gs_run_row *rows = NULL;
	size_t n = 0, i, n_sel = 0, skip;
	char err[1024];
	int rc, status = GS_EXIT_OK;

	if (a->policies.n) {
		for (i = 0; i < a->policies.n; i++) {
			if (!gs_policy_find(a->policies.v[i])) {
				fprintf(stderr, "gpusim inspect: --policy: '%s' is not a policy; "
					"'gpusim policies' lists them\n", a->policies.v[i]);
				return GS_EXIT_USAGE;
			}
		}
	}
	if (gs_inspect_colset_parse(&cs, list_cols, L_N, a->output, "run list", 0))
		return GS_EXIT_USAGE;
	rc = gs_db_list_runs(db, &rows, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		return gs_inspect_exit_for(rc);
	}
	for (i = 0; i < n; i++)
		n_sel += run_selected(a, &rows[i]);
	/* --limit N: the newest N, still printed oldest first. */
	skip = a->limit > 0 && (uint64_t)a->limit < n_sel ? n_sel - (size_t)a->limit : 0;
	if (a->json) {
		cJSON *root = cJSON_CreateObject();
		cJSON *arr = cJSON_AddArrayToObject(root, "runs");

		for (i = 0; arr && i < n; i++) {
			if (!run_selected(a, &rows[i]))
				continue;
			if (skip) {
				skip--;
				continue;
			}
			cJSON_AddItemToArray(arr, gs_inspect_run_json(&rows[i]));
		}
		gs_run_rows_free(rows, n);
		return gs_inspect_print_json(root);
	}
	if (n_sel == 0) {
		printf(n ? "%s: no run matches the filters\n" : "%s: no complete runs\n", a->db_path);
		goto out;
	}
	tb = gs_inspect_table_new(a, &cs, list_cols, "runs");
	if (!tb) {
		status = GS_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!run_selected(a, &rows[i]))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		list_line(tb, &cs, &rows[i], trace_cell(&rows[i], rows, n));
	}
	scols_print_table(tb);
	if (a->limit > 0 && (uint64_t)a->limit < n_sel && !a->raw)
		printf("(%" PRId64 " newest of %zu runs)\n", a->limit, n_sel);
out:
	scols_unref_table(tb);
	gs_run_rows_free(rows, n);
	return status;
}

/* --- one run ---------------------------------------------------------------- */

static int show_run(struct gs_db *db, const struct gs_inspect_args *a)
{
	struct gs_run_row run;
	struct gs_run_state in;
	enum gs_at_kind at = a->at.kind;
	char err[1024];
	int64_t t_s;
	int rc, status;

	memset(&in, 0, sizeof(in));
	rc = gs_db_get_run(db, a->run_id, &run, err, sizeof(err));
	if (rc == GS_ENOENT) {
		fprintf(stderr, "gpusim inspect: run %" PRId64 " not found in %s; "
			"'gpusim inspect --db %s' lists the runs\n",
			a->run_id, a->db_path, a->db_path);
		return GS_EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		return gs_inspect_exit_for(rc);
	}
	/* A damaged file says so rather than show what is left of the run. */
	rc = gs_db_digest_check(db, "main", a->db_path, a->run_id, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		status = gs_inspect_exit_for(rc);
		goto out;
	}
	if (!run.pods_stored) {
		/* Rebuilt from no pods, the cluster would look empty, which it was not. */
		fprintf(stderr, "gpusim inspect: run %" PRId64 " was stored without pod rows "
			"(--no-pods), so its allocations cannot be shown; replay it without "
			"--no-pods to inspect it\n", a->run_id);
		status = GS_EXIT_USAGE;
		goto out;
	}
	/* Time mode ends with an empty cluster, which says nothing: its default is the peak. */
	if (at == GS_AT_DEFAULT)
		at = strcmp(run.mode, "time") ? GS_AT_END : GS_AT_PEAK;
	t_s = at == GS_AT_TIME ? a->at.t_s : run.t_end_s;
	if (at == GS_AT_PEAK) {
		rc = gs_db_peak_time(db, a->run_id, &t_s, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpusim inspect: %s\n", err);
			status = gs_inspect_exit_for(rc);
			goto out;
		}
	}
	rc = gs_run_state_load(&in, db, a->run_id, t_s, err, sizeof(err));
	if (!rc && gs_run_state_frag(&in, run.params_json)) {
		rc = GS_ENOMEM;
		gs_errf(err, sizeof(err), "out of memory");
	}
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		status = GS_EXIT_FAIL;
		goto out;
	}
	status = gs_inspect_show(a, &run, at == GS_AT_PEAK ? "peak" : at == GS_AT_END ? "end" : NULL,
				 &in);
out:
	gs_run_state_release(&in);
	gs_run_row_release(&run);
	return status;
}

/*
 * `-d FILE`, which gives the database to every other command, means
 * --details here; say so rather than call FILE an unexpected argument.
 */
static bool d_given_a_file(int argc, char **argv)
{
	int i;

	for (i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-d") && argv[i + 1][0] != '-' &&
		    strstr(argv[i + 1], ".db")) {
			fprintf(stderr, "gpusim inspect: -d is --details here, as in kubectl inspect "
				"gpushare -d; give the database with --db %s\n", argv[i + 1]);
			return true;
		}
	}
	return false;
}

/*
 * The options of one view (--at, --nodes, --sort, --model, --node,
 * --min-free, --details) need --run or --state; the database needs --db
 * unless a snapshot is given.
 */
static int check_view_options(const struct gs_inspect_args *a)
{
	const char *opt = a->at.kind != GS_AT_DEFAULT ? "at" : a->all_nodes ? "nodes"
			  : a->sort != GS_SORT_INDEX ? "sort" : a->models.n ? "model"
			  : a->node_glob ? "node" : a->min_free >= 0 ? "min-free"
			  : a->details ? "details" : NULL;

	if (!a->db_path && !a->state.n) {
		fprintf(stderr, "gpusim inspect: --db is required, or --state; try 'gpusim inspect "
			"--help'\n");
		return GS_EXIT_USAGE;
	}
	if (opt && a->run_id < 0 && !a->state.n) {
		fprintf(stderr, "gpusim inspect: --%s needs --run ID or --state FILE...\n", opt);
		return GS_EXIT_USAGE;
	}
	if (a->at.kind != GS_AT_DEFAULT && a->state.n) {
		fprintf(stderr, "gpusim inspect: --at is for a stored run: a snapshot is one "
			"moment\n");
		return GS_EXIT_USAGE;
	}
	return GS_EXIT_OK;
}

int gs_cmd_inspect(int argc, char **argv)
{
	struct gs_inspect_args a;
	struct gs_db *db;
	char err[1024];
	int rc, status;

	memset(&a, 0, sizeof(a));
	a.run_id = -1;
	a.at.kind = GS_AT_DEFAULT;
	a.mode = -1;
	a.min_free = -1;
	a.sort = GS_SORT_INDEX;
	if (d_given_a_file(argc, argv))
		return GS_EXIT_USAGE;
	if (gs_opt_parse(&inspect_cmd, argc, argv, &a, &status))
		return status;
	if ((status = check_view_options(&a)) != GS_EXIT_OK) {
		gs_opt_release(&inspect_cmd, &a);
		return status;
	}
	if (a.state.n) {
		status = gs_inspect_snapshot(&a);
		gs_opt_release(&inspect_cmd, &a);
		return status;
	}
	rc = gs_db_open_existing(a.db_path, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim inspect: %s\n", err);
		gs_opt_release(&inspect_cmd, &a);
		/* A missing, foreign, damaged or too new file is the user's input. */
		return rc == GS_ENOMEM || rc == GS_EDB ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	status = a.run_id < 0 ? list_runs(db, &a) : show_run(db, &a);
	gs_db_close(db);
	gs_opt_release(&inspect_cmd, &a);
	return status;
}

/* The option tables of this command, for the man pages and completion (cmd.h). */
const struct gs_cmd_spec *const gs_cmd_inspect_specs[] = { &inspect_cmd, NULL };
