/* counters.c - the only caller of perf_event_open: groups, enable/disable, the read per sample (user space or read()), scaling. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "selfread.h"

_Static_assert(PMB_MAX_EVENTS <= PMB_SELFREAD_MAX, "a group's pages fit one pmb_selfread");

/* The counts and times of a group at one instant, for the self-read path:
 * a sample is the difference of two. */
struct snap {
	struct pmb_selfread r;          /* from the pages */
	uint64_t value[PMB_MAX_EVENTS]; /* by read(), where the pages could not */
	uint64_t enabled, running;      /* exact: the kernel's totals at that instant */
	uint64_t now;                   /* CLOCK_MONOTONIC ns, where not exact */
	unsigned retries;               /* page reads the kernel interrupted */
	bool by_read, exact, failed;
};

struct pmb_group {
	int n;
	int fd[PMB_MAX_EVENTS];
	uint64_t id[PMB_MAX_EVENTS];
	struct perf_event_attr attr[PMB_MAX_EVENTS]; /* as asked: reopened for self-read */
	uint64_t enabled, running; /* read(): the kernel's totals at the last read */
	/* Self-read: the event pages mapped, the group left enabled (keep) or
	 * enabled per sample (several groups take turns), two snapshots. */
	const volatile struct perf_event_mmap_page *page[PMB_MAX_EVENTS]; /* NULL: read() */
	int nread;   /* pages a snapshot reads: n, or more (pmb__group_pad) */
	bool on, keep;
	void (*mark[2])(struct pmb_group *g); /* the snapshots for this size */
	struct snap snap[2];
	uint64_t retries, fallbacks;
};

static int perf_open(struct perf_event_attr *a, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, 0 /* this thread */,
			  -1 /* any cpu */, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int pmb__group_open(struct pmb_group **out, const struct perf_event_attr *attrs,
		   int n, int *failed)
{
	struct pmb_group *g;
	int err = 0;

	*out = NULL;
	if (n <= 0 || n > PMB_MAX_EVENTS)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a = attrs[i];

		g->attr[i] = attrs[i];
		a.size = sizeof(a);
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* The leader starts disabled and members follow it; members are
		 * enabled so they count whenever the leader does. */
		a.disabled = i == 0;
		a.inherit = 0;
		int fd = perf_open(&a, i == 0 ? -1 : g->fd[0]);
		if (fd < 0) {
			err = fd;
			if (failed)
				*failed = i;
			goto fail_open;
		}
		g->fd[i] = fd;
		g->n = i + 1;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &g->id[i]) < 0) {
			err = -errno;
			if (failed)
				*failed = i;
			goto fail_open;
		}
	}
	*out = g;
	return 0;

fail_open:
	pmb__group_close(g);
	return err;
}

static int enable(struct pmb_group *g)
{
	if (ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	g->on = true;
	return 0;
}

static int disable(struct pmb_group *g)
{
	/* Disable the leader alone: members count only while their leader is
	 * scheduled, so this stops the whole group at once.  Disabling with
	 * PERF_IOC_FLAG_GROUP disables each member too, and on some kernels
	 * (seen on 6.18 with software events) a later ENABLE with the group
	 * flag never revives them: they silently count zero from then on. */
	if (ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, 0) < 0)
		return -errno;
	g->on = false;
	return 0;
}

