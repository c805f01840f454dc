/* report_cols.h - the console's main table as a list of column descriptors, chosen to fit the terminal. */
#ifndef PMB_REPORT_COLS_H
#define PMB_REPORT_COLS_H

#include <stdio.h>

#include "model.h"

/* The main table: the columns chosen by what was measured and by
 * c->view (width, --columns, --wide), then under it what was left out,
 * the legend of every header shown and the footnote of every blank or
 * n/a cell.  Returns 0, or -ENOMEM where the table lost rows. */
int pmb__report_main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);

/* Check --columns=LIST against the column keys and the plan's events and
 * derived figures, before anything is measured.  Returns 0, or -EINVAL
 * with a one-line message in err naming the bad word and what is valid. */
int pmb__columns_check(const char *list, const struct pmb_event_plan *plan, char *err, size_t size);

#endif
