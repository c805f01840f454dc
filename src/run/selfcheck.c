/* selfcheck.c - calibration kernels with known answers: does this machine's clock and PMU tell the truth? */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "report.h"
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
	for (size_t i = 0; i < N; i++)
		v[i] = (uint8_t)(pmb_rng_xorshift64(&x) >> 32);
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

/* A check: a calibration kernel as a benchmark (an empty one: a nop loop
 * at a fraction of a ns per item is the point, not a sign of removed
 * work), the figure it checks and the range accepted. */
struct check {
	struct pmb_benchmark_def def;
	const char *what;   /* event name, or "cycles" */
	double lo, hi;      /* accepted range */
	const char *expect;
};

#define CHECK(fn, nm) .def = { .func = fn, .name = nm, .empty = true }
static const struct check checks[] = {
	{ CHECK(sc_add, "selfcheck/add_chain"), "cycles", 0.9, 1.1, "1 cycle/item" },
	{ CHECK(sc_imul, "selfcheck/imul_chain"), "cycles", 2.7, 3.3, "3 cycles/item" },
	{ CHECK(sc_chase, "selfcheck/l1_chase"), "cycles", 3.5, 5.5, "4-5 cycles/item" },
	{ CHECK(sc_coin, "selfcheck/coin_flip"), "branch-misses|cond-branch-misses", 0.45, 0.55,
	  "0.5 mispredicts/item" },
	{ CHECK(sc_nops, "selfcheck/nop_loop"), "instructions", 0.99, 1.01, "1 instruction/item" },
};
#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

int pmb__selfcheck_plan(struct pmb_instance **inst, size_t *n)
{
	struct pmb_instance *in = calloc(NCHECKS, sizeof(*in));

	*inst = in;
	*n = in ? NCHECKS : 0;
	if (!in)
		return -ENOMEM;
	for (size_t i = 0; i < NCHECKS; i++) {
		in[i].def = &checks[i].def;
		snprintf(in[i].name, sizeof(in[i].name), "%s", checks[i].def.name);
		snprintf(in[i].family, sizeof(in[i].family), "%s", checks[i].def.name);
		in[i].baseline = in[i].reference = -1;
		in[i].cohort = (int)i;
	}
	return 0;
}

/* A cycle check that failed where cycles equal instructions exactly: the
 * PMU counts one cycle per instruction, as an emulator without a timing
 * model does (QEMU with -icount); no latency can show there.  Says so in
 * why (left unchanged otherwise). */
static void timeless(const struct pmb_context *ctx, const struct pmb_result *r, const char *name,
		     char *why, size_t size)
{
	int cyc = pmb__context_event(ctx, "cycles"), ins = pmb__context_event(ctx, "instructions");

	if (cyc < 0 || ins < 0 || !r->f.ev[cyc].valid || !r->f.ev[ins].valid)
		return;
	double c = r->f.ev[cyc].s.median, i = r->f.ev[ins].s.median;

	if (i > 0 && fabs(c - i) <= 1e-6 * i)
		snprintf(why, size, "%s: cycles equal instructions exactly (%.3f per item): this PMU counts "
			 "one cycle per instruction, as an emulator without timing does (QEMU -icount), so "
			 "cache and memory latency cannot show here", name, c);
}

enum verdict { V_OK, V_WRONG, V_UNCHECKED };

