/* run.c - the path of one run, top to bottom: plan, counters opened, samples measured, figures analysed, report written. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyse.h"
#include "disasm.h"
#include "plan.h"
#include "base.h"
#include "measure.h"
#include "report.h"
#include "model.h"
#include "run.h"
#include "meter.h"

/* pmb__run_path(), at the bottom, is the path; the stages come above it in
 * its order.  Each takes what the stages before it returned and returns its
 * own struct; the analysis and the report see them together, as the
 * context that context_of() assembles from them.  Stages return 0 to go on
 * or an exit status (2, the error said).  Warnings go into the run's list,
 * printed once the counters are open (before the long part) and again
 * after the analysis. */

/* plan: what will be measured, on which core, with which events. */
struct pmb_plan {
	regex_t filter;                /* --filter, compiled */
	bool have_filter;
	bool sim;                      /* this process runs under valgrind */
	struct pmb_topology *topo;     /* for pinning and buffers */
	struct pmb_topology_info info; /* the core's caches and NUMA node */
	bool info_ok;
	int cpu, ncpus;
	struct pmb_tier_point tier[PMB_MAX_TIER_POINTS]; /* PMB_TIERS sizes */
	size_t ntiers;
	struct pmb_instance *inst;     /* malloc'ed */
	size_t ninst;
	size_t reps;                   /* calls of each instance */
	const struct pmb_event_plan *events; /* the run's one event plan, in its
	                                  context (ctx->m.plan): resolved by
	                                  name there (plan_events), opened in
	                                  place (open_meter: the software
	                                  fallback's events added), read here */
	struct pmb_disasm **disasm;    /* --disasm: per instance, malloc'ed */
};

/* counters opened: the environment, and what reads a sample. */
struct pmb_opened {
	struct pmb_env env;
	struct pmb_counters counters;    /* the perf backend's groups */
	struct pmb_meter meter;          /* what the runner calls around a sample */
	struct pmb_counters_outcome got; /* per event: group or why not;
	                                    fallback; read path */
	int ngroups;
	double group_read_ns;            /* a group's reads per sample; -1 none */
	double read_inside_ns;           /* of which inside the timed window; -1 */
	char sim_geometry[160];          /* sim: the simulated caches */
};

/* measured: raw samples and the harness overhead; no statistics yet. */
struct pmb_samples {
	struct pmb_runner_opts ro;       /* how they were taken */
	struct pmb_result *res;          /* instance i, repetition r at i*reps + r */
	size_t n;
	struct pmb_overhead overhead;    /* the empty loop before and after, merged */
	int stopped;                     /* the signal that stopped it early, 0 */
	double ghz_after;                /* --self-check's frequency estimate after
	                                    the checks; 0 not measured */
	size_t nrun;                     /* results measured (not not_run) */
};

/* ---- plan ---------------------------------------------------------------- */

/* --load: the shared objects' benchmarks, registered as each is loaded. */
static int plan_load(const struct pmb_options *o)
{
	char err[PATH_MAX + 256];

	for (int i = 0; i < o->load.n; i++)
		if (pmb__load(o->load.v[i], err, sizeof(err)))
			return pmb__out_error("%s", err);
	return 0;
}

static int plan_filter(const struct pmb_options *o, struct pmb_plan *p)
{
	char msg[128];
	int err;

	if (!o->filter)
		return 0;
	err = regcomp(&p->filter, o->filter, REG_EXTENDED | REG_NOSUB);
	if (!err) {
		p->have_filter = true;
		return 0;
	}
	regerror(err, &p->filter, msg, sizeof(msg));
	return pmb__out_error("--filter=%s: not a valid regular expression (%s)", o->filter, msg);
}

/* Under simulation every instruction of a benchmark's setup is simulated
 * too: DRAM points far past the last level only cost minutes and show
 * nothing 2x the last level does not. */
static void plan_sim_tiers(struct pmb_plan *p)
{
	uint64_t cap = 2 * p->info.cache[p->info.ncaches - 1].size;
	size_t k = 0;

	for (size_t i = 0; i < p->ntiers; i++)
		if (p->tier[i].bytes <= cap ||
		    (k > 0 && strcmp(p->tier[k - 1].tier, "DRAM") && !strcmp(p->tier[i].tier, "DRAM")))
			p->tier[k++] = p->tier[i];
	p->ntiers = k;
}

