/* ab.c - `pmubench ab OLD NEW`: both programs run in alternation, a random order each round, until the paired intervals are narrow or the time is spent. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ab.h"
#include "report.h"
#include "ab_internal.h"
#include "compare.h"
#include "base.h"
#include "pmubench.h"

/* Rounds before the intervals may stop the run: fewer make a bootstrap
 * interval of a median that is too narrow to trust. */
#define MIN_ROUNDS 10
/* Notes: up to LIST_NOTES benchmarks listed by one side only (the rest
 * counted), then one for each way the environments differ (10 at most). */
#define LIST_NOTES 10
#define MAX_NOTES 20
/* A side's turn may take TURN_TIMES x its slowest turn before it is
 * stopped as hung, TURN_FLOOR_NS at least (a turn of a few ms slowed by a
 * busy machine is no hang); its first turn and its list, with nothing to
 * go by yet, the whole --time-limit (at least the floor). */
#define TURN_TIMES 5
#define TURN_FLOOR_NS 2e9

enum { AB_AUTO, AB_PERF, AB_SIM };

struct ab_options {
	const char *filter, *out, *counters;
	int cpu;
	bool cpu_given;
	double threshold, precision; /* fractions */
	double limit_ns;             /* --time-limit */
	double min_sample_ns;
	bool min_sample_given;
	int samples, max_rounds, backend;
	uint64_t seed;
	bool help;
};

static const struct pmb_optchoice ab_backends[] = {
	{ "auto", AB_AUTO }, { "perf", AB_PERF }, { "sim", AB_SIM }, { 0 },
};

#define AT(member) PMB_OPT_AT(struct ab_options, member)

static const struct pmb_optdef ab_options[] = {
	{ .name = "--filter", .kind = PMB_OPT_STRING, .value = AT(filter), .meta = "=REGEX",
	  .help = "compare the benchmarks whose name matches" },
	{ .name = "--threshold", .kind = PMB_OPT_PERCENT, .value = AT(threshold), .meta = "=PCT",
	  .help = "improved or regressed only where the paired 95%\ninterval lies beyond PCT percent "
		  "(default 1)" },
	{ .name = "--precision", .kind = PMB_OPT_PERCENT, .value = AT(precision), .meta = "=PCT",
	  .help = "stop once every interval is within +-PCT percent\nof its ratio (default 1)" },
	{ .name = "--time-limit", .kind = PMB_OPT_DURATION, .value = AT(limit_ns), .hi = 86400,
	  .meta = "=T", .help = "stop before T is spent, e.g. 90s or 300\n(default 60s)" },
	{ .name = "--max-rounds", .kind = PMB_OPT_INT, .value = AT(max_rounds), .lo = 2, .hi = 100000,
	  .meta = "=N", .help = "stop after N rounds (default 1000)" },
	{ .name = "--samples", .kind = PMB_OPT_INT, .value = AT(samples), .lo = 1, .hi = 1000000,
	  .meta = "=N", .help = "samples per benchmark in one turn (default 10)" },
	{ .name = "--min-sample-time", .kind = PMB_OPT_DURATION, .value = AT(min_sample_ns), .hi = 10,
	  .given = AT(min_sample_given), .meta = "=T", .help = "shortest sample in a turn (the sides' "
								"default)" },
	{ .name = "--counters", .kind = PMB_OPT_LIST, .value = AT(counters), .meta = "=LIST",
	  .expect = "expected a comma-separated list of events (see pmubench --list-events)",
	  .help = "events both sides count (passed to both; default\ntheir own): each gets its verdict" },
	{ .name = "--cpu", .kind = PMB_OPT_CORE, .value = AT(cpu), .given = AT(cpu_given), .meta = "=N",
	  .help = "pin both sides to core N (default: the core\neach started on)" },
	{ .name = "--backend", .kind = PMB_OPT_CHOICE, .value = AT(backend), .choices = ab_backends,
	  .meta = "=B", .help = "auto (default), perf, or sim: one round of exact\nsimulated counts" },
	{ .name = "--seed", .kind = PMB_OPT_SEED, .value = AT(seed), .meta = "=N",
	  .help = "seed of the order of turns (default: drawn, and\nprinted)" },
	{ .name = "--out", .kind = PMB_OPT_FILE, .value = AT(out), .meta = "=PREFIX",
	  .help = "write PREFIX-old.json and PREFIX-new.json: every\nturn, as repetitions, for compare" },
	{ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP, .given = AT(help),
	  .help = "print this help and exit" },
};
#define NAB_OPTIONS (sizeof(ab_options) / sizeof(ab_options[0]))

