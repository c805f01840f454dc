/* report_cols.c - the console's main table as a list of column descriptors (header with its unit, legend, when shown, cell), chosen to fit the terminal. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "report_cols.h"
#include "report_cols_internal.h"
#include "report.h"

static struct pmb__col *col_add(struct pmb__cols *cs, const char *key, const char *head, int prio, pmb__cell_fn *cell)
{
	struct pmb__col *k;

	if (cs->n == PMB_MAXCOLS)
		return NULL;
	k = &cs->k[cs->n++];
	*k = (struct pmb__col){ .prio = prio, .arg = -1, .cell = cell };
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->head, sizeof(k->head), "%s", head);
	return k;
}

/* ---- cells ---------------------------------------------------------------- */

/* "-" or "n/a" with the mark of its reason. */
static void blank(struct pmb__coltab *m, char *b, size_t n, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void blank(struct pmb__coltab *m, char *b, size_t n, const char *what, const char *fmt, ...)
{
	char why[sizeof(m->notes.text[0])];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(b, n, "%s%s", what, pmb__note(&m->notes, "%s", why));
}

/* "< X" for a figure below resolution X: one digit under 1 ("< 6e-05"),
 * three above ("< 20"). */
static void bound(char *b, size_t n, double x)
{
	snprintf(b, n, x < 1 ? "< %.1g" : "< %.3g", x);
}

/* A per-item figure: its median, "< X" below resolution, or a marked
 * blank; what names it in a reason. */
static void figure_cell(struct pmb__coltab *m, const struct pmb_figure *fg, const char *what, char *b, size_t n)
{
	char v[32];

	if (fg->multiplexed == -1) {
		blank(m, b, n, "-", "never ran: its counter group was never scheduled (another user of the "
		      "PMU held its counters)");
		return;
	}
	if (!fg->valid) {
		blank(m, b, n, "-", "not measured");
		return;
	}
	if (fg->below_resolution) {
		m->below = true;
		bound(b, n, fg->resolution);
		return;
	}
	pmb__fmt_num(v, sizeof(v), fg->s.median);
	if (fg->multiplexed == 1)
		snprintf(b, n, "%s%s", v, pmb__note(&m->notes, "%s multiplexed: scaled by the time its "
						    "counter ran, an estimate", what));
	else
		snprintf(b, n, "%s", v);
}

static void cell_name(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)m, (void)k;
	if (x->m.repetition)
		snprintf(b, n, "%s #%d", x->m.inst->name, x->m.repetition + 1);
	else
		snprintf(b, n, "%s", x->m.inst->name);
}

static void cell_tier(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)m, (void)k;
	snprintf(b, n, "%s", x->m.inst->tier);
}

static void cell_ns(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	figure_cell(m, &x->f.time, "ns/item", b, n);
}

static void cell_ci(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_figure *t = &x->f.time;

	(void)k;
	if (!t->valid || t->below_resolution) {
		blank(m, b, n, "-", "±%%: no interval around a figure below resolution");
		return;
	}
	if (!isfinite(t->s.ci_lo) || t->s.median <= 0) {
		blank(m, b, n, "-", "±%%: fewer than 3 samples, no interval");
		return;
	}
	snprintf(b, n, "%.1f", pmb_figure_error(t) * 100);
}

static void cell_est(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	figure_cell(m, &x->f.est_cycles, "est.cyc/item", b, n);
}

static void cell_event(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_context *c = m->c;

	if (c->m.event_group[k->arg] < 0) {
		blank(m, b, n, "n/a", "%s not counted: %s", c->m.plan.ev[k->arg].name,
		      c->m.event_why[k->arg][0] ? c->m.event_why[k->arg] : "no reason given");
		return;
	}
	figure_cell(m, &x->f.ev[k->arg], c->m.plan.ev[k->arg].name, b, n);
}

/* Derived figures named *_ratio print in %, the others as they are. */
static bool derived_pct(const struct pmb_derived *d)
{
	size_t len = strlen(d->name);

	return len > 6 && !strcmp(d->name + len - 6, "_ratio");
}

