/* ab_list.c - the benchmarks `pmubench ab` compares: each side's --list, filtered, and the names both list, in n log n. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_internal.h"

/* What is kept of a side's --list (names: 100 k of 60 bytes are 6 MB). */
#define LIST_KEEP (256 << 20)

void pmb__ab_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* The lines of text, one name each (empty lines skipped).  Returns 0 or
 * -ENOMEM. */
static int split_names(const char *text, char ***names, size_t *n)
{
	size_t k = 0, cap = 0;
	char **v = NULL;

	for (const char *p = text ? text : ""; *p;) {
		size_t len = strcspn(p, "\n");

		if (len) {
			if (k == cap) {
				char **nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv)
					goto nomem;
				v = nv;
			}
			if (!(v[k] = strndup(p, len)))
				goto nomem;
			k++;
		}
		p += len + (p[len] == '\n');
	}
	*names = v;
	*n = k;
	return 0;
nomem:
	pmb__ab_names_free(v, k);
	return -ENOMEM;
}

/* Keep the names filter matches, as the side's --filter would (POSIX
 * extended).  The side lists them all: a side asked for a filter that
 * matches none of its benchmarks exits 2, which is no list, not an empty
 * one. */
static int keep_matching(const char *filter, char **names, size_t *n, char *err, size_t errlen)
{
	regex_t re;
	size_t k = 0;
	int rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char why[128];

		regerror(rc, &re, why, sizeof(why));
		snprintf(err, errlen, "--filter=%s: %s", filter, why);
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		if (!regexec(&re, names[i], 0, NULL, 0))
			names[k++] = names[i];
		else
			free(names[i]);
	*n = k;
	regfree(&re);
	return 0;
}

int pmb__ab_list(struct pmb__ab_side *s, const char *filter, const struct pmb__ab_limit *limit,
		 char ***names, size_t *n, char *err, size_t errlen)
{
	const char *args[1] = { "--list" };
	struct pmb__ab_text out = { .max = LIST_KEEP };
	int ret = pmb__ab_run(s, args, 1, limit, "its --list", &out, err, errlen);

	if (!ret && out.cut) {
		snprintf(err, errlen, "%s %s: its --list printed over %d MiB", s->label, s->path,
			 LIST_KEEP >> 20);
		ret = -1;
	}
	if (!ret && split_names(out.p, names, n)) {
		snprintf(err, errlen, "%s %s: its list: %s", s->label, s->path, strerror(ENOMEM));
		ret = -1;
	}
	free(out.p);
	if (!ret && filter && keep_matching(filter, *names, n, err, errlen)) {
		pmb__ab_names_free(*names, *n);
		ret = -1;
	}
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether name is among sorted[0..n).  O(log n). */
static bool listed(char *const *sorted, size_t n, const char *name)
{
	return bsearch(&name, sorted, n, sizeof(*sorted), by_name) != NULL;
}

/* The names of list[0..n) that are not in other (sorted) noted as
 * "what: NAME" while there is room, else counted in n->more. */
static void note_only(char *const *list, size_t n, char *const *other, size_t nother,
		      const char *what, struct pmb__ab_notes *notes)
{
	for (size_t i = 0; i < n; i++) {
		if (listed(other, nother, list[i]))
			continue;
		if (notes->n < notes->max)
			snprintf(notes->line[notes->n++], sizeof(notes->line[0]), "%s: %.120s", what,
				 list[i]);
		else
			notes->more++;
	}
}

/* A copy of list[0..n)'s pointers, sorted by name; NULL: out of memory. */
static char **sorted_copy(char *const *list, size_t n)
{
	char **s = malloc((n + 1) * sizeof(*s));

	if (s) {
		memcpy(s, list, n * sizeof(*s));
		qsort(s, n, sizeof(*s), by_name);
	}
	return s;
}

int pmb__ab_common(char *const *old, size_t nold, char *const *new, size_t nnew,
		   char ***common, size_t *ncommon, struct pmb__ab_notes *notes)
{
	char **so = sorted_copy(old, nold), **sn = sorted_copy(new, nnew);
	char **c = calloc(nold + 1, sizeof(*c));
	size_t k = 0;

	if (!so || !sn || !c)
		goto nomem;
	for (size_t i = 0; i < nold; i++)
		if (listed(sn, nnew, old[i]) && !(c[k++] = strdup(old[i])))
			goto nomem;
	note_only(old, nold, sn, nnew, "only in OLD (removed)", notes);
	note_only(new, nnew, so, nold, "only in NEW (added)", notes);
	free(so);
	free(sn);
	*common = c;
	*ncommon = k;
	return 0;
nomem:
	free(so);
	free(sn);
	pmb__ab_names_free(c, k);
	return -ENOMEM;
}
