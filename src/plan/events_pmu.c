/* events_pmu.c - the events module: choosing the core PMU (libpfm4's, hybrid x86, sysfs Arm PMUv3) and its vendor. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events_internal.h"
#include "pmubench.h"

/* The kernel's Arm PMUs in sysfs.  Their events/ lists exactly the common
 * events the core implements: the driver hides those PMCEID0/1 do not
 * claim.  x86's cpu/events/ holds a handful of perf aliases, not such a
 * list, so only these PMUs are read that way. */
#define ARM_SYSFS_PREFIX "armv8_"

void pmb__events_set_sysfs_root(const char *dir)
{
	pmb__str_copy(pmb__events.sysfs_root, sizeof(pmb__events.sysfs_root),
		      dir ? dir : "/sys/bus/event_source/devices");
}

/* Vendors by PMU name (libpfm's or sysfs's) or, for Intel, whose libpfm
 * names share no prefix, by libpfm's description.  First match wins. */
static const struct {
	const char *prefix;
	bool desc;
	enum pmb__vendor vendor;
} vendors[] = {
	{ "Intel", true, PMB_VENDOR_INTEL },     /* "Intel Skylake X", "Intel X86 architectural PMU" */
	{ "cpu_core", false, PMB_VENDOR_INTEL }, /* hybrid sysfs PMUs: Intel's only */
	{ "cpu_atom", false, PMB_VENDOR_INTEL },
	{ "amd64_", false, PMB_VENDOR_AMD },
	{ "arm_1176", false, PMB_VENDOR_NONE },  /* ARMv6: other event numbers */
	{ "arm_", false, PMB_VENDOR_ARM },       /* libpfm's Armv7/Armv8 cores */
	{ ARM_SYSFS_PREFIX, false, PMB_VENDOR_ARM },
};

enum pmb__vendor pmb__pmu_vendor(const char *name, const char *desc)
{
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++) {
		const char *s = vendors[i].desc ? desc : name;

		if (s && !strncmp(s, vendors[i].prefix, strlen(vendors[i].prefix)))
			return vendors[i].vendor;
	}
	return PMB_VENDOR_NONE;
}

bool pmb__pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(p, pi) == PFM_SUCCESS;
}

int pmb__pfm_for_events(bool (*want)(void *ctx, pfm_pmu_t p, const pfm_pmu_info_t *pi),
			int (*fn)(void *ctx, const pfm_pmu_info_t *pi, int i, const pfm_event_info_t *ei),
			void *ctx)
{
	pfm_pmu_t p;
	int n = 0;

	if (!pmb__events.pfm_ok)
		return 0;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (!pmb__pmu_info(p, &pi) || !pi.is_present || (want && !want(ctx, p, &pi)))
			continue;
		for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ei;

			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS)
				n += fn(ctx, &pi, i, &ei);
		}
	}
	return n;
}

int pmb__pfm_for_umasks(int i, const pfm_event_info_t *ei,
			int (*fn)(void *ctx, const char *full, const char *desc), void *ctx)
{
	int n = 0;

	for (int a = 0; a < ei->nattrs; a++) {
		pfm_event_attr_info_t ai;
		char full[256];

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		snprintf(full, sizeof(full), "%s:%s", ei->name, ai.name);
		n += fn(ctx, full, ai.desc ? ai.desc : "");
	}
	return n;
}

/* The present core PMU whose description contains want (NULL: any,
 * preferring libpfm's default one).  Returns its id, or -1. */
static int core_pmu(const char *want, pfm_pmu_info_t *out)
{
	pfm_pmu_t p;
	int found = -1;

	if (!pmb__events.pfm_ok)
		return -1;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		/* libpfm4 encoding for every PMU (encode_foreign) forces none:
		 * the PMU that was forced is still the core's */
		if (!want && pmb__events.forced_pmu[0] && pmb__pmu_info(p, &pi) && pi.name &&
		    !strcasecmp(pi.name, pmb__events.forced_pmu)) {
			*out = pi;
			return (int)p;
		}
	}
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (!pmb__pmu_info(p, &pi) || !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (want && !strcasestr(pi.desc, want))
			continue;
		if (found < 0 || pi.is_dfl) {
			*out = pi;
			found = (int)p;
		}
		if (pi.is_dfl)
			break;
	}
	return found;
}

/* ---- sysfs ------------------------------------------------------------------------ */

static int read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	pmb__str_trim_end(buf);
	return 0;
}

