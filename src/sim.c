/* sim.c - the valgrind/callgrind backend: re-exec under callgrind, one dump per sample. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmb_config.h"
#include "pmubench.h"
#include "sim.h"

#if PMB_HAVE_VALGRIND_H
#include <valgrind/callgrind.h>
#endif

/* The environment variable naming the dump folder: set by the parent, read
 * by the child. */
#define SIM_DIR_ENV "PMB_SIM_DIR"
#define SIM_DUMP "cg.out"
#define SIM_LOG "valgrind.log"

static char sim_err[512];

const char *pmb_sim_error(void)
{
	return sim_err;
}

static void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sim_err, sizeof(sim_err), fmt, ap);
	va_end(ap);
}

/* ---- callgrind columns and the names they answer to --------------------- */

/* The columns of `callgrind --cache-sim=yes --branch-sim=yes`, in the order
 * it writes them; bit i of sim_mask is column i. */
enum sim_col {
	COL_IR, COL_DR, COL_DW, COL_I1MR, COL_D1MR, COL_D1MW, COL_ILMR,
	COL_DLMR, COL_DLMW, COL_BC, COL_BCM, COL_BI, COL_BIM, NCOL
};

static const char *const col_name[NCOL] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
	"DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

#define M(c) (1u << COL_##c)

/* One quantity the simulator gives.  The cache names follow
 * events/aliases.txt, where l1d-misses and llc-misses count loads only, so
 * that a figure means the same with either backend.  means: what the
 * hardware event of the same meaning counts (events.h), for the quantities
 * that are one: instructions executed, every branch (conditional and
 * indirect; callgrind has no cycles), every mispredicted one.  Parts of
 * them (cond-branches) are PMB_MEANS_OTHER, as a PMU's own
 * BR_INST_RETIRED:CONDITIONAL is. */
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
} quantity[NQ] = {
	[Q_INSTRUCTIONS] = { "instructions", M(IR), PMB_MEANS_INSTRUCTIONS },
	[Q_LOADS] = { "loads", M(DR) },
	[Q_STORES] = { "stores", M(DW) },
	[Q_BRANCHES] = { "branches", M(BC) | M(BI), PMB_MEANS_BRANCHES },
	[Q_BRANCH_MISSES] = { "branch-misses", M(BCM) | M(BIM), PMB_MEANS_BRANCH_MISSES },
	[Q_COND] = { "cond-branches", M(BC) },
	[Q_COND_MISSES] = { "cond-branch-misses", M(BCM) },
	[Q_IND] = { "indirect-branches", M(BI) },
	[Q_IND_MISSES] = { "indirect-branch-misses", M(BIM) },
	[Q_L1D_MISSES] = { "l1d-misses", M(D1MR) },
	[Q_L1D_WMISSES] = { "l1d-write-misses", M(D1MW) },
	[Q_LLC_MISSES] = { "llc-misses", M(DLMR) },
	[Q_LLC_WMISSES] = { "llc-write-misses", M(DLMW) },
	[Q_L1I_MISSES] = { "l1i-misses", M(I1MR) },
	/* perf's generic cache-misses: every last-level miss. */
	[Q_CACHE_MISSES] = { "cache-misses", M(DLMR) | M(DLMW) | M(ILMR) },
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

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const char *name)
{
	for (int q = 0; q < NQ; q++)
		if (!strcasecmp(name, quantity[q].name))
			return q;
	for (size_t i = 0; i < ARRAY_LEN(alias); i++)
		if (!strcasecmp(name, alias[i].name))
			return (int)alias[i].q;
	return -1;
}

static void encode(unsigned mask, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "callgrind ");

	for (int c = 0; c < NCOL && len < n; c++)
		if (mask & (1u << c))
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						buf[len - 1] == ' ' ? "" : "+",
						col_name[c]);
}

static void err_nosim(const char *name)
{
	size_t len;

	set_err("event '%s' cannot be simulated; the sim backend gives:", name);
	len = strlen(sim_err);
	for (int q = 0; q < NQ && len < sizeof(sim_err); q++)
		len += (size_t)snprintf(sim_err + len, sizeof(sim_err) - len,
					"%s %s", q ? "," : "", quantity[q].name);
	for (size_t i = 0; i < ARRAY_LEN(sets) && len < sizeof(sim_err); i++)
		len += (size_t)snprintf(sim_err + len, sizeof(sim_err) - len,
					", @%s", sets[i].name);
}

/* Add the names of list (sets expanded, depth-limited against a set that
 * names itself) to plan; quant[e] is the quantity of plan event e. */
