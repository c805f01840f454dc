/* test_loop.c - the measured loop: empty body measures ~0 after subtraction, known cost scales with items. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "clock.h"
#include "runner.h"
#include "tap.h"

/* A dependent multiply chain: a fixed cost per step that the optimizer
 * cannot shorten, and that runs the same whatever the batch size. */
static inline uint64_t step(uint64_t x)
{
	TAP_MUL_STEP(x);
	return x;
}

static int calls;

static void bm_empty(struct pmb_state *s)
{
	calls++;
	while (pmb_loop(s)) {
	}
}

static void bm_work(struct pmb_state *s)
{
	uint64_t n = (uint64_t)pmb_arg(s, 0), x = 3;

	calls++;
	while (pmb_loop_batch(s, n))
		for (uint64_t i = 0; i < n; i++)
			x = step(x);
	pmb_do_not_optimize(x);
}

static void bm_setup_inside(struct pmb_state *s)
{
	uint64_t x = 3;

	while (pmb_loop_batch(s, 64)) {
		for (int i = 0; i < 64; i++)
			x = step(x);
	}
	pmb_do_not_optimize(x);
}

/* A prepare hook that takes 5 ms: outside the measurement, it must not
 * show in the figures; it records the passes it was told. */
static uint64_t told[512];
static size_t ntold;

static void slow_prepare(struct pmb_state *s, uint64_t passes)
{
	uint64_t t0 = pmb_clock_ns();

	*(int *)pmb_user_data(s) += 1;
	if (ntold < 512)
		told[ntold++] = passes;
	while (pmb_clock_ns() - t0 < 5000000)
		;
}

static void bm_prepared(struct pmb_state *s)
{
	uint64_t x = 3;
	int calls_seen = 0;

	pmb_set_user_data(s, &calls_seen);
	while (pmb_loop_batch(s, 64))
		for (int i = 0; i < 64; i++)
			x = step(x);
	pmb_do_not_optimize(x);
}

/* The prepare hook: called before every sample with its passes, never
 * measured. */
static void test_prepare(const struct pmb_runner_opts *o, struct pmb_context *ctx)
{
	struct pmb_benchmark_def plain = { .func = bm_prepared, .name = "plain" };
	struct pmb_benchmark_def slow = { .func = bm_prepared, .name = "slow", .prepare = slow_prepare };
	struct pmb_instance in[2];
	struct pmb_result res[2];
	struct pmb_runner_opts oo = *o;

	oo.samples = 12;
	memset(in, 0, sizeof(in));
	in[0].def = &plain, in[1].def = &slow;
	for (int i = 0; i < 2; i++) {
		snprintf(in[i].name, sizeof(in[i].name), "%s", in[i].def->name);
		in[i].baseline = in[i].reference = -1;
		in[i].cohort = i;
	}
	struct tap_load load;

	tap_load_begin(&load);
	int err = pmb__runner_run(&oo, &(struct pmb_meter){ 0 }, in, 2, res);
	tap_load_end(&load);
	tap_ok(err == 0 && res[1].m.status == 0 && res[1].m.nsamples == 12, "a benchmark with a prepare hook runs");
	pmb__analyze(ctx, res, 2, 1);
	/* The samples in the order they ran: a fixed-cost probe after every
	 * fourth ladder sample but the last. */
	uint64_t order[64];
	size_t m = 0, q = 0;

	for (size_t i = 0; i < res[1].m.nsamples && m < 63; i++) {
		order[m++] = res[1].m.samples[i].passes;
		if ((i + 1) % 4 == 0 && q < res[1].m.nprobes)
			order[m++] = res[1].m.probes[q++].passes;
	}
	tap_ok(res[1].m.nprobes == 2 && q == 2, "a probe after samples 4 and 8 of 12 (%zu probes)", res[1].m.nprobes);
	bool same = ntold >= m;
	for (size_t i = 0; same && i < m; i++)
		same = told[ntold - m + i] == order[i];
	tap_ok(same, "prepare ran before each sample and probe, told its passes (%zu calls, %zu samples, "
	       "%zu probes)", ntold, res[1].m.nsamples, res[1].m.nprobes);
	/* 5 ms of preparing against samples of about 1 ms: inside, the
	 * figure would be 6x the plain one; this shared machine moves a
	 * figure 2x between runs at worst. */
	double a = res[0].f.time.s.median, b = res[1].f.time.s.median;
	tap_timed(&load, a > 0 && b / a < 2.5, "its time is not measured (%.3f ns/item against %.3f without)", b, a);
	pmb__result_free_samples(&res[0]);
	pmb__result_free_samples(&res[1]);
}

