/* test_stats.c - stats.c against samples whose truth is known. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool close_rel(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static double gauss(struct pmb_rng *r)
{
	double u = pmb_rng_uniform(r), v = pmb_rng_uniform(r);

	return sqrt(-2 * log1p(-u)) * cos(2 * M_PI * v);
}

static double expo(struct pmb_rng *r)
{
	return -log1p(-pmb_rng_uniform(r));
}

/* ---- rng ---------------------------------------------------------------- */

static void test_rng(void)
{
	/* splitmix64 from 0 and xoshiro256** from {1, 2, 3, 4}: the reference
	 * implementations' first outputs. */
	static const uint64_t sm0[4] = { 0xe220a8397b1dcdafULL,
					 0x6e789e6aa1b965f4ULL,
					 0x06c45d188009454fULL,
					 0xf88bb8a8724c81ecULL };
	static const uint64_t xo[4] = { 11520ULL, 0ULL, 1509978240ULL,
					1215971899390074240ULL };
	struct pmb_rng a, b;
	int same = 1, differ = 0, in_range = 1, counts[10] = { 0 };
	double chi2 = 0;

	pmb_rng_seed(&a, 0);
	tap_ok(memcmp(a.s, sm0, sizeof(sm0)) == 0,
	       "rng: seeding is splitmix64 (seed 0 gives the reference words)");
	a.s[0] = 1, a.s[1] = 2, a.s[2] = 3, a.s[3] = 4;
	for (int i = 0; i < 4; i++)
		same &= pmb_rng_next(&a) == xo[i];
	tap_ok(same, "rng: xoshiro256** reference outputs from state {1,2,3,4}");

	pmb_rng_seed(&a, 12345);
	pmb_rng_seed(&b, 12345);
	same = 1;
	for (int i = 0; i < 1000; i++)
		same &= pmb_rng_next(&a) == pmb_rng_next(&b);
	tap_ok(same, "rng: same seed, same stream");
	pmb_rng_seed(&a, 12345);
	pmb_rng_seed(&b, 12346);
	for (int i = 0; i < 100; i++)
		differ += pmb_rng_next(&a) != pmb_rng_next(&b);
	tap_ok(differ == 100, "rng: neighbouring seeds give different streams");

	pmb_rng_seed(&a, 7);
	for (int i = 0; i < 100000; i++) {
		double u = pmb_rng_uniform(&a);

		in_range &= u >= 0 && u < 1;
	}
	tap_ok(in_range, "rng: uniform in [0, 1)");
	in_range = 1;
	for (int i = 0; i < 100000; i++) {
		uint64_t v = pmb_rng_below(&a, 10);

		in_range &= v < 10;
		if (v < 10)
			counts[v]++;
	}
	for (int i = 0; i < 10; i++)
		chi2 += (counts[i] - 10000.0) * (counts[i] - 10000.0) / 10000.0;
	/* chi-square with 9 degrees of freedom: P(> 27.9) = 0.001. */
	tap_ok(in_range && chi2 < 27.9, "rng: below(10) in range and uniform (chi2 %.2f)",
	       chi2);
	tap_ok(pmb_rng_below(&a, 0) == 0 && pmb_rng_below(&a, 1) == 0,
	       "rng: below(0) and below(1) give 0");
	in_range = 1;
	for (int i = 0; i < 10000; i++)
		in_range &= pmb_rng_below(&a, (1ULL << 63) + 1) <= (1ULL << 63);
	tap_ok(in_range, "rng: below(2^63 + 1) stays in range (rejection path)");
}

/* ---- order statistics ------------------------------------------------------ */

