/* selfcheck.h - calibration kernels with known answers: does this machine tell the truth? */
#ifndef PMB_SELFCHECK_H
#define PMB_SELFCHECK_H

#include <stdio.h>

#include "model.h"

/* The calibration kernels as benchmark instances, for the run's own
 * stages to measure and analyse (each its own cohort, no links): *inst
 * malloc'ed, *n of them.  Returns 0 or -ENOMEM. */
int pmb__selfcheck_plan(struct pmb_instance **inst, size_t *n);

/* The verdicts on analysed results res[0..n) of those instances (in their
 * order): one line per check (expected, measured, verdict) to out, and
 * what the failures mean.  Returns 0 when every check that could run
 * passed, 1 otherwise. */
int pmb__selfcheck_report(const struct pmb_context *ctx, const struct pmb_result *res, size_t n,
			 FILE *out);

#endif
