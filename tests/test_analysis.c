/* test_analysis.c - analysis on constructed results: harness overhead, baselines, ratios, fixed cost, warnings, what a derived figure may claim. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "runner.h" /* pmb__overhead_fit: the measure stage's */
#include "tap.h"

#define NS 12

/* Samples of a benchmark costing `per_item` ns and `ev` events per item,
 * plus a fixed `fixed` ns per sample, plus the harness overhead. */
static void make(struct pmb_result *r, struct pmb_instance *in, double per_item, double ev,
		 double fixed, const struct pmb_overhead *o)
{
	memset(r, 0, sizeof(*r));
	r->m.inst = in;
	r->m.items_per_pass = 10;
	r->m.huge_fraction = -1;
	for (int i = 0; i < NS; i++) {
		struct pmb_sample s;
		uint64_t p = 1000u * (uint64_t)(1 + i % 4);

		memset(&s, 0, sizeof(s));
		s.passes = p;
		s.ns = (uint64_t)llround(per_item * (double)p * 10 + fixed + o->ns_per_sample +
					 o->ns_per_pass * (double)p);
		s.group = 0;
		s.mask = 1;
		s.count[0].value = (uint64_t)llround(ev * (double)p * 10 + o->ev_per_sample[0] +
						     o->ev_per_pass[0] * (double)p);
		s.count[0].enabled = s.count[0].running = 100;
		pmb__result_add_sample(r, &s);
	}
}

static struct pmb_benchmark_def def = { .name = "x" };

static void inst(struct pmb_instance *in, const char *name, int baseline, int reference)
{
	memset(in, 0, sizeof(*in));
	in->def = &def;
	snprintf(in->name, sizeof(in->name), "%s", name);
	snprintf(in->family, sizeof(in->family), "%s", name);
	in->baseline = baseline;
	in->reference = reference;
}

/* Make r's samples noisy: each sample's time moved by up to +/-spread of
 * itself, by a fixed pseudo-random sequence (seed). */
static void jitter(struct pmb_result *r, double spread, uint64_t seed)
{
	for (size_t i = 0; i < r->m.nsamples; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		double u = (double)(seed >> 11) * 0x1p-53 * 2 - 1;

		r->m.samples[i].ns = (uint64_t)llround((double)r->m.samples[i].ns * (1 + spread * u));
	}
}

/* Noise that hides a difference or flips its sign: no negative figure, the
 * reason in its place, a warning naming the benchmark. */
static void noisy_links(struct pmb_context *ctx)
{
	struct pmb_instance in[4];
	struct pmb_result r[4];

	inst(&in[0], "n/base", -1, -1);
	inst(&in[1], "n/same", 0, -1);   /* costs what its baseline does */
	inst(&in[2], "n/faster", 0, -1); /* measured faster than its baseline */
	inst(&in[3], "n/vs_same", 0, 1); /* against a reference of ~0 normalized */
	const double t[4] = { 10, 10, 9, 20 };
	for (int i = 0; i < 4; i++) {
		make(&r[i], &in[i], t[i], t[i], 0, &ctx->m.overhead);
		jitter(&r[i], i == 2 ? 0.001 : 0.05, 17 + (uint64_t)i);
	}
	pmb__context_free(ctx); /* this case's warnings alone */
	tap_ok(pmb__analyze(ctx, r, 4, 1) == 0, "analyze noisy links");
	const struct pmb_figure *same = &r[1].f.time, *fast = &r[2].f.time, *vs = &r[3].f.time;
	tap_ok(isnan(same->normalized) && same->normalized_why && !strcmp(same->normalized_why, PMB_WHY_BASE_EQUAL),
	       "a benchmark within noise of its baseline: no normalized figure, '%s'", same->normalized_why);
	tap_ok(isnan(fast->normalized) && fast->normalized_why && !strcmp(fast->normalized_why, PMB_WHY_BASE_SLOWER),
	       "a baseline measured slower: no negative figure, '%s'", fast->normalized_why);
	tap_ok(isnan(vs->ratio) && vs->ratio_why && !strcmp(vs->ratio_why, PMB_WHY_REF_UNRESOLVED) &&
		       isfinite(vs->raw_ratio) && vs->raw_ratio > 0,
	       "over a normalized reference of ~0: no ratio, '%s'; the raw ratio %.3f beside it", vs->ratio_why,
	       vs->raw_ratio);
	bool slower = false, noratio = false;
	for (int i = 0; i < pmb__context_nwarnings(ctx); i++) {
		slower |= strstr(pmb__context_warning(ctx, i), "slower than n/faster") != NULL;
		noratio |= strstr(pmb__context_warning(ctx, i), "no ratio to the reference for n/vs_same") != NULL;
	}
	tap_ok(slower && noratio, "warnings name the benchmarks (baseline slower, no ratio)");
	for (int i = 0; i < 4; i++)
		pmb__result_free_samples(&r[i]);
}

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b) + 1e-12;
}

