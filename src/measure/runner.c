/* runner.c - the measured loop: warm-up, calibration, sample ladder, interleaved cohorts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "base.h"
#include "meter.h"
#include "runner.h"
#include "runner_internal.h"

/* Samples ladder: multiples of the calibrated pass count, so cost = a +
 * b*passes can be fitted; the order is interleaved so a slow drift does
 * not line up with the pass count. */
static const double ladder[] = { 1, 3, 2, 4 };
#define LADDER_LEN 4
#define ROUND_SAMPLES 4 /* samples per turn when a cohort is interleaved */
/* A fixed-cost probe (an eighth of the calibrated passes) after every
 * LADDER_LEN ladder samples: see probe_passes. */
#define PROBE_DIV 8
/* The longest base sample lengthened to PROBE_DIV passes so that it has
 * its probes (calibrated()): the sample the probes were made at. */
#define PROBE_SPAN_NS 1e6
#define STACK_BYTES (8u << 20)
/* A default run's samples: never fewer than MIN_SAMPLES (the budget's
 * floor); the precision stops it only at whole rounds of the ladder (or
 * where the budget would end it) and from MIN_PRECISE on (three rounds: every rung three times, three
 * fixed-cost probes, and a median's interval from fewer is too rough).
 * Precision and the budget are its stop rules (issue 27); STOP_MAX_SAMPLES
 * is no third one but a memory bound: the most running_halfwidth sorts on
 * its stack between samples.  A default budget (a quarter of a second) at
 * the default shortest sample (250 us; the ladder's samples average 2.6
 * times it) takes about 380; were it reached all the same
 * (--min-sample-time lowered to tens of microseconds), stopped_by says
 * "samples". */
#define MIN_SAMPLES 10
#define MIN_PRECISE (3 * LADDER_LEN)
#define STOP_MAX_SAMPLES 1000


/* Where the loop counter lives.  The counter is stored and reloaded on
 * every pass (the slow path is a call inside the loop, so the compiler
 * cannot keep it in a register), and how fast a store-to-load round trip
 * runs depends on the address.  Every benchmark and the harness overhead
 * therefore use the same fixed slots, so the overhead subtracted is the
 * overhead the benchmark had.  A cohort uses one slot per member, each on
 * its own cache line. */
#define MAX_SLOTS 64
static struct {
	struct pmb_state s;
	char pad[64 - sizeof(struct pmb_state)];
} state_slots[MAX_SLOTS] __attribute__((aligned(4096)));

static void yield_turn(struct pmb__running *r)
{
	if (r->coroutine) {
		swapcontext(&r->self, r->sched);
		/* The others' turns evicted this benchmark's data and retrained
		 * the branch predictor: one unrecorded sample puts them back,
		 * or the first sample of every turn would carry a fixed cost
		 * that is the interleaving's, not the benchmark's. */
		r->rewarm = !r->m->deterministic;
	}
}

/* A sample's stretch of its pass count, 1 to 1.1: splitmix64 alone, for it
 * only needs to be unpredictable to the machine's periodic noise, not
 * good randomness. */
static double stretch(struct pmb__running *r)
{
	return 1.0 + 0.1 * (double)(pmb_rng_splitmix64(&r->rng) >> 11) * 0x1p-53;
}

static uint64_t schedule_passes(struct pmb__running *r, int k)
{
	if (r->overhead) {
		/* N and 2N for the cost per pass; one pass, where the cost per
		 * sample is nearly all of it, for the cost per sample (from N
		 * and 2N alone it is the difference of two large noisy
		 * numbers: seen at 190 us for a real ~1 us). */
		static const uint64_t mult[3] = { 1, 2, 0 };
		uint64_t m = mult[k % 3];

		return m ? r->base * m : 1;
	}
	/* Exact counts need no stretch, but a ladder of more than two
	 * rungs (with --samples above 2) shows a cost per pass that falls
	 * as passes grow: an input being learned. */
	if (r->m->deterministic)
		return r->base * (uint64_t)(1 + k % LADDER_LEN);
	/* Each round of LADDER_LEN samples starts one step further along
	 * the ladder: the first sample after an interleaving turn (the one
	 * most disturbed) must not always be the smallest, or the
	 * disturbance would fit as a fixed cost per sample. */
	double p = (double)r->base * ladder[(k + k / LADDER_LEN) % LADDER_LEN] * stretch(r);

	return p < 1 ? 1 : (uint64_t)p;
}

