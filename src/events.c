/* events.c - event names to perf_event_attr: perf generic names, libpfm4, aliases and sets. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* events.h brings <linux/perf_event.h> first: libpfm's own copy of struct
 * perf_event_attr then stays out, and the kernel's (newer) one is used. */
#include "events.h"
#include <perfmon/pfmlib_perf_event.h>

#include "pmb_config.h"
#include "pmubench.h"

#define MAX_SET_DEPTH 8
#define NAME_LEN 48

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

/* ---- tables of events/ ------------------------------------------------------ */

struct alias_row {
	char name[NAME_LEN];
	char pmu[NAME_LEN];  /* libpfm PMU name or "*" */
	char event[192];
	int line;
};

struct about {
	char name[NAME_LEN];
	char text[160];
};

struct set_def {
	char name[NAME_LEN];
	char members[512];
	int line;
};

struct derive_rule {
	char fig[32];
	char num[96], den[96];  /* "a|b" alternatives; den "items" */
	double scale;
};

static struct {
	bool init;
	bool pfm_ok;
	char dir[PATH_MAX];
	struct alias_row *alias;
	int nalias;
	struct about *about;  /* aliases and sets, sets as "@name" */
	int nabout;
	struct set_def *set;
	int nset;
	struct derive_rule *rule;
	int nrule;
} S;

static char err_buf[512];
static char sysfs_root[256] = "/sys/bus/event_source/devices";

static __attribute__((format(printf, 1, 2))) void set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
}

/* Append one zeroed element to a growing array; NULL on ENOMEM. */
static void *push(void *arrp, int *n, size_t size)
{
	void **arr = arrp;
	char *p = realloc(*arr, (size_t)(*n + 1) * size);

	if (!p)
		return NULL;
	*arr = p;
	memset(p + (size_t)*n * size, 0, size);
	return p + (size_t)(*n)++ * size;
}

/* Copy with truncation (names are bounded by the tables' field sizes). */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

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

static const struct set_def *find_set(const char *name)
{
	for (int i = 0; i < S.nset; i++)
		if (!strcasecmp(S.set[i].name, name))
			return &S.set[i];
	return NULL;
}

static const char *find_about(const char *name)
{
	for (int i = 0; i < S.nabout; i++)
		if (!strcasecmp(S.about[i].name, name))
			return S.about[i].text;
	return "";
}

static bool alias_exists(const char *name)
{
	for (int i = 0; i < S.nalias; i++)
		if (!strcasecmp(S.alias[i].name, name))
			return true;
	return false;
}

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) || strlen(s) >= NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

/* Split a line (comment already cut) into at most max blank-separated
 * tokens; rest[i] points at the text from token i to the end of the line. */
