/* compare.c - `pmubench compare OLD NEW`: per-figure change, bootstrap CI, U test, verdict. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "compare.h"
#include "base.h"
#include "pmubench.h"
#include "report.h"
#include "io.h"

/* Fewer samples than this on a side: compare the point values only. */
#define MIN_SAMPLES 3

struct vec {
	double *v;
	size_t n, cap;
};

struct report {
	const char *path;
	struct pmb_results *res;
	char err[256];   /* why a figure could not be computed */
	double drift;    /* --drift, the same in both reports: what a
	                    single run's interval is widened by */
	bool exact;      /* both files simulated: counts the same run after
	                    run, so the ratio is the change */
};

#define NCOL 8

/* Text columns flush left, numbers flush right. */
static const bool col_left[NCOL] = { true, true, false, false, false, true,
				     false, true };

static int vec_push(struct vec *v, double x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		double *nv = realloc(v->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = nc;
	}
	v->v[v->n++] = x;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* NAN (not given) as 0. */
static double or0(double x)
{
	return isnan(x) ? 0 : x;
}

/* Per-item samples of one run from its raw samples, less the harness
 * overhead, by the analysis's arithmetic (pmb__per_item_values).
 * Samples without a value (null) or passes are left out.  Every number
 * read is finite, but what is computed from them need not be (1e308 -
 * -1e308): such a sample is refused, naming its field. */
static int per_item(struct report *r, const char *bname, const char *field,
		    const struct pmb_results_series *val,
		    const struct pmb_results_series *passes, double ipp,
		    double pp, double ps, struct vec *out)
{
	double *p = malloc((2 * val->n + 1) * sizeof(*p)), *y = p + val->n;
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < val->n; i++)
		p[i] = i < passes->n ? passes->v[i] : NAN;
	pmb__per_item_values(val->v, p, val->n, ps, pp, ipp, y);
	for (size_t i = 0; i < val->n && !err; i++) {
		if (isnan(val->v[i]) || isnan(p[i]) || !(p[i] * ipp > 0))
			continue; /* no value, or no passes: NAN in y */
		if (!isfinite(y[i])) {
			snprintf(r->err, sizeof(r->err), "benchmark \"%.60s\": "
				 "raw_samples.%.40s[%zu] less the harness "
				 "overhead (per sample %g, per pass %g) is not "
				 "a finite number per item", bname, field, i,
				 ps, pp);
			err = -ERANGE;
		} else {
			err = vec_push(out, y[i]);
		}
	}
	free(p);
	return err;
}

/* The harness overhead a run's figures were corrected with, as the
 * analysis chooses it (pmb_result_overhead): the run's own where it was
 * measured around it, else the context's; never the two mixed. */
static const struct pmb_results_overhead *run_overhead(const struct report *r,
							const struct pmb_results_run *run)
{
	return run->overhead ? run->overhead : &r->res->overhead;
}

/* Per-item samples of time from one run: the written per-item values, or
 * recomputed from the raw samples and the harness overhead. */
static int time_samples(struct report *r, const char *bname,
			const struct pmb_results_run *run, struct vec *out)
{
	const struct pmb_results_series *ns = pmb__results_series(run, "ns");
	const struct pmb_results_series *passes =
		pmb__results_series(run, "passes");
	const struct pmb_results_overhead *ov = run_overhead(r, run);
	size_t i;

	if (run->has_item_ns) {
		for (i = 0; i < run->nitem_ns; i++)
			if (vec_push(out, run->item_ns[i]))
				return -ENOMEM;
		return 0;
	}
	if (!ns || !passes || isnan(run->items_per_pass))
		return 0;
	return per_item(r, bname, "ns", ns, passes, run->items_per_pass, or0(ov->ns_per_pass),
			or0(ov->ns_per_sample), out);
}

static const struct pmb_results_event_ov *
event_ov(const struct pmb_results_overhead *ov, const char *ev)
{
	for (size_t i = 0; ov && i < ov->nev; i++)
		if (!strcmp(ov->ev[i].name, ev))
			return &ov->ev[i];
	return NULL;
}