static int add_list(const char *list, struct pmb_event_plan *plan, int *quant,
		    int depth)
{
	const char *p = list;

	while (*p) {
		char name[64];
		size_t len = strcspn(p, ",");
		const char *s = p, *end = p + len;
		int q, e;

		p = *end ? end + 1 : end;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end - s >= (ptrdiff_t)sizeof(name)) {
			set_err("event name '%.40s...' is too long", s);
			return PMB_ENOSIM;
		}
		memcpy(name, s, (size_t)(end - s));
		name[end - s] = '\0';
		if (!name[0])
			continue;

		if (name[0] == '@') {
			size_t i;

			for (i = 0; i < ARRAY_LEN(sets); i++)
				if (!strcasecmp(name + 1, sets[i].name))
					break;
			if (i == ARRAY_LEN(sets) || depth > 2) {
				err_nosim(name);
				return PMB_ENOSIM;
			}
			int rc = add_list(sets[i].list, plan, quant, depth + 1);

			if (rc)
				return rc;
			continue;
		}

		q = lookup(name);
		if (q < 0) {
			err_nosim(name);
			return PMB_ENOSIM;
		}
		for (e = 0; e < plan->nev; e++)
			if (quant[e] == q)
				break;
		if (e < plan->nev)
			continue; /* asked twice, by two names or a set */
		if (plan->nev == PMB_MAX_EVENTS) {
			set_err("more than %d events", PMB_MAX_EVENTS);
			return -E2BIG;
		}

		struct pmb_event *ev = &plan->ev[plan->nev];

		memset(ev, 0, sizeof(*ev));
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		encode(quantity[q].mask, ev->encoding, sizeof(ev->encoding));
		snprintf(ev->pmu, sizeof(ev->pmu), "callgrind");
		ev->kind = PMB_EV_SIM;
		ev->anchor = q == Q_INSTRUCTIONS;
		ev->means = quantity[q].means;
		ev->sim_mask = quantity[q].mask;
		quant[plan->nev++] = q;
	}
	return 0;
}

