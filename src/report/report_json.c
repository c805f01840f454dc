/* report_json.c - results as JSON in Google Benchmark's schema, plus pmubench's own keys (one benchmark here). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "report.h"
#include "report_json_internal.h"

/* v and its interval under prefix + what (+ "_ci_lo", "_ci_hi"), or the
 * reason it is not given (prefix + what + "_why"); nothing where neither. */
static void write_ci(struct pmb__jw *w, const char *prefix, const char *what, double v, double lo, double hi,
		     const char *why)
{
	char k[128], kk[160];

	pmb__json_keyf(k, sizeof(k), prefix, what);
	if (!isfinite(v)) {
		snprintf(kk, sizeof(kk), "%s_why", k);
		if (why)
			pmb__jw_str(w, kk, why);
		return;
	}
	pmb__jw_num(w, k, v);
	if (!isfinite(lo) || !isfinite(hi))
		return;
	snprintf(kk, sizeof(kk), "%s_ci_lo", k);
	pmb__jw_num(w, kk, lo);
	snprintf(kk, sizeof(kk), "%s_ci_hi", k);
	pmb__jw_num(w, kk, hi);
}

/* Baseline and reference figures (pmubench(3) "Baselines and
 * references"): normalized, the ratio and its basis, the raw ratio. */
static void write_links(struct pmb__jw *w, const char *prefix, const struct pmb_figure *fg)
{
	char k[128];

	write_ci(w, prefix, "_per_item_normalized", fg->normalized, fg->normalized_lo, fg->normalized_hi,
		 fg->normalized_why);
	write_ci(w, prefix, "_per_item_ratio", fg->ratio, fg->ratio_lo, fg->ratio_hi, fg->ratio_why);
	if (isfinite(fg->ratio) || fg->ratio_why) {
		pmb__json_keyf(k, sizeof(k), prefix, "_per_item_ratio_basis");
		pmb__jw_str(w, k, fg->ratio_normalized ? "normalized" : "raw");
	}
	write_ci(w, prefix, "_per_item_raw_ratio", fg->raw_ratio, fg->raw_ratio_lo, fg->raw_ratio_hi,
		 fg->raw_ratio_why);
}

/* The fixed cost per sample of a figure under prefix: the estimate and
 * its interval, its share of a sample, whether it is flagged, the robust
 * fit's estimate beside it. */
static void json_fixed(struct pmb__jw *w, const char *prefix, const struct pmb_figure *fg)
{
	char k[128];

	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_per_sample");
	pmb__jw_num(w, k, fg->fixed);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_ci_lo");
	pmb__jw_num(w, k, fg->fixed_lo);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_ci_hi");
	pmb__jw_num(w, k, fg->fixed_hi);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_share");
	pmb__jw_num(w, k, fg->fixed_share);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_flagged");
	pmb__jw_bool(w, k, fg->fixed_flagged);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_two_point");
	pmb__jw_num(w, k, fg->fixed_two_point);
	pmb__json_keyf(k, sizeof(k), prefix, "_fixed_fit");
	pmb__jw_num(w, k, fg->fixed_fit);
}

/* median, CI and the flags of one figure under `prefix` (e.g. "ns"). */
static void write_figure(struct pmb__jw *w, const char *prefix,
			 const struct pmb_figure *fg, bool sim)
{
	char k[128];

	/* Below resolution the figure is zero within what was resolved:
	 * never a negative number (the flag and the resolution say which),
	 * while the raw samples keep what the subtraction left. */
	double lo0 = fg->below_resolution ? 0 : -INFINITY;

	pmb__json_keyf(k, sizeof(k), prefix, "_per_item");
	pmb__jw_num(w, k, fmax(fg->s.median, lo0));
	pmb__json_keyf(k, sizeof(k), prefix, "_per_item_ci_lo");
	pmb__jw_num(w, k, fmax(fg->s.ci_lo, lo0));
	pmb__json_keyf(k, sizeof(k), prefix, "_per_item_ci_hi");
	pmb__jw_num(w, k, fmax(fg->s.ci_hi, lo0));
	if (fg->below_resolution) {
		pmb__json_keyf(k, sizeof(k), prefix, "_per_item_below_resolution");
		pmb__jw_bool(w, k, true);
		pmb__json_keyf(k, sizeof(k), prefix, "_per_item_resolution");
		pmb__jw_num(w, k, fg->resolution);
	}
	write_links(w, prefix, fg);
	if (sim || fg->simulated) {
		pmb__json_keyf(k, sizeof(k), prefix, "_simulated");
		pmb__jw_bool(w, k, true);
	}
}

