/* registry.c - the benchmark table: registration, argument expansion, filtering, links. */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "base.h"

/* The library's own copy of each definition, at this header's size: a
 * definition from an older header has the fields it lacks zero. */
static struct pmb_benchmark_def **defs;
static size_t ndefs, capdefs;
static struct pmb_registry_refusals refused;
static size_t first_shown; /* definitions before it are not run */
static char expand_err[1024]; /* pmb__registry_error() */
/* A definition's source as shown: file, line and object, cut to this. */
#define SOURCE_SHOWN 256

/* The smallest definition read: one that holds .func. */
#define DEF_MIN_SIZE (offsetof(struct pmb_benchmark_def, func) + sizeof(void (*)(struct pmb_state *)))

static int refuse(const struct pmb_benchmark_def *def, int err)
{
	if (refused.n++ == 0) {
		refused.first_err = err;
		refused.first_abi = def->abi;
		refused.first_size = def->size;
	}
	return err;
}

PMB_API int pmb_register(const struct pmb_benchmark_def *def)
{
	struct pmb_benchmark_def *copy;

	if (def->abi != PMB_VERSION_MAJOR)
		return refuse(def, PMB_EABI);
	if (def->size < DEF_MIN_SIZE)
		return refuse(def, PMB_EDEFSIZE);
	if (ndefs == capdefs) {
		size_t cap = capdefs ? capdefs * 2 : 64;
		struct pmb_benchmark_def **p = realloc(defs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		defs = p;
		capdefs = cap;
	}
	copy = calloc(1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	/* A newer header's definition (same major): the fields this library
	 * knows; the ones it does not are additions it cannot act on. */
	memcpy(copy, def, def->size < sizeof(*copy) ? def->size : sizeof(*copy));
	copy->size = sizeof(*copy);
	defs[ndefs++] = copy;
	return 0;
}

struct pmb_registry_refusals pmb__registry_refusals(void)
{
	return refused;
}

void pmb__registry_show_from(size_t i)
{
	first_shown = i;
}

void pmb__registry_truncate(size_t n)
{
	while (ndefs > n)
		free(defs[--ndefs]);
}

size_t pmb__registry_count(void)
{
	return ndefs;
}

const struct pmb_benchmark_def *pmb__registry_get(size_t i)
{
	return i < ndefs ? defs[i] : NULL;
}

struct axis_point {
	int64_t v;
	char label[48];
	char tier[8];
};

/* Values of one axis; returns the count (at least 1: an empty axis is one
 * point with value 0 and no label). */
static size_t axis_points(const struct pmb_axis *a, const struct pmb_tier_point *tiers,
			  size_t ntiers, struct axis_point *out, size_t max, int *err)
{
	size_t n = 0;

	switch (a->kind) {
	case PMB_AXIS_NONE:
		out[0] = (struct axis_point){ 0 };
		return 1;
	case PMB_AXIS_LIST:
		for (size_t i = 0; i < a->n && n < max; i++, n++) {
			out[n] = (struct axis_point){ .v = a->list[i] };
			if (a->labels) /* users' text: shown as it is where safe */
				pmb__text_safe(out[n].label, sizeof(out[n].label), a->labels[i]);
			else
				snprintf(out[n].label, sizeof(out[n].label), "%s%" PRId64,
					 a->prefix ? a->prefix : "", a->list[i]);
		}
		return n;
	case PMB_AXIS_RANGE: {
		int64_t mult = a->mult > 1 ? a->mult : 8;

		for (int64_t v = a->lo; n < max; v *= mult) {
			if (v >= a->hi || v <= 0)
				v = a->hi;
			out[n] = (struct axis_point){ .v = v };
			snprintf(out[n].label, sizeof(out[n].label), "%s%" PRId64,
				 a->prefix ? a->prefix : "", v);
			n++;
			if (v == a->hi)
				break;
		}
		return n;
	}
	case PMB_AXIS_TIERS:
		if (!tiers) {
			*err = PMB_ENOCACHE;
			return 0;
		}
		for (size_t i = 0; i < ntiers && n < max; i++, n++) {
			out[n] = (struct axis_point){ .v = (int64_t)tiers[i].bytes };
			pmb__format_bytes(out[n].label, sizeof(out[n].label), tiers[i].bytes);
			snprintf(out[n].tier, sizeof(out[n].tier), "%s", tiers[i].tier);
		}
		return n;
	}
	*err = -EINVAL;
	return 0;
}

/* group/name, made safe to show (text.h): every output writes the
 * instances' names, so the escapes are made once, here. */
static void family_name(const struct pmb_benchmark_def *d, char *buf, size_t n)
{
	const char *name = d->name ? d->name : d->fname;
	char raw[256];

	if (d->group && *d->group)
		snprintf(raw, sizeof(raw), "%s/%s", d->group, name);
	else
		snprintf(raw, sizeof(raw), "%s", name);
	pmb__text_safe(buf, n, raw);
}

/* A link names a benchmark relative to the group, or in full. */
static int find_link(struct pmb_instance *all, size_t n, size_t self, const char *link)
{
	char raw[200], full[200], bare[200];
	const struct pmb_benchmark_def *d = all[self].def;

	if (!link)
		return -1;
	if (d->group && *d->group)
		snprintf(raw, sizeof(raw), "%s/%s", d->group, link);
	else
		snprintf(raw, sizeof(raw), "%s", link);
	/* Families are named in safe text (family_name): links too. */
	pmb__text_safe(full, sizeof(full), raw);
	pmb__text_safe(bare, sizeof(bare), link);
	for (int pass = 0; pass < 2; pass++) {
		const char *want = pass == 0 ? full : bare;

		/* Same arguments first; a linked benchmark without arguments
		 * serves every instance. */
		for (size_t i = 0; i < n; i++)
			if (strcmp(all[i].family, want) == 0 &&
			    strcmp(all[i].args, all[self].args) == 0)
				return (int)i;
		for (size_t i = 0; i < n; i++)
			if (strcmp(all[i].family, want) == 0 && all[i].args[0] == 0)
				return (int)i;
	}
	return -1;
}

static int find_root(int *parent, int i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* The instances of every definition, in registration order. */
struct inst_list {
	struct pmb_instance *v;
	size_t n, cap;
};

/* A new zeroed instance at the end of l; NULL when out of memory. */
static struct pmb_instance *inst_list_add(struct inst_list *l)
{
	struct pmb_instance *x;

	if (l->n == l->cap) {
		size_t c2 = l->cap ? l->cap * 2 : 128;
		struct pmb_instance *q = realloc(l->v, c2 * sizeof(*q));

		if (!q)
			return NULL;
		l->v = q;
		l->cap = c2;
	}
	x = &l->v[l->n++];
	memset(x, 0, sizeof(*x));
	return x;
}

/* Instance x of def d in family fam at the points a (first axis) and b. */
static void instance_fill(struct pmb_instance *x, const struct pmb_benchmark_def *d,
			  const char *fam, const struct axis_point *a,
			  const struct axis_point *b)
{
	x->def = d;
	snprintf(x->family, sizeof(x->family), "%s", fam);
	x->arg[0] = a->v;
	x->arg[1] = b->v;
	snprintf(x->args, sizeof(x->args), "%s%s%s", a->label,
		 a->label[0] && b->label[0] ? "/" : "", b->label);
	snprintf(x->name, sizeof(x->name), "%.120s%s%.64s", fam,
		 x->args[0] ? "/" : "", x->args);
	if (a->tier[0] || b->tier[0]) {
		const struct axis_point *t = a->tier[0] ? a : b;

		snprintf(x->tier, sizeof(x->tier), "%s", t->tier);
		x->working_set = (uint64_t)t->v;
	}
}

/* Every instance of def d: the product of its two axes, appended to l.
 * Returns 0 or a negative error. */
static int def_expand(const struct pmb_benchmark_def *d, const struct pmb_tier_point *tiers,
		      size_t ntiers, struct inst_list *l)
{
	struct axis_point p0[PMB_MAX_TIER_POINTS * 2], p1[PMB_MAX_TIER_POINTS * 2];
	size_t n0, n1;
	char fam[160];
	int err = 0;

	n0 = axis_points(&d->args, tiers, ntiers, p0, 128, &err);
	n1 = axis_points(&d->args2, tiers, ntiers, p1, 128, &err);
	if (err)
		return err;
	family_name(d, fam, sizeof(fam));
	for (size_t i = 0; i < n0; i++) {
		for (size_t j = 0; j < n1; j++) {
			struct pmb_instance *x = inst_list_add(l);

			if (!x)
				return -ENOMEM;
			instance_fill(x, d, fam, &p0[i], &p1[j]);
		}
	}
	return 0;
}

/* What a kept benchmark is measured against is measured too, so its
 * normalized and ratio columns exist; follow chains of links. */
static void keep_linked(const struct pmb_instance *all, size_t n, bool *keep)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			int l[2] = { all[i].baseline, all[i].reference };

			for (int k = 0; k < 2; k++)
				if (keep[i] && l[k] >= 0 && !keep[l[k]]) {
					keep[l[k]] = true;
					changed = true;
				}
		}
	}
}

