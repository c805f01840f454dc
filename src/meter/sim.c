/* sim.c - the valgrind/callgrind backend: the events it simulates, and its error detail. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <linux/perf_event.h>

#include "base.h"
#include "pmubench.h"
#include "sim_internal.h"

char pmb__sim_err[PMB__SIM_ERR_LEN];

const char *pmb__sim_error(void)
{
	return pmb__sim_err;
}

void pmb__sim_set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pmb__sim_err, sizeof(pmb__sim_err), fmt, ap);
	va_end(ap);
}

/* ---- callgrind columns and the names they answer to --------------------- */

const char *const pmb__sim_col_name[PMB__NCOL] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
	"DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

#define M(c) (1u << PMB__COL_##c)

/* One quantity the simulator gives.  The cache names follow
 * events/aliases.txt, where l1d-misses and llc-misses count loads only, so
 * that a figure means the same with either backend.  means: what the
 * hardware event of the same meaning counts (events.h), for the quantities
 * that are one: instructions executed, every branch (conditional and
 * indirect; callgrind has no cycles), every mispredicted one, L1d and
 * last-level read misses, every last-level miss.  Parts of them
 * (cond-branches) are PMB_MEANS_OTHER, as a PMU's own
 * BR_INST_RETIRED:CONDITIONAL is; so are l1i-misses, the fetch misses of
 * the instructions executed, which a PMU's L1i refills outnumber by its
 * wrong-path fetches and prefetches. */
enum sim_quantity {
	Q_INSTRUCTIONS, Q_LOADS, Q_STORES, Q_BRANCHES, Q_BRANCH_MISSES,
	Q_COND, Q_COND_MISSES, Q_IND, Q_IND_MISSES, Q_L1D_MISSES,
	Q_L1D_WMISSES, Q_LLC_MISSES, Q_LLC_WMISSES, Q_L1I_MISSES,
	Q_CACHE_MISSES, NQ
};

static const struct sim_quantity_def {
	const char *name;
	unsigned mask;
	enum pmb_event_meaning means;
	const char *desc;  /* for --list-events */
} quantity[NQ] = {
	[Q_INSTRUCTIONS] = { "instructions", M(IR), PMB_MEANS_INSTRUCTIONS, "instructions executed" },
	[Q_LOADS] = { "loads", M(DR), 0, "data reads (L1d lookups of loads)" },
	[Q_STORES] = { "stores", M(DW), 0, "data writes (L1d lookups of stores)" },
	[Q_BRANCHES] = { "branches", M(BC) | M(BI), PMB_MEANS_BRANCHES, "branches executed, conditional and indirect" },
	[Q_BRANCH_MISSES] = { "branch-misses", M(BCM) | M(BIM), PMB_MEANS_BRANCH_MISSES,
			      "mispredicted branches, conditional and indirect" },
	[Q_COND] = { "cond-branches", M(BC), 0, "conditional branches executed" },
	[Q_COND_MISSES] = { "cond-branch-misses", M(BCM), 0, "mispredicted conditional branches" },
	[Q_IND] = { "indirect-branches", M(BI), 0, "indirect branches executed" },
	[Q_IND_MISSES] = { "indirect-branch-misses", M(BIM), 0, "mispredicted indirect branches" },
	[Q_L1D_MISSES] = { "l1d-misses", M(D1MR), PMB_MEANS_L1D_MISSES, "L1d misses of data reads" },
	[Q_L1D_WMISSES] = { "l1d-write-misses", M(D1MW), 0, "L1d misses of data writes" },
	[Q_LLC_MISSES] = { "llc-misses", M(DLMR), PMB_MEANS_LLC_MISSES, "last-level misses of data reads" },
	[Q_LLC_WMISSES] = { "llc-write-misses", M(DLMW), 0, "last-level misses of data writes" },
	[Q_L1I_MISSES] = { "l1i-misses", M(I1MR), 0, "L1i misses of the instructions executed" },
	/* perf's generic cache-misses: every last-level miss. */
	[Q_CACHE_MISSES] = { "cache-misses", M(DLMR) | M(DLMW) | M(ILMR), PMB_MEANS_CACHE_MISSES,
			     "every last-level miss: data reads, data writes, instruction fetches" },
};

