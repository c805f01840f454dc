/* test_selfread.c - counters read from user space: the perf_event_mmap_page arithmetic (x86 and arm64 widths, counter wrap, times, the seqlock retry) on pages the test writes as the kernel would, anywhere; on a PMU that allows it, self-read against read(), a counter wrapping under a short period, and reads while another thread's events reschedule this one's. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "selfread.h"
#include "tap.h"

#define SRC_LINE .line = __LINE__

__extension__ typedef unsigned __int128 u128;

/* ---- the kernel's side, played on a made-up page ------------------------
 * As Linux does it (arm_pmu.c, x86 events/core.c): a counter of `width`
 * bits is programmed to minus its period, prev_count keeps that value
 * sign-extended to 64 bits, and the page says offset = count - prev_count;
 * an overflow folds the counter's progress into count and programs it
 * again.  Every page update is bracketed by lock increments. */
struct fake_pmu {
	struct perf_event_mmap_page page;
	uint64_t count, prev, raw, period, mask;
	uint32_t idx_seen;   /* what pmc() was asked for: index - 1 */
	int move_on_read;    /* the next n pmc() calls each take an overflow
	                        interrupt after the counter was read */
	uint64_t stamp;
};

static struct fake_pmu fk;

static void fake_update_page(void)
{
	fk.page.lock++;
	fk.page.offset = fk.count - fk.prev;
	fk.page.lock++;
}

static void fake_program(uint64_t period)
{
	fk.period = period;
	fk.prev = (uint64_t)0 - period;
	fk.raw = fk.prev & fk.mask;
	fake_update_page();
}

static void fake_setup(unsigned width, uint32_t index, uint64_t count, uint64_t period)
{
	memset(&fk, 0, sizeof(fk));
	fk.mask = width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
	fk.count = count;
	fk.page.index = index;
	fk.page.pmc_width = (uint16_t)width;
	fk.page.cap_user_rdpmc = 1;
	fake_program(period);
}

/* The hardware counts n events. */
static void fake_count(uint64_t n)
{
	fk.raw = (fk.raw + n) & fk.mask;
}

/* The overflow interrupt. */
static void fake_overflow(void)
{
	fk.count += (fk.raw - fk.prev) & fk.mask;
	fake_program(fk.period);
}

/* What the event has counted: the truth a read must give. */
static uint64_t fake_truth(void)
{
	return fk.count + ((fk.raw - fk.prev) & fk.mask);
}

static uint64_t fake_pmc(uint32_t idx)
{
	uint64_t v = fk.raw;

	fk.idx_seen = idx;
	if (fk.move_on_read > 0) {
		fk.move_on_read--;
		fake_count(1000);
		fake_overflow();
	}
	return v;
}

static uint64_t fake_stamp(void)
{
	return fk.stamp;
}

/* One read of the made-up page, n times over (a group of n members on
 * one page: each must give the same count). */
struct one {
	struct pmb_selfread r;
	uint64_t count;
	uint32_t index;
	unsigned retries;
	bool same;
};

static bool fake_read_n(struct one *o, int n)
{
	const volatile struct perf_event_mmap_page *pages[4] = { &fk.page, &fk.page, &fk.page, &fk.page };
	bool ok = pmb_selfread_pages(pages, n, PMB_SELFREAD_COUNT, NULL, fake_pmc, fake_stamp, &o->r);

	o->count = ok ? pmb_selfread_value(&o->r, 0, fk.page.pmc_width) : 0;
	o->index = ok ? o->r.index[0] : 0;
	o->retries = o->r.retries;
	o->same = true;
	for (int i = 1; ok && i < n; i++)
		o->same &= pmb_selfread_value(&o->r, i, fk.page.pmc_width) == o->count;
	return ok;
}

static bool fake_read(struct one *o)
{
	return fake_read_n(o, 1);
}