/* A probe's passes, 0 for none.  The fixed cost a of cost = a + b*passes
 * is told from how the cost per pass falls with passes (analysis_fixed.c).
 * Between the ladder's own ends (1x and 4x) the fastest long sample still
 * carries disturbances a long sample cannot escape (here 1-3 % of its
 * time, against none in the fastest short one), which the two-point check
 * reads as a smaller a: a 4 MiB memset per sample read -16 % at
 * 1 ms samples.  Against probes of an eighth of the passes, where a is
 * most of the sample, and the ladder's 1x: -3 %, every run within 10 %.
 * Counts need no probe (they are exact), nor the harness overhead (it has
 * its one-pass samples), nor a pass too long to divide. */
static uint64_t probe_passes(struct pmb__running *r)
{
	if (r->m->deterministic || r->overhead || r->base < PROBE_DIV)
		return 0;
	return (uint64_t)((double)r->base / PROBE_DIV * stretch(r));
}

/* End of calibration: passes so that a sample lasts min_sample_ns, and
 * when sampling stops.  A default run samples until the interval of the
 * median per-pass time is within the precision or the budget is spent
 * (pmb__stop_check, as ab's rounds; STOP_MAX_SAMPLES only bounds memory);
 * --samples, the simulator and the harness overhead take a fixed count. */
static void calibrated(struct pmb__running *r, uint64_t passes, uint64_t ns)
{
	const struct pmb_runner_opts *o = r->o;
	double want = o->min_sample_ns;

	if (r->m->deterministic) {
		/* Counts do not depend on timing: enough items to dwarf the
		 * loop's own instructions, no more. */
		uint64_t items = r->r->m.items_per_pass ? r->r->m.items_per_pass : 1;

		r->base = items >= 4096 ? 1 : (4096 + items - 1) / items;
		r->target = o->samples_given ? o->samples : PMB_DETERMINISTIC_SAMPLES;
		return;
	}
	double per_pass = ns ? (double)ns / (double)passes : 1;
	double b = ceil(want / per_pass);

	/* Passes enough for a fixed-cost probe (an eighth of them), where
	 * those fit in PROBE_SPAN_NS: at the default 250 us a benchmark of
	 * passes of 31 to 125 us would otherwise lose the probes it had at
	 * 1 ms (on the quiet VM 35 of 113 benchmarks had probes at 250 us,
	 * 71 at 1 ms). */
	if (b < PROBE_DIV && PROBE_DIV * per_pass <= PROBE_SPAN_NS)
		b = PROBE_DIV;
	r->base = b < 1 ? 1 : (uint64_t)b;
	r->adaptive = !o->samples_given && !r->overhead && (o->budget_ns > 0 || o->precision > 0);
	r->target = r->adaptive ? STOP_MAX_SAMPLES : o->samples;
	r->rule = (struct pmb_stop_rule){ .min_n = MIN_PRECISE, .floor_n = MIN_SAMPLES,
					  .max_n = STOP_MAX_SAMPLES, .precision = o->precision,
					  .budget_ns = o->budget_ns };
}

/* The error the analysis will print for the samples so far (as
 * pmb_figure_error: half the 95 % interval of the median time per item,
 * over the median); NAN before the rule's min_n and between whole rounds
 * of the ladder, INFINITY where the figure would have no interval (its
 * interval reaching 0, or its median under the harness's own cost per
 * item: below resolution).  Per item less the harness overhead measured
 * before this benchmark, by the analysis's own bootstrap and seed, so that
 * "precision" in the JSON means the printed error is within the goal; the
 * analysis subtracts the fit of before and after, which moved the JSON's
 * error to 1.0012 % once in a default run (113 benchmarks).  It judged
 * the raw per-pass time's order statistics before, and on a quiet 16-core
 * VM stopped branch/bsearch/sol/512KiB at +-0.7 % where the report
 * printed +-20 % (two modes, 4 of 16 samples in the faster), and
 * calib/empty at +-1.6 % where it printed +-525 % (its time is the
 * difference of two near-equal times).  The bootstrap (1000
 * resamples, O(n) each: about 1 ms at 300 samples) is asked only once
 * the cheap order-statistics interval is within 1.5 times the goal (on the
 * quiet VM the two agreed within 0.83-1.46x in 90 % of benchmarks at 12-20
 * samples, 0.88-1.10x past 80), and again only once the samples grew by a
 * quarter, so that it costs a few asks a benchmark, not one every round.
 * `last`: the budget is about to stop the benchmark, so the bootstrap is
 * asked now, whatever the round and the cadence: between two asks the
 * interval could have reached the goal unseen (a default run printed
 * +-0.8 to 1.0 % on one or two benchmarks "stopped by budget"). */
