/* report_cols.c - the console's main table as a list of column descriptors (header with its unit, legend, when shown, cell), chosen to fit the terminal. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report_cols.h"
#include "report_fmt.h"

/* The table being drawn: what every cell writer reads, and the footnotes
 * they add. */
struct mt {
	const struct pmb_context *c;
	const struct pmb_result *r;
	size_t n, reps;
	bool sim;
	int cost;      /* the figure a ratio is of: -1 time, else the event (sim) */
	bool below;    /* some cell shows "< X" */
	struct pmb__notes notes;
};

struct col;
typedef void cell_fn(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n);

/* One column.  prio: the order in which the default table takes columns
 * while they fit (1 first); 0: only on --wide or when --columns names it.
 * hidden: carries nothing in this run (a counter nobody asked for, at zero
 * everywhere): in JSON and CSV, in the console only on request. */
struct col {
	char key[64];      /* the --columns word */
	char head[48];     /* the header, with its unit */
	char legend[240];  /* "" none */
	int prio, arg;     /* arg: event or derived index, -1 none */
	bool left, hidden;
	cell_fn *cell;
};

#define MAXCOLS PMB_TABLE_MAXCOL

struct cols {
	struct col k[MAXCOLS];
	int n;
};

static struct col *col_add(struct cols *cs, const char *key, const char *head, int prio, cell_fn *cell)
{
	struct col *k;

	if (cs->n == MAXCOLS)
		return NULL;
	k = &cs->k[cs->n++];
	*k = (struct col){ .prio = prio, .arg = -1, .cell = cell };
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->head, sizeof(k->head), "%s", head);
	return k;
}

/* ---- cells ---------------------------------------------------------------- */

/* "-" or "n/a" with the mark of its reason. */
static void blank(struct mt *m, char *b, size_t n, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void blank(struct mt *m, char *b, size_t n, const char *what, const char *fmt, ...)
{
	char why[sizeof(m->notes.text[0])];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(b, n, "%s%s", what, pmb__note(&m->notes, "%s", why));
}

/* A per-item figure: its median, "< X" below resolution, or a marked
 * blank; what names it in a reason. */
static void figure_cell(struct mt *m, const struct pmb_figure *fg, const char *what, char *b, size_t n)
{
	char v[32];

	if (fg->multiplexed == -1) {
		blank(m, b, n, "-", "never ran: its counter group was never scheduled");
		return;
	}
	if (!fg->valid) {
		blank(m, b, n, "-", "not measured");
		return;
	}
	if (fg->below_resolution) {
		m->below = true;
		snprintf(b, n, "< %.1g", fg->resolution);
		return;
	}
	pmb__fmt_num(v, sizeof(v), fg->s.median);
	if (fg->multiplexed == 1)
		snprintf(b, n, "%s%s", v, pmb__note(&m->notes, "%s multiplexed: scaled by the time its "
						    "counter ran, an estimate", what));
	else
		snprintf(b, n, "%s", v);
}

static void cell_name(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)m, (void)k;
	if (x->repetition)
		snprintf(b, n, "%s #%d", x->inst->name, x->repetition + 1);
	else
		snprintf(b, n, "%s", x->inst->name);
}

static void cell_tier(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)m, (void)k;
	snprintf(b, n, "%s", x->inst->tier);
}

static void cell_ns(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	figure_cell(m, &x->time, "ns/item", b, n);
}

static void cell_ci(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_figure *t = &x->time;

	(void)k;
	if (!t->valid || t->below_resolution) {
		blank(m, b, n, "-", "±%%: no interval around a figure below resolution");
		return;
	}
	if (!isfinite(t->s.ci_lo) || t->s.median <= 0) {
		blank(m, b, n, "-", "±%%: fewer than 3 samples, no interval");
		return;
	}
	snprintf(b, n, "%.1f", (t->s.ci_hi - t->s.ci_lo) / 2 / t->s.median * 100);
}

static void cell_est(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	figure_cell(m, &x->est_cycles, "est.cyc/item", b, n);
}

static void cell_event(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_context *c = m->c;

	if (c->event_group[k->arg] < 0) {
		blank(m, b, n, "n/a", "%s not counted: %s", c->plan.ev[k->arg].name,
		      c->event_why[k->arg][0] ? c->event_why[k->arg] : "no reason given");
		return;
	}
	figure_cell(m, &x->ev[k->arg], c->plan.ev[k->arg].name, b, n);
}

