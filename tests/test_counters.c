/* test_counters.c - perf_event groups of software events, for real: page faults per sample, task-clock vs time, scaling. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "counters.h"
#include "events.h"
#include "runner.h"
#include "tap.h"

static struct perf_event_attr sw(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = 0; /* faults are counted in the kernel */
	a.exclude_hv = 1;
	return a;
}

#define PAGES 64

/* Each pass touches PAGES fresh pages: mapped before the loop, never
 * touched, so every first write faults. */
static void bm_faults(struct pmb_state *s)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * PAGES * 4096;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t next = 0;

	if (buf == MAP_FAILED) {
		pmb_skip(s, "mmap failed");
		return;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);
	while (pmb_loop(s)) {
		for (int i = 0; i < PAGES; i++, next++)
			buf[(next % ((size_t)PAGES * 4096)) * (size_t)page] = 1;
	}
	munmap(buf, len);
}

static void bm_spin(struct pmb_state *s)
{
	uint64_t x = 1;

	while (pmb_loop_batch(s, 1000))
		for (int i = 0; i < 1000; i++)
			TAP_MUL_STEP(x);
}

static struct pmb_event plan_event(const char *name, enum pmb_event_kind kind, struct perf_event_attr a)
{
	struct pmb_event ev;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "%s", name);
	ev.kind = kind;
	ev.attr = a;
	return ev;
}

static bool said(const struct pmb_counters_outcome *o, const char *a, const char *b)
{
	int n = 0;

	for (int i = 0; i < o->nwarnings; i++)
		n += strstr(o->warning[i], a) && (!b || strstr(o->warning[i], b));
	return n == 1;
}

/* The fallback policy: an event marked unsupported is not opened and says
 * why; without any PMU the software counters are added, said once. */
