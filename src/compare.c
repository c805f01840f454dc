/* compare.c - `pmubench compare OLD NEW`: per-figure change, bootstrap CI, U test, verdict. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json_read.h"
#include "pmubench.h"
#include "stats.h"

#define CONF 0.95
#define RESAMPLES 2000
/* Fewer samples than this on a side: compare the point values only. */
#define MIN_SAMPLES 3

enum verdict { V_NOISE, V_IMPROVED, V_REGRESSED, V_NONE };

static const char *const verdict_name[] = {
	[V_NOISE] = "within noise",
	[V_IMPROVED] = "improved",
	[V_REGRESSED] = "regressed",
	[V_NONE] = "-",
};

struct vec {
	double *v;
	size_t n, cap;
};

/* One benchmark name of one file: its iteration runs (repetitions). */
struct bench {
	const char *name;
	const struct pmb_json **run;
	size_t nrun;
	bool failed;   /* every run skipped or failed */
	bool matched;
};

struct report {
	const char *path;
	struct pmb_json *root;
	const struct pmb_json *ctx;
	struct bench *b;
	size_t nb;
};

#define NCOL 8

struct row {
	char cell[NCOL][208];
};

struct table {
	struct row *r;
	size_t n, cap;
};

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

/* A run that measured nothing: pmubench's status, Google Benchmark's
 * error_occurred. */
static bool run_failed(const struct pmb_json *o)
{
	const char *st = pmb_json_get_string(o, "status");

	if (st && strcmp(st, "ok"))
		return true;
	return pmb_json_true(pmb_json_get(o, "error_occurred"));
}

static struct bench *find_bench(struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nb; i++)
		if (!strcmp(r->b[i].name, name))
			return &r->b[i];
	return NULL;
}

/* Group the iteration runs of a report by name (aggregates of Google
 * Benchmark's --benchmark_repetitions are left out: they are not runs). */
static int index_report(struct report *r, char *err, size_t errlen)
{
	const struct pmb_json *arr = pmb_json_get(r->root, "benchmarks");
	size_t i;

	if (!arr || arr->type != PMB_JSON_ARRAY) {
		snprintf(err, errlen, "no \"benchmarks\" array");
		return PMB_EBADJSON;
	}
	r->ctx = pmb_json_get(r->root, "context");
	r->b = calloc(arr->n ? arr->n : 1, sizeof(*r->b));
	if (!r->b) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < arr->n; i++) {
		const struct pmb_json *o = arr->items[i];
		const char *name = pmb_json_get_string(o, "name");
		const char *type = pmb_json_get_string(o, "run_type");
		const struct pmb_json **nr;
		struct bench *b;

		if (!name) {
			snprintf(err, errlen, "benchmark %zu has no \"name\"",
				 i);
			return PMB_EBADJSON;
		}
		if (type && !strcmp(type, "aggregate"))
			continue;
		b = find_bench(r, name);
		if (!b) {
			b = &r->b[r->nb++];
			b->name = name;
			b->failed = true;
		}
		nr = realloc(b->run, (b->nrun + 1) * sizeof(*nr));
		if (!nr) {
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		b->run = nr;
		if (!run_failed(o)) {
			b->run[b->nrun++] = o;
			b->failed = false;
		}
	}
	return 0;
}

/* Number at context.a.b, or dflt. */
static double ctx_number(const struct report *r, const char *a, const char *b,
			 double dflt)
{
	double x;

	return pmb_json_get_number(pmb_json_get(r->ctx, a), b, &x) ? x : dflt;
}

/* Per-item samples of time from one run: the written per-item values, or
 * recomputed from the raw samples and the context's harness overhead. */
static int time_samples(const struct report *r, const struct pmb_json *run,
			struct vec *out)
{
	const struct pmb_json *s = pmb_json_get(run, "ns_per_item_samples");
	const struct pmb_json *raw = pmb_json_get(run, "raw_samples");
	const struct pmb_json *ns = pmb_json_get(raw, "ns");
	const struct pmb_json *passes = pmb_json_get(raw, "passes");
	double ipp, pp, ps, x, p;
	size_t i;

