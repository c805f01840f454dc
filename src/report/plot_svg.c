/* plot_svg.c - SVG plots of sweeps and branch studies: one panel per sweep family or branch pair. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"
#include "plot_svg_internal.h"
#include "base.h"

#define WIDTH 900
#define HEAD_H 34	/* the run's one-line header */
#define PANEL_H 436	/* two rows under the interval legend for the TLBs */
#define PL 90.0		/* plot area: left and right edge, */
#define PR 800.0
#define PT 80.0		/* top and bottom from the panel's top */
#define PB 340.0
#define MAXPTS PMB_MAX_TIER_POINTS
static const char *const tier_name[] = { "L1", "L2", "L3", "L4", "DRAM" };
static const char *const tier_colour[] = { "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#d62728" };
static const char *const variant[] = { "branchy", "branchless", "sol" };
static const enum pmb_role role[] = { PMB_ROLE_BRANCHY, PMB_ROLE_BRANCHLESS, PMB_ROLE_SOL };
static const char *const variant_colour[] = { "#d62728", "#1f77b4", "#2ca02c" };
static const char *const variant_dash[] = { "", "", " stroke-dasharray=\"6,3\"" };

struct panel {
	const struct pmb_context *c;
	double y0;	/* top of the panel in the document */
	bool sim;
	char unit[96];
	/* What the panels being drawn show, set per kind of panel by
	 * pmb__plot_svg: the kind (1 sweeps, with a log axis and no zero; 2
	 * branch studies), and the figure the analysis chose for that kind
	 * (the run's sweep_event or branch_event: -2 time, else an event). */
	int kind;
	int event;
};

/* The figure a result is drawn with: ns per item, or the panel kind's
 * event (under simulation). */
static const struct pmb_figure *drawn_figure(const struct panel *p, const struct pmb_result *x)
{
	return pmb__result_figure(x, p->event);
}

/* The 95 % interval of the median of x's drawn figure, where it has one
 * that is not a point (a figure below resolution has none). */
static bool interval(const struct panel *p, const struct pmb_result *x, double *lo, double *hi)
{
	const struct pmb_figure *fg = drawn_figure(p, x);

	if (!fg->valid || fg->below_resolution || !isfinite(fg->s.ci_lo) || !isfinite(fg->s.ci_hi) ||
	    !(fg->s.ci_hi > fg->s.ci_lo))
		return false;
	*lo = fg->s.ci_lo;
	*hi = fg->s.ci_hi;
	return true;
}

/* The error bar of one point: its interval on axis ay (clamped to the
 * axis: a log axis has no place for 0), with caps; class "errbar", titled
 * with the benchmark's name. */
static void error_bar(FILE *f, const struct axis *ay, double x, double lo, double hi, const char *colour,
		      const char *name)
{
	double y0 = pmb__svg_ax_map(ay, fmax(lo, ay->lo)), y1 = pmb__svg_ax_map(ay, fmin(hi, ay->hi));
	char a[96];

	snprintf(a, sizeof(a), "stroke=\"%s\" stroke-width=\"1.2\"", colour);
	fputs("<g class=\"errbar\"><title>", f);
	pmb__svg_esc(f, name);
	fprintf(f, ": 95 %% interval %.4g to %.4g</title>\n", lo, hi);
	pmb__svg_line(f, x, y0, x, y1, a);
	pmb__svg_line(f, x - 3, y0, x + 3, y0, a);
	pmb__svg_line(f, x - 3, y1, x + 3, y1, a);
	fputs("</g>\n", f);
}

/* A point with its error bar; hollow where its interval is wider than
 * PMB_NOISY_ERROR of its median (the warning's threshold). */