static void cell_derived(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_derived *d = &m->c->m.plan.der[k->arg];
	double v = x->f.derived[k->arg];
	double scale = d->scale * (derived_pct(d) ? 100 : 1);

	switch (x->f.derived_given[k->arg]) {
	case PMB_DERIVED_NONE:
		blank(m, b, n, "-", "%s: not computable: its operands are not both resolved", k->head);
		return;
	case PMB_DERIVED_DEN_LOW:
		blank(m, b, n, "-", "%s: its denominator (%s) is below resolution", k->head,
		      m->c->m.plan.ev[d->den].name);
		return;
	case PMB_DERIVED_BOUND:
		/* The bound, not the noise under it. */
		m->below = true;
		bound(b, n, x->f.derived_bound[k->arg] * (derived_pct(d) ? 100 : 1));
		return;
	case PMB_DERIVED_VALUE:
		break;
	}
	pmb__fmt_num(b, n, v * scale / d->scale);
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
static bool is_reference(const struct pmb__coltab *m, size_t idx)
{
	for (size_t j = 0; j < m->n; j++)
		if (m->r[j].m.inst->reference >= 0 && (size_t)m->r[j].m.inst->reference == idx)
			return true;
	return false;
}

static const struct pmb_figure *cost_of(const struct pmb__coltab *m, const struct pmb_result *x)
{
	return pmb__result_figure(x, m->cost);
}

/* "v [lo, hi]" of a figure linked to another (normalized, a ratio), in
 * the unit of the figure it is of; "v" where the interval is a point. */
static void linked_cell(char *b, size_t n, double v, double lo, double hi, const char *fmt)
{
	char x[3][24];
	double f[3] = { v, lo, hi };

	for (int k = 0; k < 3; k++)
		if (fmt)
			snprintf(x[k], sizeof(x[k]), fmt, f[k]);
		else
			pmb__fmt_num(x[k], sizeof(x[k]), f[k]);
	if (isfinite(lo) && isfinite(hi) && strcmp(x[1], x[2]))
		snprintf(b, n, "%s [%s, %s]", x[0], x[1], x[2]);
	else
		snprintf(b, n, "%s", x[0]);
}

static void cell_norm(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_figure *f = cost_of(m, x);

	(void)k;
	if (f->normalized_why && !strcmp(f->normalized_why, PMB_WHY_IS_BASE)) {
		snprintf(b, n, "(baseline)");
		return;
	}
	if (x->m.inst->baseline < 0) {
		blank(m, b, n, "-", "norm: no .baseline for this benchmark");
		return;
	}
	if (!isfinite(f->normalized)) {
		blank(m, b, n, "n/a", "norm: %s", f->normalized_why ? f->normalized_why : PMB_WHY_BASE_MISSING);
		return;
	}
	/* Simulated counts are exact: no interval (issue 26). */
	linked_cell(b, n, f->normalized, m->sim ? NAN : f->normalized_lo, f->normalized_hi, NULL);
}

/* The raw ratio beside a ratio of normalized figures. */
static void cell_raw(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_figure *f = cost_of(m, x);

	(void)k;
	if (x->m.inst->reference < 0 && !isfinite(f->raw_ratio)) {
		blank(m, b, n, "-", "raw×: no .reference for this benchmark");
		return;
	}
	if (!isfinite(f->raw_ratio)) {
		blank(m, b, n, "n/a", "raw×: %s", f->raw_ratio_why ? f->raw_ratio_why : PMB_WHY_REF_MISSING);
		return;
	}
	linked_cell(b, n, f->raw_ratio, m->sim ? NAN : f->raw_ratio_lo, f->raw_ratio_hi, "%.2f");
}

/* The fixed cost per sample wherever it is resolved (flagged or not: the
 * column shows by default only when one is flagged, but a resolved 50 us
 * read "-" when asked for with --columns=fixed). */
static void cell_fixed(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_figure *f = cost_of(m, x);

	(void)k;
	if (!(f->fixed > 0)) {
		blank(m, b, n, "-", "fixed/sample: none resolved (its interval reaches 0, or it is under 10 "
		      "steps of the %s)", m->sim ? "counter" : "clock");
		return;
	}
	if (m->sim)
		linked_cell(b, n, f->fixed, f->fixed_lo, f->fixed_hi, NULL);
	else
		linked_cell(b, n, f->fixed * 1e-3, f->fixed_lo * 1e-3, f->fixed_hi * 1e-3, "%.4g");
}

/* Why a ratio is not printed: the reference did not run, its figure is
 * not resolved, or the ratio's interval reaches zero. */
static void no_ratio(struct pmb__coltab *m, const struct pmb_result *ref, char *b, size_t n)
{
	const struct pmb_figure *g = cost_of(m, ref);
	const char *what = m->cost < 0 ? "ns/item" : m->c->m.plan.ev[m->cost].name;

	if (ref->m.status) {
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

static void cell_ratio(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	size_t idx = (size_t)(x - m->r) / m->reps, ri;
	const struct pmb_figure *f = cost_of(m, x);
	char v[48];

	(void)k;
	if (x->m.inst->reference < 0) {
		if (is_reference(m, idx))
			snprintf(b, n, "1.00 (reference)");
		else
			blank(m, b, n, "-", "ratio×: no .reference for this benchmark");
		return;
	}
	ri = (size_t)x->m.inst->reference * m->reps + (size_t)x->m.repetition;
	if (ri >= m->n) {
		blank(m, b, n, "-", "ratio×: its reference was not run");
		return;
	}
	if (!isfinite(f->ratio) && f->ratio_why) {
		blank(m, b, n, "n/a", "ratio×: %s", f->ratio_why);
		return;
	}
	if (!isfinite(f->ratio)) {
		no_ratio(m, &m->r[ri], b, n);
		return;
	}
	/* Simulated counts are exact, a ratio of them too: no interval. */
	if (!m->sim && isfinite(f->ratio_lo) && (fabs(f->ratio_hi - f->ratio_lo) >= 0.005))
		snprintf(v, sizeof(v), "%.2f [%.2f, %.2f]", f->ratio, f->ratio_lo, f->ratio_hi);
	else
		snprintf(v, sizeof(v), "%.2f", f->ratio);
	snprintf(b, n, "%s of %s", v, short_name(m->r[ri].m.inst->name, x->m.inst->name));
}

/* The rest: on --wide or --columns only. */
static void cell_stat(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_summary *s = &x->f.time.s;
	double v = k->arg == 0 ? s->mean : k->arg == 1 ? s->min : s->stddev;

	if (!x->f.time.valid) {
		blank(m, b, n, "-", "not measured");
		return;
	}
	if (x->f.time.below_resolution && k->arg != 2) {
		m->below = true;
		bound(b, n, x->f.time.resolution);
		return;
	}
	pmb__fmt_num(b, n, v);
}

static void cell_outliers(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	const struct pmb_tukey *t = &x->f.time.s.tukey;

	(void)m, (void)k;
	snprintf(b, n, "%d/%d", t->mild_low + t->mild_high, t->severe_low + t->severe_high);
}

static void cell_rate(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	double v = k->arg == 0 ? x->f.items_per_second : x->f.bytes_per_second;

	if (!isfinite(v) || (k->arg == 1 && !x->m.bytes_per_pass)) {
		blank(m, b, n, "-", k->arg ? "bytes/s: the benchmark gives no bytes per pass"
					      : "items/s: time below resolution");
		return;
	}
	pmb__fmt_num(b, n, v);
}

static void cell_reps(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	(void)k;
	if (!isfinite(x->f.rep_spread)) {
		blank(m, b, n, "-", "rep.spread: one repetition (--repetitions)");
		return;
	}
	snprintf(b, n, "%.1f", x->f.rep_spread * 100);
}

/* Samples, passes over all of them, and the time they took. */
static void cell_count(struct pmb__coltab *m, const struct pmb__col *k, const struct pmb_result *x, char *b, size_t n)
{
	uint64_t passes = x->f.passes, ns = x->f.ns;

	(void)m;
	if (k->arg == 0)
		snprintf(b, n, "%zu", x->m.nsamples);
	else if (k->arg == 1 && passes < 10000)
		snprintf(b, n, "%llu", (unsigned long long)passes);
	else if (k->arg == 1)
		pmb__fmt_num(b, n, (double)passes);
	else
		snprintf(b, n, "%.3f", (double)ns / 1e9);
}

/* ---- which columns there are ---------------------------------------------- */

/* Whether task-clock (event e) says nothing ns/item does not: in every
 * row, ns/item within task-clock's interval.  Where the task was off the
 * CPU (0.72 task-clock against 1.82 ns/item, issue 26) it is shown. */
static bool task_clock_repeats(const struct pmb__coltab *m, int e)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_figure *tc = &m->r[i].f.ev[e], *t = &m->r[i].f.time;

		if (m->r[i].m.status || !tc->valid || !t->valid)
			continue;
		if (t->s.median < tc->s.ci_lo || t->s.median > tc->s.ci_hi)
			return false;
	}
	return true;
}

/* Why event e, which nobody asked for, carries nothing in this run; NULL
 * where it carries something (or was asked for: --counters). */
static const char *event_nothing(const struct pmb__coltab *m, int e)
{
	const struct pmb_context *c = m->c;

	if (c->m.counters_given || c->m.event_group[e] < 0)
		return NULL;
	if (strstr(c->m.plan.ev[e].encoding, "TASK_CLOCK"))
		return task_clock_repeats(m, e) ? "repeats ns/item" : NULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_figure *fg = &m->r[i].f.ev[e];

		if (!m->r[i].m.status && fg->valid && !fg->below_resolution && fg->s.median != 0)
			return NULL;
	}
	return "zero or below resolution in every row";
}

