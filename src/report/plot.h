/* plot.h - SVG plots of sweeps and branch studies. */
#ifndef PMB_PLOT_H
#define PMB_PLOT_H

#include <stdio.h>

#include "model.h"

/* Write one SVG document to f: for each family of PMB_TIERS points, cost
 * per item against working-set size (log-log) with the cache boundaries
 * the topology reports; for each branch study pair (branch/K/branchy,
 * branchless, sol), cost per item against its input.  Time per item, or
 * under the sim backend the first simulated event, labelled so.  Returns
 * 0, or -ENODATA when no result is a sweep point or a branch pair. */
int pmb__plot_svg(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);

#endif