int pmb__group_start(struct pmb_group *g)
{
	if (g->page[0])
		return g->on ? 0 : enable(g);
	if (ioctl(g->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	return enable(g);
}

int pmb__group_stop(struct pmb_group *g)
{
	if (g->page[0] && g->keep)
		return 0;
	return disable(g);
}

/* One read() of the group: each member's count, in the order opened, and
 * the kernel's total times (since the open: RESET clears counts only). */
static int read_totals(struct pmb_group *g, uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	/* nr, time_enabled, time_running, then {value, id} per member. */
	uint64_t buf[3 + 2 * PMB_MAX_EVENTS];
	ssize_t want = (ssize_t)((3 + 2 * g->n) * sizeof(uint64_t));
	ssize_t got = read(g->fd[0], buf, sizeof(buf));

	if (got < 0)
		return -errno;
	if (got < want || buf[0] != (uint64_t)g->n)
		return -EIO;
	*enabled = buf[1];
	*running = buf[2];
	for (int i = 0; i < g->n; i++) {
		/* Match by id: the kernel lists members in its own order. */
		for (int k = 0; k < g->n; k++)
			if (buf[3 + 2 * k + 1] == g->id[i])
				value[i] = buf[3 + 2 * k];
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The snapshot by read() where the pages cannot serve: the group is off
 * its counters at the moment (multiplexed) or a page would not settle. */
static __attribute__((noinline)) void snap_syscall(struct pmb_group *g, struct snap *s)
{
	s->failed = read_totals(g, s->value, &s->enabled, &s->running) != 0;
	s->by_read = s->exact = true;
	s->now = now_ns();
	g->fallbacks++;
}

/* The leader's times.  Where the kernel gives no user-space time
 * (cap_user_time 0: x86 guests whose sched_clock is not the TSC) they are
 * as of its last page update, and the clock says how long the sample was. */
static bool snap_times(struct pmb_group *g, struct snap *s)
{
	struct pmb_selfread r;
	bool ok = pmb_selfread_pages(g->page, 1, PMB_SELFREAD_TIMES, NULL, pmb_selfread_pmc,
				     pmb_selfread_stamp, &r);

	s->retries += r.retries;
	s->enabled = r.enabled;
	s->running = r.running;
	s->exact = r.timed;
	if (!r.timed)
		s->now = now_ns();
	return ok;
}

/* The build aligns every loop to 64 bytes (-falign-loops=64, for the
 * benchmarks' sake), and the padding is nops executed on entry (up to 15 a
 * loop on arm64), counted as the harness's own where they lie between the
 * counters and the benchmark.  These loops are not measured: no alignment. */
#if defined(__GNUC__) && !defined(__clang__)
#define UNALIGNED_LOOPS __attribute__((optimize("align-loops=1")))
#else
#define UNALIGNED_LOOPS
#endif

/* The two snapshots of a sample, for n members.  What lies between the
 * counters and the benchmark's passes is counted as the harness's own, so
 * the beginning reads the times and every page's index before its
 * counters, and the end reads its counters first (through the beginning's
 * indices), then the rest. */
static inline __attribute__((always_inline)) void mark_begin(struct pmb_group *g, int n)
{
	struct snap *s = &g->snap[0];

	s->retries = s->r.retries = 0;
	s->by_read = false;
	if (!snap_times(g, s) ||
	    !pmb_selfread_pages(g->page, n, PMB_SELFREAD_COUNT, NULL, pmb_selfread_pmc, pmb_selfread_stamp, &s->r))
		snap_syscall(g, s);
}

static inline __attribute__((always_inline)) void mark_end(struct pmb_group *g, int n)
{
	struct snap *s = &g->snap[1];
	const uint32_t *hint = g->snap[0].r.index;

	s->retries = 0;
	/* After a beginning by read() there are no indices to go by. */
	if (__builtin_expect(g->snap[0].by_read, 0)) {
		if (!pmb_selfread_pages(g->page, n, PMB_SELFREAD_COUNT, NULL, pmb_selfread_pmc,
					pmb_selfread_stamp, &s->r))
			goto by_read;
	} else if (!pmb_selfread_pages(g->page, n, PMB_SELFREAD_COUNT, hint, pmb_selfread_pmc,
				       pmb_selfread_stamp, &s->r)) {
		goto by_read;
	}
	if (!snap_times(g, s))
		goto by_read;
	s->by_read = false;
	return;
by_read:
	snap_syscall(g, s);
}

/* Code of its own for each small group (no loop, everything in
 * registers), one generic for the rest. */
#define MARKS(k, n)                                                                           \
	static UNALIGNED_LOOPS void mark_begin_##k(struct pmb_group *g) { mark_begin(g, n); } \
	static UNALIGNED_LOOPS void mark_end_##k(struct pmb_group *g) { mark_end(g, n); }
MARKS(1, 1)
MARKS(2, 2)
MARKS(3, 3)
MARKS(4, 4)
MARKS(any, g->nread)
#undef MARKS

static void (*const marks[5][2])(struct pmb_group *) = {
	{ mark_begin_any, mark_end_any }, { mark_begin_1, mark_end_1 }, { mark_begin_2, mark_end_2 },
	{ mark_begin_3, mark_end_3 }, { mark_begin_4, mark_end_4 },
};

void pmb__group_mark(struct pmb_group *g, int which)
{
	if (g->mark[0])
		g->mark[which != 0](g);
}

pmb_group_marker_fn pmb__group_marker(const struct pmb_group *g, int which)
{
	return g->mark[which != 0];
}

static void snap_values(const struct pmb_group *g, struct snap *s)
{
	if (s->by_read)
		return;
	for (int i = 0; i < g->n; i++)
		s->value[i] = pmb_selfread_value(&s->r, i, g->page[i]->pmc_width);
}

/* A sample from two snapshots.  Scaling keeps its per-sample meaning: what
 * the group was enabled and running between them.  Without exact times
 * the not-running share still is exact (enabled - running freezes while
 * the group is on its counters and the kernel writes both when it puts it
 * back), and the clock gives the length. */
static int snap_delta(struct pmb_group *g, struct pmb_count *out)
{
	struct snap *a = &g->snap[0], *b = &g->snap[1];
	uint64_t enabled, running;

	g->retries += a->retries + a->r.retries + b->retries + b->r.retries;
	if (a->failed || b->failed)
		return -EIO;
	snap_values(g, a);
	snap_values(g, b);
	if (a->exact && b->exact) {
		enabled = b->enabled - a->enabled;
		running = b->running - a->running;
	} else {
		uint64_t idle = (b->enabled - b->running) - (a->enabled - a->running);

		enabled = b->now > a->now ? b->now - a->now : 1;
		if (idle > enabled)
			enabled = idle;
		running = enabled - idle;
	}
	for (int i = 0; i < g->n; i++) {
		out[i].value = b->value[i] - a->value[i];
		out[i].enabled = enabled;
		out[i].running = running;
	}
	return 0;
}

int pmb__group_read(struct pmb_group *g, struct pmb_count *out)
{
	uint64_t value[PMB_MAX_EVENTS], enabled, running;
	int err;

	if (g->page[0])
		return snap_delta(g, out);
	err = read_totals(g, value, &enabled, &running);
	if (err)
		return err;
	/* What this read covers is the difference of the kernel's totals. */
	for (int i = 0; i < g->n; i++) {
		out[i].value = value[i];
		out[i].enabled = enabled - g->enabled;
		out[i].running = running - g->running;
	}
	g->enabled = enabled;
	g->running = running;
	return 0;
}

/* The pages mapped and checked: every member on a counter user space may
 * read, a first read that does not fault, and a count read() agrees with. */
/* Every counter of the group has a counter index the kernel lets user
 * space read, and reading it does not fault. */
static int check_pmcs(struct pmb_group *g, char *why, size_t n)
{
	for (int i = 0; i < g->n; i++) {
		uint32_t idx = g->page[i]->index;
		uint64_t v;

		if (idx == 0 || !g->page[i]->cap_user_rdpmc) {
			snprintf(why, n, "the kernel gives user space no counter to read (%s)",
				 g->page[i]->cap_user_rdpmc ? "the group got no counter in 20 ms"
							    : "cap_user_rdpmc is 0");
			return -EPERM;
		}
		if (pmb__selfread_try_pmc(idx - 1, &v)) {
			snprintf(why, n, "the kernel allows %s but it faulted (a hypervisor that does not "
				 "pass it through?)", PMB_SELFREAD_INSN);
			return -EFAULT;
		}
	}
	return 0;
}

/* A snapshot, then read(): the same counts, read() a little later. */
static int check_against_read(struct pmb_group *g, char *why, size_t n)
{
	struct snap s;

	pmb__group_pad(g, g->n);
	pmb__group_mark(g, 0);
	snap_values(g, &g->snap[0]);
	if (g->fallbacks || read_totals(g, s.value, &s.enabled, &s.running)) {
		snprintf(why, n, "the group's pages would not read");
		return -EIO;
	}
	for (int i = 0; i < g->n; i++)
		if (s.value[i] < g->snap[0].value[i] || s.value[i] - g->snap[0].value[i] > (1u << 30)) {
			snprintf(why, n, "%s read %llu where read() gave %llu", PMB_SELFREAD_INSN,
				 (unsigned long long)g->snap[0].value[i], (unsigned long long)s.value[i]);
			return -EIO;
		}
	return 0;
}

static int map_pages(struct pmb_group *g, char *why, size_t n)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < g->n; i++) {
		/* One page: the control page alone, no ring buffer. */
		void *p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, g->fd[i], 0);

		if (p == MAP_FAILED) {
			int err = -errno;

			snprintf(why, n, "the kernel would not map the counters' page (%s)", strerror(-err));
			return err;
		}
		g->page[i] = p;
	}
	int err = enable(g);

	if (err) {
		snprintf(why, n, "enabling the group failed (%s)", strerror(-err));
		return err;
	}
	/* A setting that forbids it, said by name; else another process's
	 * events on this task may be taking turns with the group (a few ms
	 * each): wait for its turn, as try_group() does. */
	pmb__selfread_denied_why(why, n);
	if (why[0])
		return -EPERM;
	for (uint64_t t0 = now_ns(); !g->page[g->n - 1]->index && now_ns() - t0 < 20000000;)
		sched_yield();
	err = check_pmcs(g, why, n);
	return err ? err : check_against_read(g, why, n);
}

static void unmap_pages(struct pmb_group *g)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < g->n; i++)
		if (g->page[i])
			munmap((void *)g->page[i], (size_t)psz);
	memset(g->page, 0, sizeof(g->page));
	g->nread = 0;
	memset(g->mark, 0, sizeof(g->mark));
}

