/* selfcheck.h - calibration kernels with known answers: does this machine tell the truth? */
#ifndef PMB_SELFCHECK_H
#define PMB_SELFCHECK_H

#include <stdio.h>

#include "result.h"
#include "runner.h"

/* Run the calibration kernels with the run's meter (overhead already in
 * ctx), print one line per check (expected, measured, verdict) to out.
 * Returns 0 when every check that could run passed, 1 otherwise. */
int pmb_selfcheck_run(struct pmb_context *ctx, const struct pmb_runner_opts *o,
		      const struct pmb_meter *m, FILE *out);

#endif