static bool fake_times(struct pmb_selfread *r)
{
	const volatile struct perf_event_mmap_page *pages[1] = { &fk.page };

	return pmb_selfread_pages(pages, 1, PMB_SELFREAD_TIMES, NULL, fake_pmc, fake_stamp, r);
}

/* ---- arithmetic ------------------------------------------------------- */

static const struct {
	int line;
	uint64_t pmc;
	unsigned width;
	int64_t want;
} extend_cases[] = {
	{ SRC_LINE, 0x80000000u, 32, -2147483648LL },           /* arm64: counter at -2^31 */
	{ SRC_LINE, 0xfff00000u, 32, -(1LL << 20) },
	{ SRC_LINE, 0x7fffffffu, 32, 2147483647LL },
	{ SRC_LINE, 0xffffffff80000005ull, 32, -2147483643LL }, /* cycle counter: upper half set */
	{ SRC_LINE, 0x00000000ffffffffull, 32, -1 },
	{ SRC_LINE, 0x0000ffffffffffffull, 48, -1 },            /* x86: 48-bit counters */
	{ SRC_LINE, 0x00007fffffffffffull, 48, (1LL << 47) - 1 },
	{ SRC_LINE, 0x0000800000000000ull, 48, -(1LL << 47) },
	{ SRC_LINE, 0x0000000000001234ull, 48, 0x1234 },
	{ SRC_LINE, 0x8000000000000001ull, 64, (int64_t)0x8000000000000001ull },
	{ SRC_LINE, 0x8000000000000001ull, 0, (int64_t)0x8000000000000001ull }, /* no width: as is */
};

static void test_extend(void)
{
	for (size_t i = 0; i < sizeof(extend_cases) / sizeof(extend_cases[0]); i++) {
		int64_t got = pmb_selfread_extend(extend_cases[i].pmc, extend_cases[i].width);

		tap_ok_at(extend_cases[i].line, got == extend_cases[i].want,
			  "sign extension of %#llx from %u bits: %lld", (unsigned long long)extend_cases[i].pmc,
			  extend_cases[i].width, (long long)got);
	}
}

static void test_time_delta(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	bool all = true;

	/* The man page's quotient/remainder form is (cyc * mult) >> shift
	 * without its 128-bit product. */
	for (int i = 0; i < 100000 && all; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t cyc = x >> (i % 24), off = x * 7;
		uint32_t mult = (uint32_t)(x >> 17) | 1;
		uint16_t shift = (uint16_t)(i % 32);
		uint64_t want = off + (uint64_t)(((u128)cyc * mult) >> shift);

		all &= pmb_selfread_time_delta(cyc, 0, ~(uint64_t)0, mult, shift, off) == want;
	}
	tap_ok(all, "time delta: quotient and remainder equal the 128-bit product, 100000 draws");
	/* cap_user_time_short: a 56-bit clock that wrapped since the update. */
	uint64_t tcyc = 0x00fffffffffff000ull, mask = 0x00ffffffffffffffull;
	uint64_t d = pmb_selfread_time_delta(0x10, tcyc, mask, 1u << 20, 20, (uint64_t)0 - tcyc);
	tap_ok(d == 0x1010, "time delta across a wrap of a short clock: %#llx cycles (0x1010)",
	       (unsigned long long)d);
}

/* ---- the protocol, on made-up pages ------------------------------------- */