/* Derived figures named *_ratio print in %, the others as they are. */
static bool derived_pct(const struct pmb_derived *d)
{
	size_t len = strlen(d->name);

	return len > 6 && !strcmp(d->name + len - 6, "_ratio");
}

static void cell_derived(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_derived *d = &m->c->plan.der[k->arg];
	double v = x->derived[k->arg];

	if (!isfinite(v) || v < 0) {
		blank(m, b, n, "-", "%s: not computable: its operands are not both resolved", k->head);
		return;
	}
	pmb__fmt_num(b, n, derived_pct(d) ? v * 100 : v);
}

static void cell_norm(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	if (x->inst->baseline < 0) {
		blank(m, b, n, "-", "norm: no .baseline for this benchmark");
		return;
	}
	if (!isfinite(x->time.normalized)) {
		blank(m, b, n, "-", "norm: the baseline was not measured");
		return;
	}
	pmb__fmt_num(b, n, x->time.normalized);
}

/* The reference's name as seen from x's: the path components they share
 * left out ("branchy/p5" beside "branch/filter/branchless/p5"). */
static const char *short_name(const char *ref, const char *name)
{
	const char *cut = ref;

	for (size_t i = 0; ref[i] && ref[i] == name[i]; i++)
		if (ref[i] == '/')
			cut = ref + i + 1;
	return cut;
}

/* Whether instance `idx` is some benchmark's reference. */
static bool is_reference(const struct mt *m, size_t idx)
{
	for (size_t j = 0; j < m->n; j++)
		if (m->r[j].inst->reference >= 0 && (size_t)m->r[j].inst->reference == idx)
			return true;
	return false;
}

static const struct pmb_figure *cost_of(const struct mt *m, const struct pmb_result *x)
{
	return m->cost < 0 ? &x->time : &x->ev[m->cost];
}

/* Why a ratio is not printed: the reference did not run, its figure is
 * not resolved, or the ratio's interval reaches zero. */
static void no_ratio(struct mt *m, const struct pmb_result *ref, char *b, size_t n)
{
	const struct pmb_figure *g = cost_of(m, ref);
	const char *what = m->cost < 0 ? "ns/item" : m->c->plan.ev[m->cost].name;

	if (ref->status) {
		blank(m, b, n, "n/a", "ratio×: its reference was skipped or failed");
		return;
	}
	if (!g->valid || g->below_resolution || g->s.median <= g->resolution) {
		blank(m, b, n, "n/a", "ratio×: its reference's %s is below resolution: a ratio over "
			     "it could be any number", what);
		return;
	}
	blank(m, b, n, "n/a", "ratio×: its 95 %% interval reaches zero: not resolved");
}

static void cell_ratio(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	size_t idx = (size_t)(x - m->r) / m->reps, ri;
	const struct pmb_figure *f = cost_of(m, x);
	char v[48];

	(void)k;
	if (x->inst->reference < 0) {
		if (is_reference(m, idx))
			snprintf(b, n, "1.00 (reference)");
		else
			blank(m, b, n, "-", "ratio×: no .reference for this benchmark");
		return;
	}
	ri = (size_t)x->inst->reference * m->reps + (size_t)x->repetition;
	if (ri >= m->n) {
		blank(m, b, n, "-", "ratio×: its reference was not run");
		return;
	}
	if (!isfinite(f->ratio)) {
		no_ratio(m, &m->r[ri], b, n);
		return;
	}
	if (isfinite(f->ratio_lo) && (fabs(f->ratio_hi - f->ratio_lo) >= 0.005))
		snprintf(v, sizeof(v), "%.2f [%.2f, %.2f]", f->ratio, f->ratio_lo, f->ratio_hi);
	else
		snprintf(v, sizeof(v), "%.2f", f->ratio);
	snprintf(b, n, "%s of %s", v, short_name(m->r[ri].inst->name, x->inst->name));
}

