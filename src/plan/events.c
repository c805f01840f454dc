/* events.c - the events module: event names to perf_event_attr; loading, and resolving lists, sets, aliases and derived figures. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events_internal.h"
#include "pmubench.h"

/* The module's files and what each does: events_internal.h. */

#define MAX_SET_DEPTH 8

struct pmb__events_state pmb__events = {
	.sysfs_root = "/sys/bus/event_source/devices",
};

/* ---- loading: libpfm4 and the tables ------------------------------------------ */

/* The tables may not define an alias that would hide a perf generic name. */
static bool is_generic(const char *name)
{
	return pmb__generic_find(name, true) != NULL;
}

int pmb__events_init(const char *dir)
{
	pmb__events_fini();
	pmb__events_clear_error();
	pmb__events.init = true;
	pmb__events.pfm_ok = pfm_initialize() == PFM_SUCCESS;
	pmb__events.foreign = getenv("LIBPFM_ENCODE_INACTIVE") != NULL;
	return pmb__tables_load(&pmb__events.tab, dir, is_generic);
}

void pmb__events_fini(void)
{
	if (pmb__events.pfm_ok)
		pfm_terminate();
	pmb__events.pfm_ok = false;
	pmb__events.init = false;
	pmb__tables_free(&pmb__events.tab);
}

const char *pmb__events_dir(void)
{
	return pmb__events.tab.dir;
}

/* Tables are optional for resolving plain names: without them, aliases and
 * sets are simply unknown. */
int pmb__events_lazy_init(void)
{
	int err;

	if (pmb__events.init)
		return 0;
	err = pmb__events_init(NULL);
	return err == PMB_ENOTABLE ? 0 : err;
}

/* ---- aliases ---------------------------------------------------------------------- */

/* Rows of aliases.txt for every Arm core that has none of its own. */
#define ARM_FAMILY_ROWS "armv8_pmuv3"

const struct pmb_alias_row *pmb__events_alias_for(const struct pmb__events_ctx *c, const char *name)
{
	return pmb__tables_alias(&pmb__events.tab, name, c->pfm_pmu,
				 c->vendor == PMB_VENDOR_ARM ? ARM_FAMILY_ROWS : NULL);
}

/* A row's EVENT may offer alternatives, "BR_MIS_PRED_RETIRED|BR_MIS_PRED":
 * the first the core implements is taken; if it implements none, the last
 * that encodes, which is then reported with the reason (ev->unsupported). */
