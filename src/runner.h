/* runner.h - the measured loop: pinning, warm-up, calibration, sample ladder. */
#ifndef PMB_RUNNER_H
#define PMB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "result.h"

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

struct pmb_runner_opts {
	int cpu;               /* pinned core (already pinned by the caller) */
	double min_sample_ns;  /* a sample lasts at least this */
	int samples;           /* per instance */
	bool samples_given;    /* --samples was given: never cut by the budget */
	double warmup_ns;      /* warm-up before calibration ends */
	double budget_ns;      /* a default run cuts samples (not below 10) so
	                          one instance takes about this long */
	int repetitions;       /* whole calls per instance */
	uint64_t seed;         /* 0: each definition's own */
	bool hugepages;
	uint64_t overhead_passes; /* N of the run's harness overhead; non-zero:
	                             measure it again around every cohort */
	struct pmb_topology *topo; /* for buffers; may be NULL */
	void (*progress)(void *ctx, const char *name, size_t done, size_t total);
	void *progress_ctx;
};

/* Measure the harness overhead (the empty loop at N and 2N passes, same
 * meter) into *out.  Returns 0 or -errno. */
int pmb__runner_overhead(const struct pmb_runner_opts *o, const struct pmb_meter *m,
			struct pmb_overhead *out);

/* Run instances[0..n): one call of each benchmark function per repetition;
 * instances of one cohort run interleaved, round by round.  Fills
 * results[0..n*repetitions) (result i*repetitions + r for instance i).
 * Returns 0 or -errno (benchmark failures are in each result's status). */
int pmb__runner_run(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		   struct pmb_instance *inst, size_t n, struct pmb_result *results);


struct pmb_disasm;
struct perf_event_attr;

/* --disasm with a PMU: run instance inst alone again through meter m with
 * the event of attr (plan index ev, also counted by m) sampled (user mode,
 * its instruction pointer) during each sample, and give each instruction
 * of d its share of the samples.  Returns 0 or -errno (the event cannot be
 * sampled here). */
int pmb__runner_sample(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		       const struct pmb_instance *inst, int ev, const struct perf_event_attr *attr,
		       const char *event, struct pmb_disasm *d);

/* The perf backend's meter over opened counter groups.  Returns 0. */
int pmb__runner_perf_meter(struct pmb_meter *m, struct pmb_counters *c);

#endif
