/* report_table.c - the console's main table: columns chosen to fit the width, a second table for the rest, what was left out, the legend, the footnotes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_cols.h"
#include "report_cols_internal.h"

/* A benchmark name over half the width goes on a line of its own, its
 * figures on the next: a 75-character name at 80 columns had left room
 * for no figure at all ("not shown, for the width of 80 columns: ns, ci,
 * cycles, ratio"), and a name is never shortened.  Not under --wide,
 * whose lines are never wrapped. */
#define NAME_WRAP(c) ((c)->view.wide ? (size_t)0 : (size_t)(c)->view.width / 2)

/* ---- which columns are shown ----------------------------------------------- */

/* Whether word (a --columns word) names column k: its key, or the short
 * names of the headers ("instr", "br-miss", "ipc", "misp"). */
static bool col_named(const struct pmb__col *k, const char *word, size_t len)
{
	char head[48];
	size_t h;

	if (strlen(k->key) == len && !strncmp(k->key, word, len))
		return true;
	h = strcspn(k->head, "/ ");
	snprintf(head, sizeof(head), "%.*s", (int)h, k->head);
	for (size_t i = 0; i < h; i++)
		head[i] = (char)(head[i] >= 'A' && head[i] <= 'Z' ? head[i] + 32 : head[i]);
	return h == len && !strncmp(head, word, len) && strcmp(head, "benchmark");
}

static bool listed(const struct pmb__col *k, const char *list)
{
	for (const char *p = list; *p; p += *p == ',') {
		size_t len = strcspn(p, ",");

		if (len && col_named(k, p, len))
			return true;
		p += len;
	}
	return false;
}

/* The default choice: columns by priority while they fit the width,
 * from the candidates cand[] (NULL: all). */
static void fit(const struct pmb__cols *cs, const size_t *w, size_t width, const bool *cand, bool *on)
{
	size_t total = 0;

	for (int prio = 1; prio < 100; prio++)
		for (int i = 0; i < cs->n; i++) {
			const struct pmb__col *k = &cs->k[i];
			size_t add = w[i] + (total ? 2 : 0);

			if (k->prio != prio || k->hidden || (cand && !cand[i]) || (total + add > width && prio > 1))
				continue;
			on[i] = true;
			total += add;
		}
}

static void choose(const struct pmb__coltab *m, const struct pmb__cols *cs, const size_t *w, bool *on)
{
	const struct pmb_console_view *v = &m->c->view;

	for (int i = 0; i < cs->n; i++)
		on[i] = i == 0 || v->wide || (v->columns[0] && listed(&cs->k[i], v->columns));
	if (!v->wide && !v->columns[0])
		fit(cs, w, (size_t)v->width, NULL, on);
}

/* ---- the table ---------------------------------------------------------------- */

/* A skipped or failed row: its status, marked, in the first column after
 * the name; the reason under the table. */
static void status_row(struct pmb__coltab *m, struct pmb__table *t, const struct pmb_result *x)
{
	const char *st = x->m.status == PMB_ESKIPPED ? "skipped" : "FAILED";
	char rep[16] = "";

	if (x->m.repetition)
		snprintf(rep, sizeof(rep), " #%d", x->m.repetition + 1);
	pmb__table_set(t, 1, "%s%s", st, pmb__note(&m->notes, "%s%s %s: %s", x->m.inst->name, rep, st, x->m.reason));
}

/* The table of the columns on[] and the rows keep[] (NULL: all), cells
 * afresh; their notes added to m->notes. */
static void fill(struct pmb__coltab *m, const struct pmb__cols *cs, const bool *on, struct pmb__table *t,
		 const bool *keep)
{
	int map[PMB_MAXCOLS];

	pmb__table_free(t);
	t->ncol = 0;
	for (int i = 0; i < cs->n; i++)
		if (on[i]) {
			map[t->ncol] = i;
			t->left[t->ncol] = cs->k[i].left;
			t->head[t->ncol++] = cs->k[i].head;
		}
	for (size_t r = 0; r < m->n; r++) {
		const struct pmb_result *x = &m->r[r];
		char b[256];

		if (keep && !keep[r])
			continue;
		pmb__table_add_row(t);
		for (int j = 0; j < t->ncol; j++) {
			const struct pmb__col *k = &cs->k[map[j]];

			if (x->m.status && j > 0)
				break;
			k->cell(m, k, x, b, sizeof(b));
			pmb__table_set(t, j, "%s", b);
		}
		if (x->m.status && t->ncol > 1)
			status_row(m, t, x);
	}
}

static size_t table_width(const struct pmb__table *t)
{
	size_t w[PMB_TABLE_MAXCOL], total = 0;

	pmb__table_widths(t, w);
	for (int j = 0; j < t->ncol; j++)
		total += w[j] + (j ? 2 : 0);
	return total;
}

/* Fill with every column to measure them, choose, fill with the chosen;
 * where footnote marks made it wider than the width, drop the last column
 * chosen and fill again. */
