/* plot_merge.c - `pmubench merge --plot`: each sweep family's figure against working set, one series per host group (its median per point, the hosts' spread and the intervals' envelope as error bars), each group's cache sizes in its colour. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "plot_svg_internal.h"
#include "base.h"

#define WIDTH 900
#define PANEL_H 430
#define PL 90.0   /* plot area: left and right edge, */
#define PR 860.0
#define PT 70.0   /* top and bottom from the panel's top */
#define PB 330.0
/* Legend lines under the plot area start here, one per group. */
#define LEGEND_Y (PB + 58)
#define LEGEND_H 16.0

/* The figures a sweep is drawn in, where any group has them: time, then
 * cycles (counted or simulated; estimated ones are another figure). */
static const char *const figure_key[] = { "ns_per_item", "cycles_per_item" };
static const char *const figure_unit[] = { "ns per item", "cycles per item" };
static const char *const group_colour[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
					    "#9467bd", "#8c564b", "#e377c2", "#17becf" };
#define NCOLOUR (sizeof(group_colour) / sizeof(group_colour[0]))

/* One panel: the rows of a family's figure, in working-set order. */
struct panel {
	const char *family;
	size_t key;
	size_t *row;
	size_t n;
	double y0;
};

static const char *colour(size_t k)
{
	return group_colour[k % NCOLOUR];
}

static bool sweep_row(const struct pmb_merge_row *r, const char *family, const char *key)
{
	return r->family && r->family[0] && r->working_set && !strcmp(r->family, family) && !strcmp(r->key, key);
}

/* Whether group k has a value at any point of the panel. */
static bool has_values(const struct pmb_merged *m, const struct panel *p, size_t k)
{
	for (size_t i = 0; i < p->n; i++)
		if (m->row[p->row[i]].cell[k].state == PMB_CELL_VALUE)
			return true;
	return false;
}

static int by_working_set(const void *a, const void *b, void *rows)
{
	const struct pmb_merge_row *r = rows;
	uint64_t x = r[*(const size_t *)a].working_set, y = r[*(const size_t *)b].working_set;

	return x < y ? -1 : x > y;
}

/* The panels: one per family and figure with a value in any group.
 * Returns their count, or -ENOMEM. */
static long collect(const struct pmb_merged *m, struct panel **out)
{
	struct panel *p = NULL, *grown;
	size_t n = 0;

	for (size_t r = 0; r < m->nrow; r++) {
		const struct pmb_merge_row *row = &m->row[r];
		bool seen = false;

		if (!row->family || !row->family[0] || !row->working_set)
			continue;
		for (size_t i = 0; i < n && !seen; i++)
			seen = !strcmp(p[i].family, row->family);
		for (size_t key = 0; key < sizeof(figure_key) / sizeof(figure_key[0]) && !seen; key++) {
			struct panel q = { .family = row->family, .key = key };
			bool value = false;

			q.row = malloc(m->nrow * sizeof(*q.row));
			if (!q.row)
				goto fail;
			for (size_t j = r; j < m->nrow; j++)
				if (sweep_row(&m->row[j], row->family, figure_key[key])) {
					q.row[q.n++] = j;
					for (size_t k = 0; k < m->ngroup; k++)
						value |= m->row[j].cell[k].state == PMB_CELL_VALUE;
				}
			if (!value) {
				free(q.row);
				continue;
			}
			qsort_r(q.row, q.n, sizeof(*q.row), by_working_set, m->row);
			grown = realloc(p, (n + 1) * sizeof(*p));
			if (!grown) {
				free(q.row);
				goto fail;
			}
			p = grown;
			p[n++] = q;
		}
	}
	*out = p;
	return (long)n;
fail:
	for (size_t i = 0; i < n; i++)
		free(p[i].row);
	free(p);
	return -ENOMEM;
}

/* The x range: the points' working sets and every group's cache sizes;
 * the y range: the values, spreads and intervals (log where all are
 * positive). */
