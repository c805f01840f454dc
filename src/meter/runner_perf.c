/* runner_perf.c - the perf meter: the runner reads a sample through
 * counters.c's groups, one group per sample in turn. */
#include <string.h>

#include "meter.h"

static int perf_start(void *ctx, int group)
{
	struct pmb_counters *c = ctx;

	return pmb__group_start(c->group[group]);
}

static int perf_stop(void *ctx, int group, struct pmb_sample *s)
{
	struct pmb_counters *c = ctx;
	struct pmb_count v[PMB_MAX_EVENTS];
	int err = pmb__group_stop(c->group[group]);

	if (err == 0)
		err = pmb__group_read(c->group[group], v);
	if (err)
		return err;
	for (int k = 0; k < c->nmembers[group]; k++) {
		int e = c->member[group][k];

		s->count[e] = v[k];
		s->mask |= 1u << e;
	}
	return 0;
}

int pmb__runner_perf_meter(struct pmb_meter *m, struct pmb_counters *c)
{
	memset(m, 0, sizeof(*m));
	m->ctx = c;
	m->ngroups = c->ngroups;
	if (c->ngroups > 0) {
		m->start = perf_start;
		m->stop = perf_stop;
	}
	/* A group read by read() has no marks: its system calls stay outside
	 * the timed window. */
	for (int g = 0; g < c->ngroups; g++) {
		m->mark[g][0] = pmb__group_marker(c->group[g], 0);
		m->mark[g][1] = pmb__group_marker(c->group[g], 1);
		m->mark_group[g] = c->group[g];
	}
	return 0;
}
