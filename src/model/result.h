/* result.h - the plain structs handed forward: instances, samples, results, run context. */
#ifndef PMB_RESULT_H
#define PMB_RESULT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmubench.h"
#include "base.h"
#include "count.h"
#include "event_plan.h"
#include "machine.h"
#include "sweep.h"
#include "branch_figures.h"
#include "per_sample.h"

/* A benchmark with a known answer (--self-check's calibration kernels):
 * the figure it checks and the range accepted. */
struct pmb_known_answer {
	const char *what;   /* event names "a|b" (the first the plan has), or
	                       "cycles" (counted, else estimated) */
	double lo, hi;      /* accepted per-item range */
	const char *expect; /* "1 cycle/item" */
};

/* One expanded benchmark: a definition with its argument values. */
struct pmb_instance {
	const struct pmb_benchmark_def *def;
	const struct pmb_known_answer *known; /* --self-check's; NULL none */
	char name[192];    /* group/kernel/variant/args */
	char family[160];  /* group/kernel/variant: the name without args */
	char args[64];     /* "p50", "32KiB", "" */
	int64_t arg[2];
	char tier[8];      /* "" or the tier label of a PMB_TIERS point */
	uint64_t working_set; /* bytes, for PMB_TIERS points */
	int baseline;      /* instance index of the additive baseline, -1 */
	int reference;     /* instance index of the multiplicative one, -1 */
	int cohort;        /* instances of one cohort run interleaved */
};

/* One sample: `passes` passes of the loop, its time and counter reads. */
struct pmb_sample {
	uint64_t passes;
	uint64_t ns;
	int group;                              /* counter group read, -1 none */
	uint32_t mask;                          /* bit e: count[e] was read */
	struct pmb_count count[PMB_MAX_EVENTS]; /* by plan event index */
};

/* One per-item figure of one benchmark (time, an event, est. cycles). */
struct pmb_figure {
	bool valid;          /* false: not measured (never ran, not opened) */
	int multiplexed;     /* 0 exact, 1 multiplexed (scaled by time running), -1 never ran */
	bool estimated;      /* derived from time and the frequency estimate */
	bool simulated;      /* from the valgrind backend */
	bool below_resolution; /* median under the resolution: not a number */
	double resolution;   /* per item, same unit */
	struct pmb_summary s; /* per item, harness overhead subtracted */
	/* The fixed cost per sample, a of cost = a + b*passes
	 * (analysis_fixed.c): under the perf backend the seed's two-point
	 * formula on the fastest samples at the ends of the ladder, with a
	 * bootstrap interval; under sim exact from the two pass counts. */
	double fixed;        /* per sample; 0 where not estimated */
	double fixed_lo, fixed_hi; /* its 95 % interval; NAN none */
	double fixed_share_hi; /* fixed_hi / the median sample's cost, >= 0:
	                          the most the fixed cost can be of a typical
	                          sample, resolved or not; NAN no interval */
	double fixed_share;  /* fixed / the median sample's cost, >= 0; 0 where
	                        the fixed cost is not resolved */
	bool fixed_flagged;  /* resolved and at least PMB_FIXED_SHARE of a sample */
	double fixed_two_point; /* the two-point estimate (= fixed) */
	double fixed_fit;    /* the robust fit's (Theil-Sen) estimate, for
	                        comparison; NAN none */
	/* Baselines and references (analysis_links.c; the table of cases is
	 * in pmubench(3)).  Each figure is NAN where it is not given, and its
	 * _why says why in a few words (NULL: given, or nothing to give). */
	double normalized;   /* median less the baseline's median */
	double normalized_lo, normalized_hi; /* paired bootstrap interval */
	const char *normalized_why;
	double ratio, ratio_lo, ratio_hi; /* to the reference: normalized over
	                                     normalized where both have a
	                                     baseline, else raw over raw */
	bool ratio_normalized; /* the ratio is of normalized figures */
	const char *ratio_why;
	double raw_ratio, raw_ratio_lo, raw_ratio_hi; /* raw over raw, given
	                                     beside a normalized ratio */
	const char *raw_ratio_why;
};

