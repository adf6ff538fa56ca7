/* SPDX-License-Identifier: Apache-2.0 */
/*
 * complete.c - the bash and zsh completion of gpusim (docgen.h), written
 * from cmd.h's registry and each command's option table: the commands and
 * the verbs of `interference`, every long option, the words an option's
 * value can be (gs_cli_value(): a row's .words hint, --mode, --policy,
 * --sharing, ...), files for FILE and DB values, directories for DIR
 * values, files for the operands of a command and for the arguments that
 * follow an option that takes several (GS_OPT_MULTI: sweep --pods a.csv
 * b.csv).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/docgen.h"
#include "cli/opt.h"

enum value_kind { VALUE_NONE, VALUE_FREE, VALUE_FILE, VALUE_DIR, VALUE_WORDS };

/* What the value of o is completed with. */
static enum value_kind value_kind(const struct gs_opt *o)
{
	if (!gs_opt_takes_value(o))
		return VALUE_NONE;
	if (gs_cli_value(o, 0))
		return VALUE_WORDS;
	if (o->arg && (!strncmp(o->arg, "FILE", 4) || !strcmp(o->arg, "DB")))
		return VALUE_FILE;
	if (o->arg && !strcmp(o->arg, "DIR"))
		return VALUE_DIR;
	return VALUE_FREE;
}

/* The name of a verb: "show" for "interference show". */
static const char *verb_of(const struct gs_cmd_spec *spec)
{
	const char *sp = strrchr(spec->name, ' ');

	return sp ? sp + 1 : spec->name;
}

static bool has_verbs(const struct gs_command *c)
{
	return c->specs[0] && c->specs[1];
}

/* Writes the words option o's value can be, space-separated. */
static void put_words(FILE *f, const struct gs_opt *o)
{
	const char *w;
	size_t i;

	for (i = 0; (w = gs_cli_value(o, i)); i++)
		fprintf(f, "%s%s", i ? " " : "", w);
}

/* --- bash ---------------------------------------------------------------------------- */

static void bash_case(FILE *f, const char *pattern, const struct gs_cmd_spec *spec)
{
	const struct gs_opt *o;
	bool first;

	fprintf(f, "\t%s)\n\t\tcase $prev in\n", pattern);
	for (o = spec->opts; o->kind != GS_OPT_END; o++) {
		enum value_kind k = value_kind(o);

		if (k == VALUE_NONE || !gs_opt_is_option(o))
			continue;
		fprintf(f, "\t\t--%s", o->name);
		if (o->short_name)
			fprintf(f, "|-%c", o->short_name);
		switch (k) {
		case VALUE_FILE:
			fputs(") _gpusim_files \"$cur\"; return ;;\n", f);
			break;
		case VALUE_DIR:
			fputs(") _gpusim_dirs \"$cur\"; return ;;\n", f);
			break;
		case VALUE_WORDS:
			fprintf(f, ") _gpusim_words %d \"", gs_cli_is_list(o));
			put_words(f, o);
			fputs("\" \"$cur\"; return ;;\n", f);
			break;
		default:
			fputs(") return ;;\n", f);
			break;
		}
	}
	fputs("\t\tesac\n\t\topts=\"", f);
	for (o = spec->opts; o->kind != GS_OPT_END; o++)
		if (gs_opt_is_option(o))
			fprintf(f, "--%s ", o->name);
	fputs("--help --version\"\n\t\tmulti=\"", f);
	first = true;
	for (o = spec->opts; o->kind != GS_OPT_END; o++) {
		if (!gs_opt_is_option(o) || !(o->flags & GS_OPT_MULTI))
			continue;
		fprintf(f, "%s--%s", first ? "" : " ", o->name);
		if (o->short_name)
			fprintf(f, " -%c", o->short_name);
		first = false;
	}
	fprintf(f, "\"\n\t\toperands=%d\n\t\t;;\n", spec->operand != NULL);
}

