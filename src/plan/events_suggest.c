/* events_suggest.c - the events module: the error for a bad event name, with its closest known names. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base.h"
#include "events_internal.h"
#include "pmubench.h"

struct pmu_sugg {
	struct pmb_near *s;
	const struct pmb__events_ctx *c;
	const char *base;
};

/* The plan's PMU, or every present core PMU if it has none. */
static bool plan_pmu(void *ctx, pfm_pmu_t p, const pfm_pmu_info_t *pi)
{
	const struct pmu_sugg *u = ctx;

	return u->c->pmu_id >= 0 ? (int)p == u->c->pmu_id : pi->type == PFM_PMU_TYPE_CORE;
}

/* libpfm4's names compare without regard to case: each in the case typed. */
static void consider_typed(struct pmb_near *s, const char *name)
{
	char typed[PMB_NEAR_LEN];

	pmb__near_consider(s, pmb__near_as_typed(s->bad, name, false, typed, sizeof(typed)));
}

static int consider_umask(void *ctx, const char *full, const char *desc)
{
	(void)desc;
	consider_typed(ctx, full);
	return 0;
}

/* Event i as a candidate, or, when base names it, its umasks as base:UMASK. */
static int consider_event(void *ctx, const pfm_pmu_info_t *pi, int i, const pfm_event_info_t *ei)
{
	const struct pmu_sugg *u = ctx;

	(void)pi;
	if (!u->base) {
		consider_typed(u->s, ei->name);
		return 0;
	}
	if (strcasecmp(ei->name, u->base))
		return 0;
	return pmb__pfm_for_umasks(i, ei, consider_umask, u->s);
}

/* Candidates from the plan's PMU (every present core PMU if none): its
 * event names, or, when base names one of its events, base:UMASK. */
static void consider_pmu_events(struct pmb_near *s, const struct pmb__events_ctx *c, const char *base)
{
	struct pmu_sugg u = { s, c, base };

	pmb__pfm_for_events(plan_pmu, consider_event, &u);
}

static void sugg_text(const struct pmb_near *s, char *out, size_t size)
{
	char names[PMB_NEAR_MAX * PMB_NEAR_LEN];

	if (!s->n) {
		pmb__str_copy(out, size, " (no close match; --list-events shows the known ones)");
		return;
	}
	pmb__near_join(s, names, sizeof(names));
	snprintf(out, size, ": did you mean %s?", names);
}

/* "skx::EVENT" where skx is not a PMU of this machine: say so, and how to
 * encode for it anyway, rather than suggest names from another PMU.
 * (libpfm lists absent PMUs inconsistently, so the test is "no present PMU
 * has that name".)  Returns true with the error set. */
static bool absent_pmu(const struct pmb__events_ctx *c, const char *name, const char *sep)
{
	char pmu[PMB_NEAR_LEN];
	pfm_pmu_info_t pi;
	pfm_pmu_t p;

	if ((size_t)(sep - name) >= sizeof(pmu))
		return false;
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(sep - name), name);
	if (!strcmp(pmu, "perf"))
		return false;
	pfm_for_all_pmus(p) {
		if (pmb__pmu_info(p, &pi) && pi.name && !strcmp(pi.name, pmu) && pi.is_present)
			return false;
	}
	pmb__events_set_error("event '%s' names PMU '%s', which this machine does not have "
			      "(its core PMU is '%s'); for a libpfm4 PMU, LIBPFM_FORCE_PMU=%s "
			      "encodes for it anyway",
			      name, pmu, c->plan->pmu_name[0] ? c->plan->pmu_name : "none", pmu);
	return true;
}

/* Candidates for a bare name that nothing knows: the PMU's own spelling
 * first (it wins ties and near-duplicates), then the Arm architectural
 * names, the generic names and the aliases.  base: bare without its
 * modifiers, which the PMU's names are compared with. */
static void consider_all_names(struct pmb_near *s, const struct pmb__events_ctx *c, const char *base)
{
	const char *bare = s->bad, *arm;
	char typed[PMB_NEAR_LEN];

	s->bad = base;
	consider_pmu_events(s, c, NULL);
	for (int i = 0; c->vendor == PMB_VENDOR_ARM && (arm = pmb__arm_event_at(i)); i++)
		pmb__near_consider(s, arm);
	s->bad = bare;
	/* in the user's spelling: aliases fold case and '_', perf's generic
	 * names case only */
	for (int i = 0; i < pmb__ngenerics; i++)
		pmb__near_consider(s, pmb__near_as_typed(bare, pmb__generics[i].name, false, typed, sizeof(typed)));
	for (int i = 0; i < pmb__events.tab.nalias; i++)
		pmb__near_consider(s, pmb__near_as_typed(bare, pmb__events.tab.alias[i].name, true, typed, sizeof(typed)));
}

int pmb__events_unknown_event(const struct pmb__events_ctx *c, const char *name, int pfmerr)
{
	bool notfound = pfmerr == PFM_ERR_NOTFOUND || pfmerr == PFM_ERR_NOINIT;
	const char *bare = strstr(name, "::");
	char base[PMB_NEAR_LEN], text[400];
	struct pmb_near s;
	char *colon;

	if (bare && absent_pmu(c, name, bare))
		return PMB_EBADEVENT;
	bare = bare ? bare + 2 : name;
	pmb__str_copy(base, sizeof(base), bare);
	if ((colon = strchr(base, ':')))
		*colon = '\0';
	pmb__near_start(&s, bare);
	if (colon && pfmerr != PFM_ERR_NOTFOUND)
		consider_pmu_events(&s, c, base); /* the event exists, a modifier or umask does not */
	else
		consider_all_names(&s, c, base);
	sugg_text(&s, text, sizeof(text));
	if (!colon && !notfound)
		text[0] = '\0'; /* it exists: a near name would not help */
	if (notfound)
		pmb__events_set_error("unknown event '%s'%s", name, text);
	else
		pmb__events_set_error("invalid event '%s' (%s)%s", name, pfm_strerror(pfmerr), text);
	return PMB_EBADEVENT;
}

int pmb__events_unknown_set(const char *ref)
{
	char cand[PMB__NAME_LEN + 1], text[400];
	struct pmb_near s;

	pmb__near_start(&s, ref);
	for (int i = 0; i < pmb__events.tab.nset; i++) {
		snprintf(cand, sizeof(cand), "@%s", pmb__events.tab.set[i].name);
		pmb__near_consider(&s, cand);
	}
	sugg_text(&s, text, sizeof(text));
	pmb__events_set_error("unknown event set '%s'%s", ref, text);
	return PMB_EBADEVENT;
}
