/* analysis_learn.c - what the ladder of pass counts and the repetitions show beyond one figure: an input being learned, modes between repetitions and between rungs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "counters.h"
#include "stats.h"

#define RUNGS 4 /* the runner's ladder: 1..4 x the calibrated passes */

/* How far the marginal cost per pass must fall from the ladder's first
 * step to its last to be called learning: timings of one rung move by a few
 * per cent here, so a difference of two rungs' medians by about twice that;
 * simulated counts are exact. */
#define LEARN_FALL_TIMED 0.25
#define LEARN_FALL_EXACT 0.02
/* Per-item costs of two rungs or two repetitions further apart than this
 * (and than their intervals) are two modes, not noise. */
#define MODE_GAP 1.15

/* The figure a result's cost is judged by: time, or under simulation the
 * instructions (-1: time; -2: none). */
static int cost_event(const struct pmb_context *ctx)
{
	if (!pmb_context_sim(ctx))
		return -1;
	int e = pmb__context_event(ctx, "instructions");

	return e >= 0 ? e : -2;
}

/* Sample i's cost less the harness overhead, in *c; false if not read. */
static bool sample_cost(const struct pmb_context *ctx, const struct pmb_result *r, int e, size_t i,
			double *c)
{
	const struct pmb_overhead *o = pmb_result_overhead(ctx, r);
	const struct pmb_sample *s = &r->samples[i];
	double P = (double)s->passes, v;

	if (e < 0) {
		*c = (double)s->ns - o->ns_per_sample - o->ns_per_pass * P;
		return true;
	}
	if (!(s->mask & (1u << e)) || pmb__count_scale(&s->count[e], &v) < 0)
		return false;
	*c = v - (o->ev_valid[e] ? o->ev_per_sample[e] + o->ev_per_pass[e] * P : 0);
	return true;
}

/* Per rung of the ladder: median passes and median cost of its samples.
 * Returns how many rungs have samples (their data first, in rung order). */
static int rung_medians(const struct pmb_context *ctx, const struct pmb_result *r, int e,
			double P[RUNGS], double C[RUNGS])
{
	size_t n = r->nsamples;
	double *p = malloc((n + 1) * sizeof(double)), *c = malloc((n + 1) * sizeof(double));
	double base = (double)(r->calib_passes ? r->calib_passes : 1);
	int m = 0;

	for (int k = 1; p && c && k <= RUNGS; k++) {
		size_t q = 0;

		for (size_t i = 0; i < n; i++) {
			double P_i = (double)r->samples[i].passes;

			/* The runner stretches a rung by up to 10 %. */
			if ((int)floor(P_i / base + 1e-9) == k && sample_cost(ctx, r, e, i, &c[q]))
				p[q++] = P_i;
		}
		if (q == 0)
			continue;
		P[m] = pmb__median(p, q);
		C[m++] = pmb__median(c, q);
	}
	free(p);
	free(c);
	return m;
}

/* The marginal cost per pass between the ladder's first two rungs and its
 * last two: learning where it falls from one to the other and keeps
 * falling.  A fixed cost per sample makes the average cost per pass fall
 * with passes too, but not the marginal one.  Returns the relative fall,
 * NAN where the ladder has under three rungs. */
static double ladder_fall(const double P[RUNGS], const double C[RUNGS], int m)
{
	double first, mid, last;

	if (m < 3)
		return NAN;
	first = (C[1] - C[0]) / (P[1] - P[0]);
	last = (C[m - 1] - C[m - 2]) / (P[m - 1] - P[m - 2]);
	mid = m > 3 ? (C[2] - C[1]) / (P[2] - P[1]) : last;
	if (!(first > 0) || !(P[1] > P[0]) || mid > first)
		return NAN;
	return 1 - last / first;
}

/* Modes between rungs: per-item costs per rung (the fixed cost removed by
 * the marginal slope) that differ by more than MODE_GAP without falling
 * in order, which learning and a fixed cost would. */
