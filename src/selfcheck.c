/* selfcheck.c - calibration kernels with known answers: does this machine's clock and PMU tell the truth? */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "clock.h"
#include "selfcheck.h"


static void sc_add(struct pmb_state *s)
{
#ifdef PMB__ADD64
	uint64_t x = 1, k = 3;

	while (pmb_loop_batch(s, 64))
		__asm__ volatile(PMB__ADD64 : "+r"(x) : "r"(k));
	pmb_do_not_optimize(x);
#else
	pmb_skip(s, "no add chain for this architecture");
#endif
}

static void sc_imul(struct pmb_state *s)
{
#ifdef PMB__IMUL64
	uint64_t x = 1, k = 3;

	while (pmb_loop_batch(s, 64))
		__asm__ volatile(PMB__IMUL64 : "+r"(x) : "r"(k));
	pmb_do_not_optimize(x);
#else
	/* 3 cycles is x86-64's imul latency; other cores differ. */
	pmb_skip(s, "the 3-cycle imul chain is an x86-64 check");
#endif
}

/* A pointer chase through 16 KiB: inside any L1d of the last decade. */
static void sc_chase(struct pmb_state *s)
{
	enum { LINES = 256, STEPS = 4096 };
	void **buf = aligned_alloc(64, LINES * 64);
	uint32_t order[LINES], x = 12345;
	void **p;

	if (!buf) {
		pmb_skip(s, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < LINES; i++)
		order[i] = i;
	for (uint32_t i = LINES - 1; i > 0; i--) { /* Sattolo: one cycle */
		x = x * 1103515245u + 12345u;
		uint32_t j = (x >> 8) % i, t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < LINES; i++)
		buf[order[i] * 8] = &buf[order[(i + 1) % LINES] * 8];
	p = &buf[order[0] * 8];
	while (pmb_loop_batch(s, STEPS)) {
		for (int i = 0; i < STEPS; i++)
			p = *p;
		pmb_do_not_optimize(p);
	}
	free(buf);
}

/* A branch on coin flips over 4 MiB of random bytes: no predictor can
 * learn it, so it mispredicts half the time. */
static void sc_coin(struct pmb_state *s)
{
	enum { N = 1 << 22 };
	uint8_t *v = malloc(N);
	uint64_t x = 88172645463325252ull, sum = 0;

	if (!v) {
		pmb_skip(s, "out of memory");
		return;
	}
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (uint8_t)(x >> 32);
	}
	size_t pos = 0;
	while (pmb_loop_batch(s, 4096)) {
		for (int i = 0; i < 4096; i++, pos++) {
			uint8_t b = v[pos & (N - 1)];
			/* The empty asm in the taken path keeps a real branch. */
			if (b & 1) {
				__asm__ volatile("");
				sum += b;
			}
		}
	}
	pmb_do_not_optimize(sum);
	free(v);
}

/* A loop of known instruction count: 32 single-instruction nops. */
static void sc_nops(struct pmb_state *s)
{
	while (pmb_loop_batch(s, 32)) {
#if defined(__x86_64__) || defined(__aarch64__)
		__asm__ volatile(".rept 32\n\tnop\n\t.endr");
#endif
	}
}

struct check {
	const char *name;
	void (*fn)(struct pmb_state *);
	const char *what;   /* event name, or "cycles" */
	double lo, hi;      /* accepted range */
	const char *expect;
};

static const struct check checks[] = {
	{ "selfcheck/add_chain", sc_add, "cycles", 0.9, 1.1, "1 cycle/item" },
	{ "selfcheck/imul_chain", sc_imul, "cycles", 2.7, 3.3, "3 cycles/item" },
	{ "selfcheck/l1_chase", sc_chase, "cycles", 3.5, 5.5, "4-5 cycles/item" },
	{ "selfcheck/coin_flip", sc_coin, "branch-misses|cond-branch-misses", 0.45, 0.55,
	  "0.5 mispredicts/item" },
	{ "selfcheck/nop_loop", sc_nops, "instructions", 0.99, 1.01, "1 instruction/item" },
};
#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

/* A cycle check that failed where cycles equal instructions exactly: the
 * PMU counts one cycle per instruction, as an emulator without a timing
 * model does (QEMU with -icount); no latency can show there.  Says so in
 * why (left unchanged otherwise). */
