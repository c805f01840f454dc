/* analysis_verdict.h - the change between two sides of one figure (its estimate, interval and test) and the one verdict compare and ab give it. */
#ifndef PMB_ANALYSIS_VERDICT_H
#define PMB_ANALYSIS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The interval's confidence, and the p under which the test agrees that
 * there is a change: one pair for compare, ab and both backends. */
#define PMB_CHANGE_CONF 0.95
#define PMB_CHANGE_ALPHA 0.05

/* What is known of the change from old to new of one figure. */
struct pmb_change {
	bool ratio;          /* est, lo, hi: new/old; else new - old (old not positive) */
	bool exact;          /* simulated counts: est is the change, no interval, no test */
	bool below_both;     /* neither side resolves the figure: zero within both */
	double est, lo, hi;  /* the estimate and its 95 % interval (NAN: none) */
	double p;            /* the test's p (NAN: no test, the interval alone decides) */
	double min_p;        /* the smallest p the test can give at these sizes */
	size_t n_old, n_new; /* what the test ranked on each side */
	const char *unit;    /* what n_old and n_new count: "runs" (NULL; ab's
	                        rounds are runs of each side), "samples" */
};

/* The verdicts, as the last line of compare and ab counts them. */
enum pmb_verdict {
	PMB_VERDICT_NOISE,        /* the interval holds no change (exact: none) */
	PMB_VERDICT_IMPROVED,     /* beyond the threshold, the test agrees */
	PMB_VERDICT_REGRESSED,
	PMB_VERDICT_NONE,         /* nothing to judge: "-" */
	PMB_VERDICT_BELOW,        /* real, its interval within the threshold */
	PMB_VERDICT_INCONCLUSIVE, /* interval and test disagree, or too few */
	PMB_VERDICT_ACROSS,       /* real, its interval holds the threshold */
	PMB_VERDICT_COUNT
};

/* Medians of independent samples old[0..no) and new[0..nn) (a file's
 * runs, or one run's per-item samples): est their ratio new/old (their
 * difference where the old median is not positive, or where old_resolved
 * is false: the old figure is below its resolution, zero within it, and
 * the run's analysis gives no ratio to it either), [lo, hi] its
 * bootstrap interval (resampling each side on its own), p Mann-Whitney's
 * U (the difference too where a resampled old median is 0 and leaves
 * no ratio).  seed: the bootstrap's.  Returns 0; -EINVAL with fewer than two
 * values on a side or no interval (c->est and c->p still set); -ENOMEM. */
int pmb__change_independent(const double *old, size_t no, const double *new, size_t nn,
			    bool old_resolved, uint64_t seed, struct pmb_change *c);

/* Paired values old[i], new[i] (ab's rounds: both sides run in each):
 * est the median of the per-pair ratios (differences, where an old value
 * is not positive or old_resolved is false, as above), [lo, hi] its bootstrap interval, p the signed-rank
 * test of their logs (of the differences).  Returns 0; -EINVAL (fewer
 * than two pairs, no interval); -ENOMEM. */
int pmb__change_paired(const double *old, const double *new, size_t n, bool old_resolved,
		       uint64_t seed, struct pmb_change *c);

/* Exact counts old and new (simulated): the ratio (difference where old
 * is not positive) is the change, with no interval and no test. */
void pmb__change_exact(double old, double new, struct pmb_change *c);

/* Widen c's interval by a drift between runs that could not be measured
 * (a fraction): a ratio's [lo, hi] to [lo / (1 + drift), hi * (1 + drift)],
 * a difference's by drift * |scale| each way. */
void pmb__change_widen(struct pmb_change *c, double scale, double drift);

/* The verdict on c at threshold thr (a fraction), and its words into
 * b[0..n) ("-" for none): improved or regressed only where the interval
 * lies beyond the threshold and the test agrees (p < alpha; without a
 * test, the interval alone); "within noise" only where the interval holds
 * no change ("unchanged": exact counts that are equal); "below the
 * threshold (+0.6 %)" a real change whose interval lies within the
 * threshold; "not told from the threshold (+2.1 %)" a real one whose
 * interval holds the threshold; "inconclusive (...)" where the interval
 * excludes no change but the test does not agree: too few runs for it
 * to reach alpha at all, or its p. */
enum pmb_verdict pmb__verdict(const struct pmb_change *c, double thr, char *b, size_t n);

#endif
