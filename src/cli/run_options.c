/* run_options.c - the command line of a run: the option table and the checks across options, for pmubench and pmb_run(argc, argv) alike (the defaults are run/api.c's). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"
#include "plan.h" /* PMB_DEFAULT_COUNTERS */
#include "run_cli.h"

static const struct pmb_optchoice formats[] = {
	{ "console", PMB_FORMAT_CONSOLE }, { "json", PMB_FORMAT_JSON }, { "csv", PMB_FORMAT_CSV }, { 0 },
};
static const struct pmb_optchoice backends[] = {
	{ "auto", PMB_WANT_AUTO }, { "perf", PMB_WANT_PERF }, { "sim", PMB_WANT_SIM }, { 0 },
};
static const struct pmb_optchoice read_modes[] = {
	{ "auto", PMB_READ_AUTO }, { "self", PMB_READ_SELF }, { "syscall", PMB_READ_SYSCALL }, { 0 },
};
static const struct pmb_optchoice on_off[] = { { "on", 1 }, { "off", 0 }, { 0 } };
static const struct pmb_optchoice sweeps[] = {
	{ "short", PMB_SWEEP_SHORT }, { "full", PMB_SWEEP_FULL }, { 0 },
};

#define AT(member) PMB_OPT_AT(struct pmb_options, member)

/* Every option of a run, in --help's order; man/pmubench.1 documents each
 * (tests/test_cli.py checks both against this table). */