static void test_order(void)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	double five[] = { 1, 2, 3, 4, 5 }, four[] = { 10, 20, 30, 40 };
	double sd[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double md[] = { 90, 100, 110 }, mdz[] = { -1, 0, 0, 1 };
	double one[] = { 42 }, eq[] = { 7, 7, 7, 7 };
	double *big = malloc(1001 * sizeof(*big)), *cp = malloc(1001 * sizeof(*cp));
	struct pmb_rng r;
	int agree = 1;

	tap_ok(pmb__median(odd, 3) == 2, "median of {3,1,2} is 2");
	tap_ok(pmb__median(even, 4) == 2.5, "median of {4,1,3,2} is 2.5");
	tap_ok(odd[0] == 3 && even[0] == 4, "median leaves its input alone");
	tap_ok(pmb__median(one, 1) == 42 && pmb__median(eq, 4) == 7,
	       "median of one value and of equal values");
	tap_ok(pmb__median(one, 0) == 0 && pmb__mean(one, 0) == 0 &&
		       pmb__stddev(one, 0) == 0 && pmb__mdape(one, 0) == 0,
	       "n == 0 gives 0, not NaN");
	tap_ok(pmb__quantile_sorted(five, 5, 0.25) == 2 &&
		       pmb__quantile_sorted(five, 5, 0.5) == 3,
	       "type 7 quantile on a grid point");
	tap_ok(fabs(pmb__quantile_sorted(five, 5, 0.1) - 1.4) < 1e-12 &&
		       fabs(pmb__quantile_sorted(four, 4, 0.9) - 37) < 1e-12,
	       "type 7 quantile interpolates (1.4 and 37)");
	tap_ok(pmb__quantile_sorted(four, 4, 0) == 10 &&
		       pmb__quantile_sorted(four, 4, 1) == 40 &&
		       pmb__quantile_sorted(four, 4, -1) == 10 &&
		       pmb__quantile_sorted(four, 4, 2) == 40,
	       "quantile ends and clamping");
	tap_ok(pmb__mean(sd, 8) == 5 && fabs(pmb__stddev(sd, 8) - sqrt(32.0 / 7)) < 1e-12,
	       "mean 5 and sample stddev sqrt(32/7)");
	tap_ok(pmb__stddev(one, 1) == 0 && pmb__stddev(eq, 4) == 0,
	       "stddev of one value and of equal values is 0");
	tap_ok(fabs(pmb__mdape(md, 3) - 10) < 1e-12, "mdape of {90,100,110} is 10 %%");
	tap_ok(pmb__mdape(eq, 4) == 0 && pmb__mdape(one, 1) == 0,
	       "mdape of equal values is 0");
	tap_ok(isinf(pmb__mdape(mdz, 4)), "mdape around a zero median is +inf");

	/* Beyond the stack scratch: a shuffled 0..1000 and 0..999. */
	pmb_rng_seed(&r, 99);
	for (int i = 0; i < 1001; i++)
		big[i] = i;
	for (int i = 1000; i > 0; i--) {
		int j = (int)pmb_rng_below(&r, (uint64_t)i + 1);
		double t = big[i];

		big[i] = big[j];
		big[j] = t;
	}
	tap_ok(pmb__median(big, 1001) == 500, "median of shuffled 0..1000 is 500");
	for (int i = 0, k = 0; i < 1001; i++)
		if (big[i] != 1000)
			cp[k++] = big[i];
	tap_ok(pmb__median(cp, 1000) == 499.5, "median of shuffled 0..999 is 499.5");

	/* Selection agrees with sorting, ties and all. */
	for (int t = 0; t < 300; t++) {
		size_t n = 1 + pmb_rng_below(&r, 600);
		int levels = t % 3 == 0 ? 4 : 1000000;

		for (size_t i = 0; i < n; i++)
			big[i] = (double)pmb_rng_below(&r, (uint64_t)levels);
		memcpy(cp, big, n * sizeof(*big));
		pmb__sort(cp, n);
		agree &= pmb__median(big, n) == pmb__quantile_sorted(cp, n, 0.5);
		for (size_t i = 1; i < n; i++)
			agree &= cp[i - 1] <= cp[i];
	}
	tap_ok(agree, "quickselect median equals the sorted median (300 vectors)");
	free(big);
	free(cp);
}

/* ---- Tukey -------------------------------------------------------------------- */

static void test_tukey(void)
{
	/* Sorted: -20 2 10 11 12 13 14 15 16 17 30 60; q1 = 10.75, q3 = 16.25,
	 * IQR 5.5: mild fences 2.5 and 24.5, severe -5.75 and 32.75. */
	double x[] = { 14, 60, 10, 2, 16, 11, -20, 15, 30, 12, 17, 13 };
	/* q1 = q3 = 5: the 6 is beyond every fence. */
	double spike[] = { 5, 5, 5, 6, 5, 5, 5, 5 };
	/* q1 = 3, q3 = 7: the mild fence is 7 + 1.5 * 4 = 13 exactly. */
	double edge[] = { 1, 2, 3, 4, 5, 6, 7, 8, 13 };
	double eq[] = { 3, 3, 3, 3 };
	struct pmb_tukey t;

	pmb__tukey(x, ARRAY_SIZE(x), &t);
	tap_ok(fabs(t.q1 - 10.75) < 1e-12 && fabs(t.q3 - 16.25) < 1e-12,
	       "tukey quartiles 10.75 and 16.25");
	tap_ok(t.mild_low == 1 && t.mild_high == 1 && t.severe_low == 1 &&
		       t.severe_high == 1,
	       "tukey: one mild and one severe on each side (%d %d %d %d)",
	       t.mild_low, t.mild_high, t.severe_low, t.severe_high);
	pmb__tukey(spike, ARRAY_SIZE(spike), &t);
	tap_ok(t.severe_high == 1 && t.mild_high == 0 && t.mild_low == 0 &&
		       t.severe_low == 0,
	       "tukey: IQR 0 makes the lone 6 severe");
	pmb__tukey(edge, ARRAY_SIZE(edge), &t);
	tap_ok(t.q1 == 3 && t.q3 == 7 && t.mild_high == 0 && t.severe_high == 0,
	       "tukey: a value on the fence is not beyond it");
	pmb__tukey(eq, ARRAY_SIZE(eq), &t);
	tap_ok(t.mild_low + t.mild_high + t.severe_low + t.severe_high == 0 &&
		       t.q1 == 3 && t.q3 == 3,
	       "tukey: equal values have no outliers");
	pmb__tukey(eq, 0, &t);
	tap_ok(t.q1 == 0 && t.q3 == 0 && t.mild_low == 0, "tukey: n == 0 zeroes");
}