static double running_halfwidth(struct pmb__running *r, bool last)
{
	size_t n = r->r->m.nsamples;
	double x[STOP_MAX_SAMPLES], s[STOP_MAX_SAMPLES], lo, hi, med;
	double items = (double)(r->r->m.items_per_pass ? r->r->m.items_per_pass : 1);

	if (n < r->rule.min_n || n > STOP_MAX_SAMPLES || (n % LADDER_LEN && !last) || r->rule.precision <= 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		const struct pmb_sample *k = &r->r->m.samples[i];

		x[i] = s[i] = pmb_per_item((double)k->ns, r->ov_sample, r->ov_pass,
					   (double)(k->passes ? k->passes : 1), items);
	}
	pmb__sort(s, n);
	med = pmb__quantile_sorted(s, n, 0.5);
	if (!(med > r->ov_pass / items))
		return INFINITY;
	pmb__median_ci_ranks(s, n, &lo, &hi);
	if (!last && ((hi - lo) / 2 / med > 1.5 * r->rule.precision || n < r->boot_next_n))
		return fmax((hi - lo) / 2 / med, 1.5 * r->rule.precision);
	r->boot_next_n = n + n / 4;
	if (pmb__summary_ci(x, n, PMB_SUMMARY_SEED, &lo, &hi) != 0)
		return NAN;
	return lo > 0 ? (hi - lo) / 2 / med : INFINITY;
}

/* Whether the samples phase ends now, and why (into the result); the
 * next sample is taken to last as long as the last one. */
static bool samples_done(struct pmb__running *r)
{
	enum pmb_stop why = PMB_STOP_NONE;
	size_t n = r->r->m.nsamples;

	if (r->adaptive && n) {
		double next = (double)r->r->m.samples[n - 1].ns;

		why = pmb__stop_check(&r->rule, (size_t)r->taken, running_halfwidth(r, false), r->spent_ns, next);
		/* The budget ends it: a last look at the interval first. */
		if (why == PMB_STOP_BUDGET && r->rule.precision > 0 &&
		    pmb__stop_check(&r->rule, (size_t)r->taken, running_halfwidth(r, true), 0, next) ==
			    PMB_STOP_PRECISION)
			why = PMB_STOP_PRECISION;
	}
	if (why == PMB_STOP_NONE && r->taken >= r->target)
		why = r->adaptive ? PMB_STOP_COUNT : PMB_STOP_FIXED;
	r->r->m.stopped_by = why;
	return why != PMB_STOP_NONE;
}

/* The definition's prepare hook, before the sample's meter and clock
 * start: out of line, so a benchmark without one pays one test. */
static __attribute__((noinline)) void prepare_sample(struct pmb__running *r, uint64_t passes)
{
	r->prepare(r->state, passes);
}

/* The samples phase's start (end false) or end: wall and thread CPU time,
 * read between samples (never inside one), twice per benchmark.  Turns of
 * a cohort's other members between them are on this thread too. */
static void span_mark(struct pmb__running *r, bool end)
{
	uint64_t wall = pmb_clock_ns(), cpu = pmb_thread_cpu_ns();

	if (!end) {
		r->r->m.span_wall_ns = wall;
		r->r->m.span_cpu_ns = cpu;
	} else if (r->r->m.span_wall_ns && wall > r->r->m.span_wall_ns) {
		r->r->m.span_wall_ns = wall - r->r->m.span_wall_ns;
		r->r->m.span_cpu_ns = cpu - r->r->m.span_cpu_ns;
	} else {
		r->r->m.span_wall_ns = r->r->m.span_cpu_ns = 0;
	}
}