/* Samples on the runner's ladder (1..4 x 1000 passes, 10 items a pass),
 * each sample costing cost(passes) ns plus the harness overhead. */
static void make_ladder(struct pmb_result *r, struct pmb_instance *in, double (*cost)(double),
			const struct pmb_overhead *o)
{
	memset(r, 0, sizeof(*r));
	r->m.inst = in;
	r->m.items_per_pass = 10;
	r->m.huge_fraction = -1;
	r->m.calib_passes = 1000;
	for (int i = 0; i < 4 * NS; i++) {
		struct pmb_sample s;
		double p = 1000.0 * (1 + i % 4) * (1 + 0.01 * (i % 7)); /* stretched a little */

		memset(&s, 0, sizeof(s));
		s.passes = (uint64_t)p;
		s.ns = (uint64_t)llround(cost((double)s.passes) + o->ns_per_sample +
					 o->ns_per_pass * (double)s.passes);
		pmb__result_add_sample(r, &s);
	}
}

/* 10 ns a pass and 20 us a sample: a fixed cost, nothing learned. */
static double cost_fixed(double p)
{
	return 20000 + 10 * p;
}

/* A pass costs 40 ns at first and falls towards 10 ns as it is learned:
 * the marginal cost per pass falls along the ladder. */
static double cost_learned(double p)
{
	return 10 * p + 30 * 1500 * (1 - exp(-p / 1500));
}

/* Rungs alternating between two speeds: modes, neither learning nor a
 * fixed cost. */
static double cost_modes(double p)
{
	int rung = (int)(p / 1000);

	return (rung == 2 || rung == 4 ? 20 : 10) * p;
}

/* The ladder and the repetitions (analysis_learn.c), on constructed
 * samples: learning is told from a fixed cost, modes between rungs and
 * between repetitions are marked multimodal and warned of. */
