/* counters.h - perf_event groups: open, read around each sample (from user space or by read()), scale; how plans become groups. */
#ifndef PMB_COUNTERS_H
#define PMB_COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h" /* struct pmb_count, PMB_MAX_EVENTS */

/* One perf_event group: a leader and members, opened disabled. */
struct pmb_group;

/* How a group is read around each sample. */
enum pmb_read_mode {
	PMB_READ_AUTO,    /* from user space where the kernel allows it, else read() */
	PMB_READ_SELF,    /* from user space; an error where the kernel does not allow it */
	PMB_READ_SYSCALL, /* read(), with the reset/enable/disable ioctls */
};

/* Open attrs[0..n) as one group on the calling thread (pid 0, cpu -1),
 * with read_format GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, read by
 * read() until pmb__group_self().  On failure returns -errno and sets
 * *failed to the index of the event that failed to open. */
int pmb__group_open(struct pmb_group **g, const struct perf_event_attr *attrs,
		   int n, int *failed);

/* One sample, in this order:
 *   pmb__group_start()    before the clock starts
 *   pmb__group_mark(g, 0) right after it starts
 *   ... the measured passes ...
 *   pmb__group_mark(g, 1) right before the clock stops
 *   pmb__group_stop()     after it stops
 *   pmb__group_read()
 * read(): start resets and enables the group, stop disables it, read reads
 * it; the marks do nothing.  Self-read: the marks read the counters from
 * user space (the kernel's perf_event_mmap_page protocol: no system call),
 * the group stays enabled (start and stop enable and disable it only where
 * several groups take turns), and read gives the difference. */
/* Reset and enable the whole group (self-read: enable it if it is not). */
int pmb__group_start(struct pmb_group *g);
/* Self-read: the counts and times at the beginning (0) or end (1) of the
 * sample.  Where the group is off its counters at that moment
 * (multiplexed), that snapshot is taken by read() instead. */
void pmb__group_mark(struct pmb_group *g, int which);
/* The function pmb__group_mark(g, which) calls, for a caller that calls it
 * directly as f(g) (the runner: nothing between the counters and the
 * benchmark's loop that need not be there); NULL where the group is read by
 * read(). */
typedef void (*pmb_group_marker_fn)(struct pmb_group *g);
pmb_group_marker_fn pmb__group_marker(const struct pmb_group *g, int which);
/* Disable the whole group (self-read: only where groups take turns). */
int pmb__group_stop(struct pmb_group *g);
/* The sample into out[0..n), in the order opened: its counts, and the
 * times the group was enabled and running during it (a sample's own share,
 * so that a sample the PMU never ran reads running 0, not the run's
 * average).  read(): one read() of the whole group, counts since the last
 * start, times since the previous read.  Self-read: the difference of the
 * two marks.  Returns 0 or -errno. */
int pmb__group_read(struct pmb_group *g, struct pmb_count *out);
/* Read the group from user space from now on, where the kernel allows it
 * (x86: rdpmc with cap_user_rdpmc; arm64: the PMU's rdpmc attribute bit,
 * which reopens the group, and kernel.perf_user_access 1).  Checks that
 * every member is on a counter user space may read, that a read does not
 * fault and that read() agrees with it.  Returns 0, or -errno with why[]
 * saying what the kernel does not allow (the group stays on read()). */
int pmb__group_self(struct pmb_group **g, char *why, size_t n);
/* Self-read: keep the group enabled from sample to sample (the default: no
 * system call per sample), or enable it for its own samples only (groups
 * that take turns, which would multiplex each other); disables it now if
 * it is enabled and not to be kept. */
void pmb__group_keep(struct pmb_group *g, bool keep);
/* Self-read: read nread pages per snapshot (nread >= the group's size; the
 * extra ones are the leader's, read and not used), so that groups of
 * different sizes cost the same between their counters: the harness
 * overhead of an event read in several groups (cycles, instructions) is
 * one figure for all of them. */
void pmb__group_pad(struct pmb_group *g, int nread);
/* Whether the group is read from user space. */
bool pmb__group_is_self(const struct pmb_group *g);
/* Self-read: page reads retried because the kernel moved the page
 * mid-read, and snapshots taken by read() instead. */
void pmb__group_read_stats(const struct pmb_group *g, uint64_t *retries, uint64_t *fallbacks);
/* Member i's mapped page (for tests: what the kernel wrote), NULL on read(). */
const volatile struct perf_event_mmap_page *pmb__group_page(const struct pmb_group *g, int i);
/* Number of events in the group. */
int pmb__group_size(const struct pmb_group *g);
/* Close; NULL does nothing. */
void pmb__group_close(struct pmb_group *g);

