/* analysis.h - samples to per-item figures: overhead, fits, baselines, warnings. */
#ifndef PMB_ANALYSIS_H
#define PMB_ANALYSIS_H

#include <stddef.h>

#include "result.h"

/* The one per-item formula, for analysis, the JSON writer and compare: a
 * sample's value less the harness overhead (per sample, and per pass times
 * its passes), divided by its items. */
static inline double pmb_per_item(double v, double ov_sample, double ov_pass, double passes,
				  double items_per_pass)
{
	return (v - ov_sample - ov_pass * passes) / (passes * items_per_pass);
}

/* Fit the harness overhead (time, and every event any sample read) from
 * the empty loop's samples into *o.  Returns 0 or -ENOMEM. */
int pmb__overhead_fit(const struct pmb_sample *s, size_t n, struct pmb_overhead *o);
/* Merge b, the overhead measured at another time, into a: per figure the
 * smaller cost and the larger noise (a's N and event set are kept). */
void pmb__overhead_merge(struct pmb_overhead *a, const struct pmb_overhead *b);

/* Per-item figures of every result, then baselines and references, then
 * the warnings a user must see (into ctx).  Returns 0 or -ENOMEM. */
int pmb__analyze(struct pmb_context *ctx, struct pmb_result *r, size_t n,
		size_t repetitions);

/* For analysis.c (in analysis_warn.c): the warnings res[0..n)'s figures
 * call for, into ctx, one per kind, naming up to four benchmarks each. */
void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n);

/* For analysis.c (in analysis_learn.c): per result, whether the cost per
 * pass falls along the ladder of pass counts (an input being learned) and
 * whether rungs or repetitions fall in separate modes (marked multimodal on
 * the cost figure: time, or instructions under simulation). */
void pmb__analysis_learn(const struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t reps);

#endif