int main(void)
{
	struct pmb_context ctx;
	struct pmb_meter meter = { 0 };
	struct pmb_benchmark_def d_empty = { .func = bm_empty, .name = "empty", .empty = true };
	struct pmb_benchmark_def d_work = { .func = bm_work, .name = "work" };
	struct pmb_benchmark_def d_setup = { .func = bm_setup_inside, .name = "setup" };
	struct pmb_instance in[4];
	struct pmb_result res[4];

	struct tap_load load; /* over the timed runs: their figures are judged only where it was idle */

	memset(&ctx, 0, sizeof(ctx));
	ctx.m.backend = PMB_BACKEND_PERF;
	pmb__clock_probe(&ctx.m.clock);
	struct pmb_runner_opts o = {
		.min_sample_ns = fmax(1e6, 1000 * ctx.m.clock.resolution_ns),
		.samples = 30,
		.samples_given = true,
		.warmup_ns = 20e6,
		.repetitions = 1,
	};
	tap_load_begin(&load);
	tap_ok(pmb__runner_overhead(&o, &meter, &ctx.m.overhead) == 0, "harness overhead measured");
	tap_ok(ctx.m.overhead.ns_per_pass > 0 && ctx.m.overhead.ns_per_pass < 50,
	       "empty loop costs a little per pass (%.3f ns)", ctx.m.overhead.ns_per_pass);

	/* As pmubench runs: the overhead measured again around each cohort. */
	o.overhead_passes = ctx.m.overhead.passes;
	tap_ok(o.overhead_passes > 0, "harness N recorded (%llu)", (unsigned long long)o.overhead_passes);
	memset(in, 0, sizeof(in));
	const struct pmb_benchmark_def *defs[4] = { &d_empty, &d_work, &d_work, &d_setup };
	int64_t args[4] = { 0, 100, 1000, 0 };
	for (int i = 0; i < 4; i++) {
		in[i].def = defs[i];
		in[i].arg[0] = args[i];
		snprintf(in[i].name, sizeof(in[i].name), "%s/%lld", defs[i]->name, (long long)args[i]);
		in[i].baseline = in[i].reference = -1;
		in[i].cohort = i;
	}
	/* Interleave the two sizes of the known-cost body. */
	in[2].cohort = 1;
	calls = 0;
	tap_ok(pmb__runner_run(&o, &meter, in, 4, res) == 0, "runner");
	tap_load_end(&load);
	tap_ok(calls == 3, "one call per instance (%d)", calls);
	pmb__analyze(&ctx, res, 4, 1);
	for (int i = 0; i < 4; i++)
		tap_ok(res[i].m.status == 0 && res[i].m.nsamples == 30, "%s: 30 samples (%zu, %s)", in[i].name,
		       res[i].m.nsamples, res[i].m.reason);

	/* Empty body: zero within the noise of the subtraction, far below
	 * the loop's own cost per pass. */
	const struct pmb_figure *e = &res[0].f.time;
	tap_diag("empty: median %.4f ns/item, ci [%.4f, %.4f], resolution %.4f, loop %.4f ns/pass",
		 e->s.median, e->s.ci_lo, e->s.ci_hi, e->resolution, res[0].m.overhead.ns_per_pass);
	/* 4 copies of the empty loop at N, 2N and one pass, before and after. */
	tap_ok(res[0].m.local_overhead && res[0].m.overhead.nsamples == 24,
	       "the overhead was measured around the benchmark (%zu samples)", res[0].m.overhead.nsamples);
	/* Zero within what is resolved, and most of the loop's own cost gone
	 * (without the subtraction the median would be the whole loop). */
	tap_timed(&load, e->below_resolution, "empty body is reported as zero within the resolution (%.4f ns, < %.4f)",
	       e->s.median, e->resolution);
	/* Copies of the same loop run up to 2x apart, so the residual can
	 * reach the loop's own cost: that band is what the resolution says.
	 * The exact check of the subtraction is the simulator's (test_sim:
	 * 0 instructions per item).  Here: there was a loop to subtract. */
	double raw = 0;
	for (size_t k = 0; k < res[0].m.nsamples; k++)
		raw += (double)res[0].m.samples[k].ns / (double)res[0].m.samples[k].passes / (double)res[0].m.nsamples;
	tap_timed(&load, raw > 0.5 * res[0].m.overhead.ns_per_pass,
	       "empty body: before subtraction it cost the loop (%.4f ns per pass, loop %.4f)", raw,
	       res[0].m.overhead.ns_per_pass);
	tap_timed(&load, e->resolution <= 1.5 * res[0].m.overhead.ns_per_pass,
	       "the resolution claimed is no wider than the loop itself (%.4f ns)", e->resolution);

	/* Known cost: per item the same for 100 and 1000 items per pass;
	 * per pass 10x. */
	double a = res[1].f.time.s.median, b = res[2].f.time.s.median;
	tap_diag("work: %.4f ns/item at 100 items, %.4f at 1000", a, b);
	tap_timed(&load, a > 0 && fabs(a / b - 1) < 0.10, "per-item cost independent of batch size (ratio %.3f)", a / b);
	tap_ok(res[1].m.items_per_pass == 100 && res[2].m.items_per_pass == 1000, "items per pass recorded");

	/* The ladder: several pass counts in one instance. */
	uint64_t pmin = UINT64_MAX, pmax = 0;
	for (size_t k = 0; k < res[1].m.nsamples; k++) {
		pmin = res[1].m.samples[k].passes < pmin ? res[1].m.samples[k].passes : pmin;
		pmax = res[1].m.samples[k].passes > pmax ? res[1].m.samples[k].passes : pmax;
	}
	tap_ok(pmax >= 3 * pmin, "samples use several pass counts (%llu..%llu)", (unsigned long long)pmin,
	       (unsigned long long)pmax);
	double mean_ns = 0;
	for (size_t k = 0; k < res[1].m.nsamples; k++)
		mean_ns += (double)res[1].m.samples[k].ns / (double)res[1].m.nsamples;
	tap_ok(mean_ns >= 0.9 * o.min_sample_ns, "samples last at least --min-sample-time (mean %.0f ns)", mean_ns);
	tap_timed(&load, res[1].f.time.fixed_share < 0.05, "no fixed per-sample cost flagged for a clean body (%.3f)",
	       res[1].f.time.fixed_share);
	for (int i = 0; i < 4; i++)
		pmb__result_free_samples(&res[i]);
	test_prepare(&o, &ctx);
	pmb__context_free(&ctx);
	return tap_done();
}
