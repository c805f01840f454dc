/* event_tables.c - the tables of events/ (aliases.txt, sets.txt): finding, parsing, lookups. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "event_tables.h"
#include "events.h"
#include "pmb_config.h"
#include "pmubench.h"

#define NAME_LEN PMB_TABLE_NAME_LEN
#define MAXTOK 10

/* What a line parser needs besides the line. */
struct loader {
	struct pmb_tables *t;
	bool (*reserved)(const char *name);
};

static char err_buf[512];

void pmb__events_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
}

void pmb__events_clear_error(void)
{
	err_buf[0] = '\0';
}

/* Here rather than in the events module's files: the buffer lives with its setter. */
const char *pmb__events_error(void)
{
	return err_buf;
}

void pmb__str_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void pmb__str_trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* Append one zeroed element to a growing array; NULL on ENOMEM. */
static void *push(void *arrp, int *n, size_t size)
{
	void **arr = arrp;
	char *p = realloc(*arr, (size_t)(*n + 1) * size);

	if (!p)
		return NULL;
	*arr = p;
	memset(p + (size_t)*n * size, 0, size);
	return p + (size_t)(*n)++ * size;
}

/* ---- lookups ---------------------------------------------------------------- */

const struct pmb_set_def *pmb__tables_set(const struct pmb_tables *t, const char *name)
{
	for (int i = 0; i < t->nset; i++)
		if (!strcasecmp(t->set[i].name, name))
			return &t->set[i];
	return NULL;
}

const char *pmb__tables_about(const struct pmb_tables *t, const char *name)
{
	for (int i = 0; i < t->nabout; i++)
		if (!strcasecmp(t->about[i].name, name))
			return t->about[i].text;
	return "";
}

bool pmb__tables_has_alias(const struct pmb_tables *t, const char *name)
{
	for (int i = 0; i < t->nalias; i++)
		if (!strcasecmp(t->alias[i].name, name))
			return true;
	return false;
}

const struct pmb_alias_row *pmb__tables_alias(const struct pmb_tables *t,
					      const char *name, const char *pmu,
					      const char *family)
{
	const struct pmb_alias_row *fam = NULL, *any = NULL;

	for (int i = 0; i < t->nalias; i++) {
		const struct pmb_alias_row *r = &t->alias[i];

		if (strcasecmp(r->name, name))
			continue;
		if (pmu && *pmu && !strcmp(r->pmu, pmu))
			return r;
		if (family && *family && !strcmp(r->pmu, family))
			fam = r;
		if (!strcmp(r->pmu, "*"))
			any = r;
	}
	return fam ? fam : any;
}

/* ---- parsing ---------------------------------------------------------------- */

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) || strlen(s) >= NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

/* Split a line (comment already cut) into at most max blank-separated
 * tokens; rest[i] points at the text from token i to the end of the line. */
