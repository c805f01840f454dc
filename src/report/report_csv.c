/* report_csv.c - results as CSV: one row per result, one column per figure (RFC 4180 quoting). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_fmt.h"

void pmb__csv_field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

void pmb__csv_num(FILE *f, double v, bool ok)
{
	char buf[40];
	int prec;

	if (ok && isfinite(v)) {
		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		fputs(buf, f);
	}
	fputc(',', f);
}

static void unum(FILE *f, uint64_t v, bool ok)
{
	if (ok)
		fprintf(f, "%" PRIu64, v);
	fputc(',', f);
}

/* Same key as the JSON report: [A-Za-z0-9_] only. */
static void event_column(FILE *f, const char *name)
{
	for (; *name; name++) {
		char c = *name;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		fputc(ok ? c : '_', f);
	}
	fputs("_per_item,", f);
}

/* The labels of one row, built up to a field's worth (longer is cut). */
struct label_buf {
	char s[512];
	size_t len; /* as if nothing were cut: past sizeof(s) once full */
};

static void __attribute__((format(printf, 2, 3)))
label_add(struct label_buf *b, const char *fmt, ...)
{
	bool room = b->len < sizeof(b->s);
	va_list ap;

	va_start(ap, fmt);
	b->len += (size_t)vsnprintf(room ? b->s + b->len : NULL,
				    room ? sizeof(b->s) - b->len : 0, fmt, ap);
	va_end(ap);
}

/* Why event e's figure of r is flagged, or NULL. */
static const char *event_label(const struct pmb_context *c,
			       const struct pmb_result *r, int e)
{
	const struct pmb_figure *g = &r->f.ev[e];

	if (g->multiplexed == -1)
		return "never_ran";
	if (g->multiplexed == 1)
		return "multiplexed";
	if (g->valid && g->below_resolution)
		return "below_resolution";
	if (c->m.event_group[e] < 0)
		return "not_counted";
	return NULL;
}

