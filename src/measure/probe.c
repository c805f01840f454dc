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
static double cpu_busy(int cpu)
{
	unsigned long long a[2][8];
	char want[16];

	snprintf(want, sizeof(want), "cpu%d ", cpu);
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen("/proc/stat", "r");
		char line[512];
		bool found = false;

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, want, strlen(want))) {
				sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu",
				       &a[k][0], &a[k][1], &a[k][2], &a[k][3], &a[k][4], &a[k][5],
				       &a[k][6], &a[k][7]);
				found = true;
			}
		fclose(f);
		if (!found)
			return -1;
		if (k == 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	unsigned long long busy = 0, all = 0;
	for (int i = 0; i < 8; i++) {
		unsigned long long d = a[1][i] - a[0][i];

		all += d;
		if (i != 3 && i != 4) /* idle, iowait */
			busy += d;
	}
	return all ? (double)busy / (double)all : -1;
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

void pmb__env_probe(struct pmb_env *env, int cpu, bool sim, struct pmb_warnings *w)
{
	char buf[128], path[128];
	FILE *f;

	memset(env, 0, sizeof(*env));
	pmb__clock_probe(&env->clock);
	if (pmb__clock_estimate_ghz(&env->ghz))
		env->ghz = 0;
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
	double busy = !sim ? cpu_busy(cpu) : 0;
	if (busy > 0.2)
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