static int encode_alias(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev)
{
	const struct pmb_alias_row *r = pmb__events_alias_for(c, name);
	char alts[sizeof(r->event)], *save, *p;
	const struct pmb__generic *g;
	int ret = PFM_ERR_NOTFOUND;
	bool found = false;

	if (!r) {
		pmb__events_set_error("event alias '%s' has no mapping for PMU '%s' in %s/aliases.txt",
				      name, c->plan->pmu_name[0] ? c->plan->pmu_name : "(none)",
				      pmb__events.tab.dir);
		return PMB_EBADEVENT;
	}
	if (!strcmp(r->pmu, "*") && (g = pmb__generic_find(r->event, true))) {
		pmb__event_fill_generic(c, g, ev);
		return 0;
	}
	pmb__str_copy(alts, sizeof(alts), r->event);
	for (p = strtok_r(alts, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
		struct pmb_event alt;
		int err;

		memset(&alt, 0, sizeof(alt));
		if ((err = pmb__event_encode_named(c, p, &alt)) != PFM_SUCCESS) {
			if (!found)
				ret = err;
			continue;
		}
		pmb__event_judge(c, &alt);
		*ev = alt;
		found = true;
		if (!alt.unsupported[0])
			break;
	}
	if (!found) {
		pmb__events_set_error("event alias '%s' is '%s' (%s/aliases.txt:%d), which does not encode for PMU '%s': %s",
				      name, r->event, pmb__events.tab.dir, r->line, c->plan->pmu_name,
				      pfm_strerror(ret));
		return PMB_EBADEVENT;
	}
	return 0;
}

/* "BR_MISP_RETIRED" -> "br-misp-retired": a bare event name (no PMU
 * prefix, no modifiers) in the spelling of the alias tables. */
static bool portable_name(const char *name, char *out, size_t size)
{
	size_t i;

	if (strchr(name, ':') || strlen(name) >= size)
		return false;
	for (i = 0; name[i]; i++)
		out[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
	out[i] = 0;
	return true;
}

static bool same_attr(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel;
}

/* ---- resolving a list --------------------------------------------------------- */

/* BR_MISP_RETIRED on an AMD or Arm core: the Intel name of a portable alias
 * means that alias on this PMU, said so in the encoding, rather than an
 * error on a machine that can count the same thing under its own name.
 * Returns false (error detail untouched) if name is no such alias. */
static bool encode_as_alias(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev)
{
	char portable[64];
	size_t len;

	if (!portable_name(name, portable, sizeof(portable)) ||
	    !pmb__tables_has_alias(&pmb__events.tab, portable) || encode_alias(c, portable, ev))
		return false;
	len = strlen(ev->encoding);
	snprintf(ev->encoding + len, sizeof(ev->encoding) - len, " (as alias %s)", portable);
	return true;
}

/* One name into ev, tried in turn as: a generic name as perf spells it, a
 * raw code, an alias, a generic name in another case, a PMU event, the
 * Intel spelling of an alias.  Returns 0 or PMB_EBADEVENT. */
static int encode_event(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev)
{
	const struct pmb__generic *g;
	int ret;

	if ((g = pmb__generic_find(name, true))) {
		pmb__event_fill_generic(c, g, ev);
		return 0;
	}
	if (pmb__event_encode_raw(c, name, ev))
		return 0;
	if (pmb__tables_has_alias(&pmb__events.tab, name))
		return encode_alias(c, name, ev);
	if ((g = pmb__generic_find(name, false))) {
		pmb__event_fill_generic(c, g, ev);
		return 0;
	}
	if ((ret = pmb__event_encode_named(c, name, ev)) == PFM_SUCCESS)
		return 0;
	if (encode_as_alias(c, name, ev)) {
		pmb__events_clear_error();
		return 0;
	}
	return pmb__events_unknown_event(c, name, ret);
}

static int add_event(struct pmb__events_ctx *c, const char *name)
{
	struct pmb_event_plan *pl = c->plan;
	struct pmb_event ev;
	int err;

	if (strlen(name) >= sizeof(ev.name)) {
		pmb__events_set_error("event name too long: '%.80s...'", name);
		return PMB_EBADEVENT;
	}
	/* names compare exactly: llc-loads (alias) is not LLC-loads (perf) */
	for (int e = 0; e < pl->nev; e++)
		if (!strcmp(pl->ev[e].name, name))
			return 0;
	memset(&ev, 0, sizeof(ev));
	if ((err = encode_event(c, name, &ev)))
		return err;
	pmb__str_copy(ev.name, sizeof(ev.name), name);
	ev.attr.size = sizeof(ev.attr);
	ev.attr.exclude_hv = 1;
	pmb__event_judge(c, &ev);
	/* the same counter under two names (cycles, cpu-cycles) is counted once */
	for (int e = 0; e < pl->nev; e++)
		if (same_attr(&pl->ev[e].attr, &ev.attr)) {
			pmb__event_also(&pl->ev[e], name); /* the reports name it */
			return 0;
		}
	if (pl->nev >= PMB_MAX_EVENTS) {
		pmb__events_set_error("too many events: '%s' would be number %d, at most %d can be counted",
				      name, pl->nev + 1, PMB_MAX_EVENTS);
		return -E2BIG;
	}
	pl->ev[pl->nev++] = ev;
	return 0;
}

static int add_list(struct pmb__events_ctx *c, const char *list, int depth);

/* A set is expanded once per list: named again, it adds nothing (its
 * events are in), so sets that name each other 100 times each cost their
 * members once, not 100^depth times.  One that names itself, through any
 * others, is an error. */
static int add_set(struct pmb__events_ctx *c, const char *ref, int depth)
{
	const struct pmb_set_def *set = pmb__tables_set(&pmb__events.tab, ref + 1);
	unsigned char *state;
	int err;

	if (!set)
		return pmb__events_unknown_set(ref);
	state = c->set_state ? &c->set_state[set - pmb__events.tab.set] : NULL;
	if (state && *state == 2)
		return 0;
	if (state && *state == 1) {
		pmb__events_set_error("event set '%s' includes itself", ref);
		return PMB_EBADEVENT;
	}
	if (depth >= MAX_SET_DEPTH) {
		pmb__events_set_error("event set '%s' nests more than %d deep", ref, MAX_SET_DEPTH);
		return PMB_EBADEVENT;
	}
	if (state)
		*state = 1;
	err = add_list(c, set->members, depth + 1);
	if (state)
		*state = 2;
	return err;
}

/* The bad names of the list the user gave (depth 0) are named all at once,
 * their errors joined by "; ": a list with three typos is fixed in one
 * go, not three.  Other errors (memory, too many events) stop at once. */
static int add_list(struct pmb__events_ctx *c, const char *list, int depth)
{
	char *buf = strdup(list), *save, *p, all[PMB_EVENTS_ERROR_LEN] = "";
	size_t len = 0;
	int err = 0, nbad = 0;

	if (!buf)
		return -ENOMEM;
	for (p = strtok_r(buf, ",", &save); p && (!err || nbad); p = strtok_r(NULL, ",", &save)) {
		int e = 0;

		while (isspace((unsigned char)*p))
			p++;
		pmb__str_trim_end(p);
		if (*p)
			e = *p == '@' ? add_set(c, p, depth) : add_event(c, p);
		if (e == PMB_EBADEVENT && depth == 0) {
			if (len < sizeof(all))
				len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", nbad ? "; " : "",
							pmb__events_error());
			nbad++;
		} else if (e) {
			nbad = 0; /* this error, alone */
		}
		if (e)
			err = e;
	}
	if (nbad) /* a later good name may have cleared the detail */
		pmb__events_set_error("%s", all);
	free(buf);
	return err;
}

/* ---- derived figures ------------------------------------------------------------ */

/* Index of the first of the '|'-separated names alts the plan holds by
 * name, exactly (exact) or in any case; -2 none. */
static int find_by_name(const struct pmb_event_plan *pl, const char *alts, bool exact)
{
	char buf[96], *save, *p;

	pmb__str_copy(buf, sizeof(buf), alts);
	for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save))
		for (int e = 0; e < pl->nev; e++)
			if (exact ? !strcmp(pl->ev[e].name, p) : !strcasecmp(pl->ev[e].name, p))
				return e;
	return -2;
}

