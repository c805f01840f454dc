/* state.c - what a running benchmark asks of the runner: its arguments,
 * seed, tier, buffers, and the skip or failure it reports. */
#include <errno.h>
#include <stdio.h>

#include "runner.h"
#include "runner_internal.h"
#include "base.h"

PMB_API int64_t pmb_arg(const struct pmb_state *s, int i)
{
	if (i < 0 || i > 1 || !s->pmb__r->inst)
		return 0;
	return s->pmb__r->inst->arg[i];
}

PMB_API uint64_t pmb_seed(const struct pmb_state *s)
{
	/* The reports say "seeded with N" only of inputs that asked. */
	s->pmb__r->r->m.seed_used = true;
	return s->pmb__r->r->m.seed;
}

PMB_API void pmb_set_user_data(struct pmb_state *s, void *data)
{
	s->pmb__r->user = data;
}

PMB_API void *pmb_user_data(const struct pmb_state *s)
{
	return s->pmb__r->user;
}

PMB_API void pmb_set_bytes(struct pmb_state *s, uint64_t bytes_per_pass)
{
	s->pmb__r->r->m.bytes_per_pass = bytes_per_pass;
}

PMB_API int pmb_set_mispredict_rate(struct pmb_state *s, double rate)
{
	/* !(0 <= rate <= 1) also refuses NAN. */
	if (!(rate >= 0 && rate <= 1))
		return -EINVAL;
	s->pmb__r->r->m.misp_declared = true;
	s->pmb__r->r->m.misp_rate = rate;
	return 0;
}

PMB_API const char *pmb_tier(const struct pmb_state *s)
{
	const struct pmb_instance *in = s->pmb__r->inst;

	return in && in->tier[0] ? in->tier : NULL;
}

PMB_API bool pmb_hugepages(const struct pmb_state *s)
{
	return s->pmb__r->o->hugepages;
}

static void note_huge(struct pmb_result *r, double f);

PMB_API void *pmb_buffer_alloc(struct pmb_state *s, size_t bytes)
{
	void *p = pmb__buffer_map(bytes, s->pmb__r->o->hugepages);

	if (!p)
		return NULL;
	/* The smallest share of any buffer: the one that limits the claim. */
	note_huge(s->pmb__r->r, pmb__buffer_huge_fraction(p, bytes));
	return p;
}

PMB_API void *pmb_buffer_alloc_4k(struct pmb_state *s, size_t bytes)
{
	void *p = pmb__buffer_map(bytes, false);

	if (!p)
		return NULL;
	note_huge(s->pmb__r->r, pmb__buffer_huge_fraction(p, bytes));
	return p;
}

PMB_API void pmb_buffer_free(void *buf, size_t bytes)
{
	if (buf)
		pmb__buffer_unmap(buf, bytes);
}

/* Shared inputs: a cohort holds at most one per member, and members run
 * one at a time on one thread, so a small table with no lock does. */
#define MAX_SHARED 16
static struct shared_buf {
	void *p;
	size_t bytes;
	uint64_t seed;
	bool huge;
	pmb_buffer_fill_fn fill;
	double huge_fraction;
	int refs;
} shared[MAX_SHARED];

/* The result's huge-page share: the smallest of any of its buffers. */
static void note_huge(struct pmb_result *r, double f)
{
	if (f >= 0 && (r->m.huge_fraction < 0 || f < r->m.huge_fraction))
		r->m.huge_fraction = f;
}

PMB_API void *pmb_buffer_shared(struct pmb_state *s, size_t bytes, pmb_buffer_fill_fn fill)
{
	bool huge = s->pmb__r->o->hugepages;
	uint64_t seed = pmb_seed(s);
	struct shared_buf *free_slot = NULL;

	for (int i = 0; i < MAX_SHARED; i++) {
		struct shared_buf *b = &shared[i];

		if (b->refs && b->fill == fill && b->bytes == bytes && b->seed == seed && b->huge == huge) {
			b->refs++;
			note_huge(s->pmb__r->r, b->huge_fraction);
			return b->p;
		}
		if (!b->refs && !free_slot)
			free_slot = b;
	}
	if (!free_slot || !fill)
		return NULL;
	void *p = pmb__buffer_map(bytes, huge);

	if (!p)
		return NULL;
	if (fill(p, bytes, seed)) {
		pmb__buffer_unmap(p, bytes);
		return NULL;
	}
	*free_slot = (struct shared_buf){ .p = p, .bytes = bytes, .seed = seed, .huge = huge,
					  .fill = fill, .refs = 1,
					  .huge_fraction = pmb__buffer_huge_fraction(p, bytes) };
	note_huge(s->pmb__r->r, free_slot->huge_fraction);
	return p;
}

PMB_API void pmb_buffer_release(void *buf)
{
	for (int i = 0; buf && i < MAX_SHARED; i++)
		if (shared[i].refs && shared[i].p == buf) {
			if (--shared[i].refs == 0) {
				pmb__buffer_unmap(buf, shared[i].bytes);
				shared[i].p = NULL;
			}
			return;
		}
}

void pmb__result_set_reason(struct pmb_result *r, int status, const char *reason)
{
	r->m.status = status;
	/* A user's text, written to the terminal and every report. */
	pmb__text_safe(r->m.reason, sizeof(r->m.reason), reason ? reason : "");
}

PMB_API void pmb_skip(struct pmb_state *s, const char *reason)
{
	pmb__result_set_reason(s->pmb__r->r, PMB_ESKIPPED, reason);
}

PMB_API void pmb_fail(struct pmb_state *s, const char *reason)
{
	pmb__result_set_reason(s->pmb__r->r, PMB_EVERIFY, reason);
}