/* One check's row: expected, measured, verdict. */
static enum verdict check_line(const struct pmb_context *ctx, const struct check *c,
			       const struct pmb_result *r, struct pmb__table *t)
{
	static const char *const word[] = { "ok", "WRONG", "NOT CHECKED" };
	const struct pmb_figure *f = NULL;
	int e = pmb__context_event(ctx, c->what);
	char meas[64] = "-";
	enum verdict v = V_UNCHECKED;

	if (e >= 0)
		f = &r->f.ev[e];
	else if (!strcmp(c->what, "cycles") && r->f.est_cycles.valid)
		f = &r->f.est_cycles;
	if (r->m.status) {
		snprintf(meas, sizeof(meas), "%s", r->m.reason);
	} else if (!f || !f->valid) {
		snprintf(meas, sizeof(meas), "no %.*s counter here", (int)strcspn(c->what, "|"), c->what);
	} else {
		snprintf(meas, sizeof(meas), "%.3f %s/item%s", f->s.median, e >= 0 ? ctx->m.plan.ev[e].name : "cycles",
			 f->estimated ? " (est.)" : f->simulated ? " (sim.)" : "");
		v = f->s.median >= c->lo && f->s.median <= c->hi ? V_OK : V_WRONG;
	}
	pmb__table_add_row(t);
	pmb__table_set(t, 0, "%s", c->def.name);
	pmb__table_set(t, 1, "%s", c->expect);
	pmb__table_set(t, 2, "%s", meas);
	pmb__table_set(t, 3, "%s", word[v]);
	return v;
}

int pmb__selfcheck_report(const struct pmb_context *ctx, const struct pmb_result *res, size_t n,
			 FILE *out)
{
	struct pmb__table t = { .ncol = 4, .head = { "check", "expected", "measured", "verdict" },
				.left = { true, true, true, true } };
	int count[3] = { 0 };
	char emulated[256] = "";

	fprintf(out, "self-check on core %d (%s backend)%s\n", ctx->m.cpu, pmb_backend_name(ctx->m.backend),
		pmb_context_sim(ctx) ? ": counts SIMULATED by valgrind; no time, so no cycles" :
		ctx->m.pmu_ok ? "" : ": no hardware counters, cycles ESTIMATED from time");
	int notrun = 0; /* a signal stopped the run first: not "no counter" */

	for (size_t i = 0; i < NCHECKS && i < n; i++) {
		enum verdict v = check_line(ctx, &checks[i], &res[i], &t);

		count[v]++;
		notrun += res[i].m.not_run;
		if (v == V_WRONG && !emulated[0])
			timeless(ctx, &res[i], checks[i].def.name, emulated, sizeof(emulated));
	}
	pmb__table_print(out, &t);
	int failed = count[V_WRONG], unchecked = count[V_UNCHECKED] - notrun;
	/* A busy core is the likeliest cause: name its load, and another
	 * core to try, before blaming the machine (issue 26). */
	if (failed && ctx->m.busy > 0.2 && ctx->m.idlest_cpu >= 0)
		fprintf(out, "%d check%s WRONG on core %d, which other work kept %.0f %% busy before the run "
			"(load average %.2f): its figures cannot be trusted while it is; rerun on an idler "
			"core: pmubench --self-check --cpu=%d\n", failed, failed == 1 ? "" : "s", ctx->m.cpu,
			ctx->m.busy * 100, ctx->m.loadavg[0], ctx->m.idlest_cpu);
	else if (failed && ctx->m.busy > 0.2)
		fprintf(out, "%d check%s WRONG on core %d, which other work kept %.0f %% busy before the run "
			"(load average %.2f): its figures cannot be trusted while it is; rerun on an idle "
			"core (--self-check --cpu=N)\n", failed, failed == 1 ? "" : "s", ctx->m.cpu,
			ctx->m.busy * 100, ctx->m.loadavg[0]);
	else if (failed)
		fprintf(out, "%d check%s WRONG: this machine's figures cannot be trusted as they are\n",
			failed, failed == 1 ? "" : "s");
	if (emulated[0])
		fprintf(out, "note: %s\n", emulated);
	if (unchecked)
		fprintf(out, "%d check%s could not run here (no counter for them)%s\n",
			unchecked, unchecked == 1 ? "" : "s", failed ? "" : "; the others passed");
	if (ctx->m.pmu_ok == false && !pmb_context_sim(ctx))
		fprintf(out, "note: the add chain defines the frequency estimate, so its "
			"est. cycles check only shows the harness is consistent\n");
	return failed ? 1 : 0;
}