/* A figure's relative error: half its 95 % interval over its median, as
 * the ±% column prints it; NAN where there is no interval or the median is
 * not positive.  Above PMB_NOISY_ERROR the figure is flagged: a warning
 * names it, a plot marks its point. */
static inline double pmb_figure_error(const struct pmb_figure *f)
{
	if (!(f->s.median > 0) || !(f->s.ci_hi >= f->s.ci_lo))
		return NAN;
	return (f->s.ci_hi - f->s.ci_lo) / 2 / f->s.median;
}
#define PMB_NOISY_ERROR 0.05

/* Why a normalized figure or a ratio is not given: the short reasons that
 * struct pmb_figure's _why fields point to (the reports print them in the
 * cell, the warnings name the benchmarks). */
#define PMB_WHY_BASE_MISSING "baseline not measured"
#define PMB_WHY_BASE_SLOWER "baseline slower"
#define PMB_WHY_BASE_EQUAL "not resolved from baseline"
#define PMB_WHY_IS_BASE "is the baseline"
#define PMB_WHY_REF_MISSING "reference not measured"
#define PMB_WHY_REF_UNRESOLVED "reference not resolved"
#define PMB_WHY_CI_ZERO "interval holds 0"
#define PMB_WHY_NEGATIVE "negative"
#define PMB_WHY_BELOW_RES "below resolution"

/* The one per-item formula, for analysis, the JSON writer and compare: a
 * sample's value less the harness overhead (per sample, and per pass times
 * its passes), divided by its items. */
static inline double pmb_per_item(double v, double ov_sample, double ov_pass, double passes,
				  double items_per_pass)
{
	return (v - ov_sample - ov_pass * passes) / (passes * items_per_pass);
}

/* The share of a sample from which a fixed cost per sample is flagged. */
#define PMB_FIXED_SHARE 0.05

/* Harness overhead: the empty loop.  Per pass and per sample, for time and
 * for each event, fitted from samples at N and 2N passes. */
struct pmb_overhead {
	double ns_per_pass, ns_per_sample;
	double ev_per_pass[PMB_MAX_EVENTS], ev_per_sample[PMB_MAX_EVENTS];
	bool ev_valid[PMB_MAX_EVENTS];
	double ns_noise_per_pass;  /* spread of the per-pass estimate: below it a
	                              per-pass difference is not resolved */
	double ev_noise_per_pass[PMB_MAX_EVENTS];
	size_t nsamples;
	uint64_t passes;           /* N of the N and 2N schedule */
};

#define PMB_MAX_WARNINGS 32

/* What a user must be told, each once, in the order it was found: each
 * stage of a run adds to the run's list (run.c); nothing prints here. */
struct pmb_warnings {
	char *text[PMB_MAX_WARNINGS]; /* owned */
	int n;
};

struct pmb_disasm;

/* Where the work of a loop that holds none went, as its code shows
 * (issue 34): the run looks (run.c, from the disassembly) only for a
 * result the analysis found without work (pmb__analysis_no_work). */
enum pmb_work_went {
	PMB_WORK_NOT_LOOKED,  /* not asked, or the code could not be read */
	PMB_WORK_IN_LOOP,     /* the loop body holds instructions */
	PMB_WORK_HOISTED,     /* body empty; the function computes outside its
	                         loops, once: hoisted before the loop */
	PMB_WORK_REMOVED,     /* body empty and nothing computed outside it */
};

/* What the measure stage produced for one benchmark (runner.c, state.c;
 * results_load.c reads it back from a file): measure writes it, the
 * analysis and the reports read it. */