static int tokenize(char *line, char **tok, char **rest, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		rest[n] = p;
		tok[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

#define MAXTOK 10

/* One line of aliases.txt.  Returns 0, or PMB_EBADTABLE with err_buf set. */
static int parse_alias_line(const char *file, int ln, char *line, const char *orig)
{
	char *tok[MAXTOK], *rest[MAXTOK], *save, *p;
	int n = tokenize(line, tok, rest, MAXTOK);

	if (!n)
		return 0;
	if (!strcmp(tok[0], "about")) {
		struct about *a;
		const char *text;

		if (n < 3 || !valid_name(tok[1]))
			goto bad;
		/* rest[] points into the tokenized copy: take the text from orig */
		text = orig + (rest[2] - line);
		if (!(a = push(&S.about, &S.nabout, sizeof(*a))))
			return -ENOMEM;
		copy(a->name, sizeof(a->name), tok[1]);
		copy(a->text, sizeof(a->text), text);
		trim_end(a->text);
		return 0;
	}
	if (strcmp(tok[0], "map")) {
		set_err("%s:%d: unknown keyword '%s' (expected about or map)", file, ln, tok[0]);
		return PMB_EBADTABLE;
	}
	if (n != 4 || !valid_name(tok[1]))
		goto bad;
	if (find_generic_case(tok[1], true)) {
		set_err("%s:%d: alias '%s' would hide the perf generic event of that name", file, ln, tok[1]);
		return PMB_EBADTABLE;
	}
	for (p = strtok_r(tok[2], ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct alias_row *r;

		for (int i = 0; i < S.nalias; i++) {
			if (!strcasecmp(S.alias[i].name, tok[1]) && !strcmp(S.alias[i].pmu, p)) {
				set_err("%s:%d: alias '%s' mapped twice for PMU '%s' (first at line %d)",
					file, ln, tok[1], p, S.alias[i].line);
				return PMB_EBADTABLE;
			}
		}
		if (strlen(p) >= NAME_LEN || strlen(tok[3]) >= sizeof(r->event)) {
			set_err("%s:%d: name too long", file, ln);
			return PMB_EBADTABLE;
		}
		if (!(r = push(&S.alias, &S.nalias, sizeof(*r))))
			return -ENOMEM;
		copy(r->name, sizeof(r->name), tok[1]);
		copy(r->pmu, sizeof(r->pmu), p);
		copy(r->event, sizeof(r->event), tok[3]);
		r->line = ln;
	}
	return 0;
bad:
	set_err("%s:%d: expected 'about NAME TEXT' or 'map NAME PMU[,PMU...] EVENT'", file, ln);
	return PMB_EBADTABLE;
}

/* One line of sets.txt.  Returns 0, or PMB_EBADTABLE with err_buf set. */
static int parse_set_line(const char *file, int ln, char *line, const char *orig)
{
	char *tok[MAXTOK], *rest[MAXTOK], *end;
	int n = tokenize(line, tok, rest, MAXTOK);

	if (!n)
		return 0;
	if (!strcmp(tok[0], "about") || !strcmp(tok[0], "set")) {
		bool about = tok[0][0] == 'a';
		const char *text;

		if (n < 3 || !valid_name(tok[1])) {
			set_err("%s:%d: expected '%s NAME %s'", file, ln, tok[0],
				about ? "TEXT" : "EVENT[,EVENT...]");
			return PMB_EBADTABLE;
		}
		text = orig + (rest[2] - line);
		if (about) {
			struct about *a = push(&S.about, &S.nabout, sizeof(*a));

			if (!a)
				return -ENOMEM;
			snprintf(a->name, sizeof(a->name), "@%s", tok[1]);
			copy(a->text, sizeof(a->text), text);
			trim_end(a->text);
		} else {
			struct set_def *s;
			const struct set_def *old = find_set(tok[1]);

			if (old) {
				set_err("%s:%d: set '%s' defined twice (first at line %d)",
					file, ln, tok[1], old->line);
				return PMB_EBADTABLE;
			}
			if (!(s = push(&S.set, &S.nset, sizeof(*s))))
				return -ENOMEM;
			copy(s->name, sizeof(s->name), tok[1]);
			copy(s->members, sizeof(s->members), text);
			trim_end(s->members);
			s->line = ln;
		}
		return 0;
	}
	if (!strcmp(tok[0], "derive")) {
		struct derive_rule *r;
		double scale = 1;

		if ((n != 6 && n != 8) || strcmp(tok[2], "=") || strcmp(tok[4], "/") ||
		    (n == 8 && strcmp(tok[6], "*")))
			goto bad_derive;
		if (n == 8) {
			scale = strtod(tok[7], &end);
			if (*end || !(scale > 0))
				goto bad_derive;
		}
		if (strlen(tok[1]) >= sizeof(r->fig) || strlen(tok[3]) >= sizeof(r->num) ||
		    strlen(tok[5]) >= sizeof(r->den))
			goto bad_derive;
		if (!(r = push(&S.rule, &S.nrule, sizeof(*r))))
			return -ENOMEM;
		copy(r->fig, sizeof(r->fig), tok[1]);
		copy(r->num, sizeof(r->num), tok[3]);
		copy(r->den, sizeof(r->den), tok[5]);
		r->scale = scale;
		return 0;
	}
	set_err("%s:%d: unknown keyword '%s' (expected about, set or derive)", file, ln, tok[0]);
	return PMB_EBADTABLE;
bad_derive:
	set_err("%s:%d: expected 'derive FIGURE = NUM / DEN [* SCALE]'", file, ln);
	return PMB_EBADTABLE;
}

static int load_table(const char *dir, const char *base,
		      int (*parse)(const char *, int, char *, const char *))
{
	char path[PATH_MAX + 32], *line = NULL, *work = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, base);
	if (!(f = fopen(path, "r"))) {
		set_err("cannot read %s: %s", path, strerror(errno));
		return PMB_ENOTABLE;
	}
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		char *hash = strchr(line, '#');

		ln++;
		if (hash)
			*hash = '\0';
		trim_end(line);
		free(work);
		if (!(work = strdup(line))) {
			err = -ENOMEM;
			break;
		}
		err = parse(path, ln, work, line);
	}
	free(work);
	free(line);
	fclose(f);
	return err;
}

/* Check what can be checked without a PMU: @references name known sets. */
static int check_sets(const char *dir)
{
	for (int i = 0; i < S.nset; i++) {
		char buf[sizeof(S.set[i].members)], *save, *p;

		copy(buf, sizeof(buf), S.set[i].members);
		for (p = strtok_r(buf, ", \t", &save); p; p = strtok_r(NULL, ", \t", &save)) {
			if (*p == '@' && !find_set(p + 1)) {
				set_err("%s/sets.txt:%d: set '%s' uses unknown set '%s'",
					dir, S.set[i].line, S.set[i].name, p);
				return PMB_EBADTABLE;
			}
		}
	}
	return 0;
}

static void free_tables(void)
{
	free(S.alias);
	free(S.about);
	free(S.set);
	free(S.rule);
	S.alias = NULL, S.about = NULL, S.set = NULL, S.rule = NULL;
	S.nalias = S.nabout = S.nset = S.nrule = 0;
	S.dir[0] = '\0';
}

static bool has_tables(const char *dir)
{
	char path[PATH_MAX + 32];

	if (!dir || !*dir)
		return false;
	snprintf(path, sizeof(path), "%s/aliases.txt", dir);
	return access(path, R_OK) == 0;
}

/* The tables' folder: $PMUBENCH_EVENTS_DIR, the source tree, the install
 * prefix, then ../share/pmubench/events next to the executable (a moved
 * install tree). */
static int find_dir(char *out, size_t size)
{
	char exe[PATH_MAX], rel[PATH_MAX + 64], *slash;
	const char *cand[4];
	ssize_t n;
	int nc = 0;

	cand[nc++] = getenv("PMUBENCH_EVENTS_DIR");
	cand[nc++] = PMB_EVENTS_SOURCE_DIR;
	cand[nc++] = PMB_EVENTS_INSTALL_DIR;
	rel[0] = '\0';
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/'))) {
			*slash = '\0';
			snprintf(rel, sizeof(rel), "%s/../share/pmubench/events", exe);
		}
	}
	cand[nc++] = rel;
	for (int i = 0; i < nc; i++) {
		if (has_tables(cand[i])) {
			copy(out, size, cand[i]);
			return 0;
		}
	}
	set_err("events tables (aliases.txt, sets.txt) not found: set PMUBENCH_EVENTS_DIR or install them in %s",
		PMB_EVENTS_INSTALL_DIR);
	return PMB_ENOTABLE;
}

