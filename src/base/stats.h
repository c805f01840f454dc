/* stats.h - pure statistics on sample vectors: no I/O, no global state. */
#ifndef PMB_STATS_H
#define PMB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h" /* the generator the bootstrap draws from */

/* Inputs are finite (no NaN).  Functions returning a double return 0 for
 * n == 0 rather than NaN.  Sort a copy elsewhere; these take sorted input
 * where named so; the others leave x untouched. */
void pmb__sort(double *x, size_t n); /* ascending, in place */
/* Type 7 (R's default, numpy's linear): q clamped to [0, 1]. */
double pmb__quantile_sorted(const double *sorted, size_t n, double q);
/* Median of x in any order, by quickselect on a copy: O(n). */
double pmb__median(const double *x, size_t n);
double pmb__mean(const double *x, size_t n);
double pmb__stddev(const double *x, size_t n); /* sample (n-1); 0 if n < 2 */
/* Median absolute percentage error: median of |x_i - m| / |m| * 100 where m
 * is the median.  0 when that median deviation is 0 (all-equal data); +inf
 * when m == 0 but the deviations are not (a percentage of nothing). */
double pmb__mdape(const double *x, size_t n);

/* Tukey fences on type 7 quartiles: mild strictly beyond 1.5 IQR, severe
 * strictly beyond 3 IQR (severe ones are counted in severe only).  n == 0
 * gives all zeros. */
struct pmb_tukey {
	double q1, q3;
	int mild_low, mild_high, severe_low, severe_high;
};
void pmb__tukey(const double *x, size_t n, struct pmb_tukey *t);

/* Percentile bootstrap confidence interval of the median (conf e.g. 0.95,
 * `resamples` e.g. 1000, deterministic for a seed): the (1 - conf) / 2 and
 * (1 + conf) / 2 type 7 quantiles of the resampled medians.  The sample is
 * sorted once; each resample then costs O(n), found from how often each
 * sorted index was drawn.  n == 1 or all-equal data give [x, x].
 * Returns 0, -EINVAL (n == 0, conf outside (0, 1), resamples < 1, NULL) or
 * -ENOMEM. */
int pmb__bootstrap_median_ci(const double *x, size_t n, double conf,
			    int resamples, uint64_t seed, double *lo, double *hi);
/* Percentile bootstrap CI of median(x) / median(y), x and y resampled
 * independently. -EINVAL if a resampled median of y is 0. */
int pmb__bootstrap_ratio_ci(const double *x, size_t nx, const double *y,
			   size_t ny, double conf, int resamples, uint64_t seed,
			   double *lo, double *hi);
/* Same for median(x) - median(y). */
int pmb__bootstrap_diff_ci(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, int resamples, uint64_t seed,
			  double *lo, double *hi);

/* Samples linked by subtraction and division: the statistic is
 * (median(x[0]) - median(x[1])) / (median(x[2]) - median(x[3])), where an
 * absent x[1] or x[3] (NULL) counts as 0 and an absent x[2] as 1 (so
 * x[0] less x[1] alone is a difference).  Samples as long as x[0] are
 * resampled with x[0]'s indices, the others on their own: a benchmark and
 * its baseline, measured interleaved, vary together. */
struct pmb_linked {
	const double *x[4];
	size_t n[4];
};
/* Percentile bootstrap CI of that statistic.  Returns 0, -EINVAL (x[0]
 * NULL, an empty sample, conf outside (0, 1), resamples < 1), -EDOM where
 * x[2] is given and the lower (1 - conf) / 2 quantile of the resampled
 * denominators is not above 0 (the ratio is not resolved), or -ENOMEM. */
int pmb__bootstrap_linked_ci(const struct pmb_linked *s, double conf, int resamples, uint64_t seed,
			     double *lo, double *hi);

/* y = a + b x.  Returns 0, -EINVAL (n < 2, all x equal, NULL) or -ENOMEM.
 * Theil-Sen skips pairs with equal x (ladders repeat pass counts) and
 * beyond 2^18 pairs uses a fixed-seed random sample of pairs. */
