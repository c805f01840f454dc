/* events.c - event names to perf_event_attr: libpfm4, PMU choice, resolving lists and sets. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* events.h brings <linux/perf_event.h> first: libpfm's own copy of struct
 * perf_event_attr then stays out, and the kernel's (newer) one is used. */
#include "events.h"
#include <perfmon/pfmlib_perf_event.h>

#include "event_tables.h"
#include "pmubench.h"

#define MAX_SET_DEPTH 8
#define NAME_LEN PMB_TABLE_NAME_LEN


/* ---- perf generic names ---------------------------------------------------- */

#define HWC(c, op, res)                                                        \
	(PERF_COUNT_HW_CACHE_##c | (PERF_COUNT_HW_CACHE_OP_##op << 8) |        \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

struct generic {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *sym;   /* perf's symbol, for the provenance string */
	const char *desc;
};

static const struct generic generics[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", "core cycles while not halted" },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", "core cycles while not halted" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "PERF_COUNT_HW_INSTRUCTIONS", "instructions retired" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branch instructions retired" },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branch instructions retired" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "PERF_COUNT_HW_BRANCH_MISSES", "mispredicted branch instructions" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "PERF_COUNT_HW_CACHE_REFERENCES", "last-level cache accesses (kernel's choice)" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES", "last-level cache misses (kernel's choice)" },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "PERF_COUNT_HW_REF_CPU_CYCLES", "reference (constant-rate) cycles" },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "PERF_COUNT_HW_BUS_CYCLES", "bus cycles" },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "cycles the front end delivered nothing" },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "cycles the back end executed nothing" },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS), "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", "L1 data cache loads" },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), "PERF_COUNT_HW_CACHE_L1D:READ:MISS", "L1 data cache load misses" },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, ACCESS), "PERF_COUNT_HW_CACHE_L1D:WRITE:ACCESS", "L1 data cache stores" },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS), "PERF_COUNT_HW_CACHE_L1I:READ:MISS", "L1 instruction cache misses" },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS), "PERF_COUNT_HW_CACHE_LL:READ:ACCESS", "last-level cache loads" },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), "PERF_COUNT_HW_CACHE_LL:READ:MISS", "last-level cache load misses" },
	{ "LLC-stores", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, ACCESS), "PERF_COUNT_HW_CACHE_LL:WRITE:ACCESS", "last-level cache stores" },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, MISS), "PERF_COUNT_HW_CACHE_LL:WRITE:MISS", "last-level cache store misses" },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, ACCESS), "PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS", "data TLB loads" },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS), "PERF_COUNT_HW_CACHE_DTLB:READ:MISS", "data TLB load misses" },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS), "PERF_COUNT_HW_CACHE_ITLB:READ:MISS", "instruction TLB misses" },
	{ "branch-loads", PERF_TYPE_HW_CACHE, HWC(BPU, READ, ACCESS), "PERF_COUNT_HW_CACHE_BPU:READ:ACCESS", "branch predictor lookups" },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, HWC(BPU, READ, MISS), "PERF_COUNT_HW_CACHE_BPU:READ:MISS", "branch predictor misses" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK", "ns the task ran (software)" },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK", "ns of the cpu clock (software)" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS", "page faults (software)" },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS", "page faults (software)" },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor page faults (software)" },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major page faults (software)" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES", "context switches (software)" },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES", "context switches (software)" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS", "migrations to another cpu (software)" },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS", "migrations to another cpu (software)" },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "PERF_COUNT_SW_ALIGNMENT_FAULTS", "alignment faults (software)" },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "PERF_COUNT_SW_EMULATION_FAULTS", "emulation faults (software)" },
};
#define NGENERICS (int)(sizeof(generics) / sizeof(generics[0]))

static struct {
	bool init;
	bool pfm_ok;
	struct pmb_tables tab;  /* of events/ (event_tables.c) */
} S;

static char sysfs_root[256] = "/sys/bus/event_source/devices";

/* Generic names match as perf spells them, or in any case where no alias
 * takes the name (the alias llc-misses is not perf's LLC-load-misses). */
static const struct generic *find_generic_case(const char *name, bool exact)
{
	for (int i = 0; i < NGENERICS; i++)
		if (exact ? !strcmp(generics[i].name, name) : !strcasecmp(generics[i].name, name))
			return &generics[i];
	return NULL;
}