/* Per-item samples of event `ev` (the key without "_per_item"): raw
 * counts less the harness overhead of this event (none where the
 * overhead the run was corrected with has none for it), over items. */
static int event_samples(struct report *r, const char *bname,
			 const struct pmb_results_run *run, const char *ev,
			 struct vec *out)
{
	const struct pmb_results_series *val = pmb__results_series(run, ev);
	const struct pmb_results_series *passes =
		pmb__results_series(run, "passes");
	const struct pmb_results_event_ov *ov = event_ov(run_overhead(r, run), ev);

	if (!val || !passes || isnan(run->items_per_pass))
		return 0;
	return per_item(r, bname, ev, val, passes, run->items_per_pass,
			ov ? or0(ov->per_pass) : 0,
			ov ? or0(ov->per_sample) : 0, out);
}

/* Samples of figure `key` over every run of b (repetitions pooled). */
static int figure_samples(struct report *r, const struct pmb_results_bench *b,
			  const char *key, struct vec *out)
{
	char ev[160];
	size_t i, k = strlen(key) - strlen("_per_item");
	int err = 0;

	if (!ends_with(key, "_per_item") || k >= sizeof(ev))
		return 0; /* real_time, cpu_time: Google Benchmark keeps none */
	memcpy(ev, key, k);
	ev[k] = '\0';
	for (i = 0; i < b->nrun && !err; i++) {
		if (!strcmp(ev, "ns"))
			err = time_samples(r, b->name, &b->run[i], out);
		else
			err = event_samples(r, b->name, &b->run[i], ev, out);
	}
	return err;
}

static bool has_number(const struct pmb_results_bench *b, const char *key)
{
	return b->nrun && !isnan(pmb__compare_run_value(&b->run[0], key));
}

/* Figures to compare, all of them (no cap): every "*_per_item" number
 * both have (ns first), or Google Benchmark's times where there is no
 * ns_per_item.  *out: free it. */
static int list_figures(const struct pmb_results_bench *o,
			const struct pmb_results_bench *n,
			const char ***out, size_t *nout)
{
	const struct pmb_results_run *run = &o->run[0];
	const char **fig = malloc((run->nfig + 2) * sizeof(*fig));
	size_t i, k = 0;

	if (!fig)
		return -ENOMEM;
	if (has_number(o, "ns_per_item") && has_number(n, "ns_per_item"))
		fig[k++] = "ns_per_item";
	for (i = 0; i < run->nfig; i++) {
		const char *key = run->fig[i].key;

		/* Estimated cycles are time times a constant: one change, not
		 * two, so they get no verdict of their own. */
		if (!strcmp(key, "est_cycles_per_item") ||
		    !strcmp(key, "ns_per_item"))
			continue;
		if (has_number(n, key))
			fig[k++] = key;
	}
	if (!k && run->time_measured && n->run[0].time_measured) {
		if (has_number(o, "real_time") && has_number(n, "real_time"))
			fig[k++] = "real_time";
		if (has_number(o, "cpu_time") && has_number(n, "cpu_time"))
			fig[k++] = "cpu_time";
	}
	*out = fig;
	*nout = k;
	return 0;
}

static uint64_t fnv1a(const char *a, const char *b)
{
	return pmb__fnv1a(pmb__fnv1a_byte(pmb__fnv1a(PMB_FNV1A_INIT, a), '/'), b);
}

void pmb__compare_fmt_value(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1e4)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* One line on f, made visible (report_out.c): it quotes names from the
 * files and the command line, which may hold control characters. */
__attribute__((format(printf, 2, 3)))
static void out_line(FILE *f, const char *fmt, ...)
{
	char *text = NULL, *shown = NULL;
	size_t size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	size = n >= 0 ? 4 * (size_t)n + 1 : 0;
	if (n >= 0 && (shown = malloc(size)))
		fprintf(f, "%s\n", pmb__out_visible(shown, size, text));
	else
		fprintf(f, "pmubench compare: %s\n", strerror(ENOMEM));
	free(shown);
	free(text);
}

