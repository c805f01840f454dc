/* test_events.c - event names to perf_event_attr under forced libpfm4 PMUs: tables, aliases, sets, errors. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events.h"
#include "pmb_config.h"
#include "pmubench.h"
#include "tap.h"

#define SRC_LINE .line = __LINE__
#define RAW PERF_TYPE_RAW
#define HW PERF_TYPE_HARDWARE
#define SW PERF_TYPE_SOFTWARE
#define HWC PERF_TYPE_HW_CACHE

/* One name and the attr it must encode to.  Expected codes come from the
 * vendors' manuals (Intel SDM event/umask tables, AMD PPR PMCx numbers) and
 * linux/perf_event.h, not from running libpfm. */
struct enc_case {
	int line;
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t config1;
	enum pmb_event_kind kind;
	bool anchor;
	const char *pmu;  /* expected ev.pmu; NULL: not checked */
};

/* Everything not tied to a PMU: the same under any forced PMU. */
static const struct enc_case generic_cases[] = {
	{ SRC_LINE, "cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, PMB_EV_HW, true, "perf" },
	{ SRC_LINE, "cpu-cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, PMB_EV_HW, true, "perf" },
	{ SRC_LINE, "instructions", HW, PERF_COUNT_HW_INSTRUCTIONS, 0, PMB_EV_HW, true, "perf" },
	{ SRC_LINE, "branches", HW, 4, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "branch-misses", HW, 5, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "cache-references", HW, 2, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "cache-misses", HW, 3, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "ref-cycles", HW, 9, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "stalled-cycles-backend", HW, 8, 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "L1-dcache-load-misses", HWC, 0 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "LLC-loads", HWC, 2 | (0 << 8) | (0 << 16), 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "dTLB-load-misses", HWC, 3 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "task-clock", SW, 1, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "cpu-clock", SW, 0, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "page-faults", SW, 2, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "context-switches", SW, 3, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "cpu-migrations", SW, 4, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "minor-faults", SW, 5, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "major-faults", SW, 6, 0, PMB_EV_SW, false, "perf" },
	{ SRC_LINE, "r1c4", RAW, 0x1c4, 0, PMB_EV_HW, false, NULL },
	{ SRC_LINE, "rC5", RAW, 0xc5, 0, PMB_EV_HW, false, NULL },
};

/* Skylake-X: config = event | umask << 8 | edge << 18 | inv << 23 | cmask << 24. */
static const struct enc_case skx_cases[] = {
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES", RAW, 0xc5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED", RAW, 0xc5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "skx::BR_MISP_RETIRED:ALL_BRANCHES", RAW, 0xc5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:u", RAW, 0xc5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:CONDITIONAL", RAW, 0x1c5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:c=1", RAW, 0x10000c5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:c=1:i=1", RAW, 0x18000c5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:e=1:c=2", RAW, 0x20400c5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "BR_INST_RETIRED:ALL_BRANCHES", RAW, 0xc4, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "MEM_LOAD_RETIRED:L1_MISS", RAW, 0x08d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "MEM_LOAD_RETIRED:L3_MISS", RAW, 0x20d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "L1D:REPLACEMENT", RAW, 0x0151, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "LONGEST_LAT_CACHE:MISS", RAW, 0x412e, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", RAW, 0x01b7, 0x10001, PMB_EV_HW, false, "skx" },
	/* aliases (events/aliases.txt) on Skylake-X */
	{ SRC_LINE, "l1d-loads", RAW, 0x81d0, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "l1d-misses", RAW, 0x08d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "l2-misses", RAW, 0x10d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "llc-loads", RAW, 0x10d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "llc-misses", RAW, 0x20d1, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "dtlb-misses", RAW, 0x0e08, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "br-misp-retired", RAW, 0xc5, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "br-inst-retired", RAW, 0xc4, 0, PMB_EV_HW, false, "skx" },
	{ SRC_LINE, "stalls", RAW, 0x040004a3, 0, PMB_EV_HW, false, "skx" },
};

/* AMD Zen 1 (PPR 17h): config = event[7:0] | umask << 8 | event[11:8] << 32. */
static const struct enc_case zen1_cases[] = {
	{ SRC_LINE, "RETIRED_INSTRUCTIONS", RAW, 0xc0, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS", RAW, 0xc2, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", RAW, 0xc3, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "amd64_fam17h::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED:u", RAW, 0xc3, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "LS_DISPATCH:LD_DISPATCH", RAW, 0x0129, 0, PMB_EV_HW, false, "amd64_fam17h" },
	/* aliases: Zen 1 has no demand-fill event in libpfm: perf's generic
	 * cache events stand in (the '*' rows) */
	{ SRC_LINE, "l1d-loads", RAW, 0x0129, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "l1d-misses", HWC, 0 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "l2-misses", RAW, 0x0864, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "llc-misses", HWC, 2 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, "perf" },
	{ SRC_LINE, "dtlb-misses", RAW, 0xf045, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "br-misp-retired", RAW, 0xc3, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "br-inst-retired", RAW, 0xc2, 0, PMB_EV_HW, false, "amd64_fam17h" },
	{ SRC_LINE, "stalls", HW, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 0, PMB_EV_HW, false, "perf" },
};

static char events_dir[4096];

/* Run fn in a child process with libpfm forced to pmu: libpfm detects its
 * PMUs once per process (a second pfm_initialize() keeps the first PMU), so
 * each forced PMU gets a fresh process.  The child's TAP points go to the
 * shared stdout; its counters come back through a pipe.  Returns fn's value. */
static int under_pmu(const char *pmu, int (*fn)(void))
{
	int fd[2], msg[3] = { 0, 0, 0 }, status;
	pid_t pid;

	if (pipe(fd) < 0)
		return tap_ok(0, "pipe: %s", strerror(errno)), 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int err;

		close(fd[0]);
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		err = pmb_events_init(NULL);
		tap_ok(err == 0 && !strcmp(pmb_events_dir(), events_dir),
		       "init under LIBPFM_FORCE_PMU=%s, tables from $PMUBENCH_EVENTS_DIR (%d %s)", pmu,
		       err, pmb_events_error());
		msg[2] = fn();
		pmb_events_fini();
		fflush(stdout);
		msg[0] = tap__n;
		msg[1] = tap__failed;
		if (write(fd[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		close(fd[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		return tap_ok(0, "child process for %s", pmu), 0;
	}
	close(fd[0]);
	waitpid(pid, &status, 0);
	tap__n = msg[0];
	tap__failed = msg[1];
	return msg[2];
}

static bool contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static void check_case(const struct enc_case *c, bool kernel)
{
	struct pmb_event_plan p;
	const struct pmb_event *e = &p.ev[0];
	int err = pmb_events_resolve(c->name, 0, kernel, &p);

	if (!tap_ok_at(c->line, err == 0 && p.nev == 1, "%s%s resolves to one event (err %d: %s)",
		       c->name, kernel ? " --kernel" : "", err, pmb_events_error()))
		return;
	tap_ok_at(c->line, e->attr.type == c->type && e->attr.config == c->config &&
		  e->attr.config1 == c->config1,
		  "%s -> type %u config %#llx config1 %#llx (got %u %#llx %#llx)", c->name,
		  c->type, (unsigned long long)c->config, (unsigned long long)c->config1,
		  e->attr.type, (unsigned long long)e->attr.config,
		  (unsigned long long)e->attr.config1);
	tap_ok_at(c->line, e->kind == c->kind && e->anchor == c->anchor,
		  "%s: kind %d anchor %d", c->name, e->kind, e->anchor);
	if (c->pmu)
		tap_ok_at(c->line, !strcmp(e->pmu, c->pmu), "%s: pmu %s (got %s)", c->name,
			  c->pmu, e->pmu);
	tap_ok_at(c->line, !strcmp(e->name, c->name) && e->encoding[0],
		  "%s: name kept, encoding '%s'", c->name, e->encoding);
	tap_ok_at(c->line, e->attr.exclude_kernel == !kernel && e->attr.exclude_hv == 1 &&
		  e->attr.exclude_user == 0 && e->attr.disabled == 0 && e->attr.read_format == 0 &&
		  e->attr.size == sizeof(e->attr),
		  "%s: user%s only, hv excluded, not disabled, no read_format", c->name,
		  kernel ? "+kernel" : "");
}

static void check_cases(const struct enc_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_case(&cases[i], false);
}

static int find(const struct pmb_event_plan *p, const char *name)
{
	for (int e = 0; e < p->nev; e++)
		if (!strcmp(p->ev[e].name, name))
			return e;
	return -1;
}

static const struct pmb_derived *derived(const struct pmb_event_plan *p, const char *name)
{
	for (int d = 0; d < p->nder; d++)
		if (!strcmp(p->der[d].name, name))
			return &p->der[d];
	return NULL;
}

static bool has_derived(const struct pmb_event_plan *p, const char *name, const char *num,
			const char *den, double scale)
{
	const struct pmb_derived *d = derived(p, name);

	return d && d->num == find(p, num) && d->num >= 0 &&
	       (den ? d->den == find(p, den) && d->den >= 0 : d->den == -1) && d->scale == scale;
}

static void test_sets(void)
{
	static const char *branch[] = { "cycles", "instructions", "branches", "branch-misses" };
	static const char *cache[] = { "l1d-misses", "l2-misses", "llc-misses", "cycles", "instructions" };
	struct pmb_event_plan p;
	int err;

	err = pmb_events_resolve("@branch", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4, "@branch: 4 events (err %d %s)", err, pmb_events_error());
	for (int i = 0; i < 4 && p.nev == 4; i++)
		tap_ok(!strcmp(p.ev[i].name, branch[i]), "@branch event %d is %s", i, branch[i]);
	tap_ok(p.nder == 3, "@branch: 3 derived figures (got %d)", p.nder);
	tap_ok(has_derived(&p, "ipc", "instructions", "cycles", 1), "@branch: ipc = instructions / cycles");
	tap_ok(has_derived(&p, "mpki", "branch-misses", "instructions", 1000),
	       "@branch: mpki = branch-misses * 1000 / instructions");
	tap_ok(has_derived(&p, "mispredict_ratio", "branch-misses", "branches", 1),
	       "@branch: mispredict_ratio = branch-misses / branches");
	tap_ok(p.ev[0].anchor && p.ev[1].anchor && !p.ev[2].anchor, "@branch: cycles and instructions anchor");

	err = pmb_events_resolve("@cache", -1, false, &p);
	tap_ok(err == 0 && p.nev == 5, "@cache: 5 events (err %d %s)", err, pmb_events_error());
	for (int i = 0; i < 5 && p.nev == 5; i++)
		tap_ok(!strcmp(p.ev[i].name, cache[i]), "@cache event %d is %s", i, cache[i]);
	tap_ok(has_derived(&p, "ipc", "instructions", "cycles", 1), "@cache: ipc");
	tap_ok(has_derived(&p, "l1d_mpki", "l1d-misses", "instructions", 1000), "@cache: l1d_mpki");
	tap_ok(has_derived(&p, "l2_mpki", "l2-misses", "instructions", 1000), "@cache: l2_mpki");
	tap_ok(has_derived(&p, "llc_mpki", "llc-misses", "instructions", 1000), "@cache: llc_mpki");
	tap_ok(!derived(&p, "mpki"), "@cache: no branch figure without branch events");

	err = pmb_events_resolve("@tlb", -1, false, &p);
	tap_ok(err == 0 && find(&p, "dtlb-misses") == 0, "@tlb starts with dtlb-misses");

	err = pmb_events_resolve("@default", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !strcmp(p.ev[3].name, "branch-misses"), "@default is the default list");
	err = pmb_events_resolve(NULL, -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !strcmp(p.ev[0].name, "cycles"), "NULL list: PMB_DEFAULT_COUNTERS");

	/* plain lists get the figures of the events they hold */
	err = pmb_events_resolve("instructions,cycles", -1, false, &p);
	tap_ok(err == 0 && p.nder == 1 && has_derived(&p, "ipc", "instructions", "cycles", 1),
	       "plain list with cycles and instructions gets ipc");
	err = pmb_events_resolve("branch-misses,instructions", -1, false, &p);
	tap_ok(err == 0 && p.nder == 1 && has_derived(&p, "mpki", "branch-misses", "instructions", 1000),
	       "plain list gets mpki only");
	err = pmb_events_resolve("br-misp-retired,br-inst-retired", -1, false, &p);
	tap_ok(err == 0 && has_derived(&p, "mispredict_ratio", "br-misp-retired", "br-inst-retired", 1),
	       "mispredict_ratio from the aliases too");
	err = pmb_events_resolve("cycles,task-clock", -1, false, &p);
	tap_ok(err == 0 && p.nder == 0, "no figure without its events");

	/* duplicates */
	err = pmb_events_resolve("cycles,instructions,cycles,cpu-cycles,@branch", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && find(&p, "cpu-cycles") < 0,
	       "duplicates (same name, same counter) are kept once: %d events", p.nev);
	err = pmb_events_resolve(" cycles , ,instructions ", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2, "blanks and empty items are ignored");
}

static void test_errors(void)
{
	struct pmb_event_plan p;
	const char *msg;
	int err;

	err = pmb_events_resolve("cycles,BR_MISP_RETIRD", -1, false, &p);
	msg = pmb_events_error();
	if (!msg)
		msg = "";
	tap_ok(err == PMB_EBADEVENT && p.nev == 0, "unknown event: PMB_EBADEVENT, empty plan (%d)", err);
	tap_ok(contains(msg, "'BR_MISP_RETIRD'") && contains(msg, "BR_MISP_RETIRED") &&
	       !strchr(msg, '\n'), "message names it and suggests BR_MISP_RETIRED: %s", msg);
	tap_ok(contains(msg, "BR_INST_RETIRED"), "and another close match: %s", msg);

	err = pmb_events_resolve("brnch-misses", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "branch-misses"), "generic names are suggested: %s", msg);

	err = pmb_events_resolve("l1d-mises", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "l1d-misses"), "aliases are suggested: %s", msg);

	err = pmb_events_resolve("BR_MISP_RETIRED:ALL_BRANCHE", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "BR_MISP_RETIRED:ALL_BRANCHES"),
	       "a bad umask suggests the umasks: %s", msg);

	err = pmb_events_resolve("@nosuchset", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "@nosuchset"), "unknown set: %s", msg);
	err = pmb_events_resolve("@brnch", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "@branch"), "unknown set suggests @branch: %s", msg);

	err = pmb_events_resolve("cycles,instructions,branches,branch-misses,cache-references,"
				 "cache-misses,ref-cycles,bus-cycles,stalled-cycles-frontend,"
				 "stalled-cycles-backend,task-clock,cpu-clock,page-faults,"
				 "minor-faults,major-faults,context-switches", -1, false, &p);
	tap_ok(err == 0 && p.nev == PMB_MAX_EVENTS, "%d events fit (err %d)", PMB_MAX_EVENTS, err);
	err = pmb_events_resolve("cycles,instructions,branches,branch-misses,cache-references,"
				 "cache-misses,ref-cycles,bus-cycles,stalled-cycles-frontend,"
				 "stalled-cycles-backend,task-clock,cpu-clock,page-faults,"
				 "minor-faults,major-faults,context-switches,cpu-migrations", -1, false, &p);
	msg = pmb_events_error();
	tap_ok(err == -E2BIG && p.nev == 0 && contains(msg, "16"), "one more: -E2BIG: %s", msg);
}