/* Other names of the same quantities: the portable aliases of
 * events/aliases.txt and the generic perf names. */
static const struct sim_alias {
	const char *name;
	enum sim_quantity q;
} alias[] = {
	{ "l1d-loads", Q_LOADS },
	{ "L1-dcache-loads", Q_LOADS },
	{ "L1-dcache-stores", Q_STORES },
	{ "branch-instructions", Q_BRANCHES },
	{ "br-inst-retired", Q_BRANCHES },
	{ "br-misp-retired", Q_BRANCH_MISSES },
	{ "l1d-read-misses", Q_L1D_MISSES },
	{ "L1-dcache-load-misses", Q_L1D_MISSES },
	{ "L1-dcache-store-misses", Q_L1D_WMISSES },
	{ "llc-read-misses", Q_LLC_MISSES },
	{ "LLC-load-misses", Q_LLC_MISSES },
	{ "LLC-store-misses", Q_LLC_WMISSES },
	{ "L1-icache-load-misses", Q_L1I_MISSES },
};

/* The sets of events/sets.txt, as far as the simulator has them.  Each is
 * a comma list of the names above. */
static const struct sim_set {
	const char *name;
	const char *list;
} sets[] = {
	{ "default", "instructions,loads,stores,cond-branches,"
		     "cond-branch-misses,indirect-branches,"
		     "indirect-branch-misses,l1d-read-misses,l1d-write-misses,"
		     "llc-read-misses,llc-write-misses" },
	{ "branch", "instructions,branches,branch-misses,cond-branches,"
		    "cond-branch-misses,indirect-branches,indirect-branch-misses" },
	{ "cache", "instructions,loads,stores,l1d-misses,l1d-write-misses,"
		   "llc-misses,llc-write-misses,l1i-misses" },
};

/* Derived figures, named as in events/sets.txt, computed where the plan
 * holds both quantities. */
static const struct sim_derive {
	const char *name;
	enum sim_quantity num, den;
	double scale;
} derive[] = {
	{ "mpki", Q_BRANCH_MISSES, Q_INSTRUCTIONS, 1000 },
	{ "mispredict_ratio", Q_BRANCH_MISSES, Q_BRANCHES, 1 },
	{ "l1d_mpki", Q_L1D_MISSES, Q_INSTRUCTIONS, 1000 },
	{ "llc_mpki", Q_LLC_MISSES, Q_INSTRUCTIONS, 1000 },
	{ "l1d_miss_ratio", Q_L1D_MISSES, Q_LOADS, 1 },
	{ "cond_mispredict_ratio", Q_COND_MISSES, Q_COND, 1 },
	{ "indirect_mispredict_ratio", Q_IND_MISSES, Q_IND, 1 },
};

static int lookup(const char *name)
{
	for (int q = 0; q < NQ; q++)
		if (!strcasecmp(name, quantity[q].name))
			return q;
	for (size_t i = 0; i < PMB__ARRAY_LEN(alias); i++)
		if (!strcasecmp(name, alias[i].name))
			return (int)alias[i].q;
	return -1;
}

/* The simulated quantity of a hardware cache event (PERF_TYPE_HW_CACHE):
 * misses of L1d, the last level and L1i, loads and stores; -1 other. */
static int cache_quantity(uint64_t config)
{
	unsigned id = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;

	if (res != PERF_COUNT_HW_CACHE_RESULT_MISS)
		return -1;
	if (op == PERF_COUNT_HW_CACHE_OP_READ)
		return id == PERF_COUNT_HW_CACHE_L1D ? Q_L1D_MISSES : id == PERF_COUNT_HW_CACHE_LL ? Q_LLC_MISSES
		       : id == PERF_COUNT_HW_CACHE_L1I ? Q_L1I_MISSES : -1;
	if (op == PERF_COUNT_HW_CACHE_OP_WRITE)
		return id == PERF_COUNT_HW_CACHE_L1D ? Q_L1D_WMISSES : id == PERF_COUNT_HW_CACHE_LL ? Q_LLC_WMISSES : -1;
	return -1;
}