static int tokenize(char *line, char **tok, char **rest, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		rest[n] = p;
		tok[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* "about NAME TEXT" of aliases.txt, or of sets.txt (set: true), where NAME
 * is kept as "@NAME".  text: TEXT as written.  Returns 0 or -ENOMEM. */
static int add_about(struct pmb_tables *t, const char *name, const char *text, bool set)
{
	struct pmb_about_text *a = push(&t->about, &t->nabout, sizeof(*a));

	if (!a)
		return -ENOMEM;
	snprintf(a->name, sizeof(a->name), "%s%s", set ? "@" : "", name);
	pmb__str_copy(a->text, sizeof(a->text), text);
	pmb__str_trim_end(a->text);
	return 0;
}

/* "map NAME PMU[,PMU...] EVENT": one row per PMU.  Returns 0, -ENOMEM, or
 * PMB_EBADTABLE with the error set. */
static int add_map(const struct loader *ld, const char *file, int ln, char **tok)
{
	struct pmb_tables *t = ld->t;
	char *save, *p;

	if (ld->reserved && ld->reserved(tok[1])) {
		pmb__events_set_error("%s:%d: alias '%s' would hide the perf generic event of that name",
				      file, ln, tok[1]);
		return PMB_EBADTABLE;
	}
	for (p = strtok_r(tok[2], ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct pmb_alias_row *r;

		for (int i = 0; i < t->nalias; i++) {
			if (!strcasecmp(t->alias[i].name, tok[1]) && !strcmp(t->alias[i].pmu, p)) {
				pmb__events_set_error("%s:%d: alias '%s' mapped twice for PMU '%s' (first at line %d)",
						      file, ln, tok[1], p, t->alias[i].line);
				return PMB_EBADTABLE;
			}
		}
		if (strlen(p) >= NAME_LEN || strlen(tok[3]) >= sizeof(r->event)) {
			pmb__events_set_error("%s:%d: name too long", file, ln);
			return PMB_EBADTABLE;
		}
		if (!(r = push(&t->alias, &t->nalias, sizeof(*r))))
			return -ENOMEM;
		pmb__str_copy(r->name, sizeof(r->name), tok[1]);
		pmb__str_copy(r->pmu, sizeof(r->pmu), p);
		pmb__str_copy(r->event, sizeof(r->event), tok[3]);
		r->line = ln;
	}
	return 0;
}

/* One line of aliases.txt.  Returns 0, or PMB_EBADTABLE with the error set. */
static int parse_alias_line(const struct loader *ld, const char *file, int ln,
			    char *line, const char *orig)
{
	char *tok[MAXTOK], *rest[MAXTOK];
	int n = tokenize(line, tok, rest, MAXTOK);

	if (!n)
		return 0;
	if (!strcmp(tok[0], "about") && n >= 3 && valid_name(tok[1]))
		/* rest[] points into the tokenized copy: take the text from orig */
		return add_about(ld->t, tok[1], orig + (rest[2] - line), false);
	if (!strcmp(tok[0], "map") && n == 4 && valid_name(tok[1]))
		return add_map(ld, file, ln, tok);
	if (strcmp(tok[0], "about") && strcmp(tok[0], "map")) {
		pmb__events_set_error("%s:%d: unknown keyword '%s' (expected about or map)",
				      file, ln, tok[0]);
		return PMB_EBADTABLE;
	}
	pmb__events_set_error("%s:%d: expected 'about NAME TEXT' or 'map NAME PMU[,PMU...] EVENT'",
			      file, ln);
	return PMB_EBADTABLE;
}

/* "set NAME EVENT[,EVENT...]" of sets.txt; members: the text as written.
 * Returns 0, -ENOMEM, or PMB_EBADTABLE with the error set. */
static int add_set(struct pmb_tables *t, const char *file, int ln, const char *name,
		   const char *members)
{
	const struct pmb_set_def *old = pmb__tables_set(t, name);
	struct pmb_set_def *s;

	if (old) {
		pmb__events_set_error("%s:%d: set '%s' defined twice (first at line %d)",
				      file, ln, name, old->line);
		return PMB_EBADTABLE;
	}
	if (!(s = push(&t->set, &t->nset, sizeof(*s))))
		return -ENOMEM;
	pmb__str_copy(s->name, sizeof(s->name), name);
	pmb__str_copy(s->members, sizeof(s->members), members);
	pmb__str_trim_end(s->members);
	s->line = ln;
	return 0;
}

/* "derive FIGURE = NUM / DEN [* SCALE]" as n tokens.  Returns 0, -ENOMEM,
 * or PMB_EBADTABLE with the error set. */
static int add_derive(struct pmb_tables *t, const char *file, int ln, char **tok, int n)
{
	struct pmb_derive_rule *r;
	double scale = 1;
	char *end;

	if ((n != 6 && n != 8) || strcmp(tok[2], "=") || strcmp(tok[4], "/") ||
	    (n == 8 && strcmp(tok[6], "*")))
		goto bad;
	if (n == 8) {
		scale = strtod(tok[7], &end);
		if (*end || !(scale > 0))
			goto bad;
	}
	if (strlen(tok[1]) >= sizeof(r->fig) || strlen(tok[3]) >= sizeof(r->num) ||
	    strlen(tok[5]) >= sizeof(r->den))
		goto bad;
	if (!(r = push(&t->rule, &t->nrule, sizeof(*r))))
		return -ENOMEM;
	pmb__str_copy(r->fig, sizeof(r->fig), tok[1]);
	pmb__str_copy(r->num, sizeof(r->num), tok[3]);
	pmb__str_copy(r->den, sizeof(r->den), tok[5]);
	r->scale = scale;
	return 0;
bad:
	pmb__events_set_error("%s:%d: expected 'derive FIGURE = NUM / DEN [* SCALE]'", file, ln);
	return PMB_EBADTABLE;
}

/* One line of sets.txt.  Returns 0, or PMB_EBADTABLE with the error set. */
static int parse_set_line(const struct loader *ld, const char *file, int ln,
			  char *line, const char *orig)
{
	char *tok[MAXTOK], *rest[MAXTOK];
	int n = tokenize(line, tok, rest, MAXTOK);
	bool about;

	if (!n)
		return 0;
	if (!strcmp(tok[0], "derive"))
		return add_derive(ld->t, file, ln, tok, n);
	if (strcmp(tok[0], "about") && strcmp(tok[0], "set")) {
		pmb__events_set_error("%s:%d: unknown keyword '%s' (expected about, set or derive)",
				      file, ln, tok[0]);
		return PMB_EBADTABLE;
	}
	about = tok[0][0] == 'a';
	if (n < 3 || !valid_name(tok[1])) {
		pmb__events_set_error("%s:%d: expected '%s NAME %s'", file, ln, tok[0],
				      about ? "TEXT" : "EVENT[,EVENT...]");
		return PMB_EBADTABLE;
	}
	/* rest[] points into the tokenized copy: take the text from orig */
	if (about)
		return add_about(ld->t, tok[1], orig + (rest[2] - line), true);
	return add_set(ld->t, file, ln, tok[1], orig + (rest[2] - line));
}

typedef int (*line_parser)(const struct loader *ld, const char *file, int ln,
			   char *line, const char *orig);

static int load_table(const struct loader *ld, const char *base, line_parser parse)
{
	char path[PATH_MAX + 32], *line = NULL, *work = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ld->t->dir, base);
	if (!(f = fopen(path, "r"))) {
		pmb__events_set_error("cannot read %s: %s", path, strerror(errno));
		return PMB_ENOTABLE;
	}
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		char *hash = strchr(line, '#');

		ln++;
		if (hash)
			*hash = '\0';
		pmb__str_trim_end(line);
		free(work);
		if (!(work = strdup(line))) {
			err = -ENOMEM;
			break;
		}
		err = parse(ld, path, ln, work, line);
	}
	free(work);
	free(line);
	fclose(f);
	return err;
}

/* Check what can be checked without a PMU: @references name known sets. */
static int check_sets(const struct pmb_tables *t)
{
	for (int i = 0; i < t->nset; i++) {
		char buf[sizeof(t->set[i].members)], *save, *p;

		pmb__str_copy(buf, sizeof(buf), t->set[i].members);
		for (p = strtok_r(buf, ", \t", &save); p; p = strtok_r(NULL, ", \t", &save)) {
			if (*p == '@' && !pmb__tables_set(t, p + 1)) {
				pmb__events_set_error("%s/sets.txt:%d: set '%s' uses unknown set '%s'",
						      t->dir, t->set[i].line, t->set[i].name, p);
				return PMB_EBADTABLE;
			}
		}
	}
	return 0;
}

/* ---- the tables' folder ------------------------------------------------------ */

static bool has_tables(const char *dir)
{
	char path[PATH_MAX + 32];

	if (!dir || !*dir)
		return false;
	snprintf(path, sizeof(path), "%s/aliases.txt", dir);
	return access(path, R_OK) == 0;
}

/* The tables' folder: $PMUBENCH_EVENTS_DIR, the source tree, the install
 * prefix, then ../share/pmubench/events next to the executable (a moved
 * install tree). */
static int find_dir(char *out, size_t size)
{
	char exe[PATH_MAX], rel[PATH_MAX + 64], *slash;
	const char *cand[4];
	ssize_t n;
	int nc = 0;

	cand[nc++] = getenv("PMUBENCH_EVENTS_DIR");
	cand[nc++] = PMB_EVENTS_SOURCE_DIR;
	cand[nc++] = PMB_EVENTS_INSTALL_DIR;
	rel[0] = '\0';
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/'))) {
			*slash = '\0';
			snprintf(rel, sizeof(rel), "%s/../share/pmubench/events", exe);
		}
	}
	cand[nc++] = rel;
	for (int i = 0; i < nc; i++) {
		if (has_tables(cand[i])) {
			pmb__str_copy(out, size, cand[i]);
			return 0;
		}
	}
	pmb__events_set_error("events tables (aliases.txt, sets.txt) not found: set PMUBENCH_EVENTS_DIR or install them in %s",
			      PMB_EVENTS_INSTALL_DIR);
	return PMB_ENOTABLE;
}

