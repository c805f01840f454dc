/* report_fmt.h - the console report's table and units, shared by report_text.c and report_study.c. */
#ifndef PMB_REPORT_FMT_H
#define PMB_REPORT_FMT_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"

#define MAXCOL 24

/* An aligned text table: cells of up to 39 characters, columns sized to
 * their widest cell. */
struct table {
	int ncol;
	const char *head[MAXCOL];
	bool left[MAXCOL];
	int width[MAXCOL];
	char (*cell)[MAXCOL][40];
	size_t nrow, cap;
};

void pmb__t_add_row(struct table *t);
void pmb__t_set(struct table *t, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Print with a rule under the header, then free the cells. */
void pmb__t_print(FILE *f, struct table *t);

/* Time in ns with an auto-scaled unit (ps .. s), 3-4 significant digits. */
void pmb__fmt_time(char *b, size_t n, double ns);
/* A count with k/M/G above 10^4. */
void pmb__fmt_num(char *b, size_t n, double v);
/* A figure's median, "< resolution", "never ran" or "-"; time or count. */
void pmb__fmt_figure(char *b, size_t n, const struct pmb_figure *f, bool time);
/* A ratio with its interval, or alone where there is none. */
void pmb__fmt_ratio(char *b, size_t n, double ratio, double lo, double hi);

/* The studies after the main table (report_study.c). */
void pmb__report_sweeps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);
void pmb__report_branch_studies(FILE *f, const struct pmb_context *c, const struct pmb_result *r,
				size_t n);

#endif