int pmb__group_self(struct pmb_group **gp, char *why, size_t n)
{
	struct pmb_group *g = *gp, *ng = g;
	struct perf_event_attr a[PMB_MAX_EVENTS];
	int err = 0, failed;

	why[0] = 0;
	if (g->page[0])
		return 0;
	if (!PMB_SELFREAD_INSN) {
		snprintf(why, n, "pmubench reads no counters from user space on this architecture");
		return -ENOTSUP;
	}
	/* Where the PMU asks for it (arm64), user access is an attribute bit:
	 * the group is opened again with it. */
	bool reopen = false;

	for (int i = 0; i < g->n; i++) {
		int bit = pmb__selfread_config1_bit(g->attr[i].type);

		a[i] = g->attr[i];
		if (a[i].type == PERF_TYPE_SOFTWARE) {
			snprintf(why, n, "software events have no counter to read");
			return -ENOTSUP;
		}
		if (bit >= 0) {
			a[i].config1 |= (uint64_t)1 << bit;
			reopen = true;
		}
	}
	if (reopen) {
		err = pmb__group_open(&ng, a, g->n, &failed);
		if (err) {
			snprintf(why, n, "the kernel refused user access to the counters (%s)", strerror(-err));
			return err;
		}
	}
	err = map_pages(ng, why, n);
	if (err) {
		if (ng != g) {
			pmb__group_close(ng);
		} else {
			unmap_pages(g);
			disable(g);
		}
		return err;
	}
	ng->fallbacks = ng->retries = 0;
	ng->keep = true;
	if (ng != g) {
		pmb__group_close(g);
		*gp = ng;
	}
	return 0;
}

