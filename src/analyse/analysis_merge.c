/* analysis_merge.c - many hosts' summaries to one merge (`pmubench merge`): host groups, figures per group with spread and interval, ratios to the baseline group, gaps named. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_merge.h"
#include "model.h"
#include "base.h"

/* Benchmark names listed in one gap before "and N more". */
#define GAP_NAMES 4

/* Each host's benchmarks by name (base/hash.h: found in O(1), so that H
 * hosts of B benchmarks merge in O(H * B * figures), not in O(H^2 * B^2) of
 * linear look-ups: 50 hosts of 300 were 225 M compares), and every name
 * seen in any host. */
struct lookup {
	struct pmb_name_index *host;
	struct pmb_name_index seen;
};


static int lookup_init(struct lookup *lk, const struct pmb_merged *m)
{
	size_t total = 0;
	int ret = 0;

	lk->host = calloc(m->nhosts, sizeof(*lk->host));
	if (!lk->host)
		return -ENOMEM;
	for (size_t h = 0; h < m->nhosts && !ret; h++) {
		total += m->hosts[h].nbench;
		ret = pmb__name_index_init(&lk->host[h], m->hosts[h].nbench);
		for (size_t i = 0; !ret && i < m->hosts[h].nbench; i++)
			pmb__name_index_add(&lk->host[h], m->hosts[h].bench[i].name, i);
	}
	return ret ? ret : pmb__name_index_init(&lk->seen, total);
}

static void lookup_free(struct lookup *lk, size_t nhosts)
{
	for (size_t h = 0; lk->host && h < nhosts; h++)
		pmb__name_index_free(&lk->host[h]);
	free(lk->host);
	pmb__name_index_free(&lk->seen);
}

static const struct pmb_host_bench *host_bench(const struct lookup *lk, const struct pmb_merged *m, size_t h,
					       const char *name)
{
	size_t i = pmb__name_index_slot(&lk->host[h], name);

	return lk->host[h].name[i] ? &m->hosts[h].bench[lk->host[h].at[i]] : NULL;
}


static bool same_group(const struct pmb_merge_group *g, const struct pmb_host_run *h)
{
	return !strcmp(g->cpu, h->cpu) && !strcmp(g->pmu, h->pmu) && !strcmp(g->backend, h->backend) &&
	       g->counting == h->counting && !strcmp(g->pmu_why, h->pmu_why);
}

static void add_version(struct pmb_merge_group *g, const char *v)
{
	size_t len = strlen(g->versions);
	const char *at = strstr(g->versions, v);

	if (at && (at[strlen(v)] == '\0' || at[strlen(v)] == ','))
		return;
	snprintf(g->versions + len, sizeof(g->versions) - len, "%s%s", len ? ", " : "", v[0] ? v : "unknown");
}

static int make_groups(struct pmb_merged *m)
{
	struct pmb_merge_group *g;
	size_t k;

	m->group = calloc(m->nhosts, sizeof(*m->group));
	if (!m->group)
		return -ENOMEM;
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct pmb_host_run *h = &m->hosts[i];

		for (k = 0; k < m->ngroup && !same_group(&m->group[k], h); k++)
			;
		g = &m->group[k];
		if (k == m->ngroup) {
			m->ngroup++;
			snprintf(g->label, sizeof(g->label), "%c%.0zu", (int)('A' + k % 26), k / 26);
			snprintf(g->cpu, sizeof(g->cpu), "%s", h->cpu);
			snprintf(g->pmu, sizeof(g->pmu), "%s", h->pmu);
			snprintf(g->backend, sizeof(g->backend), "%s", h->backend);
			snprintf(g->pmu_why, sizeof(g->pmu_why), "%s", h->pmu_why);
			g->counting = h->counting;
			g->host = calloc(m->nhosts, sizeof(*g->host));
			if (!g->host)
				return -ENOMEM;
		}
		g->host[g->nhost++] = i;
		add_version(g, h->version);
	}
	return 0;
}

