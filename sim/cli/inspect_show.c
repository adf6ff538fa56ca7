/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect_show.c - the views of `gpusim inspect --run`: the node table (one
 * row per node, a compact cell per GPU, pods under their node with
 * --details), the subtotals per GPU model, the cluster totals and the MIG
 * instances, as libsmartcols tables or one JSON document; and the table
 * helpers the run list shares. Contracts in inspect_internal.h.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libsmartcols/libsmartcols.h>

#include "cli/cmd.h"
#include "cli/inspect_internal.h"
#include "core/error.h"

/* --- table helpers -------------------------------------------------------- */

static int col_find(const struct gs_inspect_col *cols, int n_cols, const char *name, size_t len)
{
	int i;

	for (i = 0; i < n_cols; i++)
		if (strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len))
			return i;
	return -1;
}

static bool colset_add(struct gs_inspect_colset *cs, int id)
{
	size_t k;

	for (k = 0; k < cs->n; k++)
		if (cs->id[k] == id)
			return true;
	if (cs->n >= sizeof(cs->id) / sizeof(cs->id[0]))
		return false;
	cs->id[cs->n++] = id;
	return true;
}

int gs_inspect_colset_parse(struct gs_inspect_colset *cs, const struct gs_inspect_col *cols,
			    int n_cols, const char *output, const char *what, unsigned skip)
{
	const char *s = output;
	int i;

	cs->n = 0;
	if (!s || *s == '+') {
		for (i = 0; i < n_cols; i++)
			if (cols[i].deflt && !(skip >> i & 1u))
				colset_add(cs, i);
		if (s)
			s++;
	}
	while (s && *s) {
		size_t len = strcspn(s, ",");
		int id = col_find(cols, n_cols, s, len);

		if (id < 0 || !colset_add(cs, id)) {
			fprintf(stderr, "gpusim inspect: --output: '%.*s' is not a column of the %s; "
				"its columns are", (int)len, s, what);
			for (i = 0; i < n_cols; i++)
				fprintf(stderr, "%s %s", i ? "," : "", cols[i].name);
			fprintf(stderr, "\n");
			return GS_EINVAL;
		}
		s += len + (s[len] == ',');
	}
	if (cs->n == 0) {
		fprintf(stderr, "gpusim inspect: --output: '%s' names no column\n", output);
		return GS_EINVAL;
	}
	return 0;
}

int gs_inspect_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (!*end && v > 0 && v < 100000)
			return (int)v;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

struct libscols_table *gs_inspect_table_new(const struct gs_inspect_args *a,
					    const struct gs_inspect_colset *cs,
					    const struct gs_inspect_col *cols, const char *name)
{
	struct libscols_table *tb = scols_new_table();
	int width = gs_inspect_width();
	size_t k;

	if (!tb)
		goto oom;
	scols_table_set_name(tb, name);
	scols_table_enable_raw(tb, a->raw);
	if (width > 0 && !a->raw) {
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
		scols_table_set_termwidth(tb, (size_t)width);
	} else {
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	}
	for (k = 0; k < cs->n; k++) {
		const struct gs_inspect_col *c = &cols[cs->id[k]];

		if (!scols_table_new_column(tb, c->name, c->whint, c->flags))
			goto oom;
	}
	return tb;
oom:
	scols_unref_table(tb);
	fprintf(stderr, "gpusim inspect: out of memory\n");
	return NULL;
}

/*
 * Prints the formatted text and a newline, broken at spaces so that no
 * line is wider than the output (gs_inspect_width(); 0: no limit), the
 * lines after the first indented by two spaces. A leading newline stays.
 */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	size_t width = (size_t)gs_inspect_width(), indent = 0;
	char text[1024];
	const char *s = text;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	while (*s == '\n')
		putchar(*s++);
	while (width > 2 && strlen(s) + indent > width) {
		size_t cut = width - indent;

		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (cut == 0)
			break;
		printf("%*s%.*s\n", (int)indent, "", (int)cut, s);
		s += cut + 1;
		indent = 2;
	}
	printf("%*s%s\n", (int)indent, "", s);
}

/* --- the node table ------------------------------------------------------- */

enum node_col {
	C_IDX, C_NAME, C_MODEL, C_SHARING, C_GPUS, C_GPUBAR, C_FREE, C_GPUMEM, C_CPU, C_MEM, C_FRAG, C_PODS,
	C_N
};

static const struct gs_inspect_col node_cols[] = {
	[C_IDX] = { "IDX", 4, SCOLS_FL_RIGHT, false },
	[C_NAME] = { "NAME", 12, 0, true },
	[C_MODEL] = { "MODEL", 5, 0, true },
	[C_SHARING] = { "SHARING", 7, 0, true },
	[C_GPUS] = { "GPUS", 9, 0, true },
	[C_GPUBAR] = { "GPUBAR", 6, 0, false },
	[C_FREE] = { "FREE", 4, SCOLS_FL_RIGHT, true },
	[C_GPUMEM] = { "GPUMEM", 7, SCOLS_FL_RIGHT, true },
	[C_CPU] = { "CPU", 7, SCOLS_FL_RIGHT, true },
	[C_MEM] = { "MEM", 7, SCOLS_FL_RIGHT, true },
	[C_FRAG] = { "FRAG", 4, SCOLS_FL_RIGHT, true },
	[C_PODS] = { "PODS", 4, SCOLS_FL_RIGHT, true },
};

