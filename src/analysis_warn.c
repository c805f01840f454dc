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
	struct namelist noisy, fixed, fast, overlap, fast_or_overlap, multiplexed, modes, nobranch, reps;
	struct namelist slower, unresolved, noratio, learned, rep_modes;
	double worst_err, worst_fixed, worst_rep, worst_fall;
	const struct pmb_figure *worst_fixed_fig;
	const char *fixed_unit;
};

/* What r's time figure shows: noise, clusters, repetitions that differ. */
static void find_in_time(const struct pmb_result *r, struct findings *k)
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

/* What r's cost figure (time, or under sim its instructions) shows: a
 * fixed cost per sample, a baseline or reference that gives no figure. */
static void find_in_cost(const struct pmb_context *ctx, const struct pmb_result *r, int ins, struct findings *k)
{
	const struct pmb_figure *f = pmb__cost_figure(ctx, r, ins);
	const char *nw = f->normalized_why, *rw = f->ratio_why;

	if (!f->valid)
		return;
	/* A body below resolution with a fixed cost is the worst case (the
	 * work removed, the setup measured): flagged too. */
	if (f->fixed_flagged && !r->inst->def->empty) {
		add_name(&k->fixed, r->inst->name);
		if (f->fixed_share > k->worst_fixed) {
			k->worst_fixed = f->fixed_share;
			k->worst_fixed_fig = f;
			k->fixed_unit = f == &r->time ? "ns" : ctx->plan.ev[ins >= 0 ? ins : 0].name;
		}
	}
	if (nw && !strcmp(nw, PMB_WHY_BASE_SLOWER))
		add_name(&k->slower, r->inst->name);
	else if (nw && !strcmp(nw, PMB_WHY_BASE_EQUAL))
		add_name(&k->unresolved, r->inst->name);
	if (rw && strcmp(rw, PMB_WHY_REF_MISSING) && !(nw && !strcmp(rw, PMB_WHY_BASE_SLOWER)))
		add_name(&k->noratio, r->inst->name);
}

/* Too fast to be true: the work was removed, or it overlaps the loop's own
 * dependency chain (its latency hidden, its instructions there).  Counted
 * instructions tell the two apart; time alone cannot. */
static void find_too_fast(const struct pmb_context *ctx, const struct pmb_result *r, int ins, struct findings *k)
{
	const struct pmb_figure *t = &r->time, *in = ins >= 0 && r->ev[ins].valid ? &r->ev[ins] : NULL;
	/* Under 0.05 ns per item cannot be true, unless the items are bytes
	 * streamed at a bandwidth the machine can have (a memcpy reference at
	 * tens of GB/s is fast, not wrong). */
	bool plausible_bw = r->bytes_per_second > 0 && r->bytes_per_second < 200e9;
	bool fast_time = t->valid && (t->s.median < 0.05 || t->below_resolution) && !plausible_bw;

	if (r->inst->def->empty)
		return;
	if (pmb_context_sim(ctx)) {
		/* Exact counts: only no instructions at all is no work. */
		if (in && in->below_resolution)
			add_name(&k->fast, r->inst->name);
		return;
	}
	if (in && in->s.median < 0.1)
		add_name(&k->fast, r->inst->name);
	else if (fast_time && in)
		add_name(&k->overlap, r->inst->name);
	else if (fast_time)
		add_name(&k->fast_or_overlap, r->inst->name);
}

/* What r's counts show: multiplexed, a "branchy" kernel without branches
 * (br: that event's plan index, or -1). */
static void find_in_counts(const struct pmb_context *ctx, const struct pmb_result *r, int br,
			   struct findings *k)
{
	for (int e = 0; e < ctx->plan.nev; e++)
		if (r->ev[e].multiplexed == 1) {
			add_name(&k->multiplexed, r->inst->name);
			break;
		}
	if (br >= 0 && r->ev[br].valid && r->inst->def->role == PMB_ROLE_BRANCHY &&
	    r->ev[br].s.median < 0.5)
		add_name(&k->nobranch, r->inst->name);
}

/* The warnings about what the figures claim: a fixed cost per sample,
 * work too fast to be true, baselines and references that give no figure. */
static void warn_claims(struct pmb_context *ctx, struct findings *k)
{
	const struct pmb_figure *f = k->worst_fixed_fig;

	if (k->fixed.count)
		pmb__context_warn(ctx, "fixed cost per sample inside the measured loop for %s: up to %.4g %s "
				 "[95%% CI %.4g, %.4g] (%.0f %% of a sample, flagged from %.0f %%; the two-point "
				 "check i*j*(t_i - t_j)/(j - i)): move setup out of it",
				 names(&k->fixed), f->fixed, k->fixed_unit, f->fixed_lo, f->fixed_hi,
				 k->worst_fixed * 100, PMB_FIXED_SHARE * 100);
	if (k->fast.count)
		pmb__context_warn(ctx, "%s for %s: cannot be true; the compiler may have removed the work: "
				 "use pmb_do_not_optimize", pmb_context_sim(ctx) ?
				 "no instructions per item (simulated)" : "under 0.1 instruction per item",
				 names(&k->fast));
	if (k->overlap.count)
		pmb__context_warn(ctx, "under 0.05 ns per item or not told from 0 for %s, yet its instructions run: the body "
				 "overlaps the loop's own dependency chain, its latency hidden; measure it "
				 "in a loop it cannot overlap (a longer batch per pass)", names(&k->overlap));
	if (k->fast_or_overlap.count)
		pmb__context_warn(ctx, "under 0.05 ns per item or not told from 0 for %s: either the body was removed (use "
				 "pmb_do_not_optimize) or it overlaps the loop's own dependency chain; "
				 "--backend=sim counts its instructions and tells them apart",
				 names(&k->fast_or_overlap));
	if (k->slower.count)
		pmb__context_warn(ctx, "the baseline measured slower than %s: no normalized figure; a baseline "
				 "holds only the overhead its benchmarks share, or the run was disturbed: "
				 "rerun", names(&k->slower));
	if (k->unresolved.count)
		pmb__context_warn(ctx, "%s not told apart from its baseline (the normalized figure's interval "
				 "holds 0): no normalized figure; raise --samples", names(&k->unresolved));
	if (k->noratio.count)
		pmb__context_warn(ctx, "no ratio to the reference for %s: its interval holds 0 or the "
				 "reference is not resolved (the cell says which)", names(&k->noratio));
}

void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n)
{
	struct findings k = { .worst_err = 0 };
	int ins = pmb__context_event(ctx, "instructions"), br = pmb__context_event(ctx, "branches");

	for (size_t i = 0; i < n; i++) {
		if (res[i].status)
			continue;
		find_in_time(&res[i], &k);
		find_in_cost(ctx, &res[i], ins, &k);
		find_too_fast(ctx, &res[i], ins, &k);
		find_in_counts(ctx, &res[i], br, &k);
	}
	if (k.noisy.count)
		pmb__context_warn(ctx, "error above 5 %% (up to +/-%.0f %%) for %s: the machine is noisy; "
				 "close other programs, or raise --samples or --min-sample-time",
				 k.worst_err * 100, names(&k.noisy));
	warn_claims(ctx, &k);
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