/* ---- bootstrap -------------------------------------------------------------- */

static void test_bootstrap(void)
{
	double one[] = { 3.5 }, eq[] = { 2, 2, 2, 2, 2 }, lo, hi, lo2, hi2;
	double x[50], y[50];
	struct pmb_rng r;
	/* PMB_TEST_SHORT (set under memcheck and in the emulated guest, where
	 * the 400 trials took 12 and 8 s): 40 trials run the same code, and
	 * the coverage, a property of the arithmetic, is asserted natively. */
	bool short_run = getenv("PMB_TEST_SHORT") != NULL;
	int cover = 0, cover_d = 0, cover_r = 0, trials = short_run ? 40 : 400, err;

	tap_ok(pmb__bootstrap_median_ci(one, 0, 0.95, 1000, 1, &lo, &hi) == -EINVAL,
	       "bootstrap: n == 0 is -EINVAL");
	tap_ok(pmb__bootstrap_median_ci(eq, 5, 1.0, 1000, 1, &lo, &hi) == -EINVAL &&
		       pmb__bootstrap_median_ci(eq, 5, 0.95, 0, 1, &lo, &hi) ==
			       -EINVAL,
	       "bootstrap: conf 1 or no resamples is -EINVAL");
	err = pmb__bootstrap_median_ci(one, 1, 0.95, 1000, 1, &lo, &hi);
	tap_ok(err == 0 && lo == 3.5 && hi == 3.5, "bootstrap: n == 1 gives [x, x]");
	err = pmb__bootstrap_median_ci(eq, 5, 0.95, 1000, 1, &lo, &hi);
	tap_ok(err == 0 && lo == 2 && hi == 2, "bootstrap: equal values give [x, x]");

	pmb_rng_seed(&r, 2024);
	for (int i = 0; i < 50; i++)
		x[i] = expo(&r);
	pmb__bootstrap_median_ci(x, 50, 0.95, 1000, 77, &lo, &hi);
	pmb__bootstrap_median_ci(x, 50, 0.95, 1000, 77, &lo2, &hi2);
	tap_ok(lo == lo2 && hi == hi2, "bootstrap: same seed, same interval");
	tap_ok(lo < pmb__median(x, 50) && pmb__median(x, 50) < hi,
	       "bootstrap: interval holds the sample median");
	pmb__bootstrap_median_ci(x, 50, 0.5, 1000, 77, &lo2, &hi2);
	tap_ok(lo <= lo2 && hi2 <= hi && lo2 < hi2,
	       "bootstrap: the 50 %% interval lies inside the 95 %% one");

	/* Coverage of the true median: exponential(1) has median ln 2; a
	 * difference of normal medians 3 - 1; a ratio of exponential medians
	 * with scales 2 and 1. */
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 50; i++) {
			x[i] = expo(&r);
			y[i] = 1 + gauss(&r);
		}
		pmb__bootstrap_median_ci(x, 50, 0.95, 1000, (uint64_t)t, &lo, &hi);
		cover += lo <= M_LN2 && M_LN2 <= hi;
		for (int i = 0; i < 50; i++)
			x[i] = 3 + gauss(&r);
		pmb__bootstrap_diff_ci(x, 50, y, 50, 0.95, 1000, (uint64_t)t, &lo,
				      &hi);
		cover_d += lo <= 2 && 2 <= hi;
		for (int i = 0; i < 50; i++) {
			x[i] = 2 * expo(&r);
			y[i] = expo(&r);
		}
		pmb__bootstrap_ratio_ci(x, 50, y, 50, 0.95, 1000, (uint64_t)t, &lo,
				       &hi);
		cover_r += lo <= 2 && 2 <= hi;
	}
	if (short_run) {
		tap_skip("bootstrap: the 95 %% CIs' coverage (%d, %d, %d of %d trials): PMB_TEST_SHORT, "
			 "asserted over 400 trials by the native run", cover, cover_d, cover_r, trials);
	} else {
		tap_ok(cover >= 0.90 * trials && cover <= 0.99 * trials,
		       "bootstrap: 95 %% CI of an exponential median covers ln 2 in %d/%d",
		       cover, trials);
		tap_ok(cover_d >= 0.90 * trials && cover_d <= 0.99 * trials,
		       "bootstrap: 95 %% CI of a difference of medians covers 2 in %d/%d",
		       cover_d, trials);
		tap_ok(cover_r >= 0.90 * trials && cover_r <= 0.99 * trials,
		       "bootstrap: 95 %% CI of a ratio of medians covers 2 in %d/%d",
		       cover_r, trials);
	}

	for (int i = 0; i < 50; i++)
		y[i] = i < 30 ? 0 : 1;
	tap_ok(pmb__bootstrap_ratio_ci(x, 50, y, 50, 0.95, 100, 1, &lo, &hi) ==
		       -EINVAL,
	       "bootstrap: ratio over a zero median is -EINVAL");
	tap_ok(pmb__bootstrap_diff_ci(x, 50, y, 0, 0.95, 100, 1, &lo, &hi) ==
		       -EINVAL,
	       "bootstrap: empty y is -EINVAL");
}