/* The machine: topology, the core to pin to, the working-set sizes. */
static int plan_machine(const struct pmb_options *o, struct pmb_plan *p)
{
	int err = pmb__topology_load(&p->topo, o->topology_src);

	if (err && o->topology_src)
		return pmb__out_error("--topology-source=%s: %s; expected a synthetic description or a regular "
				     ".xml file of at most 64 MiB", o->topology_src,
				     err == -EINVAL ? "not a regular file, or not a topology" : pmb_strerror(err));
	if (err)
		return pmb__out_error("cannot read the machine's topology: %s", pmb_strerror(err));
	p->sim = pmb__sim_active();
	p->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	p->cpu = o->cpu >= 0 ? o->cpu : sched_getcpu();
	if (p->cpu < 0)
		p->cpu = 0;
	if (!pmb__topology_cpu_valid(p->topo, p->cpu)) {
		char cpus[256];
		int first;

		pmb__topology_cpus(p->topo, cpus, sizeof(cpus), &first);
		/* Not asked for: the core this process runs on, outside the
		 * topology given; its first core instead. */
		if (o->cpu < 0 && first >= 0)
			p->cpu = first;
		else if (o->cpu < 0)
			return pmb__out_error("%s has no core this process may use", o->topology_src ?
					      "--topology-source's topology" : "the machine's topology");
		else
			return pmb__out_error("--cpu=%d: no such core %s; expected one of %s that this process "
					     "may use", p->cpu, o->topology_src ? "in --topology-source's topology" :
					     "here", cpus[0] ? cpus : "none");
	}
	p->info_ok = pmb__topology_info(p->topo, p->cpu, &p->info) == 0;
	if (p->sim) { /* CPUID under valgrind is valgrind's, not the host's */
		memset(&p->info.tlb, 0, sizeof(p->info.tlb));
		snprintf(p->info.tlb.why, sizeof(p->info.tlb.why), "--backend=sim simulates no TLB, and the CPU "
			 "the simulated program sees is valgrind's");
	}
	if (p->info_ok && pmb__topology_tiers(&p->info, p->tier, PMB_MAX_TIER_POINTS, &p->ntiers))
		p->ntiers = 0;
	/* Under simulation plan_sim_tiers already cuts DRAM to what the
	 * simulator shows: the short sweep would leave it one point. */
	if (o->sweep == PMB_SWEEP_SHORT && !p->sim)
		pmb__topology_tiers_short(&p->info, p->tier, &p->ntiers);
	if (p->sim && p->ntiers && p->info.ncaches)
		plan_sim_tiers(p);
	return 0;
}

static int plan_expand(struct pmb_plan *p)
{
	return pmb__registry_expand(p->have_filter ? &p->filter : NULL, p->ntiers ? p->tier : NULL,
				   p->ntiers, &p->inst, &p->ninst);
}

/* What the plan cannot do as its definitions ask, said once each. */
static void plan_warn_links(const struct pmb_plan *p, struct pmb_warnings *w)
{
	for (size_t i = 0; i < p->ninst && p->info.caches_assumed; i++)
		if (p->inst[i].tier[0]) {
			pmb__warn(w, "%s: the tier labels and sweep boundaries rest on these sizes, not the "
				 "machine's", p->info.fallback);
			break;
		}
	for (size_t i = 0; i < p->ninst; i++) {
		const struct pmb_benchmark_def *d = p->inst[i].def;

		if (d->reference && p->inst[i].reference < 0)
			pmb__warn(w, "%s names .reference = \"%s\", which is no benchmark here (with the same "
				 "arguments): it has no ratio column", p->inst[i].family, d->reference);
		if (d->baseline && p->inst[i].baseline < 0)
			pmb__warn(w, "%s names .baseline = \"%s\", which is no benchmark here (with the same "
				 "arguments): it has no normalized column", p->inst[i].family, d->baseline);
	}
}

/* The instances: the registry's (filtered, tiers expanded, links
 * resolved), or under --self-check the calibration kernels. */
static int plan_benchmarks(const struct pmb_options *o, struct pmb_plan *p, struct pmb_warnings *w)
{
	int err;

	if (o->self_check) {
		p->reps = 1;
		return pmb__selfcheck_plan(&p->inst, &p->ninst) ? pmb__out_error("out of memory") : 0;
	}
	p->reps = (size_t)o->repetitions;
	err = plan_expand(p);
	if (err == PMB_ENOCACHE)
		return pmb__out_error("the topology reports no data caches, so PMB_TIERS has no sizes; %s",
				     p->info.fallback[0] ? p->info.fallback : "filter out the sweep benchmarks");
	if (err)
		return pmb__out_error("%s", *pmb__registry_error() ? pmb__registry_error() : pmb_strerror(err));
	plan_warn_links(p, w);
	if (p->ninst == 0 && !o->topology)
		return pmb__out_error("--filter=%s matches no benchmark; see --list", o->filter ? o->filter : "");
	return 0;
}

/* The simulator reads a PMU's event names (BR_MISP_RETIRED) as the events
 * module does: handed in, since the meter does not reach into the plan. */
static const struct pmb_sim_names sim_names = { pmb__events_resolve, pmb__events_pmus_knowing };

/* The events, by name: the simulator's, or libpfm4's and the tables',
 * into ev, where the run keeps them (its context's plan: the one copy,
 * which the open stage opens in place and the reports and the JSON read);
 * the plan reads them through p->events from here on. */
static int plan_events(const struct pmb_options *o, struct pmb_plan *p, struct pmb_event_plan *ev)
{
	bool sweep = false;
	int err = -1;

	p->events = ev;
	if (p->sim)
		return pmb__sim_resolve(o->counters, &sim_names, ev) ? pmb__out_error("%s", pmb__sim_error()) : 0;
	for (size_t i = 0; i < p->ninst; i++)
		sweep |= p->inst[i].tier[0] != 0;
	/* A working-set sweep is about which level served the loads: by
	 * default it also counts the @cache set, where this PMU has it (a PMU
	 * the tables do not know keeps the plain default). */
	if (!o->counters && sweep)
		err = pmb__events_resolve(PMB_DEFAULT_COUNTERS ",@cache", p->cpu, o->kernel, ev);
	if (err)
		err = pmb__events_resolve(o->counters ? o->counters : PMB_DEFAULT_COUNTERS, p->cpu, o->kernel, ev);
	if (err)
		return pmb__out_error("--counters: %s", *pmb__events_error() ? pmb__events_error() : pmb_strerror(err));
	return 0;
}