static void write_time(struct pmb__jw *w, const struct pmb_result *r)
{
	const struct pmb_figure *t = &r->f.time;
	const struct pmb_summary *s = &t->s;

	double z = t->below_resolution ? 0 : -INFINITY; /* never negative */

	write_figure(w, "ns", t, false);
	pmb__jw_num(w, "ns_per_item_mean", fmax(s->mean, z));
	pmb__jw_num(w, "ns_per_item_min", fmax(s->min, z));
	pmb__jw_num(w, "ns_per_item_max", fmax(s->max, z));
	pmb__jw_num(w, "ns_per_item_stddev", s->stddev);
	pmb__jw_num(w, "ns_per_item_mdape", s->mdape);
	json_fixed(w, "ns", t);
	pmb__jw_int(w, "outliers_mild", s->tukey.mild_low + s->tukey.mild_high);
	pmb__jw_int(w, "outliers_severe",
	       s->tukey.severe_low + s->tukey.severe_high);
	pmb__jw_bool(w, "multimodal", s->multimodal);
}

static void write_events(struct pmb__jw *w, const struct pmb_context *c,
			 const struct pmb_result *r)
{
	const struct pmb_event_plan *pl = &c->m.plan;
	char name[80], k[128];
	int e;

	for (e = 0; e < pl->nev; e++) {
		const struct pmb_figure *fg = &r->f.ev[e];

		pmb__json_key(name, sizeof(name), pl->ev[e].name);
		if (fg->multiplexed == -1) {
			pmb__json_keyf(k, sizeof(k), name, "_never_ran");
			pmb__jw_bool(w, k, true);
			continue;
		}
		/* Asked for and not counted: a null figure and why, never
		 * absent (issue 26), where the console shows it n/a too. */
		if (!fg->valid && c->m.event_group[e] < 0 && pmb_context_absent_shown(c, e)) {
			pmb__json_keyf(k, sizeof(k), name, "_per_item");
			pmb__jw_null(w, k);
			pmb__json_keyf(k, sizeof(k), name, "_not_counted");
			pmb__jw_str(w, k, c->m.event_why[e]);
			continue;
		}
		if (!fg->valid)
			continue;
		write_figure(w, name, fg, pmb_context_sim(c));
		pmb__json_keyf(k, sizeof(k), name, "_multiplexed");
		pmb__jw_bool(w, k, fg->multiplexed == 1);
		/* Exact counts under sim: their fixed cost is exact too. */
		if (pmb_context_sim(c))
			json_fixed(w, name, fg);
	}
	if (r->f.est_cycles.valid) { /* made only where no cycles count (analysis.c) */
		write_figure(w, "est_cycles", &r->f.est_cycles, false);
		pmb__jw_bool(w, "est_cycles_estimated", true);
	}
	for (e = 0; e < pl->nder; e++) {
		/* Derived from medians of per-item figures, which may sit
		 * just under zero where an event is below resolution: a
		 * negative ratio or rate is no figure at all. */
		if (!isfinite(r->f.derived[e]) || r->f.derived[e] < 0)
			continue;
		pmb__jw_num(w, pl->der[e].name, r->f.derived[e] + 0.0); /* -0 as 0 */
		/* What the console gives instead of the value: nothing over a
		 * denominator that is not resolved, the bound over a numerator
		 * below resolution. */
		if (r->f.derived_given[e] == PMB_DERIVED_DEN_LOW) {
			pmb__json_keyf(k, sizeof(k), pl->der[e].name, "_denominator_below_resolution");
			pmb__jw_bool(w, k, true);
		} else if (r->f.derived_given[e] == PMB_DERIVED_BOUND) {
			pmb__json_keyf(k, sizeof(k), pl->der[e].name, "_below_resolution");
			pmb__jw_bool(w, k, true);
			pmb__json_keyf(k, sizeof(k), pl->der[e].name, "_upper_bound");
			pmb__jw_num(w, k, r->f.derived_bound[e]);
		}
		if (pmb_context_sim(c)) {
			pmb__json_keyf(k, sizeof(k), pl->der[e].name, "_simulated");
			pmb__jw_bool(w, k, true);
		}
	}
}