	if (s && s->type == PMB_JSON_ARRAY) {
		for (i = 0; i < s->n; i++)
			if (pmb_json_number(s->items[i], &x) &&
			    vec_push(out, x))
				return -ENOMEM;
		return 0;
	}
	if (!ns || !passes || !pmb_json_get_number(run, "items_per_pass", &ipp))
		return 0;
	pp = ctx_number(r, "harness_overhead", "ns_per_pass", 0);
	ps = ctx_number(r, "harness_overhead", "ns_per_sample", 0);
	/* A benchmark's own overhead, measured around it, comes first. */
	pmb_json_get_number(pmb_json_get(run, "harness_overhead"), "ns_per_pass", &pp);
	pmb_json_get_number(pmb_json_get(run, "harness_overhead"), "ns_per_sample", &ps);
	for (i = 0; i < ns->n; i++) {
		if (!pmb_json_number(pmb_json_at(ns, i), &x) ||
		    !pmb_json_number(pmb_json_at(passes, i), &p) ||
		    p * ipp <= 0)
			continue;
		if (vec_push(out, (x - ps - pp * p) / (p * ipp)))
			return -ENOMEM;
	}
	return 0;
}

/* Per-item samples of event `ev` (the key without "_per_item"): raw
 * counts less the harness overhead, over items.  Samples where the event
 * was not read are null and skipped. */
static int event_samples(const struct report *r, const struct pmb_json *run,
			 const char *ev, struct vec *out)
{
	const struct pmb_json *raw = pmb_json_get(run, "raw_samples");
	const struct pmb_json *val = pmb_json_get(raw, ev);
	const struct pmb_json *passes = pmb_json_get(raw, "passes");
	const struct pmb_json *ov;
	double ipp, pp, ps, x, p, ghz;
	size_t i, n0 = out->n;
	int err;

	if (!strcmp(ev, "est_cycles")) {
		/* Estimated cycles are time times the frequency estimate. */
		if (!pmb_json_get_number(r->ctx, "core_ghz_estimate", &ghz))
			return 0;
		err = time_samples(r, run, out);
		for (i = n0; i < out->n; i++)
			out->v[i] *= ghz;
		return err;
	}
	if (!val || val->type != PMB_JSON_ARRAY || !passes ||
	    !pmb_json_get_number(run, "items_per_pass", &ipp))
		return 0;
	ov = pmb_json_get(pmb_json_get(pmb_json_get(run, "harness_overhead"), "events"), ev);
	if (!ov)
		ov = pmb_json_get(pmb_json_get(pmb_json_get(r->ctx, "harness_overhead"),
					       "events"), ev);
	if (!pmb_json_get_number(ov, "per_pass", &pp))
		pp = 0;
	if (!pmb_json_get_number(ov, "per_sample", &ps))
		ps = 0;
	for (i = 0; i < val->n; i++) {
		if (!pmb_json_number(val->items[i], &x) ||
		    !pmb_json_number(pmb_json_at(passes, i), &p) ||
		    p * ipp <= 0)
			continue;
		if (vec_push(out, (x - ps - pp * p) / (p * ipp)))
			return -ENOMEM;
	}
	return 0;
}

/* Samples of figure `key` over every run of b (repetitions pooled). */
static int figure_samples(const struct report *r, const struct bench *b,
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
			err = time_samples(r, b->run[i], out);
		else
			err = event_samples(r, b->run[i], ev, out);
	}
	return err;
}

/* Google Benchmark's time_unit, in ns. */
static double unit_ns(const struct pmb_json *run)
{
	const char *u = pmb_json_get_string(run, "time_unit");

	if (!u || !strcmp(u, "ns"))
		return 1;
	if (!strcmp(u, "us"))
		return 1e3;
	if (!strcmp(u, "ms"))
		return 1e6;
	if (!strcmp(u, "s"))
		return 1e9;
	return NAN;
}