static void start_sample(struct pmb__running *r, uint64_t passes, int group)
{
	if (__builtin_expect(r->prepare != NULL, 0))
		prepare_sample(r, passes);
	r->passes = passes;
	r->group = group;
	r->running = true;
	if (r->m->start)
		r->m->start(r->m->ctx, group);
	r->state->pmb__left = passes - 1;
	r->t0 = pmb_clock_ns();
	if (r->m->mark[group][0])
		r->m->mark[group][0](r->m->mark_group[group]);
}

/* The loop's first call (from site, the loop's call to pmb__loop_next):
 * the warm-up starts now; a preset pass count skips calibration.  This and calib_step are kept out of line on purpose: GCC
 * -O3 inlining them into pmb__loop_next shuffled its registers and cost
 * the per-sample path 2 instructions (harness overhead, --backend=sim). */
static __attribute__((noinline))
bool loop_begin(struct pmb__running *r, uint64_t items, uint64_t t1, void *site)
{
	r->called = true;
	r->r->m.loop_site = (uintptr_t)site;
	r->r->m.items_per_pass = items ? items : 1;
	r->first_ns = t1;
	if (r->preset) {
		r->base = r->preset;
		r->target = r->o->samples;
		r->phase = PH_SAMPLES;
		span_mark(r, false);
		start_sample(r, schedule_passes(r, 0), 0);
		return true;
	}
	r->phase = PH_CALIB;
	start_sample(r, 1, 0);
	return true;
}

/* The next calibration sample after one of ns: grow towards min_sample_ns,
 * doubling while far below, then aiming straight at it. */
static void calib_grow(struct pmb__running *r, uint64_t ns)
{
	uint64_t p = r->passes;

	r->best_ns = 0;
	if (ns == 0 || (double)ns < r->o->min_sample_ns / 2)
		p *= 2;
	else if ((double)ns < r->o->min_sample_ns)
		p = (uint64_t)ceil((double)p * r->o->min_sample_ns /
				   (double)ns * 1.05);
	start_sample(r, p, 0);
}

/* One calibration sample of ns ended at t1.  Returns true where it started
 * another calibration sample; false where calibration is over and the
 * samples phase begins. */
static __attribute__((noinline))
bool calib_step(struct pmb__running *r, uint64_t ns, uint64_t t1)
{
	/* Deterministic meters need only the one warm-up pass. */
	bool warm = r->m->deterministic ||
		    (double)(t1 - r->first_ns) >= r->o->warmup_ns;
	bool long_enough = r->m->deterministic ||
			   (double)ns >= r->o->min_sample_ns;

	/* A preempted sample looks long enough with too few passes:
	 * calibrate on the faster of two long-enough samples at the
	 * same pass count. */
	if (warm && long_enough && !r->m->deterministic && r->best_ns == 0) {
		r->best_ns = ns;
		start_sample(r, r->passes, 0);
		return true;
	}
	if (r->best_ns && ns > r->best_ns)
		ns = r->best_ns;
	if (!warm || !long_enough) {
		calib_grow(r, ns);
		return true;
	}
	calibrated(r, r->passes, ns);
	r->r->m.calib_passes = r->base;
	r->r->m.warmup_ns = t1 - r->first_ns;
	r->phase = PH_SAMPLES;
	span_mark(r, false);
	r->slice_samples = 0;
	yield_turn(r); /* let the cohort's others calibrate too */
	return false;
}

/* The meter could not read the sample just ended (a callgrind dump cut
 * short by a full disk): a sample without its counts is no sample, and
 * taken as one its zeros would be reported as the figures.  The run ends;
 * its error is the runner's to return.  Out of line: the per-sample path
 * is the harness overhead (its registers, under --backend=sim its
 * simulated instructions), and this is never on it. */
static __attribute__((noinline, cold)) bool meter_failed(struct pmb__running *r, int err)
{
	r->meter_err = err;
	r->running = false;
	r->phase = PH_DONE;
	r->called = true;
	return false;
}