/* "63.2" for 63208 thousandths, "64" for 64000: cores from milli-cores, GiB from MiB/1024. */
static void fmt_amount(char *buf, size_t len, int64_t v, int64_t unit)
{
	if (v % unit == 0)
		snprintf(buf, len, "%" PRId64, v / unit);
	else
		snprintf(buf, len, "%.1f", (double)v / (double)unit);
}

static void fmt_ratio(char *buf, size_t len, int64_t a, int64_t b, int64_t unit)
{
	char x[32], y[32];

	fmt_amount(x, sizeof(x), a, unit);
	fmt_amount(y, sizeof(y), b, unit);
	snprintf(buf, len, "%s/%s", x, y);
}

/*
 * The GPU cells: v[0..n) right-aligned in 4 characters, or joined by
 * commas in raw output; a negative value prints as '-' (a GPU the pod
 * does not hold).
 */
static void fmt_gpus(char *buf, size_t len, const int32_t *v, int n, bool raw)
{
	size_t used = 0;
	int g;

	buf[0] = '\0';
	for (g = 0; g < n && used < len; g++) {
		char cell[16];

		if (v[g] < 0)
			snprintf(cell, sizeof(cell), "-");
		else
			snprintf(cell, sizeof(cell), "%" PRId32, v[g]);
		if (raw)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", g ? "," : "", cell);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%4s", g ? " " : "", cell);
	}
}

/*
 * One character per GPU: '.' idle, '#' whole, otherwise the tenths held,
 * rounded down ('0': less than a tenth).
 */
static void fmt_bar(char *buf, size_t len, const int32_t *v, int n)
{
	int g;

	for (g = 0; g < n && (size_t)g + 1 < len; g++)
		buf[g] = v[g] <= 0 ? '.' : v[g] >= GS_MILLI_PER_GPU ? '#' : (char)('0' + v[g] / 100);
	buf[g < (int)len ? g : (int)len - 1] = '\0';
}

/* What each column's numbers are, for the line above the table. */
static const char *const node_unit[C_N] = {
	[C_GPUS] = "milli-GPU held on each GPU (1000 = whole)",
	[C_GPUBAR] = "one character per GPU: '.' idle, 0-9 tenths held, '#' whole",
	[C_FREE] = "milli-GPU",
	[C_GPUMEM] = "MiB",
	[C_CPU] = "cores",
	[C_MEM] = "GiB",
	[C_FRAG] = "milli-GPU",
};

/* Node i's cell of column id, in buf (256 bytes) or a static or borrowed string. */
static const char *node_cell(char *buf, size_t len, int id, bool raw, const struct gs_run_state *in,
			     size_t i)
{
	const struct gs_db_node *nd = &in->nodes[i];
	const struct gs_run_state_node *na = &in->alloc[i];

	switch (id) {
	case C_IDX:
		snprintf(buf, len, "%" PRId32, nd->idx);
		return buf;
	case C_NAME:
		return nd->name;
	case C_MODEL:
		return nd->gpu_model ? nd->gpu_model : "-";
	case C_SHARING:
		return nd->sharing ? nd->sharing : "-";
	case C_GPUS:
		fmt_gpus(buf, len, na->gpu_milli, nd->num_gpu, raw);
		return nd->num_gpu ? buf : "-";
	case C_GPUBAR:
		fmt_bar(buf, len, na->gpu_milli, nd->num_gpu);
		return nd->num_gpu ? buf : "-";
	case C_FREE:
		snprintf(buf, len, "%" PRId32, na->free_milli);
		return buf;
	case C_GPUMEM:
		snprintf(buf, len, "%" PRId64 "/%" PRId64, na->gpu_mem_mib,
			 nd->gpu_mem_mib * nd->num_gpu);
		return buf;
	case C_CPU:
		fmt_ratio(buf, len, na->cpu_milli, nd->cpu_milli, 1000);
		return buf;
	case C_MEM:
		fmt_ratio(buf, len, na->mem_mib, nd->memory_mib, 1024);
		return buf;
	case C_FRAG:
		if (isnan(na->frag_milli))
			return "-";
		snprintf(buf, len, "%.0f", na->frag_milli);
		return buf;
	case C_PODS:
		snprintf(buf, len, "%" PRId32, na->pods);
		return buf;
	default:
		return "";
	}
}