static void test_kernel(void)
{
	struct pmb_event_plan p;
	int err = pmb_events_resolve("cycles,r1c4,BR_MISP_RETIRED,l1d-misses,task-clock", -1, true, &p);
	bool ok = err == 0 && p.nev == 5 && p.kernel;

	for (int e = 0; ok && e < p.nev; e++)
		ok = !p.ev[e].attr.exclude_kernel && !p.ev[e].attr.exclude_user && p.ev[e].attr.exclude_hv;
	tap_ok(ok, "--kernel: every kind counts user and kernel, never hv (err %d)", err);
	err = pmb_events_resolve("BR_MISP_RETIRED:k", -1, false, &p);
	tap_ok(err == 0 && !p.ev[0].attr.exclude_kernel && p.ev[0].attr.exclude_user,
	       "an explicit :k modifier wins over the default");
}

struct listed {
	int n, bad, found_event, found_umask, found_generic, found_alias, found_set;
	const char *pattern;
};

static void on_event(void *ctx, const char *pmu, const char *name, const char *desc)
{
	struct listed *l = ctx;

	l->n++;
	if (l->pattern && !strcasestr(name, l->pattern))
		l->bad++;
	if (!desc || !pmu)
		l->bad++;
	if (!strcmp(pmu, "skx") && !strcmp(name, "BR_MISP_RETIRED") && desc[0])
		l->found_event++;
	if (!strcmp(pmu, "skx") && !strcmp(name, "BR_MISP_RETIRED:ALL_BRANCHES"))
		l->found_umask++;
	if (!strcmp(pmu, "perf") && !strcmp(name, "branch-misses"))
		l->found_generic++;
	if (!strcmp(pmu, "alias") && !strcmp(name, "br-misp-retired") && contains(desc, "BR_MISP_RETIRED"))
		l->found_alias++;
	if (!strcmp(pmu, "set") && !strcmp(name, "@branch"))
		l->found_set++;
}