/* --disasm: each instance's measured loop, found before anything is
 * measured (a stripped binary fails now, not after the run). */
/* --disasm's listing of each benchmark's code, made before it runs.  One
 * whose loop is longer than the window listed (-E2BIG) is said in a
 * warning and left out, the benchmark measured all the same; code that
 * cannot be read (a stripped binary, no loop) ends the run, as it would
 * for every benchmark. */
static int plan_disasm(const struct pmb_options *o, struct pmb_plan *p, struct pmb_warnings *w)
{
	if (!o->disasm || o->self_check || o->topology)
		return 0;
	p->disasm = calloc(p->ninst + 1, sizeof(*p->disasm));
	if (!p->disasm)
		return pmb__out_error("out of memory");
	for (size_t i = 0; i < p->ninst; i++) {
		const struct pmb_benchmark_def *d = p->inst[i].def;

		int err = pmb__disasm_benchmark(d->func, d->fname, d->role, &p->disasm[i]);

		if (err && err != -E2BIG)
			return pmb__out_error("--disasm: %s", pmb__disasm_error());
		if (err) {
			pmb__warn(w, "--disasm: %s: %s; measured without its listing", p->inst[i].name,
				  pmb__disasm_error());
			p->disasm[i] = NULL;
			continue;
		}
		p->disasm[i]->meant_empty = d->empty;
		pmb__disasm_counted(p->disasm[i]);
		pmb__disasm_rank(p->disasm[i], p->events->nev ? p->events->ev[0].name : NULL);
	}
	return 0;
}

/* ---- events and outputs ------------------------------------------------ */

static int load_events(void)
{
	int err = pmb__events_init(NULL);

	return err ? pmb__out_error("%s", *pmb__events_error() ? pmb__events_error() : pmb_strerror(err)) : 0;
}

/* --out and --plot can be written, and are none of the run's inputs: the
 * program, the shared objects of --load, a topology file, the events
 * tables.  Before anything is measured (or valgrind started). */
static int check_outputs(const struct pmb_options *o)
{
	char aliases[PATH_MAX + 16], sets[PATH_MAX + 16];
	struct pmb_out_input inputs[4 + PMB_OPT_MAX_FILES + 1] = {
		{ "the running program", "/proc/self/exe" },
		{ "the topology source", o->topology_src },
		{ "an events table", aliases },
		{ "an events table", sets },
	};
	int rc = 0;

	for (int i = 0; i < o->load.n; i++)
		inputs[4 + i] = (struct pmb_out_input){ "a shared object of --load", o->load.v[i] };
	snprintf(aliases, sizeof(aliases), "%s/aliases.txt", pmb__events_dir());
	snprintf(sets, sizeof(sets), "%s/sets.txt", pmb__events_dir());
	if (o->out)
		rc = pmb__out_check("--out", o->out, inputs);
	if (!rc && o->plot)
		rc = pmb__out_check("--plot", o->plot, inputs);
	if (!rc && o->save)
		rc = pmb__out_check("--save", o->save, inputs);
	return rc;
}

/* ---- open: pin, probe, counters ------------------------------------------ */

static int open_sim(const struct pmb_plan *p, struct pmb_opened *m)
{
	pmb__sim_geometry(p->info_ok ? &p->info : NULL, m->sim_geometry, sizeof(m->sim_geometry));
	if (pmb__sim_meter(&m->meter, p->events))
		return pmb__out_error("--backend=sim: %s", pmb__sim_error());
	m->ngroups = m->meter.ngroups;
	snprintf(m->got.fallback, sizeof(m->got.fallback), "simulated by valgrind callgrind: time is not measured");
	return 0;
}

/* The plan's events (ev, which is p->events) under the fallback policy of
 * counters_policy.c, opened in place: without a PMU it adds the software
 * events to them. */
static int open_perf(const struct pmb_options *o, const struct pmb_plan *p, struct pmb_event_plan *ev,
		     struct pmb_opened *m, struct pmb_warnings *w)
{
	struct pmb_event_plan sw;
	char kernel_pmu[320];
	struct pmb_counters_env env = { .paranoid = m->env.paranoid, .ghz = m->env.ghz, .sim_hint = true,
					.read = o->read, .virt = m->env.virt, .kernel_pmu = kernel_pmu };
	bool have_sw = pmb__events_resolve("task-clock,page-faults,context-switches", p->cpu,
					  ev->kernel, &sw) == 0;
	int err;

	pmb__events_kernel_pmu(kernel_pmu, sizeof(kernel_pmu));
	err = pmb__counters_open_plan(&m->counters, ev, have_sw ? &sw : NULL, &env, &m->got);