static void node_line(struct libscols_line *ln, const struct gs_inspect_args *a,
		      const struct gs_inspect_colset *cs, const struct gs_run_state *in, size_t i)
{
	char buf[256];
	size_t k;

	for (k = 0; k < cs->n; k++)
		scols_line_set_data(ln, k, node_cell(buf, sizeof(buf), cs->id[k], a->raw, in, i));
}

/*
 * The width of the node table with cs's columns over rows[0..n): the
 * widest cell or header of each column, one space between columns.
 */
static size_t table_width(const struct gs_inspect_colset *cs, const struct gs_run_state *in,
			  const size_t *rows, size_t n)
{
	size_t k, j, sum = 0;
	char buf[256];

	for (k = 0; k < cs->n; k++) {
		size_t w = strlen(node_cols[cs->id[k]].name);

		for (j = 0; j < n; j++) {
			size_t l = strlen(node_cell(buf, sizeof(buf), cs->id[k], false, in, rows[j]));

			w = l > w ? l : w;
		}
		sum += w + (k > 0);
	}
	return sum;
}

/* A pod under its node (--details): what it holds on each GPU of the node. */
static void pod_line(struct libscols_line *ln, const struct gs_inspect_args *a,
		     const struct gs_inspect_colset *cs, const struct gs_run_state *in, size_t i,
		     const struct gs_run_state_pod *hp)
{
	const struct gs_db_node *nd = &in->nodes[i];
	const struct gs_db_pod *p = &in->pods[hp->pod];
	int32_t on[GS_MAX_GPUS];
	char buf[256];
	size_t k;
	int g;

	for (g = 0; g < GS_MAX_GPUS; g++)
		on[g] = -1;
	for (g = 0; g < p->n_gpus; g++)
		on[p->gpus[g]] = hp->cost_milli[g];
	for (k = 0; k < cs->n; k++) {
		const char *v = buf;

		switch (cs->id[k]) {
		case C_IDX:
			snprintf(buf, sizeof(buf), "%" PRId32, p->pod_idx);
			break;
		case C_NAME:
			v = p->name ? p->name : "-";
			break;
		case C_GPUS:
			fmt_gpus(buf, sizeof(buf), on, nd->num_gpu, a->raw);
			if (nd->num_gpu == 0)
				v = "-";
			break;
		case C_GPUBAR: {
			int32_t held[GS_MAX_GPUS];

			for (g = 0; g < nd->num_gpu; g++)
				held[g] = on[g] < 0 ? 0 : on[g];
			fmt_bar(buf, sizeof(buf), held, nd->num_gpu);
			if (nd->num_gpu == 0)
				v = "-";
			break;
		}
		case C_GPUMEM:
			snprintf(buf, sizeof(buf), "%" PRId64, p->gpu_mem_mib * p->n_gpus);
			break;
		case C_CPU:
			fmt_amount(buf, sizeof(buf), p->cpu_milli, 1000);
			break;
		case C_MEM:
			fmt_amount(buf, sizeof(buf), p->memory_mib, 1024);
			break;
		default:
			v = "";
		}
		scols_line_set_data(ln, k, v);
	}
}

/* --- selection and order -------------------------------------------------- */

static bool model_selected(const struct gs_inspect_args *a, const struct gs_db_node *nd)
{
	size_t k;

	if (a->models.n == 0)
		return true;
	for (k = 0; k < a->models.n; k++) {
		if (nd->gpu_model ? !strcmp(a->models.v[k], nd->gpu_model)
				  : !strcmp(a->models.v[k], "-"))
			return true;
	}
	return false;
}

/* Do --model, --node and --min-free keep node i? */
static bool node_selected(const struct gs_inspect_args *a, const struct gs_run_state *in, size_t i)
{
	const struct gs_db_node *nd = &in->nodes[i];

	if (!model_selected(a, nd))
		return false;
	if (a->node_glob && fnmatch(a->node_glob, nd->name, 0) != 0)
		return false;
	if (a->min_free >= 0 && in->alloc[i].free_milli < a->min_free)
		return false;
	return true;
}

/* Every --model must be a model of the run: a typo is an error, not an empty table. */
static int check_models(const struct gs_inspect_args *a, const struct gs_run_state *in)
{
	size_t k, i;

	for (k = 0; k < a->models.n; k++) {
		bool found = false;

		for (i = 0; i < in->n_nodes && !found; i++) {
			const struct gs_db_node *nd = &in->nodes[i];

			found = nd->gpu_model ? !strcmp(a->models.v[k], nd->gpu_model)
					      : !strcmp(a->models.v[k], "-");
		}
		if (!found) {
			size_t j;

			fprintf(stderr, "gpusim inspect: --model: no node of run %" PRId64 " has GPU "
				"model '%s'; its models are", in->run_id, a->models.v[k]);
			for (i = 0; i < in->n_nodes; i++) {
				const char *m = in->nodes[i].gpu_model ? in->nodes[i].gpu_model : "-";

				for (j = 0; j < i; j++) {
					const char *o = in->nodes[j].gpu_model;

					if (!strcmp(o ? o : "-", m))
						break;
				}
				if (j == i)
					fprintf(stderr, "%s %s", i ? "," : "", m);
			}
			fprintf(stderr, "\n");
			return GS_EINVAL;
		}
	}
	return 0;
}