struct pmb_measured {
	struct pmb_instance *inst;
	int status;                /* 0, PMB_ESKIPPED, PMB_EVERIFY */
	char reason[200];          /* why skipped or failed */
	uint64_t items_per_pass;
	uint64_t bytes_per_pass;   /* 0: not given */
	uint64_t seed;
	bool seed_used;            /* the benchmark asked pmb_seed() */
	bool misp_declared;        /* the benchmark called pmb_set_mispredict_rate() */
	double misp_rate;          /* its declared rate (0..1) where misp_declared */
	double huge_fraction;      /* of its pmb_buffer_alloc buffers; -1 none */
	int repetition;            /* 0-based, for --repetitions */
	bool not_run;              /* a signal stopped the run before its first
	                              sample: status PMB_ESKIPPED, and left out
	                              of the reports */
	struct pmb_sample *samples;
	size_t nsamples, cap;
	/* Probes of the fixed cost per sample: short samples (an eighth of
	 * the calibrated passes) taken between the ladder's, used for the
	 * fixed cost only.  Against the ladder's shortest samples, the
	 * fastest long sample still carries the machine's disturbances
	 * (here 1-3 % of its time), which made a 4 MiB memset read -16 %. */
	struct pmb_sample *probes;
	size_t nprobes, probes_cap;
	uint64_t warmup_ns, calib_passes;
	uintptr_t loop_site;       /* where the loop first called pmb__loop_next
	                              from (a return address), for --disasm */
	/* The harness overhead measured right before and after this
	 * benchmark's cohort (local = true), subtracted instead of the run's:
	 * the empty loop's own speed drifts (seen here: 1 to 2.3 cycles per
	 * pass within one process), so the overhead is taken when the
	 * benchmark runs. */
	struct pmb_overhead overhead;
	bool local_overhead;
	/* The samples phase, from its first sample to its last (the
	 * runner's; outside every sample): wall and this thread's CPU time,
	 * for the CPU time per item where task-clock is not counted.  0:
	 * not taken. */
	uint64_t span_wall_ns, span_cpu_ns;
	/* What ended the samples (enum pmb_stop, base/stop.h): the interval
	 * reached --precision, the memory bound on samples (runner.c's
	 * STOP_MAX_SAMPLES, not a stop rule), the time budget, a fixed
	 * count (--samples, the simulator), a signal; NONE not measured. */
	int stopped_by;
};

/* What a derived figure (num / den x scale) may claim. */
enum pmb_derived_given {
	PMB_DERIVED_NONE,        /* not computable: its operands are not both resolved */
	PMB_DERIVED_DEN_LOW,     /* its denominator at or under its resolution: no
	                            ratio over it (it could be any number) */
	PMB_DERIVED_BOUND,       /* its numerator below resolution: at most
	                            derived_bound, not the noise under it */
	PMB_DERIVED_VALUE,       /* the value itself */
};

/* A known answer against its figure (analysis_check.c). */
enum pmb_check_verdict { PMB_CHECK_NONE, PMB_CHECK_OK, PMB_CHECK_WRONG, PMB_CHECK_UNCHECKED,
			 PMB_CHECK_UNSTEADY };
struct pmb_check_figure {
	enum pmb_check_verdict verdict; /* NONE: the benchmark has no known answer;
	                                   UNCHECKED: it failed, or no figure;
	                                   UNSTEADY: a cycles figure out of its
	                                   range that the run's own evidence
	                                   accounts for (not judged) */
	/* The evidence for UNSTEADY (analysis_check.c unsteady()), kept for a
	 * WRONG cycles figure too: its samples' fastest, first quartile and
	 * slowest per item, the most a fixed cost per sample adds per item
	 * (NAN unknown), and quarter_in where a quarter of the samples gave the
	 * known answer while the median reads high; speed_moved where cycles
	 * are estimated from time and the frequency estimated after the checks
	 * (ghz_after) stands over 5 % from the one used, at_after the figure at
	 * that frequency. */
	bool quarter_in, speed_moved;
	double seen_lo, seen_q1, seen_hi, fixed_hi, at_after;
	int event;           /* plan index of the figure checked, -1 the
	                        estimated cycles or none */
	double value;        /* that figure's median per item; NAN none */
	bool estimated, simulated;
	/* WRONG where the PMU counts cycles equal to instructions exactly
	 * (an emulator without timing): the cycles per item then. */
	bool timeless;
	double timeless_cycles;
};

/* What the analysis computed for one benchmark from its struct
 * pmb_measured (and the run's struct pmb_run_measured): analyse writes it,
 * the reports read it. */
