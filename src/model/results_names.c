/* results_names.c - the names a result file gives enums, one table each, read both ways. */
#include <string.h>

#include "results_names.h"

static const char *const means_names[] = {
	[PMB_MEANS_OTHER] = "other", [PMB_MEANS_CYCLES] = "cycles",
	[PMB_MEANS_INSTRUCTIONS] = "instructions", [PMB_MEANS_BRANCHES] = "branches",
	[PMB_MEANS_BRANCH_MISSES] = "branch-misses", [PMB_MEANS_L1D_MISSES] = "l1d-misses",
	[PMB_MEANS_LLC_MISSES] = "llc-misses", [PMB_MEANS_CACHE_MISSES] = "cache-misses",
	[PMB_MEANS_CACHE_REFS] = "cache-references", [PMB_MEANS_L2_MISSES] = "l2-misses",
	[PMB_MEANS_L1I_MISSES] = "l1i-misses",
};
_Static_assert(sizeof(means_names) / sizeof(means_names[0]) == PMB_MEANS_COUNT, "a name for every meaning");

static const char *const kind_names[] = {
	[PMB_EV_HW] = "hardware", [PMB_EV_SW] = "software", [PMB_EV_SIM] = "simulated",
};

static const char *const role_names[] = {
	[PMB_ROLE_NONE] = "none", [PMB_ROLE_BRANCHY] = "branchy",
	[PMB_ROLE_BRANCHLESS] = "branchless", [PMB_ROLE_SOL] = "sol",
};

static const char *const work_went_names[] = {
	[PMB_WORK_IN_LOOP] = "in-loop", [PMB_WORK_HOISTED] = "hoisted", [PMB_WORK_REMOVED] = "removed",
};

#define NAMES(t) (sizeof(t) / sizeof((t)[0]))

static const char *name_in(const char *const *t, size_t n, int v)
{
	return v >= 0 && (size_t)v < n && t[v] ? t[v] : "unknown";
}

static int value_in(const char *const *t, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (t[i] && !strcmp(t[i], name))
			return (int)i;
	return -1;
}

const char *pmb__means_name(enum pmb_event_meaning m)
{
	return name_in(means_names, NAMES(means_names), (int)m);
}

const char *pmb__kind_name(enum pmb_event_kind k)
{
	return name_in(kind_names, NAMES(kind_names), (int)k);
}

const char *pmb__role_name(enum pmb_role r)
{
	return name_in(role_names, NAMES(role_names), (int)r);
}

int pmb__means_of(const char *name)
{
	return value_in(means_names, NAMES(means_names), name);
}

int pmb__kind_of(const char *name)
{
	return value_in(kind_names, NAMES(kind_names), name);
}

int pmb__role_of(const char *name)
{
	return value_in(role_names, NAMES(role_names), name);
}

const char *pmb__work_went_name(enum pmb_work_went w)
{
	return w == PMB_WORK_NOT_LOOKED ? NULL : name_in(work_went_names, NAMES(work_went_names), (int)w);
}

enum pmb_work_went pmb__work_went_of(const char *name)
{
	int v = value_in(work_went_names, NAMES(work_went_names), name);

	return v > 0 ? (enum pmb_work_went)v : PMB_WORK_NOT_LOOKED;
}