/* A row and what --sort orders it by. */
struct row_key {
	size_t i;                        /* node index: ties and the default order */
	double key;                      /* larger first */
	const char *name;                /* GS_SORT_NAME */
};

static int cmp_rows(const void *x, const void *y)
{
	const struct row_key *a = x, *b = y;
	int c;

	if (a->name && b->name)
		c = strcmp(a->name, b->name);
	else
		c = (b->key > a->key) - (b->key < a->key);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Orders rows[0..n) as --sort asks. Returns 0 or GS_ENOMEM. */
static int sort_rows(const struct gs_run_state *in, int by, size_t *rows, size_t n)
{
	struct row_key *k = malloc((n ? n : 1) * sizeof(*k));
	size_t j;

	if (!k)
		return GS_ENOMEM;
	for (j = 0; j < n; j++) {
		const struct gs_run_state_node *na = &in->alloc[rows[j]];

		k[j].i = rows[j];
		k[j].name = by == GS_SORT_NAME ? in->nodes[rows[j]].name : NULL;
		k[j].key = by == GS_SORT_FREE	? na->free_milli
			   : by == GS_SORT_PODS ? na->pods
			   /* Most fragmented first; unknown fragmentation last. */
			   : by == GS_SORT_FRAG ? (isnan(na->frag_milli) ? -1 : na->frag_milli)
						: 0;
	}
	qsort(k, n, sizeof(*k), cmp_rows);
	for (j = 0; j < n; j++)
		rows[j] = k[j].i;
	free(k);
	return 0;
}

/* --- subtotals per model and totals ---------------------------------------- */

struct sums {
	const char *model;               /* borrowed; NULL for nodes without GPUs */
	int64_t nodes, gpus, gpu_alloc_milli, gpu_milli, free_milli;
	int64_t gpu_mem_mib, gpu_mem_total_mib;
	int64_t cpu_alloc_milli, cpu_milli, mem_alloc_mib, mem_mib;
	int64_t gpus_in_use, pods, idle_nodes;
	double frag_milli;
};

static void sums_add(struct sums *s, const struct gs_run_state *in, size_t i)
{
	const struct gs_db_node *nd = &in->nodes[i];
	const struct gs_run_state_node *na = &in->alloc[i];
	int g;

	s->nodes++;
	s->gpus += nd->num_gpu;
	s->gpu_milli += (int64_t)nd->num_gpu * GS_MILLI_PER_GPU;
	for (g = 0; g < nd->num_gpu; g++) {
		s->gpu_alloc_milli += na->gpu_milli[g];
		s->gpus_in_use += na->gpu_milli[g] > 0;
	}
	s->free_milli += na->free_milli;
	s->gpu_mem_mib += na->gpu_mem_mib;
	s->gpu_mem_total_mib += nd->gpu_mem_mib * nd->num_gpu;
	s->cpu_alloc_milli += na->cpu_milli;
	s->cpu_milli += nd->cpu_milli;
	s->mem_alloc_mib += na->mem_mib;
	s->mem_mib += nd->memory_mib;
	s->pods += na->pods;
	s->idle_nodes += na->pods == 0;
	if (!isnan(na->frag_milli))
		s->frag_milli += na->frag_milli;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static int cmp_model(const void *x, const void *y)
{
	const struct sums *a = x, *b = y;

	if (!a->model || !b->model)
		return (a->model == NULL) - (b->model == NULL);
	return strcmp(a->model, b->model);
}

/* Subtotals per GPU model of the nodes in sel[0..n), in model order; *n_out of them. */
static struct sums *model_sums(const struct gs_run_state *in, const size_t *sel, size_t n,
			       size_t *n_out)
{
	struct sums *s = calloc(n ? n : 1, sizeof(*s));
	size_t k, m = 0, j;

	if (!s)
		return NULL;
	for (k = 0; k < n; k++) {
		const char *model = in->nodes[sel[k]].gpu_model;

		for (j = 0; j < m; j++)
			if ((model && s[j].model && !strcmp(model, s[j].model)) ||
			    (!model && !s[j].model))
				break;
		if (j == m)
			s[m++].model = model;
		sums_add(&s[j], in, sel[k]);
	}
	qsort(s, m, sizeof(*s), cmp_model);
	*n_out = m;
	return s;
}

enum sum_col { S_MODEL, S_NODES, S_GPUS, S_ALLOC, S_ALLOCP, S_FREE, S_FRAG, S_FRAGP, S_PODS, S_N };

static const struct gs_inspect_col sum_cols[] = {
	[S_MODEL] = { "MODEL", 5, 0, true },
	[S_NODES] = { "NODES", 5, SCOLS_FL_RIGHT, true },
	[S_GPUS] = { "GPUS", 4, SCOLS_FL_RIGHT, true },
	[S_ALLOC] = { "ALLOC", 9, SCOLS_FL_RIGHT, true },
	[S_ALLOCP] = { "ALLOC%", 6, SCOLS_FL_RIGHT, true },
	[S_FREE] = { "FREE", 6, SCOLS_FL_RIGHT, true },
	[S_FRAG] = { "FRAG", 6, SCOLS_FL_RIGHT, true },
	[S_FRAGP] = { "FRAG%FREE", 9, SCOLS_FL_RIGHT, true },
	[S_PODS] = { "PODS", 5, SCOLS_FL_RIGHT, true },
};

static void sum_line(struct libscols_table *tb, const struct sums *s, const char *name,
		     bool frag_known)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	char buf[64];

	if (!ln)
		return;
	scols_line_set_data(ln, S_MODEL, name);
	snprintf(buf, sizeof(buf), "%" PRId64, s->nodes);
	scols_line_set_data(ln, S_NODES, buf);
	snprintf(buf, sizeof(buf), "%" PRId64, s->gpus);
	scols_line_set_data(ln, S_GPUS, buf);
	snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64, s->gpu_alloc_milli, s->gpu_milli);
	scols_line_set_data(ln, S_ALLOC, buf);
	snprintf(buf, sizeof(buf), "%.1f", pct((double)s->gpu_alloc_milli, (double)s->gpu_milli));
	scols_line_set_data(ln, S_ALLOCP, buf);
	snprintf(buf, sizeof(buf), "%" PRId64, s->free_milli);
	scols_line_set_data(ln, S_FREE, buf);
	snprintf(buf, sizeof(buf), "%.0f", s->frag_milli);
	scols_line_set_data(ln, S_FRAG, frag_known ? buf : "-");
	snprintf(buf, sizeof(buf), "%.1f", pct(s->frag_milli, (double)s->free_milli));
	scols_line_set_data(ln, S_FRAGP, frag_known ? buf : "-");
	snprintf(buf, sizeof(buf), "%" PRId64, s->pods);
	scols_line_set_data(ln, S_PODS, buf);
}