static const struct generic *find_generic(const char *name)
{
	return find_generic_case(name, true);
}

/* ---- loading: libpfm4 and the tables ------------------------------------------ */

/* The tables may not define an alias that would hide a perf generic name. */
static bool is_generic(const char *name)
{
	return find_generic(name) != NULL;
}

int pmb_events_init(const char *dir)
{
	pmb_events_fini();
	pmb__events_clear_error();
	S.init = true;
	S.pfm_ok = pfm_initialize() == PFM_SUCCESS;
	return pmb__tables_load(&S.tab, dir, is_generic);
}

void pmb_events_fini(void)
{
	if (S.pfm_ok)
		pfm_terminate();
	S.pfm_ok = false;
	S.init = false;
	pmb__tables_free(&S.tab);
}

const char *pmb_events_dir(void)
{
	return S.tab.dir;
}

void pmb__events_set_sysfs_root(const char *dir)
{
	pmb__str_copy(sysfs_root, sizeof(sysfs_root), dir ? dir : "/sys/bus/event_source/devices");
}

/* Tables are optional for resolving plain names: without them, aliases and
 * sets are simply unknown. */
static int lazy_init(void)
{
	int err;

	if (S.init)
		return 0;
	err = pmb_events_init(NULL);
	return err == PMB_ENOTABLE ? 0 : err;
}

/* ---- the PMU events are encoded for --------------------------------------- */

struct ctx {
	struct pmb_event_plan *plan;
	char pfm_pmu[NAME_LEN]; /* libpfm PMU that qualifies bare names; "" */
	int pmu_id;             /* its pfm_pmu_t; -1 none */
	bool hybrid;            /* generic and raw events carry hybrid_type */
	uint32_t hybrid_type;   /* sysfs type of the core PMU of the cpu */
	bool kernel;
};

static bool pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(p, pi) == PFM_SUCCESS;
}

/* The present core PMU whose description contains want (NULL: any,
 * preferring libpfm's default one).  Returns its id, or -1. */