/* Whether the table shows another event than e that counts what e does
 * (instructions, mispredicted branches): then their headers must tell
 * them apart. */
static bool meaning_shared(const struct pmb__coltab *m, int e, bool misses)
{
	const struct pmb_context *c = m->c;
	const struct pmb_event *ev = c->m.plan.ev;

	for (int o = 0; o < c->m.plan.nev; o++) {
		bool om = ev[o].means == PMB_MEANS_BRANCH_MISSES || !strcmp(ev[o].name, "cond-branch-misses");

		if (o == e || (c->m.event_group[o] < 0 && !pmb_context_absent_shown(c, o)))
			continue;
		if (misses ? om : ev[o].means == PMB_MEANS_INSTRUCTIONS)
			return true;
	}
	return false;
}

/* The short header of event e, "instr" or "br-miss"; where another shown
 * event means the same, its own name, shortened alike: "instr:k", "r08"
 * (issue 26: four instruction events all read "instr/item"). */
static void event_short(const struct pmb__coltab *m, int e, bool misses, char *b, size_t n)
{
	const char *name = m->c->m.plan.ev[e].name;
	const char *generic = misses ? "branch-misses" : "instructions", *sh = misses ? "br-miss" : "instr";
	size_t gl = strlen(generic);

	if (!meaning_shared(m, e, misses) || !strcmp(name, generic))
		snprintf(b, n, "%s", sh);
	else if (!strncmp(name, generic, gl))
		snprintf(b, n, "%s%.30s", sh, name + gl);
	else
		snprintf(b, n, "%.30s", name);
}

