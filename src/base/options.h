/* options.h - command-line options declared as tables: one parser, one --help writer for every table. */
#ifndef PMB_OPTIONS_H
#define PMB_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/* How an option's value is read, and what its error says it expected.
 * Every number is read by one scanner (options.c's scan_number): decimal
 * digits, a fraction after '.' where the kind takes one, then the unit
 * where one applies; no blank, '+', hex, exponent, inf or nan. */
enum pmb_optkind {
	PMB_OPT_FLAG,     /* no value: sets its `given` bool */
	PMB_OPT_STOP,     /* no value: sets `given`, parsing stops (--help) */
	PMB_OPT_STRING,   /* const char *, any text */
	PMB_OPT_FILE,     /* const char *, not empty: "expected a file name" */
	PMB_OPT_LIST,     /* const char *, more than commas and blanks */
	PMB_OPT_INT,      /* int from lo to hi */
	PMB_OPT_CORE,     /* int, a core number (0 up; the error names this
	                     machine's highest) */
	PMB_OPT_SEED,     /* uint64_t above 0 (decimal: leading zeros are
	                     decimal, never octal) */
	PMB_OPT_DURATION, /* double ns from "1ms", "500us", "2s", "250000ns"
	                     (a bare number is seconds), above 0, up to hi s */
	PMB_OPT_PERCENT,  /* double fraction from "5" or "5%": 0 <= PCT < 100 */
	PMB_OPT_CHOICE,   /* int: the value of the choice named */
	PMB_OPT_FILES,    /* struct pmb_optfiles: a file name per time given */
};

/* An option that may be given several times (--load=A --load=B). */
#define PMB_OPT_MAX_FILES 16
struct pmb_optfiles {
	const char *v[PMB_OPT_MAX_FILES];
	int n;
};

/* One word an option of kind PMB_OPT_CHOICE accepts, and what it stores. */
struct pmb_optchoice {
	const char *word;
	int value;
};

/* Where a value goes: offsetof(struct, member) + 1, so that 0 (the
 * initializer's default) means nowhere. */
#define PMB_OPT_AT(type, member) (offsetof(type, member) + 1)

/* One option.  The table is the one place an option is declared: the
 * parser, --help and tests/test_cli.py's man-page check all read it. */
struct pmb_optdef {
	const char *name;      /* "--filter": the literal the man page must name */
	char short_name;       /* 'h' for -h, or 0 */
	enum pmb_optkind kind;
	int optional;          /* the value may be left out (--list-events[=PAT]) */
	size_t value;          /* PMB_OPT_AT of the value, 0 none */
	size_t given;          /* PMB_OPT_AT of a bool set when given, 0 none */
	long lo, hi;           /* PMB_OPT_INT: range; PMB_OPT_DURATION: hi s */
	const struct pmb_optchoice *choices; /* PMB_OPT_CHOICE: ends at word NULL */
	const char *expect;    /* the error's "expected ..." (NULL: the kind's own) */
	const char *meta;      /* --help: what follows the name ("=N", "[=PAT]") */
	const char *help;      /* --help: text; "\n" starts a continued line */
	int hidden;            /* for tests only: not in --help */
};

/* Parse argv[1..argc) against table[0..n) into the struct at dst (the
 * offsets' struct), GNU style: --name=value or --name value, unique
 * prefixes, operands anywhere.  *operand: the index of the first operand
 * (getopt's order puts them last).  Returns 0, 1 when a PMB_OPT_STOP
 * option ended parsing, -EINVAL with a one-line message in err (which
 * names the argument as given and what was expected), or -E2BIG for a
 * table of more than 48 options. */
int pmb__options_parse(const struct pmb_optdef *table, size_t n, int argc, char **argv,
		      void *dst, int *operand, char *err, size_t errsize);

/* Write table's --help lines (hidden options left out) to f: the option
 * and its meta in a column of 22, the text beside it. */
void pmb__options_help(const struct pmb_optdef *table, size_t n, FILE *f);

#endif