struct pmb_fit {
	double a, b;     /* ordinary least squares */
	double r2;
	double ts_a, ts_b; /* Theil-Sen: median of pairwise slopes, then median
	                      intercept: robust check of a and b */
};
int pmb__fit_line(const double *x, const double *y, size_t n, struct pmb_fit *f);

/* Fixed cost from two points (i passes took ti, j passes took tj, where ti
 * and tj are per-pass costs): i*j*(ti - tj)/(j - i), exact for a cost of
 * a + b * passes.  0 when i == j. */
double pmb__setup_two_point(double i, double ti, double j, double tj);

/* The distribution-free 95 % interval of the median from the order
 * statistics of sorted[0..n): ranks n/2 -+ 0.98 sqrt(n) (the binomial's
 * normal approximation, widened to whole ranks); no resampling, so cheap
 * enough to ask between samples.  n == 0: [0, 0]. */
void pmb__median_ci_ranks(const double *sorted, size_t n, double *lo, double *hi);

/* Mann-Whitney U test, two-sided, normal approximation with tie and
 * continuity correction (exact for nx, ny <= 10 without ties).  U of x
 * counts the pairs with x_i > y_j, ties one half; it is stored in *u if
 * non-NULL.  Returns the p-value in [0, 1]; 1 when a sample is empty or
 * every value is equal; NAN when a value is NaN (it has no rank). */
double pmb__mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			double *u);

/* The smallest p pmb__mann_whitney can return for nx and ny values: the
 * two wholly apart, no ties (3 and 3: 0.10; 4 and 4: 0.029).  A test whose
 * smallest p is not below its alpha cannot find any change. */
double pmb__mann_whitney_min_p(size_t nx, size_t ny);

/* Wilcoxon's signed-rank test of paired differences d[0..n) against a
 * centre of 0, two-sided: zeros (and NANs) dropped, tied |d| given their
 * mean rank, the normal approximation with tie and continuity correction
 * (for the 10 or more pairs `pmubench ab` has; below about 10 it is
 * approximate).  *used (if non-NULL): the differences ranked.  Returns the
 * p-value in [0, 1]; 1 when no difference is non-zero or d is empty, or
 * memory is short. */
double pmb__signed_rank(const double *d, size_t n, size_t *used);
/* The smallest p pmb__signed_rank can return for m non-zero differences:
 * all of one sign, no ties (m = 4: 0.10, 5: 0.059, 6: 0.036).  A test
 * whose smallest p is not below its alpha cannot find any change. */
double pmb__signed_rank_min_p(size_t m);

/* Whether the samples fall in separate clusters.  Over the gaps of the
 * sorted data that leave m = max(3, ceil(n / 10)) values or more on each
 * side, take the gap widest relative to the spread (range) of the m values
 * next to it on either side; the sample is multimodal when that gap is more
 * than 6 times the wider of those spreads, more than 20 times the median
 * spacing between neighbours in the same range, and more than 0.1 % of
 * max |x| (finer steps are rounding, not structure).  Overlapping modes
 * without an empty gap are not detected.  n < 10: false. */
bool pmb__multimodal(const double *x, size_t n);

/* Everything reported about one figure: median, mean, min, max, stddev,
 * mdape, Tukey and multimodal as above; ci from pmb__bootstrap_median_ci()
 * with conf 0.95, 1000 resamples and `seed`.  Returns 0, -EINVAL (n == 0,
 * NULL) or -ENOMEM. */
struct pmb_summary {
	size_t n;
	double median, mean, min, max, stddev, mdape;
	double ci_lo, ci_hi; /* 95 % bootstrap CI of the median */
	struct pmb_tukey tukey;
	bool multimodal;
};
int pmb__summarize(const double *x, size_t n, uint64_t seed,
		  struct pmb_summary *s);

/* The seed the analysis summarizes every figure with: fixed, so the same
 * samples give the same intervals, and shared with the runner, whose stop
 * for precision asks for the interval the analysis will print. */
#define PMB_SUMMARY_SEED 0x70b1u

/* The interval pmb__summarize gives the median of x[0..n) (its ci_lo and
 * ci_hi, the same arithmetic), without the rest of the summary.  Returns
 * as pmb__bootstrap_median_ci. */
int pmb__summary_ci(const double *x, size_t n, uint64_t seed, double *lo, double *hi);

#endif