static void ranges(const struct pmb_merged *m, const struct panel *p, struct axis *ax, struct axis *ay)
{
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = -INFINITY;

	for (size_t i = 0; i < p->n; i++) {
		const struct pmb_merge_row *r = &m->row[p->row[i]];

		xlo = fmin(xlo, (double)r->working_set);
		xhi = fmax(xhi, (double)r->working_set);
		for (size_t k = 0; k < m->ngroup; k++) {
			const struct pmb_merge_cell *c = &r->cell[k];
			double v[] = { c->value, c->lo, c->hi, c->spread_lo, c->spread_hi };

			if (c->state != PMB_CELL_VALUE)
				continue;
			for (size_t j = 0; j < 5; j++)
				if (isfinite(v[j])) {
					ylo = fmin(ylo, v[j]);
					yhi = fmax(yhi, v[j]);
				}
		}
	}
	for (size_t h = 0; h < m->nhosts; h++)
		for (size_t c = 0; c < m->hosts[h].ncache; c++) {
			xlo = fmin(xlo, (double)m->hosts[h].cache[c].size);
			xhi = fmax(xhi, (double)m->hosts[h].cache[c].size);
		}
	*ax = (struct axis){ fmax(xlo, 1) / M_SQRT2, fmax(xhi, 1) * M_SQRT2, true, PL, PR };
	if (ylo > 0) {
		*ay = (struct axis){ pmb__svg_nice_number(ylo, -1), pmb__svg_nice_number(yhi, 1), true, PB, PT };
		if (ay->hi <= ay->lo * (1 + 1e-9)) {
			ay->lo = pmb__svg_nice_number(ay->lo * 0.99, -1);
			ay->hi = pmb__svg_nice_number(ay->hi * 1.01, 1);
		}
	} else {
		*ay = (struct axis){ fmin(ylo, 0), yhi > 0 ? pmb__svg_nice_number(yhi, 1) : 1, false, PB, PT };
	}
}

static void axes(FILE *f, const struct panel *p, const struct axis *ax, const struct axis *ay)
{
	double t[32];
	char b[32];
	int nt;

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
		PL, p->y0 + PT, PR - PL, PB - PT);
	pmb__svg_bytes_ticks(f, ax, p->y0 + PB);
	pmb__svg_text(f, (PL + PR) / 2, p->y0 + PB + 36, "text-anchor=\"middle\"", "working set (log2 scale)");
	nt = pmb__svg_ticks(ay, 1, false, t, 32);
	for (int i = 0; i < nt; i++) {
		double y = p->y0 + pmb__svg_ax_map(ay, t[i]);

		pmb__svg_line(f, PL - 5, y, PL, y, "stroke=\"#444\"");
		pmb__svg_line(f, PL, y, PR, y, "stroke=\"#eee\"");
		pmb__svg_fmt_tick(b, sizeof(b), t[i]);
		pmb__svg_text(f, PL - 8, y + 4, "text-anchor=\"end\"", "%s", b);
	}
	snprintf(b, sizeof(b), "rotate(-90 20 %.1f)", p->y0 + (PT + PB) / 2);
	fprintf(f, "<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" transform=\"%s\">%s</text>\n",
		p->y0 + (PT + PB) / 2, b, figure_unit[p->key]);
	pmb__svg_text(f, PL, p->y0 + 24, "font-size=\"14\" font-weight=\"bold\"", "%s: %s vs working set, "
		      "one series per host group", p->family, figure_unit[p->key]);
}

/* Whether group k has cache (level, size) in a host before its host
 * `before` (every host: g->nhost). */
static bool group_cache(const struct pmb_merged *m, size_t k, size_t before, const struct pmb_host_cache *c)
{
	const struct pmb_merge_group *g = &m->group[k];

	for (size_t i = 0; i < before && i < g->nhost; i++)
		for (size_t d = 0; d < m->hosts[g->host[i]].ncache; d++)
			if (m->hosts[g->host[i]].cache[d].level == c->level &&
			    m->hosts[g->host[i]].cache[d].size == c->size)
				return true;
	return false;
}

/* Group k's cache sizes, each size of each level once (its hosts may
 * differ), as dashed lines in its colour.  Groups that share a size share
 * its x: their dashes interleave (group j of the `shown` drawn takes every
 * shown-th dash), so that each colour stays visible. */
static void tiers(FILE *f, const struct pmb_merged *m, const struct panel *p, const struct axis *ax, size_t k,
		  size_t j, size_t shown)
{
	const struct pmb_merge_group *g = &m->group[k];
	char dash[64];

	if (shown > 1)
		snprintf(dash, sizeof(dash), "stroke-dasharray=\"5,%zu\" stroke-dashoffset=\"%zu\"", 5 * (shown - 1),
			 5 * j);
	else
		snprintf(dash, sizeof(dash), "stroke-dasharray=\"5,4\"");
	for (size_t i = 0; i < g->nhost; i++) {
		const struct pmb_host_run *h = &m->hosts[g->host[i]];

		for (size_t c = 0; c < h->ncache; c++) {
			char b[32];
			double x = pmb__svg_ax_map(ax, (double)h->cache[c].size);

			if (group_cache(m, k, i, &h->cache[c]))
				continue;
			pmb__format_bytes(b, sizeof(b), h->cache[c].size);
			fprintf(f, "<line class=\"tier\" data-group=\"%s\" data-level=\"%d\" data-size=\"%llu\" "
				"x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.4\" "
				"%s><title>group %s: L%d %s (hwloc)</title></line>\n", g->label, h->cache[c].level,
				(unsigned long long)h->cache[c].size, x, p->y0 + PT, x, p->y0 + PB, colour(k), dash,
				g->label, h->cache[c].level, b);
		}
	}
}