	for (int i = 0; i < m->got.nwarnings; i++)
		pmb__warn(w, "%s", m->got.warning[i]);
	m->ngroups = m->counters.ngroups;
	/* --read=self where some group cannot: nothing measured.  (No
	 * counters at all is no such case: nothing is read either way.) */
	if ((m->got.read_err || err) && o->read == PMB_READ_SELF && m->got.read_path[0] &&
	    strcmp(m->got.read_path, "self"))
		return pmb__out_error("--read=self: the counters cannot be read from user space here: %s",
				     m->got.read_why);
	m->group_read_ns = pmb__probe_group_read(&m->counters, &m->read_inside_ns);
	pmb__runner_perf_meter(&m->meter, &m->counters);
	return 0;
}

/* Pinned, the environment probed, the counters of ev (the plan's events,
 * p->events) opened. */
static int open_meter(const struct pmb_options *o, const struct pmb_plan *p, struct pmb_event_plan *ev,
		      struct pmb_opened *m, struct pmb_warnings *w)
{
	/* Simulated counts do not depend on the core, and a made-up
	 * topology's core is a number only: its sim runs (the tests', three
	 * at a time) are not all put on one core of the machine, where they
	 * took 1.7 times as long. */
	int err = p->sim && o->topology_src ? 0 : pmb__topology_pin(p->topo, p->cpu);

	if (err)
		pmb__warn(w, "could not pin to core %d (%s): samples may migrate", p->cpu, pmb_strerror(err));
	pmb__env_probe(&m->env, p->cpu, p->sim, w);
	m->read_inside_ns = -1;
	return p->sim ? open_sim(p, m) : open_perf(o, p, ev, m, w);
}

/* ---- measure ------------------------------------------------------------- */

/* --min-sample-time, raised to its floors: the clock's resolution, and the
 * counter reads that lie inside the timed window (from user space: tens to
 * hundreds of ns; read()'s system calls lie outside it). */
static double min_sample_ns(const struct pmb_options *o, const struct pmb_plan *p,
			    const struct pmb_opened *m, struct pmb_warnings *w)
{
	double clock_floor = 1000 * m->env.clock.resolution_ns, read_floor = 100 * m->read_inside_ns;
	double floor = fmax(clock_floor, read_floor);

	if (p->sim || o->min_sample_ns >= floor)
		return o->min_sample_ns;
	if (clock_floor >= read_floor)
		pmb__warn(w, "--min-sample-time raised to %.0f us: a sample must last at least 1000 times the "
			 "clock's resolution (%.0f ns)", floor / 1e3, m->env.clock.resolution_ns);
	else
		pmb__warn(w, "--min-sample-time raised to %.0f us: a sample must last at least 100 times what "
			 "reading its counters inside it costs (%.0f ns from user space)", floor / 1e3,
			 m->read_inside_ns);
	return floor;
}

/* A benchmark's own samples stop before BENCH_BUDGET_NS, and before its
 * share of RUN_BUDGET_NS: on a busy machine, where every benchmark ends
 * on its budget, the default suite's samples (105 benchmarks) then take
 * 12 s, not 26 (issue 27: the first run within 30 s). */
#define BENCH_BUDGET_NS 250e6
#define RUN_BUDGET_NS 12e9

static double bench_budget_ns(const struct pmb_plan *p)
{
	double n = (double)(p->ninst * (p->reps ? p->reps : 1));

	return n > 0 && RUN_BUDGET_NS / n < BENCH_BUDGET_NS ? RUN_BUDGET_NS / n : BENCH_BUDGET_NS;
}

static struct pmb_runner_opts runner_opts(const struct pmb_options *o, const struct pmb_plan *p,
					  const struct pmb_opened *m, struct pmb_warnings *w)
{
	struct pmb_runner_opts ro = {
		.cpu = p->cpu,
		.min_sample_ns = min_sample_ns(o, p, m, w),
		.samples = o->samples,
		.samples_given = o->samples_given,
		.warmup_ns = 20e6,
		.budget_ns = bench_budget_ns(p),
		.precision = o->precision,
		.repetitions = (int)p->reps,
		.seed = o->seed,
		.hugepages = o->hugepages,
		.topo = p->topo,
		.progress = isatty(2) && !o->quiet ? pmb__out_progress : NULL,
	};

	if (p->sim && (o->kernel || o->min_sample_ns != PMB_DEFAULT_MIN_SAMPLE_NS))
		pmb__warn(w, "--kernel and --min-sample-time mean nothing under --backend=sim: valgrind counts "
			 "user-space instructions and does not time samples");
	if (o->samples_given && o->samples < 3)
		pmb__warn(w, "--samples=%d: with fewer than 3 samples there is no confidence interval and no fit "
			 "of a fixed cost; figures are single measurements", o->samples);
	return ro;
}

/* Why measuring failed: the simulator's own words where it said any (a
 * dump it could not write), else the error's. */
static const char *measure_why(const struct pmb_plan *p, int err)
{
	return p->sim && *pmb__sim_error() ? pmb__sim_error() : pmb_strerror(err);
}

/* The harness overhead, the instances' samples, the overhead again.  A
 * sample the meter could not read ends the run with an error: its zeros
 * are no figures. */
static int measure(const struct pmb_options *o, const struct pmb_plan *p, const struct pmb_opened *m,
		   struct pmb_samples *s, struct pmb_warnings *w)
{
	struct pmb_overhead after;
	struct pmb_runner_opts after_ro;
	int err;