static const struct {
	int line;
	const char *what;
	unsigned width;
	uint32_t index;      /* as the kernel writes it */
	uint32_t want_idx;   /* what must reach the counter read */
	uint64_t period;
} pmus[] = {
	/* x86: 48-bit counters; rdpmc ecx = index - 1, fixed counters with bit 30. */
	{ SRC_LINE, "x86 general counter 2", 48, 3, 2, (uint64_t)1 << 47 },
	{ SRC_LINE, "x86 fixed counter 1", 48, (1u << 30 | 1) + 1, 1u << 30 | 1, (uint64_t)1 << 47 },
	{ SRC_LINE, "x86, a short period", 48, 1, 0, 100000 },
	/* arm64: 32-bit counters without the long bit, PMEVCNTR<n>_EL0 = index - 1,
	 * the cycle counter as index 32. */
	{ SRC_LINE, "arm64 event counter 0", 32, 1, 0, (uint64_t)1 << 31 },
	{ SRC_LINE, "arm64 cycle counter", 32, 32, 31, (uint64_t)1 << 31 },
	{ SRC_LINE, "arm64, a short period", 32, 5, 4, 65536 },
	{ SRC_LINE, "arm64 with the long bit: 64-bit counters", 64, 2, 1, (uint64_t)1 << 63 },
};

/* Count across the counter's overflow and the kernel's handling of it:
 * before the counter wraps, right after it wrapped while the interrupt is
 * still pending, and after the interrupt.  Without the sign extension a
 * read is off by 2^width from the kernel's first programming on. */
static bool check_read(uint32_t want_idx, bool *idx_ok)
{
	struct one r;
	bool ok = fake_read(&r) && r.index == fk.page.index && r.count == fake_truth();

	*idx_ok &= fk.idx_seen == want_idx;
	return ok;
}

static void test_wrap(int line, const char *what, unsigned width, uint32_t index, uint32_t want_idx,
		      uint64_t period)
{
	bool right = true, idx_ok = true;
	int rounds = 20;

	fake_setup(width, index, 1000000, period);
	right &= check_read(want_idx, &idx_ok);
	for (int round = 0; round < rounds; round++) {
		fake_count(((fk.mask - fk.raw) & fk.mask) / 2);
		right &= check_read(want_idx, &idx_ok);
		fake_count(12345);
		right &= check_read(want_idx, &idx_ok);
		fake_count((fk.mask - fk.raw) & fk.mask); /* the last event before the wrap */
		right &= check_read(want_idx, &idx_ok);
		fake_count(1);                            /* wrapped: the interrupt is pending */
		right &= check_read(want_idx, &idx_ok);
		fake_count(99);
		right &= check_read(want_idx, &idx_ok);
		fake_overflow();
		right &= check_read(want_idx, &idx_ok);
	}
	tap_ok_at(line, right, "%s (%u bits): every read is the count, across %d overflows and reads of a "
		  "wrapped counter before the interrupt", what, width, rounds);
	tap_ok_at(line, idx_ok, "%s: the counter read is index - 1 (%#x)", what, want_idx);
}

static void test_protocol(void)
{
	struct one r;

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		test_wrap(pmus[i].line, pmus[i].what, pmus[i].width, pmus[i].index, pmus[i].want_idx,
			  pmus[i].period);

	/* The kernel moves the page between the reads of offset and counter:
	 * a read that did not retry would add the new counter to the old
	 * offset (off by the whole period). */
	fake_setup(32, 1, 5000, 1u << 16);
	fake_count(777);
	fk.move_on_read = 1;
	bool ok = fake_read(&r);
	tap_ok(ok && r.retries == 1 && r.count == fake_truth(),
	       "seqlock: a page moved mid-read is read again (%u retries), and the value is the new count "
	       "(%llu, %llu)", r.retries, (unsigned long long)r.count, (unsigned long long)fake_truth());
	fk.move_on_read = 3;
	ok = fake_read(&r);
	tap_ok(ok && r.retries == 3 && r.count == fake_truth(), "seqlock: three moves, three retries");
	/* A group: every page's lock first, the counters, every lock again;
	 * the kernel moving one page during the counters reads all again. */
	fake_count(5);
	fk.move_on_read = 1;
	ok = fake_read_n(&r, 3);
	tap_ok(ok && r.retries == 1 && r.same && r.count == fake_truth(),
	       "seqlock, a group of three: one page moved during the counters, all read again (%u retries)",
	       r.retries);
	fk.move_on_read = 1000;
	ok = fake_read(&r);
	tap_ok(!ok && r.retries == PMB_SELFREAD_MAX_RETRIES,
	       "seqlock: a page that never holds still gives up after %d tries: the caller falls back to "
	       "read()", PMB_SELFREAD_MAX_RETRIES);
	fk.move_on_read = 0;
	fk.page.index = 0;
	fk.idx_seen = 12345;
	ok = fake_read(&r);
	tap_ok(!ok && fk.idx_seen == 12345,
	       "index 0 (off the counters: multiplexed out): no counter read, the caller falls back to read()");
	fk.page.index = 1;
	fk.page.cap_user_rdpmc = 0;
	ok = fake_read(&r);
	tap_ok(!ok && fk.idx_seen == 12345, "cap_user_rdpmc 0: no counter read");
}