/* --- MIG ----------------------------------------------------------------- */

/* "4g.40gb@0 busy, 3g.40gb@4 idle" for one MIG GPU. */
static void mig_text(const struct gs_mig_table *t, const struct gs_mig_gpu *g, char *buf,
		     size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < g->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s@%d %s", i ? ", " : "",
					 t->p[g->inst[i].profile].name, g->inst[i].start,
					 g->inst[i].busy ? "busy" : "idle");
}

/* The MIG instances of the MIG GPUs of the nodes shown. */
static void show_mig(const struct gs_run_state *in, const size_t *rows, size_t n_rows)
{
	char buf[512];
	size_t k;
	int g, first = 1;

	for (k = 0; k < n_rows; k++) {
		size_t i = rows[k];
		const struct gs_mig_table *t = gs_mig_table_for_model(in->nodes[i].gpu_model);

		if (!in->alloc[i].shared || !t)
			continue;
		for (g = 0; g < in->nodes[i].num_gpu; g++) {
			if (in->alloc[i].cfg[g].mode != GS_SHARE_MIG || in->alloc[i].mig[g].n == 0)
				continue;
			if (first)
				printf("\nMIG instances (profile@first memory slice):\n");
			first = 0;
			mig_text(t, &in->alloc[i].mig[g], buf, sizeof(buf));
			printf("  %s GPU%d: %s\n", in->nodes[i].name, g, buf);
		}
	}
}

/* --- JSON ---------------------------------------------------------------- */

static void sums_json(cJSON *o, const struct sums *s, bool frag_known)
{
	cJSON_AddNumberToObject(o, "nodes", (double)s->nodes);
	cJSON_AddNumberToObject(o, "gpus", (double)s->gpus);
	cJSON_AddNumberToObject(o, "gpu_alloc_milli", (double)s->gpu_alloc_milli);
	cJSON_AddNumberToObject(o, "gpu_milli", (double)s->gpu_milli);
	cJSON_AddNumberToObject(o, "gpus_in_use", (double)s->gpus_in_use);
	cJSON_AddNumberToObject(o, "gpu_free_milli", (double)s->free_milli);
	cJSON_AddNumberToObject(o, "gpu_mem_alloc_mib", (double)s->gpu_mem_mib);
	cJSON_AddNumberToObject(o, "gpu_mem_mib", (double)s->gpu_mem_total_mib);
	cJSON_AddNumberToObject(o, "cpu_alloc_milli", (double)s->cpu_alloc_milli);
	cJSON_AddNumberToObject(o, "cpu_milli", (double)s->cpu_milli);
	cJSON_AddNumberToObject(o, "mem_alloc_mib", (double)s->mem_alloc_mib);
	cJSON_AddNumberToObject(o, "memory_mib", (double)s->mem_mib);
	if (frag_known)
		cJSON_AddNumberToObject(o, "frag_milli", s->frag_milli);
	else
		cJSON_AddNullToObject(o, "frag_milli");
	cJSON_AddNumberToObject(o, "pods", (double)s->pods);
	cJSON_AddNumberToObject(o, "idle_nodes", (double)s->idle_nodes);
}