/* A signal asked the run to stop: the sample that just ended (of
 * r->ended_ns, where this call ended one) came during it and was cut short (interrupt.c), so its passes are
 * not the ones recorded: it is taken back, the ladder's sample or the
 * probe.  Out of line, as meter_failed. */
static __attribute__((noinline, cold)) bool stopped(struct pmb__running *r)
{
	struct pmb_result *res = r->r;
	uint64_t ns = r->ended_ns; /* 0 at the first call: none ended */

	if (ns && res->m.nsamples && res->m.samples[res->m.nsamples - 1].ns == ns) {
		res->m.nsamples--;
		r->taken--;
	} else if (ns && res->m.nprobes && res->m.probes[res->m.nprobes - 1].ns == ns) {
		res->m.nprobes--;
	}
	if (r->phase == PH_SAMPLES)
		span_mark(r, true);
	else
		res->m.span_wall_ns = res->m.span_cpu_ns = 0;
	r->called = true;
	r->phase = PH_DONE;
	res->m.stopped_by = PMB_STOP_SIGNAL;
	return false;
}

/* The slow path of pmb_loop, once per sample: what the samples phase runs
 * here is the harness overhead per sample, so the first call and the
 * calibration are out of its way. */
PMB_API bool pmb__loop_next(struct pmb_state *s, uint64_t items)
{
	struct pmb__running *r = s->pmb__r;

	if (r->running && r->m->mark[r->group][1])
		r->m->mark[r->group][1](r->m->mark_group[r->group]);

	uint64_t t1 = pmb_clock_ns();
	struct pmb_sample smp;
	uint64_t ns = 0;

	if (r->running) {
		ns = t1 - r->t0;
		memset(&smp, 0, sizeof(smp));
		smp.passes = r->passes;
		smp.ns = ns;
		smp.group = r->m->ngroups ? r->group : -1;
		int err;

		if (r->m->stop && __builtin_expect((err = r->m->stop(r->m->ctx, r->group, &smp)) != 0, 0))
			return meter_failed(r, err);
		r->running = false;
		r->ended_ns = ns;
		if (r->rewarm) {
			r->rewarm = false;
		} else if (r->probing) {
			pmb__result_add_probe(r->r, &smp);
			r->probing = false;
			r->spent_ns += (double)ns;
		} else if (r->phase == PH_SAMPLES) {
			pmb__result_add_sample(r->r, &smp);
			r->taken++;
			r->spent_ns += (double)ns;
			r->slice_samples++;
			r->probe_due = r->taken % LADDER_LEN == 0;
		}
	}
	/* SIGINT, SIGTERM, SIGHUP: no sample after this one, the harness
	 * overhead's included (a sample may last 10 s), and the one just
	 * ended discarded.  r->r is never NULL: the test is there because
	 * with it GCC -O3 allocates this function's registers as before
	 * (without, it kept &pmb__stop_signal in one more callee-saved
	 * register: a push and a pop more per sample, 2 instructions of the
	 * harness overhead under --backend=sim). */
	if (pmb__stop_signal && r->r)
		return stopped(r);
	/* Where the loop called from: --disasm's which loop of a function
	 * this benchmark ran (the first call only, off the per-sample path). */
	if (!r->called)
		return loop_begin(r, items, t1, __builtin_return_address(0));
	if (r->phase == PH_CALIB) {
		if (calib_step(r, ns, t1))
			return true;
	} else if (r->phase == PH_SAMPLES && samples_done(r)) {
		r->phase = PH_DONE;
	} else if (r->phase == PH_SAMPLES && r->slice_samples >= ROUND_SAMPLES) {
		r->slice_samples = 0;
		yield_turn(r);
	}
	if (r->phase == PH_DONE) {
		span_mark(r, true);
		return false;
	}
	if (r->rewarm) {
		start_sample(r, r->base, 0);
		return true;
	}
	int g = r->m->ngroups > 0 ? r->taken % r->m->ngroups : 0;
	uint64_t probe = r->probe_due ? probe_passes(r) : 0;

	r->probe_due = false;
	if (probe) {
		/* Probes rotate through the counter groups on their own: at
		 * every fourth sample, taken % 2 or % 4 would read group 0
		 * only, and the other groups' events would have no probes. */
		r->probing = true;
		start_sample(r, probe, r->m->ngroups > 0 ? (int)(r->r->m.nprobes % (size_t)r->m->ngroups) : 0);
		return true;
	}
	start_sample(r, schedule_passes(r, r->taken), g);
	return true;
}

