/* report_fmt.h - the one text-table printer and the console's units, shared by the console report's parts. */
#ifndef PMB_REPORT_FMT_H
#define PMB_REPORT_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"

#define PMB_TABLE_MAXCOL 48

/* An aligned text table: each column as wide as its widest cell or header,
 * two spaces between columns, text columns (left[c]) flush left and the
 * others flush right; a flush-left last column is not padded, so no line
 * ends in spaces.  Cells live in one growing text buffer: a row costs its
 * text, not ncol fixed-size cells, and a cell has no length limit.  Set
 * ncol, head and left before the first row; cells never set print empty. */
struct pmb__table {
	int ncol;
	const char *head[PMB_TABLE_MAXCOL]; /* head[0] NULL: no header, no rule */
	bool left[PMB_TABLE_MAXCOL];
	bool hide[PMB_TABLE_MAXCOL]; /* not printed (kept for its width) */
	/* A first-column cell wider than this (0: none is) prints on a line
	 * of its own, the row's other cells on the next under an empty one:
	 * a long name takes no room from the figures, and is never cut. */
	size_t wrap0;
	size_t nrow, cap;
	size_t *off;  /* nrow * ncol offsets into text; offset 0 is "" */
	char *text;
	size_t len, tcap;
	int err;      /* -ENOMEM once a row or a cell could not be stored */
};

/* Start a row; later pmb__table_set() calls fill it.  Returns 0, or
 * -ENOMEM (kept in t->err: the table then takes no more rows or cells). */
int pmb__table_add_row(struct pmb__table *t);
/* Set cell col of the last row (it may be set again); does nothing
 * without a row, for a column out of range, or after an error. */
void pmb__table_set(struct pmb__table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print the header with a rule of dashes under it (where there is one),
 * then the rows; then free the rows, as pmb__table_free().  Returns t->err
 * from before the free: 0, or -ENOMEM when rows or cells are missing. */
int pmb__table_print(FILE *f, struct pmb__table *t);
/* Each column's width in w[0..ncol): its widest cell or header, in
 * terminal columns (UTF-8 characters, not bytes); first-column cells past
 * wrap0 not counted. */
void pmb__table_widths(const struct pmb__table *t, size_t *w);
/* Hide columns drop[0..ndrop), in that order, while the table is wider
 * than width.  Returns how many it hid. */
int pmb__table_fit(struct pmb__table *t, size_t width, const int *drop, int ndrop);
/* Free the rows and cells, keeping ncol, head and left: t can be reused.
 * Safe on a table that has none. */
void pmb__table_free(struct pmb__table *t);

/* The terminal columns UTF-8 text takes: its characters, not its bytes
 * (the report's "±", "×" and footnote marks are one column each). */
size_t pmb__text_width(const char *s);
/* Write text to f wrapped at width columns, at spaces: the first line
 * after `first` columns the caller wrote (its separator included), the
 * others indented by `indent` spaces.  Ends with a newline. */
void pmb__wrap(FILE *f, const char *text, size_t first, size_t indent, size_t width);

/* Copy text to f, each line wider than width wrapped at spaces, its
 * continuation indented two more than the line.  Table rows (already
 * fitted) pass as they are. */
void pmb__wrap_lines(FILE *f, const char *text, size_t width);

/* Footnotes under a table: each reason once, with its mark ("¹", "²", ...).
 * Reasons past PMB_MAX_NOTES share the last mark's "and others" line. */
#define PMB_MAX_NOTES 24
struct pmb__notes {
	int n;
	char mark[PMB_MAX_NOTES][16];
	char text[PMB_MAX_NOTES][240];
};
/* The mark of the reason printf'ed from fmt, added when it is new. */
const char *pmb__note(struct pmb__notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "¹ reason" per note, wrapped at width. */
void pmb__notes_print(FILE *f, const struct pmb__notes *nt, size_t width);

/* Time in ns with an auto-scaled unit (ps .. s), 3-4 significant digits;
 * "-" where not finite. */
void pmb__fmt_time(char *b, size_t n, double ns);

/* CSV (report_csv.c): a field, quoted only where it holds a separator, a
 * quote or a line break, then ',' or (last) a newline; a number in its
 * shortest exact form, empty where not ok or not finite, then ','. */
void pmb__csv_field(FILE *f, const char *s, bool last);
void pmb__csv_num(FILE *f, double v, bool ok);
/* A count with k/M/G above 10^4; "-" where not finite. */
void pmb__fmt_num(char *b, size_t n, double v);
/* A figure's median, "< resolution", "never ran" or "-"; time or count;
 * " (multiplexed)" after a multiplexed count. */
void pmb__fmt_figure(char *b, size_t n, const struct pmb_figure *f, bool time);
/* A ratio to a reference with its interval, or alone where there is none. */
void pmb__fmt_ratio(char *b, size_t n, double ratio, double lo, double hi);

#endif