static void test_times(void)
{
	struct pmb_selfread r;

	fake_setup(48, 2, 0, 1000);
	fk.page.time_enabled = 5000;
	fk.page.time_running = 3000;
	bool ok = fake_times(&r);
	tap_ok(ok && !r.timed && r.enabled == 5000 && r.running == 3000,
	       "no cap_user_time: the times of the last update, said untimed");
	fk.page.cap_user_time = 1;
	fk.page.time_mult = 3u << 10; /* 3 ns a cycle */
	fk.page.time_shift = 10;
	fk.page.time_offset = (uint64_t)0 - 3 * 1000; /* the update was at cycle 1000 */
	fk.stamp = 1400;
	ok = fake_times(&r);
	tap_ok(ok && r.timed && r.enabled == 6200 && r.running == 4200,
	       "cap_user_time: enabled and running now, 400 cycles of 3 ns after the update (%llu, %llu)",
	       (unsigned long long)r.enabled, (unsigned long long)r.running);
	fk.page.index = 0;
	ok = fake_times(&r);
	tap_ok(ok && r.enabled == 6200 && r.running == 3000, "off the counters now: enabled runs on, running does not");
}

/* ---- on a PMU ------------------------------------------------------------ */

static char old_user_access[8];

static void restore_user_access(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "w");

	if (f) {
		fputs(old_user_access, f);
		fclose(f);
	}
}

/* arm64 keeps counters from user space unless kernel.perf_user_access is
 * 1; as root, the test turns it on for its own run and back at exit. */
static void allow_user_access(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "r");

	if (!f)
		return;
	if (!fgets(old_user_access, sizeof(old_user_access), f))
		old_user_access[0] = 0;
	fclose(f);
	old_user_access[strcspn(old_user_access, "\n")] = 0;
	if (strcmp(old_user_access, "0") || geteuid() != 0)
		return;
	f = fopen("/proc/sys/kernel/perf_user_access", "w");
	if (f && fputs("1", f) >= 0 && fclose(f) == 0) {
		tap_diag("kernel.perf_user_access set to 1 for this test (it was 0)");
		atexit(restore_user_access);
	} else if (f) {
		fclose(f);
	}
}

static struct perf_event_attr hw(uint64_t config, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = period;
	return a;
}

/* instructions (and cycles) as one group, read by read() or from user
 * space; NULL with why[] where it cannot be. */
static struct pmb_group *open_pair(bool self, uint64_t period, char *why, size_t n)
{
	struct perf_event_attr a[2] = { hw(PERF_COUNT_HW_INSTRUCTIONS, period), hw(PERF_COUNT_HW_CPU_CYCLES, 0) };
	struct pmb_group *g;
	int failed, err = pmb__group_open(&g, a, 2, &failed);

	if (err) {
		snprintf(why, n, "no hardware counters here (%s)", strerror(-err));
		return NULL;
	}
	if (self && pmb__group_self(&g, why, n)) {
		pmb__group_close(g);
		return NULL;
	}
	return g;
}

static void spin(uint64_t n)
{
	uint64_t x = pmb__clock_add_chain(n, 1);

	__asm__ volatile("" : : "r"(x));
}

