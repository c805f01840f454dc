/* stop.h - when repeated measurement stops: the one rule the runner's samples and ab's rounds follow. */
#ifndef PMB_STOP_H
#define PMB_STOP_H

#include <stddef.h>

/* Why a series of measurements ended.  NONE: go on. */
enum pmb_stop {
	PMB_STOP_NONE,
	PMB_STOP_PRECISION, /* the interval reached the goal */
	PMB_STOP_COUNT,     /* the most measurements allowed were taken */
	PMB_STOP_BUDGET,    /* the next one would pass the time budget */
	PMB_STOP_FIXED,     /* a fixed count was asked for (--samples) */
	PMB_STOP_SIGNAL,    /* a signal stopped the run */
	PMB_NSTOPS
};

/* The rule: stop for precision once at least min_n measurements were
 * taken and the interval's relative half-width is within precision (<= 0:
 * never); at max_n (0: no cap); for the budget (<= 0: none) where the time
 * spent plus the next measurement's would pass it, once at least floor_n
 * were taken (a budget cut never leaves fewer). */
struct pmb_stop_rule {
	size_t min_n, max_n, floor_n;
	double precision;  /* relative half-width, e.g. 0.01 */
	double budget_ns;
};

/* The rule's answer after n measurements whose interval has relative
 * half-width halfwidth (NAN or inf: none yet), spent_ns spent and the
 * next expected to take next_ns.  Precision is asked first: a series
 * that reached its goal stopped for it, whatever else ran out. */
enum pmb_stop pmb__stop_check(const struct pmb_stop_rule *r, size_t n, double halfwidth,
			      double spent_ns, double next_ns);

/* "precision", "samples", "budget", "fixed", "signal"; "" for NONE. */
const char *pmb__stop_name(enum pmb_stop s);

/* How many measurements would bring the half-width to goal, from how it
 * shrank so far: hw[i] the half-width after i + 1 measurements (NAN where
 * none), n of them.  A power law hw ~ n^-k is fitted (least squares on
 * logs) over the last half of the finite ones, at least 3; k under 0.1
 * (no shrink) gives INFINITY.  With fewer than 3 points, k = 0.5 (an
 * interval of a median of independent draws).  *k (if non-NULL) gets the
 * exponent used.  Returns the count (>= n), INFINITY, or NAN where hw
 * holds no finite value. */
double pmb__stop_needed(const double *hw, size_t n, double goal, double *k);

#endif