int pmb_sim_resolve(const char *list, struct pmb_event_plan *plan)
{
	int quant[PMB_MAX_EVENTS];
	int rc;

	sim_err[0] = '\0';
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->pmu_name, sizeof(plan->pmu_name), "callgrind");
	snprintf(plan->pmu_desc, sizeof(plan->pmu_desc),
		 "valgrind callgrind: cache and branch-predictor simulation");
	if (!list || !list[strspn(list, " \t,")])
		list = "@default";
	rc = add_list(list, plan, quant, 0);
	if (rc)
		return rc;

	for (size_t i = 0; i < ARRAY_LEN(derive) &&
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

/* ---- cache geometry ----------------------------------------------------- */

/* A geometry valgrind accepts: line a power of two >= 16, and a power-of-two
 * number of sets.  Sizes that are not (24.75 MiB 11-way L3s) keep their
 * line and ways and round the sets down. */
struct sim_geom {
	uint64_t size, asked;
	unsigned line, assoc;
};

static void geom_fix(const struct pmb_cache *c, unsigned dflt_assoc,
		     struct sim_geom *g)
{
	uint64_t sets, ways;

	g->asked = c->size;
	g->line = c->line >= 16 && !(c->line & (c->line - 1)) ? c->line : 64;
	if (c->assoc > 0)
		ways = (uint64_t)c->assoc;
	else if (c->assoc < 0) /* fully associative: one set */
		ways = c->size / g->line ? c->size / g->line : 1;
	else
		ways = dflt_assoc;
	sets = c->size / (ways * g->line);
	if (sets == 0) { /* fewer lines than ways: one set of what there is */
		sets = 1;
		ways = c->size / g->line ? c->size / g->line : 1;
	}
	while (sets & (sets - 1))
		sets &= sets - 1; /* round down to a power of two */
	g->assoc = (unsigned)ways;
	g->size = sets * ways * g->line;
}

/* The L1d and last-level geometries of info; false when info has no caches
 * (valgrind then keeps its own defaults). */
static bool geom_get(const struct pmb_topology_info *info, struct sim_geom *l1,
		     struct sim_geom *ll)
{
	if (!info || info->ncaches < 1 || info->cache[0].size == 0)
		return false;
	geom_fix(&info->cache[0], 8, l1);
	if (info->ncaches > 1 && info->cache[info->ncaches - 1].size)
		geom_fix(&info->cache[info->ncaches - 1], 16, ll);
	else
		*ll = *l1; /* one level known: valgrind still needs an LL */
	return true;
}

static int fmt_size(char *buf, size_t n, uint64_t b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	/* %.4g: 24.75 MiB and 32 KiB, without trailing zeros */
	return snprintf(buf, n, "%.4g %s", v, unit[u]);
}

static size_t fmt_geom(char *buf, size_t n, const char *label,
		       const struct sim_geom *g)
{
	char sz[32], asked[32];
	int len;

	fmt_size(sz, sizeof(sz), g->size);
	len = snprintf(buf, n, "%s %s %u-way %u B", label, sz, g->assoc, g->line);
	if (len >= 0 && (size_t)len < n && g->size != g->asked) {
		fmt_size(asked, sizeof(asked), g->asked);
		len += snprintf(buf + len, n - (size_t)len, " (rounded from %s)",
				asked);
	}
	return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

void pmb_sim_geometry(const struct pmb_topology_info *info, char *buf, size_t n)
{
	struct sim_geom l1, ll;
	size_t len;

	if (!n)
		return;
	if (!geom_get(info, &l1, &ll)) {
		snprintf(buf, n, "valgrind's default caches (topology unknown)");
		return;
	}
	len = fmt_geom(buf, n, "L1d", &l1);
	len += (size_t)snprintf(buf + len, n - len, "; ");
	if (len < n)
		len += fmt_geom(buf + len, n - len, "LL", &ll);
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, "; I1 as L1d");
	if (len < n && info->ncaches > 2)
		snprintf(buf + len, n - len,
			 "; valgrind simulates 2 levels: %s not simulated",
			 info->ncaches > 3 ? "L2, L3 are" : "L2 is");
	else if (len < n && info->ncaches == 1)
		snprintf(buf + len, n - len, "; no LL reported: LL as L1d");
}

/* ---- parent side: re-run under callgrind -------------------------------- */

static int find_in_path(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char dflt[256];

	if (!path) {
		if (!confstr(_CS_PATH, dflt, sizeof(dflt)))
			return -ENOENT;
		path = dflt;
	}
	while (*path) {
		size_t len = strcspn(path, ":");

		/* An empty PATH entry means the current folder. */
		if ((size_t)snprintf(out, n, "%.*s%s%s", (int)len, path,
				     len ? "/" : "./", prog) < n &&
		    access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX];

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			    (size_t)snprintf(p, sizeof(p), "%s/%s", dir,
					     de->d_name) < sizeof(p))
				unlink(p);
		closedir(d);
	}
	rmdir(dir);
}

/* valgrind's own messages, less the note it gives on every machine whose
 * LL it detects (we pass --LL anyway), into the error detail. */
static void keep_log(const char *dir)
{
	char p[PATH_MAX + 32], line[512];
	size_t len = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, SIM_LOG);
	f = fopen(p, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strstr(line, "cache found, using its data for the LL") &&
		    len < sizeof(sim_err))
			len += (size_t)snprintf(sim_err + len,
						sizeof(sim_err) - len, "%s", line);
	fclose(f);
}