void pmb__group_pad(struct pmb_group *g, int nread)
{
	if (!g->page[0] || nread < g->n || nread > PMB_MAX_EVENTS)
		return;
	/* The extra reads are of the leader's page: read, and not used. */
	for (int i = g->n; i < nread; i++)
		g->page[i] = g->page[0];
	g->nread = nread;
	memcpy(g->mark, marks[nread < 5 ? nread : 0], sizeof(g->mark));
}

void pmb__group_keep(struct pmb_group *g, bool keep)
{
	g->keep = keep;
	if (g->page[0] && !keep && g->on)
		disable(g);
}

bool pmb__group_is_self(const struct pmb_group *g)
{
	return g && g->page[0];
}

void pmb__group_read_stats(const struct pmb_group *g, uint64_t *retries, uint64_t *fallbacks)
{
	*retries = g->retries;
	*fallbacks = g->fallbacks;
}

const volatile struct perf_event_mmap_page *pmb__group_page(const struct pmb_group *g, int i)
{
	return i >= 0 && i < g->n ? g->page[i] : NULL;
}

int pmb__group_size(const struct pmb_group *g)
{
	return g ? g->n : 0;
}

void pmb__group_close(struct pmb_group *g)
{
	if (!g)
		return;
	unmap_pages(g);
	for (int i = g->n - 1; i >= 0; i--)
		close(g->fd[i]);
	free(g);
}