static void test_learning(struct pmb_context *ctx)
{
	struct pmb_instance in[3];
	struct pmb_result r[3];

	inst(&in[0], "ladder/fixed", -1, -1);
	inst(&in[1], "ladder/learned", -1, -1);
	inst(&in[2], "ladder/modes", -1, -1);
	make_ladder(&r[0], &in[0], cost_fixed, &ctx->m.overhead);
	make_ladder(&r[1], &in[1], cost_learned, &ctx->m.overhead);
	make_ladder(&r[2], &in[2], cost_modes, &ctx->m.overhead);
	pmb__analyze(ctx, r, 3, 1);
	tap_ok(!r[0].f.learning && fabs(r[0].f.ladder_fall) < 0.02,
	       "a fixed cost per sample is not learning: the marginal cost per pass stays (fall %.3f)",
	       r[0].f.ladder_fall);
	/* Marginals 10 + 30 e^(-x/1.5) between rungs: 1->2 about 19.7, 3->4 12.1. */
	tap_ok(r[1].f.learning && r[1].f.ladder_fall > 0.3 && r[1].f.ladder_fall < 0.5,
	       "a cost per pass falling with passes is learning (fall %.3f)", r[1].f.ladder_fall);
	tap_ok(!r[2].f.learning && r[2].f.rung_modes && r[2].f.time.s.multimodal,
	       "rungs in two modes are multimodal, not learning");
	tap_ok(!r[0].f.rung_modes && !r[1].f.rung_modes, "a fixed cost or learning is no mode between rungs");
	bool named = false, wrong = false;
	for (int i = 0; i < pmb__context_nwarnings(ctx); i++)
		if (strstr(pmb__context_warning(ctx, i), "falls as passes grow")) {
			named |= strstr(pmb__context_warning(ctx, i), "ladder/learned") && strstr(pmb__context_warning(ctx, i), "predictor") &&
				 strstr(pmb__context_warning(ctx, i), "prepare hook");
			wrong |= strstr(pmb__context_warning(ctx, i), "ladder/fixed") || strstr(pmb__context_warning(ctx, i), "ladder/modes");
		}
	tap_ok(named && !wrong, "the warning names the learned benchmark, the likely cause and what to do");
	for (int i = 0; i < 3; i++)
		pmb__result_free_samples(&r[i]);

	/* Two repetitions of one instance, 2x apart, each steady: modes
	 * between repetitions that no repetition shows. */
	struct pmb_instance rin;
	struct pmb_result rr[3];
	inst(&rin, "reps/two_modes", -1, -1);
	make(&rr[0], &rin, 0.23, 1, 0, &ctx->m.overhead);
	make(&rr[1], &rin, 0.47, 1, 0, &ctx->m.overhead);
	make(&rr[2], &rin, 0.23, 1, 0, &ctx->m.overhead);
	for (int k = 0; k < 3; k++)
		rr[k].m.repetition = k;
	pmb__analyze(ctx, rr, 3, 3);
	tap_ok(rr[0].f.rep_modes && rr[1].f.rep_modes && rr[0].f.time.s.multimodal && rr[1].f.time.s.multimodal,
	       "repetitions at 0.23 and 0.47 ns are reported multimodal");
	bool warned = false;
	for (int i = 0; i < pmb__context_nwarnings(ctx); i++)
		warned |= strstr(pmb__context_warning(ctx, i), "repetitions disagree beyond their intervals for reps/two_modes") != NULL;
	tap_ok(warned, "and warned of, by name");
	for (int k = 0; k < 3; k++)
		pmb__result_free_samples(&rr[k]);
	make(&rr[0], &rin, 0.23, 1, 0, &ctx->m.overhead);
	make(&rr[1], &rin, 0.23, 1, 0, &ctx->m.overhead);
	rr[1].m.repetition = 1;
	pmb__analyze(ctx, rr, 2, 2);
	tap_ok(!rr[0].f.rep_modes && !rr[0].f.time.s.multimodal, "repetitions that agree are one mode");
	pmb__result_free_samples(&rr[0]);
	pmb__result_free_samples(&rr[1]);
}

/* The penalty a branch study reports, on valgrind's simulated rates for
 * branch/sum_if p0..p50 (pmubench(7), MEASURED HERE): cost = 0.4 ns + 7 ns per misprediction
 * gives 7 ns exactly; rates too close together give none. */
static void test_penalty(void)
{
	const double sim[6] = { 0.000, 0.010, 0.051, 0.109, 0.301, 0.500 };
	double ns[6], flat[3] = { 0.4, 0.41, 0.42 };

	for (int k = 0; k < 6; k++)
		ns[k] = 0.4 + 7 * sim[k];
	tap_ok(near(pmb__branch_penalty(sim, ns, 6), 7, 1e-9), "penalty: the slope over the inputs (%.6f ns)",
	       pmb__branch_penalty(sim, ns, 6));
	ns[5] = 9; /* one input in another mode */
	tap_ok(fabs(pmb__branch_penalty(sim, ns, 6) - 7) < 0.5, "one outlying input moves it little (%.3f)",
	       pmb__branch_penalty(sim, ns, 6));
	tap_ok(isnan(pmb__branch_penalty(sim, flat, 3)), "rates spread by under 0.1: no penalty");
	tap_ok(isnan(pmb__branch_penalty(sim, ns, 2)), "under three inputs: no penalty");
}

#define SRC_LINE .line = __LINE__
/* The verdict's rules per input: the ratio's interval where linked, and
 * never a tie for intervals apart. */