/* The samples as taken, so that compare can test two runs against each
 * other (Mann-Whitney) and recompute anything. */
/* Samples' totals under key: passes, ns, group as measured, and per event
 * that a sample read its counts scaled to their enabled time, as the
 * analysis made them (ev[e]: NULL where no sample read e; NAN, written
 * null, where a sample did not read it or its group never ran). */
static void write_samples(struct pmb__jw *w, const char *key, const struct pmb_event_plan *pl,
			  const struct pmb_sample *smp, size_t n, double *const *ev)
{
	char name[80];
	size_t i;
	int e;

	pmb__jw_open(w, key, '{', false);
	pmb__jw_open(w, "passes", '[', true);
	for (i = 0; i < n; i++)
		pmb__jw_uint(w, NULL, smp[i].passes);
	pmb__jw_close(w, ']');
	pmb__jw_open(w, "ns", '[', true);
	for (i = 0; i < n; i++)
		pmb__jw_uint(w, NULL, smp[i].ns);
	pmb__jw_close(w, ']');
	pmb__jw_open(w, "group", '[', true);
	for (i = 0; i < n; i++)
		pmb__jw_int(w, NULL, smp[i].group);
	pmb__jw_close(w, ']');
	for (e = 0; ev && e < pl->nev; e++) {
		/* An event no sample read (it did not open) has no column. */
		if (!ev[e])
			continue;
		pmb__json_key(name, sizeof(name), pl->ev[e].name);
		pmb__jw_open(w, name, '[', true);
		/* null: the event was not read in this sample (its group's
		 * turn had not come) or never ran. */
		for (i = 0; i < n; i++)
			pmb__jw_num(w, NULL, ev[e][i]);
		pmb__jw_close(w, ']');
	}
	pmb__jw_close(w, '}');
}

/* The samples and their figures per sample (ps, the analysis's; NULL
 * none): time per item less the harness overhead, the raw samples, the
 * fixed-cost probes. */
static void write_raw(struct pmb__jw *w, const struct pmb_context *c, const struct pmb_result *r,
		      const struct pmb_per_sample *ps, bool time_ok)
{
	const struct pmb_event_plan *pl = &c->m.plan;
	bool made = ps && ps->n == r->m.nsamples && ps->nprobes == r->m.nprobes;

	if (time_ok && made && ps->ns_per_item) {
		pmb__jw_open(w, "ns_per_item_samples", '[', true);
		for (size_t i = 0; i < r->m.nsamples; i++)
			pmb__jw_num(w, NULL, ps->ns_per_item[i]);
		pmb__jw_close(w, ']');
	}
	write_samples(w, "raw_samples", pl, r->m.samples, r->m.nsamples, made ? ps->ev : NULL);
	/* The short samples the fixed cost per sample is also estimated
	 * from (see pmubench(3), FIXED COST PER SAMPLE). */
	if (r->m.nprobes)
		write_samples(w, "fixed_cost_probes", pl, r->m.probes, r->m.nprobes, made ? ps->probe_ev : NULL);
}

/* Whether r[i] is the first result of its family (or of its name). */
static bool first_of(const struct pmb_result *r, size_t i, bool family)
{
	size_t j;

	for (j = 0; j < i; j++) {
		if (family && !strcmp(r[j].m.inst->family, r[i].m.inst->family))
			return false;
		if (!family && !strcmp(r[j].m.inst->name, r[i].m.inst->name))
			return false;
	}
	return true;
}

/* Google Benchmark's family_index and per_family_instance_index of r[k]:
 * indices in order of first appearance, as it numbers families and their
 * instances (repetitions share theirs). */
static void gbench_indices(const struct pmb_result *r, size_t k, int *fam, int *inst)
{
	const struct pmb_instance *in = r[k].m.inst;
	size_t i, f0 = k, i0 = k;

	for (i = k; i-- > 0;) {
		if (!strcmp(r[i].m.inst->family, in->family))
			f0 = i;
		if (!strcmp(r[i].m.inst->name, in->name))
			i0 = i;
	}
	*fam = 0;
	*inst = 0;
	for (i = 0; i < f0; i++)
		*fam += first_of(r, i, true);
	for (i = 0; i < i0; i++)
		*inst += !strcmp(r[i].m.inst->family, in->family) &&
			first_of(r, i, false);
}