static void timeless(const struct pmb_context *ctx, const struct pmb_result *r, const char *name,
		     char *why, size_t size)
{
	int cyc = pmb_context_event(ctx, "cycles"), ins = pmb_context_event(ctx, "instructions");

	if (cyc < 0 || ins < 0 || !r->ev[cyc].valid || !r->ev[ins].valid)
		return;
	double c = r->ev[cyc].s.median, i = r->ev[ins].s.median;

	if (i > 0 && fabs(c - i) <= 1e-6 * i)
		snprintf(why, size, "%s: cycles equal instructions exactly (%.3f per item): this PMU counts "
			 "one cycle per instruction, as an emulator without timing does (QEMU -icount), so "
			 "cache and memory latency cannot show here", name, c);
}

int pmb_selfcheck_run(struct pmb_context *ctx, const struct pmb_runner_opts *o,
		      const struct pmb_meter *m, FILE *out)
{
	struct pmb_benchmark_def defs[NCHECKS];
	struct pmb_instance inst[NCHECKS];
	struct pmb_result res[NCHECKS];
	struct pmb_runner_opts ro = *o;
	int failed = 0, unchecked = 0;
	char emulated[256] = "";

	ro.repetitions = 1;
	memset(defs, 0, sizeof(defs));
	memset(inst, 0, sizeof(inst));
	for (size_t i = 0; i < NCHECKS; i++) {
		defs[i].func = checks[i].fn;
		defs[i].name = checks[i].name;
		/* Calibrations: a nop loop at a fraction of a ns per item is
		 * the point, not a sign of removed work. */
		defs[i].empty = true;
		inst[i].def = &defs[i];
		snprintf(inst[i].name, sizeof(inst[i].name), "%s", checks[i].name);
		snprintf(inst[i].family, sizeof(inst[i].family), "%s", checks[i].name);
		inst[i].baseline = inst[i].reference = -1;
		inst[i].cohort = (int)i;
	}
	if (pmb_runner_run(&ro, m, inst, NCHECKS, res) != 0)
		return 1;
	pmb_analyze(ctx, res, NCHECKS, 1);
	fprintf(out, "self-check on core %d (%s backend)%s\n", ctx->cpu, pmb_backend_name(ctx->backend),
		pmb_context_sim(ctx) ? ": counts SIMULATED by valgrind; no time, so no cycles" :
		ctx->pmu_ok ? "" : ": no hardware counters, cycles ESTIMATED from time");
	fprintf(out, "%-22s %-22s %-32s %s\n", "check", "expected", "measured", "verdict");
	for (size_t i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];
		const struct pmb_figure *f = NULL;
		int e = pmb_context_event(ctx, c->what);
		char meas[64] = "-";
		const char *verdict;

		if (e >= 0)
			f = &res[i].ev[e];
		else if (!strcmp(c->what, "cycles") && res[i].est_cycles.valid)
			f = &res[i].est_cycles;
		if (res[i].status) {
			verdict = "NOT CHECKED";
			snprintf(meas, sizeof(meas), "%s", res[i].reason);
			unchecked++;
		} else if (!f || !f->valid) {
			char first[40];

			snprintf(first, sizeof(first), "%.*s", (int)strcspn(c->what, "|"), c->what);
			verdict = "NOT CHECKED";
			snprintf(meas, sizeof(meas), "no %s counter here", first);
			unchecked++;
		} else {
			bool ok = f->s.median >= c->lo && f->s.median <= c->hi;

			snprintf(meas, sizeof(meas), "%.3f %s/item%s", f->s.median, e >= 0 ? ctx->plan.ev[e].name : "cycles",
				 f->estimated ? " (est.)" : f->simulated ? " (sim.)" : "");
			verdict = ok ? "ok" : "WRONG";
			failed += !ok;
			if (!ok && !emulated[0])
				timeless(ctx, &res[i], c->name, emulated, sizeof(emulated));
		}
		fprintf(out, "%-22s %-22s %-32s %s\n", c->name, c->expect, meas, verdict);
		free(res[i].samples);
	}
	if (failed)
		fprintf(out, "%d check%s WRONG: this machine's figures cannot be trusted as they are\n",
			failed, failed == 1 ? "" : "s");
	if (emulated[0])
		fprintf(out, "note: %s\n", emulated);
	if (unchecked)
		fprintf(out, "%d check%s could not run here (no counter for them)%s\n",
			unchecked, unchecked == 1 ? "" : "s", failed ? "" : "; the others passed");
	if (ctx->pmu_ok == false && !pmb_context_sim(ctx))
		fprintf(out, "note: the add chain defines the frequency estimate, so its "
			"est. cycles check only shows the harness is consistent\n");
	return failed ? 1 : 0;
}
