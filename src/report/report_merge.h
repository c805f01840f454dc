/* report_merge.h - `pmubench merge` drawn: console table, CSV and JSON of many hosts' groups. */
#ifndef PMB_REPORT_MERGE_H
#define PMB_REPORT_MERGE_H

#include <stdio.h>

#include "model.h"
#include "report_out.h"

/* Write m to f as format: the console's groups, missing files, gaps and one
 * column per group; CSV one line per benchmark, figure and group (the
 * missing files as lines of state "missing"); JSON the document the man
 * page describes (merge_schema 1).  Returns 0, or -EIO where a write
 * failed. */
int pmb__report_merge(FILE *f, enum pmb_format format, const struct pmb_merged *m);

/* The SVG of m's sweeps (plot_merge.c): one panel per sweep family and
 * figure (ns_per_item, cycles_per_item) that a group has, each group a
 * series of its median per working set with its hosts' spread and the
 * envelope of their intervals as error bars, its hosts' cache sizes
 * (their topology's) as dashed lines in its colour, a legend naming it
 * with its host count.  Returns 0, -ENODATA (no sweep in m), -ENOMEM or
 * -EIO. */
int pmb__plot_merge_svg(FILE *f, const struct pmb_merged *m);

/* "counted", "estimated", "simulated". */
const char *pmb__counting_name(enum pmb_host_counting c);

#endif
