/* gen.h - seeded, deterministic input generators for the built-in kernels. */
#ifndef PMB_KERNELS_GEN_H
#define PMB_KERNELS_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* Kernels draw from the library's one generator (struct pmb_rng, rng.h:
 * header-only, so kernels, which reach only the public API, compile it into
 * their own code): pmb_rng_seed() and pmb_rng_next(); the same seed gives
 * the same stream on every machine. */

/** Uniform in [0, n), unbiased; 0 when n is 0.  Rejection under the
 * covering power of two, not rng.h's pmb_rng_below(): every kernel input is
 * defined by this mapping of the generator's bits. */
uint64_t pmb_gen_below(struct pmb_rng *g, uint64_t n);
/** True with probability pct / 100 (pct 0..100; above 100 acts as 100). */
int pmb_gen_chance(struct pmb_rng *g, unsigned pct);

/** Fisher-Yates shuffle of v[0..n). */
void pmb_gen_shuffle_u32(struct pmb_rng *g, uint32_t *v, size_t n);
/** A random cyclic permutation (Sattolo): following next = v[i] from any i
 * visits all n slots before returning (for pointer chasing). */
void pmb_gen_cycle_u32(struct pmb_rng *g, uint32_t *v, size_t n);

/* One xorshift64 step, the in-loop key source of kernels that draw a fresh
 * key per item: rng.h's pmb_rng_xorshift64. */
#define pmb_gen_xorshift64 pmb_rng_xorshift64

/* ---- predicate inputs: p = share of items on the "pass" side ----------- */

/* Items per pass of the sum_if and filter kernels: far more decisions than a
 * TAGE-like predictor can memorise across passes. */
#define PMB_GEN_PASS_ITEMS (64 * 1024)

/* Threshold of the byte and word predicates: an item passes when it is
 * greater than the threshold. */
#define PMB_GEN_BYTE_T 127u
#define PMB_GEN_U32_T 0x7fffffffu

/** Bytes that pass (> PMB_GEN_BYTE_T) independently with probability
 * pct / 100, each uniform on its side.  For pct <= 50 the passing side is the
 * rare one, so a good predictor mispredicts about pct % of the items. */
void pmb_gen_bytes_p(uint8_t *v, size_t n, unsigned pct, uint64_t seed);
/** The same for 32-bit words and PMB_GEN_U32_T. */
void pmb_gen_u32_p(uint32_t *v, size_t n, unsigned pct, uint64_t seed);

/** The share of items a good predictor mispredicts on a pmb_gen_*_p input
 * of pct % (0..100): its rarer side, min(pct, 100 - pct) %.  The kernels
 * declare it to the branch study (pmb_set_mispredict_rate), which reads no
 * rate from an input's name. */
static inline double pmb_gen_misp_rate(unsigned pct)
{
	return (pct < 100 - pct ? pct : 100 - pct) / 100.0;
}

/* ---- fresh input for every pass: a stream prepared per sample ---------- */

/* A predictor that sees the same input every pass learns it: Zen 5 ran a
 * branchy sum over one 64 KiB input at 2.3-2.5 ns per item after
 * thousands of passes, against 3.6 ns over data it had not seen (and over
 * 68 passes at 4.9-5.6 ns: not learned yet).  So a kernel whose input must
 * stay unpredictable reads each pass from a slot of a stream that its
 * prepare hook refills before every sample, from the seed and a counter
 * of the passes drawn so far: no sample sees bytes an earlier one saw, and
 * within one the predictor sees each slot at most passes / slots times
 * (about 90 at --min-sample-time=10ms for the slowest kernel).
 *
 * The stream stays small, or the kernel turns into a memory benchmark:
 * read in order from rings of 64 KiB slots (tests/branch_fresh.c), sum_if's
 * branchless form cost 0.31 ns per item up to 1 MiB and 0.64 ns at 4 MiB,
 * its speed-of-light loop 0.26 and 0.51 ns (Xeon KVM guest, 48 KiB L1d,
 * 2 MiB L2 per core); the forms of a cohort run interleaved and share the
 * L2.  Hence PMB_GEN_STREAM_BYTES: at least one slot, at most 128 KiB. */
#ifndef PMB_GEN_STREAM_BYTES
#define PMB_GEN_STREAM_BYTES (128u << 10)
#endif

/** Fills one pass's slot of slot_bytes from seed; returns the bytes of
 * input it wrote (what the kernel reads as the pass's length). */
