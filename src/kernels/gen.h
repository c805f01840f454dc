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
