/* results_load.c - a results file read back into the structs the live run analysed (for `pmubench report`): jansson's tree to the context, instances and samples. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results_disasm.h"
#include "results_io_internal.h"
#include "results_load.h"
#include "model.h"

/* Each key below is one the JSON report writes (report_json*.c); what it
 * writes as null (NaN, unknown) reads back as what it stood for. */

/* ---- values ---------------------------------------------------------------- */

static json_t *get(const json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static double num(const json_t *o, const char *key, double absent)
{
	json_t *v = get(o, key);

	return json_is_number(v) ? json_number_value(v) : absent;
}

/* A count or size as written (%PRIu64): exact below 2^53, as counts are;
 * 0 for anything else (a negative or huge number cast would be undefined). */
static uint64_t count_of(const json_t *v)
{
	double x = json_is_number(v) ? json_number_value(v) : 0;

	return x > 0 && x < 0x1p64 ? (uint64_t)x : 0;
}

static uint64_t u64(const json_t *o, const char *key)
{
	return count_of(get(o, key));
}

static int int_of(const json_t *v, int absent)
{
	double x = json_is_number(v) ? json_number_value(v) : NAN;

	return isfinite(x) && fabs(x) < 0x1p31 ? (int)x : absent;
}

static int integer(const json_t *o, const char *key, int absent)
{
	return int_of(get(o, key), absent);
}

/* A uint64_t written as a decimal string (a seed). */
static uint64_t u64_text(const json_t *o, const char *key)
{
	const char *s = json_string_value(get(o, key));

	return s ? strtoull(s, NULL, 10) : 0;
}

/* A string member into buf ("" for null or absent). */
static void text(const json_t *o, const char *key, char *buf, size_t size)
{
	const char *s = json_string_value(get(o, key));

	snprintf(buf, size, "%s", s ? s : "");
}

static bool truth(const json_t *o, const char *key)
{
	return json_is_true(get(o, key));
}

/* ---- errors --------------------------------------------------------------- */

struct loader {
	const char *path;
	char *err;
	size_t errlen;
	uint64_t bytes; /* the file's */
	uint64_t cost;  /* its tree (estimated) and what is built from it */
};

#define FAIL(l, ...) pmb__results_fail((l)->err, (l)->errlen, PMB_EBADJSON, __VA_ARGS__)

static int nomem(struct loader *l)
{
	return pmb__results_fail(l->err, l->errlen, -ENOMEM, "%s", strerror(ENOMEM));
}

/* Before what is built from the tree is allocated: n more bytes, with the
 * tree still held, against PMB__RESULTS_RATIO times the file.  A sample
 * takes sizeof(struct pmb_sample) (408 bytes) whatever the file spends on
 * it: 30 000 samples of 27 bytes each pass the tree's estimate but not
 * this.  Returns 0 or PMB_EBADJSON with the reason. */
static int spend(struct loader *l, const char *what, uint64_t n)
{
	l->cost += n;
	if (!pmb__results_over(l->cost, l->bytes))
		return 0;
	return FAIL(l, "%s would take the reading of these %llu bytes to about %llu MiB, over the limit of "
		    "%d times the file (%llu MiB): refused", what, (unsigned long long)l->bytes,
		    (unsigned long long)((l->cost + (1 << 20) - 1) >> 20), PMB__RESULTS_RATIO,
		    (unsigned long long)((l->bytes * PMB__RESULTS_RATIO) >> 20));
}

/* ---- context --------------------------------------------------------------- */

static int plan_index(const struct pmb_event_plan *pl, const char *name)
{
	for (int e = 0; name && e < pl->nev; e++)
		if (!strcmp(pl->ev[e].name, name))
			return e;
	return -1;
}

/* "also_named": the other names of one event, counted once under its
 * name, back into the ", "-separated list the plan keeps (ev->also). */
static void read_also(const json_t *ev, struct pmb_event *e)
{
	json_t *name;
	size_t i;

	e->also[0] = '\0';
	json_array_foreach(get(ev, "also_named"), i, name)
		if (json_is_string(name))
			pmb__event_also(e, json_string_value(name));
}

static int read_events(struct loader *l, const json_t *cx, struct pmb_context *c)
{
	json_t *evs = get(cx, "events"), *ev;
	size_t i;

	if (!json_is_array(evs) || json_array_size(evs) > PMB_MAX_EVENTS)
		return FAIL(l, "context.events: expected an array of at most %d events", PMB_MAX_EVENTS);
	json_array_foreach(evs, i, ev) {
		struct pmb_event *e = &c->m.plan.ev[i];
		int kind = pmb__kind_of(json_string_value(get(ev, "kind")));
		int means = pmb__means_of(json_string_value(get(ev, "means")));

		if (kind < 0 || means < 0)
			return FAIL(l, "context.events[%zu]: unknown kind or meaning", i);
		text(ev, "name", e->name, sizeof(e->name));
		text(ev, "encoding", e->encoding, sizeof(e->encoding));
		text(ev, "pmu", e->pmu, sizeof(e->pmu));
		text(ev, "unsupported", e->unsupported, sizeof(e->unsupported));
		e->kind = (enum pmb_event_kind)kind;
		e->means = (enum pmb_event_meaning)means;
		read_also(ev, e);
		c->m.event_group[i] = integer(ev, "group", -1);
		text(ev, "not_counted", c->m.event_why[i], sizeof(c->m.event_why[i]));
	}
	c->m.plan.nev = (int)json_array_size(evs);
	return 0;
}

static int read_derived(struct loader *l, const json_t *cx, struct pmb_event_plan *pl)
{
	json_t *ders = get(cx, "derived"), *d;
	size_t i;

	if (!json_is_array(ders) || json_array_size(ders) > PMB_MAX_DERIVED)
		return FAIL(l, "context.derived: expected an array of at most %d figures", PMB_MAX_DERIVED);
	json_array_foreach(ders, i, d) {
		const char *den = json_string_value(get(d, "denominator"));

		text(d, "name", pl->der[i].name, sizeof(pl->der[i].name));
		pl->der[i].num = plan_index(pl, json_string_value(get(d, "numerator")));
		pl->der[i].den = den && !strcmp(den, "item") ? -1 : plan_index(pl, den);
		pl->der[i].scale = num(d, "scale", 1);
		if (pl->der[i].num < 0 || (den && strcmp(den, "item") && pl->der[i].den < 0))
			return FAIL(l, "context.derived[%zu]: an operand is not among the events", i);
	}
	pl->nder = (int)json_array_size(ders);
	return 0;
}

/* A harness_overhead object (pmb__json_overhead): per event by its plan
 * index ("event"). */
static void read_overhead(const json_t *o, struct pmb_overhead *ov)
{
	const char *key;
	json_t *ev;

	memset(ov, 0, sizeof(*ov));
	ov->ns_per_pass = num(o, "ns_per_pass", NAN);
	ov->ns_per_sample = num(o, "ns_per_sample", NAN);
	ov->ns_noise_per_pass = num(o, "ns_noise_per_pass", NAN);
	ov->nsamples = (size_t)u64(o, "samples");
	ov->passes = u64(o, "passes");
	json_object_foreach(get(o, "events"), key, ev) {
		int e = integer(ev, "event", -1);

		if (e < 0 || e >= PMB_MAX_EVENTS)
			continue;
		ov->ev_valid[e] = true;
		ov->ev_per_pass[e] = num(ev, "per_pass", NAN);
		ov->ev_per_sample[e] = num(ev, "per_sample", NAN);
		ov->ev_noise_per_pass[e] = num(ev, "noise_per_pass", NAN);
	}
}

static void read_tlbs(const json_t *t, struct pmb_tlb_info *tlb)
{
	json_t *b, *pg;
	size_t i, k;

	json_array_foreach(get(t, "tlbs"), i, b) {
		struct pmb_tlb *x = &tlb->tlb[tlb->n];
		const char *kind = json_string_value(get(b, "kind"));

		if (tlb->n == PMB_MAX_TLBS)
			break;
		x->level = integer(b, "level", 0);
		x->kind = kind && kind[0] && strchr("diuls", kind[0]) ? kind[0] : 'd';
		json_array_foreach(get(b, "page_sizes"), k, pg) {
			uint64_t v = (uint64_t)json_number_value(pg);

			x->pages |= pmb_tlb_page_of(v);
		}
		x->entries = integer(b, "entries", 0);
		x->assoc = integer(b, "associativity", 0);
		tlb->n++;
	}
	text(t, "tlb_source", tlb->source, sizeof(tlb->source));
	text(t, "tlb_unknown", tlb->why, sizeof(tlb->why));
}

static void read_topology(const json_t *t, struct pmb_context *c)
{
	struct pmb_topology_info *ti = &c->m.topo;
	json_t *ca;
	size_t i;

	c->m.topo_ok = json_is_object(t);
	if (!c->m.topo_ok)
		return;
	ti->cpu = integer(t, "cpu", -1);
	ti->numa_node = integer(t, "numa_node", -1);
	ti->numa_memory = u64(t, "numa_memory");
	ti->ncores = integer(t, "cores", 0);
	ti->npus = integer(t, "pus", 0);
	ti->avail_memory = u64(t, "available_memory");
	json_array_foreach(get(t, "caches"), i, ca) {
		struct pmb_cache *k = &ti->cache[i];

		if (i >= PMB_MAX_CACHES)
			break;
		k->level = integer(ca, "level", 0);
		k->size = u64(ca, "size");
		k->line = (unsigned)u64(ca, "line_size");
		k->assoc = integer(ca, "associativity", 0);
		k->sharing_cores = integer(ca, "sharing_cores", 0);
		text(ca, "shared_with", k->shared_with, sizeof(k->shared_with));
		ti->ncaches = (int)i + 1;
	}
	ti->caches_assumed = truth(t, "caches_assumed");
	text(t, "fallback", ti->fallback, sizeof(ti->fallback));
	read_tlbs(t, &ti->tlb);
}

/* The clock, the core and the kernel's settings as probed. */
static void read_probes(const json_t *cx, struct pmb_loaded_run *run)
{
	struct pmb_context *c = run->ctx;
	json_t *clock = get(cx, "clock"), *turbo = get(cx, "turbo");
	const char *src = json_string_value(get(clock, "source"));

	snprintf(run->clock_source, sizeof(run->clock_source), "%s", src ? src : "");
	c->m.clock.source = src ? run->clock_source : NULL;
	c->m.clock.resolution_ns = num(clock, "resolution_ns", NAN);
	c->m.clock.read_cost_ns = num(clock, "read_cost_ns", NAN);
	c->m.ghz = num(cx, "core_ghz_estimate", 0);
	c->m.group_read_ns = num(cx, "group_read_ns", -1);
	text(cx, "read_path", c->m.read_path, sizeof(c->m.read_path));
	text(cx, "read_path_why", c->m.read_why, sizeof(c->m.read_why));
	text(cx, "governor", c->m.governor, sizeof(c->m.governor));
	c->m.turbo = json_is_boolean(turbo) ? json_is_true(turbo) : -1;
	c->m.paranoid = integer(cx, "perf_event_paranoid", -100);
	/* The core's load before the run is --self-check's, not saved:
	 * unknown here, as under simulation. */
	c->m.busy = 0;
	c->m.idlest_cpu = -1;
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_array_get(get(cx, "load_avg"), i);

		c->m.loadavg[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
}

static int read_machine(struct loader *l, const json_t *cx, struct pmb_loaded_run *run)
{
	struct pmb_context *c = run->ctx;
	json_t *pmu = get(cx, "pmu"), *re = get(cx, "reanalysis");
	const char *backend = json_string_value(get(cx, "backend"));

	if (!backend || (strcmp(backend, "sim") && strcmp(backend, "perf")))
		return FAIL(l, "context.backend: expected \"perf\" or \"sim\"");
	text(cx, "date", c->m.date, sizeof(c->m.date));
	text(cx, "host_name", c->m.host, sizeof(c->m.host));
	text(cx, "executable", c->m.executable, sizeof(c->m.executable));
	c->m.backend = strcmp(backend, "sim") ? PMB_BACKEND_PERF : PMB_BACKEND_SIM;
	c->m.ncpus = integer(cx, "num_cpus", 0);
	c->m.cpu = integer(cx, "pinned_cpu", -1);
	read_probes(cx, run);
	text(pmu, "name", c->m.plan.pmu_name, sizeof(c->m.plan.pmu_name));
	text(pmu, "description", c->m.plan.pmu_desc, sizeof(c->m.plan.pmu_desc));
	c->m.plan.pmu_counters = integer(pmu, "generic_counters", 0);
	c->m.plan.pmu_fixed = integer(pmu, "fixed_counters", 0);
	c->m.pmu_ok = truth(pmu, "hardware_counters_work");
	/* Written only where permission refused the hardware events. */
	c->m.pmu_denied = json_is_number(get(pmu, "not_permitted_paranoid"));
	text(cx, "fallback", c->m.fallback, sizeof(c->m.fallback));
	c->m.plan.kernel = truth(cx, "count_kernel");
	c->m.ngroups = integer(cx, "groups", 0);
	text(re, "cpu_model", c->m.cpu_model, sizeof(c->m.cpu_model));
	c->m.has_cycles = truth(re, "cycles_counted");
	c->m.counters_given = truth(re, "counters_given");
	c->m.seed = u64_text(re, "seed");
	return 0;
}

/* The options the run was made with, how it ended, what it warned of. */
static void read_settings(const json_t *cx, struct pmb_context *c)
{
	json_t *w;
	size_t i;

	c->m.hugepages = truth(cx, "hugepages");
	c->m.samples = integer(cx, "samples", 0);
	c->m.precision = num(cx, "precision", NAN);
	c->m.budget_ns = num(cx, "sample_budget_ns", NAN);
	c->m.repetitions = integer(cx, "repetitions", 1);
	c->m.min_sample_ns = num(cx, "min_sample_time_ns", NAN);
	text(cx, "sim_geometry", c->m.sim_geometry, sizeof(c->m.sim_geometry));
	text(cx, "incomplete_reason", c->m.incomplete, sizeof(c->m.incomplete));
	/* Those raised before the analysis only: it adds its own again. */
	int measured = integer(get(cx, "reanalysis"), "warnings_measured", -1);

	json_array_foreach(get(cx, "warnings"), i, w)
		if (json_is_string(w) && (measured < 0 || i < (size_t)measured))
			pmb__warn(&c->m.warnings, "%s", json_string_value(w));
}

/* The schemas `pmubench report` reads, as its errors name them. */
#if PMB_RESULTS_SCHEMA == PMB_RESULTS_SCHEMA_RERUN
#define READS_FMT "schema %d"
#define READS_ARGS PMB_RESULTS_SCHEMA
#else
#define READS_FMT "schemas %d to %d"
#define READS_ARGS PMB_RESULTS_SCHEMA_RERUN, PMB_RESULTS_SCHEMA
#endif

/* A number with no fraction, as results_schema is (the file is read with
 * every number a double, results_file.c). */
static int is_whole(const json_t *s)
{
	double x = json_is_number(s) ? json_number_value(s) : NAN;

	return isfinite(x) && x == floor(x);
}

/* context.results_schema when it is no integer, named as what it is. */
static int schema_not_integer(struct loader *l, const json_t *s)
{
	static const char *const what[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
		[JSON_INTEGER] = "a number not an integer", [JSON_REAL] = "a number not an integer",
		[JSON_TRUE] = "true", [JSON_FALSE] = "false", [JSON_NULL] = "null",
	};
	char shown[48] = "";

	if (json_is_string(s))
		snprintf(shown, sizeof(shown), " (\"%.40s\")", json_string_value(s));
	else if (json_is_number(s))
		snprintf(shown, sizeof(shown), " (%.15g)", json_number_value(s));
	return FAIL(l, "context.results_schema: expected an integer, found %s%s; this pmubench reads "
		    READS_FMT, what[json_typeof(s)], shown, READS_ARGS);
}

/* Which pmubench wrote the file, and whether it holds what is read. */
static int check_schema(struct loader *l, const json_t *root, const json_t *cx)
{
	const char *version = json_string_value(get(cx, "pmubench_version"));
	const json_t *s = get(cx, "results_schema");
	double schema = !s ? 1 : is_whole(s) ? json_number_value(s) : NAN;

	if (!json_is_object(cx) || !json_is_array(get(root, "benchmarks")))
		return FAIL(l, "not a pmubench results file (no \"context\" object and \"benchmarks\" array)");
	if (!version)
		return FAIL(l, "not written by pmubench (no context.pmubench_version): only pmubench's "
			    "own results can be reported again");
	if (isnan(schema))
		return schema_not_integer(l, s);
	if (schema > PMB_RESULTS_SCHEMA)
		return FAIL(l, "results schema %.15g (pmubench %s) was written by a newer pmubench; "
			    "this pmubench reads " READS_FMT ": report it with that pmubench",
			    schema, version, READS_ARGS);
	if (schema < 1)
		return FAIL(l, "results schema %.15g (pmubench %s) is no schema pmubench writes; "
			    "this pmubench reads " READS_FMT, schema, version, READS_ARGS);
	if (schema < PMB_RESULTS_SCHEMA_RERUN)
		return FAIL(l, "results schema %.15g (pmubench %s) has no raw counts to analyse again; "
			    "this pmubench reads " READS_FMT ": measure again with this pmubench",
			    schema, version, READS_ARGS);
	if (get(cx, "incomplete_reason"))
		return FAIL(l, "a signal stopped this run (%s): its benchmarks cannot be paired with "
			    "their baselines and references again", json_string_value(get(cx, "incomplete_reason")));
	return 0;
}

static int read_context(struct loader *l, const json_t *root, struct pmb_loaded_run *run)
{
	const json_t *cx = get(root, "context");
	int err = check_schema(l, root, cx);

	if (!err)
		err = read_machine(l, cx, run);
	if (!err)
		err = read_events(l, cx, run->ctx);
	if (!err)
		err = read_derived(l, cx, &run->ctx->m.plan);
	if (err)
		return err;
	read_overhead(get(cx, "harness_overhead"), &run->ctx->m.overhead);
	read_topology(get(cx, "topology"), run->ctx);
	read_settings(cx, run->ctx);
	return 0;
}

/* ---- samples ---------------------------------------------------------------- */

/* One count of a sample: [value, enabled, running], or null (not read). */
static void read_count(const json_t *k, int e, struct pmb_sample *s)
{
	if (!json_is_array(k) || json_array_size(k) != 3)
		return;
	s->mask |= 1u << e;
	s->count[e].value = count_of(json_array_get(k, 0));
	s->count[e].enabled = count_of(json_array_get(k, 1));
	s->count[e].running = count_of(json_array_get(k, 2));
}

/* raw: a raw_samples object (passes, ns, group), counts: its raw counts by
 * event key (keys: context.events[].key, in plan order).  Returns 0, FAIL
 * or -ENOMEM. */
static int read_samples(struct loader *l, const char *name, const json_t *raw, const json_t *counts,
			const json_t *keys, struct pmb_sample **out, size_t *n, size_t *cap)
{
	json_t *passes = get(raw, "passes"), *ns = get(raw, "ns"), *group = get(raw, "group");
	size_t m = json_array_size(passes);
	int nev = (int)json_array_size(keys);

	char what[200];
	int err;

	if (!json_is_array(passes) || json_array_size(ns) != m || json_array_size(group) != m ||
	    !json_is_object(counts))
		return FAIL(l, "%s: its samples or their raw counts are missing, or of different lengths", name);
	snprintf(what, sizeof(what), "%.120s: its %zu samples", name, m);
	err = spend(l, what, (m + 1) * sizeof(**out));
	if (err)
		return err;
	*out = calloc(m + 1, sizeof(**out));
	if (!*out)
		return nomem(l);
	*n = *cap = m;
	for (size_t i = 0; i < m; i++) {
		struct pmb_sample *s = &(*out)[i];

		s->passes = count_of(json_array_get(passes, i));
		s->ns = count_of(json_array_get(ns, i));
		s->group = int_of(json_array_get(group, i), -1);
		for (int e = 0; e < nev; e++) {
			const char *key = json_string_value(get(json_array_get(keys, (size_t)e), "key"));

			read_count(json_array_get(get(counts, key ? key : ""), i), e, s);
		}
	}
	return 0;
}

/* ---- benchmarks ------------------------------------------------------------- */

static void read_instance(const json_t *b, const json_t *in, struct pmb_instance *inst,
			  struct pmb_loaded_def *d)
{
	json_t *arg = get(in, "arg");
	int role = pmb__role_of(json_string_value(get(in, "role")));

	text(b, "name", inst->name, sizeof(inst->name));
	text(in, "family", inst->family, sizeof(inst->family));
	text(in, "args", inst->args, sizeof(inst->args));
	for (size_t a = 0; a < 2; a++) {
		double x = json_number_value(json_array_get(arg, a)); /* 0 where none */

		inst->arg[a] = isfinite(x) && fabs(x) < 0x1p63 ? (int64_t)x : 0;
	}
	text(in, "tier", inst->tier, sizeof(inst->tier));
	inst->working_set = u64(in, "working_set");
	inst->baseline = integer(in, "baseline", -1);
	inst->reference = integer(in, "reference", -1);
	inst->cohort = integer(in, "cohort", 0);
	text(in, "study", d->study, sizeof(d->study));
	text(in, "reference_name", d->reference, sizeof(d->reference));
	d->def.size = sizeof(d->def);
	d->def.name = inst->family;
	d->def.role = role > 0 ? (enum pmb_role)role : PMB_ROLE_NONE;
	d->def.study = d->study[0] ? d->study : NULL;
	d->def.reference = d->reference[0] ? d->reference : NULL;
	d->def.empty = truth(in, "empty");
	inst->def = &d->def;
}

/* "precision", ... back to its enum pmb_stop; NONE for none or another. */
static int stop_reason(const char *name)
{
	for (int s = PMB_STOP_NONE + 1; name && s < PMB_NSTOPS; s++)
		if (!strcmp(name, pmb__stop_name((enum pmb_stop)s)))
			return s;
	return PMB_STOP_NONE;
}

static int read_result(struct loader *l, const json_t *b, const json_t *events, struct pmb_result *r)
{
	const json_t *in = get(b, "instance");
	const char *name = json_string_value(get(b, "name"));
	int err;

	if (!name || !json_is_object(in))
		return FAIL(l, "a benchmark without its \"name\" or \"instance\"");
	r->m.status = integer(in, "status", 0);
	text(in, "reason", r->m.reason, sizeof(r->m.reason));
	r->m.seed = u64_text(in, "seed");
	r->m.seed_used = truth(in, "seed_used");
	r->work_went = pmb__work_went_of(json_string_value(get(in, "work_went")));
	r->m.repetition = integer(b, "repetition_index", 0);
	r->m.huge_fraction = num(b, "huge_page_fraction", -1);
	if (r->m.status)
		return 0;
	r->m.items_per_pass = u64(b, "items_per_pass");
	r->m.bytes_per_pass = u64(b, "bytes_per_pass");
	r->m.warmup_ns = u64(b, "warmup_ns");
	r->m.calib_passes = u64(b, "calibration_passes");
	r->m.stopped_by = stop_reason(json_string_value(get(b, "stopped_by")));
	r->m.local_overhead = truth(in, "local_overhead");
	/* What the benchmark declared with pmb_set_mispredict_rate(). */
	r->m.misp_declared = json_is_number(get(b, "declared_mispredict_rate"));
	r->m.misp_rate = num(b, "declared_mispredict_rate", 0);
	/* The samples phase's times, for cpu_time (perf backend only). */
	r->m.span_wall_ns = u64(b, "samples_wall_ns");
	r->m.span_cpu_ns = u64(b, "samples_cpu_ns");
	if (r->m.local_overhead)
		read_overhead(get(b, "harness_overhead"), &r->m.overhead);
	err = read_samples(l, name, get(b, "raw_samples"), get(b, "raw_counts"), events, &r->m.samples,
			   &r->m.nsamples, &r->m.cap);
	if (!err && get(b, "fixed_cost_probes"))
		err = read_samples(l, name, get(b, "fixed_cost_probes"), get(b, "fixed_cost_probe_counts"),
				   events, &r->m.probes, &r->m.nprobes, &r->m.probes_cap);
	return err;
}

/* --disasm's listing of benchmark k: read from an instance's first
 * repetition (benchmarks[i*reps].disasm) and shared by the others, as the
 * live run's results share it. */
static int read_disasm(struct loader *l, const json_t *b, struct pmb_loaded_run *run, size_t k)
{
	const json_t *x = get(b, "disasm");
	const char *name = run->res[k].m.inst->name;
	bool no_nop = false;
	char what[200];
	int err;

	if (k % run->reps) {
		run->res[k].disasm = run->res[k - k % run->reps].disasm;
		return 0;
	}
	if (!x)
		return 0;
	snprintf(what, sizeof(what), "%.120s: its --disasm listing", name);
	err = spend(l, what, pmb__results_disasm_bytes(x));
	if (!err)
		err = pmb__results_read_disasm(x, name, &run->res[k].disasm, &no_nop, l->err, l->errlen);
	run->disasm_no_nop += no_nop;
	return err;
}

/* Instance i is the one of benchmark i*reps (its repetitions follow it). */
static int read_results(struct loader *l, const json_t *root, struct pmb_loaded_run *run)
{
	const json_t *bs = get(root, "benchmarks");
	size_t n = json_array_size(bs);
	int err;

	run->reps = run->ctx->m.repetitions > 0 ? (size_t)run->ctx->m.repetitions : 1;
	if (n % run->reps)
		return FAIL(l, "%zu benchmarks are no whole number of %zu repetitions", n, run->reps);
	run->n = n;
	run->ninst = n / run->reps;
	err = spend(l, "its benchmarks", (n + 1) * sizeof(*run->res) +
		    (run->ninst + 1) * (sizeof(*run->inst) + sizeof(*run->defs)));
	if (err)
		return err;
	run->res = calloc(n + 1, sizeof(*run->res));
	run->inst = calloc(run->ninst + 1, sizeof(*run->inst));
	run->defs = calloc(run->ninst + 1, sizeof(*run->defs));
	if (!run->res || !run->inst || !run->defs)
		return nomem(l);
	for (size_t k = 0; k < n; k++) {
		const json_t *b = json_array_get(bs, k);
		size_t i = k / run->reps;

		/* `pmubench ab --out` numbers each side's turns as repetitions
		 * of one file: not one run, nor the context's repetitions. */
		if (integer(b, "repetitions", 1) != run->ctx->m.repetitions)
			return FAIL(l, "benchmark %zu has %d repetitions where the run made %d: several runs "
				    "merged into one file (pmubench ab --out) are not one run", k,
				    integer(b, "repetitions", 1), run->ctx->m.repetitions);
		if (k % run->reps == 0)
			read_instance(b, get(b, "instance"), &run->inst[i], &run->defs[i]);
		run->res[k].m.inst = &run->inst[i];
		err = read_result(l, b, get(get(root, "context"), "events"), &run->res[k]);
		if (!err)
			err = read_disasm(l, b, run, k);
		if (err)
			return err;
		/* The analysis finds a link's result at instance * reps + rep. */
		if (run->res[k].m.repetition != (int)(k % run->reps))
			return FAIL(l, "benchmark %zu: repetition_index %d where the run's order has %zu", k,
				    run->res[k].m.repetition, k % run->reps);
	}
	for (size_t i = 0; i < run->ninst; i++)
		if (run->inst[i].baseline < -1 || run->inst[i].baseline >= (int)run->ninst ||
		    run->inst[i].reference < -1 || run->inst[i].reference >= (int)run->ninst)
			return FAIL(l, "%s: its baseline or reference is not in the file", run->inst[i].name);
	return 0;
}

int pmb__results_load_run(const char *path, struct pmb_loaded_run *out, char *err, size_t errlen)
{
	struct loader l = { .path = path, .err = err, .errlen = errlen };
	json_t *root = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = pmb__results_load_cost(path, &root, &l.bytes, &l.cost, err, errlen);
	if (rc)
		return rc;
	out->ctx = calloc(1, sizeof(*out->ctx));
	rc = out->ctx ? read_context(&l, root, out) : nomem(&l);
	if (!rc)
		rc = read_results(&l, root, out);
	json_decref(root);
	if (rc)
		pmb__loaded_run_free(out);
	return rc;
}

void pmb__loaded_run_free(struct pmb_loaded_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->res && i < r->n; i++)
		pmb__result_free_samples(&r->res[i]);
	for (size_t i = 0; r->res && r->reps && i < r->ninst; i++)
		pmb__disasm_free(r->res[i * r->reps].disasm);
	free(r->res);
	free(r->inst);
	free(r->defs);
	pmb__context_free(r->ctx);
	free(r->ctx);
	memset(r, 0, sizeof(*r));
}
