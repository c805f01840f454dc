/* stats.c - pure statistics on sample vectors: no I/O, no global state. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many doubles of scratch live on the stack: the usual figure
 * has 30..200 samples, so most calls never touch malloc. */
#define STACK_SCRATCH 256
/* Theil-Sen takes every pair up to this many, a seeded sample beyond. */
#define TS_MAX_PAIRS ((size_t)1 << 18)
#define TS_SEED 0x7d5e11a9c0ffee01ULL

/* ---- order statistics ----------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void pmb__sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

static inline void swap_d(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Rearrange x so that x[k] is the k-th smallest, smaller ones before it and
 * larger ones after.  Median-of-three quickselect, average O(n); after
 * 2 log2(n) rounds without convergence it sorts what is left, bounding the
 * worst case at O(n log n). */
static void select_kth(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	int budget = 2;

	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2, i, j;
		double pivot;

		if (budget-- == 0) {
			pmb__sort(x + lo, hi - lo + 1);
			return;
		}
		if (x[mid] < x[lo])
			swap_d(&x[mid], &x[lo]);
		if (x[hi] < x[lo])
			swap_d(&x[hi], &x[lo]);
		if (x[hi] < x[mid])
			swap_d(&x[hi], &x[mid]);
		pivot = x[mid];
		/* Hoare partition: x[lo] <= pivot <= x[hi] act as sentinels. */
		i = lo;
		j = hi;
		for (;;) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap_d(&x[i], &x[j]);
			i++;
			j--;
		}
		/* Now x[lo..j] <= pivot <= x[j+1..hi]. */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