static cJSON *node_json(const struct gs_inspect_args *a, const struct gs_run_state *in, size_t i)
{
	const struct gs_db_node *nd = &in->nodes[i];
	const struct gs_run_state_node *na = &in->alloc[i];
	cJSON *o = cJSON_CreateObject(), *gpus;
	int g;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "idx", nd->idx);
	cJSON_AddStringToObject(o, "name", nd->name);
	if (nd->gpu_model)
		cJSON_AddStringToObject(o, "gpu_model", nd->gpu_model);
	else
		cJSON_AddNullToObject(o, "gpu_model");
	gpus = cJSON_AddArrayToObject(o, "gpu_alloc_milli");
	for (g = 0; gpus && g < nd->num_gpu; g++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(na->gpu_milli[g]));
	cJSON_AddNumberToObject(o, "gpu_free_milli", na->free_milli);
	cJSON_AddNumberToObject(o, "gpu_mem_alloc_mib", (double)na->gpu_mem_mib);
	cJSON_AddNumberToObject(o, "gpu_mem_mib", (double)(nd->gpu_mem_mib * nd->num_gpu));
	if (nd->sharing)
		cJSON_AddStringToObject(o, "sharing", nd->sharing);
	else
		cJSON_AddNullToObject(o, "sharing");
	if (na->shared && gs_mig_table_for_model(nd->gpu_model)) {
		cJSON *mig = cJSON_AddArrayToObject(o, "mig");
		char buf[512];

		for (g = 0; mig && g < nd->num_gpu; g++) {
			mig_text(gs_mig_table_for_model(nd->gpu_model), &na->mig[g], buf, sizeof(buf));
			cJSON_AddItemToArray(mig, cJSON_CreateString(buf));
		}
	}
	cJSON_AddNumberToObject(o, "cpu_alloc_milli", (double)na->cpu_milli);
	cJSON_AddNumberToObject(o, "cpu_milli", nd->cpu_milli);
	cJSON_AddNumberToObject(o, "mem_alloc_mib", (double)na->mem_mib);
	cJSON_AddNumberToObject(o, "memory_mib", (double)nd->memory_mib);
	if (isnan(na->frag_milli))
		cJSON_AddNullToObject(o, "frag_milli");
	else
		cJSON_AddNumberToObject(o, "frag_milli", na->frag_milli);
	cJSON_AddNumberToObject(o, "pods", na->pods);
	if (a->details) {
		cJSON *arr = cJSON_AddArrayToObject(o, "pod_list");
		int32_t h;

		for (h = na->first_pod; arr && h >= 0; h = in->held[h].next) {
			const struct gs_run_state_pod *hp = &in->held[h];
			const struct gs_db_pod *p = &in->pods[hp->pod];
			cJSON *po = cJSON_CreateObject(), *pg, *pc;

			if (!po)
				break;
			cJSON_AddNumberToObject(po, "pod_idx", p->pod_idx);
			cJSON_AddStringToObject(po, "name", p->name ? p->name : "");
			pg = cJSON_AddArrayToObject(po, "gpus");
			pc = cJSON_AddArrayToObject(po, "gpu_alloc_milli");
			for (g = 0; pg && pc && g < p->n_gpus; g++) {
				cJSON_AddItemToArray(pg, cJSON_CreateNumber(p->gpus[g]));
				cJSON_AddItemToArray(pc, cJSON_CreateNumber(hp->cost_milli[g]));
			}
			cJSON_AddNumberToObject(po, "gpu_milli", p->gpu_milli);
			cJSON_AddNumberToObject(po, "gpu_mem_mib", (double)p->gpu_mem_mib);
			cJSON_AddNumberToObject(po, "cpu_milli", p->cpu_milli);
			cJSON_AddNumberToObject(po, "memory_mib", (double)p->memory_mib);
			cJSON_AddNumberToObject(po, "t_start_s", (double)p->t_start_s);
			cJSON_AddItemToArray(arr, po);
		}
	}
	return o;
}

