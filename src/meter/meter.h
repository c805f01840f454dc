/* meter.h - the meter layer's public header: perf_event counter groups, self-read, the valgrind backend, and the meter both give the runner. */
#ifndef PMB_METER_H
#define PMB_METER_H

#include "counters.h"
#include "selfread.h"
#include "sim.h"

/* What reads the counters around a sample.  The perf backend uses
 * counters.c; the sim backend (sim.c) supplies its own.  start() is called
 * right before the clock starts, stop() right after it stops.  Where a
 * group is read from user space, mark[group][0](mark_group[group]) runs
 * right after the clock starts and mark[group][1] right before it stops:
 * reads cheap enough to sit inside the timed window, called directly so
 * that between the counters and the loop there is as little as can be
 * (it is counted as the harness's own). */
struct pmb_meter {
	void *ctx;
	int ngroups;   /* groups measured in turn, sample by sample; 0 none */
	int (*start)(void *ctx, int group);
	int (*stop)(void *ctx, int group, struct pmb_sample *s);
	void (*mark[PMB_MAX_GROUPS][2])(struct pmb_group *g); /* NULL: none */
	struct pmb_group *mark_group[PMB_MAX_GROUPS];
	bool deterministic; /* sim: counts do not depend on timing */
};

/* The perf backend's meter over opened counter groups.  Returns 0. */
int pmb__runner_perf_meter(struct pmb_meter *m, struct pmb_counters *c);

#endif