	s->ro = runner_opts(o, p, m, w);
	err = pmb__runner_overhead(&s->ro, &m->meter, &s->overhead);
	/* Stopped by a signal during it: nothing is measured, and the run
	 * reports so (every result not run). */
	if (err && pmb__stop_signal && err != -ENOMEM)
		memset(&s->overhead, 0, sizeof(s->overhead));
	else if (err)
		return pmb__out_error("measuring the harness overhead failed: %s", measure_why(p, err));
	s->ro.overhead_passes = s->overhead.passes;
	s->n = p->ninst * p->reps;
	s->res = calloc(s->n + 1, sizeof(*s->res));
	if (!s->res)
		return pmb__out_error("out of memory");
	err = pmb__runner_run(&s->ro, &m->meter, p->inst, p->ninst, s->res);
	pmb__out_progress_end();
	if (err)
		return pmb__out_error("running the benchmarks failed: %s", measure_why(p, err));
	s->stopped = pmb__stop_signal;
	for (size_t i = 0; i < s->n; i++)
		s->nrun += !s->res[i].m.not_run;
	/* Counts that depend on timing: the overhead again now, merged (not
	 * after a signal: it asked to stop).  Without the warm-up: the core
	 * has just run the benchmarks, and the 20 ms cost every run as much
	 * again (a third of a one-benchmark run in the emulated guest, issue
	 * 29); it is still calibrated, and its samples are as many. */
	after_ro = s->ro;
	after_ro.warmup_ns = 0;
	if (!m->meter.deterministic && !s->stopped &&
	    pmb__runner_overhead(&after_ro, &m->meter, &after) == 0) {
		pmb__overhead_merge(&after, &s->overhead);
		s->overhead = after;
	}
	/* --self-check's cycles estimated from time are only as right as the
	 * frequency at the start: the estimate again now tells whether the
	 * core kept its speed through the checks (on a VM the host's other
	 * work moves it: 2.75 to 3.24 GHz from one run to the next here). */
	if (o->self_check && !p->sim && !m->got.cycles && m->env.ghz > 0 && !s->stopped &&
	    pmb__clock_estimate_ghz(&s->ghz_after))
		s->ghz_after = 0;
	return 0;
}

/* The event --disasm samples with a PMU: the first counted hardware
 * event (cycles by default), or -1. */
static int sampled_event(const struct pmb_plan *p, const struct pmb_opened *m)
{
	for (int e = 0; e < p->events->nev; e++)
		if (m->got.event_group[e] >= 0 && p->events->ev[e].attr.type != PERF_TYPE_SOFTWARE)
			return e;
	return -1;
}

/* --disasm: each result's annotated loop, with the counts of each
 * instruction from a run of the instance alone again: simulated, or the
 * samples of one event where a PMU counts it. */
static void annotate(const struct pmb_plan *p, const struct pmb_opened *m, struct pmb_samples *s,
		     struct pmb_warnings *w)
{
	int e = p->sim ? -1 : sampled_event(p, m), err;

	if (p->disasm && !p->sim && e < 0)
		pmb__warn(w, "--disasm: no hardware event counts here, so none is sampled per instruction; "
			 "--backend=sim gives simulated counts per instruction");
	for (size_t i = 0; p->disasm && i < p->ninst; i++) {
		if (!p->disasm[i])
			continue;
		pmb__disasm_site(p->disasm[i], s->res[i * p->reps].m.loop_site);
		if (s->res[i * p->reps].m.status)
			goto link;
		if (p->sim && pmb__sim_annotate(&s->ro, &m->meter, &p->inst[i], p->disasm[i]))
			pmb__warn(w, "--disasm: %s", pmb__sim_error());
		if (e >= 0) {
			err = pmb__runner_sample(&s->ro, &m->meter, &p->inst[i], e, &p->events->ev[e].attr,
						 p->events->ev[e].name, p->disasm[i]);
			if (err)
				pmb__warn(w, "--disasm: %s: cannot sample %s here: %s", p->inst[i].name,
					 p->events->ev[e].name, pmb_strerror(err));
		}
link:
		if (!p->disasm[i]->counted && !p->disasm[i]->sampled)
			pmb__disasm_site(p->disasm[i], s->res[i * p->reps].m.loop_site);
		for (size_t r = 0; r < p->reps; r++)
			s->res[i * p->reps + r].disasm = p->disasm[i];
	}
}

/* ---- analyse and report -------------------------------------------------- */

/* Where the work went of a result whose loop holds none (issue 34), from its
 * code: the listing --disasm made, else one made now of the benchmark's
 * function alone.  Code that cannot be read tells nothing. */
static enum pmb_work_went work_went(const struct pmb_result *r)
{
	const struct pmb_benchmark_def *def = r->m.inst->def;
	struct pmb_disasm *own = NULL, *d = r->disasm;
	enum pmb_work_went w;

	if (!d) {
		if (pmb__disasm_benchmark(def->func, def->fname, def->role, &own))
			return PMB_WORK_NOT_LOOKED;
		d = own;
		pmb__disasm_site(d, r->m.loop_site);
	}
	w = !d->body_empty ? PMB_WORK_IN_LOOP : d->outside > 0 ? PMB_WORK_HOISTED : PMB_WORK_REMOVED;
	pmb__disasm_free(own);
	return w;
}