static int pick_baseline(struct pmb_merged *m, const char *want, char *err, size_t errlen)
{
	char names[PMB_MERGE_TEXT * 2] = "";
	size_t len = 0;

	m->baseline = 0;
	if (!want)
		return 0;
	for (size_t k = 0; k < m->ngroup; k++) {
		const struct pmb_merge_group *g = &m->group[k];

		if (!strcmp(g->label, want) || !strcmp(g->cpu, want)) {
			m->baseline = k;
			return 0;
		}
		for (size_t i = 0; i < g->nhost; i++)
			if (!strcmp(m->hosts[g->host[i]].host, want)) {
				m->baseline = k;
				return 0;
			}
		len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
					"%s%s (%s)", k ? ", " : "", g->label, g->cpu);
		len = len < sizeof(names) ? len : sizeof(names);
	}
	snprintf(err, errlen, "--baseline=%s: no group has that label, CPU model or host "
		 "(expected one of the groups: %s, or a host of one)", want, names);
	return -EINVAL;
}

/* The group's cell for figure key of benchmark name. */
static void fill_cell(const struct lookup *lk, const struct pmb_merged *m, const struct pmb_merge_group *g,
		      const char *name, const char *key, struct pmb_merge_cell *c, double *v)
{
	bool ran = false, measured = false;

	*c = (struct pmb_merge_cell){ .state = PMB_CELL_NO_BENCH, .lo = NAN, .hi = NAN, .value = NAN,
				      .ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN };
	for (size_t i = 0; i < g->nhost; i++) {
		const struct pmb_host_bench *b = host_bench(lk, m, g->host[i], name);
		const struct pmb_host_figure *f = pmb__host_figure(b, key);

		ran |= b != NULL;
		measured |= b && !b->why[0];
		if (b && b->why[0] && !c->why)
			c->why = b->why;
		if (!f || !isfinite(f->value))
			continue;
		v[c->nhost++] = f->value;
		c->lo = fmin(c->lo, f->lo); /* fmin ignores a NAN operand */
		c->hi = fmax(c->hi, f->hi);
	}
	if (c->nhost) {
		c->state = PMB_CELL_VALUE;
		c->value = pmb__median(v, c->nhost);
		c->spread_lo = c->spread_hi = v[0];
		for (size_t i = 1; i < c->nhost; i++) {
			c->spread_lo = fmin(c->spread_lo, v[i]);
			c->spread_hi = fmax(c->spread_hi, v[i]);
		}
	} else if (measured) {
		c->state = PMB_CELL_NO_FIGURE;
	} else if (ran) {
		c->state = PMB_CELL_FAILED;
	}
}

/* Each cell's ratio to the baseline group's cell: the interval's bounds
 * divided crosswise, so it holds every ratio of two values within them;
 * the baseline's own cell exactly 1, without an interval. */
static void fill_ratios(struct pmb_merge_row *r, size_t ngroup, size_t base)
{
	const struct pmb_merge_cell *b = &r->cell[base];

	for (size_t k = 0; k < ngroup; k++) {
		struct pmb_merge_cell *c = &r->cell[k];

		/* The baseline to itself is 1 by definition, a zero value too:
		 * no interval (its bounds crosswise would make one of its own
		 * spread). */
		if (k == base && c->state == PMB_CELL_VALUE) {
			c->ratio = 1;
			continue;
		}
		if (c->state != PMB_CELL_VALUE || b->state != PMB_CELL_VALUE || !(b->value > 0))
			continue;
		c->ratio = c->value / b->value;
		if (b->lo > 0 && isfinite(b->hi) && isfinite(c->lo) && isfinite(c->hi)) {
			c->ratio_lo = c->lo / b->hi;
			c->ratio_hi = c->hi / b->lo;
		}
	}
}

/* Whether (name, key) has a row yet: rows of one benchmark are adjacent. */
/* Whether a host in [h0, h) has figure key of benchmark name: its row
 * was made then (one host's keys are distinct). */
static bool have_row(const struct lookup *lk, const struct pmb_merged *m, size_t h0, size_t h, const char *name,
		     const char *key)
{
	for (size_t i = h0; i < h; i++)
		if (pmb__host_figure(host_bench(lk, m, i, name), key))
			return true;
	return false;
}