/* Type 7 quantile of x (destroyed), by selection instead of sorting. */
static double quantile_select(double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q, frac;
	size_t k = (size_t)h;
	double a, b;

	if (k >= n - 1) {
		select_kth(x, n, n - 1);
		return x[n - 1];
	}
	frac = h - (double)k;
	select_kth(x, n, k);
	a = x[k];
	if (frac == 0)
		return a;
	b = x[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (x[i] < b)
			b = x[i];
	return a + frac * (b - a);
}

/* Map a double to an unsigned key with the same order, so a k-th smallest
 * value can be found by bisecting on keys. */
static uint64_t order_key(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static double key_value(uint64_t key)
{
	uint64_t u = (key >> 63) ? key & ~(1ULL << 63) : ~key;
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

static inline double transformed(const double *x, size_t i, double center,
				 bool absdev)
{
	return absdev ? fabs(x[i] - center) : x[i];
}

/* k-th smallest of x (or of |x - center|) without scratch memory: 64 counting
 * passes, O(64 n).  Only the fallback when malloc fails. */
static double kth_nocopy(const double *x, size_t n, size_t k, double center,
			 bool absdev)
{
	uint64_t lo = 0, hi = UINT64_MAX;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		size_t below = 0;

		for (size_t i = 0; i < n; i++)
			below += order_key(transformed(x, i, center, absdev)) <= mid;
		if (below > k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return key_value(lo);
}

/* Type 7 quantile of x (or of |x - center| when absdev), x untouched. */
static double quantile_of(const double *x, size_t n, double q, double center,
			  bool absdev)
{
	double stackbuf[STACK_SCRATCH], *buf = stackbuf, res;

	if (n == 0)
		return 0;
	if (n > STACK_SCRATCH)
		buf = malloc(n * sizeof(*buf));
	if (buf) {
		for (size_t i = 0; i < n; i++)
			buf[i] = transformed(x, i, center, absdev);
		res = quantile_select(buf, n, q);
		if (buf != stackbuf)
			free(buf);
	} else {
		double h = (double)(n - 1) * q;
		size_t k = (size_t)h;
		double a = kth_nocopy(x, n, k, center, absdev);

		res = a;
		if (k + 1 < n && h > (double)k)
			res = a + (h - (double)k) *
				  (kth_nocopy(x, n, k + 1, center, absdev) - a);
	}
	return res;
}

double pmb__quantile_sorted(const double *sorted, size_t n, double q)
{
	double h;
	size_t k;

	if (n == 0)
		return 0;
	if (!(q > 0))
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * q;
	k = (size_t)h;
	if (k >= n - 1)
		return sorted[n - 1];
	return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

double pmb__median(const double *x, size_t n)
{
	return quantile_of(x, n, 0.5, 0, false);
}

double pmb__mean(const double *x, size_t n)
{
	double sum = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double pmb__stddev(const double *x, size_t n)
{
	double m, ss = 0;

	if (n < 2)
		return 0;
	/* Two passes: the one-pass sum of squares cancels badly when the spread
	 * is tiny next to the mean, which is the usual benchmark sample. */
	m = pmb__mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

double pmb__mdape(const double *x, size_t n)
{
	double m, mad;

	if (n == 0)
		return 0;
	m = pmb__median(x, n);
	mad = quantile_of(x, n, 0.5, m, true);
	if (mad == 0)
		return 0;
	if (m == 0)
		return INFINITY;
	return mad / fabs(m) * 100;
}

void pmb__tukey(const double *x, size_t n, struct pmb_tukey *t)
{
	double iqr, mild_lo, mild_hi, sev_lo, sev_hi;

	memset(t, 0, sizeof(*t));
	if (n == 0)
		return;
	t->q1 = quantile_of(x, n, 0.25, 0, false);
	t->q3 = quantile_of(x, n, 0.75, 0, false);
	iqr = t->q3 - t->q1;
	mild_lo = t->q1 - 1.5 * iqr;
	mild_hi = t->q3 + 1.5 * iqr;
	sev_lo = t->q1 - 3 * iqr;
	sev_hi = t->q3 + 3 * iqr;
	for (size_t i = 0; i < n; i++) {
		if (x[i] < sev_lo)
			t->severe_low++;
		else if (x[i] < mild_lo)
			t->mild_low++;
		else if (x[i] > sev_hi)
			t->severe_high++;
		else if (x[i] > mild_hi)
			t->mild_high++;
	}
}

/* ---- line fits -------------------------------------------------------------- */

static void ols(const double *x, const double *y, size_t n, struct pmb_fit *f,
		double sxx)
{
	double mx = pmb__mean(x, n), my = pmb__mean(y, n), sxy = 0, syy = 0;
	double ssr = 0;

	for (size_t i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	f->b = sxy / sxx;
	f->a = my - f->b * mx;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - f->a - f->b * x[i];

		ssr += e * e;
	}
	/* A constant y is fitted exactly by the flat line. */
	f->r2 = syy > 0 ? 1 - ssr / syy : 1;
	if (f->r2 < 0)
		f->r2 = 0;
	if (f->r2 > 1)
		f->r2 = 1;
}

static int theil_sen(const double *x, const double *y, size_t n,
		     struct pmb_fit *f)
{
	/* n (n-1) / 2 without overflowing first. */
	size_t pairs = (n % 2 == 0) ? n / 2 * (n - 1) : (n - 1) / 2 * n;
	size_t cap, m = 0;
	double *buf;

	cap = pairs < TS_MAX_PAIRS ? pairs : TS_MAX_PAIRS;
	buf = malloc((cap > n ? cap : n) * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	if (pairs <= TS_MAX_PAIRS) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (x[j] != x[i])
					buf[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	} else {
		/* Too many pairs to keep: a seeded random sample of them,
		 * so the result is still a function of the data alone. */
		struct pmb_rng rng;

		pmb_rng_seed(&rng, TS_SEED);
		for (size_t t = 0; t < 4 * cap && m < cap; t++) {
			size_t i = pmb_rng_below(&rng, n);
			size_t j = pmb_rng_below(&rng, n);

			if (x[j] != x[i])
				buf[m++] = (y[j] - y[i]) / (x[j] - x[i]);
		}
	}
	/* The caller saw x vary, so m > 0 unless sampling was unlucky. */
	f->ts_b = m ? quantile_select(buf, m, 0.5) : f->b;
	for (size_t i = 0; i < n; i++)
		buf[i] = y[i] - f->ts_b * x[i];
	f->ts_a = quantile_select(buf, n, 0.5);
	free(buf);
	return 0;
}

int pmb__fit_line(const double *x, const double *y, size_t n, struct pmb_fit *f)
{
	double mx, sxx = 0;

	if (!x || !y || !f || n < 2)
		return -EINVAL;
	mx = pmb__mean(x, n);
	for (size_t i = 0; i < n; i++)
		sxx += (x[i] - mx) * (x[i] - mx);
	if (!(sxx > 0))
		return -EINVAL;
	ols(x, y, n, f, sxx);
	return theil_sen(x, y, n, f);
}

double pmb__setup_two_point(double i, double ti, double j, double tj)
{
	/* Per-pass cost t(p) = a / p + b, so t_i - t_j = a (j - i) / (i j). */
	if (j == i)
		return 0;
	return i * j * (ti - tj) / (j - i);
}

/* ---- Mann-Whitney U ----------------------------------------------------------- */

/* U of x (pairs x > y, ties counting one half) and the tie term
 * sum(t^3 - t) over groups of equal values in x and y together, by brute
 * force: O((nx + ny)^2) but no memory, fine for small samples. */
static void mw_pairwise(const double *x, size_t nx, const double *y, size_t ny,
			double *u, double *ties)
{
	size_t n = nx + ny;

	*u = 0;
	*ties = 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			*u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
	/* Each member of a group of t equal values adds t^2 - 1. */
	for (size_t i = 0; i < n; i++) {
		double v = i < nx ? x[i] : y[i - nx], c = 0;

		for (size_t j = 0; j < n; j++)
			c += (j < nx ? x[j] : y[j - nx]) == v;
		*ties += c * c - 1;
	}
}

/* Same by sorting both samples and merging them, O(n log n). */
static int mw_sorted(const double *x, size_t nx, const double *y, size_t ny,
		     double *u, double *ties)
{
	double *xs = malloc((nx + ny) * sizeof(*xs)), *ys;
	size_t i = 0, j = 0;

	if (!xs)
		return -ENOMEM;
	ys = xs + nx;
	memcpy(xs, x, nx * sizeof(*x));
	memcpy(ys, y, ny * sizeof(*y));
	pmb__sort(xs, nx);
	pmb__sort(ys, ny);
	*u = 0;
	*ties = 0;
	while (i < nx || j < ny) {
		double v, cx = 0, cy = 0, t;

		if (j == ny || (i < nx && xs[i] <= ys[j]))
			v = xs[i];
		else
			v = ys[j];
		/* j values of y lie below v: each x equal to v beats them. */
		while (i < nx && xs[i] == v) {
			i++;
			cx++;
		}
		*u += cx * (double)j;
		while (j < ny && ys[j] == v) {
			j++;
			cy++;
		}
		*u += 0.5 * cx * cy;
		t = cx + cy;
		*ties += t * t * t - t;
	}
	free(xs);
	return 0;
}

#define MW_EXACT_MAX 10

/* Two-sided exact p of U = u for samples of m and n without ties: the
 * number of orderings with a given U, by recurrence on who holds the largest
 * value: f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u). */
static double mw_exact(size_t m, size_t n, double u)
{
	enum { UMAX = MW_EXACT_MAX * MW_EXACT_MAX };
	double f[MW_EXACT_MAX + 1][UMAX + 1], total = 0, le = 0, ge = 0, p;
	size_t umax = m * n;

	memset(f, 0, sizeof(f));
	for (size_t j = 0; j <= n; j++)
		f[j][0] = 1; /* i = 0: no x, U = 0 */
	for (size_t i = 1; i <= m; i++) {
		/* In place: f[j][.] still holds row i - 1 until rewritten, and
		 * f[j - 1][.] already holds row i. Descending u keeps
		 * f[j][u - j] from row i - 1. */
		for (size_t j = 1; j <= n; j++)
			for (size_t k = umax + 1; k-- > 0;)
				f[j][k] = (k >= j ? f[j][k - j] : 0) + f[j - 1][k];
	}
	for (size_t k = 0; k <= umax; k++) {
		total += f[n][k];
		if ((double)k <= u)
			le += f[n][k];
		if ((double)k >= u)
			ge += f[n][k];
	}
	p = 2 * (le < ge ? le : ge) / total;
	return p < 1 ? p : 1;
}

double pmb__mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			double *u)
{
	double ux, ties, n = (double)(nx + ny), mu, var, z;

	if (u)
		*u = 0;
	if (!x || !y || nx == 0 || ny == 0)
		return 1;
	/* NaN has no rank: the merge in mw_sorted() would never pass it. */
	for (size_t i = 0; i < nx + ny; i++)
		if (isnan(i < nx ? x[i] : y[i - nx]))
			return NAN;
	if (nx + ny <= 64 || mw_sorted(x, nx, y, ny, &ux, &ties))
		mw_pairwise(x, nx, y, ny, &ux, &ties);
	if (u)
		*u = ux;
	if (nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX && ties == 0)
		return mw_exact(nx, ny, ux);
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return 1; /* every value equal: no evidence either way */
	z = (fabs(ux - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	z = erfc(z / sqrt(2.0));
	return z < 1 ? z : 1;
}

double pmb__mann_whitney_min_p(size_t nx, size_t ny)
{
	double n = (double)(nx + ny), mu = (double)nx * (double)ny / 2, var, z;

	if (nx == 0 || ny == 0)
		return 1;
	/* The samples wholly apart, no ties: U = 0, as pmb__mann_whitney
	 * would compute it, without the samples. */
	if (nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX)
		return mw_exact(nx, ny, 0);
	var = (double)nx * (double)ny / 12 * (n + 1);
	z = (mu - 0.5) / sqrt(var);
	z = erfc((z < 0 ? 0 : z) / sqrt(2.0));
	return z < 1 ? z : 1;
}

/* ---- multimodality -------------------------------------------------------------- */

/* Thresholds of the multimodality test, from simulation: with them fewer
 * than 0.5 % of normal, lognormal, exponential, uniform or t3 samples of
 * 10..30 are flagged (none from 50 up), while two or three clusters 50
 * standard deviations apart holding 30 % or more each are flagged from
 * n = 20 on. */
#define MM_LOCAL 6.0
#define MM_SPACING 20.0
#define MM_RESOLUTION 1e-3

/* See pmb__multimodal(); s sorted, sp scratch of n. */
static bool multimodal_sorted(const double *s, size_t n, double *sp)
{
	size_t m = (n + 9) / 10, ns = 0;
	double best = 0, gap = 0, spacing, floor_;

	if (m < 3)
		m = 3;
	/* Gap k lies between s[k] and s[k + 1], with k + 1 >= m values below
	 * and n - k - 1 >= m above. */
	for (size_t k = m - 1; k + m < n; k++) {
		double g = s[k + 1] - s[k];
		double below = s[k] - s[k + 1 - m], above = s[k + m] - s[k + 1];
		double local = below > above ? below : above;
		double r = local > 0 ? g / local : INFINITY;

		sp[ns++] = g;
		if (g > 0 && (r > best || (r == best && g > gap))) {
			best = r;
			gap = g;
		}
	}
	if (ns == 0 || !(best > MM_LOCAL))
		return false;
	floor_ = MM_RESOLUTION * fmax(fabs(s[0]), fabs(s[n - 1]));
	spacing = quantile_select(sp, ns, 0.5);
	return gap > floor_ && gap > MM_SPACING * spacing;
}

bool pmb__multimodal(const double *x, size_t n)
{
	double stackbuf[2 * STACK_SCRATCH], *buf = stackbuf;
	bool res;

	if (!x || n < 10)
		return false;
	if (n > STACK_SCRATCH)
		buf = malloc(2 * n * sizeof(*buf));
	if (!buf)
		return false;
	memcpy(buf, x, n * sizeof(*x));
	pmb__sort(buf, n);
	res = multimodal_sorted(buf, n, buf + n);
	if (buf != stackbuf)
		free(buf);
	return res;
}

int pmb__summary_ci(const double *x, size_t n, uint64_t seed, double *lo, double *hi)
{
	return pmb__bootstrap_median_ci(x, n, 0.95, 1000, seed, lo, hi);
}

int pmb__summarize(const double *x, size_t n, uint64_t seed,
		  struct pmb_summary *s)
{
	int err;

	if (!x || !s || n == 0)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->median = pmb__median(x, n);
	s->mean = pmb__mean(x, n);
	s->min = s->max = x[0];
	for (size_t i = 1; i < n; i++) {
		s->min = fmin(s->min, x[i]);
		s->max = fmax(s->max, x[i]);
	}
	s->stddev = pmb__stddev(x, n);
	s->mdape = pmb__mdape(x, n);
	err = pmb__summary_ci(x, n, seed, &s->ci_lo, &s->ci_hi);
	if (err)
		return err;
	pmb__tukey(x, n, &s->tukey);
	s->multimodal = pmb__multimodal(x, n);
	return 0;
}

void pmb__median_ci_ranks(const double *sorted, size_t n, double *lo, double *hi)
{
	double half = 0.98 * sqrt((double)n);
	double l = floor((double)n / 2 - half), u = ceil((double)n / 2 + half) - 1;

	if (n == 0) {
		*lo = *hi = 0;
		return;
	}
	*lo = sorted[l < 0 ? 0 : (size_t)l];
	*hi = sorted[u > (double)(n - 1) ? n - 1 : (size_t)u];
}