/* The reported value of a figure: median over the runs of b. */
static bool figure_point(const struct bench *b, const char *key, double *out)
{
	double v[64], x;
	size_t i, n = 0;

	for (i = 0; i < b->nrun && n < 64; i++) {
		if (!pmb_json_get_number(b->run[i], key, &x))
			continue;
		if (!strcmp(key, "real_time") || !strcmp(key, "cpu_time"))
			x *= unit_ns(b->run[i]);
		if (isfinite(x))
			v[n++] = x;
	}
	if (!n)
		return false;
	*out = pmb_median(v, n);
	return true;
}

static bool has_number(const struct bench *b, const char *key)
{
	double x;

	return b->nrun && pmb_json_get_number(b->run[0], key, &x);
}

/* Figures to compare: every "*_per_item" number both have (ns first), or
 * Google Benchmark's times where there is no ns_per_item. */
static size_t list_figures(const struct bench *o, const struct bench *n,
			   const char **out, size_t max)
{
	const struct pmb_json *run = o->run[0];
	size_t i, k = 0;

	if (has_number(o, "ns_per_item") && has_number(n, "ns_per_item"))
		out[k++] = "ns_per_item";
	for (i = 0; i < run->n && k < max; i++) {
		const char *key = run->keys[i];

		/* Estimated cycles are time times a constant: one change, not
		 * two, so they get no verdict of their own. */
		if (!strcmp(key, "est_cycles_per_item"))
			continue;
		if (ends_with(key, "_per_item") && strcmp(key, "ns_per_item") &&
		    has_number(o, key) && has_number(n, key))
			out[k++] = key;
	}
	if (!k && !pmb_json_get(run, "time_measured") &&
	    !pmb_json_get(n->run[0], "time_measured")) {
		if (has_number(o, "real_time") && has_number(n, "real_time"))
			out[k++] = "real_time";
		if (has_number(o, "cpu_time") && has_number(n, "cpu_time"))
			out[k++] = "cpu_time";
	}
	return k;
}

static uint64_t fnv1a(const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 0x100000001b3ull;
	h = (h ^ '/') * 0x100000001b3ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 0x100000001b3ull;
	return h;
}

static void fmt_value(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1e4)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

static int table_add(struct table *t, const char *const cell[NCOL])
{
	int i;

	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 32;
		struct row *nr = realloc(t->r, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->r = nr;
		t->cap = nc;
	}
	for (i = 0; i < NCOL; i++)
		snprintf(t->r[t->n].cell[i], sizeof(t->r[t->n].cell[i]), "%s",
			 cell[i]);
	t->n++;
	return 0;
}

/* Whether every run of the benchmark flags the figure (key
 * "<x>_per_item") as below the measurement's resolution. */
static bool below_resolution(const struct bench *b, const char *key)
{
	char flag[160];

	snprintf(flag, sizeof(flag), "%s_below_resolution", key);
	for (size_t i = 0; i < b->nrun; i++) {
		const struct pmb_json *j = pmb_json_get(b->run[i], flag);

		if (!j || !pmb_json_true(j))
			return false;
	}
	return b->nrun > 0;
}

/* Compare one figure of one benchmark; add its row.  Lower is better for
 * every per-item figure (time and counts alike). */
static int compare_figure(const struct report *ro, const struct report *rn,
			  const struct bench *bo, const struct bench *bn,
			  const char *key, double thr, struct table *t,
			  enum verdict *v)
{
	struct vec x = { 0 }, y = { 0 };
	char sold[32], snew[32], sratio[32] = "-", sci[64], sp[32] = "-";
	double po = NAN, pn = NAN, lo, hi, mx, my, p;
	uint64_t seed = fnv1a(bo->name, key);
	int err;

	*v = V_NOISE;
	figure_point(bo, key, &po);
	figure_point(bn, key, &pn);
	err = figure_samples(ro, bo, key, &x);
	if (!err)
		err = figure_samples(rn, bn, key, &y);
	if (err)
		goto out;

