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

/* How far the frequency estimate made after the checks may stand from the
 * one their cycles are estimated with, relative, before the core is taken
 * not to have kept its speed: the add chain's check allows 10 %. */
#define SPEED_MOVED 0.05

/* A cycles figure out of its range is judged only where the core kept
 * steady through it.  It did not where some of its samples gave the known
 * answer and others did not (the samples' fastest and slowest per item
 * hold the range between them: something else took the core's caches or
 * time for part of the check, as a VM's host does unseen), or, for cycles
 * estimated from time, where the frequency estimated again after the
 * checks moved from the one used.  Counts of instructions and branches do
 * not depend on what else runs: out of range, they are WRONG. */
static void unsteady(const struct pmb_context *ctx, const struct pmb_known_answer *k, const struct pmb_figure *f,
		     struct pmb_check_figure *c)
{
	double g = ctx->m.ghz, ga = ctx->m.ghz_after;

	if (strcmp(k->what, "cycles"))
		return;
	c->seen_lo = f->s.min;
	c->seen_hi = f->s.max;
	c->straddles = f->s.n > 1 && f->s.min <= k->hi && f->s.max >= k->lo;
	c->speed_moved = f->estimated && g > 0 && ga > 0 && fabs(ga / g - 1) > SPEED_MOVED;
	if (c->straddles || c->speed_moved)
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
