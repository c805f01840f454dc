/* report_json_context.c - the JSON report's "context": machine, clock, PMU, events and run settings. */
#include <math.h>
#include <string.h>

#include "report_json_internal.h"
#include "model.h"

static void write_caches_gb(struct pmb__jw *w, const struct pmb_context *c)
{
	int i;

	pmb__jw_open(w, "caches", '[', false);
	for (i = 0; c->m.topo_ok && i < c->m.topo.ncaches; i++) {
		const struct pmb_cache *ca = &c->m.topo.cache[i];

		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_str(w, "type", ca->level == 1 ? "Data" : "Unified");
		pmb__jw_int(w, "level", ca->level);
		pmb__jw_uint(w, "size", ca->size);
		pmb__jw_int(w, "num_sharing", ca->sharing_cores);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
}

/* Google Benchmark's keys, first, so that its tools read the file. */
static void write_gbench_keys(struct pmb__jw *w, const struct pmb_context *c)
{
	int i;

	pmb__jw_str(w, "date", c->m.date);
	pmb__jw_str(w, "host_name", c->m.host);
	pmb__jw_str(w, "executable", c->m.executable);
	pmb__jw_int(w, "num_cpus", c->m.ncpus);
	pmb__jw_int(w, "mhz_per_cpu", c->m.ghz > 0 ? llround(c->m.ghz * 1000) : 0);
	pmb__jw_bool(w, "cpu_scaling_enabled",
		     c->m.governor[0] && strcmp(c->m.governor, "performance"));
	write_caches_gb(w, c);
	pmb__jw_open(w, "load_avg", '[', true);
	for (i = 0; i < 3; i++)
		pmb__jw_num(w, NULL, c->m.loadavg[i]);
	pmb__jw_close(w, ']');
	pmb__jw_str(w, "library_build_type", "release");
	pmb__jw_int(w, "json_schema_version", 1);
}

/* What was probed of the clock, the core and the kernel's settings. */
static void write_probes(struct pmb__jw *w, const struct pmb_context *c)
{
	pmb__jw_open(w, "clock", '{', true);
	pmb__jw_str_or_null(w, "source", c->m.clock.source);
	pmb__jw_num(w, "resolution_ns", c->m.clock.resolution_ns);
	pmb__jw_num(w, "read_cost_ns", c->m.clock.read_cost_ns);
	pmb__jw_close(w, '}');
	pmb__jw_num(w, "core_ghz_estimate", c->m.ghz > 0 ? c->m.ghz : NAN);
	pmb__jw_num(w, "group_read_ns",
		    c->m.group_read_ns >= 0 ? c->m.group_read_ns : NAN);
	pmb__jw_str_or_null(w, "read_path", c->m.read_path);
	pmb__jw_str_or_null(w, "read_path_why", c->m.read_why);
	pmb__jw_str_or_null(w, "governor", c->m.governor);
	if (c->m.turbo < 0)
		pmb__jw_null(w, "turbo");
	else
		pmb__jw_bool(w, "turbo", c->m.turbo);
	if (c->m.paranoid == -100)
		pmb__jw_null(w, "perf_event_paranoid");
	else
		pmb__jw_int(w, "perf_event_paranoid", c->m.paranoid);
}

static void write_pmu(struct pmb__jw *w, const struct pmb_context *c)
{
	const struct pmb_event_plan *pl = &c->m.plan;

	pmb__jw_open(w, "pmu", '{', false);
	pmb__jw_str_or_null(w, "name", pl->pmu_name);
	pmb__jw_str_or_null(w, "description", pl->pmu_desc);
	pmb__jw_int(w, "generic_counters", pl->pmu_counters);
	pmb__jw_int(w, "fixed_counters", pl->pmu_fixed);
	pmb__jw_bool(w, "hardware_counters_work", c->m.pmu_ok);
	/* Why not, where it is permission: not "no PMU" (issue 26). */
	if (c->m.pmu_denied)
		pmb__jw_int(w, "not_permitted_paranoid", c->m.paranoid);
	pmb__jw_close(w, '}');
}

/* "also_named": the other names asked for that are this same event,
 * counted once under its name (issue 26: merged, never dropped unsaid). */
static void write_also(struct pmb__jw *w, const char *also)
{
	char name[128];

	pmb__jw_open(w, "also_named", '[', true);
	for (const char *p = also; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		pmb__jw_str(w, NULL, name);
		p += n;
		p += strspn(p, ", ");
	}
	pmb__jw_close(w, ']');
}

/* The plan's events: what each is, its group, and why it was not counted. */
static void write_event_list(struct pmb__jw *w, const struct pmb_context *c)
{
	const struct pmb_event_plan *pl = &c->m.plan;
	char key[80];
	int e;

	pmb__jw_open(w, "events", '[', false);
	for (e = 0; e < pl->nev; e++) {
		const struct pmb_event *ev = &pl->ev[e];

		pmb__json_key(key, sizeof(key), ev->name);
		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_str(w, "name", ev->name);
		pmb__jw_str(w, "key", key);
		pmb__jw_str(w, "encoding", ev->encoding);
		pmb__jw_str(w, "pmu", ev->pmu);
		pmb__jw_str(w, "kind", pmb__kind_name(ev->kind));
		if (c->m.event_group[e] >= 0)
			pmb__jw_int(w, "group", c->m.event_group[e]);
		else
			pmb__jw_null(w, "group");
		pmb__jw_str_or_null(w, "not_counted", c->m.event_why[e]);
		pmb__jw_str_or_null(w, "unsupported", ev->unsupported);
		pmb__jw_str(w, "means", pmb__means_name(ev->means));
		if (ev->also[0])
			write_also(w, ev->also);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
}

static void write_derived_list(struct pmb__jw *w, const struct pmb_event_plan *pl)
{
	int i;

	pmb__jw_open(w, "derived", '[', false);
	for (i = 0; i < pl->nder; i++) {
		const struct pmb_derived *d = &pl->der[i];

		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_str(w, "name", d->name);
		pmb__jw_str(w, "numerator", pl->ev[d->num].name);
		if (d->den >= 0)
			pmb__jw_str(w, "denominator", pl->ev[d->den].name);
		else
			pmb__jw_str(w, "denominator", "item");
		pmb__jw_num(w, "scale", d->scale);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
}

/* The core's TLBs as the CPU describes them: one object per TLB, its page
 * sizes in bytes; or why none is known. */
static void write_tlbs(struct pmb__jw *w, const struct pmb_tlb_info *t)
{
	pmb__jw_open(w, "tlbs", '[', false);
	for (int i = 0; i < t->n; i++) {
		const struct pmb_tlb *b = &t->tlb[i];
		char kind[2] = { b->kind, '\0' };

		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_int(w, "level", b->level);
		pmb__jw_str(w, "kind", kind);
		pmb__jw_open(w, "page_sizes", '[', true);
		for (int p = 0; p < PMB_TLB_NPAGES; p++)
			if (b->pages & (1u << p))
				pmb__jw_uint(w, NULL, pmb_tlb_page_bytes[p]);
		pmb__jw_close(w, ']');
		pmb__jw_int(w, "entries", b->entries);
		pmb__jw_int(w, "associativity", b->assoc);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
	pmb__jw_str_or_null(w, "tlb_source", t->source);
	pmb__jw_str_or_null(w, "tlb_unknown", t->why);
}

static void write_topology(struct pmb__jw *w, const struct pmb_context *c)
{
	const struct pmb_topology_info *t = &c->m.topo;
	int i;

	if (!c->m.topo_ok) {
		pmb__jw_null(w, "topology");
		return;
	}
	pmb__jw_open(w, "topology", '{', false);
	pmb__jw_int(w, "cpu", t->cpu);
	if (t->numa_node >= 0)
		pmb__jw_int(w, "numa_node", t->numa_node);
	else
		pmb__jw_null(w, "numa_node");
	pmb__jw_uint(w, "numa_memory", t->numa_memory);
	pmb__jw_int(w, "cores", t->ncores);
	pmb__jw_int(w, "pus", t->npus);
	pmb__jw_uint(w, "available_memory", t->avail_memory);
	pmb__jw_open(w, "caches", '[', false);
	for (i = 0; i < t->ncaches; i++) {
		const struct pmb_cache *ca = &t->cache[i];

		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_int(w, "level", ca->level);
		pmb__jw_uint(w, "size", ca->size);
		pmb__jw_uint(w, "line_size", ca->line);
		pmb__jw_int(w, "associativity", ca->assoc);
		pmb__jw_int(w, "sharing_cores", ca->sharing_cores);
		pmb__jw_str(w, "shared_with", ca->shared_with);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
	pmb__jw_bool(w, "caches_assumed", t->caches_assumed);
	pmb__jw_str_or_null(w, "fallback", t->fallback);
	write_tlbs(w, &t->tlb);
	pmb__jw_close(w, '}');
}

/* The options the run was made with, and what it warned of. */
static void write_settings(struct pmb__jw *w, const struct pmb_context *c)
{
	int i;

	pmb__jw_bool(w, "hugepages", c->m.hugepages);
	/* How the samples were stopped: a fixed count (--samples), or null and
	 * the adaptive rule's precision and budget (base/stop.c); each
	 * benchmark's stopped_by says what ended its own. */
	if (c->m.samples > 0)
		pmb__jw_int(w, "samples", c->m.samples);
	else
		pmb__jw_null(w, "samples");
	pmb__jw_num(w, "precision", c->m.precision);
	pmb__jw_num(w, "sample_budget_ns", c->m.budget_ns);
	pmb__jw_int(w, "repetitions", c->m.repetitions);
	pmb__jw_num(w, "min_sample_time_ns", c->m.min_sample_ns);
	pmb__jw_uint(w, "seed", c->m.seed);
	if (pmb_context_sim(c))
		pmb__jw_str(w, "sim_geometry", c->m.sim_geometry);
	pmb__jw_open(w, "warnings", '[', false);
	for (i = 0; i < pmb__context_nwarnings(c); i++)
		pmb__jw_str(w, NULL, pmb__context_warning(c, i));
	pmb__jw_close(w, ']');
}

void pmb__json_context(struct pmb__jw *w, const struct pmb_context *c)
{
	pmb__jw_open(w, "context", '{', false);
	write_gbench_keys(w, c);

	pmb__jw_str(w, "pmubench_version", PMB_VERSION_STRING);
	pmb__jw_int(w, "results_schema", PMB_RESULTS_SCHEMA);
	/* Only where a signal stopped the run: the benchmarks are those it
	 * measured, the last perhaps with fewer samples. */
	if (c->m.incomplete[0]) {
		pmb__jw_bool(w, "incomplete", true);
		pmb__jw_str(w, "incomplete_reason", c->m.incomplete);
	}
	pmb__jw_str(w, "backend", pmb_backend_name(c->m.backend));
	pmb__jw_int(w, "pinned_cpu", c->m.cpu);
	write_probes(w, c);
	write_pmu(w, c);
	pmb__jw_str_or_null(w, "fallback", c->m.fallback);
	pmb__jw_bool(w, "count_kernel", c->m.plan.kernel);
	write_event_list(w, c);
	write_derived_list(w, &c->m.plan);
	pmb__jw_int(w, "groups", c->m.ngroups);
	pmb__json_overhead(w, &c->m.plan, &c->m.overhead);

	write_topology(w, c);
	write_settings(w, c);
	pmb__json_rerun_context(w, c);
	pmb__jw_close(w, '}');
}