static bool rung_modes(const double P[RUNGS], const double C[RUNGS], int m, double items)
{
	double x[RUNGS], lo = INFINITY, hi = -INFINITY;
	bool falling = true, rising = true;

	if (m < 3)
		return false;
	for (int k = 0; k < m; k++) {
		x[k] = C[k] / (P[k] * items);
		lo = fmin(lo, x[k]);
		hi = fmax(hi, x[k]);
		if (k) {
			falling = falling && x[k] <= x[k - 1];
			rising = rising && x[k] >= x[k - 1];
		}
	}
	return lo > 0 && hi / lo > MODE_GAP && !falling && !rising;
}

static struct pmb_figure *cost_figure(struct pmb_result *r, int e)
{
	return e == -1 ? &r->time : &r->ev[e];
}

/* One result's ladder: learning and modes between rungs. */
static void learn_one(const struct pmb_context *ctx, struct pmb_result *r, int e)
{
	double P[RUNGS], C[RUNGS];
	int m = rung_medians(ctx, r, e, P, C);
	bool exact = pmb_context_sim(ctx);
	double fall = ladder_fall(P, C, m);
	const struct pmb_summary *f = &cost_figure(r, e)->s;
	/* The figure's own noise: a slope between two rungs is a difference
	 * of medians, some three times as noisy as the median of them all,
	 * so an effect must stand clear of that. */
	double err = f->median > 0 && isfinite(f->ci_hi) ? (f->ci_hi - f->ci_lo) / 2 / f->median : INFINITY;

	r->ladder_fall = fall;
	r->learning = isfinite(fall) && fall > (exact ? LEARN_FALL_EXACT : fmax(LEARN_FALL_TIMED, 6 * err));
	r->rung_modes = !exact && rung_modes(P, C, m, (double)(r->items_per_pass ? r->items_per_pass : 1)) &&
			err < (MODE_GAP - 1) / 4;
	if (r->rung_modes)
		cost_figure(r, e)->s.multimodal = true;
}

/* Whether two figures' medians and intervals are apart: by MODE_GAP, and
 * neither interval reaching the other. */
static bool apart(const struct pmb_figure *a, const struct pmb_figure *b)
{
	const struct pmb_summary *x = &a->s, *y = &b->s;

	if (x->median > y->median)
		return apart(b, a);
	return x->median > 0 && y->median / x->median > MODE_GAP &&
	       isfinite(x->ci_hi) && isfinite(y->ci_lo) && x->ci_hi < y->ci_lo;
}

/* The repetitions res[0..reps) of one instance: any two apart are
 * repetitions that disagree beyond their intervals, and two modes. */
static void reps_one(struct pmb_result *res, size_t reps, int e)
{
	bool split = false;

	for (size_t a = 0; a < reps; a++)
		for (size_t b = a + 1; b < reps; b++)
			if (!res[a].status && !res[b].status && cost_figure(&res[a], e)->valid &&
			    cost_figure(&res[b], e)->valid && apart(cost_figure(&res[a], e), cost_figure(&res[b], e)))
				split = true;
	for (size_t a = 0; split && a < reps; a++) {
		res[a].rep_modes = true;
		cost_figure(&res[a], e)->s.multimodal = true;
	}
}

void pmb__analysis_learn(const struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t reps)
{
	int e = cost_event(ctx);

	for (size_t i = 0; i < n; i++) {
		r[i].ladder_fall = NAN;
		r[i].learning = r[i].rung_modes = r[i].rep_modes = false;
	}
	if (e == -2)
		return;
	for (size_t i = 0; i < n; i++)
		if (!r[i].status && r[i].nsamples && !r[i].inst->def->empty && cost_figure(&r[i], e)->valid)
			learn_one(ctx, &r[i], e);
	for (size_t i = 0; reps > 1 && i + reps <= n; i += reps)
		reps_one(&r[i], reps, e);
}
