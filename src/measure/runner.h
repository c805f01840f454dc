/* runner.h - the measured loop: pinning, warm-up, calibration, sample ladder. */
#ifndef PMB_RUNNER_H
#define PMB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "meter.h"
#include "model.h"

/* Samples a benchmark takes from a deterministic meter (the simulator)
 * where --samples is not given: its counts do not vary, two tell the
 * fixed cost per sample from the cost per pass. */
#define PMB_DETERMINISTIC_SAMPLES 2

struct pmb_runner_opts {
	int cpu;               /* pinned core (already pinned by the caller) */
	double min_sample_ns;  /* a sample lasts at least this */
	int samples;           /* per instance */
	bool samples_given;    /* --samples was given: never cut by the budget */
	double warmup_ns;      /* warm-up before calibration ends */
	double budget_ns;      /* a default run stops sampling (not below 10
	                          samples) before one instance's own samples
	                          pass this */
	double precision;      /* a default run stops sampling once the median
	                          per-pass time's interval is within +-this
	                          (relative); 0: at the budget.  Neither
	                          budget nor precision: samples samples */
	int repetitions;       /* whole calls per instance */
	uint64_t seed;         /* 0: each definition's own */
	bool hugepages;
	uint64_t overhead_passes; /* N of the run's harness overhead; non-zero:
	                             measure it again around every cohort */
	struct pmb_topology *topo; /* for buffers; may be NULL */
	void (*progress)(void *ctx, const char *name, size_t done, size_t total);
	void *progress_ctx;
};

/* A 2 MiB-aligned buffer, THP-backed by madvise(MADV_HUGEPAGE) if huge, and
 * touched so it is resident.  NULL on failure. */
void *pmb__buffer_map(size_t bytes, bool huge);
/* Frees a buffer of pmb__buffer_map: the largest freed is kept (one), and
 * the next buffer of its page size is made from it, grown if smaller. */
void pmb__buffer_unmap(void *p, size_t bytes);
/* Unmaps the buffer kept, if any: at the end of a run. */
void pmb__buffer_trim(void);
/* Share (0..1) of [p, p+bytes) backed by huge pages, from
 * /proc/self/smaps (AnonHugePages); -1 if it cannot be read. */
double pmb__buffer_huge_fraction(const void *p, size_t bytes);

/* Fit the harness overhead (time, and every event any sample read) from
 * the empty loop's samples into *o.  Returns 0 or -ENOMEM. */
int pmb__overhead_fit(const struct pmb_sample *s, size_t n, struct pmb_overhead *o);
/* Merge b, the overhead measured at another time, into a: per figure the
 * smaller cost and the larger noise (a's N and event set are kept). */
void pmb__overhead_merge(struct pmb_overhead *a, const struct pmb_overhead *b);

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

/* --disasm under the simulator: run instance inst alone again through the
 * sim meter m, read the per-instruction costs of its samples' dumps and
 * give each instruction of d its counts per item.  Returns 0 or -errno
 * (pmb__sim_error() says why). */
int pmb__sim_annotate(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		      const struct pmb_instance *inst, struct pmb_disasm *d);

#endif
