/* test_analysis.c - analysis on constructed results: harness overhead, baselines, ratios, fixed cost, warnings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "tap.h"

#define NS 12

/* Samples of a benchmark costing `per_item` ns and `ev` events per item,
 * plus a fixed `fixed` ns per sample, plus the harness overhead. */
static void make(struct pmb_result *r, struct pmb_instance *in, double per_item, double ev,
		 double fixed, const struct pmb_overhead *o)
{
	memset(r, 0, sizeof(*r));
	r->inst = in;
	r->items_per_pass = 10;
	r->huge_fraction = -1;
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

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b) + 1e-12;
}

int main(void)
{
	struct pmb_context ctx;
	struct pmb_instance in[7];
	struct pmb_result r[7];

	memset(&ctx, 0, sizeof(ctx));
	ctx.backend = PMB_BACKEND_PERF;
	ctx.clock.resolution_ns = 1;
	ctx.plan.nev = 1;
	strcpy(ctx.plan.ev[0].name, "instructions");
	ctx.event_group[0] = 0;

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
	tap_ok(pmb__overhead_fit(ov, 20, &ctx.overhead) == 0, "overhead fit");
	tap_ok(near(ctx.overhead.ns_per_pass, 0.5, 1e-9) && near(ctx.overhead.ns_per_sample, 250, 1e-9),
	       "harness time: 0.5 ns per pass and 250 ns per sample (%.6f, %.3f)", ctx.overhead.ns_per_pass,
	       ctx.overhead.ns_per_sample);
	tap_ok(near(ctx.overhead.ev_per_pass[0], 3, 1e-9) && near(ctx.overhead.ev_per_sample[0], 40, 1e-9),
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
		make(&r[i], &in[i], t[i], 2 * t[i], 0, &ctx.overhead);
	/* A sixth benchmark with a fixed setup cost inside its loop. */
	inst(&in[5], "setup_inside", -1, -1);
	make(&r[5], &in[5], 5.0, 1, 20000, &ctx.overhead);
	/* A seventh with a larger one: each is named with its own figure. */
	inst(&in[6], "setup_inside_more", -1, -1);
	make(&r[6], &in[6], 5.0, 1, 1500000, &ctx.overhead);
	tap_ok(pmb__analyze(&ctx, r, 7, 1) == 0, "analyze");

	for (int i = 0; i < 5; i++)
		tap_ok(near(r[i].time.s.median, t[i], 1e-5), "%s: raw %.4f ns per item after overhead (%.6f)",
		       in[i].name, t[i], r[i].time.s.median);
	tap_ok(near(r[0].time.normalized, 0, 1e-9) || isnan(r[0].time.normalized),
	       "the baseline normalizes to nothing");
	tap_ok(near(r[1].time.normalized, 0.2876, 1e-4), "normal: normalized 0.2876 ns (%.5f)", r[1].time.normalized);
	tap_ok(near(r[2].time.normalized, 64.4097, 1e-5), "explicit: normalized 64.4097 ns (%.5f)",
	       r[2].time.normalized);
	tap_ok(near(r[3].time.normalized, 13.2457, 1e-5), "dynamic: normalized 13.2457 ns (%.5f)",
	       r[3].time.normalized);
	tap_ok(near(r[2].time.ratio, 223.96, 1e-3), "explicit: ratio 223.96 (%.3f)", r[2].time.ratio);
	tap_ok(near(r[3].time.ratio, 46.06, 1e-3), "dynamic: ratio 46.06 (%.3f)", r[3].time.ratio);
	tap_ok(near(r[4].time.ratio, 64.4097 / 13.2457, 1e-5) && near(t[4] / t[3], 2.736, 1e-3),
	       "raw 2.74x apart, overhead-free %.3fx apart", r[4].time.ratio);
	tap_ok(r[3].time.ratio_lo <= r[3].time.ratio && r[3].time.ratio <= r[3].time.ratio_hi &&
		       near(r[3].time.ratio_lo, r[3].time.ratio, 1e-6),
	       "the ratio's interval holds it (exact data: zero width)");
	/* The same for the counter: twice the time's figures. */
	tap_ok(near(r[2].ev[0].s.median, 2 * t[2], 1e-5), "counter per item with the harness's counts subtracted");
	tap_ok(near(r[2].ev[0].normalized, 2 * 64.4097, 1e-5) && near(r[2].ev[0].ratio, 223.96, 1e-3),
	       "baselines apply to the counter too (%.4f, %.3f)", r[2].ev[0].normalized, r[2].ev[0].ratio);
	tap_ok(near(r[2].items_per_second, 1e9 / t[2], 1e-5), "items per second");

	/* Fixed cost: 20 us per sample recovered and flagged. */
	tap_ok(near(r[5].time.fixed, 20000, 0.01), "fixed cost per sample recovered (%.1f ns)", r[5].time.fixed);
	tap_ok(near(r[5].time.fixed_two_point, 20000, 0.01), "two-point cross-check agrees (%.1f ns)",
	       r[5].time.fixed_two_point);
	tap_ok(r[0].time.fixed_share < 0.01, "no fixed cost where there is none (%.4f)", r[0].time.fixed_share);
	const char *fw = NULL;
	for (int i = 0; i < ctx.nwarnings; i++)
		if (strstr(ctx.warnings[i], "move setup out of it"))
			fw = ctx.warnings[i];
	tap_ok(fw != NULL, "the fixed cost is flagged with what to do");
	/* One line per benchmark, its own figure in human units, worst first. */
	const char *l1 = fw ? strstr(fw, "\n  fixed cost 1.5 ms per sample (") : NULL;
	const char *l2 = fw ? strstr(fw, "\n  fixed cost 20.0 us per sample (") : NULL;
	tap_ok(l1 && l2 && l1 < l2 && strstr(l1, ") in setup_inside_more\n") && strstr(l2, ") in setup_inside") &&
		       !strchr(l2 + 1, '\n'),
	       "each benchmark with a fixed cost is named with its own figure, the larger first");

	/* Below resolution: reported as such, never as a negative figure. */
	struct pmb_instance e;
	struct pmb_result re;
	inst(&e, "empty", -1, -1);
	make(&re, &e, 0, 0, 0, &ctx.overhead);
	pmb__analyze(&ctx, &re, 1, 1);
	tap_ok(re.time.below_resolution, "an empty body is below resolution (%.5f < %.5f)", re.time.s.median,
	       re.time.resolution);

	/* A warning is given once however often it is raised. */
	int before = ctx.nwarnings;
	pmb__context_warn(&ctx, "same %d", 1);
	pmb__context_warn(&ctx, "same %d", 1);
	tap_ok(ctx.nwarnings == before + 1, "each warning once");

	for (int i = 0; i < 6; i++)
		free(r[i].samples);
	free(re.samples);
	pmb__context_free(&ctx);
	return tap_done();
}
