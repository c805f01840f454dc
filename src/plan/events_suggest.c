/* events_suggest.c - the events module: the error for a bad event name, with its closest known names. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events_internal.h"
#include "pmubench.h"

#define NSUGG 3
#define SUGG_LEN 96

struct sugg {
	const char *bad;
	int max;  /* farthest distance still worth suggesting */
	int n;
	int d[NSUGG];
	char name[NSUGG][SUGG_LEN];
};

static int fold(int ch)
{
	ch = tolower(ch);
	return ch == '_' ? '-' : ch;
}

/* Edit distance, case-insensitive, '_' equal to '-'. */
static int distance(const char *a, const char *b)
{
	int prev[SUGG_LEN + 1], cur[SUGG_LEN + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > SUGG_LEN || lb > SUGG_LEN)
		return INT_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (fold(a[i - 1]) != fold(b[j - 1]));
			int del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb];
}

static void consider(struct sugg *s, const char *cand)
{
	int d = distance(s->bad, cand), i;

	if (d > s->max)
		return;
	/* BR_MISP_RETIRED and the alias br-misp-retired: suggest one */
	for (i = 0; i < s->n; i++)
		if (!distance(s->name[i], cand))
			return;
	/* keep the NSUGG closest, first seen first among equals */
	for (i = s->n; i > 0 && s->d[i - 1] > d; i--) {
		if (i < NSUGG) {
			s->d[i] = s->d[i - 1];
			pmb__str_copy(s->name[i], SUGG_LEN, s->name[i - 1]);
		}
	}
	if (i >= NSUGG)
		return;
	s->d[i] = d;
	pmb__str_copy(s->name[i], SUGG_LEN, cand);
	if (s->n < NSUGG)
		s->n++;
}

static void sugg_start(struct sugg *s, const char *bad)
{
	int len = (int)strlen(bad);

	memset(s, 0, sizeof(*s));
	s->bad = bad;
	s->max = len / 3 > 2 ? len / 3 : 2;
}

struct pmu_sugg {
	struct sugg *s;
	const struct pmb__events_ctx *c;
	const char *base;
};

/* The plan's PMU, or every present core PMU if it has none. */
static bool plan_pmu(void *ctx, pfm_pmu_t p, const pfm_pmu_info_t *pi)
{
	const struct pmu_sugg *u = ctx;

	return u->c->pmu_id >= 0 ? (int)p == u->c->pmu_id : pi->type == PFM_PMU_TYPE_CORE;
}

static int consider_umask(void *ctx, const char *full, const char *desc)
{
	(void)desc;
	consider(ctx, full);
	return 0;
}

/* Event i as a candidate, or, when base names it, its umasks as base:UMASK. */
static int consider_event(void *ctx, const pfm_pmu_info_t *pi, int i, const pfm_event_info_t *ei)
{
	const struct pmu_sugg *u = ctx;

	(void)pi;
	if (!u->base) {
		consider(u->s, ei->name);
		return 0;
	}
	if (strcasecmp(ei->name, u->base))
		return 0;
	return pmb__pfm_for_umasks(i, ei, consider_umask, u->s);
}

/* Candidates from the plan's PMU (every present core PMU if none): its
 * event names, or, when base names one of its events, base:UMASK. */
static void consider_pmu_events(struct sugg *s, const struct pmb__events_ctx *c, const char *base)
{
	struct pmu_sugg u = { s, c, base };

	pmb__pfm_for_events(plan_pmu, consider_event, &u);
}

static void sugg_text(const struct sugg *s, char *out, size_t size)
{
	size_t len;

	if (!s->n) {
		pmb__str_copy(out, size, " (no close match; --list-events shows the known ones)");
		return;
	}
	pmb__str_copy(out, size, ": did you mean ");
	for (int i = 0; i < s->n; i++) {
		len = strlen(out);
		snprintf(out + len, size - len, "%s%s", i ? ", " : "", s->name[i]);
	}
	len = strlen(out);
	snprintf(out + len, size - len, "?");
}

/* "skx::EVENT" where skx is not a PMU of this machine: say so, and how to
 * encode for it anyway, rather than suggest names from another PMU.
 * (libpfm lists absent PMUs inconsistently, so the test is "no present PMU
 * has that name".)  Returns true with the error set. */
static bool absent_pmu(const struct pmb__events_ctx *c, const char *name, const char *sep)
{
	char pmu[SUGG_LEN];
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
static void consider_all_names(struct sugg *s, const struct pmb__events_ctx *c, const char *base)
{
	const char *bare = s->bad, *arm;

	s->bad = base;
	consider_pmu_events(s, c, NULL);
	for (int i = 0; c->vendor == PMB_VENDOR_ARM && (arm = pmb__arm_event_at(i)); i++)
		consider(s, arm);
	s->bad = bare;
	for (int i = 0; i < pmb__ngenerics; i++)
		consider(s, pmb__generics[i].name);
	for (int i = 0; i < pmb__events.tab.nalias; i++)
		consider(s, pmb__events.tab.alias[i].name);
}

int pmb__events_unknown_event(const struct pmb__events_ctx *c, const char *name, int pfmerr)
{
	bool notfound = pfmerr == PFM_ERR_NOTFOUND || pfmerr == PFM_ERR_NOINIT;
	const char *bare = strstr(name, "::");
	char base[SUGG_LEN], text[400];
	struct sugg s;
	char *colon;

	if (bare && absent_pmu(c, name, bare))
		return PMB_EBADEVENT;
	bare = bare ? bare + 2 : name;
	pmb__str_copy(base, sizeof(base), bare);
	if ((colon = strchr(base, ':')))
		*colon = '\0';
	sugg_start(&s, bare);
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
	struct sugg s;

	sugg_start(&s, ref);
	for (int i = 0; i < pmb__events.tab.nset; i++) {
		snprintf(cand, sizeof(cand), "@%s", pmb__events.tab.set[i].name);
		consider(&s, cand);
	}
	sugg_text(&s, text, sizeof(text));
	pmb__events_set_error("unknown event set '%s'%s", ref, text);
	return PMB_EBADEVENT;
}
