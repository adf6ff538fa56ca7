/* SPDX-License-Identifier: Apache-2.0 */
/*
 * man.c - the man pages of gpusim (docgen.h): gpusim(1) and one
 * gpusim-NAME(1) per command of cmd.h's registry. SYNOPSIS, DESCRIPTION,
 * OPTIONS and EXIT STATUS come from the command's option tables, the same
 * rows and texts --help prints; only what a man page has and --help has
 * not (examples, environment, files, related pages) is written here, in
 * the table `extras`, keyed by command name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/docgen.h"
#include "cli/opt.h"
#include "core/error.h"
#include "core/version.h"
#include "io/outfile.h"
#include "io/path.h"

/* What a man page has beyond the option tables. Example lines: "$ " a command, else prose. */
struct man_extra {
	const char *name;        /* command as typed; "gpusim" for gpusim(1) */
	const char *examples;
	const char *environment; /* roff source */
	const char *files;       /* roff source */
	const char *see_also;    /* space-separated page names, without "(1)" */
};

#define SAMPLE_NOTE                                                                            \
	"S is the bundled sample, share/gpusim/traces/sample under the installation prefix "   \
	"(/usr with the Debian package, /usr/local after make install), or traces/sample in "  \
	"the source tree.\n"                                                                   \
	"$ S=/usr/share/gpusim/traces/sample\n"

#define SCRIPTS_ENV                                                                            \
	".TP\n.B GPUSIM_SCRIPTS\nThe directory of the gnuplot scripts, when --scripts is not "  \
	"given.\n"

#define SCRIPTS_FILES                                                                          \
	".TP\n.I PREFIX/share/gpusim/scripts\nThe gnuplot scripts an installed gpusim uses "    \
	"(found relative to the gpusim binary: bin/../share/gpusim/scripts).\n"