static void data_point(FILE *f, const struct panel *p, const struct axis *ay, double x, double y,
		       const char *colour, const struct pmb_result *r, double v)
{
	double err = pmb_figure_error(drawn_figure(p, r)), lo, hi;
	bool has = interval(p, r, &lo, &hi), wide = has && err > PMB_NOISY_ERROR;
	char b[512];

	if (has)
		error_bar(f, ay, x, lo, hi, colour, r->m.inst->name);
	if (has)
		snprintf(b, sizeof(b), "%s: %.4g %s, 95 %% interval %.4g to %.4g (±%.1f %%%s)", r->m.inst->name, v,
			 p->unit, lo, hi, err * 100, wide ? ", wider than 5 %" : "");
	else
		snprintf(b, sizeof(b), "%s: %.4g %s", r->m.inst->name, v, p->unit);
	pmb__svg_point(f, x, y, colour, wide, b);
}

static bool is_sim(const struct pmb_context *c)
{
	return pmb_context_sim(c);
}

/* The figure a result is drawn with, if it has one: ns per item, or the
 * panel kind's event under simulation.  Skipped, failed, unmeasured and
 * below-resolution results, and repetitions past the first, have none. */
static bool value(const struct panel *p, const struct pmb_result *x, double *v)
{
	const struct pmb_context *c = p->c;
	const struct pmb_figure *fg = drawn_figure(p, x);

	if (x->m.status || x->m.repetition || (is_sim(c) && c->m.plan.nev < 1))
		return false;
	if (fg->valid && fg->below_resolution && p->kind == 2) {
		*v = 0; /* zero within resolution: drawn at 0 on a linear axis */
		return true;
	}
	if (!fg->valid || fg->below_resolution || !isfinite(fg->s.median))
		return false;
	*v = fg->s.median;
	return true;
}

/* Separator, title, plot frame, the y axes (gridlines and labelled ticks
 * on the left; estimated cycles on the right where the analysis estimated
 * them: at its est_ghz). */