static void init_run(struct pmb__running *run, const struct pmb_runner_opts *o,
		     const struct pmb_meter *m, struct pmb_instance *in,
		     struct pmb_result *res, int slot, const struct pmb_overhead *ov)
{
	memset(run, 0, sizeof(*run));
	run->ov_pass = ov ? ov->ns_per_pass : 0;
	run->ov_sample = ov ? ov->ns_per_sample : 0;
	run->o = o;
	run->m = m;
	run->inst = in;
	run->r = res;
	run->prepare = in ? in->def->prepare : NULL;
	run->rng = res->m.seed ^ 0x5bd1e995u;
	run->state = &state_slots[slot % MAX_SLOTS].s;
	run->state->pmb__r = run;
	run->state->pmb__left = 0;
	/* What a signal cuts (interrupt.c): this run's pass counter, until
	 * finish_run (a cohort's scheduler points it at each member in turn).
	 * Set here, not per sample, so the sample's own path is unchanged. */
	pmb__interrupt_cut(&run->state->pmb__left);
	res->m.not_run = false;
}

/* A result the run was stopped before (a signal): reported as not run,
 * left out of the reports. */
static void result_not_run(struct pmb_result *r)
{
	char why[64];

	snprintf(why, sizeof(why), "not run: interrupted by %s", pmb__interrupt_name(pmb__stop_signal));
	pmb__result_set_reason(r, PMB_ESKIPPED, why);
	r->m.not_run = true;
}

static void finish_run(struct pmb__running *run)
{
	struct pmb_result *r = run->r;

	pmb__interrupt_cut(NULL);
	if (run->meter_err)
		; /* the run's error, returned by the caller: nothing to say here */
	else if (r->m.status == 0 && r->m.nsamples == 0 && pmb__stop_signal && !run->overhead)
		result_not_run(r);
	else if (r->m.status == 0 && !run->called)
		pmb__result_set_reason(r, PMB_EVERIFY, "the benchmark never entered pmb_loop");
	else if (r->m.status == 0 && r->m.nsamples == 0)
		pmb__result_set_reason(r, PMB_EVERIFY, "the benchmark left its loop before any sample");
	if (run->running && run->m->stop) {
		/* The loop was left by break: close the meter's sample. */
		struct pmb_sample smp;

		memset(&smp, 0, sizeof(smp));
		if (run->m->mark[run->group][1])
			run->m->mark[run->group][1](run->m->mark_group[run->group]);
		run->m->stop(run->m->ctx, run->group, &smp);
		run->running = false;
	}
}

/* The same loop a benchmark with an empty body compiles to, in several
 * copies at different addresses: the loop's speed depends on where its
 * code sits (seen here: copies 2x apart), so the overhead is taken over
 * copies and its spread is what the subtraction cannot resolve. */