static const struct man_extra extras[] = {
	{ "gpusim",
	  SAMPLE_NOTE
	  "Replay the sample with every policy, then list the stored runs and show one:\n"
	  "$ gpusim replay --nodes $S/cluster.csv --pods $S/pods.csv --policy all\n"
	  "$ gpusim inspect --db results/gpusim.db\n"
	  "$ gpusim inspect --db results/gpusim.db --run 1\n"
	  "The FGD paper's experiment, ten seeds of its six policies, then its figures:\n"
	  "$ gpusim sweep --nodes openb_node_list_gpu_node.csv --pods openb_pod_list_*.csv\n"
	  "$ gpusim plot --db results/fgd.db --out results/plots\n",
	  SCRIPTS_ENV,
	  ".TP\n.I results/gpusim.db\nThe default database of replay (inspect has none: --db is "
	  "required).\n"
	  ".TP\n.I results/fgd.db\nThe default database of sweep and plot.\n"
	  SCRIPTS_FILES
	  ".TP\n.I PREFIX/share/gpusim/traces/sample\nThe bundled sample: a 42-node cluster, "
	  "2000 pods and the spec that generated them.\n"
	  ".TP\n.I PREFIX/share/gpusim/traces/h100-mixed\nThe bundled H100 example: 4 nodes of 8 "
	  "H100 and a day of mixed pods, for the sharing mechanisms and gpusim advise.\n"
	  ".TP\n.I PREFIX/share/doc/gpusim\nREADME.md, the documentation pages (docs/), the "
	  "results database's schema (SCHEMA.md) and the trace formats (TRACES.md).\n",
	  "sqlite3 gnuplot" },
	{ "replay",
	  SAMPLE_NOTE
	  "Two policies in time mode, stored in results/gpusim.db:\n"
	  "$ gpusim replay --nodes $S/cluster.csv --pods $S/pods.csv --policy binpack,fgd\n"
	  "The same trace at a steady 80% GPU load, every policy, printed as JSON, not stored:\n"
	  "$ gpusim replay -n $S/cluster.csv -p $S/pods.csv -P all --load 80 --no-db --json\n"
	  "The FGD paper's inflation experiment on the openb trace:\n"
	  "$ gpusim replay --mode inflate --nodes openb_node_list_gpu_node.csv \\\n"
	  "      --pods openb_pod_list_default.csv --policy paper --seed 42\n"
	  "GPUs shared by MPS with four replicas each:\n"
	  "$ gpusim replay -n $S/cluster.csv -p $S/pods.csv --sharing 'mps:replicas=4'\n",
	  NULL,
	  ".TP\n.I results/gpusim.db\nThe default results database, created with its "
	  "directory when missing (schema: SCHEMA.md in PREFIX/share/doc/gpusim).\n",
	  "gpusim-sweep gpusim-inspect gpusim-policies gpusim-gen gpusim-convert "
	  "gpusim-interference sqlite3" },
	{ "inspect",
	  "List the runs of a database, then show run 1 at its peak allocation:\n"
	  "$ gpusim inspect --db results/gpusim.db\n"
	  "$ gpusim inspect --db results/gpusim.db --run 1 --at peak\n",
	  NULL, NULL, "gpusim-replay gpusim-sweep" },
	{ "policies",
	  "$ gpusim policies\n"
	  "$ gpusim policies --json\n",
	  NULL, NULL, "gpusim-replay gpusim-sweep" },
	{ "gen",
	  SAMPLE_NOTE
	  "Generate a cluster and a trace from the sample's spec with another seed, and replay "
	  "them:\n"
	  "$ gpusim gen --spec $S/spec.json --seed 7 --nodes-out cluster.csv --pods-out pods.csv\n"
	  "$ gpusim replay --nodes cluster.csv --pods pods.csv --policy all\n",
	  NULL, NULL, "gpusim-replay" },
	{ "convert",
	  "Alibaba's PAI machine list and task table to a cluster and pods, then a replay:\n"
	  "$ gpusim convert --format pai --machines pai_machine_spec.csv \\\n"
	  "      --jobs pai_task_table.csv --nodes-out pai.json --pods-out pai.csv\n"
	  "$ gpusim replay --nodes pai.json --pods pai.csv --policy binpack,fgd\n"
	  "The DLRM serving trace, with its cluster built from the trace's peak, no headroom:\n"
	  "$ gpusim convert -f dlrm -j disaggregated_DLRM_trace.csv --headroom 0 \\\n"
	  "      -o dlrm.json -p dlrm.csv\n"
	  "A Helios cluster's jobs against a cluster of your own:\n"
	  "$ gpusim convert -f helios -j Venus/cluster_log.csv --nodes mine.csv -p venus.csv\n",
	  NULL, NULL, "gpusim-replay gpusim-gen" },
	{ "sweep",
	  "Every openb trace (the shell's glob gives --pods its files), the six policies of the "
	  "FGD paper, ten seeds, in inflate mode:\n"
	  "$ gpusim sweep --nodes openb_node_list_gpu_node.csv --pods openb_pod_list_*.csv \\\n"
	  "      --policy paper --seeds 42-51 --db results/fgd.db\n"
	  "Policy x load x seed in time mode:\n"
	  "$ gpusim sweep --mode time --nodes N.csv --pods P.csv --policy binpack,fgd \\\n"
	  "      --load 50,80,110 --seeds 42-44 --db results/load.db\n"
	  "Sharing mechanism x policy x load:\n"
	  "$ gpusim sweep --nodes N.csv --pods P.csv --sharing exclusive,timeslice,mps,vgpu,mig \\\n"
	  "      --policy binpack,spread,fgd --load 50,80,95 --db results/sharing.db\n"
	  "One eighth of a sweep on each of eight hosts, then the shards joined:\n"
	  "$ gpusim sweep ... --shard 2/8 --db shard-2.db\n"
	  "$ gpusim merge results/fgd.db shard-*.db\n",
	  NULL,
	  ".TP\n.I results/fgd.db\nThe default results database; runs it already holds are "
	  "skipped, so an interrupted sweep resumes.\n",
	  "gpusim-replay gpusim-merge gpusim-plot gpusim-regress" },
	{ "advise",
	  "H is the bundled H100 example, share/gpusim/traces/h100-mixed under the installation "
	  "prefix, or traces/h100-mixed in the source tree.\n"
	  "$ H=/usr/share/gpusim/traces/h100-mixed\n"
	  "Which policy and mechanism to run at 50, 80 and 95% load, with a report page:\n"
	  "$ gpusim advise --nodes $H/cluster.csv --pods $H/pods.csv --report advise\n"
	  "The smallest cluster of the same node types keeping the p99 wait under 10 minutes at "
	  "80% load:\n"
	  "$ gpusim advise --nodes $H/cluster.csv --pods $H/pods.csv --load 80 \\\n"
	  "      --target 'p99 wait <= 10 min'\n"
	  "Another objective and constraint, the verdict as JSON for a script:\n"
	  "$ gpusim advise -n N.csv -p P.csv --objective p99-wait --constraint 'useful >= 60%' "
	  "--json\n",
	  NULL,
	  ".TP\n.I results/advise.db\nThe default results database: the runs, and each verdict "
	  "with the runs it rests on (decisions, decision_runs in SCHEMA.md).\n"
	  SCRIPTS_FILES,
	  "gpusim-sweep gpusim-plot gpusim-inspect sqlite3 gnuplot" },
	{ "bound",
	  "The floor under every policy at arrived 100%, ten seeds, beside the runs of a sweep:\n"
	  "$ gpusim bound --nodes openb_node_list_gpu_node.csv \\\n"
	  "      --pods openb_pod_list_default.csv --seeds 42-51 --db results/fgd.db\n"
	  "The line of the unallocated-GPU figure, 80-130%, then the figures:\n"
	  "$ gpusim bound -n N.csv -p P.csv --arrived 80-130 --db results/fgd.db\n"
	  "$ gpusim plot --db results/fgd.db\n"
	  "The integer optimum of a small cluster, ten minutes a bucket:\n"
	  "$ gpusim bound -n small.csv -p P.csv --method exact --time-limit 600 --no-db\n",
	  NULL,
	  ".TP\n.I results/fgd.db\nThe default database, as sweep's; the (trace, seed) pairs it "
	  "already bounds with the same options are skipped.\n",
	  "gpusim-replay gpusim-sweep gpusim-plot sqlite3" },
	{ "merge",
	  "$ gpusim merge results/fgd.db shard-*.db\n"
	  "$ gpusim merge -q all.db a.db b.db      # only the missing runs\n",
	  NULL, NULL, "gpusim-sweep" },
	{ "plot",
	  "$ gpusim plot --db results/fgd.db --out results/plots\n"
	  "$ gpusim plot --db results/load.db --exact --keep-data\n",
	  SCRIPTS_ENV, SCRIPTS_FILES, "gpusim-sweep gpusim-bench-import gnuplot" },
	{ "bench-import",
	  "Load the results of make bench and draw its figures:\n"
	  "$ gpusim bench-import --db results/gpusim.db results/bench/DEVICE/results.txt\n"
	  "$ gpusim plot --db results/gpusim.db\n",
	  NULL, NULL, "gpusim-plot gpusim-interference" },
	{ "compare",
	  "fgd-lookahead against FGD on the 17 workloads of the FGD paper, ten seeds each:\n"
	  "$ gpusim sweep --nodes N.csv --pods openb_pod_list_*.csv --policy fgd,fgd-lookahead "
	  "--db results/fgd.db\n"
	  "$ gpusim compare --db results/fgd.db --policy fgd,fgd-lookahead\n"
	  "Mean waits in time mode:\n"
	  "$ gpusim compare --db results/load.db --policy binpack,fgd --metric mean_wait_s\n",
	  NULL, NULL, "gpusim-sweep gpusim-regress" },
	{ "regress",
	  "Once, from runs you trust (commit the folder), then in every CI run:\n"
	  "$ gpusim regress --db trusted.db --write-baseline results/baseline/\n"
	  "$ gpusim regress --db new.db --baseline results/baseline/ --out results/ci\n",
	  SCRIPTS_ENV, SCRIPTS_FILES, "gpusim-sweep gpusim-replay" },
	{ "interference",
	  "$ gpusim interference show --out table.csv\n"
	  "$ gpusim interference check table.csv\n"
	  "$ gpusim interference export --db results/gpusim.db --out measured.csv\n"
	  "$ gpusim replay -n N.csv -p P.csv --sharing mps --interference measured.csv\n",
	  NULL, NULL, "gpusim-replay gpusim-sweep gpusim-bench-import" },
};

