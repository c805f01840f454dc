/* paxis_bench.c - a user's benchmarks for issue 26: a branch study whose axis is named "p" but means something else (padding words per item), one that declares its misprediction rate (test_learn.py: no penalty read from a name), and one that sleeps in its loop (test_asked.py: task-clock shown, JSON cpu_time below real_time). */
#include <stdint.h>
#include <time.h>

#include "pmubench.h"

#define ITEMS 1024 /* per pass */

/* A dependent chain of n steps per item: p is the padding, in steps, that
 * each item carries; nothing in it is mispredicted by design. */
static __attribute__((noinline)) uint64_t pad(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 3 + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Cost grows with p: a reader of "pN mispredicts min(N, 100-N) %" would
 * fit a penalty to it. */
static void run(struct pmb_state *s, uint64_t scale)
{
	uint64_t x = 1, steps = (uint64_t)pmb_arg(s, 0) * scale + 1;

	while (pmb_loop_batch(s, ITEMS))
		x = pad(x, ITEMS * steps);
	pmb_do_not_optimize(x);
}

static void bm_pad_y(struct pmb_state *s)
{
	run(s, 2);
}

static void bm_pad_l(struct pmb_state *s)
{
	run(s, 1);
}

PMB_BENCHMARK(bm_pad_y, .group = "paxis", .name = "pad/branchy", .role = PMB_ROLE_BRANCHY,
	      .args = PMB_NAMED_ARGS("p", 0, 10, 50));
PMB_BENCHMARK(bm_pad_l, .group = "paxis", .name = "pad/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .args = PMB_NAMED_ARGS("p", 0, 10, 50));

/* The same, its branchy form declaring a rate of p % per item. */
static void bm_decl_y(struct pmb_state *s)
{
	if (pmb_set_mispredict_rate(s, 1.5) != -22 /* -EINVAL */) {
		pmb_fail(s, "pmb_set_mispredict_rate took a rate above 1");
		return;
	}
	(void)pmb_set_mispredict_rate(s, (double)pmb_arg(s, 0) / 100);
	run(s, 2);
}

PMB_BENCHMARK(bm_decl_y, .group = "paxis", .name = "decl/branchy", .role = PMB_ROLE_BRANCHY,
	      .args = PMB_NAMED_ARGS("p", 0, 10, 50));
PMB_BENCHMARK(bm_pad_l, .group = "paxis", .name = "decl/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .args = PMB_NAMED_ARGS("p", 0, 10, 50));

/* Off the CPU for most of every pass: 200 us asleep, then a little work.
 * Its CPU time per item is far below its wall time. */
static void bm_sleepy(struct pmb_state *s)
{
	const struct timespec nap = { 0, 200000 };
	uint64_t x = 1;

	while (pmb_loop(s)) {
		nanosleep(&nap, NULL);
		x = pad(x, 1000);
	}
	pmb_do_not_optimize(x);
}

PMB_BENCHMARK(bm_sleepy, .group = "offcpu", .name = "sleepy");

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