	if (x.n >= MIN_SAMPLES && y.n >= MIN_SAMPLES) {
		mx = pmb_median(x.v, x.n);
		my = pmb_median(y.v, y.n);
		if (!isfinite(po))
			po = mx;
		if (!isfinite(pn))
			pn = my;
		p = pmb_mann_whitney(x.v, x.n, y.v, y.n, NULL);
		if (p < 1e-4)
			snprintf(sp, sizeof(sp), "<0.0001");
		else
			snprintf(sp, sizeof(sp), "%.4f", p);
		if (mx > 0 && !pmb_bootstrap_ratio_ci(y.v, y.n, x.v, x.n, CONF,
						      RESAMPLES, seed, &lo,
						      &hi)) {
			snprintf(sratio, sizeof(sratio), "%.3f", my / mx);
			snprintf(sci, sizeof(sci), "[%.3f, %.3f]", lo, hi);
			if (lo > 1 + thr)
				*v = V_REGRESSED;
			else if (hi < 1 - thr)
				*v = V_IMPROVED;
		} else if (!pmb_bootstrap_diff_ci(y.v, y.n, x.v, x.n, CONF,
						  RESAMPLES, seed, &lo, &hi)) {
			/* No ratio to a median of zero or less: the
			 * difference says whether anything moved. */
			snprintf(sci, sizeof(sci), "diff [%+.3g, %+.3g]", lo,
				 hi);
			if (lo > 0)
				*v = V_REGRESSED;
			else if (hi < 0)
				*v = V_IMPROVED;
		} else {
			snprintf(sci, sizeof(sci), "no CI");
		}
	} else {
		/* Point values only: no interval, so the threshold alone
		 * decides, as Google Benchmark's compare.py does. */
		snprintf(sci, sizeof(sci), "no samples");
		if (po > 0 && isfinite(pn)) {
			snprintf(sratio, sizeof(sratio), "%.3f", pn / po);
			if (pn / po > 1 + thr)
				*v = V_REGRESSED;
			else if (pn / po < 1 - thr)
				*v = V_IMPROVED;
		} else if (po != pn) {
			*v = V_NONE;
		}
	}
	/* Two figures that neither run resolved are both zero within their
	 * resolution: a difference between them is not a change. */
	if (below_resolution(bo, key) && below_resolution(bn, key)) {
		*v = V_NOISE;
		snprintf(sci, sizeof(sci), "both below resolution");
	}
	fmt_value(sold, sizeof(sold), po);
	fmt_value(snew, sizeof(snew), pn);
	err = table_add(t, (const char *const[NCOL]){
		bo->name, key, sold, snew, sratio, sci, sp, verdict_name[*v] });
out:
	free(x.v);
	free(y.v);
	return err;
}

static void print_table(const struct table *t)
{
	/* Text columns flush left, numbers flush right. */
	static const bool left[NCOL] = { true, true, false, false, false,
					 true, false, true };
	size_t w[NCOL] = { 0 }, i, k;

	for (i = 0; i < t->n; i++)
		for (k = 0; k < NCOL; k++)
			if (strlen(t->r[i].cell[k]) > w[k])
				w[k] = strlen(t->r[i].cell[k]);
	for (i = 0; i < t->n; i++) {
		for (k = 0; k < NCOL; k++) {
			const char *c = t->r[i].cell[k];

			if (k == NCOL - 1)
				printf("%s\n", c);
			else
				printf(left[k] ? "%-*s  " : "%*s  ", (int)w[k],
				       c);
		}
	}
}

static void note_differs(const struct report *o, const struct report *n,
			 const char *key, const char *what)
{
	const char *a = pmb_json_get_string(o->ctx, key);
	const char *b = pmb_json_get_string(n->ctx, key);

	if (a && b && strcmp(a, b))
		printf("note: the runs differ in %s: \"%s\" vs \"%s\"\n", what,
		       a, b);
}

static int load(struct report *r, const char *path)
{
	char err[256];
	int ret;

	r->path = path;
	ret = pmb_json_parse_file(path, &r->root, err, sizeof(err));
	if (!ret)
		ret = index_report(r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "pmubench compare: %s: %s\n", path, err);
	return ret;
}