/* The figures, then where the work went of each loop that holds none,
 * then the warnings, which name it. */
static void analyze(struct pmb_context *ctx, struct pmb_result *res, size_t n, size_t reps)
{
	int misp = pmb__context_event(ctx, "branch-misses|cond-branch-misses");

	pmb__analyze_figures(ctx, res, n, reps);
	/* --disasm under perf: the samples place the code, the counted
	 * mispredictions are what its claims about branches are checked
	 * against (the first repetition's; one listing serves them all). */
	for (size_t i = 0; i < n && !pmb_context_sim(ctx); i++)
		if (res[i].disasm && (i == 0 || res[i - 1].disasm != res[i].disasm))
			pmb__disasm_misp(res[i].disasm, misp >= 0 && res[i].f.ev[misp].valid ?
					 res[i].f.ev[misp].s.median : NAN);
	for (size_t i = 0; i < n; i++) {
		if (!pmb__analysis_no_work(ctx, &res[i]))
			continue;
		/* A repetition's code is its instance's: looked at once. */
		if (i > 0 && res[i - 1].m.inst == res[i].m.inst && res[i - 1].work_went != PMB_WORK_NOT_LOOKED)
			res[i].work_went = res[i - 1].work_went;
		else
			res[i].work_went = work_went(&res[i]);
	}
	pmb__analysis_warn(ctx, res, n);
}

/* The reports' one input, read-only from here on (the analysis adds its
 * warnings): what each stage returned, into c, which holds the event plan
 * already (resolved there and opened in place) and is zero elsewhere.  s
 * NULL: nothing measured (--topology). */
static void context_of(struct pmb_context *c, const struct pmb_options *o, const struct pmb_plan *p,
		       const struct pmb_opened *m, const struct pmb_samples *s, const struct pmb_warnings *w)
{
	const struct pmb_env *env = &m->env;
	bool fixed;

	_Static_assert(sizeof(c->m.event_why) == sizeof(m->got.why), "event_why");
	snprintf(c->m.date, sizeof(c->m.date), "%s", env->date);
	/* Any bytes may be in them; every report writes them (text.h). */
	pmb__text_safe(c->m.host, sizeof(c->m.host), env->host);
	pmb__text_safe(c->m.executable, sizeof(c->m.executable), env->executable);
	snprintf(c->m.governor, sizeof(c->m.governor), "%s", env->governor);
	snprintf(c->m.cpu_model, sizeof(c->m.cpu_model), "%s", env->cpu_model);
	c->m.clock = env->clock;
	c->m.ghz = env->ghz;
	c->m.ghz_after = s ? s->ghz_after : 0;
	c->m.turbo = env->turbo;
	memcpy(c->m.loadavg, env->loadavg, sizeof(c->m.loadavg));
	c->m.busy = env->busy;
	c->m.idlest_cpu = env->idlest_busy < env->busy / 2 ? env->idlest_cpu : -1;
	c->m.paranoid = env->paranoid;
	c->m.backend = p->sim ? PMB_BACKEND_SIM : PMB_BACKEND_PERF;
	c->m.cpu = p->cpu;
	c->m.ncpus = p->ncpus;
	c->m.topo = p->info;
	c->m.topo_ok = p->info_ok;
	c->m.ngroups = m->ngroups;
	memcpy(c->m.event_group, m->got.event_group, sizeof(c->m.event_group));
	memcpy(c->m.event_why, m->got.why, sizeof(c->m.event_why));
	snprintf(c->m.fallback, sizeof(c->m.fallback), "%s", m->got.fallback);
	snprintf(c->m.read_path, sizeof(c->m.read_path), "%s", m->got.read_path);
	snprintf(c->m.read_why, sizeof(c->m.read_why), "%s", m->got.read_why);
	c->m.pmu_ok = m->got.pmu_works;
	if (o->topology)
		pmb__events_kernel_pmu(c->m.pmu_kernel, sizeof(c->m.pmu_kernel));
	c->m.pmu_denied = m->got.denied && !m->got.hw_counts;
	c->m.has_cycles = m->got.cycles;
	c->m.group_read_ns = m->group_read_ns;
	snprintf(c->m.sim_geometry, sizeof(c->m.sim_geometry), "%s", m->sim_geometry);
	c->m.hugepages = o->hugepages;
	c->m.seed = o->seed;
	/* The stop rule the samples had: a fixed count (--samples, or the
	 * simulator's), else 0 and the adaptive rule's precision and budget. */
	fixed = o->samples_given || m->meter.deterministic;
	c->m.samples = o->samples_given ? o->samples : fixed ? PMB_DETERMINISTIC_SAMPLES : 0;
	c->m.precision = fixed ? NAN : o->precision;
	c->m.budget_ns = fixed ? NAN : bench_budget_ns(p);
	c->m.repetitions = o->repetitions;
	c->m.counters_given = o->counters != NULL;
	c->view = pmb__console_view(o->out, o->columns, o->wide, o->verbose);
	if (s) {
		c->m.overhead = s->overhead;
		c->m.min_sample_ns = s->ro.min_sample_ns;
	}
	if (s && s->stopped)
		snprintf(c->m.incomplete, sizeof(c->m.incomplete), "interrupted by %s: %zu of %zu benchmark%s measured",
			 pmb__interrupt_name(s->stopped), s->nrun, s->n, s->n == 1 ? "" : "s");
	for (int i = 0; i < w->n; i++)
		pmb__warn(&c->m.warnings, "%s", w->text[i]);
}

