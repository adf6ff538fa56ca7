/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.c - the option kinds shared by the subcommands (see cli.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "io/list.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/sharing.h"
#include "engine/busy.h"

const struct gs_opt_choice gs_cli_modes[] = {
	{ "time", GS_MODE_TIME },
	{ "inflate", GS_MODE_INFLATE },
	{ NULL, 0 },
};

const struct gs_opt_choice gs_cli_ties[] = {
	{ "index", 0 },
	{ "shuffled", 1 },
	{ NULL, 0 },
};

const struct gs_opt_choice gs_cli_arrivals[] = {
	{ "poisson", GS_ARRIVALS_POISSON },
	{ "trace", GS_ARRIVALS_TRACE },
	{ NULL, 0 },
};

static int add_policy(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *name,
		      struct gs_cli_policies *p)
{
	const struct gs_policy *pol = gs_policy_find(name);
	size_t i;

	if (!pol) {
		gs_opt_err(cmd, o, "'%s' is not a policy; 'gpusim policies' lists them", name);
		return GS_EINVAL;
	}
	for (i = 0; i < p->n; i++)
		if (p->v[i] == pol) {
			gs_opt_err(cmd, o, "'%s' is given twice", pol->name);
			return GS_EINVAL;
		}
	if (p->n == GS_CLI_MAX_POLICIES) {
		gs_opt_err(cmd, o, "more than %d policies", GS_CLI_MAX_POLICIES);
		return GS_EINVAL;
	}
	p->v[p->n++] = pol;
	return 0;
}

int gs_cli_parse_policies(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field)
{
	struct gs_cli_policies p = { .n = 0 };
	const char *s = value;
	char name[256];
	size_t i;
	int rc = 0;

	do {
		size_t len = strcspn(s, ",");

		if (len == 0) {
			gs_opt_err(cmd, o, "'%s' has an empty item", value);
			return GS_EINVAL;
		}
		if (len >= sizeof(name)) {
			gs_opt_err(cmd, o, "'%.*s' is not a policy; 'gpusim policies' lists them",
				   (int)len, s);
			return GS_EINVAL;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		if (!strcmp(name, "all")) {
			for (i = 0; i < gs_policies_count() && !rc; i++)
				rc = add_policy(cmd, o, gs_policy_at(i)->name, &p);
		} else if (!strcmp(name, "paper")) {
			for (i = 0; i < gs_policies_paper_count() && !rc; i++)
				rc = add_policy(cmd, o, gs_policy_paper_at(i)->name, &p);
		} else {
			rc = add_policy(cmd, o, name, &p);
		}
		s += len;
	} while (!rc && *s++ == ',');
	if (!rc)
		*(struct gs_cli_policies *)field = p;
	return rc;
}

int gs_cli_list_refused(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
			int rc, const char *what)
{
	if (rc == GS_ENOMEM)
		gs_opt_err(cmd, o, "out of memory");
	else
		gs_opt_err(cmd, o, "'%s' is not a list of %s", value, what);
	return rc;
}

const char *gs_cli_num(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int gs_cli_parse_seeds(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field)
{
	struct gs_cli_seeds *out = field;
	uint64_t *seeds, *sorted;
	size_t n, i;
	int rc;

	rc = gs_list_parse_seeds(value, &seeds, &n);
	if (rc)
		return gs_cli_list_refused(cmd, o, value, rc,
					   "seeds and ranges such as 42-51 or 1,5,7-9");
	/* A repeated seed would run the same run twice; find one in a sorted copy. */
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		free(seeds);
		gs_opt_err(cmd, o, "out of memory");
		return GS_ENOMEM;
	}
	memcpy(sorted, seeds, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (i = 1; i < n; i++)
		if (sorted[i] == sorted[i - 1]) {
			gs_opt_err(cmd, o, "seed %llu is given twice", (unsigned long long)sorted[i]);
			free(sorted);
			free(seeds);
			return GS_EINVAL;
		}
	free(sorted);
	gs_cli_seeds_release(out);
	out->v = seeds;
	out->n = n;
	return 0;
}

void gs_cli_seeds_release(void *field)
{
	struct gs_cli_seeds *s = field;

	free(s->v);
	s->v = NULL;
	s->n = 0;
}


int gs_cli_parse_numbers(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			 const char *value, void *field)
{
	struct gs_cli_numbers *out = field;
	double *v;
	size_t n;
	int rc = gs_list_parse_numbers(value, &v, &n);

	if (rc)
		return gs_cli_list_refused(cmd, o, value, rc,
					   "different positive numbers such as 50,80,95,110");
	gs_cli_numbers_release(out);
	out->v = v;
	out->n = n;
	return 0;
}

void gs_cli_numbers_release(void *field)
{
	struct gs_cli_numbers *l = field;

	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int gs_cli_parse_idle_job(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field)
{
	struct gs_idle_job job = { 0, 0, 0 };
	int64_t v[3] = { 0, 0, 0 };
	static const int64_t max[3] = { GS_MAX_GPUS, GS_CPU_MILLI_MAX / 1000,
					GS_MIB_MAX / 1024 };
	const char *s = value;
	char item[32];
	int n = 0;

	do {
		size_t len = strcspn(s, ",");

		if (n == 3 || len == 0 || len >= sizeof(item)) {
			gs_opt_err(cmd, o, "'%s' is not GPUS,CORES[,MEM_GIB]", value);
			return GS_EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (gs_opt_int(cmd, o, item, n == 0 ? 1 : 0, max[n], &v[n]))
			return GS_EINVAL;
		n++;
		s += len;
	} while (*s++ == ',');
	if (n < 2) {
		gs_opt_err(cmd, o, "'%s' is not GPUS,CORES[,MEM_GIB]", value);
		return GS_EINVAL;
	}
	job.num_gpu = (int32_t)v[0];
	job.cpu_milli = (int32_t)(v[1] * 1000);
	job.mem_mib = v[2] * 1024;
	*(struct gs_idle_job *)field = job;
	return 0;
}

/* A plain non-negative decimal (digits, an optional fraction) from s up to end; false if not. */
static bool plain_number(const char *s, const char *end, double *out)
{
	char buf[64], *stop;
	size_t n = (size_t)(end - s);
	size_t i, dots = 0;

	if (n == 0 || n >= sizeof(buf) || s[0] == '.')
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return false;
	}
	if (dots > 1 || s[n - 1] == '.')
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &stop);
	return *stop == '\0' && isfinite(*out);
}

int gs_cli_parse_defrag(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
			void *field)
{
	struct gs_defrag_opts *d = field;
	const char *p = value;
	double pct = 0, per_hour = 0;
	bool have_pct = false, have_rate = false;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len;
		double v;

		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len > 1 && p[len - 1] == '%' && !have_pct && plain_number(p, p + len - 1, &v) &&
		    v <= 100) {
			pct = v;
			have_pct = true;
		} else if (len > 2 && !strncmp(p + len - 2, "/h", 2) && !have_rate &&
			   plain_number(p, p + len - 2, &v)) {
			per_hour = v;
			have_rate = true;
		} else {
			gs_opt_err(cmd, o, "'%s' is not a budget such as 1%%, 30/h or 1%%,30/h "
				   "(a percentage of the pods from 0 to 100, moves per hour)", value);
			return GS_EINVAL;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			gs_opt_err(cmd, o, "'%s' ends with a comma", value);
			return GS_EINVAL;
		}
	}
	if (!have_pct && !have_rate) {
		gs_opt_err(cmd, o, "an empty budget; give 1%%, 30/h or 1%%,30/h");
		return GS_EINVAL;
	}
	d->budget_pct = pct;
	d->per_hour = per_hour;
	return 0;
}

int gs_cli_parse_defrag_cost(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			     const char *value, void *field)
{
	struct gs_defrag_opts *d = field;
	int64_t s;

	if (!strcmp(value, "lost")) {
		d->cost = GS_DEFRAG_LOST;
		d->restart_s = 0;
		return 0;
	}
	if (gs_opt_int(cmd, o, value, 0, GS_TIME_MAX_S, &s))
		return GS_EINVAL;
	d->cost = GS_DEFRAG_RESTART;
	d->restart_s = s;
	return 0;
}

int gs_cli_parse_sharing(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			 const char *value, void *field)
{
	struct gs_share_cfg cfg;
	char err[256];

	if (gs_share_parse(value, &cfg, err, sizeof(err))) {
		gs_opt_err(cmd, o, "%s", err);
		return GS_EINVAL;
	}
	*(struct gs_share_cfg *)field = cfg;
	return 0;
}

int gs_cli_parse_busy(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		      void *field)
{
	char err[1024];
	int rc = gs_busy_parse(field, value, err, sizeof(err));

	if (rc == GS_ENOMEM) {
		gs_opt_err(cmd, o, "out of memory");
		return GS_ENOMEM;
	}
	if (rc) {
		gs_opt_err(cmd, o, "%s", err);
		return GS_EINVAL;
	}
	return 0;
}

void gs_cli_release_busy(void *field)
{
	gs_busy_release(field);
}

int gs_cli_parse_sharings(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			  const char *value, void *field)
{
	struct gs_cli_sharings out = { .n = 0 };
	const char *s = value;
	char item[GS_SHARE_SPEC_MAX], err[256];
	size_t i;

	do {
		size_t len = strcspn(s, ",");
		struct gs_share_cfg cfg;

		if (len == 0 || len >= sizeof(item)) {
			gs_opt_err(cmd, o, "'%s' has an %s item", value, len ? "overlong" : "empty");
			return GS_EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (gs_share_parse(item, &cfg, err, sizeof(err))) {
			gs_opt_err(cmd, o, "%s", err);
			return GS_EINVAL;
		}
		for (i = 0; i < out.n; i++)
			if (gs_share_cfg_equal(&out.v[i], &cfg)) {
				gs_opt_err(cmd, o, "'%s' is given twice", item);
				return GS_EINVAL;
			}
		if (out.n == GS_CLI_MAX_SHARINGS) {
			gs_opt_err(cmd, o, "more than %d sharing modes", GS_CLI_MAX_SHARINGS);
			return GS_EINVAL;
		}
		out.v[out.n++] = cfg;
		s += len;
	} while (*s++ == ',');
	*(struct gs_cli_sharings *)field = out;
	return 0;
}

const char *gs_cli_policy_word(size_t i)
{
	return i < gs_policies_count() ? gs_policy_at(i)->name : NULL;
}

const char *gs_cli_value(const struct gs_opt *o, size_t i)
{
	size_t n;

	if (!gs_opt_takes_value(o))
		return NULL;
	if (o->words)
		return o->words(i);
	if (o->kind == GS_OPT_ENUM) {
		for (n = 0; o->choices[n].name; n++)
			;
		return i < n ? o->choices[i].name : NULL;
	}
	if (o->kind != GS_OPT_CUSTOM)
		return NULL;
	if (o->parse == gs_cli_parse_policies) {
		n = gs_policies_count();
		if (i < n)
			return gs_policy_at(i)->name;
		return i == n ? "all" : i == n + 1 ? "paper" : NULL;
	}
	if (o->parse == gs_cli_parse_sharing || o->parse == gs_cli_parse_sharings) {
		/* Every mode but "default", which the spec of a GPU leaves unset. */
		i += GS_SHARE_DEFAULT + 1;
		return i < GS_SHARE__COUNT ? gs_share_mode_str((int)i) : NULL;
	}
	return NULL;
}

bool gs_cli_is_list(const struct gs_opt *o)
{
	return o->kind == GS_OPT_LIST ||
	       (o->kind == GS_OPT_CUSTOM &&
		(o->parse == gs_cli_parse_policies || o->parse == gs_cli_parse_sharings ||
		 o->parse == gs_cli_parse_seeds || o->parse == gs_cli_parse_numbers));
}

int gs_cli_parse_shard(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *value,
		       void *field)
{
	struct gs_cli_shard *sh = field;
	unsigned long long k, n;
	int used = 0;

	if (sscanf(value, "%llu/%llu%n", &k, &n, &used) != 2 || value[used] != '\0' ||
	    value[0] < '0' || value[0] > '9' || k < 1 || n < 1 || k > n || n > (1ull << 31)) {
		gs_opt_err(cmd, o, "'%s' is not K/N with 1 <= K <= N, e.g. 3/8", value);
		return GS_EINVAL;
	}
	sh->k = (size_t)k;
	sh->n = (size_t)n;
	return 0;
}

void gs_cli_exec_init(struct gs_cli_exec *e)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(e, 0, sizeof(*e));
	e->jobs = ncpu > 0 ? ncpu : 1;
}

void gs_cli_sim_init(struct gs_cli_sim *s)
{
	memset(s, 0, sizeof(*s));
	gs_replay_opts_init(&s->opts);
	s->mode = -1;
	s->compat = -1;
	s->ties = -1;
}

int gs_cli_sim_finish(const char *cmd, struct gs_cli_sim *s)
{
	s->opts.mode = (enum gs_mode)s->mode;
	s->opts.arrivals = (enum gs_arrivals)s->arrivals;
	s->opts.busy = s->busy.n ? &s->busy : NULL;
	if (s->compat < 0)
		s->compat = s->opts.mode == GS_MODE_INFLATE;
	if (s->compat && s->ties == 0) {
		fprintf(stderr, "gpusim %s: --ties index: compat scoring breaks ties in a shuffled "
			"node order, as the FGD reference does; give --exact for the file's order\n",
			cmd);
		return GS_EXIT_USAGE;
	}
	if (s->compat)
		s->opts.policy_flags |= GS_POLICY_COMPAT;
	else if (s->ties == 1)
		s->opts.policy_flags |= GS_POLICY_SHUFFLED;
	return GS_EXIT_OK;
}

int gs_cli_sim_inputs(const char *cmd, const struct gs_cli_sim *s, bool pods_given)
{
	if (s->state.n || (s->nodes && pods_given))
		return GS_EXIT_OK;
	fprintf(stderr, "gpusim %s: --nodes and --pods are required, or --state; try 'gpusim %s "
		"--help'\n", cmd, cmd);
	return GS_EXIT_USAGE;
}

int gs_cli_sim_interference(const char *cmd, struct gs_cli_sim *s, struct gs_interference *ifr)
{
	char err[2048];
	int rc;

	if (!s->interference)
		return GS_EXIT_OK;
	rc = gs_interference_load(ifr, s->interference, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim %s: --interference: %s\n", cmd, err);
		return rc == GS_ENOMEM ? GS_EXIT_FAIL : GS_EXIT_USAGE;
	}
	s->opts.interference = ifr;
	return GS_EXIT_OK;
}

int gs_cli_batch_status(const char *cmd, int rc, int sig, const char *err)
{
	fprintf(stderr, "gpusim %s: %s\n", cmd, err);
	if (rc == GS_EINTR)
		return 128 + sig;
	/* Unreadable inputs are the user's to fix; a run that breaks is ours. */
	return rc == GS_ENOENT || rc == GS_EIO || rc == GS_EPARSE || rc == GS_ESCHEMA ||
			       rc == GS_EINVAL || rc == GS_ERANGE ?
		       GS_EXIT_USAGE : GS_EXIT_FAIL;
}

int gs_cli_db_status(const char *cmd, int rc, const char *err)
{
	fprintf(stderr, "gpusim %s: %s\n", cmd, err);
	return rc == GS_ENOENT || rc == GS_ESCHEMA || rc == GS_EINVAL ? GS_EXIT_USAGE : GS_EXIT_FAIL;
}