/* Cohorts: benchmarks linked to each other run interleaved, so drift of
 * the machine affects both sides of a comparison alike.  Links are
 * renumbered through map (index in all -> index in sel) on the way;
 * parent is scratch for nsel entries. */
static void cohorts_assign(struct pmb_instance *sel, size_t nsel, const int *map,
			   int *parent)
{
	for (size_t i = 0; i < nsel; i++)
		parent[i] = (int)i;
	for (size_t i = 0; i < nsel; i++) {
		if (sel[i].baseline >= 0)
			sel[i].baseline = map[sel[i].baseline];
		if (sel[i].reference >= 0)
			sel[i].reference = map[sel[i].reference];
		int l[2] = { sel[i].baseline, sel[i].reference };
		for (int k = 0; k < 2; k++)
			if (l[k] >= 0)
				parent[find_root(parent, (int)i)] = find_root(parent, l[k]);
	}
	for (size_t i = 0; i < nsel; i++)
		sel[i].cohort = find_root(parent, (int)i);
}

const char *pmb__registry_error(void)
{
	return expand_err;
}

/* Where definition d comes from: "FILE:LINE in OBJECT" (the shared object
 * or program holding its function), so that two copies of one plugin are
 * told apart. */
static void def_source(const struct pmb_benchmark_def *d, char *buf, size_t n)
{
	Dl_info info;
	const char *obj = dladdr((void *)(uintptr_t)d->func, &info) && info.dli_fname ? info.dli_fname : "?";
	char raw[SOURCE_SHOWN];

	snprintf(raw, sizeof(raw), "%s:%d in %s", d->file ? d->file : "?", d->line, obj);
	pmb__text_safe(buf, n, raw);
}

