/* main.c - the command line: options, the path of one run, subcommands, exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "counters.h"
#include "events.h"
#include "plot.h"
#include "probe.h"
#include "registry.h"
#include "report.h"
#include "result.h"
#include "runner.h"
#include "selfcheck.h"
#include "sim.h"
#include "stats.h"
#include "topology.h"

enum format { FMT_CONSOLE, FMT_JSON, FMT_CSV };
enum backend { BK_AUTO, BK_PERF, BK_SIM };

struct options {
	const char *filter;
	int samples;
	bool samples_given;
	double min_sample_ns;
	int cpu;
	enum format format;
	const char *out;
	const char *plot;
	const char *counters;
	bool list, list_events, topology, self_check, kernel;
	const char *list_pattern;
	enum backend backend;
	bool hugepages;
	int repetitions;
	uint64_t seed;
	const char *topology_src; /* hidden, for tests: a synthetic topology */
	enum pmb_read_mode read;
};

#define DEFAULT_SAMPLES 30

static const char usage_text[] =
	"usage: pmubench [OPTION]...\n"
	"       pmubench compare [--threshold=PCT] OLD.json NEW.json\n"
	"Measure what small pieces of code cost per item: time, cycles,\n"
	"instructions, branch mispredictions, cache misses.\n"
	"\n"
	"  --filter=REGEX         run benchmarks whose name matches (POSIX ERE)\n"
	"  --list                 list benchmark names and exit\n"
	"  --samples=N            samples per benchmark (default " "30" ", fewer for\n"
	"                         slow benchmarks, never under 10)\n"
	"  --min-sample-time=T    shortest sample, e.g. 1ms, 500us (default 1ms,\n"
	"                         never under 1000 x the clock's resolution nor\n"
	"                         100 x the counter reads inside a sample)\n"
	"  --repetitions=N        call each benchmark N times (fresh setup)\n"
	"  --cpu=N                pin to core N (default: the core it started on)\n"
	"  --counters=LIST        events: generic perf names, libpfm4 names,\n"
	"                         rNNNN, aliases and @sets from the events tables\n"
	"                         (default " PMB_DEFAULT_COUNTERS ")\n"
	"  --kernel               count kernel mode too (default: user only)\n"
	"  --list-events[=PAT]    list this machine's events and exit\n"
	"  --backend=B            auto (default), perf, or sim (valgrind)\n"
	"  --read=R               how counters are read per sample: auto (default:\n"
	"                         from user space where the kernel allows, else\n"
	"                         read()), self (user space or fail), syscall\n"
	"  --hugepages=on|off     huge pages for sweep buffers (default on)\n"
	"  --seed=N               seed every input generator with N\n"
	"  --format=F             console (default), json, csv\n"
	"  --out=FILE             write the report to FILE (atomically)\n"
	"  --plot=FILE.svg        also draw sweeps and branch studies as SVG\n"
	"  --topology             print caches, NUMA node, PMU and exit\n"
	"  --self-check           check clock and counters with known answers\n"
	"  --help, --version\n";

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("pmubench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "1ms", "500us", "2s", "250000ns"; a bare number is seconds. */
static bool parse_duration(const char *s, double *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return false;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (strcmp(end, "ns"))
		return false;
	*ns = v;
	return true;
}

enum {
	OPT_FILTER = 256, OPT_LIST, OPT_SAMPLES, OPT_MINTIME, OPT_CPU, OPT_FORMAT,
	OPT_OUT, OPT_COUNTERS, OPT_LISTEV, OPT_KERNEL, OPT_BACKEND, OPT_HUGE,
	OPT_REPS, OPT_SEED, OPT_TOPO, OPT_SELFCHECK, OPT_HELP, OPT_VERSION,
	OPT_TOPOSRC, OPT_PLOT, OPT_READ,
};

static const struct option longopts[] = {
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "min-sample-time", required_argument, NULL, OPT_MINTIME },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "counters", required_argument, NULL, OPT_COUNTERS },
	{ "list-events", optional_argument, NULL, OPT_LISTEV },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "read", required_argument, NULL, OPT_READ },
	{ "hugepages", required_argument, NULL, OPT_HUGE },
	{ "repetitions", required_argument, NULL, OPT_REPS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "topology", no_argument, NULL, OPT_TOPO },
	{ "self-check", no_argument, NULL, OPT_SELFCHECK },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "topology-source", required_argument, NULL, OPT_TOPOSRC },
	{ 0, 0, 0, 0 },
};

