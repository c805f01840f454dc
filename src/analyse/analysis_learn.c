/* analysis_learn.c - what the ladder of pass counts and the repetitions show beyond one figure: an input being learned, modes between repetitions and between rungs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base.h"

#define RUNGS 4 /* the runner's ladder: 1..4 x the calibrated passes */

/* How far the marginal cost per pass must fall from the ladder's first
 * step to its last to be called learning (timings: also by three standard
 * errors of the rungs' medians); simulated counts are exact. */
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
	const struct pmb_sample *s = &r->m.samples[i];
	double P = (double)s->passes, v;
	int scaled;

	if (e < 0) {
		*c = (double)s->ns - o->ns_per_sample - o->ns_per_pass * P;
		return true;
	}
	/* read as every figure reads a count: scaled to its enabled time */
	if (!pmb__sample_event(s, e, &v, &scaled))
		return false;
	*c = v - (o->ev_valid[e] ? o->ev_per_sample[e] + o->ev_per_pass[e] * P : 0);
	return true;
}

/* One rung's medians: passes, cost, and the standard error of the cost's
 * median from the spread of cost per pass within the rung (so the rung's
 * stretch is no noise): 1.253 sigma / sqrt(n), sigma = 1.4826 MAD. */
struct rung {
	double P, C, E;
};

static void rung_of(const double *p, double *c, size_t q, struct rung *g)
{
	double med;

	g->P = pmb__median(p, q);
	g->C = pmb__median(c, q);
	for (size_t i = 0; i < q; i++)
		c[i] /= p[i];
	med = pmb__median(c, q);
	for (size_t i = 0; i < q; i++)
		c[i] = fabs(c[i] - med);
	g->E = q > 1 ? 1.253 * 1.4826 * pmb__median(c, q) * g->P / sqrt((double)q) : INFINITY;
}

/* Per rung of the ladder with samples, in rung order: how many. */
static int rung_medians(const struct pmb_context *ctx, const struct pmb_result *r, int e, struct rung g[RUNGS])
{
	size_t n = r->m.nsamples;
	double *p = malloc((n + 1) * sizeof(double)), *c = malloc((n + 1) * sizeof(double));
	double base = (double)(r->m.calib_passes ? r->m.calib_passes : 1);
	int m = 0;

	for (int k = 1; p && c && k <= RUNGS; k++) {
		size_t q = 0;

		for (size_t i = 0; i < n; i++) {
			double P_i = (double)r->m.samples[i].passes;

			/* The runner stretches a rung by up to 10 %. */
			if ((int)floor(P_i / base + 1e-9) == k && sample_cost(ctx, r, e, i, &c[q]))
				p[q++] = P_i;
		}
		if (q > 0)
			rung_of(p, c, q, &g[m++]);
	}
	free(p);
	free(c);
	return m;
}

/* The marginal cost per pass between rungs a and b, and its standard
 * error in *se. */
static double slope(const struct rung *a, const struct rung *b, double *se)
{
	*se = sqrt(a->E * a->E + b->E * b->E) / (b->P - a->P);
	return (b->C - a->C) / (b->P - a->P);
}

/* The marginal cost per pass between the ladder's first two rungs and its
 * last two: learning where it falls from one to the other, by more than
 * three standard errors, and keeps falling.  A fixed cost per sample makes
 * the average cost per pass fall with passes too, but not the marginal
 * one.  Returns the relative fall (NAN where the ladder has under three
 * rungs or does not fall in order); *clear whether it stands clear of the
 * noise. */
static double ladder_fall(const struct rung *g, int m, bool *clear)
{
	double first, last, mid, e1, e2, em;

	*clear = false;
	if (m < 3 || !(g[1].P > g[0].P))
		return NAN;
	first = slope(&g[0], &g[1], &e1);
	last = slope(&g[m - 2], &g[m - 1], &e2);
	mid = m > 3 ? slope(&g[1], &g[2], &em) : last;
	if (!(first > 0) || mid > first)
		return NAN;
	/* Learning lowers the average cost per pass rung by rung as well;
	 * rungs out of that order are modes (rung_modes), not learning. */
	for (int k = 1; k < m; k++)
		if (g[k].C / g[k].P > g[k - 1].C / g[k - 1].P)
			return NAN;
	*clear = first - last > 3 * sqrt(e1 * e1 + e2 * e2);
	return 1 - last / first;
}

/* Modes between rungs: per-item costs per rung that differ by more than
 * MODE_GAP and three standard errors without falling or rising in order
 * (learning and a fixed cost fall in order). */
static bool rung_modes(const struct rung *g, int m, double items)
{
	double x[RUNGS];
	int lo = 0, hi = 0;
	bool falling = true, rising = true;

	if (m < 3)
		return false;
	for (int k = 0; k < m; k++) {
		x[k] = g[k].C / (g[k].P * items);
		lo = x[k] < x[lo] ? k : lo;
		hi = x[k] > x[hi] ? k : hi;
		if (k) {
			falling = falling && x[k] <= x[k - 1];
			rising = rising && x[k] >= x[k - 1];
		}
	}
	double se = sqrt(pow(g[lo].E / g[lo].P, 2) + pow(g[hi].E / g[hi].P, 2)) / items;

	return x[lo] > 0 && x[hi] / x[lo] > MODE_GAP && x[hi] - x[lo] > 3 * se && !falling && !rising;
}

/* One result's ladder: learning and modes between rungs. */
static void learn_one(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig, int e)
{
	struct rung g[RUNGS];
	int m = rung_medians(ctx, r, e, g);
	bool exact = pmb_context_sim(ctx), clear;
	double fall = ladder_fall(g, m, &clear);

	fig->ladder_fall = fall;
	fig->learning = isfinite(fall) && fall > (exact ? LEARN_FALL_EXACT : LEARN_FALL_TIMED) && (exact || clear);
	fig->rung_modes = !exact && rung_modes(g, m, (double)(r->m.items_per_pass ? r->m.items_per_pass : 1));
	if (fig->rung_modes)
		pmb__figure_of(fig, e)->s.multimodal = true;
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
static void reps_one(const struct pmb_result *res, struct pmb_figures *const *fig, size_t reps, int e)
{
	bool split = false;

	for (size_t a = 0; a < reps; a++)
		for (size_t b = a + 1; b < reps; b++)
			if (!res[a].m.status && !res[b].m.status && pmb__figure_of(fig[a], e)->valid &&
			    pmb__figure_of(fig[b], e)->valid && apart(pmb__figure_of(fig[a], e), pmb__figure_of(fig[b], e)))
				split = true;
	for (size_t a = 0; split && a < reps; a++) {
		fig[a]->rep_modes = true;
		pmb__figure_of(fig[a], e)->s.multimodal = true;
	}
}

void pmb__analysis_learn(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *const *fig,
			 size_t n, size_t reps)
{
	int e = cost_event(ctx);

	for (size_t i = 0; i < n; i++) {
		fig[i]->ladder_fall = NAN;
		fig[i]->learning = fig[i]->rung_modes = fig[i]->rep_modes = false;
	}
	if (e == -2)
		return;
	for (size_t i = 0; i < n; i++)
		if (!r[i].m.status && r[i].m.nsamples && !r[i].m.inst->def->empty && pmb__figure_of(fig[i], e)->valid)
			learn_one(ctx, &r[i], fig[i], e);
	for (size_t i = 0; reps > 1 && i + reps <= n; i += reps)
		reps_one(&r[i], &fig[i], reps, e);
}