#define HARNESS(k)                                                             \
	static __attribute__((noinline, aligned(64))) void harness_##k(struct pmb_state *s) \
	{                                                                      \
		__asm__ volatile(".rept " #k "*24\n\tnop\n\t.endr");            \
		while (pmb_loop(s)) {                                          \
		}                                                              \
	}
HARNESS(0)
HARNESS(1)
HARNESS(2)
HARNESS(3)
#define NCOPIES 4
static void (*const harness_copy[NCOPIES])(struct pmb_state *) = {
	harness_0, harness_1, harness_2, harness_3,
};

static void harness_empty(struct pmb_state *s)
{
	harness_copy[0](s);
}

int pmb__runner_overhead(const struct pmb_runner_opts *o, const struct pmb_meter *m,
			struct pmb_overhead *out)
{
	struct pmb_result res;
	struct pmb__running run;
	struct pmb_runner_opts oo = *o;
	int err;

	memset(&res, 0, sizeof(res));
	res.m.huge_fraction = -1;
	oo.samples = m->deterministic ? 4 : (o->samples > 20 ? o->samples : 20);
	oo.samples_given = true;
	init_run(&run, &oo, m, NULL, &res, 0, NULL);
	run.overhead = true;
	harness_empty(run.state);
	finish_run(&run);
	err = run.meter_err ? run.meter_err : pmb__overhead_fit(res.m.samples, res.m.nsamples, out);
	pmb__result_free_samples(&res);
	return err;
}

/* The harness overhead measured now: every copy at N and 2N passes (N
 * from the run's overhead measurement), the samples appended to *acc. */
static int local_overhead(const struct pmb_runner_opts *o, const struct pmb_meter *m,
			  struct pmb_result *acc)
{
	struct pmb_result res;
	struct pmb__running run;
	struct pmb_runner_opts oo = *o;
	int err = 0;

	for (int c = 0; c < NCOPIES && !err; c++) {
		memset(&res, 0, sizeof(res));
		oo.samples = 3; /* N, 2N and one pass */
		init_run(&run, &oo, m, NULL, &res, 0, NULL);
		run.overhead = true;
		run.preset = o->overhead_passes;
		harness_copy[c](run.state);
		finish_run(&run);
		err = run.meter_err;
		for (size_t i = 0; i < res.m.nsamples && !err; i++)
			err = pmb__result_add_sample(acc, &res.m.samples[i]);
		pmb__result_free_samples(&res);
	}
	return err;
}

struct coro {
	struct pmb__running run;
	void *stack;
};

static struct coro *current_coro;

static void coro_entry(void)
{
	struct coro *c = current_coro;

	c->run.inst->def->func(c->run.state);
	c->run.finished = true;
	/* uc_link returns to the scheduler. */
}

/* A stack and a context for one member, returning to sched when its
 * function returns.  Kept out of run_cohort: getcontext returns twice, and
 * the loop around it must not hold variables it could clobber. */
static int coro_prepare(struct coro *c, ucontext_t *sched)
{
	c->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (c->stack == MAP_FAILED) {
		c->stack = NULL;
		return -ENOMEM;
	}
	c->run.coroutine = true;
	c->run.sched = sched;
	getcontext(&c->run.self);
	c->run.self.uc_stack.ss_sp = c->stack;
	c->run.self.uc_stack.ss_size = STACK_BYTES;
	c->run.self.uc_link = sched;
	makecontext(&c->run.self, coro_entry, 0);
	return 0;
}

/* Run one repetition of a cohort: every member's function on its own stack,
 * turn by turn, each turn a few samples. */
static int run_cohort(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		      struct pmb_instance **mem, struct pmb_result **res, int n,
		      const struct pmb_overhead *ov)
{
	struct coro *c = calloc((size_t)n, sizeof(*c));
	ucontext_t sched;
	int err = 0, alive;

	if (!c)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		init_run(&c[i].run, o, m, mem[i], res[i], i, ov);
		if (coro_prepare(&c[i], &sched)) {
			err = -ENOMEM;
			goto fail_stack;
		}
	}
	do {
		alive = 0;
		for (int i = 0; i < n; i++) {
			if (c[i].run.finished)
				continue;
			current_coro = &c[i];
			pmb__interrupt_cut(&c[i].run.state->pmb__left);
			swapcontext(&sched, &c[i].run.self);
			if (!c[i].run.finished)
				alive++;
		}
	} while (alive);
	for (int i = 0; i < n; i++) {
		finish_run(&c[i].run);
		if (!err)
			err = c[i].run.meter_err;
	}
fail_stack:
	for (int i = 0; i < n; i++)
		if (c[i].stack)
			munmap(c[i].stack, STACK_BYTES);
	free(c);
	return err;
}

/* Every result of every repetition, empty, with its instance and seed:
 * all of them, even when a signal came before (during the harness
 * overhead), for the reports read every one (a SIGINT there left them
 * unset, and the report crashed on a NULL instance). */
static void results_init(const struct pmb_runner_opts *o, struct pmb_instance *inst,
			 size_t n, int reps, struct pmb_result *results)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < reps; k++) {
			struct pmb_result *r = &results[i * (size_t)reps + (size_t)k];

			memset(r, 0, sizeof(*r));
			r->m.inst = &inst[i];
			r->m.repetition = k;
			r->m.huge_fraction = -1;
			r->m.not_run = true; /* until init_run */
			r->m.seed = o->seed ? o->seed : inst[i].def->seed ? inst[i].def->seed : 42;
		}
	}
}

