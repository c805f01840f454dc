/* analysis_merge.h - many hosts' summaries to one merge: host groups, each benchmark's figures per group, ratios to a baseline group, the gaps in words. */
#ifndef PMB_ANALYSIS_MERGE_H
#define PMB_ANALYSIS_MERGE_H

#include <stddef.h>

#include "model.h"

/* Group m->hosts[0..nhosts) by CPU model, PMU, backend and counting
 * (counted, estimated, simulated: never one group), then fill m's rows
 * (one per benchmark and figure, every group a cell: its value, interval,
 * spread over hosts and ratio to the baseline group) and its gaps
 * (versions, benchmark sets, figures, hosts short of their group's
 * benchmarks).  baseline names the baseline group by its label ("A"), a
 * host name in it, or its CPU model; NULL: the first group.  Pure: no I/O.
 * Returns 0; -EINVAL with one line in err for a baseline that names no
 * group (the groups listed) or no host at all; -ENOMEM. */
int pmb__merge_analyse(struct pmb_merged *m, const char *baseline, char *err, size_t errlen);

/* Free the groups, rows and gaps pmb__merge_analyse() made (not the hosts
 * and missing files, the reader's); NULL does nothing. */
void pmb__merge_analysis_free(struct pmb_merged *m);

#endif