/* One row of NCOL cells.  Returns 0 or -ENOMEM. */
static int table_add(struct pmb__table *t, const char *const cell[NCOL])
{
	if (pmb__table_add_row(t))
		return t->err;
	for (int i = 0; i < NCOL; i++) {
		size_t size = 4 * strlen(cell[i]) + 1;
		char *shown = malloc(size);

		if (!shown)
			return -ENOMEM;
		pmb__table_set(t, i, "%s", pmb__out_visible(shown, size, cell[i]));
		free(shown);
	}
	return t->err;
}

/* Whether every run of the benchmark flags the figure (key
 * "<x>_per_item") as below the measurement's resolution. */
static bool below_resolution(const struct pmb_results_bench *b, const char *key)
{
	for (size_t i = 0; i < b->nrun; i++) {
		const struct pmb_results_figure *f =
			pmb__results_figure(&b->run[i], key);

		if (!f || !f->below_resolution)
			return false;
	}
	return b->nrun > 0;
}

/* The text cells of one row. */
struct cells {
	char old[32], new[32], ratio[32], ci[64], p[32];
	char word[80];   /* the verdict's words (pmb__verdict) */
};

/* A statistic of finite samples that overflowed (values near 1e308):
 * said, naming the figure, rather than shown as a verdict on nan. */
static int overflowed(struct report *r, const char *bname, const char *key,
		      const char *what)
{
	snprintf(r->err, sizeof(r->err), "benchmark \"%.60s\": %.60s: the "
		 "samples' %s is not a finite number (values this large "
		 "overflow a double)", bname, key, what);
	return -ERANGE;
}

/* The ratio, interval and p cells of a change measured with a test. */
static void change_cells(const struct pmb_change *ch, struct cells *c)
{
	snprintf(c->p, sizeof(c->p), isnan(ch->p) ? "-" : ch->p < 1e-4 ? "<0.0001" : "%.4f", ch->p);
	if (!isfinite(ch->lo) || !isfinite(ch->hi)) {
		snprintf(c->ci, sizeof(c->ci), "no CI");
	} else if (ch->ratio) {
		snprintf(c->ratio, sizeof(c->ratio), "%.3f", ch->est);
		snprintf(c->ci, sizeof(c->ci), "[%.3f, %.3f]", ch->lo, ch->hi);
	} else {
		snprintf(c->ci, sizeof(c->ci), "diff [%+.3g, %+.3g]", ch->lo, ch->hi);
	}
}

/* The change from samples on both sides (one run's per-item samples; a
 * side may pool its runs): the ratio of their medians (their difference
 * where the old median is not positive, or the old figure is below its
 * resolution: no ratio to it, as in the run's analysis), its bootstrap
 * interval widened
 * by the drift, and the U test, as analysis_verdict.c makes them.  Missing
 * point values are the samples' medians.  Returns 0, -ENOMEM, or -ERANGE
 * where a median or an interval overflows (said in ro's err). */
static int by_samples(struct report *ro, const struct pmb_results_bench *bo, const char *key,
		      const struct vec *x, const struct vec *y, double drift,
		      double *po, double *pn, struct cells *c, struct pmb_change *ch)
{
	const char *bname = bo->name;
	double mx = pmb__median(x->v, x->n), my = pmb__median(y->v, y->n);
	int rc;

	if (!isfinite(mx) || !isfinite(my))
		return overflowed(ro, bname, key, "median");
	if (!isfinite(*po))
		*po = mx;
	if (!isfinite(*pn))
		*pn = my;
	rc = pmb__change_independent(x->v, x->n, y->v, y->n, !below_resolution(bo, key),
				     fnv1a(bname, key), ch);
	if (rc == -ENOMEM)
		return rc;
	ch->unit = "samples";
	if (!rc && (!isfinite(ch->lo) || !isfinite(ch->hi) || !isfinite(ch->est)))
		return overflowed(ro, bname, key, ch->ratio ? "ratio or its 95 % interval" :
				  "difference's 95 % interval");
	if (!rc)
		pmb__change_widen(ch, fmax(fabs(mx), fabs(my)), drift);
	change_cells(ch, c);
	return 0;
}