static void layout(struct pmb__coltab *m, const struct pmb__cols *cs, bool *on, struct pmb__table *t)
{
	size_t w[PMB_TABLE_MAXCOL];
	bool all[PMB_MAXCOLS];
	const struct pmb_console_view *v = &m->c->view;

	for (int i = 0; i < cs->n; i++)
		all[i] = true;
	fill(m, cs, all, t, NULL);
	pmb__table_widths(t, w);
	choose(m, cs, w, on);
	m->notes.n = 0;
	m->below = false;
	fill(m, cs, on, t, NULL);
	while (!v->wide && !v->columns[0] && table_width(t) > (size_t)v->width) {
		int last = -1;

		for (int i = 1; i < cs->n; i++)
			if (on[i] && (last < 0 || cs->k[i].prio > cs->k[last].prio))
				last = i;
		if (last < 0)
			break;
		on[last] = false;
		m->notes.n = 0;
		m->below = false;
		fill(m, cs, on, t, NULL);
	}
}

/* "a, b (why); c (why)": the hidden counters, grouped by reason. */
static void nothing_list(const struct pmb__coltab *m, const struct pmb__cols *cs, const bool *on, char *b, size_t size)
{
	const struct pmb__col *item[PMB_MAXCOLS];
	size_t len = 0;
	int ni = 0;

	for (int i = 0; i < cs->n; i++)
		if (!on[i] && cs->k[i].hidden)
			item[ni++] = &cs->k[i];
	b[0] = 0;
	for (int i = 0; i < ni && len < size; i++) {
		const char *why = pmb__col_nothing(m, item[i]);

		if (i + 1 < ni && !strcmp(why, pmb__col_nothing(m, item[i + 1])))
			len += (size_t)snprintf(b + len, size - len, "%s, ", item[i]->key);
		else
			len += (size_t)snprintf(b + len, size - len, "%s (%s)%s", item[i]->key, why,
						i + 1 < ni ? "; " : "");
	}
}

/* What the tables leave out: columns shown only on request, counters
 * that carry nothing. */
static void left_out(FILE *f, const struct pmb__coltab *m, const struct pmb__cols *cs, const bool *on)
{
	char asked[512] = "", fitless[512] = "", nothing[512], line[1600];
	size_t len = 0, flen = 0;

	for (int i = 0; i < cs->n; i++) {
		if (on[i] || cs->k[i].hidden)
			continue;
		/* With --columns, what it did not name was not asked for, not
		 * left out for the width. */
		if ((!cs->k[i].prio || m->c->view.columns[0]) && len < sizeof(asked))
			len += (size_t)snprintf(asked + len, sizeof(asked) - len, "%s%s", len ? ", " : "",
						cs->k[i].key);
		else if (flen < sizeof(fitless))
			flen += (size_t)snprintf(fitless + flen, sizeof(fitless) - flen, "%s%s", flen ? ", " : "",
						 cs->k[i].key);
	}
	if (fitless[0]) {
		snprintf(line, sizeof(line), "not shown, for the width of %d columns: %s", m->c->view.width,
			 fitless);
		pmb__wrap(f, line, 0, 2, (size_t)m->c->view.width);
	}
	nothing_list(m, cs, on, nothing, sizeof(nothing));
	if (nothing[0]) {
		snprintf(line, sizeof(line), "not shown, carrying nothing here (JSON and CSV have them): %s", nothing);
		pmb__wrap(f, line, 0, 2, (size_t)m->c->view.width);
	}
	if (asked[0] || nothing[0] || fitless[0]) {
		snprintf(line, sizeof(line), "%s%s%sshow any with --columns=LIST, all with --wide", asked[0] ?
			 "more columns: " : "", asked, asked[0] ? "; " : "");
		pmb__wrap(f, line, 0, 2, (size_t)m->c->view.width);
	}
}

static void legend(FILE *f, const struct pmb__coltab *m, const struct pmb__cols *cs, const bool *on)
{
	char line[2400] = "";
	size_t len = 0;

	for (int i = 0; i < cs->n; i++)
		if (on[i] && cs->k[i].legend[0] && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? "; " : "",
						cs->k[i].legend);
	if (m->below && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "%s<\u00a0X: below what the measurement resolves, "
			 "zero within X", len ? "; " : "");
	if (!line[0])
		return;
	fputs("legend: ", f);
	pmb__wrap(f, line, 8, 2, (size_t)m->c->view.width);
}

/* Whether a cell says nothing: empty, or "-" with at most its footnote
 * marks (superscript digits, bytes past ASCII). */
static bool cell_empty(const char *s)
{
	s += *s == '-';
	while (*s && (unsigned char)*s >= 0x80)
		s++;
	return !*s;
}

/* keep[r]: row r of t has something beside its name.  Returns how many
 * rows have not. */
static size_t rows_with_something(const struct pmb__table *t, bool *keep)
{
	size_t dropped = 0;

	for (size_t r = 0; r < t->nrow; r++) {
		keep[r] = false;
		for (int j = 1; j < t->ncol && !keep[r]; j++)
			keep[r] = !cell_empty(t->text + t->off[r * (size_t)t->ncol + (size_t)j]);
		dropped += !keep[r];
	}
	return dropped;
}

