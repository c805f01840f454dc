/* counters.h - perf_event groups: open, enable around a sample, read, scale. */
#ifndef PMB_COUNTERS_H
#define PMB_COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* One counter read: value and the times it was enabled and running. */
struct pmb_count {
	uint64_t value, enabled, running;
};

/* Scale a read to the full enabled time.  Returns -1 if it never ran (out
 * is set to 0 and must not be reported as a value), 1 if scaled, 0 exact. */
int pmb_count_scale(const struct pmb_count *c, double *out);

/* One perf_event group: a leader and members, opened disabled. */
struct pmb_group;

/* Open attrs[0..n) as one group on the calling thread (pid 0, cpu -1),
 * with read_format GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.  On
 * failure returns -errno and sets *failed to the index of the event that
 * failed to open. */
int pmb_group_open(struct pmb_group **g, const struct perf_event_attr *attrs,
		   int n, int *failed);
/* Reset and enable the whole group (PERF_IOC_FLAG_GROUP). */
int pmb_group_start(struct pmb_group *g);
/* Disable the whole group. */
int pmb_group_stop(struct pmb_group *g);
/* One read() of the whole group into out[0..n), in the order opened. */
int pmb_group_read(struct pmb_group *g, struct pmb_count *out);
/* Number of events in the group. */
int pmb_group_size(const struct pmb_group *g);
/* Close; NULL does nothing. */
void pmb_group_close(struct pmb_group *g);

/* Events split over groups.  Event e of the plan is read in group
 * member_group[e] (-1: could not be opened at all). */
#define PMB_MAX_EVENTS 16
#define PMB_MAX_GROUPS 8

struct pmb_counters {
	int nevents;
	int ngroups;
	struct pmb_group *group[PMB_MAX_GROUPS];
	int nmembers[PMB_MAX_GROUPS];
	int member[PMB_MAX_GROUPS][PMB_MAX_EVENTS]; /* plan event indices */
	int open_errno[PMB_MAX_EVENTS]; /* errno of an event that would not open */
};

/* Open attrs[0..n) (a resolved plan) in as few groups as will count together:
 * all in one group if it opens and every member runs; else split, keeping
 * the anchors (anchor[e] true: cycles, instructions) in every group.  An event
 * that opens in no group gets its errno in open_errno[] and
 * member_group = -1; the call still succeeds if any event opened.  Returns 0
 * or -errno of the first failure when nothing could be opened. */
int pmb_counters_open(struct pmb_counters *c, const struct perf_event_attr *attrs,
		      const bool *anchor, int n);
/* Close all groups. */
void pmb_counters_close(struct pmb_counters *c);

#endif