struct pmb_figures {
	struct pmb_figure time;                 /* ns per item */
	struct pmb_figure ev[PMB_MAX_EVENTS];   /* per item, by plan index */
	struct pmb_figure est_cycles;           /* time x frequency estimate */
	double derived[PMB_MAX_DERIVED];        /* NAN where not computable */
	/* How each derived figure may be given (analysis.c derive()), and
	 * where its numerator is below resolution the bound it stays under
	 * (the numerator's resolution over the denominator, with the
	 * figure's scale; NAN else). */
	enum pmb_derived_given derived_given[PMB_MAX_DERIVED];
	double derived_bound[PMB_MAX_DERIVED];
	double rep_spread;                      /* --repetitions: (max-min)/median of
	                                           the repetitions' medians; NAN */
	/* analysis_learn.c: the ladder of pass counts and the repetitions */
	double ladder_fall;  /* relative fall of the marginal cost per pass from
	                        the ladder's first step to its last; NAN none */
	bool learning;       /* ladder_fall says the input is being learned */
	bool rung_modes;     /* per-item costs of rungs in separate modes */
	bool rep_modes;      /* repetitions apart beyond their intervals */
	double items_per_second, bytes_per_second;
	/* CPU time per item (analysis.c): task-clock's where counted, else
	 * ns/item scaled by the span's CPU share; NAN none. */
	double cpu_per_item;
	const char *cpu_source;  /* "task-clock", "thread CPU time", NULL */
	struct pmb_check_figure check; /* --self-check's verdict */
	uint64_t passes, ns;     /* over every sample (not the probes): what the
	                            console's count columns, the CSV and the
	                            Google Benchmark fields print */
};

/* One benchmark's stage outputs side by side, each written by one stage:
 * the samples (m, measure's), the figures (f, the analysis's), and what
 * run.c's --disasm step adds from the code. */
struct pmb_result {
	struct pmb_measured m;
	struct pmb_figures f;
	enum pmb_work_went work_went;           /* where the work went, where the
	                                           loop holds none and the code
	                                           was looked at (run.c) */
	struct pmb_disasm *disasm;              /* --disasm: the annotated loop
	                                           (run.c owns it); NULL none */
};

/* How the console report is drawn: --columns, --wide, --verbose and the
 * terminal's width.  The console's alone: JSON and CSV write everything. */
struct pmb_console_view {
	int width;           /* columns the report must fit in */
	char columns[256];   /* --columns=LIST; "" chosen by what was measured */
	bool wide;           /* --wide: every column */
	bool verbose;        /* --verbose: the whole probe in the header */
};

/* Where the counts come from: perf_event counters, or valgrind's simulation. */
enum pmb_backend { PMB_BACKEND_PERF, PMB_BACKEND_SIM };

/* Facts about the whole run, before the analysis: run.c assembles them from
 * what the stages returned (plan, opened counters, environment probe,
 * measured overhead, warnings); results_load.c reads them back. */
struct pmb_run_measured {
	char date[40];
	char host[64];
	char executable[256];
	char cpu_model[96];        /* "" unknown; console only */
	enum pmb_backend backend;
	int cpu;                   /* pinned */
	int ncpus;
	struct pmb_clock_probe clock;
	double ghz;                /* frequency estimate; 0 unknown */
	double ghz_after;          /* --self-check without a cycles event: the
	                              estimate made again after the checks, to
	                              tell whether the core kept its speed; 0
	                              not measured */
	double group_read_ns;      /* cost of one counter-group read; -1 n/a */
	char read_path[8];         /* "self", "syscall", "mixed"; "" no counters */
	char read_why[PMB_READ_WHY]; /* "" or why a group is read by read() */
	char governor[32];         /* "" unknown */
	int turbo;                 /* 1 on, 0 off, -1 unknown */
	double loadavg[3];
	double busy;               /* share of the core other work kept busy
	                              before the run (the probe's); 0 unknown */
	int idlest_cpu;            /* a core at most half as busy; -1 none */
	int paranoid;              /* perf_event_paranoid; -100 unknown */
	bool pmu_ok;               /* hardware events count */
	bool pmu_denied;           /* hardware events refused by permission
	                              (perf_event_paranoid), not absent */
	char fallback[256];        /* "" or what the run does instead */
	char pmu_kernel[512];      /* what the kernel exposes of the core PMU
	                              (--topology); "" not asked */
	struct pmb_event_plan plan;
	int ngroups;
	int event_group[PMB_MAX_EVENTS]; /* group of each event; -1 not opened */
	char event_why[PMB_MAX_EVENTS][192]; /* why an event is not counted; "" counted */
	bool has_cycles;           /* a real cycles event counted */
	bool counters_given;       /* --counters given: its events were asked
	                              for (their columns shown, even of 0) */
	struct pmb_overhead overhead;
	struct pmb_topology_info topo;
	bool topo_ok;
	bool hugepages;
	uint64_t seed;             /* --seed or 0 */
	int samples;               /* a fixed count (--samples, the simulator's);
	                              0: adaptive */
	int repetitions;
	double precision;          /* the adaptive stop: --precision, a fraction
	                              (0 none), and each benchmark's time budget;
	                              NAN where --samples fixed the count */
	double budget_ns;
	double min_sample_ns;
	char sim_geometry[160];    /* sim backend: the simulated caches */
	char incomplete[160];      /* why the run stopped early (a signal), and
	                              how far it got; "" complete */
	struct pmb_warnings warnings; /* raised before the analysis (plan,
	                                 counters, measuring), each once */
};