/* The rest: on --wide or --columns only. */
static void cell_stat(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_summary *s = &x->time.s;
	double v = k->arg == 0 ? s->mean : k->arg == 1 ? s->min : s->stddev;

	if (!x->time.valid) {
		blank(m, b, n, "-", "not measured");
		return;
	}
	if (x->time.below_resolution && k->arg != 2) {
		m->below = true;
		snprintf(b, n, "< %.1g", x->time.resolution);
		return;
	}
	pmb__fmt_num(b, n, v);
}

static void cell_outliers(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_tukey *t = &x->time.s.tukey;

	(void)m, (void)k;
	snprintf(b, n, "%d/%d", t->mild_low + t->mild_high, t->severe_low + t->severe_high);
}

static void cell_rate(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	double v = k->arg == 0 ? x->items_per_second : x->bytes_per_second;

	if (!isfinite(v) || (k->arg == 1 && !x->bytes_per_pass)) {
		blank(m, b, n, "-", k->arg ? "bytes/s: the benchmark gives no bytes per pass"
					      : "items/s: time below resolution");
		return;
	}
	pmb__fmt_num(b, n, v);
}

static void cell_reps(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	if (!isfinite(x->rep_spread)) {
		blank(m, b, n, "-", "rep.spread: one repetition (--repetitions)");
		return;
	}
	snprintf(b, n, "%.1f", x->rep_spread * 100);
}

/* Samples, passes over all of them, and the time they took. */
static void cell_count(struct mt *m, const struct col *k, const struct pmb_result *x, char *b, size_t n)
{
	uint64_t passes = 0, ns = 0;

	(void)m;
	for (size_t q = 0; q < x->nsamples; q++)
		passes += x->samples[q].passes, ns += x->samples[q].ns;
	if (k->arg == 0)
		snprintf(b, n, "%zu", x->nsamples);
	else if (k->arg == 1 && passes < 10000)
		snprintf(b, n, "%llu", (unsigned long long)passes);
	else if (k->arg == 1)
		pmb__fmt_num(b, n, (double)passes);
	else
		snprintf(b, n, "%.3f", (double)ns / 1e9);
}

/* ---- which columns there are ---------------------------------------------- */

/* Why event e, which nobody asked for, carries nothing in this run; NULL
 * where it carries something (or was asked for: --counters). */
static const char *event_nothing(const struct mt *m, int e)
{
	const struct pmb_context *c = m->c;

	if (c->view.counters_given || c->event_group[e] < 0)
		return NULL;
	if (strstr(c->plan.ev[e].encoding, "TASK_CLOCK"))
		return "repeats ns/item";
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_figure *fg = &m->r[i].ev[e];

		if (!m->r[i].status && fg->valid && !fg->below_resolution && fg->s.median != 0)
			return NULL;
	}
	return "zero or below resolution in every row";
}

static void event_col(struct mt *m, struct cols *cs, int e)
{
	const struct pmb_event *ev = &m->c->plan.ev[e];
	bool misses = ev->means == PMB_MEANS_BRANCH_MISSES || !strcmp(ev->name, "cond-branch-misses");
	struct col *k;
	char head[48];

	if (m->c->event_group[e] < 0 && !pmb_context_absent_shown(m->c, e))
		return;
	snprintf(head, sizeof(head), "%.30s/item", ev->means == PMB_MEANS_INSTRUCTIONS ? "instr" :
		 misses ? "br-miss" : ev->name);
	k = col_add(cs, ev->name, head, ev->means == PMB_MEANS_CYCLES ? 5 :
		    ev->means == PMB_MEANS_INSTRUCTIONS ? 7 : misses ? 9 : 20 + e, cell_event);
	if (!k)
		return;
	k->arg = e;
	k->hidden = event_nothing(m, e) != NULL;
	if (ev->means == PMB_MEANS_INSTRUCTIONS)
		snprintf(k->legend, sizeof(k->legend), "instr: instructions retired");
	else if (misses)
		snprintf(k->legend, sizeof(k->legend), "br-miss: %s (mispredicted branches)", ev->name);
}

