/* probe.c - the environment probe: governor, turbo, load, paranoid level, busy core, clock, frequency, counter read cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "probe.h"

static void read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Busy share of `cpu` (other processes) over a short window, from
 * /proc/stat: user+nice+system+irq+softirq+steal over all. */
#define PROBE_MAX_CPUS 256

/* /proc/stat's busy and all jiffies of cpu0..cpuN into busy[], all[];
 * returns false where it cannot be read. */
static bool stat_cpus(unsigned long long *busy, unsigned long long *all)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		int c, at = 0;

		if (sscanf(line, "cpu%d %n", &c, &at) != 1 || c < 0 || c >= PROBE_MAX_CPUS || !at)
			continue;
		sscanf(line + at, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		       &v[5], &v[6], &v[7]);
		busy[c] = all[c] = 0;
		for (int i = 0; i < 8; i++) {
			all[c] += v[i];
			if (i != 3 && i != 4) /* idle, iowait */
				busy[c] += v[i];
		}
	}
	fclose(f);
	return true;
}

/* The share of core cpu other work kept busy over 100 ms (-1 unknown),
 * and the least busy other core (*idlest, -1 none) with its share. */
static double cpu_busy(int cpu, int *idlest, double *idlest_busy)
{
	static unsigned long long b[2][PROBE_MAX_CPUS], a[2][PROBE_MAX_CPUS];
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	double mine = -1;

	*idlest = -1;
	*idlest_busy = 2;
	memset(a, 0, sizeof(a));
	if (!stat_cpus(b[0], a[0]))
		return -1;
	nanosleep(&ts, NULL);
	if (!stat_cpus(b[1], a[1]))
		return -1;
	for (int c = 0; c < PROBE_MAX_CPUS; c++) {
		unsigned long long all = a[1][c] - a[0][c];
		double share = all ? (double)(b[1][c] - b[0][c]) / (double)all : -1;

		if (!all)
			continue;
		if (c == cpu)
			mine = share;
		else if (share < *idlest_busy)
			*idlest = c, *idlest_busy = share;
	}
	return mine;
}

/* The CPU's "model name" (x86) or "CPU part" where there is none (Arm). */
static void cpu_model(char *buf, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');
		bool model = !strncmp(line, "model name", 10);

		if (!v || !(model || (!buf[0] && !strncmp(line, "CPU part", 8))))
			continue;
		v += 1 + (v[1] == ' ');
		v[strcspn(v, "\n")] = 0;
		snprintf(buf, size, "%s%s", model ? "" : "CPU part ", v);
		if (model)
			break;
	}
	if (f)
		fclose(f);
}

/* The hypervisor or emulator this machine runs under, from what the
 * kernel shows of it: DMI's vendor and product (x86, and arm64 with
 * firmware tables), the device tree of QEMU's "virt" board, the x86 CPU's
 * hypervisor flag.  "" where none is seen. */
static void virt_name(char *out, size_t n)
{
	static const char *const known[] = { "QEMU", "KVM", "VMware", "VirtualBox", "Xen", "Microsoft",
					     "Amazon EC2", "Google", "Parallels", "Bochs" };
	char buf[256] = "";
	FILE *f;

	out[0] = 0;
	for (int i = 0; i < 2 && !out[0]; i++) {
		read_line(i ? "/sys/class/dmi/id/product_name" : "/sys/class/dmi/id/sys_vendor", buf, sizeof(buf));
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]) && !out[0]; k++)
			if (strstr(buf, known[k]))
				snprintf(out, n, "%s", known[k]);
	}
	if (out[0])
		return;
	/* QEMU's arm64 "virt" board: compatible "linux,dummy-virt". */
	f = fopen("/sys/firmware/devicetree/base/compatible", "r");
	if (f) {
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[got] = 0;
		if (strstr(buf, "dummy-virt"))
			snprintf(out, n, "QEMU");
	}
	if (out[0] || !(f = fopen("/proc/cpuinfo", "r")))
		return;
	/* The whole line: an x86 flags line is 600 characters and more, and
	 * "hypervisor" sits past its first 256 (350 on a Zen 3 guest). */
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " hypervisor"))
				snprintf(out, n, "a hypervisor");
			break;
		}
	free(line);
	fclose(f);
}

