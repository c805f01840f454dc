/* ab_verdict.c - `pmubench ab`'s rounds judged: their paired change and verdict (analysis_verdict.c, as compare's), and the table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_internal.h"
#include "compare.h"
#include "base.h"

int pmb__ab_series_push(struct pmb__ab_series *s, double old, double new)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 64;
		double *o = realloc(s->old, nc * sizeof(*o)), *n;

		if (!o)
			return -ENOMEM;
		s->old = o;
		n = realloc(s->new, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->new = n;
		s->cap = nc;
	}
	s->old[s->n] = old;
	s->new[s->n++] = new;
	return 0;
}

static double median_of(const double *x, size_t n)
{
	return n ? pmb__median(x, n) : NAN;
}

void pmb__ab_judge(const struct pmb__ab_series *s, double thr, bool exact,
		   uint64_t seed, struct pmb__ab_verdict *v)
{
	*v = (struct pmb__ab_verdict){ .v = PMB_VERDICT_NONE, .halfwidth = NAN };
	v->c = (struct pmb_change){ .est = NAN, .lo = NAN, .hi = NAN, .p = NAN, .min_p = NAN };
	v->old = median_of(s->old, s->n);
	v->new = median_of(s->new, s->n);
	if (!s->n) {
		v->why = "not measured";
	} else if (!s->resolved) {
		/* Zero within what either side resolves: no change to see. */
		v->why = "both below resolution";
		v->below_both = v->c.below_both = true;
	} else if (exact) {
		/* Simulated counts are exact: the last round's ratio (or
		 * difference where OLD counted none) is the change. */
		pmb__change_exact(s->old[s->n - 1], s->new[s->n - 1], &v->c);
		v->halfwidth = 0;
	} else if (s->n < 2) {
		v->why = "one round";
	} else if (pmb__change_paired(s->old, s->new, s->n, s->old_resolved, seed, &v->c)) {
		v->why = "no interval";
	} else if (v->c.ratio) {
		v->halfwidth = fmax(v->c.est - v->c.lo, v->c.hi - v->c.est) / v->c.est;
	}
	/* The words compare gives the same change (analysis_verdict.c). */
	if (v->why && !v->below_both)
		snprintf(v->word, sizeof(v->word), "-");
	else
		v->v = pmb__verdict(&v->c, thr, v->word, sizeof(v->word));
}

/* The cells of one row. */
static void row(struct pmb__table *t, const struct pmb__ab_series *s,
		const struct pmb__ab_verdict *v, bool exact)
{
	char old[32], new[32], ratio[32] = "-", ci[64], p[32] = "-";

	pmb__compare_fmt_value(old, sizeof(old), v->old);
	pmb__compare_fmt_value(new, sizeof(new), v->new);
	if (v->why)
		snprintf(ci, sizeof(ci), "%s", v->why);
	else if (exact)
		snprintf(ci, sizeof(ci), "exact (simulated)");
	else if (v->c.ratio)
		snprintf(ci, sizeof(ci), "[%.3f, %.3f]", v->c.lo, v->c.hi);
	else
		snprintf(ci, sizeof(ci), "diff [%+.3g, %+.3g]", v->c.lo, v->c.hi);
	if (!v->why && v->c.ratio)
		snprintf(ratio, sizeof(ratio), exact ? "%.6g" : "%.3f", v->c.est);
	if (!isnan(v->c.p))
		snprintf(p, sizeof(p), v->c.p < 1e-4 ? "<0.0001" : "%.4f", v->c.p);
	if (pmb__table_add_row(t))
		return;
	pmb__table_set(t, 0, "%s", s->bench);
	pmb__table_set(t, 1, "%s", s->key);
	pmb__table_set(t, 2, "%s", old);
	pmb__table_set(t, 3, "%s", new);
	pmb__table_set(t, 4, "%s", ratio);
	pmb__table_set(t, 5, "%s", ci);
	pmb__table_set(t, 6, "%s", p);
	pmb__table_set(t, 7, "%s", v->word);
}

int pmb__ab_table(const struct pmb__ab_series *s, const struct pmb__ab_verdict *v,
		  size_t n, bool exact, struct pmb__table *t)
{
	static const char *const head[] = { "benchmark", "figure", "old", "new", "new/old",
					    "95% CI", "p", "verdict" };
	static const bool left[] = { true, true, false, false, false, true, false, true };

	t->ncol = 8;
	memcpy(t->left, left, sizeof(left));
	if (pmb__table_add_row(t))
		return t->err;
	for (int i = 0; i < 8; i++)
		pmb__table_set(t, i, "%s", head[i]);
	for (size_t i = 0; i < n && !t->err; i++)
		if (!v[i].below_both)
			row(t, &s[i], &v[i], exact);
	return t->err;
}

/* Benchmarks named in the line below the table, past which it counts. */
#define BELOW_NAMED 3

void pmb__ab_below(FILE *out, const struct pmb__ab_series *s, const struct pmb__ab_verdict *v, size_t n)
{
	const char *sep = "below resolution on both sides (no change to see), not in the table: ";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool any = false;

	for (size_t i = 0; f && i < n; i++) {
		size_t count = 0, named = 0;
		bool first = true;

		if (!v[i].below_both)
			continue;
		/* Each figure once, at its first series. */
		for (size_t j = 0; j < i && first; j++)
			first = !(v[j].below_both && !strcmp(s[j].key, s[i].key));
		if (!first)
			continue;
		for (size_t j = i; j < n; j++)
			count += v[j].below_both && !strcmp(s[j].key, s[i].key);
		fprintf(f, "%s%s in ", sep, s[i].key);
		sep = "; ";
		any = true;
		if (count > BELOW_NAMED) {
			fprintf(f, "%zu benchmarks", count);
			continue;
		}
		for (size_t j = i; j < n; j++)
			if (v[j].below_both && !strcmp(s[j].key, s[i].key))
				fprintf(f, "%s%s", named++ ? ", " : "", s[j].bench);
	}
	/* Wrapped to the terminal as the console report is (the table rows
	 * above are not: a row a line). */
	if (f && !fclose(f) && any)
		pmb__wrap(out, text, 0, 2, (size_t)pmb__out_width(NULL));
	free(text);
}