static void derived_col(struct mt *m, struct cols *cs, int d)
{
	const struct pmb_derived *der = &m->c->plan.der[d];
	const struct pmb_event *ev = m->c->plan.ev;
	bool any = false, nonzero = false, ipc = !strcmp(der->name, "ipc");
	bool misp = strstr(der->name, "mispredict_ratio") != NULL;
	struct col *k;
	char head[48];

	for (size_t i = 0; i < m->n; i++) {
		double v = m->r[i].derived[d];

		any |= !m->r[i].status && isfinite(v) && v >= 0;
		nonzero |= !m->r[i].status && isfinite(v) && v > 0;
	}
	if (!any)
		return;
	if (misp)
		snprintf(head, sizeof(head), "misp %%");
	else if (derived_pct(der))
		snprintf(head, sizeof(head), "%.*s %%", (int)strlen(der->name) - 6, der->name);
	else
		snprintf(head, sizeof(head), "%s", ipc ? "IPC" : der->name);
	k = col_add(cs, der->name, head, ipc ? 8 : misp ? 10 : 40 + d, cell_derived);
	if (!k)
		return;
	k->arg = d;
	k->hidden = !nonzero && !m->c->view.counters_given;
	snprintf(k->legend, sizeof(k->legend), "%s: %s per %s%s%s", head, ev[der->num].name,
		 der->scale == 1000 ? "1000 " : "", der->den < 0 ? "item" : ev[der->den].name,
		 derived_pct(der) ? ", in %" : "");
}

/* Time and what is computed from it, the ratio, and the columns only
 * --wide or --columns show, in the order the table prints them. */
static void time_cols(struct mt *m, struct cols *cs)
{
	struct col *k;

	if (m->sim)
		return;
	k = col_add(cs, "ns", "ns/item", 3, cell_ns);
	snprintf(k->legend, sizeof(k->legend), "ns/item: median time per item, the harness overhead "
		 "subtracted");
	k = col_add(cs, "ci", "±%", 4, cell_ci);
	snprintf(k->legend, sizeof(k->legend), "±%%: half the 95 %% bootstrap interval of the median, "
		 "in %% of it");
	if (m->c->has_cycles)
		return;
	k = col_add(cs, "cycles", "est.cyc/item", 5, cell_est);
	snprintf(k->legend, sizeof(k->legend), "est.cyc: cycles ESTIMATED as ns/item × %.2f GHz "
		 "(no cycles counter)", m->c->ghz);
}

static bool any_of(const struct mt *m, int what)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_result *x = &m->r[i];

		if (what == 0 ? x->inst->reference >= 0 : what == 1 ? x->inst->baseline >= 0 :
		    what == 2 ? x->inst->tier[0] != 0 : what == 3 ? x->bytes_per_pass > 0 : x->repetition > 0)
			return true;
	}
	return false;
}

static void link_cols(struct mt *m, struct cols *cs)
{
	struct col *k;

	if (!m->sim && any_of(m, 1)) {
		k = col_add(cs, "norm", "norm ns/item", 11, cell_norm);
		if (k)
			snprintf(k->legend, sizeof(k->legend), "norm: ns/item less its .baseline's");
	}
	if (!any_of(m, 0))
		return;
	k = col_add(cs, "ratio", "ratio×", 6, cell_ratio);
	if (k)
		snprintf(k->legend, sizeof(k->legend), "ratio×: %s over that of the benchmark named after "
			 "\"of\" (its .reference), 95 %% interval in brackets", m->sim ? "instr/item "
			 "(SIMULATED: no time)" : "ns/item");
}

static void extra_cols(struct mt *m, struct cols *cs)
{
	static const struct { const char *key, *head, *legend; cell_fn *cell; int arg; bool time; } x[] = {
		{ "mean", "mean ns", "mean ns: mean ns/item", cell_stat, 0, true },
		{ "min", "min ns", "min ns: fastest sample's ns/item", cell_stat, 1, true },
		{ "sd", "sd ns", "sd: standard deviation of ns/item", cell_stat, 2, true },
		{ "outliers", "outliers", "outliers: mild/severe (Tukey fences)", cell_outliers, 0, true },
		{ "items", "items/s", "", cell_rate, 0, true },
		{ "bytes", "bytes/s", "", cell_rate, 1, true },
		{ "reps", "rep.spread %", "rep.spread: (max - min) / median of the repetitions' medians",
		  cell_reps, 0, false },
		{ "samples", "samples", "", cell_count, 0, false },
		{ "passes", "passes", "passes: of the loop, over all samples", cell_count, 1, false },
		{ "total", "total s", "total s: what its samples took", cell_count, 2, false },
	};

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		struct col *k;

		if ((x[i].time && m->sim) || (x[i].arg == 1 && x[i].cell == cell_rate && !any_of(m, 3)) ||
		    (x[i].cell == cell_reps && !any_of(m, 4)) || (x[i].arg == 2 && x[i].cell == cell_count && m->sim))
			continue;
		k = col_add(cs, x[i].key, x[i].head, 0, x[i].cell);
		if (!k)
			return;
		k->arg = x[i].arg;
		snprintf(k->legend, sizeof(k->legend), "%s", x[i].legend);
	}
}