void pmb__env_probe(struct pmb_env *env, int cpu, bool sim, struct pmb_warnings *w)
{
	char buf[128], path[128];
	FILE *f;

	memset(env, 0, sizeof(*env));
	/* Under simulation nothing is timed: the clock's resolution and the
	 * frequency measured inside valgrind would be the simulator's speed
	 * (its 23 M adds and 130 k clock reads were about a third of a
	 * one-benchmark sim run's CPU time). */
	if (sim) {
		env->clock.source = "CLOCK_MONOTONIC";
		env->clock.resolution_ns = env->clock.read_cost_ns = NAN; /* JSON null */
	} else {
		pmb__clock_probe(&env->clock);
		if (pmb__clock_estimate_ghz(&env->ghz))
			env->ghz = 0;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	read_line(path, env->governor, sizeof(env->governor));
	env->turbo = -1;
	read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf));
	if (buf[0])
		env->turbo = buf[0] == '0';
	read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf));
	if (buf[0])
		env->turbo = buf[0] == '1';
	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	virt_name(env->virt, sizeof(env->virt));
	read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	env->paranoid = buf[0] ? atoi(buf) : -100;
	f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf %lf %lf", &env->loadavg[0], &env->loadavg[1], &env->loadavg[2]) != 3)
			env->loadavg[0] = env->loadavg[1] = env->loadavg[2] = -1;
		fclose(f);
	}
	if (env->governor[0] && strcmp(env->governor, "performance"))
		pmb__warn(w, "CPU governor is '%s', not 'performance': the frequency may change "
			 "during the run; run `sudo cpupower frequency-set -g performance`", env->governor);
	if (env->turbo == 1)
		pmb__warn(w, "turbo is on: the frequency depends on temperature and load; "
			 "turn it off for stable figures (echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo)");
	env->idlest_cpu = -1;
	double busy = env->busy = !sim ? cpu_busy(cpu, &env->idlest_cpu, &env->idlest_busy) : 0;
	if (busy > 0.2 && env->idlest_cpu >= 0 && env->idlest_busy < busy / 2)
		pmb__warn(w, "core %d was %.0f %% busy with other work before the run: "
			 "its samples will be disturbed; pick an idle core with --cpu (core %d was %.0f %% busy)",
			 cpu, busy * 100, env->idlest_cpu, env->idlest_busy * 100);
	else if (busy > 0.2)
		pmb__warn(w, "core %d was %.0f %% busy with other work before the run: "
			 "its samples will be disturbed; pick an idle core with --cpu", cpu, busy * 100);
	gethostname(env->host, sizeof(env->host) - 1);
	ssize_t len = readlink("/proc/self/exe", env->executable, sizeof(env->executable) - 1);
	env->executable[len > 0 ? len : 0] = 0;
	time_t now = time(NULL);
	strftime(env->date, sizeof(env->date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
}

/* Cost of what the runner does to a counter group per sample, on the
 * group's read path (read(): reset, enable, disable, one read; self-read:
 * two user-space snapshots, and the enable and disable where groups take
 * turns), measured: median of 201 rounds.  *inside_ns: the share that lies
 * inside the timed window (the snapshots; ~0 by read()), with the clock
 * read that brackets it.  -1: no group. */
double pmb__probe_group_read(struct pmb_counters *c, double *inside_ns)
{
	enum { N = 201 };
	double d[N], in[N];
	struct pmb_count v[PMB_MAX_EVENTS];
	struct pmb_group *g;

	*inside_ns = -1;
	if (c->ngroups == 0)
		return -1;
	g = c->group[0];
	for (int i = 0; i < N; i++) {
		uint64_t t0 = pmb_clock_ns();

		pmb__group_start(g);
		pmb__group_mark(g, 0);
		pmb__group_mark(g, 1);
		pmb__group_stop(g);
		pmb__group_read(g, v);
		d[i] = (double)(pmb_clock_ns() - t0);
	}
	for (int i = 0; i < N; i++) {
		uint64_t t0;

		pmb__group_start(g);
		t0 = pmb_clock_ns();
		pmb__group_mark(g, 0);
		pmb__group_mark(g, 1);
		in[i] = (double)(pmb_clock_ns() - t0);
		pmb__group_stop(g);
		pmb__group_read(g, v);
	}
	*inside_ns = pmb__median(in, N);
	return pmb__median(d, N);
}