/* The change from point values only: no samples and no test, so an
 * interval of the drift alone decides, as Google Benchmark's compare.py
 * lets the threshold decide. */
static void by_points(double po, double pn, bool old_resolved, double drift, struct cells *c,
		      struct pmb_change *ch)
{
	*ch = (struct pmb_change){ .est = NAN, .lo = NAN, .hi = NAN, .p = NAN, .min_p = NAN };
	snprintf(c->ci, sizeof(c->ci), "no samples");
	if (po > 0 && old_resolved && isfinite(pn)) {
		ch->ratio = true;
		ch->est = ch->lo = ch->hi = pn / po;
		snprintf(c->ratio, sizeof(c->ratio), "%.3f", ch->est);
		/* Drift between the runs could move the ratio as far. */
		pmb__change_widen(ch, po, drift);
	} else if (po == pn) {
		ch->est = ch->lo = ch->hi = 0; /* the same, not positive */
	}
}

/* The change of simulated counts on both sides: they are the same run
 * after run, so the ratio of the point values is the change, with no
 * interval and no test (as ab --backend=sim); the difference where the
 * old count is none. */
static void by_exact(double po, double pn, struct cells *c, struct pmb_change *ch)
{
	snprintf(c->ci, sizeof(c->ci), "exact (simulated)");
	pmb__change_exact(po, pn, ch);
	if (!isfinite(po) || !isfinite(pn))
		ch->est = NAN;
	else if (ch->ratio)
		snprintf(c->ratio, sizeof(c->ratio), "%.6g", ch->est);
	else
		snprintf(c->ci, sizeof(c->ci), "exact diff %+.6g", ch->est);
}

/* The change from the spread between runs (repetitions) on both sides:
 * each run's value is one observation, so drift between processes is in
 * the interval.  Returns 0, or -1 when a side has fewer than two values
 * or there is no interval. */
static int by_runs(const struct pmb_results_bench *bo,
		   const struct pmb_results_bench *bn, const char *key,
		   uint64_t seed, struct cells *c, struct pmb_change *ch)
{
	if (pmb__compare_between(bo, bn, key, !below_resolution(bo, key), seed, ch))
		return -1;
	change_cells(ch, c);
	return 0;
}

/* Compare one figure of one benchmark; add its row.  Lower is better for
 * every per-item figure (time and counts alike). */
static int compare_figure(struct report *ro, struct report *rn,
			  const struct pmb_results_bench *bo,
			  const struct pmb_results_bench *bn,
			  const char *key, double thr, struct pmb__table *t,
			  enum pmb_verdict *v)
{
	struct vec x = { 0 }, y = { 0 };
	struct cells c = { .ratio = "-", .p = "-" };
	struct pmb_change ch;
	double po = NAN, pn = NAN;
	int err;

	err = pmb__compare_point(bo, key, &po);
	if (!err)
		err = pmb__compare_point(bn, key, &pn);
	if (!err)
		err = figure_samples(ro, bo, key, &x);
	if (!err)
		err = figure_samples(rn, bn, key, &y);
	if (err)
		goto out;
	if (ro->exact)
		by_exact(po, pn, &c, &ch);
	else if (bo->nrun >= 2 && bn->nrun >= 2 &&
	    !by_runs(bo, bn, key, fnv1a(bo->name, key), &c, &ch))
		; /* repetitions on both sides: the noise between runs */
	else if (x.n >= MIN_SAMPLES && y.n >= MIN_SAMPLES)
		err = by_samples(ro, bo, key, &x, &y,
				 ro->drift + pmb__compare_off_cpu(bo, bn, key), &po, &pn, &c, &ch);
	else
		by_points(po, pn, !below_resolution(bo, key), ro->drift, &c, &ch);
	if (err)
		goto out;
	/* Two figures that neither run resolved are both zero within their
	 * resolution: a difference between them is not a change. */
	if (below_resolution(bo, key) && below_resolution(bn, key)) {
		ch.below_both = true;
		snprintf(c.ci, sizeof(c.ci), "both below resolution");
	}
	/* The verdict ab gives the same change (analysis_verdict.c). */
	*v = pmb__verdict(&ch, thr, c.word, sizeof(c.word));
	pmb__compare_fmt_value(c.old, sizeof(c.old), po);
	pmb__compare_fmt_value(c.new, sizeof(c.new), pn);
	err = table_add(t, (const char *const[NCOL]){
		bo->name, key, c.old, c.new, c.ratio, c.ci, c.p, c.word });
out:
	free(x.v);
	free(y.v);
	return err;
}