static void test_policy(void)
{
	struct pmb_counters_env env = { .paranoid = 2, .ghz = 2.0, .sim_hint = true };
	struct pmb_event_plan p, soft;
	struct pmb_counters_outcome o;
	struct pmb_counters cs;
	int err;

	memset(&p, 0, sizeof(p));
	memset(&soft, 0, sizeof(soft));
	p.ev[p.nev++] = plan_event("task-clock", PMB_EV_SW, sw(PERF_COUNT_SW_TASK_CLOCK));
	p.ev[p.nev++] = plan_event("no-such", PMB_EV_SW, sw(PERF_COUNT_SW_PAGE_FAULTS));
	snprintf(p.ev[1].unsupported, sizeof(p.ev[1].unsupported), "testpmu does not implement no-such");
	err = pmb__counters_open_plan(&cs, &p, NULL, &env, &o);
	tap_ok(err == 0 && o.event_group[0] == 0 && o.event_group[1] == -1 && !o.why[0][0] &&
	       !strcmp(o.why[1], "testpmu does not implement no-such"),
	       "an unsupported event is not opened and carries its reason (%s)", o.why[1]);
	tap_ok(o.nwarnings == 1 && said(&o, "testpmu does not implement no-such", "shows n/a"),
	       "one warning names it and says it shows n/a (%s)", o.nwarnings ? o.warning[0] : "");
	tap_ok(!o.hw_asked && !o.software_added && !o.fallback[0], "no hardware asked: no fallback");
	tap_ok(!strcmp(o.read_path, "syscall") && strstr(o.read_why, "software events") && o.read_err == 0,
	       "software events are read by read(), said why, no error under --read=auto (%s: %s)",
	       o.read_path, o.read_why);
	pmb__counters_close(&cs);
	env.read = PMB_READ_SELF;
	err = pmb__counters_open_plan(&cs, &p, NULL, &env, &o);
	tap_ok(err == 0 && o.read_err == -ENOENT && !strcmp(o.read_path, "none") &&
	       !strcmp(o.read_why, "no hardware event counts here (testpmu does not implement no-such)"),
	       "--read=self with no hardware event: an error the caller sees, with the reason (%d: %s)",
	       o.read_err, o.read_why);
	pmb__counters_close(&cs);
	env.read = PMB_READ_SYSCALL;
	err = pmb__counters_open_plan(&cs, &p, NULL, &env, &o);
	tap_ok(err == 0 && o.read_err == 0 && !strcmp(o.read_path, "syscall") && !o.read_why[0],
	       "--read=syscall: read() with nothing to explain");
	pmb__counters_close(&cs);
	env.read = PMB_READ_AUTO;

	struct perf_event_attr cyc = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
				       .exclude_kernel = 1, .exclude_hv = 1 };
	memset(&p, 0, sizeof(p));
	p.ev[p.nev++] = plan_event("cycles", PMB_EV_HW, cyc);
	p.ev[0].means = PMB_MEANS_CYCLES;
	p.ev[0].anchor = true;
	soft.ev[soft.nev++] = plan_event("task-clock", PMB_EV_SW, sw(PERF_COUNT_SW_TASK_CLOCK));
	soft.ev[soft.nev++] = plan_event("cycles", PMB_EV_SW, sw(PERF_COUNT_SW_CPU_CLOCK));
	env.virt = "KVM";
	env.kernel_pmu = "the kernel exposes no cpu PMU (/sys/bus/event_source/devices: software)";
	err = pmb__counters_open_plan(&cs, &p, &soft, &env, &o);
	if (o.hw_counts) {
		/* The one warning allowed: counters read by read() where the
		 * kernel keeps them from user space (arm64's default). */
		bool quiet = o.nwarnings == 0 || (o.nwarnings == 1 && o.read_why[0] &&
						  strstr(o.warning[0], o.read_why));
		tap_ok(err == 0 && o.cycles && quiet && p.nev == 1,
		       "cycles count here: no warning (but how they are read), nothing added (%s)",
		       o.nwarnings ? o.warning[0] : "");
		tap_skip("this machine counts cycles: cannot test the no-PMU fallback");
	} else {
		tap_ok(o.software_added && p.nev == 2 && !strcmp(p.ev[1].name, "task-clock") &&
		       o.event_group[1] == 0 && o.event_group[0] == -1 && !o.cycles,
		       "no PMU: the software counters are added (a name already in the plan is not) and "
		       "count (%d events)", p.nev);
		tap_ok(said(&o, "hardware counters are not available: opening 'cycles' failed", "--backend=sim") &&
		       strstr(o.fallback, "est. cycles at 2.00 GHz") && strstr(o.why[0], "no hardware counters here"),
		       "no PMU: said once, naming the event, with the fallback and the reason (%s)",
		       o.nwarnings ? o.warning[0] : "");
		tap_ok(said(&o, "failed (No such file or directory): the kernel exposes no cpu PMU (/sys/bus/"
			    "event_source/devices: software) in this virtual machine (KVM): its hypervisor",
			    NULL) && !said(&o, "likely", NULL),
		       "no PMU: the cause is what was seen (the kernel's PMUs, the virtual machine), not a guess");
		pmb__counters_close(&cs);
		p.nev = 1;
		env.virt = "";
		env.kernel_pmu = "the kernel's cpu PMU: cpu";
		pmb__counters_open_plan(&cs, &p, &soft, &env, &o);
		tap_ok(said(&o, "failed (No such file or directory): the kernel's cpu PMU: cpu, which counts none "
			    "of them. The run", NULL),
		       "a cpu PMU that opens none of them is named as such (%s)", o.nwarnings ? o.warning[0] : "");
		pmb__counters_close(&cs);
		p.nev = 1;
		env.kernel_pmu = NULL;
		pmb__counters_open_plan(&cs, &p, &soft, &env, &o);
		tap_ok(said(&o, "the kernel's PMUs were not read, so why is not known", NULL),
		       "unread PMUs: no cause claimed (%s)", o.nwarnings ? o.warning[0] : "");
	}
	pmb__counters_close(&cs);
}

