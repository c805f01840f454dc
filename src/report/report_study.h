/* report_study.h - the console report's studies after the main table: sweeps (report_study.c), branch studies (report_branch.c). */
#ifndef PMB_REPORT_STUDY_H
#define PMB_REPORT_STUDY_H

#include <stdio.h>

#include "model.h"

/* Per family of PMB_TIERS points: median per tier, where the data step,
 * and whether that matches the cache boundaries hwloc reports (assumed
 * ones where it reports none). */
void pmb__report_sweeps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);
/* The findings of the sweeps, one line each (the console's opening,
 * report_text.c): the median per tier of what pmb__report_sweeps prints,
 * and per cache boundary whether the data step there. */
void pmb__sweep_findings(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);
/* The findings of the branch studies (their figures, c->branches), one
 * line each: the verdict pmb__report_branch_studies opens each study with,
 * and the misprediction penalty it ends with. */
void pmb__branch_findings(FILE *f, const struct pmb_context *c);
/* Per branch study: branchy, branchless and speed of light per input, the
 * ratio with its interval and the verdict.  Returns 0, or -ENOMEM where a
 * table lost rows. */
int pmb__report_branch_studies(FILE *f, const struct pmb_context *c, const struct pmb_result *r,
			       size_t n);

#endif