static int core_pmu(const char *want, pfm_pmu_info_t *out)
{
	pfm_pmu_t p;
	int found = -1;

	if (!S.pfm_ok)
		return -1;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (!pmu_info(p, &pi) || !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
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

/* On a hybrid CPU (several core PMUs cpu_*, each owning some cpus), the one
 * owning cpu (cpu < 0: cpu_core).  Returns false on other machines. */
static bool hybrid_pmu(int cpu, char *name, size_t size, uint32_t *type)
{
	char best[NAME_LEN] = "", first[NAME_LEN] = "", path[512], buf[4096];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(sysfs_root);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu_", 4) || strlen(de->d_name) >= NAME_LEN)
			continue;
		snprintf(path, sizeof(path), "%s/%s/cpus", sysfs_root, de->d_name);
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
	snprintf(path, sizeof(path), "%s/%s/type", sysfs_root, name);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return false;
	*type = (uint32_t)strtoul(buf, NULL, 10);
	return true;
}

static void pick_pmu(struct ctx *c, int cpu)
{
	struct pmb_event_plan *pl = c->plan;
	char hname[NAME_LEN];
	const char *want = NULL;
	pfm_pmu_info_t pi;

	c->pmu_id = -1;
	if (hybrid_pmu(cpu, hname, sizeof(hname), &c->hybrid_type)) {
		c->hybrid = true;
		/* libpfm names hybrid PMUs by core kind in their descriptions
		 * ("Intel AlderLake GoldenCove (P-Core)"); it keeps the sysfs
		 * name to itself */
		if (!strcmp(hname, "cpu_core"))
			want = "P-Core";
		else if (!strcmp(hname, "cpu_atom"))
			want = "E-Core";
		if (!want || (c->pmu_id = core_pmu(want, &pi)) < 0) {
			pmb__str_copy(pl->pmu_name, sizeof(pl->pmu_name), hname);
			snprintf(pl->pmu_desc, sizeof(pl->pmu_desc),
				 "hybrid core PMU %s (not known to libpfm4)", hname);
			return;
		}
	} else if ((c->pmu_id = core_pmu(NULL, &pi)) < 0) {
		return;
	}
	pmb__str_copy(c->pfm_pmu, sizeof(c->pfm_pmu), pi.name);
	pmb__str_copy(pl->pmu_name, sizeof(pl->pmu_name), pi.name);
	pmb__str_copy(pl->pmu_desc, sizeof(pl->pmu_desc), pi.desc);
	pl->pmu_counters = pi.num_cntrs;
	pl->pmu_fixed = pi.num_fixed_cntrs;
}

/* ---- encoding one name ------------------------------------------------------ */

static void fill_generic(const struct ctx *c, const struct generic *g, struct pmb_event *ev)
{
	ev->attr.type = g->type;
	ev->attr.config = g->config;
	/* perf's extended type for hybrid: the PMU in the upper 32 bits */
	if (c->hybrid && g->type != PERF_TYPE_SOFTWARE)
		ev->attr.config |= (uint64_t)c->hybrid_type << 32;
	ev->attr.exclude_kernel = !c->kernel;
	snprintf(ev->encoding, sizeof(ev->encoding), "perf::%s", g->sym);
	pmb__str_copy(ev->pmu, sizeof(ev->pmu), "perf");
	ev->kind = g->type == PERF_TYPE_SOFTWARE ? PMB_EV_SW : PMB_EV_HW;
}

/* rNNNN: a raw hex event code for the core PMU, as perf writes it. */
static bool parse_raw(const char *s, uint64_t *code)
{
	size_t n;

	if (s[0] != 'r' || !s[1])
		return false;
	n = strspn(s + 1, "0123456789abcdefABCDEF");
	if (s[1 + n] || n > 16)
		return false;
	*code = strtoull(s + 1, NULL, 16);
	return true;
}

static void fill_raw(const struct ctx *c, uint64_t code, struct pmb_event *ev)
{
	ev->attr.type = c->hybrid ? c->hybrid_type : PERF_TYPE_RAW;
	ev->attr.config = code;
	ev->attr.exclude_kernel = !c->kernel;
	snprintf(ev->encoding, sizeof(ev->encoding), "raw %#llx", (unsigned long long)code);
	pmb__str_copy(ev->pmu, sizeof(ev->pmu), c->plan->pmu_name[0] ? c->plan->pmu_name : "perf");
	ev->kind = PMB_EV_HW;
}

/* Encode a libpfm4 event string; a bare name is looked up on the plan's
 * PMU first (libpfm skips deprecated PMUs, e.g. amd64_fam17h, in unqualified
 * lookups, and a hybrid CPU has two core PMUs), then on every present PMU.
 * Returns a PFM_* code. */
static int encode_pfm(const struct ctx *c, const char *str, struct pmb_event *ev)
{
	char full[256], *fstr = NULL;
	int ret = PFM_ERR_NOTFOUND;
	int plm = c->kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;

	if (!S.pfm_ok)
		return PFM_ERR_NOINIT;
	for (int pass = 0; pass < 2 && ret == PFM_ERR_NOTFOUND; pass++) {
		const char *s = str;

		if (pass == 0) {
			if (strstr(str, "::") || !c->pfm_pmu[0])
				continue;
			snprintf(full, sizeof(full), "%s::%s", c->pfm_pmu, str);
			s = full;
		}
		memset(&ev->attr, 0, sizeof(ev->attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &ev->attr;
		arg.fstr = &fstr;
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(s, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	}
	if (ret != PFM_SUCCESS)
		return ret;
	pmb__str_copy(ev->encoding, sizeof(ev->encoding), fstr ? fstr : str);
	free(fstr);
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
	    pmu_info(ei.pmu, &pi))
		pmb__str_copy(ev->pmu, sizeof(ev->pmu), pi.name);
	ev->kind = ev->attr.type == PERF_TYPE_SOFTWARE ? PMB_EV_SW : PMB_EV_HW;
	return PFM_SUCCESS;
}

/* ---- close matches for a bad name ------------------------------------------ */

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

/* Candidates from the plan's PMU (every present core PMU if none): its
 * event names, or, when base names one of its events, base:UMASK. */
static void consider_pmu_events(struct sugg *s, const struct ctx *c, const char *base)
{
	pfm_pmu_t p;

	if (!S.pfm_ok)
		return;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (!pmu_info(p, &pi) || !pi.is_present)
			continue;
		if (c->pmu_id >= 0 ? (int)p != c->pmu_id : pi.type != PFM_PMU_TYPE_CORE)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ei;

			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			if (!base) {
				consider(s, ei.name);
				continue;
			}
			if (strcasecmp(ei.name, base))
				continue;
			for (int a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;
				char full[SUGG_LEN];

				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
				    ai.type != PFM_ATTR_UMASK)
					continue;
				snprintf(full, sizeof(full), "%s:%s", ei.name, ai.name);
				consider(s, full);
			}
		}
	}
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

static int unknown_event(const struct ctx *c, const char *name, int pfmerr)
{
	char base[SUGG_LEN], text[400];
	const char *bare = strstr(name, "::");
	struct sugg s;
	char *colon;

	if (bare && (size_t)(bare - name) < sizeof(base)) {
		/* "skx::EVENT" where skx is not a PMU of this machine: say so,
		 * and how to encode for it anyway, rather than suggest names
		 * from another PMU.  (libpfm lists absent PMUs inconsistently,
		 * so the test is "no present PMU has that name".) */
		pfm_pmu_info_t pi;
		bool present = false;
		int p;

		snprintf(base, sizeof(base), "%.*s", (int)(bare - name), name);
		pfm_for_all_pmus(p) {
			memset(&pi, 0, sizeof(pi));
			pi.size = sizeof(pi);
			if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.name && !strcmp(pi.name, base) &&
			    pi.is_present)
				present = true;
		}
		if (!present && strcmp(base, "perf")) {
			pmb__events_set_error("event '%s' names PMU '%s', which this machine does not have "
					      "(its core PMU is '%s'); for a libpfm4 PMU, LIBPFM_FORCE_PMU=%s "
					      "encodes for it anyway",
					      name, base, c->plan->pmu_name[0] ? c->plan->pmu_name : "none", base);
			return PMB_EBADEVENT;
		}
	}
	bare = bare ? bare + 2 : name;
	pmb__str_copy(base, sizeof(base), bare);
	if ((colon = strchr(base, ':')))
		*colon = '\0';
	sugg_start(&s, bare);
	if (colon && pfmerr != PFM_ERR_NOTFOUND) {
		/* the event exists, a modifier or umask does not */
		consider_pmu_events(&s, c, base);
	} else {
		/* the PMU's own spelling first: it wins ties and near-duplicates */
		s.bad = base;
		consider_pmu_events(&s, c, NULL);
		s.bad = bare;
		for (int i = 0; i < NGENERICS; i++)
			consider(&s, generics[i].name);
		for (int i = 0; i < S.tab.nalias; i++)
			consider(&s, S.tab.alias[i].name);
	}
	sugg_text(&s, text, sizeof(text));
	if (!colon && pfmerr != PFM_ERR_NOTFOUND && pfmerr != PFM_ERR_NOINIT)
		text[0] = '\0'; /* it exists: a near name would not help */
	if (pfmerr == PFM_ERR_NOTFOUND || pfmerr == PFM_ERR_NOINIT)
		pmb__events_set_error("unknown event '%s'%s", name, text);
	else
		pmb__events_set_error("invalid event '%s' (%s)%s", name,
				      pfm_strerror(pfmerr), text);
	return PMB_EBADEVENT;
}

/* ---- resolving a list --------------------------------------------------------- */

/* The row of alias name for the plan's PMU, else its '*' row, else NULL. */
static const struct pmb_alias_row *alias_for(const struct ctx *c, const char *name)
{
	return pmb__tables_alias(&S.tab, name, c->pfm_pmu);
}

static int encode_alias(const struct ctx *c, const char *name, struct pmb_event *ev)
{
	const struct pmb_alias_row *r = alias_for(c, name);
	const struct generic *g;
	int ret;

	if (!r) {
		pmb__events_set_error("event alias '%s' has no mapping for PMU '%s' in %s/aliases.txt",
				      name, c->plan->pmu_name[0] ? c->plan->pmu_name : "(none)",
				      S.tab.dir);
		return PMB_EBADEVENT;
	}
	if (!strcmp(r->pmu, "*") && (g = find_generic(r->event))) {
		fill_generic(c, g, ev);
		return 0;
	}
	ret = encode_pfm(c, r->event, ev);
	if (ret != PFM_SUCCESS) {
		pmb__events_set_error("event alias '%s' is '%s' (%s/aliases.txt:%d), which does not encode for PMU '%s': %s",
				      name, r->event, S.tab.dir, r->line, c->plan->pmu_name,
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

static int add_event(struct ctx *c, const char *name)
{
	struct pmb_event_plan *pl = c->plan;
	const struct generic *g;
	struct pmb_event ev;
	uint64_t code;
	int err = 0, ret;

	if (strlen(name) >= sizeof(ev.name)) {
		pmb__events_set_error("event name too long: '%.80s...'", name);
		return PMB_EBADEVENT;
	}
	/* names compare exactly: llc-loads (alias) is not LLC-loads (perf) */
	for (int e = 0; e < pl->nev; e++)
		if (!strcmp(pl->ev[e].name, name))
			return 0;
	memset(&ev, 0, sizeof(ev));
	if ((g = find_generic(name))) {
		fill_generic(c, g, &ev);
	} else if (parse_raw(name, &code)) {
		fill_raw(c, code, &ev);
	} else if (pmb__tables_has_alias(&S.tab, name)) {
		err = encode_alias(c, name, &ev);
	} else if ((g = find_generic_case(name, false))) {
		fill_generic(c, g, &ev);
	} else if ((ret = encode_pfm(c, name, &ev)) != PFM_SUCCESS) {
		char portable[64];

		/* BR_MISP_RETIRED on an AMD or Arm core: the Intel name of a
		 * portable alias means that alias on this PMU, said so in the
		 * encoding, rather than an error on a machine that can count
		 * the same thing under its own name. */
		if (portable_name(name, portable, sizeof(portable)) &&
		    pmb__tables_has_alias(&S.tab, portable) &&
		    encode_alias(c, portable, &ev) == 0) {
			size_t len = strlen(ev.encoding);

			snprintf(ev.encoding + len, sizeof(ev.encoding) - len, " (as alias %s)", portable);
			pmb__events_clear_error();
		} else {
			err = unknown_event(c, name, ret);
		}
	}
	if (err)
		return err;
	pmb__str_copy(ev.name, sizeof(ev.name), name);
	ev.attr.size = sizeof(ev.attr);
	ev.attr.exclude_hv = 1;
	ev.anchor = (ev.attr.type == PERF_TYPE_HARDWARE) &&
		    ((ev.attr.config & 0xffffffffu) == PERF_COUNT_HW_CPU_CYCLES ||
		     (ev.attr.config & 0xffffffffu) == PERF_COUNT_HW_INSTRUCTIONS);
	/* the same counter under two names (cycles, cpu-cycles) is counted once */
	for (int e = 0; e < pl->nev; e++)
		if (same_attr(&pl->ev[e].attr, &ev.attr))
			return 0;
	if (pl->nev >= PMB_MAX_EVENTS) {
		pmb__events_set_error("too many events: '%s' would be number %d, at most %d can be counted",
				      name, pl->nev + 1, PMB_MAX_EVENTS);
		return -E2BIG;
	}
	pl->ev[pl->nev++] = ev;
	return 0;
}

static int add_list(struct ctx *c, const char *list, int depth);

static int add_set(struct ctx *c, const char *ref, int depth)
{
	const struct pmb_set_def *set = pmb__tables_set(&S.tab, ref + 1);

	if (!set) {
		struct sugg s;
		char cand[NAME_LEN + 1], text[400];

		sugg_start(&s, ref);
		for (int i = 0; i < S.tab.nset; i++) {
			snprintf(cand, sizeof(cand), "@%s", S.tab.set[i].name);
			consider(&s, cand);
		}
		sugg_text(&s, text, sizeof(text));
		pmb__events_set_error("unknown event set '%s'%s", ref, text);
		return PMB_EBADEVENT;
	}
	if (depth >= MAX_SET_DEPTH) {
		pmb__events_set_error("event set '%s' nests more than %d deep (does it include itself?)",
				      ref, MAX_SET_DEPTH);
		return PMB_EBADEVENT;
	}
	return add_list(c, set->members, depth + 1);
}

static int add_list(struct ctx *c, const char *list, int depth)
{
	char *buf = strdup(list), *save, *p;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (p = strtok_r(buf, ",", &save); p && !err; p = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*p))
			p++;
		pmb__str_trim_end(p);
		if (*p)
			err = *p == '@' ? add_set(c, p, depth) : add_event(c, p);
	}
	free(buf);
	return err;
}

/* Index of the first of the '|'-separated names the plan holds; -2 none. */
static int find_in_plan(const struct pmb_event_plan *pl, const char *alts)
{
	char buf[96], *save, *p;

	/* exact spelling first, so that llc-misses is not taken for LLC-... */
	for (int exact = 1; exact >= 0; exact--) {
		pmb__str_copy(buf, sizeof(buf), alts);
		for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save))
			for (int e = 0; e < pl->nev; e++)
				if (exact ? !strcmp(pl->ev[e].name, p) : !strcasecmp(pl->ev[e].name, p))
					return e;
	}
	return -2;
}