/* ---- line fits ---------------------------------------------------------------- */

/* Linked samples: a benchmark and its baseline disturbed alike, sample by
 * sample (they run interleaved), resampled together. */
static void test_bootstrap_linked(void)
{
	double x[60], b[60], r[60], rb[60], lo = 0, hi = 0, ilo = 0, ihi = 0;
	struct pmb_rng rng;
	struct pmb_linked l;
	int rc;

	pmb_rng_seed(&rng, 7);
	for (int i = 0; i < 60; i++) {
		double d = 5 * expo(&rng); /* the machine's disturbance of round i */

		x[i] = 20 + d, b[i] = 12 + d, r[i] = 8 + d, rb[i] = 6 + d;
	}
	memset(&l, 0, sizeof(l));
	l.x[0] = x, l.n[0] = 60, l.x[1] = b, l.n[1] = 60;
	rc = pmb__bootstrap_linked_ci(&l, 0.95, 1000, 1, &lo, &hi);
	tap_ok(rc == 0 && close_rel(lo, 8, 1e-12) && close_rel(hi, 8, 1e-12),
	       "linked: a difference disturbed alike on both sides is exact when paired ([%g, %g])", lo, hi);
	rc = pmb__bootstrap_diff_ci(x, 60, b, 60, 0.95, 1000, 1, &ilo, &ihi);
	tap_ok(rc == 0 && ihi - ilo > 0.5, "... where resampling them apart gives a wide interval ([%g, %g])", ilo,
	       ihi);
	l.x[2] = r, l.n[2] = 60, l.x[3] = rb, l.n[3] = 60;
	rc = pmb__bootstrap_linked_ci(&l, 0.95, 1000, 1, &lo, &hi);
	tap_ok(rc == 0 && close_rel(lo, 4, 1e-12) && close_rel(hi, 4, 1e-12),
	       "linked: (x - b) / (r - rb) = 8 / 2 exactly ([%g, %g])", lo, hi);
	l.x[3] = r;
	tap_ok(pmb__bootstrap_linked_ci(&l, 0.95, 1000, 1, &lo, &hi) == -EDOM,
	       "linked: a denominator of 0 is not resolved (-EDOM)");
	l.x[3] = rb, l.n[3] = 30; /* another length: resampled on its own */
	rc = pmb__bootstrap_linked_ci(&l, 0.95, 1000, 1, &lo, &hi);
	tap_ok(rc == 0 && lo < 4 && hi > 4 && lo > 0,
	       "linked: a sample of another length is resampled apart: an interval around 4 ([%g, %g])", lo, hi);
	l.n[1] = 0;
	tap_ok(pmb__bootstrap_linked_ci(&l, 0.95, 1000, 1, &lo, &hi) == -EINVAL, "linked: an empty sample is -EINVAL");
}

