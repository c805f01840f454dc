/* probe.h - the environment probe, once per run: measured, not assumed. */
#ifndef PMB_PROBE_H
#define PMB_PROBE_H

#include <stdbool.h>

#include "base.h"
#include "meter.h"
#include "model.h"

/* The machine as the run found it: made once, before measuring, and only
 * read after that (the counters' fallback policy, the reports). */
struct pmb_env {
	char date[40];             /* ISO 8601, local time */
	char host[64];
	char executable[256];
	struct pmb_clock_probe clock;
	double ghz;                /* core frequency estimate; 0 unknown */
	char governor[32];         /* "" unknown */
	int turbo;                 /* 1 on, 0 off, -1 unknown */
	double loadavg[3];         /* 0 unknown, -1 unreadable */
	int paranoid;              /* perf_event_paranoid; -100 unknown */
	char cpu_model[96];        /* /proc/cpuinfo's model name; "" unknown */
	char virt[48];             /* the hypervisor or emulator the machine
	                              runs under ("QEMU", "KVM", "a hypervisor");
	                              "" none seen.  Its virtual PMU, not the
	                              CPU model, decides which events count */
	double busy;               /* share of core cpu other work kept busy
	                              before the run; 0 unknown or sim */
	int idlest_cpu;            /* the least busy other core; -1 unknown */
	double idlest_busy;        /* its share */
};

/* Probe clock resolution and read cost, core frequency estimate, CPU
 * governor of core cpu, turbo, load average, perf_event_paranoid, host,
 * date, executable, and (unless sim: valgrind's slowness would make it
 * look busy) whether another process keeps core cpu busy.  The warnings a
 * user must see about them go into w. */
void pmb__env_probe(struct pmb_env *env, int cpu, bool sim, struct pmb_warnings *w);

/* Cost of what the runner does to a counter group per sample on its read
 * path (read(): reset, enable, disable, one read; self-read: two user-space
 * snapshots), in ns: median of 201 rounds; -1 without a group.  *inside_ns:
 * the share inside the timed window (the self-read snapshots; about one
 * clock read by read()), -1 without a group. */
double pmb__probe_group_read(struct pmb_counters *c, double *inside_ns);

#endif