static void write_bash(FILE *f)
{
	const struct gs_cmd_spec *const *sp;
	size_t i;

	fputs("# bash completion for gpusim, written by `gpusim --completion bash` from the\n"
	      "# option tables of its commands; edit those, not this file.\n\n"
	      "# _gpusim_words LIST? WORDS CUR: WORDS for CUR, for its last comma-separated item\n"
	      "# when LIST? is 1.\n"
	      "_gpusim_words() {\n"
	      "\tlocal pre= cur=$3\n"
	      "\tif [ \"$1\" = 1 ]; then\n"
	      "\t\tcase $cur in *,*) pre=${cur%,*},; cur=${cur##*,} ;; esac\n"
	      "\tfi\n"
	      "\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$2\" -- \"$cur\"))\n"
	      "}\n"
	      "# Names read whole, one a line: never split at blanks nor expanded as globs\n"
	      "# (a file 'x[ab].csv' would have come back as xa.csv).\n"
	      "_gpusim_files() {\n"
	      "\tmapfile -t COMPREPLY < <(compgen -f -- \"$1\")\n"
	      "\tcompopt -o filenames 2>/dev/null\n"
	      "}\n"
	      "_gpusim_dirs() {\n"
	      "\tmapfile -t COMPREPLY < <(compgen -d -- \"$1\")\n"
	      "\tcompopt -o filenames 2>/dev/null\n"
	      "}\n"
	      "_gpusim() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd opts multi operands i\n"
	      "\tCOMPREPLY=()\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"", f);
	for (i = 0; i < gs_n_commands; i++)
		fprintf(f, "%s ", gs_commands[i].name);
	fputs("--help --version\" -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcmd=${COMP_WORDS[1]}\n", f);
	for (i = 0; i < gs_n_commands; i++) {
		if (!has_verbs(&gs_commands[i]))
			continue;
		fprintf(f, "\tif [ \"$cmd\" = %s ]; then\n"
			   "\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
			   "\t\t\tCOMPREPLY=($(compgen -W \"", gs_commands[i].name);
		for (sp = gs_commands[i].specs; *sp; sp++)
			fprintf(f, "%s%s", sp == gs_commands[i].specs ? "" : " ", verb_of(*sp));
		fputs("\" -- \"$cur\"))\n"
		      "\t\t\treturn\n"
		      "\t\tfi\n"
		      "\t\tcmd=\"$cmd ${COMP_WORDS[2]}\"\n"
		      "\tfi\n", f);
	}
	fputs("\t# --opt=value: bash splits the word at '='.\n"
	      "\tif [ \"$cur\" = = ]; then\n"
	      "\t\tcur=\n"
	      "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
	      "\tfi\n"
	      "\tcase $cmd in\n", f);
	for (i = 0; i < gs_n_commands; i++)
		for (sp = gs_commands[i].specs; *sp; sp++) {
			char pattern[80];

			snprintf(pattern, sizeof(pattern), "\"%s\"", (*sp)->name);
			bash_case(f, pattern, *sp);
		}
	fputs("\t*) return ;;\n"
	      "\tesac\n"
	      "\tcase $cur in\n"
	      "\t-*)\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\tesac\n"
	      "\tif [ \"$operands\" = 1 ]; then\n"
	      "\t\t_gpusim_files \"$cur\"\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\t# After an option that takes several values, each word up to the next option is one.\n"
	      "\tfor ((i = COMP_CWORD - 1; i > 1; i--)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-*)\n"
	      "\t\t\tcase \" $multi \" in *\" ${COMP_WORDS[i]} \"*) _gpusim_files \"$cur\" ;; esac\n"
	      "\t\t\treturn ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "}\n"
	      "complete -F _gpusim gpusim\n", f);
}

/* --- zsh ------------------------------------------------------------------------------- */

/*
 * Writes the first clause of help (up to ": ", "; ", " (", ". " or 60
 * columns) for a description inside '...[...]': quotes, brackets and
 * colons escaped.
 */
static void zsh_desc(FILE *f, const char *help)
{
	size_t len = strlen(help), i, cut = len;
	static const char *const stops[] = { ": ", "; ", " (", ". ", ", e.g." };

	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		const char *s = strstr(help, stops[i]);

		if (s && (size_t)(s - help) < cut)
			cut = (size_t)(s - help);
	}
	if (cut > 60) {
		for (cut = 60; cut > 0 && help[cut] != ' '; cut--)
			;
		if (!cut)
			cut = 60;
	}
	for (i = 0; i < cut; i++) {
		char c = help[i];

		if (c == '\'')
			fputs("'\\''", f);
		else if (c == '[' || c == ']' || c == ':' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fputc(c, f);
	}
}