static void frame(FILE *f, const struct panel *p, const struct axis *ay, const char *name,
		  const char *what)
{
	double t[64], mid = p->y0 + (PT + PB) / 2, ghz = p->c->f.est_ghz;
	char b[32], a[128];
	int n = pmb__svg_ticks(ay, 1, false, t, 64);

	if (p->y0 > HEAD_H)
		pmb__svg_line(f, 10, p->y0, WIDTH - 10, p->y0, "stroke=\"#bbb\"");
	pmb__svg_text(f, 20, p->y0 + 24, "font-size=\"15\" font-weight=\"bold\"", "%s%s", name, what);
	for (int k = 0; k < n; k++) {
		double y = pmb__svg_ax_map(ay, t[k]);

		pmb__svg_line(f, PL, y, PR, y, "stroke=\"#e4e4e4\"");
		pmb__svg_line(f, PL - 5, y, PL, y, "stroke=\"#444\"");
		pmb__svg_fmt_tick(b, sizeof(b), t[k]);
		pmb__svg_text(f, PL - 8, y + 4, "text-anchor=\"end\"", "%s", b);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#999\"/>\n", PL, p->y0 + PT, PR - PL, PB - PT);
	snprintf(a, sizeof(a), "text-anchor=\"middle\" transform=\"rotate(-90 24 %.1f)\"", mid);
	pmb__svg_text(f, 24, mid, a, "%s", p->unit);
	if (!(ghz > 0))
		return;
	pmb__svg_text(f, PR, p->y0 + 44, "text-anchor=\"end\" font-size=\"11\" fill=\"#666\"",
	     "est. cycles = ns x %.2f GHz (ESTIMATED: no cycles counter)", ghz);
	n = pmb__svg_ticks(ay, ghz, true, t, 64);
	for (int k = 0; k < n; k++) {
		double y = pmb__svg_ax_map(ay, t[k] / ghz);

		pmb__svg_line(f, PR, y, PR + 5, y, "stroke=\"#444\"");
		pmb__svg_fmt_tick(b, sizeof(b), t[k]);
		pmb__svg_text(f, PR + 8, y + 4, "fill=\"#666\"", "%s", b);
	}
	snprintf(a, sizeof(a), "text-anchor=\"middle\" fill=\"#666\" transform=\"rotate(90 880 %.1f)\"",
		 mid);
	pmb__svg_text(f, 880, mid, a, "est. cycles per item (ESTIMATED)");
}

/* Dashed lines at the cache sizes, labelled above the frame (never over
 * the data), on a second row where two labels would run into each other. */
static void cache_lines(FILE *f, const struct panel *p, const struct axis *ax)
{
	const struct pmb_topology_info *t = &p->c->m.topo;
	double end[2] = { -1e9, -1e9 };

	for (int k = 0; k < t->ncaches && p->c->m.topo_ok; k++) {
		double x = pmb__svg_ax_map(ax, (double)t->cache[k].size), w;
		char sz[24], b[48];
		int row = 0;

		if (!(x >= PL && x <= PR))
			continue;
		pmb__format_bytes(sz, sizeof(sz), t->cache[k].size);
		snprintf(b, sizeof(b), "L%d%s %s", t->cache[k].level, t->cache[k].level == 1 ? "d" : "", sz);
		pmb__svg_line(f, x, p->y0 + PT - 4, x, p->y0 + PB, "stroke=\"#777\" stroke-dasharray=\"5,4\"");
		w = CW11 * (double)strlen(b);
		x = fmin(x - 3, WIDTH - 4 - w);
		if (x < end[0] + 6)
			row = 1;
		end[row] = x + w;
		pmb__svg_text(f, x, p->y0 + PT - 7 - 13 * row, "font-size=\"11\" fill=\"#555\"", "%s", b);
	}
}

#define TLB_COLOUR "#a0307a"
#define TLB_DASH " stroke-dasharray=\"2,3\""

/* The sweep figures of family fam (the data TLB reach); NULL none. */
static const struct pmb_sweep_figures *sweep_of(const struct pmb_context *c, const char *fam)
{
	for (int i = 0; i < c->f.nsweeps; i++)
		if (!strcmp(c->f.sweeps[i].family, fam))
			return &c->f.sweeps[i];
	return NULL;
}

/* Whether the family's buffers were on pages of size index pg: as
 * measured (the share on huge pages), else both 4 KiB and 2 MiB. */
static bool pages_used(const struct pmb_sweep_figures *s, int pg)
{
	if (s->huge_max < 0)
		return pg == 0 || pg == 1;
	return (pg == 0 && s->huge_min < 1) || (pg == 1 && s->huge_max > 0);
}

/* "L1 dTLB 4K reach" */
static void reach_label(char *b, size_t n, const struct pmb_sweep_reach *r)
{
	static const char *const page[PMB_TLB_NPAGES] = { "4K", "2M", "4M", "1G" };
	const char *kind = r->kind == 'd' ? "dTLB" : r->kind == 'l' ? "load TLB" : "TLB";

	snprintf(b, n, "L%d %s %s reach", r->level, kind, page[r->page]);
}

/* One row of TLB text under the interval legend, wrapped once at a space
 * where it runs past the panel. */
static void tlb_text(FILE *f, const struct panel *p, const char *text)
{
	size_t max = (size_t)((WIDTH - 24 - 10) / CW11), len = strlen(text), cut = len;
	double y = p->y0 + PB + 72;

	if (len > max)
		for (cut = max; cut > 0 && text[cut] != ' '; cut--)
			;
	if (!cut)
		cut = max;
	pmb__svg_text(f, 24, y, "font-size=\"11\"", "%.*s", (int)cut, text);
	if (cut < len)
		pmb__svg_text(f, 24, y + 14, "font-size=\"11\"", "%s", text + cut + (text[cut] == ' '));
}

/* The data TLBs' reach (entries x page size) for the page sizes the
 * family's buffers were on: a dotted line each inside the x range,
 * labelled along it at the bottom of the frame; under the panel the
 * legend, the reach past the range, or why the geometry is not known. */
static void tlb_lines(FILE *f, const struct panel *p, const struct axis *ax, const char *fam)
{
	const struct pmb_sweep_figures *s = sweep_of(p->c, fam);
	char past[256] = "", row[512], b[48], sz[24];
	size_t np = 0;
	int drawn = 0;

	if (!p->c->m.topo_ok || p->sim || !s)
		return;
	if (!p->c->m.topo.tlb.n) {
		snprintf(row, sizeof(row), "TLB geometry not known (%s)", p->c->m.topo.tlb.why);
		tlb_text(f, p, row);
		return;
	}
	for (int i = 0; i < s->nreach; i++) {
		const struct pmb_sweep_reach *r = &s->reach[i];
		double x = pmb__svg_ax_map(ax, (double)r->bytes), y = p->y0 + PB - 4;

		if (!pages_used(s, r->page))
			continue;
		reach_label(b, sizeof(b), r);
		if (!(x >= PL && x <= PR)) {
			pmb__format_bytes(sz, sizeof(sz), r->bytes);
			np += (size_t)snprintf(past + np, np < sizeof(past) ? sizeof(past) - np : 0, "%s%s %s",
					       np ? ", " : "", b, sz);
			np = np < sizeof(past) ? np : sizeof(past) - 1;
			continue;
		}
		pmb__svg_line(f, x, p->y0 + PT, x, p->y0 + PB, "stroke=\"" TLB_COLOUR "\"" TLB_DASH);
		snprintf(row, sizeof(row), "font-size=\"10\" fill=\"" TLB_COLOUR "\" transform=\"rotate(-90 %.1f %.1f)\"",
			 x - 3, y);
		pmb__svg_text(f, x - 3, y, row, "%s", b);
		drawn++;
	}
	double lx = 24;

	if (drawn) {
		snprintf(row, sizeof(row), "data TLB reach: entries x page size (%s)", p->c->m.topo.tlb.source);
		lx = pmb__svg_legend(f, lx, p->y0 + PB + 72, TLB_COLOUR, TLB_DASH, row);
	}
	if (np) {
		snprintf(row, sizeof(row), "data TLB reach past the working-set axis: %s", past);
		pmb__svg_text(f, drawn ? 24 : lx, p->y0 + PB + 72 + (drawn ? 14 : 0), "font-size=\"11\"", "%s", row);
	}
}

/* Under the panel, left of the axis title, what the bars and the hollow
 * markers mean. */
static void interval_legend(FILE *f, const struct panel *p)
{
	static const char bars[] = "95 % interval";
	double x = 24, y = p->y0 + PB + 58;
	const char *a = "stroke=\"#444\" stroke-width=\"1.2\"";

	pmb__svg_line(f, x + 4, y - 10, x + 4, y + 1, a);
	pmb__svg_line(f, x + 1, y - 10, x + 7, y - 10, a);
	pmb__svg_line(f, x + 1, y + 1, x + 7, y + 1, a);
	pmb__svg_text(f, x + 14, y, "font-size=\"11\"", "%s", bars);
	x += 14 + CW11 * (double)(sizeof(bars) - 1) + 14;
	pmb__svg_point(f, x + 4, y - 4, "#444", true, NULL);
	pmb__svg_text(f, x + 14, y, "font-size=\"11\"", "hollow: interval over ±%.0f %%", PMB_NOISY_ERROR * 100);
}

/* The points of r[i]'s sweep family from i on with a positive value (a log
 * axis has no place for 0), sorted by working set; returns their number. */
static size_t sweep_collect(const struct panel *p, const struct pmb_result *r, size_t n, size_t i,
			    const struct pmb_result **pt, double *v)
{
	size_t m = 0;

	for (size_t j = i; j < n && m < MAXPTS; j++) {
		double x;
		size_t k;

		if (strcmp(r[j].m.inst->family, r[i].m.inst->family) || !r[j].m.inst->tier[0] ||
		    !r[j].m.inst->working_set || !value(p, &r[j], &x) || x <= 0)
			continue;
		for (k = m++; k > 0 && pt[k - 1]->m.inst->working_set > r[j].m.inst->working_set; k--) {
			pt[k] = pt[k - 1];
			v[k] = v[k - 1];
		}
		pt[k] = &r[j];
		v[k] = x;
	}
	return m;
}

/* One sweep family: cost against working set, both on log axes, the x range
 * wide enough for every cache boundary. */
/* The working-set axis: a tick per power of two, labelled every 1, 2,
 * 4... octaves. */
static void bytes_axis(FILE *f, const struct panel *p, const struct axis *ax)
{
	pmb__svg_bytes_ticks(f, ax, p->y0 + PB);
	pmb__svg_text(f, (PL + PR) / 2, p->y0 + PB + 42, "text-anchor=\"middle\"", "working set (log2 scale)");
}

static void sweep_panel(FILE *f, const struct panel *p, const struct pmb_result *r, size_t n, size_t i)
{
	const struct pmb_topology_info *topo = &p->c->m.topo;
	const struct pmb_result *pt[MAXPTS];
	double v[MAXPTS], px[MAXPTS], py[MAXPTS], xlo = INFINITY, xhi = 1, vlo = INFINITY, vhi = 0;
	size_t m = sweep_collect(p, r, n, i, pt, v);
	bool seen[5] = { false };

	for (size_t k = 0; k < m; k++) {
		double lo, hi;

		xlo = fmin(xlo, (double)pt[k]->m.inst->working_set);
		xhi = fmax(xhi, (double)pt[k]->m.inst->working_set);
		vlo = fmin(vlo, v[k]);
		vhi = fmax(vhi, v[k]);
		/* The axis holds the intervals too (their positive part). */
		if (interval(p, pt[k], &lo, &hi)) {
			vlo = lo > 0 ? fmin(vlo, lo) : vlo;
			vhi = fmax(vhi, hi);
		}
	}
	for (int k = 0; k < topo->ncaches && p->c->m.topo_ok; k++) {
		xlo = fmin(xlo, (double)topo->cache[k].size);
		xhi = fmax(xhi, (double)topo->cache[k].size);
	}
	xlo = fmax(xlo, 1);
	struct axis ax = { xlo / M_SQRT2, xhi * M_SQRT2, true, PL, PR };
	struct axis ay = { pmb__svg_nice_number(vlo, -1), pmb__svg_nice_number(vhi, 1), true, p->y0 + PB, p->y0 + PT };

	if (ay.hi <= ay.lo * (1 + 1e-9)) {
		ay.lo = pmb__svg_nice_number(ay.lo * 0.99, -1);
		ay.hi = pmb__svg_nice_number(ay.hi * 1.01, 1);
	}
	frame(f, p, &ay, r[i].m.inst->family, ": cost per item vs working set");
	bytes_axis(f, p, &ax);
	cache_lines(f, p, &ax);
	tlb_lines(f, p, &ax, r[i].m.inst->family);

	for (size_t k = 0; k < m; k++) {
		px[k] = pmb__svg_ax_map(&ax, (double)pt[k]->m.inst->working_set);
		py[k] = pmb__svg_ax_map(&ay, v[k]);
	}
	pmb__svg_polyline(f, px, py, m, "stroke=\"#555\" stroke-width=\"1.5\"", r[i].m.inst->family);
	for (size_t k = 0; k < m; k++) {
		int t = 0;

		while (t < 4 && strcmp(pt[k]->m.inst->tier, tier_name[t]))
			t++;
		seen[t] = true;
		data_point(f, p, &ay, px[k], py[k], tier_colour[t], pt[k], v[k]);
	}
	interval_legend(f, p);
	double lx = 24 + CW11 * 5, ly = p->y0 + 44;

	pmb__svg_text(f, 24, ly, "font-size=\"11\"", "tier:");
	for (int t = 0; t < 5; t++)
		if (seen[t])
			lx = pmb__svg_legend(f, lx, ly, tier_colour[t], NULL, tier_name[t]);
	if (topo->ncaches && p->c->m.topo_ok)
		pmb__svg_legend(f, lx, ly, "#777", " stroke-dasharray=\"5,4\"", "cache size (hwloc)");
}

/* The inputs of the pair whose first branchy result is r[i] (categories, in
 * the branchy results' order) and the three variants' values at each:
 * cat[j][k] (NULL: no such result), has[j][k] whether v[j][k] is a value.
 * The pair's K goes into prefix.  Returns the number of categories; the
 * number of values in *npts. */
static size_t pair_collect(const struct panel *p, const struct pmb_result *r, size_t n, size_t i,
			   char *prefix, const struct pmb_result *cat[][3], double v[][3],
			   bool has[][3], size_t *npts)
{
	const char *fam = r[i].m.inst->family;
	size_t m = 0;

	*npts = 0;
	if (r[i].m.inst->def->role != PMB_ROLE_BRANCHY || !pmb__result_study(&r[i], prefix, 200))
		return 0;
	for (size_t j = i; j < n && m < MAXPTS; j++) {
		if (r[j].m.repetition || strcmp(r[j].m.inst->family, fam))
			continue;
		for (int k = 0; k < 3; k++) {
			cat[m][k] = k ? pmb__result_in_study(r, n, prefix, role[k], r[j].m.inst->args) : &r[j];
			has[m][k] = cat[m][k] && value(p, cat[m][k], &v[m][k]);
			*npts += has[m][k];
		}
		m++;
	}
	return m;
}

/* One branch pair: the three variants against the inputs, linear from 0. */
static void branch_panel(FILE *f, const struct panel *p, const struct pmb_result *r, size_t n, size_t i)
{
	const struct pmb_result *cat[MAXPTS][3];
	double v[MAXPTS][3], px[MAXPTS], py[MAXPTS], vlo = 0, vhi = 0, wmax = 0;
	bool has[MAXPTS][3];
	char prefix[200], name[240];
	size_t npts, m = pair_collect(p, r, n, i, prefix, cat, v, has, &npts);

	for (size_t j = 0; j < m; j++)
		for (int k = 0; k < 3; k++) {
			double lo, hi;

			if (!has[j][k])
				continue;
			vlo = fmin(vlo, v[j][k]);
			vhi = fmax(vhi, v[j][k]);
			if (interval(p, cat[j][k], &lo, &hi)) {
				vlo = fmin(vlo, lo);
				vhi = fmax(vhi, hi);
			}
		}
	double step = pmb__svg_nice_number((vhi > vlo ? vhi - vlo : 1) / 5, 1), dx = (PR - PL) / (double)m;
	struct axis ay = { floor(vlo / step) * step, vhi > 0 ? ceil(vhi / step - 1e-9) * step : step,
			   false, p->y0 + PB, p->y0 + PT };

	frame(f, p, &ay, prefix, ": branchy vs branchless");
	for (size_t j = 0; j < m; j++)
		wmax = fmax(wmax, CW12 * (double)strlen(cat[j][0]->m.inst->args));
	for (size_t j = 0; j < m; j++) {
		double x = PL + ((double)j + 0.5) * dx;
		bool low = wmax > dx - 4 && j % 2;	/* stagger labels that would touch */

		pmb__svg_line(f, x, p->y0 + PB, x, p->y0 + PB + (low ? 16 : 5), "stroke=\"#444\"");
		pmb__svg_text(f, x, p->y0 + PB + (low ? 29 : 17), "text-anchor=\"middle\"", "%s",
		     cat[j][0]->m.inst->args[0] ? cat[j][0]->m.inst->args : "-");
	}
	pmb__svg_text(f, (PL + PR) / 2, p->y0 + PB + 50, "text-anchor=\"middle\"", "input");

	double lx = 24, ly = p->y0 + 44;

	for (int k = 0; k < 3; k++) {
		char style[96];
		size_t q = 0;

		for (size_t j = 0; j < m; j++)
			if (has[j][k]) {
				px[q] = PL + ((double)j + 0.5) * dx;
				py[q++] = pmb__svg_ax_map(&ay, v[j][k]);
			}
		if (!q)
			continue;
		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2\"%s", variant_colour[k],
			 variant_dash[k]);
		snprintf(name, sizeof(name), "%s/%s", prefix, variant[k]);
		pmb__svg_polyline(f, px, py, q, style, name);
		q = 0;
		for (size_t j = 0; j < m; j++)
			if (has[j][k]) {
				data_point(f, p, &ay, px[q], py[q], variant_colour[k], cat[j][k], v[j][k]);
				q++;
			}
		snprintf(style, sizeof(style), " stroke-width=\"2\"%s", variant_dash[k]);
		lx = pmb__svg_legend(f, lx, ly, variant_colour[k], style, variant[k]);
	}
	interval_legend(f, p);
}

