/* sim_instr.c - --disasm under the simulator: callgrind's per-instruction costs of one benchmark's samples, placed on its listing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "pmubench.h"
#include "sim_internal.h"

/* The costs of every instruction that ran, dump by dump (one dump per
 * meter stop: the calibration pass first, then the samples), whichever
 * object and function it is in: what the listing places and what it
 * does not are told apart only once the samples are known. */
#define MAX_STOPS 64
#define MAX_NAMES 4096

/* A function earns a part of its own, found by its counts, from this
 * share of the counted instructions up; below, it is named as not
 * placed. */
#define FOUND_MIN 0.01

/* One instruction's own cost in one dump. */
struct rec {
	int ob, fn;
	uint64_t addr;
	double v[PMB_DA_NCOUNT];
};

struct dump {
	struct rec *r;
	size_t n, cap;
};

struct pmb__sim_instr {
	struct pmb_disasm *d;
	char *ob[MAX_NAMES], *fn[MAX_NAMES]; /* callgrind's compressed names */
	struct dump dump[MAX_STOPS];
	int nstops;
	int err;
};

/* callgrind's columns for each count of the listing. */
static const enum pmb__sim_col count_col[PMB_DA_NCOUNT] = {
	[PMB_DA_EXEC] = PMB__COL_IR, [PMB_DA_MISP] = PMB__COL_BCM,
	[PMB_DA_L1D] = PMB__COL_D1MR, [PMB_DA_LL] = PMB__COL_DLMR,
};

/* What one dump's reading keeps between lines. */
struct dump_state {
	int pos[PMB__NCOL + 8], ncols, npos;
	bool call_cost;
	int ob, fn;
	uint64_t addr;
};

/* "(3) name", "(3)" or "name": the id of the name in table t (a name
 * without an id gets the first free one past those callgrind gave). */
static int name_id(struct pmb__sim_instr *a, char **t, const char *v)
{
	long id = -1;
	const char *name = v;

	if (*v == '(') {
		id = strtol(v + 1, (char **)&name, 10);
		name += *name == ')';
		name += strspn(name, " ");
	}
	for (long i = MAX_NAMES - 1; id < 0 && i >= 0; i--)
		if (t[i] && !strcmp(t[i], name))
			id = i;
	for (long i = MAX_NAMES - 1; id < 0 && i >= 0; i--)
		if (!t[i] && (i == 0 || t[i - 1]))
			id = i;
	if (id < 0 || id >= MAX_NAMES)
		return -1;
	if (*name && !t[id] && !(t[id] = strdup(name)))
		a->err = -ENOMEM;
	return (int)id;
}

/* One position: "0x1a2b", "+7", "-3" or "*"; *p moves past it. */
static uint64_t parse_pos(const char **p, uint64_t last)
{
	char *end;
	uint64_t v = last;

	if (**p == '*')
		(*p)++;
	else if (**p == '+' || **p == '-')
		v = last + (uint64_t)strtoll(*p, &end, 0), *p = end;
	else
		v = strtoull(*p, &end, 0), *p = end;
	*p += strspn(*p, " \t");
	return v;
}

static void cost_line(struct pmb__sim_instr *a, struct dump_state *st, const char *p)
{
	uint64_t v[PMB__NCOL] = { 0 };
	struct dump *dp = &a->dump[a->nstops];
	struct rec *r;

	st->addr = parse_pos(&p, st->addr);
	for (int k = 1; k < st->npos; k++)
		(void)parse_pos(&p, 0);
	for (int i = 0; i < st->ncols && *p; i++) {
		char *end;
		unsigned long long x = strtoull(p, &end, 10);

		if (end == p)
			break;
		if (st->pos[i] >= 0)
			v[st->pos[i]] = x;
		p = end;
	}
	/* The line after calls= is the call's inclusive cost, not the
	 * instruction's own. */
	if (st->call_cost)
		return;
	if (dp->n == dp->cap) {
		size_t cap = dp->cap ? 2 * dp->cap : 256;
		void *m = realloc(dp->r, cap * sizeof(*dp->r));

		if (!m) {
			a->err = -ENOMEM;
			return;
		}
		dp->r = m;
		dp->cap = cap;
	}
	r = &dp->r[dp->n++];
	r->ob = st->ob;
	r->fn = st->fn;
	r->addr = st->addr;
	for (int k = 0; k < PMB_DA_NCOUNT; k++)
		r->v[k] = (double)v[count_col[k]];
}

static void events_line(struct dump_state *st, const char *p)
{
	st->ncols = 0;
	while (*(p += strspn(p, " \t")) && st->ncols < (int)PMB__ARRAY_LEN(st->pos)) {
		size_t len = strcspn(p, " \t\n");

		st->pos[st->ncols] = -1;
		for (int c = 0; c < PMB__NCOL; c++)
			if (strlen(pmb__sim_col_name[c]) == len && !strncmp(p, pmb__sim_col_name[c], len))
				st->pos[st->ncols] = c;
		st->ncols++;
		p += len;
	}
}