static void test_list(void)
{
	struct listed l;
	int n;

	memset(&l, 0, sizeof(l));
	l.pattern = "br_misp";
	n = pmb_events_list("br_misp", on_event, &l);
	tap_ok(n == l.n && n >= 2 && !l.bad, "list br_misp: %d events, all matching, with descriptions", n);
	tap_ok(l.found_event == 1 && l.found_umask == 1, "... BR_MISP_RETIRED and its umask :ALL_BRANCHES");

	memset(&l, 0, sizeof(l));
	n = pmb_events_list(NULL, on_event, &l);
	tap_ok(n == l.n && n > 100 && l.found_generic == 1 && l.found_alias == 1 && l.found_set == 1,
	       "list all: %d entries with generic names, aliases (with this PMU's event) and sets", n);

	memset(&l, 0, sizeof(l));
	n = pmb_events_list("no_such_event_anywhere", on_event, &l);
	tap_ok(n == 0 && l.n == 0, "list of a pattern matching nothing: 0");
}

/* A made-up hybrid machine: cpu_core owns cpus 0-1, cpu_atom cpus 2-3. */
static void test_hybrid(const char *tmp)
{
	static const struct {
		const char *dir, *cpus, *type;
	} pmu[] = { { "cpu_core", "0-1", "4" }, { "cpu_atom", "2-3,6", "10" } };
	char path[4200];
	struct pmb_event_plan p;
	int err;

	snprintf(path, sizeof(path), "%s/sys", tmp);
	mkdir(path, 0700);
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/%s", tmp, pmu[i].dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/sys/%s/cpus", tmp, pmu[i].dir);
		if ((f = fopen(path, "w")))
			fprintf(f, "%s\n", pmu[i].cpus), fclose(f);
		snprintf(path, sizeof(path), "%s/sys/%s/type", tmp, pmu[i].dir);
		if ((f = fopen(path, "w")))
			fprintf(f, "%s\n", pmu[i].type), fclose(f);
	}
	snprintf(path, sizeof(path), "%s/sys", tmp);
	pmb__events_set_sysfs_root(path);

	err = pmb_events_resolve("cycles,r1c4,task-clock,L1-dcache-load-misses", 1, false, &p);
	tap_ok(err == 0 && p.nev == 4, "hybrid cpu 1: resolves (err %d %s)", err, pmb_events_error());
	tap_ok(p.ev[0].attr.type == PERF_TYPE_HARDWARE && p.ev[0].attr.config == (4ull << 32 | 0),
	       "hybrid cpu 1: cycles carries cpu_core's type 4 in config[63:32] (%#llx)",
	       (unsigned long long)p.ev[0].attr.config);
	tap_ok(p.ev[0].anchor, "hybrid cycles is still an anchor");
	tap_ok(p.ev[1].attr.type == 4 && p.ev[1].attr.config == 0x1c4, "hybrid raw event: type is the PMU's");
	tap_ok(p.ev[2].attr.type == PERF_TYPE_SOFTWARE && p.ev[2].attr.config == 1,
	       "software events are not extended");
	tap_ok(p.ev[3].attr.config == (4ull << 32 | 0x10000), "hw-cache events are extended");

	err = pmb_events_resolve("cycles", 6, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.config == 10ull << 32 && !strcmp(p.pmu_name, "cpu_atom"),
	       "hybrid cpu 6: cpu_atom's type 10, pmu_name %s", p.pmu_name);
	err = pmb_events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.config == 4ull << 32 && !strcmp(p.pmu_name, "cpu_core"),
	       "hybrid, no cpu: cpu_core (%s)", p.pmu_name);

	pmb__events_set_sysfs_root(NULL);
}