static void event_col(struct pmb__coltab *m, struct pmb__cols *cs, int e)
{
	const struct pmb_event *ev = &m->c->m.plan.ev[e];
	bool misses = ev->means == PMB_MEANS_BRANCH_MISSES || !strcmp(ev->name, "cond-branch-misses");
	bool ins = ev->means == PMB_MEANS_INSTRUCTIONS;
	struct pmb__col *k;
	const char *as;
	char head[48], sh[40];
	size_t len;

	if (m->c->m.event_group[e] < 0 && !pmb_context_absent_shown(m->c, e))
		return;
	if (ins || misses)
		event_short(m, e, misses, sh, sizeof(sh));
	snprintf(head, sizeof(head), "%.38s/item", ins || misses ? sh : ev->name);
	k = col_add(cs, ev->name, head, ev->means == PMB_MEANS_CYCLES ? 5 :
		    ins ? 7 : misses ? 9 : 20 + e, cell_event);
	if (!k)
		return;
	k->arg = e;
	k->hidden = event_nothing(m, e) != NULL;
	/* One legend line per event: where the header is the event's own
	 * name, what it is counted as. */
	if (ins)
		snprintf(k->legend, sizeof(k->legend), "%s: instructions retired%s%.160s%s", sh,
			 strcmp(sh, "instr") ? " (" : "", strcmp(sh, "instr") ? ev->encoding : "",
			 strcmp(sh, "instr") ? ")" : "");
	else if (misses)
		snprintf(k->legend, sizeof(k->legend), "%s: %s (mispredicted branches)", sh, ev->name);
	else if (strstr(ev->encoding, "TASK_CLOCK"))
		snprintf(k->legend, sizeof(k->legend), "%s: ns of CPU time per item (shown where ns/item is "
			 "outside its interval: the task was off the CPU, or the clocks disagree)", ev->name);
	else if (ev->kind == PMB_EV_SIM && (as = strstr(ev->encoding, " as on libpfm4's ")))
		/* a PMU's name under sim: what it was read as (sim.c) */
		snprintf(k->legend, sizeof(k->legend), "%s: simulated %s, the name read%.*s", ev->name,
			 pmb__means_name(ev->means), (int)strlen(as) - 1, as);
	/* Names asked for that are this same event: merged, and said so. */
	len = strlen(k->legend);
	if (ev->also[0] && len < sizeof(k->legend))
		snprintf(k->legend + len, sizeof(k->legend) - len, "%s%s: %s is the same event as %s, counted once",
			 len ? "; " : "", ins || misses ? sh : ev->name, ev->also, ev->name);
}