/* The members of instance i's cohort not run yet, i first, into mem (and
 * marked done).  Returns how many. */
static int cohort_gather(struct pmb_instance *inst, size_t n, size_t i, bool *done,
			 struct pmb_instance **mem)
{
	int nm = 0;

	for (size_t j = i; j < n; j++)
		if (!done[j] && inst[j].cohort == inst[i].cohort) {
			mem[nm++] = &inst[j];
			done[j] = true;
		}
	return nm;
}

/* One repetition of a cohort of nm members: alone, a plain call; more,
 * interleaved.  ov (NULL: none) is the harness overhead the stop for
 * precision subtracts. */
static int run_members(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		       struct pmb_instance **mem, struct pmb_result **res, int nm,
		       const struct pmb_overhead *ov)
{
	struct pmb__running run;

	if (nm > 1)
		return run_cohort(o, m, mem, res, nm, ov);
	init_run(&run, o, m, mem[0], res[0], 0, ov);
	mem[0]->def->func(run.state);
	finish_run(&run);
	return run.meter_err;
}

/* run_members, with the harness overhead measured again before and after
 * where the options ask for it, its fit given to every member's result. */
static int run_repetition(const struct pmb_runner_opts *o, const struct pmb_meter *m,
			  struct pmb_instance **mem, struct pmb_result **res, int nm)
{
	struct pmb_result ov;
	struct pmb_overhead fit, before;
	bool local = o->overhead_passes && !m->deterministic, got_before = false;
	int err;

	memset(&ov, 0, sizeof(ov));
	err = local ? local_overhead(o, m, &ov) : 0;
	if (!err && local && ov.m.nsamples >= 4)
		got_before = pmb__overhead_fit(ov.m.samples, ov.m.nsamples, &before) == 0;
	if (!err)
		err = run_members(o, m, mem, res, nm, got_before ? &before : NULL);
	if (err)
		goto out;
	if (local) {
		/* Stopped by a signal: the overhead before is enough. */
		if (!pmb__stop_signal)
			err = local_overhead(o, m, &ov);
		if (ov.m.nsamples >= 4 && pmb__overhead_fit(ov.m.samples, ov.m.nsamples, &fit) == 0)
			for (int q = 0; q < nm; q++) {
				res[q]->m.overhead = fit;
				res[q]->m.local_overhead = true;
			}
	}
out:
	pmb__result_free_samples(&ov);
	return err;
}

int pmb__runner_run(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		   struct pmb_instance *inst, size_t n, struct pmb_result *results)
{
	int reps = o->repetitions > 0 ? o->repetitions : 1;
	struct pmb_instance **mem = malloc((n + 1) * sizeof(*mem));
	struct pmb_result **res = malloc((n + 1) * sizeof(*res));
	bool *done = calloc(n + 1, sizeof(*done));
	size_t ndone = 0;
	int err = 0;

	if (!mem || !res || !done) {
		err = -ENOMEM;
		goto out;
	}
	results_init(o, inst, n, reps, results);
	for (size_t i = 0; i < n; i++) {
		int nm;

		if (done[i])
			continue;
		if (pmb__stop_signal)
			break;
		nm = cohort_gather(inst, n, i, done, mem);
		/* Before the cohort: the line names what is measured now, and
		 * counts what is done (written, were the run stopped now). */
		if (o->progress)
			o->progress(o->progress_ctx, mem[0]->name, ndone, n);
		for (int k = 0; k < reps && !pmb__stop_signal; k++) {
			for (int q = 0; q < nm; q++)
				res[q] = &results[(size_t)(mem[q] - inst) * (size_t)reps + (size_t)k];
			err = run_repetition(o, m, mem, res, nm);
			if (err)
				goto out;
		}
		ndone += (size_t)nm;
	}
	if (o->progress && !pmb__stop_signal) /* all done: the line erased */
		o->progress(o->progress_ctx, NULL, ndone, n);
	for (size_t i = 0; !err && pmb__stop_signal && i < n * (size_t)reps; i++)
		if (results[i].m.not_run)
			result_not_run(&results[i]);
out:
	pmb__buffer_trim();
	free(mem);
	free(res);
	free(done);
	return err;
}