int pmb_events_init(const char *dir)
{
	int err;

	pmb_events_fini();
	err_buf[0] = '\0';
	S.init = true;
	S.pfm_ok = pfm_initialize() == PFM_SUCCESS;
	if (dir && *dir) {
		if (!has_tables(dir)) {
			set_err("events tables not found in %s", dir);
			return PMB_ENOTABLE;
		}
		copy(S.dir, sizeof(S.dir), dir);
	} else if ((err = find_dir(S.dir, sizeof(S.dir))) < 0) {
		return err;
	}
	err = load_table(S.dir, "aliases.txt", parse_alias_line);
	if (!err)
		err = load_table(S.dir, "sets.txt", parse_set_line);
	if (!err)
		err = check_sets(S.dir);
	if (err) {
		char keep[sizeof(err_buf)];

		copy(keep, sizeof(keep), err_buf);
		free_tables();
		copy(err_buf, sizeof(err_buf), keep);
	}
	return err;
}

void pmb_events_fini(void)
{
	if (S.pfm_ok)
		pfm_terminate();
	S.pfm_ok = false;
	S.init = false;
	free_tables();
}

const char *pmb_events_error(void)
{
	return err_buf;
}

const char *pmb_events_dir(void)
{
	return S.dir;
}

void pmb__events_set_sysfs_root(const char *dir)
{
	copy(sysfs_root, sizeof(sysfs_root), dir ? dir : "/sys/bus/event_source/devices");
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
	trim_end(buf);
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
			copy(first, sizeof(first), de->d_name);
		if (cpu >= 0 ? cpu_in_list(buf, cpu) : !strcmp(de->d_name, "cpu_core"))
			copy(best, sizeof(best), de->d_name);
	}
	closedir(d);
	if (n < 2)
		return false;
	copy(name, size, best[0] ? best : first);
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
			copy(pl->pmu_name, sizeof(pl->pmu_name), hname);
			snprintf(pl->pmu_desc, sizeof(pl->pmu_desc),
				 "hybrid core PMU %s (not known to libpfm4)", hname);
			return;
		}
	} else if ((c->pmu_id = core_pmu(NULL, &pi)) < 0) {
		return;
	}
	copy(c->pfm_pmu, sizeof(c->pfm_pmu), pi.name);
	copy(pl->pmu_name, sizeof(pl->pmu_name), pi.name);
	copy(pl->pmu_desc, sizeof(pl->pmu_desc), pi.desc);
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
	copy(ev->pmu, sizeof(ev->pmu), "perf");
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
	copy(ev->pmu, sizeof(ev->pmu), c->plan->pmu_name[0] ? c->plan->pmu_name : "perf");
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
	copy(ev->encoding, sizeof(ev->encoding), fstr ? fstr : str);
	free(fstr);
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
	    pmu_info(ei.pmu, &pi))
		copy(ev->pmu, sizeof(ev->pmu), pi.name);
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
			copy(s->name[i], SUGG_LEN, s->name[i - 1]);
		}
	}
	if (i >= NSUGG)
		return;
	s->d[i] = d;
	copy(s->name[i], SUGG_LEN, cand);
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
		copy(out, size, " (no close match; --list-events shows the known ones)");
		return;
	}
	copy(out, size, ": did you mean ");
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

	bare = bare ? bare + 2 : name;
	copy(base, sizeof(base), bare);
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
		for (int i = 0; i < S.nalias; i++)
			consider(&s, S.alias[i].name);
	}
	sugg_text(&s, text, sizeof(text));
	if (!colon && pfmerr != PFM_ERR_NOTFOUND && pfmerr != PFM_ERR_NOINIT)
		text[0] = '\0'; /* it exists: a near name would not help */
	if (pfmerr == PFM_ERR_NOTFOUND || pfmerr == PFM_ERR_NOINIT)
		set_err("unknown event '%s'%s", name, text);
	else
		set_err("invalid event '%s' (%s)%s", name, pfm_strerror(pfmerr), text);
	return PMB_EBADEVENT;
}