static void derived_col(struct pmb__coltab *m, struct pmb__cols *cs, int d)
{
	const struct pmb_derived *der = &m->c->m.plan.der[d];
	const struct pmb_event *ev = m->c->m.plan.ev;
	bool any = false, nonzero = false, ipc = !strcmp(der->name, "ipc");
	bool misp = strstr(der->name, "mispredict_ratio") != NULL;
	struct pmb__col *k;
	char head[48];

	for (size_t i = 0; i < m->n; i++) {
		double v = m->r[i].f.derived[d];

		any |= !m->r[i].m.status && isfinite(v) && v >= 0;
		nonzero |= !m->r[i].m.status && isfinite(v) && v > 0;
	}
	if (!any)
		return;
	if (misp && strstr(der->name, "indirect"))
		snprintf(head, sizeof(head), "ind-misp %%"); /* beside the conditional one's */
	else if (misp)
		snprintf(head, sizeof(head), "misp %%");
	else if (derived_pct(der))
		snprintf(head, sizeof(head), "%.*s %%", (int)strlen(der->name) - 6, der->name);
	else
		snprintf(head, sizeof(head), "%s", ipc ? "IPC" : der->name);
	k = col_add(cs, der->name, head, ipc ? 8 : misp ? 10 : 40 + d, cell_derived);
	if (!k)
		return;
	k->arg = d;
	k->hidden = !nonzero && !m->c->m.counters_given;
	snprintf(k->legend, sizeof(k->legend), "%s: %s per %s%s%s", head, ev[der->num].name,
		 der->scale == 1000 ? "1000 " : "", der->den < 0 ? "item" : ev[der->den].name,
		 derived_pct(der) ? ", in %" : "");
}

/* Time and what is computed from it, the ratio, and the columns only
 * --wide or --columns show, in the order the table prints them. */
static void time_cols(struct pmb__coltab *m, struct pmb__cols *cs)
{
	struct pmb__col *k;

	if (m->sim)
		return;
	k = col_add(cs, "ns", "ns/item", 3, cell_ns);
	snprintf(k->legend, sizeof(k->legend), "ns/item: median time per item, the harness overhead "
		 "subtracted");
	k = col_add(cs, "ci", "±%", 4, cell_ci);
	snprintf(k->legend, sizeof(k->legend), "±%%: half the 95 %% bootstrap interval of the median, "
		 "in %% of it");
	if (m->c->m.has_cycles)
		return;
	k = col_add(cs, "cycles", "est.cyc/item", 5, cell_est);
	snprintf(k->legend, sizeof(k->legend), "est.cyc: cycles ESTIMATED as ns/item × %.2f GHz "
		 "(no cycles counter)", m->c->f.est_ghz);
}

static bool any_of(const struct pmb__coltab *m, int what)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_result *x = &m->r[i];

		if (what == 0 ? x->m.inst->reference >= 0 : what == 1 ? x->m.inst->baseline >= 0 :
		    what == 2 ? x->m.inst->tier[0] != 0 : what == 3 ? x->m.bytes_per_pass > 0 : x->m.repetition > 0)
			return true;
	}
	return false;
}

/* Whether some row's cost figure has a ratio of normalized figures (then
 * the raw one is shown beside it), or a flagged fixed cost. */
static bool any_cost(const struct pmb__coltab *m, bool fixed)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct pmb_figure *f = cost_of(m, &m->r[i]);

		if (!m->r[i].m.status && (fixed ? f->fixed_flagged : f->ratio_normalized && m->r[i].m.inst->reference >= 0))
			return true;
	}
	return false;
}

