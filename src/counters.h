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
/* One read() of the whole group into out[0..n), in the order opened: the
 * counts since the last start, and the times enabled and running since the
 * previous read (the kernel's totals, differenced: a sample's own share, so
 * that a sample the PMU never ran reads running 0, not the run's average). */
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

/* The counters a plan asked for, opened by the fallback policy below. */
struct pmb_event_plan;

/* What the machine gave, event by event, and what the run does about what
 * is missing; the caller reports it (warnings are not printed here). */
struct pmb_counters_outcome {
	bool hw_asked;           /* the plan had hardware events */
	bool hw_counts;          /* at least one of them counts */
	bool cycles;             /* an event that means core cycles counts */
	bool software_added;     /* no PMU: the software fallback was added */
	int event_group[PMB_MAX_EVENTS];  /* group of each plan event; -1 none */
	char why[PMB_MAX_EVENTS][192];    /* "" counted, else why not */
	char fallback[160];      /* "" or what the run does instead */
	char warning[4][640];    /* each said once, most important first */
	int nwarnings;
};

/* Facts the policy's messages need (from the environment probe). */
struct pmb_counters_env {
	int paranoid;            /* perf_event_paranoid; -100 unknown */
	double ghz;              /* frequency estimate for est. cycles; 0 none */
	bool sim_hint;           /* suggest --backend=sim (valgrind present) */
};

/* Open the plan's events: every event the PMU counts, in as few groups as
 * fit; an event the plan marks unsupported (ev->unsupported) is not opened.
 * Where no hardware event opens at all, the events of `software` (resolved
 * by the caller: task-clock, page-faults, ...) are appended to the plan so
 * that the run still counts something real.  Each event that does not count
 * gets its reason in out->why[], and the warnings say, once each: no PMU
 * (only when no hardware event opened), which events this PMU lacks (by
 * name), which the kernel refused by permission (naming
 * perf_event_paranoid and the command that changes it).  Returns 0 when
 * any event opened, else -errno of the first failure (the run still goes
 * on with time only). */
int pmb_counters_open_plan(struct pmb_counters *c, struct pmb_event_plan *plan,
			   const struct pmb_event_plan *software, const struct pmb_counters_env *env,
			   struct pmb_counters_outcome *out);

/* Open attrs[0..n) (a resolved plan) in as few groups as will count together:
 * all in one group if it opens and every member runs; else split, keeping
 * the anchors (anchor[e] true: cycles, instructions) in every group.  An event
 * that opens in no group gets its errno in open_errno[] and
 * member_group = -1; the call still succeeds if any event opened.  Returns 0
 * or -errno of the first failure when nothing could be opened. */
int pmb_counters_open(struct pmb_counters *c, const struct perf_event_attr *attrs,
		      const bool *anchor, int n);
/* The same, leaving out the events with skip[e] true (skip may be NULL):
 * they get member_group -1 and open_errno 0. */
int pmb_counters_open_some(struct pmb_counters *c, const struct perf_event_attr *attrs,
			   const bool *anchor, const bool *skip, int n);
/* Close all groups. */
void pmb_counters_close(struct pmb_counters *c);

#endif
