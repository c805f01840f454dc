/* branch_varint.c - branch study: LEB128 varint decoding, byte loop vs BMI2 pext. */
#include <stdlib.h>
#include <string.h>

#include "pmubench.h"
#include "branch.h"
#include "gen.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PMB_HAVE_PEXT_CODE 1
#else
#define PMB_HAVE_PEXT_CODE 0
#endif

PMB_KERNEL_BRANCHY
struct pmb_varint_sum pmb_varint_branchy(const uint8_t *p, const uint8_t *end)
{
	struct pmb_varint_sum r = { 0, 0 };

	while (p < end) {
		uint32_t v = 0;
		unsigned shift = 0;
		uint8_t b;

		/* The stop bit of each byte is the data-dependent jump. */
		do {
			b = *p++;
			v |= (uint32_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		r.sum += v;
		r.count++;
	}
	return r;
}

#if PMB_HAVE_PEXT_CODE
bool pmb_varint_have_pext(void)
{
	return __builtin_cpu_supports("bmi2");
}

/* Compiled for BMI2 whatever the build's -march: callers check
 * pmb_varint_have_pext() first. */
PMB_KERNEL_BRANCHLESS __attribute__((target("bmi,bmi2")))
struct pmb_varint_sum pmb_varint_branchless(const uint8_t *p,
					    const uint8_t *end)
{
	const uint64_t stop = 0x8080808080ull; /* stop bits of 5 bytes */
	const uint64_t data = 0x7f7f7f7f7full;
	struct pmb_varint_sum r = { 0, 0 };

	while (p < end) {
		uint64_t w, len;

		memcpy(&w, p, sizeof(w));
		/* The first clear stop bit ends the varint; a well-formed one
		 * has it within 5 bytes, so ~w & stop is never 0. */
		len = (uint64_t)__builtin_ctzll(~w & stop) / 8 + 1;
		r.sum += (uint32_t)_bzhi_u64(_pext_u64(w, data),
					     (unsigned)(7 * len));
		r.count++;
		p += len;
	}
	return r;
}
#else
bool pmb_varint_have_pext(void)
{
	return false;
}

struct pmb_varint_sum pmb_varint_branchless(const uint8_t *p,
					    const uint8_t *end)
{
	struct pmb_varint_sum r = { 0, 0 };

	(void)p;
	(void)end;
	return r;
}
#endif

PMB_KERNEL_BRANCHLESS
uint64_t pmb_varint_sol(const uint8_t *p, const uint8_t *end)
{
	uint64_t sum = 0;

	PMB_SCALAR_LOOP
	for (; p < end; p++)
		sum += *p;
	return sum;
}

enum varint_form { VARINT_BRANCHY, VARINT_BRANCHLESS, VARINT_SOL };

/* The byte loop must decode what was encoded, and the pext decoder, where
 * it can run, the same. */
static int varint_verify(const uint8_t *p, const uint8_t *end, uint64_t sum,
			 uint64_t count)
{
	struct pmb_varint_sum a = pmb_varint_branchy(p, end);
	struct pmb_varint_sum b;

	if (a.sum != sum || a.count != count)
		return 0;
	if (!pmb_varint_have_pext())
		return 1;
	b = pmb_varint_branchless(p, end);
	return b.sum == sum && b.count == count;
}

/* Sol's byte sum must equal the stream's, found another way: from each
 * varint's value, whose encoding is its base-128 digits with the stop bit
 * (128) set on all but the last.  The walk also checks that the stream holds
 * count minimal varints and nothing else. */
static int varint_sol_verify(const uint8_t *p, const uint8_t *end,
			     uint64_t count)
{
	const uint8_t *start = p;
	uint64_t want = 0, got = 0;

	while (p < end) {
		uint32_t v = 0;
		size_t len = 0;
		uint8_t b;

		do {
			if (len == PMB_VARINT_MAX || p + len == end)
				return 0;
			b = p[len];
			v |= (uint32_t)(b & 0x7f) << (7 * len);
			len++;
		} while (b & 0x80);
		if (pmb_varint_len(v) != len)
			return 0;
		want += 128 * (uint64_t)(len - 1);
		for (; v; v >>= 7)
			want += v & 0x7f;
		p += len;
		got++;
	}
	return got == count && pmb_varint_sol(start, end) == want;
}

/* The three forms' loops over a stream of fresh slots (gen.h). */
static void varint_loop(struct pmb_state *s, enum varint_form form, struct pmb_gen_stream *st)
{
	const size_t n = PMB_GEN_VARINTS;
	const uint8_t *p;
	size_t len;

	switch (form) {
	case VARINT_BRANCHY:
		while (pmb_loop_batch(s, n)) {
			p = pmb_gen_stream_next(st, &len);
			pmb_do_not_optimize(pmb_varint_branchy(p, p + len).sum);
		}
		break;
	case VARINT_BRANCHLESS:
		while (pmb_loop_batch(s, n)) {
			p = pmb_gen_stream_next(st, &len);
			pmb_do_not_optimize(pmb_varint_branchless(p, p + len).sum);
		}
		break;
	case VARINT_SOL:
		while (pmb_loop_batch(s, n)) {
			p = pmb_gen_stream_next(st, &len);
			pmb_do_not_optimize(pmb_varint_sol(p, p + len));
		}
		break;
	}
}

/* pmb_arg(s, 0): the width of every varint (1..5), or 0 for the mix.  The
 * stream's slots are prepared afresh before each sample (gen.h): the
 * decoder's branches never see the same lengths twice. */
static void bm_varint(struct pmb_state *s, enum varint_form form)
{
	const size_t n = PMB_GEN_VARINTS;
	const size_t cap = n * PMB_VARINT_MAX + PMB_VARINT_PAD;
	int64_t width = pmb_arg(s, 0);
	struct pmb_gen_varint_arg arg = { .width = (int)width };
	struct pmb_gen_stream st;
	const uint8_t *buf;
	size_t len;

	if (width < 0 || width > PMB_VARINT_MAX) {
		pmb_fail(s, "varint: width must be 0 (mix) or 1..5");
		return;
	}
	if (form == VARINT_BRANCHLESS && !pmb_varint_have_pext()) {
		pmb_skip(s, "CPU lacks BMI2 (pext)");
		return;
	}
	if (pmb_gen_stream_init(&st, cap, pmb_seed(s), pmb_gen_fill_varints, &arg) ||
	    pmb_gen_stream_prepare(&st, 1)) {
		pmb_fail(s, "varint: out of memory");
		goto out;
	}
	buf = pmb_gen_stream_next(&st, &len);
	if (form != VARINT_SOL && !varint_verify(buf, buf + len, arg.sum, n)) {
		pmb_fail(s, "varint: a decoder disagrees with the encoded values");
		goto out;
	}
	if (form == VARINT_SOL && !varint_sol_verify(buf, buf + len, n)) {
		pmb_fail(s, "varint: sol's byte sum disagrees with the stream");
		goto out;
	}
	pmb_set_bytes(s, len);
	pmb_set_user_data(s, &st);
	varint_loop(s, form, &st);
out:
	pmb_gen_stream_free(&st);
}

static void bm_varint_branchy(struct pmb_state *s)
{
	bm_varint(s, VARINT_BRANCHY);
}

static void bm_varint_branchless(struct pmb_state *s)
{
	bm_varint(s, VARINT_BRANCHLESS);
}

static void bm_varint_sol(struct pmb_state *s)
{
	bm_varint(s, VARINT_SOL);
}

#define VARINT_AXIS                                                            \
	{ .kind = PMB_AXIS_LIST, .list = (const int64_t[]){ 1, 2, 3, 4, 5, 0 },  \
	  .n = 6,                                                              \
	  .labels = (const char *const[]){ "w1", "w2", "w3", "w4", "w5", "mix" } }

PMB_BENCHMARK(bm_varint_branchy, .name = "varint/branchy", .role = PMB_ROLE_BRANCHY, .group = "branch",
	      .args = VARINT_AXIS, .reference = "varint/sol", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_varint_branchless, .name = "varint/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .group = "branch", .args = VARINT_AXIS,
	      .reference = "varint/branchy", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_varint_sol, .name = "varint/sol", .role = PMB_ROLE_SOL, .group = "branch",
	      .args = VARINT_AXIS, .prepare = pmb_gen_stream_hook);