static void remove_in(const char *dir, const char *rel)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	remove(path);
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	fputs(text, f);
	fclose(f);
	return 0;
}

static void bad_table(const char *tmp, const char *aliases, const char *sets, const char *where,
		      const char *what)
{
	int err;

	write_file(tmp, "aliases.txt", aliases);
	write_file(tmp, "sets.txt", sets);
	err = pmb_events_init(tmp);
	tap_ok(err == PMB_EBADTABLE && contains(pmb_events_error(), where),
	       "%s: PMB_EBADTABLE naming %s (%d: %s)", what, where, err, pmb_events_error());
}

static void test_tables(const char *tmp)
{
	static const char good_sets[] = "set s cycles\n";
	static const char good_aliases[] = "# ok\nmap foo skl CYCLE_ACTIVITY:STALLS_TOTAL\n";
	struct pmb_event_plan p;
	int err;

	bad_table(tmp, "# c\n\nmap l1d-misses skx\n", good_sets, "/aliases.txt:3:", "map with a field missing");
	bad_table(tmp, "frob x y z\n", good_sets, "/aliases.txt:1:", "unknown keyword");
	bad_table(tmp, "map cycles skx X\n", good_sets, "/aliases.txt:1:", "alias hiding a generic name");
	bad_table(tmp, "map a skx X\nmap a clx,skx Y\n", good_sets, "/aliases.txt:2:", "mapped twice");
	bad_table(tmp, good_aliases, "set a cycles\n\nderive ipc = instructions cycles\n",
		  "/sets.txt:3:", "derive without '/'");
	bad_table(tmp, good_aliases, "derive x = a / b * zero\n", "/sets.txt:1:", "derive with a bad scale");
	bad_table(tmp, good_aliases, "set a cycles\nset a instructions\n", "/sets.txt:2:", "set defined twice");
	bad_table(tmp, good_aliases, "set a cycles,@b\n", "/sets.txt:1:", "set using an unknown set");

	/* good tables in the temp dir: an alias with no row for skx, a set
	 * that nests itself, a per-item figure */
	write_file(tmp, "aliases.txt", good_aliases);
	write_file(tmp, "sets.txt", "set loop cycles,@loop\nset s cycles, instructions\n"
				    "derive cpi = cycles / instructions\nderive per_item = cycles / items * 2\n");
	err = pmb_events_init(tmp);
	tap_ok(err == 0 && !strcmp(pmb_events_dir(), tmp), "temp tables load (%d %s)", err, pmb_events_error());
	err = pmb_events_resolve("foo", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb_events_error(), "'foo'") &&
	       contains(pmb_events_error(), "skx"), "alias without a row for this PMU: %s", pmb_events_error());
	err = pmb_events_resolve("@loop", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb_events_error(), "@loop"), "a set including itself: %s",
	       pmb_events_error());
	err = pmb_events_resolve("@s", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2 && p.nder == 2 && has_derived(&p, "cpi", "cycles", "instructions", 1) &&
	       has_derived(&p, "per_item", "cycles", NULL, 2), "derive rules of the table, 'items' is -1");

	remove_in(tmp, "aliases.txt");
	err = pmb_events_init(tmp);
	tap_ok(err == PMB_ENOTABLE, "a folder without tables: PMB_ENOTABLE (%d)", err);
	remove_in(tmp, "sets.txt");
}

