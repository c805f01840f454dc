/* rng.h - the one random number generator: xoshiro256** seeded through splitmix64, the same stream for a seed on every machine. */
#ifndef PMB_RNG_H
#define PMB_RNG_H

#include <stdint.h>

/* Header-only: the library (statistics, runner) and the built-in kernels,
 * which are compiled outside it and reach only the public API, include the
 * same code.  Every stream pmubench draws, and so every input and bootstrap
 * interval in the outputs, depends on these lines: changing them changes
 * the golden outputs (tests/golden/). */

struct pmb_rng {
	uint64_t s[4];
};

/* One splitmix64 step: advances *x by the golden-ratio increment and
 * returns its mix.  Enough alone where one word of state must give a
 * stream of well-mixed values (the runner's pass-count stretch, the memory
 * kernels' fills); it also seeds xoshiro. */
static inline uint64_t pmb_rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One xorshift64 (13, 7, 17) step: the in-loop key source of kernels that
 * draw a fresh key per item without a key array in the working set (a few
 * cycles, no branch), and the self-check's coin flips.  *x must not be 0.
 * (The only other generator is the MMIX LCG inside mem/random_read's loop:
 * part of the measured work, one multiply-add per item by design.) */
static inline uint64_t pmb_rng_xorshift64(uint64_t *x)
{
	uint64_t v = *x;

	v ^= v << 13;
	v ^= v >> 7;
	v ^= v << 17;
	*x = v;
	return v;
}

static inline uint64_t pmb__rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Seed r; any seed (0 included) gives a valid, distinct stream: splitmix64
 * never yields four zero words, the one state xoshiro cannot leave. */
static inline void pmb_rng_seed(struct pmb_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = pmb_rng_splitmix64(&seed);
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t pmb_rng_next(struct pmb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = pmb__rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = pmb__rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double pmb_rng_uniform(struct pmb_rng *r)
{
	return (double)(pmb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), unbiased; 0 when n is 0.  Lemire's multiply and
 * reject: a division only on the rare rejection path, which matters since
 * the bootstrap draws n * resamples indices.  (The kernels' inputs use
 * pmb_gen_below() in kernels/gen.c, which maps the same bits differently:
 * their inputs are defined by it.) */
static inline uint64_t pmb_rng_below(struct pmb_rng *r, uint64_t n)
{
	__extension__ typedef unsigned __int128 u128;
	u128 m;
	uint64_t lo;

	if (n == 0)
		return 0;
	m = (u128)pmb_rng_next(r) * n;
	lo = (uint64_t)m;
	if (lo < n) {
		uint64_t threshold = -n % n;

		while (lo < threshold) {
			m = (u128)pmb_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

#endif
