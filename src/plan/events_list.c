/* events_list.c - the events module: --list-events (generic names, aliases, sets, sysfs Arm events, libpfm4's tables). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base.h"
#include "events_internal.h"
#include "pmubench.h"

typedef void (*list_fn)(void *ctx, const char *pmu, const char *name, const char *desc);

/* As --counters compares names: BR_MISP finds br-misp-retired. */
static bool matches(const char *name, const char *pattern)
{
	return pmb__near_contains(name, pattern);
}

struct list_ctx {
	const char *pattern;
	list_fn fn;
	void *ctx;
	const char *pmu; /* of the event whose umasks are listed */
};

/* perf's generic PMUs repeat the names listed above. */
static bool not_generic(void *ctx, pfm_pmu_t p, const pfm_pmu_info_t *pi)
{
	(void)ctx;
	(void)p;
	return pi->type != PFM_PMU_TYPE_OS_GENERIC;
}

/* One entry, if it matches the pattern. */
static int list_one(const struct list_ctx *l, const char *pmu, const char *name, const char *desc)
{
	if (!matches(name, l->pattern))
		return 0;
	l->fn(l->ctx, pmu, name, desc);
	return 1;
}

/* A umask of the event being listed, as "EVENT:UMASK". */
static int list_umask(void *ctx, const char *full, const char *desc)
{
	const struct list_ctx *l = ctx;

	return list_one(l, l->pmu, full, desc);
}

static int list_event(void *ctx, const pfm_pmu_info_t *pi, int i, const pfm_event_info_t *ei)
{
	struct list_ctx *l = ctx;

	l->pmu = pi->name;
	return list_one(l, pi->name, ei->name, ei->desc ? ei->desc : "") +
	       pmb__pfm_for_umasks(i, ei, list_umask, l);
}

static int list_pfm(const char *pattern, list_fn fn, void *ctx)
{
	struct list_ctx l = { pattern, fn, ctx, NULL };

	return pmb__pfm_for_events(not_generic, list_event, &l);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The events/ files of the core's sysfs Arm PMU, sorted: the common events
 * it implements, under the names --counters takes. */
static int list_arm_sysfs(const struct pmb__events_ctx *c, const char *pattern, list_fn fn, void *ctx)
{
	char path[768], desc[160], *names[256];
	int nn = 0, n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/events", pmb__events.sysfs_root, c->arm.name);
	if (!c->arm.name[0] || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) && nn < (int)(sizeof(names) / sizeof(names[0])))
		if (de->d_name[0] != '.' && matches(de->d_name, pattern) && (names[nn] = strdup(de->d_name)))
			nn++;
	closedir(d);
	qsort(names, (size_t)nn, sizeof(names[0]), cmp_str);
	for (int i = 0; i < nn; i++) {
		uint64_t code;
		const char *arch;

		snprintf(path, sizeof(path), "%s/%s/events/%s", pmb__events.sysfs_root, c->arm.name,
			 names[i]);
		if (pmb__sysfs_read_event(path, &code)) {
			arch = pmb__arm_event_name(code);
			snprintf(desc, sizeof(desc), "%s%sevent %#llx, implemented (the kernel lists it)",
				 arch ? arch : "", arch ? ": " : "", (unsigned long long)code);
			fn(ctx, c->arm.name, names[i], desc);
			n++;
		}
		free(names[i]);
	}
	return n;
}

static int list_generics(const char *pattern, list_fn fn, void *ctx)
{
	int n = 0;

	for (int i = 0; i < pmb__ngenerics; i++) {
		if (matches(pmb__generics[i].name, pattern)) {
			fn(ctx, "perf", pmb__generics[i].name, pmb__generics[i].desc);
			n++;
		}
	}
	return n;
}

/* Each alias once, with what it is on c's PMU. */
static int list_aliases(const struct pmb__events_ctx *c, const char *pattern, list_fn fn, void *ctx)
{
	const struct pmb_tables *t = &pmb__events.tab;
	char desc[800];
	int n = 0;

	for (int i = 0; i < t->nalias; i++) {
		const char *alias = t->alias[i].name;
		const struct pmb_alias_row *r;

		/* once: at the name's first row (by index, not by a search of
		 * the rows before, which was quadratic) */
		if (pmb__tables_alias_first(t, alias) != i || !matches(alias, pattern))
			continue;
		r = pmb__events_alias_for(c, alias);
		if (r)
			snprintf(desc, sizeof(desc), "%s [%s: %s]", pmb__tables_about(t, alias),
				 strcmp(r->pmu, "*") ? r->pmu : "perf", r->event);
		else
			snprintf(desc, sizeof(desc), "%s [no mapping for %s]",
				 pmb__tables_about(t, alias), c->plan->pmu_name);
		fn(ctx, "alias", alias, desc);
		n++;
	}
	return n;
}

static int list_sets(const char *pattern, list_fn fn, void *ctx)
{
	const struct pmb_tables *t = &pmb__events.tab;
	char desc[800], name[PMB__NAME_LEN + 1];
	int n = 0;

	for (int i = 0; i < t->nset; i++) {
		snprintf(name, sizeof(name), "@%s", t->set[i].name);
		if (!matches(name, pattern))
			continue;
		snprintf(desc, sizeof(desc), "%s [%s]", pmb__tables_about(t, name), t->set[i].members);
		fn(ctx, "set", name, desc);
		n++;
	}
	return n;
}

int pmb__events_list(const char *pattern, list_fn fn, void *ctx)
{
	struct pmb_event_plan *plan;
	struct pmb__events_ctx c;
	int n, err;

	if ((err = pmb__events_lazy_init()) < 0)
		return err;
	if (!(plan = calloc(1, sizeof(*plan))))
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	pmb__pmu_pick(&c, -1);
	n = list_generics(pattern, fn, ctx);
	n += list_aliases(&c, pattern, fn, ctx);
	n += list_sets(pattern, fn, ctx);
	if (c.vendor == PMB_VENDOR_ARM)
		n += list_arm_sysfs(&c, pattern, fn, ctx);
	free(plan);
	return n + list_pfm(pattern, fn, ctx);
}