static int show_json(const struct gs_inspect_args *a, const struct gs_run_row *run,
		     const struct gs_run_state *in, const char *at_what, const size_t *rows,
		     size_t n_rows, const struct sums *ms, size_t n_ms, const struct sums *all)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr, *o;
	size_t k;

	if (!root)
		return gs_inspect_print_json(NULL);
	cJSON_AddItemToObject(root, "run", gs_inspect_run_json(run));
	cJSON_AddNumberToObject(root, "t_s", (double)in->t_s);
	if (at_what)
		cJSON_AddStringToObject(root, "at", at_what);
	else
		cJSON_AddNullToObject(root, "at");
	arr = cJSON_AddArrayToObject(root, "nodes");
	for (k = 0; arr && k < n_rows; k++)
		cJSON_AddItemToArray(arr, node_json(a, in, rows[k]));
	arr = cJSON_AddArrayToObject(root, "models");
	for (k = 0; arr && k < n_ms; k++) {
		o = cJSON_CreateObject();
		if (!o)
			break;
		if (ms[k].model)
			cJSON_AddStringToObject(o, "gpu_model", ms[k].model);
		else
			cJSON_AddNullToObject(o, "gpu_model");
		sums_json(o, &ms[k], in->frag_known);
		cJSON_AddItemToArray(arr, o);
	}
	o = cJSON_AddObjectToObject(root, "cluster");
	if (o)
		sums_json(o, all, in->frag_known);
	return gs_inspect_print_json(root);
}

/* --- the whole view ------------------------------------------------------ */

