/* analysis_verdict.c - the change between two sides of one figure and the one verdict on it that compare, ab and both backends give. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis_verdict.h"
#include "base.h"

/* Bootstrap resamples of a change's interval (compare's and ab's count
 * before they shared it; the run's own figures take 1000). */
#define RESAMPLES 2000

static void change_init(struct pmb_change *c)
{
	*c = (struct pmb_change){ .est = NAN, .lo = NAN, .hi = NAN, .p = NAN, .min_p = NAN };
}

int pmb__change_independent(const double *old, size_t no, const double *new, size_t nn,
			    bool old_resolved, uint64_t seed, struct pmb_change *c)
{
	double mo, mn;
	int rc;

	change_init(c);
	if (no < 2 || nn < 2)
		return -EINVAL;
	mo = pmb__median(old, no);
	mn = pmb__median(new, nn);
	c->ratio = old_resolved && mo > 0;
	c->est = c->ratio ? mn / mo : mn - mo;
	c->p = pmb__mann_whitney(new, nn, old, no, NULL);
	c->min_p = pmb__mann_whitney_min_p(no, nn);
	c->n_old = no;
	c->n_new = nn;
	rc = c->ratio ? pmb__bootstrap_ratio_ci(new, nn, old, no, PMB_CHANGE_CONF, RESAMPLES, seed,
						&c->lo, &c->hi) : -EINVAL;
	/* A resampled old median of 0 leaves no ratio: the difference still
	 * says whether anything moved. */
	if (rc == -EINVAL) {
		c->ratio = false;
		c->est = mn - mo;
		rc = pmb__bootstrap_diff_ci(new, nn, old, no, PMB_CHANGE_CONF, RESAMPLES, seed,
					    &c->lo, &c->hi);
	}
	if (rc)
		c->lo = c->hi = NAN;
	return rc == -ENOMEM ? rc : rc ? -EINVAL : 0;
}

int pmb__change_paired(const double *old, const double *new, size_t n, bool old_resolved,
		       uint64_t seed, struct pmb_change *c)
{
	double *x, *d;
	size_t ranked = 0;
	int rc;

	change_init(c);
	if (n < 2)
		return -EINVAL;
	if (!(x = malloc(2 * n * sizeof(*x))))
		return -ENOMEM;
	d = x + n;
	c->ratio = old_resolved;
	for (size_t i = 0; i < n; i++)
		c->ratio &= old[i] > 0;
	/* The test ranks log ratios: a 2x and a 0.5x are as far from none. */
	for (size_t i = 0; i < n; i++) {
		x[i] = c->ratio ? new[i] / old[i] : new[i] - old[i];
		d[i] = c->ratio ? log(x[i]) : x[i];
	}
	c->est = pmb__median(x, n);
	c->p = pmb__signed_rank(d, n, &ranked);
	c->min_p = pmb__signed_rank_min_p(ranked);
	c->n_old = c->n_new = ranked;
	rc = pmb__bootstrap_median_ci(x, n, PMB_CHANGE_CONF, RESAMPLES, seed, &c->lo, &c->hi);
	free(x);
	if (rc)
		c->lo = c->hi = NAN;
	return rc == -ENOMEM ? rc : rc ? -EINVAL : 0;
}

void pmb__change_exact(double old, double new, struct pmb_change *c)
{
	change_init(c);
	c->exact = true;
	c->ratio = old > 0;
	c->est = c->lo = c->hi = c->ratio ? new / old : new - old;
}

void pmb__change_widen(struct pmb_change *c, double scale, double drift)
{
	if (c->ratio) {
		c->lo /= 1 + drift;
		c->hi *= 1 + drift;
	} else {
		c->lo -= drift * fabs(scale);
		c->hi += drift * fabs(scale);
	}
}