/* Every Intel/AMD row of aliases.txt encodes on its PMU with this libpfm. */
static const char *cur_pmu;

static int check_rows_of_pmu(void)
{
	char path[4200], line[1024];
	int checked = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/aliases.txt", events_dir);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char kw[16], name[64], pmus[512], ev[256], *save, *pmu;
		struct pmb_event_plan p;
		int err;

		if (sscanf(line, "%15s %63s %511s %255s", kw, name, pmus, ev) != 4 || strcmp(kw, "map"))
			continue;
		for (pmu = strtok_r(pmus, ",", &save); pmu; pmu = strtok_r(NULL, ",", &save)) {
			if (strcmp(pmu, cur_pmu))
				continue;
			err = pmb_events_resolve(name, -1, false, &p);
			if (strcmp(p.pmu_name, cur_pmu))
				break; /* adl_*, Arm: not in this build's libpfm */
			checked++;
			tap_ok(err == 0 && !strcmp(p.ev[0].pmu, cur_pmu) && p.ev[0].attr.config,
			       "alias %s encodes on %s as %s (%d %s)", name, cur_pmu,
			       p.ev[0].encoding, err, pmb_events_error());
		}
	}
	fclose(f);
	return checked;
}

static void test_alias_rows(void)
{
	static const char *const pmus[] = {
		"skl", "skx", "clx", "icl", "icx", "spr", "amd64_fam17h", "amd64_fam17h_zen1",
		"amd64_fam17h_zen2", "amd64_fam19h_zen3", "amd64_fam19h_zen4",
	};
	int checked = 0;

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		cur_pmu = pmus[i];
		checked += under_pmu(pmus[i], check_rows_of_pmu);
	}
	tap_ok(checked >= 80, "%d Intel and AMD alias rows checked against libpfm", checked);
}

