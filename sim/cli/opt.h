/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opt.h - the option table of a gpusim command, and the one parser that
 * reads a command line from it.
 *
 * A command describes each option once, as a row of a static const table:
 * its long name, short form, kind, the field of the command's argument
 * struct it fills, range, default, value name and help paragraph, and the
 * options it cannot be combined with. From that table gs_opt_parse() builds
 * the getopt_long tables, checks values and ranges, refuses conflicts and
 * missing required options, fills in defaults, and prints `--help`; every
 * message has the same shape:
 *
 *   gpusim CMD: --OPT: 'VALUE' is not a positive number
 *
 * Every command also gets -h/--help and --version without listing them.
 * The table is plain data (no pointers to locals), so tools can walk it to
 * write man pages.
 *
 * Numbers are read strictly, the same way for every option: an integer is
 * an optional '-' and decimal digits, a number is a decimal with an
 * optional fraction and exponent; leading blanks, '+', hexadecimal, "inf"
 * and "nan" are refused.
 *
 * Adding an option: add a field to the command's argument struct and one
 * row to its table, using the GS_OPT_* field macros below, which check at
 * compile time that the field has the type the kind writes.
 */
#ifndef GS_OPT_H
#define GS_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gs_opt_kind {
	GS_OPT_END = 0, /* ends a table: { 0 } */
	GS_OPT_GROUP,   /* no option: .help is a heading in --help ("Inputs:") */
	GS_OPT_FLAG,    /* no value; sets a bool to true */
	GS_OPT_SET,     /* no value; stores .value in an int */
	GS_OPT_INT,     /* int64_t from .min to .max */
	GS_OPT_UINT,    /* uint64_t from 0 to .umax */
	GS_OPT_DOUBLE,  /* finite double from .dmin to .dmax (GS_OPT_GT_MIN: above .dmin) */
	GS_OPT_STRING,  /* const char *, pointing into argv */
	GS_OPT_LIST,    /* struct gs_opt_list: comma-separated, no empty or repeated item
			   (GS_OPT_MULTI: also the arguments after it) */
	GS_OPT_ENUM,    /* int: the .value of the .choices entry named */
	GS_OPT_CUSTOM,  /* .parse converts the value; .release frees what it keeps */
};

/* Flags of an option. */
#define GS_OPT_REQUIRED 0x1 /* must be given; listed in the usage line */
#define GS_OPT_GT_MIN 0x2   /* GS_OPT_DOUBLE: the value must be above .dmin, not equal */
/*
 * GS_OPT_LIST: the arguments that follow the value, up to the next option,
 * are items too, so that `--pods a.csv b.csv` (what the shell makes of
 * `--pods *.csv`) means `--pods a.csv,b.csv`. (In a command that takes
 * operands, they would have to come before such an option, or after "--".)
 */
#define GS_OPT_MULTI 0x4

/* One name of a GS_OPT_ENUM option; a table of them ends with { NULL, 0 }. */
struct gs_opt_choice {
	const char *name;
	int value;
};

/* The target of a GS_OPT_LIST option: n items, owned (one block) until gs_opt_release(). */
struct gs_opt_list {
	const char **v;
	size_t n;
};

struct gs_cmd_spec;
struct gs_opt;

/*
 * The converter of a GS_OPT_CUSTOM option: reads value into field (the
 * option's target in the argument struct). Returns 0; or, after printing a
 * message through gs_opt_err(), GS_EINVAL for a bad value (exit 2) or
 * GS_ENOMEM (exit 1). Called again when the option is repeated, so it
 * frees what an earlier call kept.
 */
typedef int (*gs_opt_parse_fn)(const struct gs_cmd_spec *cmd, const struct gs_opt *o,
			       const char *value, void *field);

/* One row of an option table. Rows are written with designated initialisers. */
struct gs_opt {
	enum gs_opt_kind kind;
	const char *name;      /* long name without "--" ("time-scale") */
	char short_name;       /* 'n' for -n; 0: long form only */
	size_t offset;         /* of the target field in the argument struct */
	const char *arg;       /* value name in --help: FILE, N, X, LIST */
	const char *help;      /* one paragraph, wrapped by --help; a heading for GROUP */
	const char *def;       /* parsed as if given when the option is absent, and shown
				  in --help as "(default DEF)"; NULL: the field keeps the
				  value the command put there */
	unsigned flags;        /* GS_OPT_REQUIRED, GS_OPT_GT_MIN */
	int64_t min, max;      /* GS_OPT_INT range; GS_OPT_LIST: .max items (0: any) */
	uint64_t umax;         /* GS_OPT_UINT upper bound */
	double dmin, dmax;     /* GS_OPT_DOUBLE range */
	int value;             /* GS_OPT_SET: what the option stores */
	const struct gs_opt_choice *choices; /* GS_OPT_ENUM */
	/*
	 * Optional, any kind that takes a value: word i of those the value
	 * (or each item of a list) may be, NULL past the last; a static
	 * string. A hint for shell completion and the man page, not a check:
	 * the kind or the converter still decides what is accepted, so an
	 * option that also takes a number (inspect --at: 'peak', 'end' or a
	 * time) names only its words here. ENUM options need none (their
	 * .choices are their words).
	 */
	const char *(*words)(size_t i);
	const char *conflicts; /* space-separated long names this option cannot be given
				  with (declared on either side) */
	const char *requires;  /* space-separated long names that must be given with it */
	gs_opt_parse_fn parse; /* GS_OPT_CUSTOM */
	void (*release)(void *field); /* GS_OPT_CUSTOM, optional: frees what parse kept */
};