static void test_fit(void)
{
	enum { N = 1000, PER = 10, M = 4 * PER, BIG = 2000 };
	double x[M], y[M], yc[M], ti[15], tj[15], *bx, *by;
	struct pmb_rng r;
	struct pmb_fit f;
	int err;

	/* cost(passes) = 5000 + 12.5 passes over a ladder N..4N, each sample
	 * stretched by up to 10 %, with 0.05 % noise. */
	pmb_rng_seed(&r, 31337);
	for (int i = 0; i < M; i++) {
		x[i] = (double)((i / PER + 1) * N + pmb_rng_below(&r, N / 10));
		yc[i] = 5000 + 12.5 * x[i];
		y[i] = yc[i] * (1 + 0.0005 * gauss(&r));
	}
	err = pmb__fit_line(x, yc, M, &f);
	tap_ok(err == 0 && close_rel(f.a, 5000, 1e-9) && close_rel(f.b, 12.5, 1e-12) &&
		       close_rel(f.ts_a, 5000, 1e-9) &&
		       close_rel(f.ts_b, 12.5, 1e-12) && f.r2 == 1,
	       "fit: exact line recovered exactly (OLS and Theil-Sen)");
	err = pmb__fit_line(x, y, M, &f);
	tap_ok(err == 0 && close_rel(f.a, 5000, 0.01) && close_rel(f.b, 12.5, 0.01),
	       "fit: OLS recovers a = 5000 (%.1f) and b = 12.5 (%.4f) within 1 %%",
	       f.a, f.b);
	tap_ok(close_rel(f.ts_a, 5000, 0.01) && close_rel(f.ts_b, 12.5, 0.01),
	       "fit: Theil-Sen recovers a (%.1f) and b (%.4f) within 1 %%", f.ts_a,
	       f.ts_b);
	tap_ok(f.r2 > 0.999 && f.r2 <= 1, "fit: r2 %.6f", f.r2);

	/* One wild sample drags OLS, not Theil-Sen. */
	y[3] *= 3;
	pmb__fit_line(x, y, M, &f);
	tap_ok(!close_rel(f.a, 5000, 0.05) && close_rel(f.ts_a, 5000, 0.01) &&
		       close_rel(f.ts_b, 12.5, 0.01),
	       "fit: an outlier moves OLS a to %.0f, Theil-Sen stays at %.1f",
	       f.a, f.ts_a);

	/* Two-point setup from per-pass costs at N and 4N passes. */
	tap_ok(close_rel(pmb__setup_two_point(N, (5000 + 12.5 * N) / N, 4 * N,
					     (5000 + 12.5 * 4 * N) / (4 * N)),
			 5000, 1e-12),
	       "setup two-point: exact on an exact line");
	for (int i = 0; i < 15; i++) {
		ti[i] = (5000 + 12.5 * N) * (1 + 0.0005 * gauss(&r)) / N;
		tj[i] = (5000 + 12.5 * 4 * N) * (1 + 0.0005 * gauss(&r)) / (4 * N);
	}
	tap_ok(close_rel(pmb__setup_two_point(N, pmb__median(ti, 15), 4 * N,
					     pmb__median(tj, 15)),
			 5000, 0.01),
	       "setup two-point: from noisy medians within 1 %%");
	tap_ok(pmb__setup_two_point(N, 1, N, 2) == 0, "setup two-point: i == j gives 0");

	tap_ok(pmb__fit_line(x, y, 1, &f) == -EINVAL, "fit: n < 2 is -EINVAL");
	for (int i = 0; i < PER; i++)
		yc[i] = x[0];
	tap_ok(pmb__fit_line(yc, y, PER, &f) == -EINVAL, "fit: constant x is -EINVAL");
	for (int i = 0; i < M; i++)
		yc[i] = 7;
	err = pmb__fit_line(x, yc, M, &f);
	tap_ok(err == 0 && f.b == 0 && f.a == 7 && f.r2 == 1 && f.ts_b == 0 &&
		       f.ts_a == 7,
	       "fit: constant y gives a flat exact line");

	/* Beyond 2^18 pairs Theil-Sen samples pairs: still exact on a line. */
	bx = malloc(BIG * sizeof(*bx));
	by = malloc(BIG * sizeof(*by));
	for (int i = 0; i < BIG; i++) {
		bx[i] = (double)(i % 4 + 1) * N + (double)pmb_rng_below(&r, 100);
		by[i] = 5000 + 12.5 * bx[i] + (i % 97 == 0 ? 1e6 : 0);
	}
	err = pmb__fit_line(bx, by, BIG, &f);
	tap_ok(err == 0 && close_rel(f.ts_a, 5000, 1e-9) &&
		       close_rel(f.ts_b, 12.5, 1e-9),
	       "fit: sampled Theil-Sen (n = %d) exact despite 1 %% outliers", BIG);
	free(bx);
	free(by);
}

/* ---- Mann-Whitney ----------------------------------------------------------- */