static const struct man_extra *extra_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
		if (!strcmp(extras[i].name, name))
			return &extras[i];
	return NULL;
}

/* --- roff text ------------------------------------------------------------------- */

/*
 * Writes len bytes of s as roff text: backslashes and minus signs escaped,
 * a control character at the start of a line made literal, and UTF-8
 * written as \[uXXXX] so that groff needs no input encoding.
 */
static void put_text(FILE *f, const char *s, size_t len, bool line_start)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	if (line_start && len && (*p == '.' || *p == '\''))
		fputs("\\&", f);
	while (p < end) {
		unsigned cp = *p;
		int more = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;

		if (cp < 0x80) {
			if (cp == '\\')
				fputs("\\e", f);
			else if (cp == '-')
				fputs("\\-", f);
			else
				fputc((int)cp, f);
			p++;
			continue;
		}
		cp &= 0x3f >> more;
		for (p++; more > 0 && p < end; more--, p++)
			cp = cp << 6 | (*p & 0x3f);
		fprintf(f, "\\[u%04X]", cp);
	}
}

static void put_str(FILE *f, const char *s)
{
	put_text(f, s, strlen(s), false);
}

/*
 * Writes the first n bytes of pre-wrapped text as it appears in --help:
 * lines filled into paragraphs, a blank line starting a new paragraph, and
 * lines indented with spaces (tables of figures, forms of a command) kept
 * as they are.
 */
