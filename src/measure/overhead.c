/* overhead.c - the harness overhead, fitted from the empty loop's samples as they are measured. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "runner.h"

/* The empty loop's samples at N and 2N passes and at one pass: cost =
 * a + b * passes.  The one-pass samples measure a + b, nearly all of it the
 * cost per sample; the per-pass cost b is the median of (T - T(1)) /
 * (passes - 1) over the N and 2N samples, and a = T(1) - b.  Exact on exact
 * data (the simulator's counts); with noise, medians, the statistic the
 * benchmarks are reported with, so an empty body comes out as zero.  Without
 * one-pass samples: the two-point form on the medians at N and 2N.
 * Neither can be negative: noise that makes one so is clamped to 0. */
static void fit_overhead(const double *x, const double *y, size_t n,
			 double *per_pass, double *per_sample, double *noise)
{
	double *lo = malloc((n + 1) * sizeof(double)), *hi = malloc((n + 1) * sizeof(double));
	double *one = malloc((n + 1) * sizeof(double));
	double xmin = INFINITY, xmax = 0;
	size_t nlo = 0, nhi = 0, none = 0;

	*per_pass = *per_sample = *noise = 0;
	if (!lo || !hi || !one || n < 2)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (x[i] <= 1) {
			one[none++] = y[i];
			continue;
		}
		xmin = x[i] < xmin ? x[i] : xmin;
		xmax = x[i] > xmax ? x[i] : xmax;
	}
	if (!(xmax > 1))
		goto out;
	if (none) {
		double t1 = pmb__median(one, none);

		for (size_t i = 0; i < n; i++)
			if (x[i] > 1)
				hi[nhi++] = (y[i] - t1) / (x[i] - 1);
		pmb__sort(hi, nhi);
		*per_pass = fmax(pmb__quantile_sorted(hi, nhi, 0.5), 0);
		*per_sample = fmax(t1 - *per_pass, 0);
		/* What the subtraction cannot resolve: half the IQR of the
		 * per-pass estimates. */
		*noise = (pmb__quantile_sorted(hi, nhi, 0.75) - pmb__quantile_sorted(hi, nhi, 0.25)) / 2;
		goto out;
	}
	if (!(xmax > xmin))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (x[i] == xmin)
			lo[nlo++] = y[i];
		else if (x[i] == xmax)
			hi[nhi++] = y[i];
	}
	pmb__sort(lo, nlo);
	pmb__sort(hi, nhi);
	double qlo = pmb__quantile_sorted(lo, nlo, 0.5), qhi = pmb__quantile_sorted(hi, nhi, 0.5);
	*per_pass = fmax((qhi - qlo) / (xmax - xmin), 0);
	*per_sample = fmax(qlo - *per_pass * xmin, 0);
	*noise = (pmb__quantile_sorted(hi, nhi, 0.75) - pmb__quantile_sorted(hi, nhi, 0.25)) / 2 / xmax;
out:
	free(lo);
	free(hi);
	free(one);
}

int pmb__overhead_fit(const struct pmb_sample *s, size_t n, struct pmb_overhead *o)
{
	double *x = malloc((n + 1) * sizeof(double)), *y = malloc((n + 1) * sizeof(double));

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	memset(o, 0, sizeof(*o));
	o->nsamples = n;
	o->passes = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)s[i].passes;
		y[i] = (double)s[i].ns;
		if (s[i].passes > 1 && s[i].passes < o->passes)
			o->passes = s[i].passes; /* N: the one-pass samples aside */
	}
	if (o->passes == UINT64_MAX)
		o->passes = 0;
	fit_overhead(x, y, n, &o->ns_per_pass, &o->ns_per_sample, &o->ns_noise_per_pass);
	for (int e = 0; e < PMB_MAX_EVENTS; e++) {
		size_t m = 0;
		int scaled = 0;

		for (size_t i = 0; i < n; i++) {
			double v;

			if (pmb__sample_event(&s[i], e, &v, &scaled)) {
				x[m] = (double)s[i].passes;
				y[m++] = v;
			}
		}
		o->ev_valid[e] = m >= 2;
		fit_overhead(x, y, m, &o->ev_per_pass[e], &o->ev_per_sample[e],
			     &o->ev_noise_per_pass[e]);
	}
	free(x);
	free(y);
	return 0;
}

/* Interference only ever adds time, so of two measurements of the empty
 * loop the smaller is what it costs, and the larger spread is what the
 * subtraction cannot resolve. */
void pmb__overhead_merge(struct pmb_overhead *a, const struct pmb_overhead *b)
{
	a->ns_per_pass = fmin(a->ns_per_pass, b->ns_per_pass);
	a->ns_per_sample = fmin(a->ns_per_sample, b->ns_per_sample);
	a->ns_noise_per_pass = fmax(a->ns_noise_per_pass, b->ns_noise_per_pass);
	for (int e = 0; e < PMB_MAX_EVENTS; e++) {
		if (!b->ev_valid[e])
			continue;
		a->ev_per_pass[e] = fmin(a->ev_per_pass[e], b->ev_per_pass[e]);
		a->ev_per_sample[e] = fmin(a->ev_per_sample[e], b->ev_per_sample[e]);
		a->ev_noise_per_pass[e] = fmax(a->ev_noise_per_pass[e], b->ev_noise_per_pass[e]);
	}
	a->nsamples += b->nsamples;
}