typedef size_t (*pmb_gen_fill_fn)(uint8_t *slot, size_t slot_bytes, uint64_t seed,
				  void *arg);

struct pmb_gen_stream {
	uint8_t *buf;          /* nslots slots of slot_bytes, 64-byte aligned */
	size_t *len;           /* per slot, what fill returned */
	size_t in_bytes;       /* what fill is given: the slot_bytes asked */
	size_t slot_bytes, max_slots, nslots; /* stride: in_bytes to 64 */
	size_t next;           /* the slot of the next pass */
	size_t filled;         /* slots filled for the running sample */
	uint64_t seed, drawn;  /* passes generated so far */
	pmb_gen_fill_fn fill;
	void *arg;
};

/** An empty stream of slots of slot_bytes (at most PMB_GEN_STREAM_BYTES
 * in all, at least one slot).  Returns 0, or -1 out of memory. */
int pmb_gen_stream_init(struct pmb_gen_stream *st, size_t slot_bytes, uint64_t seed,
			pmb_gen_fill_fn fill, void *arg);
/** Before a sample of `passes` passes: fresh data in min(passes, slots)
 * slots, the first pass at slot 0.  Returns 0, or -1 out of memory. */
int pmb_gen_stream_prepare(struct pmb_gen_stream *st, uint64_t passes);
/** The next pass's input (its length in *len if len is not NULL). */
static inline const uint8_t *pmb_gen_stream_next(struct pmb_gen_stream *st, size_t *len)
{
	size_t k = st->next;

	st->next = k + 1 == st->filled ? 0 : k + 1;
	if (len)
		*len = st->len[k];
	return st->buf + k * st->slot_bytes;
}
/** Frees the stream's memory; a zeroed stream does nothing. */
void pmb_gen_stream_free(struct pmb_gen_stream *st);

struct pmb_state;
/** A prepare hook (struct pmb_benchmark_def.prepare) for a benchmark whose
 * pmb_user_data() is its struct pmb_gen_stream: fresh slots for the next
 * sample; out of memory, the benchmark fails and keeps its last slots. */
void pmb_gen_stream_hook(struct pmb_state *s, uint64_t passes);

/** Fill functions for pmb_gen_stream: the bytes of pmb_gen_bytes_p and the
 * words of pmb_gen_u32_p (arg: the unsigned pct), the varints of
 * pmb_gen_varints (arg: a struct pmb_gen_varint_arg). */
struct pmb_gen_varint_arg {
	int width;    /* as pmb_gen_varints's */
	uint64_t sum; /* out: the sum of the values of the slot filled last */
};
size_t pmb_gen_fill_bytes_p(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg);
size_t pmb_gen_fill_u32_p(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg);
size_t pmb_gen_fill_varints(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg);

/* ---- LEB128 varints ------------------------------------------------------ */

#define PMB_VARINT_MAX 5 /* bytes of the longest uint32 varint */
/* Readable bytes a stream needs past its end: decoders may load 8 bytes at
 * the start of its last varint. */
#define PMB_VARINT_PAD 8
/* Varints per pass of the varint kernels. */
#define PMB_GEN_VARINTS (64 * 1024)

/** Write v as an LEB128 varint at p; returns its length (1..5). */
size_t pmb_varint_encode(uint8_t *p, uint32_t v);
/** Length of v's varint (1..5). */
size_t pmb_varint_len(uint32_t v);
/** A value whose varint is `width` bytes (1..5), uniform among those; width 0
 * draws from the log-uniform mix: bit length uniform in 1..32, so widths
 * 1..4 come 7/32 of the time each and width 5 4/32. */
uint32_t pmb_gen_varint_value(struct pmb_rng *g, int width);
/** Encode n values of pmb_gen_varint_value(width) end to end into buf, which
 * must hold n * PMB_VARINT_MAX + PMB_VARINT_PAD bytes; the bytes after the
 * stream are zeroed up to PMB_VARINT_PAD.  Returns the stream length; *sum
 * (if not NULL) gets the sum of the values. */
size_t pmb_gen_varints(uint8_t *buf, size_t n, int width, uint64_t seed,
		       uint64_t *sum);

/* ---- sorted arrays ------------------------------------------------------- */

/** Non-decreasing random uint32 spread over the whole range: a[i] is uniform
 * in the i-th of n equal slices of [0, 2^32), so a uniform key lands at a
 * uniform position. */
void pmb_gen_sorted_u32(uint32_t *a, size_t n, uint64_t seed);

#endif