/* The perf type in the sysfs PMU folder pmu; false if unreadable. */
static bool read_type(const char *pmu, uint32_t *type)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/%s/type", pmb__events.sysfs_root, pmu);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return false;
	*type = (uint32_t)strtoul(buf, NULL, 10);
	return true;
}

/* Whether cpu is in a sysfs cpu list such as "0-7,16,18-19". */
static bool cpu_in_list(const char *s, int cpu)
{
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			return false;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return false;
}

/* Whether the sysfs PMU folder pmu lists cpu in its cpus file. */
static bool pmu_owns(const char *pmu, int cpu)
{
	char path[512], buf[4096];

	snprintf(path, sizeof(path), "%s/%s/cpus", pmb__events.sysfs_root, pmu);
	return read_small(path, buf, sizeof(buf)) == 0 && cpu_in_list(buf, cpu);
}

bool pmb__sysfs_read_event(const char *path, uint64_t *code)
{
	char buf[128], *end;

	if (read_small(path, buf, sizeof(buf)) < 0 || strncmp(buf, "event=", 6))
		return false;
	errno = 0;
	*code = strtoull(buf + 6, &end, 0);
	return end != buf + 6 && !*end && !errno;
}

/* On a hybrid CPU (several core PMUs cpu_*, each owning some cpus), the one
 * owning cpu (cpu < 0: cpu_core).  Returns false on other machines. */
static bool hybrid_pmu(int cpu, char *name, size_t size, uint32_t *type)
{
	char best[PMB__NAME_LEN] = "", first[PMB__NAME_LEN] = "", path[512], buf[4096];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(pmb__events.sysfs_root);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu_", 4) || strlen(de->d_name) >= PMB__NAME_LEN)
			continue;
		snprintf(path, sizeof(path), "%s/%s/cpus", pmb__events.sysfs_root, de->d_name);
		if (read_small(path, buf, sizeof(buf)) < 0)
			continue;
		n++;
		/* readdir order is arbitrary: keep the smallest name as "first" */
		if (!first[0] || strcmp(de->d_name, first) < 0)
			pmb__str_copy(first, sizeof(first), de->d_name);
		if (cpu >= 0 ? cpu_in_list(buf, cpu) : !strcmp(de->d_name, "cpu_core"))
			pmb__str_copy(best, sizeof(best), de->d_name);
	}
	closedir(d);
	if (n < 2)
		return false;
	pmb__str_copy(name, size, best[0] ? best : first);
	return read_type(name, type);
}

int pmb__arm_common_bit(uint64_t code)
{
	if (code < 0x40)
		return (int)code;
	if (code >= 0x4000 && code < 0x4040)
		return 64 + (int)(code - 0x4000);
	return -1;
}

/* The name of the sysfs Arm PMUv3 owning cpu (cpu < 0, or none owns it:
 * the first by name) into a->name; false: there is none. */
static bool arm_sysfs_owner(int cpu, struct pmb__arm_sysfs *a)
{
	bool best_owns = false;
	struct dirent *de;
	DIR *d = opendir(pmb__events.sysfs_root);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		bool owns;

		if (strncmp(de->d_name, ARM_SYSFS_PREFIX, strlen(ARM_SYSFS_PREFIX)) ||
		    strlen(de->d_name) >= PMB__NAME_LEN)
			continue;
		owns = cpu >= 0 && pmu_owns(de->d_name, cpu);
		/* readdir order is arbitrary: the owner, else the smallest name */
		if (!a->name[0] || (owns && !best_owns) ||
		    (owns == best_owns && strcmp(de->d_name, a->name) < 0)) {
			pmb__str_copy(a->name, sizeof(a->name), de->d_name);
			best_owns = owns;
		}
	}
	closedir(d);
	return a->name[0] != '\0';
}

/* The common events a->name's events/ lists into a->listed; a kernel
 * without the list leaves listed_ok false: nothing is judged then. */
static void arm_sysfs_read_events(struct pmb__arm_sysfs *a)
{
	char path[768];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/events", pmb__events.sysfs_root, a->name);
	if (!(d = opendir(path)))
		return;
	a->listed_ok = true;
	while ((de = readdir(d))) {
		uint64_t code;
		int bit;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/events/%s", pmb__events.sysfs_root, a->name,
			 de->d_name);
		if (pmb__sysfs_read_event(path, &code) && (bit = pmb__arm_common_bit(code)) >= 0)
			a->listed[bit / 64] |= 1ull << (bit % 64);
	}
	closedir(d);
}