static void unload(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nb; i++)
		free(r->b[i].run);
	free(r->b);
	pmb_json_free(r->root);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmubench compare [--threshold=PCT] OLD.json "
		   "NEW.json\n");
}

static int parse_args(int argc, char **argv, double *thr, const char **files)
{
	int i, nf = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (!strncmp(a, "--threshold=", 12))
			val = a + 12;
		else if (!strcmp(a, "--threshold") && i + 1 < argc)
			val = argv[++i];
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "pmubench compare: unknown option "
				"'%s'\n", a);
			return -EINVAL;
		} else if (nf < 2) {
			files[nf++] = a;
			continue;
		} else {
			fprintf(stderr, "pmubench compare: more than two "
				"files\n");
			return -EINVAL;
		}
		errno = 0;
		*thr = strtod(val, &end);
		if (*end == '%')
			end++;
		if (end == val || *end || errno || !(*thr >= 0) ||
		    !(*thr < 100)) {
			fprintf(stderr, "pmubench compare: bad threshold "
				"'%s' (a percentage, 0 to 100)\n", val);
			return -EINVAL;
		}
		*thr /= 100;
	}
	if (nf != 2) {
		fprintf(stderr, "pmubench compare: need two files\n");
		return -EINVAL;
	}
	return 0;
}

int pmb_compare_main(int argc, char **argv)
{
	struct report ro = { 0 }, rn = { 0 };
	const char *files[2] = { NULL, NULL };
	struct table t = { 0 };
	size_t i, k, nfig, counts[4] = { 0 };
	const char *fig[64];
	double thr = 0.01;
	int ret;

	ret = parse_args(argc, argv, &thr, files);
	if (ret) {
		usage(ret > 0 ? stdout : stderr);
		return ret > 0 ? 0 : 2;
	}
	if (load(&ro, files[0]) || load(&rn, files[1])) {
		ret = 2;
		goto out;
	}
	printf("comparing %s (old) with %s (new); threshold %g %%\n",
	       files[0], files[1], thr * 100);
	note_differs(&ro, &rn, "host_name", "host");
	note_differs(&ro, &rn, "backend", "backend");
	note_differs(&ro, &rn, "governor", "governor");
	if (table_add(&t, (const char *const[NCOL]){
		    "benchmark", "figure", "old", "new", "new/old", "95% CI",
		    "p", "verdict" }))
		goto nomem;
	for (i = 0; i < ro.nb; i++) {
		struct bench *bo = &ro.b[i], *bn = find_bench(&rn, bo->name);

		if (!bn)
			continue;
		bo->matched = bn->matched = true;
		if (bo->failed || bn->failed) {
			if (table_add(&t, (const char *const[NCOL]){
				    bo->name, "-", "-", "-", "-",
				    bo->failed ? "not run in old" :
						 "not run in new",
				    "-", "-" }))
				goto nomem;
			continue;
		}
		nfig = list_figures(bo, bn, fig, sizeof(fig) / sizeof(fig[0]));
		for (k = 0; k < nfig; k++) {
			enum verdict v;

			if (compare_figure(&ro, &rn, bo, bn, fig[k], thr, &t,
					   &v))
				goto nomem;
			counts[v]++;
		}
	}
	print_table(&t);
	for (i = 0; i < ro.nb; i++)
		if (!ro.b[i].matched)
			printf("removed: %s\n", ro.b[i].name);
	for (i = 0; i < rn.nb; i++)
		if (!rn.b[i].matched)
			printf("added: %s\n", rn.b[i].name);
	printf("%zu regressed, %zu improved, %zu within noise\n",
	       counts[V_REGRESSED], counts[V_IMPROVED], counts[V_NOISE]);
	ret = counts[V_REGRESSED] ? 1 : 0;
	goto out;
nomem:
	fprintf(stderr, "pmubench compare: %s\n", strerror(ENOMEM));
	ret = 2;
out:
	free(t.r);
	unload(&ro);
	unload(&rn);
	return ret;
}