static void read_line(struct pmb__sim_instr *a, struct dump_state *st, const char *line)
{
	if (!strncmp(line, "events:", 7)) {
		events_line(st, line + 7);
	} else if (!strncmp(line, "positions:", 10)) {
		st->npos = strstr(line, "line") ? 2 : 1;
	} else if (!strncmp(line, "ob=", 3)) {
		st->ob = name_id(a, a->ob, line + 3);
	} else if (!strncmp(line, "cob=", 4)) {
		(void)name_id(a, a->ob, line + 4); /* names an id, nothing more */
	} else if (!strncmp(line, "fn=", 3)) {
		st->fn = name_id(a, a->fn, line + 3);
	} else if (!strncmp(line, "cfn=", 4)) {
		(void)name_id(a, a->fn, line + 4);
	} else if (!strncmp(line, "calls=", 6)) {
		st->call_cost = true;
		return;
	} else if (line[0] == '+' || line[0] == '-' || line[0] == '*' || (line[0] >= '0' && line[0] <= '9')) {
		cost_line(a, st, line);
	}
	st->call_cost = false;
}

static void on_dump(void *arg, const char *path)
{
	struct pmb__sim_instr *a = arg;
	struct dump_state st = { .npos = 1, .ob = -1, .fn = -1 };
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (a->err || a->nstops == MAX_STOPS)
		return;
	f = fopen(path, "r");
	if (!f) {
		a->err = -errno;
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		read_line(a, &st, line);
	}
	free(line);
	fclose(f);
	a->nstops++;
}

/* What the kept dumps add up to: each instruction's cost once (sorted by
 * object and address, equal ones merged), and the totals. */
struct kept {
	struct rec *r;
	size_t n;
	double all[PMB_DA_NCOUNT];
	double *fn_exec; /* per fn id */
};

static int by_place(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->ob != b->ob)
		return (a->ob > b->ob) - (a->ob < b->ob);
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static int merge_kept(struct pmb__sim_instr *a, int from, struct kept *k)
{
	size_t n = 0, m = 0;

	for (int s = from; s < a->nstops; s++)
		n += a->dump[s].n;
	k->r = malloc((n + 1) * sizeof(*k->r));
	k->fn_exec = calloc(MAX_NAMES, sizeof(double));
	if (!k->r || !k->fn_exec)
		return -ENOMEM;
	for (int s = from; s < a->nstops; s++) {
		memcpy(k->r + m, a->dump[s].r, a->dump[s].n * sizeof(*k->r));
		m += a->dump[s].n;
	}
	qsort(k->r, n, sizeof(*k->r), by_place);
	k->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct rec *r = &k->r[i];

		for (int c = 0; c < PMB_DA_NCOUNT; c++)
			k->all[c] += r->v[c];
		if (r->fn >= 0)
			k->fn_exec[r->fn] += r->v[PMB_DA_EXEC];
		if (k->n && by_place(&k->r[k->n - 1], r) == 0) {
			for (int c = 0; c < PMB_DA_NCOUNT; c++)
				k->r[k->n - 1].v[c] += r->v[c];
			continue;
		}
		k->r[k->n++] = *r;
	}
	return 0;
}

/* Each function at FOUND_MIN of the instructions or more that the listing
 * lacks: added as a part found by its counts.  why[fn] gets why one was
 * not ("" added or placed). */
static void add_found(struct pmb__sim_instr *a, const struct kept *k, char (*why)[32])
{
	for (size_t i = 0; i < k->n; i++) {
		const struct rec *r = &k->r[i];
		const char *file = r->ob >= 0 ? a->ob[r->ob] : NULL;
		int rc;

		if (r->fn < 0 || why[r->fn][0] || !file || pmb__disasm_find_in(a->d, file, r->addr))
			continue;
		if (k->fn_exec[r->fn] < FOUND_MIN * k->all[PMB_DA_EXEC]) {
			snprintf(why[r->fn], sizeof(why[0]), "under %g %%", 100 * FOUND_MIN);
			continue;
		}
		rc = pmb__disasm_add_found(a->d, file, r->addr, 0);
		if (rc < 0)
			snprintf(why[r->fn], sizeof(why[0]), "%s", rc == -ENOSPC ? "too many parts" :
				 rc == -ENOENT ? "no symbol holds it" : "its file cannot be read");
	}
}

/* What the listing could not place, one entry per function, largest
 * first (unplaced[fn]: its instructions' share; the last entry, past the
 * names, those with no function). */