/* A command: its name, the text around its options, its table and its operand. */
struct gs_cmd_spec {
	const char *name;      /* as typed: "replay", "bench-import" */
	const char *intro;     /* paragraphs after the usage line, pre-wrapped, or NULL */
	const char *outro;     /* text after the options (exit status...), or NULL */
	const struct gs_opt *opts;
	const char *operand;   /* name of the one operand after the options ("FILE"), or
				  NULL when the command takes none */
	size_t operand_offset; /* const char * field that receives it */
	/*
	 * Instead, with min_operands > 0: at least that many operands, named
	 * in the usage line by `operand` ("OUT IN..."), stored as a pointer
	 * into argv (a char ** field at operands_offset) and their count (a
	 * size_t field at n_operands_offset).
	 */
	size_t min_operands;
	size_t operands_offset, n_operands_offset;
};

/*
 * Field macros: `.kind = ..., .offset = ...` for a row, failing to compile
 * when field F of struct S does not have the type the kind writes.
 */
#define GS_OPT_OFFSET(S, F, T) \
	(offsetof(S, F) + 0 * sizeof((T *)0 == &((S *)0)->F))
#define GS_OPT_FLAG_AT(S, F) .kind = GS_OPT_FLAG, .offset = GS_OPT_OFFSET(S, F, bool)
#define GS_OPT_SET_AT(S, F, V) .kind = GS_OPT_SET, .offset = GS_OPT_OFFSET(S, F, int), .value = (V)
#define GS_OPT_INT_AT(S, F, LO, HI) \
	.kind = GS_OPT_INT, .offset = GS_OPT_OFFSET(S, F, int64_t), .min = (LO), .max = (HI)
#define GS_OPT_UINT_AT(S, F, HI) \
	.kind = GS_OPT_UINT, .offset = GS_OPT_OFFSET(S, F, uint64_t), .umax = (HI)
#define GS_OPT_DOUBLE_AT(S, F, LO, HI) \
	.kind = GS_OPT_DOUBLE, .offset = GS_OPT_OFFSET(S, F, double), .dmin = (LO), .dmax = (HI)
#define GS_OPT_STRING_AT(S, F) .kind = GS_OPT_STRING, .offset = GS_OPT_OFFSET(S, F, const char *)
#define GS_OPT_LIST_AT(S, F, MAXN) \
	.kind = GS_OPT_LIST, .offset = GS_OPT_OFFSET(S, F, struct gs_opt_list), .max = (MAXN)
#define GS_OPT_ENUM_AT(S, F, CHOICES) \
	.kind = GS_OPT_ENUM, .offset = GS_OPT_OFFSET(S, F, int), .choices = (CHOICES)
#define GS_OPT_CUSTOM_AT(S, F, T, PARSE, RELEASE) \
	.kind = GS_OPT_CUSTOM, .offset = GS_OPT_OFFSET(S, F, T), .parse = (PARSE), \
	.release = (RELEASE)
#define GS_OPT_GROUP_HEADING(TEXT) .kind = GS_OPT_GROUP, .help = (TEXT)

/*
 * Parses argv[1..argc) (argv[0] is the command's name) into args, the
 * command's argument struct, which the caller has zeroed and given its
 * non-table defaults. Returns 0 when the command should run. Otherwise
 * returns -1 with *status_out set: 0 after printing --help or --version on
 * stdout, 2 after a usage error on stderr, 1 when out of memory; args is
 * then already released. On 0 the caller calls gs_opt_release() when done.
 */
int gs_opt_parse(const struct gs_cmd_spec *cmd, int argc, char **argv, void *args,
		 int *status_out);

/* Frees what the table's LIST and CUSTOM options keep in args; args stays valid to release again. */
void gs_opt_release(const struct gs_cmd_spec *cmd, void *args);

/* Whether row o takes a value (every kind but FLAG, SET, GROUP and END). */
bool gs_opt_takes_value(const struct gs_opt *o);

/* Whether row o is an option (not a GROUP heading nor the END row). */
bool gs_opt_is_option(const struct gs_opt *o);

/* Writes the --help text of cmd to f. */
void gs_opt_usage(const struct gs_cmd_spec *cmd, FILE *f);

/* Prints "gpusim CMD: --OPT: " and the formatted message, with a newline, on stderr. */
void gs_opt_err(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Reads s as an integer from min to max, the way GS_OPT_INT does, for
 * converters that accept numbers among other things. Returns 0 with *out
 * set, or GS_EINVAL after printing the uniform message (*out untouched).
 */
int gs_opt_int(const struct gs_cmd_spec *cmd, const struct gs_opt *o, const char *s,
	       int64_t min, int64_t max, int64_t *out);

#endif