static void put_block_n(FILE *f, const char *text, size_t n)
{
	const char *end = text + n;
	bool nofill = false;

	while (text < end && *text) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);

		if (len == 0) {
			fputs(nofill ? ".fi\n.PP\n" : ".PP\n", f);
			nofill = false;
		} else {
			if (text[0] == ' ' && !nofill)
				fputs(".nf\n", f);
			else if (text[0] != ' ' && nofill)
				fputs(".fi\n", f);
			nofill = text[0] == ' ';
			put_text(f, text, len, true);
			fputc('\n', f);
		}
		text += len + (nl ? 1 : 0);
	}
	if (nofill)
		fputs(".fi\n", f);
}

/* put_block_n() for the whole of text (NULL: nothing). */
static void put_block(FILE *f, const char *text)
{
	if (text)
		put_block_n(f, text, strlen(text));
}

/* Writes example lines: "$ cmd" as an indented literal block, other lines as paragraphs. */
static void put_examples(FILE *f, const char *text)
{
	bool in_cmd = false;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		bool cmd = len >= 2 && text[0] == '$' && text[1] == ' ';
		bool cont = in_cmd && len > 0 && text[0] == ' ';

		if ((cmd || cont) && !in_cmd)
			fputs(".PP\n.RS 4\n.nf\n", f);
		else if (!cmd && !cont && in_cmd)
			fputs(".fi\n.RE\n", f);
		if (!cmd && !cont)
			fputs(".PP\n", f);
		in_cmd = cmd || cont;
		if (cmd)
			put_text(f, text + 2, len - 2, true);
		else
			put_text(f, text, len, true);
		fputc('\n', f);
		text += len + (nl ? 1 : 0);
	}
	if (in_cmd)
		fputs(".fi\n.RE\n", f);
}

/* "gpusim-NAME" with roff escapes, for NAME and SEE ALSO. */
static void put_page_ref(FILE *f, const char *page, bool bold)
{
	fputs(bold ? "\\fB" : "", f);
	put_str(f, page);
	fputs(bold ? "\\fR(1)" : "", f);
}

/* --- sections ---------------------------------------------------------------------- */

static void put_header(FILE *f, const char *page, const char *summary)
{
	char upper[64];
	size_t i;

	for (i = 0; page[i] && i + 1 < sizeof(upper); i++)
		upper[i] = (char)(page[i] >= 'a' && page[i] <= 'z' ? page[i] - 'a' + 'A' : page[i]);
	upper[i] = '\0';
	fputs(".\\\" Generated by `gpusim --man` from the option tables of sim/cli/cmd_*.c;\n"
	      ".\\\" edit those, not this file.\n", f);
	fputs(".TH ", f);
	put_str(f, upper);
	fprintf(f, " 1 \"\" \"gpusim %s\" \"gpusim manual\"\n.nh\n.ad l\n", gs_version());
	fputs(".SH NAME\n", f);
	put_page_ref(f, page, false);
	fputs(" \\- ", f);
	put_str(f, summary);
	fputc('\n', f);
}