/* Events split over groups.  Event e of the plan is read in group
 * member_group[e] (-1: could not be opened at all). */

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
	bool pmu_works;          /* the PMU counts (generic instructions open),
	                            though none of the events asked may */
	bool cycles;             /* an event that means core cycles counts */
	bool software_added;     /* no PMU: the software fallback was added */
	bool denied;             /* hardware events refused by permission
	                            (perf_event_paranoid): a PMU there may be,
	                            not one this user may use */
	int event_group[PMB_MAX_EVENTS];  /* group of each plan event; -1 none */
	char why[PMB_MAX_EVENTS][192];    /* "" counted, else why not */
	char fallback[160];      /* "" or what the run does instead */
	char warning[4][640];    /* each said once, most important first */
	int nwarnings;
	char read_path[8];       /* "self", "syscall", "mixed"; "" no group */
	char read_why[PMB_READ_WHY]; /* "" or why a group is read by read() */
	int read_err;            /* --read=self: -errno where a group cannot */
};

/* Facts the policy's messages need (from the environment probe), and how
 * to read the counters. */
struct pmb_counters_env {
	int paranoid;            /* perf_event_paranoid; -100 unknown */
	enum pmb_read_mode read; /* --read */
	double ghz;              /* frequency estimate for est. cycles; 0 none */
	bool sim_hint;           /* suggest --backend=sim (valgrind present) */
	const char *virt;        /* the hypervisor or emulator ("QEMU"); NULL
	                            or "" none: then an event the kernel refuses
	                            is the virtual PMU's gap, not the CPU's */
	const char *kernel_pmu;  /* what the kernel exposes: "the kernel's cpu
	                            PMU: cpu" or "the kernel exposes no cpu PMU
	                            (...)" (plan's pmb__events_kernel_pmu); NULL
	                            not read */
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
int pmb__counters_open_plan(struct pmb_counters *c, struct pmb_event_plan *plan,
			   const struct pmb_event_plan *software, const struct pmb_counters_env *env,
			   struct pmb_counters_outcome *out);

/* Open attrs[0..n) (a resolved plan) in as few groups as will count together:
 * all in one group if it opens and every member runs; else split, keeping
 * the anchors (anchor[e] true: cycles, instructions) in every group.  An event
 * that opens in no group gets its errno in open_errno[] and
 * member_group = -1; the call still succeeds if any event opened.  Returns 0
 * or -errno of the first failure when nothing could be opened. */
int pmb__counters_open(struct pmb_counters *c, const struct perf_event_attr *attrs,
		      const bool *anchor, int n);
/* The same, leaving out the events with skip[e] true (skip may be NULL):
 * they get member_group -1 and open_errno 0. */
int pmb__counters_open_some(struct pmb_counters *c, const struct perf_event_attr *attrs,
			   const bool *anchor, const bool *skip, int n);
/* Read each group as `mode` says: PMB_READ_SYSCALL leaves every group on
 * read(); AUTO and SELF move each group the kernel allows to self-read
 * (pmb__group_self), and why[] gets the first reason one stays on read().
 * Returns 0, or under SELF -errno where a group cannot self-read. */
int pmb__counters_read_path(struct pmb_counters *c, enum pmb_read_mode mode, char *why, size_t n);
/* "self" (every group from user space), "syscall" (every group by read()),
 * "mixed", or NULL without groups. */
const char *pmb__counters_path(const struct pmb_counters *c);
/* Close all groups. */
void pmb__counters_close(struct pmb_counters *c);

/* ---- sampling (counters_sample.c): --disasm with a PMU ------------------- */

/* One event of attr, user mode, sampled every period occurrences with the
 * instruction pointer (PERF_SAMPLE_IP), disabled until enabled, its ring
 * buffer mapped.  Returns 0 or -errno. */
struct pmb_sampler;
int pmb__sampler_open(struct pmb_sampler **s, const struct perf_event_attr *attr, uint64_t period);
int pmb__sampler_enable(struct pmb_sampler *s, bool on);
/* Hand each sample's instruction pointer to fn, oldest first, and free
 * the ring; records the kernel lost are added to *lost. */
int pmb__sampler_drain(struct pmb_sampler *s, void (*fn)(void *arg, uint64_t ip), void *arg,
		       uint64_t *lost);
/* Close; NULL does nothing. */
void pmb__sampler_close(struct pmb_sampler *s);

#endif