static char tmp_dir[] = "/tmp/pmb_test_events.XXXXXX";

static int skx_suite(void)
{
	struct pmb_event_plan p;
	int err = pmb_events_resolve("cycles", -1, false, &p);

	tap_ok(err == 0 && !strcmp(p.pmu_name, "skx") && contains(p.pmu_desc, "Skylake") &&
	       p.pmu_counters >= 4 && p.pmu_fixed == 3,
	       "plan PMU: %s '%s', %d counters, %d fixed", p.pmu_name, p.pmu_desc, p.pmu_counters,
	       p.pmu_fixed);
	check_cases(generic_cases, sizeof(generic_cases) / sizeof(generic_cases[0]));
	check_cases(skx_cases, sizeof(skx_cases) / sizeof(skx_cases[0]));
	check_case(&generic_cases[0], true);
	check_case(&skx_cases[0], true);
	test_sets();
	test_errors();
	test_kernel();
	test_list();
	test_hybrid(tmp_dir);
	test_tables(tmp_dir);
	return 0;
}

static int zen1_suite(void)
{
	struct pmb_event_plan p;
	int err = pmb_events_resolve("cycles", -1, false, &p);

	tap_ok(err == 0 && !strcmp(p.pmu_name, "amd64_fam17h") && p.pmu_counters == 6 && p.pmu_fixed == 0,
	       "plan PMU: %s, %d counters, %d fixed", p.pmu_name, p.pmu_counters, p.pmu_fixed);
	check_cases(zen1_cases, sizeof(zen1_cases) / sizeof(zen1_cases[0]));
	check_cases(generic_cases, sizeof(generic_cases) / sizeof(generic_cases[0]));
	err = pmb_events_resolve("BR_MISP_RETIRED:ALL_BRANCHES", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "an Intel event is unknown on AMD: %s", pmb_events_error());
	err = pmb_events_resolve("@branch,@cache", -1, false, &p);
	tap_ok(err == 0 && p.nev == 7, "@branch,@cache resolve on Zen 1 (%d %s)", err, pmb_events_error());
	return 0;
}

int main(void)
{
	/* meson sets it to the source tree's events/ */
	setenv("PMUBENCH_EVENTS_DIR", PMB_EVENTS_SOURCE_DIR, 0);
	snprintf(events_dir, sizeof(events_dir), "%s", getenv("PMUBENCH_EVENTS_DIR"));
	if (!mkdtemp(tmp_dir))
		tap_skip_all("cannot make a temp folder");

	under_pmu("skx", skx_suite);
	under_pmu("amd64_fam17h", zen1_suite);
	test_alias_rows();

	remove_in(tmp_dir, "sys/cpu_core/cpus");
	remove_in(tmp_dir, "sys/cpu_core/type");
	remove_in(tmp_dir, "sys/cpu_atom/cpus");
	remove_in(tmp_dir, "sys/cpu_atom/type");
	remove_in(tmp_dir, "sys/cpu_core");
	remove_in(tmp_dir, "sys/cpu_atom");
	remove_in(tmp_dir, "sys");
	rmdir(tmp_dir);
	return tap_done();
}
