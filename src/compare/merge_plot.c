/* merge_plot.c - `pmubench merge --plot`: each host group's sweeps as the live run draws them (plot_svg.c), stacked in one SVG under the group's label. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "analyse.h"
#include "report.h"
#include "io.h"
#include "base.h"

/* Height of a group's caption above its plot. */
#define CAPTION_H 30
#define EMPTY_W 900

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

/* The number after attr=" in the first tag of doc, or 0. */
static int attr(const char *doc, const char *name)
{
	char key[32];
	const char *at;

	snprintf(key, sizeof(key), " %s=\"", name);
	at = strstr(doc, key);
	return at ? atoi(at + strlen(key)) : 0;
}

/* The plot pmb__plot_svg() draws of the run at path, analysed again, into
 * *doc (malloc'd, from its <svg> tag on).  Returns 0, -ENODATA (nothing to
 * plot), or another error with its reason in why. */
static int host_plot(const char *path, char **doc, char *why, size_t size)
{
	struct pmb_loaded_run run;
	size_t len = 0;
	FILE *f;
	char *svg;
	int rc = pmb__results_load_run(path, &run, why, size);

	*doc = NULL;
	if (rc)
		return rc;
	f = open_memstream(doc, &len);
	rc = f ? pmb__analyze(run.ctx, run.res, run.n, run.reps) : -ENOMEM;
	if (!rc)
		rc = pmb__plot_svg(f, run.ctx, run.res, run.n);
	if (f && fclose(f) && !rc)
		rc = -ENOMEM;
	pmb__loaded_run_free(&run);
	svg = *doc ? strstr(*doc, "<svg") : NULL;
	if (!rc && svg) {
		memmove(*doc, svg, strlen(svg) + 1);
		return 0;
	}
	free(*doc);
	*doc = NULL;
	if (rc == -ENODATA)
		snprintf(why, size, "no sweep (PMB_TIERS) or branch study to plot");
	else
		snprintf(why, size, "%s", pmb_strerror(rc ? rc : -EIO));
	return rc ? rc : -EIO;
}

/* The plot of group g's first host that gives one; its host into *host. */
static char *group_plot(const struct pmb_merged *m, const struct pmb_merge_group *g, size_t *host,
			char *why, size_t size)
{
	char *doc = NULL;

	for (size_t i = 0; i < g->nhost && !doc; i++) {
		*host = g->host[i];
		host_plot(m->hosts[*host].file, &doc, why, size);
	}
	return doc;
}

static void caption(FILE *f, int y, const struct pmb_merge_group *g, const char *host, const char *tail)
{
	fprintf(f, "<text x=\"20\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">group ", y + 20);
	esc(f, g->label);
	fputs(": ", f);
	esc(f, g->cpu);
	fprintf(f, " (%s", pmb__counting_name(g->counting));
	fputs(host ? "), host " : ")", f);
	esc(f, host ? host : "");
	if (tail) {
		fputs(": ", f);
		esc(f, tail);
	}
	fputs("</text>\n", f);
}

static void write_doc(FILE *f, const struct pmb_merged *m, char **doc, const size_t *host, char (*why)[256])
{
	int w = EMPTY_W, h = 0, y = 0;

	for (size_t k = 0; k < m->ngroup; k++) {
		w = doc[k] && attr(doc[k], "width") > w ? attr(doc[k], "width") : w;
		h += CAPTION_H + (doc[k] ? attr(doc[k], "height") : 0);
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" "
		"font-size=\"12\" fill=\"#222\">\n<title>pmubench merge: one plot per host group</title>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", w, h, w, h, w, h);
	for (size_t k = 0; k < m->ngroup; k++) {
		caption(f, y, &m->group[k], doc[k] ? m->hosts[host[k]].host : NULL, doc[k] ? NULL : why[k]);
		y += CAPTION_H;
		if (!doc[k])
			continue;
		fprintf(f, "<g class=\"group\" id=\"group-%s\" transform=\"translate(0,%d)\">\n", m->group[k].label, y);
		fputs(doc[k], f);
		fputs("</g>\n", f);
		y += attr(doc[k], "height");
	}
	fputs("</svg>\n", f);
}

int pmb__merge_plot(const char *path, const struct pmb_merged *m)
{
	char **doc = calloc(m->ngroup, sizeof(*doc)), (*why)[256] = calloc(m->ngroup, sizeof(*why));
	size_t *host = calloc(m->ngroup, sizeof(*host)), len = 0, plotted = 0;
	char *buf = NULL;
	FILE *f = NULL;
	int rc = 1;

	if (!doc || !why || !host)
		goto out;
	for (size_t k = 0; k < m->ngroup; k++)
		plotted += (doc[k] = group_plot(m, &m->group[k], &host[k], why[k], sizeof(why[k]))) != NULL;
	if (!plotted) {
		fprintf(stderr, "pmubench: merge: --plot=%s: nothing to plot: plots show working-set sweeps "
			"(PMB_TIERS) and branch studies of results files that hold their raw counts; "
			"no file written\n", path);
		rc = 0;
		goto out;
	}
	f = open_memstream(&buf, &len);
	if (f) {
		write_doc(f, m, doc, host, why);
		if (!fclose(f))
			rc = pmb__out_text(path, "--plot", buf, len);
	}
out:
	if (rc == 1 && !f && doc && why && host)
		pmb__out_error("merge: --plot=%s: %s", path, strerror(ENOMEM));
	for (size_t k = 0; doc && k < m->ngroup; k++)
		free(doc[k]);
	free(doc);
	free(why);
	free(host);
	free(buf);
	return rc;
}
