/* plot_svg_internal.h - what plot_svg.c (the panels) and plot_svg_draw.c (the primitives) share. */
#ifndef PMB_PLOT_SVG_INTERNAL_H
#define PMB_PLOT_SVG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A value range mapped onto pixels p0 (at lo) .. p1 (at hi). */
struct axis {
	double lo, hi;
	bool log;
	double p0, p1;
};

/* Text widths are guessed (no font metrics here): px per character of a
 * DejaVu-like sans at 11 and 12 px, on the wide side. */
#define CW11 6.8
#define CW12 7.5

/* Pixel of value v on axis a (log or linear). */
double pmb__svg_ax_map(const struct axis *a, double v);
/* Text as XML character data: markup characters escaped, control
 * characters (not allowed in XML 1.0) dropped. */
void pmb__svg_esc(FILE *f, const char *s);
/* One <text>; attrs are the program's own, the text is escaped. */
void pmb__svg_text(FILE *f, double x, double y, const char *attrs, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void pmb__svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *attrs);
/* A marker; its tooltip (a <title> child, tip NULL: none) names the
 * benchmark and value.  wide: its interval is wider than PMB_NOISY_ERROR,
 * and the marker hollow (class "wide"). */
void pmb__svg_point(FILE *f, double x, double y, const char *colour, bool wide, const char *tip);
/* A polyline through (x[k], y[k]), titled name. */
void pmb__svg_polyline(FILE *f, const double *x, const double *y, size_t m, const char *style,
		       const char *name);
/* A legend entry at x (a marker, or a line sample with style); returns
 * where the next one goes. */
double pmb__svg_legend(FILE *f, double x, double y, const char *colour, const char *style,
		       const char *label);
/* 1-2-5 numbers: the largest <= v (dir < 0) or the smallest >= v. */
double pmb__svg_nice_number(double v, int dir);
/* Tick values of axis a in units of (its unit x scale) into t[0..max):
 * returns the count (plot_svg_draw.c says how they are chosen). */
int pmb__svg_ticks(const struct axis *a, double scale, bool dense, double *t, int max);
/* The working-set axis ax along y (the plot area's bottom edge): a tick
 * per power of two, labelled (16KiB, 1MiB) every 1, 2, 4... octaves so
 * that at most about ten labels show. */
void pmb__svg_bytes_ticks(FILE *f, const struct axis *ax, double y);
/* A tick's label: 1M, 20k, 0.5. */
void pmb__svg_fmt_tick(char *b, size_t n, double v);

#endif