/* What names the run, in Google Benchmark's keys. */
static void write_identity(struct pmb__jw *w, const struct pmb_context *c,
			   const struct pmb_result *r, size_t k)
{
	const struct pmb_instance *in = r[k].m.inst;
	int fam, inst;

	gbench_indices(r, k, &fam, &inst);
	pmb__jw_str(w, "name", in->name);
	pmb__jw_int(w, "family_index", fam);
	pmb__jw_int(w, "per_family_instance_index", inst);
	pmb__jw_str(w, "run_name", in->name);
	pmb__jw_str(w, "run_type", "iteration");
	pmb__jw_int(w, "repetitions", c->m.repetitions);
	pmb__jw_int(w, "repetition_index", r[k].m.repetition);
	pmb__jw_int(w, "threads", 1);
}

/* A run that was skipped or failed. */
static void write_not_run(struct pmb__jw *w, const struct pmb_result *x)
{
	bool skipped = x->m.status == PMB_ESKIPPED;

	pmb__jw_str(w, "status", skipped ? "skipped" : "failed");
	pmb__jw_str(w, skipped ? "skip_reason" : "error", x->m.reason);
	/* What Google Benchmark writes for a run that did not run,
	 * so its tools read the file. */
	pmb__jw_bool(w, "error_occurred", true);
	pmb__jw_str(w, "error_message", x->m.reason);
	pmb__jw_int(w, "iterations", 0);
	pmb__jw_int(w, "real_time", 0);
	pmb__jw_int(w, "cpu_time", 0);
	pmb__jw_str(w, "time_unit", "ns");
	pmb__jw_bool(w, "time_measured", false);
	/* The seed its inputs would have had: every output carries it. */
	pmb__jw_uint(w, "seed", x->m.seed);
}

/* Google Benchmark's figures of a run: one "iteration" is one item, so
 * real_time is the cost per item. */
static void write_gbench_times(struct pmb__jw *w, const struct pmb_result *x,
			       uint64_t passes, bool time_ok)
{
	double per_item = x->f.time.below_resolution ? fmax(x->f.time.s.median, 0) : x->f.time.s.median;

	pmb__jw_uint(w, "iterations", passes * x->m.items_per_pass);
	pmb__jw_num(w, "real_time", time_ok ? per_item : 0);
	/* CPU time, not real_time again (analysis.c:cpu_time); where none
	 * is known, real_time, and cpu_time_source says so. */
	pmb__jw_num(w, "cpu_time", !time_ok ? 0 : isfinite(x->f.cpu_per_item) ? x->f.cpu_per_item : per_item);
	pmb__jw_str(w, "time_unit", "ns");
	if (!time_ok)
		pmb__jw_bool(w, "time_measured", false);
	if (time_ok)
		pmb__jw_str(w, "cpu_time_source", x->f.cpu_source ? x->f.cpu_source : "none: real_time");
	if (time_ok)
		pmb__jw_num(w, "items_per_second", x->f.items_per_second);
	if (time_ok && x->m.bytes_per_pass && isfinite(x->f.bytes_per_second))
		pmb__jw_num(w, "bytes_per_second", x->f.bytes_per_second);
	pmb__jw_str(w, "status", "ok");
}

