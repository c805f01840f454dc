/* report_merge.c - `pmubench merge` drawn: the console's group columns, CSV lines, the JSON document. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_fmt.h"
#include "report_json_internal.h"
#include "base.h"

/* Longest console cell, "0.4745 [0.3103, 0.7105] spread 0.4011..0.5200 x1.234 [0.9, 1.3]". */
#define CELL 160

const char *pmb__counting_name(enum pmb_host_counting c)
{
	static const char *const name[] = { "counted", "estimated", "simulated" };

	return name[c];
}

static const char *state_words(const struct pmb_merge_cell *c)
{
	switch (c->state) {
	case PMB_CELL_NO_BENCH:
		return "not run on this group";
	case PMB_CELL_FAILED:
		return "failed or skipped on every host of this group";
	case PMB_CELL_NO_FIGURE:
		return "not measured on this group (other counters)";
	default:
		return NULL;
	}
}

/* ---- console ------------------------------------------------------------ */

static void visible(char *out, size_t n, const char *in)
{
	pmb__text_safe(out, n, in);
}

static void console_cell(char *b, size_t n, const struct pmb_merge_cell *c, bool base)
{
	size_t len;

	if (c->state != PMB_CELL_VALUE) {
		snprintf(b, n, "- (%s)", c->state == PMB_CELL_NO_BENCH ? "not run" :
			 c->state == PMB_CELL_FAILED ? "failed" : "not counted");
		return;
	}
	len = (size_t)snprintf(b, n, "%.4g", c->value);
	if (len < n && isfinite(c->lo) && isfinite(c->hi))
		len += (size_t)snprintf(b + len, n - len, " [%.4g, %.4g]", c->lo, c->hi);
	if (len < n && c->nhost > 1)
		len += (size_t)snprintf(b + len, n - len, " %zu hosts %.4g..%.4g", c->nhost, c->spread_lo,
					c->spread_hi);
	if (len < n && base && c->ratio == 1)
		len += (size_t)snprintf(b + len, n - len, " x1 (baseline)");
	else if (len < n && !base && isfinite(c->ratio))
		len += (size_t)snprintf(b + len, n - len, " x%.3g", c->ratio);
	if (len < n && !base && isfinite(c->ratio_lo))
		snprintf(b + len, n - len, " [%.3g, %.3g]", c->ratio_lo, c->ratio_hi);
}