/* Whether two paths name one file: the same device and inode where both
 * exist, else the same real folder and the same last name. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	const char *na, *nb;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	na = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
	nb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
	snprintf(da, sizeof(da), "%.*s", na == a ? 1 : (int)(na - a), na == a ? "." : a);
	snprintf(db, sizeof(db), "%.*s", nb == b ? 1 : (int)(nb - b), nb == b ? "." : b);
	if (!realpath(da, ra) || !realpath(db, rb))
		return !strcmp(a, b);
	return !strcmp(ra, rb) && !strcmp(na, nb);
}

/* Returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->samples = DEFAULT_SAMPLES;
	o->min_sample_ns = 1e6;
	o->cpu = -1;
	o->hugepages = true;
	o->repetitions = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		const char *a = optarg;

		switch (c) {
		case OPT_FILTER:
			o->filter = a;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_SAMPLES:
			if (!parse_int(a, 1, 1000000, &v))
				return bad("--samples=%s: expected a whole number from 1 to 1000000", a);
			o->samples = (int)v;
			o->samples_given = true;
			break;
		case OPT_MINTIME:
			if (!parse_duration(a, &o->min_sample_ns) || o->min_sample_ns > 10e9)
				return bad("--min-sample-time=%s: expected a positive duration up to 10s, such as 1ms, 500us, 2s", a);
			break;
		case OPT_CPU:
			if (!parse_int(a, 0, INT_MAX, &v))
				return bad("--cpu=%s: expected a core number from 0 to %ld", a,
					   sysconf(_SC_NPROCESSORS_ONLN) - 1);
			o->cpu = (int)v;
			break;
		case OPT_FORMAT:
			if (!strcmp(a, "console"))
				o->format = FMT_CONSOLE;
			else if (!strcmp(a, "json"))
				o->format = FMT_JSON;
			else if (!strcmp(a, "csv"))
				o->format = FMT_CSV;
			else
				return bad("--format=%s: expected console, json or csv", a);
			break;
		case OPT_OUT:
			if (!*a)
				return bad("--out=: expected a file name");
			o->out = a;
			break;
		case OPT_PLOT:
			if (!*a)
				return bad("--plot=: expected a file name");
			o->plot = a;
			break;
		case OPT_COUNTERS:
			if (!a[strspn(a, ", ")])
				return bad("--counters=%s: expected a comma-separated list of events "
					   "(see --list-events)", a);
			o->counters = a;
			break;
		case OPT_LISTEV:
			o->list_events = true;
			o->list_pattern = a;
			break;
		case OPT_KERNEL:
			o->kernel = true;
			break;
		case OPT_BACKEND:
			if (!strcmp(a, "auto"))
				o->backend = BK_AUTO;
			else if (!strcmp(a, "perf"))
				o->backend = BK_PERF;
			else if (!strcmp(a, "sim"))
				o->backend = BK_SIM;
			else
				return bad("--backend=%s: expected auto, perf or sim", a);
			break;
		case OPT_READ:
			if (!strcmp(a, "auto"))
				o->read = PMB_READ_AUTO;
			else if (!strcmp(a, "self"))
				o->read = PMB_READ_SELF;
			else if (!strcmp(a, "syscall"))
				o->read = PMB_READ_SYSCALL;
			else
				return bad("--read=%s: expected auto, self or syscall", a);
			break;
		case OPT_HUGE:
			if (!strcmp(a, "on"))
				o->hugepages = true;
			else if (!strcmp(a, "off"))
				o->hugepages = false;
			else
				return bad("--hugepages=%s: expected on or off", a);
			break;
		case OPT_REPS:
			if (!parse_int(a, 1, 1000, &v))
				return bad("--repetitions=%s: expected a whole number from 1 to 1000", a);
			o->repetitions = (int)v;
			break;
		case OPT_SEED: {
			char *end;

			errno = 0;
			o->seed = strtoull(a, &end, 0);
			if (errno || end == a || *end || *a == '-' || o->seed == 0)
				return bad("--seed=%s: expected a positive whole number", a);
			break;
		}
		case OPT_TOPO:
			o->topology = true;
			break;
		case OPT_SELFCHECK:
			o->self_check = true;
			break;
		case OPT_TOPOSRC:
			o->topology_src = a;
			break;
		case OPT_HELP:
			fputs(usage_text, stdout);
			return 0;
		case OPT_VERSION:
			printf("pmubench %s\n", PMB_VERSION_STRING);
			return 0;
		case ':':
			return bad("%s: expects a value (see --help)", argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return bad("unknown option '-%c' (see --help for the options)", optopt);
			if (optopt >= OPT_FILTER) {
				/* getopt says '?' both for a missing value and for a
				 * value given to an option that takes none. */
				const char *arg = argv[optind - 1];

				if (strchr(arg, '='))
					return bad("%s: %.*s takes no value (see --help)", arg,
						   (int)strcspn(arg, "="), arg);
				return bad("%s: expects a value (see --help)", arg);
			}
			return bad("unknown option '%s' (see --help for the options)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s' (options start with --; see --help)", argv[optind]);
	/* Reports are for benchmark runs; the other modes print text. */
	const char *mode = o->list ? "--list" : o->topology ? "--topology" :
			   o->self_check ? "--self-check" : o->list_events ? "--list-events" : NULL;
	if (mode && (o->out || o->plot || o->format != FMT_CONSOLE))
		return bad("%s prints text to standard output: --format, --out and --plot are for "
			   "benchmark runs", mode);
	int modes = o->list + o->topology + o->self_check + o->list_events;
	if (modes > 1)
		return bad("%s: choose one of --list, --list-events, --topology and --self-check", mode);
	if (o->out && o->plot && same_file(o->out, o->plot))
		return bad("--plot=%s: the same file as --out=%s; expected another file name", o->plot, o->out);
	if (o->plot) {
		size_t len = strlen(o->plot);

		if (len < 5 || strcmp(o->plot + len - 4, ".svg"))
			return bad("--plot=%s: expected a file name ending in .svg (the plot is SVG)", o->plot);
	}
	return -1;
}