/* The sysfs Arm PMUv3 owning cpu, its type and the common events its
 * events/ lists.  false: none. */
static bool arm_sysfs_find(int cpu, struct pmb__arm_sysfs *a)
{
	memset(a, 0, sizeof(*a));
	if (!arm_sysfs_owner(cpu, a))
		return false;
	if (!read_type(a->name, &a->type)) {
		a->name[0] = '\0';
		return false;
	}
	arm_sysfs_read_events(a);
	return true;
}

/* ---- the choice ------------------------------------------------------------------ */

/* A hybrid CPU: libpfm's PMU for the sysfs one hname, found by core kind
 * in its description ("Intel AlderLake GoldenCove (P-Core)": libpfm keeps
 * the sysfs name to itself).  false, with the plan named after hname, if
 * libpfm4 does not know it. */
static bool pick_hybrid(struct pmb__events_ctx *c, const char *hname, pfm_pmu_info_t *pi)
{
	struct pmb_event_plan *pl = c->plan;
	const char *want = NULL;

	c->hybrid = true;
	c->vendor = PMB_VENDOR_INTEL;
	if (!strcmp(hname, "cpu_core"))
		want = "P-Core";
	else if (!strcmp(hname, "cpu_atom"))
		want = "E-Core";
	if (want && (c->pmu_id = core_pmu(want, pi)) >= 0)
		return true;
	pmb__str_copy(pl->pmu_name, sizeof(pl->pmu_name), hname);
	snprintf(pl->pmu_desc, sizeof(pl->pmu_desc), "hybrid core PMU %s (not known to libpfm4)", hname);
	memset(&c->arm, 0, sizeof(c->arm));
	return false;
}

/* No core PMU for libpfm4: an Arm core it cannot identify (QEMU's -cpu max,
 * a core newer than its tables), whose sysfs PMU says what it has. */
static void pick_arm_sysfs(struct pmb__events_ctx *c)
{
	struct pmb_event_plan *pl = c->plan;

	if (!c->arm.name[0])
		return;
	c->vendor = PMB_VENDOR_ARM;
	pmb__str_copy(pl->pmu_name, sizeof(pl->pmu_name), c->arm.name);
	snprintf(pl->pmu_desc, sizeof(pl->pmu_desc),
		 "Arm PMUv3 %s (not known to libpfm4; events from sysfs)", c->arm.name);
}

/* The description of a core PMU libpfm4 does not know: why, so that
 * --topology and the results say more than "none ()". */
static void no_pfm_pmu(struct pmb_event_plan *pl)
{
	const char *off = getenv("LIBPFM_DISABLED_PMUS"), *force = getenv("LIBPFM_FORCE_PMU");

	if (!pmb__events.pfm_ok)
		snprintf(pl->pmu_desc, sizeof(pl->pmu_desc), "libpfm4 did not start");
	else if (force && *force)
		snprintf(pl->pmu_desc, sizeof(pl->pmu_desc), "libpfm4 has no core PMU named by LIBPFM_FORCE_PMU=%.40s", force);
	else
		snprintf(pl->pmu_desc, sizeof(pl->pmu_desc), "libpfm4 knows no core PMU for this CPU%s%.40s",
			 off && *off ? "; LIBPFM_DISABLED_PMUS=" : "", off && *off ? off : "");
}

/* A kernel PMU of the cores: perf's "cpu", a hybrid part's cpu_*, an Arm
 * PMUv3 (armv8_pmuv3, armv8_cortex_a57, ...). */