/* pmb__out_report, with SIGINT, SIGTERM and SIGHUP held off while files
 * are written (a second signal exits at once, which must not leave their
 * temporary files); and where the report went to standard output and did
 * not get there, why (errno of the failed write, which main's last check
 * of standard output would no longer know). */
static int report_write(const struct pmb_options *o, const struct pmb_context *ctx,
			const struct pmb_result *r, size_t n)
{
	sigset_t hold, old;
	int rc;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	if (o->out || o->plot || o->save)
		sigprocmask(SIG_BLOCK, &hold, &old);
	errno = 0;
	/* Quiet (pmb_run_with): the files asked for, never standard output. */
	rc = o->out || !o->quiet ? pmb__out_report(o->format, o->out, o->plot, ctx, r, n) : 0;
	/* --save: the samples as a file too, for `pmubench report`. */
	if (!rc && o->save)
		rc = pmb__out_report(PMB_FORMAT_JSON, o->save, NULL, ctx, r, n);
	if (o->out || o->plot || o->save)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc && !o->out && !o->quiet && ferror(stdout)) {
		pmb__out_error("cannot write the report to standard output: %s",
			       errno ? strerror(errno) : "a write failed");
		clearerr(stdout);
	}
	return rc;
}

/* The results a signal left unmeasured (not_run) dropped, the others in
 * their order: after the analysis, which finds a result's baseline and
 * reference by position, the reports only walk them.  Returns a malloc'ed
 * array of shallow copies (the samples stay s's), or NULL. */
static struct pmb_result *measured_only(const struct pmb_run *run, size_t nrun)
{
	struct pmb_result *r = malloc((nrun + 1) * sizeof(*r));
	size_t k = 0;

	for (size_t i = 0; r && i < run->n; i++)
		if (!run->res[i].m.not_run)
			r[k++] = run->res[i];
	return r;
}

/* The report of a run a signal stopped: what was measured, marked
 * incomplete; the exit status is the signal's (a write that failed has
 * said so). */
static int report_stopped(const struct pmb_options *o, const struct pmb_run *run,
			  const struct pmb_samples *s)
{
	struct pmb_result *r = measured_only(run, s->nrun);

	if (!r)
		return pmb__out_error("out of memory");
	report_write(o, run->ctx, r, s->nrun);
	free(r);
	return 128 + s->stopped;
}

/* The report of a run, and its exit status: 1 where a benchmark failed its
 * check; the signal's where one stopped the run (s: how many were
 * measured). */
static int report(const struct pmb_options *o, const struct pmb_run *run, const struct pmb_samples *s)
{
	int rc;

	if (o->self_check) {
		rc = pmb__report_selfcheck(run->ctx, run->res, run->n, stdout);
		if (s->stopped)
			pmb__out_incomplete(run->ctx->m.incomplete);
		return s->stopped ? 128 + s->stopped : rc;
	}
	if (s->stopped)
		return report_stopped(o, run, s);
	rc = report_write(o, run->ctx, run->res, run->n);
	return pmb__out_failed_checks(run->res, run->n) ? 1 : rc;
}

/* ---- the path ------------------------------------------------------------- */

/* --columns names columns of the events the run counts (a fallback's
 * too): checked once they are known, before the long part. */
static int check_columns(const struct pmb_options *o, const struct pmb_plan *p)
{
	char err[1600];

	if (pmb__columns_check(o->columns, p->events, err, sizeof(err)))
		return pmb__out_error("%s", err);
	return 0;
}

/* Counters opened, samples measured, figures analysed (into ctx, which
 * holds the plan's events, and the results, handed to run, which owns them
 * from here on), report written unless quiet. */
static int run_plan(const struct pmb_options *o, const struct pmb_plan *plan, struct pmb_warnings *warn,
		    struct pmb_context *ctx, struct pmb_run *run)
{
	struct pmb_opened opened;
	struct pmb_samples samples;
	int rc, printed = 0;