/* Instructions of n adds between the two reads of a sample, on g's path. */
static uint64_t measure(struct pmb_group *g, uint64_t n)
{
	struct pmb_count c[2];

	pmb__group_start(g);
	pmb__group_mark(g, 0);
	spin(n);
	pmb__group_mark(g, 1);
	pmb__group_stop(g);
	return pmb__group_read(g, c) ? 0 : c[0].value;
}

/* The counts mean the same on both paths: what 2N adds cost more than N
 * is one number, read from user space or by read() (exact under the
 * emulator's -icount; a real core or a second vCPU may take an interrupt:
 * best of five tries). */
static void test_paths_agree(struct pmb_group *self, struct pmb_group *sys)
{
	const uint64_t n = 1 << 16;
	uint64_t ds = 0, dr = 0;
	int tries;

	for (tries = 1; tries <= 5; tries++) {
		ds = measure(self, 2 * n) - measure(self, n);
		dr = measure(sys, 2 * n) - measure(sys, n);
		if (ds == dr)
			break;
	}
	tap_ok(ds == dr && ds >= n, "the same %llu adds count the same on both paths: %llu instructions from "
	       "user space, %llu by read() (try %d)", (unsigned long long)n, (unsigned long long)ds,
	       (unsigned long long)dr, tries);
	/* The harness's share: nothing between the reads but the reads. */
	uint64_t os = measure(self, 0), or = measure(sys, 0);
	tap_diag("instructions between a sample's two reads: %llu from user space, %llu by read() and ioctl()",
		 (unsigned long long)os, (unsigned long long)or);
	/* By read() the instructions between are the ioctl()s' user-space
	 * halves (the kernel's are not counted); what the path costs is its
	 * time, and the clock reads the runner then puts inside the window. */
	tap_ok(os <= 100, "a user-space read pair of two counters costs a few dozen instructions (%llu)",
	       (unsigned long long)os);
	double t0 = (double)pmb_clock_ns();
	for (int i = 0; i < 1000; i++)
		measure(self, 0);
	double t1 = (double)pmb_clock_ns();
	for (int i = 0; i < 1000; i++)
		measure(sys, 0);
	double t2 = (double)pmb_clock_ns();
	tap_diag("per sample: %.0f ns from user space, %.0f ns by read() and ioctl()", (t1 - t0) / 1000,
		 (t2 - t1) / 1000);
}

/* A period of 2^16 instructions: the kernel reprograms the counter to
 * -2^16 on every overflow, so a sample of a few million instructions reads
 * across dozens of counter wraps and page updates. */
static void test_short_period(struct pmb_group *self)
{
	char why[PMB_READ_WHY];
	struct pmb_group *g = open_pair(true, 1 << 16, why, sizeof(why));
	const uint64_t n = 1 << 22;

	if (!g) {
		tap_skip("a sampling event read from user space: %s", why);
		tap_skip("its counter wraps");
		return;
	}
	const volatile struct perf_event_mmap_page *p = pmb__group_page(g, 0);
	uint64_t off0 = p->offset, dw = 0, ds = 0;
	int tries;

	for (tries = 1; tries <= 5; tries++) {
		dw = measure(g, 2 * n) - measure(g, n);
		ds = measure(self, 2 * n) - measure(self, n);
		if (dw == ds)
			break;
	}
	tap_ok(dw == ds, "under a 2^16 period the count is the same as without: %llu and %llu instructions "
	       "for %llu adds (try %d)", (unsigned long long)dw, (unsigned long long)ds, (unsigned long long)n,
	       tries);
	uint64_t moved = p->offset - off0;
	tap_ok(moved >= (uint64_t)60 << 16, "the kernel moved the page's offset by %llu: %llu overflows "
	       "folded in while reading", (unsigned long long)moved, (unsigned long long)(moved >> 16));
	pmb__group_close(g);
}