static const struct pmb_optdef options[] = {
	{ .name = "--filter", .kind = PMB_OPT_STRING, .value = AT(filter), .meta = "=REGEX",
	  .help = "run benchmarks whose name matches (POSIX ERE)" },
	{ .name = "--list", .kind = PMB_OPT_FLAG, .given = AT(list),
	  .help = "list benchmark names and exit" },
	{ .name = "--load", .kind = PMB_OPT_FILES, .value = AT(load), .meta = "=FILE.so",
	  .help = "run the benchmarks of this shared object (built\nwith -shared -fPIC) instead of the built-in\nones; "
		  "may be given several times" },
	{ .name = "--samples", .kind = PMB_OPT_INT, .value = AT(samples), .given = AT(samples_given),
	  .lo = 1, .hi = 1000000, .meta = "=N",
	  .help = "take exactly N samples per benchmark (default:\nuntil --precision or the budget, never "
		  "under 10)" },
	{ .name = "--precision", .kind = PMB_OPT_PERCENT, .value = AT(precision), .meta = "=PCT",
	  .help = "stop sampling a benchmark once its median's\ninterval is within +-PCT percent (default 1;\n"
		  "0: sample to the budget)" },
	{ .name = "--min-sample-time", .kind = PMB_OPT_DURATION, .value = AT(min_sample_ns), .hi = 10,
	  .meta = "=T", .help = "shortest sample, e.g. 1ms, 500us (default 250us,\nnever under 1000 x the "
				"clock's resolution nor\n100 x the counter reads inside a sample)" },
	{ .name = "--repetitions", .kind = PMB_OPT_INT, .value = AT(repetitions), .lo = 1, .hi = 1000,
	  .meta = "=N", .help = "call each benchmark N times (fresh setup)" },
	{ .name = "--cpu", .kind = PMB_OPT_CORE, .value = AT(cpu), .meta = "=N",
	  .help = "pin to core N (default: the core it started on)" },
	{ .name = "--counters", .kind = PMB_OPT_LIST, .value = AT(counters), .meta = "=LIST",
	  .expect = "expected a comma-separated list of events (see --list-events)",
	  .help = "events: generic perf names, libpfm4 names,\nrNNNN, aliases and @sets from the events "
		  "tables\n(default " PMB_DEFAULT_COUNTERS ")" },
	{ .name = "--kernel", .kind = PMB_OPT_FLAG, .given = AT(kernel),
	  .help = "count kernel mode too (default: user only)" },
	{ .name = "--list-events", .kind = PMB_OPT_STRING, .optional = 1, .value = AT(list_pattern),
	  .given = AT(list_events), .meta = "[=PAT]", .help = "list this machine's events and exit" },
	{ .name = "--backend", .kind = PMB_OPT_CHOICE, .value = AT(backend), .choices = backends,
	  .meta = "=B", .help = "auto (default), perf, or sim (valgrind)" },
	{ .name = "--read", .kind = PMB_OPT_CHOICE, .value = AT(read), .choices = read_modes, .meta = "=R",
	  .help = "how counters are read per sample: auto (default:\nfrom user space where the kernel "
		  "allows, else\nread()), self (user space or fail), syscall" },
	{ .name = "--hugepages", .kind = PMB_OPT_CHOICE, .value = AT(hugepages), .choices = on_off,
	  .meta = "=on|off", .help = "huge pages for sweep buffers (default on)" },
	{ .name = "--sweep", .kind = PMB_OPT_CHOICE, .value = AT(sweep), .choices = sweeps,
	  .meta = "=short|full", .help = "working sets of the sweeps: two per cache tier\nand two in DRAM "
					"(short, default), or every\npoint, DRAM up to 8 x the last level (full)" },
	{ .name = "--seed", .kind = PMB_OPT_SEED, .value = AT(seed), .meta = "=N",
	  .help = "seed every input generator with N" },
	{ .name = "--format", .kind = PMB_OPT_CHOICE, .value = AT(format), .choices = formats, .meta = "=F",
	  .help = "console (default), json, csv" },
	{ .name = "--out", .kind = PMB_OPT_FILE, .value = AT(out), .meta = "=FILE",
	  .help = "write the report to FILE (atomically)" },
	{ .name = "--save", .kind = PMB_OPT_FILE, .value = AT(save), .meta = "=FILE.json",
	  .help = "also write the results JSON to FILE, whatever\nthe --format (for `pmubench report`)" },
	{ .name = "--columns", .kind = PMB_OPT_LIST, .value = AT(columns), .meta = "=LIST",
	  .expect = "expected a comma-separated list of column names (see man pmubench)",
	  .help = "console table: these columns (ns, ci, cycles,\ninstr, ipc, br-miss, misp, ratio, mean, sd,\n"
		  "outliers, total, an event...) beside the name" },
	{ .name = "--wide", .kind = PMB_OPT_FLAG, .given = AT(wide),
	  .help = "console table: every column, however wide" },
	{ .name = "--verbose", .kind = PMB_OPT_FLAG, .given = AT(verbose),
	  .help = "console: the whole environment probe in the\nheader, not only the machine's line" },
	{ .name = "--plot", .kind = PMB_OPT_FILE, .value = AT(plot), .meta = "=FILE.svg",
	  .help = "also draw sweeps and branch studies as SVG" },
	{ .name = "--disasm", .kind = PMB_OPT_FLAG, .given = AT(disasm),
	  .help = "also print each benchmark's measured loop as\nmachine code, with simulated counts per\n"
		  "instruction under --backend=sim" },
	{ .name = "--topology", .kind = PMB_OPT_FLAG, .given = AT(topology),
	  .help = "print caches, NUMA node, PMU and exit" },
	{ .name = "--self-check", .kind = PMB_OPT_FLAG, .given = AT(self_check),
	  .help = "check clock and counters with known answers" },
	{ .name = "--topology-source", .kind = PMB_OPT_STRING, .value = AT(topology_src), .hidden = 1,
	  .help = "for tests: a made-up topology (hwloc synthetic or XML)" },
	{ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP, .given = AT(help),
	  .help = "print this help and exit (also -h)" },
	{ .name = "--version", .kind = PMB_OPT_STOP, .given = AT(version),
	  .help = "print the version and exit" },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

const struct pmb_optdef *pmb__main_option(const char *name)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

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

/* What one option cannot say alone: modes that exclude each other and the
 * report options, and an --out and --plot that would overwrite each other.
 * Returns 0, or 2 with the error in msg. */
static int check_together(const struct pmb_options *o, char *msg, size_t size)
{
	const char *mode = o->list ? "--list" : o->topology ? "--topology" :
			   o->self_check ? "--self-check" : o->list_events ? "--list-events" : NULL;
	size_t len = o->plot ? strlen(o->plot) : 0;

	/* Reports are for benchmark runs; the other modes print text. */
	if (mode && (o->out || o->plot || o->save || o->format != PMB_FORMAT_CONSOLE))
		snprintf(msg, size, "%s prints text to standard output: --format, --out, --plot and --save are "
			 "for benchmark runs", mode);
	else if (o->list + o->topology + o->self_check + o->list_events > 1)
		snprintf(msg, size, "%s: choose one of --list, --list-events, --topology and --self-check", mode);
	else if (o->out && o->plot && same_file(o->out, o->plot))
		snprintf(msg, size, "--plot=%s: the same file as --out=%s; expected another file name", o->plot,
			 o->out);
	else if (o->save && ((o->out && same_file(o->save, o->out)) || (o->plot && same_file(o->save, o->plot))))
		snprintf(msg, size, "--save=%s: the same file as --%s; expected another file name", o->save,
			 o->out && same_file(o->save, o->out) ? "out" : "plot");
	else if (o->plot && (len < 5 || strcmp(o->plot + len - 4, ".svg")))
		snprintf(msg, size, "--plot=%s: expected a file name ending in .svg (the plot is SVG)", o->plot);
	else
		return 0;
	return 2;
}

int pmb__run_options(int argc, char **argv, struct pmb_options *o, char *err, size_t size)
{
	int first, rc;

	pmb__run_defaults(o);
	rc = pmb__options_parse(options, NOPTIONS, argc, argv, o, &first, err, size);
	if (rc < 0)
		return 2;
	if (rc > 0)
		return 1;
	if (first < argc) {
		snprintf(err, size, "unexpected argument '%s' (options start with --; see --help)", argv[first]);
		return 2;
	}
	return check_together(o, err, size);
}

void pmb__run_options_help(FILE *f)
{
	pmb__options_help(options, NOPTIONS, f);
}