/* Whether cache c was labelled already: a group before k (of those with
 * values) has it, or group k's host before i. */
static bool labelled(const struct pmb_merged *m, const struct panel *p, size_t k, size_t i,
		     const struct pmb_host_cache *c)
{
	for (size_t q = 0; q < k; q++)
		if (has_values(m, p, q) && group_cache(m, q, m->group[q].nhost, c))
			return true;
	return group_cache(m, k, i, c);
}

/* One label per cache size drawn, above the plot: the groups that have it,
 * each in its colour, and the level ("A B L2"). */
static void tier_labels(FILE *f, const struct pmb_merged *m, const struct panel *p, const struct axis *ax)
{
	for (size_t k = 0; k < m->ngroup; k++) {
		const struct pmb_merge_group *g = &m->group[k];

		if (!has_values(m, p, k))
			continue;
		for (size_t i = 0; i < g->nhost; i++)
			for (size_t c = 0; c < m->hosts[g->host[i]].ncache; c++) {
				const struct pmb_host_cache *hc = &m->hosts[g->host[i]].cache[c];

				if (labelled(m, p, k, i, hc))
					continue;
				fprintf(f, "<text class=\"tier-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
					"text-anchor=\"middle\">", pmb__svg_ax_map(ax, (double)hc->size),
					p->y0 + PT - 4 - 11.0 * (double)(hc->level % 2));
				for (size_t q = k; q < m->ngroup; q++)
					if (has_values(m, p, q) && group_cache(m, q, m->group[q].nhost, hc)) {
						fprintf(f, "<tspan fill=\"%s\">", colour(q));
						pmb__svg_esc(f, m->group[q].label);
						fputs("</tspan> ", f);
					}
				fprintf(f, "L%d</text>\n", hc->level);
			}
	}
}

/* Group k's series: its median per point joined, each with its spread
 * (thick) and the envelope of its hosts' intervals (thin, capped). */
static void series(FILE *f, const struct pmb_merged *m, const struct panel *p, const struct axis *ax,
		   const struct axis *ay, size_t k, double *px, double *py)
{
	const struct pmb_merge_group *g = &m->group[k];
	double dx = ((double)k - (double)(m->ngroup - 1) / 2) * 5;
	size_t n = 0;

	fprintf(f, "<g class=\"series\" data-group=\"%s\" data-colour=\"%s\">\n", g->label, colour(k));
	for (size_t i = 0; i < p->n; i++) {
		const struct pmb_merge_row *r = &m->row[p->row[i]];
		const struct pmb_merge_cell *c = &r->cell[k];
		double x = pmb__svg_ax_map(ax, (double)r->working_set) + dx;

		if (c->state != PMB_CELL_VALUE || (ay->log && !(c->value > 0)))
			continue;
		if (isfinite(c->lo) && isfinite(c->hi) && (!ay->log || c->lo > 0)) {
			double y0 = p->y0 + pmb__svg_ax_map(ay, c->lo), y1 = p->y0 + pmb__svg_ax_map(ay, c->hi);

			fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				x, y0, x, y1, colour(k));
			pmb__svg_line(f, x - 3, y0, x + 3, y0, "stroke=\"#444\"");
			pmb__svg_line(f, x - 3, y1, x + 3, y1, "stroke=\"#444\"");
		}
		if (c->nhost > 1 && (!ay->log || c->spread_lo > 0))
			fprintf(f, "<line class=\"spread\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"4\" stroke-opacity=\"0.45\"/>\n", x,
				p->y0 + pmb__svg_ax_map(ay, c->spread_lo), x, p->y0 + pmb__svg_ax_map(ay, c->spread_hi),
				colour(k));
		px[n] = x;
		py[n] = p->y0 + pmb__svg_ax_map(ay, c->value);
		fprintf(f, "<circle class=\"point\" data-bench=\"");
		pmb__svg_esc(f, r->bench);
		fprintf(f, "\" data-ws=\"%llu\" data-value=\"%.17g\" data-lo=\"%.17g\" data-hi=\"%.17g\" "
			"data-spread-lo=\"%.17g\" data-spread-hi=\"%.17g\" data-hosts=\"%zu\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"3.5\" fill=\"%s\" stroke=\"#222\" stroke-width=\"0.6\"><title>group %s, ",
			(unsigned long long)r->working_set, c->value, c->lo, c->hi, c->spread_lo, c->spread_hi,
			c->nhost, px[n], py[n], colour(k), g->label);
		pmb__svg_esc(f, r->bench);
		fprintf(f, ": %.4g (median of %zu host%s)</title></circle>\n", c->value, c->nhost,
			c->nhost == 1 ? "" : "s");
		n++;
	}
	if (n > 1) {
		char style[64];

		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"1.5\"", colour(k));
		pmb__svg_polyline(f, px, py, n, style, g->label);
	}
	fputs("</g>\n", f);
}