/* ---- reads while another thread's events reschedule this one's ----------- */

static atomic_int hog_state; /* 1 running, 2 stop, -1 could not */

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Another thread on the same core with counters of its own: every switch
 * between the two takes this thread's events off the PMU and puts them
 * back, and the kernel rewrites their pages each time. */
static void *hog(void *arg)
{
	char why[PMB_READ_WHY];
	struct pmb_group *g;

	(void)arg;
	pin_cpu0();
	g = open_pair(false, 0, why, sizeof(why));
	if (!g || pmb__group_start(g)) {
		atomic_store(&hog_state, -1);
		pmb__group_close(g);
		return NULL;
	}
	atomic_store(&hog_state, 1);
	while (atomic_load(&hog_state) == 1)
		spin(4096);
	pmb__group_close(g);
	return NULL;
}

static void test_rescheduled(struct pmb_group *g)
{
	uint64_t retries0, fallbacks0, retries, fallbacks, prev = 0, worst = 0, reads = 0;
	struct pmb_count c[2];
	pthread_t t;
	bool sane = true;

	pin_cpu0();
	atomic_store(&hog_state, 0);
	if (pthread_create(&t, NULL, hog, NULL)) {
		tap_skip("reads while another thread's events reschedule: no thread");
		return;
	}
	while (atomic_load(&hog_state) == 0)
		sched_yield();
	pmb__group_read_stats(g, &retries0, &fallbacks0);
	pmb__group_start(g);
	pmb__group_mark(g, 0);
	uint64_t t0 = pmb_clock_ns();
	/* Each read is the count since the first: it may only grow, by what
	 * one turn of this loop costs.  A torn read (a counter paired with
	 * another update's offset) is off by a whole period, 2^31. */
	do {
		pmb__group_mark(g, 1);
		sane &= pmb__group_read(g, c) == 0;
		if (c[0].value < prev || c[0].value - prev > 1000000)
			sane = false;
		worst = c[0].value - prev > worst ? c[0].value - prev : worst;
		prev = c[0].value;
		reads++;
		pmb__group_read_stats(g, &retries, &fallbacks);
	} while (pmb_clock_ns() - t0 < 3000000000ull && (retries - retries0 < 3 || pmb_clock_ns() - t0 < 300000000));
	atomic_store(&hog_state, 2);
	pthread_join(t, NULL);
	pmb__group_read_stats(g, &retries, &fallbacks);
	tap_ok(sane, "%llu reads while another thread's events took turns on the core: each count grew, by "
	       "at most %llu", (unsigned long long)reads, (unsigned long long)worst);
	tap_ok(retries > retries0, "the kernel moved the page mid-read %llu times, and each was read again "
	       "(%llu snapshots by read() while off the counters)", (unsigned long long)(retries - retries0),
	       (unsigned long long)(fallbacks - fallbacks0));
}

static void test_pmu(void)
{
	char why[PMB_READ_WHY];
	struct pmb_group *self, *sys;

	allow_user_access();
	sys = open_pair(false, 0, why, sizeof(why));
	self = sys ? open_pair(true, 0, why, sizeof(why)) : NULL;
	if (!self) {
		const char *names[] = { "both paths count the same", "a read pair costs a few dozen instructions",
					"under a short period", "its counter wraps", "reads while rescheduled",
					"retried" };

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			tap_skip("%s: %s", names[i], why);
		pmb__group_close(sys);
		return;
	}
	tap_ok(pmb__group_is_self(self) && !pmb__group_is_self(sys), "a hardware group reads from user space "
	       "(%s), another by read()", PMB_SELFREAD_INSN);
	test_paths_agree(self, sys);
	test_short_period(self);
	test_rescheduled(self);
	pmb__group_close(self);
	pmb__group_close(sys);
}

int main(void)
{
	test_extend();
	test_time_delta();
	test_protocol();
	test_times();
	test_pmu();
	return tap_done();
}