int main(void)
{
	struct perf_event_attr attrs[3] = { sw(PERF_COUNT_SW_TASK_CLOCK), sw(PERF_COUNT_SW_PAGE_FAULTS),
					    sw(PERF_COUNT_SW_CONTEXT_SWITCHES) };
	bool anchor[3] = { false, false, false };
	struct pmb_group *g;
	struct pmb_count c[3];
	int failed = -1, err;

	err = pmb__group_open(&g, attrs, 3, &failed);
	if (err == -EACCES || err == -EPERM || err == -ENOSYS)
		tap_skip_all("perf_event_open is not allowed here (%s)", strerror(-err));
	tap_ok(err == 0, "a group of three software events opens (%d)", err);
	tap_ok(pmb__group_size(g) == 3, "group size");
	tap_ok(pmb__group_start(g) == 0, "reset+enable the group");
	/* 4 MiB of fresh small pages (no transparent huge page: one fault
	 * would map 2 MiB at once), each first write a fault. */
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 1 << 22, npages = len / (size_t)page;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		madvise((void *)p, len, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < len; i += (size_t)page)
			p[i] = 1;
	}
	tap_ok(pmb__group_stop(g) == 0, "disable the group");
	tap_ok(pmb__group_read(g, c) == 0, "one read() of the whole group");
	tap_ok(p != MAP_FAILED && c[0].value > 0 && c[1].value >= npages * 9 / 10,
	       "task-clock %llu ns and page faults %llu counted (%zu pages touched)",
	       (unsigned long long)c[0].value, (unsigned long long)c[1].value, npages);
	if (p != MAP_FAILED)
		munmap((void *)p, len);
	tap_ok(c[0].enabled > 0 && c[0].running == c[0].enabled, "times enabled/running read and equal");
	struct pmb_count again[3];
	/* Read before tap_ok: its arguments (the count printed) are evaluated
	 * in no set order, so a read inside the condition could come after. */
	int again_err = pmb__group_read(g, again);
	tap_ok(again_err == 0 && again[0].enabled == 0 && again[0].running == 0 &&
	       again[1].value == c[1].value,
	       "a second read covers no time (times are per read, the kernel's totals differenced): "
	       "%llu ns enabled", (unsigned long long)again[0].enabled);
	double v;
	tap_ok(pmb__count_scale(&c[1], &v) == 0 && v == (double)c[1].value, "unscaled value is exact");
	struct pmb_count half = { .value = 100, .enabled = 200, .running = 100 };
	tap_ok(pmb__count_scale(&half, &v) == 1 && v == 200, "half the time running: scaled x2, marked scaled");
	struct pmb_count never = { .value = 0, .enabled = 200, .running = 0 };
	tap_ok(pmb__count_scale(&never, &v) == -1, "never ran: -1, not a zero");
	pmb__group_close(g);
	pmb__group_close(NULL);

	/* Through the runner: page-faults per pass, task-clock per item. */
	struct pmb_context ctx;
	struct pmb_counters cs;
	struct pmb_meter m;
	memset(&ctx, 0, sizeof(ctx));
	ctx.m.backend = PMB_BACKEND_PERF;
	ctx.m.plan.nev = 3;
	strcpy(ctx.m.plan.ev[0].name, "task-clock");
	strcpy(ctx.m.plan.ev[1].name, "page-faults");
	strcpy(ctx.m.plan.ev[2].name, "context-switches");
	err = pmb__counters_open(&cs, attrs, anchor, 3);
	tap_ok(err == 0 && cs.ngroups == 1, "counters: software events fit one group (%d)", cs.ngroups);
	pmb__runner_perf_meter(&m, &cs);
	pmb__clock_probe(&ctx.m.clock);
	struct pmb_runner_opts o = { .min_sample_ns = 1e6, .samples = 20, .samples_given = true,
				     .warmup_ns = 10e6, .repetitions = 1 };
	tap_ok(pmb__runner_overhead(&o, &m, &ctx.m.overhead) == 0, "overhead with counters");
	struct pmb_benchmark_def d1 = { .func = bm_faults, .name = "faults" };
	struct pmb_benchmark_def d2 = { .func = bm_spin, .name = "spin" };
	struct pmb_instance in[2] = { { .def = &d1, .baseline = -1, .reference = -1, .cohort = 0 },
				      { .def = &d2, .baseline = -1, .reference = -1, .cohort = 1 } };
	struct pmb_result res[2];
	tap_ok(pmb__runner_run(&o, &m, in, 2, res) == 0, "runner with a software group");
	pmb__analyze(&ctx, res, 2, 1);
	/* Per pass = per item here: PAGES fresh pages each. */
	const struct pmb_figure *pf = &res[0].f.ev[1];
	tap_diag("page-faults per pass: median %.3f (expected %d); first sample: %llu passes, %llu faults",
		 pf->s.median, PAGES, (unsigned long long)res[0].m.samples[0].passes,
		 (unsigned long long)res[0].m.samples[0].count[1].value); tap_diag("tc %llu cs %llu mask %x ns %llu", (unsigned long long)res[0].m.samples[0].count[0].value, (unsigned long long)res[0].m.samples[0].count[2].value, res[0].m.samples[0].mask, (unsigned long long)res[0].m.samples[0].ns);
	tap_ok(pf->valid && fabs(pf->s.median - PAGES) <= 2, "touching %d fresh pages per pass gives %d page-faults "
	       "per pass, +/- a few (%.2f)", PAGES, PAGES, pf->s.median);
	bool all_read = true;
	for (size_t k = 0; k < res[0].m.nsamples; k++)
		all_read &= (res[0].m.samples[k].mask & 7u) == 7u && res[0].m.samples[k].group == 0;
	tap_ok(all_read, "every sample read the whole group");
	const struct pmb_figure *tc = &res[1].f.ev[0];
	double ratio = tc->s.median / res[1].f.time.s.median;
	tap_diag("spin: task-clock %.4f ns/item vs time %.4f ns/item", tc->s.median, res[1].f.time.s.median);
	/* On a loaded machine the task waits for the CPU inside samples:
	 * time runs on, task-clock does not.  A sample it ran through whole
	 * (the highest ratio) shows whether task-clock tracks time. */
	double best = 0;
	for (size_t k = 0; k < res[1].m.nsamples; k++)
		if (res[1].m.samples[k].ns)
			best = fmax(best, (double)res[1].m.samples[k].count[0].value / (double)res[1].m.samples[k].ns);
	tap_ok(fabs(best - 1) < 0.15, "task-clock tracks time in a sample the task ran through (ratio %.3f; "
	       "medians per item %.3f)", best, ratio);
	tap_ok(res[1].f.ev[1].valid && fabs(res[1].f.ev[1].s.median) < 0.01, "no page faults per item in a spin loop");
	pmb__counters_close(&cs);
	for (int i = 0; i < 2; i++)
		pmb__result_free_samples(&res[i]);

	/* Splitting: an event that cannot open is reported with its errno,
	 * the rest still count. */
	struct perf_event_attr bad[2] = { sw(PERF_COUNT_SW_TASK_CLOCK), sw(PERF_COUNT_SW_PAGE_FAULTS) };
	bad[1].type = PERF_TYPE_HARDWARE;
	bad[1].config = PERF_COUNT_HW_CPU_CYCLES;
	bool anc2[2] = { false, true };
	err = pmb__counters_open(&cs, bad, anc2, 2);
	if (cs.open_errno[1] == 0) {
		tap_skip("this machine counts cycles: cannot test the failing-event path");
	} else {
		tap_ok(err == 0 && cs.ngroups == 1 && cs.nmembers[0] == 1 && cs.member[0][0] == 0,
		       "an event that cannot open (errno %d) is dropped; the others count", cs.open_errno[1]);
	}
	pmb__counters_close(&cs);
	pmb__context_free(&ctx);
	test_policy();
	return tap_done();
}
