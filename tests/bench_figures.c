/* bench_figures.c - a user's benchmark program (public API only) with known costs, for test_figures.py: every combination of .baseline and .reference over add chains of known instruction counts, and hidden costs per sample of known size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmubench.h>

/* 64 dependent adds: exactly 64 instructions (src/add_chain.h). */
#include "add_chain.h"
#define ADD64 PMB__ADD64

#ifdef PMB__ADD64
#if defined(__x86_64__)
#define PINNED(x, v) register uint64_t x __asm__("rbx") = (v)
#else
#define PINNED(x, v) register uint64_t x __asm__("x19") = (v)
#endif

#define REP1 ADD64
#define REP3 ADD64 ADD64 ADD64
#define REP5 REP3 ADD64 ADD64
#define REP7 REP5 ADD64 ADD64

/* 64 items a pass, `per_item` instructions each: the pass is per_item
 * blocks of 64 adds in one asm statement plus the loop every benchmark
 * has (x pinned to one register, as in calib/add_chain, so the loop adds
 * no copies). */
#define CHAIN(fn, per_item)                                               \
	static void fn(struct pmb_state *s)                               \
	{                                                                 \
		PINNED(x, pmb_seed(s));                                   \
		uint64_t k = 3;                                           \
		while (pmb_loop_batch(s, 64))                             \
			__asm__ volatile(REP##per_item : "+r"(x) : "r"(k)); \
		pmb_do_not_optimize(x);                                   \
	}
#else
#define CHAIN(fn, per_item)                                               \
	static void fn(struct pmb_state *s)                               \
	{                                                                 \
		pmb_skip(s, "no add chain for this architecture");        \
	}
#endif

CHAIN(chain1, 1)
CHAIN(chain3, 3)
CHAIN(chain5, 5)
CHAIN(chain7, 7)

/* The cases of pmubench(3) "Baselines and references", in its order;
 * test_figures.py holds the expected figure of each. */
PMB_BENCHMARK(chain1, .group = "links", .name = "base");          /* 1: the shared overhead */
PMB_BENCHMARK(chain3, .group = "links", .name = "ref");           /* 3: a reference, no baseline */
PMB_BENCHMARK(chain3, .group = "links", .name = "ref_b", .baseline = "base");
PMB_BENCHMARK(chain1, .group = "links", .name = "ref_zero", .baseline = "base");
PMB_BENCHMARK(chain7, .group = "links", .name = "none");
PMB_BENCHMARK(chain7, .group = "links", .name = "bench_base", .baseline = "base");
PMB_BENCHMARK(chain7, .group = "links", .name = "ref_plain", .reference = "ref");
PMB_BENCHMARK(chain7, .group = "links", .name = "ref_base", .reference = "ref_b");
PMB_BENCHMARK(chain7, .group = "links", .name = "both_base", .baseline = "base", .reference = "ref");
PMB_BENCHMARK(chain7, .group = "links", .name = "all", .baseline = "base", .reference = "ref_b");
PMB_BENCHMARK(chain5, .group = "links", .name = "mid", .reference = "ref");
PMB_BENCHMARK(chain7, .group = "links", .name = "chain", .reference = "mid");
PMB_BENCHMARK(chain7, .group = "links", .name = "big");
PMB_BENCHMARK(chain1, .group = "links", .name = "slow_base", .baseline = "big");
PMB_BENCHMARK(chain1, .group = "links", .name = "equal_base", .baseline = "base");
PMB_BENCHMARK(chain7, .group = "links", .name = "ref_unresolved", .baseline = "base", .reference = "ref_zero");

/* ---- the seed's table (the casting example of additive and multiplicative
 * baselines): its figures as instructions per item, exactly.  A pass is
 * 10000 items of n instructions in one asm statement, so an item costs
 * n / 10000: 16.2276 is 162276 instructions a pass.  They are a counted
 * loop, not n adds in a row: valgrind translated 1.4 M straight-line
 * instructions again on every pass (11.8 s of the sim run, 1.1 s as a
 * loop).  Its count: the counter's mov (1), q rounds of 998 adds, the
 * decrement and the branch (1000 each), then r adds: 1 + 1000 q + r = n. */
#define SEED_ROUND 1000
#if defined(__x86_64__)
#define ADD1 "add %2, %0\n\t"
#define SEED_LOOP(q, r)                                                   \
	"mov $" #q ", %1\n"                                                \
	"1:\n\t.rept 998\n\t" ADD1 ".endr\n\t"                            \
	"dec %1\n\tjnz 1b\n\t"                                             \
	".rept " #r "\n\t" ADD1 ".endr"
#elif defined(__aarch64__)
#define ADD1 "add %0, %0, %2\n\t"
#define SEED_LOOP(q, r)                                                   \
	"mov %1, #" #q "\n"                                                \
	"1:\n\t.rept 998\n\t" ADD1 ".endr\n\t"                            \
	"subs %1, %1, #1\n\tb.ne 1b\n\t"                                   \
	".rept " #r "\n\t" ADD1 ".endr"
#endif
#ifdef SEED_LOOP
#define SEED(fn, n, q, r)                                                 \
	_Static_assert(1 + SEED_ROUND * (q) + (r) == (n) && (q) > 0 &&    \
		       (r) < SEED_ROUND, #fn ": q and r make n");         \
	static void fn(struct pmb_state *s)                               \
	{                                                                 \
		PINNED(x, pmb_seed(s));                                   \
		uint64_t k = 3, c;                                        \
		while (pmb_loop_batch(s, 10000))                          \
			__asm__ volatile(SEED_LOOP(q, r)                  \
					 : "+r"(x), "=&r"(c) : "r"(k));   \
		pmb_do_not_optimize(x);                                   \
	}
#else
#define SEED(fn, n, q, r) CHAIN(fn, 1)
#endif

SEED(seed_direct, 162276, 162, 275)
SEED(seed_normal, 165152, 165, 151)
SEED(seed_explicit, 806373, 806, 372)
SEED(seed_dynamic, 294733, 294, 732)

/* Direct holds only the overhead (the additive baseline); NormalCast is
 * the reference (the multiplicative one), normalized itself. */
PMB_BENCHMARK(seed_direct, .group = "seed", .name = "Direct");
PMB_BENCHMARK(seed_normal, .group = "seed", .name = "NormalCast", .baseline = "Direct");
PMB_BENCHMARK(seed_explicit, .group = "seed", .name = "ExplicitCovariantCast", .baseline = "Direct",
	      .reference = "NormalCast");
PMB_BENCHMARK(seed_dynamic, .group = "seed", .name = "DynamicCovariantCast", .baseline = "Direct",
	      .reference = "NormalCast");
/* The seed's first table: Direct as the reference, nothing subtracted. */
PMB_BENCHMARK(seed_explicit, .group = "seed", .name = "raw/Explicit", .reference = "Direct");
PMB_BENCHMARK(seed_dynamic, .group = "seed", .name = "raw/Dynamic", .reference = "Direct");

/* ---- hidden costs per sample ------------------------------------------ */

/* A sample begins: the prepare hook (run before each sample, outside the
 * measurement) raises the flag, and the loop's first pass after it does
 * the hidden work, inside the measured region, once a sample: a fixed
 * cost per sample. */
static void hidden_prepare(struct pmb_state *s, uint64_t passes)
{
	volatile int *began = pmb_user_data(s);

	(void)passes;
	if (began)
		*began = 1;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Busy for `us` microseconds of wall-clock time. */
static void spin_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;

	while (now_ns() < end)
		;
}

#define MEMSET_BYTES (4u << 20)

static unsigned char *memset_buf(struct pmb_state *s)
{
	unsigned char *b = malloc(MEMSET_BYTES);

	if (!b)
		pmb_skip(s, "out of memory");
	else
		memset(b, 1, MEMSET_BYTES); /* pages faulted in outside the loop */
	return b;
}

/* A body of 64 adds a pass (64 items), and every sample the hidden work:
 * a busy wait of arg 0 microseconds, or (arg 0 == 0) a 4 MiB memset. */
static void bm_hidden(struct pmb_state *s)
{
	uint64_t us = (uint64_t)pmb_arg(s, 0), k = 3, x = pmb_seed(s);
	unsigned char *b = us ? NULL : memset_buf(s);
	volatile int began = 0;
	int fill = 0;

	if (!us && !b)
		return;
	pmb_set_user_data(s, (void *)&began);
	while (pmb_loop_batch(s, 64)) {
		if (began) {
			began = 0;
			if (us)
				spin_us(us);
			else
				memset(b, ++fill & 0x7f, MEMSET_BYTES);
			pmb_clobber_memory();
		}
#ifdef PMB__ADD64
		__asm__ volatile(ADD64 : "+r"(x) : "r"(k));
#else
		x = x * 3 + k;
#endif
	}
	pmb_do_not_optimize(x);
	free(b);
}
PMB_BENCHMARK(bm_hidden, .group = "hidden", .name = "cost", .args = PMB_ARGS(0, 50, 200, 1000),
	      .prepare = hidden_prepare);

/* The truth for the memset: the same 4 MiB memset once a pass, a pass
 * counted as MEMSET_ITEMS items (so that the simulator's calibration,
 * which asks for 4096 items a sample, takes one or two passes, not 4096):
 * its cost per item times MEMSET_ITEMS is what a sample of hidden/cost/0
 * hides. */
#define MEMSET_ITEMS 4096
static void bm_memset_pass(struct pmb_state *s)
{
	unsigned char *b = memset_buf(s);
	uint64_t n = 0;

	if (!b)
		return;
	while (pmb_loop_batch(s, MEMSET_ITEMS)) {
		memset(b, (int)(n++ & 0x7f), MEMSET_BYTES);
		pmb_clobber_memory();
	}
	free(b);
}
PMB_BENCHMARK(bm_memset_pass, .group = "hidden", .name = "memset_pass");

/* The memset where hidden/cost/0 does it: after a sample's worth (1 ms) of
 * work that touches no memory.  A pass is a 1 ms busy wait, then (arg 1)
 * the memset; the two passes' difference is what the memset costs there.
 * Back to back it can cost a quarter of that: 63 against 255 us on a Zen 3
 * guest, whose caches lose the buffer within the millisecond. */
static void bm_memset_after_wait(struct pmb_state *s)
{
	bool with = pmb_arg(s, 0) != 0;
	unsigned char *b = memset_buf(s);
	int fill = 0;

	if (!b)
		return;
	while (pmb_loop(s)) {
		spin_us(1000);
		if (with)
			memset(b, ++fill & 0x7f, MEMSET_BYTES);
		pmb_clobber_memory();
	}
	free(b);
}
PMB_BENCHMARK(bm_memset_after_wait, .group = "hidden", .name = "memset_after_wait", .args = PMB_ARGS(0, 1));

/* Real work that overlaps the loop's own dependency chain: a shift of a
 * volatile, 3 instructions an item (load, shift, store), whose latency the
 * loop hides. */
static void bm_overlap(struct pmb_state *s)
{
	volatile int v = 1;

	while (pmb_loop(s))
		v <<= 1;
}
PMB_BENCHMARK(bm_overlap, .group = "fast", .name = "overlap");

/* The body the compiler removes: no work at all. */
static void bm_removed(struct pmb_state *s)
{
	int v = 1;

	while (pmb_loop(s))
		v <<= 1;
	(void)v;
}
PMB_BENCHMARK(bm_removed, .group = "fast", .name = "removed");

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