/* Exact two-sided p by enumerating which of the m + n ranks belong to x. */
static double brute_exact_p(const double *x, int m, const double *y, int n)
{
	int N = m + n;
	long le = 0, ge = 0, total = 0;
	double u = 0;

	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++)
			u += x[i] > y[j];
	for (uint32_t mask = 0; mask < (1u << N); mask++) {
		int ux = 0, seen_y = 0;

		if (__builtin_popcount(mask) != m)
			continue;
		/* Walk ranks upwards: an x at rank k beats the y's below it. */
		for (int k = 0; k < N; k++) {
			if (mask & (1u << k))
				ux += seen_y;
			else
				seen_y++;
		}
		total++;
		le += ux <= u;
		ge += ux >= u;
	}
	return fmin(1, 2.0 * (double)(le < ge ? le : ge) / (double)total);
}

/* Normal approximation from midranks, computed the slow obvious way. */
static double ref_normal_p(const double *x, int m, const double *y, int n,
			   double *u_out)
{
	int N = m + n;
	double R = 0, ties = 0, mu, var, z;

	for (int i = 0; i < m; i++) {
		double less = 0, eq = 0;

		for (int k = 0; k < N; k++) {
			double v = k < m ? x[k] : y[k - m];

			less += v < x[i];
			eq += v == x[i];
		}
		R += less + (eq + 1) / 2;
	}
	for (int i = 0; i < N; i++) {
		double v = i < m ? x[i] : y[i - m], t = 0;
		int first = 1;

		for (int k = 0; k < N; k++) {
			double w = k < m ? x[k] : y[k - m];

			t += w == v;
			if (w == v && k < i)
				first = 0;
		}
		if (first)
			ties += t * t * t - t;
	}
	*u_out = R - m * (m + 1) / 2.0;
	mu = m * n / 2.0;
	var = m * n / 12.0 * (N + 1 - ties / ((double)N * (N - 1)));
	z = fmax(0, fabs(*u_out - mu) - 0.5) / sqrt(var);
	return erfc(z / sqrt(2.0));
}