/* Check --out before measuring anything: a report nobody can write is a
 * run wasted.  Creates and removes a probe file next to the target. */
static int check_out(const char *opt, const char *path)
{
	char probe[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return bad("%s=%s: is a directory; expected a file name", opt, path);
	snprintf(probe, sizeof(probe), "%s.pmubench-XXXXXX", path);
	fd = mkstemp(probe);
	if (fd < 0)
		return bad("%s=%s: cannot write there (%s); expected a writable file name",
			   opt, path, strerror(errno));
	close(fd);
	unlink(probe);
	return -1;
}

/* Write through a temporary file and rename: never a half-written report. */
typedef int (*writer_fn)(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);

/* Write through a temporary file and rename: never a half-written file.
 * path NULL: standard output.  opt names the option in messages.  Returns
 * 0, 1 on a write error, or the writer's -ENODATA (nothing written). */
static int write_atomic(const char *path, const char *opt, writer_fn fn,
			const struct pmb_context *ctx, const struct pmb_result *r, size_t n)
{
	char tmp[PATH_MAX];
	FILE *f = stdout;
	int fd = -1, err;

	if (path) {
		snprintf(tmp, sizeof(tmp), "%s.pmubench-XXXXXX", path);
		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			fprintf(stderr, "pmubench: %s=%s: %s\n", opt, path, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return 1;
		}
		fchmod(fd, 0644);
	}
	err = fn(f, ctx, r, n);
	if (!path)
		return fflush(stdout) || err ? 1 : 0;
	if (err == -ENODATA) {
		fclose(f);
		unlink(tmp);
		return err;
	}
	if (fflush(f) || fsync(fileno(f)) || ferror(f) || err) {
		fclose(f);
		unlink(tmp);
		fprintf(stderr, "pmubench: %s=%s: write failed\n", opt, path);
		return 1;
	}
	fclose(f);
	if (rename(tmp, path)) {
		unlink(tmp);
		fprintf(stderr, "pmubench: %s=%s: %s\n", opt, path, strerror(errno));
		return 1;
	}
	return 0;
}

static int write_report(const struct options *o, const struct pmb_context *ctx,
			const struct pmb_result *r, size_t n)
{
	writer_fn fn = o->format == FMT_JSON ? pmb_report_json :
		       o->format == FMT_CSV ? pmb_report_csv : pmb_report_text;
	int rc = write_atomic(o->out, "--out", fn, ctx, r, n);

	if (rc == 0 && o->plot) {
		int err = write_atomic(o->plot, "--plot", pmb_plot_svg, ctx, r, n);

		if (err == -ENODATA)
			fprintf(stderr, "pmubench: --plot=%s: nothing to plot: plots show working-set "
				"sweeps (PMB_TIERS) and branch studies; no file written\n", o->plot);
		else
			rc = err;
	}
	return rc;
}

/* Warnings go to stderr as soon as they are known (the no-PMU one before
 * the long run, not after it), each once. */
static void flush_warnings(const struct pmb_context *ctx, int *printed)
{
	for (; *printed < ctx->nwarnings; (*printed)++)
		fprintf(stderr, "pmubench: warning: %s\n", ctx->warnings[*printed]);
}

static void print_event(void *c, const char *pmu, const char *name, const char *desc)
{
	(void)c;
	printf("%s::%s\n    %s\n", pmu, name, desc && *desc ? desc : "");
}

static void progress(void *c, const char *name, size_t done, size_t total)
{
	(void)c;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name);
	if (done == total)
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

/* Open the plan's counters under the fallback policy of counters.c, and
 * keep what it found in the context: groups, reasons, warnings. */
static int open_counters(struct pmb_context *ctx, struct pmb_counters *c, bool sim_hint,
			 enum pmb_read_mode read)
{
	struct pmb_event_plan sw;
	struct pmb_counters_env env = { .paranoid = ctx->paranoid, .ghz = ctx->ghz, .sim_hint = sim_hint,
					.read = read };
	struct pmb_counters_outcome o;
	bool have_sw = pmb_events_resolve("task-clock,page-faults,context-switches", ctx->cpu,
					  ctx->plan.kernel, &sw) == 0;
	int err = pmb_counters_open_plan(c, &ctx->plan, have_sw ? &sw : NULL, &env, &o);

	for (int i = 0; i < o.nwarnings; i++)
		pmb_context_warn(ctx, "%s", o.warning[i]);
	snprintf(ctx->fallback, sizeof(ctx->fallback), "%s", o.fallback);
	memcpy(ctx->event_group, o.event_group, sizeof(ctx->event_group));
	memcpy(ctx->event_why, o.why, sizeof(ctx->event_why));
	ctx->ngroups = c->ngroups;
	ctx->pmu_ok = o.hw_counts;
	ctx->has_cycles = o.cycles;
	snprintf(ctx->read_path, sizeof(ctx->read_path), "%s", o.read_path);
	snprintf(ctx->read_why, sizeof(ctx->read_why), "%s", o.read_why);
	return o.read_err ? o.read_err : err;
}

/* The harness overhead is measured before and after the benchmarks;
 * interference only ever adds time, so the smaller of the two is what the
 * loop costs (and the larger spread is what it cannot resolve). */
static void merge_overhead(struct pmb_overhead *a, const struct pmb_overhead *b)
{
	a->ns_per_pass = fmin(a->ns_per_pass, b->ns_per_pass);
	a->ns_per_sample = fmin(a->ns_per_sample, b->ns_per_sample);
	a->ns_noise_per_pass = fmax(a->ns_noise_per_pass, b->ns_noise_per_pass);
	for (int e = 0; e < PMB_MAX_EVENTS; e++) {
		if (!b->ev_valid[e])
			continue;
		a->ev_per_pass[e] = fmin(a->ev_per_pass[e], b->ev_per_pass[e]);
		a->ev_per_sample[e] = fmin(a->ev_per_sample[e], b->ev_per_sample[e]);
		a->ev_noise_per_pass[e] = fmax(a->ev_noise_per_pass[e], b->ev_noise_per_pass[e]);
	}
	a->nsamples += b->nsamples;
}

static int print_topology(const struct pmb_context *ctx)
{
	const struct pmb_topology_info *t = &ctx->topo;
	char a[32];

	printf("core %d (of %d cores, %d processing units)\n", t->cpu, t->ncores, t->npus);
	for (int i = 0; i < t->ncaches; i++) {
		const struct pmb_cache *c = &t->cache[i];

		pmb_format_bytes(a, sizeof(a), c->size);
		char ways[24], share[40];

		if (c->assoc < 0)
			snprintf(ways, sizeof(ways), "fully associative");
		else if (c->assoc == 0)
			snprintf(ways, sizeof(ways), "ways unknown");
		else
			snprintf(ways, sizeof(ways), "%d-way", c->assoc);
		if (t->caches_assumed)
			snprintf(share, sizeof(share), "ASSUMED");
		else
			snprintf(share, sizeof(share), "shared by %d core%s", c->sharing_cores,
				 c->sharing_cores == 1 ? "" : "s");
		printf("  L%d%s  %9s  line %u B  %s  %s (PUs %s)\n", c->level, c->level == 1 ? "d" : " ", a,
		       c->line, ways, share, c->shared_with);
	}
	if (t->fallback[0])
		printf("  note: %s\n", t->fallback);
	pmb_format_bytes(a, sizeof(a), t->numa_memory);
	printf("NUMA node %d, %s\n", t->numa_node, t->numa_memory ? a : "memory unknown");
	printf("PMU %s (%s): hardware counters %s\n", ctx->plan.pmu_name[0] ? ctx->plan.pmu_name : "none",
	       ctx->plan.pmu_desc, ctx->pmu_ok ? "work" : "do NOT work here");
	for (int e = 0; e < ctx->plan.nev; e++)
		if (ctx->event_why[e][0] && (ctx->pmu_ok || ctx->plan.ev[e].kind != PMB_EV_HW))
			printf("  not counted: %s: %s\n", ctx->plan.ev[e].name, ctx->event_why[e]);
	printf("core frequency estimate: %.2f GHz (dependent add chain against the clock)\n", ctx->ghz);
	printf("clock: %s, resolution %.0f ns, %.1f ns per read\n", ctx->clock.source,
	       ctx->clock.resolution_ns, ctx->clock.read_cost_ns);
	return 0;
}

static int run_main(int argc, char **argv)
{
	struct options o;
	struct pmb_context *ctx = calloc(1, sizeof(*ctx));
	struct pmb_topology *topo = NULL;
	struct pmb_instance *inst = NULL;
	struct pmb_result *res = NULL;
	struct pmb_counters counters;
	struct pmb_meter meter;
	struct pmb_tier_point tiers[PMB_MAX_TIER_POINTS];
	size_t ntiers = 0, ninst = 0;
	regex_t re;
	bool have_re = false, sim_child = pmb_sim_active();
	double read_inside_ns = -1; /* counter reads inside a sample's timed window */
	int rc, err, warned = 0;

	memset(&counters, 0, sizeof(counters));
	memset(&meter, 0, sizeof(meter));
	if (!ctx)
		return bad("out of memory");
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		goto out;
	rc = 2;
	if (o.filter) {
		err = regcomp(&re, o.filter, REG_EXTENDED | REG_NOSUB);
		if (err) {
			char msg[128];

			regerror(err, &re, msg, sizeof(msg));
			bad("--filter=%s: not a valid regular expression (%s)", o.filter, msg);
			goto out;
		}
		have_re = true;
	}
	if (o.out && check_out("--out", o.out) >= 0)
		goto out;
	if (o.plot && check_out("--plot", o.plot) >= 0)
		goto out;
	err = pmb_topology_load(&topo, o.topology_src);
	if (err) {
		bad("cannot read the machine's topology: %s", pmb_strerror(err));
		goto out;
	}
	if (o.cpu < 0) {
		o.cpu = sched_getcpu();
		if (o.cpu < 0)
			o.cpu = 0;
	}
	if (!pmb_topology_cpu_valid(topo, o.cpu)) {
		bad("--cpu=%d: no such core here; expected one of 0-%ld that this process may use",
		    o.cpu, sysconf(_SC_NPROCESSORS_ONLN) - 1);
		goto out;
	}
	ctx->cpu = o.cpu;
	ctx->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ctx->topo_ok = pmb_topology_info(topo, o.cpu, &ctx->topo) == 0;
	if (ctx->topo_ok && pmb_topology_tiers(&ctx->topo, tiers, PMB_MAX_TIER_POINTS, &ntiers))
		ntiers = 0;
	if (sim_child && ntiers && ctx->topo.ncaches) {
		/* Under simulation every instruction of a benchmark's setup is
		 * simulated too: DRAM points far past the last level only cost
		 * minutes and show nothing 2x the last level does not. */
		uint64_t cap = 2 * ctx->topo.cache[ctx->topo.ncaches - 1].size;
		size_t k = 0;

		for (size_t i = 0; i < ntiers; i++)
			if (tiers[i].bytes <= cap || (k > 0 && strcmp(tiers[k - 1].tier, "DRAM") &&
						      !strcmp(tiers[i].tier, "DRAM")))
				tiers[k++] = tiers[i];
		ntiers = k;
	}
	if (o.list) {
		err = pmb_registry_expand(have_re ? &re : NULL, ntiers ? tiers : NULL, ntiers, &inst, &ninst);
		if (err) {
			bad("cannot list benchmarks: %s", pmb_strerror(err));
			goto out;
		}
		for (size_t i = 0; i < ninst; i++)
			printf("%s\n", inst[i].name);
		rc = 0;
		goto out;
	}
	if (o.backend == BK_SIM && !sim_child) {
		err = pmb_sim_exec(argc, argv, ctx->topo_ok ? &ctx->topo : NULL);
		if (err == PMB_ENOVALGRIND)
			bad("--backend=sim needs valgrind, which is not installed: apt-get install valgrind");
		else if (err < 0)
			bad("--backend=sim: %s", *pmb_sim_error() ? pmb_sim_error() : pmb_strerror(err));
		else if (err != 0 && *pmb_sim_error())
			fprintf(stderr, "pmubench: valgrind said: %s\n", pmb_sim_error());
		rc = err < 0 ? 2 : err;
		goto out;
	}
	ctx->backend = sim_child ? PMB_BACKEND_SIM : PMB_BACKEND_PERF;
	err = pmb_events_init(NULL);
	if (err) {
		bad("%s", *pmb_events_error() ? pmb_events_error() : pmb_strerror(err));
		goto out;
	}
	if (o.list_events) {
		rc = 0;
		if (pmb_events_list(o.list_pattern, print_event, NULL) == 0) {
			/* As grep: nothing found is status 1, not an error. */
			fprintf(stderr, "pmubench: no event of this machine matches '%s'\n",
				o.list_pattern ? o.list_pattern : "");
			rc = 1;
		}
		goto out;
	}
	err = pmb_registry_expand(have_re ? &re : NULL, ntiers ? tiers : NULL, ntiers, &inst, &ninst);
	if (err == PMB_ENOCACHE) {
		bad("the topology reports no data caches, so PMB_TIERS has no sizes; %s",
		    ctx->topo.fallback[0] ? ctx->topo.fallback : "filter out the sweep benchmarks");
		goto out;
	} else if (err) {
		bad("%s", pmb_strerror(err));
		goto out;
	}
	for (size_t i = 0; i < ninst && ctx->topo.caches_assumed; i++)
		if (inst[i].tier[0]) {
			pmb_context_warn(ctx, "%s: the tier labels and sweep boundaries rest on these "
					 "sizes, not the machine's", ctx->topo.fallback);
			break;
		}
	for (size_t i = 0; i < ninst; i++) {
		const struct pmb_benchmark_def *d = inst[i].def;

		if (d->reference && inst[i].reference < 0)
			pmb_context_warn(ctx, "%s names .reference = \"%s\", which is no benchmark here "
					 "(with the same arguments): it has no scaled column", inst[i].family,
					 d->reference);
		if (d->baseline && inst[i].baseline < 0)
			pmb_context_warn(ctx, "%s names .baseline = \"%s\", which is no benchmark here "
					 "(with the same arguments): it has no normalized column", inst[i].family,
					 d->baseline);
	}
	if (ninst == 0 && !o.self_check && !o.topology) {
		bad("--filter=%s matches no benchmark; see --list", o.filter ? o.filter : "");
		goto out;
	}
	if (sim_child) {
		err = pmb_sim_resolve(o.counters, &ctx->plan);
		if (err) {
			bad("%s", pmb_sim_error());
			goto out;
		}
	} else {
		bool sweep = false;

		for (size_t i = 0; i < ninst; i++)
			sweep |= inst[i].tier[0] != 0;
		/* A working-set sweep is about which level served the loads:
		 * by default it also counts the @cache set, where this PMU has
		 * it (a PMU the tables do not know keeps the plain default). */
		err = -1;
		if (!o.counters && sweep)
			err = pmb_events_resolve(PMB_DEFAULT_COUNTERS ",@cache", o.cpu, o.kernel, &ctx->plan);
		if (err)
			err = pmb_events_resolve(o.counters ? o.counters : PMB_DEFAULT_COUNTERS, o.cpu,
						 o.kernel, &ctx->plan);
		if (err) {
			bad("--counters: %s", *pmb_events_error() ? pmb_events_error() : pmb_strerror(err));
			goto out;
		}
	}
	err = pmb_topology_pin(topo, o.cpu);
	if (err)
		pmb_context_warn(ctx, "could not pin to core %d (%s): samples may migrate", o.cpu, pmb_strerror(err));
	pmb_probe_environment(ctx);
	if (sim_child) {
		pmb_sim_geometry(ctx->topo_ok ? &ctx->topo : NULL, ctx->sim_geometry, sizeof(ctx->sim_geometry));
		err = pmb_sim_meter(&meter, &ctx->plan);
		if (err) {
			bad("--backend=sim: %s", pmb_sim_error());
			goto out;
		}
		ctx->ngroups = meter.ngroups;
		for (int e = 0; e < ctx->plan.nev; e++)
			ctx->event_group[e] = 0;
		snprintf(ctx->fallback, sizeof(ctx->fallback),
			 "simulated by valgrind callgrind: time is not measured");
	} else {
		/* --read=self where some group cannot: nothing measured.  (No
		 * counters at all is no such case: nothing is read either way.) */
		if (open_counters(ctx, &counters, true, o.read) && o.read == PMB_READ_SELF &&
		    ctx->read_path[0] && strcmp(ctx->read_path, "self")) {
			bad("--read=self: the counters cannot be read from user space here: %s", ctx->read_why);
			goto out;
		}
		ctx->group_read_ns = pmb_probe_group_read(&counters, &read_inside_ns);
		pmb_runner_perf_meter(&meter, &counters);
	}
	flush_warnings(ctx, &warned);
	if (o.topology) {
		rc = print_topology(ctx);
		goto out;
	}
	ctx->min_sample_ns = o.min_sample_ns;
	/* Floors: the clock's resolution, and the counter reads that lie inside
	 * the timed window (from user space: tens to hundreds of ns; read()'s
	 * system calls lie outside it). */
	double clock_floor = 1000 * ctx->clock.resolution_ns, read_floor = 100 * read_inside_ns;
	if (!sim_child && ctx->min_sample_ns < fmax(clock_floor, read_floor)) {
		ctx->min_sample_ns = fmax(clock_floor, read_floor);
		if (clock_floor >= read_floor)
			pmb_context_warn(ctx, "--min-sample-time raised to %.0f us: a sample must last at least "
					 "1000 times the clock's resolution (%.0f ns)", ctx->min_sample_ns / 1e3,
					 ctx->clock.resolution_ns);
		else
			pmb_context_warn(ctx, "--min-sample-time raised to %.0f us: a sample must last at least "
					 "100 times what reading its counters inside it costs (%.0f ns from user "
					 "space)", ctx->min_sample_ns / 1e3, read_inside_ns);
	}
	if (sim_child && (o.kernel || o.min_sample_ns != 1e6))
		pmb_context_warn(ctx, "--kernel and --min-sample-time mean nothing under --backend=sim: "
				 "valgrind counts user-space instructions and does not time samples");
	if (o.samples_given && o.samples < 3)
		pmb_context_warn(ctx, "--samples=%d: with fewer than 3 samples there is no confidence "
				 "interval and no fit of a fixed cost; figures are single measurements",
				 o.samples);
	ctx->samples = o.samples;
	ctx->repetitions = o.repetitions;
	ctx->seed = o.seed;
	ctx->hugepages = o.hugepages;
	struct pmb_runner_opts ro = {
		.cpu = o.cpu,
		.min_sample_ns = ctx->min_sample_ns,
		.samples = o.samples,
		.samples_given = o.samples_given,
		.warmup_ns = 20e6,
		.budget_ns = 250e6,
		.repetitions = o.repetitions,
		.seed = o.seed,
		.hugepages = o.hugepages,
		.topo = topo,
		.progress = isatty(2) ? progress : NULL,
	};
	err = pmb_runner_overhead(&ro, &meter, ctx);
	if (err) {
		bad("measuring the harness overhead failed: %s", pmb_strerror(err));
		goto out;
	}
	ro.overhead_passes = ctx->overhead.passes;
	if (o.self_check) {
		rc = pmb_selfcheck_run(ctx, &ro, &meter, stdout);
		flush_warnings(ctx, &warned);
		goto out;
	}
	res = calloc(ninst * (size_t)o.repetitions, sizeof(*res));
	if (!res) {
		bad("out of memory");
		goto out;
	}
	err = pmb_runner_run(&ro, &meter, inst, ninst, res);
	if (err) {
		bad("running the benchmarks failed: %s", pmb_strerror(err));
		goto out;
	}
	if (!meter.deterministic) {
		struct pmb_overhead first = ctx->overhead;

		if (pmb_runner_overhead(&ro, &meter, ctx) == 0)
			merge_overhead(&ctx->overhead, &first);
		else
			ctx->overhead = first;
	}
	pmb_analyze(ctx, res, ninst * (size_t)o.repetitions, (size_t)o.repetitions);
	flush_warnings(ctx, &warned);
	rc = write_report(&o, ctx, res, ninst * (size_t)o.repetitions);
	for (size_t i = 0; i < ninst * (size_t)o.repetitions; i++)
		if (res[i].status == PMB_EVERIFY) {
			fprintf(stderr, "pmubench: %s failed: %s\n", res[i].inst->name, res[i].reason);
			rc = 1;
		}
out:
	if (res)
		for (size_t i = 0; i < ninst * (size_t)o.repetitions; i++)
			free(res[i].samples);
	free(res);
	free(inst);
	if (have_re)
		regfree(&re);
	if (sim_child && meter.ctx)
		pmb_sim_meter_close(&meter);
	pmb_counters_close(&counters);
	pmb_topology_free(topo);
	pmb_events_fini();
	pmb_context_free(ctx);
	free(ctx);
	return rc;
}

PMB_API int pmb_main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "compare"))
		return pmb_compare_main(argc - 1, argv + 1);
	return run_main(argc, argv);
}