int pmb_sim_exec(int argc, char **argv, const struct pmb_topology_info *info)
{
	char vg[PATH_MAX], exe[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 32];
	char log[PATH_MAX + 32], geom[3][64];
	const char *tmp = getenv("TMPDIR");
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct sim_geom l1, ll;
	char **args;
	int na = 0, status, rc;
	ssize_t len;
	pid_t pid;

	sim_err[0] = '\0';
	if (!PMB_HAVE_VALGRIND_H) {
		set_err("pmubench was built without <valgrind/callgrind.h>");
		return PMB_ENOVALGRIND;
	}
	if (find_in_path("valgrind", vg, sizeof(vg))) {
		set_err("valgrind not found in PATH");
		return PMB_ENOVALGRIND;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -errno;
	exe[len] = '\0';

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/pmubench-sim-XXXXXX", tmp) >=
	    sizeof(dir))
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/%s", dir, SIM_DUMP);
	snprintf(log, sizeof(log), "--log-file=%s/%s", dir, SIM_LOG);

	args = calloc((size_t)argc + 16, sizeof(*args));
	if (!args) {
		rc = -ENOMEM;
		goto fail_args;
	}
	args[na++] = vg;
	args[na++] = "--tool=callgrind";
	args[na++] = "--branch-sim=yes";
	args[na++] = "--cache-sim=yes";
	args[na++] = "--collect-atstart=no";
	/* Nothing is simulated until the meter starts (pmb_sim_meter): the
	 * timing probes before it, whose loop counts depend on the clock,
	 * leave no trace in the simulated caches and predictor, and run
	 * faster. */
	args[na++] = "--instr-atstart=no";
	args[na++] = out;
	if (geom_get(info, &l1, &ll)) {
		snprintf(geom[0], sizeof(geom[0]), "--D1=%llu,%u,%u",
			 (unsigned long long)l1.size, l1.assoc, l1.line);
		snprintf(geom[1], sizeof(geom[1]), "--I1=%llu,%u,%u",
			 (unsigned long long)l1.size, l1.assoc, l1.line);
		snprintf(geom[2], sizeof(geom[2]), "--LL=%llu,%u,%u",
			 (unsigned long long)ll.size, ll.assoc, ll.line);
		for (int i = 0; i < 3; i++)
			args[na++] = geom[i];
	}
	args[na++] = "-q";
	args[na++] = log;
	args[na++] = exe;
	for (int i = 1; i < argc; i++)
		args[na++] = argv[i];
	args[na] = NULL;

	/* Like system(): a ^C goes to the child, and we live to clean up. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	/* The caller's buffered output goes before the child's. */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		setenv(SIM_DIR_ENV, dir, 1);
		/* hwloc's x86 (cpuid) backend cannot work under valgrind and
		 * says so on stderr; sysfs gives the same caches. */
		setenv("HWLOC_COMPONENTS", "-x86", 0);
		/* Same addresses in every run, so the same cache sets and
		 * predictor entries: two runs give the same counts. */
		personality((unsigned long)personality(0xffffffff) |
			    ADDR_NO_RANDOMIZE);
		execv(vg, args);
		_exit(127);
	}
	if (pid < 0) {
		rc = -errno;
		goto fail_fork;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			goto fail_fork;
		}
	}
	if (WIFEXITED(status))
		rc = WEXITSTATUS(status);
	else
		rc = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	keep_log(dir);
fail_fork:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	free(args);
fail_args:
	remove_dir(dir);
	return rc;
}

/* ---- child side: the meter ---------------------------------------------- */

bool pmb_sim_active(void)
{
#if PMB_HAVE_VALGRIND_H
	/* Only the run pmb_sim_exec started: under another tool, or started
	 * by hand, there are no dumps to read. */
	return RUNNING_ON_VALGRIND && getenv(SIM_DIR_ENV);
#else
	return false;
#endif
}

/* What the meter holds: the dump folder, a buffer the dumps are read into
 * (allocated once, so that reading a dump between samples touches the same
 * few simulated cache lines every time), and the columns of each event. */
#define DUMP_BUF (64 << 10)

struct sim_meter {
	char dir[PATH_MAX];
	int nev;
	unsigned mask[PMB_MAX_EVENTS];
	char buf[DUMP_BUF];
};

/* callgrind numbers its dumps 1, 2, ... per process. */
static unsigned long sim_dumps;

/* Number of the newest dump "cg.out.N" in dir (0: none), for when the
 * count above was thrown off by a dump we did not ask for. */
static unsigned long newest_dump(const char *dir)
{
	static const char pfx[] = SIM_DUMP ".";
	unsigned long best = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long k;

		if (strncmp(de->d_name, pfx, sizeof(pfx) - 1))
			continue;
		k = strtoul(de->d_name + sizeof(pfx) - 1, &end, 10);
		if (!*end && k > best)
			best = k;
	}
	closedir(d);
	return best;
}

static int read_file(const char *path, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return 0;
}

/* The whole-dump cost of each column: the "summary:" line of the header
 * (or, if absent, the "totals:" line at the end), laid out by the
 * "events:" line.  Columns a line leaves off at its end are zero.  buf
 * holds the dump's start and is cut into lines. */
