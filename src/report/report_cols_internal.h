/* report_cols_internal.h - the console's main table between its two files: the column descriptors (report_cols.c) and their choice and print (report_table.c). */
#ifndef PMB_REPORT_COLS_INTERNAL_H
#define PMB_REPORT_COLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "report_fmt.h"
#include "model.h"

/* The table being drawn: what every cell writer reads, and the footnotes
 * they add. */
struct pmb__coltab {
	const struct pmb_context *c;
	const struct pmb_result *r;
	size_t n, reps;
	bool sim;
	int cost;      /* the figure a ratio is of: -1 time, else the event (sim) */
	bool below;    /* some cell shows "< X" */
	struct pmb__notes notes;
};

struct pmb__col;
typedef void pmb__cell_fn(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n);

/* One column.  prio: the order in which the default table takes columns
 * while they fit (1 first); 0: only on --wide or when --columns names it.
 * hidden: carries nothing in this run (a counter nobody asked for, at zero
 * everywhere): in JSON and CSV, in the console only on request. */
struct pmb__col {
	char key[64];      /* the --columns word */
	char head[48];     /* the header, with its unit */
	char legend[240];  /* "" none */
	int prio, arg;     /* arg: event or derived index, -1 none */
	bool left, hidden;
	pmb__cell_fn *cell;
};

#define PMB_MAXCOLS PMB_TABLE_MAXCOL

struct pmb__cols {
	struct pmb__col k[PMB_MAXCOLS];
	int n;
};

/* The run's columns, in the order the table prints them, each with its
 * header, legend, priority and cell writer. */
void pmb__cols_build(struct pmb__coltab *m, struct pmb__cols *cs);
/* Why hidden column k carries nothing ("zero or below resolution in every
 * row"); NULL for a column that is not hidden. */
const char *pmb__col_nothing(const struct pmb__coltab *m, const struct pmb__col *k);

#endif