static int by_name(const void *x, const void *y)
{
	const struct pmb_instance *const *a = x, *const *b = y;
	int c = strcmp((*a)->name, (*b)->name);

	return c ? c : (*a > *b) - (*a < *b); /* registration order */
}

/* Two instances of one name would run twice, and compare would pool them
 * as repetitions of one benchmark: refused, naming both definitions.
 * Sorted, O(n log n).  Returns 0, -ENOMEM, or -EEXIST (the error says). */
static int names_unique(const struct pmb_instance *v, size_t n)
{
	const struct pmb_instance **by = malloc((n + 1) * sizeof(*by));
	char src[2][SOURCE_SHOWN];
	int err = 0;

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by[i] = &v[i];
	qsort(by, n, sizeof(*by), by_name);
	for (size_t i = 1; i < n && !err; i++)
		if (!strcmp(by[i - 1]->name, by[i]->name)) {
			def_source(by[i - 1]->def, src[0], sizeof(src[0]));
			def_source(by[i]->def, src[1], sizeof(src[1]));
			snprintf(expand_err, sizeof(expand_err), "benchmark '%s' is defined twice: at %s and at %s; "
				 "expected each name once (rename one, or load one copy)", by[i]->name, src[0], src[1]);
			err = -EEXIST;
		}
	free(by);
	return err;
}

int pmb__registry_expand(const regex_t *filter, const struct pmb_tier_point *tiers,
			size_t ntiers, struct pmb_instance **out, size_t *nout)
{
	struct inst_list all = { 0 };
	struct pmb_instance *sel = NULL;
	size_t n, nsel = 0;
	bool *keep = NULL;
	int *map = NULL, *parent = NULL;
	int err = 0;

	*out = NULL;
	*nout = 0;
	expand_err[0] = '\0';
	for (size_t d = first_shown; d < ndefs && !err; d++)
		if (defs[d]->func)
			err = def_expand(defs[d], tiers, ntiers, &all);
	if (!err)
		err = names_unique(all.v, all.n);
	if (err)
		goto fail;
	n = all.n;
	keep = calloc(n + 1, sizeof(*keep));
	map = malloc((n + 1) * sizeof(*map));
	parent = malloc((n + 1) * sizeof(*parent));
	sel = malloc((n + 1) * sizeof(*sel));
	if (!keep || !map || !parent || !sel) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		all.v[i].baseline = find_link(all.v, n, i, all.v[i].def->baseline);
		all.v[i].reference = find_link(all.v, n, i, all.v[i].def->reference);
		keep[i] = !filter || regexec(filter, all.v[i].name, 0, NULL, 0) == 0;
	}
	keep_linked(all.v, n, keep);
	for (size_t i = 0; i < n; i++) {
		map[i] = keep[i] ? (int)nsel : -1;
		if (keep[i])
			sel[nsel++] = all.v[i];
	}
	cohorts_assign(sel, nsel, map, parent);
	*out = sel;
	*nout = nsel;
	sel = NULL;
fail:
	free(all.v);
	free(sel);
	free(keep);
	free(map);
	free(parent);
	return err;
}