static void test_winner(void)
{
	static const struct {
		int line;
		double y, ylo, yhi, l, llo, lhi, ratio, rlo, rhi;
		bool linked;
		int want;
	} rows[] = {
		{ SRC_LINE, 2.83, 2.8, 2.9, 0.33, 0.32, 0.34, NAN, NAN, NAN, false, 1 }, /* no reference */
		{ SRC_LINE, 0.33, 0.32, 0.34, 2.83, 2.8, 2.9, NAN, NAN, NAN, false, -1 },
		{ SRC_LINE, 1.00, 0.90, 1.10, 0.95, 0.85, 1.05, NAN, NAN, NAN, false, 0 },  /* overlap */
		{ SRC_LINE, 1.00, 0.90, 1.10, 0.95, 0.85, 1.05, 0.95, 0.80, 0.99, true, 1 }, /* ratio says */
		{ SRC_LINE, 1.00, 0.98, 1.02, 0.50, 0.49, 0.51, 0.50, 0.30, 1.20, true, 1 }, /* apart */
		{ SRC_LINE, 1.00, 0.90, 1.10, 1.00, 0.90, 1.10, 1.00, 0.80, 1.20, true, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pmb_figure y = { .valid = true }, l = { .valid = true };

		y.s.median = rows[i].y, y.s.ci_lo = rows[i].ylo, y.s.ci_hi = rows[i].yhi;
		l.s.median = rows[i].l, l.s.ci_lo = rows[i].llo, l.s.ci_hi = rows[i].lhi;
		l.ratio = rows[i].ratio, l.ratio_lo = rows[i].rlo, l.ratio_hi = rows[i].rhi;
		int w = pmb__branch_winner(&y, &l, rows[i].linked);
		tap_ok_at(rows[i].line, w == rows[i].want, "winner %d, want %d (row of line %d)", w, rows[i].want,
			  rows[i].line);
	}
}

/* Fixed-cost probes (short samples between the ladder's): the fixed cost
 * comes from them and the ladder's 1x, and no other figure sees them.  The
 * ladder's samples carry a disturbance of 2 % of their time that the
 * probes, being short, escape: against the ladder's 1x it weighs
 * i/(j - i), about 1/7, of a 1x sample's. */
static void probes(struct pmb_context *ctx)
{
	struct pmb_instance in;
	struct pmb_result a, b;
	const struct pmb_overhead *o = &ctx->m.overhead;
	const double fixed = 140000, per_pass = 170;

	inst(&in, "probed", -1, -1);
	make(&a, &in, per_pass / 10, 1, fixed, o);
	make(&b, &in, per_pass / 10, 1, fixed, o);
	for (size_t i = 0; i < b.m.nsamples; i++) {
		struct pmb_sample *s = &b.m.samples[i];

		s->ns += (uint64_t)llround(0.02 * (fixed + per_pass * (double)s->passes));
	}
	for (int k = 0; k < 3; k++) {
		struct pmb_sample s = a.m.samples[0];

		s.passes = 125 + (uint64_t)k;
		s.ns = (uint64_t)llround(fixed + per_pass * (double)s.passes + o->ns_per_sample +
					 o->ns_per_pass * (double)s.passes);
		s.count[0].value = (uint64_t)llround(10 * (double)s.passes + o->ev_per_sample[0] +
						     o->ev_per_pass[0] * (double)s.passes);
		pmb__result_add_probe(&a, &s);
		pmb__result_add_probe(&b, &s);
	}
	struct pmb_result plain;
	make(&plain, &in, per_pass / 10, 1, fixed, o);
	pmb__analyze(ctx, &a, 1, 1);
	pmb__analyze(ctx, &b, 1, 1);
	pmb__analyze(ctx, &plain, 1, 1);
	tap_ok(near(a.f.time.fixed_two_point, fixed, 1e-3) && near(a.f.ev[0].s.median, 1, 1e-9) &&
		       a.f.ev[0].fixed == 0,
	       "probes: the fixed cost exact on exact data (%.1f ns), none for the counter", a.f.time.fixed_two_point);
	tap_ok(a.f.time.s.median == plain.f.time.s.median && a.f.time.s.ci_lo == plain.f.time.s.ci_lo &&
		       a.f.ev[0].s.median == plain.f.ev[0].s.median && a.m.nsamples == plain.m.nsamples,
	       "probes: no other figure sees them (%.4f ns per item either way)", a.f.time.s.median);
	/* The share is of the ladder's median sample (1000 to 4000 passes,
	 * 3 each: 2500 passes), not of one the probes drag down. */
	double share = fixed / (fixed + per_pass * 2500);
	tap_ok(near(a.f.time.fixed_share, share, 1e-3) && near(plain.f.time.fixed_share, share, 1e-3),
	       "probes: the share is of a ladder sample, %.4f (%.4f; %.4f without probes)", share,
	       a.f.time.fixed_share, plain.f.time.fixed_share);
	/* Its bound, resolved or not, over the same median sample: what the
	 * self-check holds a reading against (analysis_check.c). */
	tap_ok(near(a.f.time.fixed_share_hi, a.f.time.fixed_hi / (fixed + per_pass * 2500), 1e-3) &&
		       a.f.time.fixed_share_hi >= a.f.time.fixed_share,
	       "probes: the share's bound is the interval's upper end over that sample, %.4f (%.4f)",
	       a.f.time.fixed_hi / (fixed + per_pass * 2500), a.f.time.fixed_share_hi);
	/* Flagged only from 10 ladder samples: 9 and 3 probes are not 12. */
	struct pmb_result nine;
	make(&nine, &in, per_pass / 10, 1, fixed, o);
	nine.m.nsamples = 9;
	for (size_t k = 0; k < a.m.nprobes; k++)
		pmb__result_add_probe(&nine, &a.m.probes[k]);
	pmb__analyze(ctx, &nine, 1, 1);
	tap_ok(a.f.time.fixed_flagged && !nine.f.time.fixed_flagged && nine.f.time.fixed > 0,
	       "probes: 12 ladder samples flag the fixed cost, 9 (and 3 probes) do not");
	pmb__result_free_samples(&nine);
	/* The fastest probe per pass is the longest (127 passes), the 1x is
	 * 1000 passes and 2 % slow: i * j / (j - i) * (t_i - t_j). */
	double ti = (fixed + per_pass * 127) / 127, tj = 1.02 * (fixed + per_pass * 1000) / 1000;
	double want = 127.0 * 1000 / (1000 - 127) * (ti - tj);
	tap_ok(near(b.f.time.fixed_two_point, want, 1e-4) && want / fixed - 1 > -0.01,
	       "probes: a disturbance of 2 %% of the time that the short samples escape moves the estimate "
	       "%+.2f %% (%.0f ns, exactly i/(j - i) of the 1x's)",
	       (b.f.time.fixed_two_point / fixed - 1) * 100, b.f.time.fixed_two_point);
	pmb__result_free_samples(&a);
	pmb__result_free_samples(&b);
	pmb__result_free_samples(&plain);
}

/* A derived figure per item (instructions x 1000, "ipki"): what it may
 * claim, decided by the analysis: its value over 2 per item, resolved; its
 * bound (the numerator's resolution x 1000) where the numerator is below
 * resolution. */
static void derived_given(struct pmb_context *ctx)
{
	struct pmb_instance in;
	struct pmb_result some, none;

	ctx->m.plan.nder = 1;
	ctx->m.plan.der[0] = (struct pmb_derived){ .name = "ipki", .num = 0, .den = -1, .scale = 1000 };
	inst(&in, "d", -1, -1);
	make(&some, &in, 5, 2, 0, &ctx->m.overhead);
	make(&none, &in, 5, 0, 0, &ctx->m.overhead);
	pmb__analyze(ctx, &some, 1, 1);
	pmb__analyze(ctx, &none, 1, 1);
	tap_ok(some.f.derived_given[0] == PMB_DERIVED_VALUE && near(some.f.derived[0], 2000, 1e-9) &&
		       isnan(some.f.derived_bound[0]),
	       "derived: 2 per item resolved, x1000: the value %.6g, no bound", some.f.derived[0]);
	tap_ok(none.f.ev[0].below_resolution && none.f.derived_given[0] == PMB_DERIVED_BOUND &&
		       none.f.derived_bound[0] == none.f.ev[0].resolution * 1000,
	       "derived: a numerator below resolution: the bound, its resolution x1000 (%.6g)",
	       none.f.derived_bound[0]);
	ctx->m.plan.nder = 0;
	pmb__result_free_samples(&some);
	pmb__result_free_samples(&none);
}

int main(void)
{
	struct pmb_context ctx;
	struct pmb_instance in[7];
	struct pmb_result r[7];

	memset(&ctx, 0, sizeof(ctx));
	ctx.m.backend = PMB_BACKEND_PERF;
	ctx.m.clock.resolution_ns = 1;
	ctx.m.plan.nev = 1;
	strcpy(ctx.m.plan.ev[0].name, "instructions");
	ctx.m.event_group[0] = 0;

	/* The harness overhead is fitted from samples at N and 2N. */
	struct pmb_sample ov[20];
	memset(ov, 0, sizeof(ov));
	for (int i = 0; i < 20; i++) {
		ov[i].passes = i % 2 ? 2000000 : 1000000;
		ov[i].ns = (uint64_t)(250 + 0.5 * (double)ov[i].passes);
		ov[i].mask = 1;
		ov[i].count[0].value = (uint64_t)(40 + 3 * ov[i].passes);
		ov[i].count[0].enabled = ov[i].count[0].running = 1;
	}
	tap_ok(pmb__overhead_fit(ov, 20, &ctx.m.overhead) == 0, "overhead fit");
	tap_ok(near(ctx.m.overhead.ns_per_pass, 0.5, 1e-9) && near(ctx.m.overhead.ns_per_sample, 250, 1e-9),
	       "harness time: 0.5 ns per pass and 250 ns per sample (%.6f, %.3f)", ctx.m.overhead.ns_per_pass,
	       ctx.m.overhead.ns_per_sample);
	tap_ok(near(ctx.m.overhead.ev_per_pass[0], 3, 1e-9) && near(ctx.m.overhead.ev_per_sample[0], 40, 1e-9),
	       "harness counts: 3 per pass and 40 per sample for the event too");

	/* The casting example: raw times differ 2.75x, overhead-free 4.85x.
	 * Direct is the additive baseline of all, NormalCast the reference. */
	inst(&in[0], "cast/direct", -1, -1);
	inst(&in[1], "cast/normal", 0, -1);
	inst(&in[2], "cast/explicit", 0, 1);
	inst(&in[3], "cast/dynamic", 0, 1);
	inst(&in[4], "cast/explicit_vs_dynamic", 0, 3);
	const double t[5] = { 16.2276, 16.5152, 80.6373, 29.4733, 80.6373 };
	for (int i = 0; i < 5; i++)
		make(&r[i], &in[i], t[i], 2 * t[i], 0, &ctx.m.overhead);
	/* A sixth benchmark with a fixed setup cost inside its loop. */
	inst(&in[5], "setup_inside", -1, -1);
	make(&r[5], &in[5], 5.0, 1, 20000, &ctx.m.overhead);
	/* A seventh with a larger one: each is named with its own figure. */
	inst(&in[6], "setup_inside_more", -1, -1);
	make(&r[6], &in[6], 5.0, 1, 1500000, &ctx.m.overhead);
	tap_ok(pmb__analyze(&ctx, r, 7, 1) == 0, "analyze");

	for (int i = 0; i < 5; i++)
		tap_ok(near(r[i].f.time.s.median, t[i], 1e-5), "%s: raw %.4f ns per item after overhead (%.6f)",
		       in[i].name, t[i], r[i].f.time.s.median);
	tap_ok(near(r[0].f.time.normalized, 0, 1e-9) || isnan(r[0].f.time.normalized),
	       "the baseline normalizes to nothing");
	tap_ok(near(r[1].f.time.normalized, 0.2876, 1e-4), "normal: normalized 0.2876 ns (%.5f)", r[1].f.time.normalized);
	tap_ok(near(r[2].f.time.normalized, 64.4097, 1e-5), "explicit: normalized 64.4097 ns (%.5f)",
	       r[2].f.time.normalized);
	tap_ok(near(r[3].f.time.normalized, 13.2457, 1e-5), "dynamic: normalized 13.2457 ns (%.5f)",
	       r[3].f.time.normalized);
	tap_ok(near(r[2].f.time.ratio, 223.96, 1e-3), "explicit: ratio 223.96 (%.3f)", r[2].f.time.ratio);
	tap_ok(near(r[3].f.time.ratio, 46.06, 1e-3), "dynamic: ratio 46.06 (%.3f)", r[3].f.time.ratio);
	tap_ok(near(r[4].f.time.ratio, 64.4097 / 13.2457, 1e-5) && near(t[4] / t[3], 2.736, 1e-3),
	       "raw 2.74x apart, overhead-free %.3fx apart", r[4].f.time.ratio);
	tap_ok(r[3].f.time.ratio_lo <= r[3].f.time.ratio && r[3].f.time.ratio <= r[3].f.time.ratio_hi &&
		       near(r[3].f.time.ratio_lo, r[3].f.time.ratio, 1e-6),
	       "the ratio's interval holds it (exact data: zero width)");
	/* The same for the counter: twice the time's figures. */
	tap_ok(near(r[2].f.ev[0].s.median, 2 * t[2], 1e-5), "counter per item with the harness's counts subtracted");
	tap_ok(near(r[2].f.ev[0].normalized, 2 * 64.4097, 1e-5) && near(r[2].f.ev[0].ratio, 223.96, 1e-3),
	       "baselines apply to the counter too (%.4f, %.3f)", r[2].f.ev[0].normalized, r[2].f.ev[0].ratio);
	tap_ok(near(r[2].f.items_per_second, 1e9 / t[2], 1e-5), "items per second");

	/* Fixed cost: 20 us per sample recovered and flagged. */
	tap_ok(near(r[5].f.time.fixed, 20000, 0.01), "fixed cost per sample recovered (%.1f ns)", r[5].f.time.fixed);
	tap_ok(near(r[5].f.time.fixed_two_point, 20000, 0.01), "two-point cross-check agrees (%.1f ns)",
	       r[5].f.time.fixed_two_point);
	tap_ok(r[0].f.time.fixed_share < 0.01, "no fixed cost where there is none (%.4f)", r[0].f.time.fixed_share);
	const char *fw = NULL;
	for (int i = 0; i < pmb__context_nwarnings(&ctx); i++)
		if (strstr(pmb__context_warning(&ctx, i), "move setup out of it"))
			fw = pmb__context_warning(&ctx, i);
	tap_ok(fw != NULL, "the fixed cost is flagged with what to do");
	/* One line per benchmark, its own figure in human units, worst first. */
	const char *l1 = fw ? strstr(fw, "\n  fixed cost 1.5 ms per sample (") : NULL;
	const char *l2 = fw ? strstr(fw, "\n  fixed cost 20.0 us per sample (") : NULL;
	tap_ok(l1 && l2 && l1 < l2 && strstr(l1, ") in setup_inside_more\n") && strstr(l2, ") in setup_inside") &&
		       !strchr(l2 + 1, '\n'),
	       "each benchmark with a fixed cost is named with its own figure, the larger first");

	probes(&ctx);

	/* Below resolution: reported as such, never as a negative figure. */
	struct pmb_instance e;
	struct pmb_result re;
	inst(&e, "empty", -1, -1);
	make(&re, &e, 0, 0, 0, &ctx.m.overhead);
	pmb__analyze(&ctx, &re, 1, 1);
	tap_ok(re.f.time.below_resolution, "an empty body is below resolution (%.5f < %.5f)", re.f.time.s.median,
	       re.f.time.resolution);

	noisy_links(&ctx);
	derived_given(&ctx);

	/* A warning is given once however often it is raised. */
	int before = pmb__context_nwarnings(&ctx);
	pmb__context_warn(&ctx.f, &ctx, "same %d", 1);
	pmb__context_warn(&ctx.f, &ctx, "same %d", 1);
	tap_ok(pmb__context_nwarnings(&ctx) == before + 1, "each warning once");

	test_learning(&ctx);
	test_penalty();
	test_winner();

	for (int i = 0; i < 7; i++)
		pmb__result_free_samples(&r[i]);
	pmb__result_free_samples(&re);
	pmb__context_free(&ctx);
	return tap_done();
}
