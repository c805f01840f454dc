/* report_json_rerun.c - what the results JSON holds beyond Google Benchmark's figures so that `pmubench report` can analyse the run again: raw counts, the instance, the context's last facts. */
#include <inttypes.h>
#include <stdio.h>

#include "report_json_internal.h"
#include "model.h"

/* A uint64_t as a decimal string: JSON readers (jansson as pmubench reads
 * it, Python's json.load too) take numbers as doubles, which lose the low
 * bits of a seed above 2^53. */
static void jw_u64_text(struct pmb__jw *w, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	pmb__jw_str(w, key, buf);
}

void pmb__json_rerun_context(struct pmb__jw *w, const struct pmb_context *c)
{
	pmb__jw_open(w, "reanalysis", '{', false);
	pmb__jw_str(w, "cpu_model", c->m.cpu_model);
	pmb__jw_bool(w, "cycles_counted", c->m.has_cycles);
	pmb__jw_bool(w, "counters_given", c->m.counters_given);
	jw_u64_text(w, "seed", c->m.seed);
	/* warnings[0..this) came before the analysis, which adds the rest */
	pmb__jw_int(w, "warnings_measured", c->m.warnings.n);
	pmb__jw_close(w, '}');
}

/* The counts of samples as the kernel gave them (raw_samples holds them
 * scaled), what the analysis reads: under key, one array per event that a
 * sample read, by the event's key as in raw_samples, of [value, time
 * enabled, time running] per sample, or null where the sample did not
 * read it. */
static void write_counts(struct pmb__jw *w, const char *key, const struct pmb_event_plan *pl,
			 const struct pmb_sample *smp, size_t n)
{
	char name[80];
	size_t i;

	pmb__jw_open(w, key, '{', false);
	for (int e = 0; e < pl->nev; e++) {
		for (i = 0; i < n && !(smp[i].mask & (1u << e)); i++)
			;
		if (i == n)
			continue;
		pmb__json_key(name, sizeof(name), pl->ev[e].name);
		pmb__jw_open(w, name, '[', true);
		for (i = 0; i < n; i++) {
			const struct pmb_count *k = &smp[i].count[e];

			if (!(smp[i].mask & (1u << e))) {
				pmb__jw_null(w, NULL);
				continue;
			}
			pmb__jw_open(w, NULL, '[', true);
			pmb__jw_uint(w, NULL, k->value);
			pmb__jw_uint(w, NULL, k->enabled);
			pmb__jw_uint(w, NULL, k->running);
			pmb__jw_close(w, ']');
		}
		pmb__jw_close(w, ']');
	}
	pmb__jw_close(w, '}');
}

/* The instance as the plan made it, and what of its definition the
 * analysis and the reports read (role, study, reference, empty). */
static void write_instance(struct pmb__jw *w, const struct pmb_result *x)
{
	const struct pmb_instance *in = x->m.inst;
	char study[200];

	pmb__jw_open(w, "instance", '{', false);
	pmb__jw_str(w, "family", in->family);
	pmb__jw_str(w, "args", in->args);
	pmb__jw_open(w, "arg", '[', true);
	pmb__jw_int(w, NULL, in->arg[0]);
	pmb__jw_int(w, NULL, in->arg[1]);
	pmb__jw_close(w, ']');
	pmb__jw_str(w, "tier", in->tier);
	pmb__jw_uint(w, "working_set", in->working_set);
	pmb__jw_int(w, "baseline", in->baseline);
	pmb__jw_int(w, "reference", in->reference);
	pmb__jw_int(w, "cohort", in->cohort);
	pmb__jw_str(w, "role", pmb__role_name(in->def->role));
	pmb__jw_str_or_null(w, "study", pmb__result_study(x, study, sizeof(study)) ? study : NULL);
	pmb__jw_str_or_null(w, "reference_name", in->def->reference);
	pmb__jw_bool(w, "empty", in->def->empty);
	pmb__jw_int(w, "status", x->m.status);
	pmb__jw_str(w, "reason", x->m.reason);
	jw_u64_text(w, "seed", x->m.seed);
	pmb__jw_bool(w, "seed_used", x->m.seed_used);
	pmb__jw_bool(w, "local_overhead", x->m.local_overhead);
	/* Where the work of a loop that holds none went, as the code showed
	 * (run.c): the binary is not at hand when the run is re-read. */
	if (pmb__work_went_name(x->work_went))
		pmb__jw_str(w, "work_went", pmb__work_went_name(x->work_went));
	pmb__jw_close(w, '}');
}

void pmb__json_rerun_result(struct pmb__jw *w, const struct pmb_context *c, const struct pmb_result *x)
{
	write_instance(w, x);
	if (x->m.status)
		return;
	/* The samples phase's wall and thread CPU time (the runner's), from
	 * which the analysis takes cpu_time where task-clock was not counted;
	 * under simulation it takes none, and they would only vary. */
	if (!pmb_context_sim(c) && x->m.span_wall_ns) {
		pmb__jw_uint(w, "samples_wall_ns", x->m.span_wall_ns);
		pmb__jw_uint(w, "samples_cpu_ns", x->m.span_cpu_ns);
	}
	write_counts(w, "raw_counts", &c->m.plan, x->m.samples, x->m.nsamples);
	write_counts(w, "fixed_cost_probe_counts", &c->m.plan, x->m.probes, x->m.nprobes);
}