/* Index of the plan's first event that counts m, one the core implements
 * if there is one; -2 none. */
static int find_by_meaning(const struct pmb_event_plan *pl, enum pmb_event_meaning m)
{
	int any = -2;

	for (int e = 0; e < pl->nev; e++) {
		if (pl->ev[e].means != m)
			continue;
		if (!pl->ev[e].unsupported[0])
			return e;
		if (any < 0)
			any = e;
	}
	return any;
}

/* The plan's event for a rule's operand alts ("branch-misses|br-misp-retired"):
 * by name, the exact spelling first, so that llc-misses is not taken for
 * LLC-load-misses; then, for a name that stands for what it counts (cycles,
 * instructions, branches, branch-misses and their other spellings), by
 * meaning, so that CPU_CYCLES, UNHALTED_CORE_CYCLES or r11 serve as cycles.
 * Index, or -2 for none. */
static int find_in_plan(const struct pmb_event_plan *pl, const char *alts)
{
	char buf[96], *save, *p;
	int e;

	if ((e = find_by_name(pl, alts, true)) >= 0 || (e = find_by_name(pl, alts, false)) >= 0)
		return e;
	pmb__str_copy(buf, sizeof(buf), alts);
	for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
		enum pmb_event_meaning m = pmb__name_meaning(p);

		if (m != PMB_MEANS_OTHER && (e = find_by_meaning(pl, m)) >= 0)
			return e;
	}
	return -2;
}

static void add_derived(struct pmb_event_plan *pl)
{
	for (int i = 0; i < pmb__events.tab.nrule && pl->nder < PMB_MAX_DERIVED; i++) {
		const struct pmb_derive_rule *r = &pmb__events.tab.rule[i];
		int num = find_in_plan(pl, r->num);
		int den = !strcasecmp(r->den, "items") ? -1 : find_in_plan(pl, r->den);
		struct pmb_derived *d;
		bool dup = false;

		if (num < 0 || den == -2)
			continue;
		for (int k = 0; k < pl->nder; k++)
			dup |= !strcmp(pl->der[k].name, r->fig);
		if (dup)
			continue;
		d = &pl->der[pl->nder++];
		pmb__str_copy(d->name, sizeof(d->name), r->fig);
		d->num = num;
		d->den = den;
		d->scale = r->scale;
	}
}

int pmb__events_resolve(const char *list, int cpu, bool kernel,
		       struct pmb_event_plan *plan)
{
	struct pmb__events_ctx c;
	int err;

	memset(plan, 0, sizeof(*plan));
	plan->kernel = kernel;
	pmb__events_clear_error();
	if ((err = pmb__events_lazy_init()) < 0)
		return err;
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	c.kernel = kernel;
	pmb__pmu_pick(&c, cpu);
	c.set_state = calloc((size_t)pmb__events.tab.nset + 1, 1);
	if (!c.set_state)
		return -ENOMEM;
	err = add_list(&c, list ? list : PMB_DEFAULT_COUNTERS, 0);
	free(c.set_state);
	if (err) {
		plan->nev = 0;
		return err;
	}
	add_derived(plan);
	return 0;
}