/* "gpusim NAME" of a command or verb, in bold. */
static void put_bold_name(FILE *f, const struct gs_cmd_spec *spec)
{
	fputs("\\fBgpusim ", f);
	put_str(f, spec->name);
	fputs("\\fR", f);
}

/* The subsection of a verb (interference show, ...) in a section that has one per verb. */
static void put_verb_heading(FILE *f, const struct gs_cmd_spec *spec)
{
	fputs(".SS\ngpusim ", f);
	put_str(f, spec->name);
	fputc('\n', f);
}

/* The usage line of --help: gpusim CMD, its required options, [OPTIONS], its operand. */
static void put_synopsis(FILE *f, const struct gs_cmd_spec *spec)
{
	const struct gs_opt *o;

	put_bold_name(f, spec);
	for (o = spec->opts; o->kind != GS_OPT_END; o++) {
		if (!gs_opt_is_option(o) || !(o->flags & GS_OPT_REQUIRED))
			continue;
		fputs(" \\fB\\-\\-", f);
		put_str(f, o->name);
		fputs("\\fR", f);
		if (gs_opt_takes_value(o)) {
			fputs(" \\fI", f);
			put_str(f, o->arg);
			fputs("\\fR", f);
		}
	}
	fputs(" [\\fIOPTIONS\\fR]", f);
	if (spec->operand) {
		fputs(" \\fI", f);
		put_str(f, spec->operand);
		fputs("\\fR", f);
	}
	fputc('\n', f);
}