/* Exact counts: the change itself against the threshold. */
static enum pmb_verdict exact(const struct pmb_change *c, double thr)
{
	if (c->ratio)
		return c->est > 1 + thr ? PMB_VERDICT_REGRESSED : c->est < 1 - thr ? PMB_VERDICT_IMPROVED :
		       c->est != 1 ? PMB_VERDICT_BELOW : PMB_VERDICT_NOISE;
	return c->est > 0 ? PMB_VERDICT_REGRESSED : c->est < 0 ? PMB_VERDICT_IMPROVED : PMB_VERDICT_NOISE;
}

/* An interval and a test (or none: the interval alone). */
static enum pmb_verdict judged(const struct pmb_change *c, double thr)
{
	bool sure = isnan(c->p) || c->p < PMB_CHANGE_ALPHA;
	/* "Within noise" only where the interval holds no change (issue 26):
	 * an interval that excludes it with a test that does not agree is
	 * inconclusive, never noise. */
	bool apart = c->ratio ? c->lo > 1 || c->hi < 1 : c->lo > 0 || c->hi < 0;

	if (sure && (c->ratio ? c->lo > 1 + thr : c->lo > 0))
		return PMB_VERDICT_REGRESSED;
	if (sure && (c->ratio ? c->hi < 1 - thr : c->hi < 0))
		return PMB_VERDICT_IMPROVED;
	if (apart && !sure)
		return PMB_VERDICT_INCONCLUSIVE;
	/* A difference (the old median not positive) has no relative
	 * threshold: it is a change or it is noise. */
	if (apart && c->ratio)
		return c->lo >= 1 - thr && c->hi <= 1 + thr ? PMB_VERDICT_BELOW : PMB_VERDICT_ACROSS;
	return PMB_VERDICT_NOISE;
}

static void inconclusive_words(const struct pmb_change *c, char *b, size_t n)
{
	const char *unit = c->unit ? c->unit : "runs";

	if (!(c->min_p >= PMB_CHANGE_ALPHA))
		snprintf(b, n, "inconclusive (the test, p=%.2g, disagrees)", c->p);
	else if (c->n_old == c->n_new)
		snprintf(b, n, "inconclusive (%zu %s a side: too few for the test)", c->n_old, unit);
	else
		snprintf(b, n, "inconclusive (%zu and %zu %s: too few for the test)", c->n_old, c->n_new, unit);
}

enum pmb_verdict pmb__verdict(const struct pmb_change *c, double thr, char *b, size_t n)
{
	enum pmb_verdict v;
	double pct = (c->est - 1) * 100;

	if (c->below_both)
		v = PMB_VERDICT_NOISE; /* zero within what either side resolves */
	else if (!isfinite(c->est) || (!c->exact && !(isfinite(c->lo) && isfinite(c->hi))))
		v = PMB_VERDICT_NONE;
	else
		v = c->exact ? exact(c, thr) : judged(c, thr);
	switch (v) {
	case PMB_VERDICT_REGRESSED: snprintf(b, n, "regressed"); break;
	case PMB_VERDICT_IMPROVED: snprintf(b, n, "improved"); break;
	case PMB_VERDICT_NOISE:
		/* Exact counts that are the same are unchanged; below
		 * resolution on both sides they may differ, within it. */
		snprintf(b, n, c->exact && (!c->below_both || c->est == (c->ratio ? 1 : 0)) ?
			 "unchanged" : "within noise");
		break;
	case PMB_VERDICT_BELOW:
		if (!c->ratio)
			snprintf(b, n, "below the threshold (diff %+.3g)", c->est);
		else
			snprintf(b, n, fabs(pct) >= 0.1 ? "below the threshold (%+.1f %%)" :
				 "below the threshold (%+.2g %%)", pct);
		break;
	case PMB_VERDICT_ACROSS: snprintf(b, n, "not told from the threshold (%+.1f %%)", pct); break;
	case PMB_VERDICT_INCONCLUSIVE: inconclusive_words(c, b, n); break;
	default: snprintf(b, n, "-"); break;
	}
	return v;
}