static void add_derived(struct pmb_event_plan *pl)
{
	for (int i = 0; i < S.tab.nrule && pl->nder < PMB_MAX_DERIVED; i++) {
		const struct pmb_derive_rule *r = &S.tab.rule[i];
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

int pmb_events_resolve(const char *list, int cpu, bool kernel,
		       struct pmb_event_plan *plan)
{
	struct ctx c;
	int err;

	memset(plan, 0, sizeof(*plan));
	plan->kernel = kernel;
	pmb__events_clear_error();
	if ((err = lazy_init()) < 0)
		return err;
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	c.kernel = kernel;
	pick_pmu(&c, cpu);
	err = add_list(&c, list ? list : PMB_DEFAULT_COUNTERS, 0);
	if (err) {
		plan->nev = 0;
		return err;
	}
	add_derived(plan);
	return 0;
}

/* ---- listing ------------------------------------------------------------------ */

typedef void (*list_fn)(void *ctx, const char *pmu, const char *name, const char *desc);

static bool matches(const char *name, const char *pattern)
{
	return !pattern || !*pattern || strcasestr(name, pattern);
}

static int list_pfm(const char *pattern, list_fn fn, void *ctx)
{
	pfm_pmu_t p;
	int n = 0;

	if (!S.pfm_ok)
		return 0;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		/* perf's generic PMUs repeat the names listed above */
		if (!pmu_info(p, &pi) || !pi.is_present || pi.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ei;

			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			if (matches(ei.name, pattern)) {
				fn(ctx, pi.name, ei.name, ei.desc ? ei.desc : "");
				n++;
			}
			for (int a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;
				char full[256];

				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
				    ai.type != PFM_ATTR_UMASK)
					continue;
				snprintf(full, sizeof(full), "%s:%s", ei.name, ai.name);
				if (matches(full, pattern)) {
					fn(ctx, pi.name, full, ai.desc ? ai.desc : "");
					n++;
				}
			}
		}
	}
	return n;
}