	memset(&opened, 0, sizeof(opened));
	memset(&samples, 0, sizeof(samples));
	rc = open_meter(o, plan, &ctx->m.plan, &opened, warn);
	if (rc)
		goto out;
	if (o->columns && check_columns(o, plan)) {
		rc = 2;
		goto out;
	}
	if (!o->quiet)
		pmb__out_warnings(warn->text, warn->n, &printed);
	/* --topology: what is planned, on the counters opened; nothing is
	 * measured, and the command line prints it. */
	if (o->topology) {
		context_of(ctx, o, plan, &opened, NULL, warn);
		run->ctx = ctx;
		goto out;
	}
	rc = o->quiet ? 0 : pmb__interrupt_catch(isatty(2)); /* pmb_run(): the caller's signals */
	if (rc) {
		rc = pmb__out_error("cannot catch signals: %s", pmb_strerror(rc));
		goto out;
	}
	rc = measure(o, plan, &opened, &samples, warn);
	if (samples.stopped && isatty(2))
		pmb__out_progress_erase();
	if (samples.stopped)
		pmb__out_interrupted(pmb__interrupt_name(samples.stopped), samples.nrun, samples.n);
	if (rc)
		goto out;
	annotate(plan, &opened, &samples, warn);
	context_of(ctx, o, plan, &opened, &samples, warn);
	analyze(ctx, samples.res, samples.n, plan->reps);
	if (!o->quiet)
		pmb__out_context_warnings(ctx, &printed);
	run->ctx = ctx;
	run->res = samples.res;
	run->n = samples.n;
	samples.res = NULL;
	rc = pmb__run_values(run) ? pmb__out_error("out of memory") : 0;
	if (!rc && !o->quiet)
		rc = report(o, run, &samples);
	else if (!rc && (o->out || o->save))
		rc = report_write(o, run->ctx, run->res, run->n);
out:
	pmb__interrupt_release();
	for (size_t i = 0; samples.res && i < samples.n; i++)
		pmb__result_free_samples(&samples.res[i]);
	free(samples.res);
	if (plan->sim && opened.meter.ctx)
		pmb__sim_meter_close(&opened.meter);
	pmb__counters_close(&opened.counters);
	return rc;
}

/* The plan's first stage: the shared objects, the filter, the machine. */
static int plan_start(const struct pmb_options *o, struct pmb_plan *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	rc = plan_load(o);
	if (!rc)
		rc = plan_filter(o, p);
	if (!rc)
		rc = plan_machine(o, p);
	return rc;
}

/* What the plan holds freed; the instances handed to run where it has
 * results, which point into them. */
static void plan_end(struct pmb_plan *p, struct pmb_run *run)
{
	for (size_t i = 0; run && run->res && p->disasm && i < run->n; i++)
		run->res[i].disasm = NULL; /* freed below; the run keeps no listing */
	for (size_t i = 0; p->disasm && i < p->ninst; i++)
		pmb__disasm_free(p->disasm[i]);
	free(p->disasm);
	if (run && run->ctx) {
		run->inst = p->inst;
		p->inst = NULL;
	}
	free(p->inst);
	if (p->have_filter)
		regfree(&p->filter);
	pmb__topology_free(p->topo);
}

int pmb__run_instances(const struct pmb_options *o, struct pmb_instance **inst, size_t *n)
{
	struct pmb_plan plan;
	int rc = plan_start(o, &plan);

	if (!rc)
		rc = plan_expand(&plan);
	*inst = rc ? NULL : plan.inst;
	*n = rc ? 0 : plan.ninst;
	if (!rc)
		plan.inst = NULL;
	plan_end(&plan, NULL);
	return rc;
}

int pmb__run_machine(const struct pmb_options *o)
{
	struct pmb_plan plan;
	int rc = plan_start(o, &plan);

	plan_end(&plan, NULL);
	return rc;
}

int pmb__run_sim_target(const struct pmb_options *o, struct pmb_topology_info *info, bool *info_ok, char *pmu,
			size_t size)
{
	struct pmb_plan plan;
	int rc = plan_start(o, &plan);

	if (!rc)
		rc = load_events();
	if (!rc)
		rc = check_outputs(o);
	*info_ok = !rc && plan.info_ok;
	if (*info_ok)
		*info = plan.info;
	/* The child's CPUID is valgrind's: libpfm4 would take another core
	 * there, so the parent names the core PMU it is run for. */
	if (rc || pmb__events_core_pmu(*info_ok ? info->cpu : -1, pmu, size))
		pmu[0] = '\0';
	plan_end(&plan, NULL);
	pmb__events_fini();
	return rc;
}

int pmb__run_path(const struct pmb_options *o, struct pmb_run *run)
{
	struct pmb_plan plan;
	struct pmb_warnings warn = { 0 };
	struct pmb_context *ctx = NULL; /* the run's, from the events on */
	int rc;

	rc = plan_start(o, &plan);
	if (!rc)
		rc = load_events();
	if (!rc)
		rc = check_outputs(o);
	if (rc)
		goto out;
	/* The command line runs itself again under valgrind first
	 * (cli/run_cli.c), and pmb_run_with() refuses: never here. */
	if (o->backend == PMB_WANT_SIM && !plan.sim) {
		rc = pmb__out_error("--backend=sim: the simulator's events count only under valgrind");
		goto out;
	}
	rc = plan_benchmarks(o, &plan, &warn);
	/* The context is made before the events are resolved, so that they
	 * are resolved where the run keeps them (ctx->m.plan, 12 KB): each
	 * stage then reads or opens that one, none copies it. */
	if (!rc && !(ctx = calloc(1, sizeof(*ctx))))
		rc = pmb__out_error("out of memory");
	if (!rc)
		rc = plan_events(o, &plan, &ctx->m.plan);
	if (!rc)
		rc = plan_disasm(o, &plan, &warn);
	if (!rc)
		rc = run_plan(o, &plan, &warn, ctx, run);
out:
	plan_end(&plan, run);
	pmb__events_fini();
	pmb__warnings_free(&warn);
	if (run->ctx != ctx) { /* not handed to the run */
		pmb__context_free(ctx);
		free(ctx);
	}
	return rc;
}
