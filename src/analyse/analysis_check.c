/* analysis_check.c - a known answer (--self-check) against the figure it checks: ok, WRONG or not checked. */
#include <math.h>
#include <string.h>

#include "analysis.h"

/* WRONG where cycles equal instructions exactly: the PMU counts one cycle
 * per instruction, as an emulator without a timing model does (QEMU with
 * -icount), and no latency can show. */
static void timeless(const struct pmb_context *ctx, const struct pmb_figures *fig, struct pmb_check_figure *c)
{
	int cyc = pmb__context_event(ctx, "cycles"), ins = pmb__context_event(ctx, "instructions");

	if (cyc < 0 || ins < 0 || !fig->ev[cyc].valid || !fig->ev[ins].valid)
		return;
	double cy = fig->ev[cyc].s.median, in = fig->ev[ins].s.median;

	if (in > 0 && fabs(cy - in) <= 1e-6 * in) {
		c->timeless = true;
		c->timeless_cycles = cy;
	}
}

/* How far the frequency estimated after the checks must stand from the one
 * their cycles are estimated with, relative, to count as moved: above the
 * spread of the estimate itself over runs in a row on a quiet host (3.21 to
 * 3.24 GHz in 24 of 30 here), under the add chain's own 10 %. */
#define SPEED_MOVED 0.05

/* A cycles figure out of its range is not judged (UNSTEADY) where what was
 * measured accounts for it, established both ways:
 * - it reads high while a quarter of its samples or more gave the known
 *   answer (its first quartile within the range, none under it), and the
 *   most a fixed cost per sample could add (its interval's upper end: the
 *   ladder's short samples reading high would be the harness's fault) does
 *   not bring the median back into the range: its samples disagree;
 * - its cycles are estimated from time, the frequency estimated again
 *   after the checks moved by more than SPEED_MOVED, and the range reaches
 *   into the span between the figure at the one frequency and at the
 *   other (the core ran somewhere between them).
 * Otherwise it is WRONG: a figure under its range unless a risen frequency
 * accounts for it (no other work makes a sample faster), a bias that moves
 * every sample, counts of instructions and branches (nothing else running
 * moves them).  The evidence is kept for the report either way. */
static void unsteady(const struct pmb_context *ctx, const struct pmb_known_answer *k, const struct pmb_figure *f,
		     struct pmb_check_figure *c)
{
	double g = ctx->m.ghz, ga = ctx->m.ghz_after, v = c->value;

	if (strcmp(k->what, "cycles") || f->simulated)
		return;
	c->seen_lo = f->s.min;
	c->seen_q1 = f->s.tukey.q1;
	c->seen_hi = f->s.max;
	/* The most a fixed cost per sample adds per item at a typical sample
	 * (pmb__fixed_cost's share bound of the median sample's cost). */
	c->fixed_hi = f->fixed_share_hi * v;
	c->quarter_in = f->s.n > 3 && v > k->hi && f->s.min >= k->lo && f->s.tukey.q1 <= k->hi &&
			!f->fixed_flagged && isfinite(c->fixed_hi) && v - c->fixed_hi > k->hi;
	c->speed_moved = f->estimated && g > 0 && ga > 0 && fabs(ga / g - 1) > SPEED_MOVED;
	c->at_after = c->speed_moved ? v * ga / g : NAN;
	bool explains = c->speed_moved && fmin(v, c->at_after) <= k->hi && fmax(v, c->at_after) >= k->lo;
	if (c->quarter_in || explains)
		c->verdict = PMB_CHECK_UNSTEADY;
}

void pmb__analysis_check(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig)
{
	const struct pmb_known_answer *k = r->m.inst ? r->m.inst->known : NULL;
	struct pmb_check_figure *c = &fig->check;
	const struct pmb_figure *f = NULL;

	memset(c, 0, sizeof(*c));
	c->event = -1;
	c->value = NAN;
	if (!k)
		return;
	c->verdict = PMB_CHECK_UNCHECKED;
	c->event = pmb__context_event(ctx, k->what);
	if (c->event >= 0)
		f = &fig->ev[c->event];
	else if (!strcmp(k->what, "cycles") && fig->est_cycles.valid)
		f = &fig->est_cycles;
	if (r->m.status || !f || !f->valid)
		return;
	c->value = f->s.median;
	c->estimated = f->estimated;
	c->simulated = f->simulated;
	c->verdict = c->value >= k->lo && c->value <= k->hi ? PMB_CHECK_OK : PMB_CHECK_WRONG;
	if (c->verdict == PMB_CHECK_WRONG)
		timeless(ctx, fig, c);
	if (c->verdict == PMB_CHECK_WRONG && !c->timeless)
		unsteady(ctx, k, f, c);
}