/* What the analysis adds to the run's facts. */
struct pmb_run_figures {
	struct pmb_warnings warnings; /* the analysis's own, each once and
	                                 none of the measured ones again */
	struct pmb_sweep_figures *sweeps;  /* the sweeps' figures (analysis_sweep.c); owned */
	int nsweeps;
	struct pmb_branch_figures *branches; /* the branch studies' figures (analysis_branch.c); owned */
	int nbranches;
	struct pmb_per_sample *per_sample; /* each result's figures per sample (analysis.c); owned */
	size_t nper_sample;
	/* What a sweep's and a branch study's points are figures of, chosen
	 * once for every report (console, JSON, plot): -2 time (perf), else
	 * an event's plan index.  Under simulation, where nothing is timed,
	 * a sweep's is the miss event that tells its tiers apart
	 * (analysis_sweep.c) and a branch study's its mispredictions (the
	 * study's ev.bm, analysis_branch.c), each else the plan's first. */
	int sweep_event, branch_event;
	/* The event that stands for a result's cost where time does not (the
	 * simulator; pmb__cost_figure): its instructions, else the plan's
	 * first; -1 the plan has none (analysis.c). */
	int cost_event;
	/* The frequency cycles are estimated from time with (GHz): the
	 * probe's, where time is measured and no cycles event counts; 0 where
	 * no cycles are estimated (pmb__analysis_est_ghz). */
	double est_ghz;
};

/* The reports' one input about the run: what run.c assembled from the
 * plan, the opened counters and the measure stage (m), what the analysis
 * added (f), and how the console is drawn (view: the command line's). */
struct pmb_context {
	struct pmb_run_measured m;
	struct pmb_run_figures f;
	struct pmb_console_view view;
};

/* Whether the counts are simulated (--backend=sim): the one test of the
 * backend that the analysis and the reports make. */
static inline bool pmb_context_sim(const struct pmb_context *c)
{
	return c->m.backend == PMB_BACKEND_SIM;
}

/* Figure e of figures being written: the time where e < 0, else event
 * e's (as analyse/ indexes "time or an event"). */
static inline struct pmb_figure *pmb__figure_of(struct pmb_figures *f, int e)
{
	return e < 0 ? &f->time : &f->ev[e];
}

/* Figure e of a result, to read: its time where e < 0, else event e's. */
static inline const struct pmb_figure *pmb__result_figure(const struct pmb_result *r, int e)
{
	return e < 0 ? &r->f.time : &r->f.ev[e];
}

/* The figure that stands for a result's cost: its time, or where time is
 * not measured (the simulator) the run's cost_event (its instructions,
 * else its first event), as the analysis chose it. */
static inline const struct pmb_figure *pmb__cost_figure(const struct pmb_context *c, const struct pmb_result *r)
{
	if (r->f.time.valid || c->f.cost_event < 0)
		return &r->f.time;
	return &r->f.ev[c->f.cost_event];
}