/* Whether r[i] opens a panel of p's kind, 1 (the first result of a sweep
 * family) or 2 (the first branchy result of a pair), with something to draw. */
static bool opens_panel(const struct panel *p, const struct pmb_result *r, size_t n, size_t i)
{
	const struct pmb_result *pt[MAXPTS], *cat[MAXPTS][3];
	double w[MAXPTS], v[MAXPTS][3];
	bool has[MAXPTS][3];
	char prefix[200];
	size_t npts = 0;

	if (r[i].m.repetition)
		return false;
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r[j].m.inst->family, r[i].m.inst->family) && !r[j].m.repetition)
			return false;
	if (p->kind == 1)
		return r[i].m.inst->tier[0] && sweep_collect(p, r, n, i, pt, w);
	pair_collect(p, r, n, i, prefix, cat, v, has, &npts);
	return npts > 0;
}

int pmb__plot_svg(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct panel p = { .c = c, .sim = is_sim(c), .y0 = HEAD_H };
	int npanels = 0;

	int kind_ev[3] = { 0, c->f.sweep_event, c->f.branch_event };

	for (int kind = 1; kind <= 2; kind++) {
		p.event = kind_ev[kind];
		p.kind = kind;
		for (size_t i = 0; i < n; i++)
			npanels += opens_panel(&p, r, n, i);
	}
	if (!npanels)
		return -ENODATA;
	snprintf(p.unit, sizeof(p.unit), "ns per item");

	int h = HEAD_H + npanels * PANEL_H + 10;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" "
		"font-size=\"12\" fill=\"#222\">\n", WIDTH, h, WIDTH, h);
	fputs("<title>pmubench plots</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", WIDTH, h);
	pmb__svg_text(f, 20, 22, "font-size=\"12\" fill=\"#555\"", "pmubench %s  %s  core %d  backend %s%s  %s",
	     PMB_VERSION_STRING, c->m.host, c->m.cpu, pmb_backend_name(c->m.backend),
	     p.sim ? " (counts SIMULATED by valgrind)" : "", c->m.date);
	for (int kind = 1; kind <= 2; kind++) {
		p.event = kind_ev[kind];
		p.kind = kind;
		if (p.event >= 0)
			snprintf(p.unit, sizeof(p.unit), "%.48s per item (simulated)",
				 c->m.plan.ev[p.event].name);
		for (size_t i = 0; i < n; i++) {
			if (!opens_panel(&p, r, n, i))
				continue;
			if (kind == 1)
				sweep_panel(f, &p, r, n, i);
			else
				branch_panel(f, &p, r, n, i);
			p.y0 += PANEL_H;
		}
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