/* A PMU's conditional-branch events (Intel's BR_INST_RETIRED and
 * BR_MISP_RETIRED with the unit mask COND, CONDITIONAL before Skylake), by
 * their libpfm4 encoding "pmu::EVENT:UMASK:...": the simulated conditional
 * branches or their mispredictions; -1 other.  Indirect ones are not
 * mapped: what a PMU's INDIRECT counts (returns or not) differs by core. */
static int cond_quantity(const char *enc)
{
	const char *ev = strstr(enc, "::");

	if (!ev)
		return -1;
	ev += 2;
	bool misp = !strncmp(ev, "BR_MISP_RETIRED:", 16), inst = !strncmp(ev, "BR_INST_RETIRED:", 16);
	const char *um = ev + 16;
	size_t n = strcspn(um, ":");

	if (!(misp || inst) || !((n == 4 && !strncmp(um, "COND", 4)) || (n == 11 && !strncmp(um, "CONDITIONAL", 11))))
		return -1;
	return misp ? Q_COND_MISSES : Q_COND;
}

/* What one pmb__sim_resolve() works with, on its stack: the resolver keeps
 * no state of its own between calls, so that a resolve is reentrant and
 * none reads what an earlier one left. */
struct sim_resolve {
	const struct pmb_sim_names *names; /* the plan's reading of PMU event
	                                      names, as handed in (run.c) */
	struct pmb_event_plan *plan;       /* being filled */
	int quant[PMB_MAX_EVENTS];         /* the quantity of each plan event */
	char assumed[96];                  /* which PMUs the name at hand was
	                                      read as: appended to the encoding
	                                      of the event it adds ("" none),
	                                      so that the run says what it
	                                      assumed */
};

static int lookup_by_meaning(struct sim_resolve *r, const char *name, enum pmb_event_meaning *means);

/* The quantity of name with a privilege-level modifier (":u", ":k", ...)
 * after a name the backend knows: ":u" is what the simulator counts
 * anyway (valgrind runs user-mode code only); a level that counts the
 * kernel is refused.  -1 where name has no such modifier or its base is
 * unknown; -2 refused (said). */
static int with_level(struct sim_resolve *r, const char *name, enum pmb_event_meaning *means)
{
	const char *colon = strrchr(name, ':');
	char base[64];

	if (!colon || !colon[1] || strspn(colon + 1, "ukh") != strlen(colon + 1) ||
	    (size_t)(colon - name) >= sizeof(base))
		return -1;
	snprintf(base, sizeof(base), "%.*s", (int)(colon - name), name);
	int q = lookup(base);

	if (q < 0)
		q = lookup_by_meaning(r, base, means);
	if (q < 0)
		return q == -2 ? -2 : -1;
	if (strcmp(colon + 1, "u")) {
		pmb__sim_set_err("event '%s' cannot be simulated: it counts kernel mode (:%s), and valgrind runs "
				 "user-mode code only; ask for %s or %s:u", name, colon + 1, base, base);
		return -2;
	}
	return q;
}

/* The quantity of one name as the events module resolves it for the
 * perf backend: libpfm4's events, the tables' aliases, perf's generic
 * names, raw codes.  It is the simulated quantity of what its encoding
 * counts (events_meaning.c): instructions, branches, mispredicted
 * branches, L1d and last-level misses.  -1 where it resolves to nothing the
 * simulator has; *means then says what it counts, PMB_MEANS_OTHER where it
 * did not resolve. */
