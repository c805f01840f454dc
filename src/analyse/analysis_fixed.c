/* analysis_fixed.c - the fixed cost per sample (a of cost = a + b * passes): estimated, its interval, its share, the flag. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base.h"

#define CONF 0.95
/* Fewer resamples than the medians' 1000: each recomputes an estimate over
 * the whole ladder, and the interval only has to say whether the fixed
 * cost is told apart from zero. */
#define FIXED_RESAMPLES 200
#define FIXED_SEED 0xf1a3du

/* The seed's two-point check (Swift benchmark suite), i = 1 and j = 2 in
 * its terms: the shortest samples (the fixed-cost probes, an eighth of
 * the calibrated passes, where there are any; else the ladder's 1x) against
 * the next length up (within 15 %, the ladder's random stretch); of each,
 * the fastest per pass, then a = i * j * (t_i - t_j) / (j - i) with each
 * one's own pass count (the nominal counts, off by up to the stretch, made
 * -11 % of a true 200 us).  Interference only ever adds time, so the
 * fastest sample at each end is the one least disturbed; but a long
 * sample cannot escape it all, and what its fastest still carries reads
 * as a smaller a, i/(j - i) of it.  Probes against the ladder's 4x (1/31
 * of a 4x sample's disturbance) read a 1 ms busy wait -11 % with another
 * process on the core; against the 1x (1/7 of a 1x sample's) within 1 %.
 * NAN where there is no second length 1.5x the first. */
static double two_point(const double *p, const double *cost, size_t n)
{
	double pmin = INFINITY, pj = INFINITY, i = 0, j = 0, ti = INFINITY, tj = INFINITY;

	for (size_t k = 0; k < n; k++)
		pmin = fmin(pmin, p[k]);
	for (size_t k = 0; k < n; k++)
		if (p[k] >= pmin * 1.5)
			pj = fmin(pj, p[k]);
	for (size_t k = 0; k < n; k++) {
		if (p[k] < pmin * 1.15 && cost[k] / p[k] < ti)
			ti = cost[k] / p[k], i = p[k];
		if (p[k] >= pj && p[k] < pj * 1.15 && cost[k] / p[k] < tj)
			tj = cost[k] / p[k], j = p[k];
	}
	if (!isfinite(pj) || !isfinite(ti) || !isfinite(tj))
		return NAN;
	return pmb__setup_two_point(i, ti, j, tj);
}

/* The robust fit's intercept (Theil-Sen), for comparison; NAN where no
 * line can be fitted. */
static double robust_fit(const double *p, const double *cost, size_t n)
{
	struct pmb_fit fit;

	return pmb__fit_line(p, cost, n, &fit) == 0 ? fit.ts_a : NAN;
}

/* Percentile interval of the two-point estimate over resamples of the
 * samples (p, cost) drawn together: the first n ladder samples from the
 * ladder, the nprobe probes after them from the probes (each resample
 * keeps both lengths).  NAN where fewer than half the resamples give an
 * estimate. */
static void two_point_ci(const double *p, const double *cost, size_t n, size_t nprobe, double *lo,
			 double *hi)
{
	size_t all = n + nprobe;
	double *rp = malloc(all * sizeof(double)), *rc = malloc(all * sizeof(double));
	double *est = malloc(FIXED_RESAMPLES * sizeof(double));
	struct pmb_rng rng;
	size_t m = 0;

	*lo = *hi = NAN;
	if (!rp || !rc || !est)
		goto out;
	pmb_rng_seed(&rng, FIXED_SEED);
	for (int k = 0; k < FIXED_RESAMPLES; k++) {
		for (size_t i = 0; i < all; i++) {
			size_t d = i < n ? (size_t)pmb_rng_below(&rng, n) : n + (size_t)pmb_rng_below(&rng, nprobe);

			rp[i] = p[d], rc[i] = cost[d];
		}
		double a = two_point(rp, rc, all);
		if (isfinite(a))
			est[m++] = a;
	}
	if (m < FIXED_RESAMPLES / 2)
		goto out;
	pmb__sort(est, m);
	*lo = pmb__quantile_sorted(est, m, (1 - CONF) / 2);
	*hi = pmb__quantile_sorted(est, m, (1 + CONF) / 2);
out:
	free(rp);
	free(rc);
	free(est);
}

/* Exact counts (the simulator): every sample is a + b * passes exactly,
 * so two pass counts give a; the interval is the spread of the estimates
 * from every pair of distinct pass counts (zero width on exact data). */
static void fixed_exact(struct pmb_figure *f, const double *p, const double *cost, size_t n)
{
	f->fixed_lo = INFINITY, f->fixed_hi = -INFINITY;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (!(p[j] > p[i]))
				continue;
			double a = pmb__setup_two_point(p[i], cost[i] / p[i], p[j], cost[j] / p[j]);

			f->fixed_lo = fmin(f->fixed_lo, a);
			f->fixed_hi = fmax(f->fixed_hi, a);
		}
	if (!isfinite(f->fixed_lo)) {
		f->fixed_lo = f->fixed_hi = NAN;
		return;
	}
	f->fixed_two_point = (f->fixed_lo + f->fixed_hi) / 2;
}

void pmb__fixed_cost(struct pmb_figure *f, const double *p, const double *cost, size_t n, size_t nprobe,
		     bool exact, double floor)
{
	size_t all = n + nprobe;
	double typical;

	f->fixed = f->fixed_share = 0;
	f->fixed_two_point = f->fixed_fit = f->fixed_lo = f->fixed_hi = f->fixed_share_hi = NAN;
	f->fixed_flagged = false;
	if (n < 2 || (!exact && n < 3))
		return;
	/* The share is of a sample of the ladder: the probes are short on
	 * purpose (with them in the median, a 4 MiB memset's share read
	 * 0.066 for 0.053). */
	typical = pmb__median(cost, n);
	if (exact) {
		fixed_exact(f, p, cost, all);
	} else {
		f->fixed_two_point = two_point(p, cost, all);
		f->fixed_fit = robust_fit(p, cost, all);
		two_point_ci(p, cost, n, nprobe, &f->fixed_lo, &f->fixed_hi);
	}
	if (isfinite(f->fixed_hi) && typical > 0)
		f->fixed_share_hi = fmax(f->fixed_hi, 0) / typical;
	/* Resolved: the interval lies above zero and the estimate above what
	 * the meter resolves in a sample (floor).  Otherwise no fixed cost is
	 * claimed: noise on a figure near zero made shares of -70 % and
	 * "fixed" costs of milliseconds for the empty loop. */
	if (!isfinite(f->fixed_two_point) || !(f->fixed_lo > 0) || !(f->fixed_two_point > floor) ||
	    !(typical > 0))
		return;
	f->fixed = f->fixed_two_point;
	f->fixed_share = fmin(f->fixed / typical, 1);
	/* Fewer than 10 samples of the ladder (probes not counted) on a noisy
	 * machine fit any line: flag nothing there; exact counts need two. */
	f->fixed_flagged = f->fixed_share >= PMB_FIXED_SHARE && (exact || n >= 10);
}
