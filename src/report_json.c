/* report_json.c - results as JSON in Google Benchmark's schema, plus pmubench's own keys. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "report.h"

#define JW_MAX_DEPTH 16

/* A streaming writer: it tracks commas and indentation so the callers
 * below read as the document they produce. */
struct jw {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH];
	bool oneline[JW_MAX_DEPTH]; /* containers of numbers: one line each */
};

static void jw_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			/* Bytes >= 0x80 pass through: names are UTF-8. */
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator, indentation and key of the next member. */
static void jw_key(struct jw *w, const char *key)
{
	int d = w->depth, i;

	if (!w->first[d])
		fputc(',', w->f);
	if (w->oneline[d]) {
		if (!w->first[d])
			fputc(' ', w->f);
	} else {
		fputc('\n', w->f);
		for (i = 0; i <= d; i++)
			fputs("  ", w->f);
	}
	w->first[d] = false;
	if (key) {
		jw_string(w->f, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char brace, bool oneline)
{
	bool inl = oneline || (w->depth >= 0 && w->oneline[w->depth]);

	if (w->depth >= 0)
		jw_key(w, key);
	fputc(brace, w->f);
	w->depth++;
	w->first[w->depth] = true;
	w->oneline[w->depth] = inl;
}

static void jw_close(struct jw *w, char brace)
{
	int d = w->depth, i;

	if (!w->first[d] && !w->oneline[d]) {
		fputc('\n', w->f);
		for (i = 0; i < d; i++)
			fputs("  ", w->f);
	}
	fputc(brace, w->f);
	w->depth--;
}

/* Shortest of %.15g..%.17g that reads back as the same double: exact, yet
 * 0.1 stays "0.1".  NaN and infinities are not JSON: null. */
static void jw_double(FILE *f, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static void jw_num(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	jw_double(w->f, v);
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRId64, v);
}

static void jw_uint(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

static void jw_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	fputs("null", w->f);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w->f, s);
}

/* A string that may be unknown: "" and NULL are written as null. */
static void jw_str_or_null(struct jw *w, const char *key, const char *s)
{
	if (s && s[0])
		jw_str(w, key, s);
	else
		jw_null(w, key);
}

/* Key from an event name: [A-Za-z0-9_] only, so "branch-misses" becomes
 * "branch_misses" and tools may use it as an identifier. */
static void sanitize(char *out, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

static void keyf(char *buf, size_t n, const char *prefix, const char *suffix)
{
	snprintf(buf, n, "%s%s", prefix, suffix);
}

static const char *means_name(enum pmb_event_meaning m)
{
	static const char *const names[] = {
		[PMB_MEANS_OTHER] = "other", [PMB_MEANS_CYCLES] = "cycles",
		[PMB_MEANS_INSTRUCTIONS] = "instructions", [PMB_MEANS_BRANCHES] = "branches",
		[PMB_MEANS_BRANCH_MISSES] = "branch-misses",
	};

	return names[m];
}

static const char *kind_name(enum pmb_event_kind k)
{
	switch (k) {
	case PMB_EV_HW: return "hardware";
	case PMB_EV_SW: return "software";
	case PMB_EV_SIM: return "simulated";
	}
	return "unknown";
}

static bool is_sim(const struct pmb_context *c)
{
	return pmb_context_sim(c);
}

static void write_caches_gb(struct jw *w, const struct pmb_context *c)
{
	int i;

	jw_open(w, "caches", '[', false);
	for (i = 0; c->topo_ok && i < c->topo.ncaches; i++) {
		const struct pmb_cache *ca = &c->topo.cache[i];

		jw_open(w, NULL, '{', true);
		jw_str(w, "type", ca->level == 1 ? "Data" : "Unified");
		jw_int(w, "level", ca->level);
		jw_uint(w, "size", ca->size);
		jw_int(w, "num_sharing", ca->sharing_cores);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void write_topology(struct jw *w, const struct pmb_context *c)
{
	const struct pmb_topology_info *t = &c->topo;
	int i;

	if (!c->topo_ok) {
		jw_null(w, "topology");
		return;
	}
	jw_open(w, "topology", '{', false);
	jw_int(w, "cpu", t->cpu);
	if (t->numa_node >= 0)
		jw_int(w, "numa_node", t->numa_node);
	else
		jw_null(w, "numa_node");
	jw_uint(w, "numa_memory", t->numa_memory);
	jw_int(w, "cores", t->ncores);
	jw_int(w, "pus", t->npus);
	jw_uint(w, "available_memory", t->avail_memory);
	jw_open(w, "caches", '[', false);
	for (i = 0; i < t->ncaches; i++) {
		const struct pmb_cache *ca = &t->cache[i];

		jw_open(w, NULL, '{', true);
		jw_int(w, "level", ca->level);
		jw_uint(w, "size", ca->size);
		jw_uint(w, "line_size", ca->line);
		jw_int(w, "associativity", ca->assoc);
		jw_int(w, "sharing_cores", ca->sharing_cores);
		jw_str(w, "shared_with", ca->shared_with);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_bool(w, "caches_assumed", t->caches_assumed);
	jw_str_or_null(w, "fallback", t->fallback);
	jw_close(w, '}');
}

static void write_context(struct jw *w, const struct pmb_context *c)
{
	const struct pmb_event_plan *pl = &c->plan;
	char key[80];
	int e, i;

	jw_open(w, "context", '{', false);
	/* Google Benchmark's keys first. */
	jw_str(w, "date", c->date);
	jw_str(w, "host_name", c->host);
	jw_str(w, "executable", c->executable);
	jw_int(w, "num_cpus", c->ncpus);
	jw_int(w, "mhz_per_cpu", c->ghz > 0 ? llround(c->ghz * 1000) : 0);
	jw_bool(w, "cpu_scaling_enabled",
		c->governor[0] && strcmp(c->governor, "performance"));
	write_caches_gb(w, c);
	jw_open(w, "load_avg", '[', true);
	for (i = 0; i < 3; i++)
		jw_num(w, NULL, c->loadavg[i]);
	jw_close(w, ']');
	jw_str(w, "library_build_type", "release");
	jw_int(w, "json_schema_version", 1);

	jw_str(w, "pmubench_version", PMB_VERSION_STRING);
	jw_str(w, "backend", pmb_backend_name(c->backend));
	jw_int(w, "pinned_cpu", c->cpu);
	jw_open(w, "clock", '{', true);
	jw_str_or_null(w, "source", c->clock.source);
	jw_num(w, "resolution_ns", c->clock.resolution_ns);
	jw_num(w, "read_cost_ns", c->clock.read_cost_ns);
	jw_close(w, '}');
	jw_num(w, "core_ghz_estimate", c->ghz > 0 ? c->ghz : NAN);
	jw_num(w, "group_read_ns",
	       c->group_read_ns >= 0 ? c->group_read_ns : NAN);
	jw_str_or_null(w, "read_path", c->read_path);
	jw_str_or_null(w, "read_path_why", c->read_why);
	jw_str_or_null(w, "governor", c->governor);
	if (c->turbo < 0)
		jw_null(w, "turbo");
	else
		jw_bool(w, "turbo", c->turbo);
	if (c->paranoid == -100)
		jw_null(w, "perf_event_paranoid");
	else
		jw_int(w, "perf_event_paranoid", c->paranoid);
	jw_open(w, "pmu", '{', false);
	jw_str_or_null(w, "name", pl->pmu_name);
	jw_str_or_null(w, "description", pl->pmu_desc);
	jw_int(w, "generic_counters", pl->pmu_counters);
	jw_int(w, "fixed_counters", pl->pmu_fixed);
	jw_bool(w, "hardware_counters_work", c->pmu_ok);
	jw_close(w, '}');
	jw_str_or_null(w, "fallback", c->fallback);
	jw_bool(w, "count_kernel", pl->kernel);

	jw_open(w, "events", '[', false);
	for (e = 0; e < pl->nev; e++) {
		const struct pmb_event *ev = &pl->ev[e];

		sanitize(key, sizeof(key), ev->name);
		jw_open(w, NULL, '{', true);
		jw_str(w, "name", ev->name);
		jw_str(w, "key", key);
		jw_str(w, "encoding", ev->encoding);
		jw_str(w, "pmu", ev->pmu);
		jw_str(w, "kind", kind_name(ev->kind));
		if (c->event_group[e] >= 0)
			jw_int(w, "group", c->event_group[e]);
		else
			jw_null(w, "group");
		jw_str_or_null(w, "not_counted", c->event_why[e]);
		jw_str_or_null(w, "unsupported", ev->unsupported);
		jw_str(w, "means", means_name(ev->means));
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "derived", '[', false);
	for (i = 0; i < pl->nder; i++) {
		const struct pmb_derived *d = &pl->der[i];

		jw_open(w, NULL, '{', true);
		jw_str(w, "name", d->name);
		jw_str(w, "numerator", pl->ev[d->num].name);
		if (d->den >= 0)
			jw_str(w, "denominator", pl->ev[d->den].name);
		else
			jw_str(w, "denominator", "item");
		jw_num(w, "scale", d->scale);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_int(w, "groups", c->ngroups);

	jw_open(w, "harness_overhead", '{', false);
	jw_num(w, "ns_per_pass", c->overhead.ns_per_pass);
	jw_num(w, "ns_per_sample", c->overhead.ns_per_sample);
	jw_uint(w, "samples", c->overhead.nsamples);
	jw_open(w, "events", '{', false);
	for (e = 0; e < pl->nev; e++) {
		if (!c->overhead.ev_valid[e])
			continue;
		sanitize(key, sizeof(key), pl->ev[e].name);
		jw_open(w, key, '{', true);
		jw_num(w, "per_pass", c->overhead.ev_per_pass[e]);
		jw_num(w, "per_sample", c->overhead.ev_per_sample[e]);
		jw_close(w, '}');
	}
	jw_close(w, '}');
	jw_close(w, '}');

	write_topology(w, c);
	jw_bool(w, "hugepages", c->hugepages);
	jw_int(w, "samples", c->samples);
	jw_int(w, "repetitions", c->repetitions);
	jw_num(w, "min_sample_time_ns", c->min_sample_ns);
	jw_uint(w, "seed", c->seed);
	if (is_sim(c))
		jw_str(w, "sim_geometry", c->sim_geometry);
	jw_open(w, "warnings", '[', false);
	for (i = 0; i < c->nwarnings; i++)
		jw_str(w, NULL, c->warnings[i]);
	jw_close(w, ']');
	jw_close(w, '}');
}

/* median, CI and the flags of one figure under `prefix` (e.g. "ns"). */
static void write_figure(struct jw *w, const char *prefix,
			 const struct pmb_figure *fg, bool sim)
{
	char k[128];

	/* Below resolution the figure is zero within what was resolved:
	 * never a negative number (the flag and the resolution say which),
	 * while the raw samples keep what the subtraction left. */
	double lo0 = fg->below_resolution ? 0 : -INFINITY;

	keyf(k, sizeof(k), prefix, "_per_item");
	jw_num(w, k, fmax(fg->s.median, lo0));
	keyf(k, sizeof(k), prefix, "_per_item_ci_lo");
	jw_num(w, k, fmax(fg->s.ci_lo, lo0));
	keyf(k, sizeof(k), prefix, "_per_item_ci_hi");
	jw_num(w, k, fmax(fg->s.ci_hi, lo0));
	if (fg->below_resolution) {
		keyf(k, sizeof(k), prefix, "_per_item_below_resolution");
		jw_bool(w, k, true);
		keyf(k, sizeof(k), prefix, "_per_item_resolution");
		jw_num(w, k, fg->resolution);
	}
	if (isfinite(fg->normalized)) {
		keyf(k, sizeof(k), prefix, "_per_item_normalized");
		jw_num(w, k, fg->normalized);
	}
	if (isfinite(fg->ratio)) {
		keyf(k, sizeof(k), prefix, "_per_item_ratio");
		jw_num(w, k, fg->ratio);
		keyf(k, sizeof(k), prefix, "_per_item_ratio_ci_lo");
		jw_num(w, k, fg->ratio_lo);
		keyf(k, sizeof(k), prefix, "_per_item_ratio_ci_hi");
		jw_num(w, k, fg->ratio_hi);
	}
	if (sim || fg->simulated) {
		keyf(k, sizeof(k), prefix, "_simulated");
		jw_bool(w, k, true);
	}
}

static void write_time(struct jw *w, const struct pmb_result *r)
{
	const struct pmb_figure *t = &r->time;
	const struct pmb_summary *s = &t->s;

	double z = t->below_resolution ? 0 : -INFINITY; /* never negative */

	write_figure(w, "ns", t, false);
	jw_num(w, "ns_per_item_mean", fmax(s->mean, z));
	jw_num(w, "ns_per_item_min", fmax(s->min, z));
	jw_num(w, "ns_per_item_max", fmax(s->max, z));
	jw_num(w, "ns_per_item_stddev", s->stddev);
	jw_num(w, "ns_per_item_mdape", s->mdape);
	jw_num(w, "ns_fixed_per_sample", t->fixed);
	jw_num(w, "ns_fixed_share", t->fixed_share);
	jw_num(w, "ns_fixed_two_point", t->fixed_two_point);
	jw_int(w, "outliers_mild", s->tukey.mild_low + s->tukey.mild_high);
	jw_int(w, "outliers_severe",
	       s->tukey.severe_low + s->tukey.severe_high);
	jw_bool(w, "multimodal", s->multimodal);
}

static void write_events(struct jw *w, const struct pmb_context *c,
			 const struct pmb_result *r)
{
	const struct pmb_event_plan *pl = &c->plan;
	char name[80], k[128];
	int e;

	for (e = 0; e < pl->nev; e++) {
		const struct pmb_figure *fg = &r->ev[e];

		sanitize(name, sizeof(name), pl->ev[e].name);
		if (fg->multiplexed == -1) {
			keyf(k, sizeof(k), name, "_never_ran");
			jw_bool(w, k, true);
			continue;
		}
		if (!fg->valid)
			continue;
		write_figure(w, name, fg, is_sim(c));
		keyf(k, sizeof(k), name, "_multiplexed");
		jw_bool(w, k, fg->multiplexed == 1);
	}
	if (!c->has_cycles && r->est_cycles.valid) {
		write_figure(w, "est_cycles", &r->est_cycles, false);
		jw_bool(w, "est_cycles_estimated", true);
	}
	for (e = 0; e < pl->nder; e++) {
		/* Derived from medians of per-item figures, which may sit
		 * just under zero where an event is below resolution: a
		 * negative ratio or rate is no figure at all. */
		if (!isfinite(r->derived[e]) || r->derived[e] < 0)
			continue;
		jw_num(w, pl->der[e].name, r->derived[e] + 0.0); /* -0 as 0 */
		if (is_sim(c)) {
			keyf(k, sizeof(k), pl->der[e].name, "_simulated");
			jw_bool(w, k, true);
		}
	}
}

/* The samples as taken, so that compare can test two runs against each
 * other (Mann-Whitney) and recompute anything. */
static void write_raw(struct jw *w, const struct pmb_context *c,
		      const struct pmb_result *r, bool time_ok)
{
	const struct pmb_event_plan *pl = &c->plan;
	const struct pmb_overhead *ov = pmb_result_overhead(c, r);
	char name[80];
	size_t i;
	int e;

	if (time_ok) {
		jw_open(w, "ns_per_item_samples", '[', true);
		for (i = 0; i < r->nsamples; i++) {
			const struct pmb_sample *s = &r->samples[i];

			jw_num(w, NULL, pmb_per_item((double)s->ns, ov->ns_per_sample, ov->ns_per_pass,
						     (double)s->passes, (double)r->items_per_pass));
		}
		jw_close(w, ']');
	}
	jw_open(w, "raw_samples", '{', false);
	jw_open(w, "passes", '[', true);
	for (i = 0; i < r->nsamples; i++)
		jw_uint(w, NULL, r->samples[i].passes);
	jw_close(w, ']');
	jw_open(w, "ns", '[', true);
	for (i = 0; i < r->nsamples; i++)
		jw_uint(w, NULL, r->samples[i].ns);
	jw_close(w, ']');
	jw_open(w, "group", '[', true);
	for (i = 0; i < r->nsamples; i++)
		jw_int(w, NULL, r->samples[i].group);
	jw_close(w, ']');
	for (e = 0; e < pl->nev; e++) {
		/* An event no sample read (it did not open) has no column. */
		for (i = 0; i < r->nsamples; i++)
			if (r->samples[i].mask & (1u << e))
				break;
		if (i == r->nsamples)
			continue;
		sanitize(name, sizeof(name), pl->ev[e].name);
		jw_open(w, name, '[', true);
		for (i = 0; i < r->nsamples; i++) {
			const struct pmb_sample *s = &r->samples[i];
			double v;

			/* null: the event was not read in this sample (its
			 * group's turn had not come) or never ran. */
			if (!(s->mask & (1u << e)) ||
			    pmb_count_scale(&s->count[e], &v) < 0)
				jw_null(w, NULL);
			else
				jw_num(w, NULL, v);
		}
		jw_close(w, ']');
	}
	jw_close(w, '}');
}

/* Whether r[i] is the first result of its family (or of its name). */
static bool first_of(const struct pmb_result *r, size_t i, bool family)
{
	size_t j;

	for (j = 0; j < i; j++) {
		if (family && !strcmp(r[j].inst->family, r[i].inst->family))
			return false;
		if (!family && !strcmp(r[j].inst->name, r[i].inst->name))
			return false;
	}
	return true;
}

static void write_result(struct jw *w, const struct pmb_context *c,
			 const struct pmb_result *r, size_t k)
{
	const struct pmb_instance *in = r[k].inst;
	const struct pmb_result *x = &r[k];
	size_t i, f0 = k, i0 = k;
	uint64_t passes = 0;
	int fam = 0, inst = 0;
	bool time_ok;

	/* Indices in order of first appearance, as Google Benchmark numbers
	 * families and their instances (repetitions share theirs). */
	for (i = k; i-- > 0;) {
		if (!strcmp(r[i].inst->family, in->family))
			f0 = i;
		if (!strcmp(r[i].inst->name, in->name))
			i0 = i;
	}
	for (i = 0; i < f0; i++)
		fam += first_of(r, i, true);
	for (i = 0; i < i0; i++)
		inst += !strcmp(r[i].inst->family, in->family) &&
			first_of(r, i, false);

	jw_open(w, NULL, '{', false);
	jw_str(w, "name", in->name);
	jw_int(w, "family_index", fam);
	jw_int(w, "per_family_instance_index", inst);
	jw_str(w, "run_name", in->name);
	jw_str(w, "run_type", "iteration");
	jw_int(w, "repetitions", c->repetitions);
	jw_int(w, "repetition_index", x->repetition);
	jw_int(w, "threads", 1);

	if (x->status) {
		bool skipped = x->status == PMB_ESKIPPED;

		jw_str(w, "status", skipped ? "skipped" : "failed");
		jw_str(w, skipped ? "skip_reason" : "error", x->reason);
		/* What Google Benchmark writes for a run that did not run,
		 * so its tools read the file. */
		jw_bool(w, "error_occurred", true);
		jw_str(w, "error_message", x->reason);
		jw_int(w, "iterations", 0);
		jw_int(w, "real_time", 0);
		jw_int(w, "cpu_time", 0);
		jw_str(w, "time_unit", "ns");
		jw_bool(w, "time_measured", false);
		/* The seed its inputs would have had: every output carries it. */
		jw_uint(w, "seed", x->seed);
		jw_close(w, '}');
		return;
	}

	for (i = 0; i < x->nsamples; i++)
		passes += x->samples[i].passes;
	time_ok = x->time.valid && !is_sim(c);
	jw_uint(w, "iterations", passes * x->items_per_pass);
	/* One "iteration" is one item: real_time is the cost per item. */
	double per_item = x->time.below_resolution ? fmax(x->time.s.median, 0) : x->time.s.median;

	jw_num(w, "real_time", time_ok ? per_item : 0);
	jw_num(w, "cpu_time", time_ok ? per_item : 0);
	jw_str(w, "time_unit", "ns");
	if (!time_ok)
		jw_bool(w, "time_measured", false);
	if (time_ok)
		jw_num(w, "items_per_second", x->items_per_second);
	if (time_ok && x->bytes_per_pass && isfinite(x->bytes_per_second))
		jw_num(w, "bytes_per_second", x->bytes_per_second);
	jw_str(w, "status", "ok");

	if (time_ok)
		write_time(w, x);
	jw_uint(w, "samples", x->nsamples);
	jw_uint(w, "passes", passes);
	jw_uint(w, "items_per_pass", x->items_per_pass);
	if (x->bytes_per_pass)
		jw_uint(w, "bytes_per_pass", x->bytes_per_pass);
	jw_uint(w, "seed", x->seed);
	if (in->tier[0]) {
		jw_str(w, "tier", in->tier);
		jw_uint(w, "working_set_bytes", in->working_set);
	}
	if (x->huge_fraction >= 0)
		jw_num(w, "huge_page_fraction", x->huge_fraction);
	if (isfinite(x->rep_spread))
		jw_num(w, "repetition_spread", x->rep_spread);
	jw_uint(w, "warmup_ns", x->warmup_ns);
	jw_uint(w, "calibration_passes", x->calib_passes);
	if (x->local_overhead) {
		/* Measured around this benchmark's cohort; what its figures
		 * and ns_per_item_samples are corrected with. */
		const struct pmb_overhead *ov = &x->overhead;
		char key[80];

		jw_open(w, "harness_overhead", '{', false);
		jw_num(w, "ns_per_pass", ov->ns_per_pass);
		jw_num(w, "ns_per_sample", ov->ns_per_sample);
		jw_uint(w, "samples", ov->nsamples);
		jw_open(w, "events", '{', false);
		for (int e = 0; e < c->plan.nev; e++) {
			if (!ov->ev_valid[e])
				continue;
			sanitize(key, sizeof(key), c->plan.ev[e].name);
			jw_open(w, key, '{', true);
			jw_num(w, "per_pass", ov->ev_per_pass[e]);
			jw_num(w, "per_sample", ov->ev_per_sample[e]);
			jw_close(w, '}');
		}
		jw_close(w, '}');
		jw_close(w, '}');
	}
	write_events(w, c, x);
	write_raw(w, c, x, time_ok);
	jw_close(w, '}');
}

int pmb_report_json(FILE *f, const struct pmb_context *c,
		    const struct pmb_result *r, size_t n)
{
	struct jw w = { .f = f, .depth = -1 };
	size_t i;

	jw_open(&w, NULL, '{', false);
	write_context(&w, c);
	jw_open(&w, "benchmarks", '[', false);
	for (i = 0; i < n; i++)
		write_result(&w, c, r, i);
	jw_close(&w, ']');
	jw_close(&w, '}');
	fputc('\n', f);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