static void test_mann_whitney(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 1, 3, 5 },
	       d[] = { 2, 4, 6 };
	static const struct {
		int m, n;
		int line;
	} sizes[] = {
		{ 5, 7, __LINE__ }, { 10, 10, __LINE__ }, { 3, 9, __LINE__ },
		{ 1, 10, __LINE__ }, { 8, 4, __LINE__ },
	};
	double x[100], y[100], u, ur, p, pr;
	struct pmb_rng r;
	int ok;

	p = pmb__mann_whitney(a, 3, b, 3, &u);
	tap_ok(u == 0 && fabs(p - 0.1) < 1e-12,
	       "mann-whitney: {1,2,3} vs {4,5,6}: U = 0, exact p = 2/20 (%g)", p);
	p = pmb__mann_whitney(b, 3, a, 3, &u);
	tap_ok(u == 9 && fabs(p - 0.1) < 1e-12, "mann-whitney: swapped: U = 9, p = 0.1");
	p = pmb__mann_whitney(c, 3, d, 3, &u);
	tap_ok(u == 3 && fabs(p - 0.7) < 1e-12,
	       "mann-whitney: {1,3,5} vs {2,4,6}: U = 3, exact p = 14/20 (%g)", p);

	pmb_rng_seed(&r, 5);
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		int m = sizes[s].m, n = sizes[s].n;

		for (int i = 0; i < m; i++)
			x[i] = gauss(&r) + 0.8;
		for (int j = 0; j < n; j++)
			y[j] = gauss(&r);
		p = pmb__mann_whitney(x, (size_t)m, y, (size_t)n, &u);
		pr = brute_exact_p(x, m, y, n);
		tap_ok(fabs(p - pr) < 1e-12,
		       "mann-whitney: exact p %g equals enumeration %g (%dx%d, row %d)",
		       p, pr, m, n, sizes[s].line);
	}

	/* With ties (values rounded) the normal approximation is used, small
	 * (pairwise path) and large (sorted path) alike. */
	for (int t = 0; t < 3; t++) {
		int m = t == 0 ? 6 : t == 1 ? 25 : 40, n = t == 0 ? 7 : t == 1 ? 30 : 55;

		for (int i = 0; i < m; i++)
			x[i] = round(4 * gauss(&r) + 1);
		for (int j = 0; j < n; j++)
			y[j] = round(4 * gauss(&r));
		p = pmb__mann_whitney(x, (size_t)m, y, (size_t)n, &u);
		pr = ref_normal_p(x, m, y, n, &ur);
		tap_ok(u == ur && fabs(p - pr) < 1e-12,
		       "mann-whitney: tied %dx%d: U %g p %.10f, reference U %g p %.10f",
		       m, n, u, p, ur, pr);
	}
	for (int i = 0; i < 40; i++)
		x[i] = gauss(&r);
	for (int j = 0; j < 60; j++)
		y[j] = gauss(&r) + 0.5;
	p = pmb__mann_whitney(x, 40, y, 60, &u);
	pr = ref_normal_p(x, 40, y, 60, &ur);
	tap_ok(u == ur && fabs(p - pr) < 1e-12,
	       "mann-whitney: untied 40x60 normal approximation p %.6g", p);

	for (int i = 0; i < 20; i++)
		x[i] = y[i] = i;
	p = pmb__mann_whitney(x, 20, y, 20, &u);
	tap_ok(p == 1 && u == 200, "mann-whitney: identical samples give p = 1");
	for (int i = 0; i < 20; i++)
		y[i] = 100 + i;
	p = pmb__mann_whitney(x, 20, y, 20, &u);
	tap_ok(p < 1e-6 && u == 0, "mann-whitney: separated 20 vs 20: p = %.3g", p);
	p = pmb__mann_whitney(y, 20, x, 20, &u);
	tap_ok(p < 1e-6 && u == 400, "mann-whitney: separated, swapped: U = 400");
	for (int i = 0; i < 20; i++)
		x[i] = y[i] = 3;
	p = pmb__mann_whitney(x, 20, y, 20, &u);
	tap_ok(p == 1, "mann-whitney: all values equal give p = 1");
	p = pmb__mann_whitney(x, 0, y, 20, &u);
	tap_ok(p == 1 && u == 0, "mann-whitney: an empty sample gives p = 1");
	/* NaN has no rank: no p, at once (the sorted merge of more than 64
	 * values never advanced past one, and looped forever). */
	for (int i = 0; i < 40; i++)
		x[i] = y[i] = i;
	x[7] = NAN;
	p = pmb__mann_whitney(x, 40, y, 40, &u);
	tap_ok(isnan(p) && u == 0, "mann-whitney: a NaN among 40 vs 40 gives p NaN (%g)", p);
	p = pmb__mann_whitney(y, 5, x, 10, &u);
	tap_ok(isnan(p), "mann-whitney: a NaN among 5 vs 10 gives p NaN (%g)", p);
	x[7] = 1e300;
	y[3] = -1e300;
	p = pmb__mann_whitney(x, 40, y, 40, &u);
	x[7] = INFINITY;
	y[3] = -INFINITY;
	pr = pmb__mann_whitney(x, 40, y, 40, &ur);
	tap_ok(p == pr && u == ur && u > 800,
	       "mann-whitney: infinities rank as the largest and smallest values do (p %g, U %g)", pr, ur);

	/* Under the null, p < 0.05 about 5 % of the time. */
	ok = 0;
	for (int t = 0; t < 1000; t++) {
		for (int i = 0; i < 30; i++) {
			x[i] = gauss(&r);
			y[i] = gauss(&r);
		}
		ok += pmb__mann_whitney(x, 30, y, 30, NULL) < 0.05;
	}
	tap_ok(ok >= 25 && ok <= 75, "mann-whitney: %d/1000 null rejections at 5 %%",
	       ok);
}

/* ---- multimodal and summary --------------------------------------------------- */

static void test_multimodal(void)
{
	double x[300], eq[50];
	struct pmb_rng r;
	int flagged = 0;

	pmb_rng_seed(&r, 8);
	for (int i = 0; i < 60; i++)
		x[i] = (i % 2 ? 100 : 200) + gauss(&r);
	tap_ok(pmb__multimodal(x, 60), "multimodal: two clusters of 30");
	for (int i = 0; i < 90; i++)
		x[i] = 100 * (i % 3 + 1) + 2 * gauss(&r);
	tap_ok(pmb__multimodal(x, 90), "multimodal: three clusters of 30");
	for (int i = 0; i < 100; i++)
		x[i] = (i < 80 ? 50 : 60) + 0.3 * gauss(&r);
	tap_ok(pmb__multimodal(x, 100), "multimodal: clusters of 80 and 20");
	for (int i = 0; i < 200; i++)
		x[i] = 100 + gauss(&r);
	tap_ok(!pmb__multimodal(x, 200), "multimodal: one normal sample of 200 is not");
	for (int t = 0; t < 500; t++) {
		for (int i = 0; i < 30; i++)
			x[i] = 100 + gauss(&r);
		flagged += pmb__multimodal(x, 30);
		for (int i = 0; i < 100; i++)
			x[i] = exp(0.5 * gauss(&r));
		flagged += pmb__multimodal(x, 100);
	}
	tap_ok(flagged <= 10, "multimodal: %d of 1000 unimodal samples flagged",
	       flagged);
	for (int i = 0; i < 50; i++)
		eq[i] = 4;
	tap_ok(!pmb__multimodal(eq, 50), "multimodal: equal values are not");
	tap_ok(!pmb__multimodal(x, 9), "multimodal: n < 10 is not");
	for (int i = 0; i < 300; i++)
		x[i] = 1e6 + (i % 2) * 1e-4 + 1e-6 * gauss(&r);
	tap_ok(!pmb__multimodal(x, 300), "multimodal: steps below resolution are not");
}