static bool kernel_core_pmu(const char *name)
{
	return !strcmp(name, "cpu") || !strncmp(name, "cpu_", 4) || !strncmp(name, "armv8_", 6) ||
	       !strncmp(name, "armv7_", 6);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

void pmb__events_kernel_pmu(char *buf, size_t size)
{
	char names[32][PMB__NAME_LEN], core[PMB__NAME_LEN] = "";
	struct dirent *de;
	size_t len, n = 0;
	DIR *d = opendir(pmb__events.sysfs_root);

	if (!d) {
		snprintf(buf, size, "the kernel exposes no PMU at all (%s: %s)", pmb__events.sysfs_root,
			 strerror(errno));
		return;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < PMB__NAME_LEN) {
			if (kernel_core_pmu(de->d_name) && (!core[0] || strcmp(de->d_name, core) < 0))
				pmb__str_copy(core, sizeof(core), de->d_name);
			if (n < sizeof(names) / sizeof(names[0]))
				pmb__str_copy(names[n++], PMB__NAME_LEN, de->d_name);
		}
	closedir(d);
	if (core[0]) {
		snprintf(buf, size, "the kernel's cpu PMU: %s", core);
		return;
	}
	qsort(names, n, sizeof(names[0]), cmp_name);
	len = (size_t)snprintf(buf, size, "the kernel exposes no cpu PMU (%s:%s", pmb__events.sysfs_root,
			       n ? "" : " nothing");
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s %s", i ? "," : "", names[i]);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

void pmb__pmu_pick(struct pmb__events_ctx *c, int cpu)
{
	struct pmb_event_plan *pl = c->plan;
	char hname[PMB__NAME_LEN];
	pfm_pmu_info_t pi;

	memset(&pi, 0, sizeof(pi));
	c->pmu_id = -1;
	arm_sysfs_find(cpu, &c->arm);
	if (hybrid_pmu(cpu, hname, sizeof(hname), &c->hybrid_type)) {
		if (!pick_hybrid(c, hname, &pi))
			return;
	} else if ((c->pmu_id = core_pmu(NULL, &pi)) < 0) {
		pick_arm_sysfs(c);
		if (!pl->pmu_name[0])
			no_pfm_pmu(pl);
		return;
	}
	c->vendor = pmb__pmu_vendor(pi.name, pi.desc);
	if (c->vendor != PMB_VENDOR_ARM)
		memset(&c->arm, 0, sizeof(c->arm));
	pmb__str_copy(c->pfm_pmu, sizeof(c->pfm_pmu), pi.name);
	pmb__str_copy(pl->pmu_name, sizeof(pl->pmu_name), pi.name);
	pmb__str_copy(pl->pmu_desc, sizeof(pl->pmu_desc), pi.desc);
	pl->pmu_counters = pi.num_cntrs;
	pl->pmu_fixed = pi.num_fixed_cntrs;
}

int pmb__events_core_pmu(int cpu, char *name, size_t size)
{
	struct pmb__events_ctx c;
	int err = pmb__events_lazy_init();

	if (err < 0)
		return err;
	memset(&c, 0, sizeof(c));
	if (!(c.plan = calloc(1, sizeof(*c.plan))))
		return -ENOMEM;
	pmb__pmu_pick(&c, cpu);
	pmb__str_copy(name, size, c.pfm_pmu);
	free(c.plan);
	return 0;
}

/* libpfm4 encodes for absent PMUs only where LIBPFM_ENCODE_INACTIVE was
 * set when it initialized: set, and libpfm4 started again with it (for
 * the rest of the process, as pmb__events_init() reads it too).  A
 * LIBPFM_FORCE_PMU would keep every PMU listed after the forced one
 * unloaded (libpfm4 stops there), so that which PMUs know a name would
 * depend on the one forced: it is taken out of the environment and kept
 * as the core PMU (core_pmu()). */
static bool encode_foreign(void)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");

	if (pmb__events.foreign)
		return pmb__events.pfm_ok;
	if (forced && *forced) {
		pmb__str_copy(pmb__events.forced_pmu, sizeof(pmb__events.forced_pmu), forced);
		pmb__events.forced_pmu[strcspn(pmb__events.forced_pmu, ",")] = '\0';
	}
	unsetenv("LIBPFM_FORCE_PMU");
	if (pmb__events.pfm_ok)
		pfm_terminate();
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	pmb__events.pfm_ok = pfm_initialize() == PFM_SUCCESS;
	pmb__events.foreign = true;
	return pmb__events.pfm_ok;
}

int pmb__events_pmus_knowing(const char *name, char (*pmus)[32], int max)
{
	size_t base = strcspn(name, ":");
	char full[160];
	pfm_pmu_t p;
	int n = 0;

	(void)pmb__events_lazy_init(); /* bad tables: PMU events still resolve */
	if (!base || strstr(name, "::") || !encode_foreign())
		return 0;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (n == max || !pmb__pmu_info(p, &pi) || pi.type != PFM_PMU_TYPE_CORE || !pi.name ||
		    strlen(pi.name) >= sizeof(*pmus))
			continue;
		snprintf(full, sizeof(full), "%s::%.*s", pi.name, (int)base, name);
		if (pfm_find_event(full) >= 0)
			snprintf(pmus[n++], sizeof(*pmus), "%s", pi.name);
	}
	return n;
}