int pmb_events_list(const char *pattern, list_fn fn, void *ctx)
{
	const struct pmb_tables *t = &S.tab;
	struct pmb_event_plan *plan;
	char desc[800], name[NAME_LEN + 1];
	struct ctx c;
	int n = 0, err;

	if ((err = lazy_init()) < 0)
		return err;
	if (!(plan = calloc(1, sizeof(*plan))))
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	pick_pmu(&c, -1);
	for (int i = 0; i < NGENERICS; i++) {
		if (matches(generics[i].name, pattern)) {
			fn(ctx, "perf", generics[i].name, generics[i].desc);
			n++;
		}
	}
	for (int i = 0; i < t->nalias; i++) {
		const char *alias = t->alias[i].name;
		const struct pmb_alias_row *r = alias_for(&c, alias);
		bool seen = false;

		for (int k = 0; k < i; k++)
			seen |= !strcasecmp(t->alias[k].name, alias);
		if (seen || !matches(alias, pattern))
			continue;
		if (r)
			snprintf(desc, sizeof(desc), "%s [%s: %s]", pmb__tables_about(t, alias),
				 strcmp(r->pmu, "*") ? r->pmu : "perf", r->event);
		else
			snprintf(desc, sizeof(desc), "%s [no mapping for %s]",
				 pmb__tables_about(t, alias), plan->pmu_name);
		fn(ctx, "alias", alias, desc);
		n++;
	}
	for (int i = 0; i < t->nset; i++) {
		snprintf(name, sizeof(name), "@%s", t->set[i].name);
		if (!matches(name, pattern))
			continue;
		snprintf(desc, sizeof(desc), "%s [%s]", pmb__tables_about(t, name), t->set[i].members);
		fn(ctx, "set", name, desc);
		n++;
	}
	free(plan);
	return n + list_pfm(pattern, fn, ctx);
}