static void build_cols(struct mt *m, struct cols *cs)
{
	struct col *k = col_add(cs, "name", "benchmark", 1, cell_name);

	k->left = true;
	if (any_of(m, 2)) {
		k = col_add(cs, "tier", "tier", 2, cell_tier);
		k->left = true;
	}
	time_cols(m, cs);
	for (int e = 0; e < m->c->plan.nev; e++)
		event_col(m, cs, e);
	for (int d = 0; d < m->c->plan.nder; d++)
		derived_col(m, cs, d);
	link_cols(m, cs);
	extra_cols(m, cs);
}

/* ---- which columns are shown ----------------------------------------------- */

/* Whether word (a --columns word) names column k: its key, or the short
 * names of the headers ("instr", "br-miss", "ipc", "misp"). */
static bool col_named(const struct col *k, const char *word, size_t len)
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

static bool listed(const struct col *k, const char *list)
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
static void fit(const struct cols *cs, const size_t *w, size_t width, const bool *cand, bool *on)
{
	size_t total = 0;

	for (int prio = 1; prio < 100; prio++)
		for (int i = 0; i < cs->n; i++) {
			const struct col *k = &cs->k[i];
			size_t add = w[i] + (total ? 2 : 0);

			if (k->prio != prio || k->hidden || (cand && !cand[i]) || (total + add > width && prio > 1))
				continue;
			on[i] = true;
			total += add;
		}
}

static void choose(const struct mt *m, const struct cols *cs, const size_t *w, bool *on)
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
static void status_row(struct mt *m, struct pmb__table *t, const struct pmb_result *x)
{
	const char *st = x->status == PMB_ESKIPPED ? "skipped" : "FAILED";
	char rep[16] = "";

	if (x->repetition)
		snprintf(rep, sizeof(rep), " #%d", x->repetition + 1);
	pmb__table_set(t, 1, "%s%s", st, pmb__note(&m->notes, "%s%s %s: %s", x->inst->name, rep, st, x->reason));
}

/* The table of the columns on[], cells afresh; their notes added to
 * m->notes. */
static void fill(struct mt *m, const struct cols *cs, const bool *on, struct pmb__table *t)
{
	int map[MAXCOLS];

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

		pmb__table_add_row(t);
		for (int j = 0; j < t->ncol; j++) {
			const struct col *k = &cs->k[map[j]];

			if (x->status && j > 0)
				break;
			k->cell(m, k, x, b, sizeof(b));
			pmb__table_set(t, j, "%s", b);
		}
		if (x->status && t->ncol > 1)
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
static void layout(struct mt *m, const struct cols *cs, bool *on, struct pmb__table *t)
{
	size_t w[PMB_TABLE_MAXCOL];
	bool all[MAXCOLS];
	const struct pmb_console_view *v = &m->c->view;

	for (int i = 0; i < cs->n; i++)
		all[i] = true;
	fill(m, cs, all, t);
	pmb__table_widths(t, w);
	choose(m, cs, w, on);
	m->notes.n = 0;
	m->below = false;
	fill(m, cs, on, t);
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
		fill(m, cs, on, t);
	}
}

static const char *nothing_why(const struct mt *m, const struct col *k)
{
	return k->cell == cell_event ? event_nothing(m, k->arg) : "zero in every row";
}