static void name_unplaced(struct pmb__sim_instr *a, const double *unplaced, const char *const *file,
			  char (*why)[32])
{
	for (;;) {
		int best = -1;

		for (int f = 0; f <= MAX_NAMES; f++)
			if (unplaced[f] > 0 && (best < 0 || unplaced[f] > unplaced[best]))
				best = f;
		if (best < 0)
			return;
		pmb__disasm_unplaced(a->d, best < MAX_NAMES && a->fn[best] ? a->fn[best] : "(no function name)",
				     file[best] ? file[best] : "", why[best][0] ? why[best] : "no symbol holds it",
				     unplaced[best]);
		((double *)unplaced)[best] = 0;
	}
}

/* Each kept instruction's counts onto the listing, per item; what it
 * cannot place into unplaced[] (per function) and file[].  Returns the
 * executions placed. */
static double place(struct pmb__sim_instr *a, const struct kept *k, double items, double *unplaced,
		    const char **file)
{
	double placed = 0;

	for (size_t i = 0; i < a->d->n; i++)
		for (int c = 0; c < PMB_DA_NCOUNT; c++)
			a->d->insn[i].count[c] = 0;
	for (size_t i = 0; i < k->n; i++) {
		const struct rec *x = &k->r[i];
		const char *ob = x->ob >= 0 && a->ob[x->ob] ? a->ob[x->ob] : "";
		struct pmb_disasm_insn *in = pmb__disasm_find_in(a->d, ob, x->addr);
		int f = x->fn >= 0 ? x->fn : MAX_NAMES;

		if (!in) {
			unplaced[f] += x->v[PMB_DA_EXEC] / k->all[PMB_DA_EXEC];
			file[f] = ob;
			continue;
		}
		for (int c = 0; c < PMB_DA_NCOUNT; c++)
			in->count[c] += x->v[c] / items;
		placed += x->v[PMB_DA_EXEC];
	}
	return placed;
}

/* Counts per item over the samples the runner kept: the last nsamples
 * dumps (the first is the one-pass calibration sample). */
static int fill_counts(struct pmb__sim_instr *a, const struct pmb_result *r)
{
	struct pmb_disasm *d = a->d;
	struct kept k = { 0 };
	char (*why)[32] = calloc(MAX_NAMES + 1, sizeof(*why));
	double *unplaced = calloc(MAX_NAMES + 1, sizeof(double));
	const char **file = calloc(MAX_NAMES + 1, sizeof(*file));
	double items = 0, placed;
	int from = a->nstops - (int)r->m.nsamples, rc = -EPROTO;

	if (r->m.nsamples == 0 || from < 0 || !why || !unplaced || !file)
		goto out;
	rc = merge_kept(a, from, &k);
	if (rc || !k.all[PMB_DA_EXEC])
		goto out;
	for (size_t s = 0; s < r->m.nsamples; s++)
		items += (double)r->m.samples[s].passes * (double)(r->m.items_per_pass ? r->m.items_per_pass : 1);
	d->nunplaced = 0;
	d->unplaced_rest = 0;
	add_found(a, &k, why);
	placed = place(a, &k, items, unplaced, file);
	name_unplaced(a, unplaced, file, why);
	d->accounted_all = k.all[PMB_DA_EXEC] / items;
	d->accounted_share = placed / k.all[PMB_DA_EXEC];
	d->misp_all = k.all[PMB_DA_MISP] / items;
	d->counted = true;
	pmb__disasm_counted(d);
out:
	free(k.r);
	free(k.fn_exec);
	free(why);
	free(unplaced);
	free(file);
	return rc;
}

int pmb__sim_instr_begin(struct pmb__sim_instr **out, struct pmb_meter *m, struct pmb_disasm *d)
{
	struct pmb__sim_instr *a = calloc(1, sizeof(*a));

	*out = a;
	if (!a)
		return -ENOMEM;
	a->d = d;
	pmb__sim_meter_on_dump(m, on_dump, a);
	return 0;
}

int pmb__sim_instr_end(struct pmb__sim_instr *a, struct pmb_meter *m, int rc, const struct pmb_result *res,
		       const char *name)
{
	pmb__sim_meter_on_dump(m, NULL, NULL);
	if (!rc)
		rc = a->err;
	if (!rc && res->m.status == 0)
		rc = fill_counts(a, res);
	if (rc)
		pmb__sim_set_err("per-instruction counts of %s: %s", name,
				 rc == -EPROTO ? "the samples and callgrind's dumps do not match" : pmb_strerror(rc));
	for (int s = 0; s < a->nstops; s++)
		free(a->dump[s].r);
	for (int i = 0; i < MAX_NAMES; i++) {
		free(a->ob[i]);
		free(a->fn[i]);
	}
	free(a);
	return rc;
}
