/* ab_verdict.c - `pmubench ab`'s paired statistics: per-round ratios, their bootstrap interval, the signed-rank test, the verdict and its table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_internal.h"
#include "compare.h"
#include "base.h"

#define CONF 0.95
#define RESAMPLES 2000
/* The paired test must agree with the interval: both beyond the threshold
 * and a signed-rank p below this. */
#define ALPHA 0.05

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

/* Simulated counts are exact: the last round's ratio (or difference where
 * OLD counted none) is the change, with no interval. */
static void judge_exact(const struct pmb__ab_series *s, double thr, struct pmb__ab_verdict *v)
{
	int c = pmb__compare_exact(s->old[s->n - 1], s->new[s->n - 1], thr, &v->est, &v->ratio);

	v->lo = v->hi = v->est;
	v->halfwidth = 0;
	v->v = c > 0 ? PMB_AB_REGRESSED : c < 0 ? PMB_AB_IMPROVED :
	       v->est != (v->ratio ? 1 : 0) ? PMB_AB_BELOW : PMB_AB_NOISE;
}

/* d[i]: the round's log ratio (ratios) or difference; x[i]: the ratio or
 * difference itself. */
static void paired(const struct pmb__ab_series *s, bool ratio, double *x, double *d)
{
	for (size_t i = 0; i < s->n; i++) {
		x[i] = ratio ? s->new[i] / s->old[i] : s->new[i] - s->old[i];
		d[i] = ratio ? log(x[i]) : x[i];
	}
}

/* The median of the per-round ratios (or differences), its interval and
 * the signed-rank test; the verdict only where both agree. */
static void judge_paired(const struct pmb__ab_series *s, double thr, uint64_t seed,
			 struct pmb__ab_verdict *v)
{
	double *x = malloc(2 * s->n * sizeof(*x)), *d = x + s->n;
	bool sure, apart;

	v->ratio = true;
	for (size_t i = 0; i < s->n; i++)
		v->ratio &= s->old[i] > 0;
	if (!x || pmb__bootstrap_median_ci((paired(s, v->ratio, x, d), x), s->n, CONF,
					   RESAMPLES, seed, &v->lo, &v->hi)) {
		v->why = "no interval";
		free(x);
		return;
	}
	v->est = pmb__median(x, s->n);
	v->p = pmb__signed_rank(d, s->n, &v->ranked);
	v->testable = pmb__signed_rank_min_p(v->ranked) < ALPHA;
	free(x);
	sure = v->p < ALPHA;
	/* "Within noise" only where the interval holds no change: an
	 * interval that excludes it with a test that does not agree (issue
	 * 26: 1.255 [1.131, 1.333] at p = 0.12 over 5 rounds, where no p
	 * under 0.059 exists) is inconclusive, never noise. */
	apart = v->ratio ? v->lo > 1 || v->hi < 1 : v->lo > 0 || v->hi < 0;
	if (v->ratio) {
		v->halfwidth = fmax(v->est - v->lo, v->hi - v->est) / v->est;
		v->v = sure && v->lo > 1 + thr ? PMB_AB_REGRESSED :
		       sure && v->hi < 1 - thr ? PMB_AB_IMPROVED :
		       sure && apart && v->lo >= 1 - thr && v->hi <= 1 + thr ? PMB_AB_BELOW :
		       sure && apart ? PMB_AB_ACROSS : PMB_AB_NOISE;
	} else {
		v->v = sure && v->lo > 0 ? PMB_AB_REGRESSED :
		       sure && v->hi < 0 ? PMB_AB_IMPROVED : PMB_AB_NOISE;
	}
	if (apart && !sure)
		v->v = PMB_AB_INCONCLUSIVE;
}

void pmb__ab_judge(const struct pmb__ab_series *s, double thr, bool exact,
		   uint64_t seed, struct pmb__ab_verdict *v)
{
	*v = (struct pmb__ab_verdict){ .v = PMB_AB_NONE, .est = NAN, .lo = NAN, .hi = NAN,
				       .p = NAN, .halfwidth = NAN };
	v->old = median_of(s->old, s->n);
	v->new = median_of(s->new, s->n);
	if (!s->n) {
		v->why = "not measured";
	} else if (!s->resolved) {
		/* Zero within what either side resolves: no change to see. */
		v->v = PMB_AB_NOISE;
		v->why = "both below resolution";
		v->below_both = true;
	} else if (exact) {
		judge_exact(s, thr, v);
	} else if (s->n < 2) {
		v->why = "one round";
	} else {
		judge_paired(s, thr, seed, v);
	}
}

/* compare's words (compare.h): "within noise" only where the interval
 * holds no change; a real change under the threshold says its size. */
static const char *verdict_word(const struct pmb__ab_verdict *v, bool exact, char *b, size_t n)
{
	switch (v->v) {
	case PMB_AB_REGRESSED: return "regressed";
	case PMB_AB_IMPROVED: return "improved";
	case PMB_AB_BELOW:
		pmb__compare_below(b, n, v->est, v->ratio);
		return b;
	case PMB_AB_NOISE:
		return exact && !v->why ? "unchanged" : "within noise";
	case PMB_AB_ACROSS:
		pmb__compare_across(b, n, v->est);
		return b;
	case PMB_AB_INCONCLUSIVE:
		if (!v->testable)
			snprintf(b, n, "inconclusive (%zu rounds: too few for the test)", v->ranked);
		else
			snprintf(b, n, "inconclusive (the test, p=%.2g, disagrees)", v->p);
		return b;
	default: return "-";
	}
}

/* The cells of one row. */
static void row(struct pmb__table *t, const struct pmb__ab_series *s,
		const struct pmb__ab_verdict *v, bool exact)
{
	char old[32], new[32], ratio[32] = "-", ci[64], p[32] = "-", word[64];

	pmb__compare_fmt_value(old, sizeof(old), v->old);
	pmb__compare_fmt_value(new, sizeof(new), v->new);
	if (v->why)
		snprintf(ci, sizeof(ci), "%s", v->why);
	else if (exact)
		snprintf(ci, sizeof(ci), "exact (simulated)");
	else if (v->ratio)
		snprintf(ci, sizeof(ci), "[%.3f, %.3f]", v->lo, v->hi);
	else
		snprintf(ci, sizeof(ci), "diff [%+.3g, %+.3g]", v->lo, v->hi);
	if (!v->why && v->ratio)
		snprintf(ratio, sizeof(ratio), exact ? "%.6g" : "%.3f", v->est);
	if (!isnan(v->p))
		snprintf(p, sizeof(p), v->p < 1e-4 ? "<0.0001" : "%.4f", v->p);
	if (pmb__table_add_row(t))
		return;
	pmb__table_set(t, 0, "%s", s->bench);
	pmb__table_set(t, 1, "%s", s->key);
	pmb__table_set(t, 2, "%s", old);
	pmb__table_set(t, 3, "%s", new);
	pmb__table_set(t, 4, "%s", ratio);
	pmb__table_set(t, 5, "%s", ci);
	pmb__table_set(t, 6, "%s", p);
	pmb__table_set(t, 7, "%s", verdict_word(v, exact, word, sizeof(word)));
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