/* The state of one A/B run. */
struct ab {
	struct ab_options o;
	struct pmb__ab_side side[2];  /* OLD, NEW */
	char dir[64];                 /* the turns' files, the sides' TMPDIR */
	char outp[2][PATH_MAX];       /* --out: PREFIX-old.json, PREFIX-new.json */
	char **names;                 /* benchmarks both list */
	size_t nnames;
	struct pmb__ab_series *s;
	struct pmb__ab_verdict *v;
	size_t ns;
	int rounds;
	char note[MAX_NOTES][160];
	size_t nnote, more;           /* notes, and those past MAX_NOTES */
	double t0;                    /* when ab started: the time limit's origin */
	char err[8192];
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmubench ab [OPTION]... OLD NEW\n"
		   "OLD and NEW: benchmark programs (or plugins, X.so, run as pmubench\n"
		   "--load=X.so), run in turns, a random order each round, compared\n"
		   "round by round.\n\n");
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Options and the two sides into ab.  Returns -1 to go on, 0: --help
 * asked, or 2 with the one line that says what is wrong in err (an
 * argument quoted in it made visible: a newline or a control character in
 * it as \xNN). */
static int parse_into(int argc, char **argv, struct ab *ab, char *err, size_t errlen)
{
	char raw[512] = "";
	int first, ret;

	ab->o = (struct ab_options){ .threshold = 0.01, .precision = 0.01, .limit_ns = 60e9,
				     .samples = 10, .max_rounds = 1000 };
	ret = pmb__options_parse(ab_options, NAB_OPTIONS, argc, argv, &ab->o, &first, raw,
				 sizeof(raw));
	if (ret > 0)
		return 0;
	if (ret == 0 && argc - first == 2) {
		ab->side[0].path = argv[first];
		ab->side[1].path = argv[first + 1];
		return -1;
	}
	/* One line, the fix in it: the usage where the programs are wrong. */
	if (ret == 0)
		snprintf(raw, sizeof(raw), "%s (usage: pmubench ab [OPTION]... OLD NEW)", argc - first > 2 ?
			 "more than two programs" : "need two programs");
	pmb__out_visible(err, errlen, raw);
	return 2;
}

/* Options and the two sides.  Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct ab *ab)
{
	char err[2048] = "";
	int ret = parse_into(argc, argv, ab, err, sizeof(err));

	if (ret == 0) {
		usage(stdout);
		pmb__options_help(ab_options, NAB_OPTIONS, stdout);
	} else if (ret == 2) {
		fprintf(stderr, "pmubench ab: %s\n", err);
	}
	return ret;
}

int pmb__ab_parse(int argc, char **argv, struct pmb__ab_parsed *p, char *err, size_t errlen)
{
	struct ab *ab = calloc(1, sizeof(*ab));
	int ret;

	if (!ab)
		return snprintf(err, errlen, "%s", strerror(ENOMEM)), 2;
	ret = parse_into(argc, argv, ab, err, errlen);
	*p = (struct pmb__ab_parsed){ .old = ab->side[0].path, .new = ab->side[1].path,
				      .out = ab->o.out, .threshold = ab->o.threshold,
				      .precision = ab->o.precision, .limit_ns = ab->o.limit_ns,
				      .min_sample_ns = ab->o.min_sample_ns, .samples = ab->o.samples,
				      .max_rounds = ab->o.max_rounds };
	free(ab);
	return ret;
}

/* The time side k may take for its list or its next turn (see
 * TURN_TIMES). */
static void side_limit(const struct ab *ab, int k, struct pmb__ab_limit *l)
{
	double slowest = ab->side[k].slowest_ns;

	if (slowest > 0) {
		l->timeout_ns = fmax(TURN_FLOOR_NS, TURN_TIMES * slowest);
		snprintf(l->why, sizeof(l->why), "%d x its slowest turn, %.2f s; at least %.0f s",
			 TURN_TIMES, slowest / 1e9, TURN_FLOOR_NS / 1e9);
	} else {
		l->timeout_ns = fmax(TURN_FLOOR_NS, ab->o.limit_ns);
		snprintf(l->why, sizeof(l->why), "none timed yet: --time-limit, at least %.0f s",
			 TURN_FLOOR_NS / 1e9);
	}
}