static void zsh_option(FILE *f, const struct gs_opt *o)
{
	enum value_kind k = value_kind(o);
	bool value = k != VALUE_NONE;

	fputs(" \\\n\t\t\t", f);
	if (o->short_name)
		fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'[", o->short_name, o->name, o->short_name,
			value ? "+" : "", o->name, value ? "=" : "");
	else
		fprintf(f, "'--%s%s[", o->name, value ? "=" : "");
	zsh_desc(f, o->help ? o->help : "");
	fputc(']', f);
	if (value) {
		fprintf(f, ":%s:", o->arg ? o->arg : "VALUE");
		switch (k) {
		case VALUE_FILE:
			fputs("_files", f);
			break;
		case VALUE_DIR:
			fputs("_files -/", f);
			break;
		case VALUE_WORDS:
			if (gs_cli_is_list(o)) {
				fputs("_sequence compadd - ", f);
				put_words(f, o);
			} else {
				fputc('(', f);
				put_words(f, o);
				fputc(')', f);
			}
			break;
		default:
			fputc(' ', f);
			break;
		}
	}
	fputc('\'', f);
}

static void zsh_arguments(FILE *f, const struct gs_cmd_spec *spec)
{
	const struct gs_opt *o;
	bool multi = false;

	fputs("\t\t_arguments -s -S", f);
	for (o = spec->opts; o->kind != GS_OPT_END; o++)
		if (gs_opt_is_option(o)) {
			zsh_option(f, o);
			multi |= (o->flags & GS_OPT_MULTI) != 0;
		}
	fputs(" \\\n\t\t\t'(- *)'{-h,--help}'[this text]'"
	      " \\\n\t\t\t'(- *)--version[print the version and git commit]'", f);
	if (spec->operand)
		fprintf(f, " \\\n\t\t\t'*:%s:_files'", spec->operand);
	else if (multi)
		fputs(" \\\n\t\t\t'*:file:_files'", f);
	fputs("\n\t\t;;\n", f);
}

static void write_zsh(FILE *f)
{
	const struct gs_cmd_spec *const *sp;
	size_t i;

	fputs("#compdef gpusim\n"
	      "# zsh completion for gpusim, written by `gpusim --completion zsh` from the\n"
	      "# option tables of its commands; edit those, not this file.\n\n"
	      "_gpusim() {\n"
	      "\tlocal cmd\n"
	      "\tlocal -a commands verbs\n"
	      "\tcommands=(\n", f);
	for (i = 0; i < gs_n_commands; i++) {
		fprintf(f, "\t\t'%s:", gs_commands[i].name);
		zsh_desc(f, gs_commands[i].summary);
		fputs("'\n", f);
	}
	fputs("\t)\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\t_describe -t commands 'gpusim command' commands\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcmd=$words[2]\n"
	      "\tcase $cmd in\n", f);
	for (i = 0; i < gs_n_commands; i++) {
		if (!has_verbs(&gs_commands[i]))
			continue;
		fprintf(f, "\t(%s)\n\t\tif (( CURRENT == 3 )); then\n\t\t\tverbs=(",
			gs_commands[i].name);
		for (sp = gs_commands[i].specs; *sp; sp++)
			fprintf(f, "%s%s", sp == gs_commands[i].specs ? "" : " ", verb_of(*sp));
		fputs(")\n"
		      "\t\t\t_describe -t verbs 'verb' verbs\n"
		      "\t\t\treturn\n"
		      "\t\tfi\n"
		      "\t\tcmd=\"$cmd $words[3]\"\n"
		      "\t\tshift 2 words\n"
		      "\t\t(( CURRENT -= 2 ))\n"
		      "\t\t;;\n", f);
	}
	fputs("\t(*)\n"
	      "\t\tshift words\n"
	      "\t\t(( CURRENT-- ))\n"
	      "\t\t;;\n"
	      "\tesac\n"
	      "\tcase $cmd in\n", f);
	for (i = 0; i < gs_n_commands; i++)
		for (sp = gs_commands[i].specs; *sp; sp++) {
			fprintf(f, "\t('%s')\n", (*sp)->name);
			zsh_arguments(f, *sp);
		}
	fputs("\tesac\n"
	      "}\n\n"
	      "_gpusim \"$@\"\n", f);
}

int gs_complete_write(const char *shell, FILE *f)
{
	if (!strcmp(shell, "bash")) {
		write_bash(f);
		return 0;
	}
	if (!strcmp(shell, "zsh")) {
		write_zsh(f);
		return 0;
	}
	fprintf(stderr, "gpusim: --completion: '%s' is not 'bash' or 'zsh'\n", shell);
	return 2;
}
