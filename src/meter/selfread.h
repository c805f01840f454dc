/* selfread.h - reading perf counters from user space: the perf_event_mmap_page protocol, rdpmc on x86, mrs on arm64. */
#ifndef PMB_SELFREAD_H
#define PMB_SELFREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The instruction that reads a counter here, as reports name it; NULL on an
 * architecture pmubench cannot read counters on from user space. */
#if defined(__x86_64__) || defined(__i386__)
#define PMB_SELFREAD_INSN "rdpmc"

/* Counter idx (the page's index - 1; bit 30 selects the fixed counters). */
static inline uint64_t pmb_selfread_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

/* The clock the page's time_* fields convert (TSC). */
static inline uint64_t pmb_selfread_stamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define PMB_SELFREAD_INSN "mrs pmevcntr<n>_el0"

/* Counter idx (the page's index - 1): PMEVCNTR<idx>_EL0, or the cycle
 * counter for 31 (the kernel gives it index 32).  Each register by name,
 * not PMSELR_EL0 + PMXEVCNTR_EL0: one instruction, nothing a preemption
 * between two could change under it. */
#define PMB__EVCNTR(n)                                                   \
	case n:                                                          \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break;
static inline uint64_t pmb_selfread_pmc(uint32_t idx)
{
	uint64_t v;

	switch (idx & 31) { /* 0..31: every case, no bounds check */
	PMB__EVCNTR(0) PMB__EVCNTR(1) PMB__EVCNTR(2) PMB__EVCNTR(3) PMB__EVCNTR(4)
	PMB__EVCNTR(5) PMB__EVCNTR(6) PMB__EVCNTR(7) PMB__EVCNTR(8) PMB__EVCNTR(9)
	PMB__EVCNTR(10) PMB__EVCNTR(11) PMB__EVCNTR(12) PMB__EVCNTR(13) PMB__EVCNTR(14)
	PMB__EVCNTR(15) PMB__EVCNTR(16) PMB__EVCNTR(17) PMB__EVCNTR(18) PMB__EVCNTR(19)
	PMB__EVCNTR(20) PMB__EVCNTR(21) PMB__EVCNTR(22) PMB__EVCNTR(23) PMB__EVCNTR(24)
	PMB__EVCNTR(25) PMB__EVCNTR(26) PMB__EVCNTR(27) PMB__EVCNTR(28) PMB__EVCNTR(29)
	PMB__EVCNTR(30)
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#undef PMB__EVCNTR

/* The clock the page's time_* fields convert (the generic timer). */
static inline uint64_t pmb_selfread_stamp(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#define PMB_SELFREAD_INSN NULL

static inline uint64_t pmb_selfread_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

static inline uint64_t pmb_selfread_stamp(void)
{
	return 0;
}
#endif

/* A counter of `width` bits read as pmc, sign-extended: the kernel starts a
 * counter at minus its period, so the page's offset pairs with a negative
 * value (a 32-bit counter reading 0xfff00000 is -2^20).  Width 0 or 64:
 * as is. */
static inline int64_t pmb_selfread_extend(uint64_t pmc, unsigned width)
{
	unsigned shift = (64 - width) & 63; /* no branch: this is in the measured path */

	return (int64_t)(pmc << shift) >> shift;
}

/* Nanoseconds since the page was last updated, from a stamp of the
 * page's clock: the man page's formula, with cap_user_time_short's wrap
 * of a narrow clock (time_mask ~0 and time_cycles 0 leave it a no-op). */
static inline uint64_t pmb_selfread_time_delta(uint64_t cyc, uint64_t time_cycles, uint64_t time_mask,
					       uint32_t time_mult, uint16_t time_shift, uint64_t time_offset)
{
	uint64_t quot, rem;

	cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	quot = cyc >> time_shift;
	rem = cyc & (((uint64_t)1 << time_shift) - 1);
	return time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
}

/* What to read from the pages. */
#define PMB_SELFREAD_COUNT 1 /* each page's offset and counter */
#define PMB_SELFREAD_TIMES 2 /* the first page's time_enabled and time_running */

#define PMB_SELFREAD_MAX 16
#define PMB_SELFREAD_MAX_RETRIES 64

/* One read of a group's pages at one instant. */
struct pmb_selfread {
	uint64_t offset[PMB_SELFREAD_MAX]; /* each page's offset */
	uint64_t pmc[PMB_SELFREAD_MAX];    /* its counter as read (pmb_selfread_value) */
	uint32_t index[PMB_SELFREAD_MAX];  /* its index (never 0 where the read succeeded) */
	uint64_t enabled, running;         /* the first page's times: now where timed,
	                                      else as of the kernel's last update */
	bool timed;                        /* cap_user_time */
	unsigned retries;                  /* the kernel moved a page mid-read */
};

/* The lock-and-retry read of pages[0..n) (man 2 perf_event_open: "lock",
 * "index", "offset", "pmc_width", "time_enabled"), the one place it is
 * written.  Batched for the measured path: every page's lock first, the
 * counters back to back, every lock again; each counter's read still lies
 * between its page's two lock reads.  Where the index and offset are read
 * is for the caller to choose, as what lies next to the counters is
 * counted as the harness's own: before the counters (hint NULL: the
 * beginning of a sample, so that nothing but the counters follows them),
 * or after them (hint: the indices of the sample's first read, so that
 * nothing but the locks precedes them at its end; a counter read through
 * an index the page no longer has is read again through the new one).
 * The value is composed later (pmb_selfread_value): pmc_width is the
 * event's for its life.  pmc reads counter index - 1 and stamp the page's
 * clock; both are parameters so that a test can play the hardware
 * (inlined with the real ones: no indirect call).  The kernel updates the
 * pages on this thread's CPU (scheduling in, an overflow interrupt), so
 * compiler barriers order the reads, as in the man page's example.
 * Returns false where a counter is not readable now (index 0 or
 * cap_user_rdpmc 0: the caller reads the group by read() instead) or the
 * pages would not hold still for PMB_SELFREAD_MAX_RETRIES tries. */
static inline __attribute__((always_inline)) bool
pmb_selfread_pages(const volatile struct perf_event_mmap_page *const *pages, int n, int what,
		   const uint32_t *hint, uint64_t (*pmc)(uint32_t), uint64_t (*stamp)(void),
		   struct pmb_selfread *r)
{
	/* Locals, not r's fields: with n a constant they live in registers,
	 * and the barriers (which make the compiler read memory again) do not
	 * touch them. */
	const volatile struct perf_event_mmap_page *pc[PMB_SELFREAD_MAX];
	uint64_t off[PMB_SELFREAD_MAX], raw[PMB_SELFREAD_MAX];
	uint64_t ena = 0, run = 0, cyc = 0, toff = 0, tcyc = 0, tmask = ~(uint64_t)0;
	uint32_t seq[PMB_SELFREAD_MAX], idx[PMB_SELFREAD_MAX], mult = 0, idx0 = 0;
	uint16_t shift = 0;
	unsigned retries = 0;
	bool timed = false, moved;

	if (!(what & PMB_SELFREAD_COUNT))
		n = 1;
	r->retries = 0;
	if (what & PMB_SELFREAD_TIMES) {
		r->enabled = r->running = 0;
		r->timed = false;
	}
	for (int i = 0; i < n; i++) {
		pc[i] = pages[i];
		idx[i] = hint ? hint[i] : 0;
	}
	for (;;) {
		for (int i = 0; i < n; i++)
			seq[i] = pc[i]->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (what & PMB_SELFREAD_TIMES) {
			idx0 = pc[0]->index;
			ena = pc[0]->time_enabled;
			run = pc[0]->time_running;
			timed = pc[0]->cap_user_time;
			if (timed) {
				cyc = stamp();
				mult = pc[0]->time_mult;
				shift = pc[0]->time_shift;
				toff = pc[0]->time_offset;
				if (pc[0]->cap_user_time_short) {
					tcyc = pc[0]->time_cycles;
					tmask = pc[0]->time_mask;
				}
			}
		}
		moved = false;
		if (what & PMB_SELFREAD_COUNT) {
			if (hint) {
				for (int i = 0; i < n; i++)
					raw[i] = pmc(idx[i] - 1);
			}
			for (int i = 0; i < n; i++) {
				uint32_t now = pc[i]->index;

				off[i] = (uint64_t)pc[i]->offset;
				if (__builtin_expect(!now || !pc[i]->cap_user_rdpmc, 0)) {
					r->retries = retries;
					return false;
				}
				moved |= now != idx[i];
				idx[i] = now;
				if (!hint) {
					/* Stored now: after the counters, only they are. */
					r->offset[i] = off[i];
					r->index[i] = now;
				}
			}
			if (!hint) {
				moved = false;
				for (int i = 0; i < n; i++)
					raw[i] = pmc(idx[i] - 1);
			}
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		for (int i = 0; i < n; i++)
			moved |= pc[i]->lock != seq[i];
		if (__builtin_expect(!moved, 1))
			break;
		if (++retries == PMB_SELFREAD_MAX_RETRIES) {
			r->retries = retries;
			return false;
		}
	}
	if (retries)
		r->retries = retries;
	if (what & PMB_SELFREAD_COUNT) {
		for (int i = 0; i < n; i++) {
			r->pmc[i] = raw[i];
			if (hint) {
				r->offset[i] = off[i];
				r->index[i] = idx[i];
			}
		}
	}
	if (what & PMB_SELFREAD_TIMES) {
		if (timed) {
			uint64_t delta = pmb_selfread_time_delta(cyc, tcyc, tmask, mult, shift, toff);

			/* Enabled runs on; running only while on a counter. */
			ena += delta;
			if (idx0)
				run += delta;
		}
		r->enabled = ena;
		r->running = run;
		r->timed = timed;
	}
	return true;
}

/* Page i's count from a pmb_selfread_pages() read. */
static inline uint64_t pmb_selfread_value(const struct pmb_selfread *r, int i, unsigned pmc_width)
{
	return r->offset[i] + (uint64_t)pmb_selfread_extend(r->pmc[i], pmc_width);
}

/* The config1 bit that asks the PMU behind perf event type `type` for
 * user-space access (arm64: the sysfs format "rdpmc", config1:1), -1
 * where no PMU asks for one (x86: rdpmc needs no attribute).  Types 0
 * (hardware), 3 (hw cache) and 4 (raw) go to the core PMU. */
int pmb__selfread_config1_bit(uint32_t type);

/* Why the kernel gives no user-space reads of a hardware counter here,
 * from its settings (arm64: kernel.perf_user_access; x86: the PMU's rdpmc
 * file), with the command that allows it; "" where no setting explains it. */
void pmb__selfread_denied_why(char *why, size_t n);

/* Read counter idx once with SIGSEGV and SIGILL caught: a hypervisor can
 * advertise user reads and still fault them.  Returns 0, or -EFAULT where
 * the read faulted. */
int pmb__selfread_try_pmc(uint32_t idx, uint64_t *value);

#endif