static int add_row(struct pmb_merged *m, const struct pmb_host_bench *b, const char *key, size_t *cap)
{
	struct pmb_merge_row *grown, *r;

	if (m->nrow == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		grown = realloc(m->row, *cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		m->row = grown;
	}
	r = &m->row[m->nrow];
	*r = (struct pmb_merge_row){ .bench = b->name, .family = b->family, .working_set = b->working_set };
	snprintf(r->key, sizeof(r->key), "%s", key);
	r->cell = calloc(m->ngroup, sizeof(*r->cell));
	if (!r->cell)
		return -ENOMEM;
	m->nrow++;
	return 0;
}

/* The rows of benchmark name: every figure any host has of it, in order
 * of first appearance; a benchmark no host measured keeps one row
 * (ns_per_item), so that its failure is shown. */
static int bench_rows(const struct lookup *lk, struct pmb_merged *m, size_t h0, const struct pmb_host_bench *first,
		      size_t *cap)
{
	size_t start = m->nrow;
	int ret = 0;

	for (size_t h = h0; h < m->nhosts && !ret; h++) {
		const struct pmb_host_bench *b = host_bench(lk, m, h, first->name);

		for (size_t f = 0; b && f < b->nfig && !ret; f++)
			if (!have_row(lk, m, h0, h, first->name, b->fig[f].key))
				ret = add_row(m, first, b->fig[f].key, cap);
	}
	if (!ret && m->nrow == start)
		ret = add_row(m, first, "ns_per_item", cap);
	return ret;
}

static int make_rows(struct pmb_merged *m)
{
	struct lookup lk = { 0 };
	size_t cap = 0, most = 1;
	double *v;
	int ret = lookup_init(&lk, m);

	for (size_t h = 0; h < m->nhosts && !ret; h++)
		for (size_t i = 0; i < m->hosts[h].nbench && !ret; i++)
			if (pmb__name_index_add(&lk.seen, m->hosts[h].bench[i].name, 0))
				ret = bench_rows(&lk, m, h, &m->hosts[h].bench[i], &cap);
	for (size_t k = 0; k < m->ngroup; k++)
		most = m->group[k].nhost > most ? m->group[k].nhost : most;
	v = ret ? NULL : malloc(most * sizeof(*v));
	if (!ret && !v)
		ret = -ENOMEM;
	for (size_t r = 0; r < m->nrow && !ret; r++) {
		for (size_t k = 0; k < m->ngroup; k++)
			fill_cell(&lk, m, &m->group[k], m->row[r].bench, m->row[r].key, &m->row[r].cell[k], v);
		fill_ratios(&m->row[r], m->ngroup, m->baseline);
	}
	free(v);
	lookup_free(&lk, m->nhosts);
	return ret;
}

static int add_gap(struct pmb_merged *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_gap(struct pmb_merged *m, const char *fmt, ...)
{
	char(*grown)[2 * PMB_MERGE_TEXT] = realloc(m->gap, (m->ngap + 1) * sizeof(*grown));
	va_list ap;

	if (!grown)
		return -ENOMEM;
	m->gap = grown;
	va_start(ap, fmt);
	vsnprintf(m->gap[m->ngap++], sizeof(*grown), fmt, ap);
	va_end(ap);
	return 0;
}

/* Whether a row before r has r's figure in state st in group k. */
static bool key_seen(const struct pmb_merged *m, size_t k, enum pmb_merge_cell_state st, size_t r)
{
	for (size_t i = 0; i < r; i++)
		if (m->row[i].cell[k].state == st && !strcmp(m->row[i].key, m->row[r].key))
			return true;
	return false;
}

/* "a, b, c and 4 more" of the rows of group k in state st (one name per
 * benchmark), into buf; how many. */
static size_t names_in_state(const struct pmb_merged *m, size_t k, enum pmb_merge_cell_state st,
			     bool by_key, char *buf, size_t size)
{
	size_t n = 0, len = 0;
	const char *last = NULL;

	buf[0] = '\0';
	for (size_t r = 0; r < m->nrow; r++) {
		const char *name = by_key ? m->row[r].key : m->row[r].bench;

		if (m->row[r].cell[k].state != st || (!by_key && last && !strcmp(last, name)))
			continue;
		if (by_key && key_seen(m, k, st, r))
			continue;
		last = name;
		if (n++ < GAP_NAMES && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", n > 1 ? ", " : "", name);
	}
	if (n > GAP_NAMES && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - GAP_NAMES);
	return n;
}

/* Gaps between groups: versions, benchmark sets, figures (other counters). */
static int group_gaps(struct pmb_merged *m)
{
	char names[PMB_MERGE_TEXT];
	size_t n;
	int ret = 0;

	for (size_t k = 0; k < m->ngroup && !ret; k++) {
		const struct pmb_merge_group *g = &m->group[k];

		if (strchr(g->versions, ','))
			ret = add_gap(m, "group %s: its hosts ran different pmubench versions (%s)",
				      g->label, g->versions);
		else if (k && strcmp(g->versions, m->group[0].versions))
			ret = add_gap(m, "group %s ran pmubench %s, group %s ran %s", g->label, g->versions,
				      m->group[0].label, m->group[0].versions);
		if (!ret && (n = names_in_state(m, k, PMB_CELL_NO_BENCH, false, names, sizeof(names))))
			ret = add_gap(m, "group %s did not run %zu benchmark%s the others ran: %s", g->label, n,
				      n == 1 ? "" : "s", names);
		if (!ret && (n = names_in_state(m, k, PMB_CELL_FAILED, false, names, sizeof(names))))
			ret = add_gap(m, "group %s: %zu benchmark%s failed or skipped on every host: %s",
				      g->label, n, n == 1 ? "" : "s", names);
		if (!ret && (n = names_in_state(m, k, PMB_CELL_NO_FIGURE, true, names, sizeof(names))))
			ret = add_gap(m, "group %s has no %s (other counters, or none): %s", g->label,
				      n == 1 ? "figure" : "figures", names);
	}
	return ret;
}

/* Gaps inside a group: a benchmark measured on some of its hosts only
 * (the most hosts any of its figures has). */
static int host_gaps(struct pmb_merged *m)
{
	int ret = 0;

	for (size_t r = 0, end; r < m->nrow && !ret; r = end) {
		for (end = r + 1; end < m->nrow && !strcmp(m->row[end].bench, m->row[r].bench); end++)
			;
		for (size_t k = 0; k < m->ngroup && !ret; k++) {
			size_t most = 0;

			for (size_t i = r; i < end; i++)
				most = m->row[i].cell[k].nhost > most ? m->row[i].cell[k].nhost : most;
			if (most && most < m->group[k].nhost)
				ret = add_gap(m, "group %s: %s measured on %zu of its %zu hosts", m->group[k].label,
					      m->row[r].bench, most, m->group[k].nhost);
		}
	}
	return ret;
}

int pmb__merge_analyse(struct pmb_merged *m, const char *baseline, char *err, size_t errlen)
{
	int ret;

	if (!m->nhosts) {
		snprintf(err, errlen, "no result file could be read: nothing to merge");
		return -EINVAL;
	}
	ret = make_groups(m);
	if (!ret)
		ret = pick_baseline(m, baseline, err, errlen);
	if (!ret)
		ret = make_rows(m);
	if (!ret)
		ret = group_gaps(m);
	if (!ret)
		ret = host_gaps(m);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	return ret;
}

void pmb__merge_analysis_free(struct pmb_merged *m)
{
	if (!m)
		return;
	for (size_t k = 0; k < m->ngroup; k++)
		free(m->group[k].host);
	for (size_t r = 0; r < m->nrow; r++)
		free(m->row[r].cell);
	free(m->group);
	free(m->row);
	free(m->gap);
	m->group = NULL;
	m->row = NULL;
	m->gap = NULL;
	m->ngroup = m->nrow = m->ngap = 0;
}
