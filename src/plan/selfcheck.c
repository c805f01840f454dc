/* selfcheck.c - --self-check's plan: calibration kernels with known answers (analysis_check.c gives the verdicts, report_selfcheck.c prints them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
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

/* The checks: each calibration kernel as a benchmark (an empty one: a nop
 * loop at a fraction of a ns per item is the point, not a sign of removed
 * work) and its known answer. */
#define CHECK(fn, nm) { .func = fn, .name = nm, .empty = true }
static const struct pmb_benchmark_def defs[] = {
	CHECK(sc_add, "selfcheck/add_chain"),	CHECK(sc_imul, "selfcheck/imul_chain"),
	CHECK(sc_chase, "selfcheck/l1_chase"),	CHECK(sc_coin, "selfcheck/coin_flip"),
	CHECK(sc_nops, "selfcheck/nop_loop"),
};
static const struct pmb_known_answer known[] = {
	{ "cycles", 0.9, 1.1, "1 cycle/item" },
	{ "cycles", 2.7, 3.3, "3 cycles/item" },
	{ "cycles", 3.5, 5.5, "4-5 cycles/item" },
	{ "branch-misses|cond-branch-misses", 0.45, 0.55, "0.5 mispredicts/item" },
	{ "instructions", 0.99, 1.01, "1 instruction/item" },
};
#define NCHECKS (sizeof(defs) / sizeof(defs[0]))
_Static_assert(sizeof(known) / sizeof(known[0]) == NCHECKS, "one known answer per check");

int pmb__selfcheck_plan(struct pmb_instance **inst, size_t *n)
{
	struct pmb_instance *in = calloc(NCHECKS, sizeof(*in));

	*inst = in;
	*n = in ? NCHECKS : 0;
	if (!in)
		return -ENOMEM;
	for (size_t i = 0; i < NCHECKS; i++) {
		in[i].def = &defs[i];
		in[i].known = &known[i];
		snprintf(in[i].name, sizeof(in[i].name), "%s", defs[i].name);
		snprintf(in[i].family, sizeof(in[i].family), "%s", defs[i].name);
		in[i].baseline = in[i].reference = -1;
		in[i].cohort = (int)i;
	}
	return 0;
}