/* "a, b (why); c (why)": the hidden counters, grouped by reason. */
static void nothing_list(const struct mt *m, const struct cols *cs, const bool *on, char *b, size_t size)
{
	const struct col *item[MAXCOLS];
	size_t len = 0;
	int ni = 0;

	for (int i = 0; i < cs->n; i++)
		if (!on[i] && cs->k[i].hidden)
			item[ni++] = &cs->k[i];
	b[0] = 0;
	for (int i = 0; i < ni && len < size; i++) {
		const char *why = nothing_why(m, item[i]);

		if (i + 1 < ni && !strcmp(why, nothing_why(m, item[i + 1])))
			len += (size_t)snprintf(b + len, size - len, "%s, ", item[i]->key);
		else
			len += (size_t)snprintf(b + len, size - len, "%s (%s)%s", item[i]->key, why,
						i + 1 < ni ? "; " : "");
	}
}

/* What the tables leave out: columns shown only on request, counters
 * that carry nothing. */
static void left_out(FILE *f, const struct mt *m, const struct cols *cs, const bool *on)
{
	char asked[512] = "", fitless[512] = "", nothing[512], line[1600];
	size_t len = 0, flen = 0;

	for (int i = 0; i < cs->n; i++) {
		if (on[i] || cs->k[i].hidden)
			continue;
		if (!cs->k[i].prio && len < sizeof(asked))
			len += (size_t)snprintf(asked + len, sizeof(asked) - len, "%s%s", len ? ", " : "",
						cs->k[i].key);
		else if (cs->k[i].prio && flen < sizeof(fitless))
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

static void legend(FILE *f, const struct mt *m, const struct cols *cs, const bool *on)
{
	char line[2400] = "";
	size_t len = 0;

	for (int i = 0; i < cs->n; i++)
		if (on[i] && cs->k[i].legend[0] && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? "; " : "",
						cs->k[i].legend);
	if (m->below && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "%s< X: below what the measurement resolves, "
			 "zero within X", len ? "; " : "");
	if (!line[0])
		return;
	fputs("legend: ", f);
	pmb__wrap(f, line, 8, 2, (size_t)m->c->view.width);
}

/* The columns the first table had no room for, beside the names again,
 * as many as fit; on[] gains them. */
static int second_table(FILE *f, struct mt *m, const struct cols *cs, bool *on)
{
	struct pmb__table t = { 0 };
	bool more[MAXCOLS] = { false }, cand[MAXCOLS], any = false, below = m->below;
	size_t w[MAXCOLS], tw[PMB_TABLE_MAXCOL];
	int nnotes = m->notes.n;

	for (int i = 0; i < cs->n; i++) {
		more[i] = i == 0 || (!on[i] && cs->k[i].prio && !cs->k[i].hidden);
		any |= i && more[i];
	}
	if (!any || m->c->view.wide || m->c->view.columns[0])
		return 0;
	fill(m, cs, more, &t);
	pmb__table_widths(&t, tw);
	for (int i = 0, j = 0; i < cs->n; i++) {
		w[i] = more[i] ? tw[j++] : 0;
		cand[i] = more[i];
		more[i] = false;
	}
	fit(cs, w, (size_t)m->c->view.width, cand, more);
	/* The marks go on from the first table's. */
	m->notes.n = nnotes;
	m->below = below;
	fill(m, cs, more, &t);
	fputc('\n', f);
	for (int i = 1; i < cs->n; i++)
		on[i] |= more[i];
	return pmb__table_print(f, &t);
}

/* The notes under the tables: what was left out, the legend, the
 * footnotes. */
static void under(FILE *f, struct mt *m, const struct cols *cs, const bool *on)
{
	left_out(f, m, cs, on);
	legend(f, m, cs, on);
	pmb__notes_print(f, &m->notes, (size_t)m->c->view.width);
}

int pmb__report_main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct mt m;
	struct pmb__table t = { 0 };
	struct cols cs = { .n = 0 };
	bool on[MAXCOLS] = { false };
	int err, err2;

	m = (struct mt){ .c = c, .r = r, .n = n, .reps = c->repetitions > 0 ? (size_t)c->repetitions : 1,
			 .sim = pmb_context_sim(c), .cost = -1 };
	if (m.sim)
		m.cost = pmb__context_event(c, "instructions");
	build_cols(&m, &cs);
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
	static const char *const fixed[] = { "name", "tier", "ns", "ci", "cycles", "ratio", "norm", "instr",
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