/* The node table with the columns cs (already checked), GPUS narrowed to GPUBAR when too wide. */
static int print_nodes(const struct gs_inspect_args *a, const struct gs_run_state *in,
		       const size_t *rows, size_t n_rows, struct gs_inspect_colset cs)
{
	struct libscols_table *tb;
	size_t k;
	int width;

	/*
	 * The default columns too wide for the terminal: one character per
	 * GPU instead of a number. Nothing is cut (no SCOLS_FL_TRUNC): a name
	 * or model cut to its first letters could read as another one.
	 */
	width = gs_inspect_width();
	if (!a->output && !a->raw && width > 0 && table_width(&cs, in, rows, n_rows) > (size_t)width)
		for (k = 0; k < cs.n; k++)
			if (cs.id[k] == C_GPUS)
				cs.id[k] = C_GPUBAR;
	tb = gs_inspect_table_new(a, &cs, node_cols, "nodes");
	if (!tb)
		return GS_EXIT_FAIL;
	if (!a->raw) {
		char legend[512];
		size_t used = 0;

		legend[0] = '\0';
		for (k = 0; k < cs.n; k++) {
			const char *u = node_unit[cs.id[k]];

			if (u && used < sizeof(legend))
				used += (size_t)snprintf(legend + used, sizeof(legend) - used,
							 "%s%s %s", used ? "; " : "",
							 node_cols[cs.id[k]].name, u);
		}
		if (used)
			say("%s", legend);
		putchar('\n');
	}
	if (a->details) {
		/* Pods hang under their node, in the NAME column when it is shown. */
		for (k = 0; k < cs.n; k++)
			if (cs.id[k] == C_NAME)
				scols_column_set_flags(scols_table_get_column(tb, k),
						       SCOLS_FL_TREE);
	}
	for (k = 0; k < n_rows; k++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		int32_t h;

		if (!ln)
			break;
		node_line(ln, a, &cs, in, rows[k]);
		for (h = a->details ? in->alloc[rows[k]].first_pod : -1; h >= 0;
		     h = in->held[h].next) {
			struct libscols_line *pl = scols_table_new_line(tb, ln);

			if (!pl)
				break;
			pod_line(pl, a, &cs, in, rows[k], &in->held[h]);
		}
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	return GS_EXIT_OK;
}

int gs_inspect_show(const struct gs_inspect_args *a, const struct gs_run_row *run,
		    const char *at_what, const struct gs_run_state *in)
{
	size_t *sel = NULL, *rows = NULL, n_sel = 0, n_rows = 0, n_ms = 0, k, i;
	struct sums *ms = NULL, all;
	bool filtered = a->models.n || a->node_glob || a->min_free >= 0, sharing = false;
	struct gs_inspect_colset cs;
	int status = GS_EXIT_OK;

	if (check_models(a, in))
		return GS_EXIT_USAGE;
	for (i = 0; i < in->n_nodes; i++)
		sharing = sharing || in->nodes[i].sharing;
	/*
	 * -o is checked before anything is printed, and whether or not a
	 * table follows (no node selected, --json), as the run list does.
	 */
	if (gs_inspect_colset_parse(&cs, node_cols, C_N, a->output, "node table",
				    sharing ? 0 : 1u << C_SHARING))
		return GS_EXIT_USAGE;
	sel = malloc((in->n_nodes ? in->n_nodes : 1) * sizeof(*sel));
	rows = malloc((in->n_nodes ? in->n_nodes : 1) * sizeof(*rows));
	if (!sel || !rows)
		goto oom;
	memset(&all, 0, sizeof(all));
	for (i = 0; i < in->n_nodes; i++) {
		sums_add(&all, in, i);
		if (!node_selected(a, in, i))
			continue;
		sel[n_sel++] = i;
		if (a->all_nodes || in->alloc[i].pods > 0)
			rows[n_rows++] = i;
	}
	if (sort_rows(in, a->sort, rows, n_rows))
		goto oom;
	ms = model_sums(in, sel, n_sel, &n_ms);
	if (!ms)
		goto oom;
	if (a->json) {
		status = show_json(a, run, in, at_what, rows, n_rows, ms, n_ms, &all);
		goto out;
	}
	if (!a->raw && a->title) {
		say("%s", a->title);
	} else if (!a->raw) {
		say("run %" PRId64 ": %s, %s mode, seed %" PRIu64 ", pods %s, at t=%" PRId64
		    " (%s%" PRId64 ")",
		    run->run_id, run->policy, run->mode, run->seed,
		    run->pods_file ? run->pods_file : "-", in->t_s,
		    at_what && !strcmp(at_what, "peak") ? "peak; end t=" : "end t=", run->t_end_s);
	}
	if (n_rows > 0) {
		status = print_nodes(a, in, rows, n_rows, cs);
		if (status)
			goto out;
	} else if (!a->raw) {
		say("\n(no node to show)");
	}
	if (a->raw)
		goto out;
	if (n_ms > 0) {
		struct gs_inspect_colset sum_cs = { .n = S_N };
		struct libscols_table *tb;
		struct sums sub;

		for (k = 0; k < S_N; k++)
			sum_cs.id[k] = (int)k;
		tb = gs_inspect_table_new(a, &sum_cs, sum_cols, "models");
		if (!tb) {
			status = GS_EXIT_FAIL;
			goto out;
		}
		memset(&sub, 0, sizeof(sub));
		for (k = 0; k < n_sel; k++)
			sums_add(&sub, in, sel[k]);
		for (k = 0; k < n_ms; k++)
			sum_line(tb, &ms[k], ms[k].model ? ms[k].model : "-", in->frag_known);
		if (n_ms > 1)
			sum_line(tb, &sub, filtered ? "selected" : "all", in->frag_known);
		say("\nPer GPU model (%s; ALLOC, FREE, FRAG in milli-GPU):",
		    filtered ? "the nodes the filters select, idle ones too"
			     : "every node, idle ones too");
		scols_print_table(tb);
		scols_unref_table(tb);
	}
	say("\nAllocated/Total GPU share in cluster: %" PRId64 "/%" PRId64
	    " milli-GPU (%.1f%%), GPUs in use: %" PRId64 "/%" PRId64,
	    all.gpu_alloc_milli, all.gpu_milli,
	    pct((double)all.gpu_alloc_milli, (double)all.gpu_milli), all.gpus_in_use, all.gpus);
	say("Allocated/Total GPU memory in cluster: %" PRId64 "/%" PRId64 " MiB (%.1f%%)",
	    all.gpu_mem_mib, all.gpu_mem_total_mib,
	    pct((double)all.gpu_mem_mib, (double)all.gpu_mem_total_mib));
	say("Allocated/Total CPU in cluster: %" PRId64 "/%" PRId64 " milli (%.1f%%)",
	    all.cpu_alloc_milli, all.cpu_milli,
	    pct((double)all.cpu_alloc_milli, (double)all.cpu_milli));
	say("Allocated/Total memory in cluster: %" PRId64 "/%" PRId64 " MiB (%.1f%%)",
	    all.mem_alloc_mib, all.mem_mib, pct((double)all.mem_alloc_mib, (double)all.mem_mib));
	if (in->frag_known)
		say("Fragmentation in cluster: %.0f milli-GPU, %.1f%% of the free share",
		    all.frag_milli, pct(all.frag_milli, (double)all.free_milli));
	else
		say("Fragmentation: not known (%s)", in->frag_note);
	if (filtered)
		say("Pods running: %" PRId64 " on %" PRId64 " of %zu nodes; %zu nodes shown of the "
		    "%zu the filters select", all.pods, (int64_t)in->n_nodes - all.idle_nodes,
		    in->n_nodes, n_rows, n_sel);
	else if (!a->all_nodes && all.idle_nodes > 0)
		say("Pods running: %" PRId64 " on %" PRId64 " of %zu nodes; %" PRId64 " idle node%s "
		    "not shown (--nodes all shows %s)", all.pods,
		    (int64_t)in->n_nodes - all.idle_nodes, in->n_nodes, all.idle_nodes,
		    all.idle_nodes == 1 ? "" : "s", all.idle_nodes == 1 ? "it" : "them");
	else
		say("Pods running: %" PRId64 " on %" PRId64 " of %zu nodes", all.pods,
		    (int64_t)in->n_nodes - all.idle_nodes, in->n_nodes);
	if (sharing)
		say("GPU shares are counted as each GPU's sharing mode counts them: a whole GPU "
		    "under exclusive, a replica under timeslice and mps, the instance under mig.");
	show_mig(in, rows, n_rows);
out:
	free(ms);
	free(rows);
	free(sel);
	return status;
oom:
	fprintf(stderr, "gpusim inspect: out of memory\n");
	status = GS_EXIT_FAIL;
	goto out;
}
