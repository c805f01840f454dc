/* x86_hog.c - hold as many of the core PMU's counters as one group can take,
 * on another task, so that the kernel must multiplex that task's own groups
 * (x86-pmu.sh's forced-multiplexing check; tests/hw_hog.c is the same idea
 * for the emulated Arm PMU, with the count given).
 *
 *   x86_hog SECONDS PID [PMU_TYPE]
 *
 * One flexible group of user-mode instruction events on task PID (not
 * CPU-wide: the kernel schedules CPU-wide flexible groups before a task's,
 * so a CPU-wide hog would starve the task's groups instead of taking turns
 * with them).  How many counters fit is not told but found: siblings are
 * added until the kernel refuses one (an x86 group that cannot fit on an
 * empty PMU is refused at open: all generic counters plus fixed counter 0
 * on Intel, the generic ones on AMD).  A group that fits an empty PMU may
 * still never get on when a pinned event holds a counter (the NMI
 * watchdog): if the group has not run while PID has, it is reopened one
 * smaller.  PMU_TYPE, on a hybrid CPU, is the sysfs type of the pinned
 * core's PMU (perf's extended type in config's upper half).  Exits when
 * PID is gone or after SECONDS, saying how many counters it held and its
 * share of the time: running < enabled is the proof that the counters
 * were shared.  Needs the right to observe PID (same user, paranoid <= 2). */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 32
#define LOOK_NS 100000000L /* how often the group's times are looked at */

struct group {
	int fd[MAX_EVENTS];
	int n;
};

static void group_close(struct group *g)
{
	while (g->n > 0)
		close(g->fd[--g->n]);
}

/* Open up to max instruction events in one group on pid; the number opened
 * (0: none, errno says why). */
static int group_open(struct group *g, int pid, uint64_t pmu_type, int max)
{
	g->n = 0;
	for (int i = 0; i < max; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS | pmu_type << 32;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		long fd = syscall(SYS_perf_event_open, &a, pid, -1, g->n ? g->fd[0] : -1, 0);

		if (fd < 0)
			break;
		g->fd[g->n++] = (int)fd;
	}
	return g->n;
}

/* The leader's time enabled and running; false if it cannot be read. */
static int group_times(const struct group *g, uint64_t *enabled, uint64_t *running)
{
	uint64_t v[3];

	if (read(g->fd[0], v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	*enabled = v[1];
	*running = v[2];
	return 1;
}

int main(int argc, char **argv)
{
	int secs = argc > 2 ? atoi(argv[1]) : 0;
	int pid = argc > 2 ? atoi(argv[2]) : 0;
	uint64_t pmu_type = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	uint64_t en = 0, run = 0, last_en = 0, last_run = 0;
	struct timespec look = { 0, LOOK_NS };
	struct group g;
	int max = MAX_EVENTS;

	if (secs < 1 || pid < 1) {
		fprintf(stderr, "usage: x86_hog SECONDS PID [PMU_TYPE]\n");
		return 2;
	}
	if (!group_open(&g, pid, pmu_type, max)) {
		fprintf(stderr, "x86_hog: no counter on task %d: %s\n", pid, strerror(errno));
		return 1;
	}
	printf("x86_hog: holding %d counters on task %d\n", g.n, pid);
	fflush(stdout);
	for (long t = 0; t < secs * (1000000000L / LOOK_NS) && kill(pid, 0) == 0; t++) {
		nanosleep(&look, NULL);
		if (!group_times(&g, &en, &run))
			break;
		/* the task ran (enabled grew) but the group never got on */
		if (en > last_en && run == last_run && run == 0 && g.n > 1) {
			max = g.n - 1;
			group_close(&g);
			if (!group_open(&g, pid, pmu_type, max))
				break;
			printf("x86_hog: the group never ran; holding %d counters instead\n", g.n);
			fflush(stdout);
			en = run = 0;
		}
		last_en = en;
		last_run = run;
	}
	printf("x86_hog: held %d counters on task %d: running %llu of %llu ns enabled (%.1f %%)\n", g.n, pid,
	       (unsigned long long)last_run, (unsigned long long)last_en,
	       last_en ? 100.0 * (double)last_run / (double)last_en : 0.0);
	group_close(&g);
	return 0;
}
