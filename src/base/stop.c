/* stop.c - when repeated measurement stops (the runner's samples, ab's rounds), and how many more would reach the goal. */
#include <math.h>

#include "stop.h"

enum pmb_stop pmb__stop_check(const struct pmb_stop_rule *r, size_t n, double halfwidth,
			      double spent_ns, double next_ns)
{
	if (r->precision > 0 && n >= r->min_n && halfwidth <= r->precision)
		return PMB_STOP_PRECISION;
	if (r->max_n && n >= r->max_n)
		return PMB_STOP_COUNT;
	if (r->budget_ns > 0 && n >= r->floor_n && spent_ns + next_ns > r->budget_ns)
		return PMB_STOP_BUDGET;
	return PMB_STOP_NONE;
}

const char *pmb__stop_name(enum pmb_stop s)
{
	static const char *const name[PMB_NSTOPS] = {
		[PMB_STOP_NONE] = "", [PMB_STOP_PRECISION] = "precision",
		[PMB_STOP_COUNT] = "samples", [PMB_STOP_BUDGET] = "budget",
		[PMB_STOP_FIXED] = "fixed", [PMB_STOP_SIGNAL] = "signal",
	};

	return (unsigned)s < PMB_NSTOPS ? name[s] : "";
}

/* The least-squares slope of log hw against log count over the finite
 * points of the last half (at least 3): -k.  NAN with fewer. */
static double shrink_exponent(const double *hw, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
	size_t from = n / 2;

	if (n - from < 3)
		from = n >= 3 ? n - 3 : 0;
	for (size_t i = from; i < n; i++) {
		double x, y;

		if (!isfinite(hw[i]) || hw[i] <= 0)
			continue;
		x = log((double)(i + 1));
		y = log(hw[i]);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		m++;
	}
	if (m < 3 || m * sxx - sx * sx <= 0)
		return NAN;
	return -(m * sxy - sx * sy) / (m * sxx - sx * sx);
}

double pmb__stop_needed(const double *hw, size_t n, double goal, double *kout)
{
	double last = NAN, k;
	size_t at = 0;

	for (size_t i = n; i-- > 0;)
		if (isfinite(hw[i]) && hw[i] > 0) {
			last = hw[i];
			at = i + 1;
			break;
		}
	if (kout)
		*kout = NAN;
	if (!isfinite(last) || !(goal > 0))
		return NAN;
	if (last <= goal)
		return (double)n;
	k = shrink_exponent(hw, n);
	if (!isfinite(k))
		k = 0.5;
	if (k < 0.1) {
		if (kout)
			*kout = k;
		return INFINITY;
	}
	/* A median's interval narrows as n^-1/2 for independent rounds: a
	 * faster fitted shrink is noise of a few widths (a reviewer saw
	 * n^-3.60 promise the goal in 10 rounds), so no faster is assumed. */
	if (k > 0.5)
		k = 0.5;
	if (kout)
		*kout = k;
	/* hw(N) = last * (N / at)^-k = goal. */
	double need = (double)at * pow(last / goal, 1 / k);

	return need > (double)n ? ceil(need) : (double)n;
}