static void put_option(FILE *f, char short_name, const char *name, const char *arg,
		       const char *help, const char *def)
{
	fputs(".TP\n", f);
	if (short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", short_name);
	fputs("\\fB\\-\\-", f);
	put_str(f, name);
	fputs("\\fR", f);
	if (arg) {
		fputs(" \\fI", f);
		put_str(f, arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	put_text(f, help, strlen(help), true);
	if (def) {
		fputs(" (default \\fB", f);
		put_str(f, def);
		fputs("\\fR)", f);
	}
	fputc('\n', f);
}

/*
 * The words of a row's .words hint, ending its paragraph: "Values include
 * peak, end." (a hint: the option may take other values too).
 */
static void put_words(FILE *f, const struct gs_opt *o)
{
	const char *w;
	size_t i;

	for (i = 0; (w = o->words(i)); i++) {
		fputs(i ? ", \\fB" : "Values include \\fB", f);
		put_str(f, w);
		fputs("\\fR", f);
	}
	if (i)
		fputs(".\n", f);
}

/* The rows of spec, as --help shows them: its groups as subsections, then -h and --version. */
static void put_options(FILE *f, const struct gs_cmd_spec *spec, bool verb_heading)
{
	const struct gs_opt *o;

	if (verb_heading)
		put_verb_heading(f, spec);
	for (o = spec->opts; o->kind != GS_OPT_END; o++) {
		if (o->kind == GS_OPT_GROUP) {
			size_t len = strlen(o->help);

			len -= len && o->help[len - 1] == ':';
			fputs(verb_heading ? ".PP\n.I\n" : ".SS\n", f);
			put_text(f, o->help, len, true);
			fputc('\n', f);
			continue;
		}
		put_option(f, o->short_name, o->name, gs_opt_takes_value(o) ? o->arg : NULL,
			   o->help ? o->help : "", o->def);
		if (o->words && gs_opt_takes_value(o))
			put_words(f, o);
	}
	put_option(f, 'h', "help", NULL, "this text", NULL);
	put_option(f, 0, "version", NULL, "print the version and git commit of this gpusim", NULL);
}

/* Where "Exit status:" starts in text, or NULL. */
static const char *exit_status_at(const char *text)
{
	return text ? strstr(text, "Exit status:") : NULL;
}

/* The outro of spec without its exit status, as a paragraph of DESCRIPTION. */
static void put_outro_prose(FILE *f, const struct gs_cmd_spec *spec)
{
	const char *es = exit_status_at(spec->outro);
	size_t len;

	if (!spec->outro)
		return;
	/* All of it up to "Exit status:", however long. */
	len = es ? (size_t)(es - spec->outro) : strlen(spec->outro);
	if (!len)
		return;
	fputs(".PP\n", f);
	put_block_n(f, spec->outro, len);
}

/* The statuses after "Exit status:", filled into one paragraph. */
static void put_exit_status(FILE *f, const struct gs_cmd_spec *spec)
{
	const char *es = exit_status_at(spec->outro);
	const char *s = es ? es + strlen("Exit status:") : NULL;
	bool line_start = true;

	if (!s) {
		fputs("0 success, 1 failure, 2 bad input or usage.\n", f);
		return;
	}
	while (*s == ' ' || *s == '\n')
		s++;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		put_text(f, s, len, line_start);
		fputc('\n', f);
		s += len + (nl ? 1 : 0);
	}
}

static void put_see_also(FILE *f, const struct man_extra *x, const char *self)
{
	const char *s = x ? x->see_also : NULL;
	bool first = true;

	fputs(".SH SEE ALSO\n", f);
	if (strcmp(self, "gpusim")) {
		put_page_ref(f, "gpusim", true);
		first = false;
	}
	while (s && *s) {
		const char *sp = strchr(s, ' ');
		size_t len = sp ? (size_t)(sp - s) : strlen(s);
		char page[64];

		snprintf(page, sizeof(page), "%.*s", (int)len, s);
		fputs(first ? "" : ",\n", f);
		put_page_ref(f, page, true);
		first = false;
		s += len + (sp ? 1 : 0);
	}
	fputs("\n.PP\nREADME.md, docs/, SCHEMA.md and TRACES.md in PREFIX/share/doc/gpusim, "
	      "or in the source tree.\n", f);
}

static void put_extras(FILE *f, const struct man_extra *x)
{
	if (x && x->environment)
		fprintf(f, ".SH ENVIRONMENT\n%s", x->environment);
	if (x && x->files)
		fprintf(f, ".SH FILES\n%s", x->files);
	if (x && x->examples) {
		fputs(".SH EXAMPLES\n", f);
		put_examples(f, x->examples);
	}
}

/* gpusim-NAME(1). */
static void write_command_page(FILE *f, const struct gs_command *c)
{
	const struct man_extra *x = extra_of(c->name);
	const struct gs_cmd_spec *const *sp;
	bool verbs = c->specs[0] && c->specs[1];
	char page[64];

	snprintf(page, sizeof(page), "gpusim-%s", c->name);
	put_header(f, page, c->summary);

	fputs(".SH SYNOPSIS\n", f);
	for (sp = c->specs; *sp; sp++) {
		put_synopsis(f, *sp);
		if (sp[1])
			fputs(".br\n", f);
	}
	fputs(".SH DESCRIPTION\n", f);
	for (sp = c->specs; *sp; sp++) {
		if (verbs)
			put_verb_heading(f, *sp);
		if ((*sp)->intro)
			put_block(f, (*sp)->intro);
		put_outro_prose(f, *sp);
	}
	fputs(".SH OPTIONS\n", f);
	for (sp = c->specs; *sp; sp++)
		put_options(f, *sp, verbs);
	fputs(".SH EXIT STATUS\n", f);
	for (sp = c->specs; *sp; sp++) {
		if (verbs) {
			fputs(".TP\n", f);
			put_bold_name(f, *sp);
			fputc('\n', f);
		}
		put_exit_status(f, *sp);
	}
	put_extras(f, x);
	put_see_also(f, x, c->name);
}

/* gpusim(1): the commands, the program's own options, what is shared by every command. */
static void write_main_page(FILE *f)
{
	const struct man_extra *x = extra_of("gpusim");
	size_t i;

	put_header(f, "gpusim", "simulate and benchmark GPU-sharing placement policies");
	fputs(".SH SYNOPSIS\n\\fBgpusim\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n.br\n"
	      "\\fBgpusim\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n", f);
	fputs(".SH DESCRIPTION\n"
	      "gpusim tells you which GPU placement policy and which GPU\\-sharing mechanism to "
	      "run before you try them on a production cluster. Its simulator replays pod traces, "
	      "such as Alibaba's public openb GPU trace, against placement policies and sharing "
	      "mechanisms on a Kubernetes\\-style cluster, and stores every run in a SQLite "
	      "database; its benchmark harness, gpusim\\-bench, measures sharing on real GPUs.\n"
	      ".PP\nEach command has its own page and its own \\fB\\-\\-help\\fR.\n"
	      ".SH COMMANDS\n", f);
	for (i = 0; i < gs_n_commands; i++) {
		char page[64];

		snprintf(page, sizeof(page), "gpusim-%s", gs_commands[i].name);
		fputs(".TP\n\\fB", f);
		put_str(f, gs_commands[i].name);
		fputs("\\fR\n", f);
		put_str(f, gs_commands[i].summary);
		fputs("; see ", f);
		put_page_ref(f, page, true);
		fputs(".\n", f);
	}
	fputs(".SH OPTIONS\n", f);
	put_option(f, 'h', "help", NULL, "list the commands (also: gpusim help)", NULL);
	put_option(f, 0, "version", NULL, "print the version and git commit of this gpusim", NULL);
	fputs(".SH EXIT STATUS\n0 success, 1 a run failed, 2 bad input or usage. Bad input is "
	      "reported as FILE:LINE: column NAME: what is wrong.\n", f);
	put_extras(f, x);
	fputs(".SH SEE ALSO\n", f);
	for (i = 0; i < gs_n_commands; i++) {
		char page[64];

		snprintf(page, sizeof(page), "gpusim-%s", gs_commands[i].name);
		put_page_ref(f, page, true);
		fputs(",\n", f);
	}
	fputs("\\fBsqlite3\\fR(1), \\fBgnuplot\\fR(1)\n"
	      ".PP\nREADME.md, docs/, SCHEMA.md and TRACES.md in PREFIX/share/doc/gpusim, "
	      "or in the source tree.\n", f);
}

/* The longest path a page may have, terminator included (Linux's PATH_MAX). */
#define MAN_PATH_MAX 4096

/*
 * Writes dir/page.1: gpusim-NAME(1) for c, gpusim(1) for NULL. Returns 0
 * or 1. gs_man_write_all() has checked that the path fits.
 */
static int write_file(const char *dir, const char *page, const struct gs_command *c)
{
	char path[MAN_PATH_MAX];
	FILE *f;
	char msg[4200];
	int len;

	len = snprintf(path, sizeof(path), "%s/%s.1", dir, page);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		fprintf(stderr, "gpusim: --man: %s/%s.1: path longer than %d bytes\n", dir, page,
			MAN_PATH_MAX - 1);
		return 1;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gpusim: %s: cannot create: %s\n", path, strerror(errno));
		return 1;
	}
	if (c)
		write_command_page(f, c);
	else
		write_main_page(f);
	if (gs_outfile_finish(f, path, NULL, msg, sizeof(msg))) {
		fprintf(stderr, "gpusim: %s\n", msg);
		return 1;
	}
	return 0;
}

int gs_man_write_all(const char *dir)
{
	size_t i, page_len = strlen("gpusim"), dir_len = strlen(dir);
	char err[MAN_PATH_MAX + 128];
	int rc;

	/* Every page's path must fit, checked before any is written: no half set. */
	for (i = 0; i < gs_n_commands; i++)
		if (strlen("gpusim-") + strlen(gs_commands[i].name) > page_len)
			page_len = strlen("gpusim-") + strlen(gs_commands[i].name);
	if (dir_len + strlen("/") + page_len + strlen(".1") > MAN_PATH_MAX - 1) {
		fprintf(stderr, "gpusim: --man: DIR is %zu bytes long; the page paths under it need "
				"at most %d (DIR at most %zu)\n", dir_len, MAN_PATH_MAX - 1,
			(size_t)(MAN_PATH_MAX - 1) - page_len - strlen("/.1"));
		return 2;
	}
	/* A missing DIR is made, parents too, as plot --out makes its directory. */
	rc = gs_mkdir_p(dir, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpusim: --man: %s\n", rc == GS_ENOMEM ? "out of memory" : err);
		return rc == GS_ENOMEM ? 1 : 2;
	}
	if (write_file(dir, "gpusim", NULL))
		return 1;
	for (i = 0; i < gs_n_commands; i++) {
		char page[64];

		snprintf(page, sizeof(page), "gpusim-%s", gs_commands[i].name);
		if (write_file(dir, page, &gs_commands[i]))
			return 1;
	}
	return 0;
}
