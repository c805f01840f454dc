/* plot_svg_draw.c - the SVG plots' drawing primitives: axes mapped to pixels, escaped text, lines, markers, legend entries, ticks. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plot_svg_internal.h"
#include "base.h"

double pmb__svg_ax_map(const struct axis *a, double v)
{
	double t = a->log ? log(v / a->lo) / log(a->hi / a->lo) : (v - a->lo) / (a->hi - a->lo);

	return a->p0 + t * (a->p1 - a->p0);
}

/* Text as XML character data: markup characters escaped, control
 * characters (not allowed in XML 1.0) dropped. */
void pmb__svg_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

/* One <text>; attrs are the program's own, the text is escaped. */
void __attribute__((format(printf, 5, 6)))
pmb__svg_text(FILE *f, double x, double y, const char *attrs, const char *fmt, ...)
{
	char b[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	pmb__svg_esc(f, b);
	fputs("</text>\n", f);
}

void pmb__svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *attrs)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1, x2, y2, attrs);
}


/* A marker; its tooltip (a <title> child) names the benchmark and value.
 * wide: its interval is wider than PMB_NOISY_ERROR, and the marker hollow
 * (class "wide"). */
void pmb__svg_point(FILE *f, double x, double y, const char *colour, bool wide, const char *tip)
{
	if (wide)
		fprintf(f, "<circle class=\"wide\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"%s\" "
			"stroke-width=\"2\"%s", x, y, colour, tip ? "><title>" : "/>\n");
	else
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#222\" "
			"stroke-width=\"0.6\"%s", x, y, colour, tip ? "><title>" : "/>\n");
	if (!tip)
		return;
	pmb__svg_esc(f, tip);
	fputs("</title></circle>\n", f);
}


void pmb__svg_polyline(FILE *f, const double *x, const double *y, size_t m, const char *style,
		     const char *name)
{
	if (!m)
		return;
	fprintf(f, "<polyline fill=\"none\" %s points=\"", style);
	for (size_t k = 0; k < m; k++)
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", x[k], y[k]);
	fputs("\"><title>", f);
	pmb__svg_esc(f, name);
	fputs("</title></polyline>\n", f);
}

/* A legend entry at x (a marker, or a line sample with style); returns
 * where the next one goes. */
double pmb__svg_legend(FILE *f, double x, double y, const char *colour, const char *style,
		     const char *label)
{
	char a[128];

	if (style) {
		snprintf(a, sizeof(a), "stroke=\"%s\"%s", colour, style);
		pmb__svg_line(f, x, y - 4, x + 22, y - 4, a);
		x += 28;
	} else {
		pmb__svg_point(f, x + 4, y - 4, colour, false, NULL);
		x += 12;
	}
	pmb__svg_text(f, x, y, "font-size=\"11\"", "%s", label);
	return x + CW11 * (double)strlen(label) + 14;
}


/* 1-2-5 numbers: the largest <= v (dir < 0) or the smallest >= v. */
double pmb__svg_nice_number(double v, int dir)
{
	static const double m[] = { 1, 2, 5, 10 };
	double e = pow(10, floor(log10(v))), best = m[0] * e;

	for (int k = 0; k < 4; k++) {
		if (dir < 0 && m[k] * e <= v * (1 + 1e-9))
			best = m[k] * e;
		if (dir > 0 && m[k] * e >= v * (1 - 1e-9))
			return m[k] * e;
	}
	return best;
}

/* Tick values of axis a in units of (its unit x scale) into t: on a log
 * axis the densest of 1-2-3-5 (dense only), 1-2-5 or 1 per decade giving
 * at most 9 (7 when dense); on a linear one multiples of a 1-2-5 step.
 * Returns the count. */
int pmb__svg_ticks(const struct axis *a, double scale, bool dense, double *t, int max)
{
	static const double ms[3][4] = { { 1, 2, 3, 5 }, { 1, 2, 5 }, { 1 } };
	static const int nm[3] = { 4, 3, 1 };
	double lo = a->lo * scale, hi = a->hi * scale;
	int n = 0;

	if (!a->log) {
		double step = pmb__svg_nice_number((hi - lo) / 5, 1);

		for (double v = ceil(lo / step - 1e-9) * step; v <= hi * (1 + 1e-9) && n < max; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
		return n;
	}
	for (int s = dense ? 0 : 1; s < 3; s++) {
		n = 0;
		for (double e = floor(log10(lo)); e <= ceil(log10(hi)); e++)
			for (int k = 0; k < nm[s]; k++) {
				double v = ms[s][k] * pow(10, e);

				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9) && n < max)
					t[n++] = v;
			}
		if (n <= (dense ? 7 : 9))
			break;
	}
	return n;
}

void pmb__svg_fmt_tick(char *b, size_t n, double v)
{
	if (fabs(v) >= 1e6)
		snprintf(b, n, "%gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(b, n, "%gk", v / 1e3);
	else
		snprintf(b, n, "%g", v);
}


void pmb__svg_bytes_ticks(FILE *f, const struct axis *ax, double y)
{
	int e0 = (int)ceil(log2(ax->lo)), e1 = (int)fmin(floor(log2(ax->hi)), 62), step = 1;
	char b[24];

	while ((e1 - e0 + 1) / step > 10)
		step *= 2;
	for (int e = e0; e <= e1; e++) {
		double x = pmb__svg_ax_map(ax, ldexp(1, e));

		pmb__svg_line(f, x, y, x, y + (e % step ? 3 : 6), "stroke=\"#444\"");
		if (e % step)
			continue;
		pmb__format_bytes(b, sizeof(b), (uint64_t)1 << e);
		pmb__svg_text(f, x, y + 18, "text-anchor=\"middle\"", "%s", b);
	}
}