/* Whether an event that does not count is shown (as n/a, with its reason)
 * where the report lists events: yes where the user named it (--counters)
 * or the PMU counts others, since it was asked for and the reader should
 * see that it is missing and why; no for the default list's hardware
 * events without any PMU, which the warning names once. */
static inline bool pmb_context_absent_shown(const struct pmb_context *c, int e)
{
	return c->m.event_why[e][0] && (c->m.counters_given || c->m.pmu_ok || c->m.plan.ev[e].kind != PMB_EV_HW);
}

/* The backend's name, as the reports print it: "perf" or "sim". */
static inline const char *pmb_backend_name(enum pmb_backend b)
{
	return b == PMB_BACKEND_SIM ? "sim" : "perf";
}

/* The overhead a result's figures are corrected with. */
static inline const struct pmb_overhead *pmb_result_overhead(const struct pmb_context *c,
							       const struct pmb_result *r)
{
	return r->m.local_overhead ? &r->m.overhead : &c->m.overhead;
}

/* The plan index of the first counted event among names ("a|b|c"), or -1:
 * the one name lookup the analysis, reports and self-check share. */
int pmb__context_event(const struct pmb_context *c, const char *names);

/* The simulated miss events that show the first and the last cache level,
 * for pmb__context_event: what sweep reports and plots show under sim. */
#define PMB_L1_MISS_EVENTS "l1d-read-misses|l1d-misses|l1d-write-misses"
#define PMB_LL_MISS_EVENTS "llc-read-misses|llc-misses|llc-write-misses"

/* The one place that knows a benchmark's part in a study: from its
 * definition's .role and .study, never from its name.  Stores the study's
 * name ("branch/sum_if") and returns true, or false where the definition
 * gives no role. */
bool pmb__result_study(const struct pmb_result *r, char *buf, size_t size);
/* The result in `role` of study `study` with the same arguments (first
 * repetition), or NULL: how the reports pair a study's forms. */
const struct pmb_result *pmb__result_in_study(const struct pmb_result *r, size_t n, const char *study,
					     enum pmb_role role, const char *args);

/* Add a warning once (same text twice is kept once; past
 * PMB_MAX_WARNINGS, dropped).  printf-like. */
void pmb__warn(struct pmb_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free the texts; the list is then empty.  NULL does nothing. */
void pmb__warnings_free(struct pmb_warnings *w);

/* pmb__warn() for the analysis's list (out: c->f, which the analysis
 * writes while it reads c const): a text c's measured list holds is not
 * added again, and both lists together hold at most PMB_MAX_WARNINGS. */
void pmb__context_warn(struct pmb_run_figures *out, const struct pmb_context *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The run's warnings in the order they were raised: the measured ones,
 * then the analysis's. */
static inline int pmb__context_nwarnings(const struct pmb_context *c)
{
	return c->m.warnings.n + c->f.warnings.n;
}
static inline const char *pmb__context_warning(const struct pmb_context *c, int i)
{
	return i < c->m.warnings.n ? c->m.warnings.text[i] : c->f.warnings.text[i - c->m.warnings.n];
}
void pmb__context_free(struct pmb_context *c);

/* The figures per sample of result r (by its instance and repetition;
 * looked for at index hint first, where the results are the analysed
 * ones), or NULL where the analysis made none. */
const struct pmb_per_sample *pmb__per_sample_of(const struct pmb_context *c, const struct pmb_result *r,
					       size_t hint);
/* Free what pmb__context_free frees of the figures per sample. */
void pmb__per_sample_free(struct pmb_run_figures *f);

/* Value of event e in sample s, scaled (*scaled set where it was); false
 * where it was not read or never ran in that sample. */
bool pmb__sample_event(const struct pmb_sample *s, int e, double *v, int *scaled);

/* Append a sample (grows the array).  Returns 0 or -ENOMEM. */
int pmb__result_add_sample(struct pmb_result *r, const struct pmb_sample *s);
int pmb__result_add_probe(struct pmb_result *r, const struct pmb_sample *s);
/* Frees what a run stored in r (its samples and probes). */
void pmb__result_free_samples(struct pmb_result *r);

#endif