static int parse_dump(char *buf, uint64_t *val, unsigned *have)
{
	int pos[NCOL + 8], ncols = 0;
	bool summary = false, totals = false;
	uint64_t tot[NCOL] = { 0 };
	char *line, *save;

	*have = 0;
	memset(val, 0, NCOL * sizeof(*val));
	for (line = strtok_r(buf, "\n", &save); line && !summary;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p;
		uint64_t *dst;

		if (!strncmp(line, "events:", 7)) {
			ncols = 0;
			for (p = line + 7; *p && ncols < (int)ARRAY_LEN(pos);) {
				size_t len;

				p += strspn(p, " \t");
				len = strcspn(p, " \t");
				if (!len)
					break;
				pos[ncols] = -1;
				for (int c = 0; c < NCOL; c++)
					if (strlen(col_name[c]) == len &&
					    !strncmp(p, col_name[c], len))
						pos[ncols] = c;
				if (pos[ncols] >= 0)
					*have |= 1u << pos[ncols];
				ncols++;
				p += len;
			}
			continue;
		}
		if (!strncmp(line, "summary:", 8)) {
			p = line + 8;
			dst = val;
			summary = true;
		} else if (!strncmp(line, "totals:", 7)) {
			p = line + 7;
			dst = tot;
			totals = true;
		} else {
			continue;
		}
		for (int i = 0; i < ncols; i++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (pos[i] >= 0)
				dst[pos[i]] = v;
			p = end;
		}
	}
	if (!summary && totals)
		memcpy(val, tot, sizeof(tot));
	if (!ncols || (!summary && !totals))
		return -EPROTO;
	return 0;
}

static int sim_start(void *ctx, int group)
{
	(void)ctx;
	(void)group;
#if PMB_HAVE_VALGRIND_H
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
#endif
	return 0;
}

static int sim_stop(void *ctx, int group, struct pmb_sample *s)
{
	struct sim_meter *sm = ctx;
	char path[PATH_MAX + 32];
	uint64_t val[NCOL];
	unsigned have = 0;
	int rc;

	(void)group;
#if PMB_HAVE_VALGRIND_H
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("pmb-sample");
#endif
	sim_dumps++;
	snprintf(path, sizeof(path), "%s/%s.%lu", sm->dir, SIM_DUMP, sim_dumps);
	rc = read_file(path, sm->buf, sizeof(sm->buf));
	if (rc == -ENOENT) {
		sim_dumps = newest_dump(sm->dir);
		snprintf(path, sizeof(path), "%s/%s.%lu", sm->dir, SIM_DUMP,
			 sim_dumps);
		rc = sim_dumps ? read_file(path, sm->buf, sizeof(sm->buf))
			       : -ENOENT;
	}
	if (rc) {
		set_err("callgrind wrote no readable dump in %s: %s", sm->dir,
			pmb_strerror(rc));
		return rc;
	}
	unlink(path);
	rc = parse_dump(sm->buf, val, &have);
	if (rc) {
		set_err("cannot read callgrind dump %s: no events/summary lines",
			path);
		return rc;
	}
	for (int e = 0; e < sm->nev; e++) {
		uint64_t v = 0;

		if ((sm->mask[e] & have) != sm->mask[e]) {
			set_err("callgrind dump %s lacks columns of event %d",
				path, e);
			return -EPROTO;
		}
		for (int c = 0; c < NCOL; c++)
			if (sm->mask[e] & (1u << c))
				v += val[c];
		/* Simulated counts are exact: enabled == running. */
		s->count[e].value = v;
		s->count[e].enabled = 1;
		s->count[e].running = 1;
		s->mask |= 1u << e;
	}
	return 0;
}

int pmb_sim_meter(struct pmb_meter *m, const struct pmb_event_plan *plan)
{
	const char *dir = getenv(SIM_DIR_ENV);
	struct sim_meter *sm;

	memset(m, 0, sizeof(*m));
	if (!pmb_sim_active() || !dir) {
		set_err("not running under pmubench's callgrind (--backend=sim)");
		return PMB_ENOVALGRIND;
	}
	for (int e = 0; e < plan->nev; e++) {
		if (plan->ev[e].kind != PMB_EV_SIM || !plan->ev[e].sim_mask) {
			err_nosim(plan->ev[e].name);
			return PMB_ENOSIM;
		}
	}
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	if ((size_t)snprintf(sm->dir, sizeof(sm->dir), "%s", dir) >=
	    sizeof(sm->dir)) {
		free(sm);
		return -ENAMETOOLONG;
	}
	sm->nev = plan->nev;
	for (int e = 0; e < plan->nev; e++)
		sm->mask[e] = plan->ev[e].sim_mask;
#if PMB_HAVE_VALGRIND_H
	/* From here on every instruction is simulated (collected or not), so
	 * caches and predictor stay warm between samples.  It also empties
	 * the simulated caches, once. */
	CALLGRIND_START_INSTRUMENTATION;
#endif
	m->ctx = sm;
	m->ngroups = 1;
	m->start = sim_start;
	m->stop = sim_stop;
	m->deterministic = true;
	return 0;
}

void pmb_sim_meter_close(struct pmb_meter *m)
{
	if (!m)
		return;
	free(m->ctx);
	m->ctx = NULL;
}