/* ---- resolving a list --------------------------------------------------------- */

/* The row of alias name for the plan's PMU, else its '*' row, else NULL. */
static const struct alias_row *alias_for(const struct ctx *c, const char *name)
{
	const struct alias_row *any = NULL;

	for (int i = 0; i < S.nalias; i++) {
		const struct alias_row *r = &S.alias[i];

		if (strcasecmp(r->name, name))
			continue;
		if (c->pfm_pmu[0] && !strcmp(r->pmu, c->pfm_pmu))
			return r;
		if (!strcmp(r->pmu, "*"))
			any = r;
	}
	return any;
}

static int encode_alias(const struct ctx *c, const char *name, struct pmb_event *ev)
{
	const struct alias_row *r = alias_for(c, name);
	const struct generic *g;
	int ret;

	if (!r) {
		set_err("event alias '%s' has no mapping for PMU '%s' in %s/aliases.txt",
			name, c->plan->pmu_name[0] ? c->plan->pmu_name : "(none)", S.dir);
		return PMB_EBADEVENT;
	}
	if (!strcmp(r->pmu, "*") && (g = find_generic(r->event))) {
		fill_generic(c, g, ev);
		return 0;
	}
	ret = encode_pfm(c, r->event, ev);
	if (ret != PFM_SUCCESS) {
		set_err("event alias '%s' is '%s' (%s/aliases.txt:%d), which does not encode for PMU '%s': %s",
			name, r->event, S.dir, r->line, c->plan->pmu_name, pfm_strerror(ret));
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
		set_err("event name too long: '%.80s...'", name);
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
	} else if (alias_exists(name)) {
		err = encode_alias(c, name, &ev);
	} else if ((g = find_generic_case(name, false))) {
		fill_generic(c, g, &ev);
	} else if ((ret = encode_pfm(c, name, &ev)) != PFM_SUCCESS) {
		char portable[64];

		/* BR_MISP_RETIRED on an AMD or Arm core: the Intel name of a
		 * portable alias means that alias on this PMU, said so in the
		 * encoding, rather than an error on a machine that can count
		 * the same thing under its own name. */
		if (portable_name(name, portable, sizeof(portable)) && alias_exists(portable) &&
		    encode_alias(c, portable, &ev) == 0) {
			size_t len = strlen(ev.encoding);

			snprintf(ev.encoding + len, sizeof(ev.encoding) - len, " (as alias %s)", portable);
			err_buf[0] = 0;
		} else {
			err = unknown_event(c, name, ret);
		}
	}
	if (err)
		return err;
	copy(ev.name, sizeof(ev.name), name);
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
		set_err("too many events: '%s' would be number %d, at most %d can be counted",
			name, pl->nev + 1, PMB_MAX_EVENTS);
		return -E2BIG;
	}
	pl->ev[pl->nev++] = ev;
	return 0;
}