/* How the run was taken: samples, sizes, seed, warm-up and calibration. */
static void write_run_facts(struct pmb__jw *w, const struct pmb_context *c,
			    const struct pmb_result *x, uint64_t passes)
{
	const struct pmb_instance *in = x->m.inst;

	pmb__jw_uint(w, "samples", x->m.nsamples);
	pmb__jw_uint(w, "passes", passes);
	pmb__jw_uint(w, "items_per_pass", x->m.items_per_pass);
	if (x->m.bytes_per_pass)
		pmb__jw_uint(w, "bytes_per_pass", x->m.bytes_per_pass);
	pmb__jw_uint(w, "seed", x->m.seed);
	/* What the benchmark declared (pmb_set_mispredict_rate): the branch
	 * study's rate where no PMU counted one. */
	if (x->m.misp_declared)
		pmb__jw_num(w, "declared_mispredict_rate", x->m.misp_rate);
	if (in->tier[0]) {
		pmb__jw_str(w, "tier", in->tier);
		pmb__jw_uint(w, "working_set_bytes", in->working_set);
	}
	if (x->m.huge_fraction >= 0)
		pmb__jw_num(w, "huge_page_fraction", x->m.huge_fraction);
	if (isfinite(x->f.rep_spread))
		pmb__jw_num(w, "repetition_spread", x->f.rep_spread);
	/* What the ladder of pass counts and the repetitions show
	 * (analysis_learn.c): an input being learned, modes apart. */
	if (isfinite(x->f.ladder_fall))
		pmb__jw_num(w, "ladder_fall", x->f.ladder_fall);
	pmb__jw_bool(w, "learning", x->f.learning);
	pmb__jw_bool(w, "modes_between_rungs", x->f.rung_modes);
	pmb__jw_bool(w, "modes_between_repetitions", x->f.rep_modes);
	pmb__jw_uint(w, "warmup_ns", x->m.warmup_ns);
	pmb__jw_uint(w, "calibration_passes", x->m.calib_passes);
	/* What ended the samples: "precision", "samples", "budget",
	 * "fixed" or "signal" (base/stop.h). */
	if (*pmb__stop_name(x->m.stopped_by))
		pmb__jw_str(w, "stopped_by", pmb__stop_name(x->m.stopped_by));
	/* Measured around this benchmark's cohort; what its figures and
	 * ns_per_item_samples are corrected with. */
	if (x->m.local_overhead)
		pmb__json_overhead(w, &c->m.plan, &x->m.overhead);
}

/* A run that ran (r[k]): its figures, then the samples they came from. */
static void write_run(struct pmb__jw *w, const struct pmb_context *c,
		      const struct pmb_result *x, size_t k)
{
	bool time_ok = x->f.time.valid && !pmb_context_sim(c);

	write_gbench_times(w, x, x->f.passes, time_ok);
	if (time_ok)
		write_time(w, x);
	write_run_facts(w, c, x, x->f.passes);
	write_events(w, c, x);
	write_raw(w, c, x, pmb__per_sample_of(c, x, k), time_ok);
}

/* --disasm: the annotated loop, every instruction of every part (the
 * console leaves out the nops and parts that did not run). */
static void write_disasm_insn(struct pmb__jw *w, const struct pmb_disasm *d, const struct pmb_disasm_insn *in)
{
	char bytes[3 * sizeof(in->bytes) + 1] = "";
	size_t len = 0;

	for (int k = 0; k < in->size && len < sizeof(bytes); k++)
		len += (size_t)snprintf(bytes + len, sizeof(bytes) - len, "%s%02x", k ? " " : "", in->bytes[k]);
	pmb__jw_open(w, NULL, '{', true);
	pmb__jw_uint(w, "address", in->addr);
	pmb__jw_str(w, "bytes", bytes);
	pmb__jw_str(w, "text", in->text);
	pmb__jw_str_or_null(w, "source_line", in->src[0] ? in->src : NULL);
	pmb__jw_str(w, "role", pmb__da_role_name(in->kind));
	pmb__jw_bool(w, "conditional_branch", in->kind & PMB_DA_COND);
	pmb__jw_bool(w, "call", in->kind & PMB_DA_CALL);
	/* padding: the console lists it only where it ran */
	pmb__jw_bool(w, "nop", in->kind & PMB_DA_NOP);
	if (in->target)
		pmb__jw_uint(w, "target", in->target);
	if (d->counted)
		for (int k = 0; k < PMB_DA_NCOUNT; k++)
			pmb__jw_num(w, pmb__da_count_name[k], in->count[k]);
	if (d->sampled)
		pmb__jw_num(w, "share", in->share);
	pmb__jw_close(w, '}');
}

/* What the listing accounts for of the counts (or samples), what it
 * could not place, and the samples the period implies. */