static void console_head(FILE *f, const struct pmb_merged *m)
{
	char a[PMB_MERGE_TEXT * 2], b[PMB_MERGE_TEXT * 2];

	fprintf(f, "pmubench merge: %zu file%s read, %zu missing, %zu host group%s; ratios are to group %s\n",
		m->nhosts, m->nhosts == 1 ? "" : "s", m->nmissing, m->ngroup, m->ngroup == 1 ? "" : "s",
		m->group[m->baseline].label);
	for (size_t k = 0; k < m->ngroup; k++) {
		const struct pmb_merge_group *g = &m->group[k];

		visible(a, sizeof(a), g->cpu);
		visible(b, sizeof(b), g->pmu);
		fprintf(f, "  %-3s %s (PMU %s), %s backend, %s%s%s%s; pmubench %s; %zu host%s:", g->label, a,
			b[0] ? b : "unknown", g->backend, g->counting == PMB_HOST_ESTIMATED ? "cycles " : "",
			pmb__counting_name(g->counting), g->pmu_why[0] ? ": " : "", g->pmu_why, g->versions,
			g->nhost, g->nhost == 1 ? "" : "s");
		for (size_t i = 0; i < g->nhost; i++) {
			visible(a, sizeof(a), m->hosts[g->host[i]].host);
			fprintf(f, " %s", a);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->nmissing; i++) {
		const struct pmb_merge_missing *x = &m->missing[i];

		fputs("  missing: ", f);
		if (x->task >= 0) {
			visible(a, sizeof(a), x->node[0] ? x->node : "node unknown");
			fprintf(f, "%s%s (task %d): ", x->node[0] ? "node " : "", a, x->task);
		}
		visible(a, sizeof(a), x->file);
		visible(b, sizeof(b), x->reason);
		fprintf(f, "%s%s%s\n", a, a[0] ? ": " : "", b);
	}
	for (size_t i = 0; i < m->ngap; i++) {
		visible(a, sizeof(a), m->gap[i]);
		fprintf(f, "  gap: %s\n", a);
	}
	for (size_t i = 0; i < m->nnote; i++) {
		char n[sizeof(*m->note)];

		visible(n, sizeof(n), m->note[i]);
		fprintf(f, "  note: %s\n", n);
	}
}

static void console(FILE *f, const struct pmb_merged *m)
{
	char cell[CELL], name[PMB_MERGE_TEXT * 2];
	size_t *w = calloc(m->ngroup, sizeof(*w)), first = 10;

	console_head(f, m);
	for (size_t r = 0; r < m->nrow; r++) {
		first = strlen(m->row[r].key) + 2 > first ? strlen(m->row[r].key) + 2 : first;
		for (size_t k = 0; w && k < m->ngroup; k++) {
			console_cell(cell, sizeof(cell), &m->row[r].cell[k], k == m->baseline);
			w[k] = strlen(cell) > w[k] ? strlen(cell) : w[k];
		}
	}
	fprintf(f, "\n%-*s", (int)first, "");
	for (size_t k = 0; k < m->ngroup; k++)
		fprintf(f, "  %-*s", w ? (int)w[k] : 0, m->group[k].label);
	fputc('\n', f);
	for (size_t r = 0; r < m->nrow; r++) {
		if (!r || strcmp(m->row[r - 1].bench, m->row[r].bench)) {
			visible(name, sizeof(name), m->row[r].bench);
			fprintf(f, "%s\n", name);
		}
		fprintf(f, "  %-*s", (int)first - 2, m->row[r].key);
		for (size_t k = 0; k < m->ngroup; k++) {
			console_cell(cell, sizeof(cell), &m->row[r].cell[k], k == m->baseline);
			fprintf(f, "  %-*s", w ? (int)w[k] : 0, cell);
		}
		fputc('\n', f);
	}
	free(w);
}

/* ---- CSV ---------------------------------------------------------------- */

static const char *state_name(enum pmb_merge_cell_state s)
{
	static const char *const name[] = { "value", "not_run", "failed", "not_counted" };

	return name[s];
}

static void csv(FILE *f, const struct pmb_merged *m)
{
	char hosts[32];

	fputs("benchmark,figure,group,cpu,pmu,counting,hosts,value,ci_lo,ci_hi,spread_lo,spread_hi,"
	      "ratio,ratio_lo,ratio_hi,state,note\n", f);
	for (size_t r = 0; r < m->nrow; r++)
		for (size_t k = 0; k < m->ngroup; k++) {
			const struct pmb_merge_cell *c = &m->row[r].cell[k];
			const struct pmb_merge_group *g = &m->group[k];
			bool v = c->state == PMB_CELL_VALUE;

			pmb__csv_field(f, m->row[r].bench, false);
			pmb__csv_field(f, m->row[r].key, false);
			pmb__csv_field(f, g->label, false);
			pmb__csv_field(f, g->cpu, false);
			pmb__csv_field(f, g->pmu, false);
			pmb__csv_field(f, pmb__counting_name(g->counting), false);
			snprintf(hosts, sizeof(hosts), "%zu", c->nhost);
			pmb__csv_field(f, hosts, false);
			pmb__csv_num(f, v ? c->value : NAN, true);
			pmb__csv_num(f, v ? c->lo : NAN, true);
			pmb__csv_num(f, v ? c->hi : NAN, true);
			pmb__csv_num(f, v ? c->spread_lo : NAN, true);
			pmb__csv_num(f, v ? c->spread_hi : NAN, true);
			pmb__csv_num(f, c->ratio, true);
			pmb__csv_num(f, c->ratio_lo, true);
			pmb__csv_num(f, c->ratio_hi, true);
			pmb__csv_field(f, state_name(c->state), false);
			pmb__csv_field(f, c->why ? c->why : g->pmu_why, true);
		}
	for (size_t i = 0; i < m->nmissing; i++) {
		const struct pmb_merge_missing *x = &m->missing[i];
		char note[sizeof(x->node) + sizeof(x->file) + sizeof(x->reason) + 40], task[sizeof(x->node) + 32] = "";

		/* 6 names empty, hosts 0, 8 numbers empty */
		fputs(",,,,,,0,,,,,,,,,missing,", f);
		if (x->task >= 0)
			snprintf(task, sizeof(task), "node %s (task %d): ", x->node[0] ? x->node : "unknown", x->task);
		snprintf(note, sizeof(note), "%s%s%s%s", task, x->file, x->file[0] ? ": " : "", x->reason);
		pmb__csv_field(f, note, true);
	}
	for (size_t i = 0; i < m->nnote; i++) {
		fputs(",,,,,,0,,,,,,,,,duplicate,", f);
		pmb__csv_field(f, m->note[i], true);
	}
}

/* ---- JSON --------------------------------------------------------------- */

static void json_groups(struct pmb__jw *w, const struct pmb_merged *m)
{
	pmb__jw_open(w, "groups", '[', false);
	for (size_t k = 0; k < m->ngroup; k++) {
		const struct pmb_merge_group *g = &m->group[k];

		pmb__jw_open(w, NULL, '{', false);
		pmb__jw_str(w, "label", g->label);
		pmb__jw_str(w, "cpu", g->cpu);
		pmb__jw_str_or_null(w, "pmu", g->pmu);
		pmb__jw_str(w, "backend", g->backend);
		pmb__jw_str(w, "counting", pmb__counting_name(g->counting));
		pmb__jw_str_or_null(w, "counting_note", g->pmu_why);
		pmb__jw_str(w, "pmubench_versions", g->versions);
		pmb__jw_open(w, "hosts", '[', false);
		for (size_t i = 0; i < g->nhost; i++) {
			const struct pmb_host_run *h = &m->hosts[g->host[i]];

			pmb__jw_open(w, NULL, '{', true);
			pmb__jw_str(w, "host", h->host);
			pmb__jw_str(w, "file", h->file);
			pmb__jw_str_or_null(w, "pmubench_version", h->version);
			pmb__jw_close(w, '}');
		}
		pmb__jw_close(w, ']');
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
}

static void json_cell(struct pmb__jw *w, const struct pmb_merge_group *g, const struct pmb_merge_cell *c,
		      bool base)
{
	pmb__jw_open(w, g->label, '{', true);
	if (c->state != PMB_CELL_VALUE) {
		pmb__jw_null(w, "value");
		pmb__jw_str(w, "missing", state_words(c));
		if (c->why)
			pmb__jw_str(w, "reason", c->why);
		pmb__jw_close(w, '}');
		return;
	}
	pmb__jw_num(w, "value", c->value);
	pmb__jw_num(w, "ci_lo", c->lo);
	pmb__jw_num(w, "ci_hi", c->hi);
	pmb__jw_uint(w, "hosts", c->nhost);
	pmb__jw_num(w, "spread_lo", c->spread_lo);
	pmb__jw_num(w, "spread_hi", c->spread_hi);
	pmb__jw_num(w, "ratio", c->ratio);
	pmb__jw_num(w, "ratio_ci_lo", c->ratio_lo);
	pmb__jw_num(w, "ratio_ci_hi", c->ratio_hi);
	if (base)
		pmb__jw_bool(w, "baseline", true);
	pmb__jw_str(w, "counting", pmb__counting_name(g->counting));
	pmb__jw_close(w, '}');
}

static void json_benchmarks(struct pmb__jw *w, const struct pmb_merged *m)
{
	pmb__jw_open(w, "benchmarks", '[', false);
	for (size_t r = 0; r < m->nrow; r++) {
		const struct pmb_merge_row *row = &m->row[r];

		if (!r || strcmp(m->row[r - 1].bench, row->bench)) {
			if (r)
				pmb__jw_close(w, '}'), pmb__jw_close(w, '}');
			pmb__jw_open(w, NULL, '{', false);
			pmb__jw_str(w, "name", row->bench);
			pmb__jw_str_or_null(w, "family", row->family);
			pmb__jw_uint(w, "working_set", row->working_set);
			pmb__jw_open(w, "figures", '{', false);
		}
		pmb__jw_open(w, row->key, '{', false);
		for (size_t k = 0; k < m->ngroup; k++)
			json_cell(w, &m->group[k], &row->cell[k], k == m->baseline);
		pmb__jw_close(w, '}');
	}
	if (m->nrow)
		pmb__jw_close(w, '}'), pmb__jw_close(w, '}');
	pmb__jw_close(w, ']');
}

static void json(FILE *f, const struct pmb_merged *m)
{
	struct pmb__jw w = { .f = f, .depth = -1 };

	pmb__jw_open(&w, NULL, '{', false);
	pmb__jw_int(&w, "merge_schema", 1);
	pmb__jw_str(&w, "baseline", m->group[m->baseline].label);
	json_groups(&w, m);
	pmb__jw_open(&w, "missing", '[', false);
	for (size_t i = 0; i < m->nmissing; i++) {
		pmb__jw_open(&w, NULL, '{', true);
		pmb__jw_str_or_null(&w, "file", m->missing[i].file);
		pmb__jw_str(&w, "reason", m->missing[i].reason);
		if (m->missing[i].task >= 0) {
			pmb__jw_str_or_null(&w, "node", m->missing[i].node);
			pmb__jw_int(&w, "task", m->missing[i].task);
		}
		pmb__jw_close(&w, '}');
	}
	pmb__jw_close(&w, ']');
	pmb__jw_open(&w, "gaps", '[', false);
	for (size_t i = 0; i < m->ngap; i++)
		pmb__jw_str(&w, NULL, m->gap[i]);
	pmb__jw_close(&w, ']');
	pmb__jw_open(&w, "notes", '[', false);
	for (size_t i = 0; i < m->nnote; i++)
		pmb__jw_str(&w, NULL, m->note[i]);
	pmb__jw_close(&w, ']');
	json_benchmarks(&w, m);
	pmb__jw_close(&w, '}');
	fputc('\n', f);
}

int pmb__report_merge(FILE *f, enum pmb_format format, const struct pmb_merged *m)
{
	if (format == PMB_FORMAT_JSON)
		json(f, m);
	else if (format == PMB_FORMAT_CSV)
		csv(f, m);
	else
		console(f, m);
	return ferror(f) ? -EIO : 0;
}