static int add_list(struct ctx *c, const char *list, int depth);

static int add_set(struct ctx *c, const char *ref, int depth)
{
	const struct set_def *set = find_set(ref + 1);

	if (!set) {
		struct sugg s;
		char cand[NAME_LEN + 1], text[400];

		sugg_start(&s, ref);
		for (int i = 0; i < S.nset; i++) {
			snprintf(cand, sizeof(cand), "@%s", S.set[i].name);
			consider(&s, cand);
		}
		sugg_text(&s, text, sizeof(text));
		set_err("unknown event set '%s'%s", ref, text);
		return PMB_EBADEVENT;
	}
	if (depth >= MAX_SET_DEPTH) {
		set_err("event set '%s' nests more than %d deep (does it include itself?)",
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
		trim_end(p);
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
		copy(buf, sizeof(buf), alts);
		for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save))
			for (int e = 0; e < pl->nev; e++)
				if (exact ? !strcmp(pl->ev[e].name, p) : !strcasecmp(pl->ev[e].name, p))
					return e;
	}
	return -2;
}

static void add_derived(struct pmb_event_plan *pl)
{
	for (int i = 0; i < S.nrule && pl->nder < PMB_MAX_DERIVED; i++) {
		const struct derive_rule *r = &S.rule[i];
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
		copy(d->name, sizeof(d->name), r->fig);
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
	err_buf[0] = '\0';
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
	for (int i = 0; i < S.nalias; i++) {
		const struct alias_row *r = alias_for(&c, S.alias[i].name);
		bool seen = false;

		for (int k = 0; k < i; k++)
			seen |= !strcasecmp(S.alias[k].name, S.alias[i].name);
		if (seen || !matches(S.alias[i].name, pattern))
			continue;
		if (r)
			snprintf(desc, sizeof(desc), "%s [%s: %s]", find_about(S.alias[i].name),
				 strcmp(r->pmu, "*") ? r->pmu : "perf", r->event);
		else
			snprintf(desc, sizeof(desc), "%s [no mapping for %s]",
				 find_about(S.alias[i].name), plan->pmu_name);
		fn(ctx, "alias", S.alias[i].name, desc);
		n++;
	}
	for (int i = 0; i < S.nset; i++) {
		snprintf(name, sizeof(name), "@%s", S.set[i].name);
		if (!matches(name, pattern))
			continue;
		snprintf(desc, sizeof(desc), "%s [%s]", find_about(name), S.set[i].members);
		fn(ctx, "set", name, desc);
		n++;
	}
	free(plan);
	return n + list_pfm(pattern, fn, ctx);
}