static void write_disasm_accounting(struct pmb__jw *w, const struct pmb_disasm *d)
{
	if (isnan(d->accounted_share))
		return;
	if (d->counted) {
		pmb__jw_num(w, "instructions_counted", d->accounted_all);
		pmb__jw_num(w, "misp_counted", d->misp_all);
	}
	if (d->sampled && d->sample_period)
		pmb__jw_num(w, "samples_expected", d->sampled_count / (double)d->sample_period);
	pmb__jw_num(w, "accounted_share", d->accounted_share);
	pmb__jw_open(w, "unplaced", '[', false);
	for (int k = 0; k < d->nunplaced; k++) {
		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_str(w, "function", d->unplaced[k].name);
		pmb__jw_str_or_null(w, "file", d->unplaced[k].file[0] ? d->unplaced[k].file : NULL);
		pmb__jw_str(w, "why", d->unplaced[k].why);
		pmb__jw_num(w, "share", d->unplaced[k].share);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
	if (d->unplaced_rest > 0)
		pmb__jw_num(w, "unplaced_rest", d->unplaced_rest);
}

static void write_disasm(struct pmb__jw *w, const struct pmb_disasm *d)
{
	pmb__jw_open(w, "disasm", '{', false);
	pmb__jw_str(w, "file", d->file);
	pmb__jw_str(w, "function", d->func);
	pmb__jw_str_or_null(w, "via", d->via[0] ? d->via : NULL);
	pmb__jw_str(w, "arch", d->arch);
	pmb__jw_str_or_null(w, "counts", d->counted ? "simulated per item (callgrind)" : NULL);
	pmb__jw_str(w, "ranked_by", d->rank_by);
	if (d->sampled) {
		pmb__jw_str(w, "sampled_event", d->sample_event);
		pmb__jw_uint(w, "sample_period", d->sample_period);
		pmb__jw_uint(w, "samples", d->samples_all);
		pmb__jw_uint(w, "samples_in_code", d->samples_in);
		pmb__jw_uint(w, "samples_lost", d->samples_lost);
		pmb__jw_uint(w, "samples_in_kernel", d->samples_kernel);
		pmb__jw_uint(w, "samples_in_program", d->samples_program);
		pmb__jw_num(w, "event_count", d->sampled_count);
		pmb__jw_str(w, "skid", "a sample lands a few instructions after the one that caused it");
	}
	write_disasm_accounting(w, d);
	pmb__jw_bool(w, "body_empty", d->body_empty);
	pmb__jw_int(w, "decisions", d->decisions);
	pmb__jw_open(w, "notes", '[', false);
	for (int i = 0; i < d->nnotes; i++)
		pmb__jw_str(w, NULL, d->note[i]);
	pmb__jw_close(w, ']');
	pmb__jw_open(w, "parts", '[', false);
	for (int p = 0; p < d->nparts; p++) {
		const struct pmb_disasm_part *pt = &d->part[p];

		pmb__jw_open(w, NULL, '{', false);
		pmb__jw_str(w, "kind", pmb__da_part_kind_name(pt));
		pmb__jw_str(w, "function", pt->name);
		pmb__jw_str(w, "file", pt->file);
		pmb__jw_uint(w, "low", pt->lo);
		pmb__jw_uint(w, "high", pt->hi);
		/* the loop this benchmark runs, or a function it calls */
		pmb__jw_bool(w, "measured", pmb__disasm_part_shown(d, p));
		pmb__jw_open(w, "instructions", '[', false);
		for (size_t i = pt->first; i < pt->first + pt->n; i++)
			write_disasm_insn(w, d, &d->insn[i]);
		pmb__jw_close(w, ']');
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
	pmb__jw_close(w, '}');
}

static void write_result(struct pmb__jw *w, const struct pmb_context *c,
			 const struct pmb_result *r, size_t k)
{
	pmb__jw_open(w, NULL, '{', false);
	write_identity(w, c, r, k);
	if (r[k].m.status)
		write_not_run(w, &r[k]);
	else
		write_run(w, c, &r[k], k);
	pmb__json_rerun_result(w, c, &r[k]);
	if (r[k].disasm)
		write_disasm(w, r[k].disasm);
	pmb__jw_close(w, '}');
}

int pmb__report_json(FILE *f, const struct pmb_context *c,
		    const struct pmb_result *r, size_t n)
{
	struct pmb__jw w = { .f = f, .depth = -1 };
	size_t i;

	pmb__jw_open(&w, NULL, '{', false);
	pmb__json_context(&w, c);
	pmb__jw_open(&w, "benchmarks", '[', false);
	for (i = 0; i < n; i++)
		write_result(&w, c, r, i);
	pmb__jw_close(&w, ']');
	pmb__json_branch_studies(&w, c);
	pmb__jw_close(&w, '}');
	fputc('\n', f);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
