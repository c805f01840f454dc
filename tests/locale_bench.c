/* locale_bench.c - a benchmark program as a user writes one, which calls
 * setlocale(LC_ALL, "") first: pmubench's output must not follow the
 * locale's decimal comma (tests/test_output.py). */
#include <locale.h>
#include <stdio.h>
#include <pmubench.h>

static void bm_sum(struct pmb_state *s)
{
	size_t n = (size_t)pmb_arg(s, 0);
	volatile unsigned v[64] = { 0 };

	while (pmb_loop_batch(s, n)) {
		unsigned t = 0;

		for (size_t i = 0; i < n; i++)
			t += v[i % 64];
		pmb_do_not_optimize(t);
	}
}
PMB_BENCHMARK(bm_sum, .group = "locale", .args = PMB_ARGS(3, 7));

/* Names and reasons are users' text: a terminal escape and bytes that are
 * not UTF-8 must come out escaped, never raw. */
static void bm_odd(struct pmb_state *s)
{
	while (pmb_loop(s)) {
	}
}
PMB_BENCHMARK(bm_odd, .group = "odd\x1b[31m\xff", .args = PMB_ARGS(1));

static void bm_skip(struct pmb_state *s)
{
	pmb_skip(s, "because\x07 \xc3\x28 \xe2\x82\xac");
}
PMB_BENCHMARK(bm_skip, .group = "odd\x1b[31m\xff");

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	/* What the locale asked for, so the test knows it took effect. */
	fprintf(stderr, "locale_bench: decimal point '%s'\n", localeconv()->decimal_point);
	return pmb_main(argc, argv);
}