static void link_cols(struct pmb__coltab *m, struct pmb__cols *cs)
{
	char unit[32], head[48];
	struct pmb__col *k;

	if (m->cost >= 0)
		snprintf(unit, sizeof(unit), "%.26s/item", m->c->m.plan.ev[m->cost].means == PMB_MEANS_INSTRUCTIONS ?
			 "instr" : m->c->m.plan.ev[m->cost].name);
	else
		snprintf(unit, sizeof(unit), "ns/item");
	if (any_of(m, 1)) {
		snprintf(head, sizeof(head), "norm %.32s", unit);
		k = col_add(cs, "norm", head, 11, cell_norm);
		if (k)
			snprintf(k->legend, sizeof(k->legend), "norm: %s less its .baseline's%s", unit,
				 m->sim ? " (SIMULATED: exact counts, no interval)" : ", 95 % interval in brackets");
	}
	{
		/* In the default table where one is flagged; else on request
		 * (--columns=fixed, --wide). */
		k = col_add(cs, "fixed", m->sim ? "fixed instr/sample" : "fixed µs/sample", any_cost(m, true) ? 7 : 0,
			    cell_fixed);
		if (k)
			snprintf(k->legend, sizeof(k->legend), "fixed: a cost paid once per sample inside the "
				 "measured loop (two-point check), 95 %% interval in brackets; a warning names "
				 "those from %.0f %% of a sample", PMB_FIXED_SHARE * 100);
	}
	if (!any_of(m, 0))
		return;
	k = col_add(cs, "ratio", "ratio×", 6, cell_ratio);
	if (k)
		snprintf(k->legend, sizeof(k->legend), "ratio×: %s%s over that of the benchmark named after "
			 "\"of\" (its .reference; normalized where both have a .baseline)%s", unit,
			 m->sim ? " (SIMULATED: no time)" : "",
			 m->sim ? "; exact counts, so no interval" : ", 95 % interval in brackets");
	if (!any_cost(m, false))
		return;
	k = col_add(cs, "raw", "raw×", 12, cell_raw);
	if (k)
		snprintf(k->legend, sizeof(k->legend), "raw×: the ratio of the raw figures, beside a ratio of "
			 "normalized ones");
}

/* "Shown when" predicates of the columns below. */
static bool timed(const struct pmb__coltab *m)
{
	return !m->sim;
}

static bool with_bytes(const struct pmb__coltab *m)
{
	return !m->sim && any_of(m, 3);
}

static bool with_reps(const struct pmb__coltab *m)
{
	return any_of(m, 4);
}

static bool always(const struct pmb__coltab *m)
{
	(void)m;
	return true;
}

/* The columns shown only on request (--wide, --columns): one descriptor
 * each, a figure added later being one row more. */
static void extra_cols(struct pmb__coltab *m, struct pmb__cols *cs)
{
	static const struct {
		const char *key, *head, *legend;
		pmb__cell_fn *cell;
		int arg;
		bool (*shown)(const struct pmb__coltab *m);
	} x[] = {
		{ "mean", "mean ns", "mean ns: mean ns/item", cell_stat, 0, timed },
		{ "min", "min ns", "min ns: fastest sample's ns/item", cell_stat, 1, timed },
		{ "sd", "sd ns", "sd: standard deviation of ns/item", cell_stat, 2, timed },
		{ "outliers", "outliers", "outliers: mild/severe (Tukey fences)", cell_outliers, 0, timed },
		{ "items", "items/s", "", cell_rate, 0, timed },
		{ "bytes", "bytes/s", "", cell_rate, 1, with_bytes },
		{ "reps", "rep.spread %", "rep.spread: (max - min) / median of the repetitions' medians",
		  cell_reps, 0, with_reps },
		{ "samples", "samples", "", cell_count, 0, always },
		{ "passes", "passes", "passes: of the loop, over all samples", cell_count, 1, always },
		{ "total", "total s", "total s: what its samples took", cell_count, 2, timed },
	};

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		struct pmb__col *k;

		if (!x[i].shown(m))
			continue;
		k = col_add(cs, x[i].key, x[i].head, 0, x[i].cell);
		if (!k)
			return;
		k->arg = x[i].arg;
		snprintf(k->legend, sizeof(k->legend), "%s", x[i].legend);
	}
}

void pmb__cols_build(struct pmb__coltab *m, struct pmb__cols *cs)
{
	struct pmb__col *k = col_add(cs, "name", "benchmark", 1, cell_name);

	k->left = true;
	if (any_of(m, 2)) {
		k = col_add(cs, "tier", "tier", 2, cell_tier);
		k->left = true;
	}
	time_cols(m, cs);
	for (int e = 0; e < m->c->m.plan.nev; e++)
		event_col(m, cs, e);
	for (int d = 0; d < m->c->m.plan.nder; d++)
		derived_col(m, cs, d);
	link_cols(m, cs);
	extra_cols(m, cs);
}


const char *pmb__col_nothing(const struct pmb__coltab *m, const struct pmb__col *k)
{
	if (!k->hidden)
		return NULL;
	return k->cell == cell_event ? event_nothing(m, k->arg) : "zero in every row";
}