/* The benchmarks both sides list, in OLD's order; those in one only are
 * noted.  Returns 0, or -1 (PMB_AB_STOPPED: a signal) with the error in
 * ab->err. */
static int common_benchmarks(struct ab *ab)
{
	char **l[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct pmb__ab_limit lim;
	struct pmb__ab_notes notes = { ab->note, LIST_NOTES, 0, 0 };
	int ret = 0;

	for (int k = 0; k < 2 && !ret; k++) {
		side_limit(ab, k, &lim);
		ret = pmb__ab_list(&ab->side[k], ab->o.filter, &lim, &l[k], &n[k], ab->err,
				   sizeof(ab->err));
	}
	if (!ret && pmb__ab_common(l[0], n[0], l[1], n[1], &ab->names, &ab->nnames, &notes)) {
		snprintf(ab->err, sizeof(ab->err), "%s", strerror(ENOMEM));
		ret = -1;
	}
	ab->nnote = notes.n;
	ab->more = notes.more;
	if (!ret && !ab->nnames) {
		snprintf(ab->err, sizeof(ab->err), "OLD and NEW list no benchmark in common%s",
			 ab->o.filter ? " that --filter selects" : "");
		ret = -1;
	}
	pmb__ab_names_free(l[0], n[0]);
	pmb__ab_names_free(l[1], n[1]);
	return ret;
}

/* The file of side k's turn in round r. */
static void turn_path(const struct ab *ab, int k, int r, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s-%d.json", ab->dir, ab->side[k].label, r);
}

/* One turn: side k measures the benchmarks --filter selects (all: its
 * own selection, by the same filter), into its file; those not in common
 * are measured too and left out of the series (the notes name them),
 * which costs time but keeps the names off the command line, whatever
 * their number.  Its time is kept for the next turn's limit.  Returns 0,
 * or -1 (PMB_AB_STOPPED: a signal) with ab->err. */
static int turn(struct ab *ab, int k, int r)
{
	static const char *const be[] = { "--backend=auto", "--backend=perf", "--backend=sim" };
	char out[160], samples[32], mst[64], cpu[32], *filter = NULL, *counters = NULL;
	const char *args[9];
	struct pmb__ab_limit lim;
	size_t n = 0;
	double t;
	int ret;

	turn_path(ab, k, r, out + 6, sizeof(out) - 6);
	memcpy(out, "--out=", 6);
	if ((ab->o.filter && asprintf(&filter, "--filter=%s", ab->o.filter) < 0) ||
	    (ab->o.counters && asprintf(&counters, "--counters=%s", ab->o.counters) < 0)) {
		free(filter);
		return snprintf(ab->err, sizeof(ab->err), "%s", strerror(ENOMEM)), -1;
	}
	snprintf(samples, sizeof(samples), "--samples=%d", ab->o.samples);
	snprintf(mst, sizeof(mst), "--min-sample-time=%.0fns", ab->o.min_sample_ns);
	if (filter)
		args[n++] = filter;
	args[n++] = "--format=json";
	args[n++] = out;
	args[n++] = samples;
	args[n++] = be[ab->o.backend];
	if (ab->o.min_sample_given)
		args[n++] = mst;
	if (ab->o.cpu_given) {
		snprintf(cpu, sizeof(cpu), "--cpu=%d", ab->o.cpu);
		args[n++] = cpu;
	}
	if (counters)
		args[n++] = counters;
	side_limit(ab, k, &lim);
	t = now_ns();
	ret = pmb__ab_run(&ab->side[k], args, n, &lim, "its turn", NULL, ab->err, sizeof(ab->err));
	t = now_ns() - t;
	if (!ret && t > ab->side[k].slowest_ns)
		ab->side[k].slowest_ns = t;
	free(filter);
	free(counters);
	return ret;
}

static int add_series(struct ab *ab, const char *bench, const char *key)
{
	struct pmb__ab_series *ns = realloc(ab->s, (ab->ns + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	ab->s = ns;
	ns = &ab->s[ab->ns++];
	memset(ns, 0, sizeof(*ns));
	ns->bench = bench;
	snprintf(ns->key, sizeof(ns->key), "%s", key);
	return 0;
}

static bool per_item_key(const char *key)
{
	size_t n = strlen(key), k = strlen("_per_item");

	/* Estimated cycles are time times a constant: one change, not two. */
	return n > k && !strcmp(key + n - k, "_per_item") && strcmp(key, "est_cycles_per_item") &&
	       strcmp(key, "ns_per_item");
}

/* The series, from the first round: per common benchmark, ns_per_item
 * (where measured) then every "<x>_per_item" both sides' turns have. */
static int make_series(struct ab *ab, struct pmb_results *const res[2])
{
	for (size_t i = 0; i < ab->nnames; i++) {
		const struct pmb_results_bench *b[2] = { pmb__results_find(res[0], ab->names[i]),
							  pmb__results_find(res[1], ab->names[i]) };
		const struct pmb_results_run *o, *n;

		if (!b[0] || !b[1] || !b[0]->nrun || !b[1]->nrun)
			continue; /* skipped: no figures; said in the table as "-" */
		o = &b[0]->run[0];
		n = &b[1]->run[0];
		if (pmb__results_figure(o, "ns_per_item") && pmb__results_figure(n, "ns_per_item") &&
		    add_series(ab, ab->names[i], "ns_per_item"))
			return -ENOMEM;
		for (size_t f = 0; f < o->nfig; f++)
			if (per_item_key(o->fig[f].key) && pmb__results_figure(n, o->fig[f].key) &&
			    add_series(ab, ab->names[i], o->fig[f].key))
				return -ENOMEM;
	}
	return 0;
}

/* The figure of a turn: its value (NAN: none), and whether it was below
 * the turn's resolution. */
static double turn_value(const struct pmb_results *res, const struct pmb__ab_series *s,
			 bool *below)
{
	const struct pmb_results_bench *b = pmb__results_find(res, s->bench);
	const struct pmb_results_figure *f =
		b && b->nrun ? pmb__results_figure(&b->run[0], s->key) : NULL;

	*below = f && f->below_resolution;
	return f ? f->value : NAN;
}

/* Round r's two files read into the series (made on round 0, where the
 * environments are compared too).  Returns 0 or -1 with ab->err. */
static int take_round(struct ab *ab, int r)
{
	struct pmb_results *res[2] = { NULL, NULL };
	char path[160], why[512], diff[MAX_NOTES][160];
	int ret = 0;

	for (int k = 0; k < 2 && !ret; k++) {
		turn_path(ab, k, r, path, sizeof(path));
		ret = pmb__results_read(path, &res[k], why, sizeof(why));
		if (ret)
			snprintf(ab->err, sizeof(ab->err), "%s %s: its result file %s: %s",
				 ab->side[k].label, ab->side[k].path, path, why);
	}
	if (!ret && r == 0) {
		size_t nd = pmb__results_env_diff(res[0], res[1], diff, MAX_NOTES);

		for (size_t i = 0; i < nd && ab->nnote < MAX_NOTES; i++)
			snprintf(ab->note[ab->nnote++], 160, "the sides differ in %.138s", diff[i]);
		ret = make_series(ab, res);
		if (!ret && !(ab->v = calloc(ab->ns + 1, sizeof(*ab->v))))
			ret = -ENOMEM;
	}
	for (size_t i = 0; i < ab->ns && !ret; i++) {
		bool bo, bn;
		double o = turn_value(res[0], &ab->s[i], &bo), n = turn_value(res[1], &ab->s[i], &bn);

		ab->s[i].resolved |= !bo || !bn;
		ab->s[i].old_resolved |= !bo;
		if (isfinite(o) && isfinite(n))
			ret = pmb__ab_series_push(&ab->s[i], o, n);
	}
	if (ret == -ENOMEM)
		snprintf(ab->err, sizeof(ab->err), "%s", strerror(ENOMEM));
	pmb__results_free(res[0]);
	pmb__results_free(res[1]);
	return ret ? -1 : 0;
}

/* Verdicts of every series now; the widest relative half-width of a
 * ratio's interval (0 where none has one: nothing to narrow). */
static double judge_all(struct ab *ab)
{
	bool exact = ab->o.backend == AB_SIM;
	double widest = 0;

	for (size_t i = 0; i < ab->ns; i++) {
		const struct pmb__ab_series *s = &ab->s[i];
		uint64_t seed = pmb__fnv1a(pmb__fnv1a(PMB_FNV1A_INIT, s->bench), s->key);

		pmb__ab_judge(s, ab->o.threshold, exact, seed, &ab->v[i]);
		if (isfinite(ab->v[i].halfwidth) && ab->v[i].halfwidth > widest)
			widest = ab->v[i].halfwidth;
	}
	return widest;
}

/* Progress on stderr: rewritten in place on a terminal, else a line every
 * tenth round. */
static void progress(const struct ab *ab, double elapsed_ns, double widest, bool last)
{
	bool tty = isatty(2);

	if (!tty && !last && ab->rounds % 10)
		return;
	fprintf(stderr, "%spmubench ab: round %d, %.1f s of %.0f s; widest interval +-%.2f %% "
		"(stops at +-%.2f %%)%s", tty ? "\r" : "", ab->rounds, elapsed_ns / 1e9,
		ab->o.limit_ns / 1e9, widest * 100, ab->o.precision * 100, tty && !last ? "" : "\n");
}

/* A progress line on a terminal erased, before a message that ends the
 * rounds early. */
static void progress_erase(void)
{
	if (isatty(2))
		fputs("\r\033[K", stderr);
}

/* Stopped on the time limit: the interval reached and what would reach
 * the goal, from how the widest interval shrank round by round. */
static void say_budget(const struct ab *ab, const double *widest, double round_ns,
		       char *stopped, size_t size)
{
	double k, need = pmb__stop_needed(widest, (size_t)ab->rounds, ab->o.precision, &k);
	double w = widest[ab->rounds - 1];
	int n;

	if (!(w > 0)) {
		/* judge_all's 0: no ratio has an interval (one round). */
		snprintf(stopped, size, "time limit (%g s) reached after %d round%s; no interval yet: a "
			 "paired interval needs 2 rounds or more, --time-limit=%.0fs at least",
			 ab->o.limit_ns / 1e9, ab->rounds, ab->rounds == 1 ? "" : "s",
			 ceil(2 * round_ns / 1e9));
		return;
	}
	n = snprintf(stopped, size, "time limit (%g s) reached after %d round%s; widest interval "
		     "+-%.2f %% (goal +-%g %%)", ab->o.limit_ns / 1e9, ab->rounds,
		     ab->rounds == 1 ? "" : "s", w * 100, ab->o.precision * 100);
	if (n < 0 || (size_t)n >= size)
		return;
	if (isfinite(need) && need > ab->rounds)
		snprintf(stopped + n, size - (size_t)n, ": at its shrink so far (n^-%.2f) about %.0f "
			 "rounds, --time-limit=%.0fs, would reach it, or a quieter core", k, need,
			 ceil(need * round_ns / 1e9));
	else if (isinf(need))
		snprintf(stopped + n, size - (size_t)n, ": it did not narrow with rounds, so more "
			 "time would not reach it; a quieter core might");
}

/* Round after round until the intervals are narrow enough, the rounds or
 * the time run out (pmb__stop_check, the rule the runner's samples
 * follow too); why in stopped.  Returns 0, or -1 with ab->err, or
 * PMB_AB_STOPPED: a signal came (the rounds before it stand, why in
 * stopped). */
static int run_rounds(struct ab *ab, struct pmb_rng *rng, char *stopped, size_t size)
{
	bool sim = ab->o.backend == AB_SIM;
	const struct pmb_stop_rule rule = { .min_n = MIN_ROUNDS, .max_n = (size_t)ab->o.max_rounds,
					    .precision = ab->o.precision, .budget_ns = ab->o.limit_ns };
	double t0 = ab->t0, t, took, *widest;
	enum pmb_stop why = PMB_STOP_NONE;

	widest = malloc((size_t)ab->o.max_rounds * sizeof(*widest));
	if (!widest)
		return snprintf(ab->err, sizeof(ab->err), "%s", strerror(ENOMEM)), -1;
	for (int r = 0; why == PMB_STOP_NONE; r++) {
		int first = sim ? 0 : (int)(pmb_rng_next(rng) >> 63), ret;

		t = now_ns();
		if (!(ret = turn(ab, first, r)) && !(ret = turn(ab, 1 - first, r)) &&
		    pmb__ab_stop_signal())
			ret = PMB_AB_STOPPED; /* both turns ended, one stopped by it */
		if (ret == PMB_AB_STOPPED) {
			snprintf(stopped, size, "interrupted by %s in round %d: %d round%s measured",
				 pmb__interrupt_name(pmb__ab_stop_signal()), r + 1, r, r == 1 ? "" : "s");
			free(widest);
			return ret;
		}
		if (ret || take_round(ab, r)) {
			free(widest);
			return -1;
		}
		ab->rounds = r + 1;
		took = now_ns() - t;
		widest[r] = judge_all(ab);
		if (sim) {
			snprintf(stopped, size, "simulated counts are exact: one round, no statistics");
			free(widest);
			return 0;
		}
		why = pmb__stop_check(&rule, (size_t)ab->rounds, widest[r], now_ns() - t0, took);
		progress(ab, now_ns() - t0, widest[r], why != PMB_STOP_NONE);
	}
	if (why == PMB_STOP_PRECISION)
		snprintf(stopped, size, "every interval within +-%g %%", ab->o.precision * 100);
	else if (why == PMB_STOP_COUNT)
		snprintf(stopped, size, "--max-rounds=%d reached", ab->o.max_rounds);
	else
		say_budget(ab, widest, (now_ns() - t0) / ab->rounds, stopped, size);
	free(widest);
	return 0;
}

/* Every turn of each side in one file, for compare (pmb__ab_out_write);
 * incomplete (NULL: none) marks it.  Returns 0, -1 with ab->err, or 1:
 * the writer said why. */
static int write_out(struct ab *ab, const char *incomplete)
{
	size_t n = (size_t)ab->rounds;
	char *paths = malloc(n * 160), *list[n ? n : 1];
	int ret = paths ? 0 : -1;

	if (!paths)
		snprintf(ab->err, sizeof(ab->err), "--out: %s", strerror(ENOMEM));
	for (int k = 0; k < 2 && !ret; k++) {
		for (size_t r = 0; r < n; r++) {
			list[r] = paths + r * 160;
			turn_path(ab, k, (int)r, list[r], 160);
		}
		ret = pmb__ab_out_write(ab->outp[k], (const char *const *)list, n, incomplete, ab->err,
					sizeof(ab->err));
	}
	free(paths);
	return ret;
}

/* The report on stdout; returns the exit status (0, or 1: a regression). */
static int report(struct ab *ab, const char *stopped, uint64_t seed)
{
	struct pmb__table t = { 0 };
	size_t count[PMB_VERDICT_COUNT] = { 0 }, below = 0;
	bool exact = ab->o.backend == AB_SIM;

	printf("pmubench ab: %s (OLD) against %s (NEW): %d round%s", ab->side[0].path,
	       ab->side[1].path, ab->rounds, ab->rounds == 1 ? "" : "s");
	if (exact)
		printf(" under --backend=sim; threshold %g %%\n", ab->o.threshold * 100);
	else
		printf(", each in a random order (--seed=%llu); threshold %g %%\n",
		       (unsigned long long)seed, ab->o.threshold * 100);
	printf("stopped: %s\n", stopped);
	if (exact)
		printf("simulated counts are exact: the ratio is the change, with no interval "
		       "and no test\n");
	else
		printf("new/old: the median of the rounds' ratios; 95%% CI: its bootstrap "
		       "interval; p: signed-rank test\n");
	for (size_t i = 0; i < ab->nnote; i++) {
		char shown[4 * sizeof(ab->note[0]) + 1]; /* names and hosts may hold escapes */

		printf("note: %s\n", pmb__out_visible(shown, sizeof(shown), ab->note[i]));
	}
	if (ab->more)
		printf("note: %zu more benchmarks only in OLD or only in NEW\n", ab->more);
	if (pmb__ab_table(ab->s, ab->v, ab->ns, exact, &t) || pmb__table_print(stdout, &t)) {
		pmb__table_free(&t);
		fprintf(stderr, "pmubench ab: %s\n", strerror(ENOMEM));
		return 2;
	}
	pmb__table_free(&t);
	pmb__ab_below(stdout, ab->s, ab->v, ab->ns);
	/* Those below resolution on both sides have no row: counted apart,
	 * as the line above names them. */
	for (size_t i = 0; i < ab->ns; i++)
		if (ab->v[i].below_both)
			below++;
		else
			count[ab->v[i].v]++;
	pmb__compare_counts(count, exact, below);
	return count[PMB_VERDICT_REGRESSED] ? 1 : 0;
}

/* The folder of the turns, and all in it. */
static void clean(struct ab *ab)
{
	pmb__ab_dir_remove(ab->dir);
	ab->dir[0] = '\0';
}

static void ab_free(struct ab *ab)
{
	clean(ab);
	pmb__ab_side_free(&ab->side[0]);
	pmb__ab_side_free(&ab->side[1]);
	pmb__ab_names_free(ab->names, ab->nnames);
	for (size_t i = 0; i < ab->ns; i++) {
		free(ab->s[i].old);
		free(ab->s[i].new);
	}
	free(ab->s);
	free(ab->v);
}

/* Set up: the folder for the turns (the sides' TMPDIR too, so that all
 * they leave goes with it), the sides, the benchmarks in common.  Returns
 * 0, or -1 (PMB_AB_STOPPED: a signal) with ab->err. */
static int prepare(struct ab *ab)
{
	const char *tmp = getenv("TMPDIR");
	const char *paths[2] = { ab->side[0].path, ab->side[1].path };

	snprintf(ab->dir, sizeof(ab->dir), "%.40s/pmubench-ab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(ab->dir)) {
		snprintf(ab->err, sizeof(ab->err), "cannot make a folder for the turns (%s): %s",
			 ab->dir, strerror(errno));
		ab->dir[0] = '\0';
		return -1;
	}
	if (setenv("TMPDIR", ab->dir, 1))
		return snprintf(ab->err, sizeof(ab->err), "%s", strerror(errno)), -1;
	if (pmb__ab_side_init(&ab->side[0], "OLD", paths[0], ab->err, sizeof(ab->err)) ||
	    pmb__ab_side_init(&ab->side[1], "NEW", paths[1], ab->err, sizeof(ab->err)))
		return -1;
	return common_benchmarks(ab);
}

/* Stopped by a signal: the rounds measured reported and written, marked
 * incomplete, or said to be none.  Returns the exit status, 128 + the
 * signal's number. */
static int interrupted(struct ab *ab, const char *stopped, uint64_t seed)
{
	int sig = pmb__ab_stop_signal();

	progress_erase();
	if (!ab->rounds) {
		fprintf(stderr, "pmubench ab: %s; nothing to report%s\n", stopped,
			ab->o.out ? ", no file written" : "");
		return 128 + sig;
	}
	fprintf(stderr, "pmubench ab: %s%s\n", stopped, ab->o.out ? "; writing --out, marked "
		"incomplete" : "");
	if (ab->o.out && write_out(ab, stopped) < 0)
		fprintf(stderr, "pmubench ab: %s\n", ab->err);
	report(ab, stopped, seed);
	return 128 + sig;
}

int pmb__ab_main(int argc, char **argv)
{
	struct ab *ab = calloc(1, sizeof(*ab));
	char stopped[512] = "";
	struct pmb_rng rng;
	uint64_t seed;
	int ret;

	if (!ab)
		return fprintf(stderr, "pmubench ab: %s\n", strerror(ENOMEM)), 2;
	ab->t0 = now_ns(); /* the lists count against the limit too */
	ret = parse_args(argc, argv, ab);
	if (ret >= 0)
		goto out;
	ret = 2;
	if (ab->o.out && pmb__ab_out_check(ab->o.out, ab->side[0].path, ab->side[1].path, ab->outp))
		goto out;
	if (pmb__ab_signals_catch()) {
		fprintf(stderr, "pmubench ab: cannot catch signals: %s\n", strerror(errno));
		goto out;
	}
	seed = ab->o.seed ? ab->o.seed : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	pmb_rng_seed(&rng, seed);
	ret = prepare(ab);
	if (!ret)
		ret = run_rounds(ab, &rng, stopped, sizeof(stopped));
	if (ret == PMB_AB_STOPPED && !stopped[0])
		snprintf(stopped, sizeof(stopped), "%.400s, before the first round", ab->err);
	if (ret == PMB_AB_STOPPED) {
		ret = interrupted(ab, stopped, seed);
		goto out;
	}
	if (ret || (ab->o.out && (ret = write_out(ab, NULL)))) {
		progress_erase();
		if (ret < 0)
			fprintf(stderr, "pmubench ab: %s\n", ab->err);
		ret = 2;
		goto out;
	}
	ret = report(ab, stopped, seed);
out:
	ab_free(ab);
	pmb__ab_signals_release();
	free(ab);
	return ret;
}
