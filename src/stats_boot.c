/* stats_boot.c - bootstrap confidence intervals of a median, and of a ratio or difference of two. */
#include "stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One sample prepared for resampling: sorted once, so that the median of a
 * resample is found from how often each sorted index was drawn, O(n) per
 * resample with no selection and no copying. */
struct boot {
	double *sorted;
	uint32_t *count;
	size_t n;
};

static int boot_init(struct boot *b, const double *x, size_t n)
{
	b->n = n;
	b->sorted = malloc(n * sizeof(*b->sorted));
	b->count = malloc(n * sizeof(*b->count));
	if (!b->sorted || !b->count) {
		free(b->sorted);
		free(b->count);
		return -ENOMEM;
	}
	memcpy(b->sorted, x, n * sizeof(*x));
	pmb__sort(b->sorted, n);
	return 0;
}

static void boot_free(struct boot *b)
{
	free(b->sorted);
	free(b->count);
}

/* Median (type 7) of one resample of b. */
static double boot_median(struct boot *b, struct pmb_rng *r)
{
	size_t n = b->n, k1 = (n - 1) / 2, k2 = n / 2, seen = 0, i = 0;
	double lo;

	memset(b->count, 0, n * sizeof(*b->count));
	for (size_t d = 0; d < n; d++)
		b->count[pmb_rng_below(r, n)]++;
	while (seen + b->count[i] <= k1)
		seen += b->count[i++];
	lo = b->sorted[i];
	while (seen + b->count[i] <= k2)
		seen += b->count[i++];
	return lo + 0.5 * (b->sorted[i] - lo);
}

enum boot_kind { BOOT_ONE, BOOT_RATIO, BOOT_DIFF };

/* Whether the arguments make sense: x (and y, unless kind is BOOT_ONE) of
 * 1 .. UINT32_MAX values, somewhere to put the interval, at least one
 * resample, a confidence strictly between 0 and 1. */
static bool boot_args_ok(enum boot_kind kind, const double *x, size_t nx,
			 const double *y, size_t ny, double conf,
			 int resamples, const double *lo, const double *hi)
{
	if (!x || nx == 0 || nx > UINT32_MAX || !lo || !hi || resamples < 1 ||
	    !(conf > 0 && conf < 1))
		return false;
	return kind == BOOT_ONE || (y && ny != 0 && ny <= UINT32_MAX);
}

/* The statistic of each of `resamples` resamples into est: the median of
 * x's, or its ratio to (difference from) the median of y's, the two drawn
 * in turn from one stream.  Returns 0, or -EINVAL where a resample of y
 * has a median of zero (no ratio). */
static int boot_estimates(enum boot_kind kind, struct boot *bx,
			  struct boot *by, int resamples, uint64_t seed,
			  double *est)
{
	struct pmb_rng rng;

	pmb_rng_seed(&rng, seed);
	for (int k = 0; k < resamples; k++) {
		double mx = boot_median(bx, &rng), my;

		if (kind == BOOT_ONE) {
			est[k] = mx;
			continue;
		}
		my = boot_median(by, &rng);
		if (kind == BOOT_DIFF)
			est[k] = mx - my;
		else if (my == 0)
			return -EINVAL;
		else
			est[k] = mx / my;
	}
	return 0;
}

static int bootstrap(enum boot_kind kind, const double *x, size_t nx,
		     const double *y, size_t ny, double conf, int resamples,
		     uint64_t seed, double *lo, double *hi)
{
	struct boot bx, by = { 0 };
	double *est;
	int err;

	if (!boot_args_ok(kind, x, nx, y, ny, conf, resamples, lo, hi))
		return -EINVAL;
	est = malloc((size_t)resamples * sizeof(*est));
	if (!est)
		return -ENOMEM;
	err = boot_init(&bx, x, nx);
	if (err)
		goto fail_bx;
	if (kind != BOOT_ONE) {
		err = boot_init(&by, y, ny);
		if (err)
			goto fail_by;
	}
	err = boot_estimates(kind, &bx, &by, resamples, seed, est);
	if (err)
		goto fail_zero;
	pmb__sort(est, (size_t)resamples);
	*lo = pmb__quantile_sorted(est, (size_t)resamples, (1 - conf) / 2);
	*hi = pmb__quantile_sorted(est, (size_t)resamples, (1 + conf) / 2);
fail_zero:
	if (kind != BOOT_ONE)
		boot_free(&by);
fail_by:
	boot_free(&bx);
fail_bx:
	free(est);
	return err;
}

int pmb__bootstrap_median_ci(const double *x, size_t n, double conf,
			    int resamples, uint64_t seed, double *lo, double *hi)
{
	return bootstrap(BOOT_ONE, x, n, NULL, 0, conf, resamples, seed, lo, hi);
}

int pmb__bootstrap_ratio_ci(const double *x, size_t nx, const double *y,
			   size_t ny, double conf, int resamples, uint64_t seed,
			   double *lo, double *hi)
{
	return bootstrap(BOOT_RATIO, x, nx, y, ny, conf, resamples, seed, lo,
			 hi);
}

int pmb__bootstrap_diff_ci(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, int resamples, uint64_t seed,
			  double *lo, double *hi)
{
	return bootstrap(BOOT_DIFF, x, nx, y, ny, conf, resamples, seed, lo, hi);
}
