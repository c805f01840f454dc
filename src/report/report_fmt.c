/* report_fmt.c - the one text-table printer and the console's units (time, counts, figures, ratios). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
#include "base.h"

/* ---- the table ----------------------------------------------------------- */

/* Room for `need` more bytes of text; text[0] is the empty cell every
 * offset starts at. */
static int text_reserve(struct pmb__table *t, size_t need)
{
	size_t cap;
	char *p;

	if (!t->tcap)
		need++;
	if (t->tcap - t->len >= need)
		return 0;
	cap = t->tcap ? t->tcap : 4096;
	while (cap - t->len < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(t->text, cap);
	if (!p)
		return -ENOMEM;
	if (!t->tcap)
		p[t->len++] = 0;
	t->text = p;
	t->tcap = cap;
	return 0;
}

int pmb__table_add_row(struct pmb__table *t)
{
	size_t ncol = t->ncol > 0 ? (size_t)t->ncol : 1;

	if (t->err)
		return t->err;
	if (t->nrow == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		size_t *p = cap <= SIZE_MAX / sizeof(*p) / ncol ? realloc(t->off, cap * ncol * sizeof(*p)) : NULL;

		if (!p)
			return t->err = -ENOMEM;
		t->off = p;
		t->cap = cap;
	}
	if (text_reserve(t, 0))
		return t->err = -ENOMEM;
	memset(t->off + t->nrow * ncol, 0, ncol * sizeof(*t->off));
	t->nrow++;
	return 0;
}

/* The cell of length *k just written at t->text + t->len, rewritten safe
 * to show, *k its new length.  Returns 0, or -ENOMEM (in t->err). */
static int cell_escape(struct pmb__table *t, size_t *k)
{
	char *raw = strdup(t->text + t->len);
	size_t need = raw ? pmb__text_safe(NULL, 0, raw) : 0;

	if (!raw || text_reserve(t, need + 1)) {
		free(raw);
		t->err = -ENOMEM;
		return t->err;
	}
	pmb__text_safe(t->text + t->len, need + 1, raw);
	free(raw);
	*k = need;
	return 0;
}

void pmb__table_set(struct pmb__table *t, int col, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	int k;

	if (t->err || !t->nrow || col < 0 || col >= t->ncol)
		return;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if (text_reserve(t, (size_t)k + 1)) {
		t->err = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(t->text + t->len, (size_t)k + 1, fmt, ap);
	va_end(ap);
	/* Cells quote names from users and from result files: a terminal
	 * escape or a byte that is not UTF-8 is shown as \xNN (text.h). */
	len = (size_t)k;
	if (pmb__text_needs_escape(t->text + t->len) && cell_escape(t, &len))
		return;
	t->off[(t->nrow - 1) * (size_t)t->ncol + (size_t)col] = t->len;
	t->len += len + 1;
}

static const char *cell(const struct pmb__table *t, size_t row, int col)
{
	return t->text + t->off[row * (size_t)t->ncol + (size_t)col];
}

size_t pmb__text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

static bool wrapped(const struct pmb__table *t, int c, size_t k)
{
	return c == 0 && t->wrap0 && k > t->wrap0;
}

/* One line: row `row`, or the header where row is SIZE_MAX; hidden
 * columns left out.  Padded by hand (printf's widths count bytes), and
 * only before text: no line ends in spaces.  A first cell past wrap0 on
 * a line of its own first. */
static void print_line(FILE *f, const struct pmb__table *t, const size_t *w, size_t row)
{
	size_t owed = 0;
	bool first = true;

	for (int c = 0; c < t->ncol; c++) {
		const char *s = row == SIZE_MAX ? t->head[c] : cell(t, row, c);
		size_t k = pmb__text_width(s);

		if (row != SIZE_MAX && wrapped(t, c, k) && !t->hide[c]) {
			fprintf(f, "%s\n", s);
			s = "";
			k = 0;
		}

		if (t->hide[c])
			continue;
		owed += first ? 0 : 2;
		first = false;
		if (!t->left[c])
			owed += w[c] - k;
		if (*s) {
			pad(f, owed);
			fputs(s, f);
			owed = 0;
		}
		if (t->left[c])
			owed += w[c] - k;
	}
	fputc('\n', f);
}

void pmb__table_widths(const struct pmb__table *t, size_t *w)
{
	bool head = t->ncol > 0 && t->head[0];

	for (int c = 0; c < t->ncol; c++) {
		w[c] = head ? pmb__text_width(t->head[c]) : 0;
		for (size_t r = 0; r < t->nrow; r++) {
			size_t k = pmb__text_width(cell(t, r, c));

			if (k > w[c] && !wrapped(t, c, k))
				w[c] = k;
		}
	}
}

static size_t shown_width(const struct pmb__table *t, const size_t *w)
{
	size_t total = 0;
	bool any = false;

	for (int c = 0; c < t->ncol; c++)
		if (!t->hide[c]) {
			total += w[c] + (any ? 2 : 0);
			any = true;
		}
	return total;
}

int pmb__table_print(FILE *f, struct pmb__table *t)
{
	size_t w[PMB_TABLE_MAXCOL] = { 0 };
	bool head = t->ncol > 0 && t->head[0];
	int err = t->err;

	pmb__table_widths(t, w);
	if (head) {
		size_t total;

		print_line(f, t, w, SIZE_MAX);
		total = shown_width(t, w);
		for (size_t k = 0; k < total; k++)
			fputc('-', f);
		fputc('\n', f);
	}
	for (size_t r = 0; r < t->nrow; r++)
		print_line(f, t, w, r);
	pmb__table_free(t);
	return err;
}

int pmb__table_fit(struct pmb__table *t, size_t width, const int *drop, int ndrop)
{
	size_t w[PMB_TABLE_MAXCOL];
	int k = 0;

	pmb__table_widths(t, w);
	while (k < ndrop && shown_width(t, w) > width)
		if (drop[k] >= 0 && drop[k] < t->ncol)
			t->hide[drop[k++]] = true;
		else
			k++;
	return k;
}

void pmb__table_free(struct pmb__table *t)
{
	free(t->off);
	free(t->text);
	t->off = NULL;
	t->text = NULL;
	t->nrow = t->cap = t->len = t->tcap = 0;
	t->err = 0;
}

/* ---- units --------------------------------------------------------------- */

void pmb__fmt_time(char *b, size_t n, double ns)
{
	static const struct { double div; const char *u; } units[] = {
		{ 1e-3, "ps" }, { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	int k = 1;
	double a = fabs(ns);

	if (!isfinite(ns)) {
		snprintf(b, n, "-");
		return;
	}
	if (a < 0.1)
		k = 0;
	else
		while (k < 4 && a >= units[k + 1].div)
			k++;
	double v = ns / units[k].div;
	snprintf(b, n, "%.*f %s", fabs(v) >= 100 ? 1 : fabs(v) >= 10 ? 2 : 3, v, units[k].u);
}

void pmb__fmt_num(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(b, n, "-");
	else if (a >= 1e9)
		snprintf(b, n, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(b, n, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(b, n, "%.3gk", v / 1e3);
	else if (a >= 100)
		snprintf(b, n, "%.1f", v);
	else if (a >= 1 || a == 0)
		snprintf(b, n, "%.3f", v);
	else
		snprintf(b, n, "%.4f", v);
}

void pmb__fmt_figure(char *b, size_t n, const struct pmb_figure *f, bool time)
{
	char v[32];

	if (f->multiplexed == -1) {
		snprintf(b, n, "never ran");
		return;
	}
	if (!f->valid) {
		snprintf(b, n, "-");
		return;
	}
	if (f->below_resolution) {
		/* Zero within what the measurement resolves: say so, never
		 * print the negative or tiny number the subtraction left. */
		if (time)
			pmb__fmt_time(v, sizeof(v), f->resolution);
		else
			snprintf(v, sizeof(v), "%.1g", f->resolution);
		snprintf(b, n, "< %s", v);
		return;
	}
	if (time)
		pmb__fmt_time(v, sizeof(v), f->s.median);
	else
		pmb__fmt_num(v, sizeof(v), f->s.median);
	snprintf(b, n, "%.20s%s", v, f->multiplexed == 1 ? " (multiplexed)" : "");
}

void pmb__fmt_ratio(char *b, size_t n, double ratio, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		snprintf(b, n, "%.2f [%.2f, %.2f]", ratio, lo, hi);
	else
		snprintf(b, n, "%.2f", ratio);
}

/* ---- wrapped text and footnotes ----------------------------------------- */

void pmb__wrap(FILE *f, const char *text, size_t first, size_t indent, size_t width)
{
	size_t col = first, gap = 0;
	bool fresh = true; /* no word on this line yet */

	while (*text) {
		size_t len = strcspn(text, " "), k;
		char word[512];

		snprintf(word, sizeof(word), "%.*s", (int)len, text);
		k = pmb__text_width(word);
		if (!fresh && col > indent && col + gap + k > width) {
			fputc('\n', f);
			pad(f, indent);
			col = indent;
			fresh = true;
		}
		/* The spaces between words kept as they were (aligned
		 * labels), except at the start of a line. */
		if (!fresh) {
			pad(f, gap);
			col += gap;
		}
		fputs(word, f);
		col += k;
		fresh = false;
		text += len;
		gap = strspn(text, " ");
		text += gap;
	}
	fputc('\n', f);
}

void pmb__wrap_lines(FILE *f, const char *text, size_t width)
{
	while (*text) {
		size_t len = strcspn(text, "\n"), lead = strspn(text, " ");
		char line[4096];

		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		if (pmb__text_width(line) <= width || lead >= len) {
			fputs(line, f);
			fputc('\n', f);
		} else {
			pad(f, lead);
			pmb__wrap(f, line + lead, lead, lead + 2, width);
		}
		text += len + (text[len] == '\n');
	}
}

/* Superscript digits of k (1 -> "¹", 12 -> "¹²"). */
static void superscript(char *b, size_t n, int k)
{
	static const char *const digit[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
	char d[12];
	size_t len = 0;

	snprintf(d, sizeof(d), "%d", k);
	b[0] = 0;
	for (const char *p = d; *p && len + 4 < n; p++)
		len += (size_t)snprintf(b + len, n - len, "%s", digit[*p - '0']);
}

const char *pmb__note(struct pmb__notes *nt, const char *fmt, ...)
{
	char text[sizeof(nt->text[0])];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (int i = 0; i < nt->n; i++)
		if (!strcmp(nt->text[i], text))
			return nt->mark[i];
	if (nt->n == PMB_MAX_NOTES) {
		snprintf(nt->text[nt->n - 1], sizeof(nt->text[0]), "and other reasons (the JSON report "
			 "has every figure)");
		return nt->mark[nt->n - 1];
	}
	superscript(nt->mark[nt->n], sizeof(nt->mark[0]), nt->n + 1);
	snprintf(nt->text[nt->n], sizeof(nt->text[0]), "%s", text);
	return nt->mark[nt->n++];
}

void pmb__notes_print(FILE *f, const struct pmb__notes *nt, size_t width)
{
	for (int i = 0; i < nt->n; i++) {
		size_t k = pmb__text_width(nt->mark[i]);

		fprintf(f, "%s ", nt->mark[i]);
		pmb__wrap(f, nt->text[i], k + 1, k + 1, width);
	}
}