/* ---- life cycle ---------------------------------------------------------------- */

void pmb__tables_free(struct pmb_tables *t)
{
	free(t->alias);
	free(t->about);
	free(t->set);
	free(t->rule);
	t->alias = NULL, t->about = NULL, t->set = NULL, t->rule = NULL;
	t->nalias = t->nabout = t->nset = t->nrule = 0;
	t->dir[0] = '\0';
}

int pmb__tables_load(struct pmb_tables *t, const char *dir,
		     bool (*reserved)(const char *name))
{
	struct loader ld = { .t = t, .reserved = reserved };
	int err;

	pmb__tables_free(t);
	if (dir && *dir) {
		if (!has_tables(dir)) {
			pmb__events_set_error("events tables not found in %s", dir);
			return PMB_ENOTABLE;
		}
		pmb__str_copy(t->dir, sizeof(t->dir), dir);
	} else if ((err = find_dir(t->dir, sizeof(t->dir))) < 0) {
		return err;
	}
	err = load_table(&ld, "aliases.txt", parse_alias_line);
	if (!err)
		err = load_table(&ld, "sets.txt", parse_set_line);
	if (!err)
		err = check_sets(t);
	if (err)
		pmb__tables_free(t); /* the error detail stays: it is not in t */
	return err;
}
