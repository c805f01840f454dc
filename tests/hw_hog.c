/* hw_hog.c - hold the PMU's counters from another process, to force the
 * kernel to multiplex pmubench's groups (tests/test_hw.py).
 *
 *   hw_hog N SECONDS PID  one flexible group of N instruction counters on
 *                         task PID, enabled; exits after SECONDS
 *
 * On the task itself, not CPU-wide: the kernel schedules CPU-wide flexible
 * groups before a task's (Linux 6.1), so a CPU-wide hog would starve
 * pmubench's group, never share the counters with it; two flexible groups
 * of one task take turns.  Needs the right to attach to PID (root).
 * Prints "holding N counters on PID" once they are open, then sleeps. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	int secs = argc > 2 ? atoi(argv[2]) : 0;
	int pid = argc > 3 ? atoi(argv[3]) : 0;
	int leader = -1;

	if (n < 1 || n > 32 || secs < 1 || pid < 1) {
		fprintf(stderr, "usage: hw_hog N(1-32) SECONDS PID\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.exclude_kernel = 1;
		long fd = syscall(SYS_perf_event_open, &a, pid, -1, leader, 0);

		if (fd < 0) {
			fprintf(stderr, "hw_hog: counter %d on task %d: %s\n", i, pid, strerror(errno));
			return 1;
		}
		if (leader < 0)
			leader = (int)fd;
	}
	printf("holding %d counters on task %d\n", n, pid);
	fflush(stdout);
	sleep((unsigned)secs);
	return 0;
}
