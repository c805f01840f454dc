/* analysis.h - samples to per-item figures: overhead, fits, baselines, warnings. */
#ifndef PMB_ANALYSIS_H
#define PMB_ANALYSIS_H

#include <stddef.h>

#include "result.h"

/* Fit the harness overhead from its samples (runner stores them). */
/* The one per-item formula, for analysis, the JSON writer and compare: a
 * sample's value less the harness overhead (per sample, and per pass times
 * its passes), divided by its items. */
static inline double pmb_per_item(double v, double ov_sample, double ov_pass, double passes,
				  double items_per_pass)
{
	return (v - ov_sample - ov_pass * passes) / (passes * items_per_pass);
}

int pmb_analysis_overhead(struct pmb_context *ctx, const struct pmb_sample *s,
			  size_t n);
/* The same fit into *o, for every event any sample read. */
int pmb_overhead_fit(const struct pmb_sample *s, size_t n, struct pmb_overhead *o);

/* Per-item figures of every result, then baselines and references, then
 * the warnings a user must see (into ctx).  Returns 0 or -ENOMEM. */
int pmb_analyze(struct pmb_context *ctx, struct pmb_result *r, size_t n,
		size_t repetitions);

#endif
