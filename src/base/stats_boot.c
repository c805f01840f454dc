/* stats_boot.c - bootstrap confidence intervals of a median, and of a ratio or difference of two. */
#include "stats.h"

#include <errno.h>
#include <math.h>
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

/* Median (type 7) of the resample whose draws b->count holds (how often
 * each of b->sorted was drawn). */
static double counted_median(const struct boot *b)
{
	size_t n = b->n, k1 = (n - 1) / 2, k2 = n / 2, seen = 0, i = 0;
	double lo;

	while (seen + b->count[i] <= k1)
		seen += b->count[i++];
	lo = b->sorted[i];
	while (seen + b->count[i] <= k2)
		seen += b->count[i++];
	return lo + 0.5 * (b->sorted[i] - lo);
}

/* Median (type 7) of one resample of b. */
static double boot_median(struct boot *b, struct pmb_rng *r)
{
	size_t n = b->n;

	memset(b->count, 0, n * sizeof(*b->count));
	for (size_t d = 0; d < n; d++)
		b->count[pmb_rng_below(r, n)]++;
	return counted_median(b);
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

/* One sample of a linked bootstrap: sorted once, with each value's place
 * in the sorted order, so that a resample drawn by original index (the
 * same indices for samples taken side by side) is counted in sorted order,
 * O(n) per resample. */
struct linked_boot {
	struct boot b;
	uint32_t *rank;
};

static int rank_cmp_key(const void *a, const void *b)
{
	const double *x = *(const double *const *)a, *y = *(const double *const *)b;

	return *x < *y ? -1 : *x > *y;
}

static int linked_init(struct linked_boot *l, const double *x, size_t n)
{
	const double **ptr = malloc(n * sizeof(*ptr));
	int err = -ENOMEM;

	l->rank = malloc(n * sizeof(*l->rank));
	if (!ptr || !l->rank || boot_init(&l->b, x, n) != 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		ptr[i] = &x[i];
	qsort(ptr, n, sizeof(*ptr), rank_cmp_key);
	for (size_t k = 0; k < n; k++)
		l->rank[ptr[k] - x] = (uint32_t)k;
	err = 0;
out:
	free(ptr);
	if (err)
		free(l->rank), l->rank = NULL;
	return err;
}

/* Median (type 7) of l's resample whose draws are idx[0..n). */
static double linked_median(struct linked_boot *l, const uint32_t *idx)
{
	struct boot *b = &l->b;
	size_t n = b->n;

	memset(b->count, 0, n * sizeof(*b->count));
	for (size_t d = 0; d < n; d++)
		b->count[l->rank[idx[d]]]++;
	return counted_median(b);
}

/* One resample of each sample of s: those as long as the first drawn with
 * the first's indices, the others on their own; the statistic into *num
 * and *den. */
static void linked_draw(const struct pmb_linked *s, struct linked_boot *l, uint32_t *idx,
			uint32_t *own, struct pmb_rng *r, double *num, double *den)
{
	double m[4] = { 0, 0, 1, 0 };

	for (size_t d = 0; d < s->n[0]; d++)
		idx[d] = (uint32_t)pmb_rng_below(r, s->n[0]);
	for (int j = 0; j < 4; j++) {
		if (!s->x[j])
			continue;
		if (s->n[j] != s->n[0])
			for (size_t d = 0; d < s->n[j]; d++)
				own[d] = (uint32_t)pmb_rng_below(r, s->n[j]);
		m[j] = linked_median(&l[j], s->n[j] == s->n[0] ? idx : own);
	}
	*num = m[0] - m[1];
	*den = m[2] - m[3];
}

static int linked_run(const struct pmb_linked *s, struct linked_boot *l, double conf, int resamples,
		      uint64_t seed, double *lo, double *hi)
{
	size_t nmax = 0;
	double *est = malloc((size_t)resamples * sizeof(*est));
	double *dens = malloc((size_t)resamples * sizeof(*dens));
	uint32_t *idx = NULL, *own = NULL;
	struct pmb_rng rng;
	int err = -ENOMEM;

	for (int j = 0; j < 4; j++)
		nmax = s->x[j] && s->n[j] > nmax ? s->n[j] : nmax;
	idx = malloc(nmax * sizeof(*idx));
	own = malloc(nmax * sizeof(*own));
	if (!est || !dens || !idx || !own)
		goto out;
	pmb_rng_seed(&rng, seed);
	for (int k = 0; k < resamples; k++) {
		double num, den;

		linked_draw(s, l, idx, own, &rng, &num, &den);
		dens[k] = den;
		/* A denominator at or below zero in a few resamples: an
		 * unbounded ratio, on the side of its numerator. */
		est[k] = den > 0 ? num / den : num >= 0 ? INFINITY : -INFINITY;
	}
	pmb__sort(dens, (size_t)resamples);
	err = -EDOM;
	if (s->x[2] && !(pmb__quantile_sorted(dens, (size_t)resamples, (1 - conf) / 2) > 0))
		goto out;
	pmb__sort(est, (size_t)resamples);
	*lo = pmb__quantile_sorted(est, (size_t)resamples, (1 - conf) / 2);
	*hi = pmb__quantile_sorted(est, (size_t)resamples, (1 + conf) / 2);
	err = 0;
out:
	free(est);
	free(dens);
	free(idx);
	free(own);
	return err;
}

int pmb__bootstrap_linked_ci(const struct pmb_linked *s, double conf, int resamples, uint64_t seed,
			     double *lo, double *hi)
{
	struct linked_boot l[4] = { 0 };
	int err = 0;

	if (!s || !s->x[0] || !lo || !hi || resamples < 1 || !(conf > 0 && conf < 1))
		return -EINVAL;
	for (int j = 0; j < 4; j++)
		if (s->x[j] && (s->n[j] == 0 || s->n[j] > UINT32_MAX))
			return -EINVAL;
	for (int j = 0; j < 4 && !err; j++)
		if (s->x[j])
			err = linked_init(&l[j], s->x[j], s->n[j]);
	if (!err)
		err = linked_run(s, l, conf, resamples, seed, lo, hi);
	for (int j = 0; j < 4; j++)
		if (l[j].rank) {
			boot_free(&l[j].b);
			free(l[j].rank);
		}
	return err;
}