static int load(struct report *r, const char *path)
{
	char err[256];
	int ret;

	r->path = path;
	ret = pmb__results_read(path, &r->res, err, sizeof(err));
	if (ret)
		out_line(stderr, "pmubench compare: %s: %s", path, err);
	return ret;
}

struct compare_options {
	double threshold;  /* a fraction */
	double drift;      /* a fraction */
	bool help;
};

static const struct pmb_optdef compare_options[] = {
	{ .name = "--threshold", .kind = PMB_OPT_PERCENT,
	  .value = PMB_OPT_AT(struct compare_options, threshold), .meta = "=PCT",
	  .help = "improved or regressed only where the 95% interval\nlies beyond PCT percent (default 1)" },
	{ .name = "--drift", .kind = PMB_OPT_PERCENT,
	  .value = PMB_OPT_AT(struct compare_options, drift), .meta = "=PCT",
	  .help = "drift between two runs assumed where a benchmark\nhas one run in a file: its interval is widened\nby PCT percent (default 5; 0 on a quiet machine)" },
	{ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP,
	  .given = PMB_OPT_AT(struct compare_options, help), .help = "print this help and exit" },
};
#define NCOMPARE_OPTIONS (sizeof(compare_options) / sizeof(compare_options[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: pmubench compare [--threshold=PCT] [--drift=PCT] "
		   "OLD.json NEW.json\n");
}

/* The options and the two files.  Returns 0, 1 after --help, or -EINVAL
 * with the error said. */
static int parse_args(int argc, char **argv, double *thr, double *drift,
		      const char **files)
{
	struct compare_options o = { .threshold = *thr, .drift = *drift };
	char err[512];
	int first, ret;

	ret = pmb__options_parse(compare_options, NCOMPARE_OPTIONS, argc, argv, &o, &first, err,
				sizeof(err));
	if (ret < 0) {
		out_line(stderr, "pmubench compare: %s", err);
		return ret;
	}
	if (ret > 0) {
		usage(stdout);
		pmb__options_help(compare_options, NCOMPARE_OPTIONS, stdout);
		return 1;
	}
	if (argc - first != 2) {
		fprintf(stderr, "pmubench compare: %s (usage: pmubench compare [--threshold=PCT] [--drift=PCT] "
			"OLD.json NEW.json)\n", argc - first > 2 ? "more than two files" : "need two files");
		return -EINVAL;
	}
	files[0] = argv[first];
	files[1] = argv[first + 1];
	*thr = o.threshold;
	*drift = o.drift;
	return 0;
}

/* The rows of one benchmark in both files; verdicts counted in counts. */
static int compare_bench(struct report *ro, struct report *rn,
			 const struct pmb_results_bench *bo,
			 const struct pmb_results_bench *bn, double thr,
			 struct pmb__table *t, size_t counts[PMB_VERDICT_COUNT])
{
	const char **fig;
	size_t k, nfig;
	enum pmb_verdict v;
	int err;

