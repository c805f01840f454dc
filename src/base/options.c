/* options.c - command-line options from a declarative table: getopt_long's options, value checks with one-line errors, --help. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "near.h"
#include "options.h"

#define MAX_OPTIONS 48
#define LONG_VAL 256 /* getopt's value of table[i] is LONG_VAL + i */

/* The one number syntax of every option: decimal digits, a fraction
 * after '.' where frac allows, '-' first where neg allows; nothing else
 * (no blank, '+', hex, exponent, inf or nan, which strtod and strtol
 * would take: "0x10" as 16, "0x1p3" as 8).  The digits are read here, not
 * by strtod, so the locale's decimal point plays no part.  *end: the
 * first character after the number (a unit, or the end).  Returns false
 * where s does not start with such a number, or it does not fit. */
static bool scan_number(const char *s, bool neg, bool frac, double *v, uint64_t *whole, const char **end)
{
	bool minus = neg && *s == '-';
	uint64_t w = 0;
	double x = 0, scale = 1;
	const char *p = s + minus;
	bool exact = true;

	if (!isdigit((unsigned char)*p) && !(frac && *p == '.' && isdigit((unsigned char)p[1])))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		exact = exact && w <= (UINT64_MAX - d) / 10;
		w = w * 10 + d;
		x = x * 10 + d;
	}
	if (frac && *p == '.')
		for (p++; isdigit((unsigned char)*p); p++) {
			scale *= 10;
			x += (*p - '0') / scale;
		}
	if (!exact && whole)
		return false;
	if (!isfinite(x))
		return false;
	*v = minus ? -x : x;
	if (whole)
		*whole = w;
	*end = p;
	return true;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	const char *end;
	uint64_t w;
	double x;

	if (!scan_number(s, lo < 0, false, &x, &w, &end) || *end)
		return false;
	if (w > (uint64_t)LONG_MAX + (*s == '-'))
		return false;
	long v = *s == '-' ? (long)(0 - w) : (long)w;

	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Readers, one per kind: true and the value stored at p, or false. */
typedef bool reader_fn(const struct pmb_optdef *d, const char *a, void *p);

static bool read_string(const struct pmb_optdef *d, const char *a, void *p)
{
	(void)d;
	*(const char **)p = a;
	return true;
}

static bool read_file(const struct pmb_optdef *d, const char *a, void *p)
{
	return *a && read_string(d, a, p);
}

static bool read_files(const struct pmb_optdef *d, const char *a, void *p)
{
	struct pmb_optfiles *f = p;

	(void)d;
	if (!*a || f->n == PMB_OPT_MAX_FILES)
		return false;
	f->v[f->n++] = a;
	return true;
}

static bool read_list(const struct pmb_optdef *d, const char *a, void *p)
{
	return a[strspn(a, ", ")] && read_string(d, a, p);
}

static bool read_int(const struct pmb_optdef *d, const char *a, void *p)
{
	long v;

	if (!parse_long(a, d->lo, d->hi, &v))
		return false;
	*(int *)p = (int)v;
	return true;
}

static bool read_core(const struct pmb_optdef *d, const char *a, void *p)
{
	long v;

	(void)d;
	if (!parse_long(a, 0, INT_MAX, &v))
		return false;
	*(int *)p = (int)v;
	return true;
}

static bool read_seed(const struct pmb_optdef *d, const char *a, void *p)
{
	const char *end;
	uint64_t v;
	double x;

	(void)d;
	/* Decimal, as every number here: 010 is ten, as it reads. */
	if (!scan_number(a, false, false, &x, &v, &end) || *end || v == 0)
		return false;
	*(uint64_t *)p = v;
	return true;
}

static bool read_duration(const struct pmb_optdef *d, const char *a, void *p)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
	};
	const char *end;
	double v;

	if (!scan_number(a, false, true, &v, NULL, &end) || !(v > 0))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].ns;
			if (v > (double)d->hi * 1e9)
				return false;
			*(double *)p = v;
			return true;
		}
	return false;
}

static bool read_percent(const struct pmb_optdef *d, const char *a, void *p)
{
	const char *end;
	double v;

	(void)d;
	if (!scan_number(a, false, true, &v, NULL, &end))
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0) || !(v < 100))
		return false;
	*(double *)p = v / 100;
	return true;
}