static void legend(FILE *f, const struct pmb_merged *m, const struct panel *p)
{
	double y = p->y0 + LEGEND_Y;

	for (size_t k = 0; k < m->ngroup; k++, y += LEGEND_H) {
		const struct pmb_merge_group *g = &m->group[k];

		pmb__svg_line(f, PL, y - 4, PL + 22, y - 4, "stroke-width=\"2\" stroke=\"#888\"");
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", PL + 11, y - 4, colour(k));
		fprintf(f, "<text class=\"legend\" data-group=\"%s\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">",
			g->label, PL + 30, y, colour(k));
		fprintf(f, "group %s: ", g->label);
		pmb__svg_esc(f, g->cpu);
		fprintf(f, ", %zu host%s (%s)%s</text>\n", g->nhost, g->nhost == 1 ? "" : "s",
			pmb__counting_name(g->counting), has_values(m, p, k) ? "" : ": no value of this figure");
	}
	pmb__svg_text(f, PL, y + 4, "font-size=\"10\" fill=\"#555\"", "each point: the group's median over its "
		      "hosts; thick bar: their spread; thin bar: the envelope of their 95 %% intervals;");
	pmb__svg_text(f, PL, y + 4 + LEGEND_H, "font-size=\"10\" fill=\"#555\"", "dashed: the cache sizes of "
		      "the group's hosts (their topology, hwloc's) in the group's colour");
}

static double panel_height(const struct pmb_merged *m)
{
	return LEGEND_Y + LEGEND_H * (double)(m->ngroup + 2) + 10;
}

int pmb__plot_merge_svg(FILE *f, const struct pmb_merged *m)
{
	struct panel *p;
	long n = collect(m, &p);
	double h, *px, *py;
	int ret = 0;

	if (n <= 0)
		return n ? (int)n : -ENODATA;
	px = malloc(m->nrow * sizeof(*px));
	py = malloc(m->nrow * sizeof(*py));
	if (!px || !py) {
		ret = -ENOMEM;
		goto out;
	}
	h = panel_height(m) * (double)n;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" "
		"font-size=\"12\" fill=\"#222\">\n<title>pmubench merge: sweeps per host group</title>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#fff\"/>\n", WIDTH, h, WIDTH, h, WIDTH, h);
	for (long i = 0; i < n; i++) {
		struct axis ax, ay;
		size_t shown;

		p[i].y0 = panel_height(m) * (double)i;
		ranges(m, &p[i], &ax, &ay);
		fprintf(f, "<g class=\"panel\" data-family=\"");
		pmb__svg_esc(f, p[i].family);
		fprintf(f, "\" data-figure=\"%s\">\n", figure_key[p[i].key]);
		axes(f, &p[i], &ax, &ay);
		shown = 0;
		for (size_t k = 0; k < m->ngroup; k++)
			shown += has_values(m, &p[i], k);
		for (size_t k = 0, j = 0; k < m->ngroup; k++)
			if (has_values(m, &p[i], k))
				tiers(f, m, &p[i], &ax, k, j++, shown);
		tier_labels(f, m, &p[i], &ax);
		for (size_t k = 0; k < m->ngroup; k++)
			series(f, m, &p[i], &ax, &ay, k, px, py);
		legend(f, m, &p[i]);
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
	ret = ferror(f) ? -EIO : 0;
out:
	free(px);
	free(py);
	for (long i = 0; i < n; i++)
		free(p[i].row);
	free(p);
	return ret;
}