static int resolve_one(const struct pmb_sim_names *names, const char *name, struct pmb_event_plan *pl,
		       enum pmb_event_meaning *means)
{
	/* 1 + the quantity; 0 none (cycles: callgrind has none). */
	static const int by_means[PMB_MEANS_COUNT] = {
		[PMB_MEANS_INSTRUCTIONS] = 1 + Q_INSTRUCTIONS,
		[PMB_MEANS_BRANCHES] = 1 + Q_BRANCHES,
		[PMB_MEANS_BRANCH_MISSES] = 1 + Q_BRANCH_MISSES,
		[PMB_MEANS_L1D_MISSES] = 1 + Q_L1D_MISSES,
		[PMB_MEANS_LLC_MISSES] = 1 + Q_LLC_MISSES,
		[PMB_MEANS_CACHE_MISSES] = 1 + Q_CACHE_MISSES,
	};
	const struct perf_event_attr *a;
	int q;

	*means = PMB_MEANS_OTHER;
	if (strpbrk(name, "@,") || names->resolve(name, 0, false, pl) != 0 || pl->nev != 1)
		return -1;
	a = &pl->ev[0].attr;
	*means = pl->ev[0].means;
	if (*means < PMB_MEANS_COUNT && by_means[*means])
		q = by_means[*means] - 1;
	else if (a->type == PERF_TYPE_HW_CACHE)
		q = cache_quantity(a->config);
	else
		q = cond_quantity(pl->ev[0].encoding);
	if (q >= 0 && *means == PMB_MEANS_OTHER)
		*means = quantity[q].means;
	return q;
}

#define MAX_PMUS 128

/* "nhm, wsm, snb (+15)": the first three of the PMUs pmus[at[0..n)]. */
static void pmu_list(char (*pmus)[32], const int *at, int n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < n && i < 3 && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", pmus[at[i]]);
	if (n > 3 && len < size)
		snprintf(out + len, size - len, " (+%d)", n - 3);
}

/* One event vocabulary on both backends, and one meaning on every host: a
 * PMU's event name (BR_MISP_RETIRED, LONGEST_LAT_CACHE:MISS,
 * MEM_LOAD_RETIRED:L1_MISS) is read as it counts on every core PMU of this
 * libpfm4 build that has it, present or not, so that the simulated figure
 * does not depend on which CPU libpfm4 recognises here.  PMUs where it
 * counts nothing pmubench can name are passed over; where two PMUs
 * disagree, the name is refused, naming both readings.  Names no PMU table
 * has (perf's generic names, the tables' aliases, raw codes, "pmu::NAME")
 * resolve as on the perf backend here.  -1 where the name gives nothing
 * the simulator has (said by the caller from *means), -2 refused (said). */
static int lookup_by_meaning(struct sim_resolve *r, const char *name, enum pmb_event_meaning *means)
{
	/* The tables' aliases the simulator lacks mean one thing everywhere,
	 * though only some PMUs have a row for them. */
	static const struct { const char *name; enum pmb_event_meaning means; } lacking[] = {
		{ "l2-misses", PMB_MEANS_L2_MISSES }, { "llc-loads", PMB_MEANS_CACHE_REFS },
	};
	struct pmb_event_plan *pl;
	enum pmb_event_meaning m2 = PMB_MEANS_OTHER;
	int agree[MAX_PMUS], other[MAX_PMUS], np, na = 0, no = 0, q = -1, q2 = -1;
	char list[80], list2[80], pmus[MAX_PMUS][32]; /* the PMUs that know name */

	r->assumed[0] = '\0';
	*means = PMB_MEANS_OTHER;
	for (size_t i = 0; i < PMB__ARRAY_LEN(lacking); i++)
		if (!strcasecmp(name, lacking[i].name)) {
			*means = lacking[i].means;
			return -1;
		}
	/* One plan (10 KB) for every PMU's look-up. */
	if (!(pl = malloc(sizeof(*pl))))
		return -1;
	np = r->names->pmus_knowing(name, pmus, MAX_PMUS);
	if (np == 0) {
		q = resolve_one(r->names, name, pl, means);
		free(pl);
		return q;
	}
	for (int i = 0; i < np; i++) {
		char full[128];
		enum pmb_event_meaning mi;
		int qi;

		snprintf(full, sizeof(full), "%.31s::%.63s", pmus[i], name);
		qi = resolve_one(r->names, full, pl, &mi);
		if (mi == PMB_MEANS_OTHER && qi < 0)
			continue;
		if (!na || (mi == *means && qi == q)) {
			*means = mi;
			q = qi;
			agree[na++] = i;
		} else {
			if (!no) {
				m2 = mi;
				q2 = qi;
			}
			if (mi == m2 && qi == q2)
				other[no++] = i;
		}
	}
	free(pl);
	if (!na)
		return -1;
	pmu_list(pmus, agree, na, list, sizeof(list));
	if (no) {
		pmu_list(pmus, other, no, list2, sizeof(list2));
		pmb__sim_set_err("event '%s' cannot be simulated: it counts %s on libpfm4's %s but %s on %s; "
				 "name the PMU (%s::%s) or ask for a simulated event",
				 name, q >= 0 ? quantity[q].name : "something else", list,
				 q2 >= 0 ? quantity[q2].name : "something else", list2, pmus[agree[0]], name);
		return -2;
	}
	snprintf(r->assumed, sizeof(r->assumed), "as on libpfm4's %s", list);
	return q;
}

