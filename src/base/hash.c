/* hash.c - the process's hash seed: tables keyed by names from files are seeded, so that names cannot be crafted to collide. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

int pmb__name_index_init(struct pmb_name_index *x, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	x->name = calloc(cap, sizeof(*x->name));
	x->at = calloc(cap, sizeof(*x->at));
	x->mask = cap - 1;
	return x->name && x->at ? 0 : -ENOMEM;
}

size_t pmb__name_index_slot(const struct pmb_name_index *x, const char *name)
{
	size_t i = (size_t)pmb__hash_index(pmb__fnv1a(PMB_FNV1A_INIT, name)) & x->mask;

	while (x->name[i] && strcmp(x->name[i], name))
		i = (i + 1) & x->mask;
	return i;
}

bool pmb__name_index_add(struct pmb_name_index *x, const char *name, size_t at)
{
	size_t i = pmb__name_index_slot(x, name);

	if (x->name[i])
		return false;
	x->name[i] = name;
	x->at[i] = at;
	return true;
}

void pmb__name_index_free(struct pmb_name_index *x)
{
	free(x->name);
	free(x->at);
	x->name = NULL;
	x->at = NULL;
}
