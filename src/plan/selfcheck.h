/* selfcheck.h - --self-check's plan: calibration kernels with known answers. */
#ifndef PMB_SELFCHECK_H
#define PMB_SELFCHECK_H

#include <stddef.h>

#include "model.h"

/* The calibration kernels as benchmark instances, each with its known
 * answer (pmb_instance.known), for the run's own stages to measure and
 * analyse (each its own cohort, no links): *inst malloc'ed, *n of them.
 * Returns 0 or -ENOMEM. */
int pmb__selfcheck_plan(struct pmb_instance **inst, size_t *n);

#endif
