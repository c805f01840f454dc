/* count.h - one counter's read, and how many events and groups a run has: the model's counts. */
#ifndef PMB_COUNT_H
#define PMB_COUNT_H

#include <stdint.h>

/* One counter read: value and the times it was enabled and running. */
struct pmb_count {
	uint64_t value, enabled, running;
};

/* Scale a read to the full enabled time.  Returns -1 if it never ran (out
 * is set to 0 and must not be reported as a value), 1 if scaled, 0 exact. */
int pmb__count_scale(const struct pmb_count *c, double *out);

/* Events split over groups (meter's counters.h): event e of the plan is
 * read in one of at most PMB_MAX_GROUPS groups. */
#define PMB_MAX_EVENTS 16
#define PMB_MAX_GROUPS 8
#define PMB_READ_WHY 224

#endif