/* The columns the first table had no room for, beside the names again,
 * as many as fit, in the rows that have something in them; on[] gains
 * them. */
static int second_table(FILE *f, struct pmb__coltab *m, const struct pmb__cols *cs, bool *on)
{
	struct pmb__table t = { .wrap0 = NAME_WRAP(m->c) };
	bool more[PMB_MAXCOLS] = { false }, cand[PMB_MAXCOLS], any = false, below = m->below, *keep;
	size_t w[PMB_MAXCOLS], tw[PMB_TABLE_MAXCOL], dropped;
	int nnotes = m->notes.n, err = 0;

	for (int i = 0; i < cs->n; i++) {
		more[i] = i == 0 || (!on[i] && cs->k[i].prio && !cs->k[i].hidden);
		any |= i && more[i];
	}
	if (!any || m->c->view.wide || m->c->view.columns[0])
		return 0;
	keep = malloc((m->n + 1) * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	fill(m, cs, more, &t, NULL);
	pmb__table_widths(&t, tw);
	for (int i = 0, j = 0; i < cs->n; i++) {
		w[i] = more[i] ? tw[j++] : 0;
		cand[i] = more[i];
		more[i] = false;
	}
	fit(cs, w, (size_t)m->c->view.width, cand, more);
	/* The marks go on from the first table's; a row left out adds none. */
	m->notes.n = nnotes;
	m->below = below;
	fill(m, cs, more, &t, NULL);
	dropped = t.err ? 0 : rows_with_something(&t, keep);
	m->notes.n = nnotes;
	m->below = below;
	fill(m, cs, more, &t, dropped ? keep : NULL);
	fputc('\n', f);
	for (int i = 1; i < cs->n; i++)
		on[i] |= more[i];
	if (dropped < m->n)
		err = pmb__table_print(f, &t);
	else
		pmb__table_free(&t);
	if (dropped < m->n && dropped)
		fprintf(f, "not listed: %zu benchmark%s with nothing in these columns (only \"-\")\n", dropped,
			dropped == 1 ? "" : "s");
	else if (dropped)
		fprintf(f, "not listed: the columns left over, with nothing in any row (only \"-\")\n");
	free(keep);
	return err;
}

/* The notes under the tables: what was left out, the legend, the
 * footnotes. */
static void under(FILE *f, struct pmb__coltab *m, const struct pmb__cols *cs, const bool *on)
{
	left_out(f, m, cs, on);
	legend(f, m, cs, on);
	pmb__notes_print(f, &m->notes, (size_t)m->c->view.width);
}

int pmb__report_main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct pmb__coltab m;
	struct pmb__table t = { .wrap0 = NAME_WRAP(c) };
	struct pmb__cols cs = { .n = 0 };
	bool on[PMB_MAXCOLS] = { false };
	int err, err2;

	m = (struct pmb__coltab){ .c = c, .r = r, .n = n, .reps = c->m.repetitions > 0 ? (size_t)c->m.repetitions : 1,
			 .sim = pmb_context_sim(c), .cost = -1 };
	/* Under simulation a ratio is of the run's cost event (as
	 * pmb__cost_figure): its instructions, else its first event. */
	if (m.sim)
		m.cost = c->f.cost_event;
	pmb__cols_build(&m, &cs);
	layout(&m, &cs, on, &t);
	if (m.sim)
		fprintf(f, "per item, SIMULATED by valgrind (no time under simulation):\n");
	err = pmb__table_print(f, &t);
	err2 = second_table(f, &m, &cs, on);
	under(f, &m, &cs, on);
	return err ? err : err2;
}

int pmb__columns_check(const char *list, const struct pmb_event_plan *plan, char *err, size_t size)
{
	static const char *const fixed[] = { "name", "tier", "ns", "ci", "cycles", "ratio", "raw", "norm", "fixed", "instr",
		"br-miss", "ipc", "misp", "mean", "min", "sd", "outliers", "items", "bytes", "reps",
		"samples", "passes", "total" };
	char valid[1400];
	size_t len = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s", i ? "," : "", fixed[i]);
	for (int e = 0; e < plan->nev && len < sizeof(valid); e++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, ",%s", plan->ev[e].name);
	for (int d = 0; d < plan->nder && len < sizeof(valid); d++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, ",%s", plan->der[d].name);
	for (const char *p = list; *p; p += *p == ',') {
		size_t k = strcspn(p, ",");
		bool found = false;

		for (const char *q = valid; *q && !found; q += *q == ',') {
			size_t m = strcspn(q, ",");

			found = k && m == k && !strncmp(p, q, k);
			q += m;
		}
		if (k && !found) {
			snprintf(err, size, "--columns=%s: no column '%.*s'; expected a comma-separated list of: %s",
				 list, (int)k, p, valid);
			return -EINVAL;
		}
		p += k;
	}
	return 0;
}