static void encode(unsigned mask, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "callgrind ");

	for (int c = 0; c < PMB__NCOL && len < n; c++)
		if (mask & (1u << c))
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						buf[len - 1] == ' ' ? "" : "+",
						pmb__sim_col_name[c]);
}

/* ", the sim backend gives: instructions, ..., @cache" after buf's text. */
static void gives_list(char *e, size_t cap)
{
	size_t len = strlen(e);

	if (len < cap)
		len += (size_t)snprintf(e + len, cap - len, "; the sim backend gives:");
	for (int q = 0; q < NQ && len < cap; q++)
		len += (size_t)snprintf(e + len, cap - len, "%s %s", q ? "," : "", quantity[q].name);
	for (size_t i = 0; i < PMB__ARRAY_LEN(sets) && len < cap; i++)
		len += (size_t)snprintf(e + len, cap - len, ", @%s", sets[i].name);
}

/* "event 'NAME' cannot be simulated", and the simulated names near it in
 * the user's spelling (their case: the simulator's own names and aliases
 * compare case-insensitively), into the error detail. */
static void err_unknown(const char *name)
{
	char typed[PMB_NEAR_LEN], near[PMB_NEAR_MAX * PMB_NEAR_LEN], set[PMB_NEAR_LEN];
	struct pmb_near s;

	pmb__near_start(&s, name);
	for (int q = 0; q < NQ; q++)
		pmb__near_consider(&s, pmb__near_as_typed(name, quantity[q].name, false, typed, sizeof(typed)));
	for (size_t i = 0; i < PMB__ARRAY_LEN(alias); i++)
		pmb__near_consider(&s, pmb__near_as_typed(name, alias[i].name, false, typed, sizeof(typed)));
	for (size_t i = 0; i < PMB__ARRAY_LEN(sets); i++) {
		snprintf(set, sizeof(set), "@%s", sets[i].name);
		pmb__near_consider(&s, set);
	}
	pmb__near_join(&s, near, sizeof(near));
	pmb__sim_set_err("event '%s' cannot be simulated%s%s%s", name, s.n ? ": did you mean " : "", near,
			 s.n ? "?" : "");
}

void pmb__sim_err_nosim(const char *name)
{
	err_unknown(name);
	gives_list(pmb__sim_err, sizeof(pmb__sim_err));
}

/* An event that counts something near what the simulator has, but not it:
 * refused, naming the simulated events to ask for instead (a guess would
 * be a figure that means something else on the other backend). */
static const struct sim_near {
	enum pmb_event_meaning means;
	const char *what, *nearest;
} nearest[] = {
	{ PMB_MEANS_CACHE_REFS, "cache lookups, hits included",
	  "loads, stores (L1d lookups), l1d-misses (last-level lookups), llc-misses, cache-misses" },
	{ PMB_MEANS_L2_MISSES, "misses of a middle cache level, which valgrind does not model (it simulates L1 and "
	  "the last level)", "l1d-misses, llc-misses" },
	{ PMB_MEANS_L1I_MISSES, "the PMU's instruction-fetch misses, wrong-path fetches and prefetches included",
	  "l1i-misses (fetch misses of the instructions executed)" },
};