	if (!bo->nrun || !bn->nrun) {
		counts[PMB_VERDICT_NONE]++;
		return table_add(t, (const char *const[NCOL]){
			bo->name, "-", "-", "-", "-",
			!bo->nrun ? "not run in old" : "not run in new",
			"-", "-" });
	}
	err = list_figures(bo, bn, &fig, &nfig);
	if (err)
		return err;
	for (k = 0; k < nfig && !err; k++) {
		err = compare_figure(ro, rn, bo, bn, fig[k], thr, t, &v);
		if (!err)
			counts[v]++;
	}
	free(fig);
	return err;
}

/* Benchmarks of a that b has not, listed as `what`. */
static void list_missing(const struct pmb_results *a,
			 const struct pmb_results *b, const char *what)
{
	for (size_t i = 0; i < a->nbench; i++)
		if (!pmb__results_find(b, a->bench[i].name))
			out_line(stdout, "%s: %s", what, a->bench[i].name);
}

/* The table of every benchmark in both files: a first row of column
 * titles (printed as a row, with no rule under it), then the rows of each
 * benchmark in the old file's order; verdicts counted in counts. */
static int compare_all(struct report *ro, struct report *rn,
		       struct pmb__table *t, double thr, size_t counts[PMB_VERDICT_COUNT])
{
	int ret;

	t->ncol = NCOL;
	memcpy(t->left, col_left, sizeof(col_left));
	ret = table_add(t, (const char *const[NCOL]){
		"benchmark", "figure", "old", "new", "new/old", "95% CI", "p",
		"verdict" });
	for (size_t i = 0; i < ro->res->nbench && !ret; i++) {
		const struct pmb_results_bench *bo = &ro->res->bench[i];
		const struct pmb_results_bench *bn =
			pmb__results_find(rn->res, bo->name);

		if (bn)
			ret = compare_bench(ro, rn, bo, bn, thr, t, counts);
	}
	return ret;
}

/* Say why the comparison stopped: out of memory, or a figure of one file
 * that could not be computed. */
static void say_failed(int ret, const struct report *ro,
		       const struct report *rn)
{
	if (ret == -ENOMEM)
		fprintf(stderr, "pmubench compare: %s\n", strerror(ENOMEM));
	else
		out_line(stderr, "pmubench compare: %s: %s",
			ro->err[0] ? ro->path : rn->path,
			ro->err[0] ? ro->err : rn->err);
}

int pmb__compare_main(int argc, char **argv)
{
	struct report ro = { 0 }, rn = { 0 };
	const char *files[2] = { NULL, NULL };
	struct pmb__table t = { 0 };
	size_t counts[PMB_VERDICT_COUNT] = { 0 };
	double thr = 0.01, drift = 0.05;
	int ret;

	ret = parse_args(argc, argv, &thr, &drift, files);
	if (ret) /* a mistake said on one line, its fix in it */
		return ret > 0 ? 0 : 2;
	if (load(&ro, files[0]) || load(&rn, files[1])) {
		ret = 2;
		goto out;
	}
	out_line(stdout, "comparing %s (old) with %s (new); threshold %g %%",
	       files[0], files[1], thr * 100);
	drift = pmb__compare_notes(ro.res, rn.res, drift);
	ro.drift = rn.drift = drift;
	ro.exact = rn.exact = pmb__compare_simulated(ro.res, rn.res);
	if (ro.exact)
		printf("simulated counts are exact: the ratio is the change, with no interval "
		       "and no test\n");
	ret = compare_all(&ro, &rn, &t, thr, counts);
	if (ret) {
		say_failed(ret, &ro, &rn);
		ret = 2;
		goto out;
	}
	pmb__table_print(stdout, &t);
	list_missing(ro.res, rn.res, "removed");
	list_missing(rn.res, ro.res, "added");
	/* Every row counted: those with verdict "-" (not run on one side, no
	 * point value to compare) too. */
	pmb__compare_counts(counts, ro.exact, 0);
	ret = counts[PMB_VERDICT_REGRESSED] ? 1 : 0;
out:
	pmb__table_free(&t);
	pmb__results_free(ro.res);
	pmb__results_free(rn.res);
	return ret;
}