static void test_summary(void)
{
	double x[] = { 14, 60, 10, 2, 16, 11, -20, 15, 30, 12, 17, 13 };
	double one[] = { 8 }, big[200];
	struct pmb_summary s, s2;
	struct pmb_rng r;
	int err;

	tap_ok(pmb__summarize(x, 0, 1, &s) == -EINVAL, "summary: n == 0 is -EINVAL");
	err = pmb__summarize(x, ARRAY_SIZE(x), 1, &s);
	tap_ok(err == 0 && s.n == 12 && s.median == 13.5 && s.min == -20 &&
		       s.max == 60 && s.mean == 15,
	       "summary: median 13.5, min, max, mean");
	tap_ok(close_rel(s.stddev, pmb__stddev(x, 12), 0) &&
		       s.mdape == pmb__mdape(x, 12),
	       "summary: stddev and mdape as computed alone");
	tap_ok(s.tukey.mild_low == 1 && s.tukey.severe_high == 1 &&
		       s.ci_lo <= s.median && s.median <= s.ci_hi && !s.multimodal,
	       "summary: tukey, ci around the median, not multimodal");
	err = pmb__summarize(one, 1, 1, &s);
	tap_ok(err == 0 && s.median == 8 && s.mean == 8 && s.min == 8 &&
		       s.max == 8 && s.stddev == 0 && s.mdape == 0 &&
		       s.ci_lo == 8 && s.ci_hi == 8 && !s.multimodal,
	       "summary: n == 1, every field finite");
	pmb_rng_seed(&r, 3);
	for (int i = 0; i < 200; i++)
		big[i] = 1000 * (1 + 0.01 * gauss(&r));
	pmb__summarize(big, 200, 42, &s);
	pmb__summarize(big, 200, 42, &s2);
	tap_ok(memcmp(&s, &s2, sizeof(s)) == 0, "summary: deterministic for a seed");
	tap_ok(s.ci_lo < s.median && s.median < s.ci_hi && s.ci_hi - s.ci_lo < 10,
	       "summary: CI [%.2f, %.2f] tight around %.2f", s.ci_lo, s.ci_hi,
	       s.median);
}

/* Signed-rank: W+ by hand, p from the normal approximation with the
 * continuity correction (and the tie term where |d| tie). */
static void test_signed_rank(void)
{
	double up[10], d[] = { 0.5, -1, 2, 2, -2, 3, 0, 4, -4.5, 5, 6, 7 };
	double neg[10], none[3] = { 0, 0, 0 };
	size_t used;
	double p;

	for (int i = 0; i < 10; i++) {
		up[i] = i + 1;
		neg[i] = -(i + 1);
	}
	/* W+ = 55, mean 27.5, variance 96.25: z = 27 / 9.811. */
	p = pmb__signed_rank(up, 10, &used);
	tap_ok(used == 10 && fabs(p - 0.0059215) < 1e-6,
	       "signed rank: 1..10 all positive: p = 0.00592 (%g)", p);
	tap_ok(fabs(pmb__signed_rank(neg, 10, NULL) - p) < 1e-15,
	       "signed rank: two-sided (all negative gives the same p)");
	/* The zero dropped (11 left); |2| three times, ranks 3..5 -> 4 each:
	 * W+ = 1+4+4+6+7+9+10+11 = 52, mean 33, variance 126.5 - 24/48. */
	p = pmb__signed_rank(d, 12, &used);
	tap_ok(used == 11 && fabs(p - 0.0993299) < 1e-6,
	       "signed rank: zero dropped, ties at their mean rank: p = 0.0993 (%g)", p);
	p = pmb__signed_rank(none, 3, &used);
	tap_ok(used == 0 && p == 1, "signed rank: all differences zero: p = 1");
}

int main(void)
{
	test_rng();
	test_order();
	test_tukey();
	test_bootstrap();
	test_bootstrap_linked();
	test_fit();
	test_mann_whitney();
	test_signed_rank();
	test_multimodal();
	test_summary();
	return tap_done();
}
