/* selfread.c - what the kernel allows of user-space counter reads: the arm64 rdpmc attribute bit, the settings that forbid them, a guarded first read. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "selfread.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static bool read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	bool ok;

	buf[0] = 0;
	if (!f)
		return false;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* "config1:1" (or "config1:1-1"): the bit; -1 for anything else. */
static int parse_config1_bit(const char *s)
{
	unsigned lo, hi;
	int used = 0;

	if (sscanf(s, "config1:%u%n", &lo, &used) != 1)
		return -1;
	if (s[used] == '-' && (sscanf(s + used, "-%u", &hi) != 1 || hi != lo))
		return -1;
	return lo < 64 ? (int)lo : -1;
}

int pmb__selfread_config1_bit(uint32_t type)
{
	bool core = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;
	int bit = -1;

	if (!d)
		return -1;
	/* A handful of PMUs, read once per group opened for self-reading. */
	while (bit < 0 && (e = readdir(d))) {
		char path[512], buf[64];
		int b;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/format/rdpmc", e->d_name);
		if (!read_line(path, buf, sizeof(buf)) || (b = parse_config1_bit(buf)) < 0)
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", e->d_name);
		if (core || (read_line(path, buf, sizeof(buf)) && strtoul(buf, NULL, 10) == type))
			bit = b;
	}
	closedir(d);
	return bit;
}

void pmb__selfread_denied_why(char *why, size_t n)
{
	static const char *const rdpmc[] = { PMU_DIR "/cpu/rdpmc", PMU_DIR "/cpu_core/rdpmc" };
	char buf[32];

	why[0] = 0;
	if (read_line("/proc/sys/kernel/perf_user_access", buf, sizeof(buf)) && !strcmp(buf, "0")) {
		snprintf(why, n, "kernel.perf_user_access is 0, which keeps the counters from user space; "
			 "`sudo sysctl kernel.perf_user_access=1` allows it");
		return;
	}
	for (size_t i = 0; i < sizeof(rdpmc) / sizeof(rdpmc[0]); i++)
		if (read_line(rdpmc[i], buf, sizeof(buf)) && !strcmp(buf, "0")) {
			snprintf(why, n, "rdpmc is off (%s is 0); `echo 1 | sudo tee %s` allows it", rdpmc[i],
				 rdpmc[i]);
			return;
		}
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

int pmb__selfread_try_pmc(uint32_t idx, uint64_t *value)
{
	struct sigaction sa, old_segv, old_ill;
	volatile int err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGILL, &sa, &old_ill);
	if (sigsetjmp(fault_jmp, 1) == 0)
		*value = pmb_selfread_pmc(idx);
	else
		err = -EFAULT;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGILL, &old_ill, NULL);
	return err;
}