/* The error for name, which counts means: what it counts and the nearest
 * simulated events, or the names near it. */
static void err_refused(const char *name, enum pmb_event_meaning means)
{
	for (size_t i = 0; i < PMB__ARRAY_LEN(nearest); i++)
		if (nearest[i].means == means) {
			pmb__sim_set_err("event '%s' cannot be simulated: it counts %s; the nearest simulated "
					 "events: %s", name, nearest[i].what, nearest[i].nearest);
			return;
		}
	err_unknown(name);
}

/* The next name of the comma list at *p, blanks trimmed, into name (""
 * for an empty entry); *p moves past it.  Returns 0, or PMB_ENOSIM for a
 * name too long. */
static int next_name(const char **p, char name[64])
{
	size_t len = strcspn(*p, ",");
	const char *s = *p, *end = *p + len;

	*p = *end ? end + 1 : end;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - s >= 64) {
		pmb__sim_set_err("event name '%.40s...' is too long", s);
		return PMB_ENOSIM;
	}
	memcpy(name, s, (size_t)(end - s));
	name[end - s] = '\0';
	return 0;
}

/* Add quantity q to the plan under name, unless it is there already
 * (asked twice, by two names or a set). */
static int add_quantity(struct sim_resolve *r, const char *name, int q)
{
	struct pmb_event_plan *plan = r->plan;
	struct pmb_event *ev;
	char as[sizeof(r->assumed)];

	memcpy(as, r->assumed, sizeof(as));
	r->assumed[0] = '\0';
	for (int e = 0; e < plan->nev; e++)
		if (r->quant[e] == q) {
			pmb__event_also(&plan->ev[e], name); /* the reports name it */
			return 0;
		}
	if (plan->nev == PMB_MAX_EVENTS) {
		pmb__sim_set_err("more than %d events", PMB_MAX_EVENTS);
		return -E2BIG;
	}
	ev = &plan->ev[plan->nev];
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	encode(quantity[q].mask, ev->encoding, sizeof(ev->encoding));
	if (as[0]) {
		size_t len = strlen(ev->encoding);

		snprintf(ev->encoding + len, sizeof(ev->encoding) - len, " (%s %s)", name, as);
	}
	snprintf(ev->pmu, sizeof(ev->pmu), "callgrind");
	ev->kind = PMB_EV_SIM;
	ev->anchor = q == Q_INSTRUCTIONS;
	ev->means = quantity[q].means;
	ev->sim_mask = quantity[q].mask;
	r->quant[plan->nev++] = q;
	return 0;
}

static int add_list(struct sim_resolve *r, const char *list, int depth);

/* Add set "@name" (depth-limited against a set that names itself). */
static int add_set(struct sim_resolve *r, const char *name, int depth)
{
	for (size_t i = 0; i < PMB__ARRAY_LEN(sets); i++)
		if (!strcasecmp(name + 1, sets[i].name) && depth <= 2)
			return add_list(r, sets[i].list, depth + 1);
	err_unknown(name);
	return PMB_ENOSIM;
}

/* One name of a list (a set expanded) into the plan. */
static int add_name(struct sim_resolve *r, const char *name, int depth)
{
	enum pmb_event_meaning means;
	int q;

	if (name[0] == '@')
		return add_set(r, name, depth);
	q = lookup(name);
	if (q < 0 && (q = with_level(r, name, &means)) == -2)
		return PMB_ENOSIM;
	if (q < 0 && (q = lookup_by_meaning(r, name, &means)) < 0) {
		if (q == -1)
			err_refused(name, means);
		return PMB_ENOSIM;
	}
	return add_quantity(r, name, q);
}

/* Add the names of list (sets expanded) to the plan, r->quant[e] the
 * quantity of its event e.  The names the user gave (depth 0) that cannot
 * be simulated are named all at once, their errors joined by "; ", then
 * what the backend gives; other errors stop at once. */
