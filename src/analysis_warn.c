/* analysis_warn.c - the warnings the figures call for: noise, fixed costs, results too fast to be true, multiplexing, clusters, spread repetitions, an input being learned, a branchy kernel without branches. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

/* One warning per kind, naming the benchmarks it concerns. */
struct namelist {
	char buf[400];
	int count;
};

static void add_name(struct namelist *l, const char *name)
{
	size_t len = strlen(l->buf);

	/* Once per benchmark, however many repetitions raised it. */
	for (const char *p = l->buf; (p = strstr(p, name)); p += strlen(name))
		if ((p == l->buf || p[-1] == ' ') && (p[strlen(name)] == ',' || !p[strlen(name)] ||
						      p[strlen(name)] == ' '))
			return;

	if (l->count < 4)
		snprintf(l->buf + len, sizeof(l->buf) - len, "%s%s", l->count ? ", " : "", name);
	l->count++;
}

static const char *names(struct namelist *l)
{
	size_t len = strlen(l->buf);

	if (l->count > 4)
		snprintf(l->buf + len, sizeof(l->buf) - len, " and %d more", l->count - 4);
	return l->buf;
}

/* What the warnings name: the benchmarks of each kind, and the worst. */
struct findings {
	struct namelist noisy, fixed, fast, multiplexed, modes, nobranch, reps, learned, rep_modes;
	double worst_fall;
	double worst_err, worst_fixed, worst_fixed_ns, worst_two_point, worst_rep;
};

/* What r's time figure shows: noise, a fixed cost, clusters, repetitions
 * that differ. */
static void find_in_time(const struct pmb_context *ctx, const struct pmb_result *r, struct findings *k)
{
	const struct pmb_figure *t = &r->time;
	bool resolved = t->valid && !t->below_resolution && !r->inst->def->empty;

	/* Relative error of a figure that should be zero means nothing. */
	if (resolved && t->s.median > 0) {
		double err = (t->s.ci_hi - t->s.ci_lo) / 2 / t->s.median;

		if (err > 0.05) {
			add_name(&k->noisy, r->inst->name);
			if (err > k->worst_err)
				k->worst_err = err;
		}
	}
	if (resolved && t->fixed_share > 0.05 && t->fixed > 10 * ctx->clock.resolution_ns) {
		add_name(&k->fixed, r->inst->name);
		if (t->fixed_share > k->worst_fixed) {
			k->worst_fixed = t->fixed_share;
			k->worst_fixed_ns = t->fixed;
			k->worst_two_point = t->fixed_two_point;
		}
	}
	if (t->valid && t->s.multimodal)
		add_name(&k->modes, r->inst->name);
	if (r->learning) {
		add_name(&k->learned, r->inst->name);
		k->worst_fall = fmax(k->worst_fall, r->ladder_fall);
	}
	if (r->rep_modes)
		add_name(&k->rep_modes, r->inst->name);
	if (!r->inst->def->empty && isfinite(r->rep_spread) && r->rep_spread > 0.05 &&
	    !t->below_resolution) {
		add_name(&k->reps, r->inst->name);
		k->worst_rep = fmax(k->worst_rep, r->rep_spread);
	}
}

/* What r's counts show: too fast to be true, multiplexed, a "branchy"
 * kernel without branches (ins, br: those events' plan index, or -1). */
static void find_in_counts(const struct pmb_context *ctx, const struct pmb_result *r, int ins, int br,
			   struct findings *k)
{
	const struct pmb_figure *t = &r->time;
	/* Under 0.05 ns per item cannot be true, unless the items are bytes
	 * streamed at a bandwidth the machine can have (a memcpy reference at
	 * tens of GB/s is fast, not wrong). */
	bool plausible_bw = r->bytes_per_second > 0 && r->bytes_per_second < 200e9;

	if (!r->inst->def->empty &&
	    ((t->valid && t->s.median < 0.05 && !plausible_bw) ||
	     (ins >= 0 && r->ev[ins].valid && r->ev[ins].s.median < 0.1)))
		add_name(&k->fast, r->inst->name);
	for (int e = 0; e < ctx->plan.nev; e++)
		if (r->ev[e].multiplexed == 1) {
			add_name(&k->multiplexed, r->inst->name);
			break;
		}
	if (br >= 0 && r->ev[br].valid && r->inst->def->role == PMB_ROLE_BRANCHY &&
	    r->ev[br].s.median < 0.5)
		add_name(&k->nobranch, r->inst->name);
}

void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n)
{
	struct findings k = { .worst_two_point = NAN };
	int ins = pmb__context_event(ctx, "instructions"), br = pmb__context_event(ctx, "branches");

	for (size_t i = 0; i < n; i++) {
		if (res[i].status)
			continue;
		find_in_time(ctx, &res[i], &k);
		find_in_counts(ctx, &res[i], ins, br, &k);
	}
	if (k.noisy.count)
		pmb__context_warn(ctx, "error above 5 %% (up to +/-%.0f %%) for %s: the machine is noisy; "
				 "close other programs, or raise --samples or --min-sample-time",
				 k.worst_err * 100, names(&k.noisy));
	if (k.fixed.count)
		pmb__context_warn(ctx, "fixed cost of %.0f ns per sample inside the measured loop "
				 "(%.0f %% of a sample; two-point check i*j*(t_i - t_j)/(j - i): %.0f ns) "
				 "for %s: move setup out of it",
				 k.worst_fixed_ns, k.worst_fixed * 100, k.worst_two_point, names(&k.fixed));
	if (k.fast.count)
		pmb__context_warn(ctx, "under 0.05 ns or 0.1 instruction per item for %s: cannot be true; "
				 "the compiler may have removed the work: use pmb_do_not_optimize",
				 names(&k.fast));
	if (k.multiplexed.count)
		pmb__context_warn(ctx, "counters were multiplexed for %s: their values are estimates "
				 "(scaled by time running); ask for fewer --counters", names(&k.multiplexed));
	if (k.reps.count)
		pmb__context_warn(ctx, "repetitions differ by up to %.0f %% for %s: each call with its own "
				 "setup measured differently (alignment, page placement, a disturbed run); "
				 "report the spread, not one repetition", k.worst_rep * 100, names(&k.reps));
	if (k.modes.count)
		pmb__context_warn(ctx, "samples fall in separate clusters for %s: something changed "
				 "during the run (frequency, migration, another process); rerun "
				 "on a quiet machine", names(&k.modes));
	if (k.learned.count)
		pmb__context_warn(ctx, "the cost per pass falls as passes grow (by up to %.0f %% along the "
				 "ladder of pass counts) for %s: a branch predictor or a cache is likely "
				 "learning an input that every pass repeats; give each pass data it has not "
				 "seen (a prepare hook, pmubench(3)), then compare two --min-sample-time values",
				 k.worst_fall * 100, names(&k.learned));
	if (k.rep_modes.count)
		pmb__context_warn(ctx, "repetitions disagree beyond their intervals for %s (reported as "
				 "multimodal): two modes between calls, or an input learned better in one "
				 "(a branch predictor, a cache); give each pass fresh data (a prepare hook, "
				 "pmubench(3)) and report every repetition, not one", names(&k.rep_modes));
	if (k.nobranch.count)
		pmb__context_warn(ctx, "a 'branchy' kernel with under 0.5 branches per item: %s: "
				 "the compiler removed its branch; read its disassembly", names(&k.nobranch));
}
