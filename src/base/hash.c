/* hash.c - the process's hash seed: tables keyed by names from files are seeded, so that names cannot be crafted to collide. */
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"

uint64_t pmb__hash_seed(void)
{
	/* Drawn once; two threads drawing at once each store a good seed,
	 * and a table is built and read under one of them (the tables live
	 * within one call). */
	static volatile uint64_t seed;
	uint64_t s = seed;
	struct timespec t;

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		/* No entropy yet (early boot): the clock and the pid, which
		 * a file written beforehand cannot know. */
		clock_gettime(CLOCK_MONOTONIC, &t);
		s = ((uint64_t)t.tv_nsec << 32) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 16);
	}
	s |= 1; /* never 0: 0 is "not drawn" */
	seed = s;
	return s;
}
