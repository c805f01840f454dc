/* results_host.h - one host's result file summarised for `pmubench merge`: its machine, its counting, each benchmark's per-item figures with intervals. */
#ifndef PMB_RESULTS_HOST_H
#define PMB_RESULTS_HOST_H

#include <stddef.h>

#include "model.h"

/* Read the pmubench results file at path into *out.  Returns 0, or with
 * one line in err: pmb__results_load()'s errors (cannot read, not a
 * regular file, malformed or truncated JSON with its line and column);
 * PMB_EBADJSON for a file that is not pmubench's (no context.pmubench_version
 * or "benchmarks") or a run a signal stopped (its reason, as a job killed
 * at its time limit leaves it); -ENOMEM.  On error *out holds nothing to
 * free. */
int pmb__results_host_read(const char *path, struct pmb_host_run *out, char *err, size_t errlen);

/* Free what pmb__results_host_read() made; NULL does nothing. */
void pmb__host_run_free(struct pmb_host_run *h);

#endif