/* "name:what", the name keyed as in the column header. */
static void label_event(struct label_buf *b, const char *name, const char *what)
{
	const char *p;

	label_add(b, "%s", b->len ? ";" : "");
	for (p = name; *p && b->len < sizeof(b->s); p++)
		label_add(b, "%c", (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				   (*p >= '0' && *p <= '9') ? *p : '_');
	label_add(b, ":%s", what);
}

static void labels_of_run(struct label_buf *b, const struct pmb_context *c,
			  const struct pmb_result *r)
{
	bool sim = pmb_context_sim(c);
	int e;

	if (sim)
		label_add(b, "%ssimulated", b->len ? ";" : "");
	if (r->f.time.valid && r->f.time.below_resolution && !sim)
		label_add(b, "%sns:below_resolution", b->len ? ";" : "");
	for (e = 0; e < c->m.plan.nev; e++) {
		const char *what = event_label(c, r, e);

		if (what)
			label_event(b, c->m.plan.ev[e].name, what);
	}
	if (r->f.est_cycles.valid && r->f.est_cycles.estimated)
		label_add(b, "%sest_cycles:estimated", b->len ? ";" : "");
}

/* How each figure of the row was obtained, so a CSV reader sees what the
 * console and JSON say: "cycles:multiplexed;l1d_misses:never_ran;
 * est_cycles:estimated;ns:below_resolution;simulated". */
static void labels(FILE *f, const struct pmb_context *c, const struct pmb_result *r)
{
	struct label_buf b = { .len = 0 };

	if (r->m.status == 0)
		labels_of_run(&b, c, r);
	if (b.len >= sizeof(b.s))
		b.s[sizeof(b.s) - 1] = 0;
	pmb__csv_field(f, b.s, false);
}

/* The time columns; empty where time was not measured (t false). */
static void time_columns(FILE *f, const struct pmb_result *r, bool t)
{
	/* Below resolution: zero within what was resolved, never negative. */
	double z = r->f.time.below_resolution ? 0 : -INFINITY;

	pmb__csv_num(f, fmax(r->f.time.s.median, z), t);
	pmb__csv_num(f, fmax(r->f.time.s.mean, z), t);
	pmb__csv_num(f, fmax(r->f.time.s.min, z), t);
	pmb__csv_num(f, fmax(r->f.time.s.ci_lo, z), t);
	pmb__csv_num(f, fmax(r->f.time.s.ci_hi, z), t);
	pmb__csv_num(f, r->f.time.s.stddev, t);
	pmb__csv_num(f, r->f.time.s.mdape, t);
	unum(f, (uint64_t)(r->f.time.s.tukey.mild_low + r->f.time.s.tukey.mild_high), t);
	unum(f, (uint64_t)(r->f.time.s.tukey.severe_low + r->f.time.s.tukey.severe_high), t);
	/* A difference from the baseline may rightly be negative. */
	pmb__csv_num(f, r->f.time.normalized, t);
	pmb__csv_num(f, r->f.time.ratio, t && isfinite(r->f.time.ratio));
	pmb__csv_num(f, r->f.time.ratio_lo, t && isfinite(r->f.time.ratio));
	pmb__csv_num(f, r->f.time.ratio_hi, t && isfinite(r->f.time.ratio));
}

/* The figure that stands for the cost (time, or under sim the
 * instructions): its name, baseline and reference figures with their
 * intervals and the reasons where one is not given (pmubench(3)), its
 * fixed cost per sample. */
static void cost_columns(FILE *f, const struct pmb_context *c, const struct pmb_result *r, bool ok)
{
	const struct pmb_figure *g = pmb__cost_figure(c, r);
	char why[96];
	bool v = ok && g->valid;
	bool ratio = v && (isfinite(g->ratio) || g->ratio_why);

	pmb__csv_field(f, !v ? "" : g == &r->f.time ? "ns" : c->m.plan.ev[c->f.cost_event].name, false);
	pmb__csv_num(f, g->normalized, v);
	pmb__csv_num(f, g->normalized_lo, v);
	pmb__csv_num(f, g->normalized_hi, v);
	pmb__csv_num(f, g->ratio, v);
	pmb__csv_num(f, g->ratio_lo, v);
	pmb__csv_num(f, g->ratio_hi, v);
	pmb__csv_field(f, !ratio ? "" : g->ratio_normalized ? "normalized" : "raw", false);
	pmb__csv_num(f, g->raw_ratio, v);
	pmb__csv_num(f, g->raw_ratio_lo, v);
	pmb__csv_num(f, g->raw_ratio_hi, v);
	pmb__csv_num(f, g->fixed, v);
	pmb__csv_num(f, g->fixed_lo, v);
	pmb__csv_num(f, g->fixed_hi, v);
	pmb__csv_num(f, g->fixed_share, v);
	pmb__csv_field(f, !v ? "" : g->fixed_flagged ? "1" : "0", false);
	snprintf(why, sizeof(why), "%s%s%s%s%s", g->normalized_why ? "normalized: " : "",
		 g->normalized_why ? g->normalized_why : "", g->normalized_why && g->ratio_why ? "; " : "",
		 g->ratio_why ? "ratio: " : "", g->ratio_why ? g->ratio_why : "");
	pmb__csv_field(f, v ? why : "", false);
}

/* Per item counts of each event, estimated cycles, and derived figures. */
static void count_columns(FILE *f, const struct pmb_context *c,
			  const struct pmb_result *r, bool ok)
{
	int e;

	for (e = 0; e < c->m.plan.nev; e++)
		pmb__csv_num(f, fmax(r->f.ev[e].s.median, r->f.ev[e].below_resolution ? 0 : -INFINITY),
		    ok && r->f.ev[e].valid && r->f.ev[e].multiplexed != -1);
	pmb__csv_num(f, fmax(r->f.est_cycles.s.median, r->f.est_cycles.below_resolution ? 0 : -INFINITY),
	    ok && r->f.est_cycles.valid);
	for (e = 0; e < c->m.plan.nder; e++)
		pmb__csv_num(f, r->f.derived[e], ok && isfinite(r->f.derived[e]) && r->f.derived[e] >= 0);
}

static void write_row(FILE *f, const struct pmb_context *c,
		      const struct pmb_result *r)
{
	const struct pmb_instance *in = r->m.inst;
	bool ok = r->m.status == 0;
	bool t = ok && r->f.time.valid && !pmb_context_sim(c);
	pmb__csv_field(f, in->name, false);
	pmb__csv_field(f, in->tier, false);
	unum(f, in->working_set, in->tier[0]);
	unum(f, r->m.nsamples, ok);
	unum(f, r->f.passes, ok);
	unum(f, r->m.items_per_pass, ok);
	time_columns(f, r, t);
	cost_columns(f, c, r, ok);
	unum(f, (uint64_t)r->m.repetition, r->m.repetition >= 0);
	/* Spread of the repetitions' time medians: no time, no spread. */
	pmb__csv_num(f, r->f.rep_spread, t);
	unum(f, r->m.seed, true); /* a skipped run's inputs had a seed too */
	pmb__csv_num(f, r->f.items_per_second, t);
	pmb__csv_num(f, r->f.bytes_per_second, t && r->m.bytes_per_pass);
	count_columns(f, c, r, ok);
	labels(f, c, r);
	pmb__csv_field(f, ok ? "" : r->m.reason, false);
	pmb__csv_field(f, r->m.status == 0 ? "ok" :
		 r->m.status == PMB_ESKIPPED ? "skipped" : "failed", true);
}

int pmb__report_csv(FILE *f, const struct pmb_context *c,
		   const struct pmb_result *r, size_t n)
{
	size_t i;
	int e;

	fputs("name,tier,working_set_bytes,samples,passes,items_per_pass,"
	      "ns_per_item,ns_per_item_mean,ns_per_item_min,ns_per_item_ci_lo,"
	      "ns_per_item_ci_hi,ns_per_item_stddev,ns_per_item_mdape,"
	      "outliers_mild,outliers_severe,ns_per_item_normalized,"
	      "ns_per_item_ratio,ns_per_item_ratio_ci_lo,ns_per_item_ratio_ci_hi,"
	      "cost_figure,cost_normalized,cost_normalized_ci_lo,cost_normalized_ci_hi,"
	      "cost_ratio,cost_ratio_ci_lo,cost_ratio_ci_hi,cost_ratio_basis,"
	      "cost_raw_ratio,cost_raw_ratio_ci_lo,cost_raw_ratio_ci_hi,"
	      "cost_fixed_per_sample,cost_fixed_ci_lo,cost_fixed_ci_hi,cost_fixed_share,"
	      "cost_fixed_flagged,cost_why,"
	      "repetition,repetition_spread,seed,"
	      "items_per_second,bytes_per_second,", f);
	for (e = 0; e < c->m.plan.nev; e++)
		event_column(f, c->m.plan.ev[e].name);
	fputs("est_cycles_per_item,", f);
	/* Derived figures (ipc, mpki, ...) by their plan names, as in JSON. */
	for (e = 0; e < c->m.plan.nder; e++) {
		pmb__csv_field(f, c->m.plan.der[e].name, false);
	}
	fputs("labels,reason,status\n", f);
	for (i = 0; i < n; i++)
		write_row(f, c, &r[i]);
	/* Last, so the header stays the first line for the tools that read
	 * the rows. */
	if (c->m.incomplete[0])
		fprintf(f, "# incomplete: %s\n", c->m.incomplete);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