static bool read_choice(const struct pmb_optdef *d, const char *a, void *p)
{
	for (const struct pmb_optchoice *c = d->choices; c->word; c++)
		if (!strcmp(a, c->word)) {
			*(int *)p = c->value;
			return true;
		}
	return false;
}

static reader_fn *const readers[] = {
	[PMB_OPT_STRING] = read_string, [PMB_OPT_FILE] = read_file,
	[PMB_OPT_LIST] = read_list, [PMB_OPT_INT] = read_int,
	[PMB_OPT_CORE] = read_core, [PMB_OPT_SEED] = read_seed,
	[PMB_OPT_DURATION] = read_duration, [PMB_OPT_PERCENT] = read_percent,
	[PMB_OPT_CHOICE] = read_choice, [PMB_OPT_FILES] = read_files,
};

/* "expected ...": the option's own words, or its kind's. */
static void expected(const struct pmb_optdef *d, char *buf, size_t size)
{
	size_t len = 0;

	if (d->expect) {
		snprintf(buf, size, "%s", d->expect);
		return;
	}
	switch (d->kind) {
	case PMB_OPT_FILE:
		snprintf(buf, size, "expected a file name");
		break;
	case PMB_OPT_FILES:
		snprintf(buf, size, "expected a file name (the option at most %d times)", PMB_OPT_MAX_FILES);
		break;
	case PMB_OPT_LIST:
		snprintf(buf, size, "expected a comma-separated list");
		break;
	case PMB_OPT_INT:
		snprintf(buf, size, "expected a whole number from %ld to %ld", d->lo, d->hi);
		break;
	case PMB_OPT_CORE:
		snprintf(buf, size, "expected a core number from 0 to %ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
		break;
	case PMB_OPT_SEED:
		snprintf(buf, size, "expected a positive whole number (decimal digits)");
		break;
	case PMB_OPT_DURATION:
		snprintf(buf, size, "expected a positive duration up to %lds, decimal, such as 1ms, 2.5us, 2s", d->hi);
		break;
	case PMB_OPT_PERCENT:
		snprintf(buf, size, "expected a percentage from 0 to 100 (decimal, such as 5 or 2.5%%)");
		break;
	case PMB_OPT_CHOICE: /* "expected a, b or c" */
		len = (size_t)snprintf(buf, size, "expected");
		for (const struct pmb_optchoice *c = d->choices; c->word && len < size; c++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", c == d->choices ? " " :
						!c[1].word ? " or " : ", ", c->word);
		break;
	default:
		snprintf(buf, size, "expected no value");
	}
}

/* Apply table[i] with value a (NULL: none given).  Returns 0, 1 to stop,
 * or -EINVAL with the message in err. */
static int apply(const struct pmb_optdef *d, const char *a, char *dst, char *err, size_t size)
{
	char want[160];

	if (d->given)
		*(bool *)(dst + d->given - 1) = true;
	if (d->kind == PMB_OPT_STOP)
		return 1;
	if (!a || d->kind == PMB_OPT_FLAG)
		return 0;
	if (readers[d->kind](d, a, dst + d->value - 1))
		return 0;
	expected(d, want, sizeof(want));
	snprintf(err, size, "%s=%s: %s", d->name, a, want);
	return -EINVAL;
}

/* An unknown long option arg ("--fliter=x"): the table's options near it
 * (hidden ones left out), as the fix to type, its value kept ("did you
 * mean --filter=x?"), or those it abbreviates when it is ambiguous. */
static void unknown_long(const struct pmb_optdef *t, size_t n, const char *arg, char *err, size_t size)
{
	char word[PMB_NEAR_LEN], near[PMB_NEAR_MAX * (PMB_NEAR_LEN + 2)], fix[PMB_NEAR_LEN + 64];
	const char *value = strchr(arg, '=');
	size_t len = value ? (size_t)(value - arg) : strlen(arg), nprefix = 0, at = 0;
	struct pmb_near s;

	snprintf(word, sizeof(word), "%.*s", (int)len, arg);
	for (size_t i = 0; i < n; i++)
		if (!t[i].hidden && len > 2 && !strncmp(t[i].name, word, len) && at < sizeof(near)) {
			at += (size_t)snprintf(near + at, sizeof(near) - at, "%s%s", nprefix ? ", " : "", t[i].name);
			nprefix++;
		}
	if (nprefix > 1) {
		snprintf(err, size, "option '%s' is ambiguous: it starts %s", word, near);
		return;
	}
	pmb__near_start(&s, word);
	for (size_t i = 0; i < n; i++)
		if (!t[i].hidden) {
			snprintf(fix, sizeof(fix), "%s%s", t[i].name, value && t[i].kind != PMB_OPT_FLAG &&
				 t[i].kind != PMB_OPT_STOP ? value : "");
			pmb__near_consider_as(&s, t[i].name, fix);
		}
	pmb__near_join(&s, near, sizeof(near));
	if (s.n)
		snprintf(err, size, "unknown option '%s': did you mean %s?", arg, near);
	else
		snprintf(err, size, "unknown option '%s' (see --help for the options)", arg);
}

/* getopt_long's '?': an unknown option, a value missing, or a value given
 * to an option that takes none (getopt says '?' for both). */
static int refused(const struct pmb_optdef *t, size_t n, char **argv, char *err, size_t size)
{
	const char *arg = argv[optind - 1];

	if (optopt && optopt < LONG_VAL)
		snprintf(err, size, "unknown option '-%c' (see --help for the options)", optopt);
	else if (optopt >= LONG_VAL && strchr(arg, '='))
		snprintf(err, size, "%s: %.*s takes no value (see --help)", arg, (int)strcspn(arg, "="), arg);
	else if (optopt >= LONG_VAL)
		snprintf(err, size, "%s: expects a value (see --help)", arg);
	else if (!strncmp(arg, "--", 2))
		unknown_long(t, n, arg, err, size);
	else
		snprintf(err, size, "unknown option '%s' (see --help for the options)", arg);
	return -EINVAL;
}

/* getopt_long's view of the table: long options and the short ones. */
static void getopt_view(const struct pmb_optdef *t, size_t n, struct option *lo, char *shorts)
{
	size_t ns = 0;

	for (size_t i = 0; i < n; i++) {
		bool none = t[i].kind == PMB_OPT_FLAG || t[i].kind == PMB_OPT_STOP;

		lo[i] = (struct option){ t[i].name + 2,
					 none ? no_argument : t[i].optional ? optional_argument : required_argument,
					 NULL, LONG_VAL + (int)i };
		if (t[i].short_name)
			shorts[ns++] = t[i].short_name;
	}
	lo[n] = (struct option){ 0, 0, 0, 0 };
	shorts[ns] = 0;
}

int pmb__options_parse(const struct pmb_optdef *table, size_t n, int argc, char **argv,
		      void *dst, int *operand, char *err, size_t errsize)
{
	struct option lo[MAX_OPTIONS + 1];
	char shorts[MAX_OPTIONS + 1];
	int c, rc = 0;

	err[0] = 0;
	if (n > MAX_OPTIONS)
		return -E2BIG;
	getopt_view(table, n, lo, shorts);
	opterr = 0;
	optind = 0; /* glibc: start afresh, whatever parsed before */
	while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		size_t i = (size_t)(c - LONG_VAL);

		if (c == '?' || c == ':')
			return refused(table, n, argv, err, errsize);
		if (c < LONG_VAL) /* a short option: its row */
			for (i = 0; i < n && table[i].short_name != c; i++)
				;
		rc = apply(&table[i], optarg, dst, err, errsize);
	}
	*operand = optind;
	return rc;
}

void pmb__options_help(const struct pmb_optdef *table, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++) {
		const struct pmb_optdef *d = &table[i];
		char head[64];
		const char *h = d->help;

		if (d->hidden)
			continue;
		snprintf(head, sizeof(head), "%s%s", d->name, d->meta ? d->meta : "");
		fprintf(f, "  %-22s ", head);
		do {
			size_t len = strcspn(h, "\n");

			fprintf(f, "%s%.*s\n", h == d->help ? "" : "                         ", (int)len, h);
			h += len + (h[len] == '\n');
		} while (*h);
	}
}