static int add_list(struct sim_resolve *r, const char *list, int depth)
{
	char name[64], all[PMB__SIM_ERR_LEN] = "";
	const char *p = list;
	size_t len = 0;
	int rc = 0, nbad = 0;
	bool unknown = false; /* a name with no nearest simulated events */

	while (*p && (!rc || nbad)) {
		int e = next_name(&p, name);

		if (!e && name[0])
			e = add_name(r, name, depth);
		if (e == PMB_ENOSIM && depth == 0 && name[0]) {
			if (len < sizeof(all))
				len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", nbad ? "; " : "",
							pmb__sim_err);
			unknown |= !strstr(pmb__sim_err, "the nearest simulated events");
			nbad++;
		} else if (e) {
			nbad = 0; /* this error, alone */
		}
		if (e)
			rc = e;
	}
	if (nbad) {
		pmb__sim_set_err("%s", all);
		if (unknown)
			gives_list(pmb__sim_err, sizeof(pmb__sim_err));
	}
	return rc;
}

int pmb__sim_resolve(const char *list, const struct pmb_sim_names *with, struct pmb_event_plan *plan)
{
	struct sim_resolve r = { .names = with, .plan = plan };
	const int *quant = r.quant;
	int rc;

	pmb__sim_err[0] = '\0';
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->pmu_name, sizeof(plan->pmu_name), "callgrind");
	snprintf(plan->pmu_desc, sizeof(plan->pmu_desc),
		 "valgrind callgrind: cache and branch-predictor simulation");
	if (!list || !list[strspn(list, " \t,")])
		list = "@default";
	rc = add_list(&r, list, 0);
	/* Instructions are the cost under simulation (there is no time): a
	 * named counter is counted beside them, never instead (issue 26). */
	for (int e = 0; !rc && e <= plan->nev; e++)
		if (e == plan->nev) {
			rc = add_quantity(&r, "instructions", Q_INSTRUCTIONS);
			break;
		} else if (quant[e] == Q_INSTRUCTIONS) {
			break;
		}
	if (rc)
		return rc;

	for (size_t i = 0; i < PMB__ARRAY_LEN(derive) &&
			   plan->nder < PMB_MAX_DERIVED; i++) {
		int num = -1, den = -1;

		for (int e = 0; e < plan->nev; e++) {
			if (quant[e] == (int)derive[i].num)
				num = e;
			if (quant[e] == (int)derive[i].den)
				den = e;
		}
		if (num < 0 || den < 0)
			continue;

		struct pmb_derived *d = &plan->der[plan->nder++];

		snprintf(d->name, sizeof(d->name), "%s", derive[i].name);
		d->num = num;
		d->den = den;
		d->scale = derive[i].scale;
	}
	return 0;
}

/* ---- --list-events under --backend=sim ------------------------------------ */

int pmb__sim_list(const char *pattern, void (*fn)(void *ctx, const char *pmu, const char *name, const char *desc),
		  void *ctx)
{
	char desc[256], cols[64], name[64];
	int n = 0;

	for (int q = 0; q < NQ; q++)
		if (pmb__near_contains(quantity[q].name, pattern)) {
			encode(quantity[q].mask, cols, sizeof(cols));
			snprintf(desc, sizeof(desc), "%s (%s)", quantity[q].desc, cols);
			fn(ctx, "sim", quantity[q].name, desc);
			n++;
		}
	for (size_t i = 0; i < PMB__ARRAY_LEN(alias); i++)
		if (pmb__near_contains(alias[i].name, pattern)) {
			snprintf(desc, sizeof(desc), "the same as %s", quantity[alias[i].q].name);
			fn(ctx, "sim", alias[i].name, desc);
			n++;
		}
	for (size_t i = 0; i < PMB__ARRAY_LEN(sets); i++) {
		snprintf(name, sizeof(name), "@%s", sets[i].name);
		if (pmb__near_contains(name, pattern)) {
			fn(ctx, "set", name, sets[i].list);
			n++;
		}
	}
	return n;
}
